/* SPDX-License-Identifier: GPL-2.0-only */
/* sysknob.h - kernel block queue knobs of a target (sysfs): where they
 * live, reading and writing them.  The daemon journals a knob in its
 * store before it writes it, and restores it after the run (also after a
 * crash); the CLI restores in-process. */
#ifndef BB_SYSKNOB_H
#define BB_SYSKNOB_H

#include <stddef.h>
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

#endif
