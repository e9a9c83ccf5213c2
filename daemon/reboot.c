// SPDX-License-Identifier: GPL-2.0-only
/* reboot.c - the reboot commands of a boot job (see reboot.h). */
#include "reboot.h"

#include <biobench/jobspec.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void bb_reboot_cmds_of(struct bb_reboot_cmds *r, const struct bb_dconfig *c)
{
	memset(r, 0, sizeof(*r));
	r->method = c->reboot_method;
	r->nboot_dirs = c->nboot_dirs;
	memcpy(r->boot_dirs, c->boot_dirs, sizeof(r->boot_dirs));
	snprintf(r->kexec, sizeof(r->kexec), "%s", c->kexec_path);
	snprintf(r->systemctl, sizeof(r->systemctl), "%s", c->systemctl_path);
	snprintf(r->grub_reboot, sizeof(r->grub_reboot), "%s",
		 c->grub_reboot_path);
	snprintf(r->grub_editenv, sizeof(r->grub_editenv), "%s",
		 c->grub_editenv_path);
}

/* Run argv[0] with argv, stdin /dev/null, stdout and stderr captured (the
 * last bytes kept), the nkeep descriptors of keep inherited (the others
 * are close-on-exec).  0 when it exited 0, else -EIO (-errno when it
 * could not start) with "PROG ARGS: exit N: OUTPUT" in err. */
static int run(char *const argv[], const int *keep, unsigned nkeep, char *err,
	       size_t errlen)
{
	char out[512] = "", cmd[768] = "";
	size_t n = 0, off = 0;
	int pfd[2], status, ret = 0;
	pid_t pid;

	for (unsigned i = 0; argv[i] && off < sizeof(cmd); i++)
		off += (size_t)snprintf(cmd + off, sizeof(cmd) - off, "%s%s",
					i ? " " : "", argv[i]);
	if (pipe2(pfd, O_CLOEXEC)) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", cmd, strerror(-ret));
		return ret;
	}
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pfd[0]);
		close(pfd[1]);
		snprintf(err, errlen, "%s: %s", cmd, strerror(-ret));
		return ret;
	}
	if (!pid) {
		sigset_t none;
		int null = open("/dev/null", O_RDONLY);

		/* the daemon's threads block SIGTERM & co.; exec keeps the
		 * mask: the command must see its signals */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (unsigned i = 0; i < nkeep; i++)
			fcntl(keep[i], F_SETFD, 0);
		if (null >= 0)
			dup2(null, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		execv(argv[0], argv);
		/* only async-signal-safe calls between fork and exec */
		if (write(2, "cannot run it (execv failed)", 28) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		char buf[256];
		ssize_t got = read(pfd[0], buf, sizeof(buf));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			if (n == sizeof(out) - 1) {
				memmove(out, out + 1, n - 1);
				n--;
			}
			out[n++] = buf[i] == '\n' ? ' ' : buf[i];
		}
	}
	out[n] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			break;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		snprintf(err, errlen, "%s: exit %d%s%s", cmd,
			 WEXITSTATUS(status), n ? ": " : "", out);
	else
		snprintf(err, errlen, "%s: killed by signal %d%s%s", cmd,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0,
			 n ? ": " : "", out);
	return -EIO;
}

