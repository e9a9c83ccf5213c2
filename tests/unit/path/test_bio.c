// SPDX-License-Identifier: GPL-2.0-only
/* test_bio.c - struct bb_bio layout, bvec iteration and bio chaining
 * (compiled once per layout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "path/bioset.h"

/* ---- layout ------------------------------------------------------------- */

struct off_case {
	const char *field;
	size_t got, want;
};
#define OFF(f, w) { #f, offsetof(struct bb_bio, f), (w) }

static void test_layout(void **state)
{
	static const struct off_case common[] = {
		OFF(bi_next, 0), OFF(bi_bdev, 8), OFF(bi_opf, 16),
		OFF(bi_flags, 20), OFF(bi_ioprio, 22), OFF(bi_write_hint, 24),
		OFF(bi_write_stream, 25), OFF(bi_status, 26),
		OFF(bi_bvec_gap_bit, 27), OFF(__bi_remaining, 28),
		OFF(bi_pool, 128),
	};
#if BB_VEC_EARLY
	static const struct off_case lay[] = {
		OFF(bi_io_vec, 32), OFF(bi_iter, 40),
		OFF(bi_iter.bi_sector, 40), OFF(bi_iter.bi_size, 48),
		OFF(bi_iter.bi_idx, 52), OFF(bi_iter.bi_bvec_done, 56),
		OFF(bi_cookie, 60), OFF(bi_end_io, 64), OFF(bi_private, 72),
		OFF(bi_vcnt, 120), OFF(bi_max_vecs, 122), OFF(__bi_cnt, 124),
	};
#else
	static const struct off_case lay[] = {
		OFF(bi_iter, 32), OFF(bi_iter.bi_sector, 32),
		OFF(bi_iter.bi_size, 40), OFF(bi_iter.bi_idx, 44),
		OFF(bi_iter.bi_bvec_done, 48), OFF(bi_cookie, 52),
		OFF(bi_end_io, 56), OFF(bi_private, 64), OFF(bi_vcnt, 112),
		OFF(bi_max_vecs, 114), OFF(__bi_cnt, 116),
		OFF(bi_io_vec, 120),
	};
#endif
	bool bad = false;

	(void)state;
	for (size_t i = 0; i < bb_array_size(common); i++)
		if (common[i].got != common[i].want) {
			print_error("%s at %zu, want %zu\n", common[i].field,
				    common[i].got, common[i].want);
			bad = true;
		}
	for (size_t i = 0; i < bb_array_size(lay); i++)
		if (lay[i].got != lay[i].want) {
			print_error("%s at %zu, want %zu\n", lay[i].field,
				    lay[i].got, lay[i].want);
			bad = true;
		}
	assert_false(bad);
	assert_int_equal(sizeof(struct bb_bio), 136);
	assert_int_equal(sizeof(struct bb_bvec_iter), 20);
	/* bi_io_vec shares the first cache line with bi_iter only early */
	assert_int_equal(offsetof(struct bb_bio, bi_io_vec) / BB_CACHELINE == 0,
			 BB_VEC_EARLY);
	assert_int_equal(offsetof(struct bb_bio, bi_iter) / BB_CACHELINE, 0);
	assert_int_equal(BB_LAYOUT_THIS,
			 BB_VEC_EARLY ? BB_LAYOUT_VEC_EARLY : BB_LAYOUT_VEC_LATE);
}

/* ---- bvec iteration ----------------------------------------------------- */

static char pages[8][4096] __attribute__((aligned(4096)));

/* 4 vecs: 4096 @0, 8192 @512 (multi-page), 512 @0, 1024 @1024 = 13824 B */
static void fill(struct bb_bio *bio)
{
	static const uint32_t len[4] = { 4096, 8192, 512, 1024 };
	static const uint32_t off[4] = { 0, 512, 0, 1024 };

	bio->bi_vcnt = 4;
	bio->bi_iter.bi_sector = 1000;
	bio->bi_iter.bi_size = 0;
	bio->bi_iter.bi_idx = 0;
	bio->bi_iter.bi_bvec_done = 0;
	for (int i = 0; i < 4; i++) {
		bio->bi_io_vec[i].bv_page = pages[2 * i];
		bio->bi_io_vec[i].bv_len = len[i];
		bio->bi_io_vec[i].bv_offset = off[i];
		bio->bi_iter.bi_size += len[i];
	}
}

struct iter_want {
	uint32_t adv;
	uint64_t sector;
	uint32_t size, idx, done;
	uint32_t bv_len, bv_offset; /* current bvec afterwards (size > 0) */
};

