/* SPDX-License-Identifier: MIT */
/*
 * test_pack_txn.c - the transaction of an install, beyond test_pack.c's
 * crash test: a kill while a crash is being recovered from, or while a
 * failed commit is rolled back, never leaves a replaced skill missing
 * from the root (RENAME_EXCHANGE); a full disk at any write or fsync
 * rolls back and names the file; skit_root_unfinished() reports what a
 * dead command left, and nothing while a command works.
 *
 * The kills and faults come from the library's test knobs
 * (skit__pack_crash_at, skit__pack_fail_at), so each run hits the same
 * point. The roots live on /dev/shm when it is there: the fsyncs then
 * cost nothing, and the crash loops stay fast.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "lib/pack/pack_int.h"
#include "skit/skit.h"
#include "util/fs.h"

#define NSKILLS 4

static const char *const names[NSKILLS] = { "a-skill", "b-skill", "c-skill",
	                                    "d-skill" };

static char top[2048];

static void rm_rf(const char *p)
{
	char cmd[8300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p);
	ASSERT_OK(system(cmd));
}

/* Memory is not left behind in /dev/shm, whatever the tests did. The
 * children leave by _exit(), so only the test process runs this. */
static void cleanup(void)
{
	char cmd[4200];

	if (!top[0] || strncmp(top, "/dev/shm/", 9))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	if (system(cmd) != 0)
		fprintf(stderr, "note: could not remove %s\n", top);
}

/* The folder every test works in: on /dev/shm when it can be. */
/*
 * Whether process `pid` waits on a flock() lock: a blocked waiter is a
 * "-> FLOCK" line of /proc/locks naming its pid. Polled for up to 10 s,
 * so a race test knows its window was hit instead of hoping a pause was
 * long enough; false where /proc/locks cannot tell.
 */
static bool blocked_on_flock(pid_t pid)
{
	char line[256], want[32];

	snprintf(want, sizeof(want), " %ld ", (long)pid);
	for (int i = 0; i < 1000; i++) {
		FILE *f = fopen("/proc/locks", "r");
		bool found = false;

		if (!f)
			return false;
		while (!found && fgets(line, sizeof(line), f))
			found = strstr(line, "-> FLOCK") && strstr(line, want);
		fclose(f);
		if (found)
			return true;
		usleep(10 * 1000);
	}
	return false;
}

static const char *work_top(void)
{
	const char *t = getenv("SKIT_TEST_DIR");

	if (top[0])
		return top;
	snprintf(top, sizeof(top), "/dev/shm/skit-test-txn-XXXXXX");
	if (mkdtemp(top)) {
		atexit(cleanup);
	} else {
		snprintf(top, sizeof(top), "%.2000s/txn",
		         t ? t : "/tmp/skit-test-pack-txn");
		rm_rf(top);
		ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
	}
	return top;
}

static const char *at(const char *name)
{
	static char buf[8][4096];
	static int k;
	char *p = buf[k++ % 8];

	snprintf(p, 4096, "%.2048s/%.1000s", work_top(), name);
	return p;
}

static void put(const char *path, const char *text, mode_t mode)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	ASSERT_OK(skitx_fs_write_atomic(path, text, strlen(text), mode));
}

static void skill(const char *dir, const char *name, const char *tag)
{
	char path[4096], text[512];

	snprintf(text, sizeof(text),
	         "---\nname: %s\ndescription: Does %s things. Use when "
	         "testing.\n---\nBody of %s (%s).\n",
	         name, name, name, tag);
	snprintf(path, sizeof(path), "%s/%s/SKILL.md", dir, name);
	put(path, text, 0644);
	snprintf(text, sizeof(text), "#!/bin/sh\necho %s %s\n", name, tag);
	snprintf(path, sizeof(path), "%s/%s/scripts/run.sh", dir, name);
	put(path, text, 0755);
	snprintf(text, sizeof(text), "Notes for %s, %s.\n", name, tag);
	snprintf(path, sizeof(path), "%s/%s/references/notes.md", dir, name);
	put(path, text, 0644);
}

