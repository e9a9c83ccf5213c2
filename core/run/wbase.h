/* SPDX-License-Identifier: GPL-2.0-only */
/* wbase.h - the layout-independent part of one submitter thread: its ring,
 * its I/O slots and buffers, its files, its offsets and its accounting,
 * and their setup (run/wsetup.c).  The hot loop that drives them, with or
 * without the bio model, is path/worker.c (compiled once per struct bio
 * layout); it embeds a struct bb_wbase.  Internal to libbiobench.
 *
 * user_data of an SQE is the address of its slot (--model none) or of its
 * bio (--model bio): a CQE leads to what it completes in one load.
 */
#ifndef BB_RUN_WBASE_H
#define BB_RUN_WBASE_H

#include "run/sqe.h"
#include "run/worker.h"
#include "util/rng.h"
#include "util/syscall.h"

#include <liburing.h>
#include <stdatomic.h>

/* Per-context accounting: the submitter's, and the completion thread's.
 * Counted per batch where the batch tells (ios, bytes, requests, CQEs),
 * per I/O only where it must (errors, mixed directions, several files). */
struct bb_wside {
	struct bb_io_totals io;
	struct bb_hist *lat;      /* NULL: latency not recorded (now) */
	struct bb_hist *lat_hist; /* the histogram, when latency is on */
	uint64_t now;             /* latency clock of this batch */
	uint64_t lat_last;        /* stamp of the run of equal stamps ... */
	uint64_t lat_run;         /* ... and its length (bb_wside_lat_*) */
	bool measuring;
	bool frozen;              /* measured interval over: parent I/Os no
				     longer count (io_at_stop holds them) */
	struct bb_io_totals io_at_stop;
	struct bb_live *live;
} bb_aligned_cl;

/* One parent I/O in flight (a workload unit of bs bytes). */
struct bb_wslot {
	char *buf;
	uint64_t off;          /* device offset, bytes */
	uint64_t t_sub;        /* latency stamp */
	uint64_t block;        /* block index in its file's region (verify) */
	void *vecs;            /* the bio model's bvecs of the buffer */
	struct bb_wbase *owner;
	uint32_t gen;          /* verify generation written / expected */
	uint32_t idx;
	uint16_t nvecs;
	uint8_t file;          /* index into the worker's files */
	uint8_t write;
	uint8_t check;         /* verify this read on completion */
} bb_aligned_cl;

/* A busy time per I/O (bb_wbase_spin): 0 ns is none. */
#define BB_SPIN_CLOCK_NS 1000u
struct bb_spin {
	uint64_t ns;    /* asked for */
	uint64_t iters; /* below BB_SPIN_CLOCK_NS: the calibrated loop count */
};

/* One file (target) of the worker. */
struct bb_wfile {
	struct bb_sqe_tmpl tmpl[2];  /* [0] read, [1] write */
	const struct bb_target *t;
	uint64_t base;         /* byte offset of the worker's block 0 */
	uint64_t blk_count;    /* blocks of bs in the worker's part */
	uint64_t seq_next;     /* sequential: next block */
	unsigned pending;      /* I/Os in flight (several files) */
	unsigned lba_shift;    /* NVMe passthrough */
	uint32_t *gens;        /* verify: generation written per block */
	uint8_t *busy;         /* verify: a write of the block in flight */
};

