#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tdatfs's exit status (tdatfs(1), EXIT STATUS): in the background it exits
# 0 only once the mount works and non-zero for a mount the kernel refuses
# after the fork (the INIT handshake, here -o max_read=1); an unmount by
# SIGTERM, SIGINT or SIGHUP is a normal end, status 0.  Started with
# SIGHUP ignored (under nohup), the daemon keeps ignoring it.
#   daemon-status.sh TDAT TDATFS TRACE
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
"$tdat" cat "$trace" /README > "$tmp/want"

# In the background: mounted and working as soon as tdatfs returns.
if "$tdatfs" "$trace" "$mnt"; then ok; else fail "tdatfs in the background: status $?"; fi
if mountpoint -q "$mnt" && cat "$mnt/README" > "$tmp/got"; then
	same_file "README right after tdatfs returned" "$tmp/want" "$tmp/got"
else
	fail "nothing mounted when tdatfs returned 0"
fi
pid=$(pgrep -f -x "$tdatfs $trace $mnt" || true)
if [ -n "$pid" ] && kill -TERM "$pid"; then
	for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
	if mountpoint -q "$mnt"; then fail "SIGTERM left the background mount"; else ok; fi
else
	fail "no background tdatfs process found"
	fusermount3 -u "$mnt" || true
fi

# A refused INIT handshake: a failure, nothing left mounted, the reason said.
for fg in "" -f; do
	rc=0
	timeout 30 "$tdatfs" $fg -o max_read=1 "$trace" "$mnt" 2> "$tmp/err" || rc=$?
	what="tdatfs $fg -o max_read=1"
	if [ "$rc" -eq 0 ] || [ "$rc" -eq 124 ]; then fail "$what: status $rc"; else ok; fi
	if mountpoint -q "$mnt"; then
		fail "$what: left a mount"
		fusermount3 -uz "$mnt" || true
	else
		ok
	fi
	if grep -q "maximum read size" "$tmp/err"; then ok; else
		fail "$what: the reason is not said: $(cat "$tmp/err")"
	fi
done

# SIGHUP ignored by whoever started the test (nohup): the daemon inherits
# that, and libfuse leaves an ignored signal alone, so a hangup must not
# unmount it (a shell cannot undo an ignore it was started with).
hup_ignored=$(( 0x$(awk '/^SigIgn/ { print $2 }' /proc/$$/status) & 1 ))
if [ "$hup_ignored" -eq 1 ]; then
	set -m
	start_mount "$tdatfs" "$trace" "$mnt"
	set +m
	kill -HUP "$daemon_pid"
	sleep 0.5
	if mountpoint -q "$mnt" && kill -0 "$daemon_pid" 2>/dev/null; then ok; else
		fail "SIGHUP ignored by the test's parent, yet it ended the daemon"
	fi
	kill -TERM "$daemon_pid"
	rc=0
	wait "$daemon_pid" || rc=$?
	daemon_pid=
	if [ "$rc" -eq 0 ]; then ok; else fail "SIGTERM after an ignored SIGHUP: status $rc"; fi
fi

# Unmounted by a signal: status 0.  Job control keeps SIGINT, which a
# script's background jobs would otherwise ignore.
sigs="TERM INT HUP"
[ "$hup_ignored" -eq 0 ] || sigs="TERM INT"
for sig in $sigs; do
	set -m
	start_mount "$tdatfs" "$trace" "$mnt"
	set +m
	cat "$mnt/README" > /dev/null
	kill -"$sig" "$daemon_pid"
	rc=0
	wait "$daemon_pid" || rc=$?
	daemon_pid=
	if [ "$rc" -eq 0 ]; then ok; else fail "SIG$sig: status $rc"; fi
	if mountpoint -q "$mnt"; then
		fail "SIG$sig: still mounted"
		fusermount3 -u "$mnt" || true
	else
		ok
	fi
done
finish
