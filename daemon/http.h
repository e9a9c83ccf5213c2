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
 * allowed, cross-site request), 404, 405 (with Allow), 409 (state
 * conflict), 413, 415 (a POST that is not application/json), 421 (Host
 * not this daemon's), 429 (queue full), 500, 503. */
#ifndef BB_HTTP_H
#define BB_HTTP_H

#include "dconfig.h"
#include "scheduler.h"
#include "store.h"

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>

#define BB_HTTP_MAX_ARGS 16

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
	const char *host;            /* Host header, or NULL */
	const char *origin;          /* Origin header, or NULL */
	const char *fetch_site;      /* Sec-Fetch-Site header, or NULL */
	const char *content_type;    /* Content-Type header, or NULL */
	bool loopback;               /* peer is 127.0.0.0/8 or ::1 */
	const char *body;            /* may be NULL when body_len is 0 */
	size_t body_len;
};

struct bb_http_response {
	int status;
	const char *content_type;    /* static string */
	char *body;                  /* malloc'd (freed by the caller) */
	size_t len;
	bool has_fd;                 /* the body is fd's first fd_len bytes
					(static files: sent from the file,
					not copied into memory); the fd is
					the caller's to close */
	int fd;
	uint64_t fd_len;
	int retry_after;             /* Retry-After seconds (429), 0: none */
	const char *allow;           /* Allow header for 405, else NULL */
	const char *cache_control;   /* static string or NULL */
};

/* Handle one request, checked in this order:
 *  - Host: the listen address (with its port), localhost, 127.0.0.1 or
 *    [::1] (without a port or with the listen port), or an allowed_hosts
 *    entry; else 421 (400 without a Host header): a page of another
 *    site whose name resolves to this host (DNS rebinding) is refused;
 *  - the body size (413);
 *  - authentication: when the config has a token, every request needs
 *    "Authorization: Bearer <token>" (compared in constant time; 401
 *    otherwise) except GET /api/v1/health from loopback and GET of the
 *    dashboard's static files (anything outside /api/ and /metrics);
 *  - the route (404, 405); then for a state-changing request (a POST
 *    route): Sec-Fetch-Site "cross-site" or an Origin other than this
 *    daemon's (see bb_http_host_allowed) -> 403, a Content-Type other
 *    than application/json -> 415 (a cross-site form or text/plain POST
 *    cannot set it without a CORS preflight, which is never answered).
 * Never fails: internal errors become a 500 response.  The caller frees
 * the response with bb_http_response_free. */
void bb_http_handle(struct bb_http_ctx *ctx, const struct bb_http_request *rq,
		    struct bb_http_response *rs);

/* Release a response's body and fd. */
void bb_http_response_free(struct bb_http_response *rs);

/* For callers without sockets (tests, fuzzing): read an fd response into
 * body (at most max bytes), closing the fd.  0 or -errno. */
int bb_http_response_load(struct bb_http_response *rs, size_t max);

/* Whether host (a Host header value, "NAME[:PORT]" or "[V6]:PORT") names
 * this daemon: see bb_http_handle.  strict (for an Origin's authority):
 * localhost names and the listen address need the listen port. */
bool bb_http_host_allowed(const struct bb_dconfig *cfg, const char *host,
			  size_t len, bool strict);

/* "Bearer <token>" in hdr carries token (token_len bytes): the time taken
 * depends on the lengths only, never on the bytes of the token (no
 * branch or index on them; tests/unit/test_http.c checks this under
 * valgrind). */
bool bb_http_token_ok(const char *token, size_t token_len, const char *hdr);

/* Helpers for routes: a JSON response (takes the object's reference), an
 * error response, a query argument (NULL when absent). */
void bb_http_json(struct bb_http_response *rs, int status,
		  struct json_object *obj);
void bb_http_error(struct bb_http_response *rs, int status,
		   const char *code, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
const char *bb_http_arg(const struct bb_http_request *rq, const char *key);

struct bb_http;

/* Listen on cfg's address and port with its limits (max_connections,
 * max_connections_per_peer, the idle timeout, request_timeout for a whole
 * request from the connection's start or its previous answer: a client
 * that trickles its request head is cut off then), http_threads pinned to
 * http_cpus.  0 or -errno with a message ("cannot listen on
 * 127.0.0.1:8420: Address already in use"). */
int bb_http_start(struct bb_http **out, struct bb_http_ctx *ctx, char *err,
		  size_t errlen);
void bb_http_stop(struct bb_http *h);

#endif
