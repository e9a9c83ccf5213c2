// SPDX-License-Identifier: GPL-2.0-only
/* scheduler.c - see scheduler.h.
 *
 * A dispatcher thread ("bb-sched") takes queued jobs from the store and
 * hands each to a runner (struct sched_runner: one per slot, up to
 * max_parallel_jobs of them at once, each its own thread "bb-run-N"),
 * which marks it running and runs it through bb_jobrun_exec with three
 * hooks:
 *   before_run: for each sysfs knob of the variant, read the original,
 *               journal it (state pending) in the store, write the new
 *               value, mark the row applied;
 *   after_run:  write every original back (newest first), mark the rows
 *               restored, then store the run (result, samples, histogram);
 *   on_round:   store the comparison so far.
 * The journal is written before a knob changes, so a crash at any point
 * leaves a row from which the next start restores the knob. */
#include "scheduler.h"

#include "reboot.h"
#include <biobench/boot.h>
#include <biobench/hostinfo.h>
#include <biobench/jobconflict.h>
#include <biobench/jobrun.h>
#include "log.h"
#include <biobench/result_json.h>
#include <biobench/sysknob.h>
#include <biobench/targetpath.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define SCHED_POLL_S 5 /* look at the store even without a kick */
#define SCHED_POLL_SHARED_S 1 /* ... a shared one: other daemons' HTTP
				 threads queue jobs for this one */
/* Space kept next to the database (DB-reserve, allocated) so that the end
 * of a job can still be recorded when the filesystem fills up during it:
 * released on -ENOSPC, the write retried, re-made before the next job. */
#define SCHED_RESERVE_BYTES (1 << 20)
#define SCHED_FINISH_RETRY_S 10 /* then kept in memory (see unrec) and
				   retried before each next job */
#define SCHED_MAX_SLOTS BB_DCONFIG_MAX_PARALLEL /* runners at most */
#define SCHED_CANDIDATES 32 /* queued jobs looked at per dispatch */

struct sched_progress {
	unsigned run;          /* 1-based current run */
	unsigned runs_planned;
	unsigned runs_done;
	char variant[32];
	bool warmup;
	double latest_iops;    /* the current run's last second, else the
				  last finished run's */
	unsigned last_run;     /* 1-based, the last finished run (0: none) */
	char last_variant[32]; /* its variant */
	bool last_warmup;
	double last_iops;      /* its IOPS */
	uint64_t t_start_ns;
	double eta_s;
	char boot[96];         /* boot jobs: "boot 3 of 8 (B)", "" */
};

/* A job whose end the store refused (disk full, I/O error): the API shows
 * it ended; the dispatcher records it before it starts another job. */
struct sched_unrec {
	int64_t id;            /* 0: the entry is free */
	char state[16];
	char *verdict, *cmp, *error, *why;
};

/* One slot of max_parallel_jobs: a thread running one job. */
struct sched_runner {
	struct bb_sched *s;
	unsigned slot;
	pthread_t tid;
	bool joinable;         /* dispatcher only: tid is to be joined */
	/* under s->lock */
	bool busy;             /* a job handed to it, until its thread ends */
	int64_t running_id;    /* the job, once the thread took it */
	struct sched_progress prog;
	struct bb_job_footprint fp; /* what the job holds (jobconflict.h) */
	_Atomic bool cancel;   /* stop its job */
	/* handed over by the dispatcher before the thread starts */
	int64_t start_id;
	char *spec;
	bool resume;
	/* the runner's thread only */
	int64_t job_id;
	struct bb_job *job;
	struct bb_sysknob_set knobs;  /* applied for the current run */
	struct bb_sysknob_dev knob_dev; /* the device they belong to */
	bool knob_disk_mounted;         /* the device's disk holds a mount */
	char knob_mounted_at[PATH_MAX]; /* which, for messages */
};

struct bb_sched {
	struct bb_store *st;   /* the scheduler's own handle (its functions
				  lock it: shared by the runners) */
	char reserve[4096];    /* DB-reserve, "" when none */
	char reserve_dir[4096]; /* its directory */
	pthread_t tid;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool kicked;           /* under lock */
	bool stopping;         /* under lock */
	_Atomic bool shutdown; /* the runners' cancel is a daemon stop */
	pthread_rwlock_t *cfg_lock;      /* under lock: set once */
	struct bb_dconfig *const *cfgp;  /* under lock: NULL = no checks */
	struct sched_runner run[SCHED_MAX_SLOTS]; /* see sched_runner */
	/* under lock: ends the store refused, at most one per runner (no
	 * job starts while one is left) */
	struct sched_unrec unrec[SCHED_MAX_SLOTS];
	bool store_bad_logged;  /* dispatcher only */
	int64_t wait_logged;    /* dispatcher only: the head job whose wait
				   was logged */
	/* boot jobs */
	int64_t resume_id;      /* a boot job whose boot came up right at
				   start: run before the queue (dispatcher) */
	bool unarm_pending;     /* under lock: a boot job failed at the
				   recovery: unarm once the configuration
				   is known (the next boot is the host's
				   default) */
	bool kexec_pending;     /* under lock: kexec-exec armed; main runs
				   kexec -e after the clean stop */
	char kexec_path[PATH_MAX]; /* under lock */

	/* the fleet (bb_sched_start_fleet): the heartbeat thread renews the
	 * leases of this daemon's claims and sweeps the others' expired
	 * ones; hb_* under lock */
	bool fleet;
	unsigned lease_s;
	unsigned poll_s;       /* SCHED_POLL_S, or _SHARED_S on PostgreSQL */
	pthread_t hb_tid;
	bool hb_started;
	pthread_cond_t hb_cond;
};

static int recheck_target(struct bb_sched *s, int64_t id, struct bb_job *job,
			  bool first, char *err, size_t errlen);
static int job_spec(struct bb_store *st, int64_t id, char **spec, char *err,
		    size_t errlen);

/* ---- knobs -------------------------------------------------------------- */

/* The knob hooks: the journal.  A row (pending, holding the original and
 * the device) is written before the knob changes, marked applied after
 * the write and restored after the original went back. */
static int knob_journal(void *arg, struct bb_sysknob_applied *k,
			const char *value, char *err, size_t errlen)
{
	struct sched_runner *r = arg;

	return bb_store_knob_journal(r->s->st, r->job_id, r->job->target,
				     k->knob, k->path, k->original, value,
				     &r->knob_dev, &k->journal_id, err, errlen);
}

static void knob_applied(void *arg, const struct bb_sysknob_applied *k)
{
	struct sched_runner *r = arg;

	bb_store_knob_mark(r->s->st, k->journal_id, "applied", NULL, 0);
}

static void knob_restored(void *arg, const struct bb_sysknob_applied *k,
			  int ret, const char *msg)
{
	struct sched_runner *r = arg;

	if (ret < 0) {
		bb_log(LOG_ERR, "job %lld: cannot restore %s to '%s': %s",
		       (long long)r->job_id, k->path, k->original, msg);
		bb_store_event(r->s->st, r->job_id, "error", msg);
		return;
	}
	bb_store_knob_mark(r->s->st, k->journal_id, "restored", NULL, 0);
	/* a variant that set the value the device had: nothing to say */
	if (ret != BB_SYSKNOB_UNCHANGED)
		bb_log(LOG_INFO, "job %lld: restored %s = %s",
		       (long long)r->job_id, k->path, k->original);
}

static const struct bb_sysknob_hooks sched_knob_hooks = {
	.before_write = knob_journal,
	.after_write = knob_applied,
	.after_restore = knob_restored,
};

/* Write back every applied knob, newest first; the first error. */
static int restore_knobs(struct sched_runner *r, char *err, size_t errlen)
{
	return bb_sysknob_restore_set(&r->knobs, &sched_knob_hooks, r, err,
				      errlen);
}

/* The daemon's configuration and its lock (set once, read under the
 * scheduler's lock); NULL: none set (tests), nothing to check. */
static struct bb_dconfig *const *sched_config(struct bb_sched *s,
					      pthread_rwlock_t **lock)
{
	struct bb_dconfig *const *cfgp;

	pthread_mutex_lock(&s->lock);
	*lock = s->cfg_lock;
	cfgp = s->cfgp;
	pthread_mutex_unlock(&s->lock);
	return cfgp;
}

/* Before knobs are written: each is still allowed by the current
 * configuration (allow_knobs, reloaded meanwhile perhaps).  0 or -EACCES
 * with the reason. */
static int recheck_knobs(struct sched_runner *r,
			 const struct bb_job_variant *v, char *err,
			 size_t errlen)
{
	struct bb_sched *s = r->s;
	pthread_rwlock_t *lock;
	struct bb_dconfig *const *cfgp;
	char why[1024];
	int ret = 0;

	cfgp = sched_config(s, &lock);
	if (!cfgp)
		return 0;
	pthread_rwlock_rdlock(lock);
	for (unsigned i = 0; !ret && i < v->nsysfs; i++) {
		ret = bb_dconfig_knob_allowed(
			*cfgp, r->job->target, v->sysfs[i].name,
			r->knob_disk_mounted &&
				bb_sysknob_dangerous(v->sysfs[i].name),
			r->knob_mounted_at, why, sizeof(why));
		if (ret)
			snprintf(err, errlen, "not run: sysfs.%s: %s",
				 v->sysfs[i].name, why);
	}
	pthread_rwlock_unlock(lock);
	return ret;
}

static int hook_before_run(void *arg, struct bb_jobrun *jr,
			   const struct bb_job_step *st, char *err,
			   size_t errlen)
{
	struct sched_runner *r = arg;
	struct bb_sched *s = r->s;
	const struct bb_job_variant *v = &r->job->v[st->variant];
	int ret;

	/* a store that lost its file, cannot write or has no room left
	 * stops the job: its runs would not be kept */
	ret = bb_sched_store_check(s, err, errlen);
	if (ret)
		return ret;
	pthread_mutex_lock(&s->lock);
	/* (a boot job's seq goes on past the runs of a redone boot) */
	r->prog.run = (r->job->boot_job ? jr->runs_done : jr->seq) + 1;
	r->prog.runs_planned = jr->runs_planned;
	snprintf(r->prog.variant, sizeof(r->prog.variant), "%s", v->name);
	r->prog.warmup = st->warmup;
	pthread_mutex_unlock(&s->lock);

	ret = recheck_knobs(r, v, err, errlen);
	if (ret)
		return ret;
	ret = bb_sysknob_apply_set(&r->knobs, v->sysfs, v->nsysfs,
				   &sched_knob_hooks, r, err, errlen);
	if (ret)
		return ret;
	/* last: the target checked; the run opens that canonical path
	 * without following any symlink (cfg.no_symlinks) */
	return recheck_target(s, r->job_id, r->job, false, err, errlen);
}

