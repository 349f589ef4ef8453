#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Ctrl-C during an index build (tdatfs(1) INDEX): tdatfs -f
# on one thread with a new index_dir, SIGINT once the progress line
# ("tdatfs: TRACE: indexing: P% of N pages, X MB/s, S s left") is on
# stderr: it exits 130 (128 + SIGINT) saying "indexing interrupted;
# nothing mounted", nothing is mounted, and no file (no temporary either)
# is left in the index_dir.  Then the same for `tdat --progress index`.
# The trace is BIG_TRACE made three times longer (SCALE_TRACE,
# scripts/scale-trace): big.dat alone is built in under a second on one
# thread, before any progress line.
#   sigint.sh TDAT TDATFS BIG_TRACE SCALE_TRACE
# Skipped (77) where BIG_TRACE or /dev/fuse is missing.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"

tdat=$1
tdatfs=$2
big=$3
scale=$4
need_trace "$big"
need_fuse
index_setup
idx=$tmp/idx
trace=$tmp/$(basename "$big" .dat)-x3.dat
name=$(basename "$trace")
python3 "$scale" -k 3 "$big" "$trace" > /dev/null ||
	{ fail "scale-trace -k 3 $big fails"; finish; }

# Job control: a script's background job would otherwise ignore SIGINT.
set -m
"$tdatfs" -f -o threads=1 -o index_dir="$idx" "$trace" "$mnt" 2> "$tmp/log" &
daemon_pid=$!
set +m
seen=
t0=$(date +%s.%N)
for _ in $(seq 1 600); do
	if grep -q 'indexing: [0-9]*% of [0-9]* pages' "$tmp/log"; then
		seen=1
		break
	fi
	mountpoint -q "$mnt" && break
	kill -0 "$daemon_pid" 2>/dev/null || break
	sleep 0.05
done
waited=$(echo "$(date +%s.%N) - $t0" | bc)
if [ -n "$seen" ]; then
	ok
elif mountpoint -q "$mnt"; then
	fail "$name: the index was built (mount ready) after $waited s before a progress line appeared"
elif ! kill -0 "$daemon_pid" 2>/dev/null; then
	fail "$name: tdatfs ended before a progress line appeared"
else
	fail "$name: no progress line after $waited s of building"
fi
echo "progress line after $waited s: $(grep -m 1 'indexing:' "$tmp/log" || echo none)"
signal_daemon INT 20 || fail "$name: tdatfs still runs 20 s after SIGINT"
rc=$daemon_rc
# 128 + SIGINT, as the man page says (EXIT STATUS).
if [ "$rc" -eq 130 ]; then ok; else
	fail "$name: SIGINT during the build: exit status $rc, want 130"
fi
if grep -q ': indexing interrupted; nothing mounted$' "$tmp/log"; then ok; else
	fail "$name: SIGINT during the build: no 'tdatfs: TRACE: indexing interrupted; nothing mounted' line"
fi
if mountpoint -q "$mnt"; then
	fail "$name: SIGINT during the build: something is mounted on $mnt"
	fusermount3 -u "$mnt" || true
else
	ok
fi
left=$(index_files "$idx")
if [ -z "$left" ]; then ok; else
	fail "$name: SIGINT during the build left files in the index_dir: $left"
fi
echo "exit status $rc; tdatfs's stderr:"
sed 's/^/  | /' "$tmp/log"

# The same for `tdat index` (--progress: the line also when stderr is no
# terminal): exit 130, no file left.
idx2=$tmp/idx2
set -m
"$tdat" -o threads=1 -o index_dir="$idx2" --progress index "$trace" > "$tmp/out" 2> "$tmp/log2" &
pid=$!
set +m
seen=
for _ in $(seq 1 600); do
	grep -q 'indexing: [0-9]*% of [0-9]* pages' "$tmp/log2" && { seen=1; break; }
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.05
done
[ -n "$seen" ] && ok || fail "$name: tdat --progress index: no progress line before it ended or in 30 s"
kill -INT "$pid" 2>/dev/null || true
rc=0
wait "$pid" || rc=$?
[ "$rc" -eq 130 ] && ok || fail "$name: tdat index stopped by SIGINT: exit status $rc, want 130"
left=$(index_files "$idx2")
[ -z "$left" ] && ok || fail "$name: tdat index stopped by SIGINT left files: $left"
echo "tdat index: exit status $rc; its stderr:"
sed 's/^/  | /' "$tmp/log2"
finish
