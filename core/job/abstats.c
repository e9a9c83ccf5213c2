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
static size_t bb_ab_paired_nmin(double alpha)
{
	size_t n = 2;

	while (n < 64 && ldexp(1.0, 1 - (int)n) > alpha)
		n++;
	return n;
}

/* Mann-Whitney p of the most extreme split (U = 0, no ties). */
static double bb_ab_mwu_extreme_p(size_t nx, size_t ny)
{
	double mu = (double)nx * (double)ny / 2.0;
	double sd = sqrt((double)nx * (double)ny *
			 (double)(nx + ny + 1) / 12.0);
	double z = (mu - 0.5) / sd;

	return bb_min(1.0, 2.0 * bb_ab_norm_sf(z));
}

static size_t bb_ab_unpaired_nmin(double alpha)
{
	size_t k = 2;

	while (k < 1000 && bb_ab_mwu_extreme_p(k, k) > alpha)
		k++;
	return k;
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
		double mu = (double)m / 2.0;
		double sd = sqrt((double)n * (double)(n + 1) *
				 (double)(2 * n + 1) / 24.0);
		double z = bb_ab_norm_ppf(1.0 - alpha / 2);
		double kk = floor(mu - z * sd + 0.5);

		k = kk < 1 ? 1 : (size_t)kk;
		*level = 1.0 - 2.0 * (1.0 - bb_ab_norm_sf(((double)k - 0.5 -
							    mu) / sd));
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

/* ---- Wilcoxon signed-rank p ----------------------------------------- */

struct bb_ab_absval {
	double a;
	int pos; /* 1: the difference was > 0 */
};

static int bb_ab_cmp_absval(const void *pa, const void *pb)
{
	const struct bb_ab_absval *x = pa, *y = pb;

	return (x->a > y->a) - (x->a < y->a);
}

int bb_ab_signrank_p(const double *d, size_t n, double *p)
{
	struct bb_ab_absval *v = NULL;
	unsigned *s2 = NULL;
	double *cnt = NULL;
	size_t nz = 0;
	double t2 = 0, ties = 0; /* t2: sum of doubled ranks of d > 0 */
	int ret = 0;

	if (!d || !p || n < 1)
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	s2 = malloc(n * sizeof(*s2));
	if (!v || !s2) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(d[i])) {
			ret = -EINVAL;
			goto out;
		}
		if (fabs(d[i]) <= BB_AB_LOG_TIE)
			continue; /* zero difference: dropped */
		v[nz].a = fabs(d[i]);
		v[nz].pos = d[i] > 0;
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
		*p = bb_min(1.0, 2.0 * bb_min(le, ge) / all);
	} else {
		double nn = (double)nz;
		double mu = nn * (nn + 1) / 4.0;
		double var = nn * (nn + 1) * (2 * nn + 1) / 24.0 - ties / 48.0;
		double z = (fabs(t2 / 2.0 - mu) - 0.5) / sqrt(var);

		if (z < 0)
			z = 0;
		*p = bb_min(1.0, 2.0 * bb_ab_norm_sf(z));
	}
out:
	free(cnt);
	free(s2);
	free(v);
	return ret;
}

/* ---- Mann-Whitney U ------------------------------------------------- */

struct bb_ab_grpval {
	double v;
	int is_y;
};

static int bb_ab_cmp_grpval(const void *pa, const void *pb)
{
	const struct bb_ab_grpval *x = pa, *y = pb;

	return (x->v > y->v) - (x->v < y->v);
}

