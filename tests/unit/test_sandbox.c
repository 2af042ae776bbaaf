/* SPDX-License-Identifier: MIT */
/*
 * test_sandbox.c - skit__run() against hostile scripts (HOSTILE.md part E),
 * each with confine = true: a secret outside the allowed paths, writes
 * outside the work folder, a TCP connect to a listener of ours (refused;
 * and reached with the network allowed, so the test is real), the
 * environment passed exactly, a fork bomb, an output flood, background
 * children that try to outlive a timeout (`&`, nohup, setsid, a double
 * fork), a symlink out of the skill folder, `trap '' TERM`, an inherited
 * fd 3, TIOCSTI, exits by signal, the rlimits, and the probe.
 *
 * A test whose layer this kernel lacks (per skit_sandbox_available())
 * skips that one assertion and prints a note.
 */
#include "common.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <grp.h>
#include <setjmp.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/seccomp.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "support/httpd.h"
#include "support/procs.h"
#include "skit/sandbox.h"
#include "lib/sandbox/sandbox_int.h"
#include "lib/sandbox/syscalls.h"
#include "util/alloc.h"
#include "util/fs.h"

static char base[PATH_MAX / 4], skill[PATH_MAX / 2], work[PATH_MAX / 2];
static unsigned int avail;

static char *env_default[] = { "PATH=/usr/local/bin:/usr/bin:/bin",
	                       "LANG=C.UTF-8", NULL };

static void rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[PATH_MAX];
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rm_rf(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * A fresh layout under SKIT_TEST_DIR: base/secret.txt (outside every
 * allowed path), base/skill (read-only), base/work (writable, the cwd).
 */
static void fresh(void)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(base, sizeof(base), "%s/sbx",
	         top ? top : "/tmp/skit-test-sandbox");
	rm_rf(base);
	ASSERT_OK(skitx_fs_mkdir_p(base, 0755));
	snprintf(skill, sizeof(skill), "%s/skill", base);
	snprintf(work, sizeof(work), "%s/work", base);
	ASSERT_OK(mkdir(skill, 0755));
	ASSERT_OK(mkdir(work, 0755));
	{
		char p[PATH_MAX];

		snprintf(p, sizeof(p), "%s/secret.txt", base);
		put(p, "TOPSECRET-42\n");
		snprintf(p, sizeof(p), "%s/ok.txt", skill);
		put(p, "skill-content\n");
	}
	avail = skit_sandbox_available();
}

static void opts_init(struct skit__run_opts *o, char **argv)
{
	static const char *rp[2], *wp[2];

	rp[0] = skill;
	rp[1] = NULL;
	wp[0] = work;
	wp[1] = NULL;
	memset(o, 0, sizeof(*o));
	o->path = argv[0];
	o->argv = argv;
	o->envp = env_default;
	o->cwd = work;
	o->timeout_ms = 10000;
	o->grace_ms = 300;
	o->output_cap = 64 * 1024;
	o->confine = true;
	o->read_paths = rp;
	o->write_paths = wp;
}

/* Run `script` with /bin/sh -c, confined; `o` may adjust the options. */
static void run_sh(struct skit__run_result *res, const char *script,
                   void (*adjust)(struct skit__run_opts *o))
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct skit__run_opts o;
	skit_error err = { 0 };

	opts_init(&o, argv);
	if (adjust)
		adjust(&o);
	ASSERT_OK(skit__run(res, &o, &err));
}

static void note(const char *what, unsigned int layer)
{
	printf("note: %s: layer %s unavailable here, assertion skipped\n", what,
	       skit_sandbox_layer_name(layer));
}

/* ---- tests ------------------------------------------------------------- */

static void test_sandbox__probe(void)
{
	char *argv[] = { "/bin/true", NULL };
	struct skit__run_opts o;
	struct skit__run_result res;
	unsigned int want;

	fresh();
	ASSERT_STR(skit_sandbox_layer_name(SKIT_SANDBOX_PGROUP), "pgroup");
	ASSERT_STR(skit_sandbox_layer_name(SKIT_SANDBOX_CGROUP), "cgroup");
	ASSERT(!skit_sandbox_layer_name(0));
	ASSERT(!skit_sandbox_layer_name(3));
	ASSERT(!skit_sandbox_layer_name(1u << 20));
	printf("landlock abi %d; layers:", skit_sandbox_landlock_abi());
	for (unsigned int b = 1; b & SKIT_SANDBOX_ALL; b <<= 1)
		printf(" %s=%s", skit_sandbox_layer_name(b),
		       avail & b ? "yes" : "no");
	printf("\n");
	ASSERT(avail & SKIT_SANDBOX_PGROUP);
	ASSERT_EQ(!!(avail & SKIT_SANDBOX_LANDLOCK),
	          skit_sandbox_landlock_abi() > 0);

	opts_init(&o, argv);
	ASSERT_OK(skit__run(&res, &o, NULL));
	ASSERT_EQ(res.exit_code, 0);
	/* Everything available is applied (the network namespace too,
	 * besides seccomp); only the unavailable is missing. */
	want = SKIT_SANDBOX_ALL;
	/* The namespace's pid_max stands in for the cgroup. */
	if (avail & SKIT_SANDBOX_PIDMAX)
		want &= ~SKIT_SANDBOX_CGROUP;
	else
		want &= ~SKIT_SANDBOX_PIDMAX;
	ASSERT_EQ(res.layers & avail & want, avail & want);
	ASSERT_EQ(res.missing, want & ~res.layers);
	ASSERT_EQ(res.layers & ~want, 0);
	ASSERT_EQ(res.missing & avail, 0);
	skit__run_result_release(&res);

	/* With the network allowed its layers are not asked for. */
	o.allow_network = true;
	ASSERT_OK(skit__run(&res, &o, NULL));
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_EQ(res.layers & (SKIT_SANDBOX_NETNS | SKIT_SANDBOX_LANDLOCK_NET),
	          0);
	ASSERT_EQ(res.missing &
	                  (SKIT_SANDBOX_NETNS | SKIT_SANDBOX_LANDLOCK_NET),
	          0);
	skit__run_result_release(&res);
}

static void test_sandbox__unconfined_unchanged(void)
{
	char *argv[] = { "/bin/sh", "-c", "echo hi; echo err >&2; exit 3",
		         NULL };
	struct skit__run_opts o;
	struct skit__run_result res;

	fresh();
	opts_init(&o, argv);
	o.confine = false;
	ASSERT_OK(skit__run(&res, &o, NULL));
	ASSERT_EQ(res.exit_code, 3);
	ASSERT_STR(skitx_buf_cstr(&res.out), "hi\n");
	ASSERT_STR(skitx_buf_cstr(&res.err), "err\n");
	ASSERT_EQ(res.layers, SKIT_SANDBOX_PGROUP);
	ASSERT_EQ(res.missing, 0);
	skit__run_result_release(&res);
}

static void test_sandbox__secret_outside(void)
{
	struct skit__run_result res;
	char script[PATH_MAX + 64];

	fresh();
	snprintf(script, sizeof(script), "cat '%s/secret.txt'", base);
	run_sh(&res, script, NULL);
	if (avail & SKIT_SANDBOX_LANDLOCK) {
		ASSERT(res.exit_code != 0);
		ASSERT(!strstr(skitx_buf_cstr(&res.out), "TOPSECRET"));
		ASSERT(res.layers & SKIT_SANDBOX_LANDLOCK);
	} else {
		note("secret outside", SKIT_SANDBOX_LANDLOCK);
	}
	skit__run_result_release(&res);

	/* The skill folder is readable, and so are the system folders. */
	snprintf(script, sizeof(script),
	         "cat '%s/ok.txt' && head -c 5 /etc/passwd && echo", skill);
	run_sh(&res, script, NULL);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_STR(skitx_buf_cstr(&res.out), "skill-content\nroot:\n");
	skit__run_result_release(&res);

	/* /etc is not given whole. */
	run_sh(&res, "cat /etc/shadow /etc/ssh/ssh_host_ed25519_key", NULL);
	ASSERT(res.exit_code != 0);
	ASSERT_EQ(skitx_buf_len(&res.out), 0);
	skit__run_result_release(&res);
}

static void test_sandbox__write_outside(void)
{
	struct skit__run_result res;
	char script[3 * PATH_MAX], path[PATH_MAX];
	struct stat st;

	fresh();
	snprintf(script, sizeof(script),
	         "echo in > '%s/inside.txt' && echo skill > '%s/new.txt';"
	         "echo out > '%s/outside.txt'; echo home > /tmp/skit-pwned-$$;"
	         "rm -f '%s/ok.txt'",
	         work, skill, base, skill);
	run_sh(&res, script, NULL);
	snprintf(path, sizeof(path), "%s/inside.txt", work);
	ASSERT_OK(stat(path, &st));
	ASSERT_EQ(st.st_size, 3);
	if (avail & SKIT_SANDBOX_LANDLOCK) {
		ASSERT(res.exit_code != 0);
		snprintf(path, sizeof(path), "%s/outside.txt", base);
		ASSERT(stat(path, &st) < 0);
		snprintf(path, sizeof(path), "%s/new.txt", skill);
		ASSERT(stat(path, &st) < 0);
		snprintf(path, sizeof(path), "%s/ok.txt", skill);
		ASSERT_OK(stat(path, &st));
	} else {
		note("write outside", SKIT_SANDBOX_LANDLOCK);
	}
	skit__run_result_release(&res);
}

