// SPDX-License-Identifier: GPL-2.0-only
/* test_dconfig.c - biobenchd configuration: defaults, the INI file (real
 * files, tests/data/biobenchd-test.conf), the command line, final checks
 * (token file modes) and the target allow-list on a real directory tree
 * (.. traversal, symlinks). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "helpers.h"

#include "dconfig.h"
#include "reboot.h"
#include <biobench/jobspec.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


struct tmp {
	char dir[PATH_MAX]; /* realpath of a fresh temporary directory */
};

static int setup(void **state)
{
	struct tmp *t = calloc(1, sizeof(*t));
	char d[] = "/tmp/bb-dconfig.XXXXXX";

	if (!t || !mkdtemp(d) || !realpath(d, t->dir)) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tmp *t = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", t->dir);
	free(t);
	return 0;
}

/* Write text to DIR/name; path receives the full name. */
static void write_file(const struct tmp *t, const char *name,
		       const char *text, mode_t mode, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", t->dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, mode), 0);
}

static struct bb_dconfig *new_cfg(void)
{
	struct bb_dconfig *c = malloc(sizeof(*c));

	assert_non_null(c);
	bb_dconfig_default(c);
	return c;
}

static int last_online_cpu(void)
{
	char buf[256] = "";
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	char *p;

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	p = buf + strlen(buf);
	while (p > buf && isdigit((unsigned char)p[-1]))
		p--;
	return atoi(p);
}

static void data_conf(char *path, size_t len)
{
	bb_test_src_path(path, len, "tests/data/biobenchd-test.conf");
}

/* ---- defaults ---------------------------------------------------------------- */

static void test_defaults(void **state)
{
	struct bb_dconfig *c = new_cfg();
	char err[512] = "";

	(void)state;
	assert_string_equal(c->config_path, "");
	assert_string_equal(c->listen_addr, "127.0.0.1");
	assert_int_equal(c->port, BB_DEFAULT_PORT);
	assert_int_equal(c->port, 8420);
	assert_true(c->loopback);
	assert_string_equal(c->db_path, "/var/lib/biobench/biobench.db");
	assert_string_equal(c->web_root, "/usr/share/biobench/web");
	assert_string_equal(c->token_file, "");
	assert_int_equal(c->n_http_cpus, 1);
	assert_int_equal(c->http_cpus[0], 0);
	assert_int_equal(c->n_bench_cpus, 1);
	assert_int_equal(c->bench_cpus[0], last_online_cpu());
	assert_int_equal(c->http_threads, 2);
	assert_int_equal(c->max_body, 1 << 20);
	assert_int_equal(c->max_connections, 2048);
	assert_int_equal(c->timeout_s, 30);
	assert_int_equal(c->request_timeout_s, 10);
	assert_int_equal(c->max_per_peer, 64);
	assert_int_equal(c->max_queued_jobs, 1000);
	assert_int_equal(c->max_job_s, 604800);
	assert_int_equal(c->nhosts, 0);
	assert_string_equal(c->pidfile, "");
	assert_int_equal(c->nallow, 0);
	assert_false(c->foreground);
	/* boot jobs: no reboot unless allowed */
	assert_false(c->allow_reboot);
	assert_int_equal(c->reboot_method, BB_REBOOT_KEXEC_SYSTEMD);
	assert_int_equal(c->max_boots_per_job, 16);
	assert_int_equal(c->boot_timeout_s, 600);
	assert_string_equal(c->kexec_path, "/sbin/kexec");
	/* the defaults pass the final checks (one-CPU hosts: a warning) */
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), 0);
	assert_string_equal(c->token, "");
	/* an empty allow-list allows nothing, nop included */
	assert_int_equal(bb_dconfig_target_allowed(c, "nop", false, err,
						   sizeof(err)),
			 -EACCES);
	assert_non_null(strstr(err, "target nop is not in the allow-list"));
	free(c);
}

/* ---- INI file ------------------------------------------------------------------ */

static void test_load_full(void **state)
{
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX], err[512] = "";
	int ret;

	(void)state;
	data_conf(path, sizeof(path));
	ret = bb_dconfig_load(c, path, err, sizeof(err));
	if (ret)
		fail_msg("load %s: %s", path, err);
	assert_string_equal(c->config_path, path);
	assert_string_equal(c->listen_addr, "::1");
	assert_int_equal(c->port, 9000);
	assert_true(c->loopback);
	assert_string_equal(c->db_path, "/var/tmp/bb-test/biobench.db");
	assert_string_equal(c->web_root, "/var/tmp/bb-test/web");
	assert_string_equal(c->token_file, "");
	assert_int_equal(c->n_http_cpus, 1);
	assert_int_equal(c->http_cpus[0], 0);
	assert_int_equal(c->n_bench_cpus, 1);
	assert_int_equal(c->bench_cpus[0], 1);
	assert_int_equal(c->http_threads, 4);
	assert_int_equal(c->max_body, 64 << 10);
	assert_int_equal(c->max_connections, 10);
	assert_int_equal(c->timeout_s, 5);
	assert_int_equal(c->nallow, 3);
	assert_string_equal(c->allow[0].pattern, "nop");
	assert_false(c->allow[0].write);
	assert_string_equal(c->allow[1].pattern, "/var/lib/biobench/*.dat");
	assert_false(c->allow[1].write);
	assert_string_equal(c->allow[2].pattern, "/var/tmp/bb-*.img");
	assert_true(c->allow[2].write);
	free(c);
}

