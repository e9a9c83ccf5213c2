/* SPDX-License-Identifier: GPL-2.0-only */
/* bioset.h - bio allocation: slab, reserve (mempool) and the per-thread
 * ("per-CPU") bio cache in every variant the kernel has had
 * (layout-dependent; see bb_layout.h).
 *
 * Model (KERNEL-FACTS.md 1.x):
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
 *    ALLOC_CACHE_THRESHOLD 16 and ALLOC_CACHE_MAX 256.
 *
 * Allocation (alloc_bioset, 7.1 + follow-ups: cache -> slab -> reserve):
 *   if the bioset has a cache and nr_vecs <= 4: set REQ_ALLOC_CACHE and pop
 *     from free_list; when free_list is empty and nr_irq >= 16 splice the
 *     irq list in first.  A hit returns at once.
 *   else clear REQ_ALLOC_CACHE.
 *   miss: take an object from the slab; if the slab is exhausted take one
 *     from the reserve and clear REQ_ALLOC_CACHE ("don't rob a starving
 *     reserve": a bio that came from the reserve is freed, not cached, so
 *     the reserve refills).
 *   Nothing anywhere: return NULL (the kernel would sleep in the mempool;
 *   the engine reaps completions and retries).
 *
 * Put (bb_bio_put): REFFED refcount, then REQ_ALLOC_CACHE ? the variant's
 * put : bio_free.  The variant's put is a function pointer chosen at init:
 *   task:     ctx == TASK -> free_list, else free.
 *   irq:      REQ_POLLED && ctx == TASK -> free_list; anything else ->
 *             free_list_irq under an irq-save-like guard (a spin guard that
 *             the splice also takes).
 *   irq_fast, all: ctx == TASK -> free_list; ctx == HARDIRQ ->
 *             free_list_irq with no guard (a lock-free push; the splice is
 *             an atomic exchange of the whole list); other contexts free.
 *   all puts first check nr + nr_irq > 256 -> free (so 257 can be resident).
 * off: the bioset has no cache at all.  all: the split bioset has a cache
 * too (bb_bioset_split_variant); in the other variants it has none.  The
 * variant table in bioset.c is the one place that says what each variant
 * does.
 *
 * Threading: the owner thread allocates and does task-context puts; one
 * other thread (the completion thread) may do HARDIRQ/SOFTIRQ puts and
 * frees concurrently.  Counters are kept per side (owner / other) so no
 * counter is written by two threads.
 */
#ifndef BB_BIOSET_H
#define BB_BIOSET_H

#include "path/bio.h"

#define BB_ALLOC_CACHE_THRESHOLD 16u
#define BB_ALLOC_CACHE_MAX 256u


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
};

typedef void (*bb_cache_put_fn)(struct bb_bioset *bs, struct bb_bio *bio,
				enum bb_ctx ctx);

struct bb_bioset {
	/* read-mostly, set at init */
	bb_cache_put_fn put_cache;      /* variant's put (NULL without cache) */
	struct bb_bio_cache *cache;     /* NULL: no cache */
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
 * variant v: what each variant does to bio_split()'s clones is decided
 * in bioset.c's variant table, next to its put and splice. */
enum bb_cache_variant bb_bioset_split_variant(enum bb_cache_variant v);

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
 * with bdev and opf (REQ_ALLOC_CACHE set or cleared by the allocator as
 * described above), bi_pool = bs.  Owner thread only.  NULL when the slab
 * and reserve are both empty, or nr_vecs > 256.  The cache hit is inline
 * (the hot loop's common case), the rest is bb_bio_alloc_bioset_slow. */
static inline struct bb_bio *bb_bio_alloc_bioset(struct bb_bioset *bs,
						 void *bdev, unsigned nr_vecs,
						 uint32_t opf)
{
	struct bb_bio_cache *c = bs->cache;

	if (bb_likely(c && nr_vecs <= BB_BIO_INLINE_VECS && c->free_list))
		return bb_bio_cache_take(bs, c, c->free_list, bdev, nr_vecs,
					 opf);
	return bb_bio_alloc_bioset_slow(bs, bdev, nr_vecs, opf);
}

/* bio_alloc_clone: a bio from bs with 0 vecs sharing src's bi_io_vec,
 * BIO_CLONED set, ioprio/write hints/iter/gap bit copied.  NULL as above. */
struct bb_bio *bb_bio_alloc_clone(void *bdev, struct bb_bio *src,
				  struct bb_bioset *bs);

/* bio_free: release the bvec array and the object to reserve or slab.
 * ctx selects which side's counters are charged. */
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
		bb_bio_free(bio, ctx);
}

/* bio_alloc_cache_prune: free up to n bios from the cache (task list
 * first, then the spliced irq list); returns how many were freed.  Owner
 * thread only. */
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
 * objs - slab_free - reserve - cache_nr - cache_nr_irq. */
struct bb_bioset_census {
	unsigned objs;         /* bio objects in all: slab_limit + pool_size */
	unsigned slab_free;    /* free in the slab (never used + free list) */
	unsigned reserve;      /* in the reserve */
	unsigned cache_nr;     /* on the cache's task list */
	unsigned cache_nr_irq; /* on the cache's irq list */
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
