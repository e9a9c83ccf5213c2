#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# build-rpm.sh - build the RPM packages from this tree with rpmbuild.
#
#   packaging/build-rpm.sh [OUTDIR]          (default: build-pkg/)
#
# Makes Source0 (biobench-VERSION.tar.gz: the files git knows and untracked
# ones it does not ignore; without git, everything but build*/ and .git),
# finds Source1 (Chart.js, bundled in biobenchd: $CHARTJS_TGZ, else
# OUTDIR/chart.js-V.tgz, else one made from Debian's libjs-chart.js in
# /usr/share/javascript/chart.js), and runs `rpmbuild -bb --nodeps` with a
# private _topdir.  On a host whose rpm lacks Fedora's %cmake and systemd
# macros (Debian's rpm), packaging/rpm/macros.fallback supplies them.
# The .rpm files are copied to OUTDIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=$(realpath -m "${1:-$top/build-pkg}")
spec=$here/biobench.spec
version=$(sed -n 's/^Version:[[:space:]]*//p' "$spec")
cjs=$(sed -n 's/^%global chartjs_version[[:space:]]*//p' "$spec")
work=$(mktemp -d "${TMPDIR:-/tmp}/biobench-rpm.XXXXXX")
trap 'rm -rf "$work"' EXIT
topdir=$work/rpmbuild
mkdir -p "$topdir"/{BUILD,BUILDROOT,RPMS,SOURCES,SPECS,SRPMS} "$out"

# Source0
stage=$work/biobench-$version
mkdir -p "$stage"
if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
		done | tar --null -T - -cf -) | tar -xf - -C "$stage"
else
	tar -C "$top" --exclude='./build*' --exclude=./.git \
		--exclude=./node_modules -cf - . | tar -xf - -C "$stage"
fi
tar -C "$work" -czf "$topdir/SOURCES/biobench-$version.tar.gz" "biobench-$version"

# Source1: the upstream npm tarball's layout, package/dist/...
src1=$topdir/SOURCES/chart.js-$cjs.tgz
if [ -n "${CHARTJS_TGZ:-}" ]; then
	cp "$CHARTJS_TGZ" "$src1"
elif [ -f "$out/chart.js-$cjs.tgz" ]; then
	cp "$out/chart.js-$cjs.tgz" "$src1"
elif [ -d /usr/share/javascript/chart.js ]; then
	deb=$(dpkg-query -W -f='${Version}' libjs-chart.js 2>/dev/null || echo unknown)
	case "$deb" in
	"$cjs"+*|"$cjs"-*|"$cjs") ;;
	*) echo "build-rpm: warning: libjs-chart.js is $deb, the spec bundles $cjs" >&2 ;;
	esac
	mkdir -p "$work/cjs/package/dist"
	cp -rL /usr/share/javascript/chart.js/. "$work/cjs/package/dist/"
	tar -C "$work/cjs" -czf "$src1" package
	echo "build-rpm: Source1 made from Debian's libjs-chart.js $deb"
else
	echo "build-rpm: Chart.js $cjs is needed (bundled in biobenchd): set" \
	     "CHARTJS_TGZ to https://registry.npmjs.org/chart.js/-/chart.js-$cjs.tgz" \
	     "saved locally, or install libjs-chart.js" >&2
	exit 1
fi

cp "$spec" "$topdir/SPECS/"
load=()
if [ "$(rpm --eval '%{?cmake:yes}')" != yes ]; then
	load=(--load "$here/rpm/macros.fallback")
	echo "build-rpm: this rpm has no %cmake: using packaging/rpm/macros.fallback"
fi
rpmbuild -bb --nodeps "${load[@]}" \
	--define "_topdir $topdir" \
	--define "_smp_mflags -j$(nproc)" \
	"$topdir/SPECS/biobench.spec"

shopt -s nullglob
rpms=("$topdir"/RPMS/*/*.rpm)
((${#rpms[@]})) || { echo "build-rpm: no .rpm produced" >&2; exit 1; }
cp -f "${rpms[@]}" "$out/"
echo "build-rpm: in $out:"
for f in "${rpms[@]}"; do echo "  $(basename "$f")"; done
