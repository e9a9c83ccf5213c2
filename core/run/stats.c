// SPDX-License-Identifier: GPL-2.0-only
/* stats.c - latency histogram, CPU usage, perf counters and the human
 * forms of a run's result. */
#include <biobench/stats.h>

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void bb_hist_init(struct bb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

/* fio's plat_idx_to_val(): indexes below 2 * PLAT_VAL are exact values;
 * above, group g = idx / PLAT_VAL covers [2^(g+PLAT_BITS-1), 2^(g+PLAT_BITS))
 * in PLAT_VAL buckets of 2^(g-1) ns each; return the bucket's midpoint. */
uint64_t bb_hist_bucket_value(unsigned idx)
{
	unsigned error_bits;
	uint64_t base, k;

	if (idx >= BB_HIST_NBUCKETS)
		idx = BB_HIST_NBUCKETS - 1;
	if (idx < (BB_HIST_PLAT_VAL << 1))
		return idx;
	error_bits = (idx >> BB_HIST_PLAT_BITS) - 1;
	base = 1ull << (error_bits + BB_HIST_PLAT_BITS);
	k = idx % BB_HIST_PLAT_VAL;
	/* base + (k + 0.5) * 2^error_bits, in integers */
	return base + (k << error_bits) + (1ull << (error_bits - 1));
}

void bb_hist_merge(struct bb_hist *dst, const struct bb_hist *src)
{
	for (unsigned i = 0; i < BB_HIST_NBUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
	dst->count += src->count;
	dst->sum_ns += src->sum_ns;
	if (src->min_ns < dst->min_ns)
		dst->min_ns = src->min_ns;
	if (src->max_ns > dst->max_ns)
		dst->max_ns = src->max_ns;
}

uint64_t bb_hist_percentile(const struct bb_hist *h, double p)
{
	uint64_t rank, cum = 0, v;
	double x;

	if (!h->count)
		return 0;
	if (p > 100.0)
		p = 100.0;
	x = p / 100.0 * (double)h->count;
	/* p/100*count in floating point may land a hair above an integer
	 * (99.9% of 1000 = 999.0000000000001): do not round that up */
	x = ceil(x - x * 1e-12);
	rank = x < 1.0 ? 1 : (uint64_t)x;
	if (rank > h->count)
		rank = h->count;
	for (unsigned i = 0; i < BB_HIST_NBUCKETS; i++) {
		cum += h->buckets[i];
		if (cum >= rank) {
			v = bb_hist_bucket_value(i);
			if (v < h->min_ns)
				v = h->min_ns;
			if (v > h->max_ns)
				v = h->max_ns;
			return v;
		}
	}
	return h->max_ns; /* buckets and count disagree */
}

void bb_result_free(struct bb_result *r)
{
	free(r->samples);
	r->samples = NULL;
	r->nsamples = 0;
	for (unsigned i = 0; r->threads && i < r->nthreads; i++)
		free(r->threads[i].lat);
	free(r->threads);
	r->threads = NULL;
	r->nthreads = 0;
}

int bb_cpu_usage_thread(struct bb_cpu_usage *u)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -errno;
	u->usr_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000ull +
		    (uint64_t)ru.ru_utime.tv_usec * 1000ull;
	u->sys_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000ull +
		    (uint64_t)ru.ru_stime.tv_usec * 1000ull;
	return 0;
}

/* ------------------------------------------------------------------ */
/* perf */

static int perf_open_one(uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof(a);
	a.config = config;
	a.disabled = 0;
	a.inherit = 0;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0 /* this thread */,
			    -1 /* any cpu */, -1, PERF_FLAG_FD_CLOEXEC);
}

static void perf_reason(char *reason, size_t len, const char *what, int e)
{
	char paranoid[16] = "?";
	const char *hint = "";
	FILE *f;

	switch (e) {
	case ENOENT:
	case ENODEV:
	case EOPNOTSUPP:
		hint = " (no PMU on this host?)";
		break;
	case ENOSYS:
		hint = " (no perf_event_open in this kernel)";
		break;
	case EACCES:
	case EPERM:
		f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
		if (f) {
			if (fscanf(f, "%15s", paranoid) != 1)
				strcpy(paranoid, "?");
			fclose(f);
		}
		break;
	}
	if (e == EACCES || e == EPERM)
		snprintf(reason, len,
			 "perf_event_open(%s): %s (kernel.perf_event_paranoid=%s)",
			 what, strerror(e), paranoid);
	else
		snprintf(reason, len, "perf_event_open(%s): %s%s", what,
			 strerror(e), hint);
}

