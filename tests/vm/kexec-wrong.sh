#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The boot-job guest's "boot loader that falls back" (tests/vm/boots.sh):
# kexec with variant B's command line turned into A's, so that the boot
# into B lands on A's kernel and biobenchd must fail the job.
for a; do
	shift
	set -- "$@" "$(printf "%s\n" "$a" | sed "s/bbkernel=B/bbkernel=A/")"
done
exec /usr/bin/kexec "$@"
