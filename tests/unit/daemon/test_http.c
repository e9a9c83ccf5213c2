// SPDX-License-Identifier: GPL-2.0-only
/* test_http.c - the HTTP API without sockets: bb_http_handle against a real
 * store in a temporary directory (or the PostgreSQL database BB_TEST_STORE
 * names: ctest test_http_pg), no scheduler (submitted jobs stay queued). */
#include "http.h"
#include "routes/routes.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pgstore.h"

struct fx {
	char dir[64];
	char web[128];
	struct bb_dconfig cfg;
	struct bb_http_ctx ctx;
	struct bb_http_response rs;   /* of the last request */
	char path[512];
	struct bb_http_request rq;
	/* headers of the next requests (req_full): Host defaults to the
	 * listen address, Content-Type of a POST to application/json */
	const char *host, *origin, *fetch_site, *ctype;
	bool no_ctype;
	char store[512];   /* the store: a sqlite file or BB_TEST_STORE */
	bool pg;
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char p[256], err[512] = "";
	int ret;

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/bb-test-http.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->web, sizeof(f->web), "%s/web", f->dir);
	assert_int_equal(mkdir(f->web, 0755), 0);
	snprintf(p, sizeof(p), "%s/index.html", f->web);
	write_file(p, "<!doctype html><title>biobench</title>\n");
	snprintf(p, sizeof(p), "%s/app.js", f->web);
	write_file(p, "console.log('bb');\n");
	snprintf(p, sizeof(p), "%s/sub", f->web);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/sub/index.html", f->web);
	write_file(p, "<p>sub</p>\n");
	snprintf(p, sizeof(p), "%s/secret.txt", f->dir);
	write_file(p, "outside the web root\n");
	snprintf(p, sizeof(p), "%s/out.txt", f->web);
	assert_int_equal(symlink("../secret.txt", p), 0);
	snprintf(p, sizeof(p), "%s/outdir", f->web);
	assert_int_equal(symlink("..", p), 0);

	bb_dconfig_default(&f->cfg);
	snprintf(f->cfg.web_root, sizeof(f->cfg.web_root), "%s", f->web);
	f->cfg.token[0] = '\0';
	f->cfg.http_cpus[0] = 0;
	f->cfg.n_http_cpus = 1;
	f->cfg.bench_cpus[0] = 1;
	f->cfg.n_bench_cpus = 1;
	f->cfg.max_body = 1 << 20;
	f->cfg.nallow = 2;
	snprintf(f->cfg.allow[0].pattern, sizeof(f->cfg.allow[0].pattern),
		 "nop");
	f->cfg.allow[0].write = false;
	snprintf(f->cfg.allow[1].pattern, sizeof(f->cfg.allow[1].pattern),
		 "%s/*.dat", f->dir);
	f->cfg.allow[1].write = false;

	snprintf(p, sizeof(p), "%s/biobench.db", f->dir);
	f->pg = bb_test_store(f->store, sizeof(f->store), p);
	ret = bb_store_open(&f->ctx.store, f->store, err, sizeof(err));
	if (ret)
		fprintf(stderr, "bb_store_open: %s\n", err);
	assert_int_equal(ret, 0);
	assert_int_equal(pthread_rwlock_init(&f->ctx.cfg_lock, NULL), 0);
	assert_int_equal(bb_http_ctx_init(&f->ctx), 0);
	f->ctx.cfg = &f->cfg;
	f->ctx.sched = NULL;
	f->ctx.start_ns = bb_now_ns();
	f->ctx.version = "0.0-test";
	f->ctx.host = json_object_new_object();
	json_object_object_add(f->ctx.host, "hostname",
			       json_object_new_string("testhost"));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	bb_http_response_free(&f->rs);
	bb_store_close(f->ctx.store);
	json_object_put(f->ctx.host);
	pthread_rwlock_destroy(&f->ctx.cfg_lock);
	bb_http_ctx_destroy(&f->ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* One request ("PATH?k=v&k=v", arguments not decoded); the status must be
 * want.  Returns the JSON body (to put) or NULL when it is not JSON. */
static struct json_object *req_full(struct fx *f, const char *method,
				    const char *url, const char *body,
				    size_t body_len, const char *auth,
				    bool loopback, int want)
{
	struct bb_http_request *rq = &f->rq;
	char *q, *tok, *save = NULL;

	memset(rq, 0, sizeof(*rq));
	snprintf(f->path, sizeof(f->path), "%s", url);
	q = strchr(f->path, '?');
	if (q) {
		*q++ = '\0';
		for (tok = strtok_r(q, "&", &save); tok;
		     tok = strtok_r(NULL, "&", &save)) {
			char *eq = strchr(tok, '=');

			assert_true(rq->nargs < BB_HTTP_MAX_ARGS);
			if (eq)
				*eq++ = '\0';
			rq->args[rq->nargs].key = tok;
			rq->args[rq->nargs].value = eq ? eq : "";
			rq->nargs++;
		}
	}
	rq->method = method;
	rq->path = f->path;
	rq->body = body;
	rq->body_len = body_len;
	rq->authorization = auth;
	rq->loopback = loopback;
	rq->host = f->host ? f->host : "127.0.0.1:8420";
	rq->origin = f->origin;
	rq->fetch_site = f->fetch_site;
	rq->content_type = f->ctype ? f->ctype :
			   f->no_ctype || strcmp(method, "POST") ? NULL :
			   "application/json";
	bb_http_response_free(&f->rs);
	bb_http_handle(&f->ctx, rq, &f->rs);
	assert_int_equal(bb_http_response_load(&f->rs, 1 << 20), 0);
	if (f->rs.status != want)
		fprintf(stderr, "%s %s: status %d, wanted %d: %.*s\n", method,
			url, f->rs.status, want, (int)f->rs.len,
			f->rs.body ? f->rs.body : "");
	assert_int_equal(f->rs.status, want);
	assert_non_null(f->rs.content_type);
	if (strcmp(f->rs.content_type, "application/json"))
		return NULL;
	assert_non_null(f->rs.body);
	assert_int_equal(strlen(f->rs.body), f->rs.len);
	struct json_object *o = json_tokener_parse(f->rs.body);

	assert_non_null(o);
	return o;
}

static struct json_object *req(struct fx *f, const char *method,
			       const char *url, const char *body, int want)
{
	return req_full(f, method, url, body, body ? strlen(body) : 0, NULL,
			true, want);
}

static const char *jstr(struct json_object *o, const char *path)
{
	char buf[256], *save = NULL, *k;
	struct json_object *cur = o;

	snprintf(buf, sizeof(buf), "%s", path);
	for (k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(cur, k, &cur))
			return NULL;
	return cur ? json_object_get_string(cur) : "null";
}

/* An error response: status, code and field (NULL: the field is null). */
static void expect_error(struct fx *f, const char *method, const char *url,
			 const char *body, int status, const char *code,
			 const char *field)
{
	struct json_object *o = req(f, method, url, body, status);
	const char *got;

	assert_non_null(o);
	assert_string_equal(jstr(o, "error.code"), code);
	assert_non_null(jstr(o, "error.message"));
	got = jstr(o, "error.field");
	if (field) {
		if (strcmp(got, field))
			fprintf(stderr, "%s %s: field %s, wanted %s (%s)\n",
				method, url, got, field,
				jstr(o, "error.message"));
		assert_string_equal(got, field);
	} else {
		assert_string_equal(got, "null");
	}
	json_object_put(o);
}

#define JOB_OK                                                             \
	"{\"name\":\"t\",\"target\":\"nop\",\"workload\":{\"number_ios\":"  \
	"1000},\"variants\":{\"A\":{\"bio_cache\":\"off\"},\"B\":"          \
	"{\"bio_cache\":\"all\"}},\"repeat\":2,\"warmup\":1}"

static int64_t submit(struct fx *f, const char *body)
{
	struct json_object *o = req(f, "POST", "/api/v1/jobs", body, 201);
	struct json_object *v;
	char url[64];
	int64_t id;

	assert_true(json_object_object_get_ex(o, "id", &v));
	id = json_object_get_int64(v);
	assert_true(id > 0);
	assert_string_equal(jstr(o, "state"), "queued");
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	assert_string_equal(jstr(o, "url"), url);
	json_object_put(o);
	return id;
}

/* queued -> running -> done, as the scheduler would. */
static void finish_done(struct fx *f, int64_t id, const char *verdict,
			const char *compare)
{
	char err[256] = "";
	int ret;

	ret = bb_store_job_start(f->ctx.store, id, 0, 0, err, sizeof(err));
	if (ret)
		fprintf(stderr, "job_start: %s\n", err);
	assert_int_equal(ret, 0);
	ret = bb_store_job_finish(f->ctx.store, id, "done", verdict, compare,
				  NULL, err, sizeof(err));
	if (ret)
		fprintf(stderr, "job_finish: %s\n", err);
	assert_int_equal(ret, 0);
}

static void test_health(void **state)
{
	struct fx *f = *state;
	struct json_object *o = req(f, "GET", "/api/v1/health", NULL, 200);

	assert_string_equal(jstr(o, "status"), "ok");
	assert_string_equal(jstr(o, "version"), "0.0-test");
	assert_string_equal(jstr(o, "running_job"), "null");
	assert_true(atoi(jstr(o, "schema_version")) >= 1);
	assert_non_null(jstr(o, "uptime_s"));
	json_object_put(o);
	/* HEAD is GET without the body (MHD drops it) */
	o = req(f, "HEAD", "/api/v1/health", NULL, 200);
	json_object_put(o);
}

static void test_submit_and_get(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *cpus;
	char url[64];
	int64_t id = submit(f, JOB_OK);

	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "queued");
	assert_string_equal(jstr(o, "name"), "t");
	assert_string_equal(jstr(o, "target"), "nop");
	assert_int_equal(atoi(jstr(o, "runs_planned")), (2 + 1) * 2);
	/* no CPUs in the job: the bench CPUs were added to the workload */
	assert_true(json_object_object_get_ex(o, "spec", &cpus));
	assert_true(json_object_object_get_ex(cpus, "workload", &cpus));
	assert_true(json_object_object_get_ex(cpus, "cpus", &cpus));
	assert_int_equal(json_object_array_length(cpus), 1);
	assert_int_equal(json_object_get_int(json_object_array_get_idx(cpus, 0)),
			 1);
	json_object_put(o);

	/* a job naming its CPUs keeps them */
	id = submit(f, "{\"name\":\"x\",\"target\":\"nop\",\"workload\":{\"number_ios\":100,"
		    "\"cpus\":[1],\"threads\":1},\"variants\":{\"A\":{},"
		    "\"B\":{\"iodepth\":4}}}");
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "queued");
	json_object_put(o);

	/* runs of a queued job: none yet */
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/runs", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	assert_true(json_object_object_get_ex(o, "runs", &cpus));
	assert_int_equal(json_object_array_length(cpus), 0);
	json_object_put(o);
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/runs?samples=2",
		 (long long)id);
	expect_error(f, "GET", url, NULL, 400, "invalid_argument", "samples");
	/* no comparison before any run */
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/compare", (long long)id);
	expect_error(f, "GET", url, NULL, 409, "no_comparison", NULL);
}

