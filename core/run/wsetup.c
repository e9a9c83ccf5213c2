// SPDX-License-Identifier: GPL-2.0-only
/* wsetup.c - a submitter thread's setup and teardown, everything that does
 * not depend on the struct bio layout (see wbase.h): files and regions,
 * ring, registered files and buffers, slots, SQE templates, accounting. */
#include "run/tsan.h"
#include "run/wbase.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

/* TSan's order between one ring's unmapping and the next ring's mapping */
static char ring_map_order __attribute__((unused));

void bb_wbase_fatal(struct bb_wbase *b, int err, const char *fmt, ...)
{
	va_list ap;
	int expected = 0;

	if (!atomic_compare_exchange_strong(&b->fatal, &expected,
					    err ? err : -EIO))
		return;
	va_start(ap, fmt);
	vsnprintf(b->fatal_msg, sizeof(b->fatal_msg), fmt, ap);
	va_end(ap);
}

void bb_wbase_cqe_error(struct bb_wbase *b, int res, uint32_t len,
			uint64_t sector)
{
	const char *path = b->files[0].t->path;

	if (res == -EOPNOTSUPP && b->cfg->mode == BB_MODE_POLL)
		bb_wbase_fatal(b, -EOPNOTSUPP,
			       "--mode poll: %s returned EOPNOTSUPP for a "
			       "polled I/O: the device cannot poll (for NVMe "
			       "load the driver with nvme.poll_queues=N); "
			       "stopping",
			       path);
	else if (res > 0 && b->nvme)
		bb_wbase_fatal(b, -EIO,
			       "%s: NVMe command failed with status 0x%x "
			       "(sector %llu, %u bytes)",
			       path, (unsigned)res, (unsigned long long)sector,
			       len);
	else if (res >= 0)
		bb_wbase_fatal(b, -EIO,
			       "%s: short I/O at offset %llu: %d of %u bytes",
			       path, (unsigned long long)sector << BB_SECTOR_SHIFT,
			       res, len);
	else
		bb_wbase_fatal(b, res, "I/O error at offset %llu: %s",
			       (unsigned long long)sector << BB_SECTOR_SHIFT,
			       strerror(-res));
}

/* --- accounting ---------------------------------------------------------- */

void bb_wside_lat_new(struct bb_wside *sd, uint64_t stamp)
{
	bb_wside_lat_flush(sd);
	sd->lat_last = stamp;
}

void bb_wside_start(struct bb_wside *sd)
{
	memset(&sd->io, 0, sizeof(sd->io));
	if (sd->lat_hist)
		bb_hist_init(sd->lat_hist);
	sd->lat = sd->lat_hist;
	sd->lat_run = 0;
	sd->lat_last = 0;
	sd->frozen = false;
	sd->measuring = true;
}

void bb_wside_freeze(struct bb_wside *sd)
{
	sd->measuring = false;
	if (sd->frozen)
		return;
	if (sd->lat)
		bb_wside_lat_flush(sd);
	sd->io_at_stop = sd->io;
	sd->lat = NULL;
	sd->frozen = true;
}

void bb_wside_report(const struct bb_wside *sd, struct bb_io_totals *out)
{
	*out = sd->io;
	if (!sd->frozen)
		return;
	out->ios = sd->io_at_stop.ios;
	out->reads = sd->io_at_stop.reads;
	out->writes = sd->io_at_stop.writes;
	out->bytes_read = sd->io_at_stop.bytes_read;
	out->bytes_written = sd->io_at_stop.bytes_written;
}

/* --- inject_ns ------------------------------------------------------------ */

/* Spin iterations per ns: the fastest of several timings, so that a
 * timing taken while the thread was preempted (a loaded host) does not
 * make the delay short (delays below BB_SPIN_CLOCK_NS only). */
static double calibrate_iters_per_ns(void)
{
	const uint64_t iters = 1u << 18;
	uint64_t best = UINT64_MAX;

	bb_spin_iters(iters / 4); /* warm up */
	for (int k = 0; k < 7; k++) {
		uint64_t t0 = bb_now_ns(), t1;

		bb_spin_iters(iters);
		t1 = bb_now_ns();
		if (t1 > t0 && t1 - t0 < best)
			best = t1 - t0;
	}
	return best == UINT64_MAX ? 1.0 : (double)iters / (double)best;
}

