// SPDX-License-Identifier: GPL-2.0-only
/* diskstats.c - the kernel's counters of the block device under a target
 * (/proc/diskstats) at the start and the end of the measured interval,
 * so that a run can show what reached the disk beside the model's own
 * requests.  Read twice per run, off the I/O path. */
#include "io/target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#define DISKSTATS "/proc/diskstats"

int bb_diskstats_parse(const char *text, dev_t dev, char *name,
		       size_t namelen, uint64_t v[4])
{
	const char *line = text;

	while (line && *line) {
		unsigned maj, min;
		unsigned long long rd, rdm, rds, rdt, wr, wrm, wrs;
		char nm[64];

		/* major minor name reads merged sectors ms writes merged
		 * sectors ... */
		if (sscanf(line, "%u %u %63s %llu %llu %llu %llu %llu %llu %llu",
			   &maj, &min, nm, &rd, &rdm, &rds, &rdt, &wr, &wrm,
			   &wrs) == 10 &&
		    maj == major(dev) && min == minor(dev)) {
			snprintf(name, namelen, "%s", nm);
			v[0] = rd;
			v[1] = rds;
			v[2] = wr;
			v[3] = wrs;
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return -ENOENT;
}

/* The counters of dev now; -errno when not found. */
static int read_dev(dev_t dev, char *name, size_t namelen, uint64_t v[4])
{
	char *text = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int ret;

	f = fopen(DISKSTATS, "re");
	if (!f)
		return -errno;
	/* the whole file: one line per device, a few KiB */
	n = getdelim(&text, &cap, '\0', f);
	fclose(f);
	ret = n > 0 ? bb_diskstats_parse(text, dev, name, namelen, v) : -EIO;
	free(text);
	return ret;
}

void bb_diskstats_mark(const struct bb_target *t, unsigned n,
		       struct bb_diskstats *d, bool end)
{
	uint64_t v[4];
	char name[sizeof(d->name)];

	if (!end) {
		memset(d, 0, sizeof(*d));
		if (!n || t->kind == BB_TARGET_NOP || !major(t->dev))
			return;
		/* one device: the counts of several would not say which */
		for (unsigned i = 1; i < n; i++)
			if (t[i].dev != t->dev)
				return;
		if (read_dev(t->dev, d->name, sizeof(d->name), v))
			return;
		d->reads = v[0];
		d->sectors_read = v[1];
		d->writes = v[2];
		d->sectors_written = v[3];
		return;
	}
	if (!d->name[0] || read_dev(t->dev, name, sizeof(name), v))
		return;
	d->reads = v[0] >= d->reads ? v[0] - d->reads : 0;
	d->sectors_read = v[1] >= d->sectors_read ? v[1] - d->sectors_read : 0;
	d->writes = v[2] >= d->writes ? v[2] - d->writes : 0;
	d->sectors_written = v[3] >= d->sectors_written ?
				     v[3] - d->sectors_written : 0;
	d->checked = true;
}
