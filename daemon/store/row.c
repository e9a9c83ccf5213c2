// SPDX-License-Identifier: GPL-2.0-only
/* row.c - JSON helpers and column readers of the store. */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BB_JSON_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

const char *bb_store_jstr(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

bool bb_store_jnum(struct json_object *o, const char *key, double *d)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_int) ||
	      json_object_is_type(v, json_type_double)))
		return false;
	*d = json_object_get_double(v);
	return true;
}

/* Whether text is one JSON value; *obj gets it (NULL for "null") when
 * obj is not NULL. */
bool bb_store_json_parse(const char *text, struct json_object **obj)
{
	enum json_tokener_error e = json_tokener_success;
	struct json_object *o = json_tokener_parse_verbose(text, &e);

	if (e != json_tokener_success)
		return false;
	if (obj)
		*obj = o;
	else
		json_object_put(o);
	return true;
}

/* ISO 8601 UTC with milliseconds, e.g. "2026-11-30T04:33:10.123Z". */
struct json_object *bb_store_time_json(int64_t ms)
{
	char buf[48];
	struct tm tm;
	time_t t = (time_t)(ms / 1000);
	int rem = (int)(ms % 1000);
	size_t n;

	if (rem < 0) {
		rem += 1000;
		t--;
	}
	if (!gmtime_r(&t, &tm))
		return NULL;
	n = strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, sizeof(buf) - n, ".%03dZ", rem);
	return json_object_new_string(buf);
}

struct json_object *bb_store_col_time(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	return bb_store_time_json(sqlite3_column_int64(st, c));
}

struct json_object *bb_store_col_text(sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);

	return t ? json_object_new_string(t) : NULL;
}

struct json_object *bb_store_col_int(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	return json_object_new_int64(sqlite3_column_int64(st, c));
}

struct json_object *bb_store_col_double(sqlite3_stmt *st, int c)
{
	if (sqlite3_column_type(st, c) == SQLITE_NULL)
		return NULL;
	return json_object_new_double(sqlite3_column_double(st, c));
}

/* A stored JSON text parsed back (a string if it no longer parses). */
struct json_object *bb_store_col_json(sqlite3_stmt *st, int c)
{
	const char *t = (const char *)sqlite3_column_text(st, c);
	struct json_object *o = NULL;

	if (!t)
		return NULL;
	if (!bb_store_json_parse(t, &o))
		return json_object_new_string(t);
	return o;
}
