// SPDX-License-Identifier: GPL-2.0-only
/* store.c - the PostgreSQL store against the sqlite store, in one run.
 *
 *   bench_store SQLITE_PATH PG_CONNINFO [JOBS [REPS]]
 *
 * Fills both stores with the same JOBS jobs (default 10000: states mixed,
 * a 2 kB spec each, every fourth done with a comparison), through the
 * store's own job insert and finish (one durable transaction each, as
 * the daemon writes them), then measures, interleaved (the order of the
 * backends alternating every round), REPS times each (default 400):
 *
 *   list     bb_store_jobs_list: the first page of 50 (GET /api/v1/jobs)
 *   list_deep  a page of 50 done jobs below the middle of the ids
 *   metrics  bb_store_metrics (the queries of GET /metrics)
 *
 * and prints p50/p99 in us per backend and the ratios PostgreSQL/sqlite
 * (target for list: p99 <= 2), with the 95 % bootstrap interval of the
 * list's p99 ratio (BENCH_DUMP=FILE also writes every round's times:
 * round, backend, op, us).  PostgreSQL is vacuumed after the fill
 * (VACUUM ANALYZE: its visibility map and statistics as autovacuum keeps
 * them in a database filled over days; BENCH_PG_VACUUM=0: not).  Also
 * the choice postgres.c made: the store's list query through libpq
 * directly as a prepared statement (PQexecPrepared) against PQexecParams
 * each time; and that bare round trip against the store's whole
 * PostgreSQL list ("list split": the server's share and the store's own
 * work on the rows).
 *
 * Then claims under contention, sqlite then PostgreSQL: the queue topped
 * up to CLAIM_JOBS queued jobs (env BENCH_CLAIM_JOBS, default 10000),
 * CLAIMERS threads (BENCH_CLAIMERS, default 3: three daemons), each with
 * a handle of its own under a daemon name of its own, claim until the
 * queue is empty (bb_store_job_claim, timed; then bb_store_job_start, as
 * the scheduler does, untimed); p50/p99 of a claim, claims per second,
 * the ratios PostgreSQL/sqlite, and a check that no job was claimed twice
 * and every queued job once (exit 1 otherwise).
 *
 * Ratios only mean something against the reference measured in the same
 * run; no absolute time is asserted. */
#include "store.h"
#include "util/rng.h"

#include <biobench/common.h>

#include <errno.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BB_BENCH_OPS 3

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);

	qsort(v, n, sizeof(*v), cmp_double);
	return v[i < n ? i : n - 1];
}

/* The 95 % bootstrap interval of p99(b) / p99(a), n samples each: 2000
 * resamples of both with replacement (libbiobench's generator, fixed seed:
 * the same samples give the same interval).  A p99 of 400 samples rests on
 * its 4 largest, so one burst of the host's other tenants moves it: the
 * interval says how far. */
static void boot_p99_ratio(const double *a, const double *b, size_t n,
			   double *lo, double *hi)
{
	enum { B = 2000 };
	double *ra = malloc(B * sizeof(double));
	double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
	struct bb_rng rng;

	bb_rng_seed(&rng, 1);
	*lo = *hi = 0;
	if (ra && x && y) {
		for (int k = 0; k < B; k++) {
			for (size_t i = 0; i < n; i++) {
				x[i] = a[bb_rng_below(&rng, n)];
				y[i] = b[bb_rng_below(&rng, n)];
			}
			ra[k] = pct(y, n, 99) / pct(x, n, 99);
		}
		*lo = pct(ra, B, 2.5);
		*hi = pct(ra, B, 97.5);
	}
	free(ra);
	free(x);
	free(y);
}

