// SPDX-License-Identifier: GPL-2.0-only
/* cmd_client.c - the daemon client commands: submit, jobs, show, compare,
 * watch, cancel, devices, host.  Each talks to biobenchd's API
 * (schema/openapi.yaml) through client.c; `--json` prints the API's
 * document as is. */
#include "cli.h"
#include "client.h"

#include <biobench/common.h>
#include <biobench/jobcompare.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOB_FILE_MAX (16u << 20)
#define WATCH_INTERVAL_S 0.5
#define BAR_WIDTH 24
#define JOBS_NAME_COLS 36 /* the NAME column of `jobs` */

enum {
	O_JSON = 1u << 0,
	O_WAIT = 1u << 1,
	O_STATE = 1u << 2,
	O_LIMIT = 1u << 3,
	O_INTERVAL = 1u << 4,
	O_VARIANT = 1u << 5,
	O_ALLOW_DIFF = 1u << 6,
	O_RUN_LEVEL = 1u << 7, /* compare: --run-level; its ID may be a side
				  (ID,ID,...) */
};

struct csess;

/* A client command.  The plain ones (one call, then print the answer)
 * are a row for client_cmd(): method, path, print; a new one is a row
 * and its print function. */
struct ccmd {
	const char *name;
	const char *args;    /* positional arguments, for the usage line;
				"ID" is a job id (session's id) */
	unsigned npos;       /* at least this many */
	unsigned npos_max;   /* at most this many (0: npos) */
	unsigned opts;       /* O_* accepted besides --server/--token-file */
	const char *summary; /* what it does, for --help */
	const char *method;  /* client_cmd: "GET" or "POST" */
	const char *path;    /* client_cmd: the API path; a job id goes in
				"%" PRId64 */
	/* client_cmd: the human form of the answer (given escaped:
	 * bb_cli_json_escaped); the exit code */
	int (*print)(struct csess *s, struct json_object *doc);
};

struct copts {
	const char *server;
	const char *token_file;
	bool json, wait;
	const char *state;
	unsigned limit;
	double interval;
	const char *variant;
	bool allow_diff, run_level;
	const char *pos[1 + BB_JOBCMP_MAX_WITH];
	unsigned npos;
};

/* One command's session: its options, its job id, its client. */
struct csess {
	const struct ccmd *cmd;
	struct copts o;
	int64_t id;          /* the ID argument; 0 when none */
	struct bb_client c;
};

static int print_jobs(struct csess *s, struct json_object *doc);
static int print_show(struct csess *s, struct json_object *doc);
static int print_compare(struct csess *s, struct json_object *doc);
static int print_cancel(struct csess *s, struct json_object *doc);
static int print_devices(struct csess *s, struct json_object *doc);
static int print_host(struct csess *s, struct json_object *doc);
static int print_hosts(struct csess *s, struct json_object *doc);

static const char *const job_states[] = { "queued", "running", "done",
					  "failed", "cancelled",
					  "interrupted", "rebooting" };

static const struct ccmd cmd_submit = {
	"submit", "FILE|-", 1, 0, O_JSON | O_WAIT | O_INTERVAL,
	"Submit the job in FILE (a job JSON document, schema/job.schema.json;\n"
	"`-` reads standard input) and print its id.  With --wait, follow it\n"
	"like `watch` and exit 0 when it is done, 1 when it failed, was\n"
	"cancelled or interrupted (a group job: its hosts side by side at\n"
	"the end).  --json prints the API's answer (with --wait: the job's\n"
	"documents as `watch --json` does).",
	NULL, NULL, NULL, /* its own: bb_cmd_submit */
};
static const struct ccmd cmd_jobs = {
	"jobs", "", 0, 0, O_JSON | O_STATE | O_LIMIT,
	"List jobs, newest first: id, name, state, progress, the change of B\n"
	"against A (the estimate compare shows; a + when the job has more\n"
	"variants), verdict, age.  A group job's name says [group], each of\n"
	"its hosts' jobs @HOST and its group.",
	"GET", NULL /* jobs_path() */, print_jobs,
};
static const struct ccmd cmd_show = {
	"show", "ID", 1, 0, O_JSON,
	"Show one job: state, plan, variants, host, device, progress, and its\n"
	"comparison once there is one.",
	"GET", "/api/v1/jobs/%" PRId64, print_show,
};
static const struct ccmd cmd_compare = {
	"compare", "ID [OTHER...]", 1, 1 + BB_JOBCMP_MAX_WITH,
	O_JSON | O_VARIANT | O_ALLOW_DIFF | O_RUN_LEVEL,
	"Print a job's comparison: per variant the runs, the median of the\n"
	"metric, the change against the baseline with its confidence interval,\n"
	"the p-value and the verdict; then warnings (e.g. variants run on\n"
	"different devices, runs that did not finish, disturbed runs and what\n"
	"disturbed them).  A job that failed, was cancelled or interrupted\n"
	"says so first and exits 1: its comparison is of the runs before.\n"
	"A group job (one job on several hosts): a row per host (its job,\n"
	"n, change, CI, p, verdict) and the combined line (the hosts' range,\n"
	"pooled estimate, between-host spread, the hosts that disagree).\n\n"
	"With two or more sides (BASE OTHER...; at most 8 others), compare the\n"
	"jobs (e.g. the same job on two kernels).  A side is a job id, or\n"
	"several comma-separated (12,14,16: the same job run again, on the\n"
	"same kernel or after another boot into it); at most 32 jobs in all.\n"
	"Each variant of OTHER is compared with the same-named variant of BASE\n"
	"(an A/A job's A and A2 pool) with the job as the unit, or the boot\n"
	"when the sides ran on boots of their own: each job's (boot's) level,\n"
	"the Hodges-Lehmann location of its runs, and a t test on the levels,\n"
	"so that the interval rests on how much jobs (boots) differ, not on the\n"
	"runs within one.  One job a side gives no verdict: it says how many\n"
	"more jobs each side would.  Then Holm over all, TOST, the verdict;\n"
	"each side's run-to-run spread, the boots behind each side, and what\n"
	"differs between the jobs (kernel, boot, host, device, queue settings,\n"
	"configuration: * marks it).  --run-level compares the runs instead\n"
	"(two-sample Hodges-Lehmann and rank-sum), and says what that assumes.\n"
	"A workload that differs (target, rw, bs, iodepth, threads,\n"
	"runtime...) is refused (exit 2) unless --allow-different-workload.",
	"GET", "/api/v1/jobs/%" PRId64 "/compare", print_compare,
};
static const struct ccmd cmd_watch = {
	"watch", "ID", 1, 0, O_JSON | O_INTERVAL,
	"Follow a job until it ends: a progress bar (run i/n, ETA, the last\n"
	"finished run's IOPS with its variant) on a terminal, a line per run\n"
	"otherwise; then the verdict and\n"
	"the comparison.  Exit 0 when the job is done, 1 when it failed, was\n"
	"cancelled or interrupted.  --json prints the job document (one line)\n"
	"each time it changes.",
	NULL, NULL, NULL, /* its own: watch_job */
};
static const struct ccmd cmd_cancel = {
	"cancel", "ID", 1, 0, O_JSON,
	"Cancel a job: a queued one at once, a running one within a second\n"
	"(its sysfs knobs restored); one that runs on another daemon of the\n"
	"fleet at that daemon's next heartbeat.  A group job: each of its\n"
	"hosts' jobs that has not ended.",
	"POST", "/api/v1/jobs/%" PRId64 "/cancel", print_cancel,
};
static const struct ccmd cmd_devices = {
	"devices", "", 0, 0, O_JSON,
	"List the daemon host's block devices and what the daemon's\n"
	"allow-list permits on each.  `biobench devices --local [--json]`\n"
	"lists this host's NVMe controllers and block devices instead,\n"
	"without a daemon.",
	"GET", "/api/v1/devices", print_devices,
};
static const struct ccmd cmd_host = {
	"host", "", 0, 0, O_JSON,
	"Show the daemon's host (kernel, CPUs and microcode, memory, governor,\n"
	"boot id) and the daemon's version, uptime and pid.",
	"GET", "/api/v1/host", print_host,
};
static const struct ccmd cmd_hosts = {
	"hosts", "", 0, 0, O_JSON,
	"List the daemons that share the daemon's store (the fleet: one per\n"
	"host_name): when each was last seen, its kernel, the job it runs.\n"
	"A job's \"host\" names one of them (or several: a group job);\n"
	"\"hosts\" selects them by their metadata.",
	"GET", "/api/v1/hosts", print_hosts,
};

