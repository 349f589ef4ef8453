#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `-o noindex` keeps the streaming mode (tdatfs(1) INDEX):
# every decoded text has stat size 0 until it has been read to its end,
# a read gives the oracle's bytes, and afterwards the size is exact; files
# that are not decoded text have their exact size at once; no index file
# is read or written.
#   noindex.sh TDAT TDATFS TRACE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_fuse

tdat=$1
tdatfs=$2
trace=$3
name=$(basename "$trace")
index_setup
idx=$tmp/idx

"$tdat" -o noindex ls -lR "$trace" / | sed -nE 's/^- +([0-9]+) (.*)$/\2\t\1/p' > "$tmp/ls-sizes"
cut -f 1 "$tmp/ls-sizes" > "$tmp/files"
# The texts but errors (which is empty for a sound trace either way) and
# the views (events/SYSTEM/EVENT/, which need their buffer's text passed
# once whatever the mode, and so are exact at their first stat).
texts_of "$tmp/files" | grep -v 'errors$' > "$tmp/all-texts"
grep -v -E '(^|/)events/' "$tmp/all-texts" > "$tmp/texts"
grep -E '(^|/)events/' "$tmp/all-texts" | awk 'NR % 17 == 1' > "$tmp/views"
[ -s "$tmp/texts" ] || { fail "$name: no decoded text in the tree"; finish; }

mount_log "$trace" "$mnt" "$tmp/log" -o noindex -o index_dir="$idx"
while IFS= read -r f; do
	s=$(stat -c %s "$mnt/$f" 2>&1) || true
	[ "$s" = 0 ] && ok || fail "$name: -o noindex: /$f stat size $s before a read, want 0"
done < "$tmp/texts"
# Views: exact at their first stat, -o noindex too (a sample).
while IFS= read -r f; do
	s=$(stat -c %s "$mnt/$f" 2>&1) || true
	want=$(oracle "$trace" "/$f" | wc -c)
	[ "$s" = "$want" ] && ok || fail "$name: -o noindex: /$f (a view) stat size $s before a read, oracle $want"
done < "$tmp/views"
# Files that are not text: exact at once (a sample, and kallsyms).
for f in info kallsyms $(grep -v -E '(^|/)(trace|report|fields\.tsv|errors)$' "$tmp/files" | awk 'NR % 53 == 1'); do
	want=$(oracle "$trace" "/$f" | wc -c)
	s=$(stat -c %s "$mnt/$f" 2>&1) || true
	[ "$s" = "$want" ] && ok || fail "$name: -o noindex: /$f stat size $s, oracle $want"
done
while IFS= read -r f; do
	oracle "$trace" "/$f" > "$tmp/want"
	cat "$mnt/$f" > "$tmp/got"
	same_file "$name: -o noindex: /$f" "$tmp/want" "$tmp/got"
	s=$(stat -c %s "$mnt/$f" 2>&1) || true
	w=$(stat -c %s "$tmp/want")
	[ "$s" = "$w" ] && ok || fail "$name: -o noindex: /$f stat size $s after a full read, want $w"
done < "$tmp/texts"
umount_log "$mnt"
[ -z "$(index_files "$idx")" ] && ok ||
	fail "$name: -o noindex wrote into the index_dir: $(index_files "$idx")"
if grep -q 'index' "$tmp/log"; then
	fail "$name: -o noindex: tdatfs speaks of an index"
	show_log "tdatfs's stderr" "$tmp/log"
else
	ok
fi

# Nor is an index there used: one built before, then -o noindex.
"$tdat" index "$trace" > /dev/null 2>&1 || fail "$name: tdat index failed"
mount_log "$trace" "$mnt" "$tmp/log" -o noindex -o index_dir="$XDG_CACHE_HOME/tdatfs"
s=$(stat -c %s "$mnt/trace" 2>&1) || true
[ "$s" = 0 ] && ok || fail "$name: -o noindex with an index in index_dir: /trace stat size $s, want 0"
oracle "$trace" /trace > "$tmp/want"
cat "$mnt/trace" > "$tmp/got"
same_file "$name: -o noindex with an index in index_dir: /trace" "$tmp/want" "$tmp/got"
umount_log "$mnt"
finish
