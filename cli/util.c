// SPDX-License-Identifier: GPL-2.0-only
/* util.c - small helpers of the CLI: reading a job file, JSON access. */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int bb_cli_read_file(const char *path, size_t max, char **buf, size_t *len,
		     char *err, size_t errlen)
{
	bool is_stdin = !strcmp(path, "-");
	const char *name = is_stdin ? "standard input" : path;
	size_t cap = 4096, n = 0;
	char *b = NULL;
	int fd, ret = 0;

	*buf = NULL;
	*len = 0;
	fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot open %s: %s", name,
			 strerror(errno));
		return ret;
	}
	b = malloc(cap);
	if (!b) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t r;

		if (n + 1 >= cap) {
			char *nb;

			if (cap > max) {
				ret = -EFBIG;
				snprintf(err, errlen,
					 "%s is larger than %zu bytes", name,
					 max);
				goto out;
			}
			nb = realloc(b, cap * 2);
			if (!nb) {
				ret = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			b = nb;
			cap *= 2;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			snprintf(err, errlen, "cannot read %s: %s", name,
				 strerror(errno));
			goto out;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (n > max) {
		ret = -EFBIG;
		snprintf(err, errlen, "%s is larger than %zu bytes", name, max);
		goto out;
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	b = NULL;
out:
	free(b);
	if (!is_stdin)
		close(fd);
	return ret;
}

struct json_object *bb_cli_jget(struct json_object *o, const char *path)
{
	char key[128];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key) || !json_object_is_type(o, json_type_object))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path += n + (dot ? 1 : 0);
	}
	return o;
}

const char *bb_cli_jstr(struct json_object *o, const char *path,
			const char *dflt)
{
	struct json_object *v = bb_cli_jget(o, path);

	return v ? json_object_get_string(v) : dflt;
}

double bb_cli_jnum(struct json_object *o, const char *path, double dflt)
{
	struct json_object *v = bb_cli_jget(o, path);

	if (!v || !(json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double)))
		return dflt;
	return json_object_get_double(v);
}

void bb_cli_print_json(FILE *f, struct json_object *doc)
{
	bb_cli_fputs_json(f, json_object_to_json_string_ext(
				     doc, JSON_C_TO_STRING_PRETTY |
						  JSON_C_TO_STRING_NOSLASHESCAPE));
	fputc('\n', f);
}
