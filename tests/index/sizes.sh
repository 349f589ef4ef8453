#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sizes section of the index (tdatfs(1) INDEX): each buffer's
# timeline.svg and trace.pftrace sized after the index, kept in its file.
#  - a first mount is ready with an index without them, then its
#    background thread adds them: `tdat index --check` comes to say
#    "sizes kept";
#  - a remount says "index loaded from PATH (S s, sizes kept)" and stat
#    gives, before any read, the sizes a mount with -o noindex gives, and
#    the bytes read are that many;
#  - a kept size forged one byte larger (its section's checksum and the
#    file's made right) is what stat says, and the read fails with EIO;
#  - a section whose own checksum is wrong is refused with a line naming
#    it and its byte offset; the sizes are made again (right) and the
#    section is written again;
#  - the remount's trace.pftrace is made from the layout the section
#    keeps (no pass): its bytes are those of -o noindex; a byte of the
#    layout's head forged shows at that offset, which says the layout was
#    taken; a layout whose slot count is forged is refused and the file
#    made by a pass, right; one whose unit is forged a byte longer fails
#    the read with EIO;
#  - a file of format version 5 is refused as such and built again;
#  - `tdat index` keeps them at once, and `tdat ls -l` gives them.
#   sizes.sh TDAT TDATFS TRACE FORGE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_fuse

tdat=$1
tdatfs=$2
trace=$3
forge=$4
name=$(basename "$trace")
index_setup
idx=$tmp/idx
py=/usr/bin/python3

# the buffers' directories: the root and each instance
dirs=.
for d in $("$tdat" -o noindex ls "$trace" /instances 2>/dev/null || true); do
	dirs="$dirs instances/$d"
done

# each_file CMD...: "PATH N" for every buffer's two files on $mnt, N
# what CMD prints for the file
each_file() {
	local d f
	for d in $dirs; do
		for f in timeline.svg trace.pftrace; do
			printf '%s/%s %s\n' "$d" "$f" "$("$@" "$mnt/$d/$f")"
		done
	done
}
stat_size() { stat -c %s "$1"; }
read_size() { wc -c < "$1"; }
# sizes_of: their stat sizes; bytes_of: the bytes a read gives
sizes_of() { each_file stat_size; }
bytes_of() { each_file read_size; }

# ---- the sizes without an index --------------------------------------------

mount_log "$trace" "$mnt" "$tmp/log0" -o noindex
sizes_of > "$tmp/want"
bytes_of > "$tmp/read0"
umount_log "$mnt"
same_file "$name: -o noindex: stat sizes against the bytes read" "$tmp/want" "$tmp/read0"
[ "$(wc -l < "$tmp/want")" -ge 2 ] && ok || fail "$name: no buffer directory"

# ---- the first mount adds them once ready ----------------------------------

mount_log "$trace" "$mnt" "$tmp/log1" -o index_dir="$idx"
if grep -qE "index built in [0-9.]+ s, kept in " "$tmp/log1"; then ok; else
	fail "$name: first mount: no 'index built ..., kept in' line"
	show_log "tdatfs's stderr" "$tmp/log1"
fi
wait_sizes "$trace" "$idx" "first mount"
umount_log "$mnt"
file=$(index_files "$idx")
[ "$(echo "$file" | wc -l)" = 1 ] && ok || fail "$name: want one index file, found: $file"
good=$tmp/good.tdatidx
cp "$file" "$good"
read -r at count < <("$py" "$forge" sizes-at "$good")
nb=$(echo $dirs | wc -w)
[ "$count" = "$nb" ] && ok || fail "$name: the sizes section has $count entries, not $nb"

# ---- a remount uses them -----------------------------------------------------

before=$(stat -c '%i %.9Y' "$file")
mount_log "$trace" "$mnt" "$tmp/log2" -o index_dir="$idx"
if grep -qE "index loaded from .* \([0-9.]+ s, sizes kept\)" "$tmp/log2"; then ok; else
	fail "$name: remount: no 'index loaded from PATH (S s, sizes kept)' line"
	show_log "tdatfs's stderr" "$tmp/log2"
fi
sizes_of > "$tmp/got2"
bytes_of > "$tmp/read2"
umount_log "$mnt"
same_file "$name: remount: stat sizes before any read" "$tmp/want" "$tmp/got2"
same_file "$name: remount: bytes read" "$tmp/want" "$tmp/read2"
[ "$(stat -c '%i %.9Y' "$file")" = "$before" ] && ok ||
	fail "$name: remount: an index with its sizes was written again"

# ---- the remount's trace.pftrace from the kept layout -----------------------

