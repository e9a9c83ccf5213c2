/* SPDX-License-Identifier: GPL-2.0-only */
/* pgstore.h - the daemon tests' store: the PostgreSQL database
 * BB_TEST_STORE names (tests/pg/pgtmp.sh starts one for ctest's *_pg
 * tests), or a sqlite file when it is unset.
 *
 * bb_test_store(where, len, file) puts the store's location in where:
 * BB_TEST_STORE emptied (its public schema dropped and created again, so
 * that each test starts from an empty database), or file; returns true
 * for PostgreSQL.  bb_test_rm_tree(dir) removes a test's temporary
 * directory with everything in it (the sqlite file and its journals).
 * Header-only, for test programs; include after <cmocka.h>. */
#ifndef BB_TESTS_PGSTORE_H
#define BB_TESTS_PGSTORE_H

#include <ftw.h>
#include <libpq-fe.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void bb_test_pg_quiet(void *arg, const char *msg)
{
	(void)arg;   /* "drop cascades to ..." */
	(void)msg;
}

static __attribute__((unused)) bool bb_test_store(char *where, size_t len,
						  const char *file)
{
	const char *env = getenv("BB_TEST_STORE");
	PGresult *res;
	PGconn *pg;

	if (!env || !*env) {
		snprintf(where, len, "%s", file);
		return false;
	}
	snprintf(where, len, "%s", env);
	pg = PQconnectdb(where);
	PQsetNoticeProcessor(pg, bb_test_pg_quiet, NULL);
	res = PQexec(pg, "DROP SCHEMA public CASCADE; CREATE SCHEMA public");
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("emptying %s: %s", where, PQerrorMessage(pg));
	PQclear(res);
	PQfinish(pg);
	return true;
}

static int bb_test_rm_one(const char *p, const struct stat *sb, int flag,
			  struct FTW *f)
{
	(void)sb;
	(void)flag;
	(void)f;
	return remove(p);
}

static __attribute__((unused)) void bb_test_rm_tree(const char *dir)
{
	nftw(dir, bb_test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
