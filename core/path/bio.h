/* SPDX-License-Identifier: GPL-2.0-only */
/* bio.h - userspace model of the kernel's struct bio (layout-dependent).
 *
 * The field order, sizes and offsets follow include/linux/blk_types.h on
 * x86-64 with CGROUP, IOCOST, INLINE_ENCRYPTION and INTEGRITY enabled
 * (struct bio as of Linux 6.18, docs/design.md): sizeof == 136 in both layouts; inline vecs follow
 * the struct (bio + 1) through the bioset's back_pad.  Fields the model does
 * not use (blkg, iocost, crypt, integrity) are kept as padding so that the
 * cache-line placement of the used fields is the kernel's.
 *
 * Include only from code compiled with -DBB_VEC_EARLY=0/1 (bb_layout.h).
 * The struct tag and every function name below are macros that expand to
 * a _late or _early name.
 */
#ifndef BB_BIO_H
#define BB_BIO_H

#include <biobench/common.h>
#include "path/layout.h"

#include <stdatomic.h>

/* struct bio_vec: a (multi-page) physically contiguous run.  bv_page is the
 * page-aligned virtual address standing for the page; the "physical"
 * address of byte i is bv_page + bv_offset + i. */
struct bb_bvec {
	void *bv_page;
	uint32_t bv_len;
	uint32_t bv_offset;
};

/* struct bvec_iter: packed, 4-byte aligned, 20 bytes. */
struct bb_bvec_iter {
	uint64_t bi_sector;    /* device address in 512-byte sectors */
	uint32_t bi_size;      /* residual I/O count in bytes */
	uint32_t bi_idx;       /* current index into bi_io_vec */
	uint32_t bi_bvec_done; /* bytes completed in the current bvec */
} __attribute__((packed, aligned(4)));

/* bi_opf: low 8 bits are the op, the rest REQ_* flags. */
#define BB_REQ_OP_MASK 0xffu
enum bb_req_op {
	BB_REQ_OP_READ = 0,
	BB_REQ_OP_WRITE = 1,
};
#define BB_REQ_FAILFAST (1u << 8)
#define BB_REQ_SYNC (1u << 11)
#define BB_REQ_NOMERGE (1u << 14)
#define BB_REQ_ATOMIC (1u << 17)
#define BB_REQ_POLLED (1u << 21)
#define BB_REQ_ALLOC_CACHE (1u << 22)
#define BB_REQ_NOWAIT (1u << 23)

/* bi_flags bits (enum order of the newest kernel). */
enum {
	BB_BIO_PAGE_PINNED = 0,
	BB_BIO_CLONED = 1,
	BB_BIO_QUIET = 2,
	BB_BIO_CHAIN = 3,
	BB_BIO_REFFED = 4,
};

#define BB_BIO_INLINE_VECS 4u
#define BB_BIO_MAX_VECS 256u
#define BB_BLK_QC_T_NONE 0xffffffffu


struct bb_bio;
struct bb_bioset;
typedef void (*bb_bio_end_io_t)(struct bb_bio *bio, enum bb_ctx ctx);

struct bb_bio {
	struct bb_bio *bi_next;   /*   0: request / cache list link */
	void *bi_bdev;            /*   8: the target (struct bb_target *) */
	uint32_t bi_opf;          /*  16 */
	uint16_t bi_flags;        /*  20 */
	uint16_t bi_ioprio;       /*  22 */
	uint8_t bi_write_hint;    /*  24 */
	uint8_t bi_write_stream;  /*  25 */
	uint8_t bi_status;        /*  26: 0 ok, else a positive errno */
	uint8_t bi_bvec_gap_bit;  /*  27 */
	atomic_int __bi_remaining; /* 28: chain counter */
#if BB_VEC_EARLY
	struct bb_bvec *bi_io_vec; /* 32: moved here Dec 2025 */
#endif
	struct bb_bvec_iter bi_iter; /* early: 40..59, late: 32..51 */
	uint32_t bi_cookie;          /* early: 60, late: 52 */
	bb_bio_end_io_t bi_end_io;   /* early: 64, late: 56 */
	void *bi_private;
	void *bi_blkg;               /* padding: CGROUP */
	uint64_t issue_time_ns;      /* padding: CGROUP */
	uint64_t bi_iocost_cost;     /* padding: IOCOST */
	void *bi_crypt_context;      /* padding: INLINE_ENCRYPTION */
	void *bi_integrity;          /* padding: BLK_DEV_INTEGRITY */
	uint16_t bi_vcnt;            /* early: 120, late: 112 */
	uint16_t bi_max_vecs;        /* early: 122, late: 114 */
	atomic_int __bi_cnt;         /* early: 124, late: 116 */
#if !BB_VEC_EARLY
	struct bb_bvec *bi_io_vec;   /* 120: before Dec 2025 */
#endif
	struct bb_bioset *bi_pool;   /* 128 */
};                                   /* sizeof 136 */

