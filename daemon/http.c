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
#include <time.h>
#include <unistd.h>

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
	{ "/api/v1/compare", "GET, HEAD", bb_route_compare_jobs, NULL },
	{ "/api/v1/devices", "GET, HEAD", bb_route_devices, NULL },
	{ "/api/v1/host", "GET, HEAD", bb_route_host, NULL },
	{ "/api/v1/hosts", "GET, HEAD", bb_route_hosts, NULL },
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

bool bb_http_token_ok(const char *token, size_t t, const char *hdr)
{
	const volatile unsigned char *tok = (const unsigned char *)token;
	volatile unsigned char diff;
	const char *p;
	size_t n;

	if (!hdr || strncasecmp(hdr, "Bearer ", 7))
		return false;
	for (p = hdr + 7; *p == ' '; p++)
		;
	n = strlen(p);
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	/* every byte of the token is read once, whatever the header holds;
	 * only the header's length decides which of its bytes are read */
	diff = n != t;
	for (size_t i = 0; i < t; i++)
		diff |= tok[i] ^ (unsigned char)(i < n ? p[i] : 0);
	return diff == 0;
}

/* ---- Host and Origin -------------------------------------------------- */

/* Split "name[:port]" / "[v6][:port]": the name's length, the port (0
 * when absent, -1 when malformed). */
static size_t bb_http_split_host(const char *h, size_t len, long *port)
{
	const char *end = h + len, *colon;
	size_t nlen;

	*port = 0;
	if (len && h[0] == '[') {
		const char *rb = memchr(h, ']', len);

		if (!rb) {
			*port = -1;
			return len;
		}
		nlen = (size_t)(rb - h) + 1;
		colon = rb + 1 < end ? rb + 1 : NULL;
		if (colon && *colon != ':') {
			*port = -1;
			return nlen;
		}
	} else {
		colon = memchr(h, ':', len);
		nlen = colon ? (size_t)(colon - h) : len;
	}
	if (colon) {
		long v = 0;
		const char *q = colon + 1;

		if (q == end || end - q > 5)
			v = -1;
		for (; v >= 0 && q < end; q++)
			v = isdigit((unsigned char)*q) ? v * 10 + (*q - '0')
						       : -1;
		*port = v >= 1 && v <= 65535 ? v : -1;
	}
	return nlen;
}

static bool bb_http_name_is(const char *name, size_t n, const char *want)
{
	return strlen(want) == n && !strncasecmp(name, want, n);
}

bool bb_http_host_allowed(const struct bb_dconfig *cfg, const char *host,
			  size_t len, bool strict)
{
	static const char *const local[] = { "localhost", "127.0.0.1",
					     "[::1]" };
	char listen[80];
	long port;
	size_t n;
	bool ours;

	if (!len || len >= BB_DCONFIG_HOST_MAX)
		return false;
	n = bb_http_split_host(host, len, &port);
	if (port < 0 || !n)
		return false;
	/* "localhost." is localhost */
	if (n > 1 && host[n - 1] == '.' && host[0] != '[')
		n--;
	ours = port ? port == cfg->port : !strict;
	snprintf(listen, sizeof(listen), strchr(cfg->listen_addr, ':') ?
		 "[%s]" : "%s", cfg->listen_addr);
	for (size_t i = 0; i < bb_array_size(local); i++)
		if (bb_http_name_is(host, n, local[i]))
			return ours;
	if (strcmp(cfg->listen_addr, "0.0.0.0") &&
	    strcmp(cfg->listen_addr, "::") &&
	    bb_http_name_is(host, n, listen))
		return ours;
	for (unsigned i = 0; i < cfg->nhosts; i++) {
		const char *e = cfg->hosts[i];
		long eport;
		size_t en = bb_http_split_host(e, strlen(e), &eport);

		if (en != n || strncasecmp(e, host, n))
			continue;
		if (eport ? eport == port : (!port || port == cfg->port))
			return true;
	}
	return false;
}

/* An Origin header: "null" and foreign origins are refused; the origin
 * of this daemon (the Host the request went to, or a name it answers
 * to) is accepted. */
