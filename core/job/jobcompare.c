// SPDX-License-Identifier: GPL-2.0-only
/* jobcompare.c - compare whole jobs (see jobcompare.h): the samples of
 * each variant from the stored runs, the statistics of abstats.c on them
 * as independent samples, the boots behind each side, and the rows of
 * what differs between the jobs. */
#include <biobench/jobcompare.h>

#include <biobench/abstats.h>
#include <biobench/common.h>
#include <biobench/jobspec.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JC_MAX_JOBS (1 + BB_JOBCMP_MAX_WITH)
#define JC_NO_BOOT UINT_MAX
#define JC_NOT_SET "(not set)"
#define JC_ABSENT "(absent)"

static const char *const workload_fields[] = { BB_JOBCMP_WORKLOAD_FIELDS };

bool bb_jobcmp_workload_field(const char *name)
{
	for (size_t i = 0; name && i < bb_array_size(workload_fields); i++)
		if (!strcmp(name, workload_fields[i]))
			return true;
	return false;
}

/* One variant of one job: its sample and what its runs recorded. */
struct jc_var {
	char name[40];
	double *vals;
	int64_t *seqs;
	unsigned *boot;          /* index in the job's boots, JC_NO_BOOT */
	size_t n, cap;
	size_t warmups, failed, disturbed, excluded, discarded;
	size_t runs;                /* measured runs behind vals */
	bool per_boot;              /* vals: one median per boot */
	struct json_object *config; /* borrowed: the first used run's */
	struct json_object *queue;  /* owned: setting -> set of values */
	struct json_object *meta;   /* owned: boot_id, kernel,
				       biobench_version -> set of values */
	bool used;                  /* in a comparison */
};

struct jc_job {
	int64_t id;
	struct json_object *doc, *runs, *spec; /* borrowed */
	const char *metric;
	bool aa, exclude_disturbed;
	unsigned nv;
	struct jc_var v[BB_JOB_MAX_VARIANTS];
	char (*boots)[64];
	size_t nboots, boots_cap;
};

/* One OTHER x variant comparison. */
struct jc_cmp {
	unsigned job;  /* index in jobs (>= 1) */
	unsigned ov;   /* variant index in that job */
	unsigned bv;   /* variant index in the base */
	int ret;       /* bb_ab_compare's */
	struct bb_ab_result r;
};

/* ---- JSON helpers ---------------------------------------------------- */

/* A member, NULL when absent or null. */
static struct json_object *jget(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

static const char *jstr(struct json_object *o, const char *key,
			const char *dflt)
{
	struct json_object *v = jget(o, key);

	return v && json_object_is_type(v, json_type_string) ?
		       json_object_get_string(v) : dflt;
}

static double jnum(struct json_object *o, const char *key, double dflt)
{
	struct json_object *v = jget(o, key);

	if (!v || !(json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int)))
		return dflt;
	return json_object_get_double(v);
}

static bool jbool(struct json_object *o, const char *key)
{
	struct json_object *v = jget(o, key);

	return v && json_object_is_type(v, json_type_boolean) &&
	       json_object_get_boolean(v);
}

