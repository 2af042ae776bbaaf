/* SPDX-License-Identifier: MIT */
/*
 * child.c - start and stop a server program on a socket (child.h).
 */
#define _GNU_SOURCE  /* posix_spawn_file_actions_addchdir_np: before any header \
                      */
#include "common.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/child.h"

int skit__child_spawn(const char *prog, char *const argv[], char *const envp[],
                      const char *cwd, pid_t *pid, int *fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none;
	int sv[2], rc;

	*pid = 0;
	*fd = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 0);
	posix_spawn_file_actions_adddup2(&fa, sv[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (cwd)
		posix_spawn_file_actions_addchdir_np(&fa, cwd);
	posix_spawnattr_init(&at);
	posix_spawnattr_setpgroup(&at, 0);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	                                      POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawnp(pid, prog, &fa, &at, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	close(sv[1]);
	if (rc) {
		close(sv[0]);
		*pid = 0;
		return rc;
	}
	/* The socket never blocks: a server that stops reading must not
	 * hold skit (its readers and writers wait with a deadline). */
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK)) {
		rc = errno;
		close(sv[0]);
		(void)skit__child_stop(*pid, 0, 0);
		*pid = 0;
		return rc;
	}
	*fd = sv[0];
	return 0;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Whether `pid` exited, without reaping it (1), not yet (0), or it
 * cannot be waited for (-1). */
static int exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == EINTR ? 0 : -1;
	return si.si_pid == pid;
}

/* Up to `ms` for `pid` to exit: 1, 0 (still running) or -1. */
static int wait_exit(pid_t pid, long ms)
{
	long long until = now_ms() + ms;
	int x;

	while (!(x = exited(pid)) && now_ms() < until)
		usleep(10000);
	return x;
}

int skit__child_stop(pid_t pid, long wait_ms, long term_ms)
{
	int st, x;

	if (pid <= 0)
		return -1;
	x = wait_exit(pid, wait_ms);
	if (!x) {
		kill(-pid, SIGTERM);
		kill(pid, SIGTERM);
		x = wait_exit(pid, term_ms);
	}
	if (x < 0)
		return -1;
	/* before the reap: the group's number is still the child's */
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return st;
}
