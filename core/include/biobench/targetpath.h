/* SPDX-License-Identifier: GPL-2.0-only */
/* targetpath.h - the one canonicaliser of target paths (core/io/pin.c),
 * shared by the run (which opens the canonical path without following any
 * symlink) and the daemon's allow-list (which judges it); and the write
 * check the daemon makes at submission (core/io/inuse.c). */
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

/* Whether a write job may write target, judged now, the way the run
 * judges it when it opens the target for writing: a block device that is
 * mounted, held, has a partition in use, or is aliased through loop
 * devices by one that is (the message says which); a regular file with
 * hard links or backing a loop device in use.  0 when it may (also for
 * nop, a path that does not exist yet, or another kind: judged at the
 * run), else -EBUSY / -EPERM with a one-line message naming the target.
 * Nothing is opened for writing. */
int bb_target_write_check(const char *target, char *err, size_t len);

#endif
