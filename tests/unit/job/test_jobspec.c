// SPDX-License-Identifier: GPL-2.0-only
/* test_jobspec.c - the A/B job document: defaults, every error path with
 * its field, several errors at once, the normalized document's round
 * trip, the run plan of each order, the metrics of a hand-built result,
 * and schema/job.schema.json (its option properties against the option
 * table, the example documents of tests/data/jobs against it with
 * python3-jsonschema when installed). */
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

#include <biobench/jobspec.h>
#include <biobench/options.h>

/* ------------------------------------------------------------------ */
/* helpers */


static char *read_text(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static struct bb_job *job_new(void)
{
	struct bb_job *job = calloc(1, sizeof(*job));

	assert_non_null(job);
	return job;
}

static int parse(struct bb_job *job, const char *text,
		 struct bb_job_errors *errs)
{
	return bb_job_parse_string(job, text, strlen(text), errs);
}

static void dump_errors(const struct bb_job_errors *e)
{
	for (unsigned i = 0; i < e->n && i < BB_JOB_MAX_ERRORS; i++)
		print_message("  [%s] %s\n", e->field[i], e->msg[i]);
}

/* Index of the error on field, or -1. */
static int find_error(const struct bb_job_errors *e, const char *field)
{
	for (unsigned i = 0; i < e->n && i < BB_JOB_MAX_ERRORS; i++)
		if (!strcmp(e->field[i], field))
			return (int)i;
	return -1;
}

/* A good job; %s is spliced into the top level, before "variants". */
#define GOOD_HEAD "{\"name\": \"t\", \"target\": \"nop\", "
#define GOOD_VARIANTS "\"variants\": {\"A\": {}, \"B\": {\"bio_cache\": \"off\"}}"

/* ------------------------------------------------------------------ */
/* good documents */

static void test_defaults(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	struct bb_config def;
	int ret;

	(void)state;
	ret = parse(job,
		    "{\"name\": \"cache\", \"target\": \"nop\","
		    " \"workload\": {\"bs\": \"8k\", \"iodepth\": 8},"
		    " \"variants\": {\"A\": {},"
		    "   \"B\": {\"bio_cache\": \"off\", \"sysfs.nomerges\": 2,"
		    "          \"sysfs\": {\"rq_affinity\": \"1\", \"iostats\": true},"
		    "          \"sysfs.io_poll_delay\": -1}}}",
		    &errs);
	if (ret)
		dump_errors(&errs);
	assert_int_equal(ret, 0);
	assert_int_equal(errs.n, 0);
	assert_string_equal(job->name, "cache");
	assert_string_equal(job->target, "nop");
	assert_int_equal(job->repeat, 12);
	assert_int_equal(job->warmup, 1);
	assert_int_equal(job->max_repeat, 12);
	assert_int_equal(job->order, BB_ORDER_RANDOM);
	/* a fresh seed, kept in the normalized document */
	assert_true(job->seed <= (uint64_t)INT64_MAX);
	assert_true(json_object_get_int64(json_object_object_get(job->spec, "seed")) ==
		    (int64_t)job->seed);
	assert_int_equal(job->metric, BB_METRIC_IOPS);
	assert_true(fabs(job->min_effect - 0.01) < 1e-12);
	assert_true(fabs(job->confidence - 0.95) < 1e-12);

	bb_config_default(&def);
	assert_int_equal(job->nvariants, 2);
	assert_string_equal(job->v[0].name, "A");
	assert_string_equal(job->v[1].name, "B");
	for (unsigned i = 0; i < 2; i++) {
		const struct bb_config *c = &job->v[i].cfg;

		assert_string_equal(c->target, "nop");
		assert_int_equal(c->bs, 8192);
		assert_int_equal(c->iodepth, 8);
		/* bb_config_check applied: the batch is clamped to iodepth */
		assert_int_equal(c->submit_batch, 8);
		assert_int_equal(c->rw, def.rw);
	}
	assert_int_equal(job->v[0].cfg.bio_cache, def.bio_cache);
	assert_int_equal(job->v[1].cfg.bio_cache, BB_CACHE_OFF);
	assert_int_equal(job->v[0].nsysfs, 0);
	assert_int_equal(job->v[1].nsysfs, 4);
	assert_string_equal(job->v[1].sysfs[0].name, "nomerges");
	assert_string_equal(job->v[1].sysfs[0].value, "2");
	assert_string_equal(job->v[1].sysfs[1].name, "rq_affinity");
	assert_string_equal(job->v[1].sysfs[1].value, "1");
	assert_string_equal(job->v[1].sysfs[2].name, "iostats");
	assert_string_equal(job->v[1].sysfs[2].value, "1");
	assert_string_equal(job->v[1].sysfs[3].name, "io_poll_delay");
	assert_string_equal(job->v[1].sysfs[3].value, "-1");
	assert_non_null(job->spec);
	bb_job_free(job);
	assert_null(job->spec);
	bb_job_free(job); /* twice is harmless */
	free(job);
}

/* A/A: the one variant (or the workload alone) runs as itself and as a
 * copy with its own name; the normalized spec parses to the same job. */
static void test_aa(void **state)
{
	struct bb_job *job = job_new(), *again = job_new();
	struct bb_job_errors errs;

	(void)state;
	assert_int_equal(parse(job, "{\"name\": \"aa\", \"target\": \"nop\","
				    " \"aa\": true}", &errs), 0);
	assert_true(job->aa);
	assert_int_equal(job->nvariants, 2);
	assert_string_equal(job->v[0].name, "A");
	assert_string_equal(job->v[1].name, "A2");
	assert_memory_equal(&job->v[0].cfg, &job->v[1].cfg,
			    sizeof(job->v[0].cfg));
	assert_int_equal(parse(again, json_object_to_json_string(job->spec),
			       &errs), 0);
	assert_int_equal(again->nvariants, 2);
	bb_job_free(job);
	bb_job_free(again);

	assert_int_equal(parse(job, "{\"name\": \"aa\", \"target\": \"nop\","
				    " \"aa\": true, \"variants\": {\"off\":"
				    " {\"bio_cache\": \"off\", \"sysfs.nomerges\": 2}}}",
			       &errs), 0);
	assert_int_equal(job->nvariants, 2);
	assert_string_equal(job->v[1].name, "off2");
	assert_int_equal(job->v[1].cfg.bio_cache, BB_CACHE_OFF);
	assert_int_equal(job->v[1].nsysfs, 1);
	assert_string_equal(job->v[1].sysfs[0].name, "nomerges");
	bb_job_free(job);

	/* a 30-character name: its copy has the 31st character */
	assert_int_equal(parse(job, "{\"name\": \"aa\", \"target\": \"nop\","
				    " \"aa\": true, \"variants\":"
				    " {\"abcdefghijklmnopqrstuvwxyz0122\": {}}}",
			       &errs), 0);
	assert_string_equal(job->v[0].name, "abcdefghijklmnopqrstuvwxyz0122");
	assert_string_equal(job->v[1].name, "abcdefghijklmnopqrstuvwxyz01222");
	bb_job_free(job);
	free(job);
	free(again);
}

static void test_all_fields(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_errors errs;

	(void)state;
	assert_int_equal(parse(job,
			       GOOD_HEAD "\"repeat\": 10, \"warmup\": 0, \"max_repeat\": 30,"
			       " \"order\": \"random\", \"seed\": 9223372036854775807,"
			       " \"metric\": \"lat_p99\", \"min_effect\": 2.5,"
			       " \"confidence\": 0.99, "
			       "\"variants\": {\"Z\": {}, \"a_1\": {}, \"m-2\": {\"inject_ns\": 5}}}",
			       &errs),
			 0);
	assert_int_equal(job->repeat, 10);
	assert_int_equal(job->warmup, 0);
	assert_int_equal(job->max_repeat, 30);
	assert_int_equal(job->order, BB_ORDER_RANDOM);
	assert_true(job->seed == INT64_MAX);
	assert_int_equal(job->metric, BB_METRIC_LAT_P99);
	assert_true(fabs(job->min_effect - 0.025) < 1e-12);
	assert_true(fabs(job->confidence - 0.99) < 1e-12);
	/* document order, not sorted */
	assert_int_equal(job->nvariants, 3);
	assert_string_equal(job->v[0].name, "Z");
	assert_string_equal(job->v[1].name, "a_1");
	assert_string_equal(job->v[2].name, "m-2");
	assert_int_equal(job->v[2].cfg.inject_ns, 5);
	bb_job_free(job);

	/* integral doubles are integers; 8 variants is the maximum */
	assert_int_equal(parse(job,
			       GOOD_HEAD "\"repeat\": 4.0, \"variants\": {\"a\": {}, \"b\": {},"
			       " \"c\": {}, \"d\": {}, \"e\": {}, \"f\": {}, \"g\": {}, \"h\": {}}}",
			       &errs),
			 0);
	assert_int_equal(job->repeat, 4);
	assert_int_equal(job->nvariants, BB_JOB_MAX_VARIANTS);
	bb_job_free(job);
	free(job);
}

/* ------------------------------------------------------------------ */
/* errors */

struct bad_case {
	const char *doc;
	const char *field;
	const char *msg; /* substring of the message (after "field: ") */
};

#define V_B(x) "\"variants\": {\"A\": {}, \"B\": " x "}}"

static const struct bad_case bad_cases[] = {
	/* name */
	{ "{\"target\": \"nop\", " GOOD_VARIANTS "}", "name", "required" },
	{ "{\"name\": \"\", \"target\": \"nop\", " GOOD_VARIANTS "}", "name",
	  "must not be empty" },
	{ "{\"name\": 5, \"target\": \"nop\", " GOOD_VARIANTS "}", "name",
	  "expected a string" },
	{ "{\"name\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\","
	  " \"target\": \"nop\", " GOOD_VARIANTS "}",
	  "name", "longer than 127 bytes" },
	/* target */
	{ "{\"name\": \"t\", " GOOD_VARIANTS "}", "target", "required" },
	{ "{\"name\": \"t\", \"target\": [], " GOOD_VARIANTS "}", "target",
	  "expected a path, or an array of 1..64 paths (got 0)" },
	{ "{\"name\": \"t\", \"target\": [\"/a\", 5], " GOOD_VARIANTS "}", "target[1]",
	  "expected a string" },
	{ "{\"name\": \"t\", \"target\": [\"/a\", \"nop\"], " GOOD_VARIANTS "}", "target",
	  "nop is one target of its own" },
	{ "{\"name\": \"t\", \"target\": [\"/a\", \"/b\"], "
	  "\"variants\": {\"A\": {}, \"B\": {\"sysfs.nomerges\": 2}}}", "variants.B.sysfs.nomerges",
	  "a job with 2 targets sets no queue knobs" },
	{ GOOD_HEAD "\"workload\": {\"target\": \"/dev/sda\"}, " GOOD_VARIANTS "}",
	  "workload.target", "not allowed here" },
	{ GOOD_HEAD V_B("{\"target\": \"/dev/sda\"}"), "variants.B.target",
	  "not allowed here" },
	/* workload */
	{ GOOD_HEAD "\"workload\": [], " GOOD_VARIANTS "}", "workload",
	  "expected an object" },
	{ GOOD_HEAD "\"workload\": {\"bogus\": 1}, " GOOD_VARIANTS "}",
	  "workload.bogus", "unknown field" },
	{ GOOD_HEAD "\"workload\": {\"json\": true}, " GOOD_VARIANTS "}",
	  "workload.json", "unknown field" },
	{ GOOD_HEAD "\"workload\": {\"bs\": \"3x\"}, " GOOD_VARIANTS "}",
	  "workload.bs", "\"3x\" is not a size" },
	{ GOOD_HEAD "\"workload\": {\"iodepth\": \"32\"}, " GOOD_VARIANTS "}",
	  "workload.iodepth", "expected an integer" },
	{ GOOD_HEAD "\"workload\": {\"iodepth\": 0}, " GOOD_VARIANTS "}",
	  "workload.iodepth", "0 is out of range 1..65536" },
	{ GOOD_HEAD "\"workload\": {\"fixedbufs\": 1}, " GOOD_VARIANTS "}",
	  "workload.fixedbufs", "expected a boolean" },
	{ GOOD_HEAD "\"workload\": {\"rw\": 1}, " GOOD_VARIANTS "}",
	  "workload.rw", "expected one of read" },
	{ GOOD_HEAD "\"workload\": {\"runtime\": null}, " GOOD_VARIANTS "}",
	  "workload.runtime", "expected a duration" },
	{ GOOD_HEAD "\"workload\": {\"cpus\": [0, \"x\"]}, " GOOD_VARIANTS "}",
	  "workload.cpus[1]", "expected an integer" },
	/* cross-field checks: on the variant, or once on the workload */
	{ GOOD_HEAD V_B("{\"bs\": 1000}"), "variants.B.bs",
	  "not a multiple of 512" },
	{ GOOD_HEAD V_B("{\"mode\": \"poll\", \"completion\": \"thread\"}"),
	  "variants.B.completion", "cannot be combined with --mode poll" },
	{ GOOD_HEAD V_B("{\"mode\": \"poll\", \"completion\": \"irq\"}"),
	  "variants.B.completion", "cannot be combined with --mode poll" },
	{ GOOD_HEAD "\"workload\": {\"runtime\": 0, \"number_ios\": 0}, " GOOD_VARIANTS "}",
	  "workload", "both 0" },
	/* variants */
	{ GOOD_HEAD "\"repeat\": 6}", "variants", "required" },
	{ GOOD_HEAD "\"variants\": []}", "variants", "expected an object" },
	{ GOOD_HEAD "\"variants\": {\"A\": {}}}", "variants",
	  "needs at least 2 variants (A and B)" },
	{ GOOD_HEAD "\"variants\": {\"a\": {}, \"b\": {}, \"c\": {}, \"d\": {},"
	  " \"e\": {}, \"f\": {}, \"g\": {}, \"h\": {}, \"i\": {}}}",
	  "variants", "at most 8 variants" },
	{ GOOD_HEAD "\"variants\": {\"A\": {}, \"a b\": {}}}", "variants.a b",
	  "not a valid variant name" },
	{ GOOD_HEAD "\"variants\": {\"A\": {}, \"\": {}}}", "variants.",
	  "not a valid variant name" },
	{ GOOD_HEAD "\"variants\": {\"A\": {}, \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\": {}}}",
	  "variants.xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", "not a valid variant name" },
	{ GOOD_HEAD V_B("5"), "variants.B", "expected an object" },
	{ GOOD_HEAD V_B("{\"bio_cache\": \"fast\"}"), "variants.B.bio_cache",
	  "\"fast\" is not one of off, task, irq, irq_fast, all, all_split" },
	{ GOOD_HEAD V_B("{\"nonsense\": 1}"), "variants.B.nonsense",
	  "unknown field" },
	/* sysfs */
	{ GOOD_HEAD V_B("{\"sysfs.NoMerges\": 1}"), "variants.B.sysfs.NoMerges",
	  "not a valid knob name" },
	{ GOOD_HEAD V_B("{\"sysfs.\": 1}"), "variants.B.sysfs.",
	  "not a valid knob name" },
	{ GOOD_HEAD V_B("{\"sysfs\": {\"a/b\": 1}}"), "variants.B.sysfs.a/b",
	  "not a valid knob name" },
	{ GOOD_HEAD V_B("{\"sysfs\": {\"nomerges\": [1]}}"),
	  "variants.B.sysfs.nomerges", "expected a string, a number or a boolean" },
	{ GOOD_HEAD V_B("{\"sysfs.nomerges\": null}"), "variants.B.sysfs.nomerges",
	  "expected a string, a number or a boolean" },
	{ GOOD_HEAD V_B("{\"sysfs.nomerges\": 1, \"sysfs\": {\"nomerges\": 2}}"),
	  "variants.B.sysfs.nomerges", "given twice" },
	{ GOOD_HEAD V_B("{\"sysfs\": 3}"), "variants.B.sysfs", "expected an object" },
	{ GOOD_HEAD V_B("{\"sysfs.scheduler\": \"a\\nb\"}"), "variants.B.sysfs.scheduler",
	  "newline" },
	{ GOOD_HEAD V_B("{\"sysfs\": {\"k0\": 0, \"k1\": 1, \"k2\": 2, \"k3\": 3,"
			" \"k4\": 4, \"k5\": 5, \"k6\": 6, \"k7\": 7, \"k8\": 8, \"k9\": 9,"
			" \"k10\": 0, \"k11\": 1, \"k12\": 2, \"k13\": 3, \"k14\": 4,"
			" \"k15\": 5, \"k16\": 6}}"),
	  "variants.B.sysfs.k16", "more than 16 sysfs knobs" },
	/* repetition */
	{ GOOD_HEAD "\"repeat\": 0, " GOOD_VARIANTS "}", "repeat",
	  "0 is out of range 2..1000" },
	{ GOOD_HEAD "\"repeat\": 1001, " GOOD_VARIANTS "}", "repeat",
	  "1001 is out of range 2..1000" },
	{ GOOD_HEAD "\"repeat\": -1, " GOOD_VARIANTS "}", "repeat",
	  "-1 is out of range 2..1000" },
	{ GOOD_HEAD "\"repeat\": 2.5, " GOOD_VARIANTS "}", "repeat",
	  "expected an integer" },
	{ GOOD_HEAD "\"repeat\": \"6\", " GOOD_VARIANTS "}", "repeat",
	  "expected an integer" },
	{ GOOD_HEAD "\"warmup\": 101, " GOOD_VARIANTS "}", "warmup",
	  "101 is out of range 0..100" },
	{ GOOD_HEAD "\"warmup\": true, " GOOD_VARIANTS "}", "warmup",
	  "expected an integer" },
	{ GOOD_HEAD "\"max_repeat\": 4, " GOOD_VARIANTS "}", "max_repeat",
	  "less than repeat (12)" },
	{ GOOD_HEAD "\"repeat\": 20, \"max_repeat\": 10, " GOOD_VARIANTS "}",
	  "max_repeat", "less than repeat (20)" },
	{ GOOD_HEAD "\"max_repeat\": 1001, " GOOD_VARIANTS "}", "max_repeat",
	  "out of range 2..1000" },
	/* order, seed, metric, statistics */
	{ GOOD_HEAD "\"order\": \"zigzag\", " GOOD_VARIANTS "}", "order",
	  "\"zigzag\" is not one of interleaved, blocked, random" },
	{ GOOD_HEAD "\"order\": 1, " GOOD_VARIANTS "}", "order",
	  "expected a string" },
	{ GOOD_HEAD "\"seed\": -1, " GOOD_VARIANTS "}", "seed", "out of range" },
	/* json-c clamps 2^64 to 2^64-1: refused, not run with another seed */
	{ GOOD_HEAD "\"seed\": 18446744073709551616, " GOOD_VARIANTS "}", "seed",
	  "18446744073709551615 or more is out of range 0..9223372036854775807" },
	{ GOOD_HEAD "\"seed\": 9223372036854775808, " GOOD_VARIANTS "}", "seed",
	  "9223372036854775808 is out of range 0..9223372036854775807" },
	{ GOOD_HEAD "\"workload\": {\"seed\": 18446744073709551616}, " GOOD_VARIANTS "}",
	  "workload.seed", "out of range 0..9223372036854775807" },
	{ GOOD_HEAD "\"seed\": \"1\", " GOOD_VARIANTS "}", "seed",
	  "expected an integer" },
	{ GOOD_HEAD "\"metric\": \"p99\", " GOOD_VARIANTS "}", "metric",
	  "\"p99\" is not one of iops, bw, lat_mean" },
	{ GOOD_HEAD "\"metric\": \"lat_p50\", \"workload\": {\"lat\": \"off\"}, "
	  GOOD_VARIANTS "}", "metric", "needs latency recording" },
	{ GOOD_HEAD "\"metric\": \"lat_mean\", " V_B("{\"lat\": \"off\"}"),
	  "metric", "variant B has lat \"off\"" },
	{ GOOD_HEAD "\"min_effect\": 100, " GOOD_VARIANTS "}", "min_effect",
	  "100 is out of range 0 <= x < 100" },
	{ GOOD_HEAD "\"min_effect\": -0.5, " GOOD_VARIANTS "}", "min_effect",
	  "out of range" },
	{ GOOD_HEAD "\"min_effect\": \"1\", " GOOD_VARIANTS "}", "min_effect",
	  "expected a number" },
	{ GOOD_HEAD "\"confidence\": 0.4, " GOOD_VARIANTS "}", "confidence",
	  "0.4 is out of range 0.5..0.999" },
	{ GOOD_HEAD "\"confidence\": 1, " GOOD_VARIANTS "}", "confidence",
	  "out of range" },
	{ GOOD_HEAD "\"confidence\": 95, " GOOD_VARIANTS "}", "confidence",
	  "a fraction" },
	{ GOOD_HEAD "\"multiple\": \"bonferroni\", " GOOD_VARIANTS "}", "multiple",
	  "\"bonferroni\" is not one of holm, bh" },
	{ GOOD_HEAD "\"multiple\": 1, " GOOD_VARIANTS "}", "multiple",
	  "expected a string (holm: family-wise error" },
	/* A/A jobs */
	{ GOOD_HEAD "\"aa\": 1, " GOOD_VARIANTS "}", "aa", "expected true or false" },
	{ GOOD_HEAD "\"aa\": true, " GOOD_VARIANTS "}", "variants",
	  "takes one variant, run twice; got 2" },
	/* the copy of a 31-character name would be cut to 29 + "2": with a
	 * name of 29 characters + "2" it would be named like the original */
	{ GOOD_HEAD "\"aa\": true, \"variants\": {\"abcdefghijklmnopqrstuvwxyz01232\": {}}}",
	  "variants.abcdefghijklmnopqrstuvwxyz01232",
	  "at most 30 characters (its copy is named NAME2)" },
	/* the quiescence gate */
	{ GOOD_HEAD "\"quiescence\": 1, " GOOD_VARIANTS "}", "quiescence",
	  "expected an object" },
	{ GOOD_HEAD "\"quiescence\": {\"mode\": \"sleep\"}, " GOOD_VARIANTS "}",
	  "quiescence.mode", "is not one of wait, mark, off" },
	{ GOOD_HEAD "\"quiescence\": {\"max_busy\": 0}, " GOOD_VARIANTS "}",
	  "quiescence.max_busy", "out of range 0 < x <= 100" },
	{ GOOD_HEAD "\"quiescence\": {\"max_wait\": \"soon\"}, " GOOD_VARIANTS "}",
	  "quiescence.max_wait", "is not a duration" },
	{ GOOD_HEAD "\"quiescence\": {\"exclude_disturbed\": 1}, " GOOD_VARIANTS "}",
	  "quiescence.exclude_disturbed", "expected true or false" },
	{ GOOD_HEAD "\"quiescence\": {\"wait\": true}, " GOOD_VARIANTS "}",
	  "quiescence.wait", "unknown field" },
	/* unknown top-level field */
	{ GOOD_HEAD "\"repeats\": 6, " GOOD_VARIANTS "}", "repeats",
	  "unknown field" },
	/* not an object, not JSON */
	{ "[1, 2]", "", "must be a JSON object" },
	{ "5", "", "must be a JSON object" },
	{ "{\"name\": }", "", "invalid JSON at offset" },
	{ "{\"name\": \"t\"", "", "invalid JSON at offset" },
	{ "", "", "invalid JSON" },
	{ GOOD_HEAD GOOD_VARIANTS "} x", "", "invalid JSON at offset" }, /* strict tokener */
	{ GOOD_HEAD GOOD_VARIANTS "}{}", "", "invalid JSON at offset" },
	{ GOOD_HEAD "\"repeat\": 6, " GOOD_VARIANTS ",}", "", "invalid JSON" }, /* trailing comma */
};

static void test_error_paths(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_errors errs;

	(void)state;
	for (size_t k = 0; k < sizeof(bad_cases) / sizeof(bad_cases[0]); k++) {
		const struct bad_case *c = &bad_cases[k];
		char want[BB_JOB_ERRLEN];
		int ret = parse(job, c->doc, &errs), i;

		if (ret != -EINVAL)
			fail_msg("case %zu (%s): parse returned %d, want -EINVAL",
				 k, c->field, ret);
		assert_true(errs.n >= 1);
		i = find_error(&errs, c->field);
		if (i < 0) {
			dump_errors(&errs);
			fail_msg("case %zu: no error on field '%s'", k, c->field);
		}
		if (!strstr(errs.msg[i], c->msg)) {
			dump_errors(&errs);
			fail_msg("case %zu: '%s' lacks '%s'", k, errs.msg[i], c->msg);
		}
		/* "field: message" */
		if (*c->field) {
			snprintf(want, sizeof(want), "%s: ", c->field);
			if (strncmp(errs.msg[i], want, strlen(want)))
				fail_msg("case %zu: '%s' does not start with '%s'",
					 k, errs.msg[i], want);
		}
		/* nothing kept after a failure */
		assert_null(job->spec);
		assert_int_equal(job->nvariants, 0);
	}
	free(job);
}

/* Exact wording of the messages the documentation shows. */
static void test_error_wording(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_errors errs;

	(void)state;
	assert_int_equal(parse(job, GOOD_HEAD V_B("{\"bio_cache\": \"fast\"}"), &errs),
			 -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.msg[0],
		"variants.B.bio_cache: \"fast\" is not one of off, task, irq, irq_fast, all, all_split");
	assert_string_equal(errs.field[0], "variants.B.bio_cache");

	assert_int_equal(parse(job, GOOD_HEAD "\"repeat\": 0, " GOOD_VARIANTS "}", &errs),
			 -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.msg[0], "repeat: 0 is out of range 2..1000");

	/* a typo gets the nearest field: top level, workload, variant,
	 * quiescence; a run option at the top level is sent to the
	 * workload; a name far from every field gets no guess */
	assert_int_equal(parse(job, GOOD_HEAD "\"repaet\": 6, \"iodepth\": 4, "
			       "\"quiescence\": {\"mxa_busy\": 5}, "
			       "\"workload\": {\"iodpeth\": 4, \"zzzzzz\": 1}, "
			       "\"variants\": {\"A\": {}, \"B\": {\"bio-cache\": \"off\"}}}",
			       &errs),
			 -EINVAL);
	assert_int_equal(errs.n, 6);
	assert_non_null(strstr(errs.msg[find_error(&errs, "repaet")],
			       "repaet: unknown field: did you mean \"repeat\"?"));
	assert_non_null(strstr(errs.msg[find_error(&errs, "iodepth")],
			       "run options go in \"workload\" or a variant"));
	assert_non_null(strstr(errs.msg[find_error(&errs, "quiescence.mxa_busy")],
			       "did you mean \"max_busy\"?"));
	assert_non_null(strstr(errs.msg[find_error(&errs, "workload.iodpeth")],
			       "workload.iodpeth: unknown field: did you mean \"iodepth\"?"));
	assert_non_null(strstr(errs.msg[find_error(&errs, "variants.B.bio-cache")],
			       "did you mean \"bio_cache\"?"));
	assert_null(strstr(errs.msg[find_error(&errs, "workload.zzzzzz")],
			   "did you mean"));

	assert_int_equal(parse(job, GOOD_HEAD "\"variants\": {\"A\": {}}}", &errs),
			 -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_non_null(strstr(errs.msg[0],
			       "variants: needs at least 2 variants (A and B)"));
	/* the calibrate examples have one variant: say what makes them a
	 * job the daemon takes */
	assert_non_null(strstr(errs.msg[0], "needs \"aa\": true"));

	/* a workload error shared by all variants is reported once */
	assert_int_equal(parse(job,
			       GOOD_HEAD "\"workload\": {\"runtime\": 0, \"number_ios\": 0},"
			       " \"variants\": {\"A\": {}, \"B\": {}, \"C\": {}}}",
			       &errs),
			 -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.field[0], "workload");
	/* ... unless a variant fixes it */
	assert_int_equal(parse(job,
			       GOOD_HEAD "\"workload\": {\"runtime\": 0, \"number_ios\": 0},"
			       " \"variants\": {\"A\": {}, \"B\": {\"number_ios\": 100}}}",
			       &errs),
			 -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.field[0], "workload");
	assert_int_equal(parse(job,
			       GOOD_HEAD "\"workload\": {\"runtime\": 0, \"number_ios\": 0},"
			       " \"variants\": {\"A\": {\"runtime\": \"1s\"}, \"B\": {\"number_ios\": 100}}}",
			       &errs),
			 0);
	bb_job_free(job);
	free(job);
}

static void test_multiple_errors(void **state)
{
	static const char *const want[] = {
		"name", "repeat", "order", "confidence", "workload.bogus",
		"variants.B.bio_cache", "variants.B.sysfs.NoMerges",
		"variants.C.iodepth", "variants.C.bs", "extra",
	};
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	char doc[8192];
	size_t n;
	int ret;

	(void)state;
	ret = parse(job,
		    "{\"target\": \"nop\", \"repeat\": 0, \"order\": \"zigzag\","
		    " \"confidence\": 1.5, \"extra\": 1,"
		    " \"workload\": {\"bs\": \"4k\", \"bogus\": 1},"
		    " \"variants\": {\"A\": {},"
		    "   \"B\": {\"bio_cache\": \"fast\", \"sysfs.NoMerges\": 1},"
		    "   \"C\": {\"iodepth\": 0, \"bs\": \"x\"}}}",
		    &errs);
	assert_int_equal(ret, -EINVAL);
	if (errs.n != sizeof(want) / sizeof(want[0]))
		dump_errors(&errs);
	assert_int_equal(errs.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (find_error(&errs, want[i]) < 0)
			fail_msg("no error on %s", want[i]);

	/* more errors than stored: all counted */
	n = (size_t)snprintf(doc, sizeof(doc), GOOD_HEAD);
	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(doc + n, sizeof(doc) - n, "\"x%d\": %d, ", i, i);
	snprintf(doc + n, sizeof(doc) - n, GOOD_VARIANTS "}");
	assert_int_equal(parse(job, doc, &errs), -EINVAL);
	assert_int_equal(errs.n, 40);
	assert_string_equal(errs.field[BB_JOB_MAX_ERRORS - 1], "x31");
	free(job);
}

static void test_parse_text(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	char deep[512];
	size_t n;

	(void)state;
	/* surrounding white space is fine */
	assert_int_equal(parse(job, " \n" GOOD_HEAD GOOD_VARIANTS "}\n\t ", &errs), 0);
	bb_job_free(job);
	/* the offset of a syntax error */
	assert_int_equal(parse(job, "{\"name\": }", &errs), -EINVAL);
	assert_int_equal(errs.n, 1);
	assert_string_equal(errs.field[0], "");
	assert_non_null(strstr(errs.msg[0], "offset 9"));
	/* nesting deeper than 32 */
	n = (size_t)snprintf(deep, sizeof(deep), GOOD_HEAD "\"workload\": ");
	for (int i = 0; i < 40; i++)
		deep[n++] = '[';
	for (int i = 0; i < 40; i++)
		deep[n++] = ']';
	snprintf(deep + n, sizeof(deep) - n, ", " GOOD_VARIANTS "}");
	assert_int_equal(parse(job, deep, &errs), -EINVAL);
	assert_string_equal(errs.field[0], "");
	assert_non_null(strstr(errs.msg[0], "invalid JSON"));
	/* an embedded NUL within len is not the end */
	assert_int_equal(bb_job_parse_string(job, GOOD_HEAD GOOD_VARIANTS "}\0x",
					     strlen(GOOD_HEAD GOOD_VARIANTS "}") + 2,
					     &errs),
			 -EINVAL);
	/* len shorter than the string: only len bytes are read */
	assert_int_equal(bb_job_parse_string(job, GOOD_HEAD GOOD_VARIANTS "}garbage",
					     strlen(GOOD_HEAD GOOD_VARIANTS "}"), &errs),
			 0);
	bb_job_free(job);
	/* errs may be NULL */
	assert_int_equal(bb_job_parse_string(job, "{", 1, NULL), -EINVAL);
	free(job);
}

/* ------------------------------------------------------------------ */
/* normalized document */

static void assert_same_job(const struct bb_job *a, const struct bb_job *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->target, b->target);
	assert_int_equal(a->repeat, b->repeat);
	assert_int_equal(a->warmup, b->warmup);
	assert_int_equal(a->max_repeat, b->max_repeat);
	assert_int_equal(a->order, b->order);
	assert_true(a->seed == b->seed);
	assert_int_equal(a->metric, b->metric);
	assert_true(a->min_effect == b->min_effect);
	assert_true(a->confidence == b->confidence);
	assert_int_equal(a->nvariants, b->nvariants);
	for (unsigned i = 0; i < a->nvariants; i++) {
		struct json_object *ca = bb_config_to_json(&a->v[i].cfg);
		struct json_object *cb = bb_config_to_json(&b->v[i].cfg);

		assert_string_equal(a->v[i].name, b->v[i].name);
		assert_true(json_object_equal(ca, cb));
		json_object_put(ca);
		json_object_put(cb);
		assert_int_equal(a->v[i].nsysfs, b->v[i].nsysfs);
		for (unsigned k = 0; k < a->v[i].nsysfs; k++) {
			assert_string_equal(a->v[i].sysfs[k].name, b->v[i].sysfs[k].name);
			assert_string_equal(a->v[i].sysfs[k].value, b->v[i].sysfs[k].value);
		}
	}
}

static void test_round_trip(void **state)
{
	static const char *const docs[] = {
		GOOD_HEAD GOOD_VARIANTS "}",
		GOOD_HEAD "\"workload\": {\"bs\": \"64k\", \"runtime\": \"250ms\","
		" \"cpus\": \"0-1\", \"max_sectors_kb\": 32}, \"min_effect\": 0.3,"
		" \"order\": \"blocked\", \"metric\": \"cpu_per_io\","
		" \"variants\": {\"x\": {\"sysfs\": {\"nomerges\": 1.5}},"
		" \"y\": {\"sysfs.scheduler\": \"none\", \"completion\": \"thread\"}}}",
	};
	static const char *const fields[] = {
		"name", "target", "workload", "variants", "repeat", "warmup",
		"max_repeat", "order", "seed", "metric", "min_effect",
		"confidence", "multiple", "quiescence", "aa",
	};
	struct bb_job *a = job_new(), *b = job_new();
	struct bb_job_errors errs;

	(void)state;
	for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
		const char *text;
		struct json_object *j;

		assert_int_equal(parse(a, docs[d], &errs), 0);
		/* every top-level field, in this order, nothing else */
		assert_int_equal(json_object_object_length(a->spec),
				 sizeof(fields) / sizeof(fields[0]));
		{
			size_t i = 0;

			json_object_object_foreach(a->spec, key, val) {
				(void)val;
				assert_string_equal(key, fields[i]);
				i++;
			}
		}
		assert_true(json_object_object_get_ex(a->spec, "workload", &j));
		assert_true(json_object_is_type(j, json_type_object));
		assert_true(json_object_object_get_ex(a->spec, "max_repeat", &j));
		assert_int_equal(json_object_get_int(j), (int)a->max_repeat);
		assert_true(json_object_object_get_ex(a->spec, "min_effect", &j));
		assert_true(fabs(json_object_get_double(j) - a->min_effect * 100) < 1e-12);

		text = json_object_to_json_string_ext(a->spec, JSON_C_TO_STRING_PLAIN);
		assert_int_equal(parse(b, text, &errs), 0);
		assert_same_job(a, b);
		assert_true(json_object_equal(a->spec, b->spec));
		bb_job_free(a);
		bb_job_free(b);
	}
	/* the parsed document is not referenced by the job */
	{
		struct json_object *doc = json_tokener_parse(docs[1]);

		assert_int_equal(bb_job_parse(a, doc, &errs), 0);
		json_object_put(doc);
		assert_non_null(json_object_to_json_string(a->spec));
		bb_job_free(a);
	}
	free(a);
	free(b);
}

/* ------------------------------------------------------------------ */
/* t/io_uring lines ("tiou") */

#define TF "/tmp/bb-test-jobspec-tiou"

/* The error on field: its message contains want. */
static void assert_error(const struct bb_job_errors *e, const char *field,
			 const char *want)
{
	int i = find_error(e, field);

	if (i < 0 || !strstr(e->msg[i], want)) {
		dump_errors(e);
		fail_msg("no error on '%s' with '%s'", field, want);
	}
}

/* "host": a host name, kept in the normalized document; left out of it
 * when not given; anything else refused on host. */
/* Parse a job of name, target nop, members (JSON members, "" none) and
 * two empty variants. */
static int parse_with(struct bb_job *job, const char *members,
		      struct bb_job_errors *errs)
{
	char text[1024];

	snprintf(text, sizeof(text), "{\"name\": \"h\", \"target\": \"nop\","
		 "%s%s \"variants\": {\"A\": {}, \"B\": {}}}", members,
		 *members ? "," : "");
	return parse(job, text, errs);
}

static void test_host_field(void **state)
{
	static const char *const bad[][2] = {
		{ "\"fleet_1\"", "only letters, digits" },
		{ "\"\"", "empty" },
		{ "\"a..b\"", "empty label" },
		{ "\"-a\"", "begins with '-'" },
		{ "5", "string" },
	};
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	struct json_object *v;
	char text[512];

	(void)state;
	assert_int_equal(parse_with(job, "\"host\": \"bench-3.lab\"", &errs),
			 0);
	assert_string_equal(job->host, "bench-3.lab");
	assert_true(json_object_object_get_ex(job->spec, "host", &v));
	assert_string_equal(json_object_get_string(v), "bench-3.lab");
	bb_job_free(job);
	assert_int_equal(parse_with(job, "", &errs), 0);
	assert_string_equal(job->host, "");
	assert_false(json_object_object_get_ex(job->spec, "host", NULL));
	bb_job_free(job);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "\"host\": %s", bad[i][0]);
		assert_int_not_equal(parse_with(job, text, &errs), 0);
		assert_error(&errs, "host", bad[i][1]);
	}
	free(job);
}

