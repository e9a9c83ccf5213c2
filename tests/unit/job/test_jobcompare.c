// SPDX-License-Identifier: GPL-2.0-only
/* test_jobcompare.c - the comparison of whole jobs (core/job/jobcompare.c)
 * on job and run documents built here with fixed samples.
 *
 * Expected values are computed independently of abstats.c (by hand and
 * with a few lines of Python, written down at each data set): the
 * two-sample Hodges-Lehmann shift is the median of the 25 differences
 * log(y_j) - log(x_i), its exact interval [D_(k), D_(26-k)] with k from
 * the null distribution of the Mann-Whitney U for 5 + 5 runs, which an
 * enumeration of the C(10,5) = 252 rank subsets gives:
 *   u        0  1  2  3  4
 *   count    1  1  2  3  5      cumulative 1 2 4 7 12 (of 252)
 * P(U <= 2) = 4/252 = 0.0159 <= 0.025 < P(U <= 3) = 7/252 = 0.0278, so
 * k - 1 = 2, k = 3: the CI is [D_(3), D_(23)] with coverage
 * 1 - 2 * 4/252 = 0.968254 ("96.8% CI").  Those are the numbers of the
 * run-level comparison (asked for: level run).  The default, the job (or
 * boot) as the unit, is checked against a pooled t by hand: levels
 * {100, 102, 98} against {105, 107, 103} (each job's runs x/1.01, x,
 * x*1.01, whose Hodges-Lehmann level is log x): change +5.0013 %, 95 %
 * CI +0.45336 % .. +9.75514 %, p 0.037656 (python: t 3.0601 at 4 df,
 * t quantile 2.776445). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <biobench/jobcompare.h>

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define assert_near(x, y, tol) assert_true(fabs((x) - (y)) <= (tol))

/* BASE, variant A: 5 runs around 100. */
static const double base_a[5] = { 100, 103, 97, 101, 99 };
/* SLOW: every run below every base run (U = 0).  Differences by hand:
 *   median of the 25 ratios y/x is 95/103 (the 13th), D_(3) = 90/101,
 *   D_(23) = 95/99; exact two-sided p = 2 * P(U <= 0) = 2/252;
 *   median(other)/median(base) = 92/100. */
static const double slow_a[5] = { 91, 94, 90, 95, 92 };
/* SAME: interleaved with the base, no ties: U = 14 (pairs y_j > x_i),
 * two-sided exact p = 2 * P(U >= 14) = 2 * 106/252 = 0.841270. */
static const double same_a[5] = { 100.5, 98, 102, 99.5, 101.5 };

#define CONFIG "{\"target\":\"/dev/loop7\",\"rw\":\"randread\",\"bs\":4096," \
	       "\"iodepth\":32,\"runtime\":1,\"inject_ns\":0}"

struct jdoc {
	struct json_object *job, *runs;
	int seq;
};

/* A job document like bb_store_job_get's: id, name, state, spec (metric
 * iops, min_effect 1, confidence 0.95 unless spec_extra says otherwise),
 * host with a boot id. */
static void jdoc_init(struct jdoc *d, int64_t id, const char *variants,
		      const char *spec_extra, const char *host_boot)
{
	char spec[1024], host[256];

	snprintf(spec, sizeof(spec),
		 "{\"name\":\"j\",\"target\":\"/dev/loop7\",\"workload\":{},"
		 "\"variants\":%s,\"repeat\":5,\"metric\":\"iops\","
		 "\"min_effect\":1,\"confidence\":0.95%s%s}",
		 variants, spec_extra ? "," : "", spec_extra ? spec_extra : "");
	snprintf(host, sizeof(host),
		 "{\"id\":1,\"hostname\":\"h\",\"kernel\":\"6.18.0\","
		 "\"boot_id\":\"%s\"}",
		 host_boot);
	d->job = json_object_new_object();
	json_object_object_add(d->job, "id", json_object_new_int64(id));
	json_object_object_add(d->job, "name", json_object_new_string("j"));
	json_object_object_add(d->job, "state", json_object_new_string("done"));
	json_object_object_add(d->job, "target",
			       json_object_new_string("/dev/loop7"));
	json_object_object_add(d->job, "spec", json_tokener_parse(spec));
	json_object_object_add(d->job, "host", json_tokener_parse(host));
	json_object_object_add(d->job, "device", NULL);
	assert_non_null(json_object_object_get(d->job, "spec"));
	d->runs = json_object_new_object();
	json_object_object_add(d->runs, "runs", json_object_new_array());
	d->seq = 0;
}

/* One run: its variant, value, boot (NULL: none recorded), config JSON
 * text, read_ahead_kb at its start, and flags. */