static struct json_object *jd(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

/* A value as text for the diff: strings as they are, anything else as
 * plain JSON; NULL for null. */
static const char *jtext(struct json_object *v)
{
	if (!v)
		return NULL;
	if (json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
}

/* An object used as an ordered set of strings. */
static void set_add(struct json_object *set, const char *s)
{
	if (set && s && !json_object_object_get_ex(set, s, NULL))
		json_object_object_add(set, s, NULL);
}

/* The set's members joined with ", " as a JSON string; NULL when empty. */
static struct json_object *set_text(struct json_object *set)
{
	char buf[1024];
	size_t off = 0;

	buf[0] = '\0';
	if (!set)
		return NULL;
	json_object_object_foreach(set, k, v)
	{
		(void)v;
		if (off < sizeof(buf))
			off += (size_t)snprintf(buf + off, sizeof(buf) - off,
						"%s%s", off ? ", " : "", k);
	}
	return buf[0] ? json_object_new_string(buf) : NULL;
}

/* The set of key in obj (an object of sets), created when missing. */
static struct json_object *set_of(struct json_object *obj, const char *key)
{
	struct json_object *s = NULL;

	if (json_object_object_get_ex(obj, key, &s) && s)
		return s;
	s = json_object_new_object();
	json_object_object_add(obj, key, s);
	return s;
}

/* Every leaf of o as "prefix.key" -> text (null stays null) into out,
 * the top-level keys in skip left out. */
static void flatten(struct json_object *o, const char *prefix,
		    struct json_object *out, const char *const *skip)
{
	if (!o || !json_object_is_type(o, json_type_object))
		return;
	json_object_object_foreach(o, k, v)
	{
		char key[256];
		bool skipped = false;

		for (size_t i = 0; skip && skip[i]; i++)
			skipped |= !strcmp(skip[i], k);
		if (skipped)
			continue;
		snprintf(key, sizeof(key), "%s%s%s", prefix, prefix[0] ? "." : "",
			 k);
		if (v && json_object_is_type(v, json_type_object))
			flatten(v, key, out, NULL);
		else
			json_object_object_add(out, key,
					       v ? json_object_new_string(jtext(v)) :
						   NULL);
	}
}

static bool text_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

/* ---- errors ----------------------------------------------------------- */

static int jc_err(struct bb_jobcmp_error *e, int ret, const char *code,
		  const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static int jc_err(struct bb_jobcmp_error *e, int ret, const char *code,
		  const char *field, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return ret;
	snprintf(e->code, sizeof(e->code), "%s", code);
	snprintf(e->field, sizeof(e->field), "%s", field ? field : "");
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return ret;
}

/* ---- loading a job ----------------------------------------------------- */

static int var_push(struct jc_var *v, double val, int64_t seq, unsigned boot)
{
	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 16;
		double *vals = realloc(v->vals, cap * sizeof(*vals));
		int64_t *seqs;
		unsigned *boots;

		if (!vals)
			return -ENOMEM;
		v->vals = vals;
		seqs = realloc(v->seqs, cap * sizeof(*seqs));
		if (!seqs)
			return -ENOMEM;
		v->seqs = seqs;
		boots = realloc(v->boot, cap * sizeof(*boots));
		if (!boots)
			return -ENOMEM;
		v->boot = boots;
		v->cap = cap;
	}
	v->vals[v->n] = val;
	v->seqs[v->n] = seq;
	v->boot[v->n++] = boot;
	return 0;
}

/* The index of boot id in the job's list (added when new). */
static int boot_index(struct jc_job *j, const char *id, unsigned *idx)
{
	for (size_t i = 0; i < j->nboots; i++)
		if (!strcmp(j->boots[i], id)) {
			*idx = (unsigned)i;
			return 0;
		}
	if (j->nboots == j->boots_cap) {
		size_t cap = j->boots_cap ? 2 * j->boots_cap : 4;
		char(*b)[64] = realloc(j->boots, cap * sizeof(*b));

		if (!b)
			return -ENOMEM;
		j->boots = b;
		j->boots_cap = cap;
	}
	snprintf(j->boots[j->nboots], sizeof(j->boots[0]), "%s", id);
	*idx = (unsigned)j->nboots++;
	return 0;
}

static struct jc_var *var_add(struct jc_job *j, const char *name)
{
	struct jc_var *v;

	if (j->nv == BB_JOB_MAX_VARIANTS)
		return NULL;
	v = &j->v[j->nv++];
	snprintf(v->name, sizeof(v->name), "%s", name);
	v->queue = json_object_new_object();
	v->meta = json_object_new_object();
	return v->queue && v->meta ? v : NULL;
}

/* The variant a run belongs to: its own, or (an A/A job) the copy's
 * original; NULL when the job has no such variant and no room. */
static struct jc_var *var_of_run(struct jc_job *j, const char *name)
{
	char copy[48];

	if (j->aa && j->nv) {
		snprintf(copy, sizeof(copy), "%s2", j->v[0].name);
		if (!strcmp(name, copy))
			return &j->v[0];
	}
	for (unsigned i = 0; i < j->nv; i++)
		if (!strcmp(j->v[i].name, name))
			return &j->v[i];
	return var_add(j, name);
}

/* One measured run of v: its value, boot and what it recorded. */
static int add_run(struct jc_job *j, struct jc_var *v, struct json_object *run,
		   double val)
{
	struct json_object *res = jget(run, "result"), *qs;
	const char *boot = jstr(res, "boot_id", NULL);
	unsigned bi = JC_NO_BOOT;
	int ret;

	if (!boot || !*boot)
		boot = jstr(jget(j->doc, "host"), "boot_id", NULL);
	if (boot && *boot) {
		ret = boot_index(j, boot, &bi);
		if (ret)
			return ret;
	}
	ret = var_push(v, val, (int64_t)jnum(run, "seq", -1), bi);
	if (ret)
		return ret;
	if (!v->config)
		v->config = jget(res, "config");
	set_add(set_of(v->meta, "boot_id"),
		bi == JC_NO_BOOT ? "(not recorded)" : boot);
	set_add(set_of(v->meta, "kernel"),
		jstr(res, "kernel", "(not recorded)"));
	set_add(set_of(v->meta, "biobench_version"),
		jstr(res, "biobench_version", "(not recorded)"));
	qs = jget(res, "queue_settings");
	if (qs && json_object_is_type(qs, json_type_object)) {
		json_object_object_foreach(qs, k, q)
		{
			const char *t = jtext(q);

			set_add(set_of(v->queue, k), t ? t : JC_ABSENT);
		}
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A sample that spans several boots (a boot job's variant) is one value
 * per boot, its median: runs of one boot share that boot's level, and
 * pooling them would count the boot-to-boot variance as if every run were
 * independent.  The values stay in boot order (first appearance); seqs
 * keep each boot's first run.  A sample of one boot, or with a run whose
 * boot is unknown, stays as it is. */
static int collapse_boots(struct jc_var *v)
{
	size_t nb = 0, unknown = 0, out = 0;
	double *tmp;

	v->runs = v->n;
	for (size_t i = 0; i < v->n; i++) {
		bool seen = false;

		if (v->boot[i] == JC_NO_BOOT) {
			unknown++;
			continue;
		}
		for (size_t k = 0; k < i && !seen; k++)
			seen = v->boot[k] == v->boot[i];
		nb += !seen;
	}
	if (nb < 2 || unknown)
		return 0;
	tmp = malloc(v->n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++) {
		bool seen = false;
		size_t m = 0;

		for (size_t k = 0; k < i && !seen; k++)
			seen = v->boot[k] == v->boot[i];
		if (seen)
			continue;
		for (size_t k = i; k < v->n; k++)
			if (v->boot[k] == v->boot[i])
				tmp[m++] = v->vals[k];
		qsort(tmp, m, sizeof(*tmp), cmp_double);
		v->vals[out] = m % 2 ? tmp[m / 2] :
				       (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
		v->seqs[out] = v->seqs[i];
		v->boot[out++] = v->boot[i];
	}
	free(tmp);
	v->n = out;
	v->per_boot = true;
	return 0;
}

static int job_load(struct jc_job *j, const struct bb_jobcmp_job *in,
		    struct bb_jobcmp_error *e)
{
	struct json_object *vars, *runs = jget(in->runs, "runs");
	size_t n;
	int ret;

	memset(j, 0, sizeof(*j));
	j->doc = in->job;
	j->runs = in->runs;
	j->id = (int64_t)jnum(in->job, "id", 0);
	j->spec = jget(in->job, "spec");
	if (!j->spec || !runs || !json_object_is_type(runs, json_type_array))
		return jc_err(e, -EINVAL, "invalid_argument", NULL,
			      "job %" PRId64 ": the job document has no spec "
			      "or the runs no list",
			      j->id);
	j->metric = jstr(j->spec, "metric", "iops");
	j->aa = jbool(j->spec, "aa");
	j->exclude_disturbed =
		jbool(jget(j->spec, "quiescence"), "exclude_disturbed");
	vars = jget(j->spec, "variants");
	if (vars && json_object_is_type(vars, json_type_object)) {
		json_object_object_foreach(vars, k, v)
		{
			(void)v;
			if (!var_add(j, k))
				return -ENOMEM;
		}
	}
	n = json_object_array_length(runs);
	for (size_t i = 0; i < n; i++) {
		struct json_object *run = json_object_array_get_idx(runs, i);
		struct jc_var *v = var_of_run(j, jstr(run, "variant", "?"));
		double val = jnum(run, "metric", NAN);

		if (!v)
			continue;
		if (jbool(run, "warmup")) {
			v->warmups++;
			continue;
		}
		/* the first attempt of a boot that was redone */
		if (jstr(run, "discarded", NULL)) {
			v->discarded++;
			continue;
		}
		if (strcmp(jstr(run, "state", ""), "done") ||
		    !isfinite(val) || !(val > 0)) {
			v->failed++;
			continue;
		}
		if (jbool(jget(jget(run, "result"), "quiescence"),
			  "disturbed")) {
			v->disturbed++;
			if (j->exclude_disturbed) {
				v->excluded++;
				continue;
			}
		}
		ret = add_run(j, v, run, val);
		if (ret)
			return ret;
	}
	for (unsigned i = 0; i < j->nv; i++) {
		ret = collapse_boots(&j->v[i]);
		if (ret)
			return ret;
	}
	return 0;
}

static void job_free(struct jc_job *j)
{
	for (unsigned i = 0; i < j->nv; i++) {
		free(j->v[i].vals);
		free(j->v[i].seqs);
		free(j->v[i].boot);
		json_object_put(j->v[i].queue);
		json_object_put(j->v[i].meta);
	}
	free(j->boots);
	memset(j, 0, sizeof(*j));
}

static int var_index(const struct jc_job *j, const char *name)
{
	for (unsigned i = 0; i < j->nv; i++)
		if (!strcmp(j->v[i].name, name))
			return (int)i;
	return -1;
}

/* "A, B" */
static void var_names(const struct jc_job *j, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < j->nv && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i ? ", " : "", j->v[i].name);
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Distinct boots behind a variant's sample; *unknown: runs without. */
static size_t var_boots(const struct jc_var *v, size_t *unknown)
{
	size_t n = 0;

	if (unknown)
		*unknown = 0;
	for (size_t i = 0; i < v->n; i++) {
		bool seen = false;

		if (v->boot[i] == JC_NO_BOOT) {
			if (unknown)
				(*unknown)++;
			continue;
		}
		for (size_t k = 0; k < i && !seen; k++)
			seen = v->boot[k] == v->boot[i];
		n += !seen;
	}
	return n;
}

/* Boots of the job's used variants (distinct), and runs without one. */
static size_t job_boots(const struct jc_job *j, size_t *unknown,
			struct json_object *ids)
{
	bool *seen = calloc(j->nboots + 1, sizeof(*seen));
	size_t n = 0;

	*unknown = 0;
	for (unsigned i = 0; i < j->nv; i++) {
		const struct jc_var *v = &j->v[i];

		if (!v->used)
			continue;
		for (size_t k = 0; k < v->n; k++) {
			if (v->boot[k] == JC_NO_BOOT) {
				(*unknown)++;
			} else if (seen && !seen[v->boot[k]]) {
				seen[v->boot[k]] = true;
				n++;
				if (ids)
					json_object_array_add(
						ids, json_object_new_string(
							     j->boots[v->boot[k]]));
			}
		}
	}
	free(seen);
	return n;
}

/* Boots that the two samples share (by boot id). */
static size_t shared_boots(const struct jc_job *ja, const struct jc_var *a,
			   const struct jc_job *jb, const struct jc_var *b)
{
	size_t n = 0;

	for (size_t i = 0; i < ja->nboots; i++) {
		bool in_a = false, in_b = false;

		for (size_t k = 0; k < a->n && !in_a; k++)
			in_a = a->boot[k] == i;
		for (size_t k = 0; in_a && k < b->n && !in_b; k++)
			in_b = b->boot[k] != JC_NO_BOOT &&
			       !strcmp(jb->boots[b->boot[k]], ja->boots[i]);
		n += in_a && in_b;
	}
	return n;
}

/* SD of the logs of the sample (NAN below 2 values). */
static double log_sd(const struct jc_var *v)
{
	double mean = 0, ss = 0;

	if (v->n < 2)
		return NAN;
	for (size_t i = 0; i < v->n; i++)
		mean += log(v->vals[i]);
	mean /= (double)v->n;
	for (size_t i = 0; i < v->n; i++) {
		double d = log(v->vals[i]) - mean;

		ss += d * d;
	}
	return sqrt(ss / (double)(v->n - 1));
}

/* ---- what differs ------------------------------------------------------ */

struct jc_diff {
	struct json_object *rows;     /* the "diff" array */
	struct json_object *workload; /* {"field","variant","values"} */
	const struct jc_job *jobs;
	size_t nj;
};

static void diff_row(struct jc_diff *d, const char *section, const char *key,
		     const char *variant, struct json_object *values,
		     bool differs)
{
	struct json_object *row = json_object_new_object();
	char full[300];
	bool wl = !strcmp(section, "config") && bb_jobcmp_workload_field(key);

	snprintf(full, sizeof(full), "%s.%s", section, key);
	json_object_object_add(row, "section", json_object_new_string(section));
	json_object_object_add(row, "key", json_object_new_string(full));
	json_object_object_add(row, "variant",
			       variant ? json_object_new_string(variant) : NULL);
	json_object_object_add(row, "values", values);
	json_object_object_add(row, "differs", json_object_new_boolean(differs));
	json_object_object_add(row, "workload", json_object_new_boolean(wl));
	json_object_array_add(d->rows, row);
	if (wl && differs) {
		struct json_object *w = json_object_new_object();

		json_object_object_add(w, "field", json_object_new_string(key));
		json_object_object_add(w, "variant",
				       variant ? json_object_new_string(variant) :
						 NULL);
		json_object_object_add(w, "values", json_object_get(values));
		json_object_array_add(d->workload, w);
	}
}

/* Rows of one value per job: flats[j] maps key -> text|null; the keys in
 * order of first appearance. */
static void diff_rows(struct jc_diff *d, const char *section,
		      struct json_object *const *flats)
{
	struct json_object *keys = json_object_new_object();

	for (size_t j = 0; j < d->nj; j++) {
		json_object_object_foreach(flats[j], k, v)
		{
			(void)v;
			set_add(keys, k);
		}
	}
	json_object_object_foreach(keys, k, unused)
	{
		struct json_object *vals = json_object_new_array();
		const char *first = NULL;
		bool differs = false;

		(void)unused;
		for (size_t j = 0; j < d->nj; j++) {
			struct json_object *v = jget(flats[j], k);
			const char *t = jtext(v);

			json_object_array_add(vals, t ? json_object_new_string(t) :
							NULL);
			if (!j)
				first = t;
			else
				differs |= !text_eq(first, t);
		}
		diff_row(d, section, k, NULL, vals, differs);
	}
	json_object_put(keys);
}

/* The text of key in the flat of job j's variant v: NULL when the job
 * does not compare v (or has no run of it), JC_NOT_SET when the variant
 * has no such key. */
static const char *pv_text(struct json_object *(*flats)[BB_JOB_MAX_VARIANTS],
			   const struct jc_job *jobs, size_t j, int v,
			   const char *key)
{
	struct json_object *val = NULL;
	const char *t;

	if (v < 0 || !jobs[j].v[v].used || !jobs[j].v[v].n)
		return NULL; /* not compared, or no run that says */
	if (!json_object_object_get_ex(flats[j][v], key, &val))
		return JC_NOT_SET;
	t = jtext(val);
	return t ? t : "null";
}

/* Rows of a per-variant section: flats[j][v] for job j's variant v (in
 * the job's order).  One row per key when each job has one value over
 * its compared variants, else one row per variant of the base. */
static void diff_rows_pv(struct jc_diff *d, const char *section,
			 struct json_object *(*flats)[BB_JOB_MAX_VARIANTS])
{
	const struct jc_job *jobs = d->jobs, *b = &jobs[0];
	struct json_object *keys = json_object_new_object();

	for (size_t j = 0; j < d->nj; j++)
		for (unsigned v = 0; v < jobs[j].nv; v++) {
			if (!jobs[j].v[v].used)
				continue;
			json_object_object_foreach(flats[j][v], k, x)
			{
				(void)x;
				set_add(keys, k);
			}
		}
	json_object_object_foreach(keys, k, unused)
	{
		const char *common[JC_MAX_JOBS] = { 0 };
		bool one = true;

		(void)unused;
		for (size_t j = 0; j < d->nj && one; j++)
			for (unsigned v = 0; v < jobs[j].nv && one; v++) {
				const char *t = pv_text(flats, jobs, j, (int)v, k);

				if (!t)
					continue;
				if (!common[j])
					common[j] = t;
				else
					one = !strcmp(common[j], t);
			}
		if (one) {
			struct json_object *vals = json_object_new_array();
			const char *first = NULL;
			bool differs = false, any = false;

			for (size_t j = 0; j < d->nj; j++) {
				json_object_array_add(vals, common[j] ?
					json_object_new_string(common[j]) : NULL);
				if (!common[j])
					continue;
				if (any)
					differs |= strcmp(first, common[j]) != 0;
				else
					first = common[j];
				any = true;
			}
			diff_row(d, section, k, NULL, vals, differs);
			continue;
		}
		for (unsigned bv = 0; bv < b->nv; bv++) {
			struct json_object *vals;
			const char *first = NULL;
			bool differs = false, any = false;

			if (!b->v[bv].used)
				continue;
			vals = json_object_new_array();
			for (size_t j = 0; j < d->nj; j++) {
				int v = var_index(&jobs[j], b->v[bv].name);
				const char *t = pv_text(flats, jobs, j, v, k);

				json_object_array_add(vals, t ? json_object_new_string(t) :
								NULL);
				if (!t)
					continue;
				if (any)
					differs |= strcmp(first, t) != 0;
				else
					first = t;
				any = true;
			}
			diff_row(d, section, k, b->v[bv].name, vals, differs);
		}
	}
	json_object_put(keys);
}

/* Every row of what differs (jobcompare.h, "What changed"). */
static int diff_all(struct jc_diff *d)
{
	static const char *const spec_skip[] = { "name", "target", "workload",
						 "variants", NULL };
	static const char *const id_skip[] = { "id", NULL };
	static const char *const dev_skip[] = { "id", "device", NULL };
	struct json_object *flat[JC_MAX_JOBS] = { 0 };
	struct json_object *pv[JC_MAX_JOBS][BB_JOB_MAX_VARIANTS] = { { 0 } };
	const struct jc_job *jobs = d->jobs;
	int ret = 0;

#define FLATS_NEW()                                                           \
	do {                                                                  \
		for (size_t j = 0; j < d->nj; j++) {                          \
			json_object_put(flat[j]);                             \
			flat[j] = json_object_new_object();                   \
			if (!flat[j])                                         \
				ret = -ENOMEM;                                \
		}                                                             \
	} while (0)

	/* the job's own settings: metric, repeat, order, quiescence ... */
	FLATS_NEW();
	for (size_t j = 0; !ret && j < d->nj; j++) {
		json_object_object_add(flat[j], "name",
				       json_object_new_string(
					       jstr(jobs[j].doc, "name", "")));
		flatten(jobs[j].spec, "", flat[j], spec_skip);
	}
	if (!ret)
		diff_rows(d, "job", flat);
	/* what the runs recorded: boots, kernel, version */
	FLATS_NEW();
	for (size_t j = 0; !ret && j < d->nj; j++) {
		static const char *const keys[] = { "boot_id", "kernel",
						    "biobench_version" };

		for (size_t k = 0; k < bb_array_size(keys); k++) {
			struct json_object *all = json_object_new_object();

			for (unsigned v = 0; v < jobs[j].nv; v++) {
				struct json_object *s = NULL;

				if (!jobs[j].v[v].used ||
				    !json_object_object_get_ex(jobs[j].v[v].meta,
							       keys[k], &s))
					continue;
				json_object_object_foreach(s, m, x)
				{
					(void)x;
					set_add(all, m);
				}
			}
			json_object_object_add(flat[j], keys[k], set_text(all));
			json_object_put(all);
		}
	}
	if (!ret)
		diff_rows(d, "run", flat);
	/* the host at the start of the job */
	FLATS_NEW();
	for (size_t j = 0; !ret && j < d->nj; j++)
		flatten(jget(jobs[j].doc, "host"), "", flat[j], id_skip);
	if (!ret)
		diff_rows(d, "host", flat);
	/* the target and its device */
	FLATS_NEW();
	for (size_t j = 0; !ret && j < d->nj; j++)
		flatten(jget(jobs[j].doc, "device"), "", flat[j], dev_skip);
	if (!ret)
		diff_rows(d, "target", flat);
	FLATS_NEW();
	for (size_t j = 0; !ret && j < d->nj; j++)
		flatten(jget(jget(jobs[j].doc, "device"), "device"), "", flat[j],
			NULL);
	if (!ret)
		diff_rows(d, "device", flat);
	/* per variant: the queue settings at the start of its runs, its
	 * effective configuration */
	for (size_t j = 0; !ret && j < d->nj; j++)
		for (unsigned v = 0; v < jobs[j].nv; v++) {
			pv[j][v] = json_object_new_object();
			if (!pv[j][v]) {
				ret = -ENOMEM;
				break;
			}
			json_object_object_foreach(jobs[j].v[v].queue, k, s)
				json_object_object_add(pv[j][v], k, set_text(s));
		}
	if (!ret)
		diff_rows_pv(d, "queue", pv);
	for (size_t j = 0; j < d->nj; j++)
		for (unsigned v = 0; v < jobs[j].nv; v++) {
			json_object_put(pv[j][v]);
			pv[j][v] = NULL;
			if (ret)
				continue;
			pv[j][v] = json_object_new_object();
			if (!pv[j][v])
				ret = -ENOMEM;
			else
				flatten(jobs[j].v[v].config, "", pv[j][v], NULL);
		}
	if (!ret)
		diff_rows_pv(d, "config", pv);
#undef FLATS_NEW
	for (size_t j = 0; j < d->nj; j++) {
		json_object_put(flat[j]);
		for (unsigned v = 0; v < BB_JOB_MAX_VARIANTS; v++)
			json_object_put(pv[j][v]);
	}
	return ret;
}

/* The refusal of a workload that differs: every field with its values. */
static int workload_refusal(struct jc_diff *d, struct bb_jobcmp_error *e)
{
	size_t n = json_object_array_length(d->workload), off = 0;
	char msg[sizeof(e->msg) - 200];
	const char *first = NULL;

	msg[0] = '\0';
	if (e) {
		json_object_put(e->fields);
		e->fields = json_object_new_array();
	}
	for (size_t i = 0; i < n; i++) {
		struct json_object *w = json_object_array_get_idx(d->workload, i);
		struct json_object *vals = jget(w, "values");
		const char *f = jstr(w, "field", "?");
		const char *var = jstr(w, "variant", NULL);
		bool any = false;

		first = first ? first : f;
		if (e && e->fields)
			json_object_array_add(e->fields, json_object_new_string(f));
		if (off < sizeof(msg))
			off += (size_t)snprintf(msg + off, sizeof(msg) - off,
						"%s%s%s%s%s: ", i ? "; " : "", f,
						var ? " (variant " : "",
						var ? var : "", var ? ")" : "");
		for (size_t j = 0; j < d->nj && off < sizeof(msg); j++) {
			const char *t = jtext(json_object_array_get_idx(vals, j));

			if (!t)
				continue;
			off += (size_t)snprintf(msg + off, sizeof(msg) - off,
						"%s%s in job %" PRId64,
						any ? ", " : "", t, d->jobs[j].id);
			any = true;
		}
	}
	jc_err(e, -EINVAL, "different_workload", NULL,
	       "the jobs' workloads differ: %s; compare them anyway with "
	       "allow_different_workload=1 (biobench compare "
	       "--allow-different-workload)",
	       msg);
	if (e && first)
		snprintf(e->field, sizeof(e->field), "workload.%s", first);
	return -EINVAL;
}

/* ---- the document ------------------------------------------------------ */

static struct json_object *var_json(const struct jc_var *v)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vals = json_object_new_array();
	struct json_object *seqs = json_object_new_array();
	struct bb_ab_summary s;
	double sd = log_sd(v);

	for (size_t i = 0; i < v->n; i++) {
		json_object_array_add(vals, json_object_new_double(v->vals[i]));
		json_object_array_add(seqs, json_object_new_int64(v->seqs[i]));
	}
	json_object_object_add(o, "n", json_object_new_int64((int64_t)v->n));
	/* "boot": each value is the median of one boot's runs */
	json_object_object_add(o, "unit",
			       json_object_new_string(v->per_boot ? "boot" :
								    "run"));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)v->runs));
	json_object_object_add(o, "values", vals);
	json_object_object_add(o, "seqs", seqs);
	json_object_object_add(o, "median",
			       v->n && !bb_ab_summarize(v->vals, v->n, &s) ?
				       jd(s.median) : NULL);
	json_object_object_add(o, "log_sd", jd(sd));
	json_object_object_add(o, "spread", jd(expm1(sd)));
	json_object_object_add(o, "boots",
			       json_object_new_int64((int64_t)var_boots(v, NULL)));
	json_object_object_add(o, "warmups", json_object_new_int64((int64_t)v->warmups));
	json_object_object_add(o, "failed", json_object_new_int64((int64_t)v->failed));
	json_object_object_add(o, "disturbed",
			       json_object_new_int64((int64_t)v->disturbed));
	json_object_object_add(o, "excluded",
			       json_object_new_int64((int64_t)v->excluded));
	json_object_object_add(o, "discarded",
			       json_object_new_int64((int64_t)v->discarded));
	return o;
}

static struct json_object *job_json(const struct jc_job *j, bool base,
				    size_t *boots, size_t *unknown)
{
	struct json_object *o = json_object_new_object();
	struct json_object *vars = json_object_new_object();
	struct json_object *ids = json_object_new_array();
	const char *state = jstr(j->doc, "state", "?");

	*boots = job_boots(j, unknown, ids);
	json_object_object_add(o, "id", json_object_new_int64(j->id));
	json_object_object_add(o, "role",
			       json_object_new_string(base ? "base" : "with"));
	json_object_object_add(o, "name",
			       json_object_new_string(jstr(j->doc, "name", "")));
	json_object_object_add(o, "state", json_object_new_string(state));
	json_object_object_add(o, "final",
			       json_object_new_boolean(!strcmp(state, "done")));
	json_object_object_add(o, "target",
			       json_object_new_string(jstr(j->doc, "target", "")));
	json_object_object_add(o, "finished",
			       jget(j->doc, "finished") ?
				       json_object_get(jget(j->doc, "finished")) :
				       NULL);
	json_object_object_add(o, "aa", json_object_new_boolean(j->aa));
	json_object_object_add(o, "exclude_disturbed",
			       json_object_new_boolean(j->exclude_disturbed));
	json_object_object_add(o, "noise_floor",
			       jget(j->doc, "noise_floor") ?
				       json_object_get(jget(j->doc, "noise_floor")) :
				       NULL);
	json_object_object_add(o, "boots", json_object_new_int64((int64_t)*boots));
	json_object_object_add(o, "boot_ids", ids);
	json_object_object_add(o, "runs_without_boot",
			       json_object_new_int64((int64_t)*unknown));
	for (unsigned i = 0; i < j->nv; i++)
		if (j->v[i].used)
			json_object_object_add(vars, j->v[i].name,
					       var_json(&j->v[i]));
	json_object_object_add(o, "variants", vars);
	return o;
}

static void warn(struct json_object *warnings, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct json_object *warnings, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_array_add(warnings, json_object_new_string(msg));
}

/* What the runs of each side say about their boots. */
static struct json_object *boots_json(const struct jc_job *jobs, size_t nj,
				      const size_t *boots,
				      const size_t *unknown)
{
	struct json_object *o = json_object_new_object();
	char msg[1024], counts[512];
	size_t off = 0, nunknown = 0;
	bool single = true, one_side = false;
	const char *id0 = NULL;

	counts[0] = '\0';
	for (size_t j = 0; j < nj; j++) {
		nunknown += unknown[j];
		one_side |= boots[j] == 1;
		if (off < sizeof(counts))
			off += (size_t)snprintf(counts + off, sizeof(counts) - off,
						"%sjob %" PRId64 ": %zu%s",
						j ? ", " : "", jobs[j].id, boots[j],
						j ? "" : " (base)");
		/* one boot for all: the same id everywhere */
		for (unsigned v = 0; v < jobs[j].nv; v++)
			for (size_t k = 0; jobs[j].v[v].used && k < jobs[j].v[v].n;
			     k++) {
				unsigned b = jobs[j].v[v].boot[k];

				if (b == JC_NO_BOOT)
					continue;
				if (!id0)
					id0 = jobs[j].boots[b];
				else if (strcmp(id0, jobs[j].boots[b]))
					single = false;
			}
	}
	single = single && id0 && !nunknown;
	off = 0;
	msg[0] = '\0';
	if (nunknown)
		off += (size_t)snprintf(msg, sizeof(msg),
					"%zu run(s) have no boot id (stored "
					"before biobench recorded it): "
					"between-boot variance cannot be ruled "
					"out for them. ",
					nunknown);
	if (single)
		snprintf(msg + off, sizeof(msg) - off,
			 "All runs come from one boot: no between-boot variance "
			 "enters this comparison. The jobs ran at different "
			 "times, though: drift between them (other load, "
			 "thermal and cache state) is not cancelled the way "
			 "pairs within one job cancel it, and the interval "
			 "covers only the run-to-run noise within each job.");
	else if (off < sizeof(msg))
		snprintf(msg + off, sizeof(msg) - off,
			 "Runs from different boots carry between-boot variance "
			 "(kernel image and memory layout, device and firmware "
			 "state after each boot) that the pairs within one job "
			 "do not have. Boots behind each side: %s. %s",
			 counts,
			 one_side ?
				 "With one boot on a side that variance cannot be "
				 "estimated: the interval reflects run-to-run noise "
				 "only and is too narrow for a claim about the "
				 "kernels; run each side over several boots to "
				 "measure it." :
				 "The runs are pooled, not aggregated per boot: the "
				 "interval still treats the runs of one boot as "
				 "independent.");
	json_object_object_add(o, "single_boot", json_object_new_boolean(single));
	json_object_object_add(o, "unknown", json_object_new_boolean(nunknown > 0));
	json_object_object_add(o, "statement", json_object_new_string(msg));
	return o;
}

static struct json_object *statistics_json(void)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "samples", json_object_new_string(
		"independent samples: every measured run of a variant in a job "
		"is one value (warm-ups and runs that did not finish left out; "
		"disturbed runs left out when the job said exclude_disturbed); "
		"an A/A job's A and A2 pool"));
	json_object_object_add(o, "change", json_object_new_string(
		"exp(s) - 1, s the two-sample Hodges-Lehmann shift of the log "
		"metric (median of all differences log(other) - log(base))"));
	json_object_object_add(o, "change_median", json_object_new_string(
		"median(other) / median(base) - 1"));
	json_object_object_add(o, "ci", json_object_new_string(
		"exact Mann-Whitney interval of the shift (normal approximation "
		"beyond 30 runs a side), labelled with its real coverage"));
	json_object_object_add(o, "p_value", json_object_new_string(
		"two-sided Wilcoxon-Mann-Whitney rank-sum test"));
	json_object_object_add(o, "tost", json_object_new_string(
		"no change: both one-sided rank-sum tests within +-min_effect"));
	json_object_object_add(o, "multiple", json_object_new_string(
		"Holm over every compared job x variant"));
	return o;
}

