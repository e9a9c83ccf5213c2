// SPDX-License-Identifier: GPL-2.0-only
/* compare_fmt.c - prints a comparison (bb_jobrun_to_json()'s document):
 * the one printer of `biobench compare ID`, `show ID`, `watch ID`,
 * `submit --wait` and the local `biobench ab`. */
#include "cli.h"

#include <biobench/jobspec.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define T_MAXCOLS (1 + BB_JOB_MAX_VARIANTS)
#define T_MAXROWS 64
#define T_CELL 160
#define T_MAX_VALUE_ROWS 12 /* measured values shown per run up to this */
#define T_MAX_DISTURBED 8   /* disturbed runs named, one line each */

struct table {
	unsigned ncols, nrows;
	char cell[T_MAXROWS][T_MAXCOLS][T_CELL];
};

/* A new row labelled label; NULL when the table is full. */
static char (*t_row(struct table *t, const char *label))[T_CELL]
{
	char(*row)[T_CELL];

	if (t->nrows == T_MAXROWS)
		return NULL;
	row = t->cell[t->nrows++];
	snprintf(row[0], T_CELL, "%s", label);
	return row;
}

static void t_print(FILE *f, const struct table *t)
{
	size_t w[T_MAXCOLS] = { 0 };

	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols; c++)
			w[c] = bb_max(w[c], strlen(t->cell[r][c]));
	for (unsigned r = 0; r < t->nrows; r++) {
		fprintf(f, "  %-*s", (int)w[0], t->cell[r][0]);
		for (unsigned c = 1; c < t->ncols; c++)
			fprintf(f, "   %*s", (int)w[c], t->cell[r][c]);
		fputc('\n', f);
	}
}

void bb_cli_fmt_si(char *buf, size_t len, double v)
{
	bb_fmt_iops(buf, len, v);
}

static void fmt_ns(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%.3gs", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%.3gms", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%.1fus", v / 1e3);
	else if (a >= 1e3)
		snprintf(buf, len, "%.2fus", v / 1e3);
	else
		snprintf(buf, len, "%.1fns", v);
}

void bb_cli_fmt_metric(char *buf, size_t len, double v, const char *unit)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "-");
	} else if (!strcmp(unit, "B/s")) {
		static const char *const u[] = { "B/s", "KiB/s", "MiB/s",
						 "GiB/s", "TiB/s" };
		unsigned i = 0;

		while (fabs(v) >= 1024 && i + 1 < bb_array_size(u)) {
			v /= 1024;
			i++;
		}
		snprintf(buf, len, "%.4g %s", v, u[i]);
	} else if (!strcmp(unit, "ns") || !strcmp(unit, "ns/IO")) {
		fmt_ns(buf, len, v);
	} else {
		bb_cli_fmt_si(buf, len, v);
	}
}

void bb_cli_fmt_duration(char *buf, size_t len, double s)
{
	long long t;

	if (!isfinite(s) || s < 0) {
		snprintf(buf, len, "?");
		return;
	}
	if (s < 1) {
		snprintf(buf, len, "%.0fms", s * 1e3);
		return;
	}
	t = llround(s);
	if (t < 60)
		snprintf(buf, len, "%llds", t);
	else if (t < 3600)
		snprintf(buf, len, "%lldm%02llds", t / 60, t % 60);
	else if (t < 86400)
		snprintf(buf, len, "%lldh%02lldm", t / 3600, t % 3600 / 60);
	else
		snprintf(buf, len, "%lldd%lldh", t / 86400, t % 86400 / 3600);
}

/* "key=value" of one override; sysfs objects flattened, a t/io_uring
 * line (normalized {"line", "options"}) as its line. */
static size_t label_add(char *buf, size_t len, size_t off, const char *key,
			struct json_object *v)
{
	const char *s;

	if (!strcmp(key, "tiou") && bb_cli_jget(v, "line"))
		v = bb_cli_jget(v, "line");
	if (v && json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, sub)
		{
			char full[160];

			snprintf(full, sizeof(full), "%s.%s", key, k);
			off = label_add(buf, len, off, full, sub);
		}
		return off;
	}
	s = !v ? "null" :
	    json_object_is_type(v, json_type_string) ?
		 json_object_get_string(v) :
		 json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
						   JSON_C_TO_STRING_NOSLASHESCAPE);
	if (off < len)
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
					off ? " " : "", key, s);
	return off;
}

