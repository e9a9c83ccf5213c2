// SPDX-License-Identifier: GPL-2.0-only
/* jobconflict.c - see jobconflict.h. */
#include <biobench/jobconflict.h>

#include <stdio.h>
#include <string.h>

void bb_job_footprint_alone(struct bb_job_footprint *fp, const char *why)
{
	memset(fp, 0, sizeof(*fp));
	fp->alone = true;
	snprintf(fp->alone_why, sizeof(fp->alone_why), "%s", why);
}

static void cpu_add(struct bb_job_footprint *fp, int cpu)
{
	if (cpu < 0)
		return;
	if (cpu >= BB_JC_MAX_CPUS) {
		fp->all_cpus = true;
		return;
	}
	fp->cpus[cpu / 64] |= 1ull << (cpu % 64);
}

void bb_job_footprint(const struct bb_job *job, struct bb_job_footprint *fp)
{
	char err[512];

	memset(fp, 0, sizeof(*fp));
	if (job->boot_job) {
		bb_job_footprint_alone(fp, "a boot job (it reboots the host)");
		return;
	}
	for (unsigned i = 0; i < job->nvariants; i++) {
		const struct bb_config *c = &job->v[i].cfg;

		if (!c->ncpus)
			fp->all_cpus = true;
		for (unsigned k = 0; k < c->ncpus; k++)
			cpu_add(fp, c->cpus[k]);
		cpu_add(fp, c->sqpoll_cpu);
		cpu_add(fp, c->completion_cpu);
	}
	for (const char *p = job->target; p; p = bb_job_next_target(job, p))
		if (bb_target_footprint(p, &fp->dev, err, sizeof(err))) {
			char why[160];

			snprintf(why, sizeof(why), "its target cannot be "
				 "resolved: %.100s", err);
			bb_job_footprint_alone(fp, why);
			return;
		}
}

bool bb_job_conflict(const struct bb_job_footprint *a,
		     const struct bb_job_footprint *b, char *why, size_t len)
{
	char dev[128];

	if (a->alone || b->alone) {
		snprintf(why, len, "runs alone: %s",
			 a->alone ? a->alone_why : b->alone_why);
		return true;
	}
	if (a->all_cpus || b->all_cpus) {
		snprintf(why, len, "no CPU list (workload.cpus): it may use "
			 "every CPU");
		return true;
	}
	for (unsigned i = 0; i < BB_JC_MAX_CPUS / 64; i++) {
		uint64_t both = a->cpus[i] & b->cpus[i];

		if (both) {
			snprintf(why, len, "both use CPU %u",
				 i * 64 + (unsigned)__builtin_ctzll(both));
			return true;
		}
	}
	if (bb_footprint_overlap(&a->dev, &b->dev, dev, sizeof(dev))) {
		snprintf(why, len, "both reach %s", dev);
		return true;
	}
	return false;
}
