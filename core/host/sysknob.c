// SPDX-License-Identifier: GPL-2.0-only
/* sysknob.c - kernel block queue knobs (sysfs): where they live, reading
 * and writing them with a read-back check. */
#include <biobench/sysknob.h>
#include <biobench/config.h>

#include <biobench/common.h>

#include "util/mountinfo.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define KNOB_NAME_MAX 63
#define KNOB_VAL_MAX 4096

int bb_sysknob_name_ok(const char *name)
{
	size_t n = 0;

	if (!name)
		return 0;
	for (; name[n]; n++) {
		char ch = name[n];

		if (n >= KNOB_NAME_MAX)
			return 0;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
		      ch == '_'))
			return 0;
	}
	return n > 0;
}

/* The filesystem type of the mount with device dev, from
 * /proc/self/mountinfo ("36 35 0:23 / /tmp rw - tmpfs tmpfs rw"); else
 * from the statfs magic of path. */
static void fs_type(const char *path, dev_t dev, char *buf, size_t len)
{
	static const struct {
		long magic;
		const char *name;
	} magics[] = {
		{ 0x01021994, "tmpfs" },   { 0x794c7630, "overlay" },
		{ 0x9123683e, "btrfs" },   { 0x858458f6, "ramfs" },
		{ 0x6969, "nfs" },         { 0x65735546, "fuse" },
		{ 0x2fc12fc1, "zfs" },     { 0x9fa0, "proc" },
		{ 0x62656572, "sysfs" },   { 0x1373, "devtmpfs" },
		{ 0xff534d42, "cifs" },    { 0x01021997, "9p" },
	};
	struct bb_mount *m = malloc(sizeof(*m));
	struct statfs sf;
	int found;

	found = m ? bb_mountinfo_find_dev(dev, m) : 0;
	if (found > 0)
		snprintf(buf, len, "%s", m->fstype);
	free(m);
	if (found > 0)
		return;
	if (!statfs(path, &sf)) {
		for (size_t i = 0; i < sizeof(magics) / sizeof(magics[0]); i++)
			if ((long)sf.f_type == magics[i].magic) {
				snprintf(buf, len, "%s", magics[i].name);
				return;
			}
		snprintf(buf, len, "a filesystem of type 0x%lx",
			 (unsigned long)sf.f_type);
		return;
	}
	snprintf(buf, len, "a filesystem");
}

int bb_sysknob_queue_dir(const char *target, char *dir, size_t len,
			 char *err, size_t errlen)
{
	char link[64], real[PATH_MAX], fst[64], parent[PATH_MAX], *slash;
	const char *where = target; /* what is stat'ed */
	struct stat st;
	dev_t dev;
	int ret;

	if (bb_target_is_nop(target))
		return bb_errf(err, errlen, -ENODEV,
			       "nop has no block device (and no queue knobs)");
	if (stat(target, &st)) {
		ret = -errno;
		/* a file the run will create: its directory's filesystem
		 * (not for /dev: a missing device is missing) */
		if (ret != -ENOENT || !strncmp(target, "/dev/", 5) ||
		    strlen(target) >= sizeof(parent))
			return bb_errf(err, errlen, -ENODEV, "%s: %s", target,
				       strerror(-ret));
		snprintf(parent, sizeof(parent), "%s", target);
		slash = strrchr(parent, '/');
		if (!slash)
			snprintf(parent, sizeof(parent), ".");
		else if (slash == parent)
			parent[1] = '\0';
		else
			*slash = '\0';
		if (stat(parent, &st) || !S_ISDIR(st.st_mode))
			return bb_errf(err, errlen, -ENODEV, "%s: %s", target,
				       strerror(-ret));
		where = parent;
	}
	if (S_ISBLK(st.st_mode)) {
		dev = st.st_rdev;
	} else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
		dev = st.st_dev;
	} else {
		return bb_errf(err, errlen, -ENODEV,
			       "%s is neither a block device, a file nor a "
			       "directory", target);
	}
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (!realpath(link, real)) {
		ret = errno;
		if (ret == ENOENT && !S_ISBLK(st.st_mode)) {
			fs_type(where, dev, fst, sizeof(fst));
			return bb_errf(err, errlen, -ENODEV,
				       "%s is on %s (no block device)", target,
				       fst);
		}
		return bb_errf(err, errlen, -ENODEV, "%s: device %u:%u: %s: %s",
			       target, major(dev), minor(dev), link,
			       strerror(ret));
	}
	/* a partition: the queue is the whole disk's, the parent folder */
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u/partition",
		 major(dev), minor(dev));
	if (!access(link, F_OK)) {
		slash = strrchr(real, '/');
		if (slash && slash != real)
			*slash = '\0';
	}
	if ((size_t)snprintf(dir, len, "%s/queue", real) >= len)
		return bb_errf(err, errlen, -ENAMETOOLONG,
			       "%s: sysfs path too long", target);
	if (stat(dir, &st) || !S_ISDIR(st.st_mode))
		return bb_errf(err, errlen, -ENODEV,
			       "%s: device %u:%u has no queue directory (%s)",
			       target, major(dev), minor(dev), dir);
	return 0;
}

