// SPDX-License-Identifier: GPL-2.0-only
/* sqe.c - the SQE templates (see sqe.h): io_uring_prep_rw() plus one tweak
 * per kind. */
#include "run/sqe.h"

void bb_sqe_tmpl_init(struct bb_sqe_tmpl *t, const struct bb_sqe_params *p)
{
	struct io_uring_sqe *sqe = &t->sqe[0];
	unsigned op;

	memset(t, 0, sizeof(*t));
	switch (p->kind) {
	case BB_SQE_NOP:
		/* the NOP's file is named by its own flag, not by
		 * IOSQE_FIXED_FILE, and it takes no address */
		io_uring_prep_rw(IORING_OP_NOP, sqe, -1, NULL, 0, 0);
		if (p->nop == BB_NOP_FILE) {
			sqe->fd = p->fd;
			sqe->rw_flags = IORING_NOP_FILE | IORING_NOP_INJECT_RESULT |
					(p->fixed_file ? IORING_NOP_FIXED_FILE : 0) |
					(p->fixed_buf ? IORING_NOP_FIXED_BUFFER : 0);
			sqe->len = p->len; /* the result the kernel injects */
		}
		return;
	case BB_SQE_RW:
		if (p->fixed_buf)
			op = p->write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
		else if (p->vectored)
			op = p->write ? IORING_OP_WRITEV : IORING_OP_READV;
		else
			op = p->write ? IORING_OP_WRITE : IORING_OP_READ;
		io_uring_prep_rw(op, sqe, p->fd, NULL, 0, 0);
		sqe->buf_index = 0; /* one registered buffer for all slots */
		break;
	case BB_SQE_NVME_CMD: {
		struct nvme_uring_cmd *cmd = (struct nvme_uring_cmd *)sqe->cmd;

		io_uring_prep_rw(IORING_OP_URING_CMD, sqe, p->fd, NULL, 0, 0);
		sqe->cmd_op = NVME_URING_CMD_IO;
		if (p->fixed_buf)
			sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		cmd->opcode = p->write ? BB_NVME_CMD_WRITE : BB_NVME_CMD_READ;
		cmd->nsid = p->nsid;
		break;
	}
	}
	if (p->fixed_file)
		sqe->flags |= IOSQE_FIXED_FILE;
}
