// SPDX-License-Identifier: GPL-2.0-only
/* sqlite.c - the store's sqlite backend (see backend.h).
 *
 * One sqlite connection, opened in multi-thread mode (NOMUTEX): db.c
 * serializes its use.  WAL mode (refused where sqlite cannot use it, e.g.
 * on a network filesystem), busy timeout 5 s, foreign keys on,
 * synchronous=NORMAL, FULL for a durable transaction.  Write transactions
 * are BEGIN IMMEDIATE.  The schema version is PRAGMA user_version.  The
 * file's identity (device, inode) is kept at open: check reports a
 * deleted or replaced file (sqlite would keep writing to the open,
 * deleted inode and lose everything at exit). */
#include "backend.h"

#include <biobench/common.h>

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#define BB_SQLITE_BUSY_MS 5000

struct bb_be {
	sqlite3 *db;
	bool durable_tx;          /* synchronous=FULL for this transaction */
	bool file;                /* a file (not ":memory:"): dev, ino */
	dev_t dev;
	ino_t ino;
	char path[PATH_MAX];
};

struct bb_be_stmt {
	sqlite3_stmt *st;
	struct bb_be *c;
};

/* A sqlite result code (extended) as -errno, with the message; what says
 * what was being done. */
static int sq_fail(struct bb_be *c, int rc, const char *what, char *err,
		   size_t errlen)
{
	const char *msg = c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc);
	int sys = c->db ? sqlite3_system_errno(c->db) : 0;

	switch (rc & 0xff) {
	case SQLITE_FULL:
		bb_store_seterr(err, errlen,
				"database or disk is full: %s (%s)", c->path,
				what);
		return -ENOSPC;
	case SQLITE_IOERR:
		if (sys == ENOSPC || sys == EDQUOT) {
			bb_store_seterr(err, errlen,
					"database or disk is full: %s (%s)",
					c->path, what);
			return -ENOSPC;
		}
		bb_store_seterr(err, errlen,
				"I/O error on database %s (%s): %s%s%s",
				c->path, what, msg, sys ? ": " : "",
				sys ? strerror(sys) : "");
		return -EIO;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		bb_store_seterr(err, errlen,
				"database is locked: %s (%s), waited %d ms",
				c->path, what, BB_SQLITE_BUSY_MS);
		return -EBUSY;
	case SQLITE_CANTOPEN:
		if (sys != ENOENT && sys != ENOTDIR)
			sys = sys == EACCES || sys == EPERM || sys == EROFS ||
			      !sys ? EACCES : sys;
		else
			sys = ENOENT;
		bb_store_seterr(err, errlen, "cannot open database %s: %s",
				c->path, strerror(sys));
		return -sys;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT:
		bb_store_seterr(err, errlen,
				"%s is not a database or is corrupt (%s): %s",
				c->path, what, msg);
		return -EIO;
	case SQLITE_READONLY:
		bb_store_seterr(err, errlen, "database %s is read-only (%s)",
				c->path, what);
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
		bb_store_seterr(err, errlen, "%s: %s (%s)", what, msg, c->path);
		return -EIO;
	}
}

static int sq_exec(struct bb_be *c, const char *sql, const char *what,
		   char *err, size_t errlen)
{
	char buf[256];
	int rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL);

	if (rc == SQLITE_OK)
		return 0;
	if (!what) {
		snprintf(buf, sizeof(buf), "%s", sql);
		what = buf;
	}
	return sq_fail(c, rc, what, err, errlen);
}

/* The one integer a PRAGMA reads. */
static int sq_pragma_int(struct bb_be *c, const char *sql, int *v,
			 const char *what, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		ret = sq_fail(c, rc, what, err, errlen);
	else
		*v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return ret;
}

static void sq_close(struct bb_be *c)
{
	if (!c)
		return;
	/* the last connection to close checkpoints and removes the WAL */
	sqlite3_close(c->db);
	free(c);
}

/* bb_now_ms(): ms since the epoch on this host's clock. */
static void sq_now_ms(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct timespec ts;

	(void)argc;
	(void)argv;
	clock_gettime(CLOCK_REALTIME, &ts);
	sqlite3_result_int64(ctx, (sqlite3_int64)ts.tv_sec * 1000 +
				  ts.tv_nsec / 1000000);
}

