// SPDX-License-Identifier: MIT
/*
 * io_uring submission failures through seccomp SECCOMP_RET_TRAP; see
 * uring-inject.h.  Modelled on refuse() in tests/helpers.c.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "helpers.h"
#include "uring-inject.h"

/*
 * liburing passes sz = _NSIG / 8 with a NULL sigset, and the kernel ignores
 * sz then; a re-issued call carries this instead and passes the filter.
 */
#define UI_MAGIC 0x5eca1u

static volatile int ui_err;
static volatile unsigned long ui_left, ui_count;

unsigned long ui_refused(void)
{
	return ui_count;
}

#ifdef __x86_64__
static void on_sigsys(int sig, siginfo_t *info, void *uctx)
{
	greg_t *r = ((ucontext_t *)uctx)->uc_mcontext.gregs;

	if (ui_left) {
		ui_left--;
		ui_count++;
		r[REG_RAX] = -ui_err;
		return;
	}
	r[REG_RAX] = syscall(SYS_io_uring_enter, r[REG_RDI], r[REG_RSI],
			     r[REG_RDX], r[REG_R10], r[REG_R8], UI_MAGIC);
	if ((long)r[REG_RAX] < 0)
		r[REG_RAX] = -errno;
}

void ui_install(int err, unsigned long count)
{
	struct sock_filter prog_insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_enter, 0, 4),
		/* to_submit == 0: only waiting, allow */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 2, 0),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[5])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, UI_MAGIC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
	};
	struct sock_fprog prog = {
		.len = sizeof(prog_insns) / sizeof(prog_insns[0]),
		.filter = prog_insns,
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	ui_err = err;
	ui_left = count;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
		t_skip("seccomp filters are not available: %s", strerror(errno));
}
#else
void ui_install(int err, unsigned long count)
{
	t_skip("io_uring fault injection is written for x86-64 only");
}
#endif