static int hook_after_run(void *arg, struct bb_jobrun *jr,
			  const struct bb_job_step *st, int rc,
			  const struct bb_result *r, char *err, size_t errlen)
{
	struct sched_runner *rn = arg;
	struct bb_sched *s = rn->s;
	struct bb_job_variant *v = &rn->job->v[st->variant];
	struct json_object *doc = NULL;
	struct bb_store_run run = {
		.job_id = rn->job_id,
		.variant = v->name,
		.seq = jr->seq,
		.round = st->round,
		.warmup = st->warmup,
	};
	char kerr[512] = "";
	int ret, kret;

	kret = restore_knobs(rn, kerr, sizeof(kerr));
	if (!rc) {
		run.state = "done";
		run.metric = bb_metric_value(rn->job->metric, r);
	} else {
		run.state = rc == -ECANCELED ? "cancelled" : "failed";
		run.error = r && r->error[0] ? r->error : "run failed";
	}
	if (r && (rc == 0 || r->io.ios)) {
		doc = bb_result_to_json(&v->cfg, r);
		if (doc) {
			json_object_object_add(
				doc, "quiescence",
				bb_quiesce_to_json(&jr->quiet,
						   &rn->job->quiesce));
			/* boot, kernel, version, queue settings at the start */
			bb_run_context_add_json(doc, &jr->run_ctx);
		}
		run.result = doc ? json_object_to_json_string_ext(
					   doc, JSON_C_TO_STRING_PLAIN) :
				   NULL;
		run.r = r;
	}
	ret = bb_store_run_insert(s->st, &run, NULL, err, errlen);
	json_object_put(doc);
	if (ret)
		return ret;
	if (kret) {
		snprintf(err, errlen, "%s", kerr);
		return kret;
	}
	pthread_mutex_lock(&s->lock);
	/* jr->runs_done counts this run once it finished (after this hook):
	 * the same count as the store's, never a failed or cancelled run */
	rn->prog.runs_done = jr->runs_done + (rc == 0);
	rn->prog.eta_s = bb_jobrun_eta_s(jr);
	if (!rc && r) {
		rn->prog.latest_iops = bb_result_iops(r);
		rn->prog.last_run = jr->seq + 1;
		snprintf(rn->prog.last_variant, sizeof(rn->prog.last_variant),
			 "%s", v->name);
		rn->prog.last_warmup = st->warmup;
		rn->prog.last_iops = rn->prog.latest_iops;
	}
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void hook_on_round(void *arg, struct bb_jobrun *jr)
{
	struct sched_runner *r = arg;
	struct bb_sched *s = r->s;
	struct json_object *cmp = bb_jobrun_to_json(jr);
	char err[256];

	pthread_mutex_lock(&s->lock);
	r->prog.runs_planned = jr->runs_planned;
	pthread_mutex_unlock(&s->lock);
	if (bb_store_job_progress(s->st, r->job_id, jr->runs_planned,
				  cmp ? json_object_to_json_string_ext(
						cmp, JSON_C_TO_STRING_PLAIN) :
					NULL,
				  err, sizeof(err)))
		bb_log(LOG_WARNING, "job %lld: cannot store progress: %s",
		       (long long)r->job_id, err);
	json_object_put(cmp);
}

static void hook_on_sample(const struct bb_config *cfg,
			   const struct bb_sample *smp, uint64_t interval_ms,
			   void *arg)
{
	struct sched_runner *r = arg;

	(void)cfg;
	if (!interval_ms)
		return;
	pthread_mutex_lock(&r->s->lock);
	r->prog.latest_iops = (double)smp->ios * 1000.0 / (double)interval_ms;
	pthread_mutex_unlock(&r->s->lock);
}

/* An A/A job that ended done: the spread of its pairs is the host's noise
 * floor for this target and metric (shown next to later verdicts). */
static void record_noise_floor(struct bb_sched *s, int64_t id,
			       const struct bb_job *job,
			       const struct bb_jobrun *jr, int64_t host_id)
{
	const struct bb_ab_result *c = &jr->cmp[1];
	char err[256];

	if (!job->aa || !jr->have_cmp || jr->cmp_ret[1] ||
	    c->method != BB_AB_METHOD_PAIRED || c->n < 2)
		return;
	if (bb_store_host_noise_add(s->st, host_id, id, job->target,
				    bb_metric_name(job->metric),
				    (unsigned)c->n, c->log_sd,
				    (log1p(c->ci_hi) - log1p(c->ci_lo)) / 2,
				    err, sizeof(err)))
		bb_log(LOG_WARNING, "job %lld: cannot store the noise floor: %s",
		       (long long)id, err);
}

/* ---- disk-full reserve --------------------------------------------------- */

/* (Re)make the reserve file; quietly nothing when there is no room. */
static void reserve_make(struct bb_sched *s)
{
	int fd;

	if (!s->reserve[0] || !access(s->reserve, F_OK))
		return;
	fd = open(s->reserve, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (posix_fallocate(fd, 0, SCHED_RESERVE_BYTES)) {
		close(fd);
		unlink(s->reserve);
		return;
	}
	close(fd);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static void unrecorded_clear(struct sched_unrec *u)
{
	free(u->verdict);
	free(u->cmp);
	free(u->error);
	free(u->why);
	memset(u, 0, sizeof(*u));
}

/* Remember an end the store refused (why: the store's message). */
static void unrecorded_set(struct bb_sched *s, int64_t id, const char *state,
			   const char *verdict, const char *cmp,
			   const char *error, const char *why)
{
	struct sched_unrec *u = NULL;

	pthread_mutex_lock(&s->lock);
	/* one per runner at most: no job starts while one is left */
	for (unsigned i = 0; !u && i < SCHED_MAX_SLOTS; i++)
		if (!s->unrec[i].id || s->unrec[i].id == id)
			u = &s->unrec[i];
	if (u) {
		unrecorded_clear(u);
		u->id = id;
		snprintf(u->state, sizeof(u->state), "%s", state);
		u->verdict = dup_or_null(verdict);
		u->cmp = dup_or_null(cmp);
		u->error = dup_or_null(error);
		u->why = dup_or_null(why);
	}
	pthread_mutex_unlock(&s->lock);
}

/* The first remembered end, under lock (NULL: none). */
static struct sched_unrec *unrecorded_first(struct bb_sched *s)
{
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++)
		if (s->unrec[i].id)
			return &s->unrec[i];
	return NULL;
}

/* Record the remembered ends again.  0 when there is none (left). */
static int unrecorded_retry(struct bb_sched *s)
{
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++) {
		struct sched_unrec *u = &s->unrec[i];
		char err[512] = "";
		int64_t id;
		int ret;

		pthread_mutex_lock(&s->lock);
		id = u->id;
		pthread_mutex_unlock(&s->lock);
		if (!id)
			continue;
		/* a set entry changes only on the dispatcher (this thread)
		 * and bb_sched_stop after it: its strings stay */
		ret = bb_store_job_finish(s->st, id, u->state, u->verdict,
					  u->cmp, u->error, err, sizeof(err));
		if (ret && ret != -EALREADY && ret != -ENOENT) {
			pthread_mutex_lock(&s->lock);
			free(u->why);
			u->why = strdup(err);
			pthread_mutex_unlock(&s->lock);
			return ret;
		}
		bb_log(LOG_INFO, "job %lld: its end (%s) is recorded now",
		       (long long)id, u->state);
		pthread_mutex_lock(&s->lock);
		unrecorded_clear(u);
		pthread_mutex_unlock(&s->lock);
	}
	return 0;
}

/* Record the end of a job.  When the filesystem is full: release the
 * reserve and retry, then retry once a second for a while (space may come
 * back); a job whose end still cannot be recorded is kept in memory
 * (shown by the API as ended, with the store's error) and recorded before
 * the next job starts (or marked interrupted at the next start). */
static int finish_job(struct bb_sched *s, int64_t id, const char *state,
		      const char *verdict, const char *cmp, const char *error)
{
	char err[512] = "";
	int ret;

	ret = bb_store_job_finish(s->st, id, state, verdict, cmp, error, err,
				  sizeof(err));
	if (ret == -ENOSPC && s->reserve[0] && !unlink(s->reserve)) {
		bb_log(LOG_WARNING, "job %lld: %s: released %s to record the "
		       "job's end", (long long)id, err, s->reserve);
		ret = bb_store_job_finish(s->st, id, state, verdict, cmp,
					  error, err, sizeof(err));
	}
	for (int i = 0; ret == -ENOSPC && i < SCHED_FINISH_RETRY_S; i++) {
		bool stop;

		pthread_mutex_lock(&s->lock);
		stop = s->stopping;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
		sleep(1);
		ret = bb_store_job_finish(s->st, id, state, verdict, cmp,
					  error, err, sizeof(err));
	}
	if (ret == -EALREADY) {
		/* it ended without us: another daemon's sweep interrupted it
		 * when its lease expired; the store keeps that end */
		bb_log(LOG_WARNING, "job %lld: not recorded as %s: %s",
		       (long long)id, state, err);
		return 0;
	}
	if (ret) {
		bb_log(LOG_ERR, "job %lld: cannot record its end (%s): %s; "
		       "retried before the next job", (long long)id, state,
		       err[0] ? err : strerror(-ret));
		unrecorded_set(s, id, state, verdict, cmp, error,
			       err[0] ? err : strerror(-ret));
	}
	return ret;
}

/* ---- the allow-list, again -------------------------------------------- */

/* Right before a job runs (first) and before each of its runs: its target
 * must still be allowed by the current configuration (for writing when a
 * variant writes, which also needs the job's allow_write).  The job runs
 * on the canonical path checked first (bb_target_canonical, the
 * allow-list's canonicaliser); a later run whose path no longer resolves
 * to itself (a symlink put in its place meanwhile) is refused.  Every run
 * then opens that path with cfg.no_symlinks: through one pinned openat2
 * that follows no symlink anywhere (core/io/pin.c), so a symlink put in
 * place between this check and the open is refused, never followed, and
 * there is no other way the target is opened.  0, or -EACCES with the
 * reason in err. */
/* One target of the job: canonical (nop as is) into canon, unchanged
 * since the first check, allowed; 0 or -errno with err set. */
static int recheck_one(struct bb_dconfig *const *cfgp, pthread_rwlock_t *lock,
		       const char *target, bool first, bool write, char *canon,
		       size_t clen, char *err, size_t errlen)
{
	char why[1024] = "";
	int ret;

	if (strcmp(target, "nop")) {
		ret = bb_target_canonical(target, canon, clen, why,
					  sizeof(why));
		if (ret) {
			snprintf(err, errlen, "not run: %s", why);
			return ret;
		}
	} else {
		snprintf(canon, clen, "nop");
	}
	if (!first && strcmp(canon, target)) {
		snprintf(err, errlen, "not run: target %s now resolves to %s "
			 "(replaced during the job)", target, canon);
		return -EACCES;
	}
	pthread_rwlock_rdlock(lock);
	ret = bb_dconfig_target_allowed(*cfgp, canon, write, why,
					sizeof(why));
	pthread_rwlock_unlock(lock);
	if (ret)
		snprintf(err, errlen, "not run: %s", why[0] ? why :
			 "target not allowed");
	return ret;
}

static int recheck_target(struct bb_sched *s, int64_t id, struct bb_job *job,
			  bool first, char *err, size_t errlen)
{
	pthread_rwlock_t *lock;
	struct bb_dconfig *const *cfgp;
	struct bb_config *canon = NULL;
	char one[PATH_MAX];
	bool write = false;
	int ret = 0;

	cfgp = sched_config(s, &lock);
	if (!cfgp)
		return 0;
	for (unsigned i = 0; i < job->nvariants; i++)
		write |= bb_rw_writes(job->v[i].cfg.rw) ||
			 job->v[i].cfg.verify;
	/* every target (several files, a tiou line's FILEs), their
	 * canonical list built in canon */
	canon = calloc(1, sizeof(*canon));
	if (!canon) {
		snprintf(err, errlen, "not run: out of memory");
		return -ENOMEM;
	}
	for (const char *p = job->target; p && !ret;
	     p = bb_job_next_target(job, p)) {
		ret = recheck_one(cfgp, lock, p, first, write, one,
				  sizeof(one), err, errlen);
		if (!ret && (p == job->target ?
				     bb_config_set_target(canon, one) :
				     bb_config_add_target(canon, one))) {
			snprintf(err, errlen, "not run: the canonical target "
				 "paths are longer than %zu bytes in all",
				 sizeof(canon->target) - 2);
			ret = -EACCES;
		}
	}
	if (ret)
		goto out;
	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_job_variant *v = &job->v[i];

		if ((bb_rw_writes(v->cfg.rw) || v->cfg.verify) &&
		    !v->cfg.allow_write && !bb_target_is_nop(job->target)) {
			snprintf(err, errlen, "not run: variant %s writes to %s "
				 "without \"allow_write\": true", v->name,
				 canon->target);
			ret = -EACCES;
			goto out;
		}
	}
	if (memcmp(canon->target, job->target, sizeof(job->target))) {
		bb_log(LOG_INFO, "job %lld: target %s%s runs as %s%s",
		       (long long)id, job->target,
		       job->ntargets > 1 ? " ..." : "", canon->target,
		       job->ntargets > 1 ? " ..." : "");
		memcpy(job->target, canon->target, sizeof(job->target));
		for (unsigned i = 0; i < job->nvariants; i++)
			memcpy(job->v[i].cfg.target, canon->target,
			       sizeof(job->v[i].cfg.target));
	}
	for (unsigned i = 0; i < job->nvariants; i++)
		job->v[i].cfg.no_symlinks = true;
out:
	free(canon);
	return ret;
}