_Static_assert(sizeof(struct bb_bvec) == 16, "bio_vec is 16 bytes");
_Static_assert(sizeof(struct bb_bvec_iter) == 20, "bvec_iter is 20 bytes");
_Static_assert(sizeof(struct bb_bio) == 136, "struct bio is 136 bytes");

static inline unsigned bb_bio_op(const struct bb_bio *bio)
{
	return bio->bi_opf & BB_REQ_OP_MASK;
}

static inline uint32_t bb_bio_sectors(const struct bb_bio *bio)
{
	return bio->bi_iter.bi_size >> BB_SECTOR_SHIFT;
}

static inline bool bb_bio_flagged(const struct bb_bio *bio, unsigned bit)
{
	return bio->bi_flags & (1u << bit);
}

static inline void bb_bio_set_flag(struct bb_bio *bio, unsigned bit)
{
	bio->bi_flags |= (uint16_t)(1u << bit);
}

/* bio_init: set every field as the kernel's bio_init does; bi_pool is left
 * NULL (the allocator sets it).  The two counters are initialised, not
 * stored atomically: nobody else sees the bio yet (the kernel's
 * atomic_set is a plain store too), and a plain store lets the compiler
 * keep the caller's values in registers around it. */
static inline void bb_bio_init(struct bb_bio *bio, void *bdev,
			       struct bb_bvec *table, unsigned short max_vecs,
			       uint32_t opf)
{
	bio->bi_next = NULL;
	bio->bi_bdev = bdev;
	bio->bi_opf = opf;
	bio->bi_flags = 0;
	bio->bi_ioprio = 0;
	bio->bi_write_hint = 0;
	bio->bi_write_stream = 0;
	bio->bi_status = 0;
	bio->bi_bvec_gap_bit = 0;
	atomic_init(&bio->__bi_remaining, 1);
	bio->bi_iter.bi_sector = 0;
	bio->bi_iter.bi_size = 0;
	bio->bi_iter.bi_idx = 0;
	bio->bi_iter.bi_bvec_done = 0;
	bio->bi_cookie = BB_BLK_QC_T_NONE;
	bio->bi_end_io = NULL;
	bio->bi_private = NULL;
	bio->bi_blkg = NULL;
	bio->issue_time_ns = 0;
	bio->bi_iocost_cost = 0;
	bio->bi_crypt_context = NULL;
	bio->bi_integrity = NULL;
	bio->bi_vcnt = 0;
	bio->bi_max_vecs = max_vecs;
	atomic_init(&bio->__bi_cnt, 1);
	bio->bi_io_vec = table;
	bio->bi_pool = NULL;
}

/* The current bvec of an iterator, clipped to what is left of it and of the
 * bio (the kernel's mp_bvec_iter_bvec). */
static inline struct bb_bvec bb_bvec_iter_bvec(const struct bb_bvec *vecs,
					       struct bb_bvec_iter iter)
{
	const struct bb_bvec *v = &vecs[iter.bi_idx];
	struct bb_bvec bv;
	uint32_t left = v->bv_len - iter.bi_bvec_done;

	bv.bv_page = v->bv_page;
	bv.bv_offset = v->bv_offset + iter.bi_bvec_done;
	bv.bv_len = left < iter.bi_size ? left : iter.bi_size;
	return bv;
}

/* bvec_iter_advance: move an iterator forward by bytes. */
static inline void bb_bvec_iter_advance(const struct bb_bvec *vecs,
					struct bb_bvec_iter *iter,
					uint32_t bytes)
{
	uint32_t idx = iter->bi_idx;
	uint32_t done = iter->bi_bvec_done + bytes;

	iter->bi_sector += bytes >> BB_SECTOR_SHIFT;
	iter->bi_size -= bytes;
	while (done && done >= vecs[idx].bv_len) {
		done -= vecs[idx].bv_len;
		idx++;
	}
	iter->bi_idx = idx;
	iter->bi_bvec_done = done;
}

/* bio_advance */
static inline void bb_bio_advance(struct bb_bio *bio, uint32_t bytes)
{
	if (bio->bi_iter.bi_size == bytes) {
		bio->bi_iter.bi_sector += bytes >> BB_SECTOR_SHIFT;
		bio->bi_iter.bi_size = 0;
		return;
	}
	bb_bvec_iter_advance(bio->bi_io_vec, &bio->bi_iter, bytes);
}

/* bio_chain_endio is referenced by the chain logic. */
void bb_bio_chain_endio(struct bb_bio *bio, enum bb_ctx ctx);

/* bio_chain: the parent completes only after the child has. */
static inline void bb_bio_chain(struct bb_bio *child, struct bb_bio *parent)
{
	child->bi_private = parent;
	child->bi_end_io = bb_bio_chain_endio;
	atomic_fetch_add_explicit(&parent->__bi_remaining, 1,
				  memory_order_relaxed);
	bb_bio_set_flag(parent, BB_BIO_CHAIN);
}

/* bio_endio: drop one completion reference; when it was the last, walk up
 * the chain (each chained child is put) and call the top bio's bi_end_io.
 * ctx is the context the completion runs in. */
void bb_bio_endio(struct bb_bio *bio, enum bb_ctx ctx);

#endif
