/* bb_layout.h - compile-time selection of the struct bio layout.
 *
 * Everything that touches struct bb_bio fields (bio.h, bioset.c, split.c,
 * the engine's per-I/O path) is compiled twice: once with -DBB_VEC_EARLY=0
 * (bi_io_vec in the second cache line, the layout before Dec 2025) and once
 * with -DBB_VEC_EARLY=1 (bi_io_vec in the first line).  Both builds share
 * one source; BB_L(name) appends _late or _early so both sets of symbols
 * live in one library and the run picks one at setup (never per I/O).
 */
#ifndef BB_LAYOUT_H
#define BB_LAYOUT_H

#ifndef BB_VEC_EARLY
#error "layout-dependent code must be compiled with -DBB_VEC_EARLY=0 or 1"
#endif

#if BB_VEC_EARLY
#define BB_L(name) name##_early
#define BB_LAYOUT_THIS BB_LAYOUT_VEC_EARLY
#else
#define BB_L(name) name##_late
#define BB_LAYOUT_THIS BB_LAYOUT_VEC_LATE
#endif

#endif
