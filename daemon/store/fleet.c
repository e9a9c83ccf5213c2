// SPDX-License-Identifier: GPL-2.0-only
/* fleet.c - pull scheduling: the daemons' registry (one row per host
 * name: registered at start, last_seen refreshed by the heartbeat), the
 * claim of a queued job with its lease, the lease's renewal and the
 * sweep that interrupts a running job whose lease expired.
 *
 * A claim is one statement that picks the oldest queued job this daemon
 * may run (addressed to it or to any host; not claimed, claimed by this
 * daemon already, or claimed by one whose lease ran out before it
 * started the job) and marks it claimed with a lease.  On PostgreSQL it
 * runs outside a transaction of the store's (autocommit) and so without
 * the advisory write lock every write transaction takes (postgres.c):
 * under that lock the claims would be serialized, and SKIP LOCKED would
 * have nothing to skip.  Without the lock it is still safe: its row is
 * locked by FOR UPDATE (a concurrent claim skips it, a writer holding
 * it is skipped), and it changes only claimed_by and lease_ms of a
 * queued job, which no write transaction reads-then-writes (the queue
 * limit counts states; a job's end and start re-check the state in
 * their UPDATE, the start its claimer too).  sqlite has no row locks:
 * there the claim runs in a write transaction (BEGIN IMMEDIATE), one
 * claim at a time.
 *
 * A cancel asked of a daemon that does not run the job (the job runs on
 * another daemon of the fleet) is a request stored on the job
 * (cancel_requested_ms, _by); the claimer's heartbeat reads it with its
 * job's claim and stops the job as a local cancel does. */
#include "store_int.h"

#include <biobench/jobgroup.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BB_FLEET_LEASE_MSG "lease expired"

/* ---- statements ------------------------------------------------------ */

static const struct bb_query q_daemon_register = BB_STATEMENT(
	"INSERT INTO daemons (name, host, devices, version, pid, started_ms,"
	" last_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, bb_now_ms())"
	" ON CONFLICT (name) DO UPDATE SET host = excluded.host,"
	" devices = excluded.devices, version = excluded.version,"
	" pid = excluded.pid, started_ms = excluded.started_ms,"
	" last_seen_ms = excluded.last_seen_ms, running_job_id = NULL",
	"registering the daemon");
/* last seen and leases on the database's clock (bb_now_ms(), migration
 * 012), never on a host's: a host whose clock runs ahead (or behind)
 * does not take the others' leases for expired (or keep its own) */
static const struct bb_query q_daemon_seen = BB_STATEMENT(
	"UPDATE daemons SET last_seen_ms = bb_now_ms(), running_job_id = ?2"
	" WHERE name = ?1", "storing the daemon's heartbeat");
/* ?2: the lease in ms */
static const struct bb_query q_lease_renew = BB_STATEMENT(
	"UPDATE jobs SET lease_ms = bb_now_ms() + ?2 WHERE claimed_by = ?1"
	" AND state IN ('queued', 'running', 'rebooting')",
	"renewing the leases");

static const struct bb_col bb_claim_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "spec", BB_COL_TEXT, NULL },
};
/* ?1 this daemon, ?2 its lease in ms: a job it may claim (not one it
 * refused: bb_store_job_refuse) */
#define BB_CLAIM_ELIGIBLE \
	"state = 'queued' AND is_group = 0" \
	" AND (for_host IS NULL OR for_host = ?1)" \
	" AND (claimed_by IS NULL OR claimed_by = ?1" \
	" OR lease_ms < bb_now_ms())" \
	" AND NOT EXISTS (SELECT 1 FROM job_refusals r" \
	" WHERE r.job_id = jobs.id AND r.host = ?1)"
#define BB_CLAIM_PICK \
	"SELECT id FROM jobs WHERE " BB_CLAIM_ELIGIBLE " ORDER BY id LIMIT 1"
/* ?3: that one job (the scheduler's choice among the candidates) */
#define BB_CLAIM_PICK_ID \
	"SELECT id FROM jobs WHERE id = ?3 AND " BB_CLAIM_ELIGIBLE
#define BB_CLAIM(pick) \
	"UPDATE jobs SET claimed_by = ?1, lease_ms = bb_now_ms() + ?2" \
	" WHERE id = (" pick \
	") RETURNING id, spec"
static const struct bb_query q_claim_skip_locked = BB_RETURNING(
	bb_claim_cols, BB_CLAIM(BB_CLAIM_PICK " FOR UPDATE SKIP LOCKED"),
	"claiming a queued job");
static const struct bb_query q_claim = BB_RETURNING(bb_claim_cols,
	BB_CLAIM(BB_CLAIM_PICK), "claiming a queued job");
static const struct bb_query q_claim_id_skip_locked = BB_RETURNING(
	bb_claim_cols, BB_CLAIM(BB_CLAIM_PICK_ID " FOR UPDATE SKIP LOCKED"),
	"claiming a queued job");
