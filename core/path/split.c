// SPDX-License-Identifier: GPL-2.0-only
/* split.c - bio splitting against queue limits (layout-dependent).
 *
 * block/blk.h bio_may_need_split() (two forms) and __bio_split_to_limits()
 * for READ/WRITE, block/blk-merge.c get_max_io_size(), bio_split_io_at()
 * (as bio_split_rw_at with len_align_mask = dma_alignment),
 * bvec_split_segs(), get_max_segment_size(), bvec_gap_to_prev() and
 * bio_submit_split(), block/bio.c bio_split() (docs/design.md, "The split
 * fast check").
 */
#include "path/split.h"

#include <errno.h>
#include <limits.h>
#include <strings.h>

/* ---- bio_may_need_split ------------------------------------------------ */

bool bb_bio_may_need_split_vcnt(const struct bb_bio *bio,
				const struct bb_queue_limits *lim)
{
	return bb_may_need_split_vcnt_inline(bio, lim);
}

bool bb_bio_may_need_split_iter(const struct bb_bio *bio,
				const struct bb_queue_limits *lim)
{
	return bb_may_need_split_iter_inline(bio, lim);
}

/* ---- get_max_io_size ----------------------------------------------------- */

/* blk_boundary_sectors_left: sectors from offset to the next multiple of
 * boundary (which need not be a power of 2). */
static inline unsigned boundary_sectors_left(uint64_t offset,
					     unsigned boundary)
{
	if ((boundary & (boundary - 1)) == 0)
		return boundary - (unsigned)(offset & (boundary - 1));
	return boundary - (unsigned)(offset % boundary);
}

unsigned bb_get_max_io_size(const struct bb_bio *bio,
			    const struct bb_queue_limits *lim)
{
	unsigned pbs = lim->physical_block_size >> BB_SECTOR_SHIFT;
	unsigned lbs = lim->logical_block_size >> BB_SECTOR_SHIFT;
	bool is_atomic = bio->bi_opf & BB_REQ_ATOMIC;
	unsigned boundary, max_sectors, start, end;

	/* Atomic writes ignore max_sectors: they cannot be split. */
	if (is_atomic)
		max_sectors = lim->atomic_write_max_sectors;
	else
		max_sectors = lim->max_sectors;

	boundary = is_atomic && lim->atomic_write_boundary_sectors
			   ? lim->atomic_write_boundary_sectors
			   : lim->chunk_sectors;
	if (boundary)
		max_sectors = bb_min(max_sectors,
				     boundary_sectors_left(bio->bi_iter.bi_sector,
							   boundary));

	/* end the piece on a physical block boundary when possible */
	start = (unsigned)(bio->bi_iter.bi_sector & (pbs - 1));
	end = (start + max_sectors) & ~(pbs - 1);
	if (end > start)
		return end - start;
	return max_sectors & ~(lbs - 1);
}

/* ---- bio_split_rw_at ------------------------------------------------------ */

/* The "physical" address of a bvec's first byte (bvec_phys). */
static inline unsigned long bvec_phys(const struct bb_bvec *bv)
{
	return (unsigned long)(uintptr_t)bv->bv_page + bv->bv_offset;
}

/* get_max_segment_size: bytes of a segment starting at paddr, bounded by
 * len, the segment boundary and max_segment_size.  The +1 comes after the
 * min so that seg_boundary_mask == ULONG_MAX cannot overflow. */
static inline unsigned get_max_segment_size(const struct bb_queue_limits *lim,
					    unsigned long paddr, unsigned len)
{
	unsigned long mask = lim->seg_boundary_mask;
	unsigned long to_boundary = mask - (mask & paddr);
	unsigned long seg = bb_min(to_boundary,
				   (unsigned long)lim->max_segment_size - 1) + 1;

	return (unsigned)bb_min((unsigned long)len, seg);
}

/* bvec_split_segs: count the hardware segments of one (multi-page) bvec
 * that fit into *nsegs < max_segs and *bytes <= max_bytes; returns true
 * if the bio must be split inside or before this bvec. */
static bool bvec_split_segs(const struct bb_queue_limits *lim,
			    const struct bb_bvec *bv, unsigned *nsegs,
			    unsigned *bytes, unsigned max_segs,
			    unsigned max_bytes)
{
	unsigned max_len = max_bytes - *bytes;
	unsigned len = bb_min(bv->bv_len, max_len);
	unsigned total_len = 0;
	unsigned long paddr = bvec_phys(bv);

	while (len && *nsegs < max_segs) {
		unsigned seg = get_max_segment_size(lim, paddr + total_len,
						    len);

		(*nsegs)++;
		total_len += seg;
		len -= seg;
		/* the next segment would not start on a virt boundary */
		if ((bv->bv_offset + total_len) & lim->virt_boundary_mask)
			break;
	}
	*bytes += total_len;
	return len > 0 || bv->bv_len > max_len;
}

/* __bvec_gap: offset bits of the seam between prev and a bvec starting at
 * offset, under mask. */
static inline unsigned long bvec_gap(const struct bb_bvec *prev,
				     unsigned offset, unsigned long mask)
{
	return ((unsigned long)offset | (prev->bv_offset + prev->bv_len)) &
	       mask;
}

/* bvec_gap_to_prev: SG-gap-intolerant devices (virt_boundary_mask) need
 * every segment but the first to start on the boundary and every segment
 * but the last to end on it. */
static inline bool bvec_gap_to_prev(const struct bb_queue_limits *lim,
				    const struct bb_bvec *prev,
				    unsigned offset)
{
	if (!lim->virt_boundary_mask)
		return false;
	return bvec_gap(prev, offset, lim->virt_boundary_mask) != 0;
}

