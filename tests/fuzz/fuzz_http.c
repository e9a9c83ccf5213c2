// SPDX-License-Identifier: GPL-2.0-only
/* fuzz_http.c - libFuzzer target: biobenchd's request handling without
 * sockets (bb_http_handle: authentication, routing, every route, static
 * files) against a real sqlite store in a temporary directory, with no
 * scheduler (submitted jobs stay queued).
 *
 * Input (text, so that seeds are readable):
 *   METHOD SP URL LF                 URL = path[?k=v&k=v...], %-encoded
 *   (NAME: VALUE LF)*                headers; the ones that matter:
 *                                    Authorization, Host (default
 *                                    127.0.0.1:8420), Origin,
 *                                    Sec-Fetch-Site, Content-Type
 *                                    (default application/json on a
 *                                    POST), X-Token: 1 (the daemon has a
 *                                    bearer token), X-Remote: 1 (peer
 *                                    not loopback)
 *   LF
 *   BODY                             everything after the blank line
 * The path is %-decoded like the daemon's unescape callback (%00 kept as
 * is), query arguments like libmicrohttpd ('+' is a space); more than 16
 * arguments is what the glue refuses before bb_http_handle.
 *
 * Oracles beyond the sanitizers:
 *  - the status is one the API documents; 405 carries Allow; JSON bodies
 *    parse, and errors have {"error": {"code", "message"}};
 *  - no 500 (nothing a client sends may be an internal error here);
 *  - with a token configured, no API or /metrics answer other than 401
 *    (or 421/413/400 before authentication) without the token, except GET of
 *    /api/v1/health from loopback;
 *  - a static file served is never the one outside the web root. */
#include "http.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOKEN "s3cret-token-for-fuzzing"
#define SECRET "SECRET-OUTSIDE-THE-WEB-ROOT"
#define RESET_EVERY 20000 /* fresh database now and then: it grows */

static char dir[128], web[192], dbpath[192];
static struct bb_dconfig cfg_open, cfg_token;
static struct bb_http_ctx ctx;
static unsigned long iterations;

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void config(struct bb_dconfig *c, const char *token)
{
	bb_dconfig_default(c);
	snprintf(c->web_root, sizeof(c->web_root), "%s", web);
	snprintf(c->db_path, sizeof(c->db_path), "%s", dbpath);
	snprintf(c->token, sizeof(c->token), "%s", token);
	c->token_len = strlen(c->token);
	c->max_body = 64 * 1024;
	c->nallow = 3;
	snprintf(c->allow[0].pattern, sizeof(c->allow[0].pattern), "nop");
	snprintf(c->allow[1].pattern, sizeof(c->allow[1].pattern),
		 "%s/*.dat", dir);
	snprintf(c->allow[2].pattern, sizeof(c->allow[2].pattern),
		 "%s/rw/*.dat", dir);
	c->allow[2].write = true;
}

#define SPEC "{\"name\":\"seed\",\"target\":\"nop\",\"workload\":" \
	     "{\"number_ios\":1000},\"variants\":{\"A\":{},\"B\":{}}," \
	     "\"repeat\":2,\"warmup\":0}"

static void open_store(void)
{
	char err[512] = "";
	int64_t id;
	struct bb_store_run run = { .variant = "A", .state = "failed",
				    .error = "seeded failure" };

	unlink(dbpath);
	if (bb_store_open(&ctx.store, dbpath, err, sizeof(err))) {
		fprintf(stderr, "fuzz_http: bb_store_open: %s\n", err);
		abort();
	}
	/* a few rows for the read routes: queued, done (with a run),
	 * cancelled */
	for (int i = 0; i < 3; i++)
		if (bb_store_job_insert(ctx.store, "seed", "nop", SPEC, 4, &id,
					err, sizeof(err)))
			abort();
	if (bb_store_job_start(ctx.store, 2, 0, 0, err, sizeof(err)))
		abort();
	run.job_id = 2;
	if (bb_store_run_insert(ctx.store, &run, NULL, err, sizeof(err)) ||
	    bb_store_job_finish(ctx.store, 2, BB_JOB_DONE, "no_change", NULL,
				NULL, err, sizeof(err)) ||
	    bb_store_job_finish(ctx.store, 3, BB_JOB_CANCELLED, NULL, NULL,
				"cancelled", err, sizeof(err))) {
		fprintf(stderr, "fuzz_http: seeding the store: %s\n", err);
		abort();
	}
}

