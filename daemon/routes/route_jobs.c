// SPDX-License-Identifier: GPL-2.0-only
/* route_jobs.c - POST /api/v1/jobs (submit) and GET /api/v1/jobs (list). */
#include "routes.h"
#include <biobench/hostinfo.h>
#include <biobench/jobspec.h>
#include <biobench/sysknob.h>
#include <biobench/targetpath.h>
#include "log.h"
#include "reboot.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define BB_LIST_DEFAULT 50
#define BB_LIST_MAX 500

/* A 400 "invalid_job" with one error, in the shape of the parser's. */
static void bb_jobs_invalid(struct bb_http_response *rs, const char *field,
			    const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bb_jobs_invalid(struct bb_http_response *rs, const char *field,
			    const char *fmt, ...)
{
	struct json_object *o = json_object_new_object();
	struct json_object *e = json_object_new_object();
	struct json_object *errs = json_object_new_array();
	struct json_object *one = json_object_new_object();
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_object_object_add(e, "code", json_object_new_string("invalid_job"));
	json_object_object_add(e, "message", json_object_new_string(msg));
	json_object_object_add(e, "field", field && *field
				  ? json_object_new_string(field) : NULL);
	json_object_object_add(one, "field", field && *field
				  ? json_object_new_string(field) : NULL);
	json_object_object_add(one, "message", json_object_new_string(msg));
	json_object_array_add(errs, one);
	json_object_object_add(o, "error", e);
	json_object_object_add(o, "errors", errs);
	bb_http_json(rs, 400, o);
}

/* Every error of the parser. */
static void bb_jobs_parse_errors(struct bb_http_response *rs,
				 const struct bb_job_errors *je)
{
	struct json_object *o = json_object_new_object();
	struct json_object *e = json_object_new_object();
	struct json_object *errs = json_object_new_array();
	unsigned n = bb_min(je->n, (unsigned)BB_JOB_MAX_ERRORS);

	if (!n) {
		json_object_put(errs);
		json_object_put(e);
		json_object_put(o);
		bb_jobs_invalid(rs, NULL, "the job is not valid");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		struct json_object *one = json_object_new_object();

		json_object_object_add(one, "field", je->field[i][0]
				       ? json_object_new_string(je->field[i])
				       : NULL);
		json_object_object_add(one, "message",
				       json_object_new_string(je->msg[i]));
		json_object_array_add(errs, one);
	}
	json_object_object_add(e, "code", json_object_new_string("invalid_job"));
	json_object_object_add(e, "message", json_object_new_string(je->msg[0]));
	json_object_object_add(e, "field", je->field[0][0]
			       ? json_object_new_string(je->field[0]) : NULL);
	json_object_object_add(o, "error", e);
	json_object_object_add(o, "errors", errs);
	if (je->n > n)
		json_object_object_add(o, "errors_total",
				       json_object_new_int64(je->n));
	bb_http_json(rs, 400, o);
}

/* Offset of the first byte that is not well-formed UTF-8, or len. */
static size_t bb_utf8_bad(const unsigned char *s, size_t len)
{
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		n = bb_utf8_seq(s + i, len - i, &cp);
		if (!n)
			return i;
		i += n;
	}
	return len;
}

static bool bb_jobs_cpu_reserved(const struct bb_dconfig *cfg, int cpu)
{
	for (unsigned i = 0; i < cfg->n_http_cpus; i++)
		if (cfg->http_cpus[i] == cpu)
			return true;
	return false;
}

/* Whether a JSON value sets a CPU list (non-empty array or string). */
static bool bb_jobs_cpus_given(struct json_object *obj)
{
	struct json_object *c;

	if (!obj || !json_object_object_get_ex(obj, "cpus", &c) || !c)
		return false;
	if (json_object_is_type(c, json_type_array))
		return json_object_array_length(c) > 0;
	if (json_object_is_type(c, json_type_string))
		return json_object_get_string_len(c) > 0;
	return true;
}

/* Field path of a variant's option: "variants.X.key" when the variant
 * overrides it, else "workload.key" when the workload gives it (or no
 * t/io_uring line does), else the line it comes from: "variants.X.tiou"
 * or "tiou". */
