// SPDX-License-Identifier: GPL-2.0-only
/* store.c - biobenchd's sqlite store (see store.h).
 *
 * One sqlite connection per handle, opened in multi-thread mode (NOMUTEX)
 * and serialized by the handle's own mutex.  Statements are prepared once
 * (lazily) and cached in the handle; every value is bound.  Every cached
 * statement is reset when the handle is unlocked, so no statement keeps a
 * read snapshot open between calls (that would hold back WAL checkpoints).
 * Writes run in BEGIN IMMEDIATE transactions (the write lock is taken at
 * BEGIN, so a busy database waits busy_timeout there, not at COMMIT); job
 * state changes and knob journal writes run with synchronous=FULL, the
 * rest with NORMAL. */
#include "store.h"

#include "bb_migrations.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define BB_STORE_BUSY_MS 5000
/* a failed write counts against the store's health for this long unless
 * a commit succeeds after it */
#define BB_STORE_ERROR_MS 60000

enum bb_q {
	Q_JOB_INSERT,
	Q_EVENT_INSERT,
	Q_JOB_STATE,
	Q_JOB_NEXT_QUEUED,
	Q_JOB_START,
	Q_JOB_PROGRESS,
	Q_JOB_FINISH,
	Q_JOBS_RUNNING,
	Q_JOB_INTERRUPT,
	Q_RUN_INSERT,
	Q_SAMPLE_INSERT,
	Q_HIST_INSERT,
	Q_JOB_RUNS_DONE,
	Q_JOB_GET,
	Q_HOST_GET,
	Q_DEVICE_GET,
	Q_JOBS_LIST,
	Q_JOBS_LIST_STATE,
	Q_RUNS_OF_JOB,
	Q_SAMPLES_OF_RUN,
	Q_HOST_INSERT,
	Q_HOST_FIND,
	Q_DEVICE_INSERT,
	Q_DEVICE_FIND,
	Q_KNOB_INSERT,
	Q_KNOB_UNRESTORABLE,
	Q_KNOB_STATE,
	Q_KNOB_MARK,
	Q_KNOBS_UNRESTORED,
	Q_KNOBS_OF_JOB,
	Q_JOBS_BY_STATE,
	Q_RUNS_TOTAL,
	Q_JOBS_QUEUED,
	Q_JOBS_HISTORY,
	Q_NOISE_INSERT,
	Q_NOISE_GET,
	Q__COUNT
};

/* The columns of a job in lists (no spec, compare, host, device). */
#define JOB_COLS \
	"id, name, target, state, created_ms, started_ms, finished_ms, " \
	"runs_planned, runs_done, verdict, error"

static const char *const bb_q_sql[Q__COUNT] = {
	[Q_JOB_INSERT] =
		"INSERT INTO jobs (name, target, spec, state, created_ms,"
		" runs_planned) VALUES (coalesce(?1, ''), ?2, ?3, 'queued', ?4,"
		" ?5)",
	[Q_EVENT_INSERT] =
		"INSERT INTO events (ts_ms, job_id, level, message)"
		" VALUES (?1, ?2, ?3, ?4)",
	[Q_JOB_STATE] = "SELECT state FROM jobs WHERE id = ?1",
	[Q_JOB_NEXT_QUEUED] =
		"SELECT id, spec FROM jobs WHERE state = 'queued'"
		" ORDER BY id LIMIT 1",
	[Q_JOB_START] =
		"UPDATE jobs SET state = 'running', started_ms = ?2,"
		" host_id = ?3, device_id = ?4"
		" WHERE id = ?1 AND state = 'queued'",
	[Q_JOB_PROGRESS] =
		"UPDATE jobs SET runs_planned = ?2,"
		" compare = coalesce(?3, compare)"
		" WHERE id = ?1 AND state = 'running'",
	[Q_JOB_FINISH] =
		"UPDATE jobs SET state = ?2, finished_ms = ?3, verdict = ?4,"
		" compare = coalesce(?5, compare), error = ?6"
		" WHERE id = ?1 AND state IN ('queued', 'running')",
	[Q_JOBS_RUNNING] =
		"SELECT id FROM jobs WHERE state = 'running' ORDER BY id",
	[Q_JOB_INTERRUPT] =
		"UPDATE jobs SET state = 'interrupted', finished_ms = ?2,"
		" error = ?3 WHERE id = ?1 AND state = 'running'",
	[Q_RUN_INSERT] =
		"INSERT INTO runs (job_id, seq, round, variant, warmup, state,"
		" error, metric, iops, bw_bytes_s, lat_p50_ns, lat_p99_ns,"
		" cpu_per_io_ns, started_ms, duration_ns, device_id, result)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,"
		" ?13, ?14, ?15, ?16, ?17)",
	/* a repeated t_ms (should not happen) adds up instead of failing
	 * the whole run */
	[Q_SAMPLE_INSERT] =
		"INSERT INTO samples (run_id, t_ms, ios, bytes)"
		" VALUES (?1, ?2, ?3, ?4) ON CONFLICT (run_id, t_ms) DO UPDATE"
		" SET ios = ios + excluded.ios, bytes = bytes + excluded.bytes",
	[Q_HIST_INSERT] =
		"INSERT INTO lat_hist (run_id, bucket, count)"
		" VALUES (?1, ?2, ?3)",
	/* runs_done counts the runs that finished, not a failed or
	 * cancelled one */
	[Q_JOB_RUNS_DONE] =
		"UPDATE jobs SET runs_done = runs_done + 1"
		" WHERE id = ?1 AND ?2 = 'done'",
	[Q_JOB_GET] =
		"SELECT " JOB_COLS ", host_id, device_id, spec, compare"
		" FROM jobs WHERE id = ?1",
	[Q_HOST_GET] = "SELECT info FROM hosts WHERE id = ?1",
	[Q_DEVICE_GET] = "SELECT info FROM devices WHERE id = ?1",
	[Q_JOBS_LIST] =
		"SELECT " JOB_COLS ", compare FROM jobs WHERE id < ?1"
		" ORDER BY id DESC LIMIT ?2",
	[Q_JOBS_LIST_STATE] =
		"SELECT " JOB_COLS ", compare FROM jobs"
		" WHERE state = ?3 AND id < ?1 ORDER BY id DESC LIMIT ?2",
	[Q_RUNS_OF_JOB] =
		"SELECT id, seq, round, variant, warmup, state, error, metric,"
		" iops, bw_bytes_s, lat_p50_ns, lat_p99_ns, cpu_per_io_ns,"
		" started_ms, duration_ns, device_id, result"
		" FROM runs WHERE job_id = ?1 ORDER BY seq",
	[Q_SAMPLES_OF_RUN] =
		"SELECT t_ms, ios, bytes FROM samples WHERE run_id = ?1"
		" ORDER BY t_ms",
	[Q_HOST_INSERT] =
		"INSERT INTO hosts (hostname, kernel, kernel_version, machine,"
		" cmdline, cpu_model, cpus, memory_bytes, governor,"
		" first_seen_ms, info) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
		" ?8, ?9, ?10, ?11) ON CONFLICT (info) DO NOTHING",
	[Q_HOST_FIND] = "SELECT id FROM hosts WHERE info = ?1",
	[Q_DEVICE_INSERT] =
		"INSERT INTO devices (kind, path, name, model, serial,"
		" firmware, first_seen_ms, limits, info) VALUES (?1, ?2, ?3,"
		" ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (info) DO NOTHING",
	[Q_DEVICE_FIND] = "SELECT id FROM devices WHERE info = ?1",
	[Q_KNOB_INSERT] =
		"INSERT INTO knob_journal (job_id, target, knob, path,"
		" original, applied, state, created_ms, dev_major, dev_minor,"
		" dev_name, dev_ident)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?8, ?9, ?10,"
		" ?11)",
	[Q_KNOB_UNRESTORABLE] =
		"UPDATE knob_journal SET not_restorable = ?2 WHERE id = ?1",
	[Q_KNOB_STATE] = "SELECT state FROM knob_journal WHERE id = ?1",
	[Q_KNOB_MARK] =
		"UPDATE knob_journal SET state = ?2, restored_ms ="
		" CASE WHEN ?2 = 'restored' THEN ?3 ELSE restored_ms END"
		" WHERE id = ?1",
	[Q_KNOBS_UNRESTORED] =
		"SELECT id, job_id, target, knob, path, original, applied,"
		" state, dev_major, dev_minor, dev_name, dev_ident"
		" FROM knob_journal WHERE state <> 'restored'"
		" AND not_restorable IS NULL ORDER BY id",
	[Q_KNOBS_OF_JOB] =
		"SELECT id, target, knob, path, original, applied, state,"
		" created_ms, restored_ms, dev_name, dev_ident, not_restorable"
		" FROM knob_journal WHERE job_id = ?1 ORDER BY id",
	[Q_JOBS_BY_STATE] = "SELECT state, count(*) FROM jobs GROUP BY state",
	[Q_RUNS_TOTAL] = "SELECT count(*) FROM runs",
	[Q_JOBS_QUEUED] = "SELECT count(*) FROM jobs WHERE state = 'queued'",
	[Q_JOBS_HISTORY] =
		"SELECT " JOB_COLS ", host_id, device_id, compare FROM jobs"
		" WHERE name = ?1 AND state = 'done'"
		" AND (?2 IS NULL OR target = ?2)"
		" ORDER BY id DESC LIMIT ?3",
	[Q_NOISE_INSERT] =
		"INSERT INTO host_noise (host_id, job_id, target, metric, pairs,"
		" log_sd, ci_half, created_ms)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[Q_NOISE_GET] =
		"SELECT job_id, pairs, log_sd, ci_half, created_ms FROM host_noise"
		" WHERE host_id = ?1 AND target = ?2 AND metric = ?3"
		" ORDER BY id DESC LIMIT 1",
};

