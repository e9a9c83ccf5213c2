// SPDX-License-Identifier: GPL-2.0-only
/* main.c - biobenchd: configuration, the database lock, the store, the
 * scheduler, the HTTP server, service readiness (sd_notify, --pidfile),
 * and signals (SIGHUP reloads the configuration, SIGTERM/SIGINT stop
 * cleanly: the running job is interrupted, its knobs restored). */
#include "dconfig.h"
#include <biobench/hostinfo.h>
#include "http.h"
#include "log.h"
#include "reboot.h"
#include "scheduler.h"
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#define STATUS_EVERY_S 2 /* STATUS= updates to systemd while a job runs */

/* Load the configuration the command line names, with its overrides.
 * Returns 0, 1 (--help done) or -EINVAL (message printed). */
static int load_config(struct bb_dconfig *c, int argc, char **argv)
{
	char err[1024];
	int ret;

	bb_dconfig_default(c);
	ret = bb_dconfig_args(c, argc, argv, err, sizeof(err));
	if (ret == 1)
		return 1;
	if (!ret)
		ret = bb_dconfig_check(c, err, sizeof(err));
	if (ret) {
		bb_log(LOG_ERR, "%s", err);
		return -EINVAL;
	}
	return 0;
}

static void log_config(const struct bb_dconfig *c)
{
	char allow[1024] = "", name[PATH_MAX];
	size_t off = 0;

	for (unsigned i = 0; i < c->nallow && off < sizeof(allow); i++)
		off += (size_t)snprintf(allow + off, sizeof(allow) - off,
					"%s%s%s", i ? ", " : "",
					c->allow[i].pattern,
					c->allow[i].write ? " (rw)" : "");
	bb_log(LOG_INFO,
	       "listening on %s:%u%s; store %s; web %s; allow: %s",
	       c->listen_addr, c->port, c->token[0] ? " (token required)" : "",
	       bb_store_name(c->db_path, name, sizeof(name)), c->web_root,
	       allow[0] ? allow : "(nothing)");
}

/* Every connection is a file descriptor, and one being sent a static file
 * holds that file open too: make room for 2 x max_connections (plus the
 * database, the log, devices) when the soft limit is lower (a service's
 * default is often 1024) and the hard limit allows it.  Past the limit,
 * accept() fails and new clients wait in the backlog. */
static void raise_nofile(unsigned max_connections)
{
	rlim_t want = 2 * (rlim_t)max_connections + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < want
			      ? rl.rlim_max
			      : want;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		getrlimit(RLIMIT_NOFILE, &rl);
	if (rl.rlim_cur < want)
		bb_log(LOG_WARNING,
		       "open file limit %llu is below 2 x max_connections + "
		       "64 (%llu): raise LimitNOFILE or lower max_connections",
		       (unsigned long long)rl.rlim_cur,
		       (unsigned long long)want);
}

/* Without --foreground: fork, let the child go on in a new session, and
 * exit in the parent once the child reports that it listens (or failed).
 * Returns the fd the child writes its status byte to, or -1. */
static int background(void)
{
	int p[2];
	pid_t pid;
	char c = 1;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			c = 1;
		_exit(c ? 1 : 0);
	}
	close(p[0]);
	setsid();
	int fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 2)
			close(fd);
	}
	return p[1];
}

/* One daemon per database: an exclusive flock on DB.lock (next to the
 * database, in the state directory), held until exit, taken before the
 * store is opened and recovered: a second daemon would otherwise mark
 * the first one's running job interrupted and restore its knobs mid-run.
 * The holder's pid is written into the file for the message.  Returns
 * the fd (kept open) or -1 with the message logged. */
