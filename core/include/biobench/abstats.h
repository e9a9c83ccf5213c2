/* SPDX-License-Identifier: GPL-2.0-only */
/* abstats.h - A/B statistics: does variant B differ from variant A?
 *
 * Input: one metric value per repetition for A and for B (IOPS, a latency
 * percentile, ...), in run order.  Output: descriptive statistics per
 * variant, the relative change of B vs A with a confidence interval whose
 * real coverage is stated, a test p-value (raw and adjusted for the other
 * variants of the job), an equivalence test (TOST), a verdict (faster /
 * slower / no change within +-m / inconclusive: about N more repetitions
 * needed) and a one-line wording.
 *
 * Methods (docs/design.md, "Jobs and statistics"); alpha = 1 - confidence,
 * m = min_effect, the equivalence margin in log space is
 * [thL, thU] = [log(1-m), log(1+m)] (the relative change inside +-m):
 *
 * - Paired, fixed design (interleaved ABAB with a fixed repeat: pair i is
 *   A_i,B_i): the log-ratios d_i = log(B_i/A_i).  Estimate: Hodges-Lehmann,
 *   the median of the n(n+1)/2 Walsh averages (d_i+d_j)/2, i<=j.  CI:
 *   [W_(k), W_(M+1-k)] of the sorted Walsh averages, M = n(n+1)/2, k the
 *   largest integer with P(T+ <= k-1) <= alpha/2 under the null
 *   distribution of the Wilcoxon signed-rank statistic T+ (exact, by
 *   dynamic programming, for n <= 30; normal approximation with
 *   continuity correction above: k = floor(n(n+1)/4 -
 *   z*sqrt(n(n+1)(2n+1)/24) + 1/2)).  Its real coverage, 1 - 2P(T+ <= k-1),
 *   is ci_level: with few pairs it is below the asked confidence (k = 1 at
 *   most: n = 2 -> 50%, 3 -> 75%, 4 -> 87.5%, 5 -> 93.75%; 95% needs 6
 *   pairs, 96.875%), and it is never rounded up in the wording.  Reported
 *   on the relative scale as exp(.)-1.  p-value: two-sided Wilcoxon
 *   signed-rank test; zero differences are dropped (Wilcoxon's
 *   convention), tied |d| get midranks; exact (conditional on the ties,
 *   DP over doubled ranks) for n <= 30 non-zero differences, else normal
 *   approximation with tie and continuity correction.  TOST: the
 *   one-sided signed-rank tests of d_i - thL > 0 and d_i - thU < 0 (same
 *   exact/normal rules), tost_p = max of the two.
 * - Paired, sequential design (adaptive repetition: repeat < max_repeat,
 *   given as a plan, struct bb_ab_seq): a group-sequential t-test with a
 *   Lan-DeMets alpha-spending function of O'Brien-Fleming type,
 *   alpha(t) = 2 - 2 Phi(z_{1-alpha/2} / sqrt(t)), over the planned looks
 *   n = repeat, repeat+1, ..., max_repeat (every round; more than
 *   BB_AB_SEQ_MAX_LOOKS looks are spread evenly over the range and the
 *   job stops only at a look), information fraction t = n / max_repeat.
 *   The two-sided boundaries z_k are computed for the normal score process
 *   (the Armitage-McPherson-Rowe recursion: the density of the score on
 *   the continuation region, propagated on a grid of 1/6 of one look's
 *   information step, boundaries solved from the spent alpha) and carried
 *   to the t scale with the same one-sided tail probability at n_k - 1
 *   degrees of freedom (Jennison & Turnbull, Group Sequential Methods,
 *   ch. 11).  Estimate: the mean log-ratio dbar (change exp(dbar)-1).
 *   CI: the repeated confidence interval dbar +- c_k s/sqrt(n) (c_k the
 *   t boundary of the current look), whose coverage holds simultaneously
 *   at every look, so it holds at whichever look the job stops (ci_level
 *   = confidence).  p-value: the repeated p-value, the smallest alpha' at
 *   which the boundaries of level alpha' are crossed at this look
 *   (interpolated in log alpha' on a grid of levels computed with the
 *   plan); valid at any stopping time, so it can be adjusted for many
 *   variants.  TOST: the repeated one-sided p-values of
 *   (dbar - thL)/(s/sqrt n) and (dbar - thU)/(s/sqrt n), i.e. the 1-2alpha
 *   repeated CI inside the margin.  Before the first look (interim
 *   results) the first look's boundary is used; between thinned looks the
 *   previous look's.
 * - Unpaired (blocked AA..BB.., unequal counts), also the independent-
 *   samples comparison of two jobs: on the logs x_i = log A_i,
 *   y_j = log B_j.  Estimate: two-sample Hodges-Lehmann, the median of the
 *   nA*nB differences y_j - x_i.  CI: [D_(k), D_(N+1-k)], N = nA*nB, k the
 *   largest integer with P(U <= k-1) <= alpha/2 under the exact null
 *   distribution of the Mann-Whitney U (no ties; by DP) when nA, nB <= 30,
 *   else the normal approximation k = floor(N/2 - z*sqrt(N(nA+nB+1)/12)
 *   + 1/2); ci_level = 1 - 2P(U <= k-1).  p-value: two-sided
 *   Wilcoxon-Mann-Whitney rank-sum test, exact conditional on ties (DP
 *   over doubled midranks) when nA, nB <= 30, else normal approximation
 *   with tie and continuity correction.  TOST: the one-sided rank-sum
 *   tests of y - thL vs x (greater) and y - thU vs x (less).
 *
 * Many variants (bb_ab_family): B, C, D... each against A form a family;
 * p_adj is Holm's step-down adjustment of the family's p-values (default:
 * controls the family-wise error rate under any dependence) or
 * Benjamini-Hochberg's step-up (false discovery rate; valid for the
 * positively dependent comparisons against a shared baseline);
 * tost_p_adj likewise.  A comparison alone has p_adj = p_value.
 *
 * Verdict:
 *   1. INCONCLUSIVE if too_few: the fixed design's exact CI cannot reach
 *      the asked confidence with this n (n_min says which n can).
 *   2. NO_CHANGE if tost_p_adj <= alpha (equivalence within +-m: both
 *      one-sided tests reject at alpha; checked first, so a significant
 *      but negligible change is "no change").
 *   3. FASTER / SLOWER if p_adj <= alpha and the CI excludes 0; the sign
 *      of the change gives the direction, flipped when lower is better.
 *   4. INCONCLUSIVE otherwise.
 *
 * Repetitions still needed (INCONCLUSIVE), all in log space with
 * e = log(1+estimate), mu = log(1+m), z = z_{1-alpha/2}:
 *   target half-width  T = max(|e|, mu - |e|)   (the CI settles once its
 *       half-width is under |e|, excluding 0, or under mu-|e|, fitting
 *       inside +-m, assuming the estimate stays where it is);
 *   paired fixed: n_total = ceil((pi/3) * (z*s/T)^2), s = SD of the d_i
 *       (pi/3: asymptotic variance of Hodges-Lehmann vs the mean, normal);
 *   sequential:   the smallest planned look n' with c_k s/sqrt(n') <= T
 *       (c_k at alpha when T = |e|, at 2 alpha when T = mu - |e|), past
 *       the last look ceil((z_K s/T)^2) with the last look's z_K;
 *   unpaired: n_total = ceil((pi/3) * z^2 * (sA^2 + sB^2) / T^2) per
 *       variant, sA, sB = SD of log A_i, log B_i (pi/3: two-sample
 *       Hodges-Lehmann vs the difference of means, normal);
 *   n_total is raised to n_min; more = max(1, n_total - n) capped at
 *   BB_AB_MORE_CAP (more_capped is set).
 *
 * Where the noise is (bb_ab_noise): variance components of the log metric
 * by the method of moments over the nesting boot > round > run > second
 * (see struct bb_ab_noise).
 *
 * All functions are reentrant: no global state; a plan is read-only once
 * made and may be shared by threads. */