/* ---- options ------------------------------------------------------------ */

static void cmd_usage(FILE *f, const struct ccmd *cmd)
{
	fprintf(f, "usage: biobench %s [OPTIONS]%s%s\n\n%s\n\noptions:\n",
		cmd->name, cmd->args[0] ? " " : "", cmd->args, cmd->summary);
	if (cmd->opts & O_WAIT)
		fprintf(f, "  --wait             follow the job until it ends "
			   "(exit 0 done, 1 not)\n");
	if (cmd->opts & O_STATE)
		fprintf(f, "  --state STATE      only jobs in STATE: queued, "
			   "running, done, failed,\n"
			   "                     cancelled, interrupted, rebooting\n");
	if (cmd->opts & O_LIMIT)
		fprintf(f, "  --limit N          at most N jobs (1..500, "
			   "default 50)\n");
	if (cmd->opts & O_INTERVAL)
		fprintf(f, "  --interval SEC     poll every SEC seconds "
			   "(default %.1f)\n",
			WATCH_INTERVAL_S);
	if (cmd->opts & O_VARIANT)
		fprintf(f, "  --variant NAME     BASE OTHER...: compare only "
			   "variant NAME\n");
	if (cmd->opts & O_ALLOW_DIFF)
		fprintf(f, "  --allow-different-workload\n"
			   "                     BASE OTHER...: compare even "
			   "when workload fields differ\n");
	if (cmd->opts & O_RUN_LEVEL)
		fprintf(f, "  --run-level        BASE OTHER...: every run an "
			   "independent sample, not\n"
			   "                     the job (or boot) as the unit; "
			   "assumes jobs and boots\n"
			   "                     do not differ, and says so\n");
	if (cmd->opts & O_JSON)
		fprintf(f, "  --json             print the API's JSON "
			   "document as is\n");
	fprintf(f,
		"  --server URL       biobenchd's URL (default "
		"$BIOBENCH_SERVER, else %s)\n"
		"  --token-file FILE  send the bearer token in FILE (default "
		"$BIOBENCH_TOKEN_FILE)\n"
		"  -h, --help         this text\n\n"
		"Exit status: 0 ok, 1 %s or the server answered an error, "
		"2 usage error%s,\n3 biobenchd cannot be reached.\n",
		BB_DEFAULT_SERVER,
		cmd->opts & O_WAIT || !strcmp(cmd->name, "watch") ?
			"the job did not finish" :
			"failed",
		cmd->opts & O_ALLOW_DIFF ? " or a refused\ncomparison of jobs "
					   "(a workload that differs)" :
		cmd == &cmd_submit ? " or invalid job (as for ab)" : "");
}

static int usage_err(const struct ccmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int usage_err(const struct ccmd *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "biobench %s: ", cmd->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see biobench %s --help)\n", cmd->name);
	return BB_EXIT_USAGE;
}

/* 0: parsed; -1: --help printed; BB_EXIT_USAGE: message printed. */
static int parse_opts(const struct ccmd *cmd, int argc, char **argv,
		      struct copts *o)
{
	static const struct {
		const char *name;
		unsigned bit; /* 0: always accepted */
		bool value;
	} table[] = {
		{ "--server", 0, true },	{ "--token-file", 0, true },
		{ "--json", O_JSON, false },	{ "--wait", O_WAIT, false },
		{ "--state", O_STATE, true },	{ "--limit", O_LIMIT, true },
		{ "--interval", O_INTERVAL, true },
		{ "--variant", O_VARIANT, true },
		{ "--allow-different-workload", O_ALLOW_DIFF, false },
		{ "--run-level", O_RUN_LEVEL, false },
	};
	bool opts_done = false;

	memset(o, 0, sizeof(*o));
	o->limit = 50;
	o->interval = WATCH_INTERVAL_S;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL, *eq;
		size_t nlen;
		size_t k;

		if (opts_done || arg[0] != '-' || !strcmp(arg, "-")) {
			if (o->npos == bb_max(cmd->npos, cmd->npos_max))
				return usage_err(cmd, "unexpected argument '%s'",
						 arg);
			o->pos[o->npos++] = arg;
			continue;
		}
		if (!strcmp(arg, "--")) {
			opts_done = true;
			continue;
		}
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			cmd_usage(stdout, cmd);
			return -1;
		}
		eq = strchr(arg, '=');
		nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		for (k = 0; k < bb_array_size(table); k++)
			if (strlen(table[k].name) == nlen &&
			    !strncmp(arg, table[k].name, nlen) &&
			    (!table[k].bit || (cmd->opts & table[k].bit)))
				break;
		if (k == bb_array_size(table)) {
			char name[64];
			struct bb_nearest nr;

			snprintf(name, sizeof(name), "%.*s", (int)nlen, arg);
			bb_nearest_init(&nr, name);
			for (k = 0; k < bb_array_size(table); k++)
				if (!table[k].bit || (cmd->opts & table[k].bit))
					bb_nearest_add(&nr, table[k].name);
			return usage_err(cmd, "unknown option '%s'%s%s%s", name,
					 nr.best ? ": did you mean " : "",
					 nr.best ? nr.best : "",
					 nr.best ? "?" : "");
		}
		if (table[k].value) {
			if (eq)
				val = eq + 1;
			else if (i + 1 < argc)
				val = argv[++i];
			else
				return usage_err(cmd, "%s needs a value",
						 table[k].name);
		} else if (eq) {
			return usage_err(cmd, "%s takes no value",
					 table[k].name);
		}
		switch (table[k].bit) {
		case 0:
			if (!strcmp(table[k].name, "--server"))
				o->server = val;
			else
				o->token_file = val;
			break;
		case O_JSON:
			o->json = true;
			break;
		case O_WAIT:
			o->wait = true;
			break;
		case O_VARIANT: {
			size_t n = strlen(val), k;

			for (k = 0; k < n; k++)
				if (!strchr("abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_-", val[k]))
					break;
			if (!n || n > 31 || k < n)
				return usage_err(cmd,
						 "--variant: '%s' is not a "
						 "variant name ([A-Za-z0-9_-], "
						 "1..31 characters)",
						 val);
			o->variant = val;
			break;
		}
		case O_ALLOW_DIFF:
			o->allow_diff = true;
			break;
		case O_RUN_LEVEL:
			o->run_level = true;
			break;
		case O_STATE: {
			size_t s;

			for (s = 0; s < bb_array_size(job_states); s++)
				if (!strcmp(val, job_states[s]))
					break;
			if (s == bb_array_size(job_states))
				return usage_err(cmd,
						 "--state: '%s' is not one of "
						 "queued, running, done, failed, "
						 "cancelled, interrupted",
						 val);
			o->state = val;
			break;
		}
		case O_LIMIT: {
			char *end;
			unsigned long v;

			errno = 0;
			v = strtoul(val, &end, 10);
			if (errno || *end || !*val || val[0] == '-' || v < 1 ||
			    v > 500)
				return usage_err(cmd,
						 "--limit: '%s' is not an "
						 "integer in 1..500",
						 val);
			o->limit = (unsigned)v;
			break;
		}
		case O_INTERVAL: {
			char *end;
			double v;

			errno = 0;
			v = strtod(val, &end);
			if (errno || *end || !*val || !(v >= 0.05) || v > 60)
				return usage_err(cmd,
						 "--interval: '%s' is not a "
						 "number of seconds in "
						 "0.05..60",
						 val);
			o->interval = v;
			break;
		}
		}
	}
	if (o->npos < cmd->npos)
		return usage_err(cmd, "missing %s", cmd->args);
	return 0;
}