static int lock_db(const char *db_path)
{
	char path[PATH_MAX + 8], pid[32] = "";
	ssize_t n;
	int fd, e;

	/* a PostgreSQL store has no file to lock: its guard (pg_guard) */
	if (!strcmp(db_path, ":memory:") || bb_store_is_pg(db_path))
		return -2;
	if ((size_t)snprintf(path, sizeof(path), "%s.lock", db_path) >=
	    sizeof(path)) {
		bb_log(LOG_ERR, "database path too long: %s", db_path);
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		bb_log(LOG_ERR, "cannot open the database lock %s: %s", path,
		       strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		e = errno;
		n = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[n > 0 ? n : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		if (e == EWOULDBLOCK)
			bb_log(LOG_ERR, "another biobenchd (pid %s) uses the "
			       "database %s (it holds %s): stop it first, or "
			       "give this one another --db",
			       pid[0] ? pid : "unknown", db_path, path);
		else
			bb_log(LOG_ERR, "cannot lock %s: %s", path,
			       strerror(e));
		close(fd);
		return -1;
	}
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) || pwrite(fd, pid, (size_t)n, 0) != n)
		bb_log(LOG_WARNING, "cannot write the pid into %s: %s", path,
		       strerror(errno));
	return fd;
}

/* --pidfile: written (atomically) once the daemon listens, removed at
 * exit if it still names us.  0 or -errno (logged). */
static int pidfile_write(const char *path)
{
	char tmp[PATH_MAX + 16], pid[32];
	int fd, n, ret = 0;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", path,
			     (long)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0 || write(fd, pid, (size_t)n) != n || fsync(fd) ||
	    rename(tmp, path))
		ret = -errno;
	if (fd >= 0)
		close(fd);
	if (ret) {
		unlink(tmp);
		bb_log(LOG_ERR, "cannot write the pid file %s: %s", path,
		       strerror(-ret));
	}
	return ret;
}

static void pidfile_remove(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	if (fgets(buf, sizeof(buf), f) && atol(buf) == (long)getpid())
		unlink(path);
	fclose(f);
}

/* systemd's STATUS=: the running job and its progress, or idle. */
static void notify_status(struct bb_sched *sched, char *last, size_t len)
{
	struct json_object *p, *v;
	char status[256];
	int64_t id = bb_sched_running(sched);

	if (!id) {
		snprintf(status, sizeof(status), "idle: waiting for jobs");
	} else if ((p = bb_sched_progress(sched, id))) {
		int run = 0, planned = 0;
		double elapsed = 0, eta = -1;
		const char *variant = NULL;

		if (json_object_object_get_ex(p, "run", &v))
			run = json_object_get_int(v);
		if (json_object_object_get_ex(p, "runs_planned", &v))
			planned = json_object_get_int(v);
		if (json_object_object_get_ex(p, "elapsed_s", &v))
			elapsed = json_object_get_double(v);
		if (json_object_object_get_ex(p, "eta_s", &v) && v)
			eta = json_object_get_double(v);
		if (json_object_object_get_ex(p, "variant", &v) && v)
			variant = json_object_get_string(v);
		snprintf(status, sizeof(status),
			 "running job %lld: run %d of %d%s%s%s, %.0f s elapsed",
			 (long long)id, run, planned,
			 variant ? " (variant " : "", variant ? variant : "",
			 variant ? ")" : "", elapsed);
		if (eta >= 0) {
			size_t n = strlen(status);

			snprintf(status + n, sizeof(status) - n,
				 ", about %.0f s left", eta);
		}
		json_object_put(p);
	} else {
		snprintf(status, sizeof(status), "running job %lld",
			 (long long)id);
	}
	if (id) {
		/* max_parallel_jobs: the others after the oldest's progress */
		int64_t ids[BB_DCONFIG_MAX_PARALLEL];
		size_t n = bb_sched_running_all(sched, ids,
						BB_DCONFIG_MAX_PARALLEL);

		for (size_t i = 1, off = strlen(status);
		     i < n && off < sizeof(status); i++)
			off += (size_t)snprintf(status + off,
						sizeof(status) - off,
						"%s%lld", i == 1 ?
						"; also job " : ", ",
						(long long)ids[i]);
	}
	if (!strcmp(status, last))
		return;
	snprintf(last, len, "%s", status);
	sd_notifyf(0, "STATUS=%s", status);
}

/* The devices and allow-list summary a daemon registers with:
 * {"devices": bb_devices_info(), "allow": [{"pattern","write"}]}. */
static struct json_object *devices_summary(const struct bb_dconfig *c)
{
	struct json_object *o = json_object_new_object();
	struct json_object *allow = json_object_new_array();
	struct json_object *devs = bb_devices_info();

