// SPDX-License-Identifier: GPL-2.0-only
/* route_compare.c - GET /api/v1/jobs/{id}/compare: the job's comparison
 * (final once the job is done), its verdict, and warnings about what may
 * spoil it (runs on different devices, failed runs). */
#include "routes.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Warnings from the runs of the job. */
static void bb_compare_warnings(const struct bb_route_req *r, int64_t id,
				struct json_object *warnings)
{
	struct json_object *doc = NULL, *runs, *v;
	int64_t dev = 0;
	bool devs_differ = false;
	size_t n, failed = 0, cancelled = 0, measured = 0;
	char msg[160];

	if (bb_store_job_runs(r->ctx->store, id, false, &doc, NULL, 0) ||
	    !json_object_object_get_ex(doc, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array))
		goto out;
	n = json_object_array_length(runs);
	for (size_t i = 0; i < n; i++) {
		struct json_object *run = json_object_array_get_idx(runs, i);
		const char *rstate;
		int64_t d;

		if (json_object_object_get_ex(run, "warmup", &v) &&
		    json_object_get_boolean(v))
			continue;
		/* a redone boot's first attempt: not a measured run */
		if (json_object_object_get_ex(run, "discarded", &v) && v)
			continue;
		measured++;
		rstate = json_object_object_get_ex(run, "state", &v) ?
				 json_object_get_string(v) : "done";
		if (!strcmp(rstate, "cancelled"))
			cancelled++;
		else if (strcmp(rstate, "done"))
			failed++;
		if (!json_object_object_get_ex(run, "device_id", &v) || !v)
			continue;
		d = json_object_get_int64(v);
		if (!d)
			continue;
		if (dev && d != dev)
			devs_differ = true;
		dev = d;
	}
	if (devs_differ)
		json_object_array_add(warnings, json_object_new_string(
			"variants ran on different devices"));
	if (failed) {
		snprintf(msg, sizeof(msg), "%zu of %zu measured runs failed: "
			 "%s not in the comparison", failed, measured,
			 failed == 1 ? "it is" : "they are");
		json_object_array_add(warnings, json_object_new_string(msg));
	}
	if (cancelled) {
		snprintf(msg, sizeof(msg), "%zu of %zu measured runs %s "
			 "cancelled: not in the comparison", cancelled,
			 measured, cancelled == 1 ? "was" : "were");
		json_object_array_add(warnings, json_object_new_string(msg));
	}
out:
	json_object_put(doc);
}

/* "failed after 2 of 20 runs (run 3 (variant A, round 2): ...)" of a
 * job that ended without finishing ("" for any other state). */
static void bb_compare_end_text(struct json_object *job, const char *state,
				char *buf, size_t len)
{
	struct json_object *v;
	const char *error = NULL, *how;
	int done = 0, planned = 0;

	buf[0] = '\0';
	if (!strcmp(state, BB_JOB_FAILED))
		how = "failed";
	else if (!strcmp(state, BB_JOB_CANCELLED))
		how = "was cancelled";
	else if (!strcmp(state, BB_JOB_INTERRUPTED))
		how = "was interrupted (the daemon stopped)";
	else
		return;
	if (json_object_object_get_ex(job, "runs_done", &v))
		done = json_object_get_int(v);
	if (json_object_object_get_ex(job, "runs_planned", &v))
		planned = json_object_get_int(v);
	if (json_object_object_get_ex(job, "error", &v) && v)
		error = json_object_get_string(v);
	snprintf(buf, len, "%s after %d of %d runs%s%.400s%s", how, done,
		 planned, error ? " (" : "", error ? error : "",
		 error ? ")" : "");
}

void bb_route_job_compare(const struct bb_route_req *r,
			  struct bb_http_response *rs)
{
	struct json_object *job = NULL, *o, *v, *cmp = NULL, *warnings;
	char err[512] = "", msg[640], end[512];
	const char *state = "";
	int64_t id;
	int ret;

	if (bb_route_job_id(r, rs, &id))
		return;
	ret = bb_store_job_get(r->ctx->store, id, &job, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		return;
	}
	if (json_object_object_get_ex(job, "group", &v) &&
	    json_object_get_boolean(v)) {
		bb_route_group_compare(r, rs, id, job);
		goto out;
	}
	if (json_object_object_get_ex(job, "state", &v))
		state = json_object_get_string(v);
	bb_compare_end_text(job, state, end, sizeof(end));
	if (!json_object_object_get_ex(job, "compare", &cmp) || !cmp) {
		if (end[0])
			bb_http_error(rs, 409, "no_comparison", NULL,
				      "job %" PRId64 " %s, before it had a "
				      "comparison", id, end);
		else
			bb_http_error(rs, 409, "no_comparison", NULL,
				      "job %" PRId64 " has no comparison yet "
				      "(%s: one comes once a round of runs "
				      "is measured)", id, state);
		goto out;
	}
	o = json_object_new_object();
	warnings = json_object_new_array();
	json_object_object_add(o, "job_id", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "final", json_object_new_boolean(
				       !strcmp(state, BB_JOB_DONE)));
	json_object_object_add(o, "verdict",
			       json_object_object_get_ex(job, "verdict", &v) &&
			       v ? json_object_get(v) : NULL);
	json_object_object_add(o, "compare", json_object_get(cmp));
	/* the job's counts: the stored comparison is that of its last
	 * measured round */
	json_object_object_add(o, "runs_done",
			       json_object_object_get_ex(job, "runs_done", &v) ?
			       json_object_get(v) : NULL);
	json_object_object_add(o, "runs_planned",
			       json_object_object_get_ex(job, "runs_planned",
							 &v) ?
			       json_object_get(v) : NULL);
	if (end[0]) {
		snprintf(msg, sizeof(msg), "the job %s: this comparison is "
			 "of the runs before that, not final", end);
		json_object_array_add(warnings, json_object_new_string(msg));
	} else if (strcmp(state, BB_JOB_DONE)) {
		snprintf(msg, sizeof(msg), "the job is %s: this comparison "
			 "is not final", state);
		json_object_array_add(warnings, json_object_new_string(msg));
	}
	bb_compare_warnings(r, id, warnings);
	json_object_object_add(o, "warnings", warnings);
	bb_route_add_progress(r, job);
	if (json_object_object_get_ex(job, "progress", &v))
		json_object_object_add(o, "progress", json_object_get(v));
	bb_http_json(rs, 200, o);
out:
	json_object_put(job);
}
