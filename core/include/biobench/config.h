/* SPDX-License-Identifier: GPL-2.0-only */
/* config.h - everything a run is told: target, workload, engine and model
 * knobs (layout-independent).  Filled by the option table (options.h) from
 * the command line or from a job's JSON; read by the engine. */
#ifndef BB_CONFIG_H
#define BB_CONFIG_H

#include <biobench/common.h>
#include <biobench/queue_limits.h>

#include <limits.h>

#define BB_MAX_THREADS 64
#define BB_MAX_TARGETS 64          /* targets (files) of one run */
#define BB_MAX_TARGETS_PER_THREAD 16 /* t/io_uring's MAX_FDS */

enum bb_rw {
	BB_RW_READ = 0,
	BB_RW_WRITE,
	BB_RW_RANDREAD,
	BB_RW_RANDWRITE,
	BB_RW_RANDRW,
	BB_RW__COUNT
};

enum bb_mode {
	BB_MODE_IRQ = 0, /* plain ring, completions reaped after waiting */
	BB_MODE_POLL,    /* IORING_SETUP_IOPOLL, O_DIRECT, needs poll queues */
	BB_MODE_SQPOLL,  /* IORING_SETUP_SQPOLL */
	BB_MODE__COUNT
};

/* How I/O reaches the device. */
enum bb_engine {
	BB_ENGINE_IO_URING = 0, /* IORING_OP_READ/WRITE(_FIXED) on nop, a file
				   or a block device */
	BB_ENGINE_URING_CMD,    /* NVMe passthrough: IORING_OP_URING_CMD with
				   SQE128|CQE32 on /dev/ngXnY */
	BB_ENGINE__COUNT
};

/* Who reaps the completions and in which context the bio puts run (the
 * kernel's in_task() / in_hardirq() at bio_put). */
enum bb_completion {
	BB_COMPLETION_INLINE = 0, /* the submitter reaps, puts in task context
				     (polled I/O: the kernel's iopoll) */
	BB_COMPLETION_THREAD,     /* a completion thread on another CPU reaps
				     and puts in hard-irq context: the
				     cross-CPU worst case (allocated on one
				     CPU, freed on another) */
	BB_COMPLETION_IRQ,        /* the submitter reaps, its puts take the
				     hard-irq path and list: a completion
				     interrupt on the submitting CPU */
	BB_COMPLETION_AUTO,       /* as the kernel's: irq for --mode irq and
				     sqpoll, inline for --mode poll */
	BB_COMPLETION__COUNT
};

/* Whether the I/O goes through the userspace bio model. */
enum bb_model {
	BB_MODEL_BIO = 0, /* alloc, split, end_io and put of a struct bio per
			     I/O, as the kernel's block layer does */
	BB_MODEL_NONE,    /* one SQE per I/O straight from its slot, as
			     t/io_uring: the model knobs do not apply */
	BB_MODEL__COUNT
};

/* The NOPs of the nop target. */
enum bb_nop_kind {
	BB_NOP_PLAIN = 0, /* IORING_OP_NOP, no flags (t/io_uring -N1 of fio
			     3.33): no file, no buffer, res 0 */
	BB_NOP_FILE,      /* IORING_NOP_FILE (| FIXED_FILE with
			     registerfiles) | FIXED_BUFFER (with fixedbufs) |
			     INJECT_RESULT, len = bs: current fio's t/io_uring
			     -N1; the kernel looks the file and the buffer up,
			     res = bs */
	BB_NOP__COUNT
};

enum bb_lat_mode {
	BB_LAT_OFF = 0,
	BB_LAT_IO,    /* per I/O: submit stamp to completion */
	BB_LAT_BATCH, /* per submit batch, like t/io_uring -t1 */
	BB_LAT__COUNT
};

/* Which synthetic queue limits the user set (bit per option), so that a
 * block device's sysfs limits can be overridden field by field. */
enum {
	BB_LIM_MAX_SECTORS_KB = 1u << 0,
	BB_LIM_MAX_SEGMENTS = 1u << 1,
	BB_LIM_MAX_SEGMENT_SIZE = 1u << 2,
	BB_LIM_SEG_BOUNDARY = 1u << 3,
	BB_LIM_VIRT_BOUNDARY = 1u << 4,
	BB_LIM_CHUNK_SECTORS = 1u << 5,
	BB_LIM_LBS = 1u << 6,
};

/* The calibrated kernel cost: what the kernel spends on an I/O that the
 * bio model does not execute, in ns, applied as busy work of a loop count
 * calibrated at setup (the spin of --device-ns) where the kernel spends it
 * (docs/measurement.md section 7 says where each default comes from and
 * how to re-measure it).  With --model bio and kernel_cost on only. */
