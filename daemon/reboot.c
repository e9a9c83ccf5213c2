// SPDX-License-Identifier: GPL-2.0-only
/* reboot.c - the reboot commands of a boot job (see reboot.h). */
#include "reboot.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void bb_reboot_cmds_of(struct bb_reboot_cmds *r, const struct bb_dconfig *c)
{
	memset(r, 0, sizeof(*r));
	r->method = c->reboot_method;
	snprintf(r->kexec, sizeof(r->kexec), "%s", c->kexec_path);
	snprintf(r->systemctl, sizeof(r->systemctl), "%s", c->systemctl_path);
	snprintf(r->grub_reboot, sizeof(r->grub_reboot), "%s",
		 c->grub_reboot_path);
	snprintf(r->grub_editenv, sizeof(r->grub_editenv), "%s",
		 c->grub_editenv_path);
}

/* Run argv[0] with argv, stdin /dev/null, stdout and stderr captured (the
 * last bytes kept).  0 when it exited 0, else -EIO (-errno when it could
 * not start) with "PROG ARGS: exit N: OUTPUT" in err. */
static int run(char *const argv[], char *err, size_t errlen)
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
		  char *err, size_t errlen)
{
	char initrd[PATH_MAX + 16], append[BB_BOOT_CMDLINE_MAX + 16];
	char *argv[8];
	unsigned n = 0;

	if (r->method == BB_REBOOT_GRUB_REBOOT) {
		if (!b->grub_entry[0]) {
			snprintf(err, errlen, "reboot_method grub-reboot needs "
				 "the variant's boot.grub_entry");
			return -EINVAL;
		}
		argv[n++] = (char *)r->grub_reboot;
		argv[n++] = (char *)b->grub_entry;
		argv[n] = NULL;
		return run(argv, err, errlen);
	}
	argv[n++] = (char *)r->kexec;
	argv[n++] = (char *)"-l";
	argv[n++] = (char *)b->kernel;
	if (b->initrd[0]) {
		snprintf(initrd, sizeof(initrd), "--initrd=%s", b->initrd);
		argv[n++] = initrd;
	}
	if (b->cmdline[0]) {
		snprintf(append, sizeof(append), "--append=%s", b->cmdline);
		argv[n++] = append;
	} else {
		argv[n++] = (char *)"--reuse-cmdline";
	}
	argv[n] = NULL;
	return run(argv, err, errlen);
}

int bb_reboot_unarm(const struct bb_reboot_cmds *r, char *err, size_t errlen)
{
	char *argv[] = { (char *)r->kexec, (char *)"-u", NULL };
	/* "-": grub-editenv's default file, /boot/grub/grubenv, which
	 * grub-reboot wrote */
	char *grub[] = { (char *)r->grub_editenv, (char *)"-",
			 (char *)"unset", (char *)"next_entry", NULL };

	return run(r->method == BB_REBOOT_GRUB_REBOOT ? grub : argv, err,
		   errlen);
}

int bb_reboot_go(const struct bb_reboot_cmds *r, char *err, size_t errlen)
{
	char *argv[] = { (char *)r->systemctl,
			 (char *)(r->method == BB_REBOOT_GRUB_REBOOT ? "reboot" :
								      "kexec"),
			 NULL };

	if (r->method == BB_REBOOT_KEXEC_EXEC)
		return 0;
	return run(argv, err, errlen);
}

int bb_reboot_exec(const char *kexec)
{
	sync();
	execl(kexec, "kexec", "-e", (char *)NULL);
	return -errno;
}
