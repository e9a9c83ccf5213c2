// SPDX-License-Identifier: GPL-2.0-only
/* abstats.c - A/B statistics (see abstats.h for the methods). */
#include <biobench/abstats.h>

#include "util/rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Log-ratios closer than this (absolute, log scale) are ties; smaller in
 * magnitude is a zero difference.  1e-12 in log is 1e-10 %. */
#define BB_AB_LOG_TIE 1e-12

/* ---- small helpers -------------------------------------------------- */

static int bb_ab_cmp_double(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;

	return (x > y) - (x < y);
}

/* Quantile of sorted x[0..n-1], linear interpolation (Hyndman-Fan 7). */
static double bb_ab_quantile_sorted(const double *x, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);

	if (lo >= n - 1)
		return x[n - 1];
	return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}

static double bb_ab_sd(const double *x, size_t n)
{
	double mean = 0, ss = 0;

	if (n < 2)
		return 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - mean) * (x[i] - mean);
	return sqrt(ss / (double)(n - 1));
}

/* Upper tail of the standard normal, 1 - Phi(z). */
static double bb_ab_norm_sf(double z)
{
	return 0.5 * erfc(z / M_SQRT2);
}

/* Inverse of the standard normal CDF: Wichura's AS 241 (PPND16), relative
 * accuracy about 1e-16.  0 < p < 1. */
static double bb_ab_norm_ppf(double p)
{
	double q = p - 0.5, r, x;

	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * (((((((r * 2509.0809287301226727 +
				  33430.575583588128105) * r +
				 67265.770927008700853) * r +
				45921.953931549871457) * r +
			       13731.693765509461125) * r +
			      1971.5909503065514427) * r +
			     133.14166789178437745) * r +
			    3.387132872796366608) /
		       (((((((r * 5226.495278852545925 +
			      28729.085735721942674) * r +
			     39307.89580009271061) * r +
			    21213.794301586595867) * r +
			   5394.1960214247511077) * r +
			  687.1870074920579083) * r +
			 42.313330701600911252) * r +
			1.0);
	}
	r = q < 0 ? p : 1.0 - p;
	r = sqrt(-log(r));
	if (r <= 5.0) {
		r -= 1.6;
		x = (((((((r * 7.7454501427834140764e-4 +
			   0.0227238449892691845833) * r +
			  0.24178072517745061177) * r +
			 1.27045825245236838258) * r +
			3.64784832476320460504) * r +
		       5.7694972214606914055) * r +
		      4.6303378461565452959) * r +
		     1.42343711074968357734) /
		    (((((((r * 1.05075007164441684324e-9 +
			   5.475938084995344946e-4) * r +
			  0.0151986665636164571966) * r +
			 0.14810397642748007459) * r +
			0.68976733498510000455) * r +
		       1.6763848301838038494) * r +
		      2.05319162663775882187) * r +
		     1.0);
	} else {
		r -= 5.0;
		x = (((((((r * 2.01033439929228813265e-7 +
			   2.71155556874348757815e-5) * r +
			  0.0012426609473880784386) * r +
			 0.026532189526576123093) * r +
			0.29656057182850489123) * r +
		       1.7848265399172913358) * r +
		      5.4637849111641143699) * r +
		     6.6579046435011037772) /
		    (((((((r * 2.04426310338993978564e-15 +
			   1.4215117583164458887e-7) * r +
			  1.8463183175100546818e-5) * r +
			 7.868691311456132591e-4) * r +
			0.0148753612908506148525) * r +
		       0.13692988092273580531) * r +
		      0.59983220655588793769) * r +
		     1.0);
	}
	return q < 0 ? -x : x;
}

/* Null distribution of the signed-rank statistic with integer scores
 * s[0..n-1]: cnt[t] = number of sign assignments whose positive scores sum
 * to t, t = 0..sum(s).  cnt must hold sum(s)+1 entries. */
static void bb_ab_signrank_counts(const unsigned *s, size_t n, double *cnt,
				  unsigned total)
{
	unsigned top = 0;

	memset(cnt, 0, (total + 1) * sizeof(*cnt));
	cnt[0] = 1;
	for (size_t i = 0; i < n; i++) {
		top += s[i];
		for (unsigned t = top; t >= s[i]; t--) {
			cnt[t] += cnt[t - s[i]];
			if (t == 0)
				break;
		}
	}
}

/* Smallest n at which the most extreme signed-rank outcome reaches
 * p = 2^(1-n) <= alpha. */

/* Smallest n at which the exact signed-rank CI reaches conf: its widest
 * interval (k = 1) has coverage 1 - 2^(1-n). */
static size_t bb_ab_paired_nmin(double alpha)
{
	size_t n = 2;

	while (n < 64 && ldexp(1.0, 1 - (int)n) > alpha)
		n++;
	return n;
}

/* log C(n, k) */
double bb_ab_norm_quantile(double p)
{
	return p > 0 && p < 1 ? bb_ab_norm_ppf(p) : NAN;
}

static double bb_ab_lchoose(double n, double k)
{
	int sg;

	return lgamma_r(n + 1, &sg) - lgamma_r(k + 1, &sg) -
	       lgamma_r(n - k + 1, &sg);
}

/* Smallest k (runs per variant, k + k) at which the exact rank-sum CI
 * reaches conf: its widest interval has coverage 1 - 2/C(2k, k). */
static size_t bb_ab_unpaired_nmin(double alpha)
{
	size_t k = 1;

	while (k < 1000 && 2.0 * exp(-bb_ab_lchoose(2.0 * (double)k,
						     (double)k)) > alpha)
		k++;
	return k;
}

/* ---- Student t ------------------------------------------------------ */

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double bb_ab_betacf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap, h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 500; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < 1e-15)
			break;
	}
	return h;
}

/* Regularized incomplete beta I_x(a, b). */
static double bb_ab_ibeta(double a, double b, double x)
{
	double bt;
	int sg;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	bt = exp(lgamma_r(a + b, &sg) - lgamma_r(a, &sg) - lgamma_r(b, &sg) +
		 a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return bt * bb_ab_betacf(a, b, x) / a;
	return 1 - bt * bb_ab_betacf(b, a, 1 - x) / b;
}

double bb_ab_t_sf(double t, double df)
{
	double p;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	p = 0.5 * bb_ab_ibeta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? p : 1 - p;
}

double bb_ab_t_isf(double q, double df)
{
	double lo = 0, hi;

	if (!(q > 0 && q < 1) || !(df > 0))
		return NAN;
	if (q > 0.5)
		return -bb_ab_t_isf(1 - q, df);
	if (q == 0.5)
		return 0;
	hi = bb_max(1.0, -bb_ab_norm_ppf(q)); /* t is wider than z */
	while (bb_ab_t_sf(hi, df) > q && hi < 1e300)
		hi *= 2;
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double mid = 0.5 * (lo + hi);

		if (bb_ab_t_sf(mid, df) > q)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}
/* ---- descriptive statistics ----------------------------------------- */

int bb_ab_summarize(const double *x, size_t n, struct bb_ab_summary *s)
{
	double *v = NULL;
	double sum = 0;
	int ret = 0;

	if (!x || !s || n < 1)
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, x, n * sizeof(*v));
	qsort(v, n, sizeof(*v), bb_ab_cmp_double);

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->min = v[0];
	s->max = v[n - 1];
	s->median = bb_ab_quantile_sorted(v, n, 0.5);
	s->q1 = bb_ab_quantile_sorted(v, n, 0.25);
	s->q3 = bb_ab_quantile_sorted(v, n, 0.75);
	s->iqr = s->q3 - s->q1;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	s->mean = sum / (double)n;
	s->stddev = bb_ab_sd(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - s->median);
	qsort(v, n, sizeof(*v), bb_ab_cmp_double);
	s->mad = bb_ab_quantile_sorted(v, n, 0.5);

	free(v);
	return ret;
}

/* ---- Hodges-Lehmann with the signed-rank CI ------------------------- */

/* The normal approximation of a rank CI's index: m ordered values
 * (Walsh averages, differences), the statistic's null SD sd: k =
 * floor(m/2 - z sd + 1/2), and its coverage. */
static size_t bb_ab_normal_k(size_t m, double sd, double alpha,
			     double *level)
{
	double mu = (double)m / 2.0;
	double kk = floor(mu - bb_ab_norm_ppf(1.0 - alpha / 2) * sd + 0.5);
	size_t k = kk < 1 ? 1 : (size_t)kk;

	*level = 1.0 - 2.0 * (1.0 - bb_ab_norm_sf(((double)k - 0.5 - mu) / sd));
	return k;
}

/* Index k (1-based) of the lower CI end among the M sorted Walsh
 * averages, and the achieved coverage. */
static void bb_ab_signrank_k(size_t n, double alpha, size_t *k_out,
			     double *level)
{
	size_t m = n * (n + 1) / 2;
	size_t k = 0;

	if (n <= BB_AB_EXACT_MAX_N) {
		unsigned s[BB_AB_EXACT_MAX_N];
		double cnt[BB_AB_EXACT_MAX_N * (BB_AB_EXACT_MAX_N + 1) / 2 + 1];
		double total = ldexp(1.0, (int)n), cum = 0, cum_k = 0;

		for (size_t i = 0; i < n; i++)
			s[i] = (unsigned)(i + 1);
		bb_ab_signrank_counts(s, n, cnt, (unsigned)m);
		/* k-1 = largest t with P(T+ <= t) <= alpha/2 */
		for (size_t t = 0; t <= m; t++) {
			cum += cnt[t];
			if (cum / total > alpha / 2)
				break;
			k = t + 1;
			cum_k = cum;
		}
		if (k == 0) { /* too few: widest CI, coverage below target */
			k = 1;
			cum_k = cnt[0];
		}
		*level = 1.0 - 2.0 * cum_k / total;
	} else {
		k = bb_ab_normal_k(m, sqrt((double)n * (double)(n + 1) *
					   (double)(2 * n + 1) / 24.0),
				   alpha, level);
	}
	if (k > (m + 1) / 2)
		k = (m + 1) / 2;
	*k_out = k;
}

