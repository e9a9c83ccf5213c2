// SPDX-License-Identifier: GPL-2.0-only
/* inuse.c - whether a block device or a file is in use (mounted, held, or
 * a partition of it mounted or held - it or anything that aliases its
 * data through loop devices): writes are refused there.
 *
 * Aliases are found on a small graph of nodes (block devices, and backing
 * files by device and inode), walked breadth first from the target:
 *   - a loop device -> its backing file or device (LOOP_GET_STATUS64:
 *     lo_device / lo_inode of the backing inode, lo_rdevice when it is a
 *     block device; /sys/block/loopN/loop/backing_file when the ioctl is
 *     not possible), so a loop on a loop is followed down;
 *   - any node -> every loop device backed by it (so a second loop on the
 *     same image, and a loop on top of the target, are found);
 *   - a whole disk -> its partitions; a partition -> the loop devices
 *     backed by its disk.
 * Every block device reached is checked: mounted, holders, partitions
 * mounted or held.  The walk is bounded (BB_ALIAS_MAX nodes). */
#include "io/target.h"
#include "util/mountinfo.h"

#include <biobench/targetpath.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define BB_LOOP_MAX 1024
#define BB_ALIAS_MAX 64

/* Is dev mounted?  The mount point of its first mount in mnt. */
static bool dev_mounted(dev_t dev, char *mnt, size_t len)
{
	struct bb_mount *m = malloc(sizeof(*m));
	bool found;

	if (!m)
		return false;
	found = bb_mountinfo_find_dev(dev, m) > 0;
	if (found)
		snprintf(mnt, len, "%s", m->point);
	free(m);
	return found;
}

static int count_holders(const char *sysdir, char *first, size_t len)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n)
			snprintf(first, len, "%s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* A "MAJ:MIN" sysfs file. */
static bool read_devnum(const char *path, dev_t *dev)
{
	char val[32];
	unsigned ma, mi;

	if (bb_read_text(path, val, sizeof(val)) ||
	    sscanf(val, "%u:%u", &ma, &mi) != 2)
		return false;
	*dev = makedev(ma, mi);
	return true;
}

/* Whether the entry name of a disk's sysfs directory is one of its
 * partitions; its device number in dev. */
static bool partition_of(const char *sysdir, const char *name, dev_t *dev)
{
	char pf[PATH_MAX];

	if (name[0] == '.')
		return false;
	snprintf(pf, sizeof(pf), "%s/%s/partition", sysdir, name);
	if (access(pf, F_OK))
		return false;
	snprintf(pf, sizeof(pf), "%s/%s/dev", sysdir, name);
	return read_devnum(pf, dev);
}

/* Whether dev itself is in use; how in why ("is mounted on /mnt", "has
 * holders (dm-0 uses it; see ...)", "has its partition loop0p1 ..."). */
static bool dev_in_use(dev_t dev, char *why, size_t len)
{
	char sysdir[PATH_MAX], mnt[PATH_MAX], holder[256];
	DIR *d;
	struct dirent *de;
	bool used = false;

	if (dev_mounted(dev, mnt, sizeof(mnt))) {
		snprintf(why, len, "is mounted on %s", mnt);
		return true;
	}
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (count_holders(sysdir, holder, sizeof(holder))) {
		snprintf(why, len, "has holders (%s uses it; see %s/holders)",
			 holder, sysdir);
		return true;
	}
	/* a whole disk: its partitions */
	d = opendir(sysdir);
	if (!d)
		return false;
	while (!used && (de = readdir(d))) {
		char pdir[PATH_MAX];
		dev_t pdev;

		if (!partition_of(sysdir, de->d_name, &pdev))
			continue;
		snprintf(pdir, sizeof(pdir), "%s/%s", sysdir, de->d_name);
		if (dev_mounted(pdev, mnt, sizeof(mnt))) {
			snprintf(why, len, "has its partition %s mounted on %s",
				 de->d_name, mnt);
			used = true;
		} else if (count_holders(pdir, holder, sizeof(holder))) {
			snprintf(why, len, "has its partition %s in use by %s",
				 de->d_name, holder);
			used = true;
		}
	}
	closedir(d);
	return used;
}

/* --- loop devices ---------------------------------------------------------- */

struct loop_dev {
	char name[32];     /* "loop3" */
	char backing[160]; /* backing_file from sysfs, for messages */
	dev_t dev;
	dev_t bdev;        /* backing inode: st_dev and st_ino */
	ino_t bino;
	dev_t brdev;       /* the backing block device, 0 for a file */
};

struct loop_table {
	struct loop_dev *l;
	unsigned n;
};

/* The backing inode of a bound loop device: LOOP_GET_STATUS64 on
 * /dev/NAME when that node is the device, else a stat of the path in
 * sysfs.  0 or -errno. */
static int loop_backing(struct loop_dev *ld, const char *backing_file)
{
	struct loop_info64 li;
	char node[64];
	struct stat st;
	int fd, ret = -ENOENT;

	snprintf(node, sizeof(node), "/dev/%s", ld->name);
	fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd >= 0) {
		if (!fstat(fd, &st) && S_ISBLK(st.st_mode) &&
		    st.st_rdev == ld->dev &&
		    !ioctl(fd, LOOP_GET_STATUS64, &li)) {
			ld->bdev = (dev_t)li.lo_device;
			ld->bino = (ino_t)li.lo_inode;
			ld->brdev = (dev_t)li.lo_rdevice;
			ret = 0;
		}
		close(fd);
	}
	if (ret && !stat(backing_file, &st)) {
		ld->bdev = st.st_dev;
		ld->bino = st.st_ino;
		ld->brdev = S_ISBLK(st.st_mode) ? st.st_rdev : 0;
		ret = 0;
	}
	return ret;
}

