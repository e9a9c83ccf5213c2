// SPDX-License-Identifier: GPL-2.0-only
/* jobs.c - jobs: submission (with the queue limit), the state changes,
 * each one durable transaction with its event, and the reads: a job's
 * document, the list with its cursor, the counts of /metrics. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const bb_job_states[] = {
	BB_JOB_QUEUED, BB_JOB_RUNNING, BB_JOB_DONE,
	BB_JOB_FAILED, BB_JOB_CANCELLED, BB_JOB_INTERRUPTED,
	BB_JOB_REBOOTING,
};

#define BB_STORE_INTERRUPTED_MSG "daemon stopped while the job ran"

/* ---- statements ------------------------------------------------------ */

static const struct bb_query q_job_insert = BB_INSERT_ID(
	"INSERT INTO jobs (name, target, spec, state, created_ms,"
	" runs_planned, for_host) VALUES (coalesce(?1, ''), ?2, ?3, 'queued',"
	" ?4, ?5, ?6)",
	"storing a new job");
static const struct bb_query q_job_start = BB_STATEMENT(
	"UPDATE jobs SET state = 'running', started_ms = ?2, host_id = ?3,"
	" device_id = ?4, claimed_by = coalesce(?5, claimed_by),"
	" lease_ms = CASE WHEN ?6 > 0 THEN bb_now_ms() + ?6 END"
	" WHERE id = ?1 AND state = 'queued'"
	" AND (claimed_by IS NULL OR claimed_by = coalesce(?5, claimed_by))",
	"starting a job");
static const struct bb_query q_job_progress = BB_STATEMENT(
	"UPDATE jobs SET runs_planned = ?2, compare = coalesce(?3, compare)"
	" WHERE id = ?1 AND state = 'running'",
	"storing the progress of a job");
static const struct bb_query q_job_finish = BB_STATEMENT(
	"UPDATE jobs SET state = ?2, finished_ms = ?3, verdict = ?4,"
	" compare = coalesce(?5, compare), error = ?6"
	" WHERE id = ?1 AND state IN ('queued', 'running', 'rebooting')",
	"ending a job");
static const struct bb_query q_job_interrupt = BB_STATEMENT(
	"UPDATE jobs SET state = 'interrupted', finished_ms = ?2, error = ?3"
	" WHERE id = ?1 AND state = 'running'",
	"marking a job interrupted");

static const struct bb_col bb_job_state_cols[] = {
	{ "state", BB_COL_TEXT, NULL },
};
static const struct bb_query q_job_state = BB_SELECT(bb_job_state_cols,
	"FROM jobs WHERE id = ?1", "reading a job");

static const struct bb_col bb_job_next_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "spec", BB_COL_TEXT, NULL },
};
static const struct bb_query q_job_next_queued = BB_SELECT(bb_job_next_cols,
	"FROM jobs WHERE state = 'queued' AND is_group = 0 ORDER BY id LIMIT 1",
	"finding the next queued job");

static const struct bb_col bb_job_id_cols[] = {
	{ "id", BB_COL_INT64, NULL },
};
/* this daemon's (?1; NULL: every one) */
static const struct bb_query q_jobs_running = BB_SELECT(bb_job_id_cols,
	"FROM jobs WHERE state = 'running' AND is_group = 0 AND id NOT IN"
	" (SELECT job_id FROM job_boots) AND (claimed_by IS NULL OR"
	" claimed_by = coalesce(?1, claimed_by)) ORDER BY id",
	"listing running jobs");

/* The job document: the list's columns, then spec and compare. */
static const struct bb_col bb_job_doc_cols[] = {
	BB_JOB_COLS,
	{ "host_id", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "device_id", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "spec", BB_COL_JSON, NULL },
	{ "compare", BB_COL_JSON, NULL },
};
static const struct bb_query q_job_get = BB_SELECT(bb_job_doc_cols,
	"FROM jobs WHERE id = ?1", "reading a job");

/* Lists: newest first, below the cursor (id < ?1), limit ?2. */
static const struct bb_col bb_job_list_cols[] = {
	BB_JOB_COLS,
	{ "compare", BB_COL_JSON | BB_COL_HIDDEN, NULL },
};
/* the list: newest first, ?1 the cursor, ?2 the page; then the state,
 * then the host (addressed to it or claimed by it), each when given,
 * then 1: a group's children too, 0: without them */