struct bb_store {
	sqlite3 *db;
	pthread_mutex_t lock;
	int version;
	bool durable_tx;          /* synchronous=FULL for this transaction */
	sqlite3_stmt *q[Q__COUNT];
	char path[PATH_MAX];
	/* health (bb_store_check), under hlock: the file opened (when not
	 * ":memory:"), the last write error and the last good commit */
	bool file;
	dev_t dev;
	ino_t ino;
	pthread_mutex_t hlock;
	int werr;
	int64_t werr_ms;
	uint64_t werr_seq, wok_seq, seq; /* which came last */
	char wmsg[512];
};

static const char *const bb_job_states[] = {
	BB_JOB_QUEUED, BB_JOB_RUNNING, BB_JOB_DONE,
	BB_JOB_FAILED, BB_JOB_CANCELLED, BB_JOB_INTERRUPTED,
};

bool bb_store_state_ok(const char *s)
{
	if (!s)
		return false;
	for (size_t i = 0; i < bb_array_size(bb_job_states); i++)
		if (!strcmp(s, bb_job_states[i]))
			return true;
	return false;
}

/* ---- small helpers -------------------------------------------------- */

static void __attribute__((format(printf, 3, 4)))
bb_store_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	/* one line */
	for (char *p = err; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

static int64_t bb_store_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Map a sqlite result code (extended) to -errno, with the message.  what
 * says what was being done. */
static int bb_store_map(struct bb_store *s, int rc, char *err, size_t errlen,
			const char *what)
{
	const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
	int sys = s->db ? sqlite3_system_errno(s->db) : 0;

	switch (rc & 0xff) {
	case SQLITE_FULL:
		bb_store_seterr(err, errlen,
				"database or disk is full: %s (%s)", s->path,
				what);
		return -ENOSPC;
	case SQLITE_IOERR:
		if (sys == ENOSPC || sys == EDQUOT) {
			bb_store_seterr(err, errlen,
					"database or disk is full: %s (%s)",
					s->path, what);
			return -ENOSPC;
		}
		bb_store_seterr(err, errlen, "I/O error on database %s (%s): %s%s%s",
				s->path, what, msg, sys ? ": " : "",
				sys ? strerror(sys) : "");
		return -EIO;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		bb_store_seterr(err, errlen,
				"database is locked: %s (%s), waited %d ms",
				s->path, what, BB_STORE_BUSY_MS);
		return -EBUSY;
	case SQLITE_CANTOPEN:
		if (sys != ENOENT && sys != ENOTDIR)
			sys = sys == EACCES || sys == EPERM || sys == EROFS ||
			      !sys ? EACCES : sys;
		else
			sys = ENOENT;
		bb_store_seterr(err, errlen, "cannot open database %s: %s",
				s->path, strerror(sys));
		return -sys;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		bb_store_seterr(err, errlen,
				"%s is not a database or is corrupt (%s): %s",
				s->path, what, msg);
		return -EIO;
	case SQLITE_READONLY:
		bb_store_seterr(err, errlen, "database %s is read-only (%s)",
				s->path, what);
		return -EROFS;
	case SQLITE_NOMEM:
		bb_store_seterr(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	case SQLITE_TOOBIG:
		bb_store_seterr(err, errlen, "%s: %s", what, msg);
		return -E2BIG;
	case SQLITE_CONSTRAINT:
		bb_store_seterr(err, errlen, "%s: %s", what, msg);
		switch (rc) {
		case SQLITE_CONSTRAINT_FOREIGNKEY:
			return -ENOENT;
		case SQLITE_CONSTRAINT_UNIQUE:
		case SQLITE_CONSTRAINT_PRIMARYKEY:
			return -EEXIST;
		default:
			return -EINVAL;
		}
	default:
		bb_store_seterr(err, errlen, "%s: %s (%s)", what, msg, s->path);
		return -EIO;
	}
}

/* bb_store_map, and the store's health: a full disk, an I/O error, a
 * read-only file are remembered for bb_store_check. */
static int __attribute__((format(printf, 5, 6)))
bb_store_fail(struct bb_store *s, int rc, char *err, size_t errlen,
	      const char *fmt, ...)
{
	char what[256], msg[768];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ret = bb_store_map(s, rc, msg, sizeof(msg), what);
	bb_store_seterr(err, errlen, "%s", msg);
	if (ret == -ENOSPC || ret == -EIO || ret == -EROFS) {
		pthread_mutex_lock(&s->hlock);
		s->werr = ret;
		s->werr_ms = bb_store_now_ms();
		s->werr_seq = ++s->seq;
		snprintf(s->wmsg, sizeof(s->wmsg), "%s", msg);
		pthread_mutex_unlock(&s->hlock);
	}
	return ret;
}

int bb_store_check(struct bb_store *s, char *err, size_t errlen)
{
	struct stat st;
	int64_t now = bb_store_now_ms();
	int ret = 0;

	if (s->file) {
		if (stat(s->path, &st)) {
			bb_store_seterr(err, errlen,
					"database file %s was deleted while "
					"the daemon ran: what is written now is "
					"lost when it stops (%s)", s->path,
					strerror(errno));
			return -ENOENT;
		}
		if (st.st_dev != s->dev || st.st_ino != s->ino) {
			bb_store_seterr(err, errlen,
					"database file %s was replaced while "
					"the daemon ran: it still writes to the "
					"old, deleted one", s->path);
			return -ESTALE;
		}
	}
	pthread_mutex_lock(&s->hlock);
	if (s->werr && s->werr_seq > s->wok_seq &&
	    now - s->werr_ms < BB_STORE_ERROR_MS) {
		ret = s->werr;
		bb_store_seterr(err, errlen, "%s", s->wmsg);
	}
	pthread_mutex_unlock(&s->hlock);
	return ret;
}

static void bb_store_lock(struct bb_store *s)
{
	pthread_mutex_lock(&s->lock);
}

/* Reset every cached statement (ends their read snapshots) and unlock. */
static void bb_store_unlock(struct bb_store *s)
{
	for (int i = 0; i < Q__COUNT; i++) {
		if (s->q[i]) {
			sqlite3_reset(s->q[i]);
			sqlite3_clear_bindings(s->q[i]);
		}
	}
	pthread_mutex_unlock(&s->lock);
}

/* The cached statement q, reset, bindings cleared. */
static int bb_store_q(struct bb_store *s, enum bb_q q, sqlite3_stmt **st,
		      char *err, size_t errlen)
{
	int rc;

	if (!s->q[q]) {
		rc = sqlite3_prepare_v3(s->db, bb_q_sql[q], -1,
					SQLITE_PREPARE_PERSISTENT, &s->q[q],
					NULL);
		if (rc != SQLITE_OK) {
			s->q[q] = NULL;
			return bb_store_fail(s, rc, err, errlen,
					     "preparing statement %d", (int)q);
		}
	} else {
		sqlite3_reset(s->q[q]);
		sqlite3_clear_bindings(s->q[q]);
	}
	*st = s->q[q];
	return 0;
}

/* Bind parameters 1.. of st from fmt: 'i' int64_t, 'u' unsigned, 'I' an
 * id (int64_t, <= 0 binds NULL), 't' text (NULL binds NULL), 'd' double,
 * 'n' NULL (no argument).  Text is bound SQLITE_STATIC: it must live until
 * the statement is reset (bb_store_unlock). */
static int bb_store_bind(sqlite3_stmt *st, const char *fmt, ...)
{
	va_list ap;
	int rc = SQLITE_OK, i = 1;

	va_start(ap, fmt);
	for (const char *f = fmt; *f && rc == SQLITE_OK; f++, i++) {
		switch (*f) {
		case 'i':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t));
			break;
		case 'u':
			rc = sqlite3_bind_int64(st, i, va_arg(ap, unsigned));
			break;
		case 'I': {
			int64_t v = va_arg(ap, int64_t);

			rc = v > 0 ? sqlite3_bind_int64(st, i, v)
				   : sqlite3_bind_null(st, i);
			break;
		}
		case 't': {
			const char *v = va_arg(ap, const char *);

			rc = v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC)
			       : sqlite3_bind_null(st, i);
			break;
		}
		case 'd':
			rc = sqlite3_bind_double(st, i, va_arg(ap, double));
			break;
		default:
			rc = sqlite3_bind_null(st, i);
			break;
		}
	}
	va_end(ap);
	return rc;
}

/* Step a statement that returns no row. */
static int bb_store_step_done(struct bb_store *s, sqlite3_stmt *st,
			      int bind_rc, char *err, size_t errlen,
			      const char *what)
{
	int rc = bind_rc != SQLITE_OK ? bind_rc : sqlite3_step(st);

	if (rc == SQLITE_DONE || rc == SQLITE_ROW)
		return 0;
	return bb_store_fail(s, rc, err, errlen, "%s", what);
}

/* Step st after a bind (rc: the bind's result, then the step's): whether
 * a row is there.  Loops end with rc SQLITE_DONE or an error. */
