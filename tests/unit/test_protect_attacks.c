/* SPDX-License-Identifier: MIT */
/*
 * test_protect_attacks.c - hostile programs, in hostile projects, against
 * the protected paths of a confined run (docs/sandbox.md "Protected
 * paths"): `.git`, the skill roots, `.agents/skit.json` and the audit
 * trail must come out of a run exactly as they went in, whatever links,
 * files and folders the project held and whatever the program tried.
 *
 * Each test builds a project, takes a fingerprint of what every protected
 * path resolves to (the kernel's way, links followed: what the next git
 * or skit would read), runs a hostile /bin/sh script confined with the
 * project writable, and compares. The runs wait on files, never on time.
 */
#define _GNU_SOURCE /* O_PATH, unshare(): before any header */
#include "common.h"

#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#define PROTECT_ATTACKS_NAME "protect-attacks"
#include "protect_attacks.h"

/* ---- links ------------------------------------------------------------- */

/*
 * A repository ships `.agents` as a link to a folder of the project that
 * holds the skill roots. What the link names is bound read-only, but the
 * link itself is an entry of the (writable) project: removed, and a real
 * `.agents` made in its place, it hands the program the skill roots, the
 * settings and the audit trail of every later run.
 */
static void test_protect_attacks__link_folder_unlinked(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("sub/a/skills/good");
	put("sub/a/skills/good/SKILL.md", "---\nname: good\n---\n");
	link_at("sub/a", ".agents");
	attack(TRY("skills", "mkdir -p .agents/skills/evil") TRY("unlink",
	                                                         "rm .agents")
	               TRY("plant", "mkdir -p .agents/skills/evil && echo x > "
	                            ".agents/skit.json"));
}

/* The same one level down: `.claude/skills -> ../x`, `.claude` a real
 * folder (pinned, but its entries are the program's to remove). */
static void test_protect_attacks__link_leaf_unlinked(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".claude");
	mkdirs("x/good");
	link_at("../x", ".claude/skills");
	attack(TRY("skills", "mkdir x/evil") TRY(
	        "plant", "rm .claude/skills && mkdir -p .claude/skills/evil"));
}

/* `.git` as a link to the repository (a `git --separate-git-dir` layout
 * kept in the project): swapped for a folder with a hook. */
static void test_protect_attacks__git_link_unlinked(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("gitdir/hooks");
	put("gitdir/config", "[core]\n\tbare = false\n");
	link_at("gitdir", ".git");
	attack(TRY("hook", "touch gitdir/hooks/pre-commit")
	               TRY("plant", "rm .git && mkdir -p .git/hooks && "
	                            "echo evil > .git/hooks/pre-commit"));
}

/* A dangling link where a placeholder would go: its target is held, the
 * link itself is not. */
static void test_protect_attacks__dangling_link_unlinked(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("sub/claude", ".claude");
	attack(TRY("target", "mkdir -p sub/claude/skills/evil") TRY(
	        "plant", "rm .claude && mkdir -p .claude/skills/evil"));
}

/* Links out of the project (`/`, a missing path): nothing of theirs is
 * writable, so nothing is bound, and the links are the program's. */
static void test_protect_attacks__link_out_of_project(void)
{
	if (!can_protect())
		return;
	fresh();
	link_at("/", ".agents");
	link_at("/nonexistent-skit-attack", ".agent");
	attack(TRY("agents", "rm .agents && mkdir -p .agents/skills/evil") TRY(
	        "agent", "rm .agent && mkdir -p .agent/skills/evil"));
}

/*
 * `.agents/skit.json` a dangling link (`../cfg.json`): the json rule binds
 * `.agents` read-only (the link stays), but never looks at the link, and
 * its target, in the writable project root, is the program's to make.
 */
static void test_protect_attacks__json_dangling_link(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".agents/skills");
	link_at("../cfg.json", ".agents/skit.json");
	attack(TRY("json", "echo '{\"evil\":1}' > cfg.json"));
}

/*
 * `.agents -> .`: the folder of `.agents/skit.json` is the writable root,
 * which the json rule leaves alone, so `skit.json` at the top of the
 * project is `.agents/skit.json`.
 */
static void test_protect_attacks__json_folder_is_root(void)
{
	if (!can_protect())
		return;
	fresh();
	link_at(".", ".agents");
	attack(TRY("skills", "mkdir -p skills/evil")
	               TRY("runs", "mkdir -p runs/x")
	                       TRY("json", "echo '{\"evil\":1}' > skit.json"));
}