/* ---- one job ------------------------------------------------------------ */

/* A job this daemon claimed and cannot run (why: its target refused
 * here), addressed to no host: left queued for another host
 * (bb_store_job_refuse), true; failed by the store when no live host is
 * left to take it (true too: the store recorded its end).  False when it
 * is this daemon's to fail (addressed to it, or the store refused). */
static bool leave_for_another(struct bb_sched *s, int64_t id, const char *why)
{
	char err[512];
	bool failed = false;
	int ret;

	if (!s->fleet)
		return false;
	ret = bb_store_job_refuse(s->st, id, why, &failed, err, sizeof(err));
	if (ret == -EPERM)
		return false;
	if (ret) {
		bb_log(LOG_ERR, "job %lld: cannot leave it for another host: "
		       "%s", (long long)id, err);
		return false;
	}
	if (failed)
		bb_log(LOG_WARNING, "job %lld failed: no live host can run "
		       "it (%s here)", (long long)id, why);
	else
		bb_log(LOG_INFO, "job %lld: left for another host: %s",
		       (long long)id, why);
	return true;
}

static bool job_has_knobs(const struct bb_job *job)
{
	for (unsigned i = 0; i < job->nvariants; i++)
		if (job->v[i].nsysfs)
			return true;
	return false;
}

static const struct bb_jobrun_ops sched_ops = {
	.before_run = hook_before_run,
	.after_run = hook_after_run,
	.on_round = hook_on_round,
	.on_sample = hook_on_sample,
};

/* ---- boot jobs ---------------------------------------------------------- */

/* ms since the epoch (the deadline of a boot outlives this boot). */
static int64_t realtime_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What a boot job needs of the configuration, read under its lock. */
struct boot_conf {
	bool have;              /* a configuration is set (not in tests) */
	bool allow_reboot;
	unsigned max_boots, timeout_s;
	struct bb_reboot_cmds cmds;
};

static void boot_conf_get(struct bb_sched *s, struct boot_conf *bc)
{
	pthread_rwlock_t *lock;
	struct bb_dconfig *const *cfgp;

	memset(bc, 0, sizeof(*bc));
	cfgp = sched_config(s, &lock);
	if (!cfgp)
		return;
	pthread_rwlock_rdlock(lock);
	bc->have = true;
	bc->allow_reboot = (*cfgp)->allow_reboot;
	bc->max_boots = (*cfgp)->max_boots_per_job;
	bc->timeout_s = (*cfgp)->boot_timeout_s;
	bb_reboot_cmds_of(&bc->cmds, *cfgp);
	pthread_rwlock_unlock(lock);
}

/* Before a boot job starts (or goes on after a reboot): the configuration
 * still allows it, and (unless it says allow_other_jobs) no other job
 * waits.  0 or -EACCES with err. */
static int boot_gate(struct bb_sched *s, const struct bb_job *job, bool resume,
		     char *err, size_t errlen)
{
	struct boot_conf bc;
	unsigned queued = 0;
	char e[256];

	boot_conf_get(s, &bc);
	if (!bc.have || !bc.allow_reboot) {
		snprintf(err, errlen, "not run: a boot job reboots the host, "
			 "and this daemon's configuration says allow_reboot = "
			 "no");
		return -EACCES;
	}
	if (job->boots * job->nvariants > bc.max_boots) {
		snprintf(err, errlen, "not run: %u boots, more than "
			 "max_boots_per_job = %u", job->boots * job->nvariants,
			 bc.max_boots);
		return -EACCES;
	}
	/* the configuration (boot_dirs) or the files may have changed since
	 * the submission; the arm opens and checks them once more */
	{
		char field[128], why[PATH_MAX + 512];
		int ret = bb_boot_job_check(bc.cmds.boot_dirs,
					    bc.cmds.nboot_dirs, job, field,
					    sizeof(field), why, sizeof(why));

		if (ret) {
			snprintf(err, errlen, "not run: %s: %s", field, why);
			return ret;
		}
	}
	if (resume || job->allow_other_jobs)
		return 0;
	if (bb_store_jobs_queued(s->st, &queued, e, sizeof(e))) {
		snprintf(err, errlen, "not started: %s", e);
		return -EIO;
	}
	/* the job itself is still queued */
	if (queued > 1) {
		snprintf(err, errlen, "not started: %u other job(s) are queued "
			 "for this host, and a boot job reboots it between its "
			 "boots (\"allow_other_jobs\": true starts it anyway)",
			 queued - 1);
		return -EBUSY;
	}
	return 0;
}

/* The statistics of a boot job from its stored runs (each boot's median,
 * paired by boot pair; discarded runs left out), stored as its progress
 * (stats false: none, only *next_seq).  *next_seq: the first seq no stored
 * run of the job has (raised, never lowered). */
static int boot_results(struct bb_sched *s, const struct bb_job *job,
			int64_t id, struct bb_jobrun *jr, int64_t *next_seq,
			bool stats, char *err, size_t errlen)
{
	struct json_object *doc = NULL, *runs, *cmp;
	struct bb_jobrun_boot_run *br = NULL;
	size_t n = 0, nruns;
	int ret;

	ret = bb_store_job_runs(s->st, id, false, &doc, err, errlen);
	if (ret)
		return ret;
	if (!json_object_object_get_ex(doc, "runs", &runs) ||
	    !json_object_is_type(runs, json_type_array)) {
		snprintf(err, errlen, "job %lld: its runs cannot be read",
			 (long long)id);
		ret = -EIO;
		goto out;
	}
	nruns = json_object_array_length(runs);
	br = calloc(nruns ? nruns : 1, sizeof(*br));
	if (!br) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < nruns; i++) {
		struct json_object *r = json_object_array_get_idx(runs, i), *v;
		const char *st = NULL, *var = NULL;
		unsigned vi = job->nvariants;

		if (json_object_object_get_ex(r, "state", &v))
			st = json_object_get_string(v);
		if (json_object_object_get_ex(r, "variant", &v))
			var = json_object_get_string(v);
		if (json_object_object_get_ex(r, "seq", &v) &&
		    json_object_get_int64(v) >= *next_seq)
			*next_seq = json_object_get_int64(v) + 1;
		/* a redone boot's first attempt is kept, out of the
		 * statistics */
		if (json_object_object_get_ex(r, "discarded", &v) && v)
			continue;
		if (!st || strcmp(st, "done") || !var ||
		    (json_object_object_get_ex(r, "warmup", &v) &&
		     json_object_get_boolean(v)))
			continue;
		for (unsigned k = 0; k < job->nvariants; k++)
			if (!strcmp(var, job->v[k].name))
				vi = k;
		if (vi == job->nvariants ||
		    !json_object_object_get_ex(r, "metric", &v))
			continue;
		br[n].variant = vi;
		br[n].value = json_object_get_double(v);
		br[n].boot = json_object_object_get_ex(r, "round", &v) ?
				     (unsigned)json_object_get_int(v) : 0;
		br[n].sec_var = NAN;
		br[n].seconds = json_object_object_get_ex(r, "duration_ns", &v) ?
					json_object_get_double(v) / 1e9 : 0;
		if (br[n].value > 0)
			n++;
	}
	if (!stats) {
		ret = 0;
		goto out;
	}
	ret = bb_jobrun_boot_results(jr, br, n);
	if (ret == -EINVAL)
		ret = 0; /* no pair yet */
	if (ret) {
		snprintf(err, errlen, "job %lld: boot statistics: %s",
			 (long long)id, strerror(-ret));
		goto out;
	}
	cmp = bb_jobrun_to_json(jr);
	if (bb_store_job_progress(s->st, id, jr->runs_planned,
				  cmp ? json_object_to_json_string_ext(
						cmp, JSON_C_TO_STRING_PLAIN) :
					NULL,
				  err, errlen))
		bb_log(LOG_WARNING, "job %lld: cannot store progress: %s",
		       (long long)id, err);
	json_object_put(cmp);
out:
	free(br);
	json_object_put(doc);
	return ret;
}

/* Reboot the host into boot b (0-based) of job: arm the kernel, store the
 * job rebooting (durable) with the boot id now and the deadline, reboot,
 * then wait for the daemon to be stopped.  *rebooting: the job stays
 * rebooting (the next start goes on).  0 when the daemon is stopping for
 * the reboot, else -errno with err (the job then ends: cancelled,
 * failed). */
