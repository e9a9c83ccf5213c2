// SPDX-License-Identifier: GPL-2.0-only
/* dconfig.c - biobenchd's configuration: INI file (libinih) and command
 * line, both driven by one option table (dopt_table[] below): parsing,
 * validation and --help.  Adding an option means adding a row.
 *
 * libinih is the distribution's build (no line numbers in the handler), so
 * lines are counted by our own reader, which also checks section headers
 * (an unknown, even empty, section is an error) and refuses over-long
 * lines instead of letting inih split them. */
#include "dconfig.h"

#include <biobench/config.h>
#include <biobench/hostinfo.h>
#include <biobench/options.h>
#include <biobench/targetpath.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <ini.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <biobench/sysknob.h>

#include "store.h"
#include "store/backend.h"

#define DEFAULT_DB "/var/lib/biobench/biobench.db"
#define DEFAULT_KNOB_JOURNAL "/var/lib/biobench/knobs.db"
#define DEFAULT_WEB_ROOT "/usr/share/biobench/web"
#define DEFAULT_LISTEN_ADDR "127.0.0.1"
#define DEFAULT_HTTP_THREADS 2
#define DEFAULT_MAX_BODY (1u << 20)
#define DEFAULT_MAX_RUN_MEMORY (1ull << 30) /* when RAM is unknown */
#define DEFAULT_MAX_CONNECTIONS 2048
#define DEFAULT_TIMEOUT_S 30
#define DEFAULT_REQUEST_TIMEOUT_S 10
#define DEFAULT_MAX_PER_PEER 64
#define DEFAULT_MAX_QUEUED 1000
#define DEFAULT_LEASE_S 60
#define DEFAULT_HOST_GONE_S 604800 /* a week */
#define DEFAULT_MAX_JOB_S (7 * 86400)
#define DEFAULT_MAX_BOOTS 16
#define DEFAULT_BOOT_TIMEOUT_S 600
#define TOKEN_MAX 255
#define SYS_CPU "/sys/devices/system/cpu"

#define LISTEN_EXAMPLES "examples: 127.0.0.1:8420, [::1]:8420, 0.0.0.0:8420"
#define SIZE_EXAMPLES "examples: 64k, 1m, 4m"
#define CPULIST_EXAMPLES "examples: 0, 0-1, 2,4-7"

enum dopt_type {
	DT_LISTEN,      /* ADDR:PORT or [v6]:PORT */
	DT_PATH,        /* non-empty path */
	DT_DB,          /* db: a DT_PATH that says it was given (db_given) */
	DT_STORE,       /* store: sqlite:///PATH or a PostgreSQL URI */
	DT_KNOBS,       /* knob_journal: a DT_PATH that says it was given */
	DT_OPTPATH,     /* path or "" (none) */
	DT_CPULIST,     /* cpu list: array at off, count at off2 */
	DT_UINT,        /* unsigned, min..max */
	DT_SIZE,        /* bytes with k/m/g suffix, min..max */
	DT_ALLOW,       /* appends an allow-list entry (read) */
	DT_ALLOW_KNOBS, /* appends an allow_knobs entry (PATTERN KNOB...) */
	DT_ALLOW_WRITE, /* appends an allow-list entry (read and write) */
	DT_HOSTS,       /* appends Host names (blank or comma separated) */
	DT_BOOT_DIRS,   /* appends boot_dirs (blank or comma separated) */
	DT_BOOL,        /* yes/no, true/false, on/off, 1/0 */
	DT_METHOD,      /* a reboot_method name: its enum as unsigned */
	DT_NAME,        /* a host name (bb_host_name_check) */
	DT_FLAG,        /* command line: sets a bool (no value); a row with a
			   section takes yes or no in the file */
	DT_CONFIG,      /* command line only: --config FILE */
	DT_HELP,        /* command line only: --help */
	DT_VERSION,     /* command line only: --version */
};

struct dopt {
	const char *section; /* INI section; NULL: command line only */
	const char *key;     /* INI key */
	const char *cli;     /* long option without dashes */
	const char *metavar; /* for --help */
	enum dopt_type type;
	size_t off;          /* field in struct bb_dconfig */
	size_t off2;         /* DT_CPULIST: the count field */
	unsigned long long min, max;
	const char *def;     /* default as shown by --help when it is not a
				value of bb_dconfig_default() (computed on
				the host, or none); NULL: --help prints the
				value bb_dconfig_default() sets */
	const char *help;
};

#define F(f) .off = offsetof(struct bb_dconfig, f)

static const char *const reboot_methods[] = {
	[BB_REBOOT_KEXEC_SYSTEMD] = "kexec-systemd",
	[BB_REBOOT_GRUB_REBOOT] = "grub-reboot",
	[BB_REBOOT_KEXEC_EXEC] = "kexec-exec",
	NULL,
};

const char *bb_reboot_method_name(enum bb_reboot_method m)
{
	return (unsigned)m < BB_REBOOT__COUNT ? reboot_methods[m] : "?";
}

static int set_allow_knobs(struct bb_dconfig *c, const char *v,
			   const char *where, char *err, size_t errlen);