#define BB_JOBS_LIST(where) BB_SELECT(bb_job_list_cols, \
	"FROM jobs WHERE id < ?1" where " ORDER BY id DESC LIMIT ?2", \
	"listing jobs")
#define BB_JOBS_OF_HOST(n) " AND (for_host = ?" n " OR claimed_by = ?" n ")"
#define BB_JOBS_CHILDREN(n) " AND (?" n " = 1 OR group_id IS NULL)"
static const struct bb_query q_jobs_list =
	BB_JOBS_LIST(BB_JOBS_CHILDREN("3"));
static const struct bb_query q_jobs_list_host =
	BB_JOBS_LIST(BB_JOBS_OF_HOST("3") BB_JOBS_CHILDREN("4"));
static const struct bb_query q_jobs_list_state =
	BB_JOBS_LIST(" AND state = ?3" BB_JOBS_CHILDREN("4"));
static const struct bb_query q_jobs_list_state_host =
	BB_JOBS_LIST(" AND state = ?3" BB_JOBS_OF_HOST("4")
		     BB_JOBS_CHILDREN("5"));

static const struct bb_col bb_job_by_state_cols[] = {
	{ "state", BB_COL_TEXT, NULL },
	{ "n", BB_COL_INT64, "count(*)" },
};
/* a group's parent is not counted: its children are; then the row of
 * state NULL: the runs.  One statement, so one snapshot without a
 * transaction: on PostgreSQL one round trip where BEGIN, two queries and
 * the end of the transaction were four */
static const struct bb_query q_metrics = BB_SELECT(
	bb_job_by_state_cols, "FROM jobs WHERE is_group = 0 GROUP BY state"
	" UNION ALL SELECT NULL, count(*) FROM runs", "reading metrics");
static const struct bb_col bb_count_cols[] = {
	{ "n", BB_COL_INT64, "count(*)" },
};
static const struct bb_query q_jobs_queued = BB_SELECT(bb_count_cols,
	"FROM jobs WHERE state = 'queued' AND is_group = 0",
	"counting queued jobs");
static const struct bb_query q_jobs_active = BB_SELECT(bb_count_cols,
	"FROM jobs WHERE state IN ('queued', 'running', 'rebooting')"
	" AND is_group = 0",
	"counting the jobs that have not ended");

/* ---- states ---------------------------------------------------------- */

bool bb_store_state_ok(const char *s)
{
	if (!s)
		return false;
	for (size_t i = 0; i < bb_array_size(bb_job_states); i++)
		if (!strcmp(s, bb_job_states[i]))
			return true;
	return false;
}

int bb_store_state_read(struct bb_db_op *op, int64_t id, char *state)
{
	struct bb_db_rows r;
	const char *t;
	int ret = bb_db_row(&r, op, &q_job_state, "i", id);

	if (ret < 0)
		return ret;
	if (!ret)
		return bb_db_err(op, -ENOENT, "no job %lld", (long long)id);
	t = bb_db_text(&r, "state");
	snprintf(state, 16, "%s", t ? t : "");
	return 0;
}

int bb_store_job_state(struct bb_store *s, int64_t id, char *state,
		       char *err, size_t errlen)
{
	struct bb_db_op op;

	bb_db_lock(&op, s->db, err, errlen);
	return bb_db_end(&op, bb_store_state_read(&op, id, state));
}

/* After an UPDATE ... WHERE id = ? AND state ... changed nothing: -ENOENT
 * or -EALREADY naming the state the job is in. */
int bb_store_not_in_state(struct bb_db_op *op, int64_t id, const char *want)
{
	char state[16];
	int ret = bb_store_state_read(op, id, state);

	if (ret)
		return ret;
	return bb_db_err(op, -EALREADY, "job %lld is %s, not %s",
			 (long long)id, state, want);
}

