// SPDX-License-Identifier: GPL-2.0-only
/* config.c - the default configuration, the names of the config enums,
 * and the memory a run of a configuration needs. */
#include <biobench/config.h>
#include <biobench/options.h>

#include "io/target.h"
#include "run/worker.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const rw_names[BB_RW__COUNT] = {
	"read", "write", "randread", "randwrite", "randrw",
};
static const char *const mode_names[BB_MODE__COUNT] = {
	"irq", "poll", "sqpoll",
};
static const char *const engine_names[BB_ENGINE__COUNT] = {
	"io_uring", "uring_cmd",
};
static const char *const completion_names[BB_COMPLETION__COUNT] = {
	"inline", "thread", "irq", "auto",
};
static const char *const lat_names[BB_LAT__COUNT] = {
	"off", "io", "batch",
};
static const char *const model_names[BB_MODEL__COUNT] = {
	"bio", "none",
};
static const char *const nop_kind_names[BB_NOP__COUNT] = {
	"plain", "file",
};

void bb_config_default(struct bb_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->target, BB_TARGET_NOP_NAME);
	cfg->ntargets = 1;
	cfg->size = 0;
	cfg->offset = 0;
	cfg->direct = true;
	cfg->allow_write = false;

	cfg->rw = BB_RW_RANDREAD;
	cfg->rwmixread = 50;
	cfg->bs = 4096;
	cfg->iodepth = 128;
	cfg->runtime_ns = 5ull * 1000000000ull;
	cfg->number_ios = 0;
	cfg->ramp_ns = 0;
	cfg->threads = 1;
	cfg->ncpus = 0;
	cfg->seed = 0x5eed;
	cfg->verify = false;

	cfg->engine = BB_ENGINE_IO_URING;
	cfg->mode = BB_MODE_IRQ;
	cfg->fixedbufs = true;
	cfg->registerfiles = true;
	cfg->submit_batch = 32;
	cfg->complete_batch = 32;
	cfg->sqpoll_cpu = -1;
	cfg->completion = BB_COMPLETION_AUTO;
	cfg->completion_cpu = -1;
	cfg->lat = BB_LAT_BATCH;
	cfg->inject_ns = 0;
	cfg->device_ns = 0;
	cfg->nop_kind = BB_NOP_PLAIN;
	cfg->register_ring = true;
	cfg->restrict_ring = false;
	cfg->vectored = false;
	cfg->numa_place = false;

	cfg->model = BB_MODEL_BIO;
	cfg->bio_cache = BB_CACHE_ALL;
	cfg->split_check = BB_SPLIT_CHECK_ITER;
	cfg->bio_layout = BB_LAYOUT_VEC_EARLY;
	cfg->kernel_cost = true;
	cfg->kcost = (struct bb_kcost){
		.slab_alloc_ns = BB_KCOST_SLAB_ALLOC_NS,
		.slab_free_ns = BB_KCOST_SLAB_FREE_NS,
		.mempool_ns = BB_KCOST_MEMPOOL_NS,
		.request_ns = BB_KCOST_REQUEST_NS,
		.completion_ns = BB_KCOST_COMPLETION_NS,
	};
	bb_limits_clear(&cfg->limits); /* validated later by the engine */
	cfg->limits_set = 0;

	cfg->json = false;
	cfg->quiet = false;
}

const char *bb_rw_name(enum bb_rw v)
{
	return (unsigned)v < BB_RW__COUNT ? rw_names[v] : "?";
}

const char *bb_mode_name(enum bb_mode v)
{
	return (unsigned)v < BB_MODE__COUNT ? mode_names[v] : "?";
}

const char *bb_engine_name(enum bb_engine v)
{
	return (unsigned)v < BB_ENGINE__COUNT ? engine_names[v] : "?";
}

const char *bb_completion_name(enum bb_completion v)
{
	return (unsigned)v < BB_COMPLETION__COUNT ? completion_names[v] : "?";
}

const char *bb_config_put_context(const struct bb_config *cfg)
{
	if (cfg->model != BB_MODEL_BIO)
		return "none";
	switch (bb_config_completion(cfg)) {
	case BB_COMPLETION_THREAD:
		return "hardirq_cross_cpu";
	case BB_COMPLETION_IRQ:
		return "hardirq";
	default:
		return "task";
	}
}