static struct json_object *cmp_json(const struct jc_job *jobs,
				    const struct jc_cmp *c, enum bb_metric m)
{
	const struct jc_job *b = &jobs[0], *oj = &jobs[c->job];
	const struct jc_var *bv = &b->v[c->bv], *ov = &oj->v[c->ov];
	struct json_object *o, *boots;
	char an[96], bn[96], text[512];

	if (c->ret) {
		o = json_object_new_object();
		json_object_object_add(o, "baseline", json_object_new_string(bv->name));
		json_object_object_add(o, "variant", json_object_new_string(ov->name));
		json_object_object_add(o, "metric",
				       json_object_new_string(bb_metric_name(m)));
		if (c->ret == -EINVAL && (bv->n < 2 || ov->n < 2))
			snprintf(text, sizeof(text),
				 "not compared: %zu measured run(s) of %s in job "
				 "%" PRId64 " and %zu in job %" PRId64 "; 2 or "
				 "more are needed on each side",
				 bv->n, bv->name, b->id, ov->n, oj->id);
		else
			snprintf(text, sizeof(text), "not compared: %s",
				 c->ret == -E2BIG ? "more than 2048 runs a side" :
						    strerror(-c->ret));
		json_object_object_add(o, "error", json_object_new_string(text));
	} else {
		o = bb_ab_result_to_json(&c->r, bv->name, ov->name, m);
		snprintf(an, sizeof(an), "job %" PRId64 " %s", b->id, bv->name);
		snprintf(bn, sizeof(bn), "job %" PRId64 " %s", oj->id, ov->name);
		if (bb_ab_format_names(&c->r, an, bn, text, sizeof(text)) == 0)
			json_object_object_add(o, "text",
					       json_object_new_string(text));
	}
	json_object_object_add(o, "base_job", json_object_new_int64(b->id));
	json_object_object_add(o, "job", json_object_new_int64(oj->id));
	json_object_object_add(o, "base_spread", jd(expm1(log_sd(bv))));
	json_object_object_add(o, "spread", jd(expm1(log_sd(ov))));
	boots = json_object_new_object();
	json_object_object_add(boots, "base",
			       json_object_new_int64((int64_t)var_boots(bv, NULL)));
	json_object_object_add(boots, "other",
			       json_object_new_int64((int64_t)var_boots(ov, NULL)));
	json_object_object_add(boots, "shared",
			       json_object_new_int64(
				       (int64_t)shared_boots(b, bv, oj, ov)));
	json_object_object_add(o, "boots", boots);
	return o;
}