int bb_ab_hodges_lehmann(const double *d, size_t n, double conf,
			 double *est, double *lo, double *hi, double *level)
{
	double *w = NULL;
	size_t m, k, idx = 0;
	double lvl;

	if (!d || !est || !lo || !hi || n < 2 || !(conf > 0 && conf < 1))
		return -EINVAL;
	if (n > BB_AB_MAX_N)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(d[i]))
			return -EINVAL;
	m = n * (n + 1) / 2;
	w = malloc(m * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[idx++] = (d[i] + d[j]) / 2.0;
	qsort(w, m, sizeof(*w), bb_ab_cmp_double);

	*est = (m & 1) ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2.0;
	bb_ab_signrank_k(n, 1.0 - conf, &k, &lvl);
	*lo = w[k - 1];
	*hi = w[m - k];
	if (level)
		*level = lvl;
	free(w);
	return 0;
}


/* ---- Wilcoxon signed-rank test -------------------------------------- */

struct bb_ab_absval {
	double a;
	int pos; /* 1: the difference was > 0 */
};

static int bb_ab_cmp_absval(const void *pa, const void *pb)
{
	const struct bb_ab_absval *x = pa, *y = pb;

	return (x->a > y->a) - (x->a < y->a);
}

/* p of an observed statistic from the counts at or below (le) and at or
 * above (ge) it, out of all. */
static double bb_ab_p_from_tails(double le, double ge, double all,
				 enum bb_ab_alt alt)
{
	switch (alt) {
	case BB_AB_GREATER:
		return bb_min(1.0, ge / all);
	case BB_AB_LESS:
		return bb_min(1.0, le / all);
	case BB_AB_TWO_SIDED:
		break;
	}
	return bb_min(1.0, 2.0 * bb_min(le, ge) / all);
}

/* Normal approximation of a rank statistic t with mean mu and variance
 * var, continuity corrected by 1/2. */
static double bb_ab_p_normal(double t, double mu, double var,
			     enum bb_ab_alt alt)
{
	double sd = sqrt(var), z;

	if (!(var > 0))
		return 1.0;
	switch (alt) {
	case BB_AB_GREATER:
		return bb_ab_norm_sf((t - mu - 0.5) / sd);
	case BB_AB_LESS:
		return bb_ab_norm_sf((mu - t - 0.5) / sd);
	case BB_AB_TWO_SIDED:
		break;
	}
	z = (fabs(t - mu) - 0.5) / sd;
	if (z < 0)
		z = 0;
	return bb_min(1.0, 2.0 * bb_ab_norm_sf(z));
}

int bb_ab_signrank_test(const double *d, size_t n, double shift,
			enum bb_ab_alt alt, double *p)
{
	struct bb_ab_absval *v = NULL;
	unsigned *s2 = NULL;
	double *cnt = NULL;
	size_t nz = 0;
	double t2 = 0, ties = 0; /* t2: sum of doubled ranks of d > 0 */
	int ret = 0;

	if (!d || !p || n < 1 || !isfinite(shift))
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	s2 = malloc(n * sizeof(*s2));
	if (!v || !s2) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		double x = d[i] - shift;

		if (!isfinite(d[i])) {
			ret = -EINVAL;
			goto out;
		}
		if (fabs(x) <= BB_AB_LOG_TIE)
			continue; /* zero difference: dropped */
		v[nz].a = fabs(x);
		v[nz].pos = x > 0;
		nz++;
	}
	if (nz == 0) {
		*p = 1.0;
		goto out;
	}
	qsort(v, nz, sizeof(*v), bb_ab_cmp_absval);
	/* midranks, doubled so that they are integers: ranks i+1..j+1 tied
	 * get (i+1 + j+1)/2 each, doubled i+j+2 */
	for (size_t i = 0; i < nz;) {
		size_t j = i;
		double t;

		while (j + 1 < nz && v[j + 1].a - v[j].a <= BB_AB_LOG_TIE)
			j++;
		for (size_t r = i; r <= j; r++) {
			s2[r] = (unsigned)(i + j + 2);
			if (v[r].pos)
				t2 += s2[r];
		}
		t = (double)(j - i + 1);
		ties += t * t * t - t;
		i = j + 1;
	}

	if (nz <= BB_AB_EXACT_MAX_N) {
		/* exact permutation distribution, conditional on the ties */
		unsigned total = (unsigned)(nz * (nz + 1));
		double all = ldexp(1.0, (int)nz), le = 0, ge = 0;

		cnt = malloc((total + 1) * sizeof(*cnt));
		if (!cnt) {
			ret = -ENOMEM;
			goto out;
		}
		bb_ab_signrank_counts(s2, nz, cnt, total);
		for (unsigned t = 0; t <= total; t++) {
			if ((double)t <= t2)
				le += cnt[t];
			if ((double)t >= t2)
				ge += cnt[t];
		}
		*p = bb_ab_p_from_tails(le, ge, all, alt);
	} else {
		double nn = (double)nz;
		double mu = nn * (nn + 1) / 4.0;
		double var = nn * (nn + 1) * (2 * nn + 1) / 24.0 - ties / 48.0;

		*p = bb_ab_p_normal(t2 / 2.0, mu, var, alt);
	}
out:
	free(cnt);
	free(s2);
	free(v);
	return ret;
}

int bb_ab_signrank_p(const double *d, size_t n, double *p)
{
	return bb_ab_signrank_test(d, n, 0, BB_AB_TWO_SIDED, p);
}

/* ---- Wilcoxon-Mann-Whitney rank-sum test ------------------------------ */

/* Null distribution of the sum of ny scores drawn without replacement
 * from s[0..n-1] (integers): cnt[t], t = 0..total (total = sum of all s),
 * the number of subsets of size ny with that sum.  cnt holds total+1
 * entries; work is (ny+1)*(total+1) doubles of scratch. */
static void bb_ab_subset_counts(const unsigned *s, size_t n, size_t ny,
				double *work, unsigned total, double *cnt)
{
	size_t w = (size_t)total + 1;
	unsigned top = 0;

	memset(work, 0, (ny + 1) * w * sizeof(*work));
	work[0] = 1;
	for (size_t i = 0; i < n; i++) {
		size_t cmax = bb_min(i + 1, ny);

		top += s[i];
		for (size_t c = cmax; c >= 1; c--) {
			double *dst = work + c * w;
			const double *src = work + (c - 1) * w;

			for (unsigned t = top; t >= s[i]; t--) {
				dst[t] += src[t - s[i]];
				if (t == 0)
					break;
			}
		}
	}
	memcpy(cnt, work + ny * w, w * sizeof(*cnt));
}

struct bb_ab_grpval {
	double v;
	int is_y;
};

static int bb_ab_cmp_grpval(const void *pa, const void *pb)
{
	const struct bb_ab_grpval *x = pa, *y = pb;

	return (x->v > y->v) - (x->v < y->v);
}

int bb_ab_ranksum_test(const double *x, size_t nx, const double *y,
		       size_t ny, double shift, enum bb_ab_alt alt,
		       double *u, double *p)
{
	struct bb_ab_grpval *v = NULL;
	unsigned *s2 = NULL;
	double *work = NULL, *cnt = NULL;
	size_t n = nx + ny;
	double w2 = 0, ties = 0, uy, mu, var;
	int ret = 0;

	if (!x || !y || !p || nx < 1 || ny < 1 || !isfinite(shift))
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	s2 = malloc(n * sizeof(*s2));
	if (!v || !s2) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nx; i++)
		v[i] = (struct bb_ab_grpval){ x[i], 0 };
	for (size_t i = 0; i < ny; i++)
		v[nx + i] = (struct bb_ab_grpval){ y[i] - shift, 1 };
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i].v) || !isfinite(i < nx ? x[i] : y[i - nx])) {
			ret = -EINVAL;
			goto out;
		}
	qsort(v, n, sizeof(*v), bb_ab_cmp_grpval);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double t;

		while (j + 1 < n && v[j + 1].v == v[i].v)
			j++;
		for (size_t r = i; r <= j; r++) {
			s2[r] = (unsigned)(i + j + 2);
			if (v[r].is_y)
				w2 += s2[r];
		}
		t = (double)(j - i + 1);
		ties += t * t * t - t;
		i = j + 1;
	}

	uy = w2 / 2.0 - (double)ny * (double)(ny + 1) / 2.0;
	if (u)
		*u = uy;
	if (nx <= BB_AB_EXACT_MAX_N && ny <= BB_AB_EXACT_MAX_N) {
		unsigned total = (unsigned)(n * (n + 1));
		double le = 0, ge = 0, all = 0;

		work = malloc((ny + 1) * ((size_t)total + 1) * sizeof(*work));
		cnt = malloc(((size_t)total + 1) * sizeof(*cnt));
		if (!work || !cnt) {
			ret = -ENOMEM;
			goto out;
		}
		bb_ab_subset_counts(s2, n, ny, work, total, cnt);
		for (unsigned t = 0; t <= total; t++) {
			all += cnt[t];
			if ((double)t <= w2)
				le += cnt[t];
			if ((double)t >= w2)
				ge += cnt[t];
		}
		*p = bb_ab_p_from_tails(le, ge, all, alt);
	} else {
		mu = (double)nx * (double)ny / 2.0;
		var = (double)nx * (double)ny / 12.0 *
		      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
		*p = bb_ab_p_normal(uy, mu, var, alt);
	}
out:
	free(cnt);
	free(work);
	free(s2);
	free(v);
	return ret;
}

int bb_ab_mannwhitney_p(const double *x, size_t nx, const double *y,
			size_t ny, double *u, double *p)
{
	return bb_ab_ranksum_test(x, nx, y, ny, 0, BB_AB_TWO_SIDED, u, p);
}

/* ---- two-sample Hodges-Lehmann with the rank-sum CI ----------------- */

/* Index k (1-based) of the lower CI end among the nx*ny sorted
 * differences, and the real coverage. */