int bb_reboot_arm(const struct bb_reboot_cmds *r, const struct bb_job_boot *b,
		  const char *cmdline, char *err, size_t errlen)
{
	char kpath[32], initrd[48], *append = NULL, why[PATH_MAX + 128];
	char *argv[8];
	int fds[2] = { -1, -1 }, ret;
	unsigned n = 0, nfds = 0;

	/* the files are checked (and pinned) for grub-reboot too: a job
	 * names only kernels from boot_dirs, whatever the method */
	fds[nfds] = bb_boot_file_open(r->boot_dirs, r->nboot_dirs, b->kernel,
				      why, sizeof(why));
	if (fds[nfds] < 0) {
		snprintf(err, errlen, "kernel %s: %s", b->kernel, why);
		return fds[nfds];
	}
	nfds++;
	if (b->initrd[0]) {
		fds[nfds] = bb_boot_file_open(r->boot_dirs, r->nboot_dirs,
					      b->initrd, why, sizeof(why));
		if (fds[nfds] < 0) {
			ret = fds[nfds];
			snprintf(err, errlen, "initrd %s: %s", b->initrd, why);
			goto out;
		}
		nfds++;
	}
	if (r->method == BB_REBOOT_GRUB_REBOOT) {
		if (!b->grub_entry[0]) {
			snprintf(err, errlen, "reboot_method grub-reboot needs "
				 "the variant's boot.grub_entry");
			ret = -EINVAL;
			goto out;
		}
		argv[n++] = (char *)r->grub_reboot;
		argv[n++] = (char *)b->grub_entry;
		argv[n] = NULL;
		ret = run(argv, NULL, 0, err, errlen);
		goto out;
	}
	argv[n++] = (char *)r->kexec;
	argv[n++] = (char *)"-l";
	snprintf(kpath, sizeof(kpath), "/proc/self/fd/%d", fds[0]);
	argv[n++] = kpath;
	if (nfds > 1) {
		snprintf(initrd, sizeof(initrd), "--initrd=/proc/self/fd/%d",
			 fds[1]);
		argv[n++] = initrd;
	}
	if (cmdline) {
		size_t l = strlen(cmdline) + sizeof("--append=");

		append = malloc(l);
		if (!append) {
			ret = -ENOMEM;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		snprintf(append, l, "--append=%s", cmdline);
		argv[n++] = append;
	} else {
		argv[n++] = (char *)"--reuse-cmdline";
	}
	argv[n] = NULL;
	ret = run(argv, fds, nfds, err, errlen);
out:
	free(append);
	for (unsigned i = 0; i < nfds; i++)
		close(fds[i]);
	return ret;
}

int bb_reboot_unarm(const struct bb_reboot_cmds *r, char *err, size_t errlen)
{
	char *argv[] = { (char *)r->kexec, (char *)"-u", NULL };
	/* "-": grub-editenv's default file, /boot/grub/grubenv, which
	 * grub-reboot wrote */
	char *grub[] = { (char *)r->grub_editenv, (char *)"-",
			 (char *)"unset", (char *)"next_entry", NULL };

	return run(r->method == BB_REBOOT_GRUB_REBOOT ? grub : argv, NULL, 0,
		   err, errlen);
}

int bb_reboot_go(const struct bb_reboot_cmds *r, char *err, size_t errlen)
{
	char *argv[] = { (char *)r->systemctl,
			 (char *)(r->method == BB_REBOOT_GRUB_REBOOT ? "reboot" :
								      "kexec"),
			 NULL };

	if (r->method == BB_REBOOT_KEXEC_EXEC)
		return 0;
	return run(argv, NULL, 0, err, errlen);
}

int bb_reboot_exec(const char *kexec)
{
	sync();
	execl(kexec, "kexec", "-e", (char *)NULL);
	return -errno;
}

/* ---- what a boot job may name ------------------------------------------ */

/* fstat of fd (the component at path): a symlink, another type than
 * wanted, an owner other than root or write access for group or others
 * refuse it.  0 or -EACCES with why. */
static int boot_node_check(int fd, const char *path, bool dir, char *why,
			   size_t len)
{
	struct stat st;

	if (fstat(fd, &st)) {
		int ret = -errno;

		snprintf(why, len, "%s: %s", path, strerror(-ret));
		return ret;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(why, len, "%s is a symlink (never followed: name the "
			 "file itself)", path);
		return -EACCES;
	}
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s is not a %s", path,
			 dir ? "directory" : "regular file");
		return -EACCES;
	}
	if (st.st_uid != 0) {
		snprintf(why, len, "%s is owned by uid %u, not root: whoever "
			 "owns it chooses what this host boots", path,
			 (unsigned)st.st_uid);
		return -EACCES;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "%s is writable by %s (mode %04o): whoever "
			 "can write it chooses what this host boots", path,
			 st.st_mode & S_IWOTH ? "others" : "its group",
			 (unsigned)(st.st_mode & 07777));
		return -EACCES;
	}
	return 0;
}

