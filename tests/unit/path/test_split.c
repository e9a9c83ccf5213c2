// SPDX-License-Identifier: GPL-2.0-only
/* test_split.c - bio splitting against queue limits (compiled per layout).
 *
 * Split points are hand-computed from the kernel's rules (block/blk-merge.c:
 * bio_split_io_at, bvec_split_segs, get_max_io_size) and written as literals; the comment of each case shows the
 * arithmetic.  "Pages" are fake, never dereferenced, 4 KiB-aligned
 * addresses: page n is PG_BASE + n * 4096, so "physical" address =
 * PG_BASE + n * 4096 + bv_offset.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "path/split.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PG_BASE 0x10000000ul /* 256 MiB: aligned to every mask used */
#define MAXV 64

/* ---- building limits and bios ------------------------------------------ */

/* Zero fields mean "not set" (validate fills the default); max_hw_sectors
 * 0 means 2048 here (1 MiB, so max_sectors = min(2048, 8192) = 2048),
 * not the kernel's 255. */
struct lim_spec {
	unsigned max_hw, max_user, max_segments, max_segment_size, chunk;
	unsigned lbs, pbs, dma, zwg, atomic_max, atomic_boundary;
	unsigned long seg_boundary, virt_boundary;
};

static void make_limits(struct bb_queue_limits *lim,
			const struct lim_spec *s)
{
	const char *why = NULL;

	bb_limits_clear(lim);
	lim->max_hw_sectors = s->max_hw ? s->max_hw : 2048;
	lim->max_user_sectors = s->max_user;
	lim->max_segments = (unsigned short)s->max_segments;
	lim->max_segment_size = s->max_segment_size;
	lim->chunk_sectors = s->chunk;
	lim->logical_block_size = s->lbs;
	lim->physical_block_size = s->pbs;
	lim->dma_alignment = s->dma;
	lim->zone_write_granularity = s->zwg;
	lim->atomic_write_max_sectors = s->atomic_max;
	lim->atomic_write_boundary_sectors = s->atomic_boundary;
	lim->seg_boundary_mask = s->seg_boundary;
	lim->virt_boundary_mask = s->virt_boundary;
	if (bb_limits_validate(lim, &why)) {
		fprintf(stderr, "limits rejected: %s\n", why);
		fail();
	}
}

struct vspec {
	unsigned page;
	uint32_t off, len;
};

/* rep > 0: vecs[0] repeated rep times, page n, n+stride, n+2*stride...
 * idx/done: start the iterator inside the table (a remainder or clone);
 * size 0 = everything from there to the end of the table. */
struct bio_spec {
	uint32_t opf;
	uint64_t sector;
	unsigned nvecs;
	struct vspec v[8];
	unsigned rep, stride;
	uint32_t idx, done, size;
};

struct tbio {
	struct bb_bio bio;
	struct bb_bvec table[MAXV];
};

static void *pg(unsigned n)
{
	return (void *)(PG_BASE + (unsigned long)n * BB_PAGE_SIZE);
}

static void build_bio(struct tbio *t, const struct bio_spec *s)
{
	unsigned n = s->rep ? s->rep : s->nvecs;
	uint64_t total = 0;

	assert_true(n <= MAXV);
	for (unsigned i = 0; i < n; i++) {
		const struct vspec *v = s->rep ? &s->v[0] : &s->v[i];
		unsigned page = s->rep ? v->page + i * (s->stride ? s->stride : 1)
				       : v->page;

		t->table[i].bv_page = pg(page);
		t->table[i].bv_offset = v->off;
		t->table[i].bv_len = v->len;
		total += v->len;
	}
	bb_bio_init(&t->bio, NULL, t->table, (unsigned short)n, s->opf);
	t->bio.bi_vcnt = (uint16_t)n;
	t->bio.bi_iter.bi_sector = s->sector;
	for (unsigned i = 0; i < s->idx; i++)
		total -= t->table[i].bv_len;
	total -= s->done;
	t->bio.bi_iter.bi_idx = s->idx;
	t->bio.bi_iter.bi_bvec_done = s->done;
	t->bio.bi_iter.bi_size = s->size ? s->size : (uint32_t)total;
}

static int split_at(struct bb_bio *bio, const struct bb_queue_limits *lim,
		    unsigned *segs)
{
	uint64_t max = (uint64_t)bb_get_max_io_size(bio, lim) << 9;

	return bb_bio_split_rw_at(bio, lim, segs,
				  max > UINT32_MAX ? UINT32_MAX : (unsigned)max);
}

/* ---- table: bio_split_rw_at split points --------------------------------- */

#define RD BB_REQ_OP_READ
#define WR BB_REQ_OP_WRITE
#define K4 4096u

struct split_case {
	const char *name;
	struct lim_spec lim;
	struct bio_spec bio;
	int ret;       /* bb_bio_split_rw_at: -errno, 0, or front sectors */
	unsigned segs; /* checked when ret >= 0 */
	int gap;       /* bi_bvec_gap_bit, checked when ret >= 0 */
};

