#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# layers.sh - a library's files depend on each other one way only: from
# the objects in the library, an edge A -> B whenever A uses (U) a
# function B defines (T).  Fails on a pair of files that use each other
# both ways and on any longer cycle; prints the edges either way.
#
# With --libs, the nodes are the libraries themselves, given lowest
# first: besides the cycles, an edge from a library to one given after
# it (a call upwards) fails.
#
# usage: layers.sh NM LIBRARY.a
#        layers.sh --libs NM LIBRARY.a...
set -euo pipefail
bylib=0
if [ "$1" = --libs ]; then bylib=1; shift; fi
nm=$1; shift

"$nm" -A "$@" | awk -v bylib="$bylib" -v order="$*" '
BEGIN {
	n = split(order, ord, " ")
	for (i = 1; i <= n; i++) {
		l = ord[i]; sub(/.*\//, "", l); sub(/\.a$/, "", l)
		rank[l] = i
	}
}
NF >= 2 {
	# "lib.a:member.o: [value] TYPE name"
	n = split($1, p, ":"); obj = p[n - 1]
	if (bylib) { obj = p[1]; sub(/.*\//, "", obj); sub(/\.a$/, "", obj) }
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
		if (bylib && rank[q[2]] > rank[q[1]]) {
			both = both sprintf("UPWARDS: %s calls %s\n", q[1], q[2])
			bad = 1
		}
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
	print (bylib ? "libraries" : "files") ": dependencies point one way"
}'
