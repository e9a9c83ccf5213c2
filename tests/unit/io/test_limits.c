// SPDX-License-Identifier: GPL-2.0-only
/* test_limits.c - queue limits: blk_validate_limits rules and sysfs.
 *
 * The sysfs tests create loop devices (losetup) and need root; without
 * them the other tests still run and the program exits 77 (skipped) if
 * those passed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <biobench/queue_limits.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- validate ------------------------------------------------------------- */

static void test_defaults(void **state)
{
	struct bb_queue_limits l;

	(void)state;
	bb_limits_default(&l);
	assert_int_equal(l.logical_block_size, 512);
	assert_int_equal(l.physical_block_size, 512);
	assert_int_equal(l.io_min, 512);
	assert_int_equal(l.io_opt, 0);
	assert_int_equal(l.max_hw_sectors, 255); /* BLK_SAFE_MAX_SECTORS */
	assert_int_equal(l.max_sectors, 255);    /* min(255, cap 8192) */
	assert_int_equal(l.max_user_sectors, 0);
	assert_int_equal(l.max_segments, 128);
	assert_int_equal(l.seg_boundary_mask, 0xFFFFFFFFul);
	assert_int_equal(l.virt_boundary_mask, 0);
	assert_int_equal(l.max_segment_size, 65536);
	assert_int_equal(l.max_fast_segment_size, 4096);
	assert_int_equal(l.dma_alignment, 511);
	assert_int_equal(l.chunk_sectors, 0);
}

struct sectors_case {
	const char *name;
	unsigned hw, dev, user, io_min, io_opt, lbs, pbs;
	unsigned want_hw, want_max, want_pbs, want_io_min, want_io_opt;
};

static const struct sectors_case sectors_cases[] = {
	{ "unset: 255 and 255", 0, 0, 0, 0, 0, 0, 0, 255, 255, 512, 512, 0 },
	/* min(100000, cap 8192) */
	{ "capped at 4 MiB", 100000, 0, 0, 0, 0, 0, 0, 100000, 8192, 512, 512,
	  0 },
	/* min_not_zero(hw, dev) = 4000 < cap */
	{ "max_dev_sectors", 100000, 4000, 0, 0, 0, 0, 0, 100000, 4000, 512, 512,
	  0 },
	/* user 16 */
	{ "user limit", 100000, 0, 16, 0, 0, 0, 0, 100000, 16, 512, 512, 0 },
	/* user 1000 clamped to hw 100 */
	{ "user clamped to hw", 100, 0, 1000, 0, 0, 0, 0, 100, 100, 512, 512, 0 },
	/* user 20 and dev 12: min(min_not_zero(100000, 12), 20) = 12 */
	{ "user clamped to dev", 100000, 12, 20, 0, 0, 0, 0, 100000, 12, 512,
	  512, 0 },
	/* io_opt 8 MiB > 4 MiB cap: min(100000, 16384) */
	{ "io_opt above the cap", 100000, 0, 0, 0, 8u << 20, 0, 0, 100000,
	  16384, 512, 512, 8u << 20 },
	/* io_opt 8 MiB, hw 10000: min(10000, 16384) */
	{ "io_opt above the cap, hw smaller", 10000, 0, 0, 0, 8u << 20, 0, 0,
	  10000, 10000, 512, 512, 8u << 20 },
	/* io_min 6 MiB > cap: min(100000, 12288) */
	{ "io_min above the cap", 100000, 0, 0, 6u << 20, 0, 0, 0, 100000,
	  12288, 512, 6u << 20, 0 },
	/* io_opt exactly 4 MiB is not above the cap: 8192 */
	{ "io_opt at the cap", 100000, 0, 0, 0, 4u << 20, 0, 0, 100000, 8192,
	  512, 512, 4u << 20 },
	/* lbs 4096 (8 sectors): hw 255 -> 248; max 248 */
	{ "lbs 4096 rounds max_hw", 255, 0, 0, 0, 0, 4096, 0, 248, 248, 4096,
	  4096, 0 },
	/* user 13 -> 13 & ~7 = 8 */
	{ "lbs 4096 rounds max_sectors", 100000, 0, 13, 0, 0, 4096, 0, 100000,
	  8, 4096, 4096, 0 },
	/* pbs 4096: io_min raised to 4096, io_opt 10000 -> 8192 */
	{ "io_opt rounded to pbs", 0, 0, 0, 0, 10000, 0, 4096, 255, 255, 4096,
	  4096, 8192 },
	/* pbs below lbs is raised to lbs */
	{ "pbs raised to lbs", 0, 0, 0, 0, 0, 4096, 512, 248, 248, 4096, 4096,
	  0 },
	/* pbs 128 KiB: accepted (the kernel bounds only the logical size);
	 * io_min raised to it, io_opt 300000 rounded down to 262144 */
	{ "pbs 128 KiB accepted", 100000, 0, 0, 0, 300000, 0, 131072, 100000,
	  8192, 131072, 131072, 262144 },
	{ "pbs 1 MiB accepted", 100000, 0, 0, 0, 0, 4096, 1u << 20, 100000,
	  8192, 1u << 20, 1u << 20, 0 },
};

