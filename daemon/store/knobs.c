// SPDX-License-Identifier: GPL-2.0-only
/* knobs.c - the sysfs knob journal (see store.h): a row per changed knob,
 * written before the change (pending, with the original value), marked
 * applied after it and restored after the original went back; with the
 * device the knob belongs to, so that recovery never writes a value onto
 * another device, and why a row cannot be restored.  Every write is a
 * durable transaction of its own, on the journal's handle (kdb), never
 * together with the rest of the store: in a fleet the journal stays in a
 * local database while jobs move to a shared one.
 *
 * A local journal (kdb another handle than db: a PostgreSQL store) is
 * written first and durably, before the knob is; then its changed rows
 * are copied into the shared knob_journal (host, local_id), best-effort,
 * for the job documents every daemon serves: a copy that fails (the
 * shared store unreachable) is tried again at the next journal write and
 * at each heartbeat.  Recovery reads the local journal only: a copy is
 * never restored from, and the shared table holds every host's rows. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the store's journal, and a local one (its rows name their store and
 * count their revisions: schema/migrations/knobs/) */
#define Q_KNOB_INSERT \
	"INSERT INTO knob_journal (job_id, target, knob, path, original," \
	" applied, state, created_ms, dev_major, dev_minor, dev_name," \
	" dev_ident"
#define Q_KNOB_VALUES \
	") VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?8, ?9, ?10, ?11"
static const struct bb_query q_knob_insert = BB_INSERT_ID(
	Q_KNOB_INSERT Q_KNOB_VALUES ")", "journaling a knob");
static const struct bb_query q_knob_insert_local = BB_INSERT_ID(
	Q_KNOB_INSERT ", store" Q_KNOB_VALUES ", ?12)", "journaling a knob");
#define Q_KNOB_MARK \
	"UPDATE knob_journal SET state = ?2, restored_ms =" \
	" CASE WHEN ?2 = 'restored' THEN ?3 ELSE restored_ms END"
static const struct bb_query q_knob_mark = BB_STATEMENT(
	Q_KNOB_MARK " WHERE id = ?1", "marking a knob");
static const struct bb_query q_knob_mark_local = BB_STATEMENT(
	Q_KNOB_MARK ", rev = rev + 1 WHERE id = ?1", "marking a knob");
#define Q_KNOB_UNRESTORABLE "UPDATE knob_journal SET not_restorable = ?2"
static const struct bb_query q_knob_unrestorable = BB_STATEMENT(
	Q_KNOB_UNRESTORABLE " WHERE id = ?1", "marking a knob not restorable");
static const struct bb_query q_knob_unrestorable_local = BB_STATEMENT(
	Q_KNOB_UNRESTORABLE ", rev = rev + 1 WHERE id = ?1",
	"marking a knob not restorable");

/* The text columns of every journal row, in the order of the table. */
#define BB_KNOB_TEXT_COLS \
	{ "target", BB_COL_TEXT, NULL }, \
	{ "knob", BB_COL_TEXT, NULL }, \
	{ "path", BB_COL_TEXT, NULL }, \
	{ "original", BB_COL_TEXT, NULL }, \
	{ "applied", BB_COL_TEXT, NULL }, \
	{ "state", BB_COL_TEXT, NULL }

/* ---- the copy of a local journal in the shared store ------------------- */

/* A local row changed since its last copy (the columns in the order the
 * upsert binds them, after id and rev). */
static const struct bb_col bb_knob_mirror_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "rev", BB_COL_INT64, NULL },
	{ "job_id", BB_COL_INT64, NULL },
	BB_KNOB_TEXT_COLS,
	{ "created_ms", BB_COL_INT64, NULL },
	{ "restored_ms", BB_COL_INT64, NULL },
	{ "dev_major", BB_COL_INT64, NULL },
	{ "dev_minor", BB_COL_INT64, NULL },
	{ "dev_name", BB_COL_TEXT, NULL },
	{ "dev_ident", BB_COL_TEXT, NULL },
	{ "not_restorable", BB_COL_TEXT, NULL },
};
#define BB_KNOB_MIRROR_VALS (bb_array_size(bb_knob_mirror_cols) - 2)
static const struct bb_query q_knob_unmirrored = BB_SELECT(
	bb_knob_mirror_cols,
	"FROM knob_journal WHERE mirrored_rev < rev AND store = ?1"
	" AND id > ?2 ORDER BY id LIMIT 1",
	"reading the local knob journal");
static const struct bb_query q_knob_mirrored = BB_STATEMENT(
	"UPDATE knob_journal SET mirrored_rev = ?2"
	" WHERE id = ?1 AND mirrored_rev < ?2",
	"marking a knob journal row copied");
