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
	unsigned nboot_dirs;        /* boot_dirs (dconfig.h) */
	char boot_dirs[BB_DCONFIG_MAX_BOOT_DIRS][PATH_MAX];
	char kexec[PATH_MAX];
	char systemctl[PATH_MAX];
	char grub_reboot[PATH_MAX];
	char grub_editenv[PATH_MAX];
};

/* The commands of configuration c. */
void bb_reboot_cmds_of(struct bb_reboot_cmds *r, const struct bb_dconfig *c);

struct bb_job;

/* Open a boot job's kernel or initrd: path must lie in one of the n
 * boot_dirs, and it is walked from "/" one component at a time with
 * openat(O_PATH | O_NOFOLLOW): every directory on the way and the file
 * itself must be owned by root and not group- or world-writable, none a
 * symlink, the file a regular file; each check is made with fstat on the
 * descriptor opened, and the descriptor (O_PATH, O_CLOEXEC) is what kexec
 * gets (/proc/self/fd/N), so a file swapped after the check is never
 * used.  The fd, or -errno with the reason in why ("/tmp is writable by
 * others (mode 1777)", "not under boot_dirs (/boot)"). */
int bb_boot_file_open(const char (*dirs)[PATH_MAX], unsigned n,
		      const char *path, char *why, size_t len);

/* Whether a job's boot.cmdline may be appended to the host's: every
 * parameter must be one of the allow-list (reboot.c: console, loglevel,
 * quiet, panic, mitigations, isolcpus, nohz_full, rcu_nocbs, iommu,
 * transparent_hugepage, nvme.poll_queues, ... and markers bbNAME=VALUE),
 * with a value of letters, digits and . , : _ / + - @ only.  init=,
 * rdinit=, root=, module.sig_enforce=, lockdown=, selinux=, apparmor=,
 * security=, lsm=, systemd.*, rd.*, sysctl.*, single, emergency, rescue
 * and every bare word passed to init are refused.  0, or -EINVAL with the
 * first parameter refused in param and why ("changes what runs as root:
 * init= chooses the first program"). */
int bb_boot_cmdline_check(const char *cmdline, char *param, size_t plen,
			  char *why, size_t len);

/* Every variant's boot of job against boot_dirs and the cmdline rule:
 * 0, or -EACCES/-EINVAL with the field ("variants.B.boot.kernel",
 * "variants.A.boot.cmdline") and the reason. */
int bb_boot_job_check(const char (*dirs)[PATH_MAX], unsigned n,
		      const struct bb_job *job, char *field, size_t flen,
		      char *why, size_t len);

/* The command line kexec gets for variant vi of job: the running one
 * (running: /proc/cmdline) without BOOT_IMAGE= and without every
 * parameter any variant of the job sets (so that A's do not stay on in
 * B's boot, nor pile up boot after boot), then the variant's own (before
 * a "--" and the init arguments after it, kept as they are).  0 or
 * -E2BIG. */
int bb_boot_cmdline_compose(const struct bb_job *job, unsigned vi,
			    const char *running, char *out, size_t len);

/* Arm the next boot into b: its kernel and initrd opened with
 * bb_boot_file_open (r's boot_dirs) and given to kexec as
 * /proc/self/fd/N; cmdline (bb_boot_cmdline_compose) as --append, or
 * --reuse-cmdline when NULL.  0, or -errno with the command and its
 * output in err ("kexec -l /proc/self/fd/5: exit 1: Cannot open ..."). */
int bb_reboot_arm(const struct bb_reboot_cmds *r, const struct bb_job_boot *b,
		  const char *cmdline, char *err, size_t errlen);

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
