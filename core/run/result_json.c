// SPDX-License-Identifier: GPL-2.0-only
/* result_json.c - the result document of a run (schema/result.schema.json).
 * Field names follow the struct fields; counters are integers, derived
 * figures (rates, seconds, means) are numbers. */
#include <biobench/result_json.h>
#include <biobench/options.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct counter_field {
	const char *name;
	size_t off;
};

#define CF(type, f) { #f, offsetof(struct type, f) }

static const struct counter_field io_fields[] = {
	CF(bb_io_totals, ios),           CF(bb_io_totals, reads),
	CF(bb_io_totals, writes),        CF(bb_io_totals, bytes_read),
	CF(bb_io_totals, bytes_written), CF(bb_io_totals, dev_reads),
	CF(bb_io_totals, dev_writes),    CF(bb_io_totals, sectors_read),
	CF(bb_io_totals, sectors_written), CF(bb_io_totals, errors),
	CF(bb_io_totals, verify_errors), CF(bb_io_totals, submitted),
	CF(bb_io_totals, enters),        CF(bb_io_totals, reaped),
};

static const struct counter_field cache_fields[] = {
	CF(bb_cache_counters, alloc_hit),
	CF(bb_cache_counters, alloc_miss),
	CF(bb_cache_counters, alloc_slab),
	CF(bb_cache_counters, alloc_reserve),
	CF(bb_cache_counters, alloc_fail),
	CF(bb_cache_counters, splice),
	CF(bb_cache_counters, splice_bios),
	CF(bb_cache_counters, put_task),
	CF(bb_cache_counters, put_irq),
	CF(bb_cache_counters, put_free),
	CF(bb_cache_counters, free),
	CF(bb_cache_counters, reserve_refill),
	CF(bb_cache_counters, bvec_alloc),
	CF(bb_cache_counters, bvec_free),
	CF(bb_cache_counters, prune),
};

static const struct counter_field split_fields[] = {
	CF(bb_split_counters, checks),     CF(bb_split_counters, check_hits),
	CF(bb_split_counters, full_walks), CF(bb_split_counters, splits),
	CF(bb_split_counters, pieces),     CF(bb_split_counters, einval),
	CF(bb_split_counters, eagain),     CF(bb_split_counters, segs),
};

_Static_assert(sizeof(io_fields) / sizeof(io_fields[0]) ==
		       sizeof(struct bb_io_totals) / sizeof(uint64_t),
	       "every bb_io_totals counter is in the JSON");
_Static_assert(sizeof(cache_fields) / sizeof(cache_fields[0]) ==
		       sizeof(struct bb_cache_counters) / sizeof(uint64_t),
	       "every bb_cache_counters counter is in the JSON");
_Static_assert(sizeof(split_fields) / sizeof(split_fields[0]) ==
		       sizeof(struct bb_split_counters) / sizeof(uint64_t),
	       "every bb_split_counters counter is in the JSON");

static struct json_object *ju64(uint64_t v)
{
	return v <= INT64_MAX ? json_object_new_int64((int64_t)v)
			      : json_object_new_uint64(v);
}

static struct json_object *counters_json(const void *base,
					 const struct counter_field *f,
					 size_t n)
{
	struct json_object *o = json_object_new_object();

	for (size_t i = 0; i < n; i++) {
		uint64_t v;

		memcpy(&v, (const char *)base + f[i].off, sizeof(v));
		json_object_object_add(o, f[i].name, ju64(v));
	}
	return o;
}

struct json_object *bb_cache_counters_to_json(
	const struct bb_cache_counters *cache,
	const struct bb_cache_counters *split_cache)
{
	struct json_object *o = counters_json(cache, cache_fields,
					      bb_array_size(cache_fields));

	json_object_object_add(o, "split_bioset",
			       counters_json(split_cache, cache_fields,
					     bb_array_size(cache_fields)));
	return o;
}

struct json_object *bb_split_counters_to_json(const struct bb_split_counters *s)
{
	return counters_json(s, split_fields, bb_array_size(split_fields));
}

