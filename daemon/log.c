// SPDX-License-Identifier: GPL-2.0-only
/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>

void bb_log(int prio, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	/* one write per line, so that lines of threads do not interleave */
	fprintf(stderr, "<%d>%s\n", prio & LOG_PRIMASK, line);
}
