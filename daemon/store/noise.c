// SPDX-License-Identifier: GPL-2.0-only
/* noise.c - a host's noise floor from its A/A jobs. */
#include "store_int.h"

#include <errno.h>
#include <math.h>

/* The newest noise floor of a host, target and metric, or NULL. */
int bb_store_noise_locked(struct bb_store *s, int64_t host_id,
				 const char *target, const char *metric,
				 struct json_object **out, char *err,
				 size_t errlen)
{
	sqlite3_stmt *st;
	int ret, rc;

	*out = NULL;
	if (!host_id || !target || !metric)
		return 0;
	ret = bb_store_q(s, Q_NOISE_GET, &st, err, errlen);
	if (ret)
		return ret;
	rc = bb_store_bind(st, "itt", host_id, target, metric);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return bb_store_fail(s, rc, err, errlen,
				     "reading the noise floor of host %lld",
				     (long long)host_id);
	*out = json_object_new_object();
	json_object_object_add(*out, "job_id",
			       sqlite3_column_type(st, 0) == SQLITE_NULL ? NULL :
			       json_object_new_int64(sqlite3_column_int64(st, 0)));
	json_object_object_add(*out, "target", json_object_new_string(target));
	json_object_object_add(*out, "metric", json_object_new_string(metric));
	json_object_object_add(*out, "pairs",
			       json_object_new_int64(sqlite3_column_int64(st, 1)));
	json_object_object_add(*out, "log_sd",
			       json_object_new_double(sqlite3_column_double(st, 2)));
	json_object_object_add(*out, "ci_half",
			       sqlite3_column_type(st, 3) == SQLITE_NULL ? NULL :
			       json_object_new_double(sqlite3_column_double(st, 3)));
	json_object_object_add(*out, "measured",
			       bb_store_time_json(sqlite3_column_int64(st, 4)));
	return 0;
}



int bb_store_host_noise_add(struct bb_store *s, int64_t host_id,
			    int64_t job_id, const char *target,
			    const char *metric, unsigned pairs, double log_sd,
			    double ci_half, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	int ret;

	if (!host_id || !target || !metric || pairs < 2 || !(log_sd >= 0) ||
	    !isfinite(log_sd)) {
		bb_store_seterr(err, errlen, "noise floor: bad argument");
		return -EINVAL;
	}
	bb_store_lock(s);
	ret = bb_store_begin(s, false, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_q(s, Q_NOISE_INSERT, &st, err, errlen);
	if (ret)
		goto out;
	ret = bb_store_step_done(s, st,
				 bb_store_bind(st, "iIttuddi", host_id, job_id,
					       target, metric, pairs, log_sd,
					       isfinite(ci_half) ? ci_half : 0.0,
					       bb_store_now_ms()),
				 err, errlen, "storing the noise floor");
	if (ret)
		goto out;
	ret = bb_store_commit(s, err, errlen);
out:
	if (ret)
		bb_store_rollback(s);
	bb_store_unlock(s);
	return ret;
}
