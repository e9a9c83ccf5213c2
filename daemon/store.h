/* SPDX-License-Identifier: GPL-2.0-only */
/* store.h - biobenchd's sqlite store: hosts, devices, jobs, runs,
 * per-second samples, latency histograms, the sysfs knob journal and the
 * event log.  Migrations are the numbered files schema/migrations/NNN_*.sql
 * (embedded at build time), applied at open in order up to the newest, each
 * in one transaction that also sets PRAGMA user_version.  WAL mode, busy
 * timeout 5 s, foreign keys on, synchronous=NORMAL... FULL for job state
 * and knob journal writes.  Migrations must be numbered 1, 2, 3... without
 * gaps (-EPROTO otherwise).
 *
 * A handle is used by one thread at a time (each function takes the
 * handle's mutex); the daemon opens one handle for the scheduler and one
 * for the HTTP threads.  Every job state change is one transaction, with
 * its event row; a failed write is rolled back whole.  Functions return 0
 * or -errno (-ENOENT: no such row, -ENOSPC: disk full, -EIO: other sqlite
 * errors, a corrupt file or not a database, -EBUSY: locked beyond the
 * timeout, -EINVAL: bad argument, -EACCES/-ENOENT: the file cannot be
 * opened) with a one-line message in err when err is not NULL.
 *
 * Implemented in daemon/store/: one file per subject (jobs.c, runs.c,
 * meta.c, knobs.c, events.c, noise.c, history.c, migrate.c, handle.c,
 * fleet.c, groups.c),
 * each declaring its SQL once with the column table of its JSON (db.h),
 * over a backend seam (backend.h; sqlite.c and postgres.c). */
#ifndef BB_STORE_H
#define BB_STORE_H

#include <biobench/stats.h>
#include <biobench/sysknob.h>

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

struct bb_store;

/* Job states, as stored (TEXT, with a CHECK constraint). */
#define BB_JOB_QUEUED "queued"
#define BB_JOB_RUNNING "running"
#define BB_JOB_DONE "done"
#define BB_JOB_FAILED "failed"
#define BB_JOB_CANCELLED "cancelled"
#define BB_JOB_INTERRUPTED "interrupted"
#define BB_JOB_REBOOTING "rebooting" /* a boot job between two boots */

struct bb_boot_progress; /* biobench/boot.h */

/* Whether s is one of the seven states. */
bool bb_store_state_ok(const char *s);

/* Open (creating) the database at path, apply migrations.  A database
 * newer than this binary (user_version above the newest migration) is
 * refused with -EPROTO. */
int bb_store_open(struct bb_store **out, const char *path, char *err,
		  size_t errlen);
void bb_store_close(struct bb_store *s);
/* bb_store_open with the knob journal in journal, a local sqlite file of
 * its own (schema/migrations/knobs/; NULL or "" or where itself: the
 * journal is where's, and none on a PostgreSQL store), for a daemon of a
 * shared PostgreSQL store: its journal must survive the network going
 * away.  Journal writes go there first, durably, and are then copied
 * into where's knob_journal (best-effort, again at each journal write
 * and heartbeat) for bb_store_job_knobs; bb_store_knobs_unrestored reads
 * the local file only.  where NULL: a journal-only handle (the knob
 * functions and nothing else; bb_store_event -ENOTCONN), for a recovery
 * without the shared store.  A handle on a PostgreSQL store without a
 * journal refuses journal writes (-EINVAL) and has no rows to restore:
 * it never sees other hosts' rows as its own. */
int bb_store_open_journal(struct bb_store **out, const char *where,
			  const char *journal, char *err, size_t errlen);
/* Copy the local journal's rows changed since their last copy into the
 * store's knob_journal, under the handle's daemon name (0 and nothing
 * without a local journal); 0 or the first error (the shared store
 * unreachable: tried again at the next journal write and heartbeat). */
