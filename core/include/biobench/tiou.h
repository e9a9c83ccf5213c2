/* SPDX-License-Identifier: GPL-2.0-only */
/* tiou.h - fio's t/io_uring command line and output lines (layout-
 * independent).
 *
 * Three pieces, so that `biobench tiou` and a job's "tiou" line can take a
 * kernel developer's t/io_uring command line verbatim and print what
 * t/io_uring prints:
 *
 *  - bb_tiou_parse(): t/io_uring's options with t/io_uring's meaning,
 *    defaults and parsing rules (fio 3.33, Debian 12's fio, and current
 *    fio: the union of both option sets), into struct bb_tiou;
 *  - bb_tiou_to_config(): the mapping onto biobench's run configuration:
 *    every option t/io_uring has is a run option of the engine, or is
 *    refused with one line saying why; biobench's own long options
 *    follow the line (bb_tiou_apply_options), and bb_tiou_options_json()
 *    says what a line became (a job's normalized document);
 *  - bb_tiou_fmt_*(): t/io_uring's output lines, byte for byte.
 *
 * t/io_uring's parsing rules (t/io_uring.c, main()):
 *  - getopt(3) with every option taking a value: "-p0" and "-p 0" are the
 *    same; options and FILEs may be mixed (GNU getopt permutes); "--" ends
 *    the options; a value is never optional.
 *  - Booleans are !!atoi(): any integer, non-zero is on.  Integers are
 *    atoi(): t/io_uring reads "4k" as 4 and "abc" as 0 without a word;
 *    biobench refuses a value that is not a plain decimal integer instead.
 *  - -s 0 and -c 0 mean 1; both are clamped to -d after all options are
 *    read (so the order of -d and -s does not matter).
 *  - -N1 still opens the FILEs in current fio and issues IORING_OP_NOP
 *    carrying the file and buffer (IORING_NOP_FILE, _FIXED_FILE with -F1,
 *    _FIXED_BUFFER with -B1, _INJECT_RESULT with len = -b); fio 3.33
 *    issues plain NOPs and needs no FILE (it ignores any).  Here the
 *    flavor decides, as it decides the output lines: fio 3.33 (the
 *    default, Debian's binary) plain NOPs, --flavor current the file
 *    kind (a FILE is then required).
 *  - -p1 asks for IORING_SETUP_IOPOLL, except in NOP mode.
 *  - -h (and -?) print the usage; t/io_uring also prints the usage (and
 *    exits 0) on an unknown option, where biobench refuses it.
 *
 * Messages are one line naming the option and what is allowed, e.g.
 *   "-d: '0' is out of range 1..32768 (queue depth)"
 *   "-a: legacy libaio (-a1) is not supported by biobench tiou"
 */
#ifndef BIOBENCH_TIOU_H
#define BIOBENCH_TIOU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bb_config;
struct bb_hist;
struct json_object;

#define BB_TIOU_MAX_THREADS 64           /* = BB_MAX_THREADS */
#define BB_TIOU_MAX_FILES_PER_THREAD 16  /* t/io_uring's MAX_FDS */
#define BB_TIOU_MAX_FILES (BB_TIOU_MAX_THREADS * BB_TIOU_MAX_FILES_PER_THREAD)
#define BB_TIOU_MAX_DEPTH 32768          /* IORING_MAX_ENTRIES */

/* t/io_uring's defaults (its DEPTH, BATCH_SUBMIT, BATCH_COMPLETE, BS). */
#define BB_TIOU_DEF_DEPTH 128
#define BB_TIOU_DEF_BATCH 32
#define BB_TIOU_DEF_BS 4096

/* IORING_OP_NOP flags (sqe->nop_flags, include/uapi/linux/io_uring.h
 * since 6.12), spelled out because liburing 2.3's headers predate them. */
#define BB_IORING_NOP_INJECT_RESULT (1u << 0)
#define BB_IORING_NOP_FILE (1u << 1)
#define BB_IORING_NOP_FIXED_FILE (1u << 2)
#define BB_IORING_NOP_FIXED_BUFFER (1u << 3)

/* The t/io_uring release emulated: its two startup lines differ, and so
 * does its -N1 (tiou.h's head). */
enum bb_tiou_flavor {
	BB_TIOU_FIO_3_33 = 0, /* Debian 12's fio (the default): "file=%s,
				 node=%d" and "fixedbufs=%d/%d" (fixed
				 buffers / -D); -N1 plain NOPs, no FILE */
	BB_TIOU_FIO_CURRENT,  /* current fio: "file=%s, nfiles=%d, node=%d"
				 and "fixedbufs=%d"; -N1 NOPs carrying the
				 FILE (IORING_NOP_FILE...) */
};

