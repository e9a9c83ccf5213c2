// SPDX-License-Identifier: GPL-2.0-only
/* pin.c - how every target path is resolved and opened: one canonicaliser
 * and one pinned open, for the CLI and the daemon alike.
 *
 * bb_target_canonical() gives the canonical path of a target (realpath;
 * for a file that does not exist yet, realpath of its directory plus its
 * name).  The daemon's allow-list judges this path (dconfig.c, at
 * submission and again before each run).
 *
 * bb_target_pin_open() opens that path without following any symlink:
 * the directory with openat2(RESOLVE_NO_SYMLINKS), then the name inside it
 * with O_PATH | O_NOFOLLOW (RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH).  An
 * O_PATH fd opens nothing - a FIFO does not block, a device is not
 * touched - so the target kinds check the object on it (fstat: its type,
 * its device, its links) and then reopen exactly that object with their
 * flags through /proc/self/fd/N (bb_target_pin_reopen).  A new file is
 * created in the pinned directory with O_CREAT | O_EXCL | O_NOFOLLOW
 * (bb_target_pin_create): a symlink or file put there meanwhile makes it
 * fail, it never follows one.  There is no other way a target is opened.
 */
#include "io/target.h"

#include <biobench/targetpath.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int bb_target_canonical(const char *target, char *out, size_t outlen,
			char *why, size_t whylen)
{
	char tmp[PATH_MAX], dir[PATH_MAX], real[PATH_MAX];
	const char *d, *b;
	struct stat st;
	char *slash;
	size_t n = strlen(target);
	int e;

	if (!n)
		return bb_errf(why, whylen, -EINVAL, "the target is empty");
	if (n >= sizeof(tmp))
		return bb_errf(why, whylen, -ENAMETOOLONG,
			       "target %.64s...: path too long", target);
	if (n > 1 && target[n - 1] == '/')
		return bb_errf(why, whylen, -EISDIR,
			       "target %s ends with '/': a target is a file or "
			       "a device, not a directory", target);
	if (realpath(target, real)) {
		if (strlen(real) >= outlen)
			return bb_errf(why, whylen, -ENAMETOOLONG,
				       "target %s: path too long", target);
		memcpy(out, real, strlen(real) + 1);
		return 0;
	}
	e = errno;
	if (e != ENOENT)
		return bb_errf(why, whylen, -e, "target %s: cannot resolve: %s",
			       target, strerror(e));
	if (!lstat(target, &st))
		return bb_errf(why, whylen, -ENOENT,
			       "target %s is a symlink to a missing file", target);
	/* a file to be created: its directory, resolved, and its name */
	memcpy(tmp, target, n + 1);
	slash = strrchr(tmp, '/');
	if (!slash) {
		d = ".";
		b = tmp;
	} else if (slash == tmp) {
		d = "/";
		b = tmp + 1;
	} else {
		*slash = '\0';
		d = tmp;
		b = slash + 1;
	}
	if (!strcmp(b, ".") || !strcmp(b, ".."))
		return bb_errf(why, whylen, -ENOENT,
			       "target %s: cannot resolve: %s", target,
			       strerror(ENOENT));
	if (!realpath(d, dir)) {
		e = errno;
		return bb_errf(why, whylen, -e, "target %s: directory %s: %s",
			       target, d, strerror(e));
	}
	if ((size_t)snprintf(out, outlen, "%s/%s", strcmp(dir, "/") ? dir : "",
			     b) >= outlen)
		return bb_errf(why, whylen, -ENAMETOOLONG,
			       "target %s: path too long", target);
	return 0;
}

/* Whether path is absolute and canonical in form: no empty, "." or ".."
 * component, no trailing '/'. */
