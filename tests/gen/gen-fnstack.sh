#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The function tracer's indents (ftrace function and func_repeats, from
# the call stacks the function plugin keeps per CPU) where a text does not
# start from the first record: the fncalls scenario (two CPUs, 3000
# records, stacks that start again and keep stale entries) against
# Debian's trace-cmd report, the oracle:
#  - one tdat process reading /per_cpu/cpu1/trace, /trace,
#    /per_cpu/cpu0/trace and /trace again writes `report --cpu 1`, the
#    report, `report --cpu 0` and the report (each text from its own
#    start, whatever was read before);
#  - time/T0-T1/trace and time/T0-T1/per_cpu/cpuN/trace for windows that
#    start in the middle (from a checkpoint, with the stacks met before
#    it) are the lines of the report and of `report --cpu N` with
#    T0 <= t < T1: without an index, with an index built and loaded
#    (the stacks saved with the checkpoints), and with
#    -o max_checkpoints=3 (checkpoints thinned many times).
#   gen-fnstack.sh TDAT GEN TEMPLATE
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
gen=$2
template=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
dat=$tmp/fncalls.dat

"$gen" -v 7 "$template" fncalls "$dat" "$tmp/counts" || { fail "gen-trace fails"; finish; }
oracle_run report "$dat" 2>/dev/null | tail -n +2 > "$tmp/all"
for c in 0 1; do
	oracle_run report --cpu "$c" "$dat" 2>/dev/null | tail -n +2 > "$tmp/cpu$c"
done
n=$(wc -l < "$tmp/all")
[ "$n" -ge 3000 ] || { fail "the report has $n lines, want at least 3000"; finish; }
[ "$(grep -c ' func_repeats: ' "$tmp/all")" -gt 0 ] || fail "no func_repeats line in the report"
ok

# texts one after another in one process
"$tdat" cat "$dat" /per_cpu/cpu1/trace /trace /per_cpu/cpu0/trace /trace > "$tmp/got"
cat "$tmp/cpu1" "$tmp/all" "$tmp/cpu0" "$tmp/all" > "$tmp/want"
same_file "four texts in one process" "$tmp/want" "$tmp/got"

# time_at LINE FILE: the printed time of a line of a report
time_at() {
	sed -n "${1}p" "$2" | sed -E 's/.*\[[0-9]{3,}\] +([0-9]+\.[0-9]+):.*/\1/'
}

# in_window T0 T1 < report: its lines with T0 <= t < T1
in_window() {
	awk -v t0="$1" -v t1="$2" 'match($0, /\] +[0-9]+\.[0-9]+: /) {
		t = substr($0, RSTART + 1, RLENGTH - 3) + 0
		if (t >= t0 + 0 && t < t1 + 0) print }'
}

idx=$tmp/idx
"$tdat" -o index_dir="$idx" index "$dat" > /dev/null || fail "tdat index fails"
for w in "900 1700" "1500 2990" "2200 2300"; do
	set -- $w
	t0=$(time_at "$1" "$tmp/all")
	t1=$(time_at "$2" "$tmp/all")
	for opts in noindex "index_dir=$idx" "noindex,max_checkpoints=3"; do
		what="time/$t0-$t1 (-o $opts)"
		in_window "$t0" "$t1" < "$tmp/all" > "$tmp/want"
		[ -s "$tmp/want" ] || fail "$what: the window holds no line"
		"$tdat" -o "$opts" cat "$dat" "/time/$t0-$t1/trace" > "$tmp/got"
		same_file "$what/trace" "$tmp/want" "$tmp/got"
		for c in 0 1; do
			in_window "$t0" "$t1" < "$tmp/cpu$c" > "$tmp/want"
			"$tdat" -o "$opts" cat "$dat" "/time/$t0-$t1/per_cpu/cpu$c/trace" > "$tmp/got"
			same_file "$what/per_cpu/cpu$c/trace" "$tmp/want" "$tmp/got"
		done
	done
done
finish
