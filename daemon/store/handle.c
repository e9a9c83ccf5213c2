// SPDX-License-Identifier: GPL-2.0-only
/* handle.c - the store's handle: open (with migrations), close, health,
 * schema version (see store.h). */
#include "store_int.h"

#include <errno.h>
#include <stdlib.h>

int bb_store_open(struct bb_store **out, const char *path, char *err,
		  size_t errlen)
{
	struct bb_store *s;
	int ret;

	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ret = bb_db_open(&s->db, path, err, errlen);
	if (ret)
		goto out;
	s->kdb = s->db;   /* the knob journal shares the database today */
	s->group_seen_ms = BB_STORE_GROUP_SEEN_S * 1000LL;
	*out = s;
	s = NULL;
out:
	bb_store_close(s);
	return ret;
}

void bb_store_close(struct bb_store *s)
{
	if (!s)
		return;
	if (s->kdb != s->db)
		bb_db_close(s->kdb);
	bb_db_close(s->db);
	free(s);
}

int bb_store_schema_version(struct bb_store *s)
{
	return bb_db_version(s->db);
}

int bb_store_check(struct bb_store *s, char *err, size_t errlen)
{
	int ret = bb_db_check(s->db, err, errlen);

	if (!ret && s->kdb != s->db)
		ret = bb_db_check(s->kdb, err, errlen);
	return ret;
}
