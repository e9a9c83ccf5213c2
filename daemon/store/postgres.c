// SPDX-License-Identifier: GPL-2.0-only
/* postgres.c - the store's PostgreSQL backend (see backend.h), on libpq.
 *
 * where is a libpq connection string: a URI (postgresql://..., postgres://)
 * or keyword=value pairs (e.g. "service=biobench").  A password in it is
 * refused: it belongs in ~/.pgpass (PGPASSFILE) or a service file
 * (pg_service.conf), never in biobenchd's configuration or its logs.
 * Messages name the database as "postgresql://USER@HOST:PORT/DB" built
 * from the parsed options, without the password.
 *
 * - SQL: ?N is rewritten to $N in prepare (outside string literals,
 *   quoted identifiers and comments); a BB_Q_NEW_ID INSERT gets
 *   " RETURNING id".  Statements are server-side prepared statements
 *   (PQprepare, named bbN, the parameters' types inferred by the server)
 *   and executed with text values; every row of a statement is fetched
 *   at its first step (the store's queries are pages: LIMIT).
 * - values: int64 as decimal text, doubles with 17 digits (NaN,
 *   Infinity), text as it is; columns are read from text (an integer
 *   column reads a numeric "12.0" or a boolean "t" too).
 * - transactions: read is REPEATABLE READ READ ONLY (one snapshot);
 *   write and durable write are READ COMMITTED after
 *   pg_advisory_xact_lock(BB_PG_WRITE_LOCK): serialized with each other
 *   across every connection to the database, each statement seeing what
 *   committed before the lock was granted.  A (non-durable) write sets
 *   synchronous_commit off for its transaction.  Lock waits end after
 *   lock_timeout (BB_PG_LOCK_TIMEOUT_MS): -EBUSY.  A statement outside a
 *   transaction is its own (autocommit) and takes no lock.
 * - the schema version is the one row of bb_schema_version, created by
 *   configure and set in each migration's transaction.
 * - errors: SQLSTATE mapped to -errno (see pg_errno); a lost connection
 *   is -EIO, reported by check until the connection is back: the next
 *   operation outside a transaction, or revive (db.c's check, when no
 *   operation holds the handle), reconnects (PQreset) and prepares
 *   its statements again (a transaction cut by the loss is lost and
 *   fails; the caller's retry runs on the new connection).  A connection
 *   the server closed while it was idle (a restart) is found before it
 *   is used, and reset without a failure. */
#include "backend.h"
#include "store.h"

#include <biobench/common.h>

#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the key of the advisory lock that serializes write transactions
 * ("biobench" in ASCII) */
#define BB_PG_WRITE_LOCK "7595442685934200424"
#define BB_PG_LOCK_TIMEOUT_MS 10000
#define BB_PG_CONNECT_TIMEOUT_S "10"
#define BB_PG_NAME 384

struct bb_be {
	PGconn *conn;
	char name[BB_PG_NAME];   /* for messages: no password */
	uint64_t gen;            /* bumped by each (re)connection */
	unsigned nstmts;         /* names bb1, bb2, ... */
	bool in_tx;
	/* for check (any thread): the connection is lost, and why */
	atomic_bool lost;
	pthread_mutex_t mlock;
	char lostmsg[256];
};

struct bb_be_stmt {
	struct bb_be *c;
	char *sql;               /* rewritten: $N, RETURNING id */
	char name[16];
	uint64_t gen;            /* prepared on this connection (0: not) */
	unsigned flags;
	int nparams;
	const char **vals;       /* nparams; NULL is SQL NULL */
	char (*buf)[32];         /* the text of numbers */
	PGresult *res;           /* NULL: not executed since the reset */
	int row, nrows;
	int64_t changes, new_id;
};

/* ---- connection strings --------------------------------------------- */

bool bb_store_is_pg(const char *where)
{
	return where && (!strncmp(where, "postgresql://", 13) ||
			 !strncmp(where, "postgres://", 11) ||
			 !strncmp(where, "service=", 8));
}

/* The value of option key in a parsed connection string, NULL if unset. */
static const char *pg_opt(const PQconninfoOption *o, const char *key)
{
	for (; o && o->keyword; o++)
		if (!strcmp(o->keyword, key))
			return o->val && *o->val ? o->val : NULL;
	return NULL;
}