/* ---- the comparison ----------------------------------------------------- */

/* Pair each OTHER variant with the base's of the same name. */
static int match(struct jc_job *jobs, size_t nj, const char *only,
		 struct jc_cmp *cmps, size_t *ncmp, struct json_object *unmatched,
		 struct bb_jobcmp_error *e)
{
	struct jc_job *b = &jobs[0];
	char names[512], names2[512];

	*ncmp = 0;
	if (only && var_index(b, only) < 0) {
		var_names(b, names, sizeof(names));
		return jc_err(e, -EINVAL, "invalid_argument", "variant",
			      "variant: job %" PRId64 " has no variant '%.64s' "
			      "(it has %s)",
			      b->id, only, names);
	}
	for (size_t j = 1; j < nj; j++) {
		if (only && var_index(&jobs[j], only) < 0) {
			var_names(&jobs[j], names, sizeof(names));
			return jc_err(e, -EINVAL, "invalid_argument", "variant",
				      "variant: job %" PRId64 " has no variant "
				      "'%.64s' (it has %s)",
				      jobs[j].id, only, names);
		}
		for (unsigned v = 0; v < jobs[j].nv; v++) {
			int bv = var_index(b, jobs[j].v[v].name);

			if (only && strcmp(only, jobs[j].v[v].name))
				continue;
			if (bv < 0) {
				struct json_object *u = json_object_new_object();

				json_object_object_add(u, "job",
						       json_object_new_int64(jobs[j].id));
				json_object_object_add(u, "variant",
						       json_object_new_string(
							       jobs[j].v[v].name));
				json_object_array_add(unmatched, u);
				continue;
			}
			jobs[j].v[v].used = b->v[bv].used = true;
			cmps[*ncmp] = (struct jc_cmp){ .job = (unsigned)j,
						       .ov = v,
						       .bv = (unsigned)bv };
			(*ncmp)++;
		}
	}
	if (!*ncmp) {
		var_names(b, names, sizeof(names));
		var_names(&jobs[1], names2, sizeof(names2));
		return jc_err(e, -EINVAL, "invalid_argument", "with",
			      "no variant of job %" PRId64 " (%s) is named like "
			      "one of job %" PRId64 " (%s): the variants compared "
			      "are those of the same name",
			      jobs[1].id, names2, b->id, names);
	}
	return 0;
}

