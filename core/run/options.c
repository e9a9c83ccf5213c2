// SPDX-License-Identifier: GPL-2.0-only
/* options.c - the run option table and everything it drives: command-line
 * parsing, JSON parsing, validation, --help, the JSON Schema and the JSON
 * form of the effective configuration.
 *
 * Each option is declared once in opt_table[] below (fio's option table,
 * SPDK's JSON decoder tables).  Adding an option means adding a row; no
 * other function names an option, except the cross-field rules of
 * bb_config_check(). */
#include <biobench/options.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum opt_type {
	OT_BOOL,     /* --x, --no-x, --x=0/1/true/false; JSON boolean */
	OT_UINT,     /* unsigned integer (decimal or 0x hex) */
	OT_INT,      /* signed integer */
	OT_SIZE,     /* bytes, k/m/g/t binary suffixes */
	OT_DURATION, /* ns; text with ns/us/ms/s/m/h suffix (default s),
			JSON numbers in seconds */
	OT_ENUM,     /* one of the names of an enum */
	OT_MASK,     /* a 2^n-1 mask, decimal or 0x hex */
	OT_CPULIST,  /* "0,2-3": cfg->cpus / cfg->ncpus */
	OT_TARGETS,  /* the target list (cfg->target, cfg->ntargets): one path,
			or a JSON array of paths */
	OT_HELP,     /* --help */
};

struct bb_option {
	const char *name;  /* long option without dashes; NULL: JSON only */
	const char *json;  /* JSON field; NULL: command line only */
	enum opt_type type;
	const char *group; /* heading in --help */
	size_t off;        /* field in struct bb_config */
	size_t width;      /* sizeof the field */
	int64_t min;       /* range, in the user's unit (before scale) */
	uint64_t max;
	unsigned scale;    /* stored value = given value * scale (0: 1) */
	unsigned lim_bit;  /* BB_LIM_* bit set when given */
	const char *(*val_name)(unsigned v); /* OT_ENUM names */
	unsigned nvals;
	const char *help;
};

#define FIELD(f)                                                               \
	.off = offsetof(struct bb_config, f),                                  \
	.width = sizeof(((struct bb_config *)0)->f)

static const char *rw_nm(unsigned v) { return bb_rw_name((enum bb_rw)v); }
static const char *mode_nm(unsigned v) { return bb_mode_name((enum bb_mode)v); }
static const char *engine_nm(unsigned v)
{
	return bb_engine_name((enum bb_engine)v);
}
static const char *compl_nm(unsigned v)
{
	return bb_completion_name((enum bb_completion)v);
}
static const char *lat_nm(unsigned v)
{
	return bb_lat_mode_name((enum bb_lat_mode)v);
}
static const char *model_nm(unsigned v)
{
	return bb_model_name((enum bb_model)v);
}
static const char *nop_kind_nm(unsigned v)
{
	return bb_nop_kind_name((enum bb_nop_kind)v);
}
static const char *cache_nm(unsigned v)
{
	return bb_cache_variant_name((enum bb_cache_variant)v);
}
static const char *split_nm(unsigned v)
{
	return bb_split_check_name((enum bb_split_check)v);
}
static const char *layout_nm(unsigned v)
{
	return bb_layout_name((enum bb_layout)v);
}

#define ENUM_OF(fn, count) .val_name = fn, .nvals = count
#define MAX_CPU (CPU_SETSIZE - 1)
#define SZ_64M (64ull << 20)