/* ---- submission ------------------------------------------------------ */

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
	char for_host[256] = "";
	struct bb_db_rows r;
	struct bb_db_op op;
	bool group;
	int ret;

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
	if (bb_store_jstr(o, "host"))
		snprintf(for_host, sizeof(for_host), "%s",
			 bb_store_jstr(o, "host"));
	/* one job on several hosts: a parent and a child for each */
	group = json_object_object_get_ex(o, "hosts", NULL) ||
		json_object_is_type(json_object_object_get(o, "host"),
				    json_type_array);
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	if (group) {
		ret = bb_store_group_insert(&op, s, o, name, target, spec,
					    runs_planned, max_queued, id);
		goto out;
	}
	/* a job addressed to a host no daemon registered would wait
	 * forever */
	if (for_host[0]) {
		ret = bb_store_daemon_known(&op, for_host);
		if (ret)
			goto out;
	}
	/* counted in the transaction that inserts: never above the limit */
	if (max_queued) {
		int64_t n;

		ret = bb_db_row(&r, &op, &q_jobs_queued, "");
		if (ret < 0)
			goto out;
		n = bb_db_int(&r, "n");
		if (n >= (int64_t)max_queued) {
			ret = bb_db_err(&op, -EAGAIN,
					"%lld jobs are queued, the limit is %u "
					"(max_queued_jobs): try again when "
					"some have run", (long long)n,
					max_queued);
			goto out;
		}
	}
	ret = bb_db_run(&op, &q_job_insert, id, "tttiut", name, target, spec,
			bb_store_now_ms(), runs_planned,
			for_host[0] ? for_host : NULL);
	if (ret)
		goto out;
	ret = bb_store_event_add(&op, *id, "info", "submitted");
out:
	json_object_put(o);
	return bb_db_end(&op, ret);
}

int bb_store_queued_count(struct bb_db_op *op, unsigned *n)
{
	struct bb_db_rows r;
	int ret = bb_db_row(&r, op, &q_jobs_queued, "");

	if (ret < 0)
		return ret;
	*n = ret ? (unsigned)bb_db_int(&r, "n") : 0;
	return 0;
}

static int bb_store_jobs_count(struct bb_store *s, const struct bb_query *q,
			       unsigned *n, char *err, size_t errlen)
{
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*n = 0;
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_db_row(&r, &op, q, "");
	if (ret > 0) {
		*n = (unsigned)bb_db_int(&r, "n");
		ret = 0;
	} else if (!ret) {
		ret = bb_db_err(&op, -EIO, "%s: no count", q->what);
	}
	return bb_db_end(&op, ret);
}

int bb_store_jobs_queued(struct bb_store *s, unsigned *n, char *err,
			 size_t errlen)
{
	return bb_store_jobs_count(s, &q_jobs_queued, n, err, errlen);
}

int bb_store_jobs_active(struct bb_store *s, unsigned *n, char *err,
			 size_t errlen)
{
	return bb_store_jobs_count(s, &q_jobs_active, n, err, errlen);
}

/* ---- state changes ---------------------------------------------------- */

int bb_store_job_next_queued(struct bb_store *s, int64_t *id, char **spec,
			     char *err, size_t errlen)
{
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	if (s->me[0])
		return bb_store_job_claim(s, id, spec, err, errlen);
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_db_row(&r, &op, &q_job_next_queued, "");
	return bb_db_end(&op, bb_store_row_job(&op, &r, ret, NULL, id, spec));
}

int bb_store_row_job(struct bb_db_op *op, struct bb_db_rows *r, int ret,
		     const char *who, int64_t *id, char **spec)
{
	const char *t;

	if (ret < 0)
		return ret;
	if (!ret)
		return who ? bb_db_err(op, -ENOENT, "no queued job for %s", who)
			   : bb_db_err(op, -ENOENT, "no queued job");
	t = bb_db_text(r, "spec");
	*spec = strdup(t ? t : "{}");
	if (!*spec)
		return bb_db_err(op, -ENOMEM, "out of memory");
	*id = bb_db_int(r, "id");
	return 0;
}

