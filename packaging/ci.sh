#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# ci.sh - build, check, install, run, purge the packages (issue 5, "CI").
#
#   packaging/ci.sh [OUTDIR]                 (default: build-pkg/)
#
# As root on Debian 12 with scripts/install-deps.sh --tests done.  Steps:
#   deb        packaging/build-deb.sh (dpkg-buildpackage -b -us -uc) with
#              its unit tests on, as a distribution builds it (dh_auto_test)
#   lintian    no errors; warnings listed
#   install    apt-get install ./biobench_*.deb ./biobenchd_*.deb; the unit
#              enabled, not started; /var/lib/biobench 0750
#   man        packaging/check-man.sh on the installed programs
#   unit       systemd-analyze verify on the installed unit
#   daemon     the installed biobenchd started as the unit's ExecStart does
#              (with --listen 127.0.0.1:<free port>: no systemd here)
#   job        a small A/B job on nop submitted with the installed
#              `biobench submit --wait`; verdict checked (B has 2 us
#              injected per I/O: "slower")
#   dashboard  / serves the dashboard; the chart library it loads (or
#              /javascript/chart.js/chart.min.js) is served as JavaScript
#   stop       SIGHUP reload, then SIGTERM: exits 0
#   purge      apt-get purge; nothing of the packages left (files from the
#              dpkg -L lists, /etc/biobench, /var/lib/biobench, the unit's
#              enablement links)
#   rpm        packaging/build-rpm.sh (rpmbuild -bb --nodeps, %check's unit
#              tests on) and the RPMs' file lists against the .debs' (same layout)
# Prints a summary with each step's time; exits 1 if any step failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
out=$(realpath -m "${1:-$top/build-pkg}")
logs=$out/ci-logs
mkdir -p "$logs"
export DEBIAN_FRONTEND=noninteractive
t_start=$(date +%s)

steps=() status=() times=() notes=()
failed=0
skip_rest=0
note=""
daemon_pid=""

say() { echo "ci: $*"; }
fail() { echo "ci: FAIL: $*" >&2; note=${note:-$*}; return 1; }

run_step() { # NAME FUNCTION
	local name=$1 fn=$2 t0 rc st
	if ((skip_rest)); then
		steps+=("$name"); status+=(SKIP); times+=(0); notes+=("an earlier step failed")
		return
	fi
	echo
	echo "=== ci: $name ==="
	note=""
	t0=$(date +%s)
	"$fn"
	rc=$?
	st=PASS
	if ((rc)); then st=FAIL; failed=1; fi
	steps+=("$name"); status+=("$st"); times+=($(($(date +%s) - t0))); notes+=("$note")
}

stop_daemon() {
	if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
		kill -TERM "$daemon_pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$daemon_pid" 2>/dev/null
	fi
	daemon_pid=""
}
trap stop_daemon EXIT

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
# processes running the installed binary (not a build tree's biobenchd)
installed_daemons() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = /usr/sbin/biobenchd ] && echo "${p#/proc/}"
	done
}

# ---- steps -------------------------------------------------------------------

