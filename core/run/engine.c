// SPDX-License-Identifier: GPL-2.0-only
/* engine.c - runs a configuration: opens the target (or each of several
 * files, spread over the threads as t/io_uring spreads them), starts one
 * pinned worker per thread (the layout's worker, chosen once here),
 * drives the ramp / measure / stop phases, samples once a second, and sums
 * the workers' results (layout-independent). */
#include <biobench/engine.h>

#include <biobench/options.h>

#include "path/path.h"
#include "run/worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static bool all_done(struct bb_worker_args *a, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (!atomic_load(&a[i].done))
			return false;
	return true;
}

static void sum_live(struct bb_worker_args *a, unsigned n,
		     struct bb_sample *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < 2; k++) {
			struct bb_live *l = &a[i].live[k];

			s->ios += atomic_load_explicit(&l->ios,
						       memory_order_relaxed);
			s->bytes += atomic_load_explicit(&l->bytes,
							 memory_order_relaxed);
			s->submitted += atomic_load_explicit(
				&l->submitted, memory_order_relaxed);
			s->enters += atomic_load_explicit(&l->enters,
							  memory_order_relaxed);
			s->reaped += atomic_load_explicit(&l->reaped,
							  memory_order_relaxed);
		}
	}
}

static int push_sample(struct bb_result *r, unsigned *cap,
		       const struct bb_sample *s)
{
	if (r->nsamples == *cap) {
		unsigned ncap = *cap ? *cap * 2 : 64;
		struct bb_sample *p = realloc(r->samples, ncap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		r->samples = p;
		*cap = ncap;
	}
	r->samples[r->nsamples++] = *s;
	return 0;
}

static bool cancelled(const _Atomic bool *cancel)
{
	return cancel && atomic_load_explicit(cancel, memory_order_acquire);
}

/* Wait up to ns, returning early when every worker is done or the run is
 * cancelled.  r (NULL: not counted) gets the stalls: every sleep that
 * ends more than BB_STALL_GAP_NS late (the process was not running). */
static void wait_or_done(struct bb_worker_args *a, unsigned n, uint64_t ns,
			 const _Atomic bool *cancel, struct bb_result *r)
{
	uint64_t end = bb_now_ns() + ns;

	for (;;) {
		uint64_t now = bb_now_ns(), slice, late;

		if (now >= end || all_done(a, n) || cancelled(cancel))
			return;
		slice = bb_min(end - now, 20000000ull);
		sleep_ns(slice);
		late = bb_now_ns() - now - slice;
		if (r && late > BB_STALL_GAP_NS) {
			r->stall_ns += late;
			r->stall_max_ns = bb_max(r->stall_max_ns, late);
		}
	}
}

/* The process's context switches so far (getrusage, all threads). */
static void ctxsw(uint64_t *vol, uint64_t *invol)
{
	struct rusage ru;

	*vol = *invol = 0;
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	*vol = (uint64_t)ru.ru_nvcsw;
	*invol = (uint64_t)ru.ru_nivcsw;
}

/* Interrupts of an NVMe target's I/O queues so far; false when none of
 * its lines is in /proc/interrupts. */
static bool irq_snapshot(const struct bb_target *t, struct bb_irq_check *c,
			 uint64_t *sum)
{
	int n;

	if (!t->is_nvme)
		return false;
	n = bb_nvme_queue_irqs("/proc/interrupts",
			       (const char (*)[BB_NVME_NAME_LEN])t->nvme.ctrls,
			       t->nvme.nctrls, sum);
	if (n <= 0)
		return false;
	c->lines = (unsigned)n;
	snprintf(c->source, sizeof(c->source),
		 "%sq* (%u I/O queue lines%s) in /proc/interrupts",
		 t->nvme.ctrls[0], (unsigned)n,
		 t->nvme.nctrls > 1 ? ", all its controllers" : "");
	return true;
}

/* The completion thread of submitter i obeys the submitters' CPU rule:
 * the CPU after the submitter's in cfg->cpus (so with one CPU, the
 * submitter's own), never one outside the list; not pinned without a
 * list, like the submitter. */
static int completion_cpu_for(const struct bb_config *cfg, unsigned i)
{
	if (cfg->completion_cpu >= 0)
		return cfg->completion_cpu;
	if (!cfg->ncpus)
		return -1;
	return cfg->cpus[(i + 1) % cfg->ncpus];
}

/* The memory the run needs against its budget: cfg->max_memory, else half
 * of what the host (or the cgroup) has available. */
static int check_memory(const struct bb_config *cfg, uint64_t region,
			const struct bb_queue_limits *lim, char *err,
			size_t errlen)
{
	struct bb_mem_estimate e;
	uint64_t limit = cfg->max_memory ? cfg->max_memory :
					   bb_host_memory_budget();
	char name[96], b[32];

	bb_config_memory_estimate(cfg, region, lim, &e);
	bb_fmt_bytes(b, sizeof(b), limit);
	if (cfg->max_memory)
		snprintf(name, sizeof(name), "--max-memory %s", b);
	else
		snprintf(name, sizeof(name), "the default budget %s (half of "
			 "the memory available; --max-memory to change)", b);
	return bb_config_memory_check(cfg, &e, limit, name, err, errlen);
}

int bb_run(const struct bb_config *cfg, struct bb_result *r, bb_sample_cb cb,
	   void *cb_arg, char *err, size_t errlen)
{
	return bb_run_cancellable(cfg, r, cb, cb_arg, NULL, err, errlen);
}

int bb_run_cancellable(const struct bb_config *cfg, struct bb_result *r,
		       bb_sample_cb cb, void *cb_arg,
		       const _Atomic bool *cancel, char *err, size_t errlen)
{
	struct bb_run_hooks h = { .sample = cb, .arg = cb_arg,
				  .cancel = cancel };

	return bb_run_hooked(cfg, r, &h, err, errlen);
}

/* Open every target of cfg into t[] (a copy of cfg per file names it:
 * the target kinds open cfg->target).  0 or -errno; on failure the ones
 * opened are closed. */
static int open_targets(const struct bb_config *cfg, struct bb_target *t,
			unsigned *nopen, char *err, size_t errlen)
{
	struct bb_config *one = NULL;
	const char *p = cfg->target;
	int ret = 0;

	*nopen = 0;
	if (cfg->ntargets <= 1)
		goto single;
	one = malloc(sizeof(*one));
	if (!one)
		return bb_errf(err, errlen, -ENOMEM, "out of memory");
	for (; p && *nopen < cfg->ntargets; p = bb_config_next_target(cfg, p)) {
		*one = *cfg;
		bb_config_set_target(one, p);
		ret = bb_target_open(&t[*nopen], one, err, errlen);
		if (ret)
			break;
		(*nopen)++;
	}
	free(one);
	goto out;
single:
	ret = bb_target_open(&t[0], cfg, err, errlen);
	if (!ret)
		*nopen = 1;
out:
	if (ret) {
		for (unsigned i = 0; i < *nopen; i++)
			bb_target_close(&t[i]);
		*nopen = 0;
	}
	return ret;
}

/* Give each worker its files, and each file's region a slice per worker
 * when each thread needs blocks of its own (writes with verify, or
 * sequential I/O). */
static void assign_files(const struct bb_config *cfg, struct bb_target *t,
			 unsigned ntargets, struct bb_worker_args *args,
			 unsigned n)
{
	bool slices = cfg->verify || !bb_rw_random(cfg->rw);
	unsigned users[BB_MAX_TARGETS] = { 0 }, rank[BB_MAX_TARGETS] = { 0 };

	for (unsigned i = 0; i < n; i++) {
		unsigned fi[BB_MAX_TARGETS_PER_THREAD];
		unsigned nf = bb_spread_targets(ntargets, n, i, fi);

		for (unsigned k = 0; k < nf; k++) {
			args[i].files[k].t = &t[fi[k]];
			users[fi[k]]++;
		}
		args[i].nfiles = nf;
	}
	for (unsigned i = 0; i < n; i++) {
		for (unsigned k = 0; k < args[i].nfiles; k++) {
			unsigned f = (unsigned)(args[i].files[k].t - t);

			args[i].files[k].slice = slices ? rank[f]++ : 0;
			args[i].files[k].nslices = slices ? users[f] : 1;
		}
	}
}

/* numa_place: each thread's node is its last file's (t/io_uring's
 * detect_node, called per file); on a host of several nodes, a thread
 * not pinned by cpus goes to the next CPU of its node's list. */
static void place_numa(const struct bb_config *cfg,
		       struct bb_worker_args *args, unsigned n)
{
	bool pin = !cfg->ncpus && bb_host_numa_nodes() > 1;
	unsigned used[64] = { 0 };

	for (unsigned i = 0; i < n; i++) {
		struct bb_worker_args *a = &args[i];
		int cpus[BB_MAX_THREADS], node;
		char path[96], list[1024];
		unsigned ncpu = 0;

		node = bb_target_numa_node(a->files[a->nfiles - 1].t);
		a->numa_node = node;
		if (!pin || node < 0)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/node%d/cpulist", node);
		if (bb_read_text(path, list, sizeof(list)) ||
		    bb_parse_cpulist(list, cpus, BB_MAX_THREADS, &ncpu) ||
		    !ncpu)
			continue;
		a->cpu = cpus[used[node % 64]++ % ncpu];
	}
}

/* What the started hook and the result say about thread i. */
static void thread_info(const struct bb_config *cfg, const struct bb_target *t,
			const struct bb_worker_args *a,
			struct bb_thread_info *ti)
{
	memset(ti, 0, sizeof(*ti));
	ti->tid = a->res.tid;
	ti->sq_entries = a->res.sq_entries;
	ti->cq_entries = a->res.cq_entries;
	ti->numa_node = cfg->numa_place ? a->numa_node : -1;
	ti->cpu = a->cpu;
	ti->nfiles = a->nfiles;
	ti->last_file = a->nfiles ? (unsigned)(a->files[a->nfiles - 1].t - t)
				  : 0;
}

/* The result's per-thread records, with a copy of each histogram when
 * latency is recorded (0 or -ENOMEM). */
static int result_threads(const struct bb_config *cfg,
			  const struct bb_target *t,
			  const struct bb_worker_args *args, unsigned n,
			  struct bb_result *r)
{
	r->threads = calloc(n, sizeof(*r->threads));
	if (!r->threads)
		return -ENOMEM;
	r->nthreads = n;
	for (unsigned i = 0; i < n; i++) {
		thread_info(cfg, t, &args[i], &r->threads[i]);
		r->threads[i].ios = args[i].res.io.ios;
		if (cfg->lat == BB_LAT_OFF)
			continue;
		r->threads[i].lat = malloc(sizeof(*r->threads[i].lat));
		if (!r->threads[i].lat)
			return -ENOMEM;
		*r->threads[i].lat = args[i].res.lat;
	}
	return 0;
}

int bb_run_hooked(const struct bb_config *cfg, struct bb_result *r,
		  const struct bb_run_hooks *h, char *err, size_t errlen)
{
	static const struct bb_run_hooks none;
	const _Atomic bool *cancel;
	bb_sample_cb cb;
	void *cb_arg;
	struct bb_target *targets = NULL;
	struct bb_worker_args *args = NULL;
	pthread_t *tids = NULL;
	/* without a ramp every I/O is measured, from the first one */
	_Atomic int phase = cfg->ramp_ns ? BB_PHASE_RAMP : BB_PHASE_MEASURE;
	void *(*main_fn)(void *) = bb_path_ops_for(cfg->bio_layout)->worker_main;
	unsigned n = cfg->threads, started = 0, cap = 0, ntargets = 0;
	uint64_t t_measure, t_prev, tmin = UINT64_MAX, tmax = 0;
	uint64_t irq0 = 0, irq1 = 0, vcsw0 = 0, ivcsw0 = 0;
	bool irq_ok;
	struct bb_sample prev = { 0 }, cur;
	struct timeval tv;
	int ret;

	if (!h)
		h = &none;
	cancel = h->cancel;
	cb = h->sample;
	cb_arg = h->arg;
	memset(r, 0, sizeof(*r));
	bb_hist_init(&r->lat);
	gettimeofday(&tv, NULL);
	r->start_unix_ms = (uint64_t)tv.tv_sec * 1000 +
			   (uint64_t)tv.tv_usec / 1000;
	/* before anything is opened or allocated, and again with the real
	 * region (verify state) and queue limits (split pieces) */
	ret = check_memory(cfg, 0, NULL, err, errlen);
	if (ret) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		return ret;
	}
	targets = calloc(cfg->ntargets ? cfg->ntargets : 1, sizeof(*targets));
	if (!targets) {
		ret = bb_errf(err, errlen, -ENOMEM, "out of memory");
		snprintf(r->error, sizeof(r->error), "%s", err);
		return ret;
	}
	ret = open_targets(cfg, targets, &ntargets, err, errlen);
	if (ret) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		free(targets);
		return ret;
	}
	ret = check_memory(cfg, targets[0].region_len, &targets[0].lim, err,
			   errlen);
	if (ret) {
		snprintf(r->error, sizeof(r->error), "%s", err);
		for (unsigned i = 0; i < ntargets; i++)
			bb_target_close(&targets[i]);
		free(targets);
		return ret;
	}
	r->limits = targets[0].lim;
	snprintf(r->target_kind, sizeof(r->target_kind), "%s",
		 bb_target_kind_name(targets[0].kind));
	if (cfg->mode == BB_MODE_SQPOLL)
		snprintf(r->kernel_helpers, sizeof(r->kernel_helpers),
			 "%u sqpoll thread(s) (iou-sqp-*), CPU time not "
			 "included", n);

	irq_ok = irq_snapshot(&targets[0], &r->irq, &irq0);
	/* the disk's counters where the measured interval starts: before the
	 * first I/O without a ramp (else at the phase change below) */
	if (!cfg->ramp_ns)
		bb_diskstats_mark(targets, ntargets, &r->disk, false);
	args = calloc(n, sizeof(*args));
	tids = calloc(n, sizeof(*tids));
	if (!args || !tids) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	assign_files(cfg, targets, ntargets, args, n);
	for (unsigned i = 0; i < n; i++) {
		args[i].cpu = cfg->ncpus ? cfg->cpus[i % cfg->ncpus] : -1;
		args[i].numa_node = -1;
	}
	if (cfg->numa_place)
		place_numa(cfg, args, n);
	for (unsigned i = 0; i < n; i++) {
		struct bb_worker_args *a = &args[i];

		a->cfg = cfg;
		a->index = i;
		a->completion_cpu = cfg->completion == BB_COMPLETION_THREAD ?
					    completion_cpu_for(cfg, i) : -1;
		a->phase = &phase;
		bb_hist_init(&a->res.lat);
		ret = pthread_create(&tids[i], NULL, main_fn, a);
		if (ret) {
			ret = -ret;
			snprintf(err, errlen, "cannot start worker %u: %s", i,
				 strerror(-ret));
			atomic_store(&phase, BB_PHASE_CANCEL);
			goto join;
		}
		started++;
	}
	for (unsigned i = 0; i < n; i++)
		while (!atomic_load(&args[i].ready))
			sleep_ns(200000);
	for (unsigned i = 0; i < n; i++)
		if (atomic_load(&args[i].done) && args[i].res.error) {
			atomic_store(&phase, BB_PHASE_CANCEL);
			goto join;
		}
	if (h->started) {
		struct bb_thread_info *ti = calloc(n, sizeof(*ti));

		if (!ti) {
			ret = bb_errf(err, errlen, -ENOMEM, "out of memory");
			atomic_store(&phase, BB_PHASE_CANCEL);
			goto join;
		}
		for (unsigned i = 0; i < n; i++)
			thread_info(cfg, targets, &args[i], &ti[i]);
		h->started(cfg, ti, n, h->arg);
		free(ti);
	}

	if (cfg->ramp_ns)
		wait_or_done(args, n, cfg->ramp_ns, cancel, NULL);
	atomic_store_explicit(&phase, BB_PHASE_MEASURE, memory_order_release);
	t_measure = t_prev = bb_now_ns();
	ctxsw(&vcsw0, &ivcsw0);
	if (cfg->ramp_ns)
		bb_diskstats_mark(targets, ntargets, &r->disk, false);
	/* the live counters restart at 0 when each side starts measuring;
	 * the first sample may still include a few ramp completions of a
	 * thread that has not seen the phase change yet */
	for (;;) {
		uint64_t now, next = t_prev + 1000000000ull;
		bool stop = false;

		if (cfg->runtime_ns && next > t_measure + cfg->runtime_ns) {
			next = t_measure + cfg->runtime_ns;
			stop = true;
		}
		now = bb_now_ns();
		if (next > now)
			wait_or_done(args, n, next - now, cancel, r);
		now = bb_now_ns();
		if (all_done(args, n) || cancelled(cancel))
			stop = true;
		sum_live(args, n, &cur);
		if (now - t_prev >= 100000000ull || stop) {
			struct bb_sample d = {
				.t_ms = (now - t_measure) / 1000000ull,
				.ios = cur.ios - prev.ios,
				.bytes = cur.bytes - prev.bytes,
				.submitted = cur.submitted - prev.submitted,
				.enters = cur.enters - prev.enters,
				.reaped = cur.reaped - prev.reaped,
			};
			uint64_t ms = (now - t_prev) / 1000000ull;

			if (cur.ios >= prev.ios && ms) {
				push_sample(r, &cap, &d);
				if (cb)
					cb(cfg, &d, ms, cb_arg);
			}
			prev = cur;
			t_prev = now;
		}
		if (stop)
			break;
	}
	/* cancelled: the workers stop at once (also inside an inject_ns
	 * delay) and skip the verify pass */
	atomic_store_explicit(&phase,
			      cancelled(cancel) ? BB_PHASE_CANCEL : BB_PHASE_STOP,
			      memory_order_release);
	ctxsw(&r->ctxsw_voluntary, &r->ctxsw_involuntary);
	r->ctxsw_voluntary -= bb_min(vcsw0, r->ctxsw_voluntary);
	r->ctxsw_involuntary -= bb_min(ivcsw0, r->ctxsw_involuntary);