static void bb_jobs_opt_field(struct json_object *spec, const char *variant,
			      const char *key, char *buf, size_t len)
{
	struct json_object *vs, *v = NULL, *wl;

	if (json_object_object_get_ex(spec, "variants", &vs) &&
	    json_object_object_get_ex(vs, variant, &v) &&
	    json_object_is_type(v, json_type_object) &&
	    json_object_object_get_ex(v, key, NULL))
		snprintf(buf, len, "variants.%s.%s", variant, key);
	else if (json_object_object_get_ex(spec, "workload", &wl) &&
		 json_object_object_get_ex(wl, key, NULL))
		snprintf(buf, len, "workload.%s", key);
	else if (v && json_object_is_type(v, json_type_object) &&
		 json_object_object_get_ex(v, "tiou", NULL))
		snprintf(buf, len, "variants.%s.tiou", variant);
	else if (json_object_object_get_ex(spec, "tiou", NULL))
		snprintf(buf, len, "tiou");
	else
		snprintf(buf, len, "workload.%s", key);
}

/* CPUs: the default bench CPUs when the job names none; HTTP CPUs
 * refused.  0 or -EINVAL with the response filled in. */
static int bb_jobs_cpus(const struct bb_dconfig *cfg, struct bb_job *job,
			struct bb_http_response *rs)
{
	struct json_object *wl = NULL, *arr;
	bool given = false;
	char field[128];

	json_object_object_get_ex(job->spec, "workload", &wl);
	given = bb_jobs_cpus_given(wl);
	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_job_variant *v = &job->v[i];
		struct {
			const char *key;
			int cpu;
		} one[2] = { { "sqpoll_cpu", v->cfg.sqpoll_cpu },
			     { "completion_cpu", v->cfg.completion_cpu } };

		given |= v->cfg.ncpus > 0;
		/* -P1 places the threads on the device's node, HTTP CPUs
		 * or not, and cannot go with a CPU list (the bench CPUs
		 * the daemon would add) */
		if (v->cfg.numa_place &&
		    (cfg->n_http_cpus || cfg->n_bench_cpus)) {
			bb_jobs_opt_field(job->spec, v->name, "numa_place",
					  field, sizeof(field));
			bb_jobs_invalid(rs, field, "%s: numa_place (t/io_uring "
					"-P1) places the threads itself, maybe "
					"on the daemon's HTTP CPUs (http_cpus), "
					"and not on its bench CPUs "
					"(bench_cpus): give \"cpus\" instead",
					field);
			return -EINVAL;
		}
		for (unsigned k = 0; k < v->cfg.ncpus; k++) {
			if (!bb_jobs_cpu_reserved(cfg, v->cfg.cpus[k]))
				continue;
			bb_jobs_opt_field(job->spec, v->name, "cpus", field,
					  sizeof(field));
			bb_jobs_invalid(rs, field, "%s: CPU %d is reserved "
					"for the daemon's HTTP threads "
					"(http_cpus)", field, v->cfg.cpus[k]);
			return -EINVAL;
		}
		for (unsigned k = 0; k < 2; k++) {
			if (one[k].cpu < 0 ||
			    !bb_jobs_cpu_reserved(cfg, one[k].cpu))
				continue;
			bb_jobs_opt_field(job->spec, v->name, one[k].key,
					  field, sizeof(field));
			bb_jobs_invalid(rs, field, "%s: CPU %d is reserved "
					"for the daemon's HTTP threads "
					"(http_cpus)", field, one[k].cpu);
			return -EINVAL;
		}
	}
	if (given || !cfg->n_bench_cpus)
		return 0;
	if (!wl) {
		wl = json_object_new_object();
		json_object_object_add(job->spec, "workload", wl);
	}
	arr = json_object_new_array();
	for (unsigned i = 0; i < cfg->n_bench_cpus; i++)
		json_object_array_add(arr,
				      json_object_new_int(cfg->bench_cpus[i]));
	json_object_object_add(wl, "cpus", arr);
	return 0;
}

/* The queue directory of the target; a file that does not exist yet (the
 * run creates it) is judged by its directory. */