static void jdoc_run(struct jdoc *d, const char *variant, double metric,
		     const char *boot, const char *config, const char *ra,
		     bool warmup, bool failed, bool disturbed)
{
	struct json_object *r = json_object_new_object();
	struct json_object *res = json_object_new_object();
	struct json_object *qs = json_object_new_object(), *q;

	json_object_object_add(r, "seq", json_object_new_int(d->seq++));
	json_object_object_add(r, "variant", json_object_new_string(variant));
	json_object_object_add(r, "warmup", json_object_new_boolean(warmup));
	json_object_object_add(r, "state",
			       json_object_new_string(failed ? "failed" : "done"));
	json_object_object_add(r, "metric", json_object_new_double(failed ? 0 : metric));
	json_object_object_add(res, "config", json_tokener_parse(config));
	if (boot)
		json_object_object_add(res, "boot_id", json_object_new_string(boot));
	json_object_object_add(qs, "scheduler", json_object_new_string("none"));
	json_object_object_add(qs, "read_ahead_kb", json_object_new_string(ra));
	json_object_object_add(res, "queue_settings", qs);
	q = json_object_new_object();
	json_object_object_add(q, "disturbed", json_object_new_boolean(disturbed));
	json_object_object_add(res, "quiescence", q);
	json_object_object_add(r, "result", res);
	json_object_array_add(json_object_object_get(d->runs, "runs"), r);
}

static void jdoc_runs(struct jdoc *d, const char *variant, const double *v,
		      size_t n, const char *boot, const char *config,
		      const char *ra)
{
	for (size_t i = 0; i < n; i++)
		jdoc_run(d, variant, v[i], boot, config, ra, false, false, false);
}

static void jdoc_free(struct jdoc *d)
{
	json_object_put(d->job);
	json_object_put(d->runs);
}

static struct json_object *jget(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok && o;
	     tok = strtok_r(NULL, ".", &save)) {
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(tok));
		else if (!json_object_object_get_ex(o, tok, &o))
			return NULL;
	}
	return o;
}

static double jnum(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	if (!v)
		fail_msg("%s missing in %s", path,
			 json_object_to_json_string(o));
	return json_object_get_double(v);
}

static const char *jstr(struct json_object *o, const char *path)
{
	struct json_object *v = jget(o, path);

	if (!v)
		fail_msg("%s missing in %s", path,
			 json_object_to_json_string(o));
	return json_object_get_string(v);
}

static int cmp2(struct jdoc *b, struct jdoc *o, size_t no,
		const struct bb_jobcmp_opts *opts, struct json_object **out,
		struct bb_jobcmp_error *e)
{
	struct bb_jobcmp_job base = { b->job, b->runs };
	struct bb_jobcmp_job with[4];

	for (size_t i = 0; i < no; i++)
		with[i] = (struct bb_jobcmp_job){ o[i].job, o[i].runs };
	return bb_jobcmp(&base, with, no, opts, out, e);
}

/* The diff row of key (and variant, NULL for a row of all), or NULL. */
static struct json_object *diff_row(struct json_object *doc, const char *key,
				    const char *variant)
{
	struct json_object *rows = jget(doc, "diff");

	for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
		struct json_object *r = json_object_array_get_idx(rows, i);
		struct json_object *v = jget(r, "variant");

		if (strcmp(jstr(r, "key"), key))
			continue;
		if ((!variant && !v) ||
		    (variant && v && !strcmp(json_object_get_string(v), variant)))
			return r;
	}
	return NULL;
}

/* The row exists, differs or not, and has values v0, v1 (NULL: any). */
static void assert_row(struct json_object *doc, const char *key,
		       const char *variant, bool differs, const char *v0,
		       const char *v1)
{
	struct json_object *r = diff_row(doc, key, variant);

	if (!r)
		fail_msg("no diff row %s [%s]", key, variant ? variant : "all");
	assert_int_equal(json_object_get_boolean(jget(r, "differs")), differs);
	if (v0)
		assert_string_equal(jstr(r, "values.0"), v0);
	if (v1)
		assert_string_equal(jstr(r, "values.1"), v1);
}

/* ---- tests ------------------------------------------------------------ */

static const struct bb_jobcmp_opts run_level = { .level = BB_JOBCMP_LEVEL_RUN };

/* SLOW against the base, run level (asked for): the numbers of the data
 * set's comment, and what that level assumes. */
