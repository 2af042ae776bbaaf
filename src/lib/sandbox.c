/* SPDX-License-Identifier: MIT */
/*
 * sandbox.c - run a program: own process group, /dev/null stdin, a given
 * environment and folder, captured and capped output, a wall-clock
 * timeout with SIGTERM then SIGKILL to the whole group.
 *
 * This is the process layer only. rlimits beyond core dumps, Landlock,
 * seccomp and network isolation are not here.
 */
#include "common.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/error.h"
#include "lib/sandbox_int.h"

#define DEFAULT_GRACE_MS 2000L
#define POLL_SLICE_MS    100
#define DRAIN_MS         500L /* after the script exits */

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * In the child, between fork and exec: only async-signal-safe calls.
 * Any failure exits 127 after writing a short note to the stderr pipe.
 */
static void child(const struct skit__run_opts *o, int outfd, int errfd)
{
	struct rlimit nocore = { 0, 0 };
	long maxfd;
	int nullfd;

	setpgid(0, 0);
	nullfd = open("/dev/null", O_RDONLY);
	if (nullfd < 0 || dup2(nullfd, 0) < 0 || dup2(outfd, 1) < 0 ||
	    dup2(errfd, 2) < 0)
		_exit(127);
	maxfd = sysconf(_SC_OPEN_MAX);
	if (maxfd < 0 || maxfd > 65536)
		maxfd = 65536;
	for (long fd = 3; fd < maxfd; fd++)
		close((int)fd);
	setrlimit(RLIMIT_CORE, &nocore);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (o->cwd && chdir(o->cwd) < 0) {
		static const char msg[] =
		        "skit: cannot enter the work folder\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(127);
		_exit(127);
	}
	execve(o->path, o->argv, o->envp);
	{
		static const char msg[] = "skit: cannot execute the program\n";

		if (write(2, msg, sizeof(msg) - 1) < 0)
			_exit(126);
	}
	_exit(errno == ENOENT ? 127 : 126);
}

/* Read what is available on `fd` into `b` up to `cap`; count the rest. */
static int drain(int fd, struct skitx_buf *b, size_t cap, size_t *total)
{
	char chunk[16384];
	ssize_t n;
	size_t keep;

	n = read(fd, chunk, sizeof(chunk));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	*total += (size_t)n;
	keep = skitx_buf_len(b) < cap ? cap - skitx_buf_len(b) : 0;
	if (keep > (size_t)n)
		keep = (size_t)n;
	if (keep && skitx_buf_add(b, chunk, keep))
		return -1;
	return 1;
}

int skit__run(struct skit__run_result *res, const struct skit__run_opts *o,
              skit_error *err)
{
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	long start, deadline, kill_at = 0, grace;
	struct pollfd pfd[2];
	bool term_sent = false, killed = false, reaped = false;
	long drain_until = 0;
	int status = 0, rc = 0, r;
	pid_t pid, w;

	memset(res, 0, sizeof(*res));
	skitx_buf_init(&res->out, SIZE_MAX);
	skitx_buf_init(&res->err, SIZE_MAX);
	res->exit_code = -1;
	grace = o->grace_ms > 0 ? o->grace_ms : DEFAULT_GRACE_MS;
	if (pipe(outp) < 0 || pipe(errp) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "pipe: %s",
		                     strerror(errno));
		goto out;
	}
	fcntl(outp[0], F_SETFD, FD_CLOEXEC);
	fcntl(errp[0], F_SETFD, FD_CLOEXEC);
	start = now_ms();
	pid = fork();
	if (pid < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "fork: %s",
		                     strerror(errno));
		goto out;
	}
	if (pid == 0)
		child(o, outp[1], errp[1]);
	/* Both sides set the group, so a kill cannot race the child's. */
	setpgid(pid, pid);
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
	deadline = start + o->timeout_ms;
	pfd[0].fd = outp[0];
	pfd[1].fd = errp[0];
	for (;;) {
		long now = now_ms(), wait;

		if (!term_sent &&
		    (now >= deadline || (o->cancel && *o->cancel))) {
			if (now >= deadline)
				res->timed_out = true;
			else
				res->canceled = true;
			kill(-pid, SIGTERM);
			term_sent = true;
			kill_at = now + grace;
		}
		if (term_sent && !killed && now >= kill_at) {
			kill(-pid, SIGKILL);
			killed = true;
		}
		/* Pipes still open after the group was killed belong to
		 * escaped descendants: stop reading and reap. */
		if (killed || (pfd[0].fd < 0 && pfd[1].fd < 0))
			break;
		/* The script is done but a background child of it still
		 * holds the pipes: give it a moment, then end the group. */
		if (!reaped) {
			w = waitpid(pid, &status, WNOHANG);
			if (w == pid) {
				reaped = true;
				drain_until = now + DRAIN_MS;
			}
		} else if (now >= drain_until) {
			kill(-pid, SIGKILL);
			break;
		}
		pfd[0].events = pfd[1].events = POLLIN;
		wait = (term_sent ? kill_at
		        : reaped  ? drain_until
		                  : deadline) -
		       now;
		if (wait > POLL_SLICE_MS)
			wait = POLL_SLICE_MS;
		if (wait < 0)
			wait = 0;
		r = poll(pfd, 2, (int)wait);
		if (r < 0 && errno != EINTR) {
			rc = skit__error_set(err, SKIT_EIO, 0, "poll: %s",
			                     strerror(errno));
			kill(-pid, SIGKILL);
			killed = true;
			break;
		}
		for (int i = 0; r > 0 && i < 2; i++) {
			struct skitx_buf *b = i ? &res->err : &res->out;
			size_t *total = i ? &res->err_total : &res->out_total;
			int d;

			if (pfd[i].fd < 0 || !pfd[i].revents)
				continue;
			d = drain(pfd[i].fd, b, o->output_cap, total);
			if (d < 0) {
				rc = skit__error_oom(err);
				kill(-pid, SIGKILL);
				killed = true;
			} else if (d == 0) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				if (i)
					errp[0] = -1;
				else
					outp[0] = -1;
			}
		}
	}
	w = pid;
	while (!reaped) {
		w = waitpid(pid, &status, 0);
		if (w >= 0 || errno != EINTR)
			break;
	}
	/* The leader is gone; make sure no member of its group lingers. */
	kill(-pid, SIGKILL);
	res->duration_ms = now_ms() - start;
	if (w == pid && WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else if (w == pid && WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
	}
out:
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	return rc;
}

void skit__run_result_release(struct skit__run_result *res)
{
	skitx_buf_release(&res->out);
	skitx_buf_release(&res->err);
}
