#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A public trace (recorded by other people, ../shared/traces/public/)
# against the oracle, Debian's `trace-cmd report`:
#  - /trace == `report | tail -n +2`;
#  - /report == `report`, the whole output;
#  - /per_cpu/cpuN/trace == `report --cpu N | tail -n +2`, for every CPU
#    the report names (a CPU the tree has no file for has no lines);
#  - `tdat check` exits 0: a trace trace-cmd prints is not damaged.
# Debian's trace-cmd cannot read zlib: for NAME.dat the oracle is
# NAME.twin.dat (the same trace converted to zstd, identical report) or,
# where there is no twin, the stored report NAME.report.zst, from which a
# CPU's lines are cut by their [NNN] field.
# The oracle's output is cached by the SHA-1 of the file it reads, so the
# normal and the sanitizer build run trace-cmd once per trace.
#   public-vs-report.sh TDAT TRACE CACHEDIR
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
trace=$2
cache=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$cache"

base=${trace%.dat}
oracle=$trace stored=
if [ -e "$base.twin.dat" ]; then
	oracle=$base.twin.dat
elif [ -e "$base.report.zst" ]; then
	stored=$base.report.zst
fi
key=$(sha1sum < "${stored:-$oracle}" | cut -c1-40)-$(dpkg-query -W -f='${Version}' trace-cmd 2>/dev/null || echo unknown)

# report ARGS...: the oracle's output for ARGS, from the cache when there.
# Written to a temporary name and renamed, so that two runs at once never
# read a half-written entry.  A fresh output comes from oracle_run, so it
# is cached only once two runs agree on it: a misprinted run kept here
# would fail every later run.  trace-cmd's own exit status is not the
# test's business here (the comparison of texts is); only a failed
# agreement stops the test.
report() {
	local f="$cache/$key${*// /_}" rc=0
	if [ ! -e "$f" ]; then
		if [ -n "$stored" ]; then
			zstd -dcq "$stored" > "$f.$$"
		else
			oracle_run report "$@" -i "$oracle" > "$f.$$" 2> "$f.$$.err" || rc=$?
			grep -E '^(# |FAIL: )trace-cmd ' "$f.$$.err" >&2 || true
			rm -f "$f.$$.err"
			if [ "$rc" -eq 125 ]; then
				rm -f "$f.$$"
				failures=$((failures + 1))
				finish >&2  # stdout is the caller's file
			fi
		fi
		mv "$f.$$" "$f"
	fi
	cat "$f"
}

# cpu_lines N: the lines whose first [NNN] field is CPU N
cpu_lines() {
	awk -v cpu="$1" 'match($0, /\[[0-9][0-9][0-9]+\] /) {
		if (substr($0, RSTART + 1, RLENGTH - 3) + 0 == cpu) print }'
}

compare() { # PATH WANT
	local path=$1 want=$2
	if "$tdat" ls "$trace" "$path" >/dev/null 2>&1; then
		"$tdat" cat "$trace" "$path" > "$tmp/got"
		same_file "$(basename "$trace"):$path ($(wc -l < "$want") lines)" "$want" "$tmp/got"
	elif [ -s "$want" ]; then
		fail "$(basename "$trace"):$path missing, the report has $(wc -l < "$want") lines for it"
	else
		ok
	fi
}

report > "$tmp/report"
cpus=$(sed -n '1s/^cpus=\([0-9]*\)$/\1/p' "$tmp/report")
[ -n "$cpus" ] || { fail "no cpus= line in the report of $oracle"; finish; }
tail -n +2 "$tmp/report" > "$tmp/want"
compare /trace "$tmp/want"
compare /report "$tmp/report"
for c in $(seq 0 $((cpus - 1))); do
	if [ -n "$stored" ]; then
		tail -n +2 "$tmp/report" | cpu_lines "$c" > "$tmp/want"
	else
		report --cpu "$c" | tail -n +2 > "$tmp/want"
	fi
	compare "/per_cpu/cpu$c/trace" "$tmp/want"
done

if "$tdat" check "$trace" > "$tmp/check" 2>&1; then
	ok
else
	fail "tdat check $(basename "$trace") exits non-zero: $(head -3 "$tmp/check")"
fi
finish
