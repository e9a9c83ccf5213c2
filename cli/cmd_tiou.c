// SPDX-License-Identifier: GPL-2.0-only
/* cmd_tiou.c - `biobench tiou [OPTIONS] [--] FILE... [--BIOBENCH-OPTION...]`:
 * fio's t/io_uring command line, verbatim, run on biobench's engine.
 *
 * The line is parsed with t/io_uring's rules (core/run/tiou.c), mapped
 * onto a run configuration (model none: t/io_uring has no bio model),
 * with biobench's own long options anywhere on it (`--model bio`,
 * `--cpus 1`, `--json`, ...).  stdout carries t/io_uring's lines byte for byte where
 * they are shared (core/run/tiou_fmt.c: startup lines per submitter, the
 * Engine line, one IOPS line per second, "Exiting on timeout|signal",
 * "Maximum IOPS=...", the percentile blocks of -t1), then biobench's
 * summary, none of whose lines starts with one of t/io_uring's words:
 * scripts that parse t/io_uring's output keep working.  Notes about
 * options biobench takes differently go to stderr.
 *
 * Refused before the run, as by `biobench run`: -p1 (t/io_uring's
 * default) on a device without poll queues, naming the sysfs file and
 * the fix (t/io_uring itself spins forever there); any write (t/io_uring
 * only reads).  Ctrl-C ends the run as it ends t/io_uring's ("Exiting on
 * signal", the summary of what ran, exit 0). */
#include "cli.h"

#include <biobench/engine.h>
#include <biobench/options.h>
#include <biobench/quiesce.h>
#include <biobench/result_json.h>
#include <biobench/sysknob.h>
#include <biobench/tiou.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* What the run's hooks print with. */
struct tiou_out {
	const struct bb_tiou *t;
	const _Atomic bool *cancel;
	bool lines;         /* t/io_uring's lines (not --json) */
	bool ticks;         /* the per-second lines (not --quiet) */
	uint64_t max_iops;  /* the best second printed */
};

static void tiou_usage(FILE *f)
{
	char *buf = malloc(8192);

	fprintf(f,
		"usage: biobench tiou [OPTIONS] [--] FILE... "
		"[--BIOBENCH-OPTION...]\n\n"
		"Runs fio's t/io_uring command line on biobench's engine: the "
		"same options, the\nsame defaults (polled I/O among them: give "
		"-p0 on a device without poll\nqueues), the same output lines, "
		"then biobench's summary.  Paste the line from\nthe kernel "
		"thread with the file changed, e.g.\n\n"
		"  biobench tiou -p0 -d128 -b4096 -s1 -c1 -F1 -B1 -R1 -X1 -n1 "
		"-P1 /mnt/testfile\n\n"
		"t/io_uring's options (values are plain decimal integers; "
		"booleans are on when\nnon-zero; -p0 and -p 0 are the same):\n");
	if (buf) {
		bb_tiou_usage(buf, 8192, "biobench tiou");
		fputs(strchr(buf, '\n') + 1, f);
		free(buf);
	}
	fprintf(f,
		"\nAnd biobench's own long options, anywhere on the line "
		"(usually after the FILEs):\n"
		"  --flavor 3.33|current  which t/io_uring to be: fio 3.33 "
		"(Debian 12's, the\n"
		"                    default) or current fio: its two startup "
		"lines, and its -N1\n"
		"                    (3.33: plain NOPs; current: NOPs carrying "
		"the FILE)\n"
		"  --model bio       the I/O through biobench's bio model "
		"(default none, as\n"
		"                    t/io_uring)\n"
		"  --json            the result document instead of the lines "
		"and the summary\n"
		"  --quiet           no per-second lines\n"
		"  and every option of `biobench run --help` (--cpus, "
		"--bio-cache, --lat io, ...).\n\n"
		"-r0 (t/io_uring's default) runs until interrupted: Ctrl-C "
		"prints \"Exiting on\nsignal\", the maximum, and the summary of "
		"what ran (exit 0); Ctrl-C again while\nit stops changes "
		"nothing (as t/io_uring).\n\n"
		"Refused: -a1 (libaio), -S1 (preadv2), -H (hugetlbfs buffers), "
		"writes of any kind.\n-D and -T are accepted and ignored "
		"(nothing is written to the working directory).\n\n"
		"Exit status: 0 the run ended (timeout or signal), 1 it failed, "
		"2 usage error.\n");
}

/* The started hook: t/io_uring's startup lines, one per submitter, the
 * setup and Engine lines after the first (as the first thread set up
 * prints them). */
