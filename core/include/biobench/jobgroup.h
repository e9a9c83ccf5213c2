/* SPDX-License-Identifier: GPL-2.0-only */
/* jobgroup.h - one job on several fleet hosts: the host selector of a
 * job's "hosts", the state of a group (the parent job) from its
 * children's, and the combination of the per-host comparisons.
 *
 * A job whose "host" is an array of host names, or whose "hosts" is a
 * selector, is a group: biobenchd stores a parent job and one ordinary
 * child job per host (addressed to it), and compares the hosts side by
 * side.  Everything here is pure: no store, no HTTP.
 *
 * Selector.  {"KEY": "GLOB", ...}: every key must match (AND); a value
 * is a shell glob (fnmatch, no flags) matched against the text of the
 * metadata field (a number or boolean as its JSON text; a field that is
 * missing or null matches nothing).  Keys:
 *   name                 the daemon's host_name (its registry row)
 *   hostname, kernel, kernel_version, machine, cmdline, cpu_model,
 *   microcode, cpus, memory_bytes, governor
 *                        the host metadata the daemon registered
 *                        (bb_host_info)
 *   device.name, device.path, device.model, device.serial,
 *   device.firmware, device.size_bytes, device.rotational,
 *   device.scheduler, device.io_poll
 *                        a block device the daemon registered
 *                        (bb_device_info): all device keys on the same
 *                        device; the job's target's device when the host
 *                        has it (a /dev path: the device of that path or
 *                        name), else any of its devices. */
#ifndef BB_JOBGROUP_H
#define BB_JOBGROUP_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define BB_GROUP_MAX_HOSTS 32   /* hosts of one group job */
#define BB_GROUP_GLOB_MAX 253   /* bytes of one selector value */

/* Whether key is a selector key (the list above). */
bool bb_group_key_ok(const char *key);
/* The selector keys, ", "-separated (a constant string). */
const char *bb_group_keys(void);

/* Whether a registered daemon matches the selector sel (an object of
 * key: glob, checked with bb_group_key_ok): name its host_name, host its
 * host metadata (NULL: none), devices its registered devices (an array
 * of bb_device_info objects, or an object with such a "devices" array;
 * NULL: none), target the job's (first) target. */
bool bb_group_match(struct json_object *sel, const char *name,
		    struct json_object *host, struct json_object *devices,
		    const char *target);

/* The state of a group from its children's states (n >= 1):
 *   running   a child is running or rebooting, or some children ended
 *             while others are still queued
 *   queued    every child is queued
 *   failed    every child ended, one or more failed
 *   interrupted  every child ended, none failed, one or more interrupted
 *   cancelled every child ended, none failed or interrupted, one or more
 *             cancelled
 *   done      every child is done.
 * A constant string. */
const char *bb_group_state(const char *const *states, size_t n);

/* The combination of per-host comparisons.  rows: an array of
 * {"host","baseline","variant","change","ci_lo","ci_hi","ci_level",
 * "verdict"} (changes as fractions, as bb_ab_result_to_json gives them;
 * a row without a finite change is left out).  Returns an array with one
 * object per baseline/variant pair, in the order of first appearance:
 *   {"baseline","variant","hosts" (rows with an estimate),
 *    "effects": [{"host","change"}],
 *    "min": {"host","change"}, "max": {"host","change"},
 *    "spread_sd": SD of the hosts' log effects (log(1 + change)), as a
 *                 fraction; null with fewer than 2 hosts,
 *    "pooled": {"change","ci_lo","ci_hi","ci_level","q","i2","method"}
 *              | null: the fixed-effect inverse-variance mean of the
 *              hosts' log effects, each host's standard error taken from
 *              its interval (half its log width over the normal quantile
 *              of its real coverage); its interval at confidence
 *              (normal); Cochran's Q and I^2 = max(0, (Q - (k - 1)) / Q)
 *              say how much the hosts differ beyond their own noise;
 *              null when no host has an interval of positive width,
 *    "disagree": true when hosts' effects are significant (verdict
 *                faster or slower) with opposite signs,
 *    "disagreeing": [{"host","change","verdict"}] those hosts (empty
 *                   otherwise),
 *    "verdict": "disagree", the verdict every host has ("faster",
 *               "slower", "no_change", "inconclusive"), or "mixed";
 *               null with no host,
 *    "text": one line, e.g. "B vs A on 3 hosts: +2.1% .. +4.0%, pooled
 *            +3.2% (95% CI +2.5% .. +3.9%), I^2 12%: faster on all"}.
 * NULL for out of memory. */
struct json_object *bb_group_combine(struct json_object *rows,
				     double confidence);

#endif
