// SPDX-License-Identifier: GPL-2.0-only
/* inuse.c - whether a block device is in use (mounted, held, or a
 * partition of it mounted or held): writes are refused there. */
#include "io/target.h"
#include "util/mountinfo.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Is dev mounted?  The mount point of its first mount in mnt. */
static bool dev_mounted(dev_t dev, char *mnt, size_t len)
{
	struct bb_mount *m = malloc(sizeof(*m));
	bool found;

	if (!m)
		return false;
	found = bb_mountinfo_find_dev(dev, m) > 0;
	if (found)
		snprintf(mnt, len, "%s", m->point);
	free(m);
	return found;
}

static int count_holders(const char *sysdir, char *first, size_t len)
{
	char path[PATH_MAX];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "%s/holders", sysdir);
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (!n)
			snprintf(first, len, "%s", de->d_name);
		n++;
	}
	closedir(d);
	return n;
}

int bb_dev_check_unused(const char *path, dev_t dev, char *err, size_t len)
{
	char sysdir[PATH_MAX], mnt[PATH_MAX], holder[256];
	DIR *d;
	struct dirent *de;

	if (dev_mounted(dev, mnt, sizeof(mnt)))
		return bb_errf(err, len, -EBUSY,
			       "refusing to write to %s: it is mounted on %s",
			       path, mnt);
	snprintf(sysdir, sizeof(sysdir), "/sys/dev/block/%u:%u", major(dev),
		 minor(dev));
	if (count_holders(sysdir, holder, sizeof(holder)))
		return bb_errf(err, len, -EBUSY,
			       "refusing to write to %s: it has holders (%s uses "
			       "it; see %s/holders)",
			       path, holder, sysdir);
	/* A whole disk: check its partitions. */
	d = opendir(sysdir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char pdir[PATH_MAX], pf[PATH_MAX], devstr[32];
		unsigned ma, mi;

		if (de->d_name[0] == '.')
			continue;
		snprintf(pf, sizeof(pf), "%s/%s/partition", sysdir,
			 de->d_name);
		if (access(pf, F_OK))
			continue;
		snprintf(pdir, sizeof(pdir), "%s/%s", sysdir, de->d_name);
		snprintf(pf, sizeof(pf), "%s/dev", pdir);
		if (bb_read_text(pf, devstr, sizeof(devstr)) ||
		    sscanf(devstr, "%u:%u", &ma, &mi) != 2)
			continue;
		if (dev_mounted(makedev(ma, mi), mnt, sizeof(mnt))) {
			closedir(d);
			return bb_errf(err, len, -EBUSY,
				       "refusing to write to %s: its partition "
				       "%s is mounted on %s",
				       path, de->d_name, mnt);
		}
		if (count_holders(pdir, holder, sizeof(holder))) {
			closedir(d);
			return bb_errf(err, len, -EBUSY,
				       "refusing to write to %s: its partition "
				       "%s is in use by %s",
				       path, de->d_name, holder);
		}
	}
	closedir(d);
	return 0;
}

