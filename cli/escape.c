// SPDX-License-Identifier: GPL-2.0-only
/* escape.c - what the CLI prints from a server is made safe for a
 * terminal: control characters (C0, DEL, C1) and bytes that are not
 * UTF-8 are shown escaped, so that a job name cannot set the window
 * title, write the clipboard (OSC 52) or clear the screen; and names are
 * cut to a width on a character boundary. */
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s (1..4) and its code point, or 0
 * when s does not start a valid, shortest-form sequence. */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	size_t n, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
		c = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		c = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && c < 0x800) || (n == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f);
}

size_t bb_cli_esc(char *out, size_t len, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	size_t o = 0;

	if (!len)
		return 0;
	while (*p) {
		char tmp[8];
		const char *piece = tmp;
		size_t n, plen;
		uint32_t cp;

		n = utf8_seq(p, &cp);
		if (!n) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", *p);
			n = 1;
		} else if (cp == '\n') {
			piece = "\\n";
		} else if (cp == '\t') {
			piece = "\\t";
		} else if (cp == '\r') {
			piece = "\\r";
		} else if (cp < 0x20 || cp == 0x7f) {
			snprintf(tmp, sizeof(tmp), "\\x%02x", (unsigned)cp);
		} else if (is_control(cp)) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", (unsigned)cp);
		} else {
			memcpy(tmp, p, n);
			tmp[n] = '\0';
		}
		plen = strlen(piece);
		if (o + plen >= len)
			break; /* never half an escape or half a character */
		memcpy(out + o, piece, plen);
		o += plen;
		p += n;
	}
	out[o] = '\0';
	return o;
}

/* Characters (UTF-8 sequences; a stray byte counts as one) in s. */
static unsigned char_count(const unsigned char *s)
{
	unsigned n = 0;

	while (*s) {
		uint32_t cp;
		size_t k = utf8_seq(s, &cp);

		s += k ? k : 1;
		n++;
	}
	return n;
}

unsigned bb_cli_chars(const char *s)
{
	return char_count((const unsigned char *)(s ? s : ""));
}

void bb_cli_fit(char *out, size_t len, const char *s, unsigned width)
{
	static const char ellipsis[] = "\xe2\x80\xa6"; /* U+2026 */
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	unsigned keep = width, cols = 0;
	bool cut = char_count(p) > width;
	size_t o = 0;

	if (!len)
		return;
	if (cut)
		keep = width ? width - 1 : 0; /* the ellipsis takes one */
	while (*p && cols < keep) {
		uint32_t cp;
		size_t n = utf8_seq(p, &cp);

		if (!n)
			n = 1;
		if (o + n >= len)
			break;
		memcpy(out + o, p, n);
		o += n;
		p += n;
		cols++;
	}
	if (cut && width && o + sizeof(ellipsis) - 1 < len) {
		memcpy(out + o, ellipsis, sizeof(ellipsis) - 1);
		o += sizeof(ellipsis) - 1;
		cols++;
	}
	while (cols < width && o + 1 < len) {
		out[o++] = ' ';
		cols++;
	}
	out[o] = '\0';
}

/* s escaped, malloc'd (an escape is at most 4 bytes per byte). */
static char *esc_dup(const char *s)
{
	size_t n = 4 * strlen(s) + 1;
	char *out = malloc(n);

	if (out)
		bb_cli_esc(out, n, s);
	return out;
}

/* A copy of v with every string (and object key) escaped. */
static struct json_object *esc_copy(struct json_object *v)
{
	struct json_object *o;
	char *e;

	switch (json_object_get_type(v)) {
	case json_type_string:
		e = esc_dup(json_object_get_string(v));
		o = json_object_new_string(e ? e : "");
		free(e);
		return o;
	case json_type_object:
		o = json_object_new_object();
		json_object_object_foreach(v, k, m)
		{
			e = esc_dup(k);
			json_object_object_add(o, e ? e : "", m ? esc_copy(m) : NULL);
			free(e);
		}
		return o;
	case json_type_array: {
		size_t n = json_object_array_length(v);

		o = json_object_new_array_ext((int)n);
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(v, i);

			json_object_array_add(o, e ? esc_copy(e) : NULL);
		}
		return o;
	}
	default:
		return json_object_get(v);
	}
}

struct json_object *bb_cli_json_escaped(struct json_object *doc)
{
	return doc ? esc_copy(doc) : NULL;
}

/* JSON text as json-c writes it, with what it leaves raw escaped: DEL
 * and C1 controls as \u00XX, a byte that is not UTF-8 as \ufffd (JSON is
 * UTF-8: such a byte has no JSON form).  Outside strings JSON text is
 * ASCII, so the bytes replaced are in strings. */
void bb_cli_fputs_json(FILE *f, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (*p) {
		uint32_t cp;
		size_t n = utf8_seq(p, &cp);

		if (!n) {
			fputs("\\ufffd", f);
			p++;
		} else if (is_control(cp) && cp >= 0x20) {
			fprintf(f, "\\u%04x", (unsigned)cp);
			p += n;
		} else {
			fwrite(p, 1, n, f);
			p += n;
		}
	}
}
