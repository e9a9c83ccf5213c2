// SPDX-License-Identifier: GPL-2.0-only
/* test_memory.c - bb_config_memory_estimate() and the run's memory budget
 * (issue 12, finding 12):
 *   - the parts follow the formulas its comment lists (buffers exactly
 *     threads x iodepth x bs rounded up to a page, slots, verify state,
 *     locked only for registered buffers on a real target);
 *   - bb_config_memory_check() refuses exactly above the limit, naming the
 *     fields, the sum and the limit;
 *   - the estimate bounds what a real run allocates: real nop runs in a
 *     child process, whose peak RSS (VmHWM, reset through clear_refs)
 *     grows by no more than the estimate and by at least its buffers;
 *   - bb_run() refuses a run above --max-memory before allocating: the
 *     peak RSS does not grow by the buffers it would have mapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <biobench/config.h>
#include <biobench/engine.h>
#include <biobench/options.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MiB (1ull << 20)

static void test_parts(void **state)
{
	struct bb_config cfg;
	struct bb_mem_estimate e;

	(void)state;
	bb_config_default(&cfg);
	cfg.threads = 2;
	cfg.iodepth = 64;
	cfg.bs = 16384;
	bb_config_memory_estimate(&cfg, 0, NULL, &e);
	assert_int_equal(e.buffers, 2ull * 64 * 16384);
	assert_int_equal(e.slots, 2ull * 64 * (64 + 4 + 4 * 16));
	assert_int_equal(e.verify, 0);
	assert_int_equal(e.completion, 0);
	assert_int_equal(e.locked, 0); /* nop registers nothing */
	assert_int_equal(e.total, e.buffers + e.slots + e.ring + e.bios +
				  e.verify + e.completion + e.threads +
				  e.samples);
	assert_true(e.bios > 2ull * (64 * 2 + 576) * 256);
	/* bs not a page multiple: rounded up per slot */
	cfg.bs = 4096 + 512;
	bb_config_memory_estimate(&cfg, 0, NULL, &e);
	assert_int_equal(e.buffers, 2ull * 64 * 8192);
	/* a real target with fixed buffers: they are locked; verify state
	 * per block of the region */
	snprintf(cfg.target, sizeof(cfg.target), "/var/tmp/x.dat");
	cfg.bs = 16384;
	cfg.rw = BB_RW_RANDWRITE;
	cfg.verify = true;
	bb_config_memory_estimate(&cfg, 64 * MiB, NULL, &e);
	assert_int_equal(e.locked, e.buffers);
	assert_int_equal(e.verify, 64 * MiB / 16384 * 5);
	cfg.fixedbufs = false;
	bb_config_memory_estimate(&cfg, 64 * MiB, NULL, &e);
	assert_int_equal(e.locked, 0);
	/* the completion thread's queue: a power of two per thread */
	cfg.completion = BB_COMPLETION_THREAD;
	cfg.iodepth = 100;
	bb_config_memory_estimate(&cfg, 64 * MiB, NULL, &e);
	assert_true(e.completion >= 2ull * 128 * 4);
}

static void test_check(void **state)
{
	struct bb_config cfg;
	struct bb_mem_estimate e;
	char err[512];

	(void)state;
	bb_config_default(&cfg);
	cfg.threads = 64;
	cfg.iodepth = 65536;
	cfg.bs = 1 << 20;
	bb_config_memory_estimate(&cfg, 0, NULL, &e);
	assert_true(e.buffers == 64ull * 65536 * MiB);
	assert_int_equal(bb_config_memory_check(&cfg, &e, e.total, "L", err,
						sizeof(err)), 0);
	assert_int_equal(bb_config_memory_check(&cfg, &e, e.total - 1,
						"max_run_memory 2.0 GiB", err,
						sizeof(err)), -ENOMEM);
	if (!strstr(err, "threads 64 x iodepth 65536 x bs 1.0 MiB = 4.0 TiB") ||
	    !strstr(err, "max_run_memory 2.0 GiB"))
		fail_msg("message: %s", err);
	/* 0: no limit */
	assert_int_equal(bb_config_memory_check(&cfg, &e, 0, "L", err,
						sizeof(err)), 0);
}

