/* SPDX-License-Identifier: GPL-2.0-only */
/* quiesce.h - the quiescence gate: is anything else using the benchmark's
 * CPUs right before a run?  A measurement taken while a compiler, a cron
 * job or another benchmark shares the CPUs says little about the change
 * under test; the gate waits (bounded) for quiet, or lets the run go and
 * marks it disturbed so that the statistics can leave it out.
 *
 * Method: two snapshots of /proc/stat's per-CPU counters sample_ns apart;
 * a CPU's busy fraction is (user+nice+system+irq+softirq+steal) over all
 * ticks in the interval.  Before a run the benchmark's own threads sleep,
 * so what is busy is foreign load.  When a CPU is over max_busy, the
 * per-process CPU time (/proc/PID/stat utime+stime, last CPU in the set)
 * over the same interval names the biggest consumer.
 *
 * After the run, a second check that needs no gate: a run whose process
 * stalled (the engine's bb_result.stall_ns: stopped by SIGSTOP or a
 * debugger, frozen, its VM paused, starved) for more than max_stall is
 * marked disturbed too ("stalled 3.0 s"), whatever the mode: its figures
 * mix the workload with the time nothing ran. */
#ifndef BB_QUIESCE_H
#define BB_QUIESCE_H

#include <biobench/common.h>

#include <json-c/json.h>
#include <stdatomic.h>

enum bb_quiesce_mode {
	BB_QUIESCE_WAIT = 0, /* wait up to max_wait for quiet, then mark */
	BB_QUIESCE_MARK,     /* check once, mark if busy, never wait */
	BB_QUIESCE_OFF,      /* no check */
	BB_QUIESCE__COUNT
};

struct bb_quiesce_params {
	enum bb_quiesce_mode mode;
	double max_busy;       /* fraction of one CPU, e.g. 0.10 */
	uint64_t sample_ns;    /* one sample, e.g. 100 ms */
	uint64_t max_wait_ns;  /* WAIT: give up after this long */
	uint64_t max_stall_ns; /* a run stalled longer is disturbed */
};

struct bb_quiesce_result {
	bool checked;          /* false: mode off, or /proc/stat unreadable */
	bool disturbed;        /* busy over max_busy when the run started */
	double busy;           /* busiest CPU's busy fraction, last sample */
	int cpu;               /* that CPU */
	uint64_t waited_ns;    /* time spent waiting for quiet */
	unsigned samples;
	char culprit[64];      /* "comm (pid N)" of the biggest consumer, or
				  "" (irq/softirq/steal or nothing found) */
	uint64_t stalled_ns;   /* the run's stalls (bb_quiesce_mark_stall) */
	char reason[160];      /* why disturbed, "" when not: "CPU 1 87 %
				  busy (cc1 (pid 12))", "stalled 3.0 s", or
				  both joined by "; " */
};

/* Defaults: wait, 10 %, 100 ms samples, 1 s at most, 250 ms of stalls. */
void bb_quiesce_params_init(struct bb_quiesce_params *p);

const char *bb_quiesce_mode_name(enum bb_quiesce_mode m);
int bb_quiesce_mode_from_name(const char *s, enum bb_quiesce_mode *m);

/* Check cpus[0..ncpus-1] (ncpus 0: every online CPU).  cancel (may be
 * NULL) ends a wait early.  Fills r; returns 0, or -errno when /proc/stat
 * cannot be read (r->checked false). */
int bb_quiesce_check(const int *cpus, unsigned ncpus,
		     const struct bb_quiesce_params *p,
		     const _Atomic bool *cancel, struct bb_quiesce_result *r);

/* After the run: record its stalls (stall_ns) in r and mark it disturbed
 * when they exceed p->max_stall_ns (reason "stalled 3.0 s").  Returns
 * true when this made a run disturbed that was not. */
bool bb_quiesce_mark_stall(struct bb_quiesce_result *r,
			   const struct bb_quiesce_params *p,
			   uint64_t stall_ns);

/* {"checked","disturbed","busy","cpu","waited_s","samples","culprit",
 *  "mode","max_busy","stalled_s","reason" (null when not disturbed)} */
struct json_object *bb_quiesce_to_json(const struct bb_quiesce_result *r,
				       const struct bb_quiesce_params *p);

#endif
