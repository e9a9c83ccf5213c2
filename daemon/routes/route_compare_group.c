// SPDX-License-Identifier: GPL-2.0-only
/* route_compare_group.c - GET /api/v1/jobs/{id}/compare of a group's
 * parent: one row per host and comparison (the child job's own
 * comparison, as GET /api/v1/jobs/{child}/compare has it: its n, change,
 * interval and verdict), then the combined block of each comparison
 * (bb_group_combine: the hosts' effects, their spread, a pooled
 * estimate and whether the hosts disagree). */
#include "routes.h"
#include <biobench/jobgroup.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static struct json_object *jcopy(struct json_object *o, const char *key)
{
	return json_object_get(jget(o, key));
}

/* The rows of one child: one per comparison of its document (none yet:
 * a row without an estimate and a warning). */
static void bb_group_rows(struct json_object *kid, struct json_object *job,
			  struct json_object *rows,
			  struct json_object *warnings)
{
	static const char *const keys[] = {
		"baseline", "variant", "n", "change", "ci_lo", "ci_hi",
		"ci_level", "ci_label", "p_value", "p_adjusted", "verdict",
		"text", "error",
	};
	struct json_object *cmps = jget(jget(job, "compare"), "comparisons");
	const char *host = json_object_get_string(jget(kid, "host"));
	const char *state = json_object_get_string(jget(kid, "state"));
	size_t n = cmps && json_object_is_type(cmps, json_type_array) ?
			   json_object_array_length(cmps) : 0;
	char msg[256];

	for (size_t i = 0; i < (n ? n : 1); i++) {
		struct json_object *c = n ? json_object_array_get_idx(cmps, i) :
					    NULL;
		struct json_object *row = json_object_new_object();

		json_object_object_add(row, "host", jcopy(kid, "host"));
		json_object_object_add(row, "job_id", jcopy(kid, "id"));
		json_object_object_add(row, "state", jcopy(kid, "state"));
		json_object_object_add(row, "runs_done", jcopy(kid,
							       "runs_done"));
		json_object_object_add(row, "runs_planned",
				       jcopy(kid, "runs_planned"));
		for (size_t k = 0; k < bb_array_size(keys); k++)
			json_object_object_add(row, keys[k], jcopy(c, keys[k]));
		json_object_array_add(rows, row);
	}
	if (!n) {
		snprintf(msg, sizeof(msg), "host %s (job %" PRId64 ", %s): no "
			 "comparison yet", host ? host : "?",
			 json_object_get_int64(jget(kid, "id")),
			 state ? state : "?");
		json_object_array_add(warnings, json_object_new_string(msg));
	} else if (state && strcmp(state, BB_JOB_DONE)) {
		snprintf(msg, sizeof(msg), "host %s (job %" PRId64 ") is %s: "
			 "its comparison is not final", host ? host : "?",
			 json_object_get_int64(jget(kid, "id")), state);
		json_object_array_add(warnings, json_object_new_string(msg));
	}
}

void bb_route_group_compare(const struct bb_route_req *r,
			    struct bb_http_response *rs, int64_t id,
			    struct json_object *group)
{
	struct json_object *o = json_object_new_object();
	struct json_object *rows = json_object_new_array();
	struct json_object *warnings = json_object_new_array();
	struct json_object *kids = jget(group, "children"), *comb, *v;
	const char *state = json_object_get_string(jget(group, "state"));
	bool have_metric = false;
	double conf = 0.95;
	size_t n = kids && json_object_is_type(kids, json_type_array) ?
			   json_object_array_length(kids) : 0;

	v = jget(jget(group, "spec"), "confidence");
	if (v)
		conf = json_object_get_double(v);
	for (size_t i = 0; i < n; i++) {
		struct json_object *kid = json_object_array_get_idx(kids, i);
		struct json_object *job = NULL, *cmp;
		char err[256];

		if (bb_store_job_get(r->ctx->store,
				     json_object_get_int64(jget(kid, "id")),
				     &job, err, sizeof(err))) {
			json_object_array_add(warnings,
					      json_object_new_string(err));
			continue;
		}
		cmp = jget(job, "compare");
		if (!have_metric && jget(cmp, "metric")) {
			have_metric = true;
			json_object_object_add(o, "metric", jcopy(cmp, "metric"));
			json_object_object_add(o, "unit", jcopy(cmp, "unit"));
		}
		bb_group_rows(kid, job, rows, warnings);
		json_object_put(job);
	}
	if (!have_metric) {
		json_object_object_add(o, "metric",
				       jcopy(jget(group, "spec"), "metric"));
		json_object_object_add(o, "unit", NULL);
	}
	comb = bb_group_combine(rows, conf);
	json_object_object_add(o, "job_id", json_object_new_int64(id));
	json_object_object_add(o, "group", json_object_new_boolean(true));
	json_object_object_add(o, "state", jcopy(group, "state"));
	json_object_object_add(o, "final", json_object_new_boolean(
				       state && !strcmp(state, BB_JOB_DONE)));
	json_object_object_add(o, "verdict", jcopy(group, "verdict"));
	json_object_object_add(o, "hosts", json_object_new_int64((int64_t)n));
	json_object_object_add(o, "rows", rows);
	json_object_object_add(o, "combined", comb);
	json_object_object_add(o, "warnings", warnings);
	bb_http_json(rs, 200, o);
}
