#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace.pftrace of synthesized traces, for what no recorded trace holds
# (issue 33): tests/gen's gen-trace writes them from the event formats
# and kallsyms of a recorded template, and pftrace-check.py checks each
# file against Perfetto's schema and `trace-cmd report -N -R -t`:
#  - pftrace-funcs: funcgraph_entry/exit typed on two CPUs, each func
#    shown as trace-cmd prints it: by its name interned in
#    kernel_symbols (on sequence 1, after SEQ_INCREMENTAL_STATE_CLEARED)
#    where it is a symbol's start or 4 bytes into one, by its address
#    below the first symbol and past the last; a page after dropped
#    events (lost_events);
#  - pftrace-tasks: task_newtask with and without CLONE_THREAD,
#    sched_process_fork, and sched_wakeup whose prio the format makes a
#    char array (the event goes generic);
#  - dropped: function_graph exits whose entries were lost, one opening
#    a page that says events were dropped before it.
# Besides the checker's verdict, each scenario must show what it is for
# (functions by name and by address, lost events, generic events, a
# process_tree), so that a generator change cannot empty the test.
#   pftrace-gen.sh PYTHON CHECKER TDAT GEN_TRACE PROTO_DIR TEMPLATE
. "$(dirname "$0")/../lib/common.sh"
need_oracle
python=$1 checker=$2 tdat=$3 gen=$4 proto=$5 template=$6
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check SCENARIO: generate, tdat cat, the checker; its summary in $tmp/SCENARIO.out
check() {
	local s=$1
	if ! "$gen" "$template" "$s" "$tmp/$s.dat" "$tmp/$s.counts"; then
		fail "gen-trace $s failed"
		return 1
	fi
	if ! "$tdat" cat "$tmp/$s.dat" trace.pftrace > "$tmp/$s.pf"; then
		fail "$s: tdat cat trace.pftrace failed"
		return 1
	fi
	if "$python" "$checker" --proto-dir "$proto" "$tmp/$s.dat" "$tmp/$s.pf" \
		> "$tmp/$s.out"; then ok; else fail "$s: pftrace-check.py"; fi
	sed "s/^/$s: /" "$tmp/$s.out"
	trace-cmd report -N -t -i "$tmp/$s.dat" > "$tmp/$s.report" 2>/dev/null
}

# summary_num SCENARIO REGEX: the number the checker's summary gives after REGEX
summary_num() {
	sed -nE "s/.*$2 ([0-9]+).*/\1/p" "$tmp/$1.out" | head -n 1
}

# at_least SCENARIO WHAT N: the summary's WHAT count is N or more
at_least() {
	local n
	n=$(summary_num "$1" "$2")
	if [ "${n:-0}" -ge "$3" ]; then ok; else
		fail "$1: the checker saw ${n:-no} '$2', want at least $3"
	fi
}

dropped() {
	if grep -q 'EVENTS DROPPED' "$tmp/$1.report"; then ok; else
		fail "$1: trace-cmd reports no EVENTS DROPPED"
	fi
}

if check pftrace-funcs; then
	at_least pftrace-funcs 'kernel function fields:' 8
	n=$(sed -nE 's/.*, ([0-9]+) by address.*/\1/p' "$tmp/pftrace-funcs.out")
	if [ "${n:-0}" -ge 4 ]; then ok; else
		fail "pftrace-funcs: ${n:-no} functions checked by address, want at least 4"
	fi
	n=$(sed -nE 's/.* ([0-9]+) symbols;.*/\1/p' "$tmp/pftrace-funcs.out")
	if [ "${n:-0}" -ge 8 ]; then ok; else
		fail "pftrace-funcs: ${n:-no} interned symbols, want at least 8"
	fi
	dropped pftrace-funcs
fi
if check pftrace-tasks; then
	n=$(sed -nE 's/.* ([0-9]+) generic\).*/\1/p' "$tmp/pftrace-tasks.out")
	if [ "${n:-0}" -ge 2 ]; then ok; else
		fail "pftrace-tasks: ${n:-no} generic events, want the 2 sched_wakeup"
	fi
	if protoc -I "$proto" --decode=perfetto.protos.Trace perfetto_trace.proto \
		< "$tmp/pftrace-tasks.pf" | grep -q '^  process_tree {'; then ok; else
		fail "pftrace-tasks: no process_tree packet"
	fi
fi
if check dropped; then
	dropped dropped
fi
finish
