// SPDX-License-Identifier: GPL-2.0-only
/* http.c - biobenchd's HTTP API: authentication, the routing table, the
 * JSON and error helpers (transport-free), and the libmicrohttpd glue. */
#include "http.h"
#include "log.h"
#include "routes/routes.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

/* ---- helpers for routes --------------------------------------------- */

static void bb_http_set_body(struct bb_http_response *rs, int status,
			     const char *type, const char *text)
{
	size_t n = strlen(text);

	free(rs->body);
	rs->body = malloc(n + 2);
	rs->status = status;
	rs->content_type = type;
	if (!rs->body) {
		rs->status = 500;
		rs->len = 0;
		return;
	}
	memcpy(rs->body, text, n);
	rs->body[n] = '\n';
	rs->body[n + 1] = '\0';
	rs->len = n + 1;
}

void bb_http_json(struct bb_http_response *rs, int status,
		  struct json_object *obj)
{
	const char *text;

	if (!obj) {
		bb_http_set_body(rs, 500, "application/json",
				 "{\"error\":{\"code\":\"internal\","
				 "\"message\":\"out of memory\","
				 "\"field\":null}}");
		return;
	}
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
					      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (!text)
		text = "{\"error\":{\"code\":\"internal\",\"message\":"
		       "\"cannot format the response\",\"field\":null}}";
	bb_http_set_body(rs, status, "application/json", text);
	json_object_put(obj);
}

void bb_http_error(struct bb_http_response *rs, int status,
		   const char *code, const char *field, const char *fmt, ...)
{
	struct json_object *o = json_object_new_object(), *e;
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	e = json_object_new_object();
	json_object_object_add(e, "code", json_object_new_string(code));
	json_object_object_add(e, "message", json_object_new_string(msg));
	json_object_object_add(e, "field",
			       field ? json_object_new_string(field) : NULL);
	json_object_object_add(o, "error", e);
	bb_http_json(rs, status, o);
}

const char *bb_http_arg(const struct bb_http_request *rq, const char *key)
{
	for (unsigned i = 0; i < rq->nargs && i < BB_HTTP_MAX_ARGS; i++)
		if (rq->args[i].key && !strcmp(rq->args[i].key, key))
			return rq->args[i].value ? rq->args[i].value : "";
	return NULL;
}

/* ---- routing --------------------------------------------------------- */

struct bb_route {
	const char *pattern;  /* "{id}" matches one non-empty segment */
	const char *allow;
	bb_route_fn *get;     /* GET and HEAD */
	bb_route_fn *post;
};

static const struct bb_route bb_routes[] = {
	{ "/api/v1/jobs", "GET, HEAD, POST", bb_route_jobs_list,
	  bb_route_jobs_post },
	{ "/api/v1/jobs/{id}", "GET, HEAD", bb_route_job_get, NULL },
	{ "/api/v1/jobs/{id}/runs", "GET, HEAD", bb_route_job_runs, NULL },
	{ "/api/v1/jobs/{id}/compare", "GET, HEAD", bb_route_job_compare,
	  NULL },
	{ "/api/v1/jobs/{id}/cancel", "POST", NULL, bb_route_job_cancel },
	{ "/api/v1/history", "GET, HEAD", bb_route_history, NULL },
	{ "/api/v1/devices", "GET, HEAD", bb_route_devices, NULL },
	{ "/api/v1/host", "GET, HEAD", bb_route_host, NULL },
	{ "/api/v1/health", "GET, HEAD", bb_route_health, NULL },
	{ "/metrics", "GET, HEAD", bb_route_metrics, NULL },
};

static bool bb_http_match(const char *pat, const char *path, const char **id,
			  size_t *id_len)
{
	while (*pat && *path) {
		if (*pat == '{') {
			const char *end = strchrnul(path, '/');

			if (end == path)
				return false;
			*id = path;
			*id_len = (size_t)(end - path);
			pat = strchr(pat, '}') + 1;
			path = end;
			continue;
		}
		if (*pat++ != *path++)
			return false;
	}
	return !*pat && !*path;
}

static bool bb_http_is_api(const char *path)
{
	return !strncmp(path, "/api/", 5) || !strcmp(path, "/api");
}

/* "Bearer <token>", compared in time independent of the token's value. */
static bool bb_http_token_ok(const char *token, const char *hdr)
{
	size_t n, t = strlen(token);
	unsigned char diff;
	const char *p;

	if (!hdr || strncasecmp(hdr, "Bearer ", 7))
		return false;
	for (p = hdr + 7; *p == ' '; p++)
		;
	n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	diff = n != t;
	for (size_t i = 0; i < t; i++)
		diff |= (unsigned char)token[i] ^
			(unsigned char)(i < n ? p[i] : 0);
	return !diff;
}