static int boot_reboot(struct sched_runner *r, const struct bb_job *job,
		       int64_t id, unsigned b, bool *rebooting, char *err,
		       size_t errlen)
{
	struct bb_sched *s = r->s;
	const struct bb_job_variant *v =
		&job->v[bb_job_boot_variant(job, b)];
	struct bb_boot_progress p = { 0 };
	struct bb_boot_facts f;
	struct boot_conf bc;
	char e[512] = "", line[BB_BOOT_CMDLINE_MAX * 4];
	const char *cmdline = NULL;
	uint64_t end;
	int ret;

	*rebooting = false;
	boot_conf_get(s, &bc);
	if (!bc.have || !bc.allow_reboot) {
		snprintf(err, errlen, "not rebooting into %s: allow_reboot = "
			 "no (the configuration changed during the job)",
			 v->name);
		return -EACCES;
	}
	bb_boot_facts_read(&f);
	if (!f.boot_id[0]) {
		snprintf(err, errlen, "not rebooting: the boot id cannot be "
			 "read, so the next boot could not be verified");
		return -EIO;
	}
	p.boot = b;
	p.boots = job->boots * job->nvariants;
	snprintf(p.variant, sizeof(p.variant), "%s", v->name);
	snprintf(p.boot_id_before, sizeof(p.boot_id_before), "%s", f.boot_id);
	p.deadline_ms = realtime_ms() + (int64_t)bc.timeout_s * 1000;
	/* the job's parameters on the host's line, or the line as it is */
	for (unsigned i = 0; i < job->nvariants && !cmdline; i++)
		if (job->v[i].boot.cmdline[0])
			cmdline = line;
	if (cmdline && !f.cmdline[0]) {
		/* appended to nothing, the line would lose root= & co */
		snprintf(err, errlen, "not rebooting into %s: /proc/cmdline "
			 "cannot be read, and the variant's parameters are "
			 "appended to it", v->name);
		return -EIO;
	}
	if (cmdline && bb_boot_cmdline_compose(job, bb_job_boot_variant(job, b),
					       f.cmdline, line,
					       sizeof(line))) {
		snprintf(err, errlen, "not rebooting into %s: the command line "
			 "would be longer than %zu bytes", v->name,
			 sizeof(line) - 1);
		return -E2BIG;
	}
	ret = bb_reboot_arm(&bc.cmds, &v->boot, cmdline, e, sizeof(e));
	if (ret) {
		snprintf(err, errlen, "cannot arm the boot into %s: %s",
			 v->name, e);
		return ret;
	}
	if (atomic_load(&r->cancel)) {
		bb_reboot_unarm(&bc.cmds, e, sizeof(e));
		snprintf(err, errlen, "cancelled");
		return -ECANCELED;
	}
	ret = bb_store_job_reboot(s->st, id, &p, e, sizeof(e));
	if (ret) {
		bb_reboot_unarm(&bc.cmds, e + strlen(e), sizeof(e) - strlen(e));
		snprintf(err, errlen, "not rebooting: %s", e);
		return ret;
	}
	*rebooting = true;
	bb_boot_progress_text(&p, e, sizeof(e));
	bb_log(LOG_WARNING, "job %lld: %s, %s", (long long)id, e,
	       bb_reboot_method_name(bc.cmds.method));
	if (bc.cmds.method == BB_REBOOT_KEXEC_EXEC) {
		/* the daemon stops cleanly, then main execs kexec -e */
		pthread_mutex_lock(&s->lock);
		s->kexec_pending = true;
		snprintf(s->kexec_path, sizeof(s->kexec_path), "%s",
			 bc.cmds.kexec);
		pthread_mutex_unlock(&s->lock);
		kill(getpid(), SIGTERM);
	} else {
		ret = bb_reboot_go(&bc.cmds, e, sizeof(e));
		if (ret) {
			*rebooting = false;
			snprintf(err, errlen, "cannot reboot into %s: %s",
				 v->name, e);
			bb_reboot_unarm(&bc.cmds, e, sizeof(e));
			return ret;
		}
	}
	/* systemd (or main, for kexec-exec) stops the daemon now */
	end = bb_now_ns() + (uint64_t)bc.timeout_s * 1000000000ull;
	while (!atomic_load(&s->shutdown) && bb_now_ns() < end) {
		/* bb_sched_stop sets shutdown before cancel */
		if (atomic_load(&r->cancel) && !atomic_load(&s->shutdown)) {
			*rebooting = false;
			pthread_mutex_lock(&s->lock);
			s->kexec_pending = false;
			pthread_mutex_unlock(&s->lock);
			bb_reboot_unarm(&bc.cmds, e, sizeof(e));
			snprintf(err, errlen, "cancelled");
			return -ECANCELED;
		}
		usleep(100 * 1000);
	}
	if (atomic_load(&s->shutdown))
		return 0;
	*rebooting = false;
	bb_reboot_unarm(&bc.cmds, e, sizeof(e));
	snprintf(err, errlen, "the host did not reboot into %s within "
		 "boot_timeout = %u s", v->name, bc.timeout_s);
	return -ETIMEDOUT;
}

/* A boot job's part on this boot: the runs of its boot (on a fresh job
 * first a reboot into the first variant when this kernel is not its),
 * the statistics so far, then the reboot into the next boot.  *rebooting
 * as boot_reboot; 0 with *rebooting false: every boot ran (jr holds the
 * comparison). */
static int boot_run(struct sched_runner *r, const struct bb_job *job,
		    int64_t id, struct bb_jobrun *jr, bool resume,
		    bool *rebooting, char *err, size_t errlen)
{
	struct bb_sched *s = r->s;
	unsigned nv = job->nvariants, total = job->boots * nv;
	unsigned per = job->warmup + job->repeat, b = 0, vi;
	struct bb_boot_progress p;
	struct bb_boot_facts f;
	int64_t next_seq = 0;
	char why[512];
	int ret;

	*rebooting = false;
	jr->runs_planned = total * per;
	jr->rounds_planned = total;
	if (resume) {
		ret = bb_store_job_boot(s->st, id, &p, err, errlen);
		if (ret)
			return ret;
		b = p.boot;
	}
	if (b >= total) {
		snprintf(err, errlen, "boot %u is beyond the job's %u boots",
			 b + 1, total);
		return -EINVAL;
	}
	vi = bb_job_boot_variant(job, b);
	/* the first boot on a kernel that is not its variant's, or a boot to redo
	 * after an interruption on a kernel that is not its variant's (a
	 * boot that came up after a reboot was checked already) */
	bb_boot_facts_read(&f);
	if (!bb_boot_matches(&job->v[vi].boot, &f, why, sizeof(why))) {
		bb_log(LOG_INFO, "job %lld: this kernel is not variant %s's "
		       "(%s): rebooting into it for boot %u", (long long)id,
		       job->v[vi].name, why, b + 1);
		return boot_reboot(r, job, id, b, rebooting, err, errlen);
	}
	if (!resume) {
		/* the progress before the first run: an interruption
		 * during the runs redoes this boot */
		memset(&p, 0, sizeof(p));
		p.boots = total;
		snprintf(p.variant, sizeof(p.variant), "%s", job->v[vi].name);
		snprintf(p.boot_id_before, sizeof(p.boot_id_before), "%s",
			 f.boot_id);
		ret = bb_store_job_boot_begin(s->st, id, &p, err, errlen);
		if (ret)
			return ret;
	}
	/* the earlier boots' runs all finished (a failure ends the job);
	 * the runs of this boot go after every stored one (a redone boot's
	 * first attempt keeps its seqs) */
	ret = boot_results(s, job, id, jr, &next_seq, false, err, errlen);
	if (ret)
		return ret;
	jr->runs_done = b * per;
	pthread_mutex_lock(&s->lock);
	snprintf(r->prog.boot, sizeof(r->prog.boot), "boot %u of %u (%s)",
		 b + 1, total, job->v[vi].name);
	r->prog.runs_planned = jr->runs_planned;
	pthread_mutex_unlock(&s->lock);
	for (unsigned k = 0; k < per; k++) {
		struct bb_job_step st = { .variant = vi, .round = b,
					  .warmup = k < job->warmup };

		jr->seq = (unsigned)next_seq + k;
		ret = bb_jobrun_step(jr, &st, &sched_ops, r, err, errlen);
		if (ret)
			return ret;
	}
	ret = boot_results(s, job, id, jr, &next_seq, true, err, errlen);
	if (ret || b + 1 == total)
		return ret;
	if (atomic_load(&r->cancel)) {
		snprintf(err, errlen, "cancelled");
		return -ECANCELED;
	}
	return boot_reboot(r, job, id, b + 1, rebooting, err, errlen);
}

