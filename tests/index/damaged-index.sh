#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A damaged index never gives other bytes (tdatfs(1) INDEX).
# An index of TRACE is built with `tdat index`, then damaged in one way of
# each class below.  For each damaged file in place:
#  - `tdat index --check TRACE` refuses it: exit 1;
#  - `tdat cat TRACE /trace` gives exactly the bytes of `tdat -o noindex`;
#  - `tdat index TRACE` says "index FILE not used: REASON; building it
#    again" and builds it ("FILE: built in S s"), after which
#    `tdat index --check` exits 0.
# The classes: each byte flipped in turn (a sample when the file is large;
# most with --check only, a spread-out few in full), truncated at 0, 1,
# half and size-1 bytes, another trace's (OTHER's) index under TRACE's
# name, an older format version and another tdatfs version (with a right
# checksum, so the version check itself is what refuses), a right checksum
# over another trace mtime, ctime, layout or data sample checksum, the
# trace changed after indexing (one byte of event data, same size, a new
# mtime), and the trace replaced by a copy (another inode; with another
# mtime and with the same).  (rewritten.sh: the mtime put back.)
#   damaged-index.sh TDAT TRACE OTHER SOUND_V6
# SOUND_V6 is an uncompressed trace in which a byte of event data can be
# changed without damaging it.  $TDATFS_FLIPS bounds the flips (400: each
# costs a tdat run, about 50 ms).
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"

tdat=$1
forge=(python3 "$here/forge-index.py")
index_setup
dir=$XDG_CACHE_HOME/tdatfs
mkdir "$tmp/t"
cp "$2" "$3" "$4" "$tmp/t/"
trace=$tmp/t/$(basename "$2")
other=$tmp/t/$(basename "$3")
v6=$tmp/t/$(basename "$4")
name=$(basename "$trace")
start=$(date +%s)

# build_index TRACE: `tdat index TRACE`; sets ipath to its file
build_index() {
	local rc=0
	index_files "$dir" > "$tmp/before"
	"$tdat" index "$1" > "$tmp/build.out" 2>&1 || rc=$?
	index_files "$dir" > "$tmp/after"
	ipath=$(LC_ALL=C comm -13 "$tmp/before" "$tmp/after")
	if [ "$rc" -ne 0 ] || [ "$(grep -c . <<<"$ipath")" != 1 ]; then
		echo "FAIL: tdat index $1: status $rc, new files: '$ipath'" >&2
		show_log "its output" "$tmp/build.out"
		exit 1
	fi
	grep -qF "$ipath: built in" "$tmp/build.out" ||
		fail "tdat index $1 does not print '$ipath: built in S s'"
}

# check_status WHAT TRACE WANT: `tdat index --check TRACE` exits WANT
check_status() {
	local rc=0
	"$tdat" index --check "$2" > "$tmp/check.out" 2>&1 || rc=$?
	if [ "$rc" = "$3" ]; then ok; else
		fail "$1: tdat index --check exit $rc, want $3"
		show_log "its output" "$tmp/check.out"
	fi
}

# refused CLASS TRACE IPATH DAMAGED WANT [quick]: the damaged index file
# DAMAGED put at IPATH is refused, never used; and rebuilt (unless quick)
refused() {
	local class="$name: $1" t=$2 ip=$3 bad=$4 want=$5 quick=${6:-} rc=0
	cp "$bad" "$ip"
	check_status "$class" "$t" 1
	[ -n "$quick" ] && return 0
	cp "$bad" "$ip"
	"$tdat" cat "$t" /trace > "$tmp/got" 2> "$tmp/cat.err" || rc=$?
	if [ "$rc" -eq 0 ]; then
		same_file "$class: tdat cat /trace with the damaged index in place" "$want" "$tmp/got"
	else
		fail "$class: tdat cat /trace: status $rc: $(head -n 2 "$tmp/cat.err")"
	fi
	cp "$bad" "$ip"
	rc=0
	"$tdat" index "$t" > "$tmp/re.out" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && grep -qE "index .*not used: .*; building it again" "$tmp/re.out" &&
	   grep -qF "$ip: built in" "$tmp/re.out"; then
		ok
		echo "$1: $(grep 'not used' "$tmp/re.out" | head -n 1)"
	else
		fail "$class: tdat index: status $rc; want 'index $ip not used: REASON; building it again' and '$ip: built in S s'"
		show_log "its output" "$tmp/re.out"
	fi
	check_status "$class: after the rebuild" "$t" 0
}

oracle "$trace" /trace > "$tmp/want"
[ -s "$tmp/want" ] || { fail "$name: empty /trace from the oracle"; finish; }
build_index "$trace"
idx=$ipath
cp "$idx" "$tmp/good"
size=$(stat -c %s "$tmp/good")
echo "$name: index $idx, $size bytes"
"${forge[@]}" check "$tmp/good" || { fail "$name: the index file's layout is not the one forge-index.py knows"; finish; }
check_status "$name: a fresh index" "$trace" 0
"$tdat" cat "$trace" /trace > "$tmp/got"
same_file "$name: tdat cat /trace with a sound index" "$tmp/want" "$tmp/got"

# ---- each byte flipped ----------------------------------------------------

rc=0
"${forge[@]}" flips "$tmp/good" "$idx" "${TDATFS_FLIPS:-400}" 8 "$tdat" "$trace" \
	> "$tmp/flips.out" || rc=$?
grep -v '^full: ' "$tmp/flips.out" | sed "s/^/$name: /"
if [ "$rc" -eq 0 ]; then ok; else
	fail "$name: flipped bytes not refused by tdat index --check (lines above)"