void bb_cli_variant_label(char *buf, size_t len, struct json_object *spec,
			  const char *variant)
{
	struct json_object *vars = bb_cli_jget(spec, "variants"), *v = NULL;
	size_t off = 0;

	buf[0] = '\0';
	if (vars && json_object_is_type(vars, json_type_object))
		json_object_object_get_ex(vars, variant, &v);
	if (v && json_object_is_type(v, json_type_object)) {
		json_object_object_foreach(v, k, val)
			off = label_add(buf, len, off, k, val);
	}
	if (!buf[0])
		snprintf(buf, len, "(workload)");
}

/* The engine model variant ran with: its own "model", else the
 * workload's, else its t/io_uring line's, else the job's line's, else the
 * default (the bio model): the order the job parser layers them in. */
static const char *variant_model(struct json_object *spec, const char *variant)
{
	struct json_object *vars = bb_cli_jget(spec, "variants"), *v = NULL;
	const char *m = NULL;

	if (vars && json_object_is_type(vars, json_type_object))
		json_object_object_get_ex(vars, variant, &v);
	m = bb_cli_jstr(v, "model", NULL);
	if (!m)
		m = bb_cli_jstr(bb_cli_jget(spec, "workload"), "model", NULL);
	if (!m)
		m = bb_cli_jstr(v, "tiou.options.model", NULL);
	if (!m)
		m = bb_cli_jstr(spec, "tiou.options.model", NULL);
	return m ? m : "bio";
}

static const char *verdict_text(const char *v)
{
	if (!v)
		return "none yet";
	if (!strcmp(v, "no_change"))
		return "no change";
	return v;
}

/* The comparison of variant name in cmp's "comparisons", or NULL. */
static struct json_object *find_cmp(struct json_object *cmps,
				    const char *name)
{
	size_t n;

	if (!cmps || !json_object_is_type(cmps, json_type_array))
		return NULL;
	n = json_object_array_length(cmps);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i);
		const char *v = bb_cli_jstr(c, "variant", NULL);

		if (v && !strcmp(v, name))
			return c;
	}
	return NULL;
}

/* A bio-model counter of a variant: n/a when it ran without the model. */
static void model_counter(char *cell, struct json_object *spec,
			  const char *variant, unsigned long long v)
{
	if (spec && !strcmp(variant_model(spec, variant), "none"))
		snprintf(cell, T_CELL, "n/a");
	else
		snprintf(cell, T_CELL, "%llu", v);
}

static unsigned long long counter(struct json_object *var, const char *path,
				  const char *split_path)
{
	double v = bb_cli_jnum(var, path, 0);

	if (split_path)
		v += bb_cli_jnum(var, split_path, 0);
	return (unsigned long long)v;
}

/* "1.23%" of a log-scale SD (as a relative spread). */
static void fmt_sd(char *buf, size_t len, double sd)
{
	snprintf(buf, len, "%.2f%%", expm1(sd) * 100);
}

/* "noise: between rounds 2.1%, between runs 0.8% (dominant), ...;
 * add runs, not seconds" from the job's "noise". */
static void print_noise(FILE *f, struct json_object *noise)
{
	static const struct {
		const char *key, *label;
	} lv[] = {
		{ "boot", "between boots" },
		{ "round", "between rounds (drift, cancelled by pairing)" },
		{ "run", "between runs" },
		{ "second", "within a run (per-second samples)" },
	};
	const char *dom = bb_cli_jstr(noise, "dominant", NULL);
	const char *adv = bb_cli_jstr(noise, "advice", "");
	bool any = false;

	if (!noise)
		return;
	for (size_t i = 0; i < bb_array_size(lv); i++) {
		char path[64], sd[32];
		struct json_object *l;

		snprintf(path, sizeof(path), "levels.%s", lv[i].key);
		l = bb_cli_jget(noise, path);
		if (!l || !json_object_get_boolean(bb_cli_jget(l, "measured")))
			continue;
		fmt_sd(sd, sizeof(sd), bb_cli_jnum(l, "sd", NAN));
		fprintf(f, "%s%s %s%s", any ? ", " : "noise (SD): ", lv[i].label,
			sd, dom && !strcmp(dom, lv[i].key) ? " (dominant)" : "");
		any = true;
	}
	if (any)
		fprintf(f, "%s%s\n", adv[0] ? ": " : "", adv);
}

