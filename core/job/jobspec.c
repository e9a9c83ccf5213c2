// SPDX-License-Identifier: GPL-2.0-only
/* jobspec.c - the A/B job document: parsing and validation (every error
 * collected with its field path), the normalized document, the run plan
 * and the metrics of a run (see jobspec.h).
 *
 * The top-level fields are decoded from one table (top_fields[]); the
 * workload and variant fields go through the run option table one field at
 * a time (bb_option_from_json), so that each bad field gives its own error
 * with its own path. */
#include <biobench/jobspec.h>

#include <biobench/hostinfo.h>
#include <biobench/jobgroup.h>

#include "util/rng.h"
#include <biobench/options.h>
#include <biobench/sysknob.h>
#include <biobench/tiou.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOB_MAX_DEPTH 32       /* JSON nesting accepted by the tokener */
#define JOB_DEF_REPEAT 12
#define JOB_DEF_WARMUP 1
#define JOB_DEF_MIN_EFFECT 1.0 /* percent */
#define JOB_DEF_CONFIDENCE 0.95
#define JOB_MIN_REPEAT 2

static const char *const order_names[BB_ORDER__COUNT] = {
	[BB_ORDER_INTERLEAVED] = "interleaved",
	[BB_ORDER_BLOCKED] = "blocked",
	[BB_ORDER_RANDOM] = "random",
};

static const char *const metric_names[BB_METRIC__COUNT] = {
	[BB_METRIC_IOPS] = "iops",	   [BB_METRIC_BW] = "bw",
	[BB_METRIC_LAT_MEAN] = "lat_mean", [BB_METRIC_LAT_P50] = "lat_p50",
	[BB_METRIC_LAT_P99] = "lat_p99",   [BB_METRIC_LAT_P999] = "lat_p999",
	[BB_METRIC_CPU_PER_IO] = "cpu_per_io",
};

static const struct {
	const char *unit;
	bool higher_is_better;
} metric_info[BB_METRIC__COUNT] = {
	[BB_METRIC_IOPS] = { "IO/s", true },
	[BB_METRIC_BW] = { "B/s", true },
	[BB_METRIC_LAT_MEAN] = { "ns", false },
	[BB_METRIC_LAT_P50] = { "ns", false },
	[BB_METRIC_LAT_P99] = { "ns", false },
	[BB_METRIC_LAT_P999] = { "ns", false },
	[BB_METRIC_CPU_PER_IO] = { "ns/IO", false },
};

/* ------------------------------------------------------------------ */
/* names */

const char *bb_metric_name(enum bb_metric m)
{
	return (unsigned)m < BB_METRIC__COUNT ? metric_names[m] : "?";
}

