// SPDX-License-Identifier: GPL-2.0-only
/* micro.c - micro-benchmarks of the bio model, for one struct bio layout
 * (compiled twice: bench_micro_late with -DBB_VEC_EARLY=0 and
 * bench_micro_early with -DBB_VEC_EARLY=1).
 *
 *  alloc+put: ns per bb_bio_alloc_bioset(1 vec, READ) + bb_bio_put() for
 *    each cache variant, puts in task context (polled I/O: the REQ_ALLOC_CACHE
 *    a polled caller of the variant's kernel passes) and in hard-irq
 *    context (IRQ-driven I/O: what such a caller passes).  Hard-irq puts
 *    are made by the same thread (a bioset with irq_local, as the engine's
 *    --completion irq): in the kernel the bio cache is per CPU and the
 *    completion interrupt that puts the bio runs on the submitting CPU
 *    (the engine's --completion thread measures the cross-CPU case end to
 *    end).  Two patterns: `1` (alloc then put, one bio in flight) and
 *    `b32` (alloc 32, then put the 32: a submit batch / complete batch).
 *  line touch: ns per element of a random pointer chase through 128-byte
 *    elements (two cache lines), touching line 0 only, line 0 and line 1
 *    independently (line 1's load off the chase's critical path, as
 *    bi_io_vec at offset 120 is read next to bi_iter in
 *    bio_may_need_split), or line 1 after line 0 (dependent), for working
 *    sets that fit L1, L2, the LLC, and none (DRAM): the difference is the
 *    cost of one extra cache-line touch per I/O at that level.
 *  may_need_split: ns per call of each form (vcnt, iter) through a
 *    function pointer as the engine calls it, on a 4 KiB single-vec bio
 *    (the registered-buffer bio of a 4 KiB read: BIO_CLONED, bi_vcnt 1,
 *    external bvec table) and on a 4-vec 16 KiB bio, both hot in L1; and
 *    on 64 Ki single-vec bios visited in random order ("cold": the cache
 *    lines of struct bio each form touches decide the cost; this is where
 *    the layouts differ).
 *
 * Timing: CLOCK_MONOTONIC around a loop of --iters operations, one warm-up
 * run, best of --reps runs.  Pin with --cpu N or taskset.
 *
 * --callgrind: run each measurement once with --cg-ops operations and,
 * around each, zero callgrind's counters and dump them with the
 * measurement's name (CALLGRIND_ZERO_STATS / CALLGRIND_DUMP_STATS_AT), so
 * `valgrind --tool=callgrind ./bench_micro_X --callgrind` writes one dump
 * per measurement whose "totals:" divided by the printed ops is Ir per op
 * (loop overhead included: a few instructions).
 *
 * Output: a table; with --kv also one "kv ..." line per figure for scripts.
 */
#include "path/bioset.h"
#include "path/split.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define HAVE_CALLGRIND 1
#endif
#endif
#ifndef HAVE_CALLGRIND
#define HAVE_CALLGRIND 0
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_ZERO_STATS do { } while (0)
#define CALLGRIND_DUMP_STATS_AT(s) do { (void)(s); } while (0)
#endif

#if defined(__clang__) /* no noipa; noinline is what matters here */
#define NOIPA __attribute__((noinline))
#else
#define NOIPA __attribute__((noinline, noipa))
#endif
#define BATCH 32u
#define COLD_BIOS 65536u

static const char *layout_name = BB_VEC_EARLY ? "vec_early" : "vec_late";