#ifndef BB_ABSTATS_H
#define BB_ABSTATS_H

#include <biobench/common.h>

#define BB_AB_DEFAULT_MIN_EFFECT 0.01
#define BB_AB_DEFAULT_CONFIDENCE 0.95
#define BB_AB_DEFAULT_RESAMPLES 2000u
#define BB_AB_EXACT_MAX_N 30     /* exact rank distributions up to here */
#define BB_AB_MAX_N 2048         /* per variant (Walsh averages: n(n+1)/2) */
#define BB_AB_MORE_CAP 1000u     /* cap of bb_ab_result.more_needed */
#define BB_AB_SEQ_MAX_LOOKS 100  /* looks of a sequential plan */
#define BB_AB_P_FLOOR 1e-6       /* sequential p-values below are this */

enum bb_ab_verdict {
	BB_AB_INCONCLUSIVE = 0,
	BB_AB_FASTER,    /* B better than A (direction per higher_is_better) */
	BB_AB_SLOWER,    /* B worse than A */
	BB_AB_NO_CHANGE, /* TOST: B within +-min_effect of A */
};

enum bb_ab_method {
	BB_AB_METHOD_PAIRED = 0, /* pairs: Hodges-Lehmann + signed-rank, or
				    the sequential t (design) */
	BB_AB_METHOD_UNPAIRED,   /* two-sample Hodges-Lehmann + rank-sum */
	BB_AB_METHOD_UNITS,      /* jobs (boots) as the unit: t on their
				    levels (bb_ab_compare_units) */
};

