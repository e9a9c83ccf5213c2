// SPDX-License-Identifier: GPL-2.0-only
/* test_nvme.c - NVMe discovery helpers (core/host/nvme.c) and the uring_cmd
 * engine's refusals (core/io/target.c, core/run/options.c) on a host with or
 * without NVMe: name parsing, /proc/interrupts counting from fixture
 * files, resolution of non-NVMe devices, the controller scan's shape, and
 * the messages for wrong targets.  The NVMe paths themselves run in the
 * guest test (tests/vm). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <biobench/engine.h>
#include <biobench/nvme.h>
#include <biobench/options.h>
#include <biobench/result_json.h>
#include "io/target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_ns_names(void **state)
{
	char b[BB_NVME_NAME_LEN], c[BB_NVME_NAME_LEN];

	(void)state;
	assert_int_equal(bb_nvme_ns_names("nvme0n1", b, sizeof(b), c,
					  sizeof(c)), 0);
	assert_string_equal(b, "nvme0n1");
	assert_string_equal(c, "ng0n1");
	assert_int_equal(bb_nvme_ns_names("/dev/ng12n3", b, sizeof(b), c,
					  sizeof(c)), 0);
	assert_string_equal(b, "nvme12n3");
	assert_string_equal(c, "ng12n3");
	/* partitions, hidden multipath paths, controllers, others */
	assert_int_equal(bb_nvme_ns_names("nvme0n1p1", b, sizeof(b), c,
					  sizeof(c)), -ENODEV);
	assert_int_equal(bb_nvme_ns_names("nvme0c0n1", b, sizeof(b), c,
					  sizeof(c)), -ENODEV);
	assert_int_equal(bb_nvme_ns_names("nvme0", b, sizeof(b), c,
					  sizeof(c)), -ENODEV);
	assert_int_equal(bb_nvme_ns_names("vda", b, sizeof(b), c, sizeof(c)),
			 -ENODEV);
	assert_int_equal(bb_nvme_ns_names("ngx", b, sizeof(b), c, sizeof(c)),
			 -ENODEV);
	assert_int_equal(bb_nvme_ns_names("", b, sizeof(b), c, sizeof(c)),
			 -ENODEV);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_queue_irqs(void **state)
{
	char path[] = "/tmp/bb_test_irqXXXXXX";
	const char ctrls[2][BB_NVME_NAME_LEN] = { "nvme0", "nvme1" };
	uint64_t sum = 99;
	int fd;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	write_file(path,
		   "            CPU0       CPU1       \n"
		   " 24:          0         27   PCI-MSI 32768-edge      nvme0q0\n"
		   " 25:        508          0   PCI-MSI 32769-edge      nvme0q1\n"
		   " 26:          0        322   PCI-MSI 32770-edge      nvme0q2\n"
		   " 27:          5          5   PCI-MSI 32771-edge      nvme10q1\n"
		   " 28:          7          0   PCI-MSI 32772-edge      nvme1q3\n"
		   " 29:        100        100   IO-APIC   4-edge      ttyS0\n"
		   "NMI:          1          2   Non-maskable interrupts\n"
		   "ERR:          0\n");
	/* nvme0's I/O queues: q1 + q2, not the admin queue, not nvme10 */
	assert_int_equal(bb_nvme_queue_irqs(path, ctrls, 1, &sum), 2);
	assert_int_equal(sum, 830);
	/* both controllers (multipath) */
	assert_int_equal(bb_nvme_queue_irqs(path, ctrls, 2, &sum), 3);
	assert_int_equal(sum, 837);
	/* a controller without lines: 0 lines, sum 0 */
	assert_int_equal(bb_nvme_queue_irqs(path,
					    (const char (*)[BB_NVME_NAME_LEN])
					    ctrls + 1, 1, &sum), 1);
	write_file(path, "   CPU0\n  9:  3  IO-APIC 9-fasteoi acpi\n");
	assert_int_equal(bb_nvme_queue_irqs(path, ctrls, 1, &sum), 0);
	assert_int_equal(sum, 0);
	unlink(path);
	assert_int_equal(bb_nvme_queue_irqs(path, ctrls, 1, &sum), -ENOENT);
	/* the real file parses (lines found only on an NVMe host) */
	assert_true(bb_nvme_queue_irqs("/proc/interrupts", ctrls, 2, &sum) >= 0);
}

static void test_resolve_not_nvme(void **state)
{
	struct bb_nvme_ns ns;

	(void)state;
	assert_int_equal(bb_nvme_ns_resolve("/dev/null", -1, &ns), -ENODEV);
	assert_int_equal(bb_nvme_ns_resolve("vda", -1, &ns), -ENODEV);
	assert_true(bb_nvme_ns_resolve("/no/such/dev", -1, &ns) < 0);
	/* a well-formed name that does not exist here */
	assert_int_equal(bb_nvme_ns_resolve("nvme977n9", -1, &ns), -ENODEV);
	assert_null(bb_nvme_ns_info("nvme977n9"));
	assert_null(bb_nvme_ns_info("vda"));
	assert_null(bb_nvme_ns_info("../nvme0n1"));
}

/* The scan returns an array on any host; each controller has the
 * documented fields and its namespaces their paths. */
