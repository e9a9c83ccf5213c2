// SPDX-License-Identifier: GPL-2.0-only
/* test_options.c - the run option table: command line, JSON, checks,
 * --help and the generated JSON Schema.  Table-driven: each good input
 * with the exact resulting field value, each bad input with the exact
 * expected message (or the part of it that matters). */
#include <errno.h>
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

/* ------------------------------------------------------------------ */
/* helpers */

#define MAX_ARGS 32

/* Split a space-separated argument string (no quoting) and parse it as
 * `biobench run ARGS`. */
static int parse_str(const char *args, struct bb_config *cfg, char *err,
		     size_t errlen)
{
	char buf[1024];
	char *argv[MAX_ARGS];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	argv[argc++] = "run";
	for (char *tok = strtok(buf, " "); tok; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	bb_config_default(cfg);
	err[0] = '\0';
	return bb_options_parse(argc, argv, cfg, err, errlen);
}

static uint64_t load_field(const struct bb_config *cfg, size_t off,
			   size_t width)
{
	const char *p = (const char *)cfg + off;

	switch (width) {
	case 1: { uint8_t v; memcpy(&v, p, 1); return v; }
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

static uint64_t trunc_width(uint64_t v, size_t width)
{
	return width >= 8 ? v : v & ((1ull << (width * 8)) - 1);
}

/* The JSON Schema checker of the unit tests. */
static void script_path(char *buf, size_t len)
{
	bb_test_src_path(buf, len, "tests/unit/check_json_schema.py");
}

static void write_tmp(char *path, size_t len, const char *text)
{
	int fd;

	snprintf(path, len, "/tmp/bb_test_options_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* 0 valid, 1 invalid, 77 no jsonschema (test skipped by the caller). */
static int validate_q(struct json_object *schema, const char *doc_text,
		      bool quiet)
{
	char spath[64], dpath[64], script[4096], cmd[8192];
	int rc;

	write_tmp(spath, sizeof(spath),
		  json_object_to_json_string_ext(schema, JSON_C_TO_STRING_PLAIN));
	write_tmp(dpath, sizeof(dpath), doc_text);
	script_path(script, sizeof(script));
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s' '%s'%s", script, spath,
		 dpath, quiet ? " 2>/dev/null" : "");
	rc = system(cmd);
	unlink(spath);
	unlink(dpath);
	if (rc == -1 || !WIFEXITED(rc))
		return 77;
	rc = WEXITSTATUS(rc);
	return rc == 127 ? 77 : rc; /* 127: no python3 */
}

static int validate(struct json_object *schema, const char *doc_text)
{
	return validate_q(schema, doc_text, false);
}

/* ------------------------------------------------------------------ */
/* good command lines */

struct good {
	const char *args;
	size_t off, width;
	uint64_t val;
};

#define G(a, f, v)                                                             \
	{ a, offsetof(struct bb_config, f),                                    \
	  sizeof(((struct bb_config *)0)->f), (uint64_t)(v) }

static const struct good goods[] = {
	/* sizes: binary suffixes, both value forms */
	G("--bs=4k nop", bs, 4096),
	G("--bs 64K nop", bs, 65536),
	G("--bs=1m nop", bs, 1u << 20),
	G("--bs=1MiB nop", bs, 1u << 20),
	G("--bs=8kb nop", bs, 8192),
	G("--bs=512 nop", bs, 512),
	G("--bs=64m nop", bs, 64u << 20),
	G("--bs=4k --bs=8k nop", bs, 8192), /* last wins */
	G("nop --bs=8k", bs, 8192),         /* options after the target */
	G("--size=2g nop", size, 2ull << 30),
	G("--size=1t nop", size, 1ull << 40),
	G("--offset=1m nop", offset, 1u << 20),
	/* integers, decimal and hex */
	G("--iodepth=1 nop", iodepth, 1),
	G("--iodepth 65536 nop", iodepth, 65536),
	G("--iodepth=0x20 nop", iodepth, 32),
	G("--threads=4 nop", threads, 4),
	G("--threads=64 nop", threads, 64),
	G("--seed=0xdeadbeef nop", seed, 0xdeadbeef),
	G("--seed=9223372036854775807 nop", seed, INT64_MAX),
	G("--rw=randrw --rwmixread=70 nop", rwmixread, 70),
	G("--rwmixread=0 nop", rwmixread, 0),
	G("--inject-ns=250 nop", inject_ns, 250),
	G("--runtime=0 --number-ios=1000 nop", number_ios, 1000),
	G("--sqpoll-cpu=3 --mode=sqpoll nop", sqpoll_cpu, 3),
	G("--sqpoll-cpu -1 nop", sqpoll_cpu, -1),
	G("--completion-cpu=5 nop", completion_cpu, 5),
	/* durations */
	G("--runtime=500ms nop", runtime_ns, 500000000ull),
	G("--runtime=10 nop", runtime_ns, 10000000000ull),
	G("--runtime=2m nop", runtime_ns, 120000000000ull),
	G("--runtime=1h nop", runtime_ns, 3600000000000ull),
	G("--runtime=1.5s nop", runtime_ns, 1500000000ull),
	G("--runtime=0.25 nop", runtime_ns, 250000000ull),
	G("--runtime=250us nop", runtime_ns, 250000ull),
	G("--runtime=0 --number-ios=1 nop", runtime_ns, 0),
	G("--runtime=0 nop", runtime_ns, 0), /* until interrupted */
	G("--no-register-ring nop", register_ring, false),
	G("--restrict-ring nop", restrict_ring, true),
	G("--numa-place nop", numa_place, true),
	G("--vectored --fixedbufs=0 --model none /tmp/f", vectored, true),
	G("--ramp-time=3s nop", ramp_ns, 3000000000ull),
	/* enums */
	G("--rw=read nop", rw, BB_RW_READ),
	G("--rw=write nop", rw, BB_RW_WRITE),
	G("--rw randwrite nop", rw, BB_RW_RANDWRITE),
	G("--rw=randrw nop", rw, BB_RW_RANDRW),
	G("--mode=irq nop", mode, BB_MODE_IRQ),
	G("--mode=poll nop", mode, BB_MODE_POLL),
	G("--mode=sqpoll nop", mode, BB_MODE_SQPOLL),
	G("--completion=thread nop", completion, BB_COMPLETION_THREAD),
	G("--completion=irq nop", completion, BB_COMPLETION_IRQ),
	G("--completion auto nop", completion, BB_COMPLETION_AUTO),
	G("--completion=inline nop", completion, BB_COMPLETION_INLINE),
	G("--device-ns=1500 nop", device_ns, 1500),
	G("--cold-bios nop", cold_bios, 1),
	G("--kernel-cost=off nop", kernel_cost, 0),
	G("--kcost-slab-alloc-ns 30 nop", kcost.slab_alloc_ns, 30),
	G("--kcost-request-ns=0 nop", kcost.request_ns, 0),
	G("--bio-cache=all_split nop", bio_cache, BB_CACHE_ALL_SPLIT),
	G("--lat=off nop", lat, BB_LAT_OFF),
	G("--lat io nop", lat, BB_LAT_IO),
	G("--bio-cache=off nop", bio_cache, BB_CACHE_OFF),
	G("--bio-cache=task nop", bio_cache, BB_CACHE_TASK),
	G("--bio-cache=irq nop", bio_cache, BB_CACHE_IRQ),
	G("--bio-cache=irq_fast nop", bio_cache, BB_CACHE_IRQ_FAST),
	G("--bio-cache all nop", bio_cache, BB_CACHE_ALL),
	G("--split-check=vcnt nop", split_check, BB_SPLIT_CHECK_VCNT),
	G("--bio-layout=vec_late nop", bio_layout, BB_LAYOUT_VEC_LATE),
	/* booleans */
	G("--direct nop", direct, 1),
	G("--no-direct nop", direct, 0),
	G("--direct=0 nop", direct, 0),
	G("--direct=false nop", direct, 0),
	G("--no-direct --direct=yes nop", direct, 1),
	G("--no-fixedbufs nop", fixedbufs, 0),
	G("--registerfiles=off nop", registerfiles, 0),
	G("--allow-write nop", allow_write, 1),
	G("--verify --rw=write /tmp/x", verify, 1),
	G("--json nop", json, 1),
	G("--quiet=1 nop", quiet, 1),
	/* cross-field adjustments */
	G("--submit-batch=0 nop", submit_batch, 1),
	G("--complete-batch=0 nop", complete_batch, 1),
	G("--submit-batch=64 --iodepth=16 nop", submit_batch, 16),
	G("--complete-batch=100 --iodepth=8 nop", complete_batch, 8),
	G("--mode=sqpoll --no-registerfiles nop", registerfiles, 1),
	G("--mode=poll --no-direct nop", direct, 1),
	/* queue limits */
	G("--max-sectors-kb=128 nop", limits.max_user_sectors, 256),
	G("--max-segments=64 nop", limits.max_segments, 64),
	G("--max-segment-size=64k nop", limits.max_segment_size, 65536),
	G("--seg-boundary=0xffff nop", limits.seg_boundary_mask, 0xffff),
	G("--seg-boundary=0xFFFFFFFF nop", limits.seg_boundary_mask, 0xffffffffu),
	G("--virt-boundary=4095 nop", limits.virt_boundary_mask, 4095),
	G("--chunk-sectors=256 nop", limits.chunk_sectors, 256),
	G("--lbs=4k --bs=8k nop", limits.logical_block_size, 4096),
	G("--max-sectors-kb=128 nop", limits_set, BB_LIM_MAX_SECTORS_KB),
	G("--max-segments=64 nop", limits_set, BB_LIM_MAX_SEGMENTS),
	G("--max-segment-size=8k nop", limits_set, BB_LIM_MAX_SEGMENT_SIZE),
	G("--virt-boundary=0xfff nop", limits_set, BB_LIM_VIRT_BOUNDARY),
	G("--chunk-sectors=8 nop", limits_set, BB_LIM_CHUNK_SECTORS),
	G("--lbs=4k --seg-boundary=0xfff nop", limits_set,
	  BB_LIM_LBS | BB_LIM_SEG_BOUNDARY),
	G("nop", limits_set, 0),
};

static void test_good_command_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		const struct good *g = &goods[i];
		struct bb_config cfg;
		char err[256];
		int ret = parse_str(g->args, &cfg, err, sizeof(err));

		if (ret != 0)
			fail_msg("'%s': ret %d: %s", g->args, ret, err);
		if (load_field(&cfg, g->off, g->width) !=
		    trunc_width(g->val, g->width))
			fail_msg("'%s': got %llu, expected %llu", g->args,
				 (unsigned long long)load_field(&cfg, g->off,
								g->width),
				 (unsigned long long)trunc_width(g->val,
								 g->width));
	}
}

static void test_defaults(void **state)
{
	struct bb_config cfg;

	(void)state;
	bb_config_default(&cfg);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(cfg.rw, BB_RW_RANDREAD);
	assert_int_equal(cfg.bs, 4096);
	assert_int_equal(cfg.iodepth, 128);
	assert_int_equal(cfg.runtime_ns, 5000000000ull);
	assert_int_equal(cfg.number_ios, 0);
	assert_int_equal(cfg.ramp_ns, 0);
	assert_int_equal(cfg.threads, 1);
	assert_int_equal(cfg.ncpus, 0);
	assert_int_equal(cfg.seed, 0x5eed);
	assert_true(cfg.direct);
	assert_false(cfg.allow_write);
	assert_false(cfg.verify);
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_true(cfg.fixedbufs);
	assert_true(cfg.registerfiles);
	assert_int_equal(cfg.submit_batch, 32);
	assert_int_equal(cfg.complete_batch, 32);
	assert_int_equal(cfg.sqpoll_cpu, -1);
	assert_int_equal(cfg.completion, BB_COMPLETION_AUTO);
	assert_int_equal(bb_config_completion(&cfg), BB_COMPLETION_IRQ);
	assert_string_equal(bb_config_put_context(&cfg), "hardirq");
	assert_int_equal(cfg.completion_cpu, -1);
	assert_int_equal(cfg.lat, BB_LAT_BATCH);
	assert_int_equal(cfg.inject_ns, 0);
	assert_int_equal(cfg.device_ns, 0);
	assert_false(cfg.cold_bios);
	assert_true(cfg.kernel_cost);
	assert_int_equal(cfg.kcost.slab_alloc_ns, BB_KCOST_SLAB_ALLOC_NS);
	assert_int_equal(cfg.kcost.completion_ns, BB_KCOST_COMPLETION_NS);
	assert_int_equal(cfg.bio_cache, BB_CACHE_ALL);
	assert_int_equal(cfg.split_check, BB_SPLIT_CHECK_ITER);
	assert_int_equal(cfg.bio_layout, BB_LAYOUT_VEC_EARLY);
	assert_int_equal(cfg.limits_set, 0);
	assert_int_equal(cfg.limits.max_user_sectors, 0);
	assert_int_equal(cfg.limits.seg_boundary_mask, 0);
	assert_int_equal(cfg.rwmixread, 50);
	assert_false(cfg.json);
	assert_false(cfg.quiet);
}

static void test_names(void **state)
{
	(void)state;
	assert_string_equal(bb_rw_name(BB_RW_READ), "read");
	assert_string_equal(bb_rw_name(BB_RW_WRITE), "write");
	assert_string_equal(bb_rw_name(BB_RW_RANDREAD), "randread");
	assert_string_equal(bb_rw_name(BB_RW_RANDWRITE), "randwrite");
	assert_string_equal(bb_rw_name(BB_RW_RANDRW), "randrw");
	assert_string_equal(bb_rw_name(BB_RW__COUNT), "?");
	assert_string_equal(bb_mode_name(BB_MODE_IRQ), "irq");
	assert_string_equal(bb_mode_name(BB_MODE_POLL), "poll");
	assert_string_equal(bb_mode_name(BB_MODE_SQPOLL), "sqpoll");
	assert_string_equal(bb_completion_name(BB_COMPLETION_INLINE), "inline");
	assert_string_equal(bb_completion_name(BB_COMPLETION_THREAD), "thread");
	assert_string_equal(bb_completion_name(BB_COMPLETION_IRQ), "irq");
	assert_string_equal(bb_completion_name(BB_COMPLETION_AUTO), "auto");
	assert_string_equal(bb_completion_name(BB_COMPLETION__COUNT), "?");
	assert_string_equal(bb_lat_mode_name(BB_LAT_OFF), "off");
	assert_string_equal(bb_lat_mode_name(BB_LAT_IO), "io");
	assert_string_equal(bb_lat_mode_name(BB_LAT_BATCH), "batch");
	assert_string_equal(bb_lat_mode_name(BB_LAT__COUNT), "?");
}

/* The completion context follows the mode as the kernel's does. */
static void test_completion_context(void **state)
{
	static const struct {
		enum bb_completion c;
		enum bb_mode mode;
		enum bb_model model;
		enum bb_completion want;
		const char *ctx;
	} t[] = {
		{ BB_COMPLETION_AUTO, BB_MODE_IRQ, BB_MODEL_BIO,
		  BB_COMPLETION_IRQ, "hardirq" },
		{ BB_COMPLETION_AUTO, BB_MODE_SQPOLL, BB_MODEL_BIO,
		  BB_COMPLETION_IRQ, "hardirq" },
		{ BB_COMPLETION_AUTO, BB_MODE_POLL, BB_MODEL_BIO,
		  BB_COMPLETION_INLINE, "task" },
		{ BB_COMPLETION_AUTO, BB_MODE_IRQ, BB_MODEL_NONE,
		  BB_COMPLETION_INLINE, "none" },
		{ BB_COMPLETION_INLINE, BB_MODE_IRQ, BB_MODEL_BIO,
		  BB_COMPLETION_INLINE, "task" },
		{ BB_COMPLETION_IRQ, BB_MODE_IRQ, BB_MODEL_BIO,
		  BB_COMPLETION_IRQ, "hardirq" },
		{ BB_COMPLETION_THREAD, BB_MODE_IRQ, BB_MODEL_BIO,
		  BB_COMPLETION_THREAD, "hardirq_cross_cpu" },
	};

	(void)state;
	for (size_t i = 0; i < bb_array_size(t); i++) {
		struct bb_config cfg;

		bb_config_default(&cfg);
		cfg.completion = t[i].c;
		cfg.mode = t[i].mode;
		cfg.model = t[i].model;
		assert_int_equal(bb_config_completion(&cfg), t[i].want);
		assert_string_equal(bb_config_put_context(&cfg), t[i].ctx);
	}
}

static void test_target_and_cpus(void **state)
{
	struct bb_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(parse_str("--bs=8k /dev/nvme0n1", &cfg, err,
				   sizeof(err)), 0);
	assert_string_equal(cfg.target, "/dev/nvme0n1");
	/* after "--" a name starting with dashes is the target */
	assert_int_equal(parse_str("--iodepth=4 -- --odd-file", &cfg, err,
				   sizeof(err)), 0);
	assert_string_equal(cfg.target, "--odd-file");
	assert_int_equal(cfg.iodepth, 4);

	assert_int_equal(parse_str("--cpus=0,2-3 nop", &cfg, err, sizeof(err)),
			 0);
	assert_int_equal(cfg.ncpus, 3);
	assert_int_equal(cfg.cpus[0], 0);
	assert_int_equal(cfg.cpus[1], 2);
	assert_int_equal(cfg.cpus[2], 3);
	assert_int_equal(parse_str("--cpus 7 nop", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.ncpus, 1);
	assert_int_equal(cfg.cpus[0], 7);
	assert_int_equal(parse_str("--cpus=0-63 nop", &cfg, err, sizeof(err)),
			 0);
	assert_int_equal(cfg.ncpus, 64);
	assert_int_equal(cfg.cpus[63], 63);
}

static void test_help_returns_1(void **state)
{
	static const char *const helps[] = {
		"--help", "-h", "--bs=3x --help", "nop --help", "--help=1",
	};
	struct bb_config cfg;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(helps) / sizeof(helps[0]); i++)
		assert_int_equal(parse_str(helps[i], &cfg, err, sizeof(err)), 1);
	/* after "--", "--help" is a target name */
	assert_int_equal(parse_str("-- --help", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "--help");
}

/* ------------------------------------------------------------------ */
/* bad command lines */

struct bad {
	const char *args;
	const char *msg; /* expected substring of the one-line message */
};

static const struct bad bads[] = {
	{ "--bs=3x nop", "--bs: '3x' is not a size (examples: 512, 4k, 64k, 1m)" },
	{ "--seed=9223372036854775808 nop", "--seed: 9223372036854775808 is out of range" },
	{ "--seed=18446744073709551616 nop", "--seed: " },
	{ "--bs=4q nop", "--bs: '4q' is not a size" },
	{ "--bs= nop", "--bs: '' is not a size" },
	{ "--bs=-4k nop", "--bs: '-4k' is not a size" },
	{ "--bs=4kk nop", "--bs: '4kk' is not a size" },
	{ "--bs=0x1000 nop", "--bs: '0x1000' is not a size" },
	{ "--bs=256 nop", "--bs: 256 is out of range 512..64m" },
	{ "--bs=128m nop", "--bs: 128m is out of range 512..64m" },
	{ "--bs=1000 nop", "--bs: 1000 is not a multiple of 512" },
	{ "--bs=99999999999999999999 nop", "--bs: 99999999999999999999 is too large" },
	{ "--size=20000000t nop", "--size: 20000000t is too large" },
	{ "--size=1k nop", "--size: 1k is smaller than --bs 4k" },
	{ "--offset=100 /tmp/f", "--offset: 100 is not a multiple of 512 (needed by --direct)" },
	{ "--bio-cache=fast nop", "--bio-cache: 'fast' is not one of off, task, irq, irq_fast, all, all_split" },
	{ "--bio-cache=ALL nop", "--bio-cache: 'ALL' is not one of off, task, irq, irq_fast, all, all_split" },
	{ "--rw=readwrite nop", "--rw: 'readwrite' is not one of read, write, randread, randwrite, randrw" },
	{ "--mode=interrupt nop", "--mode: 'interrupt' is not one of irq, poll, sqpoll" },
	{ "--completion=fast nop", "--completion: 'fast' is not one of inline, thread, irq, auto" },
	{ "--device-ns=-1 nop", "--device-ns" },
	{ "--kcost-request-ns=100001 nop", "--kcost-request-ns" },
	{ "--lat=on nop", "--lat: 'on' is not one of off, io, batch" },
	{ "--split-check=x nop", "--split-check: 'x' is not one of vcnt, iter" },
	{ "--bio-layout=x nop", "--bio-layout: 'x' is not one of vec_late, vec_early" },
	{ "--iodepth=0 nop", "--iodepth: 0 is out of range 1..65536" },
	{ "--iodepth=65537 nop", "--iodepth: 65537 is out of range 1..65536" },
	{ "--iodepth=-1 nop", "--iodepth: -1 is out of range 1..65536" },
	{ "--iodepth=abc nop", "--iodepth: 'abc' is not an integer" },
	{ "--iodepth=4k nop", "--iodepth: '4k' is not an integer" },
	{ "--iodepth=0x nop", "--iodepth: '0x' is not an integer" },
	{ "--iodepth nop", "--iodepth: 'nop' is not an integer" },
	{ "nop --iodepth", "--iodepth: missing value (an integer)" },
	{ "--iodepth --bs=4k nop", "--iodepth: missing value (an integer)" },
	{ "nop --bio-cache", "--bio-cache: missing value (one of off, task, irq, irq_fast, all, all_split)" },
	{ "--threads=65 nop", "--threads: 65 is out of range 1..64" },
	{ "--threads=0 nop", "--threads: 0 is out of range 1..64" },
	{ "--rwmixread=101 nop", "--rwmixread: 101 is out of range 0..100" },
	{ "--number-ios=-5 nop", "--number-ios: -5 is out of range 0..9223372036854775807" },
	{ "--runtime=5x nop", "--runtime: '5x' is not a duration (examples: 10, 500ms, 5s, 2m, 1h)" },
	{ "--runtime=1.s nop", "--runtime: '1.s' is not a duration" },
	{ "--runtime=-1 nop", "--runtime: '-1' is not a duration" },
	{ "--runtime=5S nop", "--runtime: '5S' is not a duration" },
	{ "--ramp-time=x nop", "--ramp-time: 'x' is not a duration" },
	{ "--vectored --fixedbufs=0 /tmp/f", "--vectored: vectored I/O is issued without the bio model: give --model none" },
	{ "--vectored --model none /tmp/f", "--vectored: READV/WRITEV take no registered buffer: give --fixedbufs=0" },
	{ "--vectored --fixedbufs=0 --model none nop", "--vectored: vectored I/O needs a file or a block device" },
	{ "--numa-place --cpus 0 /tmp/f", "--numa-place: --cpus already places the threads" },
	{ "--cpus=0-x nop", "--cpus: '0-x' is not a CPU list (examples: 0, 0-3, 0,2-3)" },
	{ "--cpus=3-1 nop", "--cpus: '3-1' is not a CPU list" },
	{ "--cpus=0,,1 nop", "--cpus: '0,,1' is not a CPU list" },
	{ "--cpus=0, nop", "--cpus: '0,' is not a CPU list" },
	{ "--cpus=0-64 nop", "--cpus: '0-64' lists more than 64 CPUs" },
	{ "--cpus=5000 nop", "--cpus: '5000' names a CPU above 1023" },
	{ "--seg-boundary=0x1000 nop", "--seg-boundary: 0x1000 is not of the form 2^n-1 (examples: 0xfff, 0xffffffff)" },
	{ "--seg-boundary=zz nop", "--seg-boundary: 'zz' is not a mask" },
	{ "--virt-boundary=-1 nop", "--virt-boundary: '-1' is not a mask" },
	{ "--virt-boundary=4096 nop", "--virt-boundary: 0x1000 is not of the form 2^n-1" },
	{ "--max-segments=70000 nop", "--max-segments: 70000 is out of range 0..65535" },
	{ "--max-sectors-kb=4294967295 nop", "--max-sectors-kb: 4294967295 is out of range 0..2147483647" },
	{ "--max-segment-size=8g nop", "--max-segment-size: 8g is out of range 0..4294967295" },
	{ "--chunk-sectors=x nop", "--chunk-sectors: 'x' is not an integer" },
	{ "--lbs=1000 nop", "--lbs: 1000 is not a power of two in 512..64k" },
	{ "--lbs=128k nop", "--lbs: 128k is out of range 0..64k" },
	{ "--lbs=4k --bs=2k nop", "--bs: 2048 is not a multiple of --lbs 4096" },
	{ "--sqpoll-cpu=-2 nop", "--sqpoll-cpu: -2 is out of range -1..1023" },
	{ "--completion-cpu=1024 nop", "--completion-cpu: 1024 is out of range -1..1023" },
	{ "--inject-ns=2000000000 nop", "--inject-ns: 2000000000 is out of range 0..1000000000" },
	{ "--direct=maybe nop", "--direct: 'maybe' is not a boolean (use 1, 0, true, false, yes, no, on or off)" },
	{ "--no-direct=1 nop", "--no-direct takes no value" },
	{ "--no-bs nop", "--no-bs: --bs is not a boolean option" },
	{ "--no-foo nop", "unknown option --no-foo (see biobench run --help)" },
	{ "--foo nop", "unknown option --foo (see biobench run --help)" },
	{ "--foo=1 nop", "unknown option --foo (see biobench run --help)" },
	{ "--max_sectors_kb=8 nop", "unknown option --max_sectors_kb: did you mean --max-sectors-kb? (see biobench run --help)" },
	{ "--iodpeth 4 nop", "unknown option --iodpeth: did you mean --iodepth? (see biobench run --help)" },
	{ "--bio-cahce off nop", "unknown option --bio-cahce: did you mean --bio-cache?" },
	{ "--target=nop nop", "unknown option --target" },
	{ "-x nop", "unknown option -x (see biobench run --help)" },
	{ "--bs=4k", "missing target (nop, a file or a block device) as the last argument" },
	{ "", "missing target (nop, a file or a block device) as the last argument" },
	{ "nop /dev/sda", "target: nop is one target of its own, not one of several files" },
	{ "/tmp/a nop", "target: nop is one target of its own, not one of several files" },
	{ "--model=none --completion=thread nop", "--completion thread models the bio puts of hard-irq context and needs --model bio" },
	{ "--model=none --completion=irq nop", "--completion irq models the bio puts of hard-irq context and needs --model bio" },
	{ "--model=none --cold-bios nop", "--cold-bios evicts the model's bios and needs --model bio" },
	{ "--model=bios nop", "--model: 'bios' is not one of bio, none" },
	{ "--nop-kind=file /tmp/f", "--nop-kind file applies to the nop target only (the target is /tmp/f)" },
	{ "--nop-kind=tiou nop", "--nop-kind: 'tiou' is not one of plain, file" },
	{ "/f1 /f2 /f3 /f4 /f5 /f6 /f7 /f8 /f9 /f10 /f11 /f12 /f13 /f14 /f15 /f16 /f17",
	  "target: 17 files on 1 thread(s) is more than 16 files per thread (t/io_uring's limit); add --threads" },
	{ "--verify nop", "--verify needs a write workload (write, randwrite, randrw)" },
	{ "--verify --rw=randread /tmp/f", "--verify needs a write workload (write, randwrite, randrw)" },
	{ "--verify --rw=randwrite nop", "--verify needs a file or a block device" },
	{ "--mode=poll --completion=thread nop", "--completion thread models IRQ completions and cannot be combined with --mode poll" },
	{ "--mode=poll --completion=irq nop", "--completion irq models IRQ completions and cannot be combined with --mode poll" },
};

static void test_bad_command_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];
		struct bb_config cfg;
		char err[256];
		int ret = parse_str(b->args, &cfg, err, sizeof(err));

		if (ret != -EINVAL)
			fail_msg("'%s': ret %d (expected -EINVAL), err '%s'",
				 b->args, ret, err);
		if (!strstr(err, b->msg))
			fail_msg("'%s': message '%s' lacks '%s'", b->args, err,
				 b->msg);
		if (strchr(err, '\n'))
			fail_msg("'%s': message has several lines", b->args);
	}
}