static void test_slower_exact(void **state)
{
	struct jdoc b, o;
	struct json_object *doc = NULL, *c;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_init(&b, 3, "{\"A\":{}}", "\"aa\":true", "boot-1");
	jdoc_init(&o, 4, "{\"A\":{}}", "\"aa\":true", "boot-2");
	jdoc_runs(&b, "A", base_a, 5, "boot-1", CONFIG, "128");
	jdoc_runs(&o, "A", slow_a, 5, "boot-2", CONFIG, "128");
	assert_int_equal(cmp2(&b, &o, 1, &run_level, &doc, &e), 0);
	c = jget(doc, "comparisons.0");
	assert_non_null(c);
	assert_string_equal(jstr(c, "method"), "unpaired");
	assert_string_equal(jstr(c, "compared_by"), "run");
	assert_string_equal(jstr(doc, "level"), "run");
	assert_non_null(strstr(jstr(c, "assumes"), "no job-to-job or boot-to-boot"));
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "run-level comparison (asked for)"));
	assert_near(jnum(c, "change"), 95.0 / 103 - 1, 1e-12);
	assert_near(jnum(c, "ci_lo"), 90.0 / 101 - 1, 1e-12);
	assert_near(jnum(c, "ci_hi"), 95.0 / 99 - 1, 1e-12);
	assert_near(jnum(c, "ci_level"), 1 - 2 * 4.0 / 252, 1e-12);
	assert_string_equal(jstr(c, "ci_label"), "96.8% CI");
	assert_near(jnum(c, "p_value"), 2.0 / 252, 1e-12);
	assert_near(jnum(c, "change_median"), 92.0 / 100 - 1, 1e-12);
	assert_string_equal(jstr(c, "verdict"), "slower");
	assert_string_equal(jstr(doc, "verdict"), "slower");
	assert_int_equal((int)jnum(c, "base_job"), 3);
	assert_int_equal((int)jnum(c, "job"), 4);
	assert_string_equal(jstr(c, "text"),
			    "job 4 A is 7.8% slower than job 3 A (96.8% CI "
			    "-10.9% .. -4.0%, p=0.008, n=5+5 runs)");
	/* noise floor of each side: SD of the logs of its runs */
	{
		double m = 0, ss = 0;

		for (int i = 0; i < 5; i++)
			m += log(base_a[i]) / 5;
		for (int i = 0; i < 5; i++)
			ss += (log(base_a[i]) - m) * (log(base_a[i]) - m);
		assert_near(jnum(doc, "jobs.0.variants.A.log_sd"), sqrt(ss / 4),
			    1e-12);
		assert_near(jnum(c, "base_spread"), expm1(sqrt(ss / 4)), 1e-12);
	}
	/* one boot a side, not the same */
	assert_int_equal((int)jnum(doc, "jobs.0.boots"), 1);
	assert_int_equal((int)jnum(doc, "jobs.1.boots"), 1);
	assert_int_equal((int)jnum(c, "boots.shared"), 0);
	assert_false(json_object_get_boolean(jget(doc, "boots.single_boot")));
	assert_non_null(strstr(jstr(doc, "boots.statement"),
			       "between-boot variance are not in the interval"));
	/* the boot ids differ: that row is highlighted */
	assert_row(doc, "run.boot_id", NULL, true, "boot-1", "boot-2");
	/* the workload is the same: no row of it differs */
	c = diff_row(doc, "config.bs", NULL);
	assert_non_null(c);
	assert_true(json_object_get_boolean(jget(c, "workload")));
	assert_false(json_object_get_boolean(jget(c, "differs")));
	json_object_put(doc);

	/* the default: the boot is the unit (every run has a boot id, the
	 * sides share none), one a side: no verdict, whatever the runs say */
	assert_int_equal(cmp2(&b, &o, 1, NULL, &doc, &e), 0);
	c = jget(doc, "comparisons.0");
	assert_string_equal(jstr(doc, "level"), "unit");
	assert_string_equal(jstr(c, "method"), "units");
	assert_string_equal(jstr(c, "compared_by"), "boot");
	assert_null(jget(c, "assumes"));
	assert_string_equal(jstr(c, "verdict"), "inconclusive");
	assert_string_equal(jstr(doc, "verdict"), "inconclusive");
	assert_true(json_object_get_boolean(jget(c, "too_few")));
	assert_int_equal((int)jnum(c, "units.base"), 1);
	assert_int_equal((int)jnum(c, "units.other"), 1);
	assert_int_equal((int)jnum(c, "units.runs_base"), 5);
	assert_true(jnum(c, "more_needed") >= 1);
	assert_int_equal((int)jnum(c, "units.needed_per_side"),
			 (int)jnum(c, "more_needed") + 1);
	assert_null(jget(c, "ci_lo"));
	print_message("  %s\n", jstr(c, "text"));
	assert_true(!strncmp(jstr(c, "text"), "inconclusive: one boot per side", 31));
	assert_non_null(strstr(jstr(c, "text"), "more boots each side needed"));
	assert_non_null(strstr(jstr(doc, "boots.statement"), "The boot is the unit"));
	assert_non_null(strstr(jstr(doc, "boots.statement"),
			       "job 3: 1 (base), job 4: 1"));
	json_object_put(doc);
	jdoc_free(&b);
	jdoc_free(&o);
}

/* An A/A job pools A and A2; warm-ups and failed runs are left out,
 * disturbed ones kept (counted) unless the job excludes them. */