/* Every bound loop device (unbound ones have no loop/backing_file). */
static int loops_read(struct loop_table *t)
{
	DIR *d = opendir("/sys/block");
	struct dirent *de;

	t->l = NULL;
	t->n = 0;
	if (!d)
		return 0;
	while ((de = readdir(d)) && t->n < BB_LOOP_MAX) {
		char path[PATH_MAX], val[PATH_MAX];
		struct loop_dev ld = { 0 };
		void *nl;

		if (strncmp(de->d_name, "loop", 4) ||
		    strlen(de->d_name) >= sizeof(ld.name))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file",
			 de->d_name);
		if (bb_read_text(path, val, sizeof(val)) || !val[0])
			continue;
		snprintf(ld.name, sizeof(ld.name), "%s", de->d_name);
		snprintf(ld.backing, sizeof(ld.backing), "%s", val);
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (!read_devnum(path, &ld.dev) || loop_backing(&ld, val))
			continue;
		nl = realloc(t->l, (t->n + 1) * sizeof(*t->l));
		if (!nl) {
			closedir(d);
			return -ENOMEM;
		}
		t->l = nl;
		t->l[t->n++] = ld;
	}
	closedir(d);
	return 0;
}

/* A node of the alias graph: a block device, or a backing file. */
struct alias_node {
	bool file;
	dev_t dev;      /* block device (rdev), or the file's st_dev */
	ino_t ino;      /* file only */
	int from;       /* index of the node it was reached from, -1 */
	char name[192]; /* "/dev/loop3", a backing file's path */
	const char *rel;/* what it is to the node it was reached from */
};

struct alias_walk {
	struct alias_node n[BB_ALIAS_MAX];
	unsigned count;
};

static bool same_node(const struct alias_node *a, bool file, dev_t dev,
		      ino_t ino)
{
	return a->file == file && a->dev == dev && (!file || a->ino == ino);
}

static void walk_push(struct alias_walk *w, bool file, dev_t dev, ino_t ino,
		      int from, const char *name, const char *rel)
{
	for (unsigned i = 0; i < w->count; i++)
		if (same_node(&w->n[i], file, dev, ino))
			return;
	if (w->count == BB_ALIAS_MAX)
		return;
	w->n[w->count] = (struct alias_node){ .file = file, .dev = dev,
					      .ino = ino, .from = from,
					      .rel = rel };
	snprintf(w->n[w->count].name, sizeof(w->n[0].name), "%s", name);
	w->count++;
}

