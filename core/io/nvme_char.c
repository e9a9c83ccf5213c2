// SPDX-License-Identifier: GPL-2.0-only
/* nvme_char.c - an NVMe generic char device (/dev/ngXnY) for passthrough
 * (--engine uring_cmd): the namespace identified with libnvme, its limits
 * those of the namespace's block device with max_sectors at the
 * MDTS-derived max_hw_sectors; writes refused as for its block device. */
#include "io/target.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The block device of an NVMe namespace, from sysfs (/sys/block/X/dev). */
static int nvme_blk_dev(const char *blk, dev_t *dev)
{
	char path[PATH_MAX], val[32];
	unsigned ma, mi;
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/dev", blk);
	ret = bb_read_text(path, val, sizeof(val));
	if (ret)
		return ret;
	if (sscanf(val, "%u:%u", &ma, &mi) != 2)
		return -EINVAL;
	*dev = makedev(ma, mi);
	return 0;
}

/* Whether /sys/class/nvme-generic/CHR is the char device rdev. */
static bool generic_is(const char *chr, dev_t rdev)
{
	char path[PATH_MAX], val[32];
	unsigned ma, mi;

	snprintf(path, sizeof(path), "/sys/class/nvme-generic/%s/dev", chr);
	return !bb_read_text(path, val, sizeof(val)) &&
	       sscanf(val, "%u:%u", &ma, &mi) == 2 && makedev(ma, mi) == rdev;
}

/* --engine uring_cmd: the namespace's generic char device. */
static int nvme_char_open(struct bb_target *t, const struct bb_config *cfg,
			  struct bb_target_pin *p, char *err, size_t errlen)
{
	const struct stat *st = p->fd >= 0 ? &p->st : NULL;
	bool writes = bb_rw_writes(cfg->rw);
	struct bb_nvme_ns ns;
	uint64_t devsize;
	int ret;

	if (!st)
		return bb_errf(err, errlen, -ENOENT, "%s: %s", cfg->target,
			       strerror(ENOENT));
	if (!S_ISCHR(st->st_mode)) {
		if (S_ISBLK(st->st_mode) &&
		    bb_nvme_ns_resolve(p->path, -1, &ns) == 0 && ns.chr[0])
			return bb_errf(err, errlen, -EINVAL,
				       "--engine uring_cmd: %s is a block device; "
				       "passthrough goes through the namespace's "
				       "generic char device /dev/%s",
				       cfg->target, ns.chr);
		return bb_errf(err, errlen, -EINVAL,
			       "--engine uring_cmd: %s is not a char device: give "
			       "an NVMe generic char device /dev/ngXnY (or use "
			       "--engine io_uring)",
			       cfg->target);
	}
	/* named through the pinned (canonical) path, and checked to be the
	 * pinned object: its sysfs dev is the node's rdev */
	ret = bb_nvme_ns_resolve(p->path, -1, &ns);
	if (ret || strncmp(ns.chr, "ng", 2) || !generic_is(ns.chr, st->st_rdev))
		return bb_errf(err, errlen, -EINVAL,
			       "--engine uring_cmd: %s is not an NVMe generic char "
			       "device (/dev/ngXnY with a /sys/class/nvme-generic "
			       "entry)",
			       cfg->target);
	t->kind = BB_TARGET_NVME_CHAR;
	ret = nvme_blk_dev(ns.blk, &t->dev);
	if (ret)
		return bb_errf(err, errlen, ret,
			       "%s: cannot find the block device %s of the "
			       "namespace in sysfs: %s",
			       cfg->target, ns.blk, strerror(-ret));
	snprintf(t->disk, sizeof(t->disk), "%s", ns.blk);
	snprintf(t->part, sizeof(t->part), "%s", ns.blk);
	if (cfg->mode == BB_MODE_POLL &&
	    !bb_dev_can_poll(t->dev, t->poll_why, sizeof(t->poll_why)))
		return bb_errf(err, errlen, -EOPNOTSUPP,
			       "--mode poll: %s cannot poll: %s", cfg->target,
			       t->poll_why);
	if (writes) {
		char blkpath[80];

		if (!cfg->allow_write)
			return bb_errf(err, errlen, -EPERM,
				       "refusing to write to NVMe namespace %s "
				       "without --allow-write (its data will be "
				       "overwritten)",
				       cfg->target);
		snprintf(blkpath, sizeof(blkpath), "%s (/dev/%s)", cfg->target,
			 ns.blk);
		ret = bb_dev_check_unused(blkpath, t->dev, err, errlen);
		if (ret)
		return ret;
	}
	ret = bb_target_pin_reopen(p, writes ? O_RDWR : O_RDONLY);
	if (ret < 0)
		return bb_errf(err, errlen, ret, "%s: %s", cfg->target,
			       strerror(-ret));
	t->fd = ret;
	ret = bb_nvme_ns_resolve(p->path, t->fd, &t->nvme);
	if (ret)
		return bb_errf(err, errlen, ret, "%s: cannot identify the "
			       "namespace: %s", cfg->target, strerror(-ret));
	t->is_nvme = true;
	if (t->nvme.lba_size < 512 || (t->nvme.lba_size & (t->nvme.lba_size - 1)))
		return bb_errf(err, errlen, -EINVAL, "%s: unusable LBA size %u",
			       cfg->target, t->nvme.lba_size);
	t->lba_shift = (unsigned)__builtin_ctz(t->nvme.lba_size);
	devsize = t->nvme.lba_count << t->lba_shift;
	ret = bb_limits_read_sysfs_dev("/sys", major(t->dev), minor(t->dev),
				       &t->lim);
	if (ret)
		return bb_errf(err, errlen, ret,
			       "%s: cannot read the queue limits of %s from "
			       "sysfs: %s",
			       cfg->target, ns.blk, strerror(-ret));
	/* passthrough is bounded by the controller (MDTS -> max_hw_sectors),
	 * not by the block layer's max_sectors_kb */
	t->lim.max_user_sectors = t->lim.max_hw_sectors;
	ret = bb_target_apply_limits(&t->lim, cfg, true, err, errlen);
	if (ret)
		return ret;
	if (t->lim.logical_block_size != t->nvme.lba_size)
		return bb_errf(err, errlen, -EINVAL,
			       "%s: the LBA size %u differs from the logical "
			       "block size %u of %s",
			       cfg->target, t->nvme.lba_size,
			       t->lim.logical_block_size, ns.blk);
	return bb_target_finish(t, cfg, devsize, err, errlen);
}


const struct bb_target_ops bb_target_nvme_char = {
	.name = "nvme_char",
	.kind = BB_TARGET_NVME_CHAR,
	.sqe = BB_SQE_NVME_CMD,
	.open = nvme_char_open,
};