/* The statistics parameters: independent samples, the base's confidence
 * and min_effect. */
static void params_of(const struct jc_job *b, enum bb_metric m,
		      struct bb_ab_params *p)
{
	double eff = jnum(b->spec, "min_effect", 100 * BB_AB_DEFAULT_MIN_EFFECT);
	double conf = jnum(b->spec, "confidence", BB_AB_DEFAULT_CONFIDENCE);

	bb_ab_params_init(p);
	p->higher_is_better = bb_metric_higher_is_better(m);
	p->paired = false;
	if (eff >= 0 && eff < 100)
		p->min_effect = eff / 100;
	if (conf > 0 && conf < 1)
		p->confidence = conf;
}

/* Every comparison, then Holm over those that could be made; *worst
 * their verdict (bb_ab_verdict_worst), *nf how many were made.  0 or
 * -ENOMEM. */
static int compare_all(const struct jc_job *jobs, struct jc_cmp *cmps,
		       size_t ncmp, const struct bb_ab_params *p, size_t *nf,
		       enum bb_ab_verdict *worst)
{
	struct bb_ab_result *fam[JC_MAX_JOBS * BB_JOB_MAX_VARIANTS];
	enum bb_ab_verdict verdicts[JC_MAX_JOBS * BB_JOB_MAX_VARIANTS];
	size_t nfailed = 0;