static bool bb_store_next(sqlite3_stmt *st, int *rc)
{
	if (*rc != SQLITE_OK && *rc != SQLITE_ROW)
		return false;
	*rc = sqlite3_step(st);
	return *rc == SQLITE_ROW;
}

static int bb_store_exec(struct bb_store *s, const char *sql, char *err,
			 size_t errlen)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return bb_store_fail(s, rc, err, errlen, "%s", sql);
	return 0;
}

/* Roll back the open transaction, if any (sqlite may already have rolled
 * it back itself, e.g. after SQLITE_FULL). */
static void bb_store_rollback(struct bb_store *s)
{
	for (int i = 0; i < Q__COUNT; i++)
		if (s->q[i])
			sqlite3_reset(s->q[i]);
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	if (s->durable_tx) {
		sqlite3_exec(s->db, "PRAGMA synchronous=NORMAL", NULL, NULL,
			     NULL);
		s->durable_tx = false;
	}
}

/* BEGIN IMMEDIATE; durable: with synchronous=FULL (job state, journal). */
static int bb_store_begin(struct bb_store *s, bool durable, char *err,
			  size_t errlen)
{
	int ret;

	if (durable) {
		ret = bb_store_exec(s, "PRAGMA synchronous=FULL", err, errlen);
		if (ret)
			return ret;
		s->durable_tx = true;
	}
	ret = bb_store_exec(s, "BEGIN IMMEDIATE", err, errlen);
	if (ret)
		bb_store_rollback(s);
	return ret;
}

/* COMMIT (rolls back on failure). */
static int bb_store_commit(struct bb_store *s, char *err, size_t errlen)
{
	int ret;

	for (int i = 0; i < Q__COUNT; i++)
		if (s->q[i])
			sqlite3_reset(s->q[i]);
	ret = bb_store_exec(s, "COMMIT", err, errlen);
	bb_store_rollback(s);   /* no-op after a commit; restores NORMAL */
	if (!ret) {
		pthread_mutex_lock(&s->hlock);
		s->wok_seq = ++s->seq;
		pthread_mutex_unlock(&s->hlock);
	}
	return ret;
}

/* A read transaction: one snapshot for a document built from several
 * queries.  Ended by bb_store_rollback (nothing to commit). */
static int bb_store_begin_read(struct bb_store *s, char *err, size_t errlen)
{
	return bb_store_exec(s, "BEGIN", err, errlen);
}

/* ---- JSON helpers --------------------------------------------------- */

static int bb_store_keycmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of o with object keys sorted, recursively (leaves shared). */
static struct json_object *bb_store_canon(struct json_object *o)
{
	struct json_object *c;

	switch (json_object_get_type(o)) {
	case json_type_object: {
		size_t n = (size_t)json_object_object_length(o), i = 0;
		const char **keys = calloc(n ? n : 1, sizeof(*keys));

		c = json_object_new_object();
		if (!keys || !c) {
			free(keys);
			json_object_put(c);
			return NULL;
		}
		json_object_object_foreach(o, k, v) {
			(void)v;
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(*keys), bb_store_keycmp);
		for (i = 0; i < n; i++)
			json_object_object_add(c, keys[i],
				bb_store_canon(json_object_object_get(o, keys[i])));
		free(keys);
		return c;
	}
	case json_type_array: {
		size_t n = json_object_array_length(o);

		c = json_object_new_array_ext((int)n);
		if (!c)
			return NULL;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(c,
				bb_store_canon(json_object_array_get_idx(o, i)));
		return c;
	}
	default:
		return json_object_get(o);
	}
}

#define BB_JSON_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

static const char *bb_store_jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static bool bb_store_jnum(struct json_object *o, const char *key, double *d)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) ||
	      json_object_is_type(v, json_type_double)))
		return false;
	*d = json_object_get_double(v);
	return true;
}

/* Bind an integer member of o, NULL when absent or not a number. */
static int bb_store_bind_jint(sqlite3_stmt *st, int i, struct json_object *o,
			      const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_int64(st, i, json_object_get_int64(v));
}

/* Whether text is one JSON value; *obj gets it (NULL for "null") when
 * obj is not NULL. */
static bool bb_store_json_parse(const char *text, struct json_object **obj)
{
	enum json_tokener_error e = json_tokener_success;
	struct json_object *o = json_tokener_parse_verbose(text, &e);

	if (e != json_tokener_success)
		return false;
	if (obj)
		*obj = o;
	else
		json_object_put(o);
	return true;
}

/* ISO 8601 UTC with milliseconds, e.g. "2026-11-30T04:33:10.123Z". */
static struct json_object *bb_store_time_json(int64_t ms)
{
	char buf[48];
	struct tm tm;
	time_t t = (time_t)(ms / 1000);
	int rem = (int)(ms % 1000);
	size_t n;

	if (rem < 0) {
		rem += 1000;
		t--;
	}
	if (!gmtime_r(&t, &tm))
		return NULL;
	n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03dZ", rem);
	return json_object_new_string(buf);
}

static struct json_object *bb_store_col_time(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	return bb_store_time_json(sqlite3_column_int64(st, c));
}

static struct json_object *bb_store_col_text(sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);

	return t ? json_object_new_string(t) : NULL;
}

static struct json_object *bb_store_col_int(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	return json_object_new_int64(sqlite3_column_int64(st, c));
}

static struct json_object *bb_store_col_double(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	return json_object_new_double(sqlite3_column_double(st, c));
}

/* A stored JSON text parsed back (a string if it no longer parses). */
static struct json_object *bb_store_col_json(sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);
	struct json_object *o = NULL;

	if (!t)
		return NULL;
	if (!bb_store_json_parse(t, &o))
		return json_object_new_string(t);
	return o;
}

/* ---- open, migrations ----------------------------------------------- */

static int bb_store_user_version(struct bb_store *s, int *v, char *err,
				 size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the schema version");
		goto out;
	}
	*v = sqlite3_column_int(st, 0);
out:
	sqlite3_finalize(st);
	return ret;
}

static int bb_store_newer(struct bb_store *s, int v, char *err,
			  size_t errlen)
{
	int newest = (int)bb_array_size(bb_migrations);

	bb_store_seterr(err, errlen,
			"database %s has schema version %d, newer than this "
			"biobenchd (%d): use a newer biobenchd or another "
			"database", s->path, v, newest);
	return -EPROTO;
}

static int bb_store_migrate(struct bb_store *s, char *err, size_t errlen)
{
	int newest = (int)bb_array_size(bb_migrations), v = 0, ret = 0;
	char sql[64];

	for (int i = 0; i < newest; i++) {
		if (bb_migrations[i].version != i + 1) {
			bb_store_seterr(err, errlen,
					"migration %s has number %d, expected %d: "
					"migrations must be numbered without gaps",
					bb_migrations[i].name,
					bb_migrations[i].version, i + 1);
			return -EPROTO;
		}
	}
	/* One migration per transaction; the version is read again inside
	 * it, so two handles opening at once do not both apply it. */
	for (;;) {
		ret = bb_store_begin(s, true, err, errlen);
		if (ret)
			return ret;
		ret = bb_store_user_version(s, &v, err, errlen);
		if (ret)
			goto out;
		if (v > newest) {
			ret = bb_store_newer(s, v, err, errlen);
			goto out;
		}
		if (v == newest || v < 0)
			break;
		ret = bb_store_exec(s, bb_migrations[v].sql, err, errlen);
		if (ret) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", err ? err : "");
			bb_store_seterr(err, errlen, "migration %s: %s",
					bb_migrations[v].name, msg);
			goto out;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			 bb_migrations[v].version);
		ret = bb_store_exec(s, sql, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_commit(s, err, errlen);
		if (ret)
			return ret;
	}
	if (v < 0) {
		bb_store_seterr(err, errlen,
				"database %s has a negative schema version %d",
				s->path, v);
		ret = -EPROTO;
		goto out;
	}
	s->version = v;
	return bb_store_commit(s, err, errlen);
out:
	bb_store_rollback(s);
	return ret;
}

