// SPDX-License-Identifier: GPL-2.0-only
/* route_cancel.c - POST /api/v1/jobs/{id}/cancel: through the scheduler
 * when there is one (the running job stops within a second), else a
 * queued job is marked cancelled in the store.  A job that runs on
 * another daemon of the fleet gets a cancel request in the store (202,
 * state "cancelling", "host": the daemon that runs it): that daemon's
 * heartbeat stops it as a local cancel does.  A front end (no scheduler,
 * --no-runner) forwards the cancel of every claimed running job so.  A
 * group's parent cancels its children that have not ended, each as one
 * job (the queued ones at once, a running one here or by a request to
 * the daemon that runs it). */
#include "routes.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Cancel one job: 0 (owner[0] set when the cancel was asked of the
 * daemon that runs it), -EALREADY (ended), -errno. */
static int bb_cancel_one(const struct bb_route_req *r, int64_t id,
			 char *owner, size_t ownerlen, char *err,
			 size_t errlen)
{
	struct bb_store *st = r->ctx->store;
	char state[16] = "";
	int ret;

	owner[0] = '\0';
	if (r->ctx->sched) {
		ret = bb_sched_cancel(r->ctx->sched, st, id, err, errlen);
		/* not running here: running on another daemon? */
		if (ret == -EALREADY)
			ret = bb_store_job_cancel_request(st, id,
							  r->cfg->host_name,
							  true, owner, ownerlen,
							  err, errlen);
		return ret;
	}
	/* a front end runs nothing: a claimed running job is a runner's,
	 * whatever its name */
	ret = bb_store_job_cancel_request(st, id, r->cfg->host_name, false,
					  owner, ownerlen, err, errlen);
	if (ret != -EALREADY)
		return ret;
	owner[0] = '\0';
	ret = bb_store_job_state(st, id, state, err, errlen);
	if (!ret && (!strcmp(state, BB_JOB_QUEUED) ||
		     !strcmp(state, BB_JOB_RUNNING)))
		ret = bb_store_job_finish(st, id, BB_JOB_CANCELLED, NULL, NULL,
					  "cancelled by request", err, errlen);
	else if (!ret)
		ret = -EALREADY;
	return ret;
}

static bool bb_cancel_active(const char *state)
{
	return !strcmp(state, BB_JOB_QUEUED) ||
	       !strcmp(state, BB_JOB_RUNNING) ||
	       !strcmp(state, BB_JOB_REBOOTING);
}

/* The children of a group (kids: its document's) cancelled, each told
 * in the answer's "children" (a child running on another daemon:
 * "cancelling", with the request stored for it); -EALREADY when none
 * had to be. */
static int bb_cancel_group(const struct bb_route_req *r,
			   struct json_object *kids, struct json_object *o)
{
	struct json_object *out = json_object_new_array();
	size_t active = 0;

	for (size_t i = 0; i < json_object_array_length(kids); i++) {
		struct json_object *k = json_object_array_get_idx(kids, i);
		struct json_object *one = json_object_new_object(), *v;
		const char *state = "", *host = NULL;
		char err[512] = "", now[16] = "", owner[256] = "";
		int64_t cid = 0;
		int ret;

		if (json_object_object_get_ex(k, "id", &v))
			cid = json_object_get_int64(v);
		if (json_object_object_get_ex(k, "state", &v) && v)
			state = json_object_get_string(v);
		if (json_object_object_get_ex(k, "host", &v) && v)
			host = json_object_get_string(v);
		json_object_object_add(one, "id", json_object_new_int64(cid));
		json_object_object_add(one, "host", host ?
				       json_object_new_string(host) : NULL);
		if (!bb_cancel_active(state)) {
			json_object_object_add(one, "state",
					       json_object_new_string(state));
			json_object_object_add(one, "cancelled",
					       json_object_new_boolean(false));
			json_object_array_add(out, one);
			continue;
		}
		active++;
		ret = bb_cancel_one(r, cid, owner, sizeof(owner), err,
				    sizeof(err));
		if (!ret && owner[0])
			snprintf(now, sizeof(now), "cancelling");
		else if (bb_store_job_state(r->ctx->store, cid, now, NULL, 0))
			snprintf(now, sizeof(now), "%s", state);
		json_object_object_add(one, "state",
				       json_object_new_string(now));
		json_object_object_add(one, "cancelled",
				       json_object_new_boolean(!ret));
		if (ret)
			json_object_object_add(one, "why",
					       json_object_new_string(err));
		json_object_array_add(out, one);
	}
	json_object_object_add(o, "children", out);
	return active ? 0 : -EALREADY;
}

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
	struct json_object *o, *kids = NULL;
	int64_t id;
	int ret;

	if (bb_route_job_id(r, rs, &id))
		return;
	o = json_object_new_object();
	ret = bb_store_job_children(st, id, &kids, err, sizeof(err));
	if (!ret) {
		ret = bb_cancel_group(r, kids, o);
		json_object_put(kids);
	} else if (ret == -ENOTDIR) {
		ret = bb_cancel_one(r, id, owner, sizeof(owner), err,
				    sizeof(err));
	}
	if (!ret && owner[0]) {
		bb_cancel_forwarded(rs, id, owner);
		goto out;
	}
	if (ret == -EALREADY) {
		if (bb_store_job_state(st, id, state, NULL, 0))
			snprintf(state, sizeof(state), "finished");
		bb_http_error(rs, 409, "already_finished", NULL,
			      "job %" PRId64 " already finished (%s)", id,
			      state);
		goto out;
	}
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		goto out;
	}
	ret = bb_store_job_state(st, id, state, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		goto out;
	}
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "state", json_object_new_string(state));
	bb_http_json(rs, 200, o);
	o = NULL;
out:
	json_object_put(o);
}
