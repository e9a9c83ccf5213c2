// SPDX-License-Identifier: GPL-2.0-only
/* sysknob.c - kernel block queue knobs (sysfs): where they live, reading
 * and writing them with a read-back check. */
#include <biobench/sysknob.h>
#include <biobench/config.h>

#include <biobench/common.h>

#include "util/mountinfo.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
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

/* The queue directory of target and the number of its device (the whole
 * disk for a partition). */
static int queue_of(const char *target, char *dir, size_t len,
		    unsigned *maj, unsigned *min, char *err, size_t errlen)
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
	*maj = major(dev);
	*min = minor(dev);
	/* a partition: the queue is the whole disk's, the parent folder */
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u/partition",
		 major(dev), minor(dev));
	if (!access(link, F_OK)) {
		char num[32], dpath[PATH_MAX + 8];

		slash = strrchr(real, '/');
		if (slash && slash != real)
			*slash = '\0';
		snprintf(dpath, sizeof(dpath), "%s/dev", real);
		if (bb_read_text(dpath, num, sizeof(num)) ||
		    sscanf(num, "%u:%u", maj, min) != 2)
			return bb_errf(err, errlen, -ENODEV,
				       "%s: cannot read the disk's number (%s)",
				       target, dpath);
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

int bb_sysknob_queue_dir(const char *target, char *dir, size_t len,
			 char *err, size_t errlen)
{
	unsigned maj, min;

	return queue_of(target, dir, len, &maj, &min, err, errlen);
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

/* ---- sets --------------------------------------------------------------- */

int bb_sysknob_apply_set(struct bb_sysknob_set *s,
			 const struct bb_sysfs_knob *knobs, unsigned n,
			 const struct bb_sysknob_hooks *h, void *arg,
			 char *err, size_t errlen)
{
	int ret;

	for (unsigned i = 0; i < n; i++) {
		struct bb_sysknob_applied *k;

		if (s->n >= BB_SYSKNOB_SET_MAX)
			return bb_errf(err, errlen, -E2BIG,
				       "more than %d knobs applied at once",
				       BB_SYSKNOB_SET_MAX);
		k = &s->k[s->n];
		memset(k, 0, sizeof(*k));
		snprintf(k->knob, sizeof(k->knob), "%s", knobs[i].name);
		ret = bb_sysknob_path(s->queue_dir, knobs[i].name, k->path,
				      sizeof(k->path), err, errlen);
		if (ret)
			return ret;
		ret = bb_sysknob_read(k->path, k->original,
				      sizeof(k->original), err, errlen);
		if (ret)
			return ret;
		if (h && h->before_write) {
			ret = h->before_write(arg, k, knobs[i].value, err,
					      errlen);
			if (ret)
				return ret > 0 ? -EIO : ret;
		}
		/* from here on the knob counts as applied: a failed or
		 * partial write is restored too */
		s->n++;
		ret = bb_sysknob_write(k->path, knobs[i].value, err, errlen);
		if (ret)
			return ret;
		if (h && h->after_write)
			h->after_write(arg, k);
	}
	return 0;
}

int bb_sysknob_restore_set(struct bb_sysknob_set *s,
			   const struct bb_sysknob_hooks *h, void *arg,
			   char *err, size_t errlen)
{
	int ret = 0;

	while (s->n) {
		const struct bb_sysknob_applied *k = &s->k[--s->n];
		char msg[512] = "", now[sizeof(k->original)];
		int r;

		/* the device holds the original already (the variant set
		 * the value it had): no write */
		if (!bb_sysknob_read(k->path, now, sizeof(now), NULL, 0) &&
		    !strcmp(now, k->original))
			r = BB_SYSKNOB_UNCHANGED;
		else
			r = bb_sysknob_write(k->path, k->original, msg,
					     sizeof(msg));

		if (h && h->after_restore)
			h->after_restore(arg, k, r, msg);
		if (r < 0 && !ret)
			ret = bb_errf(err, errlen, r,
				      "cannot restore sysfs %s: %s", k->knob,
				      msg);
	}
	return ret;
}

/* ---- device identity ---------------------------------------------------- */

/* The identity of the device of sysfs directory devdir
 * (/sys/devices/.../block/loop5). */
static int dev_of_dir(const char *devdir, struct bb_sysknob_dev *d,
		      char *err, size_t errlen)
{
	char path[PATH_MAX + 32], num[32], val[PATH_MAX];
	const char *base = strrchr(devdir, '/');
	struct stat st;

	memset(d, 0, sizeof(*d));
	snprintf(path, sizeof(path), "%s/dev", devdir);
	if (bb_read_text(path, num, sizeof(num)) ||
	    sscanf(num, "%u:%u", &d->major, &d->minor) != 2)
		return bb_errf(err, errlen, -ENODEV,
			       "%s is not a block device's sysfs directory",
			       devdir);
	snprintf(d->name, sizeof(d->name), "%s", base ? base + 1 : devdir);
	snprintf(path, sizeof(path), "%s/loop/backing_file", devdir);
	if (!bb_read_text(path, val, sizeof(val)) && val[0]) {
		/* the file and its inode: a new image at the same path is
		 * another device too */
		if (stat(val, &st))
			memset(&st, 0, sizeof(st));
		snprintf(d->ident, sizeof(d->ident), "loop:%s:dev=%u:%u:ino=%llu",
			 val, major(st.st_dev), minor(st.st_dev),
			 (unsigned long long)st.st_ino);
		return 0;
	}
	static const char *const ids[][2] = {
		{ "wwid", "wwid" },		{ "device/wwid", "wwid" },
		{ "device/serial", "serial" },	{ "serial", "serial" },
	};
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", devdir, ids[i][0]);
		if (!bb_read_text(path, val, sizeof(val)) && val[0]) {
			snprintf(d->ident, sizeof(d->ident), "%s:%s", ids[i][1],
				 val);
			return 0;
		}
	}
	return 0;
}

int bb_sysknob_dev_of_queue(const char *queue_dir, struct bb_sysknob_dev *d,
			    char *err, size_t errlen)
{
	char dir[PATH_MAX], *slash;

	if (strlen(queue_dir) >= sizeof(dir))
		return bb_errf(err, errlen, -ENAMETOOLONG, "%s: too long",
			       queue_dir);
	snprintf(dir, sizeof(dir), "%s", queue_dir);
	slash = strrchr(dir, '/');
	if (!slash || strcmp(slash, "/queue"))
		return bb_errf(err, errlen, -EINVAL,
			       "%s is not a queue directory", queue_dir);
	*slash = '\0';
	return dev_of_dir(dir, d, err, errlen);
}

int bb_sysknob_dev_same(const struct bb_sysknob_dev *d, char *why,
			size_t len)
{
	char link[64], real[PATH_MAX], err[256];
	struct bb_sysknob_dev now;
	int ret;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", d->major,
		 d->minor);
	if (!realpath(link, real)) {
		ret = -errno;
		bb_errf(why, len, ret, "device %u:%u (%s) is gone", d->major,
			d->minor, d->name);
		return ret;
	}
	ret = dev_of_dir(real, &now, err, sizeof(err));
	if (ret) {
		bb_errf(why, len, ret, "%s", err);
		return ret;
	}
	if (strcmp(now.name, d->name)) {
		bb_errf(why, len, 0, "device %u:%u is %s now, not %s", d->major,
			d->minor, now.name, d->name);
		return 0;
	}
	if (strcmp(now.ident, d->ident)) {
		bb_errf(why, len, 0, "%s is another device now (%s, was %s)",
			d->name, now.ident[0] ? now.ident : "no identity",
			d->ident[0] ? d->ident : "no identity");
		return 0;
	}
	return 1;
}

