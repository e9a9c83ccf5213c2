// SPDX-License-Identifier: GPL-2.0-only
/* test_scheduler.c - the scheduler with a real store in a temporary
 * directory (or the PostgreSQL database BB_TEST_STORE names: ctest
 * test_scheduler_pg) and real io_uring NOP runs, driven from several threads the
 * way the daemon drives it (built for TSan as well: -DBB_TSAN=ON):
 *
 *  - jobs inserted with bb_store_job_insert and kicked while a second
 *    thread cancels some of them (queued ones and running ones) and a
 *    third reads progress and job documents in a loop: every job ends,
 *    the cancelled ones cancelled within a bound, the others done with
 *    all their runs stored; cancel answers -EALREADY / -ENOENT where it
 *    must;
 *  - bb_sched_stop during a run: the job is interrupted, not cancelled;
 *  - max_parallel_jobs 2: jobs on disjoint CPUs overlap in time, jobs on
 *    one CPU do not, no job overtakes an older one it conflicts with;
 *    cancel, stop and recovery with two running; two knob jobs on two
 *    loop devices both restored at a stop;
 *  - startup recovery: a job left running becomes interrupted; a journaled
 *    knob is written back only when its path is a sysfs file (a tampered
 *    database must not make the daemon write elsewhere);
 *  - a real sysfs knob (loop device, root only) is restored at startup;
 *  - boot jobs with stand-in kexec and systemctl programs (scripts that
 *    log their arguments): refused while another job is queued and
 *    without allow_reboot; the first boot's runs on this kernel, the
 *    next kernel armed, the job left rebooting across bb_sched_stop; the
 *    next start on the same boot fails it (boot id unchanged) keeping its
 *    runs; a reboot command that fails fails the job and unloads the
 *    kernel.
 * Skipped (77) when io_uring is not available. */
#include "dconfig.h"
#include "scheduler.h"
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgstore.h"
#include <liburing.h>

#include "helpers.h"

#define SHORT_JOB(n)                                                      \
	"{\"name\":\"short " n "\",\"target\":\"nop\",\"workload\":"        \
	"{\"number_ios\":2000,\"iodepth\":8},\"variants\":{\"A\":{},"       \
	"\"B\":{\"bio_cache\":\"irq_fast\",\"completion\":\"thread\"}},"  \
	"\"repeat\":2,\"warmup\":0,\"order\":\"interleaved\"}"
/* 10 rounds of 2 x 5 s: 100 s unless the cancel works */
#define LONG_JOB                                                          \
	"{\"name\":\"long\",\"target\":\"nop\",\"workload\":"               \
	"{\"runtime\":\"5s\",\"iodepth\":8},\"variants\":{\"A\":{},"        \
	"\"B\":{}},\"repeat\":10,\"warmup\":0,\"order\":\"interleaved\"}"

/* generous: TSan slows everything down 5-15x, the host is shared */
#define END_TIMEOUT_S 180.0
#define CANCEL_BOUND_S 5.0

struct fx {
	char dir[64];
	char db[512];   /* a sqlite file or BB_TEST_STORE */
	char locks[128];
	/* PostgreSQL: the local knob journal (a daemon's knob_journal);
	 * "" on sqlite (the store's own) */
	char knobs[128];
};

