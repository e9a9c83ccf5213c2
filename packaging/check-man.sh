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
#   defaults         every "Default: X" a man page states for an option
#                    (biobench.1, biobenchd.8) or a key (biobenchd.conf.5)
#                    is the default the matching --help states (biobenchd
#                    --help prints what bb_dconfig_default() sets); every
#                    default SECURITY.md states for a key ("`key` (default
#                    X)", "`key` (1 MiB)", the summary of the connection
#                    limits) is that of biobenchd --help; the modes it
#                    states (the state directory, the token file) are those
#                    of biobenchd.service, the RPM spec, the Debian
#                    postinst and daemon/dconfig.c; the free space a file
#                    layout keeps (SECURITY.md, biobench.1, README) is
#                    core/io/file.c's.  A default stated that nothing can
#                    be checked against fails too.
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

# ---- defaults: man pages and SECURITY.md against --help and the code ------
helps=$(mktemp -d)
trap 'rm -f "$all_cli_opts" "$tmp"; rm -rf "$helps"' EXIT
"$daemon" --help >"$helps/biobenchd"
for c in $cmds; do "$cli" "$c" --help >"$helps/biobench-$c" 2>&1 || true; done
if ! command -v python3 >/dev/null; then
	bad "python3 is needed to check the stated defaults"
elif ! python3 - "$top" "$helps" <<'PY'
import glob, os, re, sys

top, helps = sys.argv[1], sys.argv[2]
fails, checked = [], 0

def bad(msg):
    fails.append(msg)

def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()

def groff_line(line):
    """One line of groff source as plain text."""
    line = re.sub(r'\\f(\[[A-Z]*\]|[BIRP])', '', line)
    line = line.replace('\\-', '-').replace('\\&', '').replace('\\(em', '--')
    m = re.match(r'^\.(B|I|R|BR|IR|RB|RI|BI|IB)\s+(.*)$', line)
    if m:
        args = re.findall(r'"([^"]*)"|(\S+)', m.group(2))
        words = [a or b for a, b in args]
        # one font: words are spaced; alternating fonts: run together
        line = (' ' if len(m.group(1)) == 1 else '').join(words)
    elif line.startswith('.'):
        return None
    return line

def paragraphs(path):
    """(section, tag, text) of every .TP paragraph of a man page."""
    out, section, lines = [], '', read(path).split('\n')
    i = 0
    while i < len(lines):
        ln = lines[i]
        if ln.startswith('.SH') or ln.startswith('.SS'):
            section = (groff_line(re.sub(r'^\.S[HS]\s*', '', ln)) or '').strip('"')
        if ln == '.TP' and i + 1 < len(lines):
            tag = groff_line(lines[i + 1]) or ''
            body, j = [], i + 2
            while j < len(lines) and not re.match(r'^\.(TP|SH|SS|PP|IP|LP)\b', lines[j]):
                t = groff_line(lines[j])
                if t is not None:
                    body.append(t)
                j += 1
            out.append((section, tag, ' '.join(body)))
            i = j
            continue
        i += 1
    return out

def stated(text):
    """The default a paragraph states ("Default: X." up to its sentence
    end), or None."""
    m = re.search(r'Default:\s*(.*?)(?:\.\s|\.$|$)', text)
    return m.group(1).strip() if m else None

def norm(v):
    v = v.strip().strip('`').rstrip('.').strip()
    v = re.sub(r'^(the)\s+', '', v, flags=re.I)
    v = re.split(r' \(|;|, ', v)[0]
    return v.strip().lower()

def same(claim, code):
    a, b = norm(claim), norm(code)
    if a == b:
        return True
    # a number may carry a unit or a gloss: "10 s", "604800, 7 days"
    if re.fullmatch(r'-?[0-9.]+', b):
        m = re.match(r'-?[0-9.]+', a)
        return bool(m) and m.group(0) == b
    return False

def size_bytes(v):
    m = re.fullmatch(r'\s*([0-9.]+)\s*([kmgtp]?)(i?b)?\s*', v.lower())
    if not m:
        return None
    return float(m.group(1)) * 1024 ** ('kmgtp'.find(m.group(2)) + 1 if m.group(2) else 0)

