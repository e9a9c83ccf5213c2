/* SPDX-License-Identifier: GPL-2.0-only */
/* http.h - biobenchd's HTTP API (libmicrohttpd + json-c).
 *
 * The request handling is transport-free: bb_http_handle() maps a request
 * (method, path, query arguments, headers that matter, body) to a
 * response, so tests and fuzz targets drive it without sockets; the
 * libmicrohttpd glue (bb_http_start) only collects the request (body
 * limited to max_body: 413 beyond) and sends the response.  One file per
 * route under daemon/routes/.
 *
 * Errors: {"error": {"code": "<slug>", "message": "...", "field": "..." |
 * null}} with 400 (bad input; job specs also carry "errors": [{field,
 * message}...] for every error found), 401 (token), 403 (target not
 * allowed), 404, 405 (with Allow), 409 (state conflict), 413, 500, 503. */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include "dconfig.h"
#include "scheduler.h"
#include "store.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>

#define BB_HTTP_MAX_ARGS 16
#define BB_HTTP_PER_IP_LIMIT 64 /* connections per peer, non-loopback
				    listeners only */

struct bb_http_ctx {
	struct bb_store *store;      /* HTTP threads' handle */
	struct bb_sched *sched;      /* NULL in tests without a scheduler:
					submitted jobs stay queued */
	pthread_rwlock_t cfg_lock;   /* cfg is replaced on SIGHUP */
	struct bb_dconfig *cfg;
	uint64_t start_ns;           /* bb_now_ns() at start (uptime) */
	const char *version;
	struct json_object *host;    /* bb_host_info() at start */
	/* /metrics: the store's counts, reused for BB_HTTP_METRICS_TTL_NS
	 * (counting every job per scrape would serialise the HTTP threads
	 * on the store under load); see bb_http_ctx_init/_destroy */
	pthread_mutex_t metrics_lock;
	struct json_object *metrics;
	uint64_t metrics_ns;
};

#define BB_HTTP_METRICS_TTL_NS 1000000000ull

/* Set up / release what the context owns besides the caller's fields
 * (the /metrics cache).  0 or -errno. */
int bb_http_ctx_init(struct bb_http_ctx *ctx);
void bb_http_ctx_destroy(struct bb_http_ctx *ctx);

struct bb_http_arg {
	const char *key, *value;
};

struct bb_http_request {
	const char *method;          /* "GET", "POST", ... */
	const char *path;            /* without the query, URL-decoded */
	unsigned nargs;
	struct bb_http_arg args[BB_HTTP_MAX_ARGS];
	const char *authorization;   /* the header, or NULL */
	bool loopback;               /* peer is 127.0.0.0/8 or ::1 */
	const char *body;            /* may be NULL when body_len is 0 */
	size_t body_len;
};

struct bb_http_response {
	int status;
	const char *content_type;    /* static string */
	char *body;                  /* malloc'd (freed by the caller) */
	size_t len;
	const char *allow;           /* Allow header for 405, else NULL */
	const char *cache_control;   /* static string or NULL */
};

/* Handle one request.  Authentication: when the config has a token, every
 * request needs "Authorization: Bearer <token>" (compared in constant
 * time; 401 otherwise) except GET /api/v1/health from loopback and GET of
 * the dashboard's static files (anything outside /api/ and /metrics).  Never fails: internal errors become a 500 response.  */
void bb_http_handle(struct bb_http_ctx *ctx, const struct bb_http_request *rq,
		    struct bb_http_response *rs);

/* Helpers for routes: a JSON response (takes the object's reference), an
 * error response, a query argument (NULL when absent). */
void bb_http_json(struct bb_http_response *rs, int status,
		  struct json_object *obj);
void bb_http_error(struct bb_http_response *rs, int status,
		   const char *code, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
const char *bb_http_arg(const struct bb_http_request *rq, const char *key);

struct bb_http;

/* Listen on cfg's address and port with its limits (connection limit,
 * timeout, http_threads pinned to http_cpus).  0 or -errno with a
 * message. */
int bb_http_start(struct bb_http **out, struct bb_http_ctx *ctx, char *err,
		  size_t errlen);
void bb_http_stop(struct bb_http *h);

#endif
