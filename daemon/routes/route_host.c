// SPDX-License-Identifier: GPL-2.0-only
/* route_host.c - GET /api/v1/host: the host's metadata (captured at
 * start) and the daemon's version, uptime and pid. */
#include "routes.h"

#include <unistd.h>

void bb_route_host(const struct bb_route_req *r, struct bb_http_response *rs)
{
	struct json_object *o = NULL, *d;

	if (!r->ctx->host ||
	    json_object_deep_copy(r->ctx->host, &o, NULL) || !o)
		o = json_object_new_object();
	d = json_object_new_object();
	json_object_object_add(d, "version", json_object_new_string(
				       r->ctx->version ? r->ctx->version : ""));
	json_object_object_add(d, "uptime_s", json_object_new_double(
				       bb_route_uptime_s(r->ctx)));
	json_object_object_add(d, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "daemon", d);
	bb_http_json(rs, 200, o);
}
