#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A remount does not rebuild the index (tdatfs(1) INDEX):
#  - the first mount with a new index_dir says "index built ..., kept in
#    PATH" and leaves one file there (no temporary);
#  - the first mount's thread adds the sizes of timeline.svg and
#    trace.pftrace to that file (sizes.sh tests them);
#  - the second says "index loaded from PATH", leaves that file as it was
#    (same inode and mtime: not written again) and its texts have their
#    exact sizes at once, before any read;
#  - `tdat index TRACE` twice: "PATH: built in S s", then "PATH: loaded";
#    `tdat index --check` exits 0; `tdat ls -l` shows the exact sizes; a
#    mount given tdat's index directory loads tdat's file.
#  - a mount whose kept file was damaged (a byte flipped, cut short) or
#    is of another trace (one touched since) refuses it as the daemon
#    reads it ahead, on a thread of its own, while it opens the trace:
#    "index PATH not used: REASON; building it again", exact sizes;
#   remount.sh TDAT TDATFS TRACE
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

"$tdat" -o noindex ls -lR "$trace" / | sed -nE 's/^- +[0-9]+ (.*)$/\1/p' > "$tmp/files"
texts_of "$tmp/files" > "$tmp/texts"
[ -s "$tmp/texts" ] || { fail "$name: no decoded text in the tree"; finish; }
while IFS= read -r f; do
	printf '%s\t%s\n' "$f" "$(oracle "$trace" "/$f" | wc -c)"
done < "$tmp/texts" > "$tmp/want-sizes"

# exact_sizes WHAT: every text's stat size on $mnt is the oracle's
exact_sizes() {
	local f want got
	while IFS=$'\t' read -r f want; do
		got=$(stat -c %s "$mnt/$f" 2>&1) || true
		if [ "$got" = "$want" ]; then ok; else
			fail "$name: $1: /$f: stat size $got before any read, oracle $want"
		fi
	done < "$tmp/want-sizes"
}

# the_file DIR WHAT: set found to the one index file in DIR, or fail
the_file() {
	index_files "$1" > "$tmp/in-dir"
	found=
	if [ "$(wc -l < "$tmp/in-dir")" = 1 ] && grep -q '\.tdatidx$' "$tmp/in-dir"; then
		ok
		found=$(cat "$tmp/in-dir")
	else
		fail "$name: $2: want one *.tdatidx file in $1, found: $(tr '\n' ' ' < "$tmp/in-dir")"
	fi
}

# ---- tdatfs: mount, unmount, mount again ----------------------------------

mount_log "$trace" "$mnt" "$tmp/log1" -o index_dir="$idx"
exact_sizes "first mount"
# its thread adds the sizes of timeline.svg and trace.pftrace to the file
# once the mount is ready: the second mount must find nothing to write
wait_sizes "$trace" "$idx" "first mount"
umount_log "$mnt"
the_file "$idx" "after the first mount"
file=$found
if grep -qE "^tdatfs: .*: index built in [0-9.]+ s, kept in " "$tmp/log1"; then ok; else
	fail "$name: first mount: no 'tdatfs: TRACE: index built in S s, kept in PATH' line"
	show_log "tdatfs's stderr" "$tmp/log1"
fi
if [ -n "$file" ] && grep -qF "kept in $file" "$tmp/log1"; then ok; else
	fail "$name: first mount: the log does not name the file left in $idx ($file)"
fi
[ -n "$file" ] || finish
before=$(stat -c '%i %.9Y %s' "$file")

sleep 1.1 # a file written again would have another mtime, even in seconds
mount_log "$trace" "$mnt" "$tmp/log2" -o index_dir="$idx"
exact_sizes "second mount (index loaded)"
umount_log "$mnt"
after=$(stat -c '%i %.9Y %s' "$file" 2>/dev/null || echo missing)
if [ "$before" = "$after" ]; then ok; else
	fail "$name: second mount: the index file changed (inode mtime size: $before, now $after): it was built again"
fi
if grep -qF "index loaded from $file" "$tmp/log2" &&
   ! grep -q 'index built' "$tmp/log2"; then
	ok
else
	fail "$name: second mount: want 'tdatfs: TRACE: index loaded from $file (...)' and no build"
	show_log "tdatfs's stderr" "$tmp/log2"
fi
if [ "$(grep -c . "$tmp/log2")" = 1 ]; then ok; else
	fail "$name: second mount: want one line on stderr, got $(grep -c . "$tmp/log2")"
	show_log "tdatfs's stderr" "$tmp/log2"
fi
the_file "$idx" "after the second mount"

# ---- tdatfs: a kept file damaged, or of another trace ----------------------

