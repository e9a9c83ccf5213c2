#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# spdx.sh - every source file of the tree says its license in an SPDX line
# (SPDX-License-Identifier: GPL-2.0-only) within its first three lines.
#
#   tests/lint/spdx.sh [TOP]
#
# Source files: C, headers, shell, Python, JavaScript, CSS, HTML, SVG, SQL,
# YAML, CMake, man pages, the unit and config files, the packaging scripts.
# JSON (no comments), test data and fuzz corpora are not source.  Exit 0
# when all have it, 1 otherwise (each file without it printed).
set -uo pipefail
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$top" || exit 1
want='SPDX-License-Identifier: GPL-2.0-only'
is_source() {
	case $1 in
	tests/data/*|tests/fuzz/corpus/*|tests/integration/malformed/*) return 1 ;;
	*.c|*.h|*.sh|*.py|*.js|*.mjs|*.css|*.html|*.svg|*.sql|*.yaml|*.cmake) return 0 ;;
	*/CMakeLists.txt|CMakeLists.txt|*.1|*.5|*.8|*.bash|*.service|*.spec) return 0 ;;
	.ci/run|packaging/biobenchd.conf|packaging/rpm/macros.fallback) return 0 ;;
	packaging/debian/rules|packaging/debian/*.postinst|packaging/debian/*.postrm) return 0 ;;
	esac
	return 1
}
files=()
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	while IFS= read -r -d '' f; do files+=("$f"); done \
		< <(git ls-files -z --cached --others --exclude-standard)
else
	while IFS= read -r -d '' f; do files+=("${f#./}"); done \
		< <(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print0)
fi
n=0 bad=0
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	is_source "$f" || continue
	n=$((n + 1))
	if ! head -n 3 "$f" | grep -qF "$want"; then
		echo "spdx: $f: no '$want' in its first 3 lines"
		bad=$((bad + 1))
	fi
done
if ((bad)); then
	echo "spdx: $bad of $n source files lack the license line"
	exit 1
fi
echo "spdx: $n source files, each with its license line"