# --help defaults: "--opt ..." then "default X" on the next line (biobenchd,
# biobench run) or "(..., default X)" on the option's line (the others)
def help_defaults(text):
    opts, keys, lines = {}, {}, text.split('\n')
    for i, ln in enumerate(lines):
        m = re.match(r'^\s+(?:-\w, )?--(?:\[no-\])?([a-z][a-z0-9-]*)', ln)
        if not m:
            continue
        d = None
        im = re.search(r'\([^()]*?\bdefault:? ([^;,)]+)', ln[m.end():])
        if im:
            d = im.group(1)
        else:
            # the default line follows, after the description when the
            # option's own line is too long for it
            nm = None
            for nxt in lines[i + 1:i + 3]:
                if re.match(r'^\s+(?:-\w, )?--', nxt):
                    break
                nm = re.match(r'^\s+default:? (.*)$', nxt)
                if nm:
                    break
            if nm:
                d = nm.group(1)
                km = re.search(r'in the file: \[([a-z_]+)\] ([a-z_]+)', d)
                d = d.split(';')[0]
                if km:
                    keys[(km.group(1), km.group(2))] = d
        if d is not None:
            opts.setdefault(m.group(1), set()).add(d.strip())
    return opts, keys

dopts, dkeys = help_defaults(read(os.path.join(helps, 'biobenchd')))
copts = {}
for f in glob.glob(os.path.join(helps, 'biobench-*')):
    for k, v in help_defaults(read(f))[0].items():
        copts.setdefault(k, set()).update(v)

def check_man(page, opts, key_of=None):
    global checked
    for section, tag, text in paragraphs(os.path.join(top, 'packaging', page)):
        d = stated(text)
        if d is None:
            continue
        if key_of:
            km = re.match(r'^([a-z_]+)\s*=', tag)
            sm = re.match(r'^\[([a-z_]+)\]', section)
            if not km or not sm:
                continue
            code = key_of.get((sm.group(1), km.group(1)))
            what = '[%s] %s' % (sm.group(1), km.group(1))
            codes = {code} if code else set()
        else:
            om = re.search(r'--(?:\[no-\])?([a-z][a-z0-9-]*)', tag)
            if not om:
                continue
            what = '--' + om.group(1)
            codes = opts.get(om.group(1), set())
        checked += 1
        if not codes:
            bad('%s: %s states "Default: %s", which no --help states' % (page, what, d))
        elif not any(same(d, c) for c in codes):
            bad('%s: %s: "Default: %s", --help: %s' % (page, what, d, ' / '.join(sorted(codes))))

check_man('biobenchd.8', dopts)
check_man('biobenchd.conf.5', None, dkeys)
check_man('biobench.1', copts)

# SECURITY.md: defaults of keys, the connection summary, modes, free space
sec = re.sub(r'\s*\n\s*', ' ', read(os.path.join(top, 'SECURITY.md')))
key_default = {k: v for (s_, k), v in dkeys.items()}
for m in re.finditer(r'`([a-z_]+)` \(default:? ([^)]*)\)', sec):
    key, claim = m.group(1), m.group(2)
    checked += 1
    if key not in key_default:
        bad('SECURITY.md: `%s` (default %s): no such key in biobenchd --help' % (key, claim))
    elif not same(claim, key_default[key]):
        bad('SECURITY.md: `%s` (default %s), biobenchd --help: %s' % (key, claim, key_default[key]))
for m in re.finditer(r'`([a-z_]+)` \(([0-9.]+ ?[KMGT]iB)\)', sec):
    key, claim = m.group(1), m.group(2)
    checked += 1
    code = key_default.get(key)
    if code is None or size_bytes(claim) != size_bytes(code):
        bad('SECURITY.md: `%s` (%s), biobenchd --help: %s' % (key, claim, code))

def claim(text, where, regex, what):
    global checked
    m = re.search(regex, text)
    checked += 1
    if not m:
        bad('%s: the statement of %s is gone or reworded (update check-man.sh)' % (where, what))
    return m