/* The loop devices backed by the node: pushed. */
static void push_loops_on(struct alias_walk *w, const struct loop_table *lt,
			  bool file, dev_t dev, ino_t ino, int from)
{
	for (unsigned i = 0; i < lt->n; i++) {
		const struct loop_dev *l = &lt->l[i];
		char name[64];
		bool on = file ? !l->brdev && l->bdev == dev && l->bino == ino
			       : l->brdev == dev;

		if (!on)
			continue;
		snprintf(name, sizeof(name), "/dev/%s", l->name);
		walk_push(w, false, l->dev, 0, from, name,
			  from == 0 ? "a loop device backed by it"
			  : file    ? "another loop device on that file"
				    : "a loop device on top of it");
	}
}

/* A partition's disk, and a disk's partitions, from sysfs. */
static void push_disk_relatives(struct alias_walk *w,
				const struct loop_table *lt, dev_t dev,
				int from)
{
	char sysdir[PATH_MAX], pf[PATH_MAX];
	struct dirent *de;
	dev_t pdev;
	DIR *d;

	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	snprintf(pf, sizeof(pf), "%s/partition", sysdir);
	if (!access(pf, F_OK)) {
		/* loops on the whole disk overlap this partition */
		snprintf(pf, sizeof(pf), "%s/../dev", sysdir);
		if (read_devnum(pf, &pdev))
			push_loops_on(w, lt, false, pdev, 0, from);
		return;
	}
	d = opendir(sysdir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char name[64];

		if (!partition_of(sysdir, de->d_name, &pdev))
			continue;
		snprintf(name, sizeof(name), "/dev/%.50s", de->d_name);
		walk_push(w, false, pdev, 0, from, name, "a partition");
	}
	closedir(d);
}

/* The neighbours of node i pushed: a file's loop devices; a device's
 * backing file or device (a loop device), the loop devices on it, its
 * partitions or the loops on its disk. */
static void walk_expand(struct alias_walk *w, const struct loop_table *lt,
			unsigned i)
{
	const struct alias_node *a = &w->n[i];
	bool file = a->file;
	dev_t dev = a->dev;
	ino_t ino = a->ino;

	if (file) {
		push_loops_on(w, lt, true, dev, ino, (int)i);
		return;
	}
	for (unsigned k = 0; k < lt->n; k++) {
		const struct loop_dev *l = &lt->l[k];

		if (l->dev != dev)
			continue;
		walk_push(w, !l->brdev, l->brdev ? l->brdev : l->bdev,
			  l->brdev ? 0 : l->bino, (int)i, l->backing,
			  l->brdev ? "its backing device" : "its backing file");
	}
	push_loops_on(w, lt, false, dev, 0, (int)i);
	push_disk_relatives(w, lt, dev, (int)i);
}

/* "/dev/loop2 -> /dev/loop1": how node i was reached from the target. */
static void chain_text(const struct alias_walk *w, unsigned i, char *buf,
		       size_t len)
{
	unsigned path[BB_ALIAS_MAX], n = 0;
	size_t off = 0;

	for (int k = (int)i; k >= 0 && n < BB_ALIAS_MAX; k = w->n[k].from)
		path[n++] = (unsigned)k;
	buf[0] = '\0';
	while (n-- > 0 && off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					off ? " -> " : "", w->n[path[n]].name);
}

/* Walk from the first node pushed; the first device in use found is
 * reported. */
