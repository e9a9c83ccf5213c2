// SPDX-License-Identifier: GPL-2.0-only
/* cmd_ab.c - `biobench ab`: an A/B job run on this machine, through the
 * job runner the daemon uses (core/job/jobrun.c: plan, runs, statistics,
 * adaptive rounds), printed with the comparison printer of `biobench
 * compare`.
 *
 *   biobench ab [--json] [--quiet] JOBFILE|-     a job document
 *   biobench ab [RUN OPTIONS] --a K=V... --b K=V... [--repeat N]
 *               [--warmup N] [--min-effect PCT] TARGET
 *
 * The short form becomes a job document (workload = the run options,
 * variants = the overrides) and takes the same path.  What differs from
 * the daemon comes in through the runner's hooks: sysfs knobs applied and
 * restored in-process (after every run, and on SIGINT/SIGTERM/SIGHUP,
 * which only set the runner's cancel flag: cli/sigwatch.c), progress
 * lines instead of a store. */
#include "cli.h"

#include <biobench/jobrun.h>
#include <biobench/options.h>
#include <biobench/scope.h>
#include <biobench/sysknob.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define AB_MAX_OVERRIDES 16
#define AB_MAX_REPEAT 1000
#define AB_JOB_FILE_MAX (16u << 20)

/* The hooks' state: one local job. */
struct ab_local {
	const struct bb_job *job;
	FILE *out;               /* progress lines; NULL: none */
	struct bb_sysknob_set knobs; /* applied for the current run */
	unsigned runs_planned;   /* last seen, to tell adaptive rounds */
};

static void ab_usage(FILE *f)
{
	fprintf(f,
		"usage: biobench ab [--json] [--quiet] JOBFILE|-\n"
		"       biobench ab [RUN OPTIONS] --a KEY=VAL [--a KEY=VAL...] "
		"--b KEY=VAL [--b ...]\n"
		"                   [--repeat N] [--warmup N] [--min-effect "
		"PCT] TARGET\n"
		"       biobench ab --tiou \"T/IO_URING LINE\" [RUN OPTIONS] "
		"--a KEY=VAL... --b KEY=VAL...\n\n"
		"Runs an A/B job on this machine, without a daemon, through the "
		"same job runner\nand statistics as biobenchd, and prints the "
		"comparison as `biobench compare` does:\nper variant the median "
		"of the metric, the change against the baseline (A) with\nits "
		"confidence interval, the p-value and the verdict (faster, "
		"slower, no change,\nor inconclusive with the rounds still "
		"needed).\n\n"
		"JOBFILE is a job document (schema/job.schema.json, e.g. "
		"examples/nop-bio-cache.json;\n`-` reads standard input); every "
		"error is printed with its field path.  Variants\nmay set sysfs "
		"knobs (\"sysfs.nomerges\": 2): written before each run and "
		"restored\nafter it, also when interrupted (SIGINT, SIGTERM).\n\n"
		"The short form runs the workload given by the run options as "
		"variant A and B,\neach with its KEY=VAL overrides (any run "
		"option by its JSON name, e.g.\nbio_cache=off, iodepth=32, "
		"inject_ns=1500, or sysfs.KNOB=VALUE), in rounds of\none run each, "
		"in a random order per round (A B, B A, ...) after the warm-up "
		"rounds,\nmetric IOPS.\n\n"
		"  --json            print the comparison document (the same "
		"as the daemon's\n"
		"                    GET /api/v1/jobs/ID/compare); progress goes to "
		"stderr\n"
		"  --quiet           no progress lines\n"
		"  --a KEY=VAL       an override for variant A (repeatable)\n"
		"  --b KEY=VAL       an override for variant B (repeatable)\n"
		"  --repeat N        measured rounds (default 12, as in a job; 2..%d)\n"
		"  --warmup N        discarded rounds first (default 1)\n"
		"  --min-effect PCT  smallest change that matters, percent "
		"(default 1)\n"
		"  --tiou LINE       the workload as a t/io_uring command line "
		"(\"-p0 -d128\n"
		"                    -b4096 -s1 -c1 /dev/nvme0n1\", see "
		"biobench tiou --help): its\n"
		"                    FILE is the target, the run options go "
		"after it, and\n"
		"                    tiou=\"-s32 -c32\" in --a/--b layers a "
		"line on it\n\n"
		"The workload of the short form takes every run option: see "
		"`biobench run --help`.\n\n"
		"Exit status: 0 the job ran (whatever the verdict), 1 a run "
		"failed or was\ninterrupted, 2 usage error or invalid job.\n",
		AB_MAX_REPEAT);
}

