// SPDX-License-Identifier: GPL-2.0-only
/* cmd_calibrate.c - `biobench calibrate`: how far can this host's verdicts
 * be trusted?  Runs N A/A jobs (the job file's first variant, or its
 * workload alone, run as A and as its copy A2: "aa": true) through the
 * same job runner and statistics as `ab` and the daemon, and reports the
 * observed false-positive rate (verdicts faster/slower when nothing
 * changed) with its 95% Wilson interval, and the smallest change the
 * settings can detect, from the widths of the A/A confidence intervals.
 *
 * With --slowdown PCT it measures power instead: B gets inject_ns
 * calibrated to slow the workload by PCT percent (measured: a short busy
 * spin overlaps with other work in an out-of-order core, so inject_ns is
 * adjusted until interleaved probe runs show the asked slowdown), and the
 * report gives the detection rate (verdict slower), how often
 * B was called faster (never, ideally) and the mean estimated change.
 *
 *   biobench calibrate [--jobs N] [--cross-job K] [--slowdown PCT] [--json]
 *                      JOBFILE|-
 *
 * The job file's statistics settings (repeat, warmup, min_effect,
 * confidence, max_repeat, quiescence) are used as they are: calibrate the
 * settings you run jobs with.  Every job draws its own order (seed).
 *
 * --cross-job K calibrates the comparison of jobs instead: each of the N
 * comparisons is K A/A jobs on one side against K on the other, run
 * alternately (one of each side in turn), compared as `biobench compare`
 * compares jobs in one boot (bb_ab_compare_units, the job as the unit,
 * an A/A job's A and A2 pooled); with --slowdown the other side's jobs
 * get the inject_ns.  --json gives each job's runs (values and their
 * places in their rounds), for fitting a noise model (bench/aa_sim.c). */
#include "cli.h"

#include <biobench/sysknob.h>

#include <biobench/engine.h>
#include <biobench/jobrun.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CAL_MAX_JOBS 10000
#define CAL_JOB_FILE_MAX (16u << 20)
#define CAL_BASELINE_RUNS 3
#define CAL_MAX_CROSS 16       /* jobs a side of a cross-job comparison */

struct cal_opts {
	unsigned jobs;
	unsigned cross;        /* jobs a side of a cross-job comparison; 0:
				  the job's own comparison */
	double slowdown_pct;   /* 0: A/A */
	bool json;
	bool quiet;
	const char *file;
};

