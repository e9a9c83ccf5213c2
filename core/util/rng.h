/* SPDX-License-Identifier: GPL-2.0-only */
/* rng.h - the one pseudo-random generator of libbiobench: xoshiro256**
 * (Blackman and Vigna), seeded from one 64-bit value by splitmix64.
 * Internal, header-only: the worker's offsets, the job plan's random order
 * and the bootstrap of the A/B statistics all draw from it, so a seed means
 * the same stream everywhere. */
#ifndef BB_UTIL_RNG_H
#define BB_UTIL_RNG_H

#include <stdint.h>

struct bb_rng {
	uint64_t s[4];
};

static inline uint64_t bb_splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static inline void bb_rng_seed(struct bb_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = bb_splitmix64(&seed);
}

static inline uint64_t bb_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t bb_rng_next(struct bb_rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = bb_rng_rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = bb_rng_rotl(s[3], 45);
	return res;
}

/* In [0, n) by one multiply (Lemire), without the rejection step: the bias
 * is below n / 2^64, nothing for block offsets or a shuffle of a few
 * variants.  For the hot path. */
static inline uint64_t bb_rng_below_fast(struct bb_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)bb_rng_next(r) * n) >> 64);
}

/* In [0, n), exactly uniform (Lemire's multiply-and-reject). */
static inline uint64_t bb_rng_below(struct bb_rng *r, uint64_t n)
{
	unsigned __int128 m = (unsigned __int128)bb_rng_next(r) * n;
	uint64_t l = (uint64_t)m;

	if (l < n) {
		uint64_t t = -n % n;

		while (l < t) {
			m = (unsigned __int128)bb_rng_next(r) * n;
			l = (uint64_t)m;
		}
	}
	return (uint64_t)(m >> 64);
}

#endif