int bb_sysknob_path(const char *dir, const char *knob, char *path,
		    size_t len, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (!bb_sysknob_name_ok(knob))
		return bb_errf(err, errlen, -EINVAL,
			       "bad knob name '%s' (allowed: [a-z0-9_], 1..%d "
			       "characters)", knob ? knob : "(null)",
			       KNOB_NAME_MAX);
	if ((size_t)snprintf(path, len, "%s/%s", dir, knob) >= len)
		return bb_errf(err, errlen, -ENAMETOOLONG,
			       "sysfs path %s/%s too long", dir, knob);
	if (stat(path, &st)) {
		ret = -errno;
		if (ret == -ENOENT)
			return bb_errf(err, errlen, -ENOENT,
				       "the device has no knob '%s' (%s does not "
				       "exist)", knob, path);
		return bb_errf(err, errlen, ret, "sysfs %s: %s", path,
			       strerror(-ret));
	}
	if (!S_ISREG(st.st_mode))
		return bb_errf(err, errlen, -ENOENT,
			       "'%s' is not a knob (%s is not a file)", knob,
			       path);
	return 0;
}

/* "value\n" -> "value"; "[sel] other" -> "sel". */
static void knob_value(char *buf)
{
	char *o, *c;
	size_t n = strlen(buf);

	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	o = strchr(buf, '[');
	c = o ? strchr(o, ']') : NULL;
	if (o && c) {
		*c = '\0';
		memmove(buf, o + 1, (size_t)(c - o));
	}
}

int bb_sysknob_read(const char *path, char *val, size_t len, char *err,
		    size_t errlen)
{
	char buf[KNOB_VAL_MAX + 1];
	ssize_t n;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return bb_errf(err, errlen, ret, "sysfs %s: %s", path,
			       strerror(-ret));
	}
	n = read(fd, buf, KNOB_VAL_MAX);
	if (n < 0) {
		ret = -errno;
		bb_errf(err, errlen, ret, "sysfs %s: %s", path, strerror(-ret));
		goto out;
	}
	buf[n] = '\0';
	knob_value(buf);
	if (strlen(buf) >= len) {
		ret = bb_errf(err, errlen, -ERANGE,
			      "sysfs %s: the value is longer than %zu bytes",
			      path, len ? len - 1 : 0);
		goto out;
	}
	memcpy(val, buf, strlen(buf) + 1);
	ret = 0;
out:
	close(fd);
	return ret;
}

/* A decimal (or 0x hex) integer with optional sign and surrounding
 * space. */
static bool as_number(const char *s, long long *v)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return false;
	errno = 0;
	*v = strtoll(s, &end, 0);
	if (errno || end == s)
		return false;
	while (isspace((unsigned char)*end))
		end++;
	return *end == '\0';
}

int bb_sysknob_write(const char *path, const char *value, char *err,
		     size_t errlen)
{
	char buf[KNOB_VAL_MAX + 2], back[KNOB_VAL_MAX + 1], want[KNOB_VAL_MAX + 1];
	long long a, b;
	size_t n;
	ssize_t w;
	int fd, ret;

	n = strlen(value);
	if (strchr(value, '\n') || n > KNOB_VAL_MAX)
		return bb_errf(err, errlen, -EINVAL,
			       "sysfs %s: value '%s' is not a single line of at "
			       "most %d bytes", path, value, KNOB_VAL_MAX);
	memcpy(buf, value, n);
	buf[n] = '\n';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -EACCES || ret == -EPERM)
			return bb_errf(err, errlen, ret,
				       "sysfs %s: cannot write (%s): read-only "
				       "knob or not root", path, strerror(-ret));
		return bb_errf(err, errlen, ret, "sysfs %s: %s", path,
			       strerror(-ret));
	}
	w = write(fd, buf, n + 1);
	if (w < 0) {
		ret = -errno;
		bb_errf(err, errlen, ret, "sysfs %s: the kernel refused '%s': %s",
			path, value, strerror(-ret));
		close(fd);
		return ret;
	}
	close(fd);
	if ((size_t)w != n + 1)
		return bb_errf(err, errlen, -EIO,
			       "sysfs %s: short write of '%s' (%zd of %zu bytes)",
			       path, value, w, n + 1);

	ret = bb_sysknob_read(path, back, sizeof(back), err, errlen);
	if (ret)
		return ret;
	memcpy(want, value, n + 1);
	knob_value(want); /* "[mq-deadline]" or "4096 " compare as read */
	if (as_number(want, &a) && as_number(back, &b)) {
		if (a == b)
			return 0;
	} else if (!strcmp(want + strspn(want, " \t"), back)) {
		return 0;
	}
	return bb_errf(err, errlen, -EINVAL,
		       "sysfs %s: wrote '%s' but it reads back '%s'", path, value,
		       back);
}