/* "host noise floor: ..." of the job document's "noise_floor". */
static void print_noise_floor(FILE *f, struct json_object *nf)
{
	char sd[32];

	if (!nf)
		return;
	fmt_sd(sd, sizeof(sd), bb_cli_jnum(nf, "log_sd", NAN));
	fprintf(f, "host noise floor: A/A pairs of job %.0f on this host and "
		   "target spread %s (SD of the pair ratios, %.0f pairs); a "
		   "change well inside it needs many pairs\n",
		bb_cli_jnum(nf, "job_id", 0), sd, bb_cli_jnum(nf, "pairs", 0));
}

/* One line on how noisy the host was during the job, in the terms of
 * the result: the spread of the baseline's measured runs (their CV, min
 * and max) next to the change, so that a first result says whether it
 * stands out of the noise or sits inside it. */
static void print_spread(FILE *f, const char *base, struct json_object *bv,
			 struct json_object *c, const char *unit)
{
	struct json_object *vals = bb_cli_jget(bv, "values");
	size_t n = vals && json_object_is_type(vals, json_type_array) ?
			   json_object_array_length(vals) : 0;
	double sum = 0, ss = 0, lo = INFINITY, hi = -INFINITY, mean, cv;
	double change = bb_cli_jnum(c, "change", NAN);
	char slo[32], shi[32];

	if (n < 2 || !isfinite(change))
		return;
	for (size_t i = 0; i < n; i++) {
		double v = json_object_get_double(json_object_array_get_idx(vals, i));

		sum += v;
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++) {
		double d = json_object_get_double(json_object_array_get_idx(vals, i)) -
			   mean;

		ss += d * d;
	}
	if (!(mean > 0))
		return;
	cv = sqrt(ss / (double)(n - 1)) / mean;
	bb_cli_fmt_metric(slo, sizeof(slo), lo, unit);
	bb_cli_fmt_metric(shi, sizeof(shi), hi, unit);
	fprintf(f, "host noise: %s's %zu runs spread ±%.1f%% (CV; %s .. %s) "
		   "against a change of %+.1f%%: %s\n",
		base, n, cv * 100, slo, shi, change * 100,
		fabs(change) >= 3 * cv ? "the change stands well clear of "
					 "the run-to-run noise" :
		fabs(change) >= cv ? "the change is larger than the "
				     "run-to-run noise, not by much: trust "
				     "the CI, not the figure" :
				     "the change is inside the run-to-run "
				     "noise: only the CI and the verdict tell "
				     "it apart (more pairs or a quieter host "
				     "make it clearer)");
}

/* "warning: 3 measured run(s) disturbed ..." and, one line each, which
 * runs and what disturbed them (the comparison's "disturbed"). */
static void print_disturbed(FILE *f, struct json_object *cmp)
{
	struct json_object *list = bb_cli_jget(cmp, "disturbed");
	double total = bb_cli_jnum(cmp, "disturbed_runs", 0);
	double excl = bb_cli_jnum(cmp, "rounds_excluded", 0);
	size_t n = list && json_object_is_type(list, json_type_array) ?
			   json_object_array_length(list) : 0;
	size_t shown = n < T_MAX_DISTURBED ? n : T_MAX_DISTURBED;

	fprintf(f, "warning: %.0f measured run(s) disturbed (other load on "
		   "the benchmark CPUs, or the process stalled)", total);
	if (excl > 0)
		fprintf(f, "; %.0f round(s) left out of the statistics", excl);
	fprintf(f, "%s\n", n ? ":" : "");
	for (size_t i = 0; i < shown; i++) {
		struct json_object *d = json_object_array_get_idx(list, i);

		fprintf(f, "  run %.0f (%s, round %.0f): %s\n",
			bb_cli_jnum(d, "run", 0), bb_cli_jstr(d, "variant", "?"),
			bb_cli_jnum(d, "round", 0),
			bb_cli_jstr(d, "reason", "?"));
	}
	if (total > (double)shown && n)
		fprintf(f, "  (%.0f more)\n", total - (double)shown);
}

