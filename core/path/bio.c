// SPDX-License-Identifier: GPL-2.0-only
/* bio.c - bio completion and chaining (layout-dependent). */
#include "path/bio.h"
#include "path/bioset.h"

#include <assert.h>

/* __bio_chain_endio: pass the child's status up and put the child. */
static struct bb_bio *chain_endio_one(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct bb_bio *parent = bio->bi_private;

	if (bio->bi_status && !parent->bi_status)
		parent->bi_status = bio->bi_status;
	bb_bio_put(bio, ctx);
	return parent;
}

void bb_bio_chain_endio(struct bb_bio *bio, enum bb_ctx ctx)
{
	bb_bio_endio(chain_endio_one(bio, ctx), ctx);
}

/* bio_remaining_done */
static bool remaining_done(struct bb_bio *bio)
{
	if (!bb_bio_flagged(bio, BB_BIO_CHAIN))
		return true;
	assert(atomic_load_explicit(&bio->__bi_remaining,
				    memory_order_relaxed) > 0);
	if (atomic_fetch_sub_explicit(&bio->__bi_remaining, 1,
				      memory_order_acq_rel) == 1) {
		bio->bi_flags &= (uint16_t)~(1u << BB_BIO_CHAIN);
		return true;
	}
	return false;
}

void bb_bio_endio(struct bb_bio *bio, enum bb_ctx ctx)
{
again:
	if (!remaining_done(bio))
		return;
	/* Walk up the chain iteratively, as the kernel does, instead of
	 * recursing through bio_chain_endio. */
	if (bio->bi_end_io == bb_bio_chain_endio) {
		bio = chain_endio_one(bio, ctx);
		goto again;
	}
	if (bio->bi_end_io)
		bio->bi_end_io(bio, ctx);
}
