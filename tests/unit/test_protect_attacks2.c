/* SPDX-License-Identifier: MIT */
/*
 * test_protect_attacks2.c - a second round of hostile programs against
 * the protected paths of a confined run (docs/sandbox.md "Protected
 * paths"), after the fixes of the first (test_protect_attacks.c, whose
 * helpers these are): folders met before a `..`, the 40-link walk,
 * placeholders another run removes, what git itself reads (a `.git` file
 * or link, the hooks and config of the repository it names), the time a
 * plan takes; and ordinary projects, which must run and stay protected.
 *
 * Besides the protected paths, each fingerprint holds what git would
 * read: the repository `.git` names (as git parses a `.git` file), its
 * config and hooks, links followed. The runs wait on files, never on time.
 */
#define _GNU_SOURCE /* O_PATH: before any header */
#include "common.h"

#define PROTECT_ATTACKS_NAME "protect-attacks2"
#include "protect_attacks.h"

/* ---- folders before a `..` ------------------------------------------------
 */

/*
 * `.claude -> a/../sub/claude`, `a` a folder of the project: the kernel
 * resolves `a/..` through whatever `a` is when the path is used, but only
 * the folders above `sub/claude` are pinned. `a` swapped for a link, the
 * skill root is another folder, the program's.
 */
static void test_protect_attacks2__dotdot_folder_swapped(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("a");
	mkdirs("sub/claude/skills/good");
	link_at("a/../sub/claude", ".claude");
	attack(TRY("swap", "mv a a2 && mkdir -p x/y x/sub/claude/skills/evil "
	                   "&& ln -s x/y a"));
}

/* The same through a `.git` file: "gitdir: a/../gd". */
static void test_protect_attacks2__gitdir_dotdot_swapped(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("a");
	mkdirs("gd/hooks");
	put("gd/config", "[core]\n\tbare = false\n");
	put(".git", "gitdir: a/../gd\n");
	attack(TRY("swap", "mv a a2 && mkdir -p x/y x/gd/hooks && "
	                   "cp gd/config x/gd/ && echo evil > "
	                   "x/gd/hooks/pre-commit && ln -s x/y a"));
}

/*
 * Two runs, `.claude -> a/../sub/claude` with nothing of it there: the
 * first makes the placeholders `a` and `sub/claude`; the second, finding
 * `a`, resolves through it and holds only `sub/claude`. The first ends
 * and removes `a`, which nobody holds now, while the second's program
 * runs: it makes `a` a link of its own, and `.claude` names its folder.
 */
static void test_protect_attacks2__dotdot_placeholder_released(void)
{
	uint64_t before[NSNAP];
	unsigned int la, lb;
	struct run a, b;

	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("a/../sub/claude", ".claude");
	snapshot(before);
	start(&a, "touch a-started; " WAIT("a-go"));
	wait_for("a-started");
	start(&b, "touch b-started; " WAIT("b-go") TRY(
	                  "swap", "[ ! -e a ] && mkdir -p x/y "
	                          "x/sub/claude/skills/evil && ln -s x/y a"));
	wait_for("b-started");
	put("a-go", "");
	la = finish(&a);
	put("b-go", "");
	lb = finish(&b);
	ASSERT(la & SKIT_SANDBOX_MOUNTNS);
	ASSERT(lb & SKIT_SANDBOX_MOUNTNS);
	ASSERT_EQ(changed(before), 0);
}

/*
 * A chain of 45 links (`.claude -> l1 -> ... -> l45`): nothing resolves
 * through more than 40, so protect_link() lets it be, and links_push()
 * binds the first 40 it meets. The 41st, `l40`, is the program's: a
 * folder in its place ends the chain after 40 links, which the kernel
 * follows.
 */
static void test_protect_attacks2__link_walk_exhausted(void)
{
	char name[16], next[16];

	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("l1", ".claude");
	for (int i = 1; i <= 45; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		snprintf(next, sizeof(next), "l%d", i + 1);
		link_at(i == 45 ? "sub/claude" : next, name);
	}
	attack(TRY("l40", "rm l40 && mkdir -p l40/skills/evil"));
}

/* ---- what git reads ----------------------------------------------------- */

/*
 * `.git` a link to a `.git` file ("gitdir: gd"): git follows the link and
 * reads the file, and takes PATH relative to the project; gitdir_of()
 * only reads a `.git` that is itself a file, and `gd` is left writable.
 */