static int bb_ab_ranksum_k(size_t nx, size_t ny, double alpha, size_t *k_out,
			   double *level)
{
	size_t m = nx * ny, k;

	if (nx <= BB_AB_EXACT_MAX_N && ny <= BB_AB_EXACT_MAX_N) {
		size_t n = nx + ny;
		unsigned s[2 * BB_AB_EXACT_MAX_N];
		unsigned total = (unsigned)(n * (n + 1) / 2);
		unsigned base = (unsigned)(ny * (ny + 1) / 2); /* W at U = 0 */
		double *work, *cnt, all = 0, cum = 0, cum_k = 0;

		for (size_t i = 0; i < n; i++)
			s[i] = (unsigned)(i + 1);
		work = malloc((ny + 1) * ((size_t)total + 1) * sizeof(*work));
		cnt = malloc(((size_t)total + 1) * sizeof(*cnt));
		if (!work || !cnt) {
			free(work);
			free(cnt);
			return -ENOMEM;
		}
		bb_ab_subset_counts(s, n, ny, work, total, cnt);
		for (unsigned t = 0; t <= total; t++)
			all += cnt[t];
		/* k - 1 = the largest u with P(U <= u) <= alpha/2 */
		k = 0;
		for (unsigned uu = 0; base + uu <= total; uu++) {
			cum += cnt[base + uu];
			if (cum > alpha / 2 * all)
				break;
			k = uu + 1;
			cum_k = cum;
		}
		if (k == 0) { /* too few: the widest interval */
			k = 1;
			cum_k = cnt[base];
		}
		*level = 1.0 - 2.0 * cum_k / all;
		free(work);
		free(cnt);
	} else {
		k = bb_ab_normal_k(m, sqrt((double)m * (double)(nx + ny + 1) /
					   12.0),
				   alpha, level);
	}
	if (k > (m + 1) / 2)
		k = (m + 1) / 2;
	*k_out = k;
	return 0;
}

int bb_ab_hodges_lehmann2(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, double *est, double *lo,
			  double *hi, double *level)
{
	double *w, lvl;
	size_t m, k, idx = 0;
	int ret;

	if (!x || !y || !est || !lo || !hi || nx < 1 || ny < 1 ||
	    !(conf > 0 && conf < 1))
		return -EINVAL;
	if (nx > BB_AB_MAX_N || ny > BB_AB_MAX_N)
		return -E2BIG;
	for (size_t i = 0; i < nx; i++)
		if (!isfinite(x[i]))
			return -EINVAL;
	for (size_t i = 0; i < ny; i++)
		if (!isfinite(y[i]))
			return -EINVAL;
	m = nx * ny;
	w = malloc(m * sizeof(*w));
	if (!w)
		return -ENOMEM;
	for (size_t j = 0; j < ny; j++)
		for (size_t i = 0; i < nx; i++)
			w[idx++] = y[j] - x[i];
	qsort(w, m, sizeof(*w), bb_ab_cmp_double);
	*est = (m & 1) ? w[m / 2] : (w[m / 2 - 1] + w[m / 2]) / 2.0;
	ret = bb_ab_ranksum_k(nx, ny, 1.0 - conf, &k, &lvl);
	if (!ret) {
		*lo = w[k - 1];
		*hi = w[m - k];
		if (level)
			*level = lvl;
	}
	free(w);
	return ret;
}

/* ---- group-sequential boundaries ------------------------------------ */

/* O'Brien-Fleming-type spending (Lan-DeMets), two-sided alpha at
 * information fraction t. */
static double bb_ab_obf_spent(double t, double alpha)
{
	if (t >= 1)
		return alpha;
	if (!(t > 0))
		return 0;
	return 2.0 * bb_ab_norm_sf(bb_ab_norm_ppf(1.0 - alpha / 2) / sqrt(t));
}

/* The recursion (see abstats.h): info[0..k-1] increasing (any unit),
 * cum[i] the alpha spent up to look i; z[i] the two-sided boundary of
 * look i on the z scale.  The score S (variance = info) is kept as a
 * symmetric density g on the half-grid s_j = j h, j >= 0, h = sqrt(the
 * smallest information step) / 6, piecewise linear between the nodes:
 * the boundary b solves (exactly for that density) 2 * the mass beyond b
 * = the alpha spent at the look, and the next look's density is the
 * trapezoidal rule of the convolution of g on [-b, b] with the normal
 * density of the step (the cut segment [s_jc, b] with its own end
 * point). */
static double bb_ab_phi(double x, double sd)
{
	return exp(-0.5 * (x / sd) * (x / sd)) / (sd * sqrt(2 * M_PI));
}

/* g'(s_j) by central differences (0 at the centre: g is even). */
static double bb_ab_dg(const double *g, size_t j, double h)
{
	return j ? (g[j + 1] - g[j - 1]) / (2 * h) : 0;
}

static int bb_ab_gs_core(const double *info, size_t k, const double *cum,
			 double *z)
{
	double dmin = info[0], h, prev = 0;
	double *g = NULL, *gn = NULL, *ker = NULL, *cm = NULL;
	size_t nodes, jmax, kmax = 0;
	int ret = 0;

	for (size_t i = 1; i < k; i++) {
		if (!(info[i] > info[i - 1]))
			return -EINVAL;
		dmin = bb_min(dmin, info[i] - info[i - 1]);
	}
	h = sqrt(dmin) / 6.0;
	nodes = (size_t)ceil(8.5 * sqrt(info[k - 1]) / h) + 3;
	for (size_t i = 1; i < k; i++)
		kmax = bb_max(kmax, (size_t)ceil(8.5 * sqrt(info[i] - info[i - 1]) / h) + 1);
	g = calloc(nodes + 1, sizeof(*g));
	gn = calloc(nodes + 1, sizeof(*gn));
	cm = calloc(nodes + 1, sizeof(*cm));
	ker = calloc(kmax + 1, sizeof(*ker));
	if (!g || !gn || !cm || !ker) {
		ret = -ENOMEM;
		goto out;
	}
	/* the first look: S ~ N(0, info[0]) */
	jmax = bb_min(nodes - 1, (size_t)ceil(8.5 * sqrt(info[0]) / h));
	for (size_t j = 0; j <= jmax; j++)
		g[j] = bb_ab_phi(j * h, sqrt(info[0]));
	g[jmax + 1] = 0;
	for (size_t i = 0; i < k; i++) {
		double spend = cum[i] - prev, total, b, gb = 0, delta = 0;
		size_t jc;

		/* cm[j] = mass of [0, s_j] (trapezoids) */
		cm[0] = 0;
		for (size_t j = 1; j <= jmax + 1; j++)
			cm[j] = cm[j - 1] + h * (g[j - 1] + g[j]) / 2;
		total = 2 * cm[jmax + 1];
		if (spend <= 1e-15) {
			b = INFINITY;
			jc = jmax + 1;
		} else if (spend >= total) {
			b = 0;
			jc = 0;
		} else {
			/* half the inner mass: m = (total - spend) / 2.  The
			 * mass of [0, x] is the trapezoids' with the
			 * Euler-Maclaurin end term -h^2/12 g'(x) (g'(0) = 0). */
			double m = (total - spend) / 2, lo = 0, hi = h, a0, a1;
			double d0, d1;

			jc = 0;
			while (jc < jmax && cm[jc + 1] - h * h / 12 *
						   bb_ab_dg(g, jc + 1, h) < m)
				jc++;
			a0 = g[jc];
			a1 = (g[jc + 1] - g[jc]) / h;
			d0 = bb_ab_dg(g, jc, h);
			d1 = bb_ab_dg(g, jc + 1, h);
			for (int it = 0; it < 60; it++) {
				double d = 0.5 * (lo + hi);
				double gd = d0 + (d1 - d0) * d / h;

				if (cm[jc] + d * a0 + 0.5 * a1 * d * d -
					    h * h / 12 * gd < m)
					lo = d;
				else
					hi = d;
			}
			delta = 0.5 * (lo + hi);
			b = jc * h + delta;
			gb = a0 + a1 * delta;
		}
		z[i] = isinf(b) ? INFINITY : b / sqrt(info[i]);
		prev = cum[i];
		if (i + 1 == k)
			break;
		/* convolve g on [-b, b] with N(0, step) */
		{
			double sd = sqrt(info[i + 1] - info[i]);
			size_t L = (size_t)ceil(8.5 * sd / h);
			size_t last = isinf(b) ? jmax : jc; /* last node inside */
			size_t nj = bb_min(nodes - 2, last + L + 1);

			for (size_t m = 0; m <= L; m++)
				ker[m] = bb_ab_phi(m * h, sd);
			for (size_t t = 0; t <= nj; t++) {
				double acc = 0;
				size_t j0 = t > L ? t - L : 0;
				size_t j1 = bb_min(last, t + L);

				for (size_t j = j0; j <= j1; j++) {
					size_t d = t > j ? t - j : j - t;
					double kv = ker[d], c = h;

					if (t + j <= L)
						kv += ker[t + j]; /* mirror -s_j */
					if (j == 0 || (j == last && !isinf(b)))
						c = h / 2;
					if (j == last && isinf(b))
						c = h / 2;
					acc += c * g[j] * kv;
				}
				if (!isinf(b) && b > 0) {
					/* the cut segment [s_jc, b], and the end
					 * term of the trapezoids on [0, s_jc]:
					 * -h^2/12 f'(s_jc), f = g (K(s-u) + K(s+u)) */
					double s = t * h, u = jc * h;
					double km = bb_ab_phi(s - u, sd);
					double kp = bb_ab_phi(s + u, sd);
					double dk = km * (s - u) / (sd * sd) -
						    kp * (s + u) / (sd * sd);

					acc += delta / 2 *
					       (g[jc] * (km + kp) +
						gb * (bb_ab_phi(s - b, sd) +
						      bb_ab_phi(s + b, sd)));
					if (jc > 0)
						acc -= h * h / 12 *
						       (bb_ab_dg(g, jc, h) * (km + kp) +
							g[jc] * dk);
				}
				gn[t] = acc;
			}
			if (!isinf(b) && b == 0)
				for (size_t t = 0; t <= nj; t++)
					gn[t] = 0;
			for (size_t t = nj + 1; t <= nodes; t++)
				gn[t] = 0;
			jmax = nj;
			memcpy(g, gn, (nodes + 1) * sizeof(*g));
		}
	}
out:
	free(ker);
	free(cm);
	free(gn);
	free(g);
	return ret;
}