static const struct dopt dopt_table[] = {
	{ NULL, NULL, "config", "FILE", DT_CONFIG, F(config_path), 0, 0, 0,
	  "none", "INI file, loaded before the other options wherever it is "
		  "given" },
	{ "server", "listen", "listen", "ADDR:PORT", DT_LISTEN, 0, 0, 0, 0,
	  NULL, "numeric address and port ([v6]:PORT for "
			    "IPv6); not loopback needs token_file" },
	{ "server", "db", "db", "PATH", DT_DB, F(db_path), 0, 0, 0,
	  NULL, "sqlite database (store = sqlite:///PATH)" },
	{ "server", "store", "store", "URI", DT_STORE, F(store), 0, 0, 0,
	  "the sqlite file db names", "the store: sqlite:///PATH, or a shared PostgreSQL "
	  "database (postgresql://USER@HOST/DB, service=NAME; its password in "
	  "~/.pgpass or pg_service.conf, never here)" },
	{ "server", "knob_journal", "knob-journal", "PATH", DT_KNOBS,
	  F(knob_journal), 0, 0, 0, NULL,
	  "a PostgreSQL store's sysfs knob journal: a local sqlite file, "
	  "written before each knob, that the recovery at start restores "
	  "from, shared store reachable or not (a sqlite store journals in "
	  "its own file)" },
	{ "server", "web_root", "web-root", "DIR", DT_PATH, F(web_root), 0, 0,
	  0, NULL, "dashboard files" },
	{ "server", "token_file", "token-file", "FILE", DT_OPTPATH,
	  F(token_file), 0, 0, 0, "none",
	  "bearer token (first line), mode 0600" },
	{ "server", "http_cpus", "http-cpus", "LIST", DT_CPULIST, F(http_cpus),
	  offsetof(struct bb_dconfig, n_http_cpus), 0, 0, NULL,
	  "CPUs of the HTTP threads (none: not pinned, every CPU free for "
	  "jobs)" },
	{ "server", "bench_cpus", "bench-cpus", "LIST", DT_CPULIST,
	  F(bench_cpus), offsetof(struct bb_dconfig, n_bench_cpus), 0, 0,
	  "last online CPU", "default CPUs of jobs (none of http_cpus; none: jobs without "
	  "cpus are not pinned)" },
	{ "server", "http_threads", "http-threads", "N", DT_UINT,
	  F(http_threads), 0, 1, 64, NULL, "HTTP threads (1..64)" },
	{ "server", "max_body", "max-body", "SIZE", DT_SIZE, F(max_body), 0,
	  1, 1ull << 30, NULL, "request body limit (1..1g)" },
	{ "server", "max_run_memory", "max-run-memory", "SIZE", DT_SIZE,
	  F(max_run_memory), 0, 1ull << 20, 1ull << 50, "half of RAM",
	  "memory a run may use for I/O (buffers, slots, rings, bio slabs, "
	  "verify state), checked at submission (1m..1p)" },
	{ "server", "max_connections", "max-connections", "N", DT_UINT,
	  F(max_connections), 0, 1, 65536, NULL,
	  "simultaneous connections (1..65536)" },
	{ "server", "timeout", "timeout", "SECONDS", DT_UINT, F(timeout_s), 0,
	  1, 86400, NULL, "seconds a connection may idle (1..86400)" },
	{ "server", "request_timeout", "request-timeout", "SECONDS", DT_UINT,
	  F(request_timeout_s), 0, 1, 3600, NULL,
	  "seconds from a connection's start (or its previous answer) to a "
	  "whole request, head and body (1..3600)" },
	{ "server", "max_connections_per_peer", "max-connections-per-peer",
	  "N", DT_UINT, F(max_per_peer), 0, 1, 65536, NULL,
	  "simultaneous connections of one client address, loopback "
	  "included (1..65536)" },
	{ "server", "allowed_hosts", "allowed-hosts", "NAMES", DT_HOSTS, 0, 0,
	  0, 0, "none", "repeatable: Host names (NAME or NAME:PORT) "
	  "accepted besides the listen address and localhost" },
	{ "server", "max_queued_jobs", "max-queued-jobs", "N", DT_UINT,
	  F(max_queued_jobs), 0, 1, 1000000, NULL,
	  "jobs that may wait in the queue (1..1000000)" },
	{ "server", "max_parallel_jobs", "max-parallel-jobs", "N", DT_UINT,
	  F(max_parallel_jobs), 0, 1, BB_DCONFIG_MAX_PARALLEL, NULL,
	  "jobs run at the same time, each on its own device and CPUs; jobs "
	  "that conflict (a device, a CPU, no CPU list, a boot job) wait "
	  "(1..16)" },
	{ "server", "host_name", "host-name", "NAME", DT_NAME, F(host_name), 0,
	  0, 0, "the system host name", "this daemon's name in a shared "
	  "store: jobs addressed to it (\"host\"), its claims; one daemon per "
	  "name" },
	{ "server", "lease_seconds", "lease-seconds", "SECONDS", DT_UINT,
	  F(lease_s), 0, 2, 3600, NULL,
	  "a claimed job's lease, renewed every third of it while the job "
	  "runs; past it, any daemon marks the job interrupted (2..3600)" },
	{ "server", "host_gone_seconds", "host-gone-seconds", "SECONDS",
	  DT_UINT, F(host_gone_s), 0, 0, 315360000, NULL,
	  "a host of the registry not seen for this long is removed from it "
	  "by the other daemons, the jobs queued for it failed (0: never; "
	  "0..315360000)" },
	{ "server", "no_runner", "no-runner", NULL, DT_FLAG, F(no_runner), 0,
	  0, 0, "no", "a front end only: the API and the dashboard over the "
	  "store, no scheduler (it runs and claims no job, is not in the "
	  "hosts registry, recovers no job or knob); the file's key takes "
	  "yes or no" },
	{ "server", "max_job_seconds", "max-job-seconds", "SECONDS", DT_UINT,
	  F(max_job_s), 0, 1, 31536000, NULL,
	  "planned run time of one job: runs x (runtime + ramp) "
	  "(1..31536000)" },
	{ "targets", "allow", "allow", "GLOB", DT_ALLOW, 0, 0, 0, 0, "none",
	  "repeatable: \"nop\" or an absolute canonical path or glob "
	  "(fnmatch, FNM_PATHNAME)" },
	{ "targets", "allow_write", "allow-write", "GLOB", DT_ALLOW_WRITE, 0,
	  0, 0, 0, "none", "repeatable: as allow, and write workloads too" },
	{ "targets", "allow_knobs", "allow-knobs", "'GLOB KNOB...'",
	  DT_ALLOW_KNOBS, 0, 0, 0, 0, "none",
	  "repeatable: the sysfs queue knobs jobs on targets matching GLOB "
	  "may set (* for any but write_cache and scheduler on a disk with a "
	  "mounted filesystem, which must be named)" },
	{ "reboot", "allow_reboot", "allow-reboot", "yes|no", DT_BOOL,
	  F(allow_reboot), 0, 0, 0, NULL,
	  "yes: boot jobs may reboot this host (kernel A/B across boots)" },
	{ "reboot", "reboot_method", "reboot-method", "METHOD", DT_METHOD,
	  F(reboot_method), 0, 0, 0, NULL,
	  "how a boot job reboots: kexec-systemd (kexec -l, systemctl "
	  "kexec), grub-reboot (grub-reboot ENTRY, systemctl reboot) or "
	  "kexec-exec (kexec -l, the daemon stops and runs kexec -e: hosts "
	  "without systemd)" },
	{ "reboot", "max_boots_per_job", "max-boots-per-job", "N", DT_UINT,
	  F(max_boots_per_job), 0, 2, 1000, NULL,
	  "boots of one boot job in all (2..1000)" },
	{ "reboot", "boot_timeout", "boot-timeout", "SECONDS", DT_UINT,
	  F(boot_timeout_s), 0, 10, 86400, NULL,
	  "seconds a reboot may take: a boot not up by then fails its job "
	  "(10..86400)" },
	{ "reboot", "boot_dirs", "boot-dirs", "DIRS", DT_BOOT_DIRS, 0, 0, 0, 0,
	  "none", "repeatable: the directories boot jobs' kernels and initrds "
	  "may come from (absolute, blank or comma separated); each file and "
	  "every directory above it must be root's and not group- or "
	  "world-writable, no symlink on the way; none: boot jobs are "
	  "refused" },
	{ "reboot", "kexec", "kexec", "PATH", DT_PATH, F(kexec_path), 0, 0, 0,
	  NULL, "the kexec program" },
	{ "reboot", "systemctl", "systemctl", "PATH", DT_PATH,
	  F(systemctl_path), 0, 0, 0, NULL, "the systemctl program" },
	{ "reboot", "grub_reboot", "grub-reboot", "PATH", DT_PATH,
	  F(grub_reboot_path), 0, 0, 0, NULL, "the grub-reboot program" },
	{ "reboot", "grub_editenv", "grub-editenv", "PATH", DT_PATH,
	  F(grub_editenv_path), 0, 0, 0, NULL,
	  "the grub-editenv program (a cancel clears the one-shot entry)" },
	{ NULL, NULL, "foreground", NULL, DT_FLAG, F(foreground), 0, 0, 0,
	  "off", "stay in the foreground, log to stderr" },
	{ NULL, NULL, "pidfile", "FILE", DT_OPTPATH, F(pidfile), 0, 0, 0,
	  "none", "write the daemon's pid to FILE once it listens (removed "
		  "at exit)" },
	{ NULL, NULL, "help", NULL, DT_HELP, 0, 0, 0, 0, NULL,
	  "show this help" },
	{ NULL, NULL, "version", NULL, DT_VERSION, 0, 0, 0, 0, NULL,
	  "show the version" },
};

#undef F

static const char *const sections[] = { "server", "targets", "reboot" };

