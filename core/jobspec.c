/* jobspec.c - the A/B job document: parsing and validation (every error
 * collected with its field path), the normalized document, the run plan
 * and the metrics of a run (see jobspec.h).
 *
 * Workload and variant fields go through the option table one field at a
 * time (bb_options_from_json on a one-key object), so that each bad field
 * gives its own error; the set of known fields is the "properties" of
 * bb_options_json_schema(), the table itself. */
#include "jobspec.h"
#include "options.h"
#include "sysknob.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_MAX_DEPTH 32       /* JSON nesting accepted by the tokener */
#define JOB_DEF_REPEAT 12
#define JOB_DEF_WARMUP 1
#define JOB_DEF_SEED 1
#define JOB_DEF_MIN_EFFECT 1.0 /* percent */
#define JOB_DEF_CONFIDENCE 0.95
#define JOB_MIN_REPEAT 2

static const char *const order_names[BB_ORDER__COUNT] = {
	[BB_ORDER_INTERLEAVED] = "interleaved",
	[BB_ORDER_BLOCKED] = "blocked",
	[BB_ORDER_RANDOM] = "random",
};

static const struct {
	const char *name;
	const char *unit;
	bool higher_is_better;
} metric_info[BB_METRIC__COUNT] = {
	[BB_METRIC_IOPS] = { "iops", "IO/s", true },
	[BB_METRIC_BW] = { "bw", "B/s", true },
	[BB_METRIC_LAT_MEAN] = { "lat_mean", "ns", false },
	[BB_METRIC_LAT_P50] = { "lat_p50", "ns", false },
	[BB_METRIC_LAT_P99] = { "lat_p99", "ns", false },
	[BB_METRIC_LAT_P999] = { "lat_p999", "ns", false },
	[BB_METRIC_CPU_PER_IO] = { "cpu_per_io", "ns/IO", false },
};

/* The top-level fields, in the order of the normalized document. */
static const char *const top_fields[] = {
	"name",	  "target", "workload", "variants",   "repeat",	    "warmup",
	"max_repeat", "order", "seed",	    "metric",	  "min_effect", "confidence",
	"quiescence", "aa",
};

/* ------------------------------------------------------------------ */
/* names */

const char *bb_metric_name(enum bb_metric m)
{
	return (unsigned)m < BB_METRIC__COUNT ? metric_info[m].name : "?";
}

int bb_metric_from_name(const char *s, enum bb_metric *m)
{
	for (unsigned i = 0; s && i < BB_METRIC__COUNT; i++) {
		if (!strcmp(s, metric_info[i].name)) {
			*m = (enum bb_metric)i;
			return 0;
		}
	}
	return -EINVAL;
}

bool bb_metric_higher_is_better(enum bb_metric m)
{
	return (unsigned)m < BB_METRIC__COUNT && metric_info[m].higher_is_better;
}

const char *bb_metric_unit(enum bb_metric m)
{
	return (unsigned)m < BB_METRIC__COUNT ? metric_info[m].unit : "?";
}

const char *bb_job_order_name(enum bb_job_order o)
{
	return (unsigned)o < BB_ORDER__COUNT ? order_names[o] : "?";
}

