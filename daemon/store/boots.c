// SPDX-License-Identifier: GPL-2.0-only
/* boots.c - boot jobs: running -> rebooting with the boot's progress (one
 * durable transaction, before the host reboots), rebooting -> running
 * when the next start found the right kernel, and the reads. */
#include "store_int.h"

#include <biobench/boot.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct bb_query q_boot_set = BB_STATEMENT(
	"INSERT INTO job_boots (job_id, boot, boots, variant, boot_id_before,"
	" deadline_ms, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
	" ON CONFLICT (job_id) DO UPDATE SET boot = ?2, boots = ?3,"
	" variant = ?4, boot_id_before = ?5, deadline_ms = ?6,"
	" updated_ms = ?7",
	"storing the boot progress of a job");
static const struct bb_query q_job_reboot = BB_STATEMENT(
	"UPDATE jobs SET state = 'rebooting' WHERE id = ?1 AND state = 'running'",
	"marking a job rebooting");
static const struct bb_query q_job_resume = BB_STATEMENT(
	"UPDATE jobs SET state = 'running' WHERE id = ?1 AND state = 'rebooting'",
	"resuming a job after a reboot");

static const struct bb_col bb_boot_cols[] = {
	{ "boot", BB_COL_INT64, NULL },
	{ "boots", BB_COL_INT64, NULL },
	{ "variant", BB_COL_TEXT, NULL },
	{ "boot_id_before", BB_COL_TEXT, NULL },
	{ "deadline", BB_COL_TIME, "deadline_ms" },
	{ "deadline_ms", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "redone", BB_COL_INT64, NULL },
};
static const struct bb_query q_boot_get = BB_SELECT(bb_boot_cols,
	"FROM job_boots WHERE job_id = ?1", "reading the boot progress of a job");

static const struct bb_col bb_boot_id_cols[] = {
	{ "id", BB_COL_INT64, NULL },
};
static const struct bb_query q_jobs_rebooting = BB_SELECT(bb_boot_id_cols,
	"FROM jobs WHERE state = 'rebooting' AND (claimed_by IS NULL OR"
	" claimed_by = coalesce(?1, claimed_by)) ORDER BY id",
	"listing rebooting jobs");
static const struct bb_query q_jobs_boot_running = BB_SELECT(bb_boot_id_cols,
	"FROM jobs WHERE state = 'running' AND id IN"
	" (SELECT job_id FROM job_boots) AND (claimed_by IS NULL OR"
	" claimed_by = coalesce(?1, claimed_by)) ORDER BY id",
	"listing running boot jobs");
static const struct bb_query q_boot_is_running = BB_STATEMENT(
	"UPDATE jobs SET runs_done = runs_done WHERE id = ?1 AND"
	" state = 'running'",
	"checking that a boot job is running");
static const struct bb_query q_boot_discard = BB_STATEMENT(
	"UPDATE runs SET discarded = ?3 WHERE job_id = ?1 AND round = ?2 AND"
	" discarded IS NULL",
	"discarding the runs of an interrupted boot");
static const struct bb_query q_boot_runs_done = BB_STATEMENT(
	"UPDATE jobs SET runs_done = (SELECT count(*) FROM runs WHERE"
	" job_id = ?1 AND state = 'done' AND discarded IS NULL) WHERE id = ?1",
	"recounting the runs of a job");
static const struct bb_query q_boot_redone = BB_STATEMENT(
	"UPDATE job_boots SET redone = redone + 1, updated_ms = ?2"
	" WHERE job_id = ?1",
	"counting a redone boot");

/* One state change of a boot job (q: from -> to), then the progress p
 * when given, then the event; one durable transaction. */
static int bb_store_boot_move(struct bb_store *s, int64_t id,
			      const struct bb_query *q, const char *from,
			      const struct bb_boot_progress *p,
			      const char *event, char *err, size_t errlen)
{
	struct bb_db_op op;
	int64_t changed = 0;
	int ret;

	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (ret)
		goto out;
	bb_db_what(&op, "job %lld: %s", (long long)id, event);
	ret = bb_db_run(&op, q, &changed, "i", id);
	if (ret)
		goto out;
	if (!changed) {
		ret = bb_store_not_in_state(&op, id, from);
		goto out;
	}
	if (p)
		ret = bb_db_run(&op, &q_boot_set, NULL, "iuuttii", id, p->boot,
				p->boots, p->variant, p->boot_id_before,
				p->deadline_ms, bb_store_now_ms());
	if (!ret)
		ret = bb_store_event_add(&op, id, "info", event);
out:
	return bb_db_end(&op, ret);
}

int bb_store_job_reboot(struct bb_store *s, int64_t id,
			const struct bb_boot_progress *p, char *err,
			size_t errlen)
{
	char msg[160];

	bb_boot_progress_text(p, msg, sizeof(msg));
	return bb_store_boot_move(s, id, &q_job_reboot, BB_JOB_RUNNING, p, msg,
				  err, errlen);
}

int bb_store_job_resume(struct bb_store *s, int64_t id, const char *event,
			char *err, size_t errlen)
{
	return bb_store_boot_move(s, id, &q_job_resume, BB_JOB_REBOOTING, NULL,
				  event ? event : "resumed", err, errlen);
}

int bb_store_boot_read(struct bb_db_op *op, int64_t id,
		       struct bb_boot_progress *p)
{
	struct bb_db_rows r;
	const char *t;
	int ret = bb_db_row(&r, op, &q_boot_get, "i", id);

