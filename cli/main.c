// SPDX-License-Identifier: GPL-2.0-only
/* biobench - command-line front end: local runs (`run`, `tiou`, `ab`) and the
 * client of biobenchd (`submit`, `jobs`, `show`, `compare`, `watch`,
 * `cancel`, `devices`, `host`, `hosts`). */
#include "cli.h"
#include "devices_local.h"

#include <biobench/common.h>

#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

struct bb_cli_cmd {
	const char *name;
	int (*local)(int argc, char **argv);
	int (*client)(const struct bb_cli_globals *g, int argc, char **argv);
};

static const struct bb_cli_cmd commands[] = {
	{ "run", bb_cmd_run, NULL },
	{ "tiou", bb_cmd_tiou, NULL },
	{ "ab", bb_cmd_ab, NULL },
	{ "calibrate", bb_cmd_calibrate, NULL },
	{ "submit", NULL, bb_cmd_submit },
	{ "jobs", NULL, bb_cmd_jobs },
	{ "show", NULL, bb_cmd_show },
	{ "compare", NULL, bb_cmd_compare },
	{ "watch", NULL, bb_cmd_watch },
	{ "cancel", NULL, bb_cmd_cancel },
	{ "devices", NULL, bb_cmd_devices },
	{ "host", NULL, bb_cmd_host },
	{ "hosts", NULL, bb_cmd_hosts },
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: biobench [--server URL] [--token-file FILE] COMMAND "
		"[OPTIONS]\n"
		"\n"
		"Local runs (no daemon):\n"
		"  run [OPTIONS] TARGET      run one benchmark on TARGET (nop, a "
		"file or a block device)\n"
		"  tiou [T/IO_URING OPTIONS] FILE... [--OPTION...]\n"
		"                            fio's t/io_uring command line, "
		"verbatim: its output\n"
		"                            lines, then biobench's summary\n"
		"  ab JOBFILE|-              run an A/B job here and print the "
		"comparison\n"
		"  ab [OPTIONS] --a KEY=VAL... --b KEY=VAL... TARGET\n"
		"                            the same for a workload given as "
		"run options\n"
		"  calibrate [--jobs N] [--cross-job K] [--slowdown PCT] JOBFILE|-\n"
		"                            A/A jobs: this host's false-positive "
		"rate and the\n"
		"                            smallest change detected (power with "
		"--slowdown)\n"
		"\n"
		"Client of biobenchd (--server URL, default $BIOBENCH_SERVER, "
		"else %s):\n"
		"  submit FILE|- [--wait]    submit a job, print its id "
		"(--wait: follow it)\n"
		"  jobs [--state S] [--limit N]\n"
		"                            list jobs: id, name, state, "
		"progress, verdict, age\n"
		"  show ID                   one job: state, plan, variants, "
		"host, device, comparison\n"
		"  compare ID                a job's A vs B table: medians, "
		"change, CI, p-value, verdict\n"
		"  watch ID                  follow a job until it ends, then "
		"print its verdict\n"
		"  cancel ID                 cancel a queued or running job\n"
		"  devices                   block devices and what the "
		"allow-list permits\n"
		"  devices --local           this host's NVMe controllers and "
		"block devices (no daemon)\n"
		"  host                      the daemon's host and version\n"
		"  hosts                     the daemons sharing its store (the "
		"fleet): last seen,\n"
		"                            kernel, running job\n"
		"\n"
		"  help [COMMAND]            this text, or a command's\n"
		"  --version                 biobench's version\n"
		"\n"
		"Every client command takes --json (the API's document as is), "
		"--server URL and\n"
		"--token-file FILE (a bearer token; default "
		"$BIOBENCH_TOKEN_FILE).\n"
		"`biobench COMMAND --help` lists a command's options.\n"
		"\n"
		"Exit status: 0 ok, 1 a run or job failed or the server "
		"answered an error,\n"
		"2 usage error, 3 biobenchd cannot be reached.\n",
		BB_DEFAULT_SERVER);
}

