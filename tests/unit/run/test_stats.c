// SPDX-License-Identifier: GPL-2.0-only
/* test_stats.c - the latency histogram, the live line, CPU and perf
 * probes, and the result document (checked against
 * schema/result.schema.json with python3-jsonschema when installed;
 * skipped otherwise). */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers.h"

#include <biobench/options.h>
#include <biobench/result_json.h>
#include <biobench/stats.h>

/* ------------------------------------------------------------------ */
/* helpers */


static struct bb_hist *hist_new(void)
{
	struct bb_hist *h = malloc(sizeof(*h));

	assert_non_null(h);
	bb_hist_init(h);
	return h;
}

/* 0 valid, 1 invalid, 77 no python3-jsonschema. */
static int validate_result(const char *doc_text, bool quiet)
{
	char schema[4096], script[4096], dpath[64], cmd[9000];
	int fd, rc;

	bb_test_src_path(schema, sizeof(schema), "schema/result.schema.json");
	bb_test_src_path(script, sizeof(script), "tests/unit/check_json_schema.py");
	snprintf(dpath, sizeof(dpath), "/tmp/bb_test_stats_XXXXXX");
	fd = mkstemp(dpath);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc_text, strlen(doc_text)),
			 (ssize_t)strlen(doc_text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s' '%s'%s", script, schema,
		 dpath, quiet ? " 2>/dev/null" : "");
	rc = system(cmd);
	unlink(dpath);
	if (rc == -1 || !WIFEXITED(rc))
		return 77;
	rc = WEXITSTATUS(rc);
	return rc == 127 ? 77 : rc;
}

/* ------------------------------------------------------------------ */
/* histogram */

static void test_hist_init_add(void **state)
{
	struct bb_hist *h = hist_new();

	(void)state;
	assert_int_equal(h->count, 0);
	assert_true(h->min_ns == UINT64_MAX);
	assert_int_equal(h->max_ns, 0);
	bb_hist_add(h, 300);
	bb_hist_add(h, 100);
	bb_hist_add(h, 200);
	assert_int_equal(h->count, 3);
	assert_int_equal(h->sum_ns, 600);
	assert_int_equal(h->min_ns, 100);
	assert_int_equal(h->max_ns, 300);
	free(h);
}

/* bucket -> value -> bucket is the identity, and value(bucket(v)) is
 * within 1/64 of v (exact below 128 ns) up to the last group (2^34 ns). */
static void test_hist_round_trip(void **state)
{
	uint64_t v;

	(void)state;
	for (unsigned i = 0; i < BB_HIST_NBUCKETS; i++) {
		uint64_t val = bb_hist_bucket_value(i);

		if (bb_hist_bucket(val) != i)
			fail_msg("bucket %u: value %llu maps to bucket %u", i,
				 (unsigned long long)val, bb_hist_bucket(val));
	}
	for (v = 0; v < 128; v++)
		assert_int_equal(bb_hist_bucket_value(bb_hist_bucket(v)), v);
	for (v = 128; v < (1u << 20); v++) {
		uint64_t got = bb_hist_bucket_value(bb_hist_bucket(v));
		uint64_t d = got > v ? got - v : v - got;

		if (d * 64 > v)
			fail_msg("%llu -> %llu", (unsigned long long)v,
				 (unsigned long long)got);
	}
	/* larger values: a multiplicative walk through every group */
	for (v = 1u << 20; v < (1ull << 34); v += v / 97 + 1) {
		uint64_t got = bb_hist_bucket_value(bb_hist_bucket(v));
		uint64_t d = got > v ? got - v : v - got;

		if (d * 64 > v)
			fail_msg("%llu -> %llu", (unsigned long long)v,
				 (unsigned long long)got);
	}
	/* fio's plat_idx_to_val by hand: idx 128 is the group of
	 * [128, 256) in 2 ns buckets, k=0 -> 128 + 0.5 * 2 = 129;
	 * idx 1855 is the last bucket: 2^33 + 63.5 * 2^27 */
	assert_int_equal(bb_hist_bucket_value(127), 127);
	assert_int_equal(bb_hist_bucket_value(128), 129);
	assert_int_equal(bb_hist_bucket_value(191), 128 + 63 * 2 + 1);
	assert_int_equal(bb_hist_bucket_value(192), 256 + 2);
	assert_true(bb_hist_bucket_value(1855) ==
		    (1ull << 33) + 63ull * (1ull << 27) + (1ull << 26));
	/* beyond the last group: clamped into the last bucket */
	assert_int_equal(bb_hist_bucket(1ull << 40), BB_HIST_NBUCKETS - 1);
}

