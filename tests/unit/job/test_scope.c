// SPDX-License-Identifier: GPL-2.0-only
/* test_scope.c - what an A/B job measures (core/job/scope.c): the model
 * knobs are said to switch biobench's userspace model of the bio path, a
 * sysfs knob to measure the kernel, other options the workload. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include <biobench/scope.h>

static const struct {
	const char *variants; /* the "variants" object */
	const char *target;
	const char *kind;
	const char *model, *kernel, *workload; /* in the lists; "" none */
	const char *note;                      /* a part of the note */
} cases[] = {
	{ "{\"A\":{\"bio_cache\":\"off\"},\"B\":{\"bio_cache\":\"all\"}}", "nop",
	  "model", "bio_cache", "", "",
	  "bio_cache: these switch biobench's userspace model of the bio path, not the kernel" },
	{ "{\"A\":{\"split_check\":\"vcnt\",\"bio_layout\":\"vec_late\"},"
	  "\"B\":{\"split_check\":\"iter\",\"bio_layout\":\"vec_late\"}}", "nop",
	  "model", "split_check", "", "", "not the kernel" },
	{ "{\"A\":{\"completion\":\"thread\"},\"B\":{}}", "nop",
	  "model", "completion", "", "", "userspace model" },
	{ "{\"A\":{},\"B\":{\"mode\":\"sqpoll\",\"completion\":\"inline\"}}", "nop",
	  "mixed", "completion", "", "mode", "the workload differs" },
	/* a mode override alone changes the put context (completion auto:
	 * poll is task context, irq hard-irq) */
	{ "{\"A\":{},\"B\":{\"mode\":\"poll\"}}", "/dev/null",
	  "mixed", "completion context", "", "mode",
	  "completion context: these switch" },
	{ "{\"A\":{\"cold_bios\":false},\"B\":{\"cold_bios\":true}}", "nop",
	  "model", "cold_bios", "", "", "not the kernel" },
	/* what is modelled and what is calibrated: the baseline's kernel
	 * cost, per request on nop, the kernel's own under O_DIRECT */
	{ "{\"A\":{\"bio_cache\":\"off\"},\"B\":{\"bio_cache\":\"all\"}}", "nop",
	  "model", "bio_cache", "", "",
	  "not the kernel; the model's kernel cost: calibrated, not executed: slab 12 ns per object allocated, 9 ns freed, mempool 25 ns per reserve take or refill; block layer 110 ns and completion 80 ns per request" },
	{ "{\"A\":{\"bio_cache\":\"off\"},\"B\":{\"bio_cache\":\"all\"}}", "/dev/null",
	  "model", "bio_cache", "", "", "(O_DIRECT: executed, not added)" },
	{ "{\"A\":{\"kernel_cost\":false,\"bio_cache\":\"off\"},\"B\":{\"kernel_cost\":false}}", "nop",
	  "model", "bio_cache", "", "",
	  "the model's kernel cost: off: the bare mechanism" },
	{ "{\"A\":{\"kcost_request_ns\":0},\"B\":{\"kcost_request_ns\":400}}", "nop",
	  "model", "kcost_request_ns", "", "", "block layer 0 ns" },
	{ "{\"A\":{\"sysfs.nomerges\":0},\"B\":{\"sysfs.nomerges\":2}}",
	  "/dev/null", "kernel", "", "sysfs.nomerges", "",
	  "sysfs.nomerges: sysfs queue knobs of the device: this measures the kernel" },
	{ "{\"A\":{\"sysfs\":{\"rq_affinity\":1}},\"B\":{\"sysfs\":{\"rq_affinity\":2}}}",
	  "/dev/null", "kernel", "", "sysfs.rq_affinity", "", "this measures the kernel" },
	{ "{\"A\":{\"bio_cache\":\"off\",\"sysfs.nomerges\":0},"
	  "\"B\":{\"bio_cache\":\"all\",\"sysfs.nomerges\":2}}", "/dev/null",
	  "mixed", "bio_cache", "sysfs.nomerges", "", "not the kernel; sysfs.nomerges" },
	{ "{\"A\":{\"iodepth\":32},\"B\":{\"iodepth\":128}}", "nop",
	  "workload", "", "", "iodepth", "iodepth: the workload differs" },
	/* the same override in both: nothing differs */
	{ "{\"A\":{\"bio_cache\":\"off\"},\"B\":{\"bio_cache\":\"off\"}}", "nop",
	  "none", "", "", "", "the same configuration" },
};

static void test_scope_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < bb_array_size(cases); i++) {
		char doc[2048];
		struct bb_job job;
		struct bb_job_errors errs;
		struct bb_job_scope s;
		struct json_object *j;

		snprintf(doc, sizeof(doc),
			 "{\"name\":\"t\",\"target\":\"%s\",\"variants\":%s}",
			 cases[i].target, cases[i].variants);
		if (bb_job_parse_string(&job, doc, strlen(doc), &errs))
			fail_msg("case %zu: %s", i, errs.msg[0]);
		bb_job_scope(&job, &s);
		j = bb_job_scope_to_json(&s);
		print_message("  %s\n", s.note);
		assert_string_equal(json_object_get_string(
					    json_object_object_get(j, "kind")),
				    cases[i].kind);
		if (cases[i].model[0])
			assert_non_null(strstr(s.model_fields, cases[i].model));
		else
			assert_false(s.model);
		if (cases[i].kernel[0])
			assert_string_equal(s.kernel_fields, cases[i].kernel);
		else
			assert_false(s.kernel);
		if (cases[i].workload[0])
			assert_non_null(strstr(s.workload_fields, cases[i].workload));
		else
			assert_false(s.workload);
		if (!strstr(s.note, cases[i].note))
			fail_msg("case %zu: note \"%s\" lacks \"%s\"", i, s.note,
				 cases[i].note);
		json_object_put(j);
		bb_job_free(&job);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scope_cases),
	};

	return cmocka_run_group_tests_name("scope", tests, NULL, NULL);
}
