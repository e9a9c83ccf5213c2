// SPDX-License-Identifier: GPL-2.0-only
/* tiou.c - t/io_uring's command line: options, defaults, parsing rules,
 * the mapping onto struct bb_config, and a job's "tiou" string as words
 * (see biobench/tiou.h).  The output lines are in tiou_fmt.c. */
#include <biobench/tiou.h>

#include <biobench/config.h>
#include <biobench/options.h>

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(BB_TIOU_MAX_THREADS == BB_MAX_THREADS,
	       "t/io_uring's thread table must match the engine's");
_Static_assert(BB_TIOU_MAX_FILES < UINT16_MAX, "thread_files holds indices");

/* ------------------------------------------------------------------ */
/* the option table: t/io_uring's getopt string, one entry per letter */

enum tiou_kind {
	TK_BOOL,      /* !!atoi() */
	TK_UINT,      /* atoi(), unsigned field, range min..max */
	TK_U64,       /* strtoul(), uint64_t field */
	TK_REFUSE_ON, /* accepted when 0 (t/io_uring's default), else refused */
	TK_REFUSE,    /* refused whatever the value */
};

struct tiou_opt {
	char letter;
	enum tiou_kind kind;
	size_t off;
	uint64_t min, max;
	const char *what;  /* for messages: "queue depth" */
	const char *usage; /* for -h */
};

#define F(field) offsetof(struct bb_tiou, field)

static const struct tiou_opt opts[] = {
	{ 'd', TK_UINT, F(depth), 1, BB_TIOU_MAX_DEPTH, "queue depth",
	  "<int>  : IO Depth, default 128" },
	{ 's', TK_UINT, F(batch_submit), 0, INT_MAX, "submit batch, 0 means 1",
	  "<int>  : Batch submit, default 32 (0 = 1, at most -d)" },
	{ 'c', TK_UINT, F(batch_complete), 0, INT_MAX,
	  "complete batch, 0 means 1",
	  "<int>  : Batch complete, default 32 (0 = 1, at most -d)" },
	{ 'b', TK_UINT, F(bs), 1, INT_MAX, "block size in bytes",
	  "<int>  : Block size in bytes, default 4096" },
	{ 'p', TK_BOOL, F(polled), 0, 0, "polled IO",
	  "<bool> : Polled IO, default 1" },
	{ 'B', TK_BOOL, F(fixedbufs), 0, 0, "fixed buffers",
	  "<bool> : Fixed buffers, default 1" },
	{ 'F', TK_BOOL, F(register_files), 0, 0, "registered files",
	  "<bool> : Register files, default 1" },
	{ 'n', TK_UINT, F(threads), 1, BB_TIOU_MAX_THREADS, "threads",
	  "<int>  : Number of threads, default 1" },
	{ 'N', TK_BOOL, F(nop), 0, 0, "no-op requests",
	  "<bool> : Perform just no-op requests, default 0" },
	{ 'O', TK_BOOL, F(direct), 0, 0, "O_DIRECT",
	  "<bool> : Use O_DIRECT, default 1" },
	{ 't', TK_BOOL, F(stats), 0, 0, "latency tracking",
	  "<bool> : Track IO latencies (per submit batch), default 0" },
	{ 'T', TK_U64, F(tsc_rate), 0, UINT64_MAX, "TSC rate in Hz",
	  "<int>  : TSC rate in HZ (accepted; latency is in ns anyway)" },
	{ 'r', TK_UINT, F(runtime_s), 0, INT_MAX,
	  "runtime in seconds, 0 = until interrupted",
	  "<int>  : Runtime in seconds, default unlimited" },
	{ 'R', TK_BOOL, F(random), 0, 0, "random IO",
	  "<bool> : Use random IO, default 1" },
	{ 'X', TK_BOOL, F(register_ring), 0, 0, "registered ring",
	  "<bool> : Use registered ring, default 1" },
	{ 'P', TK_BOOL, F(numa_placement), 0, 0, "NUMA placement",
	  "<bool> : Automatically place on device home node, default 0" },
	{ 'V', TK_BOOL, F(vectored), 0, 0, "vectored IO",
	  "<bool> : Vectored IO, default 0" },
	{ 'e', TK_BOOL, F(restriction), 0, 0, "restriction filter",
	  "<bool> : Set restriction filter on opcodes, default 0" },
	{ 'u', TK_BOOL, F(passthrough), 0, 0, "NVMe passthrough",
	  "<bool> : Use nvme-passthrough I/O, default 0" },
	{ 'D', TK_BOOL, F(dma_map), 0, 0, "DMA map (ignored)",
	  "<bool> : DMA map fixed buffers (fio 3.33; ignored)" },
	{ 'a', TK_REFUSE_ON, 0, 0, 0, "legacy libaio (-a1)",
	  "<bool> : Use legacy aio: not supported (-a0 only)" },
	{ 'S', TK_REFUSE_ON, 0, 0, 0, "synchronous preadv2 (-S1)",
	  "<bool> : Use sync IO (preadv2): not supported (-S0 only)" },
	{ 'H', TK_REFUSE, 0, 0, 0, "hugetlbfs buffers (-H)",
	  "<path> : Hugetlbfs file for buffers: not supported" },
};

