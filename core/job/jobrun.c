// SPDX-License-Identifier: GPL-2.0-only
/* jobrun.c - executes a parsed job (see jobrun.h): the plan's runs in
 * order through the hooks, the metric of each measured run, the
 * statistics after each round, adaptive rounds. */
#include <biobench/jobrun.h>

#include <biobench/result_json.h>
#include <biobench/scope.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int bb_jobrun_init_plan(struct bb_jobrun *jr, const struct bb_job *job,
			const _Atomic bool *cancel, const struct bb_ab_seq *plan)
{
	unsigned cap = job->max_repeat > job->repeat ? job->max_repeat :
						       job->repeat;
	bool adaptive = job->max_repeat > job->repeat &&
			job->order != BB_ORDER_BLOCKED;

	memset(jr, 0, sizeof(*jr));
	if (job->nvariants < 2 || job->nvariants > BB_JOB_MAX_VARIANTS ||
	    job->repeat < 2)
		return -EINVAL;
	/* a plan given is the job's: its looks repeat..max_repeat */
	if (plan && (!adaptive || bb_ab_seq_look_n(plan, 0) != job->repeat ||
		     bb_ab_seq_look_n(plan, bb_ab_seq_looks(plan) - 1) !=
			     job->max_repeat ||
		     fabs(bb_ab_seq_confidence(plan) - job->confidence) > 1e-12))
		return -EINVAL;
	jr->job = job;
	jr->cancel = cancel;
	jr->rounds_planned = job->repeat;
	jr->runs_planned = (job->warmup + job->repeat) * job->nvariants;
	for (unsigned i = 0; i < job->nvariants; i++) {
		jr->vs[i].vals = calloc(cap, sizeof(double));
		jr->vs[i].sec_var = calloc(cap, sizeof(double));
		jr->vs[i].secs = calloc(cap, sizeof(double));
		jr->vs[i].pos = calloc(cap, sizeof(unsigned));
		if (!jr->vs[i].vals || !jr->vs[i].sec_var || !jr->vs[i].secs ||
		    !jr->vs[i].pos) {
			bb_jobrun_free(jr);
			return -ENOMEM;
		}
	}
	if (plan) {
		jr->plan = plan;
	} else if (adaptive) {
		struct bb_ab_seq *own = NULL;
		int ret = bb_ab_seq_create(&own, job->repeat, job->max_repeat,
					   job->confidence);

		if (ret) {
			bb_jobrun_free(jr);
			return ret;
		}
		jr->plan = own;
		jr->own_plan = own;
	}
	return 0;
}

int bb_jobrun_init(struct bb_jobrun *jr, const struct bb_job *job,
		   const _Atomic bool *cancel)
{
	return bb_jobrun_init_plan(jr, job, cancel, NULL);
}

void bb_jobrun_free(struct bb_jobrun *jr)
{
	for (unsigned i = 0; i < BB_JOB_MAX_VARIANTS; i++) {
		free(jr->vs[i].vals);
		free(jr->vs[i].sec_var);
		free(jr->vs[i].secs);
		free(jr->vs[i].pos);
		jr->vs[i].vals = jr->vs[i].sec_var = jr->vs[i].secs = NULL;
		jr->vs[i].pos = NULL;
		jr->vs[i].n = 0;
	}
	bb_ab_seq_free(jr->own_plan);
	jr->own_plan = NULL;
	jr->plan = NULL;
}

/* Variance of the log of a run's per-second rates (samples of at least
 * half a second; the last, shorter one left out), NAN with fewer than 2
 * or for a metric the samples do not measure (latency, CPU). */
