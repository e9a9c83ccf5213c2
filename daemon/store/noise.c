// SPDX-License-Identifier: GPL-2.0-only
/* noise.c - a host's noise floor: the spread of the pairs of its A/A
 * jobs, per target and metric; the newest one goes next to a verdict. */
#include "store_int.h"

#include <errno.h>
#include <math.h>

static const struct bb_query q_noise_insert = BB_STATEMENT(
	"INSERT INTO host_noise (host_id, job_id, target, metric, pairs,"
	" log_sd, ci_half, created_ms)"
	" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	"storing the noise floor");

/* {"job_id","target","metric","pairs","log_sd","ci_half","measured"} */
static const struct bb_col bb_noise_cols[] = {
	{ "job_id", BB_COL_INT64, NULL },
	{ "target", BB_COL_TEXT, NULL },
	{ "metric", BB_COL_TEXT, NULL },
	{ "pairs", BB_COL_INT64, NULL },
	{ "log_sd", BB_COL_DOUBLE, NULL },
	{ "ci_half", BB_COL_DOUBLE, NULL },
	{ "measured", BB_COL_TIME, "created_ms" },
};
static const struct bb_query q_noise_get = BB_SELECT(bb_noise_cols,
	"FROM host_noise WHERE host_id = ?1 AND target = ?2 AND metric = ?3"
	" ORDER BY id DESC LIMIT 1",
	"reading the noise floor");

int bb_store_noise_json(struct bb_db_op *op, int64_t host_id,
			const char *target, const char *metric,
			struct json_object **out)
{
	struct bb_db_rows r;
	int ret;

	*out = NULL;
	if (!host_id || !target || !metric)
		return 0;
	ret = bb_db_row(&r, op, &q_noise_get, "itt", host_id, target, metric);
	if (ret <= 0)
		return ret;
	*out = bb_db_json(&r);
	return 0;
}

int bb_store_host_noise_add(struct bb_store *s, int64_t host_id,
			    int64_t job_id, const char *target,
			    const char *metric, unsigned pairs, double log_sd,
			    double ci_half, char *err, size_t errlen)
{
	struct bb_db_op op;
	int ret;

	if (!host_id || !target || !metric || pairs < 2 || !(log_sd >= 0) ||
	    !isfinite(log_sd)) {
		bb_store_seterr(err, errlen, "noise floor: bad argument");
		return -EINVAL;
	}
	ret = bb_db_begin(&op, s->db, BB_TX_WRITE, err, errlen);
	if (!ret)
		ret = bb_db_run(&op, &q_noise_insert, NULL, "iIttuddi",
				host_id, job_id, target, metric, pairs, log_sd,
				isfinite(ci_half) ? ci_half : 0.0,
				bb_store_now_ms());
	return bb_db_end(&op, ret);
}
