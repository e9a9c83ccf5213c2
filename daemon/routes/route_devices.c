// SPDX-License-Identifier: GPL-2.0-only
/* route_devices.c - GET /api/v1/devices: the host's block devices and
 * whether the allow-list lets jobs use them (read, write). */
#include "routes.h"
#include <biobench/hostinfo.h>

void bb_route_devices(const struct bb_route_req *r,
		      struct bb_http_response *rs)
{
	struct json_object *devs = bb_devices_info(), *o, *p;

	if (!devs)
		devs = json_object_new_array();
	for (size_t i = 0; i < json_object_array_length(devs); i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		const char *path = NULL;
		char why[512];

		if (json_object_object_get_ex(d, "path", &p) && p)
			path = json_object_get_string(p);
		json_object_object_add(d, "allowed", json_object_new_boolean(
			path && !bb_dconfig_target_allowed(r->cfg, path, false,
							   why, sizeof(why))));
		json_object_object_add(d, "allow_write",
				       json_object_new_boolean(
			path && !bb_dconfig_target_allowed(r->cfg, path, true,
							   why, sizeof(why))));
	}
	o = json_object_new_object();
	json_object_object_add(o, "devices", devs);
	bb_http_json(rs, 200, o);
}