static const struct bb_query q_claim_id = BB_RETURNING(bb_claim_cols,
	BB_CLAIM(BB_CLAIM_PICK_ID), "claiming a queued job");
/* the candidates: ?1 this daemon, ?2 how many */
static const struct bb_query q_candidates = BB_SELECT(bb_claim_cols,
	"FROM jobs WHERE " BB_CLAIM_ELIGIBLE " ORDER BY id LIMIT ?2",
	"reading the queue");
/* a handle without a daemon: every queued job (a group's parent is
 * never one to run) */
static const struct bb_query q_candidates_any = BB_SELECT(bb_claim_cols,
	"FROM jobs WHERE state = 'queued' AND is_group = 0 ORDER BY id"
	" LIMIT ?1",
	"reading the queue");
static const struct bb_query q_queued_id = BB_SELECT(bb_claim_cols,
	"FROM jobs WHERE id = ?1 AND state = 'queued' AND is_group = 0",
	"reading a queued job");
/* what each daemon runs now (GET /api/v1/hosts: running_jobs) */
static const struct bb_col bb_running_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "claimed_by", BB_COL_TEXT, NULL },
};
static const struct bb_query q_running_claims = BB_SELECT(bb_running_cols,
	"FROM jobs WHERE state = 'running' AND claimed_by IS NOT NULL"
	" ORDER BY id", "listing the running jobs");

static const struct bb_col bb_expired_cols[] = {
	{ "id", BB_COL_INT64, NULL },
	{ "claimed_by", BB_COL_TEXT, NULL },
	{ "over_ms", BB_COL_INT64, "bb_now_ms() - lease_ms" },
};
/* running, claimed by another daemon (?1), the lease over by the
 * database's clock; not a boot job (its host recovers it after its
 * reboot) */
static const struct bb_query q_jobs_expired = BB_SELECT(bb_expired_cols,
	"FROM jobs WHERE state = 'running' AND claimed_by IS NOT NULL"
	" AND claimed_by <> ?1 AND lease_ms < bb_now_ms()"
	" AND id NOT IN (SELECT job_id FROM job_boots) ORDER BY id",
	"finding jobs whose lease expired");
static const struct bb_query q_job_expire = BB_STATEMENT(
	"UPDATE jobs SET state = 'interrupted', finished_ms = ?2, error = ?3"
	" WHERE id = ?1 AND state = 'running' AND lease_ms < bb_now_ms()",
	"interrupting a job whose lease expired");

static const struct bb_col bb_mine_cols[] = {
	{ "state", BB_COL_TEXT, NULL },
	{ "claimed_by", BB_COL_TEXT, NULL },
	{ "cancel_requested_ms", BB_COL_INT64, NULL },
	{ "cancel_requested_by", BB_COL_TEXT, NULL },
};
static const struct bb_query q_job_mine = BB_SELECT(bb_mine_cols,
	"FROM jobs WHERE id = ?1", "reading a job's claim");
/* the first request stays: its time and who was asked */
static const struct bb_query q_cancel_request = BB_STATEMENT(
	"UPDATE jobs SET cancel_requested_ms = coalesce(cancel_requested_ms,"
	" ?2), cancel_requested_by = coalesce(cancel_requested_by, ?3)"
	" WHERE id = ?1 AND state = 'running'",
	"requesting the cancel of a job another daemon runs");

static const struct bb_col bb_name_cols[] = {
	{ "name", BB_COL_TEXT, NULL },
};
static const struct bb_query q_daemon_named = BB_SELECT(bb_name_cols,
	"FROM daemons WHERE name = ?1", "looking the host up");
static const struct bb_query q_daemon_names = BB_SELECT(bb_name_cols,
	"FROM daemons ORDER BY name", "listing the hosts");

static const struct bb_col bb_daemon_cols[] = {
	{ "name", BB_COL_TEXT, NULL },
	{ "version", BB_COL_TEXT, NULL },
	{ "pid", BB_COL_INT64, NULL },
	{ "started", BB_COL_TIME, "started_ms" },
	{ "last_seen", BB_COL_TIME, "last_seen_ms" },
	{ "running_job", BB_COL_INT64, "running_job_id" },
	{ "host", BB_COL_JSON, NULL },
	{ "devices", BB_COL_JSON, NULL },
	/* by the database's clock, as last_seen */
	{ "seen_ago_ms", BB_COL_INT64 | BB_COL_HIDDEN,
	  "bb_now_ms() - last_seen_ms" },
};
static const struct bb_query q_daemons = BB_SELECT(bb_daemon_cols,
	"FROM daemons ORDER BY name", "listing the hosts");

/* ---- identity -------------------------------------------------------- */

int bb_store_set_daemon(struct bb_store *s, const char *name,
			unsigned lease_s, char *err, size_t errlen)
{
	if (!name || !*name || strlen(name) >= sizeof(s->me) || !lease_s) {
		bb_store_seterr(err, errlen, "a daemon needs a host name "
				"(1..%zu bytes) and a lease of 1 s or more",
				sizeof(s->me) - 1);
		return -EINVAL;
	}
	snprintf(s->me, sizeof(s->me), "%s", name);
	s->lease_s = lease_s;
	return 0;
}

