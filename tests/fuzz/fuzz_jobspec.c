// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_jobspec.c - libFuzzer target: the job-spec parser (bb_job_parse_string,
 * shared by the daemon's POST /api/v1/jobs and the CLI's `ab JOBFILE`).
 *
 * Oracles beyond the sanitizers:
 *  - an accepted job's normalized spec (job->spec) must be accepted again
 *    and normalize to the same text (jobspec.h promises it);
 *  - a refused job reports at least one error, each with a non-empty,
 *    NUL-terminated message;
 *  - the plan of an accepted job has nrounds * nvariants steps. */
#include <biobench/jobspec.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct bb_job_errors errs;

static void check_errors(const struct bb_job_errors *e)
{
	unsigned n = e->n < BB_JOB_MAX_ERRORS ? e->n : BB_JOB_MAX_ERRORS;

	if (!e->n)
		__builtin_trap(); /* refused without saying why */
	for (unsigned i = 0; i < n; i++) {
		if (!memchr(e->msg[i], '\0', sizeof(e->msg[i])) ||
		    !e->msg[i][0])
			__builtin_trap();
		if (!memchr(e->field[i], '\0', sizeof(e->field[i])))
			__builtin_trap();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_job *again = calloc(1, sizeof(*again));
	struct bb_job_step *steps;
	const char *norm, *norm2;
	char *copy;
	int ret;

	if (!job || !again)
		abort();
	memset(&errs, 0, sizeof(errs));
	ret = bb_job_parse_string(job, (const char *)data, size, &errs);
	if (ret) {
		if (ret != -EINVAL)
			__builtin_trap();
		check_errors(&errs);
		goto out;
	}
	/* round trip of the normalized document */
	norm = json_object_to_json_string_ext(job->spec,
					      JSON_C_TO_STRING_PLAIN);
	copy = strdup(norm);
	if (!copy)
		abort();
	memset(&errs, 0, sizeof(errs));
	ret = bb_job_parse_string(again, copy, strlen(copy), &errs);
	if (ret) {
		fprintf(stderr, "normalized spec refused: %s\n  spec: %s\n",
			errs.n ? errs.msg[0] : "?", copy);
		__builtin_trap();
	}
	norm2 = json_object_to_json_string_ext(again->spec,
					       JSON_C_TO_STRING_PLAIN);
	if (strcmp(copy, norm2)) {
		fprintf(stderr, "normalization not stable:\n  1: %s\n  2: %s\n",
			copy, norm2);
		__builtin_trap();
	}
	free(copy);
	bb_job_free(again);
	/* the plan of the first rounds */
	steps = calloc((size_t)2 * job->nvariants, sizeof(*steps));
	if (!steps)
		abort();
	if (bb_job_plan(job, 0, 2, steps) != (size_t)2 * job->nvariants)
		__builtin_trap();
	for (size_t i = 0; i < (size_t)2 * job->nvariants; i++)
		if (steps[i].variant >= job->nvariants)
			__builtin_trap();
	free(steps);
	bb_job_free(job);
out:
	free(job);
	free(again);
	return 0;
}
