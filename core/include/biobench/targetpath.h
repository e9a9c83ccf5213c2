/* SPDX-License-Identifier: GPL-2.0-only */
/* targetpath.h - the one canonicaliser of target paths (core/io/pin.c),
 * shared by the run (which opens the canonical path without following any
 * symlink) and the daemon's allow-list (which judges it). */
#ifndef BB_TARGETPATH_H
#define BB_TARGETPATH_H

#include <stddef.h>

/* The canonical form of a target path into out (outlen >= PATH_MAX):
 * realpath() when it exists; for a file that does not exist yet,
 * realpath() of its directory plus its name.  Refused (-errno, the reason
 * in why): an empty path, a trailing '/' (-EISDIR: a target is not a
 * directory), a dangling symlink (-ENOENT: "a symlink to a missing
 * file"), a name of "." or "..", a missing directory.  Relative paths are
 * resolved against the working directory (the daemon refuses them before
 * asking).  Nothing is opened. */
int bb_target_canonical(const char *target, char *out, size_t outlen,
			char *why, size_t whylen);

#endif
