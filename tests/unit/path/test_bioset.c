// SPDX-License-Identifier: GPL-2.0-only
/* test_bioset.c - bio allocation: slab, reserve, bvec classes and the bio
 * cache in every variant (compiled once per layout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "path/bioset.h"

/* ---- helpers ------------------------------------------------------------ */

static const char *const ctr_names[] = {
	"alloc_hit", "alloc_miss", "alloc_slab", "alloc_reserve",
	"alloc_fail", "splice", "splice_bios", "put_task", "put_irq",
	"put_free", "free", "reserve_refill", "bvec_alloc", "bvec_free",
	"prune",
};
_Static_assert(bb_array_size(ctr_names) ==
		       sizeof(struct bb_cache_counters) / sizeof(uint64_t),
	       "one name per counter");

static void check_ctr_(const struct bb_cache_counters *got,
		       const struct bb_cache_counters *want, const char *what,
		       const char *file, int line)
{
	const uint64_t *g = (const uint64_t *)got;
	const uint64_t *w = (const uint64_t *)want;
	bool bad = false;

	for (size_t i = 0; i < bb_array_size(ctr_names); i++) {
		if (g[i] != w[i]) {
			print_error("%s: %s = %llu, want %llu\n", what,
				    ctr_names[i], (unsigned long long)g[i],
				    (unsigned long long)w[i]);
			bad = true;
		}
	}
	if (bad)
		_fail(file, line);
}
#define check_ctr(got, want, what) \
	check_ctr_((got), (want), (what), __FILE__, __LINE__)

static void check_total_(const struct bb_bioset *bs,
			 const struct bb_cache_counters *want, const char *what,
			 const char *file, int line)
{
	struct bb_cache_counters got;

	bb_bioset_counters(bs, &got);
	check_ctr_(&got, want, what, file, line);
}
#define check_total(bs, want, what) \
	check_total_((bs), (want), (what), __FILE__, __LINE__)

/* Every object accounted: census consistent and
 * objs == slab_free + reserve + nr + nr_irq + outstanding. */
static void check_census_(const struct bb_bioset *bs, unsigned outstanding,
			  const char *file, int line)
{
	struct bb_bioset_census c;
	int ret = bb_bioset_check(bs, &c);

	if (ret) {
		print_error("bb_bioset_check: %d\n", ret);
		_fail(file, line);
	}
	if (c.objs != c.slab_free + c.reserve + c.cache_nr + c.cache_nr_irq +
			      c.cache_remote + outstanding) {
		print_error("census: objs %u != slab %u + reserve %u + nr %u + "
			    "nr_irq %u + remote %u + outstanding %u\n",
			    c.objs, c.slab_free, c.reserve, c.cache_nr,
			    c.cache_nr_irq, c.cache_remote, outstanding);
		_fail(file, line);
	}
}
#define check_census(bs, out) check_census_((bs), (out), __FILE__, __LINE__)

static void check_len_(const struct bb_bioset *bs, unsigned nr,
		       unsigned nr_irq, const char *file, int line)
{
	unsigned a, b;

	bb_bioset_cache_len(bs, &a, &b);
	if (a != nr || b != nr_irq) {
		print_error("cache len nr %u nr_irq %u, want %u %u\n", a, b, nr,
			    nr_irq);
		_fail(file, line);
	}
}
#define check_len(bs, nr, irq) check_len_((bs), (nr), (irq), __FILE__, __LINE__)

static int mkbs(struct bb_bioset *bs, enum bb_cache_variant v,
		unsigned pool, unsigned slab_limit, bool bvecs)
{
	struct bb_bioset_params p = {
		.pool_size = pool,
		.front_pad = 0,
		.need_bvecs = bvecs,
		.cache = v,
		.slab_limit = slab_limit,
	};
	return bb_bioset_init(bs, &p);
}

static char dev_a, dev_b; /* stand-ins for targets */

/* ---- table-driven sequences --------------------------------------------- */

enum op_kind { OP_END = 0, OP_ALLOC, OP_PUT, OP_PRUNE };
struct op {
	enum op_kind k;
	unsigned n;
	enum bb_ctx ctx;
	uint32_t opf;
	unsigned expect; /* OP_PRUNE: return value */
};
#define A(n) { OP_ALLOC, (n), BB_CTX_TASK, 0, 0 }
#define AF(n, f) { OP_ALLOC, (n), BB_CTX_TASK, (f), 0 }
#define PT(n) { OP_PUT, (n), BB_CTX_TASK, 0, 0 }
#define PH(n) { OP_PUT, (n), BB_CTX_HARDIRQ, 0, 0 }
#define PS(n) { OP_PUT, (n), BB_CTX_SOFTIRQ, 0, 0 }
#define PRUNE(n, e) { OP_PRUNE, (n), BB_CTX_TASK, 0, (e) }

struct scenario {
	const char *name;
	enum bb_cache_variant v;
	struct op ops[8];
	struct bb_cache_counters total; /* both sides */
	struct bb_cache_counters other; /* HARDIRQ/SOFTIRQ side only */
	unsigned nr, nr_irq, outstanding;
};

#define C(...) ((struct bb_cache_counters){ __VA_ARGS__ })

#define SPLICE_15(V)                                                          \
	{ #V ": 15 on the irq list + empty task list = miss", V,              \
	  { A(15), PH(15), A(1) },                                            \
	  C(.alloc_miss = 16, .alloc_slab = 16, .put_irq = 15),               \
	  C(.put_irq = 15), 0, 15, 1 }
#define SPLICE_16(V)                                                          \
	{ #V ": 16 on the irq list = splice and hit", V,                      \
	  { A(16), PH(16), A(1) },                                            \
	  C(.alloc_miss = 16, .alloc_slab = 16, .put_irq = 16, .splice = 1,   \
	    .splice_bios = 16, .alloc_hit = 1),                               \
	  C(.put_irq = 16), 15, 0, 1 }
#define SPLICE_WAIT(V)                                                        \
	{ #V ": splice only once the task list is empty", V,                  \
	  { AF(1, BB_REQ_POLLED), A(16), PH(16), PT(1), A(2) },               \
	  C(.alloc_miss = 17, .alloc_slab = 17, .put_irq = 16, .put_task = 1, \
	    .alloc_hit = 2, .splice = 1, .splice_bios = 16),                  \
	  C(.put_irq = 16), 15, 0, 2 }
#define CAP_IRQ(V)                                                            \
	{ #V ": cap on the irq list: 257 resident, then freed", V,            \
	  { A(259), PH(259) },                                                \
	  C(.alloc_miss = 259, .alloc_slab = 259, .put_irq = 257,             \
	    .put_free = 2, .free = 2),                                        \
	  C(.put_irq = 257, .put_free = 2, .free = 2), 0, 257, 0 }

/* Allocations pass what io_uring of the variant's kernel passes
 * (bb_bioset_caller_opf: polled or not by the op's REQ_POLLED). */
