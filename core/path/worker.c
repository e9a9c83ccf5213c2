// SPDX-License-Identifier: GPL-2.0-only
/* worker.c - one submitter thread's hot loop (layout-dependent): fill a
 * batch of SQEs, submit and wait in one call, reap, account; with or
 * without the bio model.  Its setup, everything that does not touch a
 * struct bio (ring, buffers, files, templates), is run/wsetup.c; the SQE
 * preps are run/sqe.h.
 *
 * Per I/O, with the bio model (--model bio), as the kernel's block path
 * for an io_uring read/write:
 *   bio alloc (cache or slab) -> may_need_split fast check -> split against
 *   the queue limits (clones from the split bioset, chained to the parent)
 *   -> one SQE per resulting bio -> completion -> bio_endio (chained clones
 *   put, parent's end_io) -> bio put (task list, irq list or freed, per
 *   variant and context).
 * The context of the puts (config.h, bb_config_completion): task when the
 * submitter reaps as polled completions do (--completion inline, the
 * default of --mode poll); hard-irq when the submitter reaps but stands
 * for its own CPU's completion interrupt (--completion irq, the default of
 * --mode irq and sqpoll: the reap build with K_IRQCTX); hard-irq on
 * another CPU when a completion thread reaps (--completion thread: its
 * puts go to that CPU's own cache, which nothing allocates from, as the
 * kernel recycles a bio on the CPU that frees it).
 * --device-ns adds a busy time per completed request before
 * its bio_endio (the general reap builds only), --cold-bios a bioset that
 * evicts each bio at put (the loop does not change).
 * Without it (--model none): one SQE per I/O straight from its slot, as
 * t/io_uring.
 *
 * What the kernel's path does not do is not done per I/O here either:
 *  - the per-batch work is per batch: counters (ios, bytes, requests,
 *    CQEs) are added once per reap; the latency clock is read once per
 *    submit batch and once per reap, and a run of I/Os sharing a stamp is
 *    one histogram update; the RNG state lives in registers for a batch;
 *  - nothing is chosen per I/O: the fill and reap steps are built (always
 *    inlined with constant K_* flags) once per combination of model, SQE
 *    prep, split-check form and completion context, and the combination
 *    is chosen at setup (tables fill_fns / reap_fns below); a second, general
 *    build of each handles several files, mixed directions, verify,
 *    per-I/O latency, inject_ns and device_ns, so that the common case
 *    carries none of their branches;
 *  - a CQE's user_data is its slot (no model) or its bio (model): one load
 *    from the CQE to what it completes;
 *  - SQEs are taken from the ring a batch at a time (one space check), and
 *    CQEs are walked in the ring between one load of the tail and one
 *    store of the head.
 * The bio model's own steps stay what the kernel does: the cache hit of
 * bio_alloc_bioset is inline, bio_may_need_split is inline (blk.h), the
 * parent's completion is the bio's bi_end_io, called through bio_endio
 * (both indirect in the kernel too), and the variant's put is the bioset's
 * put_cache.
 */
#include "path/bioset.h"
#include "path/path.h"
#include "path/split.h"
#include "run/tsan.h"
#include "run/verify.h"
#include "run/wbase.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BB_HOT static inline __attribute__((always_inline))

/* ThreadSanitizer does not see the ordering io_uring gives between the
 * submitter's writes to a bio and the completion thread's reads of it
 * (submit -> kernel -> CQE): mark it on the ring, release before every
 * submission, acquire after every reap of the completion thread.  Empty
 * in other builds. */
#define ring_release(w) bb_tsan_release(&(w)->b.ring)
#define ring_acquire(w) bb_tsan_acquire(&(w)->b.ring)
#define SENTINEL_UD 1ull /* user_data of the NOP that stops the completion
			    thread (slots and bios are 64-byte aligned) */

/* The build of a fill or reap step. */
enum {
	K_BIO = 1u << 0,     /* the bio model */
	K_NVME = 1u << 1,    /* NVMe passthrough preps (SQE128, CQE32) */
	K_ITER = 1u << 2,    /* may_need_split: the iter form (else vcnt) */
	K_FAST = 1u << 3,    /* one file, one direction, no verify, no
				inject_ns, no per-I/O latency */
	K_NOOFF = 1u << 4,   /* the SQEs use no offset (plain NOPs, no
				model): none is drawn */
	K_LAT = 1u << 5,     /* reap: latency recorded */
	K_CTHREAD = 1u << 6, /* reap: the completion thread (another CPU,
				the comp side); always with K_IRQCTX */
	K_FIXED = 1u << 7,   /* fast bio build: registered buffers (a
				BIO_CLONED bio over the slot's bvecs) */
	K_IRQCTX = 1u << 8,  /* reap: the bio puts run in hard-irq context
				(the completion thread's, or the
				submitter's own for a same-CPU interrupt) */
	K_VEC = 1u << 9,     /* no model: READV/WRITEV of the slot's iovec
				(--vectored, t/io_uring -V1) */
	K_ROOMY = 1u << 10,  /* one SQE per slot and an SQ ring of at
				least depth entries: a free slot always has
				room in the SQ (no room check) */
	K_PRESET = 1u << 11, /* no model, one template: every SQE of the
				ring holds it from the loop's start
				(sq_preset), a fill writes the I/O's own
				words only (address, offset, user_data) */
};

/* Single-producer single-consumer ring of slots, from the completion
 * thread back to the submitter. */
struct spsc {
	struct bb_wslot **q;
	uint32_t mask;
	_Atomic uint32_t head bb_aligned_cl;
	_Atomic uint32_t tail bb_aligned_cl;
};

struct worker;
typedef unsigned (*fill_fn)(struct worker *w, bool *exhausted);
typedef unsigned (*reap_fn)(struct worker *w, struct bb_wside *sd);

struct worker {
	struct bb_wbase b;
	/* the steps, chosen at setup */
	fill_fn fill;           /* the run's */
	fill_fn fill_general;   /* the verify pass's */
	reap_fn reap;           /* the submitter's, inline completions */
	reap_fn reap_general;
	unsigned submit_batch;
	unsigned complete_batch;
	bool lat_io;            /* --lat io: a stamp per I/O */
	bool fast;              /* the steps are the fast builds (K_FAST) */
	/* the bio model */
	bool model;
	struct bb_bioset bs;
	struct bb_bioset split_bs;
	struct bb_bvec *vecs;
	bb_may_split_fn may_split;  /* for the split loop's later checks */
	bb_bio_end_io_t end_io;     /* the parent's, this phase */
	bb_bio_end_io_t end_io_general;
	uint32_t opf_base;
	struct bb_split_counters split_ctr;
	/* completion thread */
	struct spsc done_q;
	pthread_t cthread;
	bool cthread_started;
	_Atomic unsigned epoch;     /* bumped when the measured interval
				       starts (the completion thread then
				       clears its side) and when the verify
				       pass starts (it keeps its counts) */
	_Atomic bool comp_fast;     /* the completion thread's reap build */
	bool comp_kept;             /* written by the completion thread */
	struct bb_io_totals comp_keep;
};

/* What bb_config_memory_estimate() (run/config.c) counts for a worker
 * must stay an upper bound of what its setup allocates. */
_Static_assert(sizeof(struct bb_wslot) <= BB_WORKER_SLOT_BYTES,
	       "BB_WORKER_SLOT_BYTES (run/worker.h) is below struct bb_wslot");
_Static_assert(sizeof(struct worker) <= BB_WORKER_STATE_BYTES,
	       "BB_WORKER_STATE_BYTES (run/worker.h) is below struct worker");
_Static_assert(((sizeof(struct bb_bio) + BB_BIO_INLINE_VECS *
		 sizeof(struct bb_bvec) + BB_CACHELINE - 1) &
		~(size_t)(BB_CACHELINE - 1)) <= BB_WORKER_BIO_OBJ_BYTES,
	       "BB_WORKER_BIO_OBJ_BYTES (run/worker.h) is below a bio object");
_Static_assert(((sizeof(struct bb_bio) + BB_CACHELINE - 1) &
		~(size_t)(BB_CACHELINE - 1)) <= BB_WORKER_SPLIT_OBJ_BYTES,
	       "BB_WORKER_SPLIT_OBJ_BYTES (run/worker.h) is below a clone");

static inline struct worker *worker_of(struct bb_wbase *b)
{
	return (struct worker *)b; /* b is the first member */
}

static inline void spsc_push(struct spsc *q, struct bb_wslot *s)
{
	uint32_t t = atomic_load_explicit(&q->tail, memory_order_relaxed);

	q->q[t & q->mask] = s;
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
}

/* --- SQ and CQ ------------------------------------------------------------ */

static inline unsigned sq_shift(unsigned K)
{
	return (K & K_NVME) ? 1 : 0;
}