static int order_from_name(const char *s, enum bb_job_order *o)
{
	for (unsigned i = 0; i < BB_ORDER__COUNT; i++) {
		if (!strcmp(s, order_names[i])) {
			*o = (enum bb_job_order)i;
			return 0;
		}
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* metrics */

double bb_metric_value(enum bb_metric m, const struct bb_result *r)
{
	const struct bb_hist *h = &r->lat;
	uint64_t cpu;

	switch (m) {
	case BB_METRIC_IOPS:
		return bb_result_iops(r);
	case BB_METRIC_BW:
		if (!r->duration_ns)
			return 0;
		return (double)(r->io.bytes_read + r->io.bytes_written) * 1e9 /
		       (double)r->duration_ns;
	case BB_METRIC_LAT_MEAN:
		return h->count ? (double)h->sum_ns / (double)h->count : 0;
	case BB_METRIC_LAT_P50:
		return (double)bb_hist_percentile(h, 50.0);
	case BB_METRIC_LAT_P99:
		return (double)bb_hist_percentile(h, 99.0);
	case BB_METRIC_LAT_P999:
		return (double)bb_hist_percentile(h, 99.9);
	case BB_METRIC_CPU_PER_IO:
		if (!r->io.ios)
			return 0;
		cpu = r->cpu_submit.usr_ns + r->cpu_submit.sys_ns +
		      r->cpu_completion.usr_ns + r->cpu_completion.sys_ns;
		return (double)cpu / (double)r->io.ios;
	case BB_METRIC__COUNT:
		break;
	}
	return 0;
}

static bool metric_needs_lat(enum bb_metric m)
{
	return m == BB_METRIC_LAT_MEAN || m == BB_METRIC_LAT_P50 ||
	       m == BB_METRIC_LAT_P99 || m == BB_METRIC_LAT_P999;
}

void bb_job_ab_params(const struct bb_job *job, struct bb_ab_params *p)
{
	bb_ab_params_init(p);
	p->higher_is_better = bb_metric_higher_is_better(job->metric);
	p->paired = job->order != BB_ORDER_BLOCKED;
	p->min_effect = job->min_effect;
	p->confidence = job->confidence;
	p->seed = job->seed;
}

/* ------------------------------------------------------------------ */
/* errors */

static void err_add_raw(struct bb_job_errors *e, const char *field,
			const char *msg)
{
	unsigned i = e->n++;

	if (i >= BB_JOB_MAX_ERRORS)
		return;
	snprintf(e->field[i], sizeof(e->field[i]), "%s", field);
	snprintf(e->msg[i], sizeof(e->msg[i]), "%s", msg);
}

static void err_add(struct bb_job_errors *e, const char *field,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void err_add(struct bb_job_errors *e, const char *field,
		    const char *fmt, ...)
{
	char text[BB_JOB_ERRLEN], msg[BB_JOB_ERRLEN + 160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (*field)
		snprintf(msg, sizeof(msg), "%s: %s", field, text);
	else
		snprintf(msg, sizeof(msg), "%s", text);
	err_add_raw(e, field, msg);
}

/* A NUL (\u0000) in any string of the document: an error on its path
 * each (C strings would cut the text short: a name, a target, a knob
 * value).  Returns how many. */
static unsigned check_nul(struct bb_job_errors *e, const char *path,
			  struct json_object *j)
{
	char sub[128];
	unsigned n = 0;

	if (json_object_is_type(j, json_type_string)) {
		if ((size_t)json_object_get_string_len(j) !=
		    strlen(json_object_get_string(j))) {
			err_add(e, path, "contains a NUL character (\\u0000), "
				"which no text may hold");
			n++;
		}
	} else if (json_object_is_type(j, json_type_object)) {
		json_object_object_foreach(j, k, v) {
			snprintf(sub, sizeof(sub), "%s%s%s", path,
				 *path ? "." : "", k);
			n += check_nul(e, sub, v);
		}
	} else if (json_object_is_type(j, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(j); i++) {
			snprintf(sub, sizeof(sub), "%s[%zu]", path, i);
			n += check_nul(e, sub, json_object_array_get_idx(j, i));
		}
	}
	return n;
}

/* Whether valid JSON text holds a \u0000 escape (json-c cuts an object
 * key at it, so it cannot be seen in the parsed document). */
static bool text_has_nul(const char *t, size_t len)
{
	for (size_t i = 0; i + 5 < len; i++) {
		if (t[i] != '\\')
			continue;
		if (t[i + 1] == 'u' && !memcmp(t + i + 2, "0000", 4))
			return true;
		i++;
	}
	return false;
}

/* The option table's messages quote text values as 'x'; in a JSON
 * document they are shown as JSON strings, "x". */
static void requote(char *msg, size_t len, const char *s)
{
	char pat[160], *p;
	size_t n = strlen(s);

	if (n + 3 > sizeof(pat))
		return;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '"' || s[i] == '\\' || s[i] == '\'' ||
		    (unsigned char)s[i] < 0x20)
			return;
	snprintf(pat, sizeof(pat), "'%s'", s);
	p = strstr(msg, pat);
	if (!p || (size_t)(p - msg) + n + 2 >= len)
		return;
	p[0] = '"';
	p[n + 1] = '"';
}

/* bb_config_check() names options as on the command line ("--bs: ...");
 * a job names them by JSON field under path ("variants.B.bs: ..."). */
static void err_add_check(struct bb_job_errors *e, const char *path,
			  const char *msg)
{
	char field[128], name[64];
	size_t n = 0;

	if (!strncmp(msg, "--", 2)) {
		const char *p = msg + 2;

		while (n + 1 < sizeof(name) &&
		       (isalnum((unsigned char)p[n]) || p[n] == '-')) {
			name[n] = p[n] == '-' ? '_' : p[n];
			n++;
		}
		name[n] = '\0';
		if (n && p[n] == ':') {
			snprintf(field, sizeof(field), "%s.%s", path, name);
			err_add(e, field, "%s", p + n + 2);
			return;
		}
	}
	err_add(e, path, "%s", msg);
}

/* ------------------------------------------------------------------ */
/* typed fields */

/* A JSON number that is a mathematical integer. */
static bool json_int_value(struct json_object *j, bool *neg, uint64_t *mag)
{
	enum json_type t = json_object_get_type(j);

	if (t == json_type_int) {
		int64_t v = json_object_get_int64(j);

		*neg = v < 0;
		*mag = v < 0 ? (uint64_t)(-(v + 1)) + 1 :
			       json_object_get_uint64(j);
		return true;
	}
	if (t == json_type_double) {
		double d = json_object_get_double(j);

		if (!isfinite(d) || d != floor(d) || fabs(d) >= 1.8e19)
			return false;
		*neg = d < 0;
		*mag = (uint64_t)fabs(d);
		return true;
	}
	return false;
}

static int get_uint(struct bb_job_errors *e, const char *field,
		    struct json_object *j, uint64_t lo, uint64_t hi,
		    uint64_t *out)
{
	uint64_t mag;
	bool neg;

	if (!json_int_value(j, &neg, &mag)) {
		err_add(e, field, "expected an integer (%" PRIu64 "..%" PRIu64 ")",
			lo, hi);
		return -EINVAL;
	}
	if (neg || mag < lo || mag > hi) {
		err_add(e, field, "%s%" PRIu64 " is out of range %" PRIu64 "..%" PRIu64,
			neg ? "-" : "", mag, lo, hi);
		return -EINVAL;
	}
	*out = mag;
	return 0;
}

static int get_number(struct bb_job_errors *e, const char *field,
		      struct json_object *j, double *out)
{
	enum json_type t = json_object_get_type(j);

	if (t != json_type_int && t != json_type_double) {
		err_add(e, field, "expected a number");
		return -EINVAL;
	}
	*out = json_object_get_double(j);
	if (!isfinite(*out)) {
		err_add(e, field, "expected a finite number");
		return -EINVAL;
	}
	return 0;
}

/* A string of 1..max bytes. */
static int get_string(struct bb_job_errors *e, const char *field,
		      struct json_object *j, size_t max, const char **out)
{
	const char *s;

	if (!json_object_is_type(j, json_type_string)) {
		err_add(e, field, "expected a string");
		return -EINVAL;
	}
	s = json_object_get_string(j);
	if (!*s) {
		err_add(e, field, "must not be empty");
		return -EINVAL;
	}
	if (strlen(s) > max) {
		err_add(e, field, "longer than %zu bytes", max);
		return -EINVAL;
	}
	*out = s;
	return 0;
}

/* ------------------------------------------------------------------ */
/* workload and variants */

struct job_ctx {
	struct bb_job *job;
	struct bb_job_errors *errs;
	struct json_object *opt_schema; /* owns opt_props */
	struct json_object *opt_props;  /* the option table's JSON fields */
};

static bool variant_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > 31)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '-')
			return false;
	return true;
}