void bb_cli_compare_print(FILE *f, struct json_object *cmp,
			  struct json_object *spec,
			  struct json_object *warnings,
			  struct json_object *noise_floor)
{
	static const struct {
		const char *label, *key;
	} counters[] = {
		{ "bio cache hits", "alloc_hit" },
		{ "bio cache misses", "alloc_miss" },
		{ "slab allocations", "alloc_slab" },
		{ "irq list splices", "splice" },
		{ "puts to task list", "put_task" },
		{ "puts to irq list", "put_irq" },
		{ "frees", "free" },
	};
	struct json_object *vars = bb_cli_jget(cmp, "variants");
	struct json_object *cmps = bb_cli_jget(cmp, "comparisons");
	struct json_object *first = NULL;
	const char *names[BB_JOB_MAX_VARIANTS];
	struct json_object *vobj[BB_JOB_MAX_VARIANTS];
	const char *unit = bb_cli_jstr(cmp, "unit", "");
	const char *metric = bb_cli_jstr(cmp, "metric", "?");
	const char *order = bb_cli_jstr(spec, "order", NULL);
	unsigned nv = 0, maxn = 0;
	char(*row)[T_CELL];
	struct table *t;
	char buf[T_CELL];

	if (!vars || !json_object_is_type(vars, json_type_object)) {
		fprintf(f, "no comparison yet\n");
		return;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		fprintf(f, "out of memory\n");
		return;
	}
	json_object_object_foreach(vars, vname, vval)
	{
		if (nv == BB_JOB_MAX_VARIANTS)
			break;
		names[nv] = vname;
		vobj[nv++] = vval;
		maxn = bb_max(maxn, (unsigned)bb_cli_jnum(vval, "n", 0));
	}
	t->ncols = 1 + nv;
	if (cmps && json_object_is_type(cmps, json_type_array) &&
	    json_object_array_length(cmps))
		first = json_object_array_get_idx(cmps, 0);

	{
		struct json_object *hib = bb_cli_jget(first, "higher_is_better");
		const char *method = bb_cli_jstr(first, "method", NULL);

		fprintf(f, "\nmetric %s (%s%s%s), %u of %u runs done, %.0f "
			   "measured round(s)%s%s%s%s\n",
			metric, unit,
			hib ? ", " : "",
			hib ? (json_object_get_boolean(hib) ?
				       "higher is better" :
				       "lower is better") :
			      "",
			(unsigned)bb_cli_jnum(cmp, "runs_done", 0),
			(unsigned)bb_cli_jnum(cmp, "runs_planned", 0),
			bb_cli_jnum(cmp, "rounds_planned", 0),
			order ? ", order " : "", order ? order : "",
			method ? ", " : "", method ? method : "");
	}

	if (bb_cli_jstr(bb_cli_jget(cmp, "order"), "text", NULL))
		fprintf(f, "order: %s\n",
			bb_cli_jstr(bb_cli_jget(cmp, "order"), "text", ""));
	/* a boot job: each boot's median is one value, paired by boot pair */
	if (!strcmp(bb_cli_jstr(cmp, "design", ""), "boots"))
		fprintf(f, "boots: each boot's median is one value, paired "
			   "by boot pair; %s; "
			   "runs from different boots carry between-boot "
			   "variance, which this pairing puts on both sides\n",
			bb_cli_jstr(cmp, "text", ""));

	if (first && bb_cli_jstr(first, "ci_method", NULL)) {
		double fam = bb_cli_jnum(first, "family", 1);

		fprintf(f, "statistics: %s, alpha %.3g", bb_cli_jstr(first, "ci_method", ""),
			1 - bb_cli_jnum(first, "confidence", 0.95));
		if (fam > 1)
			fprintf(f, ", %s-adjusted over %.0f comparisons",
				!strcmp(bb_cli_jstr(first, "multiple", "holm"), "bh") ?
					"Benjamini-Hochberg" : "Holm",
				fam);
		fprintf(f, "; no change = TOST within ±%.3g%%\n",
			bb_cli_jnum(first, "min_effect", 0.01) * 100);
	}

