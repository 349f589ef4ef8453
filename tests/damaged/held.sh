#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What must keep holding on a real mount (README, Reliability and security;
# tdatfs(1), DAMAGED TRACES).  usage: held.sh GEN_COUNTS TDAT TDATFS DATADIR
#  - the daemon holds the trace O_RDONLY|O_CLOEXEC;
#  - every kind of write fails with EROFS (open for writing, create,
#    truncate, mkdir, rmdir, unlink, rename, link, symlink, mkfifo, mknod,
#    chmod, chown, utime, setxattr, removexattr);
#  - another user (65534, run as root) gets EACCES without allow_other;
#  - event and system names ".", "..", "/", "../../../../etc" (GEN_COUNTS'
#    dots variant) stay inside the tree: the mount lists exactly what
#    `tdat ls -R` lists, no entry is "." or ".." or holds a "/", and every
#    path resolves under the mount point;
#  - names with control bytes, invalid UTF-8 and the names of the tree's
#    own files (GEN_COUNTS' names variant): `find -print0 | xargs -0 cat`
#    of the mount exits 0, and `find` lists no name with a newline;
#  - 32 readers at once with -o cache_size=1M get the bytes of `tdat cat`;
#  - the trace truncated under the mount: reads fail with EIO after good
#    bytes (a prefix of the right ones), errors says "the file shrank",
#    and the file reads right again once its bytes are back; overwritten
#    with zeros, reads end with EIO or the right bytes and the daemon
#    stays up; deleted, reads go on (the daemon holds it open); the trace
#    file's bytes and mtime are never changed by the mount; the daemon
#    exits 0 at the unmount;
#  - kill -9 of the daemon: a reader gets ENOTCONN, fusermount3 -u
#    removes the dead mount.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

gen=$1 tdat=$2 tdatfs=$3 data=$4
need_fuse
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt" "$work/c" "$work/ref"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT
cp "$data/small.dat" "$work/t.dat"
"$tdat" cat "$data/small.dat" /trace >"$work/ref/trace"
"$tdat" cat "$data/small.dat" /per_cpu/cpu1/trace_pipe_raw >"$work/ref/raw1"
files=(trace per_cpu/cpu0/trace per_cpu/cpu1/trace report
       per_cpu/cpu0/trace_pipe_raw per_cpu/cpu1/trace_pipe_raw kallsyms
       events/sched/sched_switch/format)
for f in "${files[@]}"; do
	"$tdat" cat "$data/small.dat" "/$f" >"$work/ref/${f//\//_}"
done

# errno_of PYTHON-EXPR...: print the errno name each expression raises
# (with os, stat and m, the mount point), "none" when it succeeds
errno_of() {
	python3 - "$mnt" "$@" <<'EOF'
import errno, os, stat, sys
m = sys.argv[1]
for expr in sys.argv[2:]:
    try:
        eval(expr)
        print("none")
    except OSError as e:
        print(errno.errorcode.get(e.errno, str(e.errno)))
EOF
}