struct cal_job {
	enum bb_ab_verdict verdict;
	int cmp_ret;
	double change, ci_lo, ci_hi, p;
	double log_sd;         /* SD of the pairs' log-ratios (cross-job: of
				  the jobs' levels) */
	unsigned n;            /* pairs (cross-job: jobs a side) */
	unsigned more;         /* inconclusive: more pairs (jobs a side) */
	unsigned disturbed;
	struct json_object *runs; /* each job's runs, for --json */
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void cal_usage(FILE *f)
{
	fprintf(f,
		"usage: biobench calibrate [--jobs N] [--cross-job K] [--slowdown PCT] "
		"[--json]\n                          [--quiet] JOBFILE|-\n\n"
		"Runs N A/A jobs of the job file's workload (its first variant, "
		"or the workload\nalone, run as A and as a copy A2) with the "
		"file's repeat, warmup, min_effect,\nconfidence and quiescence "
		"settings, and reports this host's false-positive rate\n(a "
		"faster/slower verdict when nothing changed; 95%% Wilson "
		"interval) and the\nsmallest change those settings detect.\n\n"
		"  --jobs N         A/A (or power) jobs to run (default 40, "
		"1..%d), or\n"
		"                   comparisons of jobs with --cross-job\n"
		"  --cross-job K    the comparison of jobs instead (biobench "
		"compare): each\n"
		"                   comparison K A/A jobs a side (1..%d), run "
		"alternately,\n"
		"                   the job as the unit\n"
		"  --slowdown PCT   power instead: B gets inject_ns calibrated "
		"to slow the\n"
		"                   workload by PCT percent (measured on A "
		"first); reports how\n"
		"                   often B is called slower (and never "
		"faster)\n"
		"  --json           the report as JSON, with each job's runs "
		"(values and\n"
		"                   their places in their rounds)\n"
		"  --quiet          no line per job\n\n"
		"Exit status: 0 it ran, 1 a run failed, 2 usage error or "
		"invalid job.\n",
		CAL_MAX_JOBS, CAL_MAX_CROSS);
}

static int cal_args(int argc, char **argv, struct cal_opts *o)
{
	o->jobs = 40;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			cal_usage(stdout);
			return 1;
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "--quiet")) {
			o->quiet = true;
		} else if (!strcmp(a, "--jobs") || !strncmp(a, "--jobs=", 7)) {
			const char *v = a[6] == '=' ? a + 7 :
					i + 1 < argc ? argv[++i] : NULL;
			unsigned long n;

			errno = 0;
			n = v ? strtoul(v, &end, 10) : 0;
			if (!v || errno || *end || !*v || v[0] == '-' || n < 1 ||
			    n > CAL_MAX_JOBS) {
				fprintf(stderr,
					"biobench calibrate: --jobs: '%s' is "
					"out of range 1..%d\n",
					v ? v : "", CAL_MAX_JOBS);
				return -EINVAL;
			}
			o->jobs = (unsigned)n;
		} else if (!strcmp(a, "--cross-job") ||
			   !strncmp(a, "--cross-job=", 12)) {
			const char *v = a[11] == '=' ? a + 12 :
					i + 1 < argc ? argv[++i] : NULL;
			unsigned long n;

			errno = 0;
			n = v ? strtoul(v, &end, 10) : 0;
			if (!v || errno || *end || !*v || v[0] == '-' || n < 1 ||
			    n > CAL_MAX_CROSS) {
				fprintf(stderr,
					"biobench calibrate: --cross-job: '%s' "
					"is out of range 1..%d (jobs a side)\n",
					v ? v : "", CAL_MAX_CROSS);
				return -EINVAL;
			}
			o->cross = (unsigned)n;
		} else if (!strcmp(a, "--slowdown") ||
			   !strncmp(a, "--slowdown=", 11)) {
			const char *v = a[10] == '=' ? a + 11 :
					i + 1 < argc ? argv[++i] : NULL;

			errno = 0;
			o->slowdown_pct = v ? strtod(v, &end) : 0;
			if (!v || errno || *end || !*v ||
			    !(o->slowdown_pct > 0) || o->slowdown_pct >= 100) {
				fprintf(stderr,
					"biobench calibrate: --slowdown: '%s' "
					"is not a percentage in (0, 100)\n",
					v ? v : "");
				return -EINVAL;
			}
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr,
				"biobench calibrate: unknown option '%s' (see "
				"--help)\n",
				a);
			return -EINVAL;
		} else if (o->file) {
			fprintf(stderr,
				"biobench calibrate: one job file only ('%s' "
				"and '%s')\n",
				o->file, a);
			return -EINVAL;
		} else {
			o->file = a;
		}
	}
	if (!o->file) {
		fprintf(stderr, "biobench calibrate: a job file is needed (see "
				"--help)\n");
		return -EINVAL;
	}
	return 0;
}

/* The A/A document: the file's job with "aa": true and only its first
 * variant; inject_ns set on the copy's side by the caller when measuring
 * power (then it is an A/B job again: A and B = A + inject), or, aa,
 * on the variant itself (the other side's jobs of a cross-job power
 * calibration: an A/A job of the slowed workload). */
static int cal_doc(struct json_object *in, uint64_t inject_ns, bool aa,
		   struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc, *vars, *first = NULL, *v;
	const char *first_name = "A";

	*out = NULL;
	if (!json_object_is_type(in, json_type_object)) {
		snprintf(err, errlen, "the job document must be a JSON object");
		return -EINVAL;
	}
	doc = NULL;
	if (json_object_deep_copy(in, &doc, NULL))
		return -ENOMEM;
	if (json_object_object_get_ex(doc, "variants", &vars) &&
	    json_object_is_type(vars, json_type_object)) {
		json_object_object_foreach(vars, k, val) {
			first_name = k;
			first = val;
			break;
		}
	}
	v = NULL;
	if (!first)
		v = json_object_new_object();
	else if (json_object_deep_copy(first, &v, NULL)) {
		json_object_put(doc);
		return -ENOMEM;
	}
	vars = json_object_new_object();
	if (!inject_ns || aa) {
		if (inject_ns)
			json_object_object_add(v, "inject_ns",
					       json_object_new_int64((int64_t)inject_ns));
		json_object_object_add(vars, first_name, v);
		json_object_object_add(doc, "aa", json_object_new_boolean(true));
	} else {
		struct json_object *b = NULL;

		if (json_object_deep_copy(v, &b, NULL)) {
			json_object_put(v);
			json_object_put(vars);
			json_object_put(doc);
			return -ENOMEM;
		}
		json_object_object_add(b, "inject_ns",
				       json_object_new_int64((int64_t)inject_ns));
		json_object_object_add(vars, "A", v);
		json_object_object_add(vars, "B", b);
		json_object_object_del(doc, "aa");
	}
	json_object_object_add(doc, "variants", vars);
	*out = doc;
	return 0;
}