static void test_bad_jobs(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *errs;
	const char bad_utf8[] = "{\"name\":\"\xc3\x28\",\"target\":\"nop\"}";

	expect_error(f, "POST", "/api/v1/jobs", "{", 400, "invalid_job",
		     NULL);
	expect_error(f, "POST", "/api/v1/jobs", "", 400, "invalid_job", NULL);
	expect_error(f, "POST", "/api/v1/jobs", "[1,2]", 400, "invalid_job",
		     NULL);
	expect_error(f, "POST", "/api/v1/jobs", bad_utf8, 400, "invalid_job",
		     NULL);
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"nop\",\"variants\":{\"A\":{\"bio_cache\":"
		     "\"fast\"},\"B\":{}}}",
		     400, "invalid_job", "variants.A.bio_cache");
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"nop\",\"bogus\":1,\"variants\":{\"A\":{},"
		     "\"B\":{}}}",
		     400, "invalid_job", "bogus");
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"nop\",\"repeat\":\"six\",\"variants\":"
		     "{\"A\":{},\"B\":{}}}",
		     400, "invalid_job", "repeat");
	/* the HTTP CPU is reserved */
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"nop\",\"workload\":{\"number_ios\":100,"
		     "\"cpus\":[0]},\"variants\":{\"A\":{},\"B\":{}}}",
		     400, "invalid_job", "workload.cpus");
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"nop\",\"workload\":{\"number_ios\":100},"
		     "\"variants\":{\"A\":{},\"B\":{\"cpus\":[0]}}}",
		     400, "invalid_job", "variants.B.cpus");
	/* sysfs knobs need a block device behind the target */
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"nop\",\"workload\":{\"number_ios\":100},"
		     "\"variants\":{\"A\":{},\"B\":{\"sysfs.nomerges\":2}}}",
		     400, "invalid_job", "variants.B.sysfs.nomerges");

	/* every error is listed */
	o = req(f, "POST", "/api/v1/jobs",
		"{\"name\":\"x\",\"target\":\"nop\",\"repeat\":-1,\"order\":\"zigzag\","
		"\"variants\":{\"A\":{},\"B\":{}}}", 400);
	assert_true(json_object_object_get_ex(o, "errors", &errs));
	assert_true(json_object_array_length(errs) >= 2);
	json_object_put(o);

	/* nothing was stored */
	o = req(f, "GET", "/api/v1/jobs", NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &errs));
	assert_int_equal(json_object_array_length(errs), 0);
	json_object_put(o);
}

static void test_target_not_allowed(void **state)
{
	struct fx *f = *state;
	char body[512];

	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"x\",\"target\":\"/etc/passwd\",\"workload\":{\"number_ios\":"
		     "10},\"variants\":{\"A\":{},\"B\":{}}}",
		     403, "target_not_allowed", "target");
	/* allowed read-only: writes refused */
	snprintf(body, sizeof(body),
		 "{\"name\":\"x\",\"target\":\"%s/x.dat\",\"workload\":{\"number_ios\":10,"
		 "\"size\":\"1m\"},\"variants\":{\"A\":{},\"B\":{\"rw\":"
		 "\"randwrite\"}}}", f->dir);
	expect_error(f, "POST", "/api/v1/jobs", body, 403,
		     "target_not_allowed", "target");
	/* a device the allow-list lets be written, but the job does not say
	 * allow_write: refused at submission, not at its first run */
	f->cfg.nallow = 3;
	snprintf(f->cfg.allow[2].pattern, sizeof(f->cfg.allow[2].pattern),
		 "/dev/null");
	f->cfg.allow[2].write = true;
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"w\",\"target\":\"/dev/null\",\"workload\":"
		     "{\"number_ios\":10},\"variants\":{\"A\":{},\"B\":{\"rw\":"
		     "\"randwrite\"}}}",
		     400, "invalid_job", "variants.B.allow_write");
	expect_error(f, "POST", "/api/v1/jobs",
		     "{\"name\":\"w\",\"target\":\"/dev/null\",\"workload\":"
		     "{\"number_ios\":10,\"rw\":\"write\"},\"variants\":{\"A\":{},"
		     "\"B\":{}}}",
		     400, "invalid_job", "workload.allow_write");
	f->cfg.nallow = 2;
}

/* A 400 on field whose message holds want. */
static void expect_invalid(struct fx *f, const char *body, const char *field,
			   const char *want)
{
	struct json_object *o = req(f, "POST", "/api/v1/jobs", body, 400);

	assert_non_null(o);
	assert_string_equal(jstr(o, "error.code"), "invalid_job");
	assert_string_equal(jstr(o, "error.field"), field);
	if (!strstr(jstr(o, "error.message"), want))
		fail_msg("%s: '%s' does not say '%s'", field,
			 jstr(o, "error.message"), want);
	json_object_put(o);
}

/* Boot jobs at submission: refused without allow_reboot (403 naming the
 * first variant's boot), without boot_dirs, with kernels outside them,
 * under a world-writable directory (/tmp), world-writable, a symlink, or
 * with a command line parameter that is not allowed (400 naming the
 * field and why); boots beyond max_boots_per_job (400 on boots),
 * grub-reboot without grub_entry (400 on the entry); accepted with the
 * runs of every boot planned.  Root's files need root: skipped else. */