int bb_perf_open(int *fd_instr, int *fd_cycles, char *reason, size_t len)
{
	int e;

	*fd_instr = *fd_cycles = -1;
	if (reason && len)
		reason[0] = '\0';
	*fd_instr = perf_open_one(PERF_COUNT_HW_INSTRUCTIONS);
	if (*fd_instr < 0) {
		e = errno;
		if (reason && len)
			perf_reason(reason, len, "instructions", e);
		return -e;
	}
	*fd_cycles = perf_open_one(PERF_COUNT_HW_CPU_CYCLES);
	if (*fd_cycles < 0) {
		e = errno;
		if (reason && len)
			perf_reason(reason, len, "cycles", e);
		close(*fd_instr);
		*fd_instr = -1;
		return -e;
	}
	return 0;
}

int bb_perf_read(int fd_instr, int fd_cycles, uint64_t *instr,
		 uint64_t *cycles)
{
	uint64_t v;
	ssize_t n;

	if (fd_instr < 0 || fd_cycles < 0)
		return -EBADF;
	n = read(fd_instr, &v, sizeof(v));
	if (n != (ssize_t)sizeof(v))
		return n < 0 ? -errno : -EIO;
	*instr = v;
	n = read(fd_cycles, &v, sizeof(v));
	if (n != (ssize_t)sizeof(v))
		return n < 0 ? -errno : -EIO;
	*cycles = v;
	return 0;
}

/* ------------------------------------------------------------------ */
/* human output */

/* Integer MiB/s as t/io_uring; above 2000 MiB/s "x.xxGiB/s" (GiB =
 * 1024 MiB here, where t/io_uring divides by 1000). */
static void fmt_bw(char *buf, size_t len, double bytes_per_s)
{
	uint64_t mib = (uint64_t)(bytes_per_s / 1048576.0);

	if (mib > 2000)
		snprintf(buf, len, "%.2fGiB/s", (double)mib / 1024.0);
	else
		snprintf(buf, len, "%" PRIu64 "MiB/s", mib);
}

static bool target_is_nop(const struct bb_config *cfg)
{
	return cfg && bb_target_is_nop(cfg->target);
}

void bb_sample_fprint(FILE *f, const struct bb_config *cfg,
		      const struct bb_sample *s, uint64_t interval_ms)
{
	double secs = (double)(interval_ms ? interval_ms : 1000) / 1000.0;
	long long rpc = -1, ipc = -1;
	char iops[32], bw[32];

	bb_fmt_iops(iops, sizeof(iops), (double)s->ios / secs);
	if (s->enters) {
		rpc = (long long)(s->submitted / s->enters);
		ipc = (long long)(s->reaped / s->enters);
	}
	fprintf(f, "IOPS=%s, ", iops);
	if (!target_is_nop(cfg)) {
		fmt_bw(bw, sizeof(bw), (double)s->bytes / secs);
		fprintf(f, "BW=%s, ", bw);
	}
	fprintf(f, "IOS/call=%lld/%lld\n", rpc, ipc);
}

/* The put context in words, for the summary. */
static const char *put_context_text(const struct bb_config *cfg)
{
	switch (bb_config_completion(cfg)) {
	case BB_COMPLETION_THREAD:
		return "hard-irq (cross-CPU: a completion thread on another CPU)";
	case BB_COMPLETION_IRQ:
		return "hard-irq (same CPU: the submitter's own completion "
		       "interrupt)";
	default:
		return "task (the submitter reaps, as polled completions)";
	}
}

static double ns_to_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static void fprint_cache(FILE *f, const char *what,
			 const struct bb_cache_counters *c)
{
	fprintf(f,
		"  %s: alloc hit=%" PRIu64 " miss=%" PRIu64 " slab=%" PRIu64
		" reserve=%" PRIu64 " fail=%" PRIu64 "; splice=%" PRIu64
		" (%" PRIu64 " bios); put task=%" PRIu64 " irq=%" PRIu64
		" free=%" PRIu64 "; freed=%" PRIu64 " refill=%" PRIu64
		"; bvec alloc=%" PRIu64 " free=%" PRIu64 "; prune=%" PRIu64
		"\n",
		what, c->alloc_hit, c->alloc_miss, c->alloc_slab,
		c->alloc_reserve, c->alloc_fail, c->splice, c->splice_bios,
		c->put_task, c->put_irq, c->put_free, c->free,
		c->reserve_refill, c->bvec_alloc, c->bvec_free, c->prune);
}

/* The model's requests, and beside them what the disk under the target
 * counted in /proc/diskstats.  For a block device the two are the same
 * requests (the block layer may merge them); for a file and nop they are
 * the model's: the page cache and the filesystem decide what reaches the
 * disk, and nop has none. */
