// SPDX-License-Identifier: GPL-2.0-only
/* target.c - choosing the target kind for a config, and what every kind
 * shares: the region, alignment, NVMe identity and the poll check. */
#include "io/target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

const char *bb_target_kind_name(enum bb_target_kind k)
{
	static const struct bb_target_ops *const all[BB_TARGET__COUNT] = {
		[BB_TARGET_NOP] = &bb_target_nop,
		[BB_TARGET_FILE] = &bb_target_file,
		[BB_TARGET_BLOCK] = &bb_target_blkdev,
		[BB_TARGET_NVME_CHAR] = &bb_target_nvme_char,
	};

	return (unsigned)k < BB_TARGET__COUNT ? all[k]->name : "?";
}

int bb_dev_names(dev_t dev, char *disk, size_t dlen, char *part, size_t plen)
{
	char link[PATH_MAX], target[PATH_MAX], p[PATH_MAX];
	ssize_t n;
	char *base, *slash;

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	snprintf(part, plen, "%s", base);
	snprintf(p, sizeof(p), "%s/partition", link);
	if (access(p, F_OK) == 0) {
		/* .../block/<disk>/<part>: the disk is the parent folder */
		if (base > target)
			base[-1] = '\0';
		slash = strrchr(target, '/');
		snprintf(disk, dlen, "%s", slash ? slash + 1 : target);
	} else {
		snprintf(disk, dlen, "%s", part);
	}
	return 0;
}

bool bb_dev_can_poll(dev_t dev, char *why, size_t len)
{
	char disk[64], part[64], path[PATH_MAX], val[32];
	int ret;

	if (major(dev) == 0) {
		snprintf(why, len,
			 "the filesystem has no block device (dev %u:%u, e.g. "
			 "tmpfs or overlay), so nothing can poll",
			 major(dev), minor(dev));
		return false;
	}
	ret = bb_dev_names(dev, disk, sizeof(disk), part, sizeof(part));
	if (ret) {
		snprintf(why, len, "no sysfs entry for device %u:%u: %s",
			 major(dev), minor(dev), strerror(-ret));
		return false;
	}
	snprintf(path, sizeof(path), "/sys/block/%s/queue/io_poll", disk);
	ret = bb_read_text(path, val, sizeof(val));
	if (ret) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(-ret));
		return false;
	}
	if (strcmp(val, "1") != 0 && !strncmp(disk, "nvme", 4))
		return bb_nvme_can_poll(disk, why, len);
	if (strcmp(val, "1") != 0) {
		snprintf(why, len,
			 "%s is %s: the device has no poll queues (for NVMe, "
			 "load the driver with poll queues: nvme.poll_queues=N "
			 "on the kernel command line or modprobe nvme "
			 "poll_queues=N)",
			 path, val);
		return false;
	}
	why[0] = '\0';
	return true;
}

int bb_target_numa_node(const struct bb_target *t)
{
	static const char *const where[] = { "device/numa_node",
					     "device/device/numa_node" };
	char path[PATH_MAX], val[32], *end;
	long node;

	if (t->kind == BB_TARGET_NOP || !t->disk[0])
		return -1;
	for (unsigned i = 0; i < bb_array_size(where); i++) {
		snprintf(path, sizeof(path), "/sys/block/%s/%s", t->disk,
			 where[i]);
		if (bb_read_text(path, val, sizeof(val)))
			continue;
		node = strtol(val, &end, 10);
		if (end != val && !*end && node >= -1 && node < 4096)
			return (int)node;
	}
	return -1;
}

int bb_target_apply_limits(struct bb_queue_limits *lim,
			   const struct bb_config *cfg, bool from_device,
			   char *err, size_t len)
{
	const struct bb_queue_limits *u = &cfg->limits;
	unsigned set = cfg->limits_set;
	const char *why = NULL;

	if (!from_device) {
		/* a synthetic device has no hardware limit below the user's
		 * max_sectors_kb; without one it is large, like a fast NVMe
		 * (2 MiB) */
		bb_limits_clear(lim);
		lim->max_hw_sectors = set & BB_LIM_MAX_SECTORS_KB ?
			bb_max(u->max_user_sectors, 8u) : 2048 * 2;
	}
	/* validate derives max_sectors from it, as a sysfs write does */
	if (set & BB_LIM_MAX_SECTORS_KB)
		lim->max_user_sectors = u->max_user_sectors;
	if (set & BB_LIM_MAX_SEGMENTS)
		lim->max_segments = u->max_segments;
	if (set & BB_LIM_MAX_SEGMENT_SIZE)
		lim->max_segment_size = u->max_segment_size;
	if (set & BB_LIM_SEG_BOUNDARY)
		lim->seg_boundary_mask = u->seg_boundary_mask;
	if (set & BB_LIM_VIRT_BOUNDARY)
		lim->virt_boundary_mask = u->virt_boundary_mask;
	if (set & BB_LIM_CHUNK_SECTORS)
		lim->chunk_sectors = u->chunk_sectors;
	if (set & BB_LIM_LBS) {
		lim->logical_block_size = u->logical_block_size;
		if (lim->physical_block_size < lim->logical_block_size)
			lim->physical_block_size = lim->logical_block_size;
	}
	if (bb_limits_validate(lim, &why))
		return bb_errf(err, len, -EINVAL, "queue limits: %s",
			       why ? why : "invalid");
	return 0;
}