static int fail(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Append the blank- or comma-separated words of v to the list at base
 * (*count entries of size bytes, at most max), each accepted by check
 * (NULL) and lower-cased when lower.  0 or -EINVAL naming the word. */
static int list_add(const char *v, const char *where,
		    const char *(*check)(const char *, size_t),
		    const char *what, const char *example, char *base,
		    size_t size, unsigned *count, unsigned max, bool lower,
		    char *err, size_t errlen)
{
	for (const char *p = v; *p;) {
		const char *why;
		char *dst;
		size_t n;

		p += strspn(p, " \t,");
		n = strcspn(p, " \t,");
		if (!n)
			break;
		why = n < size ? check(p, n) : "too long";
		if (why)
			return fail(err, errlen, -EINVAL, "%s: '%.*s' is not "
				    "%s: %s (%s)", where, (int)n, p, what, why,
				    example);
		if (*count >= max)
			return fail(err, errlen, -EINVAL, "%s: more than %u "
				    "entries", where, max);
		dst = base + (size_t)*count * size;
		memcpy(dst, p, n);
		dst[n] = '\0';
		for (char *q = dst; lower && *q; q++)
			*q = (char)tolower((unsigned char)*q);
		(*count)++;
		p += n;
	}
	return 0;
}

/* The highest CPU of /sys/devices/system/cpu/online ("0-3,6" -> 6). */
static int last_online_cpu(void)
{
	char buf[256], *p;
	FILE *f = fopen(SYS_CPU "/online", "re");
	long n;
	int cpu = -1;

	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			p = buf + strlen(buf);
			while (p > buf && isdigit((unsigned char)p[-1]))
				p--;
			if (isdigit((unsigned char)*p))
				cpu = atoi(p);
		}
		fclose(f);
	}
	if (cpu < 0) {
		n = sysconf(_SC_NPROCESSORS_ONLN);
		cpu = n > 0 ? (int)n - 1 : 0;
	}
	return cpu;
}

static bool cpu_online(int cpu)
{
	char path[128], val[8] = "";
	FILE *f;

	snprintf(path, sizeof(path), SYS_CPU "/cpu%d", cpu);
	if (access(path, F_OK))
		return false;
	/* cpu0 usually has no "online" file: it cannot go offline */
	snprintf(path, sizeof(path), SYS_CPU "/cpu%d/online", cpu);
	f = fopen(path, "re");
	if (!f)
		return true;
	if (!fgets(val, sizeof(val), f))
		val[0] = '1';
	fclose(f);
	return val[0] == '1';
}

void bb_dconfig_default(struct bb_dconfig *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->listen_addr, sizeof(c->listen_addr), DEFAULT_LISTEN_ADDR);
	c->port = BB_DEFAULT_PORT;
	c->loopback = true;
	snprintf(c->db_path, sizeof(c->db_path), DEFAULT_DB);
	snprintf(c->knob_journal, sizeof(c->knob_journal),
		 DEFAULT_KNOB_JOURNAL);
	snprintf(c->web_root, sizeof(c->web_root), DEFAULT_WEB_ROOT);
	c->http_cpus[0] = 0;
	c->n_http_cpus = 1;
	c->bench_cpus[0] = last_online_cpu();
	c->n_bench_cpus = 1;
	c->http_threads = DEFAULT_HTTP_THREADS;
	c->max_body = DEFAULT_MAX_BODY;
	c->max_run_memory = bb_host_memory_total() / 2;
	if (c->max_run_memory < (1u << 20))
		c->max_run_memory = DEFAULT_MAX_RUN_MEMORY;
	c->max_connections = DEFAULT_MAX_CONNECTIONS;
	c->timeout_s = DEFAULT_TIMEOUT_S;
	c->request_timeout_s = DEFAULT_REQUEST_TIMEOUT_S;
	c->max_per_peer = DEFAULT_MAX_PER_PEER;
	c->max_queued_jobs = DEFAULT_MAX_QUEUED;
	c->max_parallel_jobs = 1;
	c->lease_s = DEFAULT_LEASE_S;
	c->host_gone_s = DEFAULT_HOST_GONE_S;
	/* a system name that is no host name (an '_' in it) is "localhost":
	 * a single daemon does not mind, a fleet sets host_name */
	if (gethostname(c->host_name, sizeof(c->host_name) - 1) ||
	    bb_host_name_check(c->host_name))
		snprintf(c->host_name, sizeof(c->host_name), "localhost");
	c->max_job_s = DEFAULT_MAX_JOB_S;
	c->allow_reboot = false;
	c->reboot_method = BB_REBOOT_KEXEC_SYSTEMD;
	c->max_boots_per_job = DEFAULT_MAX_BOOTS;
	c->boot_timeout_s = DEFAULT_BOOT_TIMEOUT_S;
	snprintf(c->kexec_path, sizeof(c->kexec_path), "/sbin/kexec");
	snprintf(c->systemctl_path, sizeof(c->systemctl_path), "/bin/systemctl");
	snprintf(c->grub_reboot_path, sizeof(c->grub_reboot_path),
		 "/usr/sbin/grub-reboot");
	snprintf(c->grub_editenv_path, sizeof(c->grub_editenv_path),
		 "/usr/bin/grub-editenv");
}

/* ---- value parsers -------------------------------------------------------- */

static bool is_loopback(int af, const void *a)
{
	const unsigned char *b = a;
	const struct in6_addr *a6 = a;

	if (af == AF_INET)
		return b[0] == 127;
	if (IN6_IS_ADDR_LOOPBACK(a6))
		return true;
	/* ::ffff:127.x.y.z */
	return IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127;
}

/* Returns NULL or what is wrong. */
static const char *parse_listen(const char *s, char *addr, size_t alen,
				uint16_t *port, bool *loopback)
{
	char host[64];
	unsigned char bin[sizeof(struct in6_addr)];
	const char *colon, *p;
	unsigned long v;
	size_t hlen;
	int af;

	if (s[0] == '[') {
		colon = strchr(s, ']');
		if (!colon || colon[1] != ':')
			return "an IPv6 address is written [ADDR]:PORT";
		hlen = (size_t)(colon - s - 1);
		if (hlen >= sizeof(host))
			return "the address is too long";
		memcpy(host, s + 1, hlen);
		host[hlen] = '\0';
		colon++;
		af = AF_INET6;
	} else {
		colon = strrchr(s, ':');
		if (!colon)
			return "it has no port (ADDR:PORT)";
		if (memchr(s, ':', (size_t)(colon - s)))
			return "an IPv6 address is written [ADDR]:PORT";
		hlen = (size_t)(colon - s);
		if (hlen >= sizeof(host))
			return "the address is too long";
		memcpy(host, s, hlen);
		host[hlen] = '\0';
		af = AF_INET;
	}
	if (!host[0])
		return "it has no address (ADDR:PORT)";
	p = colon + 1;
	if (!*p)
		return "it has no port (ADDR:PORT)";
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			return "the port is not a number";
	errno = 0;
	v = strtoul(p, NULL, 10);
	if (errno || v < 1 || v > 65535 || strlen(p) > 5)
		return "the port must be 1..65535";
	if (inet_pton(af, host, bin) != 1)
		return af == AF_INET ? "the address is not a numeric IPv4 "
				       "address (for IPv6 write [ADDR]:PORT)"
				     : "the address is not a numeric IPv6 "
				       "address";
	if (hlen >= alen)
		return "the address is too long";
	memcpy(addr, host, hlen + 1);
	*port = (uint16_t)v;
	*loopback = is_loopback(af, bin);
	return NULL;
}

