/* SPDX-License-Identifier: MIT */
/*
 * test_protect_attacks3.c - a third round of hostile programs against
 * the protected paths of a confined run (docs/sandbox.md "Protected
 * paths"), after test_protect_attacks.c and test_protect_attacks2.c
 * (helpers shared in protect_attacks.h): where git reads its config and hooks
 * from besides `.git` (`commondir`), links inside `.git`, mounts the owner made
 * beneath a protected path, names that are FIFOs; and ordinary projects, which
 * must run and stay protected.
 *
 * Each fingerprint holds, besides the protected paths, what git would
 * read: the repository `.git` names, and the common folder its
 * `commondir` names (setup.c, get_common_dir_noenv()), with their config
 * and hooks, links followed. A program's "-BROKE" fails the test too.
 */
#define _GNU_SOURCE /* O_PATH: before any header */
#include "common.h"

#define PROTECT_ATTACKS_NAME "protect-attacks3"
#include "protect_attacks.h"

/* A repository's common folder `rel` (objects, refs, config, hooks), as
 * `git worktree add` leaves the main one. */
static void common_repo(const char *rel)
{
	char sub[PATH_MAX];

	snprintf(sub, sizeof(sub), "%s/hooks", rel);
	mkdirs(sub);
	snprintf(sub, sizeof(sub), "%s/objects", rel);
	mkdirs(sub);
	snprintf(sub, sizeof(sub), "%s/refs/heads", rel);
	mkdirs(sub);
	snprintf(sub, sizeof(sub), "%s/config", rel);
	put(sub, "[core]\n\tbare = false\n");
}

#define COMMON_ATTACK                                                    \
 TRY("config", "printf '[core]\\n\\tfsmonitor = x\\n' >> common/config") \
 TRY("hook", "echo evil > common/hooks/pre-commit")

/* ---- where git reads config and hooks: commondir ------------------------ */

/*
 * A `.git` folder with a `commondir` file ("../common"): git reads its
 * config and runs its hooks from the folder named there (a worktree's
 * layout, which git honours in any repository), a folder of the project
 * that only `.git` itself is bound over. Checked with git 2.x: `git
 * config user.name` answers from common/config.
 */
static void test_protect_attacks3__gitdir_commondir(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git");
	put(".git/HEAD", "ref: refs/heads/main\n");
	put(".git/commondir", "../common\n");
	common_repo("common");
	attack(COMMON_ATTACK);
}

/* The same through a `.git` file: "gitdir: gd", gd/commondir "../common"
 * (a worktree whose main repository the project holds). */
static void test_protect_attacks3__gitfile_commondir(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("gd");
	put("gd/HEAD", "ref: refs/heads/main\n");
	put("gd/commondir", "../common\n");
	put(".git", "gitdir: gd\n");
	common_repo("common");
	attack(COMMON_ATTACK);
}

/*
 * A link inside `.git` other than config and hooks (`.git/refs ->
 * ../myrefs`): git follows it to read the branches, so the program picks
 * the commit git checks out, diffs and pushes.
 */
static void test_protect_attacks3__refs_link(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git/hooks");
	mkdirs(".git/objects");
	put(".git/HEAD", "ref: refs/heads/main\n");
	put(".git/config", "[core]\n\tbare = false\n");
	mkdirs("myrefs/heads");
	put("myrefs/heads/main", "1111111111111111111111111111111111111111\n");
	link_at("../myrefs", ".git/refs");
	attack(TRY("ref", "echo 2222222222222222222222222222222222222222 > "
	                  "myrefs/heads/main"));
}

/* ---- mounts ------------------------------------------------------------- */

/* This test's own mount namespace (root only): nothing it mounts is seen
 * outside this process. */
static bool private_mounts(void)
{
	if (geteuid() != 0 || unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		printf("note: no mount namespace of our own; skipped\n");
		return false;
	}
	return true;
}

/*
 * A skill the owner mounted beneath a protected path (a shared skills
 * folder bound into `.agents/skills/shared`, here a tmpfs): the read-only
 * remount of `.agents/skills` applies to its own mount, not to the ones
 * beneath it that MS_REC brought along.
 */
static void test_protect_attacks3__submount_beneath(void)
{
	if (!can_protect() || !private_mounts())
		return;
	fresh();
	mkdirs(".agents/skills/shared");
	ASSERT_OK(mount("tmpfs", at(".agents/skills/shared"), "tmpfs", 0,
	                "size=64k,mode=0755"));
	put(".agents/skills/shared/SKILL.md", "---\nname: shared\n---\n");
	attack(TRY("skill", "echo evil >> .agents/skills/shared/SKILL.md"));
	ASSERT_OK(umount2(at(".agents/skills/shared"), MNT_DETACH));
}

/* ---- names that are not what they seem ---------------------------------- */