int64_t bb_store_lease_until(const struct bb_store *s)
{
	return s->me[0] ? bb_store_now_ms() + bb_store_lease_ms(s) : 0;
}

int64_t bb_store_lease_ms(const struct bb_store *s)
{
	return s->me[0] ? (int64_t)s->lease_s * 1000 : 0;
}

/* ---- the registry ------------------------------------------------------ */

int bb_store_daemon_register(struct bb_store *s, const char *host,
			     const char *devices, const char *version,
			     long pid, char *err, size_t errlen)
{
	struct bb_db_op op;
	int ret;

	if (!s->me[0]) {
		bb_store_seterr(err, errlen, "registering a daemon without a "
				"host name (bb_store_set_daemon)");
		return -EINVAL;
	}
	if ((host && !bb_store_json_parse(host, NULL)) ||
	    (devices && !bb_store_json_parse(devices, NULL))) {
		bb_store_seterr(err, errlen, "daemon %s: host or devices is not "
				"JSON", s->me);
		return -EINVAL;
	}
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (!ret)
		ret = bb_db_run(&op, &q_daemon_register, NULL, "ttttii", s->me,
				host, devices, version ? version : "",
				(int64_t)pid, bb_store_now_ms());
	ret = bb_db_end(&op, ret);
	/* the local knob journal's rows not yet in the shared store */
	if (!ret)
		bb_store_knobs_mirror(s, NULL, 0);
	return ret;
}

int bb_store_daemon_heartbeat(struct bb_store *s, int64_t running_id,
			      char *err, size_t errlen)
{
	int verdict = 0;

	return bb_store_daemon_heartbeat_jobs(s, &running_id,
					      running_id > 0 ? 1 : 0, &verdict,
					      err, errlen);
}

/* Whether the job (one of this daemon's running jobs) is still ours to
 * run: another daemon's sweep may have taken it (this one did not renew
 * in time: stalled, or cut off from the database), or a cancel of it
 * was asked of another daemon.  0, -ESTALE or -ECANCELED, with why. */
static int bb_store_job_still_mine(struct bb_db_op *op, struct bb_store *s,
				   int64_t id, char *why, size_t len)
{
	struct bb_db_rows r;
	int ret = bb_db_row(&r, op, &q_job_mine, "i", id);

	if (ret <= 0)
		return ret;
	if (bb_db_text(&r, "claimed_by") &&
	    strcmp(bb_db_text(&r, "claimed_by"), s->me)) {
		snprintf(why, len, "job %lld is claimed by %s now",
			 (long long)id, bb_db_text(&r, "claimed_by"));
		return -ESTALE;
	}
	if (!strcmp(bb_db_text(&r, "state"), BB_JOB_INTERRUPTED)) {
		snprintf(why, len, "job %lld was interrupted: its lease "
			 "expired", (long long)id);
		return -ESTALE;
	}
	if (!bb_db_null(&r, "cancel_requested_ms")) {
		/* asked of another daemon: ours to stop */
		snprintf(why, len, "job %lld: cancel requested via %s",
			 (long long)id,
			 bb_db_text(&r, "cancel_requested_by")
				 ? bb_db_text(&r, "cancel_requested_by")
				 : "another daemon");
		return -ECANCELED;
	}
	return 0;
}

int bb_store_daemon_heartbeat_jobs(struct bb_store *s, const int64_t *ids,
				   size_t n, int *verdicts, char *err,
				   size_t errlen)
{
	int64_t changed = 0;
	char why[512] = "", first[512] = "";
	int first_verdict = 0;
	struct bb_db_op op;
	int ret;

	for (size_t i = 0; i < n; i++)
		verdicts[i] = 0;
	if (!s->me[0])
		return 0;
	ret = bb_db_begin(&op, s->db, BB_TX_WRITE, err, errlen);
	if (ret)
		goto out;
	/* the registry's running_job: the oldest of them */
	ret = bb_db_run(&op, &q_daemon_seen, &changed, "tI", s->me,
			n ? ids[0] : 0);
	if (!ret && !changed)
		ret = bb_db_err(&op, -ENOENT, "daemon %s is not registered",
				s->me);
	if (!ret)
		ret = bb_db_run(&op, &q_lease_renew, NULL, "ti", s->me,
				bb_store_lease_ms(s));
	for (size_t i = 0; !ret && i < n; i++) {
		ret = bb_store_job_still_mine(&op, s, ids[i], why,
					      sizeof(why));
		if (ret == -ESTALE || ret == -ECANCELED) {
			/* the others' leases are renewed all the same */
			verdicts[i] = ret;
			if (!first_verdict) {
				first_verdict = ret;
				snprintf(first, sizeof(first), "%s", why);
			}
			ret = 0;
		}
	}
out:
	ret = bb_db_end(&op, ret);
	/* the shared store answers: copy what the local knob journal could
	 * not copy before */
	if (!ret)
		bb_store_knobs_mirror(s, NULL, 0);
	/* the beat is stored (the leases renewed) whatever the verdicts */
	if (!ret && first_verdict) {
		bb_store_seterr(err, errlen, "%s", first);
		ret = first_verdict;
	}
	return ret;
}

