/* SPDX-License-Identifier: GPL-2.0-only */
/* dconfig.h - biobenchd's configuration: an INI file (libinih) with
 * command-line overrides.
 *
 *   [server]
 *   listen = 127.0.0.1:8420       ; ADDR:PORT, [v6addr]:PORT
 *   db = /var/lib/biobench/biobench.db
 *   store =                       ; sqlite:///PATH (= db), or a shared
 *                                 ; PostgreSQL database: postgresql://
 *                                 ; USER@HOST/DB, service=NAME; never a
 *                                 ; password (~/.pgpass, pg_service.conf)
 *   knob_journal = /var/lib/biobench/knobs.db
 *                                 ; a PostgreSQL store's knob journal: a
 *                                 ; local sqlite file (a sqlite store
 *                                 ; journals in its own file)
 *   web_root = /usr/share/biobench/web
 *   token_file =                  ; bearer token (first line); required
 *                                 ; for a non-loopback listen address
 *   http_cpus = 0                 ; CPUs of the HTTP threads (cpulist)
 *   bench_cpus = 1                ; default CPUs of jobs; a job may not
 *                                 ; use an HTTP CPU
 *   http_threads = 2
 *   max_body = 1m                 ; request body limit
 *   max_run_memory = 8g           ; memory a run may use for I/O
 *                                 ; (default: half of RAM, or of the
 *                                 ; cgroup's limit), checked at submit
 *   max_connections = 2048
 *   timeout = 30                  ; seconds a connection may idle
 *   request_timeout = 10          ; seconds to a whole request (head and
 *                                 ; body) from the connection's start or
 *                                 ; its previous answer
 *   max_connections_per_peer = 64 ; per client address, loopback too
 *   allowed_hosts =               ; Host names besides the listen address
 *                                 ; and localhost (NAME or NAME:PORT,
 *                                 ; repeatable, blank/comma separated)
 *   max_queued_jobs = 1000        ; 429 beyond
 *   host_name = bench-3.lab       ; default: the system host name
 *   lease_seconds = 60            ; a claimed job's lease
 *   host_gone_seconds = 604800    ; registry rows unseen this long go
 *   no_runner = no                ; yes: a front end (API, dashboard), no
 *                                 ; scheduler: runs no job (--no-runner)
 *   max_job_seconds = 604800      ; planned runs x (runtime + ramp)
 *   [targets]
 *   allow = nop
 *   allow = /var/lib/biobench/bench-*.dat
 *   allow_write = /var/lib/biobench/bench-*.dat
 *                                 ; both repeatable: a path or glob
 *                                 ; (fnmatch, FNM_PATHNAME); allow_write
 *                                 ; implies allow
 *   allow_knobs = /dev/loop* nomerges read_ahead_kb
 *                                 ; repeatable: the sysfs queue knobs jobs
 *                                 ; on the matching targets may set; none
 *                                 ; without it.  "*" allows every knob but
 *                                 ; write_cache and scheduler on a disk
 *                                 ; that holds a mounted filesystem: those
 *                                 ; must be named
 *   [reboot]                      ; boot jobs (kernel A/B across boots)
 *   allow_reboot = no             ; yes: boot jobs may reboot this host
 *   reboot_method = kexec-systemd ; kexec-systemd: kexec -l, then
 *                                 ; systemctl kexec; grub-reboot: the
 *                                 ; variant's grub_entry once, then
 *                                 ; systemctl reboot; kexec-exec (no
 *                                 ; systemd): kexec -l, the daemon stops
 *                                 ; cleanly and execs kexec -e
 *   max_boots_per_job = 16        ; boots of one job in all
 *   boot_timeout = 600            ; seconds a reboot may take: a boot not
 *                                 ; up by then fails its job
 *   boot_dirs = /boot /var/lib/biobench/boot
 *                                 ; repeatable: where boot jobs' kernels
 *                                 ; and initrds may come from (each file
 *                                 ; and every directory above it root's,
 *                                 ; not group/world-writable, no symlink);
 *                                 ; none (the default): boot jobs refused
 *   kexec = /sbin/kexec           ; the programs run (tests put their own)
 *   systemctl = /bin/systemctl
 *   grub_reboot = /usr/sbin/grub-reboot
 *   grub_editenv = /usr/bin/grub-editenv ; a cancel: "- unset next_entry"
 *
 * Defaults are those above, with http_cpus = CPU 0 and bench_cpus = the
 * last online CPU (on a 1-CPU host both are 0 and a warning is logged). */