struct opts {
	uint64_t iters;       /* alloc+put operations per run */
	uint64_t split_iters; /* may_need_split calls per run (hot) */
	uint64_t cold_iters;  /* may_need_split calls per run (cold) */
	unsigned reps;
	uint64_t cg_ops;
	int cpu;
	bool callgrind;
	bool kv;
	bool no_ap, no_split, no_line;
	uint64_t line_iters;  /* chase steps per run (at least 4 walks) */
	bool verbose;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int dummy_bdev; /* bi_bdev only needs to be non-NULL */
static volatile uint64_t sink;

/* ---- alloc+put -------------------------------------------------------- */

struct ap {
	struct bb_bioset bs;
	enum bb_ctx ctx;
	unsigned batch; /* 1 or BATCH */
	uint32_t opf;   /* READ and what the variant's caller passes */
};

static NOIPA uint64_t ap_run(struct ap *a, uint64_t n)
{
	struct bb_bio *b[BATCH];
	uint64_t fails = 0;

	if (a->batch == 1) {
		for (uint64_t i = 0; i < n; i++) {
			struct bb_bio *bio = bb_bio_alloc_bioset(
				&a->bs, &dummy_bdev, 1, a->opf);

			if (bb_unlikely(!bio)) {
				fails++;
				continue;
			}
			bb_bio_put(bio, a->ctx);
		}
		return fails;
	}
	for (uint64_t i = 0; i < n; i += BATCH) {
		for (unsigned j = 0; j < BATCH; j++) {
			b[j] = bb_bio_alloc_bioset(&a->bs, &dummy_bdev, 1,
						   a->opf);
			fails += !b[j];
		}
		for (unsigned j = 0; j < BATCH; j++)
			if (bb_likely(b[j] != NULL))
				bb_bio_put(b[j], a->ctx);
	}
	return fails;
}

static int ap_init(struct ap *a, enum bb_cache_variant v, enum bb_ctx ctx,
		   unsigned batch)
{
	/* the engine's main bioset: pool 4, inline vecs + bvec slabs */
	struct bb_bioset_params p = {
		.pool_size = 4,
		.need_bvecs = true,
		.cache = v,
		.slab_limit = 4096,
		.bvec_slab_limit = 256,
		.irq_local = ctx == BB_CTX_HARDIRQ,
	};

	a->ctx = ctx;
	a->batch = batch;
	/* polled I/O completes in task context, IRQ-driven in hard-irq */
	a->opf = BB_REQ_OP_READ | bb_bioset_caller_opf(v, ctx == BB_CTX_TASK);
	return bb_bioset_init(&a->bs, &p);
}

/* ---- may_need_split --------------------------------------------------- */

struct sp {
	bb_may_split_fn fn;
	const struct bb_queue_limits *lim;
	struct bb_bio *bio;    /* hot: one bio */
	struct bb_bio **bios;  /* cold: COLD_BIOS bios ... */
	uint32_t *order;       /* ... visited in this order */
};

static NOIPA uint64_t sp_run_hot(struct sp *s, uint64_t n)
{
	bb_may_split_fn fn = *(bb_may_split_fn volatile *)&s->fn;
	uint64_t hits = 0;

	for (uint64_t i = 0; i < n; i++)
		hits += fn(s->bio, s->lim);
	return hits;
}

static NOIPA uint64_t sp_run_cold(struct sp *s, uint64_t n)
{
	bb_may_split_fn fn = *(bb_may_split_fn volatile *)&s->fn;
	uint64_t hits = 0;
	uint32_t k = 0;

	for (uint64_t i = 0; i < n; i++) {
		hits += fn(s->bios[s->order[k]], s->lim);
		k = (k + 1) & (COLD_BIOS - 1);
	}
	return hits;
}

/* ---- harness ---------------------------------------------------------- */

typedef uint64_t (*run_fn)(void *arg, uint64_t n);

static double best_ns_per_op(run_fn fn, void *arg, uint64_t n, unsigned reps)
{
	double best = 1e300;

	sink += fn(arg, n / 8 + 1); /* warm up: caches, lists, branch state */
	for (unsigned r = 0; r < reps; r++) {
		uint64_t t0 = now_ns(), t1;

		sink += fn(arg, n);
		t1 = now_ns();
		if ((double)(t1 - t0) / (double)n < best)
			best = (double)(t1 - t0) / (double)n;
	}
	return best;
}

/* Callgrind mode: one run of n ops between a zero and a named dump. */
static void cg_measure(const char *name, run_fn fn, void *arg, uint64_t n)
{
	sink += fn(arg, 64); /* reach the steady state before counting */
	CALLGRIND_ZERO_STATS;
	sink += fn(arg, n);
	CALLGRIND_DUMP_STATS_AT(name);
	printf("cg name=%s ops=%llu layout=%s\n", name, (unsigned long long)n,
	       layout_name);
}

static const enum bb_cache_variant variants[] = {
	BB_CACHE_OFF, BB_CACHE_TASK, BB_CACHE_IRQ, BB_CACHE_IRQ_FAST,
	BB_CACHE_ALL,
};

/* ---- line touch ------------------------------------------------------- */

/* A 128-byte element: line 0 holds the chase's link and a word, line 1 a
 * word and a second link (the dependent form reaches it through `off`). */
struct elem {
	struct elem *next;     /* line 0 */
	uint64_t a;
	uint64_t off;          /* offsetof(struct elem, next1) */
	char pad0[40];
	uint64_t b;            /* line 1 */
	struct elem *next1;
	char pad1[48];
} __attribute__((aligned(128)));
_Static_assert(sizeof(struct elem) == 128, "two cache lines");

struct lt {
	struct elem *start;
	int form; /* 0: line 0; 1: + line 1 independent; 2: + line 1 dependent */
};

static NOIPA uint64_t lt_run(struct lt *l, uint64_t n)
{
	const struct elem *e = l->start;
	uint64_t acc = 0;

	if (l->form == 0) {
		for (uint64_t i = 0; i < n; i++) {
			acc += e->a;
			e = e->next;
		}
	} else if (l->form == 1) {
		for (uint64_t i = 0; i < n; i++) {
			acc += e->a + e->b;
			e = e->next;
		}
	} else {
		for (uint64_t i = 0; i < n; i++) {
			acc += e->a;
			e = *(struct elem *const *)((const char *)e + e->off);
		}
	}
	l->start = (struct elem *)e; /* the next run goes on (warm state) */
	return acc;
}

struct ap_col {
	const char *name;
	enum bb_ctx ctx;
	unsigned batch;
};

static const struct ap_col ap_cols[] = {
	{ "task/1", BB_CTX_TASK, 1 },
	{ "task/b32", BB_CTX_TASK, BATCH },
	{ "hardirq/1", BB_CTX_HARDIRQ, 1 },
	{ "hardirq/b32", BB_CTX_HARDIRQ, BATCH },
};

static int bench_ap(const struct opts *o)
{
	double ns[bb_array_size(variants)][bb_array_size(ap_cols)];

	for (size_t v = 0; v < bb_array_size(variants); v++) {
		for (size_t c = 0; c < bb_array_size(ap_cols); c++) {
			struct ap a;
			char name[96];
			int ret = ap_init(&a, variants[v], ap_cols[c].ctx,
					  ap_cols[c].batch);

			if (ret) {
				fprintf(stderr, "micro: bioset init: %s\n",
					strerror(-ret));
				return 1;
			}
			sink = 0; /* ap_run returns failed allocations */
			snprintf(name, sizeof(name), "ap_%s_%s",
				 bb_cache_variant_name(variants[v]),
				 ap_cols[c].name);
			for (char *p = name; *p; p++)
				if (*p == '/')
					*p = '_';
			if (o->callgrind) {
				cg_measure(name, (run_fn)ap_run, &a, o->cg_ops);
			} else {
				ns[v][c] = best_ns_per_op((run_fn)ap_run, &a,
							  o->iters, o->reps);
			}
			if (o->verbose) {
				struct bb_cache_counters k;

				bb_bioset_counters(&a.bs, &k);
				printf("ctr %s: alloc_hit=%llu alloc_miss=%llu "
				       "slab=%llu put_task=%llu put_irq=%llu "
				       "put_free=%llu free=%llu splice=%llu\n",
				       name,
				       (unsigned long long)k.alloc_hit,
				       (unsigned long long)k.alloc_miss,
				       (unsigned long long)k.alloc_slab,
				       (unsigned long long)k.put_task,
				       (unsigned long long)k.put_irq,
				       (unsigned long long)k.put_free,
				       (unsigned long long)k.free,
				       (unsigned long long)k.splice);
			}
			/* a failed allocation would make the figure
			 * meaningless */
			if (sink) {
				fprintf(stderr, "micro: %s: allocation "
					"failed\n", name);
				bb_bioset_exit(&a.bs);
				return 1;
			}
			bb_bioset_exit(&a.bs);
		}
	}
	if (o->callgrind)
		return 0;

	printf("alloc+put, ns per alloc+put (layout %s, 1 vec, best of %u x "
	       "%llu ops)\n", layout_name, o->reps,
	       (unsigned long long)o->iters);
	printf("  %-9s", "variant");
	for (size_t c = 0; c < bb_array_size(ap_cols); c++)
		printf(" %12s", ap_cols[c].name);
	printf("\n");
	for (size_t v = 0; v < bb_array_size(variants); v++) {
		printf("  %-9s", bb_cache_variant_name(variants[v]));
		for (size_t c = 0; c < bb_array_size(ap_cols); c++)
			printf(" %12.2f", ns[v][c]);
		printf("\n");
	}
	if (o->kv)
		for (size_t v = 0; v < bb_array_size(variants); v++)
			for (size_t c = 0; c < bb_array_size(ap_cols); c++)
				printf("kv bench=alloc_put layout=%s variant=%s "
				       "ctx=%s batch=%u ns=%.3f\n",
				       layout_name,
				       bb_cache_variant_name(variants[v]),
				       ap_cols[c].ctx == BB_CTX_TASK ? "task"
								     : "hardirq",
				       ap_cols[c].batch, ns[v][c]);
	return 0;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int bench_split(const struct opts *o)
{
	static const char *forms[] = { "vcnt", "iter" };
	static const bb_may_split_fn fns[] = { bb_bio_may_need_split_vcnt,
					       bb_bio_may_need_split_iter };
	static const char *cols[] = { "1vec_hot", "4vec_hot", "1vec_cold" };
	struct bb_bioset_params p = { .pool_size = 2, .cache = BB_CACHE_OFF,
				      .slab_limit = COLD_BIOS + 8 };
	struct bb_queue_limits lim;
	struct bb_bioset bs;
	struct bb_bvec *vec1, *vec4, *cold_vecs;
	struct bb_bio *one, *four, **bios;
	uint32_t *order;
	uint64_t rng = 0x9E3779B97F4A7C15ull;
	double ns[2][3];
	uint64_t hits[2][3] = { { 0 } };
	int ret;

	bb_limits_default(&lim);
	ret = bb_bioset_init(&bs, &p);
	if (ret) {
		fprintf(stderr, "micro: bioset init: %s\n", strerror(-ret));
		return 1;
	}
	/* page-aligned fake pages for the bvecs */
	vec1 = aligned_alloc(64, sizeof(*vec1));
	vec4 = aligned_alloc(64, 4 * sizeof(*vec4));
	cold_vecs = aligned_alloc(64, COLD_BIOS * sizeof(*cold_vecs));
	bios = malloc(COLD_BIOS * sizeof(*bios));
	order = malloc(COLD_BIOS * sizeof(*order));
	if (!vec1 || !vec4 || !cold_vecs || !bios || !order) {
		fprintf(stderr, "micro: out of memory\n");
		return 1;
	}

	/* a registered-buffer 4 KiB read: 0 vecs of its own, BIO_CLONED,
	 * bi_io_vec = the ring's table, bi_vcnt 1 (as the engine builds it) */
	one = bb_bio_alloc_bioset(&bs, &dummy_bdev, 0, BB_REQ_OP_READ);
	four = bb_bio_alloc_bioset(&bs, &dummy_bdev, 0, BB_REQ_OP_READ);
	if (!one || !four) {
		fprintf(stderr, "micro: bio allocation failed\n");
		return 1;
	}
	*vec1 = (struct bb_bvec){ (void *)(uintptr_t)0x100000, 4096, 0 };
	one->bi_io_vec = vec1;
	one->bi_vcnt = 1;
	one->bi_iter.bi_size = 4096;
	one->bi_iter.bi_sector = 8;
	bb_bio_set_flag(one, BB_BIO_CLONED);
	for (unsigned i = 0; i < 4; i++)
		vec4[i] = (struct bb_bvec){
			(void *)(uintptr_t)(0x200000 + 0x2000 * i), 4096, 0 };
	four->bi_io_vec = vec4;
	four->bi_vcnt = 4;
	four->bi_iter.bi_size = 4 * 4096;
	four->bi_iter.bi_sector = 64;
	bb_bio_set_flag(four, BB_BIO_CLONED);

	for (uint32_t i = 0; i < COLD_BIOS; i++) {
		struct bb_bio *b = bb_bio_alloc_bioset(&bs, &dummy_bdev, 0,
						       BB_REQ_OP_READ);
		if (!b) {
			fprintf(stderr, "micro: bio allocation failed\n");
			return 1;
		}
		cold_vecs[i] = (struct bb_bvec){
			(void *)(uintptr_t)(0x10000000ull + 4096ull * i), 4096,
			0 };
		b->bi_io_vec = &cold_vecs[i];
		b->bi_vcnt = 1;
		b->bi_iter.bi_size = 4096;
		b->bi_iter.bi_sector = 8ull * i;
		bb_bio_set_flag(b, BB_BIO_CLONED);
		bios[i] = b;
		order[i] = i;
	}
	for (uint32_t i = COLD_BIOS - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(xorshift(&rng) % (i + 1));
		uint32_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}

	for (int f = 0; f < 2; f++) {
		struct sp s = { .fn = fns[f], .lim = &lim, .bios = bios,
				.order = order };

		for (int c = 0; c < 3; c++) {
			run_fn fn = c == 2 ? (run_fn)sp_run_cold
					   : (run_fn)sp_run_hot;
			uint64_t n = c == 2 ? o->cold_iters : o->split_iters;
			char name[64];

			s.bio = c == 1 ? four : one;
			snprintf(name, sizeof(name), "split_%s_%s", forms[f],
				 cols[c]);
			/* the answer, for the record: 1 vec no, 4 vecs yes */
			hits[f][c] = fn(&s, 1);
			if (o->callgrind)
				cg_measure(name, fn, &s,
					   c == 2 ? o->cg_ops / 4 : o->cg_ops);
			else
				ns[f][c] = best_ns_per_op(fn, &s, n, o->reps);
		}
	}
	if (!o->callgrind) {
		printf("may_need_split, ns per call (layout %s, best of %u x "
		       "%llu calls; cold: %llu calls over %u bios)\n",
		       layout_name, o->reps,
		       (unsigned long long)o->split_iters,
		       (unsigned long long)o->cold_iters, COLD_BIOS);
		printf("  %-9s", "form");
		for (int c = 0; c < 3; c++)
			printf(" %12s", cols[c]);
		printf("\n");
		for (int f = 0; f < 2; f++) {
			printf("  %-9s", forms[f]);
			for (int c = 0; c < 3; c++)
				printf(" %12.2f", ns[f][c]);
			printf("\n");
		}
		printf("  (may split? 1vec: vcnt=%s iter=%s; 4vec: vcnt=%s "
		       "iter=%s)\n", hits[0][0] ? "yes" : "no",
		       hits[1][0] ? "yes" : "no", hits[0][1] ? "yes" : "no",
		       hits[1][1] ? "yes" : "no");
		if (o->kv)
			for (int f = 0; f < 2; f++)
				for (int c = 0; c < 3; c++)
					printf("kv bench=may_need_split "
					       "layout=%s form=%s bio=%s "
					       "ns=%.3f\n", layout_name,
					       forms[f], cols[c], ns[f][c]);
	}
	free(order);
	free(bios);
	free(cold_vecs);
	free(vec4);
	free(vec1);
	bb_bioset_exit(&bs); /* the bios go with the memory */
	return 0;
}

/* The line-touch chase over working sets of each cache level (this host:
 * see lscpu; the defaults fit L1 (32 KiB), L2 (512 KiB), an LLC of 32 MiB
 * (8 MiB) and nothing (256 MiB)). */
static int bench_line(const struct opts *o)
{
	static const struct {
		const char *name;
		size_t bytes;
	} sets[] = {
		{ "L1", 16u << 10 },
		{ "L2", 512u << 10 },
		{ "LLC", 8u << 20 },
		{ "DRAM", 256u << 20 },
	};
	static const char *forms[] = { "line0", "line0+1", "line0->1" };
	double ns[bb_array_size(sets)][3];
	uint64_t rng = 0x2545F4914F6CDD1Dull;

	for (size_t w = 0; w < bb_array_size(sets); w++) {
		size_t n = sets[w].bytes / sizeof(struct elem);
		struct elem *e = aligned_alloc(4096, n * sizeof(*e));
		uint32_t *perm = malloc(n * sizeof(*perm));

		if (!e || !perm) {
			fprintf(stderr, "micro: out of memory\n");
			return 1;
		}
		memset(e, 0, n * sizeof(*e));
		for (uint32_t i = 0; i < n; i++)
			perm[i] = i;
		for (uint32_t i = (uint32_t)n - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(xorshift(&rng) % (i + 1));
			uint32_t t = perm[i];

			perm[i] = perm[j];
			perm[j] = t;
		}
		/* one random cycle through every element */
		for (size_t i = 0; i < n; i++) {
			struct elem *cur = &e[perm[i]];
			struct elem *nx = &e[perm[(i + 1) % n]];

			cur->next = nx;
			cur->next1 = nx;
			cur->off = offsetof(struct elem, next1);
			cur->a = i;
			cur->b = i;
		}
		{
			/* enough ops to walk the set several times; the forms
			 * interleaved run by run, so that drift (other load on
			 * a shared host) spreads over all three; best of reps */
			uint64_t ops = bb_max((uint64_t)n * 4, o->line_iters);
			struct lt l[3];

			for (int f = 0; f < 3; f++) {
				l[f] = (struct lt){ .start = &e[perm[0]], .form = f };
				sink += lt_run(&l[f], n); /* one walk: warm */
				ns[w][f] = 1e300;
			}
			for (unsigned r = 0; r < o->reps; r++)
				for (int f = 0; f < 3; f++) {
					uint64_t t0 = now_ns();
					double d;

					sink += lt_run(&l[f], ops);
					d = (double)(now_ns() - t0) / (double)ops;
					if (d < ns[w][f])
						ns[w][f] = d;
				}
		}
		free(perm);
		free(e);
	}
	printf("line touch, ns per element of a random chase over 128-byte "
	       "elements (best of %u)\n", o->reps);
	printf("  %-5s %10s %10s %10s %14s %14s\n", "set", forms[0], forms[1],
	       forms[2], "+1 line indep", "+1 line dep");
	for (size_t w = 0; w < bb_array_size(sets); w++)
		printf("  %-5s %10.2f %10.2f %10.2f %14.2f %14.2f\n",
		       sets[w].name, ns[w][0], ns[w][1], ns[w][2],
		       ns[w][1] - ns[w][0], ns[w][2] - ns[w][0]);
	if (o->kv)
		for (size_t w = 0; w < bb_array_size(sets); w++)
			printf("kv bench=line_touch set=%s bytes=%zu "
			       "line0_ns=%.3f indep_ns=%.3f dep_ns=%.3f "
			       "extra_indep_ns=%.3f extra_dep_ns=%.3f\n",
			       sets[w].name, sets[w].bytes, ns[w][0], ns[w][1],
			       ns[w][2], ns[w][1] - ns[w][0],
			       ns[w][2] - ns[w][0]);
	return 0;
}

static void usage(FILE *f, const char *argv0)
{
	fprintf(f,
		"usage: %s [--iters N] [--split-iters N] [--cold-iters N]\n"
		"          [--line-iters N] [--reps N] [--cpu N] [--kv] "
		"[--verbose]\n"
		"          [--no-alloc] [--no-split] [--no-line] "
		"[--callgrind [--cg-ops N]]\n"
		"Micro-benchmarks of bio alloc+put per cache variant, of\n"
		"may_need_split per form, layout %s, and of one extra cache-line\n"
		"touch per op at each cache level.  Defaults: --iters 10M\n"
		"--split-iters 50M --cold-iters 10M --line-iters 4M --reps 5\n"
		"--cg-ops 100000.  --callgrind: run under valgrind\n"
		"--tool=callgrind; one dump per measurement (totals / ops = Ir\n"
		"per op; the line touch is not measured there).\n",
		argv0, layout_name);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "iters", required_argument, NULL, 'i' },
		{ "split-iters", required_argument, NULL, 's' },
		{ "cold-iters", required_argument, NULL, 'C' },
		{ "reps", required_argument, NULL, 'r' },
		{ "cpu", required_argument, NULL, 'p' },
		{ "kv", no_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-alloc", no_argument, NULL, 'A' },
		{ "no-split", no_argument, NULL, 'S' },
		{ "no-line", no_argument, NULL, 'L' },
		{ "line-iters", required_argument, NULL, 'l' },
		{ "callgrind", no_argument, NULL, 'g' },
		{ "cg-ops", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct opts o = { .iters = 10000000, .split_iters = 50000000,
			  .cold_iters = 10000000, .reps = 5, .cg_ops = 100000,
			  .cpu = -1, .line_iters = 4000000 };
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "i:s:C:r:p:kvASLl:go:h", lo, NULL)) !=
	       -1) {
		switch (c) {
		case 'i': o.iters = strtoull(optarg, NULL, 0); break;
		case 's': o.split_iters = strtoull(optarg, NULL, 0); break;
		case 'C': o.cold_iters = strtoull(optarg, NULL, 0); break;
		case 'r': o.reps = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'p': o.cpu = atoi(optarg); break;
		case 'k': o.kv = true; break;
		case 'v': o.verbose = true; break;
		case 'A': o.no_ap = true; break;
		case 'S': o.no_split = true; break;
		case 'L': o.no_line = true; break;
		case 'l': o.line_iters = strtoull(optarg, NULL, 0); break;
		case 'g': o.callgrind = true; break;
		case 'o': o.cg_ops = strtoull(optarg, NULL, 0); break;
		case 'h': usage(stdout, argv[0]); return 0;
		default: usage(stderr, argv[0]); return 1;
		}
	}
	if (optind != argc || !o.iters || !o.split_iters || !o.cold_iters ||
	    !o.line_iters || !o.reps || o.cg_ops < 64) {
		usage(stderr, argv[0]);
		return 1;
	}
	/* whole batches, so that ops are exact */
	o.iters = (o.iters + BATCH - 1) / BATCH * BATCH;
	o.cg_ops = (o.cg_ops + BATCH - 1) / BATCH * BATCH;
	if (o.callgrind && !HAVE_CALLGRIND) {
		fprintf(stderr, "micro: built without <valgrind/callgrind.h>: "
			"--callgrind is not available\n");
		return 1;
	}
	if (o.callgrind && !RUNNING_ON_VALGRIND)
		fprintf(stderr, "micro: --callgrind outside valgrind: the "
			"counts go nowhere\n");
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			perror("micro: sched_setaffinity");
			return 1;
		}
	}
	if (!o.no_ap)
		ret = bench_ap(&o);
	if (!ret && !o.no_split)
		ret = bench_split(&o);
	if (!ret && !o.no_line && !o.callgrind)
		ret = bench_line(&o);
	return ret;
}
