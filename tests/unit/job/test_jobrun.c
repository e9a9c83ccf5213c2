// SPDX-License-Identifier: GPL-2.0-only
/* test_jobrun.c - executing jobs with real io_uring NOP runs (short ones:
 * this is about the plan, the hooks, the statistics and stopping, not
 * about speed): order seen by the hooks, values and comparisons, a known
 * slowdown detected, cancellation from another thread, hook errors,
 * adaptive rounds.  Skipped (77) when io_uring is not available. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <liburing.h>

#include <biobench/jobrun.h>

/* ------------------------------------------------------------------ */
/* helpers */

#define MAX_SEEN 256

struct rec {
	struct bb_job_step before[MAX_SEEN];
	unsigned nbefore;
	struct bb_job_step after[MAX_SEEN];
	int after_ret[MAX_SEEN];
	unsigned nafter;
	unsigned nround;
	unsigned round_n[MAX_SEEN];  /* vs[0].n at each on_round */
	double eta_first;            /* eta at the first on_round */
	int fail_before_at;          /* fail before_run of this step (1-based) */
	int fail_after_at;
	bool seq_ok;
};

static int rec_before(void *arg, struct bb_jobrun *jr,
		      const struct bb_job_step *st, char *err, size_t errlen)
{
	struct rec *r = arg;

	if (jr->seq != r->nbefore)
		r->seq_ok = false;
	if (r->nbefore < MAX_SEEN)
		r->before[r->nbefore] = *st;
	r->nbefore++;
	if (r->fail_before_at && (int)r->nbefore == r->fail_before_at) {
		snprintf(err, errlen, "nomerges: permission denied");
		return -EPERM;
	}
	return 0;
}

static int rec_after(void *arg, struct bb_jobrun *jr,
		     const struct bb_job_step *st, int ret,
		     const struct bb_result *res, char *err, size_t errlen)
{
	struct rec *r = arg;

	(void)jr;
	assert_non_null(res);
	if (r->nafter < MAX_SEEN) {
		r->after[r->nafter] = *st;
		r->after_ret[r->nafter] = ret;
	}
	r->nafter++;
	if (r->fail_after_at && (int)r->nafter == r->fail_after_at) {
		snprintf(err, errlen, "store full");
		return -ENOSPC;
	}
	return 0;
}

static void rec_round(void *arg, struct bb_jobrun *jr)
{
	struct rec *r = arg;

	assert_true(jr->have_cmp);
	if (r->nround == 0)
		r->eta_first = bb_jobrun_eta_s(jr);
	if (r->nround < MAX_SEEN)
		r->round_n[r->nround] = jr->vs[0].n;
	r->nround++;
}

static const struct bb_jobrun_ops rec_ops = {
	.before_run = rec_before,
	.after_run = rec_after,
	.on_round = rec_round,
};

static struct rec *rec_new(void)
{
	struct rec *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->seq_ok = true;
	return r;
}

static struct bb_job *job_parse(const char *text)
{
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_job_errors errs;

	assert_non_null(job);
	if (bb_job_parse_string(job, text, strlen(text), &errs)) {
		for (unsigned i = 0; i < errs.n && i < BB_JOB_MAX_ERRORS; i++)
			print_message("  %s\n", errs.msg[i]);
		fail_msg("job does not parse");
	}
	/* the quiescence gate has its own test (test_quiesce); here it would
	 * only make every run wait on a machine busy building */
	job->quiesce.mode = BB_QUIESCE_OFF;
	return job;
}