static int fill(struct bb_store *s, unsigned jobs, int64_t *mid)
{
	char spec[2200], err[512];
	static const char cmp[] =
		"{\"metric\":\"iops\",\"unit\":\"IOPS\",\"comparisons\":[{"
		"\"baseline\":\"A\",\"variant\":\"B\",\"change\":0.012,"
		"\"ci_lo\":0.004,\"ci_hi\":0.02,\"verdict\":\"faster\","
		"\"a\":{\"median\":1000000},\"b\":{\"median\":1012000}}]}";
	int64_t id;

	snprintf(spec, sizeof(spec), "{\"rw\":\"randread\",\"pad\":\"%0*d\"}",
		 2000, 0);
	for (unsigned i = 1; i <= jobs; i++) {
		const char *end = NULL;

		if (bb_store_job_insert(s, "bench", i % 2 ? "nop" : "/dev/vda",
					spec, 4, &id, err, sizeof(err))) {
			fprintf(stderr, "bench_store: insert: %s\n", err);
			return 1;
		}
		if (i % 4 == 0)
			end = BB_JOB_DONE;
		else if (i % 4 == 1)
			end = BB_JOB_FAILED;
		if (end && !strcmp(end, BB_JOB_DONE) &&
		    (bb_store_job_start(s, id, 0, 0, err, sizeof(err)) ||
		     bb_store_job_finish(s, id, end, "faster", cmp, NULL, err,
					 sizeof(err)))) {
			fprintf(stderr, "bench_store: finish: %s\n", err);
			return 1;
		}
		if (end && !strcmp(end, BB_JOB_FAILED) &&
		    bb_store_job_finish(s, id, end, NULL, NULL, "bench", err,
					sizeof(err))) {
			fprintf(stderr, "bench_store: fail: %s\n", err);
			return 1;
		}
		if (i == jobs / 2)
			*mid = id;
	}
	return 0;
}

/* One operation k on s; 0 or 1 (failed). */
static int op(struct bb_store *s, int k, int64_t mid)
{
	struct json_object *o = NULL;
	char err[512];
	int ret;

	if (k == 0)
		ret = bb_store_jobs_list(s, NULL, 50, 0, &o, err, sizeof(err));
	else if (k == 1)
		ret = bb_store_jobs_list(s, BB_JOB_DONE, 50, mid, &o, err,
					 sizeof(err));
	else
		ret = bb_store_metrics(s, &o, err, sizeof(err));
	json_object_put(o);
	if (ret)
		fprintf(stderr, "bench_store: %s\n", err);
	return ret != 0;
}

/* ---- claims under contention ---------------------------------------- */

struct claimer {
	const char *where;
	char name[32];
	double *lat;       /* us per claim */
	int64_t *ids;      /* the jobs claimed */
	size_t n, cap;
	int ret;
};

