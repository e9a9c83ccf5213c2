// SPDX-License-Identifier: GPL-2.0-only
/* cmd_run.c - `biobench run [OPTIONS] TARGET...`: one run; Ctrl-C ends
 * it early and the summary covers what ran (exit 0). */
#include "cli.h"
#include <biobench/engine.h>
#include <biobench/options.h>
#include <biobench/quiesce.h>
#include <biobench/result_json.h>
#include <biobench/sysknob.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static void live_line(const struct bb_config *cfg, const struct bb_sample *s,
		      uint64_t interval_ms, void *arg)
{
	FILE *f = arg;

	bb_sample_fprint(f, cfg, s, interval_ms);
	fflush(f);
}

int bb_cmd_run(int argc, char **argv)
{
	struct bb_config cfg;
	struct bb_devlocks lock = { 0 };
	struct bb_quiesce_params qp;
	struct bb_quiesce_result q = { 0 };
	struct bb_result r;
	struct bb_cli_sigwatch sw = { 0 };
	_Atomic bool cancel = false;
	char err[512];
	bool live;
	int ret, signo;

	bb_config_default(&cfg);
	ret = bb_options_parse(argc, argv, &cfg, err, sizeof(err));
	if (ret == 1) {
		printf("usage: biobench run [OPTIONS] TARGET...\n\n"
		       "Run one benchmark on TARGET: `nop` (io_uring NOPs, no "
		       "device), a regular file,\nor a block device; several "
		       "files or block devices are spread over the threads\n"
		       "as t/io_uring spreads its FILE arguments (up to 16 per "
		       "thread).  --model none skips\nthe bio model (one SQE "
		       "per I/O, as t/io_uring).  Ctrl-C (SIGINT, SIGTERM) "
		       "ends the run early:\nthe summary covers what ran and "
		       "the exit status is 0; --runtime 0 (with\n--number-ios "
		       "0) runs until then.  For fio's t/io_uring command "
		       "lines see\n`biobench tiou --help`.\n\n");
		bb_options_help(stdout);
		return 0;
	}
	if (ret) {
		fprintf(stderr, "biobench run: %s\n", err);
		return 2;
	}
	/* one benchmark per device at a time (biobenchd's jobs, `ab`) */
	if (bb_devlocks_take(&lock, cfg.target, sizeof(cfg.target),
			     cfg.ntargets, "biobench run",
			     "", err, sizeof(err))) {
		fprintf(stderr, "biobench run: %s\n", err);
		return 1;
	}
	live = !cfg.json && !cfg.quiet && isatty(STDOUT_FILENO);
	/* Ctrl-C (SIGINT, SIGTERM, SIGHUP) ends the run; the summary then
	 * covers what ran (a second one kills) */
	if (bb_cli_sigwatch_start(&sw, &cancel, "biobench run",
				  "stopping; the summary of what ran follows",
				  true)) {
		fprintf(stderr, "biobench run: cannot watch signals\n");
		bb_devlocks_release(&lock);
		return 1;
	}
	ret = bb_run_cancellable(&cfg, &r, live ? live_line : NULL, stdout,
				 &cancel, err, sizeof(err));
	bb_cli_sigwatch_stop(&sw);
	bb_devlocks_release(&lock);
	signo = atomic_load(&sw.signo);
	if (ret == -ECANCELED && signo) {
		/* interrupted: not a failure, the result is what ran */
		ret = 0;
		r.error[0] = '\0';
	}
	if (cfg.json) {
		struct json_object *doc = bb_result_to_json(&cfg, &r);

		if (signo)
			json_object_object_add(doc, "interrupted",
					       json_object_new_string(
						       bb_cli_signame(signo)));
		puts(json_object_to_json_string_ext(doc,
						    JSON_C_TO_STRING_PRETTY |
						    JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(doc);
	} else if (!ret) {
		bb_result_fprint(stdout, &cfg, &r);
	}
	if (signo && !ret)
		fprintf(stderr,
			"biobench run: interrupted by %s after %.2f s: the "
			"summary covers what ran\n",
			bb_cli_signame(signo), (double)r.duration_ns / 1e9);
	bb_quiesce_params_init(&qp);
	if (bb_quiesce_mark_stall(&q, &qp, r.stall_ns))
		fprintf(stderr,
			"biobench run: warning: disturbed: %s (the process "
			"was stopped or starved): the figures are not the "
			"workload's alone\n",
			q.reason);
	bb_result_free(&r);
	if (ret) {
		fprintf(stderr, "biobench run: %s\n", err);
		return 1;
	}
	return 0;
}
