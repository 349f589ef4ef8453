#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The same trace stored in several encodings (v7 zstd, v6, v7 zlib, v7
# uncompressed) must give the same tree of metadata and data files, with
# the same bytes.  Files that describe the encoding itself (info, options/,
# sections/, README) are left out.
#   encodings.sh TDAT TRACE TRACE...
. "$(dirname "$0")/../lib/common.sh"

tdat=$1; shift
first=$1; shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

listing() {
	"$tdat" ls -R "$1" / | LC_ALL=C sort |
		grep -v -E '^(info|README|options|sections)(/|$)' > "$2"
}

listing "$first" "$tmp/ref.ls"
grep -q -E '^events/sched/sched_switch/format$' "$tmp/ref.ls" || fail "no sched_switch format in $first"
"$tdat" ls -lR "$first" / > "$tmp/ref.long"
# regular files only: tdat ls -lR marks them with '-' in its first column
awk '$1 == "-" { print $3 }' "$tmp/ref.long" | LC_ALL=C sort |
	grep -v -E '^(info|README|options|sections)(/|$)' > "$tmp/ref.files"
[ -s "$tmp/ref.files" ] || fail "no files listed for $first"
sed 's|^|/|' "$tmp/ref.files" | tr '\n' '\0' | xargs -0 "$tdat" cat "$first" > "$tmp/ref.bytes"

for t in "$@"; do
	listing "$t" "$tmp/t.ls"
	same_file "$t: tree vs $first" "$tmp/ref.ls" "$tmp/t.ls"
	sed 's|^|/|' "$tmp/ref.files" | tr '\n' '\0' | xargs -0 "$tdat" cat "$t" > "$tmp/t.bytes"
	same_file "$t: $(wc -l < "$tmp/ref.files") files vs $first" "$tmp/ref.bytes" "$tmp/t.bytes"
done
finish