static int bb_store_pragmas(struct bb_store *s, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA journal_mode=WAL", -1, &st,
				NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = bb_store_fail(s, rc, err, errlen, "enabling WAL mode");
		goto out;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	if (!mode || strcasecmp(mode, "wal")) {
		bb_store_seterr(err, errlen,
				"cannot use WAL mode on %s (journal mode stays "
				"%s): put the database on a local filesystem",
				s->path, mode ? mode : "unknown");
		ret = -ENOTSUP;
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	ret = bb_store_exec(s, "PRAGMA foreign_keys=ON", err, errlen);
	if (ret)
		goto out;
	ret = bb_store_exec(s, "PRAGMA synchronous=NORMAL", err, errlen);
	if (ret)
		goto out;
	rc = sqlite3_prepare_v2(s->db, "PRAGMA foreign_keys", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW || sqlite3_column_int(st, 0) != 1) {
		bb_store_seterr(err, errlen,
				"this sqlite cannot enforce foreign keys");
		ret = -ENOTSUP;
	}
out:
	sqlite3_finalize(st);
	return ret;
}

int bb_store_open(struct bb_store **out, const char *path, char *err,
		  size_t errlen)
{
	struct bb_store *s = NULL;
	int rc, ret, v = 0;

	*out = NULL;
	if (!path || !*path) {
		bb_store_seterr(err, errlen, "no database path");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_mutex_init(&s->hlock, NULL);
	if ((size_t)snprintf(s->path, sizeof(s->path), "%s", path) >=
	    sizeof(s->path)) {
		bb_store_seterr(err, errlen, "database path too long: %s",
				path);
		ret = -ENAMETOOLONG;
		goto out;
	}
	rc = sqlite3_open_v2(path, &s->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		ret = bb_store_fail(s, rc, err, errlen, "opening");
		goto out;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, BB_STORE_BUSY_MS);
	/* the first read of the file: not a database -> -EIO; and a newer
	 * schema is refused before anything is changed */
	ret = bb_store_user_version(s, &v, err, errlen);
	if (ret)
		goto out;
	if (v > (int)bb_array_size(bb_migrations)) {
		ret = bb_store_newer(s, v, err, errlen);
		goto out;
	}
	ret = bb_store_pragmas(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_migrate(s, err, errlen);
	if (ret)
		goto out;
	if (strcmp(path, ":memory:") && strncmp(path, "file:", 5)) {
		struct stat st;

		if (!stat(path, &st)) {
			s->file = true;
			s->dev = st.st_dev;
			s->ino = st.st_ino;
		}
	}
	*out = s;
	s = NULL;
out:
	bb_store_close(s);
	return ret;
}

void bb_store_close(struct bb_store *s)
{
	if (!s)
		return;
	for (int i = 0; i < Q__COUNT; i++)
		sqlite3_finalize(s->q[i]);
	/* the last connection to close checkpoints and removes the WAL */
	sqlite3_close(s->db);
	pthread_mutex_destroy(&s->lock);
	pthread_mutex_destroy(&s->hlock);
	free(s);
}

int bb_store_schema_version(struct bb_store *s)
{
	return s->version;
}

/* ---- events --------------------------------------------------------- */

static bool bb_store_level_ok(const char *l)
{
	return l && (!strcmp(l, "info") || !strcmp(l, "warning") ||
		     !strcmp(l, "error"));
}

/* Insert an event (locked, inside or outside a transaction). */
static int bb_store_event_locked(struct bb_store *s, int64_t job_id,
				 const char *level, const char *msg,
				 char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret;

	ret = bb_store_q(s, Q_EVENT_INSERT, &st, err, errlen);
	if (ret)
		return ret;
	return bb_store_step_done(s, st,
				  bb_store_bind(st, "iItt", bb_store_now_ms(),
						job_id, level, msg ? msg : ""),
				  err, errlen, "storing an event");
}

int bb_store_event(struct bb_store *s, int64_t job_id, const char *level,
		   const char *msg)
{
	int ret;

	if (!bb_store_level_ok(level))
		return -EINVAL;
	bb_store_lock(s);
	ret = bb_store_event_locked(s, job_id, level, msg, NULL, 0);
	bb_store_unlock(s);
	return ret;
}

/* ---- hosts and devices ---------------------------------------------- */

/* The canonical JSON text of o (keys sorted), in *canon's storage. */
static int bb_store_canon_text(struct json_object *o,
			       struct json_object **canon, const char **text,
			       char *err, size_t errlen)
{
	if (!o || !json_object_is_type(o, json_type_object)) {
		bb_store_seterr(err, errlen, "metadata must be a JSON object");
		return -EINVAL;
	}
	*canon = bb_store_canon(o);
	*text = *canon ? json_object_to_json_string_ext(*canon, BB_JSON_PLAIN)
		       : NULL;
	if (!*text) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int bb_store_find_id(struct bb_store *s, enum bb_q q,
			    const char *text, int64_t *id, char *err,
			    size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret, rc;

	ret = bb_store_q(s, q, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "t", text);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				     err, errlen, "finding metadata");
	*id = sqlite3_column_int64(st, 0);
	return 0;
}

int bb_store_host_upsert(struct bb_store *s, struct json_object *host,
			 int64_t *id, char *err, size_t errlen)
{
	struct json_object *canon = NULL;
	const char *text;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	ret = bb_store_canon_text(host, &canon, &text, err, errlen);
	if (ret)
		goto out_put;
	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_HOST_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "tttttt", bb_store_jstr(host, "hostname"),
			   bb_store_jstr(host, "kernel"),
			   bb_store_jstr(host, "kernel_version"),
			   bb_store_jstr(host, "machine"),
			   bb_store_jstr(host, "cmdline"),
			   bb_store_jstr(host, "cpu_model"));
	if (rc == SQLITE_OK)
		rc = bb_store_bind_jint(st, 7, host, "cpus");
	if (rc == SQLITE_OK)
		rc = bb_store_bind_jint(st, 8, host, "memory_bytes");
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 9, bb_store_jstr(host, "governor"),
				       -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 10, bb_store_now_ms());
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 11, text, -1, SQLITE_STATIC);
	ret = bb_store_step_done(s, st, rc, err, errlen, "storing the host");
	if (ret)
		goto out;
	ret = bb_store_find_id(s, Q_HOST_FIND, text, id, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
out_put:
	json_object_put(canon);
	return ret;
}

int bb_store_device_upsert(struct bb_store *s, struct json_object *dev,
			   int64_t *id, char *err, size_t errlen)
{
	struct json_object *canon = NULL, *sub = NULL, *lim = NULL;
	const char *text, *path, *limits = NULL;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	ret = bb_store_canon_text(dev, &canon, &text, err, errlen);
	if (ret)
		goto out_put;
	/* bb_target_device_info: {"kind","path","device": {..} | null};
	 * a bare bb_device_info object is its own device */
	if (json_object_object_get_ex(dev, "device", &sub)) {
		if (!json_object_is_type(sub, json_type_object))
			sub = NULL;
	} else {
		sub = dev;
	}
	path = bb_store_jstr(dev, "path");
	if (!path)
		path = bb_store_jstr(sub, "path");
	if (sub && json_object_object_get_ex(sub, "limits", &lim) &&
	    json_object_is_type(lim, json_type_object))
		limits = json_object_to_json_string_ext(lim, BB_JSON_PLAIN);
	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_DEVICE_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "ttttttitt", bb_store_jstr(dev, "kind"), path,
			   bb_store_jstr(sub, "name"),
			   bb_store_jstr(sub, "model"),
			   bb_store_jstr(sub, "serial"),
			   bb_store_jstr(sub, "firmware"), bb_store_now_ms(),
			   limits, text);
	ret = bb_store_step_done(s, st, rc, err, errlen,
				 "storing the device");
	if (ret)
		goto out;
	ret = bb_store_find_id(s, Q_DEVICE_FIND, text, id, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
out_put:
	json_object_put(canon);
	return ret;
}

/* ---- jobs ----------------------------------------------------------- */

/* The state of job id into state[16]; -ENOENT. */
static int bb_store_state_locked(struct bb_store *s, int64_t id,
				 char *state, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *t;
	int ret, rc;

	ret = bb_store_q(s, Q_JOB_STATE, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "i", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		bb_store_seterr(err, errlen, "no job %lld", (long long)id);
		return -ENOENT;
	}
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc, err, errlen, "reading job %lld",
				     (long long)id);
	t = (const char *)sqlite3_column_text(st, 0);
	snprintf(state, 16, "%s", t ? t : "");
	return 0;
}

int bb_store_job_state(struct bb_store *s, int64_t id, char *state,
		       char *err, size_t errlen)
{
	int ret;

	bb_store_lock(s);
	ret = bb_store_state_locked(s, id, state, err, errlen);
	bb_store_unlock(s);
	return ret;
}

int bb_store_job_insert(struct bb_store *s, const char *name,
			const char *target, const char *spec,
			unsigned runs_planned, int64_t *id, char *err,
			size_t errlen)
{
	return bb_store_job_submit(s, name, target, spec, runs_planned, 0, id,
				   err, errlen);
}

int bb_store_job_submit(struct bb_store *s, const char *name,
			const char *target, const char *spec,
			unsigned runs_planned, unsigned max_queued,
			int64_t *id, char *err, size_t errlen)
{
	struct json_object *o = NULL;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	if (!target || !spec) {
		bb_store_seterr(err, errlen, "a job needs a target and a spec");
		return -EINVAL;
	}
	if (!bb_store_json_parse(spec, &o) ||
	    !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		bb_store_seterr(err, errlen, "job spec is not a JSON object");
		return -EINVAL;
	}
	json_object_put(o);
	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	/* counted in the transaction that inserts: never above the limit */
	if (max_queued) {
		int64_t n = 0;

		ret = bb_store_q(s, Q_JOBS_QUEUED, &st, err, errlen);
		if (ret)
			goto out;
		rc = sqlite3_step(st);
		if (rc != SQLITE_ROW) {
			ret = bb_store_fail(s, rc, err, errlen,
					    "counting queued jobs");
			goto out;
		}
		n = sqlite3_column_int64(st, 0);
		if (n >= (int64_t)max_queued) {
			bb_store_seterr(err, errlen,
					"%lld jobs are queued, the limit is "
					"%u (max_queued_jobs): try again when "
					"some have run", (long long)n,
					max_queued);
			ret = -EAGAIN;
			goto out;
		}
	}
	ret = bb_store_q(s, Q_JOB_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "tttiu", name, target, spec,
					       bb_store_now_ms(), runs_planned),
				 err, errlen, "storing a new job");
	if (ret)
		goto out;
	*id = sqlite3_last_insert_rowid(s->db);
	ret = bb_store_event_locked(s, *id, "info", "submitted", err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}