static const struct bb_option opt_table[] = {
	/* target */
	{ .name = NULL, .json = "target", .type = OT_TARGETS, .group = "target",
	  FIELD(target),
	  .help = "nop, a regular file or a block device, or several files or block devices spread over the threads as t/io_uring spreads its FILE arguments (on the command line: the last arguments; in JSON a string or an array of strings)" },
	{ .name = "size", .json = "size", .type = OT_SIZE, .group = "target",
	  FIELD(size), .min = 0, .max = INT64_MAX,
	  .help = "region size in bytes (0: whole device or existing file); a write job with --allow-write creates or extends a file to --offset + --size, a read job never does" },
	{ .name = "offset", .json = "offset", .type = OT_SIZE, .group = "target",
	  FIELD(offset), .min = 0, .max = INT64_MAX,
	  .help = "start of the region in bytes" },
	{ .name = "direct", .json = "direct", .type = OT_BOOL, .group = "target",
	  FIELD(direct), .help = "O_DIRECT (forced on by --mode poll)" },
	{ .name = "allow-write", .json = "allow_write", .type = OT_BOOL,
	  .group = "target", FIELD(allow_write),
	  .help = "allow writes to a block device (it is opened O_EXCL) and creating or extending a file to --offset + --size" },

	/* workload */
	{ .name = "rw", .json = "rw", .type = OT_ENUM, .group = "workload",
	  FIELD(rw), ENUM_OF(rw_nm, BB_RW__COUNT),
	  .help = "I/O pattern" },
	{ .name = "rwmixread", .json = "rwmixread", .type = OT_UINT,
	  .group = "workload", FIELD(rwmixread), .min = 0, .max = 100,
	  .help = "percent of reads for --rw randrw" },
	{ .name = "bs", .json = "bs", .type = OT_SIZE, .group = "workload",
	  FIELD(bs), .min = 512, .max = SZ_64M,
	  .help = "block size in bytes, a multiple of 512 and of --lbs" },
	{ .name = "iodepth", .json = "iodepth", .type = OT_UINT,
	  .group = "workload", FIELD(iodepth), .min = 1, .max = 65536,
	  .help = "I/Os in flight per thread" },
	{ .name = "runtime", .json = "runtime", .type = OT_DURATION,
	  .group = "workload", FIELD(runtime_ns), .min = 0, .max = INT64_MAX,
	  .help = "run time, after the ramp (0: until --number-ios, or with --number-ios 0 until interrupted: SIGINT or SIGTERM ends the run and the summary covers what ran)" },
	{ .name = "number-ios", .json = "number_ios", .type = OT_UINT,
	  .group = "workload", FIELD(number_ios), .min = 0, .max = INT64_MAX,
	  .help = "I/Os per thread (0: until --runtime)" },
	{ .name = "ramp-time", .json = "ramp_time", .type = OT_DURATION,
	  .group = "workload", FIELD(ramp_ns), .min = 0, .max = INT64_MAX,
	  .help = "warm-up time excluded from the results" },
	{ .name = "threads", .json = "threads", .type = OT_UINT,
	  .group = "workload", FIELD(threads), .min = 1, .max = BB_MAX_THREADS,
	  .help = "submitter threads" },
	{ .name = "cpus", .json = "cpus", .type = OT_CPULIST,
	  .group = "workload", FIELD(cpus), .min = 0, .max = MAX_CPU,
	  .help = "pin submitter i to the i-th CPU of the list, cyclically (empty: not pinned)" },
	{ .name = "seed", .json = "seed", .type = OT_UINT, .group = "workload",
	  FIELD(seed), .min = 0, .max = INT64_MAX,
	  .help = "seed of the random offsets" },
	{ .name = "verify", .json = "verify", .type = OT_BOOL,
	  .group = "workload", FIELD(verify),
	  .help = "stamp written blocks, read them back and check" },

	/* engine */
	{ .name = "engine", .json = "engine", .type = OT_ENUM,
	  .group = "engine", FIELD(engine),
	  ENUM_OF(engine_nm, BB_ENGINE__COUNT),
	  .help = "io_uring: reads/writes on nop, a file or a block device; uring_cmd: NVMe passthrough (IORING_OP_URING_CMD, SQE128|CQE32) on /dev/ngXnY" },
	{ .name = "mode", .json = "mode", .type = OT_ENUM, .group = "engine",
	  FIELD(mode), ENUM_OF(mode_nm, BB_MODE__COUNT),
	  .help = "irq: plain ring; poll: IORING_SETUP_IOPOLL (needs poll queues); sqpoll: IORING_SETUP_SQPOLL" },
	{ .name = "fixedbufs", .json = "fixedbufs", .type = OT_BOOL,
	  .group = "engine", FIELD(fixedbufs),
	  .help = "registered buffers (READ_FIXED / WRITE_FIXED)" },
	{ .name = "registerfiles", .json = "registerfiles", .type = OT_BOOL,
	  .group = "engine", FIELD(registerfiles),
	  .help = "registered files (IOSQE_FIXED_FILE; forced on by --mode sqpoll)" },
	{ .name = "submit-batch", .json = "submit_batch", .type = OT_UINT,
	  .group = "engine", FIELD(submit_batch), .min = 0, .max = 65536,
	  .help = "max SQEs prepared per loop (0 means 1; clamped to --iodepth)" },
	{ .name = "complete-batch", .json = "complete_batch", .type = OT_UINT,
	  .group = "engine", FIELD(complete_batch), .min = 0, .max = 65536,
	  .help = "min CQEs waited for when the queue is full (0 means 1; clamped to --iodepth)" },
	{ .name = "sqpoll-cpu", .json = "sqpoll_cpu", .type = OT_INT,
	  .group = "engine", FIELD(sqpoll_cpu), .min = -1, .max = MAX_CPU,
	  .help = "CPU of the SQPOLL kernel thread (-1: not pinned)" },
	{ .name = "completion", .json = "completion", .type = OT_ENUM,
	  .group = "engine", FIELD(completion),
	  ENUM_OF(compl_nm, BB_COMPLETION__COUNT),
	  .help = "who reaps and in which context the bio puts run: auto (as the kernel's: irq for --mode irq and sqpoll, inline for --mode poll); inline: the submitter reaps, task context (polled completions); irq: the submitter reaps, its puts take the hard-irq path (a completion interrupt on the submitting CPU); thread: a completion thread on another CPU reaps and puts in hard-irq context (the cross-CPU worst case)" },
	{ .name = "completion-cpu", .json = "completion_cpu", .type = OT_INT,
	  .group = "engine", FIELD(completion_cpu), .min = -1, .max = MAX_CPU,
	  .help = "CPU of the completion thread (-1: the CPU after the submitter's in --cpus, the submitter's own with one CPU; not pinned without --cpus)" },
	{ .name = "max-memory", .json = NULL, .type = OT_SIZE,
	  .group = "engine", FIELD(max_memory), .min = 0, .max = INT64_MAX,
	  .help = "refuse a run whose I/O memory (buffers, slots, rings, bio slabs, verify state) is above this (0: half of the memory available)" },
	{ .name = "lat", .json = "lat", .type = OT_ENUM, .group = "engine",
	  FIELD(lat), ENUM_OF(lat_nm, BB_LAT__COUNT),
	  .help = "latency recording: off, per I/O, or per submit batch (t/io_uring -t1)" },
	{ .name = "inject-ns", .json = "inject_ns", .type = OT_UINT,
	  .group = "engine", FIELD(inject_ns), .min = 0, .max = 1000000000,
	  .help = "busy delay per I/O in the submit path, in ns (to prove the statistics)" },
	{ .name = "device-ns", .json = "device_ns", .type = OT_UINT,
	  .group = "engine", FIELD(device_ns), .min = 0, .max = 1000000000,
	  .help = "busy time per completed request in the completion path, in ns (on the clock from 1000, below it a loop count calibrated at setup; 0: none): the CPU cost of a driver and device per I/O, so that the model's costs are measured against a denominator like the kernel's" },

	{ .name = "register-ring", .json = "register_ring", .type = OT_BOOL,
	  .group = "engine", FIELD(register_ring),
	  .help = "register the ring fd (IORING_REGISTER_RING_FDS) so that io_uring_enter skips the fd lookup, as t/io_uring -X1 (not with --completion thread or sqpoll)" },
	{ .name = "restrict-ring", .json = "restrict_ring", .type = OT_BOOL,
	  .group = "engine", FIELD(restrict_ring),
	  .help = "start the ring disabled and allow only the run's opcodes (NOP, READ, READV, READ_FIXED, their writes for a write workload, URING_CMD for passthrough) and IOSQE_FIXED_FILE (IORING_REGISTER_RESTRICTIONS): the kernel checks every SQE, as t/io_uring -e1" },
	{ .name = "vectored", .json = "vectored", .type = OT_BOOL,
	  .group = "engine", FIELD(vectored),
	  .help = "reads and writes as IORING_OP_READV / WRITEV of one iovec, as t/io_uring -V1 (needs --fixedbufs=0 and --model none; not for nop or uring_cmd)" },
	{ .name = "numa-place", .json = "numa_place", .type = OT_BOOL,
	  .group = "engine", FIELD(numa_place),
	  .help = "pin each submitter to a CPU of the NUMA node of its (last) file's device (/sys/block/DEV/device/numa_node), as t/io_uring -P1; no effect on a single-node host, an unknown node or with --cpus" },

	{ .name = "nop-kind", .json = "nop_kind", .type = OT_ENUM,
	  .group = "engine", FIELD(nop_kind),
	  ENUM_OF(nop_kind_nm, BB_NOP__COUNT),
	  .help = "the nop target's NOPs: plain (IORING_OP_NOP, as t/io_uring -N1 of fio 3.33) or file (IORING_NOP_FILE|FIXED_FILE|FIXED_BUFFER|INJECT_RESULT with len = bs on a registered file and buffer, as current fio's t/io_uring -N1)" },

	/* model */
	{ .name = "model", .json = "model", .type = OT_ENUM, .group = "model",
	  FIELD(model), ENUM_OF(model_nm, BB_MODEL__COUNT),
	  .help = "bio: each I/O goes through the userspace bio model (alloc, split, end_io, put); none: one SQE per I/O straight from its slot, as t/io_uring (the model options below do not apply)" },
	{ .name = "bio-cache", .json = "bio_cache", .type = OT_ENUM,
	  .group = "model", FIELD(bio_cache),
	  ENUM_OF(cache_nm, BB_CACHE__COUNT),
	  .help = "bio cache variant: off; task (5.15-6.1: polled I/O only, cap 512+64); irq (6.2, 2022); irq_fast (6.9, 2024); all (Dec 2025 default-on; split clones uncached, as in every kernel); all_split (an experiment: all, and split clones cached too)" },
	{ .name = "split-check", .json = "split_check", .type = OT_ENUM,
	  .group = "model", FIELD(split_check),
	  ENUM_OF(split_nm, BB_SPLIT_CHECK__COUNT),
	  .help = "may-need-split test: vcnt (bi_vcnt != 1) or iter (bvec iterator, Dec 2025)" },
	{ .name = "bio-layout", .json = "bio_layout", .type = OT_ENUM,
	  .group = "model", FIELD(bio_layout),
	  ENUM_OF(layout_nm, BB_LAYOUT__COUNT),
	  .help = "bi_io_vec in the second (vec_late) or the first (vec_early) cache line" },
	{ .name = "cold-bios", .json = "cold_bios", .type = OT_BOOL,
	  .group = "model", FIELD(cold_bios),
	  .help = "evict each bio from the CPU caches when it is put (clflushopt), so that every allocation touches memory that is not cache-hot" },
	{ .name = "kernel-cost", .json = "kernel_cost", .type = OT_BOOL,
	  .group = "model", FIELD(kernel_cost),
	  .help = "add the calibrated cost of what the model does not execute, as busy work (calibrated, not executed): slab allocations and frees, the mempool reserve, and, where no kernel block layer runs under the I/O (nop, --direct=0), the block layer per request and its completion context (the --kcost-* values; --model bio only; off: the bare mechanism)" },
	{ .name = "kcost-slab-alloc-ns", .json = "kcost_slab_alloc_ns",
	  .type = OT_UINT, .group = "model", FIELD(kcost.slab_alloc_ns),
	  .min = 0, .max = BB_KCOST_MAX_NS,
	  .help = "kernel cost per slab object allocated (bio, split clone, bvec array) in ns: SLUB's fast path, its slow path's share and mempool_alloc (a cache hit pays none)" },
	{ .name = "kcost-slab-free-ns", .json = "kcost_slab_free_ns",
	  .type = OT_UINT, .group = "model", FIELD(kcost.slab_free_ns),
	  .min = 0, .max = BB_KCOST_MAX_NS,
	  .help = "kernel cost per slab object freed in ns: kmem_cache_free and mempool_free (a put into the cache pays none)" },
	{ .name = "kcost-mempool-ns", .json = "kcost_mempool_ns",
	  .type = OT_UINT, .group = "model", FIELD(kcost.mempool_ns),
	  .min = 0, .max = BB_KCOST_MAX_NS,
	  .help = "kernel cost per take from or refill of a bioset's reserve (the mempool's lock and element) in ns" },
	{ .name = "kcost-request-ns", .json = "kcost_request_ns",
	  .type = OT_UINT, .group = "model", FIELD(kcost.request_ns),
	  .min = 0, .max = BB_KCOST_MAX_NS,
	  .help = "kernel cost per request submitted in ns (blk_mq_submit_bio, the request, the driver's queue_rq), spent after each submit batch's fill; nop and --direct=0 only" },
	{ .name = "kcost-completion-ns", .json = "kcost_completion_ns",
	  .type = OT_UINT, .group = "model", FIELD(kcost.completion_ns),
	  .min = 0, .max = BB_KCOST_MAX_NS,
	  .help = "kernel cost per request completed in ns (the interrupt, the driver's completion, blk_mq_end_request), spent before each reap's bio_endio; nop and --direct=0 only" },

	/* queue limits: unset ones come from the device or the kernel
	 * defaults (blk_validate_limits), and are checked by the engine */
	{ .name = "max-sectors-kb", .json = "max_sectors_kb", .type = OT_UINT,
	  .group = "queue limits", FIELD(limits.max_user_sectors), .min = 0,
	  .max = UINT_MAX / 2, .scale = 2, .lim_bit = BB_LIM_MAX_SECTORS_KB,
	  .help = "max I/O size in KiB, like a write to queue/max_sectors_kb (sets max_user_sectors; capped by max_hw_sectors)" },
	{ .name = "max-segments", .json = "max_segments", .type = OT_UINT,
	  .group = "queue limits", FIELD(limits.max_segments), .min = 0,
	  .max = USHRT_MAX, .lim_bit = BB_LIM_MAX_SEGMENTS,
	  .help = "max segments per request" },
	{ .name = "max-segment-size", .json = "max_segment_size",
	  .type = OT_SIZE, .group = "queue limits",
	  FIELD(limits.max_segment_size), .min = 0, .max = UINT_MAX,
	  .lim_bit = BB_LIM_MAX_SEGMENT_SIZE,
	  .help = "max bytes per segment" },
	{ .name = "seg-boundary", .json = "seg_boundary", .type = OT_MASK,
	  .group = "queue limits", FIELD(limits.seg_boundary_mask), .min = 0,
	  .max = ULONG_MAX, .lim_bit = BB_LIM_SEG_BOUNDARY,
	  .help = "segment boundary mask: no segment crosses it" },
	{ .name = "virt-boundary", .json = "virt_boundary", .type = OT_MASK,
	  .group = "queue limits", FIELD(limits.virt_boundary_mask), .min = 0,
	  .max = ULONG_MAX, .lim_bit = BB_LIM_VIRT_BOUNDARY,
	  .help = "virtual boundary mask: segments must not leave gaps at it (NVMe PRP: 0xfff)" },
	{ .name = "chunk-sectors", .json = "chunk_sectors", .type = OT_UINT,
	  .group = "queue limits", FIELD(limits.chunk_sectors), .min = 0,
	  .max = UINT_MAX, .lim_bit = BB_LIM_CHUNK_SECTORS,
	  .help = "I/Os do not cross chunk boundaries (512-byte sectors)" },
	{ .name = "lbs", .json = "lbs", .type = OT_SIZE,
	  .group = "queue limits", FIELD(limits.logical_block_size), .min = 0,
	  .max = 65536, .lim_bit = BB_LIM_LBS,
	  .help = "logical block size, a power of two 512..64k" },

	/* output (command line only) */
	{ .name = "json", .json = NULL, .type = OT_BOOL, .group = "output",
	  FIELD(json), .help = "print the result as JSON" },
	{ .name = "quiet", .json = NULL, .type = OT_BOOL, .group = "output",
	  FIELD(quiet), .help = "no live per-second lines" },
	{ .name = "help", .json = NULL, .type = OT_HELP, .group = "output",
	  .help = "this help" },
};

