// SPDX-License-Identifier: GPL-2.0-only
/* db.c - the store's handles: a backend connection, its statements, its
 * transactions and its health (see db.h).
 *
 * Statements are prepared once (lazily, on first use) and cached in the
 * handle, keyed by their struct bb_query; every value is bound.  Every
 * cached statement is reset when an operation ends, so that no statement
 * keeps a read snapshot open between calls (in sqlite that would hold
 * back WAL checkpoints).  A failed write (-ENOSPC, -EIO, -EROFS) counts
 * against the handle's health for a minute unless a commit succeeds
 * after it (a lost connection: until the backend has reconnected). */
#include "db.h"
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BB_DB_ERROR_MS 60000
#define BB_DB_MAXARGS 24
#define BB_DB_MSG 768
#define BB_DB_REVIVE_MS 200

struct bb_db_stmt {
	const struct bb_query *q;
	struct bb_be_stmt *st;
};

struct bb_db {
	const struct bb_store_backend *be;
	struct bb_be *c;
	pthread_mutex_t lock;
	struct bb_db_stmt *stmts;
	size_t nstmts, cap;
	int version;
	char where[PATH_MAX];
	/* health (bb_db_check), under hlock: the last write error and the
	 * last good commit */
	pthread_mutex_t hlock;
	int werr;
	int64_t werr_ms;
	uint64_t werr_seq, wok_seq, seq; /* which came last */
	char wmsg[512];
	int64_t revive_ms; /* the last bb_db_revive, under lock */
};

void bb_store_seterr(char *err, size_t errlen, const char *fmt, ...)
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

const struct bb_store_backend *bb_store_backend_for(const char *where)
{
	return bb_store_is_pg(where) ? &bb_store_postgres : &bb_store_sqlite;
}

const char *bb_store_name(const char *where, char *buf, size_t len)
{
	if (bb_store_is_pg(where))
		bb_store_pg_name(where, NULL, buf, len);
	else
		snprintf(buf, len, "%s", where);
	return buf;
}

/* ---- health --------------------------------------------------------- */

/* A backend's error: remembered when it is a failed write, copied to the
 * operation's err.  Not when the backend's check reports it itself (a
 * lost connection): then the health is the backend's, and clean again as
 * soon as the backend has reconnected. */
static int bb_db_failed(struct bb_db_op *op, int ret, const char *msg)
{
	struct bb_db *db = op->db;

	if ((ret == -ENOSPC || ret == -EIO || ret == -EROFS) &&
	    !db->be->check(db->c, NULL, 0)) {
		pthread_mutex_lock(&db->hlock);
		db->werr = ret;
		db->werr_ms = bb_store_now_ms();
		db->werr_seq = ++db->seq;
		snprintf(db->wmsg, sizeof(db->wmsg), "%s", msg);
		pthread_mutex_unlock(&db->hlock);
	}
	bb_store_seterr(op->err, op->errlen, "%s", msg);
	return ret;
}

/* A lost connection is tried again by the check itself, at most once a
 * second and only when no operation holds the handle: a thread that
 * checks the store before it uses it (the scheduler's loop) would
 * otherwise see it lost until its next operation, which it never
 * starts while the check fails. */
static int bb_db_revive(struct bb_db *db, int64_t now, char *err,
			size_t errlen)
{
	int ret = -EIO;

	if (!db->be->revive || pthread_mutex_trylock(&db->lock))
		return ret;
	if (now - db->revive_ms >= BB_DB_REVIVE_MS) {
		db->revive_ms = now;
		ret = db->be->revive(db->c, err, errlen);
	}
	pthread_mutex_unlock(&db->lock);
	return ret;
}

int bb_db_check(struct bb_db *db, char *err, size_t errlen)
{
	int64_t now = bb_store_now_ms();
	int ret = db->be->check(db->c, err, errlen);

	if (ret == -EIO)
		ret = bb_db_revive(db, now, err, errlen);
	if (ret)
		return ret;
	pthread_mutex_lock(&db->hlock);
	if (db->werr && db->werr_seq > db->wok_seq &&
	    now - db->werr_ms < BB_DB_ERROR_MS) {
		ret = db->werr;
		bb_store_seterr(err, errlen, "%s", db->wmsg);
	}
	pthread_mutex_unlock(&db->hlock);
	return ret;
}

/* ---- operations ----------------------------------------------------- */

static void bb_db_reset_all(struct bb_db *db)
{
	for (size_t i = 0; i < db->nstmts; i++)
		db->be->reset(db->stmts[i].st);
}

void bb_db_lock(struct bb_db_op *op, struct bb_db *db, char *err,
		size_t errlen)
{
	*op = (struct bb_db_op){ .db = db, .err = err, .errlen = errlen };
	pthread_mutex_lock(&db->lock);
}

int bb_db_tx(struct bb_db_op *op, enum bb_tx kind)
{
	struct bb_db *db = op->db;
	char msg[BB_DB_MSG];
	int ret;

	op->tx = true;
	op->kind = kind;
	ret = db->be->begin(db->c, kind, msg, sizeof(msg));
	return ret ? bb_db_failed(op, ret, msg) : 0;
}

