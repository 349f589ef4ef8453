#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# timeline.svg through a real mount (`tdatfs -f`, a new index directory):
#  - `ls` shows timeline.svg at the root of every buffer (MNT/, every
#    MNT/instances/NAME/) and in a window directory (time/T0-T1/, T0 the
#    buffer's first record time, T1 its last, as the text prints them),
#    and not in the window's per_cpu/cpuN/ (stat there: ENOENT);
#  - before anything is read, `stat -c %s` of each of those timeline.svg
#    files; then `wc -c` through the mount reads exactly that many bytes,
#    and the bytes equal `tdat cat`'s of the same path (whose picture
#    check.py checks against the records);
#  - a malformed window's timeline.svg (time/abc/, time/T1-T0/) is ENOENT;
#  - fusermount3 -u ends the daemon with status 0.
#   mount.sh TDAT TDATFS TRACE
# Skipped (77) only where /dev/fuse is missing.
tdat=$1 tdatfs=$2 trace=$3 name=$(basename "$3")
for lib in lib/common.sh lib/mount.sh index/lib.sh; do
	. "$(dirname "$0")/../$lib"
done
need_fuse
index_setup    # $tmp, $mnt, XDG_CACHE_HOME in $tmp; all removed on exit

# header_times < TEXT: the time column of every record's first line
header_times() {
	sed -nE 's/^.*-[0-9]+ +\[[0-9]+\] *([0-9]+(\.[0-9]+)?): [^ :]+:.*$/\1/p'
}

# ---- what to look at, from tdat ---------------------------------------------
: > "$tmp/files"
: > "$tmp/windows"
prefixes=("")
while IFS= read -r inst; do
	prefixes+=("instances/$inst/")
done < <("$tdat" ls "$trace" /instances 2>/dev/null || true)
for p in "${prefixes[@]}"; do
	echo "${p}timeline.svg" >> "$tmp/files"
	"$tdat" cat "$trace" "/${p}trace" | header_times > "$tmp/times"
	first=$(head -n 1 "$tmp/times")
	last=$(tail -n 1 "$tmp/times")
	if [ -n "$first" ] && [ "$first" != "$last" ]; then
		echo "${p}time/$first-$last/timeline.svg" >> "$tmp/files"
		echo "${p}time/$first-$last $last-$first" >> "$tmp/windows"
	fi
done
grep -q '^time/' "$tmp/files" || fail "$name: the top buffer has no two record times for a window"
echo "$name: $(wc -l < "$tmp/files") timeline.svg files: $(tr '\n' ' ' < "$tmp/files")"

mount_log "$trace" "$mnt" "$tmp/log" -o "index_dir=$tmp/idx"

# ---- sizes at the first stat, before any read ---------------------------------
(cd "$mnt" && tr '\n' '\0' < "$tmp/files" | xargs -0 stat -c '%s') > "$tmp/stat" ||
	fail "$name: stat of a timeline.svg through the mount failed"

# ---- listed where the contract puts it, and only there -------------------------
for p in "${prefixes[@]}"; do
	ls -A "$mnt/${p:-.}" | grep -qx 'timeline.svg' && ok ||
		fail "$name: ls ${p:-MNT/} does not list timeline.svg"
done
while read -r win bad; do
	ls -A "$mnt/$win" | grep -qx 'timeline.svg' && ok ||
		fail "$name: ls $win lists '$(ls -A "$mnt/$win" | tr '\n' ' ')', no timeline.svg"
	cpu=$(ls "$mnt/$win/per_cpu" | head -n 1)
	if [ -n "$cpu" ]; then
		if ls -A "$mnt/$win/per_cpu/$cpu" | grep -qx 'timeline.svg'; then
			fail "$name: ls $win/per_cpu/$cpu lists timeline.svg (not in a CPU's window)"
		else
			ok
		fi
		err=$(stat "$mnt/$win/per_cpu/$cpu/timeline.svg" 2>&1) &&
			fail "$name: stat $win/per_cpu/$cpu/timeline.svg succeeds, want ENOENT" ||
			{ grep -q 'No such file or directory' <<<"$err" && ok ||
				fail "$name: stat $win/per_cpu/$cpu/timeline.svg: $err (want ENOENT)"; }
	else
		fail "$name: ls $win/per_cpu lists no CPU"
	fi
	tdir=${win%/*}
	for b in abc "$bad"; do
		err=$(stat "$mnt/$tdir/$b/timeline.svg" 2>&1) &&
			fail "$name: stat $tdir/$b/timeline.svg succeeds, want ENOENT" ||
			{ grep -q 'No such file or directory' <<<"$err" && ok ||
				fail "$name: stat $tdir/$b/timeline.svg: $err (want ENOENT)"; }
	done
done < "$tmp/windows"

# ---- each file: wc -c is the first stat, bytes are tdat cat's -----------------
paste -d '\t' "$tmp/files" "$tmp/stat" > "$tmp/sizes"
while IFS=$'\t' read -r f size; do
	got=$(wc -c < "$mnt/$f")
	if [ "$got" = "$size" ] && [ "$size" -gt 0 ]; then
		ok
	else
		fail "$name: $f: stat said $size bytes before any read, wc -c reads $got"
	fi
	cat "$mnt/$f" > "$tmp/got"
	"$tdat" cat "$trace" "/$f" > "$tmp/want" ||
		fail "$name: tdat cat $f failed"
	same_file "$name: $f through the mount vs tdat cat" "$tmp/want" "$tmp/got"
done < "$tmp/sizes"

umount_log "$mnt"
finish
