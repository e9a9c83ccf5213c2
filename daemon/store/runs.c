// SPDX-License-Identifier: GPL-2.0-only
/* runs.c - runs: results, samples, latency histograms, summary columns. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>


/* The summary columns of a run; has_* false stores NULL. */
struct bb_store_sum {
	bool has_rate, has_lat, has_cpu, has_start, has_dur;
	double iops, bw, cpu_per_io;
	int64_t p50, p99, start_ms, dur_ns;
};

static void bb_store_sum_result(struct bb_store_sum *m,
				const struct bb_result *r)
{
	uint64_t cpu = r->cpu_submit.usr_ns + r->cpu_submit.sys_ns +
		       r->cpu_completion.usr_ns + r->cpu_completion.sys_ns;
	uint64_t bytes = r->io.bytes_read + r->io.bytes_written;

	m->has_dur = true;
	m->dur_ns = (int64_t)r->duration_ns;
	if (r->duration_ns) {
		m->has_rate = true;
		m->iops = bb_result_iops(r);
		m->bw = (double)bytes * 1e9 / (double)r->duration_ns;
	}
	if (r->lat.count) {
		m->has_lat = true;
		m->p50 = (int64_t)bb_hist_percentile(&r->lat, 50);
		m->p99 = (int64_t)bb_hist_percentile(&r->lat, 99);
	}
	if (r->io.ios) {
		m->has_cpu = true;
		m->cpu_per_io = (double)cpu / (double)r->io.ios;
	}
	if (r->start_unix_ms) {
		m->has_start = true;
		m->start_ms = (int64_t)r->start_unix_ms;
	}
}

/* The same from a bb_result_to_json document. */
static void bb_store_sum_json(struct bb_store_sum *m, struct json_object *o)
{
	struct json_object *lat = NULL, *cpu = NULL, *io = NULL;
	double d, ios = 0, cnt = 0, p50, p99;

	json_object_object_get_ex(o, "latency_ns", &lat);
	json_object_object_get_ex(o, "cpu", &cpu);
	json_object_object_get_ex(o, "io", &io);
	if (bb_store_jnum(o, "duration_s", &d) && d >= 0) {
		m->has_dur = true;
		m->dur_ns = (int64_t)(d * 1e9 + 0.5);
	}
	if (m->has_dur && m->dur_ns > 0 && bb_store_jnum(o, "iops", &m->iops) &&
	    bb_store_jnum(o, "bw_bytes_s", &m->bw))
		m->has_rate = true;
	if (bb_store_jnum(lat, "count", &cnt) && cnt > 0 &&
	    bb_store_jnum(lat, "p50", &p50) && bb_store_jnum(lat, "p99", &p99)) {
		m->has_lat = true;
		m->p50 = (int64_t)p50;
		m->p99 = (int64_t)p99;
	}
	if (bb_store_jnum(io, "ios", &ios) && ios > 0 &&
	    bb_store_jnum(cpu, "per_io_ns", &m->cpu_per_io))
		m->has_cpu = true;
	if (bb_store_jnum(o, "start_unix_ms", &d) && d > 0) {
		m->has_start = true;
		m->start_ms = (int64_t)d;
	}
}

static int bb_store_bind_opt_double(sqlite3_stmt *st, int i, bool has,
				    double v)
{
	return has ? sqlite3_bind_double(st, i, v) : sqlite3_bind_null(st, i);
}

static int bb_store_bind_opt_int(sqlite3_stmt *st, int i, bool has,
				 int64_t v)
{
	return has ? sqlite3_bind_int64(st, i, v) : sqlite3_bind_null(st, i);
}

static bool bb_store_run_state_ok(const char *s)
{
	return s && (!strcmp(s, "done") || !strcmp(s, "failed") ||
		     !strcmp(s, "cancelled"));
}

