/* SPDX-License-Identifier: GPL-2.0-only */
/* backend.h - the store's seam to a database engine.
 *
 * The store's subjects (jobs.c, runs.c, knobs.c, ...) never call an
 * engine: they run struct bb_query statements through db.h, and db.c
 * drives one of these ops tables.  sqlite (sqlite.c) is the only backend
 * today.  What a backend provides:
 *
 * - SQL: the subjects' SQL is plain: numbered parameters ?1, ?2... (an
 *   engine with $1, $2... rewrites them in prepare), INSERT ... ON
 *   CONFLICT ... DO NOTHING / DO UPDATE, coalesce, CASE, count; no
 *   engine functions, no PRAGMA, no INSERT OR IGNORE, no
 *   last_insert_rowid().  An INSERT flagged BB_Q_NEW_ID wants the new
 *   row's "id" back from new_id (sqlite: sqlite3_last_insert_rowid; an
 *   engine with RETURNING appends " RETURNING id" in prepare and reads
 *   it in step).
 * - values: 64-bit integers, doubles, UTF-8 text and NULL, bound by
 *   number (the text is not copied: it lives until the statement is
 *   reset) and read by column number (text read lives until the next
 *   step or reset).
 * - transactions (enum bb_tx): read (one snapshot for a document built
 *   from several queries), write (the write lock taken at BEGIN, so that
 *   a busy database waits there and not at COMMIT) and durable write
 *   (synced to disk at COMMIT even where writes are relaxed otherwise:
 *   job states and the knob journal).  Write transactions are serialized
 *   with each other, and the subjects rely on it: what a write
 *   transaction reads stays true until it commits (the queue limit
 *   counts then inserts; a job's end reads its state then updates it).
 *   sqlite gets this from BEGIN IMMEDIATE; an engine with row locks
 *   needs a lock of its own at BEGIN, or serializable isolation with a
 *   retry.  The one exception is the claim of a queued job (fleet.c),
 *   which with skip_locked runs outside a transaction on row locks.
 * - errors: -errno with a one-line message naming the database and what
 *   was being done (the what argument): -ENOSPC (full), -EIO (I/O error,
 *   corrupt, not a database), -EROFS (read-only) -- remembered by db.c
 *   for the store's health --, -EBUSY (locked beyond the timeout),
 *   -ENOENT (a foreign key), -EEXIST (a unique key), -EINVAL (another
 *   constraint), -ENOMEM, -E2BIG, -EACCES/-ENOENT (cannot open).
 * - the schema version, and the migrations written in its dialect
 *   (migrate.c applies them, one transaction each).
 *
 * A connection is used by one thread at a time (db.c holds a mutex);
 * check may be called from any thread at any time. */
#ifndef BB_STORE_BACKEND_H
#define BB_STORE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bb_be;       /* a connection of a backend */
struct bb_be_stmt;  /* a prepared statement of a connection */

/* A bound value (text NULL is bound as NULL). */
enum bb_val_type { BB_VAL_NULL, BB_VAL_INT, BB_VAL_DOUBLE, BB_VAL_TEXT };
struct bb_val {
	enum bb_val_type type;
	union {
		int64_t i;
		double d;
		const char *t;
	};
};

enum bb_tx { BB_TX_READ, BB_TX_WRITE, BB_TX_DURABLE };

/* struct bb_query.flags: an INSERT whose new row's id is wanted; a
 * statement with rows that is not a SELECT (UPDATE ... RETURNING: its
 * SQL is complete, its column table names what it returns). */
#define BB_Q_NEW_ID 1u
#define BB_Q_RETURNING 2u

/* The numbered migrations of one dialect (struct bb_migration is
 * cmake/embed_migrations.cmake's {version, name, sql}). */
struct bb_migration;
struct bb_migration_set {
	const struct bb_migration *list;
	size_t n;
	/* run outside the migrations' transactions, before the first
	 * pending one and after the last (NULL: none): sqlite turns foreign
	 * keys off so that a migration may rebuild a table (004) */
	const char *before, *after;
};

struct bb_store_backend {
	const char *name;
	const struct bb_migration_set *migrations;
	/* rows locks that other transactions may skip (SELECT ... FOR
	 * UPDATE SKIP LOCKED): the claim of a queued job uses them instead
	 * of the write lock (jobs.c) */
	bool skip_locked;