#define SIZE_EXAMPLES "examples: 512, 4k, 64k, 1m"
#define DURATION_EXAMPLES "examples: 10, 500ms, 5s, 2m, 1h"
#define CPULIST_EXAMPLES "examples: 0, 0-3, 0,2-3"
#define MASK_EXAMPLES "examples: 0xfff, 0xffffffff"

/* Patterns of the text forms, for the JSON Schema. */
#define SIZE_PATTERN "^[0-9]+([kKmMgGtT]([iI]?[bB])?)?$"
#define DURATION_PATTERN "^[0-9]+(\\.[0-9]+)?(ns|us|ms|s|m|h)?$"
#define MASK_PATTERN "^(0[xX][0-9a-fA-F]+|[0-9]+)$"
#define CPULIST_PATTERN "^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"

/* ------------------------------------------------------------------ */
/* helpers */

static void *field_ptr(struct bb_config *cfg, const struct bb_option *o)
{
	return (char *)cfg + o->off;
}

static const void *field_cptr(const struct bb_config *cfg,
			      const struct bb_option *o)
{
	return (const char *)cfg + o->off;
}

static unsigned opt_scale(const struct bb_option *o)
{
	return o->scale ? o->scale : 1;
}

/* Unsigned fields of any width (enums are stored as unsigned int). */
static void store_u(struct bb_config *cfg, const struct bb_option *o,
		    uint64_t v)
{
	void *p = field_ptr(cfg, o);

	switch (o->width) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t load_u(const struct bb_config *cfg, const struct bb_option *o)
{
	const void *p = field_cptr(cfg, o);

	switch (o->width) {
	case 1: { uint8_t x; memcpy(&x, p, 1); return x; }
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	default: { uint64_t x; memcpy(&x, p, 8); return x; }
	}
}

static void store_i(struct bb_config *cfg, const struct bb_option *o,
		    int64_t v)
{
	int x = (int)v;

	memcpy(field_ptr(cfg, o), &x, sizeof(x));
}

static int64_t load_i(const struct bb_config *cfg, const struct bb_option *o)
{
	int x;

	memcpy(&x, field_cptr(cfg, o), sizeof(x));
	return x;
}

static void store_b(struct bb_config *cfg, const struct bb_option *o, bool v)
{
	memcpy(field_ptr(cfg, o), &v, sizeof(v));
}

static bool load_b(const struct bb_config *cfg, const struct bb_option *o)
{
	bool v;

	memcpy(&v, field_cptr(cfg, o), sizeof(v));
	return v;
}

static void mark_set(struct bb_config *cfg, const struct bb_option *o)
{
	cfg->limits_set |= o->lim_bit;
}

/* A size as text: with a k/m/g/t suffix when exact. */
static void fmt_size(char *buf, size_t len, uint64_t v)
{
	static const char sfx[] = "tgmk";
	static const unsigned shift[] = { 40, 30, 20, 10 };

	for (unsigned i = 0; i < 4 && v; i++) {
		if (v % (1ull << shift[i]) == 0) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift[i],
				 sfx[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

static void fmt_duration(char *buf, size_t len, uint64_t ns)
{
	static const struct {
		uint64_t unit;
		const char *sfx;
	} u[] = {
		{ 3600000000000ull, "h" }, { 60000000000ull, "m" },
		{ 1000000000ull, "s" },    { 1000000ull, "ms" },
		{ 1000ull, "us" },
	};

	if (ns == 0) {
		snprintf(buf, len, "0");
		return;
	}
	for (unsigned i = 0; i < bb_array_size(u); i++) {
		if (ns % u[i].unit == 0) {
			snprintf(buf, len, "%" PRIu64 "%s", ns / u[i].unit,
				 u[i].sfx);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64 "ns", ns);
}

/* "0,2-3" from the config. */
static void fmt_cpulist(char *buf, size_t len, const int *cpus, unsigned n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < n && used < len; i++) {
		unsigned j = i;

		while (j + 1 < n && cpus[j + 1] == cpus[j] + 1)
			j++;
		if (j > i)
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%d-%d", i ? "," : "",
						 cpus[i], cpus[j]);
		else
			used += (size_t)snprintf(buf + used, len - used,
						 "%s%d", i ? "," : "", cpus[i]);
		i = j;
	}
}

static void fmt_enum_list(char *buf, size_t len, const struct bb_option *o,
			  const char *sep)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < o->nvals && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? sep : "", o->val_name(i));
}

/* A range bound in the option's user unit. */
static void fmt_bound(char *buf, size_t len, const struct bb_option *o,
		      bool neg, uint64_t mag)
{
	if (neg)
		snprintf(buf, len, "-%" PRIu64, mag);
	else if (o->type == OT_SIZE)
		fmt_size(buf, len, mag);
	else
		snprintf(buf, len, "%" PRIu64, mag);
}

static void fmt_range(char *buf, size_t len, const struct bb_option *o)
{
	char lo[32], hi[32];

	fmt_bound(lo, sizeof(lo), o, o->min < 0,
		  o->min < 0 ? (uint64_t)(-(o->min + 1)) + 1 : (uint64_t)o->min);
	fmt_bound(hi, sizeof(hi), o, false, o->max);
	snprintf(buf, len, "%s..%s", lo, hi);
}

/* ------------------------------------------------------------------ */
/* value parsers */

int bb_parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned shift = 0;
	char *end;

	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (shift) {
		end++;
		if ((end[0] == 'i' || end[0] == 'I') &&
		    (end[1] == 'b' || end[1] == 'B'))
			end += 2;
		else if (end[0] == 'b' || end[0] == 'B')
			end++;
	}
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

int bb_parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct {
		const char *sfx;
		uint64_t unit;
	} units[] = {
		{ "", 1000000000ull },   { "s", 1000000000ull },
		{ "ms", 1000000ull },    { "us", 1000ull },
		{ "ns", 1ull },          { "m", 60000000000ull },
		{ "h", 3600000000000ull },
	};
	unsigned __int128 ip = 0, frac = 0, scale = 1, v;
	const char *p = s;
	uint64_t unit = 0;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		ip = ip * 10 + (unsigned)(*p - '0');
		if (ip > UINT64_MAX)
			return -ERANGE;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale < 1000000000000000000ull) {
				frac = frac * 10 + (unsigned)(*p - '0');
				scale *= 10;
			}
		}
	}
	for (unsigned i = 0; i < bb_array_size(units); i++) {
		if (!strcmp(p, units[i].sfx)) {
			unit = units[i].unit;
			break;
		}
	}
	if (!unit)
		return -EINVAL;
	v = ip * unit + frac * unit / scale;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

