// SPDX-License-Identifier: GPL-2.0-only
/* knobs.c - the sysfs knob journal. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int bb_store_knobs_locked(struct bb_store *s, int64_t job_id,
				 struct json_object **out, char *err,
				 size_t errlen)
{
	struct json_object *arr = json_object_new_array();
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
