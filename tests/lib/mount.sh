# SPDX-License-Identifier: GPL-2.0-or-later
# Start and stop a tdatfs daemon for a test.  Source after common.sh.
#   start_mount TDATFS TRACE MNT [OPTIONS...]  sets daemon_pid
#   stop_mount MNT                             unmounts, checks exit status 0

# Skip (exit 77) only where FUSE cannot work at all.
need_fuse() {
	if [ ! -e /dev/fuse ]; then
		echo "SKIP: /dev/fuse is missing" >&2
		exit 77
	fi
}

start_mount() {
	local tdatfs=$1 trace=$2 mnt=$3
	shift 3
	"$tdatfs" -f "$@" "$trace" "$mnt" &
	daemon_pid=$!
	local i
	for i in $(seq 1 400); do
		if mountpoint -q "$mnt"; then
			return 0
		fi
		if ! kill -0 "$daemon_pid" 2>/dev/null; then
			wait "$daemon_pid" || true
			echo "FAIL: tdatfs died before the mount was ready" >&2
			exit 1
		fi
		sleep 0.05
	done
	echo "FAIL: $mnt not mounted after 20 s" >&2
	kill "$daemon_pid" 2>/dev/null || true
	exit 1
}

stop_mount() {
	local mnt=$1 rc=0
	fusermount3 -u "$mnt"
	wait "$daemon_pid" || rc=$?
	daemon_pid=
	if [ "$rc" -eq 0 ]; then ok; else fail "tdatfs exited with status $rc after unmount"; fi
}

# For an EXIT trap: never leave a mount behind.
cleanup_mount() {
	local mnt=$1
	if mountpoint -q "$mnt" 2>/dev/null; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -uz "$mnt" 2>/dev/null || true
	fi
	if [ -n "${daemon_pid:-}" ]; then
		kill "$daemon_pid" 2>/dev/null || true
	fi
}
