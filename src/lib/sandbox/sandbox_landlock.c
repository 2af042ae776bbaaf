/* SPDX-License-Identifier: MIT */
/*
 * sandbox_landlock.c - the Landlock ruleset of a confined run: what every
 * run may read and execute (the system folders and a part of /etc), what
 * it may also write (a few devices, its writable folders), what a full
 * access run gets (everything), and, with the web proxy, the one TCP
 * port it may connect to. docs/sandbox.md says why.
 *
 * P builds the ruleset before fork() (skit__sandbox_ll_build(), called
 * from plan_build() in sandbox.c); C only calls landlock_restrict_self()
 * on it (exec_program()). A path that does not exist grants nothing; a
 * ruleset that cannot be built whole is not used, and the run reports
 * Landlock missing.
 */
#define _GNU_SOURCE /* O_PATH: before any header */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef __linux__
# include <linux/landlock.h>
# include <sys/syscall.h>
#endif

#include "lib/sandbox/sandbox_int.h"
#include "lib/sandbox/sandbox_plan.h"

#ifdef __linux__
/*
 * Landlock rights newer than the kernel headers this may be built with
 * (Debian 12 ships ABI 2). Values are the kernel's UAPI.
 */
# ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#  define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
# endif
# ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#  define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
# endif
# ifndef LANDLOCK_ACCESS_NET_BIND_TCP
#  define LANDLOCK_ACCESS_NET_BIND_TCP    (1ULL << 0) /* ABI 4 */
#  define LANDLOCK_ACCESS_NET_CONNECT_TCP (1ULL << 1)
# endif
# ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#  define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#  define LANDLOCK_SCOPE_SIGNAL               (1ULL << 1)
# endif

# define LL_FS_ABI1 ((1ULL << 13) - 1) /* EXECUTE .. MAKE_SYM */
# define LL_RO                                                 \
  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_READ_FILE | \
   LANDLOCK_ACCESS_FS_READ_DIR)
/* The rights a rule on a file (not a folder) may carry. */
# define LL_FILE                                                \
  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
   LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
   LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* struct landlock_ruleset_attr as of ABI 6; older kernels get a prefix. */
struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/*
 * Read-only (and executable) for every run: the system folders. /etc is
 * not given whole (it holds host keys and, for root, /etc/shadow): only
 * what the loader, libc, Python, Perl and TLS read. /opt, /home, /root,
 * /tmp, /var, /run, /srv, /mnt, /proc and /sys are not given at all.
 */
static const char *const system_ro[] = {
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/etc/ld.so.cache",
	"/etc/ld.so.conf",
	"/etc/ld.so.conf.d",
	"/etc/ld.so.preload",
	"/etc/alternatives",
	"/etc/localtime",
	"/etc/timezone",
	"/etc/passwd",
	"/etc/group",
	"/etc/nsswitch.conf",
	"/etc/hosts",
	"/etc/host.conf",
	"/etc/resolv.conf",
	"/etc/gai.conf",
	"/etc/protocols",
	"/etc/services",
	"/etc/ssl",
	"/etc/ca-certificates",
	"/etc/pki",
	"/etc/crypto-policies",
	"/etc/mime.types",
	"/etc/magic",
	"/etc/locale.alias",
	"/etc/locale.conf",
	"/etc/os-release",
	"/etc/debian_version",
	"/etc/bash.bashrc",
	"/etc/profile",
	"/etc/inputrc",
	"/etc/shells",
	"/etc/terminfo",
	"/etc/fonts",
	/* git stops at a system config it may not read. */
	"/etc/gitconfig",
	"/etc/gitattributes",
	"/dev/random",
	"/dev/urandom",
};

/* Folders under /etc given read-only by name prefix (python3.11, perl). */
static const char *const etc_prefixes[] = { "python", "perl" };

/* Devices a script may also write to (and truncate: `> /dev/null`). */
static const char *const system_rw_dev[] = { "/dev/null", "/dev/zero",
	                                     "/dev/full" };

int skit__sandbox_ll_abi(void)
{
	long v;

	if (skit__sandbox_disabled & SKIT_SANDBOX_LANDLOCK)
		return 0;
	v = syscall(SYS_landlock_create_ruleset, NULL, 0,
	            LANDLOCK_CREATE_RULESET_VERSION);

	return v < 0 ? 0 : (int)v;
}

/* Every file-system right of this ABI, as the kernel docs prescribe. */
static uint64_t ll_fs_rights(int abi)
{
	uint64_t r = LL_FS_ABI1;

	if (abi >= 2)
		r |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		r |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	return r;
}

/*
 * Allow `access` (within `handled`) beneath `path`. A path that does not
 * exist grants nothing and is no error; a file gets only file rights.
 */