static int parse_cpu_num(const char **pp, int *cpu)
{
	const char *p = *pp;
	long v = 0;

	if (!isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (*p - '0');
		if (v > MAX_CPU)
			return -ERANGE;
	}
	*pp = p;
	*cpu = (int)v;
	return 0;
}

int bb_parse_cpulist(const char *s, int *cpus, unsigned max, unsigned *n)
{
	const char *p = s;
	unsigned cnt = 0;
	int a, b, ret;

	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		ret = parse_cpu_num(&p, &a);
		if (ret)
			return ret;
		b = a;
		if (*p == '-') {
			p++;
			ret = parse_cpu_num(&p, &b);
			if (ret)
				return ret;
			if (b < a)
				return -EINVAL;
		}
		for (int c = a; c <= b; c++) {
			if (cnt >= max)
				return -E2BIG;
			cpus[cnt++] = c;
		}
		if (*p == '\0')
			break;
		if (*p != ',')
			return -EINVAL;
		p++;
	}
	*n = cnt;
	return 0;
}

/* An integer as text: optional '-', decimal or 0x hex. */
static int parse_int_text(const char *s, bool *neg, uint64_t *mag)
{
	unsigned long long v;
	const char *p = s;
	int base = 10;
	char *end;

	*neg = false;
	if (*p == '-') {
		*neg = true;
		p++;
	}
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
		if (!isxdigit((unsigned char)*p))
			return -EINVAL;
	} else if (!isdigit((unsigned char)*p)) {
		return -EINVAL;
	}
	errno = 0;
	v = strtoull(p, &end, base);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*mag = v;
	if (*neg && v == 0)
		*neg = false;
	return 0;
}

static int parse_bool_text(const char *s, bool *v)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (unsigned i = 0; i < bb_array_size(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*v = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*v = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* ------------------------------------------------------------------ */
/* setting one option */

/* Range check a number in the user's unit, then store it. */
static int set_number(struct bb_config *cfg, const struct bb_option *o,
		      const char *label, bool neg, uint64_t mag,
		      const char *shown, char *err, size_t errlen)
{
	char range[80], num[32];
	bool ok;

	if (!shown) {
		snprintf(num, sizeof(num), "%s%" PRIu64, neg ? "-" : "", mag);
		shown = num;
	}
	if (neg)
		ok = o->min < 0 && mag <= (uint64_t)(-(o->min + 1)) + 1;
	else
		ok = mag <= o->max && (o->min <= 0 || mag >= (uint64_t)o->min);
	if (!ok) {
		fmt_range(range, sizeof(range), o);
		return bb_errf(err, errlen, -EINVAL, "%s: %s is out of range %s", label,
			       shown, range);
	}
	if (o->type == OT_INT)
		store_i(cfg, o, neg ? -(int64_t)(mag - 1) - 1 : (int64_t)mag);
	else
		store_u(cfg, o, mag * opt_scale(o));
	mark_set(cfg, o);
	return 0;
}

static int set_mask(struct bb_config *cfg, const struct bb_option *o,
		    const char *label, uint64_t v, char *err, size_t errlen)
{
	if (v & (v + 1))
		return bb_errf(err, errlen, -EINVAL,
			       "%s: 0x%" PRIx64 " is not of the form 2^n-1 (" MASK_EXAMPLES ")",
			       label, v);
	store_u(cfg, o, v);
	mark_set(cfg, o);
	return 0;
}

static int set_cpus(struct bb_config *cfg, const int *cpus, unsigned n)
{
	memcpy(cfg->cpus, cpus, n * sizeof(*cpus));
	cfg->ncpus = n;
	return 0;
}

static int set_enum_text(struct bb_config *cfg, const struct bb_option *o,
			 const char *label, char q, const char *v, char *err,
			 size_t errlen)
{
	char list[128];

	for (unsigned i = 0; i < o->nvals; i++) {
		if (!strcmp(v, o->val_name(i))) {
			store_u(cfg, o, i);
			return 0;
		}
	}
	fmt_enum_list(list, sizeof(list), o, ", ");
	return bb_errf(err, errlen, -EINVAL, "%s: %c%s%c is not one of %s", label,
		       q, v, q, list);
}

/* Set (or, with add, append) one target path. */
static int set_target(struct bb_config *cfg, const char *label,
		      const char *v, bool add, char *err, size_t errlen)
{
	int ret = add ? bb_config_add_target(cfg, v) :
			bb_config_set_target(cfg, v);

	if (ret == -EINVAL)
		return bb_errf(err, errlen, -EINVAL, "%s: must not be empty",
			       label);
	if (ret == -E2BIG && add && cfg->ntargets >= BB_MAX_TARGETS)
		return bb_errf(err, errlen, -EINVAL,
			       "%s: more than %d targets", label,
			       BB_MAX_TARGETS);
	if (ret == -E2BIG)
		return bb_errf(err, errlen, -EINVAL,
			       "%s: the target paths are longer than %zu bytes in all",
			       label, sizeof(cfg->target) - 2);
	return ret;
}

/* Set o from its text form v; label names it in messages, q quotes the
 * value there (' on the command line, " in a JSON document). */
static int opt_set_text(struct bb_config *cfg, const struct bb_option *o,
			const char *label, char q, const char *v, char *err,
			size_t errlen)
{
	int cpus[BB_MAX_THREADS];
	unsigned n;
	uint64_t u;
	bool neg, b;
	int ret;

	switch (o->type) {
	case OT_BOOL:
		if (parse_bool_text(v, &b))
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c is not a boolean (use 1, 0, true, false, yes, no, on or off)",
				       label, q, v, q);
		store_b(cfg, o, b);
		return 0;
	case OT_UINT:
	case OT_INT:
		ret = parse_int_text(v, &neg, &u);
		if (ret == -ERANGE)
			return bb_errf(err, errlen, -EINVAL, "%s: %s is too large", label,
				       v);
		if (ret)
			return bb_errf(err, errlen, -EINVAL, "%s: %c%s%c is not an integer",
				       label, q, v, q);
		return set_number(cfg, o, label, neg, u, v, err, errlen);
	case OT_SIZE:
		ret = bb_parse_size(v, &u);
		if (ret == -ERANGE)
			return bb_errf(err, errlen, -EINVAL, "%s: %s is too large", label,
				       v);
		if (ret)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c is not a size (" SIZE_EXAMPLES ")",
				       label, q, v, q);
		return set_number(cfg, o, label, false, u, v, err, errlen);
	case OT_DURATION:
		ret = bb_parse_duration_ns(v, &u);
		if (ret == -ERANGE)
			return bb_errf(err, errlen, -EINVAL, "%s: %s is too long", label,
				       v);
		if (ret)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c is not a duration (" DURATION_EXAMPLES ")",
				       label, q, v, q);
		return set_number(cfg, o, label, false, u, v, err, errlen);
	case OT_ENUM:
		return set_enum_text(cfg, o, label, q, v, err, errlen);
	case OT_MASK:
		ret = parse_int_text(v, &neg, &u);
		if (ret || neg)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c is not a mask (" MASK_EXAMPLES ")",
				       label, q, v, q);
		return set_mask(cfg, o, label, u, err, errlen);
	case OT_CPULIST:
		ret = bb_parse_cpulist(v, cpus, BB_MAX_THREADS, &n);
		if (ret == -ERANGE)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c names a CPU above %d", label, q, v, q,
				       MAX_CPU);
		if (ret == -E2BIG)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c lists more than %d CPUs", label, q,
				       v, q, BB_MAX_THREADS);
		if (ret)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %c%s%c is not a CPU list (" CPULIST_EXAMPLES ")",
				       label, q, v, q);
		return set_cpus(cfg, cpus, n);
	case OT_TARGETS:
		return set_target(cfg, label, v, false, err, errlen);
	case OT_HELP:
		break;
	}
	return bb_errf(err, errlen, -EINVAL, "%s: cannot be set", label);
}