static int cal_parse(struct json_object *doc, struct bb_job *job)
{
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	int ret;

	if (!errs)
		return -ENOMEM;
	ret = bb_job_parse(job, doc, errs);
	if (ret == -EINVAL) {
		fprintf(stderr, "biobench calibrate: the job has %u error(s):\n",
			errs->n);
		for (unsigned i = 0; i < errs->n && i < BB_JOB_MAX_ERRORS; i++)
			fprintf(stderr, "  %s\n", errs->msg[i]);
	}
	free(errs);
	return ret;
}

/* ns of one I/O of one submitter thread: the median of a few runs of the
 * baseline configuration. */
static int cal_baseline_ns(const struct bb_config *cfg, double *ns,
			   FILE *log)
{
	double v[CAL_BASELINE_RUNS];
	char err[512];

	for (unsigned i = 0; i < CAL_BASELINE_RUNS; i++) {
		struct bb_result r;
		int ret = bb_run(cfg, &r, NULL, NULL, err, sizeof(err));
		double iops = ret ? 0 : bb_result_iops(&r);

		bb_result_free(&r);
		if (ret || !(iops > 0)) {
			fprintf(stderr, "biobench calibrate: baseline run: %s\n",
				ret ? err : "no I/O completed");
			return ret ? ret : -EIO;
		}
		v[i] = 1e9 * cfg->threads / iops;
		if (log)
			fprintf(log, "baseline run %u: %.0f IOPS, %.1f ns per I/O\n",
				i + 1, iops, v[i]);
	}
	/* median of three */
	for (int i = 0; i < 2; i++)
		for (int j = i + 1; j < 3; j++)
			if (v[j] < v[i]) {
				double t = v[i];

				v[i] = v[j];
				v[j] = t;
			}
	*ns = v[1];
	return 0;
}

/* The slowdown inject_ns really causes: `pairs` interleaved runs of cfg
 * and of cfg + inject, the median of iops(A)/iops(B) - 1.  A busy spin of
 * a few ns overlaps with the surrounding work in an out-of-order core, so
 * its cost is not its length: it has to be measured. */
static int cal_measure(const struct bb_config *cfg, uint64_t inject,
		       unsigned pairs, double *slowdown)
{
	struct bb_config *b = malloc(sizeof(*b));
	double r[16];
	char err[512];
	int ret = 0;

	if (!b)
		return -ENOMEM;
	*b = *cfg;
	b->inject_ns = inject;
	pairs = pairs > 16 ? 16 : pairs;
	for (unsigned i = 0; i < pairs && !ret; i++) {
		double iops[2];

		for (int side = 0; side < 2 && !ret; side++) {
			struct bb_result res;

			ret = bb_run(side ? b : cfg, &res, NULL, NULL, err,
				     sizeof(err));
			iops[side] = ret ? 0 : bb_result_iops(&res);
			bb_result_free(&res);
			if (!ret && !(iops[side] > 0))
				ret = -EIO;
		}
		if (!ret)
			r[i] = iops[0] / iops[1] - 1;
	}
	free(b);
	if (ret) {
		fprintf(stderr, "biobench calibrate: calibration run: %s\n",
			ret == -EIO ? "no I/O completed" : err);
		return ret;
	}
	qsort(r, pairs, sizeof(r[0]), cmp_double);
	*slowdown = pairs % 2 ? r[pairs / 2] :
				(r[pairs / 2 - 1] + r[pairs / 2]) / 2;
	return 0;
}

/* inject_ns that slows cfg by `target` (a fraction).  The cost of a
 * short spin is not linear in its length (small ones hide in the
 * out-of-order window), so it is searched: double from target x the time
 * of one I/O until the measured slowdown reaches the target, then bisect
 * the integers between the last two; the value measured closest to the
 * target wins. */
static int cal_inject(const struct bb_config *cfg, double base_ns,
		      double target, uint64_t *inject, double *achieved,
		      FILE *log)
{
	uint64_t lo = 0, hi, best = 0;
	double s, best_s = 0;
	int ret, step = 0;

#define CAL_TRY(v)                                                         \
	do {                                                               \
		ret = cal_measure(cfg, (v), 6, &s);                        \
		if (ret)                                                   \
			return ret;                                        \
		if (log)                                                   \
			fprintf(log,                                       \
				"calibration step %d: inject_ns %llu slows by " \
				"%.2f%% (target %.2f%%)\n",                  \
				++step, (unsigned long long)(v), 100 * s,  \
				100 * target);                             \
		if (!best || fabs(s - target) < fabs(best_s - target)) {  \
			best = (v);                                        \
			best_s = s;                                        \
		}                                                          \
	} while (0)

	hi = (uint64_t)llround(target * base_ns);
	if (!hi)
		hi = 1;
	for (;;) {
		CAL_TRY(hi);
		if (s >= target || hi >= (1u << 20))
			break;
		lo = hi;
		hi *= 2;
	}
	while (hi - lo > 1 && step < 12) {
		uint64_t mid = lo + (hi - lo) / 2;

		CAL_TRY(mid);
		if (s >= target)
			hi = mid;
		else
			lo = mid;
	}
#undef CAL_TRY
	*inject = best;
	*achieved = best_s;
	return 0;
}