m = claim(sec, 'SECURITY.md', r'connection limits hold by default \((\d+) in all, (\d+) per client address, a whole request within (\d+) s\)', 'the connection limits')
if m:
    for val, key in zip(m.groups(), ['max_connections', 'max_connections_per_peer', 'request_timeout']):
        if not same(val, key_default.get(key, '?')):
            bad('SECURITY.md: connection limits: %s for %s, biobenchd --help: %s' % (val, key, key_default.get(key)))

unit = read(os.path.join(top, 'packaging', 'biobenchd.service'))
spec = read(os.path.join(top, 'packaging', 'biobench.spec'))
postinst = read(os.path.join(top, 'packaging', 'debian', 'biobenchd.postinst'))
state_modes = set(re.findall(r'^StateDirectoryMode=(0[0-7]{3})', unit, re.M)) | \
    set(re.findall(r'%dir %attr\((0[0-7]{3}),root,root\) %\{_sharedstatedir\}/biobench', spec)) | \
    set(re.findall(r'mkdir -m (0[0-7]{3}) /var/lib/biobench', postinst))
if len(state_modes) != 1:
    bad('the state directory modes of the unit, the spec and the postinst differ or are missing: %s' % sorted(state_modes))
for m in re.finditer(r'`?/var/lib/biobench`?,? mode (0[0-7]{3})', sec):
    checked += 1
    if {m.group(1)} != state_modes:
        bad('SECURITY.md: /var/lib/biobench mode %s, the packages: %s' % (m.group(1), sorted(state_modes)))
if not re.search(r'/var/lib/biobench`?,? mode 0', sec):
    bad('SECURITY.md: the state directory\'s mode is not stated (update check-man.sh)')
dconfig = read(os.path.join(top, 'daemon', 'dconfig.c'))
token_modes = set(re.findall(r'mode != (0[0-7]{3})', dconfig))
m = claim(sec, 'SECURITY.md', r'the token file \|[^|]*\| mode (0[0-7]{3}) or (0[0-7]{3})', 'the token file\'s modes')
if m and set(m.groups()) != token_modes:
    bad('SECURITY.md: token file modes %s, daemon/dconfig.c accepts %s' % (sorted(m.groups()), sorted(token_modes)))

filec = read(os.path.join(top, 'core', 'io', 'file.c'))
pct = re.search(r'#define LAYOUT_MARGIN_PCT (\d+)', filec)
mx = re.search(r'#define LAYOUT_MARGIN_MAX \((\d+)ull << 20\)', filec)
margin = (pct.group(1), mx.group(1)) if pct and mx else None
if not margin:
    bad('core/io/file.c: LAYOUT_MARGIN_PCT / LAYOUT_MARGIN_MAX not found (update check-man.sh)')
man1 = ' '.join(filter(None, (groff_line(l) for l in read(os.path.join(top, 'packaging', 'biobench.1')).split('\n'))))
readme = re.sub(r'\s*\n\s*', ' ', read(os.path.join(top, 'README.md')))
for where, text, regex in [
        ('SECURITY.md', sec, r'free space \((\d+) % of the filesystem, at most (\d+) MiB'),
        ('biobench.1', man1, r'keeps (\d+)% of its size \(at most (\d+) MiB\)'),
        ('README.md', readme, r'\((\d+) % of the filesystem, at most (\d+) MiB, is kept free\)')]:
    m = claim(text, where, regex, 'the free space a file layout keeps')
    if m and margin and m.groups() != margin:
        bad('%s: a file layout keeps %s %% / %s MiB free, core/io/file.c: %s %% / %s MiB' % ((where,) + m.groups() + margin))

for f in fails:
    print('check-man: ' + f)
print('check-man: defaults: %d stated defaults and limits checked against --help and the code' % checked)
sys.exit(1 if fails else 0)
PY
then
	fail=1
fi

if [ "$fail" = 0 ]; then
	echo "check-man: OK (man pages and SECURITY.md true to --help and the code)"
fi
exit "$fail"