int bb_boot_file_open(const char (*dirs)[PATH_MAX], unsigned n,
		      const char *path, char *why, size_t len)
{
	char cur[PATH_MAX] = "/", comp[NAME_MAX + 1], list[512] = "";
	const char *p = path;
	size_t off = 0, dl;
	unsigned i;
	int fd, next, ret;

	if (!n) {
		snprintf(why, len, "boot jobs need boot_dirs in [reboot] of "
			 "biobenchd's configuration (the directories kernels "
			 "and initrds may come from), and none is set");
		return -EACCES;
	}
	if (path[0] != '/') {
		snprintf(why, len, "not an absolute path");
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		dl = strlen(dirs[i]);
		if (!strncmp(path, dirs[i], dl) && path[dl] == '/')
			break;
		off += (size_t)snprintf(list + off, off < sizeof(list) ?
					sizeof(list) - off : 0, "%s%s",
					i ? " " : "", dirs[i]);
		if (off >= sizeof(list))
			off = sizeof(list) - 1;
	}
	if (i == n) {
		snprintf(why, len, "not under boot_dirs (%s)", list);
		return -EACCES;
	}
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, len, "/: %s", strerror(-ret));
		return ret;
	}
	ret = boot_node_check(fd, "/", true, why, len);
	off = 0;
	while (!ret && *p) {
		size_t cl;

		p++; /* the '/' */
		cl = strcspn(p, "/");
		if (!cl || cl > NAME_MAX || (cl == 1 && p[0] == '.') ||
		    (cl == 2 && p[0] == '.' && p[1] == '.')) {
			snprintf(why, len, "an empty, '.', '..' or over-long "
				 "component: give the canonical path");
			ret = -EINVAL;
			break;
		}
		memcpy(comp, p, cl);
		comp[cl] = '\0';
		off += (size_t)snprintf(cur + off, sizeof(cur) - off, "/%s",
					comp);
		if (off >= sizeof(cur))
			off = sizeof(cur) - 1;
		p += cl;
		next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			ret = -errno;
			snprintf(why, len, "%s: %s", cur, strerror(-ret));
			break;
		}
		close(fd);
		fd = next;
		ret = boot_node_check(fd, cur, *p == '/', why, len);
	}
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/* The kernel parameters a job may append: performance and I/O knobs and
 * console output, none of which chooses what runs as root.  A name ending
 * in '=' takes a value, else it is a flag. */
static const char *const cmdline_allowed[] = {
	"console=", "loglevel=", "quiet", "ignore_loglevel", "printk.time=",
	"panic=", "mitigations=", "nosmt", "isolcpus=", "nohz_full=", "nohz=",
	"rcu_nocbs=", "rcu_nocb_poll", "irqaffinity=", "threadirqs",
	"skew_tick=", "idle=", "intel_idle.max_cstate=",
	"processor.max_cstate=", "intel_pstate=", "amd_pstate=",
	"cpufreq.default_governor=", "nmi_watchdog=", "nowatchdog",
	"nosoftlockup", "iommu=", "intel_iommu=", "amd_iommu=",
	"transparent_hugepage=", "hugepages=", "hugepagesz=",
	"default_hugepagesz=", "numa_balancing=", "pcie_aspm=",
	"nvme.poll_queues=", "nvme.write_queues=", "nvme_core.io_timeout=",
	"nvme_core.multipath=", "nvme_core.default_ps_max_latency_us=",
	"maxcpus=", "nr_cpus=", NULL,
};

/* Refused with the reason that matters: these choose what runs as root,
 * or how much the kernel checks it.  (Everything not allowed is refused
 * anyway; prefixes end in '.'.) */
