// SPDX-License-Identifier: GPL-2.0-only
/* limits.c - queue limits: blk_validate_limits() rules, defaults, reading
 * /sys/dev/block/MAJ:MIN/queue/ (block/blk-settings.c, block/blk-sysfs.c). */
#include <biobench/queue_limits.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define BLK_SEG_BOUNDARY_MASK 0xFFFFFFFFUL
#define BLK_MIN_BLOCK_SIZE 512u
#define BLK_MAX_BLOCK_SIZE 65536u
#define PAGE_SECTORS (BB_PAGE_SIZE >> BB_SECTOR_SHIFT)

void bb_limits_clear(struct bb_queue_limits *lim)
{
	memset(lim, 0, sizeof(*lim));
}

static bool block_size_ok(unsigned int bs)
{
	return bs >= BLK_MIN_BLOCK_SIZE && bs <= BLK_MAX_BLOCK_SIZE &&
	       (bs & (bs - 1)) == 0;
}

int bb_limits_validate(struct bb_queue_limits *lim, const char **why)
{
	const char *w;
	unsigned int hw, lbs_sectors;
	unsigned long seg_size;

	/* 512-byte logical blocks unless set, a power of 2 up to
	 * BLK_MAX_BLOCK_SIZE (blk_validate_block_size); physical >= logical
	 * (a smaller or unset physical size is raised to the logical one)
	 * and a power of 2 of any size: the kernel bounds only the logical
	 * size (a device reporting a 128 KiB physical block is accepted). */
	if (!lim->logical_block_size) {
		lim->logical_block_size = BB_SECTOR_SIZE;
	} else if (!block_size_ok(lim->logical_block_size)) {
		w = "logical_block_size must be a power of 2 in 512..65536";
		goto bad;
	}
	if (lim->physical_block_size < lim->logical_block_size) {
		lim->physical_block_size = lim->logical_block_size;
	} else if (lim->physical_block_size &
		   (lim->physical_block_size - 1)) {
		w = "physical_block_size must be a power of 2 (at least logical_block_size)";
		goto bad;
	}

	if (lim->io_min < lim->physical_block_size)
		lim->io_min = lim->physical_block_size;
	lim->io_opt -= lim->io_opt % lim->physical_block_size;

	if (!lim->max_hw_sectors)
		lim->max_hw_sectors = BB_BLK_SAFE_MAX_SECTORS;
	if (lim->max_hw_sectors < PAGE_SECTORS) {
		w = "max_hw_sectors must be >= 8 (4096 bytes)";
		goto bad;
	}
	lbs_sectors = lim->logical_block_size >> BB_SECTOR_SHIFT;
	if (lbs_sectors > lim->max_hw_sectors) {
		w = "max_hw_sectors must be >= logical_block_size/512";
		goto bad;
	}
	lim->max_hw_sectors -= lim->max_hw_sectors % lbs_sectors;

	/* max_sectors is always derived, never taken as set. */
	hw = lim->max_hw_sectors;
	if (lim->max_dev_sectors && lim->max_dev_sectors < hw)
		hw = lim->max_dev_sectors;
	if (lim->max_user_sectors) {
		if (lim->max_user_sectors <
		    BB_BLK_MIN_SEGMENT_SIZE / BB_SECTOR_SIZE) {
			w = "max_user_sectors must be >= 8 (4096 bytes)";
			goto bad;
		}
		lim->max_sectors = bb_min(hw, lim->max_user_sectors);
	} else if (lim->io_opt >
		   (BB_BLK_DEF_MAX_SECTORS_CAP << BB_SECTOR_SHIFT)) {
		lim->max_sectors = bb_min(hw, lim->io_opt >> BB_SECTOR_SHIFT);
	} else if (lim->io_min >
		   (BB_BLK_DEF_MAX_SECTORS_CAP << BB_SECTOR_SHIFT)) {
		lim->max_sectors = bb_min(hw, lim->io_min >> BB_SECTOR_SHIFT);
	} else {
		lim->max_sectors = bb_min(hw, BB_BLK_DEF_MAX_SECTORS_CAP);
	}
	lim->max_sectors -= lim->max_sectors % lbs_sectors;
	if (!lim->max_sectors) {
		/* a user or device cap below one logical block: the kernel
		 * would build an unusable queue, we refuse it */
		w = lim->max_user_sectors && lim->max_user_sectors < lbs_sectors
			? "max_user_sectors must be >= logical_block_size/512"
			: "max_dev_sectors must be >= logical_block_size/512";
		goto bad;
	}

	if (!lim->max_segments)
		lim->max_segments = BB_BLK_MAX_SEGMENTS;

	if (!lim->seg_boundary_mask)
		lim->seg_boundary_mask = BLK_SEG_BOUNDARY_MASK;
	if (lim->seg_boundary_mask < BB_BLK_MIN_SEGMENT_SIZE - 1) {
		w = "seg_boundary_mask must be >= 4095";
		goto bad;
	}

	if (lim->virt_boundary_mask) {
		if (!lim->max_segment_size)
			lim->max_segment_size = UINT_MAX;
	} else {
		if (!lim->max_segment_size)
			lim->max_segment_size = BB_BLK_MAX_SEGMENT_SIZE;
		if (lim->max_segment_size < BB_BLK_MIN_SEGMENT_SIZE) {
			w = "max_segment_size must be >= 4096";
			goto bad;
		}
	}

	/* The largest single segment the bio_may_need_split fast path may
	 * accept without a walk. */
	if (lim->seg_boundary_mask > (unsigned long)lim->max_segment_size - 1)
		seg_size = lim->max_segment_size;
	else
		seg_size = lim->seg_boundary_mask + 1;
	lim->max_fast_segment_size =
		(unsigned int)bb_min(seg_size, (unsigned long)BB_PAGE_SIZE);

	if (!lim->dma_alignment)
		lim->dma_alignment = BB_SECTOR_SIZE - 1;
	if (lim->dma_alignment > BB_PAGE_SIZE) {
		w = "dma_alignment must be <= 4096";
		goto bad;
	}

	if (why)
		*why = NULL;
	return 0;
bad:
	if (why)
		*why = w;
	return -EINVAL;
}