/* Spin iterations per ns, timed once per process (by the first run that
 * needs it) and kept: every later run, every variant of a job, spins the
 * same loop count for the same ns, so that a calibration timed while the
 * host's other hyperthread was busier or quieter cannot pass for a
 * difference between runs (work, not time: the calibrated kernel cost
 * stands for the kernel's code, which slows down the same way). */
static pthread_once_t ipns_once = PTHREAD_ONCE_INIT;
static double ipns_value;

static void ipns_init(void)
{
	ipns_value = calibrate_iters_per_ns();
}

/* The loop count of ns of busy work (0 for 0 ns, at least 1 otherwise). */
static uint64_t spin_iters_of(uint64_t ns)
{
	uint64_t iters;

	if (!ns)
		return 0;
	pthread_once(&ipns_once, ipns_init);
	iters = (uint64_t)((double)ns * ipns_value + 0.5);
	return iters ? iters : 1;
}

/* A busy time of ns: below BB_SPIN_CLOCK_NS a loop count, else the
 * clock's (iters 0). */
static void spin_setup(struct bb_spin *sp, uint64_t ns)
{
	sp->ns = ns;
	sp->iters = ns < BB_SPIN_CLOCK_NS ? spin_iters_of(ns) : 0;
}

/* The calibrated kernel cost of the run as loop counts (work, not time:
 * like the kernel's own path, it runs slower while the host's other
 * hyperthread is busy); the per-request part only where the kernel's
 * block layer does not run under the I/O (bb_config_kcost_requests). */
static void kcost_setup(struct bb_kcost_iters *kc, const struct bb_config *cfg)
{
	const struct bb_kcost *c = &cfg->kcost;

	memset(kc, 0, sizeof(*kc));
	if (!bb_config_kcost(cfg))
		return;
	kc->slab_alloc = spin_iters_of(c->slab_alloc_ns);
	kc->slab_free = spin_iters_of(c->slab_free_ns);
	kc->mempool = spin_iters_of(c->mempool_ns);
	if (!bb_config_kcost_requests(cfg))
		return;
	kc->request = spin_iters_of(c->request_ns);
	kc->completion = spin_iters_of(c->completion_ns);
}

/* --- setup ----------------------------------------------------------------- */

static int setup_ring(struct bb_wbase *b, unsigned pieces)
{
	const struct bb_config *cfg = b->cfg;
	struct io_uring_params p;
	unsigned entries, cq;
	unsigned want[] = { IORING_SETUP_COOP_TASKRUN,
			    IORING_SETUP_SINGLE_ISSUER,
			    IORING_SETUP_DEFER_TASKRUN };
	unsigned extra = 0;
	int ret = -EINVAL;

	/* the sizes bb_config_memory_estimate() counts */
	bb_worker_ring_sizes(cfg->iodepth, pieces, &entries, &cq);

	if (cfg->completion != BB_COMPLETION_THREAD) {
		extra = IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER;
		if (cfg->mode != BB_MODE_SQPOLL)
			extra |= IORING_SETUP_DEFER_TASKRUN;
	}
	for (int drop = -1; drop < 3; drop++) {
		if (drop >= 0) {
			if (!(extra & want[2 - drop]))
				continue;
			extra &= ~want[2 - drop];
			if (want[2 - drop] == IORING_SETUP_SINGLE_ISSUER)
				extra &= ~IORING_SETUP_DEFER_TASKRUN;
		}
		memset(&p, 0, sizeof(p));
		p.flags = IORING_SETUP_CQSIZE | extra;
		if (b->nvme)
			p.flags |= IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
		p.cq_entries = cq;
		if (cfg->mode == BB_MODE_POLL)
			p.flags |= IORING_SETUP_IOPOLL;
		if (cfg->restrict_ring)
			p.flags |= IORING_SETUP_R_DISABLED;
		if (cfg->mode == BB_MODE_SQPOLL) {
			p.flags |= IORING_SETUP_SQPOLL;
			p.sq_thread_idle = 1000;
			if (cfg->sqpoll_cpu >= 0) {
				p.flags |= IORING_SETUP_SQ_AFF;
				p.sq_thread_cpu = (unsigned)cfg->sqpoll_cpu;
			}
		}
		ret = io_uring_queue_init_params(entries, &b->ring, &p);
		if (ret != -EINVAL)
			break;
	}
	if (ret) {
		b->ring.ring_fd = -1;
		bb_wbase_fatal(b, ret, "io_uring_queue_init (%s mode%s): %s",
			       bb_mode_name(cfg->mode),
			       b->nvme ? ", SQE128|CQE32 for uring_cmd" : "",
			       strerror(-ret));
		return ret;
	}
	/* the kernel may map this ring where another thread's ring was
	 * unmapped a moment ago; TSan, blind to liburing's raw mmap and
	 * munmap, would call the two rings' writes a race */
	bb_tsan_acquire(&ring_map_order);
	b->a->res.ring_flags = p.flags;
	b->a->res.sq_entries = b->ring.sq.ring_entries;
	b->a->res.cq_entries = b->ring.cq.ring_entries;
	b->enter_fd = b->ring.ring_fd;
	b->enter_flags = cfg->mode == BB_MODE_POLL ? IORING_ENTER_GETEVENTS : 0;
	b->enter_direct = cfg->mode != BB_MODE_SQPOLL;
	/* optional, like -X1: liburing keeps the index in enter_ring_fd */
	if (cfg->register_ring && cfg->completion != BB_COMPLETION_THREAD &&
	    cfg->mode != BB_MODE_SQPOLL &&
	    io_uring_register_ring_fd(&b->ring) == 1) {
		b->enter_fd = b->ring.enter_ring_fd;
		b->enter_flags |= IORING_ENTER_REGISTERED_RING;
	}
	return 0;
}

