#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Reading ahead (-o decode_threads, tdatfs(1)): a finished text (its index
# kept) read by workers ahead of a sequential reader gives the same bytes.
#   read-ahead.sh TDAT TDATFS GEN_DAMAGED GEN_TRACE SCALE_TRACE LONG_TRACE
#                 VIEWS_TRACE KIND:TRACE...
# KIND is "tc" (the report is compared with `trace-cmd report`) or "self" (a
# damaged trace, whose marker lines trace-cmd does not print: the report
# with workers is compared with the report without them).  For
# each TRACE, with its index built in a directory of the test:
#  - `tdat cat` of the report, the buffer's text, every per-CPU text and
#    the views of the two events with the most records with
#    decode_threads=3 equals decode_threads=0; the report without
#    workers equals trace-cmd's (tc);
#  - through a mount with decode_threads=3: cat of each text, reads of
#    4096 and 100000 bytes with O_DIRECT, two cats of one text at once,
#    and a reader from the middle beside one from the start give those
#    bytes;
# then the same for a long function_graph trace made from the first
# TRACE (GEN_TRACE, trace-cmd convert, SCALE_TRACE); and for LONG_TRACE
# (a text that takes a while):
#  - a reader killed during its read is gone within 1 s, and the text
#    reads right afterwards;
#  - a SIGTERM to the daemon while a reader reads ends the daemon with
#    status 0 (the workers stopped and joined) within 10 s;
# DAMAGED: variants of the first TRACE made by GEN_DAMAGED whose text
# holds a "[tdatfs: " marker line are read as "self" traces.
# VIEWS_TRACE (a trace with more events than a mount keeps view streams):
# the view of every event with records read twice through a mount with
# decode_threads=3, so that streams the workers read are freed and made
# again, equals tdat cat of the views without workers.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_fuse
need_oracle

tdat=$1 tdatfs=$2 gen=$3 gen_trace=$4 scale=$5 long=$6 views=$7
shift 7
index_setup

# A function_graph trace of 2 CPUs with a text of 1.5 MB: GEN_TRACE's
# interleave scenario, compressed by trace-cmd, made 1024 times longer.
"$gen_trace" -v 7 "${1#*:}" interleave "$tmp/fg.dat" "$tmp/fg.counts"
trace-cmd convert -i "$tmp/fg.dat" -o "$tmp/fg-z.dat" --compression zstd >/dev/null 2>&1
python3 "$scale" -k 1024 "$tmp/fg-z.dat" "$tmp/fg-long.dat" >/dev/null
set -- "$@" "tc:$tmp/fg-long.dat"

# texts TRACE IDX: the decoded texts of TRACE, one path a line, and the
# views of the two events with the most records (finished when made)
texts() {
	echo report
	"$tdat" -o "index_dir=$2" ls -R "$1" / |
		grep -E '^(trace|per_cpu/cpu[0-9]+/trace)$' || true
	"$tdat" -o "index_dir=$2" cat "$1" /events/summary.tsv |
		awk -F'\t' 'NR > 1 && $4 > 0 { print $4 "\tevents/" $1 "/" $2 "/trace" }' |
		sort -rn | head -n 2 | cut -f2
}

# check_tools TRACE IDX: tdat cat with and without workers
check_tools() {
	local trace=$1 idx=$2 p n=0
	while IFS= read -r p; do
		n=$((n + 1))
		"$tdat" -o "index_dir=$idx,decode_threads=0" cat "$trace" "/$p" >"$tmp/off.$n"
		"$tdat" -o "index_dir=$idx,decode_threads=3" cat "$trace" "/$p" >"$tmp/on.$n"
		same_file "$trace /$p: tdat cat, 3 workers vs none" "$tmp/off.$n" "$tmp/on.$n"
	done < <(texts "$trace" "$idx")
}

# check_mount TRACE IDX: the texts through a mount with workers
check_mount() {
	local trace=$1 idx=$2 p n=0 size half
	start_mount "$tdatfs" "$trace" "$mnt" -o "index_dir=$idx,decode_threads=3"
	if grep -qx tdat-ahead /proc/"$daemon_pid"/task/*/comm; then
		fail "$trace: worker threads before any read"
	else
		ok
	fi
	# the kernel's readahead requests may be served out of order
	while IFS= read -r p; do
		n=$((n + 1))
		cat "$mnt/$p" >"$tmp/got"
		same_file "$trace /$p: cat through the mount" "$tmp/off.$n" "$tmp/got"
	done < <(texts "$trace" "$idx")
	# n=1 is the report
	# the workers started (and only now: at the first read they help),
	# for a text long enough to have a read after the first
	if [ "$(wc -c <"$tmp/off.1")" -gt $((1 << 20)) ]; then
		grep -qx tdat-ahead /proc/"$daemon_pid"/task/*/comm && ok ||
			fail "$trace: no worker thread (tdat-ahead) after the reads"
	fi
	for bs in 4096 100000; do
		dd if="$mnt/report" of="$tmp/got" bs=$bs iflag=direct status=none
		same_file "$trace /report: reads of $bs bytes (O_DIRECT)" "$tmp/off.1" "$tmp/got"
	done
	cat "$mnt/report" >"$tmp/got1" & local c1=$!
	cat "$mnt/report" >"$tmp/got2" & local c2=$!
	wait $c1 $c2
	same_file "$trace /report: the first of two cats at once" "$tmp/off.1" "$tmp/got1"
	same_file "$trace /report: the second of two cats at once" "$tmp/off.1" "$tmp/got2"
	size=$(wc -c <"$tmp/off.1")
	half=$((size / 2))
	dd if="$mnt/report" of="$tmp/got1" bs=65536 iflag=direct,skip_bytes \
		skip=$half status=none & c1=$!
	dd if="$mnt/report" of="$tmp/got2" bs=65536 iflag=direct status=none & c2=$!
	wait $c1 $c2
	tail -c +$((half + 1)) "$tmp/off.1" >"$tmp/want-half"
	same_file "$trace /report: a reader from the middle" "$tmp/want-half" "$tmp/got1"
	same_file "$trace /report: a reader from 0 beside it" "$tmp/off.1" "$tmp/got2"
	stop_mount "$mnt"
}