static void test_samples(void **state)
{
	struct jdoc b, o;
	struct json_object *doc = NULL;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_init(&b, 3, "{\"A\":{}}", "\"aa\":true", "boot-1");
	jdoc_init(&o, 4, "{\"A\":{}}",
		  "\"quiescence\":{\"exclude_disturbed\":true}", "boot-1");
	jdoc_run(&b, "A", 50, "boot-1", CONFIG, "128", true, false, false);
	jdoc_run(&b, "A2", 50, "boot-1", CONFIG, "128", true, false, false);
	jdoc_runs(&b, "A", base_a, 5, "boot-1", CONFIG, "128");
	jdoc_runs(&b, "A2", same_a, 5, "boot-1", CONFIG, "128");
	jdoc_run(&b, "A2", 10, "boot-1", CONFIG, "128", false, false, true);
	jdoc_runs(&o, "A", slow_a, 5, "boot-1", CONFIG, "128");
	jdoc_run(&o, "A", 1, "boot-1", CONFIG, "128", false, false, true);
	jdoc_run(&o, "A", 1, "boot-1", CONFIG, "128", false, true, false);
	/* a variant of the other that the base has not */
	jdoc_runs(&o, "C", slow_a, 5, "boot-1", CONFIG, "128");
	assert_int_equal(cmp2(&b, &o, 1, &run_level, &doc, &e), 0);
	/* base: 5 A + 5 A2 + the disturbed one kept */
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.n"), 11);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.warmups"), 2);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.disturbed"), 1);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.excluded"), 0);
	/* other: the disturbed run left out, the failed one too */
	assert_int_equal((int)jnum(doc, "jobs.1.variants.A.n"), 5);
	assert_int_equal((int)jnum(doc, "jobs.1.variants.A.excluded"), 1);
	assert_int_equal((int)jnum(doc, "jobs.1.variants.A.failed"), 1);
	assert_int_equal((int)jnum(doc, "comparisons.0.a.n"), 11);
	assert_int_equal((int)jnum(doc, "comparisons.0.b.n"), 5);
	assert_int_equal(json_object_array_length(jget(doc, "comparisons")), 1);
	assert_string_equal(jstr(doc, "unmatched.0.variant"), "C");
	/* one boot for everything */
	assert_true(json_object_get_boolean(jget(doc, "boots.single_boot")));
	assert_non_null(strstr(jstr(doc, "boots.statement"), "one boot"));
	assert_int_equal((int)jnum(doc, "comparisons.0.boots.shared"), 1);
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "left out (exclude_disturbed)"));
	json_object_put(doc);
	/* the default in one boot: the job is the unit, its runs pooled */
	assert_int_equal(cmp2(&b, &o, 1, NULL, &doc, &e), 0);
	assert_string_equal(jstr(doc, "comparisons.0.compared_by"), "job");
	assert_int_equal((int)jnum(doc, "comparisons.0.units.runs_base"), 11);
	assert_int_equal((int)jnum(doc, "comparisons.0.units.runs_other"), 5);
	assert_true(!strncmp(jstr(doc, "comparisons.0.text"),
			     "inconclusive: one job per side", 30));
	assert_non_null(strstr(jstr(doc, "boots.statement"),
			       "All runs come from one boot: the job is the unit"));
	json_object_put(doc);

	/* --variant picks one; a variant the base lacks is refused */
	{
		struct bb_jobcmp_opts opts = { .variant = "C" };

		assert_int_equal(cmp2(&b, &o, 1, &opts, &doc, &e), -EINVAL);
		assert_string_equal(e.code, "invalid_argument");
		assert_string_equal(e.field, "variant");
		assert_non_null(strstr(e.msg, "job 3 has no variant 'C'"));
		assert_null(doc);
	}
	jdoc_free(&b);
	jdoc_free(&o);
}

/* A variant whose runs span boots (a boot job's) is one value per boot,
 * its median; runs of a redone boot's first attempt are left out. */
