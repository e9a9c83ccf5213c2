/* SPDX-License-Identifier: GPL-2.0-only */
/* jobrun.h - executes a parsed job: the plan's runs in order (warm-ups
 * discarded), the metric of each measured run collected per variant, the
 * statistics of every variant against the baseline after each round, and
 * adaptive rounds while the verdict is open and max_repeat allows.  One
 * code path for the daemon's scheduler and the CLI's local `ab`: what
 * differs (storing, journaling sysfs knobs, printing) comes in through
 * the hooks. */
#ifndef BB_JOBRUN_H
#define BB_JOBRUN_H

#include <biobench/engine.h>
#include <biobench/hostinfo.h>
#include <biobench/jobspec.h>

#include <stdatomic.h>

struct bb_jobrun;

struct bb_jobrun_ops {
	/* Before each run (warm-ups too): apply the variant's sysfs knobs
	 * (the daemon journals them first).  Non-zero aborts the job with
	 * the message in err; after_run is still called for this step. */
	int (*before_run)(void *arg, struct bb_jobrun *jr,
			  const struct bb_job_step *st, char *err,
			  size_t errlen);
	/* After each run, whatever happened (ret: 0, -ECANCELED, -errno of
	 * the run or of before_run; r is valid, possibly empty, and is freed
	 * by the caller after this returns): restore knobs, store the run.
	 * A non-zero return aborts the job (e.g. the store is full) with the
	 * message in err. */
	int (*after_run)(void *arg, struct bb_jobrun *jr,
			 const struct bb_job_step *st, int ret,
			 const struct bb_result *r, char *err, size_t errlen);
	/* After each measured round once comparisons exist (jr->cmp valid;
	 * from the 2nd measured round on); blocked order: once, at the end. */
	void (*on_round)(void *arg, struct bb_jobrun *jr);
	/* Once a second during a run (engine sample; its arg is exec's arg). */
	bb_sample_cb on_sample;
	/* The run itself (NULL: the engine runs cfg): fill r as bb_run
	 * would (the metric's inputs at least), 0 or -errno with err.  For
	 * a replay or a simulation through the job runner (bench/aa_sim.c):
	 * with it the quiescence gate and the run context are left out, and
	 * everything else (the plan, the statistics, adaptive rounds,
	 * exclusions) is the job's. */
	int (*run)(void *arg, struct bb_jobrun *jr, const struct bb_job_step *st,
		   const struct bb_config *cfg, struct bb_result *r, char *err,
		   size_t errlen);
};

struct bb_jobrun_variant_stats {
	double *vals;          /* metric of each measured run, in order */
	double *sec_var;       /* per measured run: variance of the log of
				  its per-second rates (NAN: unknown) */
	double *secs;          /* per measured run: measured seconds */
	unsigned *pos;         /* per measured run: its place in its round */
	unsigned n;
	struct bb_cache_counters cache;       /* summed over measured runs */
	struct bb_cache_counters split_cache;
	struct bb_split_counters split;
	double last_iops;
};

/* A measured run the quiescence gate (or the stall check) marked. */
#define BB_JOBRUN_MAX_DISTURBED 32 /* named; disturbed_runs counts all */
struct bb_jobrun_disturbed {
	unsigned run;          /* 1-based, in run order */
	unsigned variant;      /* index in job->v */
	unsigned round;        /* 1-based measured round */
	char reason[160];      /* bb_quiesce_result.reason: "CPU 1 87 %
				  busy (cc1 (pid 12))", "stalled 3.0 s" */
};

struct bb_jobrun {
	const struct bb_job *job;
	const _Atomic bool *cancel; /* set by another thread to stop: the
				       current run ends within ~100 ms */
	unsigned seq;               /* 0-based index of the current run */
	unsigned runs_done;         /* runs finished without error
				       (warm-ups included) */
	unsigned runs_planned;      /* grows with adaptive rounds */
	unsigned rounds_planned;    /* measured rounds planned */
	uint64_t t_start_ns;        /* bb_now_ns() at start */
	uint64_t run_ns_sum;        /* wall time of finished runs (ETA) */
	struct bb_jobrun_variant_stats vs[BB_JOB_MAX_VARIANTS];
	struct bb_quiesce_result quiet; /* the gate's check before the
					   current run (after_run reads it) */
	struct bb_run_context run_ctx; /* where the current run ran: boot,
					  kernel, the target's queue settings,
					  read right before it starts (after
					  before_run and the gate); have is
					  false when the run did not start */
	unsigned disturbed_runs;    /* measured runs the gate marked */
	struct bb_jobrun_disturbed disturbed[BB_JOBRUN_MAX_DISTURBED];
	unsigned ndisturbed;        /* the first of them, with why */
	unsigned rounds_excluded;   /* rounds left out (exclude_disturbed) */
	bool round_disturbed;       /* a run of the current round was */
	bool have_cmp;
	const struct bb_ab_seq *plan; /* adaptive jobs: the sequential plan
				       (looks repeat..max_repeat); NULL:
				       fixed design */
	struct bb_ab_seq *own_plan; /* the plan when init made it (freed) */
	struct bb_ab_result cmp[BB_JOB_MAX_VARIANTS]; /* [i] = v[i] vs v[0];
							 [0] unused; adjusted
							 over the variants
							 (job->multiple) */
	bool have_noise;            /* paired jobs from 2 rounds on */
	struct bb_ab_noise noise;   /* where the noise is (rounds, runs,
				       per-second samples) */
	int cmp_ret[BB_JOB_MAX_VARIANTS]; /* bb_ab_compare's return */
	/* boot jobs (bb_jobrun_boot_results): vs[i].vals are the medians of
	 * variant i's boots, in boot order; the comparisons pair them */
	unsigned boot_pairs;        /* boots compared per variant */
	double boot_sd[BB_JOB_MAX_VARIANTS]; /* SD of the log of a variant's
						boot medians (NAN: < 2) */
};

