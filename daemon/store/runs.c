// SPDX-License-Identifier: GPL-2.0-only
/* runs.c - runs: a run's row with its summary columns (iops, bandwidth,
 * p50/p99, CPU per I/O: from the result, else from its JSON, else NULL),
 * its per-second samples and the non-zero buckets of its latency
 * histogram, stored in one transaction; and the runs of a job. */
#include "store_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct bb_query q_run_insert = BB_INSERT_ID(
	"INSERT INTO runs (job_id, seq, round, variant, warmup, state, error,"
	" metric, iops, bw_bytes_s, lat_p50_ns, lat_p99_ns, cpu_per_io_ns,"
	" started_ms, duration_ns, device_id, result)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
	" ?15, ?16, ?17)",
	"storing a run");
/* a repeated t_ms (should not happen) adds up instead of failing the
 * whole run */
static const struct bb_query q_sample_insert = BB_STATEMENT(
	"INSERT INTO samples (run_id, t_ms, ios, bytes) VALUES (?1, ?2, ?3, ?4)"
	" ON CONFLICT (run_id, t_ms) DO UPDATE"
	" SET ios = samples.ios + excluded.ios,"
	" bytes = samples.bytes + excluded.bytes",
	"storing a sample");
static const struct bb_query q_hist_insert = BB_STATEMENT(
	"INSERT INTO lat_hist (run_id, bucket, count) VALUES (?1, ?2, ?3)",
	"storing a histogram");
/* runs_done counts the runs that finished, not a failed or cancelled one */
static const struct bb_query q_job_runs_done = BB_STATEMENT(
	"UPDATE jobs SET runs_done = runs_done + 1 WHERE id = ?1 AND ?2 = 'done'",
	"counting a run");

/* {"id","seq",...,"result"}: a run of the job's runs document */
static const struct bb_col bb_run_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "seq", BB_COL_INT64, NULL },
	{ "round", BB_COL_INT64, NULL },
	{ "variant", BB_COL_TEXT, NULL },
	{ "warmup", BB_COL_BOOL, NULL },
	{ "state", BB_COL_TEXT, NULL },
	{ "error", BB_COL_TEXT, NULL },
	{ "metric", BB_COL_DOUBLE, NULL },
	{ "iops", BB_COL_DOUBLE, NULL },
	{ "bw_bytes_s", BB_COL_DOUBLE, NULL },
	{ "lat_p50_ns", BB_COL_INT64, NULL },
	{ "lat_p99_ns", BB_COL_INT64, NULL },
	{ "cpu_per_io_ns", BB_COL_DOUBLE, NULL },
	{ "started", BB_COL_TIME, "started_ms" },
	{ "duration_ns", BB_COL_INT64, NULL },
	{ "device_id", BB_COL_INT64, NULL },
	{ "result", BB_COL_JSON, NULL },
	{ "discarded", BB_COL_TEXT, NULL },
};
static const struct bb_query q_runs_of_job = BB_SELECT(bb_run_cols,
	"FROM runs WHERE job_id = ?1 ORDER BY seq",
	"reading the runs of a job");

static const struct bb_col bb_sample_cols[] = {
	{ "t_ms", BB_COL_INT64, NULL },
	{ "ios", BB_COL_INT64, NULL },
	{ "bytes", BB_COL_INT64, NULL },
};
static const struct bb_query q_samples_of_run = BB_SELECT(bb_sample_cols,
	"FROM samples WHERE run_id = ?1 ORDER BY t_ms",
	"reading the samples of a run");

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

static bool bb_store_run_state_ok(const char *s)
{
	return s && (!strcmp(s, "done") || !strcmp(s, "failed") ||
		     !strcmp(s, "cancelled"));
}

/* The samples and the non-zero histogram buckets of run rid. */
static int bb_store_run_series(struct bb_db_op *op, int64_t rid,
			       const struct bb_result *r)
{
	int ret = 0;

	for (unsigned i = 0; !ret && i < r->nsamples; i++) {
		const struct bb_sample *x = &r->samples[i];

		ret = bb_db_run(op, &q_sample_insert, NULL, "iiii", rid,
				(int64_t)x->t_ms, (int64_t)x->ios,
				(int64_t)x->bytes);
	}
	for (unsigned b = 0; !ret && b < BB_HIST_NBUCKETS; b++)
		if (r->lat.buckets[b])
			ret = bb_db_run(op, &q_hist_insert, NULL, "iii", rid,
					(int64_t)b,
					(int64_t)r->lat.buckets[b]);
	return ret;
}