static inline struct io_uring_sqe *sq_at(struct io_uring *ring,
					 unsigned tail, unsigned K)
{
	return &ring->sq.sqes[(tail & ring->sq.ring_mask) << sq_shift(K)];
}

/* One more SQE when a split needs more than the batch reserved: submits
 * what is pending when the SQ is full. */
static struct io_uring_sqe *get_sqe_slow(struct worker *w)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&w->b.ring);

	for (int tries = 0; bb_unlikely(!sqe) && tries < 1000000; tries++) {
		int ret;

		ring_release(w);
		ret = io_uring_submit(&w->b.ring);
		if (ret > 0)
			w->b.sub.io.submitted += (unsigned)ret;
		w->b.sub.io.enters++;
		if (w->b.cfg->mode == BB_MODE_SQPOLL)
			io_uring_sqring_wait(&w->b.ring);
		sqe = io_uring_get_sqe(&w->b.ring);
	}
	return sqe;
}

/* --- choosing the next I/O (the general build) --------------------------- */

/* t/io_uring's file rotation: stay on a file until it has its share of the
 * depth in flight. */
static inline unsigned next_file(struct bb_wbase *b)
{
	struct bb_wfile *f = &b->files[b->cur_file];

	if (f->pending >= b->file_depth) {
		if (++b->cur_file == b->nfiles)
			b->cur_file = 0;
		f = &b->files[b->cur_file];
	}
	f->pending++;
	return b->cur_file;
}

/* The next parent I/O into s: file, block, direction, offset.  False when
 * the workload is exhausted (the verify pass read every block back, or no
 * block is free for a write).  *old_gen: what the block's verify
 * generation was before a write took it (for undo_io). */
static bool next_io(struct bb_wbase *b, struct bb_wslot *s, uint32_t *old_gen)
{
	struct bb_wfile *f;
	uint64_t blk;

	if (bb_unlikely(b->verify_phase)) {
		for (;;) {
			if (b->verify_file >= b->nfiles)
				return false;
			f = &b->files[b->verify_file];
			while (b->verify_cursor < f->blk_count &&
			       !f->gens[b->verify_cursor])
				b->verify_cursor++;
			if (b->verify_cursor < f->blk_count)
				break;
			b->verify_file++;
			b->verify_cursor = 0;
		}
		blk = b->verify_cursor++;
		s->file = (uint8_t)b->verify_file;
		f->pending++;
		s->write = 0;
		s->check = 1;
		s->gen = f->gens[blk];
	} else {
		s->file = (uint8_t)(b->nfiles > 1 ? next_file(b) : 0);
		f = &b->files[s->file];
		if (b->nfiles == 1)
			f->pending++;
		if (b->random) {
			blk = bb_rng_below_fast(&b->rng, f->blk_count);
		} else {
			blk = f->seq_next++;
			if (f->seq_next >= f->blk_count)
				f->seq_next = 0;
		}
		s->write = b->rwmix >= 100 ? 0 :
			   b->rwmix == 0 ? 1 :
			   bb_rng_below_fast(&b->rng, 100) >= b->rwmix;
		s->check = 0;
		if (bb_unlikely(f->gens) && s->write) {
			/* never two writes of one block in flight */
			for (uint64_t n = 0; f->busy[blk]; n++) {
				if (n >= f->blk_count) {
					f->pending--;
					return false;
				}
				blk = blk + 1 < f->blk_count ? blk + 1 : 0;
			}
			f->busy[blk] = 1;
			*old_gen = f->gens[blk];
			s->gen = ++b->gen_next;
			f->gens[blk] = s->gen;
		}
	}
	s->block = blk;
	s->off = f->base + blk * b->bs;
	return true;
}

/* Give back what next_io took for s (the I/O could not be issued): its
 * file's share, its block (a write's), and the verify generation it
 * wrote. */
static void undo_io(struct bb_wbase *b, struct bb_wslot *s, uint32_t old_gen)
{
	struct bb_wfile *f = &b->files[s->file];

	f->pending--;
	if (b->verify_phase) {
		b->verify_cursor--;
		return;
	}
	if (f->gens && s->write) {
		f->busy[s->block] = 0;
		f->gens[s->block] = old_gen;
		b->gen_next--;
	}
}

/* A slot is free again: its file's share and its write's block. */
static inline void slot_done(struct bb_wbase *b, struct bb_wslot *s)
{
	struct bb_wfile *f = &b->files[s->file];

	f->pending--;
	if (bb_unlikely(f->busy) && s->write)
		f->busy[s->block] = 0;
}

/* --- the bio model: issue ------------------------------------------------- */

/* A piece of a split bio: its SQE from the bio's iterator. */
static void issue_piece(struct worker *w, struct bb_bio *bio,
			const struct bb_wslot *s, unsigned K)
{
	struct bb_bvec bv = bb_bvec_iter_bvec(bio->bi_io_vec, bio->bi_iter);
	const struct bb_wfile *f = &w->b.files[s->file];
	struct io_uring_sqe *sqe = get_sqe_slow(w);
	char *addr = (char *)bv.bv_page + bv.bv_offset;
	uint64_t off = bio->bi_iter.bi_sector << BB_SECTOR_SHIFT;

	if (bb_unlikely(!sqe)) {
		/* cannot happen with the ring sized for depth x pieces */
		bio->bi_status = EBUSY;
		bb_wbase_fatal(&w->b, -EBUSY, "submission queue full");
		bb_bio_endio(bio, BB_CTX_TASK);
		return;
	}
	if (K & K_NVME)
		bb_sqe_prep_nvme(sqe, &f->tmpl[s->write], addr,
				 bio->bi_iter.bi_size, off,
				 (uint64_t)(uintptr_t)bio, f->lba_shift,
				 w->b.fixed ? (uint16_t)s->idx : 0);
	else
		bb_sqe_prep_rw(sqe, &f->tmpl[s->write], addr,
			       bio->bi_iter.bi_size, off,
			       (uint64_t)(uintptr_t)bio);
}

/* The split loop, out of line: the first check said "may need split". */
static __attribute__((noinline)) void
split_and_issue(struct worker *w, struct bb_bio *bio, const struct bb_wslot *s,
		unsigned K)
{
	const struct bb_queue_limits *lim = &w->b.files[s->file].t->lim;
	struct bb_bio *piece;
	unsigned segs;
	int err = 0;

	w->split_ctr.checks++;
	piece = bb_bio_split_after_check(bio, lim, &w->split_bs, &segs,
					 &w->split_ctr, &err);
	for (;;) {
		if (bb_unlikely(!piece)) {
			bb_wbase_fatal(&w->b, err,
				       "cannot split the I/O at offset %llu: %s",
				       (unsigned long long)s->off,
				       strerror(-err));
			bb_bio_endio(bio, BB_CTX_TASK);
			return;
		}
		issue_piece(w, piece, s, K);
		if (piece == bio)
			return;
		piece = bb_bio_split_to_limits(bio, lim, w->may_split,
					       &w->split_bs, &segs,
					       &w->split_ctr, &err);
	}
}

/* The parent bio of slot s, set up as the kernel's io_uring read/write
 * path builds it; NULL when the bioset is empty.  The slot's fields are
 * read before the allocation, so that nothing read in between keeps the
 * compiler from merging bio_init's stores with the ones that follow. */
BB_HOT struct bb_bio *model_bio(struct worker *w, struct bb_wslot *s,
				const struct bb_target *t, bb_bio_end_io_t end_io,
				uint32_t opf, bool fixed, uint32_t bs)
{
	struct bb_bvec *vecs = s->vecs;
	const uint16_t nvecs = s->nvecs;
	const uint64_t sector = s->off >> BB_SECTOR_SHIFT;
	struct bb_bio *bio;

	if (fixed) {
		/* io_uring registered buffer: an ITER_BVEC bio over the ring's
		 * bvec table, BIO_CLONED, no vecs of its own (cacheable).
		 * bi_vcnt is set as bio_iov_bvec_set() did before Dec 2025. */
		bio = bb_bio_alloc_bioset(&w->bs, (void *)t, 0, opf);
		if (bb_unlikely(!bio))
			return NULL;
		bio->bi_io_vec = vecs;
		bb_bio_set_flag(bio, BB_BIO_CLONED);
	} else {
		/* pinned user pages copied into the bio's own vecs */
		bio = bb_bio_alloc_bioset(&w->bs, (void *)t, nvecs, opf);
		if (bb_unlikely(!bio))
			return NULL;
		memcpy(bio->bi_io_vec, vecs, nvecs * sizeof(struct bb_bvec));
	}
	bio->bi_vcnt = nvecs;
	bio->bi_iter.bi_sector = sector;
	bio->bi_iter.bi_size = bs;
	bio->bi_end_io = end_io;
	bio->bi_private = s;
	return bio;
}

BB_HOT bool may_need_split(const struct bb_bio *bio,
			   const struct bb_queue_limits *lim, unsigned K)
{
	return (K & K_ITER) ? bb_may_need_split_iter_inline(bio, lim)
			    : bb_may_need_split_vcnt_inline(bio, lim);
}

