#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A buffer's CPU texts made beside its merged text, on the synthesized
# scenarios of two CPUs: function_graph (a CPU with an entry is dropped
# from the lead at it and made apart, reading every CPU), user stacks,
# the function tracer (each CPU text's own call stacks), shifted times.
# test-text-stream-follow compares every state saved by a lead with the
# one each text made alone saves, byte for byte, and their texts; --apart
# makes it fail unless some CPU text was made apart.  The same scenarios
# made in two parts at once: test-text-stream-split compares every
# checkpoint of a joined text with the text made in a row; --again makes
# it fail unless some text did not join (a call stack open where the
# parts meet, a CPU dropped from a lead) and was made again.
#   gen-follow.sh TEST FLAG GEN TEMPLATE
#   (TEST_TEXT_STREAM_FOLLOW --apart, or TEST_TEXT_STREAM_SPLIT --again)
. "$(dirname "$0")/../lib/common.sh"

test_follow=$1
flag=$2
gen=$3
template=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dats=
for sc in interleave ustack function fncalls tshift tshift-step timeline; do
	if "$gen" -v 7 "$template" "$sc" "$tmp/$sc.dat" "$tmp/counts" > /dev/null; then
		dats="$dats $tmp/$sc.dat"
	else
		fail "$sc: gen-trace fails"
	fi
done
if "$test_follow" "$flag" $dats > "$tmp/out" 2> "$tmp/err"; then
	ok
else
	fail "states differ: $(head -3 "$tmp/err") $(tail -1 "$tmp/out")"
fi
finish