static const struct {
	const char *name, *why;
} cmdline_refused[] = {
	{ "init", "init= chooses the first program, run as root" },
	{ "rdinit", "rdinit= chooses the initramfs program run as root" },
	{ "root", "root= chooses the root filesystem, and so every program "
		  "run as root" },
	{ "rootfstype", "it chooses how the root filesystem is read" },
	{ "rootflags", "it chooses how the root filesystem is mounted" },
	{ "nfsroot", "it chooses the root filesystem" },
	{ "module.sig_enforce", "it decides whether unsigned modules load" },
	{ "module_blacklist", "it decides which modules load" },
	{ "modprobe.blacklist", "it decides which modules load" },
	{ "lockdown", "it decides what root may do to the running kernel" },
	{ "selinux", "it turns a security module off or on" },
	{ "enforcing", "it turns SELinux enforcement off or on" },
	{ "apparmor", "it turns a security module off or on" },
	{ "security", "it chooses the security modules" },
	{ "lsm", "it chooses the security modules" },
	{ "systemd.", "systemd.* options choose what systemd starts" },
	{ "rd.", "rd.* options choose what the initramfs does" },
	{ "sysctl.", "sysctl.* sets any sysctl (kernel.modprobe: a program "
		     "run as root)" },
	{ "single", "a word passed to init: single-user mode, a root shell" },
	{ "emergency", "a word passed to init: the emergency shell" },
	{ "rescue", "a word passed to init: the rescue shell" },
	{ "S", "a word passed to init: single-user mode" },
	{ "s", "a word passed to init: single-user mode" },
	{ "--", "everything after it is passed to init" },
};

/* The value may hold letters, digits and . , : _ + - @ only. */
static bool cmdline_value_ok(const char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)v[i];

		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && !strchr(".,:_+-@", c))
			return false;
	}
	return n > 0;
}

/* A marker: bb[a-z0-9_]*=VALUE (init gets it in its environment, nothing
 * reads it but whoever looks for it: the boot's label). */
static bool cmdline_marker(const char *name, size_t n)
{
	if (n < 2 || name[0] != 'b' || name[1] != 'b')
		return false;
	for (size_t i = 2; i < n; i++)
		if (!(name[i] >= 'a' && name[i] <= 'z') &&
		    !(name[i] >= '0' && name[i] <= '9') && name[i] != '_')
			return false;
	return true;
}

int bb_boot_cmdline_check(const char *cmdline, char *param, size_t plen,
			  char *why, size_t len)
{
	for (const char *p = cmdline; *p;) {
		size_t n, nl;
		const char *eq;
		bool ok = false;

		p += strspn(p, " \t");
		n = strcspn(p, " \t");
		if (!n)
			break;
		snprintf(param, plen, "%.*s", (int)n, p);
		eq = memchr(p, '=', n);
		nl = eq ? (size_t)(eq - p) : n;
		if (memchr(p, '"', n)) {
			snprintf(why, len, "a quote: the kernel would read "
				 "what follows as one value");
			return -EINVAL;
		}
		for (size_t i = 0; i < sizeof(cmdline_refused) /
					   sizeof(cmdline_refused[0]); i++) {
			const char *r = cmdline_refused[i].name;
			size_t rl = strlen(r);

			if (r[rl - 1] == '.' ? !strncmp(p, r, rl) :
					       (nl == rl && !strncmp(p, r, rl))) {
				snprintf(why, len, "refused: it changes what "
					 "runs as root: %s",
					 cmdline_refused[i].why);
				return -EINVAL;
			}
		}
		for (unsigned i = 0; cmdline_allowed[i]; i++) {
			const char *a = cmdline_allowed[i];
			size_t al = strlen(a), an = a[al - 1] == '=' ? al - 1 :
							    al;

			if (an == nl && !strncmp(p, a, an) &&
			    (a[al - 1] == '=') == (eq != NULL))
				ok = true;
		}
		if (!ok && eq && cmdline_marker(p, nl))
			ok = true;
		if (!ok) {
			snprintf(why, len, "not an allowed parameter: a job may "
				 "append only console=, loglevel=, quiet, "
				 "panic=, mitigations=, nosmt, isolcpus=, "
				 "nohz_full=, rcu_nocbs=, irqaffinity=, "
				 "iommu=, intel_iommu=, amd_iommu=, "
				 "transparent_hugepage=, hugepages=, "
				 "nvme.poll_queues=, nvme_core.io_timeout=, "
				 "the C-state, P-state and watchdog knobs, "
				 "... (biobenchd.conf(5)) and markers "
				 "bbNAME=VALUE");
			return -EINVAL;
		}
		if (eq && !cmdline_value_ok(eq + 1, n - nl - 1)) {
			snprintf(why, len, "the value may hold letters, digits "
				 "and . , : _ + - @ only");
			return -EINVAL;
		}
		p += n;
	}
	param[0] = '\0';
	return 0;
}

