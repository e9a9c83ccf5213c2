// SPDX-License-Identifier: GPL-2.0-only
/* nvme.c - NVMe controllers and namespaces through libnvme and sysfs (see
 * nvme.h).
 *
 * The sysfs part is the base (it works without privileges); libnvme adds
 * what needs NVMe commands: the controller scan, Identify Controller
 * (MDTS) and Identify Namespace (LBA format, size).  libnvme's headers
 * define their own ioctl structures, so they stay inside this file. */
#include <biobench/nvme.h>

#include <biobench/common.h>

#include <ctype.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libnvme.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>
#include <unistd.h>

#define SYS_BLOCK "/sys/block"
#define SYS_NVME "/sys/class/nvme"
#define SYS_NVME_GENERIC "/sys/class/nvme-generic"
#define SYS_NVME_SUBSYS "/sys/class/nvme-subsystem"
#define POLL_QUEUES "/sys/module/nvme/parameters/poll_queues"


static int read_u64(const char *path, uint64_t *v)
{
	char buf[64], *end;
	int ret = bb_read_text(path, buf, sizeof(buf));

	if (ret)
		return ret;
	if (!isdigit((unsigned char)buf[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static struct json_object *jstr_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

static struct json_object *sysfs_str(const char *dir, const char *file)
{
	char path[PATH_MAX], buf[512];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (bb_read_text(path, buf, sizeof(buf)))
		return NULL;
	return jstr_or_null(buf);
}

static struct json_object *sysfs_u64(const char *dir, const char *file)
{
	char path[PATH_MAX];
	uint64_t v;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_u64(path, &v))
		return NULL;
	return json_object_new_int64((int64_t)v);
}

/* "<prefix><digits>n<digits>" */
static bool ns_form(const char *s, const char *prefix)
{
	size_t pl = strlen(prefix);
	const char *p = s + pl;

	if (strncmp(s, prefix, pl) || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != 'n' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

int bb_nvme_ns_names(const char *name, char *blk, size_t blen, char *chr,
		     size_t clen)
{
	if (!strncmp(name, "/dev/", 5))
		name += 5;
	if (ns_form(name, "nvme")) {
		snprintf(blk, blen, "%s", name);
		snprintf(chr, clen, "ng%s", name + 4);
		return 0;
	}
	if (ns_form(name, "ng")) {
		snprintf(blk, blen, "nvme%s", name + 2);
		snprintf(chr, clen, "%s", name);
		return 0;
	}
	return -ENODEV;
}

/* "nvme<digits>" */
static bool ctrl_form(const char *s)
{
	const char *p = s + 4;

	if (strncmp(s, "nvme", 4) || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* The controllers of a namespace: its disk's parent is the controller, or
 * (native multipath) the subsystem, whose entries name the controllers. */
static void find_ctrls(struct bb_nvme_ns *ns)
{
	char link[PATH_MAX], target[PATH_MAX], dir[PATH_MAX];
	const char *base;
	struct dirent **ents = NULL;
	ssize_t n;
	int m;

	ns->nctrls = 0;
	snprintf(link, sizeof(link), SYS_BLOCK "/%s/device", ns->blk);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		goto guess;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (ctrl_form(base)) {
		snprintf(ns->ctrls[0], sizeof(ns->ctrls[0]), "%s", base);
		ns->nctrls = 1;
		return;
	}
	if (strncmp(base, "nvme-subsys", 11))
		goto guess;
	snprintf(dir, sizeof(dir), SYS_NVME_SUBSYS "/%s", base);
	m = scandir(dir, &ents, NULL, alphasort);
	for (int i = 0; i < m; i++) {
		if (ctrl_form(ents[i]->d_name) && ns->nctrls < BB_NVME_MAX_CTRLS)
			snprintf(ns->ctrls[ns->nctrls++], sizeof(ns->ctrls[0]),
				 "%s", ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	if (ns->nctrls)
		return;
guess:
	/* nvmeXnY: controller instance X (true without multipath) */
	snprintf(ns->ctrls[0], sizeof(ns->ctrls[0]), "%.*s",
		 (int)strcspn(ns->blk + 4, "n") + 4, ns->blk);
	ns->nctrls = 1;
}

/* NSID and LBA format by NVMe commands on an open namespace fd. */
static int identify_ns(int fd, struct bb_nvme_ns *ns)
{
	struct nvme_id_ns id;
	__u32 nsid;
	__u8 idx = 0;
	int ret;

	if (nvme_get_nsid(fd, &nsid))
		return -errno;
	ret = nvme_identify_ns(fd, nsid, &id);
	if (ret)
		return ret < 0 ? -errno : -EIO;
	nvme_id_ns_flbas_to_lbaf_inuse(id.flbas, &idx);
	if (idx > id.nlbaf || id.lbaf[idx].ds < 9 || id.lbaf[idx].ds > 16)
		return -EINVAL;
	ns->nsid = nsid;
	ns->lba_size = 1u << id.lbaf[idx].ds;
	ns->lba_count = le64toh((uint64_t)id.nsze);
	ns->identified = true;
	return 0;
}

static int sysfs_ns(struct bb_nvme_ns *ns)
{
	char path[PATH_MAX];
	uint64_t v, sectors;
	int ret;

	snprintf(path, sizeof(path), SYS_BLOCK "/%s/nsid", ns->blk);
	ret = read_u64(path, &v);
	if (ret)
		return ret;
	ns->nsid = (uint32_t)v;
	snprintf(path, sizeof(path), SYS_BLOCK "/%s/queue/logical_block_size",
		 ns->blk);
	ret = read_u64(path, &v);
	if (ret || !v)
		return ret ? ret : -EINVAL;
	ns->lba_size = (uint32_t)v;
	snprintf(path, sizeof(path), SYS_BLOCK "/%s/size", ns->blk);
	ret = read_u64(path, &sectors);
	if (ret)
		return ret;
	ns->lba_count = sectors * 512 / v;
	return 0;
}

static int name_of_node(const char *path, char *name, size_t len)
{
	char link[64], target[PATH_MAX];
	const char *base;
	struct stat st;
	ssize_t n;

	if (stat(path, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode) && !S_ISCHR(st.st_mode))
		return -ENODEV;
	snprintf(link, sizeof(link), "/sys/dev/%s/%u:%u",
		 S_ISBLK(st.st_mode) ? "block" : "char", major(st.st_rdev),
		 minor(st.st_rdev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -ENODEV;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(name, len, "%s", base ? base + 1 : target);
	return 0;
}

int bb_nvme_ns_resolve(const char *path, int fd, struct bb_nvme_ns *ns)
{
	char name[64], dir[PATH_MAX];
	int ret;

	memset(ns, 0, sizeof(*ns));
	if (strchr(path, '/')) {
		ret = name_of_node(path, name, sizeof(name));
		if (ret)
			return ret;
	} else {
		snprintf(name, sizeof(name), "%s", path);
	}
	ret = bb_nvme_ns_names(name, ns->blk, sizeof(ns->blk), ns->chr,
			       sizeof(ns->chr));
	if (ret)
		return ret;
	snprintf(dir, sizeof(dir), SYS_BLOCK "/%s", ns->blk);
	if (access(dir, F_OK))
		return -ENODEV;
	snprintf(dir, sizeof(dir), SYS_NVME_GENERIC "/%s", ns->chr);
	if (access(dir, F_OK))
		ns->chr[0] = '\0';
	find_ctrls(ns);
	if (fd >= 0 && identify_ns(fd, ns) == 0)
		return 0;
	return sysfs_ns(ns);
}

int bb_nvme_poll_queues(void)
{
	uint64_t v;
	int ret = read_u64(POLL_QUEUES, &v);

	if (ret)
		return ret;
	return v > INT_MAX ? INT_MAX : (int)v;
}

/* "nvme0q3" matches controller "nvme0" with a queue number >= 1 */
static bool io_queue_of(const char *tok, const char *ctrl)
{
	size_t cl = strlen(ctrl);
	const char *p = tok + cl;
	unsigned long q;
	char *end;

	if (strncmp(tok, ctrl, cl) || *p != 'q' || !isdigit((unsigned char)p[1]))
		return false;
	q = strtoul(p + 1, &end, 10);
	return *end == '\0' && q >= 1;
}

int bb_nvme_queue_irqs(const char *path,
		       const char (*ctrls)[BB_NVME_NAME_LEN], unsigned nctrls,
		       uint64_t *sum)
{
	FILE *f = fopen(path, "re");
	char *line = NULL, *save, *tok, *last;
	uint64_t counts;
	size_t cap = 0;
	int lines = 0, ncpu = 0;

	*sum = 0;
	if (!f)
		return -errno;
	/* header: "CPU0 CPU1 ..." gives the number of count columns */
	if (getline(&line, &cap, f) > 0)
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save))
			ncpu += !strncmp(tok, "CPU", 3);
	while (getline(&line, &cap, f) > 0) {
		bool match = false;
		int col = 0;

		counts = 0;
		last = NULL;
		tok = strtok_r(line, " \t\n", &save); /* "IRQ:" */
		if (!tok)
			continue;
		while ((tok = strtok_r(NULL, " \t\n", &save))) {
			if (col < ncpu && isdigit((unsigned char)tok[0])) {
				counts += strtoull(tok, NULL, 10);
				col++;
				continue;
			}
			col = ncpu;
			last = tok;
			for (unsigned i = 0; i < nctrls && !match; i++)
				match = io_queue_of(tok, ctrls[i]);
			if (match)
				break;
		}
		(void)last;
		if (match) {
			*sum += counts;
			lines++;
		}
	}
	free(line);
	fclose(f);
	return lines;
}

/* --- JSON ---------------------------------------------------------------- */

/* Identify Controller's MDTS (a power of two of the minimum page size;
 * 0 = no limit), via the controller's char device. */
static struct json_object *ctrl_mdts(const char *ctrl)
{
	struct nvme_id_ctrl id;
	char path[64];
	int fd, ret;

	snprintf(path, sizeof(path), "/dev/%s", ctrl);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ret = nvme_identify_ctrl(fd, &id);
	close(fd);
	return ret ? NULL : json_object_new_int(id.mdts);
}

int bb_nvme_poll_queues_asked(void)
{
	char buf[4096], *p;
	int n = 0;

	if (bb_read_text("/proc/cmdline", buf, sizeof(buf)))
		return 0;
	for (p = buf; (p = strstr(p, "nvme.poll_queues=")); p++)
		if (p == buf || isspace((unsigned char)p[-1]))
			n = atoi(p + 17);
	return n > 0 ? n : 0;
}

bool bb_nvme_can_poll(const char *blk, char *why, size_t len)
{
	char path[PATH_MAX];
	uint64_t v;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int pq = bb_nvme_poll_queues(), asked;

	snprintf(path, sizeof(path), SYS_BLOCK "/%s/queue/io_poll", blk);
	if (read_u64(path, &v)) {
		snprintf(why, len, "cannot read %s", path);
		return false;
	}
	if (v) {
		why[0] = '\0';
		return true;
	}
	asked = bb_nvme_poll_queues_asked();
	if (pq > 0 || asked > 0)
		snprintf(why, len,
			 "%s is 0 although nvme.poll_queues=%d was asked "
			 "(%s is %d): the driver set up no poll queues; more "
			 "poll queues than CPUs (%ld) are rejected: boot with "
			 "nvme.poll_queues=N, N <= %ld",
			 path, pq > 0 ? pq : asked, POLL_QUEUES, pq < 0 ? 0 : pq,
			 cpus, cpus);
	else
		snprintf(why, len,
			 "%s is 0: the device has no poll queues (for NVMe, "
			 "load the driver with poll queues: nvme.poll_queues=N "
			 "on the kernel command line or modprobe nvme "
			 "poll_queues=N)",
			 path);
	return false;
}

struct json_object *bb_nvme_ns_info(const char *blkname)
{
	struct bb_nvme_ns ns;
	struct json_object *o, *arr;
	char cdir[PATH_MAX], bdir[PATH_MAX], path[PATH_MAX], why[512];
	uint64_t v;
	int fd, pq;
	bool can;

	if (strchr(blkname, '/') || bb_nvme_ns_names(blkname, ns.blk,
						     sizeof(ns.blk), ns.chr,
						     sizeof(ns.chr)))
		return NULL;
	snprintf(path, sizeof(path), "/dev/%s", blkname);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (bb_nvme_ns_resolve(blkname, fd, &ns)) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (fd >= 0)
		close(fd);
	o = json_object_new_object();
	if (!o)
		return NULL;
	snprintf(cdir, sizeof(cdir), SYS_NVME "/%s", ns.ctrls[0]);
	snprintf(bdir, sizeof(bdir), SYS_BLOCK "/%s", ns.blk);
	json_object_object_add(o, "controller",
			       json_object_new_string(ns.ctrls[0]));
	arr = json_object_new_array();
	for (unsigned i = 0; i < ns.nctrls; i++)
		json_object_array_add(arr, json_object_new_string(ns.ctrls[i]));
	json_object_object_add(o, "controllers", arr);
	json_object_object_add(o, "transport", sysfs_str(cdir, "transport"));
	json_object_object_add(o, "address", sysfs_str(cdir, "address"));
	json_object_object_add(o, "model", sysfs_str(cdir, "model"));
	json_object_object_add(o, "serial", sysfs_str(cdir, "serial"));
	json_object_object_add(o, "firmware", sysfs_str(cdir, "firmware_rev"));
	json_object_object_add(o, "subsystem_nqn", sysfs_str(cdir, "subsysnqn"));
	json_object_object_add(o, "nsid", json_object_new_int64(ns.nsid));
	json_object_object_add(o, "lba_size", json_object_new_int64(ns.lba_size));
	json_object_object_add(o, "lba_count",
			       json_object_new_int64((int64_t)ns.lba_count));
	json_object_object_add(o, "capacity_bytes",
			       json_object_new_int64((int64_t)(ns.lba_count *
							       ns.lba_size)));
	json_object_object_add(o, "identified",
			       json_object_new_boolean(ns.identified));
	snprintf(path, sizeof(path), "/dev/%s", ns.blk);
	json_object_object_add(o, "block_path", json_object_new_string(path));
	snprintf(path, sizeof(path), "/dev/%s", ns.chr);
	json_object_object_add(o, "char_path",
			       ns.chr[0] ? json_object_new_string(path) : NULL);
	json_object_object_add(o, "mdts", ctrl_mdts(ns.ctrls[0]));
	json_object_object_add(o, "max_hw_sectors_kb",
			       sysfs_u64(bdir, "queue/max_hw_sectors_kb"));
	pq = bb_nvme_poll_queues();
	json_object_object_add(o, "poll_queues",
			       pq >= 0 ? json_object_new_int(pq) : NULL);
	snprintf(path, sizeof(path), "%s/queue/io_poll", bdir);
	json_object_object_add(o, "io_poll",
			       read_u64(path, &v) ? NULL
						  : json_object_new_boolean(v));
	can = bb_nvme_can_poll(ns.blk, why, sizeof(why));
	json_object_object_add(o, "can_poll", json_object_new_boolean(can));
	json_object_object_add(o, "poll_why", can ? NULL
						  : json_object_new_string(why));
	return o;
}

static int by_name(const void *a, const void *b)
{
	struct json_object *const *x = a, *const *y = b;
	struct json_object *nx, *ny;

	json_object_object_get_ex(*x, "name", &nx);
	json_object_object_get_ex(*y, "name", &ny);
	return strcmp(json_object_get_string(nx), json_object_get_string(ny));
}

static void add_ns(struct json_object *arr, nvme_ns_t n)
{
	struct json_object *o;
	const char *name = nvme_ns_get_name(n);

	if (!name)
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *b;

		if (json_object_object_get_ex(json_object_array_get_idx(arr, i),
					      "block_path", &b) &&
		    !strcmp(json_object_get_string(b) + 5, name))
			return;
	}
	o = bb_nvme_ns_info(name);
	if (!o)
		return;
	/* libnvme's own view of the namespace, when its identify worked */
	if (nvme_ns_get_lba_size(n) > 0) {
		json_object_object_add(o, "lba_size",
				       json_object_new_int(nvme_ns_get_lba_size(n)));
		json_object_object_add(o, "lba_count",
				       json_object_new_int64((int64_t)
					       nvme_ns_get_lba_count(n)));
		json_object_object_add(o, "capacity_bytes",
				       json_object_new_int64((int64_t)(
					       nvme_ns_get_lba_count(n) *
					       (uint64_t)nvme_ns_get_lba_size(n))));
	}
	json_object_array_add(arr, o);
}

static struct json_object *ctrl_json(nvme_subsystem_t s, nvme_ctrl_t c)
{
	struct json_object *o = json_object_new_object(), *nss;
	const char *qc = nvme_ctrl_get_queue_count(c);
	nvme_ns_t n;
	int pq = bb_nvme_poll_queues();

	json_object_object_add(o, "name",
			       json_object_new_string(nvme_ctrl_get_name(c)));
	json_object_object_add(o, "transport",
			       jstr_or_null(nvme_ctrl_get_transport(c)));
	json_object_object_add(o, "address",
			       jstr_or_null(nvme_ctrl_get_address(c)));
	json_object_object_add(o, "model", jstr_or_null(nvme_ctrl_get_model(c)));
	json_object_object_add(o, "serial",
			       jstr_or_null(nvme_ctrl_get_serial(c)));
	json_object_object_add(o, "firmware",
			       jstr_or_null(nvme_ctrl_get_firmware(c)));
	json_object_object_add(o, "subsystem",
			       jstr_or_null(nvme_subsystem_get_name(s)));
	json_object_object_add(o, "subsystem_nqn",
			       jstr_or_null(nvme_subsystem_get_nqn(s)));
	json_object_object_add(o, "state", jstr_or_null(nvme_ctrl_get_state(c)));
	json_object_object_add(o, "queue_count",
			       qc && isdigit((unsigned char)qc[0])
				       ? json_object_new_int(atoi(qc))
				       : NULL);
	json_object_object_add(o, "mdts", ctrl_mdts(nvme_ctrl_get_name(c)));
	json_object_object_add(o, "poll_queues",
			       pq >= 0 ? json_object_new_int(pq) : NULL);
	nss = json_object_new_array();
	nvme_ctrl_for_each_ns(c, n)
		add_ns(nss, n);
	/* native multipath: the namespaces hang off the subsystem */
	nvme_subsystem_for_each_ns(s, n)
		add_ns(nss, n);
	json_object_array_sort(nss, by_name);
	json_object_object_add(o, "namespaces", nss);
	return o;
}

struct json_object *bb_nvme_controllers_info(void)
{
	struct json_object *arr = json_object_new_array();
	nvme_root_t r;
	nvme_host_t h;
	nvme_subsystem_t s;
	nvme_ctrl_t c;

	if (!arr || access(SYS_NVME, F_OK))
		return arr;
	/* quiet: a failed identify is reported as null fields, not logs */
	r = nvme_create_root(stderr, LOG_CRIT);
	if (!r)
		return arr;
	if (nvme_scan_topology(r, NULL, NULL) == 0) {
		nvme_for_each_host(r, h)
			nvme_for_each_subsystem(h, s)
				nvme_subsystem_for_each_ctrl(s, c)
					json_object_array_add(arr,
							      ctrl_json(s, c));
	}
	nvme_free_tree(r);
	json_object_array_sort(arr, by_name);
	return arr;
}
