#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A CPU's text reads that CPU alone unless the CPU holds a function_graph
# entry (the only record whose text looks at the records after it, on any
# CPU): every trace-cmd trace has the funcgraph formats, whatever its
# tracer.  usage: cpu-alone.sh GEN TDAT TRACE (a compressed trace of two
# or more CPUs without function_graph records).
# In a variant of TRACE (GEN, gen-damaged) with one chunk of one CPU
# damaged, for every other CPU N, with no index:
#  - /per_cpu/cpuN/trace is `trace-cmd report --cpu N` of TRACE (less its
#    first line): the damage is not on its CPU;
#  - errors, read after it by the same tdat, is empty: reading CPU N's
#    text read none of the damaged CPU's data.
# And the damaged CPU's own text does find it (errors names it).
source "$(dirname "$0")/../lib/common.sh"
need_oracle

gen=$1 tdat=$2 trace=$3
need_trace "$trace"
name=$(basename "$trace")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpus=$("$tdat" -o noindex ls "$trace" /per_cpu | sed -n 's/^cpu//p')
[ "$(echo "$cpus" | wc -w)" -ge 2 ] || { fail "$name: want two or more CPUs: $cpus"; finish; }

# a variant whose chunk data starts damaged (data that decompresses to
# other bytes would not be found at all) on one CPU, $bad
mkdir "$work/v"
"$gen" "$trace" "$work/v" > "$work/variants"
variant= bad=
for v in $(awk '$2 == "flip" && $3 == "chunk-data-start:" { print $1 }' "$work/variants"); do
	hit=
	for c in $cpus; do
		"$tdat" -o noindex cat "$work/v/$v" "/per_cpu/cpu$c/trace_pipe_raw" \
			> /dev/null 2>&1 || hit="$hit $c"
	done
	if [ "$(echo $hit | wc -w)" = 1 ]; then
		variant=$work/v/$v bad=${hit# }
		break
	fi
done
[ -n "$variant" ] || { fail "$name: no chunk-data-start variant damages one CPU"; finish; }

for c in $("$tdat" -o noindex ls "$trace" /per_cpu | sed -n 's/^cpu//p'); do
	[ "$c" = "$bad" ] && continue
	oracle_run report --cpu "$c" "$trace" 2>/dev/null | tail -n +2 > "$work/want"
	"$tdat" -o noindex cat "$variant" "/per_cpu/cpu$c/trace" > "$work/got"
	same_file "$name: $(basename "$variant"): /per_cpu/cpu$c/trace" "$work/want" "$work/got"
	"$tdat" -o noindex cat "$variant" "/per_cpu/cpu$c/trace" /errors > "$work/both"
	if cmp -s "$work/both" "$work/got"; then
		ok
	else
		fail "$name: reading cpu$c's text found damage: $(tail -c +$(($(stat -c %s "$work/got") + 1)) "$work/both" | head -2)"
	fi
done

"$tdat" -o noindex cat "$variant" "/per_cpu/cpu$bad/trace" /errors > "$work/bad" 2>/dev/null || true
grep -q "cpu$bad " "$work/bad" && ok || fail "$name: reading cpu$bad's text did not find its damage"
finish
