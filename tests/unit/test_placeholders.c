/* SPDX-License-Identifier: MIT */
/*
 * test_placeholders.c - the placeholders of missing protected folders
 * when runs share a project (docs/sandbox.md): two confined runs at once,
 * the one that made the placeholders ending first, must leave the other's
 * protection whole (a folder removed while it is a mount point in another
 * namespace is detached there), and the last run leaves the project as it
 * found it. Also: a placeholder left by a killed run is used and removed;
 * one the user fills during the run stays, as the user's; a folder of the
 * user's own is never removed; a link where a placeholder would go costs
 * the run nothing else. As root, and as nobody (user namespaces).
 *
 * The runs wait on files, never on time: a run's script says it has
 * started, then waits until the test lets it go on.
 */
#include "common.h"

#include <dirent.h>
#include <grp.h>
#include <pthread.h>
#include <setjmp.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "skit/sandbox.h"
#include "lib/sandbox/sandbox_int.h"
#include "util/fs.h"

static char top[PATH_MAX / 4], proj[PATH_MAX / 2];

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

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", proj, rel);
	return buf[i];
}

/* Whether the sandbox can bind protected paths here. */
static bool can_protect(void)
{
	if (skit_sandbox_available() & SKIT_SANDBOX_MOUNTNS)
		return true;
	printf("note: no mount namespace here; placeholders not used\n");
	return false;
}

/* A fresh project: SKIT_TEST_DIR/proj (or one of /tmp for nobody). */
static void fresh(const char *root)
{
	snprintf(top, sizeof(top), "%s", root);
	snprintf(proj, sizeof(proj), "%s/proj", top);
	rm_rf(proj);
	ASSERT_OK(skitx_fs_mkdir_p(proj, 0755));
}

struct run {
	const char *script;
	struct skit__run_result res;
	int rc;
	pthread_t thread;
};

static void *run_main(void *arg)
{
	struct run *r = arg;
	static const char *pp[4];
	const char *wp[2] = { proj, NULL };
	char *argv[] = { "/bin/sh", "-c", (char *)r->script, NULL };
	struct skit__run_opts o;
	skit_error err = { 0 };

	/* the protected paths of a project (agent/protect.c) */
	static char p0[PATH_MAX], p1[PATH_MAX], p2[PATH_MAX];

	snprintf(p0, sizeof(p0), "%s/.git", proj);
	snprintf(p1, sizeof(p1), "%s/.agents/skills", proj);
	snprintf(p2, sizeof(p2), "%s/.claude/skills", proj);
	pp[0] = p0;
	pp[1] = p1;
	pp[2] = p2;
	pp[3] = NULL;
	memset(&o, 0, sizeof(o));
	o.path = argv[0];
	o.argv = argv;
	o.envp = env_default;
	o.cwd = proj;
	o.timeout_ms = 30000;
	o.grace_ms = 300;
	o.output_cap = 64 * 1024;
	o.confine = true;
	o.write_paths = wp;
	o.protect_paths = pp;
	r->rc = skit__run(&r->res, &o, &err);
	return NULL;
}

static void start(struct run *r, const char *script)
{
	memset(r, 0, sizeof(*r));
	r->script = script;
	ASSERT_OK(pthread_create(&r->thread, NULL, run_main, r));
}

static void finish(struct run *r)
{
	ASSERT_OK(pthread_join(r->thread, NULL));
	if (r->rc || r->res.exit_code)
		printf("run: rc %d, exit %d, stderr: %s\n", r->rc,
		       r->res.exit_code, skitx_buf_cstr(&r->res.err));
	ASSERT_OK(r->rc);
	ASSERT_EQ(r->res.exit_code, 0);
}

/* Wait (at most 30 s) until the file `rel` of the project exists. */
static void wait_for(const char *rel)
{
	struct timespec ts = { 0, 10 * 1000000L };

	for (int i = 0; i < 3000; i++) {
		if (!access(at(rel), F_OK))
			return;
		nanosleep(&ts, NULL);
	}
	HARNESS_FAIL("%s never appeared", rel);
}