/*
 * FIFOs at the names P opens or reads (`.claude/skills`, `.agent`,
 * `.git/hooks`, a `.git` file's repository): nothing may wait on a
 * writer, and the run is planned, mounted and protected.
 */
static void test_protect_attacks3__fifo_names(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".claude");
	ASSERT_OK(mkfifo(at(".claude/skills"), 0644));
	ASSERT_OK(mkfifo(at(".agent"), 0644));
	mkdirs("gd");
	ASSERT_OK(mkfifo(at("gd/hooks"), 0644));
	ASSERT_OK(mkfifo(at("gd/commondir"), 0644));
	put(".git", "gitdir: gd\n");
	attack(TRY("fifo", "rm .claude/skills && mkdir .claude/skills")
	               TRY("agent", "rm .agent && mkdir -p .agent/skills"));
}

/* ---- ordinary projects -------------------------------------------------- */

/*
 * A worktree whose main repository lies outside the project: `.git` a
 * file naming `main/.git/worktrees/wt`, whose commondir is "../..". It
 * must run (the common folder is not writable, nothing of it to bind).
 */
static void test_protect_attacks3__ordinary_worktree_commondir(void)
{
	char line[2 * PATH_MAX], main_repo[PATH_MAX];
	FILE *f;

	if (!can_protect())
		return;
	fresh();
	snprintf(main_repo, sizeof(main_repo), "%s", test_dir("main-repo"));
	rm_rf_at(AT_FDCWD, main_repo);
	snprintf(line, sizeof(line), "%s/.git/worktrees/wt", main_repo);
	ASSERT_OK(skitx_fs_mkdir_p(line, 0755));
	snprintf(line, sizeof(line), "%s/.git/hooks", main_repo);
	ASSERT_OK(skitx_fs_mkdir_p(line, 0755));
	snprintf(line, sizeof(line), "%s/.git/worktrees/wt/commondir",
	         main_repo);
	f = fopen(line, "w");
	ASSERT(f);
	fputs("../..\n", f);
	ASSERT_OK(fclose(f));
	snprintf(line, sizeof(line), "gitdir: %s/.git/worktrees/wt\n",
	         main_repo);
	put(".git", line);
	attack("echo work > file.txt && echo wrote");
	ASSERT(!access(at("file.txt"), F_OK));
	rm_rf_at(AT_FDCWD, main_repo);
}

/*
 * A main checkout holding its own worktree (`git worktree add wt`):
 * `.git/worktrees/wt/commondir` is "../..", `wt/.git` a file. The
 * worktree's files are the project's, written as any.
 */
static void test_protect_attacks3__ordinary_inner_worktree(void)
{
	if (!can_protect())
		return;
	fresh();
	common_repo(".git");
	put(".git/HEAD", "ref: refs/heads/main\n");
	mkdirs(".git/worktrees/wt");
	put(".git/worktrees/wt/HEAD", "ref: refs/heads/wt\n");
	put(".git/worktrees/wt/commondir", "../..\n");
	mkdirs("wt");
	put("wt/.git", "gitdir: ../.git/worktrees/wt\n");
	attack(TRY("hook", "echo evil > .git/hooks/pre-commit") TRY(
	        "wtcommon",
	        "echo x > .git/worktrees/wt/commondir") "echo work > wt/file.txt");
	ASSERT(!access(at("wt/file.txt"), F_OK));
}

/* clang-format off */
/*
 * The binds fail in the namespace after the plan (forced, as a kernel or
 * a project could make them): with protected paths planned, the program
 * is not run, rather than run with them open; the placeholders go.
 */
static void test_protect_attacks3__mount_failure_closed(void)
{
	struct run r;

	if (!can_protect())
		return;
	fresh();
	skit__sandbox_test_mount_fail = true;
	start(&r, "mkdir -p .git/hooks && echo PLANTED");
	ASSERT_OK(pthread_join(r.thread, NULL));
	skit__sandbox_test_mount_fail = false;
	ASSERT_OK(r.rc);
	ASSERT_EQ(r.res.exit_code, 126);
	ASSERT_CONTAINS(skitx_buf_cstr(&r.res.err),
	                "the protected paths could not be set up");
	ASSERT(!strstr(skitx_buf_cstr(&r.res.out), "PLANTED"));
	skit__run_result_release(&r.res);
	ASSERT(access(at(".git"), F_OK) < 0);
}

TEST_MAIN(
	TEST(test_protect_attacks3__gitdir_commondir)
	TEST(test_protect_attacks3__gitfile_commondir)
	TEST(test_protect_attacks3__refs_link)
	TEST(test_protect_attacks3__fifo_names)
	TEST(test_protect_attacks3__ordinary_worktree_commondir)
	TEST(test_protect_attacks3__ordinary_inner_worktree)
	TEST(test_protect_attacks3__submount_beneath)
	TEST(test_protect_attacks3__mount_failure_closed))
/* clang-format on */
