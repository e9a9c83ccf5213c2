/* SPDX-License-Identifier: GPL-2.0-only */
/* jobcompare.h - compare whole jobs: each variant of one or more OTHER
 * jobs against the same-named variant of a BASE job ("did the kernel I
 * booted for job 4 make A faster than it was in job 3?"), with the same
 * statistics and verdict words as the comparison of variants within a job
 * (abstats.h), and the differences between the jobs spelled out.
 *
 * Input: each job's document and its runs as biobenchd's store gives them
 * (bb_store_job_get, bb_store_job_runs: schema/openapi.yaml Job, Runs).
 *
 * Samples.  A variant's sample in a job is the metric of each of its
 * measured runs (warm-ups and runs that did not finish left out; a run
 * the quiescence gate or the stall check marked disturbed is counted and
 * kept, and left out when that job said "exclude_disturbed").  An A/A job
 * ("aa": true) pools its variant and the copy (A and A2) as one sample.
 * Runs of two jobs are not paired: they are independent samples.
 *
 * Statistics (bb_ab_compare with paired = false), per OTHER x variant:
 *   change: exp(s) - 1, s the two-sample Hodges-Lehmann shift of the log
 *     metric (the median of every difference log(other_j) - log(base_i));
 *     change_median: median(other) / median(base) - 1 beside it;
 *   CI: the exact Mann-Whitney interval of s (normal approximation beyond
 *     30 runs a side), labelled with its real coverage (bb_ab_ci_label);
 *   p: two-sided Wilcoxon-Mann-Whitney rank-sum test;
 *   TOST: both one-sided rank-sum tests within +-min_effect ("no change");
 *   Holm's adjustment over every OTHER x variant comparison; the verdict
 *     rules of abstats.h, the job verdict bb_ab_verdict_worst.
 * confidence and min_effect are the BASE job's.  Beside each side: its
 * run-to-run spread (SD of the log metric of its runs), the noise floor
 * that a difference between the jobs has to stand out of, and the host's
 * A/A noise floor of the job document.
 *
 * Boots.  Each run's boot is its result's "boot_id" (hostinfo.h), else
 * the job host's "boot_id", else unknown.  Runs from different boots
 * carry between-boot variance that pairs within one job do not; the
 * number of boots behind each side is reported, and a statement says
 * what it means for the interval.  The samples keep each run's boot, so
 * that aggregating per boot (boot-interleaved jobs) can be added here.
 *
 * What changed (the "diff" rows): job settings (spec without name,
 * target, workload, variants), the per-run context (boot id, kernel,
 * biobench version, over the runs used), host (bb_host_info), target and
 * device (bb_target_device_info: model, serial, firmware, limits,
 * scheduler...), the queue settings read at the start of each run, and
 * each compared variant's effective configuration (its first used run's
 * result "config").  Values are text; a row "differs" when its values are
 * not all equal.  Per-variant rows (queue, config) become one row when
 * every job has one value for all its compared variants, else one row
 * per variant (null: the job has no such variant; "(not set)": the
 * variant has no such key).
 *
 * Workload.  The fields that define the I/O (BB_JOBCMP_WORKLOAD_FIELDS:
 * target rw rwmixread bs iodepth threads size offset direct engine mode
 * runtime ramp_time number_ios verify) must be equal for each compared
 * variant, or the comparison is refused (code "different_workload",
 * naming the fields) unless allow_different_workload; the model knobs
 * (bio_cache, inject_ns, completion, cpus...) may differ: they are shown.
 * Jobs with different metrics are always refused ("different_metric"). */
#ifndef BB_JOBCOMPARE_H
#define BB_JOBCOMPARE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define BB_JOBCMP_MAX_WITH 8 /* OTHER jobs in one comparison */

#define BB_JOBCMP_WORKLOAD_FIELDS                                             \
	"target", "rw", "rwmixread", "bs", "iodepth", "threads", "size",      \
		"offset", "direct", "engine", "mode", "runtime", "ramp_time", \
		"number_ios", "verify"

/* One job: its document and its runs (borrowed). */
struct bb_jobcmp_job {
	struct json_object *job;
	struct json_object *runs;
};

struct bb_jobcmp_opts {
	const char *variant;           /* compare this variant only; NULL:
					  every variant of each OTHER that
					  BASE has */
	bool allow_different_workload; /* compare despite workload fields
					  that differ (shown as warnings) */
};

/* Why a comparison was refused. */
struct bb_jobcmp_error {
	char code[32];   /* "invalid_argument", "different_workload",
			    "different_metric", "no_comparison" */
	char field[128]; /* "variant", "workload.bs", "metric", "with" */
	char msg[1024];  /* one line naming the jobs, fields and values */
	struct json_object *fields; /* different_workload: the field names
				       (an array the caller puts), else NULL */
};

/* Compare base with with[0..nwith-1] (1..BB_JOBCMP_MAX_WITH).  *out: the
 * comparison document (schema/openapi.yaml JobsCompare):
 *   {"base","with":[ids],"variant"|null,"metric","unit",
 *    "higher_is_better","confidence","min_effect","multiple","family",
 *    "statistics":{"samples","change","change_median","ci","p_value",
 *      "tost","multiple"} (the methods in words),
 *    "verdict"|null,
 *    "jobs":[{"id","role":"base"|"with","name","state","final","target",
 *      "finished","aa","exclude_disturbed","noise_floor"|null,"boots",
 *      "boot_ids":[..],"runs_without_boot","variants":{NAME:{"n",
 *      "values":[..],"seqs":[..],"median"|null,"log_sd"|null,
 *      "spread"|null,"boots","warmups","failed","disturbed",
 *      "excluded"}}}],
 *    "comparisons":[bb_ab_result_to_json + {"base_job","job","variant",
 *      "base_spread","spread","boots":{"base","other","shared"},
 *      "text" (bb_ab_format_names: "job 4 A is ... than job 3 A ...")}
 *      | {"base_job","job","variant","baseline","metric","error"}],
 *    "unmatched":[{"job","variant"}],
 *    "boots":{"single_boot","unknown","statement"},
 *    "workload":{"fields":[..],"allowed","differs":[{"field","variant",
 *      "values"}]},
 *    "diff":[{"section","key","variant"|null,"values":[text|null per job,
 *      base first],"differs","workload"}],
 *    "warnings":[..]}
 * Returns 0; -EINVAL with e filled (a bad argument, different workload
 * or metric); -ENODATA with e filled ("no_comparison": a job has no
 * measured run of any variant to compare); -ENOMEM. */
int bb_jobcmp(const struct bb_jobcmp_job *base,
	      const struct bb_jobcmp_job *with, size_t nwith,
	      const struct bb_jobcmp_opts *opts, struct json_object **out,
	      struct bb_jobcmp_error *e);

/* Whether name (a run option's JSON name) is one of the workload fields. */
bool bb_jobcmp_workload_field(const char *name);

#endif
