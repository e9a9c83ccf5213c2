/* SPDX-License-Identifier: GPL-2.0-only */
/* queue_limits.h - (implemented in limits.c) the queue limits that splitting works against
 * (layout-independent).  Mirrors struct queue_limits (include/linux/blkdev.h)
 * and blk_validate_limits(); read from /sys/block/DEV/queue/ for block
 * devices, synthetic and settable for file and nop targets. */
#ifndef BB_QUEUE_LIMITS_H
#define BB_QUEUE_LIMITS_H

#include <biobench/common.h>

#include <stdio.h>

#define BB_BLK_SAFE_MAX_SECTORS 255u
#define BB_BLK_DEF_MAX_SECTORS_CAP 8192u /* 4 MiB, since 2025 */
#define BB_BLK_MAX_SEGMENTS 128u
#define BB_BLK_MAX_SEGMENT_SIZE 65536u
#define BB_BLK_MIN_SEGMENT_SIZE 4096u

struct bb_queue_limits {
	unsigned long seg_boundary_mask;  /* default 0xFFFFFFFF */
	unsigned long virt_boundary_mask; /* 0 = none */
	unsigned int max_hw_sectors;
	unsigned int max_dev_sectors;
	unsigned int chunk_sectors;
	unsigned int max_sectors;
	unsigned int max_user_sectors;
	unsigned int max_segment_size;
	unsigned int max_fast_segment_size; /* derived by validate */
	unsigned int physical_block_size;
	unsigned int logical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_write_zeroes_sectors;
	unsigned int zone_write_granularity;
	unsigned int atomic_write_max_sectors;
	unsigned int atomic_write_boundary_sectors;
	unsigned short max_segments;
	unsigned int dma_alignment; /* a mask, default 511 */
};

/* Everything zero: "not set", as a driver hands limits to
 * blk_validate_limits. */
void bb_limits_clear(struct bb_queue_limits *lim);

/* blk_validate_limits: fill defaults for unset fields and check the
 * rules (max_hw_sectors >= 1 page and rounded to LBS; max_sectors from
 * hw/dev/user/io_opt/cap; seg_boundary_mask >= 4095; max_segment_size
 * >= 4096 and its default; max_fast_segment_size; dma_alignment <=
 * PAGE_SIZE as in the kernel; the logical block size a power of two in
 * 512..64K, the physical one a power of two of any size, raised to the
 * logical one when below it).
 * Returns 0 or -EINVAL; *why (if non-NULL) names the offending field
 * first, e.g. "max_segment_size must be >= 4096"; NULL on success. */
int bb_limits_validate(struct bb_queue_limits *lim, const char **why);

/* Defaults of a device with no special limits (clear + validate). */
void bb_limits_default(struct bb_queue_limits *lim);

/* Read /sys/dev/block/MAJ:MIN/queue/{max_sectors_kb,max_hw_sectors_kb,
 * max_segments,max_segment_size,chunk_sectors,logical_block_size,
 * physical_block_size,virt_boundary_mask,dma_alignment,minimum_io_size,
 * optimal_io_size,zone_write_granularity,write_zeroes_max_bytes,
 * atomic_write_max_bytes,atomic_write_boundary_bytes} for the block device
 * at dev_path (a partition reads its disk's queue), then validate.  The
 * first six are required, the others read as 0 when absent.  The device's
 * max_sectors_kb is carried as max_user_sectors (so validate reproduces
 * it).  Returns 0 or -errno: -ENOTBLK for a path that is not a block
 * device, -ENOENT for a missing file, -EINVAL for a bad value, -ERANGE
 * for max_segments above 65535. */
int bb_limits_read_sysfs(const char *dev_path, struct bb_queue_limits *lim);

/* The same for device number maj:min with sysfs mounted at sysfs_root
 * ("/sys"; tests pass a fake tree). */
int bb_limits_read_sysfs_dev(const char *sysfs_root, unsigned int maj,
			     unsigned int min, struct bb_queue_limits *lim);

/* Print the limits as "name=value" pairs on one line. */
void bb_limits_fprint(FILE *f, const struct bb_queue_limits *lim);

/* The most pieces one I/O of bs bytes can be cut into under lim (for
 * sizing the split bioset): bs over the smallest piece the limits allow,
 * plus one for an alignment cut. */
unsigned bb_limits_max_pieces(uint32_t bs, const struct bb_queue_limits *lim);

#endif
