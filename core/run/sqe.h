/* SPDX-License-Identifier: GPL-2.0-only */
/* sqe.h - how one I/O becomes one SQE (layout-independent, internal).
 *
 * Every kind of SQE the engine issues is composed once, at setup, into a
 * template: liburing's io_uring_prep_rw() with the kind's opcode, then one
 * tweak per kind (bb_sqe_tmpl_init):
 *   read/write       READ or WRITE, or READ_FIXED / WRITE_FIXED with buffer
 *                    index 0 (one registered buffer covers every slot), or
 *                    READV / WRITEV (vectored: the I/O's address is its
 *                    slot's iovec, its length 1, as t/io_uring -V1)
 *   NOP, plain       IORING_OP_NOP, no flags (t/io_uring -N1, fio 3.33)
 *   NOP, file        IORING_OP_NOP with IORING_NOP_FILE (| FIXED_FILE) |
 *                    FIXED_BUFFER | INJECT_RESULT (current t/io_uring -N1)
 *   NVMe passthrough IORING_OP_URING_CMD, NVME_URING_CMD_IO, the command's
 *                    opcode and namespace (SQE128)
 * plus IOSQE_FIXED_FILE for a registered file (the NOP kind says it with
 * its own flag instead).  The hot loop then copies the template into the
 * ring and sets what changes per I/O: address, length, offset and
 * user_data (bb_sqe_prep_rw), or the command's address, length, LBA range
 * and buffer index (bb_sqe_prep_nvme).  No per-I/O branch on the kind: the
 * loop is built for one of the two preps (path/worker.c).
 */
#ifndef BB_RUN_SQE_H
#define BB_RUN_SQE_H

#include <biobench/config.h>

#include "io/target.h"

#include <liburing.h>
#include <linux/nvme_ioctl.h>
#include <string.h>

/* The NOP flags (include/uapi/linux/io_uring.h, sqe->nop_flags, which is
 * sqe->rw_flags): liburing 2.3's header predates them. */
#ifndef IORING_NOP_INJECT_RESULT
#define IORING_NOP_INJECT_RESULT (1U << 0)
#endif
#ifndef IORING_NOP_FILE
#define IORING_NOP_FILE (1U << 1)
#endif
#ifndef IORING_NOP_FIXED_FILE
#define IORING_NOP_FIXED_FILE (1U << 2)
#endif
#ifndef IORING_NOP_FIXED_BUFFER
#define IORING_NOP_FIXED_BUFFER (1U << 3)
#endif

#define BB_NVME_CMD_WRITE 0x01
#define BB_NVME_CMD_READ 0x02

/* One template: 64 bytes, 128 for SQE128 (NVMe passthrough). */
struct bb_sqe_tmpl {
	struct io_uring_sqe sqe[2];
} bb_aligned_cl;

/* What a template is built from. */
struct bb_sqe_params {
	enum bb_sqe_kind kind;   /* the target's (io/target.h) */
	enum bb_nop_kind nop;    /* for BB_SQE_NOP */
	bool write;
	int fd;                  /* real fd, or the fixed-file index */
	bool fixed_file;         /* fd is an index into the registered files */
	bool fixed_buf;          /* registered buffers */
	bool vectored;           /* READV/WRITEV (not with fixed_buf) */
	uint32_t len;            /* bs: the NOP file kind's injected result */
	uint32_t nsid;           /* NVMe namespace */
};

/* Build a template (setup only). */
void bb_sqe_tmpl_init(struct bb_sqe_tmpl *t, const struct bb_sqe_params *p);

/* Read, write and NOP SQEs: the template, then the I/O. */
static inline void bb_sqe_prep_rw(struct io_uring_sqe *sqe,
				  const struct bb_sqe_tmpl *t, const void *addr,
				  uint32_t len, uint64_t off, uint64_t ud)
{
	*sqe = t->sqe[0];
	sqe->addr = (uint64_t)(uintptr_t)addr;
	sqe->len = len;
	sqe->off = off;
	sqe->user_data = ud;
}

/* NVMe passthrough (SQE128): the whole template (the command area holds
 * the previous command), then address, length, LBA range (cdw10/11 the
 * start, cdw12 the 0's based count) and, with registered buffers (one per
 * slot), the buffer's index. */
static inline void bb_sqe_prep_nvme(struct io_uring_sqe *sqe,
				    const struct bb_sqe_tmpl *t,
				    const void *addr, uint32_t len,
				    uint64_t off, uint64_t ud,
				    unsigned lba_shift, uint16_t buf_index)
{
	struct nvme_uring_cmd *cmd;
	uint64_t slba = off >> lba_shift;

	sqe[0] = t->sqe[0];
	sqe[1] = t->sqe[1];
	sqe->user_data = ud;
	sqe->buf_index = buf_index;
	cmd = (struct nvme_uring_cmd *)sqe->cmd;
	cmd->addr = (uint64_t)(uintptr_t)addr;
	cmd->data_len = len;
	cmd->cdw10 = (uint32_t)slba;
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (len >> lba_shift) - 1;
}

#endif