static void job_put(struct bb_job *job)
{
	bb_job_free(job);
	free(job);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------ */
/* tests */

static void test_interleaved(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"basic\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 16, \"runtime\": \"60ms\"},"
		" \"variants\": {\"A\": {}, \"B\": {\"bio_cache\": \"off\"}},"
		" \"repeat\": 6, \"warmup\": 1, \"order\": \"interleaved\"}");
	struct bb_jobrun *jr = calloc(1, sizeof(*jr));
	struct rec *r = rec_new();
	struct json_object *o, *j;
	char err[512];
	int ret;

	(void)state;
	assert_int_equal(bb_jobrun_init(jr, job, NULL), 0);
	assert_int_equal(jr->runs_planned, 14);
	assert_int_equal(jr->rounds_planned, 6);
	assert_true(bb_jobrun_eta_s(jr) < 0);          /* nothing known yet */
	assert_null(bb_jobrun_verdict(jr));
	ret = bb_jobrun_exec(jr, &rec_ops, r, err, sizeof(err));
	if (ret)
		fail_msg("exec: %d %s", ret, err);
	assert_int_equal(jr->runs_done, 14);
	assert_int_equal(r->nbefore, 14);
	assert_int_equal(r->nafter, 14);
	assert_true(r->seq_ok);
	for (unsigned k = 0; k < 14; k++) {
		assert_int_equal(r->before[k].variant, k % 2);
		assert_int_equal(r->before[k].round, k / 2);
		assert_int_equal(r->before[k].warmup, k < 2);
		assert_int_equal(r->after[k].variant, k % 2);
		assert_int_equal(r->after_ret[k], 0);
	}
	/* warm-ups discarded: 6 values each, all positive IOPS */
	assert_int_equal(jr->vs[0].n, 6);
	assert_int_equal(jr->vs[1].n, 6);
	for (unsigned i = 0; i < 2; i++)
		for (unsigned k = 0; k < 6; k++)
			assert_true(jr->vs[i].vals[k] > 1000);
	assert_true(jr->vs[0].last_iops > 0);
	/* bio_cache all (A) hits the cache, off (B) never does */
	assert_true(jr->vs[0].cache.alloc_hit > 0);
	assert_int_equal(jr->vs[1].cache.alloc_hit, 0);
	/* comparisons from the 2nd measured round on */
	assert_true(jr->have_cmp);
	assert_int_equal(jr->cmp_ret[1], 0);
	assert_int_equal(jr->cmp[1].n, 6);
	assert_int_equal(jr->cmp[1].method, BB_AB_METHOD_PAIRED);
	assert_int_equal(r->nround, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(r->round_n[i], i + 2);
	assert_true(r->eta_first > 0);
	assert_true(bb_jobrun_eta_s(jr) == 0);
	assert_true(jr->run_ns_sum > 14 * 60000000ull);
	assert_non_null(bb_jobrun_verdict(jr));

	o = bb_jobrun_to_json(jr);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "verdict")),
			    bb_jobrun_verdict(jr));
	j = json_object_object_get(o, "comparisons");
	assert_int_equal(json_object_array_length(j), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(
				    json_object_array_get_idx(j, 0), "variant")), "B");
	j = json_object_object_get(json_object_object_get(o, "variants"), "A");
	assert_non_null(j);
	assert_int_equal(json_object_get_int(json_object_object_get(j, "n")), 6);
	assert_int_equal(json_object_array_length(json_object_object_get(j, "values")), 6);
	assert_true(json_object_get_double(json_object_object_get(j, "median")) > 0);
	assert_true(json_object_get_int64(json_object_object_get(
			    json_object_object_get(j, "bio_cache"), "alloc_hit")) > 0);
	assert_non_null(json_object_object_get(json_object_object_get(j, "bio_cache"),
					       "split_bioset"));
	assert_non_null(json_object_object_get(j, "split"));
	/* valid JSON text */
	j = json_tokener_parse(json_object_to_json_string(o));
	assert_non_null(j);
	json_object_put(j);
	json_object_put(o);

	bb_jobrun_free(jr);
	bb_jobrun_free(jr); /* twice is harmless */
	free(jr);
	free(r);
	job_put(job);
}