/* ---- sysfs knobs -------------------------------------------------------- */

/* A knob that could not be written back is printed (the set goes on). */
static void knob_restored(void *arg, const struct bb_sysknob_applied *k,
			  int ret, const char *msg)
{
	(void)arg;
	if (ret < 0)
		fprintf(stderr, "biobench ab: cannot restore %s to '%s': %s\n",
			k->path, k->original, msg);
}

static const struct bb_sysknob_hooks ab_knob_hooks = {
	.after_restore = knob_restored,
};

/* Write back every applied knob, newest first; the first error. */
static int restore_knobs(struct ab_local *l, char *err, size_t errlen)
{
	return bb_sysknob_restore_set(&l->knobs, &ab_knob_hooks, l, err,
				      errlen);
}

static int hook_before_run(void *arg, struct bb_jobrun *jr,
			   const struct bb_job_step *st, char *err,
			   size_t errlen)
{
	struct ab_local *l = arg;
	const struct bb_job_variant *v = &l->job->v[st->variant];

	if (l->out && jr->runs_planned > l->runs_planned && l->runs_planned) {
		fprintf(l->out,
			"  verdict still open: round %u added (at most %u)\n",
			jr->rounds_planned, l->job->max_repeat);
		fflush(l->out);
	}
	l->runs_planned = jr->runs_planned;
	return bb_sysknob_apply_set(&l->knobs, v->sysfs, v->nsysfs,
				    &ab_knob_hooks, l, err, errlen);
}

static int hook_after_run(void *arg, struct bb_jobrun *jr,
			  const struct bb_job_step *st, int rc,
			  const struct bb_result *r, char *err, size_t errlen)
{
	struct ab_local *l = arg;
	const struct bb_job *job = l->job;
	int ret = restore_knobs(l, err, errlen);
	char step[48], run[24], iops[32], val[48] = "", eta[32] = "";

	if (!l->out || rc)
		return ret;
	if (st->warmup)
		snprintf(step, sizeof(step), "%s warm-up %u",
			 job->v[st->variant].name, st->round + 1);
	else
		snprintf(step, sizeof(step), "%s round %u",
			 job->v[st->variant].name,
			 st->round - job->warmup + 1);
	bb_cli_fmt_si(iops, sizeof(iops), bb_result_iops(r));
	if (job->metric != BB_METRIC_IOPS) {
		char m[32];

		bb_cli_fmt_metric(m, sizeof(m),
				  bb_metric_value(job->metric, r),
				  bb_metric_unit(job->metric));
		snprintf(val, sizeof(val), "  %s %s",
			 bb_metric_name(job->metric), m);
	}
	if (jr->seq + 1 < jr->runs_planned) {
		double left = bb_jobrun_eta_s(jr);

		if (left >= 0) {
			char d[24];

			bb_cli_fmt_duration(d, sizeof(d), left);
			snprintf(eta, sizeof(eta), "  ETA %s", d);
		}
	}
	snprintf(run, sizeof(run), "%u/%u", jr->seq + 1, jr->runs_planned);
	fprintf(l->out, "  run %-7s %-16s %9s IOPS%s%s%s%s\n", run, step,
		iops, val, eta, jr->quiet.disturbed ? "  disturbed: " : "",
		jr->quiet.disturbed ? jr->quiet.reason : "");
	fflush(l->out);
	return ret;
}

/* ---- running a job ------------------------------------------------------ */

static bool job_has_knobs(const struct bb_job *job)
{
	for (unsigned i = 0; i < job->nvariants; i++)
		if (job->v[i].nsysfs)
			return true;
	return false;
}

