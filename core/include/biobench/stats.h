/* SPDX-License-Identifier: GPL-2.0-only */
/* stats.h - run statistics: a mergeable log-linear latency histogram,
 * per-second samples, CPU usage, and the run result (layout-independent).
 *
 * The histogram is fio's log-linear layout (PLAT_BITS 6: 64 buckets per
 * power-of-two group, 29 groups, 1856 buckets, values in ns): bucket error
 * is below 1/64 of the value; histograms of several threads or runs merge
 * by adding buckets. */
#ifndef BB_STATS_H
#define BB_STATS_H

#include <biobench/common.h>
#include <biobench/config.h>

#include <stdio.h>

#define BB_HIST_PLAT_BITS 6
#define BB_HIST_PLAT_VAL (1u << BB_HIST_PLAT_BITS)
#define BB_HIST_GROUPS 29
#define BB_HIST_NBUCKETS (BB_HIST_GROUPS * BB_HIST_PLAT_VAL)

struct bb_hist {
	uint64_t count;
	uint64_t sum_ns;
	uint64_t min_ns;
	uint64_t max_ns;
	uint64_t buckets[BB_HIST_NBUCKETS];
};

void bb_hist_init(struct bb_hist *h);
/* Bucket index of a value (inline: used on the hot path). */
static inline unsigned bb_hist_bucket(uint64_t ns)
{
	unsigned msb, base, off;

	if (ns < BB_HIST_PLAT_VAL)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);
	base = msb - BB_HIST_PLAT_BITS;
	off = (unsigned)((ns >> base) & (BB_HIST_PLAT_VAL - 1));
	base = (base + 1) << BB_HIST_PLAT_BITS;
	base += off;
	return base < BB_HIST_NBUCKETS ? base : BB_HIST_NBUCKETS - 1;
}
static inline void bb_hist_add(struct bb_hist *h, uint64_t ns)
{
	h->buckets[bb_hist_bucket(ns)]++;
	h->count++;
	h->sum_ns += ns;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}
/* n values of ns at once (a batch that shares one stamp). */
static inline void bb_hist_add_n(struct bb_hist *h, uint64_t ns, uint64_t n)
{
	h->buckets[bb_hist_bucket(ns)] += n;
	h->count += n;
	h->sum_ns += ns * n;
	if (ns < h->min_ns)
		h->min_ns = ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
}
/* Representative value (midpoint) of a bucket, in ns. */
uint64_t bb_hist_bucket_value(unsigned idx);
/* dst += src */
void bb_hist_merge(struct bb_hist *dst, const struct bb_hist *src);
/* The p-th percentile (0 < p <= 100) in ns; 0 for an empty histogram. */
uint64_t bb_hist_percentile(const struct bb_hist *h, double p);

/* One per-second sample, summed over threads. */
struct bb_sample {
	uint64_t t_ms;       /* end of the interval, ms since the run start */
	uint64_t ios;        /* I/Os completed in the interval */
	uint64_t bytes;
	uint64_t submitted;  /* SQEs submitted */
	uint64_t enters;     /* io_uring_enter calls */
	uint64_t reaped;     /* CQEs reaped */
};

/* Totals of a run (or of one thread). */
struct bb_io_totals {
	uint64_t ios;           /* parent I/Os completed (workload units) */
	uint64_t reads;         /* parent reads */
	uint64_t writes;        /* parent writes */
	uint64_t bytes_read;
	uint64_t bytes_written;
	uint64_t dev_reads;     /* requests issued to the device (pieces) */
	uint64_t dev_writes;
	uint64_t sectors_read;  /* 512-byte sectors, as /proc/diskstats */
	uint64_t sectors_written;
	uint64_t errors;
	uint64_t verify_errors;
	uint64_t submitted;     /* SQEs */
	uint64_t enters;        /* io_uring_enter calls */
	uint64_t reaped;        /* CQEs */
};

static inline void bb_io_totals_add(struct bb_io_totals *d,
				    const struct bb_io_totals *s)
{
	uint64_t *dd = (uint64_t *)d;
	const uint64_t *ss = (const uint64_t *)s;
	for (size_t i = 0; i < sizeof(*d) / sizeof(uint64_t); i++)
		dd[i] += ss[i];
}

struct bb_cpu_usage {
	uint64_t usr_ns;
	uint64_t sys_ns;
};

/* Interrupts of the device's I/O queues during a run (/proc/interrupts;
 * NVMe: lines "nvme<C>q<N>", N >= 1).  In polled mode they prove, or
 * disprove, that completions were polled: poll queues have no interrupt
 * vector, so a polled run whose queues took interrupts completed by
 * interrupts (e.g. nvme.poll_queues larger than the CPU count). */
struct bb_irq_check {
	bool checked;           /* the device's interrupt lines were found */
	unsigned lines;         /* interrupt lines (queues) counted */
	uint64_t count;         /* interrupts taken during the run */
	char source[96];        /* "nvme0q* in /proc/interrupts" */
};

/* The block device under the target as the kernel counted it in
 * /proc/diskstats over the measured interval (its start to the end of the
 * last completion), beside the model's own requests (bb_io_totals
 * dev_reads...): for a file the page cache and the filesystem decide what
 * reaches the disk; for a block device the block layer may merge.  Read
 * at the phase changes only, never per I/O. */