/* --- fill: one batch of I/Os ------------------------------------------------ */

/* The I/Os of the next batch: the submit batch, within the free slots,
 * what number_ios leaves (none left: *exhausted) and the SQ ring's room. */
BB_HOT unsigned batch_size_t(struct worker *w, bool *exhausted,
			      const unsigned K)
{
	struct bb_wbase *b = &w->b;
	unsigned n = bb_min(w->submit_batch, b->nfree), space;

	if (b->limit && !b->verify_phase) {
		uint64_t left = b->limit - b->issued;

		if (left < n) {
			n = (unsigned)left;
			if (!n)
				*exhausted = true;
		}
	}
	if (K & K_ROOMY)
		return n;
	space = io_uring_sq_space_left(&b->ring);
	return n > space ? space : n;
}

/* Prepare up to submit_batch I/Os (no more than free slots, the number_ios
 * left and the SQ's room); returns how many were prepared (their SQEs are
 * in the ring, not yet submitted).  *exhausted: the workload is done.
 * K_FAST: one file, random offsets (or none), one direction, nothing
 * else; otherwise next_io decides each I/O. */
BB_HOT unsigned fill_t(struct worker *w, bool *exhausted, const unsigned K)
{
	struct bb_wbase *b = &w->b;
	struct io_uring *ring = &b->ring;
	struct bb_wslot **freel = b->free;
	struct bb_wfile *f0 = &b->files[0];
	struct bb_rng rng = b->rng;
	const uint64_t now = b->sub.now, base = f0->base;
	const uint64_t count = f0->blk_count;
	const uint32_t bs = b->bs;
	const uint8_t wconst = b->write_const;
	/* registered buffers: the fast build knows, the general one asks */
	const bool fixed = (K & K_FAST) ? (K & K_FIXED) != 0 : b->fixed;
	const bb_bio_end_io_t end_io = w->end_io;
	const struct bb_target *t0 = f0->t;
	const struct bb_queue_limits *lim0 = &t0->lim;
	const uint32_t opf0 = w->opf_base | (wconst ? BB_REQ_OP_WRITE
						    : BB_REQ_OP_READ);
	const struct bb_sqe_tmpl *tmpl = &f0->tmpl[wconst];
	unsigned n = batch_size_t(w, exhausted, K), nfree = b->nfree;
	unsigned tail = ring->sq.sqe_tail, space, done = 0, nsplit = 0;

	for (; done < n; done++) {
		struct bb_wslot *s = freel[nfree - 1];
		const struct bb_wfile *f = f0;
		uint32_t old_gen = 0;

		if (K & K_FAST) {
			/* s->write is the one direction (set at setup) */
			if (!(K & K_NOOFF))
				s->off = base + bb_rng_below_fast(&rng, count) * bs;
		} else {
			b->rng = rng;
			if (!next_io(b, s, &old_gen)) {
				*exhausted = true;
				rng = b->rng;
				break;
			}
			rng = b->rng;
			f = &b->files[s->file];
			tmpl = &f->tmpl[s->write];
			if (f->gens && s->write)
				bb_verify_stamp(s->buf, bs, s->off, s->gen);
		}
		/* --lat io: the I/O's own stamp, before its inject_ns delay */
		s->t_sub = (!(K & K_FAST) && w->lat_io) ? bb_now_ns() : now;
		if (K & K_BIO) {
			struct bb_bio *bio = model_bio(
				w, s, (K & K_FAST) ? t0 : f->t, end_io,
				(K & K_FAST) ? opf0 :
				w->opf_base | (s->write ? BB_REQ_OP_WRITE :
							  BB_REQ_OP_READ),
				fixed, bs);

			if (bb_unlikely(!bio)) {
				/* the bioset is empty: reap to free bios first */
				if (!(K & K_FAST))
					undo_io(b, s, old_gen);
				break;
			}
			nfree--;
			if (!(K & K_FAST) && b->inject.ns &&
			    !bb_wbase_delay(b))
				n = done + 1; /* stopping: issue this one, no more */
			if (bb_likely(!may_need_split(bio, (K & K_FAST) ? lim0 :
								&f->t->lim, K))) {
				if (K & K_NVME)
					bb_sqe_prep_nvme(sq_at(ring, tail, K), tmpl,
							 s->buf, bs, s->off,
							 (uint64_t)(uintptr_t)bio,
							 f->lba_shift,
							 fixed ? (uint16_t)s->idx : 0);
				else
					bb_sqe_prep_rw(sq_at(ring, tail, K), tmpl,
						       s->buf, bs, s->off,
						       (uint64_t)(uintptr_t)bio);
				tail++;
			} else {
				ring->sq.sqe_tail = tail;
				nsplit++; /* it counts its own checks */
				split_and_issue(w, bio, s, K);
				tail = ring->sq.sqe_tail;
				space = io_uring_sq_space_left(ring);
				if (n > done + 1 + space)
					n = done + 1 + space;
			}
		} else {
			nfree--;
			if (!(K & K_FAST) && b->inject.ns &&
			    !bb_wbase_delay(b))
				n = done + 1; /* stopping: issue this one, no more */
			if (K & K_NVME)
				bb_sqe_prep_nvme(sq_at(ring, tail, K), tmpl,
						 s->buf, bs, s->off,
						 (uint64_t)(uintptr_t)s, f->lba_shift,
						 fixed ? (uint16_t)s->idx : 0);
			else if (K & K_VEC)
				bb_sqe_prep_rw(sq_at(ring, tail, K), tmpl,
					       &b->iovs[s->idx], 1, s->off,
					       (uint64_t)(uintptr_t)s);
			else if (K & K_PRESET) {
				struct io_uring_sqe *sqe = sq_at(ring, tail, K);

				sqe->addr = (uint64_t)(uintptr_t)s->buf;
				sqe->off = s->off;
				sqe->user_data = (uint64_t)(uintptr_t)s;
			} else
				bb_sqe_prep_rw(sq_at(ring, tail, K), tmpl, s->buf,
					       bs, s->off, (uint64_t)(uintptr_t)s);
			tail++;
		}
	}
	ring->sq.sqe_tail = tail;
	b->nfree = nfree;
	b->rng = rng;
	if (K & K_BIO) {
		/* the first check of each bio that it passed */
		w->split_ctr.checks += done - nsplit;
		w->split_ctr.segs += done - nsplit;
	}
	if (b->sub.measuring && !b->verify_phase)
		b->issued += done;
	return done;
}

/* --- completion ---------------------------------------------------------- */

/* A read back by the verify pass: check its stamp. */
static __attribute__((noinline)) void check_read(struct bb_wbase *b,
						 struct bb_wside *sd,
						 const struct bb_wslot *s)
{
	char msg[256];

	if (bb_verify_check(s->buf, b->bs, s->off, s->gen, msg, sizeof(msg))) {
		sd->io.verify_errors++;
		bb_wbase_fatal(b, -EILSEQ, "%s", msg);
	}
}

/* A parent I/O is done (no error): count it where the build does not count
 * per batch, record its latency, check it when it is a verify read. */
BB_HOT void parent_done(struct bb_wbase *b, struct bb_wside *sd,
			const struct bb_wslot *s, const unsigned K)
{
	if (!(K & K_FAST)) {
		if (s->write) {
			sd->io.writes++;
			sd->io.bytes_written += b->bs;
		} else {
			sd->io.reads++;
			sd->io.bytes_read += b->bs;
		}
		if (bb_unlikely(s->check))
			check_read(b, sd, s);
	}
}

/* The totals a fast build counts per batch: ok parent I/Os of the one
 * direction. */
BB_HOT void count_parents(struct bb_wbase *b, struct bb_wside *sd,
			  uint64_t ok)
{
	if (b->write_const) {
		sd->io.writes += ok;
		sd->io.bytes_written += ok * b->bs;
	} else {
		sd->io.reads += ok;
		sd->io.bytes_read += ok * b->bs;
	}
}

/* The device-level totals of a fast build's ok I/Os (one direction, no
 * split). */
BB_HOT void count_fast(struct bb_wbase *b, struct bb_wside *sd, uint64_t ok)
{
	count_parents(b, sd, ok);
	if (b->write_const) {
		sd->io.dev_writes += ok;
		sd->io.sectors_written += ok * (b->bs >> BB_SECTOR_SHIFT);
	} else {
		sd->io.dev_reads += ok;
		sd->io.sectors_read += ok * (b->bs >> BB_SECTOR_SHIFT);
	}
}

/* --- without the model: a CQE completes its slot ---------------------------- */

static __attribute__((noinline)) void slot_error(struct bb_wbase *b,
						 struct bb_wside *sd,
						 const struct bb_wslot *s,
						 int res)
{
	sd->io.errors++;
	bb_wbase_cqe_error(b, res, b->bs, s->off >> BB_SECTOR_SHIFT);
}