static const struct bb_cli_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* "biobench: unknown command 'comapre': did you mean compare? ..."; the
 * usage exit code. */
static int unknown_cmd(const char *name)
{
	struct bb_nearest nr;

	bb_nearest_init(&nr, name);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		bb_nearest_add(&nr, commands[i].name);
	fprintf(stderr, "biobench: unknown command '%s'%s%s%s (see biobench "
			"help)\n",
		name, nr.best ? ": did you mean " : "", nr.best ? nr.best : "",
		nr.best ? "?" : "");
	return BB_EXIT_USAGE;
}

/* `biobench devices --local ...`: the local listing, without --local. */
static int devices_local(int argc, char **argv)
{
	char *args[64];
	int n = 0;

	for (int i = 0; i < argc && n < 63; i++)
		if (strcmp(argv[i], "--local"))
			args[n++] = argv[i];
	args[n] = NULL;
	return bb_cmd_devices_local(n, args);
}

static bool has_arg(int argc, char **argv, const char *arg)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], arg))
			return true;
	return false;
}

static int run_cmd(const struct bb_cli_cmd *cmd,
		   const struct bb_cli_globals *g, int argc, char **argv)
{
	int ret;

	if (cmd->local)
		return cmd->local(argc, argv);
	if (!strcmp(cmd->name, "devices") && has_arg(argc, argv, "--local")) {
		if (argc > 63) {
			fprintf(stderr, "biobench devices: too many "
					"arguments\n");
			return BB_EXIT_USAGE;
		}
		return devices_local(argc, argv);
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT)) {
		fprintf(stderr, "biobench: cannot initialise libcurl\n");
		return BB_EXIT_FAIL;
	}
	ret = cmd->client(g, argc, argv);
	curl_global_cleanup();
	return ret;
}

int main(int argc, char **argv)
{
	struct bb_cli_globals g = { 0 };
	const struct bb_cli_cmd *cmd;
	int i;

	/* global options before the command */
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		const char **dst = NULL;
		size_t n = 0;

		if (!strcmp(a, "help") || !strcmp(a, "--help") ||
		    !strcmp(a, "-h")) {
			usage(stdout);
			return BB_EXIT_OK;
		}
		if (!strcmp(a, "--version") || !strcmp(a, "-V")) {
			printf("biobench %s\n", bb_version());
			return BB_EXIT_OK;
		}
		if (!strncmp(a, "--server", 8) && (!a[8] || a[8] == '=')) {
			dst = &g.server;
			n = 8;
		} else if (!strncmp(a, "--token-file", 12) &&
			   (!a[12] || a[12] == '=')) {
			dst = &g.token_file;
			n = 12;
		}
		if (!dst) {
			fprintf(stderr,
				"biobench: unknown option '%s' (see biobench "
				"--help)\n",
				a);
			return BB_EXIT_USAGE;
		}
		if (a[n] == '=') {
			*dst = a + n + 1;
		} else if (i + 1 < argc) {
			*dst = argv[++i];
		} else {
			fprintf(stderr, "biobench: %.*s needs a value\n",
				(int)n, a);
			return BB_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return BB_EXIT_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		char help[] = "--help";
		char *hargv[] = { argv[i + 1], help, NULL };

		if (i + 1 >= argc) {
			usage(stdout);
			return BB_EXIT_OK;
		}
		cmd = find_cmd(argv[i + 1]);
		if (!cmd)
			return unknown_cmd(argv[i + 1]);
		return run_cmd(cmd, &g, 2, hargv);
	}
	cmd = find_cmd(argv[i]);
	if (!cmd)
		return unknown_cmd(argv[i]);
	if (cmd->local && (g.server || g.token_file)) {
		fprintf(stderr, "biobench %s: runs locally; --server and "
				"--token-file are for the client commands\n",
			cmd->name);
		return BB_EXIT_USAGE;
	}
	return run_cmd(cmd, &g, argc - i, argv + i);
}