void bb_limits_default(struct bb_queue_limits *lim)
{
	bb_limits_clear(lim);
	(void)bb_limits_validate(lim, NULL); /* cannot fail on zeroes */
}

/* Read one unsigned decimal value from dir/name.  -ENOENT when the file
 * is not there, -EINVAL when it does not hold a number. */
static int read_u64(const char *dir, const char *name, uint64_t *out)
{
	char path[PATH_MAX], buf[64], *end;
	unsigned long long v;
	int ret;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return -ENAMETOOLONG;
	ret = bb_read_text(path, buf, sizeof(buf));
	if (ret)
		return ret;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (end == buf || errno || *end || buf[0] == '-')
		return -EINVAL;
	*out = v;
	return 0;
}

static unsigned int clamp_u32(uint64_t v)
{
	return v > UINT_MAX ? UINT_MAX : (unsigned int)v;
}

int bb_limits_read_sysfs_dev(const char *sysfs_root, unsigned int maj,
			     unsigned int min, struct bb_queue_limits *lim)
{
	char dev_dir[PATH_MAX], queue[PATH_MAX];
	struct bb_queue_limits l;
	uint64_t v;
	int ret;

	if ((size_t)snprintf(dev_dir, sizeof(dev_dir), "%s/dev/block/%u:%u",
			     sysfs_root, maj, min) >= sizeof(dev_dir) - 16)
		return -ENAMETOOLONG;
	if (access(dev_dir, F_OK))
		return -errno;
	/* A partition has no queue of its own: it reads its disk's (the
	 * MAJ:MIN link points at .../disk/part, so ".." is the disk). */
	snprintf(queue, sizeof(queue), "%s/partition", dev_dir);
	if (access(queue, F_OK) == 0)
		snprintf(queue, sizeof(queue), "%s/../queue", dev_dir);
	else
		snprintf(queue, sizeof(queue), "%s/queue", dev_dir);

	bb_limits_clear(&l);

#define READ_REQ(name)                                                        \
	do {                                                                  \
		ret = read_u64(queue, name, &v);                              \
		if (ret)                                                      \
			return ret;                                           \
	} while (0)
#define READ_OPT(name)                                                        \
	do {                                                                  \
		ret = read_u64(queue, name, &v);                              \
		if (ret == -ENOENT)                                           \
			v = 0;                                                \
		else if (ret)                                                 \
			return ret;                                           \
	} while (0)

	/* max_sectors is always derived by validate; the device's current
	 * value (the kernel's result, possibly set by the user) is carried
	 * as max_user_sectors so validate reproduces it. */
	READ_REQ("max_sectors_kb");
	l.max_user_sectors = clamp_u32(v * 2);
	READ_REQ("max_hw_sectors_kb");
	l.max_hw_sectors = clamp_u32(v * 2);
	READ_REQ("max_segments");
	if (v > USHRT_MAX)
		return -ERANGE;
	l.max_segments = (unsigned short)v;
	READ_REQ("max_segment_size");
	l.max_segment_size = clamp_u32(v);
	READ_REQ("logical_block_size");
	l.logical_block_size = clamp_u32(v);
	READ_REQ("physical_block_size");
	l.physical_block_size = clamp_u32(v);

	READ_OPT("chunk_sectors");
	l.chunk_sectors = clamp_u32(v);
	READ_OPT("virt_boundary_mask");
	l.virt_boundary_mask = (unsigned long)v;
	READ_OPT("dma_alignment");
	l.dma_alignment = clamp_u32(v);
	/* io_min / io_opt are minimum_io_size / optimal_io_size in sysfs */
	READ_OPT("minimum_io_size");
	l.io_min = clamp_u32(v);
	READ_OPT("optimal_io_size");
	l.io_opt = clamp_u32(v);
	READ_OPT("zone_write_granularity");
	l.zone_write_granularity = clamp_u32(v);
	READ_OPT("write_zeroes_max_bytes");
	l.max_write_zeroes_sectors = clamp_u32(v >> BB_SECTOR_SHIFT);
	READ_OPT("atomic_write_max_bytes");
	l.atomic_write_max_sectors = clamp_u32(v >> BB_SECTOR_SHIFT);
	READ_OPT("atomic_write_boundary_bytes");
	l.atomic_write_boundary_sectors = clamp_u32(v >> BB_SECTOR_SHIFT);
#undef READ_REQ
#undef READ_OPT

	ret = bb_limits_validate(&l, NULL);
	if (ret)
		return ret;
	*lim = l;
	return 0;
}

