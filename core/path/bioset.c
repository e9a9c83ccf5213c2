// SPDX-License-Identifier: GPL-2.0-only
/* bioset.c - slab, reserve (mempool), bvec classes and the per-thread bio
 * cache in every variant (layout-dependent; see bioset.h for the model).
 *
 * Threads: the owner thread allocates, pops every free list and does
 * task-context puts; one other thread (the completion thread) may push to
 * the slab free lists, refill the reserves and push to the cache's irq
 * list.  Nothing on the alloc/put path allocates memory, makes a system call
 * or takes a lock, except the spin guard of the `irq` variant (it models
 * local_irq_save) and the reserve's guard (slow path only).
 */
#include "path/bioset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* (<limits.h>: the system header; the core has no limits.h of its own) */
#define BB_UINT_MAX (~0u)
#define BB_BVEC_CLASSES 4
static const unsigned bvec_class_nr[BB_BVEC_CLASSES] = { 16, 64, 128, 256 };

#define BB_SLAB_LIMIT_DEFAULT 65536u
#define BB_BVEC_SLAB_LIMIT_DEFAULT 4096u
#define BB_FRONT_PAD_MAX (1u << 20)

/* A small test-and-test-and-set spin guard. */
static inline void guard_lock(atomic_int *g)
{
	while (atomic_exchange_explicit(g, 1, memory_order_acquire))
		while (atomic_load_explicit(g, memory_order_relaxed))
			bb_cpu_relax();
}

static inline void guard_unlock(atomic_int *g)
{
	atomic_store_explicit(g, 0, memory_order_release);
}

/* ------------------------------------------------------------------------
 * Slab: fixed-size objects carved from one mapping by a bump pointer, plus
 * a free list that is a multi-producer / single-consumer lock-free stack
 * linked through the first word of each free object.
 *
 * Push (any thread): link = head; CAS(head, link, obj).
 * Pop (owner only): old = head; next = old->link; CAS(head, old, next).
 *
 * Pop has no ABA problem because there is only one consumer.  ABA needs the
 * top node to be removed and put back between our load of `old` (and of
 * old->link) and our CAS.  Only the popping thread removes nodes, and it is
 * busy in this very pop, so `old` stays in the stack: if head still equals
 * `old` at the CAS, `old` is still the top and its link is unchanged
 * (pushers write the link of their own, new node only, never of a node
 * already in the stack).  If a push happened meanwhile, head != old, the
 * CAS fails and we retry with the new head.  For the same reason reading
 * old->link never touches an object someone else owns: nobody can take
 * `old` out of the stack while we look at it.
 * ------------------------------------------------------------------------ */
struct bb_slab {
	/* owner side */
	char *base;
	size_t obj_size;
	unsigned cap;  /* objects the bump pointer may hand out */
	unsigned bump; /* next never-used object; owner only */
	/* pushed by both threads */
	_Atomic(void *) free_head bb_aligned_cl;
};

static inline void *slab_pop(struct bb_slab *s)
{
	void *old = atomic_load_explicit(&s->free_head, memory_order_acquire);

	while (old) {
		void *next = *(void **)old;

		if (atomic_compare_exchange_weak_explicit(&s->free_head, &old,
							  next,
							  memory_order_acquire,
							  memory_order_acquire))
			return old;
	}
	if (s->bump < s->cap)
		return s->base + (size_t)s->bump++ * s->obj_size;
	return NULL;
}

static inline void slab_push(struct bb_slab *s, void *obj)
{
	void *old = atomic_load_explicit(&s->free_head, memory_order_relaxed);

	do {
		*(void **)obj = old;
	} while (!atomic_compare_exchange_weak_explicit(&s->free_head, &old,
							obj,
							memory_order_release,
							memory_order_relaxed));
}

/* ------------------------------------------------------------------------
 * Reserve (mempool): up to min_nr preallocated objects.  curr_nr is read
 * without the guard first; the guard is taken only to take or refill.
 * ------------------------------------------------------------------------ */
struct bb_reserve {
	atomic_uint curr_nr;
	atomic_int guard;
	unsigned min_nr;
	void **elems;
} bb_aligned_cl;

/* Owner only. */
static void *reserve_take(struct bb_reserve *r)
{
	void *obj = NULL;
	unsigned n;

	if (!atomic_load_explicit(&r->curr_nr, memory_order_relaxed))
		return NULL;
	guard_lock(&r->guard);
	n = atomic_load_explicit(&r->curr_nr, memory_order_relaxed);
	if (n) {
		obj = r->elems[n - 1];
		atomic_store_explicit(&r->curr_nr, n - 1, memory_order_relaxed);
	}
	guard_unlock(&r->guard);
	return obj;
}

/* Any thread.  Returns whether obj went into the reserve. */
static inline bool reserve_refill(struct bb_reserve *r, void *obj)
{
	bool done = false;
	unsigned n;

	if (bb_likely(atomic_load_explicit(&r->curr_nr,
					   memory_order_relaxed) >= r->min_nr))
		return false;
	guard_lock(&r->guard);
	n = atomic_load_explicit(&r->curr_nr, memory_order_relaxed);
	if (n < r->min_nr) {
		r->elems[n] = obj;
		atomic_store_explicit(&r->curr_nr, n + 1, memory_order_relaxed);
		done = true;
	}
	guard_unlock(&r->guard);
	return done;
}

