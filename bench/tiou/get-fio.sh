#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/tiou/get-fio.sh - build fio's own t/io_uring from Debian's fio source
# package and print the path of the binary on stdout.
#
#   bench/tiou/get-fio.sh BUILD_DIR
#
# Debian does not ship t/io_uring in its fio package, so this fetches the
# source package (Debian 12 "bookworm": fio 3.33) with apt-get source and
# builds the one tool as fio's README says: ./configure && make t/io_uring.
# apt runs with a PRIVATE configuration under BUILD_DIR/apt (its own
# sources.list with one deb-src line, its own lists and cache): the system's
# apt configuration and package lists are not touched.
#
# Idempotent: a t/io_uring already built in BUILD_DIR is reused (nothing is
# fetched).  Concurrent runs on one BUILD_DIR wait for each other (flock).
#
# Layout of BUILD_DIR:
#   apt/                  private apt: sources.list, lists/, cache/, logs
#   src/fio-VERSION/      the unpacked source with Debian's patches applied
#   src/fio-VERSION/t/io_uring   the binary (printed on stdout)
#   fio-version           the Debian version built, e.g. 3.33-3
#   configure.log make.log
#
# Neither the source nor the binary belongs in git: keep BUILD_DIR in a
# build tree (build*/ is ignored).
#
# Exit status: 0 built or reused (the path is the only line on stdout);
# 77 Debian's source archive is unreachable or a tool is missing (a test
# that needs t/io_uring skips); 1 the download or the build failed;
# 2 usage error.
#
# Environment (optional):
#   TIOU_BIN         use this t/io_uring instead (e.g. one built from fio's
#                    git): printed if it runs, nothing is fetched or built
#   TIOU_DEB_MIRROR  Debian mirror (default: the bookworm mirror of the
#                    system's apt sources, else http://deb.debian.org/debian)
#   TIOU_DEB_SUITE   suite (default bookworm)
#   TIOU_JOBS        make -j (default 2)
#   TIOU_CONFIGURE   extra arguments for fio's ./configure, e.g.
#                    --disable-native (no -march=native: valgrind runs it);
#                    use a BUILD_DIR of its own for each set
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
case "${1:-}" in
-h | --help) usage; exit 0 ;;
"") usage >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { usage >&2; exit 2; }

log() { echo "get-fio: $*" >&2; }
skip() { log "$*"; exit 77; }
die() { log "$*"; exit 1; }

if [ -n "${TIOU_BIN:-}" ]; then
	[ -x "$TIOU_BIN" ] && "$TIOU_BIN" -h >/dev/null 2>&1 ||
		die "TIOU_BIN=$TIOU_BIN is not a t/io_uring that runs (-h)"
	echo "$TIOU_BIN"
	exit 0
fi

created=0
[ -d "$1" ] || created=1
mkdir -p "$1" || die "cannot create $1"
B=$(cd "$1" && pwd) || die "cannot enter $1"

# fio's source and the binary must never be committed: inside a git work
# tree, BUILD_DIR must be ignored (the build*/ folders are)
if command -v git >/dev/null && git -C "$B" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	! git -C "$B" check-ignore -q "$B/" 2>/dev/null; then
	[ "$created" = 1 ] && rmdir -p "$B" 2>/dev/null
	die "$B is inside a git work tree and not ignored: put BUILD_DIR under a build*/ folder (fio's source must not be committed)"
fi

# t/io_uring -h prints its usage and exits 0: a binary that does is usable.
find_built() {
	local f
	for f in "$B"/src/fio-*/t/io_uring; do
		if [ -x "$f" ] && "$f" -h >/dev/null 2>&1; then
			echo "$f"
			return 0
		fi
	done
	return 1
}

command -v flock >/dev/null || skip "flock is missing (apt-get install util-linux)"
exec 9>"$B/.lock" || die "cannot write $B/.lock"
flock -w 900 9 || die "another get-fio.sh holds $B/.lock for more than 15 minutes"

if bin=$(find_built); then
	echo "$bin"
	exit 0