static void write_text(const char *path, const char *text);
static void read_text(const char *path, char *buf, size_t len);

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/bb-test-sched.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	{
		char file[128];

		snprintf(file, sizeof(file), "%s/biobench.db", f->dir);
		if (bb_test_store(f->db, sizeof(f->db), file))
			snprintf(f->knobs, sizeof(f->knobs), "%s/knobs.db",
				 f->dir);
	}
	/* the jobs' device locks: this test's own, not the host's */
	snprintf(f->locks, sizeof(f->locks), "%s/locks", f->dir);
	setenv("BIOBENCH_LOCK_DIR", f->locks, 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static struct bb_store *store_open(const struct fx *f)
{
	struct bb_store *st = NULL;
	char err[512] = "";
	int ret = bb_store_open_journal(&st, f->db, f->knobs, err,
					sizeof(err));

	if (ret)
		print_message("bb_store_open: %s\n", err);
	assert_int_equal(ret, 0);
	return st;
}

/* The scheduler with the fixture's knob journal (no fleet identity). */
static int sched_start(struct bb_sched **s, const struct fx *f, char *err,
		       size_t len)
{
	const struct bb_sched_fleet fl = { .knob_journal = f->knobs };

	return bb_sched_start_fleet(s, f->db, &fl, err, len);
}

static int64_t insert(struct bb_store *st, const char *spec, unsigned runs)
{
	char err[512] = "";
	int64_t id = 0;
	int ret = bb_store_job_insert(st, "t", "nop", spec, runs, &id, err,
				      sizeof(err));

	if (ret)
		print_message("bb_store_job_insert: %s\n", err);
	assert_int_equal(ret, 0);
	return id;
}

static const char *state_of(struct bb_store *st, int64_t id, char *buf)
{
	assert_int_equal(bb_store_job_state(st, id, buf, NULL, 0), 0);
	return buf;
}

static bool ended(const char *s)
{
	return !strcmp(s, BB_JOB_DONE) || !strcmp(s, BB_JOB_FAILED) ||
	       !strcmp(s, BB_JOB_CANCELLED) || !strcmp(s, BB_JOB_INTERRUPTED);
}

/* Runs stored for a job, and how many of them are done. */
static unsigned runs_of(struct bb_store *st, int64_t id, unsigned *ndone)
{
	struct json_object *o = NULL, *runs, *r, *v;
	char err[256];
	unsigned n;

	assert_int_equal(bb_store_job_runs(st, id, false, &o, err, sizeof(err)),
			 0);
	assert_true(json_object_object_get_ex(o, "runs", &runs));
	n = (unsigned)json_object_array_length(runs);
	*ndone = 0;
	for (unsigned i = 0; i < n; i++) {
		r = json_object_array_get_idx(runs, i);
		if (json_object_object_get_ex(r, "state", &v) &&
		    !strcmp(json_object_get_string(v), "done"))
			(*ndone)++;
	}
	json_object_put(o);
	return n;
}

/* ---- concurrent submit / cancel / progress ----------------------------- */

#define NJOBS 12

struct shared {
	struct bb_sched *s;
	struct bb_store *http;   /* the "HTTP threads'" handle, shared */
	int64_t ids[NJOBS];
	bool is_long[NJOBS];
	bool cancel_queued[NJOBS]; /* cancelled before it can start */
	/* written by the canceller, read by the main thread (atomics: the
	 * only ordering between them otherwise goes through sqlite) */
	_Atomic double cancel_t[NJOBS]; /* when the cancel was asked (0: not) */
	atomic_int cancel_ret[NJOBS];
	atomic_bool done;
	atomic_uint progress_seen; /* progress documents read */
	atomic_uint progress_bad;  /* malformed ones */
};

static void *canceller(void *arg)
{
	struct shared *sh = arg;
	char err[256];

	/* queued ones first, at once: they must never start */
	for (int i = 0; i < NJOBS; i++) {
		if (!sh->cancel_queued[i])
			continue;
		sh->cancel_t[i] = now_s();
		sh->cancel_ret[i] = bb_sched_cancel(sh->s, sh->http, sh->ids[i],
						    err, sizeof(err));
	}
	/* the long ones once they run (or right away if one is missed) */
	for (int i = 0; i < NJOBS; i++) {
		double t0 = now_s();

		if (!sh->is_long[i] || sh->cancel_queued[i])
			continue;
		while (bb_sched_running(sh->s) != sh->ids[i] &&
		       now_s() - t0 < END_TIMEOUT_S)
			usleep(2000);
		usleep(100000); /* let a run get going */
		sh->cancel_t[i] = now_s();
		sh->cancel_ret[i] = bb_sched_cancel(sh->s, sh->http, sh->ids[i],
						    err, sizeof(err));
	}
	return NULL;
}

static void *reader(void *arg)
{
	struct shared *sh = arg;
	char err[256];

	while (!atomic_load(&sh->done)) {
		int64_t id = bb_sched_running(sh->s);
		struct json_object *p, *job = NULL, *v;

		/* progress of whatever runs, and of ids that do not */
		p = bb_sched_progress(sh->s, id);
		if (p) {
			atomic_fetch_add(&sh->progress_seen, 1);
			if (!json_object_object_get_ex(p, "runs_planned", &v) ||
			    !json_object_object_get_ex(p, "run", &v) ||
			    json_object_get_int(v) < 0)
				atomic_fetch_add(&sh->progress_bad, 1);
			/* the last finished run's IOPS come with that run's
			 * variant: A B A B ... (no warm-ups), run k is A when
			 * k is odd */
			if (json_object_object_get_ex(p, "last_run", &v) && v) {
				struct json_object *n, *var;

				if (!json_object_object_get_ex(v, "run", &n) ||
				    !json_object_object_get_ex(v, "variant", &var) ||
				    (json_object_get_int(n) % 2 == 1) !=
					    !strcmp(json_object_get_string(var), "A"))
					atomic_fetch_add(&sh->progress_bad, 1);
			}
			json_object_put(p);
		}
		p = bb_sched_progress(sh->s, 999999);
		if (p)
			atomic_fetch_add(&sh->progress_bad, 1);
		json_object_put(p);
		if (id && !bb_store_job_get(sh->http, id, &job, err,
					    sizeof(err)))
			json_object_put(job);
		usleep(500);
	}
	return NULL;
}

static void test_concurrent(void **state)
{
	struct fx *f = *state;
	struct shared *sh = calloc(1, sizeof(*sh));
	pthread_t tc, tr;
	char err[512] = "", st[16];
	double t0;
	int ret;

	assert_non_null(sh);
	sh->http = store_open(f);
	ret = bb_sched_start(&sh->s, f->db, err, sizeof(err));
	if (ret)
		print_message("bb_sched_start: %s\n", err);
	assert_int_equal(ret, 0);

	/* pattern: short, long (cancelled while running), short, long
	 * (cancelled while queued), ... */
	for (int i = 0; i < NJOBS; i++) {
		sh->is_long[i] = i % 2 == 1;
		sh->cancel_queued[i] = i % 4 == 3;
		sh->ids[i] = insert(sh->http, sh->is_long[i] ? LONG_JOB
							     : SHORT_JOB("x"),
				    sh->is_long[i] ? 20 : 4);
		if (i % 3 == 0)
			bb_sched_kick(sh->s);
	}
	bb_sched_kick(sh->s);
	atomic_store(&sh->done, false);
	assert_int_equal(pthread_create(&tr, NULL, reader, sh), 0);
	assert_int_equal(pthread_create(&tc, NULL, canceller, sh), 0);

	/* wait for every job to end */
	t0 = now_s();
	for (int i = 0; i < NJOBS; i++) {
		while (!ended(state_of(sh->http, sh->ids[i], st))) {
			if (now_s() - t0 > END_TIMEOUT_S)
				fail_msg("job %d (%s, %s) still %s after %.0f s",
					 i, sh->is_long[i] ? "long" : "short",
					 sh->cancel_queued[i] ? "cancel queued"
							      : "-",
					 st, END_TIMEOUT_S);
			usleep(10000);
		}
		if (sh->cancel_t[i] > 0 && !sh->cancel_queued[i]) {
			double dt = now_s() - sh->cancel_t[i];

			if (dt > CANCEL_BOUND_S)
				fail_msg("job %d: cancelled %.2f s after the "
					 "request (bound %.0f s)", i, dt,
					 CANCEL_BOUND_S);
		}
	}
	assert_int_equal(pthread_join(tc, NULL), 0);
	atomic_store(&sh->done, true);
	assert_int_equal(pthread_join(tr, NULL), 0);

	for (int i = 0; i < NJOBS; i++) {
		unsigned n, ndone;

		state_of(sh->http, sh->ids[i], st);
		n = runs_of(sh->http, sh->ids[i], &ndone);
		if (sh->is_long[i]) {
			if (strcmp(st, BB_JOB_CANCELLED))
				fail_msg("long job %d: %s, wanted cancelled",
					 i, st);
			assert_int_equal(sh->cancel_ret[i], 0);
			if (sh->cancel_queued[i])
				assert_int_equal(n, 0); /* never started */
		} else {
			if (strcmp(st, BB_JOB_DONE))
				fail_msg("short job %d: %s, wanted done", i, st);
			assert_int_equal(n, 4);
			assert_int_equal(ndone, 4);
		}
	}
	assert_int_equal(bb_sched_running(sh->s), 0);
	assert_int_equal(atomic_load(&sh->progress_bad), 0);
	print_message("  %u progress documents read while jobs ran\n",
		      atomic_load(&sh->progress_seen));
	/* cancel of an ended job, of no job */
	assert_int_equal(bb_sched_cancel(sh->s, sh->http, sh->ids[0], err,
					 sizeof(err)),
			 -EALREADY);
	assert_int_equal(bb_sched_cancel(sh->s, sh->http, sh->ids[1], err,
					 sizeof(err)),
			 -EALREADY);
	assert_int_equal(bb_sched_cancel(sh->s, sh->http, 424242, err,
					 sizeof(err)),
			 -ENOENT);
	bb_sched_stop(sh->s);
	bb_store_close(sh->http);
	free(sh);
}

/* ---- stop during a run ---------------------------------------------------- */

static void test_stop_interrupts(void **state)
{
	struct fx *f = *state;
	struct bb_store *st = store_open(f);
	struct bb_sched *s = NULL;
	char err[512] = "", buf[16];
	int64_t id, queued;
	double t0;

	id = insert(st, LONG_JOB, 20);
	queued = insert(st, SHORT_JOB("after"), 4);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_kick(s); /* nothing starts before the first kick */
	t0 = now_s();
	while (bb_sched_running(s) != id) {
		assert_true(now_s() - t0 < END_TIMEOUT_S);
		usleep(2000);
	}
	usleep(200000);
	t0 = now_s();
	bb_sched_stop(s);
	assert_true(now_s() - t0 < CANCEL_BOUND_S);
	assert_string_equal(state_of(st, id, buf), BB_JOB_INTERRUPTED);
	/* the next job was not started by a stopping scheduler */
	assert_string_equal(state_of(st, queued, buf), BB_JOB_QUEUED);
	bb_store_close(st);
}

/* ---- a host's noise floor from its A/A jobs -------------------------------- */

static const char *wait_end(int64_t id, char *buf);
static const char *job_error(int64_t id, char *buf, size_t len);
static struct bb_store *g_st; /* for wait_end */

static void test_noise_floor(void **state)
{
	struct fx *f = *state;
	struct bb_store *st = store_open(f);
	struct bb_sched *s = NULL;
	struct json_object *doc = NULL, *nf;
	char err[512] = "", buf[16];
	int64_t aa, ab;

	g_st = st;
	aa = insert(st, "{\"name\":\"aa\",\"target\":\"nop\",\"workload\":"
		    "{\"number_ios\":2000,\"iodepth\":8},\"aa\":true,"
		    "\"repeat\":4,\"warmup\":0}", 8);
	ab = insert(st, SHORT_JOB("after aa"), 4);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_kick(s);
	assert_string_equal(wait_end(aa, buf), BB_JOB_DONE);
	assert_string_equal(wait_end(ab, buf), BB_JOB_DONE);
	bb_sched_stop(s);
	/* the A/B job on the same host and target shows the A/A spread */
	assert_int_equal(bb_store_job_get(st, ab, &doc, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "noise_floor", &nf) && nf);
	assert_int_equal(json_object_get_int64(json_object_object_get(nf, "job_id")),
			 aa);
	assert_int_equal(json_object_get_int(json_object_object_get(nf, "pairs")),
			 4);
	assert_true(json_object_get_double(json_object_object_get(nf, "log_sd")) >= 0);
	json_object_put(doc);
	bb_store_close(st);
}

/* ---- the fleet: one daemon of a store's registry ------------------------ */

static const char *job_text(struct bb_store *st, int64_t id, const char *key,
			    char *buf, size_t len)
{
	struct json_object *o = NULL, *v;
	char err[256];

	assert_int_equal(bb_store_job_get(st, id, &o, err, sizeof(err)), 0);
	snprintf(buf, len, "%s", json_object_object_get_ex(o, key, &v) && v ?
				 json_object_get_string(v) : "");
	json_object_put(o);
	return buf;
}

/* The scheduler as daemon sched-a (what biobenchd runs, on sqlite too):
 * registered, it runs the jobs addressed to it and to any host, claimed
 * by it; a job for another daemon stays queued; that daemon's running
 * job is left alone by sched-a's recovery (its lease holds). */
static void test_fleet_daemon(void **state)
{
	struct fx *f = *state;
	struct bb_store *st = store_open(f), *other = store_open(f);
	struct bb_sched_fleet fl = {
		.host_name = "sched-a", .lease_s = 2,
		.host = "{\"kernel\":\"6.18-test\"}",
		.devices = "{\"devices\":[],\"allow\":[]}",
		.version = "test",
	};
	struct json_object *hosts = NULL, *arr, *h;
	struct bb_sched *s = NULL;
	char err[512] = "", buf[64], *spec = NULL;
	int64_t any, mine, theirs, running = 0;

	g_st = st;
	assert_int_equal(bb_store_set_daemon(other, "sched-b", 60, err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_daemon_register(other, NULL, NULL, "test", 1,
						  err, sizeof(err)), 0);
	/* sched-b runs a job (claimed, started) */
	insert(st, SHORT_JOB("b's"), 4);
	assert_int_equal(bb_store_job_claim(other, &running, &spec, err,
					    sizeof(err)), 0);
	free(spec);
	assert_int_equal(bb_store_job_start(other, running, 0, 0, err,
					    sizeof(err)), 0);
	theirs = insert(st, "{\"name\":\"theirs\",\"target\":\"nop\","
			"\"host\":\"sched-b\"}", 4);
	any = insert(st, SHORT_JOB("any"), 4);
	/* not registered yet: refused */
	assert_int_equal(bb_store_job_submit(st, "t", "nop",
					     "{\"host\":\"sched-a\"}", 4, 0,
					     &mine, err, sizeof(err)), -ENXIO);
	assert_non_null(strstr(err, "registered: sched-b"));
	assert_int_equal(bb_sched_start_fleet(&s, f->db, &fl, err,
					      sizeof(err)), 0);
	mine = insert(st, "{\"name\":\"mine\",\"target\":\"nop\","
		      "\"workload\":{\"number_ios\":2000,\"iodepth\":8},"
		      "\"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,"
		      "\"warmup\":0,\"host\":\"sched-a\"}", 4);
	bb_sched_kick(s);
	assert_string_equal(wait_end(any, buf), BB_JOB_DONE);
	assert_string_equal(wait_end(mine, buf), BB_JOB_DONE);
	assert_string_equal(job_text(st, any, "claimed_by", buf, sizeof(buf)),
			    "sched-a");
	assert_string_equal(job_text(st, mine, "claimed_by", buf, sizeof(buf)),
			    "sched-a");
	assert_string_equal(state_of(st, theirs, buf), BB_JOB_QUEUED);
	assert_string_equal(state_of(st, running, buf), BB_JOB_RUNNING);
	assert_int_equal(bb_store_hosts_list(st, &hosts, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(hosts, "hosts", &arr));
	assert_int_equal(json_object_array_length(arr), 2);
	h = json_object_array_get_idx(arr, 0);
	assert_string_equal(json_object_get_string(
				    json_object_object_get(h, "name")), "sched-a");
	assert_string_equal(json_object_get_string(
				    json_object_object_get(h, "kernel")),
			    "6.18-test");
	json_object_put(hosts);
	bb_sched_stop(s);
	bb_store_close(other);
	bb_store_close(st);
}

/* A daemon whose running job another daemon took from it (its lease
 * swept: here ended interrupted by another handle) stops the job at its
 * next heartbeat, keeps the store's end, and goes on with the queue. */
static void test_fleet_lost_job_stops(void **state)
{
	struct fx *f = *state;
	struct bb_store *st = store_open(f);
	struct bb_sched_fleet fl = {
		.host_name = "sched-a", .lease_s = 2, .version = "test",
	};
	struct bb_sched *s = NULL;
	char err[512] = "", buf[256];
	int64_t id, next;
	double t0;

	g_st = st;
	assert_int_equal(bb_sched_start_fleet(&s, f->db, &fl, err,
					      sizeof(err)), 0);
	id = insert(st, LONG_JOB, 20);
	next = insert(st, SHORT_JOB("after the lost one"), 4);
	bb_sched_kick(s);
	t0 = now_s();
	/* running in the store, not only taken by a runner thread: the
	 * runner checks the target (and may leave the job for another
	 * host) before the store says running */
	while (bb_sched_running(s) != id ||
	       strcmp(state_of(st, id, buf), BB_JOB_RUNNING)) {
		if (now_s() - t0 > END_TIMEOUT_S)
			fail_msg("job %lld never ran", (long long)id);
		usleep(10000);
	}
	assert_int_equal(bb_store_job_finish(st, id, BB_JOB_INTERRUPTED, NULL,
					     NULL, "taken by another daemon",
					     err, sizeof(err)), 0);
	t0 = now_s();
	assert_string_equal(wait_end(next, buf), BB_JOB_DONE);
	/* the 100 s job stopped within its heartbeat (1 s) and a run */
	assert_true(now_s() - t0 < 5 * CANCEL_BOUND_S);
	assert_string_equal(state_of(st, id, buf), BB_JOB_INTERRUPTED);
	assert_string_equal(job_error(id, buf, sizeof(buf)),
			    "taken by another daemon");
	bb_sched_stop(s);
	bb_store_close(st);
}

/* ---- the allow-list is checked again when a job runs ----------------------- */

static const char *wait_end(int64_t id, char *buf)
{
	double t0 = now_s();

	while (!ended(state_of(g_st, id, buf))) {
		if (now_s() - t0 > END_TIMEOUT_S)
			fail_msg("job %lld still %s", (long long)id, buf);
		usleep(10000);
	}
	return buf;
}

static const char *job_error(int64_t id, char *buf, size_t len)
{
	struct json_object *o = NULL, *v;
	char err[256];

	assert_int_equal(bb_store_job_get(g_st, id, &o, err, sizeof(err)), 0);
	snprintf(buf, len, "%s",
		 json_object_object_get_ex(o, "error", &v) && v
			 ? json_object_get_string(v)
			 : "");
	json_object_put(o);
	return buf;
}

static void test_allow_recheck(void **state)
{
	struct fx *f = *state;
	struct bb_dconfig *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct bb_dconfig *cur;
	pthread_rwlock_t lock;
	struct bb_sched *s = NULL;
	char err[512] = "", buf[16], msg[1024], spec[1024], path[256],
	     link[256];
	int64_t blocked, swapped, dropped, ok;

	assert_non_null(a);
	assert_non_null(b);
	g_st = store_open(f);
	assert_int_equal(pthread_rwlock_init(&lock, NULL), 0);
	/* a: nop and DIR/ok/NAME.dat; b: nop only (after a "reload") */
	bb_dconfig_default(a);
	a->nallow = 2;
	snprintf(a->allow[0].pattern, sizeof(a->allow[0].pattern), "nop");
	snprintf(a->allow[1].pattern, sizeof(a->allow[1].pattern),
		 "%s/ok/*.dat", f->dir);
	a->allow[1].write = true;
	*b = *a;
	b->nallow = 1;
	cur = a;
	snprintf(path, sizeof(path), "%s/ok", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/outside", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);

	/* queued while a blocker runs: a file that becomes a symlink to a
	 * file outside the allow-list, and one whose pattern is dropped */
	blocked = insert(g_st, LONG_JOB, 20);
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"swap\",\"target\":\"%s/ok/a.dat\","
		 "\"workload\":{\"size\":\"1m\",\"number_ios\":500,"
		 "\"rw\":\"randwrite\",\"allow_write\":true},"
		 "\"variants\":{\"A\":{},\"B\":{}},"
		 "\"repeat\":2,\"warmup\":0}", f->dir);
	swapped = insert(g_st, spec, 4);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);
	while (bb_sched_running(s) != blocked)
		usleep(2000);
	snprintf(path, sizeof(path), "%s/outside/victim.dat", f->dir);
	write_text(path, "precious\n");
	snprintf(link, sizeof(link), "%s/ok/a.dat", f->dir);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(bb_sched_cancel(s, g_st, blocked, err, sizeof(err)),
			 0);
	assert_string_equal(wait_end(swapped, buf), BB_JOB_FAILED);
	job_error(swapped, msg, sizeof(msg));
	if (!strstr(msg, "allow-list"))
		fail_msg("swapped target: error '%s'", msg);
	read_text(path, msg, sizeof(msg));
	assert_string_equal(msg, "precious");

	/* the allow-list changes ("SIGHUP") between submission and run */
	blocked = insert(g_st, LONG_JOB, 20);
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"drop\",\"target\":\"%s/ok/b.dat\","
		 "\"workload\":{\"size\":\"1m\",\"number_ios\":500},"
		 "\"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,"
		 "\"warmup\":0}", f->dir);
	dropped = insert(g_st, spec, 4);
	ok = insert(g_st, SHORT_JOB("still fine"), 4);
	bb_sched_kick(s);
	while (bb_sched_running(s) != blocked)
		usleep(2000);
	pthread_rwlock_wrlock(&lock);
	cur = b;
	pthread_rwlock_unlock(&lock);
	assert_int_equal(bb_sched_cancel(s, g_st, blocked, err, sizeof(err)),
			 0);
	assert_string_equal(wait_end(dropped, buf), BB_JOB_FAILED);
	job_error(dropped, msg, sizeof(msg));
	if (!strstr(msg, "allow-list"))
		fail_msg("dropped target: error '%s'", msg);
	assert_string_equal(wait_end(ok, buf), BB_JOB_DONE);
	bb_sched_stop(s);
	bb_store_close(g_st);
	pthread_rwlock_destroy(&lock);
	free(a);
	free(b);
}

/* The run-time check and the allow-list share one canonicaliser
 * (bb_target_canonical): a dangling symlink under an allowed glob is
 * refused at run for the reason the allow-list gives (the scheduler used
 * to resolve it as a file to create, then open it); a path with a
 * trailing '/' likewise.  A job that writes a file without its
 * allow_write (as stored by an older daemon) is refused at run, the file
 * unchanged, and one that has it writes. */
static void test_one_canonicaliser(void **state)
{
	struct fx *f = *state;
	struct bb_dconfig *a = calloc(1, sizeof(*a)), *cur = a;
	pthread_rwlock_t lock;
	struct bb_sched *s = NULL;
	char err[512] = "", why[512] = "", buf[16], msg[1024], spec[1024],
	     path[256], victim[256];
	int64_t dangling, slash, nowrite, withwrite;

	assert_non_null(a);
	g_st = store_open(f);
	assert_int_equal(pthread_rwlock_init(&lock, NULL), 0);
	bb_dconfig_default(a);
	a->nallow = 1;
	snprintf(a->allow[0].pattern, sizeof(a->allow[0].pattern),
		 "%s/ok/*.dat", f->dir);
	a->allow[0].write = true;
	snprintf(path, sizeof(path), "%s/ok", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(victim, sizeof(victim), "%s/victim", f->dir);
	snprintf(path, sizeof(path), "%s/ok/dangling.dat", f->dir);
	assert_int_equal(symlink(victim, path), 0);
	/* what the allow-list says about it */
	assert_int_equal(bb_dconfig_target_allowed(a, path, true, why,
						   sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "symlink to a missing file"));
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"dangling\",\"target\":\"%s\",\"workload\":"
		 "{\"size\":\"1m\",\"number_ios\":100,\"rw\":\"randwrite\","
		 "\"allow_write\":true,\"direct\":false},\"variants\":{\"A\":{},"
		 "\"B\":{}},\"repeat\":2,\"warmup\":0}", path);
	dangling = insert(g_st, spec, 4);
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"slash\",\"target\":\"%s/ok/new.dat/\","
		 "\"workload\":{\"size\":\"1m\",\"number_ios\":100,"
		 "\"rw\":\"randwrite\",\"allow_write\":true,\"direct\":false},"
		 "\"variants\":{\"A\":{},\"B\":{}},\"repeat\":2,"
		 "\"warmup\":0}", f->dir);
	slash = insert(g_st, spec, 4);
	snprintf(path, sizeof(path), "%s/ok/exists.dat", f->dir);
	write_text(path, "unchanged\n");
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"nowrite\",\"target\":\"%s\",\"workload\":"
		 "{\"number_ios\":100,\"rw\":\"randwrite\",\"bs\":\"512\","
		 "\"direct\":false},\"variants\":{\"A\":{},\"B\":{}},"
		 "\"repeat\":2,\"warmup\":0}", path);
	nowrite = insert(g_st, spec, 4);
	snprintf(path, sizeof(path), "%s/ok/made.dat", f->dir);
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"withwrite\",\"target\":\"%s\",\"workload\":"
		 "{\"size\":\"64k\",\"number_ios\":100,\"rw\":\"randwrite\","
		 "\"allow_write\":true,\"direct\":false},\"variants\":{\"A\":{},"
		 "\"B\":{}},\"repeat\":2,\"warmup\":0}", path);
	withwrite = insert(g_st, spec, 4);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);

	assert_string_equal(wait_end(dangling, buf), BB_JOB_FAILED);
	job_error(dangling, msg, sizeof(msg));
	if (!strstr(msg, "symlink to a missing file"))
		fail_msg("dangling symlink: error '%s'", msg);
	assert_int_equal(access(victim, F_OK), -1); /* not created */
	assert_string_equal(wait_end(slash, buf), BB_JOB_FAILED);
	job_error(slash, msg, sizeof(msg));
	if (!strstr(msg, "ends with '/'"))
		fail_msg("trailing slash: error '%s'", msg);
	assert_string_equal(wait_end(nowrite, buf), BB_JOB_FAILED);
	job_error(nowrite, msg, sizeof(msg));
	if (!strstr(msg, "allow_write"))
		fail_msg("no allow_write: error '%s'", msg);
	snprintf(path, sizeof(path), "%s/ok/exists.dat", f->dir);
	read_text(path, msg, sizeof(msg));
	assert_string_equal(msg, "unchanged");
	assert_string_equal(wait_end(withwrite, buf), BB_JOB_DONE);
	bb_sched_stop(s);
	bb_store_close(g_st);
	pthread_rwlock_destroy(&lock);
	free(a);
}

