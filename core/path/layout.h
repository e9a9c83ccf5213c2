/* SPDX-License-Identifier: GPL-2.0-only */
/* layout.h - compile-time selection of the struct bio layout, and the one
 * list of every name that exists once per layout.
 *
 * The code under core/path/ (bio, bioset, split and the worker's hot loop)
 * touches struct bb_bio fields, so it is compiled twice: once with
 * -DBB_VEC_EARLY=0 (bi_io_vec in the second cache line, the kernel's
 * layout before Dec 2025) and once with -DBB_VEC_EARLY=1 (bi_io_vec in the
 * first line).  Both builds share one source; each name below is a macro
 * that appends _late or _early, so both sets of symbols live in one
 * library.  The engine picks one layout at setup through its ops table
 * (path.h), never per I/O.
 *
 * Debugging: in gdb, perf or callgrind output the functions appear with
 * their suffix (bb_bio_alloc_bioset_early, bb_worker_main_late, ...).  A
 * breakpoint on the unsuffixed name finds nothing; use the suffix of the
 * run's bio_layout (vec_early -> _early, vec_late -> _late), or
 * `rbreak ^bb_bio_alloc_bioset_` for both.  A link error naming an
 * unsuffixed symbol means a file that uses these names was compiled without
 * -DBB_VEC_EARLY (it belongs in BB_PATH_SOURCES, core/CMakeLists.txt), or
 * a name is missing from the list below.
 */
#ifndef BB_PATH_LAYOUT_H
#define BB_PATH_LAYOUT_H

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

/* bio.h */
#define bb_bio BB_L(bb_bio)
#define bb_bioset BB_L(bb_bioset)
#define bb_bio_chain_endio BB_L(bb_bio_chain_endio)
#define bb_bio_endio BB_L(bb_bio_endio)
/* bioset.h */
#define bb_bio_cache BB_L(bb_bio_cache)
#define bb_bioset_params BB_L(bb_bioset_params)
#define bb_bioset_init BB_L(bb_bioset_init)
#define bb_bioset_exit BB_L(bb_bioset_exit)
#define bb_bio_alloc_bioset BB_L(bb_bio_alloc_bioset)
#define bb_bio_alloc_bioset_slow BB_L(bb_bio_alloc_bioset_slow)
#define bb_bio_cache_take BB_L(bb_bio_cache_take)
#define bb_bioset_split_variant BB_L(bb_bioset_split_variant)
#define bb_bioset_caller_opf BB_L(bb_bioset_caller_opf)
#define bb_bio_clear_polled BB_L(bb_bio_clear_polled)
#define bb_bio_put_reffed BB_L(bb_bio_put_reffed)
#define bb_bio_alloc_clone BB_L(bb_bio_alloc_clone)
#define bb_bio_put BB_L(bb_bio_put)
#define bb_bio_free BB_L(bb_bio_free)
#define bb_bio_alloc_cache_prune BB_L(bb_bio_alloc_cache_prune)
#define bb_bioset_counters BB_L(bb_bioset_counters)
#define bb_bioset_cache_len BB_L(bb_bioset_cache_len)
#define bb_bioset_reserve_len BB_L(bb_bioset_reserve_len)
#define bb_bioset_check BB_L(bb_bioset_check)
/* split.h */
#define bb_bio_may_need_split_vcnt BB_L(bb_bio_may_need_split_vcnt)
#define bb_bio_may_need_split_iter BB_L(bb_bio_may_need_split_iter)
#define bb_get_max_io_size BB_L(bb_get_max_io_size)
#define bb_bio_split_rw_at BB_L(bb_bio_split_rw_at)
#define bb_bio_split BB_L(bb_bio_split)
#define bb_bio_split_after_check BB_L(bb_bio_split_after_check)
#define bb_bio_split_to_limits BB_L(bb_bio_split_to_limits)
/* worker.c */
#define bb_path_ops_this BB_L(bb_path_ops)

#endif