static const struct split_case split_cases[] = {
	/* max_sectors = min(2048, user 8) = 8 -> max_bytes 4096.  v0: fast
	 * (1 seg, 4096 B); v1: 4096+4096 > 4096 -> bvec_split_segs with
	 * max_len 0 -> split.  4096 B = 8 sectors.  gap: v1 seam
	 * 0 | (0+4096) = 0x1000 -> ffs 13. */
	{ "max_sectors 4K, 16x4K vecs", { .max_user = 8 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 8, 1, 13 },
	/* one 64 KiB multi-page vec: bvec_split_segs max_len 4096, one
	 * segment of min(4096, 65536) -> bytes 4096, 65536 > 4096 -> split
	 * at 8 sectors. */
	{ "max_sectors 4K, one 64K vec", { .max_user = 8 },
	  { RD, 0, 1, { { 0, 0, 65536 } }, 0, 0, 0, 0, 0 }, 8, 1, 0 },
	/* 16 x 4 KiB = 64 KiB <= 1 MiB, 16 <= 128 segments: no split. */
	{ "16x4K fits", { 0 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 0, 16, 13 },
	/* max_segments 4: v0..v3 fast (4 segs, 16384 B); v4: nsegs == 4
	 * -> bvec_split_segs adds nothing, len 4096 > 0 -> split at
	 * 16384 B = 32 sectors. */
	{ "max_segments 4, 8x4K", { .max_segments = 4 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 8, 2, 0, 0, 0 }, 32, 4, 13 },
	/* max_segments 1, two 512 B vecs: split after 512 B = 1 sector;
	 * gap 0 | 512 = 0x200 -> ffs 10. */
	{ "max_segments 1, 2x512B", { .max_segments = 1 },
	  { RD, 0, 2, { { 0, 0, 512 }, { 2, 0, 512 } }, 0, 0, 0, 0, 0 },
	  1, 1, 10 },
	/* max_segment_size 8192, one 64 KiB vec: off+len 65536 > fast
	 * 4096 -> bvec_split_segs: 8 segments of min(.., 8191)+1 = 8192,
	 * len left 0 -> no split, 8 segs. */
	{ "max_segment_size 8K, 64K vec", { .max_segment_size = 8192 },
	  { RD, 0, 1, { { 0, 0, 65536 } }, 0, 0, 0, 0, 0 }, 0, 8, 0 },
	/* + max_segments 4: 4 x 8192 = 32768 B, 32768 left -> split at
	 * 64 sectors. */
	{ "max_segment_size 8K + max_segments 4, 64K vec",
	  { .max_segment_size = 8192, .max_segments = 4 },
	  { RD, 0, 1, { { 0, 0, 65536 } }, 0, 0, 0, 0, 0 }, 64, 4, 0 },
	/* seg_boundary_mask 0xFFFF; 32 KiB vec at page 12 -> phys
	 * base+0xC000: 1st seg 0xFFFF - 0xC000 + 1 = 0x4000 (16384),
	 * 2nd from base+0x10000 (& mask = 0): min(16384, 65536) -> 2 segs. */
	{ "seg_boundary 64K crossed by a 32K vec", { .seg_boundary = 0xFFFF },
	  { RD, 0, 1, { { 12, 0, 32768 } }, 0, 0, 0, 0, 0 }, 0, 2, 0 },
	/* same with max_segments 1: one 16384 B segment, 16384 left ->
	 * split at 32 sectors. */
	{ "seg_boundary 64K + max_segments 1",
	  { .seg_boundary = 0xFFFF, .max_segments = 1 },
	  { RD, 0, 1, { { 12, 0, 32768 } }, 0, 0, 0, 0, 0 }, 32, 1, 0 },
	/* vec at page 13 offset 0x800 -> phys base+0xD800, 0x4000 long:
	 * 1st seg 0x10000 - 0xD800 = 0x2800, 2nd 0x1800 -> 2 segs. */
	{ "seg_boundary crossed from a bv_offset", { .seg_boundary = 0xFFFF },
	  { RD, 0, 1, { { 13, 0x800, 0x4000 } }, 0, 0, 0, 0, 0 }, 0, 2, 0 },
	/* NVMe-like: virt 4095, dma 3.  v1 seam 0|4096 & 4095 = 0 (ok,
	 * gaps 0x1000); v2 starts at 512: 512 & 4095 != 0 -> split before
	 * it: 8192 B = 16 sectors, 2 segs, gap ffs(0x1000) = 13. */
	{ "virt boundary: vec not starting on the boundary",
	  { .virt_boundary = 4095, .dma = 3 },
	  { RD, 0, 4, { { 0, 0, K4 }, { 1, 0, K4 }, { 2, 512, 3584 },
			{ 3, 0, K4 } }, 0, 0, 0, 0, 0 }, 16, 2, 13 },
	/* the first vec may start mid-boundary; v0 ends at 1024+3072 =
	 * 4096: no gap -> no split, 2 segs, gaps 0x1000 -> 13. */
	{ "virt boundary: first vec mid-boundary is fine",
	  { .virt_boundary = 4095, .dma = 3 },
	  { RD, 0, 2, { { 0, 1024, 3072 }, { 1, 0, K4 } }, 0, 0, 0, 0, 0 },
	  0, 2, 13 },
	/* v1 (1000 B) ends mid-boundary, so v2 cannot follow: split after
	 * 4096+1000 = 5096 B, rounded down to 512: 4608 B = 9 sectors. */
	{ "virt boundary: bytes rounded down",
	  { .virt_boundary = 4095, .dma = 3 },
	  { RD, 0, 3, { { 0, 0, K4 }, { 1, 0, 1000 }, { 2, 0, 1048 } },
	    0, 0, 0, 0, 0 }, 9, 2, 13 },
	/* v0 is 256 B and ends mid-boundary: split after 256 B -> rounds
	 * to 0 bytes -> -EINVAL. */
	{ "virt boundary: gap before one block -> EINVAL",
	  { .virt_boundary = 4095, .dma = 3 },
	  { RD, 0, 2, { { 0, 0, 256 }, { 1, 0, 256 } }, 0, 0, 0, 0, 0 },
	  -EINVAL, 0, 0 },
	/* virt 4095, max_segment_size 6144, one 16 KiB vec: 1st segment
	 * 6144 B, (0+6144) & 4095 = 2048 -> bvec_split_segs stops early,
	 * 10240 left -> split at 6144 B = 12 sectors. */
	{ "virt boundary: early stop inside a multi-page vec",
	  { .virt_boundary = 4095, .dma = 3, .max_segment_size = 6144 },
	  { RD, 0, 1, { { 0, 0, 16384 } }, 0, 0, 0, 0, 0 }, 12, 1, 0 },
	/* same vec without a virt boundary: 6144 + 6144 + 4096 -> 3 segs. */
	{ "max_segment_size 6144 without virt boundary",
	  { .max_segment_size = 6144 },
	  { RD, 0, 1, { { 0, 0, 16384 } }, 0, 0, 0, 0, 0 }, 0, 3, 0 },
	/* chunk 256 from sector 200: 256 - (200 & 255) = 56 sectors =
	 * 28672 B = 7 vecs, split before v7 -> 56, 7 segs. */
	{ "chunk_sectors 256 from sector 200", { .chunk = 256 },
	  { RD, 200, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 56, 7, 13 },
	/* chunk 96 (not a power of 2) from 200: 96 - 200 % 96 = 96 - 8 =
	 * 88 sectors = 45056 B = 11 vecs -> 88, 11 segs. */
	{ "chunk_sectors 96 (non power of 2) from sector 200", { .chunk = 96 },
	  { RD, 200, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 88, 11, 13 },
	/* pbs 4096 (8 sectors), max_sectors 20, sector 3: start 3, end
	 * (3+20) & ~7 = 16 -> 13 sectors = 6656 B: v0 4096 fast, v1 gets
	 * 2560 B (1 seg) -> split at 13 sectors, 2 segs; the piece ends at
	 * sector 16, a physical block boundary. */
	{ "physical block alignment of the split end",
	  { .pbs = 4096, .max_user = 20 },
	  { RD, 3, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 13, 2, 13 },
	/* lbs 4096, max_segments 2: v0 4096 + v1 2048 = 6144 B, v2 hits
	 * the segment limit -> 6144 rounded to 4096 = 8 sectors.  gaps:
	 * 0x1000 (v1 seam) | 0x800 (v2 seam, 0 | 0+2048) -> ffs 12. */
	{ "logical block rounding (lbs 4096)",
	  { .lbs = 4096, .max_segments = 2 },
	  { RD, 0, 4, { { 0, 0, K4 }, { 2, 0, 2048 }, { 4, 0, 2048 },
			{ 6, 0, K4 } }, 0, 0, 0, 0, 0 }, 8, 2, 12 },
	/* max_segments 3, 6 x 4 KiB: split after 12288 B; a WRITE rounds to
	 * zone_write_granularity 8192 -> 16 sectors ... */
	{ "zone_write_granularity 8K rounds a write",
	  { .max_segments = 3, .zwg = 8192 },
	  { WR, 0, 0, { { 0, 0, K4 } }, 6, 2, 0, 0, 0 }, 16, 3, 13 },
	/* ... a READ rounds to lbs 512 -> 24 sectors. */
	{ "zone_write_granularity ignored for a read",
	  { .max_segments = 3, .zwg = 8192 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 6, 2, 0, 0, 0 }, 24, 3, 13 },
	/* dma_alignment 511: offset 256 & 511 != 0 -> -EINVAL. */
	{ "dma_alignment: misaligned offset", { 0 },
	  { RD, 0, 1, { { 0, 256, 3584 } }, 0, 0, 0, 0, 0 }, -EINVAL, 0, 0 },
	/* length 1000 & 511 != 0 -> -EINVAL (len_align_mask). */
	{ "dma_alignment: misaligned length", { 0 },
	  { RD, 0, 2, { { 0, 0, 1000 }, { 1, 0, 24 } }, 0, 0, 0, 0, 0 },
	  -EINVAL, 0, 0 },
	/* dma_alignment 3: offset 2 -> -EINVAL */
	{ "dma_alignment 3: offset 2", { .dma = 3 },
	  { RD, 0, 1, { { 0, 2, 4092 } }, 0, 0, 0, 0, 0 }, -EINVAL, 0, 0 },
	/* dma_alignment 3 accepts 4-byte granules: 1 vec, 1 seg. */
	{ "dma_alignment 3: offset 4 ok", { .dma = 3 },
	  { RD, 0, 1, { { 0, 4, 508 } }, 0, 0, 0, 0, 0 }, 0, 1, 0 },
	/* the check runs per vec as the walk reaches it: v1 is misaligned
	 * and reached before the split decision -> -EINVAL ... */
	{ "dma_alignment: checked before splitting", { .max_user = 8 },
	  { RD, 0, 2, { { 0, 0, K4 }, { 1, 256, 3840 } }, 0, 0, 0, 0, 0 },
	  -EINVAL, 0, 0 },
	/* ... but a misaligned vec behind the split point is never seen:
	 * split before v1 at 8 sectors. */
	{ "dma_alignment: vec behind the split point not checked",
	  { .max_user = 8 },
	  { RD, 0, 3, { { 0, 0, K4 }, { 1, 0, K4 }, { 2, 256, 3840 } },
	    0, 0, 0, 0, 0 }, 8, 1, 13 },
	/* REQ_NOWAIT and a split needed -> -EAGAIN */
	{ "REQ_NOWAIT needing a split", { .max_user = 8 },
	  { RD | BB_REQ_NOWAIT, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 },
	  -EAGAIN, 0, 0 },
	/* REQ_NOWAIT without a split is fine */
	{ "REQ_NOWAIT, no split", { 0 },
	  { RD | BB_REQ_NOWAIT, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 },
	  0, 16, 13 },
	/* REQ_ATOMIC: limit = atomic_write_max_sectors 16 (8 KiB) < 64
	 * KiB -> a split would be needed -> -EINVAL */
	{ "REQ_ATOMIC needing a split", { .atomic_max = 16 },
	  { WR | BB_REQ_ATOMIC, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 },
	  -EINVAL, 0, 0 },
	/* ATOMIC is tested before NOWAIT -> -EINVAL */
	{ "REQ_ATOMIC|REQ_NOWAIT needing a split", { .atomic_max = 16 },
	  { WR | BB_REQ_ATOMIC | BB_REQ_NOWAIT, 0, 0, { { 0, 0, K4 } }, 16, 1,
	    0, 0, 0 }, -EINVAL, 0, 0 },
	/* atomic writes ignore max_sectors (8): atomic max 256 sectors
	 * holds 64 KiB -> no split */
	{ "REQ_ATOMIC ignores max_sectors", { .atomic_max = 256, .max_user = 8 },
	  { WR | BB_REQ_ATOMIC, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 },
	  0, 16, 13 },
	/* a remainder: 3 x 8 KiB vecs (pages 0, 4, 8), iterator at idx 0
	 * done 4096: bvecs seen are (off 4096, 4096), (0, 8192), (0, 8192);
	 * each > fast size -> bvec_split_segs, 1 seg each (max_segment_size
	 * 64K) -> 3 segs.  gaps: 0 | (4096+4096) = 0x2000 -> 14. */
	{ "remainder with bi_bvec_done", { 0 },
	  { RD, 8, 3, { { 0, 0, 8192 }, { 4, 0, 8192 }, { 8, 0, 8192 } },
	    0, 0, 0, 4096, 0 }, 0, 3, 14 },
	/* same with max_sectors 8: the first 4096 B fill it -> 8. */
	{ "remainder with bi_bvec_done, max_sectors 4K", { .max_user = 8 },
	  { RD, 8, 3, { { 0, 0, 8192 }, { 4, 0, 8192 }, { 8, 0, 8192 } },
	    0, 0, 0, 4096, 0 }, 8, 1, 14 },
	/* a remainder that starts at bi_idx 1: vecs (0,8192), (0,8192):
	 * 2 segs, gap 0x2000 -> 14. */
	{ "remainder with bi_idx", { 0 },
	  { RD, 16, 3, { { 0, 0, 8192 }, { 4, 0, 8192 }, { 8, 0, 8192 } },
	    0, 0, 1, 0, 0 }, 0, 2, 14 },
	/* a clone trimmed by bi_size ending inside v1: bvecs (0, 8192),
	 * (0, 4096) -> 2 segs */
	{ "clone trimmed by bi_size", { 0 },
	  { RD, 0, 3, { { 0, 0, 8192 }, { 4, 0, 8192 }, { 8, 0, 8192 } },
	    0, 0, 0, 0, 12288 }, 0, 2, 14 },
	/* no virt boundary: gaps still accumulate: 512 | 4096 = 0x1200 ->
	 * lowest bit 0x200 -> ffs 10. */
	{ "gap bit without a virt boundary", { 0 },
	  { RD, 0, 2, { { 0, 0, K4 }, { 1, 512, 3584 } }, 0, 0, 0, 0, 0 },
	  0, 2, 10 },
};

static void test_split_points(void **state)
{
	(void)state;
	for (size_t i = 0; i < bb_array_size(split_cases); i++) {
		const struct split_case *c = &split_cases[i];
		struct bb_queue_limits lim;
		struct tbio t;
		unsigned segs = 12345;
		int ret;

		make_limits(&lim, &c->lim);
		build_bio(&t, &c->bio);
		t.bio.bi_bvec_gap_bit = 0xee;
		ret = split_at(&t.bio, &lim, &segs);
		if (ret != c->ret ||
		    (ret >= 0 && (segs != c->segs ||
				  t.bio.bi_bvec_gap_bit != c->gap))) {
			fprintf(stderr,
				"case \"%s\": ret %d (want %d) segs %u (want "
				"%u) gap %u (want %d)\n",
				c->name, ret, c->ret, segs, c->segs,
				t.bio.bi_bvec_gap_bit, c->gap);
			fail();
		}
		/* the walk never moves the iterator */
		if (c->bio.sector != t.bio.bi_iter.bi_sector)
			fail_msg("case \"%s\": iterator moved", c->name);
	}
}

/* ---- table: get_max_io_size -------------------------------------------- */

struct maxio_case {
	const char *name;
	struct lim_spec lim;
	uint32_t opf;
	uint64_t sector;
	unsigned want;
};

static const struct maxio_case maxio_cases[] = {
	/* max_sectors = min(2048, cap 8192) = 2048 */
	{ "plain", { 0 }, RD, 0, 2048 },
	/* the kernel default: max_hw 255 -> max_sectors 255 */
	{ "max_hw 255", { .max_hw = 255 }, RD, 0, 255 },
	{ "max_sectors 8", { .max_user = 8 }, RD, 0, 8 },
	/* 256 - (200 & 255) = 56 */
	{ "chunk 256 @200", { .chunk = 256 }, RD, 200, 56 },
	/* on a chunk boundary: min(2048, 256) */
	{ "chunk 256 @256", { .chunk = 256 }, RD, 256, 256 },
	/* 96 - 200 % 96 = 88 */
	{ "chunk 96 @200", { .chunk = 96 }, RD, 200, 88 },
	/* pbs 8 sectors: start 3, end (3 + 20) & ~7 = 16 -> 13 */
	{ "pbs 4K @3", { .pbs = 4096, .max_user = 20 }, RD, 3, 13 },
	/* start 0, end 20 & ~7 = 16 -> 16 */
	{ "pbs 4K @0", { .pbs = 4096, .max_user = 20 }, RD, 0, 16 },
	/* pbs 128 sectors: start 5, end 13 & ~127 = 0 <= 5 -> 8 & ~0 = 8 */
	{ "pbs 64K @5, no aligned end", { .pbs = 65536, .max_user = 8 }, RD, 5,
	  8 },
	/* pbs 128 KiB (256 sectors, a size the kernel accepts): start 3,
	 * end (3 + 1000) & ~255 = 768 -> 765 */
	{ "pbs 128K @3", { .pbs = 131072, .max_user = 1000 }, RD, 3, 765 },
	/* lbs 8, pbs 64 sectors, chunk 100 @72: left 28; start 72 & 63 = 8,
	 * end 36 & ~63 = 0 -> 28 & ~7 = 24 */
	{ "lbs rounding when no pbs end", { .lbs = 4096, .pbs = 32768,
					    .chunk = 100 }, RD, 72, 24 },
	/* lbs 8, pbs 64, chunk 100 @40: left 60; start 40, end 100 & ~63 =
	 * 64 -> 24 */
	{ "pbs end inside a chunk", { .lbs = 4096, .pbs = 32768, .chunk = 100 },
	  RD, 40, 24 },
	/* atomic: limit 64, boundary 32 replaces chunk 256: 32 - 20 = 12 */
	{ "atomic boundary", { .atomic_max = 64, .atomic_boundary = 32,
			       .chunk = 256 }, WR | BB_REQ_ATOMIC, 20, 12 },
	/* the same limits for a plain write: chunk: 256 - 20 = 236 */
	{ "non-atomic ignores atomic boundary", { .atomic_max = 64,
						   .atomic_boundary = 32,
						   .chunk = 256 }, WR, 20, 236 },
	/* atomic without an atomic boundary uses chunk: min(64, 236) */
	{ "atomic uses chunk without its own boundary",
	  { .atomic_max = 64, .chunk = 256 }, WR | BB_REQ_ATOMIC, 20, 64 },
};

static void test_get_max_io_size(void **state)
{
	(void)state;
	for (size_t i = 0; i < bb_array_size(maxio_cases); i++) {
		const struct maxio_case *c = &maxio_cases[i];
		struct bb_queue_limits lim;
		struct tbio t;
		struct bio_spec s = { c->opf, c->sector, 1, { { 0, 0, K4 } },
				      0, 0, 0, 0, 0 };
		unsigned got;

		make_limits(&lim, &c->lim);
		build_bio(&t, &s);
		got = bb_get_max_io_size(&t.bio, &lim);
		if (got != c->want)
			fail_msg("case \"%s\": %u, want %u", c->name, got,
				 c->want);
	}
}

static void test_polled_cleared_on_split(void **state)
{
	struct lim_spec ls = { .max_user = 8 };
	struct bio_spec bs = { RD | BB_REQ_POLLED, 0, 0, { { 0, 0, K4 } },
			       16, 1, 0, 0, 0 };
	struct bb_queue_limits lim;
	struct tbio t;
	unsigned segs;

	(void)state;
	make_limits(&lim, &ls);
	build_bio(&t, &bs);
	assert_int_equal(split_at(&t.bio, &lim, &segs), 8);
	assert_false(t.bio.bi_opf & BB_REQ_POLLED);

	/* no split: REQ_POLLED stays */
	bs.rep = 1;
	build_bio(&t, &bs);
	assert_int_equal(split_at(&t.bio, &lim, &segs), 0);
	assert_true(t.bio.bi_opf & BB_REQ_POLLED);

	/* -EAGAIN: REQ_POLLED stays too */
	bs.rep = 16;
	bs.opf |= BB_REQ_NOWAIT;
	build_bio(&t, &bs);
	assert_int_equal(split_at(&t.bio, &lim, &segs), -EAGAIN);
	assert_true(t.bio.bi_opf & BB_REQ_POLLED);
}

/* seg_boundary_mask = ULONG_MAX must not overflow get_max_segment_size */
static void test_boundary_mask_all_ones(void **state)
{
	struct lim_spec ls = { .seg_boundary = ~0ul,
			       .max_segment_size = 0xFFFFFFFFu };
	struct bio_spec bs = { RD, 0, 1, { { 0, 0, 1u << 20 } }, 0, 0, 0, 0,
			       0 };
	struct bb_queue_limits lim;
	struct tbio t;
	unsigned segs;

	(void)state;
	make_limits(&lim, &ls);
	/* mask ULONG_MAX > max_segment_size - 1: fast size min(UINT_MAX,
	 * 4096) */
	assert_int_equal(lim.max_fast_segment_size, 4096);
	build_bio(&t, &bs);
	/* 1 MiB in one vec = one segment, within max_sectors 2048 */
	assert_int_equal(split_at(&t.bio, &lim, &segs), 0);
	assert_int_equal(segs, 1);
}

/* ---- may_need_split: both forms ------------------------------------------ */

static bool check_vcnt(const struct bb_bio *b, const struct bb_queue_limits *l)
{
	return bb_bio_may_need_split_vcnt(b, l);
}

static bool check_iter(const struct bb_bio *b, const struct bb_queue_limits *l)
{
	return bb_bio_may_need_split_iter(b, l);
}

/* The Dec 2025 iter form, before the Jan 2026 bi_bvec_done fix. */
static bool iter_without_fix(const struct bb_bio *bio,
			     const struct bb_queue_limits *lim)
{
	const struct bb_bvec *bv;

	if (lim->chunk_sectors)
		return true;
	if (!bio->bi_io_vec)
		return true;
	bv = &bio->bi_io_vec[bio->bi_iter.bi_idx];
	if (bio->bi_iter.bi_size > bv->bv_len)
		return true;
	return bv->bv_len + bv->bv_offset > lim->max_fast_segment_size;
}

static void test_may_need_split_basic(void **state)
{
	struct bb_queue_limits lim;
	struct lim_spec ls = { 0 };
	struct tbio t;
	struct bio_spec one = { RD, 0, 1, { { 0, 0, K4 } }, 0, 0, 0, 0, 0 };
	struct bio_spec two = { RD, 0, 2, { { 0, 0, K4 }, { 1, 0, K4 } },
				0, 0, 0, 0, 0 };
	struct bio_spec big = { RD, 0, 1, { { 0, 0, 8192 } }, 0, 0, 0, 0, 0 };
	struct bio_spec off = { RD, 0, 1, { { 0, 512, K4 } }, 0, 0, 0, 0, 0 };

	(void)state;
	make_limits(&lim, &ls);

	build_bio(&t, &one); /* 1 vec, 0 + 4096 <= 4096 */
	assert_false(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_false(bb_bio_may_need_split_iter(&t.bio, &lim));
	build_bio(&t, &two); /* 2 vecs */
	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));
	build_bio(&t, &big); /* 8192 > 4096 */
	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));
	build_bio(&t, &off); /* 512 + 4096 > 4096: crosses a page */
	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));

	/* chunk_sectors: always true */
	ls.chunk = 256;
	make_limits(&lim, &ls);
	build_bio(&t, &one);
	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));

	/* virt boundary devices may have a max_segment_size below a page:
	 * fast size min(2048, 4096) = 2048, so a single 4 KiB vec may need
	 * a split - and does: 2048 B per segment, (0 + 2048) & 4095 != 0
	 * stops bvec_split_segs -> 4 sectors. */
	ls = (struct lim_spec){ .virt_boundary = 4095, .dma = 3,
				.max_segment_size = 2048 };
	make_limits(&lim, &ls);
	assert_int_equal(lim.max_fast_segment_size, 2048);
	build_bio(&t, &one);
	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));
	{
		unsigned segs;

		assert_int_equal(split_at(&t.bio, &lim, &segs), 4);
		assert_int_equal(segs, 1);
	}

	/* iter form: no bi_io_vec -> true */
	ls = (struct lim_spec){ 0 };
	make_limits(&lim, &ls);
	build_bio(&t, &one);
	t.bio.bi_io_vec = NULL;
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));
}

