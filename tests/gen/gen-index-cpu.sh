#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Each CPU's text of the synthesized function_graph and function traces
# (two CPUs; entries on both, on one, or none) made the three ways a
# one-CPU stream can be made, against `trace-cmd report --cpu N` (less its
# first line):
#  - without an index (the stream looks through its CPU first);
#  - by the index build (each worker produces the CPU alone and makes the
#    stream again from every CPU at its first funcgraph entry);
#  - from the index's kept state (the stream reads as the state says),
#    built on two threads and on one (where the merged text makes the
#    CPU texts beside it: a CPU with a funcgraph entry drops them all).
#   gen-index-cpu.sh TDAT GEN TEMPLATE
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
gen=$2
template=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for sc in interleave leaf dropped fncalls; do
	dat=$tmp/$sc.dat
	if ! "$gen" -v 7 "$template" "$sc" "$dat" "$tmp/counts" > /dev/null; then
		fail "$sc: gen-trace fails"
		continue
	fi
	rm -rf "$tmp/idx2" "$tmp/idx1"
	"$tdat" -o "index_dir=$tmp/idx2,threads=2" index "$dat" > /dev/null
	"$tdat" -o "index_dir=$tmp/idx1,threads=1" index "$dat" > /dev/null
	for c in $("$tdat" -o noindex ls "$dat" /per_cpu | sed -n 's/^cpu//p'); do
		oracle_run report --cpu "$c" "$dat" 2>/dev/null | tail -n +2 > "$tmp/want"
		"$tdat" -o noindex cat "$dat" "/per_cpu/cpu$c/trace" > "$tmp/got"
		same_file "$sc: cpu$c, no index" "$tmp/want" "$tmp/got"
		for n in 2 1; do
			"$tdat" -o "index_dir=$tmp/idx$n" cat "$dat" "/per_cpu/cpu$c/trace" > "$tmp/got"
			same_file "$sc: cpu$c, from the state of an index built on $n threads" \
				"$tmp/want" "$tmp/got"
			size=$("$tdat" -o "index_dir=$tmp/idx$n" ls -l "$dat" "/per_cpu/cpu$c" |
				awk '$3 == "trace" { print $2 }')
			[ "$size" = "$(wc -c < "$tmp/want")" ] && ok ||
				fail "$sc: cpu$c: the index built on $n threads says $size bytes, the oracle has $(wc -c < "$tmp/want")"
		done
	done
done
finish
