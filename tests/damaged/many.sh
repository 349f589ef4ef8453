#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Thousands of instances, thousands of formats of one name (issue 34).
# usage: many.sh GEN TDAT TDATFS DATADIR
#
# GEN (gen-many) writes, from small-v6.dat's 2323 real formats, a v7 trace
# with 900 instances (each a BUFFER option and section, every other one a
# page of records) and one with 7200 formats all named dup:x.  Before the
# fix an instance's events/ held a node per format (1500 instances: 12 s
# and 1.2 GB for `tdat ls /`) and every engine parsed every format of a
# file with two formats of one name (95 MB with cache_size=1M).  For each:
#  - `tdat ls /`, `tdat index` and `tdat check` end within the limit,
#    no signal, peak RSS under 64 MiB + 1 MiB (tdat's default cache is
#    64 MiB, but these traces are uncompressed: nothing fills it; 3 GB under a
#    sanitizer, whose shadow memory and quarantine grow it: TDATFS_SANITIZE
#    is meson's b_sanitize);
#  - the daemon with -o cache_size=1M is ready within 30 s, `ls` of the root,
#    of instances/ and of some instances' events/ and events/SYSTEM/ work
#    and match `tdat ls`, and its peak RSS stays under the same bound.
source "$(dirname "$0")/../lib/common.sh"

gen=$1 tdat=$2 tdatfs=$3 data=$4
work=$(mktemp -d)
rss_max=66560
limit=30
case ${TDATFS_SANITIZE:-none} in none) ;; *) rss_max=3000000 limit=120 ;; esac
mnt=$work/mnt
pid=
cleanup() {
	if [ -n "$pid" ]; then
		fusermount3 -u "$mnt" 2>/dev/null || true
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# run WHAT CMD...: CMD ends within the limit, with 0, under the RSS bound
run() {
	local what=$1 rc rss
	shift
	set +e
	/usr/bin/time -f %M -o "$work/rss" timeout -s KILL "$limit" "$@" \
		>"$work/out" 2>"$work/err"
	rc=$?
	set -e
	rss=$(tail -n 1 "$work/rss")
	echo "$what: exit $rc, peak RSS $rss KB"
	if [ "$rc" -ne 0 ]; then
		fail "$what: exit status $rc (timeout, signal or error): $(head -2 "$work/err")"
	elif [ "$rss" -gt "$rss_max" ]; then
		fail "$what: peak RSS $rss KB > $rss_max KB"
	else
		ok
	fi
}

"$gen" "$data/small-v6.dat" "$work" 60
for v in instances names; do
	t=$work/many.$v.dat
	idx=$work/idx.$v
	mkdir -p "$idx"
	run "$v: tdat ls /" "$tdat" -o noindex ls "$t" /
	run "$v: tdat index" "$tdat" -o index_dir="$idx" index "$t"
	run "$v: tdat check" "$tdat" -o index_dir="$idx" check "$t"
	rm -rf "$idx"
	mkdir -p "$idx"
	[ -e /dev/fuse ] || continue
	mkdir -p "$mnt"
	start=$(date +%s.%N)
	/usr/bin/time -f %M -o "$work/drss" "$tdatfs" -f \
		-o cache_size=1M,index_dir="$idx" "$t" "$mnt" 2>"$work/derr" &
	pid=$!
	for _ in $(seq 1 $((limit * 20))); do
		mountpoint -q "$mnt" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.05
	done
	if ! mountpoint -q "$mnt"; then
		fail "$v: mount not ready in $limit s: $(head -2 "$work/derr")"
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		pid=
		continue
	fi
	echo "$v: mount ready in $(echo "$(date +%s.%N) - $start" | bc) s"
	ok
	paths=(/ /events)
	if [ "$v" = instances ]; then
		paths+=(/instances /instances/inst0000/events
			/instances/inst0001/events /instances/inst0238/events
			/instances/inst0000/events/sched)
	else
		paths+=(/events/dup)
	fi
	for p in "${paths[@]}"; do
		if ls "$mnt$p" >"$work/m.ls" 2>"$work/m.err" &&
		   "$tdat" -o index_dir="$idx" ls "$t" "$p" >"$work/t.ls" &&
		   cmp -s "$work/m.ls" "$work/t.ls" && [ -s "$work/m.ls" ]; then
			ok
		else
			fail "$v: ls $p through the mount: $(head -2 "$work/m.err")"
		fi
	done
	fusermount3 -u "$mnt"
	wait "$pid"
	pid=
	rss=$(tail -n 1 "$work/drss")
	echo "$v: daemon peak RSS $rss KB"
	if [ "$rss" -gt "$rss_max" ]; then
		fail "$v: daemon peak RSS $rss KB > $rss_max KB"
	else
		ok
	fi
done
finish