static bool bb_http_origin_ok(const struct bb_dconfig *cfg,
			      const char *origin, const char *host)
{
	const char *a;
	size_t n;

	if (!strncasecmp(origin, "http://", 7))
		a = origin + 7;
	else if (!strncasecmp(origin, "https://", 8))
		a = origin + 8;
	else
		return false;
	n = strcspn(a, "/");
	if (a[n] && strcmp(a + n, "/"))
		return false;
	if (host && strlen(host) == n && !strncasecmp(a, host, n))
		return true;
	return bb_http_host_allowed(cfg, a, n, true);
}

/* "application/json", any case, parameters allowed. */
static bool bb_http_is_json(const char *ct)
{
	size_t n;

	if (!ct)
		return false;
	while (*ct == ' ' || *ct == '\t')
		ct++;
	n = strcspn(ct, "; \t");
	return n == 16 && !strncasecmp(ct, "application/json", 16);
}

/* A state-changing request must come from this daemon's own pages or a
 * program: 0, or -EPERM with the response filled in. */
static int bb_http_csrf(const struct bb_route_req *r,
			struct bb_http_response *rs)
{
	const struct bb_http_request *rq = r->rq;

	if (rq->fetch_site && !strcasecmp(rq->fetch_site, "cross-site")) {
		bb_http_error(rs, 403, "cross_site", NULL,
			      "%s %s: cross-site requests are refused "
			      "(Sec-Fetch-Site: cross-site)", rq->method,
			      rq->path);
		return -EPERM;
	}
	if (rq->origin && !bb_http_origin_ok(r->cfg, rq->origin, rq->host)) {
		bb_http_error(rs, 403, "cross_site", NULL,
			      "%s %s: requests from origin '%.200s' are "
			      "refused (only this daemon's own pages may "
			      "change state)", rq->method, rq->path,
			      rq->origin);
		return -EPERM;
	}
	if (!bb_http_is_json(rq->content_type)) {
		bb_http_error(rs, 415, "unsupported_media_type", NULL,
			      "%s %s needs \"Content-Type: application/json\" "
			      "(got %.100s)", rq->method, rq->path,
			      rq->content_type ? rq->content_type : "none");
		return -EPERM;
	}
	return 0;
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
		if (!get && bb_http_csrf(r, rs))
			return;
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
	if (!rq->host) {
		bb_http_error(rs, 400, "bad_request", NULL,
			      "the request has no Host header");
		goto out;
	}
	if (!bb_http_host_allowed(r.cfg, rq->host, strlen(rq->host), false)) {
		bb_http_error(rs, 421, "host_not_allowed", NULL,
			      "Host '%.200s' is not this daemon's: it answers "
			      "to its listen address, localhost, and the names "
			      "in allowed_hosts", rq->host);
		goto out;
	}
	if (rq->body_len > r.cfg->max_body) {
		bb_http_error(rs, 413, "body_too_large", NULL,
			      "request body larger than %zu bytes",
			      r.cfg->max_body);
		goto out;
	}
	if (r.cfg->token_len && !needs_no_token(rq) &&
	    !bb_http_token_ok(r.cfg->token, r.cfg->token_len,
			      rq->authorization)) {
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

void bb_http_response_free(struct bb_http_response *rs)
{
	free(rs->body);
	rs->body = NULL;
	if (rs->has_fd)
		close(rs->fd);
	rs->has_fd = false;
}

int bb_http_response_load(struct bb_http_response *rs, size_t max)
{
	size_t want, off = 0;
	ssize_t got;
	char *b;
	int ret = 0;

	if (!rs->has_fd)
		return 0;
	want = rs->fd_len < max ? (size_t)rs->fd_len : max;
	b = malloc(want + 1);
	if (!b) {
		ret = -ENOMEM;
		goto out;
	}
	while (off < want) {
		got = pread(rs->fd, b + off, want - off, (off_t)off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			ret = got < 0 ? -errno : 0;
			break;
		}
		off += (size_t)got;
	}
	b[off] = '\0';
	free(rs->body);
	rs->body = b;
	rs->len = off;
out:
	close(rs->fd);
	rs->has_fd = false;
	return ret;
}

/* ---- libmicrohttpd glue --------------------------------------------- */

/* One accepted connection, for the request deadline: from the
 * connection's start (or the end of its previous request) its next
 * request, head and body, must have arrived within request_timeout, else
 * the watchdog shuts the socket down (a client that trickles one header
 * byte every few seconds keeps MHD's idle timeout from ever firing). */
struct bb_http_sock {
	struct bb_http_sock *prev, *next;
	int fd;
	uint64_t deadline_ns;        /* 0: none (a request is being answered) */
};

struct bb_http {
	struct MHD_Daemon *mhd;
	struct bb_http_ctx *ctx;
	/* connections and their deadlines; the watchdog thread */
	pthread_mutex_t socks_lock;
	pthread_cond_t stop_cond;    /* CLOCK_MONOTONIC */
	struct bb_http_sock socks;   /* list head */
	bool stop;                   /* under socks_lock */
	bool watchdog_started;
	pthread_t watchdog;
	/* MHD's messages: at most BB_HTTP_LOG_BURST per BB_HTTP_LOG_WINDOW_NS
	 * (a flood of broken connections must not flood the journal) */
	pthread_mutex_t log_lock;
	uint64_t log_window_ns;
	unsigned log_count, log_dropped;
};

#define BB_HTTP_LOG_BURST 20
#define BB_HTTP_LOG_WINDOW_NS (10 * 1000000000ull)
#define BB_HTTP_BACKLOG 1024

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

static uint64_t bb_http_request_timeout_ns(struct bb_http *h)
{
	uint64_t t;

	pthread_rwlock_rdlock(&h->ctx->cfg_lock);
	t = (uint64_t)h->ctx->cfg->request_timeout_s * 1000000000ull;
	pthread_rwlock_unlock(&h->ctx->cfg_lock);
	return t;
}

static struct bb_http_sock *bb_http_sock_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

/* The deadline of c's next request: now + request_timeout, or none. */
static void bb_http_sock_deadline(struct bb_http *h, struct MHD_Connection *c,
				  bool set)
{
	struct bb_http_sock *k = bb_http_sock_of(c);
	uint64_t t = set ? bb_now_ns() + bb_http_request_timeout_ns(h) : 0;

	if (!k)
		return;
	pthread_mutex_lock(&h->socks_lock);
	k->deadline_ns = t;
	pthread_mutex_unlock(&h->socks_lock);
}

static void bb_http_notify_conn(void *cls, struct MHD_Connection *c,
				void **socket_context,
				enum MHD_ConnectionNotificationCode toe)
{
	struct bb_http *h = cls;
	struct bb_http_sock *k = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
			c, MHD_CONNECTION_INFO_CONNECTION_FD);

		if (!ci)
			return;
		k = calloc(1, sizeof(*k));
		if (!k)
			return;
		k->fd = ci->connect_fd;
		k->deadline_ns = bb_now_ns() + bb_http_request_timeout_ns(h);
		pthread_mutex_lock(&h->socks_lock);
		k->next = h->socks.next;
		k->prev = &h->socks;
		h->socks.next->prev = k;
		h->socks.next = k;
		pthread_mutex_unlock(&h->socks_lock);
		*socket_context = k;
		return;
	}
	/* closed: MHD closes the socket after this returns, so the watchdog
	 * (which shuts sockets down with socks_lock held) never touches a
	 * reused fd */
	if (!k)
		return;
	pthread_mutex_lock(&h->socks_lock);
	k->prev->next = k->next;
	k->next->prev = k->prev;
	pthread_mutex_unlock(&h->socks_lock);
	free(k);
	*socket_context = NULL;
}