BB_HOT unsigned reap_none_t(struct worker *w, struct bb_wside *sd,
			    const unsigned K)
{
	struct bb_wbase *b = &w->b;
	struct io_uring *ring = &b->ring;
	struct bb_wslot **freel = b->free;
	unsigned head = *ring->cq.khead;
	unsigned tail = io_uring_smp_load_acquire(ring->cq.ktail);
	unsigned mask = ring->cq.ring_mask, nfree = b->nfree, n = tail - head;
	const int want = (int)b->res_want;
	uint64_t now = 0, last = sd->lat_last, run = 0;
	struct bb_hist *lat = sd->lat;
	unsigned nerr = 0, nw = 0;

	if (!n)
		return 0;
	if (K & K_LAT)
		now = sd->now = bb_now_ns();
	for (; head != tail; head++) {
		const struct io_uring_cqe *cqe =
			&ring->cq.cqes[(head & mask) << sq_shift(K)];
		struct bb_wslot *s = (struct bb_wslot *)(uintptr_t)cqe->user_data;

		/* --device-ns: the driver's completion work, per request */
		if (!(K & K_FAST) && b->device.ns)
			bb_wbase_device(b);
		if (bb_unlikely(cqe->res != want)) {
			slot_error(b, sd, s, cqe->res);
			nerr++;
		} else {
			if (!(K & K_FAST)) {
				nw += s->write;
				parent_done(b, sd, s, K);
			}
			if (K & K_LAT) {
				if (s->t_sub != last) {
					if (run)
						bb_hist_add_n(lat, now - last, run);
					last = s->t_sub;
					run = 0;
				}
				run++;
			}
		}
		if (!(K & K_FAST))
			slot_done(b, s);
		freel[nfree++] = s;
	}
	io_uring_smp_store_release(ring->cq.khead, tail);
	b->nfree = nfree;
	if ((K & K_LAT) && run)
		bb_hist_add_n(lat, now - last, run);
	sd->lat_last = last;
	sd->io.reaped += n;
	sd->io.ios += n - nerr;
	if (K & K_FAST) {
		count_fast(b, sd, n - nerr);
	} else {
		sd->io.dev_writes += nw;
		sd->io.sectors_written += (uint64_t)nw * (b->bs >> BB_SECTOR_SHIFT);
		sd->io.dev_reads += n - nerr - nw;
		sd->io.sectors_read += (uint64_t)(n - nerr - nw) *
				       (b->bs >> BB_SECTOR_SHIFT);
	}
	return n;
}

/* --- NOPs without the model: nothing per I/O but the ring's word ------------
 *
 * The NOP loop of --model none (one target, no offsets, the fast build, the
 * submitter reaps), as lean as t/io_uring -N1: every SQE of the ring holds
 * the NOP template from setup (sq_preset: the kernel only reads SQEs,
 * and nothing else writes these), so a fill writes one word per I/O, its
 * user_data, which is the batch's submit stamp; the reap turns the stamps
 * into latency without touching a slot, and slots are only a count
 * (b->nfree).  A NOP has no offset, and its error names none. */
static __attribute__((noinline, cold)) void nop_error(struct bb_wbase *b,
						      struct bb_wside *sd,
						      int res)
{
	sd->io.errors++;
	bb_wbase_cqe_error(b, res, b->bs, 0);
}

BB_HOT unsigned fill_nop_lean_t(struct worker *w, bool *exhausted,
				const unsigned K)
{
	struct bb_wbase *b = &w->b;
	struct io_uring *ring = &b->ring;
	struct io_uring_sqe *sqes = ring->sq.sqes;
	const unsigned mask = ring->sq.ring_mask, tail = ring->sq.sqe_tail;
	const uint64_t now = b->sub.now;
	const unsigned n = batch_size_t(w, exhausted, K);

	for (unsigned i = 0; i < n; i++)
		sqes[(tail + i) & mask].user_data = now;
	ring->sq.sqe_tail = tail + n;
	b->nfree -= n;
	if (b->sub.measuring)
		b->issued += n;
	return n;
}

BB_HOT unsigned reap_nop_lean_t(struct worker *w, struct bb_wside *sd,
				const unsigned K)
{
	struct bb_wbase *b = &w->b;
	struct io_uring *ring = &b->ring;
	unsigned head = *ring->cq.khead;
	unsigned tail = io_uring_smp_load_acquire(ring->cq.ktail);
	unsigned mask = ring->cq.ring_mask, n = tail - head, nerr = 0;
	const int want = (int)b->res_want;
	uint64_t now = 0, last = sd->lat_last, run = 0;
	struct bb_hist *lat = sd->lat;

	if (!n)
		return 0;
	if (K & K_LAT)
		now = sd->now = bb_now_ns();
	for (; head != tail; head++) {
		const struct io_uring_cqe *cqe = &ring->cq.cqes[head & mask];

		if (bb_unlikely(cqe->res != want)) {
			nop_error(b, sd, cqe->res);
			nerr++;
		} else if (K & K_LAT) {
			if (cqe->user_data != last) {
				if (run)
					bb_hist_add_n(lat, now - last, run);
				last = cqe->user_data;
				run = 0;
			}
			run++;
		}
	}
	io_uring_smp_store_release(ring->cq.khead, tail);
	b->nfree += n;
	if ((K & K_LAT) && run)
		bb_hist_add_n(lat, now - last, run);
	sd->lat_last = last;
	sd->io.reaped += n;
	sd->io.ios += n - nerr;
	count_fast(b, sd, n - nerr);
	return n;
}

static unsigned fill_nop_lean(struct worker *w, bool *exhausted)
{
	return fill_nop_lean_t(w, exhausted, 0);
}

static unsigned reap_nop_lean(struct worker *w, struct bb_wside *sd)
{
	return sd->lat ? reap_nop_lean_t(w, sd, K_FAST | K_LAT)
		       : reap_nop_lean_t(w, sd, K_FAST);
}

/* Every SQE of the ring: the run's one template (the NOP's, or the fast
 * read's or write's), with its slot's buffer (the NOP file kind's
 * registered buffer range) and length, no offset.  The kernel only reads
 * SQEs: the lean NOP loop writes user_data alone, the none-fast loop
 * (K_PRESET) address, offset and user_data. */
static void sq_preset(struct worker *w)
{
	struct bb_wbase *b = &w->b;
	struct io_uring *ring = &b->ring;
	const struct bb_sqe_tmpl *tmpl = &b->files[0].tmpl[b->write_const];

	for (unsigned i = 0; i < ring->sq.ring_entries; i++)
		bb_sqe_prep_rw(&ring->sq.sqes[i], tmpl,
			       b->slots[i % b->depth].buf, b->bs, 0, 0);
}

/* --- with the model: a CQE completes its bio -------------------------------- */

static __attribute__((noinline, cold)) void
parent_error(struct bb_wbase *b, struct bb_wside *sd, const struct bb_bio *bio,
	     const struct bb_wslot *s)
{
	sd->io.errors++;
	bb_wbase_fatal(b, -(int)bio->bi_status, "I/O error at offset %llu: %s",
		       (unsigned long long)s->off, strerror(bio->bi_status));
}

/* The parent bio's end_io: account, put the bio, free the slot.  Built
 * per context (task: the submitter reaps; hard-irq: the completion
 * thread) and per fast/general.  end_io_t is the whole of it; the fast
 * build's common case (no error, latency of the same run) is
 * end_io_fast_t, whose calls are all tail calls (no registers to save),
 * the rest going to end_io_t. */
BB_HOT void end_io_t(struct bb_bio *bio, enum bb_ctx ctx, const unsigned K)
{
	struct bb_wslot *s = bio->bi_private;
	struct worker *w = worker_of(s->owner);
	struct bb_wbase *b = &w->b;
	struct bb_wside *sd = (K & K_CTHREAD) ? &b->comp : &b->sub;

	if (bb_unlikely(bio->bi_status)) {
		parent_error(b, sd, bio, s);
	} else {
		sd->io.ios++;
		parent_done(b, sd, s, K);
		if (sd->lat)
			bb_wside_lat(sd, s->t_sub);
	}
	/* completion thread: the put before the slot goes back, so that a
	 * slot back means its bio is put (the submitter reads the bioset's
	 * counters once every slot is back).  Submitter: the slot first,
	 * then the put as the last call (it does not look at the slot). */
	if (K & K_CTHREAD) {
		bb_bio_put(bio, ctx);
		spsc_push(&w->done_q, s);
		return;
	}
	if (!(K & K_FAST))
		slot_done(b, s);
	b->free[b->nfree++] = s;
	bb_bio_put(bio, ctx);
}

static __attribute__((noinline)) void end_io_task_slow(struct bb_bio *bio,
						       enum bb_ctx ctx)
{
	end_io_t(bio, ctx, K_FAST);
}