int bb_bio_split_rw_at(struct bb_bio *bio, const struct bb_queue_limits *lim,
		       unsigned *segs, unsigned max_bytes)
{
	const struct bb_bvec *vecs = bio->bi_io_vec;
	const unsigned start_align_mask = lim->dma_alignment;
	const unsigned len_align_mask = lim->dma_alignment;
	struct bb_bvec_iter iter = bio->bi_iter;
	struct bb_bvec bv, bvprv = { 0 };
	bool have_prev = false;
	unsigned nsegs = 0, bytes = 0, gaps = 0, align;

	/* bio_for_each_bvec */
	while (iter.bi_size) {
		bv = bb_bvec_iter_bvec(vecs, iter);

		if ((bv.bv_offset & start_align_mask) ||
		    (bv.bv_len & len_align_mask))
			return -EINVAL;

		if (have_prev) {
			if (bvec_gap_to_prev(lim, &bvprv, bv.bv_offset))
				goto split;
			gaps |= (unsigned)bvec_gap(&bvprv, bv.bv_offset,
						   UINT_MAX);
		}

		if (nsegs < lim->max_segments &&
		    (uint64_t)bytes + bv.bv_len <= max_bytes &&
		    (uint64_t)bv.bv_offset + bv.bv_len <=
			    lim->max_fast_segment_size) {
			nsegs++;
			bytes += bv.bv_len;
		} else if (bvec_split_segs(lim, &bv, &nsegs, &bytes,
					   lim->max_segments, max_bytes)) {
			goto split;
		}

		bvprv = bv;
		have_prev = true;

		/* bio_advance_iter_single */
		iter.bi_size -= bv.bv_len;
		iter.bi_bvec_done += bv.bv_len;
		if (iter.bi_bvec_done == vecs[iter.bi_idx].bv_len) {
			iter.bi_idx++;
			iter.bi_bvec_done = 0;
		}
	}

	*segs = nsegs;
	bio->bi_bvec_gap_bit = (uint8_t)ffs((int)gaps);
	return 0;

split:
	if (bio->bi_opf & BB_REQ_ATOMIC)
		return -EINVAL;
	/* Splitting may sleep on the mempool: a NOWAIT bio bails out. */
	if (bio->bi_opf & BB_REQ_NOWAIT)
		return -EAGAIN;

	*segs = nsegs;
	/* Individual bvecs need not be block aligned: round the piece down
	 * so that each piece is. */
	if (bb_bio_op(bio) == BB_REQ_OP_WRITE && lim->zone_write_granularity)
		align = lim->zone_write_granularity;
	else
		align = lim->logical_block_size;
	bytes -= bytes % align;
	/* Too many discontiguous vecs for max_segments, or a virt-boundary
	 * gap before one full block: the bio cannot be split validly. */
	if (!bytes)
		return -EINVAL;

	/* bio_clear_polled: a split bio is never polled (and in 6.1 it left
	 * the cache with it) */
	bb_bio_clear_polled(bio);
	bio->bi_bvec_gap_bit = (uint8_t)ffs((int)gaps);
	return (int)(bytes >> BB_SECTOR_SHIFT);
}

/* ---- bio_split / bio_submit_split ----------------------------------------- */

struct bb_bio *bb_bio_split(struct bb_bio *bio, int sectors,
			    struct bb_bioset *bs, int *err)
{
	struct bb_bio *split;

	if (sectors <= 0 || (unsigned)sectors >= bb_bio_sectors(bio) ||
	    (bio->bi_opf & BB_REQ_ATOMIC)) {
		if (err)
			*err = -EINVAL;
		return NULL;
	}

	split = bb_bio_alloc_clone(bio->bi_bdev, bio, bs);
	if (!split) {
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	split->bi_iter.bi_size = (uint32_t)sectors << BB_SECTOR_SHIFT;
	bb_bio_advance(bio, split->bi_iter.bi_size);
	return split;
}

static struct bb_bio *split_fail(struct bb_bio *bio, int e,
				 struct bb_split_counters *ctr, int *err)
{
	if (e == -EINVAL)
		ctr->einval++;
	else if (e == -EAGAIN)
		ctr->eagain++;
	bio->bi_status = (uint8_t)-e;
	if (err)
		*err = e;
	return NULL;
}

struct bb_bio *bb_bio_split_after_check(struct bb_bio *bio,
					const struct bb_queue_limits *lim,
					struct bb_bioset *split_bs,
					unsigned *nr_segs,
					struct bb_split_counters *ctr, int *err)
{
	struct bb_bio *split;
	uint64_t max_bytes;
	bool first_cut;
	int n, e;

	ctr->check_hits++;

	/* bio_split_rw */
	ctr->full_walks++;
	max_bytes = (uint64_t)bb_get_max_io_size(bio, lim) << BB_SECTOR_SHIFT;
	n = bb_bio_split_rw_at(bio, lim, nr_segs,
			       (unsigned)bb_min(max_bytes, (uint64_t)UINT_MAX));
	if (n < 0)
		return split_fail(bio, n, ctr, err);
	ctr->segs += *nr_segs;
	if (n == 0)
		return bio;

	/* bio_submit_split_bioset.  A parent is counted in "splits" once:
	 * when its first piece is cut, i.e. while it is not yet chained.
	 * (It stays BIO_CHAIN-flagged until its last completion, which
	 * cannot happen while the caller still splits it.) */
	first_cut = !bb_bio_flagged(bio, BB_BIO_CHAIN);
	split = bb_bio_split(bio, n, split_bs, &e);
	if (!split) {
		ctr->segs -= *nr_segs;
		return split_fail(bio, e, ctr, err);
	}
	bb_bio_chain(split, bio);
	split->bi_opf |= BB_REQ_NOMERGE;
	if (first_cut)
		ctr->splits++;
	ctr->pieces++;
	return split;
}