/* ---- device lock -------------------------------------------------------- */

/* The lock directory: $BIOBENCH_LOCK_DIR (a test suite's own) or
 * BB_DEVLOCK_DIR. */
static const char *lock_dir_path(void)
{
	const char *d = getenv("BIOBENCH_LOCK_DIR");

	return d && d[0] == '/' ? d : BB_DEVLOCK_DIR;
}

/* The lock directory, made if missing (root): a real directory, not a
 * symlink, writable by its owner only.  Its fd or -errno. */
static int lock_dir(bool create, char *err, size_t errlen)
{
	const char *path = lock_dir_path();
	struct stat st;
	int fd;

	if (create && mkdir(path, 0755) && errno != EEXIST)
		create = false; /* not root: check only, below */
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || (st.st_mode & 022) ||
	    (st.st_uid != 0 && st.st_uid != geteuid())) {
		close(fd);
		return bb_errf(err, errlen, -EPERM,
			       "%s is writable by others or not owned by root: "
			       "refusing its locks", path);
	}
	return fd;
}

/* "DEVICE is in use by pid N (PROGRAM, WHAT) since T" from the lock
 * file's text. */
static int holder_msg(int fd, const char *dev, char *err, size_t errlen)
{
	char buf[512] = "", pid[32] = "?", prog[128] = "?", what[256] = "",
	     since[64] = "";
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	buf[n > 0 ? n : 0] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		if (!strncmp(line, "pid ", 4))
			snprintf(pid, sizeof(pid), "%s", line + 4);
		else if (!strncmp(line, "program ", 8))
			snprintf(prog, sizeof(prog), "%s", line + 8);
		else if (!strncmp(line, "what ", 5))
			snprintf(what, sizeof(what), "%s", line + 5);
		else if (!strncmp(line, "since ", 6))
			snprintf(since, sizeof(since), "%s", line + 6);
	}
	return bb_errf(err, errlen, -EBUSY,
		       "%s is in use by pid %s (%s%s%s)%s%s: one benchmark or "
		       "knob change per device at a time", dev, pid, prog,
		       what[0] ? ", " : "", what, since[0] ? " since " : "",
		       since);
}

