/* SPDX-License-Identifier: MIT */
/*
 * syscalls.h - naming system calls for the sandbox's filters, whatever
 * the build's kernel headers and libseccomp know (library-internal).
 *
 * A seccomp filter can only refuse a call it can name. A build made with
 * older kernel headers (or an older libseccomp) than the running kernel
 * would otherwise let the newer calls through unexamined: fchmodat2 (452)
 * set a setuid bit past a file-mode rule compiled `#ifdef __NR_fchmodat2`.
 * So skit carries the numbers of every call up to SKIT__SYSCALL_EXAMINED
 * itself, and every number above that gets ENOSYS in the sandbox (an
 * allow-list for the future, as Docker's default profile is): a program
 * meets a kernel as old as the last one skit's authors examined.
 */
#ifndef SKIT_LIB_SYSCALLS_H
#define SKIT_LIB_SYSCALLS_H

#include "skit/common.h"

/*
 * The highest system call number examined (file_setattr, Linux 6.17), in
 * the numbering every architecture shares since Linux 5.1 (calls 424 and
 * up have one number everywhere but alpha and mips).
 */
#define SKIT__SYSCALL_EXAMINED 469

/*
 * The native number of the call `name`: libseccomp's, else skit's own
 * table of the shared numbers (424 and up). -1 when neither knows it on
 * this architecture, or the architecture has no such call.
 */
int skit__syscall_nr(const char *name);

/* Whether skit's table covers the native architecture (the unknown-call
 * filter and the table's numbers apply). */
bool skit__syscall_arch_known(void);

#ifdef __linux__
# include <linux/filter.h>

/*
 * Fill `prog` with a filter that answers ENOSYS to every native call
 * numbered above SKIT__SYSCALL_EXAMINED (and to the x32 ABI's calls on
 * x86_64) and allows the rest; other architectures' calls are left to
 * the next filter. The program is allocated with skitx_malloc().
 * @return 0; -1 on an architecture skit has no numbers for, or out of
 *         memory (`prog` untouched)
 */
int skit__syscall_newer_filter(struct sock_fprog *prog);
#endif

#endif
