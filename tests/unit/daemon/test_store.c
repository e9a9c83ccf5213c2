// SPDX-License-Identifier: GPL-2.0-only
/* test_store.c - the store against real database files in a temporary
 * directory, or against the PostgreSQL database BB_TEST_STORE names
 * (ctest test_store_pg starts one with tests/pg/pgtmp.sh; the cases of
 * sqlite's own behaviour skip there, the pg_ ones skip on sqlite):
 * migrations and versions, WAL, the job life cycle
 * and its events, runs with samples and histograms (checked with raw SQL
 * on a second connection), pagination, the knob journal, metadata dedup,
 * metrics, foreign keys, and a full disk (tmpfs of 1 MiB; skipped when
 * mounting is not allowed).  On PostgreSQL the handle's knob journal is
 * a local sqlite file (as a daemon's: bb_store_open_journal); the
 * knob_local_ cases check that journal and its copy on both. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <regex.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bb_migrations.h"
#include "bb_migrations_pg.h"
#include "pgstore.h"
#include "store/db.h"
#include "store.h"
#include <biobench/boot.h>

#define NEWEST ((int)bb_array_size(bb_migrations))
#define SPEC "{\"rw\":\"randread\",\"bs\":4096}"

/* The store is a sqlite file in dir, or the PostgreSQL database
 * BB_TEST_STORE names (tests/pg/pgtmp.sh), emptied before each test. */
struct ctx {
	char dir[64];
	char path[512];
	char knobs[128];    /* a local knob journal's file (PostgreSQL) */
	struct bb_store *s;
	bool mounted;
	bool pg;
};

