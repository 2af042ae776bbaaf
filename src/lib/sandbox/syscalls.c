/* SPDX-License-Identifier: MIT */
/*
 * syscalls.c - the system call numbers skit's filters need, independent
 * of the build's headers (syscalls.h).
 */
#include "common.h"

#include <stddef.h>
#include <string.h>

#include "lib/sandbox/syscalls.h"
#include "util/alloc.h"

#ifdef __linux__
# include <errno.h>
# include <linux/audit.h>
# include <linux/seccomp.h>
#endif
#ifdef SKIT_HAVE_SECCOMP
# include <seccomp.h>
#endif

/*
 * The architectures whose numbers for calls 424 and up are the shared
 * ones (the kernel's syscall tables and asm-generic/unistd.h).
 */
#if defined(__linux__) && defined(__x86_64__) && !defined(__ILP32__)
# define NATIVE_ARCH AUDIT_ARCH_X86_64
#elif defined(__linux__) && defined(__i386__)
# define NATIVE_ARCH AUDIT_ARCH_I386
#elif defined(__linux__) && defined(__aarch64__) && !defined(__AARCH64EB__)
# define NATIVE_ARCH AUDIT_ARCH_AARCH64
#elif defined(__linux__) && defined(__arm__) && defined(__ARM_EABI__) && \
        !defined(__ARMEB__)
# define NATIVE_ARCH       AUDIT_ARCH_ARM
/* ARM's private calls (cacheflush, set_tls...) sit at 0x0f0000. */
# define ARM_PRIVATE_FIRST 0x0f0000u
# define ARM_PRIVATE_LAST  0x0f07ffu
#elif defined(__linux__) && defined(__riscv) && __riscv_xlen == 64
# define NATIVE_ARCH AUDIT_ARCH_RISCV64
#elif defined(__linux__) && defined(__s390x__)
# define NATIVE_ARCH AUDIT_ARCH_S390X
#elif defined(__linux__) && defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
# define NATIVE_ARCH AUDIT_ARCH_PPC64LE
#elif defined(__linux__) && defined(__loongarch64)
# define NATIVE_ARCH AUDIT_ARCH_LOONGARCH64
#endif

#ifdef NATIVE_ARCH
/* Calls 424 and up, in order: the shared numbers are 424 + index. */
static const char *const shared[] = {
	"pidfd_send_signal",
	"io_uring_setup",
	"io_uring_enter",
	"io_uring_register",
	"open_tree",
	"move_mount",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"pidfd_open",
	"clone3",
	"close_range",
	"openat2",
	"pidfd_getfd",
	"faccessat2",
	"process_madvise",
	"epoll_pwait2",
	"mount_setattr",
	"quotactl_fd",
	"landlock_create_ruleset",
	"landlock_add_rule",
	"landlock_restrict_self",
	"memfd_secret",
	"process_mrelease",
	"futex_waitv",
	"set_mempolicy_home_node",
	"cachestat",
	"fchmodat2",
	"map_shadow_stack",
	"futex_wake",
	"futex_wait",
	"futex_requeue",
	"statmount",
	"listmount",
	"lsm_get_self_attr",
	"lsm_set_self_attr",
	"lsm_list_modules",
	"mseal",
	"setxattrat",
	"getxattrat",
	"listxattrat",
	"removexattrat",
	"open_tree_attr",
	"file_getattr",
	"file_setattr",
};

/* The table ends exactly at the examined number. */
typedef char shared_table_ends_at_examined
        [424 + SKIT_ARRAY_SIZE(shared) - 1 == SKIT__SYSCALL_EXAMINED ? 1 : -1];
#endif

bool skit__syscall_arch_known(void)
{
#ifdef NATIVE_ARCH
	return true;
#else
	return false;
#endif
}

int skit__syscall_nr(const char *name)
{
	if (!name)
		return -1;
#ifdef SKIT_HAVE_SECCOMP
	{
		int nr = seccomp_syscall_resolve_name(name);

		if (nr >= 0)
			return nr;
	}
#endif
#ifdef NATIVE_ARCH
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(shared); i++)
		if (!strcmp(shared[i], name))
			return 424 + (int)i;
#endif
	return -1;
}

#ifdef __linux__
int skit__syscall_newer_filter(struct sock_fprog *prog)
{
# ifdef NATIVE_ARCH
	const struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, arch)),
		/* Another architecture: the next filter decides. */
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		         offsetof(struct seccomp_data, nr)),
#  ifdef ARM_PRIVATE_FIRST
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, ARM_PRIVATE_FIRST, 0, 2),
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, ARM_PRIVATE_LAST, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#  endif
		/* Unsigned: the x32 calls (bit 30) are above too. */
		BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, SKIT__SYSCALL_EXAMINED, 0,
		         1),
		BPF_STMT(BPF_RET | BPF_K,
		         SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter *copy = skitx_malloc(sizeof(code));

	if (!copy)
		return -1;
	memcpy(copy, code, sizeof(code));
	prog->filter = copy;
	prog->len = (unsigned short)SKIT_ARRAY_SIZE(code);
	return 0;
# else
	(void)prog;
	return -1;
# endif
}
#endif
