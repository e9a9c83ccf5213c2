// SPDX-License-Identifier: GPL-2.0-only
/* verify.c - data verification stamps. */
#include "run/verify.h"

#include <errno.h>
#include <stdio.h>

static inline uint64_t stamp_check(uint64_t off, uint64_t gen)
{
	uint64_t x = off * 0x9E3779B97F4A7C15ull ^ (gen + 0x632BE59BD9B4E019ull);

	x ^= x >> 31;
	return x * 0xBF58476D1CE4E5B9ull;
}

void bb_verify_stamp(char *buf, uint32_t len, uint64_t off, uint32_t gen)
{
	for (uint32_t i = 0; i < len; i += BB_SECTOR_SIZE) {
		struct bb_stamp *s = (struct bb_stamp *)(buf + i);

		s->magic = BB_VERIFY_MAGIC;
		s->dev_off = off + i;
		s->gen = gen;
		s->check = stamp_check(off + i, gen);
	}
}

int bb_verify_check(const char *buf, uint32_t len, uint64_t off,
		    uint32_t gen, char *msg, size_t mlen)
{
	for (uint32_t i = 0; i < len; i += BB_SECTOR_SIZE) {
		const struct bb_stamp *s = (const struct bb_stamp *)(buf + i);

		if (s->magic != BB_VERIFY_MAGIC || s->dev_off != off + i ||
		    s->gen != gen || s->check != stamp_check(off + i, gen)) {
			snprintf(msg, mlen,
				 "verify: block at offset %llu, sector +%u: "
				 "expected stamp (offset %llu, generation %u), "
				 "found (magic %s, offset %llu, generation %llu%s)",
				 (unsigned long long)off, i / BB_SECTOR_SIZE,
				 (unsigned long long)(off + i), gen,
				 s->magic == BB_VERIFY_MAGIC ? "ok" : "bad",
				 (unsigned long long)s->dev_off,
				 (unsigned long long)s->gen,
				 s->check == stamp_check(s->dev_off, s->gen) ?
					 "" : ", bad check word");
			return -EILSEQ;
		}
	}
	return 0;
}
