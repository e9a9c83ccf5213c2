/* test_tiou.c - t/io_uring's command line (biobench/tiou.h): every option
 * in both spellings, the defaults, t/io_uring's rules (0 batches, clamping,
 * files over threads, NOP kinds), bad values and unknown options with
 * their exact messages; the mapping onto struct bb_config; and a job's
 * "tiou" string as words. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "biobench/tiou.h"
#include "config.h"
#include "options.h"

/* ------------------------------------------------------------------ */
/* helpers */

#define MAX_ARGS 64

struct args {
	char buf[2048];
	char *argv[MAX_ARGS];
	int argc;
};

/* Space-separated words (no quoting: independent of bb_tiou_args_split),
 * after argv[0] "tiou". */
static void split(struct args *a, const char *s)
{
	snprintf(a->buf, sizeof(a->buf), "%s", s);
	a->argc = 0;
	a->argv[a->argc++] = "tiou";
	for (char *tok = strtok(a->buf, " "); tok; tok = strtok(NULL, " "))
		a->argv[a->argc++] = tok;
	a->argv[a->argc] = NULL;
}

static struct bb_tiou T; /* large: not on the stack */
static struct {
	struct args a; /* the words T's pointers point into */
} K;

static int parse(const char *s, char *err, size_t errlen)
{
	split(&K.a, s);
	return bb_tiou_parse(K.a.argc, K.a.argv, &T, err, errlen);
}

#define CHECK(cond, ...)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			print_error(__VA_ARGS__);                         \
			fail();                                           \
		}                                                         \
	} while (0)

/* ------------------------------------------------------------------ */
/* defaults */

static void test_defaults(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(parse("/mnt/f", err, sizeof(err)), 0);
	assert_int_equal(T.depth, 128);
	assert_int_equal(T.batch_submit, 32);
	assert_int_equal(T.batch_complete, 32);
	assert_int_equal(T.submit, 32);
	assert_int_equal(T.complete, 32);
	assert_int_equal(T.bs, 4096);
	assert_true(T.polled);
	assert_true(T.fixedbufs);
	assert_true(T.register_files);
	assert_int_equal(T.threads, 1);
	assert_false(T.nop);
	assert_true(T.direct);
	assert_false(T.stats);
	assert_int_equal(T.tsc_rate, 0);
	assert_int_equal(T.runtime_s, 0);
	assert_true(T.random);
	assert_true(T.register_ring);
	assert_false(T.numa_placement);
	assert_false(T.vectored);
	assert_false(T.restriction);
	assert_false(T.passthrough);
	assert_false(T.dma_map);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_OFF);
	assert_int_equal(T.nop_flags, 0);
	assert_int_equal(T.nfiles, 1);
	assert_string_equal(T.files[0], "/mnt/f");
	assert_int_equal(T.thread_nfiles[0], 1);
	assert_int_equal(T.thread_files[0][0], 0);
	assert_int_equal(T.rest, K.a.argc);
	assert_int_equal(T.notes, 0);
	assert_string_equal(err, "");
}

/* ------------------------------------------------------------------ */
/* every option, both spellings */

enum fkind { FB, FU, F64 };

struct opt_case {
	const char *args;
	size_t off;
	enum fkind kind;
	uint64_t want;
};

#define OFF(f) offsetof(struct bb_tiou, f)

