#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tdat check's progress line (tdat(1), check and --progress): with
# --progress and stderr a file, plain lines while a long check reads, and
# the same stdout and exit status as without; without --progress and
# stderr not a terminal, no line at all.
#   check-progress.sh TDAT BIG-TRACE SMALL-TRACE
. "$(dirname "$0")/../lib/common.sh"

tdat=$1
big=$2
small=$3
[ -r "$big" ] || { echo "SKIP: $big is missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

line='^tdat: .*: checking: [0-9]+% of [0-9]+ bytes, [0-9]+\.[0-9] MB/s(, [0-9]+ s left)?$'

# run NAME ARGS...: tdat ARGS, stdout, stderr and status kept under NAME
run() {
	local name=$1
	shift
	set +e
	"$tdat" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	set -e
}

run plain check "$big"
run prog --progress check "$big"

if grep -q 'checking:' "$tmp/plain.err"; then
	fail "a progress line without --progress on a file:" \
		"$(head -1 "$tmp/plain.err")"
else
	ok
fi
if grep -Eq "$line" "$tmp/prog.err"; then ok; else
	fail "no progress line with --progress: $(head -3 "$tmp/prog.err")"
fi
if grep 'checking:' "$tmp/prog.err" | grep -Evq "$line"; then
	fail "a progress line of another shape:" \
		"$(grep 'checking:' "$tmp/prog.err" | grep -Ev "$line" | head -1)"
else
	ok
fi
# Plain lines: no carriage return, one line each.
if grep -q $'\r' "$tmp/prog.err"; then
	fail "a carriage return in plain progress lines"
else
	ok
fi
same_file "stdout with --progress" "$tmp/plain.out" "$tmp/prog.out"
same_file "exit status with --progress" "$tmp/plain.rc" "$tmp/prog.rc"
if { grep -v 'checking:' "$tmp/prog.err" || true; } | cmp -s - "$tmp/plain.err"; then ok; else
	fail "stderr besides the progress lines differs with --progress"
fi

# check --progress after the verb, on a check under a second: no line,
# the same output.
run small check "$small"
run small-prog check --progress "$small"
same_file "stdout of check --progress" "$tmp/small.out" "$tmp/small-prog.out"
same_file "exit status of check --progress" "$tmp/small.rc" "$tmp/small-prog.rc"
finish