/* A group job: "host" as an array of names, or "hosts" a selector on
 * host and device metadata; never both; selector keys checked. */
static void test_group_fields(void **state)
{
	static const char *const bad[][3] = {
		{ "\"host\": []", "host", "1..32" },
		{ "\"host\": [\"a\", \"b\", \"a\"]", "host[2]", "given twice" },
		{ "\"host\": [\"a\", \"b_c\"]", "host[1]", "not a host name" },
		{ "\"host\": [\"a\", 3]", "host[1]", "string" },
		{ "\"hosts\": {}", "hosts", "one or more" },
		{ "\"hosts\": \"fleet-*\"", "hosts", "device.model" },
		{ "\"hosts\": {\"kernal\": \"6.*\"}", "hosts.kernal",
		  "unknown selector key (keys: name, hostname, kernel" },
		{ "\"hosts\": {\"device.colour\": \"x\"}", "hosts.device.colour",
		  "device.model" },
		{ "\"hosts\": {\"kernel\": 6}", "hosts.kernel", "string" },
		{ "\"host\": \"a\", \"hosts\": {\"kernel\": \"6.*\"}", "hosts",
		  "\"host\" and \"hosts\" are both given" },
	};
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	struct json_object *v;

	(void)state;
	assert_int_equal(parse_with(job, "\"host\": [\"fleet-1\", \"fleet-2\"]",
				    &errs), 0);
	assert_true(job->group);
	assert_int_equal(job->nhosts, 2);
	assert_string_equal(job->hosts[1], "fleet-2");
	assert_string_equal(job->host, "");
	assert_true(json_object_object_get_ex(job->spec, "host", &v));
	assert_int_equal(json_object_array_length(v), 2);
	bb_job_free(job);
	assert_int_equal(parse_with(job, "\"hosts\": {\"device.model\":"
				    " \"QEMU NVMe*\", \"kernel\": \"6.18*\"}",
				    &errs), 0);
	assert_true(job->group);
	assert_true(json_object_object_get_ex(job->spec, "hosts", &v));
	assert_string_equal(json_object_get_string(
		json_object_object_get(v, "kernel")), "6.18*");
	bb_job_free(job);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(parse_with(job, bad[i][0], &errs), 0);
		assert_error(&errs, bad[i][1], bad[i][2]);
	}
	free(job);
}