static int bb_store_run_insert_once(struct bb_store *s,
				    const struct bb_store_run *run,
				    int64_t *id, char *err, size_t errlen)
{
	const struct bb_result *r = run ? run->r : NULL;
	struct bb_store_sum m = { 0 };
	struct json_object *res = NULL;
	struct bb_db_op op;
	char what[96];
	int64_t rid = 0;
	int ret;

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

	ret = bb_db_begin(&op, s->db, BB_TX_WRITE, err, errlen);
	if (ret)
		goto out;
	bb_db_what(&op, "%s", what);
	{
		const struct bb_val v[] = {
			bb_val_int(run->job_id),
			bb_val_int(run->seq),
			bb_val_int(run->round),
			bb_val_text(run->variant),
			bb_val_int(run->warmup ? 1 : 0),
			bb_val_text(run->state),
			bb_val_text(run->error),
			bb_val_double(run->metric),
			bb_val_opt_double(m.has_rate, m.iops),
			bb_val_opt_double(m.has_rate, m.bw),
			bb_val_opt_int(m.has_lat, m.p50),
			bb_val_opt_int(m.has_lat, m.p99),
			bb_val_opt_double(m.has_cpu, m.cpu_per_io),
			bb_val_opt_int(m.has_start, m.start_ms),
			bb_val_opt_int(m.has_dur, m.dur_ns),
			bb_val_opt_int(run->device_id > 0, run->device_id),
			bb_val_text(run->result),
		};

		ret = bb_db_run_vals(&op, &q_run_insert, v, bb_array_size(v),
				     &rid);
	}
	if (ret == -ENOENT)
		bb_db_err(&op, ret, "%s: no such job (or device %lld)", what,
			  (long long)run->device_id);
	else if (ret == -EEXIST)
		bb_db_err(&op, ret, "%s: the job already has a run %u", what,
			  run->seq);
	if (!ret && r)
		ret = bb_store_run_series(&op, rid, r);
	if (!ret)
		ret = bb_db_run(&op, &q_job_runs_done, NULL, "it", run->job_id,
				run->state);
	if (!ret)
		ret = bb_store_group_touch(&op, run->job_id);
out:
	ret = bb_db_end(&op, ret);
	if (!ret && id)
		*id = rid;
	return ret;
}

int bb_store_run_insert(struct bb_store *s, const struct bb_store_run *run,
			int64_t *id, char *err, size_t errlen)
{
	int64_t until = bb_store_lease_until(s);
	bool lost = false;
	int ret;

	/* a daemon's run is not lost to a shared store restarting: tried
	 * again while the connection is lost, within the lease */
	for (;;) {
		ret = bb_store_run_insert_once(s, run, id, err, errlen);
		/* the commit went through, its answer was lost */
		if (ret == -EEXIST && lost)
			return 0;
		if (!bb_store_retry(s, ret, until))
			return ret;
		lost = true;
	}
}

int bb_store_job_runs(struct bb_store *s, int64_t id, bool with_samples,
		      struct json_object **out, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *runs, *run, *smp;
	struct bb_db_rows r;
	struct bb_db_op op;
	char state[16];
	int ret;

	*out = NULL;
	doc = json_object_new_object();
	json_object_object_add(doc, "job_id", json_object_new_int64(id));
	runs = json_object_new_array();
	json_object_object_add(doc, "runs", runs);
	ret = bb_db_begin(&op, s->db, BB_TX_READ, err, errlen);
	if (ret)
		goto out;
	/* -ENOENT for no such job (a job without runs has "runs": []) */
	ret = bb_store_state_read(&op, id, state);
	if (ret)
		goto out;
	bb_db_what(&op, "reading the runs of job %lld", (long long)id);
	ret = bb_db_query(&r, &op, &q_runs_of_job, "i", id);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		run = bb_db_json(&r);
		json_object_array_add(runs, run);
		ret = 0;
		if (with_samples) {
			ret = bb_db_rows_json(&op, &q_samples_of_run, &smp, "i",
					      bb_db_int(&r, "id"));
			json_object_object_add(run, "samples", smp);
		}
	}
	if (!ret) {
		*out = doc;
		doc = NULL;
	}
out:
	json_object_put(doc);
	return bb_db_end(&op, ret);
}