static const struct scenario scenarios[] = {
	{ "off: never caches, any context", BB_CACHE_OFF,
	  { A(3), PT(3), A(2), PH(2), A(1) },
	  C(.alloc_slab = 6, .free = 5),
	  C(.free = 2), 0, 0, 1 },
	{ "task: polled task-context puts cached and reused", BB_CACHE_TASK,
	  { AF(3, BB_REQ_POLLED), PT(3), AF(3, BB_REQ_POLLED), PT(3) },
	  C(.alloc_miss = 3, .alloc_slab = 3, .alloc_hit = 3, .put_task = 6),
	  C(0), 3, 0, 0 },
	{ "task: a non-polled bio never uses the cache and is freed (6.1)",
	  BB_CACHE_TASK,
	  { AF(2, BB_REQ_POLLED), PT(2), A(3), PT(3), A(1) },
	  C(.alloc_miss = 2, .alloc_slab = 6, .put_task = 2, .free = 3),
	  C(0), 2, 0, 1 },
	{ "task: HARDIRQ puts are freed", BB_CACHE_TASK,
	  { AF(3, BB_REQ_POLLED), PH(3), AF(1, BB_REQ_POLLED) },
	  C(.alloc_miss = 4, .alloc_slab = 4, .put_free = 3, .free = 3),
	  C(.put_free = 3, .free = 3), 0, 0, 1 },
	{ "task: SOFTIRQ puts are freed", BB_CACHE_TASK,
	  { AF(2, BB_REQ_POLLED), PS(2) },
	  C(.alloc_miss = 2, .alloc_slab = 2, .put_free = 2, .free = 2),
	  C(.put_free = 2, .free = 2), 0, 0, 0 },
	{ "task: 16 HARDIRQ puts never splice", BB_CACHE_TASK,
	  { AF(16, BB_REQ_POLLED), PH(16), AF(1, BB_REQ_POLLED) },
	  C(.alloc_miss = 17, .alloc_slab = 17, .put_free = 16, .free = 16),
	  C(.put_free = 16, .free = 16), 0, 0, 1 },
	{ "task: 600 polled allocs, 600 task puts: 536 cached, 64 pruned (6.1)",
	  BB_CACHE_TASK,
	  { AF(600, BB_REQ_POLLED), PT(600) },
	  C(.alloc_miss = 600, .alloc_slab = 600, .put_task = 600,
	    .prune = 64, .free = 64),
	  C(0), 536, 0, 0 },
	{ "task: 576 resident, the 577th put prunes 64", BB_CACHE_TASK,
	  { AF(577, BB_REQ_POLLED), PT(577) },
	  C(.alloc_miss = 577, .alloc_slab = 577, .put_task = 577,
	    .prune = 64, .free = 64),
	  C(0), 513, 0, 0 },
	{ "irq: non-polled task put goes to the irq list", BB_CACHE_IRQ,
	  { A(3), PT(3), A(1) },
	  C(.alloc_miss = 4, .alloc_slab = 4, .put_irq = 3),
	  C(0), 0, 3, 1 },
	{ "irq: polled task put goes to the task list", BB_CACHE_IRQ,
	  { AF(3, BB_REQ_POLLED), PT(3), A(3) },
	  C(.alloc_miss = 3, .alloc_slab = 3, .put_task = 3, .alloc_hit = 3),
	  C(0), 0, 0, 3 },
	{ "irq: polled HARDIRQ and any SOFTIRQ put go to the irq list",
	  BB_CACHE_IRQ,
	  { A(2), AF(2, BB_REQ_POLLED), PH(2), PS(2) },
	  C(.alloc_miss = 4, .alloc_slab = 4, .put_irq = 4),
	  C(.put_irq = 4), 0, 4, 0 },
	{ "irq_fast: task->task list, HARDIRQ->irq list, SOFTIRQ freed",
	  BB_CACHE_IRQ_FAST,
	  { A(6), PT(2), PH(2), PS(2) },
	  C(.alloc_miss = 6, .alloc_slab = 6, .put_task = 2, .put_irq = 2,
	    .put_free = 2, .free = 2),
	  C(.put_irq = 2, .put_free = 2, .free = 2), 2, 2, 0 },
	{ "all: task->task list, HARDIRQ->irq list, SOFTIRQ freed",
	  BB_CACHE_ALL,
	  { A(6), PT(2), PH(2), PS(2) },
	  C(.alloc_miss = 6, .alloc_slab = 6, .put_task = 2, .put_irq = 2,
	    .put_free = 2, .free = 2),
	  C(.put_irq = 2, .put_free = 2, .free = 2), 2, 2, 0 },
	{ "irq_fast: polled and non-polled task puts both to the task list",
	  BB_CACHE_IRQ_FAST,
	  { AF(2, BB_REQ_POLLED), A(2), PT(4) },
	  C(.alloc_miss = 4, .alloc_slab = 4, .put_task = 4),
	  C(0), 4, 0, 0 },
	SPLICE_15(BB_CACHE_IRQ),
	SPLICE_15(BB_CACHE_IRQ_FAST),
	SPLICE_15(BB_CACHE_ALL),
	SPLICE_16(BB_CACHE_IRQ),
	SPLICE_16(BB_CACHE_IRQ_FAST),
	SPLICE_16(BB_CACHE_ALL),
	SPLICE_WAIT(BB_CACHE_IRQ),
	SPLICE_WAIT(BB_CACHE_IRQ_FAST),
	SPLICE_WAIT(BB_CACHE_ALL),
	{ "irq_fast: a splice moves the whole irq list", BB_CACHE_IRQ_FAST,
	  { A(20), PH(20), A(17) },
	  C(.alloc_miss = 20, .alloc_slab = 20, .put_irq = 20, .splice = 1,
	    .splice_bios = 20, .alloc_hit = 17),
	  C(.put_irq = 20), 3, 0, 17 },
	{ "irq: splice of task puts parked on the irq list", BB_CACHE_IRQ,
	  { A(16), PT(16), A(2) },
	  C(.alloc_miss = 16, .alloc_slab = 16, .put_irq = 16, .splice = 1,
	    .splice_bios = 16, .alloc_hit = 2),
	  C(0), 14, 0, 2 },
	{ "irq_fast: cap: 257 resident, the 258th put freed",
	  BB_CACHE_IRQ_FAST,
	  { A(258), PT(258) },
	  C(.alloc_miss = 258, .alloc_slab = 258, .put_task = 257,
	    .put_free = 1, .free = 1),
	  C(0), 257, 0, 0 },
	{ "irq_fast: cap counts both lists (57 irq + 200 task)",
	  BB_CACHE_IRQ_FAST,
	  { A(258), PH(57), PT(201) },
	  C(.alloc_miss = 258, .alloc_slab = 258, .put_irq = 57,
	    .put_task = 200, .put_free = 1, .free = 1),
	  C(.put_irq = 57), 200, 57, 0 },
	CAP_IRQ(BB_CACHE_IRQ),
	CAP_IRQ(BB_CACHE_IRQ_FAST),
	CAP_IRQ(BB_CACHE_ALL),
	{ "irq_fast: prune task list first, then the irq list",
	  BB_CACHE_IRQ_FAST,
	  { A(20), PH(10), PT(10), PRUNE(4, 4), PRUNE(100, 16), PRUNE(5, 0) },
	  C(.alloc_miss = 20, .alloc_slab = 20, .put_irq = 10, .put_task = 10,
	    .prune = 20, .free = 20, .splice = 1, .splice_bios = 10),
	  C(.put_irq = 10), 0, 0, 0 },
	{ "irq_fast: prune with an empty task list splices a short irq list",
	  BB_CACHE_IRQ_FAST,
	  { A(3), PH(3), PRUNE(2, 2) },
	  C(.alloc_miss = 3, .alloc_slab = 3, .put_irq = 3, .splice = 1,
	    .splice_bios = 3, .prune = 2, .free = 2),
	  C(.put_irq = 3), 1, 0, 0 },
	{ "irq: prune everything", BB_CACHE_IRQ,
	  { A(5), PT(5), PRUNE(~0u, 5) },
	  C(.alloc_miss = 5, .alloc_slab = 5, .put_irq = 5, .splice = 1,
	    .splice_bios = 5, .prune = 5, .free = 5),
	  C(0), 0, 0, 0 },
	{ "off: prune does nothing", BB_CACHE_OFF,
	  { A(2), PT(2), PRUNE(10, 0) },
	  C(.alloc_slab = 2, .free = 2),
	  C(0), 0, 0, 0 },
};

static void run_scenario(const struct scenario *s)
{
	static struct bb_bio *out[1024];
	struct bb_bioset bs;
	unsigned nout = 0;

	assert_int_equal(mkbs(&bs, s->v, 2, 0, true), 0);
	for (const struct op *op = s->ops; op->k != OP_END; op++) {
		switch (op->k) {
		case OP_ALLOC:
			for (unsigned i = 0; i < op->n; i++) {
				uint32_t opf = BB_REQ_OP_READ | op->opf |
					       bb_bioset_caller_opf(
						       s->v, op->opf & BB_REQ_POLLED);
				struct bb_bio *bio = bb_bio_alloc_bioset(
					&bs, &dev_a, 1, opf);

				assert_non_null(bio);
				assert_true(nout < bb_array_size(out));
				out[nout++] = bio;
			}
			break;
		case OP_PUT:
			assert_true(op->n <= nout);
			for (unsigned i = 0; i < op->n; i++)
				bb_bio_put(out[--nout], op->ctx);
			break;
		case OP_PRUNE:
			assert_int_equal(bb_bio_alloc_cache_prune(&bs, op->n),
					 op->expect);
			break;
		default:
			break;
		}
	}
	check_total(&bs, &s->total, s->name);
	check_ctr(&bs.ctr_other, &s->other, s->name);
	check_len(&bs, s->nr, s->nr_irq);
	assert_int_equal(nout, s->outstanding);
	check_census(&bs, nout);
	assert_int_equal(bb_bioset_reserve_len(&bs), 2);
	bb_bioset_exit(&bs);
}

static void test_scenarios(void **state)
{
	(void)state;
	for (size_t i = 0; i < bb_array_size(scenarios); i++) {
		print_message("  %s\n", scenarios[i].name);
		run_scenario(&scenarios[i]);
	}
}

/* ---- init, layout of objects, flags ------------------------------------- */