struct bb_kcost {
	uint64_t slab_alloc_ns; /* per slab object allocated (bio, clone, bvec
				   array): SLUB's kmem_cache_alloc fast path,
				   its slow path's share, mempool_alloc */
	uint64_t slab_free_ns;  /* per slab object freed: kmem_cache_free,
				   mempool_free */
	uint64_t mempool_ns;    /* per take from / refill of the reserve:
				   the mempool's lock and element move */
	uint64_t request_ns;    /* per request submitted: blk_mq_submit_bio,
				   the request, the driver's queue_rq */
	uint64_t completion_ns; /* per request completed: the interrupt,
				   the driver's completion, blk_mq_end_request,
				   before bio_endio */
};
#define BB_KCOST_SLAB_ALLOC_NS 12u
#define BB_KCOST_SLAB_FREE_NS 9u
#define BB_KCOST_MEMPOOL_NS 25u
#define BB_KCOST_REQUEST_NS 110u
#define BB_KCOST_COMPLETION_NS 80u
#define BB_KCOST_MAX_NS 100000u

struct bb_config {
	/* target: "nop", a regular file, or a block device; or several files
	 * or block devices (t/io_uring's FILE...), stored one after the other,
	 * each NUL-terminated, the list ended by an empty string (so that
	 * `target` as a C string is the first one; see bb_config_targets) */
	char target[PATH_MAX];
	unsigned ntargets;    /* 1, or how many the list holds */
	uint64_t size;        /* bytes: the region (0 = whole device / existing
				 file); a write workload with allow_write
				 creates or extends a file to offset + size */
	uint64_t offset;      /* start of the region, bytes */
	bool direct;          /* O_DIRECT (forced on for poll mode) */
	bool allow_write;     /* needed for writes to a block device and to
				 create or extend a file */
	bool no_symlinks;     /* not an option: the target is already a
				 canonical path (the daemon checked it
				 against its allow-list): it is opened as it
				 is, a symlink anywhere in it refused; false:
				 canonicalized first (symlinks such as
				 /dev/disk/by-id/... resolved once) */
	uint64_t max_memory;  /* bytes a run may allocate for I/O
				 (bb_config_memory_estimate); 0 = half of the
				 memory available (MemAvailable, the cgroup's
				 limit) */

	/* workload */
	enum bb_rw rw;
	unsigned rwmixread;   /* percent reads for randrw, default 50 */
	uint32_t bs;          /* bytes, multiple of 512 */
	unsigned iodepth;     /* per thread */
	uint64_t runtime_ns;  /* 0 = until number_ios */
	uint64_t number_ios;  /* per thread; 0 = until runtime */
	uint64_t ramp_ns;     /* excluded from the results */
	unsigned threads;
	int cpus[BB_MAX_THREADS]; /* submitter i is pinned to cpus[i % ncpus] */
	unsigned ncpus;       /* 0 = not pinned */
	uint64_t seed;
	bool verify;          /* stamp written blocks, read back and check */

	/* engine */
	enum bb_engine engine;
	enum bb_mode mode;
	bool fixedbufs;
	bool registerfiles;
	unsigned submit_batch;   /* max SQEs prepared per loop (t/io_uring -s) */
	unsigned complete_batch; /* min CQEs waited for when full (-c) */
	int sqpoll_cpu;          /* -1 = not pinned */
	enum bb_completion completion;
	int completion_cpu;      /* -1 = the CPU after the submitter's in
				    cpus[] (its own with one CPU; not
				    pinned without cpus) */
	enum bb_lat_mode lat;
	uint64_t inject_ns;      /* busy delay per I/O in the submit path */
	uint64_t device_ns;      /* busy delay per completed request in the
				    completion path: the per-I/O CPU cost of
				    a driver and device (0: none) */
	enum bb_nop_kind nop_kind; /* the NOPs of the nop target */
	bool register_ring;      /* register the ring fd (IORING_REGISTER_RING_FDS,
				    t/io_uring -X1): inline completions only */
	bool restrict_ring;      /* the ring starts disabled and takes only the
				    run's opcodes and SQE flags
				    (IORING_REGISTER_RESTRICTIONS, t/io_uring
				    -e1) */
	bool vectored;           /* reads and writes as READV/WRITEV of one
				    iovec (t/io_uring -V1); needs fixedbufs
				    off and model none */
	bool numa_place;         /* pin each submitter to a CPU of the NUMA
				    node of its (last) file's device
				    (t/io_uring -P1); not with cpus, no effect
				    on a single-node host */