static const struct bb_query q_knob_mirror = BB_STATEMENT(
	"INSERT INTO knob_journal (job_id, target, knob, path, original,"
	" applied, state, created_ms, restored_ms, dev_major, dev_minor,"
	" dev_name, dev_ident, not_restorable, host, local_id)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
	" ?14, ?15, ?16)"
	" ON CONFLICT (host, local_id, created_ms) WHERE local_id IS NOT NULL"
	" DO UPDATE SET applied = excluded.applied, state = excluded.state,"
	" restored_ms = excluded.restored_ms,"
	" not_restorable = excluded.not_restorable",
	"copying the knob journal into the shared store");

/* The next local row after id `after` whose copy is behind: its values
 * (text malloc'd into txt) and rev; 1 a row, 0 none, -errno. */
static int bb_store_knob_unmirrored(struct bb_store *s, int64_t after,
				    struct bb_val *v, char **txt,
				    int64_t *id, int64_t *rev, char *err,
				    size_t errlen)
{
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret, found;

	bb_db_lock(&op, s->kdb, err, errlen);
	for (unsigned i = 0; i < BB_KNOB_MIRROR_VALS; i++)
		txt[i] = NULL;
	ret = bb_db_row(&r, &op, &q_knob_unmirrored, "ti", s->kstore, after);
	found = ret > 0;
	if (found) {
		ret = 0;
		*id = bb_db_int(&r, "id");
		*rev = bb_db_int(&r, "rev");
		for (unsigned i = 0; i < BB_KNOB_MIRROR_VALS; i++) {
			const struct bb_col *c = &bb_knob_mirror_cols[i + 2];

			if (bb_db_null(&r, c->key))
				v[i] = bb_val_null();
			else if (c->type == BB_COL_INT64)
				v[i] = bb_val_int(bb_db_int(&r, c->key));
			else if (!(txt[i] = strdup(bb_db_text(&r, c->key))))
				ret = bb_db_err(&op, -ENOMEM, "out of memory");
			else
				v[i] = bb_val_text(txt[i]);
		}
	}
	/* (1 would read as bb_db_end's BB_DB_NOTHING) */
	ret = bb_db_end(&op, ret);
	if (ret && found)
		for (unsigned i = 0; i < BB_KNOB_MIRROR_VALS; i++)
			free(txt[i]);
	return ret ? ret : found;
}

int bb_store_knobs_mirror(struct bb_store *s, char *err, size_t errlen)
{
	struct bb_val v[BB_KNOB_MIRROR_VALS + 2];
	char *txt[BB_KNOB_MIRROR_VALS];
	int64_t id = 0, rev = 0;
	struct bb_db_op op;
	int ret;

	if (!s->kdb || !s->db || s->kdb == s->db)
		return 0;
	/* one copier at a time: an older revision never overwrites a
	 * newer one */
	pthread_mutex_lock(&s->mlock);
	while ((ret = bb_store_knob_unmirrored(s, id, v, txt, &id, &rev, err,
					       errlen)) > 0) {
		v[BB_KNOB_MIRROR_VALS] = bb_val_text(s->me);
		v[BB_KNOB_MIRROR_VALS + 1] = bb_val_int(id);
		bb_db_lock(&op, s->db, err, errlen);
		ret = bb_db_run_vals(&op, &q_knob_mirror, v,
				     BB_KNOB_MIRROR_VALS + 2, NULL);
		ret = bb_db_end(&op, ret);
		for (unsigned i = 0; i < BB_KNOB_MIRROR_VALS; i++)
			free(txt[i]);
		/* -ENOENT: its job is not in this store (the row is kept
		 * locally, for its knob, not copied) */
		if (ret && ret != -ENOENT)
			break;
		ret = bb_db_begin(&op, s->kdb, BB_TX_WRITE, err, errlen);
		if (!ret)
			ret = bb_db_run(&op, &q_knob_mirrored, NULL, "ii", id,
					rev);
		ret = bb_db_end(&op, ret);
		if (ret)
			break;
	}
	pthread_mutex_unlock(&s->mlock);
	return ret;
}

/* After a local journal write: its copy (a failure is only for later). */
static int bb_store_knob_copied(struct bb_store *s, int ret)
{
	if (!ret)
		bb_store_knobs_mirror(s, NULL, 0);
	return ret;
}

/* The journal of s, or -EINVAL: a PostgreSQL handle without a local
 * journal journals nothing. */
