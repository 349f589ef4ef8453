#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Decompression bombs in metadata (tdatfs(1), DAMAGED TRACES).
#   usage: bombs.sh GEN TDAT TDATFS DATADIR
#
# GEN (gen-sections bomb) appends to small.dat (zstd) and small-zlib.dat
# sections of repeated bytes that compress to a few KB or MB: kallsyms,
# printk formats and saved_cmdlines of 200 MiB, and an OPTIONS section of
# 200 MiB chained after the last; then the same of 15 MiB, under the limits;
# and (gen-sections wide) an events-format section of 40 MiB, over its
# limit, and of 24 MiB, under it, of formats no record uses.
#  - over the limits: `tdat cat TRACE trace` exits 1 within 10 s with a
#    message naming the section and its offset, peak RSS under 100 MB; the
#    daemon refuses to mount with the same message;
#  - under them: `tdat cat` ends within 30 s with exit 0 and a peak RSS
#    under 300 MB, and a mount with -o cache_size=16M serves the same trace
#    with the daemon's peak RSS under cache_size + 64 MiB + 100 MB;
#  - small.dat and the 24 MiB events-format variants mounted with
#    -o cache_size=1M,noindex: ready within 5 s, the first 100 bytes of
#    trace within 3 s, and trace the same as small.dat's.
# Peak RSS bounds are multiplied by 4 under a sanitizer (TDATFS_SANITIZE).
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

gen=$1 tdat=$2 tdatfs=$3 data=$4
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt" "$work/over" "$work/under"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT
scale=1
case ${TDATFS_SANITIZE:-none} in none) ;; *) scale=4 ;; esac
worst_rss=0 worst_ms=0

# run LIMIT_S OUT CMD...: run CMD; sets rc, rss (KB) and ms
run() {
	local limit=$1 out=$2 start
	shift 2
	start=$(date +%s%N)
	set +e
	/usr/bin/time -f %M -o "$work/rss" timeout -s KILL "$limit" "$@" >"$out" 2>"$work/err"
	rc=$?
	set -e
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	rss=$(tail -n 1 "$work/rss")
	[ "$rss" -gt "$worst_rss" ] && worst_rss=$rss
	[ "$ms" -gt "$worst_ms" ] && worst_ms=$ms
	return 0
}

for t in small small-zlib; do
	"$gen" bomb "$data/$t.dat" "$work/over" 200 >/dev/null
	"$gen" bomb "$data/$t.dat" "$work/under" 15 >/dev/null
	"$gen" wide "$data/$t.dat" "$work/over" 40 >/dev/null
	"$gen" wide "$data/$t.dat" "$work/under" 24 >/dev/null
done

for v in "$work"/over/*.dat; do
	name=over/$(basename "$v")
	run 10 /dev/null "$tdat" cat "$v" trace
	msg=$(head -n 1 "$work/err")
	echo "$name: exit $rc in $ms ms, peak RSS $rss KB: $msg"
	if [ "$rc" -ne 1 ]; then
		fail "$name: tdat cat exit $rc, not 1"
	elif ! grep -Eq 'section.* at offset [0-9]+: [0-9]+ bytes, over the limit' <<<"$msg"; then
		fail "$name: the message does not name the section, its offset and the limit: $msg"
	elif [ "$rss" -gt $((100000 * scale)) ]; then
		fail "$name: tdat cat peak RSS $rss KB"
	else
		ok
	fi
	set +e
	timeout -s KILL 10 "$tdatfs" -f "$v" "$mnt" 2>"$work/mount.err"
	rc=$?
	set -e
	if [ "$rc" -ne 0 ] && ! mountpoint -q "$mnt" &&
	   grep -q 'over the limit' "$work/mount.err"; then
		ok
	else
		fail "$name: tdatfs exit $rc: $(head -c 200 "$work/mount.err")"
		cleanup_mount "$mnt"
	fi
done

need_fuse
for v in "$work"/under/*.dat; do
	name=under/$(basename "$v")
	run 30 "$work/tdat.txt" "$tdat" cat "$v" trace
	echo "$name: exit $rc in $ms ms, peak RSS $rss KB"
	if [ "$rc" -ne 0 ]; then
		fail "$name: tdat cat exit $rc: $(head -c 200 "$work/err")"
		continue
	elif [ "$rss" -gt $((300000 * scale)) ]; then
		fail "$name: tdat cat peak RSS $rss KB"
	else
		ok
	fi
	start_mount "$tdatfs" "$v" "$mnt" -o cache_size=16M
	if timeout -s KILL 30 cat "$mnt/trace" "$mnt/kallsyms" "$mnt/saved_cmdlines" \
		"$mnt/printk_formats" >"$work/mnt.txt" &&
	   cmp -s "$work/tdat.txt" <(head -c "$(stat -c %s "$work/tdat.txt")" "$work/mnt.txt"); then
		ok
	else
		fail "$name: the mount's trace differs from tdat cat or did not end"
	fi
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$daemon_pid/status")
	echo "$name: daemon peak RSS $hwm KB"
	[ "$hwm" -gt "$worst_rss" ] && worst_rss=$hwm
	if [ "$hwm" -gt $(( (16384 + 65536 + 100000) * scale )) ]; then
		fail "$name: daemon peak RSS $hwm KB over cache_size + 64 MiB + 100 MB"
	else
		ok
	fi
	stop_mount "$mnt"
done

# A section larger than a 1 MiB cache is not decompressed again for every
# read: ready and the first text read in seconds, the same text.
for v in "$data/small.dat" "$work"/under/*.wide24.dat; do
	name=$(basename "$v")
	start=$(date +%s%N)
	start_mount "$tdatfs" "$v" "$mnt" -o cache_size=1M,noindex
	ready=$(( ($(date +%s%N) - start) / 1000000 ))
	start=$(date +%s%N)
	timeout -s KILL 10 head -c 100 "$mnt/trace" >/dev/null || true
	first=$(( ($(date +%s%N) - start) / 1000000 ))
	echo "$name, cache_size=1M: ready in $ready ms, first 100 bytes of trace in $first ms"
	if [ "$ready" -le 5000 ] && [ "$first" -le 3000 ]; then ok; else
		fail "$name, cache_size=1M: ready in $ready ms, first read $first ms"
	fi
	if timeout -s KILL 30 cat "$mnt/trace" | cmp -s - <("$tdat" cat "$data/small.dat" trace); then
		ok
	else
		fail "$name, cache_size=1M: trace differs from small.dat's"
	fi
	stop_mount "$mnt"
done
echo "worst: $worst_ms ms, peak RSS $worst_rss KB"
finish
