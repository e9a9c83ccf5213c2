/* SPDX-License-Identifier: GPL-2.0-only */
/* bb_common.h - small shared definitions for libbiobench.
 *
 * Conventions: functions return 0 or -errno; names carry their module.
 */
#ifndef BB_COMMON_H
#define BB_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BB_CACHELINE 64
#define BB_PAGE_SIZE 4096u
#define BB_SECTOR_SHIFT 9
#define BB_SECTOR_SIZE 512u

#define bb_likely(x) __builtin_expect(!!(x), 1)
#define bb_unlikely(x) __builtin_expect(!!(x), 0)
#define bb_array_size(a) (sizeof(a) / sizeof((a)[0]))
#define bb_min(a, b) ((a) < (b) ? (a) : (b))
#define bb_max(a, b) ((a) > (b) ? (a) : (b))
#define bb_aligned_cl __attribute__((aligned(BB_CACHELINE)))

/* The body of a spin-wait loop: the CPU's pause hint where it has one. */
static inline void bb_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Busy work of iters loop iterations, touching no memory: the spin of
 * inject_ns, device_ns and the calibrated kernel cost (a loop count
 * calibrated in ns at setup, run/wsetup.c). */
static inline void bb_spin_iters(uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		__asm__ volatile("" : : "r"(i) : "memory");
}

/* Execution context of a bio put, standing for the kernel's in_task() /
 * in_hardirq() / softirq.  The engine passes it explicitly, as the run's
 * completion context says (config.h, enum bb_completion): task context for
 * polled completions, hard-irq context for IRQ-driven ones (made by the
 * submitter itself for a same-CPU interrupt, or by the completion thread
 * on another CPU). */
enum bb_ctx {
	BB_CTX_TASK = 0,
	BB_CTX_HARDIRQ = 1,
	BB_CTX_SOFTIRQ = 2,
};

/* The bio cache variants (docs/design.md, "The per-CPU bio cache"). */
enum bb_cache_variant {
	BB_CACHE_OFF = 0,  /* no per-thread cache: slab + reserve only */
	BB_CACHE_TASK,     /* 5.15 .. 6.1: polled I/O only, task-context puts,
			      cap 512 + slack 64 pruned at put */
	BB_CACHE_IRQ,      /* 6.2 (2022 series): every io_uring read/write;
			      non-polled puts to the irq list under an
			      irq-save-like guard; cap 256 */
	BB_CACHE_IRQ_FAST, /* 6.9 (2024): the put decided by context, no
			      guard, softirq puts freed */
	BB_CACHE_ALL,      /* Dec 2025 default-on: irq_fast's put, and the
			      allocator uses the cache of every bioset that
			      has one (the split bioset has none) */
	BB_CACHE_ALL_SPLIT, /* an experiment, no kernel's behaviour: all, and
			       the split bioset cached too */
	BB_CACHE__COUNT
};

enum bb_split_check {
	BB_SPLIT_CHECK_VCNT = 0, /* bi_vcnt != 1 test (before Dec 2025) */
	BB_SPLIT_CHECK_ITER,     /* bvec iterator test (Dec 2025 / Jan 2026) */
	BB_SPLIT_CHECK__COUNT
};

enum bb_layout {
	BB_LAYOUT_VEC_LATE = 0, /* bi_io_vec in the 2nd cache line (offset 120) */
	BB_LAYOUT_VEC_EARLY,    /* bi_io_vec in the 1st cache line (offset 32) */
	BB_LAYOUT__COUNT
};

/* Cache counters.  One set is kept per side (task side written only by the
 * owning submitter thread, irq side written only by the completion thread)
 * so that no counter is shared between threads; bb_cache_counters_add()
 * sums them. */