void bb_config_kcost_text(const struct bb_config *cfg, char *buf, size_t len)
{
	const struct bb_kcost *c = &cfg->kcost;
	int n;

	if (!bb_config_kcost(cfg)) {
		snprintf(buf, len, "%s",
			 cfg->model == BB_MODEL_BIO ?
			 "off: the bare mechanism, against the model's own "
			 "costs only" : "none (no model)");
		return;
	}
	n = snprintf(buf, len,
		     "calibrated, not executed: slab %" PRIu64 " ns per "
		     "object allocated, %" PRIu64 " ns freed, mempool %" PRIu64
		     " ns per reserve take or refill; ",
		     c->slab_alloc_ns, c->slab_free_ns, c->mempool_ns);
	if (n < 0 || (size_t)n >= len)
		return;
	if (bb_config_kcost_requests(cfg))
		snprintf(buf + n, len - (size_t)n,
			 "block layer %" PRIu64 " ns and completion %" PRIu64
			 " ns per request",
			 c->request_ns, c->completion_ns);
	else
		snprintf(buf + n, len - (size_t)n,
			 "block layer and completion: the kernel's own "
			 "(O_DIRECT: executed, not added)");
}

const char *bb_lat_mode_name(enum bb_lat_mode v)
{
	return (unsigned)v < BB_LAT__COUNT ? lat_names[v] : "?";
}

/* ---- memory ---------------------------------------------------------------- */

/* bvec array class of a bio of nvecs vecs (path/bioset.c: 16, 64, 128,
 * 256; <= 4 vecs are inline). */
static unsigned bvec_class(unsigned nvecs)
{
	static const unsigned cls[] = { 16, 64, 128, 256 };

	for (unsigned i = 0; i < sizeof(cls) / sizeof(cls[0]); i++)
		if (nvecs <= cls[i])
			return cls[i];
	return 256;
}

/* Counted per thread, from what path/worker.c setup() and run/engine.c
 * allocate (the sizes shared through run/worker.h):
 *   buffers   iodepth slots of bs rounded up to a page (one mmap,
 *             MAP_POPULATE: all resident);
 *   slots     per slot a struct wslot, a free-stack entry (4 bytes) and
 *             its page vecs (16 bytes per page of bs);
 *   ring      SQEs (64 bytes, 128 with uring_cmd) and SQ index entries of
 *             the SQ, CQEs (16 bytes, 32 with uring_cmd) of the CQ, plus a
 *             page of ring headers;
 *   bios      the main bioset's slab and reserve (BB_WORKER_BIO_SLAB +
 *             BB_WORKER_BIO_POOL objects), the bvec arrays of the one
 *             class bios of bs use when bs is above 4 pages
 *             (BB_WORKER_BVEC_SLAB, + the pool for the 256 class), the
 *             split bioset (BB_WORKER_SPLIT_SLAB for the most pieces an
 *             I/O can be cut into, + BB_WORKER_SPLIT_POOL): mapped
 *             MAP_NORESERVE and touched as used, so this is what the slab
 *             limits allow, not what a short run touches;
 *   verify    a generation (4 bytes) and a busy byte per block of the
 *             region (the threads' slices together);
 *   completion  the completion thread's done queue (4 bytes per slot,
 *             rounded up to a power of two) and its histogram;
 *   threads   the worker state (BB_WORKER_STATE_BYTES), the engine's
 *             struct bb_worker_args and pthread_t, the result's struct
 *             bb_thread_info (and its histogram with latency on), and for
 *             each thread (submitter, completion thread) 1 MiB of stack
 *             and malloc arena pages touched (BB_THREAD_RUNTIME_BYTES);
 *   samples   one struct bb_sample per second of runtime (+ 2).
 * Not counted: the 1 MiB buffer of a file layout (freed before the
 * workers start), stacks and arenas beyond what is touched (mapped only). */
/* Per thread the run starts: see "threads" above.  256 KiB was measured
 * short by 0.5 MiB on a run with a completion thread (test_memory). */
#define BB_THREAD_RUNTIME_BYTES (1u << 20)