struct bb_wbase {
	const struct bb_config *cfg;
	struct bb_worker_args *a;
	struct io_uring ring;
	/* the hot loop's io_uring_enter (bb_wbase_enter): the registered
	 * ring's index (with IORING_ENTER_REGISTERED_RING in enter_flags) or
	 * the ring fd; enter_flags has IORING_ENTER_GETEVENTS on an IOPOLL
	 * ring; direct: the loop calls it itself (not SQPOLL) */
	int enter_fd;
	unsigned enter_flags;
	bool enter_direct;
	/* slots: a stack of the free ones */
	struct bb_wslot *slots;
	struct bb_wslot **free;
	unsigned nfree;
	unsigned depth;
	char *bufs;
	size_t bufs_len;
	size_t slot_stride;
	struct iovec *iovs;    /* vectored: one iovec per slot (its buffer) */
	/* files */
	struct bb_wfile files[BB_MAX_TARGETS_PER_THREAD];
	unsigned nfiles;
	unsigned cur_file;     /* several files: the one being filled */
	unsigned file_depth;   /* several files: ceil(depth / nfiles) */
	bool files_registered;
	bool nvme;             /* SQE128 passthrough commands */
	bool fixed;            /* registered buffers */
	uint32_t bs;
	uint32_t res_want;     /* cqe->res of a whole I/O (bs, or 0) */
	uint32_t res_mask;     /* a piece's: its length & res_mask */
	/* the workload */
	struct bb_rng rng;
	bool random;
	bool offsets;          /* the SQEs use offsets (not plain NOPs) */
	unsigned rwmix;        /* percent reads */
	uint8_t write_const;   /* the direction when rwmix is 0 or 100 */
	uint64_t issued;       /* parents issued in the measured phase */
	uint64_t limit;        /* number_ios, 0 = none */
	/* verify */
	bool verify;
	bool verify_phase;
	uint32_t gen_next;
	unsigned verify_file;
	uint64_t verify_cursor;
	/* the inject_ns delay (submit path) and the device_ns busy time
	 * (completion path): struct bb_spin */
	struct bb_spin inject;
	struct bb_spin device;
	/* the calibrated kernel cost (bb_config_kcost), in loop counts: per
	 * slab object allocated and freed and per reserve take or refill
	 * (the biosets spend them), per request submitted and completed
	 * (the loops spend them, per batch); 0 where it does not apply */
	struct bb_kcost_iters {
		uint64_t slab_alloc, slab_free, mempool;
		uint64_t request, completion;
	} kc;
	/* accounting */
	struct bb_wside sub;
	struct bb_wside comp;
	_Atomic int fatal;     /* first error wins; read by both threads */
	char fatal_msg[256];
};

/* Set up everything but the bio model: files and their regions, offsets,
 * verify state, the inject_ns/device_ns spins, the ring (sized by
 * bb_worker_ring_sizes for iodepth I/Os of up to pieces requests each,
 * SQE128|CQE32 for passthrough; started disabled and restricted to the
 * run's opcodes with restrict_ring), registered ring fd (register_ring),
 * files and buffers, the slots (and their iovecs when vectored), the SQE
 * templates (and, for --nop-kind file, one NOP to check that the kernel
 * takes its flags), the latency histograms; the thread's tid and ring
 * sizes into its result.
 * 0 or -errno with the message in b->fatal_msg. */
int bb_wbase_init(struct bb_wbase *b, struct bb_worker_args *a,
		  unsigned pieces);

/* Release what bb_wbase_init set up (also after a failure). */
void bb_wbase_exit(struct bb_wbase *b);

/* Record the first fatal error of the worker (both threads may call). */
void bb_wbase_fatal(struct bb_wbase *b, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A CQE whose result is not what the I/O asked for: sets the fatal error
 * with the reason (EOPNOTSUPP of a polled device, an NVMe status, ...);
 * len and sector describe the request. */
void bb_wbase_cqe_error(struct bb_wbase *b, int res, uint32_t len,
			uint64_t sector);

/* --- the per-run phases, shared by both loops ---------------------------- */

/* The measured interval starts: counters and histogram cleared. */
void bb_wside_start(struct bb_wside *sd);

/* The measured interval ends for this side: the parent I/Os completed
 * from now on (while draining) are not counted, the requests are (the
 * kernel's diskstats see them), and no latency is recorded. */
void bb_wside_freeze(struct bb_wside *sd);

/* The totals to report: the parents' counts as frozen, everything else as
 * now. */
void bb_wside_report(const struct bb_wside *sd, struct bb_io_totals *out);

/* Copy the live counters for the once-a-second sampler (once per loop:
 * inline, five relaxed stores). */
static inline void bb_wside_publish(struct bb_wside *sd)
{
	const struct bb_io_totals *io = sd->frozen ? &sd->io_at_stop : &sd->io;

	atomic_store_explicit(&sd->live->ios, io->ios, memory_order_relaxed);
	atomic_store_explicit(&sd->live->bytes,
			      io->bytes_read + io->bytes_written,
			      memory_order_relaxed);
	atomic_store_explicit(&sd->live->submitted, sd->io.submitted,
			      memory_order_relaxed);
	atomic_store_explicit(&sd->live->enters, sd->io.enters,
			      memory_order_relaxed);
	atomic_store_explicit(&sd->live->reaped, sd->io.reaped,
			      memory_order_relaxed);
}

/* io_uring_submit_and_wait() as one inline syscall, the way t/io_uring
 * calls io_uring_enter(2): the SQ tail published (as liburing's flush
 * does), every SQE the kernel has not consumed, to_wait completions with
 * IORING_ENTER_GETEVENTS only when waiting (always on an IOPOLL ring,
 * where the enter polls: enter_flags has it), the registered ring index
 * when there is one; no call when there is nothing to submit, wait for or
 * poll.  Not for SQPOLL rings (no wakeup check: liburing does that).
 * Returns the SQEs the kernel consumed or -errno. */
static inline int bb_wbase_enter(struct bb_wbase *b, unsigned to_wait)
{
	struct io_uring_sq *sq = &b->ring.sq;
	const unsigned tail = sq->sqe_tail;
	unsigned submit, flags;

	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		/* the syscall orders the SQE stores before the kernel's
		 * read of the tail (liburing: IO_URING_WRITE_ONCE) */
		atomic_store_explicit((_Atomic unsigned *)sq->ktail, tail,
				      memory_order_relaxed);
	}
	submit = tail - *sq->khead;
	flags = b->enter_flags | (to_wait ? IORING_ENTER_GETEVENTS : 0);
	if (bb_unlikely(!submit && !(flags & IORING_ENTER_GETEVENTS)))
		return 0;
	return (int)bb_sys_io_uring_enter(b->enter_fd, submit, to_wait, flags);
}

