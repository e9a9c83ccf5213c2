/* SPDX-License-Identifier: GPL-2.0-only */
/* jobconflict.h - whether two jobs may run at the same time on one host
 * (biobenchd's max_parallel_jobs).  A job's footprint is what it holds
 * while it runs: the devices its targets reach (bb_target_footprint:
 * a partition counts as its disk, loop devices as what backs them, a
 * file as the disk of its filesystem), the CPUs its variants pin to
 * (workload.cpus, sqpoll_cpu, completion_cpu of every variant), and
 * whether it must run alone.  Two jobs conflict when
 *   - either must run alone: a boot job (it reboots the host), or a job
 *     whose footprint cannot be known (a spec that does not parse, a
 *     target that cannot be resolved);
 *   - either has a variant without a CPU list: it may run on every CPU;
 *   - their CPU sets intersect;
 *   - their device footprints share a node (nop targets reach none).
 * Sysfs knobs are queue knobs of the job's own device: a knob job
 * conflicts through its device with every job on it. */
#ifndef BB_JOBCONFLICT_H
#define BB_JOBCONFLICT_H

#include <biobench/jobspec.h>
#include <biobench/targetpath.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BB_JC_MAX_CPUS 1024

struct bb_job_footprint {
	bool alone;       /* conflicts with every job */
	char alone_why[160];
	bool all_cpus;    /* a variant without a CPU list */
	uint64_t cpus[BB_JC_MAX_CPUS / 64];
	struct bb_dev_footprint dev;
};

/* The footprint of a parsed job, its devices resolved now.  Never fails:
 * what cannot be known makes the job one that runs alone (why said). */
void bb_job_footprint(const struct bb_job *job, struct bb_job_footprint *fp);

/* A footprint that conflicts with everything, why being the reason
 * ("the stored spec does not parse"). */
void bb_job_footprint_alone(struct bb_job_footprint *fp, const char *why);

/* Whether a and b conflict; the first reason found in why. */
bool bb_job_conflict(const struct bb_job_footprint *a,
		     const struct bb_job_footprint *b, char *why, size_t len);

#endif
