// SPDX-License-Identifier: GPL-2.0-only
/* test_boot.c - boot jobs (kernel A/B across boots): the "boot" fields
 * and their refusals with the field named, the match of a running kernel
 * against a variant, the recovery decision after a reboot, the per-boot
 * statistics (medians paired A B A B, the between-boot spread) and the
 * scope ("kernel").  Kernel images are real files in a temporary
 * directory. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "helpers.h"

#include <biobench/boot.h>
#include <biobench/jobrun.h>
#include <biobench/jobspec.h>
#include <biobench/scope.h>

static char dir[64];
static char ka[128], kb[128], kodd[128], initrd[128];

static void touch(const char *path)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs("not really a kernel\n", f);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bb-test-boot-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(ka, sizeof(ka), "%s/vmlinuz-6.1.0-a", dir);
	snprintf(kb, sizeof(kb), "%s/vmlinuz-6.1.0-b", dir);
	snprintf(kodd, sizeof(kodd), "%s/bzImage", dir);
	snprintf(initrd, sizeof(initrd), "%s/initrd.img", dir);
	touch(ka);
	touch(kb);
	touch(kodd);
	touch(initrd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(ka);
	unlink(kb);
	unlink(kodd);
	unlink(initrd);
	rmdir(dir);
	return 0;
}

static struct bb_job *job_new(void)
{
	struct bb_job *job = calloc(1, sizeof(*job));

	assert_non_null(job);
	return job;
}

/* Parse text (printf format); 0 or -EINVAL. */
static int parsef(struct bb_job *job, struct bb_job_errors *e,
		  const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int parsef(struct bb_job *job, struct bb_job_errors *e,
		  const char *fmt, ...)
{
	char text[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return bb_job_parse_string(job, text, strlen(text), e);
}

/* The message of the error on field, or NULL. */
static const char *error_on(const struct bb_job_errors *e, const char *field)
{
	for (unsigned i = 0; i < e->n && i < BB_JOB_MAX_ERRORS; i++)
		if (!strcmp(e->field[i], field))
			return e->msg[i];
	return NULL;
}

static void dump(const struct bb_job_errors *e)
{
	for (unsigned i = 0; i < e->n && i < BB_JOB_MAX_ERRORS; i++)
		print_message("  [%s] %s\n", e->field[i], e->msg[i]);
}

#define HEAD "{\"name\": \"k\", \"target\": \"nop\", " \
	     "\"workload\": {\"number_ios\": 1000}, "

static void test_spec_ok(void **state)
{
	struct bb_job_errors e;
	struct bb_job *job = job_new();
	struct json_object *v, *b;

	(void)state;
	assert_int_equal(parsef(job, &e, HEAD "\"repeat\": 3, \"warmup\": 0, "
				"\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\", "
				"\"initrd\": \"%s\", \"cmdline\": \"bbkernel=A\"}}, "
				"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}",
				ka, initrd, kb), 0);
	assert_true(job->boot_job);
	assert_int_equal(job->boots, BB_JOB_DEF_BOOTS);
	assert_false(job->allow_other_jobs);
	assert_string_equal(job->v[0].boot.kernel, ka);
	assert_string_equal(job->v[0].boot.initrd, initrd);
	assert_string_equal(job->v[0].boot.cmdline, "bbkernel=A");
	assert_string_equal(job->v[1].boot.initrd, "");
	/* the normalized document keeps "boot" and reads back */
	assert_true(json_object_object_get_ex(job->spec, "variants", &v));
	assert_true(json_object_object_get_ex(
		json_object_object_get(v, "A"), "boot", &b));
	assert_false(json_object_object_get_ex(job->spec, "boots", NULL));
	{
		const char *t = json_object_to_json_string(job->spec);
		struct bb_job *again = job_new();

		assert_int_equal(bb_job_parse_string(again, t, strlen(t), &e), 0);
		assert_true(again->boot_job);
		bb_job_free(again);
		free(again);
	}
	bb_job_free(job);

	/* boots and allow_other_jobs given */
	assert_int_equal(parsef(job, &e, HEAD "\"boots\": 4, \"allow_other_jobs\": true, "
				"\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
				"\"B\": {\"boot\": {\"kernel\": \"%s\"}, \"iodepth\": 4}}}",
				ka, kb), 0);
	assert_int_equal(job->boots, 4);
	assert_true(job->allow_other_jobs);
	assert_int_equal(json_object_get_int(
		json_object_object_get(job->spec, "boots")), 4);
	bb_job_free(job);

	/* a job without "boot" is no boot job */
	assert_int_equal(parsef(job, &e, HEAD "\"variants\": {\"A\": {}, \"B\": {\"iodepth\": 4}}}"), 0);
	assert_false(job->boot_job);
	bb_job_free(job);
	free(job);
}

/* One refusal: parse fails, the error is on field and says what. */
static void refused(const char *field, const char *says, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));
static void refused(const char *field, const char *says, const char *fmt, ...)
{
	struct bb_job_errors e;
	struct bb_job *job = job_new();
	char text[8192];
	const char *msg;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	assert_int_equal(bb_job_parse_string(job, text, strlen(text), &e),
			 -EINVAL);
	msg = error_on(&e, field);
	if (!msg || !strstr(msg, says)) {
		dump(&e);
		fail_msg("no error on %s saying \"%s\"", field, says);
	}
	free(job);
}

static void test_spec_refused(void **state)
{
	(void)state;
	/* boot in one variant only */
	refused("variants.B.boot", "each name their kernel",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"iodepth\": 4}}}", ka);
	/* kernel: absolute, existing, regular */
	refused("variants.A.boot.kernel", "not an absolute path",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"vmlinuz-x\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", kb);
	refused("variants.A.boot.kernel", "No such file",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s/vmlinuz-gone\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", dir, kb);
	refused("variants.A.boot.kernel", "not a regular file",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", dir, kb);
	refused("variants.B.boot.initrd", "not a regular file",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\", \"initrd\": \"/dev/null\"}}}}",
		ka, kb);
	refused("variants.B.boot.kernel", "required",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"cmdline\": \"x\"}}}}", ka);
	refused("variants.B.boot.kernl", "did you mean \"kernel\"",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\", \"kernl\": 1}}}}", ka, kb);
	/* boots: range, and only for boot jobs */
	refused("boots", "out of range 1..64",
		HEAD "\"boots\": 0, \"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb);
	refused("boots", "out of range 1..64",
		HEAD "\"boots\": 65, \"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb);
	refused("boots", "only for a boot job",
		HEAD "\"boots\": 2, \"variants\": {\"A\": {}, \"B\": {\"iodepth\": 4}}}");
	refused("allow_other_jobs", "only for a boot job",
		HEAD "\"allow_other_jobs\": true, \"variants\": {\"A\": {}, \"B\": {\"iodepth\": 4}}}");
	/* the boots must be told apart after the reboot */
	refused("variants.B.boot", "could not be told apart",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\", \"cmdline\": \"q\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\", \"release\": \"6.1.0-a\", \"cmdline\": \"q\"}}}}",
		ka, kb);
	refused("variants.A.boot", "give \"release\"",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", kodd, kb);
	/* boots in pairs (not blocked), no adaptive rounds, no A/A */
	refused("order", "interleaved",
		HEAD "\"order\": \"blocked\", \"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb);
	refused("max_repeat", "no adaptive rounds",
		HEAD "\"repeat\": 3, \"max_repeat\": 6, \"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb);
	refused("variants.A.boot.cmdline", "newline",
		HEAD "\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\", \"cmdline\": \"a\\nb\"}}, "
		"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb);
}

static void facts(struct bb_boot_facts *f, const char *rel, const char *cmd,
		  const char *id, int64_t booted)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->release, sizeof(f->release), "%s", rel);
	snprintf(f->cmdline, sizeof(f->cmdline), "%s", cmd);
	snprintf(f->boot_id, sizeof(f->boot_id), "%s", id);
	f->booted_ms = booted;
}

static void test_matches(void **state)
{
	struct bb_job_boot b = { .set = true };
	struct bb_boot_facts f;
	char why[512], rel[64];

	(void)state;
	snprintf(b.kernel, sizeof(b.kernel), "/boot/vmlinuz-6.1.0-57-cloud-amd64");
	assert_string_equal(bb_boot_release(&b, rel, sizeof(rel)),
			    "6.1.0-57-cloud-amd64");
	facts(&f, "6.1.0-57-cloud-amd64", "console=ttyS0 bbkernel=A quiet", "x", 0);
	assert_true(bb_boot_matches(&b, &f, why, sizeof(why)));
	snprintf(b.cmdline, sizeof(b.cmdline), "bbkernel=A console=ttyS0");
	assert_true(bb_boot_matches(&b, &f, why, sizeof(why)));
	/* a word, not a substring */
	facts(&f, "6.1.0-57-cloud-amd64", "console=ttyS0 bbkernel=AB", "x", 0);
	assert_false(bb_boot_matches(&b, &f, why, sizeof(why)));
	assert_non_null(strstr(why, "lacks \"bbkernel=A\""));
	/* the release */
	facts(&f, "6.18.0", "console=ttyS0 bbkernel=A", "x", 0);
	assert_false(bb_boot_matches(&b, &f, why, sizeof(why)));
	assert_non_null(strstr(why, "release 6.18.0, not 6.1.0-57-cloud-amd64"));
	/* a given release beats the file name */
	snprintf(b.release, sizeof(b.release), "6.18.0");
	assert_true(bb_boot_matches(&b, &f, why, sizeof(why)));
	/* no vmlinuz- name, no release: the cmdline alone decides */
	memset(&b, 0, sizeof(b));
	snprintf(b.kernel, sizeof(b.kernel), "/boot/bzImage");
	assert_string_equal(bb_boot_release(&b, rel, sizeof(rel)), "");
	assert_true(bb_boot_matches(&b, &f, why, sizeof(why)));
}

static void test_recover_decide(void **state)
{
	struct bb_boot_progress p = { .boot = 2, .boots = 4, .variant = "A",
				      .boot_id_before = "id-1",
				      .deadline_ms = 100000 };
	struct bb_job_boot a = { .set = true, .kernel = "/boot/vmlinuz-6.1.0",
				 .cmdline = "bbkernel=A" };
	struct bb_boot_facts f;
	char why[1024];

	(void)state;
	/* the right kernel, a new boot, in time */
	facts(&f, "6.1.0", "console=ttyS0 bbkernel=A", "id-2", 90000);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_CONTINUE);
	assert_string_equal(why, "");
	/* when the boot time is unknown, the deadline cannot refuse it */
	facts(&f, "6.1.0", "bbkernel=A", "id-2", 0);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_CONTINUE);
	/* the daemon restarted without a reboot */
	facts(&f, "6.1.0", "bbkernel=A", "id-1", 90000);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_FAIL);
	assert_non_null(strstr(why, "did not reboot into A (boot 3 of 4)"));
	assert_non_null(strstr(why, "id-1 unchanged"));
	/* the boot loader fell back to another kernel */
	facts(&f, "6.1.0", "bbkernel=B", "id-2", 90000);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_FAIL);
	assert_non_null(strstr(why, "wrong kernel for variant A"));
	assert_non_null(strstr(why, "lacks \"bbkernel=A\""));
	facts(&f, "6.2.0", "bbkernel=A", "id-2", 90000);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_FAIL);
	assert_non_null(strstr(why, "release 6.2.0, not 6.1.0"));
	/* too late */
	facts(&f, "6.1.0", "bbkernel=A", "id-2", 160000);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_FAIL);
	assert_non_null(strstr(why, "60 s after its deadline"));
	/* no boot id: nothing proves a reboot */
	facts(&f, "6.1.0", "bbkernel=A", "", 90000);
	assert_int_equal(bb_boot_recover_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_FAIL);
	bb_boot_progress_text(&p, why, sizeof(why));
	assert_string_equal(why, "rebooting into A (boot 3 of 4)");
}

/* The boots come in pairs: interleaved A B A B ...; random (the default)
 * each pair in the order its seed draws, both orders over many pairs,
 * the same for the same seed. */
static void test_boot_order(void **state)
{
	struct bb_job_errors e;
	struct bb_job *job = job_new();
	unsigned ab = 0, ba = 0, first[32];

	(void)state;
	assert_int_equal(parsef(job, &e, HEAD "\"order\": \"interleaved\", \"boots\": 3, "
				"\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
				"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb), 0);
	for (unsigned k = 0; k < 6; k++)
		assert_int_equal(bb_job_boot_variant(job, k), k % 2);
	bb_job_free(job);
	assert_int_equal(parsef(job, &e, HEAD "\"seed\": 5, \"boots\": 32, "
				"\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
				"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb), 0);
	assert_int_equal(job->order, BB_ORDER_RANDOM);
	for (unsigned p = 0; p < 32; p++) {
		unsigned x = bb_job_boot_variant(job, 2 * p);
		unsigned y = bb_job_boot_variant(job, 2 * p + 1);
		struct bb_job_step st[2];

		assert_true(x < 2 && y < 2 && x != y);
		ab += x == 0;
		ba += x == 1;
		first[p] = x;
		/* the same order as the plan's rounds */
		assert_int_equal(bb_job_plan(job, p, 1, st), 2);
		assert_int_equal(st[0].variant, x);
	}
	assert_true(ab >= 6 && ba >= 6);
	bb_job_free(job);
	assert_int_equal(parsef(job, &e, HEAD "\"seed\": 5, \"boots\": 32, "
				"\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
				"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb), 0);
	for (unsigned p = 0; p < 32; p++)
		assert_int_equal(bb_job_boot_variant(job, 2 * p), first[p]);
	bb_job_free(job);
	free(job);
}

/* A boot job found still running at a start: redo the boot here, after a
 * reboot into its kernel, or give up after BB_BOOT_REDO_MAX redos. */
static void test_redo_decide(void **state)
{
	struct bb_boot_progress p = { .boot = 2, .boots = 4, .variant = "A",
				      .boot_id_before = "id-1" };
	struct bb_job_boot a = { .set = true, .kernel = "/boot/vmlinuz-6.1.0",
				 .cmdline = "bbkernel=A" };
	struct bb_boot_facts f;
	char why[1024];

	(void)state;
	/* the daemon restarted on the boot's kernel (same boot or not) */
	facts(&f, "6.1.0", "console=ttyS0 bbkernel=A", "id-1", 90000);
	assert_int_equal(bb_boot_redo_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_REDO_HERE);
	assert_non_null(strstr(why, "boot 3 of 4 (A) was interrupted: redone "
				    "from its first run on this boot (6.1.0, "
				    "boot id id-1)"));
	/* the host came back on its default kernel */
	facts(&f, "6.1.0", "console=ttyS0", "id-2", 90000);
	assert_int_equal(bb_boot_redo_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_REDO_REBOOT);
	assert_non_null(strstr(why, "rebooting into it to redo the boot"));
	assert_non_null(strstr(why, "lacks \"bbkernel=A\""));
	facts(&f, "6.2.0", "bbkernel=A", "id-2", 90000);
	assert_int_equal(bb_boot_redo_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_REDO_REBOOT);
	/* one redo left, then none */
	p.redone = BB_BOOT_REDO_MAX - 1;
	facts(&f, "6.1.0", "bbkernel=A", "id-2", 90000);
	assert_int_equal(bb_boot_redo_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_REDO_HERE);
	p.redone = BB_BOOT_REDO_MAX;
	assert_int_equal(bb_boot_redo_decide(&p, &a, &f, why, sizeof(why)),
			 BB_BOOT_REDO_FAIL);
	assert_non_null(strstr(why, "boot 3 of 4 (A) was interrupted, and the "
				    "job has redone 2 interrupted boots "
				    "already"));
}

static void test_facts_read(void **state)
{
	struct bb_boot_facts f;

	(void)state;
	assert_int_equal(bb_boot_facts_read(&f), 0);
	assert_true(f.release[0]);
	assert_int_equal(strlen(f.boot_id), 36);
	assert_true(f.booted_ms > 0);
}

/* Per-boot medians, paired A B A B: B is 10 % faster in every boot pair,
 * boot to boot drift shared. */
static void test_boot_results(void **state)
{
	static const double drift[4] = { 1.00, 1.05, 0.97, 1.02 };
	struct bb_jobrun_boot_run runs[8 * 3];
	struct bb_job_errors e;
	struct bb_job *job = job_new();
	struct bb_jobrun jr;
	struct json_object *o, *bb;
	size_t n = 0;

	(void)state;
	assert_int_equal(parsef(job, &e, HEAD "\"boots\": 4, \"repeat\": 3, "
				"\"variants\": {\"A\": {\"boot\": {\"kernel\": \"%s\"}}, "
				"\"B\": {\"boot\": {\"kernel\": \"%s\"}}}}", ka, kb), 0);
	assert_int_equal(bb_jobrun_init(&jr, job, NULL), 0);
	for (unsigned b = 0; b < 8; b++) {
		unsigned v = b % 2;
		double base = 1000.0 * drift[b / 2] * (v ? 1.10 : 1.0);

		/* three runs; the median is the middle one */
		runs[n++] = (struct bb_jobrun_boot_run){ v, b, base * 0.99, NAN, 1 };
		runs[n++] = (struct bb_jobrun_boot_run){ v, b, base, NAN, 1 };
		runs[n++] = (struct bb_jobrun_boot_run){ v, b, base * 1.03, NAN, 1 };
	}
	assert_int_equal(bb_jobrun_boot_results(&jr, runs, n), 0);
	assert_int_equal(jr.boot_pairs, 4);
	assert_int_equal(jr.vs[0].n, 4);
	assert_int_equal(jr.vs[1].n, 4);
	assert_true(fabs(jr.vs[0].vals[1] - 1050.0) < 1e-9);
	assert_true(fabs(jr.vs[1].vals[2] - 970.0 * 1.10) < 1e-9);
	assert_true(jr.have_cmp);
	assert_int_equal(jr.cmp_ret[1], 0);
	assert_true(fabs(jr.cmp[1].change - 0.10) < 0.005);
	assert_int_equal((int)jr.cmp[1].n, 4);
	assert_true(jr.boot_sd[0] > 0.01 && jr.boot_sd[0] < 0.05);
	o = bb_jobrun_to_json(&jr);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "design")),
			    "boots");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "boot_pairs")), 4);
	assert_true(json_object_object_get_ex(o, "between_boot", &bb));
	assert_non_null(strstr(json_object_get_string(json_object_object_get(o, "text")),
			       "4 boot pairs; between-boot spread A "));
	assert_string_equal(json_object_get_string(json_object_object_get(
				    json_object_object_get(o, "scope"), "kind")),
			    "kernel");
	json_object_put(o);

	/* one incomplete pair: B's last boot missing */
	assert_int_equal(bb_jobrun_boot_results(&jr, runs, n - 3), 0);
	assert_int_equal(jr.boot_pairs, 3);
	/* nothing to pair */
	assert_int_equal(bb_jobrun_boot_results(&jr, runs, 3), -EINVAL);
	bb_jobrun_free(&jr);
	bb_job_free(job);
	free(job);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_ok),
		cmocka_unit_test(test_spec_refused),
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_recover_decide),
		cmocka_unit_test(test_redo_decide),
		cmocka_unit_test(test_boot_order),
		cmocka_unit_test(test_facts_read),
		cmocka_unit_test(test_boot_results),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