#define LIM(f) json_object_object_add(o, #f, ju64((uint64_t)lim->f))

static struct json_object *limits_json(const struct bb_queue_limits *lim)
{
	struct json_object *o = json_object_new_object();

	LIM(seg_boundary_mask);
	LIM(virt_boundary_mask);
	LIM(max_hw_sectors);
	LIM(max_dev_sectors);
	LIM(chunk_sectors);
	LIM(max_sectors);
	LIM(max_user_sectors);
	LIM(max_segment_size);
	LIM(max_fast_segment_size);
	LIM(physical_block_size);
	LIM(logical_block_size);
	LIM(io_min);
	LIM(io_opt);
	LIM(max_write_zeroes_sectors);
	LIM(zone_write_granularity);
	LIM(atomic_write_max_sectors);
	LIM(atomic_write_boundary_sectors);
	LIM(max_segments);
	LIM(dma_alignment);
	return o;
}

static double per_io(uint64_t v, uint64_t ios)
{
	return ios ? (double)v / (double)ios : 0.0;
}

static struct json_object *latency_json(const struct bb_config *cfg,
					const struct bb_hist *h)
{
	struct json_object *o = json_object_new_object();
	struct json_object *b = json_object_new_array();
	bool any = h->count != 0;

	json_object_object_add(o, "mode",
			       json_object_new_string(bb_lat_mode_name(cfg->lat)));
	json_object_object_add(o, "count", ju64(h->count));
	json_object_object_add(o, "min", ju64(any ? h->min_ns : 0));
	json_object_object_add(o, "mean",
			       json_object_new_double(per_io(h->sum_ns, h->count)));
	json_object_object_add(o, "max", ju64(any ? h->max_ns : 0));
	json_object_object_add(o, "p50", ju64(bb_hist_percentile(h, 50)));
	json_object_object_add(o, "p90", ju64(bb_hist_percentile(h, 90)));
	json_object_object_add(o, "p99", ju64(bb_hist_percentile(h, 99)));
	json_object_object_add(o, "p99_9", ju64(bb_hist_percentile(h, 99.9)));
	json_object_object_add(o, "p99_99",
			       ju64(bb_hist_percentile(h, 99.99)));
	json_object_object_add(o, "plat_bits",
			       json_object_new_int(BB_HIST_PLAT_BITS));
	for (unsigned i = 0; i < BB_HIST_NBUCKETS; i++) {
		struct json_object *pair;

		if (!h->buckets[i])
			continue;
		pair = json_object_new_array_ext(2);
		json_object_array_add(pair, json_object_new_int((int)i));
		json_object_array_add(pair, ju64(h->buckets[i]));
		json_object_array_add(b, pair);
	}
	json_object_object_add(o, "buckets", b);
	return o;
}

static struct json_object *cpu_json(const struct bb_result *r)
{
	struct json_object *o = json_object_new_object();
	uint64_t total = r->cpu_submit.usr_ns + r->cpu_submit.sys_ns +
			 r->cpu_completion.usr_ns + r->cpu_completion.sys_ns;

	json_object_object_add(o, "submit_usr_s",
		json_object_new_double((double)r->cpu_submit.usr_ns / 1e9));
	json_object_object_add(o, "submit_sys_s",
		json_object_new_double((double)r->cpu_submit.sys_ns / 1e9));
	json_object_object_add(o, "completion_usr_s",
		json_object_new_double((double)r->cpu_completion.usr_ns / 1e9));
	json_object_object_add(o, "completion_sys_s",
		json_object_new_double((double)r->cpu_completion.sys_ns / 1e9));
	json_object_object_add(o, "per_io_ns",
		json_object_new_double(per_io(total, r->io.ios)));
	json_object_object_add(o, "kernel_helpers",
		json_object_new_string(r->kernel_helpers));
	return o;
}