# refused_by_mount WHAT TRACE: mount TRACE on $idx, want the file refused and rebuilt
refused_by_mount() {
	mount_log "$2" "$mnt" "$tmp/logd" -o index_dir="$idx"
	exact_sizes "mount of $1"
	umount_log "$mnt"
	if grep -qE "^tdatfs: .*: index .* not used: .*; building it again$" "$tmp/logd" &&
	   grep -qE "^tdatfs: .*: index built in [0-9.]+ s, kept in " "$tmp/logd"; then
		ok
	else
		fail "$name: mount of $1: want 'index PATH not used: REASON; building it again' and a build"
		show_log "tdatfs's stderr" "$tmp/logd"
	fi
}
# flip AT: add 1 to the byte at offset AT of $file
flip() {
	local byte
	byte=$(od -An -tu1 -j "$1" -N1 "$file" | tr -d ' ')
	printf "$(printf '\\%03o' $(((byte + 1) % 256)))" |
		dd of="$file" bs=1 seek="$1" conv=notrunc status=none
}
size=$(stat -c %s "$file")
cp "$file" "$tmp/kept"
flip $((size / 2))
refused_by_mount "an index file with a byte flipped" "$trace"
cp "$tmp/kept" "$file"
flip $((size - 1)) # only the checksum says so
refused_by_mount "an index file with its checksum changed" "$trace"
cp "$tmp/kept" "$file"
truncate -s $((size - 1)) "$file"
refused_by_mount "an index file cut short" "$trace"
# A copy of the trace, indexed, then touched: same bytes, other mtime.
file_dir=$idx
idx=$tmp/idx-copy
cp "$trace" "$tmp/$name"
mount_log "$tmp/$name" "$mnt" "$tmp/logc" -o index_dir="$idx"
umount_log "$mnt"
touch -d '2001-01-01' "$tmp/$name"
refused_by_mount "the index of a trace touched since" "$tmp/$name"
idx=$file_dir

# ---- tdat index, twice, in tdat's default directory -----------------------

tdat_dir=$XDG_CACHE_HOME/tdatfs
rc=0
"$tdat" index "$trace" > "$tmp/ti1" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -qE ': built in [0-9.]+ s' "$tmp/ti1"; then ok; else
	fail "$name: first tdat index: status $rc, want 'PATH: built in S s'"
	show_log "its output" "$tmp/ti1"
fi
the_file "$tdat_dir" "after tdat index"
tfile=$found
if [ -n "$tfile" ] && grep -qF "$tfile: built in" "$tmp/ti1"; then ok; else
	fail "$name: tdat index does not print the path of the file it wrote ($tfile)"
fi
[ -n "$tfile" ] || finish
tbefore=$(stat -c '%i %.9Y %s' "$tfile")
sleep 1.1
rc=0
"$tdat" index "$trace" > "$tmp/ti2" 2>&1 || rc=$?
if [ "$rc" -eq 0 ] && grep -q "^$tfile: loaded\( \|$\)" "$tmp/ti2" && ! grep -q built "$tmp/ti2"; then
	ok
else
	fail "$name: second tdat index: status $rc, want '$tfile: loaded ...' and no build"
	show_log "its output" "$tmp/ti2"
fi
tafter=$(stat -c '%i %.9Y %s' "$tfile" 2>/dev/null || echo missing)
[ "$tbefore" = "$tafter" ] && ok ||
	fail "$name: second tdat index changed the file ($tbefore, now $tafter)"
rc=0
"$tdat" index --check "$trace" > "$tmp/tc" 2>&1 || rc=$?
[ "$rc" -eq 0 ] && ok || { fail "$name: tdat index --check of a fresh index: status $rc"; show_log output "$tmp/tc"; }

# tdat ls -l through the index: the exact sizes.
while IFS=$'\t' read -r f want; do
	got=$({ "$tdat" ls -l "$trace" "/$f" || true; } | sed -nE 's/^- +([0-9]+) .*$/\1/p' | head -n 1)
	[ "$got" = "$want" ] && ok || fail "$name: tdat ls -l /$f: '$got', oracle $want"
done < "$tmp/want-sizes"

# A mount given tdat's directory loads tdat's file, and does not write it.
mount_log "$trace" "$mnt" "$tmp/log3" -o index_dir="$tdat_dir"
exact_sizes "mount of tdat's index"
cat "$mnt/trace" > "$tmp/got"
oracle "$trace" /trace > "$tmp/want"
same_file "$name: /trace, mount of tdat's index" "$tmp/want" "$tmp/got"
umount_log "$mnt"
if grep -qF "index loaded from $tfile" "$tmp/log3"; then ok; else
	fail "$name: a mount with tdat's index directory did not load tdat's file $tfile"
	show_log "tdatfs's stderr" "$tmp/log3"
fi
tafter=$(stat -c '%i %.9Y %s' "$tfile" 2>/dev/null || echo missing)
[ "$tbefore" = "$tafter" ] && ok ||
	fail "$name: the mount changed tdat's index file ($tbefore, now $tafter)"
finish
