/* SPDX-License-Identifier: GPL-2.0-only */
/* helpers.h - what the unit tests share: where the source tree is, and a
 * loop device fixture for the tests that need a real block device
 * (test_hostinfo, test_sysknob, test_scheduler).
 *
 * bb_test_src_path() finds files of the source tree (schemas, the JSON
 * Schema checker, test data) through BB_SOURCE_DIR, which the build passes
 * in (tests/CMakeLists.txt): __FILE__ is no guide, since distribution
 * builds rewrite it (-ffile-prefix-map).
 *
 *
 * bb_loopfix_setup() mounts a 1 MiB tmpfs (for "no block device" cases),
 * creates a 64 MiB file under /var/tmp, attaches it to a loop device
 * (losetup), puts ext4 on it, mounts it under /tmp and creates a file
 * "data" there.  It needs root, losetup, mkfs.ext4 and mount.  When no loop
 * device can be had, no_dev says why and the device tests are to be skipped
 * (the program then exits 77 if the others passed).  bb_loopfix_teardown()
 * undoes whatever was done, also after a failure half-way.
 *
 * Header-only, for test programs: everything is static.  Include it after
 * <cmocka.h> (BB_LOOPFIX_NEED_DEV uses print_message and skip). */
#ifndef BB_TESTS_HELPERS_H
#define BB_TESTS_HELPERS_H

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BB_SOURCE_DIR
#error "tests are built with -DBB_SOURCE_DIR=<the source tree> (tests/CMakeLists.txt)"
#endif

/* rel (relative to the top of the source tree) as a path in buf. */
static __attribute__((unused)) void bb_test_src_path(char *buf, size_t len,
						      const char *rel)
{
	snprintf(buf, len, "%s/%s", BB_SOURCE_DIR, rel);
}

#define BB_LOOPFIX_SIZE (64 << 20) /* bytes of the backing file */

struct bb_loopfix {
	char img[PATH_MAX];   /* backing file under /var/tmp, "" when none */
	char loop[64];        /* /dev/loopN, "" when none */
	char name[64];        /* loopN */
	char mnt[PATH_MAX];   /* ext4 mount point, "" when none */
	bool mounted;
	char tmpfs[PATH_MAX]; /* tmpfs mount point, "" when none */
	bool tmpfs_mounted;
	char file[PATH_MAX];  /* a file on the ext4 filesystem */
	char no_dev[256];     /* why the device tests are skipped, "" if not */
};

/* Run a shell command built from fmt; its exit status, -1 if none. */
static int run(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), unused));
static int run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return st == -1 ? -1 : WEXITSTATUS(st);
}

/* Run cmd; out receives the first line of its output without the newline.
 * Its exit status, -1 if none. */
static __attribute__((unused)) int run_out(char *out, size_t len,
					   const char *cmd)
{
	FILE *p = popen(cmd, "r");
	int st;

	if (!p)
		return -1;
	if (!fgets(out, (int)len, p))
		out[0] = '\0';
	out[strcspn(out, "\n")] = '\0';
	st = pclose(p);
	return st == -1 ? -1 : WEXITSTATUS(st);
}

/* Undo what bb_loopfix_setup() did; safe to call more than once. */
static __attribute__((unused)) void bb_loopfix_teardown(struct bb_loopfix *fx)
{
	if (fx->tmpfs_mounted && run("umount '%s'", fx->tmpfs) == 0)
		fx->tmpfs_mounted = false;
	if (fx->tmpfs[0] && !fx->tmpfs_mounted) {
		rmdir(fx->tmpfs);
		fx->tmpfs[0] = '\0';
	}
	if (fx->mounted && run("umount '%s'", fx->mnt) == 0)
		fx->mounted = false;
	if (fx->mnt[0] && !fx->mounted) {
		rmdir(fx->mnt);
		fx->mnt[0] = '\0';
	}
	if (fx->loop[0]) {
		run("losetup -d '%s'", fx->loop);
		fx->loop[0] = '\0';
	}
	if (fx->img[0]) {
		unlink(fx->img);
		fx->img[0] = '\0';
	}
}

