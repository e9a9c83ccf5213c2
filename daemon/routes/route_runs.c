// SPDX-License-Identifier: GPL-2.0-only
/* route_runs.c - GET /api/v1/jobs/{id}/runs[?samples=1]: the runs of a
 * job, with their per-second samples when asked. */
#include "routes.h"

#include <string.h>

void bb_route_job_runs(const struct bb_route_req *r,
		       struct bb_http_response *rs)
{
	const char *s = bb_http_arg(r->rq, "samples");
	struct json_object *out = NULL;
	bool samples = false;
	char err[512] = "";
	int64_t id;
	int ret;

	if (bb_route_job_id(r, rs, &id))
		return;
	if (s) {
		if (!strcmp(s, "1") || !strcmp(s, "true")) {
			samples = true;
		} else if (strcmp(s, "0") && strcmp(s, "false") && *s) {
			bb_http_error(rs, 400, "invalid_argument", "samples",
				      "samples: '%.64s' is not one of 0, 1, "
				      "true, false", s);
			return;
		}
	}
	ret = bb_store_job_runs(r->ctx->store, id, samples, &out, err,
				sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret, id, err);
		return;
	}
	bb_http_json(rs, 200, out);
}
