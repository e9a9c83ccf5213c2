#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# boot_jobs.sh BIOBENCHD - what a boot job may make a host boot, against a
# real biobenchd with allow_reboot = yes and stand-in kexec and systemctl
# programs (they log what they get and never reboot anything):
#  - no boot_dirs (the default): a boot job is refused (400 naming
#    variants.A.boot.kernel, saying boot_dirs is needed);
#  - the issue's case: world-writable kernels in a world-writable
#    directory under /tmp, with that directory in boot_dirs: 400 (/tmp is
#    writable by others), nothing armed;
#  - a kernel that is a symlink, one outside boot_dirs, a cmdline with
#    init=, systemd.unit=, single, root=: 400 naming the field and the
#    parameter;
#  - root's kernels in root's directory: accepted; arming the boot runs
#    kexec -l /proc/self/fd/N, and what the stand-in reads there is the
#    checked kernel.
source "$(dirname "$0")/daemon_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root (root-owned kernel files)"
[ -n "$TMP" ] && [ -d "$TMP" ] || skip "no temporary directory"
BOOT=$(mktemp -d /run/bb-it-boot.XXXXXX) || skip "cannot create a directory in /run"
cleanup_hooks+=("rm -rf $BOOT")
WW=$(mktemp -d /tmp/bb-it-boot-ww.XXXXXX)
cleanup_hooks+=("rm -rf $WW")
chmod 1777 "$WW"
echo "kernel A" >"$BOOT/vmlinuz-9.9.9-a"
echo "kernel B" >"$BOOT/vmlinuz-9.9.9-b"
echo "evil" >"$WW/vmlinuz-9.9.9-a"
echo "evil" >"$WW/vmlinuz-9.9.9-b"
chmod 666 "$WW"/vmlinuz-*
ln -s "$BOOT/vmlinuz-9.9.9-b" "$BOOT/vmlinuz-9.9.9-link"
STUBS=$TMP/bin
mkdir -p "$STUBS"
printf '#!/bin/sh\necho "$@" >> %s/kexec.log\n[ "$1" = -l ] && cat "$2" >> %s/kexec.kernel\nexit 1\n' \
	"$TMP" "$TMP" >"$STUBS/kexec"
printf '#!/bin/sh\necho "$@" >> %s/systemctl.log\nexit 1\n' "$TMP" >"$STUBS/systemctl"
chmod 755 "$STUBS/kexec" "$STUBS/systemctl"

reboot_config() { # [boot_dirs]
	write_config
	{
		echo "[reboot]"
		echo "allow_reboot = yes"
		echo "kexec = $STUBS/kexec"
		echo "systemctl = $STUBS/systemctl"
		echo "grub_editenv = $STUBS/systemctl"
		[ -z "${1:-}" ] || echo "boot_dirs = $1"
	} >>"$DCONF"
}

# job KERNEL_A KERNEL_B [B's cmdline]
job() {
	local cl=${3:+, \"cmdline\": \"$3\"}
	echo "{\"name\": \"boot\", \"target\": \"nop\", \"workload\": {\"number_ios\": 100},
 \"repeat\": 2, \"warmup\": 0, \"variants\": {\"A\": {\"boot\": {\"kernel\": \"$1\"}},
 \"B\": {\"boot\": {\"kernel\": \"$2\"$cl}}}}"
}

# refused WHY FIELD WANT BODY: 400 naming FIELD, the message holds WANT
refused() {
	local why=$1 field=$2 want=$3
	api POST /api/v1/jobs "$4"
	if [ "$API_STATUS" = 400 ] && [ "$(api_get 'd["error"]["field"]')" = "$field" ] &&
		api_get 'd["error"]["message"]' | grep -qF -- "$want"; then
		pass "$why: 400 on $field ($want)"
	else fail "$why: $API_STATUS $(cat "$API_BODY")"; fi
}

reboot_config
daemon_start || { finish; exit 1; }
refused "no boot_dirs" variants.A.boot.kernel "boot jobs need boot_dirs in [reboot]" \
	"$(job "$BOOT/vmlinuz-9.9.9-a" "$BOOT/vmlinuz-9.9.9-b")"
daemon_stop

reboot_config "$WW $BOOT"
daemon_start || { finish; exit 1; }
refused "world-writable kernels under /tmp" variants.A.boot.kernel "/tmp is writable by others" \
	"$(job "$WW/vmlinuz-9.9.9-a" "$WW/vmlinuz-9.9.9-b")"
refused "a symlink" variants.B.boot.kernel "is a symlink" \
	"$(job "$BOOT/vmlinuz-9.9.9-a" "$BOOT/vmlinuz-9.9.9-link")"
echo x >"$TMP/vmlinuz-9.9.9-x"
refused "outside boot_dirs" variants.B.boot.kernel "not under boot_dirs" \
	"$(job "$BOOT/vmlinuz-9.9.9-a" "$TMP/vmlinuz-9.9.9-x")"
for p in "init=/bin/sh" "quiet systemd.unit=rescue.target" "single" "root=/dev/sdb1"; do
	refused "cmdline '$p'" variants.B.boot.cmdline "parameter '${p##* }'" \
		"$(job "$BOOT/vmlinuz-9.9.9-a" "$BOOT/vmlinuz-9.9.9-b" "$p")"
done
[ ! -e "$TMP/kexec.log" ] && pass "nothing refused was armed" || fail "kexec ran: $(cat "$TMP/kexec.log")"

# root's kernels in root's directory: accepted, armed from the checked fd
api POST /api/v1/jobs "$(job "$BOOT/vmlinuz-9.9.9-a" "$BOOT/vmlinuz-9.9.9-b" "quiet mitigations=off bbkernel=B")"
if [ "$API_STATUS" = 201 ]; then
	id=$(api_get 'd["id"]')
	pass "root's kernels in boot_dirs, allowed cmdline: 201"
	st=$(wait_job "$id" 60)
	# neither is the running kernel: a reboot into the first boot's (A
	# or B: the pair's order is random), whose arm the stand-in fails;
	# B's parameters on the host's line without its mitigations= and quiet
	k=$(cat "$TMP/kexec.kernel" 2>/dev/null)
	if [ "$k" = "kernel B" ]; then want=' mitigations=off bbkernel=B'; else want=''; fi
	if [ "$st" = failed ] && grep -q "^-l /proc/self/fd/[0-9]* --append=" "$TMP/kexec.log" &&
		{ [ "$k" = "kernel A" ] || [ "$k" = "kernel B" ]; } && grep -qF -- "$want" "$TMP/kexec.log" &&
		[ "$(grep -o 'mitigations=[^ ]*' "$TMP/kexec.log" | wc -l)" -le 1 ] &&
		[ ! -e "$TMP/systemctl.log" ]; then
		pass "armed with kexec -l /proc/self/fd/N: the checked kernel, no reboot ($(head -c 120 "$TMP/kexec.log"))"
	else fail "arm: job $st, kexec: $(cat "$TMP/kexec.log" 2>/dev/null), read: $(cat "$TMP/kexec.kernel" 2>/dev/null)"; fi
else fail "good boot job: $API_STATUS $(cat "$API_BODY")"; fi
finish