static void test_random_and_blocked(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"random\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 8, \"number_ios\": 3000},"
		" \"variants\": {\"A\": {}, \"B\": {}, \"C\": {\"iodepth\": 4}},"
		" \"repeat\": 4, \"warmup\": 1, \"order\": \"random\", \"seed\": 3,"
		" \"metric\": \"cpu_per_io\"}");
	struct bb_job_step plan[15];
	struct bb_jobrun jr;
	struct rec *r = rec_new();
	char err[512];

	(void)state;
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), 0);
	assert_int_equal(bb_job_plan(job, 0, 5, plan), 15);
	assert_int_equal(r->nbefore, 15);
	for (unsigned k = 0; k < 15; k++) {
		assert_int_equal(r->before[k].variant, plan[k].variant);
		assert_int_equal(r->before[k].round, plan[k].round);
	}
	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(jr.vs[i].n, 4);
	assert_true(jr.have_cmp);
	assert_int_equal(jr.cmp[2].method, BB_AB_METHOD_PAIRED);
	assert_false(jr.cmp[1].higher_is_better); /* cpu_per_io */
	bb_jobrun_free(&jr);
	job_put(job);

	/* blocked: all of A, then all of B; compared once, unpaired */
	job = job_parse(
		"{\"name\": \"blocked\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 8, \"number_ios\": 3000},"
		" \"variants\": {\"A\": {}, \"B\": {}},"
		" \"repeat\": 3, \"warmup\": 1, \"order\": \"blocked\", \"max_repeat\": 9}");
	memset(r, 0, sizeof(*r));
	r->seq_ok = true;
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), 0);
	assert_int_equal(r->nbefore, 8);
	assert_true(r->seq_ok);
	for (unsigned k = 0; k < 8; k++) {
		assert_int_equal(r->before[k].variant, k / 4);
		assert_int_equal(r->before[k].warmup, k % 4 == 0);
	}
	assert_int_equal(r->nround, 1);
	assert_true(jr.have_cmp);
	assert_int_equal(jr.cmp[1].method, BB_AB_METHOD_UNPAIRED);
	/* no adaptive rounds in blocked order */
	assert_int_equal(jr.rounds_planned, 3);
	assert_int_equal(jr.runs_done, 8);
	/* once per init */
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), -EALREADY);
	assert_int_equal(r->nbefore, 8);
	bb_jobrun_free(&jr);
	free(r);
	job_put(job);
}

/* A calibrated 2 us per I/O on B at queue depth 32: far slower than a
 * NOP, whatever the noise of the machine. */
static void test_inject_detected(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"inject\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 32, \"runtime\": \"80ms\"},"
		" \"variants\": {\"A\": {}, \"B\": {\"inject_ns\": 2000}},"
		" \"repeat\": 8, \"warmup\": 1}");
	struct bb_jobrun jr;
	char err[512], line[512];

	(void)state;
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, NULL, NULL, err, sizeof(err)), 0);
	bb_ab_format(&jr.cmp[1], line, sizeof(line));
	print_message("  %s\n", line);
	assert_int_equal(jr.cmp[1].verdict, BB_AB_SLOWER);
	assert_string_equal(bb_jobrun_verdict(&jr), "slower");
	/* 2 us per I/O caps B below 500K IOPS */
	assert_true(jr.cmp[1].b.median < 5.5e5);
	assert_true(jr.cmp[1].change < -0.2);
	bb_jobrun_free(&jr);
	job_put(job);

	/* the same as latency (lower is better): slower too */
	job = job_parse(
		"{\"name\": \"inject lat\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 32, \"runtime\": \"80ms\", \"lat\": \"io\"},"
		" \"variants\": {\"A\": {}, \"B\": {\"inject_ns\": 2000}},"
		" \"repeat\": 8, \"warmup\": 1, \"metric\": \"lat_mean\"}");
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, NULL, NULL, err, sizeof(err)), 0);
	assert_string_equal(bb_jobrun_verdict(&jr), "slower");
	assert_true(jr.cmp[1].change > 0.2);
	bb_jobrun_free(&jr);
	job_put(job);

	/* B and C against A: a family of 2, Holm-adjusted (the smaller p
	 * doubled), both still slower; the noise by level in the JSON */
	job = job_parse(
		"{\"name\": \"inject 3\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 32, \"runtime\": \"80ms\"},"
		" \"variants\": {\"A\": {}, \"B\": {\"inject_ns\": 2000},"
		" \"C\": {\"inject_ns\": 3000}}, \"repeat\": 8, \"warmup\": 1}");
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, NULL, NULL, err, sizeof(err)), 0);
	for (int i = 1; i <= 2; i++) {
		assert_int_equal(jr.cmp[i].family, 2);
		assert_int_equal(jr.cmp[i].multiple, BB_AB_MULTIPLE_HOLM);
		assert_true(jr.cmp[i].p_adj >= jr.cmp[i].p_value);
		assert_true(jr.cmp[i].p_adj <= 2 * jr.cmp[i].p_value + 1e-15);
		assert_int_equal(jr.cmp[i].verdict, BB_AB_SLOWER);
	}
	assert_true(jr.have_noise);
	assert_true(jr.noise.level[BB_AB_NOISE_RUN].measured);
	{
		struct json_object *o = bb_jobrun_to_json(&jr), *n;

		assert_true(json_object_object_get_ex(o, "noise", &n));
		assert_non_null(json_object_object_get(
			json_object_object_get(n, "levels"), "run"));
		assert_string_equal(json_object_get_string(
					    json_object_object_get(o, "multiple")),
				    "holm");
		json_object_put(o);
	}
	bb_jobrun_free(&jr);
	job_put(job);
}

