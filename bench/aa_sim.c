// SPDX-License-Identifier: GPL-2.0-only
/* aa_sim.c - how often does each design biobench offers call a change that
 * is not there, and what is the smallest change it finds four times in
 * five?  By simulation through biobench's own job runner and statistics,
 * on noise fitted to a host's real run series.
 *
 *   bench_aa_sim fit [--out MODEL.json] SERIES.json...
 *   bench_aa_sim run --model MODEL.json [--jobs N] [--power-jobs N]
 *                    [--seed S] [--models LIST] [--designs LIST]
 *                    [--boot-sd PCT] [--scale F]
 *
 * SERIES: what `biobench calibrate --json` writes (each job's runs, their
 * places in their rounds, the jobs in the order they ran) or `biobench ab
 * --json` of an A/A job (one long series; without "positions" the rounds
 * are taken as A first).  The runs of a job in time order are its rounds,
 * each round's runs by their places.
 *
 * The noise model (log of the metric, per run, in time order):
 *   x = J + Bt + L + A + e + o + P * [first in its round] (+ the effect)
 *   J   the job's offset: AR(1) over consecutive jobs (job_sd, job_phi):
 *       drift between jobs beyond what the processes below carry over;
 *   Bt  a boot's offset (boot_sd; boot designs only);
 *   L   level shifts: each run, with probability shift_p, a new level
 *       N(0, shift_sd^2) (bursts and regimes that last many runs);
 *   A   AR(1) (ar_phi, stationary SD ar_sd): short bursts;
 *   e   white noise, Student t with nu degrees of freedom (0: normal),
 *       scaled to SD sd_white: heavy tails;
 *   o   a slow run now and then: probability out_p, -Exp(out_mean);
 *   P   a position effect of the job: pos_mean + N(0, pos_sd^2), on the
 *       first run of each round (something in step with the rounds).
 * L and A run on across jobs, as on a host that runs job after job.
 *
 * The fit (method of moments, each step printed):
 *   1. per series, a running median of 9 runs; a run more than 5 MADs
 *      below it is an outlier: out_p, out_mean from those;
 *   2. the autocovariance of the series (outliers replaced by the
 *      running median, each series centred) at lags 1..15, pooled, is
 *      fitted by shift_sd^2 (1-shift_p)^k + ar_sd^2 ar_phi^k (a grid over
 *      shift_p and ar_phi, non-negative least squares for the two
 *      variances); the rest of the lag-0 variance is white;
 *   3. nu from the kurtosis of the residuals about the running median
 *      (kurtosis 3 + 6/(nu-4) of a t; normal below 3.2);
 *   4. job_sd: the variance of the jobs' mean levels (calibrate series,
 *      in their order) beyond what the fitted processes give jobs of
 *      the same length (measured by simulating them), job_phi the lag-1
 *      correlation of the job means; pos_mean, pos_sd likewise from each
 *      job's mean first-minus-second difference.  boot_sd: a boot is at
 *      least a new job, so job_sd (no boots are seen here).
 * The check prints the real and the fitted figures side by side.
 *
 * Models (--models): iid (one normal per run, of the series' run SD:
 * what the old simulation assumed), fitted, stress (fitted with a
 * position effect of at least 1 %, the jobs' spread doubled (at least
 * 0.5 %), the boots' tripled (at least 1 %), the slow runs doubled), replay (a stationary block bootstrap of the real series,
 * blocks of 25 runs on average: no model at all).
 *
 * Designs (--designs): fixed (repeat 12), adaptive (12..48 under the
 * sequential plan), in the default random order and in the old fixed
 * order A B (interleaved); cross (the comparison of jobs, K A/A jobs of
 * 6 pairs a side, run alternately, through bb_jobcmp_sides: K = 1, 2, 3,
 * 5, and 3 at the run level, the old comparison); boot (a boot job of
 * 3 boot pairs, as bench/boot_aa.sh's real A/A, 6 and 8, of 3 runs after
 * a warm-up, through bb_jobrun_boot_results).  Every job runs through
 * bb_jobrun_exec with a run hook (jobrun.h) that draws the runs from the
 * model.
 *
 * Output: a markdown table per model: false positives of N A/A jobs
 * (verdict faster or slower) with the 95 % Wilson interval, no change,
 * mean runs, power at 1 % and 2 % and the 80 %-power change (B slower by
 * 0.25 % .. 32 %, interpolated on the log scale), from --power-jobs jobs
 * an effect.  It asserts nothing: bench/aa_sim.sh and docs/measurement.md
 * read it against the target (at most alpha + 1.5 points). */
#include <biobench/abstats.h>
#include <biobench/jobcompare.h>
#include <biobench/jobrun.h>
#include <biobench/jobspec.h>

#include "util/rng.h"

#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SIM_MAX_RUNS 4096
#define SIM_CROSS_MAX 5
#define SIM_LAGS 15
#define SIM_MED_WIN 9

/* ---- random numbers -------------------------------------------------- */