static void allow_net(struct skit__run_opts *o)
{
	o->allow_network = true;
}

static void test_sandbox__network(void)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct skit__run_result res;
	char script[512];
	int lfd;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; network test skipped\n");
		return;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT(lfd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_OK(listen(lfd, 8));
	ASSERT_OK(getsockname(lfd, (struct sockaddr *)&sa, &len));
	snprintf(script, sizeof(script),
	         "exec python3 -c \"import socket\n"
	         "try:\n"
	         "  socket.create_connection(('127.0.0.1', %d), 3)\n"
	         "  print('tcp-connected')\n"
	         "except OSError as e:\n"
	         "  print('tcp-refused', e.errno)\n"
	         "try:\n"
	         "  s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
	         "  s.sendto(b'x', ('127.0.0.1', %d))\n"
	         "  print('udp-sent')\n"
	         "except OSError as e:\n"
	         "  print('udp-refused', e.errno)\n"
	         "a, b = socket.socketpair()\n"
	         "print('socketpair-ok')\n\"",
	         ntohs(sa.sin_port), ntohs(sa.sin_port));
	run_sh(&res, script, NULL);
	ASSERT_EQ(res.exit_code, 0);
	if (avail & (SKIT_SANDBOX_SECCOMP | SKIT_SANDBOX_NETNS |
	             SKIT_SANDBOX_LANDLOCK_NET)) {
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "tcp-refused");
		ASSERT(!strstr(skitx_buf_cstr(&res.out), "tcp-connected"));
	} else {
		note("network off", SKIT_SANDBOX_SECCOMP);
	}
	if (avail & (SKIT_SANDBOX_SECCOMP | SKIT_SANDBOX_NETNS))
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "udp-refused");
	/* AF_UNIX pairs keep working (multiprocessing and the like). */
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "socketpair-ok");
	skit__run_result_release(&res);

	/* The same script reaches the listener with the network allowed. */
	run_sh(&res, script, allow_net);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "tcp-connected");
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "udp-sent");
	skit__run_result_release(&res);
	close(lfd);
}

static void test_sandbox__environment(void)
{
	char *argv[] = { "/usr/bin/env", NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", "HOME=/nowhere", NULL };
	struct skit__run_opts o;
	struct skit__run_result res;

	fresh();
	setenv("OPENAI_API_KEY", "sk-test-SECRET-do-not-leak", 1);
	opts_init(&o, argv);
	o.envp = envp;
	ASSERT_OK(skit__run(&res, &o, NULL));
	unsetenv("OPENAI_API_KEY");
	ASSERT_EQ(res.exit_code, 0);
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "SECRET"));
	/* Exactly what the caller passed, nothing of ours. */
	ASSERT_STR(skitx_buf_cstr(&res.out),
	           "PATH=/usr/bin:/bin\nHOME=/nowhere\n");
	skit__run_result_release(&res);

	/* Nor through /proc: the parent's environ is out of reach. */
	{
		char script[160];

		snprintf(
		        script, sizeof(script),
		        "cat /proc/%ld/environ >/dev/null 2>&1 && echo readable"
		        " || echo denied",
		        (long)getpid());
		run_sh(&res, script, NULL);
	}
	if (avail & SKIT_SANDBOX_LANDLOCK)
		ASSERT_STR(skitx_buf_cstr(&res.out), "denied\n");
	else
		note("parent environ", SKIT_SANDBOX_LANDLOCK);
	skit__run_result_release(&res);
}

/* Git works in a script as outside: /etc/gitconfig is readable (git
 * stops at a config file it may not read), config writes go where git
 * puts them. */
static void test_sandbox__git_works(void)
{
	char home[PATH_MAX + 16], henv[PATH_MAX + 32];
	char *argv[] = {
		"/bin/sh", "-c",
		"git config --global user.email t@example.org && "
		"git init -q repo && cd repo && "
		"git config user.name tester && git config --get user.name && "
		"git status --short && echo GIT-OK",
		NULL
	};
	char *envp[] = { "PATH=/usr/bin:/bin", henv, "LANG=C", NULL };
	struct skit__run_opts o;
	struct skit__run_result res;

	fresh();
	if (access("/usr/bin/git", X_OK)) {
		printf("note: no git here; skipped\n");
		return;
	}
	snprintf(home, sizeof(home), "%s/home", work);
	ASSERT_OK(mkdir(home, 0700));
	snprintf(henv, sizeof(henv), "HOME=%s", home);
	opts_init(&o, argv);
	o.envp = envp;
	ASSERT_OK(skit__run(&res, &o, NULL));
	if (res.exit_code)
		printf("stderr: %s\n", skitx_buf_cstr(&res.err));
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "tester\nGIT-OK\n");
	ASSERT(!strstr(skitx_buf_cstr(&res.err), "unable to access"));
	ASSERT(!strstr(skitx_buf_cstr(&res.err), "warning"));
	skit__run_result_release(&res);
}

static void short_timeout(struct skit__run_opts *o)
{
	o->timeout_ms = 1500;
	o->grace_ms = 300;
}

static void test_sandbox__fork_bomb(void)
{
	struct skit__run_result res;
	char script[256], tag[64];
	long t0, took;

	fresh();
	if (!(avail & (SKIT_SANDBOX_CGROUP | SKIT_SANDBOX_PIDNS)) &&
	    geteuid() == 0) {
		/* RLIMIT_NPROC does not bind root: nothing would stop it. */
		note("fork bomb", SKIT_SANDBOX_CGROUP);
		return;
	}
	snprintf(tag, sizeof(tag), "skitbomb%ld", (long)getpid());
	snprintf(script, sizeof(script),
	         "f() { f | f & }; f; while :; do sleep 1; done");
	{
		char *argv[] = { "/bin/sh", "-c", script, tag, NULL };
		struct skit__run_opts o;

		opts_init(&o, argv);
		short_timeout(&o);
		t0 = now_ms();
		ASSERT_OK(skit__run(&res, &o, NULL));
		took = now_ms() - t0;
	}
	printf("fork bomb: %ld ms, layers 0x%x\n", took, res.layers);
	/* The runtime kept its schedule: timeout + grace + slack. */
	ASSERT(took < 1500 + 300 + 2500);
	/* Killed at the timeout, or the shell gave up when a fork failed
	 * against the limit (dash exits on "cannot fork"): either way it
	 * did not run free. */
	ASSERT(res.timed_out || res.exit_code != 0 || res.signal);
	/* The process bound: the namespace's pid_max, else the cgroup. */
	if (avail & SKIT_SANDBOX_PIDMAX)
		ASSERT(res.layers & SKIT_SANDBOX_PIDMAX);
	else if (avail & SKIT_SANDBOX_CGROUP)
		ASSERT(res.layers & SKIT_SANDBOX_CGROUP);
	ASSERT(skit_test_none_running(tag, 1));
	skit__run_result_release(&res);
}

static void test_sandbox__flood(void)
{
	struct skit__run_opts o;
	struct skit__run_result res;
	char *argv[] = { "/bin/sh", "-c",
		         "head -c 5000000 /dev/zero; head -c 300000 /dev/zero "
		         ">&2",
		         NULL };
	char *yes[] = { "/usr/bin/yes", NULL };

	fresh();
	opts_init(&o, argv);
	o.output_cap = 1000;
	ASSERT_OK(skit__run(&res, &o, NULL));
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_EQ(skitx_buf_len(&res.out), 1000);
	ASSERT_EQ(res.out_total, 5000000);
	ASSERT_EQ(skitx_buf_len(&res.err), 1000);
	ASSERT_EQ(res.err_total, 300000);
	skit__run_result_release(&res);

	/* Without end: the timeout stops it, the count goes on. */
	opts_init(&o, yes);
	o.output_cap = 4096;
	o.timeout_ms = 500;
	ASSERT_OK(skit__run(&res, &o, NULL));
	ASSERT(res.timed_out);
	ASSERT_EQ(res.signal, SIGTERM);
	ASSERT_EQ(skitx_buf_len(&res.out), 4096);
	ASSERT(res.out_total > 4096 * 4);
	skit__run_result_release(&res);
}

/* The pid a background child wrote, in its own namespace. */
static long read_pid(const char *name)
{
	char path[PATH_MAX], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", work, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strtol(buf, NULL, 10);
}

static void test_sandbox__outlive(void)
{
	struct skit__run_result res;
	char script[2048], tag[64];
	const char *names[] = { "bg.pid", "nohup.pid", "setsid.pid",
		                "double.pid" };

	fresh();
	/*
	 * Each child says it started (its pid in the run's namespace, of no
	 * use outside) and sleeps on; the sleep's argument carries a tag to
	 * find strays by, in the whole system's /proc.
	 */
	snprintf(tag, sizeof(tag), "9%ld.5", (long)getpid());
	snprintf(script, sizeof(script),
	         "rec='echo $$ > \"$1\"; exec sleep %s'\n"
	         "sh -c \"$rec\" sh bg.pid &\n"
	         "nohup sh -c \"$rec\" sh nohup.pid >/dev/null 2>&1 &\n"
	         "setsid sh -c \"$rec\" sh setsid.pid &\n"
	         "( sh -c \"$rec\" sh double.pid & ) \n"
	         "while [ ! -s double.pid ] || [ ! -s setsid.pid ] ||"
	         " [ ! -s nohup.pid ] || [ ! -s bg.pid ]; do sleep 0.05; done\n"
	         "echo started; exec sleep %s",
	         tag, tag);
	run_sh(&res, script, short_timeout);
	ASSERT(res.timed_out);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "started");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(names); i++) {
		ASSERT(read_pid(names[i]) > 1);
	}
	if (avail & (SKIT_SANDBOX_PIDNS | SKIT_SANDBOX_CGROUP))
		ASSERT(skit_test_none_running(tag, 1));
	else
		note("outliving children", SKIT_SANDBOX_PIDNS);
	skit__run_result_release(&res);

	/* A script that ends on its own takes its children with it too. */
	fresh();
	snprintf(script, sizeof(script),
	         "setsid sleep %s & nohup sleep %s >/dev/null 2>&1 & "
	         "echo done",
	         tag, tag);
	run_sh(&res, script, NULL);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT(!res.timed_out);
	ASSERT(res.duration_ms < 3000);
	if (avail & (SKIT_SANDBOX_PIDNS | SKIT_SANDBOX_CGROUP))
		ASSERT(skit_test_none_running(tag, 1));
	skit__run_result_release(&res);
}

