#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace.pftrace as a regular file through a real mount (`tdatfs -f`, a new
# index directory), and a window's against the whole buffer's:
#  - before anything is read, `stat -c %s` of the root's trace.pftrace,
#    each instances/NAME/trace.pftrace and a window's;
#  - then 300 reads of each at random offsets and lengths (pread: odd
#    offsets, reads across bundles, past the end), in a random order (a
#    read never depends on the ones before), equal the same bytes of
#    `tdat cat`'s whole file;
#  - then `cat` of each through the mount reads exactly the first stat's
#    size, the bytes `tdat cat` gives;
#  - the window's file decoded by protoc (Perfetto's schema) holds, CPU
#    by CPU, exactly the events of the whole buffer's file whose time as
#    the text prints it (microseconds, rounded) lies in the window, in
#    the same order; the whole file holds every record of the buffer's
#    trace (the count of its lines with a record time);
#  - fusermount3 -u ends the daemon with status 0.
#   pftrace-offsets.sh TDAT TDATFS TRACE
# Skipped (77) only where TRACE (a trace of ../shared), /dev/fuse or
# protoc is missing.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/../index/lib.sh"

tdat=$1 tdatfs=$2 trace=$3
name=$(basename "$trace")
proto=$here/../../../shared/perfetto
need_trace "$trace"
need_fuse
if ! command -v protoc > /dev/null || [ ! -f "$proto/perfetto_trace.proto" ]; then
	echo "SKIP: protoc or $proto/perfetto_trace.proto is missing" >&2
	exit 77
fi
index_setup    # $tmp, $mnt, XDG_CACHE_HOME in $tmp; all removed on exit
py=/usr/bin/python3
[ -x "$py" ] || py=python3

# header_times < TEXT: the time column of every record's first line
header_times() {
	sed -nE 's/^.*-[0-9]+ +\[[0-9]+\] *([0-9]+(\.[0-9]+)?): [^ :]+:.*$/\1/p'
}

# the root's first: the whole buffer the window is compared with
"$tdat" ls -R "$trace" / | grep -E '^(instances/[^/]+/)?trace\.pftrace$' |
	LC_ALL=C sort -r > "$tmp/files"
[ "$(head -n 1 "$tmp/files")" = trace.pftrace ] ||
	fail "$name: tdat ls -R lists no trace.pftrace at the root"
"$tdat" cat "$trace" /trace | header_times > "$tmp/times"
# the buffer's records: summary.tsv's counts (a funcgraph leaf is two
# records on one line)
nrec=$("$tdat" cat "$trace" /events/summary.tsv | awk -F'\t' 'NR > 1 { n += $4 } END { print n + 0 }')
ntimes=$(wc -l < "$tmp/times")
# a window over the middle half of the records' times
window=
if [ "$ntimes" -ge 8 ]; then
	t0=$(sed -n "$((ntimes / 4))p" "$tmp/times")
	t1=$(sed -n "$((ntimes * 3 / 4))p" "$tmp/times")
	if [ "$t0" != "$t1" ]; then
		window=time/$t0-$t1
		echo "$window/trace.pftrace" >> "$tmp/files"
	fi
fi
echo "$name: $(wc -l < "$tmp/files") trace.pftrace files${window:+, window $window}"

