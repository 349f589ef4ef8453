#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostile names and counts (tdatfs(1), THE TREE).  usage: counts.sh GEN TDAT DATADIR
#
# GEN (gen-counts) writes traces with thousands of equal names, names over
# 255 bytes, 60000 events and a header claiming 65535 CPUs.  For each:
#  - `tdat ls -lR` ends within 30 s (the tree is built in linear time);
#  - every name is at most 255 bytes and unique within its directory;
#  - every listed file is found again by its path (`tdat cat` of all);
#  - `tdat check` ends within 30 s with a peak RSS under 200 MB (1 GB
#    under a sanitizer, whose shadow memory and quarantine grow it about
#    threefold: TDATFS_SANITIZE is meson's b_sanitize).
source "$(dirname "$0")/../lib/common.sh"

gen=$1 tdat=$2 data=$3
work=$(mktemp -d)
rss_max=200000
case ${TDATFS_SANITIZE:-none} in none) ;; *) rss_max=1000000 ;; esac
trap 'rm -rf "$work"' EXIT

# bad MESSAGE: a failed check (fail), or ok when MESSAGE is empty
bad() {
	if [ -n "$1" ]; then fail "$1"; else ok; fi
}

"$gen" "$data/small-v6.dat" "$work"
for v in "$work"/counts.*.dat; do
	name=$(basename "$v")
	start=$(date +%s.%N)
	if ! timeout -s KILL 30 "$tdat" ls -lR "$v" >"$work/ls.txt"; then
		bad "$name: tdat ls -lR failed or took over 30 s"
		continue
	fi
	ok
	echo "$name: $(wc -l <"$work/ls.txt") entries listed in" \
		"$(echo "$(date +%s.%N) - $start" | bc) s"
	cut -c 16- "$work/ls.txt" | sed 's,/$,,' >"$work/paths.txt"
	long=$(awk -F/ '{ for (i = 1; i <= NF; i++) if (length($i) > 255) { print; exit } }' \
		"$work/paths.txt")
	bad "${long:+$name: a name over 255 bytes: $long}"
	dups=$(sort "$work/paths.txt" | uniq -d | head -1)
	bad "${dups:+$name: a name twice in its directory: $dups}"
	grep '^-' "$work/ls.txt" | cut -c 16- >"$work/files.txt"
	if ! xargs -d '\n' -n 20000 timeout -s KILL 60 "$tdat" cat "$v" \
		<"$work/files.txt" >/dev/null; then
		bad "$name: a listed file is not found by its path"
	else
		ok
	fi
	set +e
	/usr/bin/time -f %M -o "$work/rss" timeout -s KILL 30 \
		"$tdat" check "$v" >"$work/check.out" 2>&1
	rc=$?
	set -e
	rss=$(tail -n 1 "$work/rss")
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		bad "$name: tdat check exit status $rc (timeout or signal)"
	elif [ "$rss" -gt "$rss_max" ]; then
		bad "$name: tdat check peak RSS $rss KB > $rss_max KB"
	elif [ "$rc" -eq 1 ] && grep -qv 'offset [0-9]' "$work/check.out"; then
		bad "$name: a message names no offset: $(head -1 "$work/check.out")"
	else
		ok
	fi
	echo "$name: tdat check exit $rc, peak RSS $rss KB"
done
finish