/* ---- helpers -------------------------------------------------------- */

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));
	char err[256] = "", file[128];

	assert_non_null(c);
	snprintf(c->dir, sizeof(c->dir), "/tmp/bb_store_XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(file, sizeof(file), "%s/bb.db", c->dir);
	c->pg = bb_test_store(c->path, sizeof(c->path), file);
	snprintf(c->knobs, sizeof(c->knobs), "%s/knobs.db", c->dir);
	/* a PostgreSQL store's knob journal is a local file, as a daemon's */
	if (bb_store_open_journal(&c->s, c->path, c->pg ? c->knobs : NULL,
				  err, sizeof(err))) {
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
	if (c->mounted)
		umount2(c->dir, MNT_DETACH);
	bb_test_rm_tree(c->dir);
	free(c);
	return 0;
}

/* A second connection to the store's database, for checks in raw SQL:
 * sqlite (sq) or PostgreSQL (pg).  The SQL is sqlite's; for PostgreSQL
 * ?1 becomes $1 and group_concat string_agg. */
struct raw {
	sqlite3 *sq;
	PGconn *pg;
	PGresult *res;
};

static struct raw *raw_open(const char *path)
{
	struct raw *db = calloc(1, sizeof(*db));

	assert_non_null(db);
	if (bb_store_is_pg(path)) {
		db->pg = PQconnectdb(path);
		assert_int_equal(PQstatus(db->pg), CONNECTION_OK);
		return db;
	}
	assert_int_equal(sqlite3_open(path, &db->sq), SQLITE_OK);
	sqlite3_busy_timeout(db->sq, 5000);
	return db;
}

static void raw_close(struct raw *db)
{
	if (!db)
		return;
	PQclear(db->res);
	PQfinish(db->pg);
	sqlite3_close(db->sq);
	free(db);
}

/* PostgreSQL: run sql (sqlite's) with ?1 = a; the first value's text
 * (NULL for NULL). */
static const char *raw_pg(struct raw *db, const char *sql, int64_t a)
{
	char q[1024], arg[32], *o = q;
	const char *vals[1] = { arg };
	bool param = false;

	for (const char *p = sql; *p && o < q + sizeof(q) - 16;) {
		if (*p == '?') {
			o += sprintf(o, "$1");
			param = true;
			for (p++; *p >= '0' && *p <= '9'; p++)
				;
		} else if (!strncmp(p, "group_concat(", 13)) {
			o += sprintf(o, "string_agg(");
			p += 13;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	snprintf(arg, sizeof(arg), "%lld", (long long)a);
	PQclear(db->res);
	db->res = PQexecParams(db->pg, q, param ? 1 : 0, NULL, vals, NULL, NULL,
			       0);
	if (PQresultStatus(db->res) != PGRES_TUPLES_OK)
		fail_msg("%s: %s", q, PQresultErrorMessage(db->res));
	assert_true(PQntuples(db->res) >= 1);
	return PQgetisnull(db->res, 0, 0) ? NULL : PQgetvalue(db->res, 0, 0);
}

/* sqlite: the statement of sql with ?1 = a, at its first row. */
static sqlite3_stmt *raw_sq(struct raw *db, const char *sql, int64_t a)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(db->sq, sql, -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_bind_parameter_count(st))
		sqlite3_bind_int64(st, 1, a);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	return st;
}

/* The first column of the first row of sql (? = a), as int64. */
static int64_t raw_int(struct raw *db, const char *sql, int64_t a)
{
	sqlite3_stmt *st;
	int64_t v;

	if (db->pg) {
		const char *t = raw_pg(db, sql, a);

		if (t && (!strcmp(t, "t") || !strcmp(t, "f")))
			return *t == 't';
		return t ? strtoll(t, NULL, 10) : 0;
	}
	st = raw_sq(db, sql, a);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static double raw_double(struct raw *db, const char *sql, int64_t a)
{
	sqlite3_stmt *st;
	double v;

	if (db->pg) {
		const char *t = raw_pg(db, sql, a);

		return t ? strtod(t, NULL) : 0.0;
	}
	st = raw_sq(db, sql, a);
	v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Text of the first column (static buffer, "<null>" for NULL). */
static const char *raw_text(struct raw *db, const char *sql, int64_t a)
{
	static char buf[1024];
	sqlite3_stmt *st;
	const char *t;

	if (db->pg) {
		t = raw_pg(db, sql, a);
		snprintf(buf, sizeof(buf), "%s", t ? t : "<null>");
		return buf;
	}
	st = raw_sq(db, sql, a);
	t = (const char *)sqlite3_column_text(st, 0);
	snprintf(buf, sizeof(buf), "%s", t ? t : "<null>");
	sqlite3_finalize(st);
	return buf;
}

/* A test of sqlite's own behaviour (a file, PRAGMA, raw sqlite3 calls):
 * skipped on PostgreSQL. */
#define SQLITE_ONLY(c) do { if ((c)->pg) skip(); } while (0)

static struct json_object *jget(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static bool is_iso_ms(struct json_object *v)
{
	regex_t re;
	bool ok;

	if (!json_object_is_type(v, json_type_string))
		return false;
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:"
				 "[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
				 REG_EXTENDED | REG_NOSUB), 0);
	ok = !regexec(&re, json_object_get_string(v), 0, NULL, 0);
	regfree(&re);
	return ok;
}

static int64_t new_job(struct bb_store *s, const char *target)
{
	char err[256] = "";
	int64_t id = 0;

	assert_int_equal(bb_store_job_insert(s, "job", target, SPEC, 2, &id,
					     err, sizeof(err)), 0);
	assert_true(id > 0);
	return id;
}

static void expect_state(struct bb_store *s, int64_t id, const char *want)
{
	char st[16] = "", err[256] = "";

	assert_int_equal(bb_store_job_state(s, id, st, err, sizeof(err)), 0);
	assert_string_equal(st, want);
}

/* A run result: 3 samples, 100 latencies in 3 buckets, 3 s. */
static struct bb_result *make_result(void)
{
	struct bb_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	bb_hist_init(&r->lat);
	for (int i = 0; i < 50; i++)
		bb_hist_add(&r->lat, 1000);
	for (int i = 0; i < 40; i++)
		bb_hist_add(&r->lat, 2000);
	for (int i = 0; i < 10; i++)
		bb_hist_add(&r->lat, 100000);
	r->start_unix_ms = 1764477190123ull; /* 2025-11-30T04:33:10.123Z */
	r->duration_ns = 3000000000ull;
	r->io.ios = 300000;
	r->io.reads = 300000;
	r->io.bytes_read = 300000ull * 4096;
	r->cpu_submit.usr_ns = 1000000000ull;
	r->cpu_submit.sys_ns = 400000000ull;
	r->cpu_completion.sys_ns = 100000000ull;
	r->nsamples = 3;
	r->samples = calloc(3, sizeof(*r->samples));
	assert_non_null(r->samples);
	for (unsigned i = 0; i < 3; i++) {
		r->samples[i].t_ms = 1000 * (i + 1);
		r->samples[i].ios = 100000;
		r->samples[i].bytes = 100000ull * 4096;
	}
	return r;
}

static void free_result(struct bb_result *r)
{
	bb_result_free(r);
	free(r);
}

static int insert_run(struct bb_store *s, int64_t job, unsigned seq,
		      const char *variant, bool warmup, const char *state,
		      const char *result, const struct bb_result *r,
		      int64_t device_id, int64_t *id)
{
	struct bb_store_run run = {
		.job_id = job, .variant = variant, .seq = seq, .round = seq / 2,
		.warmup = warmup, .state = state, .metric = 1.0,
		.device_id = device_id, .result = result, .r = r,
	};
	char err[256] = "";
	int64_t rid = 0;
	int ret = bb_store_run_insert(s, &run, &rid, err, sizeof(err));

	if (ret)
		assert_true(err[0]);
	if (id)
		*id = rid;
	return ret;
}

/* ---- open, migrate, versions ---------------------------------------- */

static void open_creates_schema(void **state)
{
	struct ctx *c = *state;
	struct raw *db;
	const char *tables[] = { "hosts", "devices", "jobs", "runs", "samples",
				 "lat_hist", "knob_journal", "events" };

	SQLITE_ONLY(c);
	db = raw_open(c->path);
	assert_int_equal(bb_store_schema_version(c->s), NEWEST);
	assert_true(NEWEST >= 1);
	assert_int_equal(raw_int(db, "PRAGMA user_version", 0), NEWEST);
	for (size_t i = 0; i < bb_array_size(tables); i++) {
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_prepare_v2(db->sq,
			"SELECT count(*) FROM sqlite_master WHERE type = 'table'"
			" AND name = ?1", -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_text(st, 1, tables[i], -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), 1);
		sqlite3_finalize(st);
	}
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master "
				 "WHERE type = 'index' AND name = "
				 "'jobs_state_id'", 0), 1);
	raw_close(db);
}

/* WAL is on: seen from a second connection. */
static void wal_mode_is_on(void **state)
{
	struct ctx *c = *state;
	struct raw *db;

	SQLITE_ONLY(c);
	db = raw_open(c->path);
	assert_string_equal(raw_text(db, "PRAGMA journal_mode", 0), "wal");
	raw_close(db);
}

static void reopen_keeps_data_and_version(void **state)
{
	struct ctx *c = *state;
	char err[256] = "", *spec = NULL;
	int64_t id = new_job(c->s, "nop"), nid = 0;
	struct bb_store *s2 = NULL;

	bb_store_close(c->s);
	c->s = NULL;
	assert_int_equal(bb_store_open(&c->s, c->path, err, sizeof(err)), 0);
	assert_int_equal(bb_store_schema_version(c->s), NEWEST);
	expect_state(c->s, id, BB_JOB_QUEUED);
	assert_int_equal(bb_store_job_next_queued(c->s, &nid, &spec, err,
						  sizeof(err)), 0);
	assert_int_equal(nid, id);
	assert_string_equal(spec, SPEC);
	free(spec);
	/* a second handle on the same file (the daemon opens two) */
	assert_int_equal(bb_store_open(&s2, c->path, err, sizeof(err)), 0);
	expect_state(s2, id, BB_JOB_QUEUED);
	bb_store_close(s2);
}

static void newer_database_is_refused(void **state)
{
	struct ctx *c = *state;
	char path[192], err[256] = "";
	struct bb_store *s = NULL;
	struct raw *db;

	SQLITE_ONLY(c);

	snprintf(path, sizeof(path), "%s/newer.db", c->dir);
	db = raw_open(path);
	assert_int_equal(sqlite3_exec(db->sq, "PRAGMA user_version = 999", NULL,
				      NULL, NULL), SQLITE_OK);
	raw_close(db);
	assert_int_equal(bb_store_open(&s, path, err, sizeof(err)), -EPROTO);
	assert_null(s);
	assert_non_null(strstr(err, "999"));
	assert_non_null(strstr(err, path));
	/* refused before anything changed: still version 999, no WAL */
	db = raw_open(path);
	assert_int_equal(raw_int(db, "PRAGMA user_version", 0), 999);
	assert_string_equal(raw_text(db, "PRAGMA journal_mode", 0), "delete");
	raw_close(db);
}

static void bad_files_are_refused(void **state)
{
	struct ctx *c = *state;
	char path[192], err[256] = "";
	struct bb_store *s = NULL;
	FILE *f;

	SQLITE_ONLY(c);

	snprintf(path, sizeof(path), "%s/garbage.db", c->dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 200; i++)
		fputs("this is not a database file at all\n", f);
	fclose(f);
	assert_int_equal(bb_store_open(&s, path, err, sizeof(err)), -EIO);
	assert_null(s);
	assert_non_null(strstr(err, path));
	assert_null(strchr(err, '\n'));

	snprintf(path, sizeof(path), "%s/no/such/dir/bb.db", c->dir);
	err[0] = 0;
	assert_int_equal(bb_store_open(&s, path, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, path));
}

/* ---- jobs ----------------------------------------------------------- */

static void job_lifecycle_with_events(void **state)
{
	struct ctx *c = *state;
	struct json_object *host = json_object_new_object(), *dev, *doc;
	int64_t id, hid = 0, did = 0, nid = 0;
	char err[256] = "", *spec = NULL;
	struct raw *db;

	json_object_object_add(host, "hostname", json_object_new_string("lab1"));
	json_object_object_add(host, "kernel", json_object_new_string("6.18.0"));
	json_object_object_add(host, "cpus", json_object_new_int(16));
	assert_int_equal(bb_store_host_upsert(c->s, host, &hid, err,
					      sizeof(err)), 0);
	dev = json_tokener_parse("{\"kind\":\"nop\"}");
	assert_int_equal(bb_store_device_upsert(c->s, dev, &did, err,
						sizeof(err)), 0);

	assert_int_equal(bb_store_job_insert(c->s, "j1", "nop", SPEC, 4, &id,
					     err, sizeof(err)), 0);
	expect_state(c->s, id, BB_JOB_QUEUED);
	assert_int_equal(bb_store_job_next_queued(c->s, &nid, &spec, err,
						  sizeof(err)), 0);
	assert_int_equal(nid, id);
	assert_string_equal(spec, SPEC);
	free(spec);

	assert_int_equal(bb_store_job_start(c->s, id, hid, did, err,
					    sizeof(err)), 0);
	expect_state(c->s, id, BB_JOB_RUNNING);
	assert_int_equal(bb_store_job_next_queued(c->s, &nid, &spec, err,
						  sizeof(err)), -ENOENT);
	assert_int_equal(bb_store_job_start(c->s, id, hid, did, err,
					    sizeof(err)), -EALREADY);
	assert_int_equal(bb_store_job_progress(c->s, id, 6,
					       "{\"partial\":true}", err,
					       sizeof(err)), 0);
	assert_int_equal(bb_store_job_finish(c->s, id, BB_JOB_DONE, "faster",
					     NULL, NULL, err, sizeof(err)), 0);
	expect_state(c->s, id, BB_JOB_DONE);

	assert_int_equal(bb_store_job_get(c->s, id, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int64(jget(doc, "id")), id);
	assert_string_equal(json_object_get_string(jget(doc, "name")), "j1");
	assert_string_equal(json_object_get_string(jget(doc, "target")), "nop");
	assert_string_equal(json_object_get_string(jget(doc, "state")), "done");
	assert_int_equal(json_object_get_int(jget(doc, "runs_planned")), 6);
	assert_int_equal(json_object_get_int(jget(doc, "runs_done")), 0);
	assert_string_equal(json_object_get_string(jget(doc, "verdict")),
			    "faster");
	assert_null(jget(doc, "error"));
	assert_true(is_iso_ms(jget(doc, "created")));
	assert_true(is_iso_ms(jget(doc, "started")));
	assert_true(is_iso_ms(jget(doc, "finished")));
	/* spec and compare are objects, not strings; NULL compare kept */
	assert_true(json_object_is_type(jget(doc, "spec"), json_type_object));
	assert_int_equal(json_object_get_int(jget(jget(doc, "spec"), "bs")),
			 4096);
	assert_true(json_object_get_boolean(jget(jget(doc, "compare"),
						 "partial")));
	assert_string_equal(json_object_get_string(jget(jget(doc, "host"),
							"hostname")), "lab1");
	assert_int_equal(json_object_get_int64(jget(jget(doc, "host"), "id")),
			 hid);
	assert_int_equal(json_object_get_int64(jget(jget(doc, "device"), "id")),
			 did);
	assert_int_equal(json_object_array_length(jget(doc, "knobs")), 0);
	assert_null(jget(doc, "noise_floor")); /* no A/A job on this host */
	json_object_put(doc);

	/* a noise floor of this host, target nop, metric iops (SPEC's
	 * default): shown with the job; another target's is not */
	assert_int_equal(bb_store_host_noise_add(c->s, hid, id, "/dev/other",
						 "iops", 12, 0.05, 0.03, err,
						 sizeof(err)), 0);
	assert_int_equal(bb_store_host_noise_add(c->s, hid, id, "nop", "iops",
						 12, 0.0123, 0.006, err,
						 sizeof(err)), 0);
	assert_int_equal(bb_store_host_noise_add(c->s, hid, id, "nop", "iops",
						 1, 0.01, 0.006, err,
						 sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_host_noise_add(c->s, 0, id, "nop", "iops",
						 6, 0.01, 0.006, err,
						 sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_job_get(c->s, id, &doc, err, sizeof(err)), 0);
	assert_non_null(jget(doc, "noise_floor"));
	assert_true(fabs(json_object_get_double(jget(jget(doc, "noise_floor"),
						    "log_sd")) - 0.0123) < 1e-12);
	assert_int_equal(json_object_get_int(jget(jget(doc, "noise_floor"),
						  "pairs")), 12);
	assert_int_equal(json_object_get_int64(jget(jget(doc, "noise_floor"),
						    "job_id")), id);
	assert_true(is_iso_ms(jget(jget(doc, "noise_floor"), "measured")));
	json_object_put(doc);

	/* the events, in order, in the same transactions */
	db = raw_open(c->path);
	assert_string_equal(raw_text(db, "SELECT group_concat(level || ':' || "
				     "message, '|') FROM (SELECT * FROM events"
				     " WHERE job_id = ?1 ORDER BY id) AS e", id),
			    "info:submitted|info:started|info:done: faster");
	raw_close(db);

	/* ended: no second end, no progress */
	err[0] = 0;
	assert_int_equal(bb_store_job_finish(c->s, id, BB_JOB_FAILED, NULL,
					     NULL, "x", err, sizeof(err)),
			 -EALREADY);
	assert_non_null(strstr(err, "already"));
	assert_int_equal(bb_store_job_finish(c->s, id, BB_JOB_DONE, NULL,
					     NULL, NULL, err, sizeof(err)),
			 -EALREADY);
	assert_int_equal(bb_store_job_progress(c->s, id, 7, NULL, err,
					       sizeof(err)), -EALREADY);
	expect_state(c->s, id, BB_JOB_DONE);
	json_object_put(host);
	json_object_put(dev);
}

static void job_state_errors(void **state)
{
	struct ctx *c = *state;
	int64_t a = new_job(c->s, "nop"), b = new_job(c->s, "nop"), id;
	struct json_object *doc = NULL;
	char err[256] = "", st[16];
	struct raw *db;

	/* queued -> cancelled directly; then it cannot start */
	assert_int_equal(bb_store_job_finish(c->s, a, BB_JOB_CANCELLED, NULL,
					     NULL, NULL, err, sizeof(err)), 0);
	err[0] = 0;
	assert_int_equal(bb_store_job_start(c->s, a, 0, 0, err, sizeof(err)),
			 -EALREADY);
	assert_non_null(strstr(err, "cancelled"));
	expect_state(c->s, a, BB_JOB_CANCELLED);
	/* a queued job cannot be done, nor end as queued/running */
	assert_int_equal(bb_store_job_finish(c->s, b, BB_JOB_DONE, NULL, NULL,
					     NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_job_finish(c->s, b, BB_JOB_RUNNING, NULL,
					     NULL, NULL, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(bb_store_job_finish(c->s, b, "bogus", NULL, NULL,
					     NULL, err, sizeof(err)), -EINVAL);
	expect_state(c->s, b, BB_JOB_QUEUED);
	/* a failed end carries its error, level error */
	assert_int_equal(bb_store_job_finish(c->s, b, BB_JOB_FAILED, NULL,
					     NULL, "device gone\nreally", err,
					     sizeof(err)), 0);
	db = raw_open(c->path);
	assert_string_equal(raw_text(db, "SELECT level || ':' || message FROM "
				     "events WHERE job_id = ?1 ORDER BY id DESC"
				     " LIMIT 1", b),
			    "error:failed: device gone really");
	raw_close(db);
	/* missing jobs */
	assert_int_equal(bb_store_job_start(c->s, 9999, 0, 0, err,
					    sizeof(err)), -ENOENT);
	assert_int_equal(bb_store_job_finish(c->s, 9999, BB_JOB_CANCELLED,
					     NULL, NULL, NULL, err,
					     sizeof(err)), -ENOENT);
	assert_int_equal(bb_store_job_state(c->s, 9999, st, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(bb_store_job_get(c->s, 9999, &doc, err, sizeof(err)),
			 -ENOENT);
	assert_null(doc);
	assert_int_equal(bb_store_job_runs(c->s, 9999, false, &doc, err,
					   sizeof(err)), -ENOENT);
	/* specs must be JSON objects */
	assert_int_equal(bb_store_job_insert(c->s, "x", "nop", "{not json",
					     1, &id, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(bb_store_job_insert(c->s, "x", "nop", "[1]", 1, &id,
					     err, sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_job_insert(c->s, NULL, NULL, SPEC, 1, &id,
					     err, sizeof(err)), -EINVAL);
	/* no name: "" (the API's name is a string) */
	assert_int_equal(bb_store_job_insert(c->s, NULL, "nop", SPEC, 1, &id,
					     err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_get(c->s, id, &doc, err, sizeof(err)), 0);
	assert_string_equal(json_object_get_string(jget(doc, "name")), "");
	json_object_put(doc);
	/* events: bad level, missing job */
	assert_int_equal(bb_store_event(c->s, 0, "debug", "x"), -EINVAL);
	assert_int_equal(bb_store_event(c->s, 0, "info", "daemon started"), 0);
	assert_int_equal(bb_store_event(c->s, 9999, "info", "x"), -ENOENT);
}

static void interrupt_running_jobs(void **state)
{
	struct ctx *c = *state;
	int64_t a = new_job(c->s, "nop"), b = new_job(c->s, "nop");
	int64_t d = new_job(c->s, "nop");
	struct json_object *doc;
	char err[256] = "";
	unsigned n = 99;
	struct raw *db;

	assert_int_equal(bb_store_job_start(c->s, b, 0, 0, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_job_start(c->s, d, 0, 0, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_job_finish(c->s, d, BB_JOB_DONE, NULL, NULL,
					     NULL, err, sizeof(err)), 0);
	assert_int_equal(insert_run(c->s, b, 0, "A", false, "done",
				    "{\"iops\":5}", NULL, 0, NULL), 0);

	assert_int_equal(bb_store_jobs_interrupt_running(c->s, &n, err,
							 sizeof(err)), 0);
	assert_int_equal(n, 1);
	expect_state(c->s, a, BB_JOB_QUEUED);
	expect_state(c->s, b, BB_JOB_INTERRUPTED);
	expect_state(c->s, d, BB_JOB_DONE);
	assert_int_equal(bb_store_job_get(c->s, b, &doc, err, sizeof(err)), 0);
	assert_string_equal(json_object_get_string(jget(doc, "error")),
			    "daemon stopped while the job ran");
	assert_true(is_iso_ms(jget(doc, "finished")));
	assert_int_equal(json_object_get_int(jget(doc, "runs_done")), 1);
	json_object_put(doc);
	/* finished runs kept */
	assert_int_equal(bb_store_job_runs(c->s, b, false, &doc, err,
					   sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "runs")), 1);
	json_object_put(doc);
	db = raw_open(c->path);
	assert_string_equal(raw_text(db, "SELECT level || ':' || message FROM "
				     "events WHERE job_id = ?1 ORDER BY id DESC"
				     " LIMIT 1", b),
			    "warning:interrupted: daemon stopped while the job ran");
	raw_close(db);
	assert_int_equal(bb_store_jobs_interrupt_running(c->s, &n, err,
							 sizeof(err)), 0);
	assert_int_equal(n, 0);
}

/* ---- runs ----------------------------------------------------------- */

static void run_with_samples_and_histogram(void **state)
{
	struct ctx *c = *state;
	struct bb_result *r = make_result();
	int64_t job = new_job(c->s, "nop"), rid = 0, rid2 = 0, rid3 = 0;
	struct json_object *doc, *runs, *r0, *smp;
	char err[256] = "";
	struct raw *db;

	assert_int_equal(bb_store_job_start(c->s, job, 0, 0, err, sizeof(err)),
			 0);
	/* the result JSON says iops 1: the summary must come from r */
	assert_int_equal(insert_run(c->s, job, 0, "A", false, "done",
				    "{\"iops\":1}", r, 0, &rid), 0);
	assert_true(rid > 0);

	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs", 0), 1);
	assert_true(raw_double(db, "SELECT iops FROM runs WHERE id = ?1", rid)
		    == 100000.0);
	assert_true(raw_double(db, "SELECT bw_bytes_s FROM runs WHERE id = ?1",
			       rid) == 300000.0 * 4096 / 3);
	assert_int_equal(raw_int(db, "SELECT lat_p50_ns FROM runs WHERE id = ?1",
				 rid), bb_hist_percentile(&r->lat, 50));
	assert_int_equal(raw_int(db, "SELECT lat_p99_ns FROM runs WHERE id = ?1",
				 rid), bb_hist_percentile(&r->lat, 99));
	assert_true(bb_hist_percentile(&r->lat, 99) >= 99000);
	assert_true(raw_double(db, "SELECT cpu_per_io_ns FROM runs WHERE id = ?1",
			       rid) == 5000.0); /* 1.5 s / 300000 */
	assert_int_equal(raw_int(db, "SELECT started_ms FROM runs WHERE id = ?1",
				 rid), 1764477190123ll);
	assert_int_equal(raw_int(db, "SELECT duration_ns FROM runs WHERE id = ?1",
				 rid), 3000000000ll);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples WHERE "
				 "run_id = ?1", rid), 3);
	assert_int_equal(raw_int(db, "SELECT sum(ios) FROM samples WHERE "
				 "run_id = ?1", rid), 300000);
	assert_int_equal(raw_int(db, "SELECT max(t_ms) FROM samples WHERE "
				 "run_id = ?1", rid), 3000);
	/* only the 3 non-zero buckets, with their counts */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM lat_hist WHERE "
				 "run_id = ?1", rid), 3);
	assert_int_equal(raw_int(db, "SELECT sum(count) FROM lat_hist WHERE "
				 "run_id = ?1", rid), 100);
	{
		char sql[96];

		snprintf(sql, sizeof(sql), "SELECT count FROM lat_hist WHERE "
			 "run_id = ?1 AND bucket = %u", bb_hist_bucket(1000));
		assert_int_equal(raw_int(db, sql, rid), 50);
	}
	assert_int_equal(raw_int(db, "SELECT runs_done FROM jobs WHERE id = ?1",
				 job), 1);

	/* same seq again: refused, and nothing of it stays */
	assert_int_equal(insert_run(c->s, job, 0, "B", false, "done", NULL, r,
				    0, NULL), -EEXIST);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs", 0), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples", 0), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM lat_hist", 0), 3);
	assert_int_equal(raw_int(db, "SELECT runs_done FROM jobs WHERE id = ?1",
				 job), 1);

	/* no bb_result: the summary from the result JSON */
	assert_int_equal(insert_run(c->s, job, 1, "B", false, "done",
		"{\"iops\":2500.5,\"bw_bytes_s\":10242048.0,\"duration_s\":2.0,"
		"\"start_unix_ms\":1764477190123,\"io\":{\"ios\":5001},"
		"\"latency_ns\":{\"count\":5001,\"p50\":7000,\"p99\":9000},"
		"\"cpu\":{\"per_io_ns\":1234.5}}", NULL, 0, &rid2), 0);
	assert_true(raw_double(db, "SELECT iops FROM runs WHERE id = ?1", rid2)
		    == 2500.5);
	assert_int_equal(raw_int(db, "SELECT lat_p99_ns FROM runs WHERE id = ?1",
				 rid2), 9000);
	assert_int_equal(raw_int(db, "SELECT duration_ns FROM runs WHERE id = ?1",
				 rid2), 2000000000ll);
	/* a failed run without any result: NULL summary */
	assert_int_equal(insert_run(c->s, job, 2, "A", true, "failed", NULL,
				    NULL, 0, &rid3), 0);
	assert_int_equal(raw_int(db, "SELECT iops IS NULL AND lat_p50_ns IS "
				 "NULL AND result IS NULL FROM runs WHERE id = ?1",
				 rid3), 1);
	/* runs_done counts the two runs that finished, not the failed one
	 * (jobs, show and compare say the same "2 of N") */
	assert_int_equal(raw_int(db, "SELECT runs_done FROM jobs WHERE id = ?1",
				 job), 2);
	assert_int_equal(insert_run(c->s, job, 3, "A", false, "done", "{",
				    NULL, 0, NULL), -EINVAL);
	assert_int_equal(insert_run(c->s, job, 3, "A", false, "weird", NULL,
				    NULL, 0, NULL), -EINVAL);
	raw_close(db);

	/* the API document */
	assert_int_equal(bb_store_job_runs(c->s, job, true, &doc, err,
					   sizeof(err)), 0);
	assert_int_equal(json_object_get_int64(jget(doc, "job_id")), job);
	runs = jget(doc, "runs");
	assert_int_equal(json_object_array_length(runs), 3);
	r0 = json_object_array_get_idx(runs, 0);
	assert_int_equal(json_object_get_int64(jget(r0, "id")), rid);
	assert_null(jget(r0, "device_id"));
	assert_int_equal(json_object_get_int(jget(r0, "seq")), 0);
	assert_string_equal(json_object_get_string(jget(r0, "variant")), "A");
	assert_false(json_object_get_boolean(jget(r0, "warmup")));
	assert_string_equal(json_object_get_string(jget(r0, "state")), "done");
	assert_true(json_object_get_double(jget(r0, "iops")) == 100000.0);
	assert_string_equal(json_object_get_string(jget(r0, "started")),
			    "2025-11-30T04:33:10.123Z");
	assert_true(json_object_is_type(jget(r0, "result"), json_type_object));
	assert_int_equal(json_object_get_int(jget(jget(r0, "result"), "iops")),
			 1);
	smp = jget(r0, "samples");
	assert_int_equal(json_object_array_length(smp), 3);
	assert_int_equal(json_object_get_int(jget(
		json_object_array_get_idx(smp, 2), "t_ms")), 3000);
	r0 = json_object_array_get_idx(runs, 2);
	assert_true(json_object_get_boolean(jget(r0, "warmup")));
	assert_null(jget(r0, "iops"));
	assert_null(jget(r0, "result"));
	json_object_put(doc);
	assert_int_equal(bb_store_job_runs(c->s, job, false, &doc, err,
					   sizeof(err)), 0);
	r0 = json_object_array_get_idx(jget(doc, "runs"), 0);
	assert_false(json_object_object_get_ex(r0, "samples", NULL));
	json_object_put(doc);
	free_result(r);
}

/* Foreign keys are enforced by the store's connection. */
/* Two samples of one run at the same t_ms (should not happen) add up in
 * one row instead of failing the whole run. */
static void repeated_sample_time_adds_up(void **state)
{
	struct ctx *c = *state;
	struct bb_result *r = make_result();
	int64_t job = new_job(c->s, "nop"), rid = 0;
	struct json_object *doc, *smp;
	char err[256] = "";
	struct raw *db;

	r->samples[1].t_ms = r->samples[0].t_ms;
	r->samples[1].ios = 7;
	r->samples[1].bytes = 7 * 4096;
	assert_int_equal(insert_run(c->s, job, 0, "A", false, "done", "{}", r,
				    0, &rid), 0);
	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples WHERE "
				 "run_id = ?1", rid), 2);
	assert_int_equal(raw_int(db, "SELECT ios FROM samples WHERE run_id = ?1"
				 " AND t_ms = 1000", rid), 100007);
	assert_int_equal(raw_int(db, "SELECT bytes FROM samples WHERE "
				 "run_id = ?1 AND t_ms = 1000", rid),
			 100007 * 4096);
	raw_close(db);
	assert_int_equal(bb_store_job_runs(c->s, job, true, &doc, err,
					   sizeof(err)), 0);
	smp = jget(json_object_array_get_idx(jget(doc, "runs"), 0), "samples");
	assert_int_equal(json_object_array_length(smp), 2);
	assert_int_equal(json_object_get_int64(jget(
		json_object_array_get_idx(smp, 0), "ios")), 100007);
	json_object_put(doc);
	free_result(r);
}

static void foreign_keys_enforced(void **state)
{
	struct ctx *c = *state;
	int64_t job = new_job(c->s, "nop");
	struct bb_store_run run = {
		.job_id = 424242, .variant = "A", .state = "done",
		.result = "{}",
	};
	char err[256] = "";
	struct raw *db;

	assert_int_equal(bb_store_run_insert(c->s, &run, NULL, err,
					     sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "424242"));
	/* an unknown device id, too */
	assert_int_equal(insert_run(c->s, job, 0, "A", false, "done", "{}",
				    NULL, 777, NULL), -ENOENT);
	assert_int_equal(bb_store_job_start(c->s, job, 555, 0, err,
					    sizeof(err)), -ENOENT);
	expect_state(c->s, job, BB_JOB_QUEUED);
	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs", 0), 0);
	assert_int_equal(raw_int(db, "SELECT runs_done FROM jobs WHERE id = ?1",
				 job), 0);
	raw_close(db);
}

/* Deleting a job deletes its runs, samples, histograms and events; its
 * knob journal rows stay (they hold values to restore). */
static void foreign_key_cascade(void **state)
{
	struct ctx *c = *state;
	struct bb_result *r;
	int64_t job, other, k;
	char err[256] = "";
	struct raw *db;

	SQLITE_ONLY(c); /* (before anything is allocated: skip() jumps) */
	r = make_result();
	job = new_job(c->s, "nop");
	other = new_job(c->s, "nop");

	assert_int_equal(insert_run(c->s, job, 0, "A", false, "done", "{}", r,
				    0, NULL), 0);
	assert_int_equal(insert_run(c->s, job, 1, "B", false, "done", "{}", r,
				    0, NULL), 0);
	assert_int_equal(insert_run(c->s, other, 0, "A", false, "done", "{}",
				    r, 0, NULL), 0);
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda", "nomerges",
					       "/sys/block/vda/queue/nomerges",
					       "0", "2", NULL, &k, err, sizeof(err)),
			 0);
	db = raw_open(c->path);
	assert_int_equal(sqlite3_exec(db->sq, "PRAGMA foreign_keys = ON", NULL,
				      NULL, NULL), SQLITE_OK);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples", 0), 9);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM lat_hist", 0), 9);
	{
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_prepare_v2(db->sq, "DELETE FROM jobs "
			"WHERE id = ?1", -1, &st, NULL), SQLITE_OK);
		sqlite3_bind_int64(st, 1, job);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
	}
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs", 0), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM samples", 0), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM lat_hist", 0), 3);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM events WHERE "
				 "job_id = ?1", job), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM events WHERE "
				 "job_id = ?1", other), 1);
	assert_int_equal(raw_int(db, "SELECT job_id IS NULL FROM knob_journal "
				 "WHERE id = ?1", k), 1);
	raw_close(db);
	free_result(r);
}