static void check_iter(const struct bb_bio *bio, const struct iter_want *w)
{
	assert_int_equal(bio->bi_iter.bi_sector, w->sector);
	assert_int_equal(bio->bi_iter.bi_size, w->size);
	if (!w->size)
		return;
	assert_int_equal(bio->bi_iter.bi_idx, w->idx);
	assert_int_equal(bio->bi_iter.bi_bvec_done, w->done);
	struct bb_bvec bv = bb_bvec_iter_bvec(bio->bi_io_vec, bio->bi_iter);
	assert_ptr_equal(bv.bv_page, bio->bi_io_vec[w->idx].bv_page);
	assert_int_equal(bv.bv_len, w->bv_len);
	assert_int_equal(bv.bv_offset, w->bv_offset);
}

static void test_advance(void **state)
{
	/* bio_advance steps, each from the previous state */
	static const struct iter_want steps[] = {
		{ 512, 1001, 13312, 0, 512, 3584, 512 },
		{ 3584, 1008, 9728, 1, 0, 8192, 512 },  /* exactly a vec end */
		{ 4096, 1016, 5632, 1, 4096, 4096, 4608 }, /* mid multi-page */
		{ 4608, 1025, 1024, 3, 0, 1024, 1024 },  /* across two vecs */
		{ 1024, 1027, 0, 0, 0, 0, 0 },           /* to the end */
	};
	struct bb_bioset bs;
	struct bb_bioset_params p = { .pool_size = 2, .need_bvecs = true,
				      .cache = BB_CACHE_ALL };
	struct bb_bio *bio;

	(void)state;
	assert_int_equal(bb_bioset_init(&bs, &p), 0);
	bio = bb_bio_alloc_bioset(&bs, NULL, 4, BB_REQ_OP_READ);
	assert_non_null(bio);
	fill(bio);
	{
		struct iter_want w0 = { 0, 1000, 13824, 0, 0, 4096, 0 };
		check_iter(bio, &w0);
	}
	for (size_t i = 0; i < bb_array_size(steps); i++) {
		bb_bio_advance(bio, steps[i].adv);
		check_iter(bio, &steps[i]);
	}

	/* bvec_iter_advance on a copy: one jump over 3 vecs, then clipping
	 * of the current bvec by bi_size */
	fill(bio);
	struct bb_bvec_iter it = bio->bi_iter;
	bb_bvec_iter_advance(bio->bi_io_vec, &it, 4096 + 8192 + 512);
	assert_int_equal(it.bi_idx, 3);
	assert_int_equal(it.bi_bvec_done, 0);
	assert_int_equal(it.bi_size, 1024);
	assert_int_equal(it.bi_sector, 1000 + 25);
	it = bio->bi_iter;
	it.bi_size = 4096 + 1536; /* an iterator that ends inside vec 1 */
	bb_bvec_iter_advance(bio->bi_io_vec, &it, 4096);
	struct bb_bvec bv = bb_bvec_iter_bvec(bio->bi_io_vec, it);
	assert_int_equal(it.bi_idx, 1);
	assert_int_equal(it.bi_bvec_done, 0);
	assert_int_equal(bv.bv_len, 1536);
	assert_int_equal(bv.bv_offset, 512);
	assert_ptr_equal(bv.bv_page, pages[2]);
	bb_bio_put(bio, BB_CTX_TASK);
	bb_bioset_exit(&bs);
}

/* ---- chaining ----------------------------------------------------------- */

struct end_rec {
	int calls;
	uint8_t status;
	enum bb_ctx ctx;
};

static void parent_end_io(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct end_rec *r = bio->bi_private;

	r->calls++;
	r->status = bio->bi_status;
	r->ctx = ctx;
	bb_bio_put(bio, ctx);
}

static void check_counts(const struct bb_bioset *bs, uint64_t put_task,
			 uint64_t put_irq, uint64_t free)
{
	struct bb_cache_counters c;

	bb_bioset_counters(bs, &c);
	assert_int_equal(c.put_task, put_task);
	assert_int_equal(c.put_irq, put_irq);
	assert_int_equal(c.free, free);
}