int bb_store_pg_name(const char *where, bool *password, char *name,
		     size_t len)
{
	PQconninfoOption *o;
	const char *service, *user, *host, *port, *db;
	char *perr = NULL;

	if (password)
		*password = false;
	o = PQconninfoParse(where, &perr);
	if (!o) {
		/* not libpq's message: it may quote a piece of the string,
		 * a password too */
		int ret = perr ? -EINVAL : -ENOMEM;

		snprintf(name, len, "(%s)", perr ? "not a valid libpq "
			 "connection string or URI" : "out of memory");
		PQfreemem(perr);
		return ret;
	}
	if (password)
		*password = pg_opt(o, "password") != NULL;
	service = pg_opt(o, "service");
	user = pg_opt(o, "user");
	host = pg_opt(o, "host");
	port = pg_opt(o, "port");
	db = pg_opt(o, "dbname");
	if (service && !host && !db)
		snprintf(name, len, "service=%s", service);
	else
		snprintf(name, len, "postgresql://%s%s%s%s%s/%s", user ? user : "",
			 user ? "@" : "", host ? host : "", port ? ":" : "",
			 port ? port : "", db ? db : "");
	PQconninfoFree(o);
	return 0;
}

/* ---- errors ---------------------------------------------------------- */

static void pg_set_lost(struct bb_be *c, const char *msg)
{
	pthread_mutex_lock(&c->mlock);
	snprintf(c->lostmsg, sizeof(c->lostmsg), "%s", msg);
	pthread_mutex_unlock(&c->mlock);
	atomic_store(&c->lost, true);
}

/* -errno of a SQLSTATE (NULL: none, a failure of the connection). */
static int pg_errno(const char *state)
{
	if (!state || !strncmp(state, "08", 2) || !strcmp(state, "57P01") ||
	    !strcmp(state, "57P02") || !strcmp(state, "57P03"))
		return -EIO;
	if (!strcmp(state, "23505"))
		return -EEXIST;
	if (!strcmp(state, "23503"))
		return -ENOENT;
	if (!strncmp(state, "23", 2) || !strncmp(state, "22", 2))
		return -EINVAL;
	if (!strcmp(state, "53100"))
		return -ENOSPC;
	if (!strcmp(state, "53200"))
		return -ENOMEM;
	if (!strcmp(state, "54000") || !strcmp(state, "54001"))
		return -E2BIG;
	if (!strcmp(state, "40001") || !strcmp(state, "40P01") ||
	    !strcmp(state, "55P03") || !strcmp(state, "57014"))
		return -EBUSY;
	if (!strcmp(state, "25006"))
		return -EROFS;
	if (!strncmp(state, "28", 2) || !strcmp(state, "42501"))
		return -EACCES;
	if (!strncmp(state, "58", 2) || !strcmp(state, "XX001") ||
	    !strcmp(state, "XX002"))
		return -EIO;   /* system error, corruption */
	return -EIO;
}

/* The failure of res (may be NULL) as -errno with a one-line message
 * naming the database and what. */
static int pg_fail(struct bb_be *c, const PGresult *res, const char *what,
		   char *err, size_t errlen)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
				: NULL;
	const char *msg = res ? PQresultErrorField(res,
						   PG_DIAG_MESSAGE_PRIMARY)
			      : NULL;
	char line[256];
	int ret;

	if (!msg || !*msg)
		msg = PQerrorMessage(c->conn);
	if (!msg || !*msg)
		msg = "unknown error";
	snprintf(line, sizeof(line), "%s", msg);
	line[strcspn(line, "\n")] = '\0';
	ret = pg_errno(state);
	if (PQstatus(c->conn) != CONNECTION_OK) {
		ret = -EIO;
		bb_store_seterr(err, errlen,
				"lost the connection to database %s (%s): %s",
				c->name, what, line);
		pg_set_lost(c, err ? err : line);
		return ret;
	}
	switch (ret) {
	case -ENOSPC:
		bb_store_seterr(err, errlen,
				"database or disk is full: %s (%s): %s",
				c->name, what, line);
		break;
	case -EROFS:
		bb_store_seterr(err, errlen, "database %s is read-only (%s)",
				c->name, what);
		break;
	case -EBUSY:
		bb_store_seterr(err, errlen,
				"database is busy: %s (%s): %s", c->name, what,
				line);
		break;
	default:
		bb_store_seterr(err, errlen, "%s: %s (%s, SQLSTATE %s)", what,
				line, c->name, state ? state : "none");
		break;
	}
	return ret;
}