static void pack(const char *dir, size_t n, const char *out)
{
	const char *dirs[NSKILLS];
	char paths[NSKILLS][4096];
	skit_error err = { 0 };

	for (size_t i = 0; i < n; i++) {
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", dir, names[i]);
		dirs[i] = paths[i];
	}
	if (skit_pack(dirs, n, out, NULL, NULL, &err) < 0)
		HARNESS_FAIL("skit_pack: %s", err.message);
}

static int install(const char *root, const char *src, unsigned int flags,
                   skit_error *err)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;

	o.flags = flags;
	return skit_install(root, src, &o, NULL, err);
}

/* The files of `root`/`name` (empty when absent). */
static void snap(const char *root, const char *name, struct skit__pskill *s)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY);

	memset(s, 0, sizeof(*s));
	ASSERT(fd >= 0);
	if (faccessat(fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		ASSERT_OK(skit__tree_hash(fd, name, s, NULL));
	close(fd);
}

static int staging_left(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int n = 0;

	ASSERT(d != NULL);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, ".staging-", 9);
	closedir(d);
	return n;
}

/* Verify (which takes the lock, so recovers first); the findings. */
static size_t recover_and_verify(const char *root)
{
	skit_verify_result *r = NULL;
	skit_error err = { 0 };
	size_t n;

	if (skit_verify(&r, root, NULL, &err) < 0)
		HARNESS_FAIL("verify: %s", err.message);
	n = skit_verify_count(r);
	skit_verify_free(r);
	return n;
}

/* v1 holds a, b, c; v2 changes a and b, keeps c and adds d. */
struct fixture {
	char p1[4096], p2[4096];
	struct skit__pskill old[NSKILLS], new[NSKILLS];
};

static void fixture_init(struct fixture *f)
{
	const char *s1 = at("v1"), *s2 = at("v2");
	char ref[4096];

	rm_rf(s1);
	rm_rf(s2);
	skill(s1, "a-skill", "v1");
	skill(s1, "b-skill", "v1");
	skill(s1, "c-skill", "v1");
	skill(s2, "a-skill", "v2");
	skill(s2, "b-skill", "v2");
	skill(s2, "c-skill", "v1");
	skill(s2, "d-skill", "v2");
	snprintf(f->p1, sizeof(f->p1), "%s/v1.zip", s1);
	snprintf(f->p2, sizeof(f->p2), "%s/v2.zip", s2);
	pack(s1, 3, f->p1);
	pack(s2, 4, f->p2);
	snprintf(ref, sizeof(ref), "%s/ref", s1);
	ASSERT_OK(install(ref, f->p1, 0, NULL));
	for (int i = 0; i < NSKILLS; i++)
		snap(ref, names[i], &f->old[i]);
	snprintf(ref, sizeof(ref), "%s/ref", s2);
	ASSERT_OK(install(ref, f->p2, 0, NULL));
	for (int i = 0; i < NSKILLS; i++)
		snap(ref, names[i], &f->new[i]);
}

static void fixture_release(struct fixture *f)
{
	for (int i = 0; i < NSKILLS; i++) {
		skit__pskill_release(&f->old[i]);
		skit__pskill_release(&f->new[i]);
	}
}

/* What the root holds: each skill old, new, or neither. */
struct state {
	bool all_old, all_new, missing, mixed, torn;
};

static struct state look(const struct fixture *f, const char *root)
{
	struct state st = { true, true, false, false, false };
	bool any_old = false, any_new = false;

	for (int i = 0; i < NSKILLS; i++) {
		struct skit__pskill s;
		bool is_old, is_new;

		snap(root, names[i], &s);
		is_old = skit__pskill_same_files(&s, &f->old[i]);
		is_new = skit__pskill_same_files(&s, &f->new[i]);
		/* a, b and c are installed before and after: never absent. */
		if (i < 3 && !s.nfiles)
			st.missing = true;
		else if (!is_old && !is_new)
			st.torn = true;
		st.all_old &= is_old;
		st.all_new &= is_new;
		any_old |= is_old && !is_new;
		any_new |= is_new && !is_old;
		skit__pskill_release(&s);
	}
	st.mixed = any_old && any_new;
	return st;
}

/* A root holding v1, fresh. */
static void fresh_root(const struct fixture *f, const char *root)
{
	rm_rf(root);
	ASSERT_OK(install(root, f->p1, 0, NULL));
}

