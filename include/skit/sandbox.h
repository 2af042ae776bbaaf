/* SPDX-License-Identifier: MIT */
#ifndef SKIT_SANDBOX_H
#define SKIT_SANDBOX_H

#include "skit/common.h"

/**
 * @file skit/sandbox.h
 * @brief Which confinement layers this system gives the scripts a skill
 *        runs, and their names.
 *
 * Every script and shell call runs confined (docs/sandbox.md):
 * the library applies each layer below that the running kernel provides
 * and reports the ones it could not apply, so that a missing layer is a
 * warning and never a silent gap. This header is the probe behind
 * `skit doctor`; running programs is internal to the library.
 *
 * The probe only looks: it creates nothing that outlives the call (a
 * short-lived child process and an empty cgroup at most), changes nothing
 * in the calling process, never prints, and cannot fail. On a system other
 * than Linux only SKIT_SANDBOX_PGROUP and SKIT_SANDBOX_RLIMITS exist.
 */

SKIT_BEGIN_DECL

/** The confinement layers, as bits of one `unsigned int`. */
typedef enum {
	/** Own session and process group, no controlling terminal; the
	 *  timeout sends SIGTERM, then SIGKILL, to the whole group. */
	SKIT_SANDBOX_PGROUP = 1u << 0,
	/** CPU time, address space, file size, processes, open files and
	 *  core dumps (none) limited with setrlimit(). */
	SKIT_SANDBOX_RLIMITS = 1u << 1,
	/** PR_SET_NO_NEW_PRIVS: setuid and file capabilities grant
	 *  nothing. */
	SKIT_SANDBOX_NO_NEW_PRIVS = 1u << 2,
	/** Landlock file-system rules: system folders and the skill folder
	 *  read-only, only the work folder writable. */
	SKIT_SANDBOX_LANDLOCK = 1u << 3,
	/** Landlock TCP rules (ABI 4): no TCP bind or connect. */
	SKIT_SANDBOX_LANDLOCK_NET = 1u << 4,
	/** Landlock scoping (ABI 6): no signals to, and no abstract UNIX
	 *  sockets of, processes outside the sandbox. */
	SKIT_SANDBOX_LANDLOCK_SCOPE = 1u << 5,
	/** A seccomp filter: never what Docker's default profile refuses
	 *  (perf_event_open, bpf, keyctl, ptrace, mounts, namespaces,
	 *  modules, clock and host names...; docs/sandbox.md), TIOCSTI,
	 *  TIOCLINUX or io_uring; no sockets but AF_UNIX and no connect()
	 *  when the network is off. */
	SKIT_SANDBOX_SECCOMP = 1u << 6,
	/** A private network namespace (only a loopback that is down),
	 *  whenever the network is off. */
	SKIT_SANDBOX_NETNS = 1u << 7,
	/** A private PID namespace with skit's own init: when the script
	 *  ends, every process it started ends too. */
	SKIT_SANDBOX_PIDNS = 1u << 8,
	/** A cgroup with a process limit (pids.max), emptied and removed
	 *  after the run. */
	SKIT_SANDBOX_CGROUP = 1u << 9,
	/** A private mount namespace: the protected paths bind-mounted
	 *  read-only, the host's /tmp, /run and /var/run hidden under empty
	 *  read-only tmpfs (their sockets out of reach). */
	SKIT_SANDBOX_MOUNTNS = 1u << 10,
	/** No capabilities in any of the five sets and locked securebits,
	 *  even when skit runs as root; no setuid or setgid bit can be
	 *  set on a file. */
	SKIT_SANDBOX_NOCAPS = 1u << 11,
	/** The PID namespace's own pid_max (Linux 6.14 and later) bounds
	 *  the processes of the run, standing in for the cgroup (whose
	 *  creation costs a kernel grace period a run). */
	SKIT_SANDBOX_PIDMAX = 1u << 12,
} skit_sandbox_layer;

/** Every bit of skit_sandbox_layer. */
#define SKIT_SANDBOX_ALL 0x1fffu

/**
 * The layers this system can apply, tried for real where a cheap test
 * exists (namespaces are tried in a short-lived child process, a cgroup
 * is created and removed). Takes a few milliseconds: call it once, for a
 * report, not before every run.
 *
 * @return a set of skit_sandbox_layer bits
 */