struct bb_diskstats {
	bool checked;           /* the device's line was read at both ends */
	char name[32];          /* its name in /proc/diskstats: "vda1" */
	uint64_t reads;         /* reads completed */
	uint64_t sectors_read;
	uint64_t writes;        /* writes completed */
	uint64_t sectors_written;
};

/* Whether a polled run was verified polled: null-like -1 when not a
 * polled run or nothing was counted, else 1 when its queues took fewer
 * interrupts than 1 per 20 device requests (other I/O on the controller
 * may take a few), 0 when they took more. */
static inline int bb_poll_verified(const struct bb_config *cfg,
				   const struct bb_irq_check *c,
				   uint64_t dev_requests)
{
	if (cfg->mode != BB_MODE_POLL || !c->checked)
		return -1;
	return c->count == 0 || c->count * 20 < dev_requests;
}

/* One submitter thread of a run, as it was set up (the engine's started
 * hook) and as it ended (struct bb_result). */
struct bb_thread_info {
	int tid;             /* the submitter's gettid() */
	unsigned sq_entries; /* its ring, as the kernel set it up */
	unsigned cq_entries;
	int numa_node;       /* with numa_place: the NUMA node of its (last)
				file's device (-1: unknown); else -1 */
	int cpu;             /* the CPU it was pinned to, -1: not pinned */
	unsigned nfiles;     /* its files (bb_spread_targets) */
	unsigned last_file;  /* the index of its last file in the target list */
	uint64_t ios;        /* parent I/Os it completed (measured interval) */
	struct bb_hist *lat; /* its own latency histogram; NULL when latency
				is off (in a struct bb_result; always NULL in
				the started hook) */
};

/* The result of one run. */
struct bb_result {
	uint64_t start_unix_ms;
	uint64_t duration_ns;      /* measured interval (after ramp) */
	struct bb_io_totals io;    /* measured interval only */
	struct bb_hist lat;        /* per I/O or per batch, see cfg.lat */
	struct bb_cpu_usage cpu_submit;     /* submitter threads */
	struct bb_cpu_usage cpu_completion; /* completion threads */
	bool perf_available;
	char perf_unavailable_reason[128];
	uint64_t instructions;     /* if perf_available */
	uint64_t cycles;
	struct bb_cache_counters cache;       /* main bioset */
	struct bb_cache_counters split_cache; /* split bioset */
	struct bb_split_counters split;
	struct bb_queue_limits limits;        /* effective limits */
	char target_kind[16];      /* "nop", "file", "block" */
	char kernel_helpers[128];  /* e.g. "sqpoll thread (iou-sqp)" */
	unsigned ring_flags;       /* IORING_SETUP_* actually used */
	struct bb_irq_check irq;   /* interrupts of the device's queues */
	struct bb_diskstats disk;  /* the device under the target */
	/* Stalls of the measured interval: time the sampling thread was
	 * not running although its sleep had ended (the process stopped by
	 * SIGSTOP or a debugger, frozen, its VM paused, or starved of CPU),
	 * counted over every overshoot of more than BB_STALL_GAP_NS; and the
	 * process's own context switches (getrusage, all threads). */
	uint64_t stall_ns;         /* total */
	uint64_t stall_max_ns;     /* the longest one */
	uint64_t ctxsw_voluntary;
	uint64_t ctxsw_involuntary;
	struct bb_sample *samples; /* per second, malloc'd */
	unsigned nsamples;
	struct bb_thread_info *threads; /* per submitter thread, malloc'd
					   (their histograms too); NULL when
					   no thread started */
	unsigned nthreads;
	char error[256];           /* non-empty if the run failed */
};

/* A sleep of the sampling thread that ends this much later than asked
 * counts as a stall (timer slack and a busy host stay well below). */
#define BB_STALL_GAP_NS 50000000ull

/* Derived figures. */
static inline double bb_result_iops(const struct bb_result *r)
{
	return r->duration_ns ? (double)r->io.ios * 1e9 / (double)r->duration_ns
			      : 0.0;
}

/* Free what a result holds (samples, threads); harmless twice. */
void bb_result_free(struct bb_result *r);

/* CPU time of the calling thread (RUSAGE_THREAD). */
int bb_cpu_usage_thread(struct bb_cpu_usage *u);

/* Try perf_event_open for instructions and cycles of the calling thread
 * (inherit off).  Returns fds >= 0, or -errno with a reason filled in. */
int bb_perf_open(int *fd_instr, int *fd_cycles, char *reason, size_t len);
int bb_perf_read(int fd_instr, int fd_cycles, uint64_t *instr,
		 uint64_t *cycles);

/* Human-readable summary (multi-line), like fio's but shorter. */
void bb_result_fprint(FILE *f, const struct bb_config *cfg,
		      const struct bb_result *r);

/* One live line: "IOPS=..., BW=...MiB/s, IOS/call=s/r" (t/io_uring style,
 * BW omitted for nop). */
void bb_sample_fprint(FILE *f, const struct bb_config *cfg,
		      const struct bb_sample *s, uint64_t interval_ms);

#endif
