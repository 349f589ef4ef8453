#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Deeply nested event formats (tdatfs(1), DAMAGED TRACES).
#   usage: deep.sh GEN TDAT TDATFS DATADIR
#
# GEN (gen-sections deep) gives the irq_handler_entry format of small-v6.dat
# (v6), small.dat (v7 zstd) and small-zlib.dat (v7 zlib) a print fmt whose
# first argument is nested 40000 and 200000 parentheses deep, or wrapped in
# a chain of 100000 '!', 60000 '1+', 24000 casts or 30000 '1?2:' (each
# under the length bound), its section compressed and (v7) stored plain,
# plus the same file with the format as it was (the control).
# libtraceevent's recursive parser overflows the stack on such a format
# (trace-cmd report dies of SIGSEGV); tdatfs refuses it as a format that
# does not parse.  For each variant:
#  - `tdat cat TRACE trace`, and with -o eager, ends within 30 s, exit 0;
#  - its lines are the control's, but for the lines of the deep event;
#  - a mount serves the same trace bytes and unmounts with status 0.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

gen=$1 tdat=$2 tdatfs=$3 data=$4
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$mnt" "$work/v"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT

for t in small-v6 small small-zlib; do
	"$gen" deep "$data/$t.dat" "$work/v" irq:irq_handler_entry 40000 200000 \
		not:100000 plus:60000 cast:24000 tern:30000 >/dev/null
done

# others FILE: the lines of every event but irq_handler_entry
others() {
	grep -v -e ' irq_handler_entry: ' -e '^\[UNKNOWN EVENT\]' "$1"
}

worst=0
for v in "$work"/v/*.dat; do
	name=$(basename "$v")
	case $name in *.control.dat) continue ;; esac
	control=${v%.*.dat}.control.dat
	[ -f "$work/$(basename "$control").txt" ] ||
		"$tdat" cat "$control" trace >"$work/$(basename "$control").txt"
	for opt in lazy eager; do
		args=()
		[ "$opt" = eager ] && args=(-o eager)
		start=$(date +%s%N)
		set +e
		timeout -s KILL 30 "$tdat" "${args[@]}" cat "$v" trace >"$work/out.txt" 2>"$work/err.txt"
		rc=$?
		set -e
		ms=$(( ($(date +%s%N) - start) / 1000000 ))
		[ "$ms" -gt "$worst" ] && worst=$ms
		echo "$name ($opt): exit $rc in $ms ms, $(wc -l <"$work/out.txt") lines"
		if [ "$rc" -ne 0 ]; then
			fail "$name ($opt): tdat cat trace exit $rc: $(head -c 200 "$work/err.txt")"
			continue
		fi
		ok
		if cmp -s <(others "$work/$(basename "$control").txt") <(others "$work/out.txt"); then
			ok
		else
			fail "$name ($opt): the other events' lines changed"
		fi
		if [ "$(wc -l <"$work/out.txt")" -eq "$(wc -l <"$work/$(basename "$control").txt")" ]; then
			ok
		else
			fail "$name ($opt): not one line per record"
		fi
	done
done
echo "worst time of tdat cat: $worst ms"

need_fuse
for v in "$work"/v/small.file.paren40000.dat "$work"/v/small-v6.file.not100000.dat \
	 "$work"/v/small-zlib.plain.plus60000.dat; do
	name=$(basename "$v")
	start_mount "$tdatfs" "$v" "$mnt"
	if timeout -s KILL 30 cat "$mnt/trace" >"$work/mnt.txt" &&
	   "$tdat" cat "$v" trace | cmp -s - "$work/mnt.txt"; then
		ok
	else
		fail "$name: the mount's trace differs from tdat cat or did not end"
	fi
	stop_mount "$mnt"
done
finish
