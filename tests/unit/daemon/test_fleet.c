// SPDX-License-Identifier: GPL-2.0-only
/* test_fleet.c - pull scheduling in the store (store.h, "the fleet")
 * against a real sqlite file, or the PostgreSQL database BB_TEST_STORE
 * names (ctest test_fleet_pg, under tests/pg/pgtmp.sh): several handles,
 * each a daemon of its own host name, on one database.  A claim race
 * (threads claiming 240 queued jobs: each claimed and run exactly once),
 * a lease that expires (the job interrupted by another daemon's sweep,
 * its runs kept, an event naming the host, the claimer told it lost it),
 * a renewed lease that does not, a boot job that never expires, a queued
 * claim taken over after its lease, addressed jobs (claimed only by
 * their host; an unknown host refused naming the registered ones), a
 * host's job list (addressed to it or claimed by it), a cancel requested
 * through another daemon (read by the claimer's heartbeat), the startup
 * recovery of one daemon leaving the others' jobs alone, the hosts list,
 * and group jobs (one job on several hosts: by a list of names and by a
 * selector with globs, no match refused, the parent's state derived
 * from its children's, its cancel). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "pgstore.h"
#include "store.h"
#include <biobench/boot.h>

#define SPEC "{\"name\":\"j\",\"target\":\"nop\"}"
#define RACE_JOBS 240
#define RACE_THREADS 4

struct ctx {
	char dir[64];
	char path[512];
	struct bb_store *s;   /* no daemon: submissions and checks */
	bool pg;
};

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char err[256] = "", file[128];

	assert_non_null(c);
	snprintf(c->dir, sizeof(c->dir), "/tmp/bb_fleet_XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(file, sizeof(file), "%s/bb.db", c->dir);
	c->pg = bb_test_store(c->path, sizeof(c->path), file);
	if (bb_store_open(&c->s, c->path, err, sizeof(err))) {
		fprintf(stderr, "open: %s\n", err);
		return -1;
	}
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;

	bb_store_close(c->s);
	bb_test_rm_tree(c->dir);
	free(c);
	return 0;
}

/* A daemon's handle on the test's database, registered. */
static struct bb_store *daemon_open(struct ctx *c, const char *name,
				    unsigned lease_s)
{
	struct bb_store *s = NULL;
	char err[512] = "";

	if (bb_store_open(&s, c->path, err, sizeof(err)) ||
	    bb_store_set_daemon(s, name, lease_s, err, sizeof(err)) ||
	    bb_store_daemon_register(s, "{\"kernel\":\"6.18.0-test\"}",
				     "{\"devices\":[],\"allow\":[]}", "test",
				     (long)getpid(), err, sizeof(err)))
		fail_msg("daemon %s: %s", name, err);
	return s;
}

static int64_t submit(struct bb_store *s, const char *spec)
{
	char err[512] = "";
	int64_t id = 0;
	int ret = bb_store_job_submit(s, "j", "nop", spec, 2, 0, &id, err,
				      sizeof(err));

	if (ret)
		fail_msg("submit %s: %d %s", spec, ret, err);
	return id;
}

static void expect_state(struct bb_store *s, int64_t id, const char *want)
{
	char st[16], err[256] = "";

	assert_int_equal(bb_store_job_state(s, id, st, err, sizeof(err)), 0);
	assert_string_equal(st, want);
}

/* claim, and start what was claimed; the id (0: nothing queued) */
static int64_t claim_start(struct bb_store *s)
{
	char err[512] = "", *spec = NULL;
	int64_t id = 0;
	int ret = bb_store_job_claim(s, &id, &spec, err, sizeof(err));

	if (ret == -ENOENT)
		return 0;
	if (ret)
		fail_msg("claim: %d %s", ret, err);
	assert_non_null(strstr(spec, "\"nop\""));
	free(spec);
	ret = bb_store_job_start(s, id, 0, 0, err, sizeof(err));
	if (ret)
		fail_msg("start %lld: %d %s", (long long)id, ret, err);
	return id;
}

static void add_run(struct bb_store *s, int64_t job, unsigned seq)
{
	struct bb_store_run run = {
		.job_id = job, .variant = seq % 2 ? "B" : "A", .seq = seq,
		.round = seq / 2, .state = "done", .metric = 1000.0 + seq,
		.result = "{}",
	};
	char err[256] = "";

	if (bb_store_run_insert(s, &run, NULL, err, sizeof(err)))
		fail_msg("run %u: %s", seq, err);
}

static unsigned runs_of(struct bb_store *s, int64_t job)
{
	struct json_object *doc, *runs;
	char err[256] = "";
	unsigned n;

	assert_int_equal(bb_store_job_runs(s, job, false, &doc, err,
					   sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "runs", &runs));
	n = (unsigned)json_object_array_length(runs);
	json_object_put(doc);
	return n;
}