int bb_store_knobs_mirror(struct bb_store *s, char *err, size_t errlen);
/* The schema version after migration (PRAGMA user_version). */
int bb_store_schema_version(struct bb_store *s);
/* Whether where (bb_store_open's) is a PostgreSQL connection string (a
 * URI "postgresql://..." or "postgres://...", or "service=NAME"), not a
 * sqlite path. */
bool bb_store_is_pg(const char *where);
/* One daemon per host name on a PostgreSQL database (daemons of other
 * names share it): a connection of its own holding a session lock keyed
 * by the name for the daemon's life.  0 with *guard (released by
 * bb_store_pg_guard_release, NULL is fine), -EBUSY naming the daemon
 * (pid and host) that holds it, or -errno; err says why. */
int bb_store_pg_guard(const char *where, const char *host_name, void **guard,
		      char *err, size_t errlen);
void bb_store_pg_guard_release(void *guard);
/* where as logs and messages show it (a PostgreSQL connection string
 * without its password), in buf; returns buf. */
const char *bb_store_name(const char *where, char *buf, size_t len);

/* The store's health, without touching the database (safe from any
 * thread, never waits for the handle): -ENOENT when the database file
 * was deleted since it was opened, -ESTALE when another file took its
 * place (sqlite keeps writing to the open, deleted inode: everything
 * would be lost at exit), or the last write error (-ENOSPC, -EIO, -EROFS)
 * when no commit succeeded since and it is less than a minute old; with
 * a one-line message.  0 when healthy. */
int bb_store_check(struct bb_store *s, char *err, size_t errlen);

/* Hosts and devices are deduplicated: the same metadata gives the same id
 * (compared as JSON text with the keys sorted; any change, e.g. a new
 * kernel, gives a new row).  host: bb_host_info()'s object; dev:
 * bb_target_device_info()'s object (or a bare bb_device_info() one). */
int bb_store_host_upsert(struct bb_store *s, struct json_object *host,
			 int64_t *id, char *err, size_t errlen);
int bb_store_device_upsert(struct bb_store *s, struct json_object *dev,
			   int64_t *id, char *err, size_t errlen);

/* A new job, state queued, created now; spec is the normalized job JSON
 * text (-EINVAL unless a JSON object); name NULL is stored as "".  Event
 * "submitted".  Ids are never reused. */
int bb_store_job_insert(struct bb_store *s, const char *name,
			const char *target, const char *spec,
			unsigned runs_planned, int64_t *id, char *err,
			size_t errlen);

/* bb_store_job_insert with a limit: -EAGAIN (message with the numbers)
 * when max_queued jobs (0: no limit) are queued already, counted in the
 * inserting transaction. */
int bb_store_job_submit(struct bb_store *s, const char *name,
			const char *target, const char *spec,
			unsigned runs_planned, unsigned max_queued,
			int64_t *id, char *err, size_t errlen);

/* How many jobs have not ended (queued, running or rebooting). */
int bb_store_jobs_active(struct bb_store *s, unsigned *n, char *err,
			 size_t errlen);
/* How many jobs are queued. */
int bb_store_jobs_queued(struct bb_store *s, unsigned *n, char *err,
			 size_t errlen);

/* The oldest queued job (FIFO by id): its id and spec text (malloc'd).
 * -ENOENT when none is queued.  On a daemon's handle
 * (bb_store_set_daemon) it is bb_store_job_claim. */
int bb_store_job_next_queued(struct bb_store *s, int64_t *id, char **spec,
			     char *err, size_t errlen);

/* ---- the fleet: pull scheduling (store/fleet.c) ----------------------
 *
 * Several daemons share one database, each under its host name (config
 * host_name, unique in the database).  A job may be addressed to one of
 * them (the spec's "host", stored as for_host; -ENXIO at submission
 * naming the registered hosts when no daemon has that name); each daemon
 * claims the oldest queued job addressed to it or to any host, with a
 * lease its heartbeat renews while the job runs.  Any daemon's sweep
 * turns a running job whose lease expired into interrupted (its finished
 * runs kept, an event naming the host that lost the lease); boot jobs are
 * their host's across its reboots and never expire.  A handle without a
 * daemon (tests, tools, the HTTP threads) claims nothing and sees every
 * job as its own. */