static bool bb_http_method_get(const char *m)
{
	return !strcmp(m, "GET") || !strcmp(m, "HEAD");
}

static void bb_http_route(struct bb_route_req *r, struct bb_http_response *rs)
{
	const struct bb_http_request *rq = r->rq;
	bool get = bb_http_method_get(rq->method);

	for (size_t i = 0; i < bb_array_size(bb_routes); i++) {
		const struct bb_route *rt = &bb_routes[i];
		bb_route_fn *fn;

		r->id = NULL;
		r->id_len = 0;
		if (!bb_http_match(rt->pattern, rq->path, &r->id, &r->id_len))
			continue;
		fn = get ? rt->get : !strcmp(rq->method, "POST") ? rt->post
								 : NULL;
		if (!fn) {
			bb_http_error(rs, 405, "method_not_allowed", NULL,
				      "%s is not allowed on %s (allowed: %s)",
				      rq->method, rq->path, rt->allow);
			rs->allow = rt->allow;
			return;
		}
		fn(r, rs);
		return;
	}
	r->id = NULL;
	if (bb_http_is_api(rq->path)) {
		bb_http_error(rs, 404, "not_found", NULL, "no API route %s",
			      rq->path);
		return;
	}
	if (!get) {
		bb_http_error(rs, 405, "method_not_allowed", NULL,
			      "%s is not allowed on %s (allowed: GET, HEAD)",
			      rq->method, rq->path);
		rs->allow = "GET, HEAD";
		return;
	}
	bb_route_static(r, rs);
}

int bb_http_ctx_init(struct bb_http_ctx *ctx)
{
	ctx->metrics = NULL;
	ctx->metrics_ns = 0;
	return -pthread_mutex_init(&ctx->metrics_lock, NULL);
}

void bb_http_ctx_destroy(struct bb_http_ctx *ctx)
{
	json_object_put(ctx->metrics);
	ctx->metrics = NULL;
	pthread_mutex_destroy(&ctx->metrics_lock);
}

/* Without a token: loopback health checks, and the dashboard's static
 * files (a browser cannot send a bearer header when it loads a page; the
 * files hold no data, the API calls they make carry the token). */
static bool needs_no_token(const struct bb_http_request *rq)
{
	if (!bb_http_method_get(rq->method))
		return false;
	if (!strcmp(rq->path, "/api/v1/health"))
		return rq->loopback;
	return strncmp(rq->path, "/api/", 5) && strcmp(rq->path, "/api") &&
	       strcmp(rq->path, "/metrics");
}

void bb_http_handle(struct bb_http_ctx *ctx, const struct bb_http_request *rq,
		    struct bb_http_response *rs)
{
	struct bb_route_req r = { .ctx = ctx, .rq = rq };

	memset(rs, 0, sizeof(*rs));
	if (!rq->method || !rq->path || rq->path[0] != '/') {
		bb_http_error(rs, 400, "bad_request", NULL,
			      "the request has no method or no absolute path");
		return;
	}
	pthread_rwlock_rdlock(&ctx->cfg_lock);
	r.cfg = ctx->cfg;
	if (rq->body_len > r.cfg->max_body) {
		bb_http_error(rs, 413, "body_too_large", NULL,
			      "request body larger than %zu bytes",
			      r.cfg->max_body);
		goto out;
	}
	if (r.cfg->token[0] && !needs_no_token(rq) &&
	    !bb_http_token_ok(r.cfg->token, rq->authorization)) {
		bb_http_error(rs, 401, "unauthorized", NULL,
			      rq->authorization
				      ? "wrong bearer token"
				      : "this daemon needs \"Authorization: "
					"Bearer <token>\"");
		goto out;
	}
	bb_http_route(&r, rs);
out:
	pthread_rwlock_unlock(&ctx->cfg_lock);
	if (!rs->status)
		bb_http_error(rs, 500, "internal", NULL,
			      "the route gave no response");
}

/* ---- libmicrohttpd glue --------------------------------------------- */

struct bb_http {
	struct MHD_Daemon *mhd;
	struct bb_http_ctx *ctx;
};

/* Per request: the body collected so far. */
struct bb_http_conn {
	char *body;
	size_t len, cap, max;
	bool too_big;
	bool started;
};

struct bb_http_args {
	struct bb_http_request *rq;
	bool overflow;
};

static enum MHD_Result bb_http_collect_arg(void *cls, enum MHD_ValueKind kind,
					   const char *key, const char *value)
{
	struct bb_http_args *a = cls;

	(void)kind;
	if (a->rq->nargs >= BB_HTTP_MAX_ARGS) {
		a->overflow = true;
		return MHD_NO;
	}
	a->rq->args[a->rq->nargs].key = key;
	a->rq->args[a->rq->nargs].value = value ? value : "";
	a->rq->nargs++;
	return MHD_YES;
}