static void touch(const char *rel)
{
	FILE *f = fopen(at(rel), "w");

	ASSERT(f);
	ASSERT_OK(fclose(f));
}

static bool is_placeholder(const char *rel)
{
	struct stat st;

	return !lstat(at(rel), &st) && S_ISDIR(st.st_mode) &&
	       (st.st_mode & S_ISVTX);
}

/* The script of a run: says `name`-started, waits for `name`-go, then
 * tries to plant in every protected folder and says what happened. */
#define WAITER(name)                                                          \
 "touch " name "-started; i=0; "                                              \
 "while [ ! -e " name "-go ] && [ $i -lt 3000 ]; do sleep 0.01; "             \
 "i=$((i+1)); done; "                                                         \
 "mkdir -p .claude/skills/evil 2>/dev/null && echo " name                     \
 "-CLAUDE-PLANTED || echo " name "-claude-refused; "                          \
 "mkdir -p .agents/skills/evil 2>/dev/null && echo " name                     \
 "-AGENTS-PLANTED || echo " name "-agents-refused; "                          \
 "mkdir -p .git/hooks 2>/dev/null && echo " name "-GIT-PLANTED || echo " name \
 "-git-refused"

static void check_refused(const struct run *r, const char *name)
{
	const char *out = skitx_buf_cstr(&r->res.out);
	char want[64];

	printf("%s", out);
	ASSERT(!strstr(out, "PLANTED"));
	snprintf(want, sizeof(want), "%s-claude-refused", name);
	ASSERT_CONTAINS(out, want);
	snprintf(want, sizeof(want), "%s-agents-refused", name);
	ASSERT_CONTAINS(out, want);
	snprintf(want, sizeof(want), "%s-git-refused", name);
	ASSERT_CONTAINS(out, want);
}

/*
 * A makes the placeholders (.git, .agents, and .claude/skills beneath the
 * user's .claude); B starts while they exist and uses A's; A ends first.
 * B's program still cannot plant, and once B ends nothing is left.
 */
static void shared_check(void)
{
	bool made, nested, held;
	struct run a, b;

	ASSERT_OK(mkdir(at(".claude"), 0755)); /* the user's own */
	start(&a, WAITER("a"));
	wait_for("a-started");
	made = is_placeholder(".git") && is_placeholder(".agents") &&
	       is_placeholder(".claude/skills");
	start(&b, WAITER("b"));
	wait_for("b-started");
	/* B uses A's placeholders rather than making its own beneath */
	nested = access(at(".agents/skills"), F_OK) == 0;
	touch("a-go");
	finish(&a);
	/* B holds them: still there */
	held = is_placeholder(".git") && is_placeholder(".agents") &&
	       is_placeholder(".claude/skills");
	touch("b-go");
	finish(&b);
	/* what matters first: no program planted anything */
	check_refused(&a, "a");
	check_refused(&b, "b");
	ASSERT(made);
	ASSERT(!nested);
	ASSERT(held);
	ASSERT(access(at(".git"), F_OK) < 0);
	ASSERT(access(at(".agents"), F_OK) < 0);
	ASSERT(access(at(".claude/skills"), F_OK) < 0);
	ASSERT(!is_placeholder(".claude"));
	ASSERT(access(at(".claude"), F_OK) == 0);
	skit__run_result_release(&a.res);
	skit__run_result_release(&b.res);
}

static void test_placeholders__shared(void)
{
	const char *t = getenv("SKIT_TEST_DIR");

	if (!can_protect())
		return;
	fresh(t ? t : "/tmp/skit-test-placeholders");
	shared_check();
}

/*
 * A placeholder left by a run that was killed (marked, empty) is used,
 * and removed after the run; a folder the user fills during the run
 * stays, without the mark; an empty folder of the user's stays.
 */
