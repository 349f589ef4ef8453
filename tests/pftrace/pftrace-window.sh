#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A time window's trace.pftrace (time/T0-T1/, SPEC 2.6 and 2.7) holds
# exactly the buffer's records with T0 <= t < T1: pftrace-check.py --window
# against `trace-cmd report -N -R -t`.  The window is 3% of the trace's
# span from 40% on (ends at odd nanoseconds), from trace-cmd report
# --first-event/--last-event; it is the only check of big.dat, whose whole
# file (3 million records) would take minutes to check.  Every buffer of the
# trace gets the same window.
#   pftrace-window.sh PYTHON CHECKER TDAT PROTO_DIR TRACE
. "$(dirname "$0")/../lib/common.sh"
need_oracle
python=$1 checker=$2 tdat=$3 proto=$4 trace=$5
need_trace "$trace"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
name=$(basename "$trace")

# ns TIME: a report time (seconds with decimals) in ns
ns() {
	local s=${1%.*} f=${1#*.}000000000
	echo $((10#$s * 1000000000 + 10#${f:0:9}))
}
# secs NS: ns as the window's name writes them
secs() {
	printf '%d.%09d' $(($1 / 1000000000)) $(($1 % 1000000000))
}
first=$(trace-cmd report --first-event "$trace" | awk '/First event:/ {print $NF}' | sort -g | head -n 1)
last=$(trace-cmd report --last-event "$trace" | awk '/Last event:/ {print $NF}' | sort -g | tail -n 1)
case $first$last in
	*.*.*) ;;
	*) echo "SKIP: $name: no times in seconds ($first, $last)" >&2; exit 77 ;;
esac
f=$(ns "$first") l=$(ns "$last")
t0=$((f + (l - f) * 40 / 100 + 7)) t1=$((f + (l - f) * 43 / 100 + 3))
win=time/$(secs "$t0")-$(secs "$t1")
echo "$name: window $win ($first .. $last)"

bufs=(-)
while IFS= read -r inst; do
	bufs+=("$inst")
done < <("$tdat" ls "$trace" /instances 2>/dev/null || true)
for b in "${bufs[@]}"; do
	path=/$win/trace.pftrace args=()
	[ "$b" = - ] || { path=/instances/$b/$win/trace.pftrace; args=(--buffer "$b"); }
	if ! "$tdat" cat "$trace" "$path" > "$tmp/w.pf"; then
		fail "$name: tdat cat $path failed"
		continue
	fi
	if "$python" "$checker" --proto-dir "$proto" "${args[@]}" --window "$t0" "$t1" \
		"$trace" "$tmp/w.pf"; then ok; else fail "$name:$path"; fi
done
finish
