# SPDX-License-Identifier: GPL-2.0-or-later
# Helpers of the index tests (tdatfs(1) INDEX).  Source after
# ../lib/common.sh and ../lib/mount.sh.
#
# Every test works in its own temporary directory: XDG_CACHE_HOME points
# into it (so tdat's default index directory is $tmp/xdg/tdatfs) and every
# tdatfs is given -o index_dir explicitly; nothing is written to the
# user's real cache.
#
#   index_setup                  make $tmp, $mnt, export XDG_CACHE_HOME
#   oracle TRACE PATH...         the streaming bytes: tdat -o noindex cat
#   mount_log TRACE MNT LOG OPTS...  tdatfs -f, stderr to LOG; sets daemon_pid
#   mount_sizes TRACE LIST       mount on $mnt, the first stat's sizes of LIST
#   umount_log MNT               unmount, expect exit status 0
#   index_files DIR              every regular file under DIR (temporaries too)
#   texts_of LIST                the decoded texts among a list of paths
#   wait_sizes TRACE DIR WHAT    until DIR's index of TRACE keeps the sizes

# index_setup: a temporary directory with a mount point, removed on exit
index_setup() {
	tmp=$(mktemp -d)
	mnt=$tmp/mnt
	mkdir "$mnt"
	export XDG_CACHE_HOME=$tmp/xdg
	trap 'index_cleanup' EXIT
}

# index_cleanup: for the EXIT trap; extra mount points in $extra_mnts
index_cleanup() {
	local m
	for m in "$mnt" ${extra_mnts:-}; do
		cleanup_mount "$m"
	done
	[ -n "${extra_pids:-}" ] && kill $extra_pids 2>/dev/null
	[ -n "${chattr_dir:-}" ] && chattr -i "$chattr_dir" 2>/dev/null
	chmod -R u+rwX "$tmp" 2>/dev/null
	rm -rf "$tmp"
}

# oracle TRACE PATH...: the files' bytes in the streaming mode (no index)
oracle() {
	local trace=$1
	shift
	"$tdat" -o noindex cat "$trace" "$@" || {
		echo "FAIL: the oracle, tdat -o noindex cat $trace $*, failed" >&2
		return 1
	}
}

# mount_log TRACE MNT LOG [OPTS...]: start `tdatfs -f`, its stderr in LOG,
# and wait for the mount while checking the daemon lives (an index build
# comes first: up to $MOUNT_WAIT s, default 120).  Sets daemon_pid.
mount_log() {
	local trace=$1 m=$2 log=$3 i
	shift 3
	"$tdatfs" -f "$@" "$trace" "$m" 2>"$log" &
	daemon_pid=$!
	for i in $(seq 1 $((${MOUNT_WAIT:-120} * 20))); do
		if mountpoint -q "$m"; then
			return 0
		fi
		if ! kill -0 "$daemon_pid" 2>/dev/null; then
			local rc=0
			wait "$daemon_pid" || rc=$?
			daemon_pid=
			echo "FAIL: tdatfs $* $trace died (status $rc) before the mount was ready;" \
				"its stderr:" >&2
			sed 's/^/  | /' "$log" >&2
			exit 1
		fi
		sleep 0.05
	done
	echo "FAIL: $m not mounted after ${MOUNT_WAIT:-120} s; tdatfs's stderr:" >&2
	sed 's/^/  | /' "$log" >&2
	exit 1
}

# mount_sizes TRACE LIST: mount TRACE on $mnt (a new index in $tmp/idx,
# tdatfs's stderr in $tmp/log), then `stat -c %s` each path of LIST (one a
# line, relative to $mnt) before anything reads it: "PATH<TAB>SIZE" lines
# in $tmp/sizes.  A failed stat fails the test.
mount_sizes() {
	mount_log "$1" "$mnt" "$tmp/log" -o "index_dir=$tmp/idx"
	(cd "$mnt" && tr '\n' '\0' < "$2" | xargs -0 stat -c '%s') > "$tmp/stat" ||
		fail "$(basename "$1"): stat of a path of $(basename "$2") through the mount failed"
	paste -d '\t' "$2" "$tmp/stat" > "$tmp/sizes"
}

# umount_log MNT: unmount, and the daemon must exit 0
umount_log() {
	stop_mount "$1"
}

# index_files DIR: the regular files under DIR, one a line (none if DIR is
# missing)
index_files() {
	[ -d "$1" ] || return 0
	find "$1" -type f | LC_ALL=C sort
}

# texts_of FILE: the decoded texts among the paths in FILE (one a line):
# every trace, report, fields.tsv and errors (their size comes from the
# index, or is 0 in the streaming mode)
texts_of() {
	grep -E '(^|/)(trace|report|fields\.tsv|errors)$' "$1" || true
}

# show_log WHAT LOG: a log's first lines after a failure message
show_log() {
	echo "  $1:" >&2
	head -n 20 "$2" | sed 's/^/  | /' >&2
}

# signal_daemon SIG SECS: send SIG to $daemon_pid and wait up to SECS for it
# to end (then SIGKILL); sets daemon_rc to its exit status, and returns 1
# when it had to be killed
signal_daemon() {
	local i late=0
	kill -s "$1" "$daemon_pid" 2>/dev/null || true
	for i in $(seq 1 $(($2 * 20))); do
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.05
	done
	if kill -0 "$daemon_pid" 2>/dev/null; then
		late=1
		kill -KILL "$daemon_pid" 2>/dev/null || true
	fi
	daemon_rc=0
	wait "$daemon_pid" || daemon_rc=$?
	daemon_pid=
	return $late
}

# wait_sizes TRACE DIR WHAT: until `tdat index --check` says the index in
# DIR keeps the sizes of timeline.svg and trace.pftrace (a mount's thread
# adds them once it is ready, at low priority: up to $MOUNT_WAIT s,
# default 120); fail with WHAT when they never come
wait_sizes() {
	local i
	for i in $(seq 1 $((${MOUNT_WAIT:-120} * 10))); do
		if "$tdat" -o index_dir="$2" index --check "$1" 2>/dev/null |
		   grep -q ', sizes kept$'; then
			ok
			return 0
		fi
		sleep 0.1
	done
	fail "$(basename "$1"): $3: the sizes never came to be kept in the index"
	return 1
}