int bb_store_job_next_queued(struct bb_store *s, int64_t *id, char **spec,
			     char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *t;
	int ret, rc;

	bb_store_lock(s);
	ret = bb_store_q(s, Q_JOB_NEXT_QUEUED, &st, err, errlen);
	if (ret)
		goto out;
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		bb_store_seterr(err, errlen, "no queued job");
		ret = -ENOENT;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "finding the next queued job");
		goto out;
	}
	t = (const char *)sqlite3_column_text(st, 1);
	*spec = strdup(t ? t : "{}");
	if (!*spec) {
		bb_store_seterr(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	*id = sqlite3_column_int64(st, 0);
out:
	bb_store_unlock(s);
	return ret;
}

/* After an UPDATE ... WHERE id = ? AND state ... changed nothing: -ENOENT
 * or -EALREADY naming the state the job is in. */
static int bb_store_not_in_state(struct bb_store *s, int64_t id,
				 const char *want, char *err, size_t errlen)
{
	char state[16];
	int ret = bb_store_state_locked(s, id, state, err, errlen);

	if (ret)
		return ret;
	bb_store_seterr(err, errlen, "job %lld is %s, not %s", (long long)id,
			state, want);
	return -EALREADY;
}

int bb_store_job_start(struct bb_store *s, int64_t id, int64_t host_id,
		       int64_t device_id, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char what[64];
	int ret;

	snprintf(what, sizeof(what), "starting job %lld", (long long)id);
	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_JOB_START, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "iiII", id, bb_store_now_ms(),
					       host_id, device_id),
				 err, errlen, what);
	if (ret)
		goto out;
	if (!sqlite3_changes(s->db)) {
		ret = bb_store_not_in_state(s, id, BB_JOB_QUEUED, err, errlen);
		goto out;
	}
	ret = bb_store_event_locked(s, id, "info", "started", err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}

int bb_store_job_progress(struct bb_store *s, int64_t id,
			  unsigned runs_planned, const char *compare,
			  char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	char what[64];
	int ret;

	if (compare && !bb_store_json_parse(compare, NULL)) {
		bb_store_seterr(err, errlen,
				"job %lld: comparison is not valid JSON",
				(long long)id);
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "storing progress of job %lld",
		 (long long)id);
	bb_store_lock(s);
	ret = bb_store_q(s, Q_JOB_PROGRESS, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "iut", id, runs_planned,
					       compare),
				 err, errlen, what);
	if (ret)
		goto out;
	if (!sqlite3_changes(s->db))
		ret = bb_store_not_in_state(s, id, BB_JOB_RUNNING, err,
					    errlen);
out:
	bb_store_unlock(s);
	return ret;
}

int bb_store_job_finish(struct bb_store *s, int64_t id, const char *state,
			const char *verdict, const char *compare,
			const char *error, char *err, size_t errlen)
{
	char cur[16], msg[512], what[64];
	const char *level = "info";
	sqlite3_stmt *st = NULL;
	int ret;

	if (!state || !bb_store_state_ok(state) ||
	    !strcmp(state, BB_JOB_QUEUED) || !strcmp(state, BB_JOB_RUNNING)) {
		bb_store_seterr(err, errlen,
				"a job ends done, failed, cancelled or "
				"interrupted, not %s", state ? state : "(null)");
		return -EINVAL;
	}
	if (compare && !bb_store_json_parse(compare, NULL)) {
		bb_store_seterr(err, errlen,
				"job %lld: comparison is not valid JSON",
				(long long)id);
		return -EINVAL;
	}
	if (!strcmp(state, BB_JOB_DONE)) {
		snprintf(msg, sizeof(msg), "done%s%s", verdict ? ": " : "",
			 verdict ? verdict : "");
	} else if (!strcmp(state, BB_JOB_FAILED)) {
		level = "error";
		snprintf(msg, sizeof(msg), "failed%s%s", error ? ": " : "",
			 error ? error : "");
	} else if (!strcmp(state, BB_JOB_INTERRUPTED)) {
		level = "warning";
		snprintf(msg, sizeof(msg), "interrupted%s%s",
			 error ? ": " : "", error ? error : "");
	} else {
		snprintf(msg, sizeof(msg), "cancelled");
	}
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	snprintf(what, sizeof(what), "ending job %lld", (long long)id);

	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_state_locked(s, id, cur, err, errlen);
	if (ret)
		goto out;
	if (strcmp(cur, BB_JOB_QUEUED) && strcmp(cur, BB_JOB_RUNNING)) {
		bb_store_seterr(err, errlen, "job %lld already ended (%s)",
				(long long)id, cur);
		ret = -EALREADY;
		goto out;
	}
	/* a job that never started can only be cancelled or fail */
	if (!strcmp(cur, BB_JOB_QUEUED) && strcmp(state, BB_JOB_CANCELLED) &&
	    strcmp(state, BB_JOB_FAILED)) {
		bb_store_seterr(err, errlen,
				"job %lld is queued: it cannot become %s",
				(long long)id, state);
		ret = -EINVAL;
		goto out;
	}
	ret = bb_store_q(s, Q_JOB_FINISH, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "itittt", id, state,
					       bb_store_now_ms(), verdict,
					       compare, error),
				 err, errlen, what);
	if (ret)
		goto out;
	ret = bb_store_event_locked(s, id, level, msg, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}

#define BB_STORE_INTERRUPTED_MSG "daemon stopped while the job ran"

int bb_store_jobs_interrupt_running(struct bb_store *s, unsigned *n,
				    char *err, size_t errlen)
{
	int64_t *ids = NULL, now = bb_store_now_ms();
	size_t nids = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*n = 0;
	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_JOBS_RUNNING, &st, err, errlen);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (nids == cap) {
			int64_t *p;

			cap = cap ? 2 * cap : 8;
			p = realloc(ids, cap * sizeof(*ids));
			if (!p) {
				bb_store_seterr(err, errlen, "out of memory");
				ret = -ENOMEM;
				goto out;
			}
			ids = p;
		}
		ids[nids++] = sqlite3_column_int64(st, 0);
	}
	if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "listing running jobs");
		goto out;
	}
	for (size_t i = 0; i < nids; i++) {
		ret = bb_store_q(s, Q_JOB_INTERRUPT, &st, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_step_done(s, st,
					 bb_store_bind(st, "iit", ids[i], now,
						       BB_STORE_INTERRUPTED_MSG),
					 err, errlen,
					 "marking a job interrupted");
		if (ret)
			goto out;
		ret = bb_store_event_locked(s, ids[i], "warning",
					    "interrupted: "
					    BB_STORE_INTERRUPTED_MSG,
					    err, errlen);
		if (ret)
			goto out;
	}
	ret = bb_store_commit(s, err, errlen);
	if (!ret)
		*n = (unsigned)nids;
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	free(ids);
	return ret;
}

/* ---- runs ----------------------------------------------------------- */

/* The summary columns of a run; has_* false stores NULL. */
struct bb_store_sum {
	bool has_rate, has_lat, has_cpu, has_start, has_dur;
	double iops, bw, cpu_per_io;
	int64_t p50, p99, start_ms, dur_ns;
};

static void bb_store_sum_result(struct bb_store_sum *m,
				const struct bb_result *r)
{
	uint64_t cpu = r->cpu_submit.usr_ns + r->cpu_submit.sys_ns +
		       r->cpu_completion.usr_ns + r->cpu_completion.sys_ns;
	uint64_t bytes = r->io.bytes_read + r->io.bytes_written;

	m->has_dur = true;
	m->dur_ns = (int64_t)r->duration_ns;
	if (r->duration_ns) {
		m->has_rate = true;
		m->iops = bb_result_iops(r);
		m->bw = (double)bytes * 1e9 / (double)r->duration_ns;
	}
	if (r->lat.count) {
		m->has_lat = true;
		m->p50 = (int64_t)bb_hist_percentile(&r->lat, 50);
		m->p99 = (int64_t)bb_hist_percentile(&r->lat, 99);
	}
	if (r->io.ios) {
		m->has_cpu = true;
		m->cpu_per_io = (double)cpu / (double)r->io.ios;
	}
	if (r->start_unix_ms) {
		m->has_start = true;
		m->start_ms = (int64_t)r->start_unix_ms;
	}
}

/* The same from a bb_result_to_json document. */
static void bb_store_sum_json(struct bb_store_sum *m, struct json_object *o)
{
	struct json_object *lat = NULL, *cpu = NULL, *io = NULL;
	double d, ios = 0, cnt = 0, p50, p99;

	json_object_object_get_ex(o, "latency_ns", &lat);
	json_object_object_get_ex(o, "cpu", &cpu);
	json_object_object_get_ex(o, "io", &io);
	if (bb_store_jnum(o, "duration_s", &d) && d >= 0) {
		m->has_dur = true;
		m->dur_ns = (int64_t)(d * 1e9 + 0.5);
	}
	if (m->has_dur && m->dur_ns > 0 && bb_store_jnum(o, "iops", &m->iops) &&
	    bb_store_jnum(o, "bw_bytes_s", &m->bw))
		m->has_rate = true;
	if (bb_store_jnum(lat, "count", &cnt) && cnt > 0 &&
	    bb_store_jnum(lat, "p50", &p50) && bb_store_jnum(lat, "p99", &p99)) {
		m->has_lat = true;
		m->p50 = (int64_t)p50;
		m->p99 = (int64_t)p99;
	}
	if (bb_store_jnum(io, "ios", &ios) && ios > 0 &&
	    bb_store_jnum(cpu, "per_io_ns", &m->cpu_per_io))
		m->has_cpu = true;
	if (bb_store_jnum(o, "start_unix_ms", &d) && d > 0) {
		m->has_start = true;
		m->start_ms = (int64_t)d;
	}
}