static void test_load_reboot(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX], err[512] = "";

	write_file(t, "reboot.conf",
		   "[reboot]\nallow_reboot = yes\nreboot_method = kexec-exec\n"
		   "max_boots_per_job = 8\nboot_timeout = 120\n"
		   "kexec = /usr/local/sbin/kexec\nsystemctl = /usr/bin/systemctl\n"
		   "grub_reboot = /usr/sbin/grub2-reboot\n"
		   "boot_dirs = /boot, /var/lib/biobench/boot\n"
		   "boot_dirs = /srv/kernels\n", 0644, path,
		   sizeof(path));
	if (bb_dconfig_load(c, path, err, sizeof(err)))
		fail_msg("load: %s", err);
	assert_true(c->allow_reboot);
	assert_int_equal(c->reboot_method, BB_REBOOT_KEXEC_EXEC);
	assert_string_equal(bb_reboot_method_name(c->reboot_method), "kexec-exec");
	assert_int_equal(c->max_boots_per_job, 8);
	assert_int_equal(c->boot_timeout_s, 120);
	assert_string_equal(c->kexec_path, "/usr/local/sbin/kexec");
	assert_string_equal(c->systemctl_path, "/usr/bin/systemctl");
	assert_string_equal(c->grub_reboot_path, "/usr/sbin/grub2-reboot");
	/* boot_dirs: blank or comma separated, repeatable */
	assert_int_equal(c->nboot_dirs, 3);
	assert_string_equal(c->boot_dirs[0], "/boot");
	assert_string_equal(c->boot_dirs[1], "/var/lib/biobench/boot");
	assert_string_equal(c->boot_dirs[2], "/srv/kernels");
	write_file(t, "reboot2.conf", "[reboot]\nallow_reboot = No\n"
		   "reboot_method = grub-reboot\n", 0644, path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), 0);
	assert_false(c->allow_reboot);
	assert_int_equal(c->reboot_method, BB_REBOOT_GRUB_REBOOT);
	free(c);
}

/* A job's boot.cmdline (daemon/reboot.c): what is allowed, what is
 * refused and why, and the line kexec gets (the host's, without
 * BOOT_IMAGE and what the job's variants set, the variant's before "--"). */
static void test_boot_cmdline(void **state)
{
	static const char *const ok[] = {
		"console=ttyS0 panic=-1 quiet loglevel=3 bbkernel=A",
		"mitigations=off nosmt isolcpus=managed_irq,domain,2-3",
		"nvme.poll_queues=4 iommu=pt transparent_hugepage=never",
		"", "  ",
	};
	static const char *const bad[][3] = {
		{ "init=/bin/sh", "init=/bin/sh", "first program" },
		{ "quiet rdinit=/x", "rdinit=/x", "run as root" },
		{ "module.sig_enforce=0", "module.sig_enforce=0", "unsigned" },
		{ "lockdown=none", "lockdown=none", "running kernel" },
		{ "selinux=0", "selinux=0", "security module" },
		{ "apparmor=0", "apparmor=0", "security module" },
		{ "systemd.unit=rescue.target", "systemd.unit=rescue.target",
		  "systemd" },
		{ "single", "single", "single-user" },
		{ "quiet emergency", "emergency", "emergency" },
		{ "root=/dev/sdb1", "root=/dev/sdb1", "root filesystem" },
		{ "sysctl.kernel.modprobe=/x", "sysctl.kernel.modprobe=/x",
		  "kernel.modprobe" },
		{ "quiet -- x", "--", "passed to init" },
		{ "nomodeset", "nomodeset", "not an allowed parameter" },
		{ "quiet=1", "quiet=1", "not an allowed parameter" },
		{ "mitigations", "mitigations", "not an allowed parameter" },
		{ "bbkernel", "bbkernel", "not an allowed parameter" },
		{ "bbKernel=A", "bbKernel=A", "not an allowed parameter" },
		{ "console=a/b", "console=a/b", "letters, digits" },
		{ "console=\"a b\"", "console=\"a", "a quote" },
	};
	struct bb_job *job = calloc(1, sizeof(*job));
	char param[256], why[512], out[512];

	(void)state;
	assert_non_null(job);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (bb_boot_cmdline_check(ok[i], param, sizeof(param), why,
					  sizeof(why)))
			fail_msg("'%s' refused: %s: %s", ok[i], param, why);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (!bb_boot_cmdline_check(bad[i][0], param, sizeof(param), why,
					   sizeof(why)))
			fail_msg("'%s' allowed", bad[i][0]);
		if (strcmp(param, bad[i][1]) || !strstr(why, bad[i][2]))
			fail_msg("'%s': '%s': %s (want '%s', '%s')", bad[i][0],
				 param, why, bad[i][1], bad[i][2]);
	}
	job->nvariants = 2;
	snprintf(job->v[0].name, sizeof(job->v[0].name), "A");
	snprintf(job->v[1].name, sizeof(job->v[1].name), "B");
	snprintf(job->v[0].boot.cmdline, sizeof(job->v[0].boot.cmdline),
		 "bbkernel=A mitigations=off");
	snprintf(job->v[1].boot.cmdline, sizeof(job->v[1].boot.cmdline),
		 "bbkernel=B");
	/* B's boot after A's: A's mitigations=off does not stay on */
	assert_int_equal(bb_boot_cmdline_compose(job, 1,
		"BOOT_IMAGE=/vmlinuz root=UUID=1 ro quiet mitigations=off "
		"bbkernel=A dyndbg=\"file x +p\" -- --init-arg bbkernel=A",
		out, sizeof(out)), 0);
	assert_string_equal(out, "root=UUID=1 ro quiet dyndbg=\"file x +p\" "
			    "bbkernel=B -- --init-arg bbkernel=A");
	assert_int_equal(bb_boot_cmdline_compose(job, 0, "root=UUID=1 "
						 "bbkernel=B", out,
						 sizeof(out)), 0);
	assert_string_equal(out, "root=UUID=1 bbkernel=A mitigations=off");
	assert_int_equal(bb_boot_cmdline_compose(job, 0, "root=UUID=1", out,
						 8), -E2BIG);
	free(job);
}

static void test_load_listen_forms(void **state)
{
	static const struct {
		const char *v, *addr;
		unsigned port;
		bool lo;
	} cases[] = {
		{ "127.0.0.1:8420", "127.0.0.1", 8420, true },
		{ "127.1.2.3:1", "127.1.2.3", 1, true },
		{ "0.0.0.0:65535", "0.0.0.0", 65535, false },
		{ "192.168.1.7:80", "192.168.1.7", 80, false },
		{ "[::1]:8420", "::1", 8420, true },
		{ "[::]:8420", "::", 8420, false },
		{ "[fe80::1]:9", "fe80::1", 9, false },
		{ "[::ffff:127.0.0.1]:9", "::ffff:127.0.0.1", 9, true },
		{ "[::ffff:10.0.0.1]:9", "::ffff:10.0.0.1", 9, false },
	};
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char text[256], path[PATH_MAX], err[512] = "";

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), "[server]\nlisten = %s\n",
			 cases[i].v);
		write_file(t, "listen.conf", text, 0644, path, sizeof(path));
		if (bb_dconfig_load(c, path, err, sizeof(err)))
			fail_msg("%s: %s", cases[i].v, err);
		assert_string_equal(c->listen_addr, cases[i].addr);
		assert_int_equal(c->port, cases[i].port);
		assert_int_equal(c->loopback, cases[i].lo);
	}
	free(c);
}