/* A cloned bio (bi_vcnt 0) on a single small vec: the vcnt form says "may
 * need split" (a wasted walk, no harm), the iter form says no. */
static void test_may_need_split_differ_clone(void **state)
{
	struct lim_spec ls = { 0 };
	struct bio_spec s = { RD, 0, 3, { { 0, 0, K4 }, { 1, 0, 2048 },
					  { 2, 0, K4 } }, 0, 0, 1, 0, 0 };
	struct bb_queue_limits lim;
	struct tbio t;
	unsigned segs;

	(void)state;
	make_limits(&lim, &ls);
	build_bio(&t, &s); /* iterator on v1 only: 2048 B */
	t.bio.bi_vcnt = 0;
	t.bio.bi_iter.bi_size = 2048;
	bb_bio_set_flag(&t.bio, BB_BIO_CLONED);

	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_false(bb_bio_may_need_split_iter(&t.bio, &lim));
	assert_int_equal(split_at(&t.bio, &lim, &segs), 0);
	assert_int_equal(segs, 1);
}

/* The Jan 2026 case: a remainder whose iterator is inside v0
 * (bi_bvec_done 2048) and reaches into v1.  bi_size 4096 is not more than
 * v0's bv_len 4096, so the unfixed iter form calls it single-segment;
 * with the fix 4096 > 4096 - 2048 -> may split.  With max_segments 1 the
 * walk does split (at 2048 B = 4 sectors). */