static void test_boot_jobs(void **state)
{
	struct fx *f = *state;
	struct json_object *o;
	char body[2048], ka[160], kb[160], url[64], tmpk[160], link[160];
	char dir[64] = "/run/bb-test-boot.XXXXXX", cmd[128], in[96], out[128];
	FILE *k;
	int64_t id;

	if (geteuid() || !mkdtemp(dir))
		skip();
	/* DIR/in the boot directory, DIR/vmlinuz-6.1.0-o outside it */
	snprintf(out, sizeof(out), "%s/vmlinuz-6.1.0-o", dir);
	assert_non_null(k = fopen(out, "w"));
	fclose(k);
	snprintf(in, sizeof(in), "%s/in", dir);
	assert_int_equal(mkdir(in, 0755), 0);
	snprintf(ka, sizeof(ka), "%s/vmlinuz-6.1.0-a", in);
	snprintf(kb, sizeof(kb), "%s/vmlinuz-6.1.0-b", in);
	snprintf(tmpk, sizeof(tmpk), "%s/vmlinuz-6.1.0-a", f->dir);
	assert_non_null(k = fopen(ka, "w"));
	fclose(k);
	assert_non_null(k = fopen(kb, "w"));
	fclose(k);
	assert_non_null(k = fopen(tmpk, "w"));
	fclose(k);
#define BOOT_JOB "{\"name\":\"k\",\"target\":\"nop\",\"workload\":" \
	"{\"number_ios\":10},\"repeat\":2,\"warmup\":1,%s\"variants\":" \
	"{\"A\":{\"boot\":{\"kernel\":\"%s\"}},\"B\":{\"boot\":{\"kernel\":\"%s\"%s}}}}"
	snprintf(body, sizeof(body), BOOT_JOB, "", ka, kb, "");
	expect_error(f, "POST", "/api/v1/jobs", body, 403,
		     "reboot_not_allowed", "variants.A.boot");
	f->cfg.allow_reboot = true;
	/* no boot_dirs (the default): refused, saying so */
	expect_invalid(f, body, "variants.A.boot.kernel",
		       "boot jobs need boot_dirs in [reboot]");
	f->cfg.nboot_dirs = 2;
	snprintf(f->cfg.boot_dirs[0], sizeof(f->cfg.boot_dirs[0]), "%s",
		 f->dir);
	snprintf(f->cfg.boot_dirs[1], sizeof(f->cfg.boot_dirs[1]), "%s", in);
	/* /tmp/bb-test-http.X/vmlinuz: /tmp is anyone's */
	snprintf(body, sizeof(body), BOOT_JOB, "", tmpk, kb, "");
	expect_invalid(f, body, "variants.A.boot.kernel",
		       "/tmp is writable by others (mode 1777)");
	/* outside boot_dirs */
	snprintf(body, sizeof(body), BOOT_JOB, "", ka, out, "");
	expect_invalid(f, body, "variants.B.boot.kernel",
		       "not under boot_dirs");
	/* a symlink in a boot directory: not followed */
	snprintf(link, sizeof(link), "%s/vmlinuz-link", in);
	assert_int_equal(symlink(kb, link), 0);
	snprintf(body, sizeof(body), BOOT_JOB, "", ka, link, "");
	expect_invalid(f, body, "variants.B.boot.kernel", "is a symlink");
	/* a kernel anyone may write; an initrd not root's */
	assert_int_equal(chmod(kb, 0646), 0);
	snprintf(body, sizeof(body), BOOT_JOB, "", ka, kb, "");
	expect_invalid(f, body, "variants.B.boot.kernel",
		       "writable by others (mode 0646)");
	assert_int_equal(chmod(kb, 0644), 0);
	{
		char initrd[160], extra[200];

		snprintf(initrd, sizeof(initrd), "%s/initrd.img", in);
		assert_non_null(k = fopen(initrd, "w"));
		fclose(k);
		assert_int_equal(chown(initrd, 1000, 1000), 0);
		snprintf(extra, sizeof(extra), ",\"initrd\":\"%s\"", initrd);
		snprintf(body, sizeof(body), BOOT_JOB, "", ka, kb, extra);
		expect_invalid(f, body, "variants.B.boot.initrd",
			       "owned by uid 1000, not root");
	}
	/* command lines: what changes what runs as root is refused, as is
	 * what is not on the list; the VM test's line is allowed */
	{
		static const char *const bad[][2] = {
			{ "init=/bin/sh", "init= chooses the first program" },
			{ "quiet rdinit=/x", "rdinit=" },
			{ "module.sig_enforce=0", "unsigned modules" },
			{ "lockdown=none", "lockdown" },
			{ "selinux=0", "security module" },
			{ "apparmor=0", "security module" },
			{ "systemd.unit=rescue.target", "systemd.*" },
			{ "single", "single-user" },
			{ "emergency", "emergency shell" },
			{ "root=/dev/sdb1", "root filesystem" },
			{ "sysctl.kernel.modprobe=x", "kernel.modprobe" },
			{ "bbkernel=B 1", "not an allowed parameter" },
			{ "nosuch=1", "not an allowed parameter" },
			{ "console=ttyS0;x", "letters, digits" },
			{ "console=\\\"a b\\\"", "a quote" },
		};
		char extra[256];

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			snprintf(extra, sizeof(extra), ",\"cmdline\":\"%s\"",
				 bad[i][0]);
			snprintf(body, sizeof(body), BOOT_JOB, "", ka, kb,
				 extra);
			expect_invalid(f, body, "variants.B.boot.cmdline",
				       bad[i][1]);
		}
	}
	f->cfg.max_boots_per_job = 6;
	snprintf(body, sizeof(body), BOOT_JOB, "\"boots\":4,", ka, kb, "");
	expect_error(f, "POST", "/api/v1/jobs", body, 400, "invalid_job",
		     "boots");
	f->cfg.reboot_method = BB_REBOOT_GRUB_REBOOT;
	snprintf(body, sizeof(body), BOOT_JOB, "", ka, kb, "");
	expect_error(f, "POST", "/api/v1/jobs", body, 400, "invalid_job",
		     "variants.A.boot.grub_entry");
	f->cfg.reboot_method = BB_REBOOT_KEXEC_SYSTEMD;
	snprintf(body, sizeof(body), BOOT_JOB, "\"boots\":3,", ka, kb,
		 ",\"cmdline\":\"console=ttyS0 panic=-1 quiet loglevel=3 "
		 "bbkernel=B mitigations=off nvme.poll_queues=4\"");
	id = submit(f, body);
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	/* (warmup 1 + repeat 2) x 2 variants x 3 boots */
	assert_int_equal(atoi(jstr(o, "runs_planned")), 18);
	json_object_put(o);
	/* a second one while the first waits: refused (409 naming
	 * allow_other_jobs), unless it allows other jobs */
	snprintf(body, sizeof(body), BOOT_JOB, "", ka, kb, "");
	expect_error(f, "POST", "/api/v1/jobs", body, 409, "host_busy",
		     "allow_other_jobs");
	snprintf(body, sizeof(body), BOOT_JOB, "\"allow_other_jobs\":true,",
		 ka, kb, "");
	submit(f, body);
#undef BOOT_JOB
	f->cfg.allow_reboot = false;
	f->cfg.nboot_dirs = 0;
	unlink(tmpk);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_list(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *jobs, *v;
	int64_t ids[5], cursor;
	char url[128];

	for (int i = 0; i < 5; i++)
		ids[i] = submit(f, JOB_OK);
	finish_done(f, ids[1], NULL, NULL);

	o = req(f, "GET", "/api/v1/jobs?limit=2", NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 2);
	/* newest first */
	assert_int_equal(atoll(jstr(json_object_array_get_idx(jobs, 0), "id")),
			 ids[4]);
	assert_int_equal(atoll(jstr(json_object_array_get_idx(jobs, 1), "id")),
			 ids[3]);
	assert_true(json_object_object_get_ex(o, "next_cursor", &v));
	assert_non_null(v);
	cursor = json_object_get_int64(v);
	json_object_put(o);

	snprintf(url, sizeof(url), "/api/v1/jobs?limit=2&cursor=%lld",
		 (long long)cursor);
	o = req(f, "GET", url, NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 2);
	assert_int_equal(atoll(jstr(json_object_array_get_idx(jobs, 0), "id")),
			 ids[2]);
	json_object_put(o);

	o = req(f, "GET", "/api/v1/jobs?state=done", NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 1);
	assert_int_equal(atoll(jstr(json_object_array_get_idx(jobs, 0), "id")),
			 ids[1]);
	json_object_put(o);
	o = req(f, "GET", "/api/v1/jobs?state=queued&limit=500", NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 4);
	json_object_put(o);
	o = req(f, "GET", "/api/v1/jobs?state=failed", NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 0);
	json_object_put(o);

	expect_error(f, "GET", "/api/v1/jobs?state=bogus", NULL, 400,
		     "invalid_argument", "state");
	expect_error(f, "GET", "/api/v1/jobs?limit=0", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/jobs?limit=501", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/jobs?limit=100000", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/jobs?limit=ten", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/jobs?limit=-1", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/jobs?cursor=-1", NULL, 400,
		     "invalid_argument", "cursor");
	expect_error(f, "GET", "/api/v1/jobs?cursor=99999999999999999999",
		     NULL, 400, "invalid_argument", "cursor");
}