	json_object_object_add(o, "devices", devs ? devs :
				       json_object_new_array());
	for (unsigned i = 0; i < c->nallow; i++) {
		struct json_object *a = json_object_new_object();

		json_object_object_add(a, "pattern", json_object_new_string(
					       c->allow[i].pattern));
		json_object_object_add(a, "write",
				       json_object_new_boolean(c->allow[i].write));
		json_object_array_add(allow, a);
	}
	json_object_object_add(o, "allow", allow);
	return o;
}

/* The scheduler as the daemon host_name of the store (its registry row,
 * its claims and leases). */
static int start_scheduler(struct bb_sched **sched,
			   const struct bb_dconfig *c, char *err, size_t len)
{
	struct json_object *host = bb_host_info(), *devs = devices_summary(c);
	struct bb_sched_fleet f = {
		.host_name = c->host_name,
		.lease_s = c->lease_s,
		.host = json_object_to_json_string_ext(host,
						       JSON_C_TO_STRING_PLAIN),
		.devices = json_object_to_json_string_ext(
			devs, JSON_C_TO_STRING_PLAIN),
		.version = BB_VERSION,
	};
	int ret = bb_sched_start_fleet(sched, c->db_path, &f, err, len);

	json_object_put(host);
	json_object_put(devs);
	if (!ret)
		bb_log(LOG_INFO, "host name %s, lease %u s", c->host_name,
		       c->lease_s);
	return ret;
}

static void report_ready(int fd, bool ok)
{
	char c = ok ? 0 : 1;

	if (fd < 0)
		return;
	if (write(fd, &c, 1) != 1)
		bb_log(LOG_WARNING, "cannot report readiness to the parent");
	close(fd);
}

