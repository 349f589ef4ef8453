#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The compiled info formats (fs/text/compiled/program.c) against libtraceevent,
# the library trace-cmd prints with: every decoded text of every TRACE,
# once as shipped and once with -o tep_only (every event through
# tep_print_event()), must be byte-identical.  This reaches what the
# report comparison cannot: traces trace-cmd refuses (zlib, damaged,
# synthetic big-endian and 4-byte-long seeds of tests/corpus).  The
# event views (events/*/*/trace) are left out: they are cut from the full
# texts compared here, and tests/views checks the cutting.
#   text-fast-vs-tep.sh TDAT TRACE|DIR...   (a DIR: its *.dat)
. "$(dirname "$0")/../lib/common.sh"

tdat=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

traces=()
for a in "$@"; do
	if [ -d "$a" ]; then
		traces+=("$a"/*.dat)
	else
		traces+=("$a")
	fi
done
for trace in "${traces[@]}"; do
	mapfile -t texts < <("$tdat" ls -R "$trace" / 2>/dev/null |
		grep -E '(^|/)trace$' | grep -vE '(^|/)events/' || true)
	for p in "${texts[@]}"; do
		# a refused or damaged text must fail (or not) the same way
		"$tdat" cat "$trace" "$p" > "$tmp/fast" 2> "$tmp/fast.err" || true
		"$tdat" -o tep_only cat "$trace" "$p" > "$tmp/tep" 2> "$tmp/tep.err" || true
		if cmp -s "$tmp/tep" "$tmp/fast" && cmp -s "$tmp/tep.err" "$tmp/fast.err"; then
			ok
		else
			fail "$(basename "$trace") $p: compiled formats differ from libtraceevent"
			diff <(head -c 200000 "$tmp/tep") <(head -c 200000 "$tmp/fast") | head -10 >&2 || true
		fi
	done
done
finish
