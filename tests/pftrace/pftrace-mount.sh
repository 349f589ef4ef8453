#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace.pftrace through a real mount (`tdatfs -f`, a new index directory):
# the root's, every instance's and a window's (time/T0-T1/, T0 and T1
# record times of the top buffer's text):
#  - `stat -c %s` before anything is read is what `cat` then gives;
#  - the bytes equal `tdat cat`'s (whose content pftrace-check.py checks);
#  - `cp`, and `tar` out and back, give the same bytes (`cmp -s`);
#  - fusermount3 -u ends the daemon with status 0.
#   pftrace-mount.sh TDAT TDATFS TRACE
# Skipped (77) only where /dev/fuse is missing.
tdat=$1 tdatfs=$2 trace=$3 name=$(basename "$3")
for lib in lib/common.sh lib/mount.sh index/lib.sh; do
	. "$(dirname "$0")/../$lib"
done
need_fuse
index_setup    # $tmp, $mnt, XDG_CACHE_HOME in $tmp; all removed on exit

# the files, from tdat: each buffer's, and a window of the top buffer
echo trace.pftrace > "$tmp/files"
while IFS= read -r inst; do
	echo "instances/$inst/trace.pftrace" >> "$tmp/files"
done < <("$tdat" ls "$trace" /instances 2>/dev/null || true)
"$tdat" cat "$trace" /trace |
	sed -nE 's/^.*-[0-9]+ +\[[0-9]+\] *([0-9]+\.[0-9]+): [^ :]+:.*$/\1/p' > "$tmp/times"
n=$(wc -l < "$tmp/times")
if [ "$n" -ge 4 ]; then
	t0=$(sed -n "$((n / 4))p" "$tmp/times") t1=$(sed -n "$((n / 2))p" "$tmp/times")
	[ "$t0" != "$t1" ] && echo "time/$t0-$t1/trace.pftrace" >> "$tmp/files"
fi
echo "$name: $(tr '\n' ' ' < "$tmp/files")"

# sizes at the first stat, before any read
mount_sizes "$trace" "$tmp/files"
i=0
while IFS=$'\t' read -r f size; do
	i=$((i + 1))
	cat "$mnt/$f" > "$tmp/got.$i"
	got=$(stat -c %s "$tmp/got.$i")
	if [ "$got" = "$size" ] && [ "$size" -gt 0 ]; then ok; else
		fail "$name: $f: stat said $size bytes before any read, cat gives $got"
	fi
	"$tdat" cat "$trace" "/$f" > "$tmp/want.$i" || fail "$name: tdat cat $f failed"
	same_file "$name: $f through the mount vs tdat cat" "$tmp/want.$i" "$tmp/got.$i"
	cp "$mnt/$f" "$tmp/cp.$i"
	if cmp -s "$tmp/want.$i" "$tmp/cp.$i"; then ok; else fail "$name: cp $f differs"; fi
done < "$tmp/sizes"

# tar reads each file by its stat size: short or long, it complains or cuts
mkdir "$tmp/untar"
if (cd "$mnt" && tr '\n' '\0' < "$tmp/files" | tar --null -T - -cf -) 2> "$tmp/tar.err" |
	tar -C "$tmp/untar" -xf -; then ok; else
	fail "$name: tar through the mount: $(head -c 300 "$tmp/tar.err")"
fi
i=0
while IFS= read -r f; do
	i=$((i + 1))
	if cmp -s "$tmp/want.$i" "$tmp/untar/$f"; then ok; else fail "$name: tar's $f differs"; fi
done < "$tmp/files"
[ -s "$tmp/tar.err" ] && fail "$name: tar said: $(head -c 300 "$tmp/tar.err")"

umount_log "$mnt"
finish