	/* model */
	enum bb_model model;
	enum bb_cache_variant bio_cache;
	enum bb_split_check split_check;
	enum bb_layout bio_layout;
	bool cold_bios;                /* evict each bio from the CPU caches
					  when it is put */
	bool kernel_cost;              /* add the calibrated kernel cost
					  (struct bb_kcost) as busy work */
	struct bb_kcost kcost;
	struct bb_queue_limits limits; /* synthetic or overriding limits */
	unsigned limits_set;           /* BB_LIM_* bits the user gave */

	/* output */
	bool json;
	bool quiet;   /* no live per-second lines */
};


/* The defaults: nop target (plain NOPs), randread, bs 4k, iodepth 128,
 * runtime 5s, 1 thread, io_uring engine, irq mode, fixedbufs and
 * registerfiles on, batches 32/32, registered ring fd, no restrictions,
 * no vectored I/O, no NUMA placement, the bio model with bio_cache all,
 * split_check iter, bio_layout vec_early, the kernel cost on at its
 * BB_KCOST_* defaults, completion auto, latency per batch. */
void bb_config_default(struct bb_config *cfg);

/* The completion a run of cfg uses: cfg->completion, with auto resolved as
 * the kernel's context follows the mode (poll: inline, i.e. task context;
 * irq, sqpoll: irq, i.e. a same-CPU hard-irq completion; --model none:
 * inline, there is no bio to put).  Never BB_COMPLETION_AUTO. */
static inline enum bb_completion bb_config_completion(const struct bb_config *cfg)
{
	if (cfg->completion != BB_COMPLETION_AUTO)
		return cfg->completion;
	return cfg->mode == BB_MODE_POLL || cfg->model == BB_MODEL_NONE
		       ? BB_COMPLETION_INLINE
		       : BB_COMPLETION_IRQ;
}

/* The context the bio puts of a run of cfg run in, for results: "task",
 * "hardirq" (same CPU), "hardirq_cross_cpu" (the completion thread), or
 * "none" (--model none: no bio). */
const char *bb_config_put_context(const struct bb_config *cfg);

/* What the model knobs switch, said wherever a result or an A/B of them
 * is shown (result JSON model_scope, the run summary, ab, compare, show,
 * the dashboard). */
#define BB_MODEL_SCOPE_NOTE                                                   \
	"bio_cache, split_check, bio_layout, the completion context and "     \
	"cold_bios switch biobench's userspace model of the bio path, not "   \
	"the kernel's bio path"

/* Whether a run of cfg switches biobench's userspace model of the bio
 * path (--model bio): its bio_cache, split_check, bio_layout, completion
 * context and cold_bios are the model's, not the kernel's. */
static inline bool bb_config_models_bio(const struct bb_config *cfg)
{
	return cfg->model == BB_MODEL_BIO;
}

/* What a run allocates, counted by bb_config_memory_estimate(): bytes per
 * part, for every thread together. */
struct bb_mem_estimate {
	uint64_t buffers;    /* I/O buffers: threads x iodepth x bs (bs
				rounded up to a page), mapped and populated */
	uint64_t slots;      /* per I/O slot: the slot, its free-stack entry
				and its page vecs */
	uint64_t ring;       /* SQ and CQ rings and the SQE array */
	uint64_t bios;       /* bio slabs and reserves (main and split
				biosets) and the bvec arrays of the class
				the bios use */
	uint64_t verify;     /* generation and busy byte per block */
	uint64_t completion; /* the completion thread's done queue */
	uint64_t threads;    /* worker state, histograms, the engine's per
				thread records, and per thread 1 MiB for
				its stack and malloc arena */
	uint64_t samples;    /* one per second of runtime */
	uint64_t total;      /* the sum */
	uint64_t locked;     /* registered (pinned) buffers: counted against
				RLIMIT_MEMLOCK without CAP_IPC_LOCK */
};

/* The memory a run of cfg allocates (an upper bound: what it maps and may
 * touch), for a region of region_len bytes (0: cfg->size, else 1 GiB for
 * nop, else unknown: no verify state counted) and queue limits lim (NULL:
 * the config's synthetic limits with defaults; the number of split pieces
 * per I/O depends on them).  The parts are those of struct
 * bb_mem_estimate. */
void bb_config_memory_estimate(const struct bb_config *cfg,
			       uint64_t region_len,
			       const struct bb_queue_limits *lim,
			       struct bb_mem_estimate *e);

/* Refuse a run whose estimate is above limit (bytes; limit_name says where
 * it comes from, e.g. "--max-memory 64 MiB", "max_run_memory 2.0 GiB"):
 * -ENOMEM with one line naming the fields and the sum ("threads 64 x
 * iodepth 65536 x bs 1 MiB = 64.0 TiB of I/O buffers, 64.1 TiB in all, is
 * above ..."). */