/* A job id: decimal 1..INT64_MAX. */
static int parse_id(const struct ccmd *cmd, const char *s, int64_t *id)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || !*s || s[0] == '+' || s[0] == '-' || v < 1)
		return usage_err(cmd, "'%s' is not a job id (a positive "
				      "integer)",
				 s);
	*id = v;
	return 0;
}

/* ---- requests ----------------------------------------------------------- */

/* Parse the options (and the job id of an ID command) and open the
 * client.  0: go on; otherwise the exit code, with the reason printed
 * (--help: printed, BB_EXIT_OK through *done). */
static int sess_begin(struct csess *s, const struct ccmd *cmd,
		      const struct bb_cli_globals *g, int argc, char **argv,
		      bool *done)
{
	char err[1024];
	int ret;

	memset(s, 0, sizeof(*s));
	s->cmd = cmd;
	*done = false;
	ret = parse_opts(cmd, argc, argv, &s->o);
	if (ret < 0)
		*done = true;
	if (ret)
		return ret < 0 ? BB_EXIT_OK : ret;
	/* compare's BASE may be a side of several jobs: checked there */
	if (!strncmp(cmd->args, "ID", 2) &&
	    !((cmd->opts & O_RUN_LEVEL) && strchr(s->o.pos[0], ','))) {
		ret = parse_id(cmd, s->o.pos[0], &s->id);
		if (ret)
			return ret;
	}
	if (bb_client_init(&s->c, s->o.server ? s->o.server : g->server,
			   s->o.token_file ? s->o.token_file : g->token_file,
			   err, sizeof(err))) {
		fprintf(stderr, "biobench %s: %s\n", cmd->name, err);
		return BB_EXIT_USAGE;
	}
	return 0;
}

static void sess_end(struct csess *s)
{
	bb_client_free(&s->c);
}

/* Print the API's error document: its message and field, and every
 * further error of an invalid job. */
static void print_api_error(const struct ccmd *cmd, long status,
			    struct json_object *raw)
{
	struct json_object *doc = bb_cli_json_escaped(raw);
	const char *msg = bb_cli_jstr(doc, "error.message", NULL);
	const char *field = bb_cli_jstr(doc, "error.field", NULL);
	struct json_object *errs = bb_cli_jget(doc, "errors");
	size_t n = errs && json_object_is_type(errs, json_type_array) ?
			   json_object_array_length(errs) : 0;

	if (!msg) {
		fprintf(stderr, "biobench %s: the server answered HTTP %ld\n",
			cmd->name, status);
		goto out;
	}
	if (n > 1) {
		fprintf(stderr, "biobench %s: %zu errors (HTTP %ld):\n",
			cmd->name, n, status);
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(errs, i);

			fprintf(stderr, "  %s\n",
				bb_cli_jstr(e, "message", "?"));
		}
		if (bb_cli_jget(doc, "errors_total"))
			fprintf(stderr, "  (%.0f errors in all)\n",
				bb_cli_jnum(doc, "errors_total", 0));
		goto out;
	}
	/* a message that starts with its field names it already */
	if (field && *field && strncmp(msg, field, strlen(field)))
		fprintf(stderr, "biobench %s: %s (field: %s)\n", cmd->name, msg,
			field);
	else
		fprintf(stderr, "biobench %s: %s\n", cmd->name, msg);
out:
	json_object_put(doc);
}

/* One call: 0 with *doc on a 2xx answer; else the exit code with the
 * reason printed (*doc NULL).  *status may be NULL. */
static int api(struct bb_client *c, const struct ccmd *cmd,
	       const char *method, const char *path, const char *body,
	       size_t bodylen, struct json_object **doc, long *status)
{
	char err[1024];
	long st = 0;
	int ret;

	ret = bb_client_call(c, method, path, body, bodylen, &st, doc, err,
			     sizeof(err));
	if (status)
		*status = st;
	if (ret == -EHOSTUNREACH) {
		fprintf(stderr, "biobench %s: %s\n", cmd->name, err);
		return BB_EXIT_UNREACHABLE;
	}
	if (ret) {
		fprintf(stderr, "biobench %s: %s\n", cmd->name, err);
		return BB_EXIT_FAIL;
	}
	if (st < 200 || st > 299) {
		/* an invalid job is the same exit code as `ab` and
		 * `calibrate` give it (the usage code): the file is wrong,
		 * not the daemon */
		const char *code = bb_cli_jstr(*doc, "error.code", "");

		ret = st == 400 && !strcmp(code, "invalid_job") ?
			      BB_EXIT_USAGE : BB_EXIT_FAIL;
		print_api_error(cmd, st, *doc);
		json_object_put(*doc);
		*doc = NULL;
		return ret;
	}
	if (!*doc) {
		fprintf(stderr, "biobench %s: %s %s: empty answer (HTTP %ld)\n",
			cmd->name, method, path, st);
		return BB_EXIT_FAIL;
	}
	return 0;
}

/* ---- formatting --------------------------------------------------------- */

/* Seconds since an ISO 8601 UTC time of the API; NAN if unreadable. */
static double age_s(const char *iso)
{
	struct tm tm;
	const char *rest;
	double frac = 0;
	time_t t;

	if (!iso)
		return NAN;
	memset(&tm, 0, sizeof(tm));
	rest = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!rest)
		return NAN;
	if (*rest == '.')
		frac = strtod(rest, NULL);
	t = timegm(&tm);
	/* the clock to the millisecond, like the API's times; a time just
	 * ahead of ours (another host's clock) is "0" ago, not unreadable */
	{
		struct timespec now;
		double a;

		clock_gettime(CLOCK_REALTIME, &now);
		a = difftime(now.tv_sec, t) + (double)now.tv_nsec / 1e9 - frac;
		return a < 0 ? 0 : a;
	}
}

static void fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const u[] = { "B", "K", "M", "G", "T", "P" };
	unsigned i = 0;

	while (v >= 1024 && i + 1 < bb_array_size(u)) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, i ? "%.3g%s" : "%.0f%s", v, u[i]);
}

static bool state_final(const char *s)
{
	return s && (!strcmp(s, "done") || !strcmp(s, "failed") ||
		     !strcmp(s, "cancelled") || !strcmp(s, "interrupted"));
}

/* "run 4/8 (B, warm-up), ETA 3s, last run 3 (A) 10.8M IOPS" of a job
 * document with a progress object ("" without): the IOPS are those of
 * the last finished run, named with that run's variant (the current
 * run's variant is the one in parentheses after its number). */
static void fmt_progress(char *buf, size_t len, struct json_object *job)
{
	struct json_object *p = bb_cli_jget(job, "progress");
	struct json_object *last = bb_cli_jget(p, "last_run");
	const char *var = bb_cli_jstr(p, "variant", NULL);
	double eta = bb_cli_jnum(p, "eta_s", NAN);
	double iops = bb_cli_jnum(last, "iops", 0);
	char e[32] = "", io[32] = "";
	size_t off;

	buf[0] = '\0';
	/* a boot job between two boots: "rebooting into B (boot 3 of 8)" */
	if (!strcmp(bb_cli_jstr(job, "state", ""), "rebooting")) {
		snprintf(buf, len, "%s",
			 bb_cli_jstr(bb_cli_jget(job, "boot"), "text",
				     "rebooting"));
		return;
	}
	if (!p)
		return;
	off = (size_t)snprintf(buf, len, "run %.0f/%.0f",
			       bb_cli_jnum(p, "run", 0),
			       bb_cli_jnum(p, "runs_planned", 0));
	if (bb_cli_jget(p, "boot") && off < len)
		off += (size_t)snprintf(buf + off, len - off, ", %s",
					bb_cli_jstr(p, "boot", ""));
	if (var && off < len)
		off += (size_t)snprintf(buf + off, len - off, " (%s%s)", var,
					json_object_get_boolean(
						bb_cli_jget(p, "warmup")) ?
						", warm-up" :
						"");
	if (isfinite(eta)) {
		bb_cli_fmt_duration(e, sizeof(e), eta);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off,
						", ETA %s", e);
	}
	if (last && iops > 0 && off < len) {
		bb_cli_fmt_si(io, sizeof(io), iops);
		snprintf(buf + off, len - off, ", last run %.0f (%s%s) %s IOPS",
			 bb_cli_jnum(last, "run", 0),
			 bb_cli_jstr(last, "variant", "?"),
			 json_object_get_boolean(bb_cli_jget(last, "warmup")) ?
				 ", warm-up" : "",
			 io);
	}
}