static void test_may_need_split_bvec_done_fix(void **state)
{
	struct lim_spec ls = { .max_segments = 1 };
	struct bio_spec s = { RD, 4, 2, { { 0, 0, K4 }, { 1, 0, K4 } },
			      0, 0, 0, 2048, 0 };
	struct bb_queue_limits lim;
	struct tbio t;
	unsigned segs;

	(void)state;
	make_limits(&lim, &ls);
	build_bio(&t, &s);
	t.bio.bi_iter.bi_size = 4096;
	t.bio.bi_vcnt = 0; /* a clone */

	assert_false(iter_without_fix(&t.bio, &lim)); /* the old bug */
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));
	assert_true(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_int_equal(split_at(&t.bio, &lim, &segs), 4);
	assert_int_equal(segs, 1);

	/* even without a split the walk counts 2 segments, which the fast
	 * path would have reported as 1 (the __blk_rq_map_sg WARN) */
	ls = (struct lim_spec){ 0 };
	make_limits(&lim, &ls);
	assert_int_equal(split_at(&t.bio, &lim, &segs), 0);
	assert_int_equal(segs, 2);
	assert_true(bb_bio_may_need_split_iter(&t.bio, &lim));
}

/* Known property of the kernel's fast path, kept by the model: a single
 * 4 KiB vec at a sector that is not physical-block aligned, with
 * max_sectors 8 and pbs 4096: get_max_io_size gives (3+8)&~7 - 3 = 5
 * sectors, so the walk would cut at 5, but both fast checks skip the walk
 * (the bio fits max_sectors and one segment; only the pbs-aligned split
 * end is lost). */