static void run_job(struct sched_runner *r, int64_t id, const char *spec,
		    bool resume)
{
	struct bb_sched *s = r->s;
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_jobrun jr;
	struct json_object *host = NULL, *dev = NULL, *cmp = NULL;
	int64_t host_id = 0, dev_id = 0;
	bool jr_ok = false, running = false, rebooting = false;
	struct bb_devlocks locks = { 0 };
	char err[1024] = "", what[512];
	const char *state = BB_JOB_FAILED, *verdict = NULL;
	int ret;

	pthread_mutex_lock(&s->lock);
	r->running_id = id;
	memset(&r->prog, 0, sizeof(r->prog));
	r->prog.t_start_ns = bb_now_ns();
	r->prog.eta_s = -1;
	/* a stop requested before this point still stops this job */
	atomic_store(&r->cancel, s->stopping);
	pthread_mutex_unlock(&s->lock);
	r->job_id = id;
	r->job = job;
	memset(&r->knobs, 0, sizeof(r->knobs));
	memset(&r->knob_dev, 0, sizeof(r->knob_dev));

	if (!errs || !job) {
		snprintf(err, sizeof(err), "out of memory");
		goto finish;
	}
	ret = bb_job_parse_string(job, spec, strlen(spec), errs);
	if (ret) {
		snprintf(err, sizeof(err), "stored job spec no longer valid: %s",
			 errs->n ? errs->msg[0] : strerror(-ret));
		goto finish;
	}
	/* a job stored with long options in a line (before they were
	 * refused at submission) does not run either */
	if (bb_job_tiou_long_check(job, what, sizeof(what))) {
		snprintf(err, sizeof(err), "not run: %s", what);
		goto finish;
	}
	if (job->boot_job && boot_gate(s, job, resume, err, sizeof(err)))
		goto finish;
	if (recheck_target(s, id, job, true, err, sizeof(err))) {
		/* a job for any host: another host's allow-list may take it */
		if (!resume && leave_for_another(s, id, err))
			goto out;
		goto finish;
	}
	/* the device is the job's until it ends: no local `biobench run`
	 * or `ab` on it, nor their knob changes, meanwhile */
	snprintf(what, sizeof(what), "job %lld \"%.200s\"", (long long)id,
		 job->name);
	if (bb_devlocks_take(&locks, job->target, sizeof(job->target),
			     job->ntargets, "biobenchd", what, err,
			     sizeof(err)))
		goto finish;
	host = bb_host_info();
	dev = bb_target_device_info(job->target);
	if (bb_store_host_upsert(s->st, host, &host_id, err, sizeof(err)) ||
	    bb_store_device_upsert(s->st, dev, &dev_id, err, sizeof(err)))
		goto finish;
	/* a boot job going on after a reboot is running already */
	ret = resume ? 0 : bb_store_job_start(s->st, id, host_id, dev_id, err,
					      sizeof(err));
	if (ret == -EALREADY) {
		/* cancelled while it waited for us */
		bb_log(LOG_INFO, "job %lld: not started: %s", (long long)id,
		       err);
		goto out;
	}
	if (ret)
		goto finish;
	running = true;
	bb_log(LOG_INFO, "job %lld (%s) started on %s", (long long)id,
	       job->name, job->target);
	if (job_has_knobs(job) &&
	    (bb_sysknob_queue_dir(job->target, r->knobs.queue_dir,
				  sizeof(r->knobs.queue_dir), err,
				  sizeof(err)) ||
	     bb_sysknob_dev_of_queue(r->knobs.queue_dir, &r->knob_dev, err,
				     sizeof(err))))
		goto finish;
	r->knob_disk_mounted =
		job_has_knobs(job) &&
		bb_sysknob_disk_mounted(r->knobs.queue_dir, r->knob_mounted_at,
					sizeof(r->knob_mounted_at)) != 0;
	ret = bb_jobrun_init(&jr, job, &r->cancel);
	if (ret) {
		snprintf(err, sizeof(err), "cannot set up the job: %s",
			 strerror(-ret));
		goto finish;
	}
	jr_ok = true;
	if (job->boot_job)
		ret = boot_run(r, job, id, &jr, resume, &rebooting, err,
			       sizeof(err));
	else
		ret = bb_jobrun_exec(&jr, &sched_ops, r, err, sizeof(err));
	/* a hook may have failed half way through applying knobs */
	restore_knobs(r, err + strlen(err), sizeof(err) - strlen(err));
	if (rebooting) {
		/* the job stays rebooting: the next start goes on */
		bb_log(LOG_INFO, "job %lld: stopping for the reboot",
		       (long long)id);
		goto out;
	}
	if (job->boot_job && ret == -ECANCELED && atomic_load(&s->shutdown)) {
		/* the daemon stops in the middle of a boot (the host shuts
		 * down, an admin stops it): the job stays running, and the
		 * next start redoes this boot (recover_boot) */
		snprintf(what, sizeof(what), "daemon stopped during %s: the "
			 "boot is redone at the next start", r->prog.boot);
		bb_log(LOG_WARNING, "job %lld: %s", (long long)id, what);
		if (bb_store_event(s->st, id, "warning", what))
			bb_log(LOG_ERR, "job %lld: cannot store the event",
			       (long long)id);
		goto out;
	}
	/* a boot job that did not finish keeps the comparison of its last
	 * complete boot (jr holds the current boot's raw runs) */
	cmp = job->boot_job && ret ? NULL : bb_jobrun_to_json(&jr);
	verdict = bb_jobrun_verdict(&jr);
	if (!ret) {
		state = BB_JOB_DONE;
		err[0] = '\0';
		record_noise_floor(s, id, job, &jr, host_id);
	} else if (ret == -ECANCELED) {
		bool down = atomic_load(&s->shutdown);

		state = down ? BB_JOB_INTERRUPTED : BB_JOB_CANCELLED;
		snprintf(err, sizeof(err), "%s",
			 down ? "daemon stopped while the job ran" :
				"cancelled by request");
		verdict = NULL;
	} else {
		verdict = NULL;
	}

finish:
	if (!running && !err[0])
		snprintf(err, sizeof(err), "job could not start");
	finish_job(s, id, state, verdict,
		   cmp ? json_object_to_json_string_ext(cmp,
							JSON_C_TO_STRING_PLAIN) :
			 NULL,
		   err[0] ? err : NULL);
	bb_log(!strcmp(state, BB_JOB_DONE) ? LOG_INFO : LOG_WARNING,
	       "job %lld %s%s%s%s%s", (long long)id, state,
	       verdict ? ": " : "", verdict ? verdict : "",
	       err[0] ? ": " : "", err);
out:
	bb_devlocks_release(&locks);
	if (jr_ok)
		bb_jobrun_free(&jr);
	json_object_put(cmp);
	json_object_put(host);
	json_object_put(dev);
	if (job && job->spec)
		bb_job_free(job);
	free(job);
	free(errs);
	r->job = NULL;
	pthread_mutex_lock(&s->lock);
	r->running_id = 0;
	pthread_mutex_unlock(&s->lock);
}

/* ---- runners ------------------------------------------------------------ */

/* The runner's thread on its job's CPUs (the union of its variants'
 * lists): a job's threads never run on the HTTP CPUs (http_cpus), as
 * the engine's own threads do not.  A job without a CPU list keeps the
 * daemon's. */
static void runner_pin(const struct sched_runner *r)
{
	cpu_set_t set;
	unsigned n = 0;

	if (r->fp.all_cpus)
		return;
	CPU_ZERO(&set);
	for (unsigned c = 0; c < BB_JC_MAX_CPUS && c < CPU_SETSIZE; c++)
		if (r->fp.cpus[c / 64] >> (c % 64) & 1) {
			CPU_SET(c, &set);
			n++;
		}
	if (n && pthread_setaffinity_np(pthread_self(), sizeof(set), &set))
		bb_log(LOG_WARNING, "job %lld: its runner stays on the "
		       "daemon's CPUs: cannot pin it to the job's",
		       (long long)r->start_id);
}

static void *runner_main(void *arg)
{
	struct sched_runner *r = arg;
	struct bb_sched *s = r->s;

	run_job(r, r->start_id, r->spec, r->resume);
	free(r->spec);
	r->spec = NULL;
	pthread_mutex_lock(&s->lock);
	r->busy = false;
	/* a slot is free: the dispatcher looks at the queue again */
	s->kicked = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

static void *runner_thread(void *arg)
{
	runner_pin(arg);
	return runner_main(arg);
}

/* Hand job id (spec: malloc'd, the runner's now) to the free runner r.
 * When no thread can be made the dispatcher runs it itself. */
static void runner_start(struct bb_sched *s, struct sched_runner *r,
			 int64_t id, char *spec, bool resume,
			 const struct bb_job_footprint *fp)
{
	char name[16];
	int ret;

	r->start_id = id;
	r->spec = spec;
	r->resume = resume;
	pthread_mutex_lock(&s->lock);
	r->busy = true;
	r->fp = *fp;
	pthread_mutex_unlock(&s->lock);
	ret = pthread_create(&r->tid, NULL, runner_thread, r);
	if (!ret) {
		r->joinable = true;
		snprintf(name, sizeof(name), "bb-run-%u", r->slot);
		pthread_setname_np(r->tid, name);
		return;
	}
	bb_log(LOG_WARNING, "job %lld: no runner thread (%s): run by the "
	       "dispatcher", (long long)id, strerror(ret));
	runner_main(r);
}

/* Join the runners whose job ended. */
static void runners_join(struct bb_sched *s, bool all)
{
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++) {
		struct sched_runner *r = &s->run[i];
		bool done;

		if (!r->joinable)
			continue;
		pthread_mutex_lock(&s->lock);
		done = !r->busy;
		pthread_mutex_unlock(&s->lock);
		if (done || all) {
			pthread_join(r->tid, NULL);
			r->joinable = false;
		}
	}
}

/* The runner of job id, under lock (NULL: not running here). */
static struct sched_runner *runner_of(struct bb_sched *s, int64_t id)
{
	for (unsigned i = 0; id && i < SCHED_MAX_SLOTS; i++)
		if (s->run[i].running_id == id)
			return &s->run[i];
	return NULL;
}

/* An unsigned of the current configuration at offset (offsetof in
 * struct bb_dconfig), dflt without one. */
static unsigned sched_conf_uint(struct bb_sched *s, size_t offset,
				unsigned dflt)
{
	pthread_rwlock_t *lock;
	struct bb_dconfig *const *cfgp = sched_config(s, &lock);
	unsigned v;

	if (!cfgp)
		return dflt;
	pthread_rwlock_rdlock(lock);
	memcpy(&v, (const char *)*cfgp + offset, sizeof(v));
	pthread_rwlock_unlock(lock);
	return v;
}

/* max_parallel_jobs of the current configuration (1 without one). */
static unsigned max_parallel(struct bb_sched *s)
{
	unsigned n = sched_conf_uint(
		s, offsetof(struct bb_dconfig, max_parallel_jobs), 1);

	return n < 1 ? 1 : n > SCHED_MAX_SLOTS ? SCHED_MAX_SLOTS : n;
}

/* The footprint of a stored spec (jobconflict.h). */
static void spec_footprint(const char *spec, struct bb_job_footprint *fp)
{
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));

	if (!errs || !job)
		bb_job_footprint_alone(fp, "out of memory");
	else if (bb_job_parse_string(job, spec, strlen(spec), errs))
		bb_job_footprint_alone(fp, "its stored spec does not parse");
	else
		bb_job_footprint(job, fp);
	if (job && job->spec)
		bb_job_free(job);
	free(job);
	free(errs);
}

/* max_parallel_jobs > 1: the oldest queued job that conflicts neither
 * with a running job nor with an older queued one (which waits: nothing
 * overtakes a job it would then keep waiting, so the head of the queue
 * runs as soon as the jobs it conflicts with ended), claimed; its id,
 * spec and footprint.  -ENOENT when none may start now. */
static int pick_job(struct bb_sched *s, int64_t *id, char **spec,
		    struct bb_job_footprint *fp)
{
	struct bb_job_footprint *cand = calloc(SCHED_CANDIDATES, sizeof(*cand));
	struct bb_job_footprint *run = calloc(SCHED_MAX_SLOTS, sizeof(*run));
	int64_t run_id[SCHED_MAX_SLOTS];
	struct bb_store_queued *q = NULL;
	unsigned nrun = 0;
	size_t n = 0;
	char err[512], why[256];
	int ret;

	if (!cand || !run) {
		ret = -ENOMEM;
		goto out;
	}
	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++)
		if (s->run[i].busy) {
			run_id[nrun] = s->run[i].start_id;
			run[nrun++] = s->run[i].fp;
		}
	pthread_mutex_unlock(&s->lock);
	ret = bb_store_jobs_candidates(s->st, SCHED_CANDIDATES, &q, &n, err,
				       sizeof(err));
	if (ret) {
		bb_log(LOG_ERR, "scheduler: %s", err);
		goto out;
	}
	ret = -ENOENT;
	for (size_t i = 0; i < n; i++) {
		int64_t other = 0;
		bool mine = false;

		/* claimed and handed to a runner, not started yet */
		for (unsigned k = 0; k < nrun; k++)
			mine |= run_id[k] == q[i].id;
		if (mine) {
			/* in the running ones: holds nothing back twice */
			memset(&cand[i], 0, sizeof(cand[i]));
			continue;
		}
		spec_footprint(q[i].spec, &cand[i]);
		for (unsigned k = 0; !other && k < nrun; k++)
			if (bb_job_conflict(&cand[i], &run[k], why,
					    sizeof(why)))
				other = run_id[k];
		for (size_t k = 0; !other && k < i; k++)
			if (bb_job_conflict(&cand[i], &cand[k], why,
					    sizeof(why)))
				other = q[k].id;
		if (other) {
			if (!i && s->wait_logged != q[i].id) {
				bb_log(LOG_INFO, "job %lld waits for job %lld: "
				       "%s", (long long)q[i].id,
				       (long long)other, why);
				s->wait_logged = q[i].id;
			}
			continue;
		}
		ret = bb_store_job_claim_id(s->st, q[i].id, spec, err,
					    sizeof(err));
		if (ret == -ENOENT)
			continue; /* taken or cancelled meanwhile: it still
				     holds back what conflicts with it */
		if (ret) {
			bb_log(LOG_ERR, "scheduler: %s", err);
			break;
		}
		*id = q[i].id;
		*fp = cand[i];
		break;
	}