static void test_max_sectors_rules(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sectors_cases) / sizeof(sectors_cases[0]);
	     i++) {
		const struct sectors_case *c = &sectors_cases[i];
		struct bb_queue_limits l;
		const char *why = "unset";

		bb_limits_clear(&l);
		l.max_hw_sectors = c->hw;
		l.max_dev_sectors = c->dev;
		l.max_user_sectors = c->user;
		l.io_min = c->io_min;
		l.io_opt = c->io_opt;
		l.logical_block_size = c->lbs;
		l.physical_block_size = c->pbs;
		if (bb_limits_validate(&l, &why))
			fail_msg("%s: rejected: %s", c->name, why);
		assert_null(why);
		if (l.max_hw_sectors != c->want_hw ||
		    l.max_sectors != c->want_max ||
		    l.physical_block_size != c->want_pbs ||
		    l.io_min != c->want_io_min || l.io_opt != c->want_io_opt)
			fail_msg("%s: hw %u max %u pbs %u io_min %u io_opt %u",
				 c->name, l.max_hw_sectors, l.max_sectors,
				 l.physical_block_size, l.io_min, l.io_opt);
	}
}

enum field {
	F_LBS, F_PBS, F_HW, F_USER, F_DEV, F_SEGB, F_SEGSZ, F_VIRT, F_DMA,
};

struct bad_case {
	const char *name;
	enum field f;
	unsigned long v;
	enum field f2; /* second field set, F_LBS with v2 0 = none */
	unsigned long v2;
	const char *field; /* expected in *why; NULL = accepted */
};

static const struct bad_case bad_cases[] = {
	{ "lbs not a power of 2", F_LBS, 1000, F_LBS, 0, "logical_block_size" },
	{ "lbs below 512", F_LBS, 256, F_LBS, 0, "logical_block_size" },
	{ "lbs above 64K", F_LBS, 131072, F_LBS, 0, "logical_block_size" },
	{ "lbs 64K ok", F_LBS, 65536, F_HW, 1024, NULL },
	{ "pbs not a power of 2", F_PBS, 3000, F_LBS, 0, "physical_block_size" },
	{ "pbs 128K ok (no upper bound)", F_PBS, 131072, F_LBS, 0, NULL },
	{ "pbs 192K not a power of 2", F_PBS, 196608, F_LBS, 0,
	  "physical_block_size" },
	{ "max_hw_sectors below a page", F_HW, 7, F_LBS, 0, "max_hw_sectors" },
	{ "max_hw_sectors 8 ok", F_HW, 8, F_LBS, 0, NULL },
	{ "max_hw_sectors below one lbs", F_LBS, 65536, F_HW, 64,
	  "max_hw_sectors" },
	{ "max_user_sectors below 4 KiB", F_USER, 7, F_LBS, 0,
	  "max_user_sectors" },
	{ "max_user_sectors below one lbs", F_LBS, 65536, F_USER, 64,
	  "max_user_sectors" },
	{ "max_dev_sectors below one lbs", F_LBS, 4096, F_DEV, 4,
	  "max_dev_sectors" },
	{ "seg_boundary_mask below 4095", F_SEGB, 2047, F_LBS, 0,
	  "seg_boundary_mask" },
	{ "seg_boundary_mask 4095 ok", F_SEGB, 4095, F_LBS, 0, NULL },
	{ "max_segment_size below 4096", F_SEGSZ, 2048, F_LBS, 0,
	  "max_segment_size" },
	{ "max_segment_size below 4096 ok with virt boundary", F_SEGSZ, 2048,
	  F_VIRT, 4095, NULL },
	{ "dma_alignment above a page", F_DMA, 8191, F_LBS, 0, "dma_alignment" },
	{ "dma_alignment 4096 (kernel: > PAGE_SIZE rejected)", F_DMA, 4096,
	  F_LBS, 0, NULL },
};