static void test_may_need_split_pbs_unaligned(void **state)
{
	struct lim_spec ls = { .pbs = 4096, .max_user = 8 };
	struct bio_spec s = { RD, 3, 1, { { 0, 0, K4 } }, 0, 0, 0, 0, 0 };
	struct bb_queue_limits lim;
	struct tbio t;
	unsigned segs;

	(void)state;
	make_limits(&lim, &ls);
	build_bio(&t, &s);
	assert_false(bb_bio_may_need_split_vcnt(&t.bio, &lim));
	assert_false(bb_bio_may_need_split_iter(&t.bio, &lim));
	assert_int_equal(split_at(&t.bio, &lim, &segs), 5);
}

/* deterministic PRNG (xorshift64*) */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Dull;
}
static unsigned rnd_below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static const struct lim_spec prop_limits[] = {
	{ 0 },
	{ .max_user = 8 },
	{ .max_user = 16, .max_segments = 2 },
	{ .max_segments = 4 },
	{ .max_segment_size = 4096 },
	{ .max_segment_size = 8192, .max_segments = 3 },
	{ .seg_boundary = 0xFFF },
	{ .seg_boundary = 0x1FFF, .max_user = 24 },
	{ .virt_boundary = 4095, .dma = 3 },
	{ .virt_boundary = 4095, .dma = 3, .max_segments = 2 },
	{ .lbs = 4096, .max_segments = 2 },
	{ .pbs = 4096, .max_user = 16 },
	{ .pbs = 8192, .lbs = 4096, .max_user = 16, .max_segments = 3 },
	{ .chunk = 64 },
	{ .chunk = 24, .max_segments = 5 },
	{ .max_hw = 8 },
};

/* A random engine-style bio: own table, bi_vcnt set, vec offsets and
 * lengths in 512 B units, total a multiple of lbs, sector a multiple of
 * pbs (the engine issues bs-aligned I/O). */
static void random_bio(struct tbio *t, const struct bb_queue_limits *lim)
{
	unsigned n = 1 + rnd_below(6);
	unsigned lbs = lim->logical_block_size;
	uint64_t total = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t off, len;

		if (rnd_below(3) == 0) { /* page-sized, page-aligned */
			off = 0;
			len = K4;
		} else if (rnd_below(2)) { /* small, inside a page */
			off = 512 * rnd_below(8);
			len = 512 * (1 + rnd_below(8 - off / 512));
		} else { /* multi-page */
			off = 512 * rnd_below(8);
			len = 512 * (1 + rnd_below(64));
		}
		t->table[i].bv_page = pg(16 * i + rnd_below(4));
		t->table[i].bv_offset = off;
		t->table[i].bv_len = len;
		total += len;
	}
	/* pad the last vec so the total is a multiple of lbs */
	if (total % lbs) {
		t->table[n - 1].bv_len += lbs - (uint32_t)(total % lbs);
		total += lbs - total % lbs;
	}
	bb_bio_init(&t->bio, NULL, t->table, (unsigned short)n, RD);
	t->bio.bi_vcnt = (uint16_t)n;
	t->bio.bi_iter.bi_size = (uint32_t)total;
	t->bio.bi_iter.bi_sector =
		(uint64_t)rnd_below(1024) * (lim->physical_block_size >> 9);
}

/* If the full walk splits, both fast checks said "may split"; if either
 * said "no", the walk finds one segment and no split. */
static void check_forms(struct bb_bio *bio, const struct bb_queue_limits *lim,
			unsigned *nsplit, unsigned *ndiffer)
{
	bool v = bb_bio_may_need_split_vcnt(bio, lim);
	bool it = bb_bio_may_need_split_iter(bio, lim);
	unsigned segs = 0;
	int r = split_at(bio, lim, &segs);

	if (r > 0) {
		(*nsplit)++;
		assert_true(v);
		assert_true(it);
	}
	if (!v || !it) {
		assert_int_equal(r, 0);
		assert_int_equal(segs, 1);
	}
	if (v != it)
		(*ndiffer)++;
}

