/* SPDX-License-Identifier: GPL-2.0-only */
/* jobspec.h - the A/B job: a JSON document (schema/job.schema.json)
 * parsed and validated into a plain struct, shared by the daemon and the
 * CLI's local `ab JOBFILE`.
 *
 *   {"name": "bio cache off vs all",
 *    "target": "nop",
 *    "workload": {"rw": "randread", "bs": "4k", "iodepth": 128,
 *                 "runtime": "2s"},              // any run option field
 *    "variants": {"A": {"bio_cache": "off"},
 *                 "B": {"bio_cache": "all", "sysfs.nomerges": 2}},
 *    "repeat": 6, "warmup": 1, "order": "random", "seed": 1,
 *    "metric": "iops", "min_effect": 1, "confidence": 0.95,
 *    "max_repeat": 20, "multiple": "holm",
 *    "quiescence": {"mode": "wait", "max_busy": 10, "max_wait": "1s",
 *                   "exclude_disturbed": false}}
 *
 * "target" is one path, or an array of them: several files or block
 * devices that the threads share as t/io_uring spreads its FILEs (a job
 * with several targets sets no sysfs knobs).
 *
 * "tiou": a fio t/io_uring command line gives the workload instead of (or
 * under) "workload": {"tiou": "-p0 -d128 -b4096 -s1 -c1 /dev/nvme0n1"}.
 * It is parsed with t/io_uring's rules and mapped onto the run options
 * (tiou.h: model none, -r as runtime, ...); biobench's long options may
 * follow its FILE ("... /dev/nvme0n1 --bio-cache off"); the workload's
 * fields then apply on top.  Its FILE is the target ("nop" for -N1), and
 * "target" may be left out (given, it must be the same).  A variant's own
 * "tiou" is layered on the job's line (bb_tiou_parse_over: "-s32 -c32"
 * changes those two), then the workload's fields, then the variant's
 * others; it keeps the job's target.  The normalized document holds each
 * line as {"line": "...", "options": {what it became}} (accepted back;
 * "options" must then be what the line becomes).  t/io_uring's default
 * -r0 runs until interrupted, which a job cannot: give -rN or a runtime.
 *
 * "aa": true makes an A/A job (calibration): "variants" holds one variant
 * or is left out (the workload alone), and the job runs it twice, as A and
 * as its copy A2, so that any verdict other than no change or inconclusive
 * is a false positive.  The copy is named NAME2, so an A/A variant's
 * name has at most 30 characters.
 *
 * Variant keys: any run option by its JSON name (bio_cache, split_check,
 * bio_layout, completion, inject_ns, iodepth, bs, mode, ...; not
 * "target"), "tiou" (above), plus sysfs knobs either as "sysfs.<knob>": value or as
 * "sysfs": {"<knob>": value}.  A knob is a file of the target's queue
 * directory (/sys/dev/block/MAJ:MIN/queue/<knob>, the whole disk for a
 * partition); its name is [a-z0-9_]{1,63}.  Variants are named by
 * [A-Za-z0-9_-]{1,31}; the first in document order is the baseline
 * ("A" by convention); at least 2, at most BB_JOB_MAX_VARIANTS.
 *
 * seed is 0..2^63-1 (json-c clamps a larger integer silently: a seed
 * at or beyond the limit is refused, not used as another one).
 * min_effect is in percent (1 = +-1%): the smallest change that matters,
 * and so the equivalence margin of the TOST behind a "no change" verdict;
 * confidence a fraction in [0.5, 0.999].  max_repeat > repeat makes the
 * job adaptive: rounds are added up to max_repeat under a group-sequential
 * plan (abstats.h) that keeps the false-positive rate.  multiple: how the
 * p-values of B, C, ... against A are adjusted: "holm" (family-wise
 * error) or "bh" (Benjamini-Hochberg, false discovery rate).  order: how
 * the variants follow each other in a round: "random" (each round a
 * seeded random permutation: A B, B A, ...; the paired tests are then
 * randomization tests, valid whatever the noise does over time),
 * "interleaved" (A B in every round) or "blocked" (A A ... B B ...,
 * unpaired).  seed: the random order's (and the bootstrap's); a job that
 * gives none gets a fresh random one, written into the normalized
 * document, so that the job can be run again in the same order.
 * Defaults: repeat 12, warmup 1, order random, seed fresh, metric iops,
 * min_effect 1, confidence 0.95, max_repeat = repeat (no adaptive
 * repetition), multiple holm, quiescence as shown (quiesce.h: before each run,
 * wait up to max_wait seconds for every benchmark CPU to be under
 * max_busy percent busy, else run and mark the run disturbed).
 *
 * A boot job (boot.h): every variant has "boot": {"kernel", "initrd",
 * "cmdline", "release", "grub_entry"}; "boots": N per variant (1..64,
 * default 2; the daemon's max_boots_per_job caps boots in all) and
 * "allow_other_jobs": true (start while other jobs are queued) are its
 * own fields.  Its boots run in pairs, each pair in the job's order
 * (random: A B, B A, ... by the seed; interleaved: A B A B ...,
 * bb_job_boot_variant); repeat and warmup count runs per boot.  Refused:
 * "boot" in some variants only, kernel or initrd not an absolute path of
 * a regular file, two variants the daemon could not tell apart after a
 * boot (same release and command line), aa, order blocked, max_repeat
 * above repeat; boots or
 * allow_other_jobs without "boot". */
