#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace.pftrace writer's bytes against protoc's: test-pftrace-wire
# writes each case as our bytes (N.bin) and as protobuf text (N.txt);
# protoc encodes N.txt with Perfetto's schema, and the two must be the
# same bytes (the writer's encoding is canonical).  Then protoc decodes
# our bytes back: nothing may be printed by field number (unknown).
#
# usage: pftrace-wire.sh TEST-EXE PERFETTO-DIR
set -euo pipefail
exe=$1 schema=$2
command -v protoc >/dev/null || {
	echo "protoc missing: scripts/install-deps test installs protobuf-compiler" >&2
	exit 1
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$exe" "$dir"
n=0
for txt in "$dir"/*.txt; do
	bin=${txt%.txt}.bin
	protoc -I "$schema" --encode=perfetto.protos.Trace perfetto_trace.proto \
		< "$txt" > "$dir/ref"
	if ! cmp "$dir/ref" "$bin"; then
		echo "case $(basename "$txt" .txt): bytes differ from protoc's" >&2
		od -A d -t x1 "$dir/ref" | head -20 >&2
		od -A d -t x1 "$bin" | head -20 >&2
		exit 1
	fi
	protoc -I "$schema" --decode=perfetto.protos.Trace perfetto_trace.proto \
		< "$bin" > "$dir/dec"
	if grep -En '^ *[0-9]+( \{|:)' "$dir/dec"; then
		echo "case $(basename "$txt" .txt): fields protoc does not know" >&2
		exit 1
	fi
	n=$((n + 1))
done
[ "$n" -eq 4 ] || { echo "expected 4 cases, got $n" >&2; exit 1; }
echo "$n cases: bytes identical to protoc's encoding"
