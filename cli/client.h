/* SPDX-License-Identifier: GPL-2.0-only */
/* client.h - the HTTP client of biobenchd's API (libcurl easy API). */
#ifndef BB_CLI_CLIENT_H
#define BB_CLI_CLIENT_H

#include <curl/curl.h>
#include <json-c/json.h>
#include <stddef.h>

#define BB_CLIENT_CONNECT_TIMEOUT_S 5L
#define BB_CLIENT_TIMEOUT_S 30L

struct bb_client {
	char base[512];   /* "http://host:port", no trailing slash */
	char auth[1100];  /* "Authorization: Bearer ..." or "" */
	CURL *curl;
	char curl_err[CURL_ERROR_SIZE];
};

/* Set up a client for server (NULL: BIOBENCH_SERVER, else the default)
 * with the token of token_file (NULL: BIOBENCH_TOKEN_FILE, else none).
 * -EINVAL with a message for a URL that is not http(s):// or a token
 * file that cannot be read or is empty; -ENOMEM. */
int bb_client_init(struct bb_client *c, const char *server,
		   const char *token_file, char *err, size_t errlen);
void bb_client_free(struct bb_client *c);

/* One request: method ("GET", "POST"), path ("/api/v1/jobs"), body
 * (NULL for none; sent as application/json).  Returns 0 with *status the
 * HTTP status and *doc the parsed JSON body (the caller puts it; NULL
 * when the body is empty), -EHOSTUNREACH when the daemon cannot be
 * reached (err: "cannot reach biobenchd at URL: <curl error>; start it
 * with ..."), -EPROTO when the body is not JSON (err says so). */
int bb_client_call(struct bb_client *c, const char *method,
		   const char *path, const char *body, size_t bodylen,
		   long *status, struct json_object **doc, char *err,
		   size_t errlen);

#endif