#ifndef BB_JOBSPEC_H
#define BB_JOBSPEC_H

#include <biobench/abstats.h>
#include <biobench/boot.h>
#include <biobench/config.h>
#include <biobench/jobgroup.h>
#include <biobench/quiesce.h>
#include <biobench/stats.h>
#include <biobench/sysknob.h> /* struct bb_sysfs_knob */

#include <json-c/json.h>

#define BB_JOB_MAX_VARIANTS 8
#define BB_JOB_MAX_SYSFS BB_SYSKNOB_SET_MAX
#define BB_JOB_MAX_REPEAT 1000
#define BB_JOB_MAX_WARMUP 100
#define BB_JOB_MAX_ERRORS 32
#define BB_JOB_ERRLEN 256

enum bb_job_order {
	BB_ORDER_INTERLEAVED = 0, /* A B A B ... (paired) */
	BB_ORDER_BLOCKED,         /* A A ... B B ... (unpaired) */
	BB_ORDER_RANDOM,          /* each round a seeded permutation (paired) */
	BB_ORDER__COUNT
};

enum bb_metric {
	BB_METRIC_IOPS = 0,   /* I/Os per second, higher is better */
	BB_METRIC_BW,         /* bytes per second, higher is better */
	BB_METRIC_LAT_MEAN,   /* ns, lower is better (from the histogram) */
	BB_METRIC_LAT_P50,
	BB_METRIC_LAT_P99,
	BB_METRIC_LAT_P999,
	BB_METRIC_CPU_PER_IO, /* ns of CPU (usr+sys, all threads) per I/O */
	BB_METRIC__COUNT
};

struct bb_job_variant {
	char name[32];
	struct bb_config cfg;          /* workload + overrides, checked */
	unsigned nsysfs;
	struct bb_sysfs_knob sysfs[BB_JOB_MAX_SYSFS];
	struct bb_job_boot boot;       /* "boot": the kernel it runs on */
};

struct bb_job {
	char name[128];
	char target[PATH_MAX];   /* the first target; with ntargets > 1 the
				    others follow it, each NUL-terminated
				    (bb_job_next_target), as in struct
				    bb_config */
	unsigned ntargets;
	unsigned nvariants;
	struct bb_job_variant v[BB_JOB_MAX_VARIANTS];
	unsigned repeat;      /* measured rounds (one run per variant each) */
	unsigned warmup;      /* discarded rounds first */
	unsigned max_repeat;  /* >= repeat; > repeat enables adaptive rounds */
	enum bb_job_order order;
	uint64_t seed;
	enum bb_metric metric;
	double min_effect;    /* fraction (the JSON's percent / 100) */
	double confidence;
	enum bb_ab_multiple multiple; /* adjustment over the variants */
	struct bb_quiesce_params quiesce; /* the gate before each run */
	bool exclude_disturbed;   /* leave disturbed runs (their whole round
				     when paired) out of the statistics */
	bool aa;                  /* an A/A job: the one variant given (or
				     the workload alone) runs as v[0] and as
				     its copy v[1] ("A" and "A2"); a verdict
				     other than no change / inconclusive is
				     a false positive */
	bool boot_job;            /* every variant has "boot" (boot.h): the
				     daemon runs boots A B A B ..., repeat
				     measured runs (after warmup ones) in
				     each boot */
	unsigned boots;           /* boots per variant (default 2) */
	bool allow_other_jobs;    /* a boot job may start while other jobs
				     are queued */
	char host[254];           /* "host": the fleet host (a daemon's
				     host_name) the job is addressed to, ""
				     any host (bb_host_name_check) */
	bool group;               /* "host" is an array or "hosts" a
				     selector: one job on several hosts
				     (jobgroup.h) */
	unsigned nhosts;          /* "host" as an array: its names */
	char hosts[BB_GROUP_MAX_HOSTS][254];
	/* the first of biobench's long options (--cpus, --max-memory...) in
	 * a "tiou" line, and the line's field ("tiou", "variants.B.tiou"):
	 * `biobench ab` takes them, biobenchd refuses them (a job's run
	 * options are its JSON fields, checked as such); "" when none */
	char tiou_long_opt[64];
	char tiou_long_field[64];
	struct json_object *spec; /* the normalized document: every field
				     present with its default filled in
				     (name, target, tiou when given,
				     workload, variants,
				     repeat, warmup, max_repeat, order, seed,
				     metric, min_effect, confidence,
				     multiple, quiescence, aa: in this
				     order; given ones as given); accepted
				     by bb_job_parse; owned, freed by
				     bb_job_free */
};

