/* SPDX-License-Identifier: GPL-2.0-only */
/* abstats.h - A/B statistics: does variant B differ from variant A?
 *
 * Input: one metric value per repetition for A and for B (IOPS, a latency
 * percentile, ...), in run order.  Output: descriptive statistics per
 * variant, the relative change of B vs A with a confidence interval, a rank
 * test p-value, a verdict (faster / slower / no change within +-X% /
 * inconclusive: about N more repetitions needed) and a one-line wording.
 *
 * Methods (DESIGN.md "A/B statistics"):
 *
 * - Paired data (interleaved ABAB: pair i is A_i,B_i): the log-ratios
 *   d_i = log(B_i/A_i).  Estimate: Hodges-Lehmann, the median of the
 *   n(n+1)/2 Walsh averages (d_i+d_j)/2, i<=j.  CI: [W_(k), W_(M+1-k)] of
 *   the sorted Walsh averages, M = n(n+1)/2, k the largest integer with
 *   P(T+ <= k-1) <= alpha/2 under the null distribution of the Wilcoxon
 *   signed-rank statistic T+ (exact, by dynamic programming, for n <= 30;
 *   normal approximation with continuity correction above:
 *   k = floor(n(n+1)/4 - z*sqrt(n(n+1)(2n+1)/24) + 1/2)).  Reported on the
 *   relative scale as exp(.)-1.  p-value: two-sided Wilcoxon signed-rank
 *   test; zero differences are dropped (Wilcoxon's convention), tied |d|
 *   get midranks; exact (conditional on the ties, DP over doubled ranks)
 *   for n <= 30 non-zero differences, else normal approximation with tie
 *   and continuity correction.
 * - Unpaired data (blocked AA..BB.., unequal counts): estimate
 *   median(B)/median(A)-1; CI: percentile bootstrap of that ratio (A and B
 *   resampled independently, xoshiro256** seeded by splitmix64 from the
 *   caller's seed, quantiles by linear interpolation (type 7));
 *   p-value: two-sided Mann-Whitney U, normal approximation with tie and
 *   continuity correction.
 *
 * Verdict, alpha = 1 - confidence, m = min_effect:
 *   1. INCONCLUSIVE if the sample is too small for the rank test to ever
 *      reach p <= alpha (paired: 2^(1-n) > alpha, i.e. n < 6 at 95%;
 *      unpaired: the most extreme split still gives p > alpha).
 *   2. NO_CHANGE if the CI lies inside [-m, +m] (practical equivalence;
 *      checked first, so a significant but negligible change is "no
 *      change").
 *   3. FASTER / SLOWER if the CI excludes 0 and p <= alpha; the sign of
 *      the change gives the direction, flipped when lower is better.
 *   4. INCONCLUSIVE otherwise.
 *
 * Repetitions still needed (INCONCLUSIVE), all in log space with
 * e = log(1+estimate), mu = log(1+m), z = z_{1-alpha/2}:
 *   target half-width  T = max(|e|, mu - |e|)   (the CI settles once its
 *       half-width is under |e|, excluding 0, or under mu-|e|, fitting
 *       inside +-m, assuming the estimate stays where it is);
 *   paired:   n_total = ceil((pi/3) * (z*s/T)^2), s = SD of the d_i
 *       (pi/3: asymptotic variance of Hodges-Lehmann vs the mean, normal);
 *   unpaired: n_total = ceil((pi/2) * z^2 * (sA^2 + sB^2) / T^2) per
 *       variant, sA, sB = SD of log A_i, log B_i (pi/2: variance of the
 *       median vs the mean, normal);
 *   n_total is raised to the minimum of rule 1; more = max(1, n_total - n)
 *   capped at BB_AB_MORE_CAP (more_capped is set).
 *
 * All functions are reentrant: no global state; the bootstrap PRNG lives
 * on the stack of the call. */
#ifndef BB_ABSTATS_H
#define BB_ABSTATS_H

#include <biobench/common.h>

#define BB_AB_DEFAULT_MIN_EFFECT 0.01
#define BB_AB_DEFAULT_CONFIDENCE 0.95
#define BB_AB_DEFAULT_RESAMPLES 2000u
#define BB_AB_EXACT_MAX_N 30     /* exact signed-rank distribution up to here */
#define BB_AB_MAX_N 2048         /* per variant (Walsh averages: n(n+1)/2) */
#define BB_AB_MORE_CAP 1000u     /* cap of bb_ab_result.more_needed */

enum bb_ab_verdict {
	BB_AB_INCONCLUSIVE = 0,
	BB_AB_FASTER,    /* B better than A (direction per higher_is_better) */
	BB_AB_SLOWER,    /* B worse than A */
	BB_AB_NO_CHANGE, /* CI inside +-min_effect */
};

enum bb_ab_method {
	BB_AB_METHOD_PAIRED = 0, /* Hodges-Lehmann + Wilcoxon signed-rank */
	BB_AB_METHOD_UNPAIRED,   /* bootstrap ratio of medians + Mann-Whitney */
};

