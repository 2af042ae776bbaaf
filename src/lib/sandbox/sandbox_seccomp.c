/* SPDX-License-Identifier: MIT */
/*
 * sandbox_seccomp.c - the seccomp filters of a confined run, built with
 * libseccomp in P and exported as BPF into the plan; C loads them with a
 * bare prctl() (exec_program() in sandbox.c), after the filter of
 * syscalls.h that gives ENOSYS to calls newer than skit examined.
 *
 * The system-call filter (skit__sandbox_seccomp_build()): the refused
 * list, namespaces from clone(), personality(), terminal injection,
 * io_uring, and the sockets the run's network allows. The file-mode
 * filter (skit__sandbox_fsmode_build()): no setuid or setgid bit on any
 * file. docs/sandbox.md gives the reason for each rule.
 */
#define _GNU_SOURCE /* pipe2, O_TMPFILE: before any header */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__linux__) && defined(SKIT_HAVE_SECCOMP)
# include <sys/ioctl.h>
# include <sys/socket.h>
# include <seccomp.h>
#endif

#include "lib/sandbox/sandbox_int.h"
#include "lib/sandbox/sandbox_plan.h"
#include "lib/sandbox/syscalls.h"

#if defined(__linux__) && defined(SKIT_HAVE_SECCOMP)
/*
 * System calls refused with EPERM in every confined run: at least what
 * the reference profile for untrusted containers (Docker's default)
 * refuses a container without extra capabilities, and a few more. The
 * reason for each group is in docs/sandbox.md. Names are resolved by
 * skit__syscall_nr() (libseccomp, else skit's own table); a name the
 * native architecture lacks (vm86, stime on x86_64) is skipped: every
 * other architecture is killed anyway, and calls newer than skit's
 * table get ENOSYS from the filter of syscalls.h.
 */
static const char *const refused[] = {
	/* Reading other processes and the kernel. */
	"perf_event_open",
	"bpf",
	"ptrace",
	"process_vm_readv",
	"process_vm_writev",
	"process_madvise",
	"kcmp",
	"pidfd_getfd",
	"userfaultfd",
	"syslog",
	"lookup_dcookie",
	"open_by_handle_at",
	"name_to_handle_at",
	/* Kernel keyrings (the run has its own session keyring too). */
	"add_key",
	"request_key",
	"keyctl",
	/* Host-wide state: clock, names, accounting, quotas, swap. */
	"clock_settime",
	"clock_settime64",
	"clock_adjtime",
	"clock_adjtime64",
	"adjtimex",
	"settimeofday",
	"stime",
	"sethostname",
	"setdomainname",
	"acct",
	"quotactl",
	"quotactl_fd",
	"swapon",
	"swapoff",
	"reboot",
	"vhangup",
	"nfsservctl",
	/* Kernel modules and kexec. */
	"init_module",
	"finit_module",
	"delete_module",
	"create_module",
	"get_kernel_syms",
	"query_module",
	"kexec_load",
	"kexec_file_load",
	/* Mounts and namespaces, once the sandbox is set up. */
	"mount",
	"umount",
	"umount2",
	"pivot_root",
	"chroot",
	"unshare",
	"setns",
	"fsopen",
	"fsconfig",
	"fsmount",
	"fspick",
	"move_mount",
	"open_tree",
	"mount_setattr",
	"open_tree_attr",
	"fanotify_init",
	/* Hardware ports, old ABIs and obsolete calls. */
	"iopl",
	"ioperm",
	"vm86",
	"vm86old",
	"uselib",
	"ustat",
	"sysfs",
	"_sysctl",
	/* NUMA placement of other processes' memory. */
	"mbind",
	"set_mempolicy",
	"set_mempolicy_home_node",
	"get_mempolicy",
	"migrate_pages",
	"move_pages",
};

/* clone() flags that make a namespace (CLONE_NEWNS .. CLONE_NEWNET). */
static const scmp_datum_t clone_ns[] = { 0x00020000, 0x02000000, 0x04000000,
	                                 0x08000000, 0x10000000, 0x20000000,
	                                 0x40000000 };

