// SPDX-License-Identifier: GPL-2.0-only
/* test_hostinfo.c - host and device metadata against the real host.
 *
 * The device tests create a 64 MiB loop device (losetup) with ext4 on it,
 * mounted under /tmp, and a tmpfs; they need root.  Without a loop device
 * those tests are skipped and the program exits 77 if the others passed.
 * The group teardown undoes everything, also after a failure (helpers.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <biobench/common.h>
#include <biobench/hostinfo.h>

#include "helpers.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static struct bb_loopfix fx;

static int group_setup(void **state)
{
	(void)state;
	return bb_loopfix_setup(&fx, "hostinfo");
}

static int group_teardown(void **state)
{
	(void)state;
	bb_loopfix_teardown(&fx);
	return 0;
}

#define NEED_DEV() BB_LOOPFIX_NEED_DEV(&fx)

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("field %s missing in %s", key,
			 json_object_to_json_string(o));
	return v;
}

static const char *get_str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!json_object_is_type(v, json_type_string))
		fail_msg("field %s is not a string in %s", key,
			 json_object_to_json_string(o));
	return json_object_get_string(v);
}

static int64_t get_int(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	if (!json_object_is_type(v, json_type_int))
		fail_msg("field %s is not an integer in %s", key,
			 json_object_to_json_string(o));
	return json_object_get_int64(v);
}

/* ---- host ------------------------------------------------------------------- */