int bb_config_memory_check(const struct bb_config *cfg,
			   const struct bb_mem_estimate *e, uint64_t limit,
			   const char *limit_name, char *err, size_t errlen);

/* Bytes of memory this process may still use: half of MemAvailable, or
 * of what is left under its cgroup's memory limit when that is lower
 * (the default --max-memory); 0 when unknown. */
uint64_t bb_host_memory_budget(void);

/* The memory of the host, or of this process's cgroup when its limit is
 * lower (MemTotal, memory.max); 0 when unknown. */
uint64_t bb_host_memory_total(void);

/* NUMA nodes online on this host (/sys/devices/system/node/online; 1
 * when unknown). */
unsigned bb_host_numa_nodes(void);

/* The targets of a config: set one (replacing the list), or append one
 * (up to BB_MAX_TARGETS, all within sizeof(cfg->target) bytes).  0 or
 * -EINVAL (empty path) / -E2BIG (too many or too long). */
int bb_config_set_target(struct bb_config *cfg, const char *path);
int bb_config_add_target(struct bb_config *cfg, const char *path);

/* Iterate: the first target is cfg->target; the next after p is
 * bb_config_next_target(cfg, p), NULL after the last. */
const char *bb_config_next_target(const struct bb_config *cfg,
				  const char *p);

/* The same on any list of that form (n paths, NUL-terminated one after
 * the other in list[0..len)): a job's targets. */
const char *bb_targets_next(const char *list, size_t len, unsigned n,
			    const char *p);

/* t/io_uring's spread of nfiles files over nthreads submitter threads:
 * with at least as many threads as files each file gets nthreads/nfiles
 * consecutive threads (the first nthreads%nfiles files one more), else
 * the files go round-robin; a thread keeps at most
 * BB_MAX_TARGETS_PER_THREAD.  Fills files[] with the indexes of the files
 * of thread `thread` and returns how many. */
unsigned bb_spread_targets(unsigned nfiles, unsigned nthreads,
			   unsigned thread,
			   unsigned files[BB_MAX_TARGETS_PER_THREAD]);

/* Whether the workload writes. */
static inline bool bb_rw_writes(enum bb_rw rw)
{
	return rw == BB_RW_WRITE || rw == BB_RW_RANDWRITE ||
	       rw == BB_RW_RANDRW;
}

static inline bool bb_rw_random(enum bb_rw rw)
{
	return rw == BB_RW_RANDREAD || rw == BB_RW_RANDWRITE ||
	       rw == BB_RW_RANDRW;
}

/* The name of the target that sends io_uring NOPs and needs no device. */
#define BB_TARGET_NOP_NAME "nop"

/* Whether a target (a config's, a job's) is the nop target. */
static inline bool bb_target_is_nop(const char *target)
{
	return __builtin_strcmp(target, BB_TARGET_NOP_NAME) == 0;
}

/* Whether a run of cfg adds the calibrated kernel cost: --model bio with
 * kernel_cost on (--model none never: it has no model to calibrate). */
static inline bool bb_config_kcost(const struct bb_config *cfg)
{
	return cfg->model == BB_MODEL_BIO && cfg->kernel_cost;
}

/* Whether its per-request part (request_ns, completion_ns) is added: only
 * where the kernel's block layer does not run under the I/O (the nop
 * target; a file or device read or written through the page cache,
 * direct off).  With O_DIRECT on a file or device the kernel's own block
 * layer, driver and interrupt run for every request and are in the
 * denominator already; the slab part is added in any case (the model's
 * bios are its own). */
static inline bool bb_config_kcost_requests(const struct bb_config *cfg)
{
	return bb_config_kcost(cfg) &&
	       (bb_target_is_nop(cfg->target) || !cfg->direct);
}

/* The kernel cost of a run of cfg in words, for the scope lines of
 * results and A/Bs: "calibrated, not executed: slab 12 ns per object
 * allocated, ...", or what it is when off or not applicable. */
void bb_config_kcost_text(const struct bb_config *cfg, char *buf, size_t len);
#define BB_KCOST_TEXT_LEN 256

const char *bb_rw_name(enum bb_rw v);
const char *bb_mode_name(enum bb_mode v);
const char *bb_engine_name(enum bb_engine v);
const char *bb_completion_name(enum bb_completion v);
const char *bb_lat_mode_name(enum bb_lat_mode v);
const char *bb_model_name(enum bb_model v);
const char *bb_nop_kind_name(enum bb_nop_kind v);

#endif
