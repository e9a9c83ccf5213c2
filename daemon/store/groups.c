// SPDX-License-Identifier: GPL-2.0-only
/* groups.c - one job on several fleet hosts (migration 010): the
 * submission of a group (a parent and one child per host, each child an
 * ordinary job addressed to its host), the parent's state derived from
 * its children's in the transaction of every child's change, and the
 * children of a parent for its document.
 *
 * The parent (is_group = 1) is never claimed, started or recovered: the
 * queue's reads leave it out.  Its state follows bb_group_state
 * (biobench/jobgroup.h), its start is its first child's, its end its
 * last child's, its runs the sum of theirs; its verdict, once every
 * child ended, the one all done children share, "disagree" when some
 * were faster and others slower, else "mixed". */
#include "store_int.h"

#include <biobench/jobgroup.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bb_query q_group_insert = BB_INSERT_ID(
	"INSERT INTO jobs (name, target, spec, state, created_ms,"
	" runs_planned, for_host, group_id, is_group) VALUES"
	" (coalesce(?1, ''), ?2, ?3, 'queued', ?4, ?5, ?6, ?7, ?8)",
	"storing a group job");

static const struct bb_col bb_group_of_cols[] = {
	{ "group_id", BB_COL_INT64, NULL },
	{ "is_group", BB_COL_INT64, NULL },
};
static const struct bb_query q_group_of = BB_SELECT(bb_group_of_cols,
	"FROM jobs WHERE id = ?1", "reading a job's group");

static const struct bb_col bb_child_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "host", BB_COL_TEXT, "for_host" },
	{ "state", BB_COL_TEXT, NULL },
	{ "runs_done", BB_COL_INT64, NULL },
	{ "runs_planned", BB_COL_INT64, NULL },
	{ "verdict", BB_COL_TEXT, NULL },
	{ "claimed_by", BB_COL_TEXT, NULL },
	{ "started_ms", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "finished_ms", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
};
static const struct bb_query q_children = BB_SELECT(bb_child_cols,
	"FROM jobs WHERE group_id = ?1 ORDER BY id", "reading a group's jobs");

static const struct bb_query q_group_set = BB_STATEMENT(
	"UPDATE jobs SET state = ?2, started_ms = ?3, finished_ms = ?4,"
	" runs_done = ?5, runs_planned = ?6, verdict = ?7"
	" WHERE id = ?1 AND is_group = 1",
	"storing a group's state");


/* ---- submission ------------------------------------------------------ */

/* A child's spec: the parent's, addressed to host (no "hosts"). */
static char *bb_group_child_spec(struct json_object *spec, const char *host)
{
	struct json_object *c = NULL;
	char *text = NULL;

	if (json_object_deep_copy(spec, &c, NULL))
		return NULL;
	json_object_object_del(c, "hosts");
	json_object_object_add(c, "host", json_object_new_string(host));
	text = strdup(json_object_to_json_string_ext(c, BB_JSON_PLAIN));
	json_object_put(c);
	return text;
}

int bb_store_group_insert(struct bb_db_op *op, struct bb_store *s,
			  struct json_object *spec, const char *name,
			  const char *target, const char *text,
			  unsigned planned, unsigned max_queued, int64_t *id)
{
	char (*hosts)[254] = calloc(BB_GROUP_MAX_HOSTS, sizeof(*hosts));
	struct json_object *sel = NULL, *list = NULL;
	char ev[BB_GROUP_MAX_HOSTS * 64 + 64];
	int64_t now = bb_store_now_ms(), cid;
	size_t n = 0, off;
	int ret = 0;

	if (!hosts)
		return bb_db_err(op, -ENOMEM, "out of memory");
	json_object_object_get_ex(spec, "hosts", &sel);
	json_object_object_get_ex(spec, "host", &list);
	if (sel) {
		ret = bb_store_daemons_select(op, sel, target, s->group_seen_ms,
					      hosts, &n);
	} else {
		for (size_t i = 0; !ret && list &&
				   i < json_object_array_length(list) &&
				   n < BB_GROUP_MAX_HOSTS; i++) {
			const char *h = json_object_get_string(
				json_object_array_get_idx(list, i));

			ret = bb_store_daemon_known(op, h);
			if (!ret)
				snprintf(hosts[n++], sizeof(hosts[0]), "%s", h);
		}
		if (!ret && !n)
			ret = bb_db_err(op, -EINVAL, "host: an empty list");
	}
	if (ret)
		goto out;
	if (max_queued) {
		unsigned q = 0;

		ret = bb_store_queued_count(op, &q);
		if (!ret && q + n > max_queued)
			ret = bb_db_err(op, -EAGAIN, "%u jobs are queued and the "
					"group adds %zu, the limit is %u "
					"(max_queued_jobs): try again when "
					"some have run", q, n, max_queued);
		if (ret)
			goto out;
	}
	ret = bb_db_run(op, &q_group_insert, id, "tttiunIi", name, target,
			text, now, planned * (unsigned)n, (int64_t)0,
			(int64_t)1);
	off = (size_t)snprintf(ev, sizeof(ev), "submitted: a group of %zu "
			       "job%s, one on each of", n, n == 1 ? "" : "s");
	for (size_t i = 0; !ret && i < n; i++) {
		char *ctext = bb_group_child_spec(spec, hosts[i]);

		if (!ctext) {
			ret = bb_db_err(op, -ENOMEM, "out of memory");
			break;
		}
		ret = bb_db_run(op, &q_group_insert, &cid, "tttiutIi", name,
				target, ctext, now, planned, hosts[i], *id,
				(int64_t)0);
		free(ctext);
		if (!ret) {
			char cev[96];

			snprintf(cev, sizeof(cev), "submitted: host %s's job "
				 "of group %lld", hosts[i], (long long)*id);
			ret = bb_store_event_add(op, cid, "info", cev);
		}
		if (off < sizeof(ev))
			off += (size_t)snprintf(ev + off, sizeof(ev) - off,
						"%s %s (job %lld)",
						i ? "," : "", hosts[i],
						(long long)cid);
	}
	if (!ret)
		ret = bb_store_event_add(op, *id, "info", ev);
out:
	free(hosts);
	return ret;
}

