/* SPDX-License-Identifier: GPL-2.0-only */
/* scheduler.h - the scheduler (not "sched.h": that would shadow <sched.h>):
 * a dispatcher thread that hands queued jobs to runner threads, one job
 * at a time (max_parallel_jobs 1, the default: FIFO), or up to
 * max_parallel_jobs at once when they do not conflict (jobconflict.h:
 * disjoint devices, disjoint CPU lists, no boot job; among them FIFO,
 * and no job overtakes an older one it conflicts with, so the oldest
 * waits only for running jobs), each through bb_jobrun_exec;
 * journals and applies sysfs knobs around each run; stores every run;
 * takes cancellation within a second; publishes progress. */
#ifndef BB_SCHEDULER_H
#define BB_SCHEDULER_H

#include "dconfig.h"
#include <biobench/jobspec.h>
#include "store.h"

#include <json-c/json.h>
#include <pthread.h>

struct bb_sched;

/* Open the scheduler's own store handle on db_path, recover (jobs left
 * running -> interrupted; every unrestored journaled knob written back;
 * a boot job left rebooting goes on when this boot is the kernel it
 * expects, with a new boot id and before its deadline, else fails) and
 * start the thread.  0 or -errno with a message. */
int bb_sched_start(struct bb_sched **out, const char *db_path,
		   char *err, size_t errlen);

/* bb_sched_start as a daemon of the fleet (store.h, "the fleet"): its
 * handle is the daemon host_name's (bb_store_set_daemon), registered
 * with host (bb_host_info JSON text), devices (JSON text: devices and
 * allow-list) and version; it claims the jobs it runs with a lease of
 * lease_s, and a heartbeat thread ("bb-heartbeat", every third of the
 * lease, at least every second) refreshes the registry, renews the
 * leases (a running job is stopped when it was lost) and interrupts
 * other daemons' running jobs whose leases expired.  f NULL: as
 * bb_sched_start (no registry, no claims: every job is this one's). */
struct bb_sched_fleet {
	const char *host_name;
	unsigned lease_s;
	const char *host, *devices, *version;
};
int bb_sched_start_fleet(struct bb_sched **out, const char *db_path,
			 const struct bb_sched_fleet *f, char *err,
			 size_t errlen);

/* The configuration whose allow-list is enforced again right before each
 * job runs (it may have been reloaded since the job was accepted, or the
 * target replaced by a symlink): *cfg is read with lock read-held; the
 * job runs on the canonical target path that was checked.  Until this is
 * called (or bb_sched_kick), the thread starts no job: call it right after
 * bb_sched_start.  Without it (tests) targets are not checked. */
void bb_sched_set_config(struct bb_sched *s, pthread_rwlock_t *lock,
			 struct bb_dconfig *const *cfg);

/* Wake the thread: a job was queued in the store. */
void bb_sched_kick(struct bb_sched *s);

/* Cancel job id: a queued job is marked cancelled at once; a running
 * one stops within a second (knobs restored, state cancelled; the other
 * running jobs go on).
 * 0, -ENOENT (no such job), -EALREADY (already finished). */
int bb_sched_cancel(struct bb_sched *s, struct bb_store *st, int64_t id,
		    char *err, size_t errlen);

/* Progress of running job id, NULL when id is not running:
 * {"run": i (1-based current), "runs_planned", "runs_done",
 *  "elapsed_s", "eta_s" | null, "variant", "warmup", "boot" ("boot 3 of
 *  8 (B)" for a boot job, else null), "latest_iops"}. */
struct json_object *bb_sched_progress(struct bb_sched *s, int64_t id);

/* Whether a boot job armed kexec-exec (reboot.h) and raised SIGTERM for
 * it: main then stops everything cleanly and calls bb_reboot_exec(kexec).
 * Ask before bb_sched_stop. */
bool bb_sched_kexec_pending(struct bb_sched *s, char *kexec, size_t len);

/* Id of the oldest running job, 0 if idle. */
int64_t bb_sched_running(struct bb_sched *s);
/* The ids of the running jobs (max_parallel_jobs > 1: several), oldest
 * first, at most max of them; how many. */
size_t bb_sched_running_all(struct bb_sched *s, int64_t *ids, size_t max);

/* The health of the scheduler's store (bb_store_check), or -EIO while a
 * job's end could not be recorded (the message names the job).  While
 * it fails, queued jobs wait, and the running job stops before its next
 * run.  0 or -errno with a message; never waits for the store. */
int bb_sched_store_check(struct bb_sched *s, char *err, size_t errlen);

/* A job that ended but whose end the store refused: its state (as it
 * ended) and error (with the store's reason); false when id is not
 * such a job.  The dispatcher records it before it starts another job
 * (one such end per runner at most). */
bool bb_sched_unrecorded(struct bb_sched *s, int64_t id, char *state,
			 size_t slen, char *error, size_t elen);

/* Stop: interrupt every running job (their knobs restored, state
 * interrupted), join the dispatcher and the runners, close its store. */
void bb_sched_stop(struct bb_sched *s);

#endif