static void test_boot_samples(void **state)
{
	static const double boot1[3] = { 100, 130, 101 };
	static const double boot2[3] = { 90, 91, 89 };
	struct jdoc b, o;
	struct json_object *doc = NULL, *r;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_init(&b, 5, "{\"A\":{}}", NULL, "boot-9");
	jdoc_init(&o, 6, "{\"A\":{}}", NULL, "boot-9");
	jdoc_runs(&b, "A", boot1, 3, "boot-1", CONFIG, "128");
	jdoc_runs(&b, "A", boot2, 3, "boot-2", CONFIG, "128");
	/* the first attempt of a boot that was redone */
	jdoc_run(&b, "A", 5, "boot-3", CONFIG, "128", false, false, false);
	r = json_object_array_get_idx(jget(b.runs, "runs"), 6);
	json_object_object_add(r, "discarded",
			       json_object_new_string("boot 3 was interrupted"));
	jdoc_runs(&o, "A", slow_a, 5, "boot-4", CONFIG, "128");
	assert_int_equal(cmp2(&b, &o, 1, &run_level, &doc, &e), 0);
	/* the job's runs, in run order (the redone boot's left out) */
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.n"), 6);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.runs"), 6);
	assert_string_equal(jstr(doc, "jobs.0.variants.A.unit"), "run");
	assert_true(jnum(doc, "jobs.0.variants.A.values.1") == 130);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.seqs.3"), 3);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.discarded"), 1);
	assert_int_equal((int)jnum(doc, "jobs.0.variants.A.boots"), 2);
	assert_int_equal((int)jnum(doc, "jobs.1.variants.A.n"), 5);
	/* run level: 2 boots give 2 values, their medians 101 and 90 */
	assert_int_equal((int)jnum(doc, "comparisons.0.a.n"), 2);
	assert_true(jnum(doc, "comparisons.0.a.max") == 101);
	assert_true(jnum(doc, "comparisons.0.a.min") == 90);
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "A's 6 runs span 2 boots"));
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "interrupted and redone: left out"));
	json_object_put(doc);
	/* the default: boots as units, 2 against 1 (the spread of the
	 * base's two boots gives the t its degree of freedom) */
	assert_int_equal(cmp2(&b, &o, 1, NULL, &doc, &e), 0);
	assert_string_equal(jstr(doc, "comparisons.0.compared_by"), "boot");
	assert_int_equal((int)jnum(doc, "comparisons.0.units.base"), 2);
	assert_int_equal((int)jnum(doc, "comparisons.0.units.other"), 1);
	assert_true(jnum(doc, "comparisons.0.units.df") == 1);
	assert_false(json_object_get_boolean(jget(doc, "comparisons.0.too_few")));
	assert_non_null(strstr(jstr(doc, "comparisons.0.ci_method"), "2+1 boots, df 1"));
	assert_non_null(strstr(jstr(doc, "comparisons.0.text"),
			       "more boots each side needed"));
	json_object_put(doc);
	jdoc_free(&b);
	jdoc_free(&o);
}

/* Two OTHERs: Holm over both (p_adj of the smaller p = 2 p); the A/A-like
 * one is not called faster or slower. */
static void test_holm_two_others(void **state)
{
	struct jdoc b, o[2];
	struct json_object *doc = NULL;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_init(&b, 3, "{\"A\":{},\"B\":{}}", NULL, "boot-1");
	jdoc_init(&o[0], 4, "{\"A\":{}}", NULL, "boot-2");
	jdoc_init(&o[1], 5, "{\"A\":{}}", NULL, "boot-3");
	jdoc_runs(&b, "A", base_a, 5, NULL, CONFIG, "128");
	jdoc_runs(&b, "B", base_a, 5, NULL, CONFIG, "128");
	jdoc_runs(&o[0], "A", slow_a, 5, NULL, CONFIG, "128");
	jdoc_runs(&o[1], "A", same_a, 5, NULL, CONFIG, "128");
	assert_int_equal(cmp2(&b, o, 2, &run_level, &doc, &e), 0);
	assert_int_equal((int)jnum(doc, "family"), 2);
	assert_near(jnum(doc, "comparisons.0.p_value"), 2.0 / 252, 1e-12);
	assert_near(jnum(doc, "comparisons.0.p_adjusted"), 4.0 / 252, 1e-12);
	assert_near(jnum(doc, "comparisons.1.p_value"), 212.0 / 252, 1e-12);
	assert_near(jnum(doc, "comparisons.1.p_adjusted"), 212.0 / 252, 1e-12);
	assert_string_equal(jstr(doc, "comparisons.0.verdict"), "slower");
	assert_string_equal(jstr(doc, "comparisons.1.verdict"), "inconclusive");
	/* boots from the job's host when the runs have none */
	assert_int_equal((int)jnum(doc, "jobs.2.boots"), 1);
	assert_string_equal(jstr(doc, "jobs.2.boot_ids.0"), "boot-3");
	/* the base's B is not compared: not in the document */
	assert_null(jget(doc, "jobs.0.variants.B"));
	json_object_put(doc);
	jdoc_free(&b);
	jdoc_free(&o[0]);
	jdoc_free(&o[1]);
}

/* A workload field that differs is refused with the field and the values
 * named, and compared when allowed; a model knob that differs in one
 * variant and a queue setting changed by hand are diff rows. */
