/* scheduler.c - see scheduler.h.
 *
 * One thread.  It takes the oldest queued job from the store, marks it
 * running, and runs it through bb_jobrun_exec with three hooks:
 *   before_run: for each sysfs knob of the variant, read the original,
 *               journal it (state pending) in the store, write the new
 *               value, mark the row applied;
 *   after_run:  write every original back (newest first), mark the rows
 *               restored, then store the run (result, samples, histogram);
 *   on_round:   store the comparison so far.
 * The journal is written before a knob changes, so a crash at any point
 * leaves a row from which the next start restores the knob. */
#include "scheduler.h"

#include <biobench/hostinfo.h>
#include <biobench/jobrun.h>
#include "log.h"
#include <biobench/result_json.h>
#include <biobench/sysknob.h>
#include <biobench/targetpath.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#define SCHED_POLL_S 5 /* look at the store even without a kick */
/* Space kept next to the database (DB-reserve, allocated) so that the end
 * of a job can still be recorded when the filesystem fills up during it:
 * released on -ENOSPC, the write retried, re-made before the next job. */
#define SCHED_RESERVE_BYTES (1 << 20)
#define SCHED_FINISH_RETRY_S 30 /* then the next start marks it interrupted */

struct applied_knob {
	int64_t journal_id;
	char knob[64];
	char path[512];
	char original[128];
};

struct sched_progress {
	unsigned run;          /* 1-based current run */
	unsigned runs_planned;
	unsigned runs_done;
	char variant[32];
	bool warmup;
	double latest_iops;
	uint64_t t_start_ns;
	double eta_s;
};

struct bb_sched {
	struct bb_store *st;   /* the scheduler thread's own handle */
	char reserve[4096];    /* DB-reserve, "" when none */
	pthread_t tid;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool kicked;           /* under lock */
	bool stopping;         /* under lock */
	_Atomic bool cancel;   /* stop the running job */
	_Atomic bool shutdown; /* the cancel is a daemon stop */
	int64_t running_id;    /* under lock */
	pthread_rwlock_t *cfg_lock;      /* under lock: set once */
	struct bb_dconfig *const *cfgp;  /* under lock: NULL = no checks */
	struct sched_progress prog; /* under lock */

	/* scheduler thread only */
	int64_t job_id;
	struct bb_job *job;
	char queue_dir[512];
	unsigned napplied;
	struct applied_knob applied[BB_JOB_MAX_SYSFS];
};

static int recheck_target(struct bb_sched *s, struct bb_job *job, bool first,
			  char *err, size_t errlen);

/* ---- knobs -------------------------------------------------------------- */

/* Write back every applied knob, newest first.  Returns the first error
 * (every knob is still tried). */
static int restore_knobs(struct bb_sched *s, char *err, size_t errlen)
{
	int ret = 0;

	while (s->napplied) {
		struct applied_knob *k = &s->applied[--s->napplied];
		char msg[512];
		int r = bb_sysknob_write(k->path, k->original, msg,
					 sizeof(msg));

		if (r) {
			bb_log(LOG_ERR, "job %lld: cannot restore %s to '%s': %s",
			       (long long)s->job_id, k->path, k->original, msg);
			bb_store_event(s->st, s->job_id, "error", msg);
			if (!ret) {
				ret = r;
				snprintf(err, errlen,
					 "cannot restore sysfs %s: %s", k->knob,
					 msg);
			}
			continue;
		}
		bb_store_knob_mark(s->st, k->journal_id, "restored", NULL, 0);
		bb_log(LOG_INFO, "job %lld: restored %s = %s",
		       (long long)s->job_id, k->path, k->original);
	}
	return ret;
}

static int hook_before_run(void *arg, struct bb_jobrun *jr,
			   const struct bb_job_step *st, char *err,
			   size_t errlen)
{
	struct bb_sched *s = arg;
	const struct bb_job_variant *v = &s->job->v[st->variant];
	int ret;

	pthread_mutex_lock(&s->lock);
	s->prog.run = jr->seq + 1;
	s->prog.runs_planned = jr->runs_planned;
	snprintf(s->prog.variant, sizeof(s->prog.variant), "%s", v->name);
	s->prog.warmup = st->warmup;
	pthread_mutex_unlock(&s->lock);

	for (unsigned i = 0; i < v->nsysfs; i++) {
		struct applied_knob *k = &s->applied[s->napplied];
		const struct bb_sysfs_knob *kn = &v->sysfs[i];

		snprintf(k->knob, sizeof(k->knob), "%s", kn->name);
		ret = bb_sysknob_path(s->queue_dir, kn->name, k->path,
				      sizeof(k->path), err, errlen);
		if (ret)
			return ret;
		ret = bb_sysknob_read(k->path, k->original,
				      sizeof(k->original), err, errlen);
		if (ret)
			return ret;
		ret = bb_store_knob_journal(s->st, s->job_id, s->job->target,
					    kn->name, k->path, k->original,
					    kn->value, &k->journal_id, err,
					    errlen);
		if (ret)
			return ret;
		/* from here on the knob counts as applied: a failed or
		 * partial write is restored too */
		s->napplied++;
		ret = bb_sysknob_write(k->path, kn->value, err, errlen);
		if (ret)
			return ret;
		bb_store_knob_mark(s->st, k->journal_id, "applied", NULL, 0);
	}
	/* last: the target checked; the run opens that canonical path
	 * without following any symlink (cfg.no_symlinks) */
	return recheck_target(s, s->job, false, err, errlen);
}