/* An allow-list pattern: "nop", or an absolute canonical path or glob.
 * Returns NULL or what is wrong. */
static const char *check_pattern(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "nop"))
		return NULL;
	if (!n)
		return "it is empty";
	if (s[0] != '/')
		return "it must be \"nop\" or an absolute path or glob "
		       "(targets are canonicalized before matching)";
	if (n >= PATH_MAX)
		return "it is too long";
	if (strstr(s, "//") || strstr(s, "/./") || strstr(s, "/../") ||
	    (n >= 2 && !strcmp(s + n - 2, "/.")) ||
	    (n >= 3 && !strcmp(s + n - 3, "/..")))
		return "it must be a canonical path (no //, . or .. parts: "
		       "targets are canonicalized before matching)";
	if (n > 1 && s[n - 1] == '/')
		return "it must not end with / (it would match nothing; for a "
		       "directory's files write DIR/*)";
	return NULL;
}

/* An allowed_hosts entry: a DNS name or IPv4 address, or [IPv6], with an
 * optional :PORT.  Returns NULL or what is wrong. */
const char *bb_boot_dir_check(const char *d, size_t n)
{
	if (!n || d[0] != '/')
		return "not an absolute path";
	if (n == 1)
		return "'/' is every file: name the directory of the kernels";
	if (n >= PATH_MAX)
		return "too long";
	if (d[n - 1] == '/')
		return "a trailing '/'";
	for (size_t i = 0; i < n; i++) {
		size_t len;

		if (d[i] != '/')
			continue;
		len = strcspn(d + i + 1, "/");
		if (i + 1 + len > n)
			len = n - i - 1;
		if (!len || (len == 1 && d[i + 1] == '.') ||
		    (len == 2 && d[i + 1] == '.' && d[i + 2] == '.'))
			return "an empty, '.' or '..' component (give the "
			       "canonical path)";
	}
	return NULL;
}

static const char *check_host(const char *h, size_t n)
{
	const char *end = h + n, *colon = NULL, *p = h;

	if (!n)
		return "it is empty";
	if (n >= BB_DCONFIG_HOST_MAX)
		return "it is too long";
	if (*p == '[') {
		p = memchr(h, ']', n);
		if (!p || p == h + 1)
			return "an IPv6 address is written [ADDR]";
		for (const char *q = h + 1; q < p; q++)
			if (!isxdigit((unsigned char)*q) && *q != ':' &&
			    *q != '.')
				return "[ADDR] holds an IPv6 address";
		p++;
		if (p < end && *p != ':')
			return "only :PORT may follow [ADDR]";
		colon = p < end ? p : NULL;
	} else {
		for (; p < end && *p != ':'; p++)
			if (!isalnum((unsigned char)*p) && *p != '-' &&
			    *p != '.' && *p != '_')
				return "a name has letters, digits, '-', '.' "
				       "and '_' only";
		if (p == h)
			return "it has no name";
		colon = p < end ? p : NULL;
	}
	if (colon) {
		unsigned long v = 0;
		const char *q = colon + 1;

		if (q == end || end - q > 5)
			return "the port must be 1..65535";
		for (; q < end; q++) {
			if (!isdigit((unsigned char)*q))
				return "the port is not a number";
			v = v * 10 + (unsigned long)(*q - '0');
		}
		if (v < 1 || v > 65535)
			return "the port must be 1..65535";
	}
	return NULL;
}

#define STORE_FORMS "sqlite:///PATH, postgresql://[USER@]HOST[:PORT]/DB, " \
	"postgres://..., service=NAME"

/* store = V: sqlite:///PATH or a PostgreSQL connection string without a
 * password (never repeated in a message: it may hold one). */
static int set_store(struct bb_dconfig *c, const char *v, const char *where,
		     char *err, size_t errlen)
{
	char name[256];
	bool password;

	if (strlen(v) >= sizeof(c->store))
		return fail(err, errlen, -EINVAL,
			    "%s: longer than %zu bytes", where,
			    sizeof(c->store) - 1);
	if (!strncmp(v, "sqlite://", 9)) {
		if (v[9] != '/')
			return fail(err, errlen, -EINVAL,
				    "%s: '%s': a sqlite store is sqlite:///PATH "
				    "(an absolute path after sqlite://)", where,
				    v);
	} else if (bb_store_is_pg(v)) {
		if (bb_store_pg_name(v, &password, name, sizeof(name)))
			return fail(err, errlen, -EINVAL,
				    "%s: not a PostgreSQL connection string: "
				    "%s", where, name);
		if (password)
			return fail(err, errlen, -EINVAL,
				    "%s: a password in the configuration is "
				    "refused (%s): put it in ~/.pgpass of the "
				    "daemon's user (or the file PGPASSFILE "
				    "names), or use a service file "
				    "(pg_service.conf, store = service=NAME)",
				    where, name);
	} else {
		return fail(err, errlen, -EINVAL,
			    "%s: not a store (" STORE_FORMS ")", where);
	}
	snprintf(c->store, sizeof(c->store), "%s", v);
	return 0;
}

/* The store's location into db_path: store's when given (its sqlite path,
 * or the PostgreSQL connection string), else db's.  Both given must name
 * the same sqlite file. */
static int resolve_store_db(struct bb_dconfig *c, char *err,
			    size_t errlen);

/* The store, and the knob journal: a file of its own for a PostgreSQL
 * store only (a sqlite store journals in its file, as it always did). */
static int resolve_store(struct bb_dconfig *c, char *err, size_t errlen)
{
	int ret = resolve_store_db(c, err, errlen);

	if (ret)
		return ret;
	if (!bb_store_is_pg(c->db_path)) {
		if (c->knob_journal_given)
			return fail(err, errlen, -EINVAL,
				    "knob_journal (%s) is for a PostgreSQL "
				    "store: a sqlite store (%s) journals knobs "
				    "in its own file", c->knob_journal,
				    c->db_path);
		return 0;
	}
	if (bb_store_is_pg(c->knob_journal))
		return fail(err, errlen, -EINVAL,
			    "knob_journal must be the path of a local sqlite "
			    "file, not a PostgreSQL database: the journal must "
			    "survive the network going away");
	return 0;
}

static int resolve_store_db(struct bb_dconfig *c, char *err, size_t errlen)
{
	char name[256];

	if (!c->store[0])
		return 0;
	if (!strncmp(c->store, "sqlite://", 9)) {
		if (c->db_given && strcmp(c->db_path, c->store + 9))
			return fail(err, errlen, -EINVAL,
				    "store (%s) and db (%s) name different "
				    "databases: give one of them", c->store,
				    c->db_path);
		snprintf(c->db_path, sizeof(c->db_path), "%s", c->store + 9);
		return 0;
	}
	if (c->db_given && strcmp(c->db_path, c->store)) {
		bb_store_pg_name(c->store, NULL, name, sizeof(name));
		return fail(err, errlen, -EINVAL,
			    "store (%s) and db (%s) disagree: db is the path "
			    "of a sqlite store; give one of them", name,
			    c->db_path);
	}
	snprintf(c->db_path, sizeof(c->db_path), "%s", c->store);
	return 0;
}

/* Set option o from text v.  where names it in messages ("FILE:LINE: key"
 * or "--key"). */
