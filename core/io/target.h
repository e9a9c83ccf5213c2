/* target.h - what a run does I/O to (internal, layout-independent).
 *
 * One file per target kind under core/io/ (nop.c, file.c, blkdev.c,
 * nvme_char.c), each defining a struct bb_target_ops; target.c picks the
 * kind for a config and does what every kind shares (the region, the
 * alignment checks, the poll check).  Adding a kind is one file and one
 * line in target.c's choice.
 */
#ifndef BB_IO_TARGET_H
#define BB_IO_TARGET_H

#include <biobench/config.h>
#include <biobench/nvme.h>
#include <biobench/queue_limits.h>

#include <sys/stat.h>
#include <sys/types.h>

enum bb_target_kind {
	BB_TARGET_NOP = 0,
	BB_TARGET_FILE,
	BB_TARGET_BLOCK,
	BB_TARGET_NVME_CHAR,    /* NVMe generic char device, passthrough */
	BB_TARGET__COUNT
};

/* How the worker turns one bio into an SQE. */
enum bb_sqe_kind {
	BB_SQE_NOP = 0,   /* IORING_OP_NOP: no data moves, res 0 */
	BB_SQE_RW,        /* IORING_OP_READ/WRITE(_FIXED): res = bytes */
	BB_SQE_NVME_CMD,  /* IORING_OP_URING_CMD with an NVMe Read/Write
			     (SQE128|CQE32): res 0, > 0 an NVMe status */
};

struct bb_target;

struct bb_target_ops {
	const char *name;           /* "nop", "file", "block", "nvme_char" */
	enum bb_target_kind kind;
	enum bb_sqe_kind sqe;
	/* Open cfg->target (st: its stat, NULL when it does not exist),
	 * fill t (fd, dev, disk/part, limits, region) and call
	 * bb_target_finish() where the kind has a device.  0 or -errno with
	 * a one-line message in err; the caller closes t on failure. */
	int (*open)(struct bb_target *t, const struct bb_config *cfg,
		    const struct stat *st, char *err, size_t errlen);
};

extern const struct bb_target_ops bb_target_nop;
extern const struct bb_target_ops bb_target_file;
extern const struct bb_target_ops bb_target_blkdev;
extern const struct bb_target_ops bb_target_nvme_char;

struct bb_target {
	const struct bb_target_ops *ops;
	enum bb_target_kind kind;   /* ops->kind */
	char path[PATH_MAX];
	int fd;                 /* -1 for nop */
	uint64_t region_off;    /* bytes */
	uint64_t region_len;    /* bytes, multiple of bs */
	struct bb_queue_limits lim; /* effective limits (validated) */
	bool can_poll;
	char poll_why[320];     /* why not, naming the sysfs file and the fix */
	dev_t dev;              /* the block device (of the file's fs) */
	char disk[64];          /* sysfs name of the disk ("loop0", "vda") */
	char part[64];          /* sysfs name of the partition / device */
	/* NVMe namespaces (block or char): for passthrough commands and for
	 * counting the interrupts of the controllers' I/O queues */
	bool is_nvme;
	struct bb_nvme_ns nvme;
	unsigned lba_shift;     /* log2 of the LBA size (passthrough) */
};

const char *bb_target_kind_name(enum bb_target_kind k);

/* Open the target the config names: "nop"; with --engine uring_cmd an
 * NVMe generic char device /dev/ngXnY (its namespace identified, its
 * limits those of the namespace's block device with max_sectors at the
 * MDTS-derived max_hw_sectors; writes refused as for its block device);
 * a regular file (created and extended to cfg->size if asked; O_DIRECT if
 * cfg->direct); a block device (O_DIRECT if cfg->direct; for writes:
 * refused without allow_write, when mounted, when it has holders or a
 * partition in use, or when O_EXCL fails, the message saying which).
 * Limits: sysfs for block devices and files on a block-backed filesystem
 * when no synthetic limit is given, else the synthetic limits of cfg
 * (defaults filled), then validated.  Polled mode is refused here when the
 * device cannot poll.  Returns 0 or -errno with a one-line message in
 * err. */
int bb_target_open(struct bb_target *t, const struct bb_config *cfg,
		   char *err, size_t errlen);

void bb_target_close(struct bb_target *t);

/* --- shared by the kinds ------------------------------------------------ */

/* The user's synthetic limits of cfg on top of lim (from_device: lim holds
 * a device's sysfs limits; else it starts from defaults), validated. */
int bb_target_apply_limits(struct bb_queue_limits *lim,
			   const struct bb_config *cfg, bool from_device,
			   char *err, size_t errlen);

/* The region of a device or file of devsize bytes (cfg's offset and size,
 * in whole blocks, aligned to the logical block size), then NVMe identity
 * and the poll check (refused in polled mode when the device cannot
 * poll). */
int bb_target_finish(struct bb_target *t, const struct bb_config *cfg,
		     uint64_t devsize, char *err, size_t errlen);

/* Refuse writes to a device that is in use: mounted, held (dm, md,
 * bcache), or a partition of it mounted or held - it, or any device that
 * aliases its data: for a loop device its backing device (recursively:
 * a loop on a loop) and every other loop device on the same backing
 * inode; for any device the loop devices backed by it (or by its
 * partitions, or by the disk of a partition).  Loop devices are resolved
 * with LOOP_GET_STATUS64 (lo_device, lo_inode) and
 * /sys/block/loopN/loop/backing_file.  The message says which device and
 * how it is used (path names the target in it). */
int bb_dev_check_unused(const char *path, dev_t dev, char *err, size_t len);

/* The same for a regular file (st of the file): refused when it is the
 * backing file of a loop device in use (as above, recursively). */
int bb_file_check_unused(const char *path, const struct stat *st, char *err,
			 size_t len);

/* Whether the block device dev (or the disk a partition belongs to) can
 * poll: reads queue/io_poll.  Fills why with a message naming the sysfs
 * file and the fix when it cannot. */
bool bb_dev_can_poll(dev_t dev, char *why, size_t len);

/* Read the sysfs name of the disk and partition of dev. */
int bb_dev_names(dev_t dev, char *disk, size_t dlen, char *part,
		 size_t plen);

#endif
