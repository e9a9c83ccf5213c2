// SPDX-License-Identifier: GPL-2.0-only
/* tiou_fmt.c - t/io_uring's output lines, byte for byte (see
 * biobench/tiou.h).  Each format below is the printf() format of fio's
 * t/io_uring.c (fio 3.33 and current fio where they agree; the two
 * startup lines that differ take a flavor). */
#include <biobench/tiou.h>

#include <biobench/stats.h>

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* Appends to a snprintf-style buffer and keeps the length it needed. */
struct tiou_out {
	char *buf;
	size_t len;
	size_t n;
};

static void out_init(struct tiou_out *o, char *buf, size_t len)
{
	o->buf = buf;
	o->len = len;
	o->n = 0;
	if (len)
		buf[0] = '\0';
}

static void outf(struct tiou_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void outf(struct tiou_out *o, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	if (o->n < o->len)
		r = vsnprintf(o->buf + o->n, o->len - o->n, fmt, ap);
	else
		r = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (r > 0)
		o->n += (size_t)r;
}

static int out_done(const struct tiou_out *o)
{
	return o->n > INT32_MAX ? INT32_MAX : (int)o->n;
}

/* t/io_uring's IOPS rule (main loop and do_finish()). */
static void out_iops(struct tiou_out *o, uint64_t iops)
{
	if (iops > 1000000)
		outf(o, "%.2fM", (double)iops / 1000000.0);
	else if (iops > 100000)
		outf(o, "%.2fK", (double)iops / 1000.0);
	else
		outf(o, "%" PRIu64, iops);
}

int bb_tiou_fmt_submitter(char *buf, size_t len, enum bb_tiou_flavor fl,
			  int index, int tid, const char *file,
			  unsigned nfiles, int node)
{
	struct tiou_out o;

	out_init(&o, buf, len);
	if (!file)
		file = "(null)"; /* what glibc's printf("%s", NULL) prints */
	if (fl == BB_TIOU_FIO_3_33)
		outf(&o, "submitter=%d, tid=%d, file=%s, node=%d\n", index, tid,
		     file, node);
	else
		outf(&o, "submitter=%d, tid=%d, file=%s, nfiles=%u, node=%d\n",
		     index, tid, file, nfiles, node);
	return out_done(&o);
}

int bb_tiou_fmt_setup(char *buf, size_t len, enum bb_tiou_flavor fl,
		      const struct bb_tiou *t)
{
	struct tiou_out o;

	out_init(&o, buf, len);
	if (fl == BB_TIOU_FIO_3_33)
		/* "/%d" is dma_map: -D is ignored, so always 0 */
		outf(&o,
		     "polled=%d, fixedbufs=%d/%d, register_files=%d, buffered=%d, QD=%u\n",
		     t->polled, t->fixedbufs, 0, t->register_files, !t->direct,
		     t->depth);
	else
		outf(&o,
		     "polled=%d, fixedbufs=%d, register_files=%d, buffered=%d, QD=%u\n",
		     t->polled, t->fixedbufs, t->register_files, !t->direct,
		     t->depth);
	return out_done(&o);
}

int bb_tiou_fmt_engine(char *buf, size_t len, unsigned sq_entries,
		       unsigned cq_entries)
{
	struct tiou_out o;

	out_init(&o, buf, len);
	outf(&o, "Engine=io_uring, sq_ring=%u, cq_ring=%u\n", sq_entries,
	     cq_entries);
	return out_done(&o);
}

int bb_tiou_fmt_tick(char *buf, size_t len, const struct bb_tiou_tick *d,
		     unsigned bs, bool nop, uint64_t *iops_out)
{
	struct tiou_out o;
	int64_t rpc = -1, ipc = -1;
	uint64_t iops, bw;

	out_init(&o, buf, len);
	if (d->calls) {
		rpc = (int64_t)(d->done / d->calls);
		ipc = (int64_t)(d->reaps / d->calls);
	}
	iops = d->done > d->errors ? d->done - d->errors : 0;
	if (!bs)
		bw = 0;
	else if (bs > 1048576)
		bw = iops * (bs / 1048576);
	else
		bw = iops / (1048576 / bs);
	outf(&o, "IOPS=");
	out_iops(&o, iops);
	outf(&o, ", ");
	if (!nop) {
		if (bw > 2000)
			outf(&o, "BW=%.2fGiB/s, ", (double)bw / 1000.0);
		else
			outf(&o, "BW=%" PRIu64 "MiB/s, ", bw);
	}
	outf(&o, "IOS/call=%" PRId64 "/%" PRId64 "\n", rpc, ipc);
	if (iops_out)
		*iops_out = iops;
	return out_done(&o);
}

int bb_tiou_fmt_exit(char *buf, size_t len, bool timeout)
{
	struct tiou_out o;

	out_init(&o, buf, len);
	outf(&o, "Exiting on %s\n", timeout ? "timeout" : "signal");
	return out_done(&o);
}

int bb_tiou_fmt_max_iops(char *buf, size_t len, uint64_t max_iops)
{
	struct tiou_out o;

	out_init(&o, buf, len);
	outf(&o, "Maximum IOPS=");
	out_iops(&o, max_iops);
	outf(&o, "\n");
	return out_done(&o);
}

int bb_tiou_fmt_io_errors(char *buf, size_t len, int tid, uint64_t errors)
{
	struct tiou_out o;

	out_init(&o, buf, len);
	outf(&o, "%d: %" PRIu64 " IO errors\n", tid, errors);
	return out_done(&o);
}

/* t/io_uring's plist[] (floats: printed as float promoted to double) */
const float bb_tiou_pct[BB_TIOU_NPCT] = {
	1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0,
	80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95, 99.99
};

void bb_tiou_percentiles(const struct bb_hist *h, uint64_t vals[BB_TIOU_NPCT])
{
	uint64_t nr = 0, sum = 0;
	unsigned i, j = 0;
	bool is_last = false;

	for (i = 0; i < BB_HIST_NBUCKETS; i++)
		nr += h->buckets[i];
	/* calculate_clat_percentiles(): the first bucket whose running sum
	 * reaches plist[j] / 100 * nr, compared in long double */
	for (i = 0; i < BB_HIST_NBUCKETS && !is_last; i++) {
		sum += h->buckets[i];
		while ((long double)sum >=
		       (long double)bb_tiou_pct[j] / 100.0 * (long double)nr) {
			vals[j] = bb_hist_bucket_value(i);
			is_last = j == BB_TIOU_NPCT - 1;
			if (is_last)
				break;
			j++;
		}
	}
	/* not reached while nr is the sum of the buckets; t/io_uring
	 * leaves these uninitialised */
	for (; !is_last && j < BB_TIOU_NPCT; j++)
		vals[j] = j ? vals[j - 1] : 0;
}

int bb_tiou_fmt_latency(char *buf, size_t len, int tid,
			const uint64_t vals[BB_TIOU_NPCT], bool ticks)
{
	const unsigned precision = 4; /* show_clat_percentiles(..., 4) */
	uint64_t minv = UINT64_MAX, maxv = 0, div;
	int per_line, time_width;
	bool scale_down;
	struct tiou_out o;

	out_init(&o, buf, len);
	for (unsigned j = 0; j < BB_TIOU_NPCT; j++) {
		minv = vals[j] < minv ? vals[j] : minv;
		maxv = vals[j] > maxv ? vals[j] : maxv;
	}
	outf(&o, "%d: Latency percentiles:\n", tid);
	if (ticks) {
		scale_down = false;
		div = 1;
		outf(&o, "    percentiles (tsc ticks):\n     |");
	} else if (minv > 2000 && maxv > 99999) {
		scale_down = true;
		div = 1000;
		outf(&o, "    percentiles (usec):\n     |");
	} else {
		scale_down = false;
		div = 1;
		outf(&o, "    percentiles (nsec):\n     |");
	}
	/* max(5, (int)(log10(maxv / divisor) + 1)); log10(0) is -inf,
	 * which t/io_uring's (int) turns into INT_MIN: 5 */
	time_width = 5;
	if (maxv / div) {
		int w = (int)(log10((double)(maxv / div)) + 1);

		time_width = w > 5 ? w : 5;
	}
	per_line = (80 - 7) / (int)(precision + 10 + (unsigned)time_width);

	for (int j = 0; j < BB_TIOU_NPCT; j++) {
		bool is_last = j == BB_TIOU_NPCT - 1;
		uint64_t v = vals[j];

		if (j != 0 && (j % per_line) == 0)
			outf(&o, "     |");
		if (scale_down)
			v = (v + 999) / 1000;
		outf(&o, " %*.*fth=[%*" PRIu64 "]%c", (int)precision + 3,
		     (int)precision, (double)bb_tiou_pct[j], time_width, v,
		     is_last ? '\n' : ',');
		if (is_last)
			break;
		if ((j % per_line) == per_line - 1)
			outf(&o, "\n");
	}
	return out_done(&o);
}
