# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers shared by the shell tests.  Source it; it sets -euo pipefail.
set -euo pipefail

failures=0
checks=0

# fail MESSAGE: count a failed check and say what it was
fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# ok: count a passed check
ok() {
	checks=$((checks + 1))
}

# same_file WHAT EXPECTED GOT: byte comparison with a readable diff on failure
same_file() {
	if cmp -s "$2" "$3"; then
		ok
	else
		fail "$1 differs from the oracle ($(cmp "$2" "$3" 2>&1 | head -1))"
		diff <(head -c 200000 "$2") <(head -c 200000 "$3") | head -20 >&2 || true
	fi
}

# finish: print the tally and exit 1 if anything failed, 0 otherwise
finish() {
	echo "$checks checks passed, $failures failed"
	if [ "$failures" -ne 0 ] || [ "$checks" -eq 0 ]; then
		exit 1
	fi
	exit 0
}

# need_trace TRACE: a trace of ../shared may be missing from a checkout:
# skip (77) then, and only then
need_trace() {
	if [ ! -e "$1" ]; then
		echo "SKIP: $1 is missing" >&2
		exit 77
	fi
}

# need_oracle: the tests compare against Debian's trace-cmd; it must exist
need_oracle() {
	command -v trace-cmd >/dev/null || { echo "trace-cmd (the oracle) is not installed" >&2; exit 1; }
}

# oracle_run ARGS...: the output of `trace-cmd ARGS...`, once two runs in a
# row agree byte for byte (at most 5 runs), with the first run's stderr
# and exit status, or 125 (after a "FAIL: trace-cmd" line on stderr)
# when no two runs agree.  trace-cmd 3.1.6 was seen twice to print one run's
# timestamps as raw nanoseconds ("[000] 38924356770:"), on traces it
# prints with seconds in every other run (170 reruns, no MALLOC_PERTURB_
# value reproduced it): such a run must not become the expected text.
oracle_run() {
	local a b try rc=0
	a=$(mktemp) b=$(mktemp)
	command trace-cmd "$@" > "$a" || rc=$?
	for try in 1 2 3 4; do
		command trace-cmd "$@" > "$b" 2>/dev/null || true
		if cmp -s "$a" "$b"; then
			cat "$a"
			rm -f "$a" "$b"
			return "$rc"
		fi
		echo "# trace-cmd $*: two runs differ, run again" >&2
		mv "$b" "$a"
		b=$(mktemp)
	done
	rm -f "$a" "$b"
	echo "FAIL: trace-cmd $*: no two runs in a row agree" >&2
	return 125
}
