// SPDX-License-Identifier: GPL-2.0-only
/* knobs.c - the sysfs knob journal (see store.h): a row per changed knob,
 * written before the change (pending, with the original value), marked
 * applied after it and restored after the original went back; with the
 * device the knob belongs to, so that recovery never writes a value onto
 * another device, and why a row cannot be restored.  Every write is a
 * durable transaction of its own, on the journal's handle (kdb), never
 * together with the rest of the store: in a fleet the journal stays in a
 * local database while jobs move to a shared one. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bb_query q_knob_insert = BB_INSERT_ID(
	"INSERT INTO knob_journal (job_id, target, knob, path, original,"
	" applied, state, created_ms, dev_major, dev_minor, dev_name,"
	" dev_ident) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'pending', ?7, ?8, ?9,"
	" ?10, ?11)",
	"journaling a knob");
static const struct bb_query q_knob_mark = BB_STATEMENT(
	"UPDATE knob_journal SET state = ?2, restored_ms ="
	" CASE WHEN ?2 = 'restored' THEN ?3 ELSE restored_ms END"
	" WHERE id = ?1",
	"marking a knob");
static const struct bb_query q_knob_unrestorable = BB_STATEMENT(
	"UPDATE knob_journal SET not_restorable = ?2 WHERE id = ?1",
	"marking a knob not restorable");

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
	{ "target", BB_COL_TEXT, NULL },
	{ "knob", BB_COL_TEXT, NULL },
	{ "path", BB_COL_TEXT, NULL },
	{ "original", BB_COL_TEXT, NULL },
	{ "applied", BB_COL_TEXT, NULL },
	{ "state", BB_COL_TEXT, NULL },
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
	ret = bb_db_begin(&op, s->kdb, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	/* the device: NULL columns when unknown */
	if (dev)
		ret = bb_db_run(&op, &q_knob_insert, &kid, "Itttttiuutt",
				job_id, target, knob, path, original, applied,
				bb_store_now_ms(), dev->major, dev->minor,
				dev->name, dev->ident);
	else
		ret = bb_db_run(&op, &q_knob_insert, &kid, "Itttttinnnn",
				job_id, target, knob, path, original, applied,
				bb_store_now_ms());
out:
	ret = bb_db_end(&op, ret);
	if (!ret && id)
		*id = kid;
	return ret;
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
	ret = bb_db_run(&op, &q_knob_mark, NULL, "iti", id, state,
			bb_store_now_ms());
out:
	return bb_db_end(&op, ret);
}

int bb_store_knob_unrestorable(struct bb_store *s, int64_t id,
			       const char *why, char *err, size_t errlen)
{
	struct bb_db_op op;
	int ret;

	ret = bb_db_begin(&op, s->kdb, BB_TX_DURABLE, err, errlen);
	if (!ret)
		ret = bb_db_run(&op, &q_knob_unrestorable, NULL, "it", id,
				why ? why : "not restorable");
	return bb_db_end(&op, ret);
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

	bb_db_lock(&op, s->kdb, err, errlen);
	bb_db_what(&op, "reading the knobs of job %lld", (long long)job_id);
	return bb_db_end(&op, bb_db_rows_json(&op, &q_knobs_of_job, out, "i",
					       job_id));
}
