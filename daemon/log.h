/* SPDX-License-Identifier: GPL-2.0-only */
/* log.h - biobenchd's log: one line per message on stderr, prefixed with
 * its syslog priority ("<3>" error, "<4>" warning, "<6>" info, "<7>"
 * debug) so that journald files each line at the right level.
 *
 * Every message is escaped before it is written (bb_log_escape), whatever
 * it quotes (job names, targets, request paths, library messages): a
 * string from a client cannot start a second record (newline plus
 * "<0>..."), move the cursor or retitle a terminal. */
#ifndef BB_LOG_H
#define BB_LOG_H

#include <stddef.h>
#include <stdint.h>
#include <syslog.h>

void bb_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Copy in to out (NUL-terminated, cut to outlen - 1 bytes on a whole
 * escape) with every byte that could act on a terminal or a log parser
 * written as text: C0 controls, DEL and the C1 controls (U+0080..U+009F,
 * and bytes that are not well-formed UTF-8) as \xNN (\n, \r, \t, \e as
 * such), a backslash as \\, and a "<" that starts the text as \x3c (a
 * priority prefix of its own).  Well-formed UTF-8 above U+009F is kept.
 * Returns the length written. */
size_t bb_log_escape(char *out, size_t outlen, const char *in);

/* Length (1..4) of the well-formed UTF-8 sequence that starts s (len
 * bytes available), with its code point in *cp; 0 when it is not one
 * (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF,
 * no truncated sequence). */
size_t bb_utf8_seq(const unsigned char *s, size_t len, uint32_t *cp);

#endif