	*nf = 0;
	for (size_t c = 0; c < ncmp; c++) {
		const struct jc_var *bv = &jobs[0].v[cmps[c].bv];
		const struct jc_var *ov = &jobs[cmps[c].job].v[cmps[c].ov];

		cmps[c].ret = bb_ab_compare(bv->vals, bv->n, ov->vals, ov->n, p,
					    &cmps[c].r);
		if (cmps[c].ret == -ENOMEM)
			return -ENOMEM;
		if (!cmps[c].ret)
			fam[(*nf)++] = &cmps[c].r;
		else
			nfailed++;
	}
	bb_ab_family(fam, *nf, BB_AB_MULTIPLE_HOLM);
	for (size_t i = 0; i < *nf; i++)
		verdicts[i] = fam[i]->verdict;
	*worst = bb_ab_verdict_worst(verdicts, *nf, nfailed);
	return 0;
}

/* {"fields","allowed","differs"} */
static struct json_object *workload_json(const struct jc_diff *d, bool allowed)
{
	struct json_object *wl = json_object_new_object();
	struct json_object *arr = json_object_new_array();

	for (size_t i = 0; i < bb_array_size(workload_fields); i++)
		json_object_array_add(arr, json_object_new_string(workload_fields[i]));
	json_object_object_add(wl, "fields", arr);
	json_object_object_add(wl, "allowed", json_object_new_boolean(allowed));
	json_object_object_add(wl, "differs", json_object_get(d->workload));
	return wl;
}

