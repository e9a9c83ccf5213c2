/* SPDX-License-Identifier: GPL-2.0-only */
/* path.h - the entry points of the code compiled once per struct bio
 * layout, as one ops table per layout (layout-independent header).
 *
 * core/path/ is built twice (layout.h); each build defines one table,
 * bb_path_ops_late or bb_path_ops_early.  The engine takes the table of
 * the run's bio_layout once, at setup, and calls through it; nothing else
 * outside core/path/ names a layout-suffixed symbol.
 */
#ifndef BB_PATH_PATH_H
#define BB_PATH_PATH_H

#include <biobench/common.h>

struct bb_path_ops {
	enum bb_layout layout;
	/* The submitter thread body: arg is a struct bb_worker_args
	 * (run/worker.h); returns NULL. */
	void *(*worker_main)(void *arg);
};

extern const struct bb_path_ops bb_path_ops_late;
extern const struct bb_path_ops bb_path_ops_early;

static inline const struct bb_path_ops *bb_path_ops_for(enum bb_layout l)
{
	return l == BB_LAYOUT_VEC_EARLY ? &bb_path_ops_early
					: &bb_path_ops_late;
}

#endif