/* What a unit of bb_ab_compare_units is (the wording of its results). */
enum bb_ab_unit_kind {
	BB_AB_UNIT_JOB = 0,
	BB_AB_UNIT_BOOT,
};

enum bb_ab_design {
	BB_AB_DESIGN_FIXED = 0,  /* n fixed in advance: exact rank methods */
	BB_AB_DESIGN_SEQUENTIAL, /* group-sequential, O'Brien-Fleming spending */
};

enum bb_ab_multiple {
	BB_AB_MULTIPLE_HOLM = 0, /* family-wise error (default) */
	BB_AB_MULTIPLE_BH,       /* false discovery rate */
	BB_AB_MULTIPLE__COUNT
};

/* A sequential plan: the looks and their boundaries (opaque). */
struct bb_ab_seq;

struct bb_ab_params {
	bool higher_is_better; /* iops, bandwidth: true; latency: false */
	bool paired;           /* interleaved order: A_i,B_i are a pair */
	double min_effect;     /* fraction, e.g. 0.01 for +-1%: the
				  equivalence margin of the TOST */
	double confidence;     /* e.g. 0.95 */
	uint64_t seed;         /* bootstrap seed (bb_ab_bootstrap_ratio) */
	unsigned resamples;    /* bootstrap resamples, >= 100 */
	const struct bb_ab_seq *seq; /* paired only: the sequential plan
					(its confidence must match); NULL:
					fixed design */
	enum bb_ab_unit_kind unit;   /* bb_ab_compare_units: jobs or boots */
};

/* Descriptive statistics of one variant.  Quantiles use linear
 * interpolation (type 7); stddev is the sample SD (n-1); mad is the raw
 * median absolute deviation from the median (not scaled by 1.4826). */
struct bb_ab_summary {
	size_t n;
	double median, mean, stddev, min, max;
	double q1, q3, iqr, mad;
};