static int bb_jobs_queue_dir(const char *target, char *dir, size_t len,
			     char *err, size_t errlen)
{
	char parent[PATH_MAX];
	struct stat st;
	char *slash;
	int ret;

	ret = bb_sysknob_queue_dir(target, dir, len, err, errlen);
	if (!ret || target[0] != '/' || !stat(target, &st) || errno != ENOENT)
		return ret;
	snprintf(parent, sizeof(parent), "%s", target);
	slash = strrchr(parent, '/');
	if (slash == parent)
		slash[1] = '\0';
	else
		*slash = '\0';
	return bb_sysknob_queue_dir(parent, dir, len, err, errlen) ? ret : 0;
}

/* Every sysfs knob must exist on the target's queue and be allowed there
 * by the configuration's allow_knobs (a dangerous one on a disk with a
 * mounted filesystem named explicitly).  0 or -EINVAL with the response
 * filled in. */
static int bb_jobs_knobs(const struct bb_dconfig *cfg, struct bb_job *job,
			 struct bb_http_response *rs)
{
	char dir[PATH_MAX], path[PATH_MAX], err[512], field[256];
	char mounted[PATH_MAX * 2 + 8] = "";
	bool have_dir = false, is_mounted = false;

	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_job_variant *v = &job->v[i];

		for (unsigned k = 0; k < v->nsysfs; k++) {
			snprintf(field, sizeof(field), "variants.%s.sysfs.%s",
				 v->name, v->sysfs[k].name);
			err[0] = '\0';
			if (!have_dir &&
			    bb_jobs_queue_dir(job->target, dir, sizeof(dir),
					      err, sizeof(err))) {
				bb_jobs_invalid(rs, field, "%s: target %s has "
						"no queue knobs: %s", field,
						job->target, err);
				return -EINVAL;
			}
			if (!have_dir)
				is_mounted = bb_sysknob_disk_mounted(
						     dir, mounted,
						     sizeof(mounted)) != 0;
			have_dir = true;
			if (bb_sysknob_path(dir, v->sysfs[k].name, path,
					    sizeof(path), err, sizeof(err))) {
				bb_jobs_invalid(rs, field, "%s: %s", field,
						err);
				return -EINVAL;
			}
			if (bb_dconfig_knob_allowed(
				    cfg, job->target, v->sysfs[k].name,
				    is_mounted &&
					    bb_sysknob_dangerous(v->sysfs[k].name),
				    mounted, err, sizeof(err))) {
				bb_jobs_invalid(rs, field, "%s: %s", field,
						err);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* A variant that writes (to a device, or to a file: also creating or
 * laying one out) must say "allow_write": true, as `biobench run
 * --allow-write` must: refused now rather than at the job's first run. */
static int bb_jobs_write_flag(const struct bb_job *job,
			      struct bb_http_response *rs)
{
	if (bb_target_is_nop(job->target))
		return 0;
	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_config *c = &job->v[i].cfg;
		char field[96];

		if (!bb_rw_writes(c->rw) || c->allow_write)
			continue;
		if (i)
			snprintf(field, sizeof(field), "variants.%s.allow_write",
				 job->v[i].name);
		else
			snprintf(field, sizeof(field), "workload.allow_write");
		bb_http_error(rs, 400, "invalid_job", field,
			      "variant %s writes to %s: set \"allow_write\": "
			      "true (in the workload or the variant)",
			      job->v[i].name, job->target);
		return -EINVAL;
	}
	return 0;
}

/* A write job on a target the run would refuse to write (a mounted or
 * held device, one aliased by a device in use, a file with hard links or
 * backing a loop device in use): 400 now, naming the writing variant's
 * rw, rather than a failure at the job's first run.  0 or -EINVAL with
 * the response filled in. */
static int bb_jobs_write_target(const struct bb_job *job,
				struct bb_http_response *rs)
{
	char err[768], field[128];

	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_config *c = &job->v[i].cfg;

		if (!bb_rw_writes(c->rw))
			continue;
		if (!bb_target_write_check(job->target, err, sizeof(err)))
			return 0;
		bb_jobs_opt_field(job->spec, job->v[i].name, "rw", field,
				  sizeof(field));
		bb_jobs_invalid(rs, field, "%s: variant %s writes (rw %s): %s",
				field, job->v[i].name, bb_rw_name(c->rw), err);
		return -EINVAL;
	}
	return 0;
}

/* The time the job plans to run: for each variant, its runs (warm-ups
 * and the most rounds it may take: max_repeat unless blocked) times
 * runtime + ramp_time.  Beyond max_job_seconds: 400 naming the numbers.
 * A run bounded by number_ios alone counts as its ramp_time (its length
 * is not known in advance). */
static int bb_jobs_planned_time(const struct bb_dconfig *cfg,
				const struct bb_job *job,
				struct bb_http_response *rs)
{
	unsigned rounds = job->order == BB_ORDER_BLOCKED ||
				  job->max_repeat < job->repeat
			  ? job->repeat : job->max_repeat;
	/* a boot job runs warm-ups and repeat in each of its boots */
	unsigned mult = job->boot_job ? job->boots : 1;
	unsigned runs = (job->warmup + rounds) * job->nvariants * mult;
	unsigned worst = 0;
	long double total = 0, per, worst_s = -1;
	char field[128];

	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_config *c = &job->v[i].cfg;