int bb_store_job_cancel_request(struct bb_store *s, int64_t id,
				const char *who, bool others_only,
				char *owner, size_t ownerlen, char *err,
				size_t errlen)
{
	char state[16], by[256], ev[600];
	struct bb_db_rows r;
	struct bb_db_op op;
	bool again;
	int ret;

	if (owner && ownerlen)
		owner[0] = '\0';
	if (!who || !*who) {
		bb_store_seterr(err, errlen, "a cancel request needs the host "
				"name of the daemon asked");
		return -EINVAL;
	}
	/* the job's row: > 0 when there is one */
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	ret = ret ? ret : bb_db_row(&r, &op, &q_job_mine, "i", id);
	if (!ret)
		ret = bb_db_err(&op, -ENOENT, "no job %lld", (long long)id);
	if (ret < 0)
		goto out;
	/* copied: the row is gone with the next statement */
	snprintf(state, sizeof(state), "%s", bb_db_text(&r, "state"));
	snprintf(by, sizeof(by), "%s", bb_db_text(&r, "claimed_by") ?
		 bb_db_text(&r, "claimed_by") : "");
	again = !bb_db_null(&r, "cancel_requested_ms");
	if (strcmp(state, BB_JOB_RUNNING) || !by[0] ||
	    (others_only && !strcmp(by, who))) {
		ret = bb_db_err(&op, -EALREADY, "job %lld is %s%s%s, not "
				"running on another daemon", (long long)id,
				state, by[0] ? ", claimed by " : "", by);
		goto out;
	}
	ret = bb_db_run(&op, &q_cancel_request, NULL, "iit", id,
			bb_store_now_ms(), who);
	if (!ret && !again) {
		snprintf(ev, sizeof(ev), "cancel requested via %s: host %s "
			 "stops the job at its next heartbeat", who, by);
		ret = bb_store_event_add(&op, id, "info", ev);
	}
	if (!ret && owner && ownerlen)
		snprintf(owner, ownerlen, "%s", by);
out:
	return bb_db_end(&op, ret);
}

/* The registered names, ", "-separated, into buf ("none" when none). */
static int bb_store_daemon_names(struct bb_db_op *op, char *buf, size_t len)
{
	struct bb_db_rows r;
	size_t n = 0;
	int ret;

	buf[0] = '\0';
	ret = bb_db_query(&r, op, &q_daemon_names, "");
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		ret = 0;
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s",
					      n ? ", " : "",
					      bb_db_text(&r, "name"));
	}
	if (!ret && !buf[0])
		snprintf(buf, len, "none");
	return ret;
}

int bb_store_daemon_known(struct bb_db_op *op, const char *name)
{
	struct bb_db_rows r;
	char names[512];
	int ret = bb_db_row(&r, op, &q_daemon_named, "t", name);

	if (ret)
		return ret < 0 ? ret : 0;
	ret = bb_store_daemon_names(op, names, sizeof(names));
	if (ret)
		return ret;
	return bb_db_err(op, -ENXIO, "host: \"%.64s\" is not a registered "
			 "daemon's host name (registered: %s)", name, names);
}

int bb_store_daemons_select(struct bb_db_op *op, struct json_object *sel,
			    const char *target, int64_t seen_ms,
			    char (*hosts)[254], size_t *n)
{
	struct bb_db_rows r;
	char names[1024];
	size_t off = 0;
	int ret;

	*n = 0;
	names[0] = '\0';
	ret = bb_db_query(&r, op, &q_daemons, "");
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		struct json_object *host = bb_db_value(&r, "host");
		struct json_object *devs = bb_db_value(&r, "devices");
		const char *name = bb_db_text(&r, "name");
		int64_t ago_ms = bb_db_int(&r, "seen_ago_ms");
		double ago = (double)ago_ms / 1e3;

		ret = 0;
		if (off < sizeof(names))
			off += (size_t)snprintf(names + off, sizeof(names) - off,
						"%s%s (seen %.0f s ago)",
						off ? ", " : "", name, ago);
		/* a daemon not seen for long would leave its job queued */
		if ((!seen_ms || ago_ms <= seen_ms) &&
		    *n < BB_GROUP_MAX_HOSTS &&
		    bb_group_match(sel, name, host, devs, target))
			snprintf(hosts[(*n)++], 254, "%s", name);
		json_object_put(host);
		json_object_put(devs);
	}
	if (ret || *n)
		return ret;
	return bb_db_err(op, -ENXIO, "hosts: %.300s matches no registered "
			 "daemon seen in the last %lld s (registered: %s)",
			 json_object_to_json_string_ext(sel,
							JSON_C_TO_STRING_PLAIN),
			 (long long)(seen_ms / 1000), names[0] ? names : "none");
}

