#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.sh - a library's files depend on each other one way only: from
# the objects in the library, an edge A -> B whenever A uses (U) a
# function B defines (T).  Fails on a pair of files that use each other
# both ways and on any longer cycle; prints the edges either way.
#
# usage: layers.sh NM LIBRARY.a
set -euo pipefail
nm=$1 lib=$2

"$nm" -A "$lib" | awk '
{
	# "lib.a:member.o: [value] TYPE name"
	n = split($1, p, ":"); obj = p[n - 1]
	sub(/.*\//, "", obj); sub(/\.c\.o$|\.o$/, "", obj)
	objs[obj] = 1
	type = $(NF - 1); sym = $NF
	if (type == "T") def[sym] = obj
	else if (type == "U") use[obj, sym] = 1
}
END {
	for (k in use) {
		split(k, q, SUBSEP)
		if ((q[2] in def) && def[q[2]] != q[1]) {
			e = q[1] SUBSEP def[q[2]]
			if (!(e in edge)) edge[e] = q[2]
			else edge[e] = edge[e] " " q[2]
		}
	}
	bad = 0
	for (e in edge) {
		split(e, q, SUBSEP)
		printf "%s -> %s: %s\n", q[1], q[2], edge[e] | "sort"
		if ((q[2] SUBSEP q[1]) in edge && q[1] < q[2]) {
			both = both sprintf("BOTH WAYS: %s <-> %s\n", q[1], q[2])
			bad = 1
		}
	}
	close("sort")
	printf "%s", both
	# Peel off files that use no remaining file; what is left is in a cycle.
	left = 0
	for (o in objs) { alive[o] = 1; left++ }
	do {
		removed = 0
		for (o in alive) {
			out = 0
			for (e in edge) {
				split(e, q, SUBSEP)
				if (q[1] == o && (q[2] in alive)) { out = 1; break }
			}
			if (!out) { delete alive[o]; removed++; left-- }
		}
	} while (removed)
	for (o in alive) { printf "IN A CYCLE: %s\n", o; bad = 1 }
	if (bad) exit 1
	print "parser files: dependencies point one way"
}'
