// SPDX-License-Identifier: GPL-2.0-only
/* route_cancel.c - POST /api/v1/jobs/{id}/cancel: through the scheduler
 * when there is one (the running job stops within a second), else a
 * queued job is marked cancelled in the store.  A job that runs on
 * another daemon of the fleet gets a cancel request in the store (202,
 * state "cancelling", "host": the daemon that runs it): that daemon's
 * heartbeat stops it as a local cancel does.  A front end (no scheduler,
 * --no-runner) forwards the cancel of every claimed running job so. */
#include "routes.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

/* The answer to a cancel that was forwarded to the job's daemon. */
static void bb_cancel_forwarded(struct bb_http_response *rs, int64_t id,
				const char *owner)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string("cancelling"));
	json_object_object_add(o, "host", json_object_new_string(owner));
	bb_http_json(rs, 202, o);
}

void bb_route_job_cancel(const struct bb_route_req *r,
			 struct bb_http_response *rs)
{
	struct bb_store *st = r->ctx->store;
	char err[512] = "", state[16] = "", owner[256] = "";
	struct json_object *o;
	int64_t id;
	int ret;

	if (bb_route_job_id(r, rs, &id))
		return;
	if (r->ctx->sched) {
		ret = bb_sched_cancel(r->ctx->sched, st, id, err, sizeof(err));
		/* not running here: running on another daemon? */
		if (ret == -EALREADY)
			ret = bb_store_job_cancel_request(st, id,
							  r->cfg->host_name,
							  true, owner,
							  sizeof(owner), err,
							  sizeof(err));
	} else {
		/* a front end runs nothing: a claimed running job is a
		 * runner's, whatever its name */
		ret = bb_store_job_cancel_request(st, id, r->cfg->host_name,
						  false, owner, sizeof(owner),
						  err, sizeof(err));
		if (ret == -EALREADY)
			ret = bb_store_job_state(st, id, state, err,
						 sizeof(err));
		else
			state[0] = '\0';
		if (!ret && (!strcmp(state, BB_JOB_QUEUED) ||
			     !strcmp(state, BB_JOB_RUNNING)))
			ret = bb_store_job_finish(st, id, BB_JOB_CANCELLED,
						  NULL, NULL,
						  "cancelled by request", err,
						  sizeof(err));
		else if (!ret && state[0])
			ret = -EALREADY;
	}
	if (!ret && owner[0]) {
		bb_cancel_forwarded(rs, id, owner);
		return;
	}
	if (ret == -EALREADY) {
		if (bb_store_job_state(st, id, state, NULL, 0))
			snprintf(state, sizeof(state), "finished");
		bb_http_error(rs, 409, "already_finished", NULL,
			      "job %" PRId64 " already finished (%s)", id,
			      state);
		return;
	}
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		return;
	}
	ret = bb_store_job_state(st, id, state, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string(state));
	bb_http_json(rs, 200, o);
}
