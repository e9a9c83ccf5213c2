/* SPDX-License-Identifier: GPL-2.0-only */
/* sysknob.h - kernel block queue knobs of a target (sysfs): where they
 * live, reading and writing them.  The daemon journals a knob in its
 * store before it writes it, and restores it after the run (also after a
 * crash); the CLI restores in-process. */
#ifndef BB_SYSKNOB_H
#define BB_SYSKNOB_H

#include <biobench/config.h>

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Whether name is a valid knob name: [a-z0-9_]{1,63}. */
int bb_sysknob_name_ok(const char *name);

/* The queue directory of a target: a block device (its st_rdev) or a
 * regular file / directory (the block device of its filesystem, st_dev;
 * for a file that does not exist yet, which a run will create, the
 * filesystem of its directory), the whole disk when that is a partition:
 *   /sys/dev/block/MAJ:MIN/queue   (realpath'ed: /sys/devices/.../queue)
 * -ENODEV with a message for "nop", a missing path, or a filesystem that
 * is not on a block device (tmpfs: "…/x is on tmpfs (no block device)"). */
int bb_sysknob_queue_dir(const char *target, char *dir, size_t len,
			 char *err, size_t errlen);

/* Full path of knob in dir; -EINVAL for a bad name, -ENOENT (message
 * naming the file) when the device has no such knob. */
int bb_sysknob_path(const char *dir, const char *knob, char *path,
		    size_t len, char *err, size_t errlen);

/* Current value of a knob file, trailing newline removed; for a
 * "[selected] other" list (scheduler) the selected word alone.
 * 0 or -errno with a message. */
int bb_sysknob_read(const char *path, char *val, size_t len, char *err,
		    size_t errlen);

/* Write value (a newline is added) and read it back: -EINVAL with a
 * message when the kernel refused it or it reads back differently (a
 * number is compared as a number).  0 or -errno with a message. */
int bb_sysknob_write(const char *path, const char *value, char *err,
		     size_t errlen);

/* Whether a knob is dangerous on a disk in use: write_cache (write back
 * to write through and back, or a lying "write back" that loses data at
 * power loss) and scheduler (the I/O of every filesystem on the disk). */
bool bb_sysknob_dangerous(const char *knob);

/* Whether the disk of a queue directory holds a mounted filesystem: a
 * mount on it, on one of its partitions, or on a device stacked on them
 * (device-mapper, md: sysfs "slaves").  1 (where names the first, e.g.
 * "/ (/dev/vda1)"), 0 none, -errno. */
int bb_sysknob_disk_mounted(const char *queue_dir, char *where, size_t len);

/* ---- one set of knobs applied for a run, restored after it ----------- */

#define BB_SYSKNOB_SET_MAX 16

/* A knob to set: queue attribute and the value to write. */
struct bb_sysfs_knob {
	char name[64];   /* queue attribute, e.g. "nomerges" */
	char value[128]; /* as written (numbers converted to text) */
};

/* A knob of the set: where it is and what it was. */
struct bb_sysknob_applied {
	char knob[64];
	char path[512];
	char original[128];
	int64_t journal_id;   /* the hooks' own (the daemon's journal row) */
};

/* The knobs applied to one queue directory and not yet restored. */
struct bb_sysknob_set {
	char queue_dir[512];  /* bb_sysknob_queue_dir of the target */
	unsigned n;
	struct bb_sysknob_applied k[BB_SYSKNOB_SET_MAX];
};

/* What a user of the set adds (the daemon: its journal; the CLI: none or
 * messages).  Every hook may be NULL. */
#define BB_SYSKNOB_UNCHANGED 1

struct bb_sysknob_hooks {
	/* Before the knob is written (path and original read): non-zero
	 * aborts the apply with the message in err, the knob not written
	 * and not in the set. */
	int (*before_write)(void *arg, struct bb_sysknob_applied *k,
			    const char *value, char *err, size_t errlen);
	/* After the value was written and read back. */
	void (*after_write)(void *arg, const struct bb_sysknob_applied *k);
	/* After the original was written back (ret 0), found in place
	 * already (ret BB_SYSKNOB_UNCHANGED: the run set the value the
	 * device had; nothing written), or could not be written back (ret
	 * -errno, msg why). */
	void (*after_restore)(void *arg, const struct bb_sysknob_applied *k,
			      int ret, const char *msg);
};