/* ------------------------------------------------------------------------
 * The per-thread cache.
 *
 * The irq list keeps its length in its head node: a bio pushed on the irq
 * list stores (length of the list below it) + 1 in __bi_remaining, which
 * has no meaning for a bio sitting in a cache (bio_init resets it).  So
 * nr_irq == head ? head->__bi_remaining : 0, exact at every instant, and a
 * splice that exchanges the whole list out knows exactly how many bios it
 * took.  Nodes below the head are never modified by a push, and only the
 * owner removes nodes, so the owner may read the head's length without
 * the guard.  The completion thread may read a head that the owner has
 * just spliced away (for the cap check, or in a CAS loop that will then
 * fail); __bi_remaining is atomic and the memory stays mapped, so that read
 * is harmless and the cap check is, as in the kernel, approximate under
 * concurrency.
 * ------------------------------------------------------------------------ */
struct bb_bioset_impl {
	struct bb_bio_cache cache;
	struct bb_bio_cache cache_remote; /* the completion CPU's (remote_puts) */
	struct bb_slab bio_slab;
	struct bb_reserve bio_reserve;
	struct bb_slab bvec_slab[BB_BVEC_CLASSES];
	struct bb_reserve bvec_reserve;
	void *bio_map;
	size_t bio_map_len;
	void *bvec_map[BB_BVEC_CLASSES];
	size_t bvec_map_len[BB_BVEC_CLASSES];
	unsigned slab_limit;
	unsigned bvec_slab_limit;
	unsigned pool_size;
	bool need_bvecs;
	bb_cache_put_fn put_inner; /* evict: the variant's put */
	/* the kernel cost per slab object and per reserve operation
	 * (bioset.h: cost_*_iters) */
	uint64_t cost_alloc;
	uint64_t cost_free;
	uint64_t cost_mempool;
};

static inline struct bb_cache_counters *ctr_of(struct bb_bioset *bs,
					       enum bb_ctx ctx)
{
	return ctx == BB_CTX_TASK ? &bs->ctr_owner : &bs->ctr_other;
}

static inline unsigned irq_list_len(struct bb_bio *head)
{
	return head ? (unsigned)atomic_load_explicit(&head->__bi_remaining,
						     memory_order_relaxed)
		    : 0;
}

static inline unsigned cache_nr(struct bb_bio_cache *c)
{
	return atomic_load_explicit(&c->nr, memory_order_relaxed);
}

static inline unsigned cache_nr_irq(struct bb_bio_cache *c)
{
	return irq_list_len(atomic_load_explicit(&c->free_list_irq,
						 memory_order_acquire));
}

/* nr + nr_irq > ALLOC_CACHE_MAX: so ALLOC_CACHE_MAX + 1 can be resident. */
static inline bool cache_full(struct bb_bio_cache *c)
{
	return cache_nr(c) + cache_nr_irq(c) > BB_ALLOC_CACHE_MAX;
}

/* bio_uninit has nothing to release in the model (no blkg, crypt or
 * integrity); a cached bio forgets its device. */
static inline void cache_uninit(struct bb_bio *bio)
{
	bio->bi_bdev = NULL;
}

/* Owner only (task context). */
static inline void task_push(struct bb_bioset *bs, struct bb_bio_cache *c,
			     struct bb_bio *bio)
{
	cache_uninit(bio);
	bio->bi_next = c->free_list;
	c->free_list = bio;
	atomic_store_explicit(&c->nr, cache_nr(c) + 1, memory_order_relaxed);
	bs->ctr_owner.put_task++;
}

/* Lock-free push on the irq list (irq_fast, all, a completion thread):
 * only the completion thread pushes in these variants; the owner only
 * exchanges the list out. */
static inline void irq_push_lockfree(struct bb_bio_cache *c,
				     struct bb_bio *bio)
{
	struct bb_bio *old = atomic_load_explicit(&c->free_list_irq,
						  memory_order_acquire);

	cache_uninit(bio);
	do {
		bio->bi_next = old;
		atomic_store_explicit(&bio->__bi_remaining,
				      (int)irq_list_len(old) + 1,
				      memory_order_relaxed);
	} while (!atomic_compare_exchange_weak_explicit(&c->free_list_irq,
							&old, bio,
							memory_order_release,
							memory_order_acquire));
}

/* Plain push on the irq list (irq_fast, all, irq_local): the owner itself
 * makes the hard-irq puts, as a completion interrupt on the submitting
 * CPU does; the kernel's push is two plain stores with interrupts off. */
static inline void irq_push_local(struct bb_bio_cache *c, struct bb_bio *bio)
{
	struct bb_bio *old = atomic_load_explicit(&c->free_list_irq,
						  memory_order_relaxed);

	cache_uninit(bio);
	bio->bi_next = old;
	atomic_store_explicit(&bio->__bi_remaining, (int)irq_list_len(old) + 1,
			      memory_order_relaxed);
	atomic_store_explicit(&c->free_list_irq, bio, memory_order_relaxed);
}

/* Guarded push on the irq list (irq variant): both threads push. */
static inline void irq_push_guarded(struct bb_bio_cache *c,
				    struct bb_bio *bio)
{
	struct bb_bio *old;

	cache_uninit(bio);
	guard_lock(&c->guard);
	old = atomic_load_explicit(&c->free_list_irq, memory_order_relaxed);
	bio->bi_next = old;
	atomic_store_explicit(&bio->__bi_remaining, (int)irq_list_len(old) + 1,
			      memory_order_relaxed);
	atomic_store_explicit(&c->free_list_irq, bio, memory_order_release);
	guard_unlock(&c->guard);
}