/* Make s a daemon's handle: its host name (bb_host_name_check) and lease
 * (seconds).  From then on next_queued claims, a start records the claim
 * and its lease, and the startup recovery (interrupt_running, the boot
 * lists) is this daemon's jobs' (and those claimed by none) only. */
int bb_store_set_daemon(struct bb_store *s, const char *name,
			unsigned lease_s, char *err, size_t errlen);
/* Register (or re-register at a restart) the daemon: host metadata
 * (bb_host_info JSON text), devices and allow-list summary (JSON text),
 * version, pid; started and last seen now. */
int bb_store_daemon_register(struct bb_store *s, const char *host,
			     const char *devices, const char *version,
			     long pid, char *err, size_t errlen);
/* The heartbeat: last seen now, the job it runs (0: idle), every lease of
 * the daemon's claims renewed.  -ESTALE (with why) when running_id is no
 * longer this daemon's (its lease expired and another daemon's sweep
 * interrupted it, or another claimed it): stop it.  -ECANCELED (with the
 * daemon that was asked) when a cancel of running_id was requested
 * through another daemon (bb_store_job_cancel_request): cancel it as a
 * local cancel does.  The beat itself is stored in both cases. */
int bb_store_daemon_heartbeat(struct bb_store *s, int64_t running_id,
			      char *err, size_t errlen);
/* The heartbeat of a daemon running n jobs (ids, oldest first; the
 * registry's running_job is ids[0]): as bb_store_daemon_heartbeat for
 * each, the beat and the leases stored either way; verdicts[i] is 0,
 * -ESTALE (lost) or -ECANCELED (a cancel requested through another
 * daemon) for ids[i], and the first of them is returned, its why in
 * err. */
int bb_store_daemon_heartbeat_jobs(struct bb_store *s, const int64_t *ids,
				   size_t n, int *verdicts, char *err,
				   size_t errlen);
/* The queued jobs this daemon may claim (on a handle without a daemon:
 * every queued job), oldest first, at most max: *out (malloc'd, free
 * with bb_store_queued_free), *n of them.  Nothing is claimed: the
 * scheduler chooses among them (max_parallel_jobs) and claims one with
 * bb_store_job_claim_id. */
struct bb_store_queued {
	int64_t id;
	char *spec;
};
int bb_store_jobs_candidates(struct bb_store *s, unsigned max,
			     struct bb_store_queued **out, size_t *n,
			     char *err, size_t errlen);
void bb_store_queued_free(struct bb_store_queued *q, size_t n);
/* Claim job id as bb_store_job_claim claims the oldest (on PostgreSQL
 * skipping it when another claim holds its row); its spec (malloc'd).
 * -ENOENT when it is no longer a job this daemon may claim (claimed by
 * another, cancelled, started).  On a handle without a daemon: its spec
 * while it is queued. */
int bb_store_job_claim_id(struct bb_store *s, int64_t id, char **spec,
			  char *err, size_t errlen);
/* A cancel asked of daemon who (its host name) for job id that another
 * daemon runs: stored on the job (the first request's time and daemon
 * kept; event "cancel requested via WHO" once) for the claimer's
 * heartbeat; the claimer's name into owner.  -EALREADY when the job is
 * not running, or claimed by none, or (others_only) claimed by who
 * itself: not a job of another daemon; -ENOENT: no such job. */
int bb_store_job_cancel_request(struct bb_store *s, int64_t id,
				const char *who, bool others_only,
				char *owner, size_t ownerlen, char *err,
				size_t errlen);
/* The oldest queued job this daemon may run, claimed with a lease: its
 * id and spec (malloc'd); -ENOENT when there is none.  Two daemons never
 * claim the same job (a claim whose claimer let its lease expire before
 * it started the job may be taken over). */
int bb_store_job_claim(struct bb_store *s, int64_t *id, char **spec,
		       char *err, size_t errlen);
/* The sweep: every running job claimed by another daemon whose lease is
 * over (not a boot job) becomes interrupted with an event naming the
 * host; *n of them. */
