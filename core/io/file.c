// SPDX-License-Identifier: GPL-2.0-only
/* file.c - a regular file target.
 *
 * A read workload opens the file read-only and never creates, extends or
 * writes it: a file shorter than offset + size is refused with what to do.
 * Creating or laying out a file is a write: only a write workload with
 * allow_write does it, never on devtmpfs or under /dev (a typo of a device
 * name must not become a file), and only after checking that the
 * filesystem has room for it with a margin; a new file is created with
 * O_EXCL in its pinned directory (pin.c) and only the part of the region
 * past the end of the file is written (an offset leaves a hole, not a
 * written gap).  Writes are refused to a file with hard links (another
 * name's data would change) and to the backing file of a loop device in
 * use.  O_DIRECT unless told otherwise; synthetic queue limits. */
#include "io/target.h"
#include "util/mountinfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Room kept free when a file is laid out: 5 % of the filesystem, at most
 * 256 MiB. */
#define LAYOUT_MARGIN_PCT 5
#define LAYOUT_MARGIN_MAX (256ull << 20)

/* Write the test pattern over [from, to) through a buffered fd (exact
 * offsets, no O_DIRECT alignment that would touch bytes outside), then
 * flush it so that the run does not measure its writeback. */
static int layout_file(const struct bb_target_pin *p, uint64_t from,
		       uint64_t to, const char *path, char *err, size_t len)
{
	const size_t chunk = 1u << 20;
	char *buf = NULL;
	uint64_t off;
	int fd, ret = 0;

	fd = bb_target_pin_reopen(p, O_WRONLY);
	if (fd < 0)
		return bb_errf(err, len, fd, "%s: cannot open to lay out: %s",
			       path, strerror(-fd));
	if (posix_memalign((void **)&buf, BB_PAGE_SIZE, chunk)) {
		ret = bb_errf(err, len, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < chunk; i += 8)
		*(uint64_t *)(buf + i) = 0x6262656e63680000ull ^ i;
	for (off = from; off < to;) {
		size_t n = (size_t)bb_min((uint64_t)chunk, to - off);
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		if (w < 0) {
			ret = bb_errf(err, len, -errno,
				      "%s: cannot lay out the file: %s", path,
				      strerror(errno));
			goto out;
		}
		off += (uint64_t)w;
	}
	if (fdatasync(fd))
		ret = bb_errf(err, len, -errno,
			      "%s: cannot lay out the file: fdatasync: %s",
			      path, strerror(errno));
out:
	free(buf);
	close(fd);
	return ret;
}

/* Whether a new regular file must not be made in the directory: devtmpfs,
 * or anywhere under /dev. */
static bool no_files_here(const struct bb_target_pin *p)
{
	struct stat ds;
	struct bb_mount *m;
	bool dev;

	if (!strncmp(p->path, "/dev/", 5))
		return true;
	if (fstat(p->dirfd, &ds))
		return false;
	m = malloc(sizeof(*m));
	if (!m)
		return false;
	dev = bb_mountinfo_find_dev(ds.st_dev, m) > 0 &&
	      !strcmp(m->fstype, "devtmpfs");
	free(m);
	return dev;
}

/* Writing need bytes leaves the margin free on fd's filesystem. */
static int check_space(int fd, uint64_t need, const char *path, char *err,
		       size_t len)
{
	struct statvfs sv;
	uint64_t avail, total, margin;
	char a[32], b[32], c[32], d[32];

	if (fstatvfs(fd, &sv))
		return bb_errf(err, len, -errno, "%s: statvfs: %s", path,
			       strerror(errno));
	if (sv.f_flag & ST_RDONLY)
		return bb_errf(err, len, -EROFS,
			       "%s: cannot lay out the file: %s", path,
			       strerror(EROFS));
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	total = (uint64_t)sv.f_blocks * sv.f_frsize;
	margin = bb_min(total / 100 * LAYOUT_MARGIN_PCT, LAYOUT_MARGIN_MAX);
	if (need + margin <= avail)
		return 0;
	return bb_errf(err, len, -ENOSPC,
		       "%s: laying out the file writes %s, but its filesystem "
		       "(%s) has %s free and %s is kept free (%d%% of it, at "
		       "most 256 MiB): give a smaller --size or free space",
		       path, bb_fmt_bytes(a, sizeof(a), need),
		       bb_fmt_bytes(b, sizeof(b), total),
		       bb_fmt_bytes(c, sizeof(c), avail),
		       bb_fmt_bytes(d, sizeof(d), margin), LAYOUT_MARGIN_PCT);
}

/* A missing file: made only by a write workload with a size and
 * allow_write, outside /dev. */
static int may_create(const struct bb_config *cfg,
		      const struct bb_target_pin *p, char *err, size_t len)
{
	bool writes = bb_rw_writes(cfg->rw);

	if (no_files_here(p))
		return bb_errf(err, len, -ENOENT,
			       "%s: no such device (regular files are not "
			       "created under /dev or on devtmpfs: check the "
			       "name, e.g. ls /dev/nvme* /dev/sd* /dev/vd*)",
			       cfg->target);
	if (!writes)
		return bb_errf(err, len, -ENOENT,
			       "%s: no such file (a read job does not create "
			       "files: lay one out with a write job first, "
			       "e.g. --rw write --size SIZE --allow-write; or "
			       "use nop or a block device)",
			       cfg->target);
	if (!cfg->size)
		return bb_errf(err, len, -ENOENT,
			       "%s: no such file (give --size and "
			       "--allow-write to create it, or use nop or a "
			       "block device)",
			       cfg->target);
	if (!cfg->allow_write)
		return bb_errf(err, len, -EPERM,
			       "refusing to create %s without --allow-write "
			       "(creating and laying out a file is a write)",
			       cfg->target);
	return 0;
}

static int file_open(struct bb_target *t, const struct bb_config *cfg,
		     struct bb_target_pin *p, char *err, size_t errlen)
{
	bool writes = bb_rw_writes(cfg->rw);
	bool direct = cfg->direct || cfg->mode == BB_MODE_POLL;
	uint64_t want = cfg->size ? cfg->offset + cfg->size : 0;
	uint64_t have = 0, from = 0;
	bool layout = false;
	int ret;

	if (p->fd < 0) {
		ret = may_create(cfg, p, err, errlen);
		if (ret)
			return ret;
		from = cfg->offset;
		ret = check_space(p->dirfd, want - from, cfg->target, err,
				  errlen);
		if (ret)
			return ret;
		ret = bb_target_pin_create(p, O_RDWR, 0644);
		if (ret)
			return bb_errf(err, errlen, ret, "%s: cannot create: %s",
				       cfg->target, strerror(-ret));
		layout = true;
	} else {
		have = (uint64_t)p->st.st_size;
		if (writes) {
			ret = bb_file_check_writable(cfg->target, &p->st, err,
						     errlen);
			if (ret)
				return ret;
		}
		if (want > have) {
			if (!writes)
				return bb_errf(err, errlen, -EINVAL,
					       "%s is %llu bytes, smaller than "
					       "--offset + --size = %llu: a read "
					       "job does not extend a file (lay "
					       "it out with a write job first, "
					       "--rw write --allow-write, or give "
					       "a smaller --size)",
					       cfg->target,
					       (unsigned long long)have,
					       (unsigned long long)want);
			if (!cfg->allow_write)
				return bb_errf(err, errlen, -EPERM,
					       "refusing to extend %s from %llu "
					       "to %llu bytes without "
					       "--allow-write (laying out a file "
					       "is a write)",
					       cfg->target,
					       (unsigned long long)have,
					       (unsigned long long)want);
			from = bb_max(have, cfg->offset);
			ret = check_space(p->fd, want - from, cfg->target, err,
					  errlen);
			if (ret)
				return ret;
			layout = true;
		}
	}
	if (layout) {
		ret = layout_file(p, from, want, cfg->target, err, errlen);
		if (ret)
			return ret;
		have = want;
	}
	/* reads do not update the file's atime (fio and t/io_uring open
	 * with O_NOATIME too: a buffered read otherwise pays for the inode
	 * update); only the owner or CAP_FOWNER may ask, else without */
	t->fd = -EPERM;
	if (!writes)
		t->fd = bb_target_pin_reopen(p, O_RDONLY | O_NOATIME |
						       (direct ? O_DIRECT : 0));
	if (t->fd == -EPERM)
		t->fd = bb_target_pin_reopen(p, (writes ? O_RDWR : O_RDONLY) |
						       (direct ? O_DIRECT : 0));
	if (t->fd < 0) {
		ret = t->fd;
		t->fd = -1;
		if (ret == -EINVAL && direct)
			return bb_errf(err, errlen, ret,
				       "%s: the filesystem does not "
				       "support O_DIRECT (use --direct 0)",
				       cfg->target);
		return bb_errf(err, errlen, ret, "%s: %s", cfg->target,
			       strerror(-ret));
	}
	t->dev = p->st.st_dev;
	if (major(t->dev))
		bb_dev_names(t->dev, t->disk, sizeof(t->disk),
			     t->part, sizeof(t->part));
	ret = bb_target_apply_limits(&t->lim, cfg, false, err, errlen);
	if (ret)
		return ret;
	return bb_target_finish(t, cfg, have, err, errlen);
}

const struct bb_target_ops bb_target_file = {
	.name = "file",
	.kind = BB_TARGET_FILE,
	.sqe = BB_SQE_RW,
	.open = file_open,
};
