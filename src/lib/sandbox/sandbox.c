/* SPDX-License-Identifier: MIT */
/*
 * sandbox.c - run a program: own process group, /dev/null stdin, a given
 * environment and folder, captured and capped output, a wall-clock
 * timeout with SIGTERM then SIGKILL to the whole group; and, for scripts
 * (`confine`), every confinement layer the kernel offers.
 *
 * A confined run is three processes deep when PID namespaces work:
 *
 *   skit (P) --fork--> A: setsid, descriptors, cgroup, work folder,
 *                         unshare(PID [+ NET] namespaces), then waits
 *                  --fork--> B: pid 1 of the new namespace, our init
 *                           --fork--> C: rlimits, no_new_privs, Landlock,
 *                                        seccomp, close fds >= 3, execve
 *
 * B reaps orphans and, when C ends, sends C's wait status up a report
 * pipe and exits; the kernel then kills whatever else lives in the
 * namespace (nohup, double forks, setsid daemons) before A sees B exit.
 * So once P has reaped A, nothing of the run is left. A namespace init
 * ignores signals it has no handler for, which is why the program is C
 * and not B (bubblewrap does the same). Without PID namespaces A itself
 * becomes the program and the pids cgroup (if any) is emptied by hand.
 *
 * Everything a child needs is prepared in P before fork(): the Landlock
 * ruleset, the seccomp BPF (libseccomp allocates, so it is exported into
 * memory here and loaded in C with a bare prctl()), the cgroup and the
 * rlimit values. Between fork and exec the children only make system
 * calls: no allocation, no stdio, no locks (P may be multi-threaded, and
 * under ASan the allocator is not fork-safe).
 *
 * What is not here: the environment (the caller builds the allow-list),
 * the choice of paths (the caller passes the skill and work folders), and
 * any policy about whether to run at all. Nor the layers P builds for
 * itself, each in a file of its own that fills in struct plan
 * (sandbox_plan.h): the mount namespace (sandbox_mounts.c), the Landlock
 * ruleset (sandbox_landlock.c) and the seccomp filters
 * (sandbox_seccomp.c).
 */
#define _GNU_SOURCE  /* unshare, close_range, O_PATH, pipe2: before any header \
                      */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <strings.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
# include <linux/capability.h>
# include <linux/filter.h>
# include <linux/keyctl.h>
# include <linux/seccomp.h>
# include <linux/securebits.h>
# include <sched.h>
# include <sys/statvfs.h>
# include <sys/ioctl.h>
# include <sys/prctl.h>
# include <net/if.h>
# include <netinet/in.h>
# include <sys/socket.h>
# include <sys/syscall.h>
# include <sys/utsname.h>
#endif

#include "lib/core/error.h"
#include "lib/sandbox/netproxy.h"
#include "lib/sandbox/sandbox_int.h"
#include "lib/sandbox/sandbox_plan.h"
#include "lib/sandbox/syscalls.h"
#include "util/clock.h"

#define DEFAULT_GRACE_MS 2000L
#define POLL_SLICE_MS    100
#define DRAIN_MS         500L  /* after the script exits */
#define READY_MS         5000L /* most to wait for the sandbox to start */

/* The descriptors a confined child keeps, at fixed numbers. */
#define FD_REPORT     3
#define FD_RULESET    4
#define FD_CGROUP     5
#define FD_PROXY      6 /* socketpair to P: the proxy's listener */
#define FD_FIRST_FREE 7

/* The web proxy as the program reaches it: SKIT__PROXY_PORT
 * (sandbox_plan.h) on the run's own loopback. */
#define PROXY_URL "http://127.0.0.1:3128"

/* Records on the report pipe, children to P. */
enum {
	REP_INIT = 1, /* val: pid of B, the namespace init (from A) */
	REP_READY,    /* val: layers of A/B; the program starts now */
	REP_LAYERS,   /* val: layers of C, just before execve */
	REP_STATUS,   /* val: C's wait status (from B) */
};

struct report {
	int tag, val;
};

/* P's view of one run. */
struct run {
	pid_t pid;  /* P's child: A (or the program itself) */
	pid_t init; /* B, in P's numbering; 0 without a PID namespace */
	int report; /* read end; -1 when not confined */
	bool ready, have_status;
	bool gone; /* A reaped after B: nothing left to signal */
	int status;
	unsigned int layers;
	unsigned char partial[sizeof(struct report)];
	size_t npartial;
};

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- in the children: system calls only -------------------------------- */

static void say(const char *msg)
{
	if (write(2, msg, strlen(msg)) < 0)
		return;
}

void skit__close_from(int lowfd)
{
#ifdef SYS_close_range
	if (!syscall(SYS_close_range, (unsigned int)lowfd, ~0U, 0))
		return;
#endif
	{
		struct rlimit r;
		long max = 65536;

		if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < (rlim_t)max)
			max = (long)r.rlim_cur;
		for (long fd = lowfd; fd < max; fd++)
			close((int)fd);
	}
}

static void report(int tag, int val)
{
	struct report r = { tag, val };

	/* 8 bytes: below PIPE_BUF, so the write is atomic. */
	if (write(FD_REPORT, &r, sizeof(r)) < 0)
		return;
}

/*
 * Put `want[i]` (or nothing, when -1) at descriptor i, for i in 0..5, and
 * close everything else. The sources may sit anywhere, even on each
 * other's targets, so they are first moved above all of them.
 */
static int place_fds(int want[FD_FIRST_FREE])
{
	int base = FD_FIRST_FREE;

	for (int i = 0; i < FD_FIRST_FREE; i++)
		if (want[i] >= base)
			base = want[i] + 1;
	for (int i = 0; i < FD_FIRST_FREE; i++) {
		if (want[i] < 0)
			continue;
		want[i] = fcntl(want[i], F_DUPFD, base);
		if (want[i] < 0)
			return -1;
	}
	for (int i = 0; i < FD_FIRST_FREE; i++) {
		if (want[i] < 0)
			close(i);
		else if (dup2(want[i], i) < 0)
			return -1;
	}
	skit__close_from(FD_FIRST_FREE);
	return 0;
}