static void test_tiou_job(void **state)
{
	struct bb_job *job = job_new(), *again = job_new();
	struct bb_job_errors errs;
	struct json_object *t, *o, *v;
	const struct bb_config *a, *b, *c;
	int ret;

	(void)state;
	ret = parse(job, "{\"name\": \"t\", \"tiou\": \"t/io_uring -p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 " TF " --bio-cache off\","
			 " \"workload\": {\"runtime\": \"1s\"},"
			 " \"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-s32 -c32 -X0\"},"
			 " \"C\": {\"tiou\": \"-d16\", \"model\": \"bio\"}}}", &errs);
	if (ret)
		dump_errors(&errs);
	assert_int_equal(ret, 0);
	/* the target is the line's FILE */
	assert_string_equal(job->target, TF);
	/* the long option kept for biobenchd, which refuses it */
	assert_string_equal(job->tiou_long_opt, "--bio-cache");
	assert_string_equal(job->tiou_long_field, "tiou");
	{
		char msg[512];

		assert_int_equal(bb_job_tiou_long_check(job, msg, sizeof(msg)),
				 -EINVAL);
		assert_non_null(strstr(msg, "tiou: --bio-cache: biobenchd takes only"));
	}
	a = &job->v[0].cfg;
	b = &job->v[1].cfg;
	c = &job->v[2].cfg;
	assert_string_equal(a->target, TF);
	assert_int_equal(a->mode, BB_MODE_IRQ);
	assert_int_equal(a->iodepth, 128);
	assert_int_equal(a->submit_batch, 1);
	assert_int_equal(a->complete_batch, 1);
	assert_int_equal(a->model, BB_MODEL_NONE);
	assert_int_equal(a->bio_cache, BB_CACHE_OFF); /* the line's option */
	assert_int_equal(a->runtime_ns, 1000000000ull); /* the workload's */
	assert_true(a->register_ring);
	/* B: the line layered on the job's, the workload again on top */
	assert_int_equal(b->submit_batch, 32);
	assert_int_equal(b->complete_batch, 32);
	assert_false(b->register_ring);
	assert_int_equal(b->iodepth, 128);
	assert_int_equal(b->bio_cache, BB_CACHE_OFF);
	assert_int_equal(b->runtime_ns, 1000000000ull);
	assert_string_equal(b->target, TF);
	/* C: its line, then its own field */
	assert_int_equal(c->iodepth, 16);
	assert_int_equal(c->submit_batch, 1);
	assert_int_equal(c->model, BB_MODEL_BIO);
	/* the normalized document: the options each line became */
	assert_true(json_object_object_get_ex(job->spec, "target", &t));
	assert_string_equal(json_object_get_string(t), TF);
	assert_true(json_object_object_get_ex(job->spec, "tiou", &t));
	assert_true(json_object_is_type(t, json_type_object));
	assert_string_equal(json_object_get_string(json_object_object_get(t, "line")),
			    "t/io_uring -p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 " TF " --bio-cache off");
	o = json_object_object_get(t, "options");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "mode")), "irq");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "submit_batch")), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "bio_cache")), "off");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "model")), "none");
	v = json_object_object_get(json_object_object_get(json_object_object_get(job->spec,
				   "variants"), "B"), "tiou");
	assert_string_equal(json_object_get_string(json_object_object_get(v, "line")), "-s32 -c32 -X0");
	o = json_object_object_get(v, "options");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "submit_batch")), 32);
	assert_false(json_object_get_boolean(json_object_object_get(o, "register_ring")));
	/* and it parses to the same job */
	ret = parse(again, json_object_to_json_string(job->spec), &errs);
	if (ret)
		dump_errors(&errs);
	assert_int_equal(ret, 0);
	assert_same_job(job, again);
	assert_true(json_object_equal(job->spec, again->spec));
	bb_job_free(job);
	bb_job_free(again);

	/* target and line agree; -N1 names no target but its FILE counts */
	assert_int_equal(parse(job, "{\"name\": \"t\", \"target\": \"" TF "\", \"tiou\": \"-p0 -r1 " TF "\", "
				    GOOD_VARIANTS "}", &errs), 0);
	bb_job_free(job);
	assert_int_equal(parse(job, "{\"name\": \"t\", \"target\": \"" TF "\", \"tiou\": \"-N1 -r1 " TF "\", "
				    GOOD_VARIANTS "}", &errs), 0);
	assert_string_equal(job->target, "nop");
	assert_int_equal(job->v[0].cfg.nop_kind, BB_NOP_PLAIN);
	bb_job_free(job);
	assert_int_equal(parse(job, "{\"name\": \"t\", \"tiou\": \"-N1 -r1 " TF " --flavor current\", "
				    GOOD_VARIANTS "}", &errs), 0);
	assert_int_equal(job->v[0].cfg.nop_kind, BB_NOP_FILE);
	/* --flavor is t/io_uring's: no long option for biobenchd */
	assert_string_equal(job->tiou_long_opt, "");
	assert_int_equal(bb_job_tiou_long_check(job, NULL, 0), 0);
	bb_job_free(job);
	/* a variant's line, the option without its "=value" */
	assert_int_equal(parse(job, "{\"name\": \"t\", \"tiou\": \"-p0 -r1 " TF "\", "
				    "\"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-s1 --cpus=1\"}}}", &errs), 0);
	assert_string_equal(job->tiou_long_opt, "--cpus");
	assert_string_equal(job->tiou_long_field, "variants.B.tiou");
	bb_job_free(job);
	/* several FILEs: several targets, the normalized target an array */
	ret = parse(job, "{\"name\": \"t\", \"tiou\": \"-p0 -r1 -n2 " TF " /tmp/other\", "
			 GOOD_VARIANTS "}", &errs);
	if (ret)
		dump_errors(&errs);
	assert_int_equal(ret, 0);
	assert_int_equal(job->ntargets, 2);
	assert_string_equal(job->target, TF);
	assert_string_equal(bb_job_next_target(job, job->target), "/tmp/other");
	assert_null(bb_job_next_target(job, bb_job_next_target(job, job->target)));
	assert_int_equal(job->v[1].cfg.ntargets, 2);
	assert_true(json_object_object_get_ex(job->spec, "target", &t));
	assert_true(json_object_is_type(t, json_type_array));
	assert_int_equal(json_object_array_length(t), 2);
	assert_int_equal(parse(again, json_object_to_json_string(job->spec), &errs), 0);
	assert_same_job(job, again);
	assert_int_equal(again->ntargets, 2);
	bb_job_free(job);
	bb_job_free(again);
	/* "target" as an array, without a line */
	assert_int_equal(parse(job, "{\"name\": \"t\", \"target\": [\"/a\", \"/b\", \"/c\"], "
				    "\"workload\": {\"threads\": 3}, " GOOD_VARIANTS "}", &errs), 0);
	assert_int_equal(job->ntargets, 3);
	assert_int_equal(job->v[0].cfg.ntargets, 3);
	assert_string_equal(bb_job_next_target(job, job->target), "/b");
	bb_job_free(job);

	/* a job without a line, a variant with one reading its target */
	ret = parse(job, "{\"name\": \"t\", \"target\": \"" TF "\", \"workload\": {\"runtime\": 1},"
			 " \"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-p0 -d8\"}}}", &errs);
	if (ret)
		dump_errors(&errs);
	assert_int_equal(ret, 0);
	assert_int_equal(job->v[0].cfg.model, BB_MODEL_BIO);
	assert_int_equal(job->v[1].cfg.model, BB_MODEL_NONE);
	assert_int_equal(job->v[1].cfg.iodepth, 8);
	assert_string_equal(job->v[1].cfg.target, TF);
	bb_job_free(job);
	free(job);
	free(again);
}

