/* SPDX-License-Identifier: GPL-2.0-only */
/* engine.h - runs a configured benchmark: one pinned submitter thread per
 * `threads`, each with its own ring, bio cache and statistics; optionally
 * one completion thread per submitter (completion=thread). */
#ifndef BB_ENGINE_H
#define BB_ENGINE_H

#include <biobench/config.h>
#include <biobench/stats.h>

#include <stdatomic.h>

/* Called once a second during the run (from the thread that called
 * bb_run) with the sample of the last interval. */
typedef void (*bb_sample_cb)(const struct bb_config *cfg,
			     const struct bb_sample *s, uint64_t interval_ms,
			     void *arg);

/* Run cfg to completion and fill r (bb_result_free afterwards).  Returns 0
 * or -errno with a one-line message in err (r->error holds it too). */
int bb_run(const struct bb_config *cfg, struct bb_result *r,
	   bb_sample_cb cb, void *cb_arg, char *err, size_t errlen);

/* bb_run that stops early when *cancel becomes true (checked every 20 ms,
 * so a run ends well within a second): returns -ECANCELED ("cancelled")
 * with the partial result in r.  cancel may be NULL. */
int bb_run_cancellable(const struct bb_config *cfg, struct bb_result *r,
		       bb_sample_cb cb, void *cb_arg,
		       const _Atomic bool *cancel, char *err, size_t errlen);

/* Called once, from the thread that called bb_run_hooked, when every
 * submitter is set up (their I/O may have begun): thread i's tid, ring
 * sizes, NUMA node, CPU and files (t[i].lat and t[i].ios unset). */
typedef void (*bb_started_cb)(const struct bb_config *cfg,
			      const struct bb_thread_info *t, unsigned n,
			      void *arg);

/* What a caller hooks into a run (every member may be NULL). */
struct bb_run_hooks {
	bb_sample_cb sample;   /* once a second */
	bb_started_cb started; /* once, when the threads are set up */
	void *arg;             /* for both */
	const _Atomic bool *cancel; /* as bb_run_cancellable */
};

/* bb_run_cancellable with the hooks of h (NULL: none). */
int bb_run_hooked(const struct bb_config *cfg, struct bb_result *r,
		  const struct bb_run_hooks *h, char *err, size_t errlen);

#endif