/*
 * personality() is allowed only for the values Docker allows: 0
 * (PER_LINUX), 8 (PER_LINUX32), 0x20000 (UNAME26), 0x20008 and
 * 0xffffffff (the query); ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC,
 * MMAP_PAGE_ZERO and the foreign personas are refused. libseccomp takes
 * one comparison per argument and rule, so the refusal is a ring of
 * rules: "bit i set and bit next(i) clear" over the bits outside 0x20008
 * catches every value with such a bit unless all of them are set; two
 * more rules catch those values when bit 3 or 17 is clear. 0xffffffff
 * matches none.
 */
static int refuse_personality(scmp_filter_ctx ctx, int nr)
{
	const uint32_t ok = 0x20008;
	uint32_t bits[32];
	int n = 0, rc = 0;

	for (int b = 0; b < 32; b++)
		if (!(ok & (1u << b)))
			bits[n++] = 1u << b;
	for (int i = 0; i < n; i++) {
		uint32_t next = bits[(i + 1) % n];

		rc |= seccomp_rule_add(
		        ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
		        SCMP_A0(SCMP_CMP_MASKED_EQ, bits[i] | next, bits[i]));
	}
	rc |= seccomp_rule_add(
	        ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
	        SCMP_A0(SCMP_CMP_MASKED_EQ, ~ok | 0x8u, ~ok & 0xffffffffu));
	rc |= seccomp_rule_add(
	        ctx, SCMP_ACT_ERRNO(EPERM), nr, 1,
	        SCMP_A0(SCMP_CMP_MASKED_EQ, ~ok | 0x20000u, ~ok & 0xffffffffu));
	return rc;
}

/* Export a libseccomp filter into `prog` (through a pipe: libseccomp
 * 2.5 has no export to memory). */
static void export_bpf(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	struct sock_filter *code = NULL;
	int pfd[2] = { -1, -1 };
	size_t len = 0, room = 64 * 1024;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	n = seccomp_export_bpf(ctx, pfd[1]);
	close(pfd[1]);
	code = n ? NULL : skitx_malloc(room);
	while (code && len < room) {
		n = read(pfd[0], (char *)code + len, room - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(pfd[0]);
	if (!code || !len || len % sizeof(*code) || len >= room) {
		skitx_free(code);
		return;
	}
	prog->filter = code;
	prog->len = (unsigned short)(len / sizeof(*code));
}

/*
 * Build the system-call filter with libseccomp and export it as BPF
 * (export_bpf()). The program is a few hundred bytes, well below the
 * pipe's buffer.
 */
void skit__sandbox_seccomp_build(struct plan *p, const struct skit__run_opts *o)
{
	const scmp_datum_t ioctls[] = { TIOCSTI, TIOCLINUX };
	const int urings[] = { skit__syscall_nr("io_uring_setup"),
		               skit__syscall_nr("io_uring_enter"),
		               skit__syscall_nr("io_uring_register") };
	scmp_filter_ctx ctx;
	int rc = 0;

	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return;
	/* TIOCSTI/TIOCLINUX push keystrokes into a terminal (E2). The
	 * command is an int: compare its low 32 bits only. */
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(ioctls); i++)
		rc |= seccomp_rule_add(
		        ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
		        SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, ioctls[i]));
	/* io_uring can open sockets past a socket() rule. ENOSYS makes
	 * programs fall back to plain system calls. */
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(urings); i++)
		if (urings[i] >= 0)
			rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
			                       urings[i], 0);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(refused); i++) {
		int nr = skit__syscall_nr(refused[i]);

		if (nr >= 0)
			rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr,
			                       0);
	}
	/* No new namespace from clone(); clone3() passes its flags in
	 * memory the filter cannot read, so it gets ENOSYS and libc falls
	 * back to clone(). */
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(clone_ns); i++)
		rc |= seccomp_rule_add(
		        ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
		        SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns[i], clone_ns[i]));
	if (skit__syscall_nr("clone3") >= 0)
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
		                       skit__syscall_nr("clone3"), 0);
	rc |= refuse_personality(ctx, SCMP_SYS(personality));
	/* AF_VSOCK reaches the hypervisor, whatever the network says. */
	rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
	                       SCMP_A0(SCMP_CMP_EQ, AF_VSOCK));
	if (!o->allow_network && skit__sandbox_web_proxy(o)) {
		/* Only the proxy: AF_UNIX, and AF_INET stream sockets, whose
		 * connect() can reach nothing but the namespace's loopback
		 * (the proxy listens there); no UDP, raw or IPv6 socket. One
		 * comparison per argument and rule: hence a rule per type. */
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		                       SCMP_SYS(socket), 1,
		                       SCMP_A0(SCMP_CMP_GT, AF_INET));
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		                       SCMP_SYS(socket), 1,
		                       SCMP_A0(SCMP_CMP_EQ, AF_UNSPEC));
		for (scmp_datum_t t = 0; t < 16; t++)
			if (t != SOCK_STREAM)
				rc |= seccomp_rule_add(
				        ctx, SCMP_ACT_ERRNO(EACCES),
				        SCMP_SYS(socket), 2,
				        SCMP_A0(SCMP_CMP_EQ, AF_INET),
				        SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, t));
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		                       SCMP_SYS(sendto), 1,
		                       SCMP_A4(SCMP_CMP_NE, 0));
	} else if (!o->allow_network) {
		/* No socket but AF_UNIX; and no connect() or addressed
		 * sendto() at all, so that AF_UNIX cannot reach a host
		 * daemon (a resolver, D-Bus, docker.sock) either. */
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		                       SCMP_SYS(socket), 1,
		                       SCMP_A0(SCMP_CMP_NE, AF_UNIX));
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		                       SCMP_SYS(connect), 0);
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES),
		                       SCMP_SYS(sendto), 1,
		                       SCMP_A4(SCMP_CMP_NE, 0));
	}
	if (!rc)
		export_bpf(ctx, &p->prog);
	seccomp_release(ctx);
}