static int hook_after_run(void *arg, struct bb_jobrun *jr,
			  const struct bb_job_step *st, int rc,
			  const struct bb_result *r, char *err, size_t errlen)
{
	struct bb_sched *s = arg;
	struct bb_job_variant *v = &s->job->v[st->variant];
	struct json_object *doc = NULL;
	struct bb_store_run run = {
		.job_id = s->job_id,
		.variant = v->name,
		.seq = jr->seq,
		.round = st->round,
		.warmup = st->warmup,
	};
	char kerr[512] = "";
	int ret, kret;

	kret = restore_knobs(s, kerr, sizeof(kerr));
	if (!rc) {
		run.state = "done";
		run.metric = bb_metric_value(s->job->metric, r);
	} else {
		run.state = rc == -ECANCELED ? "cancelled" : "failed";
		run.error = r && r->error[0] ? r->error : "run failed";
	}
	if (r && (rc == 0 || r->io.ios)) {
		doc = bb_result_to_json(&v->cfg, r);
		if (doc)
			json_object_object_add(
				doc, "quiescence",
				bb_quiesce_to_json(&jr->quiet,
						   &s->job->quiesce));
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
	s->prog.runs_done = jr->runs_done + 1;
	s->prog.eta_s = bb_jobrun_eta_s(jr);
	if (!rc && r)
		s->prog.latest_iops = bb_result_iops(r);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void hook_on_round(void *arg, struct bb_jobrun *jr)
{
	struct bb_sched *s = arg;
	struct json_object *cmp = bb_jobrun_to_json(jr);
	char err[256];

	pthread_mutex_lock(&s->lock);
	s->prog.runs_planned = jr->runs_planned;
	pthread_mutex_unlock(&s->lock);
	if (bb_store_job_progress(s->st, s->job_id, jr->runs_planned,
				  cmp ? json_object_to_json_string_ext(
						cmp, JSON_C_TO_STRING_PLAIN) :
					NULL,
				  err, sizeof(err)))
		bb_log(LOG_WARNING, "job %lld: cannot store progress: %s",
		       (long long)s->job_id, err);
	json_object_put(cmp);
}

static void hook_on_sample(const struct bb_config *cfg,
			   const struct bb_sample *smp, uint64_t interval_ms,
			   void *arg)
{
	struct bb_sched *s = arg;

	(void)cfg;
	if (!interval_ms)
		return;
	pthread_mutex_lock(&s->lock);
	s->prog.latest_iops = (double)smp->ios * 1000.0 / (double)interval_ms;
	pthread_mutex_unlock(&s->lock);
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

/* Record the end of a job.  When the filesystem is full: release the
 * reserve and retry, then retry once a second for a while (space may come
 * back); a job whose end cannot be recorded stays "running" in the store
 * until the next start marks it interrupted. */
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
	if (ret)
		bb_log(LOG_ERR, "job %lld: cannot record its end (%s): %s",
		       (long long)id, state, err[0] ? err : strerror(-ret));
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
static int recheck_target(struct bb_sched *s, struct bb_job *job, bool first,
			  char *err, size_t errlen)
{
	pthread_rwlock_t *lock;
	struct bb_dconfig *const *cfgp;
	char canon[PATH_MAX], why[1024] = "";
	bool write = false;
	int ret;

	pthread_mutex_lock(&s->lock);
	lock = s->cfg_lock;
	cfgp = s->cfgp;
	pthread_mutex_unlock(&s->lock);
	if (!cfgp)
		return 0;
	for (unsigned i = 0; i < job->nvariants; i++)
		write |= bb_rw_writes(job->v[i].cfg.rw) ||
			 job->v[i].cfg.verify;
	if (strcmp(job->target, "nop")) {
		ret = bb_target_canonical(job->target, canon, sizeof(canon),
					  why, sizeof(why));
		if (ret) {
			snprintf(err, errlen, "not run: %s", why);
			return ret;
		}
	} else {
		snprintf(canon, sizeof(canon), "nop");
	}
	if (!first && strcmp(canon, job->target)) {
		snprintf(err, errlen, "not run: target %s now resolves to %s "
			 "(replaced during the job)", job->target, canon);
		return -EACCES;
	}
	pthread_rwlock_rdlock(lock);
	ret = bb_dconfig_target_allowed(*cfgp, canon, write, why,
					sizeof(why));
	pthread_rwlock_unlock(lock);
	if (ret) {
		snprintf(err, errlen, "not run: %s", why[0] ? why :
			 "target not allowed");
		return ret;
	}
	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_job_variant *v = &job->v[i];

		if ((bb_rw_writes(v->cfg.rw) || v->cfg.verify) &&
		    !v->cfg.allow_write && !bb_target_is_nop(job->target)) {
			snprintf(err, errlen, "not run: variant %s writes to %s "
				 "without \"allow_write\": true", v->name,
				 canon);
			return -EACCES;
		}
	}
	if (strcmp(canon, job->target)) {
		bb_log(LOG_INFO, "job %lld: target %s runs as %s",
		       (long long)s->job_id, job->target, canon);
		snprintf(job->target, sizeof(job->target), "%s", canon);
		for (unsigned i = 0; i < job->nvariants; i++)
			snprintf(job->v[i].cfg.target,
				 sizeof(job->v[i].cfg.target), "%s", canon);
	}
	for (unsigned i = 0; i < job->nvariants; i++)
		job->v[i].cfg.no_symlinks = true;
	return 0;
}

/* ---- one job ------------------------------------------------------------ */

static bool job_has_knobs(const struct bb_job *job)
{
	for (unsigned i = 0; i < job->nvariants; i++)
		if (job->v[i].nsysfs)
			return true;
	return false;
}

static void run_job(struct bb_sched *s, int64_t id, const char *spec)
{
	static const struct bb_jobrun_ops ops = {
		.before_run = hook_before_run,
		.after_run = hook_after_run,
		.on_round = hook_on_round,
		.on_sample = hook_on_sample,
	};
	struct bb_job_errors *errs = calloc(1, sizeof(*errs));
	struct bb_job *job = calloc(1, sizeof(*job));
	struct bb_jobrun jr;
	struct json_object *host = NULL, *dev = NULL, *cmp = NULL;
	int64_t host_id = 0, dev_id = 0;
	bool jr_ok = false, running = false;
	char err[1024] = "";
	const char *state = BB_JOB_FAILED, *verdict = NULL;
	int ret;

	pthread_mutex_lock(&s->lock);
	s->running_id = id;
	memset(&s->prog, 0, sizeof(s->prog));
	s->prog.t_start_ns = bb_now_ns();
	s->prog.eta_s = -1;
	/* a stop requested before this point still stops this job */
	atomic_store(&s->cancel, s->stopping);
	pthread_mutex_unlock(&s->lock);
	s->job_id = id;
	s->job = job;
	s->napplied = 0;
	reserve_make(s);

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
	if (recheck_target(s, job, true, err, sizeof(err)))
		goto finish;
	host = bb_host_info();
	dev = bb_target_device_info(job->target);
	if (bb_store_host_upsert(s->st, host, &host_id, err, sizeof(err)) ||
	    bb_store_device_upsert(s->st, dev, &dev_id, err, sizeof(err)))
		goto finish;
	ret = bb_store_job_start(s->st, id, host_id, dev_id, err, sizeof(err));
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
	    bb_sysknob_queue_dir(job->target, s->queue_dir,
				 sizeof(s->queue_dir), err, sizeof(err)))
		goto finish;
	ret = bb_jobrun_init(&jr, job, &s->cancel);
	if (ret) {
		snprintf(err, sizeof(err), "cannot set up the job: %s",
			 strerror(-ret));
		goto finish;
	}
	jr_ok = true;
	ret = bb_jobrun_exec(&jr, &ops, s, err, sizeof(err));
	/* a hook may have failed half way through applying knobs */
	restore_knobs(s, err + strlen(err), sizeof(err) - strlen(err));
	cmp = bb_jobrun_to_json(&jr);
	verdict = bb_jobrun_verdict(&jr);
	if (!ret) {
		state = BB_JOB_DONE;
		err[0] = '\0';
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
	if (jr_ok)
		bb_jobrun_free(&jr);
	json_object_put(cmp);
	json_object_put(host);
	json_object_put(dev);
	if (job && job->spec)
		bb_job_free(job);
	free(job);
	free(errs);
	s->job = NULL;
	pthread_mutex_lock(&s->lock);
	s->running_id = 0;
	pthread_mutex_unlock(&s->lock);
}

/* ---- thread ------------------------------------------------------------- */

static void *sched_main(void *arg)
{
	struct bb_sched *s = arg;

	/* no job before the first kick (bb_sched_set_config kicks): the
	 * allow-list is known before anything runs */
	pthread_mutex_lock(&s->lock);
	while (!s->kicked && !s->stopping)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	for (;;) {
		struct timespec ts;
		int64_t id;
		char *spec = NULL;
		char err[256];
		int ret;

		pthread_mutex_lock(&s->lock);
		if (!s->kicked && !s->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += SCHED_POLL_S;
			pthread_cond_timedwait(&s->cond, &s->lock, &ts);
		}
		s->kicked = false;
		if (s->stopping) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		pthread_mutex_unlock(&s->lock);

		for (;;) {
			pthread_mutex_lock(&s->lock);
			if (s->stopping) {
				pthread_mutex_unlock(&s->lock);
				break;
			}
			pthread_mutex_unlock(&s->lock);
			ret = bb_store_job_next_queued(s->st, &id, &spec, err,
						       sizeof(err));
			if (ret == -ENOENT)
				break;
			if (ret) {
				bb_log(LOG_ERR, "scheduler: %s", err);
				break;
			}
			run_job(s, id, spec);
			free(spec);
			spec = NULL;
		}
	}
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

/* Every knob journaled and not restored goes back to its original value,
 * newest row first, so that the oldest original is the one left. */
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
		char msg[512], ev[768];

		if (!knob_path_ok(r->path, msg, sizeof(msg)) ||
		    bb_sysknob_write(r->path, r->original, msg, sizeof(msg))) {
			failed++;
			snprintf(ev, sizeof(ev),
				 "recovery: cannot restore %s to '%s' (job "
				 "%lld): %s",
				 r->path, r->original, (long long)r->job_id,
				 msg);
			bb_log(LOG_ERR, "%s", ev);
			bb_store_event(st, r->job_id, "error", ev);
			continue;
		}
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

/* ---- API ---------------------------------------------------------------- */

int bb_sched_start(struct bb_sched **out, const char *db_path, char *err,
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
	ret = bb_store_open(&s->st, db_path, err, errlen);
	if (ret)
		goto fail;
	if (strcmp(db_path, ":memory:") &&
	    (size_t)snprintf(s->reserve, sizeof(s->reserve), "%s-reserve",
			     db_path) >= sizeof(s->reserve))
		s->reserve[0] = '\0';
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
	ret = -pthread_create(&s->tid, NULL, sched_main, s);
	if (ret) {
		snprintf(err, errlen, "cannot start the scheduler thread: %s",
			 strerror(-ret));
		goto fail;
	}
	s->started = true;
	*out = s;
	return 0;
fail:
	if (s->st)
		bb_store_close(s->st);
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
	char state[16];
	int ret;

	pthread_mutex_lock(&s->lock);
	if (s->running_id == id) {
		atomic_store(&s->cancel, true);
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	pthread_mutex_unlock(&s->lock);

	ret = bb_store_job_state(st, id, state, err, errlen);
	if (ret)
		return ret;
	if (strcmp(state, BB_JOB_QUEUED) && strcmp(state, BB_JOB_RUNNING)) {
		snprintf(err, errlen, "job %lld already finished (%s)",
			 (long long)id, state);
		return -EALREADY;
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
	if (s->running_id == id) {
		atomic_store(&s->cancel, true);
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
	struct json_object *o;
	struct sched_progress p;

	pthread_mutex_lock(&s->lock);
	if (!id || s->running_id != id) {
		pthread_mutex_unlock(&s->lock);
		return NULL;
	}
	p = s->prog;
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
	json_object_object_add(o, "latest_iops",
			       json_object_new_double(p.latest_iops));
	return o;
}

int64_t bb_sched_running(struct bb_sched *s)
{
	int64_t id;

	pthread_mutex_lock(&s->lock);
	id = s->running_id;
	pthread_mutex_unlock(&s->lock);
	return id;
}

void bb_sched_stop(struct bb_sched *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	atomic_store(&s->shutdown, true);
	atomic_store(&s->cancel, true);
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (s->started)
		pthread_join(s->tid, NULL);
	bb_store_close(s->st);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
}
