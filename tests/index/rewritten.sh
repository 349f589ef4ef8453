#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A trace rewritten in place under its index (tdatfs(1) INDEX; issue 34):
# the same inode and size, a few bytes of event data changed, and
# `touch -r` putting the old mtime back.  An index file of the old bytes
# must not be used: its texts' sizes are not those of the new bytes.
#  - `tdat index --check` refuses it ("the trace changed (ctime)"), and
#    both `tdat cat` and a mount (its stat size, and the bytes read) give
#    the rewritten trace's texts: /trace against the oracle, `trace-cmd
#    report` of it, /per_cpu/cpu0/trace against `tdat -o noindex cat`;
#  - with the ctime forged to match (as on a file system that does not
#    keep it), the data sample checksum refuses it ("event data differs");
#  - with the data sample forged to match too (whitebox: the identity
#    cannot see the change), the stale sizes are used: every read of a text
#    decoded unlike its kept size fails with EIO (tdat cat exits 1 saying
#    so, cat on the mount too), never a cut or padded text; both ways: a
#    text decoded shorter than kept (the old index on the new bytes) and
#    longer (the new index on the old bytes put back).
# The change: a NUL written into the first printable run of 4 or more
# bytes of cpu0's first page that keeps the trace sound (tdat check) and
# changes the size of its text (a comm or a string field cut short).
#   rewritten.sh TDAT TDATFS INDEX_IDENTITY TRACE
# TRACE is uncompressed.  Mounts are skipped only where /dev/fuse is missing.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_oracle

tdat=$1
tdatfs=$2
identity=$3
forge=(python3 "$here/forge-index.py")
index_setup
dir=$XDG_CACHE_HOME/tdatfs
t=$tmp/t/rewritten.dat
mkdir "$tmp/t"
cp "$4" "$t"
cp "$4" "$tmp/orig.dat"
touch -r "$t" "$tmp/mtime"
ino=$(stat -c %i "$t")
size=$(stat -c %s "$t")
start=$(date +%s)

# report_of TRACE: the oracle's text of /trace
report_of() {
	oracle_run report -i "$1" 2>/dev/null | tail -n +2
}

# the index of the old bytes
"$tdat" index "$t" > "$tmp/build.out" 2>&1 || { fail "tdat index: $(cat "$tmp/build.out")"; finish; }
ipath=$(index_files "$dir")
[ "$(grep -c . <<<"$ipath")" = 1 ] || { fail "tdat index made '$ipath'"; finish; }
cp "$ipath" "$tmp/stale"
"$tdat" -o noindex cat "$t" /trace > "$tmp/old-text"
old_len=$(stat -c %s "$tmp/old-text")

# ---- the change -------------------------------------------------------------

