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

#define JC_MAX_JOBS BB_JOBCMP_MAX_JOBS
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
	size_t n, cap;              /* measured runs, in run order */
	size_t warmups, failed, disturbed, excluded, discarded;
	struct json_object *config; /* borrowed: the first used run's */
	struct json_object *queue;  /* owned: setting -> set of values */
	struct json_object *meta;   /* owned: boot_id, kernel,
				       biobench_version -> set of values */
	bool used;                  /* in a comparison */
};

struct jc_job {
	int64_t id;
	unsigned side;             /* 0: the base side */
	struct json_object *doc, *runs, *spec; /* borrowed */
	const char *metric;
	bool aa, exclude_disturbed;
	unsigned nv;
	struct jc_var v[BB_JOB_MAX_VARIANTS];
	char (*boots)[64];
	size_t nboots, boots_cap;
};

/* One comparison: a variant of an OTHER side against the base side's
 * variant of that name. */
struct jc_cmp {
	unsigned side;                /* >= 1 */
	char name[40];                /* the variant */
	bool runs;                    /* run-level (asked for) */
	enum bb_ab_unit_kind kind;    /* else: what the units are */
	int ret;                      /* bb_ab_compare(_units)'s */
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

/* A job's run-level sample of v (the run-level comparison, asked for):
 * its runs, or one value per boot, the median, when they span several
 * boots (a boot job's variant: runs of one boot share that boot's level,
 * and pooling them would count the boot-to-boot variance as if every
 * run were independent).  Appended to out[*n..]. */
static int run_sample(const struct jc_var *v, double *out, size_t *n)
{
	size_t nb = 0, unknown = 0;
	double *tmp;

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
	if (nb < 2 || unknown) {
		memcpy(out + *n, v->vals, v->n * sizeof(*out));
		*n += v->n;
		return 0;
	}
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
		out[(*n)++] = m % 2 ? tmp[m / 2] :
				      (tmp[m / 2 - 1] + tmp[m / 2]) / 2;
	}
	free(tmp);
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
	/* the seed draws the order of the runs, which every job has its
	 * own of: not a difference between the jobs */
	static const char *const spec_skip[] = { "name", "target", "workload",
						 "variants", "seed", NULL };
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
	json_object_object_add(o, "unit", json_object_new_string("run"));
	json_object_object_add(o, "runs", json_object_new_int64((int64_t)v->n));
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
	json_object_object_add(o, "side", json_object_new_int64(j->side));
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

/* What the runs of each side say about their boots, and so about the
 * unit the comparisons rest on. */
static struct json_object *boots_json(const struct jc_job *jobs, size_t nj,
				      const size_t *boots,
				      const size_t *unknown,
				      const struct jc_cmp *cmps, size_t ncmp)
{
	struct json_object *o = json_object_new_object();
	char msg[1024], counts[512];
	size_t off = 0, nunknown = 0;
	bool single = true, by_boot = false, by_job = false, by_run = false;
	const char *id0 = NULL;

	counts[0] = '\0';
	for (size_t c = 0; c < ncmp; c++) {
		by_run |= cmps[c].runs;
		by_boot |= !cmps[c].runs && cmps[c].kind == BB_AB_UNIT_BOOT;
		by_job |= !cmps[c].runs && cmps[c].kind == BB_AB_UNIT_JOB;
	}
	for (size_t j = 0; j < nj; j++) {
		nunknown += unknown[j];
		if (off < sizeof(counts))
			off += (size_t)snprintf(counts + off, sizeof(counts) - off,
						"%sjob %" PRId64 ": %zu%s",
						j ? ", " : "", jobs[j].id, boots[j],
						jobs[j].side ? "" : " (base)");
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
					"before biobench recorded it): their "
					"job is their unit. ",
					nunknown);
	if (by_run)
		off += (size_t)snprintf(msg + off, sizeof(msg) - off,
					"Run-level comparison (asked for): the "
					"runs of the jobs are taken as independent "
					"draws of one distribution, as if jobs and "
					"boots did not differ; drift between jobs "
					"and between-boot variance are not in the "
					"interval, which is then too narrow for a "
					"claim about the kernels. %s",
					single ? "All runs come from one boot: "
						 "no between-boot variance enters; "
						 "drift between the jobs does. " :
						 "");
	if (off < sizeof(msg) && by_boot)
		off += (size_t)snprintf(msg + off, sizeof(msg) - off,
					"The boot is the unit: each boot's runs give "
					"one level, and the interval rests on how "
					"much boots differ from one another "
					"(kernel image and memory layout, device "
					"and firmware state after each boot), not "
					"on the runs within a boot. Boots behind "
					"each job: %s. ",
					counts);
	if (off < sizeof(msg) && by_job)
		snprintf(msg + off, sizeof(msg) - off,
			 single ?
				 "All runs come from one boot: the job is the "
				 "unit, and the interval rests on how much jobs "
				 "differ from one another (drift between them: "
				 "other load, thermal and cache state), which "
				 "pairs inside one job cancel and runs of two "
				 "jobs do not." :
				 "The job is the unit (the sides share boots, or "
				 "some runs have no boot id): the interval rests "
				 "on how much jobs differ from one another, "
				 "between-boot variance included where the jobs' "
				 "boots differ. Boots behind each job: %s.",
			 counts);
	json_object_object_add(o, "single_boot", json_object_new_boolean(single));
	json_object_object_add(o, "unknown", json_object_new_boolean(nunknown > 0));
	json_object_object_add(o, "statement", json_object_new_string(msg));
	return o;
}

static struct json_object *statistics_json(bool runs)
{
	struct json_object *o = json_object_new_object();