struct canceller {
	_Atomic bool *flag;
	unsigned delay_ms;
};

static void *cancel_thread(void *arg)
{
	struct canceller *c = arg;
	struct timespec ts = { .tv_sec = c->delay_ms / 1000,
			       .tv_nsec = (long)(c->delay_ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
	atomic_store(c->flag, true);
	return NULL;
}

static void test_cancel(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"long\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 16, \"runtime\": \"10s\"},"
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 3}");
	_Atomic bool flag = false;
	struct canceller c = { .flag = &flag, .delay_ms = 200 };
	struct bb_jobrun jr;
	struct rec *r = rec_new();
	pthread_t th;
	char err[512];
	double t0, dt;
	int ret;

	(void)state;
	assert_int_equal(bb_jobrun_init(&jr, job, &flag), 0);
	t0 = now_s();
	assert_int_equal(pthread_create(&th, NULL, cancel_thread, &c), 0);
	ret = bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err));
	dt = now_s() - t0;
	pthread_join(th, NULL);
	assert_int_equal(ret, -ECANCELED);
	assert_string_equal(err, "cancelled");
	print_message("  cancelled after %.3f s\n", dt);
	assert_true(dt < 1.0);
	/* the cancelled run saw after_run, nothing ran after it */
	assert_int_equal(r->nbefore, 1);
	assert_int_equal(r->nafter, 1);
	assert_int_equal(r->after_ret[0], -ECANCELED);
	assert_int_equal(jr.runs_done, 0);
	bb_jobrun_free(&jr);

	/* already cancelled: no run starts */
	assert_int_equal(bb_jobrun_init(&jr, job, &flag), 0);
	memset(r, 0, sizeof(*r));
	t0 = now_s();
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), -ECANCELED);
	assert_true(now_s() - t0 < 0.5);
	assert_int_equal(r->nafter, 1);
	bb_jobrun_free(&jr);
	free(r);
	job_put(job);
}

static void test_hook_errors(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"hooks\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 8, \"number_ios\": 2000},"
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 3,"
		" \"order\": \"interleaved\"}");
	struct bb_jobrun jr;
	struct rec *r = rec_new();
	char err[512];

	(void)state;
	/* before_run of the 3rd run (A, first measured round) fails */
	r->fail_before_at = 3;
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), -EPERM);
	assert_string_equal(err, "run 3 (variant A, round 1): nomerges: permission denied");
	assert_int_equal(r->nbefore, 3);
	assert_int_equal(r->nafter, 3);       /* after_run still called */
	assert_int_equal(r->after_ret[2], -EPERM);
	assert_int_equal(jr.runs_done, 2);
	assert_false(jr.have_cmp);
	bb_jobrun_free(&jr);

	/* after_run of the 2nd run fails: the job stops there */
	memset(r, 0, sizeof(*r));
	r->fail_after_at = 2;
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), -ENOSPC);
	assert_string_equal(err, "run 2 (variant B, warm-up 1): store full");
	assert_int_equal(r->nbefore, 2);
	assert_int_equal(r->nafter, 2);
	bb_jobrun_free(&jr);
	free(r);
	job_put(job);

	/* a failing run: its engine message, with where it happened */
	job = job_parse(
		"{\"name\": \"missing\", \"target\": \"/nonexistent/dir/file\","
		" \"workload\": {\"number_ios\": 10},"
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 2, \"warmup\": 0,"
		" \"order\": \"interleaved\"}");
	r = rec_new();
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_true(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)) < 0);
	print_message("  %s\n", err);
	assert_true(!strncmp(err, "run 1 (variant A, round 1): ", 28));
	assert_true(strlen(err) > 30);
	assert_int_equal(r->nafter, 1);
	assert_true(r->after_ret[0] < 0);
	bb_jobrun_free(&jr);
	free(r);
	job_put(job);
}