static void print_plan(FILE *f, const struct bb_job *job)
{
	struct bb_job_scope scope;
	char label[256];

	fprintf(f, "biobench ab: %s\n  target", job->name);
	for (const char *p = job->target; p; p = bb_job_next_target(job, p))
		fprintf(f, " %s", p);
	fprintf(f, "; %u warm-up + %u measured round(s)", job->warmup,
		job->repeat);
	if (job->max_repeat > job->repeat && job->order != BB_ORDER_BLOCKED)
		fprintf(f, " (up to %u while the verdict is open)",
			job->max_repeat);
	fprintf(f, ", order %s, metric %s\n", bb_job_order_name(job->order),
		bb_metric_name(job->metric));
	for (unsigned i = 0; i < job->nvariants; i++) {
		bb_cli_variant_label(label, sizeof(label), job->spec,
				     job->v[i].name);
		fprintf(f, "  %s: %s\n", job->v[i].name, label);
	}
	bb_job_scope(job, &scope);
	fprintf(f, "  scope: %s\n", scope.note);
	fflush(f);
}

/* Run a parsed job here and print it; the exit code. */
static int ab_exec(const struct bb_job *job, bool json, bool quiet)
{
	static const struct bb_jobrun_ops ops = {
		.before_run = hook_before_run,
		.after_run = hook_after_run,
	};
	struct ab_local l = { .job = job };
	struct bb_cli_sigwatch sw = { 0 };
	struct bb_devlocks lock = { 0 };
	struct json_object *doc = NULL;
	struct bb_jobrun jr;
	_Atomic bool cancel = false;
	bool jr_ok = false;
	char err[1024] = "", rerr[512] = "";
	int ret, rret;

	l.out = quiet ? NULL : json ? stderr : stdout;
	/* the device is ours for the whole job: no daemon job or other
	 * local run on it, nor their knob changes, meanwhile */
	snprintf(rerr, sizeof(rerr), "job \"%.200s\"", job->name);
	if (bb_devlocks_take(&lock, job->target, sizeof(job->target),
			     job->ntargets, "biobench ab",
			     rerr, err, sizeof(err))) {
		fprintf(stderr, "biobench ab: %s\n", err);
		return BB_EXIT_FAIL;
	}
	rerr[0] = '\0';
	if (l.out)
		print_plan(l.out, job);
	if (job_has_knobs(job) &&
	    bb_sysknob_queue_dir(job->target, l.knobs.queue_dir,
				 sizeof(l.knobs.queue_dir), err, sizeof(err))) {
		fprintf(stderr, "biobench ab: sysfs knobs: %s\n", err);
		bb_devlocks_release(&lock);
		return BB_EXIT_FAIL;
	}
	ret = bb_jobrun_init(&jr, job, &cancel);
	if (ret) {
		fprintf(stderr, "biobench ab: cannot set up the job: %s\n",
			strerror(-ret));
		bb_devlocks_release(&lock);
		return BB_EXIT_FAIL;
	}
	jr_ok = true;
	ret = bb_cli_sigwatch_start(&sw, &cancel, "biobench ab",
				    "stopping the job, restoring sysfs knobs",
				    false);
	if (ret) {
		fprintf(stderr, "biobench ab: cannot watch signals: %s\n",
			strerror(-ret));
		ret = BB_EXIT_FAIL;
		goto out;
	}
	ret = bb_jobrun_exec(&jr, &ops, &l, err, sizeof(err));
	/* a hook may have failed half way through applying knobs */
	rret = restore_knobs(&l, rerr, sizeof(rerr));
	bb_cli_sigwatch_stop(&sw);

	doc = bb_jobrun_to_json(&jr);
	if (json)
		bb_cli_print_json(stdout, doc);
	else if (!ret)
		bb_cli_compare_print(stdout, doc, job->spec, NULL, NULL);
	fflush(stdout);
	if (ret == -ECANCELED)
		fprintf(stderr, "biobench ab: cancelled after %u of %u runs\n",
			jr.runs_done, jr.runs_planned);
	else if (ret)
		fprintf(stderr, "biobench ab: %s\n", err);
	if (rret)
		fprintf(stderr, "biobench ab: %s\n", rerr);
	ret = ret || rret ? BB_EXIT_FAIL : BB_EXIT_OK;
out:
	json_object_put(doc);
	if (jr_ok)
		bb_jobrun_free(&jr);
	bb_devlocks_release(&lock);
	return ret;
}

