// SPDX-License-Identifier: GPL-2.0-only
/* row.c - column tables (see db.h): a query's select list, and its rows
 * read into JSON; and the store's small JSON helpers. */
#include "db.h"
#include "store_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- JSON helpers --------------------------------------------------- */

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

/* ---- column tables -------------------------------------------------- */

static const char *bb_col_sql(const struct bb_col *c)
{
	return c->sql ? c->sql : c->key;
}

char *bb_db_sql(const struct bb_query *q)
{
	size_t len = strlen(q->sql) + 1, n = 0;
	char *sql;

	if (!q->cols || (q->flags & BB_Q_RETURNING))
		return strdup(q->sql);
	len += strlen("SELECT ");
	for (unsigned i = 0; i < q->ncols; i++)
		len += strlen(bb_col_sql(&q->cols[i])) + 2;
	sql = malloc(len);
	if (!sql)
		return NULL;
	n += (size_t)snprintf(sql + n, len - n, "SELECT ");
	for (unsigned i = 0; i < q->ncols; i++)
		n += (size_t)snprintf(sql + n, len - n, "%s%s",
				      bb_col_sql(&q->cols[i]),
				      i + 1 < q->ncols ? ", " : " ");
	snprintf(sql + n, len - n, "%s", q->sql);
	return sql;
}

/* Column c of the current row as its type says (NULL for SQL NULL, but
 * false for a BOOL; text reads NULL for NULL: no is_null for text). */
static struct json_object *bb_db_col_json(const struct bb_db_rows *r,
					  unsigned c)
{
	struct json_object *o = NULL;
	const char *t;

	switch (r->q->cols[c].type & BB_COL_TYPE) {
	case BB_COL_TEXT:
		t = r->be->col_text(r->st, c);
		return t ? json_object_new_string(t) : NULL;
	case BB_COL_JSON:
		t = r->be->col_text(r->st, c);
		if (t && !bb_store_json_parse(t, &o))
			return json_object_new_string(t);
		return o;
	case BB_COL_BOOL:
		return json_object_new_boolean(r->be->col_int(r->st, c) != 0);
	default:
		break;
	}
	if (r->be->is_null(r->st, c))
		return NULL;
	switch (r->q->cols[c].type & BB_COL_TYPE) {
	case BB_COL_DOUBLE:
		return json_object_new_double(r->be->col_double(r->st, c));
	case BB_COL_TIME:
		return bb_store_time_json(r->be->col_int(r->st, c));
	default:
		return json_object_new_int64(r->be->col_int(r->st, c));
	}
}

/* A table's keys are string constants, each once in its table: json-c
 * neither looks them up nor copies them. */
struct json_object *bb_db_json(const struct bb_db_rows *r)
{
	struct json_object *o = json_object_new_object();

	for (unsigned c = 0; c < r->q->ncols; c++)
		if (!(r->q->cols[c].type & BB_COL_HIDDEN))
			json_object_object_add_ex(o, r->q->cols[c].key,
						  bb_db_col_json(r, c),
						  JSON_C_OBJECT_ADD_KEY_IS_NEW |
						  JSON_C_OBJECT_KEY_IS_CONSTANT);
	return o;
}

/* The column of key (a programming error if it is not in the table:
 * -1, read as NULL). */
static int bb_db_col(const struct bb_db_rows *r, const char *key)
{
	for (unsigned c = 0; c < r->q->ncols; c++)
		if (!strcmp(r->q->cols[c].key, key))
			return (int)c;
	assert(!"no such column");
	return -1;
}

struct json_object *bb_db_value(const struct bb_db_rows *r, const char *key)
{
	int c = bb_db_col(r, key);

	return c < 0 ? NULL : bb_db_col_json(r, (unsigned)c);
}

bool bb_db_null(const struct bb_db_rows *r, const char *key)
{
	int c = bb_db_col(r, key);

	return c < 0 || r->be->is_null(r->st, (unsigned)c);
}

int64_t bb_db_int(const struct bb_db_rows *r, const char *key)
{
	int c = bb_db_col(r, key);

	return c < 0 ? 0 : r->be->col_int(r->st, (unsigned)c);
}

double bb_db_double(const struct bb_db_rows *r, const char *key)
{
	int c = bb_db_col(r, key);

	return c < 0 ? 0 : r->be->col_double(r->st, (unsigned)c);
}

const char *bb_db_text(const struct bb_db_rows *r, const char *key)
{
	int c = bb_db_col(r, key);

	return c < 0 ? NULL : r->be->col_text(r->st, (unsigned)c);
}
