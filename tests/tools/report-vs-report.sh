#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The root's report against the oracle, Debian's `trace-cmd report`: the
# whole output byte for byte (the cpus= line, and with instances every
# buffer merged with trace-cmd's "NAME: " prefixes and padding), with the
# default engine and with the text engine's debugging options (the same
# text either way: the compiled formats and few checkpoints).
#   report-vs-report.sh TDAT TRACE [ORACLE]
. "$(dirname "$0")/../lib/common.sh"
need_oracle

tdat=$1
trace=$2
oracle=${3:-$2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

oracle_run report -i "$oracle" > "$tmp/want" 2>/dev/null
for opts in "" tep_only max_checkpoints=2; do
	"$tdat" ${opts:+-o "$opts"} cat "$trace" /report > "$tmp/got"
	same_file "$trace:/report${opts:+ (-o $opts)} ($(wc -l < "$tmp/want") lines)" \
		"$tmp/want" "$tmp/got"
done
finish