SKIT_EXTERN unsigned int skit_sandbox_available(void);

/**
 * The short name of one layer bit: "pgroup", "rlimits", "no_new_privs",
 * "landlock", "landlock_net", "landlock_scope", "seccomp", "netns",
 * "pidns", "cgroup", "mountns", "nocaps" or "pidmax".
 *
 * @param bit  exactly one skit_sandbox_layer bit
 * @return a static string; NULL when `bit` is not exactly one known bit
 */
SKIT_EXTERN const char *skit_sandbox_layer_name(unsigned int bit);

/**
 * The Landlock ABI version the running kernel supports.
 *
 * @return 1 or more; 0 when Landlock is missing, disabled at boot, or
 *         this is not Linux
 */
SKIT_EXTERN int skit_sandbox_landlock_abi(void);

/**
 * What scripts and shell calls may write (docs/sandbox.md).
 * Every mode confines processes the same way (no capabilities, seccomp,
 * namespaces, limits); the modes differ in the file system only.
 */
typedef enum {
	/** The default: write the project, except its protected paths, and
	 *  the run's private temporary folder. */
	SKIT_SANDBOX_WORKSPACE_WRITE = 0,
	/** Read the project and system folders; write only the run's
	 *  private temporary folder. */
	SKIT_SANDBOX_READ_ONLY = 1,
	/** No file-system confinement. Only the user's flag or the user's
	 *  own config may choose it (skit_sandbox_config_load()). */
	SKIT_SANDBOX_FULL_ACCESS = 2,
} skit_sandbox_mode;

/** The default disk cap of one script run and of one task: 1 GiB. */
#define SKIT_SANDBOX_DEFAULT_DISK_CAP ((uint64_t)1 << 30)

/**
 * Parse a mode name: "read-only", "workspace-write" or "full-access".
 * @return SKIT_OK; SKIT_EINVALID for any other text (`*mode` untouched)
 */
SKIT_EXTERN int skit_sandbox_mode_parse(const char *name,
                                        skit_sandbox_mode *mode);

/** The name of `mode` ("workspace-write"...); static storage. */
SKIT_EXTERN const char *skit_sandbox_mode_name(skit_sandbox_mode mode);

/** The `sandbox` settings of config files, as skit_sandbox_config_load()
 *  fills them; start from SKIT_SANDBOX_CONFIG_INIT. */
typedef struct {
	skit_sandbox_mode mode; /**< the last file that set one wins */
	bool mode_set;          /**< some file set `sandbox.mode` */
	uint64_t disk_cap;      /**< bytes a script run may add; 0: default */
	/** A project config asked for full-access: ignored (the user's
	 *  flag or config must choose it). */
	bool full_access_refused;
} skit_sandbox_config;

#define SKIT_SANDBOX_CONFIG_INIT                \
 {                                              \
  SKIT_SANDBOX_WORKSPACE_WRITE, false, 0, false \
 }

/**
 * Read the `sandbox` object of a config file into `cfg`:
 * `{"sandbox": {"mode": "read-only", "disk_cap": 268435456}}`; other
 * top-level keys are left to their readers. A file that is not `trusted`
 * (a project's own `.agents/skit.json`, i.e. repository content) may
 * choose read-only or workspace-write, never full-access: that request is
 * skipped and flagged in `cfg->full_access_refused`; nor may it raise
 * `disk_cap` above the cap loaded so far, or above
 * SKIT_SANDBOX_DEFAULT_DISK_CAP when none was set (such a value is
 * skipped).
 *
 * @return SKIT_OK; SKIT_ENOTFOUND when the file does not exist;
 *         SKIT_EINVALID for bad JSON, an unknown key under `sandbox`, a
 *         bad mode or cap (the message names the file); SKIT_ETOOBIG over
 *         1 MiB; SKIT_EUNSAFE when it is not a regular file; SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_sandbox_config_load(skit_sandbox_config *cfg,
                                         const char *path, bool trusted,
                                         skit_error *err);

SKIT_END_DECL

#endif /* SKIT_SANDBOX_H */