/* A chain of links longer than protect_link() follows (8), shorter than
 * the kernel's 40: the end of the chain is left unprotected. */
static void test_protect_attacks__link_chain_deep(void)
{
	char name[16], next[16];

	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("l1", ".claude");
	for (int i = 1; i <= 10; i++) {
		snprintf(name, sizeof(name), "l%d", i);
		snprintf(next, sizeof(next), "l%d", i + 1);
		link_at(i == 10 ? "sub/claude" : next, name);
	}
	attack_refused(TRY("target", "mkdir -p sub/claude/skills/evil"),
	               "a chain of more than 8 links");
}

/* Loops (`.agents -> .agents`, `.agent <-> .agent2`) cost the run nothing
 * and let nothing through (when the links stay). */
static void test_protect_attacks__link_loop(void)
{
	if (!can_protect())
		return;
	fresh();
	link_at(".agents", ".agents");
	link_at(".agent2", ".agent");
	link_at(".agent", ".agent2");
	mkdirs(".git");
	attack(TRY("agents", "mkdir -p .agents/skills/evil")
	               TRY("agent", "mkdir -p .agent/skills/evil")
	                       TRY("git", "touch .git/config"));
}

/*
 * A link whose body fills PATH_MAX (`./` repeated, then `sub/claude`):
 * the link's folder + body + `/skills` no longer fits protect_link()'s
 * buffer, and it gives up, protecting nothing; the kernel follows it.
 */
static void test_protect_attacks__link_target_too_long(void)
{
	static char target[PATH_MAX];
	size_t k = 0;

	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	while (k + 2 + strlen("sub/claude") < PATH_MAX - 2) {
		memcpy(target + k, "./", 2);
		k += 2;
	}
	memcpy(target + k, "sub/claude", strlen("sub/claude") + 1);
	link_at(target, ".claude");
	attack_refused(TRY("target", "mkdir -p sub/claude/skills/evil"),
	               "the path it names is too long");
}

/*
 * `.claude -> a/../sub/claude`, `a` missing: the first missing folder,
 * `a`, becomes the placeholder, and its mere existence lets the kernel
 * resolve `a/..`; `sub/claude`, never protected, is then `.claude` for as
 * long as any run holds `a` (another skit starting meanwhile reads the
 * program's skills), and whenever the user makes `a`.
 */
static void test_protect_attacks__dotdot_through_placeholder(void)
{
	uint64_t before[NSNAP];
	unsigned int layers;
	struct run r;
	int during;

	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("a/../sub/claude", ".claude");
	snapshot(before);
	start(&r,
	      TRY("target",
	          "mkdir -p sub/claude/skills/evil") "touch started; i=0; while [ ! -e go ] && [ $i -lt 3000 ]; "
	                                             "do sleep 0.01; i=$((i+1)); done");
	wait_for("started");
	/* while the run holds `a`, on the host */
	during = !access(at(".claude/skills/evil"), F_OK);
	put("go", "");
	layers = finish(&r);
	ASSERT(layers & SKIT_SANDBOX_MOUNTNS);
	ASSERT(!during);
	ASSERT_EQ(changed(before), 0);
}

/* Odd bytes in a link's target: a newline. */
static void test_protect_attacks__newline_in_link(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("sub/new\nline", ".claude");
	attack(TRY("target", "mkdir -p 'sub/new\nline/skills/evil'"));
}

/* A FIFO and a socket where placeholders would go (an unpacked archive,
 * an earlier program's bind()): bound over themselves like files. */
static void test_protect_attacks__fifo_and_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (!can_protect())
		return;
	fresh();
	ASSERT_OK(mkfifo(at(".agents"), 0644));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ASSERT(fd >= 0);
	ASSERT(strlen(at(".agent")) < sizeof(sa.sun_path));
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at(".agent"));
	ASSERT_OK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	close(fd);
	attack(TRY("agents", "rm -f .agents && mkdir -p .agents/skills/evil")
	               TRY("agent",
	                   "rm -f .agent && mkdir -p .agent/skills/evil"));
}

/* ---- .git as a file, hard links, moves ---------------------------------- */

/* `.git` a file (a worktree's, a submodule's): it stays that file. */
static void test_protect_attacks__git_file(void)
{
	if (!can_protect())
		return;
	fresh();
	put(".git", "gitdir: /nonexistent-skit-attack/worktrees/x\n");
	attack(TRY("write", "echo 'gitdir: gd' > .git")
	               TRY("unlink", "rm -f .git") TRY("move", "mv .git moved")
	                       TRY("over", "mkdir d && mv -T d .git")
	                               TRY("mode", "chmod 600 .git"));
}