	if (runs) {
		json_object_object_add(o, "unit", json_object_new_string("run"));
		json_object_object_add(o, "samples", json_object_new_string(
			"run-level (asked for): every measured run of a variant "
			"in the side's jobs is one value (a job's runs over "
			"several boots: one median per boot; warm-ups and runs "
			"that did not finish left out; disturbed runs left out "
			"when the job said exclude_disturbed); an A/A job's A "
			"and A2 pool. Assumes the runs are independent draws of "
			"one distribution: no job-to-job or boot-to-boot "
			"variance"));
		json_object_object_add(o, "change", json_object_new_string(
			"exp(s) - 1, s the two-sample Hodges-Lehmann shift of the "
			"log metric (median of all differences log(other) - "
			"log(base))"));
		json_object_object_add(o, "ci", json_object_new_string(
			"exact Mann-Whitney interval of the shift (normal "
			"approximation beyond 30 runs a side), labelled with its "
			"real coverage"));
		json_object_object_add(o, "p_value", json_object_new_string(
			"two-sided Wilcoxon-Mann-Whitney rank-sum test"));
		json_object_object_add(o, "tost", json_object_new_string(
			"no change: both one-sided rank-sum tests within "
			"+-min_effect"));
	} else {
		json_object_object_add(o, "unit", json_object_new_string(
			"the job, or the boot where every run has a boot id and "
			"the sides share none"));
		json_object_object_add(o, "samples", json_object_new_string(
			"each unit's level: the Hodges-Lehmann location of the "
			"log metric of its measured runs (warm-ups and runs that "
			"did not finish left out; disturbed runs left out when "
			"the job said exclude_disturbed; an A/A job's A and A2 "
			"pool)"));
		json_object_object_add(o, "change", json_object_new_string(
			"exp(m_other - m_base) - 1, m the mean of a side's unit "
			"levels"));
		json_object_object_add(o, "ci", json_object_new_string(
			"pooled two-sample t on the unit levels (the unit as a "
			"random effect), units_base + units_other - 2 degrees of "
			"freedom; none with one unit a side"));
		json_object_object_add(o, "p_value", json_object_new_string(
			"two-sided t test on the unit levels"));
		json_object_object_add(o, "tost", json_object_new_string(
			"no change: both one-sided t tests within +-min_effect"));
	}
	json_object_object_add(o, "change_median", json_object_new_string(
		"median(other) / median(base) - 1 (of the units' levels, or of "
		"the runs in a run-level comparison)"));
	json_object_object_add(o, "multiple", json_object_new_string(
		"Holm over every compared side x variant"));
	return o;
}

/* The ids of side's jobs, "4" or "4, 6, 8". */
static void side_ids(const struct jc_job *jobs, size_t nj, unsigned side,
		     char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t j = 0; j < nj && off < len; j++)
		if (jobs[j].side == side)
			off += (size_t)snprintf(buf + off, len - off,
						"%s%" PRId64, off ? ", " : "",
						jobs[j].id);
}