/* restrict_ring: the ring was set up disabled; allow the opcodes this run
 * issues (NOP for the nop target, the completion thread's sentinel and
 * the NOP probe) and IOSQE_FIXED_FILE, and the unregistrations of the
 * teardown, then enable it.  From now on the kernel checks every SQE
 * against the set, as t/io_uring -e1. */
static int restrict_ring(struct bb_wbase *b)
{
	const struct bb_config *cfg = b->cfg;
	struct io_uring_restriction res[16];
	static const uint8_t reads[] = { IORING_OP_READ, IORING_OP_READV,
					 IORING_OP_READ_FIXED };
	static const uint8_t writes[] = { IORING_OP_WRITE, IORING_OP_WRITEV,
					  IORING_OP_WRITE_FIXED };
	static const uint8_t regs[] = { IORING_UNREGISTER_FILES,
					IORING_UNREGISTER_BUFFERS,
					IORING_UNREGISTER_RING_FDS };
	unsigned n = 0;
	int ret;

	memset(res, 0, sizeof(res));
	res[n].opcode = IORING_RESTRICTION_SQE_OP;
	res[n++].sqe_op = IORING_OP_NOP;
	for (unsigned i = 0; i < bb_array_size(reads); i++) {
		res[n].opcode = IORING_RESTRICTION_SQE_OP;
		res[n++].sqe_op = reads[i];
	}
	for (unsigned i = 0; bb_rw_writes(cfg->rw) && i < bb_array_size(writes);
	     i++) {
		res[n].opcode = IORING_RESTRICTION_SQE_OP;
		res[n++].sqe_op = writes[i];
	}
	if (b->nvme) {
		res[n].opcode = IORING_RESTRICTION_SQE_OP;
		res[n++].sqe_op = IORING_OP_URING_CMD;
	}
	res[n].opcode = IORING_RESTRICTION_SQE_FLAGS_ALLOWED;
	res[n++].sqe_flags = IOSQE_FIXED_FILE;
	for (unsigned i = 0; i < bb_array_size(regs); i++) {
		res[n].opcode = IORING_RESTRICTION_REGISTER_OP;
		res[n++].register_op = regs[i];
	}
	/* Debian's liburing 2.3 declares io_uring_register_restrictions()
	 * and io_uring_enable_rings() but does not export them: the
	 * register call itself */
	ret = io_uring_register(b->ring.ring_fd, IORING_REGISTER_RESTRICTIONS,
				res, n);
	if (ret) {
		bb_wbase_fatal(b, ret, "--restrict-ring: registering the "
			       "restrictions: %s", strerror(-ret));
		return ret;
	}
	ret = io_uring_register(b->ring.ring_fd, IORING_REGISTER_ENABLE_RINGS,
				NULL, 0);
	if (ret) {
		bb_wbase_fatal(b, ret, "--restrict-ring: enabling the ring: %s",
			       strerror(-ret));
		return ret;
	}
	return 0;
}