struct bad_case {
	const char *section;
	const char *line;
	const char *key;  /* expected after "FILE:3: " */
	const char *what; /* expected somewhere in the message */
};

static void test_load_bad_values(void **state)
{
	static const struct bad_case cases[] = {
		{ "server", "max_body = 1x", "max_body", "'1x' is not a size" },
		{ "server", "max_body = 0", "max_body", "out of range" },
		{ "server", "max_body = 2g", "max_body", "out of range" },
		{ "server", "listen = 127.0.0.1", "listen", "no port" },
		{ "server", "listen = 127.0.0.1:0", "listen", "1..65535" },
		{ "server", "listen = 127.0.0.1:65536", "listen", "1..65535" },
		{ "server", "listen = 127.0.0.1:80x", "listen", "not a number" },
		{ "server", "listen = localhost:8420", "listen", "numeric" },
		{ "server", "listen = 300.1.1.1:8420", "listen", "numeric" },
		{ "server", "listen = ::1:8420", "listen", "[ADDR]:PORT" },
		{ "server", "listen = [::1]8420", "listen", "[ADDR]:PORT" },
		{ "server", "listen = [zz::1]:8420", "listen", "IPv6" },
		{ "server", "listen = :8420", "listen", "no address" },
		{ "server", "http_threads = 0", "http_threads", "1..64" },
		{ "server", "http_threads = 65", "http_threads", "1..64" },
		{ "server", "http_threads = two", "http_threads",
		  "not a number" },
		{ "server", "timeout = -1", "timeout", "not a number" },
		{ "server", "timeout = 86401", "timeout", "out of range" },
		{ "server", "max_connections = 1e3", "max_connections",
		  "not a number" },
		{ "server", "http_cpus = 0-x", "http_cpus",
		  "'0-x' is not a CPU list" },
		{ "server", "bench_cpus = 3-1", "bench_cpus", "not a CPU list" },
		{ "server", "bench_cpus = 0-99", "bench_cpus",
		  "more than 64 CPUs" },
		{ "server", "bench_cpus =", "bench_cpus", "not a CPU list" },
		{ "server", "max_parallel_jobs = 0", "max_parallel_jobs",
		  "out of range (1..16)" },
		{ "reboot", "boot_dirs = boot", "boot_dirs",
		  "'boot' is not a boot directory: not an absolute path" },
		{ "reboot", "boot_dirs = /", "boot_dirs", "'/' is every file" },
		{ "reboot", "boot_dirs = /boot/", "boot_dirs",
		  "a trailing '/'" },
		{ "reboot", "boot_dirs = /boot/../tmp", "boot_dirs",
		  "'.' or '..' component" },
		{ "reboot", "boot_dirs = /a //b", "boot_dirs",
		  "an empty, '.' or '..' component" },
		{ "reboot", "boot_dirs = /a /b /c /d /e /f /g /h /i", "boot_dirs",
		  "more than 8 entries" },
		{ "server", "max_parallel_jobs = 17", "max_parallel_jobs",
		  "out of range (1..16)" },
		{ "server", "db =", "db", "a path is required" },
		{ "server", "store = /srv/bb.db", "store", "sqlite:///PATH" },
		{ "server", "store = sqlite://bb.db", "store", "absolute path" },
		{ "server", "store = postgresql://bb:s3cret@db.lab/bb", "store",
		  "~/.pgpass" },
		{ "server", "store = postgresql://db.lab/bb?password=s3cret",
		  "store", "pg_service.conf" },
		{ "server", "web_root =", "web_root", "a path is required" },
		{ "server", "nosuchkey = 1", "nosuchkey",
		  "unknown key in [server] (allowed: listen, db" },
		{ "server", "allow = nop", "allow", "unknown key in [server]" },
		/* the whole list, past 256 characters (it was cut there) */
		{ "server", "nosuchkey = 1", "nosuchkey",
		  "no_runner, max_job_seconds)" },
		{ "targets", "listen = 127.0.0.1:1", "listen",
		  "unknown key in [targets] (allowed: allow, allow_write, "
		  "allow_knobs)" },
		{ "targets", "allow_knobs = /dev/loop*", "allow_knobs",
		  "needs a target pattern and at least one knob" },
		{ "targets", "allow_knobs = loop* nomerges", "allow_knobs",
		  "not a target pattern" },
		{ "targets", "allow_knobs = /dev/loop* NoMerges", "allow_knobs",
		  "'NoMerges' is not a knob name" },
		{ "targets", "allow = data/*.dat", "allow", "absolute" },
		{ "targets", "allow = *", "allow", "absolute" },
		{ "targets", "allow = /var/lib/../x", "allow", "canonical" },
		{ "targets", "allow = /var/./x", "allow", "canonical" },
		{ "targets", "allow = /var//x", "allow", "canonical" },
		{ "targets", "allow_write = /var/lib/biobench/", "allow_write",
		  "end with /" },
		{ "targets", "allow_write = /var/lib/..", "allow_write",
		  "canonical" },
		{ "reboot", "allow_reboot = maybe", "allow_reboot",
		  "'maybe' is not yes or no" },
		{ "server", "no_runner = maybe", "no_runner",
		  "'maybe' is not yes or no" },
		{ "reboot", "reboot_method = kexec", "reboot_method",
		  "not one of kexec-systemd, grub-reboot, kexec-exec" },
		{ "reboot", "max_boots_per_job = 1", "max_boots_per_job",
		  "out of range (2..1000)" },
		{ "reboot", "boot_timeout = 5", "boot_timeout",
		  "out of range (10..86400)" },
		{ "reboot", "kexec =", "kexec", "a path is required" },
		{ "reboot", "allow = nop", "allow", "unknown key in [reboot]" },
	};
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg(), *def = new_cfg();
	char text[512], path[PATH_MAX], want[PATH_MAX + 64], err[512];
	int ret;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		/* the bad line is line 3; a good line before it is not
		 * applied either */
		snprintf(text, sizeof(text),
			 "[%s]\n; comment\n%s\n[server]\ntimeout = 7\n",
			 cases[i].section, cases[i].line);
		write_file(t, "bad.conf", text, 0644, path, sizeof(path));
		err[0] = '\0';
		ret = bb_dconfig_load(c, path, err, sizeof(err));
		if (ret != -EINVAL)
			fail_msg("'%s': ret %d, message '%s'", cases[i].line,
				 ret, err);
		snprintf(want, sizeof(want), "%s:3: %s", path, cases[i].key);
		if (!strstr(err, want) || !strstr(err, cases[i].what))
			fail_msg("'%s': message '%s' lacks '%s' or '%s'",
				 cases[i].line, err, want, cases[i].what);
		/* c is untouched by a file with an error */
		assert_memory_equal(c, def, sizeof(*c));
	}
	free(c);
	free(def);
}

