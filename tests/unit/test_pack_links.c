/* SPDX-License-Identifier: MIT */
/*
 * test_pack_links.c - links (and copies) of installed skills in agents'
 * folders are part of the install's transaction (pack_links.c): killed
 * at any crash point, or failing at any write or fsync, an install or an
 * uninstall leaves, once the next command has recovered, the skills,
 * their links, their copies and the lock all old or all new, with no
 * entry left aside in an agent's folder. A copy skit replaces is never
 * missing from its agent's folder, even before recovery.
 *
 * The kills and faults come from the library's test knobs
 * (skit__pack_crash_at, skit__pack_fail_at), so each run hits the same
 * point.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "lib/pack/pack_int.h"
#include "skit/skit.h"
#include "util/buf.h"
#include "util/fs.h"

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

/* Files under the test's folder: on /dev/shm when it can be, where the
 * fsyncs cost nothing and the crash loops stay fast. */
static const char *at(const char *name)
{
	static char buf[8][4096];
	static int k;
	char *p = buf[k++ % 8];

	if (!top[0]) {
		const char *t = getenv("SKIT_TEST_DIR");

		snprintf(top, sizeof(top), "/dev/shm/skit-test-links-XXXXXX");
		if (mkdtemp(top)) {
			atexit(cleanup);
		} else {
			snprintf(top, sizeof(top), "%.2000s/links",
			         t ? t : "/tmp/skit-test-pack-links");
			rm_rf(top);
			ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
		}
	}
	snprintf(p, 4096, "%.2048s/%.1000s", top, name);
	return p;
}

static void put(const char *path, const char *text)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	ASSERT_OK(skitx_fs_write_atomic(path, text, strlen(text), 0644));
}

/* The source `src` holds skills x and y, tagged `tag`. */
static void source(const char *src, const char *tag)
{
	static const char *const names[] = { "x-skill", "y-skill" };
	char path[4096], text[256];

	for (size_t i = 0; i < 2; i++) {
		snprintf(text, sizeof(text),
		         "---\nname: %s\ndescription: Does %s things.\n---\n"
		         "Body (%s).\n",
		         names[i], names[i], tag);
		snprintf(path, sizeof(path), "%s/%s/SKILL.md", src, names[i]);
		put(path, text);
		snprintf(text, sizeof(text), "Notes (%s).\n", tag);
		snprintf(path, sizeof(path), "%s/%s/references/notes.md", src,
		         names[i]);
		put(path, text);
	}
}

static int install(const char *src, const char *agent, const char *dir,
                   unsigned int flags)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_install_target tg = { agent, dir };
	skit_error err = { 0 };
	int rc;

	o.flags = flags;
	o.targets = &tg;
	o.target_count = dir ? 1 : 0;
	rc = skit_install(at("root"), src, &o, NULL, &err);
	if (rc < 0 && getenv("SKIT_TEST_VERBOSE"))
		fprintf(stderr, "install: %s\n", err.message);
	return rc;
}

/*
 * The fixture: v1 of both skills installed, linked into a1 (Claude-like)
 * and copied into a2; src2 holds v2. The change under test installs v2
 * with a new link in a3: every skill replaced, each copy in a2 replaced,
 * each link in a3 made.
 */
static void baseline(void)
{
	rm_rf(at("root"));
	rm_rf(at("a1"));
	rm_rf(at("a2"));
	rm_rf(at("a3"));
	ASSERT_OK(install(at("src1"), "claude-code", at("a1"), 0));
	ASSERT_OK(install(at("src1"), "cursor", at("a2"), SKIT_INSTALL_COPY));
}

static int change(void)
{
	return install(at("src2"), "gemini-cli", at("a3"), SKIT_INSTALL_FORCE);
}

