#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The views of SPEC 2.6 through a real mount (`tdatfs -f`, a new index
# directory, so the index is built before the mount), compared with
# `tdat cat` of the same paths (whose bytes the other views tests check
# against the buffer's text and trace-cmd):
#  - before anything is read, `stat -c %s` of every events/S/E/trace,
#    events/S/E/fields.tsv, events/summary.tsv (top buffer and instances)
#    and of a window's trace and per_cpu/cpuN/trace; then each file's
#    `wc -c` through the mount equals that first size, and all their bytes
#    equal tdat cat's;
#  - `tar -C MNT -cf - events/sched` (tar trusts st_size), extracted: every
#    file `cmp`s equal to the mount's and to tdat cat's bytes;
#  - `grep -c ' EVENT: '` of each event's trace is summary.tsv's records;
#  - `ls MNT/time` is README alone; `stat` of malformed window names fails
#    with ENOENT; a window directory lists trace, per_cpu,
#    timeline.svg and trace.pftrace;
#  - fusermount3 -u ends the daemon with status 0.
#   mount-views.sh TDAT TDATFS TRACE
# Skipped (77) only where TRACE (a trace of ../shared) or /dev/fuse is
# missing.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/../index/lib.sh"

tdat=$1 tdatfs=$2 trace=$3
name=$(basename "$trace")
need_trace "$trace"
need_fuse
index_setup    # $tmp, $mnt, XDG_CACHE_HOME in $tmp; all removed on exit
mkdir "$tmp/x"

# header_times < TEXT: the time column of every record's first line
header_times() {
	sed -nE 's/^.*-[0-9]+ +\[[0-9]+\] *([0-9]+(\.[0-9]+)?): [^ :]+:.*$/\1/p'
}

# ---- what to look at, from tdat -----------------------------------------
"$tdat" ls -R "$trace" / > "$tmp/all"
grep -E '^(instances/[^/]+/)?events/([^/]+/[^/]+/(trace|fields\.tsv)|summary\.tsv)$' \
	"$tmp/all" > "$tmp/views" || true
[ -s "$tmp/views" ] || fail "$name: tdat ls -R lists no events/*/*/trace, fields.tsv or summary.tsv"
"$tdat" cat "$trace" /trace | header_times > "$tmp/times"
first=$(head -n 1 "$tmp/times")
last=$(tail -n 1 "$tmp/times")
window=
if [ -n "$first" ] && [ "$first" != "$last" ]; then
	window=time/$first-$last
	echo "$window/trace" >> "$tmp/views"
	sed -nE 's|^(per_cpu/cpu[0-9]+)/trace$|'"$window"'/\1/trace|p' "$tmp/all" >> "$tmp/views"
fi
echo "$name: $(wc -l < "$tmp/views") view files${window:+, window $window}"

mount_log "$trace" "$mnt" "$tmp/log" -o "index_dir=$tmp/idx"

# ---- sizes from the first stat ---------------------------------------------
(cd "$mnt" && tr '\n' '\0' < "$tmp/views" | xargs -0 stat -c '%s') > "$tmp/stat" ||
	fail "$name: stat of a view file through the mount failed"

# ---- tar of events/sched, before anything there is read -------------------
if [ -d "$mnt/events/sched" ]; then
	tar -C "$mnt" -cf - events/sched | tar -C "$tmp/x" -xf - ||
		fail "$name: tar of events/sched"
	(cd "$tmp/x" && find events/sched -type f | LC_ALL=C sort) > "$tmp/tarred"
	grep -E '^events/sched/[^/]+/(trace|fields\.tsv|format|id)$' "$tmp/all" |
		LC_ALL=C sort > "$tmp/sched-files"
	grep -q . "$tmp/sched-files" || fail "$name: no files under events/sched"
	same_file "$name: files tar took from events/sched vs tdat ls -R" \
		"$tmp/sched-files" "$tmp/tarred"
	n=0
	while IFS= read -r f; do
		cmp -s "$tmp/x/$f" "$mnt/$f" || fail "$name: $f extracted by tar differs from the mount's"
		n=$((n + 1))
	done < "$tmp/tarred"
	(cd "$tmp/x" && tr '\n' '\0' < "$tmp/tarred" | xargs -0 cat) > "$tmp/tar-got"
	sed 's|^|/|' "$tmp/tarred" | tr '\n' '\0' | xargs -0 "$tdat" cat "$trace" > "$tmp/tar-want"
	same_file "$name: $n files of events/sched through tar vs tdat cat" \
		"$tmp/tar-want" "$tmp/tar-got"
else
	fail "$name: no events/sched through the mount"
fi

# ---- each view: wc -c is the first stat, bytes are tdat cat's -------------
paste -d '\t' "$tmp/views" "$tmp/stat" > "$tmp/sizes"
while IFS=$'\t' read -r f size; do
	got=$(wc -c < "$mnt/$f")
	[ "$got" = "$size" ] || fail "$name: $f: stat said $size bytes before any read, wc -c reads $got"
done < "$tmp/sizes"
ok
(cd "$mnt" && tr '\n' '\0' < "$tmp/views" | xargs -0 cat) > "$tmp/got"
sed 's|^|/|' "$tmp/views" | tr '\n' '\0' | xargs -0 "$tdat" cat "$trace" > "$tmp/want"
same_file "$name: $(wc -l < "$tmp/views") view files through the mount vs tdat cat" \
	"$tmp/want" "$tmp/got"

# ---- grep -c of each event's trace is summary.tsv's count ------------------
for s in $(grep -E '(^|/)events/summary\.tsv$' "$tmp/views"); do
	prefix=${s%events/summary.tsv}
	rows=0
	while IFS=$'\t' read -r sys ev _ records _; do
		rows=$((rows + 1))
		got=$(grep -c -F -- " $ev: " "$mnt/${prefix}events/$sys/$ev/trace" || true)
		[ "$got" = "$records" ] ||
			fail "$name: grep -c ' $ev: ' ${prefix}events/$sys/$ev/trace: $got, summary.tsv says $records"
	done < <(tail -n +2 "$mnt/$s")
	[ "$rows" -gt 0 ] && ok || fail "$name: $s has no rows"
done

# ---- time/ -------------------------------------------------------------------
got=$(ls -A "$mnt/time" | tr '\n' ' ')
[ "$got" = "README " ] && ok || fail "$name: ls time/ lists '$got', want README alone"
for bad in abc 5- -5 5-3 5-5 1.0000000001-2 ${window:+"$last-$first"}; do
	if err=$(stat "$mnt/time/$bad" 2>&1); then
		fail "$name: stat time/$bad succeeds, want ENOENT"
	elif grep -q 'No such file or directory' <<<"$err"; then
		ok
	else
		fail "$name: stat time/$bad: $err (want ENOENT)"
	fi
done
if [ -n "$window" ]; then
	got=$(ls "$mnt/$window" | tr '\n' ' ')
	[ "$got" = "per_cpu timeline.svg trace trace.pftrace " ] && ok ||
		fail "$name: ls $window lists '$got'"
	got=$(ls "$mnt/$window/per_cpu" | tr '\n' ' ')
	want=$(ls "$mnt/per_cpu" | tr '\n' ' ')
	[ "$got" = "$want" ] && ok || fail "$name: ls $window/per_cpu lists '$got', per_cpu '$want'"
fi

umount_log "$mnt"
finish
