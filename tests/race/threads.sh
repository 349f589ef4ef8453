#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Threads of one process against each other, run in the ThreadSanitizer
# build (scripts/test), where any data race ends the process with status
# 66 (TSAN_OPTIONS=halt_on_error=1:exitcode=66); in the other builds the
# same checks hold, races or not, only less often.  For TRACE, a trace of
# one buffer:
#  - `tdat index` with 4 workers (each with an engine of its own, as in
#    the race on libtraceevent's format parser), then `tdat cat` of every
#    text: /trace is `trace-cmd report | tail -n +2`, each
#    /per_cpu/cpuN/trace `trace-cmd report --cpu N | tail -n +2`;
#  - a mount that builds its own index with 4 workers and reads ahead on
#    3 (-o threads=4,decode_threads=3), every text read by one reader
#    each, all at once, then again, two readers a text: the same bytes;
#    before them, three readers of timeline.svg at once, racing the
#    thread that sizes it after the build: the bytes of `tdat cat`;
#    the daemon exits 0 at the unmount.
#   threads.sh TDAT TDATFS TRACE
# Skipped (77) only where TRACE (a public trace) or /dev/fuse is missing.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/../index/lib.sh"

tdat=$1 tdatfs=$2 trace=$3
name=$(basename "$trace")
need_trace "$trace"
need_fuse
need_oracle
index_setup

# ---- the oracle ----------------------------------------------------------

oracle_run report -i "$trace" 2>/dev/null > "$tmp/report"
cpus=$(sed -n '1s/^cpus=\([0-9]*\)$/\1/p' "$tmp/report")
[ -n "$cpus" ] || { fail "$name: no cpus= line in trace-cmd's report"; finish; }
mkdir "$tmp/want"
tail -n +2 "$tmp/report" > "$tmp/want/trace"
echo trace > "$tmp/texts"
for c in $(seq 0 $((cpus - 1))); do
	oracle_run report --cpu "$c" -i "$trace" 2>/dev/null | tail -n +2 > "$tmp/want/cpu$c"
	# a CPU without records has no directory (text-vs-report.sh checks that)
	[ -s "$tmp/want/cpu$c" ] && echo "per_cpu/cpu$c/trace" >> "$tmp/texts"
done
echo "$name: $(wc -l < "$tmp/texts") texts, $(wc -c < "$tmp/want/trace") bytes of trace"

# want PATH: the oracle's file for a text
want() {
	case $1 in
	trace) echo "$tmp/want/trace" ;;
	*) local c=${1#per_cpu/cpu}; echo "$tmp/want/cpu${c%/trace}" ;;
	esac
}

# ---- tdat: a build on 4 workers ------------------------------------------

if "$tdat" -o "index_dir=$tmp/idx,threads=4" index "$trace" > "$tmp/index.out" 2>&1; then
	ok
else
	fail "$name: tdat index with 4 threads exited $? ($(tail -1 "$tmp/index.out"))"
fi
while IFS= read -r p; do
	"$tdat" -o "index_dir=$tmp/idx" cat "$trace" "/$p" > "$tmp/got" ||
		fail "$name: tdat cat /$p exited $?"
	same_file "$name: /$p after a build on 4 workers" "$(want "$p")" "$tmp/got"
done < "$tmp/texts"

# ---- a mount: readers at once --------------------------------------------

# read_all ROUND COPIES: every text read by COPIES readers at once
read_all() {
	local round=$1 copies=$2 p k n=0 pids=()
	while IFS= read -r p; do
		n=$((n + 1))
		for k in $(seq 1 "$copies"); do
			cat "$mnt/$p" > "$tmp/got.$round.$n.$k" 2>"$tmp/err.$round.$n.$k" &
			pids+=($!)
		done
	done < "$tmp/texts"
	for k in "${pids[@]}"; do
		wait "$k" || true
	done
	n=0
	while IFS= read -r p; do
		n=$((n + 1))
		for k in $(seq 1 "$copies"); do
			[ -s "$tmp/err.$round.$n.$k" ] &&
				fail "$name: cat /$p (round $round): $(head -1 "$tmp/err.$round.$n.$k")"
			same_file "$name: /$p on the mount, round $round, reader $k" \
				"$(want "$p")" "$tmp/got.$round.$n.$k"
		done
	done < "$tmp/texts"
}

"$tdat" -o noindex cat "$trace" /timeline.svg > "$tmp/want-svg" ||
	fail "$name: tdat cat /timeline.svg exited $?"
mount_log "$trace" "$mnt" "$tmp/daemon.log" -o "index_dir=$tmp/idx2,threads=4,decode_threads=3"
pids=()
for k in 1 2 3; do
	cat "$mnt/timeline.svg" > "$tmp/svg.$k" 2>"$tmp/svg-err.$k" &
	pids+=($!)
done
for k in "${pids[@]}"; do
	wait "$k" || true
done
for k in 1 2 3; do
	[ -s "$tmp/svg-err.$k" ] && fail "$name: cat /timeline.svg: $(head -1 "$tmp/svg-err.$k")"
	same_file "$name: /timeline.svg, reader $k of 3 at once" "$tmp/want-svg" "$tmp/svg.$k"
done
read_all 1 1
read_all 2 2
umount_log "$mnt"
finish