static struct json_object *side_ids_json(const struct jc_job *jobs,
					 size_t nj, unsigned side)
{
	struct json_object *a = json_object_new_array();

	for (size_t j = 0; j < nj; j++)
		if (jobs[j].side == side)
			json_object_array_add(a, json_object_new_int64(jobs[j].id));
	return a;
}

/* The first job of side (its id stands for the side where one id is
 * expected). */
static const struct jc_job *side_first(const struct jc_job *jobs, size_t nj,
				       unsigned side)
{
	for (size_t j = 0; j < nj; j++)
		if (jobs[j].side == side)
			return &jobs[j];
	return NULL;
}

/* The runs of variant name over side's jobs: their log SD, their boots
 * (distinct by id) and how many runs; ids (may be NULL) collects the
 * boot ids. */
static double side_spread(const struct jc_job *jobs, size_t nj, unsigned side,
			  const char *name, size_t *boots,
			  struct json_object *ids)
{
	struct json_object *set = json_object_new_object();
	double sum = 0, ss = 0;
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t j = 0; j < nj; j++) {
			int vi = jobs[j].side == side ? var_index(&jobs[j], name) : -1;
			const struct jc_var *v = vi >= 0 ? &jobs[j].v[vi] : NULL;

			for (size_t k = 0; v && k < v->n; k++) {
				double l = log(v->vals[k]);

				if (!pass) {
					sum += l;
					n++;
					if (v->boot[k] != JC_NO_BOOT)
						set_add(set, jobs[j].boots[v->boot[k]]);
				} else {
					ss += (l - sum / (double)n) * (l - sum / (double)n);
				}
			}
		}
	*boots = (size_t)json_object_object_length(set);
	if (ids) {
		json_object_object_foreach(set, k, x)
		{
			(void)x;
			json_object_array_add(ids, json_object_new_string(k));
		}
	}
	json_object_put(set);
	return n >= 2 ? sqrt(ss / (double)(n - 1)) : NAN;
}

static struct json_object *cmp_json(const struct jc_job *jobs, size_t nj,
				    const struct jc_cmp *c, enum bb_metric m)
{
	const struct jc_job *b = side_first(jobs, nj, 0);
	const struct jc_job *oj = side_first(jobs, nj, c->side);
	struct json_object *o, *boots, *bids, *oids;
	char an[160], bn[160], ids[128], text[768];
	size_t nbb, nob, shared = 0;
	double bs, os;

	if (c->ret) {
		o = json_object_new_object();
		json_object_object_add(o, "baseline", json_object_new_string(c->name));
		json_object_object_add(o, "variant", json_object_new_string(c->name));
		json_object_object_add(o, "metric",
				       json_object_new_string(bb_metric_name(m)));
		side_ids(jobs, nj, c->side, ids, sizeof(ids));
		if (c->ret == -EINVAL && c->runs)
			snprintf(text, sizeof(text),
				 "not compared: a run-level comparison needs 2 "
				 "or more measured runs of %s on each side",
				 c->name);
		else if (c->ret == -EINVAL)
			snprintf(text, sizeof(text),
				 "not compared: no measured run of %s on one "
				 "side (jobs %s against the base)",
				 c->name, ids);
		else
			snprintf(text, sizeof(text), "not compared: %s",
				 c->ret == -E2BIG ? "more than 2048 runs a side" :
						    strerror(-c->ret));
		json_object_object_add(o, "error", json_object_new_string(text));
	} else {
		o = bb_ab_result_to_json(&c->r, c->name, c->name, m);
		side_ids(jobs, nj, 0, ids, sizeof(ids));
		snprintf(an, sizeof(an), "job%s %s %s", strchr(ids, ',') ? "s" : "",
			 ids, c->name);
		side_ids(jobs, nj, c->side, ids, sizeof(ids));
		snprintf(bn, sizeof(bn), "job%s %s %s", strchr(ids, ',') ? "s" : "",
			 ids, c->name);
		if (bb_ab_format_names(&c->r, an, bn, text, sizeof(text)) == 0)
			json_object_object_add(o, "text",
					       json_object_new_string(text));
	}
	json_object_object_add(o, "base_job", json_object_new_int64(b ? b->id : 0));
	json_object_object_add(o, "job", json_object_new_int64(oj ? oj->id : 0));
	json_object_object_add(o, "base_jobs", side_ids_json(jobs, nj, 0));
	json_object_object_add(o, "jobs", side_ids_json(jobs, nj, c->side));
	json_object_object_add(o, "side", json_object_new_int64(c->side));
	json_object_object_add(o, "compared_by", json_object_new_string(
			       c->runs ? "run" :
			       c->kind == BB_AB_UNIT_BOOT ? "boot" : "job"));
	if (c->runs)
		json_object_object_add(o, "assumes", json_object_new_string(
			"the runs of the jobs are independent draws of one "
			"distribution: no job-to-job or boot-to-boot variance "
			"(asked for with level run; the job, or boot, as the "
			"unit is the default)"));
	bids = json_object_new_array();
	oids = json_object_new_array();
	bs = side_spread(jobs, nj, 0, c->name, &nbb, bids);
	os = side_spread(jobs, nj, c->side, c->name, &nob, oids);
	for (size_t i = 0; i < json_object_array_length(bids); i++)
		for (size_t k = 0; k < json_object_array_length(oids); k++)
			shared += !strcmp(json_object_get_string(
						  json_object_array_get_idx(bids, i)),
					  json_object_get_string(
						  json_object_array_get_idx(oids, k)));
	json_object_put(bids);
	json_object_put(oids);
	json_object_object_add(o, "base_spread", jd(expm1(bs)));
	json_object_object_add(o, "spread", jd(expm1(os)));
	boots = json_object_new_object();
	json_object_object_add(boots, "base", json_object_new_int64((int64_t)nbb));
	json_object_object_add(boots, "other", json_object_new_int64((int64_t)nob));
	json_object_object_add(boots, "shared", json_object_new_int64((int64_t)shared));
	json_object_object_add(o, "boots", boots);
	return o;
}