	row = t_row(t, "");
	for (unsigned i = 0; i < nv; i++)
		snprintf(row[1 + i], T_CELL, "%s", names[i]);
	if (spec && (row = t_row(t, "overrides")))
		for (unsigned i = 0; i < nv; i++)
			bb_cli_variant_label(row[1 + i], T_CELL, spec,
					     names[i]);
	if (spec && (row = t_row(t, "model")))
		for (unsigned i = 0; i < nv; i++)
			snprintf(row[1 + i], T_CELL, "%s",
				 variant_model(spec, names[i]));
	if ((row = t_row(t, !strcmp(bb_cli_jstr(cmp, "design", ""), "boots") ?
				    "measured boots" : "measured runs")))
		for (unsigned i = 0; i < nv; i++)
			snprintf(row[1 + i], T_CELL, "%.0f",
				 bb_cli_jnum(vobj[i], "n", 0));
	snprintf(buf, sizeof(buf), "median %s", unit);
	if ((row = t_row(t, buf)))
		for (unsigned i = 0; i < nv; i++)
			bb_cli_fmt_metric(row[1 + i], T_CELL,
					  bb_cli_jnum(vobj[i], "median", NAN),
					  unit);
	{
		const char *lab0 = bb_cli_jstr(first, "ci_label", NULL);
		bool adj = bb_cli_jnum(first, "family", 1) > 1;
		char(*chg)[T_CELL], (*ci)[T_CELL], (*pv)[T_CELL], (*pa)[T_CELL];
		char(*tp)[T_CELL], (*vd)[T_CELL];

		if (lab0)
			snprintf(buf, sizeof(buf), "%s", lab0);
		else /* a comparison stored before coverage labels */
			snprintf(buf, sizeof(buf), "%g%% CI",
				 bb_cli_jnum(first, "confidence", 0.95) * 100);
		chg = t_row(t, "change");
		ci = t_row(t, buf);
		pv = t_row(t, "p-value");
		pa = adj ? t_row(t, !strcmp(bb_cli_jstr(first, "multiple", ""), "bh") ?
					    "p adjusted (BH)" : "p adjusted (Holm)") :
			   NULL;
		tp = t_row(t, "TOST p (no change)");
		vd = t_row(t, "verdict");
		for (unsigned i = 0; chg && ci && pv && tp && vd && i < nv; i++) {
			struct json_object *c = find_cmp(cmps, names[i]);
			struct json_object *capped = bb_cli_jget(c, "more_capped");
			const char *v = bb_cli_jstr(c, "verdict", NULL);
			const char *lab = bb_cli_jstr(c, "ci_label", NULL);
			double more = bb_cli_jnum(c, "more_needed", 0);

			if (!i) {
				snprintf(chg[1], T_CELL, "(baseline)");
				continue;
			}
			if (!c || bb_cli_jget(c, "error")) {
				snprintf(chg[1 + i], T_CELL, "-");
				snprintf(vd[1 + i], T_CELL, "%s",
					 c ? "no comparison" : "-");
				continue;
			}
			snprintf(chg[1 + i], T_CELL, "%+.2f%%",
				 bb_cli_jnum(c, "change", NAN) * 100);
			snprintf(ci[1 + i], T_CELL, "%+.2f%% .. %+.2f%%%s%s%s",
				 bb_cli_jnum(c, "ci_lo", NAN) * 100,
				 bb_cli_jnum(c, "ci_hi", NAN) * 100,
				 lab && lab0 && strcmp(lab, lab0) ? " (" : "",
				 lab && lab0 && strcmp(lab, lab0) ? lab : "",
				 lab && lab0 && strcmp(lab, lab0) ? ")" : "");
			snprintf(pv[1 + i], T_CELL, "%.3g",
				 bb_cli_jnum(c, "p_value", NAN));
			if (pa)
				snprintf(pa[1 + i], T_CELL, "%.3g",
					 bb_cli_jnum(c, "p_adjusted", NAN));
			if (bb_cli_jget(c, "tost_p"))
				snprintf(tp[1 + i], T_CELL, "%.3g",
					 bb_cli_jnum(c, "tost_p", NAN));
			if (v && !strcmp(v, "inconclusive") && more > 0)
				snprintf(vd[1 + i], T_CELL,
					 "%s (%.0f%s more)",
					 verdict_text(v), more,
					 capped && json_object_get_boolean(capped) ?
						 "+" : "");
			else
				snprintf(vd[1 + i], T_CELL, "%s",
					 verdict_text(v));
		}
	}
	if (maxn && maxn <= T_MAX_VALUE_ROWS) {
		bool blocked = order && !strcmp(order, "blocked");

		for (unsigned k = 0; k < maxn; k++) {
			snprintf(buf, sizeof(buf), "%s %u", blocked ? "run" :
								     "round",
				 k + 1);
			if (!(row = t_row(t, buf)))
				break;
			for (unsigned i = 0; i < nv; i++) {
				struct json_object *vals =
					bb_cli_jget(vobj[i], "values");

				if (vals &&
				    json_object_is_type(vals, json_type_array) &&
				    k < json_object_array_length(vals))
					bb_cli_fmt_metric(
						row[1 + i], T_CELL,
						json_object_get_double(
							json_object_array_get_idx(
								vals, k)),
						unit);
			}
		}
	}
	if (strcmp(metric, "iops") && (row = t_row(t, "last run IOPS")))
		for (unsigned i = 0; i < nv; i++)
			bb_cli_fmt_si(row[1 + i], T_CELL,
				      bb_cli_jnum(vobj[i], "last_iops", NAN));
	for (size_t k = 0; k < bb_array_size(counters); k++) {
		char p1[64], p2[64];

		if (!(row = t_row(t, counters[k].label)))
			break;
		snprintf(p1, sizeof(p1), "bio_cache.%s", counters[k].key);
		snprintf(p2, sizeof(p2), "bio_cache.split_bioset.%s",
			 counters[k].key);
		for (unsigned i = 0; i < nv; i++)
			model_counter(row[1 + i], spec, names[i],
				      counter(vobj[i], p1, p2));
	}
	if ((row = t_row(t, "split pieces")))
		for (unsigned i = 0; i < nv; i++)
			model_counter(row[1 + i], spec, names[i],
				      counter(vobj[i], "split.pieces", NULL));
	if (bb_cli_jstr(vobj[0], "put_context", NULL) &&
	    (row = t_row(t, "bio puts in")))
		for (unsigned i = 0; i < nv; i++)
			snprintf(row[1 + i], T_CELL, "%s",
				 bb_cli_jstr(vobj[i], "put_context", "?"));
	/* a job that ended before any measured run has nothing to show */
	if (maxn)
		t_print(f, t);
	else
		fprintf(f, "  no measured run finished: nothing to compare\n");
	free(t);

