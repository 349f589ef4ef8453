#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Mount TRACE with `tdatfs -f`, and check that every file read through the
# mount equals what `tdat cat` gives, that the tree lists the same entries as
# `tdat ls -R`, that modes, sizes and mtime are as promised, and that writes
# fail with EROFS; then unmount and require exit status 0.
#   mount-compare.sh TDAT TDATFS TRACE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
need_fuse

tdat=$1
tdatfs=$2
trace=$3
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$tmp"' EXIT

start_mount "$tdatfs" "$trace" "$mnt"

# The report (every buffer merged): its exact size from the first stat
# (the index), the same after a read; a read at an offset gives the same
# bytes.
if [ -e "$mnt/report" ]; then
	"$tdat" cat "$trace" /report > "$tmp/report-want"
	[ "$(stat -c %s "$mnt/report")" = "$(wc -c < "$tmp/report-want")" ] && ok ||
		fail "report: stat size before a read"
	cat "$mnt/report" > "$tmp/report-got"
	same_file "$trace: /report through the mount vs tdat cat" "$tmp/report-want" "$tmp/report-got"
	[ "$(stat -c %s "$mnt/report")" = "$(wc -c < "$tmp/report-want")" ] && ok ||
		fail "report: stat size after a read"
	skip=$(( $(wc -c < "$tmp/report-want") / 3 ))
	dd if="$mnt/report" iflag=skip_bytes,count_bytes bs=4096 skip="$skip" count=4096 \
		status=none > "$tmp/report-got"
	dd if="$tmp/report-want" iflag=skip_bytes,count_bytes bs=4096 skip="$skip" count=4096 \
		status=none > "$tmp/report-part"
	same_file "$trace: /report at offset $skip" "$tmp/report-part" "$tmp/report-got"
else
	fail "$trace: no /report"
fi

# The same entries, files and directories alike.
(cd "$mnt" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort) > "$tmp/find"
"$tdat" ls -R "$trace" / | LC_ALL=C sort > "$tmp/ls"
same_file "$trace: entries through the mount vs tdat ls -R" "$tmp/ls" "$tmp/find"

# Every file's bytes: one stream of all files in one order, plus the size of
# each, so that a difference in any one file shows.
(cd "$mnt" && find . -type f -printf '%P\n' | LC_ALL=C sort) > "$tmp/files"
(cd "$mnt" && tr '\n' '\0' < "$tmp/files" | xargs -0 cat) > "$tmp/got"
sed 's|^|/|' "$tmp/files" | tr '\n' '\0' | xargs -0 "$tdat" cat "$trace" > "$tmp/want"
same_file "$trace: $(wc -l < "$tmp/files") files read through the mount vs tdat cat" "$tmp/want" "$tmp/got"
while IFS= read -r f; do
	a=$(wc -c < "$mnt/$f")
	b=$("$tdat" cat "$trace" "/$f" | wc -c)
	[ "$a" = "$b" ] || fail "$f: $a bytes through the mount, $b from tdat cat"
done < <(grep -v -E '(^|/)(trace|trace_pipe_raw|cpu[0-9]+)$' "$tmp/files" | awk 'NR % 97 == 1')
ok

# Modes and times.
bad=$(cd "$mnt" && find . \( -type f ! -perm 0444 \) -o \( -type d ! -perm 0555 \) | head -5)
[ -z "$bad" ] && ok || fail "wrong modes: $bad"
want_mtime=$(stat -c %Y "$trace")
got_mtime=$(stat -c %Y "$mnt/info")
[ "$want_mtime" = "$got_mtime" ] && ok || fail "mtime of info $got_mtime, trace file $want_mtime"
# A metadata file's stat size is its exact size.
[ "$(stat -c %s "$mnt/kallsyms")" = "$(wc -c < "$mnt/kallsyms")" ] && ok || fail "kallsyms stat size"

# Read-only: every kind of write fails with EROFS.
erofs() {
	local what=$1; shift
	local err
	if err=$("$@" 2>&1); then
		fail "$what succeeded on a read-only mount"
	elif grep -q 'Read-only file system' <<<"$err"; then
		ok
	else
		fail "$what: want EROFS, got: $err"
	fi
}
erofs "create" touch "$mnt/newfile"
erofs "write" sh -c ": > '$mnt/info'"
erofs "append" sh -c "echo x >> '$mnt/kallsyms'"
erofs "mkdir" mkdir "$mnt/newdir"
erofs "unlink" rm -f "$mnt/info"
erofs "rename" mv "$mnt/info" "$mnt/info2"
erofs "chmod" chmod 0777 "$mnt/info"
erofs "truncate" truncate -s 0 "$mnt/info"

stop_mount "$mnt"
mountpoint -q "$mnt" && fail "still mounted after fusermount3 -u" || ok
finish
