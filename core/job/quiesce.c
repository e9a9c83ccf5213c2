// SPDX-License-Identifier: GPL-2.0-only
/* quiesce.c - see quiesce.h. */
#include <biobench/quiesce.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define QS_MAX_CPUS 1024

struct cpu_ticks {
	uint64_t busy, total;
	bool seen;
};

struct proc_ticks {
	int pid;
	uint64_t ticks;
	int cpu;
	char comm[32];
};

struct proc_snap {
	struct proc_ticks *p;
	size_t n, cap;
};

static const char *const mode_names[BB_QUIESCE__COUNT] = {
	[BB_QUIESCE_WAIT] = "wait",
	[BB_QUIESCE_MARK] = "mark",
	[BB_QUIESCE_OFF] = "off",
};

const char *bb_quiesce_mode_name(enum bb_quiesce_mode m)
{
	return (unsigned)m < BB_QUIESCE__COUNT ? mode_names[m] : "?";
}

int bb_quiesce_mode_from_name(const char *s, enum bb_quiesce_mode *m)
{
	for (unsigned i = 0; i < BB_QUIESCE__COUNT; i++)
		if (!strcmp(s, mode_names[i])) {
			*m = (enum bb_quiesce_mode)i;
			return 0;
		}
	return -EINVAL;
}

void bb_quiesce_params_init(struct bb_quiesce_params *p)
{
	p->mode = BB_QUIESCE_WAIT;
	p->max_busy = 0.10;
	p->sample_ns = 100000000ull;
	p->max_wait_ns = 1000000000ull;
	p->max_stall_ns = 250000000ull;
}

/* Append "; what" (or "what" first) to the reason. */
static void reason_add(struct bb_quiesce_result *r, const char *what)
{
	size_t n = strlen(r->reason);

	snprintf(r->reason + n, sizeof(r->reason) - n, "%s%s", n ? "; " : "",
		 what);
}

bool bb_quiesce_mark_stall(struct bb_quiesce_result *r,
			   const struct bb_quiesce_params *p,
			   uint64_t stall_ns)
{
	bool was = r->disturbed;
	char what[48];

	r->stalled_ns = stall_ns;
	if (stall_ns <= p->max_stall_ns)
		return false;
	snprintf(what, sizeof(what), "stalled %.1f s", (double)stall_ns / 1e9);
	reason_add(r, what);
	r->disturbed = true;
	return !was;
}

/* Per-CPU ticks from /proc/stat ("cpuN user nice system idle iowait irq
 * softirq steal ..."). */
static int read_stat(struct cpu_ticks *t, unsigned max)
{
	FILE *f = fopen("/proc/stat", "re");
	char line[512];

	if (!f)
		return -errno;
	memset(t, 0, max * sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v[8] = { 0 };
		unsigned cpu;

		if (strncmp(line, "cpu", 3) || !isdigit((unsigned char)line[3]))
			continue;
		if (sscanf(line + 3, "%u %llu %llu %llu %llu %llu %llu %llu %llu",
			   &cpu, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
			   &v[6], &v[7]) < 9 ||
		    cpu >= max)
			continue;
		/* user nice system idle iowait irq softirq steal */
		t[cpu].busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
		t[cpu].total = t[cpu].busy + v[3] + v[4];
		t[cpu].seen = true;
	}
	fclose(f);
	return 0;
}

/* utime+stime and last CPU of every process (threads are summed into
 * their process by the kernel's /proc/PID/stat). */
static void read_procs(struct proc_snap *s)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	s->n = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[64], buf[1024], *p;
		unsigned long long ut, st;
		int pid, cpu;
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid = atoi(e->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "re");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (!p || !(p = strrchr(buf, ')')))
			continue;
		/* after "pid (comm)": state is field 3; utime 14, stime 15,
		 * processor 39 */
		if (sscanf(p + 2,
			   /* 3 state, 4-8, 9 flags, 10-13 faults */
			   "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
			   /* 14 utime, 15 stime, 16-21, 22 starttime,
			    * 23 vsize, 24 rss */
			   "%llu %llu %*d %*d %*d %*d %*d %*d %*u %*u %*d "
			   /* 25-37 rsslim .. cnswap, 38 exit_signal,
			    * 39 processor */
			   "%*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u %*u "
			   "%*u %*d %d",
			   &ut, &st, &cpu) != 3)
			continue;
		if (s->n == s->cap) {
			size_t ncap = s->cap ? s->cap * 2 : 256;
			struct proc_ticks *np = realloc(s->p, ncap * sizeof(*np));

			if (!np)
				break;
			s->p = np;
			s->cap = ncap;
		}
		s->p[s->n].pid = pid;
		s->p[s->n].ticks = ut + st;
		s->p[s->n].cpu = cpu;
		{
			char *open = strchr(buf, '(');
			size_t len = open ? (size_t)(p - open - 1) : 0;

			if (len >= sizeof(s->p[s->n].comm))
				len = sizeof(s->p[s->n].comm) - 1;
			memcpy(s->p[s->n].comm, open ? open + 1 : "", len);
			s->p[s->n].comm[len] = '\0';
		}
		s->n++;
	}
	closedir(d);
}