static void test_sandbox__symlink_out(void)
{
	struct skit__run_result res;
	char link[PATH_MAX], target[PATH_MAX], script[PATH_MAX + 32];

	fresh();
	snprintf(link, sizeof(link), "%s/link.txt", skill);
	snprintf(target, sizeof(target), "%s/secret.txt", base);
	ASSERT_OK(symlink(target, link));
	snprintf(link, sizeof(link), "%s/up", skill);
	ASSERT_OK(symlink("..", link));
	snprintf(script, sizeof(script), "cat '%s/link.txt' '%s/up/secret.txt'",
	         skill, skill);
	run_sh(&res, script, NULL);
	if (avail & SKIT_SANDBOX_LANDLOCK) {
		ASSERT(res.exit_code != 0);
		ASSERT(!strstr(skitx_buf_cstr(&res.out), "TOPSECRET"));
	} else {
		note("symlink out", SKIT_SANDBOX_LANDLOCK);
	}
	skit__run_result_release(&res);
}

static void test_sandbox__trap_term(void)
{
	struct skit__run_result res;
	long t0 = now_ms();

	fresh();
	run_sh(&res, "trap '' TERM; echo armed; while :; do :; done",
	       short_timeout);
	ASSERT(res.timed_out);
	ASSERT_EQ(res.signal, SIGKILL);
	ASSERT_EQ(res.exit_code, -1);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "armed");
	ASSERT(now_ms() - t0 >= 1500 + 300);
	ASSERT(now_ms() - t0 < 1500 + 300 + 2000);
	skit__run_result_release(&res);
}

static void test_sandbox__inherited_fds(void)
{
	struct skit__run_result res;
	char path[PATH_MAX];
	int fd;

	fresh();
	snprintf(path, sizeof(path), "%s/secret.txt", base);
	fd = open(path, O_RDONLY); /* deliberately without O_CLOEXEC */
	ASSERT(fd >= 0);
	if (fd != 3) {
		ASSERT(dup2(fd, 3) == 3);
		close(fd);
	}
	ASSERT(dup2(3, 9) == 9);
	run_sh(&res, "cat <&3 || echo closed3; cat <&9 || echo closed9", NULL);
	close(3);
	close(9);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "closed3\nclosed9\n");
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "TOPSECRET"));
	skit__run_result_release(&res);

	/* Nothing open from 3 up (the shell's own come later). */
	run_sh(&res,
	       "for fd in 3 4 5 6 7 8 9; do"
	       " (: <&$fd) 2>/dev/null && echo open$fd; done; echo end",
	       NULL);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_STR(skitx_buf_cstr(&res.out), "end\n");
	skit__run_result_release(&res);
}

static void test_sandbox__terminal(void)
{
	struct skit__run_result res;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; terminal test skipped\n");
		return;
	}
	run_sh(&res,
	       "exec python3 -c \"import fcntl, termios, os\n"
	       "try:\n"
	       "  fcntl.ioctl(0, termios.TIOCSTI, b'x')\n"
	       "except OSError as e:\n"
	       "  print('tiocsti', e.errno)\n"
	       "try:\n"
	       "  os.open('/dev/tty', os.O_RDWR)\n"
	       "  print('tty-opened')\n"
	       "except OSError as e:\n"
	       "  print('tty', e.errno)\n"
	       "print('sid', os.getsid(0) != os.getsid(os.getppid()) or "
	       "os.getppid() == 1)\n\"",
	       NULL);
	ASSERT_EQ(res.exit_code, 0);
	if (avail & SKIT_SANDBOX_SECCOMP)
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "tiocsti 1\n");
	else
		note("TIOCSTI", SKIT_SANDBOX_SECCOMP);
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "tty-opened"));
	skit__run_result_release(&res);
}

static void test_sandbox__signals(void)
{
	struct skit__run_result res;

	fresh();
	run_sh(&res, "kill -SEGV $$", NULL);
	ASSERT_EQ(res.signal, SIGSEGV);
	ASSERT_EQ(res.exit_code, -1);
	ASSERT(!res.timed_out);
	skit__run_result_release(&res);

	run_sh(&res, "kill -KILL $$", NULL);
	ASSERT_EQ(res.signal, SIGKILL);
	skit__run_result_release(&res);

	run_sh(&res, "exit 7", NULL);
	ASSERT_EQ(res.exit_code, 7);
	ASSERT_EQ(res.signal, 0);
	skit__run_result_release(&res);

	/* A program that cannot be executed. */
	{
		char *argv[] = { "/nonexistent/prog", NULL };
		struct skit__run_opts o;

		opts_init(&o, argv);
		ASSERT_OK(skit__run(&res, &o, NULL));
		ASSERT_EQ(res.exit_code, 127);
		ASSERT_CONTAINS(skitx_buf_cstr(&res.err), "cannot execute");
		skit__run_result_release(&res);
	}
}

static void small_limits(struct skit__run_opts *o)
{
	o->limits.file_bytes = 4096;
	o->limits.open_files = 32;
}

static void test_sandbox__rlimits(void)
{
	struct skit__run_result res;

	fresh();
	/* dash: -f in 512-byte blocks, -v in KiB. */
	run_sh(&res, "ulimit -n; ulimit -c; ulimit -f; ulimit -v; ulimit -t",
	       NULL);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_STR(skitx_buf_cstr(&res.out), "256\n0\n131072\n4194304\n15\n");
	ASSERT(res.layers & SKIT_SANDBOX_RLIMITS);
	skit__run_result_release(&res);

	run_sh(&res, "ulimit -n; head -c 10000 /dev/zero > big; echo $?",
	       small_limits);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "32\n");
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "\n0\n"));
	skit__run_result_release(&res);
}

static void test_sandbox__python_runs(void)
{
	struct skit__run_result res;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; python test skipped\n");
		return;
	}
	run_sh(&res,
	       "exec python3 -c \"import json, os, subprocess, tempfile\n"
	       "print(json.dumps({'cwd': os.path.basename(os.getcwd())}))\n"
	       "open('out.txt', 'w').write('ok')\n"
	       "print(subprocess.run(['sh', '-c', 'echo sub'], "
	       "capture_output=True).stdout.decode().strip())\n\"",
	       NULL);
	if (res.exit_code)
		printf("stderr: %s\n", skitx_buf_cstr(&res.err));
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_STR(skitx_buf_cstr(&res.out), "{\"cwd\": \"work\"}\nsub\n");
	skit__run_result_release(&res);
}

static void full_access(struct skit__run_opts *o)
{
	static char git[PATH_MAX];
	static const char *pp[] = { git, NULL };

	snprintf(git, sizeof(git), "%s/.git", work);
	o->fs_full = true;
	o->protect_paths = pp;
}

/* full-access: no file-system confinement (the user chose it), every
 * process layer still there. */
static void test_sandbox__full_access(void)
{
	struct skit__run_result res;
	char script[3 * PATH_MAX], path[PATH_MAX];

	fresh();
	snprintf(path, sizeof(path), "%s/.git", work);
	ASSERT_OK(mkdir(path, 0755));
	snprintf(script, sizeof(script),
	         "echo out > '%s/outside.txt' && echo hook > .git/hook && "
	         "cat '%s/secret.txt'",
	         base, base);
	run_sh(&res, script, full_access);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_STR(skitx_buf_cstr(&res.out), "TOPSECRET-42\n");
	snprintf(path, sizeof(path), "%s/outside.txt", base);
	ASSERT_OK(access(path, F_OK));
	snprintf(path, sizeof(path), "%s/.git/hook", work);
	ASSERT_OK(access(path, F_OK));
	ASSERT_EQ(res.layers & avail & SKIT_SANDBOX_NOCAPS,
	          avail & SKIT_SANDBOX_NOCAPS);
	/* No mount namespace: nothing bound, nothing hidden. */
	ASSERT_EQ(res.layers & SKIT_SANDBOX_MOUNTNS, 0);
	ASSERT_EQ(res.missing & SKIT_SANDBOX_MOUNTNS, 0);
	skit__run_result_release(&res);
}

static void disk_cap_256m(struct skit__run_opts *o)
{
	o->disk_cap = (uint64_t)256 << 20;
	o->timeout_ms = 120000;
}

/*
 * A script that writes 64 MiB files in a loop is stopped at the disk cap
 * (here 256 MiB), well before its timeout, and the run says so. Other
 * writers on the same file system can only make it stop sooner.
 */