#ifndef BB_DCONFIG_H
#define BB_DCONFIG_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#define BB_DEFAULT_PORT 8420
#define BB_DCONFIG_MAX_ALLOW 64
#define BB_DCONFIG_MAX_CPUS 64
#define BB_DCONFIG_MAX_HOSTS 16
#define BB_DCONFIG_MAX_PARALLEL 16 /* max_parallel_jobs at most */
#define BB_DCONFIG_HOST_MAX 256
#define BB_DCONFIG_TOKEN_MIN 16
#define BB_DCONFIG_MAX_BOOT_DIRS 8

struct bb_allow {
	char pattern[PATH_MAX];
	bool write;
};

#define BB_DCONFIG_MAX_KNOB_RULES 32
#define BB_DCONFIG_MAX_RULE_KNOBS 16

/* allow_knobs = PATTERN KNOB...: the knobs jobs on targets matching
 * PATTERN (as allow) may set; "*" for any (not covering a dangerous knob
 * on a disk with a mounted filesystem). */
struct bb_allow_knobs {
	char pattern[PATH_MAX];
	bool any;
	unsigned n;
	char knob[BB_DCONFIG_MAX_RULE_KNOBS][64];
};

enum bb_reboot_method {
	BB_REBOOT_KEXEC_SYSTEMD = 0,
	BB_REBOOT_GRUB_REBOOT,
	BB_REBOOT_KEXEC_EXEC,
	BB_REBOOT__COUNT
};

/* Why the n bytes at dir are not a boot_dirs entry (absolute, no empty,
 * "." or ".." component, no trailing '/', not "/"), NULL when they are. */
const char *bb_boot_dir_check(const char *dir, size_t n);

/* "kexec-systemd", "grub-reboot", "kexec-exec". */
const char *bb_reboot_method_name(enum bb_reboot_method m);

struct bb_dconfig {
	char config_path[PATH_MAX];  /* "" when none */
	char listen_addr[64];        /* numeric address */
	uint16_t port;
	bool loopback;               /* listen_addr is 127.0.0.0/8 or ::1 */
	/* the store's location after bb_dconfig_check: a sqlite path or a
	 * PostgreSQL connection string (store = ..., else db = ...) */
	char db_path[PATH_MAX];
	bool db_given;               /* db = ... or --db was given */
	char store[PATH_MAX];        /* store = ... as given, "" none */
	/* a PostgreSQL store's local knob journal (unused with sqlite) */
	char knob_journal[PATH_MAX];
	bool knob_journal_given;
	char web_root[PATH_MAX];
	char token_file[PATH_MAX];
	char token[256];             /* loaded by bb_dconfig_check */
	size_t token_len;
	int http_cpus[BB_DCONFIG_MAX_CPUS];
	unsigned n_http_cpus;
	int bench_cpus[BB_DCONFIG_MAX_CPUS];
	unsigned n_bench_cpus;
	unsigned http_threads;
	size_t max_body;
	size_t max_run_memory;       /* bytes a run may use for I/O */
	unsigned max_connections;
	unsigned timeout_s;
	unsigned request_timeout_s;
	unsigned max_per_peer;
	unsigned nhosts;
	char hosts[BB_DCONFIG_MAX_HOSTS][BB_DCONFIG_HOST_MAX]; /* lower case */
	unsigned max_queued_jobs;
	unsigned max_parallel_jobs;  /* jobs run at once (1: one at a time) */
	unsigned max_job_s;
	char host_name[254];         /* the fleet: this daemon's name */
	unsigned lease_s;            /* a claimed job's lease */
	unsigned host_gone_s;        /* registry rows unseen this long go
					(0: never) */
	bool no_runner;              /* a front end: no scheduler */
	char pidfile[PATH_MAX];      /* --pidfile, "" when none */
	unsigned nallow;
	struct bb_allow allow[BB_DCONFIG_MAX_ALLOW];
	unsigned nknob_rules;
	struct bb_allow_knobs knob_rules[BB_DCONFIG_MAX_KNOB_RULES];
	bool foreground;
	/* [reboot]: boot jobs */
	bool allow_reboot;
	unsigned reboot_method;      /* enum bb_reboot_method */
	unsigned max_boots_per_job;
	unsigned boot_timeout_s;
	unsigned nboot_dirs;         /* boot_dirs: none, boot jobs refused */
	char boot_dirs[BB_DCONFIG_MAX_BOOT_DIRS][PATH_MAX];
	char kexec_path[PATH_MAX];
	char systemctl_path[PATH_MAX];
	char grub_reboot_path[PATH_MAX];
	char grub_editenv_path[PATH_MAX];
};