/* What may spoil the comparison. */
static struct json_object *warnings_json(const struct jc_job *jobs, size_t nj,
					 const struct jc_diff *d,
					 struct json_object *unmatched,
					 const struct bb_ab_params *p)
{
	struct json_object *warnings = json_object_new_array();
	size_t nw = json_object_array_length(d->workload);

	for (size_t j = 0; j < nj; j++) {
		const char *state = jstr(jobs[j].doc, "state", "?");

		if (strcmp(state, "done"))
			warn(warnings, "job %" PRId64 " is %s: its runs so far; "
				       "this comparison is not final",
			     jobs[j].id, state);
		for (unsigned v = 0; v < jobs[j].nv; v++) {
			const struct jc_var *x = &jobs[j].v[v];

			if (!x->used)
				continue;
			if (x->failed)
				warn(warnings, "job %" PRId64 ": %zu measured "
					       "run(s) of %s did not finish: left out",
				     jobs[j].id, x->failed, x->name);
			if (x->discarded)
				warn(warnings, "job %" PRId64 ": %zu run(s) of "
					       "%s belong to a boot that was "
					       "interrupted and redone: left out",
				     jobs[j].id, x->discarded, x->name);
			if (x->per_boot)
				warn(warnings, "job %" PRId64 ": %s's %zu runs "
					       "span %zu boots: each boot's median "
					       "is one value of the sample",
				     jobs[j].id, x->name, x->runs, x->n);
			if (x->disturbed)
				warn(warnings, "job %" PRId64 ": %zu measured "
					       "run(s) of %s disturbed (other load "
					       "on the benchmark CPUs, or a stall): %s",
				     jobs[j].id, x->disturbed, x->name,
				     jobs[j].exclude_disturbed ?
					     "left out (exclude_disturbed)" :
					     "kept (the job did not ask to "
					     "exclude them)");
		}
	}
	if (nw) {
		char fields[512];
		size_t off = 0;

		fields[0] = '\0';
		for (size_t i = 0; i < nw && off < sizeof(fields); i++)
			off += (size_t)snprintf(fields + off, sizeof(fields) - off,
						"%s%s", i ? ", " : "",
						jstr(json_object_array_get_idx(
							     d->workload, i),
						     "field", "?"));
		warn(warnings, "the workloads differ (%s): compared anyway, as "
			       "asked (allow_different_workload)",
		     fields);
	}
	for (size_t i = 0; i < json_object_array_length(unmatched); i++) {
		struct json_object *u = json_object_array_get_idx(unmatched, i);

		warn(warnings, "job %.0f's variant %s has no variant of that "
			       "name in job %" PRId64 ": not compared",
		     jnum(u, "job", 0), jstr(u, "variant", "?"), jobs[0].id);
	}
	for (size_t j = 1; j < nj; j++)
		if (fabs(jnum(jobs[j].spec, "min_effect", 1) - 100 * p->min_effect) > 1e-9 ||
		    fabs(jnum(jobs[j].spec, "confidence", .95) - p->confidence) > 1e-9)
			warn(warnings, "job %" PRId64 " asked for another "
				       "confidence or min_effect: the base's "
				       "(%g%%, ±%g%%) apply",
			     jobs[j].id, 100 * p->confidence, 100 * p->min_effect);
	return warnings;
}

/* Load the jobs; one metric for all (a ratio of IOPS to latencies means
 * nothing).  *nj: the jobs loaded (to free). */
static int load_all(struct jc_job *jobs, size_t *nj,
		    const struct bb_jobcmp_job *base,
		    const struct bb_jobcmp_job *with, size_t nwith,
		    enum bb_metric *m, struct bb_jobcmp_error *e)
{
	int ret;