static void test_sandbox__disk_cap(void)
{
	struct skit__run_result res;
	struct statvfs sv;
	char p[PATH_MAX];
	long files = 0;
	struct stat st;

	fresh();
	if (statvfs(work, &sv) < 0 ||
	    (uint64_t)sv.f_bavail * sv.f_frsize < ((uint64_t)2 << 30)) {
		printf("note: under 2 GiB free here; disk cap test skipped\n");
		return;
	}
	run_sh(&res,
	       "i=0; while :; do head -c 67108864 /dev/zero > f$i || exit 7;"
	       " i=$((i+1)); done",
	       disk_cap_256m);
	ASSERT(res.disk_capped);
	ASSERT(!res.timed_out);
	ASSERT_EQ(res.signal, SIGKILL);
	ASSERT(res.disk_added > ((uint64_t)256 << 20));
	for (long i = 0; i < 64; i++) {
		snprintf(p, sizeof(p), "%s/f%ld", work, i);
		if (stat(p, &st) == 0)
			files++;
		unlink(p);
	}
	/* 4 whole files fit under the cap; polling every 100 ms lets a
	 * little more through, never many times the cap. */
	ASSERT(files >= 4);
	ASSERT(files <= 16);
	skit__run_result_release(&res);
}

/* ---- the hostile suite: root powers, protected paths, host sockets --- */

struct hostile {
	char proj[PATH_MAX / 2], tmp[64], sock[64], runfile[64];
	char script[PATH_MAX];
	int lfd;
};

static void put_at(const char *dir, const char *rel, const char *text)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	put(p, text);
}

/* A project with .git and .agents/skit.json, a private folder under
 * /tmp, a listening AF_UNIX socket in /tmp and a file in /run. */
static void hostile_setup(struct hostile *h)
{
	struct sockaddr_un {
		sa_family_t sun_family;
		char sun_path[108];
	} sa;
	char src[PATH_MAX], p[PATH_MAX];
	FILE *f;
	int fd;

	fresh();
	snprintf(h->proj, sizeof(h->proj), "%s/proj", base);
	snprintf(p, sizeof(p), "%s/.git/hooks", h->proj);
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	snprintf(p, sizeof(p), "%s/.agents", h->proj);
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	put_at(h->proj, ".git/config", "[core]\n\tbare = false\n");
	put_at(h->proj, ".agents/skit.json", "{}\n");
	snprintf(p, sizeof(p), "%s/dots/skit", h->proj);
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	put_at(h->proj, "dots/skit/config.json", "{}\n");
	snprintf(h->tmp, sizeof(h->tmp), "/tmp/skit-sbx-XXXXXX");
	ASSERT(mkdtemp(h->tmp));
	snprintf(h->sock, sizeof(h->sock), "/tmp/skit-sbx-sock-%ld",
	         (long)getpid());
	unlink(h->sock);
	h->lfd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(h->lfd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", h->sock);
	ASSERT_OK(bind(h->lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_OK(listen(h->lfd, 8));
	ASSERT_OK(chmod(h->sock, 0777));
	snprintf(h->runfile, sizeof(h->runfile), "/run/skit-sbx-%ld",
	         (long)getpid());
	fd = open(h->runfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
	else
		snprintf(h->runfile, sizeof(h->runfile), "/run");
	/* The script, in the (read-only) skill folder. */
	snprintf(src, sizeof(src), "%s/tests/fixtures/sandbox/hostile.py",
	         getenv("SKIT_SOURCE_DIR") ? getenv("SKIT_SOURCE_DIR") : ".");
	f = fopen(src, "r");
	ASSERT(f);
	snprintf(h->script, sizeof(h->script), "%s/hostile.py", skill);
	{
		FILE *o = fopen(h->script, "w");
		char buf[4096];
		size_t n;

		ASSERT(o);
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, o);
		fclose(o);
	}
	fclose(f);
}

static void hostile_teardown(struct hostile *h)
{
	close(h->lfd);
	unlink(h->sock);
	if (strcmp(h->runfile, "/run"))
		unlink(h->runfile);
	rm_rf(h->tmp);
}

/* Run hostile.py in the project, network on (so that what stops a host
 * socket is the mount namespace, not the seccomp filter). */
static void hostile_run(struct hostile *h, struct skit__run_result *res,
                        const char *who)
{
	char *argv[] = { "/usr/bin/python3", h->script,   h->sock,
		         h->runfile,         (char *)who, NULL };
	char tmpenv[128];
	char *envp[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8",
		         tmpenv, NULL };
	const char *rp[] = { skill, NULL };
	const char *wp[] = { h->proj, h->tmp, NULL };
	char g[PATH_MAX], j[PATH_MAX], m[PATH_MAX], c[PATH_MAX], u[PATH_MAX];
	const char *pp[] = { g, j, m, c, u, NULL };
	struct skit__run_opts o;
	skit_error err = { 0 };

	snprintf(tmpenv, sizeof(tmpenv), "TMPDIR=%s", h->tmp);
	snprintf(g, sizeof(g), "%s/.git", h->proj);
	snprintf(j, sizeof(j), "%s/.agents/skit.json", h->proj);
	snprintf(m, sizeof(m), "%s/.agents/skills", h->proj);
	snprintf(c, sizeof(c), "%s/.claude/skills", h->proj);
	/* A user config kept in a dotfiles folder inside the project. */
	snprintf(u, sizeof(u), "%s/dots/skit/config.json", h->proj);
	memset(&o, 0, sizeof(o));
	o.path = argv[0];
	o.argv = argv;
	o.envp = envp;
	o.cwd = h->proj;
	o.timeout_ms = 30000;
	o.output_cap = 64 * 1024;
	o.confine = true;
	o.read_paths = rp;
	o.write_paths = wp;
	o.protect_paths = pp;
	o.allow_network = true;
	if (skit__run(res, &o, &err))
		HARNESS_FAIL("skit__run: %s", err.message);
	/* Only there if the sandbox failed; never leave it on the host. */
	if (geteuid() == 0 &&
	    system("ip addr del 192.0.2.77/32 dev lo 2>/dev/null") == 0)
		printf("the sandbox let a script add an address to lo\n");
}

/* What every run of hostile.py must print, as root or not. */
static void hostile_check(const struct hostile *h,
                          const struct skit__run_result *res, bool root)
{
	static const char *const refusals[] = {
		"git-config: refused",
		"git-hook: refused",
		"git-rename: refused",
		"git-rmtree: refused",
		"skit-json: refused",
		"skit-json-unlink: refused",
		"plant-skill: refused",
		"plant-claude: refused",
		"rename-agents: refused EBUSY",
		"rename-dots: refused EBUSY",
		"rename-dots-skit: refused EBUSY",
		"rmdir-dots-skit: refused",
		"git-userns: refused",
		"host-socket: refused",
		"run-file: refused",
		"chmod-suid: refused",
		"chmod-sgid: refused",
		"create-suid: refused",
		"fchmodat2-suid: refused EPERM",
		"fchmodat2-nofollow-sgid: refused EPERM",
		"newer-call: refused ENOSYS",
		"mknod-char: refused",
		"mknod-block: refused",
		"chown-other: refused",
		"sethostname: refused",
		"clock-settime: refused",
	};
	const char *out = skitx_buf_cstr(&res->out);
	char *text, p[PATH_MAX];
	struct stat st;

	if (res->exit_code != 0)
		printf("stderr: %s\n", skitx_buf_cstr(&res->err));
	ASSERT_EQ(res->exit_code, 0);
	ASSERT(!strstr(out, "ALLOWED"));
	ASSERT(!strstr(out, "FAILED"));
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(refusals); i++)
		ASSERT_CONTAINS(out, refusals[i]);
	ASSERT_CONTAINS(out, "git-read: ok");
	ASSERT_CONTAINS(out, "project-write: ok");
	ASSERT_CONTAINS(out, "tmp-write: ok");
	ASSERT_CONTAINS(out, "chmod-plain: ok");
	ASSERT_CONTAINS(out, "fchmodat2-plain: ok");
	ASSERT_CONTAINS(out, "mkfifo: ok");
	ASSERT_CONTAINS(out, "caps: none");
	ASSERT_CONTAINS(out, "securebits: 239");
	if (root && access("/usr/sbin/ip", X_OK) == 0)
		ASSERT_CONTAINS(out, "ip-addr-add: refused");
	ASSERT(res->layers & SKIT_SANDBOX_MOUNTNS);
	ASSERT(res->layers & SKIT_SANDBOX_NOCAPS);
	/* On the host: nothing protected changed, no setuid file. */
	snprintf(p, sizeof(p), "%s/.git/config", h->proj);
	text = NULL;
	{
		struct skitx_buf b;

		skitx_buf_init(&b, 0);
		ASSERT_OK(skitx_fs_read_file(p, &b, 4096));
		ASSERT_STR(skitx_buf_cstr(&b), "[core]\n\tbare = false\n");
		skitx_buf_release(&b);
	}
	free(text);
	snprintf(p, sizeof(p), "%s/.git/hooks/pre-commit", h->proj);
	ASSERT(access(p, F_OK) < 0);
	snprintf(p, sizeof(p), "%s/.agents/skit.json", h->proj);
	ASSERT_OK(access(p, F_OK));
	snprintf(p, sizeof(p), "%s/dots/skit/config.json", h->proj);
	ASSERT_OK(access(p, F_OK));
	/* The placeholders for the missing ones are gone again. */
	snprintf(p, sizeof(p), "%s/.agents/skills", h->proj);
	ASSERT(access(p, F_OK) < 0);
	snprintf(p, sizeof(p), "%s/.claude", h->proj);
	ASSERT(access(p, F_OK) < 0);
	snprintf(p, sizeof(p), "%s/sh-copy", h->proj);
	ASSERT_OK(stat(p, &st));
	ASSERT_EQ(st.st_mode & (S_ISUID | S_ISGID), 0);
	snprintf(p, sizeof(p), "%s/null-dev", h->proj);
	ASSERT(access(p, F_OK) < 0);
	snprintf(p, sizeof(p), "%s/made-by-script.txt", h->proj);
	ASSERT_OK(stat(p, &st));
	ASSERT_EQ(st.st_uid, getuid());
	snprintf(p, sizeof(p), "%s/t.txt", h->tmp);
	ASSERT_OK(access(p, F_OK));
}

/* The effective uid the copied shell gives an unprivileged user. */
static long euid_as_nobody(const char *shell)
{
	int pfd[2], status;
	char buf[256] = "";
	ssize_t n;
	long euid = -1;
	pid_t pid;

	ASSERT_OK(pipe(pfd));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		dup2(pfd[1], 1);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(99);
		execl(shell, "sh", "-c", "grep '^Uid:' /proc/self/status",
		      (char *)NULL);
		_exit(98);
	}
	close(pfd[1]);
	n = read(pfd[0], buf, sizeof(buf) - 1);
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (n > 0 && sscanf(buf, "Uid: %*d %ld", &euid) != 1)
		euid = -1;
	return euid;
}

/* Every folder on the way to `path` lets other users through. */
static bool reachable_by_others(const char *path)
{
	char p[PATH_MAX];
	struct stat st;
	size_t n;

	snprintf(p, sizeof(p), "%s", path);
	for (n = strlen(p); n > 0; n--) {
		if (p[n] != '/' && p[n] != '\0')
			continue;
		p[n] = '\0';
		if (stat(n ? p : "/", &st) < 0 || !(st.st_mode & S_IXOTH))
			return false;
	}
	return stat("/", &st) == 0 && (st.st_mode & S_IXOTH);
}

/*
 * nobody must reach the scratch folder: a build tree under a private home
 * (0700) would not let it. Then the tests work in a folder of /tmp.
 */
static void scratch_for_nobody(char top[64], char **saved)
{
	*saved = NULL;
	if (!getenv("SKIT_TEST_DIR") ||
	    reachable_by_others(getenv("SKIT_TEST_DIR")))
		return;
	*saved = strdup(getenv("SKIT_TEST_DIR"));
	snprintf(top, 64, "/tmp/skit-sbx-top-XXXXXX");
	ASSERT(mkdtemp(top));
	ASSERT_OK(chmod(top, 0755));
	setenv("SKIT_TEST_DIR", top, 1);
}

static void scratch_restore(const char *top, char *saved)
{
	if (!saved)
		return;
	setenv("SKIT_TEST_DIR", saved, 1);
	free(saved);
	rm_rf(top);
}

/* Run the classic-BPF program `prog` on one seccomp_data: the few
 * instructions a seccomp filter of skit's uses (loads, jumps, returns). */
static uint32_t bpf_eval(const struct sock_fprog *prog,
                         const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];
		bool t;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			ASSERT(f->k + 4 <= sizeof(*d));
			memcpy(&a, (const char *)d + f->k, 4);
			continue;
		case BPF_RET | BPF_K:
			return f->k;
		case BPF_JMP | BPF_JEQ | BPF_K:
			t = a == f->k;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			t = a > f->k;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			t = a >= f->k;
			break;
		default:
			HARNESS_FAIL("instruction %#x not expected", f->code);
		}
		pc += t ? f->jt : f->jf;
	}
	HARNESS_FAIL("the program ran off its end");
	return 0;
}