int bb_store_job_start(struct bb_store *s, int64_t id, int64_t host_id,
		       int64_t device_id, char *err, size_t errlen)
{
	struct bb_db_op op;
	int64_t changed = 0;
	int ret;

	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	bb_db_what(&op, "starting job %lld", (long long)id);
	ret = bb_db_run(&op, &q_job_start, &changed, "iiIItI", id,
			bb_store_now_ms(), host_id, device_id, bb_store_me(s),
			bb_store_lease_ms(s));
	if (ret)
		goto out;
	if (!changed) {
		char cur[16];

		/* queued still: another daemon's claim took it over */
		ret = bb_store_state_read(&op, id, cur);
		if (!ret && !strcmp(cur, BB_JOB_QUEUED))
			ret = bb_db_err(&op, -EALREADY, "job %lld is claimed "
					"by another daemon", (long long)id);
		else if (!ret)
			ret = bb_store_not_in_state(&op, id, BB_JOB_QUEUED);
		goto out;
	}
	ret = bb_store_event_add(&op, id, "info", "started");
	if (!ret)
		ret = bb_store_group_touch(&op, id);
out:
	return bb_db_end(&op, ret);
}

int bb_store_job_progress(struct bb_store *s, int64_t id,
			  unsigned runs_planned, const char *compare,
			  char *err, size_t errlen)
{
	struct bb_db_op op;
	int64_t changed = 0;
	int ret;

	if (compare && !bb_store_json_parse(compare, NULL)) {
		bb_store_seterr(err, errlen,
				"job %lld: comparison is not valid JSON",
				(long long)id);
		return -EINVAL;
	}
	bb_db_lock(&op, s->db, err, errlen);
	bb_db_what(&op, "storing progress of job %lld", (long long)id);
	ret = bb_db_run(&op, &q_job_progress, &changed, "iut", id,
			runs_planned, compare);
	if (!ret && !changed)
		ret = bb_store_not_in_state(&op, id, BB_JOB_RUNNING);
	if (!ret)
		ret = bb_store_group_touch(&op, id);
	return bb_db_end(&op, ret);
}

