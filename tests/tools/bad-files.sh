#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Files that are not usable traces are refused: `tdat check` exits 1 naming
# the problem and a byte offset, and `tdatfs` prints one line
# "tdatfs: FILE: ..." and exits non-zero without mounting anything.
#   bad-files.sh TDAT TDATFS GOOD-TRACE
. "$(dirname "$0")/../lib/common.sh"

tdat=$1
tdatfs=$2
good=$3
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir "$mnt"
trap 'fusermount3 -u "$mnt" 2>/dev/null || true; rm -rf "$tmp"' EXIT

printf 'this is not a trace file\n%.0s' {1..100} > "$tmp/not-a-trace"
head -c 15 "$good" > "$tmp/truncated-header"
size=$(stat -c %s "$good")
# Cut in the middle of the file: inside a metadata section of a v7 trace.
head -c $((size / 2)) "$good" > "$tmp/cut-in-section"
: > "$tmp/empty"

for f in not-a-trace truncated-header cut-in-section empty; do
	path=$tmp/$f
	set +e
	out=$("$tdat" check "$path" 2>&1)
	rc=$?
	set -e
	if [ $rc -eq 1 ] && grep -q 'offset' <<<"$out"; then ok; else
		fail "tdat check $f: exit $rc, want 1 and a message naming an offset: $out"
	fi

	set +e
	err=$(timeout 20 "$tdatfs" -f "$path" "$mnt" 2>&1 >/dev/null)
	rc=$?
	set -e
	lines=$(printf '%s\n' "$err" | wc -l)
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ "$lines" -eq 1 ] && [[ $err == "tdatfs: $path: "* ]]; then ok; else
		fail "tdatfs $f: exit $rc, want non-zero and one line 'tdatfs: $path: ...', got: $err"
	fi
	if mountpoint -q "$mnt"; then
		fail "tdatfs $f: something is mounted on $mnt"
		fusermount3 -u "$mnt" || true
	else ok; fi
done

# A mount point that does not exist is reported clearly, before any mount.
set +e
err=$("$tdatfs" "$good" "$tmp/no-such-dir" 2>&1)
rc=$?
set -e
if [ $rc -ne 0 ] && grep -q 'no-such-dir' <<<"$err"; then ok; else
	fail "tdatfs with a missing mount point: exit $rc: $err"
fi

finish