/* Print every error of a job parse; BB_EXIT_USAGE. */
static int print_job_errors(const char *what, const struct bb_job_errors *e,
			    int ret)
{
	unsigned n = e->n < BB_JOB_MAX_ERRORS ? e->n : BB_JOB_MAX_ERRORS;

	if (!e->n) {
		fprintf(stderr, "biobench ab: %s: %s\n", what, strerror(-ret));
		return BB_EXIT_USAGE;
	}
	fprintf(stderr, "biobench ab: %s: %u error%s:\n", what, e->n,
		e->n == 1 ? "" : "s");
	for (unsigned i = 0; i < n; i++)
		fprintf(stderr, "  %s\n", e->msg[i]);
	if (e->n > n)
		fprintf(stderr, "  (%u more)\n", e->n - n);
	return BB_EXIT_USAGE;
}

/* `biobench ab [--json] [--quiet] JOBFILE|-` */
static int ab_jobfile(int argc, char **argv)
{
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));
	const char *file = NULL;
	bool json = false, quiet = false, parsed = false;
	char *text = NULL, err[512];
	size_t len;
	int ret;

	if (!errs || !job) {
		fprintf(stderr, "biobench ab: out of memory\n");
		ret = BB_EXIT_FAIL;
		goto out;
	}
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--json")) {
			json = true;
		} else if (!strcmp(a, "--quiet")) {
			quiet = true;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"biobench ab: unknown option '%s' (with a job "
				"file: --json, --quiet; the short form needs "
				"--a KEY=VAL and --b KEY=VAL; see biobench ab "
				"--help)\n",
				a);
			ret = BB_EXIT_USAGE;
			goto out;
		} else if (file) {
			fprintf(stderr, "biobench ab: one job file, got '%s' "
					"and '%s' (see biobench ab --help)\n",
				file, a);
			ret = BB_EXIT_USAGE;
			goto out;
		} else {
			file = a;
		}
	}
	if (!file) {
		fprintf(stderr,
			"biobench ab: give a job file (or - for stdin), or the "
			"variants with --a KEY=VAL and --b KEY=VAL and a "
			"target (e.g. --a bio_cache=off --b bio_cache=all "
			"nop)\n");
		ret = BB_EXIT_USAGE;
		goto out;
	}
	if (bb_cli_read_file(file, AB_JOB_FILE_MAX, &text, &len, err,
			     sizeof(err))) {
		fprintf(stderr, "biobench ab: %s\n", err);
		ret = BB_EXIT_USAGE;
		goto out;
	}
	ret = bb_job_parse_string(job, text, len, errs);
	if (ret) {
		ret = print_job_errors(strcmp(file, "-") ? file : "stdin", errs,
				       ret);
		goto out;
	}
	parsed = true;
	ret = ab_exec(job, json, quiet);
out:
	if (parsed)
		bb_job_free(job);
	free(job);
	free(errs);
	free(text);
	return ret;
}

/* ---- the short form ----------------------------------------------------- */

struct ab_short {
	const char *kv[2][AB_MAX_OVERRIDES]; /* [0] A, [1] B */
	unsigned nkv[2];
	unsigned repeat, warmup;
	double min_effect_pct;
	const char *tiou;  /* --tiou LINE: the workload as a t/io_uring line */
};

/* The JSON value of one KEY=VAL override: sysfs.* as text; run options
 * applied to a copy of base and read back typed from bb_config_to_json,
 * so that the job parser sees what `biobench run` would.  0 or -EINVAL
 * with a message. */