static double u01(struct bb_rng *g)
{
	return ((double)(bb_rng_next(g) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(struct bb_rng *g)
{
	double u, v, q;

	do {
		u = 2 * u01(g) - 1;
		v = 2 * u01(g) - 1;
		q = u * u + v * v;
	} while (q >= 1 || q == 0);
	return u * sqrt(-2 * log(q) / q);
}

/* Gamma(shape k, scale 1), Marsaglia and Tsang (k >= 1; k < 1 boosted). */
static double gamma_k(struct bb_rng *g, double k)
{
	double d, c, x, v, u;

	if (k < 1)
		return gamma_k(g, k + 1) * pow(u01(g), 1 / k);
	d = k - 1.0 / 3;
	c = 1 / sqrt(9 * d);
	for (;;) {
		do {
			x = gauss(g);
			v = 1 + c * x;
		} while (v <= 0);
		v = v * v * v;
		u = u01(g);
		if (u < 1 - 0.0331 * x * x * x * x ||
		    log(u) < 0.5 * x * x + d * (1 - v + log(v)))
			return d * v;
	}
}

/* Unit-variance Student t (nu > 2), normal for nu == 0. */
static double student(struct bb_rng *g, double nu)
{
	if (!(nu > 2))
		return gauss(g);
	return gauss(g) / sqrt(2 * gamma_k(g, nu / 2) / nu) * sqrt((nu - 2) / nu);
}

/* ---- real series ----------------------------------------------------- */

/* One job's (or one long A/A job's) runs in time order: logs of the
 * metric and the place of each in its round. */
struct series {
	double *x;
	unsigned char *pos;
	size_t n;
	bool job; /* from calibrate: one of consecutive jobs */
};

struct seriesset {
	struct series *s;
	size_t n, cap;
};

static struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* A job's two variants, round by round, into time order. */
static int series_add(struct seriesset *ss, struct json_object *va,
		      struct json_object *vb, bool job)
{
	struct json_object *xa = jget(va, "values"), *xb = jget(vb, "values");
	struct json_object *pa = jget(va, "positions"), *pb = jget(vb, "positions");
	size_t n;
	struct series *s;

	if (!xa || !xb)
		return -EINVAL;
	n = json_object_array_length(xa);
	if (json_object_array_length(xb) < n)
		n = json_object_array_length(xb);
	if (n < 2)
		return 0;
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? 2 * ss->cap : 64;
		struct series *p = realloc(ss->s, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		ss->s = p;
		ss->cap = cap;
	}
	s = &ss->s[ss->n];
	s->x = malloc(2 * n * sizeof(double));
	s->pos = malloc(2 * n);
	if (!s->x || !s->pos)
		return -ENOMEM;
	s->n = 2 * n;
	s->job = job;
	for (size_t r = 0; r < n; r++) {
		double a = json_object_get_double(json_object_array_get_idx(xa, r));
		double b = json_object_get_double(json_object_array_get_idx(xb, r));
		int p = pa ? json_object_get_int(json_object_array_get_idx(pa, r)) : 0;

		(void)pb;
		if (!(a > 0) || !(b > 0))
			return -EINVAL;
		s->x[2 * r] = log(p ? b : a);
		s->x[2 * r + 1] = log(p ? a : b);
		s->pos[2 * r] = 0;
		s->pos[2 * r + 1] = 1;
	}
	ss->n++;
	return 0;
}

/* The first two variants of an object of variants. */
static int variants2(struct json_object *vars, struct json_object **a,
		     struct json_object **b)
{
	int k = 0;

	*a = *b = NULL;
	json_object_object_foreach(vars, name, v)
	{
		if (!strcmp(name, "seed"))
			continue;
		if (k == 0)
			*a = v;
		else if (k == 1)
			*b = v;
		k++;
	}
	return *a && *b ? 0 : -EINVAL;
}

static int series_load(struct seriesset *ss, const char *path)
{
	struct json_object *d = json_object_from_file(path), *res, *vars;
	struct json_object *a, *b;
	int ret = 0;

	if (!d) {
		fprintf(stderr, "%s: not a JSON file\n", path);
		return -EINVAL;
	}
	if ((res = jget(d, "results"))) {
		/* calibrate --json: each result's jobs, in the order they ran */
		for (size_t i = 0; !ret && i < json_object_array_length(res); i++) {
			struct json_object *jobs =
				jget(json_object_array_get_idx(res, i), "jobs");

			for (size_t k = 0; !ret && jobs && k < json_object_array_length(jobs); k++) {
				ret = variants2(json_object_array_get_idx(jobs, k), &a, &b);
				if (!ret)
					ret = series_add(ss, a, b, true);
			}
		}
	} else if ((vars = jget(d, "variants"))) {
		ret = variants2(vars, &a, &b);
		if (!ret)
			ret = series_add(ss, a, b, false);
	} else {
		ret = -EINVAL;
	}
	if (ret)
		fprintf(stderr, "%s: neither calibrate --json nor ab --json of an "
				"A/A job (%s)\n", path, strerror(-ret));
	json_object_put(d);
	return ret;
}

/* ---- the model --------------------------------------------------------- */

struct model {
	char name[32];
	double sd_white, nu;
	double ar_phi, ar_sd;
	double shift_p, shift_sd;
	double out_p, out_mean;
	double pos_mean, pos_sd;
	double job_sd, job_phi;
	double boot_sd;
	bool iid;                 /* one normal a run of SD sd_white */
	const struct seriesset *replay; /* a block bootstrap of these */
	double block;             /* mean block length, runs */
};

static const struct {
	const char *key;
	size_t off;
} model_keys[] = {
#define MK(f) { #f, offsetof(struct model, f) }
	MK(sd_white), MK(nu), MK(ar_phi), MK(ar_sd), MK(shift_p), MK(shift_sd),
	MK(out_p), MK(out_mean), MK(pos_mean), MK(pos_sd), MK(job_sd),
	MK(job_phi), MK(boot_sd),
#undef MK
};

static double *mfield(struct model *m, size_t k)
{
	return (double *)((char *)m + model_keys[k].off);
}

static struct json_object *model_json(const struct model *m)
{
	struct json_object *o = json_object_new_object();

	for (size_t k = 0; k < sizeof(model_keys) / sizeof(model_keys[0]); k++)
		json_object_object_add(o, model_keys[k].key,
				       json_object_new_double(*mfield((struct model *)m, k)));
	return o;
}

static int model_read(struct model *m, struct json_object *o)
{
	memset(m, 0, sizeof(*m));
	for (size_t k = 0; k < sizeof(model_keys) / sizeof(model_keys[0]); k++) {
		struct json_object *v = jget(o, model_keys[k].key);

		if (!v) {
			fprintf(stderr, "model: %s missing\n", model_keys[k].key);
			return -EINVAL;
		}
		*mfield(m, k) = json_object_get_double(v);
	}
	return 0;
}

/* ---- the generator ----------------------------------------------------- */

struct gen {
	const struct model *m;
	struct bb_rng rng;
	double level, ar, job, boot, pos; /* the processes' state */
	size_t rs, rp;                    /* replay: series, run */
};

static void gen_init(struct gen *g, const struct model *m, uint64_t seed)
{
	memset(g, 0, sizeof(*g));
	g->m = m;
	bb_rng_seed(&g->rng, seed);
	g->level = m->shift_sd * gauss(&g->rng);
	g->ar = m->ar_sd * gauss(&g->rng);
	g->job = m->job_sd * gauss(&g->rng);
}

/* A new job: its offset (drifting from the last job's) and its position
 * effect; a boot job's boots call gen_boot. */
static void gen_job(struct gen *g)
{
	const struct model *m = g->m;

	g->job = m->job_phi * g->job +
		 sqrt(1 - m->job_phi * m->job_phi) * m->job_sd * gauss(&g->rng);
	g->pos = m->pos_mean + m->pos_sd * gauss(&g->rng);
	g->boot = 0;
	if (m->replay) {
		g->rs = (size_t)bb_rng_below(&g->rng, m->replay->n);
		g->rp = (size_t)bb_rng_below(&g->rng, m->replay->s[g->rs].n);
	}
}

static void gen_boot(struct gen *g)
{
	gen_job(g);
	g->boot = g->m->boot_sd * gauss(&g->rng);
}

/* The next run's log metric (the host's noise only), at place pos in its
 * round. */
static double gen_next(struct gen *g, unsigned pos)
{
	const struct model *m = g->m;
	double x;

	if (m->replay) {
		const struct series *s = &m->replay->s[g->rs];

		x = s->x[g->rp];
		if (++g->rp == s->n || u01(&g->rng) < 1 / m->block) {
			g->rs = (size_t)bb_rng_below(&g->rng, m->replay->n);
			g->rp = (size_t)bb_rng_below(&g->rng, m->replay->s[g->rs].n);
		}
		return x + g->boot;
	}
	if (m->iid)
		return m->sd_white * gauss(&g->rng);
	if (u01(&g->rng) < m->shift_p)
		g->level = m->shift_sd * gauss(&g->rng);
	g->ar = m->ar_phi * g->ar + sqrt(1 - m->ar_phi * m->ar_phi) * m->ar_sd *
					    student(&g->rng, m->nu);
	x = g->job + g->boot + g->level + g->ar +
	    m->sd_white * student(&g->rng, m->nu);
	if (m->out_p > 0 && u01(&g->rng) < m->out_p)
		x -= m->out_mean * -log(u01(&g->rng));
	if (pos == 0)
		x += g->pos;
	return x;
}

/* ---- jobs through the job runner ---------------------------------------- */

struct sim {
	struct gen *g;
	double effect;     /* log of (1 + change), added to runs of ... */
	int effect_var;    /* ... this variant (-1: every run) */
};

static int sim_run(void *arg, struct bb_jobrun *jr, const struct bb_job_step *st,
		   const struct bb_config *cfg, struct bb_result *r, char *err,
		   size_t errlen)
{
	struct sim *sm = arg;
	double x = gen_next(sm->g, st->pos);

	(void)jr;
	(void)cfg;
	(void)err;
	(void)errlen;
	if (sm->effect_var < 0 || (unsigned)sm->effect_var == st->variant)
		x += sm->effect;
	r->duration_ns = 1000000000ull;
	r->io.ios = (uint64_t)llround(1e6 * exp(x));
	return 0;
}

static int parse_job(const char *text, struct bb_job *job)
{
	struct bb_job_errors e;
	int ret = bb_job_parse_string(job, text, strlen(text), &e);

	for (unsigned i = 0; ret && i < e.n && i < BB_JOB_MAX_ERRORS; i++)
		fprintf(stderr, "job: %s\n", e.msg[i]);
	return ret;
}

/* One job of a paired design: its verdict, *runs its measured rounds;
 * the order of the runs drawn afresh (a seed per job). */
static enum bb_ab_verdict job_once(struct bb_job *job, const struct bb_ab_seq *plan,
				   struct sim *sm, unsigned *rounds)
{
	const struct bb_jobrun_ops ops = { .run = sim_run };
	struct bb_jobrun jr;
	enum bb_ab_verdict v = BB_AB_INCONCLUSIVE;
	char err[256];

	job->seed = bb_rng_next(&sm->g->rng) & (uint64_t)INT64_MAX;
	gen_job(sm->g);
	if (bb_jobrun_init_plan(&jr, job, NULL, plan) ||
	    bb_jobrun_exec(&jr, &ops, sm, err, sizeof(err))) {
		fprintf(stderr, "sim: a job failed: %s\n", err);
		exit(1);
	}
	if (jr.have_cmp && !jr.cmp_ret[1])
		v = jr.cmp[1].verdict;
	*rounds = jr.vs[0].n;
	bb_jobrun_free(&jr);
	return v;
}

/* A job document and its runs as the store gives them, for
 * bb_jobcmp_sides: an A/A job's A and A2 runs, one boot. */
static void cross_doc(int64_t id, const struct bb_jobrun *jr,
		      struct bb_jobcmp_job *out)
{
	struct json_object *job = json_object_new_object();
	struct json_object *runs = json_object_new_array(), *wrap;
	int seq = 0;

	json_object_object_add(job, "id", json_object_new_int64(id));
	json_object_object_add(job, "name", json_object_new_string("sim"));
	json_object_object_add(job, "state", json_object_new_string("done"));
	json_object_object_add(job, "spec", json_object_get(jr->job->spec));
	wrap = json_object_new_object();
	json_object_object_add(wrap, "boot_id", json_object_new_string("sim-boot"));
	json_object_object_add(job, "host", wrap);
	for (unsigned v = 0; v < 2; v++)
		for (unsigned k = 0; k < jr->vs[v].n; k++) {
			struct json_object *r = json_object_new_object();

			json_object_object_add(r, "seq", json_object_new_int(seq++));
			json_object_object_add(r, "variant",
					       json_object_new_string(jr->job->v[v].name));
			json_object_object_add(r, "warmup", json_object_new_boolean(false));
			json_object_object_add(r, "state", json_object_new_string("done"));
			json_object_object_add(r, "metric",
					       json_object_new_double(jr->vs[v].vals[k]));
			json_object_object_add(r, "result", json_object_new_object());
			json_object_array_add(runs, r);
		}
	wrap = json_object_new_object();
	json_object_object_add(wrap, "runs", runs);
	out->job = job;
	out->runs = wrap;
}

/* One comparison of k A/A jobs a side (run alternately), the other side's
 * jobs slowed by sm->effect; level unit or run. */
static enum bb_ab_verdict cross_once(struct bb_job *job, unsigned k, bool runs,
				     struct sim *sm, unsigned *nruns)
{
	const struct bb_jobrun_ops ops = { .run = sim_run };
	struct bb_jobcmp_job jobs[2 * SIM_CROSS_MAX];
	struct bb_jobcmp_side base, other;
	struct bb_jobcmp_opts opts = { .level = runs ? BB_JOBCMP_LEVEL_RUN :
						       BB_JOBCMP_LEVEL_UNIT };
	struct bb_jobcmp_error e;
	struct json_object *doc = NULL, *c;
	enum bb_ab_verdict v = BB_AB_INCONCLUSIVE;
	double effect = sm->effect;
	char err[256];

	*nruns = 0;
	for (unsigned i = 0; i < 2 * k; i++) {
		struct bb_jobrun jr;

		/* base side 0, 2, 4 ...; the other 1, 3, 5 ... */
		sm->effect = i % 2 ? effect : 0;
		sm->effect_var = -1;
		job->seed = bb_rng_next(&sm->g->rng) & (uint64_t)INT64_MAX;
		gen_job(sm->g);
		if (bb_jobrun_init(&jr, job, NULL) ||
		    bb_jobrun_exec(&jr, &ops, sm, err, sizeof(err))) {
			fprintf(stderr, "sim: a job failed: %s\n", err);
			exit(1);
		}
		*nruns += jr.vs[0].n + jr.vs[1].n;
		cross_doc(i + 1, &jr, &jobs[i % 2 ? k + i / 2 : i / 2]);
		bb_jobrun_free(&jr);
	}
	sm->effect = effect;
	base = (struct bb_jobcmp_side){ jobs, k };
	other = (struct bb_jobcmp_side){ jobs + k, k };
	if (bb_jobcmp_sides(&base, &other, 1, &opts, &doc, &e)) {
		fprintf(stderr, "sim: compare: %s\n", e.msg);
		exit(1);
	}
	c = json_object_array_get_idx(jget(doc, "comparisons"), 0);
	if (jget(c, "verdict")) {
		const char *s = json_object_get_string(jget(c, "verdict"));

		v = !strcmp(s, "faster") ? BB_AB_FASTER :
		    !strcmp(s, "slower") ? BB_AB_SLOWER :
		    !strcmp(s, "no_change") ? BB_AB_NO_CHANGE : BB_AB_INCONCLUSIVE;
	}
	json_object_put(doc);
	for (unsigned i = 0; i < 2 * k; i++) {
		json_object_put(jobs[i].job);
		json_object_put(jobs[i].runs);
	}
	return v;
}

/* One boot job: boots in pairs in its order, warm-up runs discarded,
 * through the boot statistics of the daemon. */
static enum bb_ab_verdict boot_once(struct bb_job *job, struct sim *sm,
				    unsigned *nruns)
{
	struct bb_jobrun_boot_run runs[SIM_MAX_RUNS];
	struct bb_jobrun jr;
	unsigned nb = job->boots * job->nvariants;
	size_t n = 0;
	enum bb_ab_verdict v = BB_AB_INCONCLUSIVE;

	job->seed = bb_rng_next(&sm->g->rng) & (uint64_t)INT64_MAX;
	if (bb_jobrun_init(&jr, job, NULL))
		exit(1);
	for (unsigned b = 0; b < nb; b++) {
		unsigned var = bb_job_boot_variant(job, b);

		gen_boot(sm->g);
		for (unsigned w = 0; w < job->warmup; w++)
			(void)gen_next(sm->g, 1);
		for (unsigned r = 0; r < job->repeat && n < SIM_MAX_RUNS; r++) {
			double x = gen_next(sm->g, 1);

			if (var == 1)
				x += sm->effect;
			runs[n++] = (struct bb_jobrun_boot_run){
				.variant = var, .boot = b, .value = 1e6 * exp(x),
				.sec_var = NAN, .seconds = 1 };
		}
	}
	if (bb_jobrun_boot_results(&jr, runs, n))
		exit(1);
	if (jr.have_cmp && !jr.cmp_ret[1])
		v = jr.cmp[1].verdict;
	*nruns = (unsigned)n;
	bb_jobrun_free(&jr);
	return v;
}

/* ---- designs ----------------------------------------------------------- */

enum kind { K_PAIRED, K_CROSS, K_BOOT };

struct design {
	const char *name, *group;
	enum kind kind;
	const char *spec;  /* the job (paired, cross) or boot job */
	unsigned k;        /* cross: jobs a side */
	bool runs;         /* cross: run level */
	struct bb_job job;
	struct bb_ab_seq *plan;
};

#define AA_SPEC(extra)                                                          \
	"{\"name\":\"sim\",\"target\":\"nop\",\"aa\":true,\"warmup\":1,"        \
	"\"quiescence\":{\"mode\":\"off\"}," extra "}"
#define BOOT_SPEC(boots)                                                        \
	"{\"name\":\"sim boot\",\"target\":\"nop\",\"warmup\":1,\"repeat\":3,"  \
	"\"boots\":" #boots ",\"quiescence\":{\"mode\":\"off\"},"               \
	"\"variants\":{\"A\":{\"boot\":{\"kernel\":\"%s/vmlinuz-a\"}},"        \
	"\"B\":{\"boot\":{\"kernel\":\"%s/vmlinuz-b\"}}}}"

#define D(n, g, kd, sp, kk, rl) \
	{ .name = (n), .group = (g), .kind = (kd), .spec = (sp), .k = (kk), .runs = (rl) }
static struct design designs[] = {
	D("fixed 12 pairs, random order", "fixed", K_PAIRED,
	  AA_SPEC("\"repeat\":12"), 0, false),
	D("fixed 12 pairs, A first (interleaved)", "fixed", K_PAIRED,
	  AA_SPEC("\"repeat\":12,\"order\":\"interleaved\""), 0, false),
	D("adaptive 12..48 pairs, random order", "adaptive", K_PAIRED,
	  AA_SPEC("\"repeat\":12,\"max_repeat\":48"), 0, false),
	D("adaptive 12..48 pairs, A first (interleaved)", "adaptive", K_PAIRED,
	  AA_SPEC("\"repeat\":12,\"max_repeat\":48,\"order\":\"interleaved\""), 0,
	  false),
	D("cross-job 1+1 jobs", "cross", K_CROSS, AA_SPEC("\"repeat\":6"), 1, false),
	D("cross-job 2+2 jobs", "cross", K_CROSS, AA_SPEC("\"repeat\":6"), 2, false),
	D("cross-job 3+3 jobs", "cross", K_CROSS, AA_SPEC("\"repeat\":6"), 3, false),
	D("cross-job 5+5 jobs", "cross", K_CROSS, AA_SPEC("\"repeat\":6"), 5, false),
	D("cross-job 3+3 jobs, run level (the old comparison)", "cross", K_CROSS,
	  AA_SPEC("\"repeat\":6"), 3, true),
	D("boot-interleaved 3 boot pairs", "boot", K_BOOT, BOOT_SPEC(3), 0, false),
	D("boot-interleaved 6 boot pairs", "boot", K_BOOT, BOOT_SPEC(6), 0, false),
	D("boot-interleaved 8 boot pairs", "boot", K_BOOT, BOOT_SPEC(8), 0, false),
};
#undef D
#define NDESIGNS (sizeof(designs) / sizeof(designs[0]))

static int design_setup(struct design *d, const char *kdir)
{
	char spec[1024];

	if (d->kind == K_BOOT)
		snprintf(spec, sizeof(spec), d->spec, kdir, kdir);
	else
		snprintf(spec, sizeof(spec), "%s", d->spec);
	if (parse_job(spec, &d->job))
		return -EINVAL;
	if (d->job.max_repeat > d->job.repeat)
		return bb_ab_seq_create(&d->plan, d->job.repeat, d->job.max_repeat,
					d->job.confidence);
	return 0;
}

/* One job of the design: verdict and runs (measured). */
static enum bb_ab_verdict design_once(struct design *d, struct sim *sm,
				      unsigned *runs)
{
	unsigned rounds;
	enum bb_ab_verdict v;

	switch (d->kind) {
	case K_PAIRED:
		sm->effect_var = 1;
		v = job_once(&d->job, d->plan, sm, &rounds);
		*runs = 2 * rounds;
		return v;
	case K_CROSS:
		return cross_once(&d->job, d->k, d->runs, sm, runs);
	case K_BOOT:
		return boot_once(&d->job, sm, runs);
	}
	return BB_AB_INCONCLUSIVE;
}

struct tally {
	unsigned jobs, faster, slower, nochange;
	double runs;
};

static void tally_run(struct design *d, const struct model *m, double change,
		      unsigned jobs, uint64_t seed, struct tally *t)
{
	struct gen g;
	struct sim sm = { .g = &g, .effect = log1p(change), .effect_var = 1 };

	memset(t, 0, sizeof(*t));
	gen_init(&g, m, seed);
	for (unsigned j = 0; j < jobs; j++) {
		unsigned runs = 0;
		enum bb_ab_verdict v = design_once(d, &sm, &runs);

		t->faster += v == BB_AB_FASTER;
		t->slower += v == BB_AB_SLOWER;
		t->nochange += v == BB_AB_NO_CHANGE;
		t->runs += runs;
	}
	t->jobs = jobs;
	t->runs /= jobs;
}

static void wilson(unsigned k, unsigned n, double *lo, double *hi)
{
	const double z = 1.959963984540054;
	double p = (double)k / n, z2 = z * z;
	double c = (p + z2 / (2 * n)) / (1 + z2 / n);
	double w = z * sqrt(p * (1 - p) / n + z2 / (4.0 * n * n)) / (1 + z2 / n);

	*lo = c - w;
	*hi = c + w;
}

static const double effects[] = { 0.0025, 0.005, 0.01, 0.02, 0.04, 0.08,
				   0.16, 0.32 };
#define NEFFECTS (sizeof(effects) / sizeof(effects[0]))

static void pct(char *buf, size_t len, double v)
{
	snprintf(buf, len, "%.0f%%", 100 * v);
}

static void run_model(const struct model *m, unsigned jobs, unsigned pjobs,
		      uint64_t seed, const char *only)
{
	printf("\n### noise model: %s\n\n", m->name);
	printf("| design | A/A jobs | false positives (95%% Wilson) | no change "
	       "(A/A) | mean runs (A/A) | power 1%% | power 2%% | 80%% power at |\n");
	printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
	for (size_t di = 0; di < NDESIGNS; di++) {
		struct design *d = &designs[di];
		struct tally t;
		double lo, hi, pw[NEFFECTS], mde = NAN;
		char mdes[32], p1[16], p2[16];

		if (only && !strstr(only, d->group))
			continue;
		tally_run(d, m, 0, jobs, seed + 7919 * di, &t);
		wilson(t.faster + t.slower, t.jobs, &lo, &hi);
		/* B slower by each effect: all up to 2 %, then until 80 % */
		for (size_t e = 0; e < NEFFECTS; e++) {
			struct tally p;

			pw[e] = NAN;
			if (e > 3 && !isnan(mde))
				continue;
			tally_run(d, m, -effects[e], pjobs,
				  seed + 104729 * (e + 1) + di, &p);
			pw[e] = (double)p.slower / p.jobs;
			if (isnan(mde) && pw[e] >= 0.8) {
				if (!e || pw[e - 1] >= 0.8) {
					mde = effects[e];
				} else {
					double f = (0.8 - pw[e - 1]) / (pw[e] - pw[e - 1]);

					mde = exp(log(effects[e - 1]) +
						  f * (log(effects[e]) - log(effects[e - 1])));
				}
			}
		}
		if (isnan(mde))
			snprintf(mdes, sizeof(mdes), "> %.0f%%", 100 * effects[NEFFECTS - 1]);
		else if (mde <= effects[0])
			snprintf(mdes, sizeof(mdes), "<= %.2g%%", 100 * effects[0]);
		else
			snprintf(mdes, sizeof(mdes), "%.2g%%", 100 * mde);
		if (getenv("AA_SIM_CURVE")) {
			fprintf(stderr, "%s:", d->name);
			for (size_t e = 0; e < NEFFECTS; e++)
				fprintf(stderr, " %.2g%%=%.2f", 100 * effects[e], pw[e]);
			fprintf(stderr, "\n");
		}
		pct(p1, sizeof(p1), pw[2]);
		pct(p2, sizeof(p2), pw[3]);
		printf("| %s | %u | %.2f%% (%.2f..%.2f%%) | %.1f%% | %.1f | %s | %s | %s |\n",
		       d->name, t.jobs, 100.0 * (t.faster + t.slower) / t.jobs,
		       100 * lo, 100 * hi, 100.0 * t.nochange / t.jobs, t.runs,
		       p1, p2, mdes);
		fflush(stdout);
	}
}

/* ---- the fit ------------------------------------------------------------ */

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The running median of s (window SIM_MED_WIN, shorter at the ends). */
static void running_median(const struct series *s, double *med)
{
	double w[SIM_MED_WIN];

	for (size_t t = 0; t < s->n; t++) {
		size_t a = t >= SIM_MED_WIN / 2 ? t - SIM_MED_WIN / 2 : 0;
		size_t b = t + SIM_MED_WIN / 2 + 1 < s->n ? t + SIM_MED_WIN / 2 + 1 : s->n;
		size_t k = 0;

		for (size_t i = a; i < b; i++)
			w[k++] = s->x[i];
		med[t] = median_of(w, k);
	}
}

/* Figures of a set of series, real or simulated, to fit and to check:
 * the pooled within-series SD of the runs, the SD of a round's
 * first-minus-second difference, autocorrelations, and of the job
 * series (consecutive jobs) the variance of their means and of their mean
 * first-minus-second differences, and the lag-1 correlation of the means. */
struct figs {
	double run_sd, diff_sd, acf[SIM_LAGS + 1];
	double var_means, var_contrast, mean_contrast, phi_means;
	size_t njobs;
};

static void figures(const struct seriesset *ss, bool long_only, struct figs *f)
{
	double ss0 = 0, dsum = 0, dss = 0, nd = 0, gam[SIM_LAGS + 1] = { 0 };
	double cnt[SIM_LAGS + 1] = { 0 }, nrun = 0;
	double *means = malloc((ss->n + 1) * sizeof(double));
	double *contr = malloc((ss->n + 1) * sizeof(double));
	size_t nj = 0, maxn = 0;

	memset(f, 0, sizeof(*f));
	for (size_t i = 0; i < ss->n; i++)
		maxn = ss->s[i].n > maxn ? ss->s[i].n : maxn;
	for (size_t i = 0; i < ss->n; i++) {
		const struct series *s = &ss->s[i];
		double mean = 0, c = 0;

		for (size_t t = 0; t < s->n; t++)
			mean += s->x[t];
		mean /= (double)s->n;
		for (size_t t = 0; t < s->n; t++)
			ss0 += (s->x[t] - mean) * (s->x[t] - mean);
		nrun += (double)s->n - 1;
		for (size_t r = 0; r + 1 < s->n; r += 2) {
			double d = s->x[r] - s->x[r + 1];

			dsum += d;
			dss += d * d;
			nd++;
			c += d;
		}
		if (s->job) {
			means[nj] = mean;
			contr[nj++] = c / (double)(s->n / 2);
		}
		/* the autocovariance from the long series only, when asked
		 * (short ones are centred on too little) */
		if (long_only && maxn >= 200 && s->n < 200)
			continue;
		for (size_t k = 0; k <= SIM_LAGS && k < s->n; k++)
			for (size_t t = 0; t + k < s->n; t++) {
				gam[k] += (s->x[t] - mean) * (s->x[t + k] - mean);
				cnt[k]++;
			}
	}
	f->run_sd = nrun > 0 ? sqrt(ss0 / nrun) : NAN;
	f->diff_sd = nd > 1 ? sqrt((dss - dsum * dsum / nd) / (nd - 1)) : NAN;
	for (size_t k = 0; k <= SIM_LAGS; k++)
		f->acf[k] = cnt[k] ? gam[k] / cnt[k] : NAN;
	f->njobs = nj;
	if (nj >= 3) {
		double mm = 0, mc = 0, vm = 0, vc = 0, c1 = 0;

		for (size_t j = 0; j < nj; j++) {
			mm += means[j] / (double)nj;
			mc += contr[j] / (double)nj;
		}
		for (size_t j = 0; j < nj; j++) {
			vm += (means[j] - mm) * (means[j] - mm) / (double)(nj - 1);
			vc += (contr[j] - mc) * (contr[j] - mc) / (double)(nj - 1);
			if (j)
				c1 += (means[j] - mm) * (means[j - 1] - mm);
		}
		f->var_means = vm;
		f->var_contrast = vc;
		f->mean_contrast = mc;
		f->phi_means = vm > 0 ? c1 / (double)(nj - 1) / vm : 0;
	}
	free(means);
	free(contr);
}

/* Series like ss's (same count, lengths and kinds, in order) drawn from
 * model m. */
static int simulate_like(const struct seriesset *ss, const struct model *m,
			 uint64_t seed, struct seriesset *out)
{
	struct gen g;

	gen_init(&g, m, seed);
	out->n = 0;
	out->s = calloc(ss->n ? ss->n : 1, sizeof(*out->s));
	if (!out->s)
		return -ENOMEM;
	for (size_t i = 0; i < ss->n; i++) {
		struct series *s = &out->s[i];

		s->n = ss->s[i].n;
		s->job = ss->s[i].job;
		s->x = malloc(s->n * sizeof(double));
		s->pos = malloc(s->n);
		if (!s->x || !s->pos)
			return -ENOMEM;
		gen_job(&g);
		for (size_t t = 0; t < s->n; t++) {
			s->pos[t] = t % 2;
			s->x[t] = gen_next(&g, s->pos[t]);
		}
		out->n++;
	}
	return 0;
}

static void series_free(struct seriesset *ss)
{
	for (size_t i = 0; i < ss->n; i++) {
		free(ss->s[i].x);
		free(ss->s[i].pos);
	}
	free(ss->s);
	memset(ss, 0, sizeof(*ss));
}

/* The mean of the figures of `reps` simulated sets like ss. */
static void figures_sim(const struct seriesset *ss, const struct model *m,
			unsigned reps, bool long_only, struct figs *f)
{
	struct figs one;

	memset(f, 0, sizeof(*f));
	for (unsigned r = 0; r < reps; r++) {
		struct seriesset sim = { 0 };

		if (simulate_like(ss, m, 1000 + r, &sim))
			exit(1);
		figures(&sim, long_only, &one);
		f->run_sd += one.run_sd / reps;
		f->diff_sd += one.diff_sd / reps;
		for (size_t k = 0; k <= SIM_LAGS; k++)
			f->acf[k] += one.acf[k] / reps;
		f->var_means += one.var_means / reps;
		f->var_contrast += one.var_contrast / reps;
		f->mean_contrast += one.mean_contrast / reps;
		f->phi_means += one.phi_means / reps;
		f->njobs = one.njobs;
		series_free(&sim);
	}
}

static int fit(const struct seriesset *ss, struct model *m)
{
	struct seriesset clean = { 0 };
	struct figs real, cl, sim;
	double nout = 0, sout = 0, nrun = 0, m2 = 0, m4 = 0, nres = 0;
	double best = INFINITY;
	static const double lams[] = { 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02,
				       0.05, 0.1, 0.2, 0.5 };

	memset(m, 0, sizeof(*m));
	snprintf(m->name, sizeof(m->name), "fitted");
	clean.s = calloc(ss->n, sizeof(*clean.s));
	if (!clean.s)
		return -ENOMEM;
	/* 1. slow runs against the running median; 3. the tails */
	for (size_t i = 0; i < ss->n; i++) {
		const struct series *s = &ss->s[i];
		struct series *c = &clean.s[clean.n++];
		double *med = malloc(s->n * sizeof(double));
		double *ad = malloc(s->n * sizeof(double)), sd;

		c->x = malloc(s->n * sizeof(double));
		c->pos = malloc(s->n);
		if (!med || !ad || !c->x || !c->pos)
			return -ENOMEM;
		c->n = s->n;
		c->job = s->job;
		memcpy(c->pos, s->pos, s->n);
		running_median(s, med);
		for (size_t t = 0; t < s->n; t++)
			ad[t] = fabs(s->x[t] - med[t]);
		sd = 1.4826 * median_of(ad, s->n);
		for (size_t t = 0; t < s->n; t++) {
			double r = s->x[t] - med[t];

			nrun++;
			/* an isolated slow run, not the start of a slower
			 * regime: below its running median and below both
			 * neighbours */
			if (sd > 0 && r < -5 * sd &&
			    (t == 0 || s->x[t] < s->x[t - 1] - 3 * sd) &&
			    (t + 1 == s->n || s->x[t] < s->x[t + 1] - 3 * sd)) {
				nout++;
				sout += -r;
				c->x[t] = med[t];
				continue;
			}
			c->x[t] = s->x[t];
			m2 += r * r;
			m4 += r * r * r * r;
			nres++;
		}
		free(med);
		free(ad);
	}
	m->out_p = nrun ? nout / nrun : 0;
	m->out_mean = nout ? sout / nout : 0;
	{
		double k = nres && m2 > 0 ? (m4 / nres) / ((m2 / nres) * (m2 / nres)) : 3;

		m->nu = k > 3.2 ? 4 + 6 / (k - 3) : 0;
		if (m->nu > 50)
			m->nu = 0;
		else if (m->nu && m->nu < 4.2)
			m->nu = 4.2;
		printf("fit: %.0f runs in %zu series, %.0f slow outliers (%.3f%%, "
		       "mean %.2f%%), kurtosis of the rest %.2f: nu %.1f\n",
		       nrun, ss->n, nout, 100 * m->out_p, 100 * expm1(m->out_mean), k,
		       m->nu);
	}
	/* 2. the variogram V(k) = E (x[t+k] - x[t])^2 / 2 of the series
	 * with the slow runs taken out (they are a process of their own; no
	 * mean to take out, so short series count as much as long ones)
	 * at lags 1..10, 15, 20, 30, 50, 75, 100, 150, 200 (the long ones
	 * from the long series: regimes last that long): W + Vo +
	 * A (1 - phi^k) + S (1 - (1-p)^k), white, slow runs, AR(1) and level
	 * shifts; a grid over p and phi, for each every subset of the three
	 * variances by least squares, the best non-negative one */
	{
		static const int lag[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 15, 20,
					   30, 50, 75, 100, 150, 200 };
		enum { NL = sizeof(lag) / sizeof(lag[0]) };
		double V[NL] = { 0 }, cnt[NL] = { 0 };
		int nl = 0;

		for (size_t i = 0; i < clean.n; i++) {
			const struct series *sr = &clean.s[i];

			for (int l = 0; l < NL; l++)
				for (size_t t = 0; t + (size_t)lag[l] < sr->n; t++) {
					double d = sr->x[t + lag[l]] - sr->x[t];

					V[l] += d * d / 2;
					cnt[l]++;
				}
		}
		for (int l = 0; l < NL; l++)
			if (cnt[l] >= 50) {
				V[l] /= cnt[l];
				nl = l + 1;
			}
		for (size_t li = 0; li < sizeof(lams) / sizeof(lams[0]); li++)
			for (int pi = 0; pi <= 9; pi++) {
				double lam = lams[li], phi = pi / 10.0;
				double sol[3] = { 0 }, sse = INFINITY;

				for (int mask = 1; mask < 8; mask++) {
					double G[3][3] = { { 0 } }, r[3] = { 0 }, x[3] = { 0 };
					int idx[3], nk = 0;
					double e = 0;
					bool ok = true;

					for (int c = 0; c < 3; c++)
						if (mask & (1 << c))
							idx[nk++] = c;
					for (int l = 0; l < nl; l++) {
						double col[3] = { 1, 1 - pow(phi, lag[l]),
								  1 - pow(1 - lam, lag[l]) };

						for (int u = 0; u < nk; u++) {
							r[u] += col[idx[u]] * V[l];
							for (int w = 0; w < nk; w++)
								G[u][w] += col[idx[u]] * col[idx[w]];
						}
					}
					/* Gauss-Jordan on the small system */
					for (int u = 0; u < nk && ok; u++) {
						double piv = G[u][u];

						if (fabs(piv) < 1e-15) {
							ok = false;
							break;
						}
						for (int w = 0; w < nk; w++)
							G[u][w] /= piv;
						r[u] /= piv;
						for (int q = 0; q < nk; q++) {
							double f = G[q][u];

							if (q == u)
								continue;
							for (int w = 0; w < nk; w++)
								G[q][w] -= f * G[u][w];
							r[q] -= f * r[u];
						}
					}
					for (int u = 0; u < nk && ok; u++) {
						x[idx[u]] = r[u];
						ok = r[u] >= 0;
					}
					if (!ok)
						continue;
					for (int l = 0; l < nl; l++) {
						double f = x[0] + x[1] * (1 - pow(phi, lag[l])) +
							   x[2] * (1 - pow(1 - lam, lag[l]));

						e += (V[l] - f) * (V[l] - f);
					}
					if (e < sse) {
						sse = e;
						memcpy(sol, x, sizeof(sol));
					}
				}
				if (sse < best) {
					best = sse;
					m->shift_p = lam;
					m->ar_phi = phi;
					m->sd_white = sol[0];
					m->ar_sd = sol[1];
					m->shift_sd = sol[2];
				}
			}
		m->sd_white = sqrt(m->sd_white);
		m->ar_sd = sqrt(m->ar_sd);
		m->shift_sd = sqrt(m->shift_sd);
		printf("fit: variogram (lags 1..%d, %zu series): level shifts p "
		       "%.4f SD %.2f%%, AR(1) phi %.1f SD %.2f%%, white SD %.2f%% "
		       "(V(1) %.3g, V(%d) %.3g, in %%^2)\n",
		       lag[nl - 1], clean.n, m->shift_p, 100 * m->shift_sd, m->ar_phi,
		       100 * m->ar_sd, 100 * m->sd_white, 1e4 * V[0], lag[nl - 1],
		       1e4 * V[nl - 1]);
	}
	(void)cl;
	/* 4. between jobs and the position effect, beyond the processes */
	figures(ss, true, &real);
	if (real.njobs >= 3) {
		figures_sim(ss, m, 200, true, &sim);
		m->job_sd = sqrt(fmax(0, real.var_means - sim.var_means));
		m->job_phi = fmax(0, fmin(0.95, real.phi_means - sim.phi_means));
		m->pos_mean = real.mean_contrast;
		m->pos_sd = sqrt(fmax(0, real.var_contrast - sim.var_contrast));
		printf("fit: %zu consecutive jobs: SD of their means %.2f%% (the "
		       "processes alone give %.2f%%): job_sd %.2f%%, job_phi %.2f; "
		       "first-minus-second %.2f%% +- SD %.2f%% (alone %.2f%%): "
		       "pos_sd %.2f%%\n",
		       real.njobs, 100 * sqrt(real.var_means), 100 * sqrt(sim.var_means),
		       100 * m->job_sd, m->job_phi, 100 * m->pos_mean,
		       100 * sqrt(real.var_contrast), 100 * sqrt(sim.var_contrast),
		       100 * m->pos_sd);
	} else {
		printf("fit: no series of consecutive jobs (biobench calibrate "
		       "--json): job_sd and pos_sd left 0\n");
	}
	m->boot_sd = m->job_sd;
	series_free(&clean);
	return 0;
}

static void check(const struct seriesset *ss, const struct model *m)
{
	struct figs real, sim;

	figures(ss, true, &real);
	figures_sim(ss, m, 50, true, &sim);
	printf("\n| figure | real series | fitted model (mean of 50 sets like them) |\n");
	printf("| --- | --- | --- |\n");
	printf("| SD of a run within its series | %.2f%% | %.2f%% |\n",
	       100 * real.run_sd, 100 * sim.run_sd);
	printf("| SD of a round's first-minus-second difference | %.2f%% | %.2f%% |\n",
	       100 * real.diff_sd, 100 * sim.diff_sd);
	for (int k = 1; k <= 10; k += k < 3 ? 1 : k < 5 ? 2 : 5)
		printf("| autocorrelation at lag %d | %.3f | %.3f |\n", k,
		       real.acf[k] / real.acf[0], sim.acf[k] / sim.acf[0]);
	if (real.njobs >= 3) {
		printf("| SD of the %zu jobs' means | %.2f%% | %.2f%% |\n", real.njobs,
		       100 * sqrt(real.var_means), 100 * sqrt(sim.var_means));
		printf("| SD of the jobs' first-minus-second | %.2f%% | %.2f%% |\n",
		       100 * sqrt(real.var_contrast), 100 * sqrt(sim.var_contrast));
		printf("| lag-1 correlation of consecutive jobs' means | %.2f | %.2f |\n",
		       real.phi_means, sim.phi_means);
	}
}

/* ---- main ---------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"usage: bench_aa_sim fit [--out MODEL.json] SERIES.json...\n"
		"       bench_aa_sim run --model MODEL.json [--jobs N] [--power-jobs N]\n"
		"                        [--seed S] [--models iid,fitted,stress,replay]\n"
		"                        [--designs fixed,adaptive,cross,boot]\n"
		"                        [--boot-sd PCT] [--scale F]\n"
		"  --boot-sd PCT  the boots' spread instead of the model's (e.g. the\n"
		"                 between-boot spread bench/boot_aa.sh measured)\n"
		"  --scale F      every spread of the model times F (the host's\n"
		"                 structure at another noise level)\n");
}

static int load_all(struct seriesset *ss, char **files, int n)
{
	for (int i = 0; i < n; i++)
		if (series_load(ss, files[i]))
			return -EINVAL;
	if (!ss->n) {
		fprintf(stderr, "no series\n");
		return -EINVAL;
	}
	return 0;
}

static int cmd_fit(int argc, char **argv)
{
	struct seriesset ss = { 0 };
	struct model m;
	const char *out = NULL;
	struct json_object *doc, *files;
	int first = 2;

	if (argc > 3 && !strcmp(argv[2], "--out")) {
		out = argv[3];
		first = 4;
	}
	if (first >= argc || load_all(&ss, argv + first, argc - first)) {
		usage();
		return 2;
	}
	if (fit(&ss, &m))
		return 1;
	check(&ss, &m);
	doc = json_object_new_object();
	json_object_object_add(doc, "model", model_json(&m));
	files = json_object_new_array();
	for (int i = first; i < argc; i++)
		json_object_array_add(files, json_object_new_string(argv[i]));
	json_object_object_add(doc, "series", files);
	if (out && json_object_to_file_ext(out, doc, JSON_C_TO_STRING_PRETTY)) {
		fprintf(stderr, "%s: cannot write\n", out);
		return 1;
	}
	printf("\nmodel: %s\n", json_object_to_json_string_ext(jget(doc, "model"),
								JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	series_free(&ss);
	return 0;
}

static int cmd_run(int argc, char **argv)
{
	const char *mfile = NULL, *models = "iid,fitted,stress,replay", *only = NULL;
	unsigned jobs = 4000, pjobs = 1000;
	uint64_t seed = 20261207;
	double boot_sd = -1, scale = -1;
	struct json_object *doc, *files;
	struct seriesset ss = { 0 };
	struct model fitted, m;
	char kdir[] = "/tmp/bb-aa-sim.XXXXXX", path[64];
	int ret = 0;

	for (int i = 2; i < argc; i += 2) { /* --option VALUE pairs */
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!v) {
			usage();
			return 2;
		}
		if (!strcmp(argv[i], "--model"))
			mfile = v;
		else if (!strcmp(argv[i], "--jobs"))
			jobs = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "--power-jobs"))
			pjobs = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoull(v, NULL, 10);
		else if (!strcmp(argv[i], "--models"))
			models = v;
		else if (!strcmp(argv[i], "--designs"))
			only = v;
		else if (!strcmp(argv[i], "--boot-sd"))
			boot_sd = strtod(v, NULL) / 100;
		else if (!strcmp(argv[i], "--scale"))
			scale = strtod(v, NULL);
		else {
			usage();
			return 2;
		}
	}
	if (!mfile || !jobs || !pjobs || !(doc = json_object_from_file(mfile)) ||
	    model_read(&fitted, jget(doc, "model")) ||
	    (boot_sd != -1 && !(boot_sd >= 0 && boot_sd < 1)) ||
	    (scale != -1 && !(scale > 0 && scale <= 100))) {
		usage();
		return 2;
	}
	if (scale > 0) {
		const double f = scale;

		fitted.sd_white *= f;
		fitted.ar_sd *= f;
		fitted.shift_sd *= f;
		fitted.out_mean *= f;
		fitted.pos_mean *= f;
		fitted.pos_sd *= f;
		fitted.job_sd *= f;
		fitted.boot_sd *= f;
		printf("every spread of the model times %.3g (--scale)\n", f);
	}
	if (boot_sd >= 0) {
		fitted.boot_sd = boot_sd;
		printf("boots spread by %.2f%% (--boot-sd), not the model's\n",
		       100 * boot_sd);
	}
	files = jget(doc, "series");
	for (size_t i = 0; strstr(models, "replay") && files &&
			   i < json_object_array_length(files); i++)
		if (series_load(&ss, json_object_get_string(
					     json_object_array_get_idx(files, i))))
			return 1;
	/* the boot job's kernels: files that exist (the parser checks) */
	if (!mkdtemp(kdir))
		return 1;
	for (const char *k = "ab"; *k; k++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/vmlinuz-%c", kdir, *k);
		f = fopen(path, "w");
		if (!f)
			return 1;
		fputs("not a kernel\n", f);
		fclose(f);
	}
	for (size_t d = 0; d < NDESIGNS && !ret; d++)
		ret = design_setup(&designs[d], kdir);
	printf("A/A false positives and power of every design, %u A/A jobs and "
	       "%u jobs per effect, seed %" PRIu64 "\n", jobs, pjobs, seed);
	if (!ret && strstr(models, "iid")) {
		struct figs f;

		m = fitted;
		memset(&m, 0, sizeof(m));
		snprintf(m.name, sizeof(m.name), "iid");
		m.iid = true;
		if (ss.n) {
			figures(&ss, false, &f);
			m.sd_white = f.run_sd;
		} else {
			m.sd_white = sqrt(fitted.sd_white * fitted.sd_white +
					  fitted.ar_sd * fitted.ar_sd +
					  fitted.shift_sd * fitted.shift_sd);
		}
		printf("\niid: every run N(0, %.2f%%^2), independent (the model of "
		       "test_abstats_sim)\n", 100 * m.sd_white);
		run_model(&m, jobs, pjobs, seed, only);
	}
	if (!ret && strstr(models, "fitted")) {
		m = fitted;
		snprintf(m.name, sizeof(m.name), "fitted");
		struct json_object *mj = model_json(&m);

		printf("\nfitted: %s\n",
		       json_object_to_json_string_ext(mj, JSON_C_TO_STRING_PLAIN));
		json_object_put(mj);
		run_model(&m, jobs, pjobs, seed, only);
	}
	if (!ret && strstr(models, "stress")) {
		m = fitted;
		snprintf(m.name, sizeof(m.name), "stress");
		m.pos_sd = fmax(2 * fitted.pos_sd, 0.01);
		/* floors: a fit that finds no spread between jobs (the
		 * processes already carry it) still gets some */
		m.job_sd = fmax(2 * fitted.job_sd, 0.005);
		m.boot_sd = fmax(3 * fitted.boot_sd, 0.01);
		m.out_p = fmin(0.5, 2 * fitted.out_p);
		printf("\nstress: the fitted model with a position effect of SD "
		       "%.2f%% a job, jobs spread by %.2f%%, boots by %.2f%%, "
		       "slow runs %.2f%%\n",
		       100 * m.pos_sd, 100 * m.job_sd, 100 * m.boot_sd, 100 * m.out_p);
		run_model(&m, jobs, pjobs, seed, only);
	}
	if (!ret && strstr(models, "replay") && ss.n) {
		memset(&m, 0, sizeof(m));
		snprintf(m.name, sizeof(m.name), "replay");
		m.replay = &ss;
		m.block = 25;
		m.boot_sd = fitted.boot_sd;
		printf("\nreplay: the real series (%zu of them) by a stationary block "
		       "bootstrap, blocks of 25 runs on average, boots spread by "
		       "%.2f%%\n", ss.n, 100 * m.boot_sd);
		run_model(&m, jobs, pjobs, seed, only);
	}
	for (const char *k = "ab"; *k; k++) {
		snprintf(path, sizeof(path), "%s/vmlinuz-%c", kdir, *k);
		unlink(path);
	}
	rmdir(kdir);
	for (size_t d = 0; d < NDESIGNS; d++) {
		bb_ab_seq_free(designs[d].plan);
		bb_job_free(&designs[d].job);
	}
	json_object_put(doc);
	series_free(&ss);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "fit"))
		return cmd_fit(argc, argv);
	if (argc >= 2 && !strcmp(argv[1], "run"))
		return cmd_run(argc, argv);
	usage();
	return 2;
}
