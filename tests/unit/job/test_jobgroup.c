// SPDX-License-Identifier: GPL-2.0-only
/* test_jobgroup.c - one job on several hosts (core/job/jobgroup.c): the
 * selector's keys and globs against a daemon's registry metadata, the
 * group's state from its children's, and the combined block of the
 * per-host comparisons (range, spread, the inverse-variance pooled
 * estimate against figures worked out by hand, disagreement). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <biobench/abstats.h>
#include <biobench/jobgroup.h>

static struct json_object *J(const char *text)
{
	struct json_object *o = json_tokener_parse(text);

	assert_non_null(o);
	return o;
}

static bool match(const char *sel, const char *name, const char *target)
{
	struct json_object *s = J(sel);
	struct json_object *host = J("{\"kernel\":\"6.18.0-rc3\",\"cpus\":16,"
				     "\"cpu_model\":\"AMD EPYC 9654 96-Core\","
				     "\"governor\":null}");
	struct json_object *devs = J(
		"{\"devices\":[{\"name\":\"nvme0n1\",\"path\":\"/dev/nvme0n1\","
		"\"model\":\"QEMU NVMe Ctrl\",\"rotational\":false},"
		"{\"name\":\"sda\",\"path\":\"/dev/sda\",\"model\":\"WDC\","
		"\"rotational\":true}],\"allow\":[]}");
	bool m = bb_group_match(s, name, host, devs, target);

	json_object_put(s);
	json_object_put(host);
	json_object_put(devs);
	return m;
}

static void selector(void **state)
{
	(void)state;
	assert_true(bb_group_key_ok("kernel"));
	assert_true(bb_group_key_ok("device.model"));
	assert_false(bb_group_key_ok("device."));
	assert_false(bb_group_key_ok("kernal"));
	assert_false(bb_group_key_ok("device.colour"));
	assert_non_null(strstr(bb_group_keys(), "device.io_poll"));

	assert_true(match("{\"kernel\":\"6.18*\"}", "lab-1", "nop"));
	assert_false(match("{\"kernel\":\"6.17*\"}", "lab-1", "nop"));
	assert_true(match("{\"name\":\"lab-[0-9]\"}", "lab-1", "nop"));
	assert_false(match("{\"name\":\"lab-[0-9]\"}", "lab-12", "nop"));
	/* numbers and booleans as their JSON text; null matches nothing */
	assert_true(match("{\"cpus\":\"1?\"}", "h", "nop"));
	assert_false(match("{\"governor\":\"*\"}", "h", "nop"));
	assert_false(match("{\"microcode\":\"*\"}", "h", "nop"));
	/* every key: AND */
	assert_true(match("{\"kernel\":\"6.*\",\"cpu_model\":\"AMD*\"}", "h",
			  "nop"));
	assert_false(match("{\"kernel\":\"6.*\",\"cpu_model\":\"Intel*\"}",
			   "h", "nop"));
	/* devices: any, the target's when the host has it, all keys on
	 * one device */
	assert_true(match("{\"device.model\":\"WDC\"}", "h", "nop"));
	assert_true(match("{\"device.model\":\"WDC\"}", "h", "/dev/sdz"));
	assert_false(match("{\"device.model\":\"WDC\"}", "h", "/dev/nvme0n1"));
	assert_true(match("{\"device.model\":\"QEMU*\"}", "h", "/dev/nvme0n1"));
	assert_true(match("{\"device.rotational\":\"true\"}", "h", "nop"));
	assert_false(match("{\"device.model\":\"WDC\",\"device.name\":"
			   "\"nvme*\"}", "h", "nop"));
	assert_true(match("{\"device.model\":\"WDC\",\"device.name\":\"sd?\"}",
			  "h", "nop"));
	/* a host without devices matches no device key */
	{
		struct json_object *s = J("{\"device.model\":\"*\"}");

		assert_false(bb_group_match(s, "h", NULL, NULL, "nop"));
		json_object_put(s);
	}
}

static void states(void **state)
{
	static const struct {
		const char *in[4];
		size_t n;
		const char *want;
	} cases[] = {
		{ { "queued", "queued" }, 2, "queued" },
		{ { "queued", "running" }, 2, "running" },
		{ { "rebooting", "done" }, 2, "running" },
		{ { "done", "queued" }, 2, "running" },
		{ { "failed", "queued", "queued" }, 3, "running" },
		{ { "done", "done", "done" }, 3, "done" },
		{ { "done", "cancelled" }, 2, "cancelled" },
		{ { "interrupted", "cancelled", "done" }, 3, "interrupted" },
		{ { "cancelled", "failed", "interrupted" }, 3, "failed" },
		{ { "done" }, 1, "done" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(bb_group_state(cases[i].in, cases[i].n),
				    cases[i].want);
}

static double num(struct json_object *o, const char *k)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, k, &v));
	return json_object_get_double(v);
}

static const char *str(struct json_object *o, const char *k)
{
	struct json_object *v;

	assert_true(json_object_object_get_ex(o, k, &v));
	return json_object_get_string(v);
}

/* One row of a host's comparison (95% intervals), as JSON text in buf;
 * returns buf. */
