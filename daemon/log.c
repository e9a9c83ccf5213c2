// SPDX-License-Identifier: GPL-2.0-only
/* log.c - see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t bb_utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char c;
	size_t n;
	uint32_t v;

	if (!len)
		return 0;
	c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 1;
		v = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 2;
		v = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 3;
		v = c & 0x07;
	} else {
		return 0;
	}
	if (len <= n)
		return 0;
	for (size_t k = 1; k <= n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		v = (v << 6) | (s[k] & 0x3f);
	}
	if ((n == 2 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (n == 3 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	*cp = v;
	return n + 1;
}

size_t bb_log_escape(char *out, size_t outlen, const char *in)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0, left = strlen(in);

	if (!outlen)
		return 0;
	while (*s) {
		char esc[16];
		const char *put = esc;
		size_t n = 0, adv = 1;
		uint32_t cp = 0;

		if (*s == '\\') {
			put = "\\\\";
			n = 2;
		} else if (*s == '\n' || *s == '\r' || *s == '\t' ||
			   *s == 0x1b) {
			esc[0] = '\\';
			esc[1] = *s == '\n' ? 'n' : *s == '\r' ? 'r' :
				 *s == '\t' ? 't' : 'e';
			n = 2;
		} else if (*s < 0x20 || *s == 0x7f ||
			   (*s == '<' && s == (const unsigned char *)in)) {
			esc[0] = '\\';
			esc[1] = 'x';
			esc[2] = hex[*s >> 4];
			esc[3] = hex[*s & 15];
			n = 4;
		} else if (*s < 0x80) {
			esc[0] = (char)*s;
			n = 1;
		} else if ((adv = bb_utf8_seq(s, left, &cp)) && cp > 0x9f) {
			put = (const char *)s;
			n = adv;
		} else {
			/* a C1 control (its UTF-8 bytes) or a byte that is
			 * not UTF-8: every byte as \xNN */
			if (!adv)
				adv = 1;
			for (size_t k = 0; k < adv; k++) {
				esc[n++] = '\\';
				esc[n++] = 'x';
				esc[n++] = hex[s[k] >> 4];
				esc[n++] = hex[s[k] & 15];
			}
		}
		if (o + n >= outlen)
			break;
		memcpy(out + o, put, n);
		o += n;
		s += adv;
		left -= adv;
	}
	out[o] = '\0';
	return o;
}

void bb_log(int prio, const char *fmt, ...)
{
	char line[1024], safe[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	bb_log_escape(safe, sizeof(safe), line);
	/* one write per line, so that lines of threads do not interleave */
	fprintf(stderr, "<%d>%s\n", prio & LOG_PRIMASK, safe);
}
