#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Forge damaged index files for tests/index/damaged-index.sh (and
rewritten.sh, chunk-tables.sh).

The layout it knows (fs/index/file.h, numbers in host order): an
8-byte magic "tdatidx\\0", u32 format version at 8, the machine tag at 12,
u64 length at 16, tdatfs's and libtraceevent's versions (24 bytes each) at
24 and 48, the trace's size, mtime (ns), inode, ctime (ns) (u64 each) at
72, 80, 88, 96, layout CRC, data sample CRC and checkpoint bound (u32) at
104, 108 and 112, the text count at 116, the texts from 124, then the
chunk tables (a u64 length, then the parser's bytes), the optional sizes
section (u32 count, u32 CRC32 of the entries, then per buffer u64 buffer,
timeline size, pftrace size, layout length, then the trace.pftrace
layout zero-padded to 8 bytes), and a zlib CRC32 of every byte before it
at the end.  A layout (fs/text/pftrace-file.c) is u32 magic, u32 slots,
u64 head length, u64 units, u64 first unit per slot (slots + 1), per unit
u64 end and u64 page, then the file's head.

  forge-index.py check FILE               exit 0 if FILE is of that layout
  forge-index.py u32 IN OUT OFFSET DELTA  add DELTA to a u32, CRC made right
  forge-index.py u64 IN OUT OFFSET DELTA  the same for a u64
  forge-index.py set IN OUT N:OFFSET:VALUE...  set N-byte numbers (N 4 or
      8) at OFFSET to VALUE, CRC made right
  forge-index.py str IN OUT OFFSET TEXT   a version string, CRC made right
  forge-index.py sizes-at FILE            the sizes section's offset and its
      entry count ("OFFSET COUNT", count -1 when the file has none)
  forge-index.py sizes IN OUT ENTRY FIELD DELTA  add DELTA to field FIELD
      (0 buffer, 1 timeline, 2 pftrace; u64) of entry ENTRY of the sizes
      section, its own CRC and the file's made right
  forge-index.py sizes-crc IN OUT         the sizes section's own CRC made
      wrong, the file's made right
  forge-index.py layout IN OUT ENTRY WHAT  entry ENTRY's layout forged, the
      section's CRC and the file's made right; WHAT is "slots" (its slot
      count one more), "head" (the middle byte of its head flipped; prints
      that byte's offset in trace.pftrace) or "unit" (the end of its
      middle unit one more; prints the unit's first byte in trace.pftrace)
  forge-index.py flips GOOD TARGET BUDGET FULL TDAT TRACE
      each byte of GOOD flipped (xor 0xff) in turn and written to TARGET,
      then `TDAT index --check TRACE` must exit 1; all bytes when GOOD has
      at most BUDGET, else every header byte, the CRC and a fixed random
      sample.  Prints one line per offset that was not refused, and the
      offsets (about FULL of them, spread out) the caller should check in
      full, on the last line as "full: OFF...".
"""
import os
import random
import struct
import subprocess
import sys
import zlib

MAGIC = b"tdatidx\0"
HEAD = 124
FIELDS = [  # (offset, length, name)
    (0, 8, "magic"), (8, 4, "format version"), (12, 4, "machine tag"),
    (16, 8, "length"), (24, 24, "tdatfs version"),
    (48, 24, "libtraceevent version"), (72, 8, "trace size"),
    (80, 8, "trace mtime"), (88, 8, "trace inode"),
    (96, 8, "trace ctime"), (104, 4, "layout CRC"),
    (108, 4, "data sample CRC"), (112, 4, "max_checkpoints"),
    (116, 8, "text count"),
]


def field_of(off, size):
    for at, n, name in FIELDS:
        if at <= off < at + n:
            return name
    if off >= size - 4:
        return "file CRC"
    return "texts or chunk tables"


def fix_crc(b):
    b[-4:] = struct.pack("<I", zlib.crc32(bytes(b[:-4])) & 0xFFFFFFFF)


def load(path):
    with open(path, "rb") as f:
        b = bytearray(f.read())
    if len(b) < HEAD + 4 or b[:8] != MAGIC:
        sys.exit("%s: not an index file of the layout this test knows" % path)
    return b


def save(path, b):
    with open(path, "wb") as f:
        f.write(b)


def patch_int(argv, fmt):
    b = load(argv[0])
    off, delta = int(argv[2]), int(argv[3])
    n = struct.calcsize(fmt)
    (v,) = struct.unpack_from(fmt, b, off)
    struct.pack_into(fmt, b, off, (v + delta) % (1 << (8 * n)))
    fix_crc(b)
    save(argv[1], b)


def patch_str(argv):
    b = load(argv[0])
    off, text = int(argv[2]), argv[3].encode()[:23]
    b[off:off + 24] = text + b"\0" * (24 - len(text))
    fix_crc(b)
    save(argv[1], b)


def sizes_at(b):
    """The sizes section's offset (after the chunk tables) and its bytes."""
    (count,) = struct.unpack_from("<I", b, 116)
    at = HEAD
    for _ in range(count):
        (n,) = struct.unpack_from("<Q", b, at + 16)
        at += 24 + n
    (n,) = struct.unpack_from("<Q", b, at)
    at += 8 + n
    return at, len(b) - 4 - at


def sizes_fix(b, at):
    body = bytes(b[at + 8:len(b) - 4])
    struct.pack_into("<I", b, at + 4, zlib.crc32(body) & 0xFFFFFFFF)


def entry_at(b, at, i):
    """Entry I's offset in the sizes section at AT."""
    off = at + 8
    for _ in range(i):
        (n,) = struct.unpack_from("<Q", b, off + 24)
        off += 32 + (n + 7) // 8 * 8
    return off


def layout(b, at, i, what):
    """Forge entry I's layout as WHAT; returns the offset to print."""
    e = entry_at(b, at, i)
    (llen,) = struct.unpack_from("<Q", b, e + 24)
    lo = e + 32
    if not llen:
        sys.exit("entry %d has no layout" % i)
    slots, = struct.unpack_from("<I", b, lo + 4)
    hlen, nu = struct.unpack_from("<QQ", b, lo + 8)
    units = lo + 24 + 8 * (slots + 1)
    if what == "slots":
        struct.pack_into("<I", b, lo + 4, slots + 1)
        return 0
    if what == "head":
        if not hlen:
            sys.exit("entry %d's layout has no head" % i)
        b[units + 16 * nu + hlen // 2] ^= 0xFF
        return hlen // 2
    if nu < 3:
        sys.exit("entry %d's layout has %d units" % (i, nu))
    u = units + 16 * (nu // 2)
    (prev,) = struct.unpack_from("<Q", b, u - 16)
    (end,) = struct.unpack_from("<Q", b, u)
    struct.pack_into("<Q", b, u, end + 1)
    return hlen + prev


def flips(argv):
    good_path, target, budget, full, tdat, trace = argv
    budget, full = int(budget), int(full)
    with open(good_path, "rb") as f:
        good = f.read()
    size = len(good)
    if size <= budget:
        offs = list(range(size))
    else:
        head = set(range(min(HEAD, size))) | set(range(size - 4, size))
        rest = [o for o in range(size) if o not in head]
        rng = random.Random(11)
        offs = sorted(head | set(rng.sample(rest, max(0, budget - len(head)))))
    bad = 0
    for off in offs:
        b = bytearray(good)
        b[off] ^= 0xFF
        with open(target, "wb") as f:
            f.write(b)
        r = subprocess.run([tdat, "index", "--check", trace],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if r.returncode != 1:
            bad += 1
            if bad <= 20:
                err = r.stderr.decode(errors="replace").strip().splitlines()
                print("byte %d of %d (%s) flipped: tdat index --check exit %d%s"
                      % (off, size, field_of(off, size), r.returncode,
                         (": " + err[-1]) if err else ""))
    with open(target, "wb") as f:
        f.write(good)
    if bad > 20:
        print("... and %d more offsets not refused" % (bad - 20))
    step = max(1, len(offs) // max(1, full))
    sample = sorted(set(offs[::step]) | {0, 8, 16, 80, size // 2, size - 1})
    print("tested %d of %d bytes" % (len(offs), size))
    print("full: " + " ".join(str(o) for o in sample if o < size))
    return 1 if bad else 0


def main():
    cmd, argv = sys.argv[1], sys.argv[2:]
    if cmd == "check":
        load(argv[0])
    elif cmd == "u32":
        patch_int(argv, "<I")
    elif cmd == "u64":
        patch_int(argv, "<Q")
    elif cmd == "set":
        b = load(argv[0])
        for field in argv[2:]:
            n, off, v = field.split(":")
            struct.pack_into("<Q" if n == "8" else "<I", b, int(off), int(v))
        fix_crc(b)
        save(argv[1], b)
    elif cmd == "str":
        patch_str(argv)
    elif cmd == "sizes-at":
        b = load(argv[0])
        at, n = sizes_at(b)
        print(at, struct.unpack_from("<I", b, at)[0] if n else -1)
    elif cmd == "sizes":
        b = load(argv[0])
        at, n = sizes_at(b)
        if not n:
            sys.exit("%s: no sizes section" % argv[0])
        off = entry_at(b, at, int(argv[2])) + 8 * int(argv[3])
        (v,) = struct.unpack_from("<Q", b, off)
        struct.pack_into("<Q", b, off, (v + int(argv[4])) % (1 << 64))
        sizes_fix(b, at)
        fix_crc(b)
        save(argv[1], b)
    elif cmd == "layout":
        b = load(argv[0])
        at, n = sizes_at(b)
        if not n:
            sys.exit("%s: no sizes section" % argv[0])
        print(layout(b, at, int(argv[2]), argv[3]))
        sizes_fix(b, at)
        fix_crc(b)
        save(argv[1], b)
    elif cmd == "sizes-crc":
        b = load(argv[0])
        at, n = sizes_at(b)
        if not n:
            sys.exit("%s: no sizes section" % argv[0])
        b[at + 4] ^= 0xFF
        fix_crc(b)
        save(argv[1], b)
    elif cmd == "flip":
        b = bytearray(open(argv[0], "rb").read())
        b[int(argv[2])] ^= 0xFF
        save(argv[1], b)
    elif cmd == "flips":
        return flips(argv)
    else:
        sys.exit("unknown command " + cmd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