/* Expected percentiles worked out by hand from the bucket layout: a value
 * v >= 128 with top bit m falls in a bucket of 2^e values, e = m - 6,
 * starting at v rounded down to 2^e; the bucket's value is its start +
 * 2^(e-1) (fio's midpoint), clamped to [min, max].  The rank is
 * ceil(p/100 * count). */
static void test_hist_percentiles_uniform(void **state)
{
	struct bb_hist *h = hist_new();

	(void)state;
	for (uint64_t v = 1; v <= 1000; v++)
		bb_hist_add(h, v);
	/* p50: rank 500, the value 500; 500 = 0b111110100 (m = 8, e = 2):
	 * bucket [500, 503], value 500 + 2 = 502 (true p50 is 500: within
	 * the 1/64 bucket error) */
	assert_int_equal(bb_hist_percentile(h, 50), 502);
	/* p90: rank 900; 900 (m = 9, e = 3): bucket [896, 903] -> 900 */
	assert_int_equal(bb_hist_percentile(h, 90), 900);
	/* p99: rank 990; bucket [984, 991] -> 988 */
	assert_int_equal(bb_hist_percentile(h, 99), 988);
	/* p99.9: rank 999 (not 1000: 99.9% of 1000 in floating point is
	 * 999.0000000000001); bucket [992, 999] -> 996 */
	assert_int_equal(bb_hist_percentile(h, 99.9), 996);
	/* p99.99: rank ceil(999.9) = 1000; bucket [1000, 1007] -> 1004,
	 * clamped to max 1000 */
	assert_int_equal(bb_hist_percentile(h, 99.99), 1000);
	assert_int_equal(bb_hist_percentile(h, 100), 1000);
	/* a tiny p is rank 1: the exact value 1 */
	assert_int_equal(bb_hist_percentile(h, 0.01), 1);
	/* mean from the sum: 500500 / 1000 */
	assert_int_equal(h->sum_ns, 500500);
	free(h);
}

static void test_hist_percentiles_small(void **state)
{
	struct bb_hist *h = hist_new();

	(void)state;
	/* values below 128 ns have buckets of their own: exact */
	bb_hist_add(h, 40);
	bb_hist_add(h, 10);
	bb_hist_add(h, 30);
	bb_hist_add(h, 20);
	assert_int_equal(bb_hist_percentile(h, 25), 10);  /* rank 1 */
	assert_int_equal(bb_hist_percentile(h, 26), 20);  /* rank ceil(1.04) = 2 */
	assert_int_equal(bb_hist_percentile(h, 50), 20);  /* rank 2 */
	assert_int_equal(bb_hist_percentile(h, 75), 30);  /* rank 3 */
	assert_int_equal(bb_hist_percentile(h, 100), 40); /* rank 4 */
	free(h);

	/* one value: every percentile is that value (clamped to min=max) */
	h = hist_new();
	bb_hist_add(h, 1000000);
	assert_int_equal(bb_hist_percentile(h, 1), 1000000);
	assert_int_equal(bb_hist_percentile(h, 50), 1000000);
	assert_int_equal(bb_hist_percentile(h, 99.99), 1000000);
	free(h);
}

static void test_hist_percentiles_bimodal(void **state)
{
	struct bb_hist *h = hist_new();

	(void)state;
	/* 900 x 100 ns, 100 x 10000 ns */
	for (int i = 0; i < 900; i++)
		bb_hist_add(h, 100);
	for (int i = 0; i < 100; i++)
		bb_hist_add(h, 10000);
	assert_int_equal(bb_hist_percentile(h, 50), 100);
	assert_int_equal(bb_hist_percentile(h, 90), 100);   /* rank 900 */
	/* rank 910: 10000 (m = 13, e = 7): bucket [9984, 10111], value
	 * 9984 + 64 = 10048, clamped to max 10000 */
	assert_int_equal(bb_hist_percentile(h, 91), 10000);
	/* with a max of 10100 in the same bucket the midpoint shows */
	bb_hist_add(h, 10100);
	assert_int_equal(bb_hist_percentile(h, 99), 10048);
	free(h);
}

static void test_hist_empty(void **state)
{
	struct bb_hist *h = hist_new();

	(void)state;
	assert_int_equal(bb_hist_percentile(h, 50), 0);
	assert_int_equal(bb_hist_percentile(h, 99.99), 0);
	assert_int_equal(bb_hist_percentile(h, 100), 0);
	free(h);
}

