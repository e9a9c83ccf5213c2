// SPDX-License-Identifier: GPL-2.0-only
/* common.c - names of the shared enums, the clock, the error helper,
 * formatting, the nearest name of a typo, reading small files. */
#include <biobench/common.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const cache_names[BB_CACHE__COUNT] = {
	"off", "task", "irq", "irq_fast", "all", "all_split",
};
static const char *const split_names[BB_SPLIT_CHECK__COUNT] = {
	"vcnt", "iter",
};
static const char *const layout_names[BB_LAYOUT__COUNT] = {
	"vec_late", "vec_early",
};

const char *bb_cache_variant_name(enum bb_cache_variant v)
{
	return (unsigned)v < BB_CACHE__COUNT ? cache_names[v] : "?";
}

const char *bb_split_check_name(enum bb_split_check v)
{
	return (unsigned)v < BB_SPLIT_CHECK__COUNT ? split_names[v] : "?";
}

const char *bb_layout_name(enum bb_layout v)
{
	return (unsigned)v < BB_LAYOUT__COUNT ? layout_names[v] : "?";
}

const char *bb_version(void)
{
	return BB_VERSION_STRING;
}

uint64_t bb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int bb_read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char *p;
	int fd, ret = 0;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		ret = -errno;
		n = 0;
	}
	close(fd);
	buf[n] = '\0';
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	p = buf;
	while (isspace((unsigned char)*p))
		p++;
	if (p != buf)
		memmove(buf, p, strlen(p) + 1);
	return ret;
}

int bb_errf(char *err, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && len) {
		va_start(ap, fmt);
		vsnprintf(err, len, fmt, ap);
		va_end(ap);
	}
	return ret;
}

const char *bb_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB", "PiB",
					    "EiB" };
	double v = (double)bytes;
	unsigned i = 0;

	if (bytes < 1024) {
		snprintf(buf, len, "%llu bytes", (unsigned long long)bytes);
		return buf;
	}
	v /= 1024;
	while (v >= 1024 && i + 1 < sizeof(unit) / sizeof(unit[0])) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s", v, unit[i]);
	return buf;
}

const char *bb_fmt_iops(char *buf, size_t len, double v)
{
	double a = fabs(v);

	/* the thresholds are where the rounding would carry into the
	 * next unit ("1000.0K" is "1.00M") */
	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a < 999.5)
		snprintf(buf, len, "%.0f", v);
	else if (a < 999950.0)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else if (a < 999995000.0)
		snprintf(buf, len, "%.2fM", v / 1e6);
	else
		snprintf(buf, len, "%.2fG", v / 1e9);
	return buf;
}

#define NEAREST_MAX 64 /* longer names are not compared */

static char nearest_fold(char c)
{
	return c == '-' ? '_' : (char)tolower((unsigned char)c);
}

/* Optimal string alignment distance of a and b (folded). */
static unsigned nearest_dist(const char *a, size_t la, const char *b,
			     size_t lb)
{
	unsigned d[NEAREST_MAX + 1][NEAREST_MAX + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			unsigned cost = nearest_fold(a[i - 1]) !=
					nearest_fold(b[j - 1]);
			unsigned v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 &&
			    nearest_fold(a[i - 1]) == nearest_fold(b[j - 2]) &&
			    nearest_fold(a[i - 2]) == nearest_fold(b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

void bb_nearest_init(struct bb_nearest *n, const char *word)
{
	size_t len = word ? strlen(word) : 0;

	n->word = word;
	n->best = NULL;
	/* the most edits a typo of word may have, plus one */
	n->dist = len <= 4 ? 2 : len <= 8 ? 3 : 4;
	if (!len || len > NEAREST_MAX)
		n->dist = 0;
}

void bb_nearest_add(struct bb_nearest *n, const char *cand)
{
	size_t la, lb;
	unsigned d;

	if (!n->dist || !cand)
		return;
	la = strlen(n->word);
	lb = strlen(cand);
	if (!lb || lb > NEAREST_MAX ||
	    (la > lb ? la - lb : lb - la) >= n->dist)
		return;
	/* 0: the same name but for case or '-' / '_' */
	d = nearest_dist(n->word, la, cand, lb);
	if (d < n->dist) {
		n->best = cand;
		n->dist = d;
	}
}
