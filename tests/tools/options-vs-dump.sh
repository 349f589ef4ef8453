#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# options/ (and trace_clock, per_cpu/cpuN/stats) against the oracle,
# `trace-cmd dump --options`.  Text options must hold the stored text (the
# dump prints it and one newline); binary options are rendered as our
# "key: value" lines, which must carry the values the dump prints.
#   options-vs-dump.sh TDAT TRACE [ORACLE]
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
trace=$2
oracle=${3:-$2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Split the dump into one file per option: $tmp/opt.N holds its printed
# body, $tmp/index a line "N NAME [@OFFSET]" per option in file order.
trace-cmd dump --options -i "$oracle" 2>/dev/null |
awk -v out="$tmp" '
	/^\t\t\[Option / {
		n++
		name = $0; sub(/^\t\t\[Option /, "", name); sub(/, [0-9]+ bytes\].*$/, "", name)
		off = ""
		if (match($0, /\] @ [0-9]+$/)) off = substr($0, RSTART + 4)
		print n, name, off > (out "/index")
		printf "" > (out "/opt." n)
		next
	}
	/^\t\[/ { n_closed = n; next }
	n && n != n_closed { print > (out "/opt." n) }
'
[ -s "$tmp/index" ] || { fail "no options in trace-cmd dump --options"; finish; }

# body N: the option body as printed, less the newline the dump adds
body() {
	head -c -1 "$tmp/opt.$1"
}
got() {
	"$tdat" cat "$trace" "$1" 2>/dev/null
}
expect() { # WHAT PATH EXPECTED-BYTES-FILE
	got "$2" > "$tmp/got" || true
	same_file "$1 ($2)" "$3" "$tmp/got"
}

declare -A lower=(
	[DATE]=date [TRACECLOCK]=traceclock [UNAME]=uname [VERSION]=version
	[HOOK]=hook [OFFSET]=offset
	[HEADERS]=header_info ['FTRACE EVENTS']=ftrace_events
	['EVENT FORMATS']=event_formats [KALLSYMS]=kallsyms [PRINTK]=printk
	[CMDLINES]=cmdlines
)
done_n=0
stats_dir=
stats_prefix=
while read -r n rest; do
	off=${rest##* }
	name=${rest% *}
	[[ $off =~ ^[0-9]+$ ]] || { name=$rest; off=; }
	case $name in
	DATE|TRACECLOCK|UNAME|VERSION|HOOK|OFFSET)
		body "$n" > "$tmp/want"
		expect "$name" "/options/${lower[$name]}" "$tmp/want"
		[ "$name" = TRACECLOCK ] && expect "$name" /trace_clock "$tmp/want"
		;;
	HEADERS|'FTRACE EVENTS'|'EVENT FORMATS'|KALLSYMS|PRINTK|CMDLINES)
		printf 'section_offset: %s\n' "$off" > "$tmp/want"
		expect "$name" "/options/${lower[$name]}" "$tmp/want"
		;;
	CPUCOUNT)
		printf 'cpus: %s\n' "$(body "$n")" > "$tmp/want"
		expect "$name" /options/cpucount "$tmp/want"
		;;
	TRACEID)
		printf 'trace_id: %s\n' "$(body "$n")" > "$tmp/want"
		expect "$name" /options/traceid "$tmp/want"
		;;
	DONE)
		printf 'next_options: %s\n' "$(head -1 "$tmp/opt.$n")" > "$tmp/want"
		expect "$name" "/options/done/$done_n" "$tmp/want"
		done_n=$((done_n + 1))
		;;
	CPUSTAT)
		body "$n" > "$tmp/want"
		if inst=$(sed -n '2s/^Buffer: \(.*\)$/\1/p' "$tmp/want") && [ -n "$inst" ] &&
		   [ "$(head -1 "$tmp/want")" = "" ]; then
			stats_dir=/instances/$inst
			stats_prefix=$inst-
			continue
		fi
		cpu=$(sed -n '1s/^CPU: \([0-9]*\)$/\1/p' "$tmp/want")
		[ -n "$cpu" ] || { fail "CPUSTAT $n: no CPU line"; continue; }
		expect "CPUSTAT $n" "/options/cpustat/${stats_prefix}cpu$cpu" "$tmp/want"
		expect "CPUSTAT $n" "$stats_dir/per_cpu/cpu$cpu/stats" "$tmp/want"
		;;
	BUFFER)
		# 1151246 [offset] / "" [name] / "local" [clock] /
		# 4096 [Page size, bytes] / 2 [CPUs]: / "   0 1155072	16006	[id, ...]"
		awk '
			/ \[offset\]$/ { print "offset: " $1 }
			/ \[name\]$/ { s = $0; sub(/ \[name\]$/, "", s); gsub(/^"|"$/, "", s); print "name: " s; nm = s }
			/ \[clock\]$/ { s = $0; sub(/ \[clock\]$/, "", s); gsub(/^"|"$/, "", s); print "clock: " s }
			/ \[Page size, bytes\]$/ { print "page_size: " $1 }
			/ \[CPUs\]:$/ { print "cpus: " $1 }
			/\[id, data offset and size\]$/ { print "cpu" $1 ": offset " $2 " size " $3 }
		' "$tmp/opt.$n" > "$tmp/want"
		bname=$(sed -n 's/^name: //p' "$tmp/want")
		expect "BUFFER $n" "/options/buffer/${bname:-top}" "$tmp/want"
		;;
	*)
		echo "not compared: option $name" ;;
	esac
done < "$tmp/index"
finish
