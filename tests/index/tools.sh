#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Tools that trust st_size (tdatfs(1) INDEX), on a fresh
# mount with a new index directory.  The oracle is the streaming mode,
# `tdat -o noindex cat` (itself compared with trace-cmd by other suites).
#  - Before any read, every regular file's `stat -c %s` is the number of
#    bytes the oracle gives for it.  Every decoded text (trace, report,
#    fields.tsv, errors), every file the streaming mode lists with size 0
#    and every 37th other file is counted with its own `tdat cat`; for the
#    other files the oracle's size is `tdat -o noindex ls -l`'s (exact for
#    files that are not decoded text), and the sum of all must be the
#    length of the oracle's bytes of every file.
#  - Then each tool on a new daemon that loads the index the first one
#    built (its -f line says "index loaded from", not built; each text
#    unread in it before the tool): tar of the whole mount
#    extracted, `rsync -a` and `cp -r` of the whole mount (every file's size
#    and all bytes compared), and for each text `cmp -s` (GNU cmp compares
#    sizes first), `du -b`, Python shutil.copyfile and a Python mmap.
#   tools.sh TDAT TDATFS TRACE
# Skipped (77) only where TRACE (a public trace) or /dev/fuse is missing.
here=$(dirname "$0")
. "$here/../lib/common.sh"
. "$here/../lib/mount.sh"
. "$here/lib.sh"

tdat=$1
tdatfs=$2
trace=$3
name=$(basename "$trace")
need_trace "$trace"
need_fuse
index_setup
idx=$tmp/idx

# ---- the oracle ----------------------------------------------------------

"$tdat" -o noindex ls -lR "$trace" / > "$tmp/ls"
sed -nE 's/^- +([0-9]+) (.*)$/\2\t\1/p' "$tmp/ls" > "$tmp/ls-sizes"
cut -f 1 "$tmp/ls-sizes" > "$tmp/files"
[ -s "$tmp/files" ] || { fail "$name: tdat -o noindex ls -lR lists no file"; finish; }
texts_of "$tmp/files" > "$tmp/texts"
# PATH<TAB>SIZE, the oracle's size of every file; each text's own bytes
# kept in want/ for the tools on one file
mkdir "$tmp/want"
n=0
while IFS=$'\t' read -r f lsize; do
	n=$((n + 1))
	case "/$f" in
	*/trace|*/report|*/fields.tsv|*/errors)
		oracle "$trace" "/$f" > "$tmp/want/${f//\//%}"
		got=$(stat -c %s "$tmp/want/${f//\//%}")
		own=2 ;;
	*) own=$(( lsize == 0 || n % 37 == 0 )) ;;
	esac
	if [ "$own" = 1 ]; then
		got=$(oracle "$trace" "/$f" | wc -c)
	fi
	if [ "$own" != 0 ]; then
		if [ "$lsize" != 0 ] && [ "$got" != "$lsize" ]; then
			fail "$name: /$f: tdat -o noindex ls -l says $lsize bytes, its cat $got (the oracle disagrees with itself)"
		fi
		lsize=$got
	fi
	printf '%s\t%s\n' "$f" "$lsize"
done < "$tmp/ls-sizes" > "$tmp/want-sizes"
# All bytes, every file in the list's order (xargs may split the list:
# the bytes are concatenated either way).
sed 's|^|/|' "$tmp/files" | tr '\n' '\0' |
	xargs -0 "$tdat" -o noindex cat "$trace" > "$tmp/all.want"
sum=$(awk -F'\t' '{ s += $2 } END { print s + 0 }' "$tmp/want-sizes")
total=$(stat -c %s "$tmp/all.want")
if [ "$sum" = "$total" ]; then ok; else
	fail "$name: the oracle's sizes add up to $sum bytes, its bytes of all files are $total"
fi
echo "$name: $(wc -l < "$tmp/files") files, $(wc -l < "$tmp/texts") texts, $total bytes"

# sizes_of DIR: PATH<TAB>SIZE of every regular file under DIR, by stat
sizes_of() {
	(cd "$1" && find . -type f -printf '%P\0' | xargs -0 -r stat --printf '%n\t%s\n')
}

