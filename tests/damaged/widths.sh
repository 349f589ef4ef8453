#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Widths and precisions taken from the record (tdatfs(1), DAMAGED TRACES).
#   usage: widths.sh GEN TDAT TDATFS FIELDS_CHECK DATADIR
#
# GEN (gen-widths) gives sched_switch (printed by the sched plugin) and
# sched_process_fork (printed by its format) of small.dat the print fmt
# "[%*d] [%.*s] [%-*s]" with a width or precision from the record: CPU 0
# holds values from 0 to 4096, CPU 1 also 4097, 20,000,000, 0x7fffffff and
# -20,000,000.  libtraceevent prints a width W in time W * W (trace-cmd
# report takes minutes on 20,000,000 and never ends on 0x7fffffff).
#  - `tdat cat` of trace, per_cpu/cpu1/trace and both fields.tsv ends
#    within 10 s with no line over 3 * 4096 + 200 bytes;
#  - per_cpu/cpu0/trace is `trace-cmd report --cpu 0`, and the CPU 0 rows
#    of both fields.tsv are `trace-cmd report -R --cpu 0`'s values;
#  - the CPU 1 records over the bound print the bound: a width of 4096;
#    a negative one (undefined in libtraceevent) a width of 0;
#  - a mount serves the same trace and fields.tsv.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

gen=$1 tdat=$2 tdatfs=$3 fields_check=$4 data=$5
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT
v=$work/widths.dat
"$gen" "$data/small.dat" "$v"
maxline=$((3 * 4096 + 200))
paths=(trace per_cpu/cpu0/trace per_cpu/cpu1/trace
       events/sched/sched_switch/fields.tsv
       events/sched/sched_process_fork/fields.tsv
       events/sched/sched_process_fork/trace)

# out PATH: the file of PATH's output
out() {
	echo "$work/$(echo "$1" | tr / _)"
}

for p in "${paths[@]}"; do
	start=$(date +%s%N)
	set +e
	timeout -s KILL 10 "$tdat" cat "$v" "$p" >"$(out "$p")" 2>"$work/err"
	rc=$?
	set -e
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	long=$(awk '{ if (length($0) > m) m = length($0) } END { print m + 0 }' "$(out "$p")")
	echo "$p: exit $rc in $ms ms, $(wc -c <"$(out "$p")") bytes, longest line $long"
	if [ "$rc" -ne 0 ]; then
		fail "$p: tdat cat exit $rc: $(head -c 200 "$work/err")"
	elif [ "$long" -gt "$maxline" ]; then
		fail "$p: a line of $long bytes"
	else
		ok
	fi
done

# CPU 0, every value within the bound: trace-cmd is the oracle.
trace-cmd report --cpu 0 "$v" 2>/dev/null | tail -n +2 >"$work/want0"
same_file "per_cpu/cpu0/trace" "$work/want0" "$(out per_cpu/cpu0/trace)"
trace-cmd report -R -t --cpu 0 "$v" >"$work/raw0" 2>/dev/null
trace-cmd report -t --cpu 0 "$v" >"$work/report0" 2>/dev/null
for e in sched_switch sched_process_fork; do
	rows=$(out "events/sched/$e/fields.tsv")
	awk -F'\t' 'NR == 1 || $2 == 0' "$rows" >"$work/rows0"
	if [ "$(wc -l <"$work/rows0")" -ne 7 ]; then
		fail "$e: $(($(wc -l <"$work/rows0") - 1)) rows on CPU 0, not 6"
	elif python3 "$fields_check" --event "$e" --raw "$work/raw0" \
		--report "$work/report0" "$work/rows0" >"$work/check" 2>&1; then
		ok
	else
		fail "$e: fields.tsv on CPU 0 differs from trace-cmd report -R: $(head -3 "$work/check")"
	fi
done

# CPU 1: a width over the bound prints as 4096 (next_pid/child_pid padded
# to 4096 columns); -20,000,000 (undefined in libtraceevent) as 0.
for e in sched_switch sched_process_fork; do
	n=$(awk -F'\t' -v w=4096 '$2 == 1 && length($NF) == w || $2 == 1 && length($(NF - 1)) == w' \
		"$(out "events/sched/$e/fields.tsv")" | wc -l)
	if [ "$n" -eq 3 ]; then ok; else fail "$e: $n rows of CPU 1 padded to 4096, not 3"; fi
done
n=$(grep ' \[001\] ' "$(out events/sched/sched_process_fork/trace)" |
	grep -c -E '\[ {4000,}[0-9]+\]' || true)
if [ "$n" -eq 3 ]; then ok; else fail "sched_process_fork trace: $n lines padded, not 3"; fi

need_fuse
start_mount "$tdatfs" "$v" "$mnt"
for p in trace events/sched/sched_switch/fields.tsv events/sched/sched_process_fork/trace; do
	if timeout -s KILL 10 cat "$mnt/$p" >"$work/served" && cmp -s "$work/served" "$(out "$p")"; then
		ok
	else
		fail "$p: the mount's bytes differ from tdat cat or did not end"
	fi
done
stop_mount "$mnt"
finish