int bb_ab_gs_bounds(const double *t, size_t k, double alpha, double *z)
{
	double *cum;
	int ret;

	if (!t || !z || k < 1 || !(alpha > 0 && alpha < 1))
		return -EINVAL;
	for (size_t i = 0; i < k; i++)
		if (!(t[i] > 0 && t[i] <= 1) || (i && !(t[i] > t[i - 1])))
			return -EINVAL;
	cum = malloc(k * sizeof(*cum));
	if (!cum)
		return -ENOMEM;
	for (size_t i = 0; i < k; i++)
		cum[i] = bb_ab_obf_spent(t[i], alpha);
	ret = bb_ab_gs_core(t, k, cum, z);
	free(cum);
	return ret;
}

/* The levels of the p-value grid: 10^(-6 + i/6), i = 0..36, plus alpha
 * and 2 alpha. */
#define BB_AB_SEQ_GRID 39

struct bb_ab_seq {
	double confidence, alpha;
	unsigned nlooks;
	unsigned n[BB_AB_SEQ_MAX_LOOKS];
	double za[BB_AB_SEQ_MAX_LOOKS], z2a[BB_AB_SEQ_MAX_LOOKS];
	double ta[BB_AB_SEQ_MAX_LOOKS], t2a[BB_AB_SEQ_MAX_LOOKS];
	unsigned nlevels;
	double level[BB_AB_SEQ_GRID];
	double zl[BB_AB_SEQ_GRID][BB_AB_SEQ_MAX_LOOKS];
};

/* t boundary with the z boundary's one-sided tail at df */
static double bb_ab_z_to_t(double z, double df)
{
	if (isinf(z))
		return INFINITY;
	return bb_ab_t_isf(bb_ab_norm_sf(z), df);
}

int bb_ab_seq_create(struct bb_ab_seq **out, unsigned first, unsigned last,
		     double confidence)
{
	struct bb_ab_seq *s;
	double info[BB_AB_SEQ_MAX_LOOKS], cum[BB_AB_SEQ_MAX_LOOKS];
	double alpha = 1.0 - confidence;
	unsigned k;
	int ret = 0;

	if (!out || first < 2 || last <= first || last > BB_AB_MAX_N ||
	    !(confidence >= 0.5 && confidence < 1))
		return -EINVAL;
	*out = NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->confidence = confidence;
	s->alpha = alpha;
	k = last - first + 1;
	if (k > BB_AB_SEQ_MAX_LOOKS)
		k = BB_AB_SEQ_MAX_LOOKS;
	s->nlooks = k;
	for (unsigned i = 0; i < k; i++) {
		s->n[i] = k == last - first + 1 ? first + i :
			  first + (unsigned)lround((double)(last - first) * i /
						   (double)(k - 1));
		info[i] = s->n[i];
	}
	/* the grid of levels, sorted, with alpha and 2 alpha exactly */
	for (int i = 0; i <= 36; i++) {
		double l = pow(10.0, -6.0 + i / 6.0);

		if (fabs(l / alpha - 1) > 1e-9 && fabs(l / (2 * alpha) - 1) > 1e-9)
			s->level[s->nlevels++] = l;
	}
	s->level[s->nlevels++] = alpha;
	if (2 * alpha <= 1)
		s->level[s->nlevels++] = 2 * alpha;
	qsort(s->level, s->nlevels, sizeof(double), bb_ab_cmp_double);
	for (unsigned g = 0; g < s->nlevels && !ret; g++) {
		double a = bb_min(s->level[g], 1.0 - 1e-12);

		for (unsigned i = 0; i < k; i++)
			cum[i] = bb_ab_obf_spent(info[i] / last, a);
		ret = bb_ab_gs_core(info, k, cum, s->zl[g]);
		if (ret)
			break;
		if (fabs(s->level[g] - alpha) < 1e-15)
			memcpy(s->za, s->zl[g], k * sizeof(double));
		if (fabs(s->level[g] - 2 * alpha) < 1e-15)
			memcpy(s->z2a, s->zl[g], k * sizeof(double));
	}
	if (ret) {
		free(s);
		return ret;
	}
	if (2 * alpha > 1)
		for (unsigned i = 0; i < k; i++)
			s->z2a[i] = 0;
	for (unsigned i = 0; i < k; i++) {
		s->ta[i] = bb_ab_z_to_t(s->za[i], s->n[i] - 1.0);
		s->t2a[i] = bb_ab_z_to_t(s->z2a[i], s->n[i] - 1.0);
	}
	*out = s;
	return 0;
}

void bb_ab_seq_free(struct bb_ab_seq *s)
{
	free(s);
}

unsigned bb_ab_seq_looks(const struct bb_ab_seq *s)
{
	return s ? s->nlooks : 0;
}

double bb_ab_seq_confidence(const struct bb_ab_seq *s)
{
	return s ? s->confidence : NAN;
}

unsigned bb_ab_seq_look_n(const struct bb_ab_seq *s, unsigned k)
{
	return s && k < s->nlooks ? s->n[k] : 0;
}

/* The look whose boundaries apply at n: the last look at or before n,
 * the first one before it (0-based index). */
static unsigned bb_ab_seq_index(const struct bb_ab_seq *s, size_t n)
{
	unsigned k = 0;

	while (k + 1 < s->nlooks && s->n[k + 1] <= n)
		k++;
	return k;
}

/* Repeated p-value of a t statistic at look k with df: the smallest
 * level whose boundary at look k is crossed (log-linear between grid
 * levels). */
static double bb_ab_seq_p(const struct bb_ab_seq *s, unsigned k, double t,
			  double df)
{
	double p1 = bb_ab_t_sf(fabs(t), df), zeq;

	if (isnan(t))
		return 1.0;
	zeq = p1 < 1e-300 ? 40.0 : -bb_ab_norm_ppf(p1);
	for (unsigned g = 0; g < s->nlevels; g++) {
		double zg = s->zl[g][k], zp, lp, lg;

		if (!(zeq >= zg))
			continue;
		if (g == 0)
			return BB_AB_P_FLOOR;
		zp = s->zl[g - 1][k];
		lg = log(s->level[g]);
		lp = log(s->level[g - 1]);
		if (!isfinite(zp) || !(zp > zg))
			return s->level[g];
		return exp(lg + (lp - lg) * (zeq - zg) / (zp - zg));
	}
	return 1.0;
}

/* One-sided repeated p of t in the direction t > 0. */
static double bb_ab_seq_p1(const struct bb_ab_seq *s, unsigned k, double t,
			   double df)
{
	double p2 = bb_ab_seq_p(s, k, t, df) / 2;

	return t > 0 ? p2 : 1 - p2;
}
/* ---- bootstrap ------------------------------------------------------ */


static double bb_ab_resample_median(struct bb_rng *r, const double *x,
				    size_t n, double *buf)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = x[bb_rng_below(r, n)];
	qsort(buf, n, sizeof(*buf), bb_ab_cmp_double);
	return bb_ab_quantile_sorted(buf, n, 0.5);
}