/* The worker's part of each file's region, and the verify state. */
static int setup_files(struct bb_wbase *b)
{
	const struct bb_config *cfg = b->cfg;

	b->nfiles = b->a->nfiles;
	for (unsigned i = 0; i < b->nfiles; i++) {
		const struct bb_worker_file *af = &b->a->files[i];
		struct bb_wfile *f = &b->files[i];
		uint64_t nblocks = af->t->region_len / cfg->bs, first;

		f->t = af->t;
		f->lba_shift = af->t->lba_shift;
		first = nblocks * af->slice / af->nslices;
		f->blk_count = nblocks * (af->slice + 1) / af->nslices - first;
		f->base = af->t->region_off + first * cfg->bs;
		if (!f->blk_count) {
			bb_wbase_fatal(b, -EINVAL,
				       "%s: the region holds %llu blocks of %u "
				       "bytes, fewer than one per thread",
				       af->t->path,
				       (unsigned long long)nblocks, cfg->bs);
			return -EINVAL;
		}
		if (b->verify) {
			f->gens = calloc(f->blk_count, sizeof(*f->gens));
			f->busy = calloc(f->blk_count, 1);
			if (!f->gens || !f->busy) {
				bb_wbase_fatal(b, -ENOMEM,
					       "out of memory for verify state");
				return -ENOMEM;
			}
		}
	}
	b->file_depth = (b->depth + b->nfiles - 1) / b->nfiles;
	return 0;
}

static int register_files(struct bb_wbase *b)
{
	int fds[BB_MAX_TARGETS_PER_THREAD];
	int ret;

	for (unsigned i = 0; i < b->nfiles; i++)
		fds[i] = b->files[i].t->fd;
	ret = io_uring_register_files(&b->ring, fds, b->nfiles);
	if (ret) {
		bb_wbase_fatal(b, ret, "registering the file%s: %s",
			       b->nfiles > 1 ? "s" : "", strerror(-ret));
		return ret;
	}
	b->files_registered = true;
	return 0;
}

/* The slots and their buffers; registered as t/io_uring does when the
 * SQEs use registered buffers. */