static int dopt_set(struct bb_dconfig *c, const struct dopt *o,
		    const char *v, const char *where, char *err, size_t errlen)
{
	char *base = (char *)c;
	unsigned long long u;
	uint64_t sz;
	const char *why;
	char *end;
	unsigned n;
	int ret;

	switch (o->type) {
	case DT_ALLOW_KNOBS:
		return set_allow_knobs(c, v, where, err, errlen);
	case DT_LISTEN:
		why = parse_listen(v, c->listen_addr, sizeof(c->listen_addr),
				   &c->port, &c->loopback);
		if (why)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not a listen address: %s ("
				    LISTEN_EXAMPLES ")", where, v, why);
		return 0;
	case DT_STORE:
		return set_store(c, v, where, err, errlen);
	case DT_NAME:
		why = bb_host_name_check(v);
		if (why)
			return fail(err, errlen, -EINVAL,
				    "%s: '%.64s' is not a host name: %s", where,
				    v, why);
		snprintf(base + o->off, sizeof(c->host_name), "%s", v);
		return 0;
	case DT_DB:
	case DT_KNOBS:
		if (o->type == DT_DB)
			c->db_given = true;
		else
			c->knob_journal_given = true;
		/* fall through */
	case DT_PATH:
	case DT_OPTPATH:
	case DT_CONFIG:
		if (!*v && o->type != DT_OPTPATH && o->type != DT_CONFIG)
			return fail(err, errlen, -EINVAL,
				    "%s: a path is required", where);
		if (strlen(v) >= PATH_MAX)
			return fail(err, errlen, -EINVAL,
				    "%s: the path is longer than %d bytes",
				    where, PATH_MAX - 1);
		snprintf(base + o->off, PATH_MAX, "%s", v);
		return 0;
	case DT_CPULIST: {
		int cpus[BB_DCONFIG_MAX_CPUS];

		/* none: not pinned (http_cpus), no default (bench_cpus) */
		ret = strcmp(v, "none") ? bb_parse_cpulist(v, cpus,
							   BB_DCONFIG_MAX_CPUS,
							   &n) : (n = 0, 0);
		if (ret == -E2BIG)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' names more than %d CPUs", where,
				    v, BB_DCONFIG_MAX_CPUS);
		if (ret)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not a CPU list ("
				    CPULIST_EXAMPLES ")", where, v);
		memcpy(base + o->off, cpus, n * sizeof(cpus[0]));
		memcpy(base + o->off2, &n, sizeof(n));
		return 0;
	}
	case DT_UINT:
		errno = 0;
		u = isdigit((unsigned char)v[0]) ? strtoull(v, &end, 10) : 0;
		if (!isdigit((unsigned char)v[0]) || *end)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not a number (%llu..%llu)",
				    where, v, o->min, o->max);
		if (errno || u < o->min || u > o->max)
			return fail(err, errlen, -EINVAL,
				    "%s: %s is out of range (%llu..%llu)", where,
				    v, o->min, o->max);
		n = (unsigned)u;
		memcpy(base + o->off, &n, sizeof(n));
		return 0;
	case DT_SIZE:
		ret = bb_parse_size(v, &sz);
		if (ret == -ERANGE || (!ret && (sz < o->min || sz > o->max)))
			return fail(err, errlen, -EINVAL,
				    "%s: %s is out of range (%llu bytes..%llu "
				    "bytes)", where, v, o->min, o->max);
		if (ret)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not a size (" SIZE_EXAMPLES ")",
				    where, v);
		{
			size_t s = (size_t)sz;

			memcpy(base + o->off, &s, sizeof(s));
		}
		return 0;
	case DT_ALLOW:
	case DT_ALLOW_WRITE:
		why = check_pattern(v);
		if (why)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not an allowed target pattern: "
				    "%s", where, v, why);
		if (c->nallow >= BB_DCONFIG_MAX_ALLOW)
			return fail(err, errlen, -EINVAL,
				    "%s: too many allow/allow_write entries "
				    "(max %d)", where, BB_DCONFIG_MAX_ALLOW);
		snprintf(c->allow[c->nallow].pattern,
			 sizeof(c->allow[c->nallow].pattern), "%s", v);
		c->allow[c->nallow].write = o->type == DT_ALLOW_WRITE;
		c->nallow++;
		return 0;
	case DT_HOSTS:
		return list_add(v, where, check_host, "a host name",
				"examples: bench.lab, bench.lab:8443, "
				"10.0.0.5:8420", c->hosts[0],
				sizeof(c->hosts[0]), &c->nhosts,
				BB_DCONFIG_MAX_HOSTS, true, err, errlen);
	case DT_BOOT_DIRS:
		return list_add(v, where, bb_boot_dir_check, "a boot directory",
				"example: /boot /var/lib/biobench/boot",
				c->boot_dirs[0], sizeof(c->boot_dirs[0]),
				&c->nboot_dirs, BB_DCONFIG_MAX_BOOT_DIRS, false,
				err, errlen);
	case DT_FLAG:
		if (!v) {
			*(bool *)(void *)(base + o->off) = true;
			return 0;
		}
		/* in the file: yes or no, as a DT_BOOL */
		__attribute__((fallthrough));
	case DT_BOOL: {
		static const char *const yes[] = { "yes", "true", "on", "1" };
		static const char *const no[] = { "no", "false", "off", "0" };
		int t = -1;

		for (size_t i = 0; i < 4; i++) {
			if (!strcasecmp(v, yes[i]))
				t = 1;
			if (!strcasecmp(v, no[i]))
				t = 0;
		}
		if (t < 0)
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not yes or no", where, v);
		*(bool *)(void *)(base + o->off) = t;
		return 0;
	}
	case DT_METHOD:
		for (unsigned i = 0; reboot_methods[i]; i++) {
			if (!strcmp(v, reboot_methods[i])) {
				memcpy(base + o->off, &i, sizeof(i));
				return 0;
			}
		}
		return fail(err, errlen, -EINVAL, "%s: '%s' is not one of "
			    "kexec-systemd, grub-reboot, kexec-exec", where, v);
	case DT_HELP:
	case DT_VERSION:
		return 0;
	}
	return -EINVAL;
}

/* ---- INI file ------------------------------------------------------------- */

struct ini_ctx {
	struct bb_dconfig *c;
	const char *path;
	FILE *f;
	int line;
	int ret;
	char *err;
	size_t errlen;
};

static int ctx_fail(struct ini_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int ctx_fail(struct ini_ctx *x, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (x->ret)
		return 0; /* the first error is reported */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	x->ret = -EINVAL;
	fail(x->err, x->errlen, -EINVAL, "%s:%d: %s", x->path, x->line, msg);
	return 0;
}

static bool section_known(const char *s)
{
	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++)
		if (!strcmp(s, sections[i]))
			return true;
	return false;
}

/* fgets for inih: counts lines, refuses over-long ones and unknown
 * section headers. */
static char *ini_reader_fn(char *str, int num, void *stream)
{
	struct ini_ctx *x = stream;
	char name[64], *p, *q;
	size_t n;
	int ch;

	if (!fgets(str, num, x->f))
		return NULL;
	x->line++;
	n = strlen(str);
	if (n && str[n - 1] != '\n' && !feof(x->f)) {
		ctx_fail(x, "line longer than %d characters", num - 3);
		while ((ch = fgetc(x->f)) != EOF && ch != '\n')
			;
		str[0] = '\0';
		return str;
	}
	p = str;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '[' && (q = strchr(p, ']'))) {
		n = (size_t)(q - p - 1);
		if (n >= sizeof(name))
			n = sizeof(name) - 1;
		memcpy(name, p + 1, n);
		name[n] = '\0';
		if (!section_known(name))
			ctx_fail(x, "unknown section [%s] (allowed: [server], "
				    "[targets], [reboot])", name);
	}
	return str;
}