static struct json_object *perf_json(const struct bb_result *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "available",
			       json_object_new_boolean(r->perf_available));
	if (!r->perf_available) {
		json_object_object_add(o, "reason",
			json_object_new_string(r->perf_unavailable_reason[0]
						       ? r->perf_unavailable_reason
						       : "not measured"));
		return o;
	}
	json_object_object_add(o, "instructions", ju64(r->instructions));
	json_object_object_add(o, "cycles", ju64(r->cycles));
	json_object_object_add(o, "instructions_per_io",
		json_object_new_double(per_io(r->instructions, r->io.ios)));
	json_object_object_add(o, "cycles_per_io",
		json_object_new_double(per_io(r->cycles, r->io.ios)));
	return o;
}

/* Each sample's interval ends at t_ms and starts at the previous sample's
 * t_ms (the first one at 0, the start of the measured interval). */
static struct json_object *samples_json(const struct bb_result *r)
{
	struct json_object *arr = json_object_new_array_ext((int)r->nsamples);
	uint64_t prev = 0;

	for (unsigned i = 0; i < r->nsamples; i++) {
		const struct bb_sample *s = &r->samples[i];
		struct json_object *o = json_object_new_object();
		uint64_t ms;

		ms = s->t_ms > prev ? s->t_ms - prev : 0;
		prev = s->t_ms;
		json_object_object_add(o, "t_ms", ju64(s->t_ms));
		json_object_object_add(o, "ios", ju64(s->ios));
		json_object_object_add(o, "bytes", ju64(s->bytes));
		json_object_object_add(o, "iops",
			json_object_new_double(ms ? (double)s->ios * 1000.0 / (double)ms : 0.0));
		json_object_object_add(o, "bw_bytes_s",
			json_object_new_double(ms ? (double)s->bytes * 1000.0 / (double)ms : 0.0));
		json_object_object_add(o, "submitted", ju64(s->submitted));
		json_object_object_add(o, "enters", ju64(s->enters));
		json_object_object_add(o, "reaped", ju64(s->reaped));
		json_object_array_add(arr, o);
	}
	return arr;
}

static struct json_object *irq_json(const struct bb_result *r)
{
	struct json_object *o;

	if (!r->irq.checked)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "source",
			       json_object_new_string(r->irq.source));
	json_object_object_add(o, "lines", ju64(r->irq.lines));
	json_object_object_add(o, "count", ju64(r->irq.count));
	return o;
}

static struct json_object *diskstats_json(const struct bb_result *r)
{
	const struct bb_diskstats *d = &r->disk;
	struct json_object *o;

	if (!d->checked)
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "device", json_object_new_string(d->name));
	json_object_object_add(o, "reads", ju64(d->reads));
	json_object_object_add(o, "sectors_read", ju64(d->sectors_read));
	json_object_object_add(o, "writes", ju64(d->writes));
	json_object_object_add(o, "sectors_written", ju64(d->sectors_written));
	return o;
}

static struct json_object *stall_json(const struct bb_result *r)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "stalled_s",
			       json_object_new_double((double)r->stall_ns / 1e9));
	json_object_object_add(o, "longest_s",
			       json_object_new_double((double)r->stall_max_ns /
						      1e9));
	json_object_object_add(o, "ctxsw_voluntary", ju64(r->ctxsw_voluntary));
	json_object_object_add(o, "ctxsw_involuntary",
			       ju64(r->ctxsw_involuntary));
	return o;
}

/* The calibrated kernel cost the run added (null: none, with --model none
 * or --kernel-cost=off): the ns of each part as added (request and
 * completion 0 where the kernel's own block layer ran) and the words. */
static struct json_object *kcost_json(const struct bb_config *cfg)
{
	struct json_object *o;
	const bool req = bb_config_kcost_requests(cfg);
	char text[BB_KCOST_TEXT_LEN];