static void set_field(struct bb_queue_limits *l, enum field f, unsigned long v)
{
	switch (f) {
	case F_LBS: l->logical_block_size = (unsigned)v; break;
	case F_PBS: l->physical_block_size = (unsigned)v; break;
	case F_HW: l->max_hw_sectors = (unsigned)v; break;
	case F_USER: l->max_user_sectors = (unsigned)v; break;
	case F_DEV: l->max_dev_sectors = (unsigned)v; break;
	case F_SEGB: l->seg_boundary_mask = v; break;
	case F_SEGSZ: l->max_segment_size = (unsigned)v; break;
	case F_VIRT: l->virt_boundary_mask = v; break;
	case F_DMA: l->dma_alignment = (unsigned)v; break;
	}
}

static void test_bad_values(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		struct bb_queue_limits l;
		const char *why = NULL;
		int ret;

		bb_limits_clear(&l);
		set_field(&l, c->f, c->v);
		if (c->v2)
			set_field(&l, c->f2, c->v2);
		ret = bb_limits_validate(&l, &why);
		if (!c->field) {
			if (ret)
				fail_msg("%s: rejected: %s", c->name, why);
			continue;
		}
		if (ret != -EINVAL || !why || strncmp(why, c->field,
						      strlen(c->field)))
			fail_msg("%s: ret %d why \"%s\", want -EINVAL naming %s",
				 c->name, ret, why ? why : "(null)", c->field);
	}
	/* why may be NULL */
	{
		struct bb_queue_limits l;

		bb_limits_clear(&l);
		l.logical_block_size = 1000;
		assert_int_equal(bb_limits_validate(&l, NULL), -EINVAL);
	}
}

struct fast_case {
	const char *name;
	unsigned long seg_boundary, virt;
	unsigned max_segment_size;
	unsigned want_mss, want_fast;
};

static const struct fast_case fast_cases[] = {
	/* 0xFFFFFFFF > 65535 -> 65536; min(65536, 4096) */
	{ "defaults", 0, 0, 0, 65536, 4096 },
	/* 4095 > 65535? no -> 4095 + 1 = 4096 */
	{ "boundary 4K", 0xFFF, 0, 0, 65536, 4096 },
	/* virt: max_segment_size UINT_MAX; 0xFFFFFFFF > 0xFFFFFFFE ->
	 * UINT_MAX -> 4096 */
	{ "virt default", 0, 4095, 0, 0xFFFFFFFFu, 4096 },
	/* 0xFFFFFFFF > 2047 -> 2048 */
	{ "virt, max_segment_size 2048", 0, 4095, 2048, 2048, 2048 },
	/* 4095 > 2999 -> 3000 */
	{ "virt, boundary 4K, max_segment_size 3000", 0xFFF, 4095, 3000, 3000,
	  3000 },
	/* 4095 > 8191? no -> 4096 */
	{ "boundary 4K below max_segment_size 8K", 0xFFF, 0, 8192, 8192, 4096 },
	/* ULONG_MAX > UINT_MAX - 1 -> UINT_MAX -> 4096 (no overflow) */
	{ "all-ones boundary", ~0ul, 0, 0xFFFFFFFFu, 0xFFFFFFFFu, 4096 },
	/* 0x1FFF > 4095 -> 4096 */
	{ "max_segment_size 4096", 0x1FFF, 0, 4096, 4096, 4096 },
};

