/* SPDX-License-Identifier: GPL-2.0-only */
/* worker.h - the contract between the engine (run/engine.c) and one
 * submitter thread (path/worker.c, compiled once per struct bio layout).
 * Internal to libbiobench. */
#ifndef BB_RUN_WORKER_H
#define BB_RUN_WORKER_H

#include <biobench/engine.h>

#include "io/target.h"

#include <stdatomic.h>

/* Sizes of what a worker allocates, shared by its setup (path/worker.c,
 * which asserts the byte counts) and bb_config_memory_estimate()
 * (run/config.c), so that the estimate follows the worker:
 *   bytes of one I/O slot's bookkeeping (struct wslot), of the worker's
 *   own state (struct worker), of a bio object of the main bioset (bio +
 *   inline vecs, cache-line rounded) and of a split clone; the bioset
 *   sizes (objects) of the main bioset, its bvec arrays per class and the
 *   split bioset; the reserve (mempool) sizes. */
#define BB_WORKER_SLOT_BYTES 64u
#define BB_WORKER_STATE_BYTES 8192u
#define BB_WORKER_BIO_OBJ_BYTES 256u
#define BB_WORKER_SPLIT_OBJ_BYTES 192u
#define BB_WORKER_BIO_POOL 4u
#define BB_WORKER_SPLIT_POOL 2u
#define BB_WORKER_BIO_SLAB(depth) ((depth) * 2u + 2u * 256u + 64u)
#define BB_WORKER_BVEC_SLAB(depth) ((depth) * 2u + 64u)
#define BB_WORKER_SPLIT_SLAB(depth, pieces)                                    \
	((depth) * (pieces) + 2u * 256u + 64u)

/* SQ and CQ sizes of a worker's ring for iodepth I/Os of up to pieces
 * device requests each (used by setup_ring in run/wsetup.c, counted by
 * the estimate): the SQ holds iodepth entries, the CQ every request in
 * flight (iodepth x pieces), each rounded up to a power of two.  Whole
 * I/Os (pieces 1) get the ring t/io_uring sets up (its sq_ring = cq_ring
 * = iodepth rounded up); split ones an SQ of at least 8. */
static inline void bb_worker_ring_sizes(unsigned iodepth, unsigned pieces,
					unsigned *sq, unsigned *cq)
{
	unsigned e = 1, c;

	while (e < iodepth)
		e <<= 1;
	if (e < 8 && pieces > 1)
		e = 8;
	c = e;
	while (c < (uint64_t)iodepth * pieces && c < 65536)
		c <<= 1;
	if (e > 32768)
		e = 32768;
	*sq = e;
	*cq = c;
}

enum bb_phase {
	BB_PHASE_RAMP = 0,
	BB_PHASE_MEASURE,
	BB_PHASE_STOP,    /* end of the run: drain, then the verify pass */
	BB_PHASE_CANCEL,  /* cancelled: stop within a millisecond (also inside
			     an inject_ns delay), drain, no verify pass */
};

/* Counters the sampler reads once a second; written (relaxed) by one
 * thread each, once per reap batch. */
struct bb_live {
	_Atomic uint64_t ios;
	_Atomic uint64_t bytes;
	_Atomic uint64_t submitted;
	_Atomic uint64_t enters;
	_Atomic uint64_t reaped;
} bb_aligned_cl;

/* What one submitter thread (and its completion thread) reports. */
struct bb_thread_result {
	struct bb_io_totals io;
	struct bb_hist lat;
	struct bb_cpu_usage cpu_submit;
	struct bb_cpu_usage cpu_completion;
	uint64_t t_start_ns;   /* measured interval */
	uint64_t t_end_ns;
	bool perf_ok;
	char perf_reason[128];
	uint64_t instructions;
	uint64_t cycles;
	struct bb_cache_counters cache;
	struct bb_cache_counters split_cache;
	struct bb_split_counters split;
	unsigned ring_flags;
	int tid;               /* the submitter's gettid() */
	unsigned sq_entries;   /* its ring as set up */
	unsigned cq_entries;
	int error;             /* -errno, 0 ok */
	char errmsg[256];
};

/* One file (target) of a worker, and which part of its region is the
 * worker's: slice of nslices (each thread its own slice when it writes
 * with verify or reads sequentially, else nslices = 1). */
struct bb_worker_file {
	const struct bb_target *t;
	unsigned slice;
	unsigned nslices;
};

/* Shared between the engine and one worker. */
struct bb_worker_args {
	const struct bb_config *cfg;
	struct bb_worker_file files[BB_MAX_TARGETS_PER_THREAD];
	unsigned nfiles;      /* >= 1 */
	unsigned index;       /* thread index */
	int cpu;              /* -1: not pinned */
	int completion_cpu;   /* -1: not pinned */
	int numa_node;        /* numa_place: its device's node, else -1 */
	_Atomic int *phase;   /* enum bb_phase, set by the engine */
	_Atomic int ready;    /* worker set up and about to start */
	_Atomic int done;     /* worker finished (incl. verify) */
	struct bb_live live[2]; /* [0] submitter, [1] completion thread */
	struct bb_thread_result res;
};

#endif
