/* SPDX-License-Identifier: GPL-2.0-only */
/* result_json.h - the result document of a run (schema/result.schema.json).
 */
#ifndef BB_RESULT_JSON_H
#define BB_RESULT_JSON_H

#include <biobench/config.h>
#include <biobench/stats.h>

#include <json-c/json.h>

/* {"version":1, "start_unix_ms", "config":{...}, "target":{kind, path,
 *  limits{...}}, "ring_flags",
 *  "duration_s", "iops", "bw_bytes_s", "io":{...totals...},
 *  "latency_ns":{"mode","count","min","mean","max","p50","p90","p99",
 *                "p99_9","p99_99","plat_bits","buckets":[[idx,count]...]},
 *  "cpu":{"submit_usr_s","submit_sys_s","completion_usr_s",
 *         "completion_sys_s","per_io_ns","kernel_helpers"},
 *  "perf":{"available", "reason"|"instructions_per_io","cycles_per_io"},
 *  "bio_cache":{...counters..., "split_bioset":{...}},
 *  "split":{...counters...}, "samples":[{t_ms, ios, bytes, iops,
 *  bw_bytes_s, submitted, enters, reaped}],
 *  "error": null|"..."}  */
/* The "bio_cache" object of a result: the main bioset's counters with the
 * split bioset's under "split_bioset"; and the "split" counters object.
 * Shared with the job runner's per-variant sums. */
struct json_object *bb_cache_counters_to_json(
	const struct bb_cache_counters *cache,
	const struct bb_cache_counters *split_cache);
struct json_object *bb_split_counters_to_json(const struct bb_split_counters *s);

struct json_object *bb_result_to_json(const struct bb_config *cfg,
				      const struct bb_result *r);

#endif
