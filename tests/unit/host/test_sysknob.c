// SPDX-License-Identifier: GPL-2.0-only
/* test_sysknob.c - kernel queue knobs on real devices.
 *
 * The device tests create a 64 MiB loop device (losetup), put ext4 on it
 * and mount it; a tmpfs is mounted for the "no block device" case.  They
 * need root, losetup, mkfs.ext4 and mount: without a loop device those
 * tests are skipped and the program exits 77 if the others passed.
 * Everything is undone by the group teardown, also after a failure
 * (helpers.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <biobench/sysknob.h>

#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct bb_loopfix fx;
static char queue[PATH_MAX]; /* expected queue dir of the loop device */

static int group_teardown(void **state)
{
	(void)state;
	bb_loopfix_teardown(&fx);
	return 0;
}

static int group_setup(void **state)
{
	char real[PATH_MAX], sys[128];

	queue[0] = '\0';
	if (bb_loopfix_setup(&fx, "sysknob"))
		return -1;
	if (fx.no_dev[0])
		return 0;
	snprintf(sys, sizeof(sys), "/sys/block/%s", fx.name);
	if (!realpath(sys, real)) {
		fprintf(stderr, "no %s\n", sys);
		group_teardown(state);
		return -1;
	}
	snprintf(queue, sizeof(queue), "%s/queue", real);
	return 0;
}

#define NEED_DEV() BB_LOOPFIX_NEED_DEV(&fx)

/* ---- no device needed ------------------------------------------------------ */

static void test_name_ok(void **state)
{
	char n63[64], n64[65];

	(void)state;
	memset(n63, 'a', 63);
	n63[63] = '\0';
	memset(n64, 'a', 64);
	n64[64] = '\0';
	assert_true(bb_sysknob_name_ok("nomerges"));
	assert_true(bb_sysknob_name_ok("rq_affinity"));
	assert_true(bb_sysknob_name_ok("io_poll_delay"));
	assert_true(bb_sysknob_name_ok(n63));
	assert_false(bb_sysknob_name_ok(n64));
	assert_false(bb_sysknob_name_ok(""));
	assert_false(bb_sysknob_name_ok(NULL));
	assert_false(bb_sysknob_name_ok("../scheduler"));
	assert_false(bb_sysknob_name_ok("iosched/fifo_batch"));
	assert_false(bb_sysknob_name_ok("Nomerges"));
	assert_false(bb_sysknob_name_ok("no-merges"));
	assert_false(bb_sysknob_name_ok("nomerges "));
}

static void test_queue_dir_nop_missing(void **state)
{
	char dir[PATH_MAX], err[512] = "";

	(void)state;
	assert_int_equal(bb_sysknob_queue_dir("nop", dir, sizeof(dir), err,
					      sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, "nop"));
	err[0] = '\0';
	assert_int_equal(bb_sysknob_queue_dir("/nonexistent/bb/x", dir,
					      sizeof(dir), err, sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, "/nonexistent/bb/x"));
	/* a character device is no target */
	err[0] = '\0';
	assert_int_equal(bb_sysknob_queue_dir("/dev/null", dir, sizeof(dir),
					      err, sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, "/dev/null"));
}

static void test_queue_dir_tmpfs(void **state)
{
	char dir[PATH_MAX], err[512] = "", file[PATH_MAX + 8];
	int fd;

	(void)state;
	if (!fx.tmpfs_mounted) {
		print_message("skipped: cannot mount a tmpfs\n");
		skip();
	}
	snprintf(file, sizeof(file), "%s/f", fx.tmpfs);
	fd = open(file, O_CREAT | O_WRONLY, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(bb_sysknob_queue_dir(file, dir, sizeof(dir), err,
					      sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, file));
	assert_non_null(strstr(err, "tmpfs"));
	assert_non_null(strstr(err, "no block device"));
	/* a file not created yet: its directory's filesystem */
	snprintf(file, sizeof(file), "%s/not-yet", fx.tmpfs);
	err[0] = '\0';
	assert_int_equal(bb_sysknob_queue_dir(file, dir, sizeof(dir), err,
					      sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, "tmpfs"));
	/* the directory itself too */
	err[0] = '\0';
	assert_int_equal(bb_sysknob_queue_dir(fx.tmpfs, dir, sizeof(dir),
					      err, sizeof(err)),
			 -ENODEV);
	assert_non_null(strstr(err, "tmpfs"));
	unlink(file);
}

static void test_read_errors(void **state)
{
	char val[64], err[512] = "";

	(void)state;
	assert_int_equal(bb_sysknob_read("/nonexistent/bb/knob", val,
					 sizeof(val), err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "/nonexistent/bb/knob"));
}

/* ---- on the loop device ---------------------------------------------------- */

static void test_queue_dir_blockdev(void **state)
{
	char dir[PATH_MAX], err[512] = "";

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_queue_dir(fx.loop, dir, sizeof(dir), err,
					      sizeof(err)),
			 0);
	assert_string_equal(dir, queue);
	/* realpath'ed: under /sys/devices, not the /sys/dev/block link */
	assert_true(!strncmp(dir, "/sys/devices/", 13));
}