static void tiou_started(const struct bb_config *cfg,
			 const struct bb_thread_info *ti, unsigned n,
			 void *arg)
{
	struct tiou_out *o = arg;
	const struct bb_tiou *t = o->t;
	char line[PATH_MAX + 160];

	(void)cfg;
	if (!o->lines)
		return;
	for (unsigned i = 0; i < n; i++) {
		unsigned nf = i < BB_TIOU_MAX_THREADS ? t->thread_nfiles[i] : 0;
		const char *file = NULL;

		/* fio 3.33 opens no FILE for -N1: "file=(null)" */
		if (nf && !(t->nop && t->flavor == BB_TIOU_FIO_3_33))
			file = t->files[t->thread_files[i][nf - 1]];
		bb_tiou_fmt_submitter(line, sizeof(line), t->flavor, (int)i,
				      ti[i].tid, file, nf, ti[i].numa_node);
		fputs(line, stdout);
		if (i)
			continue;
		bb_tiou_fmt_setup(line, sizeof(line), t->flavor, t);
		fputs(line, stdout);
		bb_tiou_fmt_engine(line, sizeof(line), ti[0].sq_entries,
				   ti[0].cq_entries);
		fputs(line, stdout);
	}
	fflush(stdout);
}

/* The sample hook: t/io_uring's line of each whole second.  Not the
 * last one of -rN (t/io_uring prints N - 1), not the partial one of a
 * signal or of the end.  t/io_uring counts the SQEs io_uring_enter
 * accepted; so does this without the bio model, with it the parent
 * I/Os (SQEs are split pieces then). */
static void tiou_tick(const struct bb_config *cfg, const struct bb_sample *s,
		      uint64_t interval_ms, void *arg)
{
	struct tiou_out *o = arg;
	struct bb_tiou_tick d = {
		.done = cfg->model == BB_MODEL_NONE ? s->submitted : s->ios,
		.calls = s->enters,
		.reaps = s->reaped,
	};
	char line[128];
	uint64_t iops;

	if (atomic_load(o->cancel) || interval_ms < 500)
		return;
	if (cfg->runtime_ns &&
	    s->t_ms * 1000000ull + 50000000ull >= cfg->runtime_ns)
		return;
	bb_tiou_fmt_tick(line, sizeof(line), &d, cfg->bs,
			 bb_target_is_nop(cfg->target), &iops);
	o->max_iops = bb_max(o->max_iops, iops);
	if (o->lines && o->ticks) {
		fputs(line, stdout);
		fflush(stdout);
	}
}

/* After the run: "Exiting on ...", the maximum, the percentile blocks
 * (per thread, as t/io_uring), then biobench's summary. */
static void tiou_end(const struct bb_config *cfg, const struct bb_result *r,
		     struct tiou_out *o, bool timeout)
{
	char *buf = malloc(4096);

	if (!buf)
		return;
	bb_tiou_fmt_exit(buf, 4096, timeout);
	fputs(buf, stdout);
	bb_tiou_fmt_max_iops(buf, 4096, o->max_iops);
	fputs(buf, stdout);
	for (unsigned i = 0; cfg->lat != BB_LAT_OFF && i < r->nthreads; i++) {
		uint64_t vals[BB_TIOU_NPCT];

		if (!r->threads[i].lat)
			continue;
		bb_tiou_percentiles(r->threads[i].lat, vals);
		bb_tiou_fmt_latency(buf, 4096, r->threads[i].tid, vals, false);
		fputs(buf, stdout);
	}
	free(buf);
	fputs("\n", stdout);
	bb_result_fprint(stdout, cfg, r);
	fflush(stdout);
}

/* What `biobench tiou` refuses that a run option could ask for. */
static int refuse(const struct bb_config *cfg, char *err, size_t errlen)
{
	if (bb_rw_writes(cfg->rw))
		return bb_errf(err, errlen, -EINVAL,
			       "--rw %s: t/io_uring only reads, and so does "
			       "biobench tiou (biobench run writes, with "
			       "--allow-write)",
			       bb_rw_name(cfg->rw));
	if (cfg->allow_write || cfg->verify)
		return bb_errf(err, errlen, -EINVAL,
			       "--%s: t/io_uring only reads, and so does "
			       "biobench tiou (see biobench run)",
			       cfg->verify ? "verify" : "allow-write");
	return 0;
}

/* A failed run's message in t/io_uring's terms where it has one. */
static void run_failed(const struct bb_tiou *t, const char *err)
{
	static const char poll[] = "--mode poll: ";

	if (t->polled && !strncmp(err, poll, sizeof(poll) - 1))
		fprintf(stderr,
			"biobench tiou: -p1 (polled I/O, t/io_uring's "
			"default): %s; give -p0 (t/io_uring itself would spin "
			"forever here)\n",
			err + sizeof(poll) - 1);
	else
		fprintf(stderr, "biobench tiou: %s\n", err);
}