# ---- the first stat is what reads; the bytes are tdat cat's ----------------
mount_sizes "$trace" "$tmp/files"
i=0
while IFS=$'\t' read -r f size; do
	i=$((i + 1))
	"$tdat" cat "$trace" "/$f" > "$tmp/want.$i" || fail "$name: tdat cat $f"
	# ---- reads at random offsets first (the page cache holds nothing
	# yet), then the whole file: the same bytes -----------------------------
	"$py" - "$mnt/$f" "$tmp/want.$i" <<-'EOF' || fail "$name: $f: reads at random offsets"
	import os, random, sys
	path, whole = sys.argv[1], open(sys.argv[2], 'rb').read()
	rnd = random.Random(33)
	fd = os.open(path, os.O_RDONLY)
	n = len(whole)
	for k in range(300):
	    off = rnd.randrange(0, n + 64) if n else 0
	    ln = rnd.choice([1, 7, 4095, 4096, 65536, 131072, rnd.randrange(1, 300000)])
	    got = os.pread(fd, ln, off)
	    if got != whole[off:off + ln]:
	        sys.exit(f'{path}: pread({ln}, {off}) gives {len(got)} bytes unlike the file')
	print(f'{path}: 300 reads at random offsets agree')
	EOF
	ok
	cat "$mnt/$f" > "$tmp/got.$i" || fail "$name: cat $f through the mount"
	got=$(wc -c < "$tmp/got.$i")
	[ "$got" = "$size" ] || fail "$name: $f: stat said $size bytes before any read, cat reads $got"
	same_file "$name: $f through the mount vs tdat cat" "$tmp/want.$i" "$tmp/got.$i"
done < "$tmp/sizes"

# ---- the window's events are the whole file's inside the window -----------
decode() {
	protoc -I "$proto" --decode=perfetto.protos.Trace perfetto_trace.proto < "$1" ||
		fail "$name: protoc does not decode $1"
}
decode "$tmp/want.1" > "$tmp/whole.txt"
"$py" - "$tmp/whole.txt" "$nrec" <<-'EOF' || fail "$name: the whole buffer's events vs its trace"
import sys
bundle, n = False, 0
for l in open(sys.argv[1]):
    if l.startswith('  ') and not l.startswith('   '):
        bundle = l == '  ftrace_events {\n'
    n += bundle and l.startswith('      timestamp: ')
if n != int(sys.argv[2]):
    sys.exit(f'trace.pftrace holds {n} events, the trace {sys.argv[2]} records')
print(f'trace.pftrace holds the {n} records of the trace')
EOF
ok
if [ -n "$window" ]; then
	decode "$tmp/want.$(wc -l < "$tmp/files")" > "$tmp/window.txt"
	"$py" - "$tmp/whole.txt" "$tmp/window.txt" "$t0" "$t1" <<-'EOF' ||
	import sys
	def events(path):
	    out, cpu, ts, bundle = {}, None, None, False
	    for l in open(path):
	        if l.startswith('  ') and not l.startswith('   '):
	            bundle = l == '  ftrace_events {\n'
	        elif not bundle:
	            continue
	        elif l.startswith('    cpu: '):
	            cpu = int(l.split()[1])
	        elif l.startswith('      timestamp: '):
	            ts = int(l.split()[1])
	        elif l.startswith('      pid: '):
	            out.setdefault(cpu, []).append((ts, int(l.split()[1])))
	    return out
	# a time with a fraction is seconds of a nanosecond clock, printed
	# as microseconds rounded; else a raw count, printed as it is
	usecs = '.' in sys.argv[3] + sys.argv[4]
	def ns(s):
	    sec, _, frac = s.partition('.')
	    return int(sec) * 10**9 + int((frac + '000000000')[:9]) if usecs else int(s)
	def key(ts):
	    return (ts + 500) // 1000 * 1000 if usecs else ts
	k0, k1 = ns(sys.argv[3]), ns(sys.argv[4])
	whole, win = events(sys.argv[1]), events(sys.argv[2])
	want = {c: [e for e in ev if k0 <= key(e[0]) < k1]
	        for c, ev in whole.items()}
	want = {c: ev for c, ev in want.items() if ev}
	if want != win:
	    sys.exit(f'window [{k0}, {k1}): {sum(map(len, win.values()))} events, '
	             f'the whole file has {sum(map(len, want.values()))} inside')
	print(f'window [{k0}, {k1}): the {sum(map(len, win.values()))} events of the whole file inside it')
	EOF
		fail "$name: $window/trace.pftrace vs the whole buffer's"
	ok
fi

umount_log "$mnt"
finish
