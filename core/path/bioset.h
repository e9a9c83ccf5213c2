/* SPDX-License-Identifier: GPL-2.0-only */
/* bioset.h - bio allocation: slab, reserve (mempool) and the per-thread
 * ("per-CPU") bio cache in every variant the kernel has had
 * (layout-dependent; see bb_layout.h).
 *
 * Model (block/bio.c of the version each variant stands for):
 *  - slab: fixed-size objects (front_pad + 136 + back_pad, rounded up to a
 *    64-byte line, 64-byte aligned) carved from memory mapped at init.  The
 *    slab has a capacity (slab_limit objects); when it is exhausted the
 *    allocation falls back to the reserve.  Frees may come from the owning
 *    submitter or from the completion thread, so the slab free list is a
 *    multi-producer / single-consumer stack (only the owner allocates, as
 *    in the kernel: "allocation only happens in task context").
 *  - reserve: pool_size preallocated objects (mempool).  bb_bio_free()
 *    refills it while it is below pool_size, else frees to the slab.
 *  - bvec arrays for more than BB_BIO_INLINE_VECS vecs come from slab
 *    classes of 16, 64, 128 and 256 vecs (a request is rounded up to its
 *    class, bi_max_vecs records the class), with a reserve of 256-vec
 *    arrays; bios with <= 4 vecs use the inline vecs at (bio + 1).
 *  - cache (struct bb_bio_cache, one per bioset per owning thread): the
 *    kernel's free_list / free_list_irq / nr / nr_irq with
 *    ALLOC_CACHE_THRESHOLD 16.
 *
 * Who asks for the cache (REQ_ALLOC_CACHE):
 *   task, irq, irq_fast (6.1 .. 6.18): the caller.  io_uring set it only
 *     for IOPOLL I/O up to 6.1, for every read/write from 6.2 on;
 *     bb_bioset_caller_opf() says what a caller of the variant's kernel
 *     passes.  The allocator keeps it only for a bioset with a cache and
 *     nr_vecs <= 4.
 *   all, all_split (Dec 2025 default-on): the allocator sets it itself for
 *     every bioset that has a cache and nr_vecs <= 4, whoever the caller.
 *
 * Allocation (bio_alloc_bioset):
 *   REQ_ALLOC_CACHE asked (or set by the allocator), a cache, nr_vecs <= 4:
 *     pop free_list; when it is empty and nr_irq >= 16, splice the irq
 *     list in first (6.2 on; task has no irq list).  A hit returns at once.
 *   else REQ_ALLOC_CACHE is cleared.
 *   miss: mempool_alloc: an object from the slab, the reserve when the slab
 *     is exhausted.  Then, from 6.2 on (irq, irq_fast, all, all_split),
 *     "don't rob a starving bioset": while the reserve is below its minimum
 *     (mempool_is_saturated false) REQ_ALLOC_CACHE is cleared, so the bio
 *     is freed on put and refills the reserve.  task (6.1) has no such
 *     rule: a reserve object can end up in the cache.
 *   Slab and reserve empty: if the irq list holds bios (fewer than 16,
 *     else it would have been spliced), splice them and take one: the
 *     kernel would sleep in mempool_alloc until a bio is freed; the
 *     model's slab is finite and nothing else would ever free them
 *     (counted as a hit, neither a miss nor a failure).  Otherwise NULL
 *     (the engine reaps completions and retries).
 *
 * Put (bb_bio_put): REFFED refcount, then REQ_ALLOC_CACHE ? the variant's
 * put : bio_free.  The variant's put is a function pointer chosen at init:
 *   task (6.1):  ctx == TASK -> free_list, and when that makes nr exceed
 *                ALLOC_CACHE_MAX_TASK (512) + ALLOC_CACHE_SLACK (64), prune
 *                64 (so 536 stay after 600 puts); other contexts free
 *                (the kernel warned: its cached bios were all polled).
 *   irq (6.2):   nr + nr_irq > 256 -> free; REQ_POLLED && ctx == TASK ->
 *                free_list; anything else -> free_list_irq under an
 *                irq-save-like guard (a spin guard that the splice also
 *                takes).
 *   irq_fast (6.9), all, all_split: nr + nr_irq > 256 -> free; ctx ==
 *                TASK -> free_list; ctx == HARDIRQ -> free_list_irq with no
 *                guard; other contexts (softirq) free.
 * bio_clear_polled (a split): clears REQ_POLLED; in task (6.1) also
 * REQ_ALLOC_CACHE, so split parents are freed, not cached.
 * off: the bioset has no cache at all.  The split bioset (disk->bio_split)
 * has no cache in any kernel (bb_bioset_split_variant); all_split is the
 * experiment "all, and split clones cached too", no kernel's behaviour.
 * The variant table in bioset.c is the one place that says what each
 * variant does.
 *
 * Per CPU, as the kernel's: a bio is recycled in the cache of the CPU
 * that frees it, whichever allocated it.  The owner thread allocates and
 * does task-context puts (its own cache).  Hard-irq (and softirq) puts:
 *   irq_local: the owner makes them itself (a completion interrupt on the
 *     submitting CPU), into its own cache; the irq list's push and splice
 *     are plain stores as the kernel's are with interrupts off (irq_fast
 *     and later; irq keeps its guard, which stands for local_irq_save);
 *   remote_puts: another thread (the completion thread, on another CPU)
 *     makes them, into that CPU's own cache, which no allocation uses: it
 *     fills up to the cap and from then on every put frees, as the
 *     kernel's cross-CPU case does (648 K -> 647 K IOPS with the cache on);
 *   neither: another thread pushes onto the owner's irq list (lock-free;
 *     a cache shared across CPUs, no kernel's behaviour, kept for tests
 *     of the concurrent structures).
 * Counters are kept per side (owner / other) so no counter is written by
 * two threads.
 *
 * Kernel cost (cost_*_iters): busy work where the kernel's SLUB and
 * mempool would run, which the model's slab (a free list in L1) does not
 * execute: every slab object allocated or freed, every reserve take or
 * refill pays its loop count; a cache hit or a put into the cache pays
 * nothing, as the kernel's does not.
 *
 * Cold bios (evict): every object is evicted from the CPU caches when it is
 * put (cached or freed), so that the next allocation of it touches memory
 * that is not cache-hot, as a bio may be in a kernel whose I/O path
 * touches far more memory between two uses than this loop does.
 */