/* The event of a job's end: its level and message (one line). */
static const char *bb_store_end_event(const char *state, const char *verdict,
				      const char *error, char *msg,
				      size_t len)
{
	const char *level = "info";

	if (!strcmp(state, BB_JOB_DONE)) {
		snprintf(msg, len, "done%s%s", verdict ? ": " : "",
			 verdict ? verdict : "");
	} else if (!strcmp(state, BB_JOB_FAILED)) {
		level = "error";
		snprintf(msg, len, "failed%s%s", error ? ": " : "",
			 error ? error : "");
	} else if (!strcmp(state, BB_JOB_INTERRUPTED)) {
		level = "warning";
		snprintf(msg, len, "interrupted%s%s", error ? ": " : "",
			 error ? error : "");
	} else {
		snprintf(msg, len, "cancelled");
	}
	for (char *p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	return level;
}

int bb_store_job_finish(struct bb_store *s, int64_t id, const char *state,
			const char *verdict, const char *compare,
			const char *error, char *err, size_t errlen)
{
	char cur[16], msg[512];
	struct bb_db_op op;
	const char *level;
	int ret;

	if (!state || !bb_store_state_ok(state) ||
	    !strcmp(state, BB_JOB_QUEUED) || !strcmp(state, BB_JOB_RUNNING) ||
	    !strcmp(state, BB_JOB_REBOOTING)) {
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
	level = bb_store_end_event(state, verdict, error, msg, sizeof(msg));

	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	bb_db_what(&op, "ending job %lld", (long long)id);
	ret = bb_store_state_read(&op, id, cur);
	if (ret)
		goto out;
	/* a group's state is its children's */
	ret = bb_store_job_is_group(&op, id);
	if (ret > 0)
		ret = bb_db_err(&op, -EISDIR, "job %lld is a group: its state "
				"follows its hosts' jobs", (long long)id);
	if (ret)
		goto out;
	if (strcmp(cur, BB_JOB_QUEUED) && strcmp(cur, BB_JOB_RUNNING) &&
	    strcmp(cur, BB_JOB_REBOOTING)) {
		ret = bb_db_err(&op, -EALREADY, "job %lld already ended (%s)",
				(long long)id, cur);
		goto out;
	}
	/* a job that never started can only be cancelled or fail */
	if (!strcmp(cur, BB_JOB_QUEUED) && strcmp(state, BB_JOB_CANCELLED) &&
	    strcmp(state, BB_JOB_FAILED)) {
		ret = bb_db_err(&op, -EINVAL,
				"job %lld is queued: it cannot become %s",
				(long long)id, state);
		goto out;
	}
	ret = bb_db_run(&op, &q_job_finish, NULL, "itittt", id, state,
			bb_store_now_ms(), verdict, compare, error);
	if (ret)
		goto out;
	ret = bb_store_event_add(&op, id, level, msg);
	if (!ret)
		ret = bb_store_group_touch(&op, id);
out:
	return bb_db_end(&op, ret);
}

int bb_store_jobs_interrupt_running(struct bb_store *s, unsigned *n,
				    char *err, size_t errlen)
{
	int64_t *ids = NULL, now = bb_store_now_ms();
	size_t nids = 0, cap = 0;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*n = 0;
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	/* the ids first: no update while the rows are read; a fleet's
	 * daemon interrupts its own only (the others' lose their leases) */
	ret = bb_db_query(&r, &op, &q_jobs_running, "t", bb_store_me(s));
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		if (nids == cap) {
			int64_t *p;

			cap = cap ? 2 * cap : 8;
			p = realloc(ids, cap * sizeof(*ids));
			if (!p) {
				ret = bb_db_err(&op, -ENOMEM, "out of memory");
				goto out;
			}
			ids = p;
		}
		ids[nids++] = bb_db_int(&r, "id");
		ret = 0;
	}
	for (size_t i = 0; !ret && i < nids; i++) {
		ret = bb_db_run(&op, &q_job_interrupt, NULL, "iit", ids[i], now,
				BB_STORE_INTERRUPTED_MSG);
		if (!ret)
			ret = bb_store_event_add(&op, ids[i], "warning",
						 "interrupted: "
						 BB_STORE_INTERRUPTED_MSG);
		if (!ret)
			ret = bb_store_group_touch(&op, ids[i]);
	}
out:
	ret = bb_db_end(&op, ret);
	if (!ret)
		*n = (unsigned)nids;
	free(ids);
	return ret;
}

/* ---- reads ----------------------------------------------------------- */

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
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	/* one snapshot for the job and what it points to */
	ret = bb_db_begin(&op, s->db, BB_TX_READ, err, errlen);
	if (ret)
		goto out;
	bb_db_what(&op, "reading job %lld", (long long)id);
	ret = bb_db_row(&r, &op, &q_job_get, "i", id);
	if (ret < 0)
		goto out;
	if (!ret) {
		ret = bb_db_err(&op, -ENOENT, "no job %lld", (long long)id);
		goto out;
	}
	doc = bb_db_json(&r);
	host_id = bb_db_int(&r, "host_id");   /* NULL reads 0 */
	device_id = bb_db_int(&r, "device_id");
	ret = bb_store_host_json(&op, host_id, &meta);
	if (ret)
		goto out;
	json_object_object_add(doc, "host", meta);
	ret = bb_store_device_json(&op, device_id, &meta);
	if (ret)
		goto out;
	json_object_object_add(doc, "device", meta);
	ret = bb_store_noise_json(&op, host_id, bb_store_jstr(doc, "target"),
				  bb_store_job_metric(doc), &meta);
	if (ret)
		goto out;
	json_object_object_add(doc, "noise_floor", meta);
	ret = bb_store_boot_json(&op, id, bb_store_jstr(doc, "state"), &meta);
	if (ret)
		goto out;
	json_object_object_add(doc, "boot", meta);
	/* a group's parent: its hosts' jobs */
	meta = NULL;
	if (json_object_get_boolean(json_object_object_get(doc, "group")))
		ret = bb_store_group_children_json(&op, id, &meta);
	if (meta)
		json_object_object_add(doc, "children", meta);
	if (!ret)
		ret = bb_store_job_refusals_json(&op, id, &meta);
	if (!ret)
		json_object_object_add(doc, "refused_by", meta);
out:
	ret = bb_db_end(&op, ret);
	/* the knob journal may be a database of its own */
	if (!ret)
		ret = bb_store_job_knobs(s, id, &knobs, err, errlen);
	if (!ret) {
		json_object_object_add(doc, "knobs", knobs);
		*out = doc;
		doc = NULL;
	}
	json_object_put(doc);
	return ret;
}