static void test_max_fast_segment_size(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fast_cases) / sizeof(fast_cases[0]); i++) {
		const struct fast_case *c = &fast_cases[i];
		struct bb_queue_limits l;

		bb_limits_clear(&l);
		l.seg_boundary_mask = c->seg_boundary;
		l.virt_boundary_mask = c->virt;
		l.max_segment_size = c->max_segment_size;
		assert_int_equal(bb_limits_validate(&l, NULL), 0);
		if (l.max_segment_size != c->want_mss ||
		    l.max_fast_segment_size != c->want_fast)
			fail_msg("%s: max_segment_size %u fast %u", c->name,
				 l.max_segment_size, l.max_fast_segment_size);
	}
}

static void test_fprint(void **state)
{
	struct bb_queue_limits l;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	bb_limits_default(&l);
	bb_limits_fprint(f, &l);
	fclose(f);
	assert_non_null(strstr(buf, "max_sectors=255 "));
	assert_non_null(strstr(buf, "max_segments=128 "));
	assert_non_null(strstr(buf, "seg_boundary_mask=0xffffffff "));
	assert_non_null(strstr(buf, "max_fast_segment_size=4096 "));
	assert_non_null(strstr(buf, "dma_alignment=511 "));
	/* one line */
	assert_ptr_equal(strchr(buf, '\n'), buf + len - 1);
	free(buf);
}

static void test_read_sysfs_not_block(void **state)
{
	struct bb_queue_limits l;
	char path[] = "/tmp/bb_limits_XXXXXX";
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(bb_limits_read_sysfs(path, &l), -ENOTBLK);
	unlink(path);
	assert_int_equal(bb_limits_read_sysfs(path, &l), -ENOENT);
	assert_int_equal(bb_limits_read_sysfs("/tmp", &l), -ENOTBLK);
	assert_int_equal(bb_limits_read_sysfs("/dev/null", &l), -ENOTBLK);
}

/* ---- sysfs on a fake tree (no root needed) -------------------------------- */

struct fake_sysfs {
	char root[64];
	char queue[128];
};

static void put_file(const char *dir, const char *name, const char *val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(val, f);
	fclose(f);
}

static void rm_file(const char *dir, const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

/* An NVMe-like disk 7:100 with a partition 259:5, laid out as sysfs is:
 * dev/block/MAJ:MIN are links into devices/, the partition directory
 * sits inside the disk's. */
static void fake_sysfs_make(struct fake_sysfs *fs)
{
	static const char *const files[][2] = {
		{ "max_sectors_kb", "512\n" },
		{ "max_hw_sectors_kb", "2048\n" },
		{ "max_segments", "33\n" },
		{ "max_segment_size", "4294967295\n" },
		{ "logical_block_size", "4096\n" },
		{ "physical_block_size", "4096\n" },
		{ "chunk_sectors", "0\n" },
		{ "virt_boundary_mask", "4095\n" },
		{ "dma_alignment", "3\n" },
		{ "minimum_io_size", "4096\n" },
		{ "optimal_io_size", "131072\n" },
		{ "zone_write_granularity", "0\n" },
		{ "write_zeroes_max_bytes", "1048576\n" },
		{ "atomic_write_max_bytes", "16384\n" },
		{ "atomic_write_boundary_bytes", "0\n" },
	};
	char path[256];

	snprintf(fs->root, sizeof(fs->root), "/tmp/bb_sysfs_XXXXXX");
	assert_non_null(mkdtemp(fs->root));
	snprintf(path, sizeof(path), "%s/devices", fs->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/devices/nvme0n1", fs->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(fs->queue, sizeof(fs->queue), "%s/devices/nvme0n1/queue",
		 fs->root);
	assert_int_equal(mkdir(fs->queue, 0755), 0);
	snprintf(path, sizeof(path), "%s/devices/nvme0n1/nvme0n1p1", fs->root);
	assert_int_equal(mkdir(path, 0755), 0);
	put_file(path, "partition", "1\n");
	snprintf(path, sizeof(path), "%s/dev", fs->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block", fs->root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/dev/block/7:100", fs->root);
	assert_int_equal(symlink("../../devices/nvme0n1", path), 0);
	snprintf(path, sizeof(path), "%s/dev/block/259:5", fs->root);
	assert_int_equal(symlink("../../devices/nvme0n1/nvme0n1p1", path), 0);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put_file(fs->queue, files[i][0], files[i][1]);
}

static void fake_sysfs_remove(struct fake_sysfs *fs)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fs->root);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: %s failed\n", cmd);
}