static int bb_store_knob_kdb(struct bb_store *s, char *err, size_t errlen)
{
	if (s->kdb)
		return 0;
	bb_store_seterr(err, errlen, "this store handle has no knob journal: "
			"on a PostgreSQL store the journal is a local sqlite "
			"file (knob_journal)");
	return -EINVAL;
}

static bool bb_store_knob_local(const struct bb_store *s)
{
	return s->kdb != s->db;
}

static const struct bb_col bb_knob_state_cols[] = {
	{ "state", BB_COL_TEXT, NULL },
};
static const struct bb_query q_knob_state = BB_SELECT(bb_knob_state_cols,
	"FROM knob_journal WHERE id = ?1", "reading the knob journal");

/* A journal row: its JSON in the job document (the columns not hidden,
 * in order) and struct bb_knob_row. */
static const struct bb_col bb_knob_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "job_id", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	BB_KNOB_TEXT_COLS,
	{ "created", BB_COL_TIME, "created_ms" },
	{ "restored", BB_COL_TIME, "restored_ms" },
	{ "dev_major", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "dev_minor", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "device", BB_COL_TEXT, "dev_name" },
	{ "device_ident", BB_COL_TEXT, "dev_ident" },
	{ "not_restorable", BB_COL_TEXT, NULL },
};
static const struct bb_query q_knobs_unrestored = BB_SELECT(bb_knob_cols,
	"FROM knob_journal WHERE state <> 'restored'"
	" AND not_restorable IS NULL ORDER BY id",
	"reading the knob journal");
static const struct bb_query q_knobs_of_job = BB_SELECT(bb_knob_cols,
	"FROM knob_journal WHERE job_id = ?1 ORDER BY id",
	"reading the knobs of a job");

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
	struct bb_db_op op;
	int64_t kid = 0;
	int ret;

	if (!knob || !path || !original) {
		bb_store_seterr(err, errlen,
				"a knob journal row needs the knob, its path "
				"and its original value");
		return -EINVAL;
	}
	ret = bb_store_knob_kdb(s, err, errlen);
	if (ret)
		return ret;
	if (!s->db) {
		bb_store_seterr(err, errlen, "a knob journal without its store "
				"restores knobs, it journals no new one");
		return -ENOTCONN;
	}
	ret = bb_db_begin(&op, s->kdb, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	/* the device: NULL columns when unknown; a local row its store */
	{
		const struct bb_val v[] = {
			bb_val_opt_int(job_id > 0, job_id),
			bb_val_text(target),
			bb_val_text(knob),
			bb_val_text(path),
			bb_val_text(original),
			bb_val_text(applied),
			bb_val_int(bb_store_now_ms()),
			bb_val_opt_int(dev, dev ? dev->major : 0),
			bb_val_opt_int(dev, dev ? dev->minor : 0),
			bb_val_text(dev ? dev->name : NULL),
			bb_val_text(dev ? dev->ident : NULL),
			bb_val_text(s->kstore),
		};
		bool local = bb_store_knob_local(s);

		ret = bb_db_run_vals(&op, local ? &q_knob_insert_local
						: &q_knob_insert,
				     v, bb_array_size(v) - !local, &kid);
	}
out:
	ret = bb_db_end(&op, ret);
	if (!ret && id)
		*id = kid;
	return bb_store_knob_copied(s, ret);
}

