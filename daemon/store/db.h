/* SPDX-License-Identifier: GPL-2.0-only */
/* db.h - how the store's subjects run SQL, whatever the backend.
 *
 * A handle (struct bb_db) is one backend connection with its mutex, its
 * cache of prepared statements and its health.  A statement is declared
 * once, as a static struct bb_query in its subject's file: its SQL and,
 * for a query, its column table -- which is both the query's select list
 * and the JSON shape of a row:
 *
 *	static const struct bb_col noise_cols[] = {
 *		{ "job_id", BB_COL_INT64, NULL },
 *		{ "measured", BB_COL_TIME, "created_ms" },
 *	};
 *	static const struct bb_query q_noise = BB_SELECT(noise_cols,
 *		"FROM host_noise WHERE host_id = ?1", "reading noise");
 *
 * runs "SELECT job_id, created_ms FROM host_noise WHERE host_id = ?1"
 * and bb_db_json() makes {"job_id": 3, "measured": "2026-...Z"} of a row.
 *
 * Every call runs within an operation (struct bb_db_op): the handle
 * locked, maybe a transaction, the caller's error buffer and what is
 * being done (for messages).  Parameters are bound from a format string:
 * 'i' int64_t, 'u' unsigned, 'I' an id (int64_t, <= 0 binds NULL), 'b' a
 * bool (0/1), 'd' double, 't' text (NULL binds NULL; not copied: it must
 * live until the operation ends), 'n' NULL (no argument).  Every function
 * returns 0 (or what it says) or -errno with the message in the
 * operation's err; a full disk, an I/O error or a read-only database is
 * remembered for bb_db_check. */
#ifndef BB_STORE_DB_H
#define BB_STORE_DB_H

#include "backend.h"

#include <biobench/common.h>

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct bb_db;

/* ---- column tables and statements ----------------------------------- */

/* How a column reads into JSON: INT64, DOUBLE, TEXT as they are (NULL:
 * null), JSON stored text parsed back (a string if it no longer parses),
 * BOOL an integer as true/false (NULL: false), TIME ms since the epoch
 * as ISO 8601 UTC with ms ("2026-11-30T04:33:10.123Z"). */
enum bb_col_type {
	BB_COL_INT64,
	BB_COL_DOUBLE,
	BB_COL_TEXT,
	BB_COL_JSON,
	BB_COL_BOOL,
	BB_COL_TIME,
};
/* Or'ed into a type: selected (for bb_db_int() & co.) but not part of
 * the row's JSON. */
#define BB_COL_HIDDEN 0x100u
#define BB_COL_TYPE 0xffu

struct bb_col {
	/* the JSON member, a string constant, once in its table; the
	 * column too, unless sql */
	const char *key;
	unsigned type;     /* enum bb_col_type | BB_COL_HIDDEN */
	const char *sql;   /* the column or expression, when not key */
};

struct bb_query {
	/* without cols: the statement; with: what follows the select list
	 * ("FROM ... WHERE ... ORDER BY ...") */
	const char *sql;
	const struct bb_col *cols;
	unsigned ncols;
	unsigned flags;    /* BB_Q_NEW_ID */
	const char *what;  /* what it does, for messages ("listing jobs") */
};

#define BB_SELECT(c, from, w) \
	{ .sql = (from), .cols = (c), .ncols = bb_array_size(c), .what = (w) }
#define BB_STATEMENT(s, w) { .sql = (s), .what = (w) }
/* UPDATE ... RETURNING (complete SQL) whose rows read as the columns c
 * say (their keys; the SQL is not built from them). */
#define BB_RETURNING(c, s, w) \
	{ .sql = (s), .cols = (c), .ncols = bb_array_size(c), \
	  .flags = BB_Q_RETURNING, .what = (w) }
/* An INSERT whose new row's id is wanted (bb_db_run's *out). */
#define BB_INSERT_ID(s, w) { .sql = (s), .flags = BB_Q_NEW_ID, .what = (w) }

/* The complete SQL of q (malloc'd; NULL if out of memory). */
char *bb_db_sql(const struct bb_query *q);

/* ---- handles -------------------------------------------------------- */

/* Open where with its backend (bb_store_backend_for), refuse a schema
 * newer than the backend's migrations (-EPROTO, before anything is
 * changed), configure and migrate. */
int bb_db_open(struct bb_db **out, const char *where, char *err,
	       size_t errlen);
/* bb_db_open with the migrations m instead of the backend's (the local
 * knob journal: bb_migrations_knobs on sqlite). */
int bb_db_open_set(struct bb_db **out, const char *where,
		   const struct bb_migration_set *m, char *err,
		   size_t errlen);
void bb_db_close(struct bb_db *db);
/* The schema version after migration. */
int bb_db_version(const struct bb_db *db);
/* Whether the backend has row locks to skip (backend.h skip_locked). */
bool bb_db_skip_locked(const struct bb_db *db);
/* The database's name in messages (its path). */
const char *bb_db_where(const struct bb_db *db);
/* Whether the backend lost its connection (a server that went away;
 * the next operation reconnects): a write that failed may succeed
 * again. */
bool bb_db_lost(struct bb_db *db);
/* bb_store_check for one handle: any thread, never waits for the
 * handle's mutex. */
int bb_db_check(struct bb_db *db, char *err, size_t errlen);

/* ---- operations ----------------------------------------------------- */