/* Set up (allocates the value arrays: max_repeat per variant; an
 * adaptive job's sequential plan). */
int bb_jobrun_init(struct bb_jobrun *jr, const struct bb_job *job,
		   const _Atomic bool *cancel);
/* The same with the adaptive job's plan made once for many runs of the
 * job (calibrate, the simulation: a plan costs tens of ms), borrowed
 * until bb_jobrun_free: its looks must be repeat..max_repeat at the
 * job's confidence (-EINVAL otherwise, or for a job that is not
 * adaptive).  NULL: as bb_jobrun_init. */
int bb_jobrun_init_plan(struct bb_jobrun *jr, const struct bb_job *job,
			const _Atomic bool *cancel, const struct bb_ab_seq *plan);
void bb_jobrun_free(struct bb_jobrun *jr);

/* Run the whole job (once per bb_jobrun_init: -EALREADY after a run
 * finished).  0 when every planned run finished (the verdicts
 * are in jr->cmp), -ECANCELED when cancelled (err "cancelled"), or the
 * -errno of the first failing run or hook (a positive hook return is
 * -EIO) with its message in err, which names the run, 1-based:
 *   "run 5 (variant B, round 2): <engine or hook message>"
 *   "run 2 (variant B, warm-up 1): <...>"
 * Adaptive rounds (max_repeat > repeat, order not blocked): after the
 * last planned round, one more round is planned while bb_ab_want_more()
 * says so for any variant (the comparisons use the sequential plan, so
 * the verdicts keep their error rates whatever the number of rounds);
 * rounds_planned never exceeds max_repeat. */
int bb_jobrun_exec(struct bb_jobrun *jr, const struct bb_jobrun_ops *ops,
		   void *arg, char *err, size_t errlen);

/* One run of a plan the caller makes (a boot job's runs of one boot):
 * before_run, the quiescence gate, the run, after_run, as exec does;
 * jr->seq is the caller's (the run's 0-based index in the job).  The
 * metric of a measured run that succeeded is appended to
 * jr->vs[variant].vals (at most max(repeat, max_repeat)).  0,
 * -ECANCELED or the -errno of the run or a hook with err as exec's. */
int bb_jobrun_step(struct bb_jobrun *jr, const struct bb_job_step *st,
		   const struct bb_jobrun_ops *ops, void *arg, char *err,
		   size_t errlen);

/* A measured run of a boot job, as stored. */
struct bb_jobrun_boot_run {
	unsigned variant;   /* index in job->v */
	unsigned boot;      /* 0-based boot of the job (A B A B ...) */
	double value;       /* the metric */
	double sec_var;     /* as struct bb_ab_noise_run (NAN: unknown) */
	double seconds;
};

/* A boot job's statistics from its measured runs (any order): each
 * boot's median is one value (vs[variant].vals, in boot order), the
 * k-th boot of each variant is paired with the k-th boot of the baseline
 * (complete pairs only: boot_pairs), compared as a paired job's rounds
 * (bb_ab_compare, then adjusted over the variants); the noise has a
 * boot level (the runs of a boot are one round of that boot); boot_sd is
 * the between-boot spread.  0, -EINVAL (no pair), -ENOMEM. */
int bb_jobrun_boot_results(struct bb_jobrun *jr,
			   const struct bb_jobrun_boot_run *runs, size_t n);

/* The worst verdict over the variants, as the job's verdict: "slower" if
 * any variant is slower, else "faster" if any is faster, else
 * "inconclusive" if any is, else "no_change"; NULL before comparisons. */
const char *bb_jobrun_verdict(const struct bb_jobrun *jr);

/* {"verdict": ...|null, "metric", "unit", "runs_done", "runs_planned",
 *  "rounds_planned", "disturbed_runs", "rounds_excluded",
 *  "disturbed": [{"run", "variant", "round", "reason"}] (the first
 *                BB_JOBRUN_MAX_DISTURBED disturbed measured runs),
 *  "order": {"name": "random"|"interleaved"|"blocked", "seed",
 *            "rounds", "baseline_first": rounds (boot pairs) that ran
 *            the baseline first, "text": what the order means for the
 *            change},
 *  "design": "fixed"|"sequential", "multiple": "holm"|"bh",
 *  "comparisons": [bb_ab_result_to_json per variant; when bb_ab_compare
 *                  failed {"baseline","variant","metric","error"}],
 *  "noise": {"levels": {"boot"|"round"|"run"|"second": {"measured",
 *            "sd", "df"}}, "dominant": level | null, "advice"} | null,
 *  boot jobs: "boot_pairs", "boots_per_variant", "between_boot":
 *             {"A": {"boots", "sd" | null}, ...}, and "text" ("4 boot
 *             pairs; between-boot spread A 1.2 %, B 0.8 %"),
 *  "variants": {"A": {"n", "values": [...], "positions": [its run's place
 *  in its round, 0-based, per value], "median"|null, "last_iops",
 *  "bio_cache": {counters, "split_bioset": {counters}},
 *  "split": {counters}}, ...}} (counters as in the result document) */
struct json_object *bb_jobrun_to_json(const struct bb_jobrun *jr);

/* Seconds left, estimated from the mean run time so far (-1: unknown). */
double bb_jobrun_eta_s(const struct bb_jobrun *jr);

#endif
