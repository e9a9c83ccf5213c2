// SPDX-License-Identifier: GPL-2.0-only
/* hostinfo.c - host and block-device metadata as JSON (see hostinfo.h).
 *
 * Device attributes are read from sysfs through the tables below (one row
 * per JSON field); an NVMe enrichment via libnvme adds its fields after
 * them in bb_device_info() without changing the sysfs part. */
#include <biobench/hostinfo.h>
#include <biobench/config.h>

#include <biobench/nvme.h>
#include "io/target.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define SYS_BLOCK "/sys/block"

enum attr_type {
	AT_STR,      /* text, spaces trimmed; null when absent or empty */
	AT_U64,      /* unsigned integer; null when absent */
	AT_BOOL,     /* "0"/"1"; null when absent */
	AT_SELECTED, /* "[sel] other" -> "sel" (a plain value as is) */
	AT_SECTORS,  /* 512-byte sectors -> bytes */
};

struct dev_attr {
	const char *key;  /* JSON field */
	const char *file; /* below /sys/block/NAME */
	const char *alt;  /* read when file is absent, or NULL */
	enum attr_type type;
};

static const struct dev_attr dev_attrs[] = {
	{ "model", "device/model", NULL, AT_STR },
	{ "serial", "device/serial", NULL, AT_STR },
	{ "firmware", "device/firmware_rev", "device/rev", AT_STR },
	{ "size_bytes", "size", NULL, AT_SECTORS },
	{ "rotational", "queue/rotational", NULL, AT_BOOL },
	{ "scheduler", "queue/scheduler", NULL, AT_SELECTED },
	{ "io_poll", "queue/io_poll", NULL, AT_BOOL },
};

static const struct dev_attr limit_attrs[] = {
	{ "logical_block_size", "queue/logical_block_size", NULL, AT_U64 },
	{ "physical_block_size", "queue/physical_block_size", NULL, AT_U64 },
	{ "max_sectors_kb", "queue/max_sectors_kb", NULL, AT_U64 },
	{ "max_hw_sectors_kb", "queue/max_hw_sectors_kb", NULL, AT_U64 },
	{ "max_segments", "queue/max_segments", NULL, AT_U64 },
	{ "max_segment_size", "queue/max_segment_size", NULL, AT_U64 },
	{ "virt_boundary_mask", "queue/virt_boundary_mask", NULL, AT_U64 },
	{ "chunk_sectors", "queue/chunk_sectors", NULL, AT_U64 },
	{ "nr_requests", "queue/nr_requests", NULL, AT_U64 },
};

static struct json_object *text_or_null(const char *path)
{
	char buf[4096];

	if (bb_read_text(path, buf, sizeof(buf)) || !buf[0])
		return NULL;
	return json_object_new_string(buf);
}

static bool as_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static struct json_object *attr_value(const char *dir,
				      const struct dev_attr *a)
{
	char path[PATH_MAX], buf[4096], *o, *c;
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", dir, a->file);
	if (bb_read_text(path, buf, sizeof(buf))) {
		if (!a->alt)
			return NULL;
		snprintf(path, sizeof(path), "%s/%s", dir, a->alt);
		if (bb_read_text(path, buf, sizeof(buf)))
			return NULL;
	}
	switch (a->type) {
	case AT_STR:
		return buf[0] ? json_object_new_string(buf) : NULL;
	case AT_SELECTED:
		o = strchr(buf, '[');
		c = o ? strchr(o, ']') : NULL;
		if (o && c) {
			*c = '\0';
			return json_object_new_string(o + 1);
		}
		return buf[0] ? json_object_new_string(buf) : NULL;
	case AT_U64:
		return as_u64(buf, &v) ? json_object_new_int64((int64_t)v)
				       : NULL;
	case AT_SECTORS:
		return as_u64(buf, &v) && v <= (UINT64_MAX >> 1) / 512
			       ? json_object_new_int64((int64_t)(v * 512))
			       : NULL;
	case AT_BOOL:
		if (!as_u64(buf, &v))
			return NULL;
		return json_object_new_boolean(v != 0);
	}
	return NULL;
}

/* /proc/cpuinfo: the first "model name" (x86), else "Hardware" or
 * "cpu model" (other architectures); NULL if none. */
static struct json_object *cpu_model(void)
{
	static const char *const keys[] = { "model name", "Hardware",
					    "cpu model", "Processor" };
	struct json_object *res = NULL;
	char *line = NULL, *p, *e;
	size_t cap = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return NULL;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]) && !res; k++) {
		rewind(f);
		while (!res && getline(&line, &cap, f) > 0) {
			size_t kl = strlen(keys[k]);

			if (strncmp(line, keys[k], kl) ||
			    (line[kl] != ' ' && line[kl] != '\t' &&
			     line[kl] != ':'))
				continue;
			p = strchr(line, ':');
			if (!p)
				continue;
			p++;
			while (isspace((unsigned char)*p))
				p++;
			e = p + strlen(p);
			while (e > p && isspace((unsigned char)e[-1]))
				*--e = '\0';
			if (*p)
				res = json_object_new_string(p);
		}
	}
	free(line);
	fclose(f);
	return res;
}

static struct json_object *mem_total(void)
{
	char line[256];
	unsigned long long kb;
	struct json_object *res = NULL;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
			res = json_object_new_int64((int64_t)(kb * 1024));
			break;
		}
	}
	fclose(f);
	return res;
}