int bb_metric_from_name(const char *s, enum bb_metric *m)
{
	for (unsigned i = 0; s && i < BB_METRIC__COUNT; i++) {
		if (!strcmp(s, metric_names[i])) {
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

/* ": did you mean \"iodepth\"?" for the nearest known name, "" for
 * none. */
static const char *hint_of(const char *near, char *buf, size_t len)
{
	buf[0] = '\0';
	if (near)
		snprintf(buf, len, ": did you mean \"%s\"?", near);
	return buf;
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

/* A failed bb_config_check_field() under path: the option's field below
 * path when it names one, else path itself. */
static void err_add_check(struct bb_job_errors *e, const char *path,
			  const char *field, const char *msg)
{
	char where[128];

	if (!strcmp(field, "target")) {
		/* the target is top level (or the tiou line's FILEs) */
		err_add(e, "target", "%s", msg);
	} else if (field[0]) {
		snprintf(where, sizeof(where), "%s.%s", path, field);
		err_add(e, where, "%s", msg);
	} else {
		err_add(e, path, "%s", msg);
	}
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
		/* json-c clamps an integer beyond 64 bits to the limit */
		bool clamped = json_object_is_type(j, json_type_int) &&
			       (neg ? mag == (uint64_t)INT64_MAX + 1 :
				      mag == UINT64_MAX);

		err_add(e, field, "%s%" PRIu64 "%s is out of range %" PRIu64 "..%" PRIu64,
			neg ? "-" : "", mag, clamped ? " or more" : "", lo, hi);
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
	struct json_object *doc;  /* the document */
	struct bb_config base;    /* the workload: what every variant starts from */
	bool base_ok;             /* the workload's fields were all valid */
	bool bad_uint;            /* the last TOP_UINT field was invalid */
	bool repeat_bad;          /* repeat was invalid (max_repeat not compared) */
	bool max_repeat_given;
	bool target_given;
	/* the job's t/io_uring line ("tiou"), parsed; its words (the parsed
	 * line points into them) and where its long options start */
	struct bb_tiou *tiou;
	struct bb_tiou_argv tiou_words;
	int tiou_rest;
	/* the normalized "tiou" objects: the job's, each variant's (by
	 * index in job->v; NULL: none) */
	struct json_object *tiou_norm;
	struct json_object *vtiou_norm[BB_JOB_MAX_VARIANTS];
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
	if (c->job->ntargets > 1) {
		err_add(c->errs, field,
			"a job with %u targets sets no queue knobs (each device has its own; give one target)",
			c->job->ntargets);
		return -EINVAL;
	}
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

/* A path field of "boot": absolute, a regular file on this host. */
static void boot_path(struct job_ctx *c, const char *field,
		      struct json_object *val, char *out, size_t len)
{
	struct stat st;
	const char *s;

	if (get_string(c->errs, field, val, len - 1, &s))
		return;
	if (s[0] != '/') {
		err_add(c->errs, field, "\"%.200s\" is not an absolute path", s);
		return;
	}
	if (stat(s, &st)) {
		err_add(c->errs, field, "%.200s: %s", s, strerror(errno));
		return;
	}
	if (!S_ISREG(st.st_mode)) {
		err_add(c->errs, field, "%.200s is not a regular file", s);
		return;
	}
	snprintf(out, len, "%s", s);
}

/* A variant's "boot": {"kernel", "initrd", "cmdline", "release",
 * "grub_entry"} (boot.h). */
static void parse_boot(struct job_ctx *c, struct bb_job_variant *v,
		       const char *path, struct json_object *val)
{
	static const char *const known[] = {
		"kernel", "initrd", "cmdline", "release", "grub_entry",
	};
	struct bb_job_boot *b = &v->boot;
	char field[160];
	const char *s;

	memset(b, 0, sizeof(*b));
	b->set = true;
	if (!json_object_is_type(val, json_type_object)) {
		err_add(c->errs, path,
			"expected an object ({\"kernel\": \"/boot/vmlinuz-...\", \"initrd\": ..., \"cmdline\": ..., \"release\": ...})");
		return;
	}
	if (!json_object_object_get_ex(val, "kernel", NULL)) {
		snprintf(field, sizeof(field), "%s.kernel", path);
		err_add(c->errs, field,
			"required (the absolute path of the kernel image)");
	}
	json_object_object_foreach(val, k, jv) {
		snprintf(field, sizeof(field), "%s.%.40s", path, k);
		if (!strcmp(k, "kernel")) {
			boot_path(c, field, jv, b->kernel, sizeof(b->kernel));
		} else if (!strcmp(k, "initrd")) {
			boot_path(c, field, jv, b->initrd, sizeof(b->initrd));
		} else if (!strcmp(k, "cmdline") || !strcmp(k, "release") ||
			   !strcmp(k, "grub_entry")) {
			char *out = k[0] == 'c' ? b->cmdline :
				    k[0] == 'r' ? b->release : b->grub_entry;
			size_t len = k[0] == 'c' ? sizeof(b->cmdline) :
				     k[0] == 'r' ? sizeof(b->release) :
						   sizeof(b->grub_entry);

			if (get_string(c->errs, field, jv, len - 1, &s))
				continue;
			if (strpbrk(s, "\n\r")) {
				err_add(c->errs, field,
					"must not contain a newline");
				continue;
			}
			snprintf(out, len, "%s", s);
		} else {
			struct bb_nearest nr;
			char hint[96];

			bb_nearest_init(&nr, k);
			for (size_t i = 0; i < bb_array_size(known); i++)
				bb_nearest_add(&nr, known[i]);
			err_add(c->errs, field,
				"unknown field%s (kernel, initrd, cmdline, release, grub_entry)",
				hint_of(nr.best, hint, sizeof(hint)));
		}
	}
}

/* Apply the fields of obj (the workload, or a variant when v is not NULL)
 * to cfg, one at a time.  Returns the number of errors. */
static unsigned apply_fields(struct job_ctx *c, struct bb_config *cfg,
			     struct json_object *obj, const char *path,
			     struct bb_job_variant *v)
{
	unsigned before = c->errs->n;

	json_object_object_foreach(obj, key, val) {
		char field[128], msg[BB_JOB_ERRLEN], hint[96];
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
		if (v && !strcmp(key, "tiou"))
			continue; /* applied first: variant_tiou() */
		if (v && !strcmp(key, "boot")) {
			parse_boot(c, v, field, val);
			continue;
		}
		ret = bb_option_from_json(cfg, path, key, val, field,
					  sizeof(field), msg, sizeof(msg));
		if (ret == -ENOENT)
			err_add(c->errs, field, "unknown field%s (%s)",
				hint_of(bb_option_nearest(key, true), hint,
					sizeof(hint)),
				v ? "a run option, \"sysfs.<knob>\", \"sysfs\" or \"boot\"; see biobench run --help" :
				    "a run option; see biobench run --help");
		else if (ret)
			err_add_raw(c->errs, field, msg);
	}
	return c->errs->n - before;
}

/* Whether the job's target list is cfg's. */
static bool same_targets(const struct bb_job *job, const struct bb_config *cfg)
{
	return job->ntargets == cfg->ntargets &&
	       !memcmp(job->target, cfg->target, sizeof(job->target));
}

/* A "tiou" value: a t/io_uring command line as a string, or the
 * normalized form {"line": "...", "options": {...}} (options, derived
 * from the line, are checked against it by the caller).  0 or -EINVAL
 * (the error recorded on path). */
static int tiou_value(struct job_ctx *c, const char *path,
		      struct json_object *val, const char **line,
		      struct json_object **opts)
{
	char f[160];

	*opts = NULL;
	if (json_object_is_type(val, json_type_object)) {
		json_object_object_foreach(val, k, v) {
			(void)v;
			if (strcmp(k, "line") && strcmp(k, "options")) {
				snprintf(f, sizeof(f), "%s.%.60s", path, k);
				err_add(c->errs, f,
					"unknown field (line: the t/io_uring command line; options: what it becomes)");
				return -EINVAL;
			}
		}
		json_object_object_get_ex(val, "options", opts);
		if (!json_object_object_get_ex(val, "line", &val)) {
			snprintf(f, sizeof(f), "%s.line", path);
			err_add(c->errs, f,
				"required (the t/io_uring command line)");
			return -EINVAL;
		}
		snprintf(f, sizeof(f), "%s.line", path);
		path = f;
	}
	if (!json_object_is_type(val, json_type_string) ||
	    !json_object_get_string_len(val)) {
		err_add(c->errs, path,
			"expected a t/io_uring command line (\"-p0 -d128 -b4096 -s1 -c1 /dev/nvme0n1\")");
		return -EINVAL;
	}
	*line = json_object_get_string(val);
	return 0;
}

/* The configuration of a "tiou" line on path: the defaults, the line
 * mapped (bb_tiou_to_config; t from bb_tiou_parse, or with over the
 * line layered on t, a copy of the job's line), the job's long options
 * (over) and the line's own.  words keep what t points into (free them
 * with bb_tiou_argv_free, also on failure).  0 or -EINVAL (recorded). */
static int tiou_config(struct job_ctx *c, const char *path, const char *line,
		       bool over, struct bb_tiou *t,
		       struct bb_tiou_argv *words, struct bb_config *cfg)
{
	char msg[BB_JOB_ERRLEN];
	int ret;

	ret = bb_tiou_args_split(line, words, msg, sizeof(msg));
	if (ret == -ENOMEM) {
		err_add(c->errs, path, "out of memory");
		return -EINVAL;
	}
	if (!ret)
		ret = over ? bb_tiou_parse_over(words->argc, words->argv, t,
						msg, sizeof(msg)) :
			     bb_tiou_parse(words->argc, words->argv, t, msg,
					   sizeof(msg));
	if (ret == 1) {
		snprintf(msg, sizeof(msg), "-h: not an option of a job's line");
		ret = -EINVAL;
	}
	/* the first long option of the job's lines, for biobenchd */
	if (!ret && t->rest < words->argc && !c->job->tiou_long_opt[0]) {
		const char *w = words->argv[t->rest];

		snprintf(c->job->tiou_long_opt, sizeof(c->job->tiou_long_opt),
			 "%.*s", (int)strcspn(w, "="), w);
		snprintf(c->job->tiou_long_field,
			 sizeof(c->job->tiou_long_field), "%.63s", path);
	}
	if (!ret) {
		bb_config_default(cfg);
		ret = bb_tiou_to_config(t, cfg, msg, sizeof(msg));
	}
	if (!ret && over && c->tiou)
		ret = bb_tiou_apply_options(c->tiou_words.argc,
					    c->tiou_words.argv, c->tiou_rest, t,
					    cfg, msg, sizeof(msg));
	if (!ret)
		ret = bb_tiou_apply_options(words->argc, words->argv, t->rest,
					    t, cfg, msg, sizeof(msg));
	if (ret == 1)
		snprintf(msg, sizeof(msg), "--help: not an option of a job's line");
	if (ret) {
		/* bb_tiou_args_split's messages name "tiou:" themselves */
		err_add(c->errs, path, "%s",
			strncmp(msg, "tiou: ", 6) ? msg : msg + 6);
		return -EINVAL;
	}
	return 0;
}

/* {"line": line, "options": what cfg holds}; a given "options" must be
 * that.  NULL on an error (recorded). */
static struct json_object *tiou_norm(struct job_ctx *c, const char *path,
				     const char *line,
				     const struct bb_config *cfg,
				     struct json_object *given)
{
	struct json_object *o = json_object_new_object();
	struct json_object *opts = bb_tiou_options_json(cfg);
	char f[160];

	if (!o || !opts) {
		json_object_put(o);
		json_object_put(opts);
		err_add(c->errs, path, "out of memory");
		return NULL;
	}
	if (given && !json_object_equal(given, opts)) {
		snprintf(f, sizeof(f), "%s.options", path);
		err_add(c->errs, f,
			"differs from what the line becomes: it is derived from \"line\" (leave it out)");
		json_object_put(o);
		json_object_put(opts);
		return NULL;
	}
	json_object_object_add(o, "line", json_object_new_string(line));
	json_object_object_add(o, "options", opts);
	return o;
}

/* A variant's own "tiou" line: on the job's line (or on t/io_uring's
 * defaults reading the job's target), the workload's fields again on top
 * of it; the variant keeps the job's target.  0 or -EINVAL. */
static int variant_tiou(struct job_ctx *c, unsigned idx, const char *vpath,
			struct json_object *val, struct bb_config *cfg)
{
	struct bb_tiou *t = malloc(sizeof(*t));
	struct bb_tiou_argv words = { 0 };
	struct json_object *given;
	const char *line;
	char path[160];
	int ret = -EINVAL;

	snprintf(path, sizeof(path), "%s.tiou", vpath);
	if (!t) {
		err_add(c->errs, path, "out of memory");
		return -EINVAL;
	}
	if (tiou_value(c, path, val, &line, &given))
		goto out;
	if (c->tiou) {
		*t = *c->tiou;
	} else {
		/* a line of defaults that reads the job's target */
		bb_tiou_default(t);
		t->files[0] = c->job->target;
		t->nfiles = 1;
	}
	if (tiou_config(c, path, line, true, t, &words, cfg))
		goto out;
	if (!same_targets(c->job, cfg)) {
		err_add(c->errs, path,
			"its FILE (%.200s) is not the job's target %.200s: the variants of a job share it",
			cfg->target, c->base.target);
		goto out;
	}
	if (idx < BB_JOB_MAX_VARIANTS) {
		c->vtiou_norm[idx] = tiou_norm(c, path, line, cfg, given);
		if (!c->vtiou_norm[idx])
			goto out;
	}
	ret = 0;
	/* the workload's fields (already checked) on top of the line */
	if (c->base_ok) {
		struct json_object *wl;

		if (json_object_object_get_ex(c->doc, "workload", &wl) &&
		    json_object_is_type(wl, json_type_object))
			apply_fields(c, cfg, wl, "workload", NULL);
	}
out:
	bb_tiou_argv_free(&words);
	free(t);
	return ret;
}

/* bb_config_check_field(), and what a job needs beyond a run: its runs
 * end by themselves (runtime and number_ios both 0 run until interrupted,
 * which `biobench run` allows). */
static int job_check_field(struct bb_config *cfg, char *field, size_t flen,
			   char *msg, size_t mlen)
{
	int ret = bb_config_check_field(cfg, field, flen, msg, mlen);

	if (ret)
		return ret;
	if (cfg->runtime_ns == 0 && cfg->number_ios == 0) {
		snprintf(field, flen, "%s", "");
		snprintf(msg, mlen,
			 "runtime and number_ios are both 0: a job's runs must "
			 "end by themselves: set one of them (0 and 0 run until "
			 "interrupted, in biobench run and biobench tiou only)");
		return -EINVAL;
	}
	return 0;
}

static void parse_variants(struct job_ctx *c, struct json_object *vars,
			   const struct bb_config *base, bool base_ok, bool aa)
{
	struct bb_job *job = c->job;
	struct bb_config chk = *base;
	char base_msg[BB_JOB_ERRLEN] = "", base_field[64] = "";
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
	if (!aa && count == 1)
		err_add(c->errs, "variants",
			"needs at least 2 variants (A and B), got 1: a one-variant "
			"job needs \"aa\": true (an A/A job: the variant run as A "
			"and A2, to measure the host's noise; biobench calibrate "
			"runs a file like this as A/A jobs itself)");
	else if (!aa && count < 2)
		err_add(c->errs, "variants",
			"needs at least 2 variants (A and B), got %zu", count);
	if (count > BB_JOB_MAX_VARIANTS)
		err_add(c->errs, "variants", "at most %d variants, got %zu",
			BB_JOB_MAX_VARIANTS, count);
	/* the workload's own cross-field error is reported once, on it */
	if (base_ok && job_check_field(&chk, base_field, sizeof(base_field),
					     base_msg, sizeof(base_msg)) == 0)
		base_msg[0] = '\0';

	json_object_object_foreach(vars, name, vobj) {
		struct bb_job_variant *v, scratch;
		struct json_object *vline;
		char path[128], msg[BB_JOB_ERRLEN], field[64];
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
		nerr = 0;
		if (json_object_object_get_ex(vobj, "tiou", &vline) &&
		    variant_tiou(c, v == &scratch ? BB_JOB_MAX_VARIANTS :
						      job->nvariants - 1,
				 path, vline, &v->cfg))
			nerr++;
		nerr += apply_fields(c, &v->cfg, vobj, path, v);
		if (nerr || !base_ok)
			continue; /* cross-field checks once the fields are valid */
		if (job_check_field(&v->cfg, field, sizeof(field), msg,
					  sizeof(msg)) == 0)
			continue;
		if (base_msg[0] && !strcmp(msg, base_msg) &&
		    !strcmp(field, base_field)) {
			if (!base_reported)
				err_add_check(c->errs, "workload", field, msg);
			base_reported = true;
		} else {
			err_add_check(c->errs, path, field, msg);
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
struct json_object *bb_json_short_double(double v)
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
			       bb_json_short_double(job->quiesce.max_busy * 100.0));
	json_object_object_add(o, "max_wait",
			       bb_json_short_double(
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
			static const char *const known[] = {
				"mode", "max_busy", "max_wait",
				"exclude_disturbed",
			};
			char f[96], hint[96];
			struct bb_nearest nr;

			snprintf(f, sizeof(f), "quiescence.%.60s", key);

			bb_nearest_init(&nr, key);
			for (size_t i = 0; i < bb_array_size(known); i++)
				bb_nearest_add(&nr, known[i]);
			err_add(e, f, "unknown field%s (mode, max_busy, max_wait, exclude_disturbed)",
				hint_of(nr.best, hint, sizeof(hint)));
		}
	}
}

/* The top-level fields: one table entry each, in the order of the
 * normalized document.  A field is decoded by its type (into the struct
 * bb_job member at off) or by its own parse function; then its check, if
 * any, sees the decoded job.  Fields marked late are parsed after all the
 * others (variants build on the workload and on aa).  def gives the
 * normalized document's value of a field that was not given (NULL: the
 * generic one from the decoded member). */
enum top_type {
	TOP_STRING,   /* char[size] */
	TOP_UINT,     /* unsigned or uint64_t (by size), min..max */
	TOP_NUMBER,   /* double, dmin..dmax in the document, stored / scale */
	TOP_NAME,     /* an enum by name: name_of(0..nnames-1) */
	TOP_BOOL,
	TOP_CUSTOM,   /* parse() does it all */
};

struct top_field;
typedef void (*top_parse_fn)(struct job_ctx *c, const struct top_field *f,
			     struct json_object *val);

struct top_field {
	const char *name;
	enum top_type type;
	size_t off, size;
	uint64_t min, max;        /* TOP_UINT */
	double dmin, dmax, scale; /* TOP_NUMBER: stored = given / scale */
	bool dmax_open;           /* TOP_NUMBER: dmax itself excluded */
	const char *range_text;   /* TOP_NUMBER: how the range is shown */
	const char *(*name_of)(int v); /* TOP_NAME: the name of value v */
	unsigned nnames;               /* TOP_NAME: values 0..nnames-1 */
	const char *required;     /* message when missing; NULL: optional */
	const char *hint;         /* TOP_NAME/TOP_BOOL: what is expected */
	bool late;
	top_parse_fn parse;       /* TOP_CUSTOM */
	void (*check)(struct job_ctx *c, const struct top_field *f);
	struct json_object *(*def)(const struct bb_job *job,
				   struct json_object *given);
	bool omitted;             /* left out of the normalized document when
				     not given */
	/* the normalized value of a given field (NULL: as given) */
	struct json_object *(*norm)(struct job_ctx *c,
				    struct json_object *given);
};

#define TOP_MEMBER(m) .off = offsetof(struct bb_job, m), \
		      .size = sizeof(((struct bb_job *)0)->m)

static const char *order_name_of(int v)
{
	return bb_job_order_name((enum bb_job_order)v);
}

static const char *metric_name_of(int v)
{
	return bb_metric_name((enum bb_metric)v);
}

static const char *multiple_name_of(int v)
{
	return bb_ab_multiple_name((enum bb_ab_multiple)v);
}

static void parse_target(struct job_ctx *c, const struct top_field *f,
			 struct json_object *val);
static void parse_tiou(struct job_ctx *c, const struct top_field *f,
		       struct json_object *val);
static void parse_workload(struct job_ctx *c, const struct top_field *f,
			   struct json_object *val);
static void parse_variants_field(struct job_ctx *c, const struct top_field *f,
				 struct json_object *val);
static void parse_quiescence_field(struct job_ctx *c,
				   const struct top_field *f,
				   struct json_object *val);
static void check_max_repeat(struct job_ctx *c, const struct top_field *f);
static void parse_host(struct job_ctx *c, const struct top_field *f,
		       struct json_object *val);
static void parse_hosts(struct job_ctx *c, const struct top_field *f,
			struct json_object *val);
static struct json_object *def_workload(const struct bb_job *job,
					struct json_object *given);
static struct json_object *def_variants(const struct bb_job *job,
					struct json_object *given);
static struct json_object *def_quiescence(const struct bb_job *job,
					  struct json_object *given);
static struct json_object *def_target(const struct bb_job *job,
				      struct json_object *given);
static struct json_object *norm_tiou(struct job_ctx *c,
				     struct json_object *given);
static struct json_object *norm_variants(struct job_ctx *c,
					 struct json_object *given);

static const struct top_field top_fields[] = {
	{ .name = "name", .type = TOP_STRING, TOP_MEMBER(name),
	  .required = "required (a short title of the job)" },
	{ .name = "target", .type = TOP_CUSTOM, .parse = parse_target,
	  .def = def_target },
	{ .name = "tiou", .type = TOP_CUSTOM, .parse = parse_tiou,
	  .omitted = true, .norm = norm_tiou },
	{ .name = "workload", .type = TOP_CUSTOM, .parse = parse_workload,
	  .def = def_workload },
	{ .name = "variants", .type = TOP_CUSTOM, .parse = parse_variants_field,
	  .late = true, .def = def_variants, .norm = norm_variants },
	{ .name = "repeat", .type = TOP_UINT, TOP_MEMBER(repeat),
	  .min = JOB_MIN_REPEAT, .max = BB_JOB_MAX_REPEAT },
	{ .name = "warmup", .type = TOP_UINT, TOP_MEMBER(warmup), .min = 0,
	  .max = BB_JOB_MAX_WARMUP },
	{ .name = "max_repeat", .type = TOP_UINT, TOP_MEMBER(max_repeat),
	  .min = JOB_MIN_REPEAT, .max = BB_JOB_MAX_REPEAT,
	  .check = check_max_repeat },
	{ .name = "order", .type = TOP_NAME, TOP_MEMBER(order),
	  .name_of = order_name_of, .nnames = BB_ORDER__COUNT,
	  .hint = "interleaved, blocked or random" },
	/* json-c clamps a larger integer to 2^64-1 silently: 2^63-1 leaves
	 * room to refuse it (get_uint) instead of using another seed */
	{ .name = "seed", .type = TOP_UINT, TOP_MEMBER(seed), .min = 0,
	  .max = INT64_MAX },
	{ .name = "metric", .type = TOP_NAME, TOP_MEMBER(metric),
	  .name_of = metric_name_of, .nnames = BB_METRIC__COUNT },
	{ .name = "min_effect", .type = TOP_NUMBER, TOP_MEMBER(min_effect),
	  .dmin = 0, .dmax = 100, .dmax_open = true, .scale = 100,
	  .range_text = "0 <= x < 100 (percent)" },
	{ .name = "confidence", .type = TOP_NUMBER, TOP_MEMBER(confidence),
	  .dmin = 0.5, .dmax = 0.999, .scale = 1,
	  .range_text = "0.5..0.999 (a fraction: 0.95 for 95%)" },
	{ .name = "multiple", .type = TOP_NAME, TOP_MEMBER(multiple),
	  .name_of = multiple_name_of, .nnames = BB_AB_MULTIPLE__COUNT,
	  .hint = "holm: family-wise error, the default; bh: false discovery rate" },
	{ .name = "quiescence", .type = TOP_CUSTOM,
	  .parse = parse_quiescence_field, .def = def_quiescence },
	{ .name = "aa", .type = TOP_BOOL, TOP_MEMBER(aa),
	  .hint = "true: an A/A job, its one variant run as A and as A2" },
	/* boot jobs (boot.h): left out of other jobs' documents */
	{ .name = "boots", .type = TOP_UINT, TOP_MEMBER(boots), .min = 1,
	  .max = BB_JOB_MAX_BOOTS, .omitted = true },
	{ .name = "allow_other_jobs", .type = TOP_BOOL,
	  TOP_MEMBER(allow_other_jobs), .omitted = true,
	  .hint = "true: a boot job may start while other jobs are queued" },
	/* the fleet: the daemon (host_name) that is to run the job, or an
	 * array of them (a group job, jobgroup.h); left out when not given
	 * (any host) */
	{ .name = "host", .type = TOP_CUSTOM, .parse = parse_host,
	  .omitted = true },
	/* the fleet: a selector on host and device metadata (a group job) */
	{ .name = "hosts", .type = TOP_CUSTOM, .parse = parse_hosts,
	  .omitted = true },
};

static void *top_member(struct bb_job *job, const struct top_field *f)
{
	return (char *)job + f->off;
}

static const void *top_cmember(const struct bb_job *job,
			       const struct top_field *f)
{
	return (const char *)job + f->off;
}

static void names_list(char *buf, size_t len, const struct top_field *f,
		       const char *sep)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < f->nnames && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? sep : "",
				      f->name_of((int)i));
}

/* Decode a field of a generic type into its member. */
static void top_decode(struct job_ctx *c, const struct top_field *f,
		       struct json_object *j)
{
	struct bb_job_errors *e = c->errs;
	char list[160];
	const char *s;
	uint64_t u;
	double d;

	switch (f->type) {
	case TOP_STRING:
		if (!get_string(e, f->name, j, f->size - 1, &s))
			snprintf(top_member(c->job, f), f->size, "%s", s);
		break;
	case TOP_UINT:
		if (get_uint(e, f->name, j, f->min, f->max, &u)) {
			c->bad_uint = true;
			break;
		}
		if (f->size == sizeof(uint64_t))
			*(uint64_t *)top_member(c->job, f) = u;
		else
			*(unsigned *)top_member(c->job, f) = (unsigned)u;
		break;
	case TOP_NUMBER:
		if (get_number(e, f->name, j, &d))
			break;
		if (d < f->dmin || d > f->dmax || (f->dmax_open && d == f->dmax))
			err_add(e, f->name, "%g is out of range %s", d,
				f->range_text);
		else
			*(double *)top_member(c->job, f) = d / f->scale;
		break;
	case TOP_NAME:
		names_list(list, sizeof(list), f, ", ");
		if (!json_object_is_type(j, json_type_string)) {
			err_add(e, f->name, "expected a string (%s)",
				f->hint ? f->hint : list);
			break;
		}
		s = json_object_get_string(j);
		for (unsigned i = 0; i < f->nnames; i++) {
			if (!strcmp(s, f->name_of((int)i))) {
				*(int *)top_member(c->job, f) = (int)i;
				return;
			}
		}
		err_add(e, f->name, "\"%.64s\" is not one of %s", s, list);
		break;
	case TOP_BOOL:
		if (!json_object_is_type(j, json_type_boolean))
			err_add(e, f->name, "expected true or false (%s)",
				f->hint);
		else
			*(bool *)top_member(c->job, f) =
				json_object_get_boolean(j);
		break;
	case TOP_CUSTOM:
		break;
	}
}

/* The normalized value of a field of a generic type. */
static struct json_object *top_encode(const struct bb_job *job,
				      const struct top_field *f)
{
	const void *m = top_cmember(job, f);

	switch (f->type) {
	case TOP_STRING:
		return json_object_new_string(m);
	case TOP_UINT:
		return json_u64(f->size == sizeof(uint64_t) ?
					*(const uint64_t *)m :
					*(const unsigned *)m);
	case TOP_NUMBER:
		return bb_json_short_double(*(const double *)m * f->scale);
	case TOP_NAME:
		return json_object_new_string(f->name_of(*(const int *)m));
	case TOP_BOOL:
		return json_object_new_boolean(*(const bool *)m);
	case TOP_CUSTOM:
		break;
	}
	return NULL;
}

static void parse_target(struct job_ctx *c, const struct top_field *f,
			 struct json_object *val)
{
	const char *s;

	/* required unless a "tiou" line names it: parse_tiou() */
	c->target_given = val != NULL;
	if (!val)
		return;
	if (json_object_is_type(val, json_type_array)) {
		size_t n = json_object_array_length(val);
		char where[64];

		if (!n || n > BB_MAX_TARGETS) {
			err_add(c->errs, f->name,
				"expected a path, or an array of 1..%d paths (got %zu)",
				BB_MAX_TARGETS, n);
			return;
		}
		for (size_t i = 0; i < n; i++) {
			snprintf(where, sizeof(where), "%s[%zu]", f->name, i);
			if (get_string(c->errs, where,
				       json_object_array_get_idx(val, i),
				       sizeof(c->job->target) - 1, &s))
				return;
			if (i ? bb_config_add_target(&c->base, s) :
				bb_config_set_target(&c->base, s)) {
				err_add(c->errs, where,
					"the paths are longer than %zu bytes in all",
					sizeof(c->job->target) - 2);
				return;
			}
		}
	} else {
		if (get_string(c->errs, f->name, val,
			       sizeof(c->job->target) - 1, &s))
			return;
		bb_config_set_target(&c->base, s);
	}
	memcpy(c->job->target, c->base.target, sizeof(c->job->target));
	c->job->ntargets = c->base.ntargets;
}


/* "tiou": a t/io_uring command line (bb_tiou_parse, then biobench's long
 * options after it) as the workload's base: the workload's fields apply
 * on top of it.  The target is the line's FILE (nop for -N1); a "target"
 * given too must be the same. */
static void parse_tiou(struct job_ctx *c, const struct top_field *f,
		       struct json_object *val)
{
	struct bb_job *job = c->job;
	struct json_object *given;
	struct bb_config *cfg;
	const char *line;
	bool same;

	if (!val) {
		if (!c->target_given)
			err_add(c->errs, "target",
				"required (nop, a regular file or a block device; or a \"tiou\" line naming its FILE)");
		return;
	}
	c->base_ok = false; /* until the line is good */
	if (tiou_value(c, f->name, val, &line, &given))
		return;
	c->tiou = malloc(sizeof(*c->tiou));
	cfg = malloc(sizeof(*cfg));
	if (!c->tiou || !cfg) {
		err_add(c->errs, f->name, "out of memory");
		goto fail;
	}
	if (tiou_config(c, f->name, line, false, c->tiou, &c->tiou_words, cfg))
		goto fail;
	c->tiou_rest = c->tiou->rest;
	/* the line's targets; for -N1 the FILE it names counts too */
	same = same_targets(job, cfg) ||
	       (c->tiou->nop && c->tiou->nfiles == 1 && job->ntargets == 1 &&
		!strcmp(job->target, c->tiou->files[0]));
	if (c->target_given && job->target[0] && !same) {
		err_add(c->errs, "target",
			"\"%.200s\"%s is not the tiou line's target %.200s%s: give one of them, or the same",
			job->target, job->ntargets > 1 ? " ..." : "",
			cfg->target, cfg->ntargets > 1 ? " ..." : "");
		goto fail;
	}
	c->tiou_norm = tiou_norm(c, f->name, line, cfg, given);
	if (!c->tiou_norm)
		goto fail;
	memcpy(job->target, cfg->target, sizeof(job->target));
	job->ntargets = cfg->ntargets;
	c->base = *cfg;
	c->base_ok = true;
	free(cfg);
	return;
fail:
	free(cfg);
	free(c->tiou);
	c->tiou = NULL;
}

static void parse_workload(struct job_ctx *c, const struct top_field *f,
			   struct json_object *wl)
{
	if (!wl)
		return;
	if (!json_object_is_type(wl, json_type_object)) {
		err_add(c->errs, f->name,
			"expected an object of run options ({\"bs\": \"4k\", ...})");
		c->base_ok = false;
	} else if (apply_fields(c, &c->base, wl, f->name, NULL)) {
		c->base_ok = false;
	}
}

static void parse_variants_field(struct job_ctx *c, const struct top_field *f,
				 struct json_object *val)
{
	struct bb_job *job = c->job;

	if (val) {
		parse_variants(c, val, &c->base, c->base_ok, job->aa);
	} else if (job->aa) {
		/* an A/A job of the workload alone */
		struct json_object *one = json_object_new_object();

		json_object_object_add(one, "A", json_object_new_object());
		parse_variants(c, one, &c->base, c->base_ok, true);
		json_object_put(one);
	} else {
		err_add(c->errs, f->name,
			"required (an object of at least 2 variants: {\"A\": {...}, \"B\": {...}})");
	}
}

static void parse_quiescence_field(struct job_ctx *c,
				   const struct top_field *f,
				   struct json_object *val)
{
	(void)f;
	if (val)
		parse_quiescence(c->errs, val, c->job);
}

/* One host name of "host" (field where) into out[254]. */
static int host_one(struct job_ctx *c, const char *where,
		    struct json_object *val, char *out)
{
	const char *s, *why;

	if (get_string(c->errs, where, val, 253, &s))
		return -EINVAL;
	why = bb_host_name_check(s);
	if (why) {
		err_add(c->errs, where, "\"%.64s\" is not a host name: %s "
			"(a daemon's host_name, e.g. bench-3.lab)", s, why);
		return -EINVAL;
	}
	snprintf(out, 254, "%s", s);
	return 0;
}

/* "host": a host name, or an array of 1..BB_GROUP_MAX_HOSTS distinct
 * ones (a group job). */
static void parse_host(struct job_ctx *c, const struct top_field *f,
		       struct json_object *val)
{
	struct bb_job *job = c->job;
	char where[64];
	size_t n;

	if (!val)
		return;
	if (!json_object_is_type(val, json_type_array)) {
		if (json_object_is_type(val, json_type_string))
			host_one(c, f->name, val, job->host);
		else
			err_add(c->errs, f->name, "expected a string (a "
				"daemon's host_name, e.g. bench-3.lab) or an "
				"array of 1..%d of them", BB_GROUP_MAX_HOSTS);
		return;
	}
	n = json_object_array_length(val);
	if (!n || n > BB_GROUP_MAX_HOSTS) {
		err_add(c->errs, f->name, "expected an array of 1..%d host "
			"names (got %zu)", BB_GROUP_MAX_HOSTS, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		snprintf(where, sizeof(where), "%s[%zu]", f->name, i);
		if (host_one(c, where, json_object_array_get_idx(val, i),
			     job->hosts[job->nhosts]))
			return;
		for (unsigned k = 0; k < job->nhosts; k++) {
			if (strcmp(job->hosts[k], job->hosts[job->nhosts]))
				continue;
			err_add(c->errs, where, "\"%s\" is given twice",
				job->hosts[k]);
			return;
		}
		job->nhosts++;
	}
	job->group = true;
}

/* "hosts": {"KEY": "GLOB", ...} on host and device metadata
 * (jobgroup.h); not with "host". */
static void parse_hosts(struct job_ctx *c, const struct top_field *f,
			struct json_object *val)
{
	char where[160];
	const char *s;

	if (!val)
		return;
	if (json_object_object_get(c->doc, "host")) {
		err_add(c->errs, f->name, "\"host\" and \"hosts\" are both "
			"given: give one (host names the hosts, hosts selects "
			"them by their metadata)");
		return;
	}
	if (!json_object_is_type(val, json_type_object) ||
	    !json_object_object_length(val)) {
		err_add(c->errs, f->name, "expected an object of one or more "
			"selectors, {\"KEY\": \"GLOB\"} (keys: %s)",
			bb_group_keys());
		return;
	}
	json_object_object_foreach(val, key, glob)
	{
		snprintf(where, sizeof(where), "%s.%.100s", f->name, key);
		if (!bb_group_key_ok(key)) {
			err_add(c->errs, where, "unknown selector key (keys: "
				"%s)", bb_group_keys());
			continue;
		}
		get_string(c->errs, where, glob, BB_GROUP_GLOB_MAX, &s);
	}
	c->job->group = true;
}

static void check_max_repeat(struct job_ctx *c, const struct top_field *f)
{
	struct bb_job *job = c->job;

	if (!c->max_repeat_given || c->bad_uint) {
		job->max_repeat = job->repeat;
	} else if (job->max_repeat < job->repeat && !c->repeat_bad) {
		err_add(c->errs, f->name, "%u is less than repeat (%u)",
			job->max_repeat, job->repeat);
		job->max_repeat = job->repeat;
	}
}

static struct json_object *def_workload(const struct bb_job *job,
					struct json_object *given)
{
	(void)job;
	(void)given;
	return json_object_new_object();
}

static struct json_object *def_variants(const struct bb_job *job,
					struct json_object *given)
{
	(void)given;
	return job->aa ? aa_variants_json(job) : NULL;
}

static struct json_object *def_quiescence(const struct bb_job *job,
					  struct json_object *given)
{
	(void)given;
	return quiescence_json(job);
}

static struct json_object *def_target(const struct bb_job *job,
				      struct json_object *given)
{
	struct json_object *a;

	(void)given;
	if (job->ntargets <= 1)
		return json_object_new_string(job->target);
	a = json_object_new_array();
	for (const char *p = job->target; a && p; p = bb_job_next_target(job, p))
		json_object_array_add(a, json_object_new_string(p));
	return a;
}

/* A given "tiou": the normalized form, {"line", "options"}. */
static struct json_object *norm_tiou(struct job_ctx *c,
				     struct json_object *given)
{
	(void)given;
	return json_object_get(c->tiou_norm);
}

/* Given "variants": as given, a variant's "tiou" in the normalized form. */
static struct json_object *norm_variants(struct job_ctx *c,
					 struct json_object *given)
{
	struct json_object *out = NULL;
	unsigned i = 0;

	if (json_object_deep_copy(given, &out, NULL))
		return NULL;
	json_object_object_foreach(out, name, v) {
		(void)name;
		if (i < BB_JOB_MAX_VARIANTS && c->vtiou_norm[i] &&
		    json_object_is_type(v, json_type_object))
			json_object_object_add(v, "tiou",
					       json_object_get(c->vtiou_norm[i]));
		i++;
	}
	return out;
}

/* The normalized document: the top-level fields in table order, the
 * given ones as given (or in their normalized form: norm), the others
 * with their defaults (or left out: omitted). */
static int build_spec(struct job_ctx *c, struct json_object *doc)
{
	struct bb_job *job = c->job;
	struct json_object *spec = json_object_new_object();
	int ret = 0;

	if (!spec)
		return -ENOMEM;
	for (size_t i = 0; i < bb_array_size(top_fields) && !ret; i++) {
		const struct top_field *f = &top_fields[i];
		struct json_object *given = json_object_object_get(doc, f->name);
		struct json_object *def = NULL, *val;

		if (!given && f->omitted)
			continue;
		if (given && f->norm) {
			val = f->norm(c, given);
			ret = val ? 0 : -ENOMEM;
		} else {
			if (!given)
				def = f->def ? f->def(job, given) :
					       top_encode(job, f);
			ret = copy_or_new(given, def, &val);
		}
		if (!ret && json_object_object_add(spec, f->name, val)) {
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

static const struct top_field *top_find(const char *k)
{
	for (size_t i = 0; i < bb_array_size(top_fields); i++)
		if (!strcmp(k, top_fields[i].name))
			return &top_fields[i];
	return NULL;
}

static void parse_one(struct job_ctx *c, const struct top_field *f,
		      struct json_object *doc)
{
	struct json_object *j = json_object_object_get(doc, f->name);

	c->bad_uint = false;
	if (!j && f->required)
		err_add(c->errs, f->name, "%s", f->required);
	if (f->type == TOP_CUSTOM)
		f->parse(c, f, j);
	else if (j)
		top_decode(c, f, j);
	if (f->check)
		f->check(c, f);
}

/* A boot job's rules across fields (jobspec.h). */
static void check_boot_job(struct job_ctx *c, struct json_object *doc)
{
	struct bb_job *job = c->job;
	struct bb_job_errors *e = c->errs;
	unsigned nboot = 0;
	char path[128];

	for (unsigned i = 0; i < job->nvariants; i++)
		nboot += job->v[i].boot.set;
	job->boot_job = nboot > 0 && nboot == job->nvariants;
	if (nboot && nboot < job->nvariants) {
		for (unsigned i = 0; i < job->nvariants; i++) {
			if (job->v[i].boot.set)
				continue;
			snprintf(path, sizeof(path), "variants.%s.boot",
				 job->v[i].name);
			err_add(e, path,
				"required: a boot job's variants each name their kernel (%u of %u have \"boot\")",
				nboot, job->nvariants);
		}
		return;
	}
	if (!nboot) {
		if (json_object_object_get_ex(doc, "boots", NULL))
			err_add(e, "boots",
				"only for a boot job (variants with \"boot\")");
		if (json_object_object_get_ex(doc, "allow_other_jobs", NULL))
			err_add(e, "allow_other_jobs",
				"only for a boot job (variants with \"boot\")");
		return;
	}
	if (job->aa)
		err_add(e, "aa", "a boot job is not an A/A job: give two variants that name their kernels");
	if (job->order == BB_ORDER_BLOCKED)
		err_add(e, "order",
			"a boot job runs its boots in pairs (random: each pair in a seeded random order, the default; or interleaved: A B A B ...), not blocked");
	if (job->max_repeat > job->repeat)
		err_add(e, "max_repeat",
			"a boot job has no adaptive rounds (repeat counts runs per boot)");
	/* after a boot the daemon must tell which kernel came up */
	for (unsigned i = 0; i < job->nvariants; i++) {
		char ri[BB_BOOT_RELEASE_MAX], rj[BB_BOOT_RELEASE_MAX];
		const struct bb_job_boot *a = &job->v[i].boot;

		snprintf(path, sizeof(path), "variants.%s.boot",
			 job->v[i].name);
		if (!bb_boot_release(a, ri, sizeof(ri))[0] && !a->cmdline[0]) {
			err_add(e, path,
				"give \"release\" (the expected uname -r) or \"cmdline\": the kernel's file name is not vmlinuz-RELEASE, so nothing tells after the boot that it is this kernel");
			continue;
		}
		for (unsigned j = 0; j < i; j++) {
			const struct bb_job_boot *b = &job->v[j].boot;

			if (strcmp(bb_boot_release(a, ri, sizeof(ri)),
				   bb_boot_release(b, rj, sizeof(rj))) ||
			    strcmp(a->cmdline, b->cmdline))
				continue;
			err_add(e, path,
				"same release \"%s\" and command line as variant %s: the boots could not be told apart",
				ri, job->v[j].name);
		}
	}
}

/* The seed of a job that gives none: drawn from the kernel's generator
 * (the clock and the pid where getrandom fails), 0..2^63-1 so that the
 * normalized document can hold it and a re-parse keeps it.  Each job gets
 * its own random order of the variants in its rounds: a disturbance that
 * happens to follow one fixed sequence cannot bias every job alike. */
static uint64_t fresh_seed(void)
{
	uint64_t s = 0;
	struct timespec ts;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) != (ssize_t)sizeof(s)) {
		clock_gettime(CLOCK_REALTIME, &ts);
		s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
		    ((uint64_t)getpid() << 48);
		s = bb_splitmix64(&s);
	}
	return s & (uint64_t)INT64_MAX;
}

static void parse_top(struct job_ctx *c, struct json_object *doc)
{
	struct bb_job *job = c->job;
	struct bb_job_errors *e = c->errs;
	char names[256], hint[96];
	size_t n = 0;

	bb_config_default(&c->base);
	c->base_ok = true;
	job->repeat = JOB_DEF_REPEAT;
	job->warmup = JOB_DEF_WARMUP;
	job->order = BB_ORDER_RANDOM;
	job->seed = fresh_seed();
	job->metric = BB_METRIC_IOPS;
	job->min_effect = JOB_DEF_MIN_EFFECT / 100.0;
	job->confidence = JOB_DEF_CONFIDENCE;
	job->multiple = BB_AB_MULTIPLE_HOLM;
	bb_quiesce_params_init(&job->quiesce);
	job->exclude_disturbed = false;
	job->aa = false;
	job->boots = BB_JOB_DEF_BOOTS;
	c->max_repeat_given = json_object_object_get(doc, "max_repeat") != NULL;

	for (size_t i = 0; i < bb_array_size(top_fields); i++) {
		if (top_fields[i].late)
			continue;
		parse_one(c, &top_fields[i], doc);
		if (!strcmp(top_fields[i].name, "repeat"))
			c->repeat_bad = c->bad_uint;
	}
	for (size_t i = 0; i < bb_array_size(top_fields); i++)
		if (top_fields[i].late)
			parse_one(c, &top_fields[i], doc);

	if (job->aa && job->nvariants == 1 &&
	    strlen(job->v[0].name) + 1 >= sizeof(job->v[0].name)) {
		/* its copy is NAME2: a 31-character name has no room for the
		 * 2 (cutting it would give a copy named like the original) */
		char path[128];

		snprintf(path, sizeof(path), "variants.%s", job->v[0].name);
		err_add(e, path,
			"an A/A job's variant name has at most %zu characters (its copy is named %s2)",
			sizeof(job->v[0].name) - 2, "NAME");
	} else if (job->aa && job->nvariants == 1) {
		/* the copy: same configuration and knobs, its own name */
		job->v[1] = job->v[0];
		snprintf(job->v[1].name, sizeof(job->v[1].name), "%s2",
			 job->v[0].name);
		job->nvariants = 2;
	}

	check_boot_job(c, doc);

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

	for (size_t i = 0; i < bb_array_size(top_fields) && n < sizeof(names); i++)
		n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s",
				      i ? ", " : "", top_fields[i].name);
	json_object_object_foreach(doc, key, val) {
		(void)val;
		if (!top_find(key)) {
			struct bb_nearest nr;

			bb_nearest_init(&nr, key);
			for (size_t i = 0; i < bb_array_size(top_fields); i++)
				bb_nearest_add(&nr, top_fields[i].name);
			/* a run option at the top level belongs in the
			 * workload */
			if (!nr.best && bb_option_json_known(key))
				err_add(e, key, "unknown field: run options go in "
					"\"workload\" or a variant (%s)", names);
			else
				err_add(e, key, "unknown field%s (%s)",
					hint_of(nr.best, hint, sizeof(hint)),
					names);
		}
	}
}

void bb_job_free(struct bb_job *job)
{
	if (!job)
		return;
	json_object_put(job->spec);
	job->spec = NULL;
}

/* What a parse held besides the job. */
static void ctx_free(struct job_ctx *c)
{
	free(c->tiou);
	c->tiou = NULL;
	bb_tiou_argv_free(&c->tiou_words);
	json_object_put(c->tiou_norm);
	c->tiou_norm = NULL;
	for (unsigned i = 0; i < BB_JOB_MAX_VARIANTS; i++) {
		json_object_put(c->vtiou_norm[i]);
		c->vtiou_norm[i] = NULL;
	}
}

int bb_job_tiou_long_check(const struct bb_job *job, char *err,
			   size_t errlen)
{
	if (!job->tiou_long_opt[0])
		return 0;
	return bb_errf(err, errlen, -EINVAL,
		       "%s: %s: biobenchd takes only t/io_uring's options "
		       "(and --flavor) in a job's line: give biobench's run "
		       "options as fields of the workload or of a variant "
		       "(see biobench run --help), where the daemon checks "
		       "them as any job's",
		       job->tiou_long_field, job->tiou_long_opt);
}

int bb_job_parse(struct bb_job *job, struct json_object *doc,
		 struct bb_job_errors *errs)
{
	struct bb_job_errors local;
	struct job_ctx c = { .job = job, .doc = doc };
	int ret = -EINVAL;

	if (!errs)
		errs = &local;
	memset(errs, 0, sizeof(*errs));
	memset(job, 0, sizeof(*job));
	c.errs = errs;
	if (!json_object_is_type(doc, json_type_object)) {
		err_add(errs, "", "the job must be a JSON object");
		return -EINVAL;
	}
	if (check_nul(errs, "", doc)) {
		memset(job, 0, sizeof(*job));
		return -EINVAL;
	}
	parse_top(&c, doc);
	if (errs->n) {
		memset(job, 0, sizeof(*job));
		goto out;
	}
	ret = build_spec(&c, doc);
	if (ret)
		memset(job, 0, sizeof(*job));
out:
	ctx_free(&c);
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

/* The variant order of one round of the random order: a Fisher-Yates
 * shuffle from xoshiro256** seeded by splitmix64 from (seed, round). */
static void round_permutation(uint64_t seed, unsigned round, unsigned n,
			      unsigned *perm)
{
	uint64_t x = seed ^ (0xd1b54a32d192ed03ull * ((uint64_t)round + 1));
	struct bb_rng r;

	bb_rng_seed(&r, x);
	for (unsigned i = 0; i < n; i++)
		perm[i] = i;
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)bb_rng_below_fast(&r, i);
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
				.round = r, .pos = i, .warmup = r < job->warmup };
	}
	return k;
}

unsigned bb_job_boot_variant(const struct bb_job *job, unsigned k)
{
	unsigned nv = job->nvariants, perm[BB_JOB_MAX_VARIANTS];

	if (!nv)
		return 0;
	if (job->order != BB_ORDER_RANDOM)
		return k % nv;
	round_permutation(job->seed, k / nv, nv, perm);
	return perm[k % nv];
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
	char line[512], text[160];

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
							      "paired" :
						      r->method == BB_AB_METHOD_UNITS ?
							      "units" : "unpaired"));
	json_object_object_add(o, "design",
			       json_object_new_string(r->design == BB_AB_DESIGN_SEQUENTIAL ?
							      "sequential" : "fixed"));
	if (bb_ab_method_text(r, text, sizeof(text)))
		text[0] = '\0';
	json_object_object_add(o, "ci_method", json_object_new_string(text));
	json_object_object_add(o, "n", json_object_new_int64((int64_t)r->n));
	json_object_object_add(o, "n_for_confidence",
			       json_object_new_int64((int64_t)r->n_min));
	json_object_object_add(o, "too_few", json_object_new_boolean(r->too_few));
	json_object_object_add(o, "a", summary_json(&r->a));
	json_object_object_add(o, "b", summary_json(&r->b));
	json_object_object_add(o, "change", jnum(r->change));
	json_object_object_add(o, "change_median", jnum(r->change_median));
	json_object_object_add(o, "ci_lo", jnum(r->ci_lo));
	json_object_object_add(o, "ci_hi", jnum(r->ci_hi));
	json_object_object_add(o, "ci_level", jnum(r->ci_level));
	if (bb_ab_ci_label(r, text, sizeof(text)))
		text[0] = '\0';
	json_object_object_add(o, "ci_label", json_object_new_string(text));
	json_object_object_add(o, "p_value", jnum(r->p_value));
	json_object_object_add(o, "p_adjusted", jnum(r->p_adj));
	json_object_object_add(o, "tost_p", jnum(r->tost_p));
	json_object_object_add(o, "tost_p_adjusted", jnum(r->tost_p_adj));
	json_object_object_add(o, "family", json_object_new_int64(r->family));
	json_object_object_add(o, "multiple",
			       json_object_new_string(bb_ab_multiple_name(r->multiple)));
	if (r->design == BB_AB_DESIGN_SEQUENTIAL) {
		struct json_object *q = json_object_new_object();

		json_object_object_add(q, "look", json_object_new_int64(r->look));
		json_object_object_add(q, "looks", json_object_new_int64(r->looks));
		json_object_object_add(q, "first", json_object_new_int64(r->first_look));
		json_object_object_add(q, "last", json_object_new_int64(r->last_look));
		json_object_object_add(q, "at_look", json_object_new_boolean(r->at_look));
		json_object_object_add(q, "bound", jnum(r->bound));
		json_object_object_add(o, "sequential", q);
	} else {
		json_object_object_add(o, "sequential", NULL);
	}
	if (r->method == BB_AB_METHOD_UNITS) {
		struct json_object *u = json_object_new_object();

		json_object_object_add(u, "kind", json_object_new_string(
				       r->unit == BB_AB_UNIT_BOOT ? "boot" : "job"));
		json_object_object_add(u, "base", json_object_new_int64((int64_t)r->units_a));
		json_object_object_add(u, "other", json_object_new_int64((int64_t)r->units_b));
		json_object_object_add(u, "runs_base", json_object_new_int64((int64_t)r->runs_a));
		json_object_object_add(u, "runs_other", json_object_new_int64((int64_t)r->runs_b));
		json_object_object_add(u, "df", jnum(r->df));
		json_object_object_add(u, "between_sd", jnum(expm1(r->unit_sd)));
		json_object_object_add(u, "within_sd", jnum(expm1(r->within_sd)));
		json_object_object_add(u, "planning_sd", r->too_few ?
				       jnum(expm1(r->planning_sd)) : NULL);
		json_object_object_add(u, "needed_per_side",
				       r->units_needed ?
					       json_object_new_int64(r->units_needed) :
					       NULL);
		json_object_object_add(o, "units", u);
	}
	json_object_object_add(o, "verdict",
			       json_object_new_string(bb_ab_verdict_name(r->verdict)));
	json_object_object_add(o, "more_needed",
			       json_object_new_int64(r->more_needed));
	json_object_object_add(o, "more_capped",
			       json_object_new_boolean(r->more_capped));
	json_object_object_add(o, "min_effect", jnum(r->min_effect));
	json_object_object_add(o, "confidence", jnum(r->confidence));
	json_object_object_add(o, "text", json_object_new_string(line));
	if (bb_ab_precision_text(r, line, sizeof(line)))
		line[0] = '\0';
	json_object_object_add(o, "precision",
			       line[0] ? json_object_new_string(line) : NULL);
	return o;
}