static int ini_handler_fn(void *user, const char *section, const char *name,
			  const char *value)
{
	struct ini_ctx *x = user;
	char where[PATH_MAX + 96];
	const struct dopt *o;
	int ret;

	if (!section[0])
		return ctx_fail(x, "%s: key outside a section (put it under "
				   "[server], [targets] or [reboot])", name);
	if (!section_known(section))
		return ctx_fail(x, "unknown section [%s] (allowed: [server], "
				   "[targets], [reboot])", section);
	for (size_t i = 0; i < sizeof(dopt_table) / sizeof(dopt_table[0]);
	     i++) {
		o = &dopt_table[i];
		if (!o->section || strcmp(o->section, section) ||
		    strcmp(o->key, name))
			continue;
		if (!value)
			return ctx_fail(x, "%s: a value is required", name);
		snprintf(where, sizeof(where), "%s:%d: %s", x->path, x->line,
			 name);
		if (x->ret)
			return 0;
		ret = dopt_set(x->c, o, value, where, x->err, x->errlen);
		if (ret) {
			x->ret = ret;
			return 0;
		}
		return 1;
	}
	{
		/* every key of the section (the [server] ones alone are
		 * over 256 characters) */
		char keys[1024] = "";
		size_t len = 0;

		for (size_t i = 0;
		     i < sizeof(dopt_table) / sizeof(dopt_table[0]); i++) {
			int n;

			o = &dopt_table[i];
			if (!o->section || strcmp(o->section, section))
				continue;
			n = snprintf(keys + len, sizeof(keys) - len, "%s%s",
				     len ? ", " : "", o->key);
			if (n < 0 || (size_t)n >= sizeof(keys) - len)
				break; /* cut: the buffer is full */
			len += (size_t)n;
		}
		return ctx_fail(x, "%s: unknown key in [%s] (allowed: %s)",
				name, section, keys);
	}
}

int bb_dconfig_load(struct bb_dconfig *c, const char *path, char *err,
		    size_t errlen)
{
	struct ini_ctx x = { .path = path, .err = err, .errlen = errlen };
	struct bb_dconfig *tmp = NULL;
	int ret, line;

	if (strlen(path) >= sizeof(c->config_path))
		return fail(err, errlen, -ENAMETOOLONG, "%s: path too long",
			    path);
	x.f = fopen(path, "re");
	if (!x.f) {
		ret = -errno;
		fail(err, errlen, ret, "%s: cannot open: %s", path,
		     strerror(-ret));
		goto out;
	}
	/* parse into a copy: c is changed only when the whole file is good */
	tmp = malloc(sizeof(*tmp));
	if (!tmp) {
		ret = fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	memcpy(tmp, c, sizeof(*tmp));
	x.c = tmp;
	line = ini_parse_stream(ini_reader_fn, &x, ini_handler_fn, &x);
	if (x.ret) {
		ret = x.ret;
		goto out;
	}
	if (line == -2) {
		ret = fail(err, errlen, -ENOMEM, "%s: out of memory", path);
		goto out;
	}
	if (line) {
		ret = fail(err, errlen, -EINVAL,
			   "%s:%d: syntax error (expected [section], "
			   "key = value, or a ; comment)", path, line);
		goto out;
	}
	if (ferror(x.f)) {
		ret = fail(err, errlen, -EIO, "%s: read error", path);
		goto out;
	}
	snprintf(tmp->config_path, sizeof(tmp->config_path), "%s", path);
	memcpy(c, tmp, sizeof(*c));
	ret = 0;
out:
	free(tmp);
	if (x.f)
		fclose(x.f);
	return ret;
}

/* ---- command line --------------------------------------------------------- */

static const struct dopt *find_cli(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(dopt_table) / sizeof(dopt_table[0]);
	     i++)
		if (strlen(dopt_table[i].cli) == len &&
		    !strncmp(dopt_table[i].cli, name, len))
			return &dopt_table[i];
	return NULL;
}

static bool takes_value(const struct dopt *o)
{
	return o->type != DT_FLAG && o->type != DT_HELP &&
	       o->type != DT_VERSION;
}

/* One argument at argv[*i]: finds the option and its value. */
static int cli_next(int argc, char **argv, int *i, const struct dopt **po,
		    const char **pv, char *err, size_t errlen)
{
	const char *a = argv[*i], *eq;
	const struct dopt *o;
	size_t len;

	if (strncmp(a, "--", 2) || !a[2])
		return fail(err, errlen, -EINVAL,
			    "unexpected argument '%s' (see --help)", a);
	eq = strchr(a + 2, '=');
	len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
	o = find_cli(a + 2, len);
	if (!o)
		return fail(err, errlen, -EINVAL,
			    "unknown option '%.*s' (see --help)",
			    (int)(len + 2), a);
	if (!takes_value(o)) {
		if (eq)
			return fail(err, errlen, -EINVAL,
				    "--%s takes no value", o->cli);
		*pv = NULL;
	} else if (eq) {
		*pv = eq + 1;
	} else {
		if (*i + 1 >= argc)
			return fail(err, errlen, -EINVAL,
				    "--%s needs a value (%s)", o->cli,
				    o->metavar);
		*pv = argv[++*i];
	}
	*po = o;
	return 0;
}