static const struct opt_case opt_cases[] = {
	{ "-d64 F", OFF(depth), FU, 64 },
	{ "-d 64 F", OFF(depth), FU, 64 },
	{ "-d32768 F", OFF(depth), FU, 32768 },
	{ "-d1 F", OFF(depth), FU, 1 },
	{ "-s8 F", OFF(batch_submit), FU, 8 },
	{ "-s 8 F", OFF(batch_submit), FU, 8 },
	{ "-s0 F", OFF(batch_submit), FU, 1 },   /* 0 means 1 */
	{ "-s 0 F", OFF(submit), FU, 1 },
	{ "-c4 F", OFF(batch_complete), FU, 4 },
	{ "-c 4 F", OFF(batch_complete), FU, 4 },
	{ "-c0 F", OFF(batch_complete), FU, 1 },
	{ "-c0 F", OFF(complete), FU, 1 },
	{ "-b512 F", OFF(bs), FU, 512 },
	{ "-b 65536 F", OFF(bs), FU, 65536 },
	{ "-p0 F", OFF(polled), FB, 0 },
	{ "-p 0 F", OFF(polled), FB, 0 },
	{ "-p1 F", OFF(polled), FB, 1 },
	{ "-p2 F", OFF(polled), FB, 1 },        /* !!atoi() */
	{ "-p -1 F", OFF(polled), FB, 1 },
	{ "-p-1 F", OFF(polled), FB, 1 },
	{ "-B0 F", OFF(fixedbufs), FB, 0 },
	{ "-B 0 F", OFF(fixedbufs), FB, 0 },
	{ "-F0 F", OFF(register_files), FB, 0 },
	{ "-F 0 F", OFF(register_files), FB, 0 },
	{ "-n4 F", OFF(threads), FU, 4 },
	{ "-n 64 F", OFF(threads), FU, 64 },
	{ "-N1 F", OFF(nop), FB, 1 },
	{ "-N 1", OFF(nop), FB, 1 },
	{ "-O0 F", OFF(direct), FB, 0 },
	{ "-O 0 F", OFF(direct), FB, 0 },
	{ "-O7 F", OFF(direct), FB, 1 },        /* buffered = !atoi() */
	{ "-t1 F", OFF(stats), FB, 1 },
	{ "-t 1 F", OFF(stats), FB, 1 },
	{ "-T2000000000 F", OFF(tsc_rate), F64, 2000000000 },
	{ "-T 3000000000 F", OFF(tsc_rate), F64, 3000000000ull },
	{ "-r5 F", OFF(runtime_s), FU, 5 },
	{ "-r 0 F", OFF(runtime_s), FU, 0 },
	{ "-R0 F", OFF(random), FB, 0 },
	{ "-R 0 F", OFF(random), FB, 0 },
	{ "-X0 F", OFF(register_ring), FB, 0 },
	{ "-X 0 F", OFF(register_ring), FB, 0 },
	{ "-P1 F", OFF(numa_placement), FB, 1 },
	{ "-P 1 F", OFF(numa_placement), FB, 1 },
	{ "-V1 F", OFF(vectored), FB, 1 },
	{ "-V 1 F", OFF(vectored), FB, 1 },
	{ "-e1 F", OFF(restriction), FB, 1 },
	{ "-e 1 F", OFF(restriction), FB, 1 },
	{ "-u1 F", OFF(passthrough), FB, 1 },
	{ "-u 1 F", OFF(passthrough), FB, 1 },
	{ "-D1 F", OFF(dma_map), FB, 1 },
	{ "-D 0 F", OFF(dma_map), FB, 0 },
	/* -a0 and -S0 are t/io_uring's defaults: accepted */
	{ "-a0 F", OFF(depth), FU, 128 },
	{ "-S 0 F", OFF(depth), FU, 128 },
	/* options after FILEs (getopt permutes), the last one wins */
	{ "F -d16", OFF(depth), FU, 16 },
	{ "-d16 F -d32", OFF(depth), FU, 32 },
	/* batches clamped to the depth whatever the order */
	{ "-s256 -d64 F", OFF(submit), FU, 64 },
	{ "-d64 -s256 F", OFF(submit), FU, 64 },
	{ "-d64 -s256 F", OFF(batch_submit), FU, 256 },
	{ "-c100 -d16 F", OFF(complete), FU, 16 },
	{ "-d16 -c8 F", OFF(complete), FU, 8 },
};

static uint64_t field(const struct bb_tiou *t, size_t off, enum fkind k)
{
	const char *p = (const char *)t + off;

	switch (k) {
	case FB: return *(const bool *)p;
	case FU: return *(const unsigned *)p;
	default: return *(const uint64_t *)p;
	}
}

static void test_options(void **state)
{
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(opt_cases) / sizeof(opt_cases[0]); i++) {
		const struct opt_case *c = &opt_cases[i];
		int r = parse(c->args, err, sizeof(err));

		CHECK(r == 0, "'%s': returned %d (%s)\n", c->args, r, err);
		CHECK(field(&T, c->off, c->kind) == c->want,
		      "'%s': field at %zu is %llu, want %llu\n", c->args,
		      c->off, (unsigned long long)field(&T, c->off, c->kind),
		      (unsigned long long)c->want);
	}
}