/* A/A with too few rounds to decide: rounds are added, up to max_repeat
 * and not beyond. */
static void test_adaptive(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"a/a\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 8, \"number_ios\": 3000},"
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 2, \"warmup\": 1,"
		" \"max_repeat\": 9, \"min_effect\": 0}");
	struct bb_jobrun jr;
	struct rec *r = rec_new();
	char err[512];

	(void)state;
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, &rec_ops, r, err, sizeof(err)), 0);
	print_message("  stopped after %u rounds: %s\n", jr.rounds_planned,
		      bb_jobrun_verdict(&jr));
	/* the sequential plan decides (looks 2..9): it stops at a look when
	 * settled or futile, or at the budget */
	assert_non_null(jr.plan);
	assert_int_equal(jr.cmp[1].design, BB_AB_DESIGN_SEQUENTIAL);
	assert_true(jr.cmp[1].at_look);
	assert_true(jr.rounds_planned >= 2);
	assert_true(jr.rounds_planned <= 9);
	assert_int_equal(jr.vs[0].n, jr.rounds_planned);
	assert_int_equal(jr.vs[1].n, jr.rounds_planned);
	assert_int_equal(jr.runs_planned, (1 + jr.rounds_planned) * 2);
	assert_int_equal(jr.runs_done, jr.runs_planned);
	assert_int_equal(r->nbefore, jr.runs_planned);
	assert_int_equal(r->nround, jr.rounds_planned - 1);
	/* stopped because settled, futile, or out of budget */
	if (jr.rounds_planned < 9) {
		bool more = true;

		assert_int_equal(bb_ab_want_more(&jr.cmp[1], 9, &more), 0);
		assert_false(more);
	}
	bb_jobrun_free(&jr);

	/* without max_repeat: exactly repeat rounds */
	bb_job_free(job);
	free(job);
	job = job_parse(
		"{\"name\": \"a/a\", \"target\": \"nop\","
		" \"workload\": {\"iodepth\": 8, \"number_ios\": 3000},"
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 2, \"warmup\": 0,"
		" \"order\": \"interleaved\"}");
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(&jr, NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(jr.rounds_planned, 2);
	assert_int_equal(jr.runs_done, 4);
	assert_int_equal(jr.cmp[1].verdict, BB_AB_INCONCLUSIVE);
	assert_string_equal(bb_jobrun_verdict(&jr), "inconclusive");
	bb_jobrun_free(&jr);
	free(r);
	job_put(job);
}

static int have_io_uring(void **state)
{
	struct io_uring ring;

	(void)state;
	if (io_uring_queue_init(4, &ring, 0))
		return -1;
	io_uring_queue_exit(&ring);
	return 0;
}

/* The run hook: the job runner's plan, statistics and adaptive rounds
 * over runs the caller makes (a replay, a simulation); each value keeps
 * its run's place in its round. */
struct fake {
	unsigned calls;
	struct bb_job_step seen[64];
};

static int fake_run(void *arg, struct bb_jobrun *jr, const struct bb_job_step *st,
		    const struct bb_config *cfg, struct bb_result *r, char *err,
		    size_t errlen)
{
	struct fake *fk = arg;

	(void)jr;
	(void)cfg;
	(void)err;
	(void)errlen;
	if (fk->calls < 64)
		fk->seen[fk->calls] = *st;
	fk->calls++;
	/* B 10 % slower; the first run of a round 1 % faster */
	r->duration_ns = 1000000000ull;
	r->io.ios = (uint64_t)(1e6 * (st->variant ? 0.9 : 1.0) * (st->pos ? 1.0 : 1.01));
	return 0;
}