/* Every error of one parse: "field.path: what is wrong, what is allowed",
 * e.g. `variants.B.bio_cache: "fast" is not one of off, task, irq,
 * irq_fast, all, all_split`; field[] holds the path alone ("variants.B.bio_cache"). */
struct bb_job_errors {
	unsigned n;          /* errors found (may exceed BB_JOB_MAX_ERRORS) */
	char msg[BB_JOB_MAX_ERRORS][BB_JOB_ERRLEN];
	char field[BB_JOB_MAX_ERRORS][128];
};

/* Parse and validate a job document.  Every field is checked, every error
 * recorded (unknown fields too); each variant's configuration is the
 * defaults, then "target", then "workload", then the variant's overrides,
 * then bb_config_check().  Returns 0, or -EINVAL with errs filled (job
 * then holds nothing to free), or -ENOMEM.  errs may be NULL.
 *
 * Messages are "path: what is wrong" with path as in field[]:
 *   name: required (a short title of the job)
 *   tiou: -d: '0' is out of range 1..32768 (queue depth)
 *   repeat: 0 is out of range 2..1000
 *   workload.bogus: unknown field (a run option; see biobench run --help)
 *   workload.target: not allowed here: target is a top-level field ...
 *   workload.cpus[1]: expected an integer
 *   variants: needs at least 2 variants (A and B), got 1
 *   variants.B.bio_cache: "fast" is not one of off, task, irq, irq_fast, all
 *   variants.B.sysfs.NoMerges: not a valid knob name (...)
 *   metric: lat_p99 needs latency recording, but variant B has lat "off"
 * Run option fields give the option table's message (bb_options_from_json)
 * with text values quoted as JSON ("fast").  bb_config_check()'s
 * cross-field errors are checked only for variants whose fields (and the
 * workload's) are all valid; "--bs: ..." becomes "variants.B.bs: ...",
 * other messages go on "variants.B"; an error the workload alone already
 * has is reported once, on "workload".  Sysfs values become text as
 * written (true "1", false "0", numbers as in the document).  max_repeat
 * is accepted but unused with order "blocked" (no adaptive rounds). */
int bb_job_parse(struct bb_job *job, struct json_object *doc,
		 struct bb_job_errors *errs);

/* Same from text (JSON syntax errors are reported on field "" with the
 * json-c tokener's message and the offset: "invalid JSON at offset 9:
 * unexpected character"; text after the document and nesting deeper
 * than 32 are errors too).  text need not be NUL-terminated. */
int bb_job_parse_string(struct bb_job *job, const char *text, size_t len,
			struct bb_job_errors *errs);

/* A job whose "tiou" lines carry biobench's long options (--cpus,
 * --max-memory, --allow-write...: job->tiou_long_opt): -EINVAL with
 * "FIELD: --OPT: ..." in err, for biobenchd, which takes a job's run
 * options only as its JSON fields; else 0. */
int bb_job_tiou_long_check(const struct bb_job *job, char *err,
			   size_t errlen);

/* Free what a successful parse holds (the spec); harmless twice. */
void bb_job_free(struct bb_job *job);