void bb_config_memory_estimate(const struct bb_config *cfg,
			       uint64_t region_len,
			       const struct bb_queue_limits *lim,
			       struct bb_mem_estimate *e)
{
	const uint64_t n = cfg->threads ? cfg->threads : 1;
	const uint64_t d = cfg->iodepth ? cfg->iodepth : 1;
	const uint64_t stride = ((uint64_t)cfg->bs + BB_PAGE_SIZE - 1) /
				BB_PAGE_SIZE * BB_PAGE_SIZE;
	const uint64_t pages = stride / BB_PAGE_SIZE;
	bool cmd = cfg->engine == BB_ENGINE_URING_CMD;
	struct bb_queue_limits synth;
	unsigned pieces, sq, cq, dq = 1;
	uint64_t per, bvecs = 0;

	memset(e, 0, sizeof(*e));
	if (!lim) {
		/* the synthetic limits the run would use (defaults filled) */
		if (bb_target_apply_limits(&synth, cfg, false, NULL, 0) == 0)
			lim = &synth;
	}
	pieces = lim ? bb_limits_max_pieces(cfg->bs, lim)
		     : cfg->bs / BB_SECTOR_SIZE + 1;
	if (!region_len)
		region_len = cfg->size ? cfg->size :
			     bb_target_is_nop(cfg->target) ? 1ull << 30 : 0;

	e->buffers = n * d * stride;
	e->slots = n * d * (BB_WORKER_SLOT_BYTES + 4 + pages * 16);
	bb_worker_ring_sizes((unsigned)d, pieces, &sq, &cq);
	e->ring = n * ((uint64_t)sq * ((cmd ? 128 : 64) + 4) +
		       (uint64_t)cq * (cmd ? 32 : 16) + BB_PAGE_SIZE);
	if (pages > 4) {
		unsigned cl = bvec_class((unsigned)bb_min(pages, 256u));

		bvecs = (uint64_t)cl * 16 *
			(BB_WORKER_BVEC_SLAB(d) + (cl == 256 ? BB_WORKER_BIO_POOL : 0));
	}
	per = (BB_WORKER_BIO_SLAB(d) + BB_WORKER_BIO_POOL) *
		      (uint64_t)BB_WORKER_BIO_OBJ_BYTES +
	      bvecs +
	      (BB_WORKER_SPLIT_SLAB(d, (uint64_t)pieces) + BB_WORKER_SPLIT_POOL) *
		      (uint64_t)BB_WORKER_SPLIT_OBJ_BYTES;
	e->bios = n * per;
	if (cfg->verify && cfg->bs)
		e->verify = region_len / cfg->bs * 5;
	if (cfg->completion == BB_COMPLETION_THREAD) {
		while (dq < d)
			dq <<= 1;
		e->completion = n * ((uint64_t)dq * 4 +
				     (cfg->lat != BB_LAT_OFF ?
				      sizeof(struct bb_hist) : 0));
	}
	e->threads = n * (BB_WORKER_STATE_BYTES + sizeof(struct bb_worker_args) +
			  sizeof(uint64_t) + sizeof(struct bb_thread_info) +
			  (cfg->lat != BB_LAT_OFF ? sizeof(struct bb_hist) : 0) +
			  (cfg->completion == BB_COMPLETION_THREAD ? 2 : 1) *
				  BB_THREAD_RUNTIME_BYTES);
	e->samples = (cfg->runtime_ns / 1000000000ull + 2) *
		     sizeof(struct bb_sample);
	e->total = e->buffers + e->slots + e->ring + e->bios + e->verify +
		   e->completion + e->threads + e->samples;
	e->locked = cfg->fixedbufs && !bb_target_is_nop(cfg->target) ?
			    e->buffers : 0;
}

/* Whether this process has CAP_IPC_LOCK (then RLIMIT_MEMLOCK does not
 * bound registered buffers). */
static bool have_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version =
						      _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct c[2];

	memset(c, 0, sizeof(c));
	if (syscall(SYS_capget, &h, c))
		return false;
	return c[CAP_IPC_LOCK / 32].effective & (1u << (CAP_IPC_LOCK % 32));
}