int bb_ab_mannwhitney_p(const double *x, size_t nx, const double *y,
			size_t ny, double *u, double *p)
{
	struct bb_ab_grpval *v;
	size_t n = nx + ny;
	double ry = 0, ties = 0, uy, mu, var, z;

	if (!x || !y || !p || nx < 1 || ny < 1)
		return -EINVAL;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < nx; i++)
		v[i] = (struct bb_ab_grpval){ x[i], 0 };
	for (size_t i = 0; i < ny; i++)
		v[nx + i] = (struct bb_ab_grpval){ y[i], 1 };
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i].v)) {
			free(v);
			return -EINVAL;
		}
	qsort(v, n, sizeof(*v), bb_ab_cmp_grpval);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		double t;

		while (j + 1 < n && v[j + 1].v == v[i].v)
			j++;
		for (size_t r = i; r <= j; r++)
			if (v[r].is_y)
				ry += (double)(i + j + 2) / 2.0;
		t = (double)(j - i + 1);
		ties += t * t * t - t;
		i = j + 1;
	}
	free(v);

	uy = ry - (double)ny * (double)(ny + 1) / 2.0;
	if (u)
		*u = uy;
	mu = (double)nx * (double)ny / 2.0;
	var = (double)nx * (double)ny / 12.0 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (!(var > 0)) { /* all values equal */
		*p = 1.0;
		return 0;
	}
	z = (fabs(uy - mu) - 0.5) / sqrt(var);
	if (z < 0)
		z = 0;
	*p = bb_min(1.0, 2.0 * bb_ab_norm_sf(z));
	return 0;
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

/* n_total from the spread: coef * (z * s / target)^2, see abstats.h. */
static void bb_ab_more(struct bb_ab_result *r, double coef, double z,
		       double s, double est_log)
{
	double mu = log1p(r->min_effect);
	double e = fabs(est_log);
	double target = bb_max(e, mu - e);
	double total, more;

	if (s <= 0) {
		total = (double)r->n_min;
	} else if (!(target > 0)) {
		total = INFINITY;
	} else {
		total = ceil(coef * (z * s / target) * (z * s / target));
		if (total < (double)r->n_min)
			total = (double)r->n_min;
	}
	more = total - (double)r->n;
	if (more < 1)
		more = 1;
	if (more > BB_AB_MORE_CAP) {
		r->more_needed = BB_AB_MORE_CAP;
		r->more_capped = true;
	} else {
		r->more_needed = (unsigned)more;
	}
}

