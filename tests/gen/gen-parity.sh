#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What traces from other kernels and other trace-cmd builds hold and the
# recorded ones do not (issue 32), synthesized by gen-trace from the
# template's real formats (tests/gen/gen-formats.c), each against the
# oracle, Debian's trace-cmd:
#  - failed-format: print fmts libtraceevent cannot parse (fs/open_exec's
#    ""%s"", and real ones broken the same way) and a field line it cannot
#    read: "[FAILED TO PARSE] name=value ...";
#  - print-symbol, print-no-symbol: kmem's page=%p of vmemmap_base + pfn,
#    with and without that symbol in kallsyms;
#  - empty-name: a format whose "name:" line is empty: its records print
#    as [UNKNOWN EVENT], and errors and tdat check name the format;
#  - empty-version: a v6 file whose version string is "" (version 0).
# For each: /trace, /report and /per_cpu/cpuN/trace against report and
# report --cpu N (tests/public/public-vs-report.sh, which also wants
# tdat check to exit 0); events/S/E/trace against the lines of the trace
# (tests/views/events-lines.py); events/S/E/fields.tsv against
# report -R -t (tests/views/fields.py); and every file of failed-format
# and print-symbol through a real mount (tests/mount/mount-compare.sh).
#   gen-parity.sh TDAT TDATFS GEN_TRACE TEMPLATE CACHE
here=$(dirname "$0")
. "$here/../lib/common.sh"
need_oracle

tdat=$1
tdatfs=$2
gen=$3
template=$4
cache=$5
tests=$here/..
python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_part NAME CMD...: a sub-test; its last line (N checks passed, M
# failed) is echoed, and a failure of it fails this test
run_part() {
	local name=$1 rc=0
	shift
	"$@" > "$tmp/part.log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ]; then
		ok
	elif [ "$rc" -eq 77 ]; then
		echo "# $name: skipped"
	else
		sed 's/^/  /' "$tmp/part.log" | grep -v '^  ok' | tail -20
		fail "$name (exit $rc)"
	fi
}

for s in failed-format print-symbol print-no-symbol empty-name empty-version; do
	args=()
	[ "$s" = empty-version ] && args=(-v 6 -V "")
	sc=$s
	[ "$s" = empty-version ] && sc=timeline
	"$gen" "${args[@]}" "$template" "$sc" "$tmp/$s.dat" "$tmp/$s.counts" ||
		{ fail "gen-trace $s"; continue; }
	if [ "$s" = empty-name ]; then
		# trace-cmd prints it; the damaged format is reported
		rc=0
		"$tdat" check "$tmp/$s.dat" > "$tmp/check" 2>&1 || rc=$?
		[ "$rc" -eq 1 ] && grep -q 'has no "name:" line: its events print as \[UNKNOWN EVENT\]' "$tmp/check" &&
			ok || fail "$s: tdat check exit $rc: $(head -2 "$tmp/check")"
		oracle_run report -i "$tmp/$s.dat" > "$tmp/want" 2>/dev/null
		"$tdat" cat "$tmp/$s.dat" /report > "$tmp/got"
		same_file "$s: /report" "$tmp/want" "$tmp/got"
		tail -n +2 "$tmp/want" > "$tmp/want2"
		"$tdat" cat "$tmp/$s.dat" /trace > "$tmp/got"
		same_file "$s: /trace" "$tmp/want2" "$tmp/got"
		for c in 0 1; do
			oracle_run report --cpu "$c" -i "$tmp/$s.dat" 2>/dev/null | tail -n +2 > "$tmp/want"
			"$tdat" cat "$tmp/$s.dat" "/per_cpu/cpu$c/trace" > "$tmp/got"
			same_file "$s: /per_cpu/cpu$c/trace" "$tmp/want" "$tmp/got"
		done
	else
		run_part "$s: against report" bash "$tests/public/public-vs-report.sh" \
			"$tdat" "$tmp/$s.dat" "$cache"
	fi
	run_part "$s: events lines" "$python" "$tests/views/events-lines.py" \
		"$tdat" "$tmp/$s.dat"
	run_part "$s: fields.tsv against report -R" "$python" "$tests/views/fields.py" \
		--check "$tests/tools/fields-check.py" "$tdat" "$tmp/$s.dat" "$cache"
	case $s in
	failed-format|print-symbol)
		run_part "$s: through a mount" bash "$tests/mount/mount-compare.sh" \
			"$tdat" "$tdatfs" "$tmp/$s.dat" ;;
	esac
done
finish