static void test_tiou_job_bad(void **state)
{
	static const struct {
		const char *doc;
		const char *field, *msg;
	} cases[] = {
		{ "{\"name\": \"t\", " GOOD_VARIANTS "}", "target",
		  "required (nop, a regular file or a block device; or a \"tiou\" line naming its FILE)" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -d0 -r1 " TF "\", " GOOD_VARIANTS "}", "tiou",
		  "tiou: -d: '0' is out of range 1..32768 (queue depth)" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -Z1 " TF "\", " GOOD_VARIANTS "}", "tiou",
		  "-Z: unknown option" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -r1 $F\", " GOOD_VARIANTS "}", "tiou",
		  "tiou: '$' at column 9: a t/io_uring line is not expanded by a shell here" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -r1 -h\", " GOOD_VARIANTS "}", "tiou",
		  "-h: not an option of a job's line" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -r1 " TF " --bogus\", " GOOD_VARIANTS "}", "tiou",
		  "--bogus" },
		{ "{\"name\": \"t\", \"tiou\": 5, " GOOD_VARIANTS "}", "tiou",
		  "expected a t/io_uring command line" },
		{ "{\"name\": \"t\", \"tiou\": {\"lines\": \"x\"}, " GOOD_VARIANTS "}", "tiou.lines",
		  "unknown field" },
		{ "{\"name\": \"t\", \"tiou\": {\"options\": {}}, " GOOD_VARIANTS "}", "tiou.line",
		  "required" },
		{ "{\"name\": \"t\", \"tiou\": {\"line\": \"-p0 -r1 " TF "\", \"options\": {\"bs\": 512}}, "
		  GOOD_VARIANTS "}", "tiou.options", "differs from what the line becomes" },
		{ "{\"name\": \"t\", \"target\": \"" TF "\", \"tiou\": \"-p0 -r1 " TF " /tmp/other\", "
		  GOOD_VARIANTS "}", "target", "is not the tiou line's target " TF " ..." },
		{ "{\"name\": \"t\", \"target\": \"nop\", \"tiou\": \"-p0 -r1 " TF "\", " GOOD_VARIANTS "}",
		  "target", "\"nop\" is not the tiou line's target " TF },
		/* t/io_uring's -r0 runs until interrupted: a job's runs must end */
		{ "{\"name\": \"t\", \"tiou\": \"-p0 " TF "\", " GOOD_VARIANTS "}", "workload",
		  "runtime and number_ios are both 0" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -r1 " TF "\", "
		  "\"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-d0\"}}}", "variants.B.tiou",
		  "-d: '0' is out of range" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -r1 " TF "\", "
		  "\"variants\": {\"A\": {}, \"B\": {\"tiou\": \"/tmp/other\"}}}", "variants.B.tiou",
		  "is not the job's target " TF ": the variants of a job share it" },
		{ "{\"name\": \"t\", \"tiou\": \"-p0 -r1 " TF "\", "
		  "\"variants\": {\"A\": {}, \"B\": {\"tiou\": \"-V1 -B0 --model bio\"}}}", "variants.B.tiou",
		  "--vectored: vectored I/O is issued without the bio model" },
	};
	struct bb_job *job = job_new();
	struct bb_job_errors errs;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ret = parse(job, cases[i].doc, &errs);

		if (ret != -EINVAL)
			fail_msg("case %zu: parse returned %d", i, ret);
		assert_error(&errs, cases[i].field, cases[i].msg);
		assert_null(job->spec);
	}
	/* the line fixed by the workload's runtime */
	assert_int_equal(parse(job, "{\"name\": \"t\", \"tiou\": \"-p0 " TF "\", "
				    "\"workload\": {\"runtime\": \"2s\"}, " GOOD_VARIANTS "}", &errs), 0);
	assert_int_equal(job->v[0].cfg.runtime_ns, 2000000000ull);
	bb_job_free(job);
	free(job);
}

