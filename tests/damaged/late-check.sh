#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The kallsyms check the daemon's open leaves to the index (tdat_open_opts
# .defer_checks; a matching index vouches for the section's stored bytes
# through its layout CRC).  usage: late-check.sh TDAT TDATFS DATADIR
# For small.dat (zstd) and small-zlib.dat, whose kallsyms is 5.4 MB:
#  - a first mount (index built) and a remount (index loaded) serve
#    kallsyms and trace as `tdat cat` does;
#  - the copy damaged near the end of kallsyms' compressed bytes, size,
#    inode and mtime kept (only the layout CRC tells it from the indexed
#    one): `tdat check` exits 1 naming the section, and tdatfs refuses it
#    with the one line of the check at open, exit status 1, nothing
#    mounted, with the old index and with none;
#  - damaged at the start of kallsyms' compressed bytes, where the open
#    peeks its size prefix: refused the same way.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

tdat=$1 tdatfs=$2 data=$3
need_fuse
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT

# refused WHAT TRACE INDEXDIR: tdatfs exits 1 with exactly the line $want
refused() {
	local what=$1 t=$2 dir=$3 rc=0
	# a daemon that took it would serve until stopped
	timeout -s TERM 60 "$tdatfs" -f -o "index_dir=$dir" "$t" "$mnt" 2>"$work/err" || rc=$?
	if mountpoint -q "$mnt"; then
		fail "$what: mounted"
		fusermount3 -u "$mnt"
	fi
	[ "$rc" -eq 1 ] && ok || fail "$what: tdatfs exit status $rc, not 1"
	printf '%s\n' "$want" > "$work/want"
	same_file "$what: tdatfs's message" "$work/want" "$work/err"
}

for name in small.dat small-zlib.dat; do
	t=$work/$name
	cp "$data/$name" "$t"
	chmod u+w "$t"
	"$tdat" cat "$t" /kallsyms > "$work/ref.ks"
	"$tdat" cat "$t" /trace > "$work/ref.trace"
	[ "$(wc -c < "$work/ref.ks")" -gt 1048576 ] && ok ||
		fail "$name: kallsyms is not over 1 MiB: the check is not left"
	rm -rf "$work/idx"
	for round in built loaded; do
		start_mount "$tdatfs" "$t" "$mnt" -o "index_dir=$work/idx" 2>"$work/log"
		cat "$mnt/kallsyms" > "$work/got.ks"
		cat "$mnt/trace" > "$work/got.trace"
		stop_mount "$mnt"
		grep -q "index $round" "$work/log" && ok ||
			fail "$name: the $round round says: $(cat "$work/log")"
		same_file "$name: kallsyms, index $round" "$work/ref.ks" "$work/got.ks"
		same_file "$name: trace, index $round" "$work/ref.trace" "$work/got.trace"
	done

	# the section's header: id, flags, string, stored size, then the
	# block's compressed and uncompressed sizes
	sec=$("$tdat" cat "$t" /options/kallsyms | sed -n 's/^section_offset: //p')
	csize=$(od -A n -t u4 -j $((sec + 16)) -N 4 "$t" | tr -d ' ')
	end=$((sec + 24 + csize))
	touch -r "$t" "$work/stamp"
	ino=$(stat -c %i "$t")
	head -c 64 /dev/zero | tr '\0' '\377' |
		dd of="$t" bs=1 seek=$((end - 3000)) conv=notrunc status=none
	touch -r "$work/stamp" "$t"
	[ "$(stat -c %i "$t")" = "$ino" ] && ok || fail "$name: the damaged copy is another file"

	rc=0
	"$tdat" check "$t" > "$work/check" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] && ok || fail "$name: tdat check exit status $rc, not 1"
	grep -q "(id 19) at offset $sec does not decompress" "$work/check" && ok ||
		fail "$name: tdat check says: $(head -3 "$work/check")"
	want="tdatfs: $t: $(sed -n "s|^tdat: $t: ||p" "$work/check" | head -1)"
	refused "$name damaged, its old index" "$t" "$work/idx"
	refused "$name damaged, no index" "$t" "$work/idx2"
	[ ! -e "$work/idx2" ] || [ -z "$(ls -A "$work/idx2")" ] && ok ||
		fail "$name damaged: an index was kept: $(ls "$work/idx2")"

	# damaged at its start: the open's peek of the size prefix fails
	cp "$data/$name" "$t"
	chmod u+w "$t"
	head -c 4 /dev/zero | tr '\0' '\377' |
		dd of="$t" bs=1 seek=$((sec + 24)) conv=notrunc status=none
	rc=0
	"$tdat" check "$t" > "$work/check" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] && ok || fail "$name, start damaged: tdat check exit status $rc, not 1"
	want="tdatfs: $t: $(sed -n "s|^tdat: $t: ||p" "$work/check" | head -1)"
	grep -q "(id 19) at offset $sec does not decompress" <<< "$want" && ok ||
		fail "$name, start damaged: tdat check says: $(head -3 "$work/check")"
	refused "$name damaged at its start" "$t" "$work/idx3"
done
finish