static __attribute__((noinline)) void end_io_hardirq_slow(struct bb_bio *bio,
							  enum bb_ctx ctx)
{
	end_io_t(bio, ctx, K_CTHREAD | K_FAST);
}

BB_HOT void end_io_fast_t(struct bb_bio *bio, enum bb_ctx ctx, const unsigned K)
{
	struct bb_wslot *s = bio->bi_private;
	struct worker *w = worker_of(s->owner);
	struct bb_wbase *b = &w->b;
	struct bb_wside *sd = (K & K_CTHREAD) ? &b->comp : &b->sub;

	if (bb_unlikely(bio->bi_status ||
			(sd->lat && s->t_sub != sd->lat_last))) {
		if (K & K_CTHREAD)
			end_io_hardirq_slow(bio, ctx);
		else
			end_io_task_slow(bio, ctx);
		return;
	}
	sd->io.ios++;
	if (sd->lat)
		sd->lat_run++;
	if (K & K_CTHREAD) {
		bb_bio_put(bio, ctx); /* before the slot: see end_io_t */
		spsc_push(&w->done_q, s);
		return;
	}
	b->free[b->nfree++] = s;
	bb_bio_put(bio, ctx);
}

static void end_io_task_fast(struct bb_bio *bio, enum bb_ctx ctx)
{
	end_io_fast_t(bio, ctx, 0);
}

static void end_io_task(struct bb_bio *bio, enum bb_ctx ctx)
{
	end_io_t(bio, ctx, 0);
}

static void end_io_hardirq_fast(struct bb_bio *bio, enum bb_ctx ctx)
{
	end_io_fast_t(bio, ctx, K_CTHREAD);
}

static void end_io_hardirq(struct bb_bio *bio, enum bb_ctx ctx)
{
	end_io_t(bio, ctx, K_CTHREAD);
}

/* bio_endio: the common case (not chained) here, the chain walk in
 * bb_bio_endio. */
BB_HOT void endio(struct bb_bio *bio, enum bb_ctx ctx)
{
	if (bb_likely(!bb_bio_flagged(bio, BB_BIO_CHAIN) &&
		      bio->bi_end_io != bb_bio_chain_endio))
		bio->bi_end_io(bio, ctx);
	else
		bb_bio_endio(bio, ctx);
}

static __attribute__((noinline)) void bio_error(struct bb_wbase *b,
						struct bb_bio *bio, int res)
{
	bb_wbase_cqe_error(b, res, bio->bi_iter.bi_size,
			   bio->bi_iter.bi_sector);
	bio->bi_status = res < 0 ? (uint8_t)-res : EIO;
}

/* One CQE = one issued bio (a split piece or a whole parent); every
 * request counts, also those reaped while draining after the stop: the
 * kernel's diskstats see them, and ours must equal them.  Returns the
 * CQEs reaped (the sentinel NOP sets *stop). */
BB_HOT unsigned reap_bio_t(struct worker *w, struct bb_wside *sd, bool *stop,
			   const unsigned K)
{
	struct bb_wbase *b = &w->b;
	struct io_uring *ring = &b->ring;
	const enum bb_ctx ctx = (K & K_IRQCTX) ? BB_CTX_HARDIRQ : BB_CTX_TASK;
	unsigned head = *ring->cq.khead;
	unsigned tail = io_uring_smp_load_acquire(ring->cq.ktail);
	unsigned mask = ring->cq.ring_mask, n = tail - head;
	const uint32_t rmask = b->res_mask;
	uint64_t ios0 = sd->io.ios, bytes = 0, wbytes = 0;
	unsigned nok = 0, nw = 0;

	if (!n)
		return 0;
	if (K & K_CTHREAD)
		ring_acquire(w);
	if (sd->lat)
		sd->now = bb_now_ns();
	for (; head != tail; head++) {
		const struct io_uring_cqe *cqe =
			&ring->cq.cqes[(head & mask) << sq_shift(K)];
		struct bb_bio *bio = (struct bb_bio *)(uintptr_t)cqe->user_data;
		uint32_t size;

		if ((K & K_CTHREAD) &&
		    bb_unlikely(cqe->user_data == SENTINEL_UD)) {
			*stop = true;
			continue;
		}
		/* --device-ns: the driver's completion work, per request,
		 * before it ends the bio */
		if (!(K & K_FAST) && b->device.ns)
			bb_wbase_device(b);
		size = bio->bi_iter.bi_size;
		if (bb_unlikely(cqe->res != (int)(size & rmask))) {
			bio_error(b, bio, cqe->res);
		} else {
			nok++;
			if (!(K & K_FAST) && bb_bio_op(bio) == BB_REQ_OP_WRITE) {
				nw++;
				wbytes += size;
			} else {
				bytes += size;
			}
		}
		endio(bio, ctx);
	}
	io_uring_smp_store_release(ring->cq.khead, tail);
	if (sd->lat)
		bb_wside_lat_flush(sd);
	sd->io.reaped += n;
	if ((K & K_FAST) && b->write_const) {
		sd->io.dev_writes += nok;
		sd->io.sectors_written += bytes >> BB_SECTOR_SHIFT;
	} else {
		sd->io.dev_reads += nok - nw;
		sd->io.sectors_read += bytes >> BB_SECTOR_SHIFT;
		sd->io.dev_writes += nw;
		sd->io.sectors_written += wbytes >> BB_SECTOR_SHIFT;
	}
	if (K & K_FAST)
		count_parents(b, sd, sd->io.ios - ios0);
	return n;
}

/* --- the built steps and their tables ------------------------------------- */

#define FILL(name, K)                                                          \
	static unsigned name(struct worker *w, bool *exhausted)                \
	{                                                                      \
		return fill_t(w, exhausted, (K));                              \
	}
FILL(fill_none, 0)
FILL(fill_none_fast, K_FAST)
FILL(fill_none_nop, K_FAST | K_NOOFF)
FILL(fill_none_vec, K_VEC)
FILL(fill_none_vec_fast, K_VEC | K_FAST)
FILL(fill_none_nvme, K_NVME)
FILL(fill_none_nvme_fast, K_NVME | K_FAST)
FILL(fill_bio_vcnt, K_BIO)
FILL(fill_bio_vcnt_fast, K_BIO | K_FAST)
FILL(fill_bio_iter, K_BIO | K_ITER)
FILL(fill_bio_iter_fast, K_BIO | K_ITER | K_FAST)
FILL(fill_bio_vcnt_nvme, K_BIO | K_NVME)
FILL(fill_bio_vcnt_nvme_fast, K_BIO | K_NVME | K_FAST)
FILL(fill_bio_iter_nvme, K_BIO | K_ITER | K_NVME)
FILL(fill_bio_iter_nvme_fast, K_BIO | K_ITER | K_NVME | K_FAST)
FILL(fill_bio_vcnt_fast_fixed, K_BIO | K_FAST | K_FIXED)
FILL(fill_bio_iter_fast_fixed, K_BIO | K_ITER | K_FAST | K_FIXED)
FILL(fill_bio_vcnt_nvme_fast_fixed, K_BIO | K_NVME | K_FAST | K_FIXED)
FILL(fill_bio_iter_nvme_fast_fixed, K_BIO | K_ITER | K_NVME | K_FAST | K_FIXED)
#undef FILL

/* [model][nvme][iter][fast] */
static const fill_fn fill_fns[2][2][2][2] = {
	[0][0][0] = { fill_none, fill_none_fast },
	[0][0][1] = { fill_none, fill_none_fast },
	[0][1][0] = { fill_none_nvme, fill_none_nvme_fast },
	[0][1][1] = { fill_none_nvme, fill_none_nvme_fast },
	[1][0][0] = { fill_bio_vcnt, fill_bio_vcnt_fast },
	[1][0][1] = { fill_bio_iter, fill_bio_iter_fast },
	[1][1][0] = { fill_bio_vcnt_nvme, fill_bio_vcnt_nvme_fast },
	[1][1][1] = { fill_bio_iter_nvme, fill_bio_iter_nvme_fast },
};

/* The fast bio builds with registered buffers: [nvme][iter] */
static const fill_fn fill_fixed_fns[2][2] = {
	{ fill_bio_vcnt_fast_fixed, fill_bio_iter_fast_fixed },
	{ fill_bio_vcnt_nvme_fast_fixed, fill_bio_iter_nvme_fast_fixed },
};

/* Reaps of the submitter (inline completions), choosing per batch whether
 * latency is recorded (it stops at the end of the measured interval). */
#define REAP_NONE(name, K)                                                     \
	static unsigned name(struct worker *w, struct bb_wside *sd)            \
	{                                                                      \
		return sd->lat ? reap_none_t(w, sd, (K) | K_LAT)               \
			       : reap_none_t(w, sd, (K));                      \
	}