static double sec_log_var(enum bb_metric m, const struct bb_result *r)
{
	double sum = 0, ss = 0, x[2], prev = 0;
	unsigned n = 0;

	if (m != BB_METRIC_IOPS && m != BB_METRIC_BW)
		return NAN;
	for (unsigned i = 0; i < r->nsamples; i++) {
		const struct bb_sample *s = &r->samples[i];
		double dt = ((double)s->t_ms - prev) / 1e3;
		double v = m == BB_METRIC_IOPS ? (double)s->ios : (double)s->bytes;

		prev = (double)s->t_ms;
		if (dt < 0.5 || !(v > 0))
			continue;
		x[0] = log(v / dt);
		/* Welford */
		n++;
		x[1] = x[0] - sum;
		sum += x[1] / n;
		ss += x[1] * (x[0] - sum);
	}
	return n >= 2 ? ss / (n - 1) : NAN;
}

static bool is_cancelled(const struct bb_jobrun *jr)
{
	return jr->cancel &&
	       atomic_load_explicit(jr->cancel, memory_order_acquire);
}

/* "run 5 (variant B, round 2)" / "run 1 (variant A, warm-up 1)": runs and
 * rounds 1-based, measured rounds counted after the warm-ups. */
static void step_label(const struct bb_jobrun *jr,
		       const struct bb_job_step *st, char *buf, size_t len)
{
	const struct bb_job *job = jr->job;

	if (job->boot_job)
		/* round is the boot; warm-ups and runs count per boot */
		snprintf(buf, len, "run %u (variant %s, boot %u%s)",
			 jr->seq + 1, job->v[st->variant].name, st->round + 1,
			 st->warmup ? ", warm-up" : "");
	else if (st->warmup)
		snprintf(buf, len, "run %u (variant %s, warm-up %u)",
			 jr->seq + 1, job->v[st->variant].name, st->round + 1);
	else
		snprintf(buf, len, "run %u (variant %s, round %u)",
			 jr->seq + 1, job->v[st->variant].name,
			 st->round - job->warmup + 1);
}

/* A measured run marked disturbed: named, with why, while there is room
 * (disturbed_runs counts them all). */
static void note_disturbed(struct bb_jobrun *jr, const struct bb_job_step *st)
{
	struct bb_jobrun_disturbed *d;

	if (jr->ndisturbed == BB_JOBRUN_MAX_DISTURBED)
		return;
	d = &jr->disturbed[jr->ndisturbed++];
	d->run = jr->seq + 1;
	d->variant = st->variant;
	d->round = st->round - jr->job->warmup + 1;
	snprintf(d->reason, sizeof(d->reason), "%s", jr->quiet.reason);
}

/* One step: before_run, the run, after_run; the metric kept when the run
 * is measured and everything succeeded. */
