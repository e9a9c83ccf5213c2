// SPDX-License-Identifier: GPL-2.0-only
/* meta.c - hosts and devices, deduplicated by their JSON. */
#include "store_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int bb_store_keycmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A copy of o with object keys sorted, recursively (leaves shared). */
static struct json_object *bb_store_canon(struct json_object *o)
{
	struct json_object *c;

	switch (json_object_get_type(o)) {
	case json_type_object: {
		size_t n = (size_t)json_object_object_length(o), i = 0;
		const char **keys = calloc(n ? n : 1, sizeof(*keys));

		c = json_object_new_object();
		if (!keys || !c) {
			free(keys);
			json_object_put(c);
			return NULL;
		}
		json_object_object_foreach(o, k, v) {
			(void)v;
			keys[i++] = k;
		}
		qsort(keys, n, sizeof(*keys), bb_store_keycmp);
		for (i = 0; i < n; i++)
			json_object_object_add(c, keys[i],
				bb_store_canon(json_object_object_get(o, keys[i])));
		free(keys);
		return c;
	}
	case json_type_array: {
		size_t n = json_object_array_length(o);

		c = json_object_new_array_ext((int)n);
		if (!c)
			return NULL;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(c,
				bb_store_canon(json_object_array_get_idx(o, i)));
		return c;
	}
	default:
		return json_object_get(o);
	}
}

/* Bind an integer member of o, NULL when absent or not a number. */
static int bb_store_bind_jint(sqlite3_stmt *st, int i, struct json_object *o,
			      const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_int64(st, i, json_object_get_int64(v));
}

/* The canonical JSON text of o (keys sorted), in *canon's storage. */
static int bb_store_canon_text(struct json_object *o,
			       struct json_object **canon, const char **text,
			       char *err, size_t errlen)
{
	if (!o || !json_object_is_type(o, json_type_object)) {
		bb_store_seterr(err, errlen, "metadata must be a JSON object");
		return -EINVAL;
	}
	*canon = bb_store_canon(o);
	*text = *canon ? json_object_to_json_string_ext(*canon, BB_JSON_PLAIN)
		       : NULL;
	if (!*text) {
		bb_store_seterr(err, errlen, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

static int bb_store_find_id(struct bb_store *s, enum bb_q q,
			    const char *text, int64_t *id, char *err,
			    size_t errlen)
{
	sqlite3_stmt *st;
	int ret, rc;

	ret = bb_store_q(s, q, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "t", text);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc == SQLITE_DONE ? SQLITE_ERROR : rc,
				     err, errlen, "finding metadata");
	*id = sqlite3_column_int64(st, 0);
	return 0;
}

int bb_store_host_upsert(struct bb_store *s, struct json_object *host,
			 int64_t *id, char *err, size_t errlen)
{
	struct json_object *canon = NULL;
	const char *text;
	sqlite3_stmt *st;
	int ret, rc;

	ret = bb_store_canon_text(host, &canon, &text, err, errlen);
	if (ret)
		goto out_put;
	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_HOST_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "tttttt", bb_store_jstr(host, "hostname"),
			   bb_store_jstr(host, "kernel"),
			   bb_store_jstr(host, "kernel_version"),
			   bb_store_jstr(host, "machine"),
			   bb_store_jstr(host, "cmdline"),
			   bb_store_jstr(host, "cpu_model"));
	if (rc == SQLITE_OK)
		rc = bb_store_bind_jint(st, 7, host, "cpus");
	if (rc == SQLITE_OK)
		rc = bb_store_bind_jint(st, 8, host, "memory_bytes");
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 9, bb_store_jstr(host, "governor"),
				       -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(st, 10, bb_store_now_ms());
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_text(st, 11, text, -1, SQLITE_STATIC);
	ret = bb_store_step_done(s, st, rc, err, errlen, "storing the host");
	if (ret)
		goto out;
	ret = bb_store_find_id(s, Q_HOST_FIND, text, id, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
out_put:
	json_object_put(canon);
	return ret;
}

int bb_store_device_upsert(struct bb_store *s, struct json_object *dev,
			   int64_t *id, char *err, size_t errlen)
{
	struct json_object *canon = NULL, *sub = NULL, *lim = NULL;
	const char *text, *path, *limits = NULL;
	sqlite3_stmt *st;
	int ret, rc;

	ret = bb_store_canon_text(dev, &canon, &text, err, errlen);
	if (ret)
		goto out_put;
	/* bb_target_device_info: {"kind","path","device": {..} | null};
	 * a bare bb_device_info object is its own device */
	if (json_object_object_get_ex(dev, "device", &sub)) {
		if (!json_object_is_type(sub, json_type_object))
			sub = NULL;
	} else {
		sub = dev;
	}
	path = bb_store_jstr(dev, "path");
	if (!path)
		path = bb_store_jstr(sub, "path");
	if (sub && json_object_object_get_ex(sub, "limits", &lim) &&
	    json_object_is_type(lim, json_type_object))
		limits = json_object_to_json_string_ext(lim, BB_JSON_PLAIN);
	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_DEVICE_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "ttttttitt", bb_store_jstr(dev, "kind"), path,
			   bb_store_jstr(sub, "name"),
			   bb_store_jstr(sub, "model"),
			   bb_store_jstr(sub, "serial"),
			   bb_store_jstr(sub, "firmware"), bb_store_now_ms(),
			   limits, text);
	ret = bb_store_step_done(s, st, rc, err, errlen,
				 "storing the device");
	if (ret)
		goto out;
	ret = bb_store_find_id(s, Q_DEVICE_FIND, text, id, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
out_put:
	json_object_put(canon);
	return ret;
}

/* Host or device id's info document with its "id"; NULL for none. */
int bb_store_meta_json(struct bb_store *s, enum bb_q q, int64_t id,
			      struct json_object **out, char *err,
			      size_t errlen)
{
	sqlite3_stmt *st;
	int ret, rc;

	*out = NULL;
	if (id <= 0)
		return 0;
	ret = bb_store_q(s, q, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "i", id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc, err, errlen, "reading metadata");
	*out = bb_store_col_json(st, 0);
	if (json_object_is_type(*out, json_type_object))
		json_object_object_add(*out, "id", json_object_new_int64(id));
	return 0;
}