/* ---- startup recovery ------------------------------------------------------ */

static void write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

static void read_text(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");

	assert_non_null(fp);
	if (!fgets(buf, (int)len, fp))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(fp);
}

/* The whole of a small file. */
static void read_all(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n;

	assert_non_null(fp);
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
}

static void test_recovery(void **state)
{
	struct fx *f = *state;
	struct bb_store *st = store_open(f);
	struct bb_sched *s = NULL;
	char err[512] = "", buf[64], fake[160];
	int64_t id, kid;

	/* a job the previous daemon left running, with a knob journal row
	 * whose path is not a sysfs file (as a tampered database would
	 * have it): the job is interrupted, the file left alone */
	id = insert(st, SHORT_JOB("crashed"), 4);
	assert_int_equal(bb_store_job_start(st, id, 0, 0, err, sizeof(err)), 0);
	snprintf(fake, sizeof(fake), "%s/not-a-knob", f->dir);
	write_text(fake, "keep me\n");
	assert_int_equal(bb_store_knob_journal(st, id, "nop", "nomerges", fake,
					       "root::0:0::/root:/bin/sh", "2",
					       NULL, &kid, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_knob_mark(st, kid, "applied", NULL, 0), 0);

	assert_int_equal(sched_start(&s, f, err, sizeof(err)), 0);
	assert_string_equal(state_of(st, id, buf), BB_JOB_INTERRUPTED);
	read_text(fake, buf, sizeof(buf));
	assert_string_equal(buf, "keep me");
	bb_sched_stop(s);
	bb_store_close(st);
}

/* A real knob: read_ahead_kb of a loop device, changed behind the
 * daemon's back after journaling, as if it had crashed right after the
 * write. */
static void test_recovery_sysfs(void **state)
{
	struct fx *f = *state;
	struct bb_store *st;
	struct bb_sched *s = NULL;
	char err[512] = "", img[160], loop[64] = "", knob[256], orig[32],
	     now[32], cmd[256];
	int64_t id, kid;

	if (geteuid()) {
		print_message("  skipped: needs root for a loop device\n");
		skip();
	}
	snprintf(img, sizeof(img), "%s/loop.img", f->dir);
	assert_int_equal(run("truncate -s 8M '%s'", img), 0);
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s' 2>/dev/null", img);
	if (run_out(loop, sizeof(loop), cmd) || !loop[0]) {
		print_message("  skipped: losetup failed\n");
		skip();
	}
	snprintf(knob, sizeof(knob), "/sys/block/%s/queue/read_ahead_kb",
		 loop + 5);
	read_text(knob, orig, sizeof(orig));
	st = store_open(f);
	id = insert(st, SHORT_JOB("crashed"), 4);
	assert_int_equal(bb_store_job_start(st, id, 0, 0, err, sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(st, id, loop, "read_ahead_kb",
					       knob, orig, "4", NULL, &kid, err,
					       sizeof(err)),
			 0);
	write_text(knob, strcmp(orig, "4") ? "4\n" : "8\n");
	assert_int_equal(sched_start(&s, f, err, sizeof(err)), 0);
	read_text(knob, now, sizeof(now));
	bb_sched_stop(s);
	bb_store_close(st);
	run("losetup -d '%s'", loop);
	assert_string_equal(now, orig);
}


/* ---- boot jobs ----------------------------------------------------------- */

/* A stand-in for a reboot program: logs its arguments to PATH.log, exits
 * rc. */
static void fake_prog(const char *path, int rc)
{
	char text[512];

	snprintf(text, sizeof(text), "#!/bin/sh\necho \"$@\" >> '%s.log'\n"
		 "exit %d\n", path, rc);
	write_text(path, text);
	assert_int_equal(chmod(path, 0755), 0);
}

/* The boot directory of the boot tests: root's, in root's /run (the
 * fixture's /tmp is anyone's: no boot job may name a kernel there). */
static char g_boot[64];

/* The two kernel files (A: this kernel's release in its name) in g_boot,
 * stand-in kexec (which also logs, to PATH.kernel, what its -l file
 * holds: the file biobenchd checked, through /proc/self/fd) and
 * systemctl (exit 0) in the fixture's directory, and a configuration
 * allowing nop and reboots with them, boot_dirs g_boot; the store opened
 * in g_st.  Skipped unless root (the files must be root's). */
static void boot_fixture(const struct fx *f, struct bb_dconfig *cfg,
			 char kexec[192], char sysctl[192],
			 pthread_rwlock_t *lock)
{
	char path[256], text[512];
	struct utsname u;

	assert_non_null(cfg);
	if (geteuid()) {
		free(cfg);
		skip();
	}
	snprintf(g_boot, sizeof(g_boot), "/run/bb-test-sched-boot.XXXXXX");
	assert_non_null(mkdtemp(g_boot));
	assert_int_equal(uname(&u), 0);
	snprintf(path, sizeof(path), "%s/vmlinuz-%s", g_boot, u.release);
	write_text(path, "kernel A\n");
	snprintf(path, sizeof(path), "%s/vmlinuz-other", g_boot);
	write_text(path, "kernel B\n");
	snprintf(kexec, 192, "%s/kexec", f->dir);
	snprintf(sysctl, 192, "%s/systemctl", f->dir);
	snprintf(text, sizeof(text), "#!/bin/sh\necho \"$@\" >> '%s.log'\n"
		 "[ \"$1\" = -l ] && cat \"$2\" >> '%s.kernel'\nexit 0\n",
		 kexec, kexec);
	write_text(kexec, text);
	assert_int_equal(chmod(kexec, 0755), 0);
	fake_prog(sysctl, 0);
	bb_dconfig_default(cfg);
	cfg->nboot_dirs = 1;
	snprintf(cfg->boot_dirs[0], sizeof(cfg->boot_dirs[0]), "%s", g_boot);
	cfg->nallow = 1;
	snprintf(cfg->allow[0].pattern, sizeof(cfg->allow[0].pattern), "nop");
	cfg->allow_reboot = true;
	cfg->reboot_method = BB_REBOOT_KEXEC_SYSTEMD;
	cfg->boot_timeout_s = 10;
	snprintf(cfg->kexec_path, sizeof(cfg->kexec_path), "%s", kexec);
	snprintf(cfg->systemctl_path, sizeof(cfg->systemctl_path), "%s",
		 sysctl);
	g_st = store_open(f);
	assert_int_equal(pthread_rwlock_init(lock, NULL), 0);
}

static void boot_spec_w(const struct fx *f, const char *workload,
			unsigned repeat, const char *extra, char *buf,
			size_t len)
{
	struct utsname u;

	(void)f; /* (the kernels are in g_boot) */
	assert_int_equal(uname(&u), 0);
	/* A is the running kernel (its release in the file name), B not;
	 * boots A B A B ... (the order the tests follow) */
	snprintf(buf, len,
		 "{\"name\":\"kernel ab\",\"target\":\"nop\",\"workload\":"
		 "%s,\"repeat\":%u,"
		 "\"warmup\":0,\"order\":\"interleaved\",%s\"variants\":{"
		 "\"A\":{\"boot\":{\"kernel\":\"%s/vmlinuz-%s\"}},"
		 "\"B\":{\"boot\":{\"kernel\":\"%s/vmlinuz-other\","
		 "\"cmdline\":\"bbkernel=B\"}}}}",
		 workload, repeat, extra, g_boot, u.release, g_boot);
}

static void boot_spec(const struct fx *f, const char *extra, char *buf,
		      size_t len)
{
	boot_spec_w(f, "{\"number_ios\":500,\"iodepth\":4}", 2, extra, buf,
		    len);
}

static void wait_state(int64_t id, const char *want)
{
	double t0 = now_s();
	char buf[16];

	while (strcmp(state_of(g_st, id, buf), want)) {
		if (ended(buf) || now_s() - t0 > END_TIMEOUT_S) {
			char msg[1024];

			job_error(id, msg, sizeof(msg));
			fail_msg("job %lld is %s, not %s: %s", (long long)id,
				 buf, want, msg);
		}
		usleep(10000);
	}
}

/* What the stand-in kexec was given: "-l /proc/self/fd/N", the file
 * biobenchd opened and checked (it holds "kernel B"), and as --append
 * the host's command line without BOOT_IMAGE and with B's bbkernel=B
 * before any "--" (init's arguments). */
static void check_armed(const char *kexec)
{
	char path[256], msg[8192], *app = NULL, *dd;

	snprintf(path, sizeof(path), "%s.log", kexec);
	read_text(path, msg, sizeof(msg));
	if (strncmp(msg, "-l /proc/self/fd/", 17) ||
	    !(app = strstr(msg, " --append=")) || strstr(msg, "BOOT_IMAGE="))
		fail_msg("kexec got '%s'", msg);
	dd = strstr(app, " -- ");
	app = strstr(app, " bbkernel=B");
	if (!app && !strstr(msg, "--append=bbkernel=B"))
		fail_msg("no bbkernel=B: '%s'", msg);
	if (dd && app && app > dd)
		fail_msg("bbkernel=B after --: '%s'", msg);
	snprintf(path, sizeof(path), "%s.kernel", kexec);
	read_text(path, msg, sizeof(msg));
	assert_string_equal(msg, "kernel B");
	unlink(path);
}

static void boot_cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_boot);
	assert_int_equal(system(cmd), 0);
}

