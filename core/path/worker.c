// SPDX-License-Identifier: GPL-2.0-only
/* worker.c - one submitter thread: its ring, its biosets ("per-CPU" bio
 * cache), its I/O slots, and the hot loop (layout-dependent).
 *
 * Per I/O, as the kernel's block path for an io_uring read/write:
 *   bio alloc (cache or slab) -> may_need_split fast check -> split against
 *   the queue limits (clones from the split bioset, chained to the parent)
 *   -> one SQE per resulting bio -> completion -> bio_endio (chained clones
 *   put, parent's end_io) -> bio put (task list, irq list or freed, per
 *   variant and context) -> stats.
 *
 * The loop reads like fio's t/io_uring: prepare a batch, submit and wait in
 * one call, reap, account.  Nothing is allocated, locked or logged inside;
 * the cache variant, split check and completion context are function
 * pointers chosen at setup.
 */
#include "path/bioset.h"
#include "path/path.h"
#include "path/split.h"
#include "run/verify.h"
#include "run/worker.h"
#include "util/rng.h"

#include <errno.h>
#include <linux/nvme_ioctl.h>
#include <liburing.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REAP_BATCH 64u

/* ThreadSanitizer does not see the ordering io_uring gives between the
 * submitter's writes to a bio and the completion thread's reads of it
 * (submit -> kernel -> CQE): mark it on the ring, release before every
 * submission, acquire after every reap of the completion thread.  Empty
 * in other builds. */
#if defined(__SANITIZE_THREAD__)
#define BB_WORKER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BB_WORKER_TSAN 1
#endif
#endif
#ifdef BB_WORKER_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ring_release(w) __tsan_release(&(w)->ring)
#define ring_acquire(w) __tsan_acquire(&(w)->ring)
#else
#define ring_release(w) ((void)0)
#define ring_acquire(w) ((void)0)
#endif
#define SENTINEL_UD 1ull /* user_data of the NOP that stops the completion
			    thread (bio pointers are 64-byte aligned) */

struct worker;

/* One parent I/O in flight (a workload unit of bs bytes). */
struct wslot {
	char *buf;
	struct bb_bvec *vecs;  /* the buffer as page bvecs */
	struct worker *w;
	uint64_t t_sub;        /* latency stamp */
	uint64_t off;          /* device offset, bytes */
	uint64_t block;        /* block index in the region */
	uint32_t gen;          /* verify generation written / expected */
	uint32_t idx;
	uint16_t nvecs;
	uint8_t write;
	uint8_t check;         /* verify this read on completion */
	uint8_t measured;      /* issued inside the measured interval */
};

/* Single-producer single-consumer ring of slot indexes, from the
 * completion thread back to the submitter. */
struct spsc {
	uint32_t *q;
	uint32_t mask;
	_Atomic uint32_t head bb_aligned_cl;
	_Atomic uint32_t tail bb_aligned_cl;
};

/* Per-context accounting: the submitter's, and the completion thread's. */
struct side {
	struct bb_io_totals io;
	struct bb_hist *lat;
	uint64_t now;
	bool measuring;
	struct bb_live *live;
} bb_aligned_cl;

typedef void (*prep_fn)(struct worker *w, struct io_uring_sqe *sqe,
			const struct bb_bio *bio);

struct worker {
	const struct bb_config *cfg;
	const struct bb_target *t;
	struct bb_worker_args *a;
	struct io_uring ring;
	struct bb_bioset bs;
	struct bb_bioset split_bs;
	struct bb_queue_limits lim;
	bb_may_split_fn may_split;
	bb_bio_end_io_t end_io;
	prep_fn prep[2];       /* [0] read, [1] write */
	struct wslot *slots;
	uint32_t *free_stack;
	unsigned nfree;
	unsigned depth;
	char *bufs;
	size_t bufs_len;
	size_t slot_stride;
	struct bb_bvec *vecs;
	int fd;                /* fd or fixed-file index 0 */
	uint32_t nsid;         /* NVMe passthrough: namespace */
	unsigned lba_shift;    /* NVMe passthrough: log2 LBA size */
	uint32_t res_mask;     /* success: cqe->res == bytes & res_mask
				  (read/write return bytes; NOP and NVMe
				  passthrough return 0) */
	uint8_t sqe_flags;
	bool nop;
	bool fixed;
	bool verify_phase;
	uint32_t opf_base;
	/* offsets */
	struct bb_rng rng;
	uint64_t blk_first, blk_count, seq_next;
	uint64_t region_off;
	unsigned rwmix;        /* percent reads */
	bool random;
	uint64_t issued;       /* parents issued in the measured phase */
	uint64_t limit;        /* number_ios, 0 = none */
	/* verify */
	uint32_t *gens;
	uint8_t *busy;
	uint32_t gen_next;
	uint64_t verify_cursor;
	/* delay */
	uint64_t inject_iters;
	/* completion thread */
	struct spsc done_q;
	pthread_t cthread;
	bool cthread_started;
	_Atomic int cthread_exit;
	/* accounting */
	struct side sub;
	struct side comp;
	struct bb_split_counters split_ctr;
	_Atomic int fatal;     /* first error wins; read by both threads */
	char fatal_msg[256];
};

/* --- small helpers ------------------------------------------------------ */

