// SPDX-License-Identifier: GPL-2.0-only
/* test_jobconflict.c - the rule that decides which jobs biobenchd runs at
 * the same time (max_parallel_jobs), table driven over real job specs
 * parsed by bb_job_parse_string and real targets: nop, a loop device with
 * ext4 mounted and a file on it (helpers.h's fixture), a second loop
 * device on the same image, a partitioned loop device (its partition's
 * node made with mknod, as udev would; its image in tmpfs), a symlink to a loop device, two
 * loop devices on images in tmpfs (disjoint: tmpfs is no block device).
 * Every row: conflict or not, and the reason named.  The device rows need
 * root and loop devices (77 when they are skipped and the rest passed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <biobench/jobconflict.h>

#include "helpers.h"

static struct bb_loopfix g_fx;
static char g_dir[64];         /* temporary nodes, links and images */
static char g_alias[64];       /* a second loop on g_fx's image */
static char g_link[128];       /* a symlink to g_fx.loop */
static char g_pdisk[64];       /* a partitioned loop device */
static char g_part[128];       /* its first partition (mknod) */
static char g_shm[2][64];      /* loops on two images in tmpfs */
static char g_shm_img[2][128];
static char g_pimg[128];       /* g_pdisk's image, in tmpfs */

static void losetup(char *out, size_t len, const char *flags,
		    const char *img)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "losetup %s -f --show '%s' 2>/dev/null",
		 flags, img);
	if (run_out(out, len, cmd) || strncmp(out, "/dev/loop", 9))
		out[0] = '\0';
}

/* An image with an MBR and one partition (sectors 2048..4095). */
static void write_mbr_image(const char *path)
{
	unsigned char mbr[512] = { 0 };
	FILE *f = fopen(path, "w");
	uint32_t start = 2048, n = 2048;

	assert_non_null(f);
	mbr[446 + 4] = 0x83;
	memcpy(&mbr[446 + 8], &start, 4);
	memcpy(&mbr[446 + 12], &n, 4);
	mbr[510] = 0x55;
	mbr[511] = 0xaa;
	assert_int_equal(fwrite(mbr, 1, sizeof(mbr), f), sizeof(mbr));
	assert_int_equal(fclose(f), 0);
	assert_int_equal(truncate(path, 4 << 20), 0);
}

/* /dev is no devtmpfs in a container: the partition's node by hand. */
static void make_part_node(void)
{
	char sys[256], val[32];
	unsigned ma, mi;

	for (int i = 0; i < 20; i++) {
		FILE *f;

		snprintf(sys, sizeof(sys), "/sys/block/%s/%sp1/dev",
			 g_pdisk + 5, g_pdisk + 5);
		f = fopen(sys, "r");
		if (f) {
			bool ok = fgets(val, sizeof(val), f) &&
				  sscanf(val, "%u:%u", &ma, &mi) == 2;

			fclose(f);
			if (ok) {
				snprintf(g_part, sizeof(g_part), "%s/p1", g_dir);
				if (mknod(g_part, S_IFBLK | 0600,
					  makedev(ma, mi)))
					g_part[0] = '\0';
				return;
			}
		}
		usleep(50 * 1000);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_dir, sizeof(g_dir), "/tmp/bb-test-jc.XXXXXX");
	assert_non_null(mkdtemp(g_dir));
	if (bb_loopfix_setup(&g_fx, "jc"))
		return -1;
	if (g_fx.no_dev[0])
		return 0;
	losetup(g_alias, sizeof(g_alias), "", g_fx.img);
	snprintf(g_link, sizeof(g_link), "%s/disk-by-name", g_dir);
	assert_int_equal(symlink(g_fx.loop, g_link), 0);
	/* in tmpfs: the partition and its disk share nothing else */
	snprintf(g_pimg, sizeof(g_pimg), "/dev/shm/bb-test-jc.%d.p",
		 (int)getpid());
	write_mbr_image(g_pimg);
	losetup(g_pdisk, sizeof(g_pdisk), "-P", g_pimg);
	if (g_pdisk[0])
		make_part_node();
	for (int i = 0; i < 2; i++) {
		snprintf(g_shm_img[i], sizeof(g_shm_img[i]),
			 "/dev/shm/bb-test-jc.%d.%d", (int)getpid(), i);
		assert_int_equal(close(open(g_shm_img[i], O_CREAT | O_WRONLY,
					    0600)), 0);
		assert_int_equal(truncate(g_shm_img[i], 4 << 20), 0);
		losetup(g_shm[i], sizeof(g_shm[i]), "", g_shm_img[i]);
	}
	return 0;
}

