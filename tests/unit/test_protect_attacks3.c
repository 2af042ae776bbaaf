/* SPDX-License-Identifier: MIT */
/*
 * test_protect_attacks3.c - a third round of hostile programs against
 * the protected paths of a confined run (docs/sandbox.md "Protected
 * paths"), after test_protect_attacks.c and test_protect_attacks2.c
 * (whose helpers these are): where git reads its config and hooks from
 * besides `.git` (`commondir`), links inside `.git`, mounts the owner
 * made beneath a protected path, names that are FIFOs; and ordinary
 * projects, which must run and stay protected.
 *
 * Each fingerprint holds, besides the protected paths, what git would
 * read: the repository `.git` names, and the common folder its
 * `commondir` names (setup.c, get_common_dir_noenv()), with their config
 * and hooks, links followed. A program's "-BROKE" fails the test too.
 */
#define _GNU_SOURCE /* O_PATH: before any header */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "skit/sandbox.h"
#include "lib/sandbox/sandbox_int.h"
#include "util/fs.h"

#define NPROT 6
#define NSNAP (NPROT + 1) /* and the repository git would use */

/* the protected paths of a project (agent/protect.c) */
static const char *const prot_rel[NPROT] = {
	".git",           ".agents/skills",    ".agent/skills",
	".claude/skills", ".agents/skit.json", ".agents/runs",
};

static char proj[PATH_MAX];
static char prot_abs[NPROT][2 * PATH_MAX];
static const char *prot_list[NPROT + 1];
static const char *write_list[2];

static char *env_default[] = { "PATH=/usr/local/bin:/usr/bin:/bin",
	                       "LANG=C.UTF-8", NULL };

/* rm -rf `name` beneath `dfd`, without following links. */
static void rm_rf_at(int dfd, const char *name)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dfd, name, 0);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rm_rf_at(dirfd(d), de->d_name);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static const char *at(const char *rel)
{
	static char buf[4][2 * PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", proj, rel);
	return buf[i];
}

static bool can_protect(void)
{
	if (skit_sandbox_available() & SKIT_SANDBOX_MOUNTNS)
		return true;
	printf("note: no mount namespace here; attacks not run\n");
	return false;
}

static void set_proj(const char *path)
{
	snprintf(proj, sizeof(proj), "%s", path);
	for (size_t i = 0; i < NPROT; i++) {
		snprintf(prot_abs[i], sizeof(prot_abs[i]), "%s/%s", proj,
		         prot_rel[i]);
		prot_list[i] = prot_abs[i];
	}
	prot_list[NPROT] = NULL;
	write_list[0] = proj;
	write_list[1] = NULL;
}

/* SKIT_TEST_DIR/`name` */
static const char *test_dir(const char *name)
{
	static char path[PATH_MAX];
	const char *t = getenv("SKIT_TEST_DIR");

	snprintf(path, sizeof(path), "%s/%s",
	         t ? t : "/tmp/skit-test-protect-attacks3", name);
	return path;
}

/* A fresh, empty project: SKIT_TEST_DIR/proj. */
static void fresh(void)
{
	const char *path = test_dir("proj");

	rm_rf_at(AT_FDCWD, path);
	ASSERT_OK(skitx_fs_mkdir_p(path, 0755));
	set_proj(path);
}

static void mkdirs(const char *rel)
{
	ASSERT_OK(skitx_fs_mkdir_p(at(rel), 0755));
}

static void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static void link_at(const char *target, const char *rel)
{
	ASSERT_OK(symlink(target, at(rel)));
}

/* ---- fingerprints ------------------------------------------------------ */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 1099511628211ULL;
	}
	return h;
}

/* What a reader finds at `name` beneath `dfd` (followed when `follow`):
 * type, identity, size, mtime, a link's body, a file's bytes, a folder's
 * entries, recursively (entries not followed). */
static uint64_t fp_at(int dfd, const char *name, bool follow, int depth)
{
	uint64_t h = 1469598103934665603ULL, sum = 0;
	int nf = follow ? 0 : O_NOFOLLOW, fd;
	struct dirent *de;
	struct stat st;
	char buf[4096];
	ssize_t n;
	DIR *d;

	if (fstatat(dfd, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
		return mix(h, "missing", 7);
	h = mix(h, &st.st_mode, sizeof(st.st_mode));
	h = mix(h, &st.st_ino, sizeof(st.st_ino));
	h = mix(h, &st.st_nlink, sizeof(st.st_nlink));
	h = mix(h, &st.st_size, sizeof(st.st_size));
	h = mix(h, &st.st_mtim, sizeof(st.st_mtim));
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(dfd, name, buf, sizeof(buf));
		return n > 0 ? mix(h, buf, (size_t)n) : h;
	}
	if (S_ISREG(st.st_mode)) {
		fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | nf);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			h = mix(h, buf, (size_t)n);
		if (fd >= 0)
			close(fd);
		return h;
	}
	if (!S_ISDIR(st.st_mode) || depth > 16)
		return h;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | nf);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			sum += mix(
			        fp_at(dirfd(d), de->d_name, false, depth + 1),
			        de->d_name, strlen(de->d_name));
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	return mix(h, &sum, sizeof(sum));
}

/*
 * What git reads (setup.c, read_gitfile_gently()): `.git` followed; a
 * file there is "gitdir: PATH" with only the trailing CR and LF cut,
 * PATH relative to the project. The repository, its config, its hooks
 * folder and each hook, all followed.
 */