int bb_limits_read_sysfs(const char *dev_path, struct bb_queue_limits *lim)
{
	struct stat st;

	if (stat(dev_path, &st))
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	return bb_limits_read_sysfs_dev("/sys", major(st.st_rdev),
					minor(st.st_rdev), lim);
}

void bb_limits_fprint(FILE *f, const struct bb_queue_limits *lim)
{
	fprintf(f,
		"max_hw_sectors=%u max_dev_sectors=%u max_user_sectors=%u "
		"max_sectors=%u chunk_sectors=%u max_segments=%u "
		"max_segment_size=%u max_fast_segment_size=%u "
		"seg_boundary_mask=0x%lx virt_boundary_mask=0x%lx "
		"logical_block_size=%u physical_block_size=%u "
		"dma_alignment=%u io_min=%u io_opt=%u "
		"max_write_zeroes_sectors=%u zone_write_granularity=%u "
		"atomic_write_max_sectors=%u atomic_write_boundary_sectors=%u\n",
		lim->max_hw_sectors, lim->max_dev_sectors,
		lim->max_user_sectors, lim->max_sectors, lim->chunk_sectors,
		(unsigned)lim->max_segments, lim->max_segment_size,
		lim->max_fast_segment_size, lim->seg_boundary_mask,
		lim->virt_boundary_mask, lim->logical_block_size,
		lim->physical_block_size, lim->dma_alignment, lim->io_min,
		lim->io_opt, lim->max_write_zeroes_sectors,
		lim->zone_write_granularity, lim->atomic_write_max_sectors,
		lim->atomic_write_boundary_sectors);
}

unsigned bb_limits_max_pieces(uint32_t bs, const struct bb_queue_limits *lim)
{
	uint64_t min_piece = (uint64_t)lim->max_sectors << BB_SECTOR_SHIFT;
	uint64_t segs = (uint64_t)lim->max_segments *
			bb_min(lim->max_segment_size, BB_PAGE_SIZE);

	if (segs < min_piece)
		min_piece = segs;
	if (lim->chunk_sectors &&
	    ((uint64_t)lim->chunk_sectors << BB_SECTOR_SHIFT) < min_piece)
		min_piece = (uint64_t)lim->chunk_sectors << BB_SECTOR_SHIFT;
	if (lim->virt_boundary_mask || lim->seg_boundary_mask < BB_PAGE_SIZE)
		min_piece = lim->logical_block_size;
	if (min_piece < lim->logical_block_size)
		min_piece = lim->logical_block_size;
	if (!min_piece)
		min_piece = BB_SECTOR_SIZE;
	/* +1: chunk or physical-block alignment can cut one extra piece */
	return (unsigned)((bs + min_piece - 1) / min_piece) + 1;
}