int bb_cmd_tiou(int argc, char **argv)
{
	struct bb_tiou *t = calloc(1, sizeof(*t));
	struct bb_config *cfg = calloc(1, sizeof(*cfg));
	struct bb_devlocks lock = { 0 };
	struct bb_cli_sigwatch sw = { 0 };
	struct bb_quiesce_params qp;
	struct bb_quiesce_result q = { 0 };
	struct bb_run_hooks h = { 0 };
	struct tiou_out o = { 0 };
	struct bb_result r;
	_Atomic bool cancel = false;
	bool have_result = false;
	char err[1024], notes[2048];
	int ret, rc = BB_EXIT_USAGE, signo;

	if (!t || !cfg) {
		fprintf(stderr, "biobench tiou: out of memory\n");
		rc = BB_EXIT_FAIL;
		goto out;
	}
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help")) {
			tiou_usage(stdout);
			rc = BB_EXIT_OK;
			goto out;
		}
	ret = bb_tiou_parse(argc, argv, t, err, sizeof(err));
	if (ret == 1) {
		tiou_usage(stdout);
		rc = BB_EXIT_OK;
		goto out;
	}
	if (ret) {
		fprintf(stderr, "biobench tiou: %s\n", err);
		goto out;
	}
	bb_config_default(cfg);
	ret = bb_tiou_to_config(t, cfg, err, sizeof(err));
	if (!ret)
		ret = bb_tiou_apply_options(argc, argv, t->rest, t, cfg, err,
					    sizeof(err));
	if (ret == 1) {
		tiou_usage(stdout);
		rc = BB_EXIT_OK;
		goto out;
	}
	if (!ret)
		ret = refuse(cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "biobench tiou: %s\n", err);
		rc = ret == -ENOMEM ? BB_EXIT_FAIL : BB_EXIT_USAGE;
		goto out;
	}
	if (bb_tiou_notes(t, notes, sizeof(notes)))
		for (char *l = strtok(notes, "\n"); l; l = strtok(NULL, "\n"))
			fprintf(stderr, "biobench %s\n", l);
	if (t->numa_placement && bb_host_numa_nodes() <= 1)
		fprintf(stderr, "biobench tiou: -P1 has no effect: this host "
				"has one NUMA node\n");

	/* Ctrl-C from here to the end is t/io_uring's: the run stops,
	 * "Exiting on signal", the summary, exit 0; another one while it
	 * stops or prints does not kill it (t/io_uring's handler only sets
	 * its finish flag): nothing is left to restore, SIGKILL ends it */
	rc = BB_EXIT_FAIL;
	if (bb_cli_sigwatch_start(&sw, &cancel, "biobench tiou", NULL,
				  false)) {
		fprintf(stderr, "biobench tiou: cannot watch signals\n");
		goto out;
	}
	/* one benchmark per device at a time, as biobench run */
	if (bb_devlocks_take(&lock, cfg->target, sizeof(cfg->target),
			     cfg->ntargets, "biobench tiou",
			     "", err, sizeof(err))) {
		fprintf(stderr, "biobench tiou: %s\n", err);
		goto out;
	}
	o.t = t;
	o.cancel = &cancel;
	o.lines = !cfg->json;
	o.ticks = !cfg->quiet;
	h.sample = tiou_tick;
	h.started = tiou_started;
	h.arg = &o;
	h.cancel = &cancel;
	ret = bb_run_hooked(cfg, &r, &h, err, sizeof(err));
	have_result = true;
	bb_devlocks_release(&lock);
	signo = atomic_load(&sw.signo);
	if (ret == -ECANCELED && signo) {
		ret = 0; /* interrupted: the result is what ran */
		r.error[0] = '\0';
	}
	if (ret) {
		fflush(stdout);
		run_failed(t, err);
		goto out;
	}
	if (cfg->json) {
		struct json_object *doc = bb_result_to_json(cfg, &r);

		if (signo)
			json_object_object_add(doc, "interrupted",
					       json_object_new_string(
						       bb_cli_signame(signo)));
		bb_cli_print_json(stdout, doc);
		json_object_put(doc);
	} else {
		tiou_end(cfg, &r, &o, !signo);
	}
	bb_quiesce_params_init(&qp);
	if (bb_quiesce_mark_stall(&q, &qp, r.stall_ns))
		fprintf(stderr,
			"biobench tiou: warning: disturbed: %s (the process "
			"was stopped or starved): the figures are not the "
			"workload's alone\n",
			q.reason);
	rc = BB_EXIT_OK;
out:
	if (have_result)
		bb_result_free(&r);
	bb_cli_sigwatch_stop(&sw);
	bb_devlocks_release(&lock);
	free(t);
	free(cfg);
	return rc;
}