static const char *row(char *buf, size_t len, const char *host,
		       const char *variant, double change, double lo, double hi,
		       const char *verdict)
{
	snprintf(buf, len, "{\"host\":\"%s\",\"baseline\":\"A\",\"variant\":"
		 "\"%s\",\"change\":%.17g,\"ci_lo\":%.17g,\"ci_hi\":%.17g,"
		 "\"ci_level\":0.95,\"verdict\":\"%s\"}", host, variant, change,
		 lo, hi, verdict);
	return buf;
}

/* The rows r0, r1, r2 (r2 may be NULL) as one JSON array. */
static struct json_object *rows3(const char *r0, const char *r1,
				 const char *r2)
{
	char text[2048];

	snprintf(text, sizeof(text), "[%s,%s%s%s]", r0, r1, r2 ? "," : "",
		 r2 ? r2 : "");
	return J(text);
}

/* Two hosts with symmetric 95% intervals on the log scale: standard
 * errors 0.01 and 0.02, so weights 4:1 and the pooled log effect is
 * (4 * 0.05 + 1 * 0.10) / 5 = 0.06 with SE 1/sqrt(10000 + 2500). */
static void combine(void **state)
{
	double z = bb_ab_norm_quantile(0.975);
	char r0[256], r1[256], r2[256];
	struct json_object *in, *out, *b, *p;

	(void)state;
	assert_true(fabs(z - 1.959963985) < 1e-8);
	in = rows3(row(r0, sizeof(r0), "a", "B", expm1(0.05),
		       expm1(0.05 - z * 0.01), expm1(0.05 + z * 0.01),
		       "faster"),
		   row(r1, sizeof(r1), "b", "B", expm1(0.10),
		       expm1(0.10 - z * 0.02), expm1(0.10 + z * 0.02),
		       "faster"),
		   "{\"host\":\"c\",\"state\":\"queued\"}");
	out = bb_group_combine(in, 0.95);
	assert_int_equal(json_object_array_length(out), 1);
	b = json_object_array_get_idx(out, 0);
	assert_int_equal((int)num(b, "hosts"), 2);
	assert_string_equal(str(json_object_object_get(b, "min"), "host"), "a");
	assert_string_equal(str(json_object_object_get(b, "max"), "host"), "b");
	assert_true(fabs(num(b, "spread_sd") - 0.05 / sqrt(2)) < 1e-9);
	p = json_object_object_get(b, "pooled");
	assert_non_null(p);
	assert_true(fabs(log1p(num(p, "change")) - 0.06) < 1e-9);
	assert_true(fabs(log1p(num(p, "ci_hi")) -
			 (0.06 + z / sqrt(12500))) < 1e-9);
	/* Q = 10000 (0.01)^2 + 2500 (0.04)^2 = 5; I^2 = (5 - 1) / 5 */
	assert_true(fabs(num(p, "q") - 5) < 1e-6);
	assert_true(fabs(num(p, "i2") - 0.8) < 1e-6);
	assert_false(json_object_get_boolean(json_object_object_get(b,
								    "disagree")));
	assert_string_equal(str(b, "verdict"), "faster");
	assert_non_null(strstr(str(b, "text"), "B vs A on 2 hosts"));
	json_object_put(out);
	json_object_put(in);

	/* significant with opposite signs: disagree, naming both; an
	 * inconclusive third is not among them */
	in = rows3(row(r0, sizeof(r0), "a", "B", 0.04, 0.02, 0.06, "faster"),
		   row(r1, sizeof(r1), "b", "B", -0.03, -0.05, -0.01, "slower"),
		   row(r2, sizeof(r2), "c", "B", 0.001, -0.02, 0.02,
		       "inconclusive"));
	out = bb_group_combine(in, 0.95);
	b = json_object_array_get_idx(out, 0);
	assert_true(json_object_get_boolean(json_object_object_get(b,
								   "disagree")));
	assert_int_equal(json_object_array_length(
		json_object_object_get(b, "disagreeing")), 2);
	assert_string_equal(str(b, "verdict"), "disagree");
	assert_non_null(strstr(str(b, "text"), "disagree"));
	json_object_put(out);
	json_object_put(in);

	/* same sign, different verdicts: mixed; one host: no spread */
	in = rows3(row(r0, sizeof(r0), "a", "B", 0.04, 0.02, 0.06, "faster"),
		   row(r1, sizeof(r1), "b", "B", 0.01, -0.01, 0.03,
		       "inconclusive"),
		   row(r2, sizeof(r2), "a", "C", 0.02, 0.01, 0.03, "faster"));
	out = bb_group_combine(in, 0.95);
	assert_int_equal(json_object_array_length(out), 2);
	assert_string_equal(str(json_object_array_get_idx(out, 0), "verdict"),
			    "mixed");
	b = json_object_array_get_idx(out, 1);
	assert_string_equal(str(b, "variant"), "C");
	assert_null(json_object_object_get(b, "spread_sd"));
	json_object_put(out);
	json_object_put(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(selector),
		cmocka_unit_test(states),
		cmocka_unit_test(combine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
