/* SPDX-License-Identifier: GPL-2.0-only */
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
#include <biobench/stats.h>

#include <limits.h>
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

/* A target path pinned by bb_target_pin_open() (pin.c): its directory and
 * the object itself as O_PATH fds, opened without following any symlink.
 * The kinds check the object on these fds and reopen it with their flags
 * (bb_target_pin_reopen), or create it in the directory
 * (bb_target_pin_create). */
struct bb_target_pin {
	char path[PATH_MAX];    /* the canonical path */
	char name[NAME_MAX + 1];/* its last component */
	int dirfd;              /* O_PATH | O_DIRECTORY of its directory */
	int fd;                 /* O_PATH of the object; -1: does not exist
				   (after bb_target_pin_create: the created
				   file, open read-write) */
	struct stat st;         /* fstat of fd (when fd >= 0) */
	bool created;           /* bb_target_pin_create made it */
};

struct bb_target_ops {
	const char *name;           /* "nop", "file", "block", "nvme_char" */
	enum bb_target_kind kind;
	enum bb_sqe_kind sqe;
	/* Open the pinned target (NULL for nop; pin->fd < 0 when it does
	 * not exist): check it on pin's fds, reopen or create it, fill t
	 * (fd, dev, disk/part, limits, region) and call bb_target_finish()
	 * where the kind has a device.  0 or -errno with a one-line message
	 * in err; the caller closes t and the pin on failure. */
	int (*open)(struct bb_target *t, const struct bb_config *cfg,
		    struct bb_target_pin *pin, char *err, size_t errlen);
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

/* Open the target the config names, through bb_target_pin_open() (the
 * path canonicalized first unless cfg->no_symlinks says it already is;
 * then opened without following any symlink), its type checked on the
 * O_PATH fd before anything could block (a FIFO, socket, directory or
 * other char device is refused, naming the type): "nop"; with --engine uring_cmd an
 * NVMe generic char device /dev/ngXnY (its namespace identified, its
 * limits those of the namespace's block device with max_sectors at the
 * MDTS-derived max_hw_sectors; writes refused as for its block device);
 * a regular file (O_DIRECT if cfg->direct; opened read-only, with
 * O_NOATIME where allowed, for a read workload, which never creates,
 * extends or writes it: a file shorter than
 * offset + size is refused; a write workload creates or extends it to
 * offset + size only with allow_write, never on devtmpfs or under /dev,
 * after a free-space check, writing only the region; writes refused to a
 * file with hard links or backing a loop device in use); a block device
 * (O_DIRECT if cfg->direct; for writes: refused without allow_write, when
 * it or a device aliasing it (bb_dev_check_unused) is mounted or held, or
 * when O_EXCL fails, the message saying which).
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

/* Both checks a write to a regular file passes (st of the file): not
 * when it has hard links, nor when bb_file_check_unused refuses it. */
int bb_file_check_writable(const char *path, const struct stat *st,
			   char *err, size_t len);

/* --- /proc/diskstats (diskstats.c) -------------------------------------- */

/* At a phase change of the run: with end false, read the counters of the
 * block device under the run's targets t[0..n) (t->dev: the device
 * itself, or the one a file's filesystem is on) into d, not yet checked;
 * with end true, read them again and leave the difference, d->checked
 * when both reads found the device.  Nothing for nop, a filesystem
 * without a block device (tmpfs, btrfs's anonymous devices), or targets
 * on different devices. */
void bb_diskstats_mark(const struct bb_target *t, unsigned n,
		       struct bb_diskstats *d, bool end);

/* The counters of device dev from a /proc/diskstats text: 0 with name and
 * the four counts (reads, sectors read, writes, sectors written) filled,
 * or -ENOENT. */
int bb_diskstats_parse(const char *text, dev_t dev, char *name,
		       size_t namelen, uint64_t v[4]);

/* --- pinned paths (pin.c) ----------------------------------------------- */

void bb_target_pin_init(struct bb_target_pin *p);

/* Pin target: canonicalize it (bb_target_canonical) unless canonical
 * (then it must already be an absolute canonical path), open its
 * directory with openat2(RESOLVE_NO_SYMLINKS) and the name in it O_PATH |
 * O_NOFOLLOW; a symlink anywhere is refused (-ELOOP).  p->fd < 0 when the
 * object does not exist.  0 or -errno with a message; on failure nothing
 * stays open. */
int bb_target_pin_open(struct bb_target_pin *p, const char *target,
		       bool canonical, char *err, size_t errlen);

/* The pinned object opened with flags (through /proc/self/fd/N, checked to
 * be the same inode): an fd, or -errno (-ESTALE: not the same object). */
int bb_target_pin_reopen(const struct bb_target_pin *p, int flags);

/* Create the pinned name in the pinned directory: flags | O_CREAT | O_EXCL
 * | O_NOFOLLOW.  0 (p->fd the new file, p->created set) or -errno. */
int bb_target_pin_create(struct bb_target_pin *p, int flags, mode_t mode);

/* Remove the file bb_target_pin_create() made (if still at its name). */
void bb_target_pin_unlink_created(struct bb_target_pin *p);

void bb_target_pin_close(struct bb_target_pin *p);

/* Whether the block device dev (or the disk a partition belongs to) can
 * poll: reads queue/io_poll.  Fills why with a message naming the sysfs
 * file and the fix when it cannot. */
bool bb_dev_can_poll(dev_t dev, char *why, size_t len);

/* The NUMA node of an open target's device, as t/io_uring -P1 reads it:
 * /sys/block/<disk>/device/numa_node (else the device's parent's, e.g.
 * the PCI function of a virtio disk); -1 when unknown or for nop. */
int bb_target_numa_node(const struct bb_target *t);

/* Read the sysfs name of the disk and partition of dev. */
int bb_dev_names(dev_t dev, char *disk, size_t dlen, char *part,
		 size_t plen);

#endif