enum bb_tiou_nop_kind {
	BB_TIOU_NOP_OFF = 0, /* -N0: reads */
	BB_TIOU_NOP_PLAIN,   /* -N1, fio 3.33: the bare NOP */
	BB_TIOU_NOP_FILE,    /* -N1 FILE..., current fio: nop_flags */
};

/* Notes bb_tiou_parse() leaves for the user (bb_tiou_notes()). */
enum {
	BB_TIOU_NOTE_D = 1u << 0,          /* -D given: ignored */
	BB_TIOU_NOTE_T = 1u << 1,          /* -T given: not saved to ./tsc-rate */
	BB_TIOU_NOTE_NOP_PLAIN = 1u << 2,  /* -N1, fio 3.33: plain NOPs */
	BB_TIOU_NOTE_NOP_FILES = 1u << 3,  /* -N1, current fio: file NOPs */
	BB_TIOU_NOTE_LAT = 1u << 4,        /* -t1: biobench's clock, in ns */
	BB_TIOU_NOTE_SEQ_SLICES = 1u << 5, /* -R0, threads sharing a file */
};

struct bb_tiou {
	/* t/io_uring's options (defaults in brackets) */
	unsigned depth;          /* -d [128] ring entries per thread */
	unsigned batch_submit;   /* -s [32] as given, 0 -> 1 */
	unsigned batch_complete; /* -c [32] as given, 0 -> 1 */
	unsigned bs;             /* -b [4096] bytes */
	bool polled;             /* -p [1] IORING_SETUP_IOPOLL (not for NOP) */
	bool fixedbufs;          /* -B [1] registered buffers, READ_FIXED */
	bool register_files;     /* -F [1] registered files */
	unsigned threads;        /* -n [1] submitter threads */
	bool nop;                /* -N [0] NOPs instead of reads */
	bool direct;             /* -O [1] O_DIRECT; 0 = buffered */
	bool stats;              /* -t [0] latency per submit batch */
	uint64_t tsc_rate;       /* -T [0 = unknown] Hz: only sets the units */
	unsigned runtime_s;      /* -r [0 = until interrupted] seconds */
	bool random;             /* -R [1] random offsets; 0 = sequential */
	bool register_ring;      /* -X [1] IORING_REGISTER_RING_FDS */
	bool numa_placement;     /* -P [0] run on the device's NUMA node */
	bool vectored;           /* -V [0] IORING_OP_READV when -B0 */
	bool restriction;        /* -e [0] restriction filter on opcodes */
	bool passthrough;        /* -u [0] NVMe passthrough (uring_cmd) */
	bool dma_map;            /* -D [0] fio 3.33 only: accepted, ignored */

	enum bb_tiou_flavor flavor; /* --flavor [3.33] (biobench's) */

	/* derived after the options (as t/io_uring does after getopt) */
	unsigned submit;         /* min(batch_submit, depth) */
	unsigned complete;       /* min(batch_complete, depth) */
	enum bb_tiou_nop_kind nop_kind;
	unsigned nop_flags;      /* BB_IORING_NOP_* for NOP_FILE, else 0 */

	/* FILEs, in command-line order (pointers into argv), and the files
	 * of each thread as t/io_uring spreads them: with more files than
	 * threads, file i goes to thread i % threads; with more threads,
	 * each file gets threads/files consecutive threads (the first
	 * threads%files files one more).  A thread rotates over its files,
	 * ceil(depth/nfiles) in flight per file. */
	const char *files[BB_TIOU_MAX_FILES];
	unsigned nfiles;
	uint16_t thread_files[BB_TIOU_MAX_THREADS][BB_TIOU_MAX_FILES_PER_THREAD];
	uint8_t thread_nfiles[BB_TIOU_MAX_THREADS];

	/* argv[rest] is the first of biobench's own long options ("--name"
	 * other than --flavor; argc when there are none); t/io_uring's
	 * options and FILEs may follow them */
	int rest;
	unsigned notes;          /* BB_TIOU_NOTE_* */
};

/* t/io_uring's defaults, no FILE. */
void bb_tiou_default(struct bb_tiou *t);

/* Parse a t/io_uring command line: argv[0] is the program or subcommand
 * name, then t/io_uring's options and FILEs in any order, "--" ending the
 * options, "--flavor 3.33|current" (or "--flavor=...") anywhere, and
 * biobench's own long options anywhere, "--" not ending them (skipped
 * with their values, as bb_options_words counts them, and left for
 * bb_tiou_apply_options; the first at t->rest).  Starts from
 * bb_tiou_default().
 * Returns 0, 1 if -h or -? was given (nothing else done), or -EINVAL with a
 * one-line message in err naming the option and what is allowed.  Refused:
 * -a1 (libaio), -S1 (preadv2), -H (hugetlbfs), unknown options, values
 * that are not decimal integers or out of range, no FILE without -N1 (or
 * with -N1 in the current flavor), more than 16 files on one thread, -N1
 * with -u1, a --flavor that is neither 3.33 nor current. */