static int teardown(void **state)
{
	char *loops[] = { g_alias, g_pdisk, g_shm[0], g_shm[1] };

	(void)state;
	for (unsigned i = 0; i < 4; i++)
		if (loops[i][0])
			run("losetup -d '%s'", loops[i]);
	for (int i = 0; i < 2; i++)
		if (g_shm_img[i][0])
			unlink(g_shm_img[i]);
	if (g_pimg[0])
		unlink(g_pimg);
	bb_loopfix_teardown(&g_fx);
	run("rm -rf '%s'", g_dir);
	return 0;
}

/* ---- the table ---------------------------------------------------------- */

enum tgt { T_NOP, T_LOOP, T_LINK, T_ALIAS, T_FILE, T_PDISK, T_PART, T_SHM0,
	   T_SHM1 };

static const char *target_of(enum tgt t)
{
	switch (t) {
	case T_NOP: return "nop";
	case T_LOOP: return g_fx.loop;
	case T_LINK: return g_link;
	case T_ALIAS: return g_alias;
	case T_FILE: return g_fx.file;
	case T_PDISK: return g_pdisk;
	case T_PART: return g_part;
	case T_SHM0: return g_shm[0];
	case T_SHM1: return g_shm[1];
	}
	return "";
}

struct side {
	enum tgt target;
	const char *cpus;    /* JSON of workload.cpus, NULL: none */
	const char *b_cpus;  /* variant B's own cpus, NULL: as workload */
	bool boot;           /* made a boot job (see below) */
};

struct row {
	const char *name;
	struct side a, b;
	bool conflict;
	const char *why;     /* in the reason */
};

#define S(t, c) { .target = (t), .cpus = (c) }
#define SB(t, c, b) { .target = (t), .cpus = (c), .b_cpus = (b) }
#define BOOT(t, c) { .target = (t), .cpus = (c), .boot = true }

static const struct row rows[] = {
	{ "nop, disjoint CPUs", S(T_NOP, "[0]"), S(T_NOP, "[1]"), false,
	  NULL },
	{ "nop, overlapping CPUs", S(T_NOP, "[0,1]"), S(T_NOP, "[1]"), true,
	  "both use CPU 1" },
	{ "a variant overrides its CPUs onto the other's",
	  SB(T_NOP, "[0]", "[1]"), S(T_NOP, "[1]"), true, "CPU 1" },
	{ "no CPU list: every CPU", S(T_NOP, NULL), S(T_NOP, "[1]"), true,
	  "no CPU list" },
	{ "one variant without a CPU list", SB(T_NOP, "[0]", "[]"),
	  S(T_NOP, "[1]"), true, "no CPU list" },
	{ "a boot job runs alone", BOOT(T_NOP, "[0]"), S(T_NOP, "[1]"), true,
	  "boot job" },
	{ "nop next to a device", S(T_NOP, "[0]"), S(T_LOOP, "[1]"), false,
	  NULL },
	{ "the same device", S(T_LOOP, "[0]"), S(T_LOOP, "[1]"), true,
	  "the same device" },
	{ "the same device under two names", S(T_LINK, "[0]"),
	  S(T_LOOP, "[1]"), true, "the same device" },
	{ "two loop devices on one image", S(T_ALIAS, "[0]"),
	  S(T_LOOP, "[1]"), true, "the same" },
	{ "a file on the filesystem of the device", S(T_FILE, "[0]"),
	  S(T_LOOP, "[1]"), true, "the same device" },
	{ "a partition and its disk", S(T_PART, "[0]"), S(T_PDISK, "[1]"),
	  true, "the same device" },
	{ "two devices on images in tmpfs", S(T_SHM0, "[0]"),
	  S(T_SHM1, "[1]"), false, NULL },
	{ "disjoint devices, one CPU", S(T_SHM0, "[1]"), S(T_SHM1, "[1]"),
	  true, "CPU 1" },
	{ "a partition and another device", S(T_PART, "[0]"),
	  S(T_SHM0, "[1]"), false, NULL },
};