/*
 * The file-mode filter: no setuid or setgid bit on a file, by chmod or at
 * creation (EPERM). A second filter, so that it stays apart from the
 * system-call policy of skit__sandbox_seccomp_build(). openat2() takes its mode
 * in a structure seccomp cannot read: ENOSYS, so callers fall back to openat().
 */
void skit__sandbox_fsmode_build(struct plan *p)
{
	const scmp_datum_t bits[] = { S_ISUID, S_ISGID };
	/* system call, index of the mode argument, index of the flags
	 * argument (-1: none; else only with O_CREAT or O_TMPFILE), and
	 * whether every architecture has it (then a name that cannot be
	 * resolved leaves no filter at all: the layer reports missing). */
	const struct {
		const char *name;
		int mode, flags;
		bool everywhere;
	} calls[] = {
		{ "chmod", 1, -1, false },   { "fchmod", 1, -1, true },
		{ "fchmodat", 2, -1, true }, { "fchmodat2", 2, -1, true },
		{ "creat", 1, -1, false },   { "mknod", 1, -1, false },
		{ "mknodat", 2, -1, true },  { "open", 2, 1, false },
		{ "openat", 3, 2, true },
	};
	const scmp_datum_t creating[] = { O_CREAT, O_TMPFILE };
	scmp_filter_ctx ctx;
	int rc = 0, nr;

	if (!skit__syscall_arch_known())
		return;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(calls); i++) {
		nr = skit__syscall_nr(calls[i].name);
		if (nr < 0) {
			if (calls[i].everywhere)
				rc = -1;
			continue;
		}
		for (size_t b = 0; b < SKIT_ARRAY_SIZE(bits); b++) {
			struct scmp_arg_cmp m = { (unsigned int)calls[i].mode,
				                  SCMP_CMP_MASKED_EQ, bits[b],
				                  bits[b] };

			if (calls[i].flags < 0) {
				rc |= seccomp_rule_add_array(
				        ctx, SCMP_ACT_ERRNO(EPERM), nr, 1, &m);
				continue;
			}
			for (size_t c = 0; c < SKIT_ARRAY_SIZE(creating); c++) {
				struct scmp_arg_cmp two[2] = {
					m,
					{ (unsigned int)calls[i].flags,
					  SCMP_CMP_MASKED_EQ, creating[c],
					  creating[c] },
				};

				rc |= seccomp_rule_add_array(
				        ctx, SCMP_ACT_ERRNO(EPERM), nr, 2, two);
			}
		}
	}
	nr = skit__syscall_nr("openat2");
	if (nr < 0)
		rc = -1;
	else
		rc |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	if (!rc)
		export_bpf(ctx, &p->modes);
	seccomp_release(ctx);
}
#endif /* __linux__ && SKIT_HAVE_SECCOMP */