/* Owner only, with free_list empty: move a detached irq list to the task
 * list. */
static inline unsigned splice_finish(struct bb_bioset *bs,
				     struct bb_bio_cache *c,
				     struct bb_bio *list)
{
	unsigned n;

	if (!list)
		return 0;
	n = irq_list_len(list);
	c->free_list = list;
	atomic_store_explicit(&c->nr, cache_nr(c) + n, memory_order_relaxed);
	bs->ctr_owner.splice++;
	bs->ctr_owner.splice_bios += n;
	return n;
}

static unsigned splice_lockfree(struct bb_bioset *bs, struct bb_bio_cache *c)
{
	return splice_finish(bs, c,
			     atomic_exchange_explicit(&c->free_list_irq, NULL,
						      memory_order_acquire));
}

/* irq_local: nobody else touches the irq list (the kernel's splice masks
 * interrupts around two plain moves; with the interrupt on this CPU that
 * is all it needs). */
static unsigned splice_local(struct bb_bioset *bs, struct bb_bio_cache *c)
{
	struct bb_bio *list = atomic_load_explicit(&c->free_list_irq,
						   memory_order_relaxed);

	atomic_store_explicit(&c->free_list_irq, NULL, memory_order_relaxed);
	return splice_finish(bs, c, list);
}

static unsigned splice_guarded(struct bb_bioset *bs, struct bb_bio_cache *c)
{
	struct bb_bio *list;

	guard_lock(&c->guard);
	list = atomic_load_explicit(&c->free_list_irq, memory_order_relaxed);
	atomic_store_explicit(&c->free_list_irq, NULL, memory_order_relaxed);
	guard_unlock(&c->guard);
	return splice_finish(bs, c, list);
}

static void put_cache_free(struct bb_bioset *bs, struct bb_bio *bio,
			   enum bb_ctx ctx)
{
	ctr_of(bs, ctx)->put_free++;
	bb_bio_free(bio, ctx);
}

static unsigned prune_task_list(struct bb_bioset *bs, struct bb_bio_cache *c,
				unsigned n);
static unsigned prune_cache(struct bb_bioset *bs, struct bb_bio_cache *c,
			    unsigned n);

/* task (5.15 .. 6.1): one list, task context only; over 512 + 64 after
 * the push, prune 64 (the most recently put, as bio_alloc_cache_prune pops
 * the head).  A cache-flagged bio put elsewhere is freed (the kernel
 * warned: only polled I/O, completed by its task, had the flag). */
static void put_cache_task(struct bb_bioset *bs, struct bb_bio *bio,
			   enum bb_ctx ctx)
{
	struct bb_bio_cache *c = bs->cache;

	if (ctx != BB_CTX_TASK) {
		put_cache_free(bs, bio, ctx);
		return;
	}
	task_push(bs, c, bio);
	if (bb_unlikely(cache_nr(c) > BB_ALLOC_CACHE_MAX_TASK +
					     BB_ALLOC_CACHE_SLACK))
		prune_task_list(bs, c, BB_ALLOC_CACHE_SLACK);
}

/* irq (6.2): polled task-context puts to the task list, everything else
 * to the irq list under the guard. */
static void put_cache_irq(struct bb_bioset *bs, struct bb_bio *bio,
			  enum bb_ctx ctx)
{
	struct bb_bio_cache *c = bs->put_to[ctx];

	if (cache_full(c)) {
		put_cache_free(bs, bio, ctx);
		return;
	}
	if ((bio->bi_opf & BB_REQ_POLLED) && ctx == BB_CTX_TASK) {
		task_push(bs, c, bio);
		return;
	}
	irq_push_guarded(c, bio);
	ctr_of(bs, ctx)->put_irq++;
}

/* irq_fast (6.9) and all (Dec 2025): context decides, no guard; the
 * irq-list push is lock-free (a completion thread) or plain (the owner's
 * own hard-irq puts). */
static inline __attribute__((always_inline)) void
put_cache_irq_fast_t(struct bb_bioset *bs, struct bb_bio *bio,
		     enum bb_ctx ctx, bool local)
{
	struct bb_bio_cache *c = bs->put_to[ctx];

	if (cache_full(c)) {
		put_cache_free(bs, bio, ctx);
	} else if (ctx == BB_CTX_TASK) {
		task_push(bs, c, bio);
	} else if (ctx == BB_CTX_HARDIRQ) {
		if (local)
			irq_push_local(c, bio);
		else
			irq_push_lockfree(c, bio);
		bs->ctr_other.put_irq++;
	} else {
		put_cache_free(bs, bio, ctx);
	}
}

static void put_cache_irq_fast(struct bb_bioset *bs, struct bb_bio *bio,
			       enum bb_ctx ctx)
{
	put_cache_irq_fast_t(bs, bio, ctx, false);
}

static void put_cache_irq_fast_local(struct bb_bioset *bs, struct bb_bio *bio,
				     enum bb_ctx ctx)
{
	put_cache_irq_fast_t(bs, bio, ctx, true);
}

/* What each cache variant does, in one place: who sets REQ_ALLOC_CACHE
 * (the caller, for polled I/O or for all; or the allocator itself), the
 * put of a cache-eligible bio (by context) and the splice of the irq list
 * (with a completion thread, and with the owner's own hard-irq puts),
 * what bio_clear_polled drops, whether a starving reserve is robbed, and
 * whether the split bioset (bio_split()'s clones) gets a cache. */