int bb_target_finish(struct bb_target *t, const struct bb_config *cfg,
		     uint64_t devsize, char *err, size_t errlen)
{
	if (cfg->offset >= devsize)
		return bb_errf(err, errlen, -EINVAL,
			       "--offset %llu is beyond the end of %s (%llu bytes)",
			       (unsigned long long)cfg->offset, cfg->target,
			       (unsigned long long)devsize);
	t->region_off = cfg->offset;
	t->region_len = devsize - cfg->offset;
	if (cfg->size && cfg->size < t->region_len)
		t->region_len = cfg->size;
	t->region_len -= t->region_len % cfg->bs;
	if (t->region_len < cfg->bs)
		return bb_errf(err, errlen, -EINVAL,
			       "%s: the region (%llu bytes from offset %llu) is "
			       "smaller than one block of --bs %u",
			       cfg->target,
			       (unsigned long long)(devsize - cfg->offset),
			       (unsigned long long)cfg->offset, cfg->bs);
	if ((cfg->offset % t->lim.logical_block_size) ||
	    (cfg->bs % t->lim.logical_block_size))
		return bb_errf(err, errlen, -EINVAL,
			       "--bs %u and --offset %llu must be multiples of "
			       "the logical block size %u of %s",
			       cfg->bs, (unsigned long long)cfg->offset,
			       t->lim.logical_block_size, cfg->target);

	if (t->kind == BB_TARGET_BLOCK && !strncmp(t->disk, "nvme", 4))
		t->is_nvme = bb_nvme_ns_resolve(t->disk, -1, &t->nvme) == 0;
	t->can_poll = bb_dev_can_poll(t->dev, t->poll_why,
				      sizeof(t->poll_why));
	if (cfg->mode == BB_MODE_POLL && !t->can_poll)
		return bb_errf(err, errlen, -EOPNOTSUPP,
			       "--mode poll: %s cannot poll: %s", cfg->target,
			       t->poll_why);
	return 0;
}

/* Polled mode: refused before anything is opened or created. */
static int check_poll_first(struct bb_target *t, const struct bb_config *cfg,
			    const struct bb_target_pin *p, char *err,
			    size_t errlen)
{
	struct stat ds;
	dev_t pdev;

	if (p->fd >= 0) {
		if (S_ISCHR(p->st.st_mode))
			return bb_errf(err, errlen, -EINVAL,
				       "%s is a char device: for an NVMe "
				       "generic char device (/dev/ngXnY) "
				       "use --engine uring_cmd",
				       cfg->target);
		pdev = S_ISBLK(p->st.st_mode) ? p->st.st_rdev : p->st.st_dev;
	} else {
		if (fstat(p->dirfd, &ds))
			return bb_errf(err, errlen, -errno, "%s: %s",
				       cfg->target, strerror(errno));
		pdev = ds.st_dev;
	}
	if (!bb_dev_can_poll(pdev, t->poll_why, sizeof(t->poll_why)))
		return bb_errf(err, errlen, -EOPNOTSUPP,
			       "--mode poll: %s cannot poll: %s",
			       cfg->target, t->poll_why);
	return 0;
}

static const char *file_type_name(mode_t m)
{
	if (S_ISFIFO(m))
		return "FIFO (named pipe)";
	if (S_ISSOCK(m))
		return "socket";
	if (S_ISDIR(m))
		return "directory";
	if (S_ISLNK(m))
		return "symlink";
	return "special file";
}

/* The kind of a pinned target, from its type on the O_PATH fd: nothing
 * has opened it yet, so a FIFO cannot block. */
static int choose_kind(const struct bb_config *cfg,
		       const struct bb_target_pin *p,
		       const struct bb_target_ops **ops, char *err,
		       size_t errlen)
{
	mode_t m = p->st.st_mode;

	if (p->fd >= 0 && !S_ISREG(m) && !S_ISBLK(m) && !S_ISCHR(m))
		return bb_errf(err, errlen, -EINVAL,
			       "%s is a %s: a target is nop, a regular file or "
			       "a block device (or /dev/ngXnY with --engine "
			       "uring_cmd)",
			       cfg->target, file_type_name(m));
	if (cfg->engine == BB_ENGINE_URING_CMD)
		*ops = &bb_target_nvme_char;
	else if (p->fd >= 0 && S_ISBLK(m))
		*ops = &bb_target_blkdev;
	else if (p->fd >= 0 && S_ISCHR(m))
		return bb_errf(err, errlen, -EINVAL,
			       "%s is a char device: for an NVMe generic char "
			       "device (/dev/ngXnY) use --engine uring_cmd; "
			       "--engine io_uring takes nop, a file or a block "
			       "device",
			       cfg->target);
	else
		*ops = &bb_target_file;
	return 0;
}

int bb_target_open(struct bb_target *t, const struct bb_config *cfg,
		   char *err, size_t errlen)
{
	const struct bb_target_ops *ops;
	struct bb_target_pin pin;
	int ret;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	snprintf(t->path, sizeof(t->path), "%s", cfg->target);
	bb_target_pin_init(&pin);

	if (bb_target_is_nop(cfg->target)) {
		t->ops = &bb_target_nop;
		t->kind = BB_TARGET_NOP;
		return bb_target_nop.open(t, cfg, NULL, err, errlen);
	}
	ret = bb_target_pin_open(&pin, cfg->target, cfg->no_symlinks, err,
				 errlen);
	if (ret)
		return ret;
	ret = choose_kind(cfg, &pin, &ops, err, errlen);
	if (ret)
		goto out;
	if (cfg->mode == BB_MODE_POLL && ops != &bb_target_nvme_char) {
		ret = check_poll_first(t, cfg, &pin, err, errlen);
		if (ret)
			goto out;
	}
	t->ops = ops;
	t->kind = ops->kind;
	ret = ops->open(t, cfg, &pin, err, errlen);
	if (ret) {
		bb_target_close(t);
		bb_target_pin_unlink_created(&pin);
	}
out:
	bb_target_pin_close(&pin);
	return ret;
}

void bb_target_close(struct bb_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