int bb_dconfig_args(struct bb_dconfig *c, int argc, char **argv, char *err,
		    size_t errlen)
{
	const struct dopt *o;
	const char *v, *config = NULL;
	char where[64];
	int i, ret;

	/* first pass: syntax, --help, --config */
	for (i = 1; i < argc; i++) {
		ret = cli_next(argc, argv, &i, &o, &v, err, errlen);
		if (ret)
			return ret;
		if (o->type == DT_HELP) {
			bb_dconfig_usage(stdout);
			return 1;
		}
		if (o->type == DT_VERSION) {
			printf("biobenchd %s\n", BB_VERSION);
			return 1;
		}
		if (o->type == DT_CONFIG) {
			if (config)
				return fail(err, errlen, -EINVAL,
					    "--config given twice");
			if (!*v)
				return fail(err, errlen, -EINVAL,
					    "--config: a path is required");
			config = v;
		}
	}
	if (config) {
		ret = bb_dconfig_load(c, config, err, errlen);
		if (ret)
			return ret;
	}
	/* second pass: the other options, in order, over the file */
	for (i = 1; i < argc; i++) {
		ret = cli_next(argc, argv, &i, &o, &v, err, errlen);
		if (ret)
			return ret;
		if (o->type == DT_CONFIG)
			continue;
		snprintf(where, sizeof(where), "--%s", o->cli);
		ret = dopt_set(c, o, v, where, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* The default of an option as the code sets it (bb_dconfig_default), in
 * the option's own syntax: "2048", "1m", "127.0.0.1:8420", "0". */
static void dopt_default_text(const struct dopt *o, const struct bb_dconfig *d,
			      char *buf, size_t len)
{
	const char *p = (const char *)d + o->off;

	switch (o->type) {
	case DT_LISTEN:
		snprintf(buf, len, "%s:%u", d->listen_addr, d->port);
		break;
	case DT_PATH:
	case DT_DB:
	case DT_KNOBS:
	case DT_NAME:
		snprintf(buf, len, "%s", p);
		break;
	case DT_BOOL:
		snprintf(buf, len, "%s", *(const bool *)(const void *)p ?
					  "yes" : "no");
		break;
	case DT_METHOD: {
		unsigned v;

		memcpy(&v, p, sizeof(v));
		snprintf(buf, len, "%s",
			 bb_reboot_method_name((enum bb_reboot_method)v));
		break;
	}
	case DT_UINT: {
		unsigned v;

		memcpy(&v, p, sizeof(v));
		snprintf(buf, len, "%u", v);
		break;
	}
	case DT_SIZE: {
		static const char sfx[] = "kmgtp";
		size_t v;
		unsigned k = 0;

		memcpy(&v, p, sizeof(v));
		while (v && v % 1024 == 0 && k < sizeof(sfx) - 1) {
			v /= 1024;
			k++;
		}
		if (k)
			snprintf(buf, len, "%zu%c", v, sfx[k - 1]);
		else
			snprintf(buf, len, "%zu", v);
		break;
	}
	case DT_CPULIST: {
		const int *cpus = (const int *)(const void *)p;
		unsigned n, off = 0;

		memcpy(&n, (const char *)d + o->off2, sizeof(n));
		buf[0] = '\0';
		for (unsigned i = 0; i < n && off < len; i++)
			off += (unsigned)snprintf(buf + off, len - off, "%s%d",
						  i ? "," : "", cpus[i]);
		if (!n)
			snprintf(buf, len, "none");
		break;
	}
	default:
		snprintf(buf, len, "none");
		break;
	}
}

void bb_dconfig_usage(FILE *f)
{
	struct bb_dconfig *d = malloc(sizeof(*d));
	char opt[64], def[PATH_MAX + 32];

	if (d)
		bb_dconfig_default(d);
	fprintf(f, "Usage: biobenchd [OPTIONS]\n\n"
		   "Options (the command line beats the config file):\n");
	for (size_t i = 0; i < sizeof(dopt_table) / sizeof(dopt_table[0]);
	     i++) {
		const struct dopt *o = &dopt_table[i];

		snprintf(opt, sizeof(opt), "--%s%s%s", o->cli,
			 o->metavar ? " " : "", o->metavar ? o->metavar : "");
		fprintf(f, "  %-24s %s\n", opt, o->help);
		if (o->type == DT_HELP || o->type == DT_VERSION)
			continue;
		if (o->def)
			snprintf(def, sizeof(def), "%s", o->def);
		else if (d)
			dopt_default_text(o, d, def, sizeof(def));
		else
			snprintf(def, sizeof(def), "?");
		fprintf(f, "  %-24s default %s", "", def);
		if (o->section)
			fprintf(f, "; in the file: [%s] %s", o->section,
				o->key);
		fputc('\n', f);
	}
	fprintf(f, "\nA listen address other than 127.0.0.0/8 or ::1 needs "
		   "--token-file.\nThe allow-list is empty by default: no "
		   "target may be used until one is allowed.\n");
	free(d);
}

/* ---- final checks --------------------------------------------------------- */

/* The token file: a regular file of mode 0600 or 0400 owned by the
 * daemon's user; its first line, blanks trimmed, is the token: 16..255
 * bytes, no NUL.  Checked on the opened file (fstat), not by path. */
static int load_token(struct bb_dconfig *c, char *err, size_t errlen)
{
	char buf[TOKEN_MAX + 64], *p, *e, *nl;
	const char *f = c->token_file;
	unsigned mode;
	struct stat st;
	size_t n = 0;
	ssize_t got;
	int fd, ret;

	fd = open(f, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		fail(err, errlen, -EINVAL, "token_file %s: %s", f,
		     strerror(-ret));
		return -EINVAL;
	}
	if (fstat(fd, &st)) {
		ret = fail(err, errlen, -EINVAL, "token_file %s: %s", f,
			   strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s is not a regular file", f);
		goto out;
	}
	mode = (unsigned)(st.st_mode & 07777);
	if (mode != 0600 && mode != 0400) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s has mode %04o: it must be 0600 or "
			   "0400, readable by its owner only (chmod 600 %s)",
			   f, mode, f);
		goto out;
	}
	if (st.st_uid != geteuid()) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s is owned by uid %u: it must be owned "
			   "by the daemon's user, uid %u (chown %u %s)", f,
			   (unsigned)st.st_uid, (unsigned)geteuid(),
			   (unsigned)geteuid(), f);
		goto out;
	}
	while (n < sizeof(buf) - 1) {
		got = read(fd, buf + n, sizeof(buf) - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			ret = fail(err, errlen, -EINVAL, "token_file %s: %s",
				   f, strerror(errno));
			goto out;
		}
		if (!got)
			break;
		n += (size_t)got;
	}
	buf[n] = '\0';
	nl = memchr(buf, '\n', n);
	if (!nl && n == sizeof(buf) - 1) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s: the token is longer than %d bytes",
			   f, TOKEN_MAX);
		goto out;
	}
	if (nl)
		*nl = '\0';
	else
		nl = buf + n;
	if (memchr(buf, '\0', (size_t)(nl - buf))) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s: the token contains a NUL byte (a "
			   "token is printable text, e.g. head -c 32 "
			   "/dev/urandom | base64)", f);
		goto out;
	}
	p = buf;
	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	if (!*p) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s: the first line (the token) is "
			   "empty", f);
		goto out;
	}
	if ((size_t)(e - p) > TOKEN_MAX) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s: the token is longer than %d bytes",
			   f, TOKEN_MAX);
		goto out;
	}
	if ((size_t)(e - p) < BB_DCONFIG_TOKEN_MIN) {
		ret = fail(err, errlen, -EINVAL,
			   "token_file %s: the token is %zu bytes: at least "
			   "%d are needed (e.g. head -c 32 /dev/urandom | "
			   "base64)", f, (size_t)(e - p),
			   BB_DCONFIG_TOKEN_MIN);
		goto out;
	}
	c->token_len = (size_t)(e - p);
	memcpy(c->token, p, c->token_len + 1);
	ret = 0;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return ret;
}

static int check_cpus(const char *what, const int *cpus, unsigned n,
		      char *err, size_t errlen)
{
	/* n == 0: "none" */
	for (unsigned i = 0; i < n; i++)
		if (!cpu_online(cpus[i]))
			return fail(err, errlen, -EINVAL,
				    "%s: CPU %d is not online (online: see "
				    SYS_CPU "/online)", what, cpus[i]);
	return 0;
}

int bb_dconfig_check(struct bb_dconfig *c, char *err, size_t errlen)
{
	int ret;

	c->token[0] = '\0';
	c->token_len = 0;
	ret = resolve_store(c, err, errlen);
	if (ret)
		return ret;
	if (!c->loopback && !c->token_file[0])
		return fail(err, errlen, -EINVAL,
			    "listen %s:%u is not a loopback address: a "
			    "token_file is required (a bearer token on its "
			    "first line, mode 0600)", c->listen_addr, c->port);
	if (c->token_file[0]) {
		ret = load_token(c, err, errlen);
		if (ret)
			return ret;
	}
	ret = check_cpus("http_cpus", c->http_cpus, c->n_http_cpus, err,
			 errlen);
	if (ret)
		return ret;
	ret = check_cpus("bench_cpus", c->bench_cpus, c->n_bench_cpus, err,
			 errlen);
	if (ret)
		return ret;
	for (unsigned i = 0; i < c->n_bench_cpus; i++) {
		for (unsigned j = 0; j < c->n_http_cpus; j++) {
			if (c->bench_cpus[i] != c->http_cpus[j])
				continue;
			if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
				return fail(err, errlen, -EINVAL,
					    "bench_cpus and http_cpus share "
					    "CPU %d: the HTTP threads must not "
					    "run on benchmark CPUs",
					    c->bench_cpus[i]);
			fprintf(stderr,
				"biobenchd: warning: one online CPU: the "
				"HTTP threads share CPU %d with the "
				"benchmarks\n", c->bench_cpus[i]);
			return 0;
		}
	}
	return 0;
}

