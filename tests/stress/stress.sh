#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Concurrency stress (issue 5.4).  usage: stress.sh TDAT TDATFS TRACE [READS [MOUNTOPTS]]
#
# One mount with -o cache_size=1M, so decompressed chunks are evicted all
# the time, and eight readers at once: four read whole files (different
# ones), four read the same `trace` and `trace_pipe_raw` files at random
# offsets and lengths with dd.  Every byte read is compared with `tdat cat`
# of the same file (the same tree without FUSE, single-threaded).  The
# daemon must exit 0 after the unmount.  MOUNTOPTS are added to the -o
# of the mount (e.g. max_checkpoints=3).
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

tdat=$1 tdatfs=$2 trace=$3 reads=${4:-40} mopts=${5:+,$5}
need_fuse
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt" "$work/ref"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT

# Reference bytes, one file per path, from tdat.
whole=(/trace /per_cpu/cpu0/trace /per_cpu/cpu1/trace_pipe_raw /kallsyms)
random=(/trace /per_cpu/cpu1/trace_pipe_raw)
for p in "${whole[@]}" "${random[@]}" /per_cpu/cpu0/trace_pipe_raw; do
	ref=$work/ref/$(echo "$p" | tr / _)
	[ -f "$ref" ] || "$tdat" cat "$trace" "$p" >"$ref"
done

start_mount "$tdatfs" "$trace" "$mnt" -o "cache_size=1M$mopts"

# whole_reader PATH: cat it, compare, print the bytes compared.
whole_reader() {
	local p=$1 ref=$work/ref/$(echo "$1" | tr / _)
	if cat "$mnt$p" | cmp -s - "$ref"; then
		echo "ok $(stat -c %s "$ref")"
	else
		echo "FAIL whole $p"
	fi
}

# random_reader PATH SEED: READS dd reads at random offsets, compared.
random_reader() {
	local p=$1 ref=$work/ref/$(echo "$1" | tr / _) size off len i bytes=0
	RANDOM=$2
	size=$(stat -c %s "$ref")
	for ((i = 0; i < reads; i++)); do
		off=$(( (RANDOM * 32768 + RANDOM) % size ))
		len=$(( RANDOM % 70000 + 1 ))
		if ! cmp -s <(dd if="$mnt$p" bs=65536 skip="$off" count="$len" \
				iflag=skip_bytes,count_bytes 2>/dev/null) \
			    <(dd if="$ref" bs=65536 skip="$off" count="$len" \
				iflag=skip_bytes,count_bytes 2>/dev/null); then
			echo "FAIL random $p offset $off length $len"
			return
		fi
		[ $((off + len)) -gt "$size" ] && len=$((size - off))
		bytes=$((bytes + len))
	done
	echo "ok $bytes"
}

pids=()
n=0
for p in "${whole[@]}"; do
	whole_reader "$p" >"$work/r$n" &
	pids+=($!)
	n=$((n + 1))
done
for seed in 1 2; do
	for p in "${random[@]}"; do
		random_reader "$p" "$seed$n" >"$work/r$n" &
		pids+=($!)
		n=$((n + 1))
	done
done
for pid in "${pids[@]}"; do
	wait "$pid"
done

bytes=0
for ((i = 0; i < n; i++)); do
	read -r res b <"$work/r$i"
	if [ "$res" = ok ]; then
		ok
		bytes=$((bytes + b))
	else
		fail "reader $i: $res $b"
	fi
done
echo "$n readers, $bytes bytes compared"
# The daemon is still alive and serving after all of it.
if cmp -s "$mnt/per_cpu/cpu0/trace_pipe_raw" "$work/ref/_per_cpu_cpu0_trace_pipe_raw"; then
	ok
else
	fail "cpu0 trace_pipe_raw differs after the stress"
fi
stop_mount "$mnt"
finish
