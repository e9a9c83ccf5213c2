/* worker.h - the contract between the engine (run/engine.c) and one
 * submitter thread (path/worker.c, compiled once per struct bio layout).
 * Internal to libbiobench. */
#ifndef BB_RUN_WORKER_H
#define BB_RUN_WORKER_H

#include <biobench/engine.h>

#include "io/target.h"

#include <stdatomic.h>

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
	_Atomic int *phase;   /* enum bb_phase, set by the engine */
	_Atomic int ready;    /* worker set up and about to start */
	_Atomic int done;     /* worker finished (incl. verify) */
	struct bb_live live[2]; /* [0] submitter, [1] completion thread */
	struct bb_thread_result res;
};

#endif
