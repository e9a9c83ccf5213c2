// SPDX-License-Identifier: GPL-2.0-only
/* migrate.c - the store's schema migrations: schema/migrations/NNN_*.sql
 * (sqlite), schema/migrations/pg/NNN_*.sql (PostgreSQL) and
 * schema/migrations/knobs/NNN_*.sql (a local knob journal) embedded at
 * build time (cmake/embed_migrations.cmake), applied at open
 * in order up to the newest, each in one durable transaction that also
 * sets the schema version.  Numbered 1, 2, 3... without gaps (-EPROTO
 * otherwise); a database newer than the newest is refused (-EPROTO). */
#include "db.h"
#include "store_int.h"

#include "bb_migrations.h"
#include "bb_migrations_pg.h"
#include "bb_migrations_knobs.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>

const struct bb_migration_set bb_migrations_sqlite = {
	.list = bb_migrations,
	.n = bb_array_size(bb_migrations),
	/* sqlite's table rebuild (004) needs foreign keys off, which only
	 * takes effect outside a transaction */
	.before = "PRAGMA foreign_keys=OFF",
	.after = "PRAGMA foreign_keys=ON",
};

/* PostgreSQL alters a CHECK in place: nothing around the migrations */
const struct bb_migration_set bb_migrations_pg = {
	.list = bb_pg_migrations,
	.n = bb_array_size(bb_pg_migrations),
};

/* a PostgreSQL store's local knob journal (a sqlite file of its own) */
const struct bb_migration_set bb_migrations_knobs = {
	.list = bb_knobs_migrations,
	.n = bb_array_size(bb_knobs_migrations),
};

static int bb_migrate_newer(struct bb_db_op *op, int v, size_t newest)
{
	return bb_db_err(op, -EPROTO,
			 "database %s has schema version %d, newer than this "
			 "biobenchd (%zu): use a newer biobenchd or another "
			 "database", bb_db_where(op->db), v, newest);
}

int bb_migrate_check(struct bb_db_op *op, const struct bb_migration_set *m)
{
	int v, ret = bb_db_version_get(op, &v);

	if (!ret && v > (int)m->n)
		ret = bb_migrate_newer(op, v, m->n);
	return ret;
}

int bb_migrate(struct bb_db_op *op, const struct bb_migration_set *m,
	       int *version)
{
	int newest = (int)m->n, v = 0, ret, aret;
	bool before = false;

	for (int i = 0; i < newest; i++)
		if (m->list[i].version != i + 1)
			return bb_db_err(op, -EPROTO,
					 "migration %s has number %d, expected "
					 "%d: migrations must be numbered "
					 "without gaps", m->list[i].name,
					 m->list[i].version, i + 1);
	ret = bb_db_version_get(op, &v);
	if (ret)
		return ret;
	if (v < newest && v >= 0 && m->before) {
		ret = bb_db_exec(op, m->before);
		if (ret)
			return ret;
		before = true;
	}
	/* One migration per transaction; the version is read again inside
	 * it, so two handles opening at once do not both apply it. */
	for (;;) {
		ret = bb_db_tx(op, BB_TX_DURABLE);
		if (ret)
			goto out;
		ret = bb_db_version_get(op, &v);
		if (ret)
			goto out;
		if (v > newest) {
			ret = bb_migrate_newer(op, v, m->n);
			goto out;
		}
		if (v == newest || v < 0)
			break;
		ret = bb_db_exec(op, m->list[v].sql);
		if (ret) {
			char msg[256];

			snprintf(msg, sizeof(msg), "%s", op->err ? op->err : "");
			bb_db_err(op, ret, "migration %s: %s", m->list[v].name,
				  msg);
			goto out;
		}
		ret = bb_db_version_set(op, m->list[v].version);
		if (ret)
			goto out;
		ret = bb_db_tx_end(op, 0);
		if (ret)
			goto after;
	}
	if (v < 0) {
		ret = bb_db_err(op, -EPROTO,
				"database %s has a negative schema version %d",
				bb_db_where(op->db), v);
		goto out;
	}
	*version = v;
out:
	ret = bb_db_tx_end(op, ret);
after:
	if (before && m->after) {
		aret = bb_db_exec(op, m->after);
		ret = ret ? ret : aret;
	}
	return ret;
}
