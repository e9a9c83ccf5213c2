#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# check-man.sh - the man pages are true to --help.
#
#   packaging/check-man.sh [BIOBENCH [BIOBENCHD]]
#
# Defaults: build/biobench and build/daemon/biobenchd (or the installed
# /usr/bin/biobench, /usr/sbin/biobenchd when those are missing).
# Checks, in both directions:
#   biobench.1       every long option of `biobench run --help` and of each
#                    command listed by `biobench --help` (`biobench CMD
#                    --help`), and each command name as a .SS heading;
#                    every long option the page documents exists in some
#                    --help of biobench.
#   biobenchd.8      every long option of `biobenchd --help`, and back.
#   biobenchd.conf.5 every INI key `biobenchd --help` names ("in the file:
#                    [section] key") under its section; and every key of
#                    the shipped biobenchd.conf is a known key.
# Exit 0 when all hold, 1 otherwise (each mismatch printed).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
cli=${1:-$top/build/biobench}
daemon=${2:-$top/build/daemon/biobenchd}
[ -x "$cli" ] || cli=/usr/bin/biobench
[ -x "$daemon" ] || daemon=/usr/sbin/biobenchd
for b in "$cli" "$daemon"; do
	[ -x "$b" ] || { echo "check-man: $b: no such program (build first)"; exit 1; }
done
fail=0
bad() { echo "check-man: $*"; fail=1; }

# groff source -> plain text for matching: \- -> -, font escapes and \&
# dropped.
plain() {
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\f\[[A-Z]*\]//g' \
	    -e 's/\\&//g' -e 's/\\(em/--/g' "$1"
}
# Long options defined by a --help text: the first word of lines that start
# with blanks and "--" ("--size=SIZE", "--[no-]direct", "--help, -h",
# "--config FILE").  Printed as "--name" ("[no-]" dropped).
help_opts() {
	grep -E '^[[:space:]]+(-[a-zA-Z], )?--[][a-z]' |
		sed -E 's/^[[:space:]]+(-[a-zA-Z], )?//; s/[=, ].*//; s/\[no-\]//' | sort -u
}
# Long options a man page documents: the tags of .TP paragraphs (the line
# after .TP), as --name.
man_opts() {
	plain "$1" | awk 'prev == ".TP" { print } { prev = $0 }' |
		grep -oE -- '--(\[no-\])?[a-z][a-z0-9-]*[a-z0-9]' |
		sed 's/\[no-\]//' | sort -u
}
has_opt() { # FILE OPT: the option appears as a whole word in the page
	plain "$1" >"$tmp"
	grep -E -- "(^|[^a-z0-9-])(--|--\[no-\])${2#--}([^a-z0-9-]|\$)" "$tmp" >/dev/null
}

# ---- biobench(1) -----------------------------------------------------------
page=$here/biobench.1
all_cli_opts=$(mktemp)
tmp=$(mktemp)
trap 'rm -f "$all_cli_opts" "$tmp"' EXIT
# commands: the lines of `biobench --help` indented by two blanks and
# starting with a lower-case word ("  run [OPTIONS] TARGET ...")
cmds=$("$cli" --help | grep -E '^  [a-z][a-z-]*( |$)' | awk '{print $1}' |
	grep -vx help | sort -u)
[ -n "$cmds" ] || bad "biobench --help lists no commands"
ncmd=0; nopt=0
for c in $cmds; do
	ncmd=$((ncmd + 1))
	plain "$page" >"$tmp"
	if ! grep -E "^\.SS \"?biobench $c( |\"|\$)" "$tmp" >/dev/null; then
		bad "biobench.1: no section '.SS \"biobench $c ...\"' for the command $c"
	fi
	help=$("$cli" "$c" --help 2>&1) || true
	opts=$(help_opts <<<"$help")
	[ -n "$opts" ] || bad "biobench $c --help shows no long options"
	echo "$opts" >>"$all_cli_opts"
	for o in $opts; do
		nopt=$((nopt + 1))
		has_opt "$page" "$o" || bad "biobench.1: '$o' (biobench $c --help) is not documented"
	done
done
"$cli" --help | help_opts >>"$all_cli_opts"
for o in $(man_opts "$page"); do
	grep -qx -- "$o" "$all_cli_opts" ||
		bad "biobench.1: documents '$o', which no biobench --help shows"
done
echo "check-man: biobench.1: $ncmd commands ($(echo $cmds)), $nopt options checked"

# ---- biobenchd(8) ----------------------------------------------------------
page=$here/biobenchd.8
dhelp=$("$daemon" --help)
dopts=$(help_opts <<<"$dhelp")
n=0
for o in $dopts; do
	n=$((n + 1))
	has_opt "$page" "$o" || bad "biobenchd.8: '$o' (biobenchd --help) is not documented"
done
for o in $(man_opts "$page"); do
	grep -qx -- "$o" <<<"$dopts" ||
		bad "biobenchd.8: documents '$o', which biobenchd --help does not show"
done
echo "check-man: biobenchd.8: $n options checked"

# ---- biobenchd.conf(5) -----------------------------------------------------
page=$here/biobenchd.conf.5
keys=$(grep -oE 'in the file: \[[a-z_]+\] [a-z_]+' <<<"$dhelp" | sed -E 's/in the file: \[([a-z_]+)\] /\1 /')
[ -n "$keys" ] || bad "biobenchd --help names no configuration keys"
n=0
while read -r sect key; do
	[ -n "$sect" ] || continue
	n=$((n + 1))
	# the key must be a .TP tag inside its .SH "[section]"
	awk -v s="[$sect]" -v k="$key" '
		/^\.SH/ { in_s = (index($0, s) > 0); next }
		in_s && prev == ".TP" && index($0, "\\fB" k "\\fR") == 1 { found = 1 }
		{ prev = $0 }
		END { exit !found }' "$page" ||
		bad "biobenchd.conf.5: key '$key' is not documented under [$sect]"
done <<<"$keys"
# the shipped file uses only known keys (commented examples included)
sect=
while IFS= read -r line; do
	if [[ $line =~ ^\[([a-z_]+)\] ]]; then sect=${BASH_REMATCH[1]}; continue; fi
	if [[ $line =~ ^#?([a-z_]+)[[:space:]]*= ]]; then
		grep -qx "$sect ${BASH_REMATCH[1]}" <<<"$keys" ||
			bad "biobenchd.conf: '${BASH_REMATCH[1]}' is not a key of [$sect]"
	fi
done <"$here/biobenchd.conf"
echo "check-man: biobenchd.conf.5: $n keys checked"

if [ "$fail" = 0 ]; then
	echo "check-man: OK (man pages true to --help)"
fi
exit "$fail"