/* Set the fixture up; tag names the temporary files (/tmp/bb-TAG-mnt.*,
 * /tmp/bb-TAG-tmpfs.*, /var/tmp/bb-TAG.*).  0 when set up or when there is
 * no loop device (no_dev says why), -1 after a failure past losetup (all
 * undone again). */
static __attribute__((unused)) int bb_loopfix_setup(struct bb_loopfix *fx,
						    const char *tag)
{
	char cmd[PATH_MAX + 64];
	int fd;

	memset(fx, 0, sizeof(*fx));

	snprintf(fx->tmpfs, sizeof(fx->tmpfs), "/tmp/bb-%s-tmpfs.XXXXXX", tag);
	if (!mkdtemp(fx->tmpfs))
		fx->tmpfs[0] = '\0';
	else if (run("mount -t tmpfs -o size=1m bbtest '%s'", fx->tmpfs) == 0)
		fx->tmpfs_mounted = true;

	snprintf(fx->img, sizeof(fx->img), "/var/tmp/bb-%s.XXXXXX", tag);
	fd = mkstemp(fx->img);
	if (fd < 0) {
		fx->img[0] = '\0';
		snprintf(fx->no_dev, sizeof(fx->no_dev),
			 "cannot create a file in /var/tmp");
		return 0;
	}
	close(fd);
	if (truncate(fx->img, BB_LOOPFIX_SIZE)) {
		snprintf(fx->no_dev, sizeof(fx->no_dev), "cannot size %s",
			 fx->img);
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "losetup -f --show '%s' 2>/dev/null",
		 fx->img);
	if (run_out(fx->loop, sizeof(fx->loop), cmd) != 0 ||
	    strncmp(fx->loop, "/dev/loop", 9)) {
		fx->loop[0] = '\0';
		snprintf(fx->no_dev, sizeof(fx->no_dev),
			 "losetup failed (root and loop devices needed)");
		return 0;
	}
	snprintf(fx->name, sizeof(fx->name), "%s", fx->loop + 5);

	if (run("mkfs.ext4 -q -F '%s' >/dev/null 2>&1", fx->loop)) {
		fprintf(stderr, "mkfs.ext4 %s failed\n", fx->loop);
		goto bad;
	}
	snprintf(fx->mnt, sizeof(fx->mnt), "/tmp/bb-%s-mnt.XXXXXX", tag);
	if (!mkdtemp(fx->mnt)) {
		fx->mnt[0] = '\0';
		goto bad;
	}
	if (run("mount '%s' '%s'", fx->loop, fx->mnt)) {
		fprintf(stderr, "mount %s failed\n", fx->loop);
		goto bad;
	}
	fx->mounted = true;
	snprintf(fx->file, sizeof(fx->file), "%s/data", fx->mnt);
	fd = open(fx->file, O_CREAT | O_WRONLY, 0600);
	if (fd < 0)
		goto bad;
	close(fd);
	return 0;
bad:
	fprintf(stderr, "loop device setup failed (%s)\n", fx->loop);
	bb_loopfix_teardown(fx);
	return -1;
}

/* In a test: skip it when the fixture has no loop device. */
#define BB_LOOPFIX_NEED_DEV(fx)                                                \
	do {                                                                   \
		if ((fx)->no_dev[0]) {                                         \
			print_message("skipped: %s\n", (fx)->no_dev);          \
			skip();                                                \
		}                                                              \
	} while (0)

/* The program's exit status from cmocka_run_group_tests()'s: 1 on a
 * failure, 77 when the device tests were skipped, else 0. */
static __attribute__((unused)) int bb_loopfix_exit(const struct bb_loopfix *fx,
						   int rc)
{
	if (rc)
		return 1;
	if (fx->no_dev[0]) {
		fprintf(stderr, "device tests skipped: %s\n", fx->no_dev);
		return 77;
	}
	return 0;
}

#endif
