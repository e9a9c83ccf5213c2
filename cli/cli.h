/* SPDX-License-Identifier: GPL-2.0-only */
/* cli.h - the biobench subcommands and what they share.  Each command
 * returns the process exit code:
 *   0 ok, 1 the run or job failed or the server answered an error,
 *   2 usage error or invalid job (a job file refused by the parser, here
 *   or by the daemon: the same code for ab, calibrate and submit),
 *   3 the daemon cannot be reached. */
#ifndef BB_CLI_H
#define BB_CLI_H

#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	BB_EXIT_OK = 0,
	BB_EXIT_FAIL = 1,
	BB_EXIT_USAGE = 2,   /* also: an invalid job */
	BB_EXIT_UNREACHABLE = 3,
};

#define BB_DEFAULT_SERVER "http://127.0.0.1:8420"

/* Options given before the command (`biobench --server URL jobs`); a
 * command's own --server / --token-file win over them, they win over
 * BIOBENCH_SERVER / BIOBENCH_TOKEN_FILE. */
struct bb_cli_globals {
	const char *server;
	const char *token_file;
};

/* Local runs. */
int bb_cmd_run(int argc, char **argv);
int bb_cmd_tiou(int argc, char **argv);
int bb_cmd_ab(int argc, char **argv);
int bb_cmd_calibrate(int argc, char **argv);