/* Run `fn` in a child with the knobs set; its wait status. */
static int in_child(const char *root, const struct fixture *f, long crash_at,
                    long fail_at, int what)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		skit_verify_result *r = NULL;

		skit__pack_crash_at = crash_at;
		skit__pack_fail_at = fail_at;
		if (what == 0)
			_exit(install(root, f->p2, SKIT_INSTALL_FORCE, NULL)
			              ? 3
			              : 0);
		_exit(skit_verify(&r, root, NULL, NULL) ? 3 : 0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	return status;
}

static bool killed(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

/*
 * Kill the install at each crash point k1 that leaves the root mixed
 * (some skills moved in, some not); then kill the recovery at each of
 * its own crash points k2. After every kill each skill that was
 * installed is in the root, old or new; after a recovery that ends,
 * the root is all old or all new. Returns how often a skill was seen
 * missing.
 */
static int kill_recovery(const struct fixture *f, const char *root,
                         int *recovery_kills)
{
	int missing = 0, mixed_k1 = 0;

	*recovery_kills = 0;
	for (long k1 = 1; k1 < 200; k1++) {
		struct state st;
		int status;

		fresh_root(f, root);
		status = in_child(root, f, k1, 0, 0);
		if (!killed(status))
			break;
		st = look(f, root);
		if (!st.mixed)
			continue;
		mixed_k1++;
		for (long k2 = 1; k2 < 500; k2++) {
			if (k2 > 1) {
				fresh_root(f, root);
				ASSERT(killed(in_child(root, f, k1, 0, 0)));
			}
			status = in_child(root, f, k2, 0, 1);
			st = look(f, root);
			if (st.torn)
				HARNESS_FAIL("k1 %ld, k2 %ld: a skill is torn",
				             k1, k2);
			missing += st.missing;
			if (killed(status)) {
				(*recovery_kills)++;
				continue;
			}
			ASSERT(WIFEXITED(status));
			ASSERT_EQ(staging_left(root), 0);
			if (!st.all_old && !st.all_new)
				HARNESS_FAIL("k1 %ld, k2 %ld: a mix after "
				             "recovery",
				             k1, k2);
			break;
		}
	}
	ASSERT(mixed_k1 > 0);
	return missing;
}

static void test_pack_txn__kill_during_recovery(void)
{
	struct fixture f;
	int kills = 0, missing;

	fixture_init(&f);
	missing = kill_recovery(&f, at("rec"), &kills);
	ASSERT_EQ(missing, 0);
	ASSERT(kills > 0);
	/*
	 * The same without RENAME_EXCHANGE (a file system that lacks it):
	 * still all or nothing, but the two plain renames of the fallback
	 * leave moments without the skill, which this test does see. That
	 * shows the check above can fail.
	 */
	if (getenv("SKIT_TEST_VERBOSE"))
		fprintf(stderr, "recovery: %d kills, 0 missing\n", kills);
	skit__pack_no_exchange = true;
	missing = kill_recovery(&f, at("rec-noex"), &kills);
	skit__pack_no_exchange = false;
	if (getenv("SKIT_TEST_VERBOSE"))
		fprintf(stderr,
		        "recovery without exchange: %d kills, %d missing\n",
		        kills, missing);
	ASSERT(missing > 0);
	fixture_release(&f);
}

/* How many fault points a whole install of v2 over v1 passes. */
static long faults_of_install(const struct fixture *f, const char *root)
{
	long left;

	fresh_root(f, root);
	skit__pack_fail_at = 1000000;
	ASSERT_OK(install(root, f->p2, SKIT_INSTALL_FORCE, NULL));
	left = skit__pack_fail_at;
	skit__pack_fail_at = 0;
	ASSERT(left < 1000000);
	return 1000000 - left;
}

/*
 * A full disk at every write and fsync in turn: the install fails with
 * an error naming the file (a staged file, the journal, the root, the
 * lock file), and the root is exactly v1 again, with nothing left over.
 */
static void test_pack_txn__disk_full_names_the_file(void)
{
	struct fixture f;
	const char *root = at("full");
	skit_error err = { 0 };
	long n;
	bool saw_lock = false, saw_staged = false, saw_journal = false;

	fixture_init(&f);
	n = faults_of_install(&f, root);
	ASSERT(n > 10);
	for (long k = 1; k <= n; k++) {
		struct state st;
		int rc;

		fresh_root(&f, root);
		memset(&err, 0, sizeof(err));
		skit__pack_fail_at = k;
		rc = install(root, f.p2, SKIT_INSTALL_FORCE, &err);
		skit__pack_fail_at = 0;
		ASSERT_EQ(rc, SKIT_EIO);
		ASSERT_CONTAINS(err.message, ": No space left on device");
		/* An absolute path names the file. */
		ASSERT(err.message[0] == '/');
		ASSERT(!strchr(err.message, '\n'));
		saw_lock |= strstr(err.message, "/.skit-lock.json:") != NULL;
		saw_journal |= strstr(err.message, "/journal.json:") != NULL;
		saw_staged |= strstr(err.message, "/a-skill/SKILL.md:") != NULL;
		ASSERT_EQ(staging_left(root), 0);
		st = look(&f, root);
		if (!st.all_old)
			HARNESS_FAIL("fault %ld (%s): the root is not v1", k,
			             err.message);
		ASSERT_EQ(recover_and_verify(root), 0);
	}
	ASSERT(saw_lock && saw_journal && saw_staged);
	fixture_release(&f);
}

/*
 * The lock file cannot be written (the disk is full) after every skill
 * moved in, so the commit rolls back; a kill at each point of that
 * rollback never leaves a skill missing, and the next command finishes
 * the rollback.
 */
static void test_pack_txn__kill_during_rollback(void)
{
	struct fixture f;
	const char *root = at("rb");
	long n, k;
	int kills = 0;

	fixture_init(&f);
	n = faults_of_install(&f, root);
	for (k = 1; k < 500; k++) {
		struct state st;
		int status;

		fresh_root(&f, root);
		/* n - 1: the write of the lock file (its fsync is n). */
		status = in_child(root, &f, k, n - 1, 0);
		st = look(&f, root);
		if (st.missing || st.torn)
			HARNESS_FAIL("crash point %ld of the rollback: a "
			             "skill is %s",
			             k, st.missing ? "missing" : "torn");
		if (!killed(status)) {
			/* The install ran to its end and failed. */
			ASSERT(WIFEXITED(status));
			ASSERT_EQ(WEXITSTATUS(status), 3);
			ASSERT(st.all_old);
			ASSERT_EQ(staging_left(root), 0);
			break;
		}
		kills++;
		ASSERT_EQ(recover_and_verify(root), 0);
		ASSERT_EQ(staging_left(root), 0);
		ASSERT(look(&f, root).all_old);
	}
	if (getenv("SKIT_TEST_VERBOSE"))
		fprintf(stderr, "rollback: %d kills over %ld faults\n", kills,
		        n);
	ASSERT(kills > 5);
	fixture_release(&f);
}

/* What a dead install leaves is reported, and what a live one holds is
 * not; recovery clears it. */
static void test_pack_txn__unfinished_reported(void)
{
	struct fixture f;
	const char *root = at("unf");
	skit_unfinished_txn *v = NULL;
	skit_error err = { 0 };
	size_t n = 99;
	bool saw_moved = false, saw_committed = false, saw_staged = false;

	fixture_init(&f);
	fresh_root(&f, root);
	ASSERT_OK(skit_root_unfinished(root, &v, &n, &err));
	ASSERT_EQ(n, 0);
	ASSERT(v == NULL);
	ASSERT_OK(skit_root_unfinished(at("no-such-root"), &v, &n, &err));
	ASSERT_EQ(n, 0);
	for (long k = 1; k < 200; k++) {
		int status;

		fresh_root(&f, root);
		status = in_child(root, &f, k, 0, 0);
		if (!killed(status))
			break;
		ASSERT_OK(skit_root_unfinished(root, &v, &n, &err));
		ASSERT_EQ(n, (size_t)staging_left(root));
		if (n) {
			ASSERT(!strncmp(v[0].staging, ".staging-", 9));
			saw_staged |= !v[0].moved;
			saw_moved |= v[0].moved && !v[0].committed;
			saw_committed |= v[0].committed;
			if (v[0].committed)
				ASSERT(v[0].moved);
		}
		skit_free(v);
		/* While a command holds the lock, its folder is live. */
		if (n) {
			char lockp[4096];
			int fd;

			snprintf(lockp, sizeof(lockp), "%s/.skit.lock", root);
			fd = open(lockp, O_RDONLY);
			ASSERT(fd >= 0);
			ASSERT_OK(flock(fd, LOCK_EX));
			ASSERT_OK(skit_root_unfinished(root, &v, &n, &err));
			ASSERT_EQ(n, 0);
			close(fd);
		}
		ASSERT_EQ(recover_and_verify(root), 0);
		ASSERT_OK(skit_root_unfinished(root, &v, &n, &err));
		ASSERT_EQ(n, 0);
	}
	ASSERT(saw_staged && saw_moved && saw_committed);
	fixture_release(&f);
}

/*
 * A transaction that created its root and commits nothing removes the
 * root again (with the folders it made above it), and leaves a root
 * that was there alone. A second command that waited on the lock of
 * the removed root opens afresh, makes the root again and holds a live
 * lock: its work cannot land in a deleted folder.
 */
static void test_pack_txn__failed_first_open_removes_root(void)
{
	struct skit__txn t, u;
	skit_error err = { 0 };
	char root[4096], up[4096], lockp[4200];
	struct stat st;
	int pipefd[2];
	pid_t pid;
	int status;

	snprintf(up, sizeof(up), "%s/made", work_top());
	rm_rf(up);
	snprintf(root, sizeof(root), "%s/made/a/b", work_top());
	ASSERT_OK(skit__txn_open(&t, root, true, &err));
	ASSERT_OK(stat(root, &st));
	skit__txn_close(&t);
	ASSERT(stat(up, &st) < 0 && errno == ENOENT);

	/* committed: it stays */
	ASSERT_OK(skit__txn_open(&t, root, true, &err));
	ASSERT_OK(skit__txn_stage(&t, &err));
	ASSERT_OK(skit__txn_commit(&t, NULL, 0, &err));
	skit__txn_close(&t);
	snprintf(lockp, sizeof(lockp), "%s/.skit-lock.json", root);
	ASSERT_OK(stat(lockp, &st));
	/* there before: it stays, even when nothing is committed */
	ASSERT_OK(skit__txn_open(&t, root, true, &err));
	skit__txn_close(&t);
	ASSERT_OK(stat(lockp, &st));
	rm_rf(up);

	/* A waiter on a root that goes away under it. */
	ASSERT_OK(skit__txn_open(&t, root, true, &err));
	ASSERT_OK(pipe(pipefd));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		char c = 0;
		int rc;

		/* Not the parent's lock: flock() locks are shared by the
		 * copies fork() makes of a descriptor. */
		close(t.lockfd);
		close(t.rootfd);
		close(pipefd[0]);
		(void)!write(pipefd[1], &c, 1);
		rc = skit__txn_open(&u, root, true, &err);
		if (rc == 0 && fstat(u.lockfd, &st) == 0 && st.st_nlink > 0) {
			rc = skit__txn_stage(&u, &err);
			if (!rc)
				rc = skit__txn_commit(&u, NULL, 0, &err);
		} else if (!rc) {
			rc = -1;
		}
		skit__txn_close(&u);
		_exit(rc ? 1 : 0);
	}
	close(pipefd[1]);
	{
		char c;

		ASSERT_EQ(read(pipefd[0], &c, 1), 1);
	}
	close(pipefd[0]);
	/* The root goes away only once the child waits on its lock: else
	 * this would test a plain open, and pass without saying so. */
	if (!blocked_on_flock(pid))
		fprintf(stderr, "note: the child never blocked on the lock: "
		                "the race window was not hit\n");
	skit__txn_close(&t);
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ASSERT_OK(stat(lockp, &st));
	rm_rf(up);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_pack_txn__failed_first_open_removes_root)
	TEST(test_pack_txn__kill_during_recovery)
	TEST(test_pack_txn__disk_full_names_the_file)
	TEST(test_pack_txn__kill_during_rollback)
	TEST(test_pack_txn__unfinished_reported))
/* clang-format on */