/* ---- the parent's state ------------------------------------------------ */

int bb_store_group_touch(struct bb_db_op *op, int64_t id)
{
	const char *st[BB_GROUP_MAX_HOSTS], *state, *verdict = NULL;
	char states[BB_GROUP_MAX_HOSTS][16], common[32] = "";
	int64_t gid, started = 0, finished = 0, done = 0, planned = 0;
	bool faster = false, slower = false, mixed = false;
	struct bb_db_rows r;
	size_t n = 0;
	int ret;

	ret = bb_db_row(&r, op, &q_group_of, "i", id);
	if (ret <= 0)
		return ret;
	gid = bb_db_int(&r, "group_id");
	if (gid <= 0)
		return 0;
	ret = bb_db_query(&r, op, &q_children, "i", gid);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		const char *v = bb_db_text(&r, "verdict");
		const char *s = bb_db_text(&r, "state");

		ret = 0;
		if (n == BB_GROUP_MAX_HOSTS)
			continue;
		snprintf(states[n], sizeof(states[n]), "%s", s ? s : "");
		st[n] = states[n];
		n++;
		done += bb_db_int(&r, "runs_done");
		planned += bb_db_int(&r, "runs_planned");
		if (!bb_db_null(&r, "started_ms") &&
		    (!started || bb_db_int(&r, "started_ms") < started))
			started = bb_db_int(&r, "started_ms");
		if (bb_db_int(&r, "finished_ms") > finished)
			finished = bb_db_int(&r, "finished_ms");
		if (!s || strcmp(s, BB_JOB_DONE) || !v)
			continue;
		faster |= !strcmp(v, "faster");
		slower |= !strcmp(v, "slower");
		if (!common[0])
			snprintf(common, sizeof(common), "%s", v);
		else if (strcmp(common, v))
			mixed = true;
	}
	if (ret || !n)
		return ret;
	state = bb_group_state(st, n);
	if (!strcmp(state, BB_JOB_QUEUED) || !strcmp(state, BB_JOB_RUNNING))
		finished = 0;
	else if (common[0])
		verdict = faster && slower ? "disagree" : mixed ? "mixed" :
					     common;
	return bb_db_run(op, &q_group_set, NULL, "itIIiit", gid, state,
			 started, finished, done, planned, verdict);
}

/* ---- reads -------------------------------------------------------------- */

int bb_store_group_children_json(struct bb_db_op *op, int64_t id,
				 struct json_object **out)
{
	return bb_db_rows_json(op, &q_children, out, "i", id);
}

int bb_store_job_is_group(struct bb_db_op *op, int64_t id)
{
	struct bb_db_rows r;
	int ret = bb_db_row(&r, op, &q_group_of, "i", id);

	if (ret < 0)
		return ret;
	if (!ret)
		return bb_db_err(op, -ENOENT, "no job %lld", (long long)id);
	return bb_db_int(&r, "is_group") ? 1 : 0;
}

int bb_store_job_children(struct bb_store *s, int64_t id,
			  struct json_object **out, char *err, size_t errlen)
{
	struct bb_db_op op;
	int ret;

	*out = NULL;
	ret = bb_db_begin(&op, s->db, BB_TX_READ, err, errlen);
	if (!ret)
		ret = bb_store_job_is_group(&op, id);
	if (!ret)
		ret = bb_db_err(&op, -ENOTDIR, "job %lld is not a group",
				(long long)id);
	if (ret == 1)
		ret = bb_store_group_children_json(&op, id, out);
	return bb_db_end(&op, ret);
}

void bb_store_set_group_window(struct bb_store *s, unsigned seconds)
{
	s->group_seen_ms = (int64_t)seconds * 1000;
}
