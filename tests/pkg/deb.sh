#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: `dpkg-buildpackage -us -uc -b` in a copy of the
# checkout (its tracked files, as they are in the work tree) must build
# ../tdatfs_VERSION_ARCH.deb holding both programs, both man pages and the
# bash completion, and lintian must report no error. The unpacked programs
# must run, and bash-completion's loader must find both commands in it.
# Skipped (77) only where dpkg-buildpackage is missing.
#   deb.sh SRCDIR TRACE VERSION (meson's project version)
. "$(dirname "$0")/../lib/common.sh"

src=$(realpath "$1")
trace=$(realpath "$2")
project_version=$3
if ! command -v dpkg-buildpackage >/dev/null; then
	echo "dpkg-buildpackage is not installed: skipped"
	exit 77
fi
command -v lintian >/dev/null || { echo "lintian is not installed" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# copy_checkout SRC DEST: the files git tracks (a release tree without git:
# everything but meson build directories)
copy_checkout() {
	mkdir -p "$2"
	if git -C "$1" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git -C "$1" ls-files -z --cached |
			(cd "$1" && while IFS= read -r -d '' f; do
				[ -e "$f" ] && printf '%s\0' "$f"
			done) |
			tar -C "$1" --null -T - -cf - | tar -C "$2" -xf -
	else
		tar -C "$1" --exclude-tag-all=build.ninja --exclude=.git -cf - . |
			tar -C "$2" -xf -
	fi
}

copy_checkout "$src" "$tmp/tdatfs"
version=$(dpkg-parsechangelog -l "$tmp/tdatfs/debian/changelog" -S Version)
# a native package: its version is the project's, without a revision
if [ "$version" = "$project_version" ]; then ok; else
	fail "debian/changelog says $version, meson.build $project_version"
fi
arch=$(dpkg --print-architecture)
deb=$tmp/tdatfs_${version}_$arch.deb
changes=$tmp/tdatfs_${version}_$arch.changes

if (cd "$tmp/tdatfs" && dpkg-buildpackage -us -uc -b) >"$tmp/build.log" 2>&1 &&
	[ -f "$deb" ]; then
	ok
else
	fail "dpkg-buildpackage -us -uc -b did not build $(basename "$deb"); the end of its log:"
	tail -40 "$tmp/build.log" >&2
	finish
fi

# what a user gets: both programs, both man pages, the completion by both names
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$tmp/contents"
for f in usr/bin/tdat usr/bin/tdatfs \
	usr/share/man/man1/tdat.1.gz usr/share/man/man1/tdatfs.1.gz \
	usr/share/bash-completion/completions/tdat \
	usr/share/bash-completion/completions/tdatfs; do
	if grep -qx "\./$f" "$tmp/contents"; then ok; else
		fail "$f is not in $(basename "$deb")"
	fi
done
# the package names in Depends, without versions
dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/[ (].*//' >"$tmp/depends"
for d in '^fuse3$' '^libfuse3-[0-9]+$' '^libtraceevent1$' '^libzstd1$' '^zlib1g$'; do
	if grep -qE "$d" "$tmp/depends"; then ok; else
		fail "Depends has no $d: $(dpkg-deb -f "$deb" Depends)"
	fi
done
if [ "$(dpkg-deb -f "$deb" Recommends)" = libtraceevent1-plugin ]; then ok; else
	fail "Recommends: '$(dpkg-deb -f "$deb" Recommends)', want libtraceevent1-plugin"
fi

# lintian on the .changes checks the .changes and every .deb it lists
if lintian --fail-on error "$changes" >"$tmp/lintian.log" 2>&1; then ok; else
	fail "lintian reports errors:"
	cat "$tmp/lintian.log" >&2
fi
grep -E '^[EWIP]: ' "$tmp/lintian.log" || true

# the unpacked programs run, and the loader finds both completions by name
root=$tmp/root
dpkg-deb -x "$deb" "$root"
if "$root/usr/bin/tdat" ls "$trace" / | grep -qx events &&
	"$root/usr/bin/tdatfs" --version >/dev/null 2>&1; then ok; else
	fail "the packaged tdat or tdatfs does not run"
fi
if [ -f /usr/share/bash-completion/bash_completion ]; then
	for c in tdat tdatfs; do
		got=$(BASH_COMPLETION_USER_DIR=$root/usr/share/bash-completion \
			bash --norc --noprofile -c '
			. /usr/share/bash-completion/bash_completion
			__load_completion "$1" && complete -p "$1"' load "$c" 2>&1) || true
		if [ "$got" = "complete -F _$c $c" ]; then ok; else
			fail "bash-completion does not load $c from the package: '$got'"
		fi
	done
fi

finish
