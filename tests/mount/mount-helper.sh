#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tdatfs started the way mount(8) starts a FUSE file system: mount.fuse3 runs
# "tdatfs TRACE MNT -o OPTIONS", options last, with the generic mount options
# of an fstab line among them.  Checks mount.fuse3 itself (PATH names the
# build), then `mount -t fuse.tdatfs TRACE MNT` and `mount -T FSTAB MNT`:
# mount(8) hands its helpers no PATH, so mount.fuse3's shell finds tdatfs
# only in its default directories; a private mount namespace puts the build's
# tdatfs in /usr/local/sbin for that (root only; skipped otherwise).
#   mount-helper.sh TDAT TDATFS TRACE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
need_fuse

tdat=$1
tdatfs=$(realpath "$2")
trace=$(realpath "$3")
helper=$(PATH=$PATH:/sbin:/usr/sbin command -v mount.fuse3 || true)
if [ -z "$helper" ]; then
	echo "FAIL: mount.fuse3 is missing (package fuse3)" >&2
	exit 1
fi
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir "$mnt" "$tmp/bin"
ln -s "$tdatfs" "$tmp/bin/tdatfs"
trap 'cleanup_mount "$mnt"; rm -rf "$tmp"' EXIT

# A few files of every kind, as `tdat cat` gives them.
"$tdat" ls -R "$trace" / > "$tmp/ls"
files="trace README $(grep -m 3 -E '^events/.+/format$' "$tmp/ls" | tr '\n' ' ')"
for f in $files; do
	"$tdat" cat "$trace" "/$f" > "$tmp/want.${f//\//_}"
done

# compare WHAT: the files through $mnt vs tdat cat, and read-only
compare() {
	local f
	if ! mountpoint -q "$mnt"; then
		fail "$1: nothing mounted on $mnt"
		return
	fi
	for f in $files; do
		# cat: a text file's size shows 0 until it has been read once.
		cat "$mnt/$f" > "$tmp/got" || fail "$1: cannot read /$f"
		same_file "$1: /$f" "$tmp/want.${f//\//_}" "$tmp/got"
	done
	if grep -q " $mnt fuse.tdatfs ro," /proc/mounts; then ok; else
		fail "$1: not a read-only fuse.tdatfs mount: $(grep " $mnt " /proc/mounts)"
	fi
}

# unmount WHAT: umount(8) must release the mount
unmount() {
	if umount "$mnt" && ! mountpoint -q "$mnt"; then ok; else
		fail "$1: umount failed"
		fusermount3 -uz "$mnt" 2>/dev/null || true
	fi
}

# mount.fuse3 as mount(8) calls it, with what an fstab line may say.
opts=ro,noauto,user,users,_netdev,nofail,defaults,auto,exec,suid,dev,x-test.note,comment=tdatfs
for o in rw $opts; do
	if PATH=$tmp/bin:$PATH "$helper" "$trace" "$mnt" -t fuse.tdatfs -o "$o"; then ok; else
		fail "mount.fuse3 -o $o: status $?"
	fi
	compare "mount.fuse3 -o $o"
	unmount "mount.fuse3 -o $o"
done

if [ "$(id -u)" -ne 0 ] || ! unshare -m true 2>/dev/null; then
	echo "note: not root or no unshare -m: mount(8) and fstab not tried"
	finish
fi
printf '%s %s fuse.tdatfs ro,noauto 0 0\n' "$trace" "$mnt" > "$tmp/fstab"
printf '%s %s fuse.tdatfs %s 0 0\n' "$trace" "$mnt" "$opts" > "$tmp/fstab2"
export here tmp mnt trace files opts
# In the namespace: the same checks, the tally printed for the outer shell.
unshare -m --propagation private bash -c '
	. "$here/../lib/common.sh"
	'"$(declare -f compare unmount)"'
	mount --bind "$tmp/bin" /usr/local/sbin
	mount -t fuse.tdatfs "$trace" "$mnt" || fail "mount -t fuse.tdatfs: status $?"
	compare "mount -t fuse.tdatfs"
	unmount "mount -t fuse.tdatfs"
	for t in fstab fstab2; do
		mount -T "$tmp/$t" "$mnt" || fail "mount -T $t: status $?"
		compare "mount -T $t"
		unmount "mount -T $t"
	done
	mountpoint -q "$mnt" && umount -l "$mnt"
	echo "$checks $failures" > "$tmp/tally"
' || fail "the mount namespace's shell failed"
read -r c f < "$tmp/tally" || { c=0; f=1; }
checks=$((checks + c))
failures=$((failures + f))
finish