static bool bb_http_peer_loopback(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	const struct sockaddr *sa = ci ? ci->client_addr : NULL;

	if (!sa)
		return false;
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		const uint8_t *b = in6->sin6_addr.s6_addr;

		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return true;
		return IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr) && b[12] == 127;
	}
	return false;
}

static enum MHD_Result bb_http_send(struct MHD_Connection *c,
				    struct bb_http_response *rs)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	if (rs->body && rs->len) {
		resp = MHD_create_response_from_buffer_with_free_callback(
			rs->len, rs->body, free);
		if (!resp)
			free(rs->body);
	} else {
		free(rs->body);
		resp = MHD_create_response_from_buffer(
			0, NULL, MHD_RESPMEM_PERSISTENT);
	}
	rs->body = NULL;
	if (!resp)
		return MHD_NO;
	if (rs->content_type)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
					rs->content_type);
	if (rs->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
					rs->allow);
	if (rs->cache_control)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
					rs->cache_control);
	if (rs->status == 401)
		MHD_add_response_header(resp,
					MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer realm=\"biobench\"");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(c, (unsigned)rs->status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result bb_http_error_send(struct MHD_Connection *c,
					  int status, const char *code,
					  const char *msg)
{
	struct bb_http_response rs = { 0 };

	bb_http_error(&rs, status, code, NULL, "%s", msg);
	return bb_http_send(c, &rs);
}

static enum MHD_Result bb_http_access(void *cls, struct MHD_Connection *c,
				      const char *url, const char *method,
				      const char *version,
				      const char *upload_data,
				      size_t *upload_data_size, void **con_cls)
{
	struct bb_http *h = cls;
	struct bb_http_conn *cn = *con_cls;
	struct bb_http_request rq = { 0 };
	struct bb_http_response rs;
	struct bb_http_args a = { .rq = &rq };
	char msg[128];

	(void)version;
	if (!cn) {
		const char *cl;
		char *end;

		cn = calloc(1, sizeof(*cn));
		if (!cn)
			return MHD_NO;
		*con_cls = cn;
		pthread_rwlock_rdlock(&h->ctx->cfg_lock);
		cn->max = h->ctx->cfg->max_body;
		pthread_rwlock_unlock(&h->ctx->cfg_lock);
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl) {
			unsigned long long n;

			errno = 0;
			n = strtoull(cl, &end, 10);
			if (!errno && end != cl && n > cn->max) {
				/* Answer now: MHD then reads no body. */
				cn->too_big = true;
				snprintf(msg, sizeof(msg),
					 "request body larger than %zu bytes",
					 cn->max);
				return bb_http_error_send(c, 413,
							  "body_too_large",
							  msg);
			}
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		size_t n = *upload_data_size;

		*upload_data_size = 0;
		if (cn->too_big || n > cn->max - cn->len) {
			cn->too_big = true;
			return MHD_YES;    /* discard the rest */
		}
		if (cn->len + n + 1 > cn->cap) {
			size_t cap = cn->cap ? cn->cap : 4096;
			char *p;

			while (cap < cn->len + n + 1)
				cap *= 2;
			if (cap > cn->max + 1)
				cap = cn->max + 1;
			p = realloc(cn->body, cap);
			if (!p)
				return MHD_NO;
			cn->body = p;
			cn->cap = cap;
		}
		memcpy(cn->body + cn->len, upload_data, n);
		cn->len += n;
		cn->body[cn->len] = '\0';
		return MHD_YES;
	}
	if (cn->started)
		return MHD_YES;
	cn->started = true;
	if (cn->too_big) {
		snprintf(msg, sizeof(msg), "request body larger than %zu bytes",
			 cn->max);
		return bb_http_error_send(c, 413, "body_too_large", msg);
	}
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND,
				  bb_http_collect_arg, &a);
	if (a.overflow)
		return bb_http_error_send(c, 400, "bad_request",
					  "too many query arguments");
	rq.method = method;
	rq.path = url;
	rq.authorization = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
	rq.loopback = bb_http_peer_loopback(c);
	rq.body = cn->body;
	rq.body_len = cn->len;
	bb_http_handle(h->ctx, &rq, &rs);
	return bb_http_send(c, &rs);
}

static void bb_http_completed(void *cls, struct MHD_Connection *c,
			      void **con_cls,
			      enum MHD_RequestTerminationCode toe)
{
	struct bb_http_conn *cn = *con_cls;

	(void)cls;
	(void)c;
	(void)toe;
	if (cn) {
		free(cn->body);
		free(cn);
		*con_cls = NULL;
	}
}