struct json_object *bb_host_info(void)
{
	struct json_object *o = json_object_new_object();
	char host[256];
	struct utsname u;
	long n;

	if (!o)
		return NULL;
	if (gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		json_object_object_add(o, "hostname",
				       json_object_new_string(host));
	} else {
		json_object_object_add(o, "hostname", NULL);
	}
	if (uname(&u) == 0) {
		json_object_object_add(o, "kernel",
				       json_object_new_string(u.release));
		json_object_object_add(o, "kernel_version",
				       json_object_new_string(u.version));
		json_object_object_add(o, "machine",
				       json_object_new_string(u.machine));
	} else {
		json_object_object_add(o, "kernel", NULL);
		json_object_object_add(o, "kernel_version", NULL);
		json_object_object_add(o, "machine", NULL);
	}
	json_object_object_add(o, "cmdline", text_or_null("/proc/cmdline"));
	json_object_object_add(o, "cpu_model", cpu_model());
	n = sysconf(_SC_NPROCESSORS_ONLN);
	json_object_object_add(o, "cpus", json_object_new_int(n > 0 ? (int)n
								    : 1));
	json_object_object_add(o, "memory_bytes", mem_total());
	json_object_object_add(
		o, "governor",
		text_or_null("/sys/devices/system/cpu/cpu0/cpufreq/"
			     "scaling_governor"));
	return o;
}

static bool name_ok(const char *name)
{
	return name && name[0] && name[0] != '.' && !strchr(name, '/') &&
	       strlen(name) < 64;
}

struct json_object *bb_device_info(const char *name)
{
	struct json_object *o, *lim, *bf;
	char dir[PATH_MAX], path[PATH_MAX];

	if (!name_ok(name))
		return NULL;
	snprintf(dir, sizeof(dir), SYS_BLOCK "/%s", name);
	if (access(dir, F_OK))
		return NULL;
	o = json_object_new_object();
	if (!o)
		return NULL;
	json_object_object_add(o, "name", json_object_new_string(name));
	snprintf(path, sizeof(path), "/dev/%s", name);
	json_object_object_add(o, "path", json_object_new_string(path));
	for (size_t i = 0; i < sizeof(dev_attrs) / sizeof(dev_attrs[0]); i++)
		json_object_object_add(o, dev_attrs[i].key,
				       attr_value(dir, &dev_attrs[i]));
	lim = json_object_new_object();
	for (size_t i = 0; i < sizeof(limit_attrs) / sizeof(limit_attrs[0]);
	     i++)
		json_object_object_add(lim, limit_attrs[i].key,
				       attr_value(dir, &limit_attrs[i]));
	json_object_object_add(o, "limits", lim);
	snprintf(path, sizeof(path), "%s/loop/backing_file", dir);
	bf = text_or_null(path);
	if (bf)
		json_object_object_add(o, "backing_file", bf);
	/* NVMe namespaces: controller, identify fields, char device, poll
	 * queues (nvme.h) */
	if (!strncmp(name, "nvme", 4)) {
		struct json_object *nv = bb_nvme_ns_info(name);

		if (nv)
			json_object_object_add(o, "nvme", nv);
	}
	return o;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dot(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

struct json_object *bb_devices_info(void)
{
	struct json_object *arr = json_object_new_array(), *d;
	struct dirent **ents = NULL;
	char path[PATH_MAX];
	int n;

	if (!arr)
		return NULL;
	n = scandir(SYS_BLOCK, &ents, not_dot, name_cmp);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;

		if (!strncmp(name, "loop", 4)) {
			snprintf(path, sizeof(path),
				 SYS_BLOCK "/%s/loop/backing_file", name);
			if (access(path, F_OK))
				goto next;
		}
		d = bb_device_info(name);
		if (d)
			json_object_array_add(arr, d);
next:
		free(ents[i]);
	}
	free(ents);
	return arr;
}

struct json_object *bb_target_device_info(const char *target)
{
	struct json_object *o = json_object_new_object();
	char disk[128], part[128], dir[PATH_MAX], *slash;
	struct stat st;
	bool have = false;
	dev_t dev = 0;

	if (!o)
		return NULL;
	if (bb_target_is_nop(target)) {
		json_object_object_add(o, "kind",
				       json_object_new_string(BB_TARGET_NOP_NAME));
		return o;
	}
	if (stat(target, &st) == 0) {
		json_object_object_add(
			o, "kind",
			json_object_new_string(S_ISBLK(st.st_mode) ? "block"
								   : "file"));
		dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
		have = true;
	} else {
		/* a file that does not exist yet: its directory's device */
		json_object_object_add(o, "kind",
				       json_object_new_string("file"));
		snprintf(dir, sizeof(dir), "%s", target);
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else if (slash)
			*slash = '\0';
		else
			snprintf(dir, sizeof(dir), ".");
		if (stat(dir, &st) == 0) {
			dev = st.st_dev;
			have = true;
		}
	}
	json_object_object_add(o, "path", json_object_new_string(target));
	if (have && bb_dev_names(dev, disk, sizeof(disk), part,
				 sizeof(part)) == 0)
		json_object_object_add(o, "device", bb_device_info(disk));
	else
		json_object_object_add(o, "device", NULL);
	return o;
}