# ---- the trace's descriptor, writes, other users -------------------------
start_mount "$tdatfs" "$work/t.dat" "$mnt" -o cache_size=1M
found=0
for fd in /proc/"$daemon_pid"/fd/*; do
	[ "$(readlink "$fd")" = "$(realpath "$work/t.dat")" ] || continue
	found=$((found + 1))
	flags=$(awk '/^flags:/ { print $2 }' /proc/"$daemon_pid"/fdinfo/"${fd##*/}")
	if [ $((8#$flags & 3)) -eq 0 ] && [ $((8#$flags & 8#2000000)) -ne 0 ]; then
		ok
	else
		fail "trace open with flags $flags, not O_RDONLY|O_CLOEXEC"
	fi
done
[ "$found" -gt 0 ] && ok || fail "the daemon holds no descriptor of the trace"

writes=(
	'os.open(m + "/info", os.O_WRONLY)'
	'os.open(m + "/info", os.O_RDWR)'
	'os.open(m + "/new", os.O_WRONLY | os.O_CREAT, 0o644)'
	'os.open(m + "/info", os.O_RDONLY | os.O_TRUNC)'
	'os.truncate(m + "/info", 0)'
	'os.mkdir(m + "/d")'
	'os.rmdir(m + "/per_cpu")'
	'os.unlink(m + "/info")'
	'os.rename(m + "/info", m + "/info2")'
	'os.rename(m + "/per_cpu", m + "/cpus")'
	'os.link(m + "/info", m + "/info2")'
	'os.symlink("info", m + "/link")'
	'os.mkfifo(m + "/fifo")'
	'os.mknod(m + "/node", 0o600 | stat.S_IFREG)'
	'os.chmod(m + "/info", 0o777)'
	'os.chown(m + "/info", 1, 1)'
	'os.utime(m + "/info", (0, 0))'
	'os.setxattr(m + "/info", "user.x", b"1")'
	'os.removexattr(m + "/info", "user.x")'
)
mapfile -t got < <(errno_of "${writes[@]}")
for i in "${!writes[@]}"; do
	if [ "${got[$i]:-}" = EROFS ]; then ok; else
		fail "${writes[$i]}: ${got[$i]:-no answer}, not EROFS"
	fi
done

if [ "$(id -u)" -eq 0 ]; then
	for what in "cat $mnt/info" "ls $mnt" "stat $mnt/trace"; do
		if out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
			 $what 2>&1 >/dev/null); then
			fail "user 65534: $what succeeded without allow_other"
		elif grep -q 'Permission denied' <<<"$out"; then
			ok
		else
			fail "user 65534: $what: $out, not EACCES"
		fi
	done
else
	echo "note: not root: the other-user check needs root to change user"
fi

# ---- the trace changed under the mount ----------------------------------
# prefix_or_eio WHAT REF: cat of $mnt/WHAT ends, with the right bytes or
# with EIO after a prefix of them
prefix_or_eio() {
	local rc=0
	timeout -s KILL 20 cat "$mnt/$1" >"$work/got" 2>"$work/err" || rc=$?
	if [ "$rc" -ne 0 ] && ! grep -q 'Input/output error' "$work/err"; then
		fail "$1: status $rc: $(head -c 200 "$work/err")"
	elif cmp -s "$work/got" <(head -c "$(stat -c %s "$work/got")" "$2"); then
		ok
	else
		fail "$1: bytes other than the trace's (status $rc)"
	fi
	last_rc=$rc
}

# Once its index keeps the sizes, a mount starts no thread that reads the
# whole trace ahead (tdatfs(1) INDEX); on such a fresh mount nothing of
# the trace is in the cache, and what follows is read from the file.
for i in $(seq 1 400); do
	"$tdat" index --check "$work/t.dat" 2>/dev/null | grep -q ', sizes kept$' && break
	sleep 0.05
done
"$tdat" index --check "$work/t.dat" 2>/dev/null | grep -q ', sizes kept$' && ok ||
	fail "the sizes never came to be kept in the index"
stop_mount "$mnt"
start_mount "$tdatfs" "$work/t.dat" "$mnt" -o cache_size=1M
truncate -s 1180000 "$work/t.dat"
for w in trace:trace per_cpu/cpu1/trace_pipe_raw:raw1; do
	prefix_or_eio "${w%%:*}" "$work/ref/${w##*:}"
	[ "$last_rc" -ne 0 ] && ok || fail "${w%%:*}: read in full from a truncated trace"
done
shrank="cannot be read: the file shrank from $(stat -c %s "$data/small.dat") to 1180000 bytes"
if grep -q "$shrank: file offset [0-9]" "$mnt/errors"; then
	ok
else
	fail "errors does not say the file shrank: $(head -c 300 "$mnt/errors")"
fi
cp "$data/small.dat" "$work/t.dat"
cat "$mnt/per_cpu/cpu1/trace_pipe_raw" >"$work/got" 2>/dev/null || true
same_file "cpu1 trace_pipe_raw once the bytes are back" "$work/ref/raw1" "$work/got"
# every chunk of cpu1's data overwritten with zeros
dd if=/dev/zero of="$work/t.dat" bs=1 seek=1176351 count=43000 conv=notrunc status=none
prefix_or_eio per_cpu/cpu1/trace_pipe_raw "$work/ref/raw1"
timeout -s KILL 20 cat "$mnt/trace" >/dev/null 2>&1 || true
kill -0 "$daemon_pid" 2>/dev/null && ok || fail "the daemon died on an overwritten trace"
# deleted: the daemon's descriptor still holds the bytes (cpu1's chunks
# may stay marked damaged by the zeros: see tdatfs(1), BUGS)
cp "$data/small.dat" "$work/t.dat"
rm "$work/t.dat"
for f in per_cpu/cpu0/trace_pipe_raw kallsyms; do
	cat "$mnt/$f" >"$work/got" 2>/dev/null || true
	same_file "/$f of a deleted trace" "$work/ref/${f//\//_}" "$work/got"
done
kill -0 "$daemon_pid" 2>/dev/null && ok || fail "the daemon died on a deleted trace"
stop_mount "$mnt"

# The mount never writes the trace: a copy read by 32 readers at once.
cp -p "$data/small.dat" "$work/t.dat"
sum_before=$(sha256sum <"$work/t.dat")
mtime_before=$(stat -c %Y "$work/t.dat")
start_mount "$tdatfs" "$work/t.dat" "$mnt" -o cache_size=1M
# ---- 32 readers at once, 1 MiB cache -------------------------------------
pids=()
for i in $(seq 0 31); do
	f=${files[$((i % ${#files[@]}))]}
	# O_DIRECT: every reader's bytes come from the daemon, not the page cache
	dd if="$mnt/$f" of="$work/r$i" bs=$((65536 * (1 + i % 4))) iflag=direct \
		status=none &
	pids+=($!)
done
for i in $(seq 0 31); do
	f=${files[$((i % ${#files[@]}))]}
	if wait "${pids[$i]}"; then
		same_file "reader $i of 32: /$f" "$work/ref/${f//\//_}" "$work/r$i"
	else
		fail "reader $i of 32: /$f failed"
	fi
done

stop_mount "$mnt"
[ "$(sha256sum <"$work/t.dat")" = "$sum_before" ] && ok || fail "trace bytes changed"
[ "$(stat -c %Y "$work/t.dat")" = "$mtime_before" ] && ok || fail "trace mtime changed"

# ---- names that would escape ---------------------------------------------
"$gen" "$data/small-v6.dat" "$work/c" 1 >/dev/null
dots=$work/c/counts.dots.dat
start_mount "$tdatfs" "$dots" "$mnt" -o noindex
"$tdat" ls -R "$dots" / | sed 's,/$,,' | sort >"$work/want.ls"
(cd "$mnt" && find . -mindepth 1 | sed 's,^\./,,' | sort) >"$work/got.ls"
same_file "the dots trace's tree through the mount" "$work/want.ls" "$work/got.ls"
# the systems ".." and "." are events/_ and events/_-2
bad=$(python3 - "$mnt" <<'EOF'
import os, sys
m = os.path.realpath(sys.argv[1])
for d, dirs, files in [w for s in ("_", "_-2")
                       for w in os.walk(os.path.join(m, "events", s))]:
    for n in dirs + files:
        p = os.path.join(d, n)
        if n in (".", "..", "") or "/" in n:
            print(p)
    for n in dirs:
        if not os.path.realpath(os.path.join(d, n)).startswith(m + "/"):
            print(os.path.join(d, n))
EOF
)
[ -z "$bad" ] && ok || fail "names that leave the tree: $(head -3 <<<"$bad")"
grep -q '^events/_/\.\.\.$' "$work/got.ls" && ok || fail "no events/_/... in the dots tree"

# ---- names from the trace that break tools --------------------------------
names=$work/c/counts.names.dat
stop_mount "$mnt"
start_mount "$tdatfs" "$names" "$mnt"
if (cd "$mnt" && find . -type f -print0 | xargs -0 cat >/dev/null); then
	ok
else
	fail "find -print0 | xargs -0 cat of the names trace's mount failed"
fi
nl=$(cd "$mnt" && find . -name '*
*' | head -1)
[ -z "$nl" ] && ok || fail "a name with a newline in the mount: $nl"

# ---- kill -9 of the daemon (the names trace's mount) ---------------------
kill -9 "$daemon_pid"
wait "$daemon_pid" 2>/dev/null || true
daemon_pid=
got=$(errno_of 'os.open(m + "/info", os.O_RDONLY)' 'os.listdir(m)')
if [ "$got" = "$(printf 'ENOTCONN\nENOTCONN')" ]; then ok; else
	fail "after kill -9 of the daemon: $(tr '\n' ' ' <<<"$got"), not ENOTCONN"
fi
if fusermount3 -u "$mnt" && ! mountpoint -q "$mnt"; then ok; else
	fail "fusermount3 -u did not remove the dead mount"
fi
finish