		per = ((long double)c->runtime_ns + (long double)c->ramp_ns) /
		      1e9L;
		total += per * (job->warmup + rounds) * mult;
		if (per > worst_s) {
			worst_s = per;
			worst = i;
		}
	}
	if (total <= (long double)cfg->max_job_s)
		return 0;
	/* the copy of an A/A job is named like no field */
	bb_jobs_opt_field(job->spec, job->v[job->aa ? 0 : worst].name,
			  "runtime", field, sizeof(field));
	bb_jobs_invalid(rs, field, "the job plans %u runs of up to %.6Lg s "
			"(runtime + ramp_time): %.0Lf s in all (%.1Lf days), "
			"more than max_job_seconds = %u; lower repeat, "
			"max_repeat, warmup, runtime or ramp_time", runs,
			worst_s, total, total / 86400, cfg->max_job_s);
	return -EINVAL;
}

/* A boot job (variants with "boot") needs allow_reboot = yes, its
 * kernels and initrds in boot_dirs (bb_boot_job_check: root's files in
 * root's directories, no symlink), a command line of allowed parameters,
 * at most max_boots_per_job boots in all, and with reboot_method
 * grub-reboot a grub_entry in each variant.  0 or -EINVAL/-EACCES with the response
 * filled in. */
static int bb_jobs_boots(const struct bb_dconfig *cfg, const struct bb_job *job,
			 struct bb_http_response *rs)
{
	char field[128];
	unsigned total;

	if (!job->boot_job)
		return 0;
	snprintf(field, sizeof(field), "variants.%s.boot", job->v[0].name);
	if (!cfg->allow_reboot) {
		bb_http_error(rs, 403, "reboot_not_allowed", field,
			      "a boot job reboots this host, and this daemon "
			      "does not: it needs allow_reboot = yes under "
			      "[reboot] in its configuration");
		return -EACCES;
	}
	/* the kernels and initrds only from boot_dirs, checked on the
	 * opened files; the command line only from the allowed parameters
	 * (the scheduler checks both again when it arms the boot) */
	{
		char why[PATH_MAX + 512];
		int ret = bb_boot_job_check(cfg->boot_dirs, cfg->nboot_dirs,
					    job, field, sizeof(field), why,
					    sizeof(why));

		if (ret) {
			bb_jobs_invalid(rs, field, "%s", why);
			return ret;
		}
	}
	total = job->boots * job->nvariants;
	if (total > cfg->max_boots_per_job) {
		bb_jobs_invalid(rs, "boots", "%u boots per variant x %u "
				"variants = %u boots, more than "
				"max_boots_per_job = %u", job->boots,
				job->nvariants, total, cfg->max_boots_per_job);
		return -EINVAL;
	}
	for (unsigned i = 0; cfg->reboot_method == BB_REBOOT_GRUB_REBOOT &&
			     i < job->nvariants; i++) {
		if (job->v[i].boot.grub_entry[0])
			continue;
		snprintf(field, sizeof(field), "variants.%s.boot.grub_entry",
			 job->v[i].name);
		bb_jobs_invalid(rs, field, "required: this daemon reboots "
				"with grub-reboot (reboot_method), which boots "
				"a boot-loader entry once");
		return -EINVAL;
	}
	return 0;
}