	*nj = 0;
	for (size_t j = 0; j <= nwith; j++) {
		ret = job_load(&jobs[j], j ? &with[j - 1] : base, e);
		*nj = j + 1;
		if (ret)
			return ret;
	}
	if (bb_metric_from_name(jobs[0].metric, m))
		return jc_err(e, -EINVAL, "invalid_argument", "metric",
			      "job %" PRId64 ": unknown metric '%.32s'",
			      jobs[0].id, jobs[0].metric);
	for (size_t j = 1; j < *nj; j++)
		if (strcmp(jobs[j].metric, jobs[0].metric))
			return jc_err(e, -EINVAL, "different_metric", "metric",
				      "metric: job %" PRId64 " measures %.32s, "
				      "job %" PRId64 " %.32s: jobs are compared "
				      "on the same metric",
				      jobs[0].id, jobs[0].metric, jobs[j].id,
				      jobs[j].metric);
	return 0;
}

/* -ENODATA when a job has no measured run of the variants compared. */
static int check_data(const struct jc_job *jobs, size_t nj,
		      struct bb_jobcmp_error *e)
{
	for (size_t j = 0; j < nj; j++) {
		size_t n = 0;

		for (unsigned v = 0; v < jobs[j].nv; v++)
			n += jobs[j].v[v].used ? jobs[j].v[v].n : 0;
		if (!n)
			return jc_err(e, -ENODATA, "no_comparison",
				      j ? "with" : "base",
				      "job %" PRId64 " (%s) has no measured run "
				      "of the variants compared",
				      jobs[j].id, jstr(jobs[j].doc, "state", "?"));
	}
	return 0;
}

int bb_jobcmp(const struct bb_jobcmp_job *base,
	      const struct bb_jobcmp_job *with, size_t nwith,
	      const struct bb_jobcmp_opts *opts, struct json_object **out,
	      struct bb_jobcmp_error *e)
{
	struct jc_job jobs[JC_MAX_JOBS];
	struct jc_cmp *cmps = NULL;
	struct json_object *doc = NULL, *unmatched = NULL, *arr;
	struct jc_diff d = { 0 };
	struct bb_ab_params p;
	enum bb_ab_verdict worst = BB_AB_INCONCLUSIVE;
	size_t nj = 0, ncmp = 0, nf = 0;
	size_t boots[JC_MAX_JOBS], unknown[JC_MAX_JOBS];
	bool allow = opts && opts->allow_different_workload;
	enum bb_metric m = BB_METRIC_IOPS;
	int ret;

	if (e)
		memset(e, 0, sizeof(*e));
	if (out)
		*out = NULL;
	memset(jobs, 0, sizeof(jobs));
	if (!base || !with || !out || !nwith || nwith > BB_JOBCMP_MAX_WITH)
		return jc_err(e, -EINVAL, "invalid_argument", "with",
			      "with: 1 to %d jobs to compare with the base",
			      BB_JOBCMP_MAX_WITH);
	ret = load_all(jobs, &nj, base, with, nwith, &m, e);
	if (ret)
		goto out;
	cmps = calloc(nj * BB_JOB_MAX_VARIANTS, sizeof(*cmps));
	unmatched = json_object_new_array();
	d.rows = json_object_new_array();
	d.workload = json_object_new_array();
	d.jobs = jobs;
	d.nj = nj;
	if (!cmps || !unmatched || !d.rows || !d.workload) {
		ret = -ENOMEM;
		goto out;
	}
	ret = match(jobs, nj, opts ? opts->variant : NULL, cmps, &ncmp,
		    unmatched, e);
	if (!ret)
		ret = check_data(jobs, nj, e);
	if (!ret)
		ret = diff_all(&d);
	if (ret)
		goto out;
	if (json_object_array_length(d.workload) && !allow) {
		ret = workload_refusal(&d, e);
		goto out;
	}
	params_of(&jobs[0], m, &p);
	ret = compare_all(jobs, cmps, ncmp, &p, &nf, &worst);
	if (ret)
		goto out;

	doc = json_object_new_object();
	if (!doc) {
		ret = -ENOMEM;
		goto out;
	}
	json_object_object_add(doc, "base", json_object_new_int64(jobs[0].id));
	arr = json_object_new_array();
	for (size_t j = 1; j < nj; j++)
		json_object_array_add(arr, json_object_new_int64(jobs[j].id));
	json_object_object_add(doc, "with", arr);
	json_object_object_add(doc, "variant",
			       opts && opts->variant ?
				       json_object_new_string(opts->variant) :
				       NULL);
	json_object_object_add(doc, "metric",
			       json_object_new_string(bb_metric_name(m)));
	json_object_object_add(doc, "unit",
			       json_object_new_string(bb_metric_unit(m)));
	json_object_object_add(doc, "higher_is_better",
			       json_object_new_boolean(p.higher_is_better));
	json_object_object_add(doc, "confidence",
			       bb_json_short_double(p.confidence));
	json_object_object_add(doc, "min_effect",
			       bb_json_short_double(p.min_effect));
	json_object_object_add(doc, "multiple",
			       json_object_new_string(
				       bb_ab_multiple_name(BB_AB_MULTIPLE_HOLM)));
	json_object_object_add(doc, "family", json_object_new_int64((int64_t)nf));
	json_object_object_add(doc, "statistics", statistics_json());
	json_object_object_add(doc, "verdict",
			       nf ? json_object_new_string(bb_ab_verdict_name(worst)) :
				    NULL);
	arr = json_object_new_array();
	for (size_t j = 0; j < nj; j++)
		json_object_array_add(arr, job_json(&jobs[j], !j, &boots[j],
						    &unknown[j]));
	json_object_object_add(doc, "jobs", arr);
	arr = json_object_new_array();
	for (size_t c = 0; c < ncmp; c++)
		json_object_array_add(arr, cmp_json(jobs, &cmps[c], m));
	json_object_object_add(doc, "comparisons", arr);
	json_object_object_add(doc, "unmatched", json_object_get(unmatched));
	json_object_object_add(doc, "boots", boots_json(jobs, nj, boots, unknown));
	json_object_object_add(doc, "workload", workload_json(&d, allow));
	json_object_object_add(doc, "diff", json_object_get(d.rows));
	json_object_object_add(doc, "warnings",
			       warnings_json(jobs, nj, &d, unmatched, &p));
	*out = doc;
	doc = NULL;
	ret = 0;
out:
	json_object_put(doc);
	json_object_put(unmatched);
	json_object_put(d.rows);
	json_object_put(d.workload);
	free(cmps);
	for (size_t j = 0; j < nj; j++)
		job_free(&jobs[j]);
	if (ret == -ENOMEM)
		jc_err(e, -ENOMEM, "internal", NULL, "out of memory");
	return ret;
}