/* ---- the plain commands -------------------------------------------------- */

/* The API path of a plain command. */
static void cmd_path(const struct csess *s, char *path, size_t len)
{
	const struct copts *o = &s->o;

	if (s->cmd->path) {
		snprintf(path, len, s->cmd->path, s->id);
		return;
	}
	/* jobs: the listing's query */
	snprintf(path, len, "/api/v1/jobs?limit=%u%s%s", o->limit,
		 o->state ? "&state=" : "", o->state ? o->state : "");
}

/* A plain command: options, id, client, one call; --json prints the
 * answer as is (bb_cli_print_json), otherwise cmd->print gets it with
 * every string escaped.  The exit code. */
static int client_cmd(const struct ccmd *cmd, const struct bb_cli_globals *g,
		      int argc, char **argv)
{
	struct json_object *doc = NULL, *shown = NULL;
	struct csess s;
	char path[256];
	bool done;
	int ret;

	ret = sess_begin(&s, cmd, g, argc, argv, &done);
	if (ret || done)
		goto out;
	cmd_path(&s, path, sizeof(path));
	ret = api(&s.c, cmd, cmd->method, path, NULL, 0, &doc, NULL);
	if (ret)
		goto out;
	if (s.o.json) {
		bb_cli_print_json(stdout, doc);
		goto out;
	}
	shown = bb_cli_json_escaped(doc);
	ret = cmd->print(&s, shown);
out:
	json_object_put(shown);
	json_object_put(doc);
	sess_end(&s);
	return ret;
}

/* ---- submit / watch ----------------------------------------------------- */

/* A job that ended without finishing: failed, cancelled, interrupted. */
static bool state_unfinished(const char *s)
{
	return state_final(s) && strcmp(s, "done");
}

/* The job's own counts and state in (the shown copy of) its comparison:
 * the stored comparison is that of its last measured round, and `jobs`,
 * `show` and `compare` must all say the job's "N of M runs done". */
static void cmp_sync(struct json_object *cmp, struct json_object *job)
{
	static const char *const keys[] = { "runs_done", "runs_planned",
					    "state" };
	struct json_object *v;

	if (!cmp || !json_object_is_type(cmp, json_type_object))
		return;
	for (size_t i = 0; i < bb_array_size(keys); i++)
		if (json_object_object_get_ex(job, keys[i], &v) && v)
			json_object_object_add(cmp, i < 2 ? keys[i] :
							    "job_state",
					       json_object_get(v));
}

/* The comparison of a job with the API's warnings, and its end state.
 * job is the final job document. */
static int print_end(struct bb_client *c, const struct ccmd *cmd, int64_t id,
		     struct json_object *raw)
{
	struct json_object *job = bb_cli_json_escaped(raw);
	const char *state = bb_cli_jstr(job, "state", "?");
	const char *error = bb_cli_jstr(job, "error", NULL);
	struct json_object *cmp = NULL, *shown = NULL;
	char path[64];
	bool group;
	int ret = 0;

	/* a group has no comparison of its own: its hosts side by side */
	group = bb_cli_jget(job, "group") &&
		json_object_get_boolean(bb_cli_jget(job, "group"));
	if (bb_cli_jget(job, "compare") || group) {
		snprintf(path, sizeof(path), "/api/v1/jobs/%" PRId64 "/compare",
			 id);
		ret = api(c, cmd, "GET", path, NULL, 0, &cmp, NULL);
		if (ret == BB_EXIT_UNREACHABLE)
			goto out;
		shown = bb_cli_json_escaped(cmp);
	}
	if (group && shown) {
		bb_cli_compare_group_print(stdout, shown);
	} else if (bb_cli_jget(job, "compare")) {
		cmp_sync(shown ? bb_cli_jget(shown, "compare") :
				 bb_cli_jget(job, "compare"),
			 job);
		bb_cli_compare_print(stdout,
				     shown ? bb_cli_jget(shown, "compare") :
					     bb_cli_jget(job, "compare"),
				     bb_cli_jget(job, "spec"),
				     bb_cli_jget(shown, "warnings"),
				     bb_cli_jget(job, "noise_floor"));
	}
	printf("job %" PRId64 " %s%s%s\n", id, state, error ? ": " : "",
	       error ? error : "");
	fflush(stdout);
	ret = !strcmp(state, "done") ? BB_EXIT_OK : BB_EXIT_FAIL;
out:
	json_object_put(shown);
	json_object_put(cmp);
	json_object_put(job);
	return ret;
}