/* Whether `path` (a file) holds `text`. */
static bool holds(const char *path, const char *text)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	bool found;

	if (skitx_fs_read_file(path, &b, 1 << 20) < 0) {
		skitx_buf_release(&b);
		return false;
	}
	found = strstr(skitx_buf_cstr(&b), text) != NULL;
	skitx_buf_release(&b);
	return found;
}

/* No entry of the agent folder `dir` is one skit left aside. */
static bool nothing_aside(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool clean = true;

	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, ".skit-", 6))
			clean = false;
	if (d)
		closedir(d);
	return clean;
}

/* The state of everything: 1 all old, 2 all new, 0 mixed. */
static int state(void)
{
	static const char *const names[] = { "x-skill", "y-skill" };
	skit_lock *lock = NULL;
	int seen = 0;

	for (size_t i = 0; i < 2; i++) {
		char p[4096];
		struct stat st;
		int s;
		bool linked3;

		snprintf(p, sizeof(p), "%s/%s/SKILL.md", at("root"), names[i]);
		s = holds(p, "(v1)") ? 1 : holds(p, "(v2)") ? 2 : 0;
		snprintf(p, sizeof(p), "%s/%s/SKILL.md", at("a2"), names[i]);
		if (!s || !holds(p, s == 1 ? "(v1)" : "(v2)"))
			return 0; /* the copy is of the other version */
		snprintf(p, sizeof(p), "%s/%s/SKILL.md", at("a1"), names[i]);
		if (!holds(p, s == 1 ? "(v1)" : "(v2)"))
			return 0; /* the link leads nowhere */
		snprintf(p, sizeof(p), "%s/%s", at("a3"), names[i]);
		linked3 = lstat(p, &st) == 0;
		if (linked3 != (s == 2))
			return 0;
		if (seen && seen != s)
			return 0;
		seen = s;
	}
	if (!nothing_aside(at("a1")) || !nothing_aside(at("a2")) ||
	    !nothing_aside(at("a3")))
		return 0;
	ASSERT_OK(skit_lock_read(&lock, at("root"), NULL));
	ASSERT_EQ(skit_lock_count(lock), 2);
	for (size_t i = 0; i < 2; i++)
		if (skit_lock_link_count(lock, i) != (seen == 2 ? 3u : 2u))
			seen = 0; /* the lock disagrees with the folders */
	skit_lock_free(lock);
	return seen;
}

/* The copies in a2 are there (old or new) even before recovery. */
static bool copies_present(void)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s/x-skill/SKILL.md", at("a2"));
	if (!holds(p, "Body"))
		return false;
	snprintf(p, sizeof(p), "%s/y-skill/SKILL.md", at("a2"));
	return holds(p, "Body");
}

/* The next command that takes the lock recovers. */
static void recover(void)
{
	skit_verify_result *r = NULL;

	ASSERT_OK(skit_verify(&r, at("root"), NULL, NULL));
	skit_verify_free(r);
}

static int in_child(long crash_at, long fail_at, int what)
{
	pid_t pid;
	int status;

	fflush(NULL);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		const char *name = "x-skill";

		skit__pack_crash_at = crash_at;
		skit__pack_fail_at = fail_at;
		if (what == 0)
			_exit(change() ? 3 : 0);
		_exit(skit_uninstall(at("root"), name, NULL) ? 3 : 0);
	}
	ASSERT_EQ(waitpid(pid, &status, 0), pid);
	return status;
}

static bool killed(int status)
{
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
}

static void setup(void)
{
	source(at("src1"), "v1");
	source(at("src2"), "v2");
}

static void test_pack_links__plain(void)
{
	char p[4096], text[4096];
	ssize_t n;

	setup();
	baseline();
	ASSERT_EQ(state(), 1);
	snprintf(p, sizeof(p), "%s/x-skill", at("a1"));
	n = readlink(p, text, sizeof(text) - 1);
	ASSERT(n > 0);
	text[n] = '\0';
	ASSERT_STR(text, "../root/x-skill"); /* relative */
	ASSERT_OK(change());
	ASSERT_EQ(state(), 2);
	/* skit's root as a target: the agent reads it, nothing to link */
	ASSERT_OK(install(at("src2"), "codex", at("root"), 0));
	ASSERT_EQ(state(), 2);
}