static void test_boot_job(void **state)
{
	struct fx *f = *state;
	struct bb_dconfig *cfg = calloc(1, sizeof(*cfg)), *cur = cfg;
	struct json_object *doc = NULL, *b;
	pthread_rwlock_t lock;
	struct bb_sched *s = NULL;
	char err[512] = "", buf[16], msg[1024], spec[2048], path[256];
	char kexec[192], sysctl[192];
	unsigned ndone;
	int64_t boot, other;
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	boot_fixture(f, cfg, kexec, sysctl, &lock);
	cfg->allow_reboot = false;

	/* allow_reboot = no: refused, nothing armed */
	boot_spec(f, "", spec, sizeof(spec));
	boot = insert(g_st, spec, 8);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);
	assert_string_equal(wait_end(boot, buf), BB_JOB_FAILED);
	job_error(boot, msg, sizeof(msg));
	assert_non_null(strstr(msg, "allow_reboot = no"));
	snprintf(path, sizeof(path), "%s.log", kexec);
	assert_int_equal(access(path, F_OK), -1);

	/* another job queued behind it: refused; the other one runs (both
	 * queued while no scheduler runs, so that the boot job cannot start
	 * alone in between) */
	bb_sched_stop(s);
	cfg->allow_reboot = true;
	boot = insert(g_st, spec, 8);
	other = insert(g_st, SHORT_JOB("behind a boot job"), 4);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);
	assert_string_equal(wait_end(boot, buf), BB_JOB_FAILED);
	job_error(boot, msg, sizeof(msg));
	if (!strstr(msg, "1 other job(s) are queued"))
		fail_msg("boot job with another queued: '%s'", msg);
	assert_string_equal(wait_end(other, buf), BB_JOB_DONE);

	/* alone: boot 1 (A, this kernel) runs here, then B is armed and the
	 * host "rebooted" */
	boot = insert(g_st, spec, 8);
	bb_sched_kick(s);
	wait_state(boot, BB_JOB_REBOOTING);
	assert_int_equal(runs_of(g_st, boot, &ndone), 2);
	assert_int_equal(ndone, 2);
	check_armed(kexec);
	/* systemctl runs right after the state is stored */
	snprintf(path, sizeof(path), "%s.log", sysctl);
	for (double t0 = now_s(); access(path, F_OK) && now_s() - t0 < 10;)
		usleep(10000);
	read_text(path, msg, sizeof(msg));
	assert_string_equal(msg, "kexec");
	assert_int_equal(bb_store_job_get(g_st, boot, &doc, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "boot", &b) && b);
	assert_string_equal(json_object_get_string(json_object_object_get(b, "text")),
			    "rebooting into B (boot 2 of 4)");
	json_object_put(doc);
	/* systemd stops the daemon: the job stays rebooting */
	bb_sched_stop(s);
	s = NULL;
	assert_string_equal(state_of(g_st, boot, buf), BB_JOB_REBOOTING);

	/* the next start is the same boot: no reboot happened -> failed,
	 * its runs kept; B's kernel, still loaded, is unloaded once the
	 * configuration is known: the next reboot is the host's default */
	snprintf(path, sizeof(path), "%s.log", kexec);
	unlink(path);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	assert_string_equal(state_of(g_st, boot, buf), BB_JOB_FAILED);
	job_error(boot, msg, sizeof(msg));
	if (!strstr(msg, "did not reboot into B (boot 2 of 4)"))
		fail_msg("same boot: '%s'", msg);
	assert_int_equal(runs_of(g_st, boot, &ndone), 2);
	assert_int_equal(access(path, F_OK), -1);
	bb_sched_set_config(s, &lock, &cur);
	for (double t0 = now_s(); access(path, F_OK) && now_s() - t0 < 10;)
		usleep(10000);
	read_text(path, msg, sizeof(msg));
	assert_string_equal(msg, "-u");

	/* a reboot command that fails: the job fails, the kernel unloaded */
	fake_prog(sysctl, 3);
	boot_spec(f, "", spec, sizeof(spec));
	boot = insert(g_st, spec, 8);
	bb_sched_kick(s);
	assert_string_equal(wait_end(boot, buf), BB_JOB_FAILED);
	job_error(boot, msg, sizeof(msg));
	if (!strstr(msg, "cannot reboot into B") || !strstr(msg, "exit 3"))
		fail_msg("failing systemctl: '%s'", msg);
	snprintf(path, sizeof(path), "%s.log", kexec);
	{
		FILE *fp = fopen(path, "r");
		size_t n;

		assert_non_null(fp);
		n = fread(msg, 1, sizeof(msg) - 1, fp);
		msg[n] = '\0';
		fclose(fp);
	}
	if (!strstr(msg, "\n-u\n"))
		fail_msg("kexec calls: '%s'", msg);

	/* grub-reboot: the one-shot entry set, then cleared when the
	 * reboot fails, so that the next reboot boots the default entry.
	 * With grub's own tools installed (grub2-common) they run for real
	 * on a grubenv of the test's own: the wrappers only add its
	 * location, and log what they did and the environment after it */
	{
		char grub[192], editenv[192], text[1024];
		bool real = !access("/usr/sbin/grub-reboot", X_OK) &&
			    !access("/usr/bin/grub-editenv", X_OK);

		snprintf(grub, sizeof(grub), "%s/grub-reboot", f->dir);
		snprintf(editenv, sizeof(editenv), "%s/grub-editenv", f->dir);
		fake_prog(grub, 0);
		fake_prog(editenv, 0);
		if (real) {
			snprintf(path, sizeof(path), "%s/grub", f->dir);
			assert_int_equal(mkdir(path, 0755), 0);
			snprintf(text, sizeof(text),
				 "#!/bin/sh\n/usr/bin/grub-editenv %s/grub/grubenv "
				 "create\n/usr/sbin/grub-reboot --boot-directory=%s "
				 "\"$@\" >/dev/null 2>&1 || exit 1\necho \"$@\" >> "
				 "'%s.log'\n/usr/bin/grub-editenv %s/grub/grubenv "
				 "list >> '%s.log'\n",
				 f->dir, f->dir, grub, f->dir, grub);
			write_text(grub, text);
			/* "-" is grub-editenv's default file: here the test's */
			snprintf(text, sizeof(text),
				 "#!/bin/sh\n[ \"$1\" = - ] || exit 2\nshift\n"
				 "/usr/bin/grub-editenv %s/grub/grubenv \"$@\" || "
				 "exit 1\necho \"- $*\" >> '%s.log'\n"
				 "/usr/bin/grub-editenv %s/grub/grubenv list >> "
				 "'%s.log'\n",
				 f->dir, editenv, f->dir, editenv);
			write_text(editenv, text);
		}
		pthread_rwlock_wrlock(&lock);
		cfg->reboot_method = BB_REBOOT_GRUB_REBOOT;
		snprintf(cfg->grub_reboot_path, sizeof(cfg->grub_reboot_path),
			 "%s", grub);
		snprintf(cfg->grub_editenv_path,
			 sizeof(cfg->grub_editenv_path), "%s", editenv);
		pthread_rwlock_unlock(&lock);
		snprintf(spec, sizeof(spec),
			 "{\"name\":\"grub ab\",\"target\":\"nop\","
			 "\"workload\":{\"number_ios\":500},\"repeat\":2,"
			 "\"warmup\":0,\"variants\":{\"A\":{\"boot\":{"
			 "\"kernel\":\"%s/vmlinuz-%s\",\"grub_entry\":\"ea\"}},"
			 "\"B\":{\"boot\":{\"kernel\":\"%s/vmlinuz-other\","
			 "\"cmdline\":\"bbkernel=B\",\"grub_entry\":\"eb\"}}}}",
			 g_boot, u.release, g_boot);
		boot = insert(g_st, spec, 4);
		bb_sched_kick(s);
		assert_string_equal(wait_end(boot, buf), BB_JOB_FAILED);
		snprintf(path, sizeof(path), "%s.log", grub);
		read_all(path, msg, sizeof(msg));
		assert_string_equal(msg, real ? "eb\nnext_entry=eb\n" : "eb\n");
		snprintf(path, sizeof(path), "%s.log", editenv);
		read_all(path, msg, sizeof(msg));
		/* (real: the environment is empty again) */
		assert_string_equal(msg, "- unset next_entry\n");
	}
	boot_cleanup();
	bb_sched_stop(s);
	bb_store_close(g_st);
	pthread_rwlock_destroy(&lock);
	free(cfg);
}

