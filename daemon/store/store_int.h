/* SPDX-License-Identifier: GPL-2.0-only */
/* store_int.h - what the store's subjects (the files of daemon/store/)
 * share: the handle, the statement table and the helpers.  Not for the
 * rest of the daemon, which uses store.h only. */
#ifndef BB_STORE_INT_H
#define BB_STORE_INT_H

#include "store.h"

#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define BB_STORE_BUSY_MS 5000
/* a failed write counts against the store's health for this long unless
 * a commit succeeds after it */
#define BB_STORE_ERROR_MS 60000

enum bb_q {
	Q_JOB_INSERT,
	Q_EVENT_INSERT,
	Q_JOB_STATE,
	Q_JOB_NEXT_QUEUED,
	Q_JOB_START,
	Q_JOB_PROGRESS,
	Q_JOB_FINISH,
	Q_JOBS_RUNNING,
	Q_JOB_INTERRUPT,
	Q_RUN_INSERT,
	Q_SAMPLE_INSERT,
	Q_HIST_INSERT,
	Q_JOB_RUNS_DONE,
	Q_JOB_GET,
	Q_HOST_GET,
	Q_DEVICE_GET,
	Q_JOBS_LIST,
	Q_JOBS_LIST_STATE,
	Q_RUNS_OF_JOB,
	Q_SAMPLES_OF_RUN,
	Q_HOST_INSERT,
	Q_HOST_FIND,
	Q_DEVICE_INSERT,
	Q_DEVICE_FIND,
	Q_KNOB_INSERT,
	Q_KNOB_UNRESTORABLE,
	Q_KNOB_STATE,
	Q_KNOB_MARK,
	Q_KNOBS_UNRESTORED,
	Q_KNOBS_OF_JOB,
	Q_JOBS_BY_STATE,
	Q_RUNS_TOTAL,
	Q_JOBS_QUEUED,
	Q_JOBS_HISTORY,
	Q_NOISE_INSERT,
	Q_NOISE_GET,
	Q__COUNT
};

/* The columns of a job in lists (no spec, compare, host, device). */
#define JOB_COLS \
	"id, name, target, state, created_ms, started_ms, finished_ms, " \
	"runs_planned, runs_done, verdict, error"


struct bb_store {
	sqlite3 *db;
	pthread_mutex_t lock;
	int version;
	bool durable_tx;          /* synchronous=FULL for this transaction */
	sqlite3_stmt *q[Q__COUNT];
	char path[PATH_MAX];
	/* health (bb_store_check), under hlock: the file opened (when not
	 * ":memory:"), the last write error and the last good commit */
	bool file;
	dev_t dev;
	ino_t ino;
	pthread_mutex_t hlock;
	int werr;
	int64_t werr_ms;
	uint64_t werr_seq, wok_seq, seq; /* which came last */
	char wmsg[512];
};

#define BB_JSON_PLAIN (JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)

/* db.c */
void __attribute__((format(printf, 3, 4)))
bb_store_seterr(char *err, size_t errlen, const char *fmt, ...);
int64_t bb_store_now_ms(void);
int __attribute__((format(printf, 5, 6)))
bb_store_fail(struct bb_store *s, int rc, char *err, size_t errlen,
	      const char *fmt, ...);
void bb_store_lock(struct bb_store *s);
void bb_store_unlock(struct bb_store *s);
int bb_store_q(struct bb_store *s, enum bb_q q, sqlite3_stmt **st,
	       char *err, size_t errlen);
int bb_store_bind(sqlite3_stmt *st, const char *fmt, ...);
int bb_store_step_done(struct bb_store *s, sqlite3_stmt *st, int bind_rc,
		       char *err, size_t errlen, const char *what);
bool bb_store_next(sqlite3_stmt *st, int *rc);
int bb_store_exec(struct bb_store *s, const char *sql, char *err,
		  size_t errlen);
void bb_store_rollback(struct bb_store *s);
int bb_store_begin(struct bb_store *s, bool durable, char *err,
		   size_t errlen);
int bb_store_commit(struct bb_store *s, char *err, size_t errlen);
int bb_store_begin_read(struct bb_store *s, char *err, size_t errlen);

/* row.c */
const char *bb_store_jstr(struct json_object *o, const char *key);
bool bb_store_jnum(struct json_object *o, const char *key, double *d);
bool bb_store_json_parse(const char *text, struct json_object **obj);
struct json_object *bb_store_time_json(int64_t ms);
struct json_object *bb_store_col_time(sqlite3_stmt *st, int c);
struct json_object *bb_store_col_text(sqlite3_stmt *st, int c);
struct json_object *bb_store_col_int(sqlite3_stmt *st, int c);
struct json_object *bb_store_col_double(sqlite3_stmt *st, int c);
struct json_object *bb_store_col_json(sqlite3_stmt *st, int c);

/* migrate.c */
int bb_store_user_version(struct bb_store *s, int *v, char *err,
			  size_t errlen);
int bb_store_newer(struct bb_store *s, int v, char *err, size_t errlen);
int bb_store_migrate(struct bb_store *s, char *err, size_t errlen);

/* events.c */
int bb_store_event_locked(struct bb_store *s, int64_t job_id,
			  const char *level, const char *msg, char *err,
			  size_t errlen);

/* meta.c */
int bb_store_meta_json(struct bb_store *s, enum bb_q q, int64_t id,
		       struct json_object **out, char *err, size_t errlen);

/* jobs.c */
int bb_store_state_locked(struct bb_store *s, int64_t id, char *state,
			  char *err, size_t errlen);
struct json_object *bb_store_job_json(sqlite3_stmt *st);

/* noise.c */
int bb_store_noise_locked(struct bb_store *s, int64_t host_id,
			  const char *target, const char *metric,
			  struct json_object **out, char *err, size_t errlen);

/* knobs.c */
int bb_store_knobs_locked(struct bb_store *s, int64_t job_id,
			  struct json_object **out, char *err,
			  size_t errlen);

#endif
