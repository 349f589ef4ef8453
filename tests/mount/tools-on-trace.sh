#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Ordinary tools on a mounted decoded `trace` file, compared with the oracle
# (`trace-cmd report | tail -n +2` of ORACLE): tail before and after a full
# read, cat, grep -c, wc, dd at offsets, cp + cmp, Python, two readers at
# once; stat size exact before the text is produced (the index).  Then the
# same with `-o cache_size=1M`: same bytes, and the daemon's peak RSS stays
# bounded; with `-o noindex`, size 0 until the text is produced once.
#   tools-on-trace.sh TDAT TDATFS TRACE [ORACLE]
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
need_fuse
need_oracle

tdat=$1
tdatfs=$2
trace=$3
oracle=${4:-$3}
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$tmp"' EXIT

oracle_run report -i "$oracle" 2>/dev/null | tail -n +2 > "$tmp/want"
[ -s "$tmp/want" ] || { fail "empty oracle report"; finish; }
want_bytes=$(stat -c %s "$tmp/want")

check_eq() { # WHAT WANT GOT
	if [ "$2" = "$3" ]; then ok; else fail "$1: want '$2', got '$3'"; fi
}

start_mount "$tdatfs" "$trace" "$mnt"
t=$mnt/trace

# Before the text is produced: the index's exact size, and tail works.
check_eq "stat size before the text is produced" "$want_bytes" "$(stat -c %s "$t")"
check_eq "tail -n 5 before a full read" "$(tail -n 5 "$tmp/want")" "$(tail -n 5 "$t")"

cat "$t" > "$tmp/cat"
same_file "cat trace" "$tmp/want" "$tmp/cat"
check_eq "stat size once produced" "$want_bytes" "$(stat -c %s "$t")"
check_eq "tail -n 5 after a full read" "$(tail -n 5 "$tmp/want")" "$(tail -n 5 "$t")"
check_eq "grep -c sched_" "$(grep -c sched_ "$tmp/want" || true)" "$(grep -c sched_ "$t" || true)"
check_eq "wc -l" "$(wc -l < "$tmp/want")" "$(wc -l < "$t")"
check_eq "wc -c" "$want_bytes" "$(wc -c < "$t")"

blocks=$(( (want_bytes + 4095) / 4096 ))
for skip in 0 1 $((blocks / 3)) $((blocks / 2)) $((blocks - 1)) $blocks; do
	dd if="$tmp/want" bs=4096 skip=$skip count=3 status=none > "$tmp/dd.want"
	dd if="$t" bs=4096 skip=$skip count=3 status=none > "$tmp/dd.got"
	same_file "dd bs=4096 skip=$skip count=3" "$tmp/dd.want" "$tmp/dd.got"
done
# Odd offsets and sizes.
dd if="$tmp/want" bs=1 skip=12345 count=7777 status=none > "$tmp/dd.want"
dd if="$t" bs=1 skip=12345 count=7777 status=none > "$tmp/dd.got"
same_file "dd bs=1 skip=12345 count=7777" "$tmp/dd.want" "$tmp/dd.got"

cp "$t" "$tmp/copy"
same_file "cp then cmp" "$tmp/want" "$tmp/copy"
python3 -c 'import sys; sys.stdout.write(open(sys.argv[1]).read())' "$t" > "$tmp/py"
same_file "python open().read()" "$tmp/want" "$tmp/py"

# Two readers of the same file at once, and one of a per-CPU file beside.
cat "$t" > "$tmp/r1" & p1=$!
cat "$t" > "$tmp/r2" & p2=$!
cat "$mnt/per_cpu/cpu0/trace" > /dev/null & p3=$!
wait $p1 $p2 $p3
same_file "reader 1 of 2" "$tmp/want" "$tmp/r1"
same_file "reader 2 of 2" "$tmp/want" "$tmp/r2"
stop_mount "$mnt"

# A fresh mount with a 1 MiB cache: two readers from the start, every byte
# the same, and the daemon's peak RSS bounded.
start_mount "$tdatfs" "$trace" "$mnt" -o cache_size=1M
cat "$t" > "$tmp/r1" & p1=$!
dd if="$t" bs=65536 status=none > "$tmp/r2" & p2=$!
for f in "$mnt"/per_cpu/cpu*/trace_pipe_raw; do cat "$f" > /dev/null; done
wait $p1 $p2
same_file "cache_size=1M reader 1" "$tmp/want" "$tmp/r1"
same_file "cache_size=1M reader 2" "$tmp/want" "$tmp/r2"
hwm=$(awk '/^VmHWM/ { print $2 }' "/proc/$daemon_pid/status")
echo "daemon peak RSS with cache_size=1M: ${hwm} KiB"
# 1 MiB of cache plus libtraceevent's handle (event formats and kallsyms,
# about 30 MiB for these traces) and the daemon itself.  Under a sanitizer
# the shadow memory and ASan's quarantine make RSS meaningless: the bound is
# checked in the normal build only (scripts/test runs both).
limit=$(((1 + 64) * 1024))
if [ -n "${TDATFS_SANITIZE:-}" ] && [ "$TDATFS_SANITIZE" != none ]; then
	echo "RSS bound not checked under -Db_sanitize=$TDATFS_SANITIZE"
elif [ "$hwm" -le "$limit" ]; then
	ok
else
	fail "daemon peak RSS ${hwm} KiB > ${limit} KiB with cache_size=1M"
fi
stop_mount "$mnt"

# Without the index (streaming): size 0 until produced, then exact.
start_mount "$tdatfs" "$trace" "$mnt" -o noindex
check_eq "noindex: stat size before the text is produced" 0 "$(stat -c %s "$t")"
check_eq "noindex: tail -n 5 before a full read" "$(tail -n 5 "$tmp/want")" "$(tail -n 5 "$t")"
cat "$t" > "$tmp/cat"
same_file "noindex: cat trace" "$tmp/want" "$tmp/cat"
check_eq "noindex: stat size once produced" "$want_bytes" "$(stat -c %s "$t")"
stop_mount "$mnt"
finish