int bb_db_tx_end(struct bb_db_op *op, int ret)
{
	struct bb_db *db = op->db;
	char msg[BB_DB_MSG];

	if (!op->tx)
		return ret;
	bb_db_reset_all(db);
	if (!ret && op->kind != BB_TX_READ) {
		ret = db->be->commit(db->c, msg, sizeof(msg));
		if (ret) {
			bb_db_failed(op, ret, msg);
		} else {
			pthread_mutex_lock(&db->hlock);
			db->wok_seq = ++db->seq;
			pthread_mutex_unlock(&db->hlock);
		}
	} else {
		db->be->rollback(db->c);
	}
	op->tx = false;
	return ret;
}

int bb_db_begin(struct bb_db_op *op, struct bb_db *db, enum bb_tx kind,
		char *err, size_t errlen)
{
	bb_db_lock(op, db, err, errlen);
	return bb_db_tx(op, kind);
}

int bb_db_end(struct bb_db_op *op, int ret)
{
	if (op->tx)
		ret = bb_db_tx_end(op, ret);   /* resets the statements */
	else
		bb_db_reset_all(op->db);
	pthread_mutex_unlock(&op->db->lock);
	return ret == BB_DB_NOTHING ? 0 : ret;
}

void bb_db_what(struct bb_db_op *op, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(op->what, sizeof(op->what), fmt, ap);
	va_end(ap);
}

int bb_db_err(struct bb_db_op *op, int ret, const char *fmt, ...)
{
	char msg[BB_DB_MSG];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	bb_store_seterr(op->err, op->errlen, "%s", msg);
	return ret;
}

static const char *bb_db_whatq(const struct bb_db_op *op,
			       const struct bb_query *q)
{
	return op->what[0] ? op->what : q->what;
}

/* ---- statements ----------------------------------------------------- */

/* The cached statement of q (prepared on first use), reset. */
static int bb_db_stmt(struct bb_db_op *op, const struct bb_query *q,
		      struct bb_be_stmt **out)
{
	struct bb_db *db = op->db;
	struct bb_be_stmt *st = NULL;
	char msg[BB_DB_MSG], *sql;
	int ret;

	for (size_t i = 0; i < db->nstmts; i++) {
		if (db->stmts[i].q == q) {
			db->be->reset(db->stmts[i].st);
			*out = db->stmts[i].st;
			return 0;
		}
	}
	if (db->nstmts == db->cap) {
		size_t cap = db->cap ? 2 * db->cap : 32;
		struct bb_db_stmt *p = realloc(db->stmts, cap * sizeof(*p));

		if (!p)
			return bb_db_err(op, -ENOMEM, "out of memory");
		db->stmts = p;
		db->cap = cap;
	}
	sql = bb_db_sql(q);
	if (!sql)
		return bb_db_err(op, -ENOMEM, "out of memory");
	ret = db->be->prepare(db->c, sql, q->flags, &st, bb_db_whatq(op, q),
			      msg, sizeof(msg));
	free(sql);
	if (ret)
		return bb_db_failed(op, ret, msg);
	db->stmts[db->nstmts++] = (struct bb_db_stmt){ .q = q, .st = st };
	*out = st;
	return 0;
}

/* Values from a format string (see db.h). */
static int bb_db_vals(struct bb_db_op *op, struct bb_val *v, unsigned *n,
		      const char *fmt, va_list ap)
{
	unsigned i = 0;

	for (const char *f = fmt; *f; f++, i++) {
		if (i == BB_DB_MAXARGS)
			return bb_db_err(op, -E2BIG, "too many parameters");
		switch (*f) {
		case 'i':
			v[i] = bb_val_int(va_arg(ap, int64_t));
			break;
		case 'u':
			v[i] = bb_val_int(va_arg(ap, unsigned));
			break;
		case 'I': {
			int64_t id = va_arg(ap, int64_t);

			v[i] = bb_val_opt_int(id > 0, id);
			break;
		}
		case 'b':
			v[i] = bb_val_int(va_arg(ap, int) ? 1 : 0);
			break;
		case 'd':
			v[i] = bb_val_double(va_arg(ap, double));
			break;
		case 't':
			v[i] = bb_val_text(va_arg(ap, const char *));
			break;
		default:
			v[i] = bb_val_null();
			break;
		}
	}
	*n = i;
	return 0;
}

/* The statement of q with its values bound. */
static int bb_db_bound(struct bb_db_op *op, const struct bb_query *q,
		       const struct bb_val *v, unsigned n,
		       struct bb_be_stmt **st)
{
	char msg[BB_DB_MSG];
	int ret = bb_db_stmt(op, q, st);

	if (ret)
		return ret;
	ret = op->db->be->bind(*st, v, n, bb_db_whatq(op, q), msg,
			       sizeof(msg));
	return ret ? bb_db_failed(op, ret, msg) : 0;
}