static void test_init_params(void **state)
{
	struct bb_bioset bs;
	struct bb_bioset_params p = { .pool_size = 2, .cache = BB_CACHE__COUNT };

	(void)state;
	assert_int_equal(bb_bioset_init(&bs, NULL), -EINVAL);
	assert_int_equal(bb_bioset_init(&bs, &p), -EINVAL);
	p.cache = BB_CACHE_ALL;
	p.front_pad = 1u << 24;
	assert_int_equal(bb_bioset_init(&bs, &p), -EINVAL);
	p.front_pad = 57; /* the bio would be misaligned */
	assert_int_equal(bb_bioset_init(&bs, &p), -EINVAL);
	bb_bioset_exit(&bs); /* harmless after a failed init */

	/* object sizes: round_up(front_pad + 136 + back_pad, 64) */
	static const struct { unsigned fp; bool bv; unsigned size, back; } sz[] = {
		{ 0, true, 256, 64 }, { 0, false, 192, 0 },
		{ 8, false, 192, 0 }, { 56, false, 192, 0 },
		{ 64, false, 256, 0 }, { 64, true, 320, 64 },
	};
	for (size_t i = 0; i < bb_array_size(sz); i++) {
		struct bb_bio *bio;

		p.front_pad = sz[i].fp;
		p.need_bvecs = sz[i].bv;
		assert_int_equal(bb_bioset_init(&bs, &p), 0);
		assert_int_equal(bs.obj_size, sz[i].size);
		assert_int_equal(bs.back_pad, sz[i].back);
		assert_int_equal(bs.front_pad, sz[i].fp);
		assert_int_equal(bs.variant, BB_CACHE_ALL);
		assert_non_null(bs.cache);
		assert_non_null(bs.put_cache);
		for (int k = 0; k < 3; k++) {
			bio = bb_bio_alloc_bioset(&bs, &dev_a, 0, 0);
			assert_non_null(bio);
			assert_int_equal(((uintptr_t)bio - sz[i].fp) % 64, 0);
			memset((char *)bio - sz[i].fp, 0xa5, bs.obj_size);
			bio->bi_opf = BB_REQ_ALLOC_CACHE;
			bio->bi_pool = &bs;
			bio->bi_flags = 0;
			bio->bi_max_vecs = 0;
			bb_bio_free(bio, BB_CTX_TASK);
		}
		bb_bioset_exit(&bs);
	}

	p.cache = BB_CACHE_OFF;
	assert_int_equal(bb_bioset_init(&bs, &p), 0);
	assert_null(bs.cache);
	assert_null(bs.put_cache);
	bb_bioset_exit(&bs);
}

static void test_alloc_init_and_flags(void **state)
{
	struct bb_bioset bs, off, opt;
	struct bb_bio *bio;

	(void)state;
	assert_int_equal(mkbs(&bs, BB_CACHE_ALL, 2, 0, true), 0);
	assert_int_equal(mkbs(&off, BB_CACHE_OFF, 2, 0, true), 0);
	assert_int_equal(mkbs(&opt, BB_CACHE_IRQ_FAST, 2, 0, true), 0);

	/* all: the allocator sets REQ_ALLOC_CACHE with a cache, clears it
	 * without */
	bio = bb_bio_alloc_bioset(&bs, &dev_a, 2,
				  BB_REQ_OP_WRITE | BB_REQ_SYNC);
	assert_non_null(bio);
	assert_int_equal(bio->bi_opf,
			 BB_REQ_OP_WRITE | BB_REQ_SYNC | BB_REQ_ALLOC_CACHE);
	assert_ptr_equal(bio->bi_pool, &bs);
	assert_ptr_equal(bio->bi_bdev, &dev_a);
	assert_ptr_equal(bio->bi_io_vec, (struct bb_bvec *)(bio + 1));
	assert_int_equal(bio->bi_max_vecs, 2);
	assert_int_equal(bio->bi_vcnt, 0);
	assert_int_equal(bio->bi_cookie, BB_BLK_QC_T_NONE);
	assert_int_equal(atomic_load(&bio->__bi_cnt), 1);
	assert_int_equal(atomic_load(&bio->__bi_remaining), 1);
	bb_bio_put(bio, BB_CTX_TASK);

	/* a cache hit is re-initialised: no stale state survives */
	bio = bb_bio_alloc_bioset(&bs, &dev_b, 0, BB_REQ_OP_READ);
	assert_non_null(bio);
	assert_null(bio->bi_next);
	assert_ptr_equal(bio->bi_bdev, &dev_b);
	assert_null(bio->bi_io_vec);
	assert_int_equal(bio->bi_max_vecs, 0);
	assert_int_equal(bio->bi_opf, BB_REQ_OP_READ | BB_REQ_ALLOC_CACHE);
	assert_int_equal(bs.ctr_owner.alloc_hit, 1);

	/* a bio on the cache lists has no device */
	bb_bio_put(bio, BB_CTX_HARDIRQ);
	assert_null(bio->bi_bdev);

	bio = bb_bio_alloc_bioset(&off, &dev_a, 4,
				  BB_REQ_OP_READ | BB_REQ_ALLOC_CACHE);
	assert_non_null(bio);
	assert_int_equal(bio->bi_opf, BB_REQ_OP_READ);
	assert_int_equal(bio->bi_max_vecs, 4);
	bb_bio_put(bio, BB_CTX_TASK);

	/* > 4 vecs is never cache-eligible */
	bio = bb_bio_alloc_bioset(&bs, &dev_a, 5,
				  BB_REQ_OP_READ | BB_REQ_ALLOC_CACHE);
	assert_non_null(bio);
	assert_int_equal(bio->bi_opf, BB_REQ_OP_READ);
	bb_bio_put(bio, BB_CTX_TASK);

	/* > 256 vecs: NULL, nothing counted */
	struct bb_cache_counters before, after;
	bb_bioset_counters(&bs, &before);
	assert_null(bb_bio_alloc_bioset(&bs, &dev_a, 257, 0));
	bb_bioset_counters(&bs, &after);
	check_ctr(&after, &before, "257 vecs");

	/* 6.2 .. 6.18 (irq_fast): the caller asks for the cache; without
	 * REQ_ALLOC_CACHE the bio neither uses nor joins it */
	bio = bb_bio_alloc_bioset(&opt, &dev_a, 1, BB_REQ_OP_READ);
	assert_non_null(bio);
	assert_int_equal(bio->bi_opf, BB_REQ_OP_READ);
	bb_bio_put(bio, BB_CTX_TASK);
	check_len(&opt, 0, 0);
	bio = bb_bio_alloc_bioset(&opt, &dev_a, 1,
				  BB_REQ_OP_READ | BB_REQ_ALLOC_CACHE);
	assert_non_null(bio);
	assert_int_equal(bio->bi_opf, BB_REQ_OP_READ | BB_REQ_ALLOC_CACHE);
	bb_bio_put(bio, BB_CTX_TASK);
	check_len(&opt, 1, 0);
	/* a cached bio is not handed to a caller that did not ask */
	bio = bb_bio_alloc_bioset(&opt, &dev_a, 1, BB_REQ_OP_READ);
	assert_non_null(bio);
	assert_int_equal(bio->bi_opf, BB_REQ_OP_READ);
	check_len(&opt, 1, 0);
	bb_bio_put(bio, BB_CTX_TASK);
	check_total(&opt, &C(.alloc_slab = 3, .alloc_miss = 1, .put_task = 1,
			     .free = 2),
		    "irq_fast opt-in");

	check_census(&bs, 0);
	check_census(&off, 0);
	check_census(&opt, 0);
	bb_bioset_exit(&bs);
	bb_bioset_exit(&off);
	bb_bioset_exit(&opt);

	/* no bvecs: only 0-vec bios */
	assert_int_equal(mkbs(&bs, BB_CACHE_ALL, 2, 0, false), 0);
	assert_null(bb_bio_alloc_bioset(&bs, &dev_a, 1, 0));
	bio = bb_bio_alloc_bioset(&bs, &dev_a, 0, 0);
	assert_non_null(bio);
	assert_null(bio->bi_io_vec);
	bb_bio_put(bio, BB_CTX_TASK);
	check_total(&bs, &C(.alloc_miss = 1, .alloc_slab = 1, .put_task = 1),
		    "no bvecs");
	bb_bioset_exit(&bs);
}

/* What a caller of each kernel passes (io_uring, block/fops.c). */
static void test_caller_opf(void **state)
{
	static const struct {
		enum bb_cache_variant v;
		uint32_t polled, irq;
		enum bb_cache_variant split;
	} t[] = {
		{ BB_CACHE_OFF, 0, 0, BB_CACHE_OFF },
		{ BB_CACHE_TASK, BB_REQ_ALLOC_CACHE, 0, BB_CACHE_OFF },
		{ BB_CACHE_IRQ, BB_REQ_ALLOC_CACHE, BB_REQ_ALLOC_CACHE,
		  BB_CACHE_OFF },
		{ BB_CACHE_IRQ_FAST, BB_REQ_ALLOC_CACHE, BB_REQ_ALLOC_CACHE,
		  BB_CACHE_OFF },
		{ BB_CACHE_ALL, 0, 0, BB_CACHE_OFF },
		{ BB_CACHE_ALL_SPLIT, 0, 0, BB_CACHE_ALL_SPLIT },
	};

	(void)state;
	assert_int_equal(bb_array_size(t), BB_CACHE__COUNT);
	for (size_t i = 0; i < bb_array_size(t); i++) {
		assert_int_equal(bb_bioset_caller_opf(t[i].v, true), t[i].polled);
		assert_int_equal(bb_bioset_caller_opf(t[i].v, false), t[i].irq);
		assert_int_equal(bb_bioset_split_variant(t[i].v), t[i].split);
	}
}