/* The kernel threads' own line, and help. */
static void test_kernel_line(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(parse("-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 /mnt/testfile",
			       err, sizeof(err)), 0);
	assert_false(T.polled);
	assert_int_equal(T.depth, 128);
	assert_int_equal(T.bs, 4096);
	assert_int_equal(T.submit, 1);
	assert_int_equal(T.complete, 1);
	assert_true(T.register_files);
	assert_true(T.fixedbufs);
	assert_true(T.random);
	assert_true(T.register_ring);
	assert_int_equal(T.threads, 1);
	assert_true(T.numa_placement);
	assert_true(T.direct);
	assert_string_equal(T.files[0], "/mnt/testfile");
}

static void test_help_and_end(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(parse("-h", err, sizeof(err)), 1);
	assert_int_equal(parse("-?", err, sizeof(err)), 1);
	assert_int_equal(parse("-d16 -h F", err, sizeof(err)), 1);
	/* after "--" everything is a FILE, even "-d16" */
	assert_int_equal(parse("-d8 -- -d16 F", err, sizeof(err)), 0);
	assert_int_equal(T.depth, 8);
	assert_int_equal(T.nfiles, 2);
	assert_string_equal(T.files[0], "-d16");
	assert_string_equal(T.files[1], "F");
	/* a lone "-" is a FILE, as for getopt */
	assert_int_equal(parse("-", err, sizeof(err)), 0);
	assert_string_equal(T.files[0], "-");
	/* biobench's long options from the first "--name" on */
	assert_int_equal(parse("-d16 F --json --bio-cache off", err,
			       sizeof(err)), 0);
	assert_int_equal(T.rest, 3);
	assert_string_equal(K.a.argv[T.rest], "--json");
	assert_int_equal(T.nfiles, 1);
	assert_int_equal(parse("-d16 -- F --bio-cache=off", err, sizeof(err)),
			 0);
	assert_int_equal(T.rest, 4);
	assert_int_equal(T.nfiles, 1);
}

/* ------------------------------------------------------------------ */
/* bad values and unknown options: exact one-line messages */

struct bad_case {
	const char *args;
	const char *msg;
};

static const struct bad_case bad_cases[] = {
	{ "-d0 F", "-d: '0' is out of range 1..32768 (queue depth)" },
	{ "-d 40000 F", "-d: '40000' is out of range 1..32768 (queue depth)" },
	{ "-dx F", "-d: 'x' is not a decimal integer (queue depth, 1..32768)" },
	{ "-d12x F", "-d: '12x' is not a decimal integer (queue depth, 1..32768); t/io_uring reads '12x' as 12" },
	{ "-b4k F", "-b: '4k' is not a decimal integer (block size in bytes, 1..2147483647); t/io_uring reads '4k' as 4" },
	{ "-b0 F", "-b: '0' is out of range 1..2147483647 (block size in bytes)" },
	{ "-s-1 F", "-s: '-1' is out of range 0..2147483647 (submit batch, 0 means 1)" },
	{ "-c -2 F", "-c: '-2' is out of range 0..2147483647 (complete batch, 0 means 1)" },
	{ "-n0 F", "-n: '0' is out of range 1..64 (threads)" },
	{ "-n65 F", "-n: '65' is out of range 1..64 (threads)" },
	{ "-r-1 F", "-r: '-1' is out of range 0..2147483647 (runtime in seconds, 0 = until interrupted)" },
	{ "-r1s F", "-r: '1s' is not a decimal integer (runtime in seconds, 0 = until interrupted, 0..2147483647); t/io_uring reads '1s' as 1" },
	{ "-T-5 F", "-T: '-5' is not a decimal integer (TSC rate in Hz)" },
	{ "-T3GHz F", "-T: '3GHz' is not a decimal integer (TSC rate in Hz); t/io_uring reads '3GHz' as 3" },
	{ "-pyes F", "-p: 'yes' is not an integer (0 = off, other = on)" },
	{ "-O true F", "-O: 'true' is not an integer (0 = off, other = on)" },
	{ "-B1x F", "-B: '1x' is not an integer (0 = off, other = on); t/io_uring reads '1x' as 1" },
	{ "-a1 F", "-a: legacy libaio (-a1) is not supported by biobench tiou (-a0 is accepted)" },
	{ "-a 1 F", "-a: legacy libaio (-a1) is not supported by biobench tiou (-a0 is accepted)" },
	{ "-S1 F", "-S: synchronous preadv2 (-S1) is not supported by biobench tiou (-S0 is accepted)" },
	{ "-Sx F", "-S: 'x' is not an integer (0 = off, other = on)" },
	{ "-H /dev/hugepages/buf F", "-H: hugetlbfs buffers (-H) are not supported by biobench tiou" },
	{ "-z1 F", "-z: unknown option (t/io_uring's options: -d -s -c -b -p -B -F -n -N -O -t -T -r -R -X -P -V -e -u -D -a -S -H -h)" },
	{ "-q F", "-q: unknown option (t/io_uring's options: -d -s -c -b -p -B -F -n -N -O -t -T -r -R -X -P -V -e -u -D -a -S -H -h)" },
	{ "F -d", "-d: needs a value (queue depth)" },
	{ "F -p", "-p: needs a value (polled IO)" },
	{ "", "FILE: none given (t/io_uring reads files and block devices: tiou [options] FILE...; -N1 alone issues plain NOPs)" },
	{ "-d16 -p0", "FILE: none given (t/io_uring reads files and block devices: tiou [options] FILE...; -N1 alone issues plain NOPs)" },
	{ "-N1 -u1 F", "-u1: NVMe passthrough and -N1 (no-op requests) do not combine; give one of them" },
	{ "-n1 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", "FILE: more than 16 files on thread 0 (17 files, -n1); t/io_uring drops the rest: give more threads or fewer files" },
};

