// SPDX-License-Identifier: GPL-2.0-only
/* client.c - see client.h. */
#include "client.h"

#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BB_CLIENT_MAX_BODY (64u << 20) /* answers larger than this: refused */
#define BB_TOKEN_MAX 1024

struct body_buf {
	char *p;
	size_t n, cap;
	bool too_big;
};

static size_t body_write(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body_buf *b = arg;
	size_t len = size * nmemb;

	if (b->n + len + 1 > BB_CLIENT_MAX_BODY) {
		b->too_big = true;
		return 0;
	}
	if (b->n + len + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;
		char *np;

		while (ncap < b->n + len + 1)
			ncap *= 2;
		np = realloc(b->p, ncap);
		if (!np)
			return 0;
		b->p = np;
		b->cap = ncap;
	}
	memcpy(b->p + b->n, data, len);
	b->n += len;
	b->p[b->n] = '\0';
	return len;
}

static int read_token(const char *path, char *tok, size_t len, char *err,
		      size_t errlen)
{
	char *buf = NULL, msg[512];
	size_t n = 0, s = 0;
	int ret;

	ret = bb_cli_read_file(path, BB_TOKEN_MAX, &buf, &n, msg, sizeof(msg));
	if (ret) {
		snprintf(err, errlen, "--token-file: %s", msg);
		return -EINVAL;
	}
	while (s < n && isspace((unsigned char)buf[s]))
		s++;
	while (n > s && isspace((unsigned char)buf[n - 1]))
		n--;
	if (n == s || n - s >= len) {
		snprintf(err, errlen, "--token-file: %s %s", path,
			 n == s ? "is empty" : "holds too long a token");
		ret = -EINVAL;
		goto out;
	}
	for (size_t i = s; i < n; i++) {
		if (!isgraph((unsigned char)buf[i])) {
			snprintf(err, errlen,
				 "--token-file: %s: the token has a space or "
				 "control character",
				 path);
			ret = -EINVAL;
			goto out;
		}
	}
	memcpy(tok, buf + s, n - s);
	tok[n - s] = '\0';
out:
	free(buf);
	return ret;
}

int bb_client_init(struct bb_client *c, const char *server,
		   const char *token_file, char *err, size_t errlen)
{
	char tok[BB_TOKEN_MAX + 1];
	size_t n;
	int ret;

	memset(c, 0, sizeof(*c));
	if (!server || !*server)
		server = getenv("BIOBENCH_SERVER");
	if (!server || !*server)
		server = BB_DEFAULT_SERVER;
	if (!token_file || !*token_file)
		token_file = getenv("BIOBENCH_TOKEN_FILE");
	if (strncmp(server, "http://", 7) && strncmp(server, "https://", 8)) {
		snprintf(err, errlen,
			 "--server: '%s' is not an http:// or https:// URL "
			 "(e.g. %s)",
			 server, BB_DEFAULT_SERVER);
		return -EINVAL;
	}
	n = strlen(server);
	while (n > 8 && server[n - 1] == '/')
		n--;
	if (n >= sizeof(c->base)) {
		snprintf(err, errlen, "--server: URL too long");
		return -EINVAL;
	}
	memcpy(c->base, server, n);
	c->base[n] = '\0';
	if (token_file && *token_file) {
		ret = read_token(token_file, tok, sizeof(tok), err, errlen);
		if (ret)
			return ret;
		snprintf(c->auth, sizeof(c->auth), "Authorization: Bearer %s",
			 tok);
		memset(tok, 0, sizeof(tok));
	}
	c->curl = curl_easy_init();
	if (!c->curl) {
		snprintf(err, errlen, "cannot set up libcurl");
		return -ENOMEM;
	}
	return 0;
}

void bb_client_free(struct bb_client *c)
{
	if (c->curl)
		curl_easy_cleanup(c->curl);
	c->curl = NULL;
	memset(c->auth, 0, sizeof(c->auth));
}

int bb_client_call(struct bb_client *c, const char *method,
		   const char *path, const char *body, size_t bodylen,
		   long *status, struct json_object **doc, char *err,
		   size_t errlen)
{
	struct body_buf b = { 0 };
	struct curl_slist *hdrs = NULL;
	struct json_tokener *tok = NULL;
	char url[1024];
	size_t end;
	CURLcode cc;
	int ret = 0;

	*status = 0;
	*doc = NULL;
	snprintf(url, sizeof(url), "%s%s", c->base, path);
	curl_easy_reset(c->curl);
	c->curl_err[0] = '\0';
	curl_easy_setopt(c->curl, CURLOPT_URL, url);
	curl_easy_setopt(c->curl, CURLOPT_ERRORBUFFER, c->curl_err);
	curl_easy_setopt(c->curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c->curl, CURLOPT_CONNECTTIMEOUT,
			 BB_CLIENT_CONNECT_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_TIMEOUT, BB_CLIENT_TIMEOUT_S);
	curl_easy_setopt(c->curl, CURLOPT_USERAGENT, "biobench");
	curl_easy_setopt(c->curl, CURLOPT_WRITEFUNCTION, body_write);
	curl_easy_setopt(c->curl, CURLOPT_WRITEDATA, &b);
	curl_easy_setopt(c->curl, CURLOPT_PROTOCOLS_STR, "http,https");
	hdrs = curl_slist_append(hdrs, "Accept: application/json");
	if (c->auth[0])
		hdrs = curl_slist_append(hdrs, c->auth);
	/* biobenchd takes state changes as JSON only (415 otherwise): a
	 * POST without a body says so too */
	if (body || !strcmp(method, "POST"))
		hdrs = curl_slist_append(hdrs,
					 "Content-Type: application/json");
	if (body) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)bodylen);
	} else if (!strcmp(method, "POST")) {
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c->curl, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)0);
	}
	if (!hdrs) {
		snprintf(err, errlen, "out of memory");
		ret = -ENOMEM;
		goto out;
	}
	if (strcmp(method, "GET") && strcmp(method, "POST"))
		curl_easy_setopt(c->curl, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, hdrs);

	cc = curl_easy_perform(c->curl);
	if (cc != CURLE_OK) {
		if (b.too_big) {
			snprintf(err, errlen,
				 "%s %s: the answer is larger than %u bytes",
				 method, url, BB_CLIENT_MAX_BODY);
			ret = -EPROTO;
			goto out;
		}
		snprintf(err, errlen,
			 "cannot reach biobenchd at %s: %s; start it with "
			 "`biobenchd --foreground` or set "
			 "--server/BIOBENCH_SERVER",
			 c->base,
			 c->curl_err[0] ? c->curl_err : curl_easy_strerror(cc));
		ret = -EHOSTUNREACH;
		goto out;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, status);
	if (!b.n)
		goto out;
	tok = json_tokener_new();
	if (!tok) {
		ret = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	*doc = json_tokener_parse_ex(tok, b.p, (int)b.n);
	end = json_tokener_get_parse_end(tok);
	while (*doc && end < b.n && isspace((unsigned char)b.p[end]))
		end++;
	if (!*doc || json_tokener_get_error(tok) != json_tokener_success ||
	    end < b.n) {
		json_object_put(*doc);
		*doc = NULL;
		snprintf(err, errlen,
			 "%s %s: HTTP %ld with an answer that is not JSON "
			 "(is %s a biobenchd?)",
			 method, url, *status, c->base);
		ret = -EPROTO;
	}
out:
	if (tok)
		json_tokener_free(tok);
	curl_slist_free_all(hdrs);
	free(b.p);
	return ret;
}