/* A JSON number that is a mathematical integer. */
static bool json_integer(struct json_object *j, bool *neg, uint64_t *mag)
{
	enum json_type t = json_object_get_type(j);

	if (t == json_type_int) {
		int64_t v = json_object_get_int64(j);

		if (v < 0) {
			*neg = true;
			*mag = (uint64_t)(-(v + 1)) + 1;
		} else {
			*neg = false;
			*mag = json_object_get_uint64(j);
		}
		return true;
	}
	if (t == json_type_double) {
		double d = json_object_get_double(j);

		/* range first: converting an out-of-range double (1e101)
		 * to an integer is undefined (found by fuzz_http) */
		if (d != d || d >= 9.2e18 || d <= -9.2e18 ||
		    d != (double)(int64_t)d)
			return false;
		*neg = d < 0;
		*mag = (uint64_t)(d < 0 ? -d : d);
		return true;
	}
	return false;
}

static const char *json_type_hint(const struct bb_option *o)
{
	switch (o->type) {
	case OT_BOOL: return "expected a boolean";
	case OT_UINT:
	case OT_INT: return "expected an integer";
	case OT_SIZE: return "expected a size (an integer in bytes or a string such as \"4k\")";
	case OT_DURATION: return "expected a duration (seconds as a number or a string such as \"500ms\")";
	case OT_ENUM: return "expected a string";
	case OT_MASK: return "expected a mask (an integer or a string such as \"0xfff\")";
	case OT_CPULIST: return "expected a CPU list (a string such as \"0,2-3\" or an array of integers)";
	case OT_TARGETS: return "expected a string or an array of strings";
	case OT_HELP: break;
	}
	return "cannot be set";
}

/* Set o from the JSON value j; label names it in messages.  When the
 * error is deeper than the option itself (an element of a CPU list),
 * field (when not NULL) receives its path: "workload.cpus[1]". */
static int opt_set_json(struct bb_config *cfg, const struct bb_option *o,
			const char *label, struct json_object *j, char *field,
			size_t flen, char *err, size_t errlen)
{
	enum json_type t = json_object_get_type(j);
	int cpus[BB_MAX_THREADS];
	char range[64];
	uint64_t mag;
	bool neg;
	size_t n;

	if (t == json_type_string && o->type != OT_BOOL &&
	    o->type != OT_UINT && o->type != OT_INT)
		return opt_set_text(cfg, o, label, '"',
				    json_object_get_string(j), err, errlen);

	switch (o->type) {
	case OT_BOOL:
		if (t != json_type_boolean)
			break;
		store_b(cfg, o, json_object_get_boolean(j));
		return 0;
	case OT_UINT:
	case OT_INT:
	case OT_SIZE:
		if (!json_integer(j, &neg, &mag))
			break;
		return set_number(cfg, o, label, neg, mag, NULL, err, errlen);
	case OT_MASK:
		if (!json_integer(j, &neg, &mag))
			break;
		if (neg)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: -%" PRIu64 " is not a mask (" MASK_EXAMPLES ")",
				       label, mag);
		return set_mask(cfg, o, label, mag, err, errlen);
	case OT_DURATION: {
		double d;

		if (t != json_type_int && t != json_type_double)
			break;
		d = json_object_get_double(j);
		if (!(d >= 0) || d * 1e9 > (double)o->max)
			return bb_errf(err, errlen, -EINVAL,
				       "%s: %s is out of range 0..%.0f (seconds)",
				       label, json_object_to_json_string(j),
				       (double)o->max / 1e9);
		return set_number(cfg, o, label, false,
				  (uint64_t)(d * 1e9 + 0.5), NULL, err,
				  errlen);
	}
	case OT_CPULIST:
		if (t != json_type_array)
			break;
		n = json_object_array_length(j);
		if (n > BB_MAX_THREADS)
			return bb_errf(err, errlen, -EINVAL, "%s: lists more than %d CPUs",
				       label, BB_MAX_THREADS);
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(j, i);

			if (field && (!json_integer(e, &neg, &mag) || neg ||
				      mag > MAX_CPU))
				snprintf(field, flen, "%s[%zu]", label, i);
			if (!json_integer(e, &neg, &mag))
				return bb_errf(err, errlen, -EINVAL,
					       "%s[%zu]: expected an integer",
					       label, i);
			if (neg || mag > MAX_CPU) {
				fmt_range(range, sizeof(range), o);
				return bb_errf(err, errlen, -EINVAL,
					       "%s[%zu]: %s is out of range %s",
					       label, i,
					       json_object_to_json_string(e),
					       range);
			}
			cpus[i] = (int)mag;
		}
		return set_cpus(cfg, cpus, (unsigned)n);
	case OT_ENUM: {
		char list[128];

		fmt_enum_list(list, sizeof(list), o, ", ");
		return bb_errf(err, errlen, -EINVAL, "%s: expected one of %s", label,
			       list);
	}
	case OT_TARGETS:
		if (t != json_type_array || !json_object_array_length(j))
			break;
		n = json_object_array_length(j);
		for (size_t i = 0; i < n; i++) {
			struct json_object *e = json_object_array_get_idx(j, i);
			char elabel[300];
			int ret;

			snprintf(elabel, sizeof(elabel), "%s[%zu]", label, i);
			if (!json_object_is_type(e, json_type_string))
				return bb_errf(err, errlen, -EINVAL,
					       "%s: expected a string", elabel);
			ret = set_target(cfg, elabel, json_object_get_string(e),
					 i > 0, err, errlen);
			if (ret)
				return ret;
		}
		return 0;
	case OT_HELP:
		break;
	}
	return bb_errf(err, errlen, -EINVAL, "%s: %s", label, json_type_hint(o));
}

/* ------------------------------------------------------------------ */
/* lookup */

static const struct bb_option *find_cli(const char *name)
{
	for (size_t i = 0; i < bb_array_size(opt_table); i++)
		if (opt_table[i].name && !strcmp(opt_table[i].name, name))
			return &opt_table[i];
	return NULL;
}

int bb_options_words(int argc, char **argv, int i)
{
	const char *a = argv[i];
	const struct bb_option *o;

	if (a[0] != '-' || a[1] != '-' || !a[2])
		return 0;
	if (strchr(a + 2, '='))
		return 1;
	o = find_cli(a + 2);
	if (!o || o->type == OT_BOOL || o->type == OT_HELP)
		return 1; /* also --no-X: booleans only */
	return i + 1 < argc && strncmp(argv[i + 1], "--", 2) ? 2 : 1;
}

static const struct bb_option *find_json(const char *name)
{
	for (size_t i = 0; i < bb_array_size(opt_table); i++)
		if (opt_table[i].json && !strcmp(opt_table[i].json, name))
			return &opt_table[i];
	return NULL;
}

const char *bb_option_nearest(const char *name, bool json)
{
	struct bb_nearest n;

	bb_nearest_init(&n, name);
	for (size_t i = 0; i < bb_array_size(opt_table); i++)
		bb_nearest_add(&n, json ? opt_table[i].json : opt_table[i].name);
	return n.best;
}

/* " (did you mean --iodepth?)" for a mistyped long option, else "". */
static const char *cli_hint(const char *name, char *buf, size_t len)
{
	const char *near = bb_option_nearest(name, false);

	buf[0] = '\0';
	if (near)
		snprintf(buf, len, ": did you mean --%s?", near);
	return buf;
}

static const char *type_hint(const struct bb_option *o, char *buf,
			     size_t len)
{
	switch (o->type) {
	case OT_UINT:
	case OT_INT: return "an integer";
	case OT_SIZE: return "a size, e.g. 4k";
	case OT_DURATION: return "a duration, e.g. 5s";
	case OT_MASK: return "a mask, e.g. 0xfff";
	case OT_CPULIST: return "a CPU list, e.g. 0,2-3";
	case OT_TARGETS: return "a string";
	case OT_ENUM: {
		char list[100];

		fmt_enum_list(list, sizeof(list), o, ", ");
		snprintf(buf, len, "one of %s", list);
		return buf;
	}
	case OT_BOOL: return "a boolean";
	case OT_HELP: break;
	}
	return "nothing";
}

