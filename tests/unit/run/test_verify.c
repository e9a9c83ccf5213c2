// SPDX-License-Identifier: GPL-2.0-only
/* test_verify.c - the verify stamps catch every way a split piece can go
 * wrong: wrong device offset, wrong place in the buffer, never written,
 * stale generation, torn sector. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "run/verify.h"

#define BS (64u * 1024)
#define OFF (1u << 20)
#define GEN 7u

static char *block(uint64_t off, uint32_t gen)
{
	char *b = aligned_alloc(4096, BS);

	assert_non_null(b);
	bb_verify_stamp(b, BS, off, gen);
	return b;
}

static void intact_block_passes(void **state)
{
	char msg[256] = "";
	char *b = block(OFF, GEN);

	(void)state;
	assert_int_equal(bb_verify_check(b, BS, OFF, GEN, msg, sizeof(msg)), 0);
	free(b);
}

/* A 4 KiB piece at buffer +8K carries the data of device offset +12K: a
 * split that issued the piece at the wrong sector. */
static void misdirected_piece_is_caught(void **state)
{
	char msg[256] = "";
	char *b = block(OFF, GEN);
	char *other = block(OFF, GEN);

	(void)state;
	memcpy(b + 8192, other + 12288, 4096);
	assert_int_equal(bb_verify_check(b, BS, OFF, GEN, msg, sizeof(msg)),
			 -EILSEQ);
	/* the first bad sector is sector 16 (8192 / 512) */
	assert_non_null(strstr(msg, "sector +16"));
	assert_non_null(strstr(msg, "offset 1056768")); /* OFF + 12288 */
	free(b);
	free(other);
}

/* A piece shifted by one sector inside the buffer (wrong bvec offset). */
static void shifted_piece_is_caught(void **state)
{
	char msg[256] = "";
	char *b = block(OFF, GEN);

	(void)state;
	memmove(b + 4096 + 512, b + 4096, 4096);
	assert_int_equal(bb_verify_check(b, BS, OFF, GEN, msg, sizeof(msg)),
			 -EILSEQ);
	assert_non_null(strstr(msg, "sector +9"));
	free(b);
}

/* The last piece never reached the device: its sectors hold the previous
 * generation. */
static void stale_piece_is_caught(void **state)
{
	char msg[256] = "";
	char *b = block(OFF, GEN);
	char *old = block(OFF, GEN - 1);

	(void)state;
	memcpy(b + BS - 4096, old + BS - 4096, 4096);
	assert_int_equal(bb_verify_check(b, BS, OFF, GEN, msg, sizeof(msg)),
			 -EILSEQ);
	assert_non_null(strstr(msg, "generation 6"));
	free(b);
	free(old);
}

static void zeroed_piece_is_caught(void **state)
{
	char msg[256] = "";
	char *b = block(OFF, GEN);

	(void)state;
	memset(b + 512, 0, 512);
	assert_int_equal(bb_verify_check(b, BS, OFF, GEN, msg, sizeof(msg)),
			 -EILSEQ);
	assert_non_null(strstr(msg, "magic bad"));
	free(b);
}

static void torn_sector_is_caught(void **state)
{
	char msg[256] = "";
	char *b = block(OFF, GEN);
	struct bb_stamp *s = (struct bb_stamp *)(b + 3 * 512);

	(void)state;
	s->check ^= 1;
	assert_int_equal(bb_verify_check(b, BS, OFF, GEN, msg, sizeof(msg)),
			 -EILSEQ);
	assert_non_null(strstr(msg, "bad check word"));
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(intact_block_passes),
		cmocka_unit_test(misdirected_piece_is_caught),
		cmocka_unit_test(shifted_piece_is_caught),
		cmocka_unit_test(stale_piece_is_caught),
		cmocka_unit_test(zeroed_piece_is_caught),
		cmocka_unit_test(torn_sector_is_caught),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