out:
	bb_store_queued_free(q, n);
	free(cand);
	free(run);
	return ret;
}

/* Start jobs while a runner is free: a boot job to go on first, then the
 * queue's (one at a time with max_parallel_jobs 1: the oldest, as
 * bb_store_job_next_queued claims it; else pick_job's). */
static void dispatch(struct bb_sched *s)
{
	for (;;) {
		struct sched_runner *fr = NULL;
		struct bb_job_footprint fp;
		unsigned busy = 0, max;
		char *spec = NULL;
		char err[512];
		int64_t id;
		int ret;

		runners_join(s, false);
		pthread_mutex_lock(&s->lock);
		for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++) {
			if (s->run[i].busy)
				busy++;
			else if (!fr && !s->run[i].joinable)
				fr = &s->run[i];
		}
		if (s->stopping)
			fr = NULL;
		pthread_mutex_unlock(&s->lock);
		max = max_parallel(s);
		if (!fr || busy >= max)
			return;
		/* no new job while the store cannot keep it */
		reserve_make(s);
		if (unrecorded_retry(s) ||
		    bb_sched_store_check(s, err, sizeof(err))) {
			if (!s->store_bad_logged)
				bb_log(LOG_ERR, "scheduler: queued jobs wait: %s",
				       err);
			s->store_bad_logged = true;
			return;
		}
		s->store_bad_logged = false;
		/* a boot job whose boot came up right goes first, alone */
		if (s->resume_id) {
			if (busy)
				return;
			id = s->resume_id;
			s->resume_id = 0;
			if (job_spec(s->st, id, &spec, err, sizeof(err))) {
				bb_log(LOG_ERR, "scheduler: job %lld: %s",
				       (long long)id, err);
				continue;
			}
			bb_job_footprint_alone(&fp, "a boot job");
			runner_start(s, fr, id, spec, true, &fp);
			continue;
		}
		if (max == 1) {
			ret = bb_store_job_next_queued(s->st, &id, &spec, err,
						       sizeof(err));
			if (ret && ret != -ENOENT)
				bb_log(LOG_ERR, "scheduler: %s", err);
			if (!ret)
				spec_footprint(spec, &fp);
		} else {
			ret = pick_job(s, &id, &spec, &fp);
		}
		if (ret)
			return;
		runner_start(s, fr, id, spec, false, &fp);
	}
}

static void recover_unarm(struct bb_sched *s);

static void *sched_main(void *arg)
{
	struct bb_sched *s = arg;
	bool unarm;

	/* no job before the first kick (bb_sched_set_config kicks): the
	 * allow-list is known before anything runs */
	pthread_mutex_lock(&s->lock);
	while (!s->kicked && !s->stopping)
		pthread_cond_wait(&s->cond, &s->lock);
	unarm = s->unarm_pending;
	s->unarm_pending = false;
	pthread_mutex_unlock(&s->lock);
	if (unarm)
		recover_unarm(s);
	for (;;) {
		struct timespec ts;

		pthread_mutex_lock(&s->lock);
		if (!s->kicked && !s->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += s->poll_s;
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
		}
		s->kicked = false;
		if (s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		pthread_mutex_unlock(&s->lock);
		dispatch(s);
	}
	/* bb_sched_stop cancelled every runner's job */
	runners_join(s, true);
	return NULL;
}

/* ---- recovery ----------------------------------------------------------- */

struct knob_rows {
	struct bb_knob_row *rows;
	char **strs;
	size_t n, cap;
};

static char *dupe(const char *s)
{
	return strdup(s ? s : "");
}

static int collect_row(void *arg, const struct bb_knob_row *row)
{
	struct knob_rows *k = arg;
	struct bb_knob_row *r;
	char **ss;

	if (k->n == k->cap) {
		size_t ncap = k->cap ? k->cap * 2 : 16;
		struct bb_knob_row *p = realloc(k->rows, ncap * sizeof(*p));
		char **q;

		if (!p)
			return -ENOMEM;
		k->rows = p;
		q = realloc(k->strs, ncap * 6 * sizeof(*q));
		if (!q)
			return -ENOMEM;
		k->strs = q;
		k->cap = ncap;
	}
	r = &k->rows[k->n];
	ss = &k->strs[k->n * 6];
	k->n++; /* counted first, so that whatever was copied is freed */
	/* the row's strings belong to the walk: copy them */
	r->id = row->id;
	r->job_id = row->job_id;
	r->target = ss[0] = dupe(row->target);
	r->knob = ss[1] = dupe(row->knob);
	r->path = ss[2] = dupe(row->path);
	r->original = ss[3] = dupe(row->original);
	r->applied = ss[4] = dupe(row->applied);
	r->state = ss[5] = dupe(row->state);
	r->has_dev = row->has_dev;
	r->dev = row->dev;
	for (int i = 0; i < 6; i++)
		if (!ss[i])
			return -ENOMEM;
	return 0;
}

/* Whether a journaled path may be written at recovery: a file of a block
 * queue directory in sysfs (after resolving symlinks), as
 * bb_sysknob_queue_dir gives them.  The journal is data read back from the
 * database file; a database edited by someone else must not make the
 * daemon (root) write its "original" text into an arbitrary file. */
static bool knob_path_ok(const char *path, char *why, size_t len)
{
	char real[PATH_MAX];
	struct statfs sf;

	if (!realpath(path, real)) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return false;
	}
	if (strncmp(real, "/sys/devices/", 13) || !strstr(real, "/queue/") ||
	    statfs(real, &sf) || sf.f_type != SYSFS_MAGIC) {
		snprintf(why, len, "%s is not a block queue knob in sysfs: "
			 "refused", path);
		return false;
	}
	return true;
}

/* Whether a journaled row's device is the one there now (dev_t, name,
 * identity: a loop device's backing file and inode, a WWID or serial) and
 * its path is that device's knob.  1 yes, 0 no (why says what differs),
 * -errno when the device is gone. */
static int knob_dev_ok(const struct bb_knob_row *r, char *why, size_t len)
{
	char link[64], dir[PATH_MAX], real[PATH_MAX];
	int ret = bb_sysknob_dev_same(&r->dev, why, len);

	if (ret <= 0)
		return ret;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", r->dev.major,
		 r->dev.minor);
	if (!realpath(link, dir) || !realpath(r->path, real) ||
	    strncmp(real, dir, strlen(dir)) ||
	    strncmp(real + strlen(dir), "/queue/", 7)) {
		snprintf(why, len, "%s is not a knob of %s", r->path,
			 r->dev.name);
		return 0;
	}
	return 1;
}

/* A journaled knob recovery did not write back: logged and an event of
 * its job (an error when the write failed, a warning when it was not
 * tried). */
static void recovery_failed(struct bb_store *st, const struct bb_knob_row *r,
			    bool error, const char *msg, const char *tail)
{
	char ev[1024];

	snprintf(ev, sizeof(ev), "recovery: %s %s to '%s' (job %lld): %s%s",
		 error ? "cannot restore" : "not restored", r->path,
		 r->original, (long long)r->job_id, msg, tail);
	bb_log(error ? LOG_ERR : LOG_WARNING, "%s", ev);
	bb_store_event(st, r->job_id, error ? "error" : "warning", ev);
}

/* Every knob journaled and not restored goes back to its original value,
 * newest row first, so that the oldest original is the one left; only
 * onto the device it was journaled on (a loop device detached and its
 * name reused for another image is another device: the row is marked
 * not restorable), and not while another program holds the device's
 * lock (left for the next start). */
static int recover_knobs(struct bb_store *st, char *err, size_t errlen)
{
	struct knob_rows k = { 0 };
	unsigned restored = 0, failed = 0;
	int ret;

	ret = bb_store_knobs_unrestored(st, collect_row, &k, err, errlen);
	if (ret)
		goto out;
	for (size_t i = k.n; i-- > 0;) {
		const struct bb_knob_row *r = &k.rows[i];
		struct bb_devlock lock = { .fd = -1 };
		char msg[512], ev[768];

		if (r->has_dev && knob_dev_ok(r, msg, sizeof(msg)) <= 0) {
			failed++;
			recovery_failed(st, r, false, msg,
					": marked not restorable");
			bb_store_knob_unrestorable(st, r->id, msg, NULL, 0);
			continue;
		}
		if (r->has_dev &&
		    bb_devlock_take_dev(&lock, r->dev.major, r->dev.minor,
					"biobenchd", "recovery of knobs", msg,
					sizeof(msg))) {
			failed++;
			bb_log(LOG_WARNING, "recovery: %s left for the next "
			       "start: %s", r->path, msg);
			continue;
		}
		if (!knob_path_ok(r->path, msg, sizeof(msg)) ||
		    bb_sysknob_write(r->path, r->original, msg, sizeof(msg))) {
			bb_devlock_release(&lock);
			failed++;
			recovery_failed(st, r, true, msg, "");
			continue;
		}
		bb_devlock_release(&lock);
		bb_store_knob_mark(st, r->id, "restored", NULL, 0);
		snprintf(ev, sizeof(ev),
			 "recovery: restored %s to '%s' (job %lld left it %s)",
			 r->path, r->original, (long long)r->job_id, r->state);
		bb_log(LOG_WARNING, "%s", ev);
		bb_store_event(st, r->job_id, "warning", ev);
		restored++;
	}
	if (k.n)
		bb_log(LOG_INFO, "recovery: %u knob(s) restored, %u failed",
		       restored, failed);
out:
	for (size_t i = 0; i < k.n * 6; i++)
		free(k.strs[i]);
	free(k.strs);
	free(k.rows);
	return ret;
}

/* The stored spec of job id as text (malloc'd). */
static int job_spec(struct bb_store *st, int64_t id, char **spec, char *err,
		    size_t errlen)
{
	struct json_object *doc = NULL, *sp;
	int ret = bb_store_job_get(st, id, &doc, err, errlen);

	*spec = NULL;
	if (ret)
		return ret;
	if (json_object_object_get_ex(doc, "spec", &sp))
		*spec = strdup(json_object_to_json_string_ext(
			sp, JSON_C_TO_STRING_PLAIN));
	json_object_put(doc);
	if (!*spec) {
		snprintf(err, errlen, "job %lld: no spec", (long long)id);
		return -ENOMEM;
	}
	return 0;
}