int bb_ab_bootstrap_ratio(const double *x, size_t nx, const double *y,
			  size_t ny, double conf, unsigned resamples,
			  uint64_t seed, double *lo, double *hi)
{
	struct bb_rng rng;
	double *ratio = NULL, *buf = NULL;
	double alpha = 1.0 - conf;
	int ret = 0;

	if (!x || !y || !lo || !hi || nx < 1 || ny < 1 || resamples < 2 ||
	    !(conf > 0 && conf < 1))
		return -EINVAL;
	for (size_t i = 0; i < nx; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return -EINVAL;
	for (size_t i = 0; i < ny; i++)
		if (!(y[i] > 0) || !isfinite(y[i]))
			return -EINVAL;
	ratio = malloc(resamples * sizeof(*ratio));
	buf = malloc(bb_max(nx, ny) * sizeof(*buf));
	if (!ratio || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	bb_rng_seed(&rng, seed);
	for (unsigned i = 0; i < resamples; i++) {
		double ma = bb_ab_resample_median(&rng, x, nx, buf);
		double mb = bb_ab_resample_median(&rng, y, ny, buf);

		ratio[i] = mb / ma;
	}
	qsort(ratio, resamples, sizeof(*ratio), bb_ab_cmp_double);
	*lo = bb_ab_quantile_sorted(ratio, resamples, alpha / 2) - 1.0;
	*hi = bb_ab_quantile_sorted(ratio, resamples, 1.0 - alpha / 2) - 1.0;
out:
	free(buf);
	free(ratio);
	return ret;
}


/* ---- the comparison ------------------------------------------------- */

void bb_ab_params_init(struct bb_ab_params *p)
{
	memset(p, 0, sizeof(*p));
	p->higher_is_better = true;
	p->paired = true;
	p->min_effect = BB_AB_DEFAULT_MIN_EFFECT;
	p->confidence = BB_AB_DEFAULT_CONFIDENCE;
	p->seed = 1;
	p->resamples = BB_AB_DEFAULT_RESAMPLES;
}

static int bb_ab_check_values(const double *x, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(x[i]) || !(x[i] > 0))
			return -EINVAL;
	return 0;
}

static void bb_ab_set_more(struct bb_ab_result *r, double total)
{
	double more = total - (double)r->n;

	if (more < 1)
		more = 1;
	r->more_open_capped = !(more <= BB_AB_MORE_CAP);
	r->more_open = r->more_open_capped ? BB_AB_MORE_CAP : (unsigned)more;
}

/* The half-width the CI must reach to settle (see abstats.h), and
 * whether that is by excluding 0 (true) or by fitting inside the margin. */
static double bb_ab_target(const struct bb_ab_result *r, bool *exclude)
{
	double mu = log1p(r->min_effect), e = fabs(r->log_est);

	*exclude = e >= mu - e;
	return bb_max(e, mu - e);
}

/* n_total from the spread: coef * (z * s / target)^2, see abstats.h. */
static void bb_ab_more_fixed(struct bb_ab_result *r, double coef, double z)
{
	double s = r->log_sd, total;
	bool excl;
	double target = bb_ab_target(r, &excl);

	if (s <= 0) {
		total = (double)r->n_min;
	} else if (!(target > 0)) {
		total = INFINITY;
	} else {
		total = ceil(coef * (z * s / target) * (z * s / target));
		if (total < (double)r->n_min)
			total = (double)r->n_min;
	}
	bb_ab_set_more(r, total);
}

/* The sequential one: the first planned look whose boundary settles it. */
static void bb_ab_more_seq(struct bb_ab_result *r, const struct bb_ab_seq *s)
{
	double sd = r->log_sd, total = INFINITY;
	bool excl;
	double target = bb_ab_target(r, &excl);

	if (sd <= 0) {
		total = (double)r->n + 1;
	} else if (target > 0) {
		for (unsigned k = 0; k < s->nlooks; k++) {
			double c = excl ? s->ta[k] : s->t2a[k];

			if (s->n[k] > r->n && c * sd / sqrt(s->n[k]) <= target) {
				total = s->n[k];
				break;
			}
		}
		if (isinf(total)) {
			double zk = excl ? s->za[s->nlooks - 1] :
					   s->z2a[s->nlooks - 1];

			total = ceil((zk * sd / target) * (zk * sd / target));
			total = bb_max(total, (double)s->n[s->nlooks - 1] + 1);
		}
	}
	bb_ab_set_more(r, total);
}

/* The verdict from the (adjusted) p-values; see abstats.h. */
static void bb_ab_decide(struct bb_ab_result *r)
{
	double alpha = 1.0 - r->confidence;

	if (r->too_few)
		r->verdict = BB_AB_INCONCLUSIVE;
	else if (r->tost_p_adj <= alpha)
		r->verdict = BB_AB_NO_CHANGE;
	else if ((r->ci_lo > 0 || r->ci_hi < 0) && r->p_adj <= alpha)
		r->verdict = ((r->ci_lo > 0) == r->higher_is_better) ?
				     BB_AB_FASTER : BB_AB_SLOWER;
	else
		r->verdict = BB_AB_INCONCLUSIVE;
	r->more_needed = r->verdict == BB_AB_INCONCLUSIVE ? r->more_open : 0;
	r->more_capped = r->verdict == BB_AB_INCONCLUSIVE && r->more_open_capped;
}

static int bb_ab_paired_fixed(const double *d, size_t n,
			      const struct bb_ab_params *p,
			      struct bb_ab_result *res)
{
	double alpha = 1.0 - p->confidence, est, lo, hi, p1, p2;
	int ret;

	res->n_min = bb_ab_paired_nmin(alpha);
	ret = bb_ab_hodges_lehmann(d, n, p->confidence, &est, &lo, &hi,
				   &res->ci_level);
	if (!ret)
		ret = bb_ab_signrank_p(d, n, &res->p_value);
	if (!ret)
		ret = bb_ab_signrank_test(d, n, log1p(-p->min_effect),
					  BB_AB_GREATER, &p1);
	if (!ret)
		ret = bb_ab_signrank_test(d, n, log1p(p->min_effect),
					  BB_AB_LESS, &p2);
	if (ret)
		return ret;
	res->tost_p = bb_max(p1, p2);
	res->log_est = est;
	res->change = expm1(est);
	res->ci_lo = expm1(lo);
	res->ci_hi = expm1(hi);
	res->too_few = res->ci_level < p->confidence - 1e-12;
	bb_ab_more_fixed(res, M_PI / 3.0, bb_ab_norm_ppf(1.0 - alpha / 2));
	return 0;
}

static void bb_ab_paired_seq(const double *d, size_t n,
			     const struct bb_ab_params *p,
			     struct bb_ab_result *res)
{
	const struct bb_ab_seq *s = p->seq;
	unsigned k = bb_ab_seq_index(s, n);
	double df = (double)n - 1, mean = 0, se, ta, t;
	double thl = log1p(-p->min_effect), thu = log1p(p->min_effect);

	for (size_t i = 0; i < n; i++)
		mean += d[i];
	mean /= (double)n;
	res->design = BB_AB_DESIGN_SEQUENTIAL;
	res->n_min = 2;
	res->looks = s->nlooks;
	res->first_look = s->n[0];
	res->last_look = s->n[s->nlooks - 1];
	res->at_look = s->n[k] == n;
	res->look = n >= s->n[0] ? k + 1 : 0;
	ta = res->at_look ? s->ta[k] : bb_ab_z_to_t(s->za[k], df);
	res->bound = ta;
	se = res->log_sd / sqrt((double)n);
	res->log_est = mean;
	res->change = expm1(mean);
	res->ci_level = p->confidence;
	if (!(se > 0)) {
		/* every pair the same ratio: no spread to test against */
		res->ci_lo = res->ci_hi = res->change;
		res->p_value = mean == 0 ? 1.0 : BB_AB_P_FLOOR;
		res->tost_p = mean > thl && mean < thu ? BB_AB_P_FLOOR : 1.0;
	} else {
		res->ci_lo = expm1(mean - ta * se);
		res->ci_hi = expm1(mean + ta * se);
		t = mean / se;
		res->p_value = bb_ab_seq_p(s, k, t, df);
		res->tost_p = bb_max(bb_ab_seq_p1(s, k, (mean - thl) / se, df),
				     bb_ab_seq_p1(s, k, (thu - mean) / se, df));
	}
	res->too_few = false;
	bb_ab_more_seq(res, s);
}

static int bb_ab_unpaired(const double *a, size_t na, const double *b,
			  size_t nb, const struct bb_ab_params *p,
			  struct bb_ab_result *res, double *la, double *lb)
{
	double alpha = 1.0 - p->confidence, est, lo, hi, p1, p2, sa, sb;
	int ret;

	for (size_t i = 0; i < na; i++)
		la[i] = log(a[i]);
	for (size_t i = 0; i < nb; i++)
		lb[i] = log(b[i]);
	res->n_min = bb_ab_unpaired_nmin(alpha);
	ret = bb_ab_hodges_lehmann2(la, na, lb, nb, p->confidence, &est, &lo,
				    &hi, &res->ci_level);
	if (!ret)
		ret = bb_ab_ranksum_test(la, na, lb, nb, 0, BB_AB_TWO_SIDED,
					 NULL, &res->p_value);
	if (!ret)
		ret = bb_ab_ranksum_test(la, na, lb, nb, log1p(-p->min_effect),
					 BB_AB_GREATER, NULL, &p1);
	if (!ret)
		ret = bb_ab_ranksum_test(la, na, lb, nb, log1p(p->min_effect),
					 BB_AB_LESS, NULL, &p2);
	if (ret)
		return ret;
	res->tost_p = bb_max(p1, p2);
	res->log_est = est;
	res->change = expm1(est);
	res->ci_lo = expm1(lo);
	res->ci_hi = expm1(hi);
	sa = bb_ab_sd(la, na);
	sb = bb_ab_sd(lb, nb);
	res->log_sd = sqrt(sa * sa + sb * sb);
	res->too_few = res->ci_level < p->confidence - 1e-12;
	bb_ab_more_fixed(res, M_PI / 3.0, bb_ab_norm_ppf(1.0 - alpha / 2));
	return 0;
}

/* ---- the job (or boot) as the unit ------------------------------------ */

/* A unit's level: the Hodges-Lehmann location of its runs' logs (the log
 * itself for one run); *ss and *df add its within-unit sum of squares
 * and degrees of freedom. */
static int bb_ab_unit_level(const struct bb_ab_unit *u, double *level,
			    double *ss, double *df)
{
	double *l, lo, hi, mean = 0;
	int ret = 0;

	if (!u->vals || !u->n)
		return -EINVAL;
	if (u->n > BB_AB_MAX_N)
		return -E2BIG;
	if (bb_ab_check_values(u->vals, u->n))
		return -EINVAL;
	l = malloc(u->n * sizeof(*l));
	if (!l)
		return -ENOMEM;
	for (size_t i = 0; i < u->n; i++) {
		l[i] = log(u->vals[i]);
		mean += l[i];
	}
	mean /= (double)u->n;
	for (size_t i = 0; i < u->n; i++)
		*ss += (l[i] - mean) * (l[i] - mean);
	*df += (double)u->n - 1;
	if (u->n == 1)
		*level = l[0];
	else
		ret = bb_ab_hodges_lehmann(l, u->n, 0.5, level, &lo, &hi, NULL);
	free(l);
	return ret;
}

/* Units per side (balanced) whose t interval reaches half-width target
 * with unit-level SD sd: the smallest k >= 2 with
 * t_{1-alpha/2, 2k-2} * sd * sqrt(2/k) <= target (INFINITY: none within
 * the cap). */
static double bb_ab_units_needed(double sd, double target, double alpha)
{
	if (!(sd > 0))
		return 2;
	if (!(target > 0))
		return INFINITY;
	for (unsigned k = 2; k <= BB_AB_MORE_CAP + 2; k++)
		if (bb_ab_t_isf(alpha / 2, 2.0 * k - 2) * sd *
			    sqrt(2.0 / k) <= target)
			return k;
	return INFINITY;
}

int bb_ab_compare_units(const struct bb_ab_unit *a, size_t ka,
			const struct bb_ab_unit *b, size_t kb,
			const struct bb_ab_params *p, struct bb_ab_result *res)
{
	double alpha, *la = NULL, *lb = NULL, ma = 0, mb = 0, ss = 0;
	double wss = 0, wdf = 0, df, se, tq, t, sd, k;
	double thl, thu;
	bool excl;
	int ret = 0;

	if (!a || !b || !p || !res || !ka || !kb)
		return -EINVAL;
	if (!(p->confidence > 0 && p->confidence < 1) ||
	    !(p->min_effect >= 0 && p->min_effect < 1) || p->seq)
		return -EINVAL;
	if (ka > BB_AB_MAX_N || kb > BB_AB_MAX_N)
		return -E2BIG;
	alpha = 1.0 - p->confidence;
	thl = log1p(-p->min_effect);
	thu = log1p(p->min_effect);
	memset(res, 0, sizeof(*res));
	la = malloc(ka * sizeof(*la));
	lb = malloc(kb * sizeof(*lb));
	if (!la || !lb) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < ka && !ret; i++)
		ret = bb_ab_unit_level(&a[i], &la[i], &wss, &wdf);
	for (size_t i = 0; i < kb && !ret; i++)
		ret = bb_ab_unit_level(&b[i], &lb[i], &wss, &wdf);
	if (ret)
		goto out;
	res->method = BB_AB_METHOD_UNITS;
	res->unit = p->unit;
	res->higher_is_better = p->higher_is_better;
	res->min_effect = p->min_effect;
	res->confidence = p->confidence;
	res->family = 1;
	res->units_a = ka;
	res->units_b = kb;
	for (size_t i = 0; i < ka; i++) {
		ma += la[i];
		res->runs_a += a[i].n;
	}
	for (size_t i = 0; i < kb; i++) {
		mb += lb[i];
		res->runs_b += b[i].n;
	}
	ma /= (double)ka;
	mb /= (double)kb;
	for (size_t i = 0; i < ka; i++)
		ss += (la[i] - ma) * (la[i] - ma);
	for (size_t i = 0; i < kb; i++)
		ss += (lb[i] - mb) * (lb[i] - mb);
	res->within_sd = wdf > 0 ? sqrt(wss / wdf) : NAN;
	/* the sides' summaries: the units' levels on the metric's scale */
	for (size_t i = 0; i < ka; i++)
		la[i] = exp(la[i]);
	for (size_t i = 0; i < kb; i++)
		lb[i] = exp(lb[i]);
	ret = bb_ab_summarize(la, ka, &res->a);
	if (!ret)
		ret = bb_ab_summarize(lb, kb, &res->b);
	if (ret)
		goto out;
	res->n = bb_min(ka, kb);
	res->n_min = 2;
	res->change_median = res->b.median / res->a.median - 1.0;
	res->log_est = mb - ma;
	res->change = expm1(res->log_est);
	df = (double)ka + (double)kb - 2;
	res->df = df;
	res->ci_level = p->confidence;
	if (df < 1) {
		/* one unit a side: the unit-to-unit spread is unknown.  The
		 * estimate of what it takes comes from a planning SD: at least
		 * what the runs of one unit make its level vary by (the HL
		 * level's SE), at most the two units' difference taken as
		 * noise (|d|/sqrt(2): the spread if nothing changed) */
		double within = wdf > 0 ? sqrt(M_PI / 3.0) * res->within_sd /
					   sqrt(bb_max((double)res->runs_a,
						       (double)res->runs_b)) :
					  0;

		res->too_few = true;
		res->unit_sd = NAN;
		res->log_sd = bb_max(within, fabs(res->log_est) / M_SQRT2);
		res->planning_sd = res->log_sd;
		res->ci_lo = res->ci_hi = NAN;
		res->p_value = res->tost_p = 1.0;
	} else {
		sd = sqrt(ss / df);
		res->unit_sd = sd;
		res->log_sd = sd;
		se = sd * sqrt(1.0 / (double)ka + 1.0 / (double)kb);
		tq = bb_ab_t_isf(alpha / 2, df);
		res->bound = tq;
		if (!(se > 0)) {
			res->ci_lo = res->ci_hi = res->change;
			res->p_value = res->log_est == 0 ? 1.0 : BB_AB_P_FLOOR;
			res->tost_p = res->log_est > thl && res->log_est < thu ?
					      BB_AB_P_FLOOR : 1.0;
		} else {
			res->ci_lo = expm1(res->log_est - tq * se);
			res->ci_hi = expm1(res->log_est + tq * se);
			t = res->log_est / se;
			res->p_value = bb_min(1.0, 2.0 * bb_ab_t_sf(fabs(t), df));
			res->tost_p = bb_max(bb_ab_t_sf((res->log_est - thl) / se, df),
					     bb_ab_t_sf((thu - res->log_est) / se, df));
		}
	}
	/* units per side to settle it (balanced, at the unit-level SD) */
	k = bb_ab_units_needed(res->log_sd, bb_ab_target(res, &excl), alpha);
	res->units_needed = isinf(k) ? 0 : (unsigned)k;
	bb_ab_set_more(res, k); /* res->n is min(ka, kb) */
	res->p_adj = res->p_value;
	res->tost_p_adj = res->tost_p;
	bb_ab_decide(res);
out:
	free(la);
	free(lb);
	return ret;
}