/* One command's result: 0 or -errno (res is cleared). */
static int pg_done(struct bb_be *c, PGresult *res, const char *what,
		   char *err, size_t errlen)
{
	ExecStatusType s = PQresultStatus(res);
	int ret = 0;

	if (!res || (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK &&
		     s != PGRES_EMPTY_QUERY))
		ret = pg_fail(c, res, what, err, errlen);
	PQclear(res);
	return ret;
}

/* ---- the connection -------------------------------------------------- */

static void pg_notice(void *arg, const char *msg)
{
	(void)arg;   /* "relation already exists, skipping" & co. */
	(void)msg;
}

/* What every session sets: after a connection or a reconnection.
 *
 * Generic plans (PostgreSQL 12 and newer): every statement is prepared
 * once and its plan kept.  Left to itself (plan_cache_mode = auto) the
 * server plans the job list anew on every execution: its generic plan's
 * estimate, with "?3 = 1 OR group_id IS NULL" and "id < ?1" unknown, is
 * never below the custom plans', so each list paid about 100 us of
 * planning for a 60 us index scan (EXPLAIN ANALYZE on 10,000 jobs; the
 * page is the same plan either way).  The store's statements are short
 * lookups on indexed columns bounded by LIMIT, where one plan serves
 * every parameter. */
static int pg_session(struct bb_be *c, char *err, size_t errlen)
{
	char sql[128];

	PQsetNoticeProcessor(c->conn, pg_notice, NULL);
	snprintf(sql, sizeof(sql), "SET lock_timeout = %d%s",
		 BB_PG_LOCK_TIMEOUT_MS,
		 PQserverVersion(c->conn) >= 120000 ?
		 "; SET plan_cache_mode = force_generic_plan" : "");
	return pg_done(c, PQexec(c->conn, sql), "configuring the session",
		       err, errlen);
}

/* A usable connection: outside a transaction, a lost one is reset.  An
 * idle connection the server closed (a restart: its goodbye, then EOF)
 * is readable: reading it makes libpq see the loss before a statement
 * is sent on it and fails. */
static int pg_ready(struct bb_be *c, const char *what, char *err,
		    size_t errlen)
{
	struct pollfd p = { .fd = PQsocket(c->conn), .events = POLLIN };
	int ret;

	/* the goodbye first (57P01), the EOF at a further read */
	for (int i = 0; !c->in_tx && p.fd >= 0 && i < 4 &&
	     PQstatus(c->conn) == CONNECTION_OK && poll(&p, 1, 0) > 0; i++)
		if (!PQconsumeInput(c->conn))
			break;
	if (PQstatus(c->conn) == CONNECTION_OK)
		return 0;
	if (c->in_tx) {
		bb_store_seterr(err, errlen,
				"lost the connection to database %s (%s)",
				c->name, what);
		return -EIO;
	}
	PQreset(c->conn);
	if (PQstatus(c->conn) != CONNECTION_OK)
		return pg_fail(c, NULL, what, err, errlen);
	c->gen++;
	ret = pg_session(c, err, errlen);
	if (!ret)
		atomic_store(&c->lost, false);
	return ret;
}

static void pg_close(struct bb_be *c)
{
	if (!c)
		return;
	PQfinish(c->conn);
	pthread_mutex_destroy(&c->mlock);
	free(c);
}