int bb_config_memory_check(const struct bb_config *cfg,
			   const struct bb_mem_estimate *e, uint64_t limit,
			   const char *limit_name, char *err, size_t errlen)
{
	char b[8][32];
	struct rlimit rl;

	bb_fmt_bytes(b[0], sizeof(b[0]), cfg->bs);
	bb_fmt_bytes(b[1], sizeof(b[1]), e->buffers);
	bb_fmt_bytes(b[2], sizeof(b[2]), e->total);
	if (limit && e->total > limit) {
		bb_fmt_bytes(b[3], sizeof(b[3]), e->slots);
		bb_fmt_bytes(b[4], sizeof(b[4]), e->bios);
		bb_fmt_bytes(b[5], sizeof(b[5]), e->ring);
		bb_fmt_bytes(b[6], sizeof(b[6]), e->verify);
		bb_fmt_bytes(b[7], sizeof(b[7]),
			     e->completion + e->threads + e->samples);
		return bb_errf(err, errlen, -ENOMEM,
			       "memory: threads %u x iodepth %u x bs %s = %s "
			       "of I/O buffers, %s in all (slots %s, bio slabs "
			       "%s, rings %s, verify %s, other %s), is above "
			       "%s: lower threads, iodepth or bs",
			       cfg->threads, cfg->iodepth, b[0], b[1], b[2],
			       b[3], b[4], b[5], b[6], b[7], limit_name);
	}
	if (e->locked && !getrlimit(RLIMIT_MEMLOCK, &rl) &&
	    rl.rlim_cur != RLIM_INFINITY && e->locked > rl.rlim_cur &&
	    !have_ipc_lock()) {
		bb_fmt_bytes(b[3], sizeof(b[3]), e->locked);
		bb_fmt_bytes(b[4], sizeof(b[4]), rl.rlim_cur);
		return bb_errf(err, errlen, -ENOMEM,
			       "memory: --fixedbufs registers threads %u x "
			       "iodepth %u x bs %s = %s of buffers, above "
			       "RLIMIT_MEMLOCK %s (no CAP_IPC_LOCK): raise it "
			       "(ulimit -l, LimitMEMLOCK=), use --fixedbufs=0, "
			       "or lower threads, iodepth or bs",
			       cfg->threads, cfg->iodepth, b[0], b[3], b[4]);
	}
	return 0;
}

/* A number from a /proc or cgroup file ("max" and errors: UINT64_MAX). */
static uint64_t read_u64(const char *path)
{
	char buf[64], *end;
	unsigned long long v;

	if (bb_read_text(path, buf, sizeof(buf)) || !buf[0])
		return UINT64_MAX;
	v = strtoull(buf, &end, 10);
	return end == buf ? UINT64_MAX : (uint64_t)v;
}

/* This process's memory cgroup: its limit and usage (v2 memory.max and
 * memory.current, v1 memory.limit_in_bytes and memory.usage_in_bytes);
 * UINT64_MAX when unlimited or unknown. */
static void cgroup_memory(uint64_t *limit, uint64_t *usage)
{
	char line[512], path[PATH_MAX];
	FILE *f = fopen("/proc/self/cgroup", "re");

	*limit = *usage = UINT64_MAX;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':'), *q = p ? strchr(p + 1, ':') : NULL;
		uint64_t lim, use;

		if (!q)
			continue;
		q[strcspn(q, "\n")] = '\0';
		if (!strncmp(line, "0::", 3)) {
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup%s/memory.max", q + 1);
			lim = read_u64(path);
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup%s/memory.current", q + 1);
			use = read_u64(path);
		} else if (!strncmp(p, ":memory:", 8)) {
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup/memory%s/memory.limit_in_bytes",
				 q + 1);
			lim = read_u64(path);
			snprintf(path, sizeof(path),
				 "/sys/fs/cgroup/memory%s/memory.usage_in_bytes",
				 q + 1);
			use = read_u64(path);
		} else {
			continue;
		}
		if (lim < *limit) {
			*limit = lim;
			*usage = use;
		}
	}
	fclose(f);
}

/* A "Key: N kB" line of /proc/meminfo in bytes, UINT64_MAX if absent. */
static uint64_t meminfo(const char *key)
{
	char line[256], fmt[64];
	unsigned long long kb;
	uint64_t v = UINT64_MAX;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return v;
	snprintf(fmt, sizeof(fmt), "%s: %%llu kB", key);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			v = (uint64_t)kb << 10;
	fclose(f);
	return v;
}