int bb_store_jobs_list(struct bb_store *s, const char *state,
		       unsigned limit, int64_t cursor,
		       struct json_object **out, char *err, size_t errlen)
{
	return bb_store_jobs_list_ex(s, state, NULL, true, limit, cursor, out,
				     err, errlen);
}

int bb_store_jobs_list_ex(struct bb_store *s, const char *state,
			  const char *host, bool children, unsigned limit,
			  int64_t cursor, struct json_object **out, char *err,
			  size_t errlen)
{
	static const struct bb_query *const lists[2][2] = {
		{ &q_jobs_list, &q_jobs_list_host },
		{ &q_jobs_list_state, &q_jobs_list_state_host },
	};
	static const char *const fmts[2][2] = {
		{ "iui", "iuti" }, { "iuti", "iutti" },
	};
	const char *first = state ? state : host;
	struct json_object *doc = NULL, *jobs, *job, *cmp;
	int64_t last = 0;
	unsigned n = 0;
	bool more = false;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	if (limit < 1 || limit > 500) {
		bb_store_seterr(err, errlen, "limit must be 1..500, not %u",
				limit);
		return -EINVAL;
	}
	if (state && !bb_store_state_ok(state)) {
		bb_store_seterr(err, errlen,
				"unknown state '%s' (queued, running, done, "
				"failed, cancelled, interrupted, rebooting)",
				state);
		return -EINVAL;
	}
	doc = json_object_new_object();
	jobs = json_object_new_array();
	json_object_object_add(doc, "jobs", jobs);
	bb_db_lock(&op, s->db, err, errlen);
	/* one more than the page: whether more follow */
	if (state && host)
		ret = bb_db_query(&r, &op, lists[1][1], fmts[1][1],
				  cursor > 0 ? cursor : INT64_MAX, limit + 1,
				  state, host, (int64_t)children);
	else if (first)
		ret = bb_db_query(&r, &op, lists[!!state][!!host],
				  fmts[!!state][!!host],
				  cursor > 0 ? cursor : INT64_MAX, limit + 1,
				  first, (int64_t)children);
	else
		ret = bb_db_query(&r, &op, lists[0][0], fmts[0][0],
				  cursor > 0 ? cursor : INT64_MAX, limit + 1,
				  (int64_t)children);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		ret = 0;
		if (n == limit) {
			more = true;
			break;
		}
		job = bb_db_json(&r);
		/* each job's change with its interval and verdict, slim as
		 * in the history (the list shows them) */
		cmp = bb_db_value(&r, "compare");
		json_object_object_add(job, "compare",
				       bb_store_history_compare(cmp));
		json_object_put(cmp);
		json_object_array_add(jobs, job);
		last = bb_db_int(&r, "id");
		n++;
	}
	if (!ret) {
		json_object_object_add(doc, "next_cursor",
				       more ? json_object_new_int64(last) : NULL);
		*out = doc;
		doc = NULL;
	}
	json_object_put(doc);
	return bb_db_end(&op, ret);
}

int bb_store_metrics(struct bb_store *s, struct json_object **out,
		     char *err, size_t errlen)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *by = json_object_new_object();
	struct json_object *runs = NULL;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	json_object_object_add(doc, "jobs_by_state", by);
	for (size_t i = 0; i < bb_array_size(bb_job_states); i++)
		json_object_object_add(by, bb_job_states[i],
				       json_object_new_int64(0));
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_db_query(&r, &op, &q_metrics, "");
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		const char *state = bb_db_text(&r, "state");

		ret = 0;
		if (!state)
			runs = bb_db_value(&r, "n");
		else if (bb_store_state_ok(state))
			json_object_object_add(by, state,
					       bb_db_value(&r, "n"));
	}
	if (!ret && !runs)
		ret = bb_db_err(&op, -EIO, "reading metrics: no count");
	if (!ret) {
		json_object_object_add(doc, "runs_total", runs);
		*out = doc;
		doc = NULL;
	} else {
		json_object_put(runs);
	}
	json_object_put(doc);
	return bb_db_end(&op, ret);
}