/*
 * A hard link to `.git/config` that the project already holds (an
 * unpacked archive, an earlier full-access run): the bind is read-only
 * per mount, not per file, and the other name lies on the writable
 * mount. Mounts cannot close this; see the report.
 */
static void test_protect_attacks__hardlink_made_before(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git/hooks");
	put(".git/config", "[core]\n\tbare = false\n");
	ASSERT_OK(link(at(".git/config"), at("notes.txt")));
	attack_refused(TRY("config", "printf '[core]\\n\\tfsmonitor = evil\\n' "
	                             ">> notes.txt"),
	               "another hard link");
}

/* Hard links made during the run (to take the file out of the bind)
 * fail across mounts (EXDEV); so do renames in and out. */
static void test_protect_attacks__hardlink_during_run(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs(".git/hooks");
	put(".git/config", "[core]\n\tbare = false\n");
	mkdirs(".agents/skills/good");
	put(".agents/skit.json", "{}\n");
	attack(TRY("ln", "ln .git/config c") TRY(
	        "lnjson",
	        "ln .agents/skit.json j") TRY("lnskill",
	                                      "ln .agents/skills/good j2 || "
	                                      "ln -s x y && mv y .agents/skills/good/z")
	               TRY("mvin", "echo x > h && mv h .git/hooks/pre-commit")
	                       TRY("mvout", "mv .git/config c2") TRY(
	                               "cp",
	                               "cp -al .git g2 && echo x >> g2/config"));
}

/*
 * A `.git` file naming a repository folder inside the project
 * (`git init --separate-git-dir=gitdata`): that folder's hooks and config
 * run code later as a `.git` folder's do, so they are protected too.
 */
static void test_protect_attacks__gitdir_file_inside(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("gitdata/hooks");
	put("gitdata/config", "[core]\n\tbare = false\n");
	put(".git", "gitdir: gitdata\n");
	attack(TRY("hook", "echo x > gitdata/hooks/pre-commit")
	               TRY("config", "echo x >> gitdata/config")
	                       TRY("swap", "mv gitdata g2 && mkdir gitdata"));
	ASSERT(access(at("gitdata/hooks/pre-commit"), F_OK) < 0);
	ASSERT(access(at("g2"), F_OK) < 0);
}

/* A link's target with the skill roots in it: pinned all the way down. */
static void test_protect_attacks__link_target_pinned(void)
{
	if (!can_protect())
		return;
	fresh();
	mkdirs("sub/claude/skills/good");
	link_at("sub/claude", ".claude");
	attack(TRY("mvsub", "mv sub s2") TRY("mvclaude", "mv sub/claude c") TRY(
	        "rm", "rm -rf sub/claude/skills/good")
	               TRY("plant",
	                   "mkdir sub/claude/skills/evil") "mkdir sub/claude/other && echo other-writable");
}

/* ---- the project's own shape ------------------------------------------- */

/*
 * A project whose path is just short of PATH_MAX: `.git` still fits, but
 * `/.agents/skills` pushes the protected paths past it, and protect_at()
 * gives up on them (protecting nothing) while the program reaches them
 * by relative names.
 */
static void test_protect_attacks__long_project_path(void)
{
	char path[PATH_MAX], comp[201];
	size_t len;

	if (!can_protect())
		return;
	fresh();
	memset(comp, 'd', 200);
	comp[200] = '\0';
	snprintf(path, sizeof(path), "%s", proj);
	/* components of 200, then one to land at PATH_MAX - 10 */
	while ((len = strlen(path)) + 1 + 200 < PATH_MAX - 10) {
		path[len] = '/';
		memcpy(path + len + 1, comp, 201);
		ASSERT_OK(mkdir(path, 0755));
	}
	len = strlen(path);
	path[len] = '/';
	memset(path + len + 1, 'e', PATH_MAX - 10 - len - 1);
	path[PATH_MAX - 10] = '\0';
	ASSERT_OK(mkdir(path, 0755));
	set_proj(path);
	attack_refused(TRY("agents", "mkdir -p .agents/skills/evil")
	                       TRY("git", "mkdir -p .git/hooks"),
	               "the path is too long");
}

/* A protected folder that is already a mount point of its own (a tmpfs
 * `.agents`), in a mount namespace of the test's making (root only). */