/* A boot job found at a start, before anything is served:
 * - left rebooting (redo false): the kernel that came up is the one its
 *   boot expects (bb_boot_recover_decide) -> running again;
 * - left running (redo true): its daemon stopped or died during a boot's
 *   runs, or the host went down under it.  The boot's stored runs are
 *   discarded (kept, out of the statistics) and the boot is redone from
 *   its first run (bb_boot_redo_decide), after a reboot into the boot's
 *   kernel when this is not it;
 * then the thread runs it first.  Else it fails with the reason (too many
 * redos, the wrong kernel, ...).  Its finished runs stay either way. */
static void recover_boot(struct bb_sched *s, int64_t id, bool redo)
{
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));
	const char *when = redo ? "interrupted" : "after the reboot";
	struct bb_boot_progress p;
	struct bb_boot_facts f;
	char err[1024] = "", ev[1200], *spec = NULL;
	const struct bb_job_variant *v = NULL;
	bool parsed = false;
	unsigned nd = 0;
	int ret;

	if (!errs || !job) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	ret = bb_store_job_boot(s->st, id, &p, err, sizeof(err));
	if (!ret)
		ret = job_spec(s->st, id, &spec, err, sizeof(err));
	if (ret)
		goto fail;
	if (bb_job_parse_string(job, spec, strlen(spec), errs)) {
		snprintf(err, sizeof(err), "%s: the stored job spec is no "
			 "longer valid: %s", when, errs->n ? errs->msg[0] : "?");
		goto fail;
	}
	parsed = true;
	for (unsigned i = 0; i < job->nvariants; i++)
		if (!strcmp(job->v[i].name, p.variant))
			v = &job->v[i];
	if (!v || !job->boot_job) {
		snprintf(err, sizeof(err), "%s: the job has no boot variant %s",
			 when, p.variant);
		goto fail;
	}
	bb_boot_facts_read(&f);
	if (redo ? bb_boot_redo_decide(&p, &v->boot, &f, ev, sizeof(ev)) ==
			   BB_BOOT_REDO_FAIL :
		   bb_boot_recover_decide(&p, &v->boot, &f, ev, sizeof(ev)) !=
			   BB_BOOT_CONTINUE) {
		snprintf(err, sizeof(err), "%s", ev);
		goto fail;
	}
	if (s->resume_id) {
		snprintf(err, sizeof(err), "%s: job %lld goes on in this boot: "
			 "a host runs one boot job at a time", when,
			 (long long)s->resume_id);
		goto fail;
	}
	if (!redo)
		snprintf(ev, sizeof(ev), "boot %u of %u came up on %s (%s, "
			 "boot id %s): going on", p.boot + 1, p.boots, v->name,
			 f.release, f.boot_id);
	ret = redo ? bb_store_job_boot_redo(s->st, id, p.boot, ev, &nd, err,
					    sizeof(err)) :
		     bb_store_job_resume(s->st, id, ev, err, sizeof(err));
	if (ret && redo)
		goto fail;
	if (ret) {
		bb_log(LOG_ERR, "recovery: job %lld: %s", (long long)id, err);
		goto out;
	}
	if (redo)
		bb_log(LOG_WARNING, "recovery: job %lld: %s (%u stored run%s "
		       "discarded)", (long long)id, ev, nd, nd == 1 ? "" : "s");
	else
		bb_log(LOG_WARNING, "recovery: job %lld: %s", (long long)id, ev);
	s->resume_id = id;
	goto out;
fail:
	bb_log(LOG_ERR, "recovery: boot job %lld failed: %s", (long long)id,
	       err);
	/* whatever is still armed (a start without the reboot: the kexec
	 * image loaded, grub's one-shot entry set) goes: the next reboot is
	 * the host's default, never one more of this job's */
	pthread_mutex_lock(&s->lock);
	s->unarm_pending = true;
	pthread_mutex_unlock(&s->lock);
	if (bb_store_job_finish(s->st, id, BB_JOB_FAILED, NULL, NULL, err, ev,
				sizeof(ev)))
		bb_log(LOG_ERR, "recovery: job %lld: %s", (long long)id, ev);
out:
	if (parsed)
		bb_job_free(job);
	free(job);
	free(errs);
	free(spec);
}

/* After a boot job failed at the recovery, with the configuration now
 * known: kexec -u or grub-editenv - unset next_entry. */
static void recover_unarm(struct bb_sched *s)
{
	struct boot_conf bc;
	char e[512] = "";

	boot_conf_get(s, &bc);
	if (!bc.have)
		return;
	if (bb_reboot_unarm(&bc.cmds, e, sizeof(e)))
		bb_log(LOG_ERR, "recovery: cannot unarm the failed boot "
		       "job's next boot: %s", e);
	else
		bb_log(LOG_WARNING, "recovery: the failed boot job's next "
		       "boot unarmed (%s): the next reboot boots the host's "
		       "default", bb_reboot_method_name(bc.cmds.method));
}

static void recover_boots(struct bb_sched *s)
{
	int64_t *reb = NULL, *run = NULL;
	size_t nreb = 0, nrun = 0;
	char err[512];

	/* both lists first: a rebooting job that goes on is running again,
	 * and must not then be taken for one interrupted in its runs */
	if (bb_store_jobs_rebooting(s->st, &reb, &nreb, err, sizeof(err)))
		bb_log(LOG_ERR, "recovery: %s", err);
	if (bb_store_jobs_boot_running(s->st, &run, &nrun, err, sizeof(err)))
		bb_log(LOG_ERR, "recovery: %s", err);
	for (size_t i = 0; i < nreb; i++)
		recover_boot(s, reb[i], false);
	for (size_t i = 0; i < nrun; i++)
		recover_boot(s, run[i], true);
	free(reb);
	free(run);
}

/* ---- the fleet's heartbeat --------------------------------------------- */

/* The configuration's host_gone_seconds (0 without one: never). */
static unsigned host_gone_s(struct bb_sched *s)
{
	return sched_conf_uint(s, offsetof(struct bb_dconfig, host_gone_s), 0);
}

/* A sweep's outcome: its error, or what it did when it did something. */
static void sweep_log(int ret, unsigned n, const char *sweep, const char *err,
		      const char *what)
{
	if (ret)
		bb_log(LOG_ERR, "%s: %s", sweep, err);
	else if (n)
		bb_log(LOG_WARNING, "%s: %u %s", sweep, n, what);
}

/* One beat: last seen, the leases renewed (a running job that was lost,
 * or whose cancel was requested through another daemon: stop it), the
 * other daemons' expired leases swept. */
static void heartbeat_beat(struct bb_sched *s, bool *bad_logged)
{
	int64_t ids[SCHED_MAX_SLOTS];
	int verdicts[SCHED_MAX_SLOTS];
	size_t nids = bb_sched_running_all(s, ids, SCHED_MAX_SLOTS);
	unsigned n = 0;
	char err[512];
	int ret = bb_store_daemon_heartbeat_jobs(s->st, ids, nids, verdicts,
						 err, sizeof(err));

	if (ret == -ESTALE || ret == -ECANCELED) {
		bool stopping, first = true;

		pthread_mutex_lock(&s->lock);
		/* a stop marks the job interrupted itself: not lost; a
		 * cancel ends it cancelled, as a local one */
		stopping = s->stopping;
		for (size_t i = 0; i < nids && !stopping; i++) {
			struct sched_runner *r = verdicts[i] ?
				runner_of(s, ids[i]) : NULL;

			if (r)
				atomic_store(&r->cancel, true);
		}
		pthread_mutex_unlock(&s->lock);
		for (size_t i = 0; i < nids && !stopping; i++) {
			const char *why = first ? err : "";

			if (!verdicts[i])
				continue;
			first = false;
			if (verdicts[i] == -ESTALE)
				bb_log(LOG_ERR, "job %lld: this daemon lost it%s%s;"
				       " stopping it", (long long)ids[i],
				       *why ? ": " : "", why);
			else if (*why)
				bb_log(LOG_INFO, "%s: cancelling it", why);
			else
				bb_log(LOG_INFO, "job %lld: cancel requested "
				       "through another daemon: cancelling it",
				       (long long)ids[i]);
		}
	} else if (ret) {
		if (!*bad_logged)
			bb_log(LOG_ERR, "heartbeat: %s", err);
		*bad_logged = true;
		return;
	}
	*bad_logged = false;
	ret = bb_store_jobs_expire(s->st, &n, err, sizeof(err));
	sweep_log(ret, n, "lease sweep", err, "job(s) of other hosts marked "
		  "interrupted: their leases expired");
	ret = bb_store_jobs_unrunnable(s->st, &n, err, sizeof(err));
	sweep_log(ret, n, "refusal sweep", err, "job(s) failed: every live "
		  "host refused them");
	ret = bb_store_daemons_forget(s->st, host_gone_s(s), &n, err,
				      sizeof(err));
	sweep_log(ret, n, "registry sweep", err, "host(s) not seen for "
		  "host_gone_seconds removed");
}

/* Every third of the lease (at least every second). */
static void *heartbeat_main(void *arg)
{
	struct bb_sched *s = arg;
	long period_ms = (long)s->lease_s * 1000 / 3;
	bool bad_logged = false;

	if (period_ms < 1000)
		period_ms = 1000;
	for (;;) {
		struct timespec ts;
		bool stop;

		heartbeat_beat(s, &bad_logged);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += period_ms / 1000;
		ts.tv_nsec += (period_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&s->lock);
		if (!s->stopping)
			pthread_cond_timedwait(&s->hb_cond, &s->lock, &ts);
		stop = s->stopping;
		pthread_mutex_unlock(&s->lock);
		if (stop)
			break;
	}
	return NULL;
}

/* ---- API ---------------------------------------------------------------- */

int bb_sched_recover_journal(const char *journal, char *err, size_t errlen)
{
	struct bb_store *st;
	int ret = bb_store_open_journal(&st, NULL, journal, err, errlen);

	if (ret)
		return ret;
	ret = recover_knobs(st, err, errlen);
	bb_store_close(st);
	return ret;
}

int bb_sched_start(struct bb_sched **out, const char *db_path, char *err,
		   size_t errlen)
{
	return bb_sched_start_fleet(out, db_path, NULL, err, errlen);
}

