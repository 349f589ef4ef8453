#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A FIFO given as TRACE is refused at once by both programs, naming it, and
# neither waits for a writer to open the other end: a timeout turns a hang
# into a failure.
#   fifo.sh TDAT TDATFS
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"

tdat=$1
tdatfs=$2
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir "$mnt"
mkfifo "$tmp/fifo"
trap 'cleanup_mount "$mnt"; rm -rf "$tmp"' EXIT

# refused NAME STATUS ERRFILE: non-zero exit, not the timeout's, names the FIFO
refused() {
	if [ "$2" -eq 124 ]; then
		fail "$1 hangs on a FIFO"
	elif [ "$2" -eq 0 ]; then
		fail "$1 accepts a FIFO"
	elif ! grep -q "$tmp/fifo: not a regular file" "$3"; then
		fail "$1: no 'not a regular file' naming the FIFO: $(cat "$3")"
	else
		ok
	fi
}

rc=0
timeout 10 "$tdat" cat "$tmp/fifo" /trace > /dev/null 2> "$tmp/err" || rc=$?
refused "tdat cat" "$rc" "$tmp/err"
rc=0
timeout 10 "$tdat" ls "$tmp/fifo" / > /dev/null 2> "$tmp/err" || rc=$?
refused "tdat ls" "$rc" "$tmp/err"
rc=0
timeout 10 "$tdatfs" -f "$tmp/fifo" "$mnt" 2> "$tmp/err" || rc=$?
refused "tdatfs" "$rc" "$tmp/err"
if mountpoint -q "$mnt"; then fail "tdatfs mounted a FIFO"; else ok; fi
finish
