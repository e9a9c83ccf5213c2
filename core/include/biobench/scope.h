/* SPDX-License-Identifier: GPL-2.0-only */
/* scope.h - what an A/B job measures (core/job/scope.c): the kernel (a
 * sysfs queue knob differs between its variants), biobench's userspace
 * model of the bio path (bio_cache, split_check, bio_layout, the completion
 * context, cold_bios or its calibrated kernel cost differ), the workload (any other run option), or a
 * mix; said by every output of the job (its comparison document, ab,
 * show, compare, the dashboard). */
#ifndef BB_SCOPE_H
#define BB_SCOPE_H

#include <biobench/jobspec.h>

#include <json-c/json.h>

/* The sentence for a sysfs knob or kernel (boot) A/B. */
#define BB_KERNEL_SCOPE_NOTE "this measures the kernel"

struct bb_job_scope {
	bool model;    /* a model knob differs (or the put context) */
	bool kernel;   /* a sysfs knob differs, or the kernel booted */
	bool boot;     /* a boot job: the variants boot their kernels */
	bool workload; /* another run option differs */
	char model_fields[160];    /* "bio_cache, completion context" */
	char kernel_fields[160];   /* "sysfs.nomerges" */
	char workload_fields[160]; /* "iodepth, bs" */
	char note[896];            /* one line saying all of it (with the
				      model: its kernel cost, calibrated,
				      not executed) */
};

/* Classify what differs between job's variants (their normalized spec
 * overrides, and the context of the bio puts each one's configuration
 * implies: a mode override can change it).  Fills *s. */
void bb_job_scope(const struct bb_job *job, struct bb_job_scope *s);

/* {"kind": "model" | "kernel" | "workload" | "mixed" | "none", "model":
 * [...], "kernel": [...], "workload": [...], "note": "..."}. */
struct json_object *bb_job_scope_to_json(const struct bb_job_scope *s);

#endif