static void test_workload_and_diff(void **state)
{
	static const char bs64k[] =
		"{\"target\":\"/dev/loop7\",\"rw\":\"randread\",\"bs\":65536,"
		"\"iodepth\":32,\"runtime\":1,\"inject_ns\":0}";
	static const char inject[] =
		"{\"target\":\"/dev/loop7\",\"rw\":\"randread\",\"bs\":4096,"
		"\"iodepth\":32,\"runtime\":1,\"inject_ns\":1500}";
	struct bb_jobcmp_opts allow = { .allow_different_workload = true,
					.level = BB_JOBCMP_LEVEL_RUN };
	struct jdoc b, o, k;
	struct json_object *doc = NULL, *row;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_init(&b, 3, "{\"A\":{},\"B\":{}}", NULL, "boot-1");
	jdoc_init(&o, 4, "{\"A\":{},\"B\":{}}", NULL, "boot-1");
	jdoc_runs(&b, "A", base_a, 5, "boot-1", CONFIG, "128");
	jdoc_runs(&b, "B", base_a, 5, "boot-1", CONFIG, "128");
	jdoc_runs(&o, "A", same_a, 5, "boot-1", bs64k, "128");
	jdoc_runs(&o, "B", same_a, 5, "boot-1", bs64k, "128");
	assert_int_equal(cmp2(&b, &o, 1, &run_level, &doc, &e), -EINVAL);
	assert_null(doc);
	assert_string_equal(e.code, "different_workload");
	assert_string_equal(e.field, "workload.bs");
	assert_non_null(strstr(e.msg, "bs: 4096 in job 3, 65536 in job 4"));
	assert_non_null(strstr(e.msg, "allow_different_workload"));
	assert_int_equal(json_object_array_length(e.fields), 1);
	json_object_put(e.fields);
	assert_int_equal(cmp2(&b, &o, 1, &allow, &doc, &e), 0);
	assert_null(e.fields);
	assert_string_equal(jstr(doc, "workload.differs.0.field"), "bs");
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "workloads differ (bs)"));
	json_object_put(doc);

	/* B with inject_ns, and read_ahead_kb changed between the jobs */
	jdoc_init(&k, 5, "{\"A\":{},\"B\":{\"inject_ns\":1500}}", NULL,
		  "boot-1");
	jdoc_runs(&k, "A", same_a, 5, "boot-1", CONFIG, "256");
	jdoc_runs(&k, "B", slow_a, 5, "boot-1", inject, "256");
	assert_int_equal(cmp2(&b, &k, 1, &run_level, &doc, &e), 0);
	assert_row(doc, "queue.read_ahead_kb", NULL, true, "128", "256");
	assert_row(doc, "queue.scheduler", NULL, false, "none", "none");
	/* inject_ns differs in B only: one row per variant */
	assert_null(diff_row(doc, "config.inject_ns", NULL));
	assert_row(doc, "config.inject_ns", "B", true, "0", "1500");
	row = diff_row(doc, "config.inject_ns", "B");
	assert_false(json_object_get_boolean(jget(row, "workload")));
	assert_row(doc, "config.inject_ns", "A", false, "0", "0");
	assert_string_equal(jstr(doc, "comparisons.1.verdict"), "slower");
	assert_string_equal(jstr(doc, "verdict"), "slower");
	json_object_put(doc);
	jdoc_free(&b);
	jdoc_free(&o);
	jdoc_free(&k);
}

/* Refusals: another metric (also when allowed), a job without runs, too
 * few runs of a variant (a comparison error, not a refusal). */
static void test_refusals(void **state)
{
	struct bb_jobcmp_opts allow = { .allow_different_workload = true };
	struct jdoc b, o, q, f;
	struct json_object *doc = NULL;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_init(&b, 3, "{\"A\":{},\"B\":{}}", NULL, "boot-1");
	jdoc_runs(&b, "A", base_a, 5, "boot-1", CONFIG, "128");
	jdoc_runs(&b, "B", base_a, 1, "boot-1", CONFIG, "128");
	jdoc_init(&o, 4, "{\"A\":{}}", NULL, "boot-1");
	json_object_object_add(json_object_object_get(o.job, "spec"), "metric",
			       json_object_new_string("lat_p99"));
	jdoc_runs(&o, "A", slow_a, 5, "boot-1", CONFIG, "128");
	assert_int_equal(cmp2(&b, &o, 1, &allow, &doc, &e), -EINVAL);
	assert_string_equal(e.code, "different_metric");
	assert_string_equal(e.field, "metric");
	assert_non_null(strstr(e.msg, "job 3 measures iops, job 4 lat_p99"));

	jdoc_init(&q, 5, "{\"A\":{}}", NULL, "boot-1");
	json_object_object_add(q.job, "state", json_object_new_string("queued"));
	assert_int_equal(cmp2(&b, &q, 1, NULL, &doc, &e), -ENODATA);
	assert_string_equal(e.code, "no_comparison");
	assert_non_null(strstr(e.msg, "job 5 (queued) has no measured run"));

	/* B has one run in the base: that comparison says why */
	jdoc_init(&f, 6, "{\"A\":{},\"B\":{}}", NULL, "boot-1");
	jdoc_runs(&f, "A", slow_a, 5, "boot-1", CONFIG, "128");
	jdoc_runs(&f, "B", slow_a, 5, "boot-1", CONFIG, "128");
	json_object_object_add(f.job, "state", json_object_new_string("running"));
	assert_int_equal(cmp2(&b, &f, 1, &run_level, &doc, &e), 0);
	assert_string_equal(jstr(doc, "comparisons.0.verdict"), "slower");
	assert_non_null(strstr(jstr(doc, "comparisons.1.error"),
			       "needs 2 or more measured runs of B on each side"));
	/* a failed comparison makes the job verdict no better than
	 * inconclusive, but slower stays slower */
	assert_string_equal(jstr(doc, "verdict"), "slower");
	assert_int_equal((int)jnum(doc, "family"), 1);
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "job 6 is running"));
	json_object_put(doc);

	/* too many OTHERs */
	{
		struct bb_jobcmp_job base = { b.job, b.runs };
		struct bb_jobcmp_job with[BB_JOBCMP_MAX_WITH + 1];

		for (size_t i = 0; i <= BB_JOBCMP_MAX_WITH; i++)
			with[i] = (struct bb_jobcmp_job){ f.job, f.runs };
		assert_int_equal(bb_jobcmp(&base, with, BB_JOBCMP_MAX_WITH + 1,
					   NULL, &doc, &e),
				 -EINVAL);
		assert_string_equal(e.field, "with");
	}
	assert_true(bb_jobcmp_workload_field("iodepth"));
	assert_false(bb_jobcmp_workload_field("inject_ns"));
	jdoc_free(&b);
	jdoc_free(&o);
	jdoc_free(&q);
	jdoc_free(&f);
}