typedef unsigned (*splice_fn)(struct bb_bioset *bs, struct bb_bio_cache *c);
static const struct cache_variant {
	uint32_t caller_opf[2]; /* [polled]: REQ_ALLOC_CACHE the caller asks */
	uint32_t opf_auto;      /* REQ_ALLOC_CACHE the allocator sets */
	bb_cache_put_fn put, put_local;
	splice_fn splice, splice_local;
	uint32_t clear_polled;  /* bio_clear_polled also drops these */
	bool rob_reserve;       /* no "don't rob a starving bioset" rule */
	bool split_cached;
} cache_variants[BB_CACHE__COUNT] = {
	[BB_CACHE_OFF] = { { 0, 0 }, 0, NULL, NULL, NULL, NULL, 0, false,
			   false },
	/* the irq list stays empty: nothing but task puts is cached */
	[BB_CACHE_TASK] = { { 0, BB_REQ_ALLOC_CACHE }, 0, put_cache_task,
			    put_cache_task, splice_lockfree, splice_local,
			    BB_REQ_ALLOC_CACHE, true, false },
	[BB_CACHE_IRQ] = { { BB_REQ_ALLOC_CACHE, BB_REQ_ALLOC_CACHE }, 0,
			   put_cache_irq, put_cache_irq, splice_guarded,
			   splice_guarded, 0, false, false },
	[BB_CACHE_IRQ_FAST] = { { BB_REQ_ALLOC_CACHE, BB_REQ_ALLOC_CACHE }, 0,
				put_cache_irq_fast, put_cache_irq_fast_local,
				splice_lockfree, splice_local, 0, false,
				false },
	[BB_CACHE_ALL] = { { 0, 0 }, BB_REQ_ALLOC_CACHE, put_cache_irq_fast,
			   put_cache_irq_fast_local, splice_lockfree,
			   splice_local, 0, false, false },
	[BB_CACHE_ALL_SPLIT] = { { 0, 0 }, BB_REQ_ALLOC_CACHE,
				 put_cache_irq_fast, put_cache_irq_fast_local,
				 splice_lockfree, splice_local, 0, false,
				 true },
};

enum bb_cache_variant bb_bioset_split_variant(enum bb_cache_variant v)
{
	return (unsigned)v < BB_CACHE__COUNT && cache_variants[v].split_cached ?
		       v : BB_CACHE_OFF;
}

uint32_t bb_bioset_caller_opf(enum bb_cache_variant v, bool polled)
{
	return (unsigned)v < BB_CACHE__COUNT ? cache_variants[v].caller_opf[polled]
					     : 0;
}

/* ------------------------------------------------------------------------
 * Cold bios: evict an object from every cache level (clflushopt; the
 * 0x66-prefixed clflush is clflushopt where the CPU has it and clflush
 * where it has not).
 * ------------------------------------------------------------------------ */
static inline void evict_obj(const void *obj, unsigned size)
{
	for (unsigned off = 0; off < size; off += BB_CACHELINE) {
		const char *p = (const char *)obj + off;
#if defined(__x86_64__) || defined(__i386__)
		__asm__ volatile(".byte 0x66; clflush %0"
				 : "+m"(*(volatile char *)p));
#elif defined(__aarch64__)
		__asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
#else
		(void)p;
#endif
	}
}

static void put_cache_evict(struct bb_bioset *bs, struct bb_bio *bio,
			    enum bb_ctx ctx)
{
	void *obj = (char *)bio - bs->front_pad;

	bs->impl->put_inner(bs, bio, ctx);
	evict_obj(obj, bs->obj_size);
}

static void free_evict(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct bb_bioset *bs = bio->bi_pool;
	void *obj = (char *)bio - bs->front_pad;

	bb_bio_free(bio, ctx);
	evict_obj(obj, bs->obj_size);
}

/* ------------------------------------------------------------------------
 * Allocation
 * ------------------------------------------------------------------------ */
static inline unsigned bvec_class(unsigned nr_vecs)
{
	if (nr_vecs <= 16)
		return 0;
	if (nr_vecs <= 64)
		return 1;
	if (nr_vecs <= 128)
		return 2;
	return 3;
}

/* Give back an object taken on a path that then failed (not counted). */
static void obj_undo(struct bb_slab *s, struct bb_reserve *r, void *obj)
{
	if (!reserve_refill(r, obj))
		slab_push(s, obj);
}

/* Cache miss, or not cache-eligible: mempool_alloc (the slab, then the
 * reserve), then "don't rob a starving bioset" (6.2 on): while the
 * reserve is below its minimum the bio does not join the cache. */