static void test_host_info(void **state)
{
	struct json_object *h = bb_host_info(), *v;
	char host[256], kernel[256];
	struct utsname u;

	(void)state;
	assert_non_null(h);
	assert_int_equal(run_out(kernel, sizeof(kernel), "uname -r"), 0);
	assert_string_equal(get_str(h, "kernel"), kernel);
	assert_int_equal(uname(&u), 0);
	assert_string_equal(get_str(h, "kernel_version"), u.version);
	assert_string_equal(get_str(h, "machine"), u.machine);
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	assert_string_equal(get_str(h, "hostname"), host);
	assert_true(get_int(h, "cpus") >= 1);
	assert_int_equal(get_int(h, "cpus"), sysconf(_SC_NPROCESSORS_ONLN));
	assert_true(get_int(h, "memory_bytes") >=
		    (int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) /
			    2);
	assert_true(strlen(get_str(h, "cmdline")) > 0);
	assert_null(strchr(get_str(h, "cmdline"), '\n'));
	/* cpu_model: a string on x86 (the first "model name") */
	v = get(h, "cpu_model");
	if (v)
		assert_true(json_object_is_type(v, json_type_string) &&
			    strlen(json_object_get_string(v)) > 0);
	/* boot_id: the kernel's, each boot its own */
	{
		char want[64];

		assert_int_equal(run_out(want, sizeof(want),
					 "cat /proc/sys/kernel/random/boot_id"),
				 0);
		assert_int_equal(strlen(want), 36);
		assert_string_equal(get_str(h, "boot_id"), want);
	}
	/* microcode: null where the CPU shows none, else its revision as
	 * /proc/cpuinfo has it */
	v = get(h, "microcode");
	if (!run("grep -q '^microcode' /proc/cpuinfo"))
		assert_true(json_object_is_type(v, json_type_string) &&
			    strlen(json_object_get_string(v)) > 0);
	/* governor: null without cpufreq, else cpu0's */
	v = get(h, "governor");
	if (access("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		   R_OK))
		assert_null(v);
	else
		assert_true(json_object_is_type(v, json_type_string));
	json_object_put(h);
}

static void test_device_info_unknown(void **state)
{
	(void)state;
	assert_null(bb_device_info("no_such_disk_bb"));
	assert_null(bb_device_info("../block/loop0"));
	assert_null(bb_device_info(".."));
	assert_null(bb_device_info(""));
}

/* ---- devices ----------------------------------------------------------------- */

static void check_our_loop(struct json_object *d)
{
	struct json_object *lim, *v;
	char dev[80];

	assert_string_equal(get_str(d, "name"), fx.name);
	snprintf(dev, sizeof(dev), "/dev/%s", fx.name);
	assert_string_equal(get_str(d, "path"), dev);
	assert_string_equal(get_str(d, "backing_file"), fx.img);
	assert_int_equal(get_int(d, "size_bytes"), BB_LOOPFIX_SIZE);
	/* a loop device has no model, serial or firmware in sysfs */
	assert_null(get(d, "model"));
	assert_null(get(d, "serial"));
	assert_null(get(d, "firmware"));
	assert_true(json_object_is_type(get(d, "rotational"),
					json_type_boolean));
	assert_true(json_object_is_type(get(d, "io_poll"), json_type_boolean));
	v = get(d, "scheduler");
	assert_non_null(v);
	assert_null(strchr(json_object_get_string(v), '['));
	assert_null(strchr(json_object_get_string(v), ' '));
	lim = get(d, "limits");
	assert_non_null(lim);
	assert_int_equal(get_int(lim, "logical_block_size"), 512);
	assert_int_equal(get_int(lim, "physical_block_size"), 512);
	assert_true(get_int(lim, "max_sectors_kb") > 0);
	assert_true(get_int(lim, "max_hw_sectors_kb") >=
		    get_int(lim, "max_sectors_kb"));
	assert_true(get_int(lim, "max_segments") > 0);
	assert_true(get_int(lim, "max_segment_size") >= 4096);
	assert_true(get_int(lim, "nr_requests") > 0);
	assert_int_equal(get_int(lim, "chunk_sectors"), 0);
	(void)get(lim, "virt_boundary_mask");
}

static void test_device_info_loop(void **state)
{
	struct json_object *d;

	(void)state;
	NEED_DEV();
	d = bb_device_info(fx.name);
	assert_non_null(d);
	check_our_loop(d);
	json_object_put(d);
}

static void test_devices_info(void **state)
{
	struct json_object *arr = bb_devices_info(), *d;
	const char *prev = NULL, *name;
	bool found = false;
	size_t n;

	(void)state;
	assert_non_null(arr);
	assert_true(json_object_is_type(arr, json_type_array));
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		d = json_object_array_get_idx(arr, i);
		name = get_str(d, "name");
		if (prev)
			assert_true(strcmp(prev, name) < 0);
		prev = name;
		/* unbound loop devices are not listed */
		if (!strncmp(name, "loop", 4))
			assert_true(json_object_object_get_ex(
				d, "backing_file", NULL));
		else
			assert_false(json_object_object_get_ex(
				d, "backing_file", NULL));
		(void)get(d, "limits");
		if (!fx.no_dev[0] && !strcmp(name, fx.name)) {
			check_our_loop(d);
			found = true;
		}
	}
	if (!fx.no_dev[0])
		assert_true(found);
	json_object_put(arr);
}

static void test_target_nop(void **state)
{
	struct json_object *t = bb_target_device_info("nop");

	(void)state;
	assert_non_null(t);
	assert_string_equal(get_str(t, "kind"), "nop");
	assert_int_equal(json_object_object_length(t), 1);
	json_object_put(t);
}

static void test_target_file_and_block(void **state)
{
	struct json_object *t, *d;
	char newfile[PATH_MAX + 16];

	(void)state;
	NEED_DEV();
	/* a file on the loop's filesystem */
	t = bb_target_device_info(fx.file);
	assert_string_equal(get_str(t, "kind"), "file");
	assert_string_equal(get_str(t, "path"), fx.file);
	d = get(t, "device");
	assert_non_null(d);
	assert_string_equal(get_str(d, "name"), fx.name);
	assert_string_equal(get_str(d, "backing_file"), fx.img);
	json_object_put(t);

	/* a file not created yet: its directory's device */
	snprintf(newfile, sizeof(newfile), "%s/not-yet.dat", fx.mnt);
	t = bb_target_device_info(newfile);
	assert_string_equal(get_str(t, "kind"), "file");
	d = get(t, "device");
	assert_non_null(d);
	assert_string_equal(get_str(d, "name"), fx.name);
	json_object_put(t);

	/* the loop device itself */
	t = bb_target_device_info(fx.loop);
	assert_string_equal(get_str(t, "kind"), "block");
	assert_string_equal(get_str(t, "path"), fx.loop);
	d = get(t, "device");
	assert_non_null(d);
	check_our_loop(d);
	json_object_put(t);
}

static void test_target_tmpfs(void **state)
{
	struct json_object *t;
	char file[PATH_MAX + 8];

	(void)state;
	if (!fx.tmpfs_mounted) {
		print_message("skipped: cannot mount a tmpfs\n");
		skip();
	}
	snprintf(file, sizeof(file), "%s/x", fx.tmpfs);
	t = bb_target_device_info(file);
	assert_non_null(t);
	assert_string_equal(get_str(t, "kind"), "file");
	assert_null(get(t, "device"));
	json_object_put(t);
}

/* ---- what a run records ------------------------------------------------ */

static void test_queue_settings_none(void **state)
{
	struct bb_queue_settings q;
	struct bb_run_context c;
	struct json_object *doc;
	char file[PATH_MAX + 8], boot[64];

	(void)state;
	assert_int_equal(bb_queue_settings_read("nop", &q), 0);
	assert_false(q.have);
	assert_null(bb_queue_settings_to_json(&q));
	if (fx.tmpfs_mounted) {
		snprintf(file, sizeof(file), "%s/x", fx.tmpfs);
		assert_int_equal(bb_queue_settings_read(file, &q), 0);
		assert_false(q.have);
	}
	/* nop: boot id, kernel and version, no queue */
	assert_int_equal(bb_run_context_read("nop", &c), 0);
	assert_int_equal(bb_boot_id(boot, sizeof(boot)), 0);
	assert_string_equal(c.boot_id, boot);
	doc = json_object_new_object();
	bb_run_context_add_json(doc, &c);
	assert_string_equal(get_str(doc, "boot_id"), boot);
	assert_string_equal(get_str(doc, "biobench_version"), bb_version());
	assert_true(strlen(get_str(doc, "kernel")) > 0);
	assert_null(get(doc, "queue_settings"));
	json_object_put(doc);
	assert_null(bb_queue_setting_name(BB_QUEUE_SETTINGS_N));
	assert_string_equal(bb_queue_setting_name(0), "scheduler");
}

/* The settings of the loop device and of a file on it, against sysfs; a
 * value changed by hand shows in the next read. */
static void test_queue_settings_loop(void **state)
{
	struct bb_queue_settings q;
	struct json_object *o;
	char path[PATH_MAX], want[128], orig[64];
	unsigned ra = BB_QUEUE_SETTINGS_N;

	(void)state;
	NEED_DEV();
	assert_int_equal(bb_queue_settings_read(fx.loop, &q), 0);
	assert_true(q.have);
	for (unsigned i = 0; i < BB_QUEUE_SETTINGS_N; i++) {
		const char *name = bb_queue_setting_name(i);
		char cmd[PATH_MAX + 64];

		snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", fx.name,
			 name);
		if (!strcmp(name, "read_ahead_kb"))
			ra = i;
		if (access(path, R_OK)) {
			assert_false(q.present[i]);
			continue;
		}
		/* the scheduler as the selected one: "[none] mq-deadline" */
		snprintf(cmd, sizeof(cmd),
			 "sed 's/.*\\[\\(.*\\)\\].*/\\1/' '%s'", path);
		assert_int_equal(run_out(want, sizeof(want), cmd), 0);
		assert_true(q.present[i]);
		assert_string_equal(q.value[i], want);
	}
	assert_true(ra < BB_QUEUE_SETTINGS_N && q.present[ra]);
	/* a file on the device has the device's queue */
	{
		struct bb_queue_settings f;

		assert_int_equal(bb_queue_settings_read(fx.file, &f), 0);
		assert_true(f.have);
		assert_string_equal(f.value[ra], q.value[ra]);
	}
	o = bb_queue_settings_to_json(&q);
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), BB_QUEUE_SETTINGS_N);
	assert_string_equal(get_str(o, "read_ahead_kb"), q.value[ra]);
	json_object_put(o);
	/* changed by hand: read again */
	snprintf(orig, sizeof(orig), "%s", q.value[ra]);
	snprintf(path, sizeof(path), "/sys/block/%s/queue/read_ahead_kb",
		 fx.name);
	assert_int_equal(run("echo %d > '%s'",
			     strcmp(orig, "256") ? 256 : 512, path), 0);
	assert_int_equal(bb_queue_settings_read(fx.loop, &q), 0);
	assert_string_equal(q.value[ra], strcmp(orig, "256") ? "256" : "512");
	assert_int_equal(run("echo %s > '%s'", orig, path), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_info),
		cmocka_unit_test(test_device_info_unknown),
		cmocka_unit_test(test_target_nop),
		cmocka_unit_test(test_target_tmpfs),
		cmocka_unit_test(test_devices_info),
		cmocka_unit_test(test_device_info_loop),
		cmocka_unit_test(test_target_file_and_block),
		cmocka_unit_test(test_queue_settings_none),
		cmocka_unit_test(test_queue_settings_loop),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return bb_loopfix_exit(&fx, rc);
}
