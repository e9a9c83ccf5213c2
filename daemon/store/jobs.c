// SPDX-License-Identifier: GPL-2.0-only
/* jobs.c - jobs: submission, state changes with their events, reads. */
#include "store_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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


/* The state of job id into state[16]; -ENOENT. */
int bb_store_state_locked(struct bb_store *s, int64_t id,
				 char *state, char *err, size_t errlen)
{
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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
	sqlite3_stmt *st;
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

/* A job object from a row of JOB_COLS. */
struct json_object *bb_store_job_json(sqlite3_stmt *st)
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


int bb_store_job_get(struct bb_store *s, int64_t id,
		     struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *meta, *knobs;
	int64_t host_id, device_id;
	sqlite3_stmt *st;
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

int bb_store_jobs_list(struct bb_store *s, const char *state,
		       unsigned limit, int64_t cursor,
		       struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *jobs;
	int64_t last = 0;
	unsigned n = 0;
	bool more = false;
	sqlite3_stmt *st;
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
		json_object_array_add(jobs, bb_store_job_json(st));
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

int bb_store_metrics(struct bb_store *s, struct json_object **out,
		     char *err, size_t errlen)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *by = json_object_new_object();
	sqlite3_stmt *st;
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