static int ll_allow(int rs, const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr pb;
	struct stat st;
	long r;
	int fd;

	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ||
		                       errno == ELOOP
		               ? 0
		               : -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		access &= LL_FILE;
	memset(&pb, 0, sizeof(pb));
	pb.allowed_access = access & handled;
	pb.parent_fd = fd;
	r = syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb,
	            0);
	close(fd);
	return r < 0 ? -1 : 0;
}

/*
 * With the web proxy, TCP connect() to its port is the one network right
 * (the namespace has nothing else to reach on any port anyway). The
 * struct and rule type are the kernel's UAPI of ABI 4.
 */
static int ll_allow_proxy_port(int rs)
{
	struct {
		uint64_t allowed_access;
		uint64_t port;
	} __attribute__((packed))
	np = { LANDLOCK_ACCESS_NET_CONNECT_TCP, SKIT__PROXY_PORT };

	return syscall(SYS_landlock_add_rule, rs, 2 /* RULE_NET_PORT */, &np,
	               0) < 0
	               ? -1
	               : 0;
}

/* Build the ruleset in P; C only has to call landlock_restrict_self(). */
void skit__sandbox_ll_build(struct plan *p, const struct skit__run_opts *o)
{
	struct ll_ruleset_attr attr;
	uint64_t fs, ro, rw;
	size_t size;
	struct dirent *de;
	DIR *etc;
	int abi = skit__sandbox_ll_abi(), rs, bad = 0;

	if (abi < 1)
		return;
	fs = ll_fs_rights(abi);
	ro = LL_RO;
	rw = fs & ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_CHAR |
	                      LANDLOCK_ACCESS_FS_MAKE_BLOCK);
	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = fs;
	size = sizeof(attr.handled_access_fs);
	p->ll_bits = SKIT_SANDBOX_LANDLOCK;
	if (abi >= 4 && !o->allow_network) {
		attr.handled_access_net = LANDLOCK_ACCESS_NET_BIND_TCP |
		                          LANDLOCK_ACCESS_NET_CONNECT_TCP;
		p->ll_bits |= SKIT_SANDBOX_LANDLOCK_NET;
	}
	if (abi >= 4)
		size = offsetof(struct ll_ruleset_attr, scoped);
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET |
		              LANDLOCK_SCOPE_SIGNAL;
		size = sizeof(attr);
		p->ll_bits |= SKIT_SANDBOX_LANDLOCK_SCOPE;
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
	if (rs < 0) {
		p->ll_bits = 0;
		return;
	}
	if (p->ll_bits & SKIT_SANDBOX_LANDLOCK_NET &&
	    skit__sandbox_web_proxy(o))
		bad |= ll_allow_proxy_port(rs);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(system_ro); i++)
		bad |= ll_allow(rs, system_ro[i], ro, fs);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(system_rw_dev); i++)
		bad |= ll_allow(rs, system_rw_dev[i],
		                ro | LANDLOCK_ACCESS_FS_WRITE_FILE |
		                        LANDLOCK_ACCESS_FS_TRUNCATE,
		                fs);
	/* No /proc: Landlock does not stop a read of another process's
	 * /proc/PID/environ (only of mem, fd, exe...), and skit's own
	 * environ holds the API keys. The price: no /dev/fd, no ps. */
	etc = opendir("/etc");
	while (etc && (de = readdir(etc))) {
		char path[300];

		for (size_t i = 0; i < SKIT_ARRAY_SIZE(etc_prefixes); i++) {
			if (strncmp(de->d_name, etc_prefixes[i],
			            strlen(etc_prefixes[i])))
				continue;
			snprintf(path, sizeof(path), "/etc/%s", de->d_name);
			bad |= ll_allow(rs, path, ro, fs);
		}
	}
	if (etc)
		closedir(etc);
	for (size_t i = 0; o->read_paths && o->read_paths[i]; i++)
		bad |= ll_allow(rs, o->read_paths[i], ro, fs);
	/* Writable folders get every right but device nodes: a script
	 * must never make one (with root's CAP_MKNOD gone it could not
	 * anyway; this holds whatever the capabilities). */
	for (size_t i = 0; o->write_paths && o->write_paths[i]; i++)
		bad |= ll_allow(rs, o->write_paths[i], rw, fs);
	if (o->fs_full)
		bad |= ll_allow(rs, "/", rw, fs);
	if (bad) {
		/* A half-built ruleset would deny what the caller meant to
		 * grant: report Landlock missing rather than break the run. */
		close(rs);
		p->ll_bits = 0;
		return;
	}
	p->ruleset_fd = rs;
}
#endif /* __linux__ */