static void cleanup(void)
{
	char cmd[256];

	if (ctx.store)
		bb_store_close(ctx.store);
	ctx.store = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (dir[0] && system(cmd))
		fprintf(stderr, "fuzz_http: cannot remove %s\n", dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char p[256];
	struct stat st;

	(void)argc;
	(void)argv;
	/* tmpfs when there is one: the store syncs job state changes */
	snprintf(dir, sizeof(dir), "%s/bb-fuzz-http.XXXXXX",
		 !stat("/dev/shm", &st) && S_ISDIR(st.st_mode) ? "/dev/shm"
								 : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(web, sizeof(web), "%s/web", dir);
	snprintf(dbpath, sizeof(dbpath), "%s/biobench.db", dir);
	if (mkdir(web, 0755))
		abort();
	snprintf(p, sizeof(p), "%s/index.html", web);
	write_file(p, "<!doctype html><title>biobench</title>\n");
	snprintf(p, sizeof(p), "%s/app.js", web);
	write_file(p, "console.log('bb');\n");
	snprintf(p, sizeof(p), "%s/sub", web);
	if (mkdir(p, 0755))
		abort();
	snprintf(p, sizeof(p), "%s/sub/index.html", web);
	write_file(p, "<p>sub</p>\n");
	snprintf(p, sizeof(p), "%s/secret.txt", dir);
	write_file(p, SECRET "\n");
	snprintf(p, sizeof(p), "%s/out.txt", web);
	if (symlink("../secret.txt", p))
		abort();
	snprintf(p, sizeof(p), "%s/outdir", web);
	if (symlink("..", p))
		abort();
	snprintf(p, sizeof(p), "%s/rw", dir);
	if (mkdir(p, 0755))
		abort();

	config(&cfg_open, "");
	config(&cfg_token, TOKEN);
	if (pthread_rwlock_init(&ctx.cfg_lock, NULL) || bb_http_ctx_init(&ctx))
		abort();
	ctx.cfg = &cfg_open;
	ctx.sched = NULL;
	ctx.start_ns = bb_now_ns();
	ctx.version = "0.0-fuzz";
	ctx.host = json_object_new_object();
	json_object_object_add(ctx.host, "hostname",
			       json_object_new_string("fuzzhost"));
	open_store();
	atexit(cleanup);
	return 0;
}

static unsigned hexval(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a') + 10;
}

/* In place; plus: '+' is a space (query arguments). */
static void decode(char *s, bool plus)
{
	char *r = s, *w = s;

	while (*r) {
		if (r[0] == '%' && isxdigit((unsigned char)r[1]) &&
		    isxdigit((unsigned char)r[2])) {
			unsigned v = hexval(r[1]) * 16 + hexval(r[2]);

			if (v || plus) {
				*w++ = (char)v;
				r += 3;
				continue;
			}
		}
		if (plus && *r == '+') {
			*w++ = ' ';
			r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

static bool documented_status(int s)
{
	static const int ok[] = { 200, 201, 400, 401, 403, 404, 405, 409,
				  413, 415, 421, 429, 503 };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (s == ok[i])
			return true;
	return false;
}

static void check_response(const struct bb_http_request *rq,
			   const struct bb_http_response *rs, bool token)
{
	bool get = !strcmp(rq->method, "GET") || !strcmp(rq->method, "HEAD");
	bool api = !strncmp(rq->path, "/api/", 5) ||
		   !strcmp(rq->path, "/api") || !strcmp(rq->path, "/metrics");
	bool authed = rq->authorization && strstr(rq->authorization, TOKEN);

	if (!documented_status(rs->status)) {
		fprintf(stderr, "%s %s: status %d: %.*s\n", rq->method,
			rq->path, rs->status, (int)rs->len,
			rs->body ? rs->body : "");
		__builtin_trap();
	}
	if (!rs->content_type || (rs->len && !rs->body))
		__builtin_trap();
	if (rs->status == 405 && !rs->allow)
		__builtin_trap();
	if (!strncmp(rs->content_type, "application/json", 16) &&
	    rs->status >= 400) {
		struct json_object *o, *e, *v;

		if (!rs->body || strlen(rs->body) != rs->len)
			__builtin_trap();
		o = json_tokener_parse(rs->body);
		if (!o || !json_object_object_get_ex(o, "error", &e) ||
		    !json_object_object_get_ex(e, "code", &v) ||
		    !json_object_is_type(v, json_type_string) ||
		    !json_object_object_get_ex(e, "message", &v) ||
		    !json_object_is_type(v, json_type_string)) {
			fprintf(stderr, "error body: %.*s\n", (int)rs->len,
				rs->body);
			__builtin_trap();
		}
		json_object_put(o);
	} else if (!strncmp(rs->content_type, "application/json", 16) &&
		   rs->body && strlen(rs->body) == rs->len &&
		   (api || strstr(rq->path, ".json") == NULL)) {
		struct json_object *o = json_tokener_parse(rs->body);

		if (!o) {
			fprintf(stderr, "%s %s: JSON body does not parse: "
				"%.200s\n", rq->method, rq->path, rs->body);
			__builtin_trap();
		}
		json_object_put(o);
	}
	/* authentication */
	if (token && !authed && rs->status != 401 && rs->status != 413 &&
	    rs->status != 421 && rs->status != 400) {
		bool open = get && (!api || (!strcmp(rq->path, "/api/v1/health")
					     && rq->loopback));

		if (!open) {
			fprintf(stderr, "%s %s answered %d without the token\n",
				rq->method, rq->path, rs->status);
			__builtin_trap();
		}
	}
	if (!token && rs->status == 401)
		__builtin_trap();
	/* the static file outside the web root (API answers may echo what
	 * the fuzzer stored, e.g. a job named like the secret) */
	if (!api && rs->status == 200 && rs->body &&
	    memmem(rs->body, rs->len, SECRET, strlen(SECRET))) {
		fprintf(stderr, "%s served a file outside the web root\n",
			rq->path);
		__builtin_trap();
	}
}

/* "Name: value" line h: *out = the value, when h is that header. */
static bool header(const char *h, const char *name, const char **out)
{
	size_t n = strlen(name);

	if (strncasecmp(h, name, n))
		return false;
	for (h += n; *h == ' '; h++)
		;
	*out = h;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *line, *next, *sp, *url, *q;
	struct bb_http_request rq = { 0 };
	struct bb_http_response rs;
	bool token = false;
	size_t off;

	if (!buf)
		abort();
	if (++iterations % RESET_EVERY == 0) {
		bb_store_close(ctx.store);
		open_store();
	}
	memcpy(buf, data, size);
	buf[size] = '\0';
	/* request line (a NUL ends it early, as it would a C string) */
	line = buf;
	next = memchr(buf, '\n', size);
	if (next)
		*next++ = '\0';
	sp = strchr(line, ' ');
	if (!sp)
		goto out;
	*sp = '\0';
	rq.method = line;
	url = sp + 1;
	sp = strchr(url, ' ');
	if (sp)
		*sp = '\0'; /* " HTTP/1.1" */
	rq.loopback = true;
	/* headers */
	while (next && next < buf + size) {
		char *h = next;

		next = memchr(h, '\n', (size_t)(buf + size - h));
		if (next)
			*next++ = '\0';
		if (!*h || !strcmp(h, "\r"))
			break;
		h[strcspn(h, "\r")] = '\0';
		if (header(h, "Authorization:", &rq.authorization) ||
		    header(h, "Host:", &rq.host) ||
		    header(h, "Origin:", &rq.origin) ||
		    header(h, "Sec-Fetch-Site:", &rq.fetch_site) ||
		    header(h, "Content-Type:", &rq.content_type)) {
			continue;
		} else if (!strncasecmp(h, "X-Token: 1", 10)) {
			token = true;
		} else if (!strncasecmp(h, "X-Remote: 1", 11)) {
			rq.loopback = false;
		}
	}
	off = next ? (size_t)(next - buf) : size;
	if (off > size)
		off = size;
	rq.body = size - off ? (const char *)data + off : NULL;
	rq.body_len = size - off;
	/* URL */
	q = strchr(url, '?');
	if (q) {
		char *tok, *save = NULL;

		*q++ = '\0';
		for (tok = strtok_r(q, "&", &save); tok;
		     tok = strtok_r(NULL, "&", &save)) {
			char *eq = strchr(tok, '=');

			if (rq.nargs >= BB_HTTP_MAX_ARGS)
				goto out; /* the glue answers 400 */
			if (eq)
				*eq++ = '\0';
			decode(tok, true);
			if (eq)
				decode(eq, true);
			rq.args[rq.nargs].key = tok;
			rq.args[rq.nargs].value = eq ? eq : "";
			rq.nargs++;
		}
	}
	decode(url, false);
	rq.path = url;

	if (!rq.host)
		rq.host = "127.0.0.1:8420";
	if (!rq.content_type && !strcmp(rq.method, "POST"))
		rq.content_type = "application/json";
	ctx.cfg = token ? &cfg_token : &cfg_open;
	bb_http_handle(&ctx, &rq, &rs);
	/* static files come as an fd: read them for the checks */
	if (bb_http_response_load(&rs, 1 << 20))
		__builtin_trap();
	if (rq.path[0] == '/')
		check_response(&rq, &rs, token);
	bb_http_response_free(&rs);
out:
	free(buf);
	return 0;
}
