// SPDX-License-Identifier: GPL-2.0-only
/* route_compare_jobs.c - GET /api/v1/compare?base=ID[,ID...]
 * &with=ID[,ID...][&with=...][&variant=NAME][&allow_different_workload=1]
 * [&level=unit|run]: each variant of the other sides against the
 * same-named variant of the base side, the job (or boot) as the unit,
 * with what differs between the jobs (core/include/biobench/
 * jobcompare.h).  A side is one job or several, comma-separated, that
 * replicate it; every `with` is a side of its own. */
#include "routes.h"

#include <biobench/jobcompare.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* A job id argument: 0, or -EINVAL with a 400 naming field. */
static int id_arg(struct bb_http_response *rs, const char *field,
		  const char *s, size_t len, int64_t *id)
{
	if (!bb_route_parse_id(s, len, id))
		return 0;
	bb_http_error(rs, 400, "invalid_argument", field,
		      "%s: '%.*s' is not a job id (a number in 1..%" PRId64 ")",
		      field, (int)(len < 64 ? len : 64), s, INT64_MAX);
	return -EINVAL;
}

/* The sides of the comparison: base=ID[,ID...] (one side) and every
 * with=ID[,ID...] (one side each, repeated): ids[] in side order,
 * side_n[k] the jobs of side k (0: the base).  A 400 naming the field on
 * a bad id, a job given twice, too many jobs or sides. */
static int side_args(const struct bb_route_req *r, struct bb_http_response *rs,
		     int64_t *ids, size_t *side_n, size_t *nsides)
{
	const struct bb_http_request *rq = r->rq;
	size_t n = 0;

	*nsides = 1;
	side_n[0] = 0;
	for (int pass = 0; pass < 2; pass++)
		for (unsigned i = 0; i < rq->nargs && i < BB_HTTP_MAX_ARGS; i++) {
			const char *key = rq->args[i].key;
			const char *s = rq->args[i].value ? rq->args[i].value : "";
			const char *field = pass ? "with" : "base";

			if (!key || strcmp(key, field))
				continue;
			if (!pass && side_n[0]) {
				bb_http_error(rs, 400, "invalid_argument", "base",
					      "base: given twice (one base side: "
					      "base=ID or base=ID,ID,... of the jobs "
					      "that replicate it)");
				return -EINVAL;
			}
			if (pass) {
				if (*nsides == 1 + BB_JOBCMP_MAX_WITH) {
					bb_http_error(rs, 400, "invalid_argument",
						      "with",
						      "with: at most %d sides to "
						      "compare with the base",
						      BB_JOBCMP_MAX_WITH);
					return -EINVAL;
				}
				side_n[(*nsides)++] = 0;
			}
			for (;;) {
				size_t len = strcspn(s, ",");
				int64_t id;

				if (id_arg(rs, field, s, len, &id))
					return -EINVAL;
				if (n == BB_JOBCMP_MAX_JOBS) {
					bb_http_error(rs, 400, "invalid_argument",
						      field,
						      "%s: at most %d jobs in one "
						      "comparison", field,
						      BB_JOBCMP_MAX_JOBS);
					return -EINVAL;
				}
				for (size_t k = 0; k < n; k++)
					if (ids[k] == id) {
						bb_http_error(rs, 400,
							      "invalid_argument",
							      field,
							      "%s: job %" PRId64
							      " is given twice (a "
							      "job is on one side, "
							      "once)",
							      field, id);
						return -EINVAL;
					}
				ids[n++] = id;
				side_n[pass ? *nsides - 1 : 0]++;
				if (!s[len])
					break;
				s += len + 1;
			}
		}
	if (!side_n[0]) {
		bb_http_error(rs, 400, "invalid_argument", "base",
			      "base: missing (the job to compare the others "
			      "with: base=ID, or base=ID,ID,... for several "
			      "jobs of one side)");
		return -EINVAL;
	}
	if (*nsides < 2) {
		bb_http_error(rs, 400, "invalid_argument", "with",
			      "with: missing (the job(s) to compare with the "
			      "base: with=ID, with=ID,ID,... for several jobs "
			      "of one side, repeated for more sides)");
		return -EINVAL;
	}
	return 0;
}

