/* SPDX-License-Identifier: MIT */
/*
 * sandbox_plan.h - what the files of the sandbox folder share: the plan
 * P prepares for a confined run before fork() (struct plan) and the
 * steps that fill it in, each in the file of its layer. Private to
 * src/lib/sandbox/: the rest of the library goes through sandbox_int.h.
 *
 *   sandbox.c           the plan as a whole and the run: fork, children
 *                       A/B/C, namespaces, capabilities, the cgroup and
 *                       rlimits, the web proxy's socket, waiting,
 *                       reports, the disk cap; the probe
 *   sandbox_mounts.c    the mount namespace: what to hide, bring back,
 *                       pin and bind read-only, and A's mounts
 *   sandbox_landlock.c  the Landlock ruleset (what a run may read and
 *                       write)
 *   sandbox_seccomp.c   the seccomp filters (refused system calls,
 *                       sockets, setuid and setgid file modes)
 *
 * Every file defines _GNU_SOURCE before any header (O_PATH, pipe2, ...).
 */
#ifndef SKIT_LIB_SANDBOX_PLAN_H
#define SKIT_LIB_SANDBOX_PLAN_H

#include <limits.h>
#include <sys/resource.h>
#include <sys/types.h>

#ifdef __linux__
# include <linux/filter.h>
#endif

#include "lib/sandbox/sandbox_int.h"

/* Where the web proxy listens inside the run's network namespace (its
 * own loopback: no other process can hold the port). */
#define SKIT__PROXY_PORT 3128

/* What P prepares for a confined child. Read-only after fork. */
/*
 * A folder made for a missing protected path (sandbox_mounts.c): `path`,
 * and a descriptor of it that holds a shared flock(2) while the run may
 * use it (-1: the file system has no locks; then the run that made it
 * removes it).
 */
struct skit__placeholder {
	char *path;
	int fd;
	bool mine; /* this run made it */
};

struct plan {
	pid_t parent;
	unsigned int want;    /* layers requested */
	unsigned int ll_bits; /* Landlock layers the ruleset gives */
	int ruleset_fd;       /* -1: none */
	int cgroup_fd;        /* cgroup.procs of our group, -1: none */
	int ns_flags;         /* CLONE_NEW* to try */
	int nrl;
	struct {
		int resource;
		struct rlimit lim;
	} rl[7];
	char uid_map[48], gid_map[48]; /* "" as root: no user namespace */
#ifdef __linux__
	struct sock_fprog prog;  /* len 0: no filter */
	struct sock_fprog modes; /* the file-mode filter; len 0: none */
	/* ENOSYS for calls newer than skit examined (syscalls.h), under
	 * both filters above; len 0: none (then neither counts). */
	struct sock_fprog newer;
#endif
	/*
	 * The mount namespace, set up by A (skit__sandbox_mount_setup()):
	 * `hide` are covered by an empty read-only tmpfs, `rebind` (folders the
	 * run needs beneath them) are bound back at the same place, then each
	 * of `ro` is bound read-only over itself. Real paths, NULL-ended.
	 */
	char **hide, **rebind, **ro;
	size_t nhide, nrebind, nro;
	/*
	 * The folders from a writable root down to each of `ro`'s parents,
	 * bound over themselves (writable) before `ro`, shortest first: a
	 * mount point cannot be renamed or removed (EBUSY), so `mv .agents
	 * .x` cannot carry the protected paths away and leave room for new
	 * ones.
	 */
	char **pin;
	size_t npin;
	/*
	 * The links on the way to a protected path that lie beneath a
	 * writable root, each bound over itself (open_tree(), which can
	 * take a link without following it) so that it cannot be removed
	 * or replaced: a link there decides what the protected path is.
	 */
	char **link;
	size_t nlink;
	/*
	 * Set when a protected path cannot be protected (a chain of links
	 * too long, a path too long, a folder skit may not write where a
	 * placeholder must go, a protected file with other hard links): the
	 * run is refused with this message rather than run unprotected.
	 */
	char refuse[512];
	/*
	 * o->path and o->cwd as real paths, for a mount namespace: a `..`
	 * or a link in the given ones may pass through a hidden folder
	 * (a skill root given as "/tmp/x/evals/../skills"), which C could
	 * no longer walk. NULL: as given.
	 */
	char *path, *cwd;
	bool nocaps;      /* drop the capabilities in C */
	char pid_max[24]; /* B writes it to its namespace's pid_max; "" */
	/* The placeholders of missing protected folders this run uses
	 * (sandbox_mounts.c); skit__sandbox_placeholders_release() ends
	 * them. */
	struct skit__placeholder *made;
	size_t nmade;
	char cgroup_dir[PATH_MAX];
	bool cgroup_v2;
	int proxy_fd;   /* A's end of the socketpair; -1: no proxy */
	int proxy_peer; /* P's end */
	char **envp;    /* NULL: o->envp; else it plus the proxy's */
};

/* Whether the run's network is the web proxy (see sandbox_int.h). A
 * predicate on the options every piece asks, kept here so that none of
 * them calls back into sandbox.c for it. */
static inline bool skit__sandbox_web_proxy(const struct skit__run_opts *o)
{
	return !o->allow_network && o->web_domains && o->web_domains[0];
}

#ifdef __linux__
/* sandbox_landlock.c: the Landlock ABI of this kernel (0: none, or
 * disabled by skit__sandbox_disabled). */
int skit__sandbox_ll_abi(void);

/* sandbox_landlock.c: build the ruleset in P into p->ruleset_fd and
 * p->ll_bits; C only has to call landlock_restrict_self(). */
void skit__sandbox_ll_build(struct plan *p, const struct skit__run_opts *o);

/* sandbox_mounts.c: plan what A mounts into p->hide, rebind, pin, ro,
 * made, path and cwd (plan_release() frees them). False when the mount
 * namespace is not to be asked for. */
bool skit__sandbox_plan_mounts(struct plan *p, const struct skit__run_opts *o);

/* sandbox_mounts.c: in A, inside the new mount namespace, mount what
 * the plan says. System calls only. False on any failure. */
bool skit__sandbox_mount_setup(const struct plan *p);

/* sandbox_mounts.c: in P, once no process of the run can see them, let
 * go of the run's placeholders: each is removed when no other run holds
 * it and it is still empty. */
void skit__sandbox_placeholders_release(struct plan *p);

# ifdef SKIT_HAVE_SECCOMP
/* sandbox_seccomp.c: the system-call filter, exported into p->prog. */
void skit__sandbox_seccomp_build(struct plan *p,
                                 const struct skit__run_opts *o);

/* sandbox_seccomp.c: the file-mode filter (no setuid or setgid bit),
 * exported into p->modes; none unless complete. */
void skit__sandbox_fsmode_build(struct plan *p);
# endif
#endif

#endif