step_deb() {
	rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/*.rpm
	DEB_BUILD_OPTIONS="parallel=${CI_JOBS:-2}" "$here/build-deb.sh" "$out" \
		>"$logs/build-deb.log" 2>&1 ||
		{ tail -40 "$logs/build-deb.log"; fail "dpkg-buildpackage failed (see $logs/build-deb.log)"; return 1; }
	tail -8 "$logs/build-deb.log"
	ls "$out"/biobench_*.deb "$out"/biobenchd_*.deb >/dev/null 2>&1 ||
		{ fail "no biobench/biobenchd .deb produced"; return 1; }
}

step_lintian() {
	local changes rc e w i o
	changes=$(ls "$out"/biobench_*.changes | head -1)
	lintian --fail-on error --display-info "$changes" >"$logs/lintian.log" 2>&1
	rc=$?
	grep -v '^N: *$' "$logs/lintian.log" | grep -E '^[EWI]: ' || true
	e=$(grep -c '^E: ' "$logs/lintian.log")
	w=$(grep -c '^W: ' "$logs/lintian.log")
	i=$(grep -c '^I: ' "$logs/lintian.log")
	o=$(lintian --show-overrides --display-info "$changes" 2>/dev/null | grep -c '^O: ')
	lintian_summary="$e errors, $w warnings, $i info; $o overridden (reasons in debian/*.lintian-overrides)"
	say "lintian: $lintian_summary"
	note=$lintian_summary
	((rc == 0 && e == 0)) || { fail "lintian: $e errors (exit $rc)"; return 1; }
}

step_install() {
	local p debs
	: >"$logs/install.log"
	# a clean start: earlier runs' packages go (purged), leftovers are errors
	for p in biobenchd biobench; do
		if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed"; then
			say "purging $p left from an earlier run"
			apt-get purge -y -qq "$p" >>"$logs/install.log" 2>&1
		fi
	done
	for p in /etc/biobench /var/lib/biobench; do
		[ ! -e "$p" ] || { fail "$p exists before installation (not from the packages): remove it"; return 1; }
	done
	debs=("$out"/biobench_*.deb "$out"/biobenchd_*.deb)
	apt-get install -y -q "${debs[@]}" >>"$logs/install.log" 2>&1 ||
		{ tail -20 "$logs/install.log"; fail "apt-get install failed"; return 1; }
	grep -E '^(Setting up|Selecting|The following NEW)' "$logs/install.log" | sed 's/^/  /'
	pkg_installed biobench && pkg_installed biobenchd || { fail "packages not installed"; return 1; }
	dpkg -L biobench >"$logs/dpkg-L.biobench"
	dpkg -L biobenchd >"$logs/dpkg-L.biobenchd"
	for p in /usr/bin/biobench /usr/sbin/biobenchd /etc/biobench/biobenchd.conf \
		/lib/systemd/system/biobenchd.service /usr/share/biobench/web/index.html \
		/usr/share/man/man1/biobench.1.gz /usr/share/man/man5/biobenchd.conf.5.gz \
		/usr/share/man/man8/biobenchd.8.gz; do
		[ -e "$p" ] || { fail "$p not installed"; return 1; }
	done
	[ "$(stat -c '%a %U:%G' /var/lib/biobench 2>/dev/null)" = "750 root:root" ] ||
		{ fail "/var/lib/biobench is not 0750 root:root ($(stat -c '%a %U:%G' /var/lib/biobench 2>&1))"; return 1; }
	[ -L /etc/systemd/system/multi-user.target.wants/biobenchd.service ] ||
		{ fail "biobenchd.service not enabled (no multi-user.target.wants link)"; return 1; }
	[ -z "$(installed_daemons)" ] || { fail "biobenchd was started by the installation"; return 1; }
	say "installed; /var/lib/biobench 0750; unit enabled, not started"
}

step_man() {
	"$here/check-man.sh" /usr/bin/biobench /usr/sbin/biobenchd || { fail "man pages differ from --help"; return 1; }
	for m in biobench biobenchd biobenchd.conf; do
		man "$m" >/dev/null 2>"$logs/man-$m.err" || { fail "man $m does not render"; return 1; }
	done
	say "man biobench, man biobenchd, man biobenchd.conf render"
}

step_unit() {
	systemd-analyze verify /lib/systemd/system/biobenchd.service >"$logs/verify.log" 2>&1 ||
		{ cat "$logs/verify.log"; fail "systemd-analyze verify failed"; return 1; }
	if [ -s "$logs/verify.log" ]; then cat "$logs/verify.log"; fail "systemd-analyze verify printed warnings"; return 1; fi
	say "systemd-analyze verify: clean"
}

port=""
step_daemon() {
	local exec_start
	exec_start=$(sed -n 's/^ExecStart=//p' /lib/systemd/system/biobenchd.service)
	[ -n "$exec_start" ] || { fail "no ExecStart in the installed unit"; return 1; }
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	say "starting: $exec_start --listen 127.0.0.1:$port"
	# shellcheck disable=SC2086 # ExecStart is split into words like systemd does
	$exec_start --listen "127.0.0.1:$port" >"$logs/biobenchd.log" 2>&1 &
	daemon_pid=$!
	for _ in $(seq 100); do
		curl -sf "http://127.0.0.1:$port/api/v1/health" >"$logs/health.json" 2>/dev/null && break
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! curl -sf "http://127.0.0.1:$port/api/v1/health" >"$logs/health.json"; then
		cat "$logs/biobenchd.log"
		fail "the daemon did not answer /api/v1/health"
		return 1
	fi
	say "health: $(cat "$logs/health.json")"
	[ -e /var/lib/biobench/biobench.db ] || { fail "no database in /var/lib/biobench"; return 1; }
}

step_job() {
	local job=$logs/job.json id verdict srv=http://127.0.0.1:$port
	cat >"$job" <<'EOF'
{
  "name": "packaging ci: nop A/B, B with 2 us injected per I/O",
  "target": "nop",
  "workload": { "rw": "randread", "bs": "4k", "iodepth": 32, "runtime": "0.2s" },
  "variants": { "A": {}, "B": { "inject_ns": 2000 } },
  "repeat": 6, "warmup": 1, "order": "interleaved",
  "metric": "iops", "min_effect": 5, "confidence": 0.95
}
EOF
	if ! /usr/bin/biobench --help 2>&1 | grep -qE '^ +submit'; then
		fail "the installed biobench has no submit command (biobench --help)"
		return 1
	fi
	timeout 120 /usr/bin/biobench submit --server "$srv" --wait "$job" >"$logs/submit.out" 2>&1
	local rc=$?
	cat "$logs/submit.out"
	((rc == 0)) || { fail "biobench submit --wait exited $rc"; return 1; }
	id=$(curl -sf "$srv/api/v1/jobs?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["jobs"][0]["id"])') ||
		{ fail "cannot list jobs"; return 1; }
	curl -sf "$srv/api/v1/jobs/$id/compare" >"$logs/compare.json" || { fail "GET /api/v1/jobs/$id/compare failed"; return 1; }
	verdict=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["state"], d["verdict"])' "$logs/compare.json")
	say "job $id: $verdict"
	[ "$verdict" = "done slower" ] || { fail "job $id: expected 'done slower', got '$verdict'"; return 1; }
	grep -q slower "$logs/submit.out" || { fail "biobench submit --wait did not print the verdict"; return 1; }
	note="job $id: slower"
}

step_dashboard() {
	local srv=http://127.0.0.1:$port code ctype js
	code=$(curl -s -o "$logs/index.html" -w '%{http_code} %{content_type}' "$srv/")
	say "GET /: $code"
	[[ $code == "200 text/html"* ]] || { fail "GET / -> $code"; return 1; }
	grep -qi '<html' "$logs/index.html" && grep -qi 'biobench' "$logs/index.html" ||
		{ fail "GET / is not the dashboard"; return 1; }
	# the chart library files the dashboard loads, else the packaged default
	local libs
	libs=$(grep -rhoE '/javascript/chart\.js/[A-Za-z0-9._/-]+\.js' /usr/share/biobench/web | sort -u)
	if [ -z "$libs" ]; then
		libs=/javascript/chart.js/chart.min.js
		say "note: the dashboard loads nothing from /javascript/chart.js/ yet; checking $libs"
	fi
	# the dashboard may name several (a fallback for another Chart.js
	# version): at least one must be served, as JavaScript, and be Chart.js
	local ok=""
	for js in $libs; do
		code=$(curl -s -o "$logs/chart.js" -w '%{http_code} %{content_type}' "$srv$js")
		if [[ $code == "200 text/javascript"* || $code == "200 application/javascript"* ]] &&
			grep -q 'Chart' "$logs/chart.js"; then
			say "GET $js: $code, $(stat -c %s "$logs/chart.js") bytes of Chart.js"
			ok="$ok $js"
		else
			say "GET $js: $code (not served)"
		fi
	done
	[ -n "$ok" ] || { fail "none of the chart library files the dashboard loads is served:" $libs; return 1; }
	js=${ok# }
	note="/ and $js served"
}

step_stop() {
	local rc
	[ -n "$daemon_pid" ] || { fail "the daemon is not running"; return 1; }
	kill -HUP "$daemon_pid"
	sleep 0.5
	curl -sf "http://127.0.0.1:$port/api/v1/health" >/dev/null || { fail "not answering after SIGHUP"; return 1; }
	grep -q 'configuration reloaded' "$logs/biobenchd.log" || { fail "SIGHUP: no 'configuration reloaded' in the log"; return 1; }
	kill -TERM "$daemon_pid"
	for _ in $(seq 100); do kill -0 "$daemon_pid" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$daemon_pid" 2>/dev/null; then fail "still running 10 s after SIGTERM"; return 1; fi
	wait "$daemon_pid"
	rc=$?
	daemon_pid=""
	tail -3 "$logs/biobenchd.log"
	((rc == 0)) || { fail "biobenchd exited $rc after SIGTERM"; return 1; }
	say "SIGHUP reloaded, SIGTERM stopped (exit 0)"
}

step_purge() {
	local f left=()
	apt-get purge -y -q biobench biobenchd >"$logs/purge.log" 2>&1 ||
		{ tail -20 "$logs/purge.log"; fail "apt-get purge failed"; return 1; }
	for p in biobench biobenchd; do
		st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
		case "$st" in
		"" | *not-installed) ;;
		*) fail "$p after purge: $st"; return 1 ;;
		esac
	done
	# every path of the packages: files must be gone, folders too unless
	# another package owns them
	while IFS= read -r f; do
		[ -n "$f" ] && [ "$f" != "/." ] || continue
		if [ -d "$f" ]; then
			# a folder may stay if another package owns it; /lib and
			# the like are the system's usrmerge links
			[ -L "$f" ] || dpkg -S "$f" >/dev/null 2>&1 || left+=("$f/")
		elif [ -e "$f" ] || [ -L "$f" ]; then
			left+=("$f")
		fi
	done < <(cat "$logs/dpkg-L.biobench" "$logs/dpkg-L.biobenchd")
	for f in /etc/biobench /var/lib/biobench \
		/etc/systemd/system/multi-user.target.wants/biobenchd.service \
		/var/lib/systemd/deb-systemd-helper-enabled/biobenchd.service.dsh-also \
		/var/lib/systemd/deb-systemd-helper-enabled/multi-user.target.wants/biobenchd.service; do
		[ ! -e "$f" ] && [ ! -L "$f" ] || left+=("$f")
	done
	if ((${#left[@]})); then
		printf '  left behind: %s\n' "${left[@]}"
		fail "${#left[@]} paths left behind after purge"
		return 1
	fi
	say "purged: no file, folder, conffile, state or enablement link left"
}

# path sets: files (not folders) of a .deb / .rpm, normalized for the
# comparison: /lib -> /usr/lib (usrmerge), man page compression dropped,
# /usr/share/doc and /usr/share/licenses (where each format keeps the
# license: debian/copyright, the spec's %license COPYING; checked on their
# own below), lintian overrides and build-id links left out
norm() {
	sed -E 's#^/lib/#/usr/lib/#; s#\.(gz|xz|bz2|zst)$##' |
		grep -vE '^/usr/share/doc/|^/usr/share/licenses/|^/usr/lib/\.build-id|^/usr/share/lintian/' | sort -u
}
deb_files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { p=$6; sub(/^\./, "", p); print p }' | norm; }
rpm_files() { rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null | awk '$1 !~ /^d/ { print $2 }' | norm; }
rpm_dirs() { rpm -qp --qf '[%{FILEMODES:perms} %{FILENAMES}\n]' "$1" 2>/dev/null | awk '$1 ~ /^d/ { print $2 }'; }

step_rpm() {
	local p deb rpm only_deb only_rpm bad=0
	"$here/build-rpm.sh" "$out" >"$logs/build-rpm.log" 2>&1 ||
		{ tail -40 "$logs/build-rpm.log"; fail "rpmbuild failed (see $logs/build-rpm.log)"; return 1; }
	grep -E '^(build-rpm|Wrote):' "$logs/build-rpm.log" | sed 's/^/  /'
	for p in biobench biobenchd; do
		deb=$(ls "$out"/${p}_*.deb | head -1)
		rpm=$(ls "$out"/$p-[0-9]*.rpm 2>/dev/null | grep -v debug | head -1)
		[ -n "$rpm" ] || { fail "no $p .rpm"; return 1; }
		deb_files "$deb" >"$logs/files.$p.deb"
		rpm_files "$rpm" >"$logs/files.$p.rpm"
		echo "  $p: $(wc -l <"$logs/files.$p.deb") files in the .deb, $(wc -l <"$logs/files.$p.rpm") in the .rpm"
		only_deb=$(comm -23 "$logs/files.$p.deb" "$logs/files.$p.rpm")
		# the RPM bundles Chart.js (Fedora has no package of it); the
		# .deb depends on libjs-chart.js
		only_rpm=$(comm -13 "$logs/files.$p.deb" "$logs/files.$p.rpm" | grep -v '^/usr/share/javascript/chart\.js/')
		# the license, as each format ships it (listed to files first:
		# grep -q leaving early would kill the lister under pipefail)
		dpkg-deb -c "$deb" >"$logs/contents.$p.deb"
		rpm -qp --licensefiles "$rpm" >"$logs/licenses.$p.rpm" 2>/dev/null
		grep -q "\./usr/share/doc/$p/copyright\$" "$logs/contents.$p.deb" ||
			{ echo "    the .deb has no /usr/share/doc/$p/copyright"; bad=1; }
		grep -q '/COPYING$' "$logs/licenses.$p.rpm" ||
			{ echo "    the .rpm has no %license COPYING"; bad=1; }
		[ -z "$only_deb" ] || { printf '    only in the .deb: %s\n' $only_deb; bad=1; }
		[ -z "$only_rpm" ] || { printf '    only in the .rpm: %s\n' $only_rpm; bad=1; }
		if [ "$p" = biobenchd ]; then
			echo "    expected: the .rpm bundles $(grep -c '^/usr/share/javascript/chart\.js/' "$logs/files.$p.rpm") Chart.js files (the .deb depends on libjs-chart.js)"
			rpm_dirs "$rpm" | grep -qx /var/lib/biobench ||
				{ echo "    the .rpm does not own /var/lib/biobench"; bad=1; }
			echo "    expected: the .rpm owns /var/lib/biobench (%dir 0750); the .deb creates it in postinst"
			rpm -qp --configfiles "$rpm" 2>/dev/null | grep -qx /etc/biobench/biobenchd.conf ||
				{ echo "    /etc/biobench/biobenchd.conf is not a %config file"; bad=1; }
			rpm -qp --scripts "$rpm" 2>/dev/null | grep -q systemctl ||
				{ echo "    no systemd scriptlets"; bad=1; }
		fi
	done
	((bad == 0)) || { fail "the RPM layout differs from the .deb's"; return 1; }
	note="same layout as the .debs"
}

# ---- run -----------------------------------------------------------------------

[ "$(id -u)" = 0 ] || { echo "ci: run as root (apt-get install/purge)" >&2; exit 1; }
lintian_summary="not run"
run_step "build .deb (dpkg-buildpackage -b)" step_deb
((failed)) && skip_rest=1
run_step "lintian" step_lintian
run_step "apt-get install ./*.deb" step_install
((failed)) && skip_rest=1
run_step "man pages true to --help" step_man
run_step "systemd-analyze verify" step_unit
run_step "start installed biobenchd (ExecStart)" step_daemon
if ((failed)); then
	skip_rest=1
fi
run_step "biobench submit --wait: A/B on nop" step_job
run_step "dashboard and chart library" step_dashboard
run_step "SIGHUP reload, SIGTERM stop" step_stop
stop_daemon
skip_rest=0
if pkg_installed biobenchd || pkg_installed biobench; then
	run_step "apt-get purge, nothing left" step_purge
fi
run_step "rpmbuild -bb, layout vs .deb" step_rpm

echo
echo "=== ci: packaging summary ($(($(date +%s) - t_start)) s; logs in $logs) ==="
for i in "${!steps[@]}"; do
	printf '  %-4s %4ss  %-40s %s\n' "${status[$i]}" "${times[$i]}" "${steps[$i]}" "${notes[$i]}"
done
echo "  packages: $(cd "$out" && ls *.deb *.rpm 2>/dev/null | tr '\n' ' ')"
if ((failed)); then
	echo "ci: packaging FAILED"
	exit 1
fi
echo "ci: packaging OK"
