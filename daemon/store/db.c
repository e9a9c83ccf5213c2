// SPDX-License-Identifier: GPL-2.0-only
/* db.c - the store's connection, statements, transactions and health
 * (see store.h).
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
#include "store_int.h"

#include "bb_migrations.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

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
	[Q_JOB_RUNS_DONE] =
		"UPDATE jobs SET runs_done = runs_done + 1 WHERE id = ?1",
	[Q_JOB_GET] =
		"SELECT " JOB_COLS ", host_id, device_id, spec, compare"
		" FROM jobs WHERE id = ?1",
	[Q_HOST_GET] = "SELECT info FROM hosts WHERE id = ?1",
	[Q_DEVICE_GET] = "SELECT info FROM devices WHERE id = ?1",
	[Q_JOBS_LIST] =
		"SELECT " JOB_COLS " FROM jobs WHERE id < ?1"
		" ORDER BY id DESC LIMIT ?2",
	[Q_JOBS_LIST_STATE] =
		"SELECT " JOB_COLS " FROM jobs WHERE state = ?3 AND id < ?1"
		" ORDER BY id DESC LIMIT ?2",
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

/* ---- small helpers -------------------------------------------------- */

void __attribute__((format(printf, 3, 4)))
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

int64_t bb_store_now_ms(void)
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
int __attribute__((format(printf, 5, 6)))
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

void bb_store_lock(struct bb_store *s)
{
	pthread_mutex_lock(&s->lock);
}

/* Reset every cached statement (ends their read snapshots) and unlock. */
void bb_store_unlock(struct bb_store *s)
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
int bb_store_q(struct bb_store *s, enum bb_q q, sqlite3_stmt **st,
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
int bb_store_bind(sqlite3_stmt *st, const char *fmt, ...)
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
int bb_store_step_done(struct bb_store *s, sqlite3_stmt *st,
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
bool bb_store_next(sqlite3_stmt *st, int *rc)
{
	if (*rc != SQLITE_OK && *rc != SQLITE_ROW)
		return false;
	*rc = sqlite3_step(st);
	return *rc == SQLITE_ROW;
}

int bb_store_exec(struct bb_store *s, const char *sql, char *err,
			 size_t errlen)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return bb_store_fail(s, rc, err, errlen, "%s", sql);
	return 0;
}

/* Roll back the open transaction, if any (sqlite may already have rolled
 * it back itself, e.g. after SQLITE_FULL). */
void bb_store_rollback(struct bb_store *s)
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
int bb_store_begin(struct bb_store *s, bool durable, char *err,
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
int bb_store_commit(struct bb_store *s, char *err, size_t errlen)
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
int bb_store_begin_read(struct bb_store *s, char *err, size_t errlen)
{
	return bb_store_exec(s, "BEGIN", err, errlen);
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
	int rc, ret, v;

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
