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

#include <biobench/common.h>
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

/* ---- knob sets, device identity, device lock ---------------------------- */

struct hook_log {
	unsigned before, after, restored, restore_failed;
	bool refuse_second;
};

static int hk_before(void *arg, struct bb_sysknob_applied *k,
		     const char *value, char *err, size_t errlen)
{
	struct hook_log *h = arg;

	(void)value;
	k->journal_id = 100 + h->before;
	if (h->refuse_second && h->before == 1)
		return bb_errf(err, errlen, -EIO, "journal full");
	h->before++;
	return 0;
}

static void hk_after(void *arg, const struct bb_sysknob_applied *k)
{
	struct hook_log *h = arg;

	assert_true(k->journal_id >= 100);
	h->after++;
}

static void hk_restored(void *arg, const struct bb_sysknob_applied *k,
			int ret, const char *msg)
{
	struct hook_log *h = arg;

	(void)k;
	(void)msg;
	if (ret)
		h->restore_failed++;
	else
		h->restored++;
}

static const struct bb_sysknob_hooks hooks = {
	.before_write = hk_before,
	.after_write = hk_after,
	.after_restore = hk_restored,
};

/* apply, restore newest first (a knob set twice ends at its first
 * original); a hook that refuses stops before the write */
static void test_set_apply_restore(void **state)
{
	struct bb_sysknob_set set;
	struct bb_sysfs_knob k[3] = {
		{ "nomerges", "2" }, { "read_ahead_kb", "512" },
		{ "nomerges", "1" },
	};
	struct hook_log h = { 0 };
	char nm0[32], ra0[32], v[32], p[PATH_MAX + 32], err[512];

	(void)state;
	NEED_DEV();
	memset(&set, 0, sizeof(set));
	snprintf(set.queue_dir, sizeof(set.queue_dir), "%s", queue);
	snprintf(p, sizeof(p), "%s/nomerges", queue);
	assert_int_equal(bb_sysknob_read(p, nm0, sizeof(nm0), err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/read_ahead_kb", queue);
	assert_int_equal(bb_sysknob_read(p, ra0, sizeof(ra0), err, sizeof(err)), 0);
	if (!strcmp(ra0, "512"))
		snprintf(k[1].value, sizeof(k[1].value), "1024");

	assert_int_equal(bb_sysknob_apply_set(&set, k, 3, &hooks, &h, err,
					      sizeof(err)), 0);
	assert_int_equal(set.n, 3);
	assert_int_equal(h.before, 3);
	assert_int_equal(h.after, 3);
	snprintf(p, sizeof(p), "%s/nomerges", queue);
	assert_int_equal(bb_sysknob_read(p, v, sizeof(v), err, sizeof(err)), 0);
	assert_string_equal(v, "1");
	assert_int_equal(bb_sysknob_restore_set(&set, &hooks, &h, err,
						sizeof(err)), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(h.restored, 3);
	assert_int_equal(bb_sysknob_read(p, v, sizeof(v), err, sizeof(err)), 0);
	assert_string_equal(v, nm0);
	snprintf(p, sizeof(p), "%s/read_ahead_kb", queue);
	assert_int_equal(bb_sysknob_read(p, v, sizeof(v), err, sizeof(err)), 0);
	assert_string_equal(v, ra0);

	/* the journal refuses the second: it is neither written nor kept */
	memset(&h, 0, sizeof(h));
	h.refuse_second = true;
	assert_int_equal(bb_sysknob_apply_set(&set, k, 3, &hooks, &h, err,
					      sizeof(err)), -EIO);
	assert_string_equal(err, "journal full");
	assert_int_equal(set.n, 1);
	assert_int_equal(bb_sysknob_read(p, v, sizeof(v), err, sizeof(err)), 0);
	assert_string_equal(v, ra0);
	assert_int_equal(bb_sysknob_restore_set(&set, &hooks, &h, err,
						sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/nomerges", queue);
	assert_int_equal(bb_sysknob_read(p, v, sizeof(v), err, sizeof(err)), 0);
	assert_string_equal(v, nm0);
}

/* a loop device's identity is its backing file and inode; the mounted
 * ext4 on it makes its disk "mounted"; write_cache and scheduler are the
 * dangerous knobs */
static void test_dev_identity_mounted(void **state)
{
	struct bb_sysknob_dev d;
	char err[512], why[512], where[PATH_MAX * 2];

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_sysknob_dev_of_queue(queue, &d, err, sizeof(err)), 0);
	assert_string_equal(d.name, fx.name);
	assert_true(!strncmp(d.ident, "loop:", 5));
	assert_non_null(strstr(d.ident, fx.img));
	assert_non_null(strstr(d.ident, ":ino="));
	assert_int_equal(bb_sysknob_dev_same(&d, why, sizeof(why)), 1);
	d.ident[strlen(d.ident) - 1] ^= 1; /* another inode */
	assert_int_equal(bb_sysknob_dev_same(&d, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "another device now"));
	assert_int_equal(bb_sysknob_dev_of_queue("/sys/kernel", &d, err,
						 sizeof(err)), -EINVAL);

	assert_true(bb_sysknob_dangerous("write_cache"));
	assert_true(bb_sysknob_dangerous("scheduler"));
	assert_false(bb_sysknob_dangerous("nomerges"));
	if (fx.mounted) {
		assert_int_equal(bb_sysknob_disk_mounted(queue, where,
							 sizeof(where)), 1);
		assert_non_null(strstr(where, fx.mnt));
	}
}

/* the lock: a second taker (another open file, as another process would
 * be) is refused with the holder named; free again after release; nop
 * has nothing to lock */
static void test_devlock(void **state)
{
	struct bb_devlock a, b;
	char err[512], text[512];
	int fd;
	ssize_t n;

	(void)state;
	NEED_DEV();
	if (geteuid()) {
		print_message("skipped: the lock needs root\n");
		skip();
	}
	assert_int_equal(bb_devlock_take(&a, "nop", "test", "x", err,
					 sizeof(err)), 0);
	assert_int_equal(a.fd, -1);
	assert_int_equal(bb_devlock_take(&a, fx.loop, "test_sysknob",
					 "job 7 \"first\"", err, sizeof(err)), 0);
	assert_true(a.fd >= 0);
	fd = open(a.path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	assert_true(n > 0);
	text[n] = '\0';
	assert_non_null(strstr(text, "program test_sysknob\n"));
	assert_non_null(strstr(text, "what job 7 \"first\"\n"));
	/* the file on the ext4 lives on the same device */
	assert_int_equal(bb_devlock_take(&b, fx.file, "second", "", err,
					 sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "is in use by pid"));
	assert_non_null(strstr(err, "(test_sysknob, job 7 \"first\")"));
	assert_non_null(strstr(err, fx.name));
	bb_devlock_release(&a);
	assert_int_equal(a.fd, -1);
	assert_int_equal(bb_devlock_take(&b, fx.loop, "second", "", err,
					 sizeof(err)), 0);
	bb_devlock_release(&b);
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
		cmocka_unit_test(test_set_apply_restore),
		cmocka_unit_test(test_dev_identity_mounted),
		cmocka_unit_test(test_devlock),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return bb_loopfix_exit(&fx, rc);
}