/* One sysfs knob of variant v (knob and val as in the document). */
static int add_knob(struct job_ctx *c, struct bb_job_variant *v,
		    const char *vpath, const char *knob, struct json_object *val)
{
	char field[128], text[128];
	const char *s = NULL;
	int len;

	snprintf(field, sizeof(field), "%s.sysfs.%s", vpath, knob);
	if (!bb_sysknob_name_ok(knob)) {
		err_add(c->errs, field,
			"not a valid knob name (a queue attribute: [a-z0-9_]{1,63})");
		return -EINVAL;
	}
	for (unsigned i = 0; i < v->nsysfs; i++) {
		if (!strcmp(v->sysfs[i].name, knob)) {
			err_add(c->errs, field, "given twice");
			return -EINVAL;
		}
	}
	switch (json_object_get_type(val)) {
	case json_type_string:
		s = json_object_get_string(val);
		break;
	case json_type_boolean:
		s = json_object_get_boolean(val) ? "1" : "0";
		break;
	case json_type_int:
	case json_type_double:
		s = json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN);
		break;
	default:
		err_add(c->errs, field, "expected a string, a number or a boolean");
		return -EINVAL;
	}
	len = snprintf(text, sizeof(text), "%s", s);
	if (len < 0 || (size_t)len >= sizeof(v->sysfs[0].value)) {
		err_add(c->errs, field, "value longer than %zu bytes",
			sizeof(v->sysfs[0].value) - 1);
		return -EINVAL;
	}
	if (strchr(text, '\n')) {
		err_add(c->errs, field, "value must not contain a newline");
		return -EINVAL;
	}
	if (v->nsysfs == BB_JOB_MAX_SYSFS) {
		err_add(c->errs, field, "more than %d sysfs knobs in a variant",
			BB_JOB_MAX_SYSFS);
		return -EINVAL;
	}
	snprintf(v->sysfs[v->nsysfs].name, sizeof(v->sysfs[0].name), "%s", knob);
	memcpy(v->sysfs[v->nsysfs].value, text, (size_t)len + 1);
	v->nsysfs++;
	return 0;
}

/* Apply the fields of obj (the workload, or a variant when v is not NULL)
 * to cfg, one at a time.  Returns the number of errors. */
static unsigned apply_fields(struct job_ctx *c, struct bb_config *cfg,
			     struct json_object *obj, const char *path,
			     struct bb_job_variant *v)
{
	unsigned before = c->errs->n;