static void test_queue_dir_file_on_fs(void **state)
{
	char dir[PATH_MAX], err[512] = "";

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_queue_dir(fx.file, dir, sizeof(dir), err,
					      sizeof(err)),
			 0);
	assert_string_equal(dir, queue);
	assert_int_equal(bb_sysknob_queue_dir(fx.mnt, dir, sizeof(dir), err,
					      sizeof(err)),
			 0);
	assert_string_equal(dir, queue);
	/* a file the run will create (a job's target before its first run,
	 * with sysfs knobs: found by crash_safety.sh) */
	{
		char missing[PATH_MAX + 16];

		snprintf(missing, sizeof(missing), "%s/not-yet.dat", fx.mnt);
		assert_int_equal(bb_sysknob_queue_dir(missing, dir,
						      sizeof(dir), err,
						      sizeof(err)),
				 0);
		assert_string_equal(dir, queue);
	}
}

static void test_nomerges_roundtrip(void **state)
{
	char path[PATH_MAX], orig[64], val[64], err[512] = "";

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_path(queue, "nomerges", path,
					 sizeof(path), err, sizeof(err)),
			 0);
	assert_int_equal(bb_sysknob_read(path, orig, sizeof(orig), err,
					 sizeof(err)),
			 0);
	assert_null(strchr(orig, '\n'));
	assert_int_equal(bb_sysknob_write(path, "2", err, sizeof(err)), 0);
	assert_int_equal(bb_sysknob_read(path, val, sizeof(val), err,
					 sizeof(err)),
			 0);
	assert_string_equal(val, "2");
	/* numbers compare as numbers: "02" reads back "2" */
	assert_int_equal(bb_sysknob_write(path, "02", err, sizeof(err)), 0);
	assert_int_equal(bb_sysknob_write(path, orig, err, sizeof(err)), 0);
	assert_int_equal(bb_sysknob_read(path, val, sizeof(val), err,
					 sizeof(err)),
			 0);
	assert_string_equal(val, orig);
}

static void test_write_refused(void **state)
{
	char path[PATH_MAX], orig[64], val[64], err[512] = "";

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_path(queue, "nomerges", path,
					 sizeof(path), err, sizeof(err)),
			 0);
	assert_int_equal(bb_sysknob_read(path, orig, sizeof(orig), err,
					 sizeof(err)),
			 0);
	/* the kernel refuses it */
	err[0] = '\0';
	assert_int_equal(bb_sysknob_write(path, "abc", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "'abc'"));
	assert_non_null(strstr(err, "refused"));
	/* accepted but reads back differently: nomerges 5 reads back 1 */
	err[0] = '\0';
	assert_int_equal(bb_sysknob_write(path, "5", err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "reads back '1'"));
	/* a value with a newline is refused before the kernel sees it */
	assert_int_equal(bb_sysknob_write(path, "1\n2", err, sizeof(err)),
			 -EINVAL);
	/* restore */
	assert_int_equal(bb_sysknob_write(path, orig, err, sizeof(err)), 0);
	assert_int_equal(bb_sysknob_read(path, val, sizeof(val), err,
					 sizeof(err)),
			 0);
	assert_string_equal(val, orig);
}

static void test_scheduler(void **state)
{
	char path[PATH_MAX], orig[64], val[64], err[512] = "";

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_path(queue, "scheduler", path,
					 sizeof(path), err, sizeof(err)),
			 0);
	assert_int_equal(bb_sysknob_read(path, orig, sizeof(orig), err,
					 sizeof(err)),
			 0);
	/* the selected word alone */
	assert_true(orig[0] != '\0');
	assert_null(strchr(orig, '['));
	assert_null(strchr(orig, ' '));
	assert_int_equal(bb_sysknob_write(path, "none", err, sizeof(err)), 0);
	assert_int_equal(bb_sysknob_read(path, val, sizeof(val), err,
					 sizeof(err)),
			 0);
	assert_string_equal(val, "none");
	err[0] = '\0';
	assert_int_equal(bb_sysknob_write(path, "no-such-sched", err,
					  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "no-such-sched"));
	assert_int_equal(bb_sysknob_write(path, orig, err, sizeof(err)), 0);
}

static void test_missing_and_bad_knobs(void **state)
{
	char path[PATH_MAX], err[512] = "", want[PATH_MAX + 32];

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_path(queue, "no_such_knob", path,
					 sizeof(path), err, sizeof(err)),
			 -ENOENT);
	snprintf(want, sizeof(want), "%s/no_such_knob", queue);
	assert_non_null(strstr(err, want));
	err[0] = '\0';
	assert_int_equal(bb_sysknob_path(queue, "../size", path,
					 sizeof(path), err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "../size"));
	assert_int_equal(bb_sysknob_path(queue, "", path, sizeof(path),
					 err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(bb_sysknob_path(queue, "No_Merges", path,
					 sizeof(path), err, sizeof(err)),
			 -EINVAL);
}

static void test_read_only_knob(void **state)
{
	char path[PATH_MAX], err[512] = "";

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_path(queue, "hw_sector_size", path,
					 sizeof(path), err, sizeof(err)),
			 0);
	err[0] = '\0';
	assert_int_equal(bb_sysknob_write(path, "4096", err, sizeof(err)),
			 -EACCES);
	assert_non_null(strstr(err, path));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_ok),
		cmocka_unit_test(test_queue_dir_nop_missing),
		cmocka_unit_test(test_queue_dir_tmpfs),
		cmocka_unit_test(test_read_errors),
		cmocka_unit_test(test_queue_dir_blockdev),
		cmocka_unit_test(test_queue_dir_file_on_fs),
		cmocka_unit_test(test_nomerges_roundtrip),
		cmocka_unit_test(test_write_refused),
		cmocka_unit_test(test_scheduler),
		cmocka_unit_test(test_missing_and_bad_knobs),
		cmocka_unit_test(test_read_only_knob),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return bb_loopfix_exit(&fx, rc);
}
