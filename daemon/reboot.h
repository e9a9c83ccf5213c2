/* SPDX-License-Identifier: GPL-2.0-only */
/* reboot.h - how biobenchd reboots the host for a boot job: the commands
 * of each reboot_method (dconfig.h), with the programs the configuration
 * names (kexec, systemctl, grub_reboot, grub_editenv: tests put their
 * own).
 *
 *   kexec-systemd  arm: kexec -l KERNEL [--initrd=INITRD]
 *                       (--append=CMDLINE | --reuse-cmdline)
 *                  go:  systemctl kexec
 *   grub-reboot    arm: grub-reboot ENTRY      go: systemctl reboot
 *                  unarm: grub-editenv - unset next_entry
 *   kexec-exec     arm: as kexec-systemd       go: the daemon stops
 *                  cleanly (store closed, synced), then execs kexec -e
 *                  (bb_reboot_exec)
 * Each program runs with the daemon's signals unblocked, its output
 * captured for the message. */
#ifndef BB_REBOOT_H
#define BB_REBOOT_H

#include "dconfig.h"
#include <biobench/boot.h>

#include <stddef.h>

struct bb_reboot_cmds {
	unsigned method;            /* enum bb_reboot_method */
	char kexec[PATH_MAX];
	char systemctl[PATH_MAX];
	char grub_reboot[PATH_MAX];
	char grub_editenv[PATH_MAX];
};

/* The commands of configuration c. */
void bb_reboot_cmds_of(struct bb_reboot_cmds *r, const struct bb_dconfig *c);

/* Arm the next boot into b.  0, or -errno with the command and its
 * output in err ("kexec -l /boot/vmlinuz-x: exit 1: Cannot open ..."). */
int bb_reboot_arm(const struct bb_reboot_cmds *r, const struct bb_job_boot *b,
		  char *err, size_t errlen);

/* Undo an arm that will not be used, so that the next reboot boots the
 * host's default kernel: kexec -u, or grub-editenv - unset next_entry
 * (the one-shot entry grub-reboot set).  0 or -errno with err. */
int bb_reboot_unarm(const struct bb_reboot_cmds *r, char *err, size_t errlen);

/* Reboot now for the systemd methods (systemctl kexec / reboot; the
 * daemon is then stopped by systemd).  kexec-exec: 0, nothing run (the
 * caller stops the daemon, which then calls bb_reboot_exec). */
int bb_reboot_go(const struct bb_reboot_cmds *r, char *err, size_t errlen);

/* kexec-exec, the daemon's last act once everything is closed: sync()
 * and exec kexec -e.  Returns only on failure (-errno). */
int bb_reboot_exec(const char *kexec);

#endif
