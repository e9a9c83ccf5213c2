// SPDX-License-Identifier: GPL-2.0-only
/* compare_jobs_fmt.c - prints the comparison of jobs (GET /api/v1/compare,
 * bb_jobcmp's document): `biobench compare BASE OTHER...`. */
#include "cli.h"

#include <biobench/common.h>
#include <biobench/jobcompare.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define JT_COLS (1 + BB_JOBCMP_MAX_JOBS) /* a label, a column per job */
#define JT_ROWS 512 /* rows: a diff with per-variant rows of 8 variants fits */
#define JT_CELL 160
#define JT_WIDTH 38 /* widest column shown (longer values are cut) */

/* A table: a mark column ("*" or " "), a label, a column per job. */
struct jtable {
	unsigned ncols, nrows;
	char mark[JT_ROWS];
	char cell[JT_ROWS][JT_COLS][JT_CELL];
};

static char (*jt_row(struct jtable *t, char mark, const char *label))[JT_CELL]
{
	char(*row)[JT_CELL];

	if (t->nrows == JT_ROWS)
		return NULL;
	t->mark[t->nrows] = mark;
	row = t->cell[t->nrows++];
	snprintf(row[0], JT_CELL, "%s", label);
	return row;
}

static void jt_print(FILE *f, const struct jtable *t, bool marks)
{
	unsigned w[JT_COLS] = { 0 };
	char buf[4 * JT_CELL];

	for (unsigned r = 0; r < t->nrows; r++)
		for (unsigned c = 0; c < t->ncols; c++)
			w[c] = bb_max(w[c], bb_cli_chars(t->cell[r][c]));
	for (unsigned c = 0; c < t->ncols; c++)
		w[c] = bb_min(w[c], (unsigned)JT_WIDTH);
	for (unsigned r = 0; r < t->nrows; r++) {
		fprintf(f, "%s", marks ? (t->mark[r] == '*' ? "* " : "  ") : "  ");
		for (unsigned c = 0; c < t->ncols; c++) {
			bb_cli_fit(buf, sizeof(buf), t->cell[r][c],
				   c + 1 == t->ncols ? bb_min(w[c], bb_cli_chars(
							      t->cell[r][c])) :
						       w[c]);
			fprintf(f, "%s%s", c ? "   " : "", buf);
		}
		fputc('\n', f);
	}
}

static void fmt_pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.2f%%", v * 100);
	else
		snprintf(buf, len, "-");
}

static void fmt_p(char *buf, size_t len, double p)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.001)
		snprintf(buf, len, "<0.001");
	else
		snprintf(buf, len, "%.3g", p);
}

static const char *verdict_words(const char *v)
{
	if (!v)
		return "none";
	return !strcmp(v, "no_change") ? "no change" : v;
}

static size_t arr_len(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ?
		       json_object_array_length(a) : 0;
}

/* The comparisons of variant, one per other side, in side order. */
static size_t side_cmps(struct json_object *cmps, const char *variant,
			struct json_object **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < arr_len(cmps) && n < max; i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i);

		if (!strcmp(bb_cli_jstr(c, "variant", ""), variant))
			out[n++] = c;
	}
	return n;
}

/* "12" or "12, 14, 16" */
static void ids_text(char *buf, size_t len, struct json_object *ids)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < arr_len(ids) && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%.0f",
					i ? ", " : "",
					json_object_get_double(
						json_object_array_get_idx(ids, i)));
}

/* The rows of a comparison's figures, in order ("ci_lo": the CI). */
static const struct {
	const char *label, *key;
	bool pct;
} stat_rows[] = {
	{ "ratio of medians", "change_median", true },
	{ "change", "change", true },
	{ "CI (real coverage)", "ci_lo", true },
	{ "p-value", "p_value", false },
	{ "p adjusted (Holm)", "p_adjusted", false },
	{ "TOST p (no change)", "tost_p", false },
};

/* A comparison that was made. */
#define OK(c) ((c) && !bb_cli_jget((c), "error"))

/* One variant: a column per job that has it (its runs), then a column
 * per other side (the comparison with the base side). */
