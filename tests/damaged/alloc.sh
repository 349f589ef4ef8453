#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Memory failure is an error, never other text (tdatfs(1), DAMAGED TRACES).
#   usage: alloc.sh TDAT TRACE STEP_MB FROM_MB TO_MB [TRACE STEP FROM TO]...
#
# `tdat cat TRACE trace` under `prlimit --as=N` for N from FROM_MB to TO_MB
# MB by STEP_MB (a range running from where tdat cannot start to where it
# succeeds): every run either exits 1 with a message, or exits 0 with the
# bytes of the unlimited run.  A signal, another status, an exit 0 with
# other bytes fail; so does a range in which no run fails or none succeeds
# (it no longer covers the interesting part).
#
# That includes kallsyms, which libtraceevent's function resolver reads:
# a run whose symbols print as addresses fails like any other bytes.
#
# tdat runs with an index directory of its own, empty, so that the limits
# measure one path: an index kept from an earlier run in the user's cache
# (cat loads one when it is there) takes the need above TO_MB.
#
# Skipped (77) under a sanitizer (TDATFS_SANITIZE is meson's b_sanitize):
# ASan reserves terabytes of address space, so no --as limit works.
source "$(dirname "$0")/../lib/common.sh"

case ${TDATFS_SANITIZE:-none} in
none) ;;
*) echo "SKIP: address-space limits do not work under a sanitizer"; exit 77 ;;
esac
command -v prlimit >/dev/null || { echo "SKIP: no prlimit"; exit 77; }

tdat=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/idx"

while [ $# -ge 4 ]; do
	trace=$1 step=$2 from=$3 to=$4
	shift 4
	name=$(basename "$trace")
	"$tdat" -o index_dir="$work/idx" cat "$trace" trace >"$work/full"
	failed=0 same=0
	for ((mb = from; mb <= to; mb += step)); do
		set +e
		prlimit --as=$((mb * 1000000)) \
			"$tdat" -o index_dir="$work/idx" cat "$trace" trace \
			>"$work/got" 2>"$work/err"
		rc=$?
		set -e
		if [ "$rc" -eq 1 ] && [ -s "$work/err" ]; then
			failed=$((failed + 1))
			ok
		elif [ "$rc" -ne 0 ]; then
			fail "$name at $mb MB: exit $rc: $(head -c 200 "$work/err")"
		elif cmp -s "$work/full" "$work/got"; then
			same=$((same + 1))
			ok
		else
			fail "$name at $mb MB: exit 0 with other bytes ($(cmp "$work/full" "$work/got" 2>&1 | head -1))"
		fi
	done
	echo "$name: $from-$to MB by $step: $failed runs failed with a message, $same gave the right bytes"
	if [ "$failed" -gt 0 ] && [ "$same" -gt 0 ]; then
		ok
	else
		fail "$name: the range $from-$to MB does not run from failure to success"
	fi
done
finish