static void test_bad(void **state)
{
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
		const struct bad_case *c = &bad_cases[i];
		int r = parse(c->args, err, sizeof(err));

		CHECK(r == -EINVAL, "'%s': returned %d, want -EINVAL\n",
		      c->args, r);
		CHECK(!strcmp(err, c->msg), "'%s':\n  got  '%s'\n  want '%s'\n",
		      c->args, err, c->msg);
		CHECK(!strchr(err, '\n'), "'%s': message has a newline\n",
		      c->args);
	}
}

/* An empty value, which strtok cannot produce. */
static void test_empty_value(void **state)
{
	char a0[] = "tiou", a1[] = "-d", a2[] = "", a3[] = "F";
	char *argv[] = { a0, a1, a2, a3, NULL };
	char err[256];

	(void)state;
	assert_int_equal(bb_tiou_parse(4, argv, &T, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "-d: '' is not a decimal integer (queue depth, 1..32768)");
}

/* ------------------------------------------------------------------ */
/* layering (a variant over a workload's line) */

static void test_parse_over(void **state)
{
	struct args b;
	char err[256];

	(void)state;
	assert_int_equal(parse("-d16 -s8 -p0 F1", err, sizeof(err)), 0);
	assert_int_equal(T.submit, 8);
	split(&b, "-d4 F2 F3");
	assert_int_equal(bb_tiou_parse_over(b.argc, b.argv, &T, err,
					    sizeof(err)), 0);
	assert_int_equal(T.depth, 4);
	assert_int_equal(T.batch_submit, 8); /* kept as given */
	assert_int_equal(T.submit, 4);       /* clamped again */
	assert_false(T.polled);              /* kept */
	assert_int_equal(T.nfiles, 2);       /* replaced */
	assert_string_equal(T.files[0], "F2");
	split(&b, "-d64");
	assert_int_equal(bb_tiou_parse_over(b.argc, b.argv, &T, err,
					    sizeof(err)), 0);
	assert_int_equal(T.submit, 8);       /* unclamped again */
	assert_int_equal(T.nfiles, 2);       /* no FILE given: kept */
	assert_string_equal(T.files[1], "F3");
}

/* ------------------------------------------------------------------ */
/* files over threads, as t/io_uring's main() spreads them */

static void test_spread(void **state)
{
	char err[256];

	(void)state;
	/* one file, four threads: every thread reads it */
	assert_int_equal(parse("-n4 F", err, sizeof(err)), 0);
	for (int s = 0; s < 4; s++) {
		assert_int_equal(T.thread_nfiles[s], 1);
		assert_int_equal(T.thread_files[s][0], 0);
	}
	assert_int_equal(T.thread_nfiles[4], 0);
	/* three files, two threads: round robin */
	assert_int_equal(parse("-n2 A B C", err, sizeof(err)), 0);
	assert_int_equal(T.thread_nfiles[0], 2);
	assert_int_equal(T.thread_files[0][0], 0);
	assert_int_equal(T.thread_files[0][1], 2);
	assert_int_equal(T.thread_nfiles[1], 1);
	assert_int_equal(T.thread_files[1][0], 1);
	/* two files, five threads: 3 threads on A, 2 on B */
	assert_int_equal(parse("-n5 A B", err, sizeof(err)), 0);
	for (int s = 0; s < 5; s++) {
		assert_int_equal(T.thread_nfiles[s], 1);
		assert_int_equal(T.thread_files[s][0], s < 3 ? 0 : 1);
	}
	/* sixteen files on one thread is t/io_uring's maximum */
	assert_int_equal(parse("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16", err,
			       sizeof(err)), 0);
	assert_int_equal(T.thread_nfiles[0], 16);
	assert_int_equal(T.thread_files[0][15], 15);
	/* 17 files on two threads fit (9 + 8) */
	assert_int_equal(parse("-n2 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17",
			       err, sizeof(err)), 0);
	assert_int_equal(T.thread_nfiles[0], 9);
	assert_int_equal(T.thread_nfiles[1], 8);
}

/* ------------------------------------------------------------------ */
/* NOP kinds and notes */

static void test_nop_and_notes(void **state)
{
	char err[256], notes[1024];

	(void)state;
	assert_int_equal(parse("-N1", err, sizeof(err)), 0);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_PLAIN);
	assert_int_equal(T.nop_flags, 0);
	assert_int_equal(T.nfiles, 0);
	assert_int_equal(T.notes, BB_TIOU_NOTE_NOP_PLAIN);
	assert_true(bb_tiou_notes(&T, notes, sizeof(notes)) > 0);
	assert_string_equal(notes, "tiou: -N1 without FILE issues plain NOPs, as fio 3.33 does (current fio needs a FILE and sends IORING_NOP_FILE NOPs)\n");

	assert_int_equal(parse("-N1 F", err, sizeof(err)), 0);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_FILE);
	assert_int_equal(T.nop_flags, BB_IORING_NOP_FILE |
				      BB_IORING_NOP_INJECT_RESULT |
				      BB_IORING_NOP_FIXED_FILE |
				      BB_IORING_NOP_FIXED_BUFFER);
	assert_int_equal(T.nop_flags, 0xf); /* the uapi values */
	assert_int_equal(T.notes, BB_TIOU_NOTE_NOP_FILES);

	assert_int_equal(parse("-N1 -F0 -B0 F", err, sizeof(err)), 0);
	assert_int_equal(T.nop_flags, BB_IORING_NOP_FILE |
				      BB_IORING_NOP_INJECT_RESULT);
	assert_int_equal(parse("-N1 -F0 F", err, sizeof(err)), 0);
	assert_int_equal(T.nop_flags, 0xb);

	/* -N0 after -N1: reads again, note gone */
	assert_int_equal(parse("-N1 -N0 F", err, sizeof(err)), 0);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_OFF);
	assert_int_equal(T.notes, 0);
	assert_int_equal(bb_tiou_notes(&T, notes, sizeof(notes)), 0);
	assert_string_equal(notes, "");

	assert_int_equal(parse("-D1 -T1000 F", err, sizeof(err)), 0);
	assert_int_equal(T.notes, BB_TIOU_NOTE_D | BB_TIOU_NOTE_T);
	bb_tiou_notes(&T, notes, sizeof(notes));
	assert_string_equal(notes,
		"tiou: -D is ignored: fio 3.33's DMA-mapped fixed buffers needed an out-of-tree kernel patch, and later fio removed the option\n"
		"tiou: -T is not written to ./tsc-rate: biobench measures latency in nanoseconds and needs no TSC rate\n");
	/* a short buffer: cut, the full length returned */
	assert_int_equal(bb_tiou_notes(&T, notes, 10), strlen(
		"tiou: -D is ignored: fio 3.33's DMA-mapped fixed buffers needed an out-of-tree kernel patch, and later fio removed the option\n"
		"tiou: -T is not written to ./tsc-rate: biobench measures latency in nanoseconds and needs no TSC rate\n"));
	assert_string_equal(notes, "tiou: -D ");
}