#ifndef BB_BIOSET_H
#define BB_BIOSET_H

#include "path/bio.h"

#define BB_ALLOC_CACHE_THRESHOLD 16u
#define BB_ALLOC_CACHE_MAX 256u      /* 6.2 on, over both lists */
#define BB_ALLOC_CACHE_MAX_TASK 512u /* 5.15 .. 6.1 */
#define BB_ALLOC_CACHE_SLACK 64u     /* 5.15 .. 6.1: pruned at put */


struct bb_bioset;
struct bb_bioset_impl; /* slab / reserve internals, private to bioset.c */

/* The per-thread cache (one per bioset; the kernel's per-CPU struct
 * bio_alloc_cache).  Defined here for the inline allocation fast path. */
struct bb_bio_cache {
	/* task side: written only by the owner */
	struct bb_bio *free_list;
	atomic_uint nr; /* relaxed: read by the other thread for the cap */
	unsigned (*splice)(struct bb_bioset *bs, struct bb_bio_cache *c);
	/* irq side */
	_Atomic(struct bb_bio *) free_list_irq bb_aligned_cl;
	atomic_int guard; /* `irq` variant only: models local_irq_save */
};

struct bb_bioset_params {
	unsigned pool_size;     /* reserve objects (kernel: 2 for fs_bio_set) */
	unsigned front_pad;     /* bytes in front of the bio, for the caller
				   (a multiple of 8: the bio stays aligned) */
	bool need_bvecs;        /* back_pad = 4 inline vecs + bvec slabs */
	enum bb_cache_variant cache; /* BB_CACHE_OFF: no cache */
	unsigned slab_limit;    /* max slab objects outstanding; 0 = 65536 */
	unsigned bvec_slab_limit; /* max external bvec arrays per class
				     (16/64/128/256); 0 = 4096 */
	bool irq_local;         /* hard-irq puts come from the owner thread
				   itself (no completion thread) */
	bool remote_puts;       /* hard-irq/softirq puts come from another
				   thread, into its own CPU's cache */
	bool evict;             /* cold bios: evict each object at put */
	/* the calibrated kernel cost (config.h struct bb_kcost), as loop
	 * counts of bb_spin_iters: per slab object (bio or bvec array)
	 * allocated and freed, per take from or refill of a reserve; 0:
	 * none (a cache hit and a put into the cache never pay them) */
	uint64_t cost_alloc_iters;
	uint64_t cost_free_iters;
	uint64_t cost_mempool_iters;
};

