#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A buffer's CPU texts made beside its merged text, on damaged variants
# (GEN, gen-damaged, class flip and lie) of TRACE: a CPU whose data has a
# damaged run is dropped from the lead (its marker line falls elsewhere
# in its own text) and made apart.  test-text-stream-follow compares every
# state the lead saves with the one each text made alone saves, byte for
# byte, and their texts; --apart makes it fail unless some CPU was made
# apart.  The same variants made in two parts at once: test-text-stream-split
# compares every checkpoint of a joined text with the text made in a row;
# --again makes it fail unless some text did not join (a damaged run
# where the parts meet, a CPU dropped from a lead) and was made again.
# Variants that do not open are not this test's.
#   follow.sh TEST FLAG GEN TDAT TRACE
#   (TEST_TEXT_STREAM_FOLLOW --apart, or TEST_TEXT_STREAM_SPLIT --again)
source "$(dirname "$0")/../lib/common.sh"

test_follow=$1 flag=$2 gen=$3 tdat=$4 trace=$5
need_trace "$trace"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for class in flip lie; do
	"$gen" "$trace" "$work" "$class" > /dev/null || fail "gen-damaged $class fails"
done
opened=()
for v in "$work"/*.dat; do
	"$tdat" -o noindex ls "$v" / > /dev/null 2>&1 && opened+=("$v")
done
[ "${#opened[@]}" -gt 0 ] || { fail "no variant of $trace opens"; finish; }
if "$test_follow" "$flag" "${opened[@]}" > "$work/out" 2> "$work/err"; then
	ok
else
	fail "$(head -3 "$work/err") $(tail -1 "$work/out")"
fi
finish