static void footprint_of(const struct side *sd, struct bb_job_footprint *fp)
{
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));
	char spec[1024], wl[128] = "", vb[128] = "";

	assert_non_null(errs);
	assert_non_null(job);
	if (sd->cpus)
		snprintf(wl, sizeof(wl), ",\"cpus\":%s", sd->cpus);
	if (sd->b_cpus)
		snprintf(vb, sizeof(vb), "\"cpus\":%s", sd->b_cpus);
	snprintf(spec, sizeof(spec),
		 "{\"name\":\"t\",\"target\":\"%s\",\"workload\":"
		 "{\"runtime\":\"1s\"%s},\"variants\":{\"A\":{},\"B\":{%s}}}",
		 target_of(sd->target), wl, vb);
	if (bb_job_parse_string(job, spec, strlen(spec), errs))
		fail_msg("%s: %s", spec, errs->n ? errs->msg[0] : "?");
	/* a real boot job needs kernels to name: the flag is what the
	 * rule reads (jobspec.c sets it when every variant has "boot") */
	if (sd->boot)
		job->boot_job = true;
	bb_job_footprint(job, fp);
	bb_job_free(job);
	free(job);
	free(errs);
}

static bool needs_dev(const struct side *sd)
{
	return sd->target != T_NOP;
}

static void test_table(void **state)
{
	struct bb_job_footprint *a = calloc(1, sizeof(*a));
	struct bb_job_footprint *b = calloc(1, sizeof(*b));
	unsigned ran = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		char why[256] = "", why2[256] = "";
		bool c, c2;

		if ((needs_dev(&r->a) || needs_dev(&r->b)) &&
		    (g_fx.no_dev[0] || !target_of(r->a.target)[0] ||
		     !target_of(r->b.target)[0])) {
			print_message("skipped: %s: %s\n", r->name,
				      g_fx.no_dev[0] ? g_fx.no_dev :
				      "its loop device could not be made");
			continue;
		}
		footprint_of(&r->a, a);
		footprint_of(&r->b, b);
		if (a->alone && !r->a.boot)
			fail_msg("%s: A runs alone: %s", r->name, a->alone_why);
		c = bb_job_conflict(a, b, why, sizeof(why));
		c2 = bb_job_conflict(b, a, why2, sizeof(why2));
		if (c != r->conflict || c2 != r->conflict)
			fail_msg("%s: conflict %d/%d, expected %d (%s)",
				 r->name, c, c2, r->conflict, why);
		if (r->why && !strstr(why, r->why))
			fail_msg("%s: reason '%s', expected '%s'", r->name, why,
				 r->why);
		print_message("%-45s %s%s\n", r->name,
			      c ? "conflict: " : "parallel", c ? why : "");
		ran++;
	}
	assert_true(ran >= 6);
	free(a);
	free(b);
}

/* A target that cannot be resolved makes the job run alone. */
static void test_unresolved(void **state)
{
	struct bb_job_footprint fp, nop;
	struct side bad = S(T_NOP, "[0]"), other = S(T_NOP, "[1]");
	struct bb_dev_footprint d = { 0 };
	char why[256], err[256];

	(void)state;
	assert_int_equal(bb_target_footprint("/nonexistent-dir/x", &d, err,
					     sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent-dir/x"));
	footprint_of(&bad, &fp);
	assert_false(fp.alone);
	assert_int_equal(fp.dev.n, 0);       /* nop reaches no device */
	footprint_of(&other, &nop);
	bb_job_footprint_alone(&fp, "its stored spec does not parse");
	assert_true(bb_job_conflict(&nop, &fp, why, sizeof(why)));
	assert_non_null(strstr(why, "does not parse"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_unresolved),
	};
	int rc = cmocka_run_group_tests(tests, setup, teardown);

	return bb_loopfix_exit(&g_fx, rc);
}
