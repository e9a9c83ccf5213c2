// SPDX-License-Identifier: GPL-2.0-only
/* route_compare_jobs.c - GET /api/v1/compare?base=ID&with=ID[&with=ID...]
 * [&variant=NAME][&allow_different_workload=1]: each variant of the
 * other jobs against the same-named variant of the base job, as
 * independent samples, with what differs between the jobs
 * (core/include/biobench/jobcompare.h).  `with` may also list ids
 * separated by commas. */
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

/* The ids of every `with` argument (repeated, or comma-separated). */
static int with_args(const struct bb_route_req *r, struct bb_http_response *rs,
		     int64_t base, int64_t *ids, size_t *n)
{
	const struct bb_http_request *rq = r->rq;

	*n = 0;
	for (unsigned i = 0; i < rq->nargs && i < BB_HTTP_MAX_ARGS; i++) {
		const char *s = rq->args[i].value ? rq->args[i].value : "";

		if (!rq->args[i].key || strcmp(rq->args[i].key, "with"))
			continue;
		for (;;) {
			size_t len = strcspn(s, ",");
			int64_t id;

			if (id_arg(rs, "with", s, len, &id))
				return -EINVAL;
			if (*n == BB_JOBCMP_MAX_WITH) {
				bb_http_error(rs, 400, "invalid_argument", "with",
					      "with: at most %d jobs to compare "
					      "with the base",
					      BB_JOBCMP_MAX_WITH);
				return -EINVAL;
			}
			if (id == base) {
				bb_http_error(rs, 400, "invalid_argument", "with",
					      "with: job %" PRId64 " is the base",
					      id);
				return -EINVAL;
			}
			for (size_t k = 0; k < *n; k++)
				if (ids[k] == id) {
					bb_http_error(rs, 400, "invalid_argument",
						      "with",
						      "with: job %" PRId64
						      " is given twice",
						      id);
					return -EINVAL;
				}
			ids[(*n)++] = id;
			if (!s[len])
				break;
			s += len + 1;
		}
	}
	if (!*n) {
		bb_http_error(rs, 400, "invalid_argument", "with",
			      "with: missing (the job(s) to compare with the "
			      "base: with=ID, repeated for more)");
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
	const char *base_s = bb_http_arg(r->rq, "base");
	const char *variant = bb_http_arg(r->rq, "variant");
	const char *allow = bb_http_arg(r->rq, "allow_different_workload");
	struct bb_jobcmp_job base = { 0 }, with[BB_JOBCMP_MAX_WITH];
	struct bb_jobcmp_opts opts = { 0 };
	struct bb_jobcmp_error e;
	struct json_object *out = NULL;
	int64_t base_id, ids[BB_JOBCMP_MAX_WITH];
	size_t n = 0, loaded = 0;
	int ret;

	memset(with, 0, sizeof(with));
	memset(&e, 0, sizeof(e));
	if (!base_s) {
		bb_http_error(rs, 400, "invalid_argument", "base",
			      "base: missing (the job to compare the others "
			      "with: base=ID)");
		return;
	}
	if (id_arg(rs, "base", base_s, strlen(base_s), &base_id) ||
	    with_args(r, rs, base_id, ids, &n))
		return;
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
	if (load(r, rs, base_id, &base))
		goto out;
	for (loaded = 0; loaded < n; loaded++)
		if (load(r, rs, ids[loaded], &with[loaded]))
			goto out;
	ret = bb_jobcmp(&base, with, n, &opts, &out, &e);
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
	json_object_put(base.job);
	json_object_put(base.runs);
	for (size_t i = 0; i <= loaded && i < n; i++) {
		json_object_put(with[i].job);
		json_object_put(with[i].runs);
	}
}