static void test_not_found_and_methods(void **state)
{
	struct fx *f = *state;

	expect_error(f, "GET", "/api/v1/nope", NULL, 404, "not_found", NULL);
	expect_error(f, "GET", "/api/v2/jobs", NULL, 404, "not_found", NULL);
	expect_error(f, "GET", "/api/v1/jobs/", NULL, 404, "not_found", NULL);
	expect_error(f, "GET", "/api/v1/jobs/1/nope", NULL, 404, "not_found",
		     NULL);
	expect_error(f, "GET", "/api/v1/jobs/999", NULL, 404, "not_found",
		     NULL);
	assert_non_null(strstr(f->rs.body, "no job 999"));
	expect_error(f, "GET", "/api/v1/jobs/999/runs", NULL, 404,
		     "not_found", NULL);
	expect_error(f, "GET", "/api/v1/jobs/999/compare", NULL, 404,
		     "not_found", NULL);
	expect_error(f, "POST", "/api/v1/jobs/999/cancel", NULL, 404,
		     "not_found", NULL);

	expect_error(f, "GET", "/api/v1/jobs/abc", NULL, 400, "invalid_id",
		     "id");
	expect_error(f, "GET", "/api/v1/jobs/-1", NULL, 400, "invalid_id",
		     "id");
	expect_error(f, "GET", "/api/v1/jobs/0", NULL, 400, "invalid_id",
		     "id");
	expect_error(f, "GET", "/api/v1/jobs/9223372036854775808", NULL, 400,
		     "invalid_id", "id");
	expect_error(f, "GET", "/api/v1/jobs/99999999999999999999999", NULL,
		     400, "invalid_id", "id");
	expect_error(f, "GET", "/api/v1/jobs/1e3/runs", NULL, 400,
		     "invalid_id", "id");
	expect_error(f, "GET", "/api/v1/jobs/9223372036854775807", NULL, 404,
		     "not_found", NULL);

	expect_error(f, "DELETE", "/api/v1/jobs", NULL, 405,
		     "method_not_allowed", NULL);
	assert_string_equal(f->rs.allow, "GET, HEAD, POST");
	expect_error(f, "PUT", "/api/v1/jobs/1", NULL, 405,
		     "method_not_allowed", NULL);
	assert_string_equal(f->rs.allow, "GET, HEAD");
	expect_error(f, "GET", "/api/v1/jobs/1/cancel", NULL, 405,
		     "method_not_allowed", NULL);
	assert_string_equal(f->rs.allow, "POST");
	expect_error(f, "PATCH", "/api/v1/health", NULL, 405,
		     "method_not_allowed", NULL);
	assert_string_equal(f->rs.allow, "GET, HEAD");
	expect_error(f, "POST", "/metrics", NULL, 405, "method_not_allowed",
		     NULL);
	expect_error(f, "DELETE", "/index.html", NULL, 405,
		     "method_not_allowed", NULL);
	assert_string_equal(f->rs.allow, "GET, HEAD");
	/* a 200 carries no Allow */
	json_object_put(req(f, "GET", "/api/v1/health", NULL, 200));
	assert_null(f->rs.allow);
}

static void test_auth(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	snprintf(f->cfg.token, sizeof(f->cfg.token), "s3cret-token");
	f->cfg.token_len = strlen(f->cfg.token);
	o = req_full(f, "GET", "/api/v1/jobs", NULL, 0, NULL, true, 401);
	assert_string_equal(jstr(o, "error.code"), "unauthorized");
	json_object_put(o);
	json_object_put(req_full(f, "GET", "/api/v1/jobs", NULL, 0,
				 "Bearer wrong", true, 401));
	json_object_put(req_full(f, "GET", "/api/v1/jobs", NULL, 0,
				 "Bearer s3cret-toke", true, 401));
	json_object_put(req_full(f, "GET", "/api/v1/jobs", NULL, 0,
				 "Bearer s3cret-token2", true, 401));
	json_object_put(req_full(f, "GET", "/api/v1/jobs", NULL, 0,
				 "Basic s3cret-token", true, 401));
	json_object_put(req_full(f, "GET", "/api/v1/jobs", NULL, 0,
				 "Bearer s3cret-token", false, 200));
	json_object_put(req_full(f, "POST", "/api/v1/jobs", JOB_OK,
				 strlen(JOB_OK), NULL, false, 401));
	json_object_put(req_full(f, "POST", "/api/v1/jobs", JOB_OK,
				 strlen(JOB_OK), "Bearer s3cret-token", false,
				 201));
	/* health: free from loopback only */
	json_object_put(req_full(f, "GET", "/api/v1/health", NULL, 0, NULL,
				 true, 200));
	json_object_put(req_full(f, "GET", "/api/v1/health", NULL, 0, NULL,
				 false, 401));
	json_object_put(req_full(f, "GET", "/api/v1/health", NULL, 0,
				 "Bearer s3cret-token", false, 200));
	/* metrics need it; the dashboard's static files do not (a browser
	 * loading a page sends no bearer header) */
	json_object_put(req_full(f, "GET", "/metrics", NULL, 0, NULL, true,
				 401));
	json_object_put(req_full(f, "GET", "/api", NULL, 0, NULL, false,
				 401));
	json_object_put(req_full(f, "GET", "/", NULL, 0, NULL, false, 200));
	json_object_put(req_full(f, "POST", "/", NULL, 0, NULL, false, 401));
	/* no token: no auth */
	f->cfg.token[0] = '\0';
	f->cfg.token_len = 0;
	json_object_put(req_full(f, "GET", "/api/v1/jobs", NULL, 0, NULL,
				 false, 200));
}

static void test_static(void **state)
{
	struct fx *f = *state;

	assert_null(req(f, "GET", "/", NULL, 200));
	assert_string_equal(f->rs.content_type, "text/html; charset=utf-8");
	assert_string_equal(f->rs.cache_control, "no-cache");
	assert_non_null(strstr(f->rs.body, "<title>biobench</title>"));
	assert_null(req(f, "GET", "/index.html", NULL, 200));
	assert_null(req(f, "GET", "/app.js", NULL, 200));
	assert_string_equal(f->rs.content_type,
			    "text/javascript; charset=utf-8");
	assert_int_equal(f->rs.len, strlen("console.log('bb');\n"));
	assert_null(req(f, "GET", "/sub/", NULL, 200));
	assert_non_null(strstr(f->rs.body, "<p>sub</p>"));
	assert_null(req(f, "GET", "/sub", NULL, 200));
	assert_non_null(strstr(f->rs.body, "<p>sub</p>"));

	expect_error(f, "GET", "/missing.html", NULL, 404, "not_found", NULL);
	expect_error(f, "GET", "/../secret.txt", NULL, 403, "forbidden",
		     NULL);
	expect_error(f, "GET", "/../../../../etc/passwd", NULL, 403,
		     "forbidden", NULL);
	expect_error(f, "GET", "/sub/../../secret.txt", NULL, 403,
		     "forbidden", NULL);
	expect_error(f, "GET", "/..", NULL, 403, "forbidden", NULL);
	expect_error(f, "GET", "/..\\secret.txt", NULL, 403, "forbidden",
		     NULL);
	expect_error(f, "GET", "//etc/passwd", NULL, 403, "forbidden", NULL);
	/* symlinks out of the web root */
	expect_error(f, "GET", "/out.txt", NULL, 403, "forbidden", NULL);
	expect_error(f, "GET", "/outdir/secret.txt", NULL, 403, "forbidden",
		     NULL);
	expect_error(f, "GET", "/javascript/../../../etc/passwd", NULL, 403,
		     "forbidden", NULL);
	/* the file helper alone: the file is served from an fd, not read
	 * into memory */
	bb_http_response_free(&f->rs);
	memset(&f->rs, 0, sizeof(f->rs));
	bb_route_static_file(f->web, "/index.html", &f->rs);
	assert_int_equal(f->rs.status, 200);
	assert_true(f->rs.has_fd);
	assert_null(f->rs.body);
	assert_int_equal(f->rs.fd_len,
			 strlen("<!doctype html><title>biobench</title>\n"));
	assert_int_equal(bb_http_response_load(&f->rs, 1 << 20), 0);
	assert_false(f->rs.has_fd);
	assert_string_equal(f->rs.body,
			    "<!doctype html><title>biobench</title>\n");
	/* not a regular file (a FIFO in the web root): not opened, so no
	 * open() that blocks */
	{
		char fifo[256];

		snprintf(fifo, sizeof(fifo), "%s/pipe.txt", f->web);
		assert_int_equal(mkfifo(fifo, 0644), 0);
		expect_error(f, "GET", "/pipe.txt", NULL, 404, "not_found",
			     NULL);
	}
}