/* Each host's running_jobs: the ids of the running jobs it claimed. */
static int bb_store_hosts_running(struct bb_db_op *op,
				  struct json_object *hosts)
{
	size_t nh = json_object_array_length(hosts);
	struct bb_db_rows r;
	int ret = bb_db_query(&r, op, &q_running_claims, "");

	while (!ret && (ret = bb_db_next(&r)) > 0) {
		const char *by = bb_db_text(&r, "claimed_by");

		ret = 0;
		for (size_t i = 0; by && i < nh; i++) {
			struct json_object *h = json_object_array_get_idx(hosts,
									  i);
			struct json_object *name, *list;

			if (json_object_object_get_ex(h, "name", &name) &&
			    !strcmp(json_object_get_string(name), by) &&
			    json_object_object_get_ex(h, "running_jobs", &list))
				json_object_array_add(list,
					json_object_new_int64(
						bb_db_int(&r, "id")));
		}
	}
	return ret;
}

int bb_store_hosts_list(struct bb_store *s, struct json_object **out,
			char *err, size_t errlen)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *hosts = json_object_new_array(), *h, *info, *k;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	json_object_object_add(doc, "hosts", hosts);
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_db_query(&r, &op, &q_daemons, "");
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		ret = 0;
		h = bb_db_json(&r);
		json_object_object_add(h, "running_jobs",
				       json_object_new_array());
		/* the kernel at the top: the hosts page's column */
		k = NULL;
		if (json_object_object_get_ex(h, "host", &info) &&
		    json_object_object_get_ex(info, "kernel", &k))
			json_object_get(k);
		json_object_object_add(h, "kernel", k);
		json_object_object_add(h, "seen_s_ago", json_object_new_double(
			(double)bb_db_int(&r, "seen_ago_ms") / 1e3));
		json_object_array_add(hosts, h);
	}
	if (!ret)
		ret = bb_store_hosts_running(&op, hosts);
	if (!ret) {
		*out = doc;
		doc = NULL;
	}
	json_object_put(doc);
	return bb_db_end(&op, ret);
}

/* ---- claims ---------------------------------------------------------- */

int bb_store_job_claim(struct bb_store *s, int64_t *id, char **spec,
		       char *err, size_t errlen)
{
	bool skip = bb_db_skip_locked(s->db);
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret = 0;

	*spec = NULL;
	if (!s->me[0]) {
		bb_store_seterr(err, errlen, "a claim needs the daemon's host "
				"name (bb_store_set_daemon)");
		return -EINVAL;
	}
	/* see the top of this file: no write lock with row locks */
	if (skip)
		bb_db_lock(&op, s->db, err, errlen);
	else
		ret = bb_db_begin(&op, s->db, BB_TX_WRITE, err, errlen);
	if (ret)
		goto out;
	ret = bb_db_row(&r, &op, skip ? &q_claim_skip_locked : &q_claim,
			"ti", s->me, bb_store_lease_ms(s));
	ret = bb_store_row_job(&op, &r, ret, s->me, id, spec);
out:
	ret = bb_db_end(&op, ret);
	if (ret) {
		free(*spec);
		*spec = NULL;
	}
	return ret;
}

int bb_store_jobs_candidates(struct bb_store *s, unsigned max,
			     struct bb_store_queued **out, size_t *n,
			     char *err, size_t errlen)
{
	struct bb_store_queued *q = calloc(max ? max : 1, sizeof(*q));
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*out = NULL;
	*n = 0;
	if (!q)
		return -ENOMEM;
	bb_db_lock(&op, s->db, err, errlen);
	ret = s->me[0] ? bb_db_query(&r, &op, &q_candidates, "tu", s->me, max)
		       : bb_db_query(&r, &op, &q_candidates_any, "u", max);
	while (!ret && (ret = bb_db_next(&r)) > 0 && *n < max) {
		const char *t = bb_db_text(&r, "spec");

		ret = 0;
		q[*n].id = bb_db_int(&r, "id");
		q[*n].spec = strdup(t ? t : "{}");
		if (!q[*n].spec) {
			ret = bb_db_err(&op, -ENOMEM, "out of memory");
			break;
		}
		(*n)++;
	}
	ret = bb_db_end(&op, ret > 0 ? 0 : ret);
	if (ret) {
		bb_store_queued_free(q, *n);
		*n = 0;
		return ret;
	}
	*out = q;
	return 0;
}

void bb_store_queued_free(struct bb_store_queued *q, size_t n)
{
	for (size_t i = 0; q && i < n; i++)
		free(q[i].spec);
	free(q);
}