REAP_NONE(reap_none, 0)
REAP_NONE(reap_none_fast, K_FAST)
REAP_NONE(reap_none_nvme, K_NVME)
REAP_NONE(reap_none_nvme_fast, K_NVME | K_FAST)
#undef REAP_NONE

#define REAP_BIO(name, K)                                                      \
	static unsigned name(struct worker *w, struct bb_wside *sd)            \
	{                                                                      \
		bool stop = false;                                             \
									       \
		return reap_bio_t(w, sd, &stop, (K));                          \
	}
REAP_BIO(reap_bio, 0)
REAP_BIO(reap_bio_fast, K_FAST)
REAP_BIO(reap_bio_nvme, K_NVME)
REAP_BIO(reap_bio_nvme_fast, K_NVME | K_FAST)
/* the submitter reaps, the puts run in hard-irq context (a same-CPU
 * completion interrupt) */
REAP_BIO(reap_bio_irq, K_IRQCTX)
REAP_BIO(reap_bio_irq_fast, K_IRQCTX | K_FAST)
REAP_BIO(reap_bio_irq_nvme, K_IRQCTX | K_NVME)
REAP_BIO(reap_bio_irq_nvme_fast, K_IRQCTX | K_NVME | K_FAST)
#undef REAP_BIO

/* [model][nvme][irq context][fast] (no bio, no put: no context) */
static const reap_fn reap_fns[2][2][2][2] = {
	[0][0][0] = { reap_none, reap_none_fast },
	[0][0][1] = { reap_none, reap_none_fast },
	[0][1][0] = { reap_none_nvme, reap_none_nvme_fast },
	[0][1][1] = { reap_none_nvme, reap_none_nvme_fast },
	[1][0][0] = { reap_bio, reap_bio_fast },
	[1][0][1] = { reap_bio_irq, reap_bio_irq_fast },
	[1][1][0] = { reap_bio_nvme, reap_bio_nvme_fast },
	[1][1][1] = { reap_bio_irq_nvme, reap_bio_irq_nvme_fast },
};

/* The completion thread's reap (hard-irq context, another CPU). */
#define K_CT (K_CTHREAD | K_IRQCTX)
static unsigned reap_hardirq(struct worker *w, bool fast, bool *stop)
{
	if (w->b.nvme)
		return fast ? reap_bio_t(w, &w->b.comp, stop,
					 K_CT | K_NVME | K_FAST)
			    : reap_bio_t(w, &w->b.comp, stop, K_CT | K_NVME);
	return fast ? reap_bio_t(w, &w->b.comp, stop, K_CT | K_FAST)
		    : reap_bio_t(w, &w->b.comp, stop, K_CT);
}
#undef K_CT

/* --- the loops ------------------------------------------------------------ */

/* All I/Os in flight completed (the measured interval starts clean). */
static void drain_inflight(struct worker *w);

static __attribute__((noinline)) void start_measure(struct worker *w)
{
	struct bb_wbase *b = &w->b;

	drain_inflight(w);
	bb_wside_start(&b->sub);
	memset(&w->split_ctr, 0, sizeof(w->split_ctr));
	b->issued = 0;
	b->a->res.t_start_ns = b->sub.now = bb_now_ns();
	bb_cpu_usage_thread(&b->a->res.cpu_submit);
	/* the completion thread clears its side when it sees this */
	atomic_fetch_add_explicit(&w->epoch, 1, memory_order_release);
}

/* The submitter observes the engine's phase once per loop; false: stop. */
BB_HOT bool phase_step(struct worker *w, int *seen)
{
	int ph = atomic_load_explicit(w->b.a->phase, memory_order_acquire);

	if (ph == *seen)
		return !bb_phase_stopped(ph);
	*seen = ph;
	if (ph == BB_PHASE_MEASURE)
		start_measure(w);
	return !bb_phase_stopped(ph);
}

static bool cancelled(const struct worker *w)
{
	return atomic_load_explicit(w->b.a->phase, memory_order_relaxed) ==
	       BB_PHASE_CANCEL;
}

static void finish_measure(struct worker *w)
{
	struct bb_wbase *b = &w->b;
	struct bb_cpu_usage now;

	if (!b->sub.measuring)
		return;
	b->a->res.t_end_ns = bb_now_ns();
	bb_cpu_usage_thread(&now);
	b->a->res.cpu_submit.usr_ns = now.usr_ns - b->a->res.cpu_submit.usr_ns;
	b->a->res.cpu_submit.sys_ns = now.sys_ns - b->a->res.cpu_submit.sys_ns;
	/* with number_ios every issued I/O counts, also those reaped after
	 * the stop; else the measured interval ends here */
	if (!b->limit)
		bb_wside_freeze(&b->sub);
	b->sub.measuring = false;
}

/* io_uring_enter: direct (bb_wbase_enter, one inline syscall as
 * t/io_uring makes it) on every ring but SQPOLL's, where liburing checks
 * whether the SQ thread needs a wakeup. */
BB_HOT int enter_t(struct worker *w, unsigned to_wait, const bool direct)
{
	struct bb_wbase *b = &w->b;
	int ret;

	ring_release(w);
	ret = direct ? bb_wbase_enter(b, to_wait)
		     : io_uring_submit_and_wait(&b->ring, to_wait);
	b->sub.io.enters++;
	if (ret > 0)
		b->sub.io.submitted += (unsigned)ret;
	else if (ret < 0 && ret != -EAGAIN && ret != -EINTR &&
		 ret != -EBUSY && ret != -ETIME)
		bb_wbase_fatal(b, ret, "io_uring_enter: %s", strerror(-ret));
	return ret;
}

static int enter(struct worker *w, unsigned to_wait)
{
	return enter_t(w, to_wait, w->b.enter_direct);
}

/* Inline completions: the submitter reaps (task context).  The loop is
 * built once with the steps called through the worker's pointers, and
 * once per common fast pair with them inlined (LOOP_*: no call frame, no
 * indirect call per batch); which one runs is chosen per run (run_loop). */
enum { LOOP_PTRS, LOOP_NONE_FAST, LOOP_NOP_LEAN };

/* The calibrated kernel cost per request (wbase.h, b->kc): the block
 * layer's submission of the requests a fill prepared, spent once per
 * batch after it (where the kernel's io_uring_enter would spend it), and
 * the completion context's work for the CQEs waiting, spent before the
 * reap's bio_endio as an interrupt's would be.  Per batch, so that no
 * step has a branch per I/O for it; 0 (--kernel-cost=off, --model none,
 * O_DIRECT on a real target) spins nothing.  The model-none loops never
 * call these. */
BB_HOT unsigned fill_kcost(struct worker *w, fill_fn fill, bool *exhausted)
{
	const unsigned tail = w->b.ring.sq.sqe_tail;
	const unsigned n = fill(w, exhausted);

	bb_spin_iters(w->b.kc.request * (w->b.ring.sq.sqe_tail - tail));
	return n;
}

BB_HOT unsigned reap_kcost_t(struct worker *w, struct bb_wside *sd,
			     reap_fn reap, bool *stop, bool cthread_fast)
{
	struct bb_wbase *b = &w->b;

	if (b->kc.completion)
		bb_spin_iters(b->kc.completion * io_uring_cq_ready(&b->ring));
	return reap ? reap(w, sd) : reap_hardirq(w, cthread_fast, stop);
}

static inline unsigned reap_kcost(struct worker *w, reap_fn reap)
{
	return reap_kcost_t(w, &w->b.sub, reap, NULL, false);
}

BB_HOT void loop_inline_t(struct worker *w, bool until_exhausted,
			  const int kind, const bool direct)
{
	struct bb_wbase *b = &w->b;
	const fill_fn fill = w->fill;
	const reap_fn reap = w->reap;
	int seen = -1;
	bool exhausted = false, fresh = false;

	for (;;) {
		unsigned inflight, to_wait, got;

		if (until_exhausted ? cancelled(w) : !phase_step(w, &seen))
			break;
		if (b->fatal)
			break;
		/* the batch's stamp: the clock the last reap read, when it
		 * reaped (one clock read per loop, not two) */
		if (b->sub.lat && !fresh)
			b->sub.now = bb_now_ns();
		fresh = false;
		if (!exhausted) {
			if (kind == LOOP_NONE_FAST)
				fill_t(w, &exhausted,
				       K_FAST | K_ROOMY | K_PRESET);
			else if (kind == LOOP_NOP_LEAN)
				fill_nop_lean_t(w, &exhausted, K_ROOMY);
			else
				fill_kcost(w, fill, &exhausted);
		}
		inflight = b->depth - b->nfree;
		if (exhausted && !inflight)
			break;
		to_wait = 0;
		if (!b->nfree || exhausted)
			to_wait = bb_min(w->complete_batch, inflight);
		if (!to_wait && !io_uring_sq_ready(&b->ring)) {
			/* nothing to submit and room left: the bioset was
			 * empty; wait for one completion */
			to_wait = inflight ? 1 : 0;
		}
		if (enter_t(w, to_wait, direct) < 0 && b->fatal)
			break;
		if (kind == LOOP_NONE_FAST)
			got = b->sub.lat ? reap_none_t(w, &b->sub, K_FAST | K_LAT)
					 : reap_none_t(w, &b->sub, K_FAST);
		else if (kind == LOOP_NOP_LEAN)
			got = b->sub.lat
				      ? reap_nop_lean_t(w, &b->sub, K_FAST | K_LAT)
				      : reap_nop_lean_t(w, &b->sub, K_FAST);
		else
			got = reap_kcost(w, reap);
		fresh = got > 0;
		if (b->sub.measuring)
			bb_wside_publish(&b->sub);
	}
	finish_measure(w);
	drain_inflight(w);
}