static void test_protect_attacks__mount_point_already(void)
{
	int status;
	pid_t pid;

	if (!can_protect())
		return;
	if (geteuid() != 0) {
		printf("note: not root; the mount-point case skipped\n");
		return;
	}
	fresh();
	mkdirs(".agents");
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNS) ||
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("tmpfs", at(".agents"), "tmpfs", MS_NOSUID | MS_NODEV,
		          "size=64k"))
			_exit(90);
		if (setjmp(harness_jmp)) {
			fflush(stdout);
			_exit(1);
		}
		mkdirs(".agents/skills/good");
		attack(TRY("plant", "mkdir .agents/skills/evil") TRY(
		        "json", "echo x > .agents/skit.json")
		               TRY("runs", "mkdir .agents/runs") TRY(
		                       "move", "mv .agents/skills .agents/s2"));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/*
 * Two runs at once in a hostile project (a dangling `.claude` link, a
 * file named `.agents`): the first ends while the second still runs; the
 * second's program then tries every way in, and the shared placeholder
 * at the link's target is gone once both end.
 */
static void test_protect_attacks__concurrent_hostile(void)
{
	uint64_t before[NSNAP];
	unsigned int la, lb;
	struct run a, b;

	if (!can_protect())
		return;
	fresh();
	mkdirs("sub");
	link_at("sub/claude", ".claude");
	put(".agents", "not a folder\n");
	snapshot(before);
	start(&a,
	      "touch a-started; " TRY(
	              "a",
	              "mkdir -p sub/claude/skills/x") "i=0; while [ ! -e a-go ] && [ $i -lt 3000 ]; do sleep 0.01; "
	                                              "i=$((i+1)); done");
	wait_for("a-started");
	start(&b, "touch b-started; i=0; while [ ! -e b-go ] && "
	          "[ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; " TRY(
	                  "b", "mkdir -p sub/claude/skills/x")
	                  TRY("bagents", "mv .agents "
	                                 "x && mkdir "
	                                 "-p .agents/"
	                                 "skills/x"));
	wait_for("b-started");
	put("a-go", "");
	la = finish(&a);
	put("b-go", "");
	lb = finish(&b);
	ASSERT(la & SKIT_SANDBOX_MOUNTNS);
	ASSERT(lb & SKIT_SANDBOX_MOUNTNS);
	ASSERT_EQ(changed(before), 0);
	ASSERT(access(at("sub/claude"), F_OK) < 0);
}

/* ---- as nobody (user namespaces) ---------------------------------------- */

/*
 * `body` as nobody, in a project of /tmp that nobody owns (a build tree
 * under a private home would not let it in); root only.
 */