"$tdat" -o noindex cat "$trace" trace.pftrace > "$tmp/pf.want"
# mnt_pf TAG: the root's trace.pftrace read through a fresh mount of $file
mnt_pf() {
	mount_log "$trace" "$mnt" "$tmp/log-$1" -o index_dir="$idx"
	local rc=0
	cat "$mnt/trace.pftrace" > "$tmp/pf.$1" 2> "$tmp/err-$1" || rc=$?
	echo "$rc" > "$tmp/rc-$1"
	umount_log "$mnt"
}
mnt_pf kept
same_file "$name: remount: trace.pftrace from the kept layout" "$tmp/pf.want" "$tmp/pf.kept"

off=$("$py" "$forge" layout "$good" "$file" 0 head)
mnt_pf head
cmp "$tmp/pf.want" "$tmp/pf.head" > "$tmp/cmp-head" 2>&1 || true
if grep -q "differ: byte $((off + 1))," "$tmp/cmp-head" &&
	[ "$(cmp -l "$tmp/pf.want" "$tmp/pf.head" | wc -l)" = 1 ]; then ok; else
	fail "$name: layout's head forged at $off: not taken ($(cat "$tmp/cmp-head"))"
fi

"$py" "$forge" layout "$good" "$file" 0 slots > /dev/null
mnt_pf slots
same_file "$name: layout's slot count forged: refused, made by a pass" "$tmp/pf.want" "$tmp/pf.slots"

off=$("$py" "$forge" layout "$good" "$file" 0 unit)
mnt_pf unit
if [ "$(cat "$tmp/rc-unit")" != 0 ] && grep -q "Input/output error" "$tmp/err-unit"; then ok; else
	fail "$name: layout's unit at $off forged a byte longer: read exit $(cat "$tmp/rc-unit"): $(cat "$tmp/err-unit")"
fi
# what was read before the failed read: the right bytes, none of the unit
got=$(stat -c %s "$tmp/pf.unit")
[ "$got" -le "$off" ] && cmp -s <(head -c "$got" "$tmp/pf.want") "$tmp/pf.unit" && ok ||
	fail "$name: layout's unit forged at $off: the $got bytes read before it differ"

# ---- a kept size forged: stat says it, the read fails with EIO -------------

"$py" "$forge" sizes "$good" "$file" 0 2 1
mount_log "$trace" "$mnt" "$tmp/log3" -o index_dir="$idx"
want=$(awk '$1 == "./trace.pftrace" { print $2 + 1 }' "$tmp/want")
got=$(stat -c %s "$mnt/trace.pftrace")
[ "$got" = "$want" ] && ok || fail "$name: forged size: stat $got, want the forged $want"
if cat "$mnt/trace.pftrace" > /dev/null 2> "$tmp/err3"; then
	fail "$name: forged size: trace.pftrace read whole"
elif grep -q "Input/output error" "$tmp/err3"; then ok; else
	fail "$name: forged size: the read failed otherwise: $(cat "$tmp/err3")"
fi
umount_log "$mnt"

# ---- a section refused: said with its offset, made again -------------------

"$py" "$forge" sizes-crc "$good" "$file"
mount_log "$trace" "$mnt" "$tmp/log4" -o index_dir="$idx"
if grep -qF "bad checksum of the sizes section at byte $at; the sizes are made again" "$tmp/log4"; then ok; else
	fail "$name: section refused: no line naming it at byte $at"
	show_log "tdatfs's stderr" "$tmp/log4"
fi
grep -q "index loaded from" "$tmp/log4" && ok || fail "$name: section refused: the rest of the index was not used"
sizes_of > "$tmp/got4"
same_file "$name: section refused: stat sizes" "$tmp/want" "$tmp/got4"
wait_sizes "$trace" "$idx" "section refused"
umount_log "$mnt"

# ---- an index of the format before the layouts ------------------------------

"$py" "$forge" set "$good" "$file" 4:8:5
mount_log "$trace" "$mnt" "$tmp/log5" -o index_dir="$idx"
if grep -qF "not used: another format version (5); building it again" "$tmp/log5"; then ok; else
	fail "$name: format 5: not refused as another format version"
	show_log "tdatfs's stderr" "$tmp/log5"
fi
sizes_of > "$tmp/got5"
same_file "$name: format 5: stat sizes" "$tmp/want" "$tmp/got5"
umount_log "$mnt"

# ---- tdat index keeps them at once -----------------------------------------

"$tdat" -o index_dir="$tmp/idx2" index "$trace" > "$tmp/out6"
grep -q ', sizes kept$' "$tmp/out6" && ok || fail "$name: tdat index: $(cat "$tmp/out6")"
for d in $dirs; do
	"$tdat" -o index_dir="$tmp/idx2" ls -l "$trace" "/$d" |
		awk -v d="$d" '$3 == "timeline.svg" || $3 == "trace.pftrace" { print d "/" $3, $2 }'
done > "$tmp/got6"
same_file "$name: tdat ls -l with the sizes kept" "$tmp/want" "$tmp/got6"

finish