uint64_t bb_host_memory_budget(void)
{
	uint64_t avail = meminfo("MemAvailable"), lim, use;

	cgroup_memory(&lim, &use);
	if (lim != UINT64_MAX && use != UINT64_MAX)
		avail = bb_min(avail, lim > use ? lim - use : 0);
	return avail == UINT64_MAX ? 0 : avail / 2;
}

uint64_t bb_host_memory_total(void)
{
	uint64_t total = meminfo("MemTotal"), lim, use;

	cgroup_memory(&lim, &use);
	total = bb_min(total, lim);
	return total == UINT64_MAX ? 0 : total;
}

unsigned bb_host_numa_nodes(void)
{
	char buf[512];
	int nodes[BB_MAX_THREADS];
	unsigned n = 0;

	if (bb_read_text("/sys/devices/system/node/online", buf, sizeof(buf)) ||
	    bb_parse_cpulist(buf, nodes, BB_MAX_THREADS, &n) || !n)
		return 1;
	return n;
}

const char *bb_model_name(enum bb_model v)
{
	return (unsigned)v < BB_MODEL__COUNT ? model_names[v] : "?";
}

const char *bb_nop_kind_name(enum bb_nop_kind v)
{
	return (unsigned)v < BB_NOP__COUNT ? nop_kind_names[v] : "?";
}

/* Bytes the list uses, its final empty string excluded. */
static size_t targets_len(const struct bb_config *cfg)
{
	size_t used = 0;

	for (unsigned i = 0; i < cfg->ntargets && used < sizeof(cfg->target);
	     i++)
		used += strnlen(cfg->target + used,
				sizeof(cfg->target) - used) + 1;
	return used;
}

int bb_config_set_target(struct bb_config *cfg, const char *path)
{
	size_t n = strlen(path);

	if (!n)
		return -EINVAL;
	if (n + 2 > sizeof(cfg->target))
		return -E2BIG;
	/* all of it: two configs with the same targets compare equal */
	memset(cfg->target, 0, sizeof(cfg->target));
	memcpy(cfg->target, path, n + 1);
	cfg->ntargets = 1;
	return 0;
}

int bb_config_add_target(struct bb_config *cfg, const char *path)
{
	size_t used = targets_len(cfg), n = strlen(path);

	if (!n)
		return -EINVAL;
	if (cfg->ntargets >= BB_MAX_TARGETS ||
	    used + n + 2 > sizeof(cfg->target))
		return -E2BIG;
	memcpy(cfg->target + used, path, n + 1);
	cfg->target[used + n + 1] = '\0';
	cfg->ntargets++;
	return 0;
}

const char *bb_targets_next(const char *list, size_t len, unsigned n,
			    const char *p)
{
	const char *end = list + len;
	unsigned i = 0;

	for (const char *q = list; q < end && *q; i++) {
		const char *next = q + strnlen(q, (size_t)(end - q)) + 1;

		if (q == p)
			return i + 1 < n && next < end && *next ? next : NULL;
		q = next;
	}
	return NULL;
}

const char *bb_config_next_target(const struct bb_config *cfg, const char *p)
{
	return bb_targets_next(cfg->target, sizeof(cfg->target), cfg->ntargets,
			       p);
}

unsigned bb_spread_targets(unsigned nfiles, unsigned nthreads,
			   unsigned thread,
			   unsigned files[BB_MAX_TARGETS_PER_THREAD])
{
	unsigned per = nfiles ? nthreads / nfiles : 0, rem = 0, j = 0, n = 0;

	if (!per)
		per = 1;
	else
		rem = nthreads - per * nfiles;
	for (unsigned i = 0; i < nfiles; i++) {
		unsigned limit = per + (rem > 0 ? 1 : 0);

		for (unsigned k = 0; k < limit; k++) {
			if ((j + k) % nthreads != thread)
				continue;
			if (n < BB_MAX_TARGETS_PER_THREAD)
				files[n++] = i;
		}
		if (rem)
			rem--;
		j += limit;
	}
	return n;
}