	json_object_object_foreach(obj, key, val) {
		char field[128], msg[BB_JOB_ERRLEN];
		struct json_object *one;
		int ret;

		snprintf(field, sizeof(field), "%s.%s", path, key);
		if (!strcmp(key, "target")) {
			err_add(c->errs, field,
				"not allowed here: target is a top-level field of the job");
			continue;
		}
		if (v && !strcmp(key, "sysfs")) {
			if (!json_object_is_type(val, json_type_object)) {
				err_add(c->errs, field,
					"expected an object of queue knobs ({\"nomerges\": 2})");
				continue;
			}
			json_object_object_foreach(val, knob, kval)
				add_knob(c, v, path, knob, kval);
			continue;
		}
		if (v && !strncmp(key, "sysfs.", 6)) {
			add_knob(c, v, path, key + 6, val);
			continue;
		}
		if (!json_object_object_get_ex(c->opt_props, key, NULL)) {
			err_add(c->errs, field, "unknown field (%s)",
				v ? "a run option, \"sysfs.<knob>\" or \"sysfs\"; see biobench run --help" :
				    "a run option; see biobench run --help");
			continue;
		}
		one = json_object_new_object();
		if (!one) {
			err_add(c->errs, field, "out of memory");
			continue;
		}
		json_object_object_add(one, key, json_object_get(val));
		ret = bb_options_from_json(cfg, one, path, msg, sizeof(msg));
		json_object_put(one);
		if (ret) {
			size_t n = strlen(field);
			const char *colon = strstr(msg, ": ");

			if (json_object_is_type(val, json_type_string))
				requote(msg, sizeof(msg),
					json_object_get_string(val));
			/* the option's label may go deeper: "x.cpus[1]: ..." */
			if (!strncmp(msg, field, n) && msg[n] == '[' && colon &&
			    (size_t)(colon - msg) < sizeof(field))
				snprintf(field, sizeof(field), "%.*s",
					 (int)(colon - msg), msg);
			err_add_raw(c->errs, field, msg);
		}
	}
	return c->errs->n - before;
}

static void parse_variants(struct job_ctx *c, struct json_object *vars,
			   const struct bb_config *base, bool base_ok, bool aa)
{
	struct bb_job *job = c->job;
	struct bb_config chk = *base;
	char base_msg[BB_JOB_ERRLEN] = "";
	bool base_reported = false;
	size_t count;

	if (!json_object_is_type(vars, json_type_object)) {
		err_add(c->errs, "variants",
			"expected an object of variants ({\"A\": {...}, \"B\": {...}})");
		return;
	}
	count = (size_t)json_object_object_length(vars);
	if (aa && count != 1)
		err_add(c->errs, "variants",
			"an A/A job (aa: true) takes one variant, run twice; got %zu",
			count);
	if (!aa && count < 2)
		err_add(c->errs, "variants",
			"needs at least 2 variants (A and B), got %zu", count);
	if (count > BB_JOB_MAX_VARIANTS)
		err_add(c->errs, "variants", "at most %d variants, got %zu",
			BB_JOB_MAX_VARIANTS, count);
	/* the workload's own cross-field error is reported once, on it */
	if (base_ok && bb_config_check(&chk, base_msg, sizeof(base_msg)) == 0)
		base_msg[0] = '\0';

	json_object_object_foreach(vars, name, vobj) {
		struct bb_job_variant *v, scratch;
		char path[128], msg[BB_JOB_ERRLEN];
		unsigned nerr;

		snprintf(path, sizeof(path), "variants.%s", name);
		if (!variant_name_ok(name))
			err_add(c->errs, path,
				"not a valid variant name ([A-Za-z0-9_-]{1,31})");
		if (job->nvariants < BB_JOB_MAX_VARIANTS) {
			v = &job->v[job->nvariants++];
		} else {
			v = &scratch; /* still checked, not kept */
			memset(v, 0, sizeof(*v));
		}
		snprintf(v->name, sizeof(v->name), "%s", name);
		v->cfg = *base;
		if (!json_object_is_type(vobj, json_type_object)) {
			err_add(c->errs, path,
				"expected an object of overrides ({} for none)");
			continue;
		}
		nerr = apply_fields(c, &v->cfg, vobj, path, v);
		if (nerr || !base_ok)
			continue; /* cross-field checks once the fields are valid */
		if (bb_config_check(&v->cfg, msg, sizeof(msg)) == 0)
			continue;
		if (base_msg[0] && !strcmp(msg, base_msg)) {
			if (!base_reported)
				err_add_check(c->errs, "workload", msg);
			base_reported = true;
		} else {
			err_add_check(c->errs, path, msg);
		}
	}
}

/* ------------------------------------------------------------------ */
/* top level */

static struct json_object *json_u64(uint64_t v)
{
	return v <= INT64_MAX ? json_object_new_int64((int64_t)v)
			      : json_object_new_uint64(v);
}

/* A double printed in its shortest exact-enough form (0.95, not
 * 0.94999999999999996). */
static struct json_object *json_short_double(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.15g", v);
	if (strtod(buf, NULL) != v || !strpbrk(buf, ".e"))
		return json_object_new_double(v);
	return json_object_new_double_s(v, buf);
}

static int copy_or_new(struct json_object *given, struct json_object *def,
		       struct json_object **out)
{
	*out = NULL;
	if (given) {
		json_object_put(def);
		if (json_object_deep_copy(given, out, NULL))
			return -ENOMEM;
		return 0;
	}
	*out = def;
	return def ? 0 : -ENOMEM;
}