static void test_value_parsers(void **state)
{
	uint64_t v;
	int cpus[8];
	unsigned n;

	(void)state;
	assert_int_equal(bb_parse_size("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(bb_parse_size("2G", &v), 0);
	assert_int_equal(v, 2ull << 30);
	assert_int_equal(bb_parse_size("16777215t", &v), 0);
	assert_int_equal(v, 16777215ull << 40);
	assert_int_equal(bb_parse_size("16777216t", &v), -ERANGE);
	assert_int_equal(bb_parse_size(" 4k", &v), -EINVAL);
	assert_int_equal(bb_parse_size("4 k", &v), -EINVAL);
	assert_int_equal(bb_parse_size("", &v), -EINVAL);

	assert_int_equal(bb_parse_duration_ns("5s", &v), 0);
	assert_int_equal(v, 5000000000ull);
	assert_int_equal(bb_parse_duration_ns("500ms", &v), 0);
	assert_int_equal(v, 500000000ull);
	assert_int_equal(bb_parse_duration_ns("1m", &v), 0);
	assert_int_equal(v, 60000000000ull);
	assert_int_equal(bb_parse_duration_ns("2h", &v), 0);
	assert_int_equal(v, 7200000000000ull);
	assert_int_equal(bb_parse_duration_ns("10", &v), 0);
	assert_int_equal(v, 10000000000ull);
	assert_int_equal(bb_parse_duration_ns("0.001", &v), 0);
	assert_int_equal(v, 1000000ull);
	assert_int_equal(bb_parse_duration_ns("7ns", &v), 0);
	assert_int_equal(v, 7);
	assert_int_equal(bb_parse_duration_ns("99999999999h", &v), -ERANGE);
	assert_int_equal(bb_parse_duration_ns("s", &v), -EINVAL);
	assert_int_equal(bb_parse_duration_ns(".5s", &v), -EINVAL);

	assert_int_equal(bb_parse_cpulist("0,2-3", cpus, 8, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(cpus[2], 3);
	assert_int_equal(bb_parse_cpulist("0-8", cpus, 8, &n), -E2BIG);
	assert_int_equal(bb_parse_cpulist("1024", cpus, 8, &n), -ERANGE);
	assert_int_equal(bb_parse_cpulist("1-", cpus, 8, &n), -EINVAL);
	assert_int_equal(bb_parse_cpulist("", cpus, 8, &n), -EINVAL);
}

/* ------------------------------------------------------------------ */
/* bb_options_set */

static void test_options_set(void **state)
{
	struct bb_config cfg;
	char err[256];

	(void)state;
	bb_config_default(&cfg);
	assert_int_equal(bb_options_set(&cfg, "max-sectors-kb", "64", err,
					sizeof(err)), 0);
	assert_int_equal(cfg.limits.max_user_sectors, 128);
	assert_int_equal(cfg.limits_set, BB_LIM_MAX_SECTORS_KB);
	assert_int_equal(bb_options_set(&cfg, "max_segments", "32", err,
					sizeof(err)), 0);
	assert_int_equal(cfg.limits.max_segments, 32);
	assert_int_equal(cfg.limits_set,
			 BB_LIM_MAX_SECTORS_KB | BB_LIM_MAX_SEGMENTS);
	assert_int_equal(bb_options_set(&cfg, "bio_cache", "off", err,
					sizeof(err)), 0);
	assert_int_equal(cfg.bio_cache, BB_CACHE_OFF);
	assert_int_equal(bb_options_set(&cfg, "bio-cache", "task", err,
					sizeof(err)), 0);
	assert_int_equal(cfg.bio_cache, BB_CACHE_TASK);
	assert_int_equal(bb_options_set(&cfg, "fixedbufs", "false", err,
					sizeof(err)), 0);
	assert_false(cfg.fixedbufs);
	assert_int_equal(bb_options_set(&cfg, "fixedbufs", NULL, err,
					sizeof(err)), 0);
	assert_true(cfg.fixedbufs);
	assert_int_equal(bb_options_set(&cfg, "target", "/dev/loop0", err,
					sizeof(err)), 0);
	assert_string_equal(cfg.target, "/dev/loop0");

	/* the message names the field as given */
	assert_int_equal(bb_options_set(&cfg, "bio_cache", "fast", err,
					sizeof(err)), -EINVAL);
	assert_string_equal(err,
		"bio_cache: 'fast' is not one of off, task, irq, irq_fast, all, all_split");
	assert_int_equal(bb_options_set(&cfg, "ramp-time", "1x", err,
					sizeof(err)), -EINVAL);
	assert_string_equal(err,
		"ramp-time: '1x' is not a duration (examples: 10, 500ms, 5s, 2m, 1h)");
	assert_int_equal(bb_options_set(&cfg, "iodepth", NULL, err,
					sizeof(err)), -EINVAL);
	assert_string_equal(err, "iodepth: missing value (an integer)");
	assert_int_equal(bb_options_set(&cfg, "frobnicate", "1", err,
					sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "unknown option 'frobnicate'"));
	assert_int_equal(bb_options_set(&cfg, "help", "1", err, sizeof(err)),
			 -ENOENT);
}

/* ------------------------------------------------------------------ */
/* JSON */

static int from_json_text(struct bb_config *cfg, const char *text,
			  const char *path, char *err, size_t errlen)
{
	struct json_object *obj = json_tokener_parse(text);
	int ret;

	assert_non_null(obj);
	err[0] = '\0';
	ret = bb_options_from_json(cfg, obj, path, err, errlen);
	json_object_put(obj);
	return ret;
}

static void test_json_good(void **state)
{
	struct bb_config cfg;
	char err[256];

	(void)state;
	bb_config_default(&cfg);
	assert_int_equal(from_json_text(&cfg,
		"{\"bs\":\"64k\",\"iodepth\":32,\"direct\":false,"
		"\"bio_cache\":\"irq\",\"runtime\":0.5,\"ramp_time\":\"2s\","
		"\"cpus\":[1,3],\"seg_boundary\":\"0xffff\","
		"\"virt_boundary\":4095,\"max_sectors_kb\":256,"
		"\"rw\":\"randrw\",\"rwmixread\":30,"
		"\"seed\":9223372036854775807,\"size\":1073741824,"
		"\"number_ios\":1e3,\"sqpoll_cpu\":-1,"
		"\"target\":\"/dev/nvme0n1\",\"threads\":2.0}",
		"workload", err, sizeof(err)), 0);
	assert_int_equal(cfg.bs, 65536);
	assert_int_equal(cfg.iodepth, 32);
	assert_false(cfg.direct);
	assert_int_equal(cfg.bio_cache, BB_CACHE_IRQ);
	assert_int_equal(cfg.runtime_ns, 500000000ull);
	assert_int_equal(cfg.ramp_ns, 2000000000ull);
	assert_int_equal(cfg.ncpus, 2);
	assert_int_equal(cfg.cpus[0], 1);
	assert_int_equal(cfg.cpus[1], 3);
	assert_int_equal(cfg.limits.seg_boundary_mask, 0xffff);
	assert_int_equal(cfg.limits.virt_boundary_mask, 4095);
	assert_int_equal(cfg.limits.max_user_sectors, 512);
	assert_int_equal(cfg.limits_set, BB_LIM_SEG_BOUNDARY |
				 BB_LIM_VIRT_BOUNDARY | BB_LIM_MAX_SECTORS_KB);
	assert_int_equal(cfg.rw, BB_RW_RANDRW);
	assert_int_equal(cfg.rwmixread, 30);
	assert_true(cfg.seed == INT64_MAX);
	assert_int_equal(cfg.size, 1ull << 30);
	assert_int_equal(cfg.number_ios, 1000);
	assert_int_equal(cfg.sqpoll_cpu, -1);
	assert_string_equal(cfg.target, "/dev/nvme0n1");
	assert_int_equal(cfg.threads, 2);
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);
}

struct json_bad {
	const char *json;
	const char *path;
	const char *msg;
};

static const struct json_bad json_bads[] = {
	{ "{\"iodepth\":\"32\"}", "workload", "workload.iodepth: expected an integer" },
	{ "{\"iodepth\":1.5}", "workload", "workload.iodepth: expected an integer" },
	{ "{\"iodepth\":null}", "workload", "workload.iodepth: expected an integer" },
	{ "{\"iodepth\":0}", "workload", "workload.iodepth: 0 is out of range 1..65536" },
	{ "{\"iodepth\":-3}", "workload", "workload.iodepth: -3 is out of range 1..65536" },
	{ "{\"iodepth\":0}", "", "iodepth: 0 is out of range 1..65536" },
	{ "{\"iodepth\":0}", NULL, "iodepth: 0 is out of range 1..65536" },
	{ "{\"iodepth\":0}", "variants.b", "variants.b.iodepth: 0 is out of range 1..65536" },
	/* values from a JSON document are quoted as JSON strings */
	{ "{\"bs\":\"3x\"}", "workload", "workload.bs: \"3x\" is not a size (examples: 512, 4k, 64k, 1m)" },
	{ "{\"bs\":256}", "workload", "workload.bs: 256 is out of range 512..64m" },
	{ "{\"bs\":true}", "workload", "workload.bs: expected a size (an integer in bytes or a string such as \"4k\")" },
	{ "{\"bio_cache\":\"fast\"}", "workload", "workload.bio_cache: \"fast\" is not one of off, task, irq, irq_fast, all, all_split" },
	{ "{\"bio_cache\":3}", "workload", "workload.bio_cache: expected one of off, task, irq, irq_fast, all, all_split" },
	{ "{\"direct\":1}", "workload", "workload.direct: expected a boolean" },
	{ "{\"direct\":\"true\"}", "workload", "workload.direct: expected a boolean" },
	{ "{\"runtime\":-1}", "workload", "workload.runtime: -1 is out of range" },
	{ "{\"runtime\":\"5x\"}", "workload", "workload.runtime: \"5x\" is not a duration" },
	{ "{\"runtime\":[]}", "workload", "workload.runtime: expected a duration" },
	{ "{\"cpus\":[0,\"x\"]}", "workload", "workload.cpus[1]: expected an integer" },
	{ "{\"cpus\":[5000]}", "workload", "workload.cpus[0]: 5000 is out of range 0..1023" },
	{ "{\"cpus\":\"0-x\"}", "workload", "workload.cpus: \"0-x\" is not a CPU list" },
	{ "{\"cpus\":3}", "workload", "workload.cpus: expected a CPU list" },
	{ "{\"seg_boundary\":4096}", "workload", "workload.seg_boundary: 0x1000 is not of the form 2^n-1" },
	{ "{\"seg_boundary\":-1}", "workload", "workload.seg_boundary: -1 is not a mask" },
	{ "{\"target\":\"\"}", "workload", "workload.target: must not be empty" },
	{ "{\"target\":7}", "workload", "workload.target: expected a string" },
	{ "{\"foo\":1}", "workload", "workload.foo: unknown option" },
	{ "{\"iodpeth\":1}", "workload", "workload.iodpeth: unknown option: did you mean \"iodepth\"?" },
	{ "{\"json\":true}", "workload", "workload.json: unknown option" },
	{ "{\"help\":true}", "workload", "workload.help: unknown option" },
	{ "{\"max-sectors-kb\":8}", "workload", "workload.max-sectors-kb: unknown option" },
	{ "[1,2]", "workload", "workload: expected an object" },
	/* doubles far outside int64: undefined conversion before the range
	 * check (UBSan; found by tests/fuzz/fuzz_http) */
	{ "{\"number_ios\":1e101}", "workload", "workload.number_ios: " },
	{ "{\"iodepth\":-1e300}", "workload", "workload.iodepth: " },
	{ "{\"inject_ns\":9.3e18}", "workload", "workload.inject_ns: " },
};

/* One option at a time, with the path of what is wrong kept apart from
 * the message, and the cross-field checks naming their option by field. */
static void test_json_field(void **state)
{
	struct json_object *v;
	struct bb_config cfg;
	char field[128], err[256];

	(void)state;
	bb_config_default(&cfg);
	v = json_tokener_parse("[0, 5000]");
	assert_int_equal(bb_option_from_json(&cfg, "variants.B", "cpus", v,
					     field, sizeof(field), err,
					     sizeof(err)), -EINVAL);
	assert_string_equal(field, "variants.B.cpus[1]");
	assert_string_equal(err, "variants.B.cpus[1]: 5000 is out of range 0..1023");
	json_object_put(v);
	v = json_object_new_string("fast");
	assert_int_equal(bb_option_from_json(&cfg, "workload", "bio_cache", v,
					     field, sizeof(field), err,
					     sizeof(err)), -EINVAL);
	assert_string_equal(field, "workload.bio_cache");
	assert_non_null(strstr(err, "\"fast\" is not one of"));
	assert_int_equal(bb_option_from_json(&cfg, "workload", "frobnicate", v,
					     field, sizeof(field), err,
					     sizeof(err)), -ENOENT);
	assert_string_equal(field, "workload.frobnicate");
	json_object_put(v);
	v = json_object_new_int(16);
	assert_int_equal(bb_option_from_json(&cfg, NULL, "iodepth", v, field,
					     sizeof(field), err, sizeof(err)), 0);
	assert_int_equal(cfg.iodepth, 16);
	json_object_put(v);
	assert_true(bb_option_json_known("max_sectors_kb"));
	assert_false(bb_option_json_known("max-sectors-kb"));
	assert_false(bb_option_json_known("help"));

	cfg.bs = 3000;
	assert_int_equal(bb_config_check_field(&cfg, field, sizeof(field), err,
					       sizeof(err)), -EINVAL);
	assert_string_equal(field, "bs");
	assert_string_equal(err, "3000 is not a multiple of 512");
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--bs: 3000 is not a multiple of 512");
	cfg.bs = 4096;
	/* --runtime 0 --number-ios 0: until interrupted, not an error */
	cfg.runtime_ns = 0;
	cfg.number_ios = 0;
	assert_int_equal(bb_config_check_field(&cfg, field, sizeof(field), err,
					       sizeof(err)), 0);
	cfg.mode = BB_MODE_POLL;
	cfg.completion = BB_COMPLETION_THREAD;
	assert_int_equal(bb_config_check_field(&cfg, field, sizeof(field), err,
					       sizeof(err)), -EINVAL);
	assert_string_equal(field, "completion");
}

static void test_json_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(json_bads) / sizeof(json_bads[0]); i++) {
		const struct json_bad *b = &json_bads[i];
		struct bb_config cfg;
		char err[256];
		int ret;

		bb_config_default(&cfg);
		ret = from_json_text(&cfg, b->json, b->path, err, sizeof(err));
		if (ret != -EINVAL)
			fail_msg("%s: ret %d", b->json, ret);
		if (strncmp(err, b->msg, strlen(b->msg)))
			fail_msg("%s: message '%s' does not start with '%s'",
				 b->json, err, b->msg);
	}
}

/* config -> JSON -> config gives the same config */
static void test_json_round_trip(void **state)
{
	struct bb_config a, b;
	struct json_object *ja, *jb;
	char err[256];

	(void)state;
	assert_int_equal(parse_str("--bs=16k --iodepth=8 --runtime=1.25s "
				   "--ramp-time=250ms --cpus=1,4-5 "
				   "--rw=randrw --rwmixread=25 --mode=sqpoll "
				   "--sqpoll-cpu=2 --bio-cache=irq_fast "
				   "--split-check=vcnt --bio-layout=vec_late "
				   "--max-sectors-kb=64 --virt-boundary=0xfff "
				   "--lbs=4k --seed=0x7fffffffffffffff "
				   "--inject-ns=100 --no-fixedbufs /tmp/file",
				   &a, err, sizeof(err)), 0);
	ja = bb_config_to_json(&a);
	/* sizes as integers, durations as seconds, enums as names */
	assert_int_equal(json_object_get_int(json_object_object_get(ja, "bs")),
			 16384);
	assert_true(json_object_get_double(json_object_object_get(ja, "runtime")) == 1.25);
	assert_string_equal(json_object_get_string(
		json_object_object_get(ja, "bio_cache")), "irq_fast");
	assert_int_equal(json_object_get_int(
		json_object_object_get(ja, "max_sectors_kb")), 64);
	assert_null(json_object_object_get(ja, "max_segments")); /* not set */
	assert_null(json_object_object_get(ja, "json"));
	assert_string_equal(json_object_to_json_string(
		json_object_object_get(ja, "cpus")), "[ 1, 4, 5 ]");
	assert_string_equal(json_object_to_json_string(
		json_object_object_get(ja, "ramp_time")), "0.25");

	bb_config_default(&b);
	assert_int_equal(bb_options_from_json(&b, ja, "config", err,
					      sizeof(err)), 0);
	assert_int_equal(bb_config_check(&b, err, sizeof(err)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	jb = bb_config_to_json(&b);
	assert_string_equal(json_object_to_json_string(ja),
			    json_object_to_json_string(jb));
	json_object_put(ja);
	json_object_put(jb);
}

/* ------------------------------------------------------------------ */
/* --help and the schema */

/* Every option of the brief, written down independently of the table. */
static const char *const cli_names[] = {
	"rw", "rwmixread", "bs", "iodepth", "runtime", "number-ios",
	"ramp-time", "threads", "cpus", "size", "offset", "direct",
	"allow-write", "seed", "verify", "engine", "mode", "fixedbufs",
	"registerfiles", "submit-batch", "complete-batch", "sqpoll-cpu",
	"completion", "completion-cpu", "max-memory", "lat", "inject-ns",
	"register-ring", "restrict-ring", "vectored", "numa-place",
	"device-ns", "nop-kind", "model", "bio-cache",
	"split-check", "bio-layout", "cold-bios", "kernel-cost",
	"kcost-slab-alloc-ns", "kcost-slab-free-ns", "kcost-mempool-ns",
	"kcost-request-ns", "kcost-completion-ns", "max-sectors-kb", "max-segments",
	"max-segment-size", "seg-boundary", "virt-boundary",
	"chunk-sectors", "lbs", "json", "quiet", "help",
};
static const char *const bool_names[] = {
	"direct", "allow-write", "verify", "fixedbufs", "registerfiles",
	"cold-bios", "kernel-cost", "json", "quiet",
};

/* Several targets: the command line's trailing arguments, a JSON array,
 * and back; t/io_uring's spread of files over threads. */
static void test_several_targets(void **state)
{
	struct bb_config a, b;
	struct json_object *ja, *t;
	unsigned f[BB_MAX_TARGETS_PER_THREAD], n;
	const char *p;
	char err[256];

	(void)state;
	assert_int_equal(parse_str("--threads 2 /tmp/a /dev/loop7 /tmp/c", &a,
				   err, sizeof(err)), 0);
	assert_int_equal(a.ntargets, 3);
	assert_string_equal(a.target, "/tmp/a");
	p = bb_config_next_target(&a, a.target);
	assert_string_equal(p, "/dev/loop7");
	p = bb_config_next_target(&a, p);
	assert_string_equal(p, "/tmp/c");
	assert_null(bb_config_next_target(&a, p));
	ja = bb_config_to_json(&a);
	t = json_object_object_get(ja, "target");
	assert_true(json_object_is_type(t, json_type_array));
	assert_string_equal(json_object_to_json_string_ext(t, JSON_C_TO_STRING_PLAIN |
							    JSON_C_TO_STRING_NOSLASHESCAPE),
			    "[\"/tmp/a\",\"/dev/loop7\",\"/tmp/c\"]");
	bb_config_default(&b);
	assert_int_equal(bb_options_from_json(&b, ja, "config", err,
					      sizeof(err)), 0);
	assert_int_equal(bb_config_check(&b, err, sizeof(err)), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	json_object_put(ja);
	/* one target stays a string */
	assert_int_equal(parse_str("/tmp/a", &a, err, sizeof(err)), 0);
	ja = bb_config_to_json(&a);
	assert_string_equal(json_object_get_string(json_object_object_get(ja, "target")),
			    "/tmp/a");
	json_object_put(ja);
	/* JSON: an array element that is not a string */
	bb_config_default(&b);
	ja = json_tokener_parse("{\"target\": [\"/tmp/a\", 3]}");
	assert_int_equal(bb_options_from_json(&b, ja, "workload", err,
					      sizeof(err)), -EINVAL);
	assert_string_equal(err, "workload.target[1]: expected a string");
	json_object_put(ja);

	/* t/io_uring: files over threads */
	n = bb_spread_targets(3, 1, 0, f);
	assert_int_equal(n, 3);
	assert_int_equal(f[0] + f[1] * 10 + f[2] * 100, 0 + 10 + 200);
	for (unsigned th = 0; th < 4; th++) { /* 1 file, 4 threads */
		assert_int_equal(bb_spread_targets(1, 4, th, f), 1);
		assert_int_equal(f[0], 0);
	}
	/* 2 files, 3 threads: file 0 gets threads 0 and 1, file 1 thread 2 */
	assert_int_equal(bb_spread_targets(2, 3, 0, f), 1);
	assert_int_equal(f[0], 0);
	assert_int_equal(bb_spread_targets(2, 3, 1, f), 1);
	assert_int_equal(f[0], 0);
	assert_int_equal(bb_spread_targets(2, 3, 2, f), 1);
	assert_int_equal(f[0], 1);
	/* 5 files, 2 threads: round robin */
	assert_int_equal(bb_spread_targets(5, 2, 0, f), 3);
	assert_int_equal(f[0] * 100 + f[1] * 10 + f[2], 24);
	assert_int_equal(bb_spread_targets(5, 2, 1, f), 2);
	assert_int_equal(f[0] * 10 + f[1], 13);
}

static void test_help_lists_everything(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned defaults = 0;

	(void)state;
	assert_non_null(f);
	bb_options_help(f);
	fclose(f);
	for (size_t i = 0; i < sizeof(cli_names) / sizeof(cli_names[0]); i++) {
		char a[64], b[64];

		snprintf(a, sizeof(a), "--%s", cli_names[i]);
		snprintf(b, sizeof(b), "--[no-]%s", cli_names[i]);
		if (!strstr(text, a) && !strstr(text, b))
			fail_msg("--help lacks %s", a);
	}
	for (size_t i = 0; i < sizeof(bool_names) / sizeof(bool_names[0]); i++) {
		char b[64];

		snprintf(b, sizeof(b), "--[no-]%s", bool_names[i]);
		if (!strstr(text, b))
			fail_msg("--help lacks %s", b);
	}
	/* defaults and allowed values */
	assert_non_null(strstr(text, "--bio-cache=off|task|irq|irq_fast|all"));
	assert_non_null(strstr(text, "--rw=read|write|randread|randwrite|randrw"));
	assert_non_null(strstr(text, "--mode=irq|poll|sqpoll"));
	assert_non_null(strstr(text, "--engine=io_uring|uring_cmd"));
	assert_non_null(strstr(text, "--lat=off|io|batch"));
	assert_non_null(strstr(text, "default: 128; range 1..65536"));
	assert_non_null(strstr(text, "default: 4k; range 512..64m"));
	assert_non_null(strstr(text, "default: 5s"));
	assert_non_null(strstr(text, "default: 0x5eed"));
	assert_non_null(strstr(text, "default: all"));
	/* the options only: the command prints its own usage line */
	assert_null(strstr(text, "usage:"));
	assert_non_null(strstr(text, "Options take --name=value"));
	for (const char *p = text; (p = strstr(p, "default: ")); p++)
		defaults++;
	/* every option but --help shows its default */
	assert_int_equal(defaults, sizeof(cli_names) / sizeof(cli_names[0]) - 1);
	free(text);
}

static const char *const json_names[] = {
	"target", "rw", "rwmixread", "bs", "iodepth", "runtime",
	"number_ios", "ramp_time", "threads", "cpus", "size", "offset",
	"direct", "allow_write", "seed", "verify", "engine", "mode", "fixedbufs",
	"registerfiles", "submit_batch", "complete_batch", "sqpoll_cpu",
	"completion", "completion_cpu", "lat", "inject_ns", "device_ns",
	"register_ring", "restrict_ring", "vectored", "numa_place", "nop_kind",
	"model", "bio_cache",
	"split_check", "bio_layout", "cold_bios", "kernel_cost",
	"kcost_slab_alloc_ns", "kcost_slab_free_ns", "kcost_mempool_ns",
	"kcost_request_ns", "kcost_completion_ns", "max_sectors_kb", "max_segments",
	"max_segment_size", "seg_boundary", "virt_boundary",
	"chunk_sectors", "lbs",
};

static struct json_object *prop(struct json_object *schema, const char *name)
{
	struct json_object *props = json_object_object_get(schema, "properties");

	return json_object_object_get(props, name);
}

static const char *prop_str(struct json_object *schema, const char *name,
			    const char *key)
{
	return json_object_to_json_string_ext(
		json_object_object_get(prop(schema, name), key),
		JSON_C_TO_STRING_PLAIN);
}

static void test_schema_by_hand(void **state)
{
	struct json_object *s = bb_options_json_schema();
	struct json_object *props = json_object_object_get(s, "properties");

	(void)state;
	assert_string_equal(json_object_get_string(
		json_object_object_get(s, "type")), "object");
	assert_false(json_object_get_boolean(
		json_object_object_get(s, "additionalProperties")));
	assert_non_null(strstr(json_object_get_string(
		json_object_object_get(s, "$schema")), "2020-12"));
	for (size_t i = 0; i < sizeof(json_names) / sizeof(json_names[0]); i++) {
		struct json_object *p = prop(s, json_names[i]);

		if (!p)
			fail_msg("schema lacks %s", json_names[i]);
		if (!json_object_object_get(p, "type") ||
		    !json_object_object_get(p, "description"))
			fail_msg("schema %s lacks type or description",
				 json_names[i]);
	}
	assert_int_equal(json_object_object_length(props),
			 sizeof(json_names) / sizeof(json_names[0]));
	assert_null(prop(s, "json"));
	assert_null(prop(s, "help"));

	assert_string_equal(prop_str(s, "iodepth", "type"), "\"integer\"");
	assert_string_equal(prop_str(s, "iodepth", "minimum"), "1");
	assert_string_equal(prop_str(s, "iodepth", "maximum"), "65536");
	assert_string_equal(prop_str(s, "iodepth", "default"), "128");
	assert_string_equal(prop_str(s, "bs", "type"), "[\"integer\",\"string\"]");
	assert_string_equal(prop_str(s, "bs", "minimum"), "512");
	assert_string_equal(prop_str(s, "bs", "default"), "4096");
	assert_string_equal(prop_str(s, "bio_cache", "type"), "\"string\"");
	assert_string_equal(prop_str(s, "bio_cache", "enum"),
			    "[\"off\",\"task\",\"irq\",\"irq_fast\",\"all\",\"all_split\"]");
	assert_string_equal(prop_str(s, "bio_cache", "default"), "\"all\"");
	assert_string_equal(prop_str(s, "direct", "type"), "\"boolean\"");
	assert_string_equal(prop_str(s, "direct", "default"), "true");
	assert_string_equal(prop_str(s, "runtime", "type"), "[\"number\",\"string\"]");
	assert_string_equal(prop_str(s, "runtime", "default"), "5");
	assert_string_equal(prop_str(s, "sqpoll_cpu", "minimum"), "-1");
	assert_string_equal(prop_str(s, "threads", "maximum"), "64");
	assert_string_equal(prop_str(s, "cpus", "type"), "[\"array\",\"string\"]");
	assert_string_equal(prop_str(s, "seed", "maximum"), "9223372036854775807");
	assert_null(json_object_object_get(prop(s, "max_sectors_kb"), "default"));
	json_object_put(s);
}

/* The generated schema, checked by an independent validator: the default
 * config and a busy one are valid, wrong values are not. */
static void test_schema_validates(void **state)
{
	static const struct {
		const char *doc;
		int expect;
	} docs[] = {
		{ "{}", 0 },
		{ "{\"bs\":\"4k\",\"iodepth\":32,\"cpus\":\"0,2-3\",\"runtime\":\"500ms\"}", 0 },
		{ "{\"bs\":4096,\"cpus\":[0,2,3],\"runtime\":0.5,\"seg_boundary\":\"0xfff\"}", 0 },
		{ "{\"iodepth\":0}", 1 },
		{ "{\"iodepth\":\"32\"}", 1 },
		{ "{\"bio_cache\":\"fast\"}", 1 },
		{ "{\"bs\":\"3x\"}", 1 },
		{ "{\"direct\":1}", 1 },
		{ "{\"foo\":1}", 1 },
		{ "{\"runtime\":-1}", 1 },
		{ "{\"cpus\":[-1]}", 1 },
	};
	struct json_object *s = bb_options_json_schema();
	struct bb_config cfg;
	struct json_object *j;
	char err[256];
	int rc;

	(void)state;
	bb_config_default(&cfg);
	j = bb_config_to_json(&cfg);
	rc = validate(s, json_object_to_json_string(j));
	json_object_put(j);
	if (rc == 77) {
		json_object_put(s);
		skip();
	}
	assert_int_equal(rc, 0);

	assert_int_equal(parse_str("--cpus=0-3 --max-sectors-kb=64 --lbs=4k "
				   "--seg-boundary=0xffff --runtime=1.5 "
				   "--seed=0x7fffffffffffffff nop", &cfg, err,
				   sizeof(err)), 0);
	j = bb_config_to_json(&cfg);
	assert_int_equal(validate(s, json_object_to_json_string(j)), 0);
	json_object_put(j);

	for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		/* quiet: the expected complaints are noise in the log */
		rc = validate_q(s, docs[i].doc, docs[i].expect != 0);
		if (rc != docs[i].expect)
			fail_msg("%s: validator says %d, expected %d",
				 docs[i].doc, rc, docs[i].expect);
		/* and our own parser agrees with the schema */
		bb_config_default(&cfg);
		rc = from_json_text(&cfg, docs[i].doc, "w", err, sizeof(err));
		if ((rc == 0) != (docs[i].expect == 0))
			fail_msg("%s: from_json says %d (%s)", docs[i].doc,
				 rc, err);
	}
	json_object_put(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_completion_context),
		cmocka_unit_test(test_good_command_lines),
		cmocka_unit_test(test_target_and_cpus),
		cmocka_unit_test(test_help_returns_1),
		cmocka_unit_test(test_bad_command_lines),
		cmocka_unit_test(test_value_parsers),
		cmocka_unit_test(test_options_set),
		cmocka_unit_test(test_json_good),
		cmocka_unit_test(test_json_bad),
		cmocka_unit_test(test_json_field),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_several_targets),
		cmocka_unit_test(test_help_lists_everything),
		cmocka_unit_test(test_schema_by_hand),
		cmocka_unit_test(test_schema_validates),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