static void loop_inline(struct worker *w, bool until_exhausted)
{
	loop_inline_t(w, until_exhausted, LOOP_PTRS, w->b.enter_direct);
}

/* K_PRESET: every SQE of the ring holds the run's one template before
 * the loop (sq_preset); in this loop nothing but its fill writes them. */
static void loop_inline_none_fast(struct worker *w, bool until_exhausted)
{
	sq_preset(w);
	loop_inline_t(w, until_exhausted, LOOP_NONE_FAST, true);
}

static void loop_inline_nop_lean(struct worker *w, bool until_exhausted)
{
	loop_inline_t(w, until_exhausted, LOOP_NOP_LEAN, true);
}

/* --- completion thread: hard-irq context ---------------------------------- */

static void *completion_main(void *arg)
{
	struct worker *w = arg;
	struct bb_wbase *b = &w->b;
	struct bb_wside *sd = &b->comp;
	struct bb_cpu_usage u0, u1;
	unsigned seen_ep = 0;
	int seen = -1;
	bool stop = false;

	bb_cpu_usage_thread(&u0);
	while (!stop) {
		struct io_uring_cqe *cqe;
		unsigned ep;
		int ph;

		if (io_uring_wait_cqe(&b->ring, &cqe))
			continue;
		/* after the wait, before the reap: a CQE seen here was
		 * submitted after what the submitter published before it */
		ph = atomic_load_explicit(b->a->phase, memory_order_acquire);
		ep = atomic_load_explicit(&w->epoch, memory_order_acquire);
		if (ep != seen_ep) {
			if (!seen_ep) {
				bb_wside_start(sd);
				bb_cpu_usage_thread(&u0);
			} else {
				/* the verify pass starts: what the run
				 * counted is reported */
				bb_wside_report(sd, &w->comp_keep);
				w->comp_kept = true;
			}
			seen_ep = ep;
		}
		if (ph != seen) {
			seen = ph;
			if (bb_phase_stopped(ph) && !b->limit)
				bb_wside_freeze(sd);
			if (bb_phase_stopped(ph))
				sd->measuring = false;
		}
		reap_kcost_t(w, sd, NULL, &stop,
			     atomic_load_explicit(&w->comp_fast,
						  memory_order_relaxed));
		if (sd->measuring)
			bb_wside_publish(sd);
	}
	bb_cpu_usage_thread(&u1);
	b->a->res.cpu_completion.usr_ns = u1.usr_ns - u0.usr_ns;
	b->a->res.cpu_completion.sys_ns = u1.sys_ns - u0.sys_ns;
	return NULL;
}

static void recycle(struct worker *w)
{
	struct bb_wbase *b = &w->b;
	struct spsc *q = &w->done_q;
	uint32_t h = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint32_t t = atomic_load_explicit(&q->tail, memory_order_acquire);

	for (; h != t; h++) {
		struct bb_wslot *s = q->q[h & q->mask];

		if (!w->fast)
			slot_done(b, s);
		b->free[b->nfree++] = s;
	}
	atomic_store_explicit(&q->head, h, memory_order_release);
}

static void loop_thread(struct worker *w, bool until_exhausted)
{
	struct bb_wbase *b = &w->b;
	const fill_fn fill = w->fill;
	int seen = -1;
	bool exhausted = false;
	unsigned spins = 0;

	for (;;) {
		if (until_exhausted ? cancelled(w) : !phase_step(w, &seen))
			break;
		if (b->fatal)
			break;
		recycle(w);
		if (b->sub.lat)
			b->sub.now = bb_now_ns();
		if (!exhausted && fill_kcost(w, fill, &exhausted)) {
			enter(w, 0);
			if (b->sub.measuring)
				bb_wside_publish(&b->sub);
			spins = 0;
			continue;
		}
		if (exhausted && b->nfree == b->depth)
			break;
		/* all slots in flight: wait for the completion thread */
		if (++spins > 64) {
			sched_yield();
			spins = 0;
		} else {
			bb_cpu_relax();
		}
	}
	finish_measure(w);
	drain_inflight(w);
}

static void drain_inflight(struct worker *w)
{
	struct bb_wbase *b = &w->b;

	if (w->cthread_started) {
		while (b->nfree < b->depth) {
			recycle(w);
			if (b->nfree < b->depth)
				sched_yield();
		}
		return;
	}
	while (b->nfree < b->depth) {
		int ret;

		ring_release(w);
		ret = io_uring_submit_and_wait(&b->ring, 1);
		if (ret < 0 && ret != -EAGAIN && ret != -EINTR &&
		    ret != -ETIME) {
			bb_wbase_fatal(b, ret,
				       "io_uring_enter while draining: %s",
				       strerror(-ret));
			break;
		}
		w->reap(w, &b->sub);
	}
}

static void stop_completion_thread(struct worker *w)
{
	struct io_uring_sqe *sqe;

	if (!w->cthread_started)
		return;
	sqe = get_sqe_slow(w);
	if (sqe) {
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, SENTINEL_UD);
		enter(w, 0);
	}
	pthread_join(w->cthread, NULL);
	w->cthread_started = false;
}

static void run_loop(struct worker *w, bool until_exhausted)
{
	/* the inlined builds: one SQE per slot (no model), an SQ ring that
	 * holds them all (K_ROOMY) */
	const bool roomy = w->b.depth <= w->b.ring.sq.ring_entries;

	if (w->cthread_started)
		loop_thread(w, until_exhausted);
	else if (w->b.enter_direct && roomy && w->fill == fill_none_fast &&
		 w->reap == reap_none_fast)
		loop_inline_none_fast(w, until_exhausted);
	else if (w->b.enter_direct && roomy && w->fill == fill_nop_lean)
		loop_inline_nop_lean(w, until_exhausted);
	else
		loop_inline(w, until_exhausted);
}

static int start_completion_thread(struct worker *w)
{
	int ret = pthread_create(&w->cthread, NULL, completion_main, w);

	if (ret) {
		bb_wbase_fatal(&w->b, -ret,
			       "cannot start the completion thread: %s",
			       strerror(ret));
		return -ret;
	}
	w->cthread_started = true;
	if (w->b.a->completion_cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(w->b.a->completion_cpu, &set);
		pthread_setaffinity_np(w->cthread, sizeof(set), &set);
	}
	return 0;
}

/* The verify pass: read back every block written, through the same path
 * (splits included), and check the stamps; the general build of each step
 * (nothing is in flight here). */
static void verify_pass(struct worker *w)
{
	w->b.verify_phase = true;
	w->b.verify_file = 0;
	w->b.verify_cursor = 0;
	w->fill = w->fill_general;
	w->reap = w->reap_general;
	w->end_io = w->end_io_general;
	w->fast = false;
	atomic_store_explicit(&w->comp_fast, false, memory_order_relaxed);
	/* the completion thread keeps what it counted so far */
	atomic_fetch_add_explicit(&w->epoch, 1, memory_order_release);
	run_loop(w, true);
}

/* --- setup ------------------------------------------------------------------ */


/* The kernel cost of a bioset's slab and reserve (the split bioset's
 * too: bio_split's clones come from SLUB as well). */
static void kcost_params(struct bb_bioset_params *bp, const struct bb_wbase *b)
{
	bp->cost_alloc_iters = b->kc.slab_alloc;
	bp->cost_free_iters = b->kc.slab_free;
	bp->cost_mempool_iters = b->kc.mempool;
}

/* The bio model: the buffers as bvecs, the two biosets (fs_bio_set /
 * blkdev_dio_pool, and the disk's bio_split), the parent's end_io. */