static void test_metrics(void **state)
{
	struct fx *f = *state;
	static const char *const want[] = {
		"# TYPE biobench_jobs gauge\n",
		"# HELP biobench_jobs ",
		"biobench_jobs{host=\"bench-1.lab\",state=\"queued\"} 2\n",
		"biobench_jobs{host=\"bench-1.lab\",state=\"running\"} 0\n",
		"biobench_jobs{host=\"bench-1.lab\",state=\"done\"} 0\n",
		"biobench_jobs{host=\"bench-1.lab\",state=\"failed\"} 0\n",
		"biobench_jobs{host=\"bench-1.lab\",state=\"cancelled\"} 0\n",
		"biobench_jobs{host=\"bench-1.lab\",state=\"interrupted\"} 0\n",
		"biobench_jobs{host=\"bench-1.lab\",state=\"rebooting\"} 0\n",
		"# TYPE biobench_runs_total counter\n",
		"biobench_runs_total{host=\"bench-1.lab\"} 0\n",
		"# TYPE biobench_build_info gauge\n",
		"biobench_build_info{host=\"bench-1.lab\",version=\"0.0-test\"} 1\n",
		"# TYPE biobench_jobs_queued_limit gauge\n",
		"biobench_jobs_queued_limit{host=\"bench-1.lab\"} 1000\n",
		"biobench_running_jobs{host=\"bench-1.lab\"} 0\n",
		"biobench_store_up{host=\"bench-1.lab\"} 1\n",
		"# TYPE biobench_start_time_seconds gauge\n",
		"# TYPE biobench_uptime_seconds gauge\n",
		"biobench_uptime_seconds{host=\"bench-1.lab\"} ",
	};

	/* every series names this daemon's host */
	snprintf(f->cfg.host_name, sizeof(f->cfg.host_name), "bench-1.lab");
	submit(f, JOB_OK);
	submit(f, JOB_OK);
	assert_null(req(f, "GET", "/metrics", NULL, 200));
	assert_string_equal(f->rs.content_type,
			    "text/plain; version=0.0.4; charset=utf-8");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (!strstr(f->rs.body, want[i]))
			fprintf(stderr, "missing %s in:\n%s", want[i],
				f->rs.body);
		assert_non_null(strstr(f->rs.body, want[i]));
	}
	/* bounded: no label takes a value from the store (the targets of
	 * jobs, their names) */
	{
		unsigned series = 0;

		for (const char *p = f->rs.body; p && *p;
		     p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
			if (*p != '#' && *p != '\n') {
				const char *b = strchr(p, '{');

				series++;
				/* the series' first label, on its own line */
				assert_non_null(b);
				assert_true(b < strchr(p, '\n'));
				assert_int_equal(strncmp(b, "{host=\"bench-1.lab\"",
							 19), 0);
			}
		assert_int_equal(series, 14); /* 7 job states */
		assert_null(strstr(f->rs.body, "target="));
	}
}

/* Limits on what a submission may cost: the queue (429 with
 * Retry-After) and the planned run time (400 naming the numbers). */
static void test_limits(void **state)
{
	struct fx *f = *state;
	struct json_object *o;

	f->cfg.max_queued_jobs = 2;
	submit(f, JOB_OK);
	submit(f, JOB_OK);
	o = req(f, "POST", "/api/v1/jobs", JOB_OK, 429);
	assert_string_equal(jstr(o, "error.code"), "queue_full");
	assert_non_null(strstr(jstr(o, "error.message"),
			       "2 jobs are queued, the limit is 2 "
			       "(max_queued_jobs)"));
	assert_int_equal(f->rs.retry_after, 60);
	json_object_put(o);
	f->cfg.max_queued_jobs = 1000;
	/* 292 years: 2 variants x (1 + 1000) runs of 4.6e6 s */
	o = req(f, "POST", "/api/v1/jobs",
		"{\"name\":\"long\",\"target\":\"nop\",\"workload\":"
		"{\"runtime\":\"4600000s\"},\"variants\":{\"A\":{},"
		"\"B\":{}},\"repeat\":1000,\"warmup\":1}", 400);
	assert_string_equal(jstr(o, "error.field"), "workload.runtime");
	assert_non_null(strstr(jstr(o, "error.message"), "2002 runs"));
	assert_non_null(strstr(jstr(o, "error.message"),
			       "max_job_seconds = 604800"));
	json_object_put(o);
	/* a variant's own runtime and ramp count, max_repeat too */
	f->cfg.max_job_s = 99;
	o = req(f, "POST", "/api/v1/jobs",
		"{\"name\":\"v\",\"target\":\"nop\",\"workload\":"
		"{\"runtime\":\"1s\"},\"variants\":{\"A\":{},"
		"\"B\":{\"runtime\":\"3s\",\"ramp_time\":\"1s\"}},"
		"\"repeat\":4,\"max_repeat\":20,\"warmup\":0}", 400);
	assert_string_equal(jstr(o, "error.field"), "variants.B.runtime");
	assert_non_null(strstr(jstr(o, "error.message"), "100 s in all"));
	json_object_put(o);
	/* 4 x 1 s + 4 x 4 s = 20 s: under 99 */
	submit(f, "{\"name\":\"v\",\"target\":\"nop\",\"workload\":"
		  "{\"runtime\":\"1s\"},\"variants\":{\"A\":{},"
		  "\"B\":{\"runtime\":\"3s\",\"ramp_time\":\"1s\"}},"
		  "\"repeat\":4,\"warmup\":0}");
}

/* NUL (\u0000) in any text of a job: 400 naming the field. */
static void test_nul(void **state)
{
	struct fx *f = *state;
	static const struct {
		const char *body, *field;
	} cases[] = {
		{ "{\"name\":\"a\\u0000b\",\"target\":\"nop\",\"variants\":"
		  "{\"A\":{},\"B\":{}}}", "name" },
		{ "{\"name\":\"x\\n<0>forged\\u0000\",\"target\":\"nop\","
		  "\"variants\":{\"A\":{},\"B\":{}}}", "name" },
		{ "{\"name\":\"a\",\"target\":\"nop\\u0000/etc\",\"variants\":"
		  "{\"A\":{},\"B\":{}}}", "target" },
		{ "{\"name\":\"a\",\"target\":\"nop\",\"variants\":{\"A\":{},"
		  "\"B\":{\"sysfs.nomerges\":\"1\\u0000\"}}}",
		  "variants.B.sysfs.nomerges" },
		{ "{\"name\":\"a\",\"target\":\"nop\",\"workload\":{\"cpus\":"
		  "[\"1\\u0000\"]},\"variants\":{\"A\":{},\"B\":{}}}",
		  "workload.cpus[0]" },
	};
	struct json_object *o;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		o = req(f, "POST", "/api/v1/jobs", cases[i].body, 400);
		if (strcmp(jstr(o, "error.field"), cases[i].field))
			fail_msg("%s: field %s, wanted %s (%s)", cases[i].body,
				 jstr(o, "error.field"), cases[i].field,
				 jstr(o, "error.message"));
		assert_non_null(strstr(jstr(o, "error.message"), "NUL"));
		json_object_put(o);
	}
	/* in a key (json-c cuts keys at a NUL: "name\u0000x" would be
	 * taken for "name") */
	o = req(f, "POST", "/api/v1/jobs",
		"{\"name\\u0000x\":\"a\",\"target\":\"nop\",\"variants\":"
		"{\"A\":{},\"B\":{}}}", 400);
	assert_non_null(strstr(jstr(o, "error.message"),
			       "a field name contains a NUL"));
	json_object_put(o);
	/* an escaped backslash before u0000 is text, not a NUL */
	submit(f, "{\"name\":\"a\\\\u0000b\",\"target\":\"nop\",\"workload\":"
		  "{\"number_ios\":1000},\"variants\":{\"A\":{},\"B\":{}},"
		  "\"repeat\":2,\"warmup\":0}");
}

/* The database file deleted under the daemon: health and submissions
 * say so (503), instead of writing into a file that is gone. */
