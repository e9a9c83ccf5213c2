// SPDX-License-Identifier: GPL-2.0-only
/* history.c - the history of a workload: the jobs of one name that ended
 * done, newest first, each with its host, device, noise floor and its
 * comparison slimmed to the figures a trend needs. */
#include "store_int.h"

#include <errno.h>
#include <string.h>

/* The comparison of a finished job, slimmed for the history and the job
 * list: its metric and, per comparison, the change with its interval and
 * the medians. */
struct json_object *bb_store_history_compare(struct json_object *cmp)
{
	static const char *const keys[] = {
		"baseline", "variant", "metric", "unit", "higher_is_better",
		"method", "design", "n", "change", "ci_lo", "ci_hi", "ci_level",
		"ci_label", "p_value", "p_adjusted", "tost_p", "family",
		"multiple", "verdict", "text", "confidence", "min_effect",
	};
	struct json_object *o, *arr, *list, *v;

	if (!json_object_is_type(cmp, json_type_object))
		return NULL;
	o = json_object_new_object();
	arr = json_object_new_array();
	if (json_object_object_get_ex(cmp, "metric", &v))
		json_object_object_add(o, "metric", json_object_get(v));
	if (json_object_object_get_ex(cmp, "unit", &v))
		json_object_object_add(o, "unit", json_object_get(v));
	json_object_object_add(o, "comparisons", arr);
	if (!json_object_object_get_ex(cmp, "comparisons", &list) ||
	    !json_object_is_type(list, json_type_array))
		return o;
	for (size_t i = 0; i < json_object_array_length(list); i++) {
		struct json_object *c = json_object_array_get_idx(list, i);
		struct json_object *one, *side;

		if (!json_object_is_type(c, json_type_object))
			continue;
		one = json_object_new_object();
		for (size_t k = 0; k < bb_array_size(keys); k++)
			if (json_object_object_get_ex(c, keys[k], &v))
				json_object_object_add(one, keys[k],
						       json_object_get(v));
		if (json_object_object_get_ex(c, "a", &side) &&
		    json_object_object_get_ex(side, "median", &v))
			json_object_object_add(one, "baseline_median",
					       json_object_get(v));
		if (json_object_object_get_ex(c, "b", &side) &&
		    json_object_object_get_ex(side, "median", &v))
			json_object_object_add(one, "variant_median",
					       json_object_get(v));
		json_object_array_add(arr, one);
	}
	return o;
}

static const struct bb_col bb_history_cols[] = {
	BB_JOB_COLS,
	{ "host_id", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "device_id", BB_COL_INT64 | BB_COL_HIDDEN, NULL },
	{ "compare", BB_COL_JSON | BB_COL_HIDDEN, NULL },
};
/* target = coalesce(?2, target), not "?2 IS NULL OR ...": PostgreSQL
 * cannot tell the type of a parameter that is only tested for NULL */
static const struct bb_query q_jobs_history = BB_SELECT(bb_history_cols,
	"FROM jobs WHERE name = ?1 AND state = 'done' AND is_group = 0"
	" AND target = coalesce(?2, target) ORDER BY id DESC LIMIT ?3",
	"reading the history");

/* A history job: the row's job, host, device, compare and noise floor. */
static int bb_store_history_job(struct bb_db_op *op,
				const struct bb_db_rows *r,
				struct json_object *job)
{
	int64_t host_id = bb_db_int(r, "host_id");
	struct json_object *meta, *cmp;
	int ret;

	ret = bb_store_host_json(op, host_id, &meta);
	if (ret)
		return ret;
	json_object_object_add(job, "host", meta);
	ret = bb_store_device_json(op, bb_db_int(r, "device_id"), &meta);
	if (ret)
		return ret;
	json_object_object_add(job, "device", meta);
	cmp = bb_db_value(r, "compare");
	json_object_object_add(job, "compare", bb_store_history_compare(cmp));
	ret = bb_store_noise_json(op, host_id, bb_store_jstr(job, "target"),
				  bb_store_jstr(cmp, "metric"), &meta);
	json_object_put(cmp);
	if (!ret)
		json_object_object_add(job, "noise_floor", meta);
	return ret;
}

int bb_store_job_history(struct bb_store *s, const char *name,
			 const char *target, unsigned limit,
			 struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *jobs, *job;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	if (!name) {
		bb_store_seterr(err, errlen, "a job name is needed");
		return -EINVAL;
	}
	if (limit < 1 || limit > 500) {
		bb_store_seterr(err, errlen, "limit must be 1..500, not %u",
				limit);
		return -EINVAL;
	}
	doc = json_object_new_object();
	jobs = json_object_new_array();
	json_object_object_add(doc, "name", json_object_new_string(name));
	json_object_object_add(doc, "target",
			       target ? json_object_new_string(target) : NULL);
	json_object_object_add(doc, "jobs", jobs);
	ret = bb_db_begin(&op, s->db, BB_TX_READ, err, errlen);
	if (ret)
		goto out;
	bb_db_what(&op, "reading the history of '%.64s'", name);
	ret = bb_db_query(&r, &op, &q_jobs_history, "ttu", name, target,
			  limit);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		job = bb_db_json(&r);
		json_object_array_add(jobs, job);
		ret = bb_store_history_job(&op, &r, job);
	}
	if (!ret) {
		*out = doc;
		doc = NULL;
	}
out:
	json_object_put(doc);
	return bb_db_end(&op, ret);
}