/* A job of 3 runs x/1.01, x, x*1.01 (level log x) in boot, with its
 * start and end (ISO 8601, NULL: not set). */
static void jdoc_level(struct jdoc *d, int64_t id, double x, const char *boot,
		       const char *started, const char *finished)
{
	const double v[3] = { x / 1.01, x, x * 1.01 };

	jdoc_init(d, id, "{\"A\":{}}", NULL, boot);
	jdoc_runs(d, "A", v, 3, boot, CONFIG, "128");
	if (started)
		json_object_object_add(d->job, "started",
				       json_object_new_string(started));
	if (finished)
		json_object_object_add(d->job, "finished",
				       json_object_new_string(finished));
}

static int cmp_sides(struct jdoc *b, size_t nb, struct jdoc *o, size_t no,
		     const struct bb_jobcmp_opts *opts, struct json_object **out,
		     struct bb_jobcmp_error *e)
{
	struct bb_jobcmp_job bj[BB_JOBCMP_MAX_JOBS], oj[BB_JOBCMP_MAX_JOBS];
	struct bb_jobcmp_side bs = { bj, nb }, os = { oj, no };

	for (size_t i = 0; i < nb; i++)
		bj[i] = (struct bb_jobcmp_job){ b[i].job, b[i].runs };
	for (size_t i = 0; i < no; i++)
		oj[i] = (struct bb_jobcmp_job){ o[i].job, o[i].runs };
	return bb_jobcmp_sides(&bs, &os, 1, opts, out, e);
}

/* Three jobs a side in one boot: the job is the unit, the pooled t of the
 * data set's comment; the run-level comparison of the same jobs calls a
 * difference the job-level one cannot back. */