static void fprint_device(FILE *f, const struct bb_config *cfg,
			  const struct bb_result *r)
{
	const struct bb_diskstats *d = &r->disk;
	bool block = !strcmp(r->target_kind, "block") ||
		     !strcmp(r->target_kind, "nvme_char");

	/* whose requests: the bio model's, or biobench's own I/Os when it
	 * runs without the model (--model none) */
	bool model = cfg->model != BB_MODEL_NONE;

	fprintf(f,
		"  device: %s read=%" PRIu64 " write=%" PRIu64
		", sectors read=%" PRIu64 " written=%" PRIu64 "%s%s%s\n",
		block ? "requests" : model ? "model requests" :
					     "submitted requests",
		r->io.dev_reads, r->io.dev_writes, r->io.sectors_read,
		r->io.sectors_written, block ? "" : " (",
		block ? "" : model ? "the bio model's" : "biobench's I/Os",
		target_is_nop(cfg) ? "; nop has no device)" :
		block ? "" :
			", not the disk's: the file's I/O goes through the "
			"page cache and the filesystem)");
	if (d->checked)
		fprintf(f,
			"  disk: %s in /proc/diskstats: reads=%" PRIu64
			" writes=%" PRIu64 ", sectors read=%" PRIu64
			" written=%" PRIu64 " (the measured interval%s%s)\n",
			d->name, d->reads, d->writes, d->sectors_read,
			d->sectors_written,
			block ? "" : "; other I/O to that disk counts too",
			cfg->verify ? "; with the verify pass's reads" : "");
	else if (!target_is_nop(cfg) && !block && cfg->ntargets <= 1)
		fprintf(f, "  disk: none under %s in /proc/diskstats (a "
			   "filesystem without a block device, e.g. tmpfs)\n",
			cfg->target);
}

