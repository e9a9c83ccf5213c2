/* SPDX-License-Identifier: GPL-2.0-only */
/* split.h - bio splitting against queue limits (layout-dependent).
 * Models block/blk.h __bio_split_to_limits(), bio_may_need_split() in its
 * two forms, and blk-merge.c bio_split_rw_at() / bvec_split_segs() /
 * get_max_io_size(), plus block/bio.c bio_split() and bio_submit_split()
 * (docs/design.md, "The split fast check"). */
#ifndef BB_SPLIT_H
#define BB_SPLIT_H

#include "path/bioset.h"
#include <biobench/queue_limits.h>

/* bio_may_need_split, the cheap "single small segment?" test:
 *  vcnt form (6.15 .. Dec 2025): chunk_sectors -> true; bi_vcnt != 1 ->
 *    true; else bi_io_vec[0].bv_len + bv_offset > max_fast_segment_size.
 *  iter form (Jan 2026, with the bi_bvec_done fix): chunk_sectors -> true;
 *    bi_io_vec == NULL -> true; bv = bi_io_vec[bi_iter.bi_idx];
 *    bi_size > bv.bv_len - bi_bvec_done -> true; else
 *    bv.bv_len + bv.bv_offset > max_fast_segment_size. */
bool bb_bio_may_need_split_vcnt(const struct bb_bio *bio,
				const struct bb_queue_limits *lim);
bool bb_bio_may_need_split_iter(const struct bb_bio *bio,
				const struct bb_queue_limits *lim);

/* The same two tests inline, as blk.h has them (the hot loop is built for
 * one of them; the functions above are these, out of line). */
static inline bool bb_may_need_split_vcnt_inline(
	const struct bb_bio *bio, const struct bb_queue_limits *lim)
{
	if (lim->chunk_sectors)
		return true;
	if (bio->bi_vcnt != 1)
		return true;
	return bio->bi_io_vec->bv_len + bio->bi_io_vec->bv_offset >
	       lim->max_fast_segment_size;
}

static inline bool bb_may_need_split_iter_inline(
	const struct bb_bio *bio, const struct bb_queue_limits *lim)
{
	const struct bb_bvec *bv;

	if (lim->chunk_sectors)
		return true;
	if (!bio->bi_io_vec)
		return true;
	bv = &bio->bi_io_vec[bio->bi_iter.bi_idx];
	/* Jan 2026 fix: only what is left of the current bvec counts */
	if (bio->bi_iter.bi_size > bv->bv_len - bio->bi_iter.bi_bvec_done)
		return true;
	/* the offset test still uses the whole bvec */
	return bv->bv_len + bv->bv_offset > lim->max_fast_segment_size;
}

typedef bool (*bb_may_split_fn)(const struct bb_bio *bio,
				const struct bb_queue_limits *lim);

/* get_max_io_size, in sectors. */
unsigned bb_get_max_io_size(const struct bb_bio *bio,
			    const struct bb_queue_limits *lim);

/* bio_split_rw_at (bio_split_io_at with len_align_mask = dma_alignment):
 * walk the bvecs; returns -EINVAL / -EAGAIN, 0 (no split needed, *segs =
 * segment count) or the number of sectors of the front piece.  Sets
 * bi_bvec_gap_bit; bio_clear_polled on a split (bioset.h). */
int bb_bio_split_rw_at(struct bb_bio *bio, const struct bb_queue_limits *lim,
		       unsigned *segs, unsigned max_bytes);

/* bio_split: clone the first `sectors` of bio from bs and advance bio past
 * them.  Returns the clone, or NULL with *err = -EINVAL (bad sectors) or
 * -ENOMEM (bs exhausted). */
struct bb_bio *bb_bio_split(struct bb_bio *bio, int sectors,
			    struct bb_bioset *bs, int *err);

/* __bio_split_to_limits for READ/WRITE: if check(bio, lim) is false,
 * *nr_segs = 1 and bio is returned; otherwise bio_split_rw_at decides.
 * No split: bio is returned.  Split: the front piece (a clone from
 * split_bs, chained to bio, REQ_NOMERGE set) is returned and bio is
 * advanced past it; the caller issues the piece and calls again with
 * bio.  Error: NULL, *err = -errno, bio->bi_status set (the caller ends
 * the bio).  Counters are updated in *ctr. */
struct bb_bio *bb_bio_split_after_check(struct bb_bio *bio,
					const struct bb_queue_limits *lim,
					struct bb_bioset *split_bs,
					unsigned *nr_segs,
					struct bb_split_counters *ctr, int *err);

/* Inline so that the fast path (check false: no bvec walk) costs the
 * check and two counter increments in the caller's hot loop; the rest
 * (bb_bio_split_after_check) is out of line, as in blk.h. */
static inline struct bb_bio *
bb_bio_split_to_limits(struct bb_bio *bio, const struct bb_queue_limits *lim,
		       bb_may_split_fn check, struct bb_bioset *split_bs,
		       unsigned *nr_segs, struct bb_split_counters *ctr,
		       int *err)
{
	ctr->checks++;
	if (bb_likely(!check(bio, lim))) {
		*nr_segs = 1;
		ctr->segs++;
		return bio;
	}
	return bb_bio_split_after_check(bio, lim, split_bs, nr_segs, ctr,
					err);
}

#endif
