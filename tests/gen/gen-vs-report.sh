#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Synthesized traces (gen-trace), one per scenario, read by the oracle:
#  - failing checks, on the generator: `trace-cmd report FILE` and
#    `trace-cmd report --cpu N FILE` exit 0, write nothing on stderr and
#    show every record the generator says it wrote (lines per event name
#    and CPU, against the generator's COUNTS file);
#  - the generator is deterministic (two runs, same bytes);
#  - failing, for the scenarios tdat must match (STRICT below): tdat's
#    /trace against the report and each /per_cpu/cpuN/trace against
#    `report --cpu N`, byte for byte;
#  - informational only (never fails) for the rest: tdat's /trace against
#    the report, a one-line summary per scenario.
#   gen-vs-report.sh TDAT GEN TEMPLATE VERSION
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
gen=$2
template=$3
version=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# event_counts < report: "EVENT CPU N" for each event name and CPU, sorted;
# a record's line is "COMM-PID [CCC] SECS.USECS: EVENT: ..."
event_counts() {
	awk 'match($0, /\[[0-9][0-9][0-9]+\] +[0-9]+\.[0-9]+: [A-Za-z0-9_]+:/) {
		s = substr($0, RSTART + 1, RLENGTH - 2)
		cpu = substr(s, 1, index(s, "]") - 1) + 0
		n = split(s, w, " ")
		print w[n], cpu
	}' | sort | uniq -c | awk '{ print $2, $3, $1 }'
}

# oracle WHAT OUT ARGS...: run trace-cmd report; it must exit 0, quietly
oracle() {
	local what=$1 out=$2
	shift 2
	if ! trace-cmd report "$@" > "$out" 2> "$tmp/stderr"; then
		fail "$what: trace-cmd report $* exits non-zero: $(head -3 "$tmp/stderr")"
		return 1
	fi
	if [ -s "$tmp/stderr" ]; then
		fail "$what: trace-cmd report $* warns: $(head -3 "$tmp/stderr")"
		return 1
	fi
	ok
}

# same_counts WHAT WANT GOT
same_counts() {
	if cmp -s "$2" "$3"; then
		ok
	else
		fail "$1: records shown differ from those written (want < > got)"
		diff "$2" "$3" | head -10 >&2 || true
	fi
}

# Scenarios whose text tdat matches exactly (a failing comparison).
STRICT=" tshift tshift-step "

# strict_text WHAT DAT: /trace and each CPU's trace against the report
strict_text() {
	local what=$1 dat=$2 cpu
	"$tdat" cat "$dat" /trace > "$tmp/tdat-text" 2>&1
	same_file "$what: tdat /trace" "$tmp/oracle-text" "$tmp/tdat-text"
	for cpu in $(awk '{ print $2 }' "$tmp/want" | sort -u); do
		trace-cmd report --cpu "$cpu" "$dat" 2>/dev/null | tail -n +2 > "$tmp/oracle-cpu"
		"$tdat" cat "$dat" "/per_cpu/cpu$cpu/trace" > "$tmp/tdat-cpu" 2>&1
		same_file "$what: tdat /per_cpu/cpu$cpu/trace" "$tmp/oracle-cpu" "$tmp/tdat-cpu"
	done
}

info=()
for sc in $("$gen" --list); do
	what="$sc v$version $(basename "$template")"
	dat=$tmp/$sc.dat
	if ! "$gen" -v "$version" "$template" "$sc" "$dat" "$tmp/counts"; then
		fail "$what: gen-trace fails"
		continue
	fi
	ok
	# deterministic: a second run writes the same bytes
	"$gen" -v "$version" "$template" "$sc" "$tmp/again.dat" "$tmp/again.counts"
	same_file "$what: a second gen-trace run" "$dat" "$tmp/again.dat"
	rm -f "$tmp/again.dat"
	sort "$tmp/counts" > "$tmp/want"
	oracle "$what" "$tmp/report" "$dat" || continue
	tail -n +2 "$tmp/report" | event_counts > "$tmp/got"
	same_counts "$what" "$tmp/want" "$tmp/got"
	for cpu in $(awk '{ print $2 }' "$tmp/want" | sort -u); do
		oracle "$what --cpu $cpu" "$tmp/report-cpu" --cpu "$cpu" "$dat" || continue
		awk -v c="$cpu" '$2 == c' "$tmp/want" > "$tmp/want-cpu"
		tail -n +2 "$tmp/report-cpu" | event_counts > "$tmp/got-cpu"
		same_counts "$what --cpu $cpu" "$tmp/want-cpu" "$tmp/got-cpu"
	done

	# Informational: tdat does not yet format all of this as trace-cmd does.
	tail -n +2 "$tmp/report" > "$tmp/oracle-text"
	if [[ $STRICT == *" $sc "* ]]; then
		strict_text "$what" "$dat"
	elif ! "$tdat" cat "$dat" /trace > "$tmp/tdat-text" 2> "$tmp/tdat-err"; then
		info+=("$what: tdat cat fails: $(head -1 "$tmp/tdat-err")")
	elif cmp -s "$tmp/oracle-text" "$tmp/tdat-text"; then
		info+=("$what: tdat /trace identical")
	else
		n=$(diff "$tmp/oracle-text" "$tmp/tdat-text" | grep -c '^<' || true)
		info+=("$what: tdat /trace: $n of $(wc -l < "$tmp/oracle-text") report lines differ")
	fi
done
printf 'INFO %s\n' "${info[@]}"
finish
