#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Decoded text against the oracle, Debian's `trace-cmd report` (tdatfs(1), THE TREE):
#  - single buffer: /trace == `report | tail -n +2`, and
#    /per_cpu/cpuN/trace == `report --cpu N | tail -n +2`;
#  - several buffers: each buffer's text is that buffer's lines of the
#    report, without the right-aligned "NAME: " prefix trace-cmd puts on
#    instance lines and without the padding of the same width it puts on
#    top-buffer lines.
# trace-cmd 3.1.6 `report --cpu N` shows only the top buffer, so an
# instance's per-CPU text is checked against that instance's lines of the
# full report whose CPU field is [N] (a merge keeps each CPU's order).
# A CPU the tree has no directory for must have no lines in the report.
#   text-vs-report.sh TDAT TRACE [ORACLE]
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
trace=$2
oracle=${3:-$2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Instance names from the oracle's own view of the file.
mapfile -t names < <(trace-cmd dump --flyrecord -i "$oracle" 2>/dev/null |
	sed -n 's/^"\(.\+\)" \[name\]$/\1/p')
width=0
for n in "${names[@]}"; do
	[ ${#n} -gt $width ] && width=${#n}
done

# buffer_lines BUFFER < report: that buffer's lines, prefix removed
buffer_lines() {
	if [ ${#names[@]} -eq 0 ]; then
		cat
		return
	fi
	local prefix
	if [ -z "$1" ]; then
		prefix=$(printf '%*s' $((width + 2)) '')
	else
		prefix=$(printf '%*s: ' "$width" "$1")
	fi
	# Top-buffer lines are padded, instance lines prefixed; neither
	# prefix is a prefix of the other (a name is never blank).
	awk -v p="$prefix" 'index($0, p) == 1 { print substr($0, length(p) + 1) }'
}

# cpu_lines N: the lines whose first [NNN] field is CPU N
cpu_lines() {
	awk -v cpu="$1" 'match($0, /\[[0-9][0-9][0-9]+\] /) {
		if (substr($0, RSTART + 1, RLENGTH - 3) + 0 == cpu) print }'
}

compare() { # BUFFER DIR [--cpu N]
	local buffer=$1 dir=$2
	shift 2
	if [ -n "$buffer" ] && [ $# -gt 0 ]; then
		oracle_run report -i "$oracle" 2>/dev/null > "$tmp/report"
		tail -n +2 "$tmp/report" | buffer_lines "$buffer" | cpu_lines "$2" > "$tmp/want"
	else
		oracle_run report "$@" -i "$oracle" 2>/dev/null > "$tmp/report"
		head -1 "$tmp/report" | grep -q '^cpus=' || { fail "report $*: no cpus= line"; return; }
		tail -n +2 "$tmp/report" | buffer_lines "$buffer" > "$tmp/want"
	fi
	local path=$dir/trace
	[ $# -gt 0 ] && path=$dir/per_cpu/cpu$2/trace
	if "$tdat" ls "$trace" "$path" >/dev/null 2>&1; then
		"$tdat" cat "$trace" "$path" > "$tmp/got"
		same_file "$trace:$path ($(wc -l < "$tmp/want") lines)" "$tmp/want" "$tmp/got"
	elif [ -s "$tmp/want" ]; then
		fail "$trace:$path missing, the report has $(wc -l < "$tmp/want") lines for it"
	else
		ok
	fi
}

oracle_run report -i "$oracle" 2>/dev/null > "$tmp/report"
cpus=$(sed -n '1s/^cpus=\([0-9]*\)$/\1/p' "$tmp/report")
[ -n "$cpus" ] || { fail "no cpus= line in the report of $oracle"; finish; }

for b in "" "${names[@]}"; do
	dir=
	[ -n "$b" ] && dir=/instances/$b
	compare "$b" "$dir"
	for c in $(seq 0 $((cpus - 1))); do
		compare "$b" "$dir" --cpu "$c"
	done
done
finish