static int walk_check(struct alias_walk *w, const char *path, char *err,
		      size_t len)
{
	struct loop_table lt;
	char why[PATH_MAX + 128], chain[1024];
	int ret;

	ret = loops_read(&lt);
	if (ret)
		return bb_errf(err, len, ret, "%s: cannot list loop devices: %s",
			       path, strerror(-ret));
	for (unsigned i = 0; i < w->count; i++) {
		struct alias_node *a = &w->n[i];

		if (!a->file && dev_in_use(a->dev, why, sizeof(why))) {
			free(lt.l);
			if (!i)
				return bb_errf(err, len, -EBUSY,
					       "refusing to write to %s: it %s",
					       path, why);
			chain_text(w, i, chain, sizeof(chain));
			return bb_errf(err, len, -EBUSY,
				       "refusing to write to %s: %s (%s: %s) "
				       "%s",
				       path, a->name, a->rel, chain, why);
		}
		walk_expand(w, &lt, i);
	}
	free(lt.l);
	return 0;
}

int bb_dev_check_unused(const char *path, dev_t dev, char *err, size_t len)
{
	struct alias_walk *w = calloc(1, sizeof(*w));
	int ret;

	if (!w)
		return bb_errf(err, len, -ENOMEM, "out of memory");
	walk_push(w, false, dev, 0, -1, path, "");
	ret = walk_check(w, path, err, len);
	free(w);
	return ret;
}

int bb_file_check_unused(const char *path, const struct stat *st, char *err,
			 size_t len)
{
	struct alias_walk *w = calloc(1, sizeof(*w));
	int ret;

	if (!w)
		return bb_errf(err, len, -ENOMEM, "out of memory");
	walk_push(w, true, st->st_dev, st->st_ino, -1, path, "");
	ret = walk_check(w, path, err, len);
	free(w);
	return ret;
}

int bb_file_check_writable(const char *path, const struct stat *st,
			   char *err, size_t len)
{
	if (st->st_nlink > 1)
		return bb_errf(err, len, -EPERM,
			       "refusing to write to %s: it has %lu hard "
			       "links (the data of its other names would "
			       "change too)",
			       path, (unsigned long)st->st_nlink);
	return bb_file_check_unused(path, st, err, len);
}

int bb_target_write_check(const char *target, char *err, size_t len)
{
	struct stat st;

	if (bb_target_is_nop(target) || stat(target, &st))
		return 0;
	if (S_ISBLK(st.st_mode))
		return bb_dev_check_unused(target, st.st_rdev, err, len);
	if (S_ISREG(st.st_mode))
		return bb_file_check_writable(target, &st, err, len);
	return 0;
}

/* --- footprints (which devices a target's I/O reaches) -------------------- */

/* A block device's whole disk: the disk of a partition, else itself. */
static dev_t whole_disk(dev_t dev)
{
	char pf[PATH_MAX];
	dev_t disk;

	snprintf(pf, sizeof(pf), "/sys/dev/block/%u:%u/partition", major(dev),
		 minor(dev));
	if (access(pf, F_OK))
		return dev;
	snprintf(pf, sizeof(pf), "/sys/dev/block/%u:%u/../dev", major(dev),
		 minor(dev));
	return read_devnum(pf, &disk) ? disk : dev;
}

/* Whether dev is a block device the kernel lists (not the anonymous
 * device of tmpfs, overlayfs, ...). */
static bool block_known(dev_t dev)
{
	char pf[PATH_MAX];

	snprintf(pf, sizeof(pf), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	return !access(pf, F_OK);
}

static void fp_add(struct bb_dev_footprint *fp, enum bb_fp_kind kind,
		   dev_t dev, ino_t ino)
{
	if (kind == BB_FP_BLOCK)
		dev = whole_disk(dev);
	for (unsigned i = 0; i < fp->n; i++)
		if (fp->node[i].kind == kind && fp->node[i].dev == dev &&
		    fp->node[i].ino == ino)
			return;
	if (fp->n == BB_FP_MAX) {
		fp->overflow = true;
		return;
	}
	fp->node[fp->n].kind = kind;
	fp->node[fp->n].dev = dev;
	fp->node[fp->n].ino = ino;
	fp->n++;
}

/* The devices a device-mapper or md device is made of (sysfs slaves):
 * pushed, so that an LVM volume reaches its disks. */
static void push_slaves(struct alias_walk *w, dev_t dev, int from)
{
	char dir[PATH_MAX], pf[PATH_MAX + 300];
	struct dirent *de;
	dev_t sdev;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/slaves", major(dev),
		 minor(dev));
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char name[64];

		if (de->d_name[0] == '.')
			continue;
		snprintf(pf, sizeof(pf), "%s/%s/dev", dir, de->d_name);
		if (!read_devnum(pf, &sdev))
			continue;
		snprintf(name, sizeof(name), "/dev/%.50s", de->d_name);
		walk_push(w, false, sdev, 0, from, name, "a device under it");
	}
	closedir(d);
}

