/* SPDX-License-Identifier: GPL-2.0-only */
/* hostinfo.h - metadata of the host and of block devices, captured with
 * every job so that a comparison can tell when its variants ran on a
 * different kernel, device or firmware. */
#ifndef BB_HOSTINFO_H
#define BB_HOSTINFO_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

/* {"hostname","kernel" (uname -r),"kernel_version" (uname -v),"machine",
 *  "cmdline" (/proc/cmdline),"cpu_model","microcode" (cpu0's revision,
 *  null where the architecture shows none),"boot_id"
 *  (/proc/sys/kernel/random/boot_id: each boot has its own),"cpus"
 *  (online),"memory_bytes","governor" (cpu0's scaling_governor, or
 *  null)}.  Never NULL. */
struct json_object *bb_host_info(void);

/* One block device by sysfs name ("loop0", "vda", "nvme0n1"):
 * {"name","path" ("/dev/NAME"),"model","serial","firmware" (null when
 *  sysfs has none),"size_bytes","rotational","scheduler","io_poll",
 *  "limits": {logical_block_size, physical_block_size, max_sectors_kb,
 *             max_hw_sectors_kb, max_segments, max_segment_size,
 *             virt_boundary_mask, chunk_sectors, nr_requests}
 *  ,"backing_file" (loop devices, else absent)
 *  ,"nvme" (NVMe namespaces, else absent: bb_nvme_ns_info of nvme.h)}.
 * NULL if not found. */
struct json_object *bb_device_info(const char *name);

/* Every block device of /sys/block (loop devices without a backing file
 * skipped), sorted by name: a JSON array of bb_device_info objects. */
struct json_object *bb_devices_info(void);

/* The device a target runs on: "nop" -> {"kind":"nop"}; a block device
 * or a file -> {"kind":"block"|"file","path",
 * "device": bb_device_info of the disk (null for tmpfs etc.)}.
 * Never NULL. */
struct json_object *bb_target_device_info(const char *target);

/* The boot id of the running kernel (/proc/sys/kernel/random/boot_id, a
 * UUID that changes with every boot) in buf.  0, -ENOENT (unreadable:
 * buf is ""), -EINVAL. */
int bb_boot_id(char *buf, size_t len);

/* Whether s is a host name as a fleet names its hosts (a daemon's
 * host_name, a job's "host"): 1..253 bytes of labels of letters, digits
 * and '-' (not at a label's ends, 1..63 each) separated by single dots.
 * NULL when it is, else why not (a constant string). */
const char *bb_host_name_check(const char *s);

/* ---- what a run records about where it ran ---------------------------- */

/* The queue attributes of a target's device read at the start of each
 * job run (after its sysfs knobs were written), so that a comparison of
 * jobs can name the settings that differ between them.  A bounded list,
 * in this order (files of /sys/dev/block/MAJ:MIN/queue of the whole disk,
 * as bb_sysknob_queue_dir finds it; scheduler as the selected one):
 *   scheduler, nomerges, rq_affinity, read_ahead_kb, max_sectors_kb,
 *   nr_requests, iostats, add_random, rotational, wbt_lat_usec, io_poll,
 *   io_poll_delay, io_timeout, write_cache
 * A file the kernel does not have is absent (null in JSON). */
#define BB_QUEUE_SETTINGS_N 14

struct bb_queue_settings {
	bool have;                        /* the target has a block queue
					     (false: nop, tmpfs, ...) */
	bool present[BB_QUEUE_SETTINGS_N];
	char value[BB_QUEUE_SETTINGS_N][64]; /* as read, trimmed */
};

/* Name of setting i (0..BB_QUEUE_SETTINGS_N-1), NULL beyond. */
const char *bb_queue_setting_name(unsigned i);

/* Read the settings of target's queue.  0 (q->have false for nop or a
 * filesystem without a block device), -EINVAL, or bb_sysknob_queue_dir's
 * other errors. */
int bb_queue_settings_read(const char *target, struct bb_queue_settings *q);

/* {"scheduler": "none", "nomerges": "0", ...} (every name; values are
 * text, null when absent), or NULL when !q->have. */
struct json_object *bb_queue_settings_to_json(const struct bb_queue_settings *q);

/* Where one run ran, read just before it starts: the boot (so that runs
 * of one job across reboots can be grouped by boot), the kernel release
 * and the queue settings. */
struct bb_run_context {
	bool have;          /* read (else nothing is added to JSON) */
	char boot_id[64];   /* "" when unreadable */
	char kernel[72];    /* uname -r */
	struct bb_queue_settings queue;
};

/* Fill c for a run on target.  0 or bb_queue_settings_read's error (the
 * boot id and kernel are filled even then). */
int bb_run_context_read(const char *target, struct bb_run_context *c);

/* Add the context to a run's result document: "boot_id", "kernel"
 * (null when unknown), "biobench_version" (bb_version()) and
 * "queue_settings" (bb_queue_settings_to_json, null without a queue).
 * Nothing when c was not read. */
void bb_run_context_add_json(struct json_object *doc,
			     const struct bb_run_context *c);

#endif
