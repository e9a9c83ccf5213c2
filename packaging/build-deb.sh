#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-deb.sh - build the Debian packages from this tree.
#
#   packaging/build-deb.sh [OUTDIR]          (default: build-pkg/)
#
# dpkg-buildpackage wants debian/ at the top of the source; the tree keeps it
# in packaging/debian.  So the tree (the files git knows and untracked ones
# it does not ignore: no build*/ folders; without git, everything but
# build*/ and .git) is copied to a temporary folder, packaging/debian is
# put there as debian/, and `dpkg-buildpackage -b -us -uc` runs there.  The
# .deb files (with the -dbgsym ones), .changes and .buildinfo are copied to
# OUTDIR.  DEB_BUILD_OPTIONS is passed on (nocheck skips the unit tests);
# parallel=$(nproc) is added unless given.  Needs the Build-Depends of
# packaging/debian/control (scripts/install-deps.sh --tests installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=$(realpath -m "${1:-$top/build-pkg}")
version=$(dpkg-parsechangelog -l "$here/debian/changelog" -S Version)
work=$(mktemp -d "${TMPDIR:-/tmp}/biobench-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
src=$work/biobench-${version%%-*}

# copy_tree DEST: the source tree without build products.
copy_tree() {
	mkdir -p "$1"
	if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		(cd "$top" && git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do
				[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
			done | tar --null -T - -cf -) | tar -xf - -C "$1"
	else
		tar -C "$top" --exclude='./build*' --exclude=./.git \
			--exclude=./node_modules -cf - . | tar -xf - -C "$1"
	fi
}
copy_tree "$src"
rm -rf "$src/debian"
cp -a "$here/debian" "$src/debian"

opts=${DEB_BUILD_OPTIONS:-}
case " $opts " in
*" parallel="*) ;;
*) opts="$opts parallel=$(nproc)" ;;
esac
echo "build-deb: biobench $version in $src (DEB_BUILD_OPTIONS='${opts# }')"
(cd "$src" && DEB_BUILD_OPTIONS="${opts# }" dpkg-buildpackage -b -us -uc)

mkdir -p "$out"
shopt -s nullglob
files=("$work"/*.deb "$work"/*.ddeb "$work"/*.changes "$work"/*.buildinfo)
cp -f "${files[@]}" "$out/"
echo "build-deb: in $out:"
for f in "${files[@]}"; do echo "  $(basename "$f")"; done