static int run_step(struct bb_jobrun *jr, const struct bb_job_step *st,
		    const struct bb_jobrun_ops *ops, void *arg, char *err,
		    size_t errlen)
{
	const struct bb_job *job = jr->job;
	struct bb_jobrun_variant_stats *vs = &jr->vs[st->variant];
	char msg[512] = "", amsg[512] = "", label[96];
	struct bb_result r;
	uint64_t t0 = bb_now_ns();
	int ret = 0, aret;
	bool gated = false;

	memset(&r, 0, sizeof(r));
	bb_hist_init(&r.lat);
	jr->run_ctx.have = false;
	step_label(jr, st, label, sizeof(label));
	if (ops && ops->before_run) {
		ret = ops->before_run(arg, jr, st, msg, sizeof(msg));
		if (ret > 0)
			ret = -EIO;
		if (ret && !msg[0])
			snprintf(msg, sizeof(msg), "before_run: %s",
				 strerror(-ret));
	}
	if (!ret && ops && ops->run) {
		memset(&jr->quiet, 0, sizeof(jr->quiet));
		jr->quiet.cpu = -1;
	} else if (!ret) {
		const struct bb_config *cfg = &job->v[st->variant].cfg;

		/* foreign load on the CPUs: wait for quiet or mark the run
		 * (an unreadable /proc/stat leaves quiet.checked false) */
		bb_quiesce_check(cfg->cpus, cfg->ncpus, &job->quiesce,
				 jr->cancel, &jr->quiet);
		gated = true;
		if (jr->quiet.disturbed && !st->warmup) {
			jr->disturbed_runs++;
			jr->round_disturbed = true;
		}
	}
	if (!ret && is_cancelled(jr)) {
		ret = -ECANCELED;
		snprintf(msg, sizeof(msg), "cancelled");
	}
	if (!ret && ops && ops->run) {
		ret = ops->run(arg, jr, st, &job->v[st->variant].cfg, &r, msg,
			       sizeof(msg));
	} else if (!ret) {
		/* what the run starts with (the knobs are written by now) */
		bb_run_context_read(job->v[st->variant].cfg.target,
				    &jr->run_ctx);
		ret = bb_run_cancellable(&job->v[st->variant].cfg, &r,
					 ops ? ops->on_sample : NULL, arg,
					 jr->cancel, msg, sizeof(msg));
		/* a run the process was stopped in (or starved) is disturbed
		 * like one the gate marked; after_run stores why */
		if (bb_quiesce_mark_stall(&jr->quiet, &job->quiesce,
					  r.stall_ns) &&
		    !st->warmup) {
			jr->disturbed_runs++;
			jr->round_disturbed = true;
		}
	}
	if (gated && jr->quiet.disturbed && !st->warmup)
		note_disturbed(jr, st);
	if (ops && ops->after_run) {
		aret = ops->after_run(arg, jr, st, ret, &r, amsg, sizeof(amsg));
		if (aret > 0)
			aret = -EIO;
		if (aret && !ret) {
			ret = aret;
			if (amsg[0])
				snprintf(msg, sizeof(msg), "%s", amsg);
			else
				snprintf(msg, sizeof(msg), "after_run: %s",
					 strerror(-aret));
		}
	}
	if (!ret) {
		bool drop = job->exclude_disturbed && jr->quiet.disturbed &&
			    job->order == BB_ORDER_BLOCKED;

		if (!st->warmup && !drop &&
		    vs->n < bb_max(job->max_repeat, job->repeat)) {
			vs->sec_var[vs->n] = sec_log_var(job->metric, &r);
			vs->secs[vs->n] = (double)r.duration_ns / 1e9;
			vs->pos[vs->n] = st->pos;
			vs->vals[vs->n++] = bb_metric_value(job->metric, &r);
			bb_cache_counters_add(&vs->cache, &r.cache);
			bb_cache_counters_add(&vs->split_cache, &r.split_cache);
			bb_split_counters_add(&vs->split, &r.split);
		}
		vs->last_iops = bb_result_iops(&r);
		jr->runs_done++;
		jr->run_ns_sum += bb_now_ns() - t0;
	} else if (ret == -ECANCELED) {
		snprintf(err, errlen, "cancelled");
	} else {
		snprintf(err, errlen, "%s: %s", label, msg);
	}
	bb_result_free(&r);
	return ret;
}

int bb_jobrun_step(struct bb_jobrun *jr, const struct bb_job_step *st,
		   const struct bb_jobrun_ops *ops, void *arg, char *err,
		   size_t errlen)
{
	int ret = run_step(jr, st, ops, arg, err, errlen);

	if (ret == -ECANCELED && err && errlen)
		snprintf(err, errlen, "cancelled");
	return ret;
}

/* Where the noise is, over the complete rounds of a paired job. */
static void noise_all(struct bb_jobrun *jr, unsigned n0)
{
	const struct bb_job *job = jr->job;
	struct bb_ab_noise_run *runs;
	size_t k = 0;

	jr->have_noise = false;
	if (job->order == BB_ORDER_BLOCKED || n0 < 2)
		return;
	runs = calloc((size_t)n0 * job->nvariants, sizeof(*runs));
	if (!runs)
		return;
	for (unsigned i = 0; i < job->nvariants; i++)
		for (unsigned r = 0; r < n0; r++)
			runs[k++] = (struct bb_ab_noise_run){
				.variant = i, .boot = 0, .round = r,
				.value = jr->vs[i].vals[r],
				.sec_var = jr->vs[i].sec_var[r],
				.seconds = jr->vs[i].secs[r] };
	jr->have_noise = !bb_ab_noise(runs, k, &jr->noise);
	free(runs);
}