static uint64_t status_kb(const char *key)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/self/status", "re");
	size_t n = strlen(key);

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':')
			sscanf(line + n + 1, "%llu", &v);
	fclose(f);
	return v;
}

/* In a child: reset VmHWM, run cfg, report the peak growth in bytes
 * through the exit pipe.  Returns the growth, or UINT64_MAX. */
static uint64_t peak_growth(const struct bb_config *cfg, int *rc)
{
	int fds[2];
	pid_t pid;
	uint64_t growth = UINT64_MAX;
	int st;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		struct bb_result r;
		char err[512];
		uint64_t rss0, hwm;
		int fd = open("/proc/self/clear_refs", O_WRONLY);
		int ret;

		close(fds[0]);
		if (fd < 0 || write(fd, "5", 1) != 1)
			_exit(77);
		close(fd);
		rss0 = status_kb("VmRSS");
		ret = bb_run(cfg, &r, NULL, NULL, err, sizeof(err));
		hwm = status_kb("VmHWM");
		if (ret)
			fprintf(stderr, "run: %s\n", err);
		bb_result_free(&r);
		growth = hwm > rss0 ? (hwm - rss0) << 10 : 0;
		if (write(fds[1], &growth, sizeof(growth)) != sizeof(growth))
			_exit(2);
		_exit(ret == -ENOMEM ? 3 : ret ? 1 : 0);
	}
	close(fds[1]);
	if (read(fds[0], &growth, sizeof(growth)) != sizeof(growth))
		growth = UINT64_MAX;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	*rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return growth;
}

static void test_bounds_real_runs(void **state)
{
	static const struct {
		unsigned threads, iodepth, bs;
		enum bb_completion comp;
	} runs[] = {
		{ 2, 2048, 32768, BB_COMPLETION_INLINE },
		{ 1, 256, 262144, BB_COMPLETION_THREAD }, /* bvec arrays */
		{ 4, 128, 4096, BB_COMPLETION_THREAD },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct bb_config cfg;
		struct bb_mem_estimate e;
		uint64_t g;
		int rc;

		bb_config_default(&cfg);
		cfg.threads = runs[i].threads;
		cfg.iodepth = runs[i].iodepth;
		cfg.bs = runs[i].bs;
		cfg.completion = runs[i].comp;
		cfg.runtime_ns = 0;
		cfg.number_ios = 20000;
		cfg.quiet = true;
		bb_config_memory_estimate(&cfg, 0, NULL, &e);
		g = peak_growth(&cfg, &rc);
		if (rc == 77)
			skip();
		assert_int_equal(rc, 0);
		print_message("  %u x %u x %u: peak RSS +%.1f MiB, estimate "
			      "%.1f MiB (buffers %.1f MiB)\n",
			      cfg.threads, cfg.iodepth, cfg.bs,
			      (double)g / MiB, (double)e.total / MiB,
			      (double)e.buffers / MiB);
		if (g > e.total)
			fail_msg("run %zu grew by %llu bytes, above the "
				 "estimate %llu", i, (unsigned long long)g,
				 (unsigned long long)e.total);
		if (g < e.buffers / 10 * 9)
			fail_msg("run %zu grew by %llu bytes, below its "
				 "buffers %llu: the test measures nothing", i,
				 (unsigned long long)g,
				 (unsigned long long)e.buffers);
	}
}

static void test_refused_before_allocating(void **state)
{
	struct bb_config cfg;
	uint64_t g;
	int rc;

	(void)state;
	bb_config_default(&cfg);
	cfg.iodepth = 4096;
	cfg.bs = 1 << 20; /* 4 GiB of buffers */
	cfg.max_memory = 64 * MiB;
	cfg.runtime_ns = 100000000;
	cfg.quiet = true;
	g = peak_growth(&cfg, &rc);
	if (rc == 77)
		skip();
	assert_int_equal(rc, 3); /* -ENOMEM */
	if (g > 16 * MiB)
		fail_msg("the refused run still grew by %llu bytes",
			 (unsigned long long)g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_bounds_real_runs),
		cmocka_unit_test(test_refused_before_allocating),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