	fputc('\n', f);
	if (cmps && json_object_is_type(cmps, json_type_array)) {
		size_t n = json_object_array_length(cmps);

		for (size_t i = 0; i < n; i++) {
			struct json_object *c = json_object_array_get_idx(cmps, i);
			const char *err = bb_cli_jstr(c, "error", NULL);

			fprintf(f, "%s vs %s: %s\n",
				bb_cli_jstr(c, "variant", "?"),
				bb_cli_jstr(c, "baseline", "?"),
				err ? err : bb_cli_jstr(c, "text", "?"));
			if (!err && bb_cli_jstr(c, "precision", NULL))
				fprintf(f, "  %s\n", bb_cli_jstr(c, "precision", ""));
		}
	}
	if (bb_cli_jstr(bb_cli_jget(cmp, "scope"), "note", NULL))
		fprintf(f, "scope: %s\n",
			bb_cli_jstr(bb_cli_jget(cmp, "scope"), "note", ""));
	if (nv > 1)
		print_spread(f, names[0], vobj[0], find_cmp(cmps, names[1]), unit);
	print_noise(f, bb_cli_jget(cmp, "noise"));
	print_noise_floor(f, noise_floor);
	if (bb_cli_jnum(cmp, "disturbed_runs", 0) > 0)
		print_disturbed(f, cmp);
	if (warnings && json_object_is_type(warnings, json_type_array)) {
		size_t n = json_object_array_length(warnings);

		for (size_t i = 0; i < n; i++)
			fprintf(f, "warning: %s\n",
				json_object_get_string(
					json_object_array_get_idx(warnings, i)));
	}
	{
		/* the job's state, when the caller put it in (cmd_client's
		 * cmp_sync): a job that ended early has no verdict to wait
		 * for */
		const char *js = bb_cli_jstr(cmp, "job_state", "");
		const char *v = bb_cli_jstr(cmp, "verdict", NULL);

		if (!v && (!strcmp(js, "failed") || !strcmp(js, "cancelled") ||
			   !strcmp(js, "interrupted")))
			fprintf(f, "verdict: none (the job %s)\n",
				!strcmp(js, "failed") ? "failed" :
				!strcmp(js, "cancelled") ? "was cancelled" :
							   "was interrupted");
		else
			fprintf(f, "verdict: %s\n", verdict_text(v));
	}
}