struct bb_ab_result {
	struct bb_ab_summary a, b;
	enum bb_ab_method method;
	enum bb_ab_design design;
	bool higher_is_better;
	double min_effect, confidence;  /* as used */
	size_t n;              /* pairs (paired) or min(nA, nB) (unpaired) */
	size_t n_min;          /* smallest n whose CI reaches confidence
				  (fixed; per variant when unpaired) */
	bool too_few;          /* n < n_min: no verdict possible yet */
	double change_median;  /* median(B)/median(A) - 1 */
	double change;         /* estimate that goes with the CI: paired
				  exp(HL)-1, sequential exp(dbar)-1,
				  unpaired exp(HL2)-1 */
	double ci_lo, ci_hi;   /* CI of the relative change */
	double ci_level;       /* its real coverage (see the top) */
	double p_value;        /* two-sided test, this comparison alone */
	double p_adj;          /* adjusted over the family (= p_value alone) */
	double tost_p;         /* equivalence within +-min_effect */
	double tost_p_adj;
	unsigned family;       /* comparisons in the family (1: alone) */
	enum bb_ab_multiple multiple; /* the adjustment, when family > 1 */
	double log_sd;         /* paired: SD of log(B_i/A_i); unpaired:
				  sqrt(sA^2 + sB^2) of the logs */
	double log_est;        /* the estimate on the log scale */
	unsigned look, looks;  /* sequential: this look (1-based; 0 before
				  the first) of looks planned */
	unsigned first_look, last_look; /* sequential: n of the first, last */
	bool at_look;          /* sequential: n is a planned look */
	double bound;          /* sequential: critical |t| of the CI */
	enum bb_ab_verdict verdict;
	unsigned more_needed;  /* INCONCLUSIVE: more pairs (or runs per
				  variant) estimated to settle it; else 0 */
	bool more_capped;      /* more_needed hit BB_AB_MORE_CAP */
	unsigned more_open;    /* the estimate, whatever the verdict */
	bool more_open_capped;
	/* method UNITS (bb_ab_compare_units) */
	enum bb_ab_unit_kind unit;
	size_t units_a, units_b; /* units a side (a.n, b.n too) */
	size_t runs_a, runs_b;   /* runs behind them */
	double df;               /* of the t: units_a + units_b - 2 */
	double unit_sd;          /* SD of the units' levels about their
				    side's mean, pooled (log scale; NAN
				    with one unit a side) */
	double within_sd;        /* SD of the runs' logs within their unit,
				    pooled (NAN: one run each) */
	double planning_sd;      /* one unit a side: the unit-level SD the
				    estimate of units needed assumes */
	unsigned units_needed;   /* units a side to settle it (0: more than
				    BB_AB_MORE_CAP) */
};

/* One unit of bb_ab_compare_units: the metric of each run of one job (or
 * of one boot), n >= 1, every value > 0. */
struct bb_ab_unit {
	const double *vals;
	size_t n;
};

/* Defaults: higher_is_better, paired, min_effect 0.01, confidence 0.95,
 * seed 1, 2000 resamples, fixed design. */
void bb_ab_params_init(struct bb_ab_params *p);

/* Compare B with A.  Paired needs na == nb.  -EINVAL: NULL pointers,
 * na or nb < 2, a value not finite or <= 0, parameters out of range
 * (confidence not in (0,1), min_effect not in [0,1), resamples < 100, a
 * plan with another confidence or with unpaired data); -E2BIG: more than
 * BB_AB_MAX_N values per variant; -ENOMEM. */
int bb_ab_compare(const double *a, size_t na, const double *b, size_t nb,
		  const struct bb_ab_params *p, struct bb_ab_result *res);

/* Compare side B's units (jobs or boots) with side A's, the unit being
 * what is replicated: a two-level model, log(run) = side + unit + run
 * noise, with the unit as a random effect.  Each unit's level is the
 * Hodges-Lehmann location of its runs' logs; the change is exp of the
 * difference of the sides' mean levels; the CI and p-value are the
 * pooled two-sample t on the levels with ka + kb - 2 degrees of freedom
 * (the random-effect model's test for balanced units: the between-unit
 * spread, job-to-job or boot-to-boot, is what the interval rests on, and
 * runs within a unit may be correlated in any way); TOST by the two
 * one-sided t tests.  With one unit a side the spread is unknown:
 * too_few, no CI, and units_needed / more_needed come from a planning SD
 * (the larger of a unit's own run noise and the two units' difference /
 * sqrt 2).  units_needed: the smallest balanced k with t * sd * sqrt(2/k)
 * within the target half-width of abstats.h; more_needed = it - min(ka,
 * kb).  p->paired and p->seq are not used (seq must be NULL).  0,
 * -EINVAL (NULL, no unit, a unit without runs or with a value not finite
 * or <= 0, parameters out of range), -E2BIG (more than BB_AB_MAX_N units
 * a side or runs in a unit), -ENOMEM. */
int bb_ab_compare_units(const struct bb_ab_unit *a, size_t ka,
			const struct bb_ab_unit *b, size_t kb,
			const struct bb_ab_params *p, struct bb_ab_result *res);