/* The variants of an A/A job given without them: its one variant. */
static struct json_object *aa_variants_json(const struct bb_job *job)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, job->v[0].name, json_object_new_object());
	return o;
}

/* The quiescence gate's settings, with every field (the normalized form). */
static struct json_object *quiescence_json(const struct bb_job *job)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mode",
			       json_object_new_string(
				       bb_quiesce_mode_name(job->quiesce.mode)));
	json_object_object_add(o, "max_busy",
			       json_short_double(job->quiesce.max_busy * 100.0));
	json_object_object_add(o, "max_wait",
			       json_short_double(
				       (double)job->quiesce.max_wait_ns / 1e9));
	json_object_object_add(o, "exclude_disturbed",
			       json_object_new_boolean(job->exclude_disturbed));
	return o;
}

/* "quiescence": {"mode": "wait"|"mark"|"off", "max_busy": percent,
 * "max_wait": seconds or a duration, "exclude_disturbed": bool}. */
static void parse_quiescence(struct bb_job_errors *e, struct json_object *q,
			     struct bb_job *job)
{
	double d;

	if (!json_object_is_type(q, json_type_object)) {
		err_add(e, "quiescence",
			"expected an object ({\"mode\": \"wait\", \"max_busy\": 10, \"max_wait\": \"1s\", \"exclude_disturbed\": false})");
		return;
	}
	json_object_object_foreach(q, key, val) {
		if (!strcmp(key, "mode")) {
			if (!json_object_is_type(val, json_type_string) ||
			    bb_quiesce_mode_from_name(json_object_get_string(val),
						      &job->quiesce.mode))
				err_add(e, "quiescence.mode",
					"%s is not one of wait, mark, off",
					json_object_to_json_string(val));
		} else if (!strcmp(key, "max_busy")) {
			if (!get_number(e, "quiescence.max_busy", val, &d)) {
				if (d <= 0 || d > 100)
					err_add(e, "quiescence.max_busy",
						"%g is out of range 0 < x <= 100 (percent of one CPU)",
						d);
				else
					job->quiesce.max_busy = d / 100.0;
			}
		} else if (!strcmp(key, "max_wait")) {
			uint64_t ns;

			if (json_object_is_type(val, json_type_string)) {
				if (bb_parse_duration_ns(json_object_get_string(val), &ns) ||
				    ns > 3600ull * 1000000000ull)
					err_add(e, "quiescence.max_wait",
						"\"%.32s\" is not a duration up to 1h (examples: 500ms, 2s)",
						json_object_get_string(val));
				else
					job->quiesce.max_wait_ns = ns;
			} else if (!get_number(e, "quiescence.max_wait", val, &d)) {
				if (d < 0 || d > 3600)
					err_add(e, "quiescence.max_wait",
						"%g is out of range 0..3600 (seconds)", d);
				else
					job->quiesce.max_wait_ns =
						(uint64_t)(d * 1e9);
			}
		} else if (!strcmp(key, "exclude_disturbed")) {
			if (!json_object_is_type(val, json_type_boolean))
				err_add(e, "quiescence.exclude_disturbed",
					"expected true or false");
			else
				job->exclude_disturbed =
					json_object_get_boolean(val);
		} else {
			char f[96];

			snprintf(f, sizeof(f), "quiescence.%.60s", key);
			err_add(e, f,
				"unknown field (mode, max_busy, max_wait, exclude_disturbed)");
		}
	}
}

/* The normalized document: the top-level fields in a fixed order, the
 * given ones as given, the others with their defaults. */
static int build_spec(struct bb_job *job, struct json_object *doc)
{
	struct json_object *spec = json_object_new_object();
	int ret = 0;

	if (!spec)
		return -ENOMEM;
	for (size_t i = 0; i < bb_array_size(top_fields) && !ret; i++) {
		const char *k = top_fields[i];
		struct json_object *given = json_object_object_get(doc, k);
		struct json_object *def = NULL, *val;

		if (!strcmp(k, "workload"))
			def = json_object_new_object();
		else if (!strcmp(k, "repeat"))
			def = json_object_new_int64(job->repeat);
		else if (!strcmp(k, "warmup"))
			def = json_object_new_int64(job->warmup);
		else if (!strcmp(k, "max_repeat"))
			def = json_object_new_int64(job->max_repeat);
		else if (!strcmp(k, "order"))
			def = json_object_new_string(bb_job_order_name(job->order));
		else if (!strcmp(k, "seed"))
			def = json_u64(job->seed);
		else if (!strcmp(k, "metric"))
			def = json_object_new_string(bb_metric_name(job->metric));
		else if (!strcmp(k, "min_effect"))
			def = json_short_double(job->min_effect * 100.0);
		else if (!strcmp(k, "confidence"))
			def = json_short_double(job->confidence);
		else if (!strcmp(k, "quiescence"))
			def = quiescence_json(job);
		else if (!strcmp(k, "aa"))
			def = json_object_new_boolean(job->aa);
		else if (!strcmp(k, "variants") && job->aa && !given)
			def = aa_variants_json(job);
		ret = copy_or_new(given, def, &val);
		if (!ret && json_object_object_add(spec, k, val)) {
			json_object_put(val);
			ret = -ENOMEM;
		}
	}
	if (ret) {
		json_object_put(spec);
		return ret;
	}
	job->spec = spec;
	return 0;
}