/* ---- lists ---------------------------------------------------------- */

/* Walk every page; ids strictly decreasing (so no duplicates). */
static unsigned walk_pages(struct bb_store *s, const char *state,
			   unsigned limit, int64_t *seen, unsigned maxn)
{
	int64_t cursor = 0, prev = INT64_MAX;
	char err[256] = "";
	unsigned n = 0, pages = 0;

	for (;;) {
		struct json_object *doc = NULL, *jobs, *nc;
		size_t len;

		assert_int_equal(bb_store_jobs_list(s, state, limit, cursor,
						    &doc, err, sizeof(err)), 0);
		jobs = jget(doc, "jobs");
		len = json_object_array_length(jobs);
		assert_true(len <= limit);
		for (size_t i = 0; i < len; i++) {
			struct json_object *j = json_object_array_get_idx(jobs, i);
			int64_t id = json_object_get_int64(jget(j, "id"));

			assert_true(id < prev);
			prev = id;
			if (state)
				assert_string_equal(json_object_get_string(
					jget(j, "state")), state);
			assert_false(json_object_object_get_ex(j, "spec", NULL));
			assert_true(is_iso_ms(jget(j, "created")));
			assert_true(n < maxn);
			seen[n++] = id;
		}
		nc = jget(doc, "next_cursor");
		pages++;
		if (!nc) {
			json_object_put(doc);
			break;
		}
		assert_int_equal(len, limit);
		assert_int_equal(json_object_get_int64(nc), prev);
		cursor = json_object_get_int64(nc);
		json_object_put(doc);
		assert_true(pages < 1000);
	}
	return n;
}