/* --- hot helpers ------------------------------------------------------- */

static inline bool bb_phase_stopped(int ph)
{
	return ph >= BB_PHASE_STOP;
}

/* Busy for spin->ns: below BB_SPIN_CLOCK_NS a loop count calibrated at
 * setup (spin->iters: a clock read costs tens of ns, too coarse for the
 * few-ns delays `biobench calibrate` searches, which measures their effect
 * anyway), from it on the clock, checking the phase about every
 * millisecond (on a VM a loop's rate follows the load of the host's other
 * hyperthread: a count timed while it was busy spun half the time asked
 * for once it was idle).  False when the run is stopping. */
static inline bool bb_wbase_spin(struct bb_wbase *b, const struct bb_spin *spin)
{
	uint64_t now, end, check;

	if (spin->iters) {
		bb_spin_iters(spin->iters);
		return true;
	}
	now = bb_now_ns();
	end = now + spin->ns;
	check = now + 1000000;
	while (now < end) {
		bb_spin_iters(16);
		now = bb_now_ns();
		if (bb_unlikely(now >= check)) {
			if (bb_phase_stopped(atomic_load_explicit(
				    b->a->phase, memory_order_relaxed)))
				return false;
			check = now + 1000000;
		}
	}
	return true;
}

/* inject_ns' delay for one I/O: false when the run is stopping (the
 * caller stops filling). */
static inline bool bb_wbase_delay(struct bb_wbase *b)
{
	return bb_wbase_spin(b, &b->inject);
}

/* device_ns' busy time for one completed request, in the completion
 * path before its bio_endio (the driver's and the device's CPU cost of an
 * I/O: only the general builds of the reap carry it). */
static inline void bb_wbase_device(struct bb_wbase *b)
{
	(void)bb_wbase_spin(b, &b->device);
}

/* Latency, per run of equal stamps (a submit batch shares one stamp in
 * --lat batch, so a reap batch adds a few runs, not one value per I/O,
 * as t/io_uring's add_stat). */
static inline void bb_wside_lat_flush(struct bb_wside *sd)
{
	if (sd->lat_run) {
		bb_hist_add_n(sd->lat, sd->now - sd->lat_last, sd->lat_run);
		sd->lat_run = 0;
	}
}

/* A new stamp: the run so far goes into the histogram (out of line, so
 * that the common case, one more I/O of the same run, stays a compare
 * and an increment in its caller). */
void bb_wside_lat_new(struct bb_wside *sd, uint64_t stamp);

static inline void bb_wside_lat(struct bb_wside *sd, uint64_t stamp)
{
	if (bb_unlikely(stamp != sd->lat_last))
		bb_wside_lat_new(sd, stamp);
	sd->lat_run++;
}

#endif
