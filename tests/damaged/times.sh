#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Time options at the edges of trace-cmd's arithmetic and options the data
# contradicts (issue 34 item 7).  usage: times.sh GEN TDAT DATADIR
#
# GEN (gen-times) rewrites the options of small.dat (v7) and small-v6.dat:
# TSC2NSEC with shift 64, 40, a multiplier of 0xffffffff or 0x80000001,
# page times wrapping past 2^64, a TIME_SHIFT of 65535 CPUs without
# samples, a top BUFFER option's page size twice the pages'.  For each,
# within 30 s and without a signal:
#  - where trace-cmd's result is defined, the text is `trace-cmd report`
#    byte for byte and `errors`, read after it, is empty;
#  - the TIME_SHIFT without samples (trace-cmd reads outside its arrays:
#    its times depend on its heap) makes `tdat check` exit 1, `errors`
#    names the option, and the text still has every record.
source "$(dirname "$0")/../lib/common.sh"
need_oracle

gen=$1 tdat=$2 data=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$gen" "$data/small.dat" "$work"
"$gen" "$data/small-v6.dat" "$work"
for v in "$work"/*.dat; do
	name=$(basename "$v")
	rc=0
	timeout 30 trace-cmd report "$v" >"$work/report" 2>/dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name: trace-cmd report exit $rc"
		continue
	fi
	tail -n +2 "$work/report" >"$work/expect"
	case $name in
	*.tshift-empty.dat)
		rc=0
		timeout -s KILL 30 "$tdat" check "$v" >"$work/check" 2>&1 || rc=$?
		if [ "$rc" -ne 1 ]; then
			fail "$name: tdat check exit $rc, not 1"
		else
			ok
		fi
		rc=0
		timeout -s KILL 30 "$tdat" cat "$v" trace errors >"$work/text" || rc=$?
		if [ "$rc" -ne 0 ] ||
		   ! grep -q '^option time_shift at offset [0-9]* has no samples for cpu 0' \
			"$work/text"; then
			fail "$name: errors does not name the TIME_SHIFT option (exit $rc)"
		else
			ok
		fi
		got=$(grep -cv '^option time_shift' "$work/text" || true)
		if [ "$got" -ne "$(wc -l <"$work/expect")" ]; then
			fail "$name: $got lines of text, trace-cmd has $(wc -l <"$work/expect")"
		else
			ok
		fi
		;;
	*)
		# errors after the text: what reading it found
		rc=0
		timeout -s KILL 30 "$tdat" cat "$v" trace errors >"$work/text" || rc=$?
		if [ "$rc" -ne 0 ]; then
			fail "$name: tdat cat exit $rc"
		else
			same_file "$name: trace and errors" "$work/expect" "$work/text"
		fi
		;;
	esac
done
finish