/* merge = adding: the halves merged equal the whole, byte for byte */
static void test_hist_merge(void **state)
{
	struct bb_hist *a = hist_new(), *b = hist_new(), *all = hist_new();
	struct bb_hist *e1 = hist_new(), *e2 = hist_new(), *copy = hist_new();

	(void)state;
	for (uint64_t v = 1; v <= 100000; v += 7) {
		bb_hist_add(v % 2 ? a : b, v * 13);
		bb_hist_add(all, v * 13);
	}
	memcpy(copy, a, sizeof(*a));
	bb_hist_merge(a, b);
	assert_memory_equal(a, all, sizeof(*a));
	assert_int_equal(bb_hist_percentile(a, 99), bb_hist_percentile(all, 99));

	/* merging an empty histogram changes nothing */
	bb_hist_merge(copy, e1);
	memcpy(b, copy, sizeof(*b));
	bb_hist_merge(b, e1);
	assert_memory_equal(b, copy, sizeof(*b));
	/* an empty histogram takes the other's values */
	bb_hist_merge(e1, copy);
	assert_memory_equal(e1, copy, sizeof(*e1));
	/* empty + empty stays empty, min stays UINT64_MAX */
	bb_hist_init(b);
	bb_hist_merge(e2, b);
	assert_int_equal(e2->count, 0);
	assert_true(e2->min_ns == UINT64_MAX);
	free(a);
	free(b);
	free(all);
	free(e1);
	free(e2);
	free(copy);
}

/* ------------------------------------------------------------------ */
/* the live line */

static char *sample_line(const char *target, uint32_t bs,
			 const struct bb_sample *s, uint64_t interval_ms)
{
	struct bb_config cfg;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	bb_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "%s", target);
	cfg.bs = bs;
	bb_sample_fprint(f, &cfg, s, interval_ms);
	fclose(f);
	return text;
}

/* The one IOPS rule: integers below 1000, then K/M/G with three or four
 * significant digits, carried at the rounding boundary. */