int bb_store_run_insert(struct bb_store *s, const struct bb_store_run *run,
			int64_t *id, char *err, size_t errlen)
{
	const struct bb_result *r = run ? run->r : NULL;
	struct bb_store_sum m = { 0 };
	struct json_object *res = NULL;
	sqlite3_stmt *st;
	char what[96];
	int64_t rid;
	int ret, rc;

	if (!run || !run->variant || !bb_store_run_state_ok(run->state)) {
		bb_store_seterr(err, errlen,
				"a run needs a variant and a state (done, "
				"failed or cancelled)");
		return -EINVAL;
	}
	snprintf(what, sizeof(what), "storing run %u of job %lld", run->seq,
		 (long long)run->job_id);
	if (run->result && !bb_store_json_parse(run->result, &res)) {
		bb_store_seterr(err, errlen, "%s: result is not valid JSON",
				what);
		return -EINVAL;
	}
	if (r)
		bb_store_sum_result(&m, r);
	else if (res && json_object_is_type(res, json_type_object))
		bb_store_sum_json(&m, res);
	json_object_put(res);

	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_RUN_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "iuutitt", run->job_id, run->seq, run->round,
			   run->variant, (int64_t)(run->warmup ? 1 : 0),
			   run->state, run->error);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_double(st, 8, run->metric);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_double(st, 9, m.has_rate, m.iops);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_double(st, 10, m.has_rate, m.bw);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 11, m.has_lat, m.p50);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 12, m.has_lat, m.p99);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_double(st, 13, m.has_cpu, m.cpu_per_io);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 14, m.has_start, m.start_ms);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 15, m.has_dur, m.dur_ns);
	if (rc == SQLITE_OK)
		rc = bb_store_bind_opt_int(st, 16, run->device_id > 0,
					   run->device_id);
	if (rc == SQLITE_OK)
		rc = run->result ? sqlite3_bind_text(st, 17, run->result, -1,
						     SQLITE_STATIC)
				 : sqlite3_bind_null(st, 17);
	ret = bb_store_step_done(s, st, rc, err, errlen, what);
	if (ret) {
		if (ret == -ENOENT)
			bb_store_seterr(err, errlen,
					"%s: no such job (or device %lld)",
					what, (long long)run->device_id);
		else if (ret == -EEXIST)
			bb_store_seterr(err, errlen,
					"%s: the job already has a run %u",
					what, run->seq);
		goto out;
	}
	rid = sqlite3_last_insert_rowid(s->db);
	for (unsigned i = 0; r && i < r->nsamples; i++) {
		const struct bb_sample *x = &r->samples[i];

		ret = bb_store_q(s, Q_SAMPLE_INSERT, &st, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_step_done(s, st,
					 bb_store_bind(st, "iiii", rid,
						       (int64_t)x->t_ms,
						       (int64_t)x->ios,
						       (int64_t)x->bytes),
					 err, errlen, what);
		if (ret)
			goto out;
	}
	for (unsigned b = 0; r && b < BB_HIST_NBUCKETS; b++) {
		if (!r->lat.buckets[b])
			continue;
		ret = bb_store_q(s, Q_HIST_INSERT, &st, err, errlen);
		if (ret)
			goto out;
		ret = bb_store_step_done(s, st,
					 bb_store_bind(st, "iii", rid, (int64_t)b,
						       (int64_t)r->lat.buckets[b]),
					 err, errlen, what);
		if (ret)
			goto out;
	}
	ret = bb_store_q(s, Q_JOB_RUNS_DONE, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st, bb_store_bind(st, "i", run->job_id),
				 err, errlen, what);
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
	if (!ret && id)
		*id = rid;
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}


static int bb_store_samples_json(struct bb_store *s, int64_t run_id,
				 struct json_object **out, char *err,
				 size_t errlen)
{
	struct json_object *arr = json_object_new_array();
	sqlite3_stmt *st;
	int ret, rc;

	ret = bb_store_q(s, Q_SAMPLES_OF_RUN, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", run_id);
	while (bb_store_next(st, &rc)) {
		struct json_object *x = json_object_new_object();

		json_object_object_add(x, "t_ms", bb_store_col_int(st, 0));
		json_object_object_add(x, "ios", bb_store_col_int(st, 1));
		json_object_object_add(x, "bytes", bb_store_col_int(st, 2));
		json_object_array_add(arr, x);
	}
	if (rc != SQLITE_DONE)
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the samples of run %lld",
				    (long long)run_id);
out:
	if (ret) {
		json_object_put(arr);
		arr = NULL;
	}
	*out = arr;
	return ret;
}

int bb_store_job_runs(struct bb_store *s, int64_t id, bool with_samples,
		      struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *runs;
	char state[16];
	sqlite3_stmt *st;
	int ret, rc;

	*out = NULL;
	doc = json_object_new_object();
	json_object_object_add(doc, "job_id", json_object_new_int64(id));
	runs = json_object_new_array();
	json_object_object_add(doc, "runs", runs);
	bb_store_lock(s);
	ret = bb_store_begin_read(s, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_state_locked(s, id, state, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_RUNS_OF_JOB, &st, err, errlen);
	if (ret)
		goto out;
	rc = bb_store_bind(st, "i", id);
	while (bb_store_next(st, &rc)) {
		struct json_object *r = json_object_new_object(), *smp;

		json_object_array_add(runs, r);
		json_object_object_add(r, "id", bb_store_col_int(st, 0));
		json_object_object_add(r, "seq", bb_store_col_int(st, 1));
		json_object_object_add(r, "round", bb_store_col_int(st, 2));
		json_object_object_add(r, "variant", bb_store_col_text(st, 3));
		json_object_object_add(r, "warmup",
			json_object_new_boolean(sqlite3_column_int(st, 4)));
		json_object_object_add(r, "state", bb_store_col_text(st, 5));
		json_object_object_add(r, "error", bb_store_col_text(st, 6));
		json_object_object_add(r, "metric", bb_store_col_double(st, 7));
		json_object_object_add(r, "iops", bb_store_col_double(st, 8));
		json_object_object_add(r, "bw_bytes_s",
				       bb_store_col_double(st, 9));
		json_object_object_add(r, "lat_p50_ns", bb_store_col_int(st, 10));
		json_object_object_add(r, "lat_p99_ns", bb_store_col_int(st, 11));
		json_object_object_add(r, "cpu_per_io_ns",
				       bb_store_col_double(st, 12));
		json_object_object_add(r, "started", bb_store_col_time(st, 13));
		json_object_object_add(r, "duration_ns",
				       bb_store_col_int(st, 14));
		json_object_object_add(r, "device_id",
				       bb_store_col_int(st, 15));
		json_object_object_add(r, "result", bb_store_col_json(st, 16));
		if (with_samples) {
			ret = bb_store_samples_json(s,
						    sqlite3_column_int64(st, 0),
						    &smp, err, errlen);
			if (ret)
				goto out;
			json_object_object_add(r, "samples", smp);
		}
	}
	if (rc != SQLITE_DONE) {
		ret = bb_store_fail(s, rc, err, errlen,
				    "reading the runs of job %lld",
				    (long long)id);
		goto out;
	}
	*out = doc;
	doc = NULL;
out:
	bb_store_rollback(s);
	bb_store_unlock(s);
	json_object_put(doc);
	return ret;
}