static void test_protect_attacks2__git_link_to_gitfile(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("gd/hooks");
	put("gd/config", "[core]\n\tbare = false\n");
	put("gd/HEAD", "ref: refs/heads/main\n");
	mkdirs("meta");
	put("meta/gitfile", "gitdir: gd\n");
	link_at("meta/gitfile", ".git");
	attack(TRY("hook", "echo evil > gd/hooks/pre-commit")
	               TRY("config", "echo '[core]' >> gd/config"));
}

/* The hooks folder a link out of `.git` (`ln -s ../githooks .git/hooks`,
 * to keep hooks under version control): git runs what the link names. */
static void test_protect_attacks2__hooks_dir_link(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git");
	put(".git/config", "[core]\n\tbare = false\n");
	mkdirs("githooks");
	link_at("../githooks", ".git/hooks");
	attack(TRY("hook", "echo evil > githooks/pre-commit"));
}

/* One hook, and the config, links to files of the project: the same
 * as the hard links refused since round 1, by another name. */
static void test_protect_attacks2__hook_and_config_links(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git/hooks");
	mkdirs("tools");
	put("tools/pre-commit", "#!/bin/sh\nexit 0\n");
	put("tools/gitconfig", "[core]\n\tbare = false\n");
	link_at("../../tools/pre-commit", ".git/hooks/pre-commit");
	link_at("../tools/gitconfig", ".git/config");
	attack(TRY("hook", "echo evil >> tools/pre-commit")
	               TRY("config", "printf '[core]\\n\\tfsmonitor = x\\n' >> "
	                             "tools/gitconfig"));
}

/* A `.git` file's repository with its config hard-linked from the
 * project: refused as `.git/config` is (hardlinked() looks only at a
 * folder named `.git`). */
static void test_protect_attacks2__gitdir_config_hardlink(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("gd/hooks");
	put("gd/config", "[core]\n\tbare = false\n");
	ASSERT_OK(link(at("gd/config"), at("notes.txt")));
	put(".git", "gitdir: gd\n");
	attack_refused(TRY("config", "printf '[core]\\n\\tfsmonitor = x\\n' "
	                             ">> notes.txt"),
	               "another hard link");
}

/*
 * "gitdir: \nevil": gitdir_of() cuts the path at the first line break
 * and finds none; git cuts only the trailing ones, and uses the folder
 * "\nevil" of the project, which the program makes.
 */
static void test_protect_attacks2__gitdir_newline(void)
{
	if (!can_protect())
		return;
	fresh();
	put(".git", "gitdir: \nevil\n");
	attack("d=\"$(printf '\\nevil')\"; " TRY(
	        "gitdir", "mkdir -p \"$d/hooks\" \"$d/objects\" \"$d/refs\" && "
	                  "echo 'ref: refs/heads/main' > \"$d/HEAD\" && "
	                  "echo evil > \"$d/hooks/pre-commit\""));
}

/* ---- cost ---------------------------------------------------------------- */

/*
 * A link into a deep folder (`.claude -> d/d/.../d/claude`, 700 deep,
 * as a repository can ship): every folder above the target is pinned,
 * and pin_push() compares each with all before it. A run, planned and
 * mounted, must take well under a second (it took 4 s, and 45 s at 1,500
 * deep: links_push() resolved every prefix of the path afresh).
 */
static void test_protect_attacks2__deep_link_target_cost(void)
{
	static char deep[PATH_MAX];
	struct timespec t0, t1;
	size_t k = 0;
	double secs;

	if (!can_protect())
		return;
	fresh();
	for (int i = 0; i < 700; i++) {
		memcpy(deep + k, "d/", 2);
		k += 2;
	}
	memcpy(deep + k, "claude", 7);
	mkdirs(deep);
	memcpy(deep + k, "claude/skills/good", 19);
	mkdirs(deep);
	deep[k + 6] = '\0';
	link_at(deep, ".claude");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	attack(TRY("plant", "mkdir .claude/skills/evil"));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("a run with a 700-deep link target: %.2f s\n", secs);
	ASSERT(secs < 1.5);
}

/* ---- ordinary projects: they run, and are protected ---------------------- */

/* A worktree: `.git` a file naming a repository outside the project
 * (not writable, so nothing of it to bind). */