static void set_fatal(struct worker *w, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_fatal(struct worker *w, int err, const char *fmt, ...)
{
	va_list ap;
	int expected = 0;

	if (!atomic_compare_exchange_strong(&w->fatal, &expected,
					    err ? err : -EIO))
		return;
	va_start(ap, fmt);
	vsnprintf(w->fatal_msg, sizeof(w->fatal_msg), fmt, ap);
	va_end(ap);
}

static inline void spin_delay(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile("" : : "r"(i) : "memory");
}

/* Loop iterations per microsecond of spin_delay, measured once. */
static uint64_t calibrate_delay(uint64_t ns)
{
	uint64_t iters = 1u << 20, t0, t1;

	if (!ns)
		return 0;
	spin_delay(iters / 16); /* warm up */
	t0 = bb_now_ns();
	spin_delay(iters);
	t1 = bb_now_ns();
	if (t1 <= t0)
		return ns;
	return (uint64_t)((double)ns * (double)iters / (double)(t1 - t0) + 0.5);
}

static inline void spsc_push(struct spsc *q, uint32_t v)
{
	uint32_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	q->q[t & q->mask] = v;
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
}

/* --- SQE preparation, one function per (target, fixed) chosen at setup -- */

static inline void piece_addr(const struct bb_bio *bio, void **addr,
			      uint32_t *len, uint64_t *off)
{
	struct bb_bvec bv = bb_bvec_iter_bvec(bio->bi_io_vec, bio->bi_iter);

	*addr = (char *)bv.bv_page + bv.bv_offset;
	*len = bio->bi_iter.bi_size;
	*off = bio->bi_iter.bi_sector << BB_SECTOR_SHIFT;
}

static void prep_nop(struct worker *w, struct io_uring_sqe *sqe,
		     const struct bb_bio *bio)
{
	(void)w;
	(void)bio;
	io_uring_prep_nop(sqe);
}

static void prep_read(struct worker *w, struct io_uring_sqe *sqe,
		      const struct bb_bio *bio)
{
	void *addr;
	uint32_t len;
	uint64_t off;

	piece_addr(bio, &addr, &len, &off);
	io_uring_prep_read(sqe, w->fd, addr, len, off);
	sqe->flags |= w->sqe_flags;
}

static void prep_write(struct worker *w, struct io_uring_sqe *sqe,
		       const struct bb_bio *bio)
{
	void *addr;
	uint32_t len;
	uint64_t off;

	piece_addr(bio, &addr, &len, &off);
	io_uring_prep_write(sqe, w->fd, addr, len, off);
	sqe->flags |= w->sqe_flags;
}

static void prep_read_fixed(struct worker *w, struct io_uring_sqe *sqe,
			    const struct bb_bio *bio)
{
	void *addr;
	uint32_t len;
	uint64_t off;

	piece_addr(bio, &addr, &len, &off);
	io_uring_prep_read_fixed(sqe, w->fd, addr, len, off, 0);
	sqe->flags |= w->sqe_flags;
}

static void prep_write_fixed(struct worker *w, struct io_uring_sqe *sqe,
			     const struct bb_bio *bio)
{
	void *addr;
	uint32_t len;
	uint64_t off;

	piece_addr(bio, &addr, &len, &off);
	io_uring_prep_write_fixed(sqe, w->fd, addr, len, off, 0);
	sqe->flags |= w->sqe_flags;
}

/* NVMe passthrough (IORING_OP_URING_CMD on /dev/ngXnY, SQE128): one
 * Read (0x02) or Write (0x01) command per bio, as t/io_uring -u1.  The
 * whole command is stored each time (an SQE slot holds the previous
 * one). */
static inline void prep_nvme(struct worker *w, struct io_uring_sqe *sqe,
			     const struct bb_bio *bio, uint8_t opcode,
			     bool fixed)
{
	struct nvme_uring_cmd *cmd = (struct nvme_uring_cmd *)sqe->cmd;
	void *addr;
	uint32_t len;
	uint64_t off, slba;

	piece_addr(bio, &addr, &len, &off);
	slba = off >> w->lba_shift;
	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, w->fd, NULL, 0, 0);
	sqe->cmd_op = NVME_URING_CMD_IO;
	sqe->flags |= w->sqe_flags;
	if (fixed) {
		/* one registered buffer per slot (setup_buffers) */
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = (uint16_t)(((char *)addr - w->bufs) /
					    w->slot_stride);
	}
	*cmd = (struct nvme_uring_cmd){
		.opcode = opcode,
		.nsid = w->nsid,
		.addr = (uint64_t)(uintptr_t)addr,
		.data_len = len,
		.cdw10 = (uint32_t)slba,
		.cdw11 = (uint32_t)(slba >> 32),
		.cdw12 = (len >> w->lba_shift) - 1, /* NLB, 0's based */
	};
}

#define NVME_CMD_WRITE 0x01
#define NVME_CMD_READ 0x02

static void prep_nvme_read(struct worker *w, struct io_uring_sqe *sqe,
			   const struct bb_bio *bio)
{
	prep_nvme(w, sqe, bio, NVME_CMD_READ, false);
}

static void prep_nvme_write(struct worker *w, struct io_uring_sqe *sqe,
			    const struct bb_bio *bio)
{
	prep_nvme(w, sqe, bio, NVME_CMD_WRITE, false);
}

static void prep_nvme_read_fixed(struct worker *w, struct io_uring_sqe *sqe,
				 const struct bb_bio *bio)
{
	prep_nvme(w, sqe, bio, NVME_CMD_READ, true);
}

static void prep_nvme_write_fixed(struct worker *w, struct io_uring_sqe *sqe,
				  const struct bb_bio *bio)
{
	prep_nvme(w, sqe, bio, NVME_CMD_WRITE, true);
}

/* --- completion --------------------------------------------------------- */

static inline void slot_release_task(struct worker *w, struct wslot *s)
{
	if (bb_unlikely(w->busy) && s->write)
		w->busy[s->block] = 0;
	w->free_stack[w->nfree++] = s->idx;
}

/* The parent bio's end_io: account, put the bio, free the slot.  Two
 * versions, chosen at setup by the completion mode. */
static inline void parent_done(struct worker *w, struct side *sd,
			       struct bb_bio *bio, struct wslot *s,
			       enum bb_ctx ctx)
{
	if (bb_unlikely(bio->bi_status)) {
		sd->io.errors++;
		set_fatal(w, -(int)bio->bi_status,
			  "I/O error at offset %llu: %s",
			  (unsigned long long)s->off, strerror(bio->bi_status));
	} else if (s->measured && (sd->measuring || w->limit)) {
		sd->io.ios++;
		if (s->write) {
			sd->io.writes++;
			sd->io.bytes_written += w->cfg->bs;
		} else {
			sd->io.reads++;
			sd->io.bytes_read += w->cfg->bs;
		}
		if (sd->lat)
			bb_hist_add(sd->lat, sd->now - s->t_sub);
	}
	if (bb_unlikely(s->check) && !bio->bi_status) {
		char msg[256];

		if (bb_verify_check(s->buf, w->cfg->bs, s->off, s->gen, msg,
			      sizeof(msg))) {
			sd->io.verify_errors++;
			set_fatal(w, -EILSEQ, "%s", msg);
		}
	}
	bb_bio_put(bio, ctx);
}

