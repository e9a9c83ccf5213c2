/* SPDX-License-Identifier: GPL-2.0-only */
/* jobcompare.h - compare whole jobs: each variant of one or more OTHER
 * sides against the same-named variant of a BASE side ("did the kernel I
 * booted for jobs 4, 6, 8 make A faster than it was in jobs 3, 5, 7?"),
 * with the verdict words of the comparison of variants within a job
 * (abstats.h), and the differences between the jobs spelled out.  A side
 * is one job or several that replicate it (the same workload run again,
 * on the same kernel or after another boot into it).
 *
 * Input: each job's document and its runs as biobenchd's store gives them
 * (bb_store_job_get, bb_store_job_runs: schema/openapi.yaml Job, Runs).
 *
 * Samples.  A variant's runs in a job are the metric of each of its
 * measured runs (warm-ups and runs that did not finish left out; a run
 * the quiescence gate or the stall check marked disturbed is counted and
 * kept, and left out when that job said "exclude_disturbed").  An A/A job
 * ("aa": true) pools its variant and the copy (A and A2).  Each run's
 * boot is its result's "boot_id" (hostinfo.h), else the job host's
 * "boot_id", else unknown.
 *
 * The unit.  Runs of two jobs are not two samples of one distribution:
 * between jobs there is drift (other load, thermal and cache state), and
 * between boots the kernel image, memory layout and device state differ;
 * pairs inside one job cancel both, runs of two jobs do not.  So by
 * default the comparison rests on units (bb_ab_compare_units): the boot,
 * where every run of both sides has a boot id and the sides share none
 * (each side's boots are its replicates: several jobs in one boot are
 * one unit), else the job.  Each unit's level is the Hodges-Lehmann
 * location of its runs' logs; the change, CI, p-value and TOST are the
 * pooled two-sample t on the levels (units_base + units_other - 2
 * degrees of freedom): the between-unit spread is what the interval
 * rests on.  One unit a side: no verdict ("inconclusive: one job per
 * side; ..."), with the jobs each side still needed.  With
 * opts.level = BB_JOBCMP_LEVEL_RUN (asked for) the old run-level
 * comparison instead: every run (a job's runs over several boots: one
 * median per boot) an independent sample, two-sample Hodges-Lehmann and
 * Wilcoxon-Mann-Whitney (bb_ab_compare, paired = false), and every
 * comparison and the warnings say what that assumes.
 * Holm's adjustment over every OTHER side x variant comparison; the
 * verdict rules of abstats.h, the job verdict bb_ab_verdict_worst.
 * confidence and min_effect are the first base job's.  Beside each side:
 * the run-to-run spread of its pooled runs, its boots, and the host's
 * A/A noise floor of the job document.  A warning says when one side's
 * jobs all ran before the other's (drift between the periods is then a
 * difference of the sides).
 *
 * What changed (the "diff" rows): job settings (spec without name,
 * target, workload, variants), the per-run context (boot id, kernel,
 * biobench version, over the runs used), host (bb_host_info), target and
 * device (bb_target_device_info: model, serial, firmware, limits,
 * scheduler...), the queue settings read at the start of each run, and
 * each compared variant's effective configuration (its first used run's
 * result "config").  Values are text, one per job in side order (base
 * first); a row "differs" when its values are not all equal.
 * Per-variant rows (queue, config) become one row when every job has one
 * value for all its compared variants, else one row per variant (null:
 * the job has no such variant; "(not set)": the variant has no such key).
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

#define BB_JOBCMP_MAX_WITH 8  /* OTHER sides in one comparison */
#define BB_JOBCMP_MAX_JOBS 32 /* jobs of all sides in one comparison */

#define BB_JOBCMP_WORKLOAD_FIELDS                                             \
	"target", "rw", "rwmixread", "bs", "iodepth", "threads", "size",      \
		"offset", "direct", "engine", "mode", "runtime", "ramp_time", \
		"number_ios", "verify"

/* One job: its document and its runs (borrowed). */
struct bb_jobcmp_job {
	struct json_object *job;
	struct json_object *runs;
};

/* One side of a comparison: the jobs that replicate it (1 or more). */
struct bb_jobcmp_side {
	const struct bb_jobcmp_job *jobs;
	size_t n;
};

/* What a comparison rests on. */
enum bb_jobcmp_level {
	BB_JOBCMP_LEVEL_UNIT = 0, /* the job (or boot) as the unit: the
				     default */
	BB_JOBCMP_LEVEL_RUN,      /* every run as an independent sample (asked
				     for; says what that assumes) */
};

struct bb_jobcmp_opts {
	const char *variant;           /* compare this variant only; NULL:
					  every variant of each OTHER that
					  BASE has */
	bool allow_different_workload; /* compare despite workload fields
					  that differ (shown as warnings) */
	enum bb_jobcmp_level level;
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

/* Compare the base side with the sides with[0..nwith-1]
 * (1..BB_JOBCMP_MAX_WITH sides, BB_JOBCMP_MAX_JOBS jobs in all, no job
 * twice).  *out: the comparison document (schema/openapi.yaml
 * JobsCompare):
 *   {"base" (the first base job),"base_jobs":[ids],"with":[ids of every
 *    other side's jobs],"sides":[[ids] per side, base first],
 *    "level":"unit"|"run","variant"|null,"metric","unit",
 *    "higher_is_better","confidence","min_effect","multiple","family",
 *    "statistics":{"unit","samples","change","change_median","ci",
 *      "p_value","tost","multiple"} (the methods in words),
 *    "verdict"|null,
 *    "jobs":[{"id","role":"base"|"with","side","name","state","final",
 *      "target","finished","aa","exclude_disturbed","noise_floor"|null,
 *      "boots","boot_ids":[..],"runs_without_boot","variants":{NAME:{"n",
 *      "unit":"run","runs","values":[..],"seqs":[..],"median"|null,
 *      "log_sd"|null,"spread"|null,"boots","warmups","failed",
 *      "disturbed","excluded","discarded"}}}],
 *    "comparisons":[bb_ab_result_to_json + {"base_job","job" (the
 *      sides' first jobs),"base_jobs","jobs","side","compared_by":
 *      "job"|"boot"|"run","assumes" (run level only),"base_spread",
 *      "spread","boots":{"base","other","shared"},"text"
 *      (bb_ab_format_names: "jobs 4, 6 A is ... than job 3 A ...")}
 *      | {"base_job","job","base_jobs","jobs","side","variant",
 *        "baseline","metric","error"}],
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
int bb_jobcmp_sides(const struct bb_jobcmp_side *base,
		    const struct bb_jobcmp_side *with, size_t nwith,
		    const struct bb_jobcmp_opts *opts, struct json_object **out,
		    struct bb_jobcmp_error *e);

/* The same with one job a side: base against each of with[0..nwith-1]. */
int bb_jobcmp(const struct bb_jobcmp_job *base,
	      const struct bb_jobcmp_job *with, size_t nwith,
	      const struct bb_jobcmp_opts *opts, struct json_object **out,
	      struct bb_jobcmp_error *e);

/* Whether name (a run option's JSON name) is one of the workload fields. */
bool bb_jobcmp_workload_field(const char *name);

#endif