static void test_placeholders__stale_and_filled(void)
{
	const char *t = getenv("SKIT_TEST_DIR");
	struct run a;
	struct stat st;

	if (!can_protect())
		return;
	fresh(t ? t : "/tmp/skit-test-placeholders");
	ASSERT_OK(mkdir(at(".agents"), 0755));
	ASSERT_OK(chmod(at(".agents"), S_ISVTX | 0755)); /* a killed run's */
	ASSERT_OK(mkdir(at(".claude"), 0755));           /* the user's */
	start(&a, WAITER("a"));
	wait_for("a-started");
	/* the stale one is used as it is: nothing made beneath it */
	ASSERT(access(at(".agents/skills"), F_OK) < 0);
	ASSERT(is_placeholder(".git"));
	/* the user runs `git init` meanwhile */
	ASSERT_OK(mkdir(at(".git/objects"), 0755));
	touch("a-go");
	finish(&a);
	check_refused(&a, "a");
	ASSERT(access(at(".agents"), F_OK) < 0);
	ASSERT_OK(lstat(at(".git/objects"), &st));
	ASSERT(!is_placeholder(".git"));
	ASSERT_OK(lstat(at(".claude"), &st));
	ASSERT(!is_placeholder(".claude"));
	ASSERT(access(at(".claude/skills"), F_OK) < 0);
	skit__run_result_release(&a.res);
}

/*
 * Links and files where a placeholder would go: a dangling `.claude` link
 * to a folder the program could make (its target is protected in its
 * place), a file named `.agents` (bound, so that it cannot be swapped for
 * a folder), a link out of the project. The run keeps its mount namespace
 * and every protected folder stays protected.
 */
static void test_placeholders__link_in_the_way(void)
{
	const char *t = getenv("SKIT_TEST_DIR");
	const char *out;
	struct run a;
	FILE *f;

	if (!can_protect())
		return;
	fresh(t ? t : "/tmp/skit-test-placeholders");
	ASSERT_OK(mkdir(at("sub"), 0755));
	ASSERT_OK(symlink("sub/claude", at(".claude")));
	ASSERT_OK(symlink("/nonexistent-skit-test", at(".agent")));
	f = fopen(at(".agents"), "w");
	ASSERT(f);
	ASSERT_OK(fclose(f));
	start(&a, "mkdir -p sub/claude/skills/evil 2>/dev/null && echo "
	          "CLAUDE-PLANTED || echo claude-refused; "
	          "rm -f .agents 2>/dev/null; mkdir -p .agents/skills/evil "
	          "2>/dev/null && echo AGENTS-PLANTED || echo agents-refused; "
	          "mkdir .git/hooks 2>/dev/null && echo GIT-PLANTED || "
	          "echo git-refused; mkdir -p sub/other && echo sub-writable");
	finish(&a);
	out = skitx_buf_cstr(&a.res.out);
	printf("%s", out);
	ASSERT(a.res.layers & SKIT_SANDBOX_MOUNTNS);
	ASSERT(!strstr(out, "PLANTED"));
	ASSERT_CONTAINS(out, "claude-refused");
	ASSERT_CONTAINS(out, "agents-refused");
	ASSERT_CONTAINS(out, "git-refused");
	ASSERT_CONTAINS(out, "sub-writable");
	/* the placeholder made at the link's target is gone again */
	ASSERT(access(at("sub/claude"), F_OK) < 0);
	ASSERT(access(at(".git"), F_OK) < 0);
	skit__run_result_release(&a.res);
}

/* The shared case as nobody: the namespaces come from a user namespace. */
static void test_placeholders__shared_unprivileged(void)
{
	char dir[64] = "/tmp/skit-ph-XXXXXX", cmd[PATH_MAX];
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("note: not root; the nobody case skipped\n");
		return;
	}
	/* nobody must reach it: a build tree under a private home would
	 * not let it */
	ASSERT(mkdtemp(dir));
	ASSERT_OK(chmod(dir, 0755));
	fresh(dir);
	snprintf(cmd, sizeof(cmd), "chown -R 65534:65534 '%s'", dir);
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
		if (!(skit_sandbox_available() & SKIT_SANDBOX_MOUNTNS)) {
			printf("note: no user namespaces for nobody here\n");
			_exit(0);
		}
		shared_check();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	rm_rf(dir);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_placeholders__shared)
	TEST(test_placeholders__stale_and_filled)
	TEST(test_placeholders__link_in_the_way)
	TEST(test_placeholders__shared_unprivileged))
/* clang-format on */
