/* SPDX-License-Identifier: GPL-2.0-only */
/* ThreadSanitizer annotations for orderings TSan cannot see.
 *
 * liburing talks to the kernel with raw syscalls, so TSan sees neither the
 * ring's mmap/munmap nor the ordering a submission and its completion give.
 * bb_tsan_acquire/bb_tsan_release mark a happens-before edge on an address;
 * they compile to nothing outside TSan builds. */
#ifndef BB_RUN_TSAN_H
#define BB_RUN_TSAN_H

#if defined(__SANITIZE_THREAD__)
#define BB_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define BB_TSAN 1
#endif
#endif

#ifdef BB_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define bb_tsan_acquire(p) __tsan_acquire((void *)(p))
#define bb_tsan_release(p) __tsan_release((void *)(p))
#else
#define bb_tsan_acquire(p) ((void)0)
#define bb_tsan_release(p) ((void)0)
#endif

#endif