/* Runs of job id: all, done ones that count, discarded ones; the reason
 * of the last discarded run in why. */
static unsigned boot_runs(int64_t id, unsigned *counted, unsigned *discarded,
			  char *why, size_t len)
{
	struct json_object *o = NULL, *runs, *r, *v;
	char err[256];
	unsigned n;

	assert_int_equal(bb_store_job_runs(g_st, id, false, &o, err,
					   sizeof(err)), 0);
	assert_true(json_object_object_get_ex(o, "runs", &runs));
	n = (unsigned)json_object_array_length(runs);
	*counted = *discarded = 0;
	for (unsigned i = 0; i < n; i++) {
		r = json_object_array_get_idx(runs, i);
		if (json_object_object_get_ex(r, "discarded", &v) && v) {
			(*discarded)++;
			snprintf(why, len, "%s", json_object_get_string(v));
		} else if (json_object_object_get_ex(r, "state", &v) &&
			   !strcmp(json_object_get_string(v), "done")) {
			(*counted)++;
		}
	}
	json_object_put(o);
	return n;
}

/* Start the scheduler, wait for the first run of boot 1 to finish, stop
 * the daemon in the middle of the boot: the job stays running. */
static void boot_interrupt(int64_t id, struct bb_sched **s, const char *db,
			   pthread_rwlock_t *lock, struct bb_dconfig **cur,
			   unsigned counted_before)
{
	char err[512] = "", buf[16], why[1024];
	unsigned counted, discarded;
	double t0;

	assert_int_equal(bb_sched_start(s, db, err, sizeof(err)), 0);
	bb_sched_set_config(*s, lock, cur);
	t0 = now_s();
	do {
		if (ended(state_of(g_st, id, buf)) || now_s() - t0 > 30) {
			job_error(id, why, sizeof(why));
			fail_msg("job %lld %s before its first run: %s",
				 (long long)id, buf, why);
		}
		usleep(5000);
		boot_runs(id, &counted, &discarded, why, sizeof(why));
	} while (counted <= counted_before);
	bb_sched_stop(*s);
	*s = NULL;
	assert_string_equal(state_of(g_st, id, buf), BB_JOB_RUNNING);
}