static void test_controllers_info(void **state)
{
	struct json_object *arr = bb_nvme_controllers_info();
	static const char *const ckeys[] = {
		"name", "transport", "address", "model", "serial", "firmware",
		"subsystem", "subsystem_nqn", "state", "queue_count", "mdts",
		"poll_queues", "namespaces",
	};
	static const char *const nkeys[] = {
		"controller", "nsid", "lba_size", "lba_count", "capacity_bytes",
		"block_path", "char_path", "max_hw_sectors_kb", "io_poll",
		"can_poll", "poll_why",
	};

	(void)state;
	assert_non_null(arr);
	assert_true(json_object_is_type(arr, json_type_array));
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *c = json_object_array_get_idx(arr, i), *nss;

		for (size_t k = 0; k < sizeof(ckeys) / sizeof(ckeys[0]); k++)
			assert_true(json_object_object_get_ex(c, ckeys[k], NULL));
		json_object_object_get_ex(c, "namespaces", &nss);
		for (size_t n = 0; n < json_object_array_length(nss); n++)
			for (size_t k = 0; k < sizeof(nkeys) / sizeof(nkeys[0]);
			     k++)
				assert_true(json_object_object_get_ex(
					json_object_array_get_idx(nss, n),
					nkeys[k], NULL));
	}
	json_object_put(arr);
	assert_true(bb_nvme_poll_queues_asked() >= 0);
}

static int parse(const char *args, struct bb_config *cfg, char *err,
		 size_t len)
{
	char buf[512], *argv[32], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "run %s", args);
	for (char *t = strtok_r(buf, " ", &save); t && argc < 31;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	bb_config_default(cfg);
	return bb_options_parse(argc, argv, cfg, err, len);
}

static void test_engine_option(void **state)
{
	struct bb_config cfg;
	char err[512];

	(void)state;
	assert_int_equal(parse("nop", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.engine, BB_ENGINE_IO_URING);
	assert_int_equal(parse("--engine uring_cmd /dev/ng0n1", &cfg, err,
			       sizeof(err)), 0);
	assert_int_equal(cfg.engine, BB_ENGINE_URING_CMD);
	assert_string_equal(bb_engine_name(cfg.engine), "uring_cmd");
	assert_int_equal(parse("--engine spdk /dev/ng0n1", &cfg, err,
			       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "io_uring, uring_cmd"));
	assert_int_equal(parse("--engine uring_cmd nop", &cfg, err,
			       sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/dev/ngXnY"));
}

/* Open with uring_cmd on what is not an NVMe generic char device: the
 * message says what to give instead. */
static void test_target_refusals(void **state)
{
	struct bb_config cfg;
	struct bb_target t;
	char err[512], file[] = "/tmp/bb_test_nvmeXXXXXX";
	int fd;

	(void)state;
	fd = mkstemp(file);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);

	bb_config_default(&cfg);
	cfg.engine = BB_ENGINE_URING_CMD;
	snprintf(cfg.target, sizeof(cfg.target), "%s", file);
	assert_int_equal(bb_target_open(&t, &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a char device"));
	assert_non_null(strstr(err, "/dev/ngXnY"));

	snprintf(cfg.target, sizeof(cfg.target), "/dev/null");
	assert_int_equal(bb_target_open(&t, &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not an NVMe generic char device"));

	/* a char device with the block engine */
	cfg.engine = BB_ENGINE_IO_URING;
	assert_int_equal(bb_target_open(&t, &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--engine uring_cmd"));
	cfg.mode = BB_MODE_POLL;
	assert_int_equal(bb_target_open(&t, &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--engine uring_cmd"));
	unlink(file);
}

/* Not polled, or nothing counted: poll_verified is null and interrupts
 * absent from the document (null). */
static void test_result_poll_fields(void **state)
{
	struct bb_config cfg;
	struct bb_result r;
	struct json_object *doc, *v;
	char err[256];

	(void)state;
	bb_config_default(&cfg);
	cfg.number_ios = 100;
	cfg.runtime_ns = 0;
	assert_int_equal(bb_run(&cfg, &r, NULL, NULL, err, sizeof(err)), 0);
	assert_false(r.irq.checked);
	doc = bb_result_to_json(&cfg, &r);
	assert_true(json_object_object_get_ex(doc, "interrupts", &v));
	assert_null(v);
	assert_true(json_object_object_get_ex(doc, "poll_verified", &v));
	assert_null(v);
	json_object_put(doc);
	bb_result_free(&r);

	/* the rule itself */
	memset(&r.irq, 0, sizeof(r.irq));
	r.irq.checked = true;
	assert_int_equal(bb_poll_verified(&cfg, &r.irq, 1000), -1); /* irq */
	cfg.mode = BB_MODE_POLL;
	assert_int_equal(bb_poll_verified(&cfg, &r.irq, 1000), 1);
	r.irq.count = 10;
	assert_int_equal(bb_poll_verified(&cfg, &r.irq, 1000), 1);
	r.irq.count = 900;
	assert_int_equal(bb_poll_verified(&cfg, &r.irq, 1000), 0);
	r.irq.checked = false;
	assert_int_equal(bb_poll_verified(&cfg, &r.irq, 1000), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ns_names),
		cmocka_unit_test(test_queue_irqs),
		cmocka_unit_test(test_resolve_not_nvme),
		cmocka_unit_test(test_controllers_info),
		cmocka_unit_test(test_engine_option),
		cmocka_unit_test(test_target_refusals),
		cmocka_unit_test(test_result_poll_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