static void test_load_bad_structure(void **state)
{
	static const struct {
		const char *text;
		int line;
		const char *what;
	} cases[] = {
		{ "[server]\nhttp_threads = 3\n[servers]\n", 3,
		  "unknown section [servers]" },
		{ "; top\n[nosuch]\nlisten = 127.0.0.1:1\n", 2,
		  "unknown section [nosuch]" },
		{ "listen = 127.0.0.1:1\n", 1, "listen: key outside a section" },
		{ "[server]\n\njust some words\n", 3, "syntax error" },
		{ "[server]\nhttp_threads = 3\n[targets\n", 3, "syntax error" },
	};
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg(), *def = new_cfg();
	char path[PATH_MAX], want[PATH_MAX + 32], err[512], longl[400];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		write_file(t, "struct.conf", cases[i].text, 0644, path,
			   sizeof(path));
		err[0] = '\0';
		assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)),
				 -EINVAL);
		snprintf(want, sizeof(want), "%s:%d: ", path, cases[i].line);
		if (!strstr(err, want) || !strstr(err, cases[i].what))
			fail_msg("case %zu: message '%s' lacks '%s' or '%s'",
				 i, err, want, cases[i].what);
		assert_memory_equal(c, def, sizeof(*c));
	}

	/* a line too long for the parser is an error, not two lines */
	memset(longl, 'a', sizeof(longl) - 1);
	longl[sizeof(longl) - 1] = '\0';
	memcpy(longl, "db = /", 6);
	{
		char text[512];

		snprintf(text, sizeof(text), "[server]\n%s\n", longl);
		write_file(t, "long.conf", text, 0644, path, sizeof(path));
	}
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s:2: line longer than", path);
	assert_non_null(strstr(err, want));

	/* a missing file */
	snprintf(path, sizeof(path), "%s/no-such.conf", t->dir);
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
	free(c);
	free(def);
}

/* ---- command line ---------------------------------------------------------------- */

static void test_args(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX], err[512] = "";
	int ret;

	(void)t;
	data_conf(path, sizeof(path));
	{
		/* --config last, yet loaded first: the command line wins */
		char *argv[] = { "biobenchd", "--listen=127.0.0.2:1234",
				 "--db", "/srv/bb.db", "--allow", "/srv/*.img",
				 "--allow-write=/srv/w*.img", "--foreground",
				 "--http-threads", "3", "--bench-cpus=0-1",
				 "--config", path, NULL };

		ret = bb_dconfig_args(c, 13, argv, err, sizeof(err));
		if (ret)
			fail_msg("args: %s", err);
	}
	assert_string_equal(c->config_path, path);
	assert_string_equal(c->listen_addr, "127.0.0.2");
	assert_int_equal(c->port, 1234);
	assert_true(c->loopback);
	assert_string_equal(c->db_path, "/srv/bb.db");
	assert_string_equal(c->web_root, "/var/tmp/bb-test/web"); /* file */
	assert_int_equal(c->http_threads, 3);
	assert_int_equal(c->max_connections, 10); /* file */
	assert_int_equal(c->n_bench_cpus, 2);
	assert_true(c->foreground);
	/* the file's entries, then the command line's */
	assert_int_equal(c->nallow, 5);
	assert_string_equal(c->allow[3].pattern, "/srv/*.img");
	assert_false(c->allow[3].write);
	assert_string_equal(c->allow[4].pattern, "/srv/w*.img");
	assert_true(c->allow[4].write);
	free(c);
}

static void test_args_errors(void **state)
{
	static const struct {
		const char *a1, *a2;
		const char *what;
	} cases[] = {
		{ "--max-body=1x", NULL, "--max-body: '1x' is not a size" },
		{ "--listen", "8420", "--listen: '8420' is not a listen address" },
		{ "--listen", NULL, "--listen needs a value" },
		{ "--http-cpus=a", NULL, "--http-cpus: 'a' is not a CPU list" },
		{ "--allow", "relative", "--allow: 'relative'" },
		{ "--nope", NULL, "unknown option '--nope'" },
		{ "--nope=1", NULL, "unknown option '--nope'" },
		{ "stray", NULL, "unexpected argument 'stray'" },
		{ "-l", NULL, "unexpected argument '-l'" },
		{ "--foreground=1", NULL, "--foreground takes no value" },
		{ "--config", "/nonexistent/bb.conf", "/nonexistent/bb.conf" },
		{ "--timeout", "0", "--timeout: 0 is out of range" },
		{ "--request-timeout", "0",
		  "--request-timeout: 0 is out of range (1..3600)" },
		{ "--max-connections-per-peer", "0",
		  "--max-connections-per-peer: 0 is out of range" },
		{ "--max-queued-jobs", "x", "--max-queued-jobs: 'x' is not a number" },
		{ "--max-job-seconds", "31536001",
		  "--max-job-seconds: 31536001 is out of range (1..31536000)" },
		{ "--allowed-hosts", "evil/x", "--allowed-hosts: 'evil/x' is not a host name" },
		{ "--allowed-hosts", "a.lab:0", "the port must be 1..65535" },
		{ "--allowed-hosts", "a.lab:x", "the port is not a number" },
		{ "--allowed-hosts", "[::1", "an IPv6 address is written [ADDR]" },
		{ "--allowed-hosts", ":8420", "it has no name" },
		{ "--version=1", NULL, "--version takes no value" },
	};
	struct bb_dconfig *c = new_cfg();
	char err[512];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *argv[] = { "biobenchd", (char *)cases[i].a1,
				 (char *)cases[i].a2, NULL };
		int argc = cases[i].a2 ? 3 : 2;

		err[0] = '\0';
		assert_true(bb_dconfig_args(c, argc, argv, err, sizeof(err)) <
			    0);
		if (!strstr(err, cases[i].what))
			fail_msg("%s: message '%s' lacks '%s'", cases[i].a1,
				 err, cases[i].what);
	}
	{
		char *argv[] = { "biobenchd", "--config", "/a", "--config=/b",
				 NULL };

		assert_int_equal(bb_dconfig_args(c, 4, argv, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "--config given twice"));
	}
	{
		/* --help wins, even over a bad option after it */
		char *argv[] = { "biobenchd", "--help", NULL };

		assert_int_equal(bb_dconfig_args(c, 2, argv, err, sizeof(err)),
				 1);
	}
	free(c);
}

