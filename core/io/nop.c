// SPDX-License-Identifier: GPL-2.0-only
/* nop.c - the nop target: io_uring NOPs, no device.  It measures the
 * stack (the ring and the bio model) without a device; its queue limits
 * are synthetic (the config's, defaults filled) and its region is 1 GiB
 * unless --size says otherwise, so that offsets and splits are computed as
 * for a device. */
#include "io/target.h"

#include <errno.h>

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