static void list_pagination(void **state)
{
	struct ctx *c = *state;
	int64_t ids[120], seen[200];
	struct json_object *doc = NULL;
	char err[256] = "";
	unsigned n;

	/* through the store (cancel every third) */
	for (int i = 0; i < 120; i++) {
		ids[i] = new_job(c->s, "nop");
		if (i % 3 == 0)
			assert_int_equal(bb_store_job_finish(c->s, ids[i],
				BB_JOB_CANCELLED, NULL, NULL, NULL, err,
				sizeof(err)), 0);
	}
	n = walk_pages(c->s, NULL, 7, seen, 200);
	assert_int_equal(n, 120);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(seen[i], ids[119 - i]); /* all, newest first */
	n = walk_pages(c->s, BB_JOB_CANCELLED, 9, seen, 200);
	assert_int_equal(n, 40);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(seen[i], ids[117 - 3 * i]);
	n = walk_pages(c->s, BB_JOB_QUEUED, 500, seen, 200);
	assert_int_equal(n, 80);
	/* a page of exactly the remaining jobs has no next cursor */
	assert_int_equal(walk_pages(c->s, BB_JOB_CANCELLED, 40, seen, 200), 40);
	assert_int_equal(walk_pages(c->s, BB_JOB_DONE, 10, seen, 200), 0);
	/* a cursor in the middle */
	assert_int_equal(bb_store_jobs_list(c->s, NULL, 500, ids[10], &doc, err,
					    sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "jobs")), 10);
	json_object_put(doc);
	/* bad arguments */
	assert_int_equal(bb_store_jobs_list(c->s, NULL, 0, 0, &doc, err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_jobs_list(c->s, NULL, 501, 0, &doc, err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_jobs_list(c->s, "bogus", 10, 0, &doc, err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_jobs_list(c->s, NULL, 500, 0, &doc, err,
					    sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "jobs")), 120);
	json_object_put(doc);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 10,000 jobs with big specs: lists use the indexes and stay fast. */
static void list_is_fast_with_10000_jobs(void **state)
{
	struct ctx *c = *state;
	struct json_object *doc = NULL, *m = NULL;
	char err[256] = "";
	int64_t cursor = 0;
	unsigned total = 0;
	double t0, dt;
	struct raw *db;

	SQLITE_ONLY(c);
	db = raw_open(c->path);
	assert_int_equal(sqlite3_exec(db->sq,
		"WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
		" WHERE i < 10000) INSERT INTO jobs (name, target, state,"
		" created_ms, spec) SELECT 'j' || i, CASE i % 2 WHEN 0 THEN"
		" '/dev/vda' ELSE 'nop' END, CASE i % 4 WHEN 0 THEN 'done' WHEN 1"
		" THEN 'failed' ELSE 'queued' END, 1764477190123 + i,"
		" '{\"pad\":\"' || hex(zeroblob(2000)) || '\"}' FROM n",
		NULL, NULL, NULL), SQLITE_OK);
	{
		sqlite3_stmt *st = NULL;
		char plan[512] = "";

		assert_int_equal(sqlite3_prepare_v2(db->sq, "EXPLAIN QUERY PLAN "
			"SELECT id FROM jobs WHERE state = 'done' AND id < 500"
			" ORDER BY id DESC LIMIT 51", -1, &st, NULL), SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW)
			strncat(plan, (const char *)sqlite3_column_text(st, 3),
				sizeof(plan) - strlen(plan) - 1);
		sqlite3_finalize(st);
		assert_non_null(strstr(plan, "jobs_state_id"));
	}
	raw_close(db);

	t0 = now_s();
	for (int page = 0; page < 20; page++) {
		assert_int_equal(bb_store_jobs_list(c->s, BB_JOB_DONE, 100,
						    cursor, &doc, err,
						    sizeof(err)), 0);
		total += (unsigned)json_object_array_length(jget(doc, "jobs"));
		cursor = json_object_get_int64(jget(doc, "next_cursor"));
		json_object_put(doc);
	}
	assert_int_equal(total, 2000);
	assert_int_equal(bb_store_jobs_list(c->s, NULL, 500, 0, &doc, err,
					    sizeof(err)), 0);
	json_object_put(doc);
	assert_int_equal(bb_store_metrics(c->s, &m, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(jget(jget(m, "jobs_by_state"),
						  "done")), 2500);
	json_object_put(m);
	dt = now_s() - t0;
	/* a few ms in practice; generous for sanitizers and slow hosts */
	assert_true(dt < 1.0);
}

/* ---- knob journal --------------------------------------------------- */

struct walk {
	struct bb_store *s;
	unsigned n;
	int64_t ids[8];
	char originals[8][16];
	char states[8][16];
	bool mark;
	int stop_with;
};

static int walk_cb(void *arg, const struct bb_knob_row *row)
{
	struct walk *w = arg;
	char err[256] = "";

	assert_true(w->n < 8);
	w->ids[w->n] = row->id;
	snprintf(w->originals[w->n], 16, "%s", row->original);
	snprintf(w->states[w->n], 16, "%s", row->state);
	w->n++;
	if (w->mark) /* the callback uses the same handle */
		assert_int_equal(bb_store_knob_mark(w->s, row->id, "restored",
						    err, sizeof(err)), 0);
	return w->stop_with;
}

static void knob_journal(void **state)
{
	struct ctx *c = *state;
	int64_t job = new_job(c->s, "/dev/vda"), k1, k2, k3, k4;
	struct json_object *doc, *knobs, *k;
	struct walk w = { .s = c->s };
	char err[256] = "";

	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"nomerges", "/sys/block/vda/queue/nomerges", "0", "2", NULL, &k1,
		err, sizeof(err)), 0);
	assert_int_equal(bb_store_knob_mark(c->s, k1, "applied", err,
					    sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"scheduler", "/sys/block/vda/queue/scheduler", "mq-deadline",
		"none", NULL, &k2, err, sizeof(err)), 0);
	assert_true(k2 > k1);

	/* unrestored, oldest first, with their states */
	assert_int_equal(bb_store_knobs_unrestored(c->s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(w.ids[0], k1);
	assert_string_equal(w.originals[0], "0");
	assert_string_equal(w.states[0], "applied");
	assert_int_equal(w.ids[1], k2);
	assert_string_equal(w.originals[1], "mq-deadline");
	assert_string_equal(w.states[1], "pending");

	/* a walk that restores (re-entering the store) */
	w = (struct walk){ .s = c->s, .mark = true };
	assert_int_equal(bb_store_knobs_unrestored(c->s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 2);
	w = (struct walk){ .s = c->s };
	assert_int_equal(bb_store_knobs_unrestored(c->s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 0);

	/* marks only go forward; the same mark again is fine */
	assert_int_equal(bb_store_knob_mark(c->s, k1, "restored", err,
					    sizeof(err)), 0);
	assert_int_equal(bb_store_knob_mark(c->s, k1, "applied", err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_knob_mark(c->s, k1, "bogus", err,
					    sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_knob_mark(c->s, 9999, "applied", err,
					    sizeof(err)), -ENOENT);
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda", "x",
					       NULL, "0", "1", NULL, &k3, err,
					       sizeof(err)), -EINVAL);

	/* the callback's non-zero return stops the walk */
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"rq_affinity", "/sys/block/vda/queue/rq_affinity", "1", "2",
		NULL, &k3, err, sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(c->s, 0, NULL, "iostats",
		"/sys/block/vda/queue/iostats", "1", "0", NULL, &k4, err,
		sizeof(err)), 0);
	w = (struct walk){ .s = c->s, .stop_with = 42 };
	assert_int_equal(bb_store_knobs_unrestored(c->s, walk_cb, &w, err,
						   sizeof(err)), 42);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.ids[0], k3);

	/* the job's rows, in its document too */
	assert_int_equal(bb_store_job_knobs(c->s, job, &knobs, err,
					    sizeof(err)), 0);
	assert_int_equal(json_object_array_length(knobs), 3);
	k = json_object_array_get_idx(knobs, 0);
	assert_string_equal(json_object_get_string(jget(k, "knob")), "nomerges");
	assert_string_equal(json_object_get_string(jget(k, "target")),
			    "/dev/vda");
	assert_string_equal(json_object_get_string(jget(k, "original")), "0");
	assert_string_equal(json_object_get_string(jget(k, "applied")), "2");
	assert_string_equal(json_object_get_string(jget(k, "state")),
			    "restored");
	assert_true(is_iso_ms(jget(k, "restored")));
	k = json_object_array_get_idx(knobs, 2);
	assert_string_equal(json_object_get_string(jget(k, "state")), "pending");
	assert_null(jget(k, "restored"));
	json_object_put(knobs);
	assert_int_equal(bb_store_job_get(c->s, job, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "knobs")), 3);
	json_object_put(doc);
}

/* ---- hosts, devices, metrics ---------------------------------------- */

static void host_and_device_dedup(void **state)
{
	struct ctx *c = *state;
	int64_t h1 = 0, h2 = 0, h3 = 0, d1 = 0, d2 = 0, d3 = 0, d4 = 0;
	struct json_object *a, *b, *x, *da, *db2, *dn;
	char err[256] = "";
	struct raw *db;

	a = json_tokener_parse("{\"hostname\":\"lab1\",\"kernel\":\"6.18.0\","
			       "\"cpus\":16,\"memory_bytes\":68719476736,"
			       "\"governor\":null,\"cmdline\":\"quiet\"}");
	/* the same, keys in another order */
	b = json_tokener_parse("{\"cmdline\":\"quiet\",\"cpus\":16,"
			       "\"governor\":null,\"kernel\":\"6.18.0\","
			       "\"memory_bytes\":68719476736,"
			       "\"hostname\":\"lab1\"}");
	x = json_tokener_parse("{\"hostname\":\"lab1\",\"kernel\":\"6.19.0\","
			       "\"cpus\":16}");
	assert_int_equal(bb_store_host_upsert(c->s, a, &h1, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_host_upsert(c->s, b, &h2, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_host_upsert(c->s, x, &h3, err, sizeof(err)),
			 0);
	assert_true(h1 > 0);
	assert_int_equal(h1, h2);
	assert_true(h3 != h1);

	da = json_tokener_parse("{\"kind\":\"block\",\"path\":\"/dev/nvme0n1\","
		"\"device\":{\"name\":\"nvme0n1\",\"model\":\"Samsung 990\","
		"\"serial\":\"S123\",\"firmware\":\"4B2QJXD7\","
		"\"limits\":{\"max_sectors_kb\":128,\"max_segments\":127}}}");
	db2 = json_tokener_parse("{\"kind\":\"block\",\"path\":\"/dev/nvme0n1\","
		"\"device\":{\"name\":\"nvme0n1\",\"model\":\"Samsung 990\","
		"\"serial\":\"S123\",\"firmware\":\"4B2QJXD8\","
		"\"limits\":{\"max_sectors_kb\":128,\"max_segments\":127}}}");
	dn = json_tokener_parse("{\"kind\":\"nop\"}");
	assert_int_equal(bb_store_device_upsert(c->s, da, &d1, err,
						sizeof(err)), 0);
	assert_int_equal(bb_store_device_upsert(c->s, da, &d2, err,
						sizeof(err)), 0);
	assert_int_equal(bb_store_device_upsert(c->s, db2, &d3, err,
						sizeof(err)), 0);
	assert_int_equal(bb_store_device_upsert(c->s, dn, &d4, err,
						sizeof(err)), 0);
	assert_int_equal(d1, d2);
	assert_true(d3 != d1 && d4 != d1 && d4 != d3);

	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM hosts", 0), 2);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM devices", 0), 3);
	assert_int_equal(raw_int(db, "SELECT memory_bytes FROM hosts WHERE "
				 "id = ?1", h1), 68719476736ll);
	assert_string_equal(raw_text(db, "SELECT name || ' ' || model || ' ' "
				     "|| firmware FROM devices WHERE id = ?1",
				     d1), "nvme0n1 Samsung 990 4B2QJXD7");
	assert_string_equal(raw_text(db, "SELECT limits FROM devices WHERE "
				     "id = ?1", d1),
			    "{\"max_sectors_kb\":128,\"max_segments\":127}");
	assert_string_equal(raw_text(db, "SELECT path FROM devices WHERE "
				     "id = ?1", d1), "/dev/nvme0n1");
	raw_close(db);
	assert_int_equal(bb_store_host_upsert(c->s, NULL, &h3, err,
					      sizeof(err)), -EINVAL);
	json_object_put(a);
	json_object_put(b);
	json_object_put(x);
	json_object_put(da);
	json_object_put(db2);
	json_object_put(dn);
}

static void metrics_counts(void **state)
{
	struct ctx *c = *state;
	struct json_object *dev, *m, *by;
	int64_t did = 0, q1, q2, run, done, fail, canc, nopj;
	char err[256] = "";

	dev = json_tokener_parse("{\"kind\":\"block\",\"path\":\"/dev/nvme0n1\","
				 "\"device\":{\"name\":\"nvme0n1\"}}");
	assert_int_equal(bb_store_device_upsert(c->s, dev, &did, err,
						sizeof(err)), 0);
	json_object_put(dev);
	q1 = new_job(c->s, "nop");
	q2 = new_job(c->s, "nop");
	(void)q1;
	(void)q2;
	run = new_job(c->s, "/dev/vdb");
	done = new_job(c->s, "/dev/nvme0n1");
	fail = new_job(c->s, "/dev/nvme0n1");
	canc = new_job(c->s, "nop");
	nopj = new_job(c->s, "nop");
	assert_int_equal(bb_store_job_start(c->s, run, 0, 0, err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_job_start(c->s, done, 0, did, err,
					    sizeof(err)), 0);
	assert_int_equal(insert_run(c->s, done, 0, "A", true, "done",
				    "{\"iops\":1,\"duration_s\":1,"
				    "\"bw_bytes_s\":1}", NULL, did, NULL), 0);
	assert_int_equal(insert_run(c->s, done, 1, "A", false, "done",
				    "{\"iops\":1000,\"duration_s\":1,"
				    "\"bw_bytes_s\":1}", NULL, did, NULL), 0);
	assert_int_equal(insert_run(c->s, done, 2, "B", false, "done",
				    "{\"iops\":2000,\"duration_s\":1,"
				    "\"bw_bytes_s\":1}", NULL, did, NULL), 0);
	assert_int_equal(insert_run(c->s, done, 3, "B", true, "done",
				    "{\"iops\":3,\"duration_s\":1,"
				    "\"bw_bytes_s\":1}", NULL, did, NULL), 0);
	assert_int_equal(bb_store_job_finish(c->s, done, BB_JOB_DONE, "faster",
					     NULL, NULL, err, sizeof(err)), 0);
	/* a newer job on the same target whose only run failed */
	assert_int_equal(bb_store_job_start(c->s, fail, 0, did, err,
					    sizeof(err)), 0);
	assert_int_equal(insert_run(c->s, fail, 0, "A", false, "failed", NULL,
				    NULL, did, NULL), 0);
	assert_int_equal(bb_store_job_finish(c->s, fail, BB_JOB_FAILED, NULL,
					     NULL, "boom", err, sizeof(err)),
			 0);
	assert_int_equal(bb_store_job_finish(c->s, canc, BB_JOB_CANCELLED,
					     NULL, NULL, NULL, err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_job_start(c->s, nopj, 0, 0, err,
					    sizeof(err)), 0);
	assert_int_equal(insert_run(c->s, nopj, 0, "A", false, "done",
				    "{\"iops\":5e6,\"duration_s\":1,"
				    "\"bw_bytes_s\":0}", NULL, 0, NULL), 0);
	assert_int_equal(bb_store_job_finish(c->s, nopj, BB_JOB_INTERRUPTED,
					     NULL, NULL, "stop", err,
					     sizeof(err)), 0);

	assert_int_equal(bb_store_metrics(c->s, &m, err, sizeof(err)), 0);
	by = jget(m, "jobs_by_state");
	/* all seven states, rebooting too */
	assert_int_equal(json_object_object_length(by), 7);
	assert_int_equal(json_object_get_int(jget(by, "queued")), 2);
	assert_int_equal(json_object_get_int(jget(by, "running")), 1);
	assert_int_equal(json_object_get_int(jget(by, "done")), 1);
	assert_int_equal(json_object_get_int(jget(by, "failed")), 1);
	assert_int_equal(json_object_get_int(jget(by, "cancelled")), 1);
	assert_int_equal(json_object_get_int(jget(by, "interrupted")), 1);
	assert_int_equal(json_object_get_int(jget(m, "runs_total")), 6);
	/* no series per target any more: the document has the counts only */
	assert_false(json_object_object_get_ex(m, "last_iops", NULL));
	assert_int_equal(json_object_object_length(m), 2);
	json_object_put(m);
}

/* ---- concurrency ---------------------------------------------------- */

struct writer {
	const char *path;
	int ok;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;
	struct bb_store *s = NULL;
	char err[256] = "";
	int64_t id;

	if (bb_store_open(&s, w->path, err, sizeof(err)))
		return NULL;
	for (int i = 0; i < 40; i++) {
		if (bb_store_job_insert(s, "w", "nop", SPEC, 1, &id, err,
					sizeof(err)))
			break;
		if (bb_store_job_finish(s, id, BB_JOB_CANCELLED, NULL, NULL,
					NULL, err, sizeof(err)))
			break;
		w->ok++;
	}
	bb_store_close(s);
	return NULL;
}

/* Two handles writing at once wait for each other (busy timeout). */
static void two_handles_write_concurrently(void **state)
{
	struct ctx *c = *state;
	struct writer w[3] = { { c->path, 0 }, { c->path, 0 }, { c->path, 0 } };
	pthread_t t[3];
	struct raw *db;

	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&t[i], NULL, writer_thread,
						&w[i]), 0);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(w[i].ok, 40);
	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM jobs WHERE state = "
				 "'cancelled'", 0), 120);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM events", 0), 240);
	raw_close(db);
}