static void sleep_s(double s)
{
	struct timespec ts = {
		.tv_sec = (time_t)s,
		.tv_nsec = (long)((s - (double)(time_t)s) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* How long watch waits for the daemon of a host that reboots for a boot
 * job (biobenchd's boot_timeout is 600 s by default). */
#define WATCH_REBOOT_WAIT_S 3600.0

/* Follow job id until it ends (through the reboots of a boot job); the
 * exit code. */
static int watch_job(struct bb_client *c, const struct ccmd *cmd, int64_t id,
		     bool json, double interval)
{
	bool tty = !json && isatty(STDOUT_FILENO), drawn = false;
	bool rebooting = false;
	struct json_object *job = NULL, *shown = NULL;
	char path[64], key[256] = "", last[256] = "";
	const char *state;
	double away = 0;
	int ret;

	snprintf(path, sizeof(path), "/api/v1/jobs/%" PRId64, id);
	for (;;) {
		struct json_object *p;
		char prog[192];

		json_object_put(job);
		job = NULL;
		/* a boot job's host reboots: the daemon is away a while */
		if (rebooting && away < WATCH_REBOOT_WAIT_S) {
			char e[512];
			long st = 0;

			if (bb_client_call(c, "GET", path, NULL, 0, &st, &job,
					   e, sizeof(e)) == -EHOSTUNREACH) {
				if (!away && !json)
					printf("%sjob %" PRId64 ": the host "
					       "reboots; waiting for biobenchd\n",
					       drawn ? "\n" : "", id);
				drawn = false;
				sleep_s(interval);
				away += interval;
				continue;
			}
			json_object_put(job);
			job = NULL;
			away = 0;
		}
		ret = api(c, cmd, "GET", path, NULL, 0, &job, NULL);
		if (ret) {
			if (drawn)
				fputc('\n', stdout);
			goto out;
		}
		json_object_put(shown);
		shown = bb_cli_json_escaped(job);
		state = bb_cli_jstr(shown, "state", "?");
		p = bb_cli_jget(shown, "progress");
		/* between two boots, or in a boot (its end reboots the host) */
		rebooting = !strcmp(state, "rebooting") ||
			    (!strcmp(state, "running") && bb_cli_jget(p, "boot"));
		snprintf(key, sizeof(key), "%s/%.0f/%.0f/%.0f/%s", state,
			 bb_cli_jnum(shown, "runs_done", 0),
			 bb_cli_jnum(p, "run", 0),
			 bb_cli_jnum(p, "runs_planned", 0),
			 bb_cli_jstr(p, "variant", ""));
		fmt_progress(prog, sizeof(prog), shown);
		if (json) {
			if (strcmp(key, last)) {
				bb_cli_fputs_json(
					stdout,
					json_object_to_json_string_ext(
						job, JSON_C_TO_STRING_PLAIN |
						JSON_C_TO_STRING_NOSLASHESCAPE));
				fputc('\n', stdout);
			}
		} else if (tty && !state_final(state)) {
			double planned = bb_cli_jnum(shown, "runs_planned", 0);
			double done = bb_cli_jnum(shown, "runs_done", 0);
			double frac = planned > 0 ? done / planned : 0;
			char bar[BAR_WIDTH + 1];
			unsigned fill = (unsigned)(frac * BAR_WIDTH + 0.5);

			if (fill > BAR_WIDTH)
				fill = BAR_WIDTH;
			memset(bar, '#', fill);
			memset(bar + fill, '.', BAR_WIDTH - fill);
			bar[BAR_WIDTH] = '\0';
			printf("\r\033[Kjob %" PRId64 " %s [%s] %3.0f%%  %s", id,
			       state, bar, frac * 100, prog);
			drawn = true;
		} else if (!tty && strcmp(key, last) && !state_final(state)) {
			printf("job %" PRId64 ": %s\n", id,
			       prog[0] ? prog : state);
		}
		fflush(stdout);
		snprintf(last, sizeof(last), "%s", key);
		if (state_final(state))
			break;
		sleep_s(interval);
	}
	if (drawn)
		printf("\r\033[K");
	if (json) {
		ret = !strcmp(state, "done") ? BB_EXIT_OK : BB_EXIT_FAIL;
		goto out;
	}
	ret = print_end(c, cmd, id, job);
out:
	json_object_put(shown);
	json_object_put(job);
	return ret;
}

int bb_cmd_submit(const struct bb_cli_globals *g, int argc, char **argv)
{
	struct json_object *doc = NULL;
	struct csess s;
	char *body = NULL, err[512];
	size_t len = 0;
	int64_t id = 0;
	bool done;
	int ret;

	ret = sess_begin(&s, &cmd_submit, g, argc, argv, &done);
	if (ret || done)
		goto out;
	if (bb_cli_read_file(s.o.pos[0], JOB_FILE_MAX, &body, &len, err,
			     sizeof(err))) {
		fprintf(stderr, "biobench submit: %s\n", err);
		ret = BB_EXIT_USAGE;
		goto out;
	}
	ret = api(&s.c, s.cmd, "POST", "/api/v1/jobs", body, len, &doc, NULL);
	if (ret)
		goto out;
	id = (int64_t)bb_cli_jnum(doc, "id", 0);
	if (id < 1) {
		fprintf(stderr, "biobench submit: the answer has no job id\n");
		ret = BB_EXIT_FAIL;
		goto out;
	}
	if (s.o.json) {
		bb_cli_fputs_json(stdout, json_object_to_json_string_ext(
				     doc, s.o.wait ? JSON_C_TO_STRING_PLAIN :
						     JSON_C_TO_STRING_PRETTY));
		fputc('\n', stdout);
	} else if (s.o.wait) {
		printf("job %" PRId64 " submitted\n", id);
	} else {
		printf("%" PRId64 "\n", id);
	}
	fflush(stdout);
	if (s.o.wait)
		ret = watch_job(&s.c, s.cmd, id, s.o.json, s.o.interval);
out:
	json_object_put(doc);
	sess_end(&s);
	free(body);
	return ret;
}

int bb_cmd_watch(const struct bb_cli_globals *g, int argc, char **argv)
{
	struct csess s;
	bool done;
	int ret;

	ret = sess_begin(&s, &cmd_watch, g, argc, argv, &done);
	if (!ret && !done)
		ret = watch_job(&s.c, s.cmd, s.id, s.o.json, s.o.interval);
	sess_end(&s);
	return ret;
}

/* ---- jobs --------------------------------------------------------------- */

static int print_jobs(struct csess *s, struct json_object *doc)
{
	const struct copts *o = &s->o;
	struct json_object *jobs = bb_cli_jget(doc, "jobs");
	size_t n = jobs && json_object_is_type(jobs, json_type_array) ?
			   json_object_array_length(jobs) : 0;
	char name[4 * JOBS_NAME_COLS + 8];

	if (!n) {
		printf("no jobs%s%s\n", o->state ? " in state " : "",
		       o->state ? o->state : "");
		return BB_EXIT_OK;
	}
	bb_cli_fit(name, sizeof(name), "NAME", JOBS_NAME_COLS);
	printf("%6s  %s  %-11s  %-12s  %8s  %-12s  %s\n", "ID", name, "STATE",
	       "PROGRESS", "CHANGE", "VERDICT", "AGE");
	for (size_t i = 0; i < n; i++) {
		struct json_object *j = json_object_array_get_idx(jobs, i);
		const char *state = bb_cli_jstr(j, "state", "?");
		const char *verdict = bb_cli_jstr(j, "verdict", NULL);
		double planned = bb_cli_jnum(j, "runs_planned", 0);
		double done = bb_cli_jnum(j, "runs_done", 0);
		char prog[32], age[32], chg[32], label[512];
		double a = age_s(bb_cli_jstr(j, "created", NULL));
		struct json_object *cmps = bb_cli_jget(j, "compare.comparisons");
		struct json_object *c0 = cmps && json_object_is_type(
				cmps, json_type_array) &&
				json_object_array_length(cmps) ?
				json_object_array_get_idx(cmps, 0) : NULL;
		double change = bb_cli_jnum(c0, "change", NAN);
		size_t nc = c0 ? json_object_array_length(cmps) : 0;

		/* the change of the first variant against the baseline (the
		 * same estimate compare shows), "+" when there are more */
		if (isfinite(change))
			snprintf(chg, sizeof(chg), "%+.2f%%%s", change * 100,
				 nc > 1 ? "+" : "");
		else
			snprintf(chg, sizeof(chg), "-");

		if (planned > 0)
			snprintf(prog, sizeof(prog), "%.0f/%.0f %3.0f%%", done,
				 planned, 100 * done / planned);
		else
			snprintf(prog, sizeof(prog), "-");
		bb_cli_fmt_duration(age, sizeof(age), a < 0 ? 0 : a);
		/* a group's parent and its hosts' jobs told apart */
		if (bb_cli_jget(j, "group") &&
		    json_object_get_boolean(bb_cli_jget(j, "group")))
			snprintf(label, sizeof(label), "%s [group]",
				 bb_cli_jstr(j, "name", ""));
		else if (bb_cli_jget(j, "group_id"))
			snprintf(label, sizeof(label), "%s @%s (group %.0f)",
				 bb_cli_jstr(j, "name", ""),
				 bb_cli_jstr(j, "for_host", "?"),
				 bb_cli_jnum(j, "group_id", 0));
		else
			snprintf(label, sizeof(label), "%s",
				 bb_cli_jstr(j, "name", ""));
		bb_cli_fit(name, sizeof(name), label, JOBS_NAME_COLS);
		printf("%6.0f  %s  %-11s  %-12s  %8s  %-12s  %s\n",
		       bb_cli_jnum(j, "id", 0), name, state, prog, chg,
		       verdict ? (!strcmp(verdict, "no_change") ? "no change" :
								 verdict) :
				 "-",
		       age);
	}
	if (bb_cli_jget(doc, "next_cursor"))
		printf("(more jobs: raise --limit, at most 500)\n");
	return BB_EXIT_OK;
}

int bb_cmd_jobs(const struct bb_cli_globals *g, int argc, char **argv)
{
	return client_cmd(&cmd_jobs, g, argc, argv);
}

/* ---- show --------------------------------------------------------------- */

/* "k=v k=v" of an object's members. */
static void fmt_members(char *buf, size_t len, struct json_object *o)
{
	size_t off = 0;

	buf[0] = '\0';
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, k, v)
	{
		const char *s = !v ? "null" :
				json_object_is_type(v, json_type_string) ?
				     json_object_get_string(v) :
				     json_object_to_json_string_ext(
					     v, JSON_C_TO_STRING_PLAIN |
						     JSON_C_TO_STRING_NOSLASHESCAPE);

		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
						off ? " " : "", k, s);
	}
}

/* A device field of the job document: flat (this version), else from
 * the nested disk object of older daemons. */
static struct json_object *dev_get(struct json_object *dev, const char *key)
{
	struct json_object *v = bb_cli_jget(dev, key), *sub;

	if (v || bb_cli_jget(dev, "disk"))
		return v;
	sub = bb_cli_jget(dev, "device");
	if (!sub || !json_object_is_type(sub, json_type_object))
		return NULL;
	return bb_cli_jget(sub, !strcmp(key, "disk") ? "name" :
				!strcmp(key, "disk_path") ? "path" : key);
}

static const char *dev_str(struct json_object *dev, const char *key,
			   const char *dflt)
{
	struct json_object *v = dev_get(dev, key);

	return v && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : dflt;
}

/* The device lines of `show`: what the target is, the disk under it,
 * its identity and its queue limits, in words. */
static void show_device(struct json_object *dev)
{
	static const struct {
		const char *key, *label;
		bool bytes;
	} lim[] = {
		{ "logical_block_size", "logical block", true },
		{ "physical_block_size", "physical block", true },
		{ "max_sectors_kb", "max_sectors_kb", false },
		{ "max_hw_sectors_kb", "max_hw_sectors_kb", false },
		{ "max_segments", "max_segments", false },
		{ "max_segment_size", "max_segment_size", false },
		{ "virt_boundary_mask", "virt_boundary_mask", false },
		{ "chunk_sectors", "chunk_sectors", false },
		{ "nr_requests", "nr_requests", false },
	};
	const char *kind = bb_cli_jstr(dev, "kind", "?");
	const char *disk = dev_str(dev, "disk", NULL);
	struct json_object *limits = dev_get(dev, "limits");
	struct json_object *nvme = dev_get(dev, "nvme");
	struct json_object *v;
	char buf[1024], size[32];
	size_t off = 0;

	if (!strcmp(kind, "nop")) {
		printf("  %-10s none (nop: io_uring NOPs through the bio model)\n",
		       "device");
		return;
	}
	if (!disk) {
		printf("  %-10s %s %s, on no block device (e.g. tmpfs)\n",
		       "device", kind, bb_cli_jstr(dev, "path", "?"));
		return;
	}
	fmt_bytes(size, sizeof(size), bb_cli_jnum(dev_get(dev, "size_bytes"), "", 0));
	v = dev_get(dev, "rotational");
	off = (size_t)snprintf(buf, sizeof(buf), "%s, %s",
			       size, !v ? "rotational unknown" :
			       json_object_get_boolean(v) ? "rotational" :
							    "non-rotational");
	if (off < sizeof(buf))
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
					", scheduler %s, %s",
					dev_str(dev, "scheduler", "unknown"),
					json_object_get_boolean(dev_get(dev, "io_poll")) ?
						"can poll" : "no poll queues");
	if (!strcmp(kind, "file"))
		printf("  %-10s file %s, on disk %s (%s: %s)\n", "device",
		       bb_cli_jstr(dev, "path", "?"), disk,
		       dev_str(dev, "disk_path", "?"), buf);
	else
		printf("  %-10s %s %s (disk %s: %s)\n", "device", kind,
		       bb_cli_jstr(dev, "path", "?"), disk, buf);
	printf("  %-10s model %s, serial %s, firmware %s\n", "",
	       dev_str(dev, "model", "-"), dev_str(dev, "serial", "-"),
	       dev_str(dev, "firmware", "-"));
	if (dev_str(dev, "backing_file", NULL))
		printf("  %-10s loop device backed by %s\n", "",
		       dev_str(dev, "backing_file", ""));
	if (nvme && json_object_is_type(nvme, json_type_object))
		printf("  %-10s NVMe %s nsid %.0f, LBA %.0f B, MDTS %s, %.0f poll "
		       "queue(s), passthrough %s\n", "",
		       bb_cli_jstr(nvme, "controller", "?"),
		       bb_cli_jnum(nvme, "nsid", 0),
		       bb_cli_jnum(nvme, "lba_size", 0),
		       bb_cli_jget(nvme, "mdts") ?
			       json_object_to_json_string(bb_cli_jget(nvme, "mdts")) :
			       "-",
		       bb_cli_jnum(nvme, "poll_queues", 0),
		       bb_cli_jstr(nvme, "char_path", "-"));
	if (!limits || !json_object_is_type(limits, json_type_object))
		return;
	off = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < bb_array_size(lim) && off < sizeof(buf); i++) {
		struct json_object *l = bb_cli_jget(limits, lim[i].key);

		if (!l)
			continue;
		off += (size_t)snprintf(buf + off, sizeof(buf) - off,
					"%s%s %.0f%s", off ? ", " : "",
					lim[i].label, json_object_get_double(l),
					lim[i].bytes ? " B" : "");
	}
	if (buf[0])
		printf("  %-10s %s\n", "limits", buf);
}