int bb_store_knob_mark(struct bb_store *s, int64_t id, const char *state,
		       char *err, size_t errlen)
{
	int want = bb_store_knob_rank(state), cur;
	struct bb_db_rows r;
	struct bb_db_op op;
	const char *now;
	int ret;

	if (want < 0) {
		bb_store_seterr(err, errlen,
				"knob state must be pending, applied or "
				"restored, not %s", state ? state : "(null)");
		return -EINVAL;
	}
	ret = bb_store_knob_kdb(s, err, errlen);
	if (ret)
		return ret;
	ret = bb_db_begin(&op, s->kdb, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	ret = bb_db_row(&r, &op, &q_knob_state, "i", id);
	if (ret < 0)
		goto out;
	if (!ret) {
		ret = bb_db_err(&op, -ENOENT, "no knob journal row %lld",
				(long long)id);
		goto out;
	}
	now = bb_db_text(&r, "state");
	cur = bb_store_knob_rank(now);
	if (want < cur) {
		ret = bb_db_err(&op, -EINVAL,
				"knob journal row %lld is already %s",
				(long long)id, now);
		goto out;
	}
	if (want == cur) {   /* idempotent */
		ret = BB_DB_NOTHING;
		goto out;
	}
	ret = bb_db_run(&op, bb_store_knob_local(s) ? &q_knob_mark_local
						    : &q_knob_mark,
			NULL, "iti", id, state, bb_store_now_ms());
out:
	return bb_store_knob_copied(s, bb_db_end(&op, ret));
}

int bb_store_knob_unrestorable(struct bb_store *s, int64_t id,
			       const char *why, char *err, size_t errlen)
{
	struct bb_db_op op;
	int ret = bb_store_knob_kdb(s, err, errlen);

	if (ret)
		return ret;
	ret = bb_db_begin(&op, s->kdb, BB_TX_DURABLE, err, errlen);
	if (!ret)
		ret = bb_db_run(&op, bb_store_knob_local(s)
					     ? &q_knob_unrestorable_local
					     : &q_knob_unrestorable,
				NULL, "it", id, why ? why : "not restorable");
	return bb_store_knob_copied(s, bb_db_end(&op, ret));
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

/* A malloc'd copy of column key; *ok false if out of memory. */
static const char *bb_store_knob_dup(const struct bb_db_rows *r,
				     const char *key, bool *ok)
{
	const char *t = bb_db_text(r, key);
	char *d;

	if (!t)
		return NULL;
	d = strdup(t);
	if (!d)
		*ok = false;
	return d;
}

/* The current row into k (its strings malloc'd; *ok false if out of
 * memory). */
static void bb_store_knob_row(const struct bb_db_rows *r,
			      struct bb_knob_row *k, bool *ok)
{
	const char *t;

	k->id = bb_db_int(r, "id");
	k->job_id = bb_db_int(r, "job_id");
	k->target = bb_store_knob_dup(r, "target", ok);
	k->knob = bb_store_knob_dup(r, "knob", ok);
	k->path = bb_store_knob_dup(r, "path", ok);
	k->original = bb_store_knob_dup(r, "original", ok);
	k->applied = bb_store_knob_dup(r, "applied", ok);
	k->state = bb_store_knob_dup(r, "state", ok);
	/* the device (NULL before migration 003: unknown) */
	k->has_dev = !bb_db_null(r, "dev_major");
	memset(&k->dev, 0, sizeof(k->dev));
	if (!k->has_dev)
		return;
	k->dev.major = (unsigned)bb_db_int(r, "dev_major");
	k->dev.minor = (unsigned)bb_db_int(r, "dev_minor");
	t = bb_db_text(r, "device");
	snprintf(k->dev.name, sizeof(k->dev.name), "%s", t ? t : "");
	t = bb_db_text(r, "device_ident");
	snprintf(k->dev.ident, sizeof(k->dev.ident), "%s", t ? t : "");
}

int bb_store_knobs_unrestored(struct bb_store *s,
			      int (*cb)(void *arg,
					const struct bb_knob_row *row),
			      void *arg, char *err, size_t errlen)
{
	struct bb_knob_row *rows = NULL;
	size_t n = 0, cap = 0;
	struct bb_db_rows r;
	struct bb_db_op op;
	bool ok = true;
	int ret;

	/* a handle without a journal of its own has nothing to restore
	 * (never another host's rows of a shared database) */
	if (!s->kdb)
		return 0;
	/* copy the rows out, then call back unlocked: the callback may
	 * use the store (bb_store_knob_mark) */
	bb_db_lock(&op, s->kdb, err, errlen);
	ret = bb_db_query(&r, &op, &q_knobs_unrestored, "");
	while (!ret && ok && (ret = bb_db_next(&r)) > 0) {
		ret = 0;
		if (n == cap) {
			struct bb_knob_row *p;

			cap = cap ? 2 * cap : 8;
			p = realloc(rows, cap * sizeof(*rows));
			if (!p) {
				ok = false;
				break;
			}
			rows = p;
		}
		bb_store_knob_row(&r, &rows[n++], &ok);
	}
	if (!ret && !ok)
		ret = bb_db_err(&op, -ENOMEM, "out of memory");
	ret = bb_db_end(&op, ret);
	for (size_t i = 0; !ret && i < n; i++)
		ret = cb(arg, &rows[i]);
	bb_store_knob_rows_free(rows, n);
	return ret;
}

int bb_store_job_knobs(struct bb_store *s, int64_t job_id,
		       struct json_object **out, char *err, size_t errlen)
{
	struct bb_db_op op;

	/* the store's journal, or the copies of every host's local one */
	if (!s->db) {
		bb_store_seterr(err, errlen, "a knob journal without its store "
				"has no job documents");
		return -ENOTCONN;
	}
	bb_db_lock(&op, s->db, err, errlen);
	bb_db_what(&op, "reading the knobs of job %lld", (long long)job_id);
	return bb_db_end(&op, bb_db_rows_json(&op, &q_knobs_of_job, out, "i",
					       job_id));
}