/* ---- full disk ------------------------------------------------------ */

static void full_disk_is_enospc_and_reads_survive(void **state)
{
	struct ctx *c = *state;
	struct json_object *doc = NULL;
	char err[256] = "", st[16];
	size_t big = 96 * 1024;
	char *result;
	int64_t job;
	unsigned ok = 0;
	int ret = 0;

	SQLITE_ONLY(c); /* (before anything is allocated: skip() jumps) */
	result = malloc(big + 64);

	assert_non_null(result);
	bb_store_close(c->s);
	c->s = NULL;
	if (mount("tmpfs", c->dir, "tmpfs", 0, "size=1m")) {
		fprintf(stderr, "skipped: cannot mount a 1 MiB tmpfs on %s: "
			"%s (needs root)\n", c->dir, strerror(errno));
		free(result);
		skip();
	}
	c->mounted = true;
	assert_int_equal(bb_store_open(&c->s, c->path, err, sizeof(err)), 0);
	job = new_job(c->s, "nop");
	assert_int_equal(bb_store_job_start(c->s, job, 0, 0, err, sizeof(err)),
			 0);
	/* {"iops":N,"pad":"xxxx..."}: incompressible enough for sqlite */
	for (unsigned seq = 0; seq < 100; seq++) {
		int n = snprintf(result, 64, "{\"iops\":%u,\"pad\":\"", seq);

		for (size_t i = 0; i < big - 4; i++)
			result[n + i] = (char)('a' + (rand() % 26));
		strcpy(result + n + big - 4, "\"}");
		err[0] = 0;
		ret = insert_run(c->s, job, seq, "A", false, "done", result,
				 NULL, 0, NULL);
		if (ret)
			break;
		ok++;
	}
	assert_int_equal(ret, -ENOSPC);
	assert_true(ok >= 1);
	{
		struct bb_store_run run = { .job_id = job, .variant = "A",
					    .seq = 1000, .state = "done",
					    .result = result };

		assert_int_equal(bb_store_run_insert(c->s, &run, NULL, err,
						     sizeof(err)), -ENOSPC);
		assert_non_null(strstr(err, "database or disk is full"));
		assert_non_null(strstr(err, c->path));
	}
	/* the store's health says so (a failed write, no commit since) */
	err[0] = '\0';
	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), -ENOSPC);
	assert_non_null(strstr(err, "database or disk is full"));
	/* everything stored before reads fine, through the same handle */
	expect_state(c->s, job, BB_JOB_RUNNING);
	assert_int_equal(bb_store_job_runs(c->s, job, true, &doc, err,
					   sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "runs")), ok);
	assert_int_equal(json_object_get_int(jget(jget(json_object_array_get_idx(
		jget(doc, "runs"), ok - 1), "result"), "iops")), ok - 1);
	json_object_put(doc);
	assert_int_equal(bb_store_job_get(c->s, job, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(jget(doc, "runs_done")), ok);
	json_object_put(doc);
	assert_int_equal(bb_store_jobs_list(c->s, NULL, 10, 0, &doc, err,
					    sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "jobs")), 1);
	json_object_put(doc);
	assert_int_equal(bb_store_metrics(c->s, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(jget(doc, "runs_total")), ok);
	json_object_put(doc);
	/* and a second handle opens and reads it too */
	{
		struct bb_store *s2 = NULL;

		ret = bb_store_open(&s2, c->path, err, sizeof(err));
		assert_int_equal(ret, 0);
		assert_int_equal(bb_store_job_state(s2, job, st, err,
						    sizeof(err)), 0);
		assert_string_equal(st, "running");
		bb_store_close(s2);
	}
	/* space again (the tmpfs grown): the next commit makes the store
	 * healthy */
	assert_int_equal(mount(NULL, c->dir, NULL, MS_REMOUNT, "size=8m"), 0);
	assert_int_equal(bb_store_job_finish(c->s, job, BB_JOB_FAILED, NULL,
					     NULL, "disk full", err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), 0);
	free(result);
}

/* The database file deleted or replaced under an open handle: sqlite
 * goes on writing to the deleted inode; bb_store_check says so. */
