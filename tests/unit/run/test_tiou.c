// SPDX-License-Identifier: GPL-2.0-only
/* test_tiou.c - t/io_uring's command line (biobench/tiou.h): every option
 * in both spellings, the defaults, t/io_uring's rules (0 batches, clamping,
 * files over threads, NOP kinds), bad values and unknown options with
 * their exact messages; the mapping onto struct bb_config; a job's "tiou"
 * string as words; and t/io_uring's output lines byte for byte (the
 * expected strings follow the printf()s of fio 3.33's and current fio's
 * t/io_uring.c; the latency blocks are lines the real fio 3.33 t/io_uring
 * printed on this machine). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <biobench/tiou.h>
#include <biobench/config.h>
#include <biobench/options.h>
#include <biobench/stats.h>

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
	/* fio 3.33 (the default flavor): plain NOPs, a FILE or not */
	assert_int_equal(parse("-N1", err, sizeof(err)), 0);
	assert_int_equal(T.flavor, BB_TIOU_FIO_3_33);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_PLAIN);
	assert_int_equal(T.nop_flags, 0);
	assert_int_equal(T.nfiles, 0);
	assert_int_equal(T.notes, BB_TIOU_NOTE_NOP_PLAIN);
	assert_true(bb_tiou_notes(&T, notes, sizeof(notes)) > 0);
	assert_string_equal(notes, "tiou: -N1 issues plain NOPs and opens no FILE, as fio 3.33 does (--flavor current: NOPs carrying the FILE, as current fio)\n");
	assert_int_equal(parse("-N1 F", err, sizeof(err)), 0);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_PLAIN);
	assert_int_equal(T.nfiles, 1);

	/* current fio: the NOP carries the file and the buffer */
	assert_int_equal(parse("-N1 --flavor current F", err, sizeof(err)), 0);
	assert_int_equal(T.flavor, BB_TIOU_FIO_CURRENT);
	assert_int_equal(T.rest, K.a.argc); /* --flavor is not biobench's */
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_FILE);
	assert_int_equal(T.nop_flags, BB_IORING_NOP_FILE |
				      BB_IORING_NOP_INJECT_RESULT |
				      BB_IORING_NOP_FIXED_FILE |
				      BB_IORING_NOP_FIXED_BUFFER);
	assert_int_equal(T.nop_flags, 0xf); /* the uapi values */
	assert_int_equal(T.notes, BB_TIOU_NOTE_NOP_FILES);

	assert_int_equal(parse("--flavor=current -N1 -F0 -B0 F", err, sizeof(err)), 0);
	assert_int_equal(T.nop_flags, BB_IORING_NOP_FILE |
				      BB_IORING_NOP_INJECT_RESULT);
	assert_int_equal(parse("-N1 -F0 F --flavor current", err, sizeof(err)), 0);
	assert_int_equal(T.nop_flags, 0xb);
	/* current fio's -N1 needs a FILE */
	assert_int_equal(parse("-N1 --flavor current", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "FILE: none given: current fio's -N1 sends NOPs that carry a FILE (IORING_NOP_FILE); give one, or --flavor 3.33 for plain NOPs");
	/* switching after the parse derives the kind again */
	assert_int_equal(parse("-N1 F", err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_set_flavor(&T, BB_TIOU_FIO_CURRENT, err,
					    sizeof(err)), 0);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_FILE);
	assert_int_equal(bb_tiou_set_flavor(&T, BB_TIOU_FIO_3_33, err,
					    sizeof(err)), 0);
	assert_int_equal(T.nop_kind, BB_TIOU_NOP_PLAIN);
	assert_int_equal(T.nop_flags, 0);
	assert_string_equal(bb_tiou_flavor_name(BB_TIOU_FIO_3_33), "3.33");
	assert_string_equal(bb_tiou_flavor_name(BB_TIOU_FIO_CURRENT), "current");
	/* bad values, one line naming the option */
	assert_int_equal(parse("--flavor 3.34 F", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--flavor: '3.34' is not 3.33 (Debian 12's t/io_uring) or current (current fio's)");
	assert_int_equal(parse("F --flavor", err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--flavor: needs a value (3.33: Debian 12's t/io_uring, current: current fio's)");
	assert_int_equal(parse("F --flavors", err, sizeof(err)), 0);
	assert_int_equal(T.rest, 2); /* not --flavor: biobench's */

	/* the notes of -t1 and -R0 over several threads */
	assert_int_equal(parse("-t1 -R0 -n2 F", err, sizeof(err)), 0);
	assert_int_equal(T.notes, BB_TIOU_NOTE_LAT | BB_TIOU_NOTE_SEQ_SLICES);
	bb_tiou_notes(&T, notes, sizeof(notes));
	assert_non_null(strstr(notes, "tiou: -t1 measures per submit batch with biobench's clock, in nanoseconds"));
	assert_non_null(strstr(notes, "\ntiou: -R0 with more threads than FILEs: each thread reads its own slice"));
	assert_int_equal(parse("-R0 -n2 F G", err, sizeof(err)), 0);
	assert_int_equal(T.notes, 0);

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

static int to_cfg(const char *args, struct bb_config *cfg, char *err,
		  size_t errlen)
{
	int r = parse(args, err, errlen);

	if (r)
		return r;
	bb_config_default(cfg);
	return bb_tiou_to_config(&T, cfg, err, errlen);
}

static void test_to_config(void **state)
{
	static struct bb_config cfg;
	char err[256];
	const char *p;

	(void)state;
	assert_int_equal(to_cfg("-p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 -P1 /mnt/testfile",
				&cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "/mnt/testfile");
	assert_int_equal(cfg.ntargets, 1);
	assert_true(cfg.direct);
	assert_int_equal(cfg.rw, BB_RW_RANDREAD);
	assert_int_equal(cfg.bs, 4096);
	assert_int_equal(cfg.iodepth, 128);
	assert_int_equal(cfg.threads, 1);
	assert_int_equal(cfg.size, 0);
	assert_int_equal(cfg.runtime_ns, 0); /* -r0: until interrupted */
	assert_int_equal(cfg.number_ios, 0);
	assert_int_equal(cfg.engine, BB_ENGINE_IO_URING);
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_true(cfg.fixedbufs);
	assert_true(cfg.registerfiles);
	assert_int_equal(cfg.submit_batch, 1);
	assert_int_equal(cfg.complete_batch, 1);
	assert_int_equal(cfg.lat, BB_LAT_OFF); /* t/io_uring's -t0 */
	assert_int_equal(cfg.model, BB_MODEL_NONE); /* no bio model */
	assert_true(cfg.register_ring);
	assert_false(cfg.restrict_ring);
	assert_false(cfg.vectored);
	assert_true(cfg.numa_place);
	assert_int_equal(cfg.nop_kind, BB_NOP_PLAIN);
	/* and runs as it is: until interrupted is a valid run */
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);

	/* polled by default; -t1 is biobench's per-batch latency */
	assert_int_equal(to_cfg("-r5 -t1 -R0 -O1 -d16 -s32 -c64 -n3 -b8192 /dev/x",
				&cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.mode, BB_MODE_POLL);
	assert_int_equal(cfg.runtime_ns, 5000000000ull);
	assert_int_equal(cfg.lat, BB_LAT_BATCH);
	assert_int_equal(cfg.rw, BB_RW_READ);
	assert_int_equal(cfg.submit_batch, 16);
	assert_int_equal(cfg.complete_batch, 16);
	assert_int_equal(cfg.threads, 3);
	assert_int_equal(cfg.bs, 8192);
	assert_false(cfg.numa_place);
	/* what the mapping produced passes biobench's own checks */
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);

	/* buffered reads with -p0 */
	assert_int_equal(to_cfg("-p0 -O0 -r1 F", &cfg, err, sizeof(err)), 0);
	assert_false(cfg.direct);
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);
	assert_false(cfg.direct);

	/* NOPs: never polled (t/io_uring sets no IOPOLL for -N1); without
	 * FILE fio 3.33's plain NOP, with FILE current fio's file NOP */
	assert_int_equal(to_cfg("-N1 -r1", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(cfg.mode, BB_MODE_IRQ);
	assert_int_equal(cfg.nop_kind, BB_NOP_PLAIN);
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);
	assert_int_equal(to_cfg("-N1 -r1 /mnt/f", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(cfg.nop_kind, BB_NOP_PLAIN); /* fio 3.33 */
	assert_int_equal(to_cfg("-N1 -r1 /mnt/f --flavor current", &cfg, err,
				sizeof(err)), 0);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(cfg.ntargets, 1);
	assert_int_equal(cfg.nop_kind, BB_NOP_FILE);
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);

	/* passthrough */
	assert_int_equal(to_cfg("-u1 -r1 /dev/ng0n1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.engine, BB_ENGINE_URING_CMD);
	assert_int_equal(cfg.mode, BB_MODE_POLL);

	/* -X0, -e1, -V1 with -B0, several FILEs: run options of the engine */
	assert_int_equal(to_cfg("-X0 -e1 -V1 -B0 -r1 -p0 A B C", &cfg, err,
				sizeof(err)), 0);
	assert_false(cfg.register_ring);
	assert_true(cfg.restrict_ring);
	assert_true(cfg.vectored);
	assert_false(cfg.fixedbufs);
	assert_int_equal(cfg.ntargets, 3);
	p = cfg.target;
	assert_string_equal(p, "A");
	p = bb_config_next_target(&cfg, p);
	assert_string_equal(p, "B");
	p = bb_config_next_target(&cfg, p);
	assert_string_equal(p, "C");
	assert_null(bb_config_next_target(&cfg, p));
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);
	/* -B1 reads READ_FIXED whatever -V says; -N1 sends NOPs */
	assert_int_equal(to_cfg("-V1 -r1 -p0 A", &cfg, err, sizeof(err)), 0);
	assert_false(cfg.vectored);
	assert_int_equal(to_cfg("-V1 -B0 -N1 -r1", &cfg, err, sizeof(err)), 0);
	assert_false(cfg.vectored);
	assert_int_equal(bb_config_check(&cfg, err, sizeof(err)), 0);
}

/* The options a line becomes, as a job's normalized document shows, and
 * biobench's long options after it. */
static void test_options_json(void **state)
{
	static const char *const want =
		"{\"target\":\"\\/mnt\\/f\",\"direct\":true,\"rw\":\"randread\","
		"\"bs\":4096,\"iodepth\":128,\"threads\":1,\"runtime\":3,"
		"\"engine\":\"io_uring\",\"mode\":\"irq\",\"fixedbufs\":true,"
		"\"registerfiles\":true,\"submit_batch\":1,"
		"\"complete_batch\":1,\"lat\":\"off\",\"nop_kind\":\"plain\","
		"\"model\":\"none\",\"register_ring\":true,"
		"\"restrict_ring\":false,\"vectored\":false,"
		"\"numa_place\":false}";
	static struct bb_config cfg;
	struct json_object *j, *v;
	char err[256];

	(void)state;
	assert_int_equal(to_cfg("-p0 -s1 -c1 -r3 /mnt/f", &cfg, err, sizeof(err)), 0);
	j = bb_tiou_options_json(&cfg);
	assert_non_null(j);
	assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
			    want);
	json_object_put(j);

	/* long options: on top of the mapping, with the checks */
	assert_int_equal(to_cfg("-p0 -r3 /mnt/f --model bio --bio-cache off --cpus 1",
				&cfg, err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.model, BB_MODEL_BIO);
	assert_int_equal(cfg.bio_cache, BB_CACHE_OFF);
	assert_int_equal(cfg.ncpus, 1);
	assert_string_equal(cfg.target, "/mnt/f");
	j = bb_tiou_options_json(&cfg);
	assert_true(json_object_object_get_ex(j, "bio_cache", &v));
	assert_string_equal(json_object_get_string(v), "off");
	assert_true(json_object_object_get_ex(j, "cpus", &v));
	assert_false(json_object_object_get_ex(j, "seed", NULL)); /* default */
	json_object_put(j);
	/* --flavor among them maps the line again */
	assert_int_equal(to_cfg("-N1 -r1 /mnt/f --quiet --flavor current",
				&cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.nop_kind, BB_NOP_FILE); /* the parse took it */
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 0);
	assert_int_equal(T.flavor, BB_TIOU_FIO_CURRENT);
	assert_int_equal(cfg.nop_kind, BB_NOP_FILE);
	assert_true(cfg.quiet);
	assert_string_equal(cfg.target, "nop");
	/* refusals in t/io_uring's words */
	assert_int_equal(to_cfg("-p0 -P1 /mnt/f --cpus 0", &cfg, err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "-P1: --cpus places the threads already: give one of -P1 and --cpus");
	/* long options anywhere before "--", with or without their values;
	 * t/io_uring's options and FILEs after them are the line's */
	assert_int_equal(to_cfg("-p0 /mnt/f --cpus 0 /mnt/g", &cfg, err, sizeof(err)), 0);
	assert_int_equal(T.nfiles, 2);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.ntargets, 2);
	assert_int_equal(cfg.ncpus, 1);
	assert_int_equal(to_cfg("--model bio --lat off -p0 -d 32 --quiet -s4 /mnt/f",
				&cfg, err, sizeof(err)), 0);
	assert_int_equal(T.depth, 32);
	assert_int_equal(T.submit, 4);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.model, BB_MODEL_BIO);
	assert_int_equal(cfg.lat, BB_LAT_OFF);
	assert_true(cfg.quiet);
	assert_int_equal(cfg.iodepth, 32);
	assert_string_equal(cfg.target, "/mnt/f");
	assert_int_equal(to_cfg("-N1 --cpus 1 /mnt/f", &cfg, err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.target, "nop");
	assert_int_equal(cfg.ncpus, 1);
	/* "--" ends t/io_uring's options, not biobench's */
	assert_int_equal(to_cfg("-p0 --quiet -- -d8 /mnt/f --cpus 1", &cfg, err, sizeof(err)), 0);
	assert_int_equal(T.nfiles, 2);
	assert_string_equal(T.files[0], "-d8");
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.ncpus, 1);
	assert_int_equal(cfg.ntargets, 2);
	assert_int_equal(to_cfg("-p0 /mnt/f --bogus", &cfg, err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(to_cfg("-p0 /mnt/f --flavor x", &cfg, err, sizeof(err)), -EINVAL);
	assert_int_equal(to_cfg("-p0 /mnt/f --help", &cfg, err, sizeof(err)), 0);
	assert_int_equal(bb_tiou_apply_options(K.a.argc, K.a.argv, T.rest, &T,
					       &cfg, err, sizeof(err)), 1);
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

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = to_cfg(cases[i].args, &cfg, err, sizeof(err));

		CHECK(r == -EINVAL, "'%s': returned %d\n", cases[i].args, r);
		CHECK(!strcmp(err, cases[i].msg), "'%s':\n  got  '%s'\n  want '%s'\n",
		      cases[i].args, err, cases[i].msg);
	}
	/* -O0 is fine for NOPs (nothing is read) */
	assert_int_equal(to_cfg("-N1 -O0", &cfg, err, sizeof(err)), 0);
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

/* ------------------------------------------------------------------ */
/* output lines */

static void test_fmt_startup(void **state)
{
	char buf[256], err[256];

	(void)state;
	assert_int_equal(bb_tiou_fmt_submitter(buf, sizeof(buf), BB_TIOU_FIO_3_33,
					       0, 1234, "/mnt/f", 1, -1),
			 (int)strlen("submitter=0, tid=1234, file=/mnt/f, node=-1\n"));
	assert_string_equal(buf, "submitter=0, tid=1234, file=/mnt/f, node=-1\n");
	bb_tiou_fmt_submitter(buf, sizeof(buf), BB_TIOU_FIO_CURRENT, 3, 99,
			      "/dev/nvme0n1", 2, 1);
	assert_string_equal(buf, "submitter=3, tid=99, file=/dev/nvme0n1, nfiles=2, node=1\n");
	bb_tiou_fmt_submitter(buf, sizeof(buf), BB_TIOU_FIO_3_33, 0, 3740, NULL,
			      0, -1);
	assert_string_equal(buf, "submitter=0, tid=3740, file=(null), node=-1\n");

	assert_int_equal(parse("F", err, sizeof(err)), 0);
	bb_tiou_fmt_setup(buf, sizeof(buf), BB_TIOU_FIO_3_33, &T);
	assert_string_equal(buf, "polled=1, fixedbufs=1/0, register_files=1, buffered=0, QD=128\n");
	bb_tiou_fmt_setup(buf, sizeof(buf), BB_TIOU_FIO_CURRENT, &T);
	assert_string_equal(buf, "polled=1, fixedbufs=1, register_files=1, buffered=0, QD=128\n");
	assert_int_equal(parse("-p0 -O0 -B0 -F0 -d32 -D1 F", err, sizeof(err)), 0);
	bb_tiou_fmt_setup(buf, sizeof(buf), BB_TIOU_FIO_3_33, &T);
	assert_string_equal(buf, "polled=0, fixedbufs=0/0, register_files=0, buffered=1, QD=32\n");
	bb_tiou_fmt_setup(buf, sizeof(buf), BB_TIOU_FIO_CURRENT, &T);
	assert_string_equal(buf, "polled=0, fixedbufs=0, register_files=0, buffered=1, QD=32\n");
	/* -N1 prints polled=1 all the same */
	assert_int_equal(parse("-N1", err, sizeof(err)), 0);
	bb_tiou_fmt_setup(buf, sizeof(buf), BB_TIOU_FIO_3_33, &T);
	assert_string_equal(buf, "polled=1, fixedbufs=1/0, register_files=1, buffered=0, QD=128\n");

	bb_tiou_fmt_engine(buf, sizeof(buf), 128, 128);
	assert_string_equal(buf, "Engine=io_uring, sq_ring=128, cq_ring=128\n");
	bb_tiou_fmt_engine(buf, sizeof(buf), 4, 4);
	assert_string_equal(buf, "Engine=io_uring, sq_ring=4, cq_ring=4\n");
}

struct tick_case {
	uint64_t done, errors, calls, reaps;
	unsigned bs;
	bool nop;
	const char *want;
	uint64_t iops;
};

static const struct tick_case tick_cases[] = {
	/* as printed by fio 3.33's t/io_uring on this machine */
	{ 1080000, 0, 33750, 1080000, 4096, false, "IOPS=1.08M, BW=4.22GiB/s, IOS/call=32/32\n", 1080000 },
	{ 13540000, 0, 423125, 13540000, 4096, true, "IOPS=13.54M, IOS/call=32/32\n", 13540000 },
	{ 6568, 0, 6568, 6568, 2097152, false, "IOPS=6568, BW=13.14GiB/s, IOS/call=1/1\n", 6568 },
	/* the thresholds are strict: > 1000000, > 100000, > 2000 MiB/s */
	{ 1000000, 0, 1, 1, 4096, false, "IOPS=1000.00K, BW=3.91GiB/s, IOS/call=1000000/1\n", 1000000 },
	{ 1000001, 0, 1, 1, 4096, false, "IOPS=1.00M, BW=3.91GiB/s, IOS/call=1000001/1\n", 1000001 },
	{ 100000, 0, 1, 0, 4096, false, "IOPS=100000, BW=390MiB/s, IOS/call=100000/0\n", 100000 },
	{ 100001, 0, 1, 0, 4096, false, "IOPS=100.00K, BW=390MiB/s, IOS/call=100001/0\n", 100001 },
	{ 512000, 0, 16000, 512000, 4096, false, "IOPS=512.00K, BW=2000MiB/s, IOS/call=32/32\n", 512000 },
	{ 512256, 0, 16008, 512256, 4096, false, "IOPS=512.26K, BW=2.00GiB/s, IOS/call=32/32\n", 512256 },
	{ 99999, 0, 3125, 99999, 4096, false, "IOPS=99999, BW=390MiB/s, IOS/call=31/31\n", 99999 },
	/* GiB is MiB / 1000 (sic): 1024000 MiB/s */
	{ 1024000, 0, 1, 1, 1048576, false, "IOPS=1.02M, BW=1024.00GiB/s, IOS/call=1024000/1\n", 1024000 },
	/* no call in the second: -1/-1 */
	{ 0, 0, 0, 0, 4096, false, "IOPS=0, BW=0MiB/s, IOS/call=-1/-1\n", 0 },
	{ 0, 0, 0, 0, 4096, true, "IOPS=0, IOS/call=-1/-1\n", 0 },
	/* 1048576 / bs in integers: bs 3000 -> /349; bs 768k -> /1 */
	{ 3490, 0, 10, 10, 3000, false, "IOPS=3490, BW=10MiB/s, IOS/call=349/1\n", 3490 },
	{ 5000, 0, 5000, 5000, 786432, false, "IOPS=5000, BW=5.00GiB/s, IOS/call=1/1\n", 5000 },
	/* above 1 MiB: IOPS * (bs / 1048576), bs / 1 MiB truncated */
	{ 600, 0, 600, 600, 3670016, false, "IOPS=600, BW=1800MiB/s, IOS/call=1/1\n", 600 },
	/* errors (current fio): out of IOPS and BW, not out of IOS/call */
	{ 1000, 10, 10, 10, 4096, false, "IOPS=990, BW=3MiB/s, IOS/call=100/1\n", 990 },
	/* integer division of the per-call figures */
	{ 33, 0, 2, 65, 4096, false, "IOPS=33, BW=0MiB/s, IOS/call=16/32\n", 33 },
};

static void test_fmt_tick(void **state)
{
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(tick_cases) / sizeof(tick_cases[0]); i++) {
		const struct tick_case *c = &tick_cases[i];
		struct bb_tiou_tick d = { c->done, c->errors, c->calls, c->reaps };
		uint64_t iops = 12345;
		int n = bb_tiou_fmt_tick(buf, sizeof(buf), &d, c->bs, c->nop, &iops);

		CHECK(!strcmp(buf, c->want), "case %zu:\n  got  '%s'\n  want '%s'\n",
		      i, buf, c->want);
		CHECK(n == (int)strlen(c->want), "case %zu: returned %d\n", i, n);
		CHECK(iops == c->iops, "case %zu: iops %llu\n", i,
		      (unsigned long long)iops);
	}
}

static void test_fmt_end(void **state)
{
	char buf[64];

	(void)state;
	bb_tiou_fmt_exit(buf, sizeof(buf), true);
	assert_string_equal(buf, "Exiting on timeout\n");
	bb_tiou_fmt_exit(buf, sizeof(buf), false);
	assert_string_equal(buf, "Exiting on signal\n");
	bb_tiou_fmt_max_iops(buf, sizeof(buf), 13540000);
	assert_string_equal(buf, "Maximum IOPS=13.54M\n");
	bb_tiou_fmt_max_iops(buf, sizeof(buf), 1000000);
	assert_string_equal(buf, "Maximum IOPS=1000.00K\n");
	bb_tiou_fmt_max_iops(buf, sizeof(buf), 100001);
	assert_string_equal(buf, "Maximum IOPS=100.00K\n");
	bb_tiou_fmt_max_iops(buf, sizeof(buf), 6752);
	assert_string_equal(buf, "Maximum IOPS=6752\n");
	bb_tiou_fmt_max_iops(buf, sizeof(buf), 0);
	assert_string_equal(buf, "Maximum IOPS=0\n");
	bb_tiou_fmt_io_errors(buf, sizeof(buf), 1234, 5);
	assert_string_equal(buf, "1234: 5 IO errors\n");

	/* cut like snprintf, the needed length returned */
	assert_int_equal(bb_tiou_fmt_max_iops(buf, 8, 13540000),
			 (int)strlen("Maximum IOPS=13.54M\n"));
	assert_string_equal(buf, "Maximum");
	assert_int_equal(bb_tiou_fmt_exit(NULL, 0, true), 19);
}

/* Latency blocks: the first two as fio 3.33's t/io_uring printed them
 * here (-t1 without and with -T2000000000). */
static void test_fmt_latency(void **state)
{
	static const uint64_t ticks[BB_TIOU_NPCT] = {
		57600, 59648, 60672, 61696, 62720, 63744, 64768, 67072, 76288,
		81408, 87552, 91648, 154624, 203776, 272384, 313344, 407552 };
	static const char ticks_want[] =
		"3769: Latency percentiles:\n"
		"    percentiles (tsc ticks):\n"
		"     |  1.0000th=[ 57600],  5.0000th=[ 59648], 10.0000th=[ 60672],\n"
		"     | 20.0000th=[ 61696], 30.0000th=[ 62720], 40.0000th=[ 63744],\n"
		"     | 50.0000th=[ 64768], 60.0000th=[ 67072], 70.0000th=[ 76288],\n"
		"     | 80.0000th=[ 81408], 90.0000th=[ 87552], 95.0000th=[ 91648],\n"
		"     | 99.0000th=[154624], 99.5000th=[203776], 99.9000th=[272384],\n"
		"     | 99.9500th=[313344], 99.9900th=[407552]\n";
	/* ns values whose rounded-up usec t/io_uring printed */
	static const uint64_t ns[BB_TIOU_NPCT] = {
		25100, 26500, 27001, 28000, 28999, 29000, 29500, 30000, 30500,
		31000, 31800, 36200, 47500, 70100, 92300, 103200, 166400 };
	static const char usec_want[] =
		"3774: Latency percentiles:\n"
		"    percentiles (usec):\n"
		"     |  1.0000th=[   26],  5.0000th=[   27], 10.0000th=[   28],\n"
		"     | 20.0000th=[   28], 30.0000th=[   29], 40.0000th=[   29],\n"
		"     | 50.0000th=[   30], 60.0000th=[   30], 70.0000th=[   31],\n"
		"     | 80.0000th=[   31], 90.0000th=[   32], 95.0000th=[   37],\n"
		"     | 99.0000th=[   48], 99.5000th=[   71], 99.9000th=[   93],\n"
		"     | 99.9500th=[  104], 99.9900th=[  167]\n";
	/* small ns: nsec, width 5 */
	static const uint64_t small[BB_TIOU_NPCT] = {
		100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1100, 1200,
		1300, 1400, 1500, 1600, 12000 };
	static const char small_want[] =
		"7: Latency percentiles:\n"
		"    percentiles (nsec):\n"
		"     |  1.0000th=[  100],  5.0000th=[  200], 10.0000th=[  300],\n"
		"     | 20.0000th=[  400], 30.0000th=[  500], 40.0000th=[  600],\n"
		"     | 50.0000th=[  700], 60.0000th=[  800], 70.0000th=[  900],\n"
		"     | 80.0000th=[ 1000], 90.0000th=[ 1100], 95.0000th=[ 1200],\n"
		"     | 99.0000th=[ 1300], 99.5000th=[ 1400], 99.9000th=[ 1500],\n"
		"     | 99.9500th=[ 1600], 99.9900th=[12000]\n";
	/* a min of 2000 is not above 2000: nsec, and wide values: width 11
	 * leaves two per line ((80 - 7) / (4 + 10 + 11)) */
	static const uint64_t wide[BB_TIOU_NPCT] = {
		2000, 3000, 4000, 5000, 6000, 7000, 8000, 9000, 10000, 11000,
		12000, 13000, 14000, 15000, 16000, 17000, 12345678901ull };
	static const char wide_want[] =
		"1: Latency percentiles:\n"
		"    percentiles (nsec):\n"
		"     |  1.0000th=[       2000],  5.0000th=[       3000],\n"
		"     | 10.0000th=[       4000], 20.0000th=[       5000],\n"
		"     | 30.0000th=[       6000], 40.0000th=[       7000],\n"
		"     | 50.0000th=[       8000], 60.0000th=[       9000],\n"
		"     | 70.0000th=[      10000], 80.0000th=[      11000],\n"
		"     | 90.0000th=[      12000], 95.0000th=[      13000],\n"
		"     | 99.0000th=[      14000], 99.5000th=[      15000],\n"
		"     | 99.9000th=[      16000], 99.9500th=[      17000],\n"
		"     | 99.9900th=[12345678901]\n";
	/* an empty histogram: zeros, width 5 (log10(0) is -inf) */
	static const uint64_t zero[BB_TIOU_NPCT];
	static const char zero_want[] =
		"2: Latency percentiles:\n"
		"    percentiles (nsec):\n"
		"     |  1.0000th=[    0],  5.0000th=[    0], 10.0000th=[    0],\n"
		"     | 20.0000th=[    0], 30.0000th=[    0], 40.0000th=[    0],\n"
		"     | 50.0000th=[    0], 60.0000th=[    0], 70.0000th=[    0],\n"
		"     | 80.0000th=[    0], 90.0000th=[    0], 95.0000th=[    0],\n"
		"     | 99.0000th=[    0], 99.5000th=[    0], 99.9000th=[    0],\n"
		"     | 99.9500th=[    0], 99.9900th=[    0]\n";
	char buf[2048];
	int n;

	(void)state;
	n = bb_tiou_fmt_latency(buf, sizeof(buf), 3769, ticks, true);
	assert_string_equal(buf, ticks_want);
	assert_int_equal(n, (int)strlen(ticks_want));
	bb_tiou_fmt_latency(buf, sizeof(buf), 3774, ns, false);
	assert_string_equal(buf, usec_want);
	bb_tiou_fmt_latency(buf, sizeof(buf), 7, small, false);
	assert_string_equal(buf, small_want);
	bb_tiou_fmt_latency(buf, sizeof(buf), 1, wide, false);
	assert_string_equal(buf, wide_want);
	bb_tiou_fmt_latency(buf, sizeof(buf), 2, zero, false);
	assert_string_equal(buf, zero_want);
	/* cut output keeps the needed length */
	assert_int_equal(bb_tiou_fmt_latency(buf, 10, 3769, ticks, true),
			 (int)strlen(ticks_want));
	assert_int_equal(strlen(buf), 9);
}

static void test_percentiles(void **state)
{
	static struct bb_hist h;
	uint64_t v[BB_TIOU_NPCT];
	/* 30 % and 60 % of 100 are a hair above 30 and 60 in t/io_uring's
	 * long double arithmetic ((long double)30.0f / 100.0 * 100), so
	 * it reports 31 and 61 there */
	static const uint64_t want1[BB_TIOU_NPCT] = {
		1, 5, 10, 20, 31, 40, 50, 61, 70, 80, 90, 95, 99, 100, 100, 100,
		100 };

	(void)state;
	/* 1..100 ns, one each: bucket index = value below 128 */
	bb_hist_init(&h);
	for (uint64_t ns = 1; ns <= 100; ns++)
		bb_hist_add(&h, ns);
	bb_tiou_percentiles(&h, v);
	assert_memory_equal(v, want1, sizeof(v));

	/* running sum >= pct/100 * total: 9 of 1000 at 10 ns is below 1 % */
	bb_hist_init(&h);
	for (int i = 0; i < 9; i++)
		bb_hist_add(&h, 10);
	for (int i = 0; i < 991; i++)
		bb_hist_add(&h, 1000);
	bb_tiou_percentiles(&h, v);
	assert_int_equal(v[0], 1004); /* 1000 ns bucket: 512 + 61*8 + 4 */
	assert_int_equal(v[16], 1004);
	bb_hist_add(&h, 10); /* 10 of 1001 reach 1 % (10.01)? no */
	bb_tiou_percentiles(&h, v);
	assert_int_equal(v[0], 1004);
	bb_hist_init(&h);
	for (int i = 0; i < 10; i++)
		bb_hist_add(&h, 10);
	for (int i = 0; i < 990; i++)
		bb_hist_add(&h, 1000);
	bb_tiou_percentiles(&h, v);
	assert_int_equal(v[0], 10); /* 10 of 1000 is 1 % */
	assert_int_equal(v[1], 1004);

	/* midpoints, not clamped to min/max as bb_hist_percentile is */
	bb_hist_init(&h);
	for (int i = 0; i < 1000; i++)
		bb_hist_add(&h, 5000);
	bb_tiou_percentiles(&h, v);
	for (int j = 0; j < BB_TIOU_NPCT; j++)
		assert_int_equal(v[j], 5024);
	assert_int_equal(bb_hist_percentile(&h, 50), 5000);

	/* empty: zeros, as t/io_uring prints them */
	bb_hist_init(&h);
	memset(v, 0xff, sizeof(v));
	bb_tiou_percentiles(&h, v);
	for (int j = 0; j < BB_TIOU_NPCT; j++)
		assert_int_equal(v[j], 0);

	/* t/io_uring's list, as floats */
	assert_true(bb_tiou_pct[0] == 1.0f);
	assert_true(bb_tiou_pct[13] == 99.5f);
	assert_true(bb_tiou_pct[16] == 99.99f);
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
		cmocka_unit_test(test_options_json),
		cmocka_unit_test(test_to_config_bad),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_bad),
		cmocka_unit_test(test_fmt_startup),
		cmocka_unit_test(test_fmt_tick),
		cmocka_unit_test(test_fmt_end),
		cmocka_unit_test(test_fmt_latency),
		cmocka_unit_test(test_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
