// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_dconfig.c - libFuzzer target: biobenchd's configuration.
 *
 * First byte 'A': the rest is a command line split at NUL/newline bytes
 * (at most 64 arguments) for bb_dconfig_args; "--config" arguments are dropped (they would read
 * arbitrary files of the fuzzing host) and --help is skipped (it prints
 * the usage).  Any other first byte (seeds use 'I'): the rest is an INI
 * file, written to a memfd and loaded with bb_dconfig_load (path
 * /proc/self/fd/N).
 *
 * Oracles beyond the sanitizers: a refusal (-errno) has a non-empty
 * message; after a successful load every field is in its documented
 * range (allow-list count, CPU counts, strings terminated, max_body,
 * http_threads, timeout). */
#include "dconfig.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAX_ARGS 64

static void check_config(const struct bb_dconfig *c)
{
	if (c->nallow > BB_DCONFIG_MAX_ALLOW ||
	    c->n_http_cpus > BB_DCONFIG_MAX_CPUS ||
	    c->n_bench_cpus > BB_DCONFIG_MAX_CPUS)
		__builtin_trap();
	if (!memchr(c->listen_addr, 0, sizeof(c->listen_addr)) ||
	    !memchr(c->db_path, 0, sizeof(c->db_path)) ||
	    !memchr(c->web_root, 0, sizeof(c->web_root)) ||
	    !memchr(c->token_file, 0, sizeof(c->token_file)))
		__builtin_trap();
	for (unsigned i = 0; i < c->nallow; i++)
		if (!memchr(c->allow[i].pattern, 0, sizeof(c->allow[i].pattern)) ||
		    !c->allow[i].pattern[0])
			__builtin_trap();
	if (!c->db_path[0] || !c->web_root[0] || !c->listen_addr[0] ||
	    !c->port)
		__builtin_trap();
	if (c->max_body < 1 || c->max_body > (1u << 30) ||
	    c->http_threads < 1 || c->http_threads > 64 ||
	    c->timeout_s < 1 || c->timeout_s > 86400 ||
	    c->max_connections < 1 || c->max_connections > 65536)
		__builtin_trap();
	for (unsigned i = 0; i < c->n_http_cpus; i++)
		if (c->http_cpus[i] < 0)
			__builtin_trap();
	for (unsigned i = 0; i < c->n_bench_cpus; i++)
		if (c->bench_cpus[i] < 0)
			__builtin_trap();
}

static void fuzz_ini(const uint8_t *data, size_t size)
{
	struct bb_dconfig *c = malloc(sizeof(*c));
	char path[64], err[1024] = "";
	int fd, ret;

	if (!c)
		abort();
	fd = memfd_create("bb-fuzz.conf", MFD_CLOEXEC);
	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	bb_dconfig_default(c);
	ret = bb_dconfig_load(c, path, err, sizeof(err));
	if (ret && !err[0])
		__builtin_trap();
	if (!ret)
		check_config(c);
	close(fd);
	free(c);
}

static void fuzz_args(const uint8_t *data, size_t size)
{
	struct bb_dconfig *c = malloc(sizeof(*c));
	char *buf = malloc(size + 1), *argv[MAX_ARGS + 2];
	char err[1024] = "";
	int argc = 0, ret;
	size_t start = 0;

	if (!c || !buf)
		abort();
	memcpy(buf, data, size);
	buf[size] = '\0';
	argv[argc++] = "biobenchd";
	for (size_t i = 0; i <= size && argc < MAX_ARGS + 1; i++) {
		if (i == size || buf[i] == '\0' || buf[i] == '\n') {
			buf[i] = '\0';
			argv[argc++] = buf + start;
			start = i + 1;
		}
	}
	/* no files of the host, no usage printed */
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t n;

		if (strncmp(a, "--", 2))
			continue;
		a += 2;
		n = strcspn(a, "=");
		if ((n == 6 && !strncmp(a, "config", 6)) ||
		    (n == 4 && !strncmp(a, "help", 4)))
			argv[i] = "--foreground";
	}
	argv[argc] = NULL;
	bb_dconfig_default(c);
	ret = bb_dconfig_args(c, argc, argv, err, sizeof(err));
	if (ret < 0 && !err[0])
		__builtin_trap();
	if (!ret)
		check_config(c);
	free(buf);
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	if (data[0] == 'A')
		fuzz_args(data + 1, size - 1);
	else
		fuzz_ini(data + 1, size - 1);
	return 0;
}