/* One job of the calibration in its own order: seed drawn from the
 * file's job seed and the job's number.  jr is initialized here; the
 * caller frees it.  0, or the exit code with the message printed. */
static int cal_run_job(struct bb_job *job, uint64_t base_seed, unsigned k,
		       const struct bb_ab_seq *plan, struct bb_jobrun *jr)
{
	char jerr[1024];
	int ret;

	/* the plan seeds its generator through splitmix64 from this */
	job->seed = (base_seed + 0x9e3779b97f4a7c15ull * k) & (uint64_t)INT64_MAX;
	ret = bb_jobrun_init_plan(jr, job, NULL, plan);
	if (ret)
		return BB_EXIT_FAIL;
	ret = bb_jobrun_exec(jr, NULL, NULL, jerr, sizeof(jerr));
	if (ret) {
		fprintf(stderr, "biobench calibrate: job %u: %s\n", k + 1, jerr);
		bb_jobrun_free(jr);
		return BB_EXIT_FAIL;
	}
	return 0;
}

/* {"seed", "VARIANT": {"values", "positions"}, ...}: a job's measured
 * runs, in round order, with each run's place in its round. */
static struct json_object *cal_runs_json(const struct bb_jobrun *jr)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "seed", json_object_new_int64((int64_t)jr->job->seed));
	for (unsigned i = 0; i < jr->job->nvariants; i++) {
		struct json_object *v = json_object_new_object();
		struct json_object *vals = json_object_new_array();
		struct json_object *pos = json_object_new_array();

		for (unsigned r = 0; r < jr->vs[i].n; r++) {
			json_object_array_add(vals, json_object_new_double(jr->vs[i].vals[r]));
			json_object_array_add(pos, json_object_new_int((int)jr->vs[i].pos[r]));
		}
		json_object_object_add(v, "values", vals);
		json_object_object_add(v, "positions", pos);
		json_object_object_add(o, jr->job->v[i].name, v);
	}
	return o;
}

/* 95% Wilson score interval of k successes in n. */
static void wilson(unsigned k, unsigned n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p = n ? (double)k / n : 0, d = 1 + z * z / n;
	double c = p + z * z / (2.0 * n);
	double h = z * sqrt(p * (1 - p) / n + z * z / (4.0 * n * n));

	*lo = n ? (c - h) / d : 0;
	*hi = n ? (c + h) / d : 1;
	if (*lo < 0)
		*lo = 0;
	if (*hi > 1)
		*hi = 1;
}