static void *claimer_main(void *arg)
{
	struct claimer *c = arg;
	struct bb_store *s = NULL;
	char err[512] = "";

	c->ret = bb_store_open(&s, c->where, err, sizeof(err));
	if (!c->ret)
		c->ret = bb_store_set_daemon(s, c->name, 600, err, sizeof(err));
	while (!c->ret) {
		char *spec = NULL;
		int64_t id = 0;
		double t0 = now_us();
		int ret = bb_store_job_claim(s, &id, &spec, err, sizeof(err));
		double dt = now_us() - t0;

		free(spec);
		if (ret == -ENOENT)
			break;
		if (ret || c->n == c->cap) {
			c->ret = ret ? ret : -E2BIG;
			break;
		}
		c->lat[c->n] = dt;
		c->ids[c->n++] = id;
		c->ret = bb_store_job_start(s, id, 0, 0, err, sizeof(err));
	}
	if (c->ret)
		fprintf(stderr, "bench_store: %s: %s\n", c->name, err);
	bb_store_close(s);
	return NULL;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

struct claim_fig {
	double p50, p99, per_s;
	size_t n;
};

/* Top s's queue up to want queued jobs, then nclaim threads claim them
 * all; the figures in *f.  0, or 1 (a failure, a job claimed twice, a
 * queued job left). */
static int claims(struct bb_store *s, const char *where, unsigned want,
		  unsigned nclaim, struct claim_fig *f)
{
	struct claimer c[16];
	pthread_t tid[16];
	unsigned queued = 0, left = 0;
	char err[512] = "";
	size_t total = 0, dup = 0, k = 0;
	double t0, *lat;
	int64_t *ids, id;
	int ret = 0;

	if (bb_store_jobs_queued(s, &queued, err, sizeof(err)))
		goto fail;
	for (; queued < want; queued++)
		if (bb_store_job_insert(s, "claim", "nop", "{}", 4, &id, err,
					sizeof(err)))
			goto fail;
	for (unsigned i = 0; i < nclaim; i++) {
		c[i] = (struct claimer){ .where = where, .cap = queued };
		snprintf(c[i].name, sizeof(c[i].name), "bench-claim-%u", i + 1);
		c[i].lat = calloc(queued, sizeof(double));
		c[i].ids = calloc(queued, sizeof(int64_t));
		if (!c[i].lat || !c[i].ids)
			return 1;
	}
	t0 = now_us();
	for (unsigned i = 0; i < nclaim; i++)
		pthread_create(&tid[i], NULL, claimer_main, &c[i]);
	for (unsigned i = 0; i < nclaim; i++) {
		pthread_join(tid[i], NULL);
		ret |= c[i].ret != 0;
		total += c[i].n;
	}
	f->per_s = (double)total / ((now_us() - t0) / 1e6);
	lat = calloc(total ? total : 1, sizeof(double));
	ids = calloc(total ? total : 1, sizeof(int64_t));
	for (unsigned i = 0; lat && ids && i < nclaim; i++) {
		memcpy(lat + k, c[i].lat, c[i].n * sizeof(double));
		memcpy(ids + k, c[i].ids, c[i].n * sizeof(int64_t));
		k += c[i].n;
		free(c[i].lat);
		free(c[i].ids);
	}
	if (!lat || !ids || !total)
		return 1;
	qsort(ids, total, sizeof(*ids), cmp_id);
	for (size_t i = 1; i < total; i++)
		dup += ids[i] == ids[i - 1];
	f->p50 = pct(lat, total, 50);
	f->p99 = pct(lat, total, 99);
	f->n = total;
	free(lat);
	free(ids);
	if (bb_store_jobs_queued(s, &left, err, sizeof(err)))
		goto fail;
	printf("claims     %s: %zu claims by %u claimers, %zu claimed twice, "
	       "%u of %u queued left%s\n", bb_store_is_pg(where) ? "postgresql" : "sqlite",
	       total, nclaim, dup, left, queued,
	       dup || left || total != queued ? "  (FAILED)" : "");
	return ret || dup || left || total != queued;
fail:
	fprintf(stderr, "bench_store: claims: %s\n", err);
	return 1;
}

/* The list query through libpq: prepared once, or parsed each time. */
static int libpq_choice(const char *conninfo, unsigned reps,
			const double list_p50[2], const double list_p99[2])
{
	/* the store's list query as postgres.c prepares it (jobs.c's
	 * q_jobs_list: every column of the job list, one page + 1) */
	static const char sql[] =
		"SELECT id, name, target, state, created_ms, started_ms,"
		" finished_ms, runs_planned, runs_done, verdict, error,"
		" for_host, claimed_by, lease_ms, cancel_requested_ms,"
		" cancel_requested_by, is_group, group_id, compare"
		" FROM jobs WHERE id < $1 AND ($3 = 1 OR group_id IS NULL)"
		" ORDER BY id DESC LIMIT $2";
	const char *vals[3] = { "9223372036854775807", "51", "0" };
	double *t[2];
	PGconn *c = PQconnectdb(conninfo);
	int ret = 1;

	t[0] = calloc(reps, sizeof(double));
	t[1] = calloc(reps, sizeof(double));
	if (!t[0] || !t[1] || PQstatus(c) != CONNECTION_OK)
		goto out;
	/* the session as postgres.c's pg_session sets it */
	if (PQserverVersion(c) >= 120000)
		PQclear(PQexec(c, "SET plan_cache_mode = force_generic_plan"));
	PQclear(PQprepare(c, "bench_list", sql, 0, NULL));
	for (unsigned r = 0; r < reps; r++) {
		for (int k = 0; k < 2; k++) {
			int w = (int)(r + (unsigned)k) % 2;
			double t0 = now_us();
			PGresult *res = w ?
				PQexecParams(c, sql, 3, NULL, vals, NULL, NULL,
					     0) :
				PQexecPrepared(c, "bench_list", 3, vals, NULL,
					       NULL, 0);

			t[w][r] = now_us() - t0;
			if (PQresultStatus(res) != PGRES_TUPLES_OK) {
				PQclear(res);
				goto out;
			}
			PQclear(res);
		}
	}
	{
		double p50p = pct(t[0], reps, 50), p50e = pct(t[1], reps, 50);
		double p99p = pct(t[0], reps, 99), p99e = pct(t[1], reps, 99);

		printf("libpq list query: prepared p50 %.0f us p99 %.0f us; "
		       "PQexecParams p50 %.0f us p99 %.0f us; "
		       "prepared/params p50 %.3f p99 %.3f\n", p50p, p99p,
		       p50e, p99e, p50p / p50e, p99p / p99e);
		/* where the list's time goes: the server's round trip (the
		 * bare prepared query) and the store's own work on the rows
		 * (the JSON documents), which sqlite's list also does */
		printf("list split: the bare query p50 %.0f us p99 %.0f us is "
		       "%.0f%% of the store's PostgreSQL list (p50 %.0f, p99 "
		       "%.0f); the rest, p50 %.0f us, against sqlite's whole "
		       "list p50 %.0f us\n", p50p, p99p,
		       100.0 * p50p / list_p50[1], list_p50[1], list_p99[1],
		       list_p50[1] - p50p, list_p50[0]);
	}
	ret = 0;
out:
	if (ret)
		fprintf(stderr, "bench_store: libpq: %s\n", PQerrorMessage(c));
	PQfinish(c);
	free(t[0]);
	free(t[1]);
	return ret;
}

int main(int argc, char **argv)
{
	static const char *const names[BB_BENCH_OPS] = {
		"list", "list_deep", "metrics",
	};
	struct bb_store *s[2] = { NULL, NULL };
	double *t[2][BB_BENCH_OPS] = { { NULL } };
	double list_p50[2] = { 0, 0 }, list_p99[2] = { 0, 0 };
	unsigned jobs = 10000, reps = 400;
	int64_t mid[2] = { 0, 0 };
	char err[512];
	bool vacuum;
	int ret = 1;

	if (argc < 3) {
		fprintf(stderr, "usage: bench_store SQLITE_PATH PG_CONNINFO "
			"[JOBS [REPS]]\n");
		return 2;
	}
	if (argc > 3)
		jobs = (unsigned)strtoul(argv[3], NULL, 10);
	if (argc > 4)
		reps = (unsigned)strtoul(argv[4], NULL, 10);
	if (jobs < 100 || reps < 10) {
		fprintf(stderr, "bench_store: JOBS >= 100, REPS >= 10\n");
		return 2;
	}
	for (int b = 0; b < 2; b++) {
		if (bb_store_open(&s[b], argv[1 + b], err, sizeof(err))) {
			fprintf(stderr, "bench_store: %s\n", err);
			goto out;
		}
		for (int k = 0; k < BB_BENCH_OPS; k++) {
			t[b][k] = calloc(reps, sizeof(double));
			if (!t[b][k])
				goto out;
		}
		if (fill(s[b], jobs, &mid[b]))
			goto out;
	}
	/* PostgreSQL's visibility map as autovacuum leaves it in a database
	 * filled over days, not seconds: the counts of /metrics can then
	 * read the (state, id) index alone, as sqlite does */
	vacuum = !getenv("BENCH_PG_VACUUM") || strcmp(getenv("BENCH_PG_VACUUM"),
						       "0");
	if (vacuum) {
		PGconn *c = PQconnectdb(argv[2]);

		PQclear(PQexec(c, "VACUUM ANALYZE"));
		PQfinish(c);
	}
	/* warm both (statements prepared, pages cached) */
	for (int b = 0; b < 2; b++)
		for (int k = 0; k < BB_BENCH_OPS; k++)
			if (op(s[b], k, mid[b]))
				goto out;
	for (unsigned r = 0; r < reps; r++) {
		for (int i = 0; i < 2; i++) {
			int b = (int)(r + (unsigned)i) % 2;

			for (int k = 0; k < BB_BENCH_OPS; k++) {
				double t0 = now_us();

				if (op(s[b], k, mid[b]))
					goto out;
				t[b][k][r] = now_us() - t0;
			}
		}
	}
	/* BENCH_DUMP=FILE: every round's times (round, backend, op, us) */
	if (getenv("BENCH_DUMP")) {
		FILE *f = fopen(getenv("BENCH_DUMP"), "w");

		for (unsigned r = 0; f && r < reps; r++)
			for (int b = 0; b < 2; b++)
				for (int k = 0; k < BB_BENCH_OPS; k++)
					fprintf(f, "%u %s %s %.1f\n", r,
						b ? "postgresql" : "sqlite",
						names[k], t[b][k][r]);
		if (f)
			fclose(f);
	}
	printf("%u jobs, %u interleaved rounds, PostgreSQL %s (us: p50 p99)\n",
	       jobs, reps, vacuum ? "vacuumed" : "not vacuumed");
	for (int k = 0; k < BB_BENCH_OPS; k++) {
		double p50[2], p99[2];

		for (int b = 0; b < 2; b++) {
			p50[b] = pct(t[b][k], reps, 50);
			p99[b] = pct(t[b][k], reps, 99);
			if (k == 0) {
				list_p50[b] = p50[b];
				list_p99[b] = p99[b];
			}
		}
		printf("%-10s sqlite %7.0f %7.0f  postgresql %7.0f %7.0f  "
		       "ratio pg/sqlite p50 %.2f p99 %.2f%s\n", names[k],
		       p50[0], p99[0], p50[1], p99[1], p50[1] / p50[0],
		       p99[1] / p99[0],
		       k == 0 ? (p99[1] / p99[0] <= 2.0 ? "  (target p99 <= 2: ok)"
							 : "  (target p99 <= 2: MISS)")
			      : "");
		if (k == 0) {
			double lo, hi;

			boot_p99_ratio(t[0][0], t[1][0], reps, &lo, &hi);
			printf("list p99 ratio: 95%% bootstrap interval %.2f .. "
			       "%.2f (%s)\n", lo, hi,
			       hi <= 2.0 ? "below the target" :
			       lo > 2.0 ? "above the target" :
					  "spans the target: within this host's noise");
		}
	}
	ret = libpq_choice(argv[2], reps, list_p50, list_p99);
	if (!ret) {
		const char *e = getenv("BENCH_CLAIM_JOBS");
		const char *n = getenv("BENCH_CLAIMERS");
		unsigned cj = e ? (unsigned)strtoul(e, NULL, 10) : 10000;
		unsigned nc = n ? (unsigned)strtoul(n, NULL, 10) : 3;
		struct claim_fig f[2];

		if (nc < 1 || nc > 16)
			nc = 3;
		for (int b = 0; !ret && b < 2; b++)
			ret = claims(s[b], argv[1 + b], cj, nc, &f[b]);
		if (!ret)
			printf("claim      sqlite %7.0f %7.0f  postgresql %7.0f "
			       "%7.0f  ratio pg/sqlite p50 %.2f p99 %.2f; "
			       "claims/s sqlite %.0f postgresql %.0f (ratio "
			       "%.2f)\n", f[0].p50, f[0].p99, f[1].p50, f[1].p99,
			       f[1].p50 / f[0].p50, f[1].p99 / f[0].p99,
			       f[0].per_s, f[1].per_s, f[1].per_s / f[0].per_s);
	}
out:
	for (int b = 0; b < 2; b++) {
		bb_store_close(s[b]);
		for (int k = 0; k < BB_BENCH_OPS; k++)
			free(t[b][k]);
	}
	return ret;
}