/* A boot job whose daemon stops in the middle of a boot's runs: the next
 * start redoes that boot from its first run (its first attempt's runs
 * kept, discarded), and the job goes on to the next boot; a job
 * interrupted more than BB_BOOT_REDO_MAX times fails, its runs kept. */
static void test_boot_redo(void **state)
{
	struct fx *f = *state;
	struct bb_dconfig *cfg = calloc(1, sizeof(*cfg)), *cur = cfg;
	pthread_rwlock_t lock;
	struct bb_sched *s = NULL;
	char err[512] = "", buf[16], msg[1024], spec[2048];
	char kexec[192], sysctl[192], why[1024] = "";
	unsigned counted, discarded, n;
	int64_t id;
	struct utsname u;

	assert_int_equal(uname(&u), 0);
	boot_fixture(f, cfg, kexec, sysctl, &lock);
	boot_spec_w(f, "{\"runtime\":\"150ms\",\"iodepth\":4}", 3, "", spec,
		    sizeof(spec));

	/* interrupted once during boot 1: redone here (A is this kernel),
	 * then B armed */
	id = insert(g_st, spec, 12);
	boot_interrupt(id, &s, f->db, &lock, &cur, 0);
	n = boot_runs(id, &counted, &discarded, why, sizeof(why));
	assert_int_equal(discarded, 0);
	assert_true(counted >= 1 && counted < 3);
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);
	wait_state(id, BB_JOB_REBOOTING);
	assert_int_equal(boot_runs(id, &counted, &discarded, why, sizeof(why)),
			 n + 3);
	assert_int_equal(discarded, n);
	assert_int_equal(counted, 3);
	if (!strstr(why, "boot 1 of 4 (A) was interrupted: redone from its "
			 "first run on this boot"))
		fail_msg("discarded because '%s'", why);
	check_armed(kexec);
	bb_sched_stop(s);
	s = NULL;
	/* (no real reboot: the next start fails it, as test_boot_job shows) */
	assert_int_equal(bb_store_job_finish(g_st, id, BB_JOB_CANCELLED, NULL,
					     NULL, "test over", err,
					     sizeof(err)), 0);

	/* interrupted three times: redone twice, then failed */
	boot_spec_w(f, "{\"runtime\":\"150ms\",\"iodepth\":4}", 3, "", spec,
		    sizeof(spec));
	id = insert(g_st, spec, 12);
	/* (each start discards the attempt before it: it counts from 0) */
	for (unsigned k = 0; k <= BB_BOOT_REDO_MAX; k++)
		boot_interrupt(id, &s, f->db, &lock, &cur, 0);
	n = boot_runs(id, &counted, &discarded, why, sizeof(why));
	assert_int_equal(bb_sched_start(&s, f->db, err, sizeof(err)), 0);
	assert_string_equal(state_of(g_st, id, buf), BB_JOB_FAILED);
	job_error(id, msg, sizeof(msg));
	if (!strstr(msg, "has redone 2 interrupted boots already"))
		fail_msg("redo limit: '%s'", msg);
	/* every run kept */
	assert_int_equal(boot_runs(id, &counted, &discarded, why, sizeof(why)),
			 n);
	bb_sched_stop(s);
	bb_store_close(g_st);
	boot_cleanup();
	pthread_rwlock_destroy(&lock);
	free(cfg);
}