static void test_store_lost(void **state)
{
	struct fx *f = *state;
	struct json_object *o;
	char p[160];

	if (f->pg)
		skip();   /* a file of sqlite's */
	snprintf(p, sizeof(p), "%s/biobench.db", f->dir);
	assert_int_equal(unlink(p), 0);
	o = req(f, "GET", "/api/v1/health", NULL, 503);
	assert_string_equal(jstr(o, "error.code"), "store_unavailable");
	assert_non_null(strstr(jstr(o, "error.message"), "was deleted"));
	json_object_put(o);
	o = req(f, "POST", "/api/v1/jobs", JOB_OK, 503);
	assert_string_equal(jstr(o, "error.code"), "store_unavailable");
	json_object_put(o);
	assert_null(req(f, "GET", "/metrics", NULL, 200));
	{
		char want[320];

		snprintf(want, sizeof(want), "biobench_store_up{host=\"%s\"} 0\n",
			 f->cfg.host_name);
		assert_non_null(strstr(f->rs.body, want));
	}
}

static void test_cancel(void **state)
{
	struct fx *f = *state;
	struct json_object *o;
	int64_t id = submit(f, JOB_OK);
	char url[64];

	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/cancel", (long long)id);
	o = req(f, "POST", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "cancelled");
	assert_int_equal(atoll(jstr(o, "id")), id);
	json_object_put(o);
	expect_error(f, "POST", url, NULL, 409, "already_finished", NULL);
	assert_non_null(strstr(f->rs.body, "already finished (cancelled)"));
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "cancelled");
	json_object_put(o);
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/compare", (long long)id);
	expect_error(f, "GET", url, NULL, 409, "no_comparison", NULL);
	expect_error(f, "POST", "/api/v1/jobs/abc/cancel", NULL, 400,
		     "invalid_id", "id");
}

/* Without a scheduler (a front end): a running job another daemon
 * claimed gets a cancel request (202 cancelling, naming that daemon, its
 * heartbeat told); one no daemon claimed is cancelled in the store. */
static void test_cancel_forwarded(void **state)
{
	struct fx *f = *state;
	struct bb_store *d = NULL;
	struct json_object *o;
	char err[512] = "", url[64], *spec = NULL;
	int64_t id, plain, claimed = 0;

	snprintf(f->cfg.host_name, sizeof(f->cfg.host_name), "front-1");
	if (bb_store_open(&d, f->store, err, sizeof(err)) ||
	    bb_store_set_daemon(d, "runner-1", 60, err, sizeof(err)) ||
	    bb_store_daemon_register(d, NULL, NULL, "test", 1, err,
				     sizeof(err)))
		fail_msg("runner-1: %s", err);
	id = submit(f, JOB_OK);
	assert_int_equal(bb_store_job_claim(d, &claimed, &spec, err,
					    sizeof(err)), 0);
	free(spec);
	assert_int_equal(claimed, id);
	assert_int_equal(bb_store_job_start(d, id, 0, 0, err, sizeof(err)), 0);
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/cancel", (long long)id);
	o = req(f, "POST", url, NULL, 202);
	assert_string_equal(jstr(o, "state"), "cancelling");
	assert_string_equal(jstr(o, "host"), "runner-1");
	assert_int_equal(atoll(jstr(o, "id")), id);
	json_object_put(o);
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "running");
	assert_string_equal(jstr(o, "cancel_requested_by"), "front-1");
	json_object_put(o);
	assert_int_equal(bb_store_daemon_heartbeat(d, id, err, sizeof(err)),
			 -ECANCELED);
	assert_non_null(strstr(err, "via front-1"));
	bb_store_close(d);
	/* started on a handle of no daemon: nobody to ask, cancelled here */
	plain = submit(f, JOB_OK);
	assert_int_equal(bb_store_job_start(f->ctx.store, plain, 0, 0, err,
					    sizeof(err)), 0);
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/cancel",
		 (long long)plain);
	o = req(f, "POST", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "cancelled");
	json_object_put(o);
}

static void test_compare(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *v;
	int64_t id = submit(f, JOB_OK);
	char url[64];

	finish_done(f, id, "faster", "{\"comparisons\":[]}");
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/compare", (long long)id);
	o = req(f, "GET", url, NULL, 200);
	assert_int_equal(atoll(jstr(o, "job_id")), id);
	assert_string_equal(jstr(o, "state"), "done");
	assert_string_equal(jstr(o, "final"), "true");
	assert_string_equal(jstr(o, "verdict"), "faster");
	assert_true(json_object_object_get_ex(o, "compare", &v));
	assert_true(json_object_is_type(v, json_type_object));
	assert_true(json_object_object_get_ex(o, "warnings", &v));
	assert_true(json_object_is_type(v, json_type_array));
	json_object_put(o);
}

/* n runs of variant A with values around v (every other one 2% off), a
 * result document with the configuration. */
static void add_runs(struct fx *f, int64_t id, double v, unsigned n)
{
	char err[256] = "";

	for (unsigned i = 0; i < n; i++) {
		struct bb_store_run run = {
			.job_id = id, .variant = i % 2 ? "A2" : "A", .seq = i,
			.round = i / 2, .state = "done",
			.metric = v * (i % 2 ? 1.02 : 1.0),
			.result = "{\"config\":{\"target\":\"nop\","
				  "\"bs\":4096},\"boot_id\":\"b-1\"}",
		};

		if (bb_store_run_insert(f->ctx.store, &run, NULL, err,
					sizeof(err)))
			fail_msg("run_insert: %s", err);
	}
}

/* GET /api/v1/compare: jobs against jobs, its argument errors, a job
 * without runs, the token and Host checks of every GET. */
static void test_compare_jobs(void **state)
{
	static const char aa[] = "{\"name\":\"aa\",\"target\":\"nop\","
				 "\"aa\":true,\"repeat\":6}";
	struct fx *f = *state;
	struct json_object *o;
	int64_t a = submit(f, aa), b = submit(f, aa), q = submit(f, aa);
	char url[160];

	finish_done(f, a, "no_change", NULL);
	finish_done(f, b, "no_change", NULL);
	add_runs(f, a, 1e6, 12);
	add_runs(f, b, 0.5e6, 12);
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=%lld",
		 (long long)a, (long long)b);
	o = req(f, "GET", url, NULL, 200);
	/* one job a side: the job is the unit, no verdict from one each */
	assert_string_equal(jstr(o, "verdict"), "inconclusive");
	assert_string_equal(jstr(o, "level"), "unit");
	{
		struct json_object *c = json_object_array_get_idx(
			json_object_object_get(o, "comparisons"), 0);

		assert_string_equal(json_object_get_string(
					    json_object_object_get(c, "compared_by")),
				    "job");
	}
	assert_string_equal(jstr(o, "metric"), "iops");
	assert_string_equal(jstr(o, "boots.single_boot"), "true");
	json_object_put(o);
	/* the run level, asked for: the runs say slower */
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=%lld&level=run",
		 (long long)a, (long long)b);
	o = req(f, "GET", url, NULL, 200);
	assert_string_equal(jstr(o, "verdict"), "slower");
	assert_string_equal(jstr(o, "level"), "run");
	json_object_put(o);
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=%lld&level=boot",
		 (long long)a, (long long)b);
	expect_error(f, "GET", url, NULL, 400, "invalid_argument", "level");
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=%lld",
		 (long long)a, (long long)b);
	json_object_put(req(f, "HEAD", url, NULL, 200));
	expect_error(f, "POST", url, NULL, 405, "method_not_allowed", NULL);
	/* arguments */
	expect_error(f, "GET", "/api/v1/compare", NULL, 400,
		     "invalid_argument", "base");
	expect_error(f, "GET", "/api/v1/compare?base=1", NULL, 400,
		     "invalid_argument", "with");
	expect_error(f, "GET", "/api/v1/compare?base=0&with=1", NULL, 400,
		     "invalid_argument", "base");
	expect_error(f, "GET", "/api/v1/compare?base=1&with=2,x", NULL, 400,
		     "invalid_argument", "with");
	expect_error(f, "GET", "/api/v1/compare?base=1&with=1", NULL, 400,
		     "invalid_argument", "with");
	expect_error(f, "GET", "/api/v1/compare?base=1&with=2&with=2", NULL,
		     400, "invalid_argument", "with");
	/* 9 sides besides the base; 33 jobs; the base given twice; a
	 * job on both sides */
	expect_error(f, "GET",
		     "/api/v1/compare?base=1&with=2&with=3&with=4&with=5&with=6"
		     "&with=7&with=8&with=9&with=10", NULL,
		     400, "invalid_argument", "with");
	expect_error(f, "GET",
		     "/api/v1/compare?base=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,"
		     "16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33"
		     "&with=34", NULL, 400, "invalid_argument", "base");
	expect_error(f, "GET", "/api/v1/compare?base=1&base=2&with=3", NULL,
		     400, "invalid_argument", "base");
	expect_error(f, "GET", "/api/v1/compare?base=1,2&with=3,2", NULL,
		     400, "invalid_argument", "with");
	snprintf(url, sizeof(url),
		 "/api/v1/compare?base=%lld&with=%lld&variant=B", (long long)a,
		 (long long)b);
	expect_error(f, "GET", url, NULL, 400, "invalid_argument", "variant");
	snprintf(url, sizeof(url),
		 "/api/v1/compare?base=%lld&with=%lld&variant=A.", (long long)a,
		 (long long)b);
	expect_error(f, "GET", url, NULL, 400, "invalid_argument", "variant");
	snprintf(url, sizeof(url),
		 "/api/v1/compare?base=%lld&with=%lld"
		 "&allow_different_workload=yes",
		 (long long)a, (long long)b);
	expect_error(f, "GET", url, NULL, 400, "invalid_argument",
		     "allow_different_workload");
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=999",
		 (long long)a);
	expect_error(f, "GET", url, NULL, 404, "not_found", NULL);
	/* a queued job has nothing to compare */
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=%lld",
		 (long long)a, (long long)q);
	expect_error(f, "GET", url, NULL, 409, "no_comparison", "with");
	/* the token and the Host, as for every GET */
	snprintf(url, sizeof(url), "/api/v1/compare?base=%lld&with=%lld",
		 (long long)a, (long long)b);
	snprintf(f->cfg.token, sizeof(f->cfg.token), "s3cret-token");
	f->cfg.token_len = strlen(f->cfg.token);
	json_object_put(req_full(f, "GET", url, NULL, 0, NULL, true, 401));
	json_object_put(req_full(f, "GET", url, NULL, 0, "Bearer s3cret-token",
				 true, 200));
	f->cfg.token[0] = '\0';
	f->cfg.token_len = 0;
	f->host = "evil.example:8420";
	json_object_put(req(f, "GET", url, NULL, 421));
	f->host = NULL;
}

