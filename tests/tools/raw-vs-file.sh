#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# trace_pipe_raw of an uncompressed trace is the CPU's data as stored: the
# bytes at the offset and size that the oracle, `trace-cmd dump
# --flyrecord`, gives for each CPU of the top buffer.  (encodings.sh then
# checks that the compressed encodings give the same bytes.)
#   raw-vs-file.sh TDAT UNCOMPRESSED-TRACE
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
trace=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

trace-cmd dump --flyrecord -i "$trace" 2>/dev/null > "$tmp/dump"
# v6: "offset size [offset, size of cpu N]"; v7: "N offset size [id, data
# offset and size]" -- keep the first buffer's CPUs only.
awk '
	/\[offset, size of cpu [0-9]+\]/ { c = $NF; sub(/\]/, "", c); print c, $1, $2; next }
	/\[id, data offset and size\]/ { if ($1 in seen) exit; seen[$1] = 1; print $1, $2, $3 }
' "$tmp/dump" > "$tmp/cpus"
[ -s "$tmp/cpus" ] || { fail "no CPU data in trace-cmd dump --flyrecord"; finish; }

while read -r cpu off size; do
	[ "$size" -gt 0 ] || continue
	dd if="$trace" of="$tmp/want" bs=65536 skip="$off" count="$size" iflag=skip_bytes,count_bytes status=none
	"$tdat" cat "$trace" "/per_cpu/cpu$cpu/trace_pipe_raw" > "$tmp/got"
	same_file "$trace: cpu$cpu trace_pipe_raw ($size bytes at $off)" "$tmp/want" "$tmp/got"
done < "$tmp/cpus"
finish