static void print_variant(FILE *f, struct json_object *doc, const char *name)
{
	struct json_object *jobs = bb_cli_jget(doc, "jobs");
	struct json_object *cmps = bb_cli_jget(doc, "comparisons");
	const char *unit = bb_cli_jstr(doc, "unit", "");
	struct json_object *vs[JT_COLS] = { 0 }, *cs[JT_COLS] = { 0 };
	char(*row)[JT_CELL];
	struct jtable *t = calloc(1, sizeof(*t));
	unsigned nj = 0, nc;
	char lab[64], ids[JT_CELL];

	if (!t)
		return;
	for (size_t j = 0; j < arr_len(jobs) && nj < JT_COLS - 1; j++) {
		struct json_object *job = json_object_array_get_idx(jobs, j);
		char path[96];

		snprintf(path, sizeof(path), "variants.%s", name);
		if (!(vs[nj] = bb_cli_jget(job, path)))
			continue;
		nj++;
	}
	t->ncols = 1 + nj;
	row = jt_row(t, ' ', "");
	snprintf(row[0], JT_CELL, "variant %s", name);
	for (size_t j = 0, k = 0; j < arr_len(jobs) && k < nj; j++) {
		struct json_object *job = json_object_array_get_idx(jobs, j);
		char path[96];

		snprintf(path, sizeof(path), "variants.%s", name);
		if (!bb_cli_jget(job, path))
			continue;
		snprintf(row[1 + k++], JT_CELL, "job %.0f%s",
			 bb_cli_jnum(job, "id", 0),
			 bb_cli_jnum(job, "side", 0) ? "" : " (base)");
	}
#define EACH(n, label, ...)                                                   \
	do {                                                                  \
		if (!(row = jt_row(t, ' ', label)))                           \
			break;                                                \
		for (unsigned j = 0; j < (n); j++) {                          \
			struct json_object *v = vs[j], *c = cs[j];            \
			char *cell = row[1 + j];                              \
			(void)v;                                              \
			(void)c;                                              \
			__VA_ARGS__;                                          \
		}                                                             \
	} while (0)
	EACH(nj, "measured runs",
	     if (v) snprintf(cell, JT_CELL, "%.0f", bb_cli_jnum(v, "n", 0)));
	snprintf(lab, sizeof(lab), "median %s", unit);
	EACH(nj, lab, if (v) bb_cli_fmt_metric(cell, JT_CELL,
					       bb_cli_jnum(v, "median", NAN), unit));
	EACH(nj, "run-to-run spread (SD)",
	     if (v && bb_cli_jget(v, "spread"))
		     snprintf(cell, JT_CELL, "%.2f%%",
			      bb_cli_jnum(v, "spread", NAN) * 100));
	EACH(nj, "boots", if (v) snprintf(cell, JT_CELL, "%.0f",
					  bb_cli_jnum(v, "boots", 0)));
	EACH(nj, "disturbed runs",
	     if (v) snprintf(cell, JT_CELL, "%.0f%s",
			     bb_cli_jnum(v, "disturbed", 0),
			     bb_cli_jnum(v, "excluded", 0) > 0 ? " (left out)" :
			     bb_cli_jnum(v, "disturbed", 0) > 0 ? " (kept)" : ""));
	jt_print(f, t, false);

	/* the comparisons: a column per other side */
	memset(t, 0, sizeof(*t));
	memset(vs, 0, sizeof(vs));
	nc = (unsigned)side_cmps(cmps, name, cs, JT_COLS - 1);
	t->ncols = 1 + nc;
	row = jt_row(t, ' ', "");
	ids_text(ids, sizeof(ids), bb_cli_jget(doc, "base_jobs"));
	snprintf(row[0], JT_CELL, "against job%s %s",
		 strchr(ids, ',') ? "s" : "", ids);
	for (unsigned k = 0; k < nc; k++) {
		ids_text(ids, sizeof(ids), bb_cli_jget(cs[k], "jobs"));
		snprintf(row[1 + k], JT_CELL, "job%s %s",
			 strchr(ids, ',') ? "s" : "", ids);
	}
	EACH(nc, "compared by", if (OK(c)) {
		const char *by = bb_cli_jstr(c, "compared_by", "run");

		if (!strcmp(by, "run"))
			snprintf(cell, JT_CELL, "run (%.0f+%.0f runs: assumes "
						"jobs do not differ)",
				 bb_cli_jnum(c, "a.n", 0), bb_cli_jnum(c, "b.n", 0));
		else
			snprintf(cell, JT_CELL, "%s (%.0f+%.0f %ss, df %.0f)", by,
				 bb_cli_jnum(c, "units.base", 0),
				 bb_cli_jnum(c, "units.other", 0), by,
				 bb_cli_jnum(c, "units.df", 0));
	});
	EACH(nc, "between-unit spread (SD)",
	     if (OK(c) && bb_cli_jget(c, "units.between_sd"))
		     snprintf(cell, JT_CELL, "%.2f%%",
			      bb_cli_jnum(c, "units.between_sd", NAN) * 100);
	     else if (OK(c) && bb_cli_jget(c, "units"))
		     snprintf(cell, JT_CELL, "unknown (one a side)"));
	for (size_t k = 0; k < bb_array_size(stat_rows); k++) {
		if (!strcmp(stat_rows[k].key, "ci_lo"))
			EACH(nc, "CI (real coverage)", if (OK(c)) {
				char lo[32], hi[32];

				if (!bb_cli_jget(c, "ci_lo")) {
					snprintf(cell, JT_CELL, "none");
					continue;
				}
				fmt_pct(lo, sizeof(lo),
					bb_cli_jnum(c, "ci_lo", NAN));
				fmt_pct(hi, sizeof(hi),
					bb_cli_jnum(c, "ci_hi", NAN));
				snprintf(cell, JT_CELL, "%s %s .. %s",
					 bb_cli_jstr(c, "ci_label", "CI"), lo,
					 hi);
			});
		else
			EACH(nc, stat_rows[k].label, if (OK(c)) {
				double x = bb_cli_jnum(c, stat_rows[k].key, NAN);

				if (stat_rows[k].pct)
					fmt_pct(cell, JT_CELL, x);
				else
					fmt_p(cell, JT_CELL, x);
			});
	}
	EACH(nc, "verdict",
	     if (c) snprintf(cell, JT_CELL, "%s",
			     bb_cli_jget(c, "error") ?
				     "not compared" :
				     verdict_words(bb_cli_jstr(c, "verdict", NULL))));
#undef EACH
	if (nc) {
		fputc('\n', f);
		jt_print(f, t, false);
	}
	free(t);
}

