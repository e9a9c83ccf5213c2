// SPDX-License-Identifier: GPL-2.0-only
/* events.c - the store's event log: a job's life ("submitted", "started",
 * "done: ...") and the daemon's own notes. */
#include "store_int.h"

#include <errno.h>
#include <string.h>

static const struct bb_query q_event_insert = BB_STATEMENT(
	"INSERT INTO events (ts_ms, job_id, level, message)"
	" VALUES (?1, ?2, ?3, ?4)",
	"storing an event");

static bool bb_store_level_ok(const char *l)
{
	return l && (!strcmp(l, "info") || !strcmp(l, "warning") ||
		     !strcmp(l, "error"));
}

int bb_store_event_add(struct bb_db_op *op, int64_t job_id,
		       const char *level, const char *msg)
{
	return bb_db_run(op, &q_event_insert, NULL, "iItt", bb_store_now_ms(),
			 job_id, level, msg ? msg : "");
}

int bb_store_event(struct bb_store *s, int64_t job_id, const char *level,
		   const char *msg)
{
	struct bb_db_op op;

	if (!bb_store_level_ok(level))
		return -EINVAL;
	if (!s->db)   /* a journal-only handle: the log has it */
		return -ENOTCONN;
	bb_db_lock(&op, s->db, NULL, 0);
	return bb_db_end(&op, bb_store_event_add(&op, job_id, level, msg));
}
