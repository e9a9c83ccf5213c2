/* SPDX-License-Identifier: GPL-2.0-only */
/* devices_local.h - `biobench devices` on this host (no daemon): NVMe
 * controllers and namespaces (libnvme: model, serial, firmware, nsid, LBA
 * size, capacity, block and char device paths, MDTS, poll queues) and
 * every block device with its queue limits and whether it can poll. */
#ifndef BB_CLI_DEVICES_LOCAL_H
#define BB_CLI_DEVICES_LOCAL_H

/* argv[0] is the command name; options: --json (one JSON document:
 * {"host": bb_host_info, "nvme_controllers": bb_nvme_controllers_info,
 *  "devices": bb_devices_info}, the devices as in GET /api/v1/devices),
 * --help.  Returns the exit code: 0 ok, 1 failure, 2 usage error. */
int bb_cmd_devices_local(int argc, char **argv);

#endif