static void end_io_task(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct wslot *s = bio->bi_private;
	struct worker *w = s->w;

	parent_done(w, &w->sub, bio, s, ctx);
	slot_release_task(w, s);
}

static void end_io_thread(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct wslot *s = bio->bi_private;
	struct worker *w = s->w;

	parent_done(w, &w->comp, bio, s, ctx);
	spsc_push(&w->done_q, s->idx);
}

/* One CQE = one issued bio (a split piece or a whole parent). */
static inline void complete_one(struct worker *w, struct side *sd,
				const struct io_uring_cqe *cqe,
				enum bb_ctx ctx)
{
	struct bb_bio *bio = (struct bb_bio *)(uintptr_t)cqe->user_data;
	uint32_t size = bio->bi_iter.bi_size;
	int want = (int)(size & w->res_mask);
	/* a split clone's bi_private is its parent bio (bio_chain) */
	const struct bb_bio *parent = bio->bi_end_io == bb_bio_chain_endio ?
					      bio->bi_private : bio;
	const struct wslot *s = parent->bi_private;

	if (bb_unlikely(cqe->res != want)) {
		if (cqe->res == -EOPNOTSUPP && w->cfg->mode == BB_MODE_POLL)
			set_fatal(w, -EOPNOTSUPP,
				  "--mode poll: %s returned EOPNOTSUPP for a "
				  "polled I/O: the device cannot poll (for "
				  "NVMe load the driver with "
				  "nvme.poll_queues=N); stopping",
				  w->t->path);
		else if (cqe->res > 0 && w->t->ops->sqe == BB_SQE_NVME_CMD)
			set_fatal(w, -EIO,
				  "%s: NVMe command failed with status 0x%x "
				  "(sector %llu, %u bytes)",
				  w->t->path, (unsigned)cqe->res,
				  (unsigned long long)bio->bi_iter.bi_sector,
				  size);
		bio->bi_status = cqe->res < 0 ? (uint8_t)-cqe->res : EIO;
	} else if (s->measured) {
		/* every request of a measured I/O counts, also those reaped
		 * while draining after the stop: the kernel's diskstats see
		 * them, and ours must equal them */
		if (bb_bio_op(bio) == BB_REQ_OP_WRITE) {
			sd->io.dev_writes++;
			sd->io.sectors_written += size >> BB_SECTOR_SHIFT;
		} else {
			sd->io.dev_reads++;
			sd->io.sectors_read += size >> BB_SECTOR_SHIFT;
		}
	}
	bb_bio_endio(bio, ctx);
}

/* Reap what is in the CQ; returns the number of CQEs. */
static unsigned reap(struct worker *w, struct side *sd, enum bb_ctx ctx)
{
	struct io_uring_cqe *cqes[REAP_BATCH];
	unsigned n, total = 0;

	for (;;) {
		n = io_uring_peek_batch_cqe(&w->ring, cqes, REAP_BATCH);
		if (!n)
			break;
		if (sd->lat)
			sd->now = bb_now_ns();
		for (unsigned i = 0; i < n; i++)
			complete_one(w, sd, cqes[i], ctx);
		io_uring_cq_advance(&w->ring, n);
		total += n;
		if (n < REAP_BATCH)
			break;
	}
	sd->io.reaped += total;
	return total;
}

/* --- issuing ------------------------------------------------------------ */

static inline struct io_uring_sqe *get_sqe(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);

	for (int tries = 0; bb_unlikely(!sqe) && tries < 1000000; tries++) {
		int ret;

		ring_release(w);
		ret = io_uring_submit(&w->ring);
		if (ret > 0)
			w->sub.io.submitted += (unsigned)ret;
		w->sub.io.enters++;
		if (w->cfg->mode == BB_MODE_SQPOLL)
			io_uring_sqring_wait(&w->ring);
		sqe = io_uring_get_sqe(&w->ring);
	}
	return sqe;
}

static inline void issue_bio(struct worker *w, struct bb_bio *bio)
{
	struct io_uring_sqe *sqe = get_sqe(w);

	if (bb_unlikely(!sqe)) {
		/* cannot happen with the ring sized for depth x pieces */
		bio->bi_status = EBUSY;
		set_fatal(w, -EBUSY, "submission queue full");
		bb_bio_endio(bio, BB_CTX_TASK);
		return;
	}
	w->prep[bb_bio_op(bio)](w, sqe, bio);
	io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)bio);
}

/* Choose the next parent I/O: offset and direction.  False when the
 * workload is exhausted (number_ios reached, verify pass done). */
static inline bool next_io(struct worker *w, struct wslot *s)
{
	uint64_t blk;

	if (bb_unlikely(w->verify_phase)) {
		while (w->verify_cursor < w->blk_count &&
		       !w->gens[w->verify_cursor])
			w->verify_cursor++;
		if (w->verify_cursor >= w->blk_count)
			return false;
		blk = w->verify_cursor++;
		s->write = 0;
		s->check = 1;
		s->measured = 0;
		s->gen = w->gens[blk];
	} else {
		if (w->limit && w->issued >= w->limit)
			return false;
		if (w->random)
			blk = bb_rng_below_fast(&w->rng, w->blk_count);
		else {
			blk = w->seq_next++;
			if (w->seq_next >= w->blk_count)
				w->seq_next = 0;
		}
		s->write = w->rwmix >= 100 ? 0 :
			   w->rwmix == 0 ? 1 :
			   bb_rng_below_fast(&w->rng, 100) >= w->rwmix;
		s->check = 0;
		if (bb_unlikely(w->gens) && s->write) {
			/* never two writes of one block in flight */
			for (uint64_t n = 0; w->busy[blk]; n++) {
				if (n >= w->blk_count)
					return false;
				blk = blk + 1 < w->blk_count ? blk + 1 : 0;
			}
			w->busy[blk] = 1;
			s->gen = ++w->gen_next;
			w->gens[blk] = s->gen;
		}
		s->measured = w->sub.measuring;
		if (w->sub.measuring)
			w->issued++;
	}
	s->block = blk;
	s->off = w->region_off + (w->blk_first + blk) * w->cfg->bs;
	return true;
}

