/* SPDX-License-Identifier: GPL-2.0-only */
/* boot.h - boot-interleaved kernel A/B: what a variant's "boot" names,
 * the order of the boots, and the decision biobenchd takes when it comes
 * back up after a reboot it armed.
 *
 * A boot job's variants each carry
 *   "boot": {"kernel": "/boot/vmlinuz-6.18.0",   absolute, a regular file
 *            "initrd": "/boot/initrd.img-6.18.0", optional, same
 *            "cmdline": "root=... quiet",        optional: kexec's whole
 *                                                command line (without it
 *                                                the running one is reused)
 *            "release": "6.18.0",                optional: the expected
 *                                                uname -r (default: what
 *                                                follows "vmlinuz-" in the
 *                                                kernel's file name)
 *            "grub_entry": "..."}                optional: the one-shot
 *                                                entry of reboot_method
 *                                                grub-reboot
 * The job runs its boots in pairs ("boots" per variant), each pair in the
 * job's order (bb_job_boot_variant in jobspec.h: a seeded random order
 * per pair by default), repeat measured runs (after warmup runs) in each
 * boot; the boot is the unit of pairing: each boot's runs give one value,
 * their median.
 *
 * Everything here is pure (no I/O) except bb_boot_facts_read. */
#ifndef BB_BOOT_H
#define BB_BOOT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BB_BOOT_CMDLINE_MAX 1024
#define BB_BOOT_RELEASE_MAX 128
#define BB_JOB_DEF_BOOTS 2       /* boots per variant */
#define BB_JOB_MAX_BOOTS 64      /* per variant, whatever the daemon allows */

struct bb_job_boot {
	bool set;                       /* the variant has "boot" */
	char kernel[PATH_MAX];
	char initrd[PATH_MAX];          /* "" none */
	char cmdline[BB_BOOT_CMDLINE_MAX]; /* "" none: the running one */
	char release[BB_BOOT_RELEASE_MAX]; /* expected uname -r, "" any */
	char grub_entry[256];           /* "" none */
};

/* What the running kernel is: uname -r, /proc/cmdline, the boot id and
 * when it booted (ms since the epoch, from /proc/uptime; 0 unknown). */
struct bb_boot_facts {
	char release[BB_BOOT_RELEASE_MAX];
	char cmdline[BB_BOOT_CMDLINE_MAX * 4];
	char boot_id[64];
	int64_t booted_ms;
};

/* Read the running kernel's facts.  0 or -errno (fields left "" when
 * unreadable). */
int bb_boot_facts_read(struct bb_boot_facts *f);

/* Whether the running kernel (f) is the one b names: its release (when b
 * gives or implies one) equals uname -r, and every word of b's cmdline
 * is a word of /proc/cmdline.  why gets what differs when it is not. */
bool bb_boot_matches(const struct bb_job_boot *b, const struct bb_boot_facts *f,
		     char *why, size_t len);

/* The release b expects: b->release, else what follows "vmlinuz-" in the
 * kernel's file name, else "" (none: only the cmdline tells). */
const char *bb_boot_release(const struct bb_job_boot *b, char *buf,
			    size_t len);

/* What biobenchd stored before it rebooted a host for a job. */
struct bb_boot_progress {
	unsigned boot;          /* 0-based boot expected now */
	unsigned boots;         /* in all */
	char variant[32];       /* its variant */
	char boot_id_before[64];/* the boot id before the reboot */
	int64_t deadline_ms;    /* the boot must be up by then */
	unsigned redone;        /* boots redone after an interruption */
};
/* Boots of one job redone after an interruption, at most: a kernel that
 * crashes the host (or a daemon killed again and again) ends the job. */
#define BB_BOOT_REDO_MAX 2

enum bb_boot_decision {
	BB_BOOT_CONTINUE = 0,   /* run the boot's runs */
	BB_BOOT_FAIL,           /* end the job failed, why says it */
};

/* The recovery decision at a start that finds a job rebooting: continue
 * when the boot id changed, the host booted before the deadline (or when
 * that is unknown) and the running kernel is the expected one (expect:
 * the variant's "boot"); else fail with the reason in why ("the host did
 * not reboot (boot id ... unchanged)", "booted 6.1.0 ... instead of
 * variant B's kernel (...)", "the boot into B came up ... after the
 * boot_timeout"). */
enum bb_boot_decision bb_boot_recover_decide(const struct bb_boot_progress *p,
					     const struct bb_job_boot *expect,
					     const struct bb_boot_facts *now,
					     char *why, size_t len);

enum bb_boot_redo {
	BB_BOOT_REDO_HERE = 0,  /* this kernel is the boot's: redo it now */
	BB_BOOT_REDO_REBOOT,    /* reboot into the boot's kernel, redo it */
	BB_BOOT_REDO_FAIL,      /* redone BB_BOOT_REDO_MAX times: end it */
};
/* The decision at a start that finds a boot job still running (its daemon
 * stopped or killed during boot p->boot's runs, or the host went down
 * under it): that boot's finished runs are discarded and the boot redone
 * from its first run -- here when the running kernel (now) is the boot's
 * variant's (expect), else after a reboot into it -- unless the job has
 * redone BB_BOOT_REDO_MAX boots already.  why says what was decided. */
enum bb_boot_redo bb_boot_redo_decide(const struct bb_boot_progress *p,
				      const struct bb_job_boot *expect,
				      const struct bb_boot_facts *now,
				      char *why, size_t len);
/* "rebooting into B (boot 3 of 8)" (boot 0-based in p). */
void bb_boot_progress_text(const struct bb_boot_progress *p, char *buf,
			   size_t len);

#endif
