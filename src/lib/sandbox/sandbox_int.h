/* SPDX-License-Identifier: MIT */
/*
 * sandbox_int.h - the door of the sandbox subsystem (src/lib/sandbox/):
 * run one program with a timeout and captured output (library-internal).
 *
 * The subsystem owns running a program and confining it: the spawn
 * (process group, descriptors, timeout, output caps, the children of a
 * confined run: sandbox.c), the namespaces and the mount namespace
 * (sandbox.c, sandbox_mounts.c), Landlock (sandbox_landlock.c), seccomp
 * (sandbox_seccomp.c, with the system-call numbers of syscalls.c), the
 * sandbox modes and the `sandbox` object of config files (sandbox_mode.c,
 * declared in skit/sandbox.h) and the filtering web proxy (netproxy.c).
 * It uses only core/ and util/.
 *
 * Who may include this header: the subsystems above the sandbox that run
 * programs (DESIGN.md section 3): tools (scripts and shell calls), agent,
 * mcp, eval and pack (fetch.c, for skit__close_from()); and the tests and
 * bench_sandbox. sandbox_plan.h is private to the folder; netproxy.h and
 * syscalls.h are the folder's own too (their unit tests aside).
 *
 * The program gets its own process group, stdin from /dev/null, only the
 * environment it is given, no inherited descriptors beyond 0-2, and the
 * given working folder. stdout and stderr are captured up to a cap each;
 * the rest is counted and dropped. On timeout or cancellation the group
 * gets SIGTERM, then SIGKILL after a grace period.
 *
 * With `confine` (every script and shell call) the program also runs in
 * its own session, under rlimits, no_new_privs, Landlock, a seccomp
 * filter, private PID and network namespaces and a pids cgroup, as far as
 * the kernel provides them; docs/sandbox.md describes each layer, its
 * defaults and its fallbacks. When skit__run() returns, no process of a
 * confined run is left (with SKIT_SANDBOX_PIDNS or SKIT_SANDBOX_CGROUP).
 */
#ifndef SKIT_LIB_SANDBOX_INT_H
#define SKIT_LIB_SANDBOX_INT_H

#include "skit/common.h"
#include "skit/sandbox.h"
#include "util/buf.h"

struct skit__run_opts {
	const char *path;  /* the program, executed directly (no shell) */
	char *const *argv; /* NULL-ended; argv[0] first */
	char *const *envp; /* NULL-ended; the whole environment */
	const char *cwd;   /* NULL: inherit */
	long timeout_ms;   /* > 0 */
	long grace_ms;     /* SIGTERM to SIGKILL; 0: 2000 */
	size_t output_cap; /* bytes kept per stream */
	const volatile int *cancel; /* may be NULL */

	/*
	 * Confinement (scripts and shell calls). With `confine` false only
	 * the process layer above applies. With it true, every layer this
	 * kernel provides is applied (see include/skit/sandbox.h) and the
	 * ones it lacks are reported in skit__run_result.missing.
	 */
	bool confine;
	const char *const *read_paths;  /* NULL-ended; readable besides the
	                                   system folders (the skill folder) */
	const char *const *write_paths; /* NULL-ended; readable and writable
	                                   (the per-run workdir) */
	bool allow_network;             /* else no sockets but AF_UNIX */
	/*
	 * NULL-ended; with allow_network false and at least one entry, the
	 * program gets HTTP and HTTPS to these hosts (as in
	 * skit__netproxy_opts: "HOST", "*", "!HOST") through skit's proxy,
	 * announced in HTTP_PROXY, HTTPS_PROXY, http_proxy and https_proxy,
	 * and no other network (docs/sandbox.md). Without a network
	 * namespace such a run does not start (exit 127).
	 */
	const char *const *web_domains;
	const char *const *proxy_resolve; /* tests: "HOST=ADDRESS" pairs */
	/*
	 * NULL-ended; never writable, even beneath write_paths: each one
	 * that exists is bind-mounted read-only over itself in the run's
	 * mount namespace (docs/sandbox.md). Absolute paths.
	 */
	const char *const *protect_paths;
	/* Full access (the full-access mode): no Landlock file rules and no
	 * read-only mounts; every other layer stays. */
	bool fs_full;
	/*
	 * Bytes the run may add to the file systems of write_paths (their
	 * free space, measured every 100 ms while it runs); over it the run
	 * is stopped and res->disk_capped set. 0: no cap.
	 */
	uint64_t disk_cap;
	/*
	 * 0 takes the default (docs/sandbox.md): CPU = the timeout in
	 * seconds + 5, address space 4 GiB, file size 64 MiB, 256 processes
	 * (pids.max, else RLIMIT_NPROC), 256 open files. A negative value,
	 * or SIZE_MAX for the sizes, sets no limit. Core dumps are always
	 * off. A limit above the caller's own hard limit is lowered to it.
	 */
	struct skit__limits {
		long cpu_seconds;
		size_t memory_bytes; /* RLIMIT_AS */
		size_t file_bytes;   /* RLIMIT_FSIZE */
		long processes;
		long open_files;
	} limits;
};