static bool is_top_field(const char *k)
{
	for (size_t i = 0; i < bb_array_size(top_fields); i++)
		if (!strcmp(k, top_fields[i]))
			return true;
	return false;
}

static void parse_top(struct job_ctx *c, struct json_object *doc)
{
	struct bb_job *job = c->job;
	struct bb_job_errors *e = c->errs;
	struct json_object *j, *wl;
	struct bb_config base;
	bool repeat_ok = true, base_ok = true;
	const char *s;
	uint64_t u;
	double d;

	bb_config_default(&base);

	if (!json_object_object_get_ex(doc, "name", &j))
		err_add(e, "name", "required (a short title of the job)");
	else if (!get_string(e, "name", j, sizeof(job->name) - 1, &s))
		snprintf(job->name, sizeof(job->name), "%s", s);

	if (!json_object_object_get_ex(doc, "target", &j))
		err_add(e, "target", "required (nop, a regular file or a block device)");
	else if (!get_string(e, "target", j, sizeof(job->target) - 1, &s)) {
		snprintf(job->target, sizeof(job->target), "%s", s);
		snprintf(base.target, sizeof(base.target), "%s", s);
	}

	/* repeat first: max_repeat depends on it */
	job->repeat = JOB_DEF_REPEAT;
	if (json_object_object_get_ex(doc, "repeat", &j)) {
		if (get_uint(e, "repeat", j, JOB_MIN_REPEAT, BB_JOB_MAX_REPEAT, &u))
			repeat_ok = false;
		else
			job->repeat = (unsigned)u;
	}
	job->warmup = JOB_DEF_WARMUP;
	if (json_object_object_get_ex(doc, "warmup", &j) &&
	    !get_uint(e, "warmup", j, 0, BB_JOB_MAX_WARMUP, &u))
		job->warmup = (unsigned)u;
	job->max_repeat = job->repeat;
	if (json_object_object_get_ex(doc, "max_repeat", &j) &&
	    !get_uint(e, "max_repeat", j, JOB_MIN_REPEAT, BB_JOB_MAX_REPEAT, &u)) {
		if (repeat_ok && u < job->repeat)
			err_add(e, "max_repeat",
				"%" PRIu64 " is less than repeat (%u)", u,
				job->repeat);
		else
			job->max_repeat = (unsigned)u;
	}

	job->order = BB_ORDER_INTERLEAVED;
	if (json_object_object_get_ex(doc, "order", &j)) {
		if (!json_object_is_type(j, json_type_string))
			err_add(e, "order",
				"expected a string (interleaved, blocked or random)");
		else if (order_from_name(json_object_get_string(j), &job->order))
			err_add(e, "order",
				"\"%.64s\" is not one of interleaved, blocked, random",
				json_object_get_string(j));
	}

	job->seed = JOB_DEF_SEED;
	if (json_object_object_get_ex(doc, "seed", &j) &&
	    !get_uint(e, "seed", j, 0, UINT64_MAX, &u))
		job->seed = u;

	job->metric = BB_METRIC_IOPS;
	if (json_object_object_get_ex(doc, "metric", &j)) {
		if (!json_object_is_type(j, json_type_string))
			err_add(e, "metric", "expected a string");
		else if (bb_metric_from_name(json_object_get_string(j),
					     &job->metric))
			err_add(e, "metric",
				"\"%.64s\" is not one of iops, bw, lat_mean, lat_p50, lat_p99, lat_p999, cpu_per_io",
				json_object_get_string(j));
	}

	job->min_effect = JOB_DEF_MIN_EFFECT / 100.0;
	if (json_object_object_get_ex(doc, "min_effect", &j) &&
	    !get_number(e, "min_effect", j, &d)) {
		if (d < 0 || d >= 100)
			err_add(e, "min_effect",
				"%g is out of range 0 <= x < 100 (percent)", d);
		else
			job->min_effect = d / 100.0;
	}

	job->confidence = JOB_DEF_CONFIDENCE;
	if (json_object_object_get_ex(doc, "confidence", &j) &&
	    !get_number(e, "confidence", j, &d)) {
		if (d < 0.5 || d > 0.999)
			err_add(e, "confidence",
				"%g is out of range 0.5..0.999 (a fraction: 0.95 for 95%%)",
				d);
		else
			job->confidence = d;
	}

	bb_quiesce_params_init(&job->quiesce);
	job->exclude_disturbed = false;
	if (json_object_object_get_ex(doc, "quiescence", &j))
		parse_quiescence(e, j, job);

	wl = json_object_object_get(doc, "workload");
	if (wl && !json_object_is_type(wl, json_type_object)) {
		err_add(e, "workload",
			"expected an object of run options ({\"bs\": \"4k\", ...})");
		base_ok = false;
	} else if (wl && apply_fields(c, &base, wl, "workload", NULL)) {
		base_ok = false;
	}

	job->aa = false;
	if (json_object_object_get_ex(doc, "aa", &j)) {
		if (!json_object_is_type(j, json_type_boolean))
			err_add(e, "aa",
				"expected true or false (true: an A/A job, its one variant run as A and as A2)");
		else
			job->aa = json_object_get_boolean(j);
	}

	if (json_object_object_get_ex(doc, "variants", &j)) {
		parse_variants(c, j, &base, base_ok, job->aa);
	} else if (job->aa) {
		/* an A/A job of the workload alone */
		struct json_object *one = json_object_new_object();

		json_object_object_add(one, "A", json_object_new_object());
		parse_variants(c, one, &base, base_ok, true);
		json_object_put(one);
	} else {
		err_add(e, "variants",
			"required (an object of at least 2 variants: {\"A\": {...}, \"B\": {...}})");
	}
	if (job->aa && job->nvariants == 1) {
		/* the copy: same configuration and knobs, its own name */
		job->v[1] = job->v[0];
		snprintf(job->v[1].name, sizeof(job->v[1].name), "%.29s2",
			 job->v[0].name);
		job->nvariants = 2;
	}

	if (metric_needs_lat(job->metric)) {
		for (unsigned i = 0; i < job->nvariants; i++) {
			if (job->v[i].cfg.lat != BB_LAT_OFF)
				continue;
			err_add(e, "metric",
				"%s needs latency recording, but variant %s has lat \"off\"",
				bb_metric_name(job->metric), job->v[i].name);
			break;
		}
	}

	json_object_object_foreach(doc, key, val) {
		(void)val;
		if (!is_top_field(key))
			err_add(e, key,
				"unknown field (name, target, workload, variants, repeat, warmup, max_repeat, order, seed, metric, min_effect, confidence, quiescence, aa)");
	}
}