/* The rows of what differs: host, run, target, device and queue rows
 * all (the metadata), job and config rows when they differ. */
static void print_diff(FILE *f, struct json_object *doc)
{
	struct json_object *rows = bb_cli_jget(doc, "diff");
	struct json_object *jobs = bb_cli_jget(doc, "jobs");
	unsigned nj = (unsigned)bb_min(arr_len(jobs), (size_t)(JT_COLS - 1));
	struct jtable *t = calloc(1, sizeof(*t));
	char(*row)[JT_CELL];
	size_t hidden = 0, differ = 0;

	if (!t)
		return;
	t->ncols = 1 + nj;
	row = jt_row(t, ' ', "");
	for (unsigned j = 0; j < nj; j++)
		snprintf(row[1 + j], JT_CELL, "job %.0f",
			 bb_cli_jnum(json_object_array_get_idx(jobs, j), "id", 0));
	for (size_t i = 0; i < arr_len(rows); i++) {
		struct json_object *r = json_object_array_get_idx(rows, i);
		struct json_object *vals = bb_cli_jget(r, "values");
		const char *sec = bb_cli_jstr(r, "section", "");
		const char *var = bb_cli_jstr(r, "variant", NULL);
		bool d = json_object_get_boolean(bb_cli_jget(r, "differs"));
		bool wl = json_object_get_boolean(bb_cli_jget(r, "workload"));
		char label[JT_CELL];

		differ += d;
		if (!d && (!strcmp(sec, "job") || !strcmp(sec, "config"))) {
			hidden++;
			continue;
		}
		snprintf(label, sizeof(label), "%s%s%s%s%s",
			 bb_cli_jstr(r, "key", "?"), var ? " [" : "",
			 var ? var : "", var ? "]" : "", wl && d ? " (workload)" : "");
		if (!(row = jt_row(t, d ? '*' : ' ', label)))
			break;
		for (unsigned j = 0; j < nj; j++) {
			struct json_object *v = json_object_array_get_idx(vals, j);

			snprintf(row[1 + j], JT_CELL, "%s",
				 v ? json_object_get_string(v) : "-");
		}
	}
	fprintf(f, "\nwhat differs between the jobs (* marks a row that "
		   "differs: %zu of %zu; %zu equal job and config rows not "
		   "shown, --json has every row):\n",
		differ, arr_len(rows), hidden);
	jt_print(f, t, true);
	free(t);
}

