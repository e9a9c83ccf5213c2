// SPDX-License-Identifier: GPL-2.0-only
/* tiou_lines.c - prints t/io_uring's output lines through biobench's
 * formatters (biobench/tiou.h) for numbers given on the command line, so
 * that tiou_lines.sh can hold them against the lines of the real
 * t/io_uring.  One subcommand per formatter:
 *
 *   tiou_lines submitter 3.33|current INDEX TID FILE|(null) NFILES NODE
 *   tiou_lines setup 3.33|current T/IO_URING-ARGS...   (parsed by bb_tiou_parse)
 *   tiou_lines engine SQ CQ
 *   tiou_lines tick DONE ERRORS CALLS REAPS BS NOP
 *   tiou_lines exit timeout|signal
 *   tiou_lines max IOPS
 *   tiou_lines latency TID ticks|nsec|usec V1 ... V17  (values as printed)
 *
 * Exit 0, or 2 with a message on bad arguments. */
#include <biobench/tiou.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
	fprintf(stderr,
		"usage: tiou_lines submitter|setup|engine|tick|exit|max|latency ARGS (see tiou_lines.c)\n");
	return 2;
}

static uint64_t num(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s) {
		fprintf(stderr, "tiou_lines: '%s' is not a number\n", s);
		exit(2);
	}
	return v;
}

static enum bb_tiou_flavor flavor(const char *s)
{
	if (!strcmp(s, "3.33"))
		return BB_TIOU_FIO_3_33;
	if (!strcmp(s, "current"))
		return BB_TIOU_FIO_CURRENT;
	fprintf(stderr, "tiou_lines: flavor '%s' is not 3.33 or current\n", s);
	exit(2);
}

int main(int argc, char **argv)
{
	static struct bb_tiou t;
	char buf[4096], err[256];
	const char *cmd = argc > 1 ? argv[1] : "";

	if (!strcmp(cmd, "submitter") && argc == 8) {
		const char *file = strcmp(argv[5], "(null)") ? argv[5] : NULL;

		bb_tiou_fmt_submitter(buf, sizeof(buf), flavor(argv[2]),
				      (int)num(argv[3]), (int)num(argv[4]),
				      file, (unsigned)num(argv[6]),
				      atoi(argv[7]));
	} else if (!strcmp(cmd, "setup") && argc >= 3) {
		/* argv[2] stands for argv[0] of the parse */
		int r = bb_tiou_parse(argc - 2, argv + 2, &t, err, sizeof(err));

		if (r) {
			fprintf(stderr, "tiou_lines: %s\n", r > 0 ? "help" : err);
			return 2;
		}
		bb_tiou_fmt_setup(buf, sizeof(buf), flavor(argv[2]), &t);
	} else if (!strcmp(cmd, "engine") && argc == 4) {
		bb_tiou_fmt_engine(buf, sizeof(buf), (unsigned)num(argv[2]),
				   (unsigned)num(argv[3]));
	} else if (!strcmp(cmd, "tick") && argc == 8) {
		struct bb_tiou_tick d = {
			.done = num(argv[2]),
			.errors = num(argv[3]),
			.calls = num(argv[4]),
			.reaps = num(argv[5]),
		};

		bb_tiou_fmt_tick(buf, sizeof(buf), &d, (unsigned)num(argv[6]),
				 num(argv[7]) != 0, NULL);
	} else if (!strcmp(cmd, "exit") && argc == 3) {
		bb_tiou_fmt_exit(buf, sizeof(buf), !strcmp(argv[2], "timeout"));
	} else if (!strcmp(cmd, "max") && argc == 3) {
		bb_tiou_fmt_max_iops(buf, sizeof(buf), num(argv[2]));
	} else if (!strcmp(cmd, "latency") && argc == 4 + BB_TIOU_NPCT) {
		uint64_t vals[BB_TIOU_NPCT];
		bool usec = !strcmp(argv[3], "usec");

		for (int i = 0; i < BB_TIOU_NPCT; i++)
			vals[i] = num(argv[4 + i]) * (usec ? 1000 : 1);
		bb_tiou_fmt_latency(buf, sizeof(buf), (int)num(argv[2]), vals,
				    !strcmp(argv[3], "ticks"));
	} else {
		return usage();
	}
	fputs(buf, stdout);
	return 0;
}