static struct bb_bio *alloc_slab_reserve(struct bb_bioset *bs, void *bdev,
				 unsigned nr_vecs, uint32_t opf)
{
	struct bb_bioset_impl *im = bs->impl;
	struct bb_cache_counters *ctr = &bs->ctr_owner;
	struct bb_bvec *table = NULL;
	unsigned max_vecs = nr_vecs;
	uint64_t cost;
	bool from_reserve;
	struct bb_bio *bio;
	void *obj;

	/* fast path: slab objects (and a slab bvec array of the class) */
	obj = slab_pop(&im->bio_slab);
	if (obj && nr_vecs > BB_BIO_INLINE_VECS) {
		unsigned cl = bvec_class(nr_vecs);

		table = slab_pop(&im->bvec_slab[cl]);
		if (table) {
			max_vecs = bvec_class_nr[cl];
		} else {
			slab_push(&im->bio_slab, obj);
			obj = NULL;
		}
	}
	if (obj) {
		ctr->alloc_slab++;
		if (table)
			ctr->bvec_alloc++;
		bb_spin_iters(im->cost_alloc * (table ? 2 : 1));
		goto init;
	}

	/* slow path (mempool_alloc: slab, then the reserve; bvecs from the
	 * 256-vec class or its reserve) */
	obj = slab_pop(&im->bio_slab);
	from_reserve = !obj;
	if (!obj && !(obj = reserve_take(&im->bio_reserve)))
		goto fail;
	cost = from_reserve ? im->cost_mempool : im->cost_alloc;
	if (nr_vecs > BB_BIO_INLINE_VECS) {
		max_vecs = BB_BIO_MAX_VECS;
		table = slab_pop(&im->bvec_slab[BB_BVEC_CLASSES - 1]);
		cost += table ? im->cost_alloc : im->cost_mempool;
		if (!table)
			table = reserve_take(&im->bvec_reserve);
		if (!table) {
			obj_undo(&im->bio_slab, &im->bio_reserve, obj);
			goto fail;
		}
		ctr->bvec_alloc++;
	}
	if (from_reserve)
		ctr->alloc_reserve++;
	else
		ctr->alloc_slab++;
	bb_spin_iters(cost);
init:
	/* mempool_is_saturated: a reserve below its minimum keeps the bio
	 * out of the cache (6.2 on), so that its free refills the reserve */
	if (bb_unlikely(atomic_load_explicit(&im->bio_reserve.curr_nr,
					     memory_order_relaxed) <
			im->bio_reserve.min_nr))
		opf &= bs->starving_keep;
	bio = (struct bb_bio *)((char *)obj + bs->front_pad);
	if (nr_vecs <= BB_BIO_INLINE_VECS)
		table = nr_vecs ? (struct bb_bvec *)(bio + 1) : NULL;
	bb_bio_init(bio, bdev, table, (unsigned short)max_vecs, opf);
	bio->bi_pool = bs;
	return bio;
fail:
	ctr->alloc_fail++;
	return NULL;
}

/* Owner only, free_list empty: splice the irq list if it holds at least
 * ALLOC_CACHE_THRESHOLD bios. */
static struct bb_bio *cache_refill(struct bb_bioset *bs,
				   struct bb_bio_cache *c)
{
	if (cache_nr_irq(c) < BB_ALLOC_CACHE_THRESHOLD)
		return NULL;
	c->splice(bs, c);
	return c->free_list;
}

struct bb_bio *bb_bio_alloc_bioset_slow(struct bb_bioset *bs, void *bdev,
					unsigned nr_vecs, uint32_t opf)
{
	struct bb_bio_cache *c = bs->cache;
	struct bb_bio *bio;

	if (bb_unlikely(nr_vecs > BB_BIO_MAX_VECS || (nr_vecs && !bs->back_pad)))
		return NULL;
	opf |= bs->opf_auto;
	if (!c || nr_vecs > BB_BIO_INLINE_VECS || !(opf & BB_REQ_ALLOC_CACHE)) {
		opf &= ~BB_REQ_ALLOC_CACHE;
		bio = alloc_slab_reserve(bs, bdev, nr_vecs, opf);
		if (bb_likely(bio) || !c ||
		    !prune_cache(bs, c, BB_ALLOC_CACHE_THRESHOLD))
			return bio;
		/* A bio the cache cannot serve (bvecs beyond the inline
		 * ones, or no REQ_ALLOC_CACHE), with the slab and the
		 * reserve empty while idle bios sit in this cache: give some
		 * back to the slab and try again.  The kernel's slab would
		 * find memory (or mempool_alloc would sleep until a free);
		 * the model's slab is finite, and nothing else ever returns
		 * cached bios to it, so the owner would fail for good once
		 * every in-flight bio has been put into the cache.  Off the
		 * hot path: only after a failure, which it undoes. */
		bs->ctr_owner.alloc_fail--;
		return alloc_slab_reserve(bs, bdev, nr_vecs, opf);
	}

	bio = c->free_list;
	if (!bio && !(bio = cache_refill(bs, c))) {
		bs->ctr_owner.alloc_miss++;
		bio = alloc_slab_reserve(bs, bdev, nr_vecs, opf);
		if (bb_likely(bio) || !cache_nr_irq(c))
			return bio;
		/* The slab (finite in the model, unlike the kernel's) and the
		 * reserve are empty while fewer than ALLOC_CACHE_THRESHOLD
		 * bios wait on the irq list: take them rather than fail.  The
		 * kernel would sleep in mempool_alloc for a free instead;
		 * here nothing would ever free them, and the owner would
		 * fail for good.  Off the hot path: only after a failure. */
		c->splice(bs, c);
		bio = c->free_list;
		/* it is a hit after all: neither a miss nor a failure */
		bs->ctr_owner.alloc_miss--;
		bs->ctr_owner.alloc_fail--;
	}
	return bb_bio_cache_take(bs, c, bio, bdev, nr_vecs, opf);
}