static void *bb_http_watchdog(void *arg)
{
	struct bb_http *h = arg;
	struct timespec ts;

	pthread_mutex_lock(&h->socks_lock);
	while (!h->stop) {
		uint64_t now = bb_now_ns();
		unsigned cut = 0;

		for (struct bb_http_sock *k = h->socks.next; k != &h->socks;
		     k = k->next) {
			if (!k->deadline_ns || now < k->deadline_ns)
				continue;
			/* MHD sees the end of the stream and closes it */
			shutdown(k->fd, SHUT_RDWR);
			k->deadline_ns = 0;
			cut++;
		}
		if (cut) {
			pthread_mutex_unlock(&h->socks_lock);
			bb_log(LOG_WARNING,
			       "http: closed %u connection(s) whose request "
			       "did not arrive within %u s (request_timeout)",
			       cut, (unsigned)(bb_http_request_timeout_ns(h) /
					       1000000000ull));
			pthread_mutex_lock(&h->socks_lock);
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 250 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (!h->stop)
			pthread_cond_timedwait(&h->stop_cond, &h->socks_lock,
					       &ts);
	}
	pthread_mutex_unlock(&h->socks_lock);
	return NULL;
}

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

/* The framing of a request body, from every header (MHD 0.9.75 uses the
 * first Content-Length of several and waits for a body it cannot
 * delimit when Transfer-Encoding is not "chunked"). */
struct bb_http_framing {
	const char *cl;         /* the first Content-Length */
	bool cl_differ;         /* another Content-Length with another value */
	const char *te;         /* the Transfer-Encoding, NULL if none */
	unsigned nte;
};

static enum MHD_Result bb_http_frame_hdr(void *cls, enum MHD_ValueKind kind,
					 const char *key, const char *value)
{
	struct bb_http_framing *f = cls;

	(void)kind;
	if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) {
		if (!f->cl)
			f->cl = value ? value : "";
		else if (strcmp(f->cl, value ? value : ""))
			f->cl_differ = true;
	} else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
		f->te = value ? value : "";
		f->nte++;
	}
	return MHD_YES;
}

