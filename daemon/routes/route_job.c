// SPDX-License-Identifier: GPL-2.0-only
/* route_job.c - GET /api/v1/jobs/{id}: one job, with its knob journal and
 * the scheduler's progress while it runs. */
#include "routes.h"

#include <errno.h>

void bb_route_job_get(const struct bb_route_req *r,
		      struct bb_http_response *rs)
{
	struct json_object *job = NULL, *knobs = NULL;
	char err[512] = "";
	int64_t id;
	int ret;

	if (bb_route_job_id(r, rs, &id))
		return;
	ret = bb_store_job_get(r->ctx->store, id, &job, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		return;
	}
	if (!json_object_object_get_ex(job, "knobs", NULL) &&
	    !bb_store_job_knobs(r->ctx->store, id, &knobs, NULL, 0) && knobs)
		json_object_object_add(job, "knobs", knobs);
	bb_route_add_progress(r, job);
	bb_route_device_flat(job);
	bb_http_json(rs, 200, job);
}
