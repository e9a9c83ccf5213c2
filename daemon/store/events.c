// SPDX-License-Identifier: GPL-2.0-only
/* events.c - the store's event log. */
#include "store_int.h"

#include <errno.h>
#include <string.h>

static bool bb_store_level_ok(const char *l)
{
	return l && (!strcmp(l, "info") || !strcmp(l, "warning") ||
		     !strcmp(l, "error"));
}

/* Insert an event (locked, inside or outside a transaction). */
int bb_store_event_locked(struct bb_store *s, int64_t job_id,
				 const char *level, const char *msg,
				 char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int ret;

	ret = bb_store_q(s, Q_EVENT_INSERT, &st, err, errlen);
	if (ret)
		return ret;
	return bb_store_step_done(s, st,
				  bb_store_bind(st, "iItt", bb_store_now_ms(),
						job_id, level, msg ? msg : ""),
				  err, errlen, "storing an event");
}

int bb_store_event(struct bb_store *s, int64_t job_id, const char *level,
		   const char *msg)
{
	int ret;

	if (!bb_store_level_ok(level))
		return -EINVAL;
	bb_store_lock(s);
	ret = bb_store_event_locked(s, job_id, level, msg, NULL, 0);
	bb_store_unlock(s);
	return ret;
}