static void test_chain(void **state)
{
	struct bb_bioset bs, split;
	struct bb_bioset_params p = { .pool_size = 2, .need_bvecs = true,
				      .cache = BB_CACHE_ALL };
	struct bb_bioset_params ps = { .pool_size = 2,
				       .cache = BB_CACHE_OFF };
	struct end_rec rec = { 0 };
	struct bb_bio *parent, *child[3];

	(void)state;
	assert_int_equal(bb_bioset_init(&bs, &p), 0);
	assert_int_equal(bb_bioset_init(&split, &ps), 0);

	/* parent completes once, after its own end and all children */
	parent = bb_bio_alloc_bioset(&bs, NULL, 1, BB_REQ_OP_READ);
	assert_non_null(parent);
	parent->bi_end_io = parent_end_io;
	parent->bi_private = &rec;
	for (int i = 0; i < 3; i++) {
		child[i] = bb_bio_alloc_clone(NULL, parent, &split);
		assert_non_null(child[i]);
		bb_bio_chain(child[i], parent);
	}
	assert_true(bb_bio_flagged(parent, BB_BIO_CHAIN));
	assert_int_equal(atomic_load(&parent->__bi_remaining), 4);

	bb_bio_endio(child[0], BB_CTX_HARDIRQ);
	assert_int_equal(rec.calls, 0);
	child[1]->bi_status = 5; /* EIO */
	bb_bio_endio(child[1], BB_CTX_HARDIRQ);
	assert_int_equal(rec.calls, 0);
	assert_int_equal(parent->bi_status, 5);
	bb_bio_endio(parent, BB_CTX_TASK);
	assert_int_equal(rec.calls, 0);
	child[2]->bi_status = 61; /* a later error does not override */
	bb_bio_endio(child[2], BB_CTX_HARDIRQ);
	assert_int_equal(rec.calls, 1);
	assert_int_equal(rec.status, 5);
	assert_int_equal(rec.ctx, BB_CTX_HARDIRQ);
	/* children were put back to the split bioset (no cache: freed),
	 * the parent by its end_io to the irq list */
	check_counts(&split, 0, 0, 3);
	assert_int_equal(split.ctr_other.free, 3);
	check_counts(&bs, 0, 1, 0);

	/* the parent's own end first, then children; task context */
	rec = (struct end_rec){ 0 };
	parent = bb_bio_alloc_bioset(&bs, NULL, 1, BB_REQ_OP_READ);
	parent->bi_end_io = parent_end_io;
	parent->bi_private = &rec;
	for (int i = 0; i < 2; i++) {
		child[i] = bb_bio_alloc_bioset(&bs, NULL, 0, BB_REQ_OP_READ);
		assert_non_null(child[i]);
		bb_bio_chain(child[i], parent);
	}
	bb_bio_endio(parent, BB_CTX_TASK);
	bb_bio_endio(child[1], BB_CTX_TASK);
	assert_int_equal(rec.calls, 0);
	bb_bio_endio(child[0], BB_CTX_TASK);
	assert_int_equal(rec.calls, 1);
	assert_int_equal(rec.status, 0);
	assert_int_equal(rec.ctx, BB_CTX_TASK);
	check_counts(&bs, 3, 1, 0);

	/* grandchild -> child -> parent: the error walks up two levels */
	rec = (struct end_rec){ 0 };
	parent = bb_bio_alloc_bioset(&bs, NULL, 1, BB_REQ_OP_READ);
	parent->bi_end_io = parent_end_io;
	parent->bi_private = &rec;
	child[0] = bb_bio_alloc_bioset(&bs, NULL, 0, BB_REQ_OP_READ);
	bb_bio_chain(child[0], parent);
	child[1] = bb_bio_alloc_bioset(&bs, NULL, 0, BB_REQ_OP_READ);
	bb_bio_chain(child[1], child[0]);
	bb_bio_endio(parent, BB_CTX_TASK);
	bb_bio_endio(child[0], BB_CTX_TASK);
	assert_int_equal(rec.calls, 0);
	child[1]->bi_status = 28;
	bb_bio_endio(child[1], BB_CTX_SOFTIRQ);
	assert_int_equal(rec.calls, 1);
	assert_int_equal(rec.status, 28);
	assert_int_equal(rec.ctx, BB_CTX_SOFTIRQ);
	/* irq_fast frees SOFTIRQ puts: grandchild, child, parent */
	check_counts(&bs, 3, 1, 3);
	assert_int_equal(bs.ctr_other.put_free, 3);

	/* a plain bio: end_io called once, no chain */
	rec = (struct end_rec){ 0 };
	parent = bb_bio_alloc_bioset(&bs, NULL, 0, BB_REQ_OP_READ);
	parent->bi_end_io = parent_end_io;
	parent->bi_private = &rec;
	bb_bio_endio(parent, BB_CTX_HARDIRQ);
	assert_int_equal(rec.calls, 1);
	check_counts(&bs, 3, 2, 3);

	bb_bioset_exit(&split);
	bb_bioset_exit(&bs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_advance),
		cmocka_unit_test(test_chain),
	};

	return cmocka_run_group_tests_name(
		BB_VEC_EARLY ? "bio (vec_early)" : "bio (vec_late)", tests,
		NULL, NULL);
}
