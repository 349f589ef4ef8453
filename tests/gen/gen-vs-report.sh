#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Synthesized traces (gen-trace), one per scenario, read by the oracle:
#  - failing checks, on the generator: `trace-cmd report FILE` and
#    `trace-cmd report --cpu N FILE` exit 0, write nothing on stderr and
#    show every record the generator says it wrote (lines per event name
#    and CPU, against the generator's COUNTS file);
#  - the generator is deterministic (two runs, same bytes);
#  - failing checks, on tdat, for the scenarios in $strict (today all of
#    them: function_graph, stacks, function, TIME_SHIFT, prints and
#    switches): /trace is the report and every /per_cpu/cpuN/trace the
#    report --cpu N (without the cpus= line), and tdat check finds no
#    damage;
#  - informational only (never fails), for a scenario added before tdat
#    prints it as trace-cmd does: tdat's /trace against the report, a
#    one-line summary.
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
	if ! oracle_run report "$@" > "$out" 2> "$tmp/stderr"; then
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

# the scenarios tdat must print exactly as trace-cmd report does
strict=" nested leaf page-break dropped interleave irq durations kstack ustack tshift tshift-step function fncalls timeline "

# tdat_same WHAT DAT PATH ORACLE: tdat cat DAT PATH is ORACLE's text
tdat_same() {
	if ! "$tdat" cat "$2" "$3" > "$tmp/tdat-same" 2> "$tmp/tdat-err"; then
		fail "$1: tdat cat $3 fails: $(head -1 "$tmp/tdat-err")"
	else
		same_file "$1: tdat $3" "$4" "$tmp/tdat-same"
	fi
}

info=()
for sc in $("$gen" --list); do
	is_strict=false
	case $strict in *" $sc "*) is_strict=true ;; esac
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
		if $is_strict; then
			tail -n +2 "$tmp/report-cpu" > "$tmp/oracle-cpu"
			tdat_same "$what" "$dat" "/per_cpu/cpu$cpu/trace" "$tmp/oracle-cpu"
		fi
	done

	# Informational for the rest: tdat does not format all of it as
	# trace-cmd does yet.
	tail -n +2 "$tmp/report" > "$tmp/oracle-text"
	if $is_strict; then
		tdat_same "$what" "$dat" /trace "$tmp/oracle-text"
		# a record trace-cmd prints is never damage
		if "$tdat" check "$dat" > "$tmp/check" 2>&1; then
			ok
		else
			fail "$what: tdat check exits non-zero: $(head -3 "$tmp/check")"
		fi
		continue
	fi
	if ! "$tdat" cat "$dat" /trace > "$tmp/tdat-text" 2> "$tmp/tdat-err"; then
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
