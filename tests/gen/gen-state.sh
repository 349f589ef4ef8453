#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Saved text states on the synthesized scenarios: function_graph on two
# CPUs (a one-CPU text then reads every CPU, and its state holds them
# all), dropped events and the function tracer (the call stacks at each
# checkpoint).  test-text-state saves every text's state from
# one engine, loads it into another and compares reads at every
# checkpoint (one every few bytes), and damages the states.
#   gen-state.sh TEST_TEXT_STATE GEN TEMPLATE
. "$(dirname "$0")/../lib/common.sh"

test_state=$1
gen=$2
template=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for sc in interleave dropped leaf fncalls; do
	dat=$tmp/$sc.dat
	if ! "$gen" -v 7 "$template" "$sc" "$dat" "$tmp/counts"; then
		fail "$sc: gen-trace fails"
		continue
	fi
	if "$test_state" --spacing 97 "$dat" > "$tmp/out" 2> "$tmp/err"; then
		ok
	else
		fail "$sc: states differ: $(head -3 "$tmp/err")"
	fi
done
finish