static void test_args_new(void **state)
{
	struct bb_dconfig *c = new_cfg();
	char err[512] = "";
	char *argv[] = { "biobenchd", "--allowed-hosts", "Bench.Lab, x:8443",
			 "--allowed-hosts=[fe80::1]:80", "--request-timeout",
			 "3", "--max-connections-per-peer=5",
			 "--max-queued-jobs", "7", "--max-job-seconds", "60",
			 "--pidfile", "/run/biobenchd.pid",
			 "--max-parallel-jobs", "3", "--http-cpus", "none",
			 NULL };
	char *ver[] = { "biobenchd", "--version", "--nope", NULL };

	(void)state;
	assert_int_equal(c->max_parallel_jobs, 1); /* the default */
	assert_int_equal(bb_dconfig_args(c, 17, argv, err, sizeof(err)), 0);
	assert_int_equal(c->max_parallel_jobs, 3);
	/* none: the HTTP threads unpinned, every CPU free for jobs */
	assert_int_equal(c->n_http_cpus, 0);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), 0);
	assert_int_equal(c->nhosts, 3);
	assert_string_equal(c->hosts[0], "bench.lab");
	assert_string_equal(c->hosts[1], "x:8443");
	assert_string_equal(c->hosts[2], "[fe80::1]:80");
	assert_int_equal(c->request_timeout_s, 3);
	assert_int_equal(c->max_per_peer, 5);
	assert_int_equal(c->max_queued_jobs, 7);
	assert_int_equal(c->max_job_s, 60);
	assert_string_equal(c->pidfile, "/run/biobenchd.pid");
	/* --version: done (1), like --help, before anything else is read */
	assert_int_equal(bb_dconfig_args(c, 2, ver, err, sizeof(err)), 1);
	free(c);
}

/* host_name: the system's by default, a host name when given;
 * lease_seconds 2..3600, 60 by default. */
static void test_fleet_keys(void **state)
{
	struct bb_dconfig *c = new_cfg();
	char err[512] = "";
	char *ok[] = { "biobenchd", "--host-name", "bench-3.lab",
		       "--lease-seconds", "5", NULL };
	char *bad[] = { "biobenchd", "--host-name", "bench_3", NULL };
	char *lease[] = { "biobenchd", "--lease-seconds", "1", NULL };

	(void)state;
	assert_int_equal(c->lease_s, 60);
	assert_true(c->host_name[0]);
	assert_int_equal(bb_dconfig_args(c, 5, ok, err, sizeof(err)), 0);
	assert_string_equal(c->host_name, "bench-3.lab");
	assert_int_equal(c->lease_s, 5);
	assert_int_equal(bb_dconfig_args(c, 3, bad, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "host-name"));
	assert_non_null(strstr(err, "not a host name"));
	assert_int_equal(bb_dconfig_args(c, 3, lease, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "lease-seconds"));
	free(c);
}

/* The configuration of a file holding text, through --config. */
static void args_config(const struct tmp *t, struct bb_dconfig *c,
			const char *name, const char *text)
{
	char path[PATH_MAX], err[512] = "";
	char *argv[] = { "biobenchd", "--config", path, NULL };

	write_file(t, name, text, 0644, path, sizeof(path));
	bb_dconfig_default(c);
	if (bb_dconfig_args(c, 3, argv, err, sizeof(err)))
		fail_msg("%s: %s", name, err);
}

/* no_runner: off by default; --no-runner (no value) or, in the file,
 * no_runner = yes|no (the command line beats the file). */
static void test_no_runner(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX + 16], err[512] = "";
	char *flag[] = { "biobenchd", "--no-runner", NULL };
	char *value[] = { "biobenchd", "--no-runner=yes", NULL };
	char *both[] = { "biobenchd", "--config", path, "--no-runner", NULL };

	assert_false(c->no_runner);
	assert_int_equal(bb_dconfig_args(c, 2, flag, err, sizeof(err)), 0);
	assert_true(c->no_runner);
	assert_int_equal(bb_dconfig_args(c, 2, value, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "--no-runner takes no value"));
	args_config(t, c, "front.conf", "[server]\nno_runner = yes\n");
	assert_true(c->no_runner);
	args_config(t, c, "runner.conf", "[server]\nno_runner = off\n");
	assert_false(c->no_runner);
	snprintf(path, sizeof(path), "%s/runner.conf", t->dir);
	assert_int_equal(bb_dconfig_args(c, 4, both, err, sizeof(err)), 0);
	assert_true(c->no_runner);
	free(c);
}

