#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A damaged trace with the index on (tdatfs(1) INDEX, DAMAGED TRACES): the
# damage found while indexing is in errors from the start, and the index
# is kept in memory only, so that it is found again on every mount.  For
# the damaged variants of TRACE (GEN, tests/damaged's gen-damaged) that
# open and whose damage `tdat check` lists, one of each kind of change:
#  - the mount's -f line says the index is in memory only; no file is
#    left in the index_dir;
#  - `[ -s errors ]` holds at the first stat, and errors' stat size is the
#    number of bytes a read of it gives (what was found so far: all of it);
#  - every text's stat size before a read is the number of bytes a read
#    gives on a -o noindex mount (the streaming mode), and /trace has the
#    very bytes of `tdat -o noindex cat`.
#   damaged-trace.sh GEN TDAT TDATFS TRACE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_fuse

gen=$1
tdat=$2
tdatfs=$3
trace=$4
index_setup
mkdir "$tmp/v"
"$gen" "$trace" "$tmp/v" > "$tmp/variants"

# Variants that open and whose damage check lists (exit 1, lines on
# stdout), the first of each kind of change (class and structure).
: > "$tmp/picked"
for v in "$tmp"/v/*.dat; do
	kind=$(basename "$v" | sed -E 's/-[0-9]+\.dat$//')
	grep -qxF "$kind" "$tmp/kinds" 2>/dev/null && continue
	rc=0
	"$tdat" check "$v" > "$tmp/check.out" 2>/dev/null || rc=$?
	if [ "$rc" = 1 ] && [ -s "$tmp/check.out" ]; then
		echo "$kind" >> "$tmp/kinds"
		echo "$v" >> "$tmp/picked"
	fi
done
[ -s "$tmp/picked" ] || { fail "no variant of $(basename "$trace") opens with damage listed"; finish; }
echo "$(wc -l < "$tmp/picked") damaged variants that open: $(sed 's|.*/||' "$tmp/picked" | tr '\n' ' ')"

n=0
while IFS= read -r v; do
	n=$((n + 1))
	name=$(basename "$v")
	idx=$tmp/idx-$n
	"$tdat" -o noindex ls -lR "$v" / | sed -nE 's/^- +[0-9]+ (.*)$/\1/p' > "$tmp/files"
	texts_of "$tmp/files" | grep -v 'errors$' > "$tmp/texts" || true
	# each text's streaming length, on one daemon: a tdat a text took
	# 0.12 s (300 s for the variants under ASan)
	mount_log "$v" "$mnt" "$tmp/log" -o noindex
	while IFS= read -r f; do
		printf '%s\t%s\n' "$f" "$(wc -c < "$mnt/$f" 2>/dev/null)" || true
	done < "$tmp/texts" > "$tmp/want-sizes"
	umount_log "$mnt"
	mount_log "$v" "$mnt" "$tmp/log" -o index_dir="$idx"
	esize=$(stat -c %s "$mnt/errors" 2>&1) || true
	if [ -s "$mnt/errors" ]; then ok; else
		fail "$name: [ -s errors ] is false at the first stat (size $esize)"
	fi
	got=$(wc -c < "$mnt/errors")
	[ "$got" = "$esize" ] && ok ||
		fail "$name: errors: stat size $esize at the first stat, a read gives $got bytes"
	while IFS=$'\t' read -r f want; do
		s=$(stat -c %s "$mnt/$f" 2>&1) || true
		[ "$s" = "$want" ] && ok ||
			fail "$name: /$f: stat size $s before a read, a read of a -o noindex mount gives $want bytes"
	done < "$tmp/want-sizes"
	"$tdat" -o noindex cat "$v" /trace > "$tmp/want" 2>/dev/null || true
	cat "$mnt/trace" > "$tmp/got" 2>/dev/null || true
	same_file "$name: /trace" "$tmp/want" "$tmp/got"
	umount_log "$mnt"
	if grep -qE 'index built in [0-9.]+ s, in memory only: ' "$tmp/log"; then ok; else
		fail "$name: the -f line does not say the index of a damaged trace is in memory only"
		show_log "tdatfs's stderr" "$tmp/log"
	fi
	left=$(index_files "$idx")
	[ -z "$left" ] && ok || fail "$name: an index of a damaged trace was kept: $left"
	echo "$name: errors $esize bytes; $(grep -v ': indexing: ' "$tmp/log" | tail -n 1)"
done < "$tmp/picked"
finish