/* Build the parent bio for a slot and issue it, split as needed. */
static int queue_io(struct worker *w, struct wslot *s)
{
	struct bb_bio *bio, *piece;
	uint32_t opf = w->opf_base | (s->write ? BB_REQ_OP_WRITE
					       : BB_REQ_OP_READ);
	unsigned segs;
	int err = 0;

	if (w->fixed) {
		/* io_uring registered buffer: an ITER_BVEC bio over the ring's
		 * bvec table, BIO_CLONED, no vecs of its own (cacheable).
		 * bi_vcnt is set as bio_iov_bvec_set() did before Dec 2025. */
		bio = bb_bio_alloc_bioset(&w->bs, (void *)w->t, 0, opf);
		if (bb_unlikely(!bio))
			return -ENOMEM;
		bio->bi_io_vec = s->vecs;
		bb_bio_set_flag(bio, BB_BIO_CLONED);
		bio->bi_vcnt = s->nvecs;
	} else {
		/* pinned user pages copied into the bio's own vecs */
		bio = bb_bio_alloc_bioset(&w->bs, (void *)w->t, s->nvecs, opf);
		if (bb_unlikely(!bio))
			return -ENOMEM;
		memcpy(bio->bi_io_vec, s->vecs, s->nvecs * sizeof(*s->vecs));
		bio->bi_vcnt = s->nvecs;
	}
	bio->bi_iter.bi_sector = s->off >> BB_SECTOR_SHIFT;
	bio->bi_iter.bi_size = w->cfg->bs;
	bio->bi_end_io = w->end_io;
	bio->bi_private = s;
	if (bb_unlikely(w->gens) && s->write)
		bb_verify_stamp(s->buf, w->cfg->bs, s->off, s->gen);
	if (w->inject_iters)
		spin_delay(w->inject_iters);

	for (;;) {
		piece = bb_bio_split_to_limits(bio, &w->lim, w->may_split,
					       &w->split_bs, &segs,
					       &w->split_ctr, &err);
		if (bb_unlikely(!piece)) {
			set_fatal(w, err,
				  "cannot split the I/O at offset %llu: %s",
				  (unsigned long long)s->off, strerror(-err));
			bb_bio_endio(bio, BB_CTX_TASK);
			return 0;
		}
		issue_bio(w, piece);
		if (piece == bio)
			break;
	}
	return 0;
}

/* --- setup -------------------------------------------------------------- */

static int setup_ring(struct worker *w, unsigned pieces)
{
	const struct bb_config *cfg = w->cfg;
	struct io_uring_params p;
	unsigned entries, cq;
	unsigned want[] = { IORING_SETUP_COOP_TASKRUN,
			    IORING_SETUP_SINGLE_ISSUER,
			    IORING_SETUP_DEFER_TASKRUN };
	unsigned extra = 0;
	int ret = -EINVAL;

	bb_worker_ring_sizes(cfg->iodepth, pieces, &entries, &cq);

	if (cfg->completion == BB_COMPLETION_INLINE) {
		extra = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER;
		if (cfg->mode != BB_MODE_SQPOLL)
			extra |= IORING_SETUP_DEFER_TASKRUN;
	}
	for (int drop = -1; drop < 3; drop++) {
		if (drop >= 0) {
			if (!(extra & want[2 - drop]))
				continue;
			extra &= ~want[2 - drop];
			if (want[2 - drop] == IORING_SETUP_SINGLE_ISSUER)
				extra &= ~IORING_SETUP_DEFER_TASKRUN;
		}
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | extra;
		if (cfg->engine == BB_ENGINE_URING_CMD)
			p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
		p.cq_entries = cq;
		if (cfg->mode == BB_MODE_POLL)
			p.flags |= IORING_SETUP_IOPOLL;
		if (cfg->mode == BB_MODE_SQPOLL) {
			p.flags |= IORING_SETUP_SQPOLL;
			p.sq_thread_idle = 1000;
			if (cfg->sqpoll_cpu >= 0) {
				p.flags |= IORING_SETUP_SQ_AFF;
				p.sq_thread_cpu = (unsigned)cfg->sqpoll_cpu;
			}
		}
		ret = io_uring_queue_init_params(entries, &w->ring, &p);
		if (ret != -EINVAL)
			break;
	}
	if (ret) {
		set_fatal(w, ret, "io_uring_queue_init (%s mode%s): %s",
			  bb_mode_name(cfg->mode),
			  cfg->engine == BB_ENGINE_URING_CMD
				  ? ", SQE128|CQE32 for uring_cmd" : "",
			  strerror(-ret));
		return ret;
	}
	w->a->res.ring_flags = p.flags;
	if (cfg->completion == BB_COMPLETION_INLINE &&
	    cfg->mode != BB_MODE_SQPOLL)
		io_uring_register_ring_fd(&w->ring); /* optional, like -X1 */
	return 0;
}

