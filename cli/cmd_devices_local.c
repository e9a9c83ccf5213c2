// SPDX-License-Identifier: GPL-2.0-only
/* cmd_devices_local.c - `biobench devices` on this host: NVMe controllers
 * and namespaces, then every block device with its limits and whether it
 * can poll; or one JSON document with --json. */
#include "devices_local.h"

#include <biobench/hostinfo.h>
#include <biobench/nvme.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *jstr(struct json_object *o, const char *key,
			const char *dflt)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return dflt;
	return json_object_get_string(v);
}

static int64_t jint(struct json_object *o, const char *key, int64_t dflt)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return dflt;
	return json_object_get_int64(v);
}

static struct json_object *jobj(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static void fmt_bytes(char *buf, size_t len, int64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB",
					    "PiB" };
	double d = (double)v;
	unsigned u = 0;

	if (v < 0) {
		snprintf(buf, len, "-");
		return;
	}
	while (d >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f%s" : "%.0f%s", d, unit[u]);
}

/* "yes", or "no" and a reason: the NVMe object's, else io_poll's. */
static const char *poll_text(struct json_object *dev, const char **why)
{
	struct json_object *nv = jobj(dev, "nvme"), *io = jobj(dev, "io_poll");

	*why = NULL;
	if (nv) {
		if (json_object_get_boolean(jobj(nv, "can_poll")))
			return "yes";
		*why = jstr(nv, "poll_why", NULL);
		return "no";
	}
	if (io && json_object_get_boolean(io))
		return "yes";
	return io ? "no" : "-";
}

static void print_controllers(FILE *f, struct json_object *ctrls)
{
	size_t n = json_object_array_length(ctrls);

	fprintf(f, "NVMe controllers\n");
	if (!n) {
		fprintf(f, "  (none: no NVMe device, or the nvme driver is not "
			   "loaded)\n\n");
		return;
	}
	fprintf(f, "  %-8s %-9s %-14s %-20s %-14s %-9s %-5s %s\n", "NAME",
		"TRANSPORT", "ADDRESS", "MODEL", "SERIAL", "FIRMWARE", "MDTS",
		"POLL_QUEUES");
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(ctrls, i);
		struct json_object *nss = jobj(c, "namespaces");
		char mdts[16], pq[16];

		snprintf(mdts, sizeof(mdts), "%" PRId64, jint(c, "mdts", -1));
		snprintf(pq, sizeof(pq), "%" PRId64, jint(c, "poll_queues", -1));
		fprintf(f, "  %-8s %-9s %-14s %-20s %-14s %-9s %-5s %s\n",
			jstr(c, "name", "?"), jstr(c, "transport", "-"),
			jstr(c, "address", "-"), jstr(c, "model", "-"),
			jstr(c, "serial", "-"), jstr(c, "firmware", "-"),
			jint(c, "mdts", -1) < 0 ? "-" : mdts,
			jint(c, "poll_queues", -1) < 0 ? "-" : pq);
		for (size_t k = 0; nss && k < json_object_array_length(nss);
		     k++) {
			struct json_object *ns = json_object_array_get_idx(nss,
									   k);
			char cap[32];
			bool can = json_object_get_boolean(jobj(ns,
								"can_poll"));

			fmt_bytes(cap, sizeof(cap),
				  jint(ns, "capacity_bytes", -1));
			fprintf(f,
				"    namespace %" PRId64 ": %s  %s  lba %" PRId64
				"  %s  max_hw_sectors_kb %" PRId64 "  poll %s\n",
				jint(ns, "nsid", 0),
				jstr(ns, "block_path", "-"),
				jstr(ns, "char_path", "(no char device)"),
				jint(ns, "lba_size", 0), cap,
				jint(ns, "max_hw_sectors_kb", 0),
				can ? "yes" : "no");
			if (!can)
				fprintf(f, "      poll: %s\n",
					jstr(ns, "poll_why", "?"));
		}
	}
	fprintf(f, "\n");
}

static void print_devices(FILE *f, struct json_object *devs)
{
	size_t n = json_object_array_length(devs);

	fprintf(f, "Block devices\n");
	if (!n) {
		fprintf(f, "  (none)\n");
		return;
	}
	fprintf(f, "  %-10s %-9s %-9s %-16s %-5s %-10s %-11s %-4s %s\n", "NAME",
		"SIZE", "LBS/PBS", "MAX/HW_KB", "SEGS", "SEG_SIZE", "SCHED",
		"POLL", "MODEL / BACKING FILE");
	for (size_t i = 0; i < n; i++) {
		struct json_object *d = json_object_array_get_idx(devs, i);
		struct json_object *l = jobj(d, "limits");
		const char *why, *poll = poll_text(d, &why);
		char size[32], lbs[24], kb[32];

		fmt_bytes(size, sizeof(size), jint(d, "size_bytes", -1));
		snprintf(lbs, sizeof(lbs), "%" PRId64 "/%" PRId64,
			 jint(l, "logical_block_size", 0),
			 jint(l, "physical_block_size", 0));
		snprintf(kb, sizeof(kb), "%" PRId64 "/%" PRId64,
			 jint(l, "max_sectors_kb", 0),
			 jint(l, "max_hw_sectors_kb", 0));
		fprintf(f,
			"  %-10s %-9s %-9s %-16s %-5" PRId64 " %-10" PRId64
			" %-11s %-4s %s\n",
			jstr(d, "name", "?"), size, lbs, kb,
			jint(l, "max_segments", 0),
			jint(l, "max_segment_size", 0),
			jstr(d, "scheduler", "-"), poll,
			jstr(d, "backing_file", jstr(d, "model", "-")));
		if (why)
			fprintf(f, "    poll: %s\n", why);
	}
}

int bb_cmd_devices_local(int argc, char **argv)
{
	struct json_object *ctrls, *devs, *doc;
	bool json = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") ||
			   !strcmp(argv[i], "-h")) {
			printf("usage: biobench devices --local [--json]\n\n"
			       "This host's NVMe controllers and namespaces "
			       "(model, serial, firmware, nsid, LBA size,\n"
			       "capacity, block and char device, MDTS, poll "
			       "queues) and every block device with its\n"
			       "queue limits and whether it can poll.\n");
			return 0;
		} else {
			fprintf(stderr,
				"biobench devices: unknown argument '%s' "
				"(allowed: --json, --help)\n",
				argv[i]);
			return 2;
		}
	}
	ctrls = bb_nvme_controllers_info();
	devs = bb_devices_info();
	if (!ctrls || !devs) {
		fprintf(stderr, "biobench devices: out of memory\n");
		json_object_put(ctrls);
		json_object_put(devs);
		return 1;
	}
	if (json) {
		doc = json_object_new_object();
		json_object_object_add(doc, "host", bb_host_info());
		json_object_object_add(doc, "nvme_controllers", ctrls);
		json_object_object_add(doc, "devices", devs);
		puts(json_object_to_json_string_ext(
			doc, JSON_C_TO_STRING_PRETTY |
				     JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
		return 0;
	}
	print_controllers(stdout, ctrls);
	print_devices(stdout, devs);
	json_object_put(ctrls);
	json_object_put(devs);
	return 0;
}