/* ------------------------------------------------------------------ */
/* plan */

static void plan_job(struct bb_job *job, enum bb_job_order order,
		     unsigned nv, unsigned warmup, uint64_t seed)
{
	memset(job, 0, sizeof(*job));
	job->nvariants = nv;
	job->warmup = warmup;
	job->repeat = 3;
	job->max_repeat = 3;
	job->order = order;
	job->seed = seed;
}

static void test_plan_interleaved_blocked(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_step st[64];
	size_t n;

	(void)state;
	plan_job(job, BB_ORDER_INTERLEAVED, 3, 1, 1);
	n = bb_job_plan(job, 0, 4, st);
	assert_int_equal(n, 12);
	for (unsigned k = 0; k < 12; k++) {
		assert_int_equal(st[k].variant, k % 3);
		assert_int_equal(st[k].round, k / 3);
		assert_int_equal(st[k].warmup, k < 3);
	}
	/* a later cut */
	n = bb_job_plan(job, 5, 2, st);
	assert_int_equal(n, 6);
	assert_int_equal(st[0].round, 5);
	assert_int_equal(st[5].round, 6);
	assert_int_equal(st[5].variant, 2);
	assert_false(st[0].warmup);

	plan_job(job, BB_ORDER_BLOCKED, 2, 2, 1);
	n = bb_job_plan(job, 0, 5, st);
	assert_int_equal(n, 10);
	for (unsigned k = 0; k < 10; k++) {
		assert_int_equal(st[k].variant, k / 5);
		assert_int_equal(st[k].round, k % 5);
		/* warm-ups first for each variant */
		assert_int_equal(st[k].warmup, k % 5 < 2);
	}
	free(job);
}