static uint64_t git_fp(void)
{
	char gd[3 * PATH_MAX], line[PATH_MAX + 16], sub[4 * PATH_MAX];
	uint64_t h = 0;
	struct dirent *de;
	struct stat st;
	ssize_t n = 0;
	DIR *d;
	int fd;

	snprintf(gd, sizeof(gd), "%s", at(".git"));
	if (!stat(gd, &st) && S_ISREG(st.st_mode) &&
	    (fd = open(gd, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		line[n > 0 ? n : 0] = '\0';
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 8 && !strncmp(line, "gitdir: ", 8))
			snprintf(gd, sizeof(gd), "%s%s%s",
			         line[8] == '/' ? "" : proj,
			         line[8] == '/' ? "" : "/", line + 8);
	}
	h = mix(h, gd, strlen(gd));
	h = mix(h, (uint64_t[]){ fp_at(AT_FDCWD, gd, true, 0) }, 8);
	/* its common folder: "commondir" read as the `.git` file is, PATH
	 * relative to the repository (git's config and hooks are there) */
	snprintf(sub, sizeof(sub), "%s/commondir", gd);
	if ((fd = open(sub, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		line[n > 0 ? n : 0] = '\0';
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 0) {
			if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s",
			                     line[0] == '/' ? "" : gd,
			                     line[0] == '/' ? "" : "/",
			                     line) < sizeof(sub) &&
			    strlen(sub) < sizeof(gd))
				memcpy(gd, sub, strlen(sub) + 1);
			h = mix(h, gd, strlen(gd));
		}
	}
	snprintf(sub, sizeof(sub), "%s/config", gd);
	h = mix(h, (uint64_t[]){ fp_at(AT_FDCWD, sub, true, 0) }, 8);
	snprintf(sub, sizeof(sub), "%s/hooks", gd);
	h = mix(h, (uint64_t[]){ fp_at(AT_FDCWD, sub, true, 0) }, 8);
	d = opendir(sub);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			h += fp_at(dirfd(d), de->d_name, true, 0);
	if (d)
		closedir(d);
	return h;
}

static void snapshot(uint64_t out[NSNAP])
{
	int base = open(proj, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ASSERT(base >= 0);
	for (size_t i = 0; i < NPROT; i++)
		out[i] = fp_at(base, prot_rel[i], true, 0);
	close(base);
	out[NPROT] = git_fp();
}

/* How many protected paths differ from `before` (each one printed). */
static int changed(const uint64_t before[NSNAP])
{
	uint64_t now[NSNAP];
	int k = 0;

	snapshot(now);
	for (size_t i = 0; i < NSNAP; i++)
		if (now[i] != before[i]) {
			printf("CHANGED: %s\n",
			       i < NPROT ? prot_rel[i] : "git's repository");
			k++;
		}
	return k;
}

/* ---- runs -------------------------------------------------------------- */

static bool broke; /* a program said "-BROKE" */

struct run {
	const char *script;
	struct skit__run_result res;
	int rc;
	char msg[PATH_MAX + 256];
	pthread_t thread;
};

static void *run_main(void *arg)
{
	struct run *r = arg;
	char *argv[] = { "/bin/sh", "-c", (char *)r->script, NULL };
	struct skit__run_opts o;
	skit_error err = { 0 };

	memset(&o, 0, sizeof(o));
	o.path = argv[0];
	o.argv = argv;
	o.envp = env_default;
	o.cwd = proj;
	o.timeout_ms = 30000;
	o.grace_ms = 300;
	o.output_cap = 64 * 1024;
	o.confine = true;
	o.write_paths = write_list;
	o.protect_paths = prot_list;
	r->rc = skit__run(&r->res, &o, &err);
	if (r->rc)
		snprintf(r->msg, sizeof(r->msg), "%s", err.message);
	return NULL;
}

static void start(struct run *r, const char *script)
{
	memset(r, 0, sizeof(*r));
	r->script = script;
	ASSERT_OK(pthread_create(&r->thread, NULL, run_main, r));
}

/* Join the run; print what it said; its layers (0 when it failed). */
static unsigned int finish(struct run *r)
{
	unsigned int layers;

	ASSERT_OK(pthread_join(r->thread, NULL));
	printf("%s", skitx_buf_cstr(&r->res.out));
	broke |= strstr(skitx_buf_cstr(&r->res.out), "-BROKE") != NULL;
	if (r->rc)
		printf("run: rc %d: %s, stderr: %s\n", r->rc, r->msg,
		       skitx_buf_cstr(&r->res.err));
	layers = r->rc ? 0 : r->res.layers;
	skit__run_result_release(&r->res);
	return layers;
}

/* The program `script`, in the project as it is now: it runs (not
 * refused), keeps the mount namespace and changes nothing protected. */
static void attack(const char *script)
{
	uint64_t before[NSNAP];
	unsigned int layers;
	struct run r;

	snapshot(before);
	broke = false;
	start(&r, script);
	layers = finish(&r);
	ASSERT_EQ(r.rc, 0);
	ASSERT(layers & SKIT_SANDBOX_MOUNTNS);
	ASSERT_EQ(changed(before), 0);
	ASSERT(!broke);
}

/* `cmd` (quoted for the shell), then say whether it worked. */
#define TRY(tag, cmd) \
 "if " cmd " 2>/dev/null; then echo " tag "-BROKE; else echo " tag "-held; fi; "

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