struct bb_ab_params {
	bool higher_is_better; /* iops, bandwidth: true; latency: false */
	bool paired;           /* interleaved order: A_i,B_i are a pair */
	double min_effect;     /* fraction, e.g. 0.01 for +-1% */
	double confidence;     /* e.g. 0.95 */
	uint64_t seed;         /* bootstrap seed (unpaired only) */
	unsigned resamples;    /* bootstrap resamples, >= 100 */
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
	bool higher_is_better;
	double min_effect, confidence;  /* as used */
	size_t n;              /* pairs (paired) or min(nA, nB) (unpaired) */
	size_t n_min;          /* smallest n at which rule 1 is passed */
	bool too_few;          /* rule 1 applied: no verdict possible yet */
	double change_median;  /* median(B)/median(A) - 1 */
	double change;         /* estimate that goes with the CI: paired
				  exp(HL)-1, unpaired = change_median */
	double ci_lo, ci_hi;   /* CI of the relative change */
	double ci_level;       /* achieved coverage: exact signed-rank CIs are
				  conservative (>= confidence) when n >= n_min;
				  bootstrap: = confidence */
	double p_value;        /* two-sided rank test */
	double log_sd;         /* paired: SD of log(B_i/A_i); unpaired:
				  sqrt(sA^2 + sB^2) of the logs */
	enum bb_ab_verdict verdict;
	unsigned more_needed;  /* INCONCLUSIVE: more pairs (or runs per
				  variant) estimated to settle it; else 0 */
	bool more_capped;      /* more_needed hit BB_AB_MORE_CAP */
};

/* Defaults: higher_is_better, paired, min_effect 0.01, confidence 0.95,
 * seed 1, 2000 resamples. */
void bb_ab_params_init(struct bb_ab_params *p);

/* Compare B with A.  Paired needs na == nb.  -EINVAL: NULL pointers,
 * na or nb < 2, a value not finite or <= 0, parameters out of range
 * (confidence not in (0,1), min_effect not in [0,1), resamples < 100);
 * -E2BIG: more than BB_AB_MAX_N values per variant; -ENOMEM. */
int bb_ab_compare(const double *a, size_t na, const double *b, size_t nb,
		  const struct bb_ab_params *p, struct bb_ab_result *res);

/* One-line verdict, ministat style, e.g.
 *   "B is 4.3% faster than A (95% CI +3.1% .. +5.6%, p=0.002, n=10 pairs)"
 *   "no change: B within ±1% of A (95% CI -0.4% .. +0.3%, n=12 pairs)"
 *   "inconclusive: 95% CI -0.8% .. +2.9% spans 0; about 14 more pairs needed"
 *   "inconclusive: 3 pairs are too few for a 95% verdict; about 3 more
 *    pairs needed"   (unpaired: "n=8+10 runs", "more runs per variant")
 * For a lower-is-better metric the CI is the signed change of the metric,
 * marked "lower is better; ".  0, -EINVAL, or -ENOSPC (truncated). */
int bb_ab_format(const struct bb_ab_result *res, char *buf, size_t len);

/* Name of a verdict: "faster", "slower", "no_change", "inconclusive". */
const char *bb_ab_verdict_name(enum bb_ab_verdict v);

/* Adaptive repetition: *more = true when another pair should be run:
 * the verdict is INCONCLUSIVE, res->n < max_repeat, and it is not futile
 * (futile: n >= n_min and n + more_needed > 2 * max_repeat, i.e. even a
 * generous reading of the estimate cannot settle it within the budget).
 * Note: stopping as soon as the CI excludes 0 is sequential testing; the
 * actual false-positive rate is above alpha.  Callers wanting a strict
 * rate use a fixed repetition count.  0 or -EINVAL. */
int bb_ab_want_more(const struct bb_ab_result *res, unsigned max_repeat,
		    bool *more);

/* Building blocks, exposed for tests and for other reports. */

/* Descriptive statistics of x[0..n-1] (n >= 1).  0, -EINVAL, -ENOMEM. */
int bb_ab_summarize(const double *x, size_t n, struct bb_ab_summary *s);

/* Hodges-Lehmann estimate of d[0..n-1] (n >= 2) with the signed-rank CI
 * at level conf (see top).  *level gets the achieved coverage (below conf
 * when n is too small: then the CI is the widest, [min W, max W]).
 * 0, -EINVAL, -E2BIG, -ENOMEM. */
int bb_ab_hodges_lehmann(const double *d, size_t n, double conf,
			 double *est, double *lo, double *hi, double *level);

/* Two-sided Wilcoxon signed-rank p-value of d[0..n-1] against 0 (see top
 * for zeros and ties).  0, -EINVAL, -ENOMEM. */
int bb_ab_signrank_p(const double *d, size_t n, double *p);

/* Two-sided Mann-Whitney U p-value (normal approximation, tie and
 * continuity corrected).  *u gets U of y (number of pairs y_j > x_i,
 * ties 1/2) when u is not NULL.  0, -EINVAL, -ENOMEM. */
int bb_ab_mannwhitney_p(const double *x, size_t nx, const double *y,
			size_t ny, double *u, double *p);

/* Percentile bootstrap CI of median(y)/median(x) - 1 with `resamples`
 * resamples from `seed`.  Values must be > 0.  0, -EINVAL, -ENOMEM. */
int bb_ab_bootstrap_ratio(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, unsigned resamples,
			  uint64_t seed, double *lo, double *hi);

#endif