void bb_cli_compare_jobs_print(FILE *f, struct json_object *doc)
{
	struct json_object *jobs = bb_cli_jget(doc, "jobs");
	struct json_object *cmps = bb_cli_jget(doc, "comparisons");
	struct json_object *warnings = bb_cli_jget(doc, "warnings");
	struct json_object *base = json_object_array_get_idx(jobs, 0);
	struct json_object *names = json_object_new_object();
	const char *hib;

	for (size_t j = 0; j < arr_len(jobs); j++) {
		struct json_object *o = json_object_array_get_idx(jobs, j);
		double side = bb_cli_jnum(o, "side", 0);
		double prev = j ? bb_cli_jnum(json_object_array_get_idx(jobs, j - 1),
					      "side", 0) : -1;

		fprintf(f, "%s job %.0f \"%s\" (%s, %s)",
			side == prev ? "," : !side ? "base" :
			side == 1 && prev == 0 ? "\n  with" : ";\n  and",
			bb_cli_jnum(o, "id", 0), bb_cli_jstr(o, "name", ""),
			bb_cli_jstr(o, "state", "?"), bb_cli_jstr(o, "target", "?"));
	}
	(void)base;
	hib = json_object_get_boolean(bb_cli_jget(doc, "higher_is_better")) ?
		      "higher is better" : "lower is better";
	fprintf(f, "\nmetric %s (%s, %s); %s, alpha %.3g, Holm over %.0f "
		   "comparison(s); no change = TOST within ±%.3g%%\n"
		   "unit: %s; each unit: %s\nchange: %s; CI: %s\n",
		bb_cli_jstr(doc, "metric", "?"), bb_cli_jstr(doc, "unit", ""), hib,
		strcmp(bb_cli_jstr(doc, "level", "unit"), "run") ?
			"the job (or boot) as the unit" :
			"run level (asked for: every run an independent sample)",
		1 - bb_cli_jnum(doc, "confidence", 0.95),
		bb_cli_jnum(doc, "family", 0),
		bb_cli_jnum(doc, "min_effect", 0.01) * 100,
		bb_cli_jstr(doc, "statistics.unit", "?"),
		bb_cli_jstr(doc, "statistics.samples", "?"),
		bb_cli_jstr(doc, "statistics.change", "?"),
		bb_cli_jstr(doc, "statistics.ci", "?"));

	/* the variants compared, in the comparisons' order */
	for (size_t i = 0; i < arr_len(cmps); i++) {
		const char *v = bb_cli_jstr(json_object_array_get_idx(cmps, i),
					    "variant", "?");

		if (json_object_object_get_ex(names, v, NULL))
			continue;
		json_object_object_add(names, v, NULL);
		fputc('\n', f);
		print_variant(f, doc, v);
	}
	json_object_put(names);
	fputc('\n', f);
	for (size_t i = 0; i < arr_len(cmps); i++) {
		struct json_object *c = json_object_array_get_idx(cmps, i);
		const char *err = bb_cli_jstr(c, "error", NULL);
		char bi[JT_CELL], oi[JT_CELL];

		ids_text(bi, sizeof(bi), bb_cli_jget(c, "base_jobs"));
		ids_text(oi, sizeof(oi), bb_cli_jget(c, "jobs"));
		fprintf(f, "job%s %s %s vs job%s %s %s: %s\n",
			strchr(oi, ',') ? "s" : "", oi,
			bb_cli_jstr(c, "variant", "?"), strchr(bi, ',') ? "s" : "",
			bi, bb_cli_jstr(c, "baseline", "?"),
			err ? err : bb_cli_jstr(c, "text", "?"));
		if (!err && bb_cli_jstr(c, "precision", NULL))
			fprintf(f, "  %s\n", bb_cli_jstr(c, "precision", ""));
	}
	for (size_t j = 0; j < arr_len(jobs); j++) {
		struct json_object *o = json_object_array_get_idx(jobs, j);
		struct json_object *nf = bb_cli_jget(o, "noise_floor");

		if (nf)
			fprintf(f, "host noise floor of job %.0f: A/A pairs of "
				   "job %.0f on its host and target spread "
				   "%.2f%% (SD of the pair ratios, %.0f pairs)\n",
				bb_cli_jnum(o, "id", 0), bb_cli_jnum(nf, "job_id", 0),
				expm1(bb_cli_jnum(nf, "log_sd", NAN)) * 100,
				bb_cli_jnum(nf, "pairs", 0));
	}
	fprintf(f, "\nboots: %s\n", bb_cli_jstr(doc, "boots.statement", "?"));
	print_diff(f, doc);
	fputc('\n', f);
	for (size_t i = 0; i < arr_len(warnings); i++)
		fprintf(f, "warning: %s\n",
			json_object_get_string(json_object_array_get_idx(warnings, i)));
	fprintf(f, "verdict: %s\n",
		verdict_words(bb_cli_jstr(doc, "verdict", NULL)));
}