/* ---- bvec arrays -------------------------------------------------------- */

static void test_bvec_classes(void **state)
{
	static const struct { unsigned nr, max; } cls[] = {
		{ 0, 0 }, { 1, 1 }, { 3, 3 }, { 4, 4 },
		{ 5, 16 }, { 16, 16 }, { 17, 64 }, { 64, 64 },
		{ 65, 128 }, { 128, 128 }, { 129, 256 }, { 256, 256 },
	};
	struct bb_bioset bs;
	unsigned ext = 0;

	(void)state;
	assert_int_equal(mkbs(&bs, BB_CACHE_ALL, 2, 0, true), 0);
	for (size_t i = 0; i < bb_array_size(cls); i++) {
		struct bb_bio *bio = bb_bio_alloc_bioset(&bs, &dev_a, cls[i].nr,
							 BB_REQ_OP_READ);
		bool inl = cls[i].nr <= BB_BIO_INLINE_VECS;

		assert_non_null(bio);
		assert_int_equal(bio->bi_max_vecs, cls[i].max);
		if (!cls[i].nr)
			assert_null(bio->bi_io_vec);
		else if (inl)
			assert_ptr_equal(bio->bi_io_vec,
					 (struct bb_bvec *)(bio + 1));
		else
			assert_true(bio->bi_io_vec != (struct bb_bvec *)(bio + 1));
		assert_int_equal(!!(bio->bi_opf & BB_REQ_ALLOC_CACHE), inl);
		/* the whole table is writable */
		for (unsigned v = 0; v < bio->bi_max_vecs; v++) {
			bio->bi_io_vec[v].bv_page = bio;
			bio->bi_io_vec[v].bv_len = 4096;
			bio->bi_io_vec[v].bv_offset = v;
		}
		if (!inl)
			ext++;
		bb_bio_put(bio, BB_CTX_TASK);
	}
	/* 8 external arrays, allocated and freed, never cached; the 0..4-vec
	 * bios are: the first misses, each put refills the task list, so the
	 * next three hit. */
	assert_int_equal(ext, 8);
	check_total(&bs,
		    &C(.alloc_miss = 1, .alloc_hit = 3, .alloc_slab = 9,
		       .put_task = 4, .free = 8, .bvec_alloc = 8,
		       .bvec_free = 8),
		    "bvec classes");
	check_len(&bs, 1, 0);
	check_census(&bs, 0);
	bb_bioset_exit(&bs);
}

/* bvec slab exhausted: class slab -> biovec-max slab -> bvec reserve. */
static void test_bvec_fallback(void **state)
{
	struct bb_bioset_params p = {
		.pool_size = 2, .need_bvecs = true, .cache = BB_CACHE_ALL,
		.bvec_slab_limit = 2,
	};
	struct bb_bioset bs;
	struct bb_bio *b[7];
	struct bb_bioset_census c;
	static const unsigned want_max[6] = { 16, 16, 256, 256, 256, 256 };

	(void)state;
	assert_int_equal(bb_bioset_init(&bs, &p), 0);
	for (int i = 0; i < 6; i++) {
		b[i] = bb_bio_alloc_bioset(&bs, &dev_a, 16, BB_REQ_OP_READ);
		assert_non_null(b[i]);
		assert_int_equal(b[i]->bi_max_vecs, want_max[i]);
	}
	assert_int_equal(bb_bioset_check(&bs, &c), 0);
	assert_int_equal(c.bvec_free[0], 0);
	assert_int_equal(c.bvec_free[3], 0);
	assert_int_equal(c.bvec_reserve, 0);
	assert_int_equal(c.bvec_free[1], 2);
	/* nothing left for a 7th: the bio object is given back */
	assert_null(bb_bio_alloc_bioset(&bs, &dev_a, 16, BB_REQ_OP_READ));
	check_total(&bs, &C(.alloc_slab = 6, .bvec_alloc = 6, .alloc_fail = 1),
		    "bvec exhausted");
	check_census(&bs, 6);
	/* small vec counts still work */
	b[6] = bb_bio_alloc_bioset(&bs, &dev_a, 2, BB_REQ_OP_READ);
	assert_non_null(b[6]);
	for (int i = 0; i < 7; i++)
		bb_bio_put(b[i], i & 1 ? BB_CTX_HARDIRQ : BB_CTX_TASK);
	assert_int_equal(bb_bioset_check(&bs, &c), 0);
	for (int cl = 0; cl < 4; cl++)
		assert_int_equal(c.bvec_free[cl], c.bvec_objs[cl]);
	assert_int_equal(c.bvec_objs[3], 4);
	assert_int_equal(c.bvec_reserve, 2);
	check_total(&bs,
		    &C(.alloc_slab = 7, .alloc_miss = 1, .bvec_alloc = 6,
		       .alloc_fail = 1, .bvec_free = 6, .free = 6,
		       .put_task = 1),
		    "bvec freed");
	check_census(&bs, 0);
	bb_bioset_exit(&bs);
}

/* ---- reserve ------------------------------------------------------------ */

/* A read as io_uring of 6.2 .. 6.18 issues it: asking for the cache. */
#define RD_CACHE (BB_REQ_OP_READ | BB_REQ_ALLOC_CACHE)

static void test_reserve(void **state)
{
	struct bb_bioset bs;
	struct bb_bio *s[4], *r[2];

	(void)state;
	assert_int_equal(mkbs(&bs, BB_CACHE_IRQ_FAST, 2, 4, true), 0);
	assert_int_equal(bb_bioset_reserve_len(&bs), 2);
	for (int i = 0; i < 4; i++) {
		s[i] = bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE);
		assert_non_null(s[i]);
		assert_true(s[i]->bi_opf & BB_REQ_ALLOC_CACHE);
	}
	check_census(&bs, 4);
	/* slab exhausted: the reserve, and REQ_ALLOC_CACHE cleared */
	for (int i = 0; i < 2; i++) {
		r[i] = bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE);
		assert_non_null(r[i]);
		assert_false(r[i]->bi_opf & BB_REQ_ALLOC_CACHE);
		assert_int_equal(bb_bioset_reserve_len(&bs), 1 - i);
	}
	assert_null(bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE));
	check_total(&bs,
		    &C(.alloc_miss = 7, .alloc_slab = 4, .alloc_reserve = 2,
		       .alloc_fail = 1),
		    "exhausted");
	check_census(&bs, 6);

	/* a reserve bio is freed (refilling the reserve), not cached */
	bb_bio_put(r[0], BB_CTX_TASK);
	assert_int_equal(bb_bioset_reserve_len(&bs), 1);
	check_len(&bs, 0, 0);
	/* a slab bio is cached */
	bb_bio_put(s[0], BB_CTX_TASK);
	check_len(&bs, 1, 0);
	assert_int_equal(bb_bioset_reserve_len(&bs), 1);
	/* from the completion thread too */
	bb_bio_put(r[1], BB_CTX_HARDIRQ);
	assert_int_equal(bb_bioset_reserve_len(&bs), 2);
	check_len(&bs, 1, 0);
	check_total(&bs,
		    &C(.alloc_miss = 7, .alloc_slab = 4, .alloc_reserve = 2,
		       .alloc_fail = 1, .free = 2, .reserve_refill = 2,
		       .put_task = 1),
		    "refilled");
	check_ctr(&bs.ctr_other, &C(.free = 1, .reserve_refill = 1), "other");
	check_census(&bs, 3);

	/* the cached bio is reused; then the reserve again */
	s[0] = bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE);
	assert_non_null(s[0]);
	assert_true(s[0]->bi_opf & BB_REQ_ALLOC_CACHE);
	r[0] = bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE);
	assert_non_null(r[0]);
	assert_false(r[0]->bi_opf & BB_REQ_ALLOC_CACHE);
	assert_int_equal(bb_bioset_reserve_len(&bs), 1);

	/* cached slab bios, pruned while the reserve is low, refill it
	 * first; later frees go to the slab */
	for (int i = 0; i < 4; i++)
		bb_bio_put(s[i], BB_CTX_TASK);
	check_len(&bs, 4, 0);
	assert_int_equal(bb_bio_alloc_cache_prune(&bs, 2), 2);
	assert_int_equal(bb_bioset_reserve_len(&bs), 2);
	bb_bio_put(r[0], BB_CTX_TASK);
	assert_int_equal(bb_bioset_reserve_len(&bs), 2);
	check_total(&bs,
		    &C(.alloc_miss = 8, .alloc_hit = 1, .alloc_slab = 4,
		       .alloc_reserve = 3, .alloc_fail = 1, .free = 5,
		       .reserve_refill = 3, .put_task = 5, .prune = 2),
		    "pruned");
	check_census(&bs, 0);
	/* 2 cached, 2 in the slab: exactly 4 more, then the reserve */
	for (int i = 0; i < 4; i++) {
		s[i] = bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE);
		assert_non_null(s[i]);
		assert_true(s[i]->bi_opf & BB_REQ_ALLOC_CACHE);
	}
	r[0] = bb_bio_alloc_bioset(&bs, &dev_a, 1, RD_CACHE);
	assert_non_null(r[0]);
	assert_false(r[0]->bi_opf & BB_REQ_ALLOC_CACHE);
	assert_int_equal(bb_bioset_reserve_len(&bs), 1);
	check_total(&bs,
		    &C(.alloc_miss = 11, .alloc_hit = 3, .alloc_slab = 6,
		       .alloc_reserve = 4, .alloc_fail = 1, .free = 5,
		       .reserve_refill = 3, .put_task = 5, .prune = 2),
		    "again");
	check_census(&bs, 5);
	bb_bioset_exit(&bs);
}

