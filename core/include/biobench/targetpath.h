/* SPDX-License-Identifier: GPL-2.0-only */
/* targetpath.h - the one canonicaliser of target paths (core/io/pin.c),
 * shared by the run (which opens the canonical path without following any
 * symlink) and the daemon's allow-list (which judges it); and the write
 * check the daemon makes at submission (core/io/inuse.c). */
#ifndef BB_TARGETPATH_H
#define BB_TARGETPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The canonical form of a target path into out (outlen >= PATH_MAX):
 * realpath() when it exists; for a file that does not exist yet,
 * realpath() of its directory plus its name.  Refused (-errno, the reason
 * in why): an empty path, a trailing '/' (-EISDIR: a target is not a
 * directory), a dangling symlink (-ENOENT: "a symlink to a missing
 * file"), a name of "." or "..", a missing directory.  Relative paths are
 * resolved against the working directory (the daemon refuses them before
 * asking).  Nothing is opened. */
int bb_target_canonical(const char *target, char *out, size_t outlen,
			char *why, size_t whylen);

/* Whether a write job may write target, judged now, the way the run
 * judges it when it opens the target for writing: a block device that is
 * mounted, held, has a partition in use, or is aliased through loop
 * devices by one that is (the message says which); a regular file with
 * hard links or backing a loop device in use.  0 when it may (also for
 * nop, a path that does not exist yet, or another kind: judged at the
 * run), else -EBUSY / -EPERM with a one-line message naming the target.
 * Nothing is opened for writing. */
int bb_target_write_check(const char *target, char *err, size_t len);

/* The devices a target's I/O reaches, for telling whether two jobs share
 * one (the daemon's parallel jobs): a block device as its whole disk (a
 * partition counts as its disk), every device or backing file aliasing
 * it through loop devices (walked as bb_dev_check_unused walks them:
 * backing files and devices, other loops on the same inode, loops on top
 * of it), the devices a device-mapper or md device is made of (sysfs
 * slaves: an LVM volume reaches its disks), and for a file (or a loop device's backing file) the disk of
 * the filesystem holding it when the kernel lists that device (not for
 * tmpfs and other anonymous devices).  A file that does not exist yet
 * counts as its directory's filesystem; an NVMe generic character device
 * as itself only.  Names do not matter: /dev/disk/by-id/... and /dev/sda
 * are the same node. */
enum bb_fp_kind { BB_FP_BLOCK, BB_FP_FILE, BB_FP_CHAR };
#define BB_FP_MAX 64
struct bb_fp_node {
	enum bb_fp_kind kind;
	dev_t dev;     /* the whole disk; a file's st_dev; a char rdev */
	ino_t ino;     /* files only, else 0 */
};
struct bb_dev_footprint {
	unsigned n;
	bool overflow; /* more than BB_FP_MAX nodes: overlaps any device */
	struct bb_fp_node node[BB_FP_MAX];
};
/* Add target's devices to fp (zeroed by the caller; several targets
 * add up).  nop adds nothing.  0, or -errno with a message (a missing
 * target whose directory is missing too, a directory). */
int bb_target_footprint(const char *target, struct bb_dev_footprint *fp,
			char *err, size_t len);
/* Whether a and b share a node; which in why. */
bool bb_footprint_overlap(const struct bb_dev_footprint *a,
			  const struct bb_dev_footprint *b, char *why,
			  size_t len);

#endif
