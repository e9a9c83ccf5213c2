// SPDX-License-Identifier: GPL-2.0-only
/* hostinfo.c - host and block-device metadata as JSON (see hostinfo.h).
 *
 * Device attributes are read from sysfs through the tables below (one row
 * per JSON field); an NVMe enrichment via libnvme adds its fields after
 * them in bb_device_info() without changing the sysfs part. */
#include <biobench/hostinfo.h>
#include <biobench/config.h>

#include <biobench/nvme.h>
#include <biobench/sysknob.h>
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

/* /proc/cpuinfo: the value of the first line of the first of keys[0..n-1]
 * that has one; NULL if none. */
static struct json_object *cpuinfo_field(const char *const *keys, size_t n)
{
	struct json_object *res = NULL;
	char *line = NULL, *p, *e;
	size_t cap = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");

	if (!f)
		return NULL;
	for (size_t k = 0; k < n && !res; k++) {
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

/* The first "model name" (x86), else "Hardware" or "cpu model" (other
 * architectures). */
static struct json_object *cpu_model(void)
{
	static const char *const keys[] = { "model name", "Hardware",
					    "cpu model", "Processor" };

	return cpuinfo_field(keys, sizeof(keys) / sizeof(keys[0]));
}

/* The CPU's microcode revision: cpu0's sysfs file, else /proc/cpuinfo's
 * "microcode" (x86); NULL where the architecture has none. */
static struct json_object *cpu_microcode(void)
{
	static const char *const keys[] = { "microcode" };
	struct json_object *v =
		text_or_null("/sys/devices/system/cpu/cpu0/microcode/version");

	return v ? v : cpuinfo_field(keys, 1);
}

int bb_boot_id(char *buf, size_t len)
{
	if (!buf || !len)
		return -EINVAL;
	if (bb_read_text("/proc/sys/kernel/random/boot_id", buf, len) ||
	    !buf[0]) {
		buf[0] = '\0';
		return -ENOENT;
	}
	return 0;
}

static struct json_object *boot_id(void)
{
	char id[64];

	return bb_boot_id(id, sizeof(id)) ? NULL : json_object_new_string(id);
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
	json_object_object_add(o, "microcode", cpu_microcode());
	json_object_object_add(o, "boot_id", boot_id());
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

/* ---- what a run records about where it ran ------------------------------ */

/* The queue attributes read at the start of each run (hostinfo.h); in
 * this order, scheduler shown as the selected one. */
static const char *const queue_setting_names[BB_QUEUE_SETTINGS_N] = {
	"scheduler",    "nomerges",  "rq_affinity",   "read_ahead_kb",
	"max_sectors_kb", "nr_requests", "iostats",   "add_random",
	"rotational",   "wbt_lat_usec", "io_poll",    "io_poll_delay",
	"io_timeout",   "write_cache",
};

const char *bb_queue_setting_name(unsigned i)
{
	return i < BB_QUEUE_SETTINGS_N ? queue_setting_names[i] : NULL;
}

int bb_queue_settings_read(const char *target, struct bb_queue_settings *q)
{
	char dir[512], path[PATH_MAX];
	int ret;

	if (!q || !target)
		return -EINVAL;
	memset(q, 0, sizeof(*q));
	if (bb_target_is_nop(target))
		return 0;
	ret = bb_sysknob_queue_dir(target, dir, sizeof(dir), NULL, 0);
	if (ret)
		return ret == -ENODEV ? 0 : ret;
	q->have = true;
	for (unsigned i = 0; i < BB_QUEUE_SETTINGS_N; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir,
			 queue_setting_names[i]);
		/* value trimmed, "[sel] other" -> "sel" */
		q->present[i] = !bb_sysknob_read(path, q->value[i],
						 sizeof(q->value[i]), NULL, 0);
	}
	return 0;
}

struct json_object *bb_queue_settings_to_json(const struct bb_queue_settings *q)
{
	struct json_object *o;

	if (!q || !q->have)
		return NULL;
	o = json_object_new_object();
	for (unsigned i = 0; o && i < BB_QUEUE_SETTINGS_N; i++)
		json_object_object_add(o, queue_setting_names[i],
				       q->present[i] ?
					       json_object_new_string(q->value[i]) :
					       NULL);
	return o;
}

int bb_run_context_read(const char *target, struct bb_run_context *c)
{
	struct utsname u;

	if (!c || !target)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	bb_boot_id(c->boot_id, sizeof(c->boot_id));
	if (uname(&u) == 0)
		snprintf(c->kernel, sizeof(c->kernel), "%s", u.release);
	c->have = true;
	return bb_queue_settings_read(target, &c->queue);
}

static struct json_object *str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

void bb_run_context_add_json(struct json_object *doc,
			     const struct bb_run_context *c)
{
	if (!doc || !c || !c->have)
		return;
	json_object_object_add(doc, "boot_id", str_or_null(c->boot_id));
	json_object_object_add(doc, "kernel", str_or_null(c->kernel));
	json_object_object_add(doc, "biobench_version",
			       json_object_new_string(bb_version()));
	json_object_object_add(doc, "queue_settings",
			       bb_queue_settings_to_json(&c->queue));
}

const char *bb_host_name_check(const char *s)
{
	size_t len, label = 0;

	if (!s || !*s)
		return "empty";
	len = strlen(s);
	if (len > 253)
		return "longer than 253 characters";
	for (size_t i = 0; i <= len; i++) {
		char c = s[i];

		if (c == '.' || !c) {
			if (!label)
				return "an empty label (two dots, or a dot at "
				       "an end)";
			if (s[i - 1] == '-')
				return "a label ends with '-'";
			label = 0;
			continue;
		}
		if (!isalnum((unsigned char)c) && c != '-')
			return "only letters, digits, '-' and '.' are allowed";
		if (c == '-' && !label)
			return "a label begins with '-'";
		if (++label > 63)
			return "a label is longer than 63 characters";
	}
	return NULL;
}
