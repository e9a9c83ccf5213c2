// SPDX-License-Identifier: GPL-2.0-only
/* compare_group_fmt.c - prints the comparison of a group job (GET
 * /api/v1/jobs/{parent}/compare with "group": true): one row per host
 * and comparison side by side, then the combined line of each
 * comparison and the hosts that disagree.  `biobench compare ID` of a
 * group's parent. */
#include "cli.h"

#include <biobench/common.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#define G_COLS 8
#define G_ROWS 257
#define G_CELL 96

static void g_pct(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%+.2f%%", v * 100);
	else
		snprintf(buf, len, "-");
}

static const char *g_words(const char *v)
{
	return !v ? "-" : !strcmp(v, "no_change") ? "no change" : v;
}

void bb_cli_compare_group_print(FILE *f, struct json_object *doc)
{
	static char cell[G_ROWS][G_COLS][G_CELL];
	static const char *const head[G_COLS] = {
		"HOST", "JOB", "STATE", "N", "CHANGE", "CI", "P", "VERDICT",
	};
	struct json_object *rows = bb_cli_jget(doc, "rows");
	struct json_object *comb = bb_cli_jget(doc, "combined");
	struct json_object *warn = bb_cli_jget(doc, "warnings");
	size_t n = rows && json_object_is_type(rows, json_type_array) ?
			   json_object_array_length(rows) : 0;
	size_t w[G_COLS] = { 0 }, nr = 0;
	char lo[32], hi[32];

	printf("  %.0f host(s), metric %s\n", bb_cli_jnum(doc, "hosts", 0),
	       bb_cli_jstr(doc, "metric", "?"));
	for (unsigned c = 0; c < G_COLS; c++)
		snprintf(cell[0][c], G_CELL, "%s", head[c]);
	nr = 1;
	for (size_t i = 0; i < n && nr < G_ROWS; i++, nr++) {
		struct json_object *r = json_object_array_get_idx(rows, i);
		double p = bb_cli_jnum(r, "p_adjusted",
				       bb_cli_jnum(r, "p_value", NAN));

		snprintf(cell[nr][0], G_CELL, "%s", bb_cli_jstr(r, "host", "?"));
		snprintf(cell[nr][1], G_CELL, "%.0f", bb_cli_jnum(r, "job_id", 0));
		snprintf(cell[nr][2], G_CELL, "%s", bb_cli_jstr(r, "state", "?"));
		if (bb_cli_jget(r, "n"))
			snprintf(cell[nr][3], G_CELL, "%.0f",
				 bb_cli_jnum(r, "n", 0));
		else
			snprintf(cell[nr][3], G_CELL, "-");
		g_pct(cell[nr][4], G_CELL, bb_cli_jnum(r, "change", NAN));
		if (bb_cli_jget(r, "variant") && bb_cli_jget(r, "change")) {
			size_t len = strlen(cell[nr][4]);

			snprintf(cell[nr][4] + len, G_CELL - len, " %s/%s",
				 bb_cli_jstr(r, "variant", "?"),
				 bb_cli_jstr(r, "baseline", "?"));
		}
		g_pct(lo, sizeof(lo), bb_cli_jnum(r, "ci_lo", NAN));
		g_pct(hi, sizeof(hi), bb_cli_jnum(r, "ci_hi", NAN));
		if (bb_cli_jget(r, "ci_lo"))
			snprintf(cell[nr][5], G_CELL, "%s .. %s (%s)", lo, hi,
				 bb_cli_jstr(r, "ci_label", "CI"));
		else
			snprintf(cell[nr][5], G_CELL, "-");
		if (isfinite(p))
			snprintf(cell[nr][6], G_CELL, p < 0.001 ? "<0.001" :
				 "%.3g", p);
		else
			snprintf(cell[nr][6], G_CELL, "-");
		snprintf(cell[nr][7], G_CELL, "%s",
			 g_words(bb_cli_jstr(r, "verdict", NULL)));
	}
	for (size_t r = 0; r < nr; r++)
		for (unsigned c = 0; c < G_COLS; c++)
			w[c] = bb_max(w[c], bb_cli_chars(cell[r][c]));
	for (size_t r = 0; r < nr; r++) {
		for (unsigned c = 0; c < G_COLS; c++)
			fprintf(f, "  %-*s", c + 1 < G_COLS ? (int)w[c] : 0,
				cell[r][c]);
		fputc('\n', f);
	}
	for (size_t i = 0; comb && json_object_is_type(comb, json_type_array) &&
			   i < json_object_array_length(comb); i++) {
		struct json_object *b = json_object_array_get_idx(comb, i);
		struct json_object *dis = bb_cli_jget(b, "disagreeing");
		double sd = bb_cli_jnum(b, "spread_sd", NAN);

		fprintf(f, "combined: %s", bb_cli_jstr(b, "text", ""));
		if (isfinite(sd))
			fprintf(f, "; between-host SD %.2f%%", 100 * sd);
		if (bb_cli_jget(b, "pooled.i2"))
			fprintf(f, ", I^2 %.0f%%",
				100 * bb_cli_jnum(b, "pooled.i2", 0));
		fputc('\n', f);
		for (size_t k = 0; dis && json_object_is_type(dis, json_type_array) &&
				   k < json_object_array_length(dis); k++) {
			struct json_object *d = json_object_array_get_idx(dis, k);

			g_pct(lo, sizeof(lo), bb_cli_jnum(d, "change", NAN));
			fprintf(f, "%s %s %s (%s)", k ? "," : "  disagree:",
				bb_cli_jstr(d, "host", "?"),
				g_words(bb_cli_jstr(d, "verdict", NULL)), lo);
		}
		if (dis && json_object_array_length(dis))
			fputc('\n', f);
	}
	for (size_t i = 0; warn && json_object_is_type(warn, json_type_array) &&
			   i < json_object_array_length(warn); i++)
		fprintf(f, "warning: %s\n", json_object_get_string(
				json_object_array_get_idx(warn, i)));
	fprintf(f, "verdict: %s\n", g_words(bb_cli_jstr(doc, "verdict", NULL)));
}