int bb_sched_start_fleet(struct bb_sched **out, const char *db_path,
			 const struct bb_sched_fleet *f, char *err,
			 size_t errlen)
{
	struct bb_sched *s = calloc(1, sizeof(*s));
	unsigned n = 0;
	int ret;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_cond_init(&s->hb_cond, NULL);
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++) {
		s->run[i].s = s;
		s->run[i].slot = i;
	}
	s->poll_s = bb_store_is_pg(db_path) ? SCHED_POLL_SHARED_S :
					      SCHED_POLL_S;
	/* a PostgreSQL store's knob journal is a local file */
	ret = bb_store_open_journal(&s->st, db_path,
				    f ? f->knob_journal : NULL, err, errlen);
	if (ret)
		goto fail;
	if (f && f->host_name) {
		/* who this daemon is, before the recovery: it recovers its
		 * own jobs only */
		ret = bb_store_set_daemon(s->st, f->host_name, f->lease_s, err,
					  errlen);
		if (!ret)
			ret = bb_store_daemon_register(s->st, f->host, f->devices,
						       f->version,
						       (long)getpid(), err,
						       errlen);
		if (ret)
			goto fail;
		s->fleet = true;
		s->lease_s = f->lease_s;
	}
	/* the reserve is room next to a sqlite file; a PostgreSQL server's
	 * disk is its own */
	if (strcmp(db_path, ":memory:") && !bb_store_is_pg(db_path) &&
	    (size_t)snprintf(s->reserve, sizeof(s->reserve), "%s-reserve",
			     db_path) >= sizeof(s->reserve))
		s->reserve[0] = '\0';
	if (s->reserve[0]) {
		char *slash;

		snprintf(s->reserve_dir, sizeof(s->reserve_dir), "%s",
			 s->reserve);
		slash = strrchr(s->reserve_dir, '/');
		if (!slash)
			snprintf(s->reserve_dir, sizeof(s->reserve_dir), ".");
		else if (slash == s->reserve_dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
	reserve_make(s);
	ret = bb_store_jobs_interrupt_running(s->st, &n, err, errlen);
	if (ret)
		goto fail;
	if (n)
		bb_log(LOG_WARNING,
		       "recovery: %u job(s) were running when the daemon "
		       "stopped: marked interrupted, finished runs kept",
		       n);
	ret = recover_knobs(s->st, err, errlen);
	if (ret)
		goto fail;
	/* before any job is served: a boot job left rebooting goes on or
	 * fails */
	recover_boots(s);
	if (s->fleet) {
		ret = -pthread_create(&s->hb_tid, NULL, heartbeat_main, s);
		if (ret) {
			snprintf(err, errlen, "cannot start the heartbeat "
				 "thread: %s", strerror(-ret));
			goto fail;
		}
		s->hb_started = true;
		pthread_setname_np(s->hb_tid, "bb-heartbeat");
	}
	ret = -pthread_create(&s->tid, NULL, sched_main, s);
	if (ret) {
		snprintf(err, errlen, "cannot start the scheduler thread: %s",
			 strerror(-ret));
		goto fail;
	}
	s->started = true;
	pthread_setname_np(s->tid, "bb-sched");
	*out = s;
	return 0;
fail:
	if (s->hb_started) {
		pthread_mutex_lock(&s->lock);
		s->stopping = true;
		pthread_cond_signal(&s->hb_cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->hb_tid, NULL);
	}
	if (s->st)
		bb_store_close(s->st);
	pthread_cond_destroy(&s->hb_cond);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return ret;
}

void bb_sched_set_config(struct bb_sched *s, pthread_rwlock_t *lock,
			 struct bb_dconfig *const *cfg)
{
	pthread_mutex_lock(&s->lock);
	s->cfg_lock = lock;
	s->cfgp = cfg;
	/* jobs queued before a restart run now */
	s->kicked = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void bb_sched_kick(struct bb_sched *s)
{
	pthread_mutex_lock(&s->lock);
	s->kicked = true;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

int bb_sched_cancel(struct bb_sched *s, struct bb_store *st, int64_t id,
		    char *err, size_t errlen)
{
	struct sched_runner *r;
	char state[16];
	int ret;

	pthread_mutex_lock(&s->lock);
	r = runner_of(s, id);
	if (r) {
		atomic_store(&r->cancel, true);
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	pthread_mutex_unlock(&s->lock);

	ret = bb_store_job_state(st, id, state, err, errlen);
	if (ret)
		return ret;
	if (strcmp(state, BB_JOB_QUEUED) && strcmp(state, BB_JOB_RUNNING) &&
	    strcmp(state, BB_JOB_REBOOTING)) {
		snprintf(err, errlen, "job %lld already finished (%s)",
			 (long long)id, state);
		return -EALREADY;
	}
	if (!strcmp(state, BB_JOB_REBOOTING)) {
		/* between two boots: no other boot is armed for it */
		ret = bb_store_job_finish(st, id, BB_JOB_CANCELLED, NULL, NULL,
					  "cancelled between two boots", err,
					  errlen);
		if (ret != -EALREADY)
			return ret;
	}
	if (!strcmp(state, BB_JOB_QUEUED)) {
		ret = bb_store_job_finish(st, id, BB_JOB_CANCELLED, NULL, NULL,
					  "cancelled before it started", err,
					  errlen);
		if (ret != -EALREADY)
			return ret;
	}
	/* it started meanwhile */
	pthread_mutex_lock(&s->lock);
	r = runner_of(s, id);
	if (r) {
		atomic_store(&r->cancel, true);
		ret = 0;
	} else {
		snprintf(err, errlen, "job %lld already finished",
			 (long long)id);
		ret = -EALREADY;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}

struct json_object *bb_sched_progress(struct bb_sched *s, int64_t id)
{
	struct sched_runner *r;
	struct json_object *o;
	struct sched_progress p;

	pthread_mutex_lock(&s->lock);
	r = runner_of(s, id);
	if (!r) {
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	p = r->prog;
	pthread_mutex_unlock(&s->lock);

	o = json_object_new_object();
	json_object_object_add(o, "run", json_object_new_int(p.run));
	json_object_object_add(o, "runs_planned",
			       json_object_new_int(p.runs_planned));
	json_object_object_add(o, "runs_done",
			       json_object_new_int(p.runs_done));
	json_object_object_add(
		o, "elapsed_s",
		json_object_new_double((double)(bb_now_ns() - p.t_start_ns) /
				       1e9));
	json_object_object_add(o, "eta_s",
			       p.eta_s >= 0 ? json_object_new_double(p.eta_s) :
					      NULL);
	json_object_object_add(o, "variant",
			       p.variant[0] ? json_object_new_string(p.variant) :
					      NULL);
	json_object_object_add(o, "warmup", json_object_new_boolean(p.warmup));
	json_object_object_add(o, "boot", p.boot[0] ?
				       json_object_new_string(p.boot) : NULL);
	json_object_object_add(o, "latest_iops",
			       json_object_new_double(p.latest_iops));
	if (p.last_run) {
		struct json_object *l = json_object_new_object();

		json_object_object_add(l, "run", json_object_new_int(p.last_run));
		json_object_object_add(l, "variant",
				       json_object_new_string(p.last_variant));
		json_object_object_add(l, "warmup",
				       json_object_new_boolean(p.last_warmup));
		json_object_object_add(l, "iops",
				       json_object_new_double(p.last_iops));
		json_object_object_add(o, "last_run", l);
	} else {
		json_object_object_add(o, "last_run", NULL);
	}
	return o;
}

bool bb_sched_kexec_pending(struct bb_sched *s, char *kexec, size_t len)
{
	bool ret;

	if (!s)
		return false;
	pthread_mutex_lock(&s->lock);
	ret = s->kexec_pending;
	snprintf(kexec, len, "%s", ret ? s->kexec_path : "");
	pthread_mutex_unlock(&s->lock);
	return ret;
}

int64_t bb_sched_running(struct bb_sched *s)
{
	int64_t id;

	return bb_sched_running_all(s, &id, 1) ? id : 0;
}

size_t bb_sched_running_all(struct bb_sched *s, int64_t *ids, size_t max)
{
	int64_t all[SCHED_MAX_SLOTS];
	size_t n = 0;

	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++)
		if (s->run[i].running_id)
			all[n++] = s->run[i].running_id;
	pthread_mutex_unlock(&s->lock);
	/* oldest first (a handful: insertion sort) */
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && all[k - 1] > all[k]; k--) {
			int64_t t = all[k];

			all[k] = all[k - 1];
			all[k - 1] = t;
		}
	if (n > max)
		n = max;
	memcpy(ids, all, n * sizeof(*ids));
	return n;
}

void bb_sched_stop(struct bb_sched *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	atomic_store(&s->shutdown, true);
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++)
		atomic_store(&s->run[i].cancel, true);
	pthread_cond_signal(&s->cond);
	pthread_cond_signal(&s->hb_cond);
	pthread_mutex_unlock(&s->lock);
	/* the dispatcher joins the runners (their knobs restored) */
	if (s->started)
		pthread_join(s->tid, NULL);
	/* after the scheduler: its jobs' leases are renewed to the end */
	if (s->hb_started)
		pthread_join(s->hb_tid, NULL);
	if (unrecorded_retry(s)) {
		struct sched_unrec *u = unrecorded_first(s);

		bb_log(LOG_ERR, "job %lld: its end is not recorded: the next "
		       "start marks it interrupted", (long long)u->id);
	}
	for (unsigned i = 0; i < SCHED_MAX_SLOTS; i++)
		unrecorded_clear(&s->unrec[i]);
	bb_store_close(s->st);
	pthread_cond_destroy(&s->hb_cond);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

int bb_sched_store_check(struct bb_sched *s, char *err, size_t errlen)
{
	struct sched_unrec *u;
	struct statvfs sv;
	int ret;

	/* the reserve was used up (released to record a job's end) and the
	 * filesystem has no room to make it again: the next job's end could
	 * not be recorded */
	if (s->reserve[0] && access(s->reserve, F_OK) &&
	    !statvfs(s->reserve_dir, &sv) &&
	    (uint64_t)sv.f_bavail * sv.f_frsize < SCHED_RESERVE_BYTES) {
		snprintf(err, errlen, "the filesystem of the database is full: "
			 "%llu KiB free in %s, the daemon keeps %u KiB in "
			 "reserve to record the end of a job",
			 (unsigned long long)sv.f_bavail * sv.f_frsize / 1024,
			 s->reserve_dir, SCHED_RESERVE_BYTES / 1024);
		return -ENOSPC;
	}
	pthread_mutex_lock(&s->lock);
	u = unrecorded_first(s);
	if (u) {
		snprintf(err, errlen, "the end of job %lld (%s) is not "
			 "recorded: %s", (long long)u->id, u->state,
			 u->why ? u->why : "");
		pthread_mutex_unlock(&s->lock);
		return -EIO;
	}
	pthread_mutex_unlock(&s->lock);
	ret = bb_store_check(s->st, err, errlen);
	return ret;
}

bool bb_sched_unrecorded(struct bb_sched *s, int64_t id, char *state,
			 size_t slen, char *error, size_t elen)
{
	bool ret = false;

	pthread_mutex_lock(&s->lock);
	for (unsigned i = 0; id && !ret && i < SCHED_MAX_SLOTS; i++) {
		const struct sched_unrec *u = &s->unrec[i];

		if (u->id != id)
			continue;
		snprintf(state, slen, "%s", u->state);
		snprintf(error, elen, "%s%snot recorded in the database: %s",
			 u->error ? u->error : "", u->error ? "; " : "",
			 u->why ? u->why : "");
		ret = true;
	}
	pthread_mutex_unlock(&s->lock);
	return ret;
}