struct bb_bio *bb_bio_alloc_clone(void *bdev, struct bb_bio *src,
				  struct bb_bioset *bs)
{
	struct bb_bio *bio = bb_bio_alloc_bioset(bs, bdev, 0, src->bi_opf);

	if (!bio)
		return NULL;
	bb_bio_set_flag(bio, BB_BIO_CLONED);
	bio->bi_ioprio = src->bi_ioprio;
	bio->bi_write_hint = src->bi_write_hint;
	bio->bi_write_stream = src->bi_write_stream;
	bio->bi_iter = src->bi_iter;
	bio->bi_bvec_gap_bit = src->bi_bvec_gap_bit;
	bio->bi_io_vec = src->bi_io_vec;
	return bio;
}

/* ------------------------------------------------------------------------
 * Put and free
 * ------------------------------------------------------------------------ */
void bb_bio_put_reffed(struct bb_bio *bio, enum bb_ctx ctx)
{
	if (atomic_fetch_sub_explicit(&bio->__bi_cnt, 1,
				      memory_order_acq_rel) != 1)
		return;
	if (bio->bi_opf & BB_REQ_ALLOC_CACHE)
		bio->bi_pool->put_cache(bio->bi_pool, bio, ctx);
	else
		bio->bi_pool->put_free(bio, ctx);
}

void bb_bio_free(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct bb_bioset *bs = bio->bi_pool;
	struct bb_bioset_impl *im = bs->impl;
	struct bb_cache_counters *ctr = ctr_of(bs, ctx);
	void *obj = (char *)bio - bs->front_pad;
	uint64_t cost = 0;

	if (bio->bi_max_vecs > BB_BIO_INLINE_VECS) {
		unsigned cl = bvec_class(bio->bi_max_vecs);

		if (cl != BB_BVEC_CLASSES - 1 ||
		    !reserve_refill(&im->bvec_reserve, bio->bi_io_vec)) {
			slab_push(&im->bvec_slab[cl], bio->bi_io_vec);
			cost = im->cost_free;
		} else {
			cost = im->cost_mempool;
		}
		ctr->bvec_free++;
	}
	if (reserve_refill(&im->bio_reserve, obj)) {
		ctr->reserve_refill++;
		cost += im->cost_mempool;
	} else {
		slab_push(&im->bio_slab, obj);
		cost += im->cost_free;
	}
	ctr->free++;
	bb_spin_iters(cost);
}

/* ------------------------------------------------------------------------
 * Prune, init, exit, reports
 * ------------------------------------------------------------------------ */
static unsigned prune_task_list(struct bb_bioset *bs, struct bb_bio_cache *c,
				unsigned n)
{
	unsigned done = 0;

	while (done < n && c->free_list) {
		struct bb_bio *bio = c->free_list;

		c->free_list = bio->bi_next;
		atomic_store_explicit(&c->nr, cache_nr(c) - 1,
				      memory_order_relaxed);
		bio->bi_next = NULL;
		bb_bio_free(bio, BB_CTX_TASK);
		bs->ctr_owner.prune++;
		done++;
	}
	return done;
}

static unsigned prune_cache(struct bb_bioset *bs, struct bb_bio_cache *c,
			    unsigned n)
{
	unsigned done = prune_task_list(bs, c, n);

	if (done < n && !c->free_list && c->splice(bs, c))
		done += prune_task_list(bs, c, n - done);
	return done;
}

unsigned bb_bio_alloc_cache_prune(struct bb_bioset *bs, unsigned n)
{
	return bs->cache ? prune_cache(bs, bs->cache, n) : 0;
}