static void test_sides_jobs(void **state)
{
	const double xa[3] = { 100, 102, 98 }, xb[3] = { 105, 107, 103 };
	struct jdoc b[3], o[3];
	struct json_object *doc = NULL, *c;
	struct bb_jobcmp_error e;
	static const char *const t[6][2] = {
		{ "2026-12-07T10:00:00.000Z", "2026-12-07T10:01:00.000Z" },
		{ "2026-12-07T10:01:00.000Z", "2026-12-07T10:02:00.000Z" },
		{ "2026-12-07T10:02:00.000Z", "2026-12-07T10:03:00.000Z" },
		{ "2026-12-07T10:03:00.000Z", "2026-12-07T10:04:00.000Z" },
		{ "2026-12-07T10:04:00.000Z", "2026-12-07T10:05:00.000Z" },
		{ "2026-12-07T10:05:00.000Z", "2026-12-07T10:06:00.000Z" },
	};

	(void)state;
	/* interleaved in time: base 10, 12, 14; other 11, 13, 15 */
	for (int i = 0; i < 3; i++) {
		jdoc_level(&b[i], 10 + 2 * i, xa[i], "boot-1", t[2 * i][0],
			   t[2 * i][1]);
		jdoc_level(&o[i], 11 + 2 * i, xb[i], "boot-1", t[2 * i + 1][0],
			   t[2 * i + 1][1]);
	}
	assert_int_equal(cmp_sides(b, 3, o, 3, NULL, &doc, &e), 0);
	c = jget(doc, "comparisons.0");
	assert_string_equal(jstr(c, "compared_by"), "job");
	assert_near(jnum(c, "change"), 0.050013020919976, 1e-12);
	assert_near(jnum(c, "ci_lo"), 0.0045336445837239605, 1e-9);
	assert_near(jnum(c, "ci_hi"), 0.09755143597841195, 1e-9);
	assert_near(jnum(c, "p_value"), 0.037655675753638665, 1e-6);
	assert_string_equal(jstr(c, "verdict"), "faster");
	assert_int_equal((int)jnum(c, "units.base"), 3);
	assert_int_equal((int)jnum(c, "units.runs_other"), 9);
	assert_near(jnum(c, "units.within_sd"), 0.01, 1e-12);
	assert_string_equal(jstr(c, "text"),
			    "jobs 11, 13, 15 A is 5.0% faster than jobs 10, 12, "
			    "14 A (95% CI +0.5% .. +9.8%, p=0.038, n=3+3 jobs)");
	assert_int_equal((int)jnum(c, "base_job"), 10);
	assert_int_equal((int)jnum(c, "jobs.2"), 15);
	assert_int_equal((int)jnum(doc, "sides.1.0"), 11);
	assert_int_equal((int)jnum(doc, "base_jobs.1"), 12);
	assert_int_equal((int)jnum(doc, "jobs.1.side"), 0);
	assert_int_equal((int)jnum(doc, "jobs.3.side"), 1);
	/* the jobs alternated: no warning of drift between the periods */
	assert_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			   "all ran"));
	/* the diff has one value per job, base side first */
	assert_int_equal(json_object_array_length(
				 jget(diff_row(doc, "run.boot_id", NULL), "values")),
			 6);
	json_object_put(doc);
	/* the same jobs, the base all first: the warning says what that means */
	for (int i = 0; i < 3; i++) {
		json_object_object_add(b[i].job, "started",
				       json_object_new_string(t[i][0]));
		json_object_object_add(b[i].job, "finished",
				       json_object_new_string(t[i][1]));
		json_object_object_add(o[i].job, "started",
				       json_object_new_string(t[3 + i][0]));
		json_object_object_add(o[i].job, "finished",
				       json_object_new_string(t[3 + i][1]));
	}
	assert_int_equal(cmp_sides(b, 3, o, 3, NULL, &doc, &e), 0);
	assert_non_null(strstr(json_object_to_json_string(jget(doc, "warnings")),
			       "jobs 10, 12, 14 all ran before jobs 11, 13, 15"));
	json_object_put(doc);
	/* a job on both sides is refused */
	assert_int_equal(cmp_sides(b, 3, b, 1, NULL, &doc, &e), -EINVAL);
	assert_non_null(strstr(e.msg, "job 10 is given twice"));
	assert_null(doc);
	for (int i = 0; i < 3; i++) {
		jdoc_free(&b[i]);
		jdoc_free(&o[i]);
	}
}

/* Jobs on their own boots: the boot is the unit, and two jobs in one boot
 * are one unit; a boot on both sides makes the job the unit again. */
static void test_sides_boots(void **state)
{
	struct jdoc b[3], o[2];
	struct json_object *doc = NULL, *c;
	struct bb_jobcmp_error e;

	(void)state;
	jdoc_level(&b[0], 20, 100, "boot-1", NULL, NULL);
	jdoc_level(&b[1], 21, 101, "boot-1", NULL, NULL);
	jdoc_level(&b[2], 22, 99, "boot-2", NULL, NULL);
	jdoc_level(&o[0], 23, 90, "boot-3", NULL, NULL);
	jdoc_level(&o[1], 24, 91, "boot-4", NULL, NULL);
	assert_int_equal(cmp_sides(b, 3, o, 2, NULL, &doc, &e), 0);
	c = jget(doc, "comparisons.0");
	assert_string_equal(jstr(c, "compared_by"), "boot");
	assert_int_equal((int)jnum(c, "units.base"), 2);
	assert_int_equal((int)jnum(c, "units.other"), 2);
	assert_int_equal((int)jnum(c, "units.runs_base"), 9);
	assert_non_null(strstr(jstr(c, "ci_method"), "2+2 boots, df 2"));
	assert_int_equal((int)jnum(c, "boots.base"), 2);
	assert_int_equal((int)jnum(c, "boots.shared"), 0);
	json_object_put(doc);
	/* the other side's second job in the base's boot 2 */
	jdoc_free(&o[1]);
	jdoc_level(&o[1], 24, 91, "boot-2", NULL, NULL);
	assert_int_equal(cmp_sides(b, 3, o, 2, NULL, &doc, &e), 0);
	c = jget(doc, "comparisons.0");
	assert_string_equal(jstr(c, "compared_by"), "job");
	assert_int_equal((int)jnum(c, "units.base"), 3);
	assert_int_equal((int)jnum(c, "boots.shared"), 1);
	assert_non_null(strstr(jstr(doc, "boots.statement"),
			       "The job is the unit (the sides share boots"));
	json_object_put(doc);
	for (int i = 0; i < 3; i++)
		jdoc_free(&b[i]);
	jdoc_free(&o[0]);
	jdoc_free(&o[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slower_exact),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_boot_samples),
		cmocka_unit_test(test_holm_two_others),
		cmocka_unit_test(test_workload_and_diff),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_sides_jobs),
		cmocka_unit_test(test_sides_boots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