int main(int argc, char **argv)
{
	struct bb_dconfig *cfg = calloc(1, sizeof(*cfg));
	struct bb_http_ctx ctx = { 0 };
	struct bb_store *store = NULL;
	struct bb_sched *sched = NULL;
	struct bb_http *http = NULL;
	sigset_t sigs;
	char err[1024], status[256] = "", pidfile[PATH_MAX] = "";
	char kexec[PATH_MAX] = "", name[PATH_MAX];
	bool notify = getenv("NOTIFY_SOCKET") != NULL;
	int ret, rc = 1, ready_fd = -1, lock_fd = -1;
	void *pg_guard = NULL;

	if (!cfg)
		return 1;
	ret = load_config(cfg, argc, argv);
	if (ret == 1) {
		free(cfg);
		return 0;
	}
	if (ret) {
		free(cfg);
		return 2;
	}
	if (!cfg->foreground)
		ready_fd = background();
	/* before the store is opened (and recovered) */
	lock_fd = lock_db(cfg->db_path);
	if (lock_fd == -1)
		goto out;
	if (bb_store_is_pg(cfg->db_path)) {
		ret = bb_store_pg_guard(cfg->db_path, cfg->host_name,
					&pg_guard, err, sizeof(err));
		if (ret) {
			bb_log(LOG_ERR, "%s", err);
			goto out;
		}
	}
	raise_nofile(cfg->max_connections);

	/* every thread created from here on inherits the blocked set: the
	 * signals are taken by sigwaitinfo below */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);

	ret = bb_store_open(&store, cfg->db_path, err, sizeof(err));
	if (ret) {
		bb_log(LOG_ERR, "%s", err);
		goto out;
	}
	bb_log(LOG_INFO, "biobenchd %s: database %s at schema version %d",
	       BB_VERSION, bb_store_name(cfg->db_path, name, sizeof(name)),
	       bb_store_schema_version(store));
	ctx.cfg = cfg;
	pthread_rwlock_init(&ctx.cfg_lock, NULL);
	bb_http_ctx_init(&ctx);
	ret = start_scheduler(&sched, cfg, err, sizeof(err));
	if (ret) {
		bb_log(LOG_ERR, "%s", err);
		goto out;
	}
	/* the scheduler checks every job's target against the current
	 * allow-list before running it (SIGHUP replaces ctx.cfg) */
	bb_sched_set_config(sched, &ctx.cfg_lock, &ctx.cfg);
	ctx.store = store;
	ctx.sched = sched;
	ctx.start_ns = bb_now_ns();
	ctx.version = BB_VERSION;
	ctx.host = bb_host_info();
	ret = bb_http_start(&http, &ctx, err, sizeof(err));
	if (ret) {
		bb_log(LOG_ERR, "%s", err);
		goto out;
	}
	log_config(cfg);
	if (cfg->pidfile[0]) {
		if (pidfile_write(cfg->pidfile))
			goto out;
		snprintf(pidfile, sizeof(pidfile), "%s", cfg->pidfile);
	}
	/* the store is open, the socket listens */
	sd_notify(0, "READY=1\nSTATUS=idle: waiting for jobs");
	report_ready(ready_fd, true);
	ready_fd = -1;

	for (;;) {
		struct timespec every = { .tv_sec = STATUS_EVERY_S };
		siginfo_t si;
		int sig = notify ? sigtimedwait(&sigs, &si, &every)
				 : sigwaitinfo(&sigs, &si);

		if (sig < 0) {
			if (notify && errno == EAGAIN)
				notify_status(sched, status, sizeof(status));
			continue;
		}
		if (sig == SIGHUP) {
			sd_notify(0, "RELOADING=1");
			struct bb_dconfig *n = calloc(1, sizeof(*n)), *old;

			if (!n || load_config(n, argc, argv)) {
				bb_log(LOG_ERR, "SIGHUP: configuration not "
						"reloaded; keeping the old one");
				free(n);
				sd_notify(0, "READY=1");
				continue;
			}
			if (strcmp(n->listen_addr, cfg->listen_addr) ||
			    n->port != cfg->port ||
			    strcmp(n->db_path, cfg->db_path))
				bb_log(LOG_WARNING,
				       "SIGHUP: listen, db and store changes take "
				       "effect at the next start");
			/* what the listener is bound to stays as it is */
			snprintf(n->listen_addr, sizeof(n->listen_addr), "%s",
				 cfg->listen_addr);
			n->port = cfg->port;
			n->loopback = cfg->loopback;
			snprintf(n->db_path, sizeof(n->db_path), "%s",
				 cfg->db_path);
			pthread_rwlock_wrlock(&ctx.cfg_lock);
			old = ctx.cfg;
			ctx.cfg = n;
			cfg = n;
			pthread_rwlock_unlock(&ctx.cfg_lock);
			free(old);
			bb_log(LOG_INFO, "SIGHUP: configuration reloaded");
			log_config(cfg);
			sd_notify(0, "READY=1");
			continue;
		}
		if (bb_sched_running(sched))
			sd_notifyf(0, "STOPPING=1\nSTATUS=stopping: "
				   "interrupting job %lld, restoring its "
				   "knobs",
				   (long long)bb_sched_running(sched));
		else
			sd_notify(0, "STOPPING=1\nSTATUS=stopping");
		bb_log(LOG_INFO, "%s: stopping", strsignal(sig));
		break;
	}
	rc = 0;
out:
	report_ready(ready_fd, false);
	/* the listener first (no request may reach a stopped scheduler),
	 * then the scheduler: the running job is interrupted within a
	 * second and its knobs restored */
	if (http)
		bb_http_stop(http);
	/* a boot job armed kexec-exec: after the clean stop, kexec -e */
	if (!bb_sched_kexec_pending(sched, kexec, sizeof(kexec)))
		kexec[0] = '\0';
	bb_sched_stop(sched);
	if (ctx.host)
		json_object_put(ctx.host);
	if (ctx.cfg) {
		pthread_rwlock_destroy(&ctx.cfg_lock);
		bb_http_ctx_destroy(&ctx);
	}
	if (store)
		bb_store_close(store);
	if (pidfile[0])
		pidfile_remove(pidfile);
	free(cfg);
	if (!rc)
		bb_log(LOG_INFO, "stopped");
	/* the lock goes last: nothing of this daemon touches the database
	 * after it */
	if (lock_fd >= 0)
		close(lock_fd);
	bb_store_pg_guard_release(pg_guard);
	if (kexec[0]) {
		bb_log(LOG_WARNING, "rebooting: %s -e", kexec);
		ret = bb_reboot_exec(kexec);
		bb_log(LOG_ERR, "cannot exec %s -e: %s", kexec, strerror(-ret));
		return 1;
	}
	return rc;
}
