/* SPDX-License-Identifier: GPL-2.0-only */
/* log.h - biobenchd's log: one line per message on stderr, prefixed with
 * its syslog priority ("<3>" error, "<4>" warning, "<6>" info, "<7>"
 * debug) so that journald files each line at the right level. */
#ifndef BB_LOG_H
#define BB_LOG_H

#include <syslog.h>

void bb_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