/* ---- the comparison ----------------------------------------------------- */

/* A comparison per OTHER side x variant name that the base side has too
 * (every variant of the side's jobs, or only `only`). */
static int match(struct jc_job *jobs, size_t nj, unsigned nsides,
		 const char *only, struct jc_cmp *cmps, size_t *ncmp,
		 struct json_object *unmatched, struct bb_jobcmp_error *e)
{
	char names[512], names2[512];

	*ncmp = 0;
	for (size_t j = 0; j < nj; j++)
		if (only && var_index(&jobs[j], only) < 0) {
			var_names(&jobs[j], names, sizeof(names));
			return jc_err(e, -EINVAL, "invalid_argument", "variant",
				      "variant: job %" PRId64 " has no variant "
				      "'%.64s' (it has %s)",
				      jobs[j].id, only, names);
		}
	for (unsigned side = 1; side < nsides; side++)
		for (size_t j = 0; j < nj; j++) {
			if (jobs[j].side != side)
				continue;
			for (unsigned v = 0; v < jobs[j].nv; v++) {
				const char *name = jobs[j].v[v].name;
				bool in_base = false, done = false;

				if (only && strcmp(only, name))
					continue;
				for (size_t c = 0; c < *ncmp && !done; c++)
					done = cmps[c].side == side &&
					       !strcmp(cmps[c].name, name);
				if (done)
					continue;
				for (size_t k = 0; k < nj; k++)
					in_base |= !jobs[k].side &&
						   var_index(&jobs[k], name) >= 0;
				if (!in_base) {
					struct json_object *u = json_object_new_object();

					json_object_object_add(u, "job",
							       json_object_new_int64(jobs[j].id));
					json_object_object_add(u, "variant",
							       json_object_new_string(name));
					json_object_array_add(unmatched, u);
					continue;
				}
				cmps[*ncmp] = (struct jc_cmp){ .side = side };
				snprintf(cmps[*ncmp].name, sizeof(cmps[*ncmp].name),
					 "%s", name);
				(*ncmp)++;
				/* every job of both sides that has it */
				for (size_t k = 0; k < nj; k++) {
					int vi = var_index(&jobs[k], name);

					if (vi >= 0 && (!jobs[k].side ||
							jobs[k].side == side))
						jobs[k].v[vi].used = true;
				}
			}
		}
	if (!*ncmp) {
		const struct jc_job *o = side_first(jobs, nj, 1);

		var_names(&jobs[0], names, sizeof(names));
		var_names(o, names2, sizeof(names2));
		return jc_err(e, -EINVAL, "invalid_argument", "with",
			      "no variant of job %" PRId64 " (%s) is named like "
			      "one of job %" PRId64 " (%s): the variants compared "
			      "are those of the same name",
			      o->id, names2, jobs[0].id, names);
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

/* The units of variant name on side: one per job (kind JOB), or one per
 * boot id over the side's jobs (BOOT); values copied into *store. */
struct jc_units {
	struct bb_ab_unit u[BB_AB_MAX_N];
	size_t n;
	double *store;
};

static int side_units(const struct jc_job *jobs, size_t nj, unsigned side,
		      const char *name, enum bb_ab_unit_kind kind,
		      struct jc_units *out)
{
	size_t total = 0, pos = 0;
	struct json_object *ids = NULL;

	out->n = 0;
	out->store = NULL;
	for (size_t j = 0; j < nj; j++) {
		int vi = jobs[j].side == side ? var_index(&jobs[j], name) : -1;

		if (vi < 0 || !jobs[j].v[vi].n)
			continue;
		if (kind == BB_AB_UNIT_JOB) {
			if (out->n == BB_AB_MAX_N)
				return -E2BIG;
			out->u[out->n++] = (struct bb_ab_unit){
				jobs[j].v[vi].vals, jobs[j].v[vi].n };
		}
		total += jobs[j].v[vi].n;
	}
	if (kind == BB_AB_UNIT_JOB)
		return 0;
	/* by boot: the ids in order of first appearance, then their runs */
	out->store = malloc((total ? total : 1) * sizeof(double));
	ids = json_object_new_object();
	if (!out->store || !ids) {
		json_object_put(ids);
		return -ENOMEM;
	}
	for (size_t j = 0; j < nj; j++) {
		int vi = jobs[j].side == side ? var_index(&jobs[j], name) : -1;

		for (size_t k = 0; vi >= 0 && k < jobs[j].v[vi].n; k++)
			set_add(ids, jobs[j].boots[jobs[j].v[vi].boot[k]]);
	}
	json_object_object_foreach(ids, id, x)
	{
		size_t first = pos;

		(void)x;
		for (size_t j = 0; j < nj; j++) {
			int vi = jobs[j].side == side ? var_index(&jobs[j], name) : -1;
			const struct jc_var *v = vi >= 0 ? &jobs[j].v[vi] : NULL;

			for (size_t k = 0; v && k < v->n; k++)
				if (!strcmp(jobs[j].boots[v->boot[k]], id))
					out->store[pos++] = v->vals[k];
		}
		if (out->n == BB_AB_MAX_N) {
			json_object_put(ids);
			return -E2BIG;
		}
		out->u[out->n++] = (struct bb_ab_unit){ out->store + first,
						       pos - first };
	}
	json_object_put(ids);
	return 0;
}

/* The unit of a comparison: the boot where every run of both sides has a
 * boot id and no boot id is on both sides (then each side's boots are
 * its replicates: a job of one boot is that boot, several jobs in one
 * boot are one unit), else the job. */
static enum bb_ab_unit_kind unit_of(const struct jc_job *jobs, size_t nj,
				    const struct jc_cmp *c)
{
	struct json_object *base = json_object_new_object();
	enum bb_ab_unit_kind kind = BB_AB_UNIT_BOOT;

	if (!base)
		return BB_AB_UNIT_JOB;
	for (int pass = 0; pass < 2 && kind == BB_AB_UNIT_BOOT; pass++)
		for (size_t j = 0; j < nj && kind == BB_AB_UNIT_BOOT; j++) {
			unsigned want = pass ? c->side : 0;
			int vi = jobs[j].side == want ? var_index(&jobs[j], c->name) : -1;
			const struct jc_var *v = vi >= 0 ? &jobs[j].v[vi] : NULL;

			for (size_t k = 0; v && k < v->n; k++) {
				const char *id;

				if (v->boot[k] == JC_NO_BOOT) {
					kind = BB_AB_UNIT_JOB;
					break;
				}
				id = jobs[j].boots[v->boot[k]];
				if (!pass) {
					set_add(base, id);
				} else if (json_object_object_get_ex(base, id, NULL)) {
					kind = BB_AB_UNIT_JOB; /* a shared boot */
					break;
				}
			}
		}
	json_object_put(base);
	return kind;
}

/* A run-level comparison (asked for): each side's runs pooled. */
static int compare_runs(const struct jc_job *jobs, size_t nj,
			struct jc_cmp *c, const struct bb_ab_params *p)
{
	double *x[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 }, cap[2] = { 0, 0 };
	int ret = 0;

	for (int s = 0; s < 2; s++) {
		unsigned side = s ? c->side : 0;

		for (size_t j = 0; j < nj; j++) {
			int vi = jobs[j].side == side ? var_index(&jobs[j], c->name) : -1;

			cap[s] += vi >= 0 ? jobs[j].v[vi].n : 0;
		}
		x[s] = malloc((cap[s] ? cap[s] : 1) * sizeof(double));
		if (!x[s]) {
			ret = -ENOMEM;
			goto out;
		}
		for (size_t j = 0; j < nj && !ret; j++) {
			int vi = jobs[j].side == side ? var_index(&jobs[j], c->name) : -1;

			if (vi >= 0)
				ret = run_sample(&jobs[j].v[vi], x[s], &n[s]);
		}
	}
	if (!ret)
		ret = bb_ab_compare(x[0], n[0], x[1], n[1], p, &c->r);
out:
	free(x[0]);
	free(x[1]);
	return ret;
}

/* Every comparison, then Holm over those that could be made; *worst
 * their verdict (bb_ab_verdict_worst), *nf how many were made.  0 or
 * -ENOMEM. */
static int compare_all(const struct jc_job *jobs, size_t nj,
		       struct jc_cmp *cmps, size_t ncmp, bool runs,
		       const struct bb_ab_params *p, size_t *nf,
		       enum bb_ab_verdict *worst)
{
	struct bb_ab_result **fam = calloc(ncmp ? ncmp : 1, sizeof(*fam));
	enum bb_ab_verdict *verdicts = calloc(ncmp ? ncmp : 1, sizeof(*verdicts));
	struct jc_units *ua = malloc(sizeof(*ua)), *ub = malloc(sizeof(*ub));
	size_t nfailed = 0;
	int ret = 0;

	*nf = 0;
	if (!fam || !verdicts || !ua || !ub) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < ncmp; c++) {
		struct jc_cmp *cm = &cmps[c];

		cm->runs = runs;
		if (runs) {
			cm->ret = compare_runs(jobs, nj, cm, p);
		} else {
			struct bb_ab_params up = *p;

			cm->kind = unit_of(jobs, nj, cm);
			up.unit = cm->kind;
			cm->ret = side_units(jobs, nj, 0, cm->name, cm->kind, ua);
			if (!cm->ret)
				cm->ret = side_units(jobs, nj, cm->side, cm->name,
						     cm->kind, ub);
			if (!cm->ret)
				cm->ret = bb_ab_compare_units(ua->u, ua->n, ub->u,
							      ub->n, &up, &cm->r);
			free(ua->store);
			free(ub->store);
			ua->store = ub->store = NULL;
		}
		if (cm->ret == -ENOMEM) {
			ret = -ENOMEM;
			goto out;
		}
		if (!cm->ret)
			fam[(*nf)++] = &cm->r;
		else
			nfailed++;
	}
	bb_ab_family(fam, *nf, BB_AB_MULTIPLE_HOLM);
	for (size_t i = 0; i < *nf; i++)
		verdicts[i] = fam[i]->verdict;
	*worst = bb_ab_verdict_worst(verdicts, *nf, nfailed);
out:
	free(fam);
	free(verdicts);
	free(ua);
	free(ub);
	return ret;
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
					 unsigned nsides, bool runs,
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
			if (runs && var_boots(x, NULL) >= 2)
				warn(warnings, "job %" PRId64 ": %s's %zu runs "
					       "span %zu boots: each boot's median "
					       "is one value of the run-level "
					       "sample",
				     jobs[j].id, x->name, x->n, var_boots(x, NULL));
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

		char ids[128];

		side_ids(jobs, nj, 0, ids, sizeof(ids));
		warn(warnings, "job %.0f's variant %s has no variant of that "
			       "name in job%s %s: not compared",
		     jnum(u, "job", 0), jstr(u, "variant", "?"),
		     strchr(ids, ',') ? "s" : "", ids);
	}
	if (runs)
		warn(warnings, "run-level comparison (asked for): it assumes "
			       "the jobs' runs are independent draws of one "
			       "distribution, with no job-to-job or boot-to-boot "
			       "variance; on a noisy host two runs of the same "
			       "job are called different far more often than "
			       "the stated error rate (the default compares "
			       "jobs, or boots, as the unit)");
	/* one side's jobs all ran before another's: drift between the two
	 * periods is a difference of the sides */
	for (unsigned sd = 1; !runs && sd < nsides; sd++) {
		const char *b_first = NULL, *b_last = NULL;
		const char *o_first = NULL, *o_last = NULL;
		size_t nb = 0, no = 0;
		bool known = true;
		char bids[128], oids[128];

		for (size_t j = 0; j < nj; j++) {
			const char *st = jstr(jobs[j].doc, "started", NULL);
			const char *fi = jstr(jobs[j].doc, "finished", st);
			const char **f, **l;

			if (jobs[j].side && jobs[j].side != sd)
				continue;
			if (!st || !fi) {
				known = false;
				break;
			}
			f = jobs[j].side ? &o_first : &b_first;
			l = jobs[j].side ? &o_last : &b_last;
			if (!*f || strcmp(st, *f) < 0)
				*f = st;
			if (!*l || strcmp(fi, *l) > 0)
				*l = fi;
			*(jobs[j].side ? &no : &nb) += 1;
		}
		if (!known || nb < 2 || no < 2 || !b_last || !o_last ||
		    !(strcmp(b_last, o_first) <= 0 || strcmp(o_last, b_first) <= 0))
			continue;
		side_ids(jobs, nj, 0, bids, sizeof(bids));
		side_ids(jobs, nj, sd, oids, sizeof(oids));
		warn(warnings, "jobs %s all ran %s jobs %s: a drift of the host "
			       "between the two periods counts as a difference of "
			       "the sides; alternate them (one job of each side in "
			       "turn) so that drift falls on both",
		     bids, strcmp(b_last, o_first) <= 0 ? "before" : "after", oids);
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

/* Load the jobs of every side (base first), each with its side; one
 * metric for all (a ratio of IOPS to latencies means nothing), and no
 * job twice.  *nj: the jobs loaded (to free). */
static int load_all(struct jc_job *jobs, size_t *nj,
		    const struct bb_jobcmp_side *sides, size_t nsides,
		    enum bb_metric *m, struct bb_jobcmp_error *e)
{
	int ret;

	*nj = 0;
	for (size_t sd = 0; sd < nsides; sd++)
		for (size_t k = 0; k < sides[sd].n; k++) {
			ret = job_load(&jobs[*nj], &sides[sd].jobs[k], e);
			jobs[*nj].side = (unsigned)sd;
			(*nj)++;
			if (ret)
				return ret;
			for (size_t j = 0; j + 1 < *nj; j++)
				if (jobs[j].id == jobs[*nj - 1].id)
					return jc_err(e, -EINVAL,
						      "invalid_argument",
						      sd ? "with" : "base",
						      "job %" PRId64 " is given "
						      "twice: a job is on one "
						      "side, once",
						      jobs[j].id);
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
				      jobs[j].side ? "with" : "base",
				      "job %" PRId64 " (%s) has no measured run "
				      "of the variants compared",
				      jobs[j].id, jstr(jobs[j].doc, "state", "?"));
	}
	return 0;
}

int bb_jobcmp_sides(const struct bb_jobcmp_side *base,
		    const struct bb_jobcmp_side *with, size_t nwith,
		    const struct bb_jobcmp_opts *opts, struct json_object **out,
		    struct bb_jobcmp_error *e)
{
	struct bb_jobcmp_side sides[1 + BB_JOBCMP_MAX_WITH];
	struct jc_job *jobs = NULL;
	struct jc_cmp *cmps = NULL;
	struct json_object *doc = NULL, *unmatched = NULL, *arr;
	struct jc_diff d = { 0 };
	struct bb_ab_params p;
	enum bb_ab_verdict worst = BB_AB_INCONCLUSIVE;
	size_t nj = 0, ncmp = 0, nf = 0, total = 0;
	size_t boots[JC_MAX_JOBS], unknown[JC_MAX_JOBS];
	bool allow = opts && opts->allow_different_workload;
	bool runs = opts && opts->level == BB_JOBCMP_LEVEL_RUN;
	enum bb_metric m = BB_METRIC_IOPS;
	int ret;