static void deleted_file_is_reported(void **state)
{
	struct ctx *c = *state;
	char err[512] = "", wal[160], shm[160];
	struct bb_store *s2 = NULL;
	int64_t job;

	SQLITE_ONLY(c);

	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), 0);
	job = new_job(c->s, "nop");
	snprintf(wal, sizeof(wal), "%s-wal", c->path);
	snprintf(shm, sizeof(shm), "%s-shm", c->path);
	assert_int_equal(unlink(c->path), 0);
	unlink(wal);
	unlink(shm);
	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "was deleted"));
	assert_non_null(strstr(err, c->path));
	/* writes still "work" (into the deleted file): the check is what
	 * tells */
	expect_state(c->s, job, BB_JOB_QUEUED);
	/* another file in its place */
	assert_int_equal(bb_store_open(&s2, c->path, err, sizeof(err)), 0);
	assert_int_equal(bb_store_check(s2, err, sizeof(err)), 0);
	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), -ESTALE);
	assert_non_null(strstr(err, "was replaced"));
	bb_store_close(s2);
}

/* The queue limit is counted in the inserting transaction. */
static void queue_limit(void **state)
{
	struct ctx *c = *state;
	char err[256] = "";
	int64_t id, first = 0;

	for (int i = 0; i < 3; i++) {
		assert_int_equal(bb_store_job_submit(c->s, "q", "nop", "{}", 2,
						     3, &id, err, sizeof(err)),
				 0);
		if (!first)
			first = id;
	}
	assert_int_equal(bb_store_job_submit(c->s, "q", "nop", "{}", 2, 3, &id,
					     err, sizeof(err)), -EAGAIN);
	assert_non_null(strstr(err, "3 jobs are queued, the limit is 3"));
	/* no limit, or a job that left the queue: accepted */
	assert_int_equal(bb_store_job_submit(c->s, "q", "nop", "{}", 2, 0, &id,
					     err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_start(c->s, first, 0, 0, err,
					    sizeof(err)), 0);
	assert_int_equal(bb_store_job_submit(c->s, "q", "nop", "{}", 2, 4, &id,
					     err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_submit(c->s, "q", "nop", "{}", 2, 4, &id,
					     err, sizeof(err)), -EAGAIN);
}

/* ---- boot jobs (004_boots) ------------------------------------------- */

/* A database at schema version 3 with a job, its runs, an event, a knob
 * journal row and a noise floor: migration 004 rebuilds jobs for its
 * state CHECK and must keep every row (dropping the old table must not
 * cascade into runs), the ids and the AUTOINCREMENT counter. */
static void migration_004_keeps_data(void **state)
{
	struct ctx *c = *state;
	char path[160], err[256] = "", st[16];
	struct bb_store *s = NULL;
	struct raw *db;
	int64_t id = 0;

	SQLITE_ONLY(c);

	(void)c;
	snprintf(path, sizeof(path), "%s/v3.db", c->dir);
	db = raw_open(path);
	assert_int_equal(sqlite3_exec(db->sq, "PRAGMA foreign_keys=ON", NULL, NULL,
				      NULL), SQLITE_OK);
	for (int i = 0; i < 3; i++)
		assert_int_equal(sqlite3_exec(db->sq, bb_migrations[i].sql, NULL,
					      NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db->sq,
		"PRAGMA user_version = 3;"
		"INSERT INTO jobs (id, name, target, state, created_ms, spec)"
		" VALUES (7, 'old', 'nop', 'done', 1, '{}');"
		"INSERT INTO jobs (id, name, target, state, created_ms, spec)"
		" VALUES (9, 'gone', 'nop', 'done', 1, '{}');"
		"DELETE FROM jobs WHERE id = 9;"
		"INSERT INTO runs (job_id, seq, variant, state, metric)"
		" VALUES (7, 0, 'A', 'done', 5.0), (7, 1, 'B', 'done', 6.0);"
		"INSERT INTO events (ts_ms, job_id, level, message)"
		" VALUES (1, 7, 'info', 'done');"
		"INSERT INTO knob_journal (job_id, knob, path, original,"
		" created_ms) VALUES (7, 'nomerges', '/x', '0', 1);",
		NULL, NULL, NULL), SQLITE_OK);
	raw_close(db);

	assert_int_equal(bb_store_open(&s, path, err, sizeof(err)), 0);
	assert_int_equal(bb_store_schema_version(s), NEWEST);
	expect_state(s, 7, BB_JOB_DONE);
	/* a new job: the counter went on past the deleted 9 */
	assert_int_equal(bb_store_job_insert(s, "new", "nop", SPEC, 2, &id, err,
					     sizeof(err)), 0);
	assert_int_equal(id, 10);
	assert_int_equal(bb_store_job_state(s, 9, st, err, sizeof(err)),
			 -ENOENT);
	bb_store_close(s);

	db = raw_open(path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs WHERE job_id = 7", 0), 2);
	/* 005: the old runs count (not discarded) */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM runs WHERE job_id = 7"
				 " AND discarded IS NULL", 0), 2);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM events WHERE job_id = 7", 0), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM knob_journal WHERE job_id = 7", 0), 1);
	/* the children still point at "jobs", and the keys hold */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM pragma_foreign_key_check", 0), 0);
	assert_non_null(strstr(raw_text(db, "SELECT sql FROM sqlite_master WHERE name = 'runs'", 0),
			       "REFERENCES jobs "));
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				 "type = 'index' AND name = 'jobs_state_id'", 0), 1);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM sqlite_master WHERE "
				 "name = 'jobs_new'", 0), 0);
	raw_close(db);
}

/* running -> rebooting (with its progress and event) -> running ->
 * rebooting -> cancelled; a rebooting job survives the start's
 * interrupt-running recovery. */
