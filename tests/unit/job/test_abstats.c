// SPDX-License-Identifier: GPL-2.0-only
/* test_abstats.c - A/B statistics (core/job/abstats.c).
 *
 * Where the expected numbers come from:
 *  - "by hand": Walsh averages listed in the comment, sorted, indexed.
 *  - "brute force": the enumerators below (all 2^n sign assignments, ranks
 *    by naive counting), written independently of the DP in abstats.c.
 *  - "scipy": Debian python3-scipy 1.10.1, run as /usr/bin/python3; the
 *    exact call is in the comment, the numbers are pasted as literals.
 *  - "python bootstrap": an independent Python re-implementation of the
 *    bootstrap (given in the comment of that test); its xoshiro256** gives
 *    the published rand_xoshiro vector for state {1,2,3,4} (11520, 0,
 *    1509978240, 1215971899390074240, ...) and its splitmix64 the
 *    reference outputs for seed 1234567 (6457827717110365317, ...).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <biobench/abstats.h>

#define Z975 1.959963984540054 /* scipy.stats.norm.ppf(0.975) */

/* ---- independent reference helpers ---------------------------------- */

/* The exact signed-rank tails of d - shift by enumerating all 2^n' sign
 * assignments; zeros dropped, midranks by counting (doubled: 2*#less +
 * #equal + 1).  *le, *ge: assignments with T+ at or below / above the
 * observed one; returns n'. */
static size_t bf_signrank_tails(const double *d, size_t n, double shift,
				uint64_t *le, uint64_t *ge)
{
	double a[32];
	int pos[32];
	unsigned r2[32], tobs = 0;
	size_t m = 0;

	*le = *ge = 0;
	for (size_t i = 0; i < n; i++) {
		double x = d[i] - shift;

		if (fabs(x) > 1e-12) {
			a[m] = fabs(x);
			pos[m] = x > 0;
			m++;
		}
	}
	assert_true(m <= 20);
	for (size_t i = 0; i < m; i++) {
		unsigned less = 0, eq = 0;

		for (size_t j = 0; j < m; j++) {
			less += a[j] < a[i] - 1e-12;
			eq += fabs(a[j] - a[i]) <= 1e-12;
		}
		r2[i] = 2 * less + eq + 1;
		if (pos[i])
			tobs += r2[i];
	}
	for (uint64_t mask = 0; mask < (1ull << m); mask++) {
		unsigned t = 0;

		for (size_t i = 0; i < m; i++)
			if (mask & (1ull << i))
				t += r2[i];
		*le += t <= tobs;
		*ge += t >= tobs;
	}
	return m;
}

/* Two-sided exact signed-rank p (brute force). */
static double bf_signrank_p(const double *d, size_t n)
{
	uint64_t le, ge;
	size_t m = bf_signrank_tails(d, n, 0, &le, &ge);

	return fmin(1.0, 2.0 * (double)(le < ge ? le : ge) / ldexp(1.0, (int)m));
}

/* Lower critical value c of T+ (ranks 1..n, no ties): the largest c with
 * P(T+ <= c) <= alpha/2, by enumeration; *cum = #{T+ <= c}.  -1 if none. */