/* Compare every variant with the baseline (paired comparisons only over
 * complete rounds, with the sequential plan when adaptive), then adjust
 * over the variants. */
static void compare_all(struct bb_jobrun *jr)
{
	const struct bb_job *job = jr->job;
	struct bb_ab_result *fam[BB_JOB_MAX_VARIANTS];
	struct bb_ab_params p;
	unsigned n0 = jr->vs[0].n, nf = 0;
	bool any = false;

	bb_job_ab_params(job, &p);
	p.seq = jr->plan;
	for (unsigned i = 1; i < job->nvariants; i++)
		n0 = p.paired && jr->vs[i].n < n0 ? jr->vs[i].n : n0;
	for (unsigned i = 1; i < job->nvariants; i++) {
		unsigned na = p.paired ? n0 : jr->vs[0].n;
		unsigned nb = p.paired ? n0 : jr->vs[i].n;

		if (na < 2 || nb < 2)
			return;
		jr->cmp_ret[i] = bb_ab_compare(jr->vs[0].vals, na,
					       jr->vs[i].vals, nb, &p,
					       &jr->cmp[i]);
		if (jr->cmp_ret[i])
			memset(&jr->cmp[i], 0, sizeof(jr->cmp[i]));
		else
			fam[nf++] = &jr->cmp[i];
		any = true;
	}
	bb_ab_family(fam, nf, job->multiple);
	noise_all(jr, n0);
	jr->have_cmp = any;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int bb_jobrun_boot_results(struct bb_jobrun *jr,
			   const struct bb_jobrun_boot_run *runs, size_t n)
{
	const struct bb_job *job = jr->job;
	unsigned nv = job->nvariants, maxboot = 0, cnt[BB_JOB_MAX_VARIANTS] = { 0 };
	struct bb_ab_noise_run *nr = NULL;
	double *tmp = NULL;
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		if (runs[i].variant >= nv)
			return -EINVAL;
		maxboot = runs[i].boot > maxboot ? runs[i].boot : maxboot;
	}
	tmp = malloc((n ? n : 1) * sizeof(*tmp));
	nr = calloc(n ? n : 1, sizeof(*nr));
	if (!tmp || !nr) {
		ret = -ENOMEM;
		goto out;
	}
	/* one value per boot: the arrays (sized for repeat runs) grow to the
	 * boots; compare_all reads sec_var and secs beside vals */
	for (unsigned i = 0; i < nv; i++) {
		size_t cap = (size_t)maxboot + 1;
		double *v = realloc(jr->vs[i].vals, cap * sizeof(*v));

		if (v)
			jr->vs[i].vals = v;
		v = v ? realloc(jr->vs[i].sec_var, cap * sizeof(*v)) : NULL;
		if (v)
			jr->vs[i].sec_var = v;
		v = v ? realloc(jr->vs[i].secs, cap * sizeof(*v)) : NULL;
		if (!v) {
			ret = -ENOMEM;
			goto out;
		}
		jr->vs[i].secs = v;
		{
			unsigned *ps = realloc(jr->vs[i].pos, cap * sizeof(*ps));

			if (!ps) {
				ret = -ENOMEM;
				goto out;
			}
			jr->vs[i].pos = ps;
			memset(ps, 0, cap * sizeof(*ps));
		}
		for (size_t k = 0; k < cap; k++) {
			jr->vs[i].sec_var[k] = NAN;
			jr->vs[i].secs[k] = 0;
		}
		jr->vs[i].n = 0;
	}
	/* each boot's median, in boot order */
	for (unsigned b = 0; b <= maxboot; b++) {
		unsigned v = nv, k = 0;

		for (size_t i = 0; i < n; i++) {
			if (runs[i].boot != b)
				continue;
			v = runs[i].variant;
			tmp[k++] = runs[i].value;
		}
		if (!k)
			continue;
		qsort(tmp, k, sizeof(*tmp), cmp_double);
		jr->vs[v].vals[jr->vs[v].n++] =
			k % 2 ? tmp[k / 2] : (tmp[k / 2 - 1] + tmp[k / 2]) / 2;
		cnt[v]++;
	}
	/* the noise: a boot's runs are one round of that boot */
	for (size_t i = 0; i < n; i++)
		nr[i] = (struct bb_ab_noise_run){
			.variant = runs[i].variant, .boot = runs[i].boot,
			.round = runs[i].boot, .value = runs[i].value,
			.sec_var = runs[i].sec_var, .seconds = runs[i].seconds };
	for (unsigned i = 0; i < nv; i++) {
		double sum = 0, ss = 0;
		unsigned m = jr->vs[i].n;

		jr->boot_sd[i] = NAN;
		for (unsigned k = 0; k < m; k++)
			sum += log(jr->vs[i].vals[k]);
		for (unsigned k = 0; m >= 2 && k < m; k++) {
			double d = log(jr->vs[i].vals[k]) - sum / m;

			ss += d * d;
		}
		if (m >= 2)
			jr->boot_sd[i] = sqrt(ss / (m - 1));
	}
	jr->boot_pairs = cnt[0];
	for (unsigned i = 1; i < nv; i++)
		jr->boot_pairs = cnt[i] < jr->boot_pairs ? cnt[i] : jr->boot_pairs;
	jr->have_cmp = false;
	if (jr->boot_pairs >= 2)
		compare_all(jr);   /* paired over the boots */
	jr->have_noise = !bb_ab_noise(nr, n, &jr->noise);
	if (jr->boot_pairs < 1)
		ret = -EINVAL;
out:
	free(tmp);
	free(nr);
	return ret;
}

