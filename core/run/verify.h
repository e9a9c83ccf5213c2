/* SPDX-License-Identifier: GPL-2.0-only */
/* verify.h - data verification stamps (layout-independent).
 *
 * Every 512-byte sector of a written block starts with a 32-byte stamp:
 * magic, the device offset of that sector, the block's write generation,
 * and a check word mixing both.  Reading a block back and checking every
 * sector catches each way a split can go wrong: a piece written to or read
 * from the wrong device offset (offset mismatch), a piece placed at the
 * wrong position in the buffer (offset mismatch), a piece never written
 * (stale generation or no magic), and torn sectors (check word). */
#ifndef BB_VERIFY_H
#define BB_VERIFY_H

#include <biobench/common.h>

#include <stddef.h>

#define BB_VERIFY_MAGIC 0x4242564552494659ull /* "BBVERIFY" */

struct bb_stamp {
	uint64_t magic;
	uint64_t dev_off;
	uint64_t gen;
	uint64_t check;
};

/* Stamp len bytes (a multiple of 512) of buf for device offset off. */
void bb_verify_stamp(char *buf, uint32_t len, uint64_t off, uint32_t gen);

/* Check a block read from off; 0 or -EILSEQ with the first bad sector
 * described in msg. */
int bb_verify_check(const char *buf, uint32_t len, uint64_t off,
		    uint32_t gen, char *msg, size_t mlen);

#endif