static void test_run_hook(void **state)
{
	struct bb_job *job = job_parse(
		"{\"name\": \"hook\", \"target\": \"nop\","
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 8, \"warmup\": 1,"
		" \"seed\": 3}");
	struct bb_jobrun_ops ops = { .run = fake_run };
	struct bb_jobrun *jr = calloc(1, sizeof(*jr));
	struct bb_job_step plan[18];
	struct fake fk = { 0 };
	struct json_object *o, *pos;
	char err[256];

	(void)state;
	assert_int_equal(bb_jobrun_init(jr, job, NULL), 0);
	assert_int_equal(bb_jobrun_exec(jr, &ops, &fk, err, sizeof(err)), 0);
	assert_int_equal(fk.calls, 18);
	assert_int_equal(bb_job_plan(job, 0, 9, plan), 18);
	for (unsigned k = 0; k < 18; k++) {
		assert_int_equal(fk.seen[k].variant, plan[k].variant);
		assert_int_equal(fk.seen[k].pos, k % 2);
	}
	assert_int_equal(jr->vs[0].n, 8);
	/* the values the hook made, by place: 1.01 M first, 1 M second */
	for (unsigned i = 0; i < 8; i++) {
		unsigned p = plan[2 * (i + 1)].variant == 0 ? 0 : 1;

		assert_int_equal(jr->vs[0].pos[i], p);
		assert_true(fabs(jr->vs[0].vals[i] - (p ? 1e6 : 1.01e6)) < 1);
	}
	assert_true(jr->have_cmp);
	assert_int_equal(jr->cmp[1].verdict, BB_AB_SLOWER);
	assert_false(jr->quiet.checked); /* no gate */
	o = bb_jobrun_to_json(jr);
	assert_true(json_object_object_get_ex(
		json_object_object_get(json_object_object_get(o, "variants"), "A"),
		"positions", &pos));
	assert_int_equal(json_object_array_length(pos), 8);
	assert_true(json_object_get_int(json_object_object_get(
			    json_object_object_get(o, "order"), "rounds")) == 8);
	json_object_put(o);
	bb_jobrun_free(jr);
	job_put(job);

	/* an adaptive job with a plan made once: the same rounds and verdict
	 * as with its own; a plan of other looks is refused */
	job = job_parse(
		"{\"name\": \"hook\", \"target\": \"nop\","
		" \"variants\": {\"A\": {}, \"B\": {}}, \"repeat\": 4,"
		" \"max_repeat\": 12, \"seed\": 3}");
	{
		struct bb_ab_seq *plan = NULL, *other = NULL;
		struct bb_ab_result own;
		unsigned rounds;

		assert_int_equal(bb_ab_seq_create(&plan, 4, 12, 0.95), 0);
		assert_int_equal(bb_ab_seq_create(&other, 4, 13, 0.95), 0);
		memset(&fk, 0, sizeof(fk));
		assert_int_equal(bb_jobrun_init(jr, job, NULL), 0);
		assert_int_equal(bb_jobrun_exec(jr, &ops, &fk, err, sizeof(err)), 0);
		own = jr->cmp[1];
		rounds = jr->rounds_planned;
		bb_jobrun_free(jr);
		memset(&fk, 0, sizeof(fk));
		assert_int_equal(bb_jobrun_init_plan(jr, job, NULL, plan), 0);
		assert_ptr_equal(jr->plan, plan);
		assert_int_equal(bb_jobrun_exec(jr, &ops, &fk, err, sizeof(err)), 0);
		assert_int_equal(jr->rounds_planned, rounds);
		assert_int_equal(jr->cmp[1].verdict, own.verdict);
		assert_true(jr->cmp[1].p_value == own.p_value);
		bb_jobrun_free(jr);
		assert_int_equal(bb_jobrun_init_plan(jr, job, NULL, other), -EINVAL);
		bb_ab_seq_free(plan);
		bb_ab_seq_free(other);
	}
	free(jr);
	job_put(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interleaved),
		cmocka_unit_test(test_random_and_blocked),
		cmocka_unit_test(test_inject_detected),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_hook_errors),
		cmocka_unit_test(test_adaptive),
		cmocka_unit_test(test_run_hook),
	};

	if (have_io_uring(NULL)) {
		fprintf(stderr, "test_jobrun: io_uring is not available\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