	if (e)
		memset(e, 0, sizeof(*e));
	if (out)
		*out = NULL;
	if (!base || !with || !out || !nwith || nwith > BB_JOBCMP_MAX_WITH)
		return jc_err(e, -EINVAL, "invalid_argument", "with",
			      "with: 1 to %d jobs (or sides of jobs) to compare "
			      "with the base",
			      BB_JOBCMP_MAX_WITH);
	sides[0] = *base;
	for (size_t i = 0; i <= nwith; i++) {
		if (i)
			sides[i] = with[i - 1];
		if (!sides[i].jobs || !sides[i].n)
			return jc_err(e, -EINVAL, "invalid_argument",
				      i ? "with" : "base",
				      "%s: a side without jobs",
				      i ? "with" : "base");
		total += sides[i].n;
	}
	if (total > JC_MAX_JOBS)
		return jc_err(e, -EINVAL, "invalid_argument", "with",
			      "at most %d jobs in one comparison (%zu given)",
			      JC_MAX_JOBS, total);
	jobs = calloc(total, sizeof(*jobs));
	if (!jobs)
		return jc_err(e, -ENOMEM, "internal", NULL, "out of memory");
	ret = load_all(jobs, &nj, sides, nwith + 1, &m, e);
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
	ret = match(jobs, nj, (unsigned)nwith + 1, opts ? opts->variant : NULL,
		    cmps, &ncmp, unmatched, e);
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
	ret = compare_all(jobs, nj, cmps, ncmp, runs, &p, &nf, &worst);
	if (ret)
		goto out;