/* A boot job reboots the host between its boots: unless it says
 * "allow_other_jobs", it is refused while another job has not ended (the
 * scheduler checks again when it would start).  0 or -EBUSY/-EIO with the
 * response filled in. */
static int bb_jobs_boot_alone(const struct bb_route_req *r,
			      const struct bb_job *job,
			      struct bb_http_response *rs)
{
	char err[256];
	unsigned n = 0;
	int ret;

	if (!job->boot_job || job->allow_other_jobs)
		return 0;
	ret = bb_store_jobs_active(r->ctx->store, &n, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret, 0, err);
		return ret;
	}
	if (!n)
		return 0;
	bb_http_error(rs, 409, "host_busy", "allow_other_jobs",
		      "%u other job(s) are queued or running on this host, "
		      "and a boot job reboots it between its boots: wait "
		      "for them or cancel them (\"allow_other_jobs\": true "
		      "submits it anyway, and other jobs then run between "
		      "its boots)", n);
	return -EBUSY;
}

/* Only regular files and block devices (and NVMe generic char devices for
 * uring_cmd) are targets: anything else is refused here, naming its type
 * (stat does not open it: a FIFO does not block).  A target that does not
 * exist yet is judged when it runs. */
static int bb_jobs_target_type(const struct bb_job *job,
			       struct bb_http_response *rs)
{
	struct stat st;
	const char *type;

	for (const char *p = job->target; p; p = bb_job_next_target(job, p)) {
		if (bb_target_is_nop(p) || stat(p, &st))
			continue;
		if (S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) ||
		    S_ISCHR(st.st_mode))
			continue;
		type = S_ISFIFO(st.st_mode) ? "FIFO (named pipe)" :
		       S_ISSOCK(st.st_mode) ? "socket" :
		       S_ISDIR(st.st_mode)  ? "directory" : "special file";
		bb_jobs_invalid(rs, "target", "target %s is a %s: a target is "
				"nop, a regular file or a block device (or "
				"/dev/ngXnY with \"engine\": \"uring_cmd\")",
				p, type);
		return -EINVAL;
	}
	return 0;
}

/* The bytes of the region a variant's run covers, for its verify state:
 * size, else what the target holds past offset (0 when unknown). */
static uint64_t bb_jobs_region(const char *target, const struct bb_config *c)
{
	char path[PATH_MAX], val[32];
	struct stat st;
	uint64_t len = 0;

	if (c->size || bb_target_is_nop(target) || stat(target, &st))
		return c->size;
	if (S_ISREG(st.st_mode)) {
		len = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/size",
			 major(st.st_rdev), minor(st.st_rdev));
		if (!bb_read_text(path, val, sizeof(val)))
			len = strtoull(val, NULL, 10) * 512;
	}
	return len > c->offset ? len - c->offset : 0;
}

/* Each run's memory (bb_config_memory_estimate: buffers, slots, rings,
 * bio slabs, verify state) within max_run_memory, and registered buffers
 * within RLIMIT_MEMLOCK: refused now, not OOM-killed later.  0 or -EINVAL
 * with the response filled in. */
static int bb_jobs_memory(const struct bb_dconfig *cfg,
			  const struct bb_job *job,
			  struct bb_http_response *rs)
{
	char name[96], b[32], err[768], field[128];

	bb_fmt_bytes(b, sizeof(b), cfg->max_run_memory);
	snprintf(name, sizeof(name), "max_run_memory %s", b);
	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_job_variant *v = &job->v[i];
		struct bb_mem_estimate e;

		uint64_t region = 0;

		/* verify state for the regions of every target */
		for (const char *p = job->target; p;
		     p = bb_job_next_target(job, p))
			region += bb_jobs_region(p, &v->cfg);
		bb_config_memory_estimate(&v->cfg, region, NULL, &e);
		if (!bb_config_memory_check(&v->cfg, &e, cfg->max_run_memory,
					    name, err, sizeof(err)))
			continue;
		bb_jobs_opt_field(job->spec, v->name, "iodepth", field,
				  sizeof(field));
		bb_jobs_invalid(rs, field, "variant %s: %s", v->name, err);
		return -EINVAL;
	}
	return 0;
}