int bb_db_run_vals(struct bb_db_op *op, const struct bb_query *q,
		   const struct bb_val *v, unsigned n, int64_t *out)
{
	const struct bb_store_backend *be = op->db->be;
	struct bb_be_stmt *st;
	char msg[BB_DB_MSG];
	int ret = bb_db_bound(op, q, v, n, &st);

	if (ret)
		return ret;
	ret = be->step(st, bb_db_whatq(op, q), msg, sizeof(msg));
	if (ret < 0)
		return bb_db_failed(op, ret, msg);
	if (out)
		*out = q->flags & BB_Q_NEW_ID ? be->new_id(st)
					      : be->changes(st);
	return 0;
}

int bb_db_run(struct bb_db_op *op, const struct bb_query *q, int64_t *out,
	      const char *fmt, ...)
{
	struct bb_val v[BB_DB_MAXARGS];
	unsigned n;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = bb_db_vals(op, v, &n, fmt, ap);
	va_end(ap);
	return ret ? ret : bb_db_run_vals(op, q, v, n, out);
}

/* ---- rows ----------------------------------------------------------- */

static int bb_db_queryv(struct bb_db_rows *r, struct bb_db_op *op,
			const struct bb_query *q, const char *fmt, va_list ap)
{
	struct bb_val v[BB_DB_MAXARGS];
	unsigned n;
	int ret;

	*r = (struct bb_db_rows){ .op = op, .q = q, .be = op->db->be };
	ret = bb_db_vals(op, v, &n, fmt, ap);
	return ret ? ret : bb_db_bound(op, q, v, n, &r->st);
}

int bb_db_query(struct bb_db_rows *r, struct bb_db_op *op,
		const struct bb_query *q, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = bb_db_queryv(r, op, q, fmt, ap);
	va_end(ap);
	return ret;
}

int bb_db_next(struct bb_db_rows *r)
{
	char msg[BB_DB_MSG];
	int ret = r->be->step(r->st, bb_db_whatq(r->op, r->q), msg,
			      sizeof(msg));

	return ret < 0 ? bb_db_failed(r->op, ret, msg) : ret;
}

int bb_db_rows_json(struct bb_db_op *op, const struct bb_query *q,
		    struct json_object **arr, const char *fmt, ...)
{
	struct bb_db_rows r;
	va_list ap;
	int ret;

	*arr = json_object_new_array();
	va_start(ap, fmt);
	ret = bb_db_queryv(&r, op, q, fmt, ap);
	va_end(ap);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		json_object_array_add(*arr, bb_db_json(&r));
		ret = 0;
	}
	if (ret) {
		json_object_put(*arr);
		*arr = NULL;
	}
	return ret;
}

/* ---- for migrate.c -------------------------------------------------- */

int bb_db_exec(struct bb_db_op *op, const char *sql)
{
	char msg[BB_DB_MSG];
	int ret = op->db->be->exec(op->db->c, sql, NULL, msg, sizeof(msg));

	return ret ? bb_db_failed(op, ret, msg) : 0;
}

int bb_db_version_get(struct bb_db_op *op, int *v)
{
	char msg[BB_DB_MSG];
	int ret = op->db->be->version_get(op->db->c, v, msg, sizeof(msg));

	return ret ? bb_db_failed(op, ret, msg) : 0;
}

int bb_db_version_set(struct bb_db_op *op, int v)
{
	char msg[BB_DB_MSG];
	int ret = op->db->be->version_set(op->db->c, v, msg, sizeof(msg));

	return ret ? bb_db_failed(op, ret, msg) : 0;
}

/* ---- open, close ---------------------------------------------------- */

int bb_db_open(struct bb_db **out, const char *where, char *err,
	       size_t errlen)
{
	struct bb_db *db;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	if (!where || !*where) {
		bb_store_seterr(err, errlen, "no database path");
		return -EINVAL;
	}
	db = calloc(1, sizeof(*db));
	if (!db) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&db->lock, NULL);
	pthread_mutex_init(&db->hlock, NULL);
	db->be = bb_store_backend_for(where);
	snprintf(db->where, sizeof(db->where), "%s", where);
	ret = db->be->open(&db->c, where, err, errlen);
	if (ret)
		goto out;
	/* the first read: not a database -> -EIO; and a newer schema is
	 * refused before anything is changed */
	bb_db_lock(&op, db, err, errlen);
	ret = bb_migrate_check(&op, db->be->migrations);
	if (!ret)
		ret = db->be->configure(db->c, err, errlen);
	if (!ret)
		ret = bb_migrate(&op, db->be->migrations, &db->version);
	bb_db_end(&op, ret);
	if (ret)
		goto out;
	db->be->opened(db->c);
	*out = db;
	db = NULL;
out:
	bb_db_close(db);
	return ret;
}

void bb_db_close(struct bb_db *db)
{
	if (!db)
		return;
	for (size_t i = 0; i < db->nstmts; i++)
		db->be->finalize(db->stmts[i].st);
	free(db->stmts);
	if (db->c)
		db->be->close(db->c);
	pthread_mutex_destroy(&db->lock);
	pthread_mutex_destroy(&db->hlock);
	free(db);
}

int bb_db_version(const struct bb_db *db)
{
	return db->version;
}

const char *bb_db_where(const struct bb_db *db)
{
	return db->where;
}

bool bb_db_skip_locked(const struct bb_db *db)
{
	return db->be->skip_locked;
}