int bb_store_jobs_expire(struct bb_store *s, unsigned *n, char *err,
			 size_t errlen);
/* A job this daemon claimed but cannot run (its allow-list refuses the
 * target, the target is not on this host) and addressed to no host: the
 * claim released, the refusal and its reason recorded (this daemon's
 * claims skip the job from then on), an event; *failed when no live host
 * (seen within two leases) is left that has not refused it: the job
 * failed then with every host's reason.  -EPERM when the job is not one
 * to leave (addressed to a host, not queued, not claimed by this daemon):
 * the caller fails it as before. */
int bb_store_job_refuse(struct bb_store *s, int64_t id, const char *reason,
			bool *failed, char *err, size_t errlen);
/* The sweep of refused jobs: each queued job for any host that every live
 * host refused (the last host able to take it gone meanwhile) failed as
 * bb_store_job_refuse fails it; *n of them. */
int bb_store_jobs_unrunnable(struct bb_store *s, unsigned *n, char *err,
			     size_t errlen);
/* The registry's gone hosts: every other daemon not seen for gone_s
 * seconds (the database's clock; 0: never) removed, the jobs queued for
 * it failed naming why; *n hosts removed. */
int bb_store_daemons_forget(struct bb_store *s, unsigned gone_s,
			    unsigned *n, char *err, size_t errlen);
/* ---- groups: one job on several hosts (store/groups.c) ----------------
 *
 * A job whose "host" is an array of host names or whose "hosts" is a
 * selector (biobench/jobgroup.h) is stored by bb_store_job_submit as a
 * group: a parent ("group": true, never claimed, its runs_planned the
 * sum of its children's) and one child per host, an ordinary job
 * addressed to it ("host" its name in the child's spec, for_host) whose
 * "group_id" is the parent's id, all in one transaction.  The names of a
 * list must be registered (any last_seen, as a single "host"); a
 * selector matches the daemons seen within the group window (default
 * BB_STORE_GROUP_SEEN_S; a daemon not seen for that long would leave its
 * child queued).  -ENXIO naming the registered hosts when a name is not
 * registered or the selector matches none; -EAGAIN when the children
 * would pass max_queued.  The parent's state, started, finished,
 * runs_done and verdict are derived from its children in the
 * transaction of each child's change (bb_group_state); it cannot be
 * ended itself (bb_store_job_finish: -EISDIR).  The job document of a
 * parent has "children": [{"id","host","state","runs_done",
 * "runs_planned","verdict","claimed_by"}]. */
#define BB_STORE_GROUP_SEEN_S 600
/* The group window in seconds (0: every registered daemon). */
void bb_store_set_group_window(struct bb_store *s, unsigned seconds);
/* The children of group id (as in its document); -ENOENT no such job,
 * -ENOTDIR not a group. */
int bb_store_job_children(struct bb_store *s, int64_t id,
			  struct json_object **out, char *err, size_t errlen);

/* GET /api/v1/hosts: {"hosts":[{"name","version","pid","started",
 * "last_seen","running_job" | null (the oldest running),"running_jobs":
 * [ids of the running jobs it claimed],"host": {..} | null,"devices": {..}
 * | null,"kernel" | null,"seen_s_ago"}]} by name. */
int bb_store_hosts_list(struct bb_store *s, struct json_object **out,
			char *err, size_t errlen);

/* queued -> running, with host and device ids (0: unknown) and the start
 * time.  Event "started".  -EALREADY if the job is not queued (e.g.
 * cancelled meanwhile) or, on a daemon's handle, claimed by another
 * daemon; -ENOENT if there is no such job. */
int bb_store_job_start(struct bb_store *s, int64_t id, int64_t host_id,
		       int64_t device_id, char *err, size_t errlen);

/* Progress of a running job: runs planned (adaptive rounds grow it) and
 * the comparison so far (JSON text of bb_jobrun_to_json, NULL keeps the
 * last one).  No event.  -EALREADY if the job is not running. */