static int bb_store_bind_opt_double(sqlite3_stmt *st, int i, bool has,
				    double v)
{
	return has ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

static int bb_store_bind_opt_int(sqlite3_stmt *st, int i, bool has,
				 int64_t v)
{
	return has ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

static bool bb_store_run_state_ok(const char *s)
{
	return s && (!strcmp(s, "done") || !strcmp(s, "failed") ||
		     !strcmp(s, "cancelled"));
}

int bb_store_run_insert(struct bb_store *s, const struct bb_store_run *run,
			int64_t *id, char *err, size_t errlen)
{
	const struct bb_result *r = run ? run->r : NULL;
	struct bb_store_sum m = { 0 };
	struct json_object *res = NULL;
	sqlite3_stmt *st = NULL;
	char what[96];
	int64_t rid;
	int ret, rc;

	if (!run || !run->variant || !bb_store_run_state_ok(run->state)) {
		bb_store_seterr(err, errlen,
				"a run needs a variant and a state (done, "
				"failed or cancelled)");
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "storing run %u of job %lld", run->seq,
		 (long long)run->job_id);
	if (run->result && !bb_store_json_parse(run->result, &res)) {
		bb_store_seterr(err, errlen, "%s: result is not valid JSON",
				what);
		return -EINVAL;
	}
	if (r)
		bb_store_sum_result(&m, r);
	else if (res && json_object_is_type(res, json_type_object))
		bb_store_sum_json(&m, res);
	json_object_put(res);

	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_RUN_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "iuutitt", run->job_id, run->seq, run->round,
			   run->variant, (int64_t)(run->warmup ? 1 : 0),
			   run->state, run->error);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(st, 8, run->metric);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_double(st, 9, m.has_rate, m.iops);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_double(st, 10, m.has_rate, m.bw);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 11, m.has_lat, m.p50);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 12, m.has_lat, m.p99);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_double(st, 13, m.has_cpu, m.cpu_per_io);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 14, m.has_start, m.start_ms);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 15, m.has_dur, m.dur_ns);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 16, run->device_id > 0,
					   run->device_id);
	if (rc == SQLITE_OK)
		rc = run->result ? sqlite3_bind_text(st, 17, run->result, -1,
						     SQLITE_STATIC)
				 : sqlite3_bind_null(st, 17);
	ret = bb_store_step_done(s, st, rc, err, errlen, what);
	if (ret) {
		if (ret == -ENOENT)
			bb_store_seterr(err, errlen,
					"%s: no such job (or device %lld)",
					what, (long long)run->device_id);
		else if (ret == -EEXIST)
			bb_store_seterr(err, errlen,
					"%s: the job already has a run %u",
					what, run->seq);
		goto out;
	}
	rid = sqlite3_last_insert_rowid(s->db);
	for (unsigned i = 0; r && i < r->nsamples; i++) {
		const struct bb_sample *x = &r->samples[i];

		ret = bb_store_q(s, Q_SAMPLE_INSERT, &st, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_step_done(s, st,
					 bb_store_bind(st, "iiii", rid,
						       (int64_t)x->t_ms,
						       (int64_t)x->ios,
						       (int64_t)x->bytes),
					 err, errlen, what);
		if (ret)
			goto out;
	}
	for (unsigned b = 0; r && b < BB_HIST_NBUCKETS; b++) {
		if (!r->lat.buckets[b])
			continue;
		ret = bb_store_q(s, Q_HIST_INSERT, &st, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_step_done(s, st,
					 bb_store_bind(st, "iii", rid, (int64_t)b,
						       (int64_t)r->lat.buckets[b]),
					 err, errlen, what);
		if (ret)
			goto out;
	}
	ret = bb_store_q(s, Q_JOB_RUNS_DONE, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "it", run->job_id, run->state),
				 err, errlen, what);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
	if (!ret && id)
		*id = rid;
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}

/* ---- reads ---------------------------------------------------------- */

/* A job object from a row of JOB_COLS. */
static struct json_object *bb_store_job_json(sqlite3_stmt *st)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", bb_store_col_int(st, 0));
	json_object_object_add(o, "name", bb_store_col_text(st, 1));
	json_object_object_add(o, "target", bb_store_col_text(st, 2));
	json_object_object_add(o, "state", bb_store_col_text(st, 3));
	json_object_object_add(o, "created", bb_store_col_time(st, 4));
	json_object_object_add(o, "started", bb_store_col_time(st, 5));
	json_object_object_add(o, "finished", bb_store_col_time(st, 6));
	json_object_object_add(o, "runs_planned", bb_store_col_int(st, 7));
	json_object_object_add(o, "runs_done", bb_store_col_int(st, 8));
	json_object_object_add(o, "verdict", bb_store_col_text(st, 9));
	json_object_object_add(o, "error", bb_store_col_text(st, 10));
	return o;
}

/* Host or device id's info document with its "id"; NULL for none. */
static int bb_store_meta_json(struct bb_store *s, enum bb_q q, int64_t id,
			      struct json_object **out, char *err,
			      size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	if (id <= 0)
		return 0;
	ret = bb_store_q(s, q, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "i", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc, err, errlen, "reading metadata");
	*out = bb_store_col_json(st, 0);
	if (json_object_is_type(*out, json_type_object))
		json_object_object_add(*out, "id", json_object_new_int64(id));
	return 0;
}

static int bb_store_knobs_locked(struct bb_store *s, int64_t job_id,
				 struct json_object **out, char *err,
				 size_t errlen)
{
	struct json_object *arr = json_object_new_array();
	sqlite3_stmt *st = NULL;
	int ret, rc;

	ret = bb_store_q(s, Q_KNOBS_OF_JOB, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", job_id);
	while (bb_store_next(st, &rc)) {
		struct json_object *k = json_object_new_object();

		json_object_object_add(k, "id", bb_store_col_int(st, 0));
		json_object_object_add(k, "target", bb_store_col_text(st, 1));
		json_object_object_add(k, "knob", bb_store_col_text(st, 2));
		json_object_object_add(k, "path", bb_store_col_text(st, 3));
		json_object_object_add(k, "original", bb_store_col_text(st, 4));
		json_object_object_add(k, "applied", bb_store_col_text(st, 5));
		json_object_object_add(k, "state", bb_store_col_text(st, 6));
		json_object_object_add(k, "created", bb_store_col_time(st, 7));
		json_object_object_add(k, "restored", bb_store_col_time(st, 8));
		json_object_object_add(k, "device", bb_store_col_text(st, 9));
		json_object_object_add(k, "device_ident",
				       bb_store_col_text(st, 10));
		json_object_object_add(k, "not_restorable",
				       bb_store_col_text(st, 11));
		json_object_array_add(arr, k);
	}
	if (rc != SQLITE_DONE)
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the knobs of job %lld",
				    (long long)job_id);
out:
	if (ret) {
		json_object_put(arr);
		arr = NULL;
	}
	*out = arr;
	return ret;
}

/* The newest noise floor of a host, target and metric, or NULL. */
static int bb_store_noise_locked(struct bb_store *s, int64_t host_id,
				 const char *target, const char *metric,
				 struct json_object **out, char *err,
				 size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	if (!host_id || !target || !metric)
		return 0;
	ret = bb_store_q(s, Q_NOISE_GET, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "itt", host_id, target, metric);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc, err, errlen,
				     "reading the noise floor of host %lld",
				     (long long)host_id);
	*out = json_object_new_object();
	json_object_object_add(*out, "job_id",
			       sqlite3_column_type(st, 0) == SQLITE_NULL ? NULL :
			       json_object_new_int64(sqlite3_column_int64(st, 0)));
	json_object_object_add(*out, "target", json_object_new_string(target));
	json_object_object_add(*out, "metric", json_object_new_string(metric));
	json_object_object_add(*out, "pairs",
			       json_object_new_int64(sqlite3_column_int64(st, 1)));
	json_object_object_add(*out, "log_sd",
			       json_object_new_double(sqlite3_column_double(st, 2)));
	json_object_object_add(*out, "ci_half",
			       sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL :
			       json_object_new_double(sqlite3_column_double(st, 3)));
	json_object_object_add(*out, "measured",
			       bb_store_time_json(sqlite3_column_int64(st, 4)));
	return 0;
}

/* The metric of a job document (its spec's; iops by default). */
static const char *bb_store_job_metric(struct json_object *job)
{
	struct json_object *spec, *v;

	if (json_object_object_get_ex(job, "spec", &spec) &&
	    json_object_object_get_ex(spec, "metric", &v) &&
	    json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return "iops";
}

int bb_store_host_noise_add(struct bb_store *s, int64_t host_id,
			    int64_t job_id, const char *target,
			    const char *metric, unsigned pairs, double log_sd,
			    double ci_half, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if (!host_id || !target || !metric || pairs < 2 || !(log_sd >= 0) ||
	    !isfinite(log_sd)) {
		bb_store_seterr(err, errlen, "noise floor: bad argument");
		return -EINVAL;
	}
	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_NOISE_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "iIttuddi", host_id, job_id,
					       target, metric, pairs, log_sd,
					       isfinite(ci_half) ? ci_half : 0.0,
					       bb_store_now_ms()),
				 err, errlen, "storing the noise floor");
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}