static void test_read_sysfs_fake(void **state)
{
	struct fake_sysfs fs;
	struct bb_queue_limits l, p;

	(void)state;
	fake_sysfs_make(&fs);
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &l), 0);
	assert_int_equal(l.max_user_sectors, 1024); /* 512 KiB */
	assert_int_equal(l.max_sectors, 1024);
	assert_int_equal(l.max_hw_sectors, 4096);   /* 2048 KiB */
	assert_int_equal(l.max_segments, 33);
	assert_int_equal(l.max_segment_size, 0xFFFFFFFFu);
	assert_int_equal(l.max_fast_segment_size, 4096);
	assert_int_equal(l.seg_boundary_mask, 0xFFFFFFFFul); /* default */
	assert_int_equal(l.logical_block_size, 4096);
	assert_int_equal(l.physical_block_size, 4096);
	assert_int_equal(l.virt_boundary_mask, 4095);
	assert_int_equal(l.dma_alignment, 3);
	assert_int_equal(l.io_min, 4096);
	assert_int_equal(l.io_opt, 131072);
	assert_int_equal(l.chunk_sectors, 0);
	assert_int_equal(l.max_write_zeroes_sectors, 2048);
	assert_int_equal(l.atomic_write_max_sectors, 32);

	/* the partition reads its disk's queue */
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 259, 5, &p), 0);
	assert_int_equal(p.max_sectors, l.max_sectors);
	assert_int_equal(p.max_segments, l.max_segments);
	assert_int_equal(p.virt_boundary_mask, l.virt_boundary_mask);
	assert_int_equal(p.logical_block_size, l.logical_block_size);

	/* no such device */
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 8, 0, &l), -ENOENT);

	/* optional files may be missing: defaults */
	rm_file(fs.queue, "dma_alignment");
	rm_file(fs.queue, "virt_boundary_mask");
	rm_file(fs.queue, "atomic_write_max_bytes");
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &l), 0);
	assert_int_equal(l.dma_alignment, 511);
	assert_int_equal(l.virt_boundary_mask, 0);
	assert_int_equal(l.atomic_write_max_sectors, 0);

	/* bad contents; *lim is left alone on error */
	memset(&p, 0x5a, sizeof(p));
	put_file(fs.queue, "max_segment_size", "abc\n");
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &p),
			 -EINVAL);
	assert_int_equal(p.max_sectors, 0x5a5a5a5a);
	put_file(fs.queue, "max_segment_size", "-1\n");
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &p),
			 -EINVAL);
	put_file(fs.queue, "max_segment_size", "65536\n");
	put_file(fs.queue, "max_segments", "70000\n");
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &p),
			 -ERANGE);
	put_file(fs.queue, "max_segments", "128\n");
	put_file(fs.queue, "logical_block_size", "1000\n"); /* validate */
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &p),
			 -EINVAL);
	put_file(fs.queue, "logical_block_size", "512\n");
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &p), 0);
	/* a required file missing */
	rm_file(fs.queue, "max_hw_sectors_kb");
	assert_int_equal(bb_limits_read_sysfs_dev(fs.root, 7, 100, &p),
			 -ENOENT);
	fake_sysfs_remove(&fs);
}

