/* target.h - what a run does I/O to: io_uring NOPs, a regular file, or a
 * block device (layout-independent). */
#ifndef BB_TARGET_H
#define BB_TARGET_H

#include <biobench/config.h>
#include <biobench/nvme.h>
#include <biobench/queue_limits.h>

#include <sys/types.h>

enum bb_target_kind {
	BB_TARGET_NOP = 0,
	BB_TARGET_FILE,
	BB_TARGET_BLOCK,
	BB_TARGET_NVME_CHAR,    /* NVMe generic char device, passthrough */
};

struct bb_target {
	enum bb_target_kind kind;
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
 * a regular file (created and
 * extended to cfg->size if asked; O_DIRECT if cfg->direct); a block device
 * (O_DIRECT if cfg->direct; for writes: refused without allow_write, when
 * mounted, when it has holders or a partition in use, or when O_EXCL fails,
 * the message saying which).  Limits: sysfs for block devices and files on
 * a block-backed filesystem when no synthetic limit is given, else the
 * synthetic limits of cfg (defaults filled), then validated.  Polled mode
 * is refused here when the device cannot poll.  Returns 0 or -errno with
 * a one-line message in err. */
int bb_target_open(struct bb_target *t, const struct bb_config *cfg,
		   char *err, size_t errlen);

void bb_target_close(struct bb_target *t);

/* Whether the block device dev (or the disk a partition belongs to) can
 * poll: reads queue/io_poll.  Fills why with a message naming the sysfs
 * file and the fix when it cannot. */
bool bb_dev_can_poll(dev_t dev, char *why, size_t len);

/* Read the sysfs name of the disk and partition of dev. */
int bb_dev_names(dev_t dev, char *disk, size_t dlen, char *part,
		 size_t plen);

#endif