int bb_store_job_get(struct bb_store *s, int64_t id,
		     struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *meta, *knobs;
	int64_t host_id, device_id;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	bb_store_lock(s);
	ret = bb_store_begin_read(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_JOB_GET, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		bb_store_seterr(err, errlen, "no job %lld", (long long)id);
		ret = -ENOENT;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = bb_store_fail(s, rc, err, errlen, "reading job %lld",
				    (long long)id);
		goto out;
	}
	doc = bb_store_job_json(st);
	host_id = sqlite3_column_int64(st, 11);   /* NULL reads 0 */
	device_id = sqlite3_column_int64(st, 12);
	json_object_object_add(doc, "spec", bb_store_col_json(st, 13));
	json_object_object_add(doc, "compare", bb_store_col_json(st, 14));
	ret = bb_store_meta_json(s, Q_HOST_GET, host_id, &meta, err, errlen);
	if (ret)
		goto out;
	json_object_object_add(doc, "host", meta);
	ret = bb_store_meta_json(s, Q_DEVICE_GET, device_id, &meta, err,
				 errlen);
	if (ret)
		goto out;
	json_object_object_add(doc, "device", meta);
	ret = bb_store_noise_locked(s, host_id, bb_store_jstr(doc, "target"),
				    bb_store_job_metric(doc), &meta, err,
				    errlen);
	if (ret)
		goto out;
	json_object_object_add(doc, "noise_floor", meta);
	ret = bb_store_knobs_locked(s, id, &knobs, err, errlen);
	if (ret)
		goto out;
	json_object_object_add(doc, "knobs", knobs);
	*out = doc;
	doc = NULL;
out:
	bb_store_rollback(s);   /* ends the read transaction */
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}

static struct json_object *bb_store_history_compare(struct json_object *cmp);

int bb_store_jobs_list(struct bb_store *s, const char *state,
		       unsigned limit, int64_t cursor,
		       struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *jobs, *job, *cmp;
	int64_t last = 0;
	unsigned n = 0;
	bool more = false;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	if (limit < 1 || limit > 500) {
		bb_store_seterr(err, errlen, "limit must be 1..500, not %u",
				limit);
		return -EINVAL;
	}
	if (state && !bb_store_state_ok(state)) {
		bb_store_seterr(err, errlen,
				"unknown state '%s' (queued, running, done, "
				"failed, cancelled, interrupted)", state);
		return -EINVAL;
	}
	doc = json_object_new_object();
	jobs = json_object_new_array();
	json_object_object_add(doc, "jobs", jobs);
	bb_store_lock(s);
	ret = bb_store_q(s, state ? Q_JOBS_LIST_STATE : Q_JOBS_LIST, &st, err,
			 errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, state ? "iut" : "iu",
			   cursor > 0 ? cursor : INT64_MAX, limit + 1, state);
	while (bb_store_next(st, &rc)) {
		if (n == limit) {
			more = true;
			rc = SQLITE_DONE;
			break;
		}
		job = bb_store_job_json(st);
		/* each job's change with its interval and verdict, slim as
		 * in the history (the list shows them) */
		cmp = bb_store_col_json(st, 11);
		json_object_object_add(job, "compare",
				       bb_store_history_compare(cmp));
		json_object_put(cmp);
		json_object_array_add(jobs, job);
		last = sqlite3_column_int64(st, 0);
		n++;
	}
	if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen, "listing jobs");
		goto out;
	}
	json_object_object_add(doc, "next_cursor",
			       more ? json_object_new_int64(last) : NULL);
	*out = doc;
	doc = NULL;
out:
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}

/* The comparison of a finished job, slimmed for the history: its metric
 * and, per comparison, the change with its interval and the medians. */
static struct json_object *bb_store_history_compare(struct json_object *cmp)
{
	static const char *const keys[] = {
		"baseline", "variant", "metric", "unit", "higher_is_better",
		"method", "design", "n", "change", "ci_lo", "ci_hi", "ci_level",
		"ci_label", "p_value", "p_adjusted", "tost_p", "family",
		"multiple", "verdict", "text", "confidence", "min_effect",
	};
	struct json_object *o, *arr, *list, *v;

	if (!json_object_is_type(cmp, json_type_object))
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	if (json_object_object_get_ex(cmp, "metric", &v))
		json_object_object_add(o, "metric", json_object_get(v));
	if (json_object_object_get_ex(cmp, "unit", &v))
		json_object_object_add(o, "unit", json_object_get(v));
	json_object_object_add(o, "comparisons", arr);
	if (!json_object_object_get_ex(cmp, "comparisons", &list) ||
	    !json_object_is_type(list, json_type_array))
		return o;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *c = json_object_array_get_idx(list, i);
		struct json_object *one, *side;

		if (!json_object_is_type(c, json_type_object))
			continue;
		one = json_object_new_object();
		for (size_t k = 0; k < bb_array_size(keys); k++)
			if (json_object_object_get_ex(c, keys[k], &v))
				json_object_object_add(one, keys[k],
						       json_object_get(v));
		if (json_object_object_get_ex(c, "a", &side) &&
		    json_object_object_get_ex(side, "median", &v))
			json_object_object_add(one, "baseline_median",
					       json_object_get(v));
		if (json_object_object_get_ex(c, "b", &side) &&
		    json_object_object_get_ex(side, "median", &v))
			json_object_object_add(one, "variant_median",
					       json_object_get(v));
		json_object_array_add(arr, one);
	}
	return o;
}

int bb_store_job_history(struct bb_store *s, const char *name,
			 const char *target, unsigned limit,
			 struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *jobs, *job, *meta, *cmp;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	if (!name) {
		bb_store_seterr(err, errlen, "a job name is needed");
		return -EINVAL;
	}
	if (limit < 1 || limit > 500) {
		bb_store_seterr(err, errlen, "limit must be 1..500, not %u",
				limit);
		return -EINVAL;
	}
	doc = json_object_new_object();
	jobs = json_object_new_array();
	json_object_object_add(doc, "name", json_object_new_string(name));
	json_object_object_add(doc, "target",
			       target ? json_object_new_string(target) : NULL);
	json_object_object_add(doc, "jobs", jobs);
	bb_store_lock(s);
	ret = bb_store_begin_read(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_JOBS_HISTORY, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "ttu", name, target, limit);
	while (bb_store_next(st, &rc)) {
		job = bb_store_job_json(st);
		json_object_array_add(jobs, job);
		ret = bb_store_meta_json(s, Q_HOST_GET,
					 sqlite3_column_int64(st, 11), &meta,
					 err, errlen);
		if (ret)
			goto out;
		json_object_object_add(job, "host", meta);
		ret = bb_store_meta_json(s, Q_DEVICE_GET,
					 sqlite3_column_int64(st, 12), &meta,
					 err, errlen);
		if (ret)
			goto out;
		json_object_object_add(job, "device", meta);
		cmp = bb_store_col_json(st, 13);
		json_object_object_add(job, "compare",
				       bb_store_history_compare(cmp));
		ret = bb_store_noise_locked(s, sqlite3_column_int64(st, 11),
					    bb_store_jstr(job, "target"),
					    bb_store_jstr(cmp, "metric"), &meta,
					    err, errlen);
		json_object_put(cmp);
		if (ret)
			goto out;
		json_object_object_add(job, "noise_floor", meta);
	}
	if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the history of '%.64s'", name);
		goto out;
	}
	*out = doc;
	doc = NULL;
out:
	bb_store_rollback(s);   /* ends the read transaction */
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}

static int bb_store_samples_json(struct bb_store *s, int64_t run_id,
				 struct json_object **out, char *err,
				 size_t errlen)
{
	struct json_object *arr = json_object_new_array();
	sqlite3_stmt *st = NULL;
	int ret, rc;

	ret = bb_store_q(s, Q_SAMPLES_OF_RUN, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", run_id);
	while (bb_store_next(st, &rc)) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "t_ms", bb_store_col_int(st, 0));
		json_object_object_add(x, "ios", bb_store_col_int(st, 1));
		json_object_object_add(x, "bytes", bb_store_col_int(st, 2));
		json_object_array_add(arr, x);
	}
	if (rc != SQLITE_DONE)
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the samples of run %lld",
				    (long long)run_id);
out:
	if (ret) {
		json_object_put(arr);
		arr = NULL;
	}
	*out = arr;
	return ret;
}