static void test_usage(void **state)
{
	static const char *const want[] = {
		"--config FILE", "--listen ADDR:PORT", "127.0.0.1:8420",
		"--db PATH", "/var/lib/biobench/biobench.db", "--web-root DIR",
		"/usr/share/biobench/web", "--token-file FILE",
		"--http-cpus LIST", "--bench-cpus LIST", "last online CPU",
		"--http-threads N", "default 2;", "--max-body SIZE",
		"default 1m;", "--max-connections N", "default 2048;",
		"--timeout SECONDS", "default 30;", "--allow GLOB",
		"--allow-write GLOB", "--foreground", "--help",
		"[server] max_body\n", "[targets] allow_write\n",
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	bb_dconfig_usage(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(buf, want[i]))
			fail_msg("usage lacks '%s':\n%s", want[i], buf);
	free(buf);
}

/* ---- final checks ------------------------------------------------------------------ */

/* bb_dconfig_check on a token file; 0 or -EINVAL with err containing
 * every string of want (NULL-terminated). */
static void token_case(struct bb_dconfig *c, const char *path, int ret,
		       const char *const *want)
{
	char err[512] = "";

	snprintf(c->token_file, sizeof(c->token_file), "%s", path);
	if (bb_dconfig_check(c, err, sizeof(err)) != ret)
		fail_msg("token file %s: wanted %d, message '%s'", path, ret,
			 err);
	for (; want && *want; want++)
		if (!strstr(err, *want))
			fail_msg("token file %s: '%s' lacks '%s'", path, err,
				 *want);
	if (ret)
		assert_int_equal(c->token_len, 0);
}

#define WANT(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_check_token(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX], err[512] = "", longtok[300];
	static const char tok[] = "s3cret-token-0123456789";

	/* not loopback, no token file */
	{
		char *argv[] = { "biobenchd", "--listen", "0.0.0.0:8420", NULL };

		assert_int_equal(bb_dconfig_args(c, 3, argv, err, sizeof(err)),
				 0);
	}
	assert_false(c->loopback);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "token_file"));
	assert_non_null(strstr(err, "0.0.0.0"));

	/* any mode but 0600 and 0400: refused, naming the mode and the
	 * fix (write by group or others included: 0602, 0620) */
	write_file(t, "token", "  s3cret-token-0123456789 \nsecond line\n",
		   0644, path, sizeof(path));
	token_case(c, path, -EINVAL, WANT("0644", "chmod 600", path));
	assert_string_equal(c->token, "");
	static const unsigned bad_modes[] = { 0640, 0602, 0620, 0606, 0700,
					      0601, 0610, 0604, 0660, 04600,
					      01600, 0200, 0000 };
	for (size_t i = 0; i < sizeof(bad_modes) / sizeof(bad_modes[0]);
	     i++) {
		char m[8];

		snprintf(m, sizeof(m), "%04o", bad_modes[i]);
		assert_int_equal(chmod(path, bad_modes[i]), 0);
		token_case(c, path, -EINVAL, WANT(m, "0600 or 0400"));
	}

	/* 0600 and 0400: loaded, trimmed, first line only */
	assert_int_equal(chmod(path, 0600), 0);
	token_case(c, path, 0, NULL);
	assert_string_equal(c->token, tok);
	assert_int_equal(c->token_len, strlen(tok));
	assert_int_equal(chmod(path, 0400), 0);
	token_case(c, path, 0, NULL);
	assert_string_equal(c->token, tok);

	/* another owner than the daemon's user (we are root: give it to
	 * uid 1000; as another user chown is not possible: skipped) */
	if (!geteuid()) {
		assert_int_equal(chown(path, 1000, 1000), 0);
		token_case(c, path, -EINVAL, WANT("owned by uid 1000",
						  "uid 0", "chown 0"));
		assert_int_equal(chown(path, 0, 0), 0);
		token_case(c, path, 0, NULL);
	}

	/* too short: 15 bytes refused, 16 accepted */
	write_file(t, "token-short", "0123456789abcde\n", 0600, path,
		   sizeof(path));
	token_case(c, path, -EINVAL, WANT("15 bytes", "at least 16"));
	write_file(t, "token-16", "0123456789abcdef\n", 0600, path,
		   sizeof(path));
	token_case(c, path, 0, NULL);
	assert_int_equal(c->token_len, 16);
	write_file(t, "token-1", "x", 0600, path, sizeof(path));
	token_case(c, path, -EINVAL, WANT("1 bytes", "at least 16"));

	/* a NUL byte in the token (it used to cut the token short) */
	{
		static const char nul[] = "0123456789abcdef\0ghijklmnop\n";
		FILE *fp;

		snprintf(path, sizeof(path), "%s/token-nul", t->dir);
		fp = fopen(path, "w");
		assert_non_null(fp);
		assert_int_equal(fwrite(nul, 1, sizeof(nul) - 1, fp),
				 sizeof(nul) - 1);
		assert_int_equal(fclose(fp), 0);
		assert_int_equal(chmod(path, 0600), 0);
		token_case(c, path, -EINVAL, WANT("NUL"));
		/* a NUL after the first line does not matter */
		fp = fopen(path, "w");
		assert_non_null(fp);
		assert_int_equal(fwrite("0123456789abcdefgh\n\0x", 1, 21, fp),
				 21);
		assert_int_equal(fclose(fp), 0);
		token_case(c, path, 0, NULL);
		assert_string_equal(c->token, "0123456789abcdefgh");
	}

	/* empty first line */
	write_file(t, "token-empty", "   \nsecond\n", 0600, path, sizeof(path));
	token_case(c, path, -EINVAL, WANT("empty"));

	/* too long */
	memset(longtok, 'x', sizeof(longtok) - 2);
	longtok[sizeof(longtok) - 2] = '\n';
	longtok[sizeof(longtok) - 1] = '\0';
	write_file(t, "token-long", longtok, 0600, path, sizeof(path));
	token_case(c, path, -EINVAL, WANT("255"));

	/* a directory; a missing file; a FIFO (not opened for reading
	 * blocking) */
	token_case(c, t->dir, -EINVAL, WANT("not a regular file"));
	snprintf(path, sizeof(path), "%s/none", t->dir);
	token_case(c, path, -EINVAL, WANT("No such file"));
	snprintf(path, sizeof(path), "%s/fifo", t->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	token_case(c, path, -EINVAL, WANT("not a regular file"));

	/* a token on a loopback address is loaded too */
	write_file(t, "token-lo", "abcdefghijklmnopq\n", 0600, path,
		   sizeof(path));
	bb_dconfig_default(c);
	token_case(c, path, 0, NULL);
	assert_string_equal(c->token, "abcdefghijklmnopq");
	free(c);
}

static void test_check_cpus(void **state)
{
	struct bb_dconfig *c = new_cfg();
	char err[512] = "";

	(void)state;
	c->http_cpus[0] = 4000;
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "http_cpus: CPU 4000 is not online"));
	bb_dconfig_default(c);
	c->bench_cpus[0] = 4001;
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "bench_cpus: CPU 4001"));
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		bb_dconfig_default(c);
		c->bench_cpus[0] = 0;
		assert_int_equal(bb_dconfig_check(c, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "share CPU 0"));
	}
	free(c);
}

/* ---- allow-list ------------------------------------------------------------------- */

static void mk(const struct tmp *t, const char *rel, bool dir)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", t->dir, rel);
	if (dir) {
		assert_int_equal(mkdir(p, 0755), 0);
	} else {
		fd = open(p, O_CREAT | O_WRONLY, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
}

static int allowed(const struct bb_dconfig *c, const struct tmp *t,
		   const char *rel, bool write, char *why, size_t len)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", t->dir, rel);
	why[0] = '\0';
	return bb_dconfig_target_allowed(c, p, write, why, len);
}

