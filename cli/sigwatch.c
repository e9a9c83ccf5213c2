// SPDX-License-Identifier: GPL-2.0-only
/* sigwatch.c - Ctrl-C for the local runs (see cli.h): SIGINT, SIGTERM and
 * SIGHUP are blocked in every thread and taken by one thread with
 * sigwait(), which sets the run's cancel flag; the engine (or the job
 * runner) then stops within ~100 ms and the command prints what ran.  No
 * signal handler, no global. */
#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static void *sigwatch_main(void *arg)
{
	struct bb_cli_sigwatch *w = arg;

	for (;;) {
		int sig;

		if (sigwait(&w->set, &sig))
			continue;
		if (sig == SIGUSR1)
			break;
		if (atomic_load(w->cancel) && w->second_kills) {
			/* a second signal: the default action, now */
			sigset_t one;

			fprintf(stderr, "\n%s: %s again: exiting now\n",
				w->prog, strsignal(sig));
			signal(sig, SIG_DFL);
			sigemptyset(&one);
			sigaddset(&one, sig);
			pthread_sigmask(SIG_UNBLOCK, &one, NULL);
			raise(sig);
		}
		atomic_store(&w->signo, sig);
		atomic_store(w->cancel, true);
		if (w->what)
			fprintf(stderr, "\n%s: %s: %s\n", w->prog,
				strsignal(sig), w->what);
	}
	return NULL;
}

int bb_cli_sigwatch_start(struct bb_cli_sigwatch *w, _Atomic bool *cancel,
			  const char *prog, const char *what,
			  bool second_kills)
{
	int ret;

	memset(w, 0, sizeof(*w));
	w->cancel = cancel;
	w->prog = prog;
	w->what = what;
	w->second_kills = second_kills;
	sigemptyset(&w->set);
	sigaddset(&w->set, SIGINT);
	sigaddset(&w->set, SIGTERM);
	sigaddset(&w->set, SIGHUP);
	sigaddset(&w->set, SIGUSR1); /* our own: stop watching */
	ret = -pthread_sigmask(SIG_BLOCK, &w->set, &w->old);
	if (ret)
		return ret;
	ret = -pthread_create(&w->tid, NULL, sigwatch_main, w);
	if (ret) {
		pthread_sigmask(SIG_SETMASK, &w->old, NULL);
		return ret;
	}
	/* idle in sigwait() for the whole run, like the main thread in
	 * join: named, so that a look at the run's threads can tell it from
	 * the submitters and completion threads that --cpus places */
	pthread_setname_np(w->tid, "bb-signals");
	w->started = true;
	return 0;
}

void bb_cli_sigwatch_stop(struct bb_cli_sigwatch *w)
{
	if (!w->started)
		return;
	pthread_kill(w->tid, SIGUSR1);
	pthread_join(w->tid, NULL);
	/* a signal that came after the thread's last sigwait() is pending:
	 * unblocked, it would kill the process (exit 130) after the command
	 * printed what ran.  Taken here, as the thread would have. */
	{
		const struct timespec now = { 0, 0 };
		int sig;

		while ((sig = sigtimedwait(&w->set, NULL, &now)) > 0) {
			int none = 0;

			if (sig != SIGUSR1)
				atomic_compare_exchange_strong(&w->signo,
							       &none, sig);
		}
	}
	pthread_sigmask(SIG_SETMASK, &w->old, NULL);
	w->started = false;
}

const char *bb_cli_signame(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "a signal";
	}
}