"$tdat" -o noindex cat "$t" /per_cpu/cpu0/trace_pipe_raw > "$tmp/raw"
head -c 4096 "$tmp/raw" > "$tmp/page"
read -r page_at runs < <(python3 - "$t" "$tmp/page" <<'EOF'
import re, sys
data, page = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
at = data.find(page)
# the second byte of each printable run: a NUL there cuts the string short
runs = [m.start() + 1 for m in re.finditer(rb"[\x21-\x7e]{4,}", page)][:12]
print(at, ",".join(map(str, runs)))
EOF
)
change=
if [ "$page_at" -gt 0 ]; then
	for rel in ${runs//,/ }; do
		cp "$tmp/orig.dat" "$tmp/try.dat"
		printf '\0' | dd of="$tmp/try.dat" bs=1 seek=$((page_at + rel)) conv=notrunc status=none
		"$tdat" -o noindex check "$tmp/try.dat" > /dev/null 2>&1 || continue
		n=$("$tdat" -o noindex cat "$tmp/try.dat" /trace | wc -c)
		if [ "$n" != "$old_len" ]; then
			change=$((page_at + rel))
			break
		fi
	done
	rm -f "$tmp/try.dat"
fi
if [ -z "$change" ]; then
	fail "no byte of cpu0's first page (at $page_at) found that changes the text's size"
	finish
fi

# rewrite_from FROM: the bytes of FROM's page written over the trace in place,
# the old mtime put back; the inode, size and mtime must stay
rewrite_from() {
	dd if="$1" of="$t" bs=4096 skip=$((page_at / 4096)) seek=$((page_at / 4096)) \
		count=2 conv=notrunc status=none
	touch -r "$tmp/mtime" "$t"
	if [ "$(stat -c '%i %s %Y' "$t")" = "$ino $size $(stat -c %Y "$tmp/mtime")" ]; then ok; else
		fail "the rewrite changed the inode, size or mtime: $(stat -c '%i %s %Y' "$t")"
	fi
}
cp "$tmp/orig.dat" "$tmp/new.dat"
printf '\0' | dd of="$tmp/new.dat" bs=1 seek="$change" conv=notrunc status=none
rewrite_from "$tmp/new.dat"
cmp -s "$t" "$tmp/new.dat" && ok || fail "the rewrite did not give the changed bytes"
report_of "$t" > "$tmp/want"
# cpu0's text: the streaming mode's (its bytes against `report --cpu N`
# are text-vs-report.sh's)
"$tdat" -o noindex cat "$t" /per_cpu/cpu0/trace > "$tmp/want0"
echo "byte $change set to 0: /trace $old_len -> $(stat -c %s "$tmp/want") bytes (trace-cmd report)"

# ---- the stale index is not used ----------------------------------------------

# check_refused WHY: tdat index --check exits 1 saying WHY
check_refused() {
	local rc=0
	"$tdat" index --check "$t" > "$tmp/check.out" 2>&1 || rc=$?
	if [ "$rc" = 1 ] && grep -qF "$1" "$tmp/check.out"; then ok; else
		fail "tdat index --check: exit $rc, want 1 and '$1'"
		show_log "its output" "$tmp/check.out"
	fi
}

# same_texts WHAT: tdat cat's /trace and /per_cpu/cpu0/trace are the oracle's
same_texts() {
	cp "$1" "$ipath"
	"$tdat" cat "$t" /trace > "$tmp/got" || fail "$2: tdat cat /trace failed"
	same_file "$2: tdat cat /trace" "$tmp/want" "$tmp/got"
	cp "$1" "$ipath"
	"$tdat" cat "$t" /per_cpu/cpu0/trace > "$tmp/got" || fail "$2: tdat cat cpu0 failed"
	same_file "$2: tdat cat /per_cpu/cpu0/trace" "$tmp/want0" "$tmp/got"
}

cp "$tmp/stale" "$ipath"
check_refused "the trace changed (ctime)"
same_texts "$tmp/stale" "the stale index"

if [ -e /dev/fuse ]; then
	cp "$tmp/stale" "$ipath"
	mount_log "$t" "$mnt" "$tmp/log" -o "index_dir=$dir"
	grep -qF "not used: the trace changed (ctime)" "$tmp/log" && ok ||
		{ fail "the mount does not say the stale index is not used"; show_log "its stderr" "$tmp/log"; }
	for p in trace per_cpu/cpu0/trace; do
		w=$tmp/want
		[ "$p" = trace ] || w=$tmp/want0
		st=$(stat -c %s "$mnt/$p")
		cat "$mnt/$p" > "$tmp/got" || fail "mount: cat /$p failed"
		[ "$st" = "$(stat -c %s "$tmp/got")" ] && ok ||
			fail "mount: /$p: stat size $st, $(stat -c %s "$tmp/got") bytes read"
		same_file "mount: /$p" "$w" "$tmp/got"
	done
	umount_log "$mnt"
else
	echo "no /dev/fuse: the mount not tested"
fi

# ---- the ctime forged: the data sample says -----------------------------------

read -r ctime sample < <("$identity" "$t")
"${forge[@]}" set "$tmp/stale" "$tmp/forged" "8:96:$ctime"
cp "$tmp/forged" "$ipath"
check_refused "the trace's event data differs"
same_texts "$tmp/forged" "the stale index, ctime forged"

# ---- ctime and data sample forged: EIO, never a cut text ----------------------

# eio WHAT INDEX: with INDEX in place (accepted), the texts fail with EIO
eio() {
	local rc=0 p
	cp "$2" "$ipath"
	"$tdat" index --check "$t" > "$tmp/check.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] && ok || fail "$1: the forged index is refused: $(cat "$tmp/check.out")"
	for p in /trace /per_cpu/cpu0/trace; do
		rc=0
		"$tdat" cat "$t" "$p" > "$tmp/got" 2> "$tmp/err" || rc=$?
		if [ "$rc" = 1 ] && grep -qF "$p: Input/output error" "$tmp/err"; then ok; else
			fail "$1: tdat cat $p: exit $rc ($(head -c 200 "$tmp/err")), want 1 and EIO"
		fi
	done
	[ -e /dev/fuse ] || return 0
	cp "$2" "$ipath"
	mount_log "$t" "$mnt" "$tmp/log" -o "index_dir=$dir"
	grep -qF "index loaded from" "$tmp/log" && ok || fail "$1: the mount did not load the forged index"
	rc=0
	cat "$mnt/trace" > "$tmp/got" 2> "$tmp/err" || rc=$?
	if [ "$rc" != 0 ] && grep -qF "Input/output error" "$tmp/err"; then ok; else
		fail "$1: mount: cat /trace: exit $rc, $(stat -c %s "$tmp/got") bytes, want EIO"
	fi
	umount_log "$mnt"
}

"${forge[@]}" set "$tmp/forged" "$tmp/forged2" "4:108:$sample"
eio "the old index on the new bytes (text shorter than kept)" "$tmp/forged2"

# The other way: the index of the new bytes, the old ones put back.
rm -f "$ipath"
"$tdat" index "$t" > "$tmp/build.out" 2>&1 || fail "tdat index of the new bytes: $(cat "$tmp/build.out")"
cp "$ipath" "$tmp/new-idx"
rewrite_from "$tmp/orig.dat"
cmp -s "$t" "$tmp/orig.dat" && ok || fail "the old bytes are not back"
read -r ctime sample < <("$identity" "$t")
"${forge[@]}" set "$tmp/new-idx" "$tmp/forged2" "8:96:$ctime" "4:108:$sample"
eio "the new index on the old bytes (text longer than kept)" "$tmp/forged2"

echo "done in $(( $(date +%s) - start )) s"
finish