/* The job's targets: job->target, then the next after p (NULL after the
 * last). */
static inline const char *bb_job_next_target(const struct bb_job *job,
					     const char *p)
{
	return bb_targets_next(job->target, sizeof(job->target),
			       job->ntargets, p);
}

/* One run of the plan. */
struct bb_job_step {
	unsigned variant; /* index in job->v */
	unsigned round;   /* 0-based; warm-up rounds come first */
	unsigned pos;     /* its place in its round, 0-based (blocked: 0) */
	bool warmup;
};

/* The runs of rounds [first_round, first_round + nrounds) in execution
 * order (rounds count warm-ups: round r < job->warmup is a warm-up).
 * random (the default): each round is a permutation drawn from seed and
 * the round number (so it does not depend on how the plan is cut:
 * Fisher-Yates from xoshiro256** seeded by splitmix64 from seed and
 * round); interleaved: each round runs the variants in order (A B, A B,
 * ...: A first in every round, so an effect of a run's place in its round
 * -- drift within the round, a disturbance in phase with the rounds --
 * counts as a difference); blocked: all rounds of variant 0, then
 * of variant 1, ... (warm-up rounds first for each variant).  steps must
 * hold nrounds * nvariants entries.  Returns the number of steps. */
size_t bb_job_plan(const struct bb_job *job, unsigned first_round,
		   unsigned nrounds, struct bb_job_step *steps);

/* A boot job's boot k (0-based, of boots * nvariants): the variant it
 * runs.  Boots come in pairs (rounds of one boot per variant): boot k is
 * step k % nvariants of round k / nvariants of the plan, so that with
 * the random order each pair's order is drawn as a round's is (A B, B A,
 * ...), and with interleaved it is A B A B ... */
unsigned bb_job_boot_variant(const struct bb_job *job, unsigned k);

/* Metric: names "iops", "bw", "lat_mean", "lat_p50", "lat_p99",
 * "lat_p999", "cpu_per_io"; its value for a result (0 when undefined,
 * e.g. no latency samples); whether higher is better; the unit ("IO/s",
 * "B/s", "ns", "ns/IO").  lat_* from the histogram (mean = sum/count,
 * percentiles by bb_hist_percentile); cpu_per_io = submit + completion
 * usr+sys ns / io.ios. */
const char *bb_metric_name(enum bb_metric m);
int bb_metric_from_name(const char *s, enum bb_metric *m);
double bb_metric_value(enum bb_metric m, const struct bb_result *r);
bool bb_metric_higher_is_better(enum bb_metric m);
const char *bb_metric_unit(enum bb_metric m);
const char *bb_job_order_name(enum bb_job_order o);

/* Statistics parameters of the job: higher_is_better from the metric,
 * paired unless blocked, min_effect, confidence, seed. */
void bb_job_ab_params(const struct bb_job *job, struct bb_ab_params *p);

/* A double as JSON, written in its shortest form that reads back the
 * same (0.95, not 0.94999999999999996). */
struct json_object *bb_json_short_double(double v);

/* The comparison as JSON (the API's "compare" entries):
 * {"baseline","variant","metric","unit","higher_is_better","method"
 *  ("paired"|"unpaired"|"units"),
 *  "design" ("fixed"|"sequential"),"ci_method" (bb_ab_method_text),
 *  "n","n_for_confidence" (n_min),"too_few","a":{summary},"b":{summary},
 *  "change","change_median","ci_lo","ci_hi","ci_level" (real coverage),
 *  "ci_label" (bb_ab_ci_label),"p_value","p_adjusted","tost_p",
 *  "tost_p_adjusted","family","multiple","sequential": {"look","looks",
 *  "first","last","at_look","bound"} | null, method "units" only:
 *  "units": {"kind" ("job"|"boot"),"base","other" (units a side),
 *  "runs_base","runs_other","df","between_sd","within_sd" (as
 *  fractions; null when unknown),"planning_sd" (one unit a side: the
 *  spread the estimate of what it takes assumes, else null),
 *  "needed_per_side" | null},"verdict","more_needed",
 *  "more_capped","min_effect","confidence","text","precision"} (changes
 * as fractions; text is bb_ab_format's line, precision
 * bb_ab_precision_text's, null when the verdict is settled). */
struct json_object *bb_ab_result_to_json(const struct bb_ab_result *r,
					 const char *baseline,
					 const char *variant,
					 enum bb_metric metric);

#endif