	doc = json_object_new_object();
	if (!doc) {
		ret = -ENOMEM;
		goto out;
	}
	json_object_object_add(doc, "base", json_object_new_int64(jobs[0].id));
	json_object_object_add(doc, "base_jobs", side_ids_json(jobs, nj, 0));
	arr = json_object_new_array();
	for (size_t j = 0; j < nj; j++)
		if (jobs[j].side)
			json_object_array_add(arr, json_object_new_int64(jobs[j].id));
	json_object_object_add(doc, "with", arr);
	arr = json_object_new_array();
	for (unsigned sd = 0; sd <= nwith; sd++)
		json_object_array_add(arr, side_ids_json(jobs, nj, sd));
	json_object_object_add(doc, "sides", arr);
	json_object_object_add(doc, "level",
			       json_object_new_string(runs ? "run" : "unit"));
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
	json_object_object_add(doc, "statistics", statistics_json(runs));
	json_object_object_add(doc, "verdict",
			       nf ? json_object_new_string(bb_ab_verdict_name(worst)) :
				    NULL);
	arr = json_object_new_array();
	for (size_t j = 0; j < nj; j++)
		json_object_array_add(arr, job_json(&jobs[j], !jobs[j].side,
						    &boots[j], &unknown[j]));
	json_object_object_add(doc, "jobs", arr);
	arr = json_object_new_array();
	for (size_t c = 0; c < ncmp; c++)
		json_object_array_add(arr, cmp_json(jobs, nj, &cmps[c], m));
	json_object_object_add(doc, "comparisons", arr);
	json_object_object_add(doc, "unmatched", json_object_get(unmatched));
	json_object_object_add(doc, "boots",
			       boots_json(jobs, nj, boots, unknown, cmps, ncmp));
	json_object_object_add(doc, "workload", workload_json(&d, allow));
	json_object_object_add(doc, "diff", json_object_get(d.rows));
	json_object_object_add(doc, "warnings",
			       warnings_json(jobs, nj, (unsigned)nwith + 1, runs,
					     &d, unmatched, &p));
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
	free(jobs);
	if (ret == -ENOMEM)
		jc_err(e, -ENOMEM, "internal", NULL, "out of memory");
	return ret;
}

int bb_jobcmp(const struct bb_jobcmp_job *base,
	      const struct bb_jobcmp_job *with, size_t nwith,
	      const struct bb_jobcmp_opts *opts, struct json_object **out,
	      struct bb_jobcmp_error *e)
{
	struct bb_jobcmp_side b = { base, 1 }, w[BB_JOBCMP_MAX_WITH];

	if (!base || !with || !nwith || nwith > BB_JOBCMP_MAX_WITH)
		return bb_jobcmp_sides(base ? &b : NULL, with ? w : NULL,
				       nwith, opts, out, e);
	for (size_t i = 0; i < nwith; i++)
		w[i] = (struct bb_jobcmp_side){ &with[i], 1 };
	return bb_jobcmp_sides(&b, w, nwith, opts, out, e);
}