int bb_cmd_calibrate(int argc, char **argv)
{
	struct cal_opts o = { 0 };
	struct bb_devlocks lock = { 0 };
	struct json_object *in = NULL, *doc = NULL, *rep = NULL, *arr;
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_job *jobb = NULL; /* cross-job power: the other side's */
	struct json_object *docb = NULL;
	struct cal_job *res = NULL;
	struct bb_ab_seq *plan = NULL;
	uint64_t base_seed = 0;
	double *half = NULL, base_ns = 0, zsum = 0, achieved = 0;
	unsigned counts[4] = { 0 }, nok = 0, nhalf = 0, disturbed = 0;
	uint64_t inject = 0;
	FILE *log;
	char *text = NULL, err[512];
	size_t len;
	bool parsed = false;
	int ret;

	if (!job)
		return BB_EXIT_FAIL;
	ret = cal_args(argc, argv, &o);
	if (ret) {
		free(job);
		return ret == 1 ? BB_EXIT_OK : BB_EXIT_USAGE;
	}
	log = o.quiet ? NULL : o.json ? stderr : stdout;
	ret = bb_cli_read_file(o.file, CAL_JOB_FILE_MAX, &text, &len, err,
			       sizeof(err));
	if (ret) {
		fprintf(stderr, "biobench calibrate: %s\n", err);
		ret = BB_EXIT_USAGE;
		goto out;
	}
	in = json_tokener_parse(text);
	if (!in) {
		fprintf(stderr, "biobench calibrate: %s: not a JSON document "
				"(see biobench ab for the errors)\n",
			o.file);
		ret = BB_EXIT_USAGE;
		goto out;
	}
	res = calloc(o.jobs, sizeof(*res));
	half = calloc(o.jobs, sizeof(*half));
	if (!res || !half) {
		ret = BB_EXIT_FAIL;
		goto out;
	}

	/* the A/A job first: it is checked, and its A is the baseline */
	ret = cal_doc(in, 0, true, &doc, err, sizeof(err));
	if (!ret)
		ret = cal_parse(doc, job);
	if (ret) {
		if (ret != -EINVAL || err[0])
			fprintf(stderr, "biobench calibrate: %s\n",
				err[0] ? err : strerror(-ret));
		ret = ret == -EINVAL ? BB_EXIT_USAGE : BB_EXIT_FAIL;
		goto out;
	}
	parsed = true;
	for (unsigned i = 0; i < job->nvariants; i++)
		if (job->v[i].nsysfs) {
			fprintf(stderr, "biobench calibrate: sysfs knobs are not "
					"calibrated (use biobench ab)\n");
			ret = BB_EXIT_USAGE;
			goto out;
		}
	/* the device is ours for the whole calibration (daemon jobs, ab) */
	if (bb_devlocks_take(&lock, job->target, sizeof(job->target),
			     job->ntargets, "biobench calibrate",
			     o.file, err, sizeof(err))) {
		fprintf(stderr, "biobench calibrate: %s\n", err);
		ret = BB_EXIT_FAIL;
		goto out;
	}
	if (o.slowdown_pct > 0) {
		ret = cal_baseline_ns(&job->v[0].cfg, &base_ns, log);
		if (ret) {
			ret = BB_EXIT_FAIL;
			goto out;
		}
		ret = cal_inject(&job->v[0].cfg, base_ns, o.slowdown_pct / 100.0,
				 &inject, &achieved, log);
		if (ret) {
			ret = BB_EXIT_FAIL;
			goto out;
		}
		if (o.cross) {
			/* the other side: A/A jobs of the slowed workload */
			jobb = calloc(1, sizeof(*jobb));
			ret = jobb ? cal_doc(in, inject, true, &docb, err,
					     sizeof(err)) : -ENOMEM;
			if (!ret)
				ret = cal_parse(docb, jobb);
			if (ret) {
				free(jobb);
				jobb = NULL;
				ret = BB_EXIT_FAIL;
				goto out;
			}
		} else {
			bb_job_free(job);
			parsed = false;
			json_object_put(doc);
			ret = cal_doc(in, inject, false, &doc, err, sizeof(err));
			if (!ret)
				ret = cal_parse(doc, job);
			if (ret) {
				ret = BB_EXIT_FAIL;
				goto out;
			}
			parsed = true;
		}
		if (log)
			fprintf(log,
				"power: B gets inject_ns %llu, measured to slow "
				"%.1f ns per I/O by %.2f%% (asked %.2f%%)\n",
				(unsigned long long)inject, base_ns,
				100 * achieved, o.slowdown_pct);
	}

	base_seed = job->seed;
	/* an adaptive job's plan, made once for all its jobs */
	if (!o.cross && job->max_repeat > job->repeat &&
	    job->order != BB_ORDER_BLOCKED &&
	    bb_ab_seq_create(&plan, job->repeat, job->max_repeat,
			     job->confidence)) {
		ret = BB_EXIT_FAIL;
		goto out;
	}
	for (unsigned k = 0; k < o.jobs; k++) {
		const struct bb_ab_result *c = NULL;
		struct bb_ab_result ur;
		struct bb_jobrun jr;

		ret = 0;
		res[k].runs = json_object_new_array();
		if (!o.cross) {
			ret = cal_run_job(job, base_seed, k, plan, &jr);
			if (ret)
				goto out;
			json_object_array_add(res[k].runs, cal_runs_json(&jr));
			res[k].cmp_ret = jr.have_cmp ? jr.cmp_ret[1] : -EINVAL;
			res[k].disturbed = jr.disturbed_runs;
			if (!res[k].cmp_ret) {
				ur = jr.cmp[1];
				c = &ur;
			}
			bb_jobrun_free(&jr);
		} else {
			/* K jobs a side, one of each side in turn; each job's
			 * A and A2 pool as its runs */
			struct bb_ab_unit ua[CAL_MAX_CROSS], ub[CAL_MAX_CROSS];
			double *buf[2 * CAL_MAX_CROSS] = { 0 };
			struct bb_ab_params p;

			for (unsigned i = 0; i < 2 * o.cross && !ret; i++) {
				struct bb_job *jj = i % 2 && jobb ? jobb : job;
				size_t n;

				ret = cal_run_job(jj, base_seed, k * 2 * o.cross + i,
						  NULL, &jr);
				if (ret)
					break;
				json_object_array_add(res[k].runs, cal_runs_json(&jr));
				res[k].disturbed += jr.disturbed_runs;
				n = jr.vs[0].n + jr.vs[1].n;
				buf[i] = malloc((n ? n : 1) * sizeof(double));
				if (!buf[i]) {
					ret = BB_EXIT_FAIL;
				} else {
					memcpy(buf[i], jr.vs[0].vals,
					       jr.vs[0].n * sizeof(double));
					memcpy(buf[i] + jr.vs[0].n, jr.vs[1].vals,
					       jr.vs[1].n * sizeof(double));
					(i % 2 ? ub : ua)[i / 2] =
						(struct bb_ab_unit){ buf[i], n };
				}
				bb_jobrun_free(&jr);
			}
			if (!ret) {
				bb_job_ab_params(job, &p);
				p.seq = NULL;
				p.unit = BB_AB_UNIT_JOB;
				res[k].cmp_ret = bb_ab_compare_units(ua, o.cross, ub,
								     o.cross, &p, &ur);
				if (!res[k].cmp_ret)
					c = &ur;
			}
			for (unsigned i = 0; i < 2 * o.cross; i++)
				free(buf[i]);
			if (ret)
				goto out;
		}
		disturbed += res[k].disturbed;
		if (c) {
			char line[512];

			res[k].verdict = c->verdict;
			res[k].change = c->change;
			res[k].ci_lo = c->ci_lo;
			res[k].ci_hi = c->ci_hi;
			res[k].p = c->p_value;
			res[k].n = (unsigned)c->n;
			res[k].log_sd = c->log_sd;
			res[k].more = c->more_needed;
			counts[c->verdict]++;
			if (isfinite(c->ci_lo) && isfinite(c->ci_hi))
				half[nhalf++] = (c->ci_hi - c->ci_lo) / 2;
			zsum += c->change;
			nok++;
			/* the line names its verdict ("inconclusive: ...",
			 * "no change: ...", "B is 1.2% faster ...") */
			if (log && !(o.cross ? bb_ab_format_names(c, "side A", "side B",
								  line, sizeof(line)) :
					       bb_ab_format(c, line, sizeof(line))))
				fprintf(log, "%s %3u/%u: %s\n",
					o.cross ? "comparison" : "job", k + 1,
					o.jobs, line);
		} else if (log) {
			fprintf(log, "job %3u/%u: no comparison (%s)\n", k + 1,
				o.jobs, strerror(-res[k].cmp_ret));
		}
	}

	qsort(half, nhalf, sizeof(*half), cmp_double);
	{
		double med_half = nhalf ? (nhalf % 2 ? half[nhalf / 2] :
					   (half[nhalf / 2 - 1] +
					    half[nhalf / 2]) / 2) :
					  NAN;
		/* two-sided test at the job's confidence, 80% power: the
		 * effect whose CI, as wide as the A/A ones, clears zero four
		 * times in five (the t of the jobs' levels, 2K - 2 degrees of
		 * freedom, for a comparison of jobs) */
		double df = 2.0 * o.cross - 2;
		double z = o.cross > 1 ? bb_ab_t_isf((1 - job->confidence) / 2, df) :
					 bb_ab_norm_quantile(1 - (1 - job->confidence) / 2);
		double z80 = o.cross > 1 ? bb_ab_t_isf(0.2, df) : 0.8416212335729143;
		double mde = med_half * (z + z80) / z;
		unsigned fp = counts[BB_AB_FASTER] + counts[BB_AB_SLOWER];
		double lo, hi, pairs = 0, *sds = calloc(o.jobs + 1, sizeof(*sds));
		double floor_sd = NAN;
		unsigned nsd = 0;
		bool adaptive = !o.cross && job->max_repeat > job->repeat &&
				job->order != BB_ORDER_BLOCKED;
		double more = 0;
		unsigned nmore = 0;

		/* the host's noise floor: the median SD of the A/A pairs'
		 * log-ratios; the mean pairs a job took (adaptive jobs vary) */
		for (unsigned k = 0; k < o.jobs; k++) {
			if (res[k].cmp_ret)
				continue;
			if (res[k].verdict == BB_AB_INCONCLUSIVE) {
				more += res[k].more;
				nmore++;
			}
			pairs += res[k].n;
			if (sds)
				sds[nsd++] = res[k].log_sd;
		}
		if (nok)
			pairs /= nok;
		if (nsd) {
			qsort(sds, nsd, sizeof(*sds), cmp_double);
			floor_sd = nsd % 2 ? sds[nsd / 2] :
					     (sds[nsd / 2 - 1] + sds[nsd / 2]) / 2;
		}
		free(sds);

		rep = json_object_new_object();
		json_object_object_add(rep, "mode",
				       json_object_new_string(inject ? "power" :
								      "aa"));
		json_object_object_add(rep, "job", json_object_new_string(job->name));
		json_object_object_add(rep, "jobs", json_object_new_int(o.jobs));
		json_object_object_add(rep, "compared", json_object_new_int(nok));
		json_object_object_add(rep, "repeat", json_object_new_int(job->repeat));
		json_object_object_add(rep, "max_repeat",
				       json_object_new_int(job->max_repeat));
		json_object_object_add(rep, "design",
				       json_object_new_string(o.cross ? "cross_job" :
							      adaptive ? "sequential" :
									 "fixed"));
		json_object_object_add(rep, "jobs_per_side",
				       o.cross ? json_object_new_int((int)o.cross) : NULL);
		json_object_object_add(rep, "order",
				       json_object_new_string(bb_job_order_name(job->order)));
		json_object_object_add(rep, "mean_more_needed",
				       nmore ? json_object_new_double(more / nmore) : NULL);
		json_object_object_add(rep, "mean_pairs",
				       nok ? json_object_new_double(pairs) : NULL);
		json_object_object_add(rep, "noise_floor_log_sd",
				       nsd ? json_object_new_double(floor_sd) : NULL);
		json_object_object_add(rep, "confidence",
				       json_object_new_double(job->confidence));
		json_object_object_add(rep, "min_effect",
				       json_object_new_double(job->min_effect));
		json_object_object_add(rep, "disturbed_runs",
				       json_object_new_int(disturbed));
		arr = json_object_new_object();
		for (int v = 0; v < 4; v++)
			json_object_object_add(arr,
					       bb_ab_verdict_name((enum bb_ab_verdict)v),
					       json_object_new_int(counts[v]));
		json_object_object_add(rep, "verdicts", arr);
		json_object_object_add(rep, "median_ci_half_width",
				       nhalf ? json_object_new_double(med_half) : NULL);
		json_object_object_add(rep, "min_detectable_change_80",
				       nhalf ? json_object_new_double(mde) : NULL);
		json_object_object_add(rep, "mean_change",
				       nok ? json_object_new_double(zsum / nok) : NULL);
		arr = json_object_new_array();
		for (unsigned k = 0; k < o.jobs; k++) {
			struct json_object *j = json_object_new_object();

			if (res[k].cmp_ret) {
				json_object_object_add(j, "verdict", NULL);
			} else {
				json_object_object_add(j, "verdict",
						       json_object_new_string(bb_ab_verdict_name(res[k].verdict)));
				json_object_object_add(j, "change", json_object_new_double(res[k].change));
				json_object_object_add(j, "ci_lo", json_object_new_double(res[k].ci_lo));
				json_object_object_add(j, "ci_hi", json_object_new_double(res[k].ci_hi));
				json_object_object_add(j, "p_value", json_object_new_double(res[k].p));
				json_object_object_add(j, "n", json_object_new_int((int)res[k].n));
			}
			json_object_object_add(j, "disturbed_runs",
					       json_object_new_int((int)res[k].disturbed));
			json_object_object_add(j, "jobs", json_object_get(res[k].runs));
			json_object_array_add(arr, j);
		}
		json_object_object_add(rep, "results", arr);
		if (!inject) {
			wilson(fp, nok, &lo, &hi);
			json_object_object_add(rep, "false_positive_rate",
					       nok ? json_object_new_double((double)fp / nok) : NULL);
			arr = json_object_new_array();
			json_object_array_add(arr, json_object_new_double(lo));
			json_object_array_add(arr, json_object_new_double(hi));
			json_object_object_add(rep, "false_positive_ci95", arr);
		} else {
			wilson(counts[BB_AB_SLOWER], nok, &lo, &hi);
			json_object_object_add(rep, "inject_ns",
					       json_object_new_int64((int64_t)inject));
			json_object_object_add(rep, "baseline_ns_per_io",
					       json_object_new_double(base_ns));
			json_object_object_add(rep, "slowdown_asked_pct",
					       json_object_new_double(o.slowdown_pct));
			json_object_object_add(rep, "slowdown_calibrated_pct",
					       json_object_new_double(100 * achieved));
			json_object_object_add(rep, "detection_rate",
					       nok ? json_object_new_double((double)counts[BB_AB_SLOWER] / nok) : NULL);
			arr = json_object_new_array();
			json_object_array_add(arr, json_object_new_double(lo));
			json_object_array_add(arr, json_object_new_double(hi));
			json_object_object_add(rep, "detection_ci95", arr);
			json_object_object_add(rep, "called_faster",
					       json_object_new_int(counts[BB_AB_FASTER]));
		}
		if (o.json) {
			bb_cli_print_json(stdout, rep);
		} else if (!inject) {
			if (o.cross)
				printf("\nA/A calibration of the comparison of jobs "
				       "\"%s\": %u comparisons of %u+%u A/A jobs "
				       "(%u pairs each, run alternately), the job as "
				       "the unit, %.0f%% confidence, min effect "
				       "±%.1f%%\n",
				       job->name, nok, o.cross, o.cross, job->repeat,
				       job->confidence * 100,
				       job->min_effect * 100);
			else if (adaptive)
				printf("\nA/A calibration of \"%s\": %u jobs, "
				       "%u..%u pairs (adaptive, sequential plan; "
				       "%.1f on average), %.0f%% confidence, min "
				       "effect ±%.1f%%\n",
				       job->name, nok, job->repeat,
				       job->max_repeat, pairs,
				       job->confidence * 100,
				       job->min_effect * 100);
			else
				printf("\nA/A calibration of \"%s\": %u jobs, %u "
				       "pairs each, %.0f%% confidence, min effect "
				       "±%.1f%%\n",
				       job->name, nok, job->repeat,
				       job->confidence * 100,
				       job->min_effect * 100);
			printf("  verdicts: %u no change, %u inconclusive, %u faster, "
			       "%u slower\n",
			       counts[BB_AB_NO_CHANGE], counts[BB_AB_INCONCLUSIVE],
			       counts[BB_AB_FASTER], counts[BB_AB_SLOWER]);
			printf("  false-positive rate: %.1f%% (%u of %u; 95%% CI "
			       "%.1f%% .. %.1f%%), nominal %.0f%%\n",
			       nok ? 100.0 * fp / nok : 0, fp, nok, 100 * lo,
			       100 * hi, 100 * (1 - job->confidence));
			if (nhalf)
				printf("  median CI half-width ±%.2f%%: smallest "
				       "change detected 4 times in 5 ≈ %.2f%%\n",
				       100 * med_half, 100 * mde);
			else
				printf("  no interval: one job a side never gives "
				       "one (the job is the unit); about %.0f more "
				       "jobs each side were needed on average\n",
				       nmore ? more / nmore : NAN);
			if (o.cross && nsd)
				printf("  between-job spread: %.2f%% (median SD of "
				       "the jobs' levels)\n",
				       100 * expm1(floor_sd));
			else if (nsd)
				printf("  noise floor: A/A pairs spread %.2f%% "
				       "(median SD of the pair ratios); "
				       "biobenchd keeps it with the host from "
				       "every A/A job (\"aa\": true) submitted "
				       "to it\n",
				       100 * expm1(floor_sd));
			if (disturbed)
				printf("  %u run(s) were marked disturbed by the "
				       "quiescence gate\n",
				       disturbed);
		} else {
			printf("\npower of \"%s\": %u jobs, B slowed by inject_ns "
			       "%llu (calibrated to %.2f%% of %.1f ns per I/O)\n",
			       job->name, nok, (unsigned long long)inject,
			       100 * achieved, base_ns);
			printf("  verdicts: %u slower, %u inconclusive, %u no "
			       "change, %u faster\n",
			       counts[BB_AB_SLOWER], counts[BB_AB_INCONCLUSIVE],
			       counts[BB_AB_NO_CHANGE], counts[BB_AB_FASTER]);
			printf("  detection rate: %.1f%% (95%% CI %.1f%% .. "
			       "%.1f%%); mean estimated change %+.2f%%\n",
			       nok ? 100.0 * counts[BB_AB_SLOWER] / nok : 0,
			       100 * lo, 100 * hi,
			       nok ? 100 * zsum / nok : 0);
		}
	}
	ret = BB_EXIT_OK;
out:
	bb_devlocks_release(&lock);
	json_object_put(rep);
	json_object_put(doc);
	json_object_put(docb);
	json_object_put(in);
	bb_ab_seq_free(plan);
	if (parsed)
		bb_job_free(job);
	if (jobb)
		bb_job_free(jobb);
	free(job);
	free(jobb);
	for (unsigned k = 0; res && k < o.jobs; k++)
		json_object_put(res[k].runs);
	free(res);
	free(half);
	free(text);
	return ret;
}