/* The model's slab is finite: a bio the cache cannot serve (bvecs beyond
 * the inline ones, or no REQ_ALLOC_CACHE) must not fail for good while
 * idle bios sit in the cache and the slab and reserve are empty.  It
 * gives some back (task list first, then the irq list) and retries. */
static void test_reclaim(void **state)
{
	static const enum bb_cache_variant vs[] = {
		BB_CACHE_TASK, BB_CACHE_IRQ, BB_CACHE_IRQ_FAST, BB_CACHE_ALL,
	};
	static const struct {
		unsigned nr_vecs;
		uint32_t opf; /* REQ_ALLOC_CACHE of the caller, or none */
		enum bb_ctx put_ctx;
	} ks[] = {
		{ 8, BB_REQ_ALLOC_CACHE, BB_CTX_TASK },
		{ 1, 0, BB_CTX_TASK },
		{ 8, BB_REQ_ALLOC_CACHE, BB_CTX_HARDIRQ },
	};

	(void)state;
	for (size_t vi = 0; vi < bb_array_size(vs); vi++) {
		for (size_t ki = 0; ki < bb_array_size(ks); ki++) {
			struct bb_bioset bs;
			struct bb_bio *s[6], *big[4];
			/* the task variant caches task puts only */
			enum bb_ctx ctx = vs[vi] == BB_CACHE_TASK ?
						  BB_CTX_TASK :
						  ks[ki].put_ctx;
			uint32_t copf = BB_REQ_OP_READ |
					bb_bioset_caller_opf(vs[vi], true);
			struct bb_cache_counters t;
			struct bb_bioset_census c;

			if (vs[vi] == BB_CACHE_ALL && !ks[ki].opf &&
			    ks[ki].nr_vecs <= BB_BIO_INLINE_VECS)
				continue; /* all caches every small bio */
			assert_int_equal(mkbs(&bs, vs[vi], 2, 4, true), 0);
			/* 4 slab bios cached, 2 reserve bios held */
			for (int i = 0; i < 6; i++)
				assert_non_null(s[i] = bb_bio_alloc_bioset(
							&bs, &dev_a, 1, copf));
			for (int i = 0; i < 4; i++)
				bb_bio_put(s[i], ctx);
			/* (which list depends on the variant) */
			assert_int_equal(bb_bioset_check(&bs, &c), 0);
			assert_int_equal(c.cache_nr + c.cache_nr_irq, 4);
			assert_int_equal(bb_bioset_reserve_len(&bs), 0);
			/* nothing left but the cache: its 4 bios go back
			 * (2 refill the reserve, 2 to the slab) */
			for (int i = 0; i < 4; i++) {
				big[i] = bb_bio_alloc_bioset(
					&bs, &dev_a, ks[ki].nr_vecs,
					BB_REQ_OP_READ |
						(ks[ki].opf ? copf : 0));
				if (!big[i])
					print_error("%s, case %zu: allocation "
						    "%d failed with 4 bios "
						    "cached\n",
						    bb_cache_variant_name(vs[vi]),
						    ki, i);
				assert_non_null(big[i]);
				assert_false(big[i]->bi_opf &
					     BB_REQ_ALLOC_CACHE);
			}
			bb_bioset_counters(&bs, &t);
			assert_int_equal(t.alloc_fail, 0);
			assert_int_equal(t.prune, 4);
			assert_int_equal(t.alloc_slab + t.alloc_reserve, 10);
			check_len(&bs, 0, 0);
			/* the cache is empty now: a real failure */
			assert_null(bb_bio_alloc_bioset(&bs, &dev_a,
							ks[ki].nr_vecs,
							BB_REQ_OP_READ));
			bb_bioset_counters(&bs, &t);
			assert_int_equal(t.alloc_fail, 1);
			check_census(&bs, 6);
			for (int i = 0; i < 4; i++)
				bb_bio_put(big[i], BB_CTX_TASK);
			for (int i = 4; i < 6; i++)
				bb_bio_put(s[i], BB_CTX_TASK);
			check_census(&bs, 0);
			bb_bioset_exit(&bs);
		}
	}
}

/* "Don't rob a starving bioset" (6.2 on): a bio allocated while the
 * reserve is below its minimum does not join the cache, so that its free
 * refills the reserve (in the model, with its finite slab, that is the
 * bio taken from the reserve itself).  6.1 (task) had no such rule: the
 * reserve object is cached and the reserve stays short. */
static void test_reserve_rob(void **state)
{
	static const struct {
		enum bb_cache_variant v;
		bool rob;
	} t[] = {
		{ BB_CACHE_TASK, true },
		{ BB_CACHE_IRQ, false },
		{ BB_CACHE_IRQ_FAST, false },
		{ BB_CACHE_ALL, false },
	};

	(void)state;
	for (size_t i = 0; i < bb_array_size(t); i++) {
		struct bb_bioset bs;
		struct bb_bio *s0, *s1, *r;
		struct bb_cache_counters want;
		uint32_t opf = BB_REQ_OP_READ | bb_bioset_caller_opf(t[i].v, true);

		print_message("  %s\n", bb_cache_variant_name(t[i].v));
		assert_int_equal(mkbs(&bs, t[i].v, 2, 2, true), 0);
		s0 = bb_bio_alloc_bioset(&bs, &dev_a, 1, opf);
		s1 = bb_bio_alloc_bioset(&bs, &dev_a, 1, opf);
		r = bb_bio_alloc_bioset(&bs, &dev_a, 1, opf); /* the reserve */
		assert_non_null(s0);
		assert_non_null(s1);
		assert_non_null(r);
		assert_int_equal(bb_bioset_reserve_len(&bs), 1);
		assert_true(s0->bi_opf & BB_REQ_ALLOC_CACHE);
		assert_int_equal(!!(r->bi_opf & BB_REQ_ALLOC_CACHE), t[i].rob);
		bb_bio_put(r, BB_CTX_TASK);
		assert_int_equal(bb_bioset_reserve_len(&bs), t[i].rob ? 1 : 2);
		check_len(&bs, t[i].rob ? 1 : 0, 0);
		bb_bio_put(s0, BB_CTX_TASK);
		bb_bio_put(s1, BB_CTX_TASK);
		/* (irq parks non-polled task puts on the irq list) */
		if (t[i].v == BB_CACHE_IRQ)
			check_len(&bs, 0, 2);
		else
			check_len(&bs, t[i].rob ? 3 : 2, 0);
		want = t[i].rob ? C(.alloc_miss = 3, .alloc_slab = 2,
				    .alloc_reserve = 1, .put_task = 3)
				: C(.alloc_miss = 3, .alloc_slab = 2,
				    .alloc_reserve = 1, .put_task = 2, .free = 1,
				    .reserve_refill = 1);
		if (t[i].v == BB_CACHE_IRQ) {
			want.put_irq = want.put_task;
			want.put_task = 0;
		}
		check_total(&bs, &want, bb_cache_variant_name(t[i].v));
		check_census(&bs, 0);
		bb_bioset_exit(&bs);
	}
}

/* ---- clones ------------------------------------------------------------- */

