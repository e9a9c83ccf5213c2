/* SPDX-License-Identifier: GPL-2.0-only */
/* mountinfo.h - the one parser of /proc/self/mountinfo (internal).
 *
 * A line is "id parent MAJ:MIN root mount-point options [optional...] -
 * fstype source super-options"; paths are octal-escaped by the kernel
 * (\040 for a space), decoded here. */
#ifndef BB_UTIL_MOUNTINFO_H
#define BB_UTIL_MOUNTINFO_H

#include <limits.h>
#include <sys/types.h>

struct bb_mount {
	dev_t dev;              /* st_dev of files on it (MAJ:MIN) */
	char root[PATH_MAX];    /* the mounted subtree of the filesystem */
	char point[PATH_MAX];   /* where it is mounted */
	char fstype[64];
	char source[PATH_MAX];  /* e.g. /dev/vda1, tmpfs */
};

/* Call fn for every mount of this process's namespace, in file order,
 * until fn returns non-zero.  Returns fn's non-zero value, 0 when every
 * mount was seen, or -errno when the file cannot be read. */
int bb_mountinfo_each(int (*fn)(const struct bb_mount *m, void *arg),
		      void *arg);

/* The first mount whose device is dev, into m: 1 found, 0 none, -errno. */
int bb_mountinfo_find_dev(dev_t dev, struct bb_mount *m);

#endif