static void boot_job_states(void **state)
{
	struct ctx *c = *state;
	struct bb_boot_progress p = { .boot = 1, .boots = 4, .variant = "B",
				      .boot_id_before = "id-1",
				      .deadline_ms = 1764477190123 };
	struct bb_boot_progress q;
	struct json_object *doc, *b;
	int64_t id = new_job(c->s, "nop"), other = new_job(c->s, "nop");
	int64_t *ids = NULL;
	char err[256] = "";
	unsigned n = 0;
	size_t nids = 0;

	/* only a running job reboots */
	assert_int_equal(bb_store_job_reboot(c->s, id, &p, err, sizeof(err)),
			 -EALREADY);
	assert_non_null(strstr(err, "is queued, not running"));
	assert_int_equal(bb_store_job_boot(c->s, id, &q, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(bb_store_job_start(c->s, id, 0, 0, err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_reboot(c->s, id, &p, err, sizeof(err)), 0);
	expect_state(c->s, id, BB_JOB_REBOOTING);
	assert_int_equal(bb_store_job_boot(c->s, id, &q, err, sizeof(err)), 0);
	assert_int_equal(q.boot, 1);
	assert_int_equal(q.boots, 4);
	assert_string_equal(q.variant, "B");
	assert_string_equal(q.boot_id_before, "id-1");
	assert_int_equal(q.deadline_ms, p.deadline_ms);
	assert_int_equal(bb_store_job_get(c->s, id, &doc, err, sizeof(err)), 0);
	b = jget(doc, "boot");
	assert_string_equal(json_object_get_string(jget(b, "text")),
			    "rebooting into B (boot 2 of 4)");
	assert_int_equal(json_object_get_int(jget(b, "boot")), 2);
	assert_true(is_iso_ms(jget(b, "deadline")));
	json_object_put(doc);
	/* the job without boots has "boot": null */
	assert_int_equal(bb_store_job_get(c->s, other, &doc, err, sizeof(err)), 0);
	assert_null(jget(doc, "boot"));
	json_object_put(doc);

	/* a start's recovery leaves it alone; it is listed */
	assert_int_equal(bb_store_jobs_interrupt_running(c->s, &n, err,
							 sizeof(err)), 0);
	assert_int_equal(n, 0);
	expect_state(c->s, id, BB_JOB_REBOOTING);
	assert_int_equal(bb_store_jobs_rebooting(c->s, &ids, &nids, err,
						 sizeof(err)), 0);
	assert_int_equal(nids, 1);
	assert_int_equal(ids[0], id);
	free(ids);
	/* the list's state filter knows it */
	assert_int_equal(bb_store_jobs_list(c->s, BB_JOB_REBOOTING, 10, 0, &doc,
					    err, sizeof(err)), 0);
	assert_int_equal(json_object_array_length(jget(doc, "jobs")), 1);
	json_object_put(doc);

	assert_int_equal(bb_store_job_resume(c->s, id, "boot 2 of 4 came up",
					     err, sizeof(err)), 0);
	expect_state(c->s, id, BB_JOB_RUNNING);
	assert_int_equal(bb_store_job_resume(c->s, id, NULL, err, sizeof(err)),
			 -EALREADY);
	p.boot = 2;
	p.variant[0] = 'A';
	assert_int_equal(bb_store_job_reboot(c->s, id, &p, err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_boot(c->s, id, &q, err, sizeof(err)), 0);
	assert_int_equal(q.boot, 2);
	assert_string_equal(q.variant, "A");
	/* cancelled between two boots */
	assert_int_equal(bb_store_job_finish(c->s, id, BB_JOB_CANCELLED, NULL,
					     NULL, "cancelled between two boots",
					     err, sizeof(err)), 0);
	expect_state(c->s, id, BB_JOB_CANCELLED);
	/* rebooting is not an end state */
	assert_int_equal(bb_store_job_finish(c->s, other, BB_JOB_REBOOTING,
					     NULL, NULL, NULL, err,
					     sizeof(err)), -EINVAL);
	assert_int_equal(bb_store_metrics(c->s, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(jget(jget(doc, "jobs_by_state"),
						  "rebooting")), 0);
	json_object_put(doc);
}

/* A boot job interrupted during boot 2 (round 1): its progress is stored
 * before the runs, the start's interrupt-running recovery leaves it
 * alone, and the redo marks only that boot's runs discarded (kept), with
 * runs_done recounted, the redone count raised and a warning event. */
static void boot_job_redo(void **state)
{
	struct ctx *c = *state;
	struct bb_boot_progress p = { .boot = 1, .boots = 4, .variant = "B",
				      .boot_id_before = "id-1" };
	struct bb_boot_progress q;
	struct json_object *doc, *runs;
	int64_t id = new_job(c->s, "nop"), plain = new_job(c->s, "nop");
	int64_t *ids = NULL;
	char err[256] = "";
	unsigned n = 0, nd = 0;
	size_t nids = 0;

	/* only a running job */
	assert_int_equal(bb_store_job_boot_begin(c->s, id, &p, err,
						 sizeof(err)), -EALREADY);
	assert_int_equal(bb_store_job_boot_redo(c->s, id, 1, "x", &nd, err,
						sizeof(err)), -EALREADY);
	assert_int_equal(bb_store_job_start(c->s, id, 0, 0, err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_start(c->s, plain, 0, 0, err,
					    sizeof(err)), 0);
	assert_int_equal(bb_store_job_boot_begin(c->s, id, &p, err,
						 sizeof(err)), 0);
	/* boot 1 (round 0) complete, boot 2 (round 1) one run of two */
	for (unsigned seq = 0; seq < 3; seq++)
		assert_int_equal(insert_run(c->s, id, seq, seq < 2 ? "A" : "B",
					    false, "done", NULL, NULL, 0, NULL),
				 0);
	assert_int_equal(bb_store_jobs_boot_running(c->s, &ids, &nids, err,
						    sizeof(err)), 0);
	assert_int_equal(nids, 1);
	assert_int_equal(ids[0], id);
	free(ids);
	/* the plain job is interrupted, the boot job is not */
	assert_int_equal(bb_store_jobs_interrupt_running(c->s, &n, err,
							 sizeof(err)), 0);
	assert_int_equal(n, 1);
	expect_state(c->s, plain, BB_JOB_INTERRUPTED);
	expect_state(c->s, id, BB_JOB_RUNNING);

	assert_int_equal(bb_store_job_boot_redo(c->s, id, 1, "boot 2 of 4 (B) "
						"was interrupted", &nd, err,
						sizeof(err)), 0);
	assert_int_equal(nd, 1);
	assert_int_equal(bb_store_job_boot(c->s, id, &q, err, sizeof(err)), 0);
	assert_int_equal(q.redone, 1);
	assert_int_equal(q.boot, 1);
	assert_int_equal(bb_store_job_runs(c->s, id, false, &doc, err,
					   sizeof(err)), 0);
	runs = jget(doc, "runs");
	assert_int_equal(json_object_array_length(runs), 3);
	assert_null(jget(json_object_array_get_idx(runs, 0), "discarded"));
	assert_null(jget(json_object_array_get_idx(runs, 1), "discarded"));
	assert_string_equal(json_object_get_string(jget(
				    json_object_array_get_idx(runs, 2),
				    "discarded")),
			    "boot 2 of 4 (B) was interrupted");
	json_object_put(doc);
	assert_int_equal(bb_store_job_get(c->s, id, &doc, err, sizeof(err)), 0);
	assert_int_equal(json_object_get_int(jget(doc, "runs_done")), 2);
	json_object_put(doc);
	/* a second redo of the same boot finds nothing new to discard */
	assert_int_equal(bb_store_job_boot_redo(c->s, id, 1, "again", &nd, err,
						sizeof(err)), 0);
	assert_int_equal(nd, 0);
	assert_int_equal(bb_store_job_boot(c->s, id, &q, err, sizeof(err)), 0);
	assert_int_equal(q.redone, 2);
	/* a new boot's progress keeps the redone count */
	p.boot = 2;
	p.variant[0] = 'A';
	assert_int_equal(bb_store_job_reboot(c->s, id, &p, err, sizeof(err)), 0);
	assert_int_equal(bb_store_job_boot(c->s, id, &q, err, sizeof(err)), 0);
	assert_int_equal(q.redone, 2);
	assert_int_equal(q.boot, 2);
}

/* ---- both backends: serialized writes ------------------------------- */

struct submitter {
	const char *path;
	unsigned ok, full;
	int other;
};

static void *submit_thread(void *arg)
{
	struct submitter *w = arg;
	struct bb_store *s = NULL;
	char err[256] = "";
	int64_t id;

	if (bb_store_open(&s, w->path, err, sizeof(err))) {
		w->other = -1;
		return NULL;
	}
	for (int i = 0; i < 30; i++) {
		int ret = bb_store_job_submit(s, "q", "nop", SPEC, 1, 25, &id,
					      err, sizeof(err));

		if (!ret)
			w->ok++;
		else if (ret == -EAGAIN)
			w->full++;
		else
			w->other = ret;
	}
	bb_store_close(s);
	return NULL;
}

/* The queue limit counts and inserts in one write transaction: four
 * handles submitting at once never queue more than the limit (without
 * serialized write transactions two would count 24 and both insert). */
static void queue_limit_holds_across_handles(void **state)
{
	struct ctx *c = *state;
	struct submitter w[4];
	pthread_t t[4];
	unsigned ok = 0, full = 0;
	struct raw *db;

	for (int i = 0; i < 4; i++) {
		w[i] = (struct submitter){ .path = c->path };
		assert_int_equal(pthread_create(&t[i], NULL, submit_thread,
						&w[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].other, 0);
		ok += w[i].ok;
		full += w[i].full;
	}
	assert_int_equal(ok, 25);
	assert_int_equal(full, 4 * 30 - 25);
	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM jobs WHERE state = "
				 "'queued'", 0), 25);
	raw_close(db);
}

/* ---- PostgreSQL only ------------------------------------------------ */

#define PG_ONLY(c) do { if (!(c)->pg) skip(); } while (0)

/* The backend itself: ?N outside literals, comments and quoted names
 * becomes $N; int64, doubles, text and NULL round-trip exactly. */
static void pg_backend_values(void **state)
{
	struct ctx *c = *state;
	const struct bb_store_backend *be = bb_store_backend_for(c->path);
	struct bb_be *conn = NULL;
	struct bb_be_stmt *st = NULL;
	char err[512] = "";
	const struct bb_val v[] = {
		bb_val_int(INT64_MAX - 1), bb_val_text("x?1'"),
		bb_val_double(0.1), bb_val_null(), bb_val_int(INT64_MIN),
		bb_val_double(-1e300),
	};

	PG_ONLY(c);
	assert_ptr_equal(be, &bb_store_postgres);
	assert_ptr_equal(bb_store_backend_for("/var/lib/x.db"),
			 &bb_store_sqlite);
	assert_int_equal(be->open(&conn, c->path, err, sizeof(err)), 0);
	assert_int_equal(be->prepare(conn,
		"SELECT ?1 AS \"?9\", 'a?1''?2' || ?2, ?3, ?4::bigint, ?5,"
		" ?6, E'\\'?7' /* ?8 */ -- ?9\n", 0, &st, "testing", err,
		sizeof(err)), 0);
	assert_int_equal(be->bind(st, v, bb_array_size(v), "testing", err,
				  sizeof(err)), 0);
	assert_int_equal(be->step(st, "testing", err, sizeof(err)), 1);
	assert_true(be->col_int(st, 0) == INT64_MAX - 1);
	assert_string_equal(be->col_text(st, 1), "a?1'?2x?1'");
	assert_true(be->col_double(st, 2) == 0.1);
	assert_true(be->is_null(st, 3));
	assert_true(be->col_int(st, 4) == INT64_MIN);
	assert_true(be->col_double(st, 5) == -1e300);
	assert_string_equal(be->col_text(st, 6), "'?7");
	assert_int_equal(be->step(st, "testing", err, sizeof(err)), 0);
	be->reset(st);
	/* more values than parameters: refused, as sqlite refuses them */
	assert_int_equal(be->bind(st, v, 7, "testing", err, sizeof(err)),
			 -EINVAL);
	be->finalize(st);
	/* a syntax error names what and the database */
	assert_int_equal(be->prepare(conn, "SELEC 1", 0, &st, "testing", err,
				     sizeof(err)), -EIO);
	assert_non_null(strstr(err, "testing"));
	assert_non_null(strstr(err, "bbtest"));
	be->close(conn);
}

/* A password in the connection string is refused, and not repeated. */
static void pg_password_refused(void **state)
{
	struct ctx *c = *state;
	struct bb_store *s = NULL;
	char where[600], err[512] = "";
	const char *at;

	PG_ONLY(c);
	at = strchr(c->path, '@');
	assert_non_null(at);
	snprintf(where, sizeof(where), "%.*s:s3cret%s", (int)(at - c->path),
		 c->path, at);
	assert_int_equal(bb_store_open(&s, where, err, sizeof(err)), -EINVAL);
	assert_null(s);
	assert_non_null(strstr(err, ".pgpass"));
	assert_null(strstr(err, "s3cret"));
	snprintf(where, sizeof(where), "%s&password=s3cret", c->path);
	err[0] = '\0';
	assert_int_equal(bb_store_open(&s, where, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "pg_service.conf"));
	assert_null(strstr(err, "s3cret"));
}

/* The schema version lives in bb_schema_version; a newer one is
 * refused before anything changes. */
static void pg_schema_version_table(void **state)
{
	struct ctx *c = *state;
	struct bb_store *s = NULL;
	char err[512] = "";
	struct raw *db;

	PG_ONLY(c);
	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT version FROM bb_schema_version",
				 0), (int)bb_array_size(bb_pg_migrations));
	assert_int_equal(raw_int(db, "SELECT count(*) FROM bb_schema_version",
				 0), 1);
	assert_int_equal(bb_store_schema_version(c->s),
			 (int)bb_array_size(bb_pg_migrations));
	PQclear(PQexec(db->pg, "UPDATE bb_schema_version SET version = 999"));
	assert_int_equal(bb_store_open(&s, c->path, err, sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "999"));
	assert_int_equal(raw_int(db, "SELECT version FROM bb_schema_version",
				 0), 999);
	/* the big integers of the schema: a ms time past 2^31 round-trips */
	assert_int_equal(raw_int(db, "SELECT count(*) FROM information_schema."
				 "columns WHERE table_schema = 'public' AND "
				 "data_type = 'integer' AND table_name <> "
				 "'bb_schema_version'", 0), 0);
	raw_close(db);
}

/* A unique key is -EEXIST, a foreign key -ENOENT, with the database's
 * name in the message but never a password. */
static void pg_constraint_errors(void **state)
{
	struct ctx *c = *state;
	char err[512] = "";
	struct bb_store_run run = {
		.job_id = 0, .variant = "A", .seq = 0, .state = "done",
		.metric = 1.0,
	};

	PG_ONLY(c);
	run.job_id = new_job(c->s, "nop");
	assert_int_equal(bb_store_run_insert(c->s, &run, NULL, err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_run_insert(c->s, &run, NULL, err,
					     sizeof(err)), -EEXIST);
	assert_non_null(strstr(err, "already has a run 0"));
	run.job_id = 99999;
	assert_int_equal(bb_store_run_insert(c->s, &run, NULL, err,
					     sizeof(err)), -ENOENT);
	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), 0);
}

/* The server stopped: -EIO, reported by check; started again: the next
 * operation reconnects, check is clean and nothing stored is lost. */
static void pg_connection_loss_recovers(void **state)
{
	struct ctx *c = *state;
	const char *stop = getenv("BB_TEST_PG_STOP");
	const char *start = getenv("BB_TEST_PG_START");
	struct bb_store *idle = NULL;
	char err[512] = "", st[16];
	int64_t id = new_job(c->s, "nop"), id2 = 0;
	int ret;

	PG_ONLY(c);
	if (!stop || !start)
		skip();
	/* idle across the restart: its connection is found closed before
	 * it is used */
	assert_int_equal(bb_store_open(&idle, c->path, err, sizeof(err)), 0);
	assert_int_equal(system(stop), 0);
	ret = bb_store_job_insert(c->s, "x", "nop", SPEC, 1, &id2, err,
				  sizeof(err));
	assert_int_equal(ret, -EIO);
	assert_non_null(strstr(err, "bbtest"));
	assert_int_equal(bb_store_check(c->s, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "connection"));
	assert_int_equal(system(start), 0);
	/* the first operation after the restart reconnects */
	ret = bb_store_job_state(c->s, id, st, err, sizeof(err));
	if (ret)
		fail_msg("after the restart: %d %s", ret, err);
	assert_string_equal(st, BB_JOB_QUEUED);
	/* reconnected: healthy again (a daemon would otherwise refuse
	 * submissions until a write it refuses succeeds) */
	ret = bb_store_check(c->s, err, sizeof(err));
	if (ret)
		fail_msg("check after the reconnection: %d %s", ret, err);
	assert_int_equal(bb_store_job_insert(c->s, "y", "nop", SPEC, 1, &id2,
					     err, sizeof(err)), 0);
	assert_true(id2 > id);
	expect_state(c->s, id2, BB_JOB_QUEUED);
	ret = bb_store_job_state(idle, id2, st, err, sizeof(err));
	if (ret)
		fail_msg("the idle handle after the restart: %d %s", ret, err);
	assert_int_equal(bb_store_check(idle, err, sizeof(err)), 0);
	bb_store_close(idle);
}

/* ---- a local knob journal (a PostgreSQL store's) -------------------- */

/* Member key of knob row i of the job document's "knobs" (a static copy,
 * "<null>" for null), and the number of rows in *n. */
static const char *job_knob(struct bb_store *s, int64_t job, size_t i,
			    const char *key, size_t *n)
{
	static char buf[256];
	struct json_object *knobs, *v;
	char err[512] = "";

	assert_int_equal(bb_store_job_knobs(s, job, &knobs, err, sizeof(err)),
			 0);
	*n = json_object_array_length(knobs);
	v = i < *n ? jget(json_object_array_get_idx(knobs, i), key) : NULL;
	snprintf(buf, sizeof(buf), "%s", v ? json_object_get_string(v)
					   : "<null>");
	json_object_put(knobs);
	return buf;
}

/* The count of rows of the local journal file (sqlite) for sql. */
static int64_t local_int(const char *file, const char *sql, int64_t a)
{
	struct raw *db = raw_open(file);
	int64_t v = raw_int(db, sql, a);

	raw_close(db);
	return v;
}

/* A handle with a journal of its own (on sqlite too: a second file):
 * the row goes to the local file first, its copy (host, local_id) into
 * the store's knob_journal for the job document; the recovery walk sees
 * the local rows only, never a row of the shared table (another host's
 * copy, or one journaled there directly); the copy follows the marks. */
static void knob_local_journal_and_copy(void **state)
{
	struct ctx *c = *state;
	struct bb_store *s = c->s;
	struct walk w = { 0 };
	char err[512] = "";
	struct raw *db;
	int64_t job, k1, k2;
	size_t n;

	if (!c->pg) {
		bb_store_close(c->s);
		c->s = NULL;
		assert_int_equal(bb_store_open_journal(&c->s, c->path, c->knobs,
						       err, sizeof(err)), 0);
		s = c->s;
	}
	assert_int_equal(bb_store_set_daemon(s, "lab-1", 60, err, sizeof(err)),
			 0);
	job = new_job(s, "/dev/vda");
	assert_int_equal(bb_store_knob_journal(s, job, "/dev/vda", "nomerges",
		"/sys/block/vda/queue/nomerges", "0", "2", NULL, &k1, err,
		sizeof(err)), 0);
	assert_int_equal(bb_store_knob_mark(s, k1, "applied", err,
					    sizeof(err)), 0);
	/* in the local file, with its store's name, copied */
	assert_int_equal(local_int(c->knobs, "SELECT count(*) FROM knob_journal"
				   " WHERE id = ?1 AND state = 'applied' AND"
				   " mirrored_rev = rev", k1), 1);
	db = raw_open(c->path);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM knob_journal WHERE"
				 " host = 'lab-1' AND local_id = ?1 AND"
				 " state = 'applied'", k1), 1);
	/* another host's copy, and a row journaled there directly: in the
	 * shared table, unrestored, never this handle's to restore */
	if (db->pg) {
		PQclear(PQexec(db->pg, "INSERT INTO knob_journal (job_id, knob,"
			" path, original, state, created_ms, host, local_id)"
			" VALUES (NULL, 'nomerges', '/sys/x', '1', 'applied', 1,"
			" 'lab-2', 1), (NULL, 'nomerges', '/sys/y', '1',"
			" 'pending', 1, NULL, NULL)"));
	} else {
		assert_int_equal(sqlite3_exec(db->sq, "INSERT INTO knob_journal"
			" (job_id, knob, path, original, state, created_ms, host,"
			" local_id) VALUES (NULL, 'nomerges', '/sys/x', '1',"
			" 'applied', 1, 'lab-2', 1), (NULL, 'nomerges', '/sys/y',"
			" '1', 'pending', 1, NULL, NULL)", NULL, NULL, NULL),
			SQLITE_OK);
	}
	assert_int_equal(raw_int(db, "SELECT count(*) FROM knob_journal WHERE"
				 " state <> 'restored'", 0), 3);
	w.s = s;
	assert_int_equal(bb_store_knobs_unrestored(s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 1);
	assert_int_equal(w.ids[0], k1);
	/* restored: the copy follows */
	w = (struct walk){ .s = s, .mark = true };
	assert_int_equal(bb_store_knobs_unrestored(s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM knob_journal WHERE"
				 " host = 'lab-1' AND local_id = ?1 AND"
				 " state = 'restored' AND restored_ms > 0", k1), 1);
	/* a second row: one copy each, never two of one row */
	assert_int_equal(bb_store_knob_journal(s, job, "/dev/vda", "iostats",
		"/sys/block/vda/queue/iostats", "1", "0", NULL, &k2, err,
		sizeof(err)), 0);
	assert_int_equal(bb_store_knob_unrestorable(s, k2, "gone", err,
						    sizeof(err)), 0);
	assert_int_equal(bb_store_knobs_mirror(s, err, sizeof(err)), 0);
	assert_int_equal(raw_int(db, "SELECT count(*) FROM knob_journal WHERE"
				 " host = 'lab-1'", 0), 2);
	assert_string_equal(raw_text(db, "SELECT not_restorable FROM"
				     " knob_journal WHERE host = 'lab-1' AND"
				     " local_id = ?1", k2), "gone");
	raw_close(db);
	/* the job document: the copies, as the store's own rows would be */
	assert_string_equal(job_knob(s, job, 0, "state", &n), "restored");
	assert_int_equal(n, 2);
	assert_string_equal(job_knob(s, job, 1, "not_restorable", &n), "gone");
}

/* A PostgreSQL handle without a local journal journals nothing and has
 * nothing to restore, whatever the shared table holds. */
static void knob_pg_without_journal(void **state)
{
	struct ctx *c = *state;
	struct bb_store *s = NULL;
	struct walk w = { 0 };
	char err[512] = "";
	int64_t job, k;

	PG_ONLY(c);
	job = new_job(c->s, "/dev/vda");
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda", "nomerges",
		"/sys/block/vda/queue/nomerges", "0", "2", NULL, &k, err,
		sizeof(err)), 0);
	assert_int_equal(bb_store_open(&s, c->path, err, sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(s, job, "/dev/vda", "nomerges",
		"/sys/block/vda/queue/nomerges", "0", "2", NULL, &k, err,
		sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "knob_journal"));
	w.s = s;
	assert_int_equal(bb_store_knobs_unrestored(s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 0);
	bb_store_close(s);
	/* a journal that is a PostgreSQL database is refused */
	assert_int_equal(bb_store_open_journal(&s, c->path, c->path, err,
					       sizeof(err)), 0);
	bb_store_close(s);  /* (the same string: the store's own, none) */
	assert_int_equal(bb_store_open_journal(&s, NULL, c->path, err,
					       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "local sqlite file"));
}

/* Offline: a journal-only handle (no store: the shared one unreachable)
 * marks and walks the local file (a recovery), journals no new row; the
 * next handle with the store copies what it missed when its daemon
 * registers. */
static void knob_local_offline_then_copied(void **state)
{
	struct ctx *c = *state;
	struct bb_store *j = NULL;
	struct walk w = { 0 };
	struct json_object *knobs;
	char err[512] = "";
	int64_t job, k1, k2;
	size_t n;

	bb_store_close(c->s);
	c->s = NULL;
	assert_int_equal(bb_store_open_journal(&c->s, c->path, c->knobs, err,
					       sizeof(err)), 0);
	assert_int_equal(bb_store_set_daemon(c->s, "lab-1", 60, err,
					     sizeof(err)), 0);
	job = new_job(c->s, "/dev/vda");
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"nomerges", "/sys/block/vda/queue/nomerges", "0", "2", NULL,
		&k1, err, sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"iostats", "/sys/block/vda/queue/iostats", "1", "0", NULL, &k2,
		err, sizeof(err)), 0);
	bb_store_close(c->s);
	c->s = NULL;

	assert_int_equal(bb_store_open_journal(&j, NULL, c->knobs, err,
					       sizeof(err)), 0);
	assert_int_equal(bb_store_knob_mark(j, k1, "applied", err,
					    sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(j, job, "/dev/vda", "x",
		"/sys/block/vda/queue/x", "1", "0", NULL, NULL, err,
		sizeof(err)), -ENOTCONN);
	w.s = j;
	w.mark = true;
	assert_int_equal(bb_store_knobs_unrestored(j, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(bb_store_event(j, job, "info", "x"), -ENOTCONN);
	assert_int_equal(bb_store_job_knobs(j, job, &knobs, err, sizeof(err)),
			 -ENOTCONN);
	assert_int_equal(local_int(c->knobs, "SELECT count(*) FROM knob_journal"
				   " WHERE mirrored_rev < rev", 0), 2);
	bb_store_close(j);

	/* the store again: the shared copy is behind until the daemon
	 * registers (or beats, or journals) */
	assert_int_equal(bb_store_open_journal(&c->s, c->path, c->knobs, err,
					       sizeof(err)), 0);
	assert_string_equal(job_knob(c->s, job, 0, "state", &n), "pending");
	assert_int_equal(n, 2);
	assert_int_equal(bb_store_set_daemon(c->s, "lab-1", 60, err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_daemon_register(c->s, NULL, NULL, "t", 1,
						  err, sizeof(err)), 0);
	for (size_t i = 0; i < 2; i++)
		assert_string_equal(job_knob(c->s, job, i, "state", &n),
				    "restored");
	assert_int_equal(n, 2);
	assert_int_equal(local_int(c->knobs, "SELECT count(*) FROM knob_journal"
				   " WHERE mirrored_rev < rev", 0), 0);
}

/* The journal is not the store's file: a store's database named as the
 * journal is refused, saying so. */
static void knob_local_not_the_store(void **state)
{
	struct ctx *c = *state;
	struct bb_store *s = NULL;
	char err[512] = "", other[160];

	SQLITE_ONLY(c);
	snprintf(other, sizeof(other), "%s/other.db", c->dir);
	assert_int_equal(bb_store_open(&s, other, err, sizeof(err)), 0);
	bb_store_close(s);
	assert_int_equal(bb_store_open_journal(&s, c->path, other, err,
					       sizeof(err)), -EPROTO);
	assert_non_null(strstr(err, "never the store's database"));
}

/* PostgreSQL stopped: the local journal takes every write (the knob is
 * restorable), the copy catches up at the first heartbeat after the
 * server is back. */
static void pg_knob_journal_without_server(void **state)
{
	struct ctx *c = *state;
	const char *stop = getenv("BB_TEST_PG_STOP");
	const char *start = getenv("BB_TEST_PG_START");
	struct walk w = { 0 };
	char err[512] = "";
	int64_t job, k1 = 0, k2 = 0;
	size_t n;
	int ret;

	PG_ONLY(c);
	if (!stop || !start)
		skip();
	assert_int_equal(bb_store_set_daemon(c->s, "lab-1", 60, err,
					     sizeof(err)), 0);
	assert_int_equal(bb_store_daemon_register(c->s, NULL, NULL, "t", 1,
						  err, sizeof(err)), 0);
	job = new_job(c->s, "/dev/vda");
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"nomerges", "/sys/block/vda/queue/nomerges", "0", "2", NULL,
		&k1, err, sizeof(err)), 0);
	assert_int_equal(system(stop), 0);
	assert_int_equal(bb_store_knob_mark(c->s, k1, "applied", err,
					    sizeof(err)), 0);
	assert_int_equal(bb_store_knob_journal(c->s, job, "/dev/vda",
		"iostats", "/sys/block/vda/queue/iostats", "1", "0", NULL, &k2,
		err, sizeof(err)), 0);
	w.s = c->s;
	assert_int_equal(bb_store_knobs_unrestored(c->s, walk_cb, &w, err,
						   sizeof(err)), 0);
	assert_int_equal(w.n, 2);
	assert_int_equal(bb_store_knob_mark(c->s, k2, "restored", err,
					    sizeof(err)), 0);
	assert_int_equal(system(start), 0);
	/* the first use reconnects; the heartbeat copies */
	ret = bb_store_daemon_heartbeat(c->s, 0, err, sizeof(err));
	if (ret)
		ret = bb_store_daemon_heartbeat(c->s, 0, err, sizeof(err));
	if (ret)
		fail_msg("heartbeat after the restart: %d %s", ret, err);
	assert_string_equal(job_knob(c->s, job, 0, "state", &n), "applied");
	assert_int_equal(n, 2);
	assert_string_equal(job_knob(c->s, job, 1, "state", &n), "restored");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(open_creates_schema),
		T(wal_mode_is_on),
		T(reopen_keeps_data_and_version),
		T(newer_database_is_refused),
		T(bad_files_are_refused),
		T(job_lifecycle_with_events),
		T(job_state_errors),
		T(interrupt_running_jobs),
		T(run_with_samples_and_histogram),
		T(repeated_sample_time_adds_up),
		T(foreign_keys_enforced),
		T(foreign_key_cascade),
		T(list_pagination),
		T(list_is_fast_with_10000_jobs),
		T(knob_journal),
		T(knob_local_journal_and_copy),
		T(knob_pg_without_journal),
		T(knob_local_offline_then_copied),
		T(knob_local_not_the_store),
		T(pg_knob_journal_without_server),
		T(host_and_device_dedup),
		T(metrics_counts),
		T(two_handles_write_concurrently),
		T(full_disk_is_enospc_and_reads_survive),
		T(deleted_file_is_reported),
		T(queue_limit),
		T(migration_004_keeps_data),
		T(boot_job_states),
		T(boot_job_redo),
		T(queue_limit_holds_across_handles),
		T(pg_backend_values),
		T(pg_password_refused),
		T(pg_schema_version_table),
		T(pg_constraint_errors),
		T(pg_connection_loss_recovers),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