static void test_clone(void **state)
{
	struct bb_bioset bs, split_all, split_off;
	struct bb_bio *src, *cl;

	(void)state;
	assert_int_equal(mkbs(&bs, BB_CACHE_ALL, 2, 0, true), 0);
	assert_int_equal(mkbs(&split_all, BB_CACHE_ALL, 2, 0, false), 0);
	assert_int_equal(mkbs(&split_off, BB_CACHE_OFF, 2, 0, false), 0);

	src = bb_bio_alloc_bioset(&bs, &dev_a, 3,
				  BB_REQ_OP_WRITE | BB_REQ_SYNC);
	assert_non_null(src);
	src->bi_ioprio = 0x4003;
	src->bi_write_hint = 3;
	src->bi_write_stream = 7;
	src->bi_bvec_gap_bit = 12;
	src->bi_iter.bi_sector = 1234;
	src->bi_iter.bi_size = 3 * 4096 - 1024;
	src->bi_iter.bi_idx = 1;
	src->bi_iter.bi_bvec_done = 512;
	src->bi_vcnt = 3;

	for (int k = 0; k < 2; k++) {
		struct bb_bioset *t = k ? &split_off : &split_all;

		cl = bb_bio_alloc_clone(&dev_b, src, t);
		assert_non_null(cl);
		assert_ptr_equal(cl->bi_pool, t);
		assert_ptr_equal(cl->bi_bdev, &dev_b);
		assert_true(bb_bio_flagged(cl, BB_BIO_CLONED));
		assert_false(bb_bio_flagged(src, BB_BIO_CLONED));
		assert_ptr_equal(cl->bi_io_vec, src->bi_io_vec);
		assert_int_equal(cl->bi_max_vecs, 0);
		assert_int_equal(cl->bi_vcnt, 0);
		assert_int_equal(cl->bi_ioprio, 0x4003);
		assert_int_equal(cl->bi_write_hint, 3);
		assert_int_equal(cl->bi_write_stream, 7);
		assert_int_equal(cl->bi_bvec_gap_bit, 12);
		assert_int_equal(cl->bi_iter.bi_sector, 1234);
		assert_int_equal(cl->bi_iter.bi_size, 3 * 4096 - 1024);
		assert_int_equal(cl->bi_iter.bi_idx, 1);
		assert_int_equal(cl->bi_iter.bi_bvec_done, 512);
		assert_null(cl->bi_end_io);
		assert_null(cl->bi_private);
		/* cache-eligible iff the target bioset has a cache */
		assert_int_equal(cl->bi_opf, BB_REQ_OP_WRITE | BB_REQ_SYNC |
						     (k ? 0 : BB_REQ_ALLOC_CACHE));
		bb_bio_put(cl, BB_CTX_HARDIRQ);
	}
	bb_bio_put(src, BB_CTX_TASK);

	check_total(&split_all, &C(.alloc_miss = 1, .alloc_slab = 1, .put_irq = 1),
		    "split all");
	check_total(&split_off, &C(.alloc_slab = 1, .free = 1), "split off");
	check_total(&bs, &C(.alloc_miss = 1, .alloc_slab = 1, .put_task = 1),
		    "src");
	check_census(&bs, 0);
	check_census(&split_all, 0);
	check_census(&split_off, 0);
	bb_bioset_exit(&bs);
	bb_bioset_exit(&split_all);
	bb_bioset_exit(&split_off);
}

/* ---- REFFED, exit ------------------------------------------------------- */

static void test_reffed(void **state)
{
	for (int v = 0; v < 2; v++) {
		struct bb_bioset bs;
		struct bb_bio *bio;

		(void)state;
		assert_int_equal(mkbs(&bs, v ? BB_CACHE_OFF : BB_CACHE_IRQ_FAST,
				      2, 0, true),
				 0);
		bio = bb_bio_alloc_bioset(&bs, &dev_a, 1, BB_REQ_ALLOC_CACHE);
		assert_non_null(bio);
		bb_bio_set_flag(bio, BB_BIO_REFFED);
		atomic_store(&bio->__bi_cnt, 3);
		bb_bio_put(bio, BB_CTX_TASK);
		bb_bio_put(bio, BB_CTX_HARDIRQ);
		assert_int_equal(atomic_load(&bio->__bi_cnt), 1);
		check_total(&bs,
			    v ? &C(.alloc_slab = 1)
			      : &C(.alloc_miss = 1, .alloc_slab = 1),
			    "reffed, 2 of 3 puts");
		check_census(&bs, 1);
		bb_bio_put(bio, BB_CTX_TASK);
		check_total(&bs,
			    v ? &C(.alloc_slab = 1, .free = 1)
			      : &C(.alloc_miss = 1, .alloc_slab = 1,
				   .put_task = 1),
			    "reffed, last put");
		check_census(&bs, 0);
		bb_bioset_exit(&bs);
	}
}

static void test_exit_prunes(void **state)
{
	struct bb_bioset bs;
	struct bb_bio *b[40];

	(void)state;
	assert_int_equal(mkbs(&bs, BB_CACHE_IRQ, 2, 0, true), 0);
	for (int i = 0; i < 40; i++)
		assert_non_null(b[i] = bb_bio_alloc_bioset(&bs, &dev_a, 0,
							   BB_REQ_ALLOC_CACHE));
	for (int i = 0; i < 30; i++)
		bb_bio_put(b[i], BB_CTX_HARDIRQ);
	for (int i = 30; i < 35; i++)
		bb_bio_put(b[i], BB_CTX_SOFTIRQ);
	check_len(&bs, 0, 35);
	bb_bioset_exit(&bs);
	assert_null(bs.impl);
	assert_null(bs.cache);
	assert_int_equal(bs.ctr_owner.prune, 35);
	assert_int_equal(bs.ctr_owner.free, 35);
	assert_int_equal(bs.ctr_owner.splice_bios, 35);
	bb_bioset_exit(&bs); /* twice is harmless */
}

/* ---- same-CPU hard-irq completions (irq_local) --------------------------- */

/* --completion irq: the submitter allocates a batch, then its own
 * completion "interrupt" puts the batch in hard-irq context, round after
 * round (non-polled I/O, as io_uring of each kernel asks).  Every put
 * lands on the irq list; an allocation that finds the task list empty
 * splices the irq list back once it holds 16 or more. */
