/* SPDX-License-Identifier: MIT */
/*
 * test_planted.c - what a task's programs planted in the project: nested
 * `.git` (folder or file), `.agents`, `.agent`, `.claude` created, moved
 * into place or changed since the task started are found; older ones,
 * the project's own top-level ones, what lies inside `.git` and what a
 * link leads to are not.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "lib/agent/planted.h"
#include "util/alloc.h"
#include "util/fs.h"

static char base[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", base, rel);
	return b;
}

static void mk(const char *rel)
{
	ASSERT_OK(skitx_fs_mkdir_p(at(rel), 0755));
}

static void put(const char *rel, const char *text)
{
	int fd = open(at(rel), O_WRONLY | O_CREAT | O_TRUNC, 0644);

	ASSERT(fd >= 0);
	ASSERT_OK(skitx_fs_write_all(fd, text, strlen(text)));
	close(fd);
}

static bool has(const struct skitx_vec *v, const char *rel)
{
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->items[i], rel))
			return true;
	return false;
}

static void drop(struct skitx_vec *v)
{
	for (size_t i = 0; i < v->len; i++)
		skitx_free(v->items[i]);
	skitx_vec_release(v);
}

static void test_planted__finds_what_a_task_left(void)
{
	const char *top = getenv("SKIT_TEST_DIR");
	struct skitx_vec found = SKITX_VEC_INIT;
	struct timespec since, pause = { 0, 30 * 1000 * 1000 };
	bool partial = true;
	char cmd[PATH_MAX + 16];

	snprintf(base, sizeof(base), "%s/proj",
	         top ? top : "/tmp/skit-test-planted");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	ASSERT_EQ(system(cmd), 0);
	/* Before the task: the project's own markers, a vendored repo, a
	 * submodule, a folder later moved into place. */
	mk(".git/hooks");
	mk(".agents/skills");
	mk("vendor/lib/.git");
	mk("mod");
	put("mod/.git", "gitdir: ../.git/modules/mod\n");
	mk("later/hooks");
	nanosleep(&pause, NULL);
	ASSERT_OK(clock_gettime(CLOCK_REALTIME_COARSE, &since));
	nanosleep(&pause, NULL);
	/* The task. */
	mk("docs/.git/hooks");
	put("docs/.git/config", "[core]\n\tfsmonitor = ./x\n");
	mk("src/.agents/skills/helper");
	mk("a/b/c/.claude/skills");
	put("lib.git", "not a marker\n");
	mk("pkg");
	put("pkg/.git", "gitdir: /elsewhere\n");
	/* An older folder moved into place changes its ctime. */
	mk("tools");
	ASSERT_OK(rename(at("later"), at("tools/.agent")));
	mk(".agents/runs/x");  /* top level: skit's own */
	mk(".git/hooks/.git"); /* inside .git: not entered */
	ASSERT_OK(symlink("/", at("root-link")));

	ASSERT_OK(skit__planted_scan(base, &since, &found, 16, &partial));
	ASSERT(!partial);
	ASSERT(has(&found, "docs/.git"));
	ASSERT(has(&found, "src/.agents"));
	ASSERT(has(&found, "a/b/c/.claude"));
	ASSERT(has(&found, "pkg/.git"));
	ASSERT(has(&found, "tools/.agent"));
	ASSERT(!has(&found, "vendor/lib/.git"));
	ASSERT(!has(&found, "mod/.git"));
	ASSERT(!has(&found, ".agents"));
	ASSERT(!has(&found, ".git/hooks/.git"));
	ASSERT_EQ(found.len, 5);
	drop(&found);

	/* The cap on what is reported. */
	ASSERT_OK(skit__planted_scan(base, &since, &found, 2, &partial));
	ASSERT_EQ(found.len, 2);
	drop(&found);

	/* A project that cannot be read is partial, not an error. */
	ASSERT_OK(skit__planted_scan("/nonexistent/skit-planted", &since,
	                             &found, 16, &partial));
	ASSERT(partial);
	ASSERT_EQ(found.len, 0);
	drop(&found);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_planted__finds_what_a_task_left))
/* clang-format on */