/* A string member of job id's document, copied into buf ("" null). */
static const char *job_str(struct bb_store *s, int64_t id, const char *key,
			   char *buf, size_t len)
{
	struct json_object *doc, *v;
	char err[256] = "";

	assert_int_equal(bb_store_job_get(s, id, &doc, err, sizeof(err)), 0);
	snprintf(buf, len, "%s",
		 json_object_object_get_ex(doc, key, &v) && v ?
			 json_object_get_string(v) : "");
	json_object_put(doc);
	return buf;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- the claim race ----------------------------------------------------- */

struct racer {
	struct ctx *c;
	char name[16];
	int64_t got[RACE_JOBS];
	unsigned n;
};

static void *race_main(void *arg)
{
	struct racer *r = arg;
	struct bb_store *s = daemon_open(r->c, r->name, 60);
	char err[256];
	int64_t id;

	while ((id = claim_start(s)) > 0) {
		if (r->n < RACE_JOBS)
			r->got[r->n] = id;
		r->n++;
		if (bb_store_job_finish(s, id, BB_JOB_DONE, "ok", NULL, NULL,
					err, sizeof(err)))
			fail_msg("finish %lld: %s", (long long)id, err);
	}
	bb_store_close(s);
	return NULL;
}

/* Every one of 240 queued jobs is claimed by exactly one of four daemons
 * claiming at once, and runs to done. */
static void claim_race(void **state)
{
	struct ctx *c = *state;
	static struct racer r[RACE_THREADS];
	pthread_t t[RACE_THREADS];
	unsigned seen[RACE_JOBS + 1] = { 0 }, total = 0, busy = 0;
	int64_t first = 0, id;

	for (unsigned i = 0; i < RACE_JOBS; i++) {
		id = submit(c->s, SPEC);
		if (!first)
			first = id;
		assert_int_equal(id, first + i);
	}
	for (unsigned i = 0; i < RACE_THREADS; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].c = c;
		snprintf(r[i].name, sizeof(r[i].name), "racer-%u", i);
		assert_int_equal(pthread_create(&t[i], NULL, race_main, &r[i]),
				 0);
	}
	for (unsigned i = 0; i < RACE_THREADS; i++)
		pthread_join(t[i], NULL);
	for (unsigned i = 0; i < RACE_THREADS; i++) {
		assert_true(r[i].n <= RACE_JOBS);
		total += r[i].n;
		busy += r[i].n > 0;
		for (unsigned k = 0; k < r[i].n; k++) {
			id = r[i].got[k] - first;
			assert_true(id >= 0 && id < RACE_JOBS);
			seen[id]++;
		}
	}
	for (unsigned i = 0; i < RACE_JOBS; i++)
		if (seen[i] != 1)
			fail_msg("job %lld claimed %u times",
				 (long long)(first + i), seen[i]);
	assert_int_equal(total, RACE_JOBS);
	for (unsigned i = 0; i < RACE_JOBS; i++)
		expect_state(c->s, first + i, BB_JOB_DONE);
	fprintf(stderr, "claims: %u %u %u %u (%u daemons claimed)\n", r[0].n,
		r[1].n, r[2].n, r[3].n, busy);
}

/* ---- leases --------------------------------------------------------------- */

/* A running job whose claimer stops renewing its lease is interrupted by
 * another daemon's sweep, after the lease and not before; its runs are
 * kept, the event names the host; the claimer is told it lost it (and
 * its late end is refused: the store keeps the interruption).  A renewed
 * lease holds; a daemon's own job never expires in its own sweep. */