/* Whether another round is worth it for any variant. */
static bool want_more(const struct bb_jobrun *jr)
{
	const struct bb_job *job = jr->job;
	bool more;

	if (!jr->have_cmp || job->order == BB_ORDER_BLOCKED ||
	    jr->rounds_planned >= job->max_repeat)
		return false;
	for (unsigned i = 1; i < job->nvariants; i++) {
		if (jr->cmp_ret[i])
			continue;
		if (!bb_ab_want_more(&jr->cmp[i], job->max_repeat, &more) &&
		    more)
			return true;
	}
	return false;
}

int bb_jobrun_exec(struct bb_jobrun *jr, const struct bb_jobrun_ops *ops,
		   void *arg, char *err, size_t errlen)
{
	const struct bb_job *job = jr->job;
	unsigned nv = job->nvariants;
	struct bb_job_step *steps;
	size_t nsteps;
	int ret = 0;

	if (err && errlen)
		err[0] = '\0';
	if (jr->runs_done || jr->vs[0].n) {
		snprintf(err, errlen, "this job run was already executed");
		return -EALREADY;
	}
	jr->t_start_ns = bb_now_ns();
	jr->seq = 0;

	if (job->order == BB_ORDER_BLOCKED) {
		unsigned nrounds = job->warmup + job->repeat;

		steps = calloc((size_t)nrounds * nv, sizeof(*steps));
		if (!steps)
			return -ENOMEM;
		nsteps = bb_job_plan(job, 0, nrounds, steps);
		for (size_t k = 0; k < nsteps; k++, jr->seq++) {
			ret = run_step(jr, &steps[k], ops, arg, err, errlen);
			if (ret)
				goto out;
		}
		compare_all(jr);
		if (jr->have_cmp && ops && ops->on_round)
			ops->on_round(arg, jr);
		goto out;
	}

	steps = calloc(nv, sizeof(*steps));
	if (!steps)
		return -ENOMEM;
	for (unsigned round = 0; round < job->warmup + jr->rounds_planned;
	     round++) {
		nsteps = bb_job_plan(job, round, 1, steps);
		for (size_t k = 0; k < nsteps; k++, jr->seq++) {
			ret = run_step(jr, &steps[k], ops, arg, err, errlen);
			if (ret)
				goto out;
		}
		if (round < job->warmup)
			continue;
		if (job->exclude_disturbed && jr->round_disturbed) {
			/* a pair is only as good as its worst run: the whole
			 * round goes, and a replacement round is planned
			 * (at most repeat of them) */
			for (unsigned i = 0; i < nv; i++)
				jr->vs[i].n--;
			jr->rounds_excluded++;
			if (jr->rounds_excluded <= job->repeat) {
				jr->rounds_planned++;
				jr->runs_planned += nv;
			}
		}
		jr->round_disturbed = false;
		compare_all(jr);
		if (jr->have_cmp && ops && ops->on_round)
			ops->on_round(arg, jr);
		if (round + 1 == job->warmup + jr->rounds_planned &&
		    want_more(jr)) {
			jr->rounds_planned++;
			jr->runs_planned += nv;
		}
	}
out:
	free(steps);
	if (ret == -ECANCELED && err && errlen)
		snprintf(err, errlen, "cancelled");
	return ret;
}