int bb_target_footprint(const char *target, struct bb_dev_footprint *fp,
			char *err, size_t len)
{
	struct alias_walk *w;
	struct loop_table lt;
	char dir[PATH_MAX], *slash;
	struct stat st;
	int ret;

	if (bb_target_is_nop(target))
		return 0;
	if (stat(target, &st)) {
		/* a file the run creates: the filesystem of its directory */
		snprintf(dir, sizeof(dir), "%s", target);
		slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = '\0';
		if (!slash || stat(dir, &st))
			return bb_errf(err, len, -errno, "%s: %s", target,
				       strerror(errno));
		if (block_known(st.st_dev))
			fp_add(fp, BB_FP_BLOCK, st.st_dev, 0);
		return 0;
	}
	if (S_ISCHR(st.st_mode)) {
		/* an NVMe generic device: itself only */
		fp_add(fp, BB_FP_CHAR, st.st_rdev, 0);
		return 0;
	}
	if (!S_ISBLK(st.st_mode) && !S_ISREG(st.st_mode))
		return bb_errf(err, len, -EINVAL, "%s: neither a block device "
			       "nor a regular file", target);
	w = calloc(1, sizeof(*w));
	if (!w)
		return bb_errf(err, len, -ENOMEM, "out of memory");
	if (S_ISBLK(st.st_mode))
		walk_push(w, false, st.st_rdev, 0, -1, target, "");
	else
		walk_push(w, true, st.st_dev, st.st_ino, -1, target, "");
	ret = loops_read(&lt);
	if (ret) {
		free(w);
		return bb_errf(err, len, ret, "%s: cannot list loop devices: "
			       "%s", target, strerror(-ret));
	}
	for (unsigned i = 0; i < w->count; i++) {
		const struct alias_node *a = &w->n[i];

		if (a->file) {
			fp_add(fp, BB_FP_FILE, a->dev, a->ino);
			/* the disk of the filesystem holding it */
			if (block_known(a->dev))
				fp_add(fp, BB_FP_BLOCK, a->dev, 0);
		} else {
			fp_add(fp, BB_FP_BLOCK, a->dev, 0);
			push_slaves(w, a->dev, (int)i);
		}
		walk_expand(w, &lt, i);
	}
	if (w->count == BB_ALIAS_MAX)
		fp->overflow = true;
	free(lt.l);
	free(w);
	return 0;
}

bool bb_footprint_overlap(const struct bb_dev_footprint *a,
			  const struct bb_dev_footprint *b, char *why,
			  size_t len)
{
	for (unsigned i = 0; i < a->n; i++)
		for (unsigned k = 0; k < b->n; k++) {
			const struct bb_fp_node *x = &a->node[i], *y = &b->node[k];

			if (x->kind != y->kind || x->dev != y->dev ||
			    x->ino != y->ino)
				continue;
			if (x->kind == BB_FP_FILE)
				snprintf(why, len, "the same file (device "
					 "%u:%u, inode %llu)", major(x->dev),
					 minor(x->dev),
					 (unsigned long long)x->ino);
			else
				snprintf(why, len, "the same device %u:%u",
					 major(x->dev), minor(x->dev));
			return true;
		}
	if ((a->overflow && b->n) || (b->overflow && a->n)) {
		snprintf(why, len, "too many aliasing devices to tell them "
			 "apart");
		return true;
	}
	return false;
}