int bb_store_job_progress(struct bb_store *s, int64_t id,
			  unsigned runs_planned, const char *compare,
			  char *err, size_t errlen);

/* End a job (queued, running or rebooting): state (done, failed,
 * cancelled, interrupted), the finish
 * time, verdict (NULL for none), compare JSON text (NULL keeps the last
 * one), error message (NULL for none); plus the event ("done: <verdict>",
 * "failed: <error>" at level error, "cancelled", "interrupted: <error>"
 * at level warning).  A queued job may go straight to cancelled or failed
 * (-EINVAL for done or interrupted).  -EALREADY if it already ended. */
int bb_store_job_finish(struct bb_store *s, int64_t id, const char *state,
			const char *verdict, const char *compare,
			const char *error, char *err, size_t errlen);

/* Startup recovery: every job left running becomes interrupted ("daemon
 * stopped while the job ran"), but a boot job with its boot progress
 * (bb_store_jobs_boot_running: its boot is redone); the count is
 * returned in *n.  On a daemon's handle: its own jobs (and those no
 * daemon claimed) only; the same for the two boot lists below. */
int bb_store_jobs_interrupt_running(struct bb_store *s, unsigned *n,
				    char *err, size_t errlen);

/* Boot jobs (biobench/boot.h).  running -> rebooting with the boot's
 * progress p (the boot expected next, its variant, the boot id now and
 * the deadline) and the event "rebooting into B (boot 3 of 8)", in one
 * durable transaction: written before the host is rebooted.  -EALREADY
 * when the job is not running (cancelled meanwhile). */
int bb_store_job_reboot(struct bb_store *s, int64_t id,
			const struct bb_boot_progress *p, char *err,
			size_t errlen);
/* rebooting -> running (the next start found the right kernel), with
 * the event (NULL: "resumed").  -EALREADY when not rebooting. */
int bb_store_job_resume(struct bb_store *s, int64_t id, const char *event,
			char *err, size_t errlen);
/* The boot progress last stored for job id; -ENOENT when none. */
int bb_store_job_boot(struct bb_store *s, int64_t id,
		      struct bb_boot_progress *p, char *err, size_t errlen);
/* The ids of the jobs that are rebooting, oldest first (*ids malloc'd,
 * NULL when none). */
int bb_store_jobs_rebooting(struct bb_store *s, int64_t **ids, size_t *n,
			    char *err, size_t errlen);
/* The running jobs that have a boot progress (boot jobs whose daemon
 * stopped or died during a boot's runs), oldest first. */
int bb_store_jobs_boot_running(struct bb_store *s, int64_t **ids, size_t *n,
			       char *err, size_t errlen);
/* A running boot job begins the runs of boot p->boot on this kernel (no
 * reboot before it): its progress stored, so that an interruption
 * during the runs knows which boot to redo.  -EALREADY when not running. */
int bb_store_job_boot_begin(struct bb_store *s, int64_t id,
			    const struct bb_boot_progress *p, char *err,
			    size_t errlen);
/* Redo boot `boot` of a running job after an interruption: its stored
 * runs are marked discarded with why (kept, out of the statistics),
 * runs_done recounted, the job's redone count raised and why stored as a
 * warning event, in one durable transaction.  *discarded: runs marked.
 * -EALREADY when the job is not running. */
int bb_store_job_boot_redo(struct bb_store *s, int64_t id, unsigned boot,
			   const char *why, unsigned *discarded, char *err,
			   size_t errlen);

/* One run, its samples and histogram buckets, and the job's runs_done
 * counter (every stored run counts, warm-ups and failures too), in one
 * transaction.  Summary columns (iops, bw, p50, p99, cpu per I/O) come
 * from r, else from the result JSON, else NULL; only the non-zero
 * histogram buckets are stored.  -ENOENT: no such job (or device_id),
 * -EEXIST: the job already has a run with this seq, -EINVAL: result is
 * not JSON. */