/* The classic child of an unconfined run (confine = false). */
static void child(const struct skit__run_opts *o, int outfd, int errfd)
{
	struct rlimit nocore = { 0, 0 };
	int nullfd;

	setpgid(0, 0);
	nullfd = open("/dev/null", O_RDONLY);
	if (nullfd < 0 || dup2(nullfd, 0) < 0 || dup2(outfd, 1) < 0 ||
	    dup2(errfd, 2) < 0)
		_exit(127);
	skit__close_from(3);
	setrlimit(RLIMIT_CORE, &nocore);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (o->cwd && chdir(o->cwd) < 0) {
		say("skit: cannot enter the work folder\n");
		_exit(127);
	}
	execve(o->path, o->argv, o->envp);
	say("skit: cannot execute the program\n");
	_exit(errno == ENOENT ? 127 : 126);
}

#ifdef __linux__
/*
 * No root powers: lock the securebits (no capabilities from uid 0 or
 * from setuid, ever again), empty the bounding and ambient sets, then
 * the effective, permitted and inheritable ones. True when all five are
 * empty afterwards. Needs CAP_SETPCAP, which root has, and so does the
 * owner of a fresh user namespace.
 */
static bool drop_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3,
		                                0 };
	struct __user_cap_data_struct data[2];
	bool ok = true;

	if (prctl(PR_SET_SECUREBITS,
	          SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	                  SECBIT_NO_SETUID_FIXUP |
	                  SECBIT_NO_SETUID_FIXUP_LOCKED |
	                  SECBIT_KEEP_CAPS_LOCKED |
	                  SECBIT_NO_CAP_AMBIENT_RAISE |
	                  SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED,
	          0, 0, 0) < 0 &&
	    (geteuid() == 0 || errno != EPERM))
		ok = false;
	/* EPERM: no CAP_SETPCAP, so no capability at all to keep, and
	 * no_new_privs (next) stops execve from granting any. */
	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL &&
		    errno != EPERM)
			ok = false;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) < 0)
		ok = false;
	if (syscall(SYS_capget, &hdr, data) < 0)
		return false;
	for (int i = 0; i < 2; i++)
		if (data[i].effective || data[i].permitted ||
		    data[i].inheritable)
			ok = false;
	for (int c = 0; geteuid() == 0 && c < 64; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) > 0)
			ok = false;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_SYS_ADMIN, 0, 0) >
	    0)
		ok = false;
	return ok;
}
#endif

/* C: the last layers, then the program. Never returns. */
static void exec_program(const struct skit__run_opts *o, const struct plan *p,
                         unsigned int layers)
{
	struct sigaction dfl;
	sigset_t none;
	bool ok = true, newer = true;

	/* Ignored signals survive execve; the program gets defaults. */
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (int s = 1; s < 65; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int i = 0; i < p->nrl; i++)
		if (setrlimit(p->rl[i].resource, &p->rl[i].lim) < 0)
			ok = false;
	if (ok)
		layers |= SKIT_SANDBOX_RLIMITS;
#ifdef __linux__
	if (p->nocaps && drop_caps() && (p->modes.len || geteuid() != 0))
		layers |= SKIT_SANDBOX_NOCAPS;
	if (!prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		layers |= SKIT_SANDBOX_NO_NEW_PRIVS;
	if (p->ruleset_fd >= 0 && (layers & SKIT_SANDBOX_NO_NEW_PRIVS) &&
	    !syscall(SYS_landlock_restrict_self, FD_RULESET, 0))
		layers |= p->ll_bits;
	/* A call newer than the filters below know of must not pass them
	 * unexamined: without this filter neither layer counts. */
	if (!p->newer.len || !(layers & SKIT_SANDBOX_NO_NEW_PRIVS) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->newer, 0, 0))
		newer = false;
	if (newer && p->prog.len &&
	    !prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->prog, 0, 0))
		layers |= SKIT_SANDBOX_SECCOMP;
	/* No setuid or setgid bit on any file: without it, a root-owned
	 * copy of a shell left in the project would be a way back to
	 * root for any local user (capabilities cannot stop the owner).
	 * As root, the layer stands only with a complete file-mode
	 * filter (skit__sandbox_fsmode_build() refuses to build a partial one).
	 */
	if ((layers & SKIT_SANDBOX_NOCAPS) && p->modes.len &&
	    (!newer ||
	     prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &p->modes, 0, 0)))
		layers &= ~(unsigned int)SKIT_SANDBOX_NOCAPS;
#endif
	report(REP_LAYERS, (int)layers);
	skit__close_from(3);
	execve(p->path ? p->path : o->path, o->argv,
	       p->envp ? p->envp : o->envp);
	say("skit: cannot execute the program\n");
	_exit(errno == ENOENT ? 127 : 126);
}

#ifdef __linux__
static bool write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok;
}

/*
 * unshare() the namespaces of p->ns_flags, through a user namespace when
 * we are not root (mapping our own uid and gid), falling back to fewer
 * namespaces when the whole set fails. Returns the namespace layers
 * obtained.
 */
static unsigned int ns_unshare(const struct plan *p)
{
	const int all = p->ns_flags;
	const int tries[] = { all,
		              all & ~CLONE_NEWNET,
		              all & ~CLONE_NEWNS,
		              all & ~(CLONE_NEWNS | CLONE_NEWNET),
		              all & ~CLONE_NEWPID,
		              all & ~(CLONE_NEWPID | CLONE_NEWNET),
		              all & ~(CLONE_NEWPID | CLONE_NEWNS) };

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tries); i++) {
		int flags = tries[i];
		unsigned int got = 0;

		if (!flags || (i && flags == all))
			continue;
		if (flags & CLONE_NEWPID)
			got |= SKIT_SANDBOX_PIDNS;
		if (flags & CLONE_NEWNET)
			got |= SKIT_SANDBOX_NETNS;
		if (flags & CLONE_NEWNS)
			got |= SKIT_SANDBOX_MOUNTNS;
		if (!unshare(flags))
			return got;
		/* Only a dumpable process may write its own id maps (one
		 * that changed uid, as a setuid program, is not): without
		 * them every file it created would fail with EOVERFLOW. */
		if (p->uid_map[0] && prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 1 &&
		    !unshare(flags | CLONE_NEWUSER)) {
			/* Unmapped ids would make every file we create fail
			 * with EOVERFLOW: map our own, as an unprivileged
			 * process may. */
			write_file("/proc/self/setgroups", "deny");
			write_file("/proc/self/uid_map", p->uid_map);
			write_file("/proc/self/gid_map", p->gid_map);
			return got;
		}
	}
	return 0;
}