	if (ret < 0)
		return ret;
	if (!ret)
		return bb_db_err(op, -ENOENT, "job %lld has no boot progress",
				 (long long)id);
	memset(p, 0, sizeof(*p));
	p->boot = (unsigned)bb_db_int(&r, "boot");
	p->boots = (unsigned)bb_db_int(&r, "boots");
	t = bb_db_text(&r, "variant");
	snprintf(p->variant, sizeof(p->variant), "%s", t ? t : "");
	t = bb_db_text(&r, "boot_id_before");
	snprintf(p->boot_id_before, sizeof(p->boot_id_before), "%s",
		 t ? t : "");
	p->deadline_ms = bb_db_int(&r, "deadline_ms");
	p->redone = (unsigned)bb_db_int(&r, "redone");
	return 0;
}

int bb_store_job_boot(struct bb_store *s, int64_t id,
		      struct bb_boot_progress *p, char *err, size_t errlen)
{
	struct bb_db_op op;

	bb_db_lock(&op, s->db, err, errlen);
	return bb_db_end(&op, bb_store_boot_read(&op, id, p));
}

int bb_store_boot_json(struct bb_db_op *op, int64_t id, const char *state,
		       struct json_object **out)
{
	struct bb_boot_progress p;
	struct bb_db_rows r;
	char text[160];
	int ret;

	*out = NULL;
	ret = bb_db_row(&r, op, &q_boot_get, "i", id);
	if (ret <= 0)
		return ret;
	*out = bb_db_json(&r);
	ret = bb_store_boot_read(op, id, &p);
	if (ret)
		return ret;
	/* 1-based in the document, as the text says it */
	json_object_object_add(*out, "boot", json_object_new_int64(p.boot + 1));
	if (state && !strcmp(state, BB_JOB_REBOOTING))
		bb_boot_progress_text(&p, text, sizeof(text));
	else
		snprintf(text, sizeof(text), "boot %u of %u (%s)", p.boot + 1,
			 p.boots, p.variant);
	json_object_object_add(*out, "text", json_object_new_string(text));
	return 0;
}

static int bb_store_boot_ids(struct bb_store *s, const struct bb_query *q,
			     int64_t **ids, size_t *n, char *err,
			     size_t errlen)
{
	struct bb_db_rows r;
	struct bb_db_op op;
	size_t cap = 0;
	int ret;

	*ids = NULL;
	*n = 0;
	bb_db_lock(&op, s->db, err, errlen);
	/* a fleet's daemon recovers its own boot jobs only */
	ret = bb_db_query(&r, &op, q, "t", bb_store_me(s));
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		if (*n == cap) {
			int64_t *p;

			cap = cap ? 2 * cap : 4;
			p = realloc(*ids, cap * sizeof(*p));
			if (!p) {
				ret = bb_db_err(&op, -ENOMEM, "out of memory");
				break;
			}
			*ids = p;
		}
		(*ids)[(*n)++] = bb_db_int(&r, "id");
		ret = 0;
	}
	ret = bb_db_end(&op, ret);
	if (ret) {
		free(*ids);
		*ids = NULL;
		*n = 0;
	}
	return ret;
}

int bb_store_jobs_rebooting(struct bb_store *s, int64_t **ids, size_t *n,
			    char *err, size_t errlen)
{
	return bb_store_boot_ids(s, &q_jobs_rebooting, ids, n, err, errlen);
}

int bb_store_jobs_boot_running(struct bb_store *s, int64_t **ids, size_t *n,
			       char *err, size_t errlen)
{
	return bb_store_boot_ids(s, &q_jobs_boot_running, ids, n, err, errlen);
}

/* A durable transaction on a job that must be running (-EALREADY with
 * its state otherwise); the caller ends op either way. */
static int boot_tx_running(struct bb_db_op *op, struct bb_store *s,
			   int64_t id, char *err, size_t errlen)
{
	int64_t changed = 0;
	int ret = bb_db_begin(op, s->db, BB_TX_DURABLE, err, errlen);

	if (ret)
		return ret;
	bb_db_what(op, "job %lld: boot progress", (long long)id);
	ret = bb_db_run(op, &q_boot_is_running, &changed, "i", id);
	if (!ret && !changed)
		ret = bb_store_not_in_state(op, id, BB_JOB_RUNNING);
	return ret;
}

int bb_store_job_boot_begin(struct bb_store *s, int64_t id,
			    const struct bb_boot_progress *p, char *err,
			    size_t errlen)
{
	struct bb_db_op op;
	int ret;

	ret = boot_tx_running(&op, s, id, err, errlen);
	if (ret)
		goto out;
	ret = bb_db_run(&op, &q_boot_set, NULL, "iuuttii", id, p->boot,
				p->boots, p->variant, p->boot_id_before,
				p->deadline_ms, bb_store_now_ms());
out:
	return bb_db_end(&op, ret);
}

int bb_store_job_boot_redo(struct bb_store *s, int64_t id, unsigned boot,
			   const char *why, unsigned *discarded, char *err,
			   size_t errlen)
{
	struct bb_db_op op;
	int64_t n = 0;
	int ret;

	*discarded = 0;
	ret = boot_tx_running(&op, s, id, err, errlen);
	if (ret)
		goto out;
	ret = bb_db_run(&op, &q_boot_discard, &n, "iut", id, boot, why);
	if (!ret)
		ret = bb_db_run(&op, &q_boot_runs_done, NULL, "i", id);
	if (!ret)
		ret = bb_db_run(&op, &q_boot_redone, NULL, "ii", id,
				bb_store_now_ms());
	if (!ret)
		ret = bb_store_event_add(&op, id, "warning", why);
	if (!ret)
		ret = bb_store_group_touch(&op, id);
	if (!ret)
		*discarded = (unsigned)n;
out:
	return bb_db_end(&op, ret);
}