static unsigned bb_http_hex(char c)
{
	return c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a') + 10;
}

/* MHD's unescaping, except that "%00" stays as it is: a NUL would cut the
 * path short ("/index.html%00.png" must not be "/index.html"). */
static size_t bb_http_unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *r = s, *w = s;

	(void)cls;
	(void)c;
	while (*r) {
		if (r[0] == '%' && isxdigit((unsigned char)r[1]) &&
		    isxdigit((unsigned char)r[2])) {
			unsigned v = bb_http_hex(r[1]) * 16 + bb_http_hex(r[2]);

			if (v) {
				*w++ = (char)v;
				r += 3;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
	return (size_t)(w - s);
}

static void bb_http_log(void *cls, const char *fmt, va_list ap)
{
	char line[512];
	size_t n;

	(void)cls;
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	bb_log(LOG_WARNING, "http: %s", line);
}

int bb_http_start(struct bb_http **out, struct bb_http_ctx *ctx, char *err,
		  size_t errlen)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL |
			 MHD_USE_ERROR_LOG;
	char addr[64], where[96];
	cpu_set_t old, set;
	struct bb_http *h = NULL;
	bool pinned = false;
	unsigned threads, maxconn, timeout, per_ip;
	size_t alen;
	int ret = 0, e;

	*out = NULL;
	pthread_rwlock_rdlock(&ctx->cfg_lock);
	snprintf(addr, sizeof(addr), "%s", ctx->cfg->listen_addr);
	in->sin_port = htons(ctx->cfg->port);
	threads = ctx->cfg->http_threads ? ctx->cfg->http_threads : 1;
	maxconn = ctx->cfg->max_connections ? ctx->cfg->max_connections : 256;
	timeout = ctx->cfg->timeout_s;
	/* exposed: one peer cannot take every connection */
	per_ip = ctx->cfg->loopback ? 0 : BB_HTTP_PER_IP_LIMIT;
	CPU_ZERO(&set);
	for (unsigned i = 0; i < ctx->cfg->n_http_cpus; i++)
		if (ctx->cfg->http_cpus[i] >= 0 &&
		    ctx->cfg->http_cpus[i] < CPU_SETSIZE)
			CPU_SET(ctx->cfg->http_cpus[i], &set);
	pthread_rwlock_unlock(&ctx->cfg_lock);

	/* "[::1]" -> "::1" */
	alen = strlen(addr);
	if (alen >= 2 && addr[0] == '[' && addr[alen - 1] == ']') {
		memmove(addr, addr + 1, alen - 2);
		addr[alen - 2] = '\0';
	}
	if (strchr(addr, ':'))
		snprintf(where, sizeof(where), "[%s]:%u", addr,
			 ntohs(in->sin_port));
	else
		snprintf(where, sizeof(where), "%s:%u", addr,
			 ntohs(in->sin_port));
	if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_port = in->sin_port;
		in6->sin6_family = AF_INET6;
		flags |= MHD_USE_IPv6;
	} else {
		snprintf(err, errlen, "cannot listen on %s: not a numeric "
			 "IPv4 or IPv6 address", where);
		ret = -EINVAL;
		goto out;
	}

	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	h->ctx = ctx;

	/* Threads inherit the creator's affinity: pin ourselves to the HTTP
	 * CPUs while MHD starts them, then restore. */
	if (CPU_COUNT(&set)) {
		e = pthread_getaffinity_np(pthread_self(), sizeof(old), &old);
		if (!e)
			e = pthread_setaffinity_np(pthread_self(), sizeof(set),
						   &set);
		if (e) {
			snprintf(err, errlen, "cannot pin the HTTP threads to "
				 "http_cpus: %s", strerror(e));
			ret = -e;
			goto out;
		}
		pinned = true;
	}
	errno = 0;
	h->mhd = MHD_start_daemon(
		flags, 0, NULL, NULL, bb_http_access, h,
		MHD_OPTION_EXTERNAL_LOGGER, bb_http_log, NULL,
		MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_LIMIT, maxconn,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		MHD_OPTION_NOTIFY_COMPLETED, bb_http_completed, NULL,
		MHD_OPTION_UNESCAPE_CALLBACK, bb_http_unescape, NULL,
		MHD_OPTION_END);
	e = errno;
	if (pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (!h->mhd) {
		if (!e || e == EINTR)
			e = EADDRINUSE;
		snprintf(err, errlen, "cannot listen on %s: %s", where,
			 strerror(e));
		ret = -EADDRINUSE;
		goto out;
	}
	*out = h;
	h = NULL;
out:
	free(h);
	return ret;
}

void bb_http_stop(struct bb_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	free(h);
}
