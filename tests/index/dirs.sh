#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Where the index goes, when it cannot go there, and two mounts at once
# (tdatfs(1) INDEX):
#  - an index_dir that cannot be written (under a regular file, so that it
#    holds for root too; and a directory made immutable with chattr +i,
#    where the file system allows it; and, as root, a read-only directory
#    for tdat run as another user): the mount works, the texts have their
#    exact sizes, one warning line says the index is in memory only, and
#    no file is written;
#  - no $HOME and no $XDG_CACHE_HOME: the same, for tdatfs and tdat;
#  - two mounts of one trace at once, started together into two mount
#    points with the same index_dir, three times: both serve the oracle's
#    bytes, and what is left in index_dir is one index file that
#    `tdat index --check` accepts, no temporary.
#   dirs.sh TDAT TDATFS TRACE
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"
need_fuse

tdat=$(realpath "$1")
tdatfs=$(realpath "$2")
trace=$(realpath "$3")
name=$(basename "$trace")
index_setup
oracle "$trace" /trace > "$tmp/want"
want_size=$(stat -c %s "$tmp/want")

# in_memory WHAT LOG: the mount's stderr (-f) has the line that says the
# index is in memory only and why, and at most one warning line beside it
# (the one a mount in the background prints too), besides progress lines
# of a build over a second; no "not used" line, as there was no index file
# to refuse
in_memory() {
	local n
	n=$(grep -v ': indexing: [0-9]*% of ' "$2" | grep -vc 'index built in .* s, in memory only: ' || true)
	if grep -qE '^tdatfs: .*: index built in [0-9.]+ s, in memory only: ' "$2" &&
	   [ "$n" -le 1 ] && ! grep -q 'not used' "$2"; then
		ok
	else
		fail "$name: $1: want 'tdatfs: TRACE: index built in S s, in memory only: WHY'" \
			"and at most one warning on stderr, no 'not used' line"
		show_log "tdatfs's stderr" "$2"
	fi
}

# served WHAT: /trace on $mnt has the exact size before a read, and the bytes
served() {
	local got
	got=$(stat -c %s "$mnt/trace" 2>&1) || true
	if [ "$got" = "$want_size" ]; then ok; else
		fail "$name: $1: /trace stat size $got before a read, oracle $want_size"
	fi
	cat "$mnt/trace" > "$tmp/got"
	same_file "$name: $1: /trace" "$tmp/want" "$tmp/got"
}

# ---- an index_dir that cannot be written ------------------------------------

echo "a regular file" > "$tmp/file"
mount_log "$trace" "$mnt" "$tmp/log" -o index_dir="$tmp/file/idx"
served "index_dir under a regular file"
umount_log "$mnt"
in_memory "index_dir under a regular file" "$tmp/log"
if [ -f "$tmp/file" ] && [ "$(cat "$tmp/file")" = "a regular file" ]; then ok; else
	fail "$name: the regular file above index_dir changed"
fi

mkdir "$tmp/immutable"
if chattr +i "$tmp/immutable" 2>/dev/null; then
	chattr_dir=$tmp/immutable
	mount_log "$trace" "$mnt" "$tmp/log" -o index_dir="$tmp/immutable"
	served "index_dir immutable (chattr +i)"
	umount_log "$mnt"
	in_memory "index_dir immutable (chattr +i)" "$tmp/log"
	chattr -i "$tmp/immutable"
	chattr_dir=
	[ -z "$(index_files "$tmp/immutable")" ] && ok ||
		fail "$name: files written into an immutable index_dir: $(index_files "$tmp/immutable")"
else
	echo "chattr +i does not work on $tmp's file system: that case not tested"
fi

# As another user, a directory of mode 0555 (root ignores the mode bits).
if [ "$(id -u)" = 0 ] && command -v setpriv > /dev/null; then
	chmod 0755 "$tmp"
	mkdir -m 0755 "$tmp/nobody" "$tmp/nobody/ro"
	cp "$trace" "$tmp/nobody/t.dat"
	chmod 0444 "$tmp/nobody/t.dat"
	chmod 0555 "$tmp/nobody/ro"
	as_nobody() {
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env XDG_CACHE_HOME="$tmp/nobody/ro" "$@"
	}
	rc=0
	got=$(as_nobody "$tdat" ls -l "$tmp/nobody/t.dat" /trace 2> "$tmp/err" |
		sed -nE 's/^- +([0-9]+) .*$/\1/p') || rc=$?
	if [ "$rc" = 0 ] && [ "$got" = "$want_size" ]; then ok; else
		fail "$name: tdat ls -l as nobody, read-only index dir: status $rc, size '$got', oracle $want_size"
	fi
	if [ "$(grep -v ': indexing: [0-9]*% of ' "$tmp/err" | grep -c .)" = 1 ] &&
	   grep -q 'in memory' "$tmp/err"; then ok; else
		fail "$name: tdat ls -l as nobody, read-only index dir: want one warning line"
		show_log "its stderr" "$tmp/err"
	fi
	as_nobody "$tdat" cat "$tmp/nobody/t.dat" /trace > "$tmp/got" 2>/dev/null || true
	same_file "$name: tdat cat as nobody, read-only index dir" "$tmp/want" "$tmp/got"
	[ -z "$(index_files "$tmp/nobody/ro")" ] && ok ||
		fail "$name: files written into a read-only index dir: $(index_files "$tmp/nobody/ro")"
else
	echo "not root or no setpriv: the read-only directory for another user not tested"