int bb_ab_compare(const double *a, size_t na, const double *b, size_t nb,
		  const struct bb_ab_params *p, struct bb_ab_result *res)
{
	double *tmp = NULL, *tmp2 = NULL;
	int ret;

	if (!a || !b || !p || !res || na < 2 || nb < 2)
		return -EINVAL;
	if (!(p->confidence > 0 && p->confidence < 1) ||
	    !(p->min_effect >= 0 && p->min_effect < 1) || p->resamples < 100)
		return -EINVAL;
	if (p->paired && na != nb)
		return -EINVAL;
	if (p->seq && (!p->paired ||
		       fabs(p->seq->confidence - p->confidence) > 1e-12))
		return -EINVAL;
	if (na > BB_AB_MAX_N || nb > BB_AB_MAX_N)
		return -E2BIG;
	if (bb_ab_check_values(a, na) || bb_ab_check_values(b, nb))
		return -EINVAL;

	memset(res, 0, sizeof(*res));
	res->higher_is_better = p->higher_is_better;
	res->min_effect = p->min_effect;
	res->confidence = p->confidence;
	res->family = 1;
	ret = bb_ab_summarize(a, na, &res->a);
	if (!ret)
		ret = bb_ab_summarize(b, nb, &res->b);
	if (ret)
		goto out;
	res->change_median = res->b.median / res->a.median - 1.0;

	tmp = malloc(bb_max(na, nb) * sizeof(*tmp));
	tmp2 = malloc(nb * sizeof(*tmp2));
	if (!tmp || !tmp2) {
		ret = -ENOMEM;
		goto out;
	}
	if (p->paired) {
		res->method = BB_AB_METHOD_PAIRED;
		res->n = na;
		for (size_t i = 0; i < na; i++)
			tmp[i] = log(b[i]) - log(a[i]);
		res->log_sd = bb_ab_sd(tmp, na);
		if (p->seq)
			bb_ab_paired_seq(tmp, na, p, res);
		else
			ret = bb_ab_paired_fixed(tmp, na, p, res);
	} else {
		res->method = BB_AB_METHOD_UNPAIRED;
		res->n = bb_min(na, nb);
		ret = bb_ab_unpaired(a, na, b, nb, p, res, tmp, tmp2);
	}
	if (ret)
		goto out;
	res->p_adj = res->p_value;
	res->tost_p_adj = res->tost_p;
	bb_ab_decide(res);
out:
	free(tmp2);
	free(tmp);
	return ret;
}

/* ---- many variants -------------------------------------------------- */

struct bb_ab_pidx {
	double p;
	size_t i;
};

static int bb_ab_cmp_pidx(const void *pa, const void *pb)
{
	const struct bb_ab_pidx *x = pa, *y = pb;

	if (x->p != y->p)
		return (x->p > y->p) - (x->p < y->p);
	return (x->i > y->i) - (x->i < y->i);
}

int bb_ab_adjust(const double *p, size_t n, enum bb_ab_multiple m,
		 double *adj)
{
	struct bb_ab_pidx *v;
	double run;

	if (!p || !adj || (unsigned)m >= BB_AB_MULTIPLE__COUNT)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!(p[i] >= 0 && p[i] <= 1))
			return -EINVAL;
	if (n == 0)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = (struct bb_ab_pidx){ p[i], i };
	qsort(v, n, sizeof(*v), bb_ab_cmp_pidx);
	if (m == BB_AB_MULTIPLE_HOLM) {
		run = 0;
		for (size_t j = 0; j < n; j++) {
			double a = bb_min(1.0, (double)(n - j) * v[j].p);

			run = bb_max(run, a);
			adj[v[j].i] = run;
		}
	} else {
		run = 1;
		for (size_t j = n; j-- > 0;) {
			double a = bb_min(1.0, (double)n / (double)(j + 1) * v[j].p);

			run = bb_min(run, a);
			adj[v[j].i] = run;
		}
	}
	free(v);
	return 0;
}

int bb_ab_family(struct bb_ab_result *const *res, size_t n,
		 enum bb_ab_multiple m)
{
	double *p, *t;
	size_t k = 0;
	int ret;

	if ((!res && n) || (unsigned)m >= BB_AB_MULTIPLE__COUNT)
		return -EINVAL;
	p = calloc(n + 1, sizeof(*p));
	t = calloc(n + 1, sizeof(*t));
	if (!p || !t) {
		free(p);
		free(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!res[i])
			continue;
		p[k] = bb_min(1.0, bb_max(0.0, res[i]->p_value));
		t[k] = bb_min(1.0, bb_max(0.0, res[i]->tost_p));
		k++;
	}
	ret = bb_ab_adjust(p, k, m, p);
	if (!ret)
		ret = bb_ab_adjust(t, k, m, t);
	for (size_t i = 0, j = 0; !ret && i < n; i++) {
		if (!res[i])
			continue;
		res[i]->family = (unsigned)k;
		res[i]->multiple = m;
		res[i]->p_adj = p[j];
		res[i]->tost_p_adj = t[j];
		j++;
		bb_ab_decide(res[i]);
	}
	free(p);
	free(t);
	return ret;
}

static const char *const bb_ab_multiple_names[BB_AB_MULTIPLE__COUNT] = {
	[BB_AB_MULTIPLE_HOLM] = "holm",
	[BB_AB_MULTIPLE_BH] = "bh",
};

const char *bb_ab_multiple_name(enum bb_ab_multiple m)
{
	return (unsigned)m < BB_AB_MULTIPLE__COUNT ? bb_ab_multiple_names[m] :
						     "?";
}

int bb_ab_multiple_from_name(const char *s, enum bb_ab_multiple *m)
{
	for (unsigned i = 0; s && i < BB_AB_MULTIPLE__COUNT; i++) {
		if (!strcmp(s, bb_ab_multiple_names[i])) {
			*m = (enum bb_ab_multiple)i;
			return 0;
		}
	}
	return -EINVAL;
}
/* ---- wording -------------------------------------------------------- */