/* Write the n knobs (in order) under s->queue_dir, each after reading
 * its original and calling before_write; a knob counts as applied from
 * before its write on (a failed or partial write is restored too).
 * 0, or the first -errno with the message (the knobs applied so far stay
 * in the set: restore them). */
int bb_sysknob_apply_set(struct bb_sysknob_set *s,
			 const struct bb_sysfs_knob *knobs, unsigned n,
			 const struct bb_sysknob_hooks *h, void *arg,
			 char *err, size_t errlen);

/* Write back every knob of the set, newest first (so the oldest original
 * is the one left when a knob appears twice), calling after_restore for
 * each; the set is empty afterwards.  0, or the first error (every knob
 * is still tried) with "cannot restore sysfs KNOB: why" in err. */
int bb_sysknob_restore_set(struct bb_sysknob_set *s,
			   const struct bb_sysknob_hooks *h, void *arg,
			   char *err, size_t errlen);

/* ---- which device ------------------------------------------------------- */

/* The identity of the device whose queue a knob belongs to, journaled
 * with the knob so that it is restored onto that device only: its dev_t
 * (the whole disk), its sysfs name, and what tells a reused name apart:
 * for a loop device its backing file and that file's inode
 * ("loop:/path/img:dev=MAJ:MIN:ino=N"), else the device's WWID or serial
 * from sysfs ("wwid:..." / "serial:...") when it has one, else "". */
struct bb_sysknob_dev {
	unsigned major, minor;
	char name[64];
	char ident[PATH_MAX + 96];
};

/* The identity of the device of a queue directory ("/sys/devices/.../
 * loop5/queue").  0 or -errno with a message. */
int bb_sysknob_dev_of_queue(const char *queue_dir, struct bb_sysknob_dev *d,
			    char *err, size_t errlen);

/* Whether d names the device present now (same dev_t, same identity;
 * an identity of "" matches only a device that has none either).  1
 * yes, 0 no (why says what differs), -errno when d's device is gone. */
int bb_sysknob_dev_same(const struct bb_sysknob_dev *d, char *why,
			size_t len);

/* ---- one user of a device at a time ------------------------------------- */

#define BB_DEVLOCK_DIR "/run/biobench"

/* An advisory lock (flock) on BB_DEVLOCK_DIR/dev-MAJ:MIN.lock, one per
 * block device (the whole disk: the queue its knobs belong to), taken by
 * biobenchd for a job and by `biobench run`/`ab` for theirs, so that two
 * of them never run on one device or change its knobs at once.  The file
 * holds its holder: "pid N\nprogram P\nwhat W\nsince ISO-TIME\n".
 * $BIOBENCH_LOCK_DIR (an absolute path) replaces BB_DEVLOCK_DIR: a test
 * suite's own locks, apart from the host's. */
struct bb_devlock {
	int fd;               /* -1: nothing held */
	char path[PATH_MAX];
};

/* Take the lock of target's device ("nop", or a file on a filesystem
 * without a block device: nothing to lock, 0 with fd -1).  program and
 * what name the holder ("biobenchd", "job 12 \"name\"").  A caller that
 * cannot create the lock directory or file (not root) only checks that
 * no one holds it.  0, or -EBUSY with "DEVICE is in use by pid N
 * (PROGRAM, WHAT) since T", or -errno with a message. */
int bb_devlock_take(struct bb_devlock *l, const char *target,
		    const char *program, const char *what, char *err,
		    size_t errlen);
/* The same for a device number (recovery of journaled knobs). */
int bb_devlock_take_dev(struct bb_devlock *l, unsigned major,
			unsigned minor, const char *program,
			const char *what, char *err, size_t errlen);
/* Release (the file stays: removing it would race with a new holder). */
void bb_devlock_release(struct bb_devlock *l);

/* The locks of every device of a target list (n paths one after the
 * other, each NUL-terminated, as struct bb_config's and struct bb_job's
 * target), each device once (two files on one filesystem, two partitions
 * of one disk share a lock).  Start from { 0 }; 0, or -ENOMEM, or the
 * first failure of bb_devlock_take with those already taken released.
 * bb_devlocks_release() releases and frees (harmless twice). */
struct bb_devlocks {
	struct bb_devlock *l; /* n of them, malloc'd */
	unsigned n;
};
int bb_devlocks_take(struct bb_devlocks *ls, const char *list, size_t len,
		     unsigned n, const char *program, const char *what,
		     char *err, size_t errlen);
void bb_devlocks_release(struct bb_devlocks *ls);

#endif