struct bb_db_op {
	struct bb_db *db;
	char *err;
	size_t errlen;
	bool tx;
	enum bb_tx kind;
	char what[128];    /* "" : each statement's own what */
};

/* Lock db for an operation without a transaction (each statement is its
 * own). */
void bb_db_lock(struct bb_db_op *op, struct bb_db *db, char *err,
		size_t errlen);
/* Lock db and begin a transaction.  On failure too, the operation is to
 * be ended by bb_db_end. */
int bb_db_begin(struct bb_db_op *op, struct bb_db *db, enum bb_tx kind,
		char *err, size_t errlen);
/* End the operation: a write transaction commits when ret is 0 and rolls
 * back otherwise (ret BB_DB_NOTHING: nothing was written, roll back and
 * return 0); a read transaction ends; statements are reset (no read
 * snapshot stays open) and the handle is unlocked.  Returns ret or the
 * commit's error. */
#define BB_DB_NOTHING 1
int bb_db_end(struct bb_db_op *op, int ret);
/* What the operation does, for the messages of its statements ("ending
 * job 12"), instead of each statement's own. */
void __attribute__((format(printf, 2, 3)))
bb_db_what(struct bb_db_op *op, const char *fmt, ...);
/* A message of the operation's own (not a database error); returns
 * ret. */
int __attribute__((format(printf, 3, 4)))
bb_db_err(struct bb_db_op *op, int ret, const char *fmt, ...);

/* Run a statement without rows; *out (may be NULL): the new row's id
 * for a BB_INSERT_ID statement, else the rows it changed. */
int bb_db_run(struct bb_db_op *op, const struct bb_query *q, int64_t *out,
	      const char *fmt, ...);
/* bb_db_run with values built by the caller (bb_val_*). */
int bb_db_run_vals(struct bb_db_op *op, const struct bb_query *q,
		   const struct bb_val *v, unsigned n, int64_t *out);

static inline struct bb_val bb_val_int(int64_t i)
{
	return (struct bb_val){ .type = BB_VAL_INT, .i = i };
}
static inline struct bb_val bb_val_double(double d)
{
	return (struct bb_val){ .type = BB_VAL_DOUBLE, .d = d };
}
static inline struct bb_val bb_val_text(const char *t)
{
	return (struct bb_val){ .type = t ? BB_VAL_TEXT : BB_VAL_NULL, .t = t };
}
static inline struct bb_val bb_val_null(void)
{
	return (struct bb_val){ .type = BB_VAL_NULL };
}
/* i or d when has, else NULL. */
static inline struct bb_val bb_val_opt_int(bool has, int64_t i)
{
	return has ? bb_val_int(i) : bb_val_null();
}
static inline struct bb_val bb_val_opt_double(bool has, double d)
{
	return has ? bb_val_double(d) : bb_val_null();
}

/* ---- rows ----------------------------------------------------------- */

struct bb_db_rows {
	struct bb_db_op *op;
	const struct bb_query *q;
	const struct bb_store_backend *be;
	struct bb_be_stmt *st;
};

/* Run query q; then bb_db_next for each row.  A statement is one per
 * handle: q must not run again (or in a nested call) while its rows are
 * read. */
int bb_db_query(struct bb_db_rows *r, struct bb_db_op *op,
		const struct bb_query *q, const char *fmt, ...);
/* 1: the next row is there, 0: no more rows, -errno. */
int bb_db_next(struct bb_db_rows *r);
/* bb_db_query and the first bb_db_next: 1 a row, 0 none, -errno. */
static inline int bb_db_first(struct bb_db_rows *r, int ret)
{
	return ret ? ret : bb_db_next(r);
}
#define bb_db_row(r, op, q, ...) \
	bb_db_first((r), bb_db_query((r), (op), (q), __VA_ARGS__))
/* Every row of q as a JSON array of bb_db_json objects (*arr NULL on
 * failure). */
int bb_db_rows_json(struct bb_db_op *op, const struct bb_query *q,
		    struct json_object **arr, const char *fmt, ...);

/* The current row: the object of its column table (hidden columns left
 * out), one column's JSON value, or one column's value by its key
 * (which must be in the table; NULL reads 0, 0.0, NULL).  Text lives
 * until the next row. */
struct json_object *bb_db_json(const struct bb_db_rows *r);
struct json_object *bb_db_value(const struct bb_db_rows *r, const char *key);
bool bb_db_null(const struct bb_db_rows *r, const char *key);
int64_t bb_db_int(const struct bb_db_rows *r, const char *key);
double bb_db_double(const struct bb_db_rows *r, const char *key);
const char *bb_db_text(const struct bb_db_rows *r, const char *key);

/* A transaction within a locked operation, and its end (as bb_db_end's,
 * without unlocking; ret BB_DB_NOTHING is returned as it is). */
int bb_db_tx(struct bb_db_op *op, enum bb_tx kind);
int bb_db_tx_end(struct bb_db_op *op, int ret);

/* ---- for migrate.c -------------------------------------------------- */

int bb_db_exec(struct bb_db_op *op, const char *sql);
int bb_db_version_get(struct bb_db_op *op, int *v);
int bb_db_version_set(struct bb_db_op *op, int v);

/* migrate.c: -EPROTO when the database's schema is newer than the
 * migrations m; apply the missing ones, *version the result. */
int bb_migrate_check(struct bb_db_op *op, const struct bb_migration_set *m);
int bb_migrate(struct bb_db_op *op, const struct bb_migration_set *m,
	       int *version);

#endif
