/* file.c - a regular file target: created and laid out to --size when
 * asked; O_DIRECT unless told otherwise; synthetic queue limits. */
#include "io/target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int layout_file(int fd, uint64_t from, uint64_t to, char *err,
		       size_t len, const char *path)
{
	const size_t chunk = 1u << 20;
	char *buf;
	uint64_t off;
	int ret = 0;

	if (posix_memalign((void **)&buf, BB_PAGE_SIZE, chunk))
		return bb_errf(err, len, -ENOMEM, "out of memory");
	for (size_t i = 0; i < chunk; i += 8)
		*(uint64_t *)(buf + i) = 0x6262656e63680000ull ^ i;
	for (off = from & ~(uint64_t)(BB_PAGE_SIZE - 1); off < to;) {
		size_t n = (size_t)bb_min((uint64_t)chunk, to - off);
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		if (w < 0) {
			ret = bb_errf(err, len, -errno,
				      "%s: cannot lay out the file: %s", path,
				      strerror(errno));
			break;
		}
		off += (uint64_t)w;
	}
	free(buf);
	return ret;
}

static int file_open(struct bb_target *t, const struct bb_config *cfg,
		     const struct stat *st, char *err, size_t errlen)
{
	bool writes = bb_rw_writes(cfg->rw);
	bool direct = cfg->direct || cfg->mode == BB_MODE_POLL;
	bool create = cfg->size != 0;
	uint64_t devsize = 0;
	struct stat fst;
	int flags, ret;

	(void)st;
	flags = (writes || create ? O_RDWR : O_RDONLY) |
		(create ? O_CREAT : 0) | (direct ? O_DIRECT : 0);
	t->fd = open(cfg->target, flags | O_CLOEXEC, 0644);
	if (t->fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return bb_errf(err, errlen, ret,
				       "%s: no such file (give --size to "
				       "create it, or use nop or a block "
				       "device)",
				       cfg->target);
		if (ret == -EINVAL && direct)
			return bb_errf(err, errlen, ret,
				       "%s: the filesystem does not "
				       "support O_DIRECT (use --direct 0)",
				       cfg->target);
		return bb_errf(err, errlen, ret, "%s: %s", cfg->target,
			       strerror(-ret));
	}
	if (fstat(t->fd, &fst) || !S_ISREG(fst.st_mode))
		return bb_errf(err, errlen, -EINVAL,
			       "%s: not a regular file or block device",
			       cfg->target);
	if (writes) {
		/* the backing file of a loop device in use aliases it */
		ret = bb_file_check_unused(cfg->target, &fst, err, errlen);
		if (ret)
			return ret;
	}
	t->dev = fst.st_dev;
	if (major(t->dev))
		bb_dev_names(t->dev, t->disk, sizeof(t->disk),
			     t->part, sizeof(t->part));
	devsize = (uint64_t)fst.st_size;
	if (create && devsize < cfg->offset + cfg->size) {
		ret = layout_file(t->fd, devsize,
				  cfg->offset + cfg->size, err, errlen,
				  cfg->target);
		if (ret)
			return ret;
		devsize = cfg->offset + cfg->size;
	}
	ret = bb_target_apply_limits(&t->lim, cfg, false, err, errlen);
	if (ret)
		return ret;
	return bb_target_finish(t, cfg, devsize, err, errlen);
}

const struct bb_target_ops bb_target_file = {
	.name = "file",
	.kind = BB_TARGET_FILE,
	.sqe = BB_SQE_RW,
	.open = file_open,
};