/*
 * A's namespace set-up, in this order (docs/sandbox.md): (1) unshare the
 * user namespace (when not root), mount, PID and network namespaces in
 * one call; (2) the mounts; (3) the network namespace's own set-up, when
 * there is one. A later step is skipped when its namespace is missing;
 * each step reports the layer bits it achieved.
 */
static unsigned int enter_ns(const struct plan *p)
{
	unsigned int got = ns_unshare(p);

	if ((got & SKIT_SANDBOX_MOUNTNS) &&
	    (skit__sandbox_test_mount_fail || !skit__sandbox_mount_setup(p))) {
		/* Planned, and the namespace is there, yet the binds failed
		 * part way: protected paths planned are not left open to the
		 * program (fail closed; A's exit is the run's). */
		if (p->nro || p->nlink || p->npin || p->nmade) {
			say("skit: the protected paths could not be set up; the "
			    "program was not run\n");
			_exit(126);
		}
		got &= ~(unsigned int)SKIT_SANDBOX_MOUNTNS;
	}
	return got;
}
#endif

#ifdef __linux__
/*
 * Leave the caller's session keyring (where Kerberos and other
 * credentials live) for a new, empty, anonymous one, inherited by B and
 * C. The filter refuses keyctl() afterwards, so the script cannot even
 * look at it; the new keyring matters when seccomp is missing. A kernel
 * without keys fails here harmlessly: there is nothing to hide.
 */
static void join_fresh_keyring(void)
{
	syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL);
}
#endif

#ifdef __linux__
/*
 * In A, with the network limited to the proxy: bring the namespace's
 * loopback up, listen on SKIT__PROXY_PORT there and hand the socket to
 * P over FD_PROXY; P's proxy serves it from the host's namespace. Without
 * a namespace of our own the port would be the host's and the program's
 * sockets would reach the whole network: refuse to run instead.
 */
static void proxy_listen(unsigned int layers)
{
	struct sockaddr_in sa;
	struct ifreq ifr;
	struct msghdr msg;
	struct iovec iov;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct cmsghdr *cm;
	char one = 1;
	int s, on = 1;

	if (!(layers & SKIT_SANDBOX_NETNS)) {
		say("skit: no network namespace for the web proxy\n");
		_exit(127);
	}
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		goto fail;
	close(s);
	s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons(SKIT__PROXY_PORT);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
	    bind(s, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(s, 64) < 0)
		goto fail;
	memset(&msg, 0, sizeof(msg));
	memset(&ctl, 0, sizeof(ctl));
	iov.iov_base = &one;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &s, sizeof(int));
	if (sendmsg(FD_PROXY, &msg, MSG_NOSIGNAL) != 1)
		goto fail;
	close(s);
	close(FD_PROXY);
	return;
fail:
	say("skit: cannot set up the web proxy's socket\n");
	_exit(127);
}
#endif

/* B: pid 1 of the namespace. Never returns. */
static void init_main(const struct skit__run_opts *o, const struct plan *p,
                      unsigned int layers)
{
	int status;
	pid_t c, w;

	setsid();
#ifdef __linux__
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/* The namespace's own pid_max: pids are numbered below it, so at
	 * most that many processes live in it at once. */
	if (p->pid_max[0] && write_file("/proc/sys/kernel/pid_max", p->pid_max))
		layers |= SKIT_SANDBOX_PIDMAX;
#endif
	report(REP_READY, (int)layers);
	c = fork();
	if (c == 0)
		exec_program(o, p, layers);
	if (c < 0) {
		say("skit: cannot start the program\n");
		report(REP_STATUS, 127 << 8);
		_exit(0);
	}
	close(0);
	close(1);
	close(2);
	close(FD_RULESET);
	for (;;) {
		w = waitpid(-1, &status, 0);
		if (w == c) {
			report(REP_STATUS, status);
			/* Our exit kills the rest of the namespace. */
			_exit(0);
		}
		if (w < 0 && errno != EINTR)
			_exit(0);
	}
}

