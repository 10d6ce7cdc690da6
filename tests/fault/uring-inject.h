/* SPDX-License-Identifier: MIT */
/*
 * Make io_uring submission fail for real: a seccomp filter traps every
 * io_uring_enter(2) that submits entries, and the SIGSYS handler answers the
 * first @count of them with -@err, as the kernel does when it cannot
 * allocate requests (EAGAIN) or memory (ENOMEM); later ones are re-issued
 * for real.  Waiting for completions is never touched.  x86-64 only.
 */
#ifndef PC_FAULT_URING_INJECT_H
#define PC_FAULT_URING_INJECT_H

/* Install in this process (a forked child: it cannot be undone); skips. */
void ui_install(int err, unsigned long count);

/* Submissions refused so far. */
unsigned long ui_refused(void);

#endif