/* ------------------------------------------------------------------ */
/* public entry points */

int bb_options_set(struct bb_config *cfg, const char *name,
		   const char *value, char *err, size_t errlen)
{
	const struct bb_option *o = find_cli(name);
	char hint[128];

	if (!o)
		o = find_json(name);
	if (!o || o->type == OT_HELP) {
		const char *near = bb_option_nearest(name, strchr(name, '_') != NULL);

		bb_errf(err, errlen, -EINVAL,
			"unknown option '%s'%s%s%s (see biobench run --help)",
			name, near ? ": did you mean '" : "", near ? near : "",
			near ? "'?" : "");
		return -ENOENT;
	}
	if (!value) {
		if (o->type == OT_BOOL)
			value = "1";
		else
			return bb_errf(err, errlen, -EINVAL, "%s: missing value (%s)",
				       name, type_hint(o, hint, sizeof(hint)));
	}
	return opt_set_text(cfg, o, name, '\'', value, err, errlen);
}

int bb_options_from_json(struct bb_config *cfg, struct json_object *obj,
			 const char *path, char *err, size_t errlen)
{
	char label[256];
	int ret;

	if (!json_object_is_type(obj, json_type_object))
		return bb_errf(err, errlen, -EINVAL, "%s: expected an object",
			       path && *path ? path : "options");
	json_object_object_foreach(obj, key, val) {
		const struct bb_option *o = find_json(key);

		if (path && *path)
			snprintf(label, sizeof(label), "%s.%s", path, key);
		else
			snprintf(label, sizeof(label), "%s", key);
		if (!o) {
			const char *near = bb_option_nearest(key, true);

			return bb_errf(err, errlen, -EINVAL,
				       "%s: unknown option%s%s%s (see biobench run --help)",
				       label, near ? ": did you mean \"" : "",
				       near ? near : "", near ? "\"?" : "");
		}
		ret = opt_set_json(cfg, o, label, val, NULL, 0, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

bool bb_option_json_known(const char *field)
{
	const struct bb_option *o = find_json(field);

	return o && o->type != OT_HELP;
}

int bb_option_from_json(struct bb_config *cfg, const char *path,
			const char *key, struct json_object *val, char *field,
			size_t flen, char *err, size_t errlen)
{
	const struct bb_option *o = find_json(key);
	char label[256];

	if (path && *path)
		snprintf(label, sizeof(label), "%s.%s", path, key);
	else
		snprintf(label, sizeof(label), "%s", key);
	snprintf(field, flen, "%s", label);
	if (!o || o->type == OT_HELP) {
		const char *near = bb_option_nearest(key, true);

		return bb_errf(err, errlen, -ENOENT,
			       "%s: unknown option%s%s%s (see biobench run --help)",
			       label, near ? ": did you mean \"" : "",
			       near ? near : "", near ? "\"?" : "");
	}
	return opt_set_json(cfg, o, label, val, field, flen, err, errlen);
}

static bool is_help_arg(const char *a)
{
	return !strcmp(a, "--help") || !strcmp(a, "-h");
}

int bb_options_parse(int argc, char **argv, struct bb_config *cfg,
		     char *err, size_t errlen)
{
	const char *target = NULL, *targets[BB_MAX_TARGETS];
	unsigned ntargets = 0;
	bool opts_done = false;
	char name[64], label[80], hint[128];
	int ret;

	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (is_help_arg(argv[i]))
			return 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *eq, *value;
		const struct bb_option *o;
		size_t nlen;

		if (!opts_done && !strcmp(a, "--")) {
			opts_done = true;
			continue;
		}
		if (opts_done || a[0] != '-' || a[1] == '\0') {
			if (ntargets == BB_MAX_TARGETS)
				return bb_errf(err, errlen, -EINVAL,
					       "target '%s': more than %d targets",
					       a, BB_MAX_TARGETS);
			targets[ntargets++] = a;
			target = a;
			continue;
		}
		if (a[1] != '-' || a[2] == '\0' || a[2] == '=')
			return bb_errf(err, errlen, -EINVAL,
				       "unknown option %s (see biobench run --help)",
				       a);
		eq = strchr(a + 2, '=');
		nlen = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
		if (nlen >= sizeof(name))
			return bb_errf(err, errlen, -EINVAL,
				       "unknown option %.*s (see biobench run --help)",
				       (int)(nlen + 2), a);
		memcpy(name, a + 2, nlen);
		name[nlen] = '\0';
		snprintf(label, sizeof(label), "--%s", name);

		o = find_cli(name);
		if (!o && !strncmp(name, "no-", 3)) {
			o = find_cli(name + 3);
			if (o && o->type != OT_BOOL)
				return bb_errf(err, errlen, -EINVAL,
					       "%s: --%s is not a boolean option",
					       label, o->name);
			if (o) {
				if (eq)
					return bb_errf(err, errlen, -EINVAL,
						       "%s takes no value", label);
				store_b(cfg, o, false);
				continue;
			}
		}
		if (!o)
			return bb_errf(err, errlen, -EINVAL,
				       "unknown option %s%s (see biobench run --help)",
				       label, cli_hint(name, hint, sizeof(hint)));
		if (o->type == OT_HELP)
			return 1;
		if (o->type == OT_BOOL) {
			value = eq ? eq + 1 : "1";
		} else if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2)) {
			value = argv[++i];
		} else {
			return bb_errf(err, errlen, -EINVAL, "%s: missing value (%s)", label,
				       type_hint(o, hint, sizeof(hint)));
		}
		ret = opt_set_text(cfg, o, label, '\'', value, err, errlen);
		if (ret)
			return ret;
	}

	if (!target)
		return bb_errf(err, errlen, -EINVAL,
			       "missing target (nop, a file or a block device) as the last argument");
	for (unsigned i = 0; i < ntargets; i++) {
		ret = set_target(cfg, "target", targets[i], i > 0, err,
				 errlen);
		if (ret)
			return ret;
	}
	return bb_config_check(cfg, err, errlen);
}

/* A failed cross-field check: the option's JSON field name in field (""
 * when the message is about several), the message without it in err. */