struct skit__run_result {
	int exit_code; /* -1 when killed by a signal */
	int signal;    /* the terminating signal, or 0 */
	bool timed_out;
	bool canceled;
	long duration_ms;
	struct skitx_buf out, err;   /* captured, NUL-terminated */
	size_t out_total, err_total; /* bytes produced */
	bool disk_capped;            /* stopped at opts.disk_cap */
	uint64_t disk_added;         /* bytes the file systems grew by */
	unsigned int layers;         /* SKIT_SANDBOX_* bits applied */
	unsigned int missing;        /* requested (confine) but unavailable */
	bool web;                    /* the web proxy was the network */
	unsigned long web_forwarded; /* its requests forwarded */
	unsigned long web_refused;   /* and refused */
};

#define SKIT__LIMIT_CPU_MARGIN 5L /* seconds over the timeout */
#define SKIT__LIMIT_MEMORY     ((size_t)4 << 30)
#define SKIT__LIMIT_FILE       ((size_t)64 << 20)
#define SKIT__LIMIT_PROCESSES  256L
#define SKIT__LIMIT_OPEN_FILES 256L

/*
 * Run the program and wait for it. `res` is initialised here; release it
 * with skit__run_result_release() whatever the return value.
 * Returns 0 when the program ran (whatever its exit status), SKIT_EIO
 * when it could not be started (message in err), SKIT_ENOMEM. A confined
 * program that cannot be executed exits 127 (not found) or 126, with a
 * one-line note on its stderr. A layer that cannot be applied is not an
 * error: it is left out of res->layers and set in res->missing.
 *
 * Thread-safe: runs may proceed in parallel from several threads. The
 * calling thread must not exit before this returns (the child is bound to
 * it with PR_SET_PDEATHSIG).
 */
int skit__run(struct skit__run_result *res, const struct skit__run_opts *o,
              skit_error *err);

void skit__run_result_release(struct skit__run_result *res);

/*
 * Layers to treat as unavailable on this system (SKIT_SANDBOX_LANDLOCK,
 * _SECCOMP, _NETNS, _PIDNS, _MOUNTNS, _CGROUP and _NOCAPS are honoured),
 * so that tests can exercise what happens when a kernel lacks a layer and
 * bench_sandbox can price each one. 0 in normal use; not thread-safe;
 * never set from the environment.
 */
extern unsigned int skit__sandbox_disabled;

/*
 * For tests only: the mount set-up fails in the namespace, after the
 * plan, as a kernel or a project could make it; false in normal use; not
 * thread-safe; never set from the environment.
 */
extern bool skit__sandbox_test_mount_fail;

/* Close every fd from `lowfd` up (close_range, else one by one up to
 * the open-files limit). For a child between fork and exec. */
void skit__close_from(int lowfd);

#endif