#undef F

static const struct tiou_opt *opt_find(char c)
{
	for (size_t i = 0; i < bb_array_size(opts); i++)
		if (opts[i].letter == c)
			return &opts[i];
	return NULL;
}

void bb_tiou_default(struct bb_tiou *t)
{
	memset(t, 0, sizeof(*t));
	t->depth = BB_TIOU_DEF_DEPTH;
	t->batch_submit = BB_TIOU_DEF_BATCH;
	t->batch_complete = BB_TIOU_DEF_BATCH;
	t->bs = BB_TIOU_DEF_BS;
	t->polled = true;
	t->fixedbufs = true;
	t->register_files = true;
	t->threads = 1;
	t->direct = true;
	t->random = true;
	t->register_ring = true;
	t->submit = BB_TIOU_DEF_BATCH;
	t->complete = BB_TIOU_DEF_BATCH;
}

/* A plain decimal integer (optional sign), the whole string. */
static bool parse_ll(const char *s, long long *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return !errno && *end == '\0' && end != s;
}

/* What atoi() would read, for the message: "t/io_uring reads '4k' as 4". */
static void atoi_hint(char *buf, size_t len, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	buf[0] = '\0';
	if (end != v && *end)
		snprintf(buf, len, "; t/io_uring reads '%s' as %ld", v, n);
}

static int set_opt(struct bb_tiou *t, const struct tiou_opt *o, const char *v,
		   char *err, size_t errlen)
{
	char *base = (char *)t;
	char hint[96];
	long long n;

	atoi_hint(hint, sizeof(hint), v);
	switch (o->kind) {
	case TK_REFUSE:
		return bb_errf(err, errlen, -EINVAL,
			       "-%c: %s are not supported by biobench tiou",
			       o->letter, o->what);
	case TK_REFUSE_ON:
		if (!parse_ll(v, &n))
			return bb_errf(err, errlen, -EINVAL,
				       "-%c: '%s' is not an integer (0 = off, other = on)%s",
				       o->letter, v, hint);
		if (n)
			return bb_errf(err, errlen, -EINVAL,
				       "-%c: %s is not supported by biobench tiou (-%c0 is accepted)",
				       o->letter, o->what, o->letter);
		return 0;
	case TK_BOOL:
		if (!parse_ll(v, &n))
			return bb_errf(err, errlen, -EINVAL,
				       "-%c: '%s' is not an integer (0 = off, other = on)%s",
				       o->letter, v, hint);
		*(bool *)(base + o->off) = n != 0;
		if (o->letter == 'D')
			t->notes |= BB_TIOU_NOTE_D;
		return 0;
	case TK_UINT:
	case TK_U64:
		break;
	}

	if (o->kind == TK_U64) {
		char *end;
		unsigned long long u;

		errno = 0;
		u = strtoull(v, &end, 10);
		if (!*v || *v == '-' || *end || errno)
			return bb_errf(err, errlen, -EINVAL,
				       "-%c: '%s' is not a decimal integer (%s)%s",
				       o->letter, v, o->what, hint);
		*(uint64_t *)(base + o->off) = u;
		if (o->letter == 'T')
			t->notes |= BB_TIOU_NOTE_T;
		return 0;
	}

	if (!parse_ll(v, &n))
		return bb_errf(err, errlen, -EINVAL,
			       "-%c: '%s' is not a decimal integer (%s, %" PRIu64
			       "..%" PRIu64 ")%s",
			       o->letter, v, o->what, o->min, o->max, hint);
	if (n < (long long)o->min || (uint64_t)n > o->max)
		return bb_errf(err, errlen, -EINVAL,
			       "-%c: '%s' is out of range %" PRIu64 "..%" PRIu64
			       " (%s)",
			       o->letter, v, o->min, o->max, o->what);
	if ((o->letter == 's' || o->letter == 'c') && n == 0)
		n = 1; /* t/io_uring: "if (!batch_submit) batch_submit = 1" */
	*(unsigned *)(base + o->off) = (unsigned)n;
	return 0;
}