/*
 * Calls newer than the build's headers: skit names them itself (fchmodat2
 * is 452 whatever <sys/syscall.h> says), and every number above the last
 * one examined gets ENOSYS from the filter stacked under the others.
 */
static void test_sandbox__syscalls_beyond_headers(void)
{
	struct sock_fprog prog = { 0, NULL };
	struct seccomp_data d;
	const uint32_t enosys = SECCOMP_RET_ERRNO | ENOSYS;

	if (!skit__syscall_arch_known()) {
		printf("note: no syscall table for this architecture\n");
		ASSERT(skit__syscall_newer_filter(&prog) < 0);
		return;
	}
	ASSERT_EQ(skit__syscall_nr("fchmodat2"), 452);
	ASSERT_EQ(skit__syscall_nr("openat2"), 437);
	ASSERT_EQ(skit__syscall_nr("listmount"), 458);
	ASSERT_EQ(skit__syscall_nr("open_tree_attr"), 467);
	ASSERT_EQ(skit__syscall_nr("file_setattr"), SKIT__SYSCALL_EXAMINED);
	ASSERT_EQ(skit__syscall_nr("no_such_call"), -1);
	ASSERT_EQ(skit__syscall_nr("openat"), SYS_openat);

	ASSERT_OK(skit__syscall_newer_filter(&prog));
	memset(&d, 0, sizeof(d));
#if defined(__x86_64__)
	d.arch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
	d.arch = AUDIT_ARCH_AARCH64;
#endif
	if (d.arch) {
		d.nr = SKIT__SYSCALL_EXAMINED;
		ASSERT_EQ(bpf_eval(&prog, &d), SECCOMP_RET_ALLOW);
		d.nr = 452;
		ASSERT_EQ(bpf_eval(&prog, &d), SECCOMP_RET_ALLOW);
		d.nr = SYS_read;
		ASSERT_EQ(bpf_eval(&prog, &d), SECCOMP_RET_ALLOW);
		d.nr = SKIT__SYSCALL_EXAMINED + 1;
		ASSERT_EQ(bpf_eval(&prog, &d), enosys);
		d.nr = 0x7fffffff;
		ASSERT_EQ(bpf_eval(&prog, &d), enosys);
		d.nr = 0x40000000 | SYS_read; /* x32 on x86_64 */
		ASSERT_EQ(bpf_eval(&prog, &d), enosys);
		/* Another architecture: left to libseccomp's filter. */
		d.arch ^= 0x1;
		d.nr = SKIT__SYSCALL_EXAMINED + 1;
		ASSERT_EQ(bpf_eval(&prog, &d), SECCOMP_RET_ALLOW);
	}
	skitx_free(prog.filter);
}

static void test_sandbox__hostile_root(void)
{
	struct skit__run_result res;
	struct hostile h;
	char p[PATH_MAX];
	long euid;

	char top[64] = "", *saved = NULL;

	if (geteuid() != 0 || access("/usr/bin/python3", X_OK)) {
		printf("note: not root or no python3; root suite skipped\n");
		return;
	}
	/* nobody runs the copied shell at the end. */
	scratch_for_nobody(top, &saved);
	hostile_setup(&h);
	if (!(avail & SKIT_SANDBOX_MOUNTNS) || !(avail & SKIT_SANDBOX_NOCAPS)) {
		note("hostile (root)", SKIT_SANDBOX_MOUNTNS);
		hostile_teardown(&h);
		scratch_restore(top, saved);
		return;
	}
	hostile_run(&h, &res, "root");
	printf("%s", skitx_buf_cstr(&res.out));
	hostile_check(&h, &res, true);
	hostile_teardown(&h);
	skit__run_result_release(&res);
	/* The copied shell, run by an unprivileged user, is no way to
	 * euid 0. */
	snprintf(p, sizeof(p), "%s/sh-copy", h.proj);
	euid = euid_as_nobody(p);
	scratch_restore(top, saved);
	ASSERT(euid > 0);
}

/*
 * The same suite as an unprivileged user (nobody): the namespaces are made
 * through a user namespace. Run in a child that dropped root for good; it
 * reports through its exit status.
 */