static int override_json(const struct bb_config *base,
			 struct json_object *basej, const char *side,
			 const char *kv, struct json_object *variant,
			 char *err, size_t errlen)
{
	const char *eq = strchr(kv, '=');
	struct json_object *cj = NULL, *v;
	struct bb_config *cfg = NULL;
	char key[128];
	bool found = false;
	int ret = 0;

	if (!eq || eq == kv || (size_t)(eq - kv) >= sizeof(key)) {
		snprintf(err, errlen,
			 "--%s: '%s' is not KEY=VAL (e.g. bio_cache=off)", side,
			 kv);
		return -EINVAL;
	}
	memcpy(key, kv, (size_t)(eq - kv));
	key[eq - kv] = '\0';
	if (!strncmp(key, "sysfs.", 6) || !strcmp(key, "tiou")) {
		/* a knob's value as text; a t/io_uring line layered on the
		 * job's */
		json_object_object_add(variant, key,
				       json_object_new_string(eq + 1));
		return 0;
	}
	cfg = malloc(sizeof(*cfg));
	if (!cfg) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	*cfg = *base;
	ret = bb_options_set(cfg, key, eq + 1, err, errlen);
	if (ret == -ENOENT) {
		char msg[512];

		/* bb_options_set's message, with the nearest option */
		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "--%s: %s", side, msg);
		ret = -EINVAL;
		goto out;
	}
	if (ret) {
		char msg[512];

		snprintf(msg, sizeof(msg), "%s", err);
		snprintf(err, errlen, "--%s: %s", side, msg);
		goto out;
	}
	if (!strcmp(key, "target")) {
		snprintf(err, errlen,
			 "--%s: the target is the same for A and B (the last "
			 "argument)",
			 side);
		ret = -EINVAL;
		goto out;
	}
	cj = bb_config_to_json(cfg);
	/* the field by its JSON name (long names use '-') */
	for (char *p = key; *p; p++)
		if (*p == '-')
			*p = '_';
	if (json_object_object_get_ex(cj, key, &v)) {
		json_object_object_add(variant, key, json_object_get(v));
		found = true;
	}
	/* otherwise every field it changed */
	json_object_object_foreach(cj, k, val)
	{
		struct json_object *b;

		if (found)
			break;
		if (!json_object_object_get_ex(basej, k, &b) ||
		    !json_object_equal(b, val))
			json_object_object_add(variant, k, json_object_get(val));
	}
out:
	json_object_put(cj);
	free(cfg);
	return ret;
}

/* Build the job document of the short form: the workload given by the
 * run options of base (with --tiou: the line, base holding the
 * defaults). */
