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
# For the names variant (control bytes, invalid UTF-8, "summary.tsv",
# "header_page", "ftrace" as system names; instances with control bytes
# and "top"):
#  - no listed name holds a byte below 0x20, DEL, a C1 control or invalid
#    UTF-8, and each such byte is "%XX" as tdatfs(1) THE TREE says;
#  - events/summary.tsv and events/header_page are the tree's own files
#    (the same bytes as for the trace the variant was made from), the
#    systems of those names events/summary.tsv-2 and events/header_page-2;
#  - the system "ftrace" shares events/ftrace/ with the ftrace formats;
#  - the files of `tdat ls -lR` are found by their paths and read to the
#    sum of their listed sizes.
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

names=$work/counts.names.dat
src=$data/small-v6.dat
"$tdat" ls -R "$names" / >"$work/names.ls"
bad=$(python3 - "$work/names.ls" <<'EOF'
import sys
for raw in open(sys.argv[1], "rb").read().split(b"\n"):
    try:
        s = raw.decode("utf-8")
    except UnicodeDecodeError:
        print("invalid UTF-8:", raw)
        continue
    if any(ord(c) < 0x20 or 0x7f <= ord(c) <= 0x9f for c in s):
        print("a control character:", raw)
EOF
)
bad "${bad:+names: $(head -2 <<<"$bad")}"
for p in 'events/a%0Ab%09c%0Dd/e%7Fv/id' 'events/%1B[31mred%1B[0m/e%7Fv/id' \
	 'events/bad%FF%FE-%C3(-%ED%A0%80-%E2%82/e%7Fv/id' \
	 'events/c1%C2%9B2J/e%7Fv/id' 'events/%7F/e%7Fv/id' \
	 'events/pct%250A/e%7Fv/id' 'events/caf\0303\0251/e%7Fv/id' \
	 'events/summary.tsv-2/e%7Fv/id' 'events/header_page-2/e%7Fv/id' \
	 'events/ftrace/hostile_ftrace/id' 'events/ftrace/function/id' \
	 'instances/i%1B]0;pwn%07x/trace' 'instances/in%0Ast/trace' \
	 'instances/top/trace' 'options/buffer/top-2' \
	 'options/buffer/in%0Ast'; do
	p=$(printf '%b' "$p")
	grep -qxF "$p" "$work/names.ls" && ok || bad "names: no $p in the tree"
done
if grep -q '^options/buffer/top$' "$work/names.ls"; then
	bad "names: an instance named top took options/buffer/top"
else
	ok
fi
for f in events/summary.tsv events/header_page; do
	if cmp -s <("$tdat" cat "$names" "/$f") <("$tdat" cat "$src" "/$f"); then
		ok
	else
		bad "names: /$f is not the tree's own $f"
	fi
done
# every listed file is found and reads to its listed size, all of them
# together (errors, which grows, left out)
"$tdat" ls -lR "$names" / | awk '$1 == "-" && $3 != "errors"' >"$work/names.l"
want=$(awk '{ s += $2 } END { print s }' "$work/names.l")
if cut -c 16- "$work/names.l" | xargs -d '\n' "$tdat" cat "$names" >"$work/names.all"; then
	got=$(wc -c <"$work/names.all")
	[ "$got" = "$want" ] && ok || bad "names: $got bytes read of $want listed"
else
	bad "names: a listed file is not read by its path"
fi
finish
