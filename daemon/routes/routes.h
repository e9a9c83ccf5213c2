/* SPDX-License-Identifier: GPL-2.0-only */
/* routes.h - biobenchd's HTTP routes (internal to daemon/): one file per
 * route, dispatched by the table in http.c.
 *
 * A route runs with the configuration read-locked (cfg stays valid for the
 * whole call) and fills the response with bb_http_json / bb_http_error. */
#ifndef BB_ROUTES_H
#define BB_ROUTES_H

#include "http.h"

#include <stdint.h>

struct bb_route_req {
	struct bb_http_ctx *ctx;
	const struct bb_dconfig *cfg;   /* read-locked for the request */
	const struct bb_http_request *rq;
	const char *id;                 /* the {id} path segment (not
					   terminated), NULL when none */
	size_t id_len;
};

typedef void bb_route_fn(const struct bb_route_req *r,
			 struct bb_http_response *rs);

/* s[0..len-1] as a job id: decimal 1..INT64_MAX.  0 or -EINVAL. */
int bb_route_parse_id(const char *s, size_t len, int64_t *id);

/* The {id} segment as a job id (bb_route_parse_id).  0, or -EINVAL
 * with a 400 response (field "id") filled in. */
int bb_route_job_id(const struct bb_route_req *r, struct bb_http_response *rs,
		    int64_t *id);

/* A store error as a response: -ENOENT -> 404 "no job N", -EBUSY -> 503,
 * anything else -> 500 with the store's message. */
void bb_route_store_error(struct bb_http_response *rs, int ret, int64_t id,
			  const char *err);

/* Seconds since ctx->start_ns. */
double bb_route_uptime_s(const struct bb_http_ctx *ctx);

/* Add "progress" from the scheduler to a job object when it is running
 * and a scheduler exists; a job that ended but whose end the store
 * refused gets the state and error it ended with instead. */
void bb_route_add_progress(const struct bb_route_req *r,
			   struct json_object *job);

/* The job document's "device" made flat: the target's kind and path
 * with the disk's fields beside them ("disk" and "disk_path" for the
 * disk's own name and path), instead of bb_target_device_info's
 * {"kind", "path", "device": {...}}.  The nested object stays as
 * "device" inside it for this release (deprecated, schema/openapi.yaml
 * JobDevice). */
void bb_route_device_flat(struct json_object *job);

/* The store's health (bb_store_check of the HTTP handle, and of the
 * scheduler's: bb_sched_store_check): 0, or -errno with a 503
 * "store_unavailable" naming the reason. */
int bb_route_store_check(const struct bb_route_req *r,
			 struct bb_http_response *rs);

/* GET /api/v1/jobs/{id}/compare of a group's parent (its document
 * group, with "children"): the per-host rows and the combined block. */
void bb_route_group_compare(const struct bb_route_req *r,
			    struct bb_http_response *rs, int64_t id,
			    struct json_object *group);

bb_route_fn bb_route_jobs_post;     /* POST /api/v1/jobs */
bb_route_fn bb_route_jobs_list;     /* GET  /api/v1/jobs */
bb_route_fn bb_route_job_get;       /* GET  /api/v1/jobs/{id} */
bb_route_fn bb_route_job_runs;      /* GET  /api/v1/jobs/{id}/runs */
bb_route_fn bb_route_job_compare;   /* GET  /api/v1/jobs/{id}/compare */
bb_route_fn bb_route_job_cancel;    /* POST /api/v1/jobs/{id}/cancel */
bb_route_fn bb_route_history;       /* GET  /api/v1/history */
bb_route_fn bb_route_compare_jobs;  /* GET  /api/v1/compare */
bb_route_fn bb_route_devices;       /* GET  /api/v1/devices */
bb_route_fn bb_route_host;          /* GET  /api/v1/host */
bb_route_fn bb_route_hosts;         /* GET  /api/v1/hosts */
bb_route_fn bb_route_health;        /* GET  /api/v1/health */
bb_route_fn bb_route_metrics;       /* GET  /metrics */
bb_route_fn bb_route_static;        /* GET  anything else not under /api */

/* Static files: path (URL-decoded, starting with "/") under root.  Only
 * regular files whose realpath is inside realpath(root); ".." segments,
 * backslashes and control characters refused.  A file is answered as an
 * fd (has_fd), not a copy in memory.  For tests. */
void bb_route_static_file(const char *root, const char *path,
			  struct bb_http_response *rs);

#endif