static int setup_buffers(struct worker *w)
{
	const struct bb_config *cfg = w->cfg;
	unsigned vecs_per = (cfg->bs + BB_PAGE_SIZE - 1) / BB_PAGE_SIZE;

	w->slot_stride = ((size_t)cfg->bs + BB_PAGE_SIZE - 1) &
			 ~((size_t)BB_PAGE_SIZE - 1);
	w->bufs_len = w->slot_stride * w->depth;
	w->bufs = mmap(NULL, w->bufs_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (w->bufs == MAP_FAILED) {
		w->bufs = NULL;
		set_fatal(w, -ENOMEM, "cannot map %zu bytes of I/O buffers",
			  w->bufs_len);
		return -ENOMEM;
	}
	memset(w->bufs, 0xa5, w->bufs_len);
	w->slots = calloc(w->depth, sizeof(*w->slots));
	w->free_stack = calloc(w->depth, sizeof(*w->free_stack));
	w->vecs = calloc((size_t)w->depth * vecs_per, sizeof(*w->vecs));
	if (!w->slots || !w->free_stack || !w->vecs) {
		set_fatal(w, -ENOMEM, "out of memory for %u slots", w->depth);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < w->depth; i++) {
		struct wslot *s = &w->slots[i];
		uint32_t left = cfg->bs;

		s->buf = w->bufs + (size_t)i * w->slot_stride;
		s->vecs = &w->vecs[(size_t)i * vecs_per];
		s->w = w;
		s->idx = i;
		s->nvecs = (uint16_t)vecs_per;
		for (unsigned v = 0; v < vecs_per; v++) {
			s->vecs[v].bv_page = s->buf + (size_t)v * BB_PAGE_SIZE;
			s->vecs[v].bv_offset = 0;
			s->vecs[v].bv_len = bb_min(left, BB_PAGE_SIZE);
			left -= s->vecs[v].bv_len;
		}
		w->free_stack[i] = w->depth - 1 - i;
	}
	w->nfree = w->depth;
	if (cfg->fixedbufs && w->t->ops->sqe == BB_SQE_NVME_CMD) {
		/* passthrough: one registered buffer per slot (buf_index =
		 * slot), as fio's io_uring_cmd engine.  A single large one
		 * fails on kernels whose blk_rq_map_user_bvec() counts the
		 * segments up to the end of the registered buffer against
		 * max_segments (6.1: EINVAL for any I/O more than
		 * max_segments pages before the end). */
		struct iovec *iov;
		int ret;

		if (w->depth > 16384) {
			set_fatal(w, -EINVAL,
				  "--engine uring_cmd --fixedbufs registers one "
				  "buffer per I/O slot: --iodepth %u is above "
				  "the kernel's 16384 buffers (use --fixedbufs=0)",
				  w->depth);
			return -EINVAL;
		}
		iov = calloc(w->depth, sizeof(*iov));
		if (!iov) {
			set_fatal(w, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		for (unsigned i = 0; i < w->depth; i++) {
			iov[i].iov_base = w->slots[i].buf;
			iov[i].iov_len = cfg->bs;
		}
		ret = io_uring_register_buffers(&w->ring, iov, w->depth);
		free(iov);
		if (ret) {
			set_fatal(w, ret,
				  "registering %u fixed buffers of %u bytes: %s "
				  "(raise RLIMIT_MEMLOCK or use --fixedbufs=0)",
				  w->depth, cfg->bs, strerror(-ret));
			return ret;
		}
	} else if (cfg->fixedbufs && !w->nop) {
		struct iovec iov = { .iov_base = w->bufs,
				     .iov_len = w->bufs_len };
		int ret = io_uring_register_buffers(&w->ring, &iov, 1);

		if (ret) {
			set_fatal(w, ret,
				  "registering %zu bytes of fixed buffers: %s "
				  "(raise RLIMIT_MEMLOCK or use --fixedbufs 0)",
				  w->bufs_len, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* What bb_config_memory_estimate() (run/config.c) counts for a worker
 * must stay an upper bound of what setup() allocates. */
_Static_assert(sizeof(struct wslot) <= BB_WORKER_SLOT_BYTES,
	       "BB_WORKER_SLOT_BYTES (run/worker.h) is below struct wslot");
_Static_assert(sizeof(struct worker) <= BB_WORKER_STATE_BYTES,
	       "BB_WORKER_STATE_BYTES (run/worker.h) is below struct worker");
_Static_assert(((sizeof(struct bb_bio) + BB_BIO_INLINE_VECS *
		 sizeof(struct bb_bvec) + BB_CACHELINE - 1) &
		~(size_t)(BB_CACHELINE - 1)) <= BB_WORKER_BIO_OBJ_BYTES,
	       "BB_WORKER_BIO_OBJ_BYTES (run/worker.h) is below a bio object");
_Static_assert(((sizeof(struct bb_bio) + BB_CACHELINE - 1) &
		~(size_t)(BB_CACHELINE - 1)) <= BB_WORKER_SPLIT_OBJ_BYTES,
	       "BB_WORKER_SPLIT_OBJ_BYTES (run/worker.h) is below a clone");

static int setup(struct worker *w)
{
	const struct bb_config *cfg = w->cfg;
	const struct bb_target *t = w->t;
	struct bb_bioset_params bp = { 0 };
	unsigned pieces, nthreads = cfg->threads;
	uint64_t nblocks;
	int ret;

	w->depth = cfg->iodepth;
	w->lim = t->lim;
	w->nop = t->ops->sqe == BB_SQE_NOP;
	/* read/write return the bytes; NOPs and NVMe commands return 0 */
	w->res_mask = t->ops->sqe == BB_SQE_RW ? ~0u : 0;
	w->nsid = t->nvme.nsid;
	w->lba_shift = t->lba_shift;
	w->fixed = cfg->fixedbufs; /* the bio model; nop registers nothing */
	w->may_split = cfg->split_check == BB_SPLIT_CHECK_VCNT ?
			       bb_bio_may_need_split_vcnt :
			       bb_bio_may_need_split_iter;
	w->end_io = cfg->completion == BB_COMPLETION_THREAD ? end_io_thread
							   : end_io_task;
	w->opf_base = cfg->mode == BB_MODE_POLL ? BB_REQ_POLLED : 0;
	w->rwmix = cfg->rw == BB_RW_RANDRW ? cfg->rwmixread :
		   bb_rw_writes(cfg->rw) ? 0 : 100;
	w->random = bb_rw_random(cfg->rw);
	bb_rng_seed(&w->rng, cfg->seed * 0x9E3779B97F4A7C15ull + w->a->index + 1);
	w->limit = cfg->number_ios;
	w->region_off = t->region_off;
	nblocks = t->region_len / cfg->bs;
	if (cfg->verify || !w->random) {
		/* each thread its own slice: no two threads write one block */
		w->blk_first = nblocks * w->a->index / nthreads;
		w->blk_count = nblocks * (w->a->index + 1) / nthreads -
			       w->blk_first;
	} else {
		w->blk_first = 0;
		w->blk_count = nblocks;
	}
	if (!w->blk_count) {
		set_fatal(w, -EINVAL,
			  "the region holds %llu blocks of %u bytes, fewer than "
			  "one per thread",
			  (unsigned long long)nblocks, cfg->bs);
		return -EINVAL;
	}
	if (cfg->verify) {
		w->gens = calloc(w->blk_count, sizeof(*w->gens));
		w->busy = calloc(w->blk_count, 1);
		if (!w->gens || !w->busy) {
			set_fatal(w, -ENOMEM, "out of memory for verify state");
			return -ENOMEM;
		}
	}
	w->inject_iters = calibrate_delay(cfg->inject_ns);

	pieces = bb_limits_max_pieces(cfg->bs, &w->lim);
	ret = setup_ring(w, pieces);
	if (ret)
		return ret;

	if (w->nop) {
		w->prep[0] = w->prep[1] = prep_nop;
	} else {
		w->fd = t->fd;
		if (cfg->registerfiles || cfg->mode == BB_MODE_SQPOLL) {
			ret = io_uring_register_files(&w->ring, &t->fd, 1);
			if (ret) {
				set_fatal(w, ret, "registering the file: %s",
					  strerror(-ret));
				return ret;
			}
			w->fd = 0;
			w->sqe_flags = IOSQE_FIXED_FILE;
		}
		if (t->ops->sqe == BB_SQE_NVME_CMD) {
			w->prep[0] = w->fixed ? prep_nvme_read_fixed
					      : prep_nvme_read;
			w->prep[1] = w->fixed ? prep_nvme_write_fixed
					      : prep_nvme_write;
		} else {
			w->prep[0] = w->fixed ? prep_read_fixed : prep_read;
			w->prep[1] = w->fixed ? prep_write_fixed : prep_write;
		}
	}
	ret = setup_buffers(w);
	if (ret)
		return ret;

	/* the main bioset: fs_bio_set / blkdev_dio_pool (pool 4, bvecs) */
	bp.pool_size = BB_WORKER_BIO_POOL;
	bp.need_bvecs = true;
	bp.cache = cfg->bio_cache;
	bp.slab_limit = BB_WORKER_BIO_SLAB(w->depth);
	bp.bvec_slab_limit = BB_WORKER_BVEC_SLAB(w->depth);
	ret = bb_bioset_init(&w->bs, &bp);
	if (ret) {
		set_fatal(w, ret, "bioset init: %s", strerror(-ret));
		return ret;
	}
	/* the split bioset: disk->bio_split (pool 2, no bvecs, no cache),
	 * cached only in the `all` variant */
	memset(&bp, 0, sizeof(bp));
	bp.pool_size = BB_WORKER_SPLIT_POOL;
	bp.cache = cfg->bio_cache == BB_CACHE_ALL ? BB_CACHE_ALL : BB_CACHE_OFF;
	bp.slab_limit = BB_WORKER_SPLIT_SLAB(w->depth, pieces);
	ret = bb_bioset_init(&w->split_bs, &bp);
	if (ret) {
		set_fatal(w, ret, "split bioset init: %s", strerror(-ret));
		return ret;
	}

	if (cfg->completion == BB_COMPLETION_THREAD) {
		uint32_t n = 1;

		while (n < w->depth)
			n <<= 1;
		w->done_q.q = calloc(n, sizeof(uint32_t));
		if (!w->done_q.q) {
			set_fatal(w, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		w->done_q.mask = n - 1;
	}
	if (cfg->lat != BB_LAT_OFF) {
		w->sub.lat = &w->a->res.lat;
		bb_hist_init(w->sub.lat);
		if (cfg->completion == BB_COMPLETION_THREAD) {
			w->comp.lat = calloc(1, sizeof(*w->comp.lat));
			if (!w->comp.lat)
				return -ENOMEM;
			bb_hist_init(w->comp.lat);
		}
	}
	w->sub.live = &w->a->live[0];
	w->comp.live = &w->a->live[1];
	return 0;
}

static void teardown(struct worker *w)
{
	if (w->bs.impl)
		bb_bioset_exit(&w->bs);
	if (w->split_bs.impl)
		bb_bioset_exit(&w->split_bs);
	if (w->ring.ring_fd > 0) {
		/* drop the registered file now: the ring itself is torn down
		 * asynchronously by the kernel, and until then it would keep
		 * an O_EXCL device open for the next run */
		if (w->sqe_flags & IOSQE_FIXED_FILE)
			io_uring_unregister_files(&w->ring);
		io_uring_queue_exit(&w->ring);
	}
	if (w->bufs)
		munmap(w->bufs, w->bufs_len);
	free(w->slots);
	free(w->free_stack);
	free(w->vecs);
	free(w->gens);
	free(w->busy);
	free(w->done_q.q);
	free(w->comp.lat);
}

/* --- phases ------------------------------------------------------------- */

static inline void publish(struct side *sd)
{
	atomic_store_explicit(&sd->live->ios, sd->io.ios, memory_order_relaxed);
	atomic_store_explicit(&sd->live->bytes,
			      sd->io.bytes_read + sd->io.bytes_written,
			      memory_order_relaxed);
	atomic_store_explicit(&sd->live->submitted, sd->io.submitted,
			      memory_order_relaxed);
	atomic_store_explicit(&sd->live->enters, sd->io.enters,
			      memory_order_relaxed);
	atomic_store_explicit(&sd->live->reaped, sd->io.reaped,
			      memory_order_relaxed);
}

static void side_start_measure(struct side *sd)
{
	memset(&sd->io, 0, sizeof(sd->io));
	if (sd->lat)
		bb_hist_init(sd->lat);
	sd->measuring = true;
}

/* The submitter observes the engine's phase once per loop. */
static bool phase_step(struct worker *w, int *seen)
{
	int ph = atomic_load_explicit(w->a->phase, memory_order_acquire);

	if (ph == *seen)
		return ph != BB_PHASE_STOP;
	*seen = ph;
	if (ph == BB_PHASE_MEASURE) {
		side_start_measure(&w->sub);
		memset(&w->split_ctr, 0, sizeof(w->split_ctr));
		w->issued = 0;
		w->a->res.t_start_ns = bb_now_ns();
		bb_cpu_usage_thread(&w->a->res.cpu_submit);
		return true;
	}
	if (ph == BB_PHASE_STOP)
		return false;
	return true;
}

static void finish_measure(struct worker *w)
{
	struct bb_cpu_usage now;

	if (!w->sub.measuring)
		return;
	w->a->res.t_end_ns = bb_now_ns();
	bb_cpu_usage_thread(&now);
	w->a->res.cpu_submit.usr_ns = now.usr_ns - w->a->res.cpu_submit.usr_ns;
	w->a->res.cpu_submit.sys_ns = now.sys_ns - w->a->res.cpu_submit.sys_ns;
	w->sub.measuring = false;
}

static inline unsigned fill_batch(struct worker *w, bool *exhausted)
{
	unsigned prepped = 0, batch = w->cfg->submit_batch;

	while (w->nfree && prepped < batch) {
		struct wslot *s = &w->slots[w->free_stack[w->nfree - 1]];

		if (bb_unlikely(!next_io(w, s))) {
			*exhausted = true;
			break;
		}
		w->nfree--;
		s->t_sub = w->sub.lat && w->cfg->lat == BB_LAT_IO ?
				   bb_now_ns() : w->sub.now;
		if (bb_unlikely(queue_io(w, s))) {
			/* the bioset is empty: reap to free bios first */
			w->nfree++;
			if (s->write && w->busy)
				w->busy[s->block] = 0;
			if (w->sub.measuring && !w->verify_phase)
				w->issued--;
			break;
		}
		prepped++;
	}
	return prepped;
}

/* Inline completions: the submitter reaps (task context). */
static void loop_inline(struct worker *w, bool until_exhausted)
{
	int seen = -1;
	bool exhausted = false;

	for (;;) {
		unsigned inflight, to_wait;
		int ret;

		if (!until_exhausted && !phase_step(w, &seen))
			break;
		if (w->fatal)
			break;
		if (w->sub.lat && w->cfg->lat == BB_LAT_BATCH)
			w->sub.now = bb_now_ns();
		if (!exhausted)
			fill_batch(w, &exhausted);
		inflight = w->depth - w->nfree;
		if (exhausted && !inflight)
			break;
		to_wait = 0;
		if (!w->nfree || exhausted)
			to_wait = bb_min(w->cfg->complete_batch, inflight);
		if (!to_wait && !io_uring_sq_ready(&w->ring)) {
			/* nothing to submit and room left: the bioset was
			 * empty; wait for one completion */
			to_wait = inflight ? 1 : 0;
		}
		ring_release(w);
		ret = io_uring_submit_and_wait(&w->ring, to_wait);
		w->sub.io.enters++;
		if (ret > 0)
			w->sub.io.submitted += (unsigned)ret;
		else if (ret < 0 && ret != -EAGAIN && ret != -EINTR &&
			 ret != -EBUSY && ret != -ETIME) {
			set_fatal(w, ret, "io_uring_enter: %s", strerror(-ret));
			break;
		}
		reap(w, &w->sub, BB_CTX_TASK);
		if (w->sub.measuring)
			publish(&w->sub);
	}
	finish_measure(w);
	/* drain */
	while (w->nfree < w->depth) {
		int ret;

		ring_release(w);
		ret = io_uring_submit_and_wait(&w->ring, 1);
		if (ret < 0 && ret != -EAGAIN && ret != -EINTR &&
		    ret != -ETIME) {
			set_fatal(w, ret, "io_uring_enter while draining: %s",
				  strerror(-ret));
			break;
		}
		reap(w, &w->sub, BB_CTX_TASK);
	}
}

/* --- completion thread: hard-irq context -------------------------------- */

static void *completion_main(void *arg)
{
	struct worker *w = arg;
	struct side *sd = &w->comp;
	struct io_uring_cqe *cqes[REAP_BATCH];
	struct bb_cpu_usage u0, u1;
	int seen = -1;
	bool stop = false;

	bb_cpu_usage_thread(&u0);
	while (!stop) {
		struct io_uring_cqe *cqe;
		unsigned n;
		int ph = atomic_load_explicit(w->a->phase,
					      memory_order_acquire);

		if (ph != seen) {
			seen = ph;
			if (ph == BB_PHASE_MEASURE) {
				sd->measuring = true;
				bb_cpu_usage_thread(&u0);
			} else if (ph == BB_PHASE_STOP) {
				sd->measuring = false;
			}
		}
		if (io_uring_wait_cqe(&w->ring, &cqe))
			continue;
		n = io_uring_peek_batch_cqe(&w->ring, cqes, REAP_BATCH);
		ring_acquire(w);
		if (sd->lat)
			sd->now = bb_now_ns();
		for (unsigned i = 0; i < n; i++) {
			if (bb_unlikely(cqes[i]->user_data == SENTINEL_UD)) {
				stop = true;
				continue;
			}
			complete_one(w, sd, cqes[i], BB_CTX_HARDIRQ);
		}
		io_uring_cq_advance(&w->ring, n);
		sd->io.reaped += n;
		if (sd->measuring)
			publish(sd);
	}
	bb_cpu_usage_thread(&u1);
	w->a->res.cpu_completion.usr_ns = u1.usr_ns - u0.usr_ns;
	w->a->res.cpu_completion.sys_ns = u1.sys_ns - u0.sys_ns;
	return NULL;
}

static void recycle(struct worker *w)
{
	struct spsc *q = &w->done_q;
	uint32_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&q->tail, memory_order_acquire);

	for (; h != t; h++) {
		struct wslot *s = &w->slots[q->q[h & q->mask]];

		if (w->busy && s->write)
			w->busy[s->block] = 0;
		w->free_stack[w->nfree++] = s->idx;
	}
	atomic_store_explicit(&q->head, h, memory_order_release);
}

static int submit_pending(struct worker *w)
{
	int ret;

	ring_release(w);
	ret = io_uring_submit(&w->ring);
	w->sub.io.enters++;
	if (ret > 0)
		w->sub.io.submitted += (unsigned)ret;
	else if (ret < 0 && ret != -EAGAIN && ret != -EINTR && ret != -EBUSY)
		set_fatal(w, ret, "io_uring_enter: %s", strerror(-ret));
	return ret;
}

static void loop_thread(struct worker *w, bool until_exhausted)
{
	int seen = -1;
	bool exhausted = false;
	unsigned spins = 0;

	for (;;) {
		if (!until_exhausted && !phase_step(w, &seen))
			break;
		if (w->fatal)
			break;
		recycle(w);
		if (w->sub.lat && w->cfg->lat == BB_LAT_BATCH)
			w->sub.now = bb_now_ns();
		if (!exhausted && fill_batch(w, &exhausted)) {
			submit_pending(w);
			if (w->sub.measuring)
				publish(&w->sub);
			spins = 0;
			continue;
		}
		if (exhausted && w->nfree == w->depth)
			break;
		/* all slots in flight: wait for the completion thread */
		if (++spins > 64) {
			sched_yield();
			spins = 0;
		} else {
			__builtin_ia32_pause();
		}
	}
	finish_measure(w);
	while (w->nfree < w->depth) {
		recycle(w);
		sched_yield();
	}
}

static void stop_completion_thread(struct worker *w)
{
	struct io_uring_sqe *sqe;

	if (!w->cthread_started)
		return;
	sqe = get_sqe(w);
	if (sqe) {
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, SENTINEL_UD);
		submit_pending(w);
	}
	pthread_join(w->cthread, NULL);
	w->cthread_started = false;
}

static void run_loop(struct worker *w, bool until_exhausted)
{
	if (w->cfg->completion == BB_COMPLETION_THREAD)
		loop_thread(w, until_exhausted);
	else
		loop_inline(w, until_exhausted);
}

static int start_completion_thread(struct worker *w)
{
	int ret = pthread_create(&w->cthread, NULL, completion_main, w);

	if (ret) {
		set_fatal(w, -ret, "cannot start the completion thread: %s",
			  strerror(ret));
		return -ret;
	}
	w->cthread_started = true;
	if (w->a->completion_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->a->completion_cpu, &set);
		pthread_setaffinity_np(w->cthread, sizeof(set), &set);
	}
	return 0;
}

/* The verify pass: read back every block written, through the same path
 * (splits included), and check the stamps. */
static void verify_pass(struct worker *w)
{
	w->verify_phase = true;
	w->verify_cursor = 0;
	run_loop(w, true);
}

static void *BB_L(bb_worker_main)(void *arg)
{
	struct bb_worker_args *a = arg;
	struct worker *w;
	int pf_instr = -1, pf_cyc = -1;
	uint64_t i0 = 0, c0 = 0, i1 = 0, c1 = 0;

	w = aligned_alloc(BB_CACHELINE,
			  (sizeof(*w) + BB_CACHELINE - 1) & ~(size_t)(BB_CACHELINE - 1));
	if (!w) {
		a->res.error = -ENOMEM;
		snprintf(a->res.errmsg, sizeof(a->res.errmsg), "out of memory");
		atomic_store(&a->ready, 1);
		atomic_store(&a->done, 1);
		return NULL;
	}
	memset(w, 0, sizeof(*w));
	w->cfg = a->cfg;
	w->t = a->t;
	w->a = a;
	w->ring.ring_fd = -1;

	if (a->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(a->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (setup(w) == 0 && (w->cfg->completion != BB_COMPLETION_THREAD ||
			      start_completion_thread(w) == 0)) {
		if (bb_perf_open(&pf_instr, &pf_cyc, a->res.perf_reason,
				 sizeof(a->res.perf_reason)) == 0) {
			a->res.perf_ok = true;
			bb_perf_read(pf_instr, pf_cyc, &i0, &c0);
		}
		atomic_store(&a->ready, 1);
		run_loop(w, false);
		if (a->res.perf_ok) {
			bb_perf_read(pf_instr, pf_cyc, &i1, &c1);
			a->res.instructions = i1 - i0;
			a->res.cycles = c1 - c0;
		}
		/* counters of the run itself, before the verify pass; the
		 * completion thread is idle here (every slot came back
		 * through the release/acquire queue) */
		bb_bioset_counters(&w->bs, &a->res.cache);
		bb_bioset_counters(&w->split_bs, &a->res.split_cache);
		a->res.split = w->split_ctr;
		if (!w->fatal && w->cfg->verify)
			verify_pass(w);
		stop_completion_thread(w);
	}
	atomic_store(&a->ready, 1);
	if (pf_instr >= 0)
		close(pf_instr);
	if (pf_cyc >= 0)
		close(pf_cyc);

	/* report */
	a->res.io = w->sub.io;
	bb_io_totals_add(&a->res.io, &w->comp.io);
	if (w->comp.lat)
		bb_hist_merge(&a->res.lat, w->comp.lat);
	a->res.error = w->fatal;
	snprintf(a->res.errmsg, sizeof(a->res.errmsg), "%s", w->fatal_msg);
	teardown(w);
	free(w);
	atomic_store(&a->done, 1);
	return NULL;
}

const struct bb_path_ops bb_path_ops_this = {
	.layout = BB_LAYOUT_THIS,
	.worker_main = BB_L(bb_worker_main),
};
