#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A reader killed during a long read goes away at once (tdatfs(1), DAMAGED
# TRACES).
#   interrupt.sh TDAT TDATFS TRACE SCALE_TRACE
# TRACE made 400 times longer (SCALE_TRACE, scripts/scale-trace) and mounted
# with -o noindex, so its text is read with direct I/O and a read near the
# end of `trace` first produces the whole text before it (1.4 s here; 100
# times gave 0.4 s, too little to tell once a kill took 0.3 s of it).  A
# mount of its own for each signal: the checkpoints the first read leaves
# would make the second one short.
#  - each reader, still waiting 0.3 s into such a read, is sent SIGKILL (then
#    SIGTERM) and must be gone, not left in state D, within 1 s: the daemon
#    answers the interrupted request (EINTR) instead of producing the rest;
#  - afterwards the text reads right at an offset (the bytes of tdat cat),
#    and the daemon exits 0 at the unmount.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
need_fuse

tdat=$1 tdatfs=$2 trace=$3 scale=$4
tmp=$(mktemp -d)
mnt=$tmp/mnt
mkdir "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$tmp"' EXIT
python3 "$scale" -k 400 "$trace" "$tmp/long.dat" >/dev/null

# state PID: its state letter (Z once dead, "gone" once reaped)
state() {
	awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || echo gone
}

for sig in KILL TERM; do
	if [ "$sig" = TERM ]; then
		stop_mount "$mnt"
	fi
	start_mount "$tdatfs" "$tmp/long.dat" "$mnt" -o noindex
	# far past the end: the whole text is produced before the answer
	dd if="$mnt/trace" of=/dev/null bs=4096 skip=10000000 count=1 \
		iflag=direct status=none 2>/dev/null &
	pid=$!
	sleep 0.3
	s=$(state "$pid")
	case $s in
	Z|gone) fail "SIG$sig: the read ended within 0.3 s: too short to tell" ;;
	*) ok ;;
	esac
	kill -s "$sig" "$pid" 2>/dev/null || true
	start=$(date +%s%N)
	for _ in $(seq 1 50); do
		s=$(state "$pid")
		[ "$s" = Z ] || [ "$s" = gone ] && break
		sleep 0.02
	done
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	echo "SIG$sig: reader gone after $ms ms (state $s)"
	if [ "$s" = Z ] || [ "$s" = gone ]; then ok; else
		fail "SIG$sig: the reader is still there after $ms ms, state $s"
	fi
	wait "$pid" 2>/dev/null || true
done

# The abandoned productions left the text right.
skip=2000
dd if="$mnt/trace" of="$tmp/got" bs=4096 skip=$skip count=4 iflag=direct status=none
"$tdat" cat "$tmp/long.dat" /trace | tail -c +$((skip * 4096 + 1)) | head -c 16384 >"$tmp/want" || true
same_file "trace at $((skip * 4096)) after the interrupted reads" "$tmp/want" "$tmp/got"
stop_mount "$mnt"
finish