static void test_plan_random(void **state)
{
	enum { NR = 200, NV = 5 };
	struct bb_job *job = job_new();
	struct bb_job_step *all = calloc(NR * NV, sizeof(*all));
	struct bb_job_step *again = calloc(NR * NV, sizeof(*again));
	struct bb_job_step one[NV];
	unsigned first[NV] = { 0 }, differs = 0, nonid = 0;

	(void)state;
	assert_non_null(all);
	assert_non_null(again);
	plan_job(job, BB_ORDER_RANDOM, NV, 2, 7);
	assert_int_equal(bb_job_plan(job, 0, NR, all), NR * NV);
	for (unsigned r = 0; r < NR; r++) {
		unsigned seen = 0;
		bool id = true;

		for (unsigned i = 0; i < NV; i++) {
			const struct bb_job_step *s = &all[r * NV + i];

			assert_true(s->variant < NV);
			assert_int_equal(s->round, r);
			assert_int_equal(s->warmup, r < 2);
			seen |= 1u << s->variant;
			id = id && s->variant == i;
		}
		/* a permutation each round */
		assert_int_equal(seen, (1u << NV) - 1);
		nonid += !id;
		first[all[r * NV].variant]++;
		/* independent of how the plan is cut */
		assert_int_equal(bb_job_plan(job, r, 1, one), NV);
		for (unsigned i = 0; i < NV; i++) {
			assert_int_equal(one[i].variant, all[r * NV + i].variant);
			assert_int_equal(one[i].round, all[r * NV + i].round);
			assert_int_equal(one[i].warmup, all[r * NV + i].warmup);
		}
	}
	/* shuffled: mostly not the identity, every variant leads sometimes
	 * (each leads with probability 1/5: 200 rounds, expected 40) */
	assert_true(nonid > NR / 2);
	for (unsigned v = 0; v < NV; v++)
		assert_true(first[v] >= 15 && first[v] <= 70);
	/* deterministic for a seed, different for another */
	assert_int_equal(bb_job_plan(job, 0, NR, again), NR * NV);
	for (unsigned k = 0; k < NR * NV; k++)
		assert_int_equal(all[k].variant, again[k].variant);
	job->seed = 8;
	bb_job_plan(job, 0, NR, again);
	for (unsigned k = 0; k < NR * NV; k++)
		differs += all[k].variant != again[k].variant;
	assert_true(differs > 0);
	free(all);
	free(again);
	free(job);
}

