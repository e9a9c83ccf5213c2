// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_options.c - libFuzzer target: the run option parser
 * (bb_options_parse, the table behind `biobench run`, the job workload
 * and variant fields).  The input is split into argv at NUL and newline
 * bytes (at most 64 arguments); argv[0] is "run".  A second pass feeds
 * the same words to bb_options_set as NAME=VALUE pairs.
 *
 * Oracle beyond the sanitizers: every refusal (-EINVAL) leaves a
 * non-empty one-line message. */
#include <biobench/options.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	struct bb_config cfg;
	char err[1024];
	int argc = 0, ret;
	size_t start = 0;

	if (!buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "run";
	for (size_t i = 0; i <= size && argc < MAX_ARGS + 1; i++) {
		if (i == size || buf[i] == '\0' || buf[i] == '\n') {
			buf[i] = '\0';
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	argv[argc] = NULL;

	bb_config_default(&cfg);
	err[0] = '\0';
	ret = bb_options_parse(argc, argv, &cfg, err, sizeof(err));
	if (ret < 0) {
		if (!err[0] || strchr(err, '\n'))
			__builtin_trap(); /* refused without one clear line */
	} else if (ret > 1) {
		__builtin_trap();
	}

	/* the same words as NAME=VALUE through bb_options_set */
	bb_config_default(&cfg);
	for (int i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq)
			continue;
		*eq = '\0';
		err[0] = '\0';
		ret = bb_options_set(&cfg, argv[i], eq + 1, err, sizeof(err));
		if (ret == -EINVAL && !err[0])
			__builtin_trap();
	}
	bb_config_check(&cfg, err, sizeof(err));
	free(buf);
	return 0;
}