static int check_fail(char *field, size_t flen, char *err, size_t errlen,
		      const char *name, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int check_fail(char *field, size_t flen, char *err, size_t errlen,
		      const char *name, const char *fmt, ...)
{
	va_list ap;

	if (field && flen)
		snprintf(field, flen, "%s", name);
	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

int bb_config_check_field(struct bb_config *cfg, char *field, size_t flen,
			  char *err, size_t errlen)
{
	unsigned lbs = cfg->limits.logical_block_size;
	char a[32], b[32];

	if (cfg->bs < 512 || cfg->bs > SZ_64M)
		return check_fail(field, flen, err, errlen, "bs",
				  "%u is out of range 512..64m",
				  cfg->bs);
	if (cfg->bs % 512)
		return check_fail(field, flen, err, errlen, "bs",
				  "%u is not a multiple of 512",
				  cfg->bs);
	if ((cfg->limits_set & BB_LIM_LBS) && lbs) {
		if (lbs < 512 || lbs > 65536 || (lbs & (lbs - 1)))
			return check_fail(field, flen, err, errlen, "lbs",
					  "%u is not a power of two in 512..64k",
					  lbs);
		if (cfg->bs % lbs)
			return check_fail(field, flen, err, errlen, "bs",
					  "%u is not a multiple of --lbs %u",
					  cfg->bs, lbs);
	}
	if (cfg->iodepth < 1 || cfg->iodepth > 65536)
		return check_fail(field, flen, err, errlen, "iodepth",
				  "%u is out of range 1..65536",
				  cfg->iodepth);
	if (cfg->threads < 1 || cfg->threads > BB_MAX_THREADS)
		return check_fail(field, flen, err, errlen, "threads",
				  "%u is out of range 1..%d",
				  cfg->threads, BB_MAX_THREADS);
	if (cfg->ncpus > BB_MAX_THREADS)
		return check_fail(field, flen, err, errlen, "cpus",
				  "more than %d CPUs",
				  BB_MAX_THREADS);
	if (cfg->rwmixread > 100)
		return check_fail(field, flen, err, errlen, "rwmixread",
				  "%u is out of range 0..100",
				  cfg->rwmixread);
	if (cfg->rw >= BB_RW__COUNT || cfg->mode >= BB_MODE__COUNT ||
	    cfg->engine >= BB_ENGINE__COUNT ||
	    cfg->completion >= BB_COMPLETION__COUNT ||
	    cfg->lat >= BB_LAT__COUNT || cfg->bio_cache >= BB_CACHE__COUNT ||
	    cfg->split_check >= BB_SPLIT_CHECK__COUNT ||
	    cfg->bio_layout >= BB_LAYOUT__COUNT ||
	    cfg->model >= BB_MODEL__COUNT || cfg->nop_kind >= BB_NOP__COUNT)
		return check_fail(field, flen, err, errlen, "", "invalid enum value in the configuration");
	if (cfg->size && cfg->size < cfg->bs) {
		fmt_size(a, sizeof(a), cfg->size);
		fmt_size(b, sizeof(b), cfg->bs);
		return check_fail(field, flen, err, errlen, "size",
				  "%s is smaller than --bs %s",
				  a, b);
	}
	if (cfg->direct && cfg->offset % 512)
		return check_fail(field, flen, err, errlen, "offset",
				  "%" PRIu64 " is not a multiple of 512 (needed by --direct)",
				  cfg->offset);
	if (cfg->verify && !bb_rw_writes(cfg->rw))
		return check_fail(field, flen, err, errlen, "",
				  "--verify needs a write workload (write, randwrite, randrw)");
	if (cfg->verify && bb_target_is_nop(cfg->target))
		return check_fail(field, flen, err, errlen, "",
				  "--verify needs a file or a block device: nop moves no data");
	if (cfg->engine == BB_ENGINE_URING_CMD && bb_target_is_nop(cfg->target))
		return check_fail(field, flen, err, errlen, "",
				  "--engine uring_cmd needs an NVMe generic char device (/dev/ngXnY), not nop");
	if (cfg->mode == BB_MODE_POLL &&
	    (cfg->completion == BB_COMPLETION_THREAD ||
	     cfg->completion == BB_COMPLETION_IRQ))
		return check_fail(field, flen, err, errlen, "completion",
				  "--completion %s models IRQ completions and cannot be combined with --mode poll (polled completions run in the submitting task: inline or auto)",
				  bb_completion_name(cfg->completion));
	if (cfg->model == BB_MODEL_NONE &&
	    (cfg->completion == BB_COMPLETION_THREAD ||
	     cfg->completion == BB_COMPLETION_IRQ))
		return check_fail(field, flen, err, errlen, "completion",
				  "--completion %s models the bio puts of hard-irq context and needs --model bio (with --model none there is no bio)",
				  bb_completion_name(cfg->completion));
	if (cfg->model == BB_MODEL_NONE && cfg->cold_bios)
		return check_fail(field, flen, err, errlen, "cold_bios",
				  "--cold-bios evicts the model's bios and needs --model bio (with --model none there is no bio)");
	if (cfg->vectored && cfg->fixedbufs)
		return check_fail(field, flen, err, errlen, "vectored",
				  "READV/WRITEV take no registered buffer: give --fixedbufs=0 with --vectored (t/io_uring -V1 issues READ_FIXED with -B1)");
	if (cfg->vectored && cfg->model != BB_MODEL_NONE)
		return check_fail(field, flen, err, errlen, "vectored",
				  "vectored I/O is issued without the bio model: give --model none");
	if (cfg->vectored && (bb_target_is_nop(cfg->target) ||
			      cfg->engine == BB_ENGINE_URING_CMD))
		return check_fail(field, flen, err, errlen, "vectored",
				  "vectored I/O needs a file or a block device with --engine io_uring (nop issues NOPs; vectored NVMe passthrough is not supported)");
	if (cfg->numa_place && cfg->ncpus)
		return check_fail(field, flen, err, errlen, "numa_place",
				  "--cpus already places the threads: give one of --numa-place and --cpus");
	if (cfg->nop_kind != BB_NOP_PLAIN && !bb_target_is_nop(cfg->target))
		return check_fail(field, flen, err, errlen, "",
				  "--nop-kind %s applies to the nop target only (the target is %s)",
			       bb_nop_kind_name(cfg->nop_kind), cfg->target);
	if (cfg->ntargets == 0)
		cfg->ntargets = 1;
	if (cfg->ntargets > 1) {
		const char *p = cfg->target;

		for (; p; p = bb_config_next_target(cfg, p))
			if (bb_target_is_nop(p))
				return check_fail(field, flen, err, errlen, "target",
						  "nop is one target of its own, not one of several files");
		if ((cfg->ntargets + cfg->threads - 1) / cfg->threads >
		    BB_MAX_TARGETS_PER_THREAD)
			return check_fail(field, flen, err, errlen, "target",
					  "%u files on %u thread(s) is more than %d files per thread (t/io_uring's limit); add --threads",
				       cfg->ntargets, cfg->threads,
				       BB_MAX_TARGETS_PER_THREAD);
	}

	/* adjustments, as t/io_uring does */
	if (cfg->submit_batch == 0)
		cfg->submit_batch = 1;
	if (cfg->complete_batch == 0)
		cfg->complete_batch = 1;
	cfg->submit_batch = bb_min(cfg->submit_batch, cfg->iodepth);
	cfg->complete_batch = bb_min(cfg->complete_batch, cfg->iodepth);
	if (cfg->mode == BB_MODE_POLL)
		cfg->direct = true;
	if (cfg->mode == BB_MODE_SQPOLL)
		cfg->registerfiles = true;
	return 0;
}

int bb_config_check(struct bb_config *cfg, char *err, size_t errlen)
{
	char field[64] = "", msg[512];
	const struct bb_option *o;
	int ret = bb_config_check_field(cfg, field, sizeof(field), msg,
					sizeof(msg));

	if (!ret)
		return 0;
	o = field[0] ? find_json(field) : NULL;
	if (o && o->name)
		return bb_errf(err, errlen, ret, "--%s: %s", o->name, msg);
	if (field[0]) /* no command-line option: the target */
		return bb_errf(err, errlen, ret, "%s: %s", field, msg);
	return bb_errf(err, errlen, ret, "%s", msg);
}

/* ------------------------------------------------------------------ */
/* --help */

static void fmt_value_text(char *buf, size_t len, const struct bb_option *o,
			   const struct bb_config *cfg)
{
	if (o->lim_bit && !(cfg->limits_set & o->lim_bit)) {
		snprintf(buf, len, "from the device or the kernel");
		return;
	}
	switch (o->type) {
	case OT_BOOL:
		snprintf(buf, len, "%s", load_b(cfg, o) ? "true" : "false");
		break;
	case OT_UINT:
		if (o->json && !strcmp(o->json, "seed"))
			snprintf(buf, len, "0x%" PRIx64, load_u(cfg, o));
		else
			snprintf(buf, len, "%" PRIu64,
				 load_u(cfg, o) / opt_scale(o));
		break;
	case OT_INT:
		snprintf(buf, len, "%" PRId64, load_i(cfg, o));
		break;
	case OT_SIZE:
		fmt_size(buf, len, load_u(cfg, o));
		break;
	case OT_DURATION:
		fmt_duration(buf, len, load_u(cfg, o));
		break;
	case OT_ENUM:
		snprintf(buf, len, "%s", o->val_name((unsigned)load_u(cfg, o)));
		break;
	case OT_MASK:
		snprintf(buf, len, "0x%" PRIx64, load_u(cfg, o));
		break;
	case OT_CPULIST:
		if (cfg->ncpus)
			fmt_cpulist(buf, len, cfg->cpus, cfg->ncpus);
		else
			snprintf(buf, len, "not pinned");
		break;
	case OT_TARGETS:
		snprintf(buf, len, "%s", (const char *)field_cptr(cfg, o));
		break;
	case OT_HELP:
		buf[0] = '\0';
		break;
	}
}

void bb_options_help(FILE *f)
{
	struct bb_config def;
	const char *group = NULL;

	bb_config_default(&def);
	fprintf(f,
		"Options take --name=value or --name value; boolean\n"
		"options also --name and --no-name.  Sizes take k/m/g suffixes (binary),\n"
		"durations ns/us/ms/s/m/h (a plain number is seconds).  In a job's JSON the\n"
		"names use underscores (--max-sectors-kb is \"max_sectors_kb\").\n");
	for (size_t i = 0; i < bb_array_size(opt_table); i++) {
		const struct bb_option *o = &opt_table[i];
		char head[96], meta[96], val[160], extra[200];

		if (!o->name)
			continue;
		if (!group || strcmp(group, o->group)) {
			group = o->group;
			fprintf(f, "\n%s:\n", group);
		}
		extra[0] = '\0';
		switch (o->type) {
		case OT_BOOL:
			snprintf(head, sizeof(head), "--[no-]%s", o->name);
			break;
		case OT_HELP:
			snprintf(head, sizeof(head), "--help, -h");
			break;
		case OT_ENUM:
			fmt_enum_list(meta, sizeof(meta), o, "|");
			snprintf(head, sizeof(head), "--%s=%s", o->name, meta);
			break;
		case OT_UINT:
		case OT_INT:
		case OT_SIZE: {
			char range[80];

			fmt_range(range, sizeof(range), o);
			snprintf(head, sizeof(head), "--%s=%s", o->name,
				 o->type == OT_SIZE ? "SIZE" : "N");
			if (o->max < INT64_MAX) /* no "0..2^63-1" noise */
				snprintf(extra, sizeof(extra), "; range %s",
					 range);
			break;
		}
		case OT_DURATION:
			snprintf(head, sizeof(head), "--%s=TIME", o->name);
			break;
		case OT_MASK:
			snprintf(head, sizeof(head), "--%s=MASK", o->name);
			snprintf(extra, sizeof(extra),
				 "; 2^n-1, decimal or 0x hex");
			break;
		case OT_CPULIST:
			snprintf(head, sizeof(head), "--%s=LIST", o->name);
			snprintf(extra, sizeof(extra), "; e.g. 0,2-3");
			break;
		case OT_TARGETS:
			snprintf(head, sizeof(head), "--%s=STRING", o->name);
			break;
		}
		if (strlen(head) > 30)
			fprintf(f, "  %s\n  %-30s %s\n", head, "", o->help);
		else
			fprintf(f, "  %-30s %s\n", head, o->help);
		if (o->type != OT_HELP) {
			fmt_value_text(val, sizeof(val), o, &def);
			fprintf(f, "  %-30s default: %s%s\n", "", val, extra);
		}
	}
}

/* ------------------------------------------------------------------ */
/* JSON: config and schema */

static struct json_object *json_u64(uint64_t v)
{
	return v <= INT64_MAX ? json_object_new_int64((int64_t)v)
			      : json_object_new_uint64(v);
}

/* Seconds with ns precision, printed without binary noise. */
static struct json_object *json_seconds(uint64_t ns)
{
	char buf[48];
	size_t n;

	if (ns % 1000000000ull == 0)
		return json_u64(ns / 1000000000ull);
	n = (size_t)snprintf(buf, sizeof(buf), "%" PRIu64 ".%09" PRIu64,
			     (uint64_t)(ns / 1000000000ull),
			     (uint64_t)(ns % 1000000000ull));
	while (n && buf[n - 1] == '0')
		buf[--n] = '\0';
	return json_object_new_double_s((double)ns / 1e9, buf);
}

static struct json_object *opt_value_json(const struct bb_option *o,
					  const struct bb_config *cfg)
{
	struct json_object *arr;

	switch (o->type) {
	case OT_BOOL:
		return json_object_new_boolean(load_b(cfg, o));
	case OT_UINT:
		return json_u64(load_u(cfg, o) / opt_scale(o));
	case OT_INT:
		return json_object_new_int64(load_i(cfg, o));
	case OT_SIZE:
	case OT_MASK:
		return json_u64(load_u(cfg, o));
	case OT_DURATION:
		return json_seconds(load_u(cfg, o));
	case OT_ENUM:
		return json_object_new_string(
			o->val_name((unsigned)load_u(cfg, o)));
	case OT_CPULIST:
		arr = json_object_new_array();
		for (unsigned i = 0; i < cfg->ncpus; i++)
			json_object_array_add(arr,
					      json_object_new_int(cfg->cpus[i]));
		return arr;
	case OT_TARGETS:
		if (cfg->ntargets <= 1)
			return json_object_new_string(cfg->target);
		arr = json_object_new_array();
		for (const char *p = cfg->target; p;
		     p = bb_config_next_target(cfg, p))
			json_object_array_add(arr, json_object_new_string(p));
		return arr;
	case OT_HELP:
		break;
	}
	return NULL;
}

struct json_object *bb_config_to_json(const struct bb_config *cfg)
{
	struct json_object *obj = json_object_new_object();

	for (size_t i = 0; i < bb_array_size(opt_table); i++) {
		const struct bb_option *o = &opt_table[i];

		if (!o->json || o->type == OT_HELP)
			continue;
		if (o->lim_bit && !(cfg->limits_set & o->lim_bit))
			continue; /* not given: from the device or kernel */
		json_object_object_add(obj, o->json, opt_value_json(o, cfg));
	}
	return obj;
}

static struct json_object *json_types(const char *a, const char *b)
{
	struct json_object *arr = json_object_new_array();

	json_object_array_add(arr, json_object_new_string(a));
	json_object_array_add(arr, json_object_new_string(b));
	return arr;
}

static void add_range(struct json_object *p, const struct bb_option *o)
{
	json_object_object_add(p, "minimum", json_object_new_int64(o->min));
	json_object_object_add(p, "maximum", json_u64(o->max));
}

struct json_object *bb_options_json_schema(void)
{
	struct json_object *schema = json_object_new_object();
	struct json_object *props = json_object_new_object();
	struct bb_config def;

	bb_config_default(&def);
	json_object_object_add(schema, "$schema",
		json_object_new_string("https://json-schema.org/draft/2020-12/schema"));
	json_object_object_add(schema, "title",
		json_object_new_string("biobench run options"));
	json_object_object_add(schema, "type", json_object_new_string("object"));

	for (size_t i = 0; i < bb_array_size(opt_table); i++) {
		const struct bb_option *o = &opt_table[i];
		struct json_object *p, *e, *items;

		if (!o->json || o->type == OT_HELP)
			continue;
		p = json_object_new_object();
		json_object_object_add(p, "description",
				       json_object_new_string(o->help));
		switch (o->type) {
		case OT_BOOL:
			json_object_object_add(p, "type",
					       json_object_new_string("boolean"));
			break;
		case OT_UINT:
		case OT_INT:
			json_object_object_add(p, "type",
					       json_object_new_string("integer"));
			add_range(p, o);
			break;
		case OT_SIZE:
			json_object_object_add(p, "type",
					       json_types("integer", "string"));
			add_range(p, o);
			json_object_object_add(p, "pattern",
					       json_object_new_string(SIZE_PATTERN));
			break;
		case OT_DURATION:
			json_object_object_add(p, "type",
					       json_types("number", "string"));
			json_object_object_add(p, "minimum",
					       json_object_new_int(0));
			json_object_object_add(p, "pattern",
					       json_object_new_string(DURATION_PATTERN));
			break;
		case OT_ENUM:
			json_object_object_add(p, "type",
					       json_object_new_string("string"));
			e = json_object_new_array();
			for (unsigned v = 0; v < o->nvals; v++)
				json_object_array_add(
					e, json_object_new_string(o->val_name(v)));
			json_object_object_add(p, "enum", e);
			break;
		case OT_MASK:
			json_object_object_add(p, "type",
					       json_types("integer", "string"));
			add_range(p, o);
			json_object_object_add(p, "pattern",
					       json_object_new_string(MASK_PATTERN));
			break;
		case OT_CPULIST:
			json_object_object_add(p, "type",
					       json_types("array", "string"));
			items = json_object_new_object();
			json_object_object_add(items, "type",
					       json_object_new_string("integer"));
			add_range(items, o);
			json_object_object_add(p, "items", items);
			json_object_object_add(p, "maxItems",
					       json_object_new_int(BB_MAX_THREADS));
			json_object_object_add(p, "pattern",
					       json_object_new_string(CPULIST_PATTERN));
			break;
		case OT_TARGETS:
			json_object_object_add(p, "type",
					       json_types("string", "array"));
			json_object_object_add(p, "minLength",
					       json_object_new_int(1));
			json_object_object_add(p, "maxLength",
					       json_object_new_int((int)o->width - 2));
			items = json_object_new_object();
			json_object_object_add(items, "type",
					       json_object_new_string("string"));
			json_object_object_add(items, "minLength",
					       json_object_new_int(1));
			json_object_object_add(p, "items", items);
			json_object_object_add(p, "minItems",
					       json_object_new_int(1));
			json_object_object_add(p, "maxItems",
					       json_object_new_int(BB_MAX_TARGETS));
			break;
		case OT_HELP:
			break;
		}
		if (!o->lim_bit)
			json_object_object_add(p, "default",
					       opt_value_json(o, &def));
		json_object_object_add(props, o->json, p);
	}
	json_object_object_add(schema, "properties", props);
	json_object_object_add(schema, "additionalProperties",
			       json_object_new_boolean(0));
	return schema;
}