static bool in_set(const int *cpus, unsigned ncpus, int cpu)
{
	if (!ncpus)
		return true;
	for (unsigned i = 0; i < ncpus; i++)
		if (cpus[i] == cpu)
			return true;
	return false;
}

/* The process that used the most CPU between a and b on the CPUs. */
static void name_culprit(const struct proc_snap *a, const struct proc_snap *b,
			 const int *cpus, unsigned ncpus, char *out,
			 size_t len)
{
	uint64_t best = 0;
	int self = getpid();

	out[0] = '\0';
	for (size_t j = 0; j < b->n; j++) {
		const struct proc_ticks *pb = &b->p[j];
		uint64_t d;

		if (pb->pid == self || !in_set(cpus, ncpus, pb->cpu))
			continue;
		for (size_t i = 0; i < a->n; i++) {
			if (a->p[i].pid != pb->pid)
				continue;
			d = pb->ticks - a->p[i].ticks;
			if (pb->ticks >= a->p[i].ticks && d > best) {
				best = d;
				snprintf(out, len, "%s (pid %d)", pb->comm,
					 pb->pid);
			}
			break;
		}
	}
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ull),
			       (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int bb_quiesce_check(const int *cpus, unsigned ncpus,
		     const struct bb_quiesce_params *p,
		     const _Atomic bool *cancel, struct bb_quiesce_result *r)
{
	struct cpu_ticks *t0 = NULL, *t1 = NULL;
	struct proc_snap pa = { 0 }, pb = { 0 };
	uint64_t start = bb_now_ns();
	int ret = 0;

	memset(r, 0, sizeof(*r));
	r->cpu = -1;
	if (p->mode == BB_QUIESCE_OFF)
		return 0;
	t0 = calloc(QS_MAX_CPUS, sizeof(*t0));
	t1 = calloc(QS_MAX_CPUS, sizeof(*t1));
	if (!t0 || !t1) {
		ret = -ENOMEM;
		goto out;
	}
	for (;;) {
		double worst = 0;
		int wcpu = -1;

		ret = read_stat(t0, QS_MAX_CPUS);
		if (ret)
			goto out;
		read_procs(&pa);
		sleep_ns(p->sample_ns);
		ret = read_stat(t1, QS_MAX_CPUS);
		if (ret)
			goto out;
		r->samples++;
		for (int c = 0; c < QS_MAX_CPUS; c++) {
			uint64_t tot, busy;
			double f;

			if (!t0[c].seen || !t1[c].seen ||
			    !in_set(cpus, ncpus, c))
				continue;
			tot = t1[c].total - t0[c].total;
			busy = t1[c].busy - t0[c].busy;
			f = tot ? (double)busy / (double)tot : 0;
			if (f > worst || wcpu < 0) {
				worst = f;
				wcpu = c;
			}
		}
		r->checked = true;
		r->busy = worst;
		r->cpu = wcpu;
		r->disturbed = worst > p->max_busy;
		if (!r->disturbed) {
			r->culprit[0] = '\0';
			break;
		}
		read_procs(&pb);
		name_culprit(&pa, &pb, cpus, ncpus, r->culprit,
			     sizeof(r->culprit));
		if (p->mode != BB_QUIESCE_WAIT ||
		    bb_now_ns() - start >= p->max_wait_ns ||
		    (cancel && atomic_load(cancel)))
			break;
	}
	r->waited_ns = r->samples > 1 ? bb_now_ns() - start : 0;
	if (r->disturbed) {
		char what[sizeof(r->reason)];

		snprintf(what, sizeof(what), "CPU %d %.0f %% busy%s%s%s", r->cpu,
			 r->busy * 100, r->culprit[0] ? " (" : "", r->culprit,
			 r->culprit[0] ? ")" : "");
		reason_add(r, what);
	}
out:
	free(pa.p);
	free(pb.p);
	free(t0);
	free(t1);
	return ret;
}

struct json_object *bb_quiesce_to_json(const struct bb_quiesce_result *r,
				       const struct bb_quiesce_params *p)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "mode",
			       json_object_new_string(bb_quiesce_mode_name(p->mode)));
	json_object_object_add(o, "checked", json_object_new_boolean(r->checked));
	json_object_object_add(o, "disturbed",
			       json_object_new_boolean(r->disturbed));
	json_object_object_add(o, "busy", json_object_new_double(r->busy));
	json_object_object_add(o, "cpu", r->cpu >= 0 ?
					 json_object_new_int(r->cpu) : NULL);
	json_object_object_add(o, "max_busy",
			       json_object_new_double(p->max_busy));
	json_object_object_add(o, "waited_s",
			       json_object_new_double((double)r->waited_ns / 1e9));
	json_object_object_add(o, "samples", json_object_new_int((int)r->samples));
	json_object_object_add(o, "culprit", r->culprit[0] ?
					     json_object_new_string(r->culprit) :
					     NULL);
	json_object_object_add(o, "stalled_s",
			       json_object_new_double((double)r->stalled_ns / 1e9));
	json_object_object_add(o, "reason", r->reason[0] ?
					    json_object_new_string(r->reason) :
					    NULL);
	return o;
}
