// SPDX-License-Identifier: GPL-2.0-only
/* route_util.c - small helpers shared by the routes. */
#include "routes.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

int bb_route_parse_id(const char *s, size_t len, int64_t *id)
{
	uint64_t v = 0;

	if (!s || !len || len > 19)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -EINVAL;
		v = v * 10 + d;
	}
	if (v == 0 || v > INT64_MAX)
		return -EINVAL;
	*id = (int64_t)v;
	return 0;
}

int bb_route_job_id(const struct bb_route_req *r, struct bb_http_response *rs,
		    int64_t *id)
{
	if (!bb_route_parse_id(r->id, r->id_len, id))
		return 0;
	bb_http_error(rs, 400, "invalid_id", "id",
		      "job id '%.*s' is not a number in 1..%" PRId64,
		      r->id ? (int)bb_min(r->id_len, 64) : 0,
		      r->id ? r->id : "", INT64_MAX);
	return -EINVAL;
}

void bb_route_store_error(struct bb_http_response *rs, int ret, int64_t id,
			  const char *err)
{
	if (ret == -ENOENT)
		bb_http_error(rs, 404, "not_found", NULL, "no job %" PRId64,
			      id);
	else if (ret == -EBUSY)
		bb_http_error(rs, 503, "store_busy", NULL, "%s",
			      err && *err ? err : "the database is busy");
	else
		bb_http_error(rs, 500, "store_error", NULL, "%s",
			      err && *err ? err : strerror(-ret));
}

double bb_route_uptime_s(const struct bb_http_ctx *ctx)
{
	uint64_t now = bb_now_ns();

	return now > ctx->start_ns ? (double)(now - ctx->start_ns) / 1e9 : 0;
}

void bb_route_add_progress(const struct bb_route_req *r,
			   struct json_object *job)
{
	struct json_object *st, *idv, *p;
	char state[16], error[1024];
	int64_t id;

	if (!r->ctx->sched || !job ||
	    !json_object_object_get_ex(job, "state", &st) ||
	    strcmp(json_object_get_string(st), BB_JOB_RUNNING) ||
	    !json_object_object_get_ex(job, "id", &idv))
		return;
	id = json_object_get_int64(idv);
	p = bb_sched_progress(r->ctx->sched, id);
	if (p) {
		json_object_object_add(job, "progress", p);
		return;
	}
	/* it ended, but the store refused to record that */
	if (bb_sched_unrecorded(r->ctx->sched, id, state, sizeof(state),
				error, sizeof(error))) {
		json_object_object_add(job, "state",
				       json_object_new_string(state));
		json_object_object_add(job, "error",
				       json_object_new_string(error));
	}
}

int bb_route_store_check(const struct bb_route_req *r,
			 struct bb_http_response *rs)
{
	char err[1024] = "";
	int ret;

	ret = bb_store_check(r->ctx->store, err, sizeof(err));
	if (!ret && r->ctx->sched)
		ret = bb_sched_store_check(r->ctx->sched, err, sizeof(err));
	if (ret)
		bb_http_error(rs, 503, "store_unavailable", NULL,
			      "the store cannot keep data: %s", err);
	return ret;
}