/* ---- sysfs on real loop devices -------------------------------------------- */

struct loopdev {
	char file[64];
	char dev[64];
};

/* Run a command, return its first output line (trimmed) or "" */
static int run_line(const char *cmd, char *out, size_t n)
{
	FILE *p = popen(cmd, "r");
	int st;

	out[0] = '\0';
	if (!p)
		return -1;
	if (fgets(out, (int)n, p))
		out[strcspn(out, "\n")] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Create a sparse 8 MiB file (with an MBR holding one partition from
 * sector 2048 when mbr) and attach it with extra losetup options. */
static int loop_attach(struct loopdev *ld, const char *opts, bool mbr)
{
	char cmd[256];
	int fd;

	snprintf(ld->file, sizeof(ld->file), "/tmp/bb_loop_XXXXXX");
	fd = mkstemp(ld->file);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, 8 << 20)) {
		close(fd);
		return -1;
	}
	if (mbr) {
		unsigned char s[512] = { 0 };
		unsigned char *e = s + 446;
		uint32_t start = 2048, count = (8u << 20) / 512 - 2048;

		e[4] = 0x83; /* Linux */
		memcpy(e + 8, &start, 4); /* little-endian host assumed */
		memcpy(e + 12, &count, 4);
		s[510] = 0x55;
		s[511] = 0xAA;
		if (pwrite(fd, s, sizeof(s), 0) != (ssize_t)sizeof(s)) {
			close(fd);
			return -1;
		}
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "losetup -f --show %s %s 2>/dev/null", opts,
		 ld->file);
	if (run_line(cmd, ld->dev, sizeof(ld->dev)) || !ld->dev[0]) {
		unlink(ld->file);
		return -1;
	}
	return 0;
}

static void loop_detach(struct loopdev *ld)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "losetup -d %s 2>/dev/null", ld->dev);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: %s failed\n", cmd);
	unlink(ld->file);
}

static uint64_t sysfs_u64(const char *dev, const char *name)
{
	char path[256], buf[64];
	FILE *f;

	/* /dev/loopN -> /sys/block/loopN/queue/name */
	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s",
		 strrchr(dev, '/') + 1, name);
	f = fopen(path, "r");
	if (!f)
		return UINT64_MAX;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtoull(buf, NULL, 10);
}

static void compare_with_sysfs(const char *disk,
			       const struct bb_queue_limits *l)
{
	uint64_t lbs = sysfs_u64(disk, "logical_block_size");

	assert_int_equal(l->max_sectors, sysfs_u64(disk, "max_sectors_kb") * 2);
	/* max_hw_sectors_kb * 2, rounded down to the logical block */
	assert_int_equal(l->max_hw_sectors,
			 sysfs_u64(disk, "max_hw_sectors_kb") * 2 / (lbs / 512) *
				 (lbs / 512));
	assert_int_equal(l->max_segments, sysfs_u64(disk, "max_segments"));
	assert_int_equal(l->max_segment_size,
			 sysfs_u64(disk, "max_segment_size"));
	assert_int_equal(l->chunk_sectors, sysfs_u64(disk, "chunk_sectors"));
	assert_int_equal(l->logical_block_size, lbs);
	assert_int_equal(l->physical_block_size,
			 sysfs_u64(disk, "physical_block_size"));
	assert_int_equal(l->virt_boundary_mask,
			 sysfs_u64(disk, "virt_boundary_mask"));
	assert_int_equal(l->dma_alignment, sysfs_u64(disk, "dma_alignment"));
	assert_int_equal(l->io_min, sysfs_u64(disk, "minimum_io_size"));
	assert_int_equal(l->io_opt, sysfs_u64(disk, "optimal_io_size"));
	assert_true(l->max_fast_segment_size > 0 &&
		    l->max_fast_segment_size <= 4096);
}