int bb_ab_compare(const double *a, size_t na, const double *b, size_t nb,
		  const struct bb_ab_params *p, struct bb_ab_result *res)
{
	double *tmp = NULL;
	double alpha, z, est_log, coef;
	bool enough;
	int ret;

	if (!a || !b || !p || !res || na < 2 || nb < 2)
		return -EINVAL;
	if (!(p->confidence > 0 && p->confidence < 1) ||
	    !(p->min_effect >= 0 && p->min_effect < 1) || p->resamples < 100)
		return -EINVAL;
	if (p->paired && na != nb)
		return -EINVAL;
	if (na > BB_AB_MAX_N || nb > BB_AB_MAX_N)
		return -E2BIG;
	if (bb_ab_check_values(a, na) || bb_ab_check_values(b, nb))
		return -EINVAL;

	memset(res, 0, sizeof(*res));
	res->higher_is_better = p->higher_is_better;
	res->min_effect = p->min_effect;
	res->confidence = p->confidence;
	ret = bb_ab_summarize(a, na, &res->a);
	if (!ret)
		ret = bb_ab_summarize(b, nb, &res->b);
	if (ret)
		goto out;
	alpha = 1.0 - p->confidence;
	z = bb_ab_norm_ppf(1.0 - alpha / 2);
	res->change_median = res->b.median / res->a.median - 1.0;

	tmp = malloc(bb_max(na, nb) * sizeof(*tmp));
	if (!tmp) {
		ret = -ENOMEM;
		goto out;
	}
	if (p->paired) {
		double est, lo, hi;

		res->method = BB_AB_METHOD_PAIRED;
		res->n = na;
		res->n_min = bb_ab_paired_nmin(alpha);
		for (size_t i = 0; i < na; i++)
			tmp[i] = log(b[i]) - log(a[i]);
		ret = bb_ab_hodges_lehmann(tmp, na, p->confidence, &est, &lo,
					   &hi, &res->ci_level);
		if (!ret)
			ret = bb_ab_signrank_p(tmp, na, &res->p_value);
		if (ret)
			goto out;
		res->change = expm1(est);
		res->ci_lo = expm1(lo);
		res->ci_hi = expm1(hi);
		res->log_sd = bb_ab_sd(tmp, na);
		est_log = est;
		enough = res->ci_level >= p->confidence - 1e-12;
		coef = M_PI / 3.0;
	} else {
		double sa, sb;

		res->method = BB_AB_METHOD_UNPAIRED;
		res->n = bb_min(na, nb);
		res->n_min = bb_ab_unpaired_nmin(alpha);
		ret = bb_ab_mannwhitney_p(a, na, b, nb, NULL, &res->p_value);
		if (!ret)
			ret = bb_ab_bootstrap_ratio(a, na, b, nb,
						    p->confidence,
						    p->resamples, p->seed,
						    &res->ci_lo, &res->ci_hi);
		if (ret)
			goto out;
		res->change = res->change_median;
		res->ci_level = p->confidence;
		for (size_t i = 0; i < na; i++)
			tmp[i] = log(a[i]);
		sa = bb_ab_sd(tmp, na);
		for (size_t i = 0; i < nb; i++)
			tmp[i] = log(b[i]);
		sb = bb_ab_sd(tmp, nb);
		res->log_sd = sqrt(sa * sa + sb * sb);
		est_log = log(res->b.median / res->a.median);
		enough = bb_ab_mwu_extreme_p(na, nb) <= alpha;
		coef = M_PI / 2.0;
	}

	res->too_few = !enough;
	if (!enough)
		res->verdict = BB_AB_INCONCLUSIVE;
	else if (res->ci_lo >= -p->min_effect && res->ci_hi <= p->min_effect)
		res->verdict = BB_AB_NO_CHANGE;
	else if ((res->ci_lo > 0 || res->ci_hi < 0) && res->p_value <= alpha)
		res->verdict = ((res->ci_lo > 0) == p->higher_is_better) ?
				       BB_AB_FASTER : BB_AB_SLOWER;
	else
		res->verdict = BB_AB_INCONCLUSIVE;

	if (res->verdict == BB_AB_INCONCLUSIVE)
		bb_ab_more(res, coef, z, res->log_sd, est_log);
out:
	free(tmp);
	return ret;
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

int bb_ab_format(const struct bb_ab_result *r, char *buf, size_t len)
{
	char lo[32], hi[32], pv[32], ci[128], nn[64];
	const char *unit, *sep;
	double conf_pct, eff_pct;
	int w = 0;

	if (!r || !buf || len == 0)
		return -EINVAL;
	conf_pct = r->confidence * 100.0;
	eff_pct = r->min_effect * 100.0;
	bb_ab_pct(lo, sizeof(lo), r->ci_lo);
	bb_ab_pct(hi, sizeof(hi), r->ci_hi);
	bb_ab_pval(pv, sizeof(pv), r->p_value);
	snprintf(ci, sizeof(ci), "%.4g%% CI %s .. %s", conf_pct, lo, hi);
	if (r->method == BB_AB_METHOD_PAIRED) {
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
		w = snprintf(buf, len, "B is %.1f%% %s than A (%s%s, %s, %s)",
			     fabs(r->change) * 100.0,
			     r->verdict == BB_AB_FASTER ? "faster" : "slower",
			     r->higher_is_better ? "" : "lower is better; ",
			     ci, pv, nn);
		break;
	case BB_AB_NO_CHANGE:
		w = snprintf(buf, len, "no change: B within ±%.3g%% of A (%s, %s)",
			     eff_pct, ci, nn);
		break;
	case BB_AB_INCONCLUSIVE:
		sep = r->more_capped ? "more than" : "about";
		if (r->too_few)
			w = snprintf(buf, len,
				     "inconclusive: %s are too few for a %.4g%% "
				     "verdict; %s %u %s needed",
				     nn + 2, /* "3 pairs", "3+4 runs" */
				     conf_pct, sep, r->more_needed, unit);
		else if (r->ci_lo <= 0 && r->ci_hi >= 0)
			w = snprintf(buf, len,
				     "inconclusive: %s spans 0; %s %u %s needed",
				     ci, sep, r->more_needed, unit);
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
	if (r->verdict != BB_AB_INCONCLUSIVE || r->n >= max_repeat)
		return 0;
	if (r->n >= r->n_min &&
	    (double)r->n + r->more_needed > 2.0 * (double)max_repeat)
		return 0; /* futile within the budget */
	*more = true;
	return 0;
}