	if (!bb_config_kcost(cfg))
		return NULL;
	o = json_object_new_object();
	bb_config_kcost_text(cfg, text, sizeof(text));
	json_object_object_add(o, "note", json_object_new_string(text));
	json_object_object_add(o, "slab_alloc_ns", ju64(cfg->kcost.slab_alloc_ns));
	json_object_object_add(o, "slab_free_ns", ju64(cfg->kcost.slab_free_ns));
	json_object_object_add(o, "mempool_ns", ju64(cfg->kcost.mempool_ns));
	json_object_object_add(o, "per_request", json_object_new_boolean(req));
	json_object_object_add(o, "request_ns",
			       ju64(req ? cfg->kcost.request_ns : 0));
	json_object_object_add(o, "completion_ns",
			       ju64(req ? cfg->kcost.completion_ns : 0));
	return o;
}

struct json_object *bb_result_to_json(const struct bb_config *cfg,
				      const struct bb_result *r)
{
	struct json_object *doc = json_object_new_object();
	struct json_object *target = json_object_new_object();
	double secs = (double)r->duration_ns / 1e9;
	uint64_t bytes = r->io.bytes_read + r->io.bytes_written;
	int pv;

	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "start_unix_ms", ju64(r->start_unix_ms));
	json_object_object_add(doc, "config", bb_config_to_json(cfg));

	json_object_object_add(target, "kind",
			       json_object_new_string(r->target_kind));
	json_object_object_add(target, "path",
			       json_object_new_string(cfg->target));
	if (cfg->ntargets > 1) {
		struct json_object *paths = json_object_new_array();

		for (const char *p = cfg->target; p;
		     p = bb_config_next_target(cfg, p))
			json_object_array_add(paths, json_object_new_string(p));
		json_object_object_add(target, "paths", paths);
	}
	json_object_object_add(target, "limits", limits_json(&r->limits));
	json_object_object_add(doc, "target", target);
	json_object_object_add(doc, "ring_flags", ju64(r->ring_flags));

	json_object_object_add(doc, "duration_s", json_object_new_double(secs));
	json_object_object_add(doc, "iops",
			       json_object_new_double(bb_result_iops(r)));
	json_object_object_add(doc, "bw_bytes_s",
		json_object_new_double(secs > 0 ? (double)bytes / secs : 0.0));
	json_object_object_add(doc, "io",
		counters_json(&r->io, io_fields, bb_array_size(io_fields)));
	json_object_object_add(doc, "latency_ns", latency_json(cfg, &r->lat));
	json_object_object_add(doc, "cpu", cpu_json(r));
	json_object_object_add(doc, "perf", perf_json(r));

	/* the bio model's counters; null (not applicable) without it */
	json_object_object_add(doc, "model",
			       json_object_new_string(bb_model_name(cfg->model)));
	json_object_object_add(doc, "model_scope",
			       bb_config_models_bio(cfg) ?
			       json_object_new_string(BB_MODEL_SCOPE_NOTE) : NULL);
	json_object_object_add(doc, "kernel_cost", kcost_json(cfg));
	json_object_object_add(doc, "put_context",
			       json_object_new_string(bb_config_put_context(cfg)));
	json_object_object_add(doc, "bio_cache",
			       cfg->model == BB_MODEL_NONE ? NULL :
			       bb_cache_counters_to_json(&r->cache,
							 &r->split_cache));
	json_object_object_add(doc, "split",
			       cfg->model == BB_MODEL_NONE ? NULL :
			       bb_split_counters_to_json(&r->split));
	json_object_object_add(doc, "interrupts", irq_json(r));
	json_object_object_add(doc, "diskstats", diskstats_json(r));
	pv = bb_poll_verified(cfg, &r->irq, r->io.dev_reads + r->io.dev_writes);
	json_object_object_add(doc, "poll_verified",
			       pv < 0 ? NULL : json_object_new_boolean(pv));
	json_object_object_add(doc, "stall", stall_json(r));
	json_object_object_add(doc, "samples", samples_json(r));
	json_object_object_add(doc, "error",
		r->error[0] ? json_object_new_string(r->error) : NULL);
	return doc;
}