static int bf_signrank_crit(unsigned n, double alpha, uint64_t *cum)
{
	uint64_t hist[256] = { 0 }, c = 0;
	unsigned m = n * (n + 1) / 2;
	int crit = -1;

	assert_true(m < 256);
	for (uint64_t mask = 0; mask < (1ull << n); mask++) {
		unsigned t = 0;

		for (unsigned i = 0; i < n; i++)
			if (mask & (1ull << i))
				t += i + 1;
		hist[t]++;
	}
	*cum = 0;
	for (unsigned t = 0; t <= m; t++) {
		c += hist[t];
		if ((double)c > alpha / 2 * ldexp(1.0, (int)n))
			break;
		crit = (int)t;
		*cum = c;
	}
	return crit;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorted Walsh averages of d (the definition, for index checks). */
static double *walsh_sorted(const double *d, size_t n)
{
	size_t m = n * (n + 1) / 2, k = 0;
	double *w = malloc(m * sizeof(*w));

	assert_non_null(w);
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (d[i] + d[j]) / 2.0;
	qsort(w, m, sizeof(*w), cmp_d);
	return w;
}

/* A_i: realistic IOPS around 100k; B_i = A_i * exp(d_i), so that
 * log(B_i/A_i) = d_i up to rounding (~1e-16). */
static const double iops_a[10] = { 100000, 101500, 99200, 100800, 98700,
				   100300, 101100, 99600, 100400, 99900 };

static void make_pairs(const double *d, size_t n, double *a, double *b)
{
	for (size_t i = 0; i < n; i++) {
		a[i] = iops_a[i % 10];
		b[i] = a[i] * exp(d[i]);
	}
}

static void params(struct bb_ab_params *p, bool higher)
{
	bb_ab_params_init(p);
	p->higher_is_better = higher;
}

static void assert_wording(const struct bb_ab_result *r, const char *want)
{
	char buf[256];

	assert_int_equal(bb_ab_format(r, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

#define assert_near(x, y, tol) assert_true(fabs((x) - (y)) <= (tol))

/* ---- data sets ------------------------------------------------------- */

/* FAST8, d in per mille: 12 25 31 38 40 47 52 66.  Walsh averages by hand
 * (i<j: (d_i+d_j)/2; plus the 8 singles):
 *   12: 18.5 21.5 25 26 29.5 32 39      25: 28 31.5 32.5 36 38.5 45.5
 *   31: 34.5 35.5 39 41.5 48.5          38: 39 42.5 45 52
 *   40: 43.5 46 53                      47: 49.5 56.5       52: 59
 * sorted (36): 12 18.5 21.5 25 25 26 28 29.5 31 31.5 32 32.5 34.5 35.5 36
 *   38 38.5 39 39 39 40 41.5 42.5 43.5 45 45.5 46 47 48.5 49.5 52 52 53
 *   56.5 59 66
 * HL = (W18+W19)/2 = 39.  n=8, 95%: critical T+ = 3 (P(T+<=3) = 5/256 <=
 * 0.025 < P(T+<=4) = 7/256), so k = 4: CI [W4, W33] = [25, 53],
 * coverage 1 - 2*5/256 = 0.9609375 (scipy _get_wilcoxon_distr(8)).
 * All d > 0: T+ = 36, exact p = 2/256 = 0.0078125.
 * Relative: expm1(.039) = 3.977%, expm1(.025) = 2.532%,
 * expm1(.053) = 5.443%; negated: -3.825%, -2.469%, -5.162%. */
static const double fast8[8] = { .012, .025, .031, .038, .040, .047, .052, .066 };

/* ---- building blocks ------------------------------------------------- */

static void test_summary_hand(void **state)
{
	/* sorted 1 2 3 4 5 10; median 3.5; mean 25/6; sample var
	 * (155 - 6*(25/6)^2)/5 = 10.1666..; type-7 q1: h = 1.25 -> 2.25,
	 * q3: h = 3.75 -> 4.75; |x - 3.5| sorted .5 .5 1.5 1.5 2.5 6.5 ->
	 * MAD 1.5 */
	const double x[6] = { 5, 1, 4, 2, 3, 10 };
	struct bb_ab_summary s;

	(void)state;
	assert_int_equal(bb_ab_summarize(x, 6, &s), 0);
	assert_int_equal(s.n, 6);
	assert_near(s.median, 3.5, 1e-15);
	assert_near(s.mean, 25.0 / 6, 1e-14);
	assert_near(s.stddev, sqrt(61.0 / 6), 1e-14);
	assert_near(s.min, 1, 0);
	assert_near(s.max, 10, 0);
	assert_near(s.q1, 2.25, 1e-15);
	assert_near(s.q3, 4.75, 1e-15);
	assert_near(s.iqr, 2.5, 1e-15);
	assert_near(s.mad, 1.5, 1e-15);
}

static void test_hl_hand_n3(void **state)
{
	/* d = .01 .03 .08: Walsh .01 .03 .08 .02 .045 .055 -> sorted
	 * .01 .02 .03 .045 .055 .08, HL = (.03+.045)/2 = .0375.  n=3 is
	 * too small for 95% (P(T+=0) = 1/8 > .025): widest CI [.01, .08],
	 * coverage 1 - 2/8 = .75. */
	const double d[3] = { .01, .03, .08 };
	double est, lo, hi, lvl;

	(void)state;
	assert_int_equal(bb_ab_hodges_lehmann(d, 3, .95, &est, &lo, &hi, &lvl), 0);
	assert_near(est, .0375, 1e-15);
	assert_near(lo, .01, 1e-15);
	assert_near(hi, .08, 1e-15);
	assert_near(lvl, .75, 1e-15);
}

static void test_hl_hand_n8(void **state)
{
	double est, lo, hi, lvl;

	(void)state;
	assert_int_equal(bb_ab_hodges_lehmann(fast8, 8, .95, &est, &lo, &hi, &lvl), 0);
	assert_near(est, .039, 1e-15);
	assert_near(lo, .025, 1e-15);
	assert_near(hi, .053, 1e-15);
	assert_near(lvl, 0.9609375, 1e-15);
}

/* CI index k against the brute-force critical values (n = 6..12), then
 * against the textbook/scipy table for n = 20, 25, 30 (critical T+ 52, 89,
 * 137; coverage from scipy _get_wilcoxon_distr(n): 1 - 2*cdf(c)), and the
 * normal approximation at n = 40: k = floor(410 - 1.959964*sqrt(5535) +
 * .5) = 264 (the exact critical value, from scipy, would give 265). */
static void check_k(size_t n, size_t k, double level)
{
	double d[40], est, lo, hi, lvl, *w;
	size_t m = n * (n + 1) / 2;

	for (size_t i = 0; i < n; i++)
		d[i] = sqrt((double)i + 2) / 100; /* distinct Walsh averages */
	w = walsh_sorted(d, n);
	assert_int_equal(bb_ab_hodges_lehmann(d, n, .95, &est, &lo, &hi, &lvl), 0);
	assert_true(lo == w[k - 1]);
	assert_true(hi == w[m - k]);
	assert_near(lvl, level, 1e-12);
	assert_near(est, (m & 1) ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2, 0);
	free(w);
}

static void test_hl_k_exact(void **state)
{
	(void)state;
	for (unsigned n = 6; n <= 12; n++) {
		uint64_t cum;
		int c = bf_signrank_crit(n, .05, &cum);

		assert_true(c >= 0);
		check_k(n, (size_t)c + 1, 1 - 2.0 * (double)cum / ldexp(1.0, (int)n));
	}
	check_k(20, 53, 0.9515590667724609);
	check_k(25, 90, 0.9517375826835632);
	check_k(30, 138, 0.9502898789942265);
	/* normal approximation: coverage 1 - 2*Phi((264 - .5 - 410)/sqrt(5535)) */
	check_k(40, 264, 1 - erfc((410 - 263.5) / sqrt(5535.0) / M_SQRT2));
}

static void test_signrank_exact(void **state)
{
	/* scipy.stats.wilcoxon(d, method='exact').pvalue = 0.02734375 */
	const double d[10] = { .013, -.004, .021, .008, -.011,
			       .017, .026, .002, .019, .031 };
	double p;

	(void)state;
	assert_int_equal(bb_ab_signrank_p(d, 10, &p), 0);
	assert_near(p, 0.02734375, 1e-15);
	assert_near(p, bf_signrank_p(d, 10), 1e-15);
	assert_int_equal(bb_ab_signrank_p(fast8, 8, &p), 0);
	assert_near(p, 2.0 / 256, 1e-15);
}

static void test_signrank_ties_zeros(void **state)
{
	/* per mille 0 10 -10 20 20 30 30 30 -20 40: zero dropped (n'=9);
	 * |d| midranks 10,10 -> 1.5; 20 x3 -> 4; 30 x3 -> 7; 40 -> 9;
	 * T+ = 1.5 + 4+4 + 7*3 + 9 = 39.5.  Exact conditional p by brute
	 * force: #{T <= 39.5} = 505, #{T >= 39.5} = 13 of 512 ->
	 * p = 26/512 = 0.05078125 (scipy's normal approximation,
	 * wilcoxon(d, correction=True, method='approx'), says 0.0488: the
	 * exact answer is on the other side of .05).
	 * HL/CI by hand from the 55 sorted Walsh averages: -20 -15 -10 -10 -5
	 * -5 0 0 0 0 5 5 ...: W9 = 0, W47 = 30, median W28 = 15. */
	const double d[10] = { 0, .010, -.010, .020, .020, .030, .030, .030,
			       -.020, .040 };
	double p, est, lo, hi;

	(void)state;
	assert_int_equal(bb_ab_signrank_p(d, 10, &p), 0);
	assert_near(p, 0.05078125, 1e-15);
	assert_near(p, bf_signrank_p(d, 10), 1e-15);
	assert_int_equal(bb_ab_hodges_lehmann(d, 10, .95, &est, &lo, &hi, NULL), 0);
	assert_near(est, .015, 1e-15);
	assert_near(lo, 0, 1e-15);
	assert_near(hi, .030, 1e-15);
}

static void test_signrank_normal(void **state)
{
	/* d_i = ((7i mod 13) - 4)/1000, i < 40: 3 zeros, n' = 37 > 30, many
	 * ties.  scipy.stats.wilcoxon(d, zero_method='wilcox',
	 * correction=True, method='approx') -> statistic 173.5,
	 * pvalue 0.007262025376266908 */
	double d[40], p;

	(void)state;
	for (int i = 0; i < 40; i++)
		d[i] = ((i * 7) % 13 - 4) / 1000.0;
	assert_int_equal(bb_ab_signrank_p(d, 40, &p), 0);
	assert_near(p, 0.007262025376266908, 1e-12);
}

/* Two-sided exact rank-sum p of y - shift vs x by enumerating all
 * C(n, ny) ways to choose y's ranks (midranks by counting, doubled). */
static double bf_ranksum_p(const double *x, size_t nx, const double *y,
			   size_t ny, double shift, int alt /* 0 two, 1 >, -1 < */)
{
	double v[24];
	unsigned r2[24], wobs = 0;
	size_t n = nx + ny;
	uint64_t le = 0, ge = 0, all = 0;

	assert_true(n <= 20);
	for (size_t i = 0; i < nx; i++)
		v[i] = x[i];
	for (size_t i = 0; i < ny; i++)
		v[nx + i] = y[i] - shift;
	for (size_t i = 0; i < n; i++) {
		unsigned less = 0, eq = 0;

		for (size_t j = 0; j < n; j++) {
			less += v[j] < v[i];
			eq += v[j] == v[i];
		}
		r2[i] = 2 * less + eq + 1;
		if (i >= nx)
			wobs += r2[i];
	}
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		unsigned w = 0;

		if ((size_t)__builtin_popcount(mask) != ny)
			continue;
		for (size_t i = 0; i < n; i++)
			if (mask & (1u << i))
				w += r2[i];
		all++;
		le += w <= wobs;
		ge += w >= wobs;
	}
	if (alt > 0)
		return (double)ge / (double)all;
	if (alt < 0)
		return (double)le / (double)all;
	return fmin(1.0, 2.0 * (double)(le < ge ? le : ge) / (double)all);
}

static void test_mannwhitney(void **state)
{
	/* exact conditional p (ties: 12 x2, 20 x3, 22 x2), by the
	 * enumerator above and in Python (itertools.combinations over the
	 * scipy.stats.rankdata midranks: 11250 of 11440 at or below, 213
	 * at or above) = 2*213/11440 = 0.03723776223776224; U of y = 51
	 * (scipy's normal approximation would say 0.0434) */
	const double x[9] = { 10, 12, 12, 15, 17, 20, 20, 20, 25 };
	const double y[7] = { 14, 18, 22, 22, 26, 27, 30 };
	double u, p;

	(void)state;
	assert_int_equal(bb_ab_mannwhitney_p(x, 9, y, 7, &u, &p), 0);
	assert_near(u, 51, 1e-12);
	assert_near(p, 0.03723776223776224, 1e-12);
	assert_near(p, bf_ranksum_p(x, 9, y, 7, 0, 0), 1e-12);
	/* one-sided and shifted, against the enumerator */
	assert_int_equal(bb_ab_ranksum_test(x, 9, y, 7, 3, BB_AB_GREATER, NULL, &p), 0);
	assert_near(p, bf_ranksum_p(x, 9, y, 7, 3, 1), 1e-12);
	assert_int_equal(bb_ab_ranksum_test(x, 9, y, 7, 8, BB_AB_LESS, NULL, &p), 0);
	assert_near(p, bf_ranksum_p(x, 9, y, 7, 8, -1), 1e-12);
	/* identical samples: U = nx*ny/2, p = 1 */
	assert_int_equal(bb_ab_mannwhitney_p(x, 9, x, 9, &u, &p), 0);
	assert_near(p, 1, 0);
}

/* ---- verdicts -------------------------------------------------------- */

static void run_paired(const double *d, size_t n, bool higher,
		       struct bb_ab_result *r)
{
	double a[40], b[40];
	struct bb_ab_params p;

	make_pairs(d, n, a, b);
	params(&p, higher);
	assert_int_equal(bb_ab_compare(a, n, b, n, &p, r), 0);
}

static void test_clearly_faster(void **state)
{
	struct bb_ab_result r;

	(void)state;
	run_paired(fast8, 8, true, &r);
	assert_int_equal(r.verdict, BB_AB_FASTER);
	assert_int_equal(r.method, BB_AB_METHOD_PAIRED);
	assert_int_equal(r.n, 8);
	assert_int_equal(r.a.n, 8);
	assert_near(r.change, expm1(.039), 1e-12);
	assert_near(r.ci_lo, expm1(.025), 1e-12);
	assert_near(r.ci_hi, expm1(.053), 1e-12);
	assert_near(r.p_value, 2.0 / 256, 1e-15);
	assert_int_equal(r.more_needed, 0);
	assert_wording(&r, "B is 4.0% faster than A (96% CI +2.5% .. +5.4%, "
			   "p=0.008, n=8 pairs)");
	/* the same with the sides named (a comparison of two jobs) */
	{
		char buf[256];

		assert_int_equal(bb_ab_format_names(&r, "job 3 A", "job 4 A",
						    buf, sizeof(buf)),
				 0);
		assert_string_equal(buf, "job 4 A is 4.0% faster than job 3 A "
					 "(96% CI +2.5% .. +5.4%, p=0.008, "
					 "n=8 pairs)");
		assert_int_equal(bb_ab_format_names(&r, NULL, "B", buf,
						    sizeof(buf)),
				 -EINVAL);
	}
}

static void test_clearly_slower(void **state)
{
	double d[8];
	struct bb_ab_result r;

	(void)state;
	for (int i = 0; i < 8; i++)
		d[i] = -fast8[i];
	run_paired(d, 8, true, &r);
	assert_int_equal(r.verdict, BB_AB_SLOWER);
	assert_near(r.change, expm1(-.039), 1e-12);
	assert_near(r.ci_lo, expm1(-.053), 1e-12);
	assert_near(r.ci_hi, expm1(-.025), 1e-12);
	assert_wording(&r, "B is 3.8% slower than A (96% CI -5.2% .. -2.5%, "
			   "p=0.008, n=8 pairs)");
}

static void test_latency_flips(void **state)
{
	double d[8];
	struct bb_ab_result r;

	(void)state;
	/* B's latency 4% higher: slower */
	run_paired(fast8, 8, false, &r);
	assert_int_equal(r.verdict, BB_AB_SLOWER);
	assert_wording(&r, "B is 4.0% slower than A (lower is better; 96% CI "
			   "+2.5% .. +5.4%, p=0.008, n=8 pairs)");
	/* B's latency 3.8% lower: faster */
	for (int i = 0; i < 8; i++)
		d[i] = -fast8[i];
	run_paired(d, 8, false, &r);
	assert_int_equal(r.verdict, BB_AB_FASTER);
	assert_wording(&r, "B is 3.8% faster than A (lower is better; 96% CI "
			   "-5.2% .. -2.5%, p=0.008, n=8 pairs)");
}

static void test_aa_no_change(void **state)
{
	/* per mille +-0.6 +-1.4 +-2.3 +-3.9: Walsh averages symmetric around
	 * 0 -> HL 0; smallest four: -3.9, (-3.9-2.3)/2 = -3.1,
	 * (-3.9-1.4)/2 = -2.65, -2.3 -> CI [-2.3, +2.3] per mille, inside
	 * +-1%.  T+ = M/2 = 18 -> p = 1. */
	const double d[8] = { -.0039, -.0023, -.0014, -.0006,
			      .0006, .0014, .0023, .0039 };
	struct bb_ab_result r;

	(void)state;
	run_paired(d, 8, true, &r);
	assert_int_equal(r.verdict, BB_AB_NO_CHANGE);
	assert_near(r.change, 0, 1e-12);
	assert_near(r.ci_lo, expm1(-.0023), 1e-12);
	assert_near(r.ci_hi, expm1(.0023), 1e-12);
	assert_near(r.p_value, 1, 1e-12);
	/* TOST: every d - log(.99) > 0 and every d - log(1.01) < 0: both
	 * one-sided exact p = 1/256 */
	assert_near(r.tost_p, 1.0 / 256, 1e-15);
	assert_wording(&r, "no change: B within ±1% of A (TOST p=0.004; 96% CI "
			   "-0.2% .. +0.2%, n=8 pairs)");
}

static void test_aa_noisy_inconclusive(void **state)
{
	/* per mille +-3 +-9 +-17 +-26: smallest Walsh averages -26, -21.5,
	 * -17.5, -17 -> CI [-17, +17] per mille (-1.69% .. +1.71%): spans 0,
	 * not inside +-1%.  More pairs: s = SD(d) = 0.017361698402764962
	 * (numpy std ddof=1), target T = log(1.01) (estimate 0),
	 * n_total = ceil(pi/3 * (1.959964 * s / T)^2) = ceil(12.25) = 13,
	 * 13 - 8 = 5. */
	const double d[8] = { -.026, -.017, -.009, -.003, .003, .009, .017, .026 };
	struct bb_ab_result r;

	(void)state;
	run_paired(d, 8, true, &r);
	assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
	assert_near(r.log_sd, 0.017361698402764962, 1e-12);
	assert_int_equal(r.more_needed, 5);
	assert_false(r.more_capped);
	assert_wording(&r, "inconclusive: 96% CI -1.7% .. +1.7% spans 0; "
			   "about 5 more pairs needed");
}

static void test_aa_symmetric_never_significant(void **state)
{
	/* Any set symmetric around 0 has T+ = M/2 (p = 1) and a CI
	 * symmetric around 0: never faster or slower, whatever the spread. */
	const double base[8] = { -.0039, -.0023, -.0014, -.0006,
				 .0006, .0014, .0023, .0039 };
	double d[8];
	struct bb_ab_result r;

	(void)state;
	for (double scale = 0.25; scale <= 64; scale *= 2) {
		for (int i = 0; i < 8; i++)
			d[i] = base[i] * scale;
		run_paired(d, 8, true, &r);
		assert_true(r.verdict == BB_AB_NO_CHANGE ||
			    r.verdict == BB_AB_INCONCLUSIVE);
		assert_near(r.p_value, 1, 1e-12);
		assert_true(r.ci_lo < 0 && r.ci_hi > 0);
	}
}

static void test_no_change_wins_over_tiny_significant(void **state)
{
	/* per mille 1..8: all positive (p = 2/256) but CI [W4, W33] =
	 * [2, 7] per mille by hand (sorted Walsh 1 1.5 2 2 ..., symmetric
	 * around 4.5) lies inside +-1%: documented precedence: no change. */
	const double d[8] = { .001, .002, .003, .004, .005, .006, .007, .008 };
	struct bb_ab_result r;

	(void)state;
	run_paired(d, 8, true, &r);
	assert_near(r.p_value, 2.0 / 256, 1e-15);
	assert_near(r.ci_lo, expm1(.002), 1e-12);
	assert_near(r.ci_hi, expm1(.007), 1e-12);
	assert_int_equal(r.verdict, BB_AB_NO_CHANGE);
	assert_wording(&r, "no change: B within ±1% of A (TOST p=0.004; 96% CI "
			   "+0.2% .. +0.7%, n=8 pairs)");
}

static void test_ties_in_compare(void **state)
{
	/* Integer IOPS with repeated values: A all 1000, B below; d_i =
	 * log(B_i) - log(1000) has a zero and exact ties.  Exact conditional
	 * p from the brute-force enumerator (also in Python: T2 = 84,
	 * #{T2 >= 84} = 5 of 512 -> 0.01953125).  HL/CI from the 55 Walsh
	 * averages sorted in Python (statistics.median; M = 55 is odd, so
	 * W28): median 0.019610356576640786,
	 * W9 = 0.0049751654265839385, W47 = 0.02951167022473067. */
	const double b[10] = { 1000, 1010, 1010, 1020, 1020, 1020, 1030, 1030,
			       990, 1040 };
	double a[10], d[10];
	struct bb_ab_params p;
	struct bb_ab_result r;

	(void)state;
	for (int i = 0; i < 10; i++) {
		a[i] = 1000;
		d[i] = log(b[i]) - log(a[i]);
	}
	params(&p, true);
	assert_int_equal(bb_ab_compare(a, 10, b, 10, &p, &r), 0);
	assert_near(r.p_value, bf_signrank_p(d, 10), 1e-15);
	assert_near(r.p_value, 0.01953125, 1e-15);
	assert_near(r.change, expm1(0.019610356576640786), 1e-12);
	assert_near(r.ci_lo, expm1(0.0049751654265839385), 1e-12);
	assert_near(r.ci_hi, expm1(0.02951167022473067), 1e-12);
	assert_near(r.change_median, 0.02, 1e-12);
	assert_int_equal(r.verdict, BB_AB_FASTER);
	assert_wording(&r, "B is 2.0% faster than A (95.1% CI +0.5% .. +3.0%, "
			   "p=0.020, n=10 pairs)");
}

static void test_n2_edge(void **state)
{
	/* n=2: 2^(1-2) = .5 > .05, no verdict possible.  s = SD(.05,.06)
	 * = .00707, estimate .055 -> n_total = ceil(pi/3*(1.96*.00707/
	 * .055)^2) = 1, raised to n_min = 6 (smallest n with 2^(1-n) <=
	 * .05): 4 more. */
	const double d[2] = { .05, .06 };
	struct bb_ab_result r;
	bool more;

	(void)state;
	run_paired(d, 2, true, &r);
	assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
	assert_true(r.too_few);
	assert_int_equal(r.n_min, 6);
	assert_int_equal(r.more_needed, 4);
	assert_near(r.ci_level, 0.5, 1e-15);
	assert_wording(&r, "inconclusive: 2 pairs give only a 50% CI (+5.1% .. "
			   "+6.2%), 95% needs 6 pairs; about 4 more pairs needed");
	assert_int_equal(bb_ab_want_more(&r, 10, &more), 0);
	assert_true(more);
	assert_int_equal(bb_ab_want_more(&r, 2, &more), 0);
	assert_false(more);
}

static void test_more_capped(void **state)
{
	/* per mille +-30 +-100 +-200 +-260: s = 0.18400310556385419 (numpy),
	 * n_total = ceil(pi/3*(1.959964*s/log(1.01))^2) = 1376 -> capped.
	 * CI: smallest Walsh -260 -230 -200 -180 -> [-.18, .18]:
	 * expm1 -> -16.47% .. +19.72%. */
	const double d[8] = { -.26, -.2, -.1, -.03, .03, .1, .2, .26 };
	struct bb_ab_result r;
	bool more;

	(void)state;
	run_paired(d, 8, true, &r);
	assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
	assert_true(r.more_capped);
	assert_int_equal(r.more_needed, BB_AB_MORE_CAP);
	assert_wording(&r, "inconclusive: 96% CI -16.5% .. +19.7% spans 0; "
			   "more than 1000 more pairs needed");
	/* futile: 8 + 1000 > 2 * 20 */
	assert_int_equal(bb_ab_want_more(&r, 20, &more), 0);
	assert_false(more);
}

static void test_want_more(void **state)
{
	const double d[8] = { -.026, -.017, -.009, -.003, .003, .009, .017, .026 };
	struct bb_ab_result r;
	bool more;

	(void)state;
	run_paired(d, 8, true, &r); /* inconclusive, 5 more */
	assert_int_equal(bb_ab_want_more(&r, 20, &more), 0);
	assert_true(more);
	assert_int_equal(bb_ab_want_more(&r, 8, &more), 0);
	assert_false(more); /* budget spent */
	assert_int_equal(bb_ab_want_more(&r, 6, &more), 0);
	assert_false(more); /* 8 + 5 > 2*6: futile, and over budget */
	run_paired(fast8, 8, true, &r); /* settled */
	assert_int_equal(bb_ab_want_more(&r, 20, &more), 0);
	assert_false(more);
	assert_int_equal(bb_ab_want_more(NULL, 20, &more), -EINVAL);
}

/* ---- unpaired / bootstrap -------------------------------------------- */

/* Python reference (run with /usr/bin/python3):
 *   M64=(1<<64)-1; rotl=lambda x,k: ((x<<k)|(x>>(64-k)))&M64
 *   def seed(sd): st=[]
 *     for _ in range(4): sd=(sd+0x9e3779b97f4a7c15)&M64; z=sd
 *       z=((z^(z>>30))*0xbf58476d1ce4e5b9)&M64
 *       z=((z^(z>>27))*0x94d049bb133111eb)&M64; st.append(z^(z>>31))
 *     return st
 *   def nxt(s): r=(rotl((s[1]*5)&M64,7)*9)&M64; t=(s[1]<<17)&M64
 *     s[2]^=s[0]; s[3]^=s[1]; s[1]^=s[2]; s[0]^=s[3]; s[2]^=t
 *     s[3]=rotl(s[3],45); return r
 *   def below(s,n): m=nxt(s)*n      # Lemire
 *     if (m&M64)<n:
 *       t=((1<<64)-n)%n
 *       while (m&M64)<t: m=nxt(s)*n
 *     return m>>64
 *   def q7(v,q): h=(len(v)-1)*q; lo=floor(h)
 *     return v[-1] if lo>=len(v)-1 else v[lo]+(h-lo)*(v[lo+1]-v[lo])
 *   def med(s,x): return q7(sorted(x[below(s,len(x))] for _ in x),.5)
 *   def boot(a,b,sd,R=2000): s=seed(sd)
 *     r=sorted(med(s,b)/med(s,a) ... )   # per resample: A first, then B
 *     return q7(r,.025)-1, q7(r,.975)-1
 * boot(UA, UB, 42) = (0.04021747322315217, 0.06174698795180733)
 * boot(UA, UB, 7)  = (0.039958545195452944, 0.06162634002945655)
 * boot(UA, UA, 42) = (-0.009466865969108174, 0.010040160642570184)
 * medians 100100 / 105200 -> change 0.05094905094905089;
 */
static const double ua[10] = { 100200, 99800, 101100, 98900, 100500,
			       99400, 100900, 99100, 100000, 100700 };
static const double ub[10] = { 105300, 104100, 106000, 103800, 105900,
			       104700, 105100, 106400, 104400, 105600 };

/* Two-sample Hodges-Lehmann on the logs, reference in Python
 * (/usr/bin/python3, scipy 1.10.1 only for rankdata):
 *   D = sorted(log(b) - log(a) for b in UB for a in UA)   # 100
 *   HL = (D[49] + D[50]) / 2 = 0.04940490526276786
 *   exact U null distribution by itertools.combinations(range(1, 21), 10)
 *   (184756 subsets): the largest k with P(U <= k-1) <= .025 is 24,
 *   coverage 1 - 2 P(U <= 23) = 0.9567429474550218;
 *   CI [D[23], D[76]] -> expm1: 0.04179104477611945, 0.0589999999999994
 * All of UB above all of UA: exact p = 2 / 184756. */
static void test_unpaired_hl2(void **state)
{
	struct bb_ab_params p;
	struct bb_ab_result r;

	(void)state;
	params(&p, true);
	p.paired = false;
	assert_int_equal(bb_ab_compare(ua, 10, ub, 10, &p, &r), 0);
	assert_int_equal(r.method, BB_AB_METHOD_UNPAIRED);
	assert_int_equal(r.design, BB_AB_DESIGN_FIXED);
	assert_near(r.a.median, 100100, 0);
	assert_near(r.b.median, 105200, 0);
	assert_near(r.change_median, 0.05094905094905089, 1e-14);
	assert_near(r.change, expm1(0.04940490526276786), 1e-14);
	assert_near(r.ci_lo, 0.04179104477611945, 1e-13);
	assert_near(r.ci_hi, 0.0589999999999994, 1e-13);
	assert_near(r.ci_level, 0.9567429474550218, 1e-13);
	assert_near(r.p_value, 2.0 / 184756, 1e-17);
	assert_int_equal(r.verdict, BB_AB_FASTER);
	assert_wording(&r, "B is 5.1% faster than A (95.6% CI +4.2% .. +5.9%, "
			   "p<0.001, n=10+10 runs)");
}

static void test_bootstrap_determinism(void **state)
{
	const double fa[3] = { 100, 100, 100 }, fb[4] = { 105, 105, 105, 105 };
	double lo1, hi1, lo2, hi2;

	(void)state;
	assert_int_equal(bb_ab_bootstrap_ratio(ua, 10, ub, 10, .95, 2000, 42, &lo1, &hi1), 0);
	assert_int_equal(bb_ab_bootstrap_ratio(ua, 10, ub, 10, .95, 2000, 42, &lo2, &hi2), 0);
	assert_memory_equal(&lo1, &lo2, sizeof(lo1));
	assert_memory_equal(&hi1, &hi2, sizeof(hi1));
	assert_int_equal(bb_ab_bootstrap_ratio(ua, 10, ub, 10, .95, 2000, 7, &lo2, &hi2), 0);
	assert_near(lo2, 0.039958545195452944, 1e-14);
	assert_near(hi2, 0.06162634002945655, 1e-14);
	assert_true(lo1 != lo2);
	/* constant samples: every resample gives 105/100 */
	assert_int_equal(bb_ab_bootstrap_ratio(fa, 3, fb, 4, .95, 500, 1, &lo1, &hi1), 0);
	assert_near(lo1, .05, 1e-15);
	assert_near(hi1, .05, 1e-15);
}

static void test_unpaired_aa(void **state)
{
	/* A against itself: p = 1; CI (Python above, UA vs UA) -0.80% ..
	 * +0.80% inside +-1%: TOST no change, its p checked against the
	 * enumerator: max of P(W >= w | y - log .99) and P(W <= w |
	 * y - log 1.01) over C(20, 10) splits (on the logs). */
	double la[10], tl, tu;
	struct bb_ab_params p;
	struct bb_ab_result r;

	(void)state;
	for (int i = 0; i < 10; i++)
		la[i] = log(ua[i]);
	tl = bf_ranksum_p(la, 10, la, 10, log(0.99), 1);
	tu = bf_ranksum_p(la, 10, la, 10, log(1.01), -1);
	params(&p, true);
	p.paired = false;
	assert_int_equal(bb_ab_compare(ua, 10, ua, 10, &p, &r), 0);
	assert_near(r.p_value, 1, 0);
	assert_near(r.ci_lo, -0.00798403193612732, 1e-13);
	assert_near(r.ci_hi, 0.008048289738430152, 1e-13);
	assert_near(r.tost_p, fmax(tl, tu), 1e-12);
	assert_true(r.tost_p < 0.05);
	assert_int_equal(r.verdict, BB_AB_NO_CHANGE);
	assert_wording(&r, "no change: B within ±1% of A (TOST p=0.007; 95.6% CI "
			   "-0.8% .. +0.8%, n=10+10 runs)");
}

static void test_unpaired_too_few(void **state)
{
	/* 3+3: the widest rank-sum CI has coverage 1 - 2/C(6,3) = 0.9; 4+4
	 * gives 1 - 2/70 = 0.971 (n_min 4). */
	const double a[3] = { 100, 101, 102 }, b[3] = { 120, 121, 122 };
	struct bb_ab_params p;
	struct bb_ab_result r;

	(void)state;
	params(&p, true);
	p.paired = false;
	assert_int_equal(bb_ab_compare(a, 3, b, 3, &p, &r), 0);
	assert_true(r.too_few);
	assert_near(r.ci_level, 0.9, 1e-15);
	assert_int_equal(r.n_min, 4);
	assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
	assert_int_equal(r.more_needed, 1);
	assert_wording(&r, "inconclusive: 3+3 runs give only a 90% CI (+17.6% .. "
			   "+22.0%), 95% needs 4 runs per variant; about 1 more "
			   "run per variant needed");
}

/* ---- honest coverage -------------------------------------------------- */

/* n = 2..8 pairs at 95%: the exact signed-rank CI's real coverage.  By
 * the enumerator bf_signrank_crit: n <= 5 have no critical value (the
 * widest CI, k = 1, covers 1 - 2/2^n: 50, 75, 87.5, 93.75%); n = 6: k = 1,
 * 1 - 2/64; n = 7: k = 3, 1 - 2*3/128; n = 8: k = 4, 1 - 2*5/256.  The
 * label truncates (93.75 -> "93.7", 96.875 -> "96.8", 96.09 -> "96"). */
static void test_coverage_labels(void **state)
{
	static const struct {
		double level;
		const char *label;
	} want[9] = {
		[2] = { 0.5, "50% CI" },	[3] = { 0.75, "75% CI" },
		[4] = { 0.875, "87.5% CI" },	[5] = { 0.9375, "93.7% CI" },
		[6] = { 0.96875, "96.8% CI" },	[7] = { 0.953125, "95.3% CI" },
		[8] = { 0.9609375, "96% CI" },
	};
	char lab[64], line[256], expect[256];
	struct bb_ab_result r;

	(void)state;
	for (unsigned n = 2; n <= 8; n++) {
		uint64_t cum;
		int c = bf_signrank_crit(n, .05, &cum);
		double bf = c < 0 ? 1 - 2 / ldexp(1.0, (int)n) :
				    1 - 2.0 * (double)cum / ldexp(1.0, (int)n);

		run_paired(fast8, n, true, &r);
		assert_near(r.ci_level, want[n].level, 1e-15);
		assert_near(r.ci_level, bf, 1e-15);
		assert_int_equal(bb_ab_ci_label(&r, lab, sizeof(lab)), 0);
		assert_string_equal(lab, want[n].label);
		assert_int_equal(r.n_min, 6);
		assert_int_equal(r.too_few, n < 6);
		assert_int_equal(bb_ab_format(&r, line, sizeof(line)), 0);
		assert_non_null(strstr(line, lab));
		if (n < 6) {
			snprintf(expect, sizeof(expect),
				 "%u pairs give only %s %s", n,
				 lab[0] == '8' ? "an" : "a", lab);
			assert_non_null(strstr(line, expect));
			assert_non_null(strstr(line, "95% needs 6 pairs"));
			assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
		}
	}
	/* 90%: 5 pairs suffice (1 - 2/32 = 0.9375 >= 0.9) */
	{
		double a[5], b[5];
		struct bb_ab_params p;

		make_pairs(fast8, 5, a, b);
		params(&p, true);
		p.confidence = 0.90;
		assert_int_equal(bb_ab_compare(a, 5, b, 5, &p, &r), 0);
		assert_int_equal(r.n_min, 5);
		assert_false(r.too_few);
	}
}

/* One-sided exact signed-rank p of d - shift by enumeration (the
 * brute-force way, independent of the DP): greater: P(T+ >= t),
 * less: P(T+ <= t). */
static double bf_signrank_1s(const double *d, size_t n, double shift,
			     bool greater)
{
	uint64_t le, ge;
	size_t m = bf_signrank_tails(d, n, shift, &le, &ge);

	return (double)(greater ? ge : le) / ldexp(1.0, (int)m);
}

/* TOST of the fixed design, computed independently: thL = log(0.99),
 * thU = log(1.01); p1 = P(T+ >= t | d - thL) (H0: change <= -1%),
 * p2 = P(T+ <= t | d - thU) (H0: change >= +1%), each by enumerating all
 * 2^10 sign assignments of the shifted |d| (bf_signrank_1s);
 * tost_p = max(p1, p2).  By hand for SMALL10 (per mille -6 -4 -3 -1 0.5 1
 * 2 3 5 7, all inside +-10.05): every d - thL > 0 -> p1 = 1/1024; d -
 * thU are all < 0 -> p2 = 1/1024.  For WIDE10 (per mille 2 4 5 6 8 9 11
 * 12 13 14: the upper test sees d - 9.95 = -7.95 .. +4.05, so p2 is
 * large) equivalence fails. */
static void test_tost_fixed(void **state)
{
	const double small10[10] = { -.006, -.004, -.003, -.001, .0005,
				     .001, .002, .003, .005, .007 };
	const double wide10[10] = { .002, .004, .005, .006, .008, .009,
				    .011, .012, .013, .014 };
	struct bb_ab_result r;
	double p1, p2;

	(void)state;
	run_paired(small10, 10, true, &r);
	p1 = bf_signrank_1s(small10, 10, log(0.99), true);
	p2 = bf_signrank_1s(small10, 10, log(1.01), false);
	assert_near(p1, 1.0 / 1024, 1e-15);
	assert_near(p2, 1.0 / 1024, 1e-15);
	assert_near(r.tost_p, fmax(p1, p2), 1e-15);
	assert_int_equal(r.verdict, BB_AB_NO_CHANGE);

	run_paired(wide10, 10, true, &r);
	p1 = bf_signrank_1s(wide10, 10, log(0.99), true);
	p2 = bf_signrank_1s(wide10, 10, log(1.01), false);
	assert_near(r.tost_p, fmax(p1, p2), 1e-15);
	assert_true(r.tost_p > 0.05);
	assert_true(r.verdict != BB_AB_NO_CHANGE);
	/* the building block itself, two-sided with a shift */
	assert_int_equal(bb_ab_signrank_test(wide10, 10, 0.005, BB_AB_GREATER, &p1), 0);
	assert_near(p1, bf_signrank_1s(wide10, 10, 0.005, true), 1e-15);
}

/* ---- many variants -------------------------------------------------- */

/* A fixed p-value table, adjusted by hand (the definitions in
 * abstats.h): p = .01 .04 .03 .005 .20, m = 5; sorted .005 .01 .03 .04 .20
 * Holm: 5*.005 = .025, 4*.01 = .04, 3*.03 = .09, 2*.04 = .08 -> .09
 *       (running max), 1*.20 = .20  ->  in input order .04 .09 .09 .025 .20
 * BH:   5/1*.005 = .025, 5/2*.01 = .025, 5/3*.03 = .05, 5/4*.04 = .05,
 *       5/5*.20 = .20 (running min from the top) -> .025 .05 .05 .025 .20
 * (R: p.adjust(c(.01,.04,.03,.005,.2), "holm" / "BH") gives the same). */
static void test_holm_bh_table(void **state)
{
	const double p[5] = { .01, .04, .03, .005, .20 };
	const double holm[5] = { .04, .09, .09, .025, .20 };
	const double bh[5] = { .025, .05, .05, .025, .20 };
	double adj[5];
	enum bb_ab_multiple m;

	(void)state;
	assert_int_equal(bb_ab_adjust(p, 5, BB_AB_MULTIPLE_HOLM, adj), 0);
	for (int i = 0; i < 5; i++)
		assert_near(adj[i], holm[i], 1e-15);
	assert_int_equal(bb_ab_adjust(p, 5, BB_AB_MULTIPLE_BH, adj), 0);
	for (int i = 0; i < 5; i++)
		assert_near(adj[i], bh[i], 1e-15);
	/* capped at 1, one p alone unchanged */
	{
		const double q[2] = { .6, .7 };

		assert_int_equal(bb_ab_adjust(q, 2, BB_AB_MULTIPLE_HOLM, adj), 0);
		assert_near(adj[0], 1, 0);
		assert_near(adj[1], 1, 0);
		assert_int_equal(bb_ab_adjust(q, 1, BB_AB_MULTIPLE_HOLM, adj), 0);
		assert_near(adj[0], .6, 0);
	}
	assert_int_equal(bb_ab_adjust((const double[]){ 1.5 }, 1,
				      BB_AB_MULTIPLE_HOLM, adj), -EINVAL);
	assert_int_equal(bb_ab_multiple_from_name("bh", &m), 0);
	assert_int_equal(m, BB_AB_MULTIPLE_BH);
	assert_int_equal(bb_ab_multiple_from_name("bonferroni", &m), -EINVAL);
	assert_string_equal(bb_ab_multiple_name(BB_AB_MULTIPLE_HOLM), "holm");
}

/* Three variants against A, each with p = 0.0195 alone (TIES10 of
 * test_ties_in_compare: faster alone): Holm multiplies the smallest by
 * 3 -> 0.0586 > .05 for all: none is called faster; the raw p stays. */
static void test_family_holm(void **state)
{
	const double b[10] = { 1000, 1010, 1010, 1020, 1020, 1020, 1030, 1030,
			       990, 1040 };
	double a[10];
	struct bb_ab_params p;
	struct bb_ab_result r[3], *rp[4];
	char line[256];

	(void)state;
	for (int i = 0; i < 10; i++)
		a[i] = 1000;
	params(&p, true);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(bb_ab_compare(a, 10, b, 10, &p, &r[k]), 0);
		assert_int_equal(r[k].verdict, BB_AB_FASTER);
		rp[k] = &r[k];
	}
	rp[3] = NULL; /* a failed comparison: not counted */
	assert_int_equal(bb_ab_family(rp, 4, BB_AB_MULTIPLE_HOLM), 0);
	for (int k = 0; k < 3; k++) {
		assert_int_equal(r[k].family, 3);
		assert_near(r[k].p_value, 0.01953125, 1e-15);
		assert_near(r[k].p_adj, 3 * 0.01953125, 1e-15);
		assert_int_equal(r[k].verdict, BB_AB_INCONCLUSIVE);
		assert_true(r[k].more_needed > 0);
	}
	assert_int_equal(bb_ab_format(&r[0], line, sizeof(line)), 0);
	assert_non_null(strstr(line, "p=0.020, Holm p=0.059 of 3"));
	/* BH: all equal p -> adjusted = p * 3/3: still faster */
	for (int k = 0; k < 3; k++)
		assert_int_equal(bb_ab_compare(a, 10, b, 10, &p, &r[k]), 0);
	assert_int_equal(bb_ab_family(rp, 3, BB_AB_MULTIPLE_BH), 0);
	for (int k = 0; k < 3; k++) {
		assert_near(r[k].p_adj, 0.01953125, 1e-15);
		assert_int_equal(r[k].verdict, BB_AB_FASTER);
	}
	assert_int_equal(bb_ab_format(&r[0], line, sizeof(line)), 0);
	assert_non_null(strstr(line, "p=0.020, BH p=0.020 of 3"));
}

/* ---- sequential design -------------------------------------------- */

/* Student t against scipy 1.10.1: stats.t.sf(2, 5) =
 * 0.05096973941492914, t.isf(.025, 5) = 2.57058183661474,
 * t.isf(1e-6, 3) = 103.29946802190557, t.sf(0.5, 30) =
 * 0.31036150244256366. */
static void test_student_t(void **state)
{
	(void)state;
	assert_near(bb_ab_t_sf(2, 5), 0.05096973941492914, 1e-12);
	assert_near(bb_ab_t_isf(.025, 5), 2.57058183661474, 1e-9);
	assert_near(bb_ab_t_isf(1e-6, 3), 103.29946802190557, 1e-6);
	assert_near(bb_ab_t_sf(0.5, 30), 0.31036150244256366, 1e-12);
	assert_near(bb_ab_t_sf(-0.5, 30), 1 - 0.31036150244256366, 1e-12);
}

/* O'Brien-Fleming-type spending, two-sided 5%, alpha(t) = 2 - 2
 * Phi(1.959964/sqrt t).  K = 1: 1.959964.  K = 2 at t = .5, 1: z1 =
 * Phi^-1(1 - alpha(.5)/2) = 2.77181; z2 solves P(|Z1| < z1, |Z2| >= z2) =
 * .05 - alpha(.5) with corr(Z1, Z2) = sqrt(.5), by scipy quad over Z1
 * and brentq (an independent computation): 1.97931. */
static void test_gs_bounds(void **state)
{
	double t1[1] = { 1 }, z1[1], t2[2] = { .5, 1 }, z2[2];
	double t5[5] = { .2, .4, .6, .8, 1 }, z5[5];

	(void)state;
	assert_int_equal(bb_ab_gs_bounds(t1, 1, .05, z1), 0);
	assert_near(z1[0], Z975, 5e-4);
	assert_int_equal(bb_ab_gs_bounds(t2, 2, .05, z2), 0);
	assert_near(z2[0], 2.77181, 1e-3);
	assert_near(z2[1], 1.97931, 1e-3);
	/* decreasing boundaries, the last one above the fixed 1.96 */
	assert_int_equal(bb_ab_gs_bounds(t5, 5, .05, z5), 0);
	for (int i = 1; i < 5; i++)
		assert_true(z5[i] < z5[i - 1]);
	assert_true(z5[4] > Z975 && z5[4] < 2.1);
	assert_int_equal(bb_ab_gs_bounds(t2, 2, 0, z2), -EINVAL);
	t2[0] = 1;
	assert_int_equal(bb_ab_gs_bounds(t2, 2, .05, z2), -EINVAL);
}

/* A sequential comparison: the repeated CI is dbar +- c s/sqrt(n) with
 * the plan's t boundary, labelled as such; it excludes 0 exactly when
 * p <= alpha; off a look the job goes on. */
static void test_seq_compare(void **state)
{
	struct bb_ab_seq *seq;
	struct bb_ab_params p;
	struct bb_ab_result r;
	double d[24], a[24], b[24], mean = 0, sd = 0, lab_se;
	char lab[64], meth[128];
	bool more;

	(void)state;
	assert_int_equal(bb_ab_seq_create(&seq, 12, 24, .95), 0);
	assert_int_equal(bb_ab_seq_looks(seq), 13);
	assert_int_equal(bb_ab_seq_look_n(seq, 0), 12);
	assert_int_equal(bb_ab_seq_look_n(seq, 12), 24);
	for (int i = 0; i < 24; i++)
		d[i] = 0.004 + 0.01 * sin(i * 1.7);
	make_pairs(d, 24, a, b);
	params(&p, true);
	p.seq = seq;
	for (size_t n = 12; n <= 24; n++) {
		assert_int_equal(bb_ab_compare(a, n, b, n, &p, &r), 0);
		assert_int_equal(r.design, BB_AB_DESIGN_SEQUENTIAL);
		assert_true(r.at_look);
		assert_int_equal(r.look, n - 11);
		assert_int_equal((r.ci_lo > 0 || r.ci_hi < 0), r.p_value <= .05);
		assert_true(r.bound > bb_ab_t_isf(.025, (double)n - 1));
	}
	mean = 0;
	for (int i = 0; i < 24; i++)
		mean += d[i] / 24;
	for (int i = 0; i < 24; i++)
		sd += (d[i] - mean) * (d[i] - mean) / 23;
	sd = sqrt(sd);
	lab_se = sd / sqrt(24.0);
	assert_near(r.change, expm1(mean), 1e-12);
	assert_near(r.ci_lo, expm1(mean - r.bound * lab_se), 1e-9);
	assert_near(r.ci_hi, expm1(mean + r.bound * lab_se), 1e-9);
	assert_near(r.ci_level, .95, 0);
	assert_int_equal(bb_ab_ci_label(&r, lab, sizeof(lab)), 0);
	assert_string_equal(lab, "95% sequential CI");
	assert_int_equal(bb_ab_method_text(&r, meth, sizeof(meth)), 0);
	assert_string_equal(meth, "group-sequential t (O'Brien-Fleming "
				  "spending, 13 looks at 12..24 pairs)");
	assert_false(r.too_few);
	/* settled (within +-1 %): nothing to say of the precision */
	assert_int_equal(r.verdict, BB_AB_NO_CHANGE);
	assert_int_equal(bb_ab_precision_text(&r, meth, sizeof(meth)), 0);
	assert_string_equal(meth, "");
	/* three times the noise: inconclusive at the last look, and what it
	 * would take is beyond the plan; the statement says so */
	{
		double dn[24], an[24], bn[24];
		char pr[320];

		for (int i = 0; i < 24; i++)
			dn[i] = 0.03 * sin(i * 1.7);
		make_pairs(dn, 24, an, bn);
		assert_int_equal(bb_ab_compare(an, 24, bn, 24, &p, &r), 0);
		assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
		assert_int_equal(bb_ab_precision_text(&r, pr, sizeof(pr)), 0);
		print_message("  %s\n", pr);
		assert_non_null(strstr(pr, "too noisy for ±1% with 24 pairs (CI ±"));
		assert_non_null(strstr(pr, "more than its max_repeat (24) allows"));
	}
	/* the plan's confidence must be the comparison's */
	p.confidence = .9;
	assert_int_equal(bb_ab_compare(a, 24, b, 24, &p, &r), -EINVAL);
	bb_ab_seq_free(seq);

	/* thinned looks: 100 spread over 12..1000; between looks, on */
	assert_int_equal(bb_ab_seq_create(&seq, 12, 1000, .95), 0);
	assert_int_equal(bb_ab_seq_looks(seq), BB_AB_SEQ_MAX_LOOKS);
	assert_int_equal(bb_ab_seq_look_n(seq, 99), 1000);
	assert_true(bb_ab_seq_look_n(seq, 1) > 13);
	params(&p, true);
	p.seq = seq;
	assert_int_equal(bb_ab_compare(a, 13, b, 13, &p, &r), 0);
	assert_false(r.at_look);
	assert_int_equal(bb_ab_want_more(&r, 1000, &more), 0);
	assert_true(more);
	bb_ab_seq_free(seq);
}

/* ---- where the noise is --------------------------------------------- */

/* A and B over 6 rounds: round drift r = +-5% (alternating), run noise
 * e = +-1% with opposite signs for A and B in each round, per-second
 * variance 0.0004 over 4 s (adds 0.0001 to a run's variance).  By hand
 * (values centred per variant: y = r_i +- e - mean): within each round
 * the two runs differ by 2e = 0.02: pooled variance (0.01^2 * 2)/1 per
 * round = 2e-4; minus 1e-4 -> run SD 0.01.  Round means +-0.05 ->
 * variance 6 * 0.0025 / 5 = 0.003, minus 2e-4/2 -> 0.0029, SD 0.05385.
 * One boot: not measured. */
static void test_noise_components(void **state)
{
	struct bb_ab_noise_run runs[12];
	struct bb_ab_noise nz;

	(void)state;
	for (unsigned i = 0; i < 6; i++) {
		double r = i % 2 ? 0.05 : -0.05, e = 0.01 * (i < 3 ? 1 : -1);

		runs[2 * i] = (struct bb_ab_noise_run){ 0, 0, i, 1e5 * exp(r + e),
							 0.0004, 4 };
		runs[2 * i + 1] = (struct bb_ab_noise_run){ 1, 0, i,
							     2e5 * exp(r - e),
							     0.0004, 4 };
	}
	assert_int_equal(bb_ab_noise(runs, 12, &nz), 0);
	assert_false(nz.level[BB_AB_NOISE_BOOT].measured);
	assert_true(nz.level[BB_AB_NOISE_RUN].measured);
	assert_near(nz.level[BB_AB_NOISE_RUN].sd, 0.01, 1e-12);
	assert_int_equal(nz.level[BB_AB_NOISE_RUN].df, 6);
	assert_near(nz.level[BB_AB_NOISE_SECOND].sd, 0.01, 1e-12);
	assert_near(nz.level[BB_AB_NOISE_ROUND].sd, sqrt(0.0029), 1e-12);
	assert_true(nz.have_dominant);
	assert_int_equal(nz.dominant, BB_AB_NOISE_ROUND);
	/* two boots of 3 rounds, boot means differ by +-0.1: measured */
	for (unsigned i = 0; i < 12; i++) {
		runs[i].boot = runs[i].round / 3;
		runs[i].value *= exp(runs[i].boot ? 0.1 : -0.1);
	}
	assert_int_equal(bb_ab_noise(runs, 12, &nz), 0);
	assert_true(nz.level[BB_AB_NOISE_BOOT].measured);
	assert_int_equal(nz.dominant, BB_AB_NOISE_BOOT);
	assert_string_equal(bb_ab_noise_advice(&nz), "add boots, not runs");
	/* no per-second data: run level alone, "add runs, not seconds" */
	for (unsigned i = 0; i < 12; i++) {
		runs[i].sec_var = NAN;
		runs[i].boot = 0;
		runs[i].value = (runs[i].variant ? 2e5 : 1e5) *
				exp(0.02 * ((i * 7) % 5) - 0.04);
	}
	assert_int_equal(bb_ab_noise(runs, 12, &nz), 0);
	assert_false(nz.level[BB_AB_NOISE_SECOND].measured);
	assert_int_equal(nz.dominant, BB_AB_NOISE_RUN);
	assert_string_equal(bb_ab_noise_advice(&nz), "add runs, not seconds");
	runs[0].value = 0;
	assert_int_equal(bb_ab_noise(runs, 12, &nz), -EINVAL);
}

/* ---- errors ---------------------------------------------------------- */

/* ---- jobs (boots) as the unit ------------------------------------------ */

/* Three runs per unit, x/1.01, x, x*1.01: each unit's level is log x
 * exactly (symmetric), so the levels are known; the pooled t by hand
 * (python, t quantile 2.776445 at 4 df, p by numeric integration). */
static void units_of(const double *x, size_t k, double (*runs)[3],
		     struct bb_ab_unit *u)
{
	for (size_t i = 0; i < k; i++) {
		runs[i][0] = x[i] / 1.01;
		runs[i][1] = x[i];
		runs[i][2] = x[i] * 1.01;
		u[i] = (struct bb_ab_unit){ runs[i], 3 };
	}
}

static void test_units_hand(void **state)
{
	const double xa[] = { 100, 102, 98 }, xb[] = { 105, 107, 103 };
	double ra[3][3], rb[3][3];
	struct bb_ab_unit ua[3], ub[3];
	struct bb_ab_params p;
	struct bb_ab_result r;
	char line[512];

	(void)state;
	units_of(xa, 3, ra, ua);
	units_of(xb, 3, rb, ub);
	bb_ab_params_init(&p);
	assert_int_equal(bb_ab_compare_units(ua, 3, ub, 3, &p, &r), 0);
	assert_int_equal(r.method, BB_AB_METHOD_UNITS);
	assert_true(fabs(r.change - 0.05001302091997599) < 1e-12);
	assert_true(fabs(r.ci_lo - 0.0045336445837239605) < 1e-9);
	assert_true(fabs(r.ci_hi - 0.09755143597841195) < 1e-9);
	assert_true(fabs(r.p_value - 0.037655675753638665) < 1e-6);
	assert_true(fabs(r.unit_sd - 0.01953241641650156) < 1e-12);
	assert_true(fabs(r.within_sd - 0.009950330853168092) < 1e-12);
	assert_true(r.df == 4 && r.units_a == 3 && r.units_b == 3);
	assert_true(r.runs_a == 9 && r.runs_b == 9);
	assert_false(r.too_few);
	assert_true(fabs(r.ci_level - 0.95) < 1e-12);
	assert_int_equal(r.verdict, BB_AB_FASTER);
	assert_int_equal(bb_ab_precision_text(&r, line, sizeof(line)), 0);
	assert_string_equal(line, ""); /* settled */
	assert_int_equal(bb_ab_format(&r, line, sizeof(line)), 0);
	print_message("  %s\n", line);
	assert_non_null(strstr(line, "B is 5.0% faster than A"));
	assert_non_null(strstr(line, "n=3+3 jobs"));
	assert_int_equal(bb_ab_method_text(&r, line, sizeof(line)), 0);
	assert_non_null(strstr(line, "job as a random effect"));
	assert_non_null(strstr(line, "df 4"));
	/* the same with boots: the wording follows the unit */
	p.unit = BB_AB_UNIT_BOOT;
	assert_int_equal(bb_ab_compare_units(ua, 3, ub, 3, &p, &r), 0);
	assert_int_equal(bb_ab_format(&r, line, sizeof(line)), 0);
	assert_non_null(strstr(line, "n=3+3 boots"));
	/* the runs within a unit do not count as replicates: the same
	 * levels with 300 runs per unit give the same interval */
	{
		static double big[6][300];
		struct bb_ab_unit ba[3], bb[3];

		for (size_t i = 0; i < 3; i++) {
			for (size_t k = 0; k < 300; k++) {
				double f = k % 3 == 0 ? 1 / 1.01 : k % 3 == 1 ? 1 : 1.01;

				big[i][k] = xa[i] * f;
				big[3 + i][k] = xb[i] * f;
			}
			ba[i] = (struct bb_ab_unit){ big[i], 300 };
			bb[i] = (struct bb_ab_unit){ big[3 + i], 300 };
		}
		p.unit = BB_AB_UNIT_JOB;
		assert_int_equal(bb_ab_compare_units(ba, 3, bb, 3, &p, &r), 0);
		assert_true(fabs(r.ci_lo - 0.0045336445837239605) < 1e-9);
		assert_true(fabs(r.ci_hi - 0.09755143597841195) < 1e-9);
	}
}

/* One unit a side: never a verdict, whatever the runs say; what it takes
 * from a planning SD; the wording says why. */
static void test_units_one_each(void **state)
{
	const double xa[] = { 100 }, xb[] = { 110 };
	double ra[1][3], rb[1][3];
	struct bb_ab_unit ua[1], ub[1];
	struct bb_ab_params p;
	struct bb_ab_result r;
	char line[512];
	unsigned more_far;

	(void)state;
	units_of(xa, 1, ra, ua);
	units_of(xb, 1, rb, ub);
	bb_ab_params_init(&p);
	assert_int_equal(bb_ab_compare_units(ua, 1, ub, 1, &p, &r), 0);
	assert_true(r.too_few);
	assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
	assert_true(fabs(r.change - 0.1) < 1e-12);
	assert_true(isnan(r.ci_lo) && isnan(r.ci_hi));
	/* planning SD: the 10 % difference taken as noise, |d| / sqrt 2 */
	assert_true(fabs(r.planning_sd - log(1.1) / M_SQRT2) < 1e-12);
	assert_true(r.more_needed >= 1);
	assert_int_equal(r.units_needed, r.more_needed + 1);
	assert_int_equal(bb_ab_format(&r, line, sizeof(line)), 0);
	print_message("  %s\n", line);
	assert_non_null(strstr(line, "inconclusive: one job per side"));
	assert_non_null(strstr(line, "more jobs each side needed"));
	assert_int_equal(bb_ab_precision_text(&r, line, sizeof(line)), 0);
	print_message("  %s\n", line);
	assert_non_null(strstr(line, "too noisy for ±1% with one job a side (how much jobs spread is unknown: planned at 7%)"));
	assert_non_null(strstr(line, "about 6 jobs each side (5 more) would settle it"));
	/* by hand: planning SD 6.74 %, target log 1.1 = 9.53 %: k = 6 a side
	 * (t_10 2.228 * 6.74 % * sqrt(2/6) = 8.7 %; k = 5: 2.306 * 6.74 % *
	 * sqrt(2/5) = 9.8 %), 5 more */
	more_far = r.more_needed;
	assert_int_equal(more_far, 5);
	/* two units that hardly differ: the runs' own noise sets the
	 * planning SD (the SE of a 3-run level), and the target is to fit
	 * inside +-1 % (0.8 % left beside the 0.2 % difference) */
	{
		const double xc[] = { 100.2 };
		double rc[1][3];
		struct bb_ab_unit uc[1];

		units_of(xc, 1, rc, uc);
		assert_int_equal(bb_ab_compare_units(ua, 1, uc, 1, &p, &r), 0);
		assert_true(r.too_few);
		assert_true(fabs(r.planning_sd -
				 sqrt(M_PI / 3) * r.within_sd / sqrt(3)) < 1e-15);
		assert_int_equal(bb_ab_format(&r, line, sizeof(line)), 0);
		print_message("  %s\n", line);
		assert_non_null(strstr(line, "CI of ±0.8%"));
		/* by hand: k = 6 a side (t_10 2.228 * 0.59 % * sqrt(2/6) =
		 * 0.76 % <= 0.8 %; k = 5: 2.306 * 0.59 % * sqrt(2/5) = 0.86 %) */
		assert_int_equal(r.more_needed, 5);
	}
	/* one unit against two: the spread comes from the side with two */
	{
		const double xd[] = { 110, 111 };
		double rd[2][3];
		struct bb_ab_unit ud[2];

		units_of(xd, 2, rd, ud);
		assert_int_equal(bb_ab_compare_units(ua, 1, ud, 2, &p, &r), 0);
		assert_false(r.too_few);
		assert_true(r.df == 1);
		assert_true(isfinite(r.ci_lo) && r.ci_lo < r.change);
	}
}

/* A/A units that differ by much more than their runs: the run-level test
 * would call them different, the unit-level one does not. */
static void test_units_vs_runs(void **state)
{
	const double xa[] = { 100, 104 }, xb[] = { 97, 101 };
	double ra[2][3], rb[2][3], pa[6], pb[6];
	struct bb_ab_unit ua[2], ub[2];
	struct bb_ab_params p;
	struct bb_ab_result r;

	(void)state;
	units_of(xa, 2, ra, ua);
	units_of(xb, 2, rb, ub);
	bb_ab_params_init(&p);
	assert_int_equal(bb_ab_compare_units(ua, 2, ub, 2, &p, &r), 0);
	assert_int_equal(r.verdict, BB_AB_INCONCLUSIVE);
	assert_true(r.ci_lo < 0 && r.ci_hi > 0);
	assert_true(r.more_needed >= 1);
	memcpy(pa, ra, sizeof(pa));
	memcpy(pb, rb, sizeof(pb));
	p.paired = false;
	assert_int_equal(bb_ab_compare(pa, 6, pb, 6, &p, &r), 0);
	assert_true(r.p_value < 0.2); /* the runs alone look far apart */
}

static void test_units_errors(void **state)
{
	double v[2] = { 1, 2 }, bad[2] = { 1, 0 };
	struct bb_ab_unit u[1] = { { v, 2 } }, ub[1] = { { bad, 2 } };
	struct bb_ab_unit empty[1] = { { v, 0 } };
	struct bb_ab_params p;
	struct bb_ab_result r;
	struct bb_ab_seq *seq = NULL;

	(void)state;
	bb_ab_params_init(&p);
	assert_int_equal(bb_ab_compare_units(NULL, 1, u, 1, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare_units(u, 0, u, 1, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare_units(u, 1, ub, 1, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare_units(u, 1, empty, 1, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_seq_create(&seq, 4, 8, 0.95), 0);
	p.seq = seq;
	assert_int_equal(bb_ab_compare_units(u, 1, u, 1, &p, &r), -EINVAL);
	bb_ab_seq_free(seq);
}

static void test_errors(void **state)
{
	const double a[3] = { 1, 2, 3 }, bad0[3] = { 1, 0, 3 },
		     badneg[3] = { 1, -2, 3 }, badnan[3] = { 1, NAN, 3 };
	struct bb_ab_params p;
	struct bb_ab_result r;
	char small[8];
	double x, y, z;

	(void)state;
	params(&p, true);
	assert_int_equal(bb_ab_compare(a, 1, a, 1, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare(a, 3, bad0, 3, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare(badneg, 3, a, 3, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare(a, 3, badnan, 3, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_compare(a, 3, a, 2, &p, &r), -EINVAL); /* paired */
	assert_int_equal(bb_ab_compare(NULL, 3, a, 3, &p, &r), -EINVAL);
	p.confidence = 1.0;
	assert_int_equal(bb_ab_compare(a, 3, a, 3, &p, &r), -EINVAL);
	params(&p, true);
	p.min_effect = -0.01;
	assert_int_equal(bb_ab_compare(a, 3, a, 3, &p, &r), -EINVAL);
	params(&p, true);
	p.paired = false;
	p.resamples = 10;
	assert_int_equal(bb_ab_compare(a, 3, a, 3, &p, &r), -EINVAL);
	assert_int_equal(bb_ab_hodges_lehmann(a, 1, .95, &x, &y, &z, NULL), -EINVAL);
	assert_int_equal(bb_ab_bootstrap_ratio(a, 3, bad0, 3, .95, 100, 1, &x, &y), -EINVAL);
	params(&p, true);
	assert_int_equal(bb_ab_compare(a, 3, a, 3, &p, &r), 0);
	assert_int_equal(bb_ab_format(&r, small, sizeof(small)), -ENOSPC);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_int_equal(bb_ab_format(&r, NULL, 0), -EINVAL);
	assert_string_equal(bb_ab_verdict_name(BB_AB_NO_CHANGE), "no_change");
}

/* The worst verdict of several: slower > faster > inconclusive (or a
 * failed comparison) > no change. */
static void test_verdict_worst(void **state)
{
	const enum bb_ab_verdict nc_f_s[3] = { BB_AB_NO_CHANGE, BB_AB_FASTER,
					       BB_AB_SLOWER };
	const enum bb_ab_verdict nc_i_f[3] = { BB_AB_NO_CHANGE,
					       BB_AB_INCONCLUSIVE,
					       BB_AB_FASTER };
	const enum bb_ab_verdict nc_i[2] = { BB_AB_NO_CHANGE,
					     BB_AB_INCONCLUSIVE };
	const enum bb_ab_verdict nc[2] = { BB_AB_NO_CHANGE, BB_AB_NO_CHANGE };

	(void)state;
	assert_int_equal(bb_ab_verdict_worst(nc_f_s, 3, 0), BB_AB_SLOWER);
	assert_int_equal(bb_ab_verdict_worst(nc_i_f, 3, 0), BB_AB_FASTER);
	assert_int_equal(bb_ab_verdict_worst(nc_i, 2, 0), BB_AB_INCONCLUSIVE);
	assert_int_equal(bb_ab_verdict_worst(nc, 2, 0), BB_AB_NO_CHANGE);
	assert_int_equal(bb_ab_verdict_worst(nc, 2, 1), BB_AB_INCONCLUSIVE);
	assert_int_equal(bb_ab_verdict_worst(NULL, 0, 0), BB_AB_NO_CHANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_hand),
		cmocka_unit_test(test_units_hand),
		cmocka_unit_test(test_units_one_each),
		cmocka_unit_test(test_units_vs_runs),
		cmocka_unit_test(test_units_errors),
		cmocka_unit_test(test_hl_hand_n3),
		cmocka_unit_test(test_hl_hand_n8),
		cmocka_unit_test(test_hl_k_exact),
		cmocka_unit_test(test_signrank_exact),
		cmocka_unit_test(test_signrank_ties_zeros),
		cmocka_unit_test(test_signrank_normal),
		cmocka_unit_test(test_mannwhitney),
		cmocka_unit_test(test_clearly_faster),
		cmocka_unit_test(test_clearly_slower),
		cmocka_unit_test(test_latency_flips),
		cmocka_unit_test(test_aa_no_change),
		cmocka_unit_test(test_aa_noisy_inconclusive),
		cmocka_unit_test(test_aa_symmetric_never_significant),
		cmocka_unit_test(test_no_change_wins_over_tiny_significant),
		cmocka_unit_test(test_ties_in_compare),
		cmocka_unit_test(test_n2_edge),
		cmocka_unit_test(test_more_capped),
		cmocka_unit_test(test_want_more),
		cmocka_unit_test(test_unpaired_hl2),
		cmocka_unit_test(test_bootstrap_determinism),
		cmocka_unit_test(test_unpaired_aa),
		cmocka_unit_test(test_unpaired_too_few),
		cmocka_unit_test(test_coverage_labels),
		cmocka_unit_test(test_tost_fixed),
		cmocka_unit_test(test_holm_bh_table),
		cmocka_unit_test(test_family_holm),
		cmocka_unit_test(test_student_t),
		cmocka_unit_test(test_gs_bounds),
		cmocka_unit_test(test_seq_compare),
		cmocka_unit_test(test_noise_components),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_verdict_worst),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