const char *bb_jobrun_verdict(const struct bb_jobrun *jr)
{
	enum bb_ab_verdict v[BB_JOB_MAX_VARIANTS];
	size_t n = 0, failed = 0;

	if (!jr->have_cmp)
		return NULL;
	for (unsigned i = 1; i < jr->job->nvariants; i++) {
		if (jr->cmp_ret[i])
			failed++;
		else
			v[n++] = jr->cmp[i].verdict;
	}
	return bb_ab_verdict_name(bb_ab_verdict_worst(v, n, failed));
}

/* ------------------------------------------------------------------ */
/* JSON */

static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : json_object_new_null();
}

static struct json_object *variant_json(const struct bb_jobrun_variant_stats *vs,
					const struct bb_config *cfg)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vals = json_object_new_array();
	struct json_object *pos = json_object_new_array();
	struct bb_ab_summary s;

	for (unsigned k = 0; k < vs->n; k++) {
		json_object_array_add(vals, jnum(vs->vals[k]));
		json_object_array_add(pos, json_object_new_int64(vs->pos[k]));
	}
	json_object_object_add(o, "n", json_object_new_int64(vs->n));
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "positions", pos);
	if (vs->n && !bb_ab_summarize(vs->vals, vs->n, &s))
		json_object_object_add(o, "median", jnum(s.median));
	else
		json_object_object_add(o, "median", json_object_new_null());
	json_object_object_add(o, "last_iops", jnum(vs->last_iops));
	json_object_object_add(o, "bio_cache",
			       bb_cache_counters_to_json(&vs->cache,
							 &vs->split_cache));
	json_object_object_add(o, "split",
			       bb_split_counters_to_json(&vs->split));
	json_object_object_add(o, "put_context",
			       json_object_new_string(bb_config_put_context(cfg)));
	return o;
}

static struct json_object *noise_json(const struct bb_ab_noise *nz)
{
	struct json_object *o = json_object_new_object();
	struct json_object *lv = json_object_new_object();

	for (unsigned l = 0; l < BB_AB_NOISE__COUNT; l++) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "measured",
				       json_object_new_boolean(nz->level[l].measured));
		json_object_object_add(e, "sd", nz->level[l].measured ?
					       jnum(nz->level[l].sd) : NULL);
		json_object_object_add(e, "df",
				       json_object_new_int64(nz->level[l].df));
		json_object_object_add(lv, bb_ab_noise_level_name(
						   (enum bb_ab_noise_level)l), e);
	}
	json_object_object_add(o, "levels", lv);
	json_object_object_add(o, "dominant", nz->have_dominant ?
				       json_object_new_string(
					       bb_ab_noise_level_name(nz->dominant)) :
				       NULL);
	json_object_object_add(o, "advice",
			       json_object_new_string(bb_ab_noise_advice(nz)));
	return o;
}