int bb_boot_job_check(const char (*dirs)[PATH_MAX], unsigned n,
		      const struct bb_job *job, char *field, size_t flen,
		      char *why, size_t len)
{
	char param[BB_BOOT_CMDLINE_MAX], w[PATH_MAX + 256];

	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_job_boot *b = &job->v[i].boot;
		const char *what[2] = { b->kernel, b->initrd };
		static const char *const key[2] = { "kernel", "initrd" };
		int ret;

		for (unsigned k = 0; k < 2; k++) {
			if (!what[k][0])
				continue;
			ret = bb_boot_file_open(dirs, n, what[k], w,
						sizeof(w));
			if (ret >= 0) {
				close(ret);
				continue;
			}
			snprintf(field, flen, "variants.%s.boot.%s",
				 job->v[i].name, key[k]);
			snprintf(why, len, "%s %s: %s", key[k], what[k], w);
			return ret == -EINVAL ? -EINVAL : -EACCES;
		}
		if (bb_boot_cmdline_check(b->cmdline, param, sizeof(param), w,
					  sizeof(w))) {
			snprintf(field, flen, "variants.%s.boot.cmdline",
				 job->v[i].name);
			snprintf(why, len, "parameter '%s': %s", param, w);
			return -EINVAL;
		}
	}
	return 0;
}

/* The next parameter of s at *p (blanks skipped; a double-quoted part
 * keeps its blanks), its length, and the length of its name (up to '='). */
static size_t cmdline_next(const char *s, size_t *p, size_t *name)
{
	size_t i, start;
	bool q = false;

	*p += strspn(s + *p, " \t\n");
	start = *p;
	for (i = start; s[i] && (q || !strchr(" \t\n", s[i])); i++)
		if (s[i] == '"')
			q = !q;
	*name = strcspn(s + start, "= \t\n");
	if (*name > i - start)
		*name = i - start;
	*p = i;
	return i - start;
}

/* Whether any variant of job sets the parameter named name (n bytes). */
static bool job_sets(const struct bb_job *job, const char *name, size_t n)
{
	for (unsigned i = 0; i < job->nvariants; i++) {
		const char *c = job->v[i].boot.cmdline;
		size_t p = 0, l, nl;

		while ((l = cmdline_next(c, &p, &nl)))
			if (nl == n && !strncmp(c + p - l, name, n))
				return true;
	}
	return false;
}

int bb_boot_cmdline_compose(const struct bb_job *job, unsigned vi,
			    const char *running, char *out, size_t len)
{
	size_t p = 0, l, nl, off = 0;
	const char *own = job->v[vi].boot.cmdline, *init = NULL;

	out[0] = '\0';
	while ((l = cmdline_next(running, &p, &nl))) {
		const char *w = running + p - l;

		if (l == 2 && !strncmp(w, "--", 2)) {
			/* the rest is init's arguments: the job's go before */
			init = w;
			break;
		}
		if ((nl == 10 && !strncmp(w, "BOOT_IMAGE", 10)) ||
		    job_sets(job, w, nl))
			continue;
		if (off + l + 2 > len)
			return -E2BIG;
		off += (size_t)snprintf(out + off, len - off, "%s%.*s",
					off ? " " : "", (int)l, w);
	}
	p = 0;
	while ((l = cmdline_next(own, &p, &nl))) {
		if (off + l + 2 > len)
			return -E2BIG;
		off += (size_t)snprintf(out + off, len - off, "%s%.*s",
					off ? " " : "", (int)l, own + p - l);
	}
	if (init) {
		l = strcspn(init, "\n");
		if (off + l + 2 > len)
			return -E2BIG;
		snprintf(out + off, len - off, "%s%.*s", off ? " " : "",
			 (int)l, init);
	}
	return 0;
}
