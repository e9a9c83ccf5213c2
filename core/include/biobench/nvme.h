/* SPDX-License-Identifier: GPL-2.0-only */
/* nvme.h - NVMe controllers and namespaces (libnvme and sysfs): names,
 * model, serial, firmware, namespace id, LBA size, capacity, block and
 * generic char device paths, poll capability, MDTS-derived limits, and the
 * interrupts of the controllers' I/O queues (layout-independent).
 *
 * No libnvme type leaves this module: callers see plain structs and JSON. */
#ifndef BB_NVME_H
#define BB_NVME_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BB_NVME_MAX_CTRLS 8
#define BB_NVME_NAME_LEN 32

/* One namespace, as found from one of its device nodes. */
struct bb_nvme_ns {
	char blk[BB_NVME_NAME_LEN];   /* block device name: "nvme0n1" */
	char chr[BB_NVME_NAME_LEN];   /* generic char device: "ng0n1", or "" */
	char ctrls[BB_NVME_MAX_CTRLS][BB_NVME_NAME_LEN]; /* "nvme0", ... */
	unsigned nctrls;              /* controllers serving it (multipath) */
	uint32_t nsid;
	uint32_t lba_size;            /* bytes */
	uint64_t lba_count;           /* namespace size in LBAs (nsze) */
	bool identified;              /* nsid/LBA from NVMe commands, not sysfs */
};

/* Parse an NVMe namespace name: "nvmeXnY" (block) or "ngXnY" (generic
 * char device), optionally with a "/dev/" prefix.  Fills blk and chr.
 * Returns 0, or -ENODEV when the name is not of that form (partitions
 * "nvme0n1p1" and hidden multipath paths "nvme0c0n1" are not). */
int bb_nvme_ns_names(const char *name, char *blk, size_t blen, char *chr,
		     size_t clen);

/* Resolve a device node (/dev/nvme0n1 or /dev/ng0n1, by its device
 * number) or a bare name to its namespace: names, the controllers that
 * serve it (sysfs), the namespace id and LBA format (NVME_IOCTL_ID and
 * Identify Namespace on fd when fd >= 0, else sysfs).  Returns 0, or
 * -ENODEV when it is not an NVMe namespace, or -errno. */
int bb_nvme_ns_resolve(const char *path, int fd, struct bb_nvme_ns *ns);

/* /sys/module/nvme/parameters/poll_queues, or -errno (-ENOENT: the nvme
 * PCI driver is not loaded). */
int bb_nvme_poll_queues(void);

/* nvme.poll_queues=N asked on the kernel command line (/proc/cmdline):
 * N, or 0 when not asked.  The driver resets its parameter to 0 when it
 * rejects the value (more poll queues than CPUs), so this is how a
 * refused request is told from no request. */
int bb_nvme_poll_queues_asked(void);

/* Why an NVMe namespace block device (sysfs name) cannot poll, naming
 * the sysfs file and the fix; false (why filled) or true (why empty). */
bool bb_nvme_can_poll(const char *blk, char *why, size_t len);

/* Interrupts taken by the I/O queues (lines "<ctrl>q<N>", N >= 1: the
 * admin queue q0 is left out) of the given controllers, summed over all
 * CPUs, from a file in /proc/interrupts format.  Returns the number of
 * lines matched (0: none found) or -errno; *sum is set. */
int bb_nvme_queue_irqs(const char *path,
		       const char (*ctrls)[BB_NVME_NAME_LEN], unsigned nctrls,
		       uint64_t *sum);

/* NVMe fields of one namespace block device (sysfs name "nvme0n1"), for
 * bb_device_info(): {"controller","controllers","transport","address",
 * "model","serial","firmware","subsystem_nqn","nsid","lba_size",
 * "lba_count","capacity_bytes","block_path","char_path","mdts",
 * "max_hw_sectors_kb","poll_queues","io_poll","can_poll","poll_why"}.
 * Fields that cannot be read are null.  NULL when the name is not an NVMe
 * namespace. */
struct json_object *bb_nvme_ns_info(const char *blkname);

/* Every NVMe controller found by libnvme's scan, sorted by name:
 * [{"name","transport","address","model","serial","firmware",
 *   "subsystem","subsystem_nqn","state","queue_count","mdts",
 *   "poll_queues","namespaces": [bb_nvme_ns_info objects]}].
 * Never NULL: an empty array when there is no NVMe device. */
struct json_object *bb_nvme_controllers_info(void);

#endif