static int unknown_opt(char c, char *err, size_t errlen)
{
	char list[160];
	size_t n = 0;

	for (size_t i = 0; i < bb_array_size(opts) && n + 4 < sizeof(list); i++)
		n += (size_t)snprintf(list + n, sizeof(list) - n, "%s-%c",
				      i ? " " : "", opts[i].letter);
	snprintf(list + n, sizeof(list) - n, " -h");
	if (c >= 0x20 && c < 0x7f)
		return bb_errf(err, errlen, -EINVAL,
			       "-%c: unknown option (t/io_uring's options: %s)", c,
			       list);
	return bb_errf(err, errlen, -EINVAL,
		       "unknown option character 0x%02x (t/io_uring's options: %s)",
		       (unsigned char)c, list);
}

/* t/io_uring's main(): files spread over the submitters. */
static int spread_files(struct bb_tiou *t, char *err, size_t errlen)
{
	unsigned per_file, rem = 0, j = 0;

	memset(t->thread_nfiles, 0, sizeof(t->thread_nfiles));
	if (!t->nfiles)
		return 0;
	per_file = t->threads / t->nfiles;
	if (per_file == 0)
		per_file = 1;
	else
		rem = t->threads - per_file * t->nfiles;
	for (unsigned i = 0; i < t->nfiles; i++) {
		unsigned limit = per_file + (rem > 0 ? 1 : 0);

		for (unsigned k = 0; k < limit; k++) {
			unsigned s = (j + k) % t->threads;

			if (t->thread_nfiles[s] == BB_TIOU_MAX_FILES_PER_THREAD)
				return bb_errf(err, errlen, -EINVAL,
					       "FILE: more than %d files on thread %u (%u files, -n%u); t/io_uring drops the rest: give more threads or fewer files",
					       BB_TIOU_MAX_FILES_PER_THREAD, s,
					       t->nfiles, t->threads);
			t->thread_files[s][t->thread_nfiles[s]++] = (uint16_t)i;
		}
		if (rem)
			rem--;
		j += limit;
	}
	return 0;
}

/* What t/io_uring settles after getopt(). */
static int finish(struct bb_tiou *t, char *err, size_t errlen)
{
	t->submit = bb_min(t->batch_submit, t->depth);
	t->complete = bb_min(t->batch_complete, t->depth);
	t->notes &= ~(BB_TIOU_NOTE_NOP_PLAIN | BB_TIOU_NOTE_NOP_FILES |
		      BB_TIOU_NOTE_LAT | BB_TIOU_NOTE_SEQ_SLICES);
	if (t->stats)
		t->notes |= BB_TIOU_NOTE_LAT;
	if (!t->random && !t->nop && t->nfiles && t->threads > t->nfiles)
		t->notes |= BB_TIOU_NOTE_SEQ_SLICES;
	t->nop_kind = BB_TIOU_NOP_OFF;
	t->nop_flags = 0;
	if (t->nop) {
		if (t->passthrough)
			return bb_errf(err, errlen, -EINVAL,
				       "-u1: NVMe passthrough and -N1 (no-op requests) do not combine; give one of them");
		if (t->flavor == BB_TIOU_FIO_CURRENT) {
			if (!t->nfiles)
				return bb_errf(err, errlen, -EINVAL,
					       "FILE: none given: current fio's -N1 sends NOPs that carry a FILE (IORING_NOP_FILE); give one, or --flavor 3.33 for plain NOPs");
			t->nop_kind = BB_TIOU_NOP_FILE;
			t->nop_flags = BB_IORING_NOP_FILE |
				       BB_IORING_NOP_INJECT_RESULT;
			if (t->register_files)
				t->nop_flags |= BB_IORING_NOP_FIXED_FILE;
			if (t->fixedbufs)
				t->nop_flags |= BB_IORING_NOP_FIXED_BUFFER;
			t->notes |= BB_TIOU_NOTE_NOP_FILES;
		} else {
			t->nop_kind = BB_TIOU_NOP_PLAIN;
			t->notes |= BB_TIOU_NOTE_NOP_PLAIN;
		}
	} else if (!t->nfiles) {
		return bb_errf(err, errlen, -EINVAL,
			       "FILE: none given (t/io_uring reads files and block devices: tiou [options] FILE...; -N1 alone issues plain NOPs)");
	}
	return spread_files(t, err, errlen);
}