static void test_allow(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char why[2048], p[PATH_MAX], q[PATH_MAX], text[3 * PATH_MAX];

	mk(t, "allowed", true);
	mk(t, "allowed/f.dat", false);
	mk(t, "allowed/w1.dat", false);
	mk(t, "allowed/sub", true);
	mk(t, "allowed/sub/x.dat", false);
	mk(t, "other", true);
	mk(t, "other/secret.dat", false);
	snprintf(p, sizeof(p), "%s/other/secret.dat", t->dir);
	snprintf(q, sizeof(q), "%s/allowed/link.dat", t->dir);
	assert_int_equal(symlink(p, q), 0);
	snprintf(p, sizeof(p), "%s/other/missing.dat", t->dir);
	snprintf(q, sizeof(q), "%s/allowed/dangling.dat", t->dir);
	assert_int_equal(symlink(p, q), 0);
	snprintf(p, sizeof(p), "%s/allowed/f.dat", t->dir);
	snprintf(q, sizeof(q), "%s/allowed/good-link.dat", t->dir);
	assert_int_equal(symlink(p, q), 0);

	snprintf(text, sizeof(text),
		 "[targets]\nallow = nop\nallow = %s/allowed/*.dat\n"
		 "allow_write = %s/allowed/w*.dat\n",
		 t->dir, t->dir);
	write_file(t, "allow.conf", text, 0644, p, sizeof(p));
	if (bb_dconfig_load(c, p, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(c->nallow, 3);

	/* nop: literal match; it does no I/O, so writing is allowed too */
	assert_int_equal(bb_dconfig_target_allowed(c, "nop", false, why,
						   sizeof(why)),
			 0);
	assert_int_equal(bb_dconfig_target_allowed(c, "nop", true, why,
						   sizeof(why)),
			 0);

	/* glob match, read; write needs allow_write */
	assert_int_equal(allowed(c, t, "allowed/f.dat", false, why,
				 sizeof(why)),
			 0);
	assert_int_equal(allowed(c, t, "allowed/f.dat", true, why,
				 sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "allow_write"));
	assert_non_null(strstr(why, "allowed/f.dat"));
	assert_int_equal(allowed(c, t, "allowed/w1.dat", true, why,
				 sizeof(why)),
			 0);
	/* a file that does not exist yet: its directory is resolved */
	assert_int_equal(allowed(c, t, "allowed/new.dat", false, why,
				 sizeof(why)),
			 0);
	assert_int_equal(allowed(c, t, "allowed/wnew.dat", true, why,
				 sizeof(why)),
			 0);
	assert_int_equal(allowed(c, t, "allowed/new.img", false, why,
				 sizeof(why)),
			 -EACCES);

	/* not matched: the reason names the target and the allow-list */
	assert_int_equal(allowed(c, t, "other/secret.dat", false, why,
				 sizeof(why)),
			 -EACCES);
	snprintf(p, sizeof(p), "target %s/other/secret.dat is not in the "
		 "allow-list (allow = nop, %s/allowed/*.dat; allow_write = "
		 "%s/allowed/w*.dat)", t->dir, t->dir, t->dir);
	assert_string_equal(why, p);

	/* .. is canonicalized: out of the allowed dir, and back into it */
	assert_int_equal(allowed(c, t, "allowed/../other/secret.dat", false,
				 why, sizeof(why)),
			 -EACCES);
	snprintf(p, sizeof(p), "resolves to %s/other/secret.dat", t->dir);
	assert_non_null(strstr(why, p));
	assert_int_equal(allowed(c, t, "allowed/../../allowed/f.dat", false,
				 why, sizeof(why)),
			 -EACCES);
	assert_int_equal(allowed(c, t, "other/../allowed/f.dat", false, why,
				 sizeof(why)),
			 0);
	assert_int_equal(allowed(c, t, "allowed/./f.dat", false, why,
				 sizeof(why)),
			 0);

	/* * does not cross a / (FNM_PATHNAME) */
	assert_int_equal(allowed(c, t, "allowed/sub/x.dat", false, why,
				 sizeof(why)),
			 -EACCES);

	/* a missing directory is refused with the reason */
	assert_int_equal(allowed(c, t, "allowed/nodir/x.dat", false, why,
				 sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "nodir"));
	assert_non_null(strstr(why, "No such file"));

	/* symlinks are judged by their destination */
	assert_int_equal(allowed(c, t, "allowed/link.dat", false, why,
				 sizeof(why)),
			 -EACCES);
	snprintf(p, sizeof(p), "resolves to %s/other/secret.dat", t->dir);
	assert_non_null(strstr(why, p));
	assert_int_equal(allowed(c, t, "allowed/good-link.dat", false, why,
				 sizeof(why)),
			 0);
	assert_int_equal(allowed(c, t, "allowed/dangling.dat", true, why,
				 sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "symlink"));

	/* relative targets are refused */
	assert_int_equal(bb_dconfig_target_allowed(c, "allowed/f.dat", false,
						   why, sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "absolute"));

	/* nop is not allowed by a path pattern, nor "/x/nop" by "nop" */
	bb_dconfig_default(c);
	snprintf(text, sizeof(text), "%s/*", t->dir);
	{
		char *argv[] = { "biobenchd", "--allow", text, NULL };

		assert_int_equal(bb_dconfig_args(c, 3, argv, why, sizeof(why)),
				 0);
	}
	assert_int_equal(bb_dconfig_target_allowed(c, "nop", false, why,
						   sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "target nop is not in the allow-list"));
	free(c);
}

/* allow_knobs: named knobs, "*" for any but a dangerous knob on a disk
 * with a mounted filesystem, nothing without an entry. */
static void test_allow_knobs(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char why[2048], p[PATH_MAX], text[3 * PATH_MAX];

	mk(t, "k", true);
	mk(t, "k/a.dat", false);
	mk(t, "k/b.dat", false);
	snprintf(text, sizeof(text),
		 "[targets]\nallow = %s/k/*.dat\n"
		 "allow_knobs = %s/k/a.dat nomerges, read_ahead_kb\n"
		 "allow_knobs = %s/k/b.dat * write_cache\n",
		 t->dir, t->dir, t->dir);
	write_file(t, "knobs.conf", text, 0644, p, sizeof(p));
	if (bb_dconfig_load(c, p, why, sizeof(why)))
		fail_msg("%s", why);
	assert_int_equal(c->nknob_rules, 2);
	assert_int_equal(c->knob_rules[0].n, 2);
	assert_string_equal(c->knob_rules[0].knob[1], "read_ahead_kb");
	assert_true(c->knob_rules[1].any);

	snprintf(p, sizeof(p), "%s/k/a.dat", t->dir);
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "nomerges", false, NULL,
						 why, sizeof(why)), 0);
	/* named: allowed even where dangerous */
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "read_ahead_kb", true,
						 "/", why, sizeof(why)), 0);
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "write_cache", false,
						 NULL, why, sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "knob write_cache is not allowed"));
	assert_non_null(strstr(why, "nomerges read_ahead_kb"));

	snprintf(p, sizeof(p), "%s/k/b.dat", t->dir);
	/* "*": any knob where not dangerous */
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "scheduler", false,
						 NULL, why, sizeof(why)), 0);
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "scheduler", true,
						 "/ (/dev/vda1)", why,
						 sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "mounted filesystem (/ (/dev/vda1))"));
	assert_non_null(strstr(why, "scheduler must be named"));
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "write_cache", true,
						 "/", why, sizeof(why)), 0);

	/* no entry for the target */
	snprintf(p, sizeof(p), "%s/k/c.dat", t->dir);
	assert_int_equal(bb_dconfig_knob_allowed(c, p, "nomerges", false, NULL,
						 why, sizeof(why)),
			 -EACCES);
	assert_non_null(strstr(why, "needs allow_knobs = PATTERN nomerges"));
	assert_int_equal(bb_dconfig_knob_allowed(c, "nop", "nomerges", false,
						 NULL, why, sizeof(why)),
			 -EACCES);
	free(c);
}