int bb_devlock_take_dev(struct bb_devlock *l, unsigned maj, unsigned min,
			const char *program, const char *what, char *err,
			size_t errlen)
{
	char name[64], dev[128], text[512], since[32], link[64], real[PATH_MAX];
	char *slash;
	bool root = geteuid() == 0;
	struct tm tm;
	time_t now;
	int dfd, fd = -1, ret;

	l->fd = -1;
	snprintf(name, sizeof(name), "dev-%u:%u.lock", maj, min);
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	slash = realpath(link, real) ? strrchr(real, '/') : NULL;
	snprintf(dev, sizeof(dev), "%s%s (device %u:%u)", slash ? "/dev/" : "",
		 slash ? slash + 1 : "", maj, min);
	snprintf(l->path, sizeof(l->path), "%s/%s", lock_dir_path(), name);
	dfd = lock_dir(root, err, errlen);
	if (dfd == -ENOENT)
		return 0; /* no lock directory (and none can be made: no /run
			     in an initramfs): no holder, since every holder
			     makes it */
	if (dfd < 0)
		return dfd == -EPERM ? dfd :
		       bb_errf(err, errlen, dfd, "%s: %s", lock_dir_path(),
			       strerror(-dfd));
	fd = openat(dfd, name,
		    (root ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW |
			    O_CLOEXEC,
		    0644);
	close(dfd);
	if (fd < 0) {
		ret = -errno;
		if (!root && ret == -ENOENT)
			return 0; /* no one ever held it */
		return bb_errf(err, errlen, ret, "%s: %s", l->path,
			       strerror(-ret));
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? holder_msg(fd, dev, err, errlen) :
		      bb_errf(err, errlen, -errno, "%s: flock: %s", l->path,
			      strerror(errno));
		close(fd);
		return ret;
	}
	if (!root) {
		/* checked: free; a non-root user cannot hold it */
		close(fd);
		return 0;
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(text, sizeof(text), "pid %ld\nprogram %s\nwhat %s\nsince %s\n",
		 (long)getpid(), program, what ? what : "", since);
	for (char *p = text; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n')
			*p = '?';
	if (ftruncate(fd, 0) ||
	    pwrite(fd, text, strlen(text), 0) != (ssize_t)strlen(text)) {
		ret = bb_errf(err, errlen, -errno, "%s: %s", l->path,
			      strerror(errno));
		close(fd);
		return ret;
	}
	l->fd = fd;
	return 0;
}

int bb_devlock_take(struct bb_devlock *l, const char *target,
		    const char *program, const char *what, char *err,
		    size_t errlen)
{
	char dir[512];
	unsigned maj, min;

	l->fd = -1;
	l->path[0] = '\0';
	if (bb_target_is_nop(target))
		return 0;
	if (queue_of(target, dir, sizeof(dir), &maj, &min, err, errlen))
		return 0; /* no block device (tmpfs), or the run says why */
	return bb_devlock_take_dev(l, maj, min, program, what, err, errlen);
}

int bb_devlocks_take(struct bb_devlocks *ls, const char *list, size_t len,
		     unsigned n, const char *program, const char *what,
		     char *err, size_t errlen)
{
	ls->n = 0;
	ls->l = calloc(n ? n : 1, sizeof(*ls->l));
	if (!ls->l)
		return bb_errf(err, errlen, -ENOMEM, "out of memory");
	for (const char *p = list; p; p = bb_targets_next(list, len, n, p)) {
		struct bb_devlock *l = &ls->l[ls->n];
		bool held = false;
		int ret;

		if (ls->n == (n ? n : 1))
			break;
		ret = bb_devlock_take(l, p, program, what, err, errlen);
		for (unsigned i = 0; ret == -EBUSY && l->path[0] && i < ls->n;
		     i++)
			held |= ls->l[i].fd >= 0 &&
				!strcmp(ls->l[i].path, l->path);
		if (held)
			continue; /* this device's lock is ours already */
		if (ret) {
			bb_devlocks_release(ls);
			return ret;
		}
		ls->n++;
	}
	return 0;
}

void bb_devlocks_release(struct bb_devlocks *ls)
{
	for (unsigned i = 0; ls->l && i < ls->n; i++)
		bb_devlock_release(&ls->l[i]);
	free(ls->l);
	ls->l = NULL;
	ls->n = 0;
}

void bb_devlock_release(struct bb_devlock *l)
{
	if (l->fd < 0)
		return;
	if (ftruncate(l->fd, 0) < 0) {
		/* the lock goes with the fd, whatever the text says */
	}
	close(l->fd);
	l->fd = -1;
}

/* ---- dangerous knobs, mounted disks ---------------------------------------- */

bool bb_sysknob_dangerous(const char *knob)
{
	return !strcmp(knob, "write_cache") || !strcmp(knob, "scheduler");
}

/* Whether block device maj:min is the disk d, one of its partitions, or
 * stacked on them (slaves, recursively; depth bounds a loop). */
static bool dev_on_disk(unsigned maj, unsigned min,
			const struct bb_sysknob_dev *d, int depth)
{
	char link[64], real[PATH_MAX], path[PATH_MAX + 32], num[32];
	unsigned a, b;
	DIR *dir;
	struct dirent *e;
	bool found = false;

	if ((maj == d->major && min == d->minor) || depth > 8)
		return maj == d->major && min == d->minor;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", maj, min);
	if (!realpath(link, real))
		return false;
	snprintf(path, sizeof(path), "%s/partition", real);
	if (!access(path, F_OK)) {
		char *slash = strrchr(real, '/');

		if (slash)
			*slash = '\0';
		snprintf(path, sizeof(path), "%s/dev", real);
		if (!bb_read_text(path, num, sizeof(num)) &&
		    sscanf(num, "%u:%u", &a, &b) == 2)
			return a == d->major && b == d->minor;
		return false;
	}
	snprintf(path, sizeof(path), "%s/slaves", real);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!found && (e = readdir(dir))) {
		char sp[PATH_MAX + 300];

		if (e->d_name[0] == '.')
			continue;
		snprintf(sp, sizeof(sp), "%s/slaves/%s/dev", real, e->d_name);
		if (!bb_read_text(sp, num, sizeof(num)) &&
		    sscanf(num, "%u:%u", &a, &b) == 2)
			found = dev_on_disk(a, b, d, depth + 1);
	}
	closedir(dir);
	return found;
}

struct mounted_walk {
	const struct bb_sysknob_dev *disk;
	char *where;
	size_t len;
};

static int mounted_one(const struct bb_mount *m, void *arg)
{
	struct mounted_walk *w = arg;

	if (!major(m->dev) ||
	    !dev_on_disk(major(m->dev), minor(m->dev), w->disk, 0))
		return 0;
	snprintf(w->where, w->len, "%s (%s)", m->point, m->source);
	return 1;
}

int bb_sysknob_disk_mounted(const char *queue_dir, char *where, size_t len)
{
	struct bb_sysknob_dev d;
	struct mounted_walk w = { &d, where, len };
	char err[256];
	int ret;

	if (len)
		where[0] = '\0';
	ret = bb_sysknob_dev_of_queue(queue_dir, &d, err, sizeof(err));
	if (ret)
		return ret;
	ret = bb_mountinfo_each(mounted_one, &w);
	return ret < 0 ? ret : ret > 0;
}
