// SPDX-License-Identifier: GPL-2.0-only
/* route_static.c - the dashboard: GET of any path not under /api/ serves a
 * file under web_root ("/" -> index.html); "/javascript/..." serves
 * Debian's packaged libraries (/usr/share/javascript, libjs-*).  A file
 * must resolve (realpath, so symlinks included) inside its root.  The
 * checked file is opened (O_NOFOLLOW), must be a regular file (fstat of
 * that fd), and is sent from the fd: a slow or stalled client costs a
 * file descriptor, not a copy of the file in memory. */
#include "routes.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BB_JS_ROOT "/usr/share/javascript"
#define BB_JS_PREFIX "/javascript/"

static const struct {
	const char *ext, *type;
} bb_static_types[] = {
	{ ".html", "text/html; charset=utf-8" },
	{ ".htm", "text/html; charset=utf-8" },
	{ ".js", "text/javascript; charset=utf-8" },
	{ ".mjs", "text/javascript; charset=utf-8" },
	{ ".css", "text/css; charset=utf-8" },
	{ ".svg", "image/svg+xml" },
	{ ".png", "image/png" },
	{ ".json", "application/json" },
	{ ".map", "application/json" },
	{ ".ico", "image/x-icon" },
	{ ".txt", "text/plain; charset=utf-8" },
};

static const char *bb_static_type(const char *path, bool *html)
{
	size_t n = strlen(path);

	*html = false;
	for (size_t i = 0; i < bb_array_size(bb_static_types); i++) {
		size_t e = strlen(bb_static_types[i].ext);

		if (n > e && !strcmp(path + n - e, bb_static_types[i].ext)) {
			*html = i < 2;
			return bb_static_types[i].type;
		}
	}
	return "application/octet-stream";
}

/* Whether real lies inside root (both canonical). */
static bool bb_static_inside(const char *root, const char *real)
{
	size_t n = strlen(root);

	if (n == 1 && root[0] == '/')
		return real[0] == '/';
	return !strncmp(real, root, n) && (real[n] == '/' || !real[n]);
}

/* Open the file at path (resolved, inside the root) for serving: a
 * regular file, its fd and size.  0 or -errno. */
static int bb_static_open(const char *path, int *fdp, uint64_t *size)
{
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK |
			O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -ENOENT;
	}
	*fdp = fd;
	*size = (uint64_t)st.st_size;
	return 0;
}

void bb_route_static_file(const char *root, const char *path,
			  struct bb_http_response *rs)
{
	char rroot[PATH_MAX], cand[PATH_MAX + 16], real[PATH_MAX];
	const char *type;
	uint64_t size = 0;
	bool html;
	struct stat st;
	int ret, fd = -1;

	if (path[0] != '/' || strstr(path, "..") || strchr(path, '\\') ||
	    strstr(path, "//")) {
		bb_http_error(rs, 403, "forbidden", NULL,
			      "path refused: no '..', '\\\\' or '//' in "
			      "static paths");
		return;
	}
	for (const char *p = path; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f) {
			bb_http_error(rs, 403, "forbidden", NULL,
				      "path refused: control characters");
			return;
		}
	}
	if (!realpath(root, rroot)) {
		bb_http_error(rs, 404, "not_found", NULL,
			      "no such file: %s (web root missing)", path);
		return;
	}
	if (snprintf(cand, sizeof(cand), "%s%s%s", rroot, path,
		     path[strlen(path) - 1] == '/' ? "index.html" : "") >=
	    (int)sizeof(cand)) {
		bb_http_error(rs, 404, "not_found", NULL, "path too long");
		return;
	}
	for (int pass = 0;; pass++) {
		if (!realpath(cand, real)) {
			if (errno == EACCES)
				bb_http_error(rs, 403, "forbidden", NULL,
					      "permission denied: %s", path);
			else
				bb_http_error(rs, 404, "not_found", NULL,
					      "no such file: %s", path);
			return;
		}
		if (!bb_static_inside(rroot, real)) {
			bb_http_error(rs, 403, "forbidden", NULL,
				      "%s resolves outside the web root",
				      path);
			return;
		}
		if (stat(real, &st)) {
			bb_http_error(rs, 404, "not_found", NULL,
				      "no such file: %s", path);
			return;
		}
		if (!S_ISDIR(st.st_mode) || pass)
			break;
		snprintf(cand, sizeof(cand), "%s/index.html", real);
	}
	ret = bb_static_open(real, &fd, &size);
	if (ret == -EACCES || ret == -ELOOP) {
		bb_http_error(rs, 403, "forbidden", NULL,
			      "permission denied: %s", path);
		return;
	}
	if (ret == -EMFILE || ret == -ENFILE) {
		bb_http_error(rs, 503, "unavailable", NULL,
			      "%s: too many open files, try again", path);
		return;
	}
	if (ret) {
		bb_http_error(rs, 404, "not_found", NULL, "no such file: %s",
			      path);
		return;
	}
	type = bb_static_type(real, &html);
	rs->status = 200;
	rs->content_type = type;
	rs->cache_control = html ? "no-cache" : "max-age=300";
	rs->has_fd = true;
	rs->fd = fd;
	rs->fd_len = size;
}

void bb_route_static(const struct bb_route_req *r,
		     struct bb_http_response *rs)
{
	const char *path = r->rq->path;

	if (!strncmp(path, BB_JS_PREFIX, strlen(BB_JS_PREFIX)))
		bb_route_static_file(BB_JS_ROOT,
				     path + strlen(BB_JS_PREFIX) - 1, rs);
	else
		bb_route_static_file(r->cfg->web_root, path, rs);
}