static int sq_open(struct bb_be **out, const char *where, char *err,
		   size_t errlen)
{
	struct bb_be *c;
	int rc, ret = 0;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if ((size_t)snprintf(c->path, sizeof(c->path), "%s", where) >=
	    sizeof(c->path)) {
		bb_store_seterr(err, errlen, "database path too long: %s",
				where);
		ret = -ENAMETOOLONG;
		goto out;
	}
	rc = sqlite3_open_v2(where, &c->db,
			     SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			     SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK) {
		ret = sq_fail(c, rc, "opening", err, errlen);
		goto out;
	}
	sqlite3_extended_result_codes(c->db, 1);
	sqlite3_busy_timeout(c->db, BB_SQLITE_BUSY_MS);
	/* the database's clock, as PostgreSQL's bb_now_ms() (migration
	 * 012): here the one host's */
	rc = sqlite3_create_function_v2(c->db, "bb_now_ms", 0, SQLITE_UTF8,
					NULL, sq_now_ms, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		ret = sq_fail(c, rc, "defining bb_now_ms()", err, errlen);
		goto out;
	}
	*out = c;
	c = NULL;
out:
	sq_close(c);
	return ret;
}

static int sq_configure(struct bb_be *c, char *err, size_t errlen)
{
	sqlite3_stmt *st = NULL;
	const char *mode;
	int rc, ret = 0, fk = 0;

	rc = sqlite3_prepare_v2(c->db, "PRAGMA journal_mode=WAL", -1, &st,
				NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = sq_fail(c, rc, "enabling WAL mode", err, errlen);
		goto out;
	}
	mode = (const char *)sqlite3_column_text(st, 0);
	if (!mode || strcasecmp(mode, "wal")) {
		bb_store_seterr(err, errlen,
				"cannot use WAL mode on %s (journal mode stays "
				"%s): put the database on a local filesystem",
				c->path, mode ? mode : "unknown");
		ret = -ENOTSUP;
		goto out;
	}
	ret = sq_exec(c, "PRAGMA foreign_keys=ON", NULL, err, errlen);
	if (ret)
		goto out;
	ret = sq_exec(c, "PRAGMA synchronous=NORMAL", NULL, err, errlen);
	if (ret)
		goto out;
	if (sq_pragma_int(c, "PRAGMA foreign_keys", &fk, "PRAGMA foreign_keys",
			  NULL, 0) || fk != 1) {
		bb_store_seterr(err, errlen,
				"this sqlite cannot enforce foreign keys");
		ret = -ENOTSUP;
	}
out:
	sqlite3_finalize(st);
	return ret;
}

static void sq_opened(struct bb_be *c)
{
	struct stat st;

	if (strcmp(c->path, ":memory:") && strncmp(c->path, "file:", 5) &&
	    !stat(c->path, &st)) {
		c->file = true;
		c->dev = st.st_dev;
		c->ino = st.st_ino;
	}
}

static int sq_check(struct bb_be *c, char *err, size_t errlen)
{
	struct stat st;

	if (!c->file)
		return 0;
	if (stat(c->path, &st)) {
		bb_store_seterr(err, errlen,
				"database file %s was deleted while the "
				"daemon ran: what is written now is lost when "
				"it stops (%s)", c->path, strerror(errno));
		return -ENOENT;
	}
	if (st.st_dev != c->dev || st.st_ino != c->ino) {
		bb_store_seterr(err, errlen,
				"database file %s was replaced while the "
				"daemon ran: it still writes to the old, "
				"deleted one", c->path);
		return -ESTALE;
	}
	return 0;
}

static int sq_version_get(struct bb_be *c, int *v, char *err, size_t errlen)
{
	return sq_pragma_int(c, "PRAGMA user_version", v,
			     "reading the schema version", err, errlen);
}

static int sq_version_set(struct bb_be *c, int v, char *err, size_t errlen)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v);
	return sq_exec(c, sql, NULL, err, errlen);
}

static void sq_rollback(struct bb_be *c)
{
	if (!sqlite3_get_autocommit(c->db))
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
	if (c->durable_tx) {
		sqlite3_exec(c->db, "PRAGMA synchronous=NORMAL", NULL, NULL,
			     NULL);
		c->durable_tx = false;
	}
}