join:
	/* ret holds a failure to start a worker (or 0): it is not lost */
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	/* after the last completion: the disk's side of the measured I/O */
	bb_diskstats_mark(targets, ntargets, &r->disk, true);
	r->perf_available = started > 0;
	for (unsigned i = 0; i < started; i++) {
		struct bb_thread_result *tr = &args[i].res;

		if (tr->error && !ret) {
			ret = tr->error;
			snprintf(err, errlen, "%s", tr->errmsg);
		}
		bb_io_totals_add(&r->io, &tr->io);
		bb_hist_merge(&r->lat, &tr->lat);
		r->cpu_submit.usr_ns += tr->cpu_submit.usr_ns;
		r->cpu_submit.sys_ns += tr->cpu_submit.sys_ns;
		r->cpu_completion.usr_ns += tr->cpu_completion.usr_ns;
		r->cpu_completion.sys_ns += tr->cpu_completion.sys_ns;
		if (!tr->perf_ok) {
			if (r->perf_available)
				snprintf(r->perf_unavailable_reason,
					 sizeof(r->perf_unavailable_reason),
					 "%s", tr->perf_reason);
			r->perf_available = false;
		}
		r->instructions += tr->instructions;
		r->cycles += tr->cycles;
		bb_cache_counters_add(&r->cache, &tr->cache);
		bb_cache_counters_add(&r->split_cache, &tr->split_cache);
		bb_split_counters_add(&r->split, &tr->split);
		r->ring_flags = tr->ring_flags;
		if (tr->t_start_ns && tr->t_start_ns < tmin)
			tmin = tr->t_start_ns;
		if (tr->t_end_ns > tmax)
			tmax = tr->t_end_ns;
	}
	r->duration_ns = tmax > tmin ? tmax - tmin : 0;
	if (started && result_threads(cfg, targets, args, started, r) && !ret)
		ret = bb_errf(err, errlen, -ENOMEM, "out of memory");
	if (irq_ok && irq_snapshot(&targets[0], &r->irq, &irq1)) {
		r->irq.checked = true;
		r->irq.count = irq1 >= irq0 ? irq1 - irq0 : 0;
	}
	if (!ret && cancelled(cancel)) {
		ret = -ECANCELED;
		snprintf(err, errlen, "cancelled");
	}
	if (ret)
		snprintf(r->error, sizeof(r->error), "%s", err);
out:
	free(args);
	free(tids);
	for (unsigned i = 0; i < ntargets; i++)
		bb_target_close(&targets[i]);
	free(targets);
	return ret;
}