fi

for tool in apt-get dpkg-source make cc; do
	command -v "$tool" >/dev/null ||
		skip "$tool is missing (apt-get install apt dpkg-dev build-essential)"
done

# The mirror: the first URI of the system's sources that serves the Debian
# archive for the suite (deb822 .sources or one-line .list); the system's
# files are only read.
system_mirror() {
	local suite=$1 f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '
			/^[ \t]*$/ { if (uri != "" && ok) { print uri; exit } uri = ""; ok = 0; next }
			/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { uri = $i; break } }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			END { if (uri != "" && ok) print uri }' "$f" | head -1
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		awk -v s="$suite" '$1 ~ /^deb(-src)?$/ {
			i = 2; if ($i ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++
			if ($i ~ /\/debian\/?$/ && $(i + 1) == s) { print $i; exit } }' "$f"
	done
}

SUITE=${TIOU_DEB_SUITE:-bookworm}
MIRROR=${TIOU_DEB_MIRROR:-$(system_mirror "$SUITE" | head -1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || skip "$KEYRING is missing (apt-get install debian-archive-keyring)"

A=$B/apt
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/sources.list.d" "$B/src" ||
	die "cannot create $A"
echo "deb-src [signed-by=$KEYRING] $MIRROR $SUITE main" >"$A/sources.list"
APT=(apt-get -q
	-o "Dir::Etc::SourceList=$A/sources.list"
	-o "Dir::Etc::SourceParts=$A/sources.list.d"
	-o "Dir::State::Lists=$A/lists"
	-o "Dir::Cache=$A/cache"
	-o "APT::Sandbox::User=$(id -un)"
	-o Acquire::Languages=none
	-o Acquire::Retries=1
	-o Acquire::http::Timeout=30)

log "fetching the fio source package (deb-src $MIRROR $SUITE main)"
if ! "${APT[@]}" update >"$A/update.log" 2>&1 ||
	! ls "$A"/lists/*_Sources* >/dev/null 2>&1; then
	skip "Debian's source archive is unreachable: deb-src $MIRROR $SUITE main ($(grep -E '^(E|W|Err):' "$A/update.log" | head -1); full log: $A/update.log)"
fi
if ! (cd "$B/src" && "${APT[@]}" source fio) >"$A/source.log" 2>&1; then
	if grep -qE 'Failed to fetch|Could not resolve|Temporary failure|Unable to connect|timed out' "$A/source.log"; then
		skip "cannot download the fio source package from $MIRROR ($(grep -E '^(E|W|Err):' "$A/source.log" | head -1); full log: $A/source.log)"
	fi
	die "apt-get source fio failed: $(grep -E '^E:' "$A/source.log" | head -1) (full log: $A/source.log)"
fi

src=
for d in "$B"/src/fio-*/; do
	[ -f "$d/t/io_uring.c" ] && src=${d%/}
done
[ -n "$src" ] || die "no fio-*/t/io_uring.c under $B/src after apt-get source (see $A/source.log)"
version=$(sed -n '1s/^fio (\([^)]*\)).*/\1/p' "$src/debian/changelog" 2>/dev/null)
echo "${version:-unknown}" >"$B/fio-version"

log "building t/io_uring of fio ${version:-?} in $src"
if [ ! -f "$src/config-host.mak" ]; then
	# shellcheck disable=SC2086
	(cd "$src" && ./configure ${TIOU_CONFIGURE:-}) >"$B/configure.log" 2>&1 ||
		die "fio's ./configure failed: $(tail -n 1 "$B/configure.log") (full log: $B/configure.log)"
fi
(cd "$src" && make -j"${TIOU_JOBS:-2}" t/io_uring) >"$B/make.log" 2>&1 ||
	die "make t/io_uring failed: $(grep -m1 -E 'error' "$B/make.log") (full log: $B/make.log)"

bin=$(find_built) || die "$src/t/io_uring was built but does not run (-h)"
log "t/io_uring of fio ${version:-?}: $bin"
echo "$bin"