/* NULL, or why the request cannot be framed (answered 400 at once). */
static const char *bb_http_framing_bad(struct MHD_Connection *c)
{
	struct bb_http_framing f = { 0 };

	MHD_get_connection_values(c, MHD_HEADER_KIND, bb_http_frame_hdr, &f);
	if (f.cl_differ)
		return "two Content-Length headers with different values";
	if (f.nte > 1 || (f.te && strcasecmp(f.te, "chunked")))
		return "unsupported Transfer-Encoding (only \"chunked\" is "
		       "supported)";
	if (f.te && f.cl)
		return "both Transfer-Encoding and Content-Length";
	return NULL;
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
	char retry[16];

	if (rs->has_fd) {
		/* sent from the file (sendfile): nothing copied per request */
		resp = MHD_create_response_from_fd64(rs->fd_len, rs->fd);
		if (!resp)
			close(rs->fd);
		rs->has_fd = false;
		free(rs->body);
	} else if (rs->body && rs->len) {
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
	if (rs->retry_after > 0) {
		snprintf(retry, sizeof(retry), "%d", rs->retry_after);
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER,
					retry);
	}
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
	const char *bad;
	char msg[160];

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
		/* answered now, before any body is read: MHD then closes the
		 * connection instead of guessing where the request ends */
		bad = bb_http_framing_bad(c);
		if (bad) {
			cn->started = true;
			bb_http_sock_deadline(h, c, false);
			snprintf(msg, sizeof(msg), "cannot read the request "
				 "body: %s", bad);
			return bb_http_error_send(c, 400, "bad_request", msg);
		}
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl) {
			unsigned long long n;

			errno = 0;
			n = strtoull(cl, &end, 10);
			if (!errno && end != cl && n > cn->max) {
				/* Answer now: MHD then reads no body. */
				cn->too_big = true;
				cn->started = true;
				bb_http_sock_deadline(h, c, false);
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
	/* the whole request is in: its answer is not under the deadline */
	bb_http_sock_deadline(h, c, false);
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
	rq.host = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					      MHD_HTTP_HEADER_HOST);
	rq.origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						MHD_HTTP_HEADER_ORIGIN);
	rq.fetch_site = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    "Sec-Fetch-Site");
	rq.content_type = MHD_lookup_connection_value(
		c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
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

	/* a kept-alive connection: its next request has its deadline */
	if (toe == MHD_REQUEST_TERMINATED_COMPLETED_OK)
		bb_http_sock_deadline(cls, c, true);
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
	struct bb_http *h = cls;
	uint64_t now = bb_now_ns();
	unsigned dropped = 0;
	char line[512];
	size_t n;

	pthread_mutex_lock(&h->log_lock);
	if (now - h->log_window_ns >= BB_HTTP_LOG_WINDOW_NS) {
		dropped = h->log_dropped;
		h->log_window_ns = now;
		h->log_count = 0;
		h->log_dropped = 0;
	}
	if (h->log_count >= BB_HTTP_LOG_BURST) {
		h->log_dropped++;
		pthread_mutex_unlock(&h->log_lock);
		return;
	}
	h->log_count++;
	pthread_mutex_unlock(&h->log_lock);
	if (dropped)
		bb_log(LOG_WARNING, "http: %u more message(s) suppressed in "
		       "the last %llu s", dropped,
		       BB_HTTP_LOG_WINDOW_NS / 1000000000ull);
	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	bb_log(LOG_WARNING, "http: %s", line);
}