static int sq_begin(struct bb_be *c, enum bb_tx kind, char *err,
		    size_t errlen)
{
	int ret;

	if (kind == BB_TX_DURABLE) {
		ret = sq_exec(c, "PRAGMA synchronous=FULL", NULL, err, errlen);
		if (ret)
			return ret;
		c->durable_tx = true;
	}
	ret = sq_exec(c, kind == BB_TX_READ ? "BEGIN" : "BEGIN IMMEDIATE",
		      NULL, err, errlen);
	if (ret)
		sq_rollback(c);
	return ret;
}

static int sq_commit(struct bb_be *c, char *err, size_t errlen)
{
	int ret = sq_exec(c, "COMMIT", NULL, err, errlen);

	sq_rollback(c);   /* no-op after a commit; restores NORMAL */
	return ret;
}

static int sq_prepare(struct bb_be *c, const char *sql, unsigned flags,
		      struct bb_be_stmt **out, const char *what, char *err,
		      size_t errlen)
{
	struct bb_be_stmt *st;
	int rc;

	(void)flags;    /* BB_Q_NEW_ID: sqlite3_last_insert_rowid */
	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st) {
		bb_store_seterr(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	}
	rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
				&st->st, NULL);
	if (rc != SQLITE_OK) {
		free(st);
		return sq_fail(c, rc, what, err, errlen);
	}
	st->c = c;
	*out = st;
	return 0;
}

static void sq_finalize(struct bb_be_stmt *st)
{
	if (!st)
		return;
	sqlite3_finalize(st->st);
	free(st);
}

static void sq_reset(struct bb_be_stmt *st)
{
	sqlite3_reset(st->st);
	sqlite3_clear_bindings(st->st);
}

static int sq_bind(struct bb_be_stmt *st, const struct bb_val *v, unsigned n,
		   const char *what, char *err, size_t errlen)
{
	int rc = SQLITE_OK;

	for (unsigned i = 0; i < n && rc == SQLITE_OK; i++) {
		int k = (int)i + 1;

		switch (v[i].type) {
		case BB_VAL_INT:
			rc = sqlite3_bind_int64(st->st, k, v[i].i);
			break;
		case BB_VAL_DOUBLE:
			rc = sqlite3_bind_double(st->st, k, v[i].d);
			break;
		case BB_VAL_TEXT:
			rc = v[i].t ? sqlite3_bind_text(st->st, k, v[i].t, -1,
							SQLITE_STATIC)
				    : sqlite3_bind_null(st->st, k);
			break;
		default:
			rc = sqlite3_bind_null(st->st, k);
			break;
		}
	}
	return rc == SQLITE_OK ? 0 : sq_fail(st->c, rc, what, err, errlen);
}

static int sq_step(struct bb_be_stmt *st, const char *what, char *err,
		   size_t errlen)
{
	int rc = sqlite3_step(st->st);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	return sq_fail(st->c, rc, what, err, errlen);
}

static int64_t sq_changes(struct bb_be_stmt *st)
{
	return sqlite3_changes(st->c->db);
}

static int64_t sq_new_id(struct bb_be_stmt *st)
{
	return sqlite3_last_insert_rowid(st->c->db);
}

static bool sq_is_null(struct bb_be_stmt *st, unsigned col)
{
	return sqlite3_column_type(st->st, (int)col) == SQLITE_NULL;
}

static int64_t sq_col_int(struct bb_be_stmt *st, unsigned col)
{
	return sqlite3_column_int64(st->st, (int)col);
}

static double sq_col_double(struct bb_be_stmt *st, unsigned col)
{
	return sqlite3_column_double(st->st, (int)col);
}

static const char *sq_col_text(struct bb_be_stmt *st, unsigned col)
{
	return (const char *)sqlite3_column_text(st->st, (int)col);
}

const struct bb_store_backend bb_store_sqlite = {
	.name = "sqlite",
	.migrations = &bb_migrations_sqlite,
	.open = sq_open,
	.configure = sq_configure,
	.opened = sq_opened,
	.close = sq_close,
	.check = sq_check,
	.exec = sq_exec,
	.version_get = sq_version_get,
	.version_set = sq_version_set,
	.begin = sq_begin,
	.commit = sq_commit,
	.rollback = sq_rollback,
	.prepare = sq_prepare,
	.finalize = sq_finalize,
	.reset = sq_reset,
	.bind = sq_bind,
	.step = sq_step,
	.changes = sq_changes,
	.new_id = sq_new_id,
	.is_null = sq_is_null,
	.col_int = sq_col_int,
	.col_double = sq_col_double,
	.col_text = sq_col_text,
};