static void as_nobody(void (*body)(void))
{
	char dir[64] = "/tmp/skit-pa-XXXXXX", path[128];
	int status;
	pid_t pid;

	if (geteuid() != 0) {
		printf("note: not root; the nobody case skipped\n");
		return;
	}
	ASSERT(mkdtemp(dir));
	ASSERT_OK(chmod(dir, 0755));
	ASSERT_OK(chown(dir, 65534, 65534));
	snprintf(path, sizeof(path), "%s/proj", dir);
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
		ASSERT_OK(mkdir(path, 0755));
		set_proj(path);
		body();
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	rm_rf_at(AT_FDCWD, dir);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/*
 * The user's `.claude/skills`. A first program takes the search right off
 * `.claude` (pinned, but a pin keeps the folder writable, and Landlock
 * has no say over chmod). In the next run P cannot resolve
 * `.claude/skills` nor make a placeholder there (EACCES), and binds
 * nothing, reasoning that the program may not either; but the program
 * owns `.claude` and gives the right back.
 */
static void chmod_two_runs(void)
{
	uint64_t before[NSNAP];
	unsigned int l1, l2;
	struct run r;

	mkdirs(".claude/skills/good");
	put(".claude/skills/good/SKILL.md", "---\nname: good\n---\n");
	snapshot(before);
	start(&r, "chmod 000 .claude && echo locked");
	l1 = finish(&r);
	start(&r, "chmod 755 .claude && echo opened; " TRY(
	                  "plant", "mkdir .claude/skills/evil"));
	l2 = finish(&r);
	(void)chmod(at(".claude"), 0755);
	ASSERT(l1 & SKIT_SANDBOX_MOUNTNS);
	ASSERT(l2 & SKIT_SANDBOX_MOUNTNS);
	ASSERT_EQ(changed(before), 0);
}

static void test_protect_attacks__chmod_two_runs_unprivileged(void)
{
	if (can_protect())
		as_nobody(chmod_two_runs);
}

/* The link attacks as nobody: a link on a protected path, and one inside
 * a protected path's folder. */
static void links_unprivileged(void)
{
	uint64_t before[NSNAP];
	unsigned int layers;
	struct run r;

	mkdirs("sub/a/skills/good");
	mkdirs(".claude");
	mkdirs("x/good");
	link_at("sub/a", ".agents");
	link_at("../x", ".claude/skills");
	snapshot(before);
	start(&r, TRY("agents", "rm .agents && mkdir -p .agents/skills/evil")
	                  TRY("claude", "rm .claude/skills && mkdir -p "
	                                ".claude/skills/evil"));
	layers = finish(&r);
	ASSERT(layers & SKIT_SANDBOX_MOUNTNS);
	ASSERT_EQ(changed(before), 0);
}

static void test_protect_attacks__links_unprivileged(void)
{
	if (can_protect())
		as_nobody(links_unprivileged);
}

/*
 * A project root the user cannot write (mode 0555): no placeholder can be
 * made in it, and none is bound, but the program owns the root too.
 */
static void readonly_root(void)
{
	ASSERT_OK(chmod(proj, 0555));
	attack_refused(
	        "chmod 755 . && echo opened; " TRY("git", "mkdir -p .git/hooks")
	                TRY("agents", "mkdir -p .agents/skills/evil"),
	        "may not make a placeholder");
	(void)chmod(proj, 0755);
}

static void test_protect_attacks__readonly_root_unprivileged(void)
{
	if (can_protect())
		as_nobody(readonly_root);
}

/*
 * Not a false alarm: a project folder of another user's that skit may not
 * write (root's, mode 0555) gets no placeholder, and no program of ours
 * could chmod it either: the run goes ahead.
 */
static void test_protect_attacks__others_readonly_root_runs(void)
{
	char dir[64] = "/tmp/skit-pa-XXXXXX", path[128];
	int status;
	pid_t pid;

	if (!can_protect() || geteuid() != 0)
		return;
	ASSERT(mkdtemp(dir));
	ASSERT_OK(chmod(dir, 0755));
	snprintf(path, sizeof(path), "%s/proj", dir);
	ASSERT_OK(mkdir(path, 0555));
	fflush(stdout);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		struct run r;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(90);
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (setjmp(harness_jmp)) {
			fflush(stdout);
			_exit(1);
		}
		if (!(skit_sandbox_available() & SKIT_SANDBOX_MOUNTNS))
			_exit(0);
		set_proj(path);
		start(&r, "echo RAN");
		ASSERT_OK(pthread_join(r.thread, NULL));
		if (r.rc)
			printf("run: rc %d: %s\n", r.rc, r.msg);
		ASSERT_OK(r.rc);
		ASSERT_CONTAINS(skitx_buf_cstr(&r.res.out), "RAN");
		skit__run_result_release(&r.res);
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	rm_rf_at(AT_FDCWD, dir);
	ASSERT(WIFEXITED(status));
	ASSERT_EQ(WEXITSTATUS(status), 0);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_protect_attacks__link_folder_unlinked)
	TEST(test_protect_attacks__link_leaf_unlinked)
	TEST(test_protect_attacks__git_link_unlinked)
	TEST(test_protect_attacks__dangling_link_unlinked)
	TEST(test_protect_attacks__link_out_of_project)
	TEST(test_protect_attacks__json_dangling_link)
	TEST(test_protect_attacks__json_folder_is_root)
	TEST(test_protect_attacks__link_chain_deep)
	TEST(test_protect_attacks__link_loop)
	TEST(test_protect_attacks__link_target_too_long)
	TEST(test_protect_attacks__dotdot_through_placeholder)
	TEST(test_protect_attacks__newline_in_link)
	TEST(test_protect_attacks__git_file)
	TEST(test_protect_attacks__hardlink_made_before)
	TEST(test_protect_attacks__hardlink_during_run)
	TEST(test_protect_attacks__link_target_pinned)
	TEST(test_protect_attacks__gitdir_file_inside)
	TEST(test_protect_attacks__long_project_path)
	TEST(test_protect_attacks__mount_point_already)
	TEST(test_protect_attacks__concurrent_hostile)
	TEST(test_protect_attacks__fifo_and_socket)
	TEST(test_protect_attacks__links_unprivileged)
	TEST(test_protect_attacks__chmod_two_runs_unprivileged)
	TEST(test_protect_attacks__readonly_root_unprivileged)
	TEST(test_protect_attacks__others_readonly_root_runs))
/* clang-format on */