int bb_store_job_runs(struct bb_store *s, int64_t id, bool with_samples,
		      struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *runs;
	char state[16];
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	doc = json_object_new_object();
	json_object_object_add(doc, "job_id", json_object_new_int64(id));
	runs = json_object_new_array();
	json_object_object_add(doc, "runs", runs);
	bb_store_lock(s);
	ret = bb_store_begin_read(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_state_locked(s, id, state, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_RUNS_OF_JOB, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", id);
	while (bb_store_next(st, &rc)) {
		struct json_object *r = json_object_new_object(), *smp;

		json_object_array_add(runs, r);
		json_object_object_add(r, "id", bb_store_col_int(st, 0));
		json_object_object_add(r, "seq", bb_store_col_int(st, 1));
		json_object_object_add(r, "round", bb_store_col_int(st, 2));
		json_object_object_add(r, "variant", bb_store_col_text(st, 3));
		json_object_object_add(r, "warmup",
			json_object_new_boolean(sqlite3_column_int(st, 4)));
		json_object_object_add(r, "state", bb_store_col_text(st, 5));
		json_object_object_add(r, "error", bb_store_col_text(st, 6));
		json_object_object_add(r, "metric", bb_store_col_double(st, 7));
		json_object_object_add(r, "iops", bb_store_col_double(st, 8));
		json_object_object_add(r, "bw_bytes_s",
				       bb_store_col_double(st, 9));
		json_object_object_add(r, "lat_p50_ns", bb_store_col_int(st, 10));
		json_object_object_add(r, "lat_p99_ns", bb_store_col_int(st, 11));
		json_object_object_add(r, "cpu_per_io_ns",
				       bb_store_col_double(st, 12));
		json_object_object_add(r, "started", bb_store_col_time(st, 13));
		json_object_object_add(r, "duration_ns",
				       bb_store_col_int(st, 14));
		json_object_object_add(r, "device_id",
				       bb_store_col_int(st, 15));
		json_object_object_add(r, "result", bb_store_col_json(st, 16));
		if (with_samples) {
			ret = bb_store_samples_json(s,
						    sqlite3_column_int64(st, 0),
						    &smp, err, errlen);
			if (ret)
				goto out;
			json_object_object_add(r, "samples", smp);
		}
	}
	if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the runs of job %lld",
				    (long long)id);
		goto out;
	}
	*out = doc;
	doc = NULL;
out:
	bb_store_rollback(s);
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}

int bb_store_metrics(struct bb_store *s, struct json_object **out,
		     char *err, size_t errlen)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *by = json_object_new_object();
	sqlite3_stmt *st = NULL;
	int ret, rc;

	*out = NULL;
	json_object_object_add(doc, "jobs_by_state", by);
	for (size_t i = 0; i < bb_array_size(bb_job_states); i++)
		json_object_object_add(by, bb_job_states[i],
				       json_object_new_int64(0));
	bb_store_lock(s);
	ret = bb_store_begin_read(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_JOBS_BY_STATE, &st, err, errlen);
	if (ret)
		goto out;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *state = (const char *)sqlite3_column_text(st, 0);

		if (bb_store_state_ok(state))
			json_object_object_add(by, state,
					       bb_store_col_int(st, 1));
	}
	if (rc != SQLITE_DONE)
		goto fail;
	ret = bb_store_q(s, Q_RUNS_TOTAL, &st, err, errlen);
	if (ret)
		goto out;
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		goto fail;
	json_object_object_add(doc, "runs_total", bb_store_col_int(st, 0));

	*out = doc;
	doc = NULL;
	goto out;
fail:
	ret = bb_store_fail(s, rc, err, errlen, "reading metrics");
out:
	bb_store_rollback(s);
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}

/* ---- knob journal --------------------------------------------------- */

static int bb_store_knob_rank(const char *state)
{
	if (!state)
		return -1;
	if (!strcmp(state, "pending"))
		return 0;
	if (!strcmp(state, "applied"))
		return 1;
	if (!strcmp(state, "restored"))
		return 2;
	return -1;
}

int bb_store_knob_journal(struct bb_store *s, int64_t job_id,
			  const char *target, const char *knob,
			  const char *path, const char *original,
			  const char *applied,
			  const struct bb_sysknob_dev *dev, int64_t *id,
			  char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret;

	if (!knob || !path || !original) {
		bb_store_seterr(err, errlen,
				"a knob journal row needs the knob, its path "
				"and its original value");
		return -EINVAL;
	}
	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_KNOB_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	/* the device: NULL columns ('-') when unknown */
	ret = bb_store_step_done(
		s, st,
		dev ? bb_store_bind(st, "Itttttiuutt", job_id, target, knob,
				    path, original, applied, bb_store_now_ms(),
				    dev->major, dev->minor, dev->name,
				    dev->ident) :
		      bb_store_bind(st, "Ittttti----", job_id, target, knob, path,
				    original, applied, bb_store_now_ms()),
		err, errlen, "journaling a knob");
	if (ret)
		goto out;
	if (id)
		*id = sqlite3_last_insert_rowid(s->db);
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}

int bb_store_knob_mark(struct bb_store *s, int64_t id, const char *state,
		       char *err, size_t errlen)
{
	int want = bb_store_knob_rank(state), cur;
	sqlite3_stmt *st = NULL;
	int ret, rc;

	if (want < 0) {
		bb_store_seterr(err, errlen,
				"knob state must be pending, applied or "
				"restored, not %s", state ? state : "(null)");
		return -EINVAL;
	}
	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_KNOB_STATE, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE) {
		bb_store_seterr(err, errlen, "no knob journal row %lld",
				(long long)id);
		ret = -ENOENT;
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading knob journal row %lld",
				    (long long)id);
		goto out;
	}
	cur = bb_store_knob_rank((const char *)sqlite3_column_text(st, 0));
	if (want < cur) {
		bb_store_seterr(err, errlen,
				"knob journal row %lld is already %s",
				(long long)id,
				(const char *)sqlite3_column_text(st, 0));
		ret = -EINVAL;
		goto out;
	}
	if (want == cur)   /* idempotent */
		goto out;
	ret = bb_store_q(s, Q_KNOB_MARK, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "iti", id, state,
					       bb_store_now_ms()),
				 err, errlen, "marking a knob");
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	bb_store_rollback(s);   /* after a commit: only restores NORMAL */
	bb_store_unlock(s);
	return ret;
}

int bb_store_knob_unrestorable(struct bb_store *s, int64_t id,
			       const char *why, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int ret;

	bb_store_lock(s);
	ret = bb_store_begin(s, true, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_KNOB_UNRESTORABLE, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "it", id,
					       why ? why : "not restorable"),
				 err, errlen, "marking a knob not restorable");
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	bb_store_rollback(s); /* after a commit: only restores NORMAL */
	bb_store_unlock(s);
	return ret;
}

static void bb_store_knob_rows_free(struct bb_knob_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)rows[i].target);
		free((char *)rows[i].knob);
		free((char *)rows[i].path);
		free((char *)rows[i].original);
		free((char *)rows[i].applied);
		free((char *)rows[i].state);
	}
	free(rows);
}

/* A malloc'd copy of column c; *ok false if out of memory. */
static const char *bb_store_col_dup(sqlite3_stmt *st, int c, bool *ok)
{
	const char *t = (const char *)sqlite3_column_text(st, c);
	char *d;

	if (!t)
		return NULL;
	d = strdup(t);
	if (!d)
		*ok = false;
	return d;
}

int bb_store_knobs_unrestored(struct bb_store *s,
			      int (*cb)(void *arg,
					const struct bb_knob_row *row),
			      void *arg, char *err, size_t errlen)
{
	struct bb_knob_row *rows = NULL;
	size_t n = 0, cap = 0;
	sqlite3_stmt *st = NULL;
	bool ok = true;
	int ret, rc;

	/* copy the rows out, then call back unlocked: the callback may
	 * use the store (bb_store_knob_mark) */
	bb_store_lock(s);
	ret = bb_store_q(s, Q_KNOBS_UNRESTORED, &st, err, errlen);
	if (ret)
		goto out_unlock;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct bb_knob_row *r;

		if (n == cap) {
			cap = cap ? 2 * cap : 8;
			r = realloc(rows, cap * sizeof(*rows));
			if (!r) {
				ok = false;
				break;
			}
			rows = r;
		}
		r = &rows[n++];
		r->id = sqlite3_column_int64(st, 0);
		r->job_id = sqlite3_column_int64(st, 1);
		r->target = bb_store_col_dup(st, 2, &ok);
		r->knob = bb_store_col_dup(st, 3, &ok);
		r->path = bb_store_col_dup(st, 4, &ok);
		r->original = bb_store_col_dup(st, 5, &ok);
		r->applied = bb_store_col_dup(st, 6, &ok);
		r->state = bb_store_col_dup(st, 7, &ok);
		/* the device (NULL before migration 002: unknown) */
		r->has_dev = sqlite3_column_type(st, 8) != SQLITE_NULL;
		memset(&r->dev, 0, sizeof(r->dev));
		if (r->has_dev) {
			const char *t;

			r->dev.major = (unsigned)sqlite3_column_int64(st, 8);
			r->dev.minor = (unsigned)sqlite3_column_int64(st, 9);
			t = (const char *)sqlite3_column_text(st, 10);
			snprintf(r->dev.name, sizeof(r->dev.name), "%s",
				 t ? t : "");
			t = (const char *)sqlite3_column_text(st, 11);
			snprintf(r->dev.ident, sizeof(r->dev.ident), "%s",
				 t ? t : "");
		}
		if (!ok)
			break;
	}
	if (!ok) {
		bb_store_seterr(err, errlen, "out of memory");
		ret = -ENOMEM;
	} else if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the knob journal");
	}
out_unlock:
	bb_store_unlock(s);
	for (size_t i = 0; !ret && i < n; i++)
		ret = cb(arg, &rows[i]);
	bb_store_knob_rows_free(rows, n);
	return ret;
}

int bb_store_job_knobs(struct bb_store *s, int64_t job_id,
		       struct json_object **out, char *err, size_t errlen)
{
	int ret;

	bb_store_lock(s);
	ret = bb_store_knobs_locked(s, job_id, out, err, errlen);
	bb_store_unlock(s);
	return ret;
}
