#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Compare the metadata files that `tdat cat` shows for TRACE with what the
# oracle, Debian's `trace-cmd dump`, prints for the same parts of ORACLE
# (ORACLE defaults to TRACE; small-zlib.dat is compared with the dump of
# small.dat, which holds the same data, because Debian's trace-cmd is built
# without zlib).
#   meta-vs-dump.sh TDAT TRACE [ORACLE]
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
trace=$2
oracle=${3:-$2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

dump() {
	trace-cmd dump "$@" -i "$oracle" 2>/dev/null
}

# The dump of one part: its header lines ("\t[Section ...]", "\t[Kallsyms,
# N bytes]") dropped, the part's bytes as the oracle prints them.
dump_body() {
	dump "$1" > "$tmp/dump.raw"
	local n
	n=$(awk '/^\t\[/ { n++; next } { exit } END { print n + 0 }' "$tmp/dump.raw")
	tail -n +$((n + 1)) "$tmp/dump.raw"
}

# Blobs: trace-cmd dump prints the stored bytes and then one newline.
check_blob() {
	local flag=$1; shift
	dump_body "$flag" > "$tmp/want"
	local p
	for p in "$@"; do
		{ "$tdat" cat "$trace" "$p"; printf '\n'; } > "$tmp/got"
		same_file "$trace:$p (dump $flag)" "$tmp/want" "$tmp/got"
	done
}

check_blob --head-page /header_page /events/header_page
check_blob --head-event /header_event /events/header_event
check_blob --kallsyms /kallsyms
check_blob --printk /printk_formats
check_blob --cmd-lines /saved_cmdlines

# Event formats: the dump prints each format text followed by one newline,
# in file order.  Split it at the "name: " lines, take the system of each
# format from --systems (name and event count, in file order), and compare
# the concatenation with one `tdat cat` of the same files in the same order.
# The id files must hold the ID line's number.
split_formats() { # SYSTEM-SPEC... ; reads the body on stdin
	awk -v out="$tmp" -v specs="$*" '
	BEGIN {
		n = split(specs, s, " ")
		for (i = 1; i <= n; i += 2) { sys[++ns] = s[i]; cnt[ns] = s[i + 1] }
		cur = 1; used = 0; idx = 0
	}
	/^name: / {
		if (idx > 0) flush()
		idx++
		while (cur <= ns && used >= cnt[cur]) { cur++; used = 0 }
		used++
		name = substr($0, 7); id = ""; text = ""
	}
	/^ID: / && id == "" { id = substr($0, 5) }
	{ text = text $0 "\n" }
	END { if (idx > 0) flush() }
	function flush() {
		# drop the one newline the dump adds after each format
		printf "%s", substr(text, 1, length(text) - 1) > (out "/want.formats")
		printf "/events/%s/%s/format\n", sys[cur], name > (out "/paths.format")
		printf "/events/%s/%s/id\n", sys[cur], name > (out "/paths.id")
		printf "%s\n", id > (out "/want.ids")
	}'
}

check_formats() { # FLAG SYSTEM-SPEC...
	local flag=$1; shift
	rm -f "$tmp"/want.formats "$tmp"/paths.* "$tmp"/want.ids
	dump_body "$flag" | split_formats "$@"
	[ -s "$tmp/paths.format" ] || { fail "$trace: no formats found in dump $flag"; return; }
	local nf
	nf=$(wc -l < "$tmp/paths.format")
	tr '\n' '\0' < "$tmp/paths.format" | xargs -0 "$tdat" cat "$trace" > "$tmp/got.formats"
	same_file "$trace: $nf format files (dump $flag)" "$tmp/want.formats" "$tmp/got.formats"
	tr '\n' '\0' < "$tmp/paths.id" | xargs -0 "$tdat" cat "$trace" > "$tmp/got.ids"
	same_file "$trace: $nf id files (dump $flag)" "$tmp/want.ids" "$tmp/got.ids"
}

nftrace=$(dump --ftrace-events | sed -n 's/^\t\[Ftrace format, \([0-9]*\) events\]$/\1/p')
check_formats --ftrace-events ftrace "$nftrace"
# shellcheck disable=SC2046
check_formats --events $(dump --systems | sed -n 's/^\t\t\(.*\) \([0-9]*\) \[system, events\]$/\1 \2/p')

finish
