// SPDX-License-Identifier: GPL-2.0-only
/* route_health.c - GET /api/v1/health: liveness and the store's state: a
 * trivial query, the database file still the one opened, no recent
 * failed write on either handle, every job's end recorded (503 with the
 * reason otherwise). */
#include "routes.h"

/* running_jobs: every job the scheduler runs (max_parallel_jobs), oldest
 * first; without a scheduler the one found in the store. */
static struct json_object *running_list(const struct bb_route_req *r,
					int64_t running)
{
	struct json_object *a = json_object_new_array();
	int64_t ids[BB_DCONFIG_MAX_PARALLEL];
	size_t n = 0;

	if (r->ctx->sched)
		n = bb_sched_running_all(r->ctx->sched, ids,
					 BB_DCONFIG_MAX_PARALLEL);
	else if (running)
		ids[n++] = running;
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	return a;
}

void bb_route_health(const struct bb_route_req *r,
		     struct bb_http_response *rs)
{
	struct json_object *o, *list = NULL, *jobs, *first, *idv;
	int64_t running = 0;
	char err[512] = "";
	int sv, ret;

	sv = bb_store_schema_version(r->ctx->store);
	ret = sv < 0 ? sv
		     : bb_store_jobs_list(r->ctx->store, BB_JOB_RUNNING, 1, 0,
					  &list, err, sizeof(err));
	if (ret) {
		bb_http_error(rs, 503, "store_unavailable", NULL,
			      "the store does not answer: %s",
			      err[0] ? err : "schema version unreadable");
		goto out;
	}
	if (bb_route_store_check(r, rs))
		goto out;
	if (r->ctx->sched)
		running = bb_sched_running(r->ctx->sched);
	else if (json_object_object_get_ex(list, "jobs", &jobs) &&
		 json_object_array_length(jobs) > 0 &&
		 (first = json_object_array_get_idx(jobs, 0)) &&
		 json_object_object_get_ex(first, "id", &idv))
		running = json_object_get_int64(idv);
	o = json_object_new_object();
	json_object_object_add(o, "status", json_object_new_string("ok"));
	json_object_object_add(o, "version", json_object_new_string(
				       r->ctx->version ? r->ctx->version : ""));
	json_object_object_add(o, "uptime_s", json_object_new_double(
				       bb_route_uptime_s(r->ctx)));
	json_object_object_add(o, "schema_version", json_object_new_int(sv));
	json_object_object_add(o, "running_job",
			       running ? json_object_new_int64(running) : NULL);
	json_object_object_add(o, "running_jobs", running_list(r, running));
	bb_http_json(rs, 200, o);
out:
	json_object_put(list);
}