void bb_job_free(struct bb_job *job)
{
	if (!job)
		return;
	json_object_put(job->spec);
	job->spec = NULL;
}

int bb_job_parse(struct bb_job *job, struct json_object *doc,
		 struct bb_job_errors *errs)
{
	struct bb_job_errors local;
	struct job_ctx c = { .job = job };
	int ret;

	if (!errs)
		errs = &local;
	memset(errs, 0, sizeof(*errs));
	memset(job, 0, sizeof(*job));
	c.errs = errs;
	if (!json_object_is_type(doc, json_type_object)) {
		err_add(errs, "", "the job must be a JSON object");
		return -EINVAL;
	}
	c.opt_schema = bb_options_json_schema();
	if (!c.opt_schema ||
	    !json_object_object_get_ex(c.opt_schema, "properties", &c.opt_props)) {
		json_object_put(c.opt_schema);
		return -ENOMEM;
	}
	if (check_nul(errs, "", doc)) {
		json_object_put(c.opt_schema);
		memset(job, 0, sizeof(*job));
		return -EINVAL;
	}
	parse_top(&c, doc);
	json_object_put(c.opt_schema);
	if (errs->n) {
		memset(job, 0, sizeof(*job));
		return -EINVAL;
	}
	ret = build_spec(job, doc);
	if (ret)
		memset(job, 0, sizeof(*job));
	return ret;
}

int bb_job_parse_string(struct bb_job *job, const char *text, size_t len,
			struct bb_job_errors *errs)
{
	struct bb_job_errors local;
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	struct json_object *doc;
	size_t end;
	int ret;

	if (!errs)
		errs = &local;
	memset(errs, 0, sizeof(*errs));
	memset(job, 0, sizeof(*job));
	if (len > INT_MAX - 1) {
		err_add(errs, "", "the job document is too large");
		return -EINVAL;
	}
	tok = json_tokener_new_ex(JOB_MAX_DEPTH);
	if (!tok)
		return -ENOMEM;
	/* RFC 8259 only: no trailing commas, single quotes or bare words */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	if (!doc && jerr == json_tokener_continue) {
		/* the end of the text ends a pending top-level number */
		doc = json_tokener_parse_ex(tok, "", 1);
		jerr = json_tokener_get_error(tok);
		if (!doc) {
			err_add(errs, "",
				"invalid JSON at offset %zu: unexpected end of the document",
				len);
			json_tokener_free(tok);
			return -EINVAL;
		}
		end = len;
	} else if (!doc) {
		err_add(errs, "", "invalid JSON at offset %zu: %s",
			json_tokener_get_parse_end(tok),
			json_tokener_error_desc(jerr));
		json_tokener_free(tok);
		return -EINVAL;
	} else {
		end = json_tokener_get_parse_end(tok);
	}
	json_tokener_free(tok);
	while (end < len && isspace((unsigned char)text[end]))
		end++;
	if (end < len) {
		err_add(errs, "",
			"invalid JSON at offset %zu: unexpected text after the document",
			end);
		json_object_put(doc);
		return -EINVAL;
	}
	if (text_has_nul(text, len) && !check_nul(errs, "", doc)) {
		err_add(errs, "", "a field name contains a NUL character "
			"(\\u0000)");
		json_object_put(doc);
		return -EINVAL;
	}
	ret = bb_job_parse(job, doc, errs);
	json_object_put(doc);
	return ret;
}

