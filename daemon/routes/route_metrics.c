// SPDX-License-Identifier: GPL-2.0-only
/* route_metrics.c - GET /metrics: Prometheus text exposition format
 * 0.0.4 (HELP and TYPE for every family, label values escaped). */
#include "routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const bb_metrics_states[] = {
	BB_JOB_QUEUED, BB_JOB_RUNNING, BB_JOB_DONE,
	BB_JOB_FAILED, BB_JOB_CANCELLED, BB_JOB_INTERRUPTED,
};

/* A label value: backslash, double quote and newline escaped. */
static void bb_metrics_label(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* The store's counts, at most BB_HTTP_METRICS_TTL_NS old: one scrape in
 * a second counts, the others (and the ones waiting on the lock meanwhile)
 * share its answer.  *out gets a reference. */
static int bb_metrics_counts(struct bb_http_ctx *ctx, struct json_object **out,
			     char *err, size_t errlen)
{
	uint64_t now = bb_now_ns();
	int ret = 0;

	pthread_mutex_lock(&ctx->metrics_lock);
	if (!ctx->metrics || now - ctx->metrics_ns >= BB_HTTP_METRICS_TTL_NS) {
		struct json_object *m = NULL;

		ret = bb_store_metrics(ctx->store, &m, err, errlen);
		if (!ret) {
			json_object_put(ctx->metrics);
			ctx->metrics = m;
			ctx->metrics_ns = bb_now_ns();
		}
	}
	*out = ret ? NULL : json_object_get(ctx->metrics);
	pthread_mutex_unlock(&ctx->metrics_lock);
	return ret;
}

void bb_route_metrics(const struct bb_route_req *r,
		      struct bb_http_response *rs)
{
	struct json_object *m = NULL, *by = NULL, *v, *last = NULL;
	char err[512] = "", *buf = NULL;
	size_t len = 0;
	FILE *f;
	int ret;

	ret = bb_metrics_counts(r->ctx, &m, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret == -ENOENT ? -EIO : ret, 0, err);
		return;
	}
	f = open_memstream(&buf, &len);
	if (!f) {
		bb_http_error(rs, 500, "internal", NULL, "out of memory");
		goto out;
	}
	json_object_object_get_ex(m, "jobs_by_state", &by);
	fputs("# HELP biobench_jobs Jobs in the store by state.\n"
	      "# TYPE biobench_jobs gauge\n", f);
	for (size_t i = 0; i < bb_array_size(bb_metrics_states); i++) {
		int64_t n = 0;

		if (by && json_object_object_get_ex(by, bb_metrics_states[i],
						    &v))
			n = json_object_get_int64(v);
		fprintf(f, "biobench_jobs{state=\"%s\"} %lld\n",
			bb_metrics_states[i], (long long)n);
	}
	fprintf(f, "# HELP biobench_runs_total Runs stored (all jobs, "
		"warm-ups included).\n"
		"# TYPE biobench_runs_total counter\n"
		"biobench_runs_total %lld\n",
		(long long)(json_object_object_get_ex(m, "runs_total", &v)
				    ? json_object_get_int64(v) : 0));
	fputs("# HELP biobench_last_iops IOPS of the newest finished run "
	      "per target.\n"
	      "# TYPE biobench_last_iops gauge\n", f);
	if (json_object_object_get_ex(m, "last_iops", &last) &&
	    json_object_is_type(last, json_type_array)) {
		for (size_t i = 0; i < json_object_array_length(last); i++) {
			struct json_object *e =
				json_object_array_get_idx(last, i), *t, *io;

			if (!json_object_object_get_ex(e, "target", &t) ||
			    !json_object_object_get_ex(e, "iops", &io))
				continue;
			fputs("biobench_last_iops{target=\"", f);
			bb_metrics_label(f, json_object_get_string(t));
			fprintf(f, "\"} %.17g\n", json_object_get_double(io));
		}
	}
	fprintf(f, "# HELP biobench_uptime_seconds Seconds since the daemon "
		"started.\n"
		"# TYPE biobench_uptime_seconds gauge\n"
		"biobench_uptime_seconds %.3f\n"
		"# HELP biobench_up Whether the daemon answers (always 1).\n"
		"# TYPE biobench_up gauge\n"
		"biobench_up 1\n", bb_route_uptime_s(r->ctx));
	if (fclose(f) || !buf) {
		free(buf);
		bb_http_error(rs, 500, "internal", NULL, "out of memory");
		goto out;
	}
	rs->status = 200;
	rs->content_type = "text/plain; version=0.0.4; charset=utf-8";
	rs->body = buf;
	rs->len = len;
out:
	json_object_put(m);
}