static void test_sandbox__hostile_unprivileged(void)
{
	struct skit__run_result res;
	struct hostile h;
	char cmd[3 * PATH_MAX];
	int status;
	pid_t pid;

	char top[64] = "", *saved = NULL;

	if (geteuid() != 0 || access("/usr/bin/python3", X_OK)) {
		printf("note: not root or no python3; cannot drop to nobody\n");
		return;
	}
	scratch_for_nobody(top, &saved);
	hostile_setup(&h);
	snprintf(cmd, sizeof(cmd), "chown -R 65534:65534 '%s' '%s'", h.proj,
	         h.tmp);
	ASSERT_EQ(system(cmd), 0);
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(90);
		/* As after a login: a process that changed uid is not
		 * dumpable, and may not write its user namespace's maps. */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (setjmp(harness_jmp)) {
			fflush(stdout);
			_exit(1);
		}
		avail = skit_sandbox_available();
		if (!(avail & SKIT_SANDBOX_MOUNTNS)) {
			printf("note: no user namespaces for nobody here\n");
			_exit(0);
		}
		hostile_run(&h, &res, "user");
		printf("%s", skitx_buf_cstr(&res.out));
		fflush(stdout);
		hostile_check(&h, &res, false);
		skit__run_result_release(&res);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	hostile_teardown(&h);
	scratch_restore(top, saved);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/*
 * Paths as callers give them, beneath a folder the mount namespace hides
 * (/tmp): a skill root reached through `..` (an eval file's
 * "skills: ../skills"), a project reached through a link. The program and
 * its folder are run by their real paths, which the namespace binds back;
 * the given ones pass through folders it no longer shows.
 */
static void test_sandbox__hidden_loose_paths(void)
{
	char top[64] = "/tmp/skit-sbx-loose-XXXXXX";
	char dir[PATH_MAX], script[PATH_MAX + 64], skill_dir[PATH_MAX];
	char proj[PATH_MAX], link[PATH_MAX], want[PATH_MAX + 64];
	char *argv[] = { script, NULL };
	const char *rp[] = { skill_dir, NULL }, *wp[] = { proj, NULL };
	struct skit__run_result res;
	struct skit__run_opts o;
	skit_error err = { 0 };

	fresh();
	ASSERT(mkdtemp(top));
	snprintf(dir, sizeof(dir), "%s/evals", top);
	ASSERT_OK(mkdir(dir, 0755));
	snprintf(dir, sizeof(dir), "%s/skills/s", top);
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	snprintf(proj, sizeof(proj), "%s/proj", top);
	ASSERT_OK(mkdir(proj, 0755));
	snprintf(link, sizeof(link), "%s/link", top);
	ASSERT_OK(symlink("proj", link));
	put_at(dir, "ok.txt", "beside-the-script\n");
	snprintf(script, sizeof(script), "%s/run.sh", dir);
	put(script, "#!/bin/sh\necho ran; pwd; cat \"${0%/*}/ok.txt\"\n");
	ASSERT_OK(chmod(script, 0755));
	/* the same files, named loosely */
	snprintf(skill_dir, sizeof(skill_dir), "%s/evals/../skills/s", top);
	snprintf(script, sizeof(script), "%s/evals/../skills/s/run.sh", top);
	opts_init(&o, argv);
	o.read_paths = rp;
	o.write_paths = wp;
	o.cwd = link;
	ASSERT_OK(skit__run(&res, &o, &err));
	if (res.exit_code != 0)
		printf("stderr: %s\n", skitx_buf_cstr(&res.err));
	ASSERT_EQ(res.exit_code, 0);
	snprintf(want, sizeof(want), "ran\n%s\nbeside-the-script\n", proj);
	ASSERT_STR(skitx_buf_cstr(&res.out), want);
	if (avail & SKIT_SANDBOX_MOUNTNS)
		ASSERT(res.layers & SKIT_SANDBOX_MOUNTNS);
	else
		note("hidden loose paths", SKIT_SANDBOX_MOUNTNS);
	skit__run_result_release(&res);
	rm_rf(top);
}

static void test_sandbox__no_cgroup_left(void)
{
	char tag[64];
	struct dirent *de;
	bool found = false;
	DIR *d;

	fresh();
	snprintf(tag, sizeof(tag), "skit-%ld-", (long)getpid());
	d = opendir("/sys/fs/cgroup/pids");
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, tag, strlen(tag)))
			found = true;
	if (d)
		closedir(d);
	ASSERT(!found);
}

/*
 * The system calls seccomp refuses (docs/sandbox.md), each called inside
 * the sandbox through Python's ctypes. The arguments are ones the kernel
 * would reject (a NULL or bogus pointer, a bad descriptor, an unknown
 * command) or would accept harmlessly (unshare(0), iopl(0)), so that a
 * missing refusal fails the test without changing this machine; the
 * refusal itself is told apart by its errno.
 */
struct refusal {
	const char *name;
	long nr;
	long arg[6];
	int err;
};

#define BAD_PTR 1L /* faults in the kernel, never dereferenced here */

static const struct refusal refusals[] = {
	{ "perf_event_open", SYS_perf_event_open, { 0, 0, -1, -1, 0 }, EPERM },
	{ "bpf", SYS_bpf, { 9999, 0, 0 }, EPERM },
	{ "ptrace", SYS_ptrace, { -1, 0, 0, 0 }, EPERM },
	{ "process_vm_readv",
	  SYS_process_vm_readv,
	  { 1, 0, 0, 0, 0, 0 },
	  EPERM },
	{ "process_vm_writev",
	  SYS_process_vm_writev,
	  { 1, 0, 0, 0, 0, 0 },
	  EPERM },
	{ "kcmp", SYS_kcmp, { 1, 1, 99, 0, 0 }, EPERM },
	{ "userfaultfd", SYS_userfaultfd, { -1 }, EPERM },
	{ "syslog", SYS_syslog, { 9999, 0, 0 }, EPERM },
	{ "lookup_dcookie", SYS_lookup_dcookie, { 0, 0, 0 }, EPERM },
	{ "open_by_handle_at", SYS_open_by_handle_at, { -1, 0, 0 }, EPERM },
	{ "name_to_handle_at",
	  SYS_name_to_handle_at,
	  { -1, 0, 0, 0, 0 },
	  EPERM },
	{ "add_key", SYS_add_key, { 0, 0, 0, 0, 0 }, EPERM },
	{ "request_key", SYS_request_key, { 0, 0, 0, 0 }, EPERM },
	{ "keyctl", SYS_keyctl, { 9999, 0, 0, 0, 0 }, EPERM },
	{ "clock_settime", SYS_clock_settime, { 0, 0 }, EPERM },
	{ "clock_adjtime", SYS_clock_adjtime, { 0, 0 }, EPERM },
	{ "adjtimex", SYS_adjtimex, { 0 }, EPERM },
	{ "settimeofday", SYS_settimeofday, { BAD_PTR, 0 }, EPERM },
	{ "sethostname", SYS_sethostname, { BAD_PTR, 5 }, EPERM },
	{ "setdomainname", SYS_setdomainname, { BAD_PTR, 5 }, EPERM },
	{ "acct", SYS_acct, { BAD_PTR }, EPERM },
	{ "quotactl", SYS_quotactl, { 0, 0, 0, 0 }, EPERM },
	{ "swapon", SYS_swapon, { 0, 0 }, EPERM },
	{ "swapoff", SYS_swapoff, { 0 }, EPERM },
	{ "reboot", SYS_reboot, { 0, 0, 0, 0 }, EPERM },
	{ "vhangup", SYS_vhangup, { 0 }, EPERM },
	{ "init_module", SYS_init_module, { 0, 0, 0 }, EPERM },
	{ "finit_module", SYS_finit_module, { -1, 0, 0 }, EPERM },
	{ "delete_module", SYS_delete_module, { 0, 0 }, EPERM },
	{ "kexec_load", SYS_kexec_load, { 0, 0, 0, 0xdead }, EPERM },
	{ "kexec_file_load",
	  SYS_kexec_file_load,
	  { -1, -1, 0, 0, 0xdead },
	  EPERM },
	{ "mount", SYS_mount, { 0, 0, 0, 0, 0 }, EPERM },
	{ "umount2", SYS_umount2, { 0, 0 }, EPERM },
	{ "pivot_root", SYS_pivot_root, { 0, 0 }, EPERM },
	{ "chroot", SYS_chroot, { 0 }, EPERM },
	{ "unshare", SYS_unshare, { 0 }, EPERM },
	{ "setns", SYS_setns, { -1, 0 }, EPERM },
	{ "clone(CLONE_NEWUSER)",
	  SYS_clone,
	  { 0x10000000 | 17, 0, 0, 0, 0 },
	  EPERM },
	{ "clone(CLONE_NEWNET)",
	  SYS_clone,
	  { 0x40000000 | 17, 0, 0, 0, 0 },
	  EPERM },
#ifdef SYS_clone3
	{ "clone3", SYS_clone3, { 0, 0 }, ENOSYS },
#endif
#ifdef SYS_fsopen
	{ "fsopen", SYS_fsopen, { 0, 0 }, EPERM },
	{ "fsmount", SYS_fsmount, { -1, 0, 0 }, EPERM },
	{ "move_mount", SYS_move_mount, { -1, 0, -1, 0, 0 }, EPERM },
	{ "open_tree", SYS_open_tree, { -1, 0, 0 }, EPERM },
#endif
#ifdef SYS_mount_setattr
	{ "mount_setattr", SYS_mount_setattr, { -1, 0, 0, 0, 0 }, EPERM },
#endif
#ifdef SYS_pidfd_getfd
	{ "pidfd_getfd", SYS_pidfd_getfd, { -1, -1, 0 }, EPERM },
#endif
	{ "fanotify_init", SYS_fanotify_init, { -1, 0 }, EPERM },
	{ "iopl", SYS_iopl, { 0 }, EPERM },
	{ "ioperm", SYS_ioperm, { 0, 0, 0 }, EPERM },
	{ "uselib", SYS_uselib, { 0 }, EPERM },
	{ "ustat", SYS_ustat, { 0, 0 }, EPERM },
	{ "sysfs", SYS_sysfs, { 9999, 0, 0 }, EPERM },
	{ "nfsservctl", SYS_nfsservctl, { 0, 0, 0 }, EPERM },
	{ "create_module", SYS_create_module, { 0, 0 }, EPERM },
	{ "mbind", SYS_mbind, { 0, 0, 0, 0, 0, 0 }, EPERM },
	{ "set_mempolicy", SYS_set_mempolicy, { 99, 0, 0 }, EPERM },
	{ "migrate_pages", SYS_migrate_pages, { -1, 0, 0, 0 }, EPERM },
	{ "move_pages", SYS_move_pages, { -1, 0, 0, 0, 0, 0 }, EPERM },
	{ "personality(ADDR_NO_RANDOMIZE)",
	  SYS_personality,
	  { 0x0040000 },
	  EPERM },
	{ "personality(READ_IMPLIES_EXEC)",
	  SYS_personality,
	  { 0x0400000 },
	  EPERM },
	{ "personality(PER_SVR4)", SYS_personality, { 0x0001 }, EPERM },
	{ "personality(0xfffdfff7)", SYS_personality, { 0xfffdfff7L }, EPERM },
	{ "socket(AF_VSOCK)", SYS_socket, { 40, 1, 0 }, EACCES },
	{ "io_uring_setup", SYS_io_uring_setup, { 1, 0 }, ENOSYS },
	{ "io_uring_enter", SYS_io_uring_enter, { -1, 0, 0, 0, 0, 0 }, ENOSYS },
	{ "io_uring_register", SYS_io_uring_register, { -1, 0, 0, 0 }, ENOSYS },
};

