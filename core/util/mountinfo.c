// SPDX-License-Identifier: GPL-2.0-only
/* mountinfo.c - the one parser of /proc/self/mountinfo. */
#include "util/mountinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

/* Copy the space-delimited field at *p into out (len bytes), decoding the
 * kernel's \ooo escapes; *p moves past the field and its space. */
static void take_field(char **p, char *out, size_t len)
{
	char *s = *p;
	size_t n = 0;

	while (*s && *s != ' ' && *s != '\n') {
		int c = (unsigned char)*s++;

		if (c == '\\' && s[0] >= '0' && s[0] <= '3' && s[1] >= '0' &&
		    s[1] <= '7' && s[2] >= '0' && s[2] <= '7') {
			c = (s[0] - '0') * 64 + (s[1] - '0') * 8 + (s[2] - '0');
			s += 3;
		}
		if (n + 1 < len)
			out[n++] = (char)c;
	}
	if (len)
		out[n] = '\0';
	while (*s == ' ')
		s++;
	*p = s;
}

static int parse_line(char *line, struct bb_mount *m)
{
	char skip[32], majmin[32], *p = line, *sep;
	unsigned ma, mi;

	take_field(&p, skip, sizeof(skip));     /* mount id */
	take_field(&p, skip, sizeof(skip));     /* parent id */
	take_field(&p, majmin, sizeof(majmin));
	if (sscanf(majmin, "%u:%u", &ma, &mi) != 2)
		return -EINVAL;
	m->dev = makedev(ma, mi);
	take_field(&p, m->root, sizeof(m->root));
	take_field(&p, m->point, sizeof(m->point));
	sep = strstr(p, " - ");
	if (!sep)
		return -EINVAL;
	p = sep + 3;
	take_field(&p, m->fstype, sizeof(m->fstype));
	take_field(&p, m->source, sizeof(m->source));
	return 0;
}

int bb_mountinfo_each(int (*fn)(const struct bb_mount *m, void *arg),
		      void *arg)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct bb_mount *m;
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return -errno;
	m = malloc(sizeof(*m));
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while (!ret && getline(&line, &cap, f) > 0) {
		if (parse_line(line, m))
			continue;
		ret = fn(m, arg);
	}
	free(line);
	free(m);
	fclose(f);
	return ret;
}

struct find_dev {
	dev_t dev;
	struct bb_mount *out;
};

static int match_dev(const struct bb_mount *m, void *arg)
{
	struct find_dev *fd = arg;

	if (m->dev != fd->dev)
		return 0;
	*fd->out = *m;
	return 1;
}

int bb_mountinfo_find_dev(dev_t dev, struct bb_mount *m)
{
	struct find_dev fd = { .dev = dev, .out = m };

	return bb_mountinfo_each(match_dev, &fd);
}