/* The family of comparisons res[0..n-1] (B, C, ... each vs A; NULL
 * entries, e.g. failed comparisons, are skipped and not counted): sets
 * family, multiple, p_adj and tost_p_adj by Holm or Benjamini-Hochberg,
 * and decides each verdict again with the adjusted p-values (and its
 * more_needed).  0 or -EINVAL. */
int bb_ab_family(struct bb_ab_result *const *res, size_t n,
		 enum bb_ab_multiple m);

/* Adjusted p-values of p[0..n-1] into adj[0..n-1] (may be p): Holm
 * adj_(i) = max_{j<=i} min(1, (n-j+1) p_(j)); BH adj_(i) =
 * min_{j>=i} min(1, n/j p_(j)), with p_(1) <= ... <= p_(n).  0 or
 * -EINVAL (a p not in [0,1]), -ENOMEM. */
int bb_ab_adjust(const double *p, size_t n, enum bb_ab_multiple m,
		 double *adj);

/* "holm", "bh"; and back (-EINVAL for another name). */
const char *bb_ab_multiple_name(enum bb_ab_multiple m);
int bb_ab_multiple_from_name(const char *s, enum bb_ab_multiple *m);

/* The label of the CI with its real coverage, e.g. "96.8% CI",
 * "87.5% CI", "95% sequential CI" (coverage in percent truncated, never
 * rounded up, to at most one decimal).  0, -EINVAL, -ENOSPC. */
int bb_ab_ci_label(const struct bb_ab_result *r, char *buf, size_t len);

/* Name of the method of a result, e.g. "exact signed-rank
 * (Hodges-Lehmann)", "group-sequential t (O'Brien-Fleming spending,
 * looks 12..48)", "exact rank-sum (two-sample Hodges-Lehmann)".
 * 0, -EINVAL, -ENOSPC. */
int bb_ab_method_text(const struct bb_ab_result *r, char *buf, size_t len);

/* One-line verdict, ministat style, e.g.
 *   "B is 4.3% faster than A (95.3% CI +3.1% .. +5.6%, p=0.002,
 *    n=10 pairs)"
 *   "B is 4.3% faster than A (95.3% CI +3.1% .. +5.6%, p=0.002, Holm
 *    p=0.004 of 2, n=10 pairs)"
 *   "no change: B within ±1% of A (TOST p=0.004; 95.3% CI -0.4% ..
 *    +0.3%, n=12 pairs)"
 *   "inconclusive: 95% sequential CI -0.8% .. +2.9% spans 0; about 14
 *    more pairs needed"
 *   "inconclusive: 3 pairs give only a 75% CI (-0.4% .. +2.2%), 95%
 *    needs 6 pairs; about 3 more pairs needed" ("an 87.5% CI")
 *   (unpaired: "n=8+10 runs", "more runs per variant").  For a
 * lower-is-better metric the CI is the signed change of the metric,
 * marked "lower is better; ".  0, -EINVAL, or -ENOSPC (truncated). */
int bb_ab_format(const struct bb_ab_result *res, char *buf, size_t len);

/* The same with the names of the two sides ("job 4 A", "job 3 A"): a
 * and b take the places of "A" and "B" (bb_ab_format is this with "A",
 * "B").  0, -EINVAL, -ENOSPC. */
int bb_ab_format_names(const struct bb_ab_result *res, const char *a,
		       const char *b, char *buf, size_t len);

/* Where an inconclusive result is too noisy for the precision asked, in
 * words: what interval this many pairs (runs, jobs, boots) give on this
 * host, how much they spread, and about how many in all would settle it
 * (the estimate behind more_needed), e.g.
 *   "too noisy for ±1% with 12 pairs (CI ±3.4%, pairs spread by 5.1%):
 *    about 130 pairs in all (118 more) would settle it"
 *   "too noisy for ±1% with 2+2 jobs (jobs spread by 2.3%): about 40 jobs
 *    each side (38 more) would settle it"
 * a sequential result beyond its last look adds "more than max_repeat
 * (48) allows".  "" when the verdict is not inconclusive.  0, -EINVAL,
 * -ENOSPC. */
int bb_ab_precision_text(const struct bb_ab_result *r, char *buf, size_t len);