int bb_tiou_parse(int argc, char **argv, struct bb_tiou *t, char *err,
		  size_t errlen);

/* The same on top of an already parsed t (a job variant overriding a
 * workload's line): options given replace t's, FILEs given replace t's
 * FILEs; the derived fields are computed again. */
int bb_tiou_parse_over(int argc, char **argv, struct bb_tiou *t, char *err,
		       size_t errlen);

/* Whether argv[i] is --flavor: 0 when not, else the words it takes (1
 * for "--flavor=X", 2 for "--flavor X") with *fl set, or -EINVAL with a
 * message for a missing or unknown value.  For callers that walk the long
 * options of t->rest. */
int bb_tiou_flavor_arg(int argc, char **argv, int i, enum bb_tiou_flavor *fl,
		       char *err, size_t errlen);

/* Switch a parsed line to flavor fl (its -N1 NOP kind is derived again):
 * 0 or -EINVAL as bb_tiou_parse. */
int bb_tiou_set_flavor(struct bb_tiou *t, enum bb_tiou_flavor fl, char *err,
		       size_t errlen);

/* "3.33", "current". */
const char *bb_tiou_flavor_name(enum bb_tiou_flavor fl);

/* t/io_uring's usage text for -h (the options accepted here, with their
 * defaults and what biobench does with each). */
void bb_tiou_usage(char *buf, size_t len, const char *prog);

/* The notes of t->notes, one line each ("tiou: -D is ignored: ..."), into
 * buf; returns the length (0 when there are none). */
size_t bb_tiou_notes(const struct bb_tiou *t, char *buf, size_t len);

/* Map onto biobench's run configuration: cfg must hold the defaults
 * (bb_config_default).  Sets target (every FILE, spread over the threads
 * as t/io_uring spreads them; "nop" for -N1, with nop_kind file when
 * FILEs are given, plain without), direct (-O), rw (randread / read),
 * bs, iodepth, threads, runtime_ns (-r; 0 = until interrupted),
 * number_ios 0, size and offset 0 (the whole file or device), engine
 * (uring_cmd for -u1), mode (poll for -p1 unless -N1, else irq),
 * fixedbufs, registerfiles, submit_batch, complete_batch, lat (-t1: per
 * batch, else off), model none (t/io_uring has no bio model),
 * register_ring (-X), restrict_ring (-e), vectored (-V1 with -B0 and not
 * -N1: t/io_uring issues READ_FIXED with -B1) and numa_place (-P).
 * Returns 0 or -EINVAL naming the t/io_uring option, for what biobench
 * cannot run: -b not a multiple of 512 or above 64 MiB, -p1 with -O0 on
 * reads (the kernel refuses polled buffered reads), -V1 with -u1
 * (vectored passthrough).  (-a1, -S1 and -H are refused by the parser.)
 * bb_config_check() is left to the caller (after biobench's own
 * options). */
int bb_tiou_to_config(const struct bb_tiou *t, struct bb_config *cfg,
		      char *err, size_t errlen);

/* biobench's long options of a line, those in argv[first..argc) (t->rest
 * for the line t was parsed from; the line's other words, t/io_uring's
 * options and FILEs, are skipped), on cfg, which holds
 * bb_tiou_to_config()'s mapping of t: a --flavor among them switches t
 * (bb_tiou_set_flavor) and maps it again, the others go through
 * bb_options_parse() with the line's targets, so bb_config_check() is
 * applied.  -P1 with --cpus is refused in t/io_uring's words.  0, 1 when
 * --help is among them, or -EINVAL / -ENOMEM with the message. */
int bb_tiou_apply_options(int argc, char **argv, int first, struct bb_tiou *t,
			  struct bb_config *cfg, char *err, size_t errlen);

/* The run options a configuration made from a line holds, as a JSON
 * object of run option fields (bb_config_to_json's names): the ones
 * bb_tiou_to_config sets (target, direct, rw, bs, iodepth, threads,
 * runtime, engine, mode, fixedbufs, registerfiles, submit_batch,
 * complete_batch, lat, nop_kind, model, register_ring, restrict_ring,
 * vectored, numa_place) and every other one that differs from the
 * defaults (what the line's long options set).  NULL when out of
 * memory. */
struct json_object *bb_tiou_options_json(const struct bb_config *cfg);

/* ------------------------------------------------------------------ */
/* Output lines, byte-compatible with t/io_uring's printf()s.  Each writes
 * one or more complete lines ('\n'-terminated) into buf like snprintf
 * (returns the length it needed; the output is cut at len - 1). */

/* "submitter=0, tid=1234, file=/mnt/f, node=-1" (3.33) or "...,
 * file=/mnt/f, nfiles=1, node=-1" (current): one per thread; file is the
 * last file of the thread, NULL printed "(null)" as glibc prints it (fio
 * 3.33 in NOP mode); node -1 unless -P1 found one. */