/* A group's jobs, one line per host. */
static void show_children(struct json_object *kids)
{
	size_t n = kids && json_object_is_type(kids, json_type_array) ?
			   json_object_array_length(kids) : 0;

	for (size_t i = 0; i < n; i++) {
		struct json_object *k = json_object_array_get_idx(kids, i);
		const char *v = bb_cli_jstr(k, "verdict", NULL);

		printf("  %-10s %s: job %.0f %s, %.0f of %.0f runs%s%s\n",
		       i ? "" : "hosts", bb_cli_jstr(k, "host", "?"),
		       bb_cli_jnum(k, "id", 0), bb_cli_jstr(k, "state", "?"),
		       bb_cli_jnum(k, "runs_done", 0),
		       bb_cli_jnum(k, "runs_planned", 0), v ? ", " : "",
		       v ? v : "");
	}
}

static void show_job(struct json_object *job)
{
	struct json_object *spec = bb_cli_jget(job, "spec");
	struct json_object *vars = bb_cli_jget(spec, "variants");
	struct json_object *host = bb_cli_jget(job, "host");
	struct json_object *dev = bb_cli_jget(job, "device");
	struct json_object *knobs = bb_cli_jget(job, "knobs");
	const char *verdict = bb_cli_jstr(job, "verdict", NULL);
	const char *times[] = { "created", "started", "finished" };
	char buf[1024], prog[192];
	bool first = true;

	printf("job %.0f: %s\n", bb_cli_jnum(job, "id", 0),
	       bb_cli_jstr(job, "name", ""));
	printf("  %-10s %s%s%s\n", "state", bb_cli_jstr(job, "state", "?"),
	       verdict ? ", verdict " : "",
	       verdict ? (!strcmp(verdict, "no_change") ? "no change" :
							  verdict) :
			 "");
	if (bb_cli_jget(job, "error"))
		printf("  %-10s %s\n", "error", bb_cli_jstr(job, "error", ""));
	printf("  %-10s %s\n", "target", bb_cli_jstr(job, "target", "?"));
	for (size_t i = 0; i < bb_array_size(times); i++) {
		const char *t = bb_cli_jstr(job, times[i], NULL);
		char age[32];

		if (!t)
			continue;
		bb_cli_fmt_duration(age, sizeof(age), age_s(t));
		printf("  %-10s %s (%s ago)\n", times[i], t, age);
	}
	printf("  %-10s %.0f of %.0f done\n", "runs",
	       bb_cli_jnum(job, "runs_done", 0),
	       bb_cli_jnum(job, "runs_planned", 0));
	fmt_progress(prog, sizeof(prog), job);
	if (prog[0])
		printf("  %-10s %s\n", "progress", prog);
	if (spec) {
		printf("  %-10s %.0f round(s) + %.0f warm-up (max %.0f), order "
		       "%s, metric %s, min effect %g%%, confidence %g%%\n",
		       "plan", bb_cli_jnum(spec, "repeat", 0),
		       bb_cli_jnum(spec, "warmup", 0),
		       bb_cli_jnum(spec, "max_repeat", 0),
		       bb_cli_jstr(spec, "order", "?"),
		       bb_cli_jstr(spec, "metric", "?"),
		       bb_cli_jnum(spec, "min_effect", 0),
		       bb_cli_jnum(spec, "confidence", 0) * 100);
		fmt_members(buf, sizeof(buf), bb_cli_jget(spec, "workload"));
		printf("  %-10s %s\n", "workload", buf[0] ? buf : "(defaults)");
	}
	if (vars && json_object_is_type(vars, json_type_object)) {
		json_object_object_foreach(vars, name, v)
		{
			(void)v;
			bb_cli_variant_label(buf, sizeof(buf), spec, name);
			printf("  %-10s %s: %s\n", first ? "variants" : "",
			       name, buf);
			first = false;
		}
	}
	if (bb_cli_jget(job, "group_id"))
		printf("  %-10s of group job %.0f\n", "group",
		       bb_cli_jnum(job, "group_id", 0));
	show_children(bb_cli_jget(job, "children"));
	if (host) {
		char mem[32];

		fmt_bytes(mem, sizeof(mem), bb_cli_jnum(host, "memory_bytes", 0));
		printf("  %-10s %s, Linux %s %s, %.0f CPUs (%s), %s memory, "
		       "governor %s\n",
		       "host", bb_cli_jstr(host, "hostname", "?"),
		       bb_cli_jstr(host, "kernel", "?"),
		       bb_cli_jstr(host, "machine", ""),
		       bb_cli_jnum(host, "cpus", 0),
		       bb_cli_jstr(host, "cpu_model", "?"), mem,
		       bb_cli_jstr(host, "governor", "unknown"));
	}
	if (dev)
		show_device(dev);
	if (knobs && json_object_is_type(knobs, json_type_array)) {
		size_t n = json_object_array_length(knobs);

		for (size_t i = 0; i < n; i++) {
			fmt_members(buf, sizeof(buf),
				    json_object_array_get_idx(knobs, i));
			printf("  %-10s %s\n", i ? "" : "knobs", buf);
		}
	}
}