/* A: the confined child of P. Never returns. */
static void confined_child(const struct skit__run_opts *o, const struct plan *p,
                           int outfd, int errfd, int repfd)
{
	unsigned int layers = 0;
	int fds[FD_FIRST_FREE], status;
	struct sigaction ign;
	pid_t init;

	if (setsid() >= 0)
		layers |= SKIT_SANDBOX_PGROUP;
#ifdef __linux__
	/* Bound to P's calling thread: if skit dies, the run dies. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
#endif
	if (getppid() != p->parent)
		_exit(127);
	/* P signals B's group, never A; a stray signal must not orphan B
	 * either. C restores the defaults. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGTERM, &ign, NULL);
	sigaction(SIGINT, &ign, NULL);
	sigaction(SIGHUP, &ign, NULL);
	sigaction(SIGQUIT, &ign, NULL);
	fds[0] = open("/dev/null", O_RDONLY);
	fds[1] = outfd;
	fds[2] = errfd;
	fds[FD_REPORT] = repfd;
	fds[FD_RULESET] = p->ruleset_fd;
	fds[FD_CGROUP] = p->cgroup_fd;
	fds[FD_PROXY] = p->proxy_fd;
	if (fds[0] < 0 || place_fds(fds) < 0)
		_exit(127);
	/* Writing "0" moves the writer: B and C are born inside. */
	if (p->cgroup_fd >= 0 && write(FD_CGROUP, "0", 1) == 1)
		layers |= SKIT_SANDBOX_CGROUP;
	close(FD_CGROUP);
#ifdef __linux__
	layers |= enter_ns(p);
	/* Keyring step (its own function; docs/sandbox.md). */
	join_fresh_keyring();
	/* Web proxy step: the listener inside the new namespace. */
	if (p->proxy_fd >= 0)
		proxy_listen(layers);
#endif
	/* After the mounts: a folder entered before them would keep a way
	 * around the read-only binds. */
	if (o->cwd && chdir(p->cwd ? p->cwd : o->cwd) < 0) {
		say("skit: cannot enter the work folder\n");
		_exit(127);
	}
	if (!(layers & SKIT_SANDBOX_PIDNS)) {
		report(REP_READY, (int)layers);
		exec_program(o, p, layers);
	}
	init = fork();
	if (init == 0)
		init_main(o, p, layers);
	if (init < 0) {
		say("skit: cannot start the sandbox\n");
		_exit(127);
	}
	report(REP_INIT, (int)init);
	close(0);
	close(1);
	close(2);
	close(FD_REPORT);
	close(FD_RULESET);
	while (waitpid(init, &status, 0) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* ---- in the parent: preparing the layers ------------------------------- */

/* Here: the cgroup, the rlimits, the network and the plan as a whole.
 * The Landlock ruleset, the seccomp filters and the mounts each have a
 * file of their own (sandbox_plan.h). */

unsigned int skit__sandbox_disabled;
bool skit__sandbox_test_mount_fail;

#ifdef __linux__
/*
 * Our cgroup in the hierarchy that has the pids controller: cgroup v2
 * when the controller is enabled for our children there, else the v1
 * pids hierarchy. Fills `dir` with the folder to create a group in.
 */
static bool cgroup_base(char *dir, size_t size, bool *v2)
{
	char line[PATH_MAX + 256], v1path[PATH_MAX] = "", v2path[PATH_MAX] = "";
	char v1mnt[PATH_MAX] = "", v1root[PATH_MAX] = "";
	char v2mnt[PATH_MAX] = "", v2root[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'),
		     *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		line[strcspn(line, "\n")] = '\0';
		*c2 = '\0';
		if (!strcmp(line, "0:") && c1 + 1 == c2)
			snprintf(v2path, sizeof(v2path), "%s", c2 + 1);
		else if (strstr(c1 + 1, "pids"))
			snprintf(v1path, sizeof(v1path), "%s", c2 + 1);
	}
	fclose(f);
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	/* id parent maj:min root mountpoint opts... - fstype source super */
	while (fgets(line, sizeof(line), f)) {
		char root[PATH_MAX], mnt[PATH_MAX], fstype[64], super[512];
		const char *dash = strstr(line, " - ");

		if (!dash ||
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
		    sscanf(dash, " - %63s %*s %511s", fstype, super) != 2)
			continue;
		if (!strcmp(fstype, "cgroup2") && !v2mnt[0]) {
			snprintf(v2mnt, sizeof(v2mnt), "%s", mnt);
			snprintf(v2root, sizeof(v2root), "%s", root);
		} else if (!strcmp(fstype, "cgroup") && strstr(super, "pids")) {
			snprintf(v1mnt, sizeof(v1mnt), "%s", mnt);
			snprintf(v1root, sizeof(v1root), "%s", root);
		}
	}
	fclose(f);
	if (v2mnt[0] && v2path[0]) {
		const char *rel = v2path;
		char ctl[PATH_MAX + 64], buf[256] = "";
		FILE *c;

		if (strcmp(v2root, "/") &&
		    !strncmp(rel, v2root, strlen(v2root)))
			rel += strlen(v2root);
		snprintf(dir, size, "%s%s", v2mnt, rel);
		snprintf(ctl, sizeof(ctl), "%s/cgroup.subtree_control", dir);
		c = fopen(ctl, "re");
		if (c) {
			if (!fgets(buf, sizeof(buf), c))
				buf[0] = '\0';
			fclose(c);
		}
		if (strstr(buf, "pids")) {
			*v2 = true;
			return true;
		}
	}
	if (v1mnt[0] && v1path[0]) {
		const char *rel = v1path;

		if (strcmp(v1root, "/") &&
		    !strncmp(rel, v1root, strlen(v1root)))
			rel += strlen(v1root);
		snprintf(dir, size, "%s%s", v1mnt, rel);
		*v2 = false;
		return true;
	}
	return false;
}

/* Create a group of our own with pids.max = `max` (no limit when < 0)
 * and open its cgroup.procs. */
static void cgroup_make(struct plan *p, long max)
{
	char base[PATH_MAX - 64], file[PATH_MAX + 32], num[32];
	struct timespec ts;

	if (!cgroup_base(base, sizeof(base), &p->cgroup_v2))
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (int i = 0; i < 8; i++) {
		snprintf(p->cgroup_dir, sizeof(p->cgroup_dir),
		         "%s/skit-%ld-%lx%x", base, (long)getpid(),
		         (unsigned long)ts.tv_nsec, i);
		if (!mkdir(p->cgroup_dir, 0755))
			break;
		p->cgroup_dir[0] = '\0';
		if (errno != EEXIST)
			return;
	}
	if (!p->cgroup_dir[0])
		return;
	snprintf(file, sizeof(file), "%s/pids.max", p->cgroup_dir);
	if (max > 0)
		snprintf(num, sizeof(num), "%ld", max);
	else
		snprintf(num, sizeof(num), "max");
	if (write_file(file, num)) {
		snprintf(file, sizeof(file), "%s/cgroup.procs", p->cgroup_dir);
		p->cgroup_fd = open(file, O_WRONLY | O_CLOEXEC);
	}
	if (p->cgroup_fd < 0) {
		rmdir(p->cgroup_dir);
		p->cgroup_dir[0] = '\0';
	}
}

/* Kill what is left in the group, then remove it. */
static void cgroup_end(struct plan *p)
{
	char file[PATH_MAX + 32];
	bool killed = false;

	if (p->cgroup_fd >= 0)
		close(p->cgroup_fd);
	p->cgroup_fd = -1;
	if (!p->cgroup_dir[0])
		return;
	for (long waited = 0; waited < 3000; waited += 2) {
		FILE *f;
		long pid;

		if (!rmdir(p->cgroup_dir) || errno != EBUSY)
			break;
		snprintf(file, sizeof(file), "%s/cgroup.kill", p->cgroup_dir);
		if (!killed && p->cgroup_v2 && write_file(file, "1")) {
			killed = true;
		} else if (!p->cgroup_v2 || !killed) {
			/* v1 has no cgroup.kill: kill each member. pids.max
			 * bounds how many can be born meanwhile. */
			snprintf(file, sizeof(file), "%s/cgroup.procs",
			         p->cgroup_dir);
			f = fopen(file, "re");
			while (f && fscanf(f, "%ld", &pid) == 1)
				if (pid > 1 && pid != (long)getpid())
					kill((pid_t)pid, SIGKILL);
			if (f)
				fclose(f);
		}
		sleep_ms(2);
	}
	p->cgroup_dir[0] = '\0';
}

/* The kernel numbers pids per PID namespace up to a pid_max of the
 * namespace's own: Linux 6.14 and later. */
static bool pidmax_per_ns(void)
{
	struct utsname u;
	int major = 0, minor = 0;

	if (uname(&u) < 0 || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return false;
	return major > 6 || (major == 6 && minor >= 14);
}

/* Processes of our real uid now, for an RLIMIT_NPROC that adds to it. */
static long user_procs(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[300];
	struct stat st;
	long n = 0;
	uid_t uid = getuid();

	while (d && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s", de->d_name);
		if (!stat(path, &st) && st.st_uid == uid)
			n++;
	}
	if (d)
		closedir(d);
	return n;
}
#endif /* __linux__ */

/* Add one rlimit, never above the caller's own hard limit. */
static void plan_rlimit(struct plan *p, int resource, rlim_t soft, rlim_t hard)
{
	struct rlimit cur;

	if (!getrlimit(resource, &cur) && cur.rlim_max != RLIM_INFINITY) {
		if (hard == RLIM_INFINITY || hard > cur.rlim_max)
			hard = cur.rlim_max;
		if (soft == RLIM_INFINITY || soft > hard)
			soft = hard;
	}
	p->rl[p->nrl].resource = resource;
	p->rl[p->nrl].lim.rlim_cur = soft;
	p->rl[p->nrl].lim.rlim_max = hard;
	p->nrl++;
}

static rlim_t lim_long(long v, long dflt)
{
	if (v < 0)
		return RLIM_INFINITY;
	return (rlim_t)(v ? v : dflt);
}

static rlim_t lim_size(size_t v, size_t dflt)
{
	if (v == SIZE_MAX)
		return RLIM_INFINITY;
	return (rlim_t)(v ? v : dflt);
}

static void strv_drop(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		skitx_free(v[i]);
	skitx_free(v);
}

static void plan_release(struct plan *p)
{
	if (p->ruleset_fd >= 0)
		close(p->ruleset_fd);
	p->ruleset_fd = -1;
	if (p->proxy_fd >= 0)
		close(p->proxy_fd);
	if (p->proxy_peer >= 0)
		close(p->proxy_peer);
	p->proxy_fd = p->proxy_peer = -1;
	skitx_free(p->envp);
	p->envp = NULL;
#ifdef __linux__
	cgroup_end(p);
	skitx_free(p->prog.filter);
	p->prog.filter = NULL;
	p->prog.len = 0;
	skitx_free(p->modes.filter);
	p->modes.filter = NULL;
	skitx_free(p->newer.filter);
	p->newer.filter = NULL;
	p->modes.len = 0;
#endif
#ifdef __linux__
	/* Placeholders, once no process of the run can see them. */
	skit__sandbox_placeholders_release(p);
#endif
	strv_drop(p->hide, p->nhide);
	strv_drop(p->rebind, p->nrebind);
	strv_drop(p->ro, p->nro);
	strv_drop(p->pin, p->npin);
	p->pin = NULL;
	p->npin = 0;
	strv_drop(p->link, p->nlink);
	p->link = NULL;
	p->nlink = 0;
	skitx_free(p->path);
	skitx_free(p->cwd);
	p->path = p->cwd = NULL;
	p->hide = p->rebind = p->ro = NULL;
	p->nhide = p->nrebind = p->nro = 0;
}

#ifdef __linux__
/*
 * Network step: with the network off, a network namespace of its own
 * (only a loopback, down) besides the seccomp filter, so that a socket
 * the filter lets through (AF_UNIX in the abstract namespace, a kernel
 * without seccomp) still reaches nothing of the host's network.
 */
static void plan_netns(struct plan *p, const struct skit__run_opts *o)
{
	if (o->allow_network || (skit__sandbox_disabled & SKIT_SANDBOX_NETNS))
		return;
	p->want |= SKIT_SANDBOX_NETNS;
	p->ns_flags |= CLONE_NEWNET;
}

/* Whether `entry` ("NAME=value") sets a proxy variable of its own. */
static bool proxy_var(const char *entry)
{
	static const char *const names[] = { "http_proxy=", "https_proxy=",
		                             "all_proxy=", "no_proxy=" };

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(names); i++)
		if (!strncasecmp(entry, names[i], strlen(names[i])))
			return true;
	return false;
}

/*
 * Web proxy step, in P: the socketpair A hands the listener over, and
 * the environment with the proxy announced (the caller's own proxy
 * variables dropped: they would lead nowhere).
 */
static void plan_proxy(struct plan *p, const struct skit__run_opts *o)
{
	static char *const vars[] = { "HTTP_PROXY=" PROXY_URL,
		                      "HTTPS_PROXY=" PROXY_URL,
		                      "http_proxy=" PROXY_URL,
		                      "https_proxy=" PROXY_URL };
	size_t n = 0, k = 0;
	int sv[2];

	if (!skit__sandbox_web_proxy(o))
		return;
	while (o->envp && o->envp[n])
		n++;
	p->envp = skitx_calloc(n + SKIT_ARRAY_SIZE(vars) + 1, sizeof(char *));
	if (!p->envp ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		/* No proxy: the namespace keeps the network off. */
		skitx_free(p->envp);
		p->envp = NULL;
		return;
	}
	p->proxy_peer = sv[0];
	p->proxy_fd = sv[1];
	for (size_t i = 0; i < n; i++)
		if (!proxy_var(o->envp[i]))
			p->envp[k++] = o->envp[i];
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(vars); i++)
		p->envp[k++] = vars[i];
}

/* In P: the listener A sent, or -1. */
static int proxy_receive(int peer)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *cm;
	char one;
	int fd = -1;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &one;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl.buf;
	msg.msg_controllen = sizeof(ctl.buf);
	if (recvmsg(peer, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	return fd;
}
#endif

static void plan_build(struct plan *p, const struct skit__run_opts *o)
{
	const struct skit__limits *l = &o->limits;
	long procs = l->processes ? l->processes : SKIT__LIMIT_PROCESSES;
	rlim_t cpu;

	memset(p, 0, sizeof(*p));
	p->parent = getpid();
	p->ruleset_fd = p->cgroup_fd = p->proxy_fd = p->proxy_peer = -1;
	p->want = SKIT_SANDBOX_PGROUP | SKIT_SANDBOX_RLIMITS;
#ifdef __linux__
	p->want |= SKIT_SANDBOX_NO_NEW_PRIVS | SKIT_SANDBOX_LANDLOCK |
	           SKIT_SANDBOX_LANDLOCK_SCOPE | SKIT_SANDBOX_SECCOMP |
	           SKIT_SANDBOX_PIDNS | SKIT_SANDBOX_CGROUP;
	if (!o->allow_network)
		p->want |= SKIT_SANDBOX_LANDLOCK_NET;
	skit__sandbox_ll_build(p, o);
# ifdef SKIT_HAVE_SECCOMP
	if (!(skit__sandbox_disabled & SKIT_SANDBOX_SECCOMP))
		skit__sandbox_seccomp_build(p, o);
	if (!(skit__sandbox_disabled & SKIT_SANDBOX_NOCAPS))
		skit__sandbox_fsmode_build(p);
# endif
	if ((p->prog.len || p->modes.len) &&
	    skit__syscall_newer_filter(&p->newer))
		p->newer.len = 0;
	/*
	 * The process bound: the PID namespace's pid_max where the kernel
	 * has one per namespace (no cgroup to create, and no cgroup v1
	 * migration, which waits for a grace period); else a pids cgroup,
	 * where A and B live too. The kernel's smallest pid_max is 301.
	 */
	if (procs > 0 && pidmax_per_ns() &&
	    !(skit__sandbox_disabled &
	      (SKIT_SANDBOX_PIDNS | SKIT_SANDBOX_PIDMAX))) {
		snprintf(p->pid_max, sizeof(p->pid_max), "%ld",
		         procs + 1 > 301 ? procs + 1 : 301);
		p->want = (p->want & ~(unsigned int)SKIT_SANDBOX_CGROUP) |
		          SKIT_SANDBOX_PIDMAX;
	} else if (!(skit__sandbox_disabled & SKIT_SANDBOX_CGROUP)) {
		cgroup_make(p, procs > 0 ? procs + 2 : -1);
	}
	if (!(skit__sandbox_disabled & SKIT_SANDBOX_PIDNS))
		p->ns_flags = CLONE_NEWPID;
	p->nocaps = !(skit__sandbox_disabled & SKIT_SANDBOX_NOCAPS);
	p->want |= SKIT_SANDBOX_NOCAPS;
	if (!(skit__sandbox_disabled & SKIT_SANDBOX_MOUNTNS) &&
	    skit__sandbox_plan_mounts(p, o)) {
		p->want |= SKIT_SANDBOX_MOUNTNS;
		p->ns_flags |= CLONE_NEWNS;
	}
	plan_netns(p, o);
	plan_proxy(p, o);
	if (geteuid() != 0) {
		snprintf(p->uid_map, sizeof(p->uid_map), "%lu %lu 1\n",
		         (unsigned long)geteuid(), (unsigned long)geteuid());
		snprintf(p->gid_map, sizeof(p->gid_map), "%lu %lu 1\n",
		         (unsigned long)getegid(), (unsigned long)getegid());
	}
#endif
	cpu = lim_long(l->cpu_seconds,
	               (o->timeout_ms + 999) / 1000 + SKIT__LIMIT_CPU_MARGIN);
	/* Soft first (SIGXCPU, which a script may catch), hard a second
	 * later (SIGKILL). */
	plan_rlimit(p, RLIMIT_CPU, cpu,
	            cpu == RLIM_INFINITY ? RLIM_INFINITY : cpu + 1);
	plan_rlimit(p, RLIMIT_AS, lim_size(l->memory_bytes, SKIT__LIMIT_MEMORY),
	            lim_size(l->memory_bytes, SKIT__LIMIT_MEMORY));
	plan_rlimit(p, RLIMIT_FSIZE, lim_size(l->file_bytes, SKIT__LIMIT_FILE),
	            lim_size(l->file_bytes, SKIT__LIMIT_FILE));
	plan_rlimit(p, RLIMIT_NOFILE,
	            lim_long(l->open_files, SKIT__LIMIT_OPEN_FILES),
	            lim_long(l->open_files, SKIT__LIMIT_OPEN_FILES));
	plan_rlimit(p, RLIMIT_CORE, 0, 0);
	if (procs > 0 && p->cgroup_fd < 0) {
		/* RLIMIT_NPROC counts every process of the user (and binds
		 * nobody running as root): give the run `procs` more than
		 * the user has now. The cgroup is the real bound. */
		long base = 0;

#ifdef __linux__
		base = geteuid() ? user_procs() : 0;
#endif
		plan_rlimit(p, RLIMIT_NPROC, (rlim_t)(base + procs),
		            (rlim_t)(base + procs));
	}
}

/* ---- in the parent: running -------------------------------------------- */

#ifdef __linux__
/*
 * Serve the listener A sent with the proxy. When none came or the proxy
 * cannot start, the listener is closed: the program's connections are
 * refused at once rather than left hanging.
 */
static struct skit__netproxy *proxy_start(struct plan *p,
                                          const struct skit__run_opts *o)
{
	struct skit__netproxy_opts po;
	struct skit__netproxy *px = NULL;
	int lfd;

	close(p->proxy_fd);
	p->proxy_fd = -1;
	lfd = proxy_receive(p->proxy_peer);
	if (lfd < 0)
		return NULL;
	po.domains = o->web_domains;
	po.resolve = o->proxy_resolve;
	if (skit__netproxy_start(&px, lfd, &po, NULL))
		return NULL;
	return px;
}
#endif

/*
 * The disk cap: the free space of the file systems holding the writable
 * folders, taken when the run starts and compared while it runs. It
 * counts whatever the run adds wherever it can write, through any number
 * of files and processes; other writers on the same file systems count
 * too (docs/sandbox.md).
 */
#define DISK_FS_MAX 4
struct disk {
	int n;
	unsigned long fsid[DISK_FS_MAX];
	const char *path[DISK_FS_MAX];
	uint64_t free0[DISK_FS_MAX];
};

static uint64_t fs_free(const char *path, unsigned long *fsid)
{
	struct statvfs sv;

	if (statvfs(path, &sv) < 0)
		return 0;
	if (fsid)
		*fsid = sv.f_fsid;
	return (uint64_t)sv.f_bfree * sv.f_frsize;
}

static void disk_start(struct disk *d, const struct skit__run_opts *o)
{
	d->n = 0;
	for (size_t i = 0; o->disk_cap && o->write_paths && o->write_paths[i];
	     i++) {
		unsigned long id = 0;
		uint64_t f = fs_free(o->write_paths[i], &id);
		bool seen = false;

		for (int k = 0; k < d->n; k++)
			seen |= d->fsid[k] == id;
		if (seen || d->n == DISK_FS_MAX || !f)
			continue;
		d->fsid[d->n] = id;
		d->path[d->n] = o->write_paths[i];
		d->free0[d->n++] = f;
	}
}

/* Bytes the file systems lost since disk_start(). */
static uint64_t disk_added(const struct disk *d)
{
	uint64_t sum = 0;

	for (int k = 0; k < d->n; k++) {
		uint64_t now = fs_free(d->path[k], NULL);

		if (now && now < d->free0[k])
			sum += d->free0[k] - now;
	}
	return sum;
}

/* Read the records available, waiting up to `ms` for the first. */
static void read_reports(struct run *r, int ms)
{
	struct pollfd pfd;
	unsigned char buf[16 * sizeof(struct report)];
	ssize_t n;

	if (r->report < 0)
		return;
	pfd.fd = r->report;
	pfd.events = POLLIN;
	if (ms > 0 && poll(&pfd, 1, ms) <= 0)
		return;
	for (;;) {
		n = read(r->report, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0) {
				close(r->report);
				r->report = -1;
			}
			return;
		}
		for (ssize_t i = 0; i < n; i++) {
			struct report rec;

			r->partial[r->npartial++] = buf[i];
			if (r->npartial < sizeof(rec))
				continue;
			memcpy(&rec, r->partial, sizeof(rec));
			r->npartial = 0;
			if (rec.tag == REP_INIT)
				r->init = (pid_t)rec.val;
			else if (rec.tag == REP_READY)
				r->ready = true;
			else if (rec.tag == REP_STATUS) {
				r->have_status = true;
				r->status = rec.val;
			}
			if (rec.tag == REP_READY || rec.tag == REP_LAYERS)
				r->layers |= (unsigned int)rec.val;
		}
	}
}

/*
 * Until the sandbox is up: B's pid and B's own session are known before
 * the first signal, so a signal can never miss the program's group.
 */
static void wait_ready(struct run *r, long deadline)
{
	while (r->report >= 0) {
		long left = deadline - skitx_clock_ms();

		if (r->ready && (!(r->layers & SKIT_SANDBOX_PIDNS) || r->init))
			return;
		if (left <= 0)
			return;
		read_reports(r,
		             left > POLL_SLICE_MS ? POLL_SLICE_MS : (int)left);
	}
}

/*
 * Signal the run: the program's process group; with a PID namespace a
 * SIGKILL goes to its init, whose death takes the whole namespace.
 */
static void signal_run(struct run *r, int sig)
{
	read_reports(r, 0);
	if (r->gone)
		return;
	if (r->init > 0) {
		kill(-r->init, sig);
		if (sig == SIGKILL)
			kill(r->init, SIGKILL);
		return;
	}
	kill(-r->pid, sig);
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
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, repp[2] = { -1, -1 };
	long start, deadline, kill_at = 0, grace;
	struct pollfd pfd[2];
	bool term_sent = false, killed = false, reaped = false;
	long drain_until = 0;
	int status = 0, rc = 0, r;
	struct skit__netproxy *proxy = NULL;
	struct plan plan;
	struct run run;
	struct disk disk;
	pid_t pid, w;

	memset(res, 0, sizeof(*res));
	memset(&run, 0, sizeof(run));
	run.report = -1;
	skitx_buf_init(&res->out, SIZE_MAX);
	skitx_buf_init(&res->err, SIZE_MAX);
	res->exit_code = -1;
	grace = o->grace_ms > 0 ? o->grace_ms : DEFAULT_GRACE_MS;
	memset(&plan, 0, sizeof(plan));
	plan.ruleset_fd = plan.cgroup_fd = plan.proxy_fd = plan.proxy_peer = -1;
	if (o->confine)
		plan_build(&plan, o);
	if (plan.refuse[0]) {
		rc = skit__error_set(err, SKIT_EUNSAFE, 0, "%s", plan.refuse);
		goto out;
	}
	/* O_CLOEXEC everywhere: a fork+exec in another thread must not
	 * inherit our pipes (it would hold them open). dup2() in the child
	 * clears the flag on the copies it keeps. */
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    (o->confine && pipe2(repp, O_CLOEXEC) < 0)) {
		rc = skit__error_set(err, SKIT_EIO, 0, "pipe: %s",
		                     strerror(errno));
		goto out;
	}
	disk_start(&disk, o);
	start = skitx_clock_ms();
	deadline = start + o->timeout_ms;
	pid = fork();
	if (pid < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "fork: %s",
		                     strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (o->confine)
			confined_child(o, &plan, outp[1], errp[1], repp[1]);
		child(o, outp[1], errp[1]);
	}
	run.pid = pid;
	if (o->confine) {
		close(repp[1]);
		repp[1] = -1;
		run.report = repp[0];
		repp[0] = -1;
		fcntl(run.report, F_SETFL, O_NONBLOCK);
		wait_ready(&run, start + READY_MS < deadline ? start + READY_MS
		                                             : deadline);
#ifdef __linux__
		if (plan.proxy_peer >= 0)
			proxy = proxy_start(&plan, o);
#endif
	} else {
		/* Both sides set the group, so a kill cannot race the
		 * child's. */
		setpgid(pid, pid);
		run.layers = SKIT_SANDBOX_PGROUP;
	}
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
	pfd[0].fd = outp[0];
	pfd[1].fd = errp[0];
	for (;;) {
		long now = skitx_clock_ms(), wait;

		if (!term_sent &&
		    (now >= deadline || (o->cancel && *o->cancel))) {
			if (now >= deadline)
				res->timed_out = true;
			else
				res->canceled = true;
			signal_run(&run, SIGTERM);
			term_sent = true;
			kill_at = now + grace;
		}
		if (term_sent && !killed && now >= kill_at) {
			signal_run(&run, SIGKILL);
			killed = true;
		}
		if (!killed && disk.n && disk_added(&disk) > o->disk_cap) {
			/* At once: every moment adds more. */
			res->disk_capped = true;
			signal_run(&run, SIGKILL);
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
				run.gone = run.init > 0;
				drain_until = now + DRAIN_MS;
			}
		} else if (now >= drain_until) {
			signal_run(&run, SIGKILL);
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
			signal_run(&run, SIGKILL);
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
				signal_run(&run, SIGKILL);
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
	/* A outlives B, and B's exit ends the namespace: with A reaped, B's
	 * pid may already name someone else. */
	run.gone = run.init > 0;
	/* The leader is gone; make sure no member of its group lingers. */
	signal_run(&run, SIGKILL);
	res->duration_ms = skitx_clock_ms() - start;
	if (disk.n) {
		res->disk_added = disk_added(&disk);
		if (res->disk_added > o->disk_cap)
			res->disk_capped = true;
	}
	if (o->confine) {
		while (run.report >= 0)
			read_reports(&run, 0);
		if (run.init > 0) {
			/* Report the program (C), not A. No status from B
			 * means B was killed, and C with it. */
			if (run.have_status)
				status = run.status;
			else if (w == pid && WIFEXITED(status) &&
			         WEXITSTATUS(status))
				; /* A's own failure before the program */
			else
				status = SIGKILL; /* as a wait status */
		}
	}
	if (w == pid && WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else if (w == pid && WIFSIGNALED(status)) {
		res->signal = WTERMSIG(status);
	}
	res->layers = run.layers;
	res->missing = o->confine ? plan.want & ~run.layers : 0;
out : {
	struct skit__netproxy_counts pc;

	skit__netproxy_stop(proxy, &pc);
	res->web = proxy != NULL;
	res->web_forwarded = pc.forwarded;
	res->web_refused = pc.refused;
}
	if (o->confine)
		plan_release(&plan);
	if (run.report >= 0)
		close(run.report);
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		if (repp[i] >= 0)
			close(repp[i]);
	}
	return rc;
}

void skit__run_result_release(struct skit__run_result *res)
{
	skitx_buf_release(&res->out);
	skitx_buf_release(&res->err);
}

/* ---- the probe (include/skit/sandbox.h) -------------------------------- */

int skit_sandbox_landlock_abi(void)
{
#ifdef __linux__
	return skit__sandbox_ll_abi();
#else
	return 0;
#endif
}

unsigned int skit_sandbox_available(void)
{
	unsigned int bits = SKIT_SANDBOX_PGROUP | SKIT_SANDBOX_RLIMITS;
#ifdef __linux__
	struct plan p;
	int abi = skit__sandbox_ll_abi(), status;
	pid_t pid;

	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0)
		bits |= SKIT_SANDBOX_NO_NEW_PRIVS;
	if (abi >= 1)
		bits |= SKIT_SANDBOX_LANDLOCK;
	if (abi >= 4)
		bits |= SKIT_SANDBOX_LANDLOCK_NET;
	if (abi >= 6)
		bits |= SKIT_SANDBOX_LANDLOCK_SCOPE;
# ifdef SKIT_HAVE_SECCOMP
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0)
		bits |= SKIT_SANDBOX_SECCOMP;