/* The verdict of several comparisons (a job's variants, or the jobs
 * compared with a base), worst first: SLOWER if any is slower, else
 * FASTER if any is faster, else INCONCLUSIVE if any is or failed > 0
 * comparisons could not be made, else NO_CHANGE (also for none). */
enum bb_ab_verdict bb_ab_verdict_worst(const enum bb_ab_verdict *v, size_t n,
				       size_t failed);

/* Name of a verdict: "faster", "slower", "no_change", "inconclusive". */
const char *bb_ab_verdict_name(enum bb_ab_verdict v);

/* Adaptive repetition: *more = true when another pair should be run:
 * res->n < max_repeat and either the verdict is INCONCLUSIVE and it is not
 * futile (futile: n >= n_min and n + more_needed > 2 * max_repeat, i.e.
 * even a generous reading of the estimate cannot settle it within the
 * budget), or (sequential design) n is not a planned look: the job stops
 * only at looks, so that the error rate is the plan's.  With a
 * sequential plan the false-positive rate stays at alpha however many
 * rounds are added (up to the plan's last look); with a fixed-design
 * result it would not (re-testing with the same alpha after every round
 * is optional stopping): callers adding rounds use a plan.
 * 0 or -EINVAL. */
int bb_ab_want_more(const struct bb_ab_result *res, unsigned max_repeat,
		    bool *more);

/* ---- sequential plans ------------------------------------------------ */

/* A plan for paired looks at n = first..last (2 <= first < last <=
 * BB_AB_MAX_N) at the given confidence (see the top for the method).
 * Costs a few ms to a few hundred ms (grows with the looks and the
 * information).  0, -EINVAL, -ENOMEM. */
int bb_ab_seq_create(struct bb_ab_seq **out, unsigned first, unsigned last,
		     double confidence);
void bb_ab_seq_free(struct bb_ab_seq *s);
/* Number of looks, and the n of look k (0-based). */
unsigned bb_ab_seq_looks(const struct bb_ab_seq *s);
unsigned bb_ab_seq_look_n(const struct bb_ab_seq *s, unsigned k);
/* Its confidence. */
double bb_ab_seq_confidence(const struct bb_ab_seq *s);

/* Two-sided group-sequential boundaries on the z scale for looks at
 * information fractions t[0..k-1] (increasing, in (0, 1]), Lan-DeMets
 * O'Brien-Fleming-type spending of alpha: z[i] = INFINITY where nothing
 * is spent.  0, -EINVAL, -ENOMEM. */
int bb_ab_gs_bounds(const double *t, size_t k, double alpha, double *z);

/* ---- where the noise is ---------------------------------------------- */

/* Levels of the nesting, outermost first.  A boot holds rounds, a round
 * holds runs (one per variant), a run holds per-second samples. */
enum bb_ab_noise_level {
	BB_AB_NOISE_BOOT = 0, /* between boots (kernel A/B; boot ids given) */
	BB_AB_NOISE_ROUND,    /* between rounds: drift; pairing cancels it */
	BB_AB_NOISE_RUN,      /* between runs of one round, beyond what the
				 per-second noise explains */
	BB_AB_NOISE_SECOND,   /* per-second noise within a run, as it adds
				 to a run's value (SD / sqrt(seconds)) */
	BB_AB_NOISE__COUNT
};

/* One measured run.  value > 0 (the metric); boot and round are ids
 * (equal id = same boot / round; rounds nested in boots); sec_var is the
 * variance of the log of the run's per-second rates (NAN: unknown),
 * seconds the run's measured length. */
struct bb_ab_noise_run {
	unsigned variant;
	unsigned boot;
	unsigned round;
	double value;
	double sec_var;
	double seconds;
};

/* The components, each an SD on the log scale (0.012 = 1.2%) with the
 * degrees of freedom behind it; measured false where the data cannot
 * show the level (one boot, one run per round, no per-second samples).
 * Moment estimates, negative variances set to 0.  dominant: the largest
 * measured component. */
struct bb_ab_noise {
	struct {
		bool measured;
		double sd;
		unsigned df;
	} level[BB_AB_NOISE__COUNT];
	bool have_dominant;
	enum bb_ab_noise_level dominant;
};

