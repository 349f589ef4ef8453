#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A remount makes the CPU streams from the chunk tables its index kept
# (tdatfs(1) INDEX), so it reads no chunk header across the trace, and a
# table that no longer is the file's shows as damage, never as other bytes.
# On a copy of TRACE (compressed), indexed by a first mount, whose bytes are
# then changed in place with its size, inode and mtime kept, and its index
# file forged to match (the ctime and data sample checksum it keeps set
# to the changed copy's, by IDENTITY and forge-index.py: what a change
# the identity cannot see would leave), one change of each of two kinds
# (GEN, gen-damaged):
#  - a flipped chunk count: `tdat -o noindex check` (headers read) finds
#    the damage, but the remount reads no count: errors stays empty and
#    /trace and every trace_pipe_raw are the original's bytes;
#  - a flipped compressed size in a chunk header: the remount finds that
#    chunk's header unlike its kept table when it decompresses it; errors
#    has one line for that chunk, at that header's offset, and the CPU's
#    trace_pipe_raw gives the original's bytes up to the chunk, then EIO.
# Either way the index file is loaded, not built again (its bytes stay).
#   chunk-tables.sh GEN TDAT TDATFS IDENTITY TRACE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_fuse

gen=$1
tdat=$2
tdatfs=$3
identity=$4
trace=$5
name=$(basename "$trace")
index_setup
idx=$tmp/idx
copy=$tmp/t.dat

mkdir "$tmp/v"
"$gen" "$trace" "$tmp/v" > "$tmp/variants"
count_v=$(awk '$2 == "flip" && $3 == "chunk-count:" { print $1; exit }' "$tmp/variants")
csize_v=$(awk '$2 == "flip" && $3 == "chunk-csize:" { print $1; exit }' "$tmp/variants")
csize_at=$(awk '$2 == "flip" && $3 == "chunk-csize:" { print $NF; exit }' "$tmp/variants")
if [ -z "$count_v" ] || [ -z "$csize_v" ]; then
	fail "$name: gen-damaged made no chunk-count or chunk-csize variant (not compressed?)"
	finish
fi

"$tdat" -o noindex ls "$trace" /per_cpu | sed 's|^|/per_cpu/|; s|$|/trace_pipe_raw|' > "$tmp/raws"
oracle "$trace" /trace > "$tmp/want-trace"
n=0
while IFS= read -r r; do
	n=$((n + 1))
	oracle "$trace" "$r" > "$tmp/want-raw$n"
done < "$tmp/raws"

# index_copy: a fresh copy of TRACE and its index, built by a first mount
# and kept with its sizes
index_copy() {
	rm -rf "$idx"
	cp "$trace" "$copy"
	mount_log "$copy" "$mnt" "$tmp/log1" -o "index_dir=$idx"
	cmp -s "$mnt/trace" "$tmp/want-trace" && ok || fail "$name: first mount: /trace differs"
	# the sizes come on a thread after the mount is ready; unmounted
	# before, the remount would add them and so rewrite the index file
	wait_sizes "$copy" "$idx" "first mount"
	umount_log "$mnt"
	touch -r "$copy" "$tmp/mtime"
	index_files "$idx" | xargs cksum > "$tmp/idx-sum"
}

# change_in_place VARIANT: the copy takes VARIANT's bytes, same inode and mtime
change_in_place() {
	local ino
	ino=$(stat -c %i "$copy")
	dd if="$tmp/v/$1" of="$copy" conv=notrunc status=none
	touch -r "$tmp/mtime" "$copy"
	[ "$(stat -c %i "$copy")" = "$ino" ] || fail "$name: the copy changed inode"
	rebind
	if "$tdat" -o noindex check "$copy" > /dev/null 2>&1; then
		fail "$name: $1: tdat check finds no damage with its headers read"
	else
		ok
	fi
}

# rebind: the index file forged to the changed copy's ctime and data sample
rebind() {
	local ctime sample file
	read -r ctime sample < <("$identity" "$copy")
	file=$(index_files "$idx")
	python3 "$here/forge-index.py" set "$file" "$file" "8:96:$ctime" "4:108:$sample"
	index_files "$idx" | xargs cksum > "$tmp/idx-sum"
}

# same_index WHAT: the index file was loaded, not written again
same_index() {
	if index_files "$idx" | xargs cksum | cmp -s - "$tmp/idx-sum"; then ok; else
		fail "$name: $1: the index file changed (built again?)"
		show_log "the mount's stderr" "$tmp/log2"
	fi
}

# ---- a chunk count the remount does not read ---------------------------
index_copy
change_in_place "$count_v"
mount_log "$copy" "$mnt" "$tmp/log2" -o "index_dir=$idx"
if [ -s "$mnt/errors" ]; then
	fail "$name: $count_v: errors after a remount: $(head -2 "$mnt/errors")"
else
	ok
fi
same_file "$name: $count_v: /trace" "$tmp/want-trace" "$mnt/trace"
n=0
while IFS= read -r r; do
	n=$((n + 1))
	same_file "$name: $count_v: $r" "$tmp/want-raw$n" "$mnt$r"
done < "$tmp/raws"
umount_log "$mnt"
same_index "$count_v"

# ---- a chunk header unlike its kept table ------------------------------
index_copy
change_in_place "$csize_v"
mount_log "$copy" "$mnt" "$tmp/log2" -o "index_dir=$idx"
n=0 damaged=
while IFS= read -r r; do
	n=$((n + 1))
	rc=0
	cat "$mnt$r" > "$tmp/got" 2> "$tmp/err" || rc=$?
	if [ "$rc" = 0 ]; then
		same_file "$name: $csize_v: $r" "$tmp/want-raw$n" "$tmp/got"
		continue
	fi
	damaged="$damaged $r"
	grep -q "Input/output error" "$tmp/err" && ok ||
		fail "$name: $csize_v: $r fails otherwise than with EIO: $(cat "$tmp/err")"
	# the bytes before the damaged chunk are the original's
	head -c "$(stat -c %s "$tmp/got")" "$tmp/want-raw$n" | cmp -s - "$tmp/got" && ok ||
		fail "$name: $csize_v: $r: the bytes before the damage differ"
done < "$tmp/raws"
[ "$(echo "$damaged" | wc -w)" = 1 ] && ok ||
	fail "$name: $csize_v: want one trace_pipe_raw damaged, got:${damaged:- none}"
if [ "$(wc -l < "$mnt/errors")" = 1 ] &&
   grep -qE "^chunk [0-9]+ of buffer .* cpu[0-9]+ .*: file offset $csize_at," "$mnt/errors"; then
	ok
else
	fail "$name: $csize_v: errors should name the chunk at offset $csize_at: $(cat "$mnt/errors")"
fi
start=$(sed -nE 's/.*trace_pipe_raw bytes ([0-9]+)-.*/\1/p' "$mnt/errors")
damaged=${damaged# }
got=$( (cat "$mnt$damaged" 2>/dev/null || true) | wc -c)
[ "$got" = "$start" ] && ok ||
	fail "$name: $csize_v: $damaged gave $got bytes before EIO, errors says the damage starts at ${start:-?}"
umount_log "$mnt"
same_index "$csize_v"

finish