# endif
	memset(&p, 0, sizeof(p));
	p.ruleset_fd = p.cgroup_fd = p.proxy_fd = p.proxy_peer = -1;
	p.ns_flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS;
	if (geteuid() != 0) {
		snprintf(p.uid_map, sizeof(p.uid_map), "%lu %lu 1\n",
		         (unsigned long)geteuid(), (unsigned long)geteuid());
		snprintf(p.gid_map, sizeof(p.gid_map), "%lu %lu 1\n",
		         (unsigned long)getegid(), (unsigned long)getegid());
	}
	/* Namespaces: try them for real, in a child that only exits. */
	pid = fork();
	if (pid == 0) {
		unsigned int got = enter_ns(&p);

		_exit((got & SKIT_SANDBOX_PIDNS ? 1 : 0) |
		      (got & SKIT_SANDBOX_NETNS ? 2 : 0) |
		      (got & SKIT_SANDBOX_MOUNTNS ? 4 : 0) |
		      (drop_caps() ? 8 : 0));
	}
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pid > 0 && WIFEXITED(status)) {
		if (WEXITSTATUS(status) & 1)
			bits |= SKIT_SANDBOX_PIDNS;
		if (WEXITSTATUS(status) & 2)
			bits |= SKIT_SANDBOX_NETNS;
		if (WEXITSTATUS(status) & 4)
			bits |= SKIT_SANDBOX_MOUNTNS;
		/* As root, capabilities alone do not stop a setuid file: the
		 * file-mode filter must be there too. */
		if ((WEXITSTATUS(status) & 1) && pidmax_per_ns())
			bits |= SKIT_SANDBOX_PIDMAX;
		if ((WEXITSTATUS(status) & 8) &&
		    (geteuid() != 0 || (bits & SKIT_SANDBOX_SECCOMP)))
			bits |= SKIT_SANDBOX_NOCAPS;
	}
	cgroup_make(&p, 1);
	if (p.cgroup_fd >= 0)
		bits |= SKIT_SANDBOX_CGROUP;
	cgroup_end(&p);
#endif
	return bits;
}

const char *skit_sandbox_layer_name(unsigned int bit)
{
	static const char *const names[] = {
		"pgroup",       "rlimits",        "no_new_privs", "landlock",
		"landlock_net", "landlock_scope", "seccomp",      "netns",
		"pidns",        "cgroup",         "mountns",      "nocaps",
		"pidmax",
	};

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(names); i++)
		if (bit == 1u << i)
			return names[i];
	return NULL;
}