static void test_sandbox__seccomp_refusals(void)
{
	struct skit__run_result res;
	struct skitx_buf py;
	char want[128];
	const char *out;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; seccomp table skipped\n");
		return;
	}
	skitx_buf_init(&py, 0);
	ASSERT_OK(skitx_buf_printf(
	        &py, "exec python3 -c \"import ctypes\n"
	             "libc = ctypes.CDLL(None, use_errno=True)\n"
	             "libc.syscall.restype = ctypes.c_long\n"
	             "def call(name, nr, *a):\n"
	             "  ctypes.set_errno(0)\n"
	             "  r = libc.syscall(ctypes.c_long(nr), "
	             "*[ctypes.c_long(x) for x in a])\n"
	             "  print(name, r, ctypes.get_errno() if r < 0 else 0)\n"));
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(refusals); i++) {
		const struct refusal *t = &refusals[i];

		ASSERT_OK(skitx_buf_printf(&py, "call('%s', %ld", t->name,
		                           t->nr));
		for (int k = 0; k < 6; k++)
			ASSERT_OK(skitx_buf_printf(&py, ", %ld", t->arg[k]));
		ASSERT_OK(skitx_buf_printf(&py, ")\n"));
	}
	/* The allowed personalities still work: the query, and PER_LINUX. */
	ASSERT_OK(
	        skitx_buf_printf(&py,
	                         "call('personality-query', %ld, 0xffffffff)\n"
	                         "call('personality-linux', %ld, 0)\n\"",
	                         (long)SYS_personality, (long)SYS_personality));
	run_sh(&res, skitx_buf_cstr(&py), NULL);
	skitx_buf_release(&py);
	out = skitx_buf_cstr(&res.out);
	if (!(res.layers & SKIT_SANDBOX_SECCOMP)) {
		note("seccomp refusals", SKIT_SANDBOX_SECCOMP);
		skit__run_result_release(&res);
		return;
	}
	if (res.exit_code != 0)
		printf("stderr: %s\n", skitx_buf_cstr(&res.err));
	ASSERT_EQ(res.exit_code, 0);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(refusals); i++) {
		snprintf(want, sizeof(want), "\n%s -1 %d\n", refusals[i].name,
		         refusals[i].err);
		if (!strstr(out, want) &&
		    strncmp(out, want + 1, strlen(want + 1)))
			HARNESS_FAIL("%s not refused with %d:\n%s",
			             refusals[i].name, refusals[i].err, out);
	}
	ASSERT(!strstr(out, "personality-query -1"));
	ASSERT_CONTAINS(out, "personality-linux 0 0");
	skit__run_result_release(&res);

	/* AF_VSOCK stays refused with the network on. */
	run_sh(&res,
	       "exec python3 -c \"import socket\n"
	       "try:\n"
	       "  socket.socket(40, socket.SOCK_STREAM)\n"
	       "  print('vsock-open')\n"
	       "except OSError as e:\n"
	       "  print('vsock-refused', e.errno)\n\"",
	       allow_net);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "vsock-refused 13");
	skit__run_result_release(&res);
#ifdef __x86_64__
	/* An i386 system call (int 0x80: getpid) from a 64-bit process
	 * kills it (SIGSYS) rather than pass a filter written for x86_64.
	 * The machine code: mov eax, 20; int 0x80; ret. */
	run_sh(&res,
	       "exec python3 -c \"import ctypes, mmap\n"
	       "code = bytes([0xb8, 20, 0, 0, 0, 0xcd, 0x80, 0xc3])\n"
	       "m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | "
	       "mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
	       "m.write(code)\n"
	       "addr = ctypes.addressof(ctypes.c_char.from_buffer(m))\n"
	       "f = ctypes.CFUNCTYPE(ctypes.c_int)(addr)\n"
	       "print('int80', f())\n\"",
	       NULL);
	ASSERT_EQ(res.signal, SIGSYS);
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "int80"));
	skit__run_result_release(&res);
#endif
}

static void no_seccomp(struct skit__run_opts *o)
{
	(void)o;
	skit__sandbox_disabled = SKIT_SANDBOX_SECCOMP;
}

/*
 * Keys the test adds to its user keyring (@u) and its session keyring
 * (@s) are out of the sandbox's reach: keyctl() is refused, and the run
 * has a fresh session keyring of its own, so that even without the
 * filter a search of @s finds nothing.
 */
static void test_sandbox__keyrings(void)
{
	struct skit__run_result res;
	char script[1024];
	long ku, ks;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; keyring test skipped\n");
		return;
	}
	ku = syscall(SYS_add_key, "user", "skit-test-u", "SECRET-U", 8,
	             KEY_SPEC_USER_KEYRING);
	ks = syscall(SYS_add_key, "user", "skit-test-s", "SECRET-S", 8,
	             KEY_SPEC_SESSION_KEYRING);
	if (ku < 0 || ks < 0) {
		printf("note: no kernel keyrings here; keyring test "
		       "skipped\n");
		return;
	}
	/* keyctl(KEYCTL_READ, id, buf, len) of each key by its id, and
	 * keyctl(KEYCTL_SEARCH, @s, "user", name, 0) by its name. */
	snprintf(script, sizeof(script),
	         "exec python3 -c \"import ctypes\n"
	         "libc = ctypes.CDLL(None, use_errno=True)\n"
	         "libc.syscall.restype = ctypes.c_long\n"
	         "L = ctypes.c_long\n"
	         "buf = ctypes.create_string_buffer(64)\n"
	         "for name, kid in (('u', %ld), ('s', %ld)):\n"
	         "  r = libc.syscall(L(%ld), L(%d), L(kid), buf, L(64))\n"
	         "  print('read', name, r, ctypes.get_errno(), buf.value)\n"
	         "r = libc.syscall(L(%ld), L(%d), L(%d), b'user', "
	         "b'skit-test-s', L(0))\n"
	         "print('search-s', r, ctypes.get_errno())\n\"",
	         ku, ks, (long)SYS_keyctl, KEYCTL_READ, (long)SYS_keyctl,
	         KEYCTL_SEARCH, KEY_SPEC_SESSION_KEYRING);
	run_sh(&res, script, NULL);
	ASSERT_EQ(res.exit_code, 0);
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "SECRET"));
	if (res.layers & SKIT_SANDBOX_SECCOMP) {
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "read u -1 1 ");
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "read s -1 1 ");
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "search-s -1 1\n");
	} else {
		note("keyctl refused", SKIT_SANDBOX_SECCOMP);
	}
	skit__run_result_release(&res);

	/* Without the filter: the session keyring is a new, empty one. */
	run_sh(&res, script, no_seccomp);
	skit__sandbox_disabled = 0;
	ASSERT_EQ(res.exit_code, 0);
	ASSERT(!(res.layers & SKIT_SANDBOX_SECCOMP));
	ASSERT(!strstr(skitx_buf_cstr(&res.out), "SECRET-S"));
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "search-s -1 126\n");
	skit__run_result_release(&res);
	syscall(SYS_keyctl, KEYCTL_INVALIDATE, ku);
	syscall(SYS_keyctl, KEYCTL_INVALIDATE, ks);
}

static void netns_only(struct skit__run_opts *o)
{
	(void)o;
	skit__sandbox_disabled = SKIT_SANDBOX_SECCOMP | SKIT_SANDBOX_LANDLOCK;
}

static void netns_only_net_on(struct skit__run_opts *o)
{
	o->allow_network = true;
	skit__sandbox_disabled = SKIT_SANDBOX_SECCOMP | SKIT_SANDBOX_LANDLOCK;
}

static void scope_only_net_on(struct skit__run_opts *o)
{
	o->allow_network = true;
	skit__sandbox_disabled = SKIT_SANDBOX_SECCOMP;
}

/*
 * The network namespace on its own (seccomp and Landlock switched off):
 * a TCP listener and an abstract AF_UNIX listener of the host are out of
 * reach with the network off, and both are reached with it on.
 */