static int setup_buffers(struct bb_wbase *b, bool reg)
{
	const struct bb_config *cfg = b->cfg;
	int ret;

	b->slot_stride = ((size_t)cfg->bs + BB_PAGE_SIZE - 1) &
			 ~((size_t)BB_PAGE_SIZE - 1);
	b->bufs_len = b->slot_stride * b->depth;
	b->bufs = mmap(NULL, b->bufs_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (b->bufs == MAP_FAILED) {
		b->bufs = NULL;
		bb_wbase_fatal(b, -ENOMEM, "cannot map %zu bytes of I/O buffers",
			       b->bufs_len);
		return -ENOMEM;
	}
	memset(b->bufs, 0xa5, b->bufs_len);
	b->slots = aligned_alloc(BB_CACHELINE,
				 (size_t)b->depth * sizeof(*b->slots));
	b->free = calloc(b->depth, sizeof(*b->free));
	if (!b->slots || !b->free) {
		bb_wbase_fatal(b, -ENOMEM, "out of memory for %u slots",
			       b->depth);
		return -ENOMEM;
	}
	memset(b->slots, 0, (size_t)b->depth * sizeof(*b->slots));
	for (unsigned i = 0; i < b->depth; i++) {
		struct bb_wslot *s = &b->slots[i];

		s->buf = b->bufs + (size_t)i * b->slot_stride;
		s->idx = i;
		b->free[i] = &b->slots[b->depth - 1 - i];
	}
	b->nfree = b->depth;
	if (cfg->vectored) {
		b->iovs = calloc(b->depth, sizeof(*b->iovs));
		if (!b->iovs) {
			bb_wbase_fatal(b, -ENOMEM, "out of memory for %u iovecs",
				       b->depth);
			return -ENOMEM;
		}
		for (unsigned i = 0; i < b->depth; i++) {
			b->iovs[i].iov_base = b->slots[i].buf;
			b->iovs[i].iov_len = cfg->bs;
		}
	}
	if (!reg)
		return 0;
	if (b->nvme) {
		/* passthrough: one registered buffer per slot (buf_index =
		 * slot), as fio's io_uring_cmd engine.  A single large one
		 * fails on kernels whose blk_rq_map_user_bvec() counts the
		 * segments up to the end of the registered buffer against
		 * max_segments (6.1: EINVAL for any I/O more than
		 * max_segments pages before the end). */
		struct iovec *iov;

		if (b->depth > 16384) {
			bb_wbase_fatal(b, -EINVAL,
				       "--engine uring_cmd --fixedbufs registers "
				       "one buffer per I/O slot: --iodepth %u is "
				       "above the kernel's 16384 buffers (use "
				       "--fixedbufs=0)",
				       b->depth);
			return -EINVAL;
		}
		iov = calloc(b->depth, sizeof(*iov));
		if (!iov) {
			bb_wbase_fatal(b, -ENOMEM, "out of memory");
			return -ENOMEM;
		}
		for (unsigned i = 0; i < b->depth; i++) {
			iov[i].iov_base = b->slots[i].buf;
			iov[i].iov_len = cfg->bs;
		}
		ret = io_uring_register_buffers(&b->ring, iov, b->depth);
		free(iov);
		if (ret) {
			bb_wbase_fatal(b, ret,
				       "registering %u fixed buffers of %u bytes: "
				       "%s (raise RLIMIT_MEMLOCK or use "
				       "--fixedbufs=0)",
				       b->depth, cfg->bs, strerror(-ret));
			return ret;
		}
	} else {
		struct iovec iov = { .iov_base = b->bufs,
				     .iov_len = b->bufs_len };

		ret = io_uring_register_buffers(&b->ring, &iov, 1);
		if (ret) {
			bb_wbase_fatal(b, ret,
				       "registering %zu bytes of fixed buffers: "
				       "%s (raise RLIMIT_MEMLOCK or use "
				       "--fixedbufs 0)",
				       b->bufs_len, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* --nop-kind file: one NOP with the flags, waited for, so that a kernel
 * without them is refused with a clear message before the run. */
static int probe_nop_file(struct bb_wbase *b)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&b->ring);
	struct io_uring_cqe *cqe;
	struct utsname u;
	int ret, res;

	if (!sqe)
		return 0;
	bb_sqe_prep_rw(sqe, &b->files[0].tmpl[0], b->bufs, b->bs, 0, 0);
	ret = io_uring_submit_and_wait(&b->ring, 1);
	if (ret >= 0)
		ret = io_uring_peek_cqe(&b->ring, &cqe);
	if (ret < 0) {
		bb_wbase_fatal(b, ret, "--nop-kind file: probing a NOP: %s",
			       strerror(-ret));
		return ret;
	}
	res = cqe->res;
	io_uring_cqe_seen(&b->ring, cqe);
	if (res == (int)b->bs)
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	if (res == -EINVAL)
		bb_wbase_fatal(b, -EOPNOTSUPP,
			       "--nop-kind file: this kernel (%s) rejects "
			       "IORING_OP_NOP with IORING_NOP_FILE, "
			       "FIXED_FILE, FIXED_BUFFER and INJECT_RESULT "
			       "(EINVAL; they came with Linux 6.13): use "
			       "--nop-kind plain",
			       u.release);
	else
		bb_wbase_fatal(b, res < 0 ? res : -EIO,
			       "--nop-kind file: a NOP returned %d instead of "
			       "%u (%s)",
			       res, b->bs, res < 0 ? strerror(-res) : "?");
	return b->fatal;
}

int bb_wbase_init(struct bb_wbase *b, struct bb_worker_args *a,
		  unsigned pieces)
{
	const struct bb_config *cfg = a->cfg;
	enum bb_sqe_kind kind = a->files[0].t->ops->sqe;
	bool uses_file, uses_buf;
	int ret;

	b->cfg = cfg;
	b->a = a;
	b->ring.ring_fd = -1;
	a->res.tid = (int)syscall(SYS_gettid);
	b->depth = cfg->iodepth;
	b->bs = cfg->bs;
	b->nvme = kind == BB_SQE_NVME_CMD;
	b->fixed = cfg->fixedbufs;
	b->verify = cfg->verify;
	b->random = bb_rw_random(cfg->rw);
	b->rwmix = cfg->rw == BB_RW_RANDRW ? cfg->rwmixread :
		   bb_rw_writes(cfg->rw) ? 0 : 100;
	b->write_const = b->rwmix == 0;
	b->limit = cfg->number_ios;
	b->offsets = kind != BB_SQE_NOP || cfg->model == BB_MODEL_BIO;
	/* what a whole I/O returns: read/write and the NOP file kind the
	 * bytes, plain NOPs and NVMe commands 0 */
	b->res_mask = kind == BB_SQE_RW ||
				      (kind == BB_SQE_NOP &&
				       cfg->nop_kind == BB_NOP_FILE) ?
			      ~0u : 0;
	b->res_want = cfg->bs & b->res_mask;
	bb_rng_seed(&b->rng, cfg->seed * 0x9E3779B97F4A7C15ull + a->index + 1);
	spin_setup(&b->inject, cfg->inject_ns);
	spin_setup(&b->device, cfg->device_ns);
	kcost_setup(&b->kc, cfg);

	ret = setup_files(b);
	if (ret)
		return ret;
	ret = setup_ring(b, pieces);
	if (ret)
		return ret;
	uses_file = kind != BB_SQE_NOP || cfg->nop_kind == BB_NOP_FILE;
	uses_buf = uses_file && cfg->fixedbufs;
	if (uses_file && (cfg->registerfiles || cfg->mode == BB_MODE_SQPOLL)) {
		ret = register_files(b);
		if (ret)
			return ret;
	}
	ret = setup_buffers(b, uses_buf);
	if (ret)
		return ret;
	if (cfg->restrict_ring) {
		ret = restrict_ring(b);
		if (ret)
			return ret;
	}
	for (unsigned i = 0; i < b->nfiles; i++) {
		for (unsigned d = 0; d < 2; d++) {
			struct bb_sqe_params p = {
				.kind = kind,
				.nop = cfg->nop_kind,
				.write = d == 1,
				.fd = b->files_registered ? (int)i :
							    b->files[i].t->fd,
				.fixed_file = b->files_registered,
				.fixed_buf = uses_buf,
				.vectored = cfg->vectored,
				.len = cfg->bs,
				.nsid = b->files[i].t->nvme.nsid,
			};

			bb_sqe_tmpl_init(&b->files[i].tmpl[d], &p);
		}
	}
	if (kind == BB_SQE_NOP && cfg->nop_kind == BB_NOP_FILE) {
		ret = probe_nop_file(b);
		if (ret)
			return ret;
	}

	if (cfg->lat != BB_LAT_OFF) {
		b->sub.lat_hist = &a->res.lat;
		bb_hist_init(b->sub.lat_hist);
		b->sub.lat = b->sub.lat_hist;
		if (cfg->completion == BB_COMPLETION_THREAD) {
			b->comp.lat_hist = calloc(1, sizeof(*b->comp.lat_hist));
			if (!b->comp.lat_hist) {
				bb_wbase_fatal(b, -ENOMEM, "out of memory");
				return -ENOMEM;
			}
			bb_hist_init(b->comp.lat_hist);
			b->comp.lat = b->comp.lat_hist;
		}
	}
	b->sub.live = &a->live[0];
	b->comp.live = &a->live[1];
	return 0;
}

void bb_wbase_exit(struct bb_wbase *b)
{
	if (b->ring.ring_fd >= 0) {
		/* drop the registered files now: the ring itself is torn down
		 * asynchronously by the kernel, and until then it would keep
		 * an O_EXCL device open for the next run */
		if (b->files_registered)
			io_uring_unregister_files(&b->ring);
		bb_tsan_release(&ring_map_order);
		io_uring_queue_exit(&b->ring);
		b->ring.ring_fd = -1;
	}
	if (b->bufs)
		munmap(b->bufs, b->bufs_len);
	b->bufs = NULL;
	free(b->slots);
	free(b->free);
	free(b->iovs);
	b->iovs = NULL;
	for (unsigned i = 0; i < b->nfiles; i++) {
		free(b->files[i].gens);
		free(b->files[i].busy);
	}
	free(b->comp.lat_hist);
	b->slots = NULL;
	b->free = NULL;
	b->comp.lat_hist = NULL;
}
