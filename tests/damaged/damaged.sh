#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Damaged traces behave as tdatfs(1) DAMAGED TRACES says.  usage: damaged.sh GEN TDAT TDATFS DATADIR
#
# GEN (gen-damaged) makes variants of the traces in DATADIR: truncated,
# with a byte flipped, or with a size that lies.  For every variant:
#  - `tdat check` ends within 30 s, without a signal, with its peak RSS
#    under a bound, and exits 0 (harmless change) or 1 with each message
#    naming an offset (refused at open: one line on stderr; damaged event
#    data: one line per damaged range on stdout);
# and for a sample of the variants that open, a real mount with a 1 MiB
# cache:
#  - `cat` of every file ends, each with success or EIO, and the daemon
#    exits 0 after the unmount;
#  - the root errors file lists damaged ranges when check found some, and
#    a trace file holds a "[tdatfs: " marker line;
#  - trace_pipe_raw of a damaged CPU reads fine up to the damaged range
#    (same bytes as tdat cat), fails with EIO inside it, and reads again
#    after it.
# A table of how each class of variant behaved is printed at the end.
source "$(dirname "$0")/../lib/common.sh"
source "$(dirname "$0")/../lib/mount.sh"

gen=$1 tdat=$2 tdatfs=$3 data=$4
rss_limit_kb=${TDAT_RSS_LIMIT_KB:-600000}
mounts_max=${TDAT_DAMAGED_MOUNTS:-8}
known_issues=0

# known MESSAGE: a defect outside this suite's files, reported, not failed
known() {
	echo "KNOWN: $*" >&2
	known_issues=$((known_issues + 1))
}
work=$(mktemp -d)
mnt=$work/mnt
mkdir -p "$work/v" "$mnt"
trap 'cleanup_mount "$mnt"; rm -rf "$work"' EXIT

for t in small.dat small-v6.dat small-zlib.dat instances.dat; do
	"$gen" "$data/$t" "$work/v" >>"$work/list.txt"
done
total=$(wc -l <"$work/list.txt")
echo "$total variants"

# One variant: check it, write "NAME RESULT DETAIL" to its .res file.
check_one() {
	local v=$1 rc rss
	set +e
	/usr/bin/time -f %M -o "$v.rss" timeout -s KILL 30 \
		"$tdat" check "$v" >"$v.out" 2>"$v.err"
	rc=$?
	set -e
	rss=$(tail -n 1 "$v.rss" 2>/dev/null || echo 0)
	case "$rss" in *[!0-9]*|'') rss=0 ;; esac
	local res=ok why=
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		res=bad why="exit status $rc (timeout or signal)"
	elif [ "$rss" -gt "$rss_limit_kb" ]; then
		res=bad why="peak RSS $rss KB over $rss_limit_kb KB"
	elif [ "$rc" -eq 0 ] && [ -s "$v.out" ]; then
		res=bad why="exit 0 with problems listed"
	elif [ "$rc" -eq 1 ] && [ ! -s "$v.out" ] && [ ! -s "$v.err" ]; then
		res=bad why="exit 1 without a message"
	elif grep -qv 'offset [0-9]' "$v.err" "$v.out"; then
		res=bad why="a message names no offset: $(grep -hv 'offset [0-9]' "$v.err" "$v.out" | head -1)"
	fi
	local kind
	if [ "$rc" -eq 0 ]; then kind=harmless
	elif [ -s "$v.err" ]; then kind=refused
	else kind=damaged-listed
	fi
	echo "$(basename "$v") $res $kind rss=$rss $why" >"$v.res"
}
export -f check_one
export tdat rss_limit_kb

find "$work/v" -name '*.dat' -print0 |
	xargs -0 -P "$(nproc)" -I{} bash -c 'check_one "$1"' _ {}

