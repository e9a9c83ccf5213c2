// SPDX-License-Identifier: GPL-2.0-only
/* blkdev.c - a block device target: O_DIRECT unless told otherwise; its
 * queue limits from sysfs (overridden field by field by the config's);
 * writes only with allow_write, on a device nobody uses (nor any device
 * aliasing it, inuse.c), opened O_EXCL.  Everything is checked on the
 * pinned object (pin.c), which is then reopened: never by path twice. */
#include "io/target.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static int blkdev_open(struct bb_target *t, const struct bb_config *cfg,
		       struct bb_target_pin *p, char *err, size_t errlen)
{
	bool writes = bb_rw_writes(cfg->rw);
	bool direct = cfg->direct || cfg->mode == BB_MODE_POLL;
	uint64_t devsize = 0;
	int flags, ret;

	/* checked on the pinned object, then that object is opened */
	t->dev = p->st.st_rdev;
	bb_dev_names(t->dev, t->disk, sizeof(t->disk), t->part,
		     sizeof(t->part));
	if (writes) {
		if (!cfg->allow_write)
			return bb_errf(err, errlen, -EPERM,
				       "refusing to write to block device "
				       "%s without --allow-write (its data "
				       "will be overwritten)",
				       cfg->target);
		ret = bb_dev_check_unused(cfg->target, t->dev, err,
					 errlen);
		if (ret)
			return ret;
	}
	flags = (writes ? O_RDWR | O_EXCL : O_RDONLY) |
		(direct ? O_DIRECT : 0);
	ret = bb_target_pin_reopen(p, flags);
	/* a ring of a run that just ended may still hold the device
	 * for a moment (io_uring tears rings down asynchronously) */
	for (int i = 0; ret == -EBUSY && writes && i < 50; i++) {
		usleep(20000);
		ret = bb_target_pin_reopen(p, flags);
	}
	if (ret < 0) {
		if (writes && ret == -EBUSY)
			return bb_errf(err, errlen, ret,
				       "refusing to write to %s: it cannot "
				       "be opened exclusively (O_EXCL: in "
				       "use by another program or the "
				       "kernel)",
				       cfg->target);
		return bb_errf(err, errlen, ret, "%s: %s", cfg->target,
			       strerror(-ret));
	}
	t->fd = ret;
	if (ioctl(t->fd, BLKGETSIZE64, &devsize)) {
		ret = -errno;
		return bb_errf(err, errlen, ret, "%s: BLKGETSIZE64: %s",
			       cfg->target, strerror(-ret));
	}
	ret = bb_limits_read_sysfs_dev("/sys", major(t->dev), minor(t->dev),
				       &t->lim);
	if (ret)
		return bb_errf(err, errlen, ret,
			       "%s: cannot read queue limits from sysfs: "
			       "%s",
			       cfg->target, strerror(-ret));
	ret = bb_target_apply_limits(&t->lim, cfg, true, err, errlen);
	if (ret)
		return ret;
	return bb_target_finish(t, cfg, devsize, err, errlen);
}

const struct bb_target_ops bb_target_blkdev = {
	.name = "block",
	.kind = BB_TARGET_BLOCK,
	.sqe = BB_SQE_RW,
	.open = blkdev_open,
};