static int print_show(struct csess *s, struct json_object *doc)
{
	(void)s;
	show_job(doc);
	cmp_sync(bb_cli_jget(doc, "compare"), doc);
	if (bb_cli_jget(doc, "compare"))
		bb_cli_compare_print(stdout, bb_cli_jget(doc, "compare"),
				     bb_cli_jget(doc, "spec"), NULL,
				     bb_cli_jget(doc, "noise_floor"));
	return BB_EXIT_OK;
}

int bb_cmd_show(const struct bb_cli_globals *g, int argc, char **argv)
{
	return client_cmd(&cmd_show, g, argc, argv);
}

/* ---- compare ------------------------------------------------------------ */

static int print_compare(struct csess *s, struct json_object *doc)
{
	struct json_object *raw = NULL, *job;
	const char *state;
	char path[64];
	int ret;

	/* the job's spec names each variant's overrides */
	snprintf(path, sizeof(path), "/api/v1/jobs/%" PRId64, s->id);
	ret = api(&s->c, s->cmd, "GET", path, NULL, 0, &raw, NULL);
	if (ret)
		return ret;
	job = bb_cli_json_escaped(raw);
	state = bb_cli_jstr(job, "state", "?");
	printf("job %" PRId64 ": %s (%s on %s)\n", s->id,
	       bb_cli_jstr(job, "name", ""), state,
	       bb_cli_jstr(job, "target", "?"));
	/* a group: its hosts side by side */
	if (bb_cli_jget(doc, "group") &&
	    json_object_get_boolean(bb_cli_jget(doc, "group"))) {
		bb_cli_compare_group_print(stdout, doc);
		ret = state_unfinished(state) ? BB_EXIT_FAIL : BB_EXIT_OK;
		goto out;
	}
	/* a job that ended without finishing says so first, and the
	 * command fails: its comparison is only of the runs before */
	if (state_unfinished(state))
		printf("the job %s after %.0f of %.0f runs%s%s\n",
		       !strcmp(state, "failed") ? "failed" :
		       !strcmp(state, "cancelled") ? "was cancelled" :
						     "was interrupted",
		       bb_cli_jnum(job, "runs_done", 0),
		       bb_cli_jnum(job, "runs_planned", 0),
		       bb_cli_jget(job, "error") ? ": " : "",
		       bb_cli_jstr(job, "error", ""));
	cmp_sync(bb_cli_jget(doc, "compare"), job);
	bb_cli_compare_print(stdout, bb_cli_jget(doc, "compare"),
			     bb_cli_jget(job, "spec"),
			     bb_cli_jget(doc, "warnings"),
			     bb_cli_jget(job, "noise_floor"));
	ret = state_unfinished(state) ? BB_EXIT_FAIL : BB_EXIT_OK;
out:
	json_object_put(job);
	json_object_put(raw);
	return ret;
}

/* BASE OTHER...: GET /api/v1/compare; a refusal (400: a workload that
 * differs, a variant neither job has) is a usage error (exit 2). */
static int compare_jobs(struct csess *s)
{
	struct json_object *doc = NULL, *shown = NULL;
	char path[1536];
	size_t off;
	long status = 0;
	int64_t id = 0;
	int ret;

	off = (size_t)snprintf(path, sizeof(path), "/api/v1/compare?");
	for (unsigned i = 0; i < s->o.npos; i++) {
		const char *p = s->o.pos[i];

		off += (size_t)snprintf(path + off, sizeof(path) - off, "%s%s=",
					i ? "&" : "", i ? "with" : "base");
		/* a side: ID or ID,ID,... */
		for (;;) {
			char one[32];
			size_t len = strcspn(p, ",");

			snprintf(one, sizeof(one), "%.*s", (int)bb_min(len, 31), p);
			if (len > 31 || parse_id(s->cmd, one, &id))
				return len > 31 ? parse_id(s->cmd, p, &id) :
						  BB_EXIT_USAGE;
			off += (size_t)snprintf(path + off, sizeof(path) - off,
						"%" PRId64 "%s", id,
						p[len] ? "," : "");
			if (!p[len])
				break;
			p += len + 1;
		}
	}
	if (s->o.run_level)
		off += (size_t)snprintf(path + off, sizeof(path) - off,
					"&level=run");
	if (s->o.variant)
		off += (size_t)snprintf(path + off, sizeof(path) - off,
					"&variant=%s", s->o.variant);
	if (s->o.allow_diff)
		snprintf(path + off, sizeof(path) - off,
			 "&allow_different_workload=1");
	ret = api(&s->c, s->cmd, "GET", path, NULL, 0, &doc, &status);
	if (ret)
		return ret == BB_EXIT_FAIL && status == 400 ? BB_EXIT_USAGE :
							       ret;
	if (s->o.json) {
		bb_cli_print_json(stdout, doc);
	} else {
		shown = bb_cli_json_escaped(doc);
		bb_cli_compare_jobs_print(stdout, shown);
	}
	json_object_put(shown);
	json_object_put(doc);
	return BB_EXIT_OK;
}

int bb_cmd_compare(const struct bb_cli_globals *g, int argc, char **argv)
{
	struct csess s;
	bool done;
	int ret;

	ret = sess_begin(&s, &cmd_compare, g, argc, argv, &done);
	if (ret || done)
		goto out;
	if (s.o.npos == 1) {
		sess_end(&s);
		if (s.o.variant || s.o.allow_diff || s.o.run_level ||
		    strchr(s.o.pos[0], ','))
			return usage_err(&cmd_compare,
					 "%s needs two or more sides (BASE "
					 "OTHER...)",
					 s.o.variant ? "--variant" :
					 s.o.allow_diff ? "--allow-different-workload" :
					 s.o.run_level ? "--run-level" :
							 "a side of several jobs");
		/* one job: its own comparison */
		return client_cmd(&cmd_compare, g, argc, argv);
	}
	ret = compare_jobs(&s);
out:
	sess_end(&s);
	return ret;
}