static void *map_objs(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Map cap + nres objects: the slab hands out the first cap, the reserve
 * gets the last nres. */
static int slab_setup(struct bb_slab *s, struct bb_reserve *r, size_t obj_size,
		      unsigned cap, unsigned nres, void **map, size_t *map_len)
{
	size_t len = obj_size * ((size_t)cap + nres);

	*map = map_objs(len);
	if (!*map)
		return -ENOMEM;
	*map_len = len;
	s->base = *map;
	s->obj_size = obj_size;
	s->cap = cap;
	s->bump = 0;
	atomic_init(&s->free_head, NULL);
	if (r) {
		r->min_nr = nres;
		atomic_init(&r->guard, 0);
		atomic_init(&r->curr_nr, nres);
		if (nres) {
			r->elems = calloc(nres, sizeof(void *));
			if (!r->elems)
				return -ENOMEM;
		}
		for (unsigned i = 0; i < nres; i++)
			r->elems[i] = s->base + ((size_t)cap + i) * obj_size;
	}
	return 0;
}

int bb_bioset_init(struct bb_bioset *bs, const struct bb_bioset_params *p)
{
	const struct cache_variant *cv;
	struct bb_bioset_impl *im;
	unsigned slab_limit, bvec_limit;
	size_t raw;
	int ret;

	if (!bs)
		return -EINVAL;
	memset(bs, 0, sizeof(*bs));
	if (!p || (unsigned)p->cache >= BB_CACHE__COUNT ||
	    p->front_pad > BB_FRONT_PAD_MAX ||
	    p->front_pad % _Alignof(struct bb_bio))
		return -EINVAL;
	slab_limit = p->slab_limit ? p->slab_limit : BB_SLAB_LIMIT_DEFAULT;
	bvec_limit = p->bvec_slab_limit ? p->bvec_slab_limit
					: BB_BVEC_SLAB_LIMIT_DEFAULT;
	if (slab_limit > BB_UINT_MAX - p->pool_size ||
	    (p->need_bvecs && bvec_limit > BB_UINT_MAX - p->pool_size))
		return -EINVAL;

	bs->front_pad = p->front_pad;
	bs->back_pad = p->need_bvecs ? BB_BIO_INLINE_VECS * sizeof(struct bb_bvec)
				     : 0;
	raw = (size_t)bs->front_pad + sizeof(struct bb_bio) + bs->back_pad;
	bs->obj_size = (unsigned)((raw + BB_CACHELINE - 1) &
				  ~(size_t)(BB_CACHELINE - 1));
	bs->variant = p->cache;

	im = aligned_alloc(BB_CACHELINE,
			   (sizeof(*im) + BB_CACHELINE - 1) &
				   ~(size_t)(BB_CACHELINE - 1));
	if (!im)
		return -ENOMEM;
	memset(im, 0, sizeof(*im));
	bs->impl = im;
	im->slab_limit = slab_limit;
	im->bvec_slab_limit = p->need_bvecs ? bvec_limit : 0;
	im->pool_size = p->pool_size;
	im->need_bvecs = p->need_bvecs;
	im->cost_alloc = p->cost_alloc_iters;
	im->cost_free = p->cost_free_iters;
	im->cost_mempool = p->cost_mempool_iters;

	ret = slab_setup(&im->bio_slab, &im->bio_reserve, bs->obj_size,
			 slab_limit, p->pool_size, &im->bio_map,
			 &im->bio_map_len);
	if (ret)
		goto fail;
	if (p->need_bvecs) {
		for (unsigned cl = 0; cl < BB_BVEC_CLASSES; cl++) {
			bool last = cl == BB_BVEC_CLASSES - 1;

			ret = slab_setup(&im->bvec_slab[cl],
					 last ? &im->bvec_reserve : NULL,
					 bvec_class_nr[cl] * sizeof(struct bb_bvec),
					 bvec_limit, last ? p->pool_size : 0,
					 &im->bvec_map[cl],
					 &im->bvec_map_len[cl]);
			if (ret)
				goto fail;
		}
	}

	if (p->irq_local && p->remote_puts) {
		ret = -EINVAL;
		goto fail;
	}
	cv = &cache_variants[p->cache];
	for (int k = 0; k < 2; k++) {
		struct bb_bio_cache *c = k ? &im->cache_remote : &im->cache;

		atomic_init(&c->nr, 0);
		atomic_init(&c->free_list_irq, NULL);
		atomic_init(&c->guard, 0);
	}
	/* each cache is written by one thread, unless neither irq_local nor
	 * remote_puts (another thread pushes onto the owner's irq list) */
	bs->put_cache = p->irq_local || p->remote_puts ? cv->put_local : cv->put;
	im->cache.splice = p->irq_local || p->remote_puts ? cv->splice_local
							  : cv->splice;
	im->cache_remote.splice = cv->splice_local;
	bs->put_free = bb_bio_free;
	if (p->evict) {
		im->put_inner = bs->put_cache;
		if (bs->put_cache)
			bs->put_cache = put_cache_evict;
		bs->put_free = free_evict;
	}
	bs->clear_polled = cv->clear_polled;
	bs->starving_keep = cv->rob_reserve ? ~0u : ~BB_REQ_ALLOC_CACHE;
	if (p->cache != BB_CACHE_OFF) {
		bs->cache = &im->cache;
		bs->opf_auto = cv->opf_auto;
		bs->put_to[BB_CTX_TASK] = &im->cache;
		bs->put_to[BB_CTX_HARDIRQ] = bs->put_to[BB_CTX_SOFTIRQ] =
			p->remote_puts ? &im->cache_remote : &im->cache;
	}
	return 0;
fail:
	bb_bioset_exit(bs);
	return ret;
}

void bb_bioset_exit(struct bb_bioset *bs)
{
	struct bb_bioset_impl *im = bs->impl;

	if (!im)
		return;
	if (bs->cache && im->bio_map) {
		prune_cache(bs, &im->cache, BB_UINT_MAX);
		prune_cache(bs, &im->cache_remote, BB_UINT_MAX);
	}
	bs->cache = NULL;
	bs->put_cache = NULL;
	if (im->bio_map)
		munmap(im->bio_map, im->bio_map_len);
	for (unsigned cl = 0; cl < BB_BVEC_CLASSES; cl++)
		if (im->bvec_map[cl])
			munmap(im->bvec_map[cl], im->bvec_map_len[cl]);
	free(im->bio_reserve.elems);
	free(im->bvec_reserve.elems);
	free(im);
	bs->impl = NULL;
}

void bb_bioset_counters(const struct bb_bioset *bs,
			struct bb_cache_counters *out)
{
	memset(out, 0, sizeof(*out));
	bb_cache_counters_add(out, &bs->ctr_owner);
	bb_cache_counters_add(out, &bs->ctr_other);
}

void bb_bioset_cache_len(const struct bb_bioset *bs, unsigned *nr,
			 unsigned *nr_irq)
{
	struct bb_bio_cache *c = bs->cache;

	if (nr)
		*nr = c ? cache_nr(c) : 0;
	if (nr_irq)
		*nr_irq = c ? cache_nr_irq(c) : 0;
}

unsigned bb_bioset_reserve_len(const struct bb_bioset *bs)
{
	return bs->impl ? atomic_load_explicit(&bs->impl->bio_reserve.curr_nr,
					       memory_order_relaxed)
			: 0;
}

/* ------------------------------------------------------------------------
 * Consistency check (tests, leak checks; quiescent bioset, owner thread)
 * ------------------------------------------------------------------------ */
struct census_map {
	const struct bb_slab *s;
	unsigned total;
	unsigned char *seen;
};

/* Mark one free object; false if it is outside the mapping, misaligned or
 * already seen. */
static bool census_mark(struct census_map *m, const void *obj)
{
	const char *p = obj;
	size_t off, idx;

	if (p < m->s->base)
		return false;
	off = (size_t)(p - m->s->base);
	if (off % m->s->obj_size)
		return false;
	idx = off / m->s->obj_size;
	if (idx >= m->total || m->seen[idx])
		return false;
	m->seen[idx] = 1;
	return true;
}

/* Slab: bump area + free list.  Returns the count, or -1 on corruption. */
static long census_slab(struct census_map *m)
{
	const struct bb_slab *s = m->s;
	long n = 0;
	void *obj;

	for (unsigned i = s->bump; i < s->cap; i++, n++)
		if (!census_mark(m, s->base + (size_t)i * s->obj_size))
			return -1;
	obj = atomic_load_explicit(&((struct bb_slab *)s)->free_head,
				   memory_order_acquire);
	for (; obj; obj = *(void **)obj, n++)
		if (n > (long)m->total || !census_mark(m, obj))
			return -1;
	return n;
}

static long census_reserve(struct census_map *m, const struct bb_reserve *r)
{
	unsigned n = atomic_load_explicit(&((struct bb_reserve *)r)->curr_nr,
					  memory_order_relaxed);

	if (n > r->min_nr)
		return -1;
	for (unsigned i = 0; i < n; i++)
		if (!census_mark(m, r->elems[i]))
			return -1;
	return n;
}

/* A cache list: every bio must be cache-eligible, idle and ours. */
static long census_cache_list(struct census_map *m,
			      const struct bb_bioset *bs, struct bb_bio *bio)
{
	long n = 0;

	for (; bio; bio = bio->bi_next, n++) {
		if (n > (long)m->total ||
		    !census_mark(m, (char *)bio - bs->front_pad) ||
		    bio->bi_pool != bs || bio->bi_bdev ||
		    !(bio->bi_opf & BB_REQ_ALLOC_CACHE) ||
		    bio->bi_max_vecs > BB_BIO_INLINE_VECS)
			return -1;
	}
	return n;
}

/* Both lists of one cache, each checked against its count; -1 on
 * corruption. */
static int census_cache(struct census_map *m, const struct bb_bioset *bs,
			struct bb_bio_cache *c, unsigned *nr, unsigned *nr_irq)
{
	struct bb_bio *irq = atomic_load_explicit(&c->free_list_irq,
						  memory_order_acquire);
	long n;

	if ((n = census_cache_list(m, bs, c->free_list)) < 0 ||
	    (unsigned)n != cache_nr(c))
		return -1;
	*nr = (unsigned)n;
	if ((n = census_cache_list(m, bs, irq)) < 0 ||
	    (unsigned)n != irq_list_len(irq))
		return -1;
	*nr_irq = (unsigned)n;
	return 0;
}

int bb_bioset_check(const struct bb_bioset *bs, struct bb_bioset_census *out)
{
	unsigned remote_nr = 0, remote_irq = 0;
	const struct bb_bioset_impl *im = bs->impl;
	struct census_map m = { 0 };
	long n;
	int ret = -EUCLEAN;

	memset(out, 0, sizeof(*out));
	if (!im)
		return -EINVAL;

	m.s = &im->bio_slab;
	m.total = im->slab_limit + im->pool_size;
	m.seen = calloc(m.total, 1);
	if (!m.seen)
		return -ENOMEM;
	out->objs = m.total;
	if ((n = census_slab(&m)) < 0)
		goto out;
	out->slab_free = (unsigned)n;
	if ((n = census_reserve(&m, &im->bio_reserve)) < 0)
		goto out;
	out->reserve = (unsigned)n;
	if (bs->cache &&
	    (census_cache(&m, bs, bs->cache, &out->cache_nr,
			  &out->cache_nr_irq) ||
	     census_cache(&m, bs, (struct bb_bio_cache *)&im->cache_remote,
			  &remote_nr, &remote_irq)))
		goto out;
	out->cache_remote = remote_nr + remote_irq;

	for (unsigned cl = 0; cl < BB_BVEC_CLASSES && im->need_bvecs; cl++) {
		bool last = cl == BB_BVEC_CLASSES - 1;

		free(m.seen);
		m.s = &im->bvec_slab[cl];
		m.total = im->bvec_slab_limit + (last ? im->pool_size : 0);
		m.seen = calloc(m.total, 1);
		if (!m.seen) {
			ret = -ENOMEM;
			goto out;
		}
		out->bvec_objs[cl] = m.total;
		if ((n = census_slab(&m)) < 0)
			goto out;
		out->bvec_free[cl] = (unsigned)n;
		if (last) {
			if ((n = census_reserve(&m, &im->bvec_reserve)) < 0)
				goto out;
			out->bvec_reserve = (unsigned)n;
			out->bvec_free[cl] += (unsigned)n;
		}
	}
	ret = 0;
out:
	free(m.seen);
	return ret;
}