# check_trace KIND TRACE: all of the above, its index built first
check_trace() {
	local kind=$1 trace=$2 idx
	idx=$(mktemp -d "$tmp/idx.XXXX")
	"$tdat" -o "index_dir=$idx" index "$trace" >/dev/null 2>&1 ||
		{ fail "$trace: no index built"; return; }
	check_tools "$trace" "$idx"
	if [ "$kind" != self ]; then
		oracle_run report "$trace" >"$tmp/tc" 2>/dev/null
		same_file "$trace /report without workers vs trace-cmd report" "$tmp/tc" "$tmp/off.1"
	fi
	check_mount "$trace" "$idx"
}

first=
for arg in "$@"; do
	check_trace "${arg%%:*}" "${arg#*:}"
	first=${first:-${arg#*:}}
done

# Damaged variants with marker lines in their text.
mkdir "$tmp/dmg"
"$gen" "$first" "$tmp/dmg" >/dev/null
damaged=0
for v in "$tmp"/dmg/*chunk-*.dat; do
	m=$("$tdat" -o noindex cat "$v" /trace 2>/dev/null | grep -c '^\[tdatfs: ' || true)
	[ "${m:-0}" -gt 0 ] || continue
	damaged=$((damaged + 1))
	check_trace self "$v"
	[ "$damaged" -lt 3 ] || break
done
[ "$damaged" -gt 0 ] && ok || fail "no damaged variant of $first holds a marker line"

# Every event's view, more of them than the view streams kept.
idx=$tmp/idx-views
"$tdat" -o "index_dir=$idx" index "$views" >/dev/null 2>&1 || fail "$views: no index built"
"$tdat" -o "index_dir=$idx" cat "$views" /events/summary.tsv |
	awk -F'\t' 'NR > 1 && $4 > 0 { print "events/" $1 "/" $2 "/trace" }' >"$tmp/views"
nviews=$(wc -l <"$tmp/views")
[ "$nviews" -gt 64 ] && ok || fail "$views: $nviews views, not more than the 64 streams kept"
xargs -a "$tmp/views" "$tdat" -o "index_dir=$idx,decode_threads=0" cat "$views" >"$tmp/views-want"
start_mount "$tdatfs" "$views" "$mnt" -o "index_dir=$idx,decode_threads=3"
for round in 1 2; do
	(cd "$mnt" && xargs -a "$tmp/views" cat) >"$tmp/got"
	same_file "$views: every event's view through a mount, round $round" "$tmp/views-want" "$tmp/got"
done
stop_mount "$mnt"

# A long text: no workers with decode_threads=0, an interrupted reader, and
# the daemon stopped during a read.
idx=$tmp/idx-long
"$tdat" -o "index_dir=$idx" index "$long" >/dev/null 2>&1 || fail "$long: no index built"
"$tdat" -o "index_dir=$idx,decode_threads=0" cat "$long" /report >"$tmp/long-want"
start_mount "$tdatfs" "$long" "$mnt" -o "index_dir=$idx,decode_threads=0"
cat "$mnt/report" >"$tmp/got"
same_file "$long /report without workers" "$tmp/long-want" "$tmp/got"
if grep -qx tdat-ahead /proc/"$daemon_pid"/task/*/comm; then
	fail "worker threads with decode_threads=0"
else
	ok
fi
stop_mount "$mnt"
start_mount "$tdatfs" "$long" "$mnt" -o "index_dir=$idx,decode_threads=3"
cat "$mnt/report" >/dev/null & pid=$!
sleep 0.3
kill -KILL $pid 2>/dev/null || true
for _ in $(seq 1 50); do
	kill -0 $pid 2>/dev/null || break
	sleep 0.02
done
if kill -0 $pid 2>/dev/null; then fail "a killed reader is still there after 1 s"; else ok; fi
wait $pid 2>/dev/null || true
cat "$mnt/report" >"$tmp/got"
same_file "$long /report after an interrupted reader" "$tmp/long-want" "$tmp/got"
stop_mount "$mnt"

start_mount "$tdatfs" "$long" "$mnt" -o "index_dir=$idx,decode_threads=3"
cat "$mnt/report" >/dev/null 2>&1 & pid=$!
sleep 0.3
signal_daemon TERM 10 || fail "the daemon still runs 10 s after SIGTERM during a read"
[ "$daemon_rc" -eq 0 ] && ok || fail "the daemon exited $daemon_rc after SIGTERM during a read"
wait $pid 2>/dev/null || true
finish
