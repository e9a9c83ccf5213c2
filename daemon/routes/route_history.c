// SPDX-License-Identifier: GPL-2.0-only
/* route_history.c - GET /api/v1/history?name=N[&target=T][&limit=L]: the
 * finished jobs of one workload (same job name, optionally the same
 * target), newest first, with their host (kernel), device and the change
 * with its confidence interval: the dashboard's history view. */
#include "routes.h"

#include <errno.h>
#include <string.h>

#define BB_HISTORY_DEFAULT 50
#define BB_HISTORY_MAX 500

void bb_route_history(const struct bb_route_req *r,
		      struct bb_http_response *rs)
{
	const char *name = bb_http_arg(r->rq, "name");
	const char *target = bb_http_arg(r->rq, "target");
	const char *limit_s = bb_http_arg(r->rq, "limit");
	struct json_object *out = NULL, *jobs;
	unsigned limit = BB_HISTORY_DEFAULT;
	char err[512] = "";
	int ret;

	if (!name) {
		bb_http_error(rs, 400, "invalid_argument", "name",
			      "name: missing (the job name whose history to "
			      "show; empty for unnamed jobs)");
		return;
	}
	if (target && !*target)
		target = NULL;
	if (limit_s) {
		size_t n = strlen(limit_s);

		limit = 0;
		for (size_t i = 0; i < n && n <= 3; i++) {
			if (limit_s[i] < '0' || limit_s[i] > '9') {
				limit = 0;
				break;
			}
			limit = limit * 10 + (unsigned)(limit_s[i] - '0');
		}
		if (limit < 1 || limit > BB_HISTORY_MAX) {
			bb_http_error(rs, 400, "invalid_argument", "limit",
				      "limit: '%.64s' is not a number in "
				      "1..%d", limit_s, BB_HISTORY_MAX);
			return;
		}
	}
	ret = bb_store_job_history(r->ctx->store, name, target, limit, &out,
				   err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret == -ENOENT ? -EIO : ret, 0, err);
		return;
	}
	if (json_object_object_get_ex(out, "jobs", &jobs) &&
	    json_object_is_type(jobs, json_type_array))
		for (size_t i = 0; i < json_object_array_length(jobs); i++)
			bb_route_device_flat(json_object_array_get_idx(jobs, i));
	bb_http_json(rs, 200, out);
}