int bb_store_job_claim_id(struct bb_store *s, int64_t id, char **spec,
			  char *err, size_t errlen)
{
	bool skip = bb_db_skip_locked(s->db);
	int64_t got = 0;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret = 0;

	*spec = NULL;
	/* see the top of this file: no write lock with row locks */
	if (skip || !s->me[0])
		bb_db_lock(&op, s->db, err, errlen);
	else
		ret = bb_db_begin(&op, s->db, BB_TX_WRITE, err, errlen);
	if (ret)
		goto out;
	if (!s->me[0])
		ret = bb_db_row(&r, &op, &q_queued_id, "i", id);
	else
		ret = bb_db_row(&r, &op, skip ? &q_claim_id_skip_locked :
				&q_claim_id, "tii", s->me,
				bb_store_lease_ms(s), id);
	ret = bb_store_row_job(&op, &r, ret, s->me[0] ? s->me : NULL, &got,
			       spec);
out:
	ret = bb_db_end(&op, ret);
	if (ret) {
		free(*spec);
		*spec = NULL;
	}
	return ret;
}

int bb_store_jobs_expire(struct bb_store *s, unsigned *n, char *err,
			 size_t errlen)
{
	struct bb_expired { int64_t id, over; char by[254]; } *ex = NULL;
	int64_t now = bb_store_now_ms();
	size_t nex = 0, cap = 0;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*n = 0;
	if (!s->me[0])
		return 0;
	/* a read first: the write lock only when there is something */
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_db_query(&r, &op, &q_jobs_expired, "t", s->me);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		ret = 0;
		if (nex == cap) {
			struct bb_expired *p;

			cap = cap ? 2 * cap : 4;
			p = realloc(ex, cap * sizeof(*p));
			if (!p) {
				ret = bb_db_err(&op, -ENOMEM, "out of memory");
				break;
			}
			ex = p;
		}
		ex[nex].id = bb_db_int(&r, "id");
		ex[nex].over = bb_db_int(&r, "over_ms");
		snprintf(ex[nex].by, sizeof(ex[nex].by), "%s",
			 bb_db_text(&r, "claimed_by"));
		nex++;
	}
	ret = bb_db_end(&op, ret);
	if (ret || !nex)
		goto out;
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	for (size_t i = 0; !ret && i < nex; i++) {
		char msg[400], ev[512];
		int64_t changed = 0;

		snprintf(msg, sizeof(msg), BB_FLEET_LEASE_MSG ": host %s "
			 "stopped renewing it %.1f s ago (seen by %s); "
			 "finished runs kept", ex[i].by,
			 (double)ex[i].over / 1e3, s->me);
		/* re-checked in the UPDATE: renewed meanwhile, it stays */
		ret = bb_db_run(&op, &q_job_expire, &changed, "iit", ex[i].id,
				now, msg);
		if (ret || !changed)
			continue;
		snprintf(ev, sizeof(ev), "interrupted: %s", msg);
		ret = bb_store_event_add(&op, ex[i].id, "warning", ev);
		if (!ret)
			ret = bb_store_group_touch(&op, ex[i].id);
		if (!ret)
			(*n)++;
	}
	ret = bb_db_end(&op, ret);
	if (ret)
		*n = 0;
out:
	free(ex);
	return ret;
}

/* ---- refusals: a job left for another host ------------------------------ */

static const struct bb_query q_claim_release = BB_STATEMENT(
	"UPDATE jobs SET claimed_by = NULL, lease_ms = NULL WHERE id = ?1"
	" AND state = 'queued' AND is_group = 0 AND for_host IS NULL"
	" AND claimed_by = ?2", "leaving a job for another host");
static const struct bb_query q_refusal_add = BB_STATEMENT(
	"INSERT INTO job_refusals (job_id, host, reason, at_ms)"
	" VALUES (?1, ?2, ?3, ?4) ON CONFLICT (job_id, host) DO UPDATE"
	" SET reason = excluded.reason, at_ms = excluded.at_ms",
	"recording a host's refusal of a job");
static const struct bb_col bb_count_cols[] = {
	{ "n", BB_COL_INT64, "count(*)" },
};
/* the daemons seen within live ms (the database's clock) that have not
 * refused the job */
#define BB_HOSTS_LEFT(job, live) \
	"FROM daemons d WHERE d.last_seen_ms >= bb_now_ms() - " live \
	" AND NOT EXISTS (SELECT 1 FROM job_refusals r" \
	" WHERE r.job_id = " job " AND r.host = d.name)"
static const struct bb_query q_hosts_left = BB_SELECT(bb_count_cols,
	BB_HOSTS_LEFT("?1", "?2"), "counting the hosts left for a job");
static const struct bb_col bb_refusal_cols[] = {
	{ "host", BB_COL_TEXT, NULL },
	{ "reason", BB_COL_TEXT, NULL },
};
static const struct bb_query q_refusals = BB_SELECT(bb_refusal_cols,
	"FROM job_refusals WHERE job_id = ?1 ORDER BY host",
	"reading the hosts' refusals of a job");