static int pg_open(struct bb_be **out, const char *where, char *err,
		   size_t errlen)
{
	/* ours first: where's own options override them */
	static const char *const keys[] = {
		"connect_timeout", "fallback_application_name", "dbname",
		"client_encoding", NULL,
	};
	const char *vals[] = {
		BB_PG_CONNECT_TIMEOUT_S, "biobenchd", where, "UTF8", NULL,
	};
	struct bb_be *c;
	bool password;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&c->mlock, NULL);
	ret = bb_store_pg_name(where, &password, c->name, sizeof(c->name));
	if (ret) {
		bb_store_seterr(err, errlen, "%s", c->name);
		goto out;
	}
	if (password) {
		bb_store_seterr(err, errlen,
				"database %s: a password in the connection "
				"string is refused: put it in ~/.pgpass (or "
				"the file PGPASSFILE names) or use a service "
				"file (pg_service.conf)", c->name);
		ret = -EINVAL;
		goto out;
	}
	c->conn = PQconnectdbParams(keys, vals, 1);
	if (!c->conn) {
		bb_store_seterr(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (PQstatus(c->conn) != CONNECTION_OK) {
		const char *m = PQerrorMessage(c->conn);

		ret = -EIO;
		if (PQconnectionNeedsPassword(c->conn) ||
		    strstr(m, "authentication failed") ||
		    strstr(m, "no password supplied") ||
		    strstr(m, "permission denied"))
			ret = -EACCES;
		else if (strstr(m, "does not exist"))
			ret = -ENOENT;
		bb_store_seterr(err, errlen, "cannot connect to database %s: %s",
				c->name, m);
		goto out;
	}
	if (PQserverVersion(c->conn) < 100000) {
		bb_store_seterr(err, errlen,
				"database %s: PostgreSQL %d.%d is too old "
				"(10 or newer)", c->name,
				PQserverVersion(c->conn) / 10000,
				PQserverVersion(c->conn) / 100 % 100);
		ret = -ENOTSUP;
		goto out;
	}
	c->gen = 1;
	ret = pg_session(c, err, errlen);
	if (ret)
		goto out;
	*out = c;
	c = NULL;
out:
	pg_close(c);
	return ret;
}

static int pg_exec(struct bb_be *c, const char *sql, const char *what,
		   char *err, size_t errlen)
{
	char buf[256];
	int ret;

	if (!what) {
		snprintf(buf, sizeof(buf), "%s", sql);
		what = buf;
	}
	ret = pg_ready(c, what, err, errlen);
	return ret ? ret : pg_done(c, PQexec(c->conn, sql), what, err, errlen);
}

static int pg_configure(struct bb_be *c, char *err, size_t errlen)
{
	/* the version's table, once (two daemons starting at once wait for
	 * each other on the write lock) */
	return pg_exec(c,
		       "BEGIN;"
		       " SELECT pg_advisory_xact_lock(" BB_PG_WRITE_LOCK ");"
		       " CREATE TABLE IF NOT EXISTS bb_schema_version ("
		       "  one BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),"
		       "  version INTEGER NOT NULL);"
		       " INSERT INTO bb_schema_version (version) VALUES (0)"
		       "  ON CONFLICT DO NOTHING;"
		       " COMMIT",
		       "creating the schema version's table", err, errlen);
}

static void pg_opened(struct bb_be *c)
{
	(void)c;
}

static int pg_check(struct bb_be *c, char *err, size_t errlen)
{
	if (!atomic_load(&c->lost))
		return 0;
	pthread_mutex_lock(&c->mlock);
	bb_store_seterr(err, errlen, "%s", c->lostmsg);
	pthread_mutex_unlock(&c->mlock);
	return -EIO;
}

/* A lost connection tried again now, not only at the next statement:
 * a handle whose thread waits for the store to come back before it
 * sends one (the scheduler) would otherwise never see it back. */
static int pg_revive(struct bb_be *c, char *err, size_t errlen)
{
	int ret;

	if (!atomic_load(&c->lost))
		return 0;
	ret = pg_ready(c, "reconnecting", err, errlen);
	return ret ? ret : pg_check(c, err, errlen);
}

/* The one value of a query without parameters (NULL when no row; *res
 * to be cleared). */
static int pg_value(struct bb_be *c, const char *sql, const char *what,
		    PGresult **res, const char **v, char *err, size_t errlen)
{
	int ret = pg_ready(c, what, err, errlen);

	*res = NULL;
	*v = NULL;
	if (ret)
		return ret;
	*res = PQexec(c->conn, sql);
	if (PQresultStatus(*res) != PGRES_TUPLES_OK)
		return pg_fail(c, *res, what, err, errlen);
	if (PQntuples(*res) && !PQgetisnull(*res, 0, 0))
		*v = PQgetvalue(*res, 0, 0);
	return 0;
}

static int pg_version_get(struct bb_be *c, int *v, char *err, size_t errlen)
{
	const char *what = "reading the schema version", *t;
	PGresult *res;
	int ret;

	*v = 0;
	/* no table yet (before configure): an empty database */
	ret = pg_value(c, "SELECT to_regclass('bb_schema_version') IS NOT NULL",
		       what, &res, &t, err, errlen);
	if (!ret && t && !strcmp(t, "t")) {
		PQclear(res);
		ret = pg_value(c, "SELECT version FROM bb_schema_version", what,
			       &res, &t, err, errlen);
		if (!ret && t)
			*v = atoi(t);
	}
	PQclear(res);
	return ret;
}

static int pg_version_set(struct bb_be *c, int v, char *err, size_t errlen)
{
	char sql[64];

	snprintf(sql, sizeof(sql), "UPDATE bb_schema_version SET version = %d",
		 v);
	return pg_exec(c, sql, "setting the schema version", err, errlen);
}

static void pg_rollback(struct bb_be *c)
{
	if (c->in_tx && PQstatus(c->conn) == CONNECTION_OK)
		PQclear(PQexec(c->conn, "ROLLBACK"));
	c->in_tx = false;
}

static int pg_begin(struct bb_be *c, enum bb_tx kind, char *err,
		    size_t errlen)
{
	static const char *const sql[] = {
		[BB_TX_READ] = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
		[BB_TX_WRITE] = "BEGIN; SET LOCAL synchronous_commit = off;"
				" SELECT pg_advisory_xact_lock("
				BB_PG_WRITE_LOCK ")",
		[BB_TX_DURABLE] = "BEGIN; SELECT pg_advisory_xact_lock("
				  BB_PG_WRITE_LOCK ")",
	};
	int ret = pg_ready(c, "beginning a transaction", err, errlen);

	if (ret)
		return ret;
	c->in_tx = true;
	ret = pg_done(c, PQexec(c->conn, sql[kind]),
		      kind == BB_TX_READ ? "beginning a read transaction"
					 : "taking the write lock", err,
		      errlen);
	if (ret)
		pg_rollback(c);
	return ret;
}

static int pg_commit(struct bb_be *c, char *err, size_t errlen)
{
	PGresult *res = PQexec(c->conn, "COMMIT");
	int ret = 0;

	if (PQresultStatus(res) != PGRES_COMMAND_OK) {
		ret = pg_fail(c, res, "committing", err, errlen);
	} else if (strcmp(PQcmdStatus(res), "COMMIT")) {
		/* an aborted transaction "commits" as ROLLBACK */
		bb_store_seterr(err, errlen,
				"committing: the transaction was rolled back "
				"(%s)", c->name);
		ret = -EIO;
	}
	PQclear(res);
	c->in_tx = false;
	return ret;
}

/* ---- statements ------------------------------------------------------ */

/* sql with ?N as $N (a bare ? is the next number, as in sqlite) and, for
 * BB_Q_NEW_ID, " RETURNING id"; *nparams the highest number.  String
 * literals ('...', E'...'), quoted identifiers and comments are copied
 * as they are (dollar-quoted strings are not recognised: the subjects'
 * SQL, sqlite's dialect, has none). */
static char *pg_rewrite(const char *sql, unsigned flags, int *nparams)
{
	size_t len = strlen(sql);
	/* a bare "?" -> "$N" grows by the digits of N (< 8) */
	char *out = malloc(8 * len + 32), *o = out;
	const char *p = sql;
	int max = 0;

	if (!out)
		return NULL;
	while (*p) {
		if (*p == '\'' || *p == '"') {
			char q = *p;
			/* E'...': backslash escapes */
			bool esc = q == '\'' && p > sql &&
				   (p[-1] == 'E' || p[-1] == 'e');

			*o++ = *p++;
			while (*p) {
				if (esc && *p == '\\' && p[1]) {
					*o++ = *p++;
				} else if (*p == q) {
					if (p[1] != q)
						break;
					*o++ = *p++;   /* '' "" */
				}
				*o++ = *p++;
			}
			if (*p)
				*o++ = *p++;
		} else if (p[0] == '-' && p[1] == '-') {
			while (*p && *p != '\n')
				*o++ = *p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			size_t n = e ? (size_t)(e + 2 - p) : strlen(p);

			memcpy(o, p, n);
			o += n;
			p += n;
		} else if (*p == '?') {
			int n = 0;

			p++;
			if (*p >= '0' && *p <= '9') {
				while (*p >= '0' && *p <= '9' && n < 100000)
					n = n * 10 + (*p++ - '0');
			} else {
				n = max + 1;
			}
			if (n > max)
				max = n;
			o += sprintf(o, "$%d", n);
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	if (flags & BB_Q_NEW_ID)
		strcat(o, " RETURNING id");
	*nparams = max;
	return out;
}

static void pg_finalize(struct bb_be_stmt *st)
{
	if (!st)
		return;
	PQclear(st->res);
	/* a prepared statement lives as long as its connection: free it
	 * on the server when the connection stays */
	if (st->gen && st->gen == st->c->gen && !st->c->in_tx &&
	    PQstatus(st->c->conn) == CONNECTION_OK) {
		char sql[40];

		snprintf(sql, sizeof(sql), "DEALLOCATE %s", st->name);
		PQclear(PQexec(st->c->conn, sql));
	}
	free(st->sql);
	free(st->vals);
	free(st->buf);
	free(st);
}

/* Prepare st on the current connection (again after a reconnection). */
static int pg_prepare_now(struct bb_be_stmt *st, const char *what, char *err,
			  size_t errlen)
{
	struct bb_be *c = st->c;
	int ret;

	if (st->gen == c->gen)
		return 0;
	ret = pg_done(c, PQprepare(c->conn, st->name, st->sql, 0, NULL), what,
		      err, errlen);
	if (!ret)
		st->gen = c->gen;
	return ret;
}

static int pg_prepare(struct bb_be *c, const char *sql, unsigned flags,
		      struct bb_be_stmt **out, const char *what, char *err,
		      size_t errlen)
{
	struct bb_be_stmt *st;
	int ret;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st) {
		bb_store_seterr(err, errlen, "%s: out of memory", what);
		return -ENOMEM;
	}
	st->c = c;
	st->flags = flags;
	snprintf(st->name, sizeof(st->name), "bb%u", ++c->nstmts);
	st->sql = pg_rewrite(sql, flags, &st->nparams);
	if (st->sql && st->nparams) {
		st->vals = calloc((size_t)st->nparams, sizeof(*st->vals));
		st->buf = calloc((size_t)st->nparams, sizeof(*st->buf));
	}
	if (!st->sql || (st->nparams && (!st->vals || !st->buf))) {
		bb_store_seterr(err, errlen, "%s: out of memory", what);
		ret = -ENOMEM;
		goto out;
	}
	ret = pg_ready(c, what, err, errlen);
	if (!ret)
		ret = pg_prepare_now(st, what, err, errlen);
	if (ret)
		goto out;
	*out = st;
	st = NULL;
out:
	pg_finalize(st);
	return ret;
}

static void pg_reset(struct bb_be_stmt *st)
{
	PQclear(st->res);
	st->res = NULL;
	st->row = st->nrows = 0;
	for (int i = 0; i < st->nparams; i++)
		st->vals[i] = NULL;
}

static int pg_bind(struct bb_be_stmt *st, const struct bb_val *v, unsigned n,
		   const char *what, char *err, size_t errlen)
{
	if (n > (unsigned)st->nparams) {
		bb_store_seterr(err, errlen,
				"%s: %u values for %d parameters (%s)", what,
				n, st->nparams, st->c->name);
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++) {
		char *b = st->buf[i];

		switch (v[i].type) {
		case BB_VAL_INT:
			snprintf(b, sizeof(st->buf[i]), "%" PRId64, v[i].i);
			st->vals[i] = b;
			break;
		case BB_VAL_DOUBLE:
			if (isnan(v[i].d))
				snprintf(b, sizeof(st->buf[i]), "NaN");
			else if (isinf(v[i].d))
				snprintf(b, sizeof(st->buf[i]), "%sInfinity",
					 v[i].d < 0 ? "-" : "");
			else
				snprintf(b, sizeof(st->buf[i]), "%.17g",
					 v[i].d);
			st->vals[i] = b;
			break;
		case BB_VAL_TEXT:
			st->vals[i] = v[i].t;
			break;
		default:
			st->vals[i] = NULL;
			break;
		}
	}
	return 0;
}

static int pg_step(struct bb_be_stmt *st, const char *what, char *err,
		   size_t errlen)
{
	struct bb_be *c = st->c;
	ExecStatusType s;
	int ret;

	if (st->res)
		return ++st->row < st->nrows ? 1 : 0;
	ret = pg_ready(c, what, err, errlen);
	if (!ret)
		ret = pg_prepare_now(st, what, err, errlen);
	if (ret)
		return ret;
	st->res = PQexecPrepared(c->conn, st->name, st->nparams, st->vals,
				 NULL, NULL, 0);
	s = PQresultStatus(st->res);
	if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
		ret = pg_fail(c, st->res, what, err, errlen);
		PQclear(st->res);
		st->res = NULL;
		return ret;
	}
	st->changes = strtoll(PQcmdTuples(st->res), NULL, 10);
	st->row = 0;
	if (st->flags & BB_Q_NEW_ID) {
		st->new_id = PQntuples(st->res) ?
			     strtoll(PQgetvalue(st->res, 0, 0), NULL, 10) : 0;
		st->nrows = 0;
		return 0;
	}
	st->nrows = s == PGRES_TUPLES_OK ? PQntuples(st->res) : 0;
	return st->nrows > 0 ? 1 : 0;
}

static int64_t pg_changes(struct bb_be_stmt *st)
{
	return st->changes;
}

static int64_t pg_new_id(struct bb_be_stmt *st)
{
	return st->new_id;
}

/* The text of column col of the current row, NULL for NULL or no row. */
static const char *pg_col(struct bb_be_stmt *st, unsigned col)
{
	if (!st->res || st->row >= st->nrows ||
	    (int)col >= PQnfields(st->res) ||
	    PQgetisnull(st->res, st->row, (int)col))
		return NULL;
	return PQgetvalue(st->res, st->row, (int)col);
}

static bool pg_is_null(struct bb_be_stmt *st, unsigned col)
{
	return !pg_col(st, col);
}

static int64_t pg_col_int(struct bb_be_stmt *st, unsigned col)
{
	const char *t = pg_col(st, col);
	char *end;
	int64_t v;

	if (!t)
		return 0;
	if (!strcmp(t, "t") || !strcmp(t, "f"))   /* a boolean */
		return *t == 't';
	v = strtoll(t, &end, 10);
	if (*end == '.' || *end == 'e' || *end == 'E')   /* numeric, float */
		v = (int64_t)strtod(t, NULL);
	return v;
}

static double pg_col_double(struct bb_be_stmt *st, unsigned col)
{
	const char *t = pg_col(st, col);

	return t ? strtod(t, NULL) : 0.0;
}

static const char *pg_col_text(struct bb_be_stmt *st, unsigned col)
{
	return pg_col(st, col);
}

/* ---- one daemon per host name ------------------------------------------
 *
 * Daemons with different host names share a database (the fleet's
 * claims and leases keep them apart); two with the same name would each
 * take the other's jobs for their own: a start marks its running jobs
 * interrupted and restores their knobs.  The guard is a connection of
 * its own holding, for the daemon's life, a session-level advisory lock
 * keyed (BB_PG_DAEMON_CLASS, the name's id) -- the two-key form, apart
 * from the write lock's one bigint key.  The id is the name's row in
 * bb_host_names (a unique row per name, an int4 identity: no hash, so
 * two names never share a lock), made by the guard itself under the
 * write lock, since it runs before the store's migrations.  Its
 * application_name names the daemon (pid first: the server keeps 63
 * bytes of it), so that a second one is told who holds it. */
#define BB_PG_DAEMON_CLASS "1651597412"   /* "bbd1"-ish, any int4 */

int bb_store_pg_guard(const char *where, const char *host_name, void **guard,
		      char *err, size_t errlen)
{
	struct bb_be *c = NULL;
	PGresult *res = NULL;
	const char *v = NULL;
	char app[320], sql[2048], id[24] = "0", *lit = NULL, *nlit = NULL;
	int ret;

	*guard = NULL;
	ret = pg_open(&c, where, err, errlen);
	if (ret)
		return ret;
	snprintf(app, sizeof(app), "biobenchd pid %ld, host %s",
		 (long)getpid(), host_name);
	lit = PQescapeLiteral(c->conn, app, strlen(app));
	nlit = PQescapeLiteral(c->conn, host_name, strlen(host_name));
	if (!lit || !nlit) {
		ret = pg_fail(c, NULL, "quoting the host name", err, errlen);
		goto out;
	}
	snprintf(sql, sizeof(sql), "SET application_name = %s", lit);
	PQclear(PQexec(c->conn, sql));
	/* one implicit transaction: the name's row, its id */
	snprintf(sql, sizeof(sql), "SELECT pg_advisory_xact_lock("
		 BB_PG_WRITE_LOCK "); CREATE TABLE IF NOT EXISTS bb_host_names"
		 " (id INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
		 " name TEXT NOT NULL UNIQUE); INSERT INTO bb_host_names (name)"
		 " VALUES (%s) ON CONFLICT (name) DO NOTHING; SELECT id FROM"
		 " bb_host_names WHERE name = %s", nlit, nlit);
	ret = pg_value(c, sql, "reading the host name's id", &res, &v, err,
		       errlen);
	if (!ret && !v)
		ret = pg_fail(c, NULL, "reading the host name's id", err,
			      errlen);
	if (!ret)
		snprintf(id, sizeof(id), "%s", v);
	PQclear(res);
	res = NULL;
	v = NULL;
	snprintf(sql, sizeof(sql), "SELECT pg_try_advisory_lock("
		 BB_PG_DAEMON_CLASS ", %s)", id);
	if (!ret)
		ret = pg_value(c, sql, "taking the host name's lock", &res,
			       &v, err, errlen);
	if (!ret && (!v || strcmp(v, "t"))) {
		PQclear(res);
		res = NULL;
		v = NULL;
		snprintf(sql, sizeof(sql), "SELECT a.application_name FROM "
			 "pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
			 "WHERE l.locktype = 'advisory' AND l.granted AND "
			 "l.objsubid = 2 AND l.classid::text::bigint = "
			 BB_PG_DAEMON_CLASS " AND l.objid::text::bigint = %s "
			 "LIMIT 1", id);
		pg_value(c, sql, "naming the host name's lock holder", &res,
			 &v, err, errlen);
		bb_store_seterr(err, errlen,
				"host name %s is in use by another biobenchd "
				"on database %s (%s): one daemon per host "
				"name; stop it, or give this one another "
				"host_name", host_name, c->name,
				v && *v ? v : "unknown");
		ret = -EBUSY;
	}
out:
	PQclear(res);
	if (lit)
		PQfreemem(lit);
	if (nlit)
		PQfreemem(nlit);
	if (ret) {
		pg_close(c);
		return ret;
	}
	*guard = c;
	return 0;
}

void bb_store_pg_guard_release(void *guard)
{
	pg_close(guard);
}

const struct bb_store_backend bb_store_postgres = {
	.name = "postgresql",
	.migrations = &bb_migrations_pg,
	.skip_locked = true,
	.open = pg_open,
	.configure = pg_configure,
	.opened = pg_opened,
	.close = pg_close,
	.check = pg_check,
	.revive = pg_revive,
	.exec = pg_exec,
	.version_get = pg_version_get,
	.version_set = pg_version_set,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.prepare = pg_prepare,
	.finalize = pg_finalize,
	.reset = pg_reset,
	.bind = pg_bind,
	.step = pg_step,
	.changes = pg_changes,
	.new_id = pg_new_id,
	.is_null = pg_is_null,
	.col_int = pg_col_int,
	.col_double = pg_col_double,
	.col_text = pg_col_text,
};