static void test_usage(void **state)
{
	char buf[4096], want[16];
	const char *letters = "dscbpBFnNOtTrRXPVeuDaSHh";

	(void)state;
	bb_tiou_usage(buf, sizeof(buf), "biobench tiou");
	assert_non_null(strstr(buf, "biobench tiou [options] [--] FILE...\n"));
	for (const char *l = letters; *l; l++) {
		snprintf(want, sizeof(want), "\n -%c ", *l);
		CHECK(strstr(buf, want), "usage lacks -%c:\n%s", *l, buf);
	}
	assert_non_null(strstr(buf, " -p <bool> : Polled IO, default 1\n"));
	assert_non_null(strstr(buf, " -d <int>  : IO Depth, default 128\n"));
}

/* ------------------------------------------------------------------ */
/* onto struct bb_config */

static int to_cfg(const char *args, struct bb_config *cfg, unsigned *um,
		  char *err, size_t errlen)
{
	int r = parse(args, err, errlen);

	if (r)
		return r;
	bb_config_default(cfg);
	return bb_tiou_to_config(&T, cfg, um, err, errlen);
}

static void test_to_config(void **state)
{
	static struct bb_config cfg;
	char err[256];
	unsigned um;

	(void)state;
	assert_int_equal(to_cfg("-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 /mnt/testfile",
				&cfg, &um, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "/mnt/testfile");
	assert_true(cfg.direct);
	assert_int_equal(cfg.rw, BB_RW_RANDREAD);
	assert_int_equal(cfg.bs, 4096);
	assert_int_equal(cfg.iodepth, 128);
	assert_int_equal(cfg.threads, 1);
	assert_int_equal(cfg.size, 0);
	assert_int_equal(cfg.runtime_ns, 0);
	assert_int_equal(cfg.number_ios, 0);
	assert_int_equal(cfg.engine, BB_ENGINE_IO_URING);
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_true(cfg.fixedbufs);
	assert_true(cfg.registerfiles);
	assert_int_equal(cfg.submit_batch, 1);
	assert_int_equal(cfg.complete_batch, 1);
	assert_int_equal(cfg.lat, BB_LAT_OFF); /* t/io_uring's -t0 */
	assert_int_equal(um, BB_TIOU_UM_UNTIL_SIGNAL | BB_TIOU_UM_NUMA);

	/* polled by default; -t1 is biobench's per-batch latency */
	assert_int_equal(to_cfg("-r5 -t1 -R0 -O1 -d16 -s32 -c64 -n3 -b8192 /dev/x",
				&cfg, &um, err, sizeof(err)), 0);
	assert_int_equal(cfg.mode, BB_MODE_POLL);
	assert_int_equal(cfg.runtime_ns, 5000000000ull);
	assert_int_equal(cfg.lat, BB_LAT_BATCH);
	assert_int_equal(cfg.rw, BB_RW_READ);
	assert_int_equal(cfg.submit_batch, 16);
	assert_int_equal(cfg.complete_batch, 16);
	assert_int_equal(cfg.threads, 3);
	assert_int_equal(cfg.bs, 8192);
	assert_int_equal(um, 0);
	/* what the mapping produced passes biobench's own checks */
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);

	/* buffered reads with -p0 */
	assert_int_equal(to_cfg("-p0 -O0 -r1 F", &cfg, &um, err, sizeof(err)), 0);
	assert_false(cfg.direct);
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);
	assert_false(cfg.direct);

	/* NOPs: never polled (t/io_uring sets no IOPOLL for -N1) */
	assert_int_equal(to_cfg("-N1 -r1", &cfg, &um, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_int_equal(um, 0);
	assert_int_equal(to_cfg("-N1 -r1 /mnt/f", &cfg, &um, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(um, BB_TIOU_UM_NOP_FILE);

	/* passthrough */
	assert_int_equal(to_cfg("-u1 -r1 /dev/ng0n1", &cfg, &um, err, sizeof(err)), 0);
	assert_int_equal(cfg.engine, BB_ENGINE_URING_CMD);
	assert_int_equal(cfg.mode, BB_MODE_POLL);

	/* what the engine cannot do yet */
	assert_int_equal(to_cfg("-X0 -e1 -V1 -B0 -r1 -p0 A B", &cfg, &um, err,
				sizeof(err)), 0);
	assert_int_equal(um, BB_TIOU_UM_RING_UNREG | BB_TIOU_UM_RESTRICT |
			     BB_TIOU_UM_VECTORED | BB_TIOU_UM_FILES);
	assert_string_equal(cfg.target, "A");
	assert_int_equal(to_cfg("-V1 -r1 -p0 A", &cfg, &um, err, sizeof(err)), 0);
	assert_int_equal(um, 0); /* -B1 reads READ_FIXED whatever -V says */
	assert_int_equal(to_cfg("-r1 -p0 A", &cfg, NULL, err, sizeof(err)), 0);

	for (unsigned b = 0; b < BB_TIOU_UM__COUNT; b++)
		assert_string_not_equal(bb_tiou_unmapped_name(1u << b), "?");
	assert_string_equal(bb_tiou_unmapped_name(1u << BB_TIOU_UM__COUNT), "?");
}

static void test_to_config_bad(void **state)
{
	static const struct bad_case cases[] = {
		{ "-p0 -b1000 F", "-b: 1000 is not a multiple of 512 (biobench issues whole sectors)" },
		{ "-p0 -b134217728 F", "-b: 134217728 is above 64 MiB (67108864)" },
		{ "-O0 F", "-p1: polled IO needs O_DIRECT but -O0 asks for buffered reads (the kernel fails them with EOPNOTSUPP); give -p0 with -O0" },
		{ "-u1 -V1 /dev/ng0n1", "-V1: vectored NVMe passthrough (NVME_URING_CMD_IO_VEC) is not supported by biobench tiou" },
	};
	static struct bb_config cfg;
	char err[256];
	unsigned um;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = to_cfg(cases[i].args, &cfg, &um, err, sizeof(err));

		CHECK(r == -EINVAL, "'%s': returned %d\n", cases[i].args, r);
		CHECK(!strcmp(err, cases[i].msg), "'%s':\n  got  '%s'\n  want '%s'\n",
		      cases[i].args, err, cases[i].msg);
	}
	/* -O0 is fine for NOPs (nothing is read) */
	assert_int_equal(to_cfg("-N1 -O0", &cfg, &um, err, sizeof(err)), 0);
}

/* ------------------------------------------------------------------ */
/* a job's "tiou" string */

static void test_split(void **state)
{
	struct bb_tiou_argv a;
	char err[256];

	(void)state;
	assert_int_equal(bb_tiou_args_split("-p0 -d128  -b4096\t/mnt/f\n", &a,
					    err, sizeof(err)), 0);
	assert_int_equal(a.argc, 5);
	assert_string_equal(a.argv[0], "tiou");
	assert_string_equal(a.argv[1], "-p0");
	assert_string_equal(a.argv[2], "-d128");
	assert_string_equal(a.argv[3], "-b4096");
	assert_string_equal(a.argv[4], "/mnt/f");
	assert_null(a.argv[5]);
	bb_tiou_argv_free(&a);
	assert_null(a.argv);

	assert_int_equal(bb_tiou_args_split("'/mnt/my file' \"a\\\"b\\\\c\" c\\ d '' \"x'y\" '\"' \"*\" \"a\\nb\"",
					    &a, err, sizeof(err)), 0);
	assert_int_equal(a.argc, 9);
	assert_string_equal(a.argv[1], "/mnt/my file");
	assert_string_equal(a.argv[2], "a\"b\\c");
	assert_string_equal(a.argv[3], "c d");
	assert_string_equal(a.argv[4], "");
	assert_string_equal(a.argv[5], "x'y");
	assert_string_equal(a.argv[6], "\"");
	assert_string_equal(a.argv[7], "*");
	assert_string_equal(a.argv[8], "a\\nb"); /* POSIX: \n stays */
	bb_tiou_argv_free(&a);

	/* adjacent pieces form one word */
	assert_int_equal(bb_tiou_args_split("-d'12'8 a\"b\"'c'", &a, err,
					    sizeof(err)), 0);
	assert_int_equal(a.argc, 3);
	assert_string_equal(a.argv[1], "-d128");
	assert_string_equal(a.argv[2], "abc");
	bb_tiou_argv_free(&a);

	/* the program as pasted is dropped */
	assert_int_equal(bb_tiou_args_split("t/io_uring -p0 F", &a, err,
					    sizeof(err)), 0);
	assert_int_equal(a.argc, 3);
	assert_string_equal(a.argv[1], "-p0");
	bb_tiou_argv_free(&a);
	assert_int_equal(bb_tiou_args_split("/usr/src/fio/t/io_uring F", &a,
					    err, sizeof(err)), 0);
	assert_int_equal(a.argc, 2);
	assert_string_equal(a.argv[1], "F");
	bb_tiou_argv_free(&a);
	assert_int_equal(bb_tiou_args_split("io_uring_file", &a, err,
					    sizeof(err)), 0);
	assert_int_equal(a.argc, 2);
	assert_string_equal(a.argv[1], "io_uring_file");
	bb_tiou_argv_free(&a);

	assert_int_equal(bb_tiou_args_split("", &a, err, sizeof(err)), 0);
	assert_int_equal(a.argc, 1);
	assert_null(a.argv[1]);
	bb_tiou_argv_free(&a);
	assert_int_equal(bb_tiou_args_split("   ", &a, err, sizeof(err)), 0);
	assert_int_equal(a.argc, 1);
	bb_tiou_argv_free(&a);

	/* split, then parse: the kernel threads' line */
	assert_int_equal(bb_tiou_args_split("t/io_uring -p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 /mnt/testfile",
					    &a, err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_parse(a.argc, a.argv, &T, err, sizeof(err)), 0);
	assert_int_equal(T.submit, 1);
	assert_false(T.polled);
	assert_string_equal(T.files[0], "/mnt/testfile");
	bb_tiou_argv_free(&a);
}

static void test_split_bad(void **state)
{
	static const struct bad_case cases[] = {
		{ "$HOME/f", "tiou: '$' at column 1: a t/io_uring line is not expanded by a shell here; write the value out (or quote it)" },
		{ "-d128 /mnt/*", "tiou: '*' at column 12: a t/io_uring line is not expanded by a shell here; write the value out (or quote it)" },
		{ "-d`nproc` F", "tiou: '`' at column 3: a t/io_uring line is not expanded by a shell here; write the value out (or quote it)" },
		{ "F; rm x", "tiou: ';' at column 2: a t/io_uring line is not expanded by a shell here; write the value out (or quote it)" },
		{ "F > out", "tiou: '>' at column 3: a t/io_uring line is not expanded by a shell here; write the value out (or quote it)" },
		{ "-d1 'abc", "tiou: unterminated ' at column 5" },
		{ "\"abc", "tiou: unterminated \" at column 1" },
		{ "abc\\", "tiou: a backslash ends the line" },
		{ "taskset -c 6 t/io_uring -p0 F", "tiou: 'taskset' is not part of a t/io_uring line: pin the threads with biobench's cpus instead" },
		{ "numactl -N0 t/io_uring F", "tiou: 'numactl' is not part of a t/io_uring line: pin the threads with biobench's cpus instead" },
	};
	struct bb_tiou_argv a;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = bb_tiou_args_split(cases[i].args, &a, err, sizeof(err));

		CHECK(r == -EINVAL, "'%s': returned %d\n", cases[i].args, r);
		CHECK(!strcmp(err, cases[i].msg), "'%s':\n  got  '%s'\n  want '%s'\n",
		      cases[i].args, err, cases[i].msg);
		CHECK(a.argv == NULL && a.argc == 0, "'%s': argv left set\n",
		      cases[i].args);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_options),
		cmocka_unit_test(test_kernel_line),
		cmocka_unit_test(test_help_and_end),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_empty_value),
		cmocka_unit_test(test_parse_over),
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_nop_and_notes),
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_to_config),
		cmocka_unit_test(test_to_config_bad),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