static void test_may_need_split_property(void **state)
{
	unsigned nsplit = 0, ndiffer = 0, nfalse = 0;

	(void)state;
	for (size_t li = 0; li < bb_array_size(prop_limits); li++) {
		struct bb_queue_limits lim;

		make_limits(&lim, &prop_limits[li]);
		for (int k = 0; k < 3000; k++) {
			struct tbio t;
			uint32_t size, adv;

			random_bio(&t, &lim);
			/* as built by the engine */
			if (!bb_bio_may_need_split_iter(&t.bio, &lim))
				nfalse++;
			check_forms(&t.bio, &lim, &nsplit, &ndiffer);

			/* a remainder: advanced by some lbs multiple, vcnt
			 * kept (bi_idx / bi_bvec_done now non-zero) */
			size = t.bio.bi_iter.bi_size;
			if (size > lim.logical_block_size) {
				struct tbio r = t;

				r.bio.bi_io_vec = r.table;
				adv = lim.logical_block_size *
				      (1 + rnd_below(size /
							     lim.logical_block_size -
						     1));
				bb_bio_advance(&r.bio, adv);
				check_forms(&r.bio, &lim, &nsplit, &ndiffer);

				/* the same as a clone (bi_vcnt 0), also
				 * trimmed to a random front part */
				bb_bio_set_flag(&r.bio, BB_BIO_CLONED);
				r.bio.bi_vcnt = 0;
				check_forms(&r.bio, &lim, &nsplit, &ndiffer);
				r.bio.bi_iter.bi_size =
					lim.logical_block_size *
					(1 + rnd_below(r.bio.bi_iter.bi_size /
						       lim.logical_block_size));
				check_forms(&r.bio, &lim, &nsplit, &ndiffer);
			}
		}
	}
	/* the generator exercised all outcomes */
	assert_true(nsplit > 1000);
	assert_true(ndiffer > 100);
	assert_true(nfalse > 100);
}

/* ---- bio_split / split_to_limits (need the bioset) ------------------------ */

struct parent {
	struct tbio t;
	int ended;
	uint8_t status_at_end;
};

static void parent_end_io(struct bb_bio *bio, enum bb_ctx ctx)
{
	struct parent *p = bio->bi_private;

	(void)ctx;
	p->ended++;
	p->status_at_end = bio->bi_status;
}

/* disk->bio_split: pool 2, no bvecs; a cache only in the `all` variant */
static struct bb_bioset *new_split_bs_cache(enum bb_cache_variant cache)
{
	struct bb_bioset *bs = aligned_alloc(BB_CACHELINE,
					     sizeof(struct bb_bioset));
	struct bb_bioset_params p = { .pool_size = 2, .front_pad = 0,
				      .need_bvecs = false, .cache = cache };

	assert_non_null(bs);
	memset(bs, 0, sizeof(*bs));
	assert_int_equal(bb_bioset_init(bs, &p), 0);
	return bs;
}

static struct bb_bioset *new_split_bs(void)
{
	return new_split_bs_cache(BB_CACHE_OFF);
}

/* Every clone went back: nothing outstanding in the split bioset. */
static void free_split_bs(struct bb_bioset *bs)
{
	struct bb_bioset_census c;

	assert_int_equal(bb_bioset_check(bs, &c), 0);
	assert_int_equal(c.objs - c.slab_free - c.reserve - c.cache_nr -
				 c.cache_nr_irq,
			 0);
	bb_bioset_exit(bs);
	free(bs);
}

static void test_bio_split(void **state)
{
	struct bb_bioset *bs = new_split_bs();
	struct bio_spec s = { WR, 100, 0, { { 0, 0, K4 } }, 4, 1, 0, 0, 0 };
	struct tbio t;
	struct bb_bio *c;
	int err = 0;

	(void)state;
	build_bio(&t, &s); /* 16 KiB = 32 sectors at 100 */

	err = 0;
	assert_null(bb_bio_split(&t.bio, 0, bs, &err));
	assert_int_equal(err, -EINVAL);
	err = 0;
	assert_null(bb_bio_split(&t.bio, -8, bs, &err));
	assert_int_equal(err, -EINVAL);
	err = 0;
	assert_null(bb_bio_split(&t.bio, 32, bs, &err)); /* == bio sectors */
	assert_int_equal(err, -EINVAL);
	assert_int_equal(t.bio.bi_iter.bi_size, 16384); /* untouched */

	/* 12 sectors: crosses into v1 (6144 B) */
	c = bb_bio_split(&t.bio, 12, bs, &err);
	assert_non_null(c);
	assert_true(bb_bio_flagged(c, BB_BIO_CLONED));
	assert_ptr_equal(c->bi_io_vec, t.table);
	assert_int_equal(c->bi_iter.bi_sector, 100);
	assert_int_equal(c->bi_iter.bi_size, 6144);
	assert_int_equal(c->bi_iter.bi_idx, 0);
	assert_int_equal(c->bi_iter.bi_bvec_done, 0);
	assert_int_equal(bb_bio_op(c), WR);
	/* the parent advanced past the piece */
	assert_int_equal(t.bio.bi_iter.bi_sector, 112);
	assert_int_equal(t.bio.bi_iter.bi_size, 10240);
	assert_int_equal(t.bio.bi_iter.bi_idx, 1);
	assert_int_equal(t.bio.bi_iter.bi_bvec_done, 2048);
	bb_bio_put(c, BB_CTX_TASK);

	/* atomic writes are never split */
	t.bio.bi_opf |= BB_REQ_ATOMIC;
	err = 0;
	assert_null(bb_bio_split(&t.bio, 4, bs, &err));
	assert_int_equal(err, -EINVAL);
	free_split_bs(bs);
}

/* Split a bio to the end; check the pieces and the chained completion. */
static unsigned split_all(const struct bb_queue_limits *lim,
			  struct parent *p, bb_may_split_fn check,
			  struct bb_bioset *bs, struct bb_split_counters *ctr,
			  bool shuffle_completion)
{
	struct bb_bio *pieces[1024];
	unsigned n = 0;
	uint64_t sector = p->t.bio.bi_iter.bi_sector;
	uint64_t total = p->t.bio.bi_iter.bi_size;
	uint64_t sum = 0;

	p->ended = 0;
	p->t.bio.bi_end_io = parent_end_io;
	p->t.bio.bi_private = p;

	for (;;) {
		unsigned segs = 0, segs2 = 0;
		int err = 0;
		struct bb_bio *b = bb_bio_split_to_limits(&p->t.bio, lim, check,
							  bs, &segs, ctr, &err);

		assert_non_null(b);
		assert_true(n < bb_array_size(pieces));
		pieces[n++] = b;
		/* contiguous, within limits */
		assert_int_equal(b->bi_iter.bi_sector, sector);
		assert_true(b->bi_iter.bi_size > 0);
		assert_true(segs >= 1 && segs <= lim->max_segments);
		assert_true(b->bi_iter.bi_size <=
			    (uint64_t)bb_get_max_io_size(b, lim) << 9 ||
			    b == &p->t.bio);
		assert_int_equal(b->bi_iter.bi_size % lim->logical_block_size,
				 0);
		/* a piece needs no further split */
		assert_int_equal(split_at(b, lim, &segs2), 0);
		sector += b->bi_iter.bi_size >> 9;
		sum += b->bi_iter.bi_size;
		if (b == &p->t.bio)
			break;
		assert_true(bb_bio_flagged(b, BB_BIO_CLONED));
		assert_true(b->bi_opf & BB_REQ_NOMERGE);
		assert_ptr_equal(b->bi_io_vec, p->t.table);
		assert_int_equal(p->ended, 0);
	}
	assert_int_equal(sum, total);

	if (shuffle_completion)
		for (unsigned i = n - 1; i > 0; i--) {
			unsigned j = rnd_below(i + 1);
			struct bb_bio *x = pieces[i];

			pieces[i] = pieces[j];
			pieces[j] = x;
		}
	for (unsigned i = 0; i < n; i++) {
		assert_int_equal(p->ended, 0);
		bb_bio_endio(pieces[i], i & 1 ? BB_CTX_HARDIRQ : BB_CTX_TASK);
	}
	assert_int_equal(p->ended, 1);
	assert_false(bb_bio_flagged(&p->t.bio, BB_BIO_CHAIN));
	return n;
}

