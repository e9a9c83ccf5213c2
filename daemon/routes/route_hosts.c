// SPDX-License-Identifier: GPL-2.0-only
/* route_hosts.c - GET /api/v1/hosts: the daemons registered in the store
 * (the fleet sharing its database; a sqlite store has this one). */
#include "routes.h"

void bb_route_hosts(const struct bb_route_req *r, struct bb_http_response *rs)
{
	struct json_object *o;
	char err[512];
	int ret = bb_store_hosts_list(r->ctx->store, &o, err, sizeof(err));

	if (ret) {
		bb_route_store_error(rs, ret, 0, err);
		return;
	}
	bb_http_json(rs, 200, o);
}