void bb_dconfig_default(struct bb_dconfig *c);

/* Read an INI file over c.  Errors name the file, line and key, and what
 * is allowed ("/etc/biobench/biobenchd.conf:4: max_body: '1x' is not a
 * size").  Unknown sections or keys are errors.  0 or -errno. */
int bb_dconfig_load(struct bb_dconfig *c, const char *path, char *err,
		    size_t errlen);

/* Command line: --config FILE (loaded first, wherever it appears), then
 * one option per INI key (--listen ADDR:PORT, --db PATH, --token-file
 * FILE, --max-queued-jobs N, ...: see dopt_table), and --foreground,
 * --pidfile FILE, --help, --version.  Returns 0, 1 for --help or
 * --version (printed to stdout), or -EINVAL with a message. */
int bb_dconfig_args(struct bb_dconfig *c, int argc, char **argv, char *err,
		    size_t errlen);
void bb_dconfig_usage(FILE *f);

/* Final checks: a non-loopback listen address needs a token file.  A
 * token file must be a regular file of mode 0600 or 0400 owned by the
 * daemon's effective user, and its first line (blanks trimmed) 16..255
 * bytes without a NUL: the token is loaded (token, token_len).  http and
 * bench CPUs online.  0 or -EINVAL with the reason. */
int bb_dconfig_check(struct bb_dconfig *c, char *err, size_t errlen);

/* Whether a job may use target ("nop" or a path, canonicalized with
 * realpath - of its directory when the file does not exist yet - before
 * matching, so "/var/lib/biobench/../../dev/sda" is judged as /dev/sda),
 * for writing when write.  0, or -EACCES with the reason ("target
 * /dev/sda is not in the allow-list (allow = nop, /var/lib/...)" or
 * "target ... is allowed read-only: writes need allow_write"). */
int bb_dconfig_target_allowed(const struct bb_dconfig *c,
			      const char *target, bool write, char *why,
			      size_t len);

/* Whether a job on target may set sysfs knob: an allow_knobs entry whose
 * pattern matches target (canonicalized as above) names it, or has "*"
 * and the knob is not dangerous here (dangerous: bb_sysknob_dangerous()
 * on a disk that holds a mounted filesystem, as the caller found; mounted
 * names it, e.g. "/ (/dev/vda1)").  0, or -EACCES with the reason. */
int bb_dconfig_knob_allowed(const struct bb_dconfig *c, const char *target,
			    const char *knob, bool dangerous,
			    const char *mounted, char *why, size_t len);

#endif
