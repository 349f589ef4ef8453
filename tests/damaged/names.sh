#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Event formats libtraceevent cannot use whole (issue 34 item 4; tdatfs(1),
# DAMAGED TRACES).
#   usage: names.sh GEN TDAT TDATFS DATADIR
#
# GEN (gen-names) changes sched_wakeup's format of small.dat: its name
# x.y, ., ../x, or wake\xff\xfe (not ASCII), or a print fmt that makes the
# format 140,000 bytes long (over the 128 KiB tdatfs parses).  trace-cmd
# prints the records of the first four as [UNKNOWN EVENT]; tdatfs prints
# all five so.  For each:
#  - `tdat check` exits 1 with one line naming the format (system/event,
#    bytes that are not printable ASCII as \xNN) and its file offset;
#  - /trace is trace-cmd report's (the long one aside, which trace-cmd
#    prints through the sched plugin): the rest of the trace is read;
#  - through a mount, `find -type f -print0 | xargs -0 cat` exits 0, every
#    file listed reads to its listed size, the event's directory lists its
#    trace but no fields.tsv (its records have no fields), sched_switch
#    lists both, and errors names the format.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

gen=$1 tdat=$2 tdatfs=$3 data=$4
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT

# case, the name errors gives the event, its directory in the tree
cases=("dotted sched/x.y x.y"
       "dot sched/. _"
       "up sched/../x ..%2Fx"
       'bytes sched/wake\\xff\\xfe wake%FF%FE'
       "long sched/sched_wakeup sched_wakeup"
       "dotted-zstd sched/x.y x.y")

# sizes_match DIR: every regular file under DIR reads to its stat size
# (one process: a stat and a read per file would cost 100 ms a file)
sizes_match() {
	python3 - "$1" <<'PY'
import os, stat, sys
bad = 0
for d, _, files in os.walk(sys.argv[1]):
    for n in files:
        p = os.path.join(d, n)
        st = os.lstat(p)
        if not stat.S_ISREG(st.st_mode):
            continue
        with open(p, 'rb') as f:
            got = len(f.read())
        if got != st.st_size:
            print(f"{p}: stat size {st.st_size}, {got} bytes read", file=sys.stderr)
            bad += 1
sys.exit(1 if bad else 0)
PY
}

need_fuse
for c in "${cases[@]}"; do
	read -r name event dir <<<"$c"
	v=$work/$name.dat
	if [ "$name" = dotted-zstd ]; then
		# in a compressed section: the section's offset is named too
		trace-cmd convert --compression any -i "$work/dotted.dat" -o "$v" \
			>/dev/null 2>&1 || { fail "trace-cmd convert"; continue; }
		event="$event (id [0-9]*, section offset [0-9]*)"
	else
		"$gen" "$data/small.dat" "$name" "$v" || { fail "$name: gen-names"; continue; }
		event="$event (id [0-9]*)"
	fi

	# tdat check names the format, once, with its offset
	rc=0
	"$tdat" -o noindex check "$v" >"$work/check" 2>&1 || rc=$?
	n=$(grep -c "^event format $event .*print as \[UNKNOWN EVENT\]: file offset [0-9]" \
		"$work/check" || true)
	if [ "$rc" -eq 1 ] && [ "$n" -eq 1 ] && [ "$(wc -l <"$work/check")" -eq 1 ]; then
		ok
	else
		fail "$name: tdat check exit $rc, $n lines for $event: $(head -c 300 "$work/check")"
	fi

	# the text is trace-cmd's
	oracle_run report "$v" 2>/dev/null >"$work/report"
	if [ "$name" != long ]; then
		tail -n +2 "$work/report" >"$work/want"
		"$tdat" -o noindex cat "$v" /trace >"$work/got"
		same_file "$name: /trace" "$work/want" "$work/got"
	fi
	grep ' sched_switch: ' "$work/report" >"$work/want"
	"$tdat" -o noindex cat "$v" /events/sched/sched_switch/trace >"$work/got"
	same_file "$name: sched_switch/trace" "$work/want" "$work/got"

	start_mount "$tdatfs" "$v" "$mnt" -o noindex
	rc=0
	timeout -s KILL 60 bash -c 'find "$1" -type f -print0 | xargs -0 cat >/dev/null' \
		_ "$mnt" 2>"$work/err" || rc=$?
	if [ "$rc" -eq 0 ]; then ok; else fail "$name: find | xargs cat exit $rc: $(head -3 "$work/err")"; fi
	if sizes_match "$mnt" 2>"$work/err"; then
		ok
	else
		fail "$name: files whose size is not what reads: $(head -3 "$work/err")"
	fi
	if [ -f "$mnt/events/sched/$dir/trace" ] &&
	   [ ! -e "$mnt/events/sched/$dir/fields.tsv" ] &&
	   ! ls "$mnt/events/sched/$dir" | grep -q fields.tsv &&
	   [ -f "$mnt/events/sched/sched_switch/fields.tsv" ]; then
		ok
	else
		fail "$name: events/sched/$dir lists: $(ls "$mnt/events/sched/$dir" | tr '\n' ' ')"
	fi
	n=$(grep -c "^event format $event " "$mnt/errors" || true)
	if [ "$n" -eq 1 ]; then ok; else fail "$name: errors names $event $n times: $(head -c 300 "$mnt/errors")"; fi
	stop_mount "$mnt"
done
finish