/* ------------------------------------------------------------------ */
/* plan */

static uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t xoshiro256ss(uint64_t s[4])
{
	uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return r;
}

/* The variant order of one round of the random order: a Fisher-Yates
 * shuffle from xoshiro256** seeded by splitmix64 from (seed, round). */
static void round_permutation(uint64_t seed, unsigned round, unsigned n,
			      unsigned *perm)
{
	uint64_t x = seed ^ (0xd1b54a32d192ed03ull * ((uint64_t)round + 1));
	uint64_t s[4];

	for (unsigned i = 0; i < 4; i++)
		s[i] = splitmix64(&x);
	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(((unsigned __int128)xoshiro256ss(s) *
					 i) >> 64);
		unsigned t = perm[i - 1];

		perm[i - 1] = perm[j];
		perm[j] = t;
	}
}

size_t bb_job_plan(const struct bb_job *job, unsigned first_round,
		   unsigned nrounds, struct bb_job_step *steps)
{
	unsigned nv = job->nvariants, perm[BB_JOB_MAX_VARIANTS];
	size_t k = 0;

	if (job->order == BB_ORDER_BLOCKED) {
		for (unsigned v = 0; v < nv; v++)
			for (unsigned r = first_round; r < first_round + nrounds; r++)
				steps[k++] = (struct bb_job_step){
					.variant = v, .round = r,
					.warmup = r < job->warmup };
		return k;
	}
	for (unsigned r = first_round; r < first_round + nrounds; r++) {
		if (job->order == BB_ORDER_RANDOM)
			round_permutation(job->seed, r, nv, perm);
		for (unsigned i = 0; i < nv; i++)
			steps[k++] = (struct bb_job_step){
				.variant = job->order == BB_ORDER_RANDOM ? perm[i] : i,
				.round = r, .warmup = r < job->warmup };
	}
	return k;
}

/* ------------------------------------------------------------------ */
/* comparison as JSON */

static struct json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : json_object_new_null();
}

static struct json_object *summary_json(const struct bb_ab_summary *s)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "n", json_object_new_int64((int64_t)s->n));
	json_object_object_add(o, "median", jnum(s->median));
	json_object_object_add(o, "mean", jnum(s->mean));
	json_object_object_add(o, "stddev", jnum(s->stddev));
	json_object_object_add(o, "min", jnum(s->min));
	json_object_object_add(o, "max", jnum(s->max));
	json_object_object_add(o, "q1", jnum(s->q1));
	json_object_object_add(o, "q3", jnum(s->q3));
	json_object_object_add(o, "iqr", jnum(s->iqr));
	json_object_object_add(o, "mad", jnum(s->mad));
	return o;
}

struct json_object *bb_ab_result_to_json(const struct bb_ab_result *r,
					 const char *baseline,
					 const char *variant,
					 enum bb_metric metric)
{
	struct json_object *o = json_object_new_object();
	char line[512];

	if (!o)
		return NULL;
	if (bb_ab_format(r, line, sizeof(line)) == -EINVAL)
		line[0] = '\0';
	json_object_object_add(o, "baseline", json_object_new_string(baseline));
	json_object_object_add(o, "variant", json_object_new_string(variant));
	json_object_object_add(o, "metric",
			       json_object_new_string(bb_metric_name(metric)));
	json_object_object_add(o, "unit",
			       json_object_new_string(bb_metric_unit(metric)));
	json_object_object_add(o, "higher_is_better",
			       json_object_new_boolean(r->higher_is_better));
	json_object_object_add(o, "method",
			       json_object_new_string(r->method == BB_AB_METHOD_PAIRED ?
							      "paired" : "unpaired"));
	json_object_object_add(o, "n", json_object_new_int64((int64_t)r->n));
	json_object_object_add(o, "a", summary_json(&r->a));
	json_object_object_add(o, "b", summary_json(&r->b));
	json_object_object_add(o, "change", jnum(r->change));
	json_object_object_add(o, "change_median", jnum(r->change_median));
	json_object_object_add(o, "ci_lo", jnum(r->ci_lo));
	json_object_object_add(o, "ci_hi", jnum(r->ci_hi));
	json_object_object_add(o, "ci_level", jnum(r->ci_level));
	json_object_object_add(o, "p_value", jnum(r->p_value));
	json_object_object_add(o, "verdict",
			       json_object_new_string(bb_ab_verdict_name(r->verdict)));
	json_object_object_add(o, "more_needed",
			       json_object_new_int64(r->more_needed));
	json_object_object_add(o, "more_capped",
			       json_object_new_boolean(r->more_capped));
	json_object_object_add(o, "min_effect", jnum(r->min_effect));
	json_object_object_add(o, "confidence", jnum(r->confidence));
	json_object_object_add(o, "text", json_object_new_string(line));
	return o;
}