void bb_result_fprint(FILE *f, const struct bb_config *cfg,
		      const struct bb_result *r)
{
	const struct bb_hist *h = &r->lat;
	double secs = (double)r->duration_ns / 1e9;
	uint64_t bytes = r->io.bytes_read + r->io.bytes_written;
	uint64_t cpu_ns = r->cpu_submit.usr_ns + r->cpu_submit.sys_ns +
			  r->cpu_completion.usr_ns + r->cpu_completion.sys_ns;
	char iops[32], bw[32], kc[BB_KCOST_TEXT_LEN];

	/* the kind in parentheses, unless it is the target's own name */
	if (target_is_nop(cfg))
		fprintf(f, "target: nop (io_uring NOPs through the bio model, "
			   "no device)");
	else
		fprintf(f, "target: %s (%s)", cfg->target,
			r->target_kind[0] ? r->target_kind : "?");
	fprintf(f, "%s%s\n", r->kernel_helpers[0] ? ", kernel helpers: " : "",
		r->kernel_helpers);
	if (cfg->ntargets > 1) {
		fprintf(f, "  files:");
		for (const char *p = cfg->target; p;
		     p = bb_config_next_target(cfg, p))
			fprintf(f, " %s", p);
		fprintf(f, " (%u, spread over %u thread(s))\n", cfg->ntargets,
			cfg->threads);
	}
	fprintf(f,
		"workload: %s bs=%u iodepth=%u threads=%u mode=%s completion=%s%s",
		bb_rw_name(cfg->rw), cfg->bs, cfg->iodepth, cfg->threads,
		bb_mode_name(cfg->mode),
		bb_completion_name(bb_config_completion(cfg)),
		cfg->completion == BB_COMPLETION_AUTO ? " (auto)" : "");
	if (cfg->rw == BB_RW_RANDRW)
		fprintf(f, " rwmixread=%u", cfg->rwmixread);
	if (cfg->inject_ns)
		fprintf(f, " inject_ns=%" PRIu64, cfg->inject_ns);
	if (cfg->device_ns)
		fprintf(f, " device_ns=%" PRIu64, cfg->device_ns);
	if (target_is_nop(cfg))
		fprintf(f, " nop_kind=%s", bb_nop_kind_name(cfg->nop_kind));
	fprintf(f, "\n");
	if (cfg->model == BB_MODEL_NONE)
		fprintf(f, "model: none (one SQE per I/O from its slot; "
			   "bio_cache, split_check, bio_layout: not applicable)\n");
	else
		fprintf(f, "model: bio bio_cache=%s split_check=%s bio_layout=%s\n",
			bb_cache_variant_name(cfg->bio_cache),
			bb_split_check_name(cfg->split_check),
			bb_layout_name(cfg->bio_layout));
	if (cfg->model == BB_MODEL_BIO) {
		fprintf(f, "  bio puts: %s context%s%s\n",
			put_context_text(cfg),
			cfg->cold_bios ? "; cold bios (evicted at put)" : "",
			cfg->device_ns ? "; device cost per request in the "
					 "completion path" : "");
		fprintf(f, "  (%s)\n", BB_MODEL_SCOPE_NOTE);
		bb_config_kcost_text(cfg, kc, sizeof(kc));
		fprintf(f, "  kernel cost: %s\n", kc);
	}
	if (r->error[0])
		fprintf(f, "  error: %s\n", r->error);
	if (r->irq.checked) {
		int pv = bb_poll_verified(cfg, &r->irq,
					  r->io.dev_reads + r->io.dev_writes);

		fprintf(f, "  interrupts: %" PRIu64 " on %s%s\n", r->irq.count,
			r->irq.source,
			pv == 1 ? " (polled completions verified)" :
			pv == 0 ? " -- WARNING: the polled run completed by "
				  "interrupts (poll_verified false: the "
				  "driver has no working poll queues?)" : "");
	}

	bb_fmt_iops(iops, sizeof(iops), bb_result_iops(r));
	fprintf(f, "  IOPS=%s", iops);
	if (!target_is_nop(cfg)) {
		fmt_bw(bw, sizeof(bw), secs > 0 ? (double)bytes / secs : 0.0);
		fprintf(f, ", BW=%s", bw);
	}
	fprintf(f,
		" (%" PRIu64 " I/Os in %.2f s: %" PRIu64 " reads, %" PRIu64
		" writes, %" PRIu64 " errors",
		r->io.ios, secs, r->io.reads, r->io.writes, r->io.errors);
	if (cfg->verify)
		fprintf(f, ", %" PRIu64 " verify errors", r->io.verify_errors);
	fprintf(f, ")\n");

	if (cfg->lat == BB_LAT_OFF || !h->count) {
		fprintf(f, "  lat: %s\n",
			cfg->lat == BB_LAT_OFF ? "off" : "no samples");
	} else {
		fprintf(f,
			"  lat (usec, per %s): min=%.2f mean=%.2f p50=%.2f"
			" p90=%.2f p99=%.2f p99.9=%.2f p99.99=%.2f max=%.2f\n",
			cfg->lat == BB_LAT_IO ? "I/O" : "batch",
			ns_to_us(h->min_ns),
			(double)h->sum_ns / (double)h->count / 1000.0,
			ns_to_us(bb_hist_percentile(h, 50)),
			ns_to_us(bb_hist_percentile(h, 90)),
			ns_to_us(bb_hist_percentile(h, 99)),
			ns_to_us(bb_hist_percentile(h, 99.9)),
			ns_to_us(bb_hist_percentile(h, 99.99)),
			ns_to_us(h->max_ns));
	}

	fprintf(f,
		"  cpu: submit usr=%.2fs sys=%.2fs, completion usr=%.2fs"
		" sys=%.2fs, %.0f ns/IO\n",
		(double)r->cpu_submit.usr_ns / 1e9,
		(double)r->cpu_submit.sys_ns / 1e9,
		(double)r->cpu_completion.usr_ns / 1e9,
		(double)r->cpu_completion.sys_ns / 1e9,
		r->io.ios ? (double)cpu_ns / (double)r->io.ios : 0.0);
	if (r->perf_available && r->io.ios)
		fprintf(f,
			"  perf: %.1f instructions/IO, %.1f cycles/IO, IPC %.2f\n",
			(double)r->instructions / (double)r->io.ios,
			(double)r->cycles / (double)r->io.ios,
			r->cycles ? (double)r->instructions /
					    (double)r->cycles
				  : 0.0);
	else if (r->perf_available)
		fprintf(f, "  perf: no I/Os\n");
	else
		fprintf(f, "  perf: unavailable: %s\n",
			r->perf_unavailable_reason[0] ? r->perf_unavailable_reason
						      : "not measured");

	if (cfg->model == BB_MODEL_NONE) {
		fprintf(f, "  bio cache, split: not applicable (model none)\n");
	} else {
		fprint_cache(f, "bio cache", &r->cache);
		fprint_cache(f, "split bioset", &r->split_cache);
		fprintf(f,
			"  split: checks=%" PRIu64 " hits=%" PRIu64
			" walks=%" PRIu64 " splits=%" PRIu64 " pieces=%" PRIu64
			" einval=%" PRIu64 " eagain=%" PRIu64 " segs=%" PRIu64
			"\n",
			r->split.checks, r->split.check_hits,
			r->split.full_walks, r->split.splits, r->split.pieces,
			r->split.einval, r->split.eagain, r->split.segs);
	}
	fprint_device(f, cfg, r);
}
