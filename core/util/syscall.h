/* SPDX-License-Identifier: GPL-2.0-only */
/* syscall.h - io_uring_enter(2) as one inline system call, for the hot
 * loop: no libc or liburing call frame around it, -errno on failure (as
 * liburing's own inline syscalls and fio's t/io_uring do on x86-64 and
 * arm64; other architectures go through libc's syscall(2)). */
#ifndef BB_UTIL_SYSCALL_H
#define BB_UTIL_SYSCALL_H

#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_io_uring_enter
#define __NR_io_uring_enter 426
#endif

static inline long bb_sys_io_uring_enter(int fd, unsigned to_submit,
					 unsigned min_complete, unsigned flags)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = (long)flags;
	register long r8 __asm__("r8") = 0; /* sigset */
	register long r9 __asm__("r9") = 0; /* its size */

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"((long)__NR_io_uring_enter), "D"((long)fd),
			   "S"((long)to_submit), "d"((long)min_complete),
			   "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = __NR_io_uring_enter;
	register long x0 __asm__("x0") = (long)fd;
	register long x1 __asm__("x1") = (long)to_submit;
	register long x2 __asm__("x2") = (long)min_complete;
	register long x3 __asm__("x3") = (long)flags;
	register long x4 __asm__("x4") = 0;
	register long x5 __asm__("x5") = 0;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4),
			   "r"(x5)
			 : "memory");
	return x0;
#else
	long ret = syscall(__NR_io_uring_enter, fd, to_submit, min_complete,
			   flags, NULL, 0);

	return ret < 0 ? -errno : ret;
#endif
}

#endif