/* ---- allow-list ----------------------------------------------------------- */

static void list_patterns(const struct bb_dconfig *c, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (int w = 0; w < 2; w++) {
		bool first = true;

		for (unsigned i = 0; i < c->nallow; i++) {
			if (c->allow[i].write != (w == 1))
				continue;
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0,
					      "%s%s%s",
					      first ? (n ? "; " : "") : ", ",
					      first ? (w ? "allow_write = "
							 : "allow = ")
						    : "",
					      c->allow[i].pattern);
			first = false;
		}
	}
	if (n >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

int bb_dconfig_target_allowed(const struct bb_dconfig *c,
			      const char *target, bool write, char *why,
			      size_t len)
{
	char canon[PATH_MAX], shown[2 * PATH_MAX + 32], pats[1024];
	bool read_ok = false, write_ok = false, is_nop;
	int ret;

	is_nop = !strcmp(target, "nop");
	if (is_nop) {
		snprintf(canon, sizeof(canon), "nop");
	} else {
		if (target[0] != '/')
			return fail(why, len, -EACCES,
				    "target %s is not an absolute path",
				    target);
		/* the one canonicaliser, shared with the scheduler's check
		 * before each run and the run's pinned open */
		ret = bb_target_canonical(target, canon, sizeof(canon), why,
					  len);
		if (ret)
			return -EACCES;
	}
	for (unsigned i = 0; i < c->nallow; i++) {
		const struct bb_allow *a = &c->allow[i];
		bool m;

		if (is_nop)
			m = !strcmp(a->pattern, "nop");
		else
			m = strcmp(a->pattern, "nop") &&
			    !fnmatch(a->pattern, canon, FNM_PATHNAME);
		if (!m)
			continue;
		read_ok = true;
		/* nop does no I/O: writing to it touches nothing */
		if (a->write || is_nop)
			write_ok = true;
	}
	if (read_ok && (!write || write_ok))
		return 0;

	if (is_nop || !strcmp(canon, target))
		snprintf(shown, sizeof(shown), "%s", target);
	else
		snprintf(shown, sizeof(shown), "%s (resolves to %s)", target,
			 canon);
	if (!read_ok) {
		list_patterns(c, pats, sizeof(pats));
		if (!c->nallow)
			return fail(why, len, -EACCES,
				    "target %s is not in the allow-list (the "
				    "allow-list is empty: add allow = ... "
				    "under [targets])", shown);
		return fail(why, len, -EACCES,
			    "target %s is not in the allow-list (%s)", shown,
			    pats);
	}
	return fail(why, len, -EACCES,
		    "target %s is allowed read-only: writes need allow_write",
		    shown);
}

/* ---- knobs ---------------------------------------------------------------- */

/* allow_knobs = PATTERN KNOB...: words separated by blanks or commas. */
static int set_allow_knobs(struct bb_dconfig *c, const char *v,
			   const char *where, char *err, size_t errlen)
{
	struct bb_allow_knobs *r;
	const char *p = v, *why;
	char word[PATH_MAX];
	bool first = true;

	if (c->nknob_rules >= BB_DCONFIG_MAX_KNOB_RULES)
		return fail(err, errlen, -EINVAL,
			    "%s: too many allow_knobs entries (max %d)", where,
			    BB_DCONFIG_MAX_KNOB_RULES);
	r = &c->knob_rules[c->nknob_rules];
	memset(r, 0, sizeof(*r));
	for (;;) {
		size_t n;

		p += strspn(p, " \t,");
		n = strcspn(p, " \t,");
		if (!n)
			break;
		if (n >= sizeof(word))
			return fail(err, errlen, -EINVAL, "%s: '%.40s...' is "
				    "too long", where, p);
		memcpy(word, p, n);
		word[n] = '\0';
		p += n;
		if (first) {
			why = check_pattern(word);
			if (why)
				return fail(err, errlen, -EINVAL,
					    "%s: '%s' is not a target pattern: "
					    "%s (allow_knobs = GLOB KNOB..., e.g. "
					    "/dev/loop* nomerges read_ahead_kb)",
					    where, word, why);
			snprintf(r->pattern, sizeof(r->pattern), "%s", word);
			first = false;
			continue;
		}
		if (!strcmp(word, "*")) {
			r->any = true;
			continue;
		}
		if (!bb_sysknob_name_ok(word))
			return fail(err, errlen, -EINVAL,
				    "%s: '%s' is not a knob name (a queue "
				    "attribute, [a-z0-9_]{1,63}, or *)", where,
				    word);
		if (r->n >= BB_DCONFIG_MAX_RULE_KNOBS)
			return fail(err, errlen, -EINVAL,
				    "%s: more than %d knobs in one entry", where,
				    BB_DCONFIG_MAX_RULE_KNOBS);
		snprintf(r->knob[r->n++], sizeof(r->knob[0]), "%s", word);
	}
	if (first || (!r->n && !r->any))
		return fail(err, errlen, -EINVAL,
			    "%s: '%s' needs a target pattern and at least one "
			    "knob (allow_knobs = GLOB KNOB..., e.g. /dev/loop* "
			    "nomerges read_ahead_kb)", where, v);
	c->nknob_rules++;
	return 0;
}


int bb_dconfig_knob_allowed(const struct bb_dconfig *c, const char *target,
			    const char *knob, bool dangerous,
			    const char *mounted, char *why, size_t len)
{
	char canon[PATH_MAX], listed[512] = "";
	bool matched = false, any = false;
	size_t off = 0;

	if (target[0] != '/')
		return fail(why, len, -EACCES,
			    "target %s has no sysfs knobs to allow", target);
	if (bb_target_canonical(target, canon, sizeof(canon), why, len))
		return -EACCES;
	for (unsigned i = 0; i < c->nknob_rules; i++) {
		const struct bb_allow_knobs *r = &c->knob_rules[i];

		if (!strcmp(r->pattern, "nop") ||
		    fnmatch(r->pattern, canon, FNM_PATHNAME))
			continue;
		matched = true;
		any |= r->any;
		for (unsigned k = 0; k < r->n; k++) {
			if (!strcmp(r->knob[k], knob))
				return 0; /* named: allowed, dangerous or not */
			if (off < sizeof(listed))
				off += (size_t)snprintf(listed + off,
							sizeof(listed) - off,
							"%s%s", off ? " " : "",
							r->knob[k]);
		}
	}
	if (any && !dangerous)
		return 0;
	if (any)
		return fail(why, len, -EACCES,
			    "knob %s on target %s: its disk holds a mounted "
			    "filesystem (%s), so %s must be named in "
			    "allow_knobs for it (\"*\" does not cover it)",
			    knob, target, mounted ? mounted : "?", knob);
	if (matched)
		return fail(why, len, -EACCES,
			    "knob %s is not allowed on target %s (allow_knobs "
			    "for it: %s)", knob, target, listed);
	return fail(why, len, -EACCES,
		    "target %s may not change sysfs knobs: the daemon's "
		    "configuration needs allow_knobs = PATTERN %s under "
		    "[targets]", target, knob);
}
