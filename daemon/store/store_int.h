/* SPDX-License-Identifier: GPL-2.0-only */
/* store_int.h - what the store's subjects (the files of daemon/store/)
 * share: the handle and the pieces one subject's document borrows from
 * another's.  Not for the rest of the daemon, which uses store.h only.
 *
 * The subjects: handle.c (open, close, health), migrate.c, events.c,
 * meta.c (hosts and devices), jobs.c, history.c, runs.c, noise.c and
 * knobs.c (the knob journal).  They run SQL through db.h only. */
#ifndef BB_STORE_INT_H
#define BB_STORE_INT_H

#include "db.h"
#include "store.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct bb_store {
	/* jobs, runs, samples, hosts, devices, events, noise floors */
	struct bb_db *db;
	/* the knob journal: a knob must be restorable from the host it was
	 * changed on, whatever happened to the shared database, so the
	 * journal may live in a database of its own.  kdb == db: the
	 * journal is the store's (a sqlite store); another handle: a local
	 * sqlite file (bb_store_open_journal) whose rows are mirrored into
	 * db's knob_journal for the job documents (knobs.c); NULL: none (a
	 * PostgreSQL handle without a local journal: it journals nothing
	 * and recovers nothing).  Never written in the same transaction as
	 * db.  db is NULL on a journal-only handle (startup recovery
	 * without the shared store). */
	struct bb_db *kdb;
	/* a local journal's rows are the store's named kstore (its name
	 * without a password); mlock orders their mirroring */
	char kstore[256];
	pthread_mutex_t mlock;
	/* the daemon this handle works for (bb_store_set_daemon): the
	 * host name its claims carry, "" for none (a handle of tests and
	 * tools: no claims, every job is its own), and its lease */
	char me[254];
	unsigned lease_s;
	/* a group's selector picks daemons seen this recently (0: any) */
	int64_t group_seen_ms;
};

/* s->me, or NULL for none: bound as "claimed_by = coalesce(?N,
 * claimed_by)" a NULL matches every claim. */
static inline const char *bb_store_me(const struct bb_store *s)
{
	return s->me[0] ? s->me : NULL;
}

/* Now + the handle's lease, in ms (NULL-bound 0 without a daemon). */
int64_t bb_store_lease_until(const struct bb_store *s);
/* The lease in ms (0 on a handle without a daemon): set on the
 * database's clock, bb_now_ms() + it, in SQL. */
int64_t bb_store_lease_ms(const struct bb_store *s);

/* handle.c: whether a write that failed with ret is to be tried again: a
 * daemon's handle (until, ms, not 0) whose connection to the store was
 * lost (bb_db_lost) before until; true after a pause (250 ms). */
bool bb_store_retry(struct bb_store *s, int ret, int64_t until);

#define BB_JSON_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

int64_t bb_store_now_ms(void);

/* row.c: a string / number member of o (NULL / false when absent or of
 * another type); whether text is one JSON value (*obj gets it, NULL for
 * "null", when obj is not NULL); ms since the epoch as ISO 8601. */
const char *bb_store_jstr(struct json_object *o, const char *key);
bool bb_store_jnum(struct json_object *o, const char *key, double *d);
bool bb_store_json_parse(const char *text, struct json_object **obj);
struct json_object *bb_store_time_json(int64_t ms);

/* The columns of a job in every job document (jobs.c, history.c). */
#define BB_JOB_COLS \
	{ "id", BB_COL_INT64, NULL }, \
	{ "name", BB_COL_TEXT, NULL }, \
	{ "target", BB_COL_TEXT, NULL }, \
	{ "state", BB_COL_TEXT, NULL }, \
	{ "created", BB_COL_TIME, "created_ms" }, \
	{ "started", BB_COL_TIME, "started_ms" }, \
	{ "finished", BB_COL_TIME, "finished_ms" }, \
	{ "runs_planned", BB_COL_INT64, NULL }, \
	{ "runs_done", BB_COL_INT64, NULL }, \
	{ "verdict", BB_COL_TEXT, NULL }, \
	{ "error", BB_COL_TEXT, NULL }, \
	{ "for_host", BB_COL_TEXT, NULL }, \
	{ "claimed_by", BB_COL_TEXT, NULL }, \
	{ "lease_until", BB_COL_TIME, "lease_ms" }, \
	{ "cancel_requested", BB_COL_TIME, "cancel_requested_ms" }, \
	{ "cancel_requested_by", BB_COL_TEXT, NULL }, \
	{ "group", BB_COL_BOOL, "is_group" }, \
	{ "group_id", BB_COL_INT64, NULL }