static int setup_model(struct worker *w, unsigned pieces)
{
	const struct bb_config *cfg = w->b.cfg;
	struct bb_wbase *b = &w->b;
	struct bb_bioset_params bp = { 0 };
	unsigned vecs_per = (cfg->bs + BB_PAGE_SIZE - 1) / BB_PAGE_SIZE;
	enum bb_completion comp = bb_config_completion(cfg);
	bool thread = comp == BB_COMPLETION_THREAD;
	bool polled = cfg->mode == BB_MODE_POLL;
	int ret;

	w->vecs = calloc((size_t)b->depth * vecs_per, sizeof(*w->vecs));
	if (!w->vecs) {
		bb_wbase_fatal(b, -ENOMEM, "out of memory for %u slots",
			       b->depth);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < b->depth; i++) {
		struct bb_wslot *s = &b->slots[i];
		struct bb_bvec *v = &w->vecs[(size_t)i * vecs_per];
		uint32_t left = cfg->bs;

		s->vecs = v;
		s->nvecs = (uint16_t)vecs_per;
		for (unsigned k = 0; k < vecs_per; k++) {
			v[k].bv_page = s->buf + (size_t)k * BB_PAGE_SIZE;
			v[k].bv_offset = 0;
			v[k].bv_len = bb_min(left, BB_PAGE_SIZE);
			left -= v[k].bv_len;
		}
	}
	w->may_split = cfg->split_check == BB_SPLIT_CHECK_VCNT ?
			       bb_bio_may_need_split_vcnt :
			       bb_bio_may_need_split_iter;
	/* what io_uring of the variant's kernel passes: REQ_POLLED for
	 * IOPOLL, REQ_ALLOC_CACHE when it asks for the cache */
	w->opf_base = (polled ? BB_REQ_POLLED : 0) |
		      bb_bioset_caller_opf(cfg->bio_cache, polled);
	w->end_io_general = thread ? end_io_hardirq : end_io_task;
	w->end_io = !w->fast ? w->end_io_general :
		    thread ? end_io_hardirq_fast : end_io_task_fast;

	/* the main bioset: fs_bio_set / blkdev_dio_pool (pool 4, bvecs) */
	bp.pool_size = BB_WORKER_BIO_POOL;
	bp.need_bvecs = true;
	bp.cache = cfg->bio_cache;
	bp.slab_limit = BB_WORKER_BIO_SLAB(b->depth);
	bp.bvec_slab_limit = BB_WORKER_BVEC_SLAB(b->depth);
	bp.irq_local = comp == BB_COMPLETION_IRQ;
	bp.remote_puts = thread; /* the completion CPU's own cache */
	bp.evict = cfg->cold_bios;
	kcost_params(&bp, b);
	ret = bb_bioset_init(&w->bs, &bp);
	if (ret) {
		bb_wbase_fatal(b, ret, "bioset init: %s", strerror(-ret));
		return ret;
	}
	/* the split bioset: disk->bio_split (pool 2, no bvecs, no cache but
	 * in the all_split experiment) */
	memset(&bp, 0, sizeof(bp));
	bp.pool_size = BB_WORKER_SPLIT_POOL;
	bp.cache = bb_bioset_split_variant(cfg->bio_cache);
	bp.slab_limit = BB_WORKER_SPLIT_SLAB(b->depth, pieces);
	bp.irq_local = comp == BB_COMPLETION_IRQ;
	bp.remote_puts = thread;
	bp.evict = cfg->cold_bios;
	kcost_params(&bp, b);
	ret = bb_bioset_init(&w->split_bs, &bp);
	if (ret) {
		bb_wbase_fatal(b, ret, "split bioset init: %s", strerror(-ret));
		return ret;
	}
	return 0;
}

static int setup(struct worker *w)
{
	struct bb_worker_args *a = w->b.a;
	const struct bb_config *cfg = a->cfg;
	struct bb_wbase *b = &w->b;
	unsigned pieces = 1, nvme, iter, irqctx;
	bool nop_lean;
	int ret;

	w->model = cfg->model == BB_MODEL_BIO;
	if (w->model)
		for (unsigned i = 0; i < a->nfiles; i++)
			pieces = bb_max(pieces, bb_limits_max_pieces(cfg->bs, &a->files[i].t->lim));
	ret = bb_wbase_init(b, a, pieces);
	if (ret)
		return ret;
	for (unsigned i = 0; i < b->depth; i++) {
		b->slots[i].owner = b;
		b->slots[i].write = b->write_const; /* the fast build's */
	}
	w->submit_batch = cfg->submit_batch;
	w->complete_batch = cfg->complete_batch;
	w->lat_io = cfg->lat == BB_LAT_IO;
	/* the fast build: nothing per I/O but the I/O */
	w->fast = b->nfiles == 1 && (b->rwmix == 0 || b->rwmix == 100) &&
		  !b->verify && !b->inject.ns && !b->device.ns &&
		  !w->lat_io && (b->random || !b->offsets);
	nvme = b->nvme;
	iter = cfg->split_check == BB_SPLIT_CHECK_ITER;
	w->fill_general = fill_fns[w->model][nvme][iter][0];
	w->fill = fill_fns[w->model][nvme][iter][w->fast];
	if (w->model && w->fast && b->fixed)
		w->fill = fill_fixed_fns[nvme][iter];
	if (!w->model && !b->offsets && w->fast)
		w->fill = fill_none_nop;
	irqctx = bb_config_completion(cfg) == BB_COMPLETION_IRQ;
	/* NOPs inline without the model: the lean pair (fill and reap must
	 * both be it: its user_data is a stamp, not a slot) */
	nop_lean = !w->model && !b->offsets && w->fast && !nvme &&
		      !cfg->vectored && b->depth &&
		      cfg->completion != BB_COMPLETION_THREAD &&
		      cfg->mode != BB_MODE_SQPOLL;
	if (!w->model && cfg->vectored && !nvme) {
		w->fill_general = fill_none_vec;
		w->fill = w->fast ? fill_none_vec_fast : fill_none_vec;
	}
	w->reap_general = reap_fns[w->model][nvme][irqctx][0];
	w->reap = reap_fns[w->model][nvme][irqctx][w->fast];
	if (nop_lean) {
		w->fill = w->fill_general = fill_nop_lean;
		w->reap = w->reap_general = reap_nop_lean;
		sq_preset(w);
	}
	atomic_store(&w->comp_fast, w->fast);
	if (w->model) {
		ret = setup_model(w, pieces);
		if (ret)
			return ret;
	}
	if (cfg->completion == BB_COMPLETION_THREAD) {
		uint32_t n = 1;

		while (n < b->depth)
			n <<= 1;
		w->done_q.q = calloc(n, sizeof(*w->done_q.q));
		if (!w->done_q.q) {
			bb_wbase_fatal(b, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		w->done_q.mask = n - 1;
	}
	return 0;
}

static void teardown(struct worker *w)
{
	if (w->bs.impl)
		bb_bioset_exit(&w->bs);
	if (w->split_bs.impl)
		bb_bioset_exit(&w->split_bs);
	bb_wbase_exit(&w->b);
	free(w->vecs);
	free(w->done_q.q);
}

/* The totals of a side: as counted for the run (kept before the verify
 * pass, if there was one), with the errors of the verify pass. */
static void side_final(const struct bb_wside *sd, const struct bb_io_totals *kept,
		       struct bb_io_totals *out)
{
	if (!kept) {
		bb_wside_report(sd, out);
		return;
	}
	*out = *kept;
	out->errors = sd->io.errors;
	out->verify_errors = sd->io.verify_errors;
}

static void *BB_L(bb_worker_main)(void *arg)
{
	struct bb_worker_args *a = arg;
	struct worker *w;
	struct bb_io_totals sub_keep, comp_io;
	bool sub_kept = false;
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
	w->b.a = a;
	w->b.ring.ring_fd = -1;

	if (a->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(a->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	if (setup(w) == 0 && (a->cfg->completion != BB_COMPLETION_THREAD ||
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
		/* counters of the run itself, before the verify pass */
		if (w->model) {
			bb_bioset_counters(&w->bs, &a->res.cache);
			bb_bioset_counters(&w->split_bs, &a->res.split_cache);
			a->res.split = w->split_ctr;
		}
		if (!w->b.fatal && w->b.verify && !cancelled(w)) {
			bb_wside_report(&w->b.sub, &sub_keep);
			sub_kept = true;
			verify_pass(w);
		}
		stop_completion_thread(w);
	}
	atomic_store(&a->ready, 1);
	if (pf_instr >= 0)
		close(pf_instr);
	if (pf_cyc >= 0)
		close(pf_cyc);

	/* report */
	side_final(&w->b.sub, sub_kept ? &sub_keep : NULL, &a->res.io);
	side_final(&w->b.comp, w->comp_kept ? &w->comp_keep : NULL, &comp_io);
	bb_io_totals_add(&a->res.io, &comp_io);
	if (w->b.comp.lat_hist)
		bb_hist_merge(&a->res.lat, w->b.comp.lat_hist);
	a->res.error = w->b.fatal;
	snprintf(a->res.errmsg, sizeof(a->res.errmsg), "%s", w->b.fatal_msg);
	teardown(w);
	free(w);
	atomic_store(&a->done, 1);
	return NULL;
}

const struct bb_path_ops bb_path_ops_this = {
	.layout = BB_LAYOUT_THIS,
	.worker_main = BB_L(bb_worker_main),
};