fi
for off in $(sed -n 's/^full: //p' "$tmp/flips.out"); do
	"${forge[@]}" flip "$tmp/good" "$tmp/bad" "$off"
	refused "byte $off flipped" "$trace" "$idx" "$tmp/bad" "$tmp/want"
done
echo "flips done in $(( $(date +%s) - start )) s"

# ---- truncated --------------------------------------------------------------

for n in 0 1 8 124 $((size / 2)) $((size - 4)) $((size - 1)); do
	head -c "$n" "$tmp/good" > "$tmp/bad"
	case $n in 8|124|$((size - 4))) q=quick ;; *) q= ;; esac
	refused "truncated to $n of $size bytes" "$trace" "$idx" "$tmp/bad" "$tmp/want" $q
done
# One byte more, and the file twice.
{ cat "$tmp/good"; printf 'x'; } > "$tmp/bad"
refused "one byte appended" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
cat "$tmp/good" "$tmp/good" > "$tmp/bad"
refused "the file twice" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick

# ---- another trace's index ------------------------------------------------

build_index "$other"
cp "$ipath" "$tmp/other.idx"
refused "$(basename "$other")'s index under its name" "$trace" "$idx" "$tmp/other.idx" "$tmp/want"

# ---- other versions, and identity, with a right checksum --------------------

"${forge[@]}" u32 "$tmp/good" "$tmp/bad" 8 -1
refused "an older format version (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want"
"${forge[@]}" u32 "$tmp/good" "$tmp/bad" 8 1
refused "a newer format version (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" str "$tmp/good" "$tmp/bad" 24 0.0.1
refused "made by another tdatfs version (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want"
"${forge[@]}" str "$tmp/good" "$tmp/bad" 48 0.0.1
refused "made with another libtraceevent (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u64 "$tmp/good" "$tmp/bad" 80 1
refused "another trace mtime, 1 ns later (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want"
"${forge[@]}" u64 "$tmp/good" "$tmp/bad" 72 -1
refused "another trace size (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u64 "$tmp/good" "$tmp/bad" 88 1
refused "another trace inode (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u64 "$tmp/good" "$tmp/bad" 96 1
refused "another trace ctime, 1 ns later (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u32 "$tmp/good" "$tmp/bad" 104 1
refused "another layout checksum (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u32 "$tmp/good" "$tmp/bad" 108 1
refused "another data sample checksum (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u32 "$tmp/good" "$tmp/bad" 112 1
refused "another max_checkpoints (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
"${forge[@]}" u32 "$tmp/good" "$tmp/bad" 116 1
refused "one text more in the count (checksum right)" "$trace" "$idx" "$tmp/bad" "$tmp/want" quick
cp "$tmp/good" "$idx"

# ---- the trace changed after indexing ---------------------------------------

# A byte of event data: one inside the first page of cpu0's ring buffer
# data, chosen so that the trace stays sound and its text changes (so a
# stale index, if used, could give wrong bytes).
mod=$tmp/t/modified.dat
cp "$v6" "$mod"
oracle "$mod" /trace > "$tmp/want-mod0"
build_index "$mod"
cp "$ipath" "$tmp/stale"
mod_idx=$ipath
oracle "$mod" /per_cpu/cpu0/trace_pipe_raw > "$tmp/raw"
head -c 4096 "$tmp/raw" > "$tmp/page"
page_at=$(python3 -c 'import sys; print(open(sys.argv[1], "rb").read().find(open(sys.argv[2], "rb").read()))' \
	"$mod" "$tmp/page")
changed=
if [ "$page_at" -gt 0 ]; then
	for rel in 60 61 62 63 100 101 140 141 180 181 220; do
		cp "$v6" "$mod.try"
		printf '\x5a' | dd of="$mod.try" bs=1 seek=$((page_at + rel)) conv=notrunc status=none
		if "$tdat" check "$mod.try" > /dev/null 2>&1 &&
		   oracle "$mod.try" /trace > "$tmp/try" &&
		   ! cmp -s "$tmp/try" "$tmp/want-mod0"; then
			changed=$rel
			break
		fi
	done
	rm -f "$mod.try"
fi
if [ -z "$changed" ]; then
	fail "$name: found no byte of $(basename "$v6")'s event data to change (page at $page_at)"
else
	printf '\x5a' | dd of="$mod" bs=1 seek=$((page_at + changed)) conv=notrunc status=none
	touch -d '2001-02-03 04:05:06' "$mod"
	oracle "$mod" /trace > "$tmp/want-mod"
	refused "the trace changed after indexing (byte $((page_at + changed)), new mtime)" \
		"$mod" "$mod_idx" "$tmp/stale" "$tmp/want-mod"
fi

# ---- the trace replaced by a copy -------------------------------------------

rep=$tmp/t/replaced.dat
cp "$trace" "$rep"
build_index "$rep"
cp "$ipath" "$tmp/stale"
rep_idx=$ipath
cp "$rep" "$rep.new"
touch -d '2002-03-04 05:06:07' "$rep.new"
mv "$rep.new" "$rep"
refused "the trace replaced by a copy with another mtime" "$rep" "$rep_idx" "$tmp/stale" "$tmp/want"
cp "$ipath" "$tmp/stale"
cp -p "$rep" "$rep.new"
mv "$rep.new" "$rep"
refused "the trace replaced by a copy with the same mtime (another inode)" \
	"$rep" "$rep_idx" "$tmp/stale" "$tmp/want"

echo "done in $(( $(date +%s) - start )) s"
finish