typedef void (*bb_cache_put_fn)(struct bb_bioset *bs, struct bb_bio *bio,
				enum bb_ctx ctx);
typedef void (*bb_bio_free_fn)(struct bb_bio *bio, enum bb_ctx ctx);

struct bb_bioset {
	/* read-mostly, set at init */
	bb_cache_put_fn put_cache;      /* variant's put (NULL without cache) */
	bb_bio_free_fn put_free;        /* bio_free (evicting with evict) */
	struct bb_bio_cache *cache;     /* the owner's; NULL: no cache */
	struct bb_bio_cache *put_to[3]; /* by enum bb_ctx: the cache of the
					   CPU a put in that context runs
					   on (remote_puts: another) */
	uint32_t opf_auto;              /* REQ_ALLOC_CACHE when the allocator
					   sets it itself (all), else 0 */
	uint32_t clear_polled;          /* flags bio_clear_polled drops */
	uint32_t starving_keep;         /* opf mask while the reserve is
					   below its minimum */
	struct bb_bioset_impl *impl;
	unsigned front_pad;
	unsigned back_pad;
	unsigned obj_size;
	enum bb_cache_variant variant;
	/* counters, one cache line per side */
	struct bb_cache_counters ctr_owner bb_aligned_cl;
	struct bb_cache_counters ctr_other bb_aligned_cl;
};

/* Set up a bioset (memory for slab, reserve, bvec classes and cache is
 * mapped here, never on the I/O path).  Returns 0 or -errno (-EINVAL on a
 * bad parameter, -ENOMEM). */
int bb_bioset_init(struct bb_bioset *bs, const struct bb_bioset_params *p);

/* Prune the cache and release all memory.  Bios still outstanding are lost
 * with the memory (callers drain first). */
void bb_bioset_exit(struct bb_bioset *bs);

/* The split bioset's cache variant for a run whose main bioset has
 * variant v: BB_CACHE_OFF (no kernel gives bio_split()'s bioset a cache),
 * except for the all_split experiment.  Decided in bioset.c's variant
 * table, next to its put and splice. */
enum bb_cache_variant bb_bioset_split_variant(enum bb_cache_variant v);

/* The REQ_ALLOC_CACHE that a caller (io_uring and block/fops.c) of variant
 * v's kernel passes to bio_alloc_bioset for a read or write, polled (IOPOLL)
 * or not: task: only polled; irq, irq_fast: always; off, all, all_split: 0
 * (no cache, or the allocator sets it itself). */
uint32_t bb_bioset_caller_opf(enum bb_cache_variant v, bool polled);

/* bio_clear_polled: a bio that is split is not polled any more (and in
 * 6.1 left the cache with it). */
static inline void bb_bio_clear_polled(struct bb_bio *bio)
{
	bio->bi_opf &= ~(BB_REQ_POLLED |
			 (bio->bi_pool ? bio->bi_pool->clear_polled : 0));
}

/* Everything of bio_alloc_bioset but the cache hit (out of line). */
struct bb_bio *bb_bio_alloc_bioset_slow(struct bb_bioset *bs, void *bdev,
					unsigned nr_vecs, uint32_t opf);

/* A cache hit: take bio (the head of c's task list) and initialise it. */
static inline struct bb_bio *bb_bio_cache_take(struct bb_bioset *bs,
					       struct bb_bio_cache *c,
					       struct bb_bio *bio, void *bdev,
					       unsigned nr_vecs, uint32_t opf)
{
	c->free_list = bio->bi_next;
	atomic_store_explicit(&c->nr,
			      atomic_load_explicit(&c->nr,
						   memory_order_relaxed) - 1,
			      memory_order_relaxed);
	bs->ctr_owner.alloc_hit++;
	bb_bio_init(bio, bdev, nr_vecs ? (struct bb_bvec *)(bio + 1) : NULL,
		    (unsigned short)nr_vecs, opf | BB_REQ_ALLOC_CACHE);
	bio->bi_pool = bs;
	return bio;
}

/* bio_alloc_bioset: a bio with room for nr_vecs vecs (0..256), initialised
 * with bdev and opf (REQ_ALLOC_CACHE kept, set or cleared by the allocator
 * as described above), bi_pool = bs.  Owner thread only.  NULL when the
 * slab, the reserve and the irq list are all empty, or nr_vecs > 256.  The
 * cache hit is inline (the hot loop's common case), the rest is
 * bb_bio_alloc_bioset_slow. */