static void test_sandbox__netns_alone(void)
{
	struct sockaddr_un su;
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	struct skit__run_result res;
	char script[1024], name[64];
	int lfd, ufd;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; netns test skipped\n");
		return;
	}
	if (!(avail & SKIT_SANDBOX_NETNS)) {
		note("netns alone", SKIT_SANDBOX_NETNS);
		return;
	}
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	ASSERT(lfd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_OK(listen(lfd, 8));
	ASSERT_OK(getsockname(lfd, (struct sockaddr *)&sa, &len));
	ufd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(ufd >= 0);
	snprintf(name, sizeof(name), "skit-test-abstract-%ld", (long)getpid());
	memset(&su, 0, sizeof(su));
	su.sun_family = AF_UNIX;
	memcpy(su.sun_path + 1, name, strlen(name));
	ASSERT_OK(bind(ufd, (struct sockaddr *)&su,
	               (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
	                           strlen(name))));
	ASSERT_OK(listen(ufd, 8));
	snprintf(script, sizeof(script),
	         "exec python3 -c \"import socket\n"
	         "try:\n"
	         "  socket.create_connection(('127.0.0.1', %d), 3)\n"
	         "  print('tcp-connected')\n"
	         "except OSError as e:\n"
	         "  print('tcp-refused', e.errno)\n"
	         "try:\n"
	         "  u = socket.socket(socket.AF_UNIX)\n"
	         "  u.connect(b'\\\\0%s')\n"
	         "  print('abstract-connected')\n"
	         "except OSError as e:\n"
	         "  print('abstract-refused', e.errno)\n\"",
	         ntohs(sa.sin_port), name);
	run_sh(&res, script, netns_only);
	skit__sandbox_disabled = 0;
	ASSERT_EQ(res.exit_code, 0);
	ASSERT(res.layers & SKIT_SANDBOX_NETNS);
	ASSERT(!(res.layers & (SKIT_SANDBOX_SECCOMP | SKIT_SANDBOX_LANDLOCK)));
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "tcp-refused");
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "abstract-refused");
	skit__run_result_release(&res);

	run_sh(&res, script, netns_only_net_on);
	skit__sandbox_disabled = 0;
	ASSERT_EQ(res.exit_code, 0);
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "tcp-connected");
	ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "abstract-connected");
	skit__run_result_release(&res);

	/* Landlock scoping (ABI 6) alone, with the network on (so no
	 * namespace) and no filter: the abstract socket is out of reach. */
	if (avail & SKIT_SANDBOX_LANDLOCK_SCOPE) {
		run_sh(&res, script, scope_only_net_on);
		skit__sandbox_disabled = 0;
		ASSERT_EQ(res.exit_code, 0);
		ASSERT(res.layers & SKIT_SANDBOX_LANDLOCK_SCOPE);
		ASSERT(!(res.layers & SKIT_SANDBOX_NETNS));
		ASSERT_CONTAINS(skitx_buf_cstr(&res.out), "abstract-refused");
		skit__run_result_release(&res);
	} else {
		note("abstract socket scope", SKIT_SANDBOX_LANDLOCK_SCOPE);
	}
	close(lfd);
	close(ufd);
}

static const char *const web_allowed[] = { "allowed.test", NULL };
static const char *const web_resolve[] = { "allowed.test=127.0.0.1",
	                                   "other.test=127.0.0.1", NULL };

static void web_only(struct skit__run_opts *o)
{
	o->web_domains = web_allowed;
	o->proxy_resolve = web_resolve;
}

/*
 * WebFetch(domain:allowed.test): the program reaches a local server by
 * that name through skit's proxy, by plain HTTP and through a CONNECT
 * tunnel (the name is mapped to 127.0.0.1 by the proxy's test resolver);
 * another name gets a 403; direct TCP to the same server, UDP, IPv6 and
 * raw sockets fail.
 */
static void web_proxy_check(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	struct skit__run_result res;
	struct httpd *h;
	char script[4096];
	const char *out;
	int sport;

	fresh();
	if (access("/usr/bin/python3", X_OK)) {
		printf("note: no python3; web proxy test skipped\n");
		return;
	}
	ASSERT_OK(httpd_start(&h));
	sport = (int)strtol(strrchr(httpd_url(h), ':') + 1, NULL, 10);
	r.content_type = "text/plain";
	r.body = "body-by-http";
	httpd_push(h, &r);
	r.body = "body-by-tunnel";
	httpd_push(h, &r);
	snprintf(script, sizeof(script),
	         "exec python3 -c \"import os, socket, urllib.request, "
	         "http.client\n"
	         "print('proxy-env', os.environ.get('HTTPS_PROXY'))\n"
	         "try:\n"
	         "  print(urllib.request.urlopen('http://allowed.test:%d/a', "
	         "timeout=10).read().decode())\n"
	         "except Exception as e:\n"
	         "  print('http-failed', e)\n"
	         "try:\n"
	         "  c = http.client.HTTPConnection('127.0.0.1', 3128, "
	         "timeout=10)\n"
	         "  c.set_tunnel('allowed.test', %d)\n"
	         "  c.request('GET', '/t')\n"
	         "  print(c.getresponse().read().decode())\n"
	         "except Exception as e:\n"
	         "  print('tunnel-failed', e)\n"
	         "try:\n"
	         "  urllib.request.urlopen('http://other.test:%d/', "
	         "timeout=10)\n"
	         "  print('other-reached')\n"
	         "except urllib.error.HTTPError as e:\n"
	         "  print('other-refused', e.code)\n"
	         "except Exception as e:\n"
	         "  print('other-failed', e)\n"
	         "def tryit(name, fam, typ, addr):\n"
	         "  try:\n"
	         "    s = socket.socket(fam, typ)\n"
	         "    s.settimeout(3)\n"
	         "    if typ == socket.SOCK_DGRAM: s.sendto(b'x', addr)\n"
	         "    elif addr: s.connect(addr)\n"
	         "    print(name + '-open')\n"
	         "  except OSError as e:\n"
	         "    print(name + '-refused', e.errno)\n"
	         "tryit('tcp', socket.AF_INET, socket.SOCK_STREAM, "
	         "('127.0.0.1', %d))\n"
	         "tryit('udp', socket.AF_INET, socket.SOCK_DGRAM, "
	         "('127.0.0.1', %d))\n"
	         "tryit('ipv6', socket.AF_INET6, socket.SOCK_STREAM, "
	         "('::1', %d))\n"
	         "tryit('raw', socket.AF_INET, socket.SOCK_RAW, None)\n"
	         "tryit('packet', socket.AF_PACKET, socket.SOCK_RAW, None)\n\"",
	         sport, sport, sport, sport, sport, sport);
	run_sh(&res, script, web_only);
	out = skitx_buf_cstr(&res.out);
	if (res.exit_code != 0 || !strstr(out, "body-by-http"))
		printf("out: %s\nerr: %s\n", out, skitx_buf_cstr(&res.err));
	ASSERT_EQ(res.exit_code, 0);
	ASSERT(res.layers & SKIT_SANDBOX_NETNS);
	ASSERT_CONTAINS(out, "proxy-env http://127.0.0.1:3128");
	ASSERT_CONTAINS(out, "body-by-http");
	ASSERT_CONTAINS(out, "body-by-tunnel");
	ASSERT_CONTAINS(out, "other-refused 403");
	ASSERT_CONTAINS(out, "tcp-refused");
	ASSERT_CONTAINS(out, "udp-refused");
	ASSERT_CONTAINS(out, "ipv6-refused");
	ASSERT_CONTAINS(out, "raw-refused");
	ASSERT_CONTAINS(out, "packet-refused");
	ASSERT_EQ(httpd_request_count(h), 2);
	ASSERT_STR(httpd_request_at(h, 0)->path, "/a");
	ASSERT_STR(httpd_request_at(h, 1)->path, "/t");
	skit__run_result_release(&res);
	httpd_stop(h);
}

static void test_sandbox__web_proxy(void)
{
	web_proxy_check();
}

/*
 * Run `check` as nobody, in a child that dropped root for good (the
 * namespaces are then made through a user namespace); the child reports
 * through its exit status.
 */
static void as_nobody(const char *what, void (*check)(void))
{
	char cmd[PATH_MAX + 64];
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("note: not root; %s as nobody skipped\n", what);
		return;
	}
	fresh();
	snprintf(cmd, sizeof(cmd), "chown -R 65534:65534 '%s'", base);
	ASSERT_EQ(system(cmd), 0);
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(90);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (setjmp(harness_jmp)) {
			fflush(stdout);
			_exit(1);
		}
		if (!(skit_sandbox_available() & SKIT_SANDBOX_NETNS)) {
			printf("note: no user namespaces for nobody here\n");
			_exit(0);
		}
		check();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/* The web mode and the keyrings, as an unprivileged user: the loopback
 * is brought up inside the run's own user namespace. */
static void test_sandbox__web_proxy_unprivileged(void)
{
	as_nobody("web proxy", web_proxy_check);
}

static void test_sandbox__keyrings_unprivileged(void)
{
	as_nobody("keyrings", test_sandbox__keyrings);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_sandbox__probe)
	TEST(test_sandbox__unconfined_unchanged)
	TEST(test_sandbox__secret_outside)
	TEST(test_sandbox__write_outside)
	TEST(test_sandbox__network)
	TEST(test_sandbox__environment)
	TEST(test_sandbox__fork_bomb)
	TEST(test_sandbox__flood)
	TEST(test_sandbox__outlive)
	TEST(test_sandbox__symlink_out)
	TEST(test_sandbox__trap_term)
	TEST(test_sandbox__inherited_fds)
	TEST(test_sandbox__terminal)
	TEST(test_sandbox__signals)
	TEST(test_sandbox__rlimits)
	TEST(test_sandbox__python_runs)
	TEST(test_sandbox__full_access)
	TEST(test_sandbox__disk_cap)
	TEST(test_sandbox__hostile_root)
	TEST(test_sandbox__hostile_unprivileged)
	TEST(test_sandbox__no_cgroup_left)
	TEST(test_sandbox__seccomp_refusals)
	TEST(test_sandbox__keyrings)
	TEST(test_sandbox__netns_alone)
	TEST(test_sandbox__web_proxy)
	TEST(test_sandbox__web_proxy_unprivileged)
	TEST(test_sandbox__keyrings_unprivileged)
	TEST(test_sandbox__hidden_loose_paths)
	TEST(test_sandbox__syscalls_beyond_headers)
	TEST(test_sandbox__git_works))
/* clang-format on */