/* history.c: a job's comparison slimmed to its figures (the history and
 * the job list); NULL when cmp is not a comparison. */
struct json_object *bb_store_history_compare(struct json_object *cmp);

/* jobs.c: the state of job id into state[16]; -ENOENT.  After an UPDATE
 * ... WHERE id = ? AND state = want changed nothing: -ENOENT or
 * -EALREADY naming the state the job is in. */
int bb_store_state_read(struct bb_db_op *op, int64_t id, char *state);
/* The job a queue read or claim returned (its "id" and "spec" columns; row
 * ret as bb_db_row gave it): -ENOENT naming who for none, else *id and
 * *spec (malloc'd, "{}" for none).  0 or -errno with the message on op. */
int bb_store_row_job(struct bb_db_op *op, struct bb_db_rows *r, int ret,
		     const char *who, int64_t *id, char **spec);
int bb_store_not_in_state(struct bb_db_op *op, int64_t id, const char *want);

/* fleet.c: 0 when name is a registered daemon's host name, else
 * -ENXIO naming the registered ones. */
int bb_store_daemon_known(struct bb_db_op *op, const char *name);

/* fleet.c: the registered daemons that match selector sel
 * (bb_group_match) for a job on target, seen within seen_ms (0: any),
 * by name into hosts[BB_GROUP_MAX_HOSTS]; -ENXIO naming the registered
 * ones (with when each was seen) when none does. */
int bb_store_daemons_select(struct bb_db_op *op, struct json_object *sel,
			    const char *target, int64_t seen_ms,
			    char (*hosts)[254], size_t *n);

/* jobs.c: the queued jobs (groups' parents not counted). */
int bb_store_queued_count(struct bb_db_op *op, unsigned *n);

/* groups.c: 1 when job id is a group's parent, 0 when not, -ENOENT. */
int bb_store_job_is_group(struct bb_db_op *op, int64_t id);
/* groups.c: a group job (spec with "host" an array or "hosts" a
 * selector; text its normalized text) in op's write transaction: the
 * parent (*id) and a child addressed to each host, within the queue
 * limit.  -ENXIO (no such host, no match), -EAGAIN (queue full). */
int bb_store_group_insert(struct bb_db_op *op, struct bb_store *s,
			  struct json_object *spec, const char *name,
			  const char *target, const char *text,
			  unsigned planned, unsigned max_queued, int64_t *id);
/* After a change of job id's state or runs, in its transaction: its
 * group's parent (when it has one) derived again. */
int bb_store_group_touch(struct bb_db_op *op, int64_t id);
/* The children of group id: [{"id","host","state","runs_done",
 * "runs_planned","verdict","claimed_by"}] by id. */
int bb_store_group_children_json(struct bb_db_op *op, int64_t id,
				 struct json_object **out);

/* fleet.c: the refusals of job id, [{"host","reason","at"}] by host. */
int bb_store_job_refusals_json(struct bb_db_op *op, int64_t id,
			       struct json_object **out);

/* events.c: an event, within op (level checked by the caller). */
int bb_store_event_add(struct bb_db_op *op, int64_t job_id,
		       const char *level, const char *msg);

/* meta.c: host or device id's info document with its "id"; NULL for id
 * <= 0 or none. */
int bb_store_host_json(struct bb_db_op *op, int64_t id,
		       struct json_object **out);
int bb_store_device_json(struct bb_db_op *op, int64_t id,
			 struct json_object **out);

/* boots.c: a job's boot progress (-ENOENT none); its "boot" object of
 * the job document (NULL when none; state: the job's). */
int bb_store_boot_read(struct bb_db_op *op, int64_t id,
		       struct bb_boot_progress *p);
int bb_store_boot_json(struct bb_db_op *op, int64_t id, const char *state,
		       struct json_object **out);

/* noise.c: the newest noise floor of a host, target and metric, or
 * NULL. */
int bb_store_noise_json(struct bb_db_op *op, int64_t host_id,
			const char *target, const char *metric,
			struct json_object **out);

#endif