/* {"name", "seed", "baseline_first": rounds (boots) whose first run was
 * the baseline's, "rounds", "text"}: how the variants followed each other,
 * and what that means for the change. */
static struct json_object *order_json(const struct bb_jobrun *jr)
{
	const struct bb_job *job = jr->job;
	struct json_object *o = json_object_new_object();
	unsigned rounds = job->boot_job ? jr->boot_pairs : jr->rounds_planned;
	unsigned first = 0, nv = job->nvariants;
	struct bb_job_step st[BB_JOB_MAX_VARIANTS];
	char text[512];

	for (unsigned r = 0; r < rounds; r++) {
		if (job->boot_job)
			first += bb_job_boot_variant(job, r * nv) == 0;
		else if (bb_job_plan(job, job->warmup + r, 1, st) &&
			 st[0].variant == 0)
			first++;
	}
	json_object_object_add(o, "name",
			       json_object_new_string(bb_job_order_name(job->order)));
	json_object_object_add(o, "seed", json_object_new_int64((int64_t)job->seed));
	json_object_object_add(o, "rounds", json_object_new_int64(rounds));
	json_object_object_add(o, "baseline_first", json_object_new_int64(first));
	if (job->order == BB_ORDER_RANDOM)
		snprintf(text, sizeof(text),
			 "each %s in a random order (seed %" PRIu64 "; %s first "
			 "in %u of %u): a run's place in its %s (drift within "
			 "it, a disturbance in step with the %ss) cannot bias "
			 "the change, and the paired test is a randomization test",
			 job->boot_job ? "boot pair" : "round", job->seed,
			 job->v[0].name, first, rounds,
			 job->boot_job ? "pair" : "round",
			 job->boot_job ? "boot" : "round");
	else if (job->order == BB_ORDER_INTERLEAVED)
		snprintf(text, sizeof(text),
			 "%s first in every %s: an effect of a run's place in "
			 "its %s (drift within it, a disturbance in step with "
			 "the %ss) counts as a difference; order random (the "
			 "default) keeps it out",
			 job->v[0].name, job->boot_job ? "boot pair" : "round",
			 job->boot_job ? "pair" : "round",
			 job->boot_job ? "boot" : "round");
	else
		snprintf(text, sizeof(text),
			 "all runs of %s first, then the others': drift over the "
			 "job counts as a difference (unpaired); order random "
			 "pairs the runs and keeps it out",
			 job->v[0].name);
	json_object_object_add(o, "text", json_object_new_string(text));
	return o;
}

struct json_object *bb_jobrun_to_json(const struct bb_jobrun *jr)
{
	const struct bb_job *job = jr->job;
	struct json_object *o = json_object_new_object();
	struct json_object *cmps = json_object_new_array();
	struct json_object *vars = json_object_new_object();
	struct json_object *dist = json_object_new_array();
	const char *verdict = bb_jobrun_verdict(jr);
	struct bb_job_scope scope;

