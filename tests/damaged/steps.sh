#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# An event whose length steps back or nowhere makes its page one that does
# not parse (issue 34): kbuffer, and so trace-cmd, walk such a page
# forever.  usage: steps.sh GEN TDAT TDATFS TRACE (an uncompressed trace)
#
# GEN (gen-damaged) makes the "step" variants of TRACE: one event of a
# page in the middle of a CPU turned into padding of length 0xfffffffc,
# or 0xfffffff0 (with a time delta, and without: "null" padding), or a
# type_len 0 event of length word 0 or 0xfffffff8.  For each:
#  - `tdat check` ends within the limit and exits 1 naming the page that
#    does not parse;
#  - `tdat cat VARIANT trace` without an index, and with one built by
#    `tdat index` (which must end too), ends within the limit, is shorter
#    than twice the good trace's text, holds one marker line, and less it
#    is `trace-cmd report` of TRACE less lines of the marker's CPU only
#    (one page of them at most); each CPU's text is its `report --cpu N`,
#    the marker's CPU's less one run of lines where its marker stands;
#    both texts are the same with the index and without; errors names the
#    page;
#  - a real mount becomes ready and `cat trace` and `cat errors` end,
#    with the same text.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"
need_oracle

gen=$1 tdat=$2 tdatfs=$3 trace=$4
need_trace "$trace"
limit=20
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$work/v" "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT

"$gen" "$trace" "$work/v" step >"$work/list" 2>/dev/null
variants=$(awk '$2 == "step" { print $1 }' "$work/list")
n=$(echo "$variants" | wc -w)
[ "$n" = 5 ] && ok || fail "$(basename "$trace"): $n step variants, not 5"

oracle_run report "$trace" 2>/dev/null | tail -n +2 >"$work/want"
cpus=$("$tdat" -o noindex ls "$trace" /per_cpu | sed -n 's/^cpu//p')
for c in $cpus; do
	oracle_run report --cpu "$c" "$trace" 2>/dev/null | tail -n +2 >"$work/want.$c"
done
bound=$((2 * $(stat -c %s "$work/want")))

# run NAME CMD...: CMD within the limit, its stdout to $work/NAME; its
# exit status in $rc (137: killed at the limit)
run() {
	local name=$1
	shift
	rc=0
	timeout -s KILL "$limit" "$@" >"$work/$name" 2>"$work/$name.err" || rc=$?
	if [ "$rc" = 137 ]; then
		fail "$v: $* did not end within $limit s"
	fi
}

# text_ok WHAT FILE: bounded, one marker line, the rest the oracle's
# lines less some of the marker's CPU (one page of events at most)
text_ok() {
	local what=$1 got=$2 cpu tag del
	if [ "$(stat -c %s "$got")" -lt "$bound" ]; then ok; else
		fail "$v: $what: $(stat -c %s "$got") bytes, not under $bound"
		return
	fi
	if [ "$(grep -c '^\[tdatfs: ' "$got")" = 1 ]; then ok; else
		fail "$v: $what: $(grep -c '^\[tdatfs: ' "$got") marker lines, not 1"
		return
	fi
	cpu=$(sed -n 's/^\[tdatfs: CPU \([0-9]*\): .*damaged data\]$/\1/p' "$got")
	tag=$(printf '[%03d]' "$cpu")
	grep -v '^\[tdatfs: ' "$got" >"$work/rest" || true
	diff "$work/want" "$work/rest" >"$work/diff" || true
	del=$(grep -c '^<' "$work/diff" || true)
	if grep -q '^>' "$work/diff"; then
		fail "$v: $what: lines the oracle does not have: $(grep -m1 '^>' "$work/diff")"
	elif grep '^<' "$work/diff" | grep -qvF "$tag"; then
		fail "$v: $what: lines of another CPU than $cpu missing: $(grep '^<' "$work/diff" | grep -m1 -vF "$tag")"
	elif [ "$del" -lt 1 ] || [ "$del" -gt 256 ]; then
		fail "$v: $what: $del lines missing, not one page's"
	else
		ok
	fi
}

# cpu_ok C FILE: CPU C's text: its oracle, or for the damaged CPU the
# oracle's head before the marker and its tail after it
cpu_ok() {
	local c=$1 got=$2 at total
	at=$(grep -n -m1 '^\[tdatfs: ' "$got" | cut -d: -f1 || true)
	if [ -z "$at" ]; then
		same_file "$v: cpu$c/trace" "$work/want.$c" "$got"
		return
	fi
	total=$(wc -l <"$got")
	if cmp -s <(head -n $((at - 1)) "$got") <(head -n $((at - 1)) "$work/want.$c") &&
	   cmp -s <(tail -n $((total - at)) "$got") <(tail -n $((total - at)) "$work/want.$c") &&
	   [ $((total - 1)) -lt "$(wc -l <"$work/want.$c")" ]; then
		ok
	else
		fail "$v: cpu$c/trace around its marker (line $at) is not the oracle's head and tail"
	fi
}

for name in $variants; do
	v=$name
	f=$work/v/$name
	run check "$tdat" -o noindex check "$f"
	if [ "$rc" = 1 ] && grep -q 'does not parse' "$work/check"; then ok; else
		fail "$v: tdat check: exit $rc, $(head -c 200 "$work/check")"
	fi

	run noindex "$tdat" -o noindex cat "$f" trace
	[ "$rc" = 0 ] && ok || fail "$v: tdat -o noindex cat trace: exit $rc"
	text_ok "trace (no index)" "$work/noindex"
	for c in $cpus; do
		run "cpu$c" "$tdat" -o noindex cat "$f" "/per_cpu/cpu$c/trace"
		cpu_ok "$c" "$work/cpu$c"
	done

	run index "$tdat" -o "index_dir=$work/idx" index "$f"
	[ "$rc" = 0 ] && ok || fail "$v: tdat index: exit $rc: $(head -c 200 "$work/index.err")"
	run indexed "$tdat" -o "index_dir=$work/idx" cat "$f" trace errors
	[ "$rc" = 0 ] && ok || fail "$v: tdat cat trace errors (index): exit $rc"
	head -n "$(wc -l <"$work/noindex")" "$work/indexed" >"$work/indexed.trace"
	same_file "$v: trace with the index and without" "$work/noindex" "$work/indexed.trace"
	if tail -n +$(($(wc -l <"$work/noindex") + 1)) "$work/indexed" | grep -q 'does not parse'; then
		ok
	else
		fail "$v: errors does not name a page that does not parse"
	fi
done

# ---- mounts --------------------------------------------------------------

[ "$failures" = 0 ] || finish
need_fuse
for name in $variants; do
	v=$name
	f=$work/v/$name
	"$tdat" -o noindex cat "$f" trace >"$work/noindex"
	start_mount "$tdatfs" "$f" "$mnt" -o "index_dir=$work/idx-mount"
	run mounted cat "$mnt/trace"
	[ "$rc" = 0 ] && ok || fail "$v: cat of the mount's trace: exit $rc"
	same_file "$v: the mount's trace" "$work/noindex" "$work/mounted"
	run errors cat "$mnt/errors"
	if grep -q 'does not parse' "$work/errors"; then ok; else
		fail "$v: the mount's errors does not name the page"
	fi
	stop_mount "$mnt"
done
finish