/* The listening socket, made here (not by MHD) so that a failure names
 * the address and port: "cannot listen on 127.0.0.1:8420: Address already
 * in use".  0 or -errno with the message. */
static int bb_http_listen(const struct sockaddr_storage *ss, socklen_t len,
			  const char *where, int *out, char *err,
			  size_t errlen)
{
	int fd, one = 1, ret;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "cannot listen on %s: socket: %s", where,
			 strerror(-ret));
		return ret;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)ss, len) ||
	    listen(fd, BB_HTTP_BACKLOG)) {
		ret = -errno;
		snprintf(err, errlen, "cannot listen on %s: %s", where,
			 strerror(-ret));
		close(fd);
		return ret;
	}
	*out = fd;
	return 0;
}

static void bb_http_free(struct bb_http *h)
{
	if (!h)
		return;
	if (h->watchdog_started) {
		pthread_mutex_lock(&h->socks_lock);
		h->stop = true;
		pthread_cond_signal(&h->stop_cond);
		pthread_mutex_unlock(&h->socks_lock);
		pthread_join(h->watchdog, NULL);
	}
	pthread_cond_destroy(&h->stop_cond);
	pthread_mutex_destroy(&h->socks_lock);
	pthread_mutex_destroy(&h->log_lock);
	free(h);
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
	pthread_condattr_t ca;
	bool pinned = false;
	unsigned threads, maxconn, timeout, per_ip;
	socklen_t sslen;
	size_t alen;
	int ret = 0, e, lfd = -1;

	*out = NULL;
	pthread_rwlock_rdlock(&ctx->cfg_lock);
	snprintf(addr, sizeof(addr), "%s", ctx->cfg->listen_addr);
	in->sin_port = htons(ctx->cfg->port);
	threads = ctx->cfg->http_threads ? ctx->cfg->http_threads : 1;
	maxconn = ctx->cfg->max_connections ? ctx->cfg->max_connections : 256;
	timeout = ctx->cfg->timeout_s;
	/* loopback too: one local client cannot take every connection */
	per_ip = ctx->cfg->max_per_peer;
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
		sslen = sizeof(*in);
	} else if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_port = in->sin_port;
		in6->sin6_family = AF_INET6;
		sslen = sizeof(*in6);
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
	h->socks.next = h->socks.prev = &h->socks;
	pthread_mutex_init(&h->socks_lock, NULL);
	pthread_mutex_init(&h->log_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->stop_cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = bb_http_listen(&ss, sslen, where, &lfd, err, errlen);
	if (ret)
		goto out;

	/* Threads inherit the creator's affinity: pin ourselves to the HTTP
	 * CPUs while MHD and the watchdog start, then restore. */
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
	e = pthread_create(&h->watchdog, NULL, bb_http_watchdog, h);
	h->watchdog_started = !e;
	errno = 0;
	h->mhd = e ? NULL : MHD_start_daemon(
		flags, ntohs(in->sin_port), NULL, NULL, bb_http_access, h,
		MHD_OPTION_EXTERNAL_LOGGER, bb_http_log, h,
		MHD_OPTION_LISTEN_SOCKET, lfd,
		MHD_OPTION_THREAD_POOL_SIZE, threads,
		MHD_OPTION_CONNECTION_LIMIT, maxconn,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(64 * 1024),
		MHD_OPTION_NOTIFY_COMPLETED, bb_http_completed, h,
		MHD_OPTION_NOTIFY_CONNECTION, bb_http_notify_conn, h,
		MHD_OPTION_UNESCAPE_CALLBACK, bb_http_unescape, NULL,
		MHD_OPTION_END);
	if (e)
		errno = e;
	e = errno;
	if (pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (!h->mhd) {
		snprintf(err, errlen, "cannot serve HTTP on %s: %s", where,
			 e ? strerror(e) : "libmicrohttpd did not start");
		ret = e ? -e : -EIO;
		goto out;
	}
	lfd = -1;    /* MHD's now: closed by MHD_stop_daemon */
	*out = h;
	h = NULL;
out:
	if (lfd >= 0)
		close(lfd);
	bb_http_free(h);
	return ret;
}

void bb_http_stop(struct bb_http *h)
{
	if (!h)
		return;
	MHD_stop_daemon(h->mhd);
	bb_http_free(h);
}