	/* Connect to where (sqlite: a file path, ":memory:" or a "file:"
	 * URI) without changing the database; *c NULL on failure. */
	int (*open)(struct bb_be **c, const char *where, char *err,
		    size_t errlen);
	/* The session's settings, after the version check and before the
	 * migrations (sqlite: WAL, foreign keys, synchronous=NORMAL). */
	int (*configure)(struct bb_be *c, char *err, size_t errlen);
	/* Migrated and ready: remember what was opened, for check. */
	void (*opened)(struct bb_be *c);
	void (*close)(struct bb_be *c);
	/* 0, or -ENOENT / -ESTALE when the database is no longer what was
	 * opened (sqlite: the file was deleted or replaced), with a
	 * message. */
	int (*check)(struct bb_be *c, char *err, size_t errlen);
	/* NULL, or: a connection check reports lost is tried again now
	 * (called under db.c's mutex, outside a transaction); 0 once it is
	 * back, else check's error. */
	int (*revive)(struct bb_be *c, char *err, size_t errlen);

	/* SQL without parameters or rows, one or several statements (a
	 * migration); what NULL names the SQL itself in a message. */
	int (*exec)(struct bb_be *c, const char *sql, const char *what,
		    char *err, size_t errlen);
	/* The schema version (0: an empty database); set within the
	 * migration's transaction. */
	int (*version_get)(struct bb_be *c, int *v, char *err, size_t errlen);
	int (*version_set)(struct bb_be *c, int v, char *err, size_t errlen);

	int (*begin)(struct bb_be *c, enum bb_tx kind, char *err,
		     size_t errlen);
	/* COMMIT; the transaction is over either way. */
	int (*commit)(struct bb_be *c, char *err, size_t errlen);
	/* End the open transaction, if any (quietly: the engine may have
	 * rolled it back itself, e.g. on a full disk). */
	void (*rollback)(struct bb_be *c);

	/* Statements: sql is complete (db.c built any select list);
	 * flags BB_Q_*. */
	int (*prepare)(struct bb_be *c, const char *sql, unsigned flags,
		       struct bb_be_stmt **st, const char *what, char *err,
		       size_t errlen);
	void (*finalize)(struct bb_be_stmt *st);
	/* End the statement's rows and forget its values. */
	void (*reset)(struct bb_be_stmt *st);
	int (*bind)(struct bb_be_stmt *st, const struct bb_val *v, unsigned n,
		    const char *what, char *err, size_t errlen);
	/* 1: a row is there, 0: done, -errno. */
	int (*step)(struct bb_be_stmt *st, const char *what, char *err,
		    size_t errlen);
	/* After the step of a statement without rows: the rows it changed;
	 * a BB_Q_NEW_ID statement's new id. */
	int64_t (*changes)(struct bb_be_stmt *st);
	int64_t (*new_id)(struct bb_be_stmt *st);
	/* Column col of the current row (NULL reads 0, 0.0, NULL). */
	bool (*is_null)(struct bb_be_stmt *st, unsigned col);
	int64_t (*col_int)(struct bb_be_stmt *st, unsigned col);
	double (*col_double)(struct bb_be_stmt *st, unsigned col);
	const char *(*col_text)(struct bb_be_stmt *st, unsigned col);
};

extern const struct bb_store_backend bb_store_sqlite;
extern const struct bb_store_backend bb_store_postgres;
/* migrate.c: schema/migrations/NNN_*.sql, sqlite's dialect, and
 * schema/migrations/pg/NNN_*.sql, PostgreSQL's. */
extern const struct bb_migration_set bb_migrations_sqlite;
extern const struct bb_migration_set bb_migrations_pg;

/* A PostgreSQL connection string's name for messages and logs, without
 * its password ("postgresql://USER@HOST:PORT/DB", "service=NAME");
 * *password (may be NULL): whether it holds one.  -EINVAL when it does
 * not parse (name then says why). */
int bb_store_pg_name(const char *where, bool *password, char *name,
		     size_t len);

/* A one-line message (newlines become spaces) in err, when err is not
 * NULL; for the backends and the store alike. */
void __attribute__((format(printf, 3, 4)))
bb_store_seterr(char *err, size_t errlen, const char *fmt, ...);

/* The backend for where: PostgreSQL for a connection string
 * (bb_store_is_pg), sqlite for anything else (a path). */
const struct bb_store_backend *bb_store_backend_for(const char *where);

#endif
