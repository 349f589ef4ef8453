#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Text positions on the function_graph scenarios: a leaf consumes the
# record after its entry (its exit, maybe on another page or behind
# another CPU's records), so a checkpoint must hold that exit as read;
# and on the function tracer's (fncalls), whose indents come from call
# stacks each checkpoint must hold.
# test-text makes the text of /trace and of every CPU again from a
# checkpoint every few bytes and compares it with the text made at once.
#   gen-positions.sh TEST_TEXT GEN TEMPLATE
. "$(dirname "$0")/../lib/common.sh"

test_text=$1
gen=$2
template=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for v in 6 7; do
	for sc in nested leaf page-break dropped interleave irq durations fncalls; do
		dat=$tmp/$sc.dat
		if ! "$gen" -v "$v" "$template" "$sc" "$dat" "$tmp/counts"; then
			fail "$sc v$v: gen-trace fails"
			continue
		fi
		for bytes in 97; do
			if "$test_text" --spacing "$bytes" "$dat" 2> "$tmp/err"; then
				ok
			else
				fail "$sc v$v: text from a checkpoint every $bytes bytes differs: $(head -3 "$tmp/err")"
			fi
		done
	done
done
finish
