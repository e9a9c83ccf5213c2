// SPDX-License-Identifier: GPL-2.0-only
/* history.c - the history of a workload: its finished jobs. */
#include "store_int.h"

#include <errno.h>
#include <string.h>

/* The comparison of a finished job, slimmed for the history: its metric
 * and, per comparison, the change with its interval and the medians. */
static struct json_object *bb_store_history_compare(struct json_object *cmp)
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

int bb_store_job_history(struct bb_store *s, const char *name,
			 const char *target, unsigned limit,
			 struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *jobs, *job, *meta, *cmp;
	sqlite3_stmt *st;
	int ret, rc;

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
	bb_store_lock(s);
	ret = bb_store_begin_read(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_JOBS_HISTORY, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "ttu", name, target, limit);
	while (bb_store_next(st, &rc)) {
		job = bb_store_job_json(st);
		json_object_array_add(jobs, job);
		ret = bb_store_meta_json(s, Q_HOST_GET,
					 sqlite3_column_int64(st, 11), &meta,
					 err, errlen);
		if (ret)
			goto out;
		json_object_object_add(job, "host", meta);
		ret = bb_store_meta_json(s, Q_DEVICE_GET,
					 sqlite3_column_int64(st, 12), &meta,
					 err, errlen);
		if (ret)
			goto out;
		json_object_object_add(job, "device", meta);
		cmp = bb_store_col_json(st, 13);
		json_object_object_add(job, "compare",
				       bb_store_history_compare(cmp));
		ret = bb_store_noise_locked(s, sqlite3_column_int64(st, 11),
					    bb_store_jstr(job, "target"),
					    bb_store_jstr(cmp, "metric"), &meta,
					    err, errlen);
		json_object_put(cmp);
		if (ret)
			goto out;
		json_object_object_add(job, "noise_floor", meta);
	}
	if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the history of '%.64s'", name);
		goto out;
	}
	*out = doc;
	doc = NULL;
out:
	bb_store_rollback(s);   /* ends the read transaction */
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}