const char *bb_ab_verdict_name(enum bb_ab_verdict v)
{
	switch (v) {
	case BB_AB_FASTER:
		return "faster";
	case BB_AB_SLOWER:
		return "slower";
	case BB_AB_NO_CHANGE:
		return "no_change";
	case BB_AB_INCONCLUSIVE:
		return "inconclusive";
	}
	return "?";
}

enum bb_ab_verdict bb_ab_verdict_worst(const enum bb_ab_verdict *v, size_t n,
				       size_t failed)
{
	bool faster = false, inconclusive = failed > 0;

	for (size_t i = 0; v && i < n; i++) {
		if (v[i] == BB_AB_SLOWER)
			return BB_AB_SLOWER;
		faster |= v[i] == BB_AB_FASTER;
		inconclusive |= v[i] == BB_AB_INCONCLUSIVE;
	}
	if (faster)
		return BB_AB_FASTER;
	return inconclusive ? BB_AB_INCONCLUSIVE : BB_AB_NO_CHANGE;
}

/* Signed percentage: one decimal, two when it would print as +-0.0. */
static void bb_ab_pct(char *buf, size_t len, double frac)
{
	double v = frac * 100.0;

	if (v != 0 && fabs(v) < 0.05)
		snprintf(buf, len, "%+.2f%%", v);
	else
		snprintf(buf, len, "%+.1f%%", v);
}

static void bb_ab_pval(char *buf, size_t len, double p)
{
	if (p < 0.001)
		snprintf(buf, len, "p<0.001");
	else
		snprintf(buf, len, "p=%.3f", p);
}

/* Coverage in percent, truncated to one decimal: "96.8", "87.5", "50". */
static void bb_ab_cover_pct(char *buf, size_t len, double level)
{
	double v = floor(level * 1000.0 + 1e-7) / 10.0;

	snprintf(buf, len, "%.4g", v);
}

int bb_ab_ci_label(const struct bb_ab_result *r, char *buf, size_t len)
{
	char pct[32];
	int w;

	if (!r || !buf || !len)
		return -EINVAL;
	if (r->design == BB_AB_DESIGN_SEQUENTIAL) {
		w = snprintf(buf, len, "%.4g%% sequential CI",
			     r->confidence * 100.0);
	} else {
		bb_ab_cover_pct(pct, sizeof(pct), r->ci_level);
		w = snprintf(buf, len, "%s%% CI", pct);
	}
	if (w < 0)
		return -EINVAL;
	return (size_t)w >= len ? -ENOSPC : 0;
}

static const char *bb_ab_unit_word(enum bb_ab_unit_kind u)
{
	return u == BB_AB_UNIT_BOOT ? "boot" : "job";
}

int bb_ab_method_text(const struct bb_ab_result *r, char *buf, size_t len)
{
	int w;

	if (!r || !buf || !len)
		return -EINVAL;
	if (r->design == BB_AB_DESIGN_SEQUENTIAL)
		w = snprintf(buf, len,
			     "group-sequential t (O'Brien-Fleming spending, "
			     "%u looks at %u..%u pairs)",
			     r->looks, r->first_look, r->last_look);
	else if (r->method == BB_AB_METHOD_UNITS)
		w = snprintf(buf, len,
			     "t on the %ss' levels (the %s as a random effect, "
			     "%zu+%zu %ss, df %.0f)",
			     bb_ab_unit_word(r->unit), bb_ab_unit_word(r->unit),
			     r->units_a, r->units_b, bb_ab_unit_word(r->unit),
			     r->df);
	else if (r->method == BB_AB_METHOD_PAIRED)
		w = snprintf(buf, len, "%s signed-rank (Hodges-Lehmann)",
			     r->n > BB_AB_EXACT_MAX_N ? "normal-approximation" :
							"exact");
	else
		w = snprintf(buf, len, "%s rank-sum (two-sample Hodges-Lehmann)",
			     r->a.n > BB_AB_EXACT_MAX_N ||
				     r->b.n > BB_AB_EXACT_MAX_N ?
				     "normal-approximation" :
				     "exact");
	if (w < 0)
		return -EINVAL;
	return (size_t)w >= len ? -ENOSPC : 0;
}

/* ", Holm p=0.016 of 3" when the family has more than one member. */
static void bb_ab_adj_text(const struct bb_ab_result *r, double padj,
			   char *buf, size_t len)
{
	char pv[32];

	buf[0] = '\0';
	if (r->family <= 1)
		return;
	bb_ab_pval(pv, sizeof(pv), padj);
	snprintf(buf, len, ", %s %s of %u",
		 r->multiple == BB_AB_MULTIPLE_BH ? "BH" : "Holm", pv,
		 r->family);
}

int bb_ab_precision_text(const struct bb_ab_result *r, char *buf, size_t len)
{
	char what[160], more[48], total[64];
	double eff = r ? 100.0 * r->min_effect : 0;
	int w;

	if (!r || !buf || !len)
		return -EINVAL;
	buf[0] = '\0';
	if (r->verdict != BB_AB_INCONCLUSIVE)
		return 0;
	if (r->more_capped)
		snprintf(more, sizeof(more), "more than %u more", BB_AB_MORE_CAP);
	else
		snprintf(more, sizeof(more), "%u more", r->more_needed);
	if (r->method == BB_AB_METHOD_UNITS) {
		const char *u = bb_ab_unit_word(r->unit);

		if (r->too_few)
			snprintf(what, sizeof(what), "one %s a side (how much %ss "
				 "spread is unknown: planned at %.2g%%)", u, u,
				 100.0 * expm1(r->planning_sd));
		else
			snprintf(what, sizeof(what), "%zu+%zu %ss (%ss spread by "
				 "%.2g%%)", r->units_a, r->units_b, u, u,
				 100.0 * expm1(r->unit_sd));
		snprintf(total, sizeof(total), "%s%u %ss each side",
			 r->more_capped ? "over " : "", r->units_needed ?
			 r->units_needed : (unsigned)r->n + r->more_needed, u);
		w = snprintf(buf, len, "too noisy for ±%.3g%% with %s: about %s "
			     "(%s) would settle it", eff, what, total, more);
	} else {
		bool paired = r->method == BB_AB_METHOD_PAIRED;
		double half = isfinite(r->ci_lo) && isfinite(r->ci_hi) ?
				      50.0 * (r->ci_hi - r->ci_lo) : NAN;

		snprintf(what, sizeof(what), "%zu %s (CI ±%.2g%%, %s spread by "
			 "%.2g%%)", r->n, paired ? "pairs" : "runs per variant",
			 half, paired ? "pairs" : "runs",
			 100.0 * expm1(r->log_sd));
		snprintf(total, sizeof(total), "%s%zu %s in all",
			 r->more_capped ? "over " : "", r->n + r->more_needed,
			 paired ? "pairs" : "runs per variant");
		w = snprintf(buf, len, "too noisy for ±%.3g%% with %s: about %s "
			     "(%s) would settle it", eff, what, total, more);
		if (w >= 0 && (size_t)w < len &&
		    r->design == BB_AB_DESIGN_SEQUENTIAL &&
		    r->n + r->more_needed > r->last_look)
			w += snprintf(buf + w, len - (size_t)w, ", more than its "
				      "max_repeat (%u) allows", r->last_look);
	}
	if (w < 0)
		return -EINVAL;
	return (size_t)w >= len ? -ENOSPC : 0;
}

int bb_ab_format(const struct bb_ab_result *r, char *buf, size_t len)
{
	return bb_ab_format_names(r, "A", "B", buf, len);
}

int bb_ab_format_names(const struct bb_ab_result *r, const char *a,
		       const char *b, char *buf, size_t len)
{
	char lo[32], hi[32], pv[32], tp[32], lab[64], ci[160], nn[64];
	char adj[64], tadj[64], uw[48];
	const char *unit, *sep;
	double conf_pct, eff_pct;
	int w = 0;

	if (!r || !a || !b || !buf || len == 0)
		return -EINVAL;
	conf_pct = r->confidence * 100.0;
	eff_pct = r->min_effect * 100.0;
	bb_ab_pct(lo, sizeof(lo), r->ci_lo);
	bb_ab_pct(hi, sizeof(hi), r->ci_hi);
	bb_ab_pval(pv, sizeof(pv), r->p_value);
	bb_ab_pval(tp, sizeof(tp), r->tost_p);
	bb_ab_adj_text(r, r->p_adj, adj, sizeof(adj));
	bb_ab_adj_text(r, r->tost_p_adj, tadj, sizeof(tadj));
	if (bb_ab_ci_label(r, lab, sizeof(lab)))
		snprintf(lab, sizeof(lab), "CI");
	snprintf(ci, sizeof(ci), "%s %s .. %s", lab, lo, hi);
	if (r->method == BB_AB_METHOD_UNITS) {
		snprintf(nn, sizeof(nn), "n=%zu+%zu %ss", r->units_a, r->units_b,
			 bb_ab_unit_word(r->unit));
		snprintf(uw, sizeof(uw), "more %s%s each side",
			 bb_ab_unit_word(r->unit), r->more_needed == 1 ? "" : "s");
		unit = uw;
	} else if (r->method == BB_AB_METHOD_PAIRED) {
		snprintf(nn, sizeof(nn), "n=%zu pairs", r->n);
		unit = r->more_needed == 1 ? "more pair" : "more pairs";
	} else {
		snprintf(nn, sizeof(nn), "n=%zu+%zu runs", r->a.n, r->b.n);
		unit = r->more_needed == 1 ? "more run per variant" :
					     "more runs per variant";
	}

	switch (r->verdict) {
	case BB_AB_FASTER:
	case BB_AB_SLOWER:
		w = snprintf(buf, len, "%s is %.1f%% %s than %s (%s%s, %s%s, %s)",
			     b, fabs(r->change) * 100.0,
			     r->verdict == BB_AB_FASTER ? "faster" : "slower",
			     a, r->higher_is_better ? "" : "lower is better; ",
			     ci, pv, adj, nn);
		break;
	case BB_AB_NO_CHANGE:
		w = snprintf(buf, len,
			     "no change: %s within ±%.3g%% of %s (TOST %s%s; %s, %s)",
			     b, eff_pct, a, tp, tadj, ci, nn);
		break;
	case BB_AB_INCONCLUSIVE:
		sep = r->more_capped ? "more than" : "about";
		if (r->too_few && r->method == BB_AB_METHOD_UNITS) {
			bool excl;
			double t = bb_ab_target(r, &excl);

			w = snprintf(buf, len,
				     "inconclusive: one %s per side (the %s is "
				     "the unit: one each cannot show how much "
				     "%ss differ from one another); %s %u %s "
				     "needed for a %.4g%% CI of ±%.2g%% "
				     "(assuming %ss spread by %.2g%%)",
				     bb_ab_unit_word(r->unit),
				     bb_ab_unit_word(r->unit),
				     bb_ab_unit_word(r->unit), sep,
				     r->more_needed, unit, conf_pct,
				     100.0 * expm1(t), bb_ab_unit_word(r->unit),
				     100.0 * expm1(r->planning_sd));
		} else if (r->too_few)
			w = snprintf(buf, len,
				     "inconclusive: %s give only %s %s (%s .. %s), "
				     "%.4g%% needs %zu %s; %s %u %s needed",
				     nn + 2, /* "3 pairs", "3+4 runs" */
				     lab[0] == '8' || !strncmp(lab, "11", 2) ||
					     !strncmp(lab, "18", 2) ? "an" : "a",
				     lab, lo, hi, conf_pct, r->n_min,
				     r->method == BB_AB_METHOD_PAIRED ?
					     "pairs" : "runs per variant",
				     sep, r->more_needed, unit);
		else if (r->ci_lo <= 0 && r->ci_hi >= 0)
			w = snprintf(buf, len,
				     "inconclusive: %s spans 0; %s %u %s needed",
				     ci, sep, r->more_needed, unit);
		else if (r->p_value <= 1.0 - r->confidence && r->family > 1)
			w = snprintf(buf, len,
				     "inconclusive: %s but %s%s; %s %u %s needed",
				     ci, pv, adj, sep, r->more_needed, unit);
		else
			w = snprintf(buf, len,
				     "inconclusive: %s but %s; %s %u %s needed",
				     ci, pv, sep, r->more_needed, unit);
		break;
	}
	if (w < 0)
		return -EINVAL;
	return (size_t)w >= len ? -ENOSPC : 0;
}