static void lease_expiry_interrupts(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 2);
	struct bb_store *b = daemon_open(c, "host-b", 2);
	char err[512] = "", buf[512];
	unsigned n = 9;
	int64_t id;

	submit(c->s, SPEC);
	id = claim_start(a);
	assert_true(id > 0);
	assert_string_equal(job_str(c->s, id, "claimed_by", buf, sizeof(buf)),
			    "host-a");
	add_run(a, id, 0);
	add_run(a, id, 1);
	sleep_ms(1200);
	assert_int_equal(bb_store_daemon_heartbeat(a, id, err, sizeof(err)),
			 0);
	sleep_ms(1200);
	/* renewed 1.2 s ago for 2 s: still held */
	assert_int_equal(bb_store_jobs_expire(b, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	expect_state(c->s, id, BB_JOB_RUNNING);
	sleep_ms(1200);
	/* its own sweep leaves it alone */
	assert_int_equal(bb_store_jobs_expire(a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	expect_state(c->s, id, BB_JOB_RUNNING);
	assert_int_equal(bb_store_jobs_expire(b, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	expect_state(c->s, id, BB_JOB_INTERRUPTED);
	assert_int_equal(runs_of(c->s, id), 2);
	job_str(c->s, id, "error", buf, sizeof(buf));
	assert_non_null(strstr(buf, "lease expired"));
	assert_non_null(strstr(buf, "host host-a"));
	/* the claimer hears of it at its next heartbeat */
	assert_int_equal(bb_store_daemon_heartbeat(a, id, err, sizeof(err)),
			 -ESTALE);
	assert_non_null(strstr(err, "lease expired"));
	assert_int_equal(bb_store_job_finish(a, id, BB_JOB_DONE, "x", NULL,
					     NULL, err, sizeof(err)),
			 -EALREADY);
	expect_state(c->s, id, BB_JOB_INTERRUPTED);
	/* a second sweep finds nothing */
	assert_int_equal(bb_store_jobs_expire(b, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	bb_store_close(a);
	bb_store_close(b);
}

/* A boot job is its host's across reboots: running in a boot's runs
 * (its progress stored) or rebooting, it never expires by lease. */
static void boot_jobs_do_not_expire(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 1);
	struct bb_store *b = daemon_open(c, "host-b", 1);
	struct bb_boot_progress p = { .boot = 0, .boots = 4,
				      .variant = "A" };
	char err[512] = "";
	unsigned n = 9;
	int64_t run_id, reb_id;

	submit(c->s, SPEC);
	submit(c->s, SPEC);
	run_id = claim_start(a);
	reb_id = claim_start(a);
	assert_true(run_id > 0 && reb_id > run_id);
	assert_int_equal(bb_store_job_boot_begin(a, run_id, &p, err,
						 sizeof(err)), 0);
	p.deadline_ms = 1;
	assert_int_equal(bb_store_job_reboot(a, reb_id, &p, err, sizeof(err)),
			 0);
	sleep_ms(1500);
	assert_int_equal(bb_store_jobs_expire(b, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	expect_state(c->s, run_id, BB_JOB_RUNNING);
	expect_state(c->s, reb_id, BB_JOB_REBOOTING);
	bb_store_close(a);
	bb_store_close(b);
}

/* A queued job claimed by a daemon that let its lease run out before it
 * started it goes to another; the first one's start is then refused. */
static void queued_claim_taken_over(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 1);
	struct bb_store *b = daemon_open(c, "host-b", 1);
	char err[512] = "", *spec = NULL;
	int64_t id = 0, id2 = 0;

	submit(c->s, SPEC);
	assert_int_equal(bb_store_job_claim(a, &id, &spec, err, sizeof(err)),
			 0);
	free(spec);
	/* held: b finds nothing */
	assert_int_equal(bb_store_job_claim(b, &id2, &spec, err, sizeof(err)),
			 -ENOENT);
	sleep_ms(1300);
	assert_int_equal(bb_store_job_claim(b, &id2, &spec, err, sizeof(err)),
			 0);
	free(spec);
	assert_int_equal(id2, id);
	assert_int_equal(bb_store_job_start(a, id, 0, 0, err, sizeof(err)),
			 -EALREADY);
	assert_non_null(strstr(err, "claimed by another daemon"));
	assert_int_equal(bb_store_job_start(b, id, 0, 0, err, sizeof(err)), 0);
	bb_store_close(a);
	bb_store_close(b);
}

/* ---- refusals: left for another host --------------------------------- */

/* a refuses the job it claimed: released, skipped by a's claims, taken by
 * b; one a and b both refuse fails naming both; one addressed to a is
 * a's to fail (-EPERM) */
static void refused_left_for_another(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	struct bb_store *b = daemon_open(c, "host-b", 60);
	char err[512] = "", buf[600], *spec = NULL;
	bool failed = true;
	int64_t id = 0, one, two, mine;

	one = submit(c->s, SPEC);
	assert_int_equal(bb_store_job_claim(a, &id, &spec, err, sizeof(err)),
			 0);
	free(spec);
	assert_int_equal(id, one);
	assert_int_equal(bb_store_job_refuse(a, one, "not in a's allow-list",
					     &failed, err, sizeof(err)), 0);
	assert_false(failed);
	expect_state(c->s, one, BB_JOB_QUEUED);
	assert_string_equal(job_str(c->s, one, "claimed_by", buf, sizeof(buf)),
			    "");
	/* the job document: who refused it, why */
	{
		struct json_object *doc, *arr, *h;

		assert_int_equal(bb_store_job_get(c->s, one, &doc, err,
						  sizeof(err)), 0);
		assert_true(json_object_object_get_ex(doc, "refused_by", &arr));
		assert_int_equal(json_object_array_length(arr), 1);
		assert_true(json_object_object_get_ex(
			json_object_array_get_idx(arr, 0), "host", &h));
		assert_string_equal(json_object_get_string(h), "host-a");
		json_object_put(doc);
	}
	/* a does not take it again; b does */
	assert_int_equal(bb_store_job_claim(a, &id, &spec, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(claim_start(b), one);

	two = submit(c->s, SPEC);
	assert_int_equal(bb_store_job_claim(a, &id, &spec, err, sizeof(err)),
			 0);
	free(spec);
	assert_int_equal(bb_store_job_refuse(a, two, "reason A", &failed, err,
					     sizeof(err)), 0);
	assert_false(failed);
	assert_int_equal(bb_store_job_claim(b, &id, &spec, err, sizeof(err)),
			 0);
	free(spec);
	assert_int_equal(id, two);
	assert_int_equal(bb_store_job_refuse(b, two, "reason B", &failed, err,
					     sizeof(err)), 0);
	assert_true(failed);
	expect_state(c->s, two, BB_JOB_FAILED);
	job_str(c->s, two, "error", buf, sizeof(buf));
	assert_non_null(strstr(buf, "no live host can run it"));
	assert_non_null(strstr(buf, "host-a: reason A; host-b: reason B"));

	mine = submit(c->s, "{\"name\":\"j\",\"target\":\"nop\","
			    "\"host\":\"host-a\"}");
	assert_int_equal(bb_store_job_claim(a, &id, &spec, err, sizeof(err)),
			 0);
	free(spec);
	assert_int_equal(id, mine);
	assert_int_equal(bb_store_job_refuse(a, mine, "x", &failed, err,
					     sizeof(err)), -EPERM);
	expect_state(c->s, mine, BB_JOB_QUEUED);
	bb_store_close(a);
	bb_store_close(b);
}

/* a refuses; b, the only other host, stops beating: a's sweep fails the
 * job once b is no longer live (two leases), and removes b from the
 * registry after host_gone_seconds, failing the job queued for b */
static void refused_sweep_and_gone_hosts(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 1);
	struct bb_store *b = daemon_open(c, "host-b", 1);
	char err[512] = "", buf[600], *spec = NULL;
	bool failed = true;
	unsigned n = 9;
	int64_t id = 0, any, for_b;

	for_b = submit(c->s, "{\"name\":\"j\",\"target\":\"nop\","
			     "\"host\":\"host-b\"}");
	any = submit(c->s, SPEC);
	assert_int_equal(bb_store_job_claim(a, &id, &spec, err, sizeof(err)),
			 0);
	free(spec);
	assert_int_equal(id, any);
	assert_int_equal(bb_store_job_refuse(a, any, "reason A", &failed, err,
					     sizeof(err)), 0);
	assert_false(failed);
	/* b live: nothing to sweep, nothing gone */
	assert_int_equal(bb_store_jobs_unrunnable(a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(bb_store_daemons_forget(a, 2, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 0);
	sleep_ms(2300); /* b unseen for more than two leases */
	assert_int_equal(bb_store_daemon_heartbeat(a, 0, err, sizeof(err)), 0);
	assert_int_equal(bb_store_jobs_unrunnable(a, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	expect_state(c->s, any, BB_JOB_FAILED);
	job_str(c->s, any, "error", buf, sizeof(buf));
	assert_non_null(strstr(buf, "host-a: reason A"));
	/* 0: never; then gone for 2 s: removed, its job failed */
	assert_int_equal(bb_store_daemons_forget(a, 0, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 0);
	assert_int_equal(bb_store_daemons_forget(a, 2, &n, err, sizeof(err)),
			 0);
	assert_int_equal(n, 1);
	expect_state(c->s, for_b, BB_JOB_FAILED);
	job_str(c->s, for_b, "error", buf, sizeof(buf));
	assert_non_null(strstr(buf, "host host-b was removed from the "
				    "registry"));
	/* never itself */
	assert_int_equal(bb_store_daemons_forget(b, 1, &n, err, sizeof(err)),
			 0);
	bb_store_close(a);
	bb_store_close(b);
}

/* ---- addressed jobs ---------------------------------------------------- */

static void addressed_jobs(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	struct bb_store *b = daemon_open(c, "host-b", 60);
	char err[512] = "", buf[64];
	int64_t for_b, any, id = 0;

	for_b = submit(c->s, "{\"name\":\"j\",\"target\":\"nop\","
			     "\"host\":\"host-b\"}");
	any = submit(c->s, SPEC);
	assert_string_equal(job_str(c->s, for_b, "for_host", buf, sizeof(buf)),
			    "host-b");
	assert_string_equal(job_str(c->s, any, "for_host", buf, sizeof(buf)),
			    "");
	/* a takes the unaddressed one, never b's, though it is older */
	assert_int_equal(claim_start(a), any);
	assert_int_equal(claim_start(a), 0);
	expect_state(c->s, for_b, BB_JOB_QUEUED);
	assert_int_equal(claim_start(b), for_b);
	assert_string_equal(job_str(c->s, for_b, "claimed_by", buf,
				    sizeof(buf)), "host-b");
	/* an unknown host: refused, naming the registered ones */
	assert_int_equal(bb_store_job_submit(c->s, "j", "nop",
					     "{\"name\":\"j\",\"target\":"
					     "\"nop\",\"host\":\"host-z\"}",
					     2, 0, &id, err, sizeof(err)),
			 -ENXIO);
	assert_non_null(strstr(err, "\"host-z\""));
	assert_non_null(strstr(err, "registered: host-a, host-b"));
	bb_store_close(a);
	bb_store_close(b);
}

/* The ids a host's list gives (state NULL: any), newest first, as
 * "3,1" in buf. */
static const char *host_ids(struct bb_store *s, const char *state,
			    const char *host, char *buf, size_t len)
{
	struct json_object *doc, *jobs, *v;
	char err[512] = "";
	size_t n = 0;

	if (bb_store_jobs_list_ex(s, state, host, true, 100, 0, &doc, err,
				    sizeof(err)))
		fail_msg("list %s: %s", host ? host : "(all)", err);
	buf[0] = '\0';
	assert_true(json_object_object_get_ex(doc, "jobs", &jobs));
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		assert_true(json_object_object_get_ex(
			json_object_array_get_idx(jobs, i), "id", &v));
		n += (size_t)snprintf(buf + n, len - n, "%s%lld", i ? "," : "",
				      (long long)json_object_get_int64(v));
	}
	json_object_put(doc);
	return buf;
}

/* GET /api/v1/jobs?host=: a host's jobs are those addressed to it and
 * those it claimed; with a state too. */
static void jobs_list_by_host(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	struct bb_store *b = daemon_open(c, "host-b", 60);
	char buf[128], want[128];
	int64_t for_b, any, for_b2;

	for_b = submit(c->s, "{\"name\":\"j\",\"target\":\"nop\","
			     "\"host\":\"host-b\"}");
	any = submit(c->s, SPEC);
	for_b2 = submit(c->s, "{\"name\":\"j\",\"target\":\"nop\","
			      "\"host\":\"host-b\"}");
	/* nothing claimed yet: b's are addressed to it, a has none */
	snprintf(want, sizeof(want), "%lld,%lld", (long long)for_b2,
		 (long long)for_b);
	assert_string_equal(host_ids(c->s, NULL, "host-b", buf, sizeof(buf)),
			    want);
	assert_string_equal(host_ids(c->s, NULL, "host-a", buf, sizeof(buf)),
			    "");
	assert_int_equal(claim_start(a), any);
	assert_int_equal(claim_start(b), for_b);
	snprintf(want, sizeof(want), "%lld", (long long)any);
	assert_string_equal(host_ids(c->s, NULL, "host-a", buf, sizeof(buf)),
			    want);
	/* with a state: b's running one, b's queued one */
	snprintf(want, sizeof(want), "%lld", (long long)for_b);
	assert_string_equal(host_ids(c->s, BB_JOB_RUNNING, "host-b", buf,
				     sizeof(buf)), want);
	snprintf(want, sizeof(want), "%lld", (long long)for_b2);
	assert_string_equal(host_ids(c->s, BB_JOB_QUEUED, "host-b", buf,
				     sizeof(buf)), want);
	/* no such host: nothing; no host: all three */
	assert_string_equal(host_ids(c->s, NULL, "host-z", buf, sizeof(buf)),
			    "");
	snprintf(want, sizeof(want), "%lld,%lld,%lld", (long long)for_b2,
		 (long long)any, (long long)for_b);
	assert_string_equal(host_ids(c->s, NULL, NULL, buf, sizeof(buf)),
			    want);
	bb_store_close(a);
	bb_store_close(b);
}

/* ---- cancel across daemons ---------------------------------------------- */

/* A cancel asked of b for a job a runs: stored once (the first asker
 * kept), read by a's heartbeat as -ECANCELED (its beat stored all the
 * same); refused (-EALREADY) for a job that is not running on another
 * daemon; a front end (others_only false) forwards even to its own
 * name's runner. */
static void cancel_request(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	struct bb_store *b = daemon_open(c, "host-b", 60);
	char err[512] = "", owner[64] = "", buf[64], lease[64];
	int64_t run, queued;

	submit(c->s, SPEC);
	run = claim_start(a);
	queued = submit(c->s, SPEC);
	/* nothing asked yet: a's beat is a plain one */
	assert_int_equal(bb_store_daemon_heartbeat(a, run, err, sizeof(err)),
			 0);
	assert_string_equal(job_str(c->s, run, "cancel_requested", buf,
				    sizeof(buf)), "");
	job_str(c->s, run, "lease_until", lease, sizeof(lease));
	/* b is asked (its own handle or the HTTP one: the same) */
	assert_int_equal(bb_store_job_cancel_request(c->s, run, "host-b",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), 0);
	assert_string_equal(owner, "host-a");
	assert_string_equal(job_str(c->s, run, "cancel_requested_by", buf,
				    sizeof(buf)), "host-b");
	assert_true(job_str(c->s, run, "cancel_requested", buf,
			    sizeof(buf))[0]);
	expect_state(c->s, run, BB_JOB_RUNNING);
	/* asked again through c: still b's request */
	assert_int_equal(bb_store_job_cancel_request(c->s, run, "host-c",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), 0);
	assert_string_equal(job_str(c->s, run, "cancel_requested_by", buf,
				    sizeof(buf)), "host-b");
	/* a's heartbeat: told, and the beat stored (lease renewed) */
	sleep_ms(20);
	assert_int_equal(bb_store_daemon_heartbeat(a, run, err, sizeof(err)),
			 -ECANCELED);
	assert_non_null(strstr(err, "cancel requested via host-b"));
	assert_string_not_equal(job_str(c->s, run, "lease_until", buf,
					sizeof(buf)), lease);
	/* b's beat, idle or not running it: nothing */
	assert_int_equal(bb_store_daemon_heartbeat(b, 0, err, sizeof(err)), 0);
	/* not another daemon's running job: refused, nothing stored */
	assert_int_equal(bb_store_job_cancel_request(c->s, run, "host-a",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), -EALREADY);
	assert_non_null(strstr(err, "claimed by host-a"));
	assert_int_equal(bb_store_job_cancel_request(c->s, queued, "host-b",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), -EALREADY);
	assert_non_null(strstr(err, "is queued"));
	assert_string_equal(job_str(c->s, queued, "cancel_requested", buf,
				    sizeof(buf)), "");
	assert_int_equal(bb_store_job_cancel_request(c->s, 999999, "host-b",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), -ENOENT);
	/* a front end of the same name as the runner: forwarded */
	assert_int_equal(bb_store_job_cancel_request(c->s, run, "host-a",
						     false, owner,
						     sizeof(owner), err,
						     sizeof(err)), 0);
	assert_string_equal(owner, "host-a");
	/* a cancels it as a local cancel does; then nothing to ask */
	assert_int_equal(bb_store_job_finish(a, run, BB_JOB_CANCELLED, NULL,
					     NULL, "cancelled by request", err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_job_cancel_request(c->s, run, "host-b",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), -EALREADY);
	assert_non_null(strstr(err, "is cancelled"));
	assert_int_equal(bb_store_daemon_heartbeat(a, 0, err, sizeof(err)), 0);
	bb_store_close(a);
	bb_store_close(b);
}

/* A daemon running two jobs (max_parallel_jobs): a cancel asked for the
 * younger is its verdict, the older's is none, both leases renewed. */
static void cancel_request_of_two(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	char err[512] = "", owner[64] = "", l0[64], l1[64], buf[64];
	int64_t ids[2];
	int verdicts[2] = { 1, 1 };

	submit(c->s, SPEC);
	submit(c->s, SPEC);
	ids[0] = claim_start(a);
	ids[1] = claim_start(a);
	assert_true(ids[0] > 0 && ids[1] > ids[0]);
	job_str(c->s, ids[0], "lease_until", l0, sizeof(l0));
	job_str(c->s, ids[1], "lease_until", l1, sizeof(l1));
	assert_int_equal(bb_store_job_cancel_request(c->s, ids[1], "host-b",
						     true, owner,
						     sizeof(owner), err,
						     sizeof(err)), 0);
	sleep_ms(20);
	assert_int_equal(bb_store_daemon_heartbeat_jobs(a, ids, 2, verdicts,
							err, sizeof(err)),
			 -ECANCELED);
	assert_int_equal(verdicts[0], 0);
	assert_int_equal(verdicts[1], -ECANCELED);
	assert_non_null(strstr(err, "cancel requested via host-b"));
	assert_string_not_equal(job_str(c->s, ids[0], "lease_until", buf,
					sizeof(buf)), l0);
	assert_string_not_equal(job_str(c->s, ids[1], "lease_until", buf,
					sizeof(buf)), l1);
	bb_store_close(a);
}

/* ---- groups: one job on several hosts ------------------------------------ */

/* A daemon's handle registered with host metadata and devices of its
 * own (JSON text). */
static struct bb_store *daemon_meta(struct ctx *c, const char *name,
				    const char *host, const char *devices)
{
	struct bb_store *s = NULL;
	char err[512] = "";

	if (bb_store_open(&s, c->path, err, sizeof(err)) ||
	    bb_store_set_daemon(s, name, 60, err, sizeof(err)) ||
	    bb_store_daemon_register(s, host, devices, "test",
				     (long)getpid(), err, sizeof(err)))
		fail_msg("daemon %s: %s", name, err);
	return s;
}

#define DEV(name, model) \
	"{\"name\":\"" name "\",\"path\":\"/dev/" name "\",\"model\":\"" \
	model "\",\"rotational\":0}"

/* Three hosts told apart by kernel and devices. */
static void three_hosts(struct ctx *c, struct bb_store **h)
{
	h[0] = daemon_meta(c, "host-a", "{\"kernel\":\"6.18.0-rc1\","
			   "\"cpu_model\":\"AMD EPYC 9654\",\"cpus\":8}",
			   "{\"devices\":[" DEV("nvme0n1", "QEMU NVMe Ctrl")
			   "],\"allow\":[]}");
	h[1] = daemon_meta(c, "host-b", "{\"kernel\":\"6.17.3\","
			   "\"cpu_model\":\"Intel Xeon\",\"cpus\":4}",
			   "{\"devices\":[" DEV("nvme0n1", "QEMU NVMe Ctrl")
			   "],\"allow\":[]}");
	h[2] = daemon_meta(c, "host-c", "{\"kernel\":\"6.18.2\","
			   "\"cpu_model\":\"AMD EPYC 9654\",\"cpus\":8}",
			   "{\"devices\":[" DEV("nvme0n1", "QEMU NVMe Ctrl")
			   "," DEV("nvme1n1", "Samsung 990") "],\"allow\":[]}");
}

static void close_hosts(struct bb_store **h)
{
	for (unsigned i = 0; i < 3; i++)
		bb_store_close(h[i]);
}

/* Submit a group (or fail): the parent's id. */
static int64_t submit_group(struct bb_store *s, const char *target,
			    const char *sel)
{
	char spec[1024], err[512] = "";
	int64_t id = 0;
	int ret;

	snprintf(spec, sizeof(spec), "{\"name\":\"g\",\"target\":\"%s\",%s}",
		 target, sel);
	ret = bb_store_job_submit(s, "g", target, spec, 2, 0, &id, err,
				  sizeof(err));
	if (ret)
		fail_msg("submit %s: %d %s", spec, ret, err);
	return id;
}

/* The hosts of a group's children, "," separated, into buf. */
static const char *group_hosts(struct bb_store *s, int64_t id, char *buf,
			       size_t len)
{
	struct json_object *kids;
	char err[256] = "";
	size_t off = 0;

	assert_int_equal(bb_store_job_children(s, id, &kids, err, sizeof(err)),
			 0);
	buf[0] = '\0';
	for (size_t i = 0; i < json_object_array_length(kids); i++) {
		struct json_object *k = json_object_array_get_idx(kids, i), *v;

		assert_true(json_object_object_get_ex(k, "host", &v));
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? "," : "", json_object_get_string(v));
	}
	json_object_put(kids);
	return buf;
}

/* The id of the child of group id on host. */
static int64_t child_on(struct bb_store *s, int64_t id, const char *host)
{
	struct json_object *kids;
	char err[256] = "";
	int64_t cid = 0;

	assert_int_equal(bb_store_job_children(s, id, &kids, err, sizeof(err)),
			 0);
	for (size_t i = 0; i < json_object_array_length(kids); i++) {
		struct json_object *k = json_object_array_get_idx(kids, i);

		if (!strcmp(json_object_get_string(
				    json_object_object_get(k, "host")), host))
			cid = json_object_get_int64(
				json_object_object_get(k, "id"));
	}
	json_object_put(kids);
	assert_true(cid > 0);
	return cid;
}

/* "host" as a list: a parent and a child addressed to each host, the
 * parent never claimed, each child only by its host; the documents tell
 * parent and children apart; the list can leave the children out. */
static void group_by_list(void **state)
{
	struct ctx *c = *state;
	struct bb_store *h[3];
	struct json_object *doc, *jobs, *v;
	char err[512] = "", buf[256];
	int64_t g, ca, cc, id = 0;

	three_hosts(c, h);
	g = submit_group(c->s, "nop", "\"host\":[\"host-c\",\"host-a\"]");
	assert_string_equal(group_hosts(c->s, g, buf, sizeof(buf)),
			    "host-c,host-a");
	ca = child_on(c->s, g, "host-a");
	cc = child_on(c->s, g, "host-c");
	assert_string_equal(job_str(c->s, ca, "for_host", buf, sizeof(buf)),
			    "host-a");
	assert_true(ca > g && cc > g);
	/* the child's spec is an ordinary job addressed to its host */
	assert_int_equal(bb_store_job_get(c->s, cc, &doc, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "spec", &v));
	assert_string_equal(json_object_get_string(
		json_object_object_get(v, "host")), "host-c");
	assert_int_equal(json_object_get_int64(
		json_object_object_get(doc, "group_id")), g);
	assert_false(json_object_get_boolean(
		json_object_object_get(doc, "group")));
	json_object_put(doc);
	assert_int_equal(bb_store_job_get(c->s, g, &doc, err, sizeof(err)), 0);
	assert_true(json_object_get_boolean(json_object_object_get(doc,
								   "group")));
	assert_true(json_object_object_get_ex(doc, "children", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_int_equal(json_object_get_int(
		json_object_object_get(doc, "runs_planned")), 4);
	json_object_put(doc);
	/* b has nothing to claim; a and c their own child; the parent
	 * stays unclaimed */
	assert_int_equal(claim_start(h[1]), 0);
	assert_int_equal(claim_start(h[0]), ca);
	assert_int_equal(claim_start(h[2]), cc);
	assert_int_equal(claim_start(h[0]), 0);
	assert_string_equal(job_str(c->s, g, "claimed_by", buf, sizeof(buf)),
			    "");
	/* without a daemon the queue has nothing left either */
	{
		char *spec = NULL;

		assert_int_equal(bb_store_job_next_queued(c->s, &id, &spec, err,
							  sizeof(err)),
				 -ENOENT);
	}
	/* the list: parent and children, or the parent alone */
	assert_int_equal(bb_store_jobs_list_ex(c->s, NULL, NULL, true, 10, 0, &doc,
					       err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 3);
	json_object_put(doc);
	assert_int_equal(bb_store_jobs_list_ex(c->s, NULL, NULL, false, 10, 0, &doc,
					       err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 1);
	assert_int_equal(json_object_get_int64(json_object_object_get(
		json_object_array_get_idx(jobs, 0), "id")), g);
	json_object_put(doc);
	/* a name no daemon has: refused, nothing stored */
	assert_int_equal(bb_store_job_submit(c->s, "g", "nop",
					     "{\"name\":\"g\",\"target\":"
					     "\"nop\",\"host\":[\"host-a\","
					     "\"host-z\"]}", 2, 0, &id, err,
					     sizeof(err)), -ENXIO);
	assert_non_null(strstr(err, "\"host-z\""));
	assert_non_null(strstr(err, "registered: host-a, host-b, host-c"));
	assert_int_equal(bb_store_job_state(c->s, (ca > cc ? ca : cc) + 1, buf,
					    err, sizeof(err)), -ENOENT);
	close_hosts(h);
}

/* "hosts": globs on host metadata and devices (all keys, one device;
 * the target's device when the host has it); no match is refused
 * naming the registered hosts; a daemon not seen within the window is
 * left out. */
static void group_by_selector(void **state)
{
	struct ctx *c = *state;
	struct bb_store *h[3];
	char err[1024] = "", buf[256];
	int64_t id = 0;

	three_hosts(c, h);
	assert_string_equal(group_hosts(c->s, submit_group(c->s, "nop",
		"\"hosts\":{\"kernel\":\"6.18*\"}"), buf, sizeof(buf)),
		"host-a,host-c");
	assert_string_equal(group_hosts(c->s, submit_group(c->s, "nop",
		"\"hosts\":{\"name\":\"host-[ab]\"}"), buf, sizeof(buf)),
		"host-a,host-b");
	assert_string_equal(group_hosts(c->s, submit_group(c->s, "nop",
		"\"hosts\":{\"cpu_model\":\"AMD*\",\"cpus\":\"8\","
		"\"device.model\":\"QEMU NVMe Ctrl\"}"), buf, sizeof(buf)),
		"host-a,host-c");
	/* any device of the host, or the target's own */
	assert_string_equal(group_hosts(c->s, submit_group(c->s, "nop",
		"\"hosts\":{\"device.model\":\"Samsung*\"}"), buf, sizeof(buf)),
		"host-c");
	assert_string_equal(group_hosts(c->s, submit_group(c->s,
		"/dev/nvme1n1", "\"hosts\":{\"device.model\":\"QEMU*\"}"), buf,
		sizeof(buf)), "host-a,host-b");
	/* both device keys on the same device */
	assert_int_equal(bb_store_job_submit(c->s, "g", "nop",
		"{\"name\":\"g\",\"target\":\"nop\",\"hosts\":{\"device.model\":"
		"\"Samsung*\",\"device.name\":\"nvme0n1\"}}", 2, 0, &id, err,
		sizeof(err)), -ENXIO);
	assert_int_equal(bb_store_job_submit(c->s, "g", "nop",
		"{\"name\":\"g\",\"target\":\"nop\",\"hosts\":{\"kernel\":"
		"\"5.*\"}}", 2, 0, &id, err, sizeof(err)), -ENXIO);
	assert_non_null(strstr(err, "matches no registered daemon"));
	assert_non_null(strstr(err, "registered: host-a (seen"));
	assert_non_null(strstr(err, "host-c (seen"));
	/* a window of 1 s: host-a's heartbeat keeps it, the others age */
	bb_store_set_group_window(c->s, 1);
	sleep_ms(1500);
	assert_int_equal(bb_store_daemon_heartbeat(h[0], 0, err, sizeof(err)),
			 0);
	assert_string_equal(group_hosts(c->s, submit_group(c->s, "nop",
		"\"hosts\":{\"name\":\"host-*\"}"), buf, sizeof(buf)), "host-a");
	/* a list names hosts: registered is enough */
	assert_string_equal(group_hosts(c->s, submit_group(c->s, "nop",
		"\"host\":[\"host-b\"]"), buf, sizeof(buf)), "host-b");
	/* the queue limit counts the children */
	assert_int_equal(bb_store_job_submit(c->s, "g", "nop",
		"{\"name\":\"g\",\"target\":\"nop\",\"host\":[\"host-a\","
		"\"host-b\"]}", 2, 9, &id, err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "the group adds 2"));
	close_hosts(h);
}

/* The parent's state follows its children's (bb_group_state), its runs
 * are theirs, its verdict theirs once all ended; it cannot be ended
 * itself; cancelling its children cancels it. */
static void group_state(void **state)
{
	struct ctx *c = *state;
	struct bb_store *h[3];
	char err[512] = "", buf[64];
	int64_t g, ca, cb, cc;
	struct json_object *doc;

	three_hosts(c, h);
	g = submit_group(c->s, "nop",
			 "\"host\":[\"host-a\",\"host-b\",\"host-c\"]");
	ca = child_on(c->s, g, "host-a");
	cb = child_on(c->s, g, "host-b");
	cc = child_on(c->s, g, "host-c");
	expect_state(c->s, g, BB_JOB_QUEUED);
	assert_int_equal(bb_store_job_finish(c->s, g, BB_JOB_CANCELLED, NULL,
					     NULL, NULL, err, sizeof(err)),
			 -EISDIR);
	assert_int_equal(claim_start(h[0]), ca);
	expect_state(c->s, g, BB_JOB_RUNNING);
	assert_true(job_str(c->s, g, "started", buf, sizeof(buf))[0]);
	add_run(h[0], ca, 0);
	add_run(h[0], ca, 1);
	assert_int_equal(bb_store_job_finish(h[0], ca, BB_JOB_DONE, "faster",
					     NULL, NULL, err, sizeof(err)), 0);
	/* one done, two queued: still running, not finished */
	expect_state(c->s, g, BB_JOB_RUNNING);
	assert_string_equal(job_str(c->s, g, "finished", buf, sizeof(buf)),
			    "");
	assert_int_equal(bb_store_job_get(c->s, g, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(json_object_object_get(
				 doc, "runs_done")), 2);
	json_object_put(doc);
	assert_int_equal(claim_start(h[1]), cb);
	assert_int_equal(bb_store_job_finish(h[1], cb, BB_JOB_DONE, "slower",
					     NULL, NULL, err, sizeof(err)), 0);
	assert_int_equal(claim_start(h[2]), cc);
	assert_int_equal(bb_store_job_finish(h[2], cc, BB_JOB_DONE, "faster",
					     NULL, NULL, err, sizeof(err)), 0);
	expect_state(c->s, g, BB_JOB_DONE);
	assert_string_equal(job_str(c->s, g, "verdict", buf, sizeof(buf)),
			    "disagree");
	assert_true(job_str(c->s, g, "finished", buf, sizeof(buf))[0]);

	/* a failed child fails the group once all ended */
	g = submit_group(c->s, "nop", "\"host\":[\"host-a\",\"host-b\"]");
	ca = child_on(c->s, g, "host-a");
	cb = child_on(c->s, g, "host-b");
	assert_int_equal(bb_store_job_finish(c->s, ca, BB_JOB_FAILED, NULL,
					     NULL, "boom", err, sizeof(err)), 0);
	expect_state(c->s, g, BB_JOB_RUNNING);
	assert_int_equal(claim_start(h[1]), cb);
	assert_int_equal(bb_store_job_finish(h[1], cb, BB_JOB_DONE, "faster",
					     NULL, NULL, err, sizeof(err)), 0);
	expect_state(c->s, g, BB_JOB_FAILED);
	assert_string_equal(job_str(c->s, g, "verdict", buf, sizeof(buf)),
			    "faster");

	/* cancel: every queued child cancelled, then the group is */
	g = submit_group(c->s, "nop", "\"host\":[\"host-a\",\"host-b\"]");
	assert_int_equal(bb_store_job_finish(c->s, child_on(c->s, g, "host-a"),
					     BB_JOB_CANCELLED, NULL, NULL,
					     NULL, err, sizeof(err)), 0);
	expect_state(c->s, g, BB_JOB_RUNNING);
	assert_int_equal(bb_store_job_finish(c->s, child_on(c->s, g, "host-b"),
					     BB_JOB_CANCELLED, NULL, NULL,
					     NULL, err, sizeof(err)), 0);
	expect_state(c->s, g, BB_JOB_CANCELLED);
	/* a daemon's startup recovery never touches a parent */
	g = submit_group(c->s, "nop", "\"host\":[\"host-a\",\"host-b\"]");
	ca = child_on(c->s, g, "host-a");
	assert_int_equal(claim_start(h[0]), ca);
	{
		unsigned n = 0;

		assert_int_equal(bb_store_jobs_interrupt_running(h[1], &n, err,
								 sizeof(err)),
				 0);
		assert_int_equal(n, 0);
	}
	expect_state(c->s, g, BB_JOB_RUNNING);
	close_hosts(h);
}

/* ---- recovery, registry ------------------------------------------------ */

/* A daemon's start interrupts its own running jobs and no other's. */
static void recovery_is_per_daemon(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	struct bb_store *b = daemon_open(c, "host-b", 60);
	char err[512] = "";
	int64_t ja, jb;
	unsigned n = 0;

	submit(c->s, SPEC);
	submit(c->s, SPEC);
	ja = claim_start(a);
	jb = claim_start(b);
	assert_true(ja > 0 && jb > 0 && ja != jb);
	assert_int_equal(bb_store_jobs_interrupt_running(a, &n, err,
							 sizeof(err)), 0);
	assert_int_equal(n, 1);
	expect_state(c->s, ja, BB_JOB_INTERRUPTED);
	expect_state(c->s, jb, BB_JOB_RUNNING);
	bb_store_close(a);
	bb_store_close(b);
}

/* The registry: one row per name (a restart re-registers), the running
 * job from the heartbeat, the kernel of its host metadata. */
static void hosts_list(void **state)
{
	struct ctx *c = *state;
	struct bb_store *a = daemon_open(c, "host-a", 60);
	struct bb_store *b = daemon_open(c, "host-b", 60);
	struct bb_store *a2 = daemon_open(c, "host-a", 60);
	struct json_object *doc, *hosts, *h, *v;
	char err[512] = "";
	int64_t id;

	submit(c->s, SPEC);
	id = claim_start(b);
	assert_int_equal(bb_store_daemon_heartbeat(b, id, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_hosts_list(c->s, &doc, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "hosts", &hosts));
	assert_int_equal(json_object_array_length(hosts), 2);
	h = json_object_array_get_idx(hosts, 0);
	assert_true(json_object_object_get_ex(h, "name", &v));
	assert_string_equal(json_object_get_string(v), "host-a");
	assert_true(json_object_object_get_ex(h, "running_job", &v));
	assert_null(v);
	h = json_object_array_get_idx(hosts, 1);
	assert_true(json_object_object_get_ex(h, "name", &v));
	assert_string_equal(json_object_get_string(v), "host-b");
	assert_true(json_object_object_get_ex(h, "running_job", &v));
	assert_int_equal(json_object_get_int64(v), id);
	assert_true(json_object_object_get_ex(h, "kernel", &v));
	assert_string_equal(json_object_get_string(v), "6.18.0-test");
	assert_true(json_object_object_get_ex(h, "last_seen", &v) && v);
	json_object_put(doc);
	/* a handle without a daemon claims nothing */
	assert_int_equal(bb_store_daemon_heartbeat(c->s, 0, err, sizeof(err)),
			 0);
	bb_store_close(a);
	bb_store_close(a2);
	bb_store_close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(claim_race),
		T(lease_expiry_interrupts),
		T(boot_jobs_do_not_expire),
		T(queued_claim_taken_over),
		T(addressed_jobs),
		T(refused_left_for_another),
		T(refused_sweep_and_gone_hosts),
		T(jobs_list_by_host),
		T(cancel_request),
		T(cancel_request_of_two),
		T(recovery_is_per_daemon),
		T(hosts_list),
		T(group_by_list),
		T(group_by_selector),
		T(group_state),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