static bool canonical_form(const char *path)
{
	const char *p = path;

	if (p[0] != '/')
		return false;
	if (!p[1])
		return true;
	while (*p == '/') {
		const char *c = p + 1, *e = strchr(c, '/');
		size_t len = e ? (size_t)(e - c) : strlen(c);

		if (!len || (len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		if (!e)
			break;
		p = e;
	}
	return true;
}

static long openat2_nofollow(int dirfd, const char *path, int flags,
			     unsigned long long resolve)
{
	struct open_how how = { .flags = (unsigned long long)flags,
				.resolve = resolve | RESOLVE_NO_SYMLINKS };

	return syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
}

/* Before Linux 5.6 (no openat2): the directory walked one component at a
 * time, each opened O_NOFOLLOW. */
static int walk_nofollow(const char *dir)
{
	char buf[PATH_MAX], *save = NULL, *c;
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next;

	if (fd < 0)
		return -errno;
	snprintf(buf, sizeof(buf), "%s", dir);
	for (c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		next = openat(fd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW |
				     O_CLOEXEC);
		if (next < 0) {
			int e = errno;
			struct stat st;

			if (e == ENOTDIR && !fstatat(fd, c, &st,
						     AT_SYMLINK_NOFOLLOW) &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
			close(fd);
			return -e;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

void bb_target_pin_init(struct bb_target_pin *p)
{
	memset(p, 0, sizeof(*p));
	p->dirfd = -1;
	p->fd = -1;
}

int bb_target_pin_open(struct bb_target_pin *p, const char *target,
		       bool canonical, char *err, size_t errlen)
{
	char dir[PATH_MAX], *slash;
	long fd;
	int ret;

	bb_target_pin_init(p);
	if (canonical) {
		if (!canonical_form(target) || strlen(target) >= sizeof(p->path))
			return bb_errf(err, errlen, -EINVAL,
				       "target %s is not a canonical absolute "
				       "path", target);
		snprintf(p->path, sizeof(p->path), "%s", target);
	} else {
		ret = bb_target_canonical(target, p->path, sizeof(p->path), err,
					  errlen);
		if (ret)
			return ret;
	}
	snprintf(dir, sizeof(dir), "%s", p->path);
	slash = strrchr(dir, '/');
	if (!slash[1])
		return bb_errf(err, errlen, -EISDIR,
			       "%s is a directory: a target is nop, a regular "
			       "file or a block device", target);
	snprintf(p->name, sizeof(p->name), "%s", slash + 1);
	slash[slash == dir ? 1 : 0] = '\0';

	fd = openat2_nofollow(AT_FDCWD, dir, O_PATH | O_DIRECTORY | O_CLOEXEC,
			      0);
	if (fd < 0 && errno == ENOSYS) {
		fd = walk_nofollow(dir);
		if (fd < 0)
			errno = (int)-fd;
	}
	if (fd < 0) {
		ret = -errno;
		if (ret == -ELOOP || ret == -EXDEV)
			return bb_errf(err, errlen, -ELOOP,
				       "%s: a symlink is now in its path %s "
				       "(replaced since it was checked): "
				       "refused, targets are opened without "
				       "following symlinks", target, dir);
		return bb_errf(err, errlen, ret, "%s: directory %s: %s", target,
			       dir, strerror(-ret));
	}
	p->dirfd = (int)fd;
	fd = openat2_nofollow(p->dirfd, p->name,
			      O_PATH | O_NOFOLLOW | O_CLOEXEC,
			      RESOLVE_BENEATH);
	if (fd < 0 && errno == ENOSYS)
		fd = openat(p->dirfd, p->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		if (ret == -ENOENT)
			return 0; /* does not exist (yet): p->fd < 0 */
		bb_target_pin_close(p);
		return bb_errf(err, errlen, ret, "%s: %s", target,
			       strerror(-ret));
	}
	p->fd = (int)fd;
	if (fstat(p->fd, &p->st)) {
		ret = -errno;
		bb_target_pin_close(p);
		return bb_errf(err, errlen, ret, "%s: %s", target,
			       strerror(-ret));
	}
	if (S_ISLNK(p->st.st_mode)) {
		bb_target_pin_close(p);
		return bb_errf(err, errlen, -ELOOP,
			       "%s is now a symlink (replaced since it was "
			       "checked): refused, targets are opened without "
			       "following symlinks", target);
	}
	return 0;
}

int bb_target_pin_reopen(const struct bb_target_pin *p, int flags)
{
	char proc[32];
	struct stat st;
	int fd;

	if (p->fd < 0)
		return -ENOENT;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", p->fd);
	fd = open(proc, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_dev != p->st.st_dev ||
	    st.st_ino != p->st.st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int bb_target_pin_create(struct bb_target_pin *p, int flags, mode_t mode)
{
	int fd, ret;

	if (p->fd >= 0 || p->dirfd < 0)
		return -EEXIST;
	fd = openat(p->dirfd, p->name,
		    flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &p->st)) {
		ret = -errno;
		close(fd);
		unlinkat(p->dirfd, p->name, 0);
		return ret;
	}
	p->fd = fd;
	p->created = true;
	return 0;
}

void bb_target_pin_unlink_created(struct bb_target_pin *p)
{
	struct stat st;

	if (!p->created || p->dirfd < 0)
		return;
	/* only the file created here, if it is still at its name */
	if (!fstatat(p->dirfd, p->name, &st, AT_SYMLINK_NOFOLLOW) &&
	    st.st_dev == p->st.st_dev && st.st_ino == p->st.st_ino)
		unlinkat(p->dirfd, p->name, 0);
	p->created = false;
}

void bb_target_pin_close(struct bb_target_pin *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->dirfd >= 0)
		close(p->dirfd);
	p->fd = -1;
	p->dirfd = -1;
}