int bb_ab_want_more(const struct bb_ab_result *r, unsigned max_repeat,
		    bool *more)
{
	if (!r || !more)
		return -EINVAL;
	*more = false;
	if (r->n >= max_repeat)
		return 0;
	if (r->design == BB_AB_DESIGN_SEQUENTIAL &&
	    (r->n < r->first_look || !r->at_look)) {
		*more = true; /* the job stops only at a planned look */
		return 0;
	}
	if (r->verdict != BB_AB_INCONCLUSIVE)
		return 0;
	if (r->n >= r->n_min &&
	    (double)r->n + r->more_needed > 2.0 * (double)max_repeat)
		return 0; /* futile within the budget */
	*more = true;
	return 0;
}

/* ---- where the noise is --------------------------------------------- */

static const char *const bb_ab_noise_names[BB_AB_NOISE__COUNT] = {
	[BB_AB_NOISE_BOOT] = "boot",
	[BB_AB_NOISE_ROUND] = "round",
	[BB_AB_NOISE_RUN] = "run",
	[BB_AB_NOISE_SECOND] = "second",
};

const char *bb_ab_noise_level_name(enum bb_ab_noise_level l)
{
	return (unsigned)l < BB_AB_NOISE__COUNT ? bb_ab_noise_names[l] : "?";
}

const char *bb_ab_noise_advice(const struct bb_ab_noise *nz)
{
	if (!nz || !nz->have_dominant)
		return "";
	switch (nz->dominant) {
	case BB_AB_NOISE_BOOT:
		return "add boots, not runs";
	case BB_AB_NOISE_ROUND:
		return "drift between rounds: keep the order interleaved (pairs cancel it)";
	case BB_AB_NOISE_RUN:
		return "add runs, not seconds";
	case BB_AB_NOISE_SECOND:
		return "longer runs help";
	case BB_AB_NOISE__COUNT:
		break;
	}
	return "";
}

/* Group statistics of the centred log values by an id. */
struct bb_ab_grp {
	unsigned id, outer;
	double sum;
	unsigned n;
};

static struct bb_ab_grp *bb_ab_grp_find(struct bb_ab_grp *g, size_t *ng,
					unsigned id, unsigned outer)
{
	for (size_t i = 0; i < *ng; i++)
		if (g[i].id == id && g[i].outer == outer)
			return &g[i];
	g[*ng] = (struct bb_ab_grp){ .id = id, .outer = outer };
	return &g[(*ng)++];
}

int bb_ab_noise(const struct bb_ab_noise_run *runs, size_t n,
		struct bb_ab_noise *out)
{
	struct bb_ab_grp *rounds = NULL, *boots = NULL, *vars = NULL;
	size_t nr = 0, nb = 0, nv = 0;
	double *y = NULL, ss = 0, secv = 0, run_tot = 0, kbar, rbar;
	double var_run = 0, var_round = 0, best = -1;
	unsigned df = 0, nsec = 0;
	int ret = 0;

	if (!out || (!runs && n))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n; i++)
		if (!(runs[i].value > 0) || !isfinite(runs[i].value))
			return -EINVAL;
	if (n < 2)
		return 0;
	y = malloc(n * sizeof(*y));
	rounds = calloc(n, sizeof(*rounds));
	boots = calloc(n, sizeof(*boots));
	vars = calloc(n, sizeof(*vars));
	if (!y || !rounds || !boots || !vars) {
		ret = -ENOMEM;
		goto out;
	}
	/* centre on each variant's mean log */
	for (size_t i = 0; i < n; i++) {
		struct bb_ab_grp *v = bb_ab_grp_find(vars, &nv,
						     runs[i].variant, 0);

		v->sum += log(runs[i].value);
		v->n++;
	}
	for (size_t i = 0; i < n; i++) {
		struct bb_ab_grp *v = bb_ab_grp_find(vars, &nv,
						     runs[i].variant, 0);

		y[i] = log(runs[i].value) - v->sum / v->n;
	}
	for (size_t i = 0; i < n; i++) {
		struct bb_ab_grp *r = bb_ab_grp_find(rounds, &nr, runs[i].round,
						     runs[i].boot);

		r->sum += y[i];
		r->n++;
		if (isfinite(runs[i].sec_var) && runs[i].seconds > 0) {
			secv += runs[i].sec_var / runs[i].seconds;
			nsec++;
		}
	}
	/* run: pooled variance within rounds */
	for (size_t i = 0; i < n; i++) {
		struct bb_ab_grp *r = bb_ab_grp_find(rounds, &nr, runs[i].round,
						     runs[i].boot);
		double dv = y[i] - r->sum / r->n;

		ss += dv * dv;
	}
	for (size_t j = 0; j < nr; j++)
		df += rounds[j].n - 1;
	kbar = (double)n / (double)nr;
	if (df > 0) {
		run_tot = ss / df;
		if (nsec == n) {
			secv /= (double)nsec;
			out->level[BB_AB_NOISE_SECOND].measured = true;
			out->level[BB_AB_NOISE_SECOND].sd = sqrt(secv);
			out->level[BB_AB_NOISE_SECOND].df = nsec;
		} else {
			secv = 0;
		}
		var_run = bb_max(0.0, run_tot - secv);
		out->level[BB_AB_NOISE_RUN].measured = true;
		out->level[BB_AB_NOISE_RUN].sd = sqrt(var_run);
		out->level[BB_AB_NOISE_RUN].df = df;
	}
	/* round: the variance of the round means within boots */
	for (size_t j = 0; j < nr; j++) {
		struct bb_ab_grp *b = bb_ab_grp_find(boots, &nb, rounds[j].outer,
						     0);

		b->sum += rounds[j].sum / rounds[j].n;
		b->n++;
	}
	ss = 0;
	df = 0;
	for (size_t j = 0; j < nr; j++) {
		struct bb_ab_grp *b = bb_ab_grp_find(boots, &nb, rounds[j].outer,
						     0);
		double dv = rounds[j].sum / rounds[j].n - b->sum / b->n;

		ss += dv * dv;
	}
	for (size_t j = 0; j < nb; j++)
		df += boots[j].n - 1;
	if (df > 0 && out->level[BB_AB_NOISE_RUN].measured) {
		var_round = bb_max(0.0, ss / df - run_tot / kbar);
		out->level[BB_AB_NOISE_ROUND].measured = true;
		out->level[BB_AB_NOISE_ROUND].sd = sqrt(var_round);
		out->level[BB_AB_NOISE_ROUND].df = df;
	}
	/* boot: the variance of the boot means */
	if (nb >= 2 && out->level[BB_AB_NOISE_ROUND].measured) {
		double m = 0;

		rbar = (double)nr / (double)nb;
		for (size_t j = 0; j < nb; j++)
			m += boots[j].sum / boots[j].n;
		m /= (double)nb;
		ss = 0;
		for (size_t j = 0; j < nb; j++) {
			double dv = boots[j].sum / boots[j].n - m;

			ss += dv * dv;
		}
		out->level[BB_AB_NOISE_BOOT].measured = true;
		out->level[BB_AB_NOISE_BOOT].sd =
			sqrt(bb_max(0.0, ss / (double)(nb - 1) -
					      (var_round + run_tot / kbar) / rbar));
		out->level[BB_AB_NOISE_BOOT].df = (unsigned)(nb - 1);
	}
	for (unsigned l = 0; l < BB_AB_NOISE__COUNT; l++) {
		if (!out->level[l].measured || !(out->level[l].sd > best))
			continue;
		best = out->level[l].sd;
		out->dominant = (enum bb_ab_noise_level)l;
		out->have_dominant = best > 0;
	}
out:
	free(vars);
	free(boots);
	free(rounds);
	free(y);
	return ret;
}