/* A group's answer: "group": true and its "children" (id, host). */
static void bb_jobs_add_children(const struct bb_route_req *r, int64_t id,
				 struct json_object *o)
{
	struct json_object *kids = NULL;

	json_object_object_add(o, "group", json_object_new_boolean(true));
	if (!bb_store_job_children(r->ctx->store, id, &kids, NULL, 0))
		json_object_object_add(o, "children", kids);
}

void bb_route_jobs_post(const struct bb_route_req *r,
			struct bb_http_response *rs)
{
	const struct bb_http_request *rq = r->rq;
	struct bb_job_errors *je = NULL;
	struct bb_job *job = NULL;
	struct json_object *o;
	char why[1024], err[512] = "", url[64];
	bool parsed = false, write = false, tiou;
	const char *text;
	unsigned planned;
	size_t bad;
	int64_t id;
	int ret;

	bad = bb_utf8_bad((const unsigned char *)(rq->body ? rq->body : ""),
			  rq->body ? rq->body_len : 0);
	if (rq->body && bad < rq->body_len) {
		bb_jobs_invalid(rs, NULL, "the request body is not valid "
				"UTF-8 (byte offset %zu)", bad);
		goto out;
	}
	if (!rq->body_len) {
		bb_jobs_invalid(rs, NULL, "the request body is empty: "
				"expected a job (JSON object)");
		goto out;
	}
	job = calloc(1, sizeof(*job));
	je = calloc(1, sizeof(*je));
	if (!job || !je) {
		bb_http_error(rs, 500, "internal", NULL, "out of memory");
		goto out;
	}
	ret = bb_job_parse_string(job, rq->body, rq->body_len, je);
	if (ret == -EINVAL) {
		bb_jobs_parse_errors(rs, je);
		goto out;
	}
	if (ret) {
		bb_http_error(rs, 500, "internal", NULL, "cannot parse the "
			      "job: %s", strerror(-ret));
		goto out;
	}
	parsed = true;
	/* a job's run options are its fields, checked below: none from a
	 * t/io_uring line's long options */
	if (bb_job_tiou_long_check(job, why, sizeof(why))) {
		bb_jobs_invalid(rs, job->tiou_long_field, "%s", why);
		goto out;
	}
	for (unsigned i = 0; i < job->nvariants; i++)
		write |= bb_rw_writes(job->v[i].cfg.rw);
	/* every target (several files, a tiou line's FILEs: a 400 on the
	 * line, the FILE and what it resolves to named) */
	tiou = json_object_object_get_ex(job->spec, "tiou", NULL);
	for (const char *p = job->target; p; p = bb_job_next_target(job, p)) {
		why[0] = '\0';
		if (!bb_dconfig_target_allowed(r->cfg, p, write, why,
					       sizeof(why)))
			continue;
		if (tiou)
			bb_http_error(rs, 400, "target_not_allowed", "tiou",
				      "tiou: FILE %s: %s", p, why[0] ? why :
				      "not in the allow-list");
		else
			bb_http_error(rs, 403, "target_not_allowed", "target",
				      "%s", why[0] ? why :
				      "target is not in the allow-list");
		goto out;
	}
	if (bb_jobs_target_type(job, rs) || bb_jobs_cpus(r->cfg, job, rs) ||
	    bb_jobs_knobs(r->cfg, job, rs) || bb_jobs_write_flag(job, rs) ||
	    bb_jobs_write_target(job, rs) ||
	    bb_jobs_memory(r->cfg, job, rs) ||
	    bb_jobs_planned_time(r->cfg, job, rs) ||
	    bb_jobs_boots(r->cfg, job, rs) || bb_jobs_boot_alone(r, job, rs))
		goto out;
	/* a store that lost its file or cannot write would lose the job */
	if (bb_route_store_check(r, rs))
		goto out;
	text = json_object_to_json_string_ext(job->spec,
					      JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	planned = (job->warmup + job->repeat) * job->nvariants *
		  (job->boot_job ? job->boots : 1);
	ret = bb_store_job_submit(r->ctx->store, job->name, job->target,
				  text, planned, r->cfg->max_queued_jobs, &id,
				  err, sizeof(err));
	if (ret == -EAGAIN) {
		bb_http_error(rs, 429, "queue_full", NULL, "%s", err);
		rs->retry_after = 60;
		goto out;
	}
	if (ret == -ENXIO) {
		/* addressed to a host no daemon registered, or a selector
		 * that matches none */
		bb_jobs_invalid(rs, json_object_object_get_ex(job->spec,
							      "hosts", NULL) ?
				"hosts" : "host", "%s", err);
		goto out;
	}
	if (ret) {
		bb_route_store_error(rs, ret == -ENOENT ? -EIO : ret, 0, err);
		goto out;
	}
	if (r->ctx->sched)
		bb_sched_kick(r->ctx->sched);
	snprintf(url, sizeof(url), "/api/v1/jobs/%" PRId64, id);
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "state",
			       json_object_new_string(BB_JOB_QUEUED));
	json_object_object_add(o, "url", json_object_new_string(url));
	if (job->group)
		bb_jobs_add_children(r, id, o);
	bb_http_json(rs, 201, o);
out:
	if (parsed)
		bb_job_free(job);
	free(job);
	free(je);
}