static void test_history(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *jobs, *j, *c;
	int64_t a, b, other;

	a = submit(f, JOB_OK);
	b = submit(f, JOB_OK);
	other = submit(f, "{\"name\":\"u\",\"target\":\"nop\","
			  "\"variants\":{\"A\":{},\"B\":{}}}");
	submit(f, JOB_OK);   /* stays queued: not in the history */
	finish_done(f, a, "faster", "{\"metric\":\"iops\",\"unit\":"
		    "\"IO/s\",\"comparisons\":[{\"baseline\":\"A\","
		    "\"variant\":\"B\",\"change\":0.1,\"ci_lo\":0.05,"
		    "\"ci_hi\":0.15,\"p_value\":0.01,\"verdict\":"
		    "\"faster\",\"text\":\"B is 10% faster\",\"a\":"
		    "{\"median\":100,\"mean\":101},\"b\":{\"median\":"
		    "110}}],\"variants\":{\"A\":{\"values\":[1,2]}}}");
	finish_done(f, b, NULL, NULL);
	finish_done(f, other, "slower", NULL);

	o = req(f, "GET", "/api/v1/history?name=t", NULL, 200);
	assert_string_equal(jstr(o, "name"), "t");
	assert_string_equal(jstr(o, "target"), "null");
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 2);
	/* newest first; no comparison: null */
	j = json_object_array_get_idx(jobs, 0);
	assert_int_equal(atoll(jstr(j, "id")), b);
	assert_string_equal(jstr(j, "compare"), "null");
	assert_string_equal(jstr(j, "host"), "null");
	j = json_object_array_get_idx(jobs, 1);
	assert_int_equal(atoll(jstr(j, "id")), a);
	assert_string_equal(jstr(j, "state"), "done");
	assert_string_equal(jstr(j, "verdict"), "faster");
	assert_string_equal(jstr(j, "compare.metric"), "iops");
	assert_true(json_object_object_get_ex(
		json_object_object_get(j, "compare"), "comparisons", &c));
	assert_int_equal(json_object_array_length(c), 1);
	c = json_object_array_get_idx(c, 0);
	assert_string_equal(jstr(c, "text"), "B is 10% faster");
	assert_string_equal(jstr(c, "ci_lo"), "0.05");
	assert_string_equal(jstr(c, "baseline_median"), "100");
	assert_string_equal(jstr(c, "variant_median"), "110");
	assert_null(jstr(c, "a"));   /* slimmed: no per-variant stats */
	json_object_put(o);

	o = req(f, "GET", "/api/v1/history?name=t&target=nop&limit=1", NULL,
		200);
	assert_string_equal(jstr(o, "target"), "nop");
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 1);
	json_object_put(o);
	o = req(f, "GET", "/api/v1/history?name=t&target=/dev/none", NULL,
		200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 0);
	json_object_put(o);
	o = req(f, "GET", "/api/v1/history?name=nobody", NULL, 200);
	assert_true(json_object_object_get_ex(o, "jobs", &jobs));
	assert_int_equal(json_object_array_length(jobs), 0);
	json_object_put(o);

	expect_error(f, "GET", "/api/v1/history", NULL, 400,
		     "invalid_argument", "name");
	expect_error(f, "GET", "/api/v1/history?name=t&limit=0", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/history?name=t&limit=501", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "GET", "/api/v1/history?name=t&limit=x", NULL, 400,
		     "invalid_argument", "limit");
	expect_error(f, "POST", "/api/v1/history?name=t", NULL, 405,
		     "method_not_allowed", NULL);
}

static void test_devices_host_body_limit(void **state)
{
	struct fx *f = *state;
	struct json_object *o, *v;
	char *big;

	o = req(f, "GET", "/api/v1/devices", NULL, 200);
	assert_true(json_object_object_get_ex(o, "devices", &v));
	assert_true(json_object_is_type(v, json_type_array));
	for (size_t i = 0; i < json_object_array_length(v); i++) {
		struct json_object *d = json_object_array_get_idx(v, i), *b;

		assert_true(json_object_object_get_ex(d, "allowed", &b));
		assert_true(json_object_is_type(b, json_type_boolean));
		assert_true(json_object_object_get_ex(d, "allow_write", &b));
	}
	json_object_put(o);

	o = req(f, "GET", "/api/v1/host", NULL, 200);
	assert_string_equal(jstr(o, "hostname"), "testhost");
	assert_int_equal(atoi(jstr(o, "daemon.pid")), getpid());
	assert_string_equal(jstr(o, "daemon.version"), "0.0-test");
	json_object_put(o);

	f->cfg.max_body = 100;
	big = calloc(1, 201);
	assert_non_null(big);
	memset(big, ' ', 200);
	expect_error(f, "POST", "/api/v1/jobs", big, 413, "body_too_large",
		     NULL);
	free(big);
}

/* DNS rebinding: only this daemon's names are answered. */
static void test_host(void **state)
{
	struct fx *f = *state;
	static const char *const ok[] = {
		"127.0.0.1:8420", "localhost:8420", "LOCALHOST:8420",
		"localhost", "127.0.0.1", "[::1]:8420", "[::1]",
		"localhost.:8420", "bench.lab", "bench.lab:8420",
		"proxy.lab:8443",
	};
	static const char *const bad[] = {
		"evil.example:8420", "evil.example", "127.0.0.1:8421",
		"localhost:80", "localhost.evil.example:8420",
		"bench.lab:9999", "proxy.lab", "proxy.lab:8420", "[::1",
		"[::2]:8420", "127.0.0.1:", "127.0.0.1:x", "",
		"127.0.0.1:8420:1", "bench.lab.:8420x",
	};
	struct json_object *o;
	char err[256] = "";

	{
		char *argv[] = { "biobenchd", "--allowed-hosts",
				 "bench.lab, proxy.lab:8443", NULL };

		assert_int_equal(bb_dconfig_args(&f->cfg, 3, argv, err,
						 sizeof(err)), 0);
	}
	assert_int_equal(f->cfg.nhosts, 2);
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		f->host = ok[i];
		if (!bb_http_host_allowed(&f->cfg, ok[i], strlen(ok[i]), false))
			fail_msg("Host %s refused", ok[i]);
		json_object_put(req(f, "GET", "/api/v1/health", NULL, 200));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f->host = bad[i];
		o = req(f, "GET", "/api/v1/jobs", NULL, 421);
		assert_string_equal(jstr(o, "error.code"), "host_not_allowed");
		json_object_put(o);
		/* static files and health too: a rebound page reads
		 * nothing */
		json_object_put(req(f, "GET", "/", NULL, 421));
		json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 421));
	}
	/* the listen address of a non-loopback listener */
	snprintf(f->cfg.listen_addr, sizeof(f->cfg.listen_addr), "10.1.2.3");
	f->host = "10.1.2.3:8420";
	json_object_put(req(f, "GET", "/api/v1/health", NULL, 200));
	f->host = "10.1.2.4:8420";
	json_object_put(req(f, "GET", "/api/v1/health", NULL, 421));
	/* a wildcard listener answers to no address of its own name */
	snprintf(f->cfg.listen_addr, sizeof(f->cfg.listen_addr), "0.0.0.0");
	f->host = "0.0.0.0:8420";
	json_object_put(req(f, "GET", "/api/v1/health", NULL, 421));
	/* no Host at all */
	f->host = NULL;
	f->rq.host = NULL;
	{
		struct bb_http_request rq = { .method = "GET",
					      .path = "/api/v1/health",
					      .loopback = true };

		bb_http_response_free(&f->rs);
		bb_http_handle(&f->ctx, &rq, &f->rs);
		assert_int_equal(f->rs.status, 400);
		assert_non_null(strstr(f->rs.body, "no Host header"));
	}
}