static const struct bb_col bb_refusal_doc_cols[] = {
	{ "host", BB_COL_TEXT, NULL },
	{ "reason", BB_COL_TEXT, NULL },
	{ "at", BB_COL_TIME, "at_ms" },
};
static const struct bb_query q_refusals_doc = BB_SELECT(bb_refusal_doc_cols,
	"FROM job_refusals WHERE job_id = ?1 ORDER BY host",
	"reading the hosts' refusals of a job");
/* queued, for any host, claimed by none that may still start it */
#define BB_UNCLAIMED \
	"state = 'queued' AND is_group = 0 AND for_host IS NULL" \
	" AND (claimed_by IS NULL OR lease_ms < bb_now_ms())"
static const struct bb_query q_job_fail_unclaimed = BB_STATEMENT(
	"UPDATE jobs SET state = 'failed', finished_ms = ?2, error = ?3"
	" WHERE id = ?1 AND " BB_UNCLAIMED, "failing a job no host can run");
static const struct bb_col bb_id_cols[] = {
	{ "id", BB_COL_INT64, NULL },
};
/* ?1: live ms */
static const struct bb_query q_jobs_unrunnable = BB_SELECT(bb_id_cols,
	"FROM jobs WHERE " BB_UNCLAIMED
	" AND id IN (SELECT job_id FROM job_refusals)"
	" AND NOT EXISTS (SELECT 1 " BB_HOSTS_LEFT("jobs.id", "?1") ")"
	" ORDER BY id LIMIT 64", "finding jobs no live host can run");

/* The "id" of each row of r (ret: its bb_db_query's), at most max (the
 * others are left for the next sweep). */
static int bb_store_ids_read(struct bb_db_rows *r, int ret, int64_t *ids,
			     size_t max, size_t *n)
{
	*n = 0;
	while (!ret && (ret = bb_db_next(r)) > 0) {
		ret = 0;
		if (*n < max)
			ids[(*n)++] = bb_db_int(r, "id");
	}
	return ret;
}

/* Hosts are live when seen within two of this daemon's leases. */
static int64_t bb_store_live_ms(const struct bb_store *s)
{
	return 2 * (int64_t)s->lease_s * 1000;
}

/* Within op's durable write: job id failed, with every host's reason,
 * when no live host is left that has not refused it (*failed). */
static int bb_store_refused_fail(struct bb_db_op *op, struct bb_store *s,
				 int64_t id, bool *failed)
{
	char msg[2048], ev[2100];
	struct bb_db_rows r;
	int64_t changed = 0;
	size_t off;
	int ret;

	*failed = false;
	ret = bb_db_row(&r, op, &q_hosts_left, "ii", id, bb_store_live_ms(s));
	if (ret < 0)
		return ret;
	if (ret > 0 && bb_db_int(&r, "n") > 0)
		return 0;
	off = (size_t)snprintf(msg, sizeof(msg), "no live host can run it "
			       "(every host seen in the last %lld s refused "
			       "it):", (long long)(bb_store_live_ms(s) / 1000));
	ret = bb_db_query(&r, op, &q_refusals, "i", id);
	while (!ret && (ret = bb_db_next(&r)) > 0) {
		ret = 0;
		if (off < sizeof(msg))
			off += (size_t)snprintf(msg + off, sizeof(msg) - off,
						" %s: %s;",
						bb_db_text(&r, "host"),
						bb_db_text(&r, "reason"));
	}
	if (ret)
		return ret;
	if (off < sizeof(msg) && msg[off - 1] == ';')
		msg[off - 1] = '\0';
	ret = bb_db_run(op, &q_job_fail_unclaimed, &changed, "iit", id,
			bb_store_now_ms(), msg);
	if (ret || !changed)
		return ret;
	snprintf(ev, sizeof(ev), "failed: %s", msg);
	ret = bb_store_event_add(op, id, "warning", ev);
	if (!ret)
		ret = bb_store_group_touch(op, id);
	*failed = !ret;
	return ret;
}

int bb_store_job_refuse(struct bb_store *s, int64_t id, const char *reason,
			bool *failed, char *err, size_t errlen)
{
	char ev[1400];
	int64_t changed = 0;
	struct bb_db_op op;
	int ret;

	*failed = false;
	if (!s->me[0]) {
		bb_store_seterr(err, errlen, "a refusal needs the daemon's "
				"host name (bb_store_set_daemon)");
		return -EINVAL;
	}
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	if (!ret)
		ret = bb_db_run(&op, &q_claim_release, &changed, "it", id,
				s->me);
	if (!ret && !changed)
		ret = bb_db_err(&op, -EPERM, "job %lld is not a queued job "
				"for any host claimed by %s", (long long)id,
				s->me);
	if (!ret)
		ret = bb_db_run(&op, &q_refusal_add, NULL, "itti", id, s->me,
				reason, bb_store_now_ms());
	if (!ret) {
		snprintf(ev, sizeof(ev), "host %s cannot run it: %.1200s; "
			 "left for another host", s->me, reason);
		ret = bb_store_event_add(&op, id, "info", ev);
	}
	if (!ret)
		ret = bb_store_refused_fail(&op, s, id, failed);
	return bb_db_end(&op, ret);
}