int bb_tiou_fmt_submitter(char *buf, size_t len, enum bb_tiou_flavor fl,
			  int index, int tid, const char *file,
			  unsigned nfiles, int node);

/* "polled=1, fixedbufs=1/0, register_files=1, buffered=0, QD=128" from
 * t's options (-D is ignored, so 3.33's "/%d" is 0). */
int bb_tiou_fmt_setup(char *buf, size_t len, enum bb_tiou_flavor fl,
		      const struct bb_tiou *t);

/* "Engine=io_uring, sq_ring=128, cq_ring=128": the ring sizes the kernel
 * set up (sq_entries, cq_entries of io_uring_params). */
int bb_tiou_fmt_engine(char *buf, size_t len, unsigned sq_entries,
		       unsigned cq_entries);

/* One second, summed over threads, as t/io_uring's main loop counts it:
 * done = SQEs io_uring_enter() accepted, errors = completions that failed
 * with -EIO or -ENODATA (current fio subtracts them; 0 for 3.33), calls =
 * io_uring_enter() calls, reaps = CQEs reaped. */
struct bb_tiou_tick {
	uint64_t done;
	uint64_t errors;
	uint64_t calls;
	uint64_t reaps;
};

/* "IOPS=1.23M, BW=4.80GiB/s, IOS/call=32/31": IOPS = done - errors as
 * x.xxM above 1000000, x.xxK above 100000, else an integer; BW (omitted
 * for -N1) in MiB/s as IOPS / (1048576 / bs) (integer division; IOPS *
 * (bs / 1048576) above 1 MiB), above 2000 printed as x.xxGiB/s of MiB/1000
 * (sic); IOS/call = done/calls and reaps/calls in integers, -1/-1 when no
 * call was made.  *iops (may be NULL) receives the IOPS, for Maximum. */
int bb_tiou_fmt_tick(char *buf, size_t len, const struct bb_tiou_tick *d,
		     unsigned bs, bool nop, uint64_t *iops);

/* "Exiting on timeout" (-r ran out) or "Exiting on signal" (SIGINT). */
int bb_tiou_fmt_exit(char *buf, size_t len, bool timeout);

/* "Maximum IOPS=1.23M": the best second, same thresholds as the tick. */
int bb_tiou_fmt_max_iops(char *buf, size_t len, uint64_t max_iops);

/* "1234: 5 IO errors" (current fio, after the run, per thread with
 * errors). */
int bb_tiou_fmt_io_errors(char *buf, size_t len, int tid, uint64_t errors);

/* The percentiles t/io_uring prints with -t1: 1, 5, 10, 20, ... 99.99. */
#define BB_TIOU_NPCT 17
extern const float bb_tiou_pct[BB_TIOU_NPCT];

/* t/io_uring's percentile values from a log-linear histogram of the same
 * layout as its own (biobench's struct bb_hist: PLAT_BITS 6, 1856
 * buckets): the value of the first bucket whose running count reaches
 * pct/100 * total, as bucket midpoints (not clamped to min/max the way
 * bb_hist_percentile() does).  vals in the histogram's unit (ns). */
void bb_tiou_percentiles(const struct bb_hist *h, uint64_t vals[BB_TIOU_NPCT]);

/* "1234: Latency percentiles:\n    percentiles (nsec):\n     |  1.0000th=[
 * 1234], ..." from vals: unit "tsc ticks" when ticks (t/io_uring without
 * a TSC rate), else nsec, or usec (rounded up) when the smallest value is
 * above 2000 and the largest above 99999. */
int bb_tiou_fmt_latency(char *buf, size_t len, int tid,
			const uint64_t vals[BB_TIOU_NPCT], bool ticks);

/* ------------------------------------------------------------------ */
/* A job's "tiou" string as words. */

struct bb_tiou_argv {
	int argc;     /* argv[0] is "tiou" */
	char **argv;  /* NULL-terminated, into one allocation */
};

/* Split line into shell-like words: blanks separate, '...' is literal,
 * "..." keeps blanks and takes \" \\ \$ \` escapes, a backslash outside
 * quotes escapes the next character.  Nothing is expanded: an unquoted
 * $ ` * ? | & ; < > ( ) is refused (-EINVAL, one line naming it), as are
 * an unterminated quote and a leading "taskset"/"numactl" (pin with the
 * job's cpus).  A leading word naming t/io_uring ("t/io_uring",
 * "./io_uring") is dropped.  Returns 0, -EINVAL or -ENOMEM; free with
 * bb_tiou_argv_free(). */
int bb_tiou_args_split(const char *line, struct bb_tiou_argv *out, char *err,
		       size_t errlen);
void bb_tiou_argv_free(struct bb_tiou_argv *a);

#endif