/* CSRF: a state-changing request needs application/json and no foreign
 * origin. */
static void test_csrf(void **state)
{
	struct fx *f = *state;
	struct json_object *o;
	int64_t id;
	char url[64];

	/* a cross-site text/plain or form POST (the browser sends no
	 * preflight for those) */
	f->ctype = "text/plain";
	o = req(f, "POST", "/api/v1/jobs", JOB_OK, 415);
	assert_string_equal(jstr(o, "error.code"), "unsupported_media_type");
	assert_non_null(strstr(jstr(o, "error.message"), "application/json"));
	json_object_put(o);
	f->ctype = "application/x-www-form-urlencoded";
	json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 415));
	f->ctype = "multipart/form-data; boundary=x";
	json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 415));
	f->ctype = "application/jsonx";
	json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 415));
	f->ctype = NULL;
	f->no_ctype = true;
	json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 415));
	f->no_ctype = false;
	f->ctype = "Application/JSON; charset=utf-8";
	id = submit(f, JOB_OK);
	f->ctype = NULL;
	/* cancel, with no body, is state-changing too */
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/cancel", (long long)id);
	f->ctype = "application/x-www-form-urlencoded";
	json_object_put(req(f, "POST", url, NULL, 415));
	f->ctype = NULL;
	/* a foreign Origin or Sec-Fetch-Site: cross-site */
	f->origin = "http://evil.example";
	o = req(f, "POST", url, NULL, 403);
	assert_string_equal(jstr(o, "error.code"), "cross_site");
	json_object_put(o);
	json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 403));
	f->origin = "null";
	json_object_put(req(f, "POST", url, NULL, 403));
	f->origin = "http://127.0.0.1:9999";
	json_object_put(req(f, "POST", url, NULL, 403));
	f->origin = "http://localhost";
	json_object_put(req(f, "POST", url, NULL, 403));
	f->origin = "http://127.0.0.1:8420/x";
	json_object_put(req(f, "POST", url, NULL, 403));
	f->origin = NULL;
	f->fetch_site = "cross-site";
	json_object_put(req(f, "POST", url, NULL, 403));
	/* GETs are not state-changing: a cross-site read is the browser's
	 * business (no CORS header is ever sent) */
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld", (long long)id);
	json_object_put(req(f, "GET", url, NULL, 200));
	f->fetch_site = "same-origin";
	f->origin = "http://127.0.0.1:8420";
	snprintf(url, sizeof(url), "/api/v1/jobs/%lld/cancel", (long long)id);
	o = req(f, "POST", url, NULL, 200);
	assert_string_equal(jstr(o, "state"), "cancelled");
	json_object_put(o);
	/* the daemon's own origin under another name it answers to */
	f->host = "localhost:8420";
	f->origin = "http://localhost:8420";
	submit(f, JOB_OK);
	f->origin = "http://127.0.0.1:8420";
	submit(f, JOB_OK);
	/* behind a TLS proxy: Origin https://NAME, Host NAME */
	snprintf(f->cfg.hosts[0], sizeof(f->cfg.hosts[0]), "bench.lab");
	f->cfg.nhosts = 1;
	f->host = "bench.lab";
	f->origin = "https://bench.lab";
	submit(f, JOB_OK);
	f->origin = "https://evil.lab";
	json_object_put(req(f, "POST", "/api/v1/jobs", JOB_OK, 403));
	/* 405 and 404 come before the CSRF checks: nothing is changed */
	f->origin = NULL;
	f->ctype = "text/plain";
	json_object_put(req(f, "PUT", "/api/v1/jobs", JOB_OK, 405));
	json_object_put(req(f, "POST", "/api/v1/nope", NULL, 404));
}

#ifdef __has_include
#if __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#define BB_HAVE_MEMCHECK 1
#endif
#endif

/* A comparison that branches on the secret, so that the check below is
 * known to catch one. */
static __attribute__((noinline)) bool naive_equal(const char *a,
						  const char *b)
{
	return !strcmp(a, b);
}

/* The token comparison does not branch or index on the token's bytes:
 * run under valgrind's memcheck (ctest test_http_ct), the token is marked
 * undefined and any jump that depends on it is an error.  Without
 * valgrind this checks the answers only. */
static void test_token_constant_time(void **state)
{
	static const char *const hdrs[] = {
		"Bearer 0123456789abcdef0123", "Bearer 0123456789abcdef012x",
		"Bearer x123456789abcdef0123", "Bearer 0123",
		"Bearer 0123456789abcdef0123456789", "Bearer ",
		"bearer  0123456789abcdef0123  ", "Basic 0123456789abcdef0123",
	};
	static const bool want[] = { true, false, false, false, false, false,
				     true, false };
	char token[32] = "0123456789abcdef0123";
	size_t tlen = strlen(token);

	(void)state;
#ifdef BB_HAVE_MEMCHECK
	if (RUNNING_ON_VALGRIND) {
		unsigned long before = VALGRIND_COUNT_ERRORS;
		volatile bool r;

		/* the harness catches a comparison that leaks */
		VALGRIND_MAKE_MEM_UNDEFINED(token, tlen);
		r = naive_equal(token, hdrs[0] + 7);
		VALGRIND_MAKE_MEM_DEFINED(token, sizeof(token));
		(void)r;
		assert_true(VALGRIND_COUNT_ERRORS > before);
		before = VALGRIND_COUNT_ERRORS;
		for (size_t i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++) {
			bool ok;

			VALGRIND_MAKE_MEM_UNDEFINED(token, tlen);
			ok = bb_http_token_ok(token, tlen, hdrs[i]);
			VALGRIND_MAKE_MEM_DEFINED(&ok, sizeof(ok));
			VALGRIND_MAKE_MEM_DEFINED(token, sizeof(token));
			assert_int_equal(ok, want[i]);
		}
		if (VALGRIND_COUNT_ERRORS != before)
			fail_msg("bb_http_token_ok branches on the token's "
				 "bytes (%lu memcheck errors)",
				 VALGRIND_COUNT_ERRORS - before);
		return;
	}
#endif
	for (size_t i = 0; i < sizeof(hdrs) / sizeof(hdrs[0]); i++)
		assert_int_equal(bb_http_token_ok(token, tlen, hdrs[i]),
				 want[i]);
	assert_false(bb_http_token_ok(token, tlen, NULL));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest ct[] = {
		cmocka_unit_test(test_token_constant_time),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_health, setup, teardown),
		cmocka_unit_test_setup_teardown(test_submit_and_get, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_jobs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_target_not_allowed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_boot_jobs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found_and_methods,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_static, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel_forwarded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_compare, setup, teardown),
		cmocka_unit_test_setup_teardown(test_history, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_jobs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_devices_host_body_limit,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_host, setup, teardown),
		cmocka_unit_test_setup_teardown(test_csrf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nul, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_lost, setup,
						teardown),
		cmocka_unit_test(test_token_constant_time),
	};

	/* "ct": the constant-time check alone, under valgrind (77 when it
	 * cannot be) */
	if (argc > 1 && !strcmp(argv[1], "ct")) {
#ifdef BB_HAVE_MEMCHECK
		if (RUNNING_ON_VALGRIND)
			return cmocka_run_group_tests(ct, NULL, NULL);
#endif
		fprintf(stderr, "test_http ct: not under valgrind's memcheck "
			"(or no valgrind/memcheck.h): skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