int bb_tiou_parse_over(int argc, char **argv, struct bb_tiou *t, char *err,
		       size_t errlen)
{
	bool end_of_opts = false, files_given = false;
	int i, ret;

	if (err && errlen)
		err[0] = '\0';
	t->rest = argc;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		ret = bb_tiou_flavor_arg(argc, argv, i, &t->flavor, err,
					 errlen);
		if (ret < 0)
			return ret;
		if (ret) {
			i += ret - 1;
			continue;
		}
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			/* biobench's own long options from here, with their
			 * values; t/io_uring's options and FILEs may follow
			 * (bb_tiou_apply_options picks the long ones out) */
			if (t->rest == argc)
				t->rest = i;
			i += bb_options_words(argc, argv, i) - 1;
			continue;
		}
		if (!end_of_opts && !strcmp(a, "--")) {
			end_of_opts = true;
			continue;
		}
		if (end_of_opts || a[0] != '-' || !a[1]) {
			if (!files_given) {
				files_given = true;
				t->nfiles = 0;
			}
			if (t->nfiles == BB_TIOU_MAX_FILES)
				return bb_errf(err, errlen, -EINVAL,
					       "FILE: more than %d files",
					       BB_TIOU_MAX_FILES);
			t->files[t->nfiles++] = a;
			continue;
		}
		/* a cluster of short options, as getopt(3) reads it: every
		 * option takes a value, so only -h and -? can precede one */
		for (int j = 1; a[j]; j++) {
			const struct tiou_opt *o;
			const char *v;

			if (a[j] == 'h' || a[j] == '?')
				return 1;
			o = opt_find(a[j]);
			if (!o)
				return unknown_opt(a[j], err, errlen);
			if (a[j + 1]) {
				v = a + j + 1;
			} else if (i + 1 < argc) {
				v = argv[++i];
			} else {
				return bb_errf(err, errlen, -EINVAL, "-%c: needs a value (%s)",
					       o->letter, o->what);
			}
			ret = set_opt(t, o, v, err, errlen);
			if (ret)
				return ret;
			break;
		}
	}
	return finish(t, err, errlen);
}

int bb_tiou_flavor_arg(int argc, char **argv, int i, enum bb_tiou_flavor *fl,
		       char *err, size_t errlen)
{
	const char *a = argv[i], *v;
	int used = 1;

	if (strncmp(a, "--flavor", 8) || (a[8] && a[8] != '='))
		return 0;
	if (a[8] == '=') {
		v = a + 9;
	} else if (i + 1 < argc) {
		v = argv[i + 1];
		used = 2;
	} else {
		return bb_errf(err, errlen, -EINVAL,
			       "--flavor: needs a value (3.33: Debian 12's t/io_uring, current: current fio's)");
	}
	if (!strcmp(v, "3.33"))
		*fl = BB_TIOU_FIO_3_33;
	else if (!strcmp(v, "current"))
		*fl = BB_TIOU_FIO_CURRENT;
	else
		return bb_errf(err, errlen, -EINVAL,
			       "--flavor: '%s' is not 3.33 (Debian 12's t/io_uring) or current (current fio's)",
			       v);
	return used;
}

int bb_tiou_set_flavor(struct bb_tiou *t, enum bb_tiou_flavor fl, char *err,
		       size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	t->flavor = fl;
	return finish(t, err, errlen);
}

const char *bb_tiou_flavor_name(enum bb_tiou_flavor fl)
{
	return fl == BB_TIOU_FIO_CURRENT ? "current" : "3.33";
}