	json_object_object_add(o, "verdict", verdict ?
				       json_object_new_string(verdict) :
				       json_object_new_null());
	json_object_object_add(o, "metric",
			       json_object_new_string(bb_metric_name(job->metric)));
	json_object_object_add(o, "unit",
			       json_object_new_string(bb_metric_unit(job->metric)));
	json_object_object_add(o, "runs_done", json_object_new_int64(jr->runs_done));
	json_object_object_add(o, "runs_planned",
			       json_object_new_int64(jr->runs_planned));
	json_object_object_add(o, "rounds_planned",
			       json_object_new_int64(jr->rounds_planned));
	json_object_object_add(o, "disturbed_runs",
			       json_object_new_int64(jr->disturbed_runs));
	json_object_object_add(o, "rounds_excluded",
			       json_object_new_int64(jr->rounds_excluded));
	json_object_object_add(o, "disturbed", dist);
	for (unsigned i = 0; i < jr->ndisturbed; i++) {
		const struct bb_jobrun_disturbed *d = &jr->disturbed[i];
		struct json_object *one = json_object_new_object();

		json_object_object_add(one, "run", json_object_new_int64(d->run));
		json_object_object_add(one, "variant",
				       json_object_new_string(job->v[d->variant].name));
		json_object_object_add(one, "round",
				       json_object_new_int64(d->round));
		json_object_object_add(one, "reason",
				       json_object_new_string(d->reason));
		json_object_array_add(dist, one);
	}
	for (unsigned i = 1; jr->have_cmp && i < job->nvariants; i++) {
		struct json_object *c;

		if (!jr->cmp_ret[i]) {
			c = bb_ab_result_to_json(&jr->cmp[i], job->v[0].name,
						 job->v[i].name, job->metric);
		} else {
			c = json_object_new_object();
			json_object_object_add(c, "baseline",
				json_object_new_string(job->v[0].name));
			json_object_object_add(c, "variant",
				json_object_new_string(job->v[i].name));
			json_object_object_add(c, "metric",
				json_object_new_string(bb_metric_name(job->metric)));
			json_object_object_add(c, "error",
				json_object_new_string(jr->cmp_ret[i] == -EINVAL ?
					"no comparison: a value is not positive (0 I/Os, or no latency samples)" :
					strerror(-jr->cmp_ret[i])));
		}
		json_object_array_add(cmps, c);
	}
	json_object_object_add(o, "order", order_json(jr));
	json_object_object_add(o, "design",
			       json_object_new_string(jr->plan ? "sequential" : "fixed"));
	json_object_object_add(o, "multiple",
			       json_object_new_string(bb_ab_multiple_name(job->multiple)));
	json_object_object_add(o, "comparisons", cmps);
	json_object_object_add(o, "noise", jr->have_noise ?
				       noise_json(&jr->noise) : NULL);
	for (unsigned i = 0; i < job->nvariants; i++)
		json_object_object_add(vars, job->v[i].name,
				       variant_json(&jr->vs[i], &job->v[i].cfg));
	json_object_object_add(o, "variants", vars);
	if (job->boot_job) {
		struct json_object *bb = json_object_new_object();
		char text[256];
		size_t off;

		off = (size_t)snprintf(text, sizeof(text), "%u boot pair%s; "
				       "between-boot spread", jr->boot_pairs,
				       jr->boot_pairs == 1 ? "" : "s");
		for (unsigned i = 0; i < job->nvariants; i++) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "boots",
					       json_object_new_int64(jr->vs[i].n));
			json_object_object_add(e, "sd", jnum(jr->boot_sd[i]));
			json_object_object_add(bb, job->v[i].name, e);
			if (off < sizeof(text)) {
				if (isfinite(jr->boot_sd[i]))
					off += (size_t)snprintf(
						text + off, sizeof(text) - off,
						"%s %s %.2f %%", i ? "," : "",
						job->v[i].name,
						100 * jr->boot_sd[i]);
				else
					off += (size_t)snprintf(
						text + off, sizeof(text) - off,
						"%s %s unknown (one boot)",
						i ? "," : "", job->v[i].name);
			}
		}
		json_object_object_add(o, "boot_pairs",
				       json_object_new_int64(jr->boot_pairs));
		json_object_object_add(o, "boots_per_variant",
				       json_object_new_int64(job->boots));
		json_object_object_add(o, "between_boot", bb);
		json_object_object_add(o, "text", json_object_new_string(text));
		json_object_object_add(o, "design", json_object_new_string("boots"));
	}
	bb_job_scope(job, &scope);
	json_object_object_add(o, "scope", bb_job_scope_to_json(&scope));
	return o;
}

double bb_jobrun_eta_s(const struct bb_jobrun *jr)
{
	double mean;

	if (!jr->runs_done)
		return -1;
	if (jr->runs_planned <= jr->runs_done)
		return 0;
	mean = (double)jr->run_ns_sum / (double)jr->runs_done;
	return mean * (double)(jr->runs_planned - jr->runs_done) / 1e9;
}
