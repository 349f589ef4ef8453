#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The security promises a test can see (README "Reliability and security").
# usage: security.sh TDATFS TRACE
#  - the daemon holds the trace open read-only (/proc/PID/fdinfo flags);
#  - the mount is ro, has default_permissions and no allow_other
#    (/proc/self/mounts);
#  - writes, creates and chmod fail, and the trace's bytes and mtime are
#    the same after a mount that read every file.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

tdatfs=$1 trace=$2
need_fuse
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT
cp -p "$trace" "$work/t.dat"
sum_before=$(sha256sum <"$work/t.dat")
mtime_before=$(stat -c %Y "$work/t.dat")

start_mount "$tdatfs" "$work/t.dat" "$mnt"

# Every descriptor of the daemon that points at the trace: O_RDONLY.
found=0
for fd in /proc/"$daemon_pid"/fd/*; do
	if [ "$(readlink "$fd")" = "$(realpath "$work/t.dat")" ]; then
		flags=$(awk '/^flags:/ { print $2 }' /proc/"$daemon_pid"/fdinfo/"${fd##*/}")
		found=$((found + 1))
		if [ $((8#$flags & 3)) -eq 0 ]; then
			ok
		else
			fail "trace open with flags $flags, not O_RDONLY"
		fi
	fi
done
[ "$found" -gt 0 ] && ok || fail "the daemon holds no descriptor of the trace"

opts=$(awk -v m="$(realpath "$mnt")" '$2 == m { print $4 }' /proc/self/mounts)
echo "mount options: $opts"
case ",$opts," in *,ro,*) ok ;; *) fail "mount not ro: $opts" ;; esac
case ",$opts," in *,default_permissions,*) ok ;; *) fail "no default_permissions: $opts" ;; esac
case ",$opts," in *,allow_other,*) fail "allow_other without being asked: $opts" ;; *) ok ;; esac

# Nothing writes through the mount.
for cmd in "touch $mnt/new" "sh -c 'echo x >> $mnt/info'" "chmod 0777 $mnt/info" \
	   "mkdir $mnt/d" "rm -f $mnt/info" "mv $mnt/info $mnt/info2"; do
	if eval "$cmd" 2>/dev/null; then
		fail "succeeded on the mount: $cmd"
	else
		ok
	fi
done
find "$mnt" -type f -print0 | xargs -0 cat >/dev/null 2>&1 || true
stop_mount "$mnt"

[ "$(sha256sum <"$work/t.dat")" = "$sum_before" ] && ok || fail "trace bytes changed"
[ "$(stat -c %Y "$work/t.dat")" = "$mtime_before" ] && ok || fail "trace mtime changed"
finish