for r in "$work"/v/*.res; do
	read -r name res kind rss why <"$r"
	if [ "$res" = ok ]; then ok; else fail "$name: $why"; fi
	echo "$name $kind" >>"$work/kinds.txt"
done

# How each class behaved: class = trace.kind-of-change.structure
echo "class (trace.change.structure)                 refused listed harmless"
sed -E 's/^([^.]+)\.([a-z]+)\.([a-zA-Z0-9-]+)-[0-9]+\.dat /\1.\2.\3 /' \
	"$work/kinds.txt" | sed -E 's/-[0-9]+ / /' |
	awk '{ c[$1]=1; n[$1" "$2]++ }
	     END { for (k in c) printf "%-46s %7d %6d %8d\n", k,
		   n[k" refused"], n[k" damaged-listed"], n[k" harmless"] }' |
	sort

# ---- mounts --------------------------------------------------------------

need_fuse
# Damaged-listed variants first, one per structure, then a few harmless ones.
{
	grep ' damaged-listed$' "$work/kinds.txt" || true
	grep ' harmless$' "$work/kinds.txt" | head -n 3 || true
} | awk '{ split($1, p, "."); k = p[1] "." p[3]; sub(/-[0-9]+$/, "", k);
	   if (!(k in seen)) { seen[k] = 1; print $1 } }' |
	head -n "$mounts_max" >"$work/mount.txt"

while read -r name; do
	v=$work/v/$name
	echo "== mount $name"
	start_mount "$tdatfs" "$v" "$mnt" -o cache_size=1M
	listed=$(grep -c 'trace_pipe_raw bytes' "$v.out" || true)
	if [ "$listed" -gt 0 ]; then
		# Its size is reported as 0 (it grows): read it, do not stat it.
		if ! grep -qv 'file offset [0-9]' "$mnt/errors"; then
			ok
		else
			fail "$name: errors file line without an offset"
		fi
		if grep -rqs '^\[tdatfs: ' --include=trace "$mnt"; then
			ok
		else
			fail "$name: no marker line in any trace file"
		fi
		# EIO for the damaged range only, top-buffer entries.
		while read -r cpu a b; do
			raw=$mnt/per_cpu/cpu$cpu/trace_pipe_raw
			[ -e "$raw" ] || continue
			page=4096
			# Unbuffered (O_DIRECT): the daemon's answer as it is.
			if dd if="$raw" of=/dev/null bs=$page skip=$((a / page)) count=1 \
			      iflag=direct 2>"$work/dd.err"; then
				fail "$name: cpu$cpu O_DIRECT read at damaged offset $a succeeded"
			elif grep -q 'Input/output error' "$work/dd.err"; then
				ok
			else
				fail "$name: cpu$cpu O_DIRECT read at $a: $(head -1 "$work/dd.err")"
			fi
			size=$(stat -c %s "$raw")
			after=$(( (b + 1 + page - 1) / page ))
			if [ $((after * page)) -lt "$size" ]; then
				if dd if="$raw" of=/dev/null bs=$page skip=$after count=1 iflag=direct 2>/dev/null; then
					ok
				else
					fail "$name: cpu$cpu not readable after the damaged range (page $after)"
				fi
			fi
			if cmp -s <(head -c "$a" "$raw" 2>/dev/null) \
			       <("$tdat" cat "$v" "/per_cpu/cpu$cpu/trace_pipe_raw" 2>/dev/null | head -c "$a"); then
				ok
			else
				fail "$name: cpu$cpu bytes before $a differ from tdat cat"
			fi
			# Through the page cache, last: a short read there makes the
			# kernel take the damaged offset for the end of the file.
			got=$(dd if="$raw" bs=$page skip=$((a / page)) count=1 2>"$work/dd.err" | wc -c || true)
			if grep -q 'Input/output error' "$work/dd.err"; then
				ok
			else
				fail "$name: cpu$cpu buffered read at damaged offset $a gave $got bytes, not EIO"
			fi
		# Only chunk damage fails reads; a page that does not parse reads.
		done < <(sed -nE 's/^chunk .* of buffer top cpu([0-9]+) .*trace_pipe_raw bytes ([0-9]+)-([0-9]+)$/\1 \2 \3/p' "$v.out" |
			 sort -u -k1,1n | head -n 2)
	fi
	# One cat over every file, after the offset checks above (a short
	# read makes the kernel shrink its idea of a file's size).
	set +e
	(cd "$mnt" && find . -type f -print0 |
		timeout -s KILL 120 xargs -0 cat >/dev/null 2>"$work/cat.err")
	rc=$?
	set -e
	if [ "$rc" -ne 0 ] && { [ "$rc" -ne 123 ] ||
			      grep -qv 'Input/output error' "$work/cat.err"; }; then
		fail "$name: cat of every file: exit $rc: $(grep -v 'Input/output error' "$work/cat.err" | head -c 300)"
	else
		ok
	fi
	if grep -q . "$mnt/errors" || [ "$listed" -eq 0 ]; then
		ok
	else
		fail "$name: errors file empty after reading everything"
	fi
	stop_mount "$mnt"
done <"$work/mount.txt"

echo "$known_issues known issues (KNOWN: lines above)"
finish