int bb_tiou_parse(int argc, char **argv, struct bb_tiou *t, char *err,
		  size_t errlen)
{
	bb_tiou_default(t);
	return bb_tiou_parse_over(argc, argv, t, err, errlen);
}

void bb_tiou_usage(char *buf, size_t len, const char *prog)
{
	size_t n;

	if (!len)
		return;
	n = (size_t)snprintf(buf, len, "%s [options] [--] FILE...\n", prog);
	for (size_t i = 0; i < bb_array_size(opts) && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, " -%c %s\n",
				      opts[i].letter, opts[i].usage);
	if (n < len)
		snprintf(buf + n, len - n,
			 " -h        : This help\n"
			 "Values are plain decimal integers; booleans are on when non-zero.\n");
}

size_t bb_tiou_notes(const struct bb_tiou *t, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *text;
	} notes[] = {
		{ BB_TIOU_NOTE_D,
		  "tiou: -D is ignored: fio 3.33's DMA-mapped fixed buffers needed an out-of-tree kernel patch, and later fio removed the option" },
		{ BB_TIOU_NOTE_T,
		  "tiou: -T is not written to ./tsc-rate: biobench measures latency in nanoseconds and needs no TSC rate" },
		{ BB_TIOU_NOTE_NOP_PLAIN,
		  "tiou: -N1 issues plain NOPs and opens no FILE, as fio 3.33 does (--flavor current: NOPs carrying the FILE, as current fio)" },
		{ BB_TIOU_NOTE_NOP_FILES,
		  "tiou: -N1 issues NOPs that carry the file and buffer (IORING_NOP_FILE, as current fio; an anonymous file stands for FILE, the kernel's work does not depend on it); fio 3.33 issues plain NOPs" },
		{ BB_TIOU_NOTE_LAT,
		  "tiou: -t1 measures per submit batch with biobench's clock, in nanoseconds from the first I/O on (t/io_uring counts TSC ticks unless -T gives their rate, and starts one second in)" },
		{ BB_TIOU_NOTE_SEQ_SLICES,
		  "tiou: -R0 with more threads than FILEs: each thread reads its own slice of its file in order (t/io_uring's threads each read the whole file from offset 0, the same blocks)" },
	};
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < bb_array_size(notes); i++) {
		if (!(t->notes & notes[i].bit))
			continue;
		n += (size_t)snprintf(buf + bb_min(n, len),
				      n < len ? len - n : 0, "%s\n",
				      notes[i].text);
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* onto struct bb_config */

#define SZ_64M (64u << 20)

int bb_tiou_to_config(const struct bb_tiou *t, struct bb_config *cfg,
		      char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (t->bs % 512)
		return bb_errf(err, errlen, -EINVAL,
			       "-b: %u is not a multiple of 512 (biobench issues whole sectors)",
			       t->bs);
	if (t->bs > SZ_64M)
		return bb_errf(err, errlen, -EINVAL, "-b: %u is above 64 MiB (67108864)",
			       t->bs);
	if (!t->nop && !t->passthrough && t->polled && !t->direct)
		return bb_errf(err, errlen, -EINVAL,
			       "-p1: polled IO needs O_DIRECT but -O0 asks for buffered reads (the kernel fails them with EOPNOTSUPP); give -p0 with -O0");
	if (t->passthrough && t->vectored)
		return bb_errf(err, errlen, -EINVAL,
			       "-V1: vectored NVMe passthrough (NVME_URING_CMD_IO_VEC) is not supported by biobench tiou");

	if (t->nop) {
		bb_config_set_target(cfg, BB_TARGET_NOP_NAME);
		cfg->nop_kind = t->nop_kind == BB_TIOU_NOP_FILE ? BB_NOP_FILE :
								  BB_NOP_PLAIN;
	} else {
		for (unsigned i = 0; i < t->nfiles; i++) {
			int ret = i ? bb_config_add_target(cfg, t->files[i]) :
				      bb_config_set_target(cfg, t->files[i]);

			if (ret)
				return bb_errf(err, errlen, -EINVAL,
					       "FILE: '%.40s%s': the FILEs are longer than %zu bytes in all, or more than %d",
					       t->files[i],
					       strlen(t->files[i]) > 40 ? "..." : "",
					       sizeof(cfg->target) - 2,
					       BB_MAX_TARGETS);
		}
		cfg->nop_kind = BB_NOP_PLAIN;
	}
	cfg->direct = t->direct;
	cfg->size = 0;   /* the whole file or device, as t/io_uring */
	cfg->offset = 0;
	cfg->rw = t->random ? BB_RW_RANDREAD : BB_RW_READ;
	cfg->bs = t->bs;
	cfg->iodepth = t->depth;
	cfg->threads = t->threads;
	cfg->runtime_ns = (uint64_t)t->runtime_s * 1000000000ull;
	cfg->number_ios = 0;
	cfg->ramp_ns = 0;
	cfg->engine = t->passthrough ? BB_ENGINE_URING_CMD : BB_ENGINE_IO_URING;
	cfg->mode = t->polled && !t->nop ? BB_MODE_POLL : BB_MODE_IRQ;
	cfg->fixedbufs = t->fixedbufs;
	cfg->registerfiles = t->register_files;
	cfg->submit_batch = t->submit;
	cfg->complete_batch = t->complete;
	cfg->lat = t->stats ? BB_LAT_BATCH : BB_LAT_OFF;
	cfg->model = BB_MODEL_NONE;
	cfg->register_ring = t->register_ring;
	cfg->restrict_ring = t->restriction;
	cfg->vectored = t->vectored && !t->fixedbufs && !t->nop;
	cfg->numa_place = t->numa_placement;
	return 0;
}

int bb_tiou_apply_options(int argc, char **argv, int first, struct bb_tiou *t,
			  struct bb_config *cfg, char *err, size_t errlen)
{
	enum bb_tiou_flavor fl = t->flavor;
	unsigned n = 0;
	char **args = calloc((size_t)argc + BB_MAX_TARGETS + 3, sizeof(*args));
	char *targets = malloc(sizeof(cfg->target));
	bool numa = cfg->numa_place;
	int ret = 0;

	if (!args || !targets) {
		ret = bb_errf(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	args[n++] = argv[0];
	/* the long options and their values; the other words are the line's
	 * (t/io_uring's options, their values, FILEs), read by the parse */
	for (int i = first; i < argc; i++) {
		int used = bb_tiou_flavor_arg(argc, argv, i, &fl, err, errlen);

		if (used < 0) {
			ret = used;
			goto out;
		}
		if (used) {
			i += used - 1;
			continue;
		}
		used = bb_options_words(argc, argv, i);
		for (int k = 0; k < used; k++)
			args[n++] = argv[i + k];
		if (used)
			i += used - 1;
	}
	if (fl != t->flavor) {
		ret = bb_tiou_set_flavor(t, fl, err, errlen);
		if (!ret)
			ret = bb_tiou_to_config(t, cfg, err, errlen);
		if (ret)
			goto out;
		numa = cfg->numa_place;
	}
	/* the line's targets, from a copy: setting them clears cfg's */
	memcpy(targets, cfg->target, sizeof(cfg->target));
	args[n++] = "--";
	for (const char *p = cfg->target; p; p = bb_config_next_target(cfg, p))
		args[n++] = targets + (p - cfg->target);
	/* -P1 with --cpus is refused below in t/io_uring's words */
	cfg->numa_place = false;
	ret = bb_options_parse((int)n, args, cfg, err, errlen);
	if (ret)
		goto out;
	if (numa && cfg->ncpus) {
		ret = bb_errf(err, errlen, -EINVAL,
			      "-P1: --cpus places the threads already: give "
			      "one of -P1 and --cpus");
		goto out;
	}
	cfg->numa_place = numa;
out:
	free(targets);
	free(args);
	return ret;
}

struct json_object *bb_tiou_options_json(const struct bb_config *cfg)
{
	static const char *const mapped[] = {
		"target", "direct", "rw", "bs", "iodepth", "threads",
		"runtime", "engine", "mode", "fixedbufs", "registerfiles",
		"submit_batch", "complete_batch", "lat", "nop_kind", "model",
		"register_ring", "restrict_ring", "vectored", "numa_place",
	};
	struct json_object *all = bb_config_to_json(cfg), *def = NULL, *out;
	struct bb_config *d = malloc(sizeof(*d));
	struct json_object *v, *dv;

	out = json_object_new_object();
	if (!all || !d || !out) {
		json_object_put(out);
		out = NULL;
		goto done;
	}
	bb_config_default(d);
	def = bb_config_to_json(d);
	for (size_t i = 0; i < bb_array_size(mapped); i++)
		if (json_object_object_get_ex(all, mapped[i], &v))
			json_object_object_add(out, mapped[i],
					       json_object_get(v));
	json_object_object_foreach(all, key, val) {
		if (json_object_object_get_ex(out, key, NULL))
			continue;
		if (def && json_object_object_get_ex(def, key, &dv) &&
		    json_object_equal(dv, val))
			continue;
		json_object_object_add(out, key, json_object_get(val));
	}
done:
	json_object_put(def);
	json_object_put(all);
	free(d);
	return out;
}

/* ------------------------------------------------------------------ */
/* a job's "tiou" string */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

int bb_tiou_args_split(const char *line, struct bb_tiou_argv *out, char *err,
		       size_t errlen)
{
	size_t len = strlen(line), nptr = len / 2 + 3;
	char **argv, *w;
	const char *p = line;
	int argc = 0, ret = -EINVAL;

	out->argc = 0;
	out->argv = NULL;
	if (err && errlen)
		err[0] = '\0';
	/* words are never longer than the line, and at most every other
	 * character starts one */
	argv = malloc(nptr * sizeof(*argv) + len + sizeof("tiou") + 1);
	if (!argv)
		return -ENOMEM;
	w = (char *)(argv + nptr);
	memcpy(w, "tiou", sizeof("tiou"));
	argv[argc++] = w;
	w += sizeof("tiou");

	for (;;) {
		bool have = false;
		char *start = w;

		while (is_blank(*p))
			p++;
		if (!*p)
			break;
		while (*p && !is_blank(*p)) {
			char c = *p;

			if (c == '\'') {
				const char *q = strchr(p + 1, '\'');

				if (!q) {
					bb_errf(err, errlen, -EINVAL,
						"tiou: unterminated ' at column %zu",
						(size_t)(p - line) + 1);
					goto out;
				}
				memcpy(w, p + 1, (size_t)(q - p - 1));
				w += q - p - 1;
				p = q + 1;
				have = true;
			} else if (c == '"') {
				size_t col = (size_t)(p - line) + 1;

				for (p++; *p && *p != '"'; p++) {
					if (*p == '\\' && p[1] &&
					    strchr("\"\\$`", p[1]))
						p++;
					*w++ = *p;
				}
				if (!*p) {
					bb_errf(err, errlen, -EINVAL,
						"tiou: unterminated \" at column %zu",
						col);
					goto out;
				}
				p++;
				have = true;
			} else if (c == '\\') {
				if (!p[1]) {
					bb_errf(err, errlen, -EINVAL,
						"tiou: a backslash ends the line");
					goto out;
				}
				*w++ = p[1];
				p += 2;
				have = true;
			} else if (strchr("$`*?|&;<>()", c)) {
				bb_errf(err, errlen, -EINVAL,
					"tiou: '%c' at column %zu: a t/io_uring line is not expanded by a shell here; write the value out (or quote it)",
					c, (size_t)(p - line) + 1);
				goto out;
			} else {
				*w++ = c;
				p++;
				have = true;
			}
		}
		if (have) {
			*w++ = '\0';
			argv[argc++] = start;
		}
	}
	argv[argc] = NULL;

	/* "t/io_uring -p0 ..." as pasted: drop the program */
	if (argc > 1 && !strcmp(base_name(argv[1]), "io_uring")) {
		memmove(argv + 1, argv + 2, (size_t)(argc - 1) * sizeof(*argv));
		argc--;
	}
	if (argc > 1 && (!strcmp(argv[1], "taskset") ||
			 !strcmp(argv[1], "numactl"))) {
		bb_errf(err, errlen, -EINVAL,
			"tiou: '%s' is not part of a t/io_uring line: pin the threads with biobench's cpus instead",
			argv[1]);
		goto out;
	}
	out->argc = argc;
	out->argv = argv;
	argv = NULL;
	ret = 0;
out:
	free(argv);
	return ret;
}

void bb_tiou_argv_free(struct bb_tiou_argv *a)
{
	free(a->argv);
	a->argv = NULL;
	a->argc = 0;
}
