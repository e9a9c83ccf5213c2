// SPDX-License-Identifier: GPL-2.0-only
/* handle.c - the store's handle: open (with migrations, and a local knob
 * journal of its own), close, health, schema version (see store.h). */
#include "store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The local knob journal at path: a sqlite file with the knob_journal
 * table only (schema/migrations/knobs/). */
static int bb_store_journal_open(struct bb_store *s, const char *path,
				 char *err, size_t errlen)
{
	char msg[768] = "";
	int ret;

	if (bb_store_is_pg(path)) {
		bb_store_seterr(err, errlen, "knob journal %s: a local sqlite "
				"file, not a PostgreSQL database", path);
		return -EINVAL;
	}
	ret = bb_db_open_set(&s->kdb, path, &bb_migrations_knobs, msg,
			     sizeof(msg));
	if (ret == -EPROTO)
		bb_store_seterr(err, errlen, "knob journal %s: %s (knob_journal "
				"names a file of its own, never the store's "
				"database)", path, msg);
	else if (ret)
		bb_store_seterr(err, errlen, "knob journal %s: %s", path, msg);
	return ret;
}

int bb_store_open_journal(struct bb_store **out, const char *where,
			  const char *journal, char *err, size_t errlen)
{
	struct bb_store *s;
	int ret = 0;

	*out = NULL;
	if (journal && !*journal)
		journal = NULL;
	if (!where && !journal) {
		bb_store_seterr(err, errlen, "no database path");
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&s->mlock, NULL);
	if (where) {
		ret = bb_db_open(&s->db, where, err, errlen);
		if (ret)
			goto out;
		bb_store_name(where, s->kstore, sizeof(s->kstore));
	}
	if (journal && (!where || strcmp(journal, where)))
		ret = bb_store_journal_open(s, journal, err, errlen);
	else if (!bb_store_is_pg(where))
		s->kdb = s->db;   /* a sqlite store journals in its file */
	if (ret)
		goto out;
	s->group_seen_ms = BB_STORE_GROUP_SEEN_S * 1000LL;
	*out = s;
	s = NULL;
out:
	bb_store_close(s);
	return ret;
}

int bb_store_open(struct bb_store **out, const char *path, char *err,
		  size_t errlen)
{
	return bb_store_open_journal(out, path, NULL, err, errlen);
}

void bb_store_close(struct bb_store *s)
{
	if (!s)
		return;
	if (s->kdb != s->db)
		bb_db_close(s->kdb);
	bb_db_close(s->db);
	pthread_mutex_destroy(&s->mlock);
	free(s);
}

int bb_store_schema_version(struct bb_store *s)
{
	return bb_db_version(s->db ? s->db : s->kdb);
}

int bb_store_check(struct bb_store *s, char *err, size_t errlen)
{
	int ret = s->db ? bb_db_check(s->db, err, errlen) : 0;

	if (!ret && s->kdb && s->kdb != s->db)
		ret = bb_db_check(s->kdb, err, errlen);
	return ret;
}

bool bb_store_retry(struct bb_store *s, int ret, int64_t until)
{
	const struct timespec pause = { .tv_nsec = 250 * 1000000L };

	if (ret != -EIO || !until || !s->db || !bb_db_lost(s->db) ||
	    bb_store_now_ms() >= until)
		return false;
	nanosleep(&pause, NULL);
	return true;
}