/* Variance components of runs[0..n-1]: values are centred on their
 * variant's mean log; run: pooled variance within rounds minus the
 * per-second part (mean of sec_var/seconds); round: variance of the round
 * means within boots minus run/k (k runs per round); boot: variance of
 * the boot means minus (round + run/k)/r (r rounds per boot).
 * 0, -EINVAL (a value <= 0), -ENOMEM. */
int bb_ab_noise(const struct bb_ab_noise_run *runs, size_t n,
		struct bb_ab_noise *out);

/* "boot", "round", "run", "second". */
const char *bb_ab_noise_level_name(enum bb_ab_noise_level l);

/* The advice for the dominant level, e.g. "add runs, not seconds";
 * "" without one. */
const char *bb_ab_noise_advice(const struct bb_ab_noise *nz);

/* ---- building blocks, exposed for tests and other reports ------------ */

/* Descriptive statistics of x[0..n-1] (n >= 1).  0, -EINVAL, -ENOMEM. */
int bb_ab_summarize(const double *x, size_t n, struct bb_ab_summary *s);

/* Hodges-Lehmann estimate of d[0..n-1] (n >= 2) with the signed-rank CI
 * at level conf (see top).  *level gets the achieved coverage (below conf
 * when n is too small: then the CI is the widest, [min W, max W]).
 * 0, -EINVAL, -E2BIG, -ENOMEM. */
int bb_ab_hodges_lehmann(const double *d, size_t n, double conf,
			 double *est, double *lo, double *hi, double *level);

/* Alternatives of a one- or two-sided test. */
enum bb_ab_alt {
	BB_AB_TWO_SIDED = 0,
	BB_AB_GREATER,  /* the shift is > 0 */
	BB_AB_LESS,     /* the shift is < 0 */
};

/* Wilcoxon signed-rank p-value of d[0..n-1] - shift against 0 (see top
 * for zeros, ties, exact and normal).  0, -EINVAL, -ENOMEM. */
int bb_ab_signrank_test(const double *d, size_t n, double shift,
			enum bb_ab_alt alt, double *p);
/* The two-sided one, shift 0. */
int bb_ab_signrank_p(const double *d, size_t n, double *p);

/* Two-sample Hodges-Lehmann shift of y vs x (median of y_j - x_i) with
 * the Mann-Whitney CI at level conf; *level gets its real coverage.
 * nx, ny >= 1.  0, -EINVAL, -E2BIG, -ENOMEM. */
int bb_ab_hodges_lehmann2(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, double *est, double *lo,
			  double *hi, double *level);

/* Wilcoxon-Mann-Whitney rank-sum p-value of y - shift against x (exact
 * conditional on ties when nx, ny <= BB_AB_EXACT_MAX_N, else normal with
 * tie and continuity correction).  *u gets U of y - shift (number of
 * pairs y_j - shift > x_i, ties 1/2) when u is not NULL.
 * 0, -EINVAL, -ENOMEM. */
int bb_ab_ranksum_test(const double *x, size_t nx, const double *y,
		       size_t ny, double shift, enum bb_ab_alt alt,
		       double *u, double *p);
/* The two-sided one, shift 0. */
int bb_ab_mannwhitney_p(const double *x, size_t nx, const double *y,
			size_t ny, double *u, double *p);

/* Percentile bootstrap CI of median(y)/median(x) - 1 with `resamples`
 * resamples from `seed` (xoshiro256** seeded by splitmix64, quantiles
 * type 7).  Values must be > 0.  0, -EINVAL, -ENOMEM. */
int bb_ab_bootstrap_ratio(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, unsigned resamples,
			  uint64_t seed, double *lo, double *hi);

/* Student t: upper tail P(T > t) with df > 0 degrees of freedom, and its
 * inverse (0 < q < 1).  Exposed for tests. */
double bb_ab_t_sf(double t, double df);
double bb_ab_t_isf(double q, double df);

/* The standard normal quantile Phi^-1(p), 0 < p < 1 (NAN otherwise):
 * the one the sequential design uses (Wichura's AS 241). */
double bb_ab_norm_quantile(double p);

#endif