/* ---- parallel jobs (max_parallel_jobs) ----------------------------------- */

#define PAR_JOB(n, cpus, runtime, repeat)                                 \
	"{\"name\":\"" n "\",\"target\":\"nop\",\"workload\":"              \
	"{\"runtime\":\"" runtime "\",\"iodepth\":4,\"cpus\":" cpus "},"    \
	"\"variants\":{\"A\":{},\"B\":{}},\"repeat\":" repeat ","           \
	"\"warmup\":0}"

/* A stored time ("2026-12-02T16:04:40.123Z") in ms since the epoch. */
static int64_t time_ms(const char *iso)
{
	struct tm tm = { 0 };
	const char *rest = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm);
	int ms = 0;

	if (!rest || sscanf(rest, ".%3dZ", &ms) != 1)
		fail_msg("not a stored time: '%s'", iso);
	return (int64_t)timegm(&tm) * 1000 + ms;
}

struct span {
	int64_t start, end;
};

static struct span span_of(int64_t id)
{
	char buf[64];
	struct span sp;

	sp.start = time_ms(job_text(g_st, id, "started", buf, sizeof(buf)));
	sp.end = time_ms(job_text(g_st, id, "finished", buf, sizeof(buf)));
	assert_true(sp.start <= sp.end);
	return sp;
}

static bool overlap(struct span a, struct span b)
{
	return a.start < b.end && b.start < a.end;
}

/* Until the scheduler runs n jobs (fails after END_TIMEOUT_S); their ids
 * in ids. */
static void wait_running(struct bb_sched *s, size_t n, int64_t *ids)
{
	double t0 = now_s();

	while (bb_sched_running_all(s, ids, 4) != n) {
		if (now_s() - t0 > END_TIMEOUT_S)
			fail_msg("%zu jobs never ran at once", n);
		usleep(2000);
	}
}

/* The ids of host name's running_jobs in GET /hosts, ascending. */
static size_t host_running(struct bb_store *st, const char *name,
			   int64_t *ids, size_t max)
{
	struct json_object *doc = NULL, *hosts, *h, *list;
	char err[256];
	size_t n = 0;

	assert_int_equal(bb_store_hosts_list(st, &doc, err, sizeof(err)), 0);
	assert_true(json_object_object_get_ex(doc, "hosts", &hosts));
	for (size_t i = 0; i < json_object_array_length(hosts); i++) {
		h = json_object_array_get_idx(hosts, i);
		if (strcmp(json_object_get_string(
				   json_object_object_get(h, "name")), name) ||
		    !json_object_object_get_ex(h, "running_jobs", &list))
			continue;
		for (size_t k = 0; k < json_object_array_length(list) &&
				   n < max; k++)
			ids[n++] = json_object_get_int64(
				json_object_array_get_idx(list, k));
	}
	json_object_put(doc);
	return n;
}

/* max_parallel_jobs 2 on the fleet's claims: two nop jobs on CPUs 0 and
 * 1 run at the same time (their stored start and end overlap, both are
 * in the host's running_jobs meanwhile); two on CPU 0 one after the
 * other; a job that conflicts with none running but with an older queued
 * one does not overtake it; a cancel stops one of two running jobs, and
 * a stop interrupts the other; a stop with two running interrupts both,
 * and so does the next start after a daemon died with two running. */