struct bb_store_run {
	int64_t job_id;
	const char *variant;
	unsigned seq;          /* 0-based run index in the job */
	unsigned round;
	bool warmup;
	const char *state;     /* "done" or "failed" or "cancelled" */
	const char *error;     /* NULL if none */
	double metric;         /* the job's metric (0 if failed) */
	int64_t device_id;     /* 0: unknown */
	const char *result;    /* bb_result_to_json text (NULL if failed
				  before a result existed) */
	const struct bb_result *r; /* samples and histogram (may be NULL) */
};
int bb_store_run_insert(struct bb_store *s, const struct bb_store_run *run,
			int64_t *id, char *err, size_t errlen);

/* Reads, as JSON documents of the API (see schema/openapi.yaml):
 *
 * job: {"id","name","target","state","created","started","finished"
 *       (ISO 8601 UTC with ms, "2026-11-30T04:33:10.123Z", or null),
 *       "runs_planned","runs_done","verdict","error",
 *       "host": {..,"id"} | null,"device": {..,"id"} | null,
 *       "spec": {..},"compare": {..} | null,
 *       "boot": {"boot" (1-based),"boots","variant","boot_id_before",
 *                "deadline","text" ("rebooting into B (boot 3 of 8)"
 *                while rebooting, else "boot 3 of 8 (B)")} | null (boot
 *                jobs once they rebooted),
 *       "group": true for a group's parent, "group_id": a child's
 *       parent | null, "children": [..] (parents only: see groups),
 *       "noise_floor": {..} | null (bb_store_host_noise_add),
 *       "knobs": [bb_store_job_knobs rows]}
 * list: {"jobs":[job without spec/host/device/knobs, its "compare"
 *        slimmed as in the history (the change, CI and verdict of each
 *        comparison) | null],
 *        "next_cursor": id | null}: newest first, ids below cursor
 *        (0 = from the newest), state filter (NULL = all), limit 1..500
 *        (-EINVAL otherwise, and for an unknown state); next_cursor is the
 *        last id listed when more jobs follow, else null.
 * runs: {"job_id","runs":[{"id","seq","round","variant","warmup",
 *        "state","error","metric","iops","bw_bytes_s","lat_p50_ns",
 *        "lat_p99_ns","cpu_per_io_ns","started","duration_ns",
 *        "device_id" | null,"result": {..} | null}]} by seq; summary
 *        figures null when unknown (samples: "samples":[{t_ms,ios,
 *        bytes}] when with_samples).  -ENOENT: no such job. */
int bb_store_job_get(struct bb_store *s, int64_t id,
		     struct json_object **out, char *err, size_t errlen);
int bb_store_jobs_list(struct bb_store *s, const char *state,
		       unsigned limit, int64_t cursor,
		       struct json_object **out, char *err, size_t errlen);
/* The same, of one host (NULL: all; the jobs addressed to it, for_host,
 * or claimed by it, claimed_by); children false leaves the children of
 * groups out (their parents stay). */
int bb_store_jobs_list_ex(struct bb_store *s, const char *state,
			  const char *host, bool children, unsigned limit,
			  int64_t cursor, struct json_object **out, char *err,
			  size_t errlen);
int bb_store_job_runs(struct bb_store *s, int64_t id, bool with_samples,
		      struct json_object **out, char *err, size_t errlen);

/* The history of a workload: the jobs named name (target NULL: any
 * target) that ended done, newest first, at most limit (1..500, -EINVAL
 * otherwise; name NULL is -EINVAL too):
 * {"name","target" | null,"jobs":[job of the list, plus "host": {..,"id"}
 *  | null, "device": {..,"id"} | null, "compare": {"metric","unit",
 *  "comparisons":[{"baseline","variant","metric","unit",
 *  "higher_is_better","method","design","n","change","ci_lo","ci_hi",
 *  "ci_level","ci_label","p_value","p_adjusted","tost_p","family",
 *  "multiple","verdict","text","confidence","min_effect",
 *  "baseline_median","variant_median"}]}
 *  | null, "noise_floor": {..} | null]}.  A name with no finished job gives an empty list. */
int bb_store_job_history(struct bb_store *s, const char *name,
			 const char *target, unsigned limit,
			 struct json_object **out, char *err, size_t errlen);