/* store = sqlite:///PATH is db's path; a PostgreSQL URI is the store;
 * db and store both given must agree; a password is never echoed. */
static void test_store_key(void **state)
{
	static const char *const bad[] = {
		"store = postgresql://bb:s3cret@db.lab/bb\n",
		"store = service=bb password=s3cret\n",
		"store = postgres://db.lab/bb?password=s3cret\n",
		/* not even a URI libpq takes: nothing of it repeated */
		"store = postgresql://bb:s3cret%zz@db.lab/bb\n",
	};
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX], err[512] = "";

	write_file(t, "a.conf", "[server]\nstore = sqlite:///srv/a.db\n", 0644,
		   path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), 0);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), 0);
	assert_string_equal(c->db_path, "/srv/a.db");

	bb_dconfig_default(c);
	write_file(t, "b.conf", "[server]\nstore = postgresql://bb@db.lab/bb\n"
		   "db = /srv/a.db\n", 0644, path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), 0);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "store"));
	assert_non_null(strstr(err, "db (/srv/a.db)"));

	bb_dconfig_default(c);
	write_file(t, "c.conf", "[server]\nstore = sqlite:///srv/a.db\n"
		   "db = /srv/a.db\n", 0644, path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), 0);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), 0);
	assert_string_equal(c->db_path, "/srv/a.db");

	bb_dconfig_default(c);
	{
		char *argv[] = { "biobenchd", "--store",
				 "postgresql://bb@db.lab:5433/bb", NULL };

		assert_int_equal(bb_dconfig_args(c, 3, argv, err, sizeof(err)),
				 0);
	}
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), 0);
	assert_string_equal(c->db_path, "postgresql://bb@db.lab:5433/bb");

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[256];

		bb_dconfig_default(c);
		snprintf(text, sizeof(text), "[server]\n%s", bad[i]);
		write_file(t, "d.conf", text, 0644, path, sizeof(path));
		err[0] = '\0';
		assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)),
				 -EINVAL);
		assert_non_null(strstr(err, "store"));
		if (i < 3)
			assert_non_null(strstr(err, "password"));
		assert_null(strstr(err, "s3cret"));
	}
	free(c);
}

/* knob_journal: a PostgreSQL store's local file (default in the state
 * directory); refused with a sqlite store (its file is the journal) and
 * when it names a PostgreSQL database. */
static void test_knob_journal_key(void **state)
{
	struct tmp *t = *state;
	struct bb_dconfig *c = new_cfg();
	char path[PATH_MAX], err[512] = "";

	assert_string_equal(c->knob_journal, "/var/lib/biobench/knobs.db");
	write_file(t, "a.conf", "[server]\nstore = postgresql://bb@db.lab/bb\n"
		   "knob_journal = /srv/k.db\n", 0644, path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), 0);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), 0);
	assert_string_equal(c->knob_journal, "/srv/k.db");

	bb_dconfig_default(c);
	write_file(t, "b.conf", "[server]\ndb = /srv/a.db\n"
		   "knob_journal = /srv/k.db\n", 0644, path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), 0);
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "knob_journal (/srv/k.db)"));
	assert_non_null(strstr(err, "sqlite store (/srv/a.db)"));

	bb_dconfig_default(c);
	{
		char *argv[] = { "biobenchd", "--store",
				 "postgresql://bb@db.lab/bb", "--knob-journal",
				 "postgresql://bb@db.lab/other", NULL };

		assert_int_equal(bb_dconfig_args(c, 5, argv, err, sizeof(err)),
				 0);
	}
	assert_int_equal(bb_dconfig_check(c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "local sqlite file"));

	bb_dconfig_default(c);
	write_file(t, "c.conf", "[server]\nstore = postgresql://bb@db.lab/bb\n"
		   "knob_journal =\n", 0644, path, sizeof(path));
	assert_int_equal(bb_dconfig_load(c, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "knob_journal"));
	free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_knob_journal_key, setup,
						teardown),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_boot_cmdline),
		cmocka_unit_test(test_load_full),
		cmocka_unit_test_setup_teardown(test_store_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load_listen_forms, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load_bad_values, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load_bad_structure, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_load_reboot, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_args, setup, teardown),
		cmocka_unit_test(test_args_errors),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_args_new),
		cmocka_unit_test(test_fleet_keys),
		cmocka_unit_test_setup_teardown(test_no_runner, setup, teardown),
		cmocka_unit_test_setup_teardown(test_check_token, setup,
						teardown),
		cmocka_unit_test(test_check_cpus),
		cmocka_unit_test_setup_teardown(test_allow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_allow_knobs, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