struct bb_cache_counters {
	uint64_t alloc_hit;      /* allocations served by the per-thread cache */
	uint64_t alloc_miss;     /* cache-eligible allocations that missed */
	uint64_t alloc_slab;     /* objects taken from the slab */
	uint64_t alloc_reserve;  /* objects taken from the reserve (mempool) */
	uint64_t alloc_fail;     /* allocations that found nothing at all */
	uint64_t splice;         /* irq list spliced into the task list */
	uint64_t splice_bios;    /* bios moved by those splices */
	uint64_t put_task;       /* puts that went to the task list */
	uint64_t put_irq;        /* puts that went to the irq list */
	uint64_t put_free;       /* cache-eligible puts that were freed instead
				    (cap reached, or context not cached) */
	uint64_t free;           /* objects returned to slab or reserve */
	uint64_t reserve_refill; /* frees that refilled the reserve */
	uint64_t bvec_alloc;     /* external bvec arrays allocated (>4 vecs) */
	uint64_t bvec_free;      /* external bvec arrays freed */
	uint64_t prune;          /* bios freed by prune (teardown; task: the
				    put-time prune of 64 over 576) */
};

/* Split counters. */
struct bb_split_counters {
	uint64_t checks;         /* may_need_split evaluations */
	uint64_t check_hits;     /* ... that said "may need split" */
	uint64_t full_walks;     /* bio_split_rw_at walks */
	uint64_t splits;         /* bios that were split at least once */
	uint64_t pieces;         /* clones created by splitting */
	uint64_t einval;         /* -EINVAL outcomes */
	uint64_t eagain;         /* -EAGAIN outcomes (REQ_NOWAIT) */
	uint64_t segs;           /* hardware segments counted, all bios */
};

static inline void bb_cache_counters_add(struct bb_cache_counters *dst,
					 const struct bb_cache_counters *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	for (size_t i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

static inline void bb_split_counters_add(struct bb_split_counters *dst,
					 const struct bb_split_counters *src)
{
	uint64_t *d = (uint64_t *)dst;
	const uint64_t *s = (const uint64_t *)src;
	for (size_t i = 0; i < sizeof(*dst) / sizeof(uint64_t); i++)
		d[i] += s[i];
}

/* Names of enum values, for options, JSON and messages. */
const char *bb_cache_variant_name(enum bb_cache_variant v);
const char *bb_split_check_name(enum bb_split_check v);
const char *bb_layout_name(enum bb_layout v);

/* biobench's version ("0.1.0"), the project's version at build time. */
const char *bb_version(void);

/* Monotonic clock in nanoseconds. */
uint64_t bb_now_ns(void);

/* The one error helper: writes the formatted one-line message into err
 * (when err and len are set) and returns ret (a -errno), so that an error
 * path reads `return bb_errf(err, len, -EINVAL, "...", ...);`. */
int bb_errf(char *err, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Bytes for a message: "512 bytes", "1.5 KiB", "64.0 MiB", "4.0 TiB"
 * (binary units, one decimal).  Returns buf. */
const char *bb_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/* The one rule biobench prints IOPS (and other rates and counts) with,
 * everywhere but its t/io_uring emulation (tiou.h): an integer below
 * 1000, then three or four significant digits: "999", "80.4K",
 * "100.9K", "8.90M", "1.23G"; "-" when not finite.  Returns buf. */
const char *bb_fmt_iops(char *buf, size_t len, double iops);

/* "Did you mean ...?": the candidate nearest to a mistyped name.  Feed
 * every candidate to bb_nearest_add(); best is then the nearest one by
 * edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours; case, '-' and '_' ignored) when it is close enough to be a
 * typo of word (at most 1 edit for up to 4 characters, 2 up to 8, else
 * 3), NULL otherwise.  The first of equally near candidates wins. */
struct bb_nearest {
	const char *word;
	const char *best;
	unsigned dist;
};

void bb_nearest_init(struct bb_nearest *n, const char *word);
void bb_nearest_add(struct bb_nearest *n, const char *cand);

/* The first len-1 bytes of a (sysfs, proc) file into buf, surrounding
 * white space removed; "" on error.  0 or -errno. */
int bb_read_text(const char *path, char *buf, size_t len);

#endif