static void test_protect_attacks2__ordinary_worktree(void)
{
	char line[2 * PATH_MAX], main_repo[PATH_MAX];

	if (!can_protect())
		return;
	fresh();
	snprintf(main_repo, sizeof(main_repo), "%s", test_dir("main-repo"));
	rm_rf_at(AT_FDCWD, main_repo);
	snprintf(line, sizeof(line), "%s/.git/worktrees/wt/hooks", main_repo);
	ASSERT_OK(skitx_fs_mkdir_p(line, 0755));
	snprintf(line, sizeof(line), "gitdir: %s/.git/worktrees/wt\n",
	         main_repo);
	put(".git", line);
	attack(TRY("write", "echo 'gitdir: gd' > .git") TRY(
	        "rm", "rm -f .git") "echo work > file.txt && echo wrote");
	ASSERT(!access(at("file.txt"), F_OK));
	rm_rf_at(AT_FDCWD, main_repo);
}

/* Submodules: their repositories in `.git/modules`, `sub/.git` a file. */
static void test_protect_attacks2__ordinary_submodules(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git/hooks");
	put(".git/config", "[submodule \"sub\"]\n\turl = x\n");
	mkdirs(".git/modules/sub/hooks");
	put(".git/modules/sub/config", "[core]\n\tworktree = ../../../sub\n");
	mkdirs("sub");
	put("sub/.git", "gitdir: ../.git/modules/sub\n");
	attack(TRY("subhook", "echo evil > .git/modules/sub/hooks/pre-commit") TRY(
	        "subcfg",
	        "echo x >> .git/modules/sub/config") "echo work > sub/file.txt && echo wrote");
	ASSERT(!access(at("sub/file.txt"), F_OK));
}

/*
 * `.claude` with its settings, `.claude/skills -> ../.agents/skills`, a
 * skill of `.agent/skills` a link into `.agents/skills`: the links hold,
 * the skills hold, a file beside them in `.claude` is written.
 */
static void test_protect_attacks2__ordinary_shared_skills(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".agents/skills/s1");
	put(".agents/skills/s1/SKILL.md", "---\nname: s1\n---\n");
	put(".agents/skit.json", "{}\n");
	mkdirs(".claude");
	put(".claude/settings.json", "{}\n");
	link_at("../.agents/skills", ".claude/skills");
	mkdirs(".agent/skills");
	link_at("../../.agents/skills/s1", ".agent/skills/s1");
	attack(TRY("plant", "mkdir .claude/skills/evil")
	               TRY("edit", "echo x >> .agent/skills/s1/SKILL.md") TRY(
	                       "relink", "rm .claude/skills && mkdir "
	                                 ".claude/skills") "echo '{}' > "
	                                                   ".claude/s.json");
	ASSERT(!access(at(".claude/s.json"), F_OK));
}

/* A project reached through a link (`~/work -> /data/work`): the
 * protected paths spelled through it. */
static void test_protect_attacks2__ordinary_linked_project(void)
{
	char real[PATH_MAX];
	const char *plink;

	if (!can_protect())
		return;
	fresh();
	snprintf(real, sizeof(real), "%s", proj);
	mkdirs(".git/hooks");
	put(".git/config", "[core]\n\tbare = false\n");
	mkdirs(".claude/skills/good");
	plink = test_dir("plink");
	rm_rf_at(AT_FDCWD, plink);
	ASSERT_OK(symlink(real, plink));
	set_proj(plink);
	attack(TRY("hook", "echo x > .git/hooks/pre-commit") TRY(
	        "plant",
	        "mkdir -p .claude/skills/evil .agents/skills/evil") "echo work > file.txt");
	ASSERT(!access(at("file.txt"), F_OK));
	unlink(plink);
	set_proj(real);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_protect_attacks2__dotdot_folder_swapped)
	TEST(test_protect_attacks2__gitdir_dotdot_swapped)
	TEST(test_protect_attacks2__dotdot_placeholder_released)
	TEST(test_protect_attacks2__link_walk_exhausted)
	TEST(test_protect_attacks2__git_link_to_gitfile)
	TEST(test_protect_attacks2__hooks_dir_link)
	TEST(test_protect_attacks2__hook_and_config_links)
	TEST(test_protect_attacks2__gitdir_config_hardlink)
	TEST(test_protect_attacks2__gitdir_newline)
	TEST(test_protect_attacks2__deep_link_target_cost)
	TEST(test_protect_attacks2__ordinary_worktree)
	TEST(test_protect_attacks2__ordinary_submodules)
	TEST(test_protect_attacks2__ordinary_shared_skills)
	TEST(test_protect_attacks2__ordinary_linked_project))
/* clang-format on */