static void test_irq_local(void **state)
{
	static const struct {
		enum bb_cache_variant v;
		unsigned batch;
		struct bb_cache_counters want;
		unsigned nr, nr_irq;
	} t[] = {
		/* 32 a round: round 1 misses, every later round splices the
		 * 32 the last one put */
		{ BB_CACHE_IRQ, 32,
		  C(.alloc_miss = 32, .alloc_slab = 32, .alloc_hit = 160,
		    .splice = 5, .splice_bios = 160, .put_irq = 192), 0, 32 },
		{ BB_CACHE_IRQ_FAST, 32,
		  C(.alloc_miss = 32, .alloc_slab = 32, .alloc_hit = 160,
		    .splice = 5, .splice_bios = 160, .put_irq = 192), 0, 32 },
		{ BB_CACHE_ALL, 32,
		  C(.alloc_miss = 32, .alloc_slab = 32, .alloc_hit = 160,
		    .splice = 5, .splice_bios = 160, .put_irq = 192), 0, 32 },
		/* 8 a round: 8 on the irq list is below 16, so round 2 misses
		 * too; then a splice of 16 every other round */
		{ BB_CACHE_IRQ_FAST, 8,
		  C(.alloc_miss = 16, .alloc_slab = 16, .alloc_hit = 32,
		    .splice = 2, .splice_bios = 32, .put_irq = 48), 0, 16 },
		{ BB_CACHE_ALL, 8,
		  C(.alloc_miss = 16, .alloc_slab = 16, .alloc_hit = 32,
		    .splice = 2, .splice_bios = 32, .put_irq = 48), 0, 16 },
		/* 6.1 under IRQ completions: non-polled, nothing cached */
		{ BB_CACHE_TASK, 8, C(.alloc_slab = 48, .free = 48), 0, 0 },
		{ BB_CACHE_OFF, 8, C(.alloc_slab = 48, .free = 48), 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < bb_array_size(t); i++) {
		struct bb_bioset_params p = { .pool_size = 2, .need_bvecs = true,
					      .cache = t[i].v, .irq_local = true };
		uint32_t opf = BB_REQ_OP_READ | bb_bioset_caller_opf(t[i].v, false);
		struct bb_bio *b[32];
		struct bb_bioset bs;
		char name[64];

		snprintf(name, sizeof(name), "%s, batch %u",
			 bb_cache_variant_name(t[i].v), t[i].batch);
		print_message("  %s\n", name);
		assert_int_equal(bb_bioset_init(&bs, &p), 0);
		for (int round = 0; round < 6; round++) {
			for (unsigned k = 0; k < t[i].batch; k++)
				assert_non_null(b[k] = bb_bio_alloc_bioset(
							&bs, &dev_a, 1, opf));
			for (unsigned k = 0; k < t[i].batch; k++)
				bb_bio_put(b[k], BB_CTX_HARDIRQ);
		}
		check_total(&bs, &t[i].want, name);
		check_len(&bs, t[i].nr, t[i].nr_irq);
		check_census(&bs, 0);
		bb_bioset_exit(&bs);
	}
}

/* --completion thread: the puts run on another CPU and go to its own
 * cache, as the kernel recycles a bio on the CPU that frees it; nothing
 * allocates there, so it fills to the cap (257 resident) and then every
 * put frees, while the allocating CPU's cache stays empty: every
 * allocation misses.  (The kernel's cross-CPU worst case: 648 K -> 647 K
 * IOPS with the cache on.)  Table: 600 allocations, their hard-irq puts
 * from the other CPU, then 100 more allocations; in 6.1 (task) nothing
 * non-polled is cached at all. */
static void test_remote_puts(void **state)
{
	static const struct {
		enum bb_cache_variant v;
		struct bb_cache_counters want;
		unsigned remote;
	} t[] = {
		{ BB_CACHE_IRQ, C(.alloc_miss = 700, .alloc_slab = 700,
				  .put_irq = 257, .put_free = 343, .free = 343),
		  257 },
		{ BB_CACHE_IRQ_FAST, C(.alloc_miss = 700, .alloc_slab = 700,
				       .put_irq = 257, .put_free = 343,
				       .free = 343),
		  257 },
		{ BB_CACHE_ALL, C(.alloc_miss = 700, .alloc_slab = 700,
				  .put_irq = 257, .put_free = 343, .free = 343),
		  257 },
		{ BB_CACHE_TASK, C(.alloc_slab = 700, .free = 600), 0 },
		{ BB_CACHE_OFF, C(.alloc_slab = 700, .free = 600), 0 },
	};
	static struct bb_bio *b[700];

	(void)state;
	for (size_t i = 0; i < bb_array_size(t); i++) {
		struct bb_bioset_params p = { .pool_size = 2, .need_bvecs = true,
					      .cache = t[i].v,
					      .remote_puts = true };
		uint32_t opf = BB_REQ_OP_READ | bb_bioset_caller_opf(t[i].v, false);
		struct bb_bioset_census c;
		struct bb_bioset bs;

		print_message("  %s\n", bb_cache_variant_name(t[i].v));
		assert_int_equal(bb_bioset_init(&bs, &p), 0);
		for (int k = 0; k < 600; k++)
			assert_non_null(b[k] = bb_bio_alloc_bioset(&bs, &dev_a,
								   1, opf));
		for (int k = 0; k < 600; k++)
			bb_bio_put(b[k], BB_CTX_HARDIRQ);
		for (int k = 600; k < 700; k++)
			assert_non_null(b[k] = bb_bio_alloc_bioset(&bs, &dev_a,
								   1, opf));
		check_total(&bs, &t[i].want, bb_cache_variant_name(t[i].v));
		check_len(&bs, 0, 0); /* the allocating CPU's cache: empty */
		assert_int_equal(bb_bioset_check(&bs, &c), 0);
		assert_int_equal(c.cache_remote, t[i].remote);
		check_census(&bs, 100);
		bb_bioset_exit(&bs);
		/* teardown prunes the other CPU's cache too */
		assert_int_equal(bs.ctr_owner.prune, t[i].remote);
	}
	/* irq_local and remote_puts exclude each other */
	{
		struct bb_bioset_params p = { .cache = BB_CACHE_ALL,
					      .irq_local = true,
					      .remote_puts = true };
		struct bb_bioset bs;

		assert_int_equal(bb_bioset_init(&bs, &p), -EINVAL);
		bb_bioset_exit(&bs);
	}
}

/* Cold bios: eviction at put changes where an object's lines are, not
 * what the allocator does with it. */
static void test_evict(void **state)
{
	static const enum bb_cache_variant vs[] = {
		BB_CACHE_OFF, BB_CACHE_TASK, BB_CACHE_IRQ_FAST, BB_CACHE_ALL,
	};

	(void)state;
	for (size_t i = 0; i < bb_array_size(vs); i++) {
		struct bb_cache_counters got[2];

		for (int ev = 0; ev < 2; ev++) {
			struct bb_bioset_params p = { .pool_size = 2,
						      .need_bvecs = true,
						      .cache = vs[i],
						      .evict = ev };
			uint32_t opf = BB_REQ_OP_READ |
				       bb_bioset_caller_opf(vs[i], true);
			struct bb_bio *b[40];
			struct bb_bioset bs;

			assert_int_equal(bb_bioset_init(&bs, &p), 0);
			for (int round = 0; round < 3; round++) {
				for (int k = 0; k < 40; k++) {
					b[k] = bb_bio_alloc_bioset(&bs, &dev_a,
								   k % 3 ? 1 : 20,
								   opf);
					assert_non_null(b[k]);
					b[k]->bi_iter.bi_sector = (uint64_t)k;
				}
				for (int k = 0; k < 40; k++) {
					assert_int_equal(b[k]->bi_iter.bi_sector, k);
					bb_bio_put(b[k], k & 1 ? BB_CTX_HARDIRQ
							       : BB_CTX_TASK);
				}
			}
			bb_bioset_counters(&bs, &got[ev]);
			check_census(&bs, 0);
			bb_bioset_exit(&bs);
		}
		check_ctr(&got[1], &got[0], bb_cache_variant_name(vs[i]));
	}
}

/* ---- concurrency -------------------------------------------------------- */

#define XF_RING 128u /* bios in flight to the completion thread, at most */
#define XF_TOTAL 200000u
#define XF_BURST 300u /* bios held by the owner at once, at most */
#define XF_FRONT 64u
#define XF_INFLIGHT 0x1f1f1f1f1f1f1f1full
#define XF_IDLE 0x2e2e2e2e2e2e2e2eull

struct xfer {
	struct bb_bioset *bs;
	_Atomic(struct bb_bio *) slot[XF_RING];
	atomic_uint head bb_aligned_cl; /* written by the owner */
	atomic_uint tail bb_aligned_cl; /* written by the completion thread */
	atomic_bool done;
	/* completion thread results */
	unsigned long puts, eligible_puts, errors;
};

/* A word of the caller's front_pad (the slab links free objects through
 * the first word, so use the second). */
static _Atomic uint64_t *xf_state(struct bb_bio *bio)
{
	return (_Atomic uint64_t *)((char *)bio - XF_FRONT + 8);
}

static bool xf_verify(struct xfer *x, struct bb_bio *bio)
{
	uintptr_t seq = (uintptr_t)bio->bi_private;

	if (bio->bi_pool != x->bs || bio->bi_bdev != &dev_a ||
	    bio->bi_iter.bi_sector != seq || bio->bi_next)
		return false;
	for (unsigned v = 0; v < bio->bi_max_vecs; v++)
		if (bio->bi_io_vec[v].bv_page != bio ||
		    bio->bi_io_vec[v].bv_offset != (uint32_t)seq + v)
			return false;
	return true;
}

static void *xf_completion(void *arg)
{
	struct xfer *x = arg;
	unsigned tail = 0, spins = 0;

	for (;;) {
		unsigned head = atomic_load_explicit(&x->head,
						     memory_order_acquire);

		if (head == tail) {
			if (atomic_load_explicit(&x->done, memory_order_acquire) &&
			    head == atomic_load_explicit(&x->head,
							 memory_order_acquire))
				break;
			if (++spins % 64 == 0)
				sched_yield();
			continue;
		}
		for (; tail != head; tail++) {
			struct bb_bio *bio = atomic_load_explicit(
				&x->slot[tail % XF_RING], memory_order_relaxed);

			if (atomic_exchange(xf_state(bio), XF_IDLE) != XF_INFLIGHT ||
			    !xf_verify(x, bio))
				x->errors++;
			if (bio->bi_opf & BB_REQ_ALLOC_CACHE)
				x->eligible_puts++;
			x->puts++;
			bb_bio_put(bio, BB_CTX_HARDIRQ);
		}
		atomic_store_explicit(&x->tail, tail, memory_order_release);
	}
	return NULL;
}

/* remote: the completion thread's puts go to its own CPU's cache
 * (--completion thread); else onto the owner's irq list (lock-free). */
static void run_concurrent(enum bb_cache_variant v, bool remote)
{
	struct bb_bioset_params p = {
		.pool_size = 4, .front_pad = XF_FRONT, .need_bvecs = true,
		.cache = v, .slab_limit = remote ? 320 + 257 : 320,
		.bvec_slab_limit = 16, .remote_puts = remote,
	};
	static struct xfer x;
	static struct bb_bio *held[XF_BURST];
	struct bb_bioset bs;
	struct bb_cache_counters t;
	struct bb_bioset_census c;
	unsigned long own_puts = 0, own_eligible = 0, errors = 0;
	unsigned long small_allocs = 0, retries = 0, small_retries = 0;
	unsigned head = 0;
	pthread_t th;
	/* asking for the cache as polled I/O does in every kernel that has
	 * one (REQ_POLLED itself is not set: the owner's own puts stay
	 * non-polled task puts) */
	const uint32_t opf = BB_REQ_OP_READ | bb_bioset_caller_opf(v, true);

	assert_int_equal(bb_bioset_init(&bs, &p), 0);
	memset(&x, 0, sizeof(x));
	x.bs = &bs;
	assert_int_equal(pthread_create(&th, NULL, xf_completion, &x), 0);

	/* Phases of 1000 bios: one at a time (steady state), then in bursts
	 * of XF_BURST held at once before being completed (drains the cache,
	 * then overfills it: cap, slab exhaustion, reserve). */
	for (unsigned i = 0; i < XF_TOTAL;) {
		unsigned burst = (i / 1000) % 2 ? XF_BURST : 1;
		unsigned nheld = 0;

		for (; nheld < burst && i < XF_TOTAL; i++) {
			unsigned nr_vecs = i % 8 == 7 ? 16 + i % 3 * 60 : i % 5;
			struct bb_bio *bio;

			uint64_t t0 = 0;

			while (!(bio = bb_bio_alloc_bioset(&bs, &dev_a, nr_vecs,
							   opf))) {
				retries++;
				small_retries += nr_vecs <= BB_BIO_INLINE_VECS;
				/* as a task that sleeps in mempool_alloc
				 * flushes its plug first: the bios it holds
				 * go out (else it may wait for the very
				 * objects it holds: the finite slab and
				 * bvec slab, a short irq list) */
				if (nheld)
					break;
				if (!t0)
					t0 = bb_now_ns();
				else if (bb_now_ns() - t0 > 5000000000ull)
					goto stuck; /* objects were lost */
				sched_yield();
			}
			if (!bio)
				break; /* this i again after the release */
			if (nr_vecs <= BB_BIO_INLINE_VECS)
				small_allocs++;
			if (atomic_exchange(xf_state(bio), XF_INFLIGHT) ==
			    XF_INFLIGHT)
				errors++;
			bio->bi_private = (void *)(uintptr_t)i;
			bio->bi_iter.bi_sector = i;
			for (unsigned vv = 0; vv < bio->bi_max_vecs; vv++) {
				bio->bi_io_vec[vv].bv_page = bio;
				bio->bi_io_vec[vv].bv_len = 4096;
				bio->bi_io_vec[vv].bv_offset = i + vv;
			}
			held[nheld++] = bio;
		}
		for (unsigned k = 0; k < nheld; k++) {
			struct bb_bio *bio = held[k];

			if ((uintptr_t)bio->bi_private % 4 == 1) {
				/* the owner completes some itself */
				if (atomic_exchange(xf_state(bio), XF_IDLE) !=
					    XF_INFLIGHT ||
				    !xf_verify(&x, bio))
					errors++;
				if (bio->bi_opf & BB_REQ_ALLOC_CACHE)
					own_eligible++;
				own_puts++;
				bb_bio_put(bio, BB_CTX_TASK);
				continue;
			}
			while (head - atomic_load_explicit(&x.tail,
							   memory_order_acquire) ==
			       XF_RING)
				sched_yield();
			atomic_store_explicit(&x.slot[head % XF_RING], bio,
					      memory_order_relaxed);
			atomic_store_explicit(&x.head, ++head,
					      memory_order_release);
		}
	}
	if (0) {
stuck:
		print_error("%s: allocation stuck for 5 s (%lu own puts)\n",
			    bb_cache_variant_name(v), own_puts);
		errors++;
	}
	atomic_store_explicit(&x.done, true, memory_order_release);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(errors, 0);

	bb_bioset_counters(&bs, &t);
	print_message("  %s%s: %u bios: hit %llu miss %llu reserve %llu "
		      "retries %lu splice %llu put task/irq/free %llu/%llu/%llu "
		      "prune %llu\n",
		      bb_cache_variant_name(v), remote ? " (remote)" : "", XF_TOTAL,
		      (unsigned long long)t.alloc_hit,
		      (unsigned long long)t.alloc_miss,
		      (unsigned long long)t.alloc_reserve, retries,
		      (unsigned long long)t.splice,
		      (unsigned long long)t.put_task,
		      (unsigned long long)t.put_irq,
		      (unsigned long long)t.put_free,
		      (unsigned long long)t.prune);
	assert_int_equal(errors, 0);
	assert_int_equal(x.errors, 0);
	assert_int_equal(own_puts + x.puts, XF_TOTAL);

	/* every object accounted, nothing corrupted */
	assert_int_equal(bb_bioset_check(&bs, &c), 0);
	/* (remote: the other CPU's cache keeps up to 257 for good, as the
	 * kernel's does; the slab has room for them) */
	assert_int_equal(c.objs, p.slab_limit + 4);
	assert_int_equal(c.slab_free + c.reserve + c.cache_nr + c.cache_nr_irq +
				 c.cache_remote,
			 c.objs);
	/* 6.1 robbed the reserve: cached reserve objects stay cached */
	if (v == BB_CACHE_TASK)
		assert_true(c.reserve <= 4);
	else
		assert_int_equal(c.reserve, 4);
	for (int cl = 0; cl < 4; cl++)
		assert_int_equal(c.bvec_free[cl], c.bvec_objs[cl]);

	/* counters agree with what happened and with the lists */
	bb_bioset_counters(&bs, &t);
	assert_int_equal(t.alloc_hit + t.alloc_slab + t.alloc_reserve, XF_TOTAL);
	assert_int_equal(t.alloc_fail, retries);
	assert_int_equal(t.alloc_slab + t.alloc_reserve - t.free,
			 c.cache_nr + c.cache_nr_irq + c.cache_remote);
	assert_int_equal(t.bvec_alloc, XF_TOTAL / 8);
	assert_int_equal(t.bvec_alloc, t.bvec_free);
	assert_int_equal(t.put_task + t.put_irq + t.put_free,
			 own_eligible + x.eligible_puts);
	/* exact list lengths under concurrency */
	assert_int_equal(t.put_task + t.splice_bios - t.alloc_hit - t.prune,
			 c.cache_nr);
	if (remote) {
		/* nothing crosses from the other CPU's cache to the owner's
		 * (irq parks the owner's own non-polled task puts on the
		 * owner's irq list) */
		assert_int_equal(bs.ctr_owner.put_irq - t.splice_bios,
				 c.cache_nr_irq);
		assert_int_equal(bs.ctr_other.put_irq, c.cache_remote);
		assert_true(c.cache_remote <= BB_ALLOC_CACHE_MAX + 1);
	} else {
		assert_int_equal(t.put_irq - t.splice_bios, c.cache_nr_irq);
		assert_int_equal(c.cache_remote, 0);
	}
	/* each side wrote only its own counters */
	assert_int_equal(bs.ctr_other.alloc_hit + bs.ctr_other.alloc_miss +
				 bs.ctr_other.alloc_slab +
				 bs.ctr_other.alloc_reserve +
				 bs.ctr_other.alloc_fail +
				 bs.ctr_other.splice_bios +
				 bs.ctr_other.splice + bs.ctr_other.put_task +
				 bs.ctr_other.prune,
			 0);
	if (v == BB_CACHE_OFF) {
		assert_int_equal(t.alloc_hit + t.alloc_miss + t.put_task +
					 t.put_irq + t.put_free,
				 0);
	} else {
		assert_int_equal(t.alloc_hit + t.alloc_miss,
				 small_allocs + small_retries);
	}
	if (v == BB_CACHE_TASK) {
		assert_int_equal(t.put_irq, 0);
		assert_int_equal(bs.ctr_other.put_free, x.eligible_puts);
	}
	if (v == BB_CACHE_IRQ_FAST || v == BB_CACHE_ALL) {
		assert_int_equal(bs.ctr_owner.put_irq, 0);
		assert_int_equal(bs.ctr_other.put_irq + bs.ctr_other.put_free,
				 x.eligible_puts);
		assert_true(remote ? t.splice == 0 : t.splice > 0);
	}
	if (v == BB_CACHE_IRQ)
		assert_true(t.splice > 0 && bs.ctr_owner.put_irq > 0);
	/* the bursts overfill the cache: the cap was hit under concurrency */
	if (v != BB_CACHE_OFF)
		assert_true(t.put_free > 0);

	bb_bioset_exit(&bs);
}

static void test_concurrent(void **state)
{
	(void)state;
	run_concurrent(BB_CACHE_IRQ, false);
	run_concurrent(BB_CACHE_IRQ_FAST, false);
	run_concurrent(BB_CACHE_ALL, false);
	run_concurrent(BB_CACHE_TASK, false);
	run_concurrent(BB_CACHE_OFF, false);
	run_concurrent(BB_CACHE_IRQ, true);
	run_concurrent(BB_CACHE_IRQ_FAST, true);
	run_concurrent(BB_CACHE_ALL, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_init_params),
		cmocka_unit_test(test_alloc_init_and_flags),
		cmocka_unit_test(test_caller_opf),
		cmocka_unit_test(test_bvec_classes),
		cmocka_unit_test(test_bvec_fallback),
		cmocka_unit_test(test_reserve),
		cmocka_unit_test(test_reserve_rob),
		cmocka_unit_test(test_clone),
		cmocka_unit_test(test_reffed),
		cmocka_unit_test(test_exit_prunes),
		cmocka_unit_test(test_reclaim),
		cmocka_unit_test(test_irq_local),
		cmocka_unit_test(test_remote_puts),
		cmocka_unit_test(test_evict),
		cmocka_unit_test(test_concurrent),
	};

	return cmocka_run_group_tests_name(
		BB_VEC_EARLY ? "bioset (vec_early)" : "bioset (vec_late)",
		tests, NULL, NULL);
}