static void test_pack_links__kill_install(void)
{
	int kills = 0;
	bool ended = false;

	setup();
	for (long k = 1; k < 400 && !ended; k++) {
		int status, s;

		baseline();
		status = in_child(k, 0, 0);
		if (!killed(status)) {
			ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			ASSERT_EQ(state(), 2);
			ended = true;
			break;
		}
		kills++;
		if (!copies_present())
			HARNESS_FAIL("crash point %ld: a copy is missing", k);
		recover();
		s = state();
		if (!s)
			HARNESS_FAIL("crash point %ld: mixed after recovery",
			             k);
	}
	ASSERT(ended);
	ASSERT(kills > 10); /* the links' own points were hit too */
}

static void test_pack_links__fail_install(void)
{
	bool ended = false;

	setup();
	for (long k = 1; k < 400 && !ended; k++) {
		int status;

		baseline();
		status = in_child(0, k, 0);
		ASSERT(WIFEXITED(status));
		if (WEXITSTATUS(status) == 0) {
			ASSERT_EQ(state(), 2);
			ended = true;
			break;
		}
		/* refused: rolled back at once, nothing left to recover */
		if (state() != 1)
			HARNESS_FAIL("write %ld failed: not all old", k);
	}
	ASSERT(ended);
}

static void test_pack_links__kill_uninstall(void)
{
	bool ended = false;

	setup();
	for (long k = 1; k < 200 && !ended; k++) {
		char p[4096];
		struct stat st;
		int status;
		bool in_root, l1, c2;

		baseline();
		status = in_child(k, 0, 1);
		if (!killed(status)) {
			ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
			ended = true;
		} else {
			recover();
		}
		snprintf(p, sizeof(p), "%s/x-skill", at("root"));
		in_root = lstat(p, &st) == 0;
		snprintf(p, sizeof(p), "%s/x-skill", at("a1"));
		l1 = lstat(p, &st) == 0;
		snprintf(p, sizeof(p), "%s/x-skill", at("a2"));
		c2 = lstat(p, &st) == 0;
		if (in_root != l1 || in_root != c2)
			HARNESS_FAIL("crash point %ld: the skill and its links "
			             "disagree (%d %d %d)",
			             k, in_root, l1, c2);
		if (!nothing_aside(at("a1")) || !nothing_aside(at("a2")))
			HARNESS_FAIL("crash point %ld: an entry left aside", k);
		if (ended)
			ASSERT(!in_root);
	}
	ASSERT(ended);
	/* y-skill and its links were never touched */
	ASSERT(holds(at("a1/y-skill/SKILL.md"), "(v1)"));
	ASSERT(holds(at("a2/y-skill/SKILL.md"), "(v1)"));
}

static void test_pack_links__foreign_refused(void)
{
	skit_lock *lock = NULL;

	setup();
	baseline();
	put(at("a3/y-skill/SKILL.md"), "mine\n");
	ASSERT_EQ(change(), SKIT_EEXISTS);
	ASSERT(holds(at("a3/y-skill/SKILL.md"), "mine"));
	ASSERT(holds(at("root/x-skill/SKILL.md"), "(v1)"));
	ASSERT(access(at("a3/x-skill"), F_OK) != 0); /* nothing half done */
	ASSERT_OK(skit_lock_read(&lock, at("root"), NULL));
	ASSERT_EQ(skit_lock_link_count(lock, 0), 2);
	skit_lock_free(lock);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_pack_links__plain)
	TEST(test_pack_links__kill_install)
	TEST(test_pack_links__fail_install)
	TEST(test_pack_links__kill_uninstall)
	TEST(test_pack_links__foreign_refused))
/* clang-format on */