static void test_parallel(void **state)
{
	struct fx *f = *state;
	struct bb_dconfig *cfg = calloc(1, sizeof(*cfg)), *cur = cfg;
	struct bb_sched_fleet fl = {
		.host_name = "par-a", .lease_s = 5, .version = "test",
	};
	pthread_rwlock_t lock;
	struct bb_sched *s = NULL;
	char err[512] = "", buf[64];
	int64_t a, b, c, d, e, fj, g, h, i, ids[4], hr[4];
	struct span sa, sb, sc, sd, se, sf, sg;
	double t0;

	assert_non_null(cfg);
	g_st = store_open(f);
	assert_int_equal(pthread_rwlock_init(&lock, NULL), 0);
	bb_dconfig_default(cfg);
	assert_int_equal(cfg->max_parallel_jobs, 1);
	cfg->max_parallel_jobs = 2;
	cfg->nallow = 1;
	snprintf(cfg->allow[0].pattern, sizeof(cfg->allow[0].pattern), "nop");
	assert_int_equal(bb_sched_start_fleet(&s, f->db, &fl, err,
					      sizeof(err)), 0);

	/* disjoint CPUs: at the same time */
	a = insert(g_st, PAR_JOB("cpu0", "[0]", "500ms", "2"), 4);
	b = insert(g_st, PAR_JOB("cpu1", "[1]", "500ms", "2"), 4);
	bb_sched_set_config(s, &lock, &cur);
	wait_running(s, 2, ids);
	assert_int_equal(ids[0], a);
	assert_int_equal(ids[1], b);
	/* the registry shows both (the claims of this daemon, once the
	 * runners marked them running) */
	t0 = now_s();
	while (host_running(g_st, "par-a", hr, 4) != 2) {
		if (now_s() - t0 > END_TIMEOUT_S)
			fail_msg("the registry never showed both jobs");
		usleep(2000);
	}
	assert_int_equal(hr[0], a);
	assert_int_equal(hr[1], b);
	assert_string_equal(wait_end(a, buf), BB_JOB_DONE);
	assert_string_equal(wait_end(b, buf), BB_JOB_DONE);
	sa = span_of(a);
	sb = span_of(b);
	if (!overlap(sa, sb))
		fail_msg("disjoint jobs ran one after the other: %lld..%lld, "
			 "%lld..%lld", (long long)sa.start, (long long)sa.end,
			 (long long)sb.start, (long long)sb.end);

	/* the same CPU: one after the other */
	c = insert(g_st, PAR_JOB("cpu0 again", "[0]", "300ms", "2"), 4);
	d = insert(g_st, PAR_JOB("cpu0 too", "[0]", "300ms", "2"), 4);
	bb_sched_kick(s);
	assert_string_equal(wait_end(c, buf), BB_JOB_DONE);
	assert_string_equal(wait_end(d, buf), BB_JOB_DONE);
	sc = span_of(c);
	sd = span_of(d);
	assert_false(overlap(sc, sd));
	assert_true(sd.start >= sc.end);

	/* no overtaking: g (CPU 1) is free to run next to e (CPU 0), but
	 * the older f (both CPUs) waits for e, and g for f */
	e = insert(g_st, PAR_JOB("e", "[0]", "300ms", "2"), 4);
	fj = insert(g_st, PAR_JOB("f", "[0,1]", "200ms", "2"), 4);
	g = insert(g_st, PAR_JOB("g", "[1]", "200ms", "2"), 4);
	bb_sched_kick(s);
	assert_string_equal(wait_end(g, buf), BB_JOB_DONE);
	assert_string_equal(state_of(g_st, e, buf), BB_JOB_DONE);
	assert_string_equal(state_of(g_st, fj, buf), BB_JOB_DONE);
	se = span_of(e);
	sf = span_of(fj);
	sg = span_of(g);
	assert_true(sf.start >= se.end);
	assert_true(sg.start >= sf.end);

	/* a cancel stops one of two running jobs, a stop the other */
	h = insert(g_st, PAR_JOB("long 0", "[0]", "5s", "10"), 20);
	i = insert(g_st, PAR_JOB("long 1", "[1]", "5s", "10"), 20);
	bb_sched_kick(s);
	wait_running(s, 2, ids);
	assert_int_equal(bb_sched_cancel(s, g_st, h, err, sizeof(err)), 0);
	t0 = now_s();
	assert_string_equal(wait_end(h, buf), BB_JOB_CANCELLED);
	assert_true(now_s() - t0 < CANCEL_BOUND_S * 3);
	assert_string_equal(state_of(g_st, i, buf), BB_JOB_RUNNING);
	assert_int_equal(bb_sched_running(s), i);
	bb_sched_stop(s);
	assert_string_equal(state_of(g_st, i, buf), BB_JOB_INTERRUPTED);

	/* a stop with two running interrupts both */
	h = insert(g_st, PAR_JOB("long 0 again", "[0]", "5s", "10"), 20);
	i = insert(g_st, PAR_JOB("long 1 again", "[1]", "5s", "10"), 20);
	assert_int_equal(bb_sched_start_fleet(&s, f->db, &fl, err,
					      sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);
	wait_running(s, 2, ids);
	bb_sched_stop(s);
	assert_string_equal(state_of(g_st, h, buf), BB_JOB_INTERRUPTED);
	assert_string_equal(state_of(g_st, i, buf), BB_JOB_INTERRUPTED);

	/* the daemon died with two running: the next start interrupts both */
	{
		struct bb_store *dead = store_open(f);
		char *spec = NULL;
		int64_t got;

		assert_int_equal(bb_store_set_daemon(dead, "par-a", 5, err,
						     sizeof(err)), 0);
		h = insert(g_st, PAR_JOB("left 0", "[0]", "5s", "10"), 20);
		i = insert(g_st, PAR_JOB("left 1", "[1]", "5s", "10"), 20);
		for (int k = 0; k < 2; k++) {
			assert_int_equal(bb_store_job_claim(dead, &got, &spec,
							    err, sizeof(err)),
					 0);
			free(spec);
			assert_int_equal(bb_store_job_start(dead, got, 0, 0,
							    err, sizeof(err)),
					 0);
		}
		bb_store_close(dead);
	}
	assert_string_equal(state_of(g_st, h, buf), BB_JOB_RUNNING);
	assert_string_equal(state_of(g_st, i, buf), BB_JOB_RUNNING);
	assert_int_equal(bb_sched_start_fleet(&s, f->db, &fl, err,
					      sizeof(err)), 0);
	assert_string_equal(state_of(g_st, h, buf), BB_JOB_INTERRUPTED);
	assert_string_equal(state_of(g_st, i, buf), BB_JOB_INTERRUPTED);
	bb_sched_stop(s);
	bb_store_close(g_st);
	pthread_rwlock_destroy(&lock);
	free(cfg);
}

/* Two parallel jobs, each on its own loop device (images in tmpfs: no
 * disk in common) and CPU, each setting its device's read_ahead_kb: both
 * knobs set at the same time, and a stop restores both (every runner's
 * knobs) and interrupts both jobs.  Root only. */
static void test_parallel_knobs(void **state)
{
	struct fx *f = *state;
	struct bb_dconfig *cfg = calloc(1, sizeof(*cfg)), *cur = cfg;
	pthread_rwlock_t lock;
	struct bb_sched *s = NULL;
	char err[512] = "", buf[64], img[2][128], loop[2][64] = { "", "" },
	     knob[2][256], orig[2][32], now[32], cmd[256], spec[1024];
	int64_t id[2], ids[4];
	bool both = false;
	double t0;

	assert_non_null(cfg);
	if (geteuid()) {
		print_message("  skipped: needs root for loop devices\n");
		skip();
	}
	for (int k = 0; k < 2; k++) {
		snprintf(img[k], sizeof(img[k]), "/dev/shm/bb-test-par.%d.%d",
			 (int)getpid(), k);
		assert_int_equal(run("truncate -s 16M '%s'", img[k]), 0);
		snprintf(cmd, sizeof(cmd), "losetup -f --show '%s' 2>/dev/null",
			 img[k]);
		if (run_out(loop[k], sizeof(loop[k]), cmd) || !loop[k][0]) {
			print_message("  skipped: losetup failed\n");
			unlink(img[k]);
			if (k)
				run("losetup -d '%s'", loop[0]);
			if (k)
				unlink(img[0]);
			skip();
		}
		snprintf(knob[k], sizeof(knob[k]),
			 "/sys/block/%s/queue/read_ahead_kb", loop[k] + 5);
		read_text(knob[k], orig[k], sizeof(orig[k]));
	}
	g_st = store_open(f);
	assert_int_equal(pthread_rwlock_init(&lock, NULL), 0);
	bb_dconfig_default(cfg);
	cfg->max_parallel_jobs = 2;
	cfg->nallow = 1;
	snprintf(cfg->allow[0].pattern, sizeof(cfg->allow[0].pattern),
		 "/dev/loop*");
	cfg->nknob_rules = 1;
	snprintf(cfg->knob_rules[0].pattern, sizeof(cfg->knob_rules[0].pattern),
		 "/dev/loop*");
	cfg->knob_rules[0].n = 1;
	snprintf(cfg->knob_rules[0].knob[0], sizeof(cfg->knob_rules[0].knob[0]),
		 "read_ahead_kb");
	for (int k = 0; k < 2; k++) {
		/* both variants move the knob off its original */
		unsigned a = strcmp(orig[k], "12") ? 12 : 20;

		snprintf(spec, sizeof(spec),
			 "{\"name\":\"knobs %d\",\"target\":\"%s\",\"workload\":"
			 "{\"runtime\":\"5s\",\"iodepth\":4,\"cpus\":[%d]},"
			 "\"variants\":{\"A\":{\"sysfs.read_ahead_kb\":%u},"
			 "\"B\":{\"sysfs.read_ahead_kb\":%u}},\"repeat\":10,"
			 "\"warmup\":0}", k, loop[k], k, a, a + 4);
		id[k] = insert(g_st, spec, 20);
	}
	assert_int_equal(sched_start(&s, f, err, sizeof(err)), 0);
	bb_sched_set_config(s, &lock, &cur);
	wait_running(s, 2, ids);
	t0 = now_s();
	while (!both && now_s() - t0 < END_TIMEOUT_S) {
		char n0[32], n1[32];

		read_text(knob[0], n0, sizeof(n0));
		read_text(knob[1], n1, sizeof(n1));
		both = strcmp(n0, orig[0]) && strcmp(n1, orig[1]);
		usleep(5000);
	}
	bb_sched_stop(s);
	for (int k = 0; k < 2; k++) {
		read_text(knob[k], now, sizeof(now));
		run("losetup -d '%s'", loop[k]);
		unlink(img[k]);
		assert_string_equal(now, orig[k]);
		assert_string_equal(state_of(g_st, id[k], buf),
				    BB_JOB_INTERRUPTED);
	}
	assert_true(both);
	bb_store_close(g_st);
	pthread_rwlock_destroy(&lock);
	free(cfg);
}

static int have_io_uring(void)
{
	struct io_uring ring;

	if (io_uring_queue_init(4, &ring, 0))
		return -1;
	io_uring_queue_exit(&ring);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_concurrent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_stop_interrupts, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_noise_floor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fleet_daemon, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fleet_lost_job_stops,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_allow_recheck, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_one_canonicaliser, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_recovery, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recovery_sysfs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_boot_job, setup, teardown),
		cmocka_unit_test_setup_teardown(test_boot_redo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parallel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parallel_knobs, setup,
						teardown),
	};

	if (have_io_uring()) {
		fprintf(stderr, "test_scheduler: io_uring is not available\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