static int short_form_doc(const struct bb_config *base,
			  const struct ab_short *s, struct json_object **out,
			  char *err, size_t errlen)
{
	static const char *const vname[2] = { "A", "B" };
	struct json_object *doc = json_object_new_object();
	struct json_object *work = bb_config_to_json(base);
	struct json_object *vars = json_object_new_object();
	char name[128], labels[2][64];
	int ret = 0;

	*out = NULL;
	if (!doc || !work || !vars) {
		json_object_put(doc);
		json_object_put(work);
		json_object_put(vars);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	json_object_object_del(work, "target");
	json_object_object_add(doc, "name", NULL); /* set below, kept first */
	if (s->tiou) {
		json_object_object_add(doc, "tiou",
				       json_object_new_string(s->tiou));
		json_object_put(work);
	} else {
		json_object_object_add(doc, "target",
				       json_object_new_string(base->target));
		json_object_object_add(doc, "workload", work);
	}
	json_object_object_add(doc, "variants", vars);
	for (int side = 0; side < 2; side++) {
		struct json_object *v = json_object_new_object();
		size_t off = 0;

		json_object_object_add(vars, vname[side], v);
		labels[side][0] = '\0';
		for (unsigned i = 0; i < s->nkv[side]; i++) {
			ret = override_json(base, work, side ? "b" : "a",
					    s->kv[side][i], v, err, errlen);
			if (ret)
				goto out;
			if (off < sizeof(labels[side]))
				off += (size_t)snprintf(
					labels[side] + off,
					sizeof(labels[side]) - off, "%s%s",
					i ? " " : "", s->kv[side][i]);
		}
		if (!s->nkv[side])
			snprintf(labels[side], sizeof(labels[side]),
				 "(workload)");
	}
	if (s->tiou)
		snprintf(name, sizeof(name), "%.40s vs %.40s: tiou %.32s",
			 labels[0], labels[1], s->tiou);
	else
		snprintf(name, sizeof(name), "%.40s vs %.40s on %.36s",
			 labels[0], labels[1], base->target);
	json_object_object_add(doc, "name", json_object_new_string(name));
	json_object_object_add(doc, "repeat", json_object_new_int(s->repeat));
	json_object_object_add(doc, "warmup", json_object_new_int(s->warmup));
	json_object_object_add(doc, "order", json_object_new_string("random"));
	json_object_object_add(doc, "metric", json_object_new_string("iops"));
	json_object_object_add(doc, "min_effect",
			       json_object_new_double(s->min_effect_pct));
	*out = doc;
	doc = NULL;
out:
	json_object_put(doc);
	return ret;
}

/* A word for a t/io_uring line, single-quoted unless plain. */
static void line_word(char *buf, size_t len, size_t *off, const char *w)
{
	bool plain = *w != '\0';

	for (const char *p = w; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789-_=.,:/+@%", *p))
			plain = false;
	if (*off < len)
		*off += (size_t)snprintf(buf + *off, len - *off, " %s",
					 plain ? w : "'");
	if (plain)
		return;
	for (const char *p = w; *p && *off < len; p++)
		*off += (size_t)snprintf(buf + *off, len - *off, "%s",
					 *p == '\'' ? "'\\''" : (char[2]){ *p, 0 });
	if (*off < len)
		*off += (size_t)snprintf(buf + *off, len - *off, "'");
}

/* --tiou LINE: the run options of the short form (argv[1..argc)) go into
 * the line, after its FILE, as `biobench tiou` takes them; --json and
 * --quiet are the job's own (base->json, base->quiet); there is no TARGET
 * (the line's FILE is).  *out is the line (malloc'd).  0, 1 for --help,
 * or -EINVAL with the message. */
static int tiou_line(const struct ab_short *s, int argc, char **argv,
		     struct bb_config *base, char **out, char *err,
		     size_t errlen)
{
	size_t len = strlen(s->tiou) + 16, off;
	char *buf;

	*out = NULL;
	for (int i = 1; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	buf = malloc(len);
	if (!buf)
		return bb_errf(err, errlen, -ENOMEM, "out of memory");
	off = (size_t)snprintf(buf, len, "%s", s->tiou);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			free(buf);
			return 1;
		}
		if (!strcmp(a, "--json")) {
			base->json = true;
		} else if (!strcmp(a, "--quiet")) {
			base->quiet = true;
		} else if (strncmp(a, "--", 2)) {
			free(buf);
			return bb_errf(err, errlen, -EINVAL,
				       "'%s': with --tiou the target is the "
				       "line's FILE; the run options follow "
				       "--OPTION VALUE",
				       a);
		} else {
			line_word(buf, len, &off, a);
			/* a value: the next word when it is no option */
			if (!strchr(a, '=') && i + 1 < argc &&
			    strncmp(argv[i + 1], "--", 2))
				line_word(buf, len, &off, argv[++i]);
		}
	}
	*out = buf;
	return 0;
}

/* `biobench ab [RUN OPTIONS] --a K=V --b K=V ... TARGET` */
static int ab_short_form(int argc, char **argv)
{
	struct ab_short s = { .repeat = 12, .warmup = 1, .min_effect_pct = 1 };
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_config *base = calloc(1, sizeof(*base));
	struct json_object *doc = NULL;
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	char err[512], *line = NULL;
	unsigned nrest = 0;
	bool parsed = false;
	int ret;

	if (!errs || !job || !base || !rest) {
		fprintf(stderr, "biobench ab: out of memory\n");
		ret = BB_EXIT_FAIL;
		goto out;
	}
	rest[nrest++] = argv[0];
	for (int i = 1; i < argc; i++) {
		static const char *const ours[] = { "--a", "--b", "--repeat",
						    "--warmup", "--min-effect",
						    "--tiou" };
		const char *arg = argv[i], *eq = strchr(arg, '='), *val;
		size_t nlen = eq ? (size_t)(eq - arg) : strlen(arg);
		size_t k;
		char *end;

		for (k = 0; k < bb_array_size(ours); k++)
			if (strlen(ours[k]) == nlen &&
			    !strncmp(arg, ours[k], nlen))
				break;
		if (k == bb_array_size(ours)) {
			rest[nrest++] = argv[i];
			continue;
		}
		if (eq)
			val = eq + 1;
		else if (i + 1 < argc)
			val = argv[++i];
		else {
			fprintf(stderr, "biobench ab: %s needs a value\n",
				ours[k]);
			ret = BB_EXIT_USAGE;
			goto out;
		}
		if (k == 5) {
			s.tiou = val;
		} else if (k < 2) {
			if (s.nkv[k] == AB_MAX_OVERRIDES) {
				fprintf(stderr,
					"biobench ab: %s: at most %d overrides\n",
					ours[k], AB_MAX_OVERRIDES);
				ret = BB_EXIT_USAGE;
				goto out;
			}
			s.kv[k][s.nkv[k]++] = val;
		} else if (k == 4) {
			errno = 0;
			s.min_effect_pct = strtod(val, &end);
			if (errno || *end || !*val || !(s.min_effect_pct > 0) ||
			    s.min_effect_pct >= 100) {
				fprintf(stderr,
					"biobench ab: --min-effect: '%s' is not "
					"a percentage in (0, 100)\n",
					val);
				ret = BB_EXIT_USAGE;
				goto out;
			}
		} else {
			unsigned long v;
			unsigned lo = k == 2 ? 2 : 0;

			errno = 0;
			v = strtoul(val, &end, 10);
			if (errno || *end || !*val || val[0] == '-' || v < lo ||
			    v > AB_MAX_REPEAT) {
				fprintf(stderr,
					"biobench ab: %s: '%s' is out of range "
					"%u..%d\n",
					ours[k], val, lo, AB_MAX_REPEAT);
				ret = BB_EXIT_USAGE;
				goto out;
			}
			if (k == 2)
				s.repeat = (unsigned)v;
			else
				s.warmup = (unsigned)v;
		}
	}
	bb_config_default(base);
	if (s.tiou) {
		/* the run options go into the line, after its FILE */
		ret = tiou_line(&s, (int)nrest, rest, base, &line, err,
				sizeof(err));
		s.tiou = line;
	} else {
		ret = bb_options_parse((int)nrest, rest, base, err,
				       sizeof(err));
	}
	if (ret == 1) {
		ab_usage(stdout);
		ret = BB_EXIT_OK;
		goto out;
	}
	if (ret) {
		fprintf(stderr, "biobench ab: %s\n", err);
		ret = BB_EXIT_USAGE;
		goto out;
	}
	ret = short_form_doc(base, &s, &doc, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "biobench ab: %s\n", err);
		ret = ret == -ENOMEM ? BB_EXIT_FAIL : BB_EXIT_USAGE;
		goto out;
	}
	ret = bb_job_parse(job, doc, errs);
	if (ret) {
		ret = print_job_errors("the A/B job", errs, ret);
		goto out;
	}
	parsed = true;
	ret = ab_exec(job, base->json, base->quiet);
out:
	if (parsed)
		bb_job_free(job);
	json_object_put(doc);
	free(line);
	free(rest);
	free(base);
	free(job);
	free(errs);
	return ret;
}

int bb_cmd_ab(int argc, char **argv)
{
	bool short_form = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			ab_usage(stdout);
			return BB_EXIT_OK;
		}
		if (!strcmp(a, "--a") || !strcmp(a, "--b") ||
		    !strncmp(a, "--a=", 4) || !strncmp(a, "--b=", 4) ||
		    !strcmp(a, "--tiou") || !strncmp(a, "--tiou=", 7))
			short_form = true;
	}
	return short_form ? ab_short_form(argc, argv) :
			    ab_jobfile(argc, argv);
}
