/* SPDX-License-Identifier: MIT */
#ifndef SKIT_SANDBOX_H
#define SKIT_SANDBOX_H

#include "skit/common.h"

/**
 * @file skit/sandbox.h
 * @brief Which confinement layers this system gives the scripts a skill
 *        runs, and their names.
 *
 * Every script and shell call runs confined (DESIGN §7, docs/sandbox.md):
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
	/** A seccomp filter: no sockets but AF_UNIX and no connect() when
	 *  the network is off; never TIOCSTI, TIOCLINUX or io_uring. */
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
} skit_sandbox_layer;

/** Every bit of skit_sandbox_layer. */
#define SKIT_SANDBOX_ALL 0x3ffu

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
 * "pidns" or "cgroup".
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

SKIT_END_DECL

#endif /* SKIT_SANDBOX_H */