/* ---- cancel ------------------------------------------------------------- */

static int print_cancel(struct csess *s, struct json_object *doc)
{
	const char *state = bb_cli_jstr(doc, "state", "?");
	struct json_object *kids = bb_cli_jget(doc, "children");
	size_t n = kids && json_object_is_type(kids, json_type_array) ?
			   json_object_array_length(kids) : 0;

	if (!strcmp(state, "running") && !n)
		printf("job %" PRId64 ": cancelling (a running job stops "
		       "within a second)\n",
		       s->id);
	else if (!strcmp(state, "cancelling"))
		printf("job %" PRId64 ": cancelling: it runs on %s, which "
		       "stops it at its next heartbeat\n", s->id,
		       bb_cli_jstr(doc, "host", "another daemon"));
	else
		printf("job %" PRId64 ": %s\n", s->id, state);
	/* a group: each host's job */
	for (size_t i = 0; i < n; i++) {
		struct json_object *k = json_object_array_get_idx(kids, i);
		bool done = bb_cli_jget(k, "cancelled") &&
			    json_object_get_boolean(bb_cli_jget(k, "cancelled"));

		printf("  %s: job %.0f %s%s%s\n", bb_cli_jstr(k, "host", "?"),
		       bb_cli_jnum(k, "id", 0),
		       done ? "cancelled" : bb_cli_jstr(k, "state", "?"),
		       bb_cli_jget(k, "why") ? ": " : "",
		       bb_cli_jstr(k, "why", ""));
	}
	return BB_EXIT_OK;
}

int bb_cmd_cancel(const struct bb_cli_globals *g, int argc, char **argv)
{
	return client_cmd(&cmd_cancel, g, argc, argv);
}

/* ---- devices / host ----------------------------------------------------- */

static int print_devices(struct csess *s, struct json_object *doc)
{
	struct json_object *devs = bb_cli_jget(doc, "devices");
	size_t n = devs && json_object_is_type(devs, json_type_array) ?
			   json_object_array_length(devs) : 0;

	(void)s;
	if (!n) {
		printf("no block devices\n");
		return BB_EXIT_OK;
	}
	printf("%-12s %-20s %7s  %-24s %-12s %-5s %s\n", "NAME", "PATH",
	       "SIZE", "MODEL", "SCHEDULER", "POLL", "ALLOWED");
	for (size_t i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		struct json_object *poll = bb_cli_jget(d, "io_poll");
		bool allowed = json_object_get_boolean(bb_cli_jget(d, "allowed"));
		bool wr = json_object_get_boolean(bb_cli_jget(d, "allow_write"));
		char size[32], model[4 * 24 + 8];

		fmt_bytes(size, sizeof(size), bb_cli_jnum(d, "size_bytes", 0));
		bb_cli_fit(model, sizeof(model), bb_cli_jstr(d, "model", "-"),
			   24);
		printf("%-12s %-20s %7s  %s %-12s %-5s %s\n",
		       bb_cli_jstr(d, "name", "?"), bb_cli_jstr(d, "path", "?"),
		       size, model, bb_cli_jstr(d, "scheduler", "-"),
		       !poll ? "-" :
		       json_object_is_type(poll, json_type_boolean) ?
			       (json_object_get_boolean(poll) ? "yes" : "no") :
			       json_object_get_string(poll),
		       wr ? "read, write" : allowed ? "read" : "no");
	}
	return BB_EXIT_OK;
}

int bb_cmd_devices(const struct bb_cli_globals *g, int argc, char **argv)
{
	return client_cmd(&cmd_devices, g, argc, argv);
}

static int print_host(struct csess *s, struct json_object *doc)
{
	char mem[32], up[32];

	(void)s;
	fmt_bytes(mem, sizeof(mem), bb_cli_jnum(doc, "memory_bytes", 0));
	bb_cli_fmt_duration(up, sizeof(up),
			    bb_cli_jnum(doc, "daemon.uptime_s", 0));
	printf("%-10s %s\n", "hostname", bb_cli_jstr(doc, "hostname", "?"));
	printf("%-10s Linux %s %s (%s)\n", "kernel",
	       bb_cli_jstr(doc, "kernel", "?"),
	       bb_cli_jstr(doc, "machine", ""),
	       bb_cli_jstr(doc, "kernel_version", "?"));
	printf("%-10s %.0f x %s%s%s\n", "cpus", bb_cli_jnum(doc, "cpus", 0),
	       bb_cli_jstr(doc, "cpu_model", "?"),
	       bb_cli_jget(doc, "microcode") ? ", microcode " : "",
	       bb_cli_jstr(doc, "microcode", ""));
	printf("%-10s %s\n", "boot id", bb_cli_jstr(doc, "boot_id", "unknown"));
	printf("%-10s %s\n", "memory", mem);
	printf("%-10s %s\n", "governor",
	       bb_cli_jstr(doc, "governor", "unknown"));
	printf("%-10s %s\n", "cmdline", bb_cli_jstr(doc, "cmdline", ""));
	printf("%-10s biobenchd %s, pid %.0f, up %s\n", "daemon",
	       bb_cli_jstr(doc, "daemon.version", "?"),
	       bb_cli_jnum(doc, "daemon.pid", 0), up);
	return BB_EXIT_OK;
}

int bb_cmd_host(const struct bb_cli_globals *g, int argc, char **argv)
{
	return client_cmd(&cmd_host, g, argc, argv);
}

static int print_hosts(struct csess *s, struct json_object *doc)
{
	struct json_object *hosts = bb_cli_jget(doc, "hosts");
	size_t n = hosts && json_object_is_type(hosts, json_type_array) ?
			   json_object_array_length(hosts) : 0;

	(void)s;
	if (!n) {
		printf("no hosts registered\n");
		return BB_EXIT_OK;
	}
	printf("%-24s %-10s %-28s %-10s %s\n", "HOST", "SEEN", "KERNEL",
	       "VERSION", "RUNNING");
	for (size_t i = 0; i < n; i++) {
		struct json_object *h = json_object_array_get_idx(hosts, i);
		char name[4 * 24 + 8], kernel[4 * 28 + 8], seen[32], job[64];
		struct json_object *list;

		bb_cli_fit(name, sizeof(name), bb_cli_jstr(h, "name", "?"), 24);
		bb_cli_fit(kernel, sizeof(kernel),
			   bb_cli_jstr(h, "kernel", "-"), 28);
		bb_cli_fmt_duration(seen, sizeof(seen),
				    bb_cli_jnum(h, "seen_s_ago", 0));
		list = bb_cli_jget(h, "running_jobs");
		if (list && json_object_is_type(list, json_type_array) &&
		    json_object_array_length(list) > 1) {
			/* max_parallel_jobs: "jobs 3,4" */
			size_t off = (size_t)snprintf(job, sizeof(job), "jobs ");

			for (size_t k = 0; k < json_object_array_length(list) &&
					   off < sizeof(job); k++)
				off += (size_t)snprintf(job + off,
					sizeof(job) - off, "%s%lld",
					k ? "," : "",
					(long long)json_object_get_int64(
						json_object_array_get_idx(list,
									  k)));
		} else if (bb_cli_jget(h, "running_job")) {
			snprintf(job, sizeof(job), "job %.0f",
				 bb_cli_jnum(h, "running_job", 0));
		} else {
			snprintf(job, sizeof(job), "idle");
		}
		printf("%s %-10s %s %-10s %s\n", name, seen, kernel,
		       bb_cli_jstr(h, "version", "?"), job);
	}
	return BB_EXIT_OK;
}

int bb_cmd_hosts(const struct bb_cli_globals *g, int argc, char **argv)
{
	return client_cmd(&cmd_hosts, g, argc, argv);
}