static void test_fmt_iops(void **state)
{
	static const struct {
		double v;
		const char *expect;
	} cases[] = {
		{ 0, "0" },	       { 7.4, "7" },	       { 999.4, "999" },
		{ 999.5, "1.0K" },     { 80418, "80.4K" },    { 100980, "101.0K" },
		{ 999949, "999.9K" },  { 999950, "1.00M" },   { 8900800, "8.90M" },
		{ 999994999, "999.99M" }, { 999995000, "1.00G" },
		{ 1.5e9, "1.50G" },    { -2500, "-2.5K" },    { NAN, "-" },
		{ INFINITY, "-" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bb_fmt_iops(buf, sizeof(buf), cases[i].v);
		if (strcmp(buf, cases[i].expect))
			fail_msg("%g: got '%s', expected '%s'", cases[i].v, buf,
				 cases[i].expect);
	}
}

static void test_sample_fprint(void **state)
{
	static const struct {
		const char *target;
		struct bb_sample s;
		uint64_t interval_ms;
		const char *expect;
	} cases[] = {
		/* nop: no BW; one rule on both sides of 100K (bb_fmt_iops),
		 * not t/io_uring's integers below 100K */
		{ "nop", { .ios = 99999, .submitted = 3200, .enters = 100,
			   .reaped = 3200 }, 1000,
		  "IOPS=100.0K, IOS/call=32/32\n" },
		{ "nop", { .ios = 80418, .submitted = 3200, .enters = 100,
			   .reaped = 3200 }, 1000,
		  "IOPS=80.4K, IOS/call=32/32\n" },
		{ "nop", { .ios = 999, .submitted = 3200, .enters = 100,
			   .reaped = 3200 }, 1000,
		  "IOPS=999, IOS/call=32/32\n" },
		{ "nop", { .ios = 123456, .submitted = 3200, .enters = 100,
			   .reaped = 3200 }, 1000,
		  "IOPS=123.5K, IOS/call=32/32\n" },
		/* 123456 * 4096 B/s = 482.25 MiB/s -> 482 */
		{ "/dev/nvme0n1", { .ios = 123456, .bytes = 123456ull * 4096,
				    .submitted = 3200, .enters = 100,
				    .reaped = 3200 }, 1000,
		  "IOPS=123.5K, BW=482MiB/s, IOS/call=32/32\n" },
		/* 2.5M x 4k = 9765.625 MiB/s -> 9765 / 1024 = 9.54 GiB/s;
		 * 3100/100 = 31, 3050/100 = 30 (integer division) */
		{ "/dev/nvme0n1", { .ios = 2500000, .bytes = 2500000ull * 4096,
				    .submitted = 3100, .enters = 100,
				    .reaped = 3050 }, 1000,
		  "IOPS=2.50M, BW=9.54GiB/s, IOS/call=31/30\n" },
		/* no enters: -1/-1 */
		{ "/tmp/f", { .ios = 0 }, 1000, "IOPS=0, BW=0MiB/s, IOS/call=-1/-1\n" },
		/* half a second: 50000 I/Os = 100000 IOPS;
		 * 409600000 B/s = 390.6 MiB/s -> 390 */
		{ "/tmp/f", { .ios = 50000, .bytes = 50000ull * 4096 }, 500,
		  "IOPS=100.0K, BW=390MiB/s, IOS/call=-1/-1\n" },
		/* interval 0 is taken as 1 s */
		{ "nop", { .ios = 7, .submitted = 7, .enters = 7, .reaped = 7 },
		  0, "IOPS=7, IOS/call=1/1\n" },
		/* 1e6 is 1.00M, not 1000.0K; 999949 still K */
		{ "nop", { .ios = 1000000 }, 1000, "IOPS=1.00M, IOS/call=-1/-1\n" },
		{ "nop", { .ios = 999949 }, 1000, "IOPS=999.9K, IOS/call=-1/-1\n" },
		/* exactly 2000 MiB/s stays in MiB/s; 2001 is 1.95 GiB/s */
		{ "/tmp/f", { .ios = 512000, .bytes = 2000ull << 20 }, 1000,
		  "IOPS=512.0K, BW=2000MiB/s, IOS/call=-1/-1\n" },
		{ "/tmp/f", { .ios = 512256, .bytes = 2001ull << 20 }, 1000,
		  "IOPS=512.3K, BW=1.95GiB/s, IOS/call=-1/-1\n" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *line = sample_line(cases[i].target, 4096, &cases[i].s,
					 cases[i].interval_ms);

		if (strcmp(line, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, line,
				 cases[i].expect);
		free(line);
	}
}

/* ------------------------------------------------------------------ */
/* CPU and perf */

static void test_cpu_usage(void **state)
{
	struct bb_cpu_usage a, b;
	volatile uint64_t x = 0;
	uint64_t t0 = bb_now_ns();

	(void)state;
	assert_int_equal(bb_cpu_usage_thread(&a), 0);
	while (bb_now_ns() - t0 < 30000000ull) /* 30 ms of CPU */
		x++;
	assert_int_equal(bb_cpu_usage_thread(&b), 0);
	assert_true(b.usr_ns + b.sys_ns > a.usr_ns + a.sys_ns);
	assert_true(b.usr_ns >= a.usr_ns);
	assert_true(b.sys_ns >= a.sys_ns);
}

static void test_perf(void **state)
{
	char reason[128];
	int fi = 7, fc = 7, ret;
	uint64_t ins = 0, cyc = 0;

	(void)state;
	ret = bb_perf_open(&fi, &fc, reason, sizeof(reason));
	if (ret == 0) {
		volatile uint64_t x = 0;

		for (int i = 0; i < 100000; i++)
			x += (uint64_t)i;
		(void)x; /* the work is the point; the value is not */
		assert_int_equal(bb_perf_read(fi, fc, &ins, &cyc), 0);
		assert_true(ins > 0);
		close(fi);
		close(fc);
		print_message("perf available: %llu instructions\n",
			      (unsigned long long)ins);
		return;
	}
	/* this VM has no PMU: a negative errno and a reason naming the
	 * event, nothing left open */
	assert_true(ret < 0);
	assert_int_equal(fi, -1);
	assert_int_equal(fc, -1);
	assert_true(!strncmp(reason, "perf_event_open(", 16));
	assert_non_null(strstr(reason, strerror(-ret)));
	if (ret == -ENOENT)
		assert_non_null(strstr(reason, "(no PMU on this host?)"));
	assert_int_equal(bb_perf_read(-1, -1, &ins, &cyc), -EBADF);
	print_message("perf unavailable: %s\n", reason);
}

/* ------------------------------------------------------------------ */
/* results */

static void fill_counters(void *p, size_t size, uint64_t first)
{
	uint64_t *c = p;

	for (size_t i = 0; i < size / sizeof(uint64_t); i++)
		c[i] = first + i;
}

static struct bb_result *result_new(bool perf, bool samples)
{
	struct bb_result *r = calloc(1, sizeof(*r));

	assert_non_null(r);
	r->start_unix_ms = 1767225600000ull;
	r->duration_ns = 2000000000ull;
	r->io.ios = 2000;
	r->io.reads = 2000;
	r->io.bytes_read = 2000ull * 4096;
	r->io.dev_reads = 2000;
	r->io.sectors_read = 2000 * 8;
	r->io.submitted = 2000;
	r->io.enters = 100;
	r->io.reaped = 2000;
	bb_hist_init(&r->lat);
	for (uint64_t v = 1; v <= 1000; v++) {
		bb_hist_add(&r->lat, v * 1000);
		bb_hist_add(&r->lat, v * 1000);
	}
	r->cpu_submit.usr_ns = 1500000000ull;
	r->cpu_submit.sys_ns = 250000000ull;
	r->cpu_completion.usr_ns = 0;
	r->cpu_completion.sys_ns = 0;
	r->perf_available = perf;
	if (perf) {
		r->instructions = 2000ull * 5000;
		r->cycles = 2000ull * 2500;
	} else {
		snprintf(r->perf_unavailable_reason,
			 sizeof(r->perf_unavailable_reason),
			 "perf_event_open(instructions): No such file or directory (no PMU on this host?)");
	}
	fill_counters(&r->cache, sizeof(r->cache), 1);
	fill_counters(&r->split_cache, sizeof(r->split_cache), 101);
	fill_counters(&r->split, sizeof(r->split), 201);
	bb_limits_default(&r->limits);
	snprintf(r->target_kind, sizeof(r->target_kind), "nop");
	snprintf(r->kernel_helpers, sizeof(r->kernel_helpers), "none");
	r->ring_flags = 0;
	if (samples) {
		r->nsamples = 2;
		r->samples = calloc(2, sizeof(*r->samples));
		assert_non_null(r->samples);
		r->samples[0] = (struct bb_sample){ .t_ms = 1000, .ios = 1200,
			.bytes = 1200ull * 4096, .submitted = 1200,
			.enters = 60, .reaped = 1200 };
		r->samples[1] = (struct bb_sample){ .t_ms = 1500, .ios = 800,
			.bytes = 800ull * 4096, .submitted = 800,
			.enters = 40, .reaped = 800 };
	}
	return r;
}

static struct json_object *path(struct json_object *o, const char *a,
				const char *b)
{
	o = json_object_object_get(o, a);
	return b ? json_object_object_get(o, b) : o;
}

static void test_result_json_keys(void **state)
{
	static const char *const top[] = {
		"version", "start_unix_ms", "config", "target", "ring_flags",
		"duration_s", "iops", "bw_bytes_s", "io", "latency_ns", "cpu",
		"perf", "bio_cache", "split", "samples", "error", "kernel_cost",
	};
	static const char *const lat[] = {
		"mode", "count", "min", "mean", "max", "p50", "p90", "p99",
		"p99_9", "p99_99", "plat_bits", "buckets",
	};
	static const char *const io[] = {
		"ios", "reads", "writes", "bytes_read", "bytes_written",
		"dev_reads", "dev_writes", "sectors_read", "sectors_written",
		"errors", "verify_errors", "submitted", "enters", "reaped",
	};
	struct bb_result *r = result_new(false, true);
	struct bb_config cfg;
	struct json_object *d, *s;

	(void)state;
	bb_config_default(&cfg);
	d = bb_result_to_json(&cfg, r);
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++)
		if (!json_object_object_get_ex(d, top[i], NULL))
			fail_msg("result lacks %s", top[i]);
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		assert_non_null(path(d, "latency_ns", lat[i]));
	for (size_t i = 0; i < sizeof(io) / sizeof(io[0]); i++)
		assert_non_null(path(d, "io", io[i]));

	assert_int_equal(json_object_get_int(path(d, "version", NULL)), 1);
	assert_true(json_object_get_double(path(d, "iops", NULL)) == 1000.0);
	assert_true(json_object_get_double(path(d, "duration_s", NULL)) == 2.0);
	assert_true(json_object_get_double(path(d, "bw_bytes_s", NULL)) ==
		    1000.0 * 4096);
	assert_string_equal(json_object_get_string(path(d, "target", "kind")), "nop");
	assert_string_equal(json_object_get_string(path(d, "target", "path")), "nop");
	assert_int_equal(json_object_get_int(path(path(d, "target", "limits"),
					 "max_segments", NULL)),
			 r->limits.max_segments);
	assert_string_equal(json_object_get_string(path(d, "config", "bio_cache")), "all");
	assert_int_equal(json_object_get_int(path(d, "config", "iodepth")), 128);
	/* latency: the values of the percentiles functions */
	assert_string_equal(json_object_get_string(path(d, "latency_ns", "mode")), "batch");
	assert_int_equal(json_object_get_int64(path(d, "latency_ns", "count")), 2000);
	assert_int_equal(json_object_get_int64(path(d, "latency_ns", "min")), 1000);
	assert_int_equal(json_object_get_int64(path(d, "latency_ns", "max")), 1000000);
	assert_true(json_object_get_double(path(d, "latency_ns", "mean")) == 500500.0);
	assert_int_equal(json_object_get_int64(path(d, "latency_ns", "p50")),
			 bb_hist_percentile(&r->lat, 50));
	assert_int_equal(json_object_get_int64(path(d, "latency_ns", "p99_99")),
			 bb_hist_percentile(&r->lat, 99.99));
	/* counters land in their own fields */
	assert_int_equal(json_object_get_int(path(d, "bio_cache", "alloc_hit")), 1);
	assert_int_equal(json_object_get_int(path(d, "bio_cache", "prune")), 15);
	assert_int_equal(json_object_get_int(path(path(d, "bio_cache", "split_bioset"),
					 "alloc_hit", NULL)), 101);
	assert_int_equal(json_object_get_int(path(path(d, "bio_cache", "split_bioset"),
					 "prune", NULL)), 115);
	assert_int_equal(json_object_get_int(path(d, "split", "checks")), 201);
	assert_int_equal(json_object_get_int(path(d, "split", "segs")), 208);
	/* the kernel cost: the defaults, per request on nop; null when off */
	assert_int_equal(json_object_get_int(path(d, "kernel_cost", "slab_alloc_ns")),
			 BB_KCOST_SLAB_ALLOC_NS);
	assert_int_equal(json_object_get_int(path(d, "kernel_cost", "request_ns")),
			 BB_KCOST_REQUEST_NS);
	assert_true(json_object_get_boolean(path(d, "kernel_cost", "per_request")));
	assert_non_null(strstr(json_object_get_string(path(d, "kernel_cost", "note")),
			       "calibrated, not executed"));
	json_object_put(d);
	cfg.kernel_cost = false;
	d = bb_result_to_json(&cfg, r);
	assert_true(json_object_object_get_ex(d, "kernel_cost", &s));
	assert_null(s);
	cfg.kernel_cost = true;
	cfg.direct = true;
	snprintf(cfg.target, sizeof(cfg.target), "/dev/nvme0n1");
	json_object_put(d);
	d = bb_result_to_json(&cfg, r);
	assert_false(json_object_get_boolean(path(d, "kernel_cost", "per_request")));
	assert_int_equal(json_object_get_int(path(d, "kernel_cost", "request_ns")), 0);
	assert_int_equal(json_object_get_int(path(d, "kernel_cost", "slab_free_ns")),
			 BB_KCOST_SLAB_FREE_NS);
	snprintf(cfg.target, sizeof(cfg.target), "nop");
	json_object_put(d);
	d = bb_result_to_json(&cfg, r);
	/* cpu: (1.5 + 0.25) s / 2000 I/Os = 875000 ns */
	assert_true(json_object_get_double(path(d, "cpu", "per_io_ns")) == 875000.0);
	/* perf unavailable: the reason */
	assert_false(json_object_get_boolean(path(d, "perf", "available")));
	assert_non_null(strstr(json_object_get_string(path(d, "perf", "reason")),
			       "no PMU"));
	/* samples: 1200 in [0, 1000] ms, 800 in [1000, 1500] ms */
	s = json_object_array_get_idx(path(d, "samples", NULL), 1);
	assert_true(json_object_get_double(json_object_object_get(s, "iops")) == 1600.0);
	s = json_object_array_get_idx(path(d, "samples", NULL), 0);
	assert_true(json_object_get_double(json_object_object_get(s, "iops")) == 1200.0);
	assert_true(json_object_is_type(path(d, "error", NULL), json_type_null));
	json_object_put(d);
	bb_result_free(r);
	assert_null(r->samples);
	assert_int_equal(r->nsamples, 0);
	bb_result_free(r); /* twice is harmless */
	free(r);
}

/* The document of several filled-in results against
 * schema/result.schema.json, by python3-jsonschema. */
static void test_result_json_schema(void **state)
{
	struct bb_config cfg;
	struct json_object *d;
	struct bb_result *r;
	char err[256];
	int rc;

	(void)state;
	bb_config_default(&cfg);

	r = result_new(false, true);
	d = bb_result_to_json(&cfg, r);
	rc = validate_result(json_object_to_json_string(d), false);
	if (rc == 77) {
		json_object_put(d);
		bb_result_free(r);
		free(r);
		skip();
	}
	assert_int_equal(rc, 0);

	/* negative controls: a missing field, an unknown field */
	json_object_object_del(d, "iops");
	assert_int_equal(validate_result(json_object_to_json_string(d), true), 1);
	json_object_object_add(d, "iops", json_object_new_double(1.0));
	json_object_object_add(d, "surprise", json_object_new_int(1));
	assert_int_equal(validate_result(json_object_to_json_string(d), true), 1);
	json_object_put(d);
	bb_result_free(r);
	free(r);

	/* perf available, a failed run, a busy config */
	r = result_new(true, false);
	snprintf(r->error, sizeof(r->error), "target busy");
	assert_int_equal(bb_options_set(&cfg, "cpus", "0-3", err, sizeof(err)), 0);
	assert_int_equal(bb_options_set(&cfg, "max_sectors_kb", "64", err, sizeof(err)), 0);
	assert_int_equal(bb_options_set(&cfg, "runtime", "1.5s", err, sizeof(err)), 0);
	assert_int_equal(bb_options_set(&cfg, "seed", "0x7fffffffffffffff", err, sizeof(err)), 0);
	d = bb_result_to_json(&cfg, r);
	assert_true(json_object_get_double(path(d, "perf", "instructions_per_io")) == 5000.0);
	assert_string_equal(json_object_get_string(path(d, "error", NULL)), "target busy");
	assert_int_equal(validate_result(json_object_to_json_string(d), false), 0);
	json_object_put(d);
	bb_result_free(r);
	free(r);

	/* an empty run: no latency samples, no I/Os */
	r = calloc(1, sizeof(*r));
	assert_non_null(r);
	bb_hist_init(&r->lat);
	d = bb_result_to_json(&cfg, r);
	assert_int_equal(json_object_get_int64(path(d, "latency_ns", "min")), 0);
	assert_int_equal(validate_result(json_object_to_json_string(d), false), 0);
	json_object_put(d);
	free(r);
}

/* The config part of the result schema is the options schema: the file
 * and the generated one must not drift apart. */
static void test_result_schema_config_matches(void **state)
{
	char file[4096];
	struct json_object *s, *gen, *cfg;

	(void)state;
	bb_test_src_path(file, sizeof(file), "schema/result.schema.json");
	s = json_object_from_file(file);
	assert_non_null(s);
	gen = bb_options_json_schema();
	cfg = path(path(s, "$defs", NULL), "config", NULL);
	assert_non_null(cfg);
	if (!json_object_equal(json_object_object_get(cfg, "properties"),
			       json_object_object_get(gen, "properties")))
		fail_msg("schema/result.schema.json $defs.config.properties "
			 "differs from bb_options_json_schema(): copy the generated "
			 "properties into it");
	assert_true(json_object_equal(
		json_object_object_get(cfg, "additionalProperties"),
		json_object_object_get(gen, "additionalProperties")));
	json_object_put(gen);
	json_object_put(s);
}

static void test_result_fprint(void **state)
{
	struct bb_result *r = result_new(false, true);
	struct bb_config cfg;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	bb_config_default(&cfg);
	f = open_memstream(&text, &len);
	bb_result_fprint(f, &cfg, r);
	fclose(f);
	assert_non_null(strstr(text, "target: nop (io_uring NOPs through the bio model, no device)"));
	assert_null(strstr(text, "nop (nop)"));
	assert_non_null(strstr(text, "workload: randread bs=4096 iodepth=128 threads=1 mode=irq"));
	assert_non_null(strstr(text, "bio_cache=all split_check=iter bio_layout=vec_early"));
	assert_non_null(strstr(text, "IOPS=1.0K (2000 I/Os in 2.00 s"));
	assert_null(strstr(text, "BW=")); /* nop */
	/* 1..1000 us twice: min 1 us, mean 500.5 us, max 1000 us */
	assert_non_null(strstr(text, "lat (usec, per batch): min=1.00 mean=500.50 p50="));
	assert_non_null(strstr(text, "p99.99="));
	assert_non_null(strstr(text, "max=1000.00"));
	assert_non_null(strstr(text, "cpu: submit usr=1.50s sys=0.25s, completion usr=0.00s sys=0.00s, 875000 ns/IO"));
	assert_non_null(strstr(text, "perf: unavailable: perf_event_open(instructions): No such file or directory (no PMU on this host?)"));
	assert_non_null(strstr(text, "bio cache: alloc hit=1 miss=2"));
	assert_non_null(strstr(text, "split bioset: alloc hit=101"));
	assert_non_null(strstr(text, "split: checks=201 hits=202"));
	/* the kernel cost, on by default: calibrated, not executed, with
	 * the per-request part for nop */
	assert_non_null(strstr(text, "  kernel cost: calibrated, not executed: slab 12 ns per object allocated, 9 ns freed, mempool 25 ns per reserve take or refill; block layer 110 ns and completion 80 ns per request\n"));
	/* nop: the model's requests, said to be the model's; no disk line */
	assert_non_null(strstr(text, "device: model requests read=2000 write=0, sectors read=16000 written=0 (the bio model's; nop has no device)"));
	assert_null(strstr(text, "  disk: "));
	free(text);
	bb_result_free(r);
	free(r);

	/* a page-cached file: the model's 2000 requests, and beside them the
	 * 5 reads its disk counted */
	r = result_new(false, false);
	snprintf(cfg.target, sizeof(cfg.target), "/var/tmp/f.dat");
	snprintf(r->target_kind, sizeof(r->target_kind), "file");
	r->disk = (struct bb_diskstats){ .checked = true, .name = "vda1",
					 .reads = 5, .sectors_read = 40 };
	text = NULL;
	f = open_memstream(&text, &len);
	bb_result_fprint(f, &cfg, r);
	fclose(f);
	assert_non_null(strstr(text, "device: model requests read=2000 write=0, sectors read=16000 written=0 (the bio model's, not the disk's"));
	assert_non_null(strstr(text, "  disk: vda1 in /proc/diskstats: reads=5 writes=0, sectors read=40 written=0 (the measured interval; other I/O to that disk counts too)"));
	/* O_DIRECT on a file: the kernel's own block layer ran */
	assert_non_null(strstr(text, "; block layer and completion: the kernel's own (O_DIRECT: executed, not added)\n"));
	free(text);
	/* ... on tmpfs: no disk, and it says so */
	r->disk.checked = false;
	text = NULL;
	f = open_memstream(&text, &len);
	bb_result_fprint(f, &cfg, r);
	fclose(f);
	assert_non_null(strstr(text, "  disk: none under /var/tmp/f.dat"));
	free(text);
	bb_result_free(r);
	free(r);

	/* a block device: its requests, and the same in /proc/diskstats */
	r = result_new(false, false);
	snprintf(cfg.target, sizeof(cfg.target), "/dev/loop0");
	snprintf(r->target_kind, sizeof(r->target_kind), "block");
	r->disk = (struct bb_diskstats){ .checked = true, .name = "loop0",
					 .reads = 2000, .sectors_read = 16000 };
	text = NULL;
	f = open_memstream(&text, &len);
	bb_result_fprint(f, &cfg, r);
	fclose(f);
	assert_non_null(strstr(text, "  device: requests read=2000 write=0, sectors read=16000 written=0\n"));
	assert_non_null(strstr(text, "  disk: loop0 in /proc/diskstats: reads=2000 writes=0, sectors read=16000 written=0 (the measured interval)\n"));
	free(text);
	bb_result_free(r);
	free(r);
	snprintf(cfg.target, sizeof(cfg.target), "nop");

	/* perf available, a real target with BW, latency off */
	r = result_new(true, false);
	snprintf(cfg.target, sizeof(cfg.target), "/dev/nvme0n1");
	cfg.lat = BB_LAT_OFF;
	text = NULL;
	f = open_memstream(&text, &len);
	bb_result_fprint(f, &cfg, r);
	fclose(f);
	/* 2000 x 4 KiB over 2 s = 3.9 MiB/s -> 3 */
	assert_non_null(strstr(text, "IOPS=1.0K, BW=3MiB/s"));
	assert_non_null(strstr(text, "lat: off"));
	assert_non_null(strstr(text, "perf: 5000.0 instructions/IO, 2500.0 cycles/IO, IPC 2.00"));
	free(text);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_init_add),
		cmocka_unit_test(test_hist_round_trip),
		cmocka_unit_test(test_hist_percentiles_uniform),
		cmocka_unit_test(test_hist_percentiles_small),
		cmocka_unit_test(test_hist_percentiles_bimodal),
		cmocka_unit_test(test_hist_empty),
		cmocka_unit_test(test_hist_merge),
		cmocka_unit_test(test_fmt_iops),
		cmocka_unit_test(test_sample_fprint),
		cmocka_unit_test(test_cpu_usage),
		cmocka_unit_test(test_perf),
		cmocka_unit_test(test_result_json_keys),
		cmocka_unit_test(test_result_json_schema),
		cmocka_unit_test(test_result_schema_config_matches),
		cmocka_unit_test(test_result_fprint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