int bb_store_jobs_unrunnable(struct bb_store *s, unsigned *n, char *err,
			     size_t errlen)
{
	int64_t ids[64];
	size_t nids = 0;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*n = 0;
	if (!s->me[0])
		return 0;
	/* a read first: the write lock only when there is something */
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_store_ids_read(&r, bb_db_query(&r, &op, &q_jobs_unrunnable,
						"i", bb_store_live_ms(s)),
				ids, 64, &nids);
	ret = bb_db_end(&op, ret);
	if (ret || !nids)
		return ret;
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	for (size_t i = 0; !ret && i < nids; i++) {
		bool failed = false;

		/* re-checked: a host came back, or claimed it meanwhile */
		ret = bb_store_refused_fail(&op, s, ids[i], &failed);
		*n += failed;
	}
	ret = bb_db_end(&op, ret);
	if (ret)
		*n = 0;
	return ret;
}

/* ---- the registry's gone hosts ------------------------------------------ */

static const struct bb_query q_daemons_gone = BB_SELECT(bb_name_cols,
	"FROM daemons WHERE name <> ?1 AND last_seen_ms < bb_now_ms() - ?2"
	" ORDER BY name LIMIT 64", "finding the hosts gone");
static const struct bb_query q_daemon_forget = BB_STATEMENT(
	"DELETE FROM daemons WHERE name = ?1"
	" AND last_seen_ms < bb_now_ms() - ?2",
	"removing a gone host from the registry");
static const struct bb_query q_jobs_for_host = BB_SELECT(bb_id_cols,
	"FROM jobs WHERE state = 'queued' AND for_host = ?1 ORDER BY id",
	"finding the jobs addressed to a gone host");
static const struct bb_query q_job_fail_queued = BB_STATEMENT(
	"UPDATE jobs SET state = 'failed', finished_ms = ?2, error = ?3"
	" WHERE id = ?1 AND state = 'queued'",
	"failing a job addressed to a gone host");

/* Within op: the jobs queued for host gone (removed) failed. */
static int bb_store_gone_jobs_fail(struct bb_db_op *op, const char *gone,
				   const char *msg)
{
	int64_t ids[256];
	size_t nids = 0;
	struct bb_db_rows r;
	char ev[600];
	int ret = bb_store_ids_read(&r, bb_db_query(&r, op, &q_jobs_for_host,
						    "t", gone),
				    ids, bb_array_size(ids), &nids);

	snprintf(ev, sizeof(ev), "failed: %s", msg);
	for (size_t i = 0; !ret && i < nids; i++) {
		int64_t changed = 0;

		ret = bb_db_run(op, &q_job_fail_queued, &changed, "iit",
				ids[i], bb_store_now_ms(), msg);
		if (!ret && changed)
			ret = bb_store_event_add(op, ids[i], "warning", ev);
		if (!ret && changed)
			ret = bb_store_group_touch(op, ids[i]);
	}
	return ret;
}

int bb_store_daemons_forget(struct bb_store *s, unsigned gone_s,
			    unsigned *n, char *err, size_t errlen)
{
	char names[64][254];
	int64_t gone_ms = (int64_t)gone_s * 1000;
	size_t nn = 0;
	struct bb_db_rows r;
	struct bb_db_op op;
	int ret;

	*n = 0;
	if (!s->me[0] || !gone_s)
		return 0;
	bb_db_lock(&op, s->db, err, errlen);
	ret = bb_db_query(&r, &op, &q_daemons_gone, "ti", s->me, gone_ms);
	while (!ret && (ret = bb_db_next(&r)) > 0 && nn < 64) {
		ret = 0;
		snprintf(names[nn++], sizeof(names[0]), "%s",
			 bb_db_text(&r, "name"));
	}
	ret = bb_db_end(&op, ret > 0 ? 0 : ret);
	if (ret || !nn)
		return ret;
	ret = bb_db_begin(&op, s->db, BB_TX_DURABLE, err, errlen);
	for (size_t i = 0; !ret && i < nn; i++) {
		char msg[400];
		int64_t changed = 0;

		/* re-checked: back meanwhile, it stays */
		ret = bb_db_run(&op, &q_daemon_forget, &changed, "ti",
				names[i], gone_ms);
		if (ret || !changed)
			continue;
		snprintf(msg, sizeof(msg), "host %s was removed from the "
			 "registry by %s: not seen for more than %u s "
			 "(host_gone_seconds)", names[i], s->me, gone_s);
		ret = bb_store_gone_jobs_fail(&op, names[i], msg);
		if (!ret)
			(*n)++;
	}
	ret = bb_db_end(&op, ret);
	if (ret)
		*n = 0;
	return ret;
}

int bb_store_job_refusals_json(struct bb_db_op *op, int64_t id,
			       struct json_object **out)
{
	return bb_db_rows_json(op, &q_refusals_doc, out, "i", id);
}