static void test_read_sysfs_loop(void **state)
{
	struct loopdev ld;
	struct bb_queue_limits l;

	(void)state;
	if (loop_attach(&ld, "", false))
		fail_msg("losetup failed");
	memset(&l, 0xa5, sizeof(l));
	assert_int_equal(bb_limits_read_sysfs(ld.dev, &l), 0);
	compare_with_sysfs(ld.dev, &l);
	assert_int_equal(l.logical_block_size, 512);
	loop_detach(&ld);
}

static void test_read_sysfs_loop_4k(void **state)
{
	struct loopdev ld;
	struct bb_queue_limits l;

	(void)state;
	if (loop_attach(&ld, "-b 4096", false))
		skip(); /* old losetup without --sector-size */
	assert_int_equal(bb_limits_read_sysfs(ld.dev, &l), 0);
	compare_with_sysfs(ld.dev, &l);
	assert_int_equal(l.logical_block_size, 4096);
	assert_int_equal(l.max_sectors % 8, 0);
	loop_detach(&ld);
}

static void test_read_sysfs_partition(void **state)
{
	struct loopdev ld;
	struct bb_queue_limits disk, part;
	char p1[80];
	struct stat st;
	int i;

	(void)state;
	if (loop_attach(&ld, "-P", true))
		fail_msg("losetup -P failed");
	snprintf(p1, sizeof(p1), "%sp1", ld.dev);
	for (i = 0; i < 200 && stat(p1, &st); i++) /* up to 2 s */
		usleep(10000);
	if (i == 200) {
		/* the kernel found no partition: no partition table support
		 * (CONFIG_MSDOS_PARTITION) or no devtmpfs; the fake sysfs
		 * test covers the path logic */
		print_message("no %s: kernel without MBR partition support?\n",
			      p1);
		loop_detach(&ld);
		skip();
	}
	assert_int_equal(bb_limits_read_sysfs(ld.dev, &disk), 0);
	assert_int_equal(bb_limits_read_sysfs(p1, &part), 0);
	assert_int_equal(disk.max_sectors, part.max_sectors);
	assert_int_equal(disk.max_hw_sectors, part.max_hw_sectors);
	assert_int_equal(disk.max_segments, part.max_segments);
	assert_int_equal(disk.max_segment_size, part.max_segment_size);
	assert_int_equal(disk.logical_block_size, part.logical_block_size);
	assert_int_equal(disk.physical_block_size, part.physical_block_size);
	assert_int_equal(disk.dma_alignment, part.dma_alignment);
	compare_with_sysfs(ld.dev, &part);
	loop_detach(&ld);
}

static bool have_loop(const char **why)
{
	char out[64];

	if (geteuid() != 0) {
		*why = "not root";
		return false;
	}
	if (run_line("command -v losetup", out, sizeof(out)) || !out[0]) {
		*why = "losetup not found";
		return false;
	}
	if (access("/dev/loop-control", F_OK)) {
		*why = "no /dev/loop-control";
		return false;
	}
	return true;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_max_sectors_rules),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_max_fast_segment_size),
		cmocka_unit_test(test_fprint),
		cmocka_unit_test(test_read_sysfs_not_block),
		cmocka_unit_test(test_read_sysfs_fake),
	};
	const struct CMUnitTest dev_tests[] = {
		cmocka_unit_test(test_read_sysfs_loop),
		cmocka_unit_test(test_read_sysfs_loop_4k),
		cmocka_unit_test(test_read_sysfs_partition),
	};
	const char *why;
	int failed;

	failed = cmocka_run_group_tests_name("limits", tests, NULL, NULL);
	if (failed)
		return 1;
	if (!have_loop(&why)) {
		printf("SKIP sysfs tests on loop devices: %s\n", why);
		return 77;
	}
	return cmocka_run_group_tests_name("limits_sysfs", dev_tests, NULL,
					   NULL) ? 1 : 0;
}