/* Strict unsigned decimal: digits only, at most 19 of them. */
static bool bb_jobs_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	size_t n = strlen(s);

	if (!n || n > 19)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return true;
}

void bb_route_jobs_list(const struct bb_route_req *r,
			struct bb_http_response *rs)
{
	const char *state = bb_http_arg(r->rq, "state");
	const char *limit_s = bb_http_arg(r->rq, "limit");
	const char *cursor_s = bb_http_arg(r->rq, "cursor");
	const char *host = bb_http_arg(r->rq, "host");
	const char *children_s = bb_http_arg(r->rq, "children");
	struct json_object *out = NULL, *jobs;
	const char *why;
	uint64_t limit = BB_LIST_DEFAULT, cursor = 0;
	char err[512] = "";
	int ret;

	if (state && !*state)
		state = NULL;
	if (state && !bb_store_state_ok(state)) {
		bb_http_error(rs, 400, "invalid_argument", "state",
			      "state: '%.64s' is not one of queued, running, "
			      "done, failed, cancelled, interrupted", state);
		return;
	}
	if (limit_s && (!bb_jobs_u64(limit_s, &limit) || limit < 1 ||
			limit > BB_LIST_MAX)) {
		bb_http_error(rs, 400, "invalid_argument", "limit",
			      "limit: '%.64s' is not a number in 1..%d",
			      limit_s, BB_LIST_MAX);
		return;
	}
	if (cursor_s && (!bb_jobs_u64(cursor_s, &cursor) ||
			 cursor > INT64_MAX)) {
		bb_http_error(rs, 400, "invalid_argument", "cursor",
			      "cursor: '%.64s' is not a job id (a number in "
			      "0..%" PRId64 ")", cursor_s, INT64_MAX);
		return;
	}
	if (host && !*host)
		host = NULL;
	/* any well-formed name: one no daemon has lists nothing */
	if (host && (why = bb_host_name_check(host))) {
		bb_http_error(rs, 400, "invalid_argument", "host",
			      "host: '%.64s' is not a host name: %s", host,
			      why);
		return;
	}
	if (children_s && strcmp(children_s, "0") && strcmp(children_s, "1")) {
		bb_http_error(rs, 400, "invalid_argument", "children",
			      "children: '%.64s' is not 0 (leave the jobs of "
			      "groups out) or 1 (list them, the default)",
			      children_s);
		return;
	}
	ret = bb_store_jobs_list_ex(r->ctx->store, state, host,
				    !children_s || !strcmp(children_s, "1"),
				    (unsigned)limit, (int64_t)cursor, &out,
				    err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret == -ENOENT ? -EIO : ret, 0, err);
		return;
	}
	if (json_object_object_get_ex(out, "jobs", &jobs) &&
	    json_object_is_type(jobs, json_type_array))
		for (size_t i = 0; i < json_object_array_length(jobs); i++)
			bb_route_add_progress(
				r, json_object_array_get_idx(jobs, i));
	bb_http_json(rs, 200, out);
}