/* ------------------------------------------------------------------ */
/* metrics */

static void test_metrics(void **state)
{
	struct bb_result *r = calloc(1, sizeof(*r));
	double v;

	(void)state;
	assert_non_null(r);
	bb_hist_init(&r->lat);
	/* empty: every metric 0 */
	for (unsigned m = 0; m < BB_METRIC__COUNT; m++)
		assert_true(bb_metric_value((enum bb_metric)m, r) == 0);

	r->duration_ns = 2000000000ull;
	r->io.ios = 2000;
	r->io.bytes_read = 3000000;
	r->io.bytes_written = 1000000;
	r->cpu_submit.usr_ns = 1000000;
	r->cpu_submit.sys_ns = 500000;
	r->cpu_completion.usr_ns = 300000;
	r->cpu_completion.sys_ns = 200000;
	/* 1000 latencies: 1 us .. 1000 us */
	for (unsigned i = 1; i <= 1000; i++)
		bb_hist_add(&r->lat, i * 1000ull);

	assert_true(fabs(bb_metric_value(BB_METRIC_IOPS, r) - 1000.0) < 1e-9);
	assert_true(fabs(bb_metric_value(BB_METRIC_BW, r) - 2000000.0) < 1e-6);
	/* (1+...+1000) us / 1000 = 500.5 us */
	assert_true(fabs(bb_metric_value(BB_METRIC_LAT_MEAN, r) - 500500.0) < 1e-6);
	/* percentiles within the histogram's bucket error (< 1/64) */
	v = bb_metric_value(BB_METRIC_LAT_P50, r);
	assert_true(fabs(v - 500000.0) / 500000.0 < 1.0 / 64);
	v = bb_metric_value(BB_METRIC_LAT_P99, r);
	assert_true(fabs(v - 990000.0) / 990000.0 < 1.0 / 64);
	v = bb_metric_value(BB_METRIC_LAT_P999, r);
	assert_true(fabs(v - 999000.0) / 999000.0 < 1.0 / 64);
	assert_true(bb_metric_value(BB_METRIC_LAT_P50, r) <
		    bb_metric_value(BB_METRIC_LAT_P99, r));
	/* (1.5 + 0.5) ms of CPU / 2000 I/Os = 1000 ns */
	assert_true(fabs(bb_metric_value(BB_METRIC_CPU_PER_IO, r) - 1000.0) < 1e-9);
	free(r);
}

static void test_metric_names(void **state)
{
	static const struct {
		const char *name;
		bool higher;
	} want[BB_METRIC__COUNT] = {
		[BB_METRIC_IOPS] = { "iops", true },
		[BB_METRIC_BW] = { "bw", true },
		[BB_METRIC_LAT_MEAN] = { "lat_mean", false },
		[BB_METRIC_LAT_P50] = { "lat_p50", false },
		[BB_METRIC_LAT_P99] = { "lat_p99", false },
		[BB_METRIC_LAT_P999] = { "lat_p999", false },
		[BB_METRIC_CPU_PER_IO] = { "cpu_per_io", false },
	};
	enum bb_metric m;

	(void)state;
	for (unsigned i = 0; i < BB_METRIC__COUNT; i++) {
		assert_string_equal(bb_metric_name((enum bb_metric)i), want[i].name);
		assert_int_equal(bb_metric_from_name(want[i].name, &m), 0);
		assert_int_equal(m, i);
		assert_int_equal(bb_metric_higher_is_better((enum bb_metric)i),
				 want[i].higher);
		assert_true(strlen(bb_metric_unit((enum bb_metric)i)) > 0);
	}
	assert_int_equal(bb_metric_from_name("IOPS", &m), -EINVAL);
	assert_int_equal(bb_metric_from_name("", &m), -EINVAL);
	assert_string_equal(bb_job_order_name(BB_ORDER_INTERLEAVED), "interleaved");
	assert_string_equal(bb_job_order_name(BB_ORDER_BLOCKED), "blocked");
	assert_string_equal(bb_job_order_name(BB_ORDER_RANDOM), "random");
}

static void test_ab_params_json(void **state)
{
	static const double a[] = { 100, 102, 99, 101, 100, 103, 98, 100 };
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	struct bb_ab_params p;
	struct bb_ab_result res;
	struct json_object *o, *j;
	double b[8];
	char line[512];
	static const char *const keys[] = {
		"baseline", "variant", "metric", "unit", "higher_is_better",
		"method", "design", "ci_method", "n", "n_for_confidence",
		"too_few", "a", "b", "change", "change_median", "ci_lo",
		"ci_hi", "ci_level", "ci_label", "p_value", "p_adjusted",
		"tost_p", "tost_p_adjusted", "family", "multiple", "sequential",
		"verdict", "more_needed", "more_capped", "min_effect",
		"confidence", "text", "precision",
	};

	(void)state;
	assert_int_equal(parse(job, GOOD_HEAD "\"order\": \"blocked\", \"metric\": \"lat_p99\","
			       " \"min_effect\": 2, \"confidence\": 0.9, \"seed\": 77, "
			       GOOD_VARIANTS "}", &errs), 0);
	bb_job_ab_params(job, &p);
	assert_false(p.paired);
	assert_false(p.higher_is_better);
	assert_true(fabs(p.min_effect - 0.02) < 1e-12);
	assert_true(fabs(p.confidence - 0.9) < 1e-12);
	assert_true(p.seed == 77);
	assert_true(p.resamples >= 100);
	bb_job_free(job);
	assert_int_equal(parse(job, GOOD_HEAD GOOD_VARIANTS "}", &errs), 0);
	bb_job_ab_params(job, &p);
	assert_true(p.paired);
	assert_true(p.higher_is_better);

	/* B 10% lower IOPS: slower */
	for (unsigned i = 0; i < 8; i++)
		b[i] = a[i] * 0.9;
	assert_int_equal(bb_ab_compare(a, 8, b, 8, &p, &res), 0);
	o = bb_ab_result_to_json(&res, "A", "B", BB_METRIC_IOPS);
	assert_non_null(o);
	assert_int_equal(json_object_object_length(o), sizeof(keys) / sizeof(keys[0]));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!json_object_object_get_ex(o, keys[i], NULL))
			fail_msg("compare JSON lacks %s", keys[i]);
	j = json_object_object_get(o, "verdict");
	assert_string_equal(json_object_get_string(j), bb_ab_verdict_name(res.verdict));
	assert_string_equal(json_object_get_string(j), "slower");
	/* settled: no precision statement */
	assert_null(json_object_object_get(o, "precision"));
	assert_string_equal(json_object_get_string(json_object_object_get(o, "method")),
			    "paired");
	assert_true(fabs(json_object_get_double(json_object_object_get(o, "change")) + 0.1) < 1e-9);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "n")), 8);
	assert_int_equal(json_object_get_int(json_object_object_get(
				 json_object_object_get(o, "a"), "n")), 8);
	bb_ab_format(&res, line, sizeof(line));
	assert_string_equal(json_object_get_string(json_object_object_get(o, "text")), line);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "unit")),
			    bb_metric_unit(BB_METRIC_IOPS));
	/* valid JSON text (no nan) */
	j = json_tokener_parse(json_object_to_json_string(o));
	assert_non_null(j);
	json_object_put(j);
	json_object_put(o);
	bb_job_free(job);
	free(job);
}