static bool variant_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 31)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* The job's document and runs; a response on failure. */
static int load(const struct bb_route_req *r, struct bb_http_response *rs,
		int64_t id, struct bb_jobcmp_job *j)
{
	char err[512] = "";
	int ret;

	ret = bb_store_job_get(r->ctx->store, id, &j->job, err, sizeof(err));
	if (!ret)
		ret = bb_store_job_runs(r->ctx->store, id, false, &j->runs, err,
					sizeof(err));
	if (ret)
		bb_route_store_error(rs, ret, id, err);
	return ret;
}

/* A refusal: the error document with the fields that differ. */
static void refusal(struct bb_http_response *rs, int status,
		    const struct bb_jobcmp_error *e)
{
	struct json_object *o = json_object_new_object();
	struct json_object *er = json_object_new_object();

	json_object_object_add(er, "code", json_object_new_string(e->code));
	json_object_object_add(er, "message", json_object_new_string(e->msg));
	json_object_object_add(er, "field", e->field[0] ?
				       json_object_new_string(e->field) : NULL);
	json_object_object_add(o, "error", er);
	if (e->fields)
		json_object_object_add(o, "fields", json_object_get(e->fields));
	bb_http_json(rs, status, o);
}

void bb_route_compare_jobs(const struct bb_route_req *r,
			   struct bb_http_response *rs)
{
	const char *variant = bb_http_arg(r->rq, "variant");
	const char *allow = bb_http_arg(r->rq, "allow_different_workload");
	const char *level = bb_http_arg(r->rq, "level");
	struct bb_jobcmp_job jobs[BB_JOBCMP_MAX_JOBS];
	struct bb_jobcmp_side sides[1 + BB_JOBCMP_MAX_WITH];
	struct bb_jobcmp_opts opts = { 0 };
	struct bb_jobcmp_error e;
	struct json_object *out = NULL;
	int64_t ids[BB_JOBCMP_MAX_JOBS];
	size_t side_n[1 + BB_JOBCMP_MAX_WITH], nsides = 0, n = 0, loaded = 0;
	int ret;

	memset(jobs, 0, sizeof(jobs));
	memset(&e, 0, sizeof(e));
	if (side_args(r, rs, ids, side_n, &nsides))
		return;
	for (size_t k = 0; k < nsides; k++) {
		sides[k] = (struct bb_jobcmp_side){ jobs + n, side_n[k] };
		n += side_n[k];
	}
	if (variant && *variant) {
		if (!variant_name_ok(variant)) {
			bb_http_error(rs, 400, "invalid_argument", "variant",
				      "variant: '%.64s' is not a variant name "
				      "([A-Za-z0-9_-], 1..31 characters)",
				      variant);
			return;
		}
		opts.variant = variant;
	}
	if (allow) {
		if (!strcmp(allow, "1") || !strcmp(allow, "true")) {
			opts.allow_different_workload = true;
		} else if (*allow && strcmp(allow, "0") &&
			   strcmp(allow, "false")) {
			bb_http_error(rs, 400, "invalid_argument",
				      "allow_different_workload",
				      "allow_different_workload: '%.64s' is not "
				      "one of 0, 1, true, false",
				      allow);
			return;
		}
	}
	if (level && *level) {
		if (!strcmp(level, "run")) {
			opts.level = BB_JOBCMP_LEVEL_RUN;
		} else if (strcmp(level, "unit")) {
			bb_http_error(rs, 400, "invalid_argument", "level",
				      "level: '%.64s' is not one of unit (the "
				      "job, or boot, as the unit: the default), "
				      "run (every run an independent sample: "
				      "assumes jobs and boots do not differ)",
				      level);
			return;
		}
	}
	for (loaded = 0; loaded < n; loaded++)
		if (load(r, rs, ids[loaded], &jobs[loaded]))
			goto out;
	ret = bb_jobcmp_sides(&sides[0], &sides[1], nsides - 1, &opts, &out, &e);
	if (ret == -EINVAL)
		refusal(rs, 400, &e);
	else if (ret == -ENODATA)
		refusal(rs, 409, &e);
	else if (ret)
		bb_http_error(rs, 500, "internal", NULL, "%s",
			      e.msg[0] ? e.msg : strerror(-ret));
	else
		bb_http_json(rs, 200, out);
out:
	json_object_put(e.fields);
	for (size_t i = 0; i <= loaded && i < n; i++) {
		json_object_put(jobs[i].job);
		json_object_put(jobs[i].runs);
	}
}