fi

# ---- no $HOME, no $XDG_CACHE_HOME ---------------------------------------------

mkdir "$tmp/cwd"
had_root_cache=$([ -e /.cache/tdatfs ] && echo yes || echo no)
(
	cd "$tmp/cwd"
	env -u HOME -u XDG_CACHE_HOME "$tdatfs" -f "$trace" "$mnt" 2> "$tmp/log" &
	echo $! > "$tmp/pid"
	wait
) &
sub=$!
for _ in $(seq 1 2400); do
	mountpoint -q "$mnt" && break
	kill -0 "$sub" 2>/dev/null || break
	sleep 0.05
done
if mountpoint -q "$mnt"; then
	ok
	served "no HOME, no XDG_CACHE_HOME"
	fusermount3 -u "$mnt"
	rc=0
	wait "$sub" || rc=$?
	[ "$rc" = 0 ] && ok || fail "$name: no HOME: tdatfs exited $rc after the unmount"
	in_memory "no HOME, no XDG_CACHE_HOME" "$tmp/log"
else
	fail "$name: no HOME, no XDG_CACHE_HOME: not mounted"
	show_log "tdatfs's stderr" "$tmp/log"
	kill "$(cat "$tmp/pid")" 2>/dev/null || true
fi
[ -z "$(index_files "$tmp/cwd")" ] && ok ||
	fail "$name: no HOME: files written in the working directory: $(index_files "$tmp/cwd")"
if [ "$had_root_cache" = no ] && [ -e /.cache/tdatfs ]; then
	fail "$name: no HOME: /.cache/tdatfs was made"
else
	ok
fi

rc=0
(cd "$tmp/cwd" && env -u HOME -u XDG_CACHE_HOME "$tdat" ls -l "$trace" /trace) \
	> "$tmp/ls" 2> "$tmp/err" || rc=$?
got=$(sed -nE 's/^- +([0-9]+) .*$/\1/p' "$tmp/ls")
if [ "$rc" = 0 ] && [ "$got" = "$want_size" ]; then ok; else
	fail "$name: tdat ls -l without HOME: status $rc, size '$got', oracle $want_size"
fi
if [ "$(grep -v ': indexing: [0-9]*% of ' "$tmp/err" | grep -c .)" = 1 ]; then ok; else
	fail "$name: tdat ls -l without HOME: want one warning line on stderr"
	show_log "its stderr" "$tmp/err"
fi
[ -z "$(index_files "$tmp/cwd")" ] && ok ||
	fail "$name: tdat without HOME: files written in the working directory"

# ---- two mounts at once -----------------------------------------------------

mnt2=$tmp/mnt2
mkdir "$mnt2"
extra_mnts=$mnt2
for round in 1 2 3; do
	idx=$XDG_CACHE_HOME/tdatfs
	rm -rf "$idx"
	"$tdatfs" -f -o index_dir="$idx" "$trace" "$mnt" 2> "$tmp/log.a" & pa=$!
	"$tdatfs" -f -o index_dir="$idx" "$trace" "$mnt2" 2> "$tmp/log.b" & pb=$!
	extra_pids="$pa $pb"
	up=0
	for _ in $(seq 1 2400); do
		up=0
		mountpoint -q "$mnt" && up=$((up + 1))
		mountpoint -q "$mnt2" && up=$((up + 1))
		[ "$up" = 2 ] && break
		kill -0 "$pa" 2>/dev/null && kill -0 "$pb" 2>/dev/null || break
		sleep 0.05
	done
	if [ "$up" != 2 ]; then
		fail "$name: two mounts at once, round $round: $up of 2 mounted"
		show_log "first tdatfs's stderr" "$tmp/log.a"
		show_log "second tdatfs's stderr" "$tmp/log.b"
		break
	fi
	for m in "$mnt" "$mnt2"; do
		s=$(stat -c %s "$m/trace" 2>&1) || true
		[ "$s" = "$want_size" ] && ok ||
			fail "$name: two mounts, round $round, $m: stat size $s, oracle $want_size"
	done
	cat "$mnt/trace" > "$tmp/got.a" & ca=$!
	cat "$mnt2/trace" > "$tmp/got.b" & cb=$!
	wait $ca $cb
	same_file "$name: two mounts at once, round $round, first" "$tmp/want" "$tmp/got.a"
	same_file "$name: two mounts at once, round $round, second" "$tmp/want" "$tmp/got.b"
	fusermount3 -u "$mnt"
	fusermount3 -u "$mnt2"
	ra=0 rb=0
	wait "$pa" || ra=$?
	wait "$pb" || rb=$?
	extra_pids=
	[ "$ra$rb" = 00 ] && ok || fail "$name: two mounts, round $round: exit status $ra and $rb"
	files=$(index_files "$idx")
	if [ "$(grep -c . <<<"$files")" = 1 ] && grep -q '\.tdatidx$' <<<"$files"; then ok; else
		fail "$name: two mounts, round $round: want one index file left, found: $files"
	fi
	check_rc=0
	"$tdat" index --check "$trace" > "$tmp/check" 2>&1 || check_rc=$?
	[ "$check_rc" = 0 ] && ok || {
		fail "$name: two mounts, round $round: tdat index --check of what was left: exit $check_rc"
		show_log "its output" "$tmp/check"
	}
	echo "round $round: $(head -n 1 "$tmp/log.a"); $(head -n 1 "$tmp/log.b")"
done
finish
