#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A synthesized trace (tests/gen, scenario "timeline": prints with a tab,
# control bytes, UTF-8, 300 bytes, two lines and three in one pixel column;
# long, idle and sub-pixel running intervals, a switch naming another
# prev_pid than the task that ran; a CPU with prints and no switch) through
# check.py and screenshot.py, as a recorded one.  gen-vs-report checks that
# trace-cmd and tdat print the trace alike.
#   gen.sh PYTHON GEN TDAT TEMPLATE
. "$(dirname "$0")/../lib/common.sh"
python=$1 gen=$2 tdat=$3 template=$4
here=$(dirname "$0")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export XDG_CACHE_HOME=$tmp/xdg
"$gen" "$template" timeline "$tmp/timeline.dat" "$tmp/counts" ||
	{ echo "FAIL: gen-trace timeline" >&2; exit 1; }
rc=0
"$python" "$here/check.py" "$tdat" "$tmp/timeline.dat" "$tmp/svg" || rc=1
"$python" "$here/screenshot.py" "$tdat" "$tmp/timeline.dat" "$tmp/svg" || rc=1
exit $rc
