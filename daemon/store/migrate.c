// SPDX-License-Identifier: GPL-2.0-only
/* migrate.c - the store's schema migrations (schema/migrations, embedded). */
#include "store_int.h"

#include "bb_migrations.h"

#include <errno.h>
#include <stdio.h>

int bb_store_user_version(struct bb_store *s, int *v, char *err,
				 size_t errlen)
{
	sqlite3_stmt *st = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the schema version");
		goto out;
	}
	*v = sqlite3_column_int(st, 0);
out:
	sqlite3_finalize(st);
	return ret;
}

int bb_store_newer(struct bb_store *s, int v, char *err,
			  size_t errlen)
{
	int newest = (int)bb_array_size(bb_migrations);

	bb_store_seterr(err, errlen,
			"database %s has schema version %d, newer than this "
			"biobenchd (%d): use a newer biobenchd or another "
			"database", s->path, v, newest);
	return -EPROTO;
}

int bb_store_migrate(struct bb_store *s, char *err, size_t errlen)
{
	int newest = (int)bb_array_size(bb_migrations), v, ret = 0;
	char sql[64];

	for (int i = 0; i < newest; i++) {
		if (bb_migrations[i].version != i + 1) {
			bb_store_seterr(err, errlen,
					"migration %s has number %d, expected %d: "
					"migrations must be numbered without gaps",
					bb_migrations[i].name,
					bb_migrations[i].version, i + 1);
			return -EPROTO;
		}
	}
	/* One migration per transaction; the version is read again inside
	 * it, so two handles opening at once do not both apply it. */
	for (;;) {
		ret = bb_store_begin(s, true, err, errlen);
		if (ret)
			return ret;
		ret = bb_store_user_version(s, &v, err, errlen);
		if (ret)
			goto out;
		if (v > newest) {
			ret = bb_store_newer(s, v, err, errlen);
			goto out;
		}
		if (v == newest || v < 0)
			break;
		ret = bb_store_exec(s, bb_migrations[v].sql, err, errlen);
		if (ret) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", err ? err : "");
			bb_store_seterr(err, errlen, "migration %s: %s",
					bb_migrations[v].name, msg);
			goto out;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d",
			 bb_migrations[v].version);
		ret = bb_store_exec(s, sql, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_commit(s, err, errlen);
		if (ret)
			return ret;
	}
	if (v < 0) {
		bb_store_seterr(err, errlen,
				"database %s has a negative schema version %d",
				s->path, v);
		ret = -EPROTO;
		goto out;
	}
	s->version = v;
	return bb_store_commit(s, err, errlen);
out:
	bb_store_rollback(s);
	return ret;
}