/* Daemon client commands (cmd_client.c); argv[0] is the command name. */
int bb_cmd_submit(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_jobs(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_show(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_compare(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_watch(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_cancel(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_devices(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_host(const struct bb_cli_globals *g, int argc, char **argv);
int bb_cmd_hosts(const struct bb_cli_globals *g, int argc, char **argv);

/* ---- compare_fmt.c: the comparison printer --------------------------- */

/* Print a comparison: cmp is bb_jobrun_to_json()'s document (what the
 * daemon stores as a job's "compare", and what local `ab` computes);
 * spec, when not NULL, is the job document (its "variants" give the
 * overrides row); warnings, when not NULL, a JSON array of strings;
 * noise_floor, when not NULL, the job document's "noise_floor" (the
 * host's A/A spread).  The statistics used (method, alpha, adjustment,
 * TOST margin), a table with one column per variant (runs, median,
 * change, the CI under its real coverage, p-value, adjusted p when
 * several variants, TOST p, verdict, the measured values when few,
 * cache and split counters), then each comparison's one-line text, the
 * noise by level, the host's noise floor, the disturbed runs with what
 * disturbed each, the warnings, and "verdict: <job verdict>" ("none (the
 * job failed)" when cmp carries a "job_state" of a job that ended
 * without finishing: cmd_client.c puts the job's state and counts in). */
void bb_cli_compare_print(FILE *f, struct json_object *cmp,
			  struct json_object *spec,
			  struct json_object *warnings,
			  struct json_object *noise_floor);

/* Value of a metric in its unit ("IO/s", "B/s", "ns", "ns/IO"), short:
 * "10.78M", "1.23 GiB/s", "12.3us", "123.4ns". */
void bb_cli_fmt_metric(char *buf, size_t len, double v, const char *unit);

/* 1234567 -> "1.23M", 612948 -> "612.9K", 999 -> "999": bb_fmt_iops(),
 * the rule biobench prints IOPS with everywhere. */
void bb_cli_fmt_si(char *buf, size_t len, double v);

/* Seconds as "850ms", "42s", "3m05s", "2h10m", "3d4h". */
void bb_cli_fmt_duration(char *buf, size_t len, double s);

/* The overrides of a variant of a job document ("bio_cache=off
 * sysfs.nomerges=2"), "(workload)" when it has none. */
void bb_cli_variant_label(char *buf, size_t len, struct json_object *spec,
			  const char *variant);

/* ---- sigwatch.c: Ctrl-C of the local runs ------------------------------ */

/* SIGINT, SIGTERM and SIGHUP blocked in every thread and taken by one
 * thread with sigwait(): each sets *cancel (the run stops within ~100 ms
 * and the command prints what ran) and, when what is not NULL, prints
 * "\nPROG: Interrupt: WHAT" on stderr.  With second_kills, a signal
 * after the first one takes its default action (the process dies): for
 * runs that restore nothing. */
struct bb_cli_sigwatch {
	pthread_t tid;
	sigset_t set, old;
	_Atomic bool *cancel;
	_Atomic int signo;    /* the first signal taken, 0: none */
	const char *prog;
	const char *what;
	bool second_kills;
	bool started;
};

/* Start watching (before the threads of the run start, so that they
 * inherit the blocked mask); 0 or -errno. */
int bb_cli_sigwatch_start(struct bb_cli_sigwatch *w, _Atomic bool *cancel,
			  const char *prog, const char *what,
			  bool second_kills);

/* Stop watching and restore the signal mask; harmless when not started. */
void bb_cli_sigwatch_stop(struct bb_cli_sigwatch *w);

/* "SIGINT", "SIGTERM", "SIGHUP" (else "a signal"). */
const char *bb_cli_signame(int sig);

/* ---- compare_jobs_fmt.c: the comparison of jobs ----------------------- */

/* Print GET /api/v1/compare's document (bb_jobcmp, jobcompare.h): the
 * jobs, the statistics used, per variant a table with a column per job
 * (runs, median, run-to-run spread, boots, disturbed runs, ratio of
 * medians, change, the CI under its real coverage, p, Holm p, TOST p,
 * verdict), each comparison's line, the boots statement, the table of
 * what differs ("*" marks a row that differs; host, run, target, device
 * and queue rows all, job and config rows only when they differ), the
 * warnings and "verdict: <worst>". */
void bb_cli_compare_jobs_print(FILE *f, struct json_object *doc);

/* ---- compare_group_fmt.c: the comparison of a group job ---------------- */

/* Print GET /api/v1/jobs/{parent}/compare of a group (one job on several
 * hosts): a row per host and comparison (host, its job, state, n, change,
 * the CI under its real coverage, p, verdict), then each comparison's
 * combined line (the hosts' range, pooled estimate, between-host SD,
 * I^2) and the hosts that disagree, the warnings and "verdict: ...". */
void bb_cli_compare_group_print(FILE *f, struct json_object *doc);

/* ---- util.c ----------------------------------------------------------- */

/* Read a whole file ("-": stdin) into a NUL-terminated buffer (at most
 * max bytes).  0, or -errno with a message naming the file. */
int bb_cli_read_file(const char *path, size_t max, char **buf, size_t *len,
		     char *err, size_t errlen);

/* Member of an object by a dotted path ("progress.run"); NULL when absent
 * or null. */
struct json_object *bb_cli_jget(struct json_object *o, const char *path);
const char *bb_cli_jstr(struct json_object *o, const char *path,
			const char *dflt);
double bb_cli_jnum(struct json_object *o, const char *path, double dflt);

/* Print a JSON document (pretty, no slash escaping) and a newline,
 * through bb_cli_fputs_json. */
void bb_cli_print_json(FILE *f, struct json_object *doc);

/* ---- escape.c: text from a server, made safe for a terminal ------------ */

/* s with control characters escaped: \n \t \r, other C0 and DEL as
 * \xNN, C1 (U+0080..U+009F) as \u00NN, a byte that is not UTF-8 as
 * \xNN; cut (never inside an escape or a character) to fit len.  The
 * length written. */
size_t bb_cli_esc(char *out, size_t len, const char *s);

/* A copy of a JSON document with every string value and object key
 * passed through bb_cli_esc: what the human-readable printers of the
 * client commands are given (NULL for NULL). */
struct json_object *bb_cli_json_escaped(struct json_object *doc);

/* JSON text (json-c's) written with what json-c leaves raw escaped too:
 * DEL and C1 as \u00NN, a byte that is not UTF-8 as \ufffd. */
void bb_cli_fputs_json(FILE *f, const char *text);

/* s cut to width characters (a cut one ends with an ellipsis, U+2026)
 * on a character boundary, padded with spaces to width. */
void bb_cli_fit(char *out, size_t len, const char *s, unsigned width);

/* The characters of s (UTF-8; a byte that is not UTF-8 counts one). */
unsigned bb_cli_chars(const char *s);

#endif