/* ------------------------------------------------------------------ */
/* schema */

static struct json_object *gen_option_props(void)
{
	struct json_object *s = bb_options_json_schema(), *copy = NULL;

	assert_int_equal(json_object_deep_copy(json_object_object_get(s, "properties"),
					       &copy, NULL), 0);
	json_object_put(s);
	/* target is top level only */
	assert_true(json_object_object_get_ex(copy, "target", NULL));
	json_object_object_del(copy, "target");
	return copy;
}

static struct json_object *jpath(struct json_object *o, const char *a,
				 const char *b, const char *c)
{
	const char *k[] = { a, b, c };

	for (int i = 0; i < 3 && k[i] && o; i++)
		o = json_object_object_get(o, k[i]);
	assert_non_null(o);
	return o;
}

static void test_schema_matches_options(void **state)
{
	char file[4096];
	struct json_object *s, *gen, *wl, *var = NULL;

	(void)state;
	bb_test_src_path(file, sizeof(file), "schema/job.schema.json");
	s = json_object_from_file(file);
	if (!s)
		fail_msg("cannot read %s: %s", file, json_util_get_last_err());
	gen = gen_option_props();
	wl = jpath(s, "$defs", "workload", "properties");
	if (!json_object_equal(wl, gen))
		fail_msg("schema/job.schema.json $defs.workload.properties differs "
			 "from bb_options_json_schema()'s properties (without "
			 "target): regenerate it");
	assert_false(json_object_get_boolean(jpath(s, "$defs", "workload",
						   "additionalProperties")));
	assert_int_equal(json_object_deep_copy(jpath(s, "$defs", "variant", "properties"),
					       &var, NULL), 0);
	assert_true(json_object_object_get_ex(var, "sysfs", NULL));
	json_object_object_del(var, "sysfs");
	assert_true(json_object_object_get_ex(var, "tiou", NULL));
	json_object_object_del(var, "tiou");
	assert_true(json_object_object_get_ex(var, "boot", NULL));
	json_object_object_del(var, "boot");
	if (!json_object_equal(var, gen))
		fail_msg("schema/job.schema.json $defs.variant.properties (without "
			 "sysfs, tiou and boot) differs from bb_options_json_schema(): regenerate it");
	assert_false(json_object_get_boolean(jpath(s, "$defs", "variant",
						   "additionalProperties")));
	/* the top level: the fields the parser knows, the same limits */
	assert_int_equal(json_object_get_int(jpath(s, "properties", "repeat", "maximum")),
			 BB_JOB_MAX_REPEAT);
	assert_int_equal(json_object_get_int(jpath(s, "properties", "warmup", "maximum")),
			 BB_JOB_MAX_WARMUP);
	assert_int_equal(json_object_get_int(jpath(s, "properties", "variants",
						   "maxProperties")),
			 BB_JOB_MAX_VARIANTS);
	assert_int_equal(json_object_array_length(jpath(s, "properties", "metric", "enum")),
			 BB_METRIC__COUNT);
	for (unsigned m = 0; m < BB_METRIC__COUNT; m++)
		assert_string_equal(json_object_get_string(json_object_array_get_idx(
					    jpath(s, "properties", "metric", "enum"), m)),
				    bb_metric_name((enum bb_metric)m));
	json_object_put(var);
	json_object_put(gen);
	json_object_put(s);
}

/* 0 valid, 1 invalid, 77 no python3-jsonschema. */
static int validate_doc(const char *doc_text, bool quiet)
{
	char schema[4096], script[4096], dpath[64], cmd[9000];
	int fd, rc;

	bb_test_src_path(schema, sizeof(schema), "schema/job.schema.json");
	bb_test_src_path(script, sizeof(script), "tests/unit/check_json_schema.py");
	snprintf(dpath, sizeof(dpath), "/tmp/bb_test_jobspec_XXXXXX");
	fd = mkstemp(dpath);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc_text, strlen(doc_text)),
			 (ssize_t)strlen(doc_text));
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s' '%s' '%s'%s", script,
		 schema, dpath, quiet ? " 2>/dev/null" : "");
	rc = system(cmd);
	unlink(dpath);
	if (rc == -1 || !WIFEXITED(rc))
		return 77;
	rc = WEXITSTATUS(rc);
	return rc == 127 ? 77 : rc;
}

static const struct {
	const char *file;
	bool good;
	const char *fields[8]; /* bad: fields that must have an error */
} examples[] = {
	{ "good_ab.json", true, { NULL } },
	{ "good_minimal.json", true, { NULL } },
	{ "good_random_lat.json", true, { NULL } },
	/* the shipped examples and study jobs (paths from tests/data/jobs) */
	{ "../../../examples/nop-bio-cache.json", true, { NULL } },
	{ "../../../examples/study-cache-off-vs-all-qd32.json", true, { NULL } },
	{ "../../../examples/study-cache-off-vs-all-qd128.json", true, { NULL } },
	{ "../../../examples/study-cache-irq-variants-qd32.json", true, { NULL } },
	{ "../../../examples/study-cache-irq-variants-qd128.json", true, { NULL } },
	{ "../../../examples/study-split-check-layout.json", true, { NULL } },
	{ "bad_fields.json", false,
	  { "name", "workload.bogus", "variants.B.bio_cache",
	    "variants.B.sysfs.NoMerges", "repeat", "order", "confidence", NULL } },
	{ "bad_one_variant.json", false,
	  { "workload.target", "variants", NULL } },
};

/* The example documents: the parser's answer, and the schema's. */
static void test_examples(void **state)
{
	struct bb_job *job = job_new();
	struct bb_job_errors errs;
	bool have_validator = true;

	(void)state;
	for (size_t k = 0; k < sizeof(examples) / sizeof(examples[0]); k++) {
		char path[4096], rel[256];
		size_t len;
		char *text;
		int ret, rc;

		snprintf(rel, sizeof(rel), "tests/data/jobs/%s", examples[k].file);
		bb_test_src_path(path, sizeof(path), rel);
		text = read_text(path, &len);
		ret = bb_job_parse_string(job, text, len, &errs);
		if (examples[k].good) {
			if (ret)
				dump_errors(&errs);
			assert_int_equal(ret, 0);
		} else {
			assert_int_equal(ret, -EINVAL);
			for (int i = 0; examples[k].fields[i]; i++)
				if (find_error(&errs, examples[k].fields[i]) < 0) {
					dump_errors(&errs);
					fail_msg("%s: no error on %s", examples[k].file,
						 examples[k].fields[i]);
				}
		}
		if (have_validator) {
			rc = validate_doc(text, !examples[k].good);
			if (rc == 77) {
				have_validator = false;
			} else {
				if (rc != (examples[k].good ? 0 : 1))
					fail_msg("%s: schema says %d", examples[k].file, rc);
				/* the normalized document too */
				if (examples[k].good)
					assert_int_equal(validate_doc(
						json_object_to_json_string(job->spec),
						false), 0);
			}
		}
		bb_job_free(job);
		free(text);
	}
	free(job);
	if (!have_validator)
		skip(); /* the parser part passed; no python3-jsonschema */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_all_fields),
		cmocka_unit_test(test_error_paths),
		cmocka_unit_test(test_error_wording),
		cmocka_unit_test(test_multiple_errors),
		cmocka_unit_test(test_parse_text),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_tiou_job),
		cmocka_unit_test(test_tiou_job_bad),
		cmocka_unit_test(test_host_field),
		cmocka_unit_test(test_group_fields),
		cmocka_unit_test(test_plan_interleaved_blocked),
		cmocka_unit_test(test_plan_random),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_metric_names),
		cmocka_unit_test(test_ab_params_json),
		cmocka_unit_test(test_schema_matches_options),
		cmocka_unit_test(test_examples),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
