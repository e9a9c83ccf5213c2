// SPDX-License-Identifier: GPL-2.0-only
/* meta.c - hosts and devices, deduplicated by their JSON: the same
 * metadata (compared as JSON text with the keys sorted) gives the same
 * id; a few members are copied to columns of their own for queries. */
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

/* ON CONFLICT without a target: info is the only unique key besides the
 * generated id, and PostgreSQL's is an index on md5(info) (a column
 * target would not match it) */
static const struct bb_query q_host_insert = BB_STATEMENT(
	"INSERT INTO hosts (hostname, kernel, kernel_version, machine,"
	" cmdline, cpu_model, cpus, memory_bytes, governor, first_seen_ms,"
	" info) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)"
	" ON CONFLICT DO NOTHING",
	"storing the host");
static const struct bb_query q_device_insert = BB_STATEMENT(
	"INSERT INTO devices (kind, path, name, model, serial, firmware,"
	" first_seen_ms, limits, info) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,"
	" ?8, ?9) ON CONFLICT DO NOTHING",
	"storing the device");

static const struct bb_col bb_meta_id_cols[] = {
	{ "id", BB_COL_INT64, NULL },
};
static const struct bb_query q_host_find = BB_SELECT(bb_meta_id_cols,
	"FROM hosts WHERE info = ?1", "finding metadata");
static const struct bb_query q_device_find = BB_SELECT(bb_meta_id_cols,
	"FROM devices WHERE info = ?1", "finding metadata");

static const struct bb_col bb_meta_info_cols[] = {
	{ "info", BB_COL_JSON, NULL },
};
static const struct bb_query q_host_get = BB_SELECT(bb_meta_info_cols,
	"FROM hosts WHERE id = ?1", "reading metadata");
static const struct bb_query q_device_get = BB_SELECT(bb_meta_info_cols,
	"FROM devices WHERE id = ?1", "reading metadata");

/* An integer member of o, NULL when absent or not an integer. */
static struct bb_val bb_store_jint(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_int))
		return bb_val_null();
	return bb_val_int(json_object_get_int64(v));
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

/* Insert the row (values v, the last one its canonical text) unless it
 * is there, and read its id. */
static int bb_store_meta_upsert(struct bb_store *s,
				const struct bb_query *insert,
				const struct bb_query *find,
				const struct bb_val *v, unsigned n,
				int64_t *id, char *err, size_t errlen)
{
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	ret = bb_db_begin(&op, s->db, BB_TX_WRITE, err, errlen);
	if (ret)
		goto out;
	ret = bb_db_run_vals(&op, insert, v, n, NULL);
	if (ret)
		goto out;
	ret = bb_db_row(&r, &op, find, "t", v[n - 1].t);
	if (ret < 0)
		goto out;
	if (!ret) {
		ret = bb_db_err(&op, -EIO, "finding metadata: the row just "
				"stored is missing (%s)", bb_db_where(s->db));
		goto out;
	}
	*id = bb_db_int(&r, "id");
	ret = 0;
out:
	return bb_db_end(&op, ret);
}

int bb_store_host_upsert(struct bb_store *s, struct json_object *host,
			 int64_t *id, char *err, size_t errlen)
{
	struct json_object *canon = NULL;
	const char *text;
	int ret;

	ret = bb_store_canon_text(host, &canon, &text, err, errlen);
	if (!ret) {
		const struct bb_val v[] = {
			bb_val_text(bb_store_jstr(host, "hostname")),
			bb_val_text(bb_store_jstr(host, "kernel")),
			bb_val_text(bb_store_jstr(host, "kernel_version")),
			bb_val_text(bb_store_jstr(host, "machine")),
			bb_val_text(bb_store_jstr(host, "cmdline")),
			bb_val_text(bb_store_jstr(host, "cpu_model")),
			bb_store_jint(host, "cpus"),
			bb_store_jint(host, "memory_bytes"),
			bb_val_text(bb_store_jstr(host, "governor")),
			bb_val_int(bb_store_now_ms()),
			bb_val_text(text),
		};

		ret = bb_store_meta_upsert(s, &q_host_insert, &q_host_find, v,
					   bb_array_size(v), id, err, errlen);
	}
	json_object_put(canon);
	return ret;
}

int bb_store_device_upsert(struct bb_store *s, struct json_object *dev,
			   int64_t *id, char *err, size_t errlen)
{
	struct json_object *canon = NULL, *sub = NULL, *lim = NULL;
	const char *text, *path, *limits = NULL;
	int ret;

	ret = bb_store_canon_text(dev, &canon, &text, err, errlen);
	if (ret)
		goto out;
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
	{
		const struct bb_val v[] = {
			bb_val_text(bb_store_jstr(dev, "kind")),
			bb_val_text(path),
			bb_val_text(bb_store_jstr(sub, "name")),
			bb_val_text(bb_store_jstr(sub, "model")),
			bb_val_text(bb_store_jstr(sub, "serial")),
			bb_val_text(bb_store_jstr(sub, "firmware")),
			bb_val_int(bb_store_now_ms()),
			bb_val_text(limits),
			bb_val_text(text),
		};

		ret = bb_store_meta_upsert(s, &q_device_insert, &q_device_find,
					   v, bb_array_size(v), id, err,
					   errlen);
	}
out:
	json_object_put(canon);
	return ret;
}

static int bb_store_meta_json(struct bb_db_op *op, const struct bb_query *q,
			      int64_t id, struct json_object **out)
{
	struct bb_db_rows r;
	int ret;

	*out = NULL;
	if (id <= 0)
		return 0;
	ret = bb_db_row(&r, op, q, "i", id);
	if (ret <= 0)
		return ret;
	*out = bb_db_value(&r, "info");
	if (json_object_is_type(*out, json_type_object))
		json_object_object_add(*out, "id", json_object_new_int64(id));
	return 0;
}

int bb_store_host_json(struct bb_db_op *op, int64_t id,
		       struct json_object **out)
{
	return bb_store_meta_json(op, &q_host_get, id, out);
}

int bb_store_device_json(struct bb_db_op *op, int64_t id,
			 struct json_object **out)
{
	return bb_store_meta_json(op, &q_device_get, id, out);
}
