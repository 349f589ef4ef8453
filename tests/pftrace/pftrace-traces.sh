#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every buffer's trace.pftrace of some traces (issue 33), made by
# `tdat cat TRACE [instances/NAME/]trace.pftrace` and checked by
# pftrace-check.py against Perfetto's schema and `trace-cmd report -N -R -t`,
# JOBS checks at once (one meson test per folder of traces keeps the
# suite's start-up small; the checks inside run in parallel).
#   pftrace-traces.sh PYTHON CHECKER TDAT PROTO_DIR JOBS TRACE...
# Which oracle a trace gets (Debian's trace-cmd cannot read zlib):
#  - NAME.dat with NAME.twin.dat beside it: the twin (the same records
#    converted to zstd); the twin itself is not checked again;
#  - NAME-zlib.dat with NAME.dat beside it: NAME.dat (tests/data);
#  - a zlib trace with neither: schema and structure only (--no-content);
#  - a trace with the same bytes as one checked before: skipped.
# Skipped (77) only when none of the traces exists.
. "$(dirname "$0")/../lib/common.sh"
need_oracle
python=$1 checker=$2 tdat=$3 proto=$4 jobs=$5
shift 5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ---- the jobs: TRACE BUFFER ORACLE (BUFFER "-" for the top one) ------------
: > "$tmp/jobs"
: > "$tmp/seen"
for t in "$@"; do
	[ -e "$t" ] || continue
	case $t in *.twin.dat) continue ;; esac
	dup=
	while IFS= read -r s; do
		if [ "$(stat -c %s "$s")" = "$(stat -c %s "$t")" ] && cmp -s "$s" "$t"; then
			dup=$s
			break
		fi
	done < "$tmp/seen"
	if [ -n "$dup" ]; then
		echo "$(basename "$t"): the same bytes as $dup, checked there"
		continue
	fi
	echo "$t" >> "$tmp/seen"
	oracle=$t
	if [ -e "${t%.dat}.twin.dat" ]; then
		oracle=${t%.dat}.twin.dat
	elif [[ $t == *-zlib.dat ]] && [ -e "${t%-zlib.dat}.dat" ]; then
		oracle=${t%-zlib.dat}.dat
	elif ! trace-cmd dump --options "$t" >/dev/null 2>&1; then
		oracle=-
	fi
	printf '%s\t-\t%s\n' "$t" "$oracle" >> "$tmp/jobs"
	while IFS= read -r inst; do
		printf '%s\t%s\t%s\n' "$t" "$inst" "$oracle" >> "$tmp/jobs"
	done < <("$tdat" ls "$t" /instances 2>/dev/null || true)
done
if [ ! -s "$tmp/jobs" ]; then
	echo "SKIP: none of the traces exists" >&2
	exit 77
fi

# one_job N TRACE BUFFER ORACLE: make the file, check it; log in $tmp/N.log
one_job() {
	local n=$1 t=$2 buf=$3 oracle=$4 path=/trace.pftrace args=()
	[ "$buf" = - ] || { path=/instances/$buf/trace.pftrace; args+=(--buffer "$buf"); }
	case $oracle in
		-) args+=(--no-content) ;;
		"$t") ;;
		*) args+=(--oracle "$oracle") ;;
	esac
	{
		if ! "$tdat" cat "$t" "$path" > "$tmp/$n.pf"; then
			echo "FAIL: tdat cat $t $path failed"
			return 1
		fi
		"$python" "$checker" --proto-dir "$proto" "${args[@]}" "$t" "$tmp/$n.pf" ||
			{ echo "FAIL: $(basename "$t"):$path"; return 1; }
	} > "$tmp/$n.log" 2>&1
	rm -f "$tmp/$n.pf"
}
export -f one_job
export tmp tdat python checker proto

start=$(date +%s)
nl -ba -w1 -s$'\t' "$tmp/jobs" |
	xargs -d '\n' -P "$jobs" -n 1 bash -c 'IFS=$'"'\t'"' read -r n t b o <<<"$1"; one_job "$n" "$t" "$b" "$o" || touch "$tmp/$n.failed"' _ || true
for n in $(seq 1 "$(wc -l < "$tmp/jobs")"); do
	cat "$tmp/$n.log"
	if [ -e "$tmp/$n.failed" ]; then fail "job $n (above)"; else ok; fi
done
echo "$(wc -l < "$tmp/jobs") files in $(($(date +%s) - start)) s"
finish
