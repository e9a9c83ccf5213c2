/* SPDX-License-Identifier: GPL-2.0-only */
/* hostinfo.h - metadata of the host and of block devices, captured with
 * every job so that a comparison can tell when its variants ran on a
 * different kernel, device or firmware. */
#ifndef BB_HOSTINFO_H
#define BB_HOSTINFO_H

#include <json-c/json.h>

/* {"hostname","kernel" (uname -r),"kernel_version" (uname -v),"machine",
 *  "cmdline" (/proc/cmdline),"cpu_model","cpus" (online),"memory_bytes",
 *  "governor" (cpu0's scaling_governor, or null)}.  Never NULL. */
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

#endif