struct loop_case {
	const char *name;
	struct lim_spec lim;
	struct bio_spec bio;
	unsigned pieces;
};

static const struct loop_case loop_cases[] = {
	/* 64 KiB / 4 KiB max_sectors = 16 pieces (15 clones + the bio) */
	{ "max_sectors 4K, 16x4K", { .max_user = 8 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 16 },
	/* one 64 KiB vec: also 16 pieces, from inside the vec */
	{ "max_sectors 4K, one 64K vec", { .max_user = 8 },
	  { RD, 0, 1, { { 0, 0, 65536 } }, 0, 0, 0, 0, 0 }, 16 },
	/* 8 vecs / 4 segments = 2 pieces */
	{ "max_segments 4, 8x4K", { .max_segments = 4 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 8, 2, 0, 0, 0 }, 2 },
	/* chunk 256 from 200: 56 sectors, then 72 from 256 -> 2 */
	{ "chunk 256 from 200", { .chunk = 256 },
	  { RD, 200, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 2 },
	/* virt gap before v2: 16 sectors, then v2 + v3 (7680 B) -> 2 */
	{ "virt boundary gap", { .virt_boundary = 4095, .dma = 3 },
	  { RD, 0, 4, { { 0, 0, K4 }, { 1, 0, K4 }, { 2, 512, 3584 },
			{ 3, 0, K4 } }, 0, 0, 0, 0, 0 }, 2 },
	/* 256 KiB vec, max_segment_size 8K x 4 segs = 32 KiB pieces -> 8 */
	{ "max_segment_size 8K x 4 segs, 256K vec",
	  { .max_segment_size = 8192, .max_segments = 4 },
	  { WR, 0, 1, { { 0, 0, 262144 } }, 0, 0, 0, 0, 0 }, 8 },
	/* pbs 4K, max_sectors 20 from sector 3: 13 (to 16), then 16 each
	 * (to 32, 48, ... 128), then 3 sectors: 13 + 7*16 + 3 = 128 -> 9 */
	{ "pbs 4K, max_sectors 20, sector 3", { .pbs = 4096, .max_user = 20 },
	  { RD, 3, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 9 },
	/* fits: the bio itself */
	{ "no split", { 0 },
	  { RD, 0, 0, { { 0, 0, K4 } }, 16, 1, 0, 0, 0 }, 1 },
};

static void run_loop_cases(enum bb_cache_variant cache)
{
	struct bb_bioset *bs = new_split_bs_cache(cache);

	for (size_t i = 0; i < bb_array_size(loop_cases); i++) {
		const struct loop_case *c = &loop_cases[i];

		for (int form = 0; form < 2; form++) {
			struct bb_split_counters ctr = { 0 };
			struct bb_queue_limits lim;
			struct parent *p = calloc(1, sizeof(*p));
			unsigned n;

			assert_non_null(p);
			make_limits(&lim, &c->lim);
			build_bio(&p->t, &c->bio);
			n = split_all(&lim, p, form ? check_iter : check_vcnt,
				      bs, &ctr, form);
			if (n != c->pieces)
				fail_msg("case \"%s\": %u pieces, want %u",
					 c->name, n, c->pieces);
			assert_int_equal(ctr.checks, n);
			assert_int_equal(ctr.pieces, n - 1);
			assert_int_equal(ctr.splits, n > 1 ? 1 : 0);
			assert_int_equal(ctr.einval + ctr.eagain, 0);
			assert_true(ctr.full_walks <= ctr.checks);
			assert_int_equal(ctr.full_walks, ctr.check_hits);
			assert_int_equal(p->status_at_end, 0);
			free(p);
		}
	}
	free_split_bs(bs);
}

/* The split bioset without a cache, and with one (the `all` variant:
 * the clones' chained puts go through the cache). */
static void test_split_to_limits_loop(void **state)
{
	(void)state;
	run_loop_cases(BB_CACHE_OFF);
	run_loop_cases(BB_CACHE_ALL);
}

/* The caches around a split, per variant, as the kernel of each has
 * them: the split bioset (disk->bio_split) has no cache in any kernel, so
 * under `all` both clones of a 12 KiB bio cut into 4 KiB pieces come from
 * the slab every time (only the all_split experiment caches them); a
 * polled parent that is split leaves the cache in 6.1 (bio_clear_polled
 * dropped REQ_ALLOC_CACHE with REQ_POLLED: `task` frees it), and stays in
 * it from 6.2 on. */
static void test_split_cache_variants(void **state)
{
	static const struct {
		enum bb_cache_variant v;
		/* after two rounds: the split bioset's slab allocs and hits,
		 * the main bioset's parent puts to the task list and frees */
		unsigned clone_slab, clone_hit, parent_cached, parent_freed;
	} t[] = {
		{ BB_CACHE_OFF, 4, 0, 0, 2 },
		{ BB_CACHE_TASK, 4, 0, 0, 2 },
		{ BB_CACHE_IRQ_FAST, 4, 0, 2, 0 },
		{ BB_CACHE_ALL, 4, 0, 2, 0 },
		{ BB_CACHE_ALL_SPLIT, 2, 2, 2, 0 },
	};
	struct lim_spec ls = { .max_user = 8 }; /* 4 KiB pieces */
	struct bb_queue_limits lim;

	(void)state;
	make_limits(&lim, &ls);
	for (size_t i = 0; i < bb_array_size(t); i++) {
		struct bb_bioset_params mp = { .pool_size = 4, .need_bvecs = true,
					       .cache = t[i].v };
		struct bb_bioset main_bs, *split_bs;
		struct bb_cache_counters mc, sc;
		struct parent pr;

		print_message("  %s\n", bb_cache_variant_name(t[i].v));
		assert_int_equal(bb_bioset_init(&main_bs, &mp), 0);
		split_bs = new_split_bs_cache(bb_bioset_split_variant(t[i].v));
		for (int round = 0; round < 2; round++) {
			struct bb_split_counters ctr = { 0 };
			struct bb_bio *pieces[4], *bio;
			unsigned n = 0, segs;
			int err = 0;

			bio = bb_bio_alloc_bioset(
				&main_bs, &pr, 3,
				BB_REQ_OP_READ | BB_REQ_POLLED |
					bb_bioset_caller_opf(t[i].v, true));
			assert_non_null(bio);
			for (unsigned k = 0; k < 3; k++) {
				bio->bi_io_vec[k].bv_page = pg(k);
				bio->bi_io_vec[k].bv_offset = 0;
				bio->bi_io_vec[k].bv_len = K4;
			}
			bio->bi_vcnt = 3;
			bio->bi_iter.bi_size = 3 * K4;
			bio->bi_end_io = parent_end_io;
			bio->bi_private = &pr;
			pr.ended = 0;
			do {
				pieces[n] = bb_bio_split_to_limits(
					bio, &lim, check_iter, split_bs, &segs,
					&ctr, &err);
				assert_non_null(pieces[n]);
			} while (pieces[n++] != bio);
			assert_int_equal(n, 3);
			/* split: not polled any more */
			assert_false(bio->bi_opf & BB_REQ_POLLED);
			for (unsigned k = 0; k < n; k++)
				bb_bio_endio(pieces[k], BB_CTX_TASK);
			assert_int_equal(pr.ended, 1);
			bb_bio_put(bio, BB_CTX_TASK);
		}
		bb_bioset_counters(&main_bs, &mc);
		bb_bioset_counters(split_bs, &sc);
		assert_int_equal(sc.alloc_slab, t[i].clone_slab);
		assert_int_equal(sc.alloc_hit, t[i].clone_hit);
		assert_int_equal(mc.put_task, t[i].parent_cached);
		assert_int_equal(mc.free, t[i].parent_freed);
		free_split_bs(split_bs);
		bb_bioset_exit(&main_bs);
	}
}

/* Random bios against random limits, split to the end with either form. */
static void test_split_to_limits_random(void **state)
{
	struct bb_bioset *bs = new_split_bs();
	struct bb_split_counters total = { 0 };

	(void)state;
	for (size_t li = 0; li < bb_array_size(prop_limits); li++) {
		struct bb_queue_limits lim;

		make_limits(&lim, &prop_limits[li]);
		for (int k = 0; k < 300; k++) {
			struct bb_split_counters ctr = { 0 };
			struct parent *p = calloc(1, sizeof(*p));
			unsigned segs;
			int r;

			assert_non_null(p);
			random_bio(&p->t, &lim);
			/* skip bios the model cannot split (0-byte pieces
			 * with virt boundaries): tested elsewhere */
			r = split_at(&p->t.bio, &lim, &segs);
			p->t.bio.bi_opf &= ~BB_REQ_POLLED;
			if (r < 0) {
				free(p);
				continue;
			}
			/* a remainder may itself become unsplittable; try
			 * on a copy first */
			{
				struct tbio probe = p->t;
				bool ok = true;

				probe.bio.bi_io_vec = probe.table;
				while (ok) {
					r = split_at(&probe.bio, &lim, &segs);
					if (r <= 0) {
						ok = r == 0;
						break;
					}
					bb_bio_advance(&probe.bio,
						       (uint32_t)r << 9);
				}
				if (!ok) {
					free(p);
					continue;
				}
			}
			(void)split_all(&lim, p, k & 1 ? check_iter : check_vcnt,
					bs, &ctr, true);
			bb_split_counters_add(&total, &ctr);
			free(p);
		}
	}
	assert_true(total.splits > 100);
	assert_true(total.pieces > total.splits);
	free_split_bs(bs);
}

static void test_split_to_limits_fast_and_errors(void **state)
{
	struct bb_bioset *bs = new_split_bs();
	struct bb_split_counters ctr = { 0 };
	struct bb_queue_limits lim;
	struct lim_spec ls = { .max_user = 8 };
	struct bio_spec one = { RD, 0, 1, { { 0, 0, K4 } }, 0, 0, 0, 0, 0 };
	struct bio_spec many = { RD | BB_REQ_NOWAIT, 0, 0, { { 0, 0, K4 } },
				 4, 1, 0, 0, 0 };
	struct tbio t;
	unsigned segs = 0;
	int err = 0;

	(void)state;
	make_limits(&lim, &ls);

	/* fast path: no walk, nr_segs 1 */
	build_bio(&t, &one);
	assert_ptr_equal(bb_bio_split_to_limits(&t.bio, &lim, check_iter, bs,
						&segs, &ctr, &err),
			 &t.bio);
	assert_int_equal(segs, 1);
	assert_int_equal(ctr.checks, 1);
	assert_int_equal(ctr.check_hits, 0);
	assert_int_equal(ctr.full_walks, 0);
	assert_int_equal(ctr.segs, 1);

	/* NOWAIT needing a split: NULL, -EAGAIN, bi_status EAGAIN */
	build_bio(&t, &many);
	err = 0;
	assert_null(bb_bio_split_to_limits(&t.bio, &lim, check_vcnt, bs, &segs,
					   &ctr, &err));
	assert_int_equal(err, -EAGAIN);
	assert_int_equal(t.bio.bi_status, EAGAIN);
	assert_int_equal(ctr.eagain, 1);
	assert_int_equal(t.bio.bi_iter.bi_size, 16384); /* not advanced */

	/* misaligned: -EINVAL */
	build_bio(&t, &many);
	t.bio.bi_opf = RD;
	t.table[1].bv_offset = 256;
	err = 0;
	assert_null(bb_bio_split_to_limits(&t.bio, &lim, check_vcnt, bs, &segs,
					   &ctr, &err));
	assert_int_equal(err, -EINVAL);
	assert_int_equal(t.bio.bi_status, EINVAL);
	assert_int_equal(ctr.einval, 1);

	/* atomic needing a split */
	build_bio(&t, &many);
	t.bio.bi_opf = WR | BB_REQ_ATOMIC;
	lim.atomic_write_max_sectors = 8;
	err = 0;
	assert_null(bb_bio_split_to_limits(&t.bio, &lim, check_iter, bs, &segs,
					   &ctr, &err));
	assert_int_equal(err, -EINVAL);
	assert_int_equal(ctr.einval, 2);
	assert_int_equal(ctr.splits, 0);
	assert_int_equal(ctr.pieces, 0);
	assert_int_equal(ctr.checks, 4);
	assert_int_equal(ctr.full_walks, 3);
	free_split_bs(bs);
}

/* A piece's error reaches the parent, which still completes once. */
static void test_split_error_propagates(void **state)
{
	struct bb_bioset *bs = new_split_bs();
	struct bb_split_counters ctr = { 0 };
	struct bb_queue_limits lim;
	struct lim_spec ls = { .max_user = 8 };
	struct bio_spec s = { RD, 0, 0, { { 0, 0, K4 } }, 3, 1, 0, 0, 0 };
	struct parent *p = calloc(1, sizeof(*p));
	struct bb_bio *a, *b;
	unsigned segs;
	int err = 0;

	(void)state;
	assert_non_null(p);
	make_limits(&lim, &ls);
	build_bio(&p->t, &s);
	p->t.bio.bi_end_io = parent_end_io;
	p->t.bio.bi_private = p;
	a = bb_bio_split_to_limits(&p->t.bio, &lim, check_vcnt, bs, &segs,
				   &ctr, &err);
	b = bb_bio_split_to_limits(&p->t.bio, &lim, check_vcnt, bs, &segs,
				   &ctr, &err);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, &p->t.bio);
	assert_ptr_not_equal(b, &p->t.bio);
	assert_ptr_equal(bb_bio_split_to_limits(&p->t.bio, &lim, check_vcnt,
						bs, &segs, &ctr, &err),
			 &p->t.bio);
	assert_int_equal(ctr.splits, 1); /* one parent, cut twice */
	assert_int_equal(ctr.pieces, 2);

	b->bi_status = EIO;
	bb_bio_endio(&p->t.bio, BB_CTX_TASK);
	bb_bio_endio(b, BB_CTX_HARDIRQ);
	assert_int_equal(p->ended, 0);
	bb_bio_endio(a, BB_CTX_TASK);
	assert_int_equal(p->ended, 1);
	assert_int_equal(p->status_at_end, EIO);
	free(p);
	free_split_bs(bs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_points),
		cmocka_unit_test(test_get_max_io_size),
		cmocka_unit_test(test_polled_cleared_on_split),
		cmocka_unit_test(test_boundary_mask_all_ones),
		cmocka_unit_test(test_may_need_split_basic),
		cmocka_unit_test(test_may_need_split_differ_clone),
		cmocka_unit_test(test_may_need_split_bvec_done_fix),
		cmocka_unit_test(test_may_need_split_pbs_unaligned),
		cmocka_unit_test(test_may_need_split_property),
		cmocka_unit_test(test_bio_split),
		cmocka_unit_test(test_split_to_limits_loop),
		cmocka_unit_test(test_split_cache_variants),
		cmocka_unit_test(test_split_to_limits_random),
		cmocka_unit_test(test_split_to_limits_fast_and_errors),
		cmocka_unit_test(test_split_error_propagates),
	};

	return cmocka_run_group_tests_name(BB_VEC_EARLY ? "split_early"
							: "split_late",
					   tests, NULL, NULL) ? 1 : 0;
}
