// SPDX-License-Identifier: GPL-2.0-only
/* route_metrics.c - GET /metrics: Prometheus text exposition format
 * 0.0.4 (HELP and TYPE for every family).  Names follow Prometheus'
 * conventions (biobench_ prefix, base units, _total on counters), and no
 * label takes a value from the store: the series are the same few
 * whatever the number of jobs or targets.  Every series carries host,
 * this daemon's host_name, so that one Prometheus scraping a fleet tells
 * its daemons apart (the store's counts are the shared store's: every
 * daemon of a fleet reports the same).  The store's counts come from a
 * cache refreshed at most once a second (BB_HTTP_METRICS_TTL_NS). */
#include "routes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const char *const bb_metrics_states[] = {
	BB_JOB_QUEUED, BB_JOB_RUNNING, BB_JOB_DONE,
	BB_JOB_FAILED, BB_JOB_CANCELLED, BB_JOB_INTERRUPTED,
	BB_JOB_REBOOTING,
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

static void bb_metrics_family(FILE *f, const char *name, const char *type,
			      const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A series' name and labels up to its value: name{host="H"} or, with a
 * second label, name{host="H",key="value"}, and the space. */
static void bb_metrics_series(FILE *f, const char *name, const char *host,
			      const char *key, const char *value)
{
	fprintf(f, "%s{host=\"", name);
	bb_metrics_label(f, host);
	fputc('"', f);
	if (key) {
		fprintf(f, ",%s=\"", key);
		bb_metrics_label(f, value);
		fputc('"', f);
	}
	fputs("} ", f);
}

void bb_route_metrics(const struct bb_route_req *r,
		      struct bb_http_response *rs)
{
	struct bb_http_response scratch = { 0 };
	struct json_object *m = NULL, *by = NULL, *v;
	char err[512] = "", *buf = NULL;
	int64_t running[BB_DCONFIG_MAX_PARALLEL];
	double up_s = bb_route_uptime_s(r->ctx);
	const char *host = r->cfg->host_name;
	bool store_ok;
	size_t len = 0;
	FILE *f;
	int ret;

	ret = bb_metrics_counts(r->ctx, &m, err, sizeof(err));
	if (ret) {
		bb_route_store_error(rs, ret == -ENOENT ? -EIO : ret, 0, err);
		return;
	}
	store_ok = !bb_route_store_check(r, &scratch);
	bb_http_response_free(&scratch);
	f = open_memstream(&buf, &len);
	if (!f) {
		bb_http_error(rs, 500, "internal", NULL, "out of memory");
		goto out;
	}
	bb_metrics_family(f, "biobench_build_info", "gauge",
			  "The daemon's version (always 1).");
	bb_metrics_series(f, "biobench_build_info", host, "version",
			  r->ctx->version ? r->ctx->version : "");
	fputs("1\n", f);
	json_object_object_get_ex(m, "jobs_by_state", &by);
	bb_metrics_family(f, "biobench_jobs", "gauge",
			  "Jobs in the store by state (a shared store's: "
			  "every daemon of a fleet counts the same jobs).");
	for (size_t i = 0; i < bb_array_size(bb_metrics_states); i++) {
		int64_t n = 0;

		if (by && json_object_object_get_ex(by, bb_metrics_states[i],
						    &v))
			n = json_object_get_int64(v);
		bb_metrics_series(f, "biobench_jobs", host, "state",
				  bb_metrics_states[i]);
		fprintf(f, "%lld\n", (long long)n);
	}
	bb_metrics_family(f, "biobench_jobs_queued_limit", "gauge",
			  "Jobs that may wait in the queue (max_queued_jobs).");
	bb_metrics_series(f, "biobench_jobs_queued_limit", host, NULL, NULL);
	fprintf(f, "%u\n", r->cfg->max_queued_jobs);
	bb_metrics_family(f, "biobench_runs_total", "counter",
			  "Runs stored (all jobs, warm-ups included; a "
			  "shared store's, as biobench_jobs).");
	bb_metrics_series(f, "biobench_runs_total", host, NULL, NULL);
	fprintf(f, "%lld\n",
		(long long)(json_object_object_get_ex(m, "runs_total", &v)
				    ? json_object_get_int64(v) : 0));
	bb_metrics_family(f, "biobench_running_jobs", "gauge",
			  "Jobs this daemon runs now (up to "
			  "max_parallel_jobs).");
	bb_metrics_series(f, "biobench_running_jobs", host, NULL, NULL);
	fprintf(f, "%zu\n", r->ctx->sched ?
		bb_sched_running_all(r->ctx->sched, running,
				     bb_array_size(running)) : 0);
	bb_metrics_family(f, "biobench_store_up", "gauge",
			  "Whether the store keeps data: its file is the one "
			  "opened and no write failed lately (see "
			  "/api/v1/health).");
	bb_metrics_series(f, "biobench_store_up", host, NULL, NULL);
	fprintf(f, "%d\n", store_ok ? 1 : 0);
	bb_metrics_family(f, "biobench_start_time_seconds", "gauge",
			  "Start time of the daemon since the Unix epoch.");
	bb_metrics_series(f, "biobench_start_time_seconds", host, NULL, NULL);
	fprintf(f, "%.3f\n",
		(double)time(NULL) - up_s);
	bb_metrics_family(f, "biobench_uptime_seconds", "gauge",
			  "Seconds since the daemon started.");
	bb_metrics_series(f, "biobench_uptime_seconds", host, NULL, NULL);
	fprintf(f, "%.3f\n", up_s);
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