/* A host's noise floor: an A/A job that ended done on host_id leaves the
 * spread of its pairs (log_sd: SD of the pairs' log-ratios; ci_half: the
 * half-width of its interval, log scale, NAN unknown) for its target and
 * metric.  The newest row for a job's host, target and metric is its
 * document's "noise_floor" ({"job_id","target","metric","pairs",
 * "log_sd","ci_half","measured"} | null; history jobs carry it too).
 * -EINVAL for a missing host, fewer than 2 pairs or a bad spread. */
int bb_store_host_noise_add(struct bb_store *s, int64_t host_id,
			    int64_t job_id, const char *target,
			    const char *metric, unsigned pairs, double log_sd,
			    double ci_half, char *err, size_t errlen);

/* State of one job (copied into state[16]); -ENOENT. */
int bb_store_job_state(struct bb_store *s, int64_t id, char *state,
		       char *err, size_t errlen);

/* For /metrics: {"jobs_by_state":{"queued":n,...all seven},
 * "runs_total": n} (runs_total: every stored run; a group's parent is
 * not counted, its hosts' jobs are).  Two counting queries
 * on indexes, whatever the number of targets. */
int bb_store_metrics(struct bb_store *s, struct json_object **out,
		     char *err, size_t errlen);

/* The knob journal.  A row is written (state "pending") BEFORE the knob
 * is changed, holding the original value; marked "applied" after the
 * write, "restored" after the original was written back.  job_id 0: none.
 * Marks only go forward (pending -> applied -> restored, or pending ->
 * restored); the same state again is a no-op, going back is -EINVAL,
 * an unknown id -ENOENT.  Both write with synchronous=FULL.  dev (NULL:
 * unknown) is the device the knob belongs to: recovery restores the row
 * only onto that device. */
int bb_store_knob_journal(struct bb_store *s, int64_t job_id,
			  const char *target, const char *knob,
			  const char *path, const char *original,
			  const char *applied,
			  const struct bb_sysknob_dev *dev, int64_t *id,
			  char *err, size_t errlen);
int bb_store_knob_mark(struct bb_store *s, int64_t id, const char *state,
		       char *err, size_t errlen);

/* Every journal row not yet restored (of this handle's journal: see
 * bb_store_open_journal), oldest first (restore newest first
 * if one knob appears twice: the oldest original wins).  The callback's
 * non-zero return stops the walk and is returned.  The rows are copied
 * before the walk and the handle is not locked during it: the callback
 * may call the store (e.g. bb_store_knob_mark on the same handle); the
 * row's strings live until the callback returns. */
struct bb_knob_row {
	int64_t id;
	int64_t job_id;
	const char *target, *knob, *path, *original, *applied, *state;
	bool has_dev;               /* false: journaled before the device was */
	struct bb_sysknob_dev dev;
};
/* A row whose device is gone or is another device now: never written
 * back, kept with the reason, left out of bb_store_knobs_unrestored. */
int bb_store_knob_unrestorable(struct bb_store *s, int64_t id,
			       const char *why, char *err, size_t errlen);
int bb_store_knobs_unrestored(struct bb_store *s,
			      int (*cb)(void *arg,
					const struct bb_knob_row *row),
			      void *arg, char *err, size_t errlen);
/* Every journal row of a job, oldest first, for the job document (the
 * store's knob_journal: with a local journal, the copies of it, "id"
 * then being the copy's):
 * [{"id","target","knob","path","original","applied","state","created",
 *   "restored" (ISO 8601 or null), "device", "device_ident" (null when
 *   unknown), "not_restorable" (why, or null)}]. */
int bb_store_job_knobs(struct bb_store *s, int64_t job_id,
		       struct json_object **out, char *err, size_t errlen);

/* Event log: level "info"/"warning"/"error" (-EINVAL otherwise), job_id
 * 0 for none (-ENOENT for a job that does not exist). */
int bb_store_event(struct bb_store *s, int64_t job_id, const char *level,
		   const char *msg);

#endif