static inline struct bb_bio *bb_bio_alloc_bioset(struct bb_bioset *bs,
						 void *bdev, unsigned nr_vecs,
						 uint32_t opf)
{
	struct bb_bio_cache *c = bs->cache;

	opf |= bs->opf_auto;
	if (bb_likely(c && nr_vecs <= BB_BIO_INLINE_VECS &&
		      (opf & BB_REQ_ALLOC_CACHE) && c->free_list))
		return bb_bio_cache_take(bs, c, c->free_list, bdev, nr_vecs,
					 opf);
	return bb_bio_alloc_bioset_slow(bs, bdev, nr_vecs, opf);
}

/* bio_alloc_clone: a bio from bs with 0 vecs sharing src's bi_io_vec,
 * BIO_CLONED set, ioprio/write hints/iter/gap bit copied.  NULL as above. */
struct bb_bio *bb_bio_alloc_clone(void *bdev, struct bb_bio *src,
				  struct bb_bioset *bs);

/* bio_free: release the bvec array and the object to reserve or slab.
 * ctx selects which side's counters are charged.  (bb_bio_put frees
 * through bs->put_free, which is this, or this and an eviction.) */
void bb_bio_free(struct bb_bio *bio, enum bb_ctx ctx);

/* bio_put of a BIO_REFFED bio (out of line). */
void bb_bio_put_reffed(struct bb_bio *bio, enum bb_ctx ctx);

/* bio_put: drop a reference (BIO_REFFED), then cache or free per variant
 * (the variant's put, chosen at init).  ctx is the context of the
 * caller. */
static inline void bb_bio_put(struct bb_bio *bio, enum bb_ctx ctx)
{
	if (bb_unlikely(bb_bio_flagged(bio, BB_BIO_REFFED)))
		bb_bio_put_reffed(bio, ctx);
	else if (bio->bi_opf & BB_REQ_ALLOC_CACHE)
		bio->bi_pool->put_cache(bio->bi_pool, bio, ctx);
	else
		bio->bi_pool->put_free(bio, ctx);
}

/* bio_alloc_cache_prune: free up to n bios from the cache (task list
 * first, then the spliced irq list); returns how many were freed (counted
 * in `prune`, as the task variant's put-time prune is).  Owner thread
 * only. */
unsigned bb_bio_alloc_cache_prune(struct bb_bioset *bs, unsigned n);

/* Sum of both sides' counters. */
void bb_bioset_counters(const struct bb_bioset *bs,
			struct bb_cache_counters *out);

/* Current list lengths (for tests and reports): nr and nr_irq. */
void bb_bioset_cache_len(const struct bb_bioset *bs, unsigned *nr,
			 unsigned *nr_irq);

/* Free objects currently in the reserve (mempool curr_nr). */
unsigned bb_bioset_reserve_len(const struct bb_bioset *bs);

/* Where the free objects are (bb_bioset_check).  Objects outstanding =
 * objs - slab_free - reserve - cache_nr - cache_nr_irq - cache_remote. */
struct bb_bioset_census {
	unsigned objs;         /* bio objects in all: slab_limit + pool_size */
	unsigned slab_free;    /* free in the slab (never used + free list) */
	unsigned reserve;      /* in the reserve */
	unsigned cache_nr;     /* on the cache's task list */
	unsigned cache_nr_irq; /* on the cache's irq list */
	unsigned cache_remote; /* in the other CPU's cache (remote_puts) */
	unsigned bvec_objs[4]; /* bvec arrays per class 16/64/128/256 (the
				  256 class includes the bvec reserve) */
	unsigned bvec_free[4]; /* free per class (256: slab + reserve) */
	unsigned bvec_reserve; /* 256-vec arrays in the bvec reserve */
};

/* Consistency check for tests and leak checks (owner thread, nothing in
 * flight on other threads): walks every free list, checks that each object
 * lies inside the bioset's memory, is aligned and is listed once, that
 * cached bios are idle and cache-eligible and that nr / nr_irq match the
 * lists.  Fills *out.  Returns 0, -EUCLEAN on corruption, -ENOMEM. */
int bb_bioset_check(const struct bb_bioset *bs, struct bb_bioset_census *out);

#endif