# compare_sizes WHAT GOT: GOT (PATH<TAB>SIZE) against the oracle's sizes;
# one failure naming the first few files that differ or are missing
compare_sizes() {
	local what=$1 got=$2 bad
	bad=$(awk -F'\t' 'NR == FNR { want[$1] = $2; next }
		{ seen[$1] = 1
		  if (!($1 in want)) print "  /" $1 ": not in the oracle tree"
		  else if (want[$1] != $2) print "  /" $1 ": " $2 " bytes, oracle " want[$1] }
		END { for (f in want) if (!(f in seen)) print "  /" f ": missing" }' \
		"$tmp/want-sizes" "$got" | LC_ALL=C sort)
	if [ -z "$bad" ]; then
		ok
	else
		fail "$name: $what: $(wc -l <<<"$bad") files differ in size from the oracle:"
		head -n 12 <<<"$bad" >&2
	fi
}

# compare_tree WHAT DIR: every file's size and all bytes of a copy
compare_tree() {
	local what=$1 dir=$2
	sizes_of "$dir" > "$tmp/tree-sizes"
	compare_sizes "$what: file sizes" "$tmp/tree-sizes"
	(cd "$dir" && tr '\n' '\0' < "$tmp/files" | xargs -0 cat) > "$tmp/all.got" 2>"$tmp/cat.err" || true
	if cmp -s "$tmp/all.want" "$tmp/all.got"; then ok; else
		local at
		at=$({ cmp "$tmp/all.want" "$tmp/all.got" 2>/dev/null || true; } | sed -nE 's/.* byte ([0-9]+).*/\1/p')
		fail "$name: $what: the bytes differ from the oracle's from byte ${at:-?} of all files on," \
			"in $(awk -F'\t' -v at="${at:-0}" '{ if (at <= s + $2) { print "/" $1 " at byte " at - s - 1; exit } s += $2 }' \
				"$tmp/want-sizes")"
	fi
}

# ---- the first mount: it builds the index; no file read yet ---------------

mount_log "$trace" "$mnt" "$tmp/log1" -o index_dir="$idx"
sizes_of "$mnt" > "$tmp/mount-sizes"
compare_sizes "stat -c %s before any read, fresh mount (index built)" "$tmp/mount-sizes"
umount_log "$mnt"
if grep -q 'index built' "$tmp/log1"; then ok; else
	fail "$name: the first mount (a new index_dir) does not say 'index built'"
	show_log "tdatfs's stderr" "$tmp/log1"
fi

# each_text CMD: run CMD PATH WANTFILE for every text
each_text() {
	local f
	while IFS= read -r f; do
		"$@" "$f" "$tmp/want/${f//\//%}"
	done < "$tmp/texts"
}

# ---- the tools, each on a new daemon that loads the index ------------------

# tool_mount, tool_umount: a new daemon on $idx; it must have loaded the
# index the first one built (no second build)
tool_mount() {
	mount_log "$trace" "$mnt" "$tmp/log" -o index_dir="$idx"
}
tool_umount() {
	umount_log "$mnt"
	if grep -q 'index loaded from' "$tmp/log" && ! grep -q 'index built' "$tmp/log"; then ok; else
		fail "$name: a later mount did not load the index the first one built"
		show_log "tdatfs's stderr" "$tmp/log"
	fi
}

tool_mount
rc=0
tar cf "$tmp/all.tar" -C "$mnt" . 2>"$tmp/tar.err" || rc=$?
tool_umount
if [ "$rc" -eq 0 ] && [ ! -s "$tmp/tar.err" ]; then ok; else
	fail "$name: tar cf of the mount: status $rc: $(head -c 400 "$tmp/tar.err")"
fi
mkdir "$tmp/tar"
tar xf "$tmp/all.tar" -C "$tmp/tar"
compare_tree "tar cf of the mount, extracted" "$tmp/tar"
rm -rf "$tmp/all.tar"
chmod -R u+w "$tmp/tar"
rm -rf "$tmp/tar"

tool_mount
rc=0
rsync -a "$mnt/" "$tmp/rsync/" 2>"$tmp/rsync.err" || rc=$?
tool_umount
if [ "$rc" -eq 0 ]; then ok; else
	fail "$name: rsync -a of the mount: status $rc: $(head -c 400 "$tmp/rsync.err")"
fi
compare_tree "rsync -a of the mount" "$tmp/rsync"
chmod -R u+w "$tmp/rsync"
rm -rf "$tmp/rsync"

tool_mount
rc=0
cp -r "$mnt" "$tmp/cp" 2>"$tmp/cp.err" || rc=$?
tool_umount
if [ "$rc" -eq 0 ]; then ok; else
	fail "$name: cp -r of the mount: status $rc: $(head -c 400 "$tmp/cp.err")"
fi
compare_tree "cp -r of the mount" "$tmp/cp"
chmod -R u+w "$tmp/cp"
rm -rf "$tmp/cp"

# cmp -s: equal sizes first, then the bytes; each text's first read.
cmp_s() { # PATH WANT
	if cmp -s "$mnt/$1" "$2"; then ok; else
		fail "$name: cmp -s /$1 (first read, index loaded) says it differs from the oracle" \
			"(stat size $(stat -c %s "$mnt/$1"), oracle $(stat -c %s "$2"))"
	fi
}
tool_mount
each_text cmp_s
tool_umount

# du -b (no read), then Python's mmap of each text, on one daemon.
du_b() { # PATH WANT
	local got want
	got=$({ du -b "$mnt/$1" 2>&1 || true; } | cut -f 1)
	want=$(stat -c %s "$2")
	if [ "$got" = "$want" ]; then ok; else
		fail "$name: du -b /$1: $got, oracle $want bytes"
	fi
}
# py_each MODE: Python's MODE (mmap, or shutil.copyfile: sendfile sized by
# st_size) of every text, all in one Python: a start costs ~0.4 s under
# pyenv, and there are hundreds of texts.  One line a text, "ok" or
# "FAIL: why"; a text of stat size 0 passes mmap only if its oracle is
# empty too (an empty file cannot be mapped).
py_each() {
	local line n=0 rc=0
	while IFS= read -r f; do
		printf '%s\t%s\n' "$mnt/$f" "$tmp/want/${f//\//%}"
	done < "$tmp/texts" > "$tmp/py.list"
	python3 - "$1" "$tmp/py.list" "$tmp/py.out" > "$tmp/py.res" 2>"$tmp/py.err" <<-'EOF' || rc=$?
	import mmap, os, shutil, sys
	mode, listing, out = sys.argv[1:4]
	for line in open(listing, encoding="utf-8", errors="surrogateescape"):
	    path, want = line.rstrip("\n").split("\t")
	    name = "/" + os.path.relpath(path, os.path.dirname(listing) + "/mnt")
	    try:
	        if mode == "copyfile":
	            shutil.copyfile(path, out)
	        else:
	            with open(path, "rb") as f, open(out, "wb") as o:
	                if os.fstat(f.fileno()).st_size == 0:
	                    if os.path.getsize(want):
	                        print(f"FAIL: mmap of {name}: stat size 0 (an empty file cannot be mapped), oracle {os.path.getsize(want)} bytes")
	                    else:
	                        print("ok")
	                    continue
	                with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
	                    o.write(m[:])
	    except OSError as e:
	        print(f"FAIL: {mode} of {name}: {e}")
	        continue
	    with open(want, "rb") as a, open(out, "rb") as b:
	        wb, gb = a.read(), b.read()
	    if wb == gb:
	        print("ok")
	    else:
	        at = next((i for i in range(min(len(wb), len(gb))) if wb[i] != gb[i]), min(len(wb), len(gb)))
	        print(f"FAIL: {mode} of {name}: {len(gb)} bytes differ from the oracle's {len(wb)} from byte {at} on")
	EOF
	while IFS= read -r line; do
		n=$((n + 1))
		case $line in
		ok) ok ;;
		*) fail "$name: Python ${line#FAIL: }" ;;
		esac
	done < "$tmp/py.res"
	if [ "$rc" -ne 0 ] || [ "$n" -ne "$(wc -l < "$tmp/texts")" ]; then
		fail "$name: Python $1: status $rc, $n of $(wc -l < "$tmp/texts") texts answered: $(tail -n 1 "$tmp/py.err")"
	fi
}
tool_mount
each_text du_b
py_each mmap
tool_umount
tool_mount
py_each copyfile
tool_umount

# cp of one file.
cp_one() { # PATH WANT
	rm -f "$tmp/cp.out"
	if cp "$mnt/$1" "$tmp/cp.out"; then
		same_file "$name: cp /$1" "$2" "$tmp/cp.out"
	else
		fail "$name: cp /$1 failed"
	fi
}
tool_mount
each_text cp_one
tool_umount
finish
