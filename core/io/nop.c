// SPDX-License-Identifier: GPL-2.0-only
/* nop.c - the nop target: io_uring NOPs, no device.  It measures the
 * stack (the ring and the bio model) without a device; its queue limits
 * are synthetic (the config's, defaults filled) and its region is 1 GiB
 * unless --size says otherwise, so that offsets and splits are computed as
 * for a device.  With --nop-kind file the NOPs name a file (t/io_uring
 * -N1's kind): an anonymous memfd stands for it, since the kernel's work
 * for such a NOP (the file's and the buffer's lookup) does not depend on
 * the file. */
#include "io/target.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

static int nop_open(struct bb_target *t, const struct bb_config *cfg,
		    struct bb_target_pin *pin, char *err, size_t errlen)
{
	(void)pin;
	if (cfg->mode == BB_MODE_POLL)
		return bb_errf(err, errlen, -EOPNOTSUPP,
			       "--mode poll: the nop target has no device "
			       "to poll; use --mode irq or --mode sqpoll");
	if (cfg->verify)
		return bb_errf(err, errlen, -EINVAL,
			       "--verify needs a file or block device "
			       "target (nop moves no data)");
	if (cfg->nop_kind == BB_NOP_FILE) {
		t->fd = memfd_create("biobench-nop", MFD_CLOEXEC);
		if (t->fd < 0)
			return bb_errf(err, errlen, -errno,
				       "--nop-kind file: memfd_create: %s",
				       strerror(errno));
	}
	t->region_off = 0;
	t->region_len = cfg->size ? cfg->size : (1ull << 30);
	t->region_len -= t->region_len % cfg->bs;
	return bb_target_apply_limits(&t->lim, cfg, false, err, errlen);
}

const struct bb_target_ops bb_target_nop = {
	.name = "nop",
	.kind = BB_TARGET_NOP,
	.sqe = BB_SQE_NOP,
	.open = nop_open,
};
