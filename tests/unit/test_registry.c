/* SPDX-License-Identifier: MIT */
/*
 * test_registry.c - roots, precedence and shadowing, the hostile trees of
 * HOSTILE.md part B (each fixture built here, under SKIT_TEST_DIR), the
 * default roots and config files, rescans, and BM25 search.
 *
 * Every hostile case asserts three things: the scan returns (an alarm
 * kills a hang), the expected diagnostic or skipped entry is there, and a
 * good skill beside the bad one is still found.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/registry.h"
#include "lib/core/datadir.h"
#include "lib/registry/registry_int.h"
#include "lib/registry/registry_cache.h"
#include "util/fs.h"

static char base[PATH_MAX / 4];

/*
 * rm -rf through directory fds, so that trees deeper than PATH_MAX (see
 * name_too_long) and mode-000 folders still go away.
 */
static void rm_at(int dfd, const char *name)
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
	fchmodat(dfd, name, 0755, 0);
	for (int pass = 0; pass < 16; pass++) {
		bool any = false;

		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		if (fd < 0)
			break;
		d = fdopendir(fd);
		if (!d) {
			close(fd);
			break;
		}
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") ||
			    !strcmp(de->d_name, ".."))
				continue;
			rm_at(dirfd(d), de->d_name);
			any = true;
		}
		closedir(d);
		if (!any)
			break;
	}
	unlinkat(dfd, name, AT_REMOVEDIR);
}

/* A fresh, empty folder SKIT_TEST_DIR/<name>; its path in `base`. */
static const char *fresh(const char *name)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(base, sizeof(base), "%s/%s",
	         top ? top : "/tmp/skit-test-registry", name);
	/* the index cache goes here, never into the real ~/.cache */
	{
		char cache[PATH_MAX];

		snprintf(cache, sizeof(cache), "%s/xdg-cache",
		         top ? top : "/tmp/skit-test-registry");
		setenv("XDG_CACHE_HOME", cache, 1);
	}
	rm_at(AT_FDCWD, base);
	ASSERT_OK(skitx_fs_mkdir_p(base, 0755));
	return base;
}

/* "base/rel" in a rotating static buffer (a few live at once). */
static const char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	if (snprintf(b, PATH_MAX, "%s/%s", base, rel) >= PATH_MAX)
		HARNESS_FAIL("path too long: %s", rel);
	return b;
}

static void write_file(const char *path, const char *text)
{
	char *dir = strdup(path);
	int fd;

	ASSERT(dir);
	*strrchr(dir, '/') = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	free(dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	ASSERT_EQ(write(fd, text, strlen(text)), (long long)strlen(text));
	close(fd);
}

/* base/<root>/<folder>/SKILL.md naming `name` (NULL: the folder). */
static void skill(const char *root, const char *folder, const char *name,
                  const char *desc)
{
	char path[PATH_MAX], text[2048];

	snprintf(path, sizeof(path), "%s/%s/%s/SKILL.md", base, root, folder);
	snprintf(text, sizeof(text),
	         "---\nname: %s\ndescription: %s\n---\n# %s\n\nBody of %s.\n",
	         name ? name : folder, desc, folder, folder);
	write_file(path, text);
}

static skit_registry *reg_new(void)
{
	skit_registry *reg = NULL;

	ASSERT_OK(skit_registry_new(&reg, NULL));
	return reg;
}

static void add_root(skit_registry *reg, const char *source, const char *rel)
{
	ASSERT_OK(skit_registry_add_root(reg, source, at(rel), NULL));
}

static void scan(skit_registry *reg)
{
	skit_error err = { 0 };

	alarm(60); /* a hang is a failure, not a stuck CI job */
	ASSERT_OK(skit_registry_scan(reg, &err));
	alarm(0);
}

/* The first scan diagnostic with `code` (and a path ending in `tail`). */
static const skit_diag *diag(const skit_registry *reg, const char *code,
                             const char *tail)
{
	size_t n;
	const skit_diag *d = skit_registry_diags(reg, &n);

	for (size_t i = 0; i < n; i++) {
		size_t pl, tl;

		if (strcmp(d[i].code, code))
			continue;
		if (!tail)
			return &d[i];
		pl = d[i].path ? strlen(d[i].path) : 0;
		tl = strlen(tail);
		if (pl >= tl && !strcmp(d[i].path + pl - tl, tail))
			return &d[i];
	}
	return NULL;
}

/* The entry in any state with this name from this source, or NULL. */
static const skit_entry *any(const skit_registry *reg, const char *name,
                             const char *source)
{
	for (size_t i = 0; i < skit_registry_all_count(reg); i++) {
		const skit_entry *e = skit_registry_all_entry(reg, i);

		if (!strcmp(e->name, name) &&
		    (!source || !strcmp(e->source, source)))
			return e;
	}
	return NULL;
}

/* ---- precedence, shadowing, lookup ---------------------------------- */

static void test_registry__precedence_and_shadowing(void)
{
	skit_registry *reg;
	const skit_entry *e;
	const char *src, *path;
	size_t skills;
	bool exists;

	fresh("precedence");
	skill("p", "pdf", NULL, "Project PDF.");
	skill("p", "zeta", NULL, "Project zeta.");
	skill("u", "pdf", NULL, "User PDF.");
	skill("u", "alpha", NULL, "User alpha.");
	skill("b", "alpha", NULL, "Builtin alpha.");
	skill("b", "beta", NULL, "Builtin beta.");
	write_file(at("p/README.md"), "not a skill\n");
	ASSERT_OK(skitx_fs_mkdir_p(at("p/empty"), 0755)); /* no SKILL.md */

	reg = reg_new();
	add_root(reg, "project", "p");
	add_root(reg, "user", "u");
	add_root(reg, "builtin", "b");
	add_root(reg, "missing", "nope");
	scan(reg);

	/* active: by root, then name */
	ASSERT_EQ(skit_registry_count(reg), 4);
	ASSERT_STR(skit_registry_entry(reg, 0)->name, "pdf");
	ASSERT_STR(skit_registry_entry(reg, 1)->name, "zeta");
	ASSERT_STR(skit_registry_entry(reg, 2)->name, "alpha");
	ASSERT_STR(skit_registry_entry(reg, 3)->name, "beta");
	ASSERT_STR(skit_registry_entry(reg, 2)->source, "user");

	/* all: by name, then root */
	ASSERT_EQ(skit_registry_all_count(reg), 6);
	ASSERT_STR(skit_registry_all_entry(reg, 0)->name, "alpha");
	ASSERT_STR(skit_registry_all_entry(reg, 0)->source, "user");
	ASSERT_STR(skit_registry_all_entry(reg, 1)->source, "builtin");
	ASSERT_EQ(skit_registry_all_entry(reg, 1)->state, SKIT_ENTRY_SHADOWED);
	ASSERT_STR(skit_registry_all_entry(reg, 1)->reason, "user");

	e = skit_registry_find(reg, "pdf", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_ACTIVE);
	ASSERT_STR(e->description, "Project PDF.");
	ASSERT_STR(e->dir, at("p/pdf"));
	ASSERT_STR(e->file, at("p/pdf/SKILL.md"));
	ASSERT_EQ(e->root_index, 0);
	e = skit_registry_find(reg, "pdf", "user");
	ASSERT(e && e->state == SKIT_ENTRY_SHADOWED);
	ASSERT_STR(e->reason, "project");
	ASSERT_STR(e->description, "User PDF.");
	ASSERT(!skit_registry_find(reg, "pdf", "builtin"));
	ASSERT(!skit_registry_find(reg, "nothing", NULL));
	ASSERT(!skit_registry_find(reg, "empty", NULL));

	ASSERT_EQ(skit_registry_root_count(reg), 4);
	skit_registry_root(reg, 0, &src, &path, &exists, &skills);
	ASSERT_STR(src, "project");
	ASSERT(exists);
	ASSERT_EQ(skills, 2);
	skit_registry_root(reg, 2, NULL, NULL, &exists, &skills);
	ASSERT_EQ(skills, 1); /* beta; alpha is shadowed */
	skit_registry_root(reg, 3, NULL, &path, &exists, &skills);
	ASSERT(!exists); /* a missing root is silently empty */
	ASSERT_EQ(skills, 0);
	{
		size_t n;
		skit_registry_diags(reg, &n);
		ASSERT_EQ(n, 0);
	}
	skit_registry_free(reg);
}

static void test_registry__entry_fields(void)
{
	skit_registry *reg;
	const skit_entry *e;
	skit_skill *s = NULL;
	const char *body;

	fresh("fields");
	write_file(at("r/tool/SKILL.md"),
	           "---\nname: tool\ndescription: |\n  Two\n  lines.\n"
	           "when_to_use: When asked.\nargument-hint: '[file]'\n"
	           "disable-model-invocation: true\n"
	           "version: 1\ncolour: blue\n---\nThe body.\n");
	reg = reg_new();
	add_root(reg, "user", "r/");
	scan(reg);
	e = skit_registry_find(reg, "tool", NULL);
	ASSERT(e);
	ASSERT_STR(e->description, "Two\nlines.");
	ASSERT_STR(e->when_to_use, "When asked.");
	ASSERT_STR(e->argument_hint, "[file]");
	ASSERT(e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION);
	ASSERT_EQ(e->warnings, 1); /* `colour` (`version` is a known field) */
	ASSERT_STR(e->dir, at("r/tool")); /* the root's slash is dropped */
	ASSERT_OK(skit_registry_load(&s, reg, e, NULL));
	ASSERT_OK(skit_skill_body(s, &body, NULL, NULL));
	ASSERT_STR(body, "The body.");
	skit_skill_free(s);
	skit_registry_free(reg);
}

/* A broken copy is skipped and never hides a working lower one. */
static void test_registry__skipped_do_not_shadow(void)
{
	skit_registry *reg;
	const skit_entry *e;

	fresh("skipped");
	write_file(at("p/pdf/SKILL.md"), "---\nname: pdf\n---\n");
	write_file(at("p/bird-co/SKILL.md"),
	           "---\nname: bird\ndescription: squatter\n---\n");
	skill("u", "pdf", NULL, "User PDF.");
	skill("u", "bird", NULL, "The real bird.");
	reg = reg_new();
	add_root(reg, "project", "p");
	add_root(reg, "user", "u");
	scan(reg);

	e = skit_registry_find(reg, "pdf", NULL);
	ASSERT(e && !strcmp(e->source, "user"));
	e = any(reg, "pdf", "project");
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "description");
	ASSERT_STR(e->description, "");
	/*
	 * identity is the folder: bird-co loads (name and folder differ: a
	 * warning) but as bird-co, so it cannot pose as bird
	 */
	e = any(reg, "bird-co", "project");
	ASSERT(e && e->state == SKIT_ENTRY_ACTIVE);
	ASSERT_EQ(e->warnings, 1);
	e = skit_registry_find(reg, "bird", NULL);
	ASSERT(e && !strcmp(e->source, "user"));
	ASSERT(!skit_registry_find(reg, "pdf", "project"));
	skit_registry_free(reg);
}

/*
 * The loading rules in a scan: entries are known by their folder name when
 * their own differs or breaks the rules, the declared name finds them
 * when no skill is known by it, and the loaded skill agrees
 * (skit_skill_known_name()).
 */
static void test_registry__known_names(void)
{
	skit_registry *reg;
	const skit_entry *e;
	skit_skill *s = NULL;

	fresh("known");
	write_file(at("r/pdf-v2/SKILL.md"),
	           "---\nname: pdf\ndescription: Version two.\n---\n");
	write_file(at("r/title/SKILL.md"),
	           "---\nname: Title Case\ndescription: Spaces.\n---\n");
	write_file(at("r/flow/SKILL.md"),
	           "---\nname: flow\ndescription: Flow.\ntags: [a]\n---\n");
	skill("u", "pdf", NULL, "The user's pdf.");
	reg = reg_new();
	add_root(reg, "project", "r");
	scan(reg);
	e = skit_registry_find(reg, "pdf-v2", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_ACTIVE && e->warnings == 1);
	/* no skill is known as pdf: the one declaring it answers */
	ASSERT(skit_registry_find(reg, "pdf", NULL) == e);
	ASSERT_OK(skit_registry_load(&s, reg, e, NULL));
	ASSERT_STR(skit_skill_known_name(s), "pdf-v2");
	skit_skill_free(s);
	e = skit_registry_find(reg, "title", NULL);
	ASSERT(e && e->flags & SKIT_SKILL_NAME_INVALID);
	ASSERT(skit_registry_find(reg, "Title Case", NULL) == e);
	e = skit_registry_find(reg, "flow", NULL);
	ASSERT(e && e->warnings == 1);
	skit_registry_free(reg);

	/* a skill known as pdf wins over the one declaring it */
	reg = reg_new();
	add_root(reg, "project", "r");
	add_root(reg, "user", "u");
	scan(reg);
	e = skit_registry_find(reg, "pdf", NULL);
	ASSERT(e && !strcmp(e->source, "user"));
	skit_registry_free(reg);
}

/* ---- HOSTILE B ------------------------------------------------------- */

/* B1: x -> .., y -> ., a cycle between two roots, a self-loop. */
static void test_registry__symlink_loops(void)
{
	skit_registry *reg;

	fresh("loops");
	skill("a", "good", NULL, "Still found.");
	skill("b", "other", NULL, "Also found.");
	ASSERT_OK(symlink("..", at("a/up")));
	ASSERT_OK(symlink(".", at("a/self")));
	ASSERT_OK(symlink("../b", at("a/to-b")));
	ASSERT_OK(symlink("../a", at("b/to-a")));
	ASSERT_OK(symlink("knot", at("a/knot"))); /* ELOOP */
	reg = reg_new();
	add_root(reg, "a", "a");
	add_root(reg, "b", "b");
	scan(reg);
	ASSERT(diag(reg, "symlink-loop", "/a/up"));
	ASSERT(diag(reg, "symlink-loop", "/a/self"));
	ASSERT(diag(reg, "symlink-loop", "/a/to-b"));
	ASSERT(diag(reg, "symlink-loop", "/b/to-a"));
	ASSERT(diag(reg, "symlink-loop", "/a/knot"));
	ASSERT_EQ(skit_registry_count(reg), 2);
	ASSERT(skit_registry_find(reg, "good", NULL));
	ASSERT(skit_registry_find(reg, "other", NULL));
	skit_registry_free(reg);
}

/* B2: dangling links are reported, not fatal. */
static void test_registry__dangling_symlink(void)
{
	skit_registry *reg;

	fresh("dangling");
	skill("r", "good", NULL, "Still found.");
	ASSERT_OK(symlink("/nonexistent/skit/nowhere", at("r/gone")));
	ASSERT_OK(symlink("missing-target", at("r/good/link")));
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	ASSERT(diag(reg, "symlink-dangling", "/r/gone"));
	ASSERT(skit_registry_find(reg, "good", NULL));
	skit_registry_free(reg);
}

/*
 * B9: an unreadable folder is skipped and reported. Root reads through
 * mode 000 (CAP_DAC_OVERRIDE), so as root only the "scan goes on" half of
 * the test can be asserted; the skip of that one assertion is printed.
 */
static void test_registry__unreadable_folder(void)
{
	skit_registry *reg;
	const skit_entry *e;

	fresh("unreadable");
	skill("r", "good", NULL, "Still found.");
	skill("r", "locked", NULL, "Cannot be read.");
	ASSERT_OK(chmod(at("r/locked"), 0));
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	chmod(at("r/locked"), 0755);
	ASSERT(skit_registry_find(reg, "good", NULL));
	e = any(reg, "locked", NULL);
	if (geteuid() == 0) {
		printf("note: running as root; mode 000 does not deny reads, "
		       "so the EACCES assertion is skipped\n");
	} else {
		ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
		ASSERT_CONTAINS(e->reason, "ermission");
	}
	skit_registry_free(reg);
}

/* B3: a FIFO named SKILL.md must not block the scan. */
static void test_registry__fifo_skill_md(void)
{
	skit_registry *reg;
	const skit_entry *e;

	fresh("fifo");
	skill("r", "good", NULL, "Still found.");
	ASSERT_OK(skitx_fs_mkdir_p(at("r/pipe"), 0755));
	ASSERT_OK(mkfifo(at("r/pipe/SKILL.md"), 0644));
	ASSERT_OK(skitx_fs_mkdir_p(at("r/dir/SKILL.md"), 0755));
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	e = any(reg, "pipe", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "not a regular file");
	e = any(reg, "dir", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "directory");
	ASSERT(skit_registry_find(reg, "good", NULL));
	skit_registry_free(reg);
}

/* B2: SKILL.md linked to /dev/zero or /etc/passwd is refused, not read. */
static void test_registry__skill_md_symlink(void)
{
	skit_registry *reg;
	const skit_entry *e;

	fresh("mdlink");
	skill("r", "good", NULL, "Still found.");
	ASSERT_OK(skitx_fs_mkdir_p(at("r/zero"), 0755));
	ASSERT_OK(symlink("/dev/zero", at("r/zero/SKILL.md")));
	ASSERT_OK(skitx_fs_mkdir_p(at("r/passwd"), 0755));
	ASSERT_OK(symlink("/etc/passwd", at("r/passwd/SKILL.md")));
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	e = any(reg, "zero", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "symbolic link");
	e = any(reg, "passwd", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "symbolic link");
	ASSERT(skit_registry_find(reg, "good", NULL));
	skit_registry_free(reg);
}

/* B4: a sparse 2 GB SKILL.md is an error at once, never read. */
static void test_registry__huge_sparse_file(void)
{
	skit_registry *reg;
	const skit_entry *e;
	int fd;

	fresh("huge");
	skill("r", "good", NULL, "Still found.");
	write_file(at("r/huge/SKILL.md"), "---\nname: huge\n");
	fd = open(at("r/huge/SKILL.md"), O_WRONLY);
	ASSERT(fd >= 0);
	ASSERT_OK(ftruncate(fd, (off_t)2048 * 1024 * 1024));
	close(fd);
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	e = any(reg, "huge", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "limit");
	ASSERT(skit_registry_find(reg, "good", NULL));
	skit_registry_free(reg);
	unlink(at("r/huge/SKILL.md"));
}

/* B8: `Foo` and `foo` are reported; the valid lowercase one is kept. */
static void test_registry__case_collision(void)
{
	skit_registry *reg;
	const skit_entry *e;
	const skit_diag *d;

	fresh("case");
	skill("r", "foo", NULL, "The real foo.");
	skill("r", "Foo", NULL, "Uppercase twin.");
	skill("u", "FOO", NULL, "Another twin.");
	reg = reg_new();
	add_root(reg, "project", "r");
	add_root(reg, "user", "u");
	scan(reg);
	e = skit_registry_find(reg, "foo", NULL);
	ASSERT(e && !strcmp(e->description, "The real foo."));
	/* an uppercase name loads (a warning), known by its folder name */
	e = any(reg, "Foo", NULL);
	ASSERT(e && e->state == SKIT_ENTRY_ACTIVE);
	ASSERT(e->warnings >= 1);
	ASSERT(e->flags & SKIT_SKILL_NAME_INVALID);
	d = diag(reg, "name-collision", "/r/foo");
	ASSERT(d);
	ASSERT_CONTAINS(d->message, "'foo'");
	ASSERT_CONTAINS(d->message, "'FOO'");
	ASSERT(diag(reg, "name-collision", "/r/Foo"));
	skit_registry_free(reg);
}

/*
 * B8: a fullwidth folder `ｆｏｏ` whose frontmatter says `name: ｆｏｏ` is a
 * valid skill named "foo" (NFKC) - so is the ASCII `foo` beside it. The
 * ASCII spelling (the name as written) is kept; the other is skipped with
 * a diagnostic. The order of creation does not matter.
 */
static void test_registry__nfkc_collision(void)
{
	static const char fw[] = "\xEF\xBD\x86\xEF\xBD\x8F\xEF\xBD\x8F";
	skit_registry *reg;
	const skit_entry *e;
	char rel[64];

	fresh("nfkc");
	snprintf(rel, sizeof(rel), "r/%s/SKILL.md", fw);
	write_file(at(rel), "---\nname: \xEF\xBD\x86\xEF\xBD\x8F\xEF\xBD\x8F\n"
	                    "description: Fullwidth.\n---\n");
	skill("r", "foo", NULL, "ASCII.");
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	ASSERT_EQ(skit_registry_count(reg), 1);
	e = skit_registry_find(reg, "foo", NULL);
	ASSERT(e && !strcmp(e->description, "ASCII."));
	/* lookups are NFKC too */
	ASSERT(skit_registry_find(reg, fw, NULL) == e);
	ASSERT_EQ(skit_registry_all_count(reg), 2);
	e = skit_registry_all_entry(reg, 1);
	ASSERT_EQ(e->state, SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "NFKC");
	ASSERT(diag(reg, "nfkc-collision", fw));
	skit_registry_free(reg);
}

/* B7: only <root>/<name>/SKILL.md is a skill; inner ones are not. */
static void test_registry__nested_skills(void)
{
	skit_registry *reg;

	fresh("nested");
	skill("r", "outer", NULL, "Outer.");
	skill("r/outer", "inner", NULL, "Inner.");
	skill("r/group", "deep", NULL, "Two levels down.");
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	ASSERT_EQ(skit_registry_all_count(reg), 1);
	ASSERT(skit_registry_find(reg, "outer", NULL));
	ASSERT(!any(reg, "inner", NULL));
	ASSERT(!any(reg, "deep", NULL));
	skit_registry_free(reg);
}

/* skill.md (lowercase) is accepted like the reference, and flagged. */
static void test_registry__lowercase_skill_md(void)
{
	skit_registry *reg;
	const skit_entry *e;

	fresh("lower");
	write_file(at("r/low/skill.md"),
	           "---\nname: low\ndescription: Lowercase file.\n---\n");
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	e = skit_registry_find(reg, "low", NULL);
	ASSERT(e);
	ASSERT(e->flags & SKIT_SKILL_LOWERCASE_FILE);
	ASSERT_STR(e->file, at("r/low/skill.md"));
	skit_registry_free(reg);
}

/* B6: dot-folders (.git, .system) and AppleDouble ._x are skipped. */
static void test_registry__dot_folders(void)
{
	skit_registry *reg;

	fresh("dots");
	skill("r", "good", NULL, "Visible.");
	skill("r", ".git", "git", "Hidden.");
	skill("r", ".system", "system", "Hidden.");
	skill("r", "._good", "good", "AppleDouble.");
	write_file(at("r/._SKILL.md"), "junk");
	write_file(at("r/.DS_Store"), "junk");
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	ASSERT_EQ(skit_registry_all_count(reg), 1);
	ASSERT(skit_registry_find(reg, "good", NULL));
	skit_registry_free(reg);
}

/* B1: a root that is itself a symbolic link is followed. */
static void test_registry__root_symlink(void)
{
	skit_registry *reg;

	fresh("rootlink");
	skill("real", "good", NULL, "Through the link.");
	ASSERT_OK(symlink("real", at("linked")));
	reg = reg_new();
	add_root(reg, "r", "linked");
	add_root(reg, "again", "real"); /* the same folder twice */
	scan(reg);
	ASSERT_EQ(skit_registry_count(reg), 1);
	ASSERT_STR(skit_registry_entry(reg, 0)->dir, at("linked/good"));
	ASSERT(diag(reg, "root-duplicate", "/real"));
	ASSERT_EQ(skit_registry_all_count(reg), 1);
	skit_registry_free(reg);
}

/*
 * B1: linked skill folders are followed once; an alias of a folder already
 * seen (in this root or a higher one) is reported and listed once. Real
 * folders go first, so a link never displaces the folder it points at.
 */
static void test_registry__symlinked_folders(void)
{
	skit_registry *reg;
	const skit_entry *e;

	fresh("aliases");
	skill("r", "zed", NULL, "Real folder.");
	skill("elsewhere", "ext", NULL, "Linked in from outside.");
	ASSERT_OK(symlink("zed", at("r/a-alias"))); /* sorts first */
	ASSERT_OK(symlink("../elsewhere/ext", at("r/ext")));
	ASSERT_OK(skitx_fs_mkdir_p(at("u"), 0755));
	ASSERT_OK(symlink("../r/zed", at("u/zed")));
	ASSERT_OK(symlink("../elsewhere/README", at("r/file-link")));
	write_file(at("elsewhere/README"), "a file\n");
	reg = reg_new();
	add_root(reg, "project", "r");
	add_root(reg, "user", "u");
	scan(reg);
	e = skit_registry_find(reg, "zed", NULL);
	ASSERT(e && !strcmp(e->dir, at("r/zed")));
	e = skit_registry_find(reg, "ext", NULL);
	ASSERT(e && !strcmp(e->dir, at("r/ext")));
	ASSERT(diag(reg, "alias", "/r/a-alias"));
	ASSERT(diag(reg, "alias", "/u/zed"));
	ASSERT(!any(reg, "a-alias", NULL));
	ASSERT(!skit_registry_find(reg, "zed", "user")); /* deduped */
	ASSERT_EQ(skit_registry_all_count(reg), 2);
	skit_registry_free(reg);
}

/* B5: past the per-root cap the scan stops and says so. */
static void test_registry__folder_cap(void)
{
	skit_registry *reg;
	char rel[64];

	/* the real cap must hold the 100k-skill benchmark twice */
	ASSERT(SKIT__REGISTRY_MAX_PER_ROOT >= 200000);
	fresh("cap");
	for (int i = 0; i < 30; i++) {
		snprintf(rel, sizeof(rel), "s%02d", i);
		skill("r", rel, NULL, "One of many.");
	}
	skill("u", "after", NULL, "The next root is still scanned.");
	reg = reg_new();
	skit__registry_set_max_per_root(reg, 20);
	add_root(reg, "r", "r");
	add_root(reg, "u", "u");
	scan(reg);
	ASSERT(diag(reg, "truncated", "/r"));
	ASSERT_EQ(skit_registry_count(reg), 21);
	ASSERT(skit_registry_find(reg, "after", NULL));
	skit_registry_free(reg);
}

/* B9: a path too long to open is skipped and reported. */
static void test_registry__name_too_long(void)
{
	char rel[PATH_MAX], folder[256];
	skit_registry *reg;
	const skit_entry *e;
	size_t len;

	fresh("toolong");
	/* a root path near PATH_MAX, in components of 200 bytes */
	len = (size_t)snprintf(rel, sizeof(rel), "r");
	while (strlen(base) + len < PATH_MAX - 220) {
		rel[len++] = '/';
		memset(rel + len, 'd', 200);
		len += 200;
		rel[len] = '\0';
	}
	memset(folder, 'x', 250);
	folder[250] = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(at(rel), 0755));
	{
		char srel[PATH_MAX + 300];
		int dfd = open(at(rel), O_RDONLY | O_DIRECTORY);

		ASSERT(dfd >= 0);
		ASSERT_OK(mkdirat(dfd, folder, 0755));
		snprintf(srel, sizeof(srel), "%s/SKILL.md", folder);
		close(openat(dfd, srel, O_WRONLY | O_CREAT, 0644));
		ASSERT_OK(mkdirat(dfd, "short", 0755));
		close(openat(dfd, "short/SKILL.md", O_WRONLY | O_CREAT, 0644));
		close(dfd);
	}
	write_file(at("u/good/SKILL.md"),
	           "---\nname: good\ndescription: Found.\n---\n");
	reg = reg_new();
	add_root(reg, "r", rel);
	add_root(reg, "u", "u");
	scan(reg);
	e = any(reg, folder, NULL);
	ASSERT(e && e->state == SKIT_ENTRY_SKIPPED);
	ASSERT_CONTAINS(e->reason, "too long");
	ASSERT(skit_registry_find(reg, "good", NULL));
	skit_registry_free(reg);
}

struct victim {
	const char *name;
	int hits;
};

static void remove_victim(const char *root, const char *name, void *payload)
{
	struct victim *v = payload;
	char path[PATH_MAX];

	if (!strcmp(name, "swapped")) {
		/* a folder replaced by a link to another skill */
		char to[PATH_MAX];

		snprintf(path, sizeof(path), "%s/swapped", root);
		snprintf(to, sizeof(to), "%s/swapped.old", root);
		rename(path, to);
		symlink("a-first", path);
		v->hits++;
		return;
	}
	if (strcmp(name, v->name))
		return;
	snprintf(path, sizeof(path), "%s/%s/SKILL.md", root, name);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", root, name);
	rmdir(path);
	v->hits++;
}

/*
 * B9: a folder removed between listing and loading is reported; one
 * replaced by a symbolic link is loaded through it, and its name no longer
 * matches, so it is skipped. The rest of the scan is unaffected.
 */
static void test_registry__removed_mid_scan(void)
{
	struct victim v = { "gone", 0 };
	skit_registry *reg;

	fresh("removed");
	skill("r", "a-first", NULL, "Before.");
	skill("r", "gone", NULL, "Removed while scanning.");
	skill("r", "z-last", NULL, "After.");
	skill("r", "swapped", NULL, "Replaced by a link while scanning.");
	reg = reg_new();
	skit__registry_set_scan_hook(reg, remove_victim, &v);
	add_root(reg, "r", "r");
	scan(reg);
	ASSERT_EQ(v.hits, 2);
	ASSERT(diag(reg, "removed", "/r/gone"));
	ASSERT_EQ(skit_registry_count(reg), 3);
	ASSERT(skit_registry_find(reg, "a-first", NULL));
	ASSERT(skit_registry_find(reg, "z-last", NULL));
	/*
	 * the swapped folder now holds another skill: it loads (name and
	 * folder differ: a warning) under its own folder name
	 */
	ASSERT(skit_registry_find(reg, "swapped", NULL));
	ASSERT_EQ(skit_registry_find(reg, "swapped", NULL)->warnings, 1);
	skit_registry_free(reg);
}

/* An allocator that fails from the Nth call on (for the rescan test). */
static long fail_after = -1, calls;

static bool fail_now(void)
{
	return fail_after >= 0 && ++calls > fail_after;
}

static void *t_malloc(size_t n)
{
	return fail_now() ? NULL : malloc(n);
}

static void *t_calloc(size_t c, size_t n)
{
	return fail_now() ? NULL : calloc(c, n);
}

static void *t_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : realloc(p, n);
}

/*
 * B10: a rescan that fails (here: out of memory at every possible point)
 * leaves the previous index whole; one that succeeds sees the changes.
 */
static void test_registry__rescan_keeps_old_index(void)
{
	static const skit_allocator failing = { t_malloc, t_calloc, t_realloc,
		                                free };
	skit_registry *reg;
	skit_error err;
	long n;
	int error = -1;

	fresh("rescan");
	skill("r", "one", NULL, "First.");
	skill("r", "two", NULL, "Second.");
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);
	ASSERT_EQ(skit_registry_count(reg), 2);
	skill("r", "three", NULL, "Third.");
	ASSERT_OK(symlink(".", at("r/loop")));

	ASSERT_OK(skit_set_allocator(&failing));
	for (n = 0; n < 100000 && error; n++) {
		calls = 0;
		fail_after = n;
		error = skit_registry_scan(reg, &err);
		fail_after = -1;
		if (error) {
			if (error != SKIT_ENOMEM)
				break;
			/* the old index, intact */
			if (skit_registry_count(reg) != 2 ||
			    strcmp(skit_registry_entry(reg, 1)->name, "two"))
				break;
		}
	}
	skit_set_allocator(NULL);
	ASSERT_OK(error);
	ASSERT(n > 10); /* it did fail at many points first */
	ASSERT_EQ(skit_registry_count(reg), 3);
	ASSERT(diag(reg, "symlink-loop", "/r/loop"));
	skit_registry_free(reg);
}

/* ---- the parallel scan ------------------------------------------------ */

/* Two strings, either possibly NULL, are the same. */
static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* `a` and `b` hold the same entries, diagnostics and counts, in order. */
/* The same entries, in the same order, and the same counts a root. */
static void assert_same_entries(const skit_registry *a, const skit_registry *b)
{
	ASSERT_EQ(skit_registry_all_count(a), skit_registry_all_count(b));
	ASSERT_EQ(skit_registry_count(a), skit_registry_count(b));
	for (size_t i = 0; i < skit_registry_all_count(a); i++) {
		const skit_entry *x = skit_registry_all_entry(a, i);
		const skit_entry *y = skit_registry_all_entry(b, i);

		ASSERT_STR(x->name, y->name);
		ASSERT_STR(x->dir, y->dir);
		ASSERT_STR(x->file, y->file);
		ASSERT_STR(x->source, y->source);
		ASSERT(same_str(x->description, y->description));
		ASSERT(same_str(x->reason, y->reason));
		ASSERT(same_str(x->when_to_use, y->when_to_use));
		ASSERT(same_str(x->argument_hint, y->argument_hint));
		ASSERT_EQ(x->state, y->state);
		ASSERT_EQ(x->root_index, y->root_index);
		ASSERT_EQ(x->flags, y->flags);
		ASSERT_EQ(x->warnings, y->warnings);
	}
	for (size_t i = 0; i < skit_registry_count(a); i++)
		ASSERT_STR(skit_registry_entry(a, i)->dir,
		           skit_registry_entry(b, i)->dir);
	for (size_t r = 0; r < skit_registry_root_count(a); r++) {
		size_t sa, sb;

		skit_registry_root(a, r, NULL, NULL, NULL, &sa);
		skit_registry_root(b, r, NULL, NULL, NULL, &sb);
		ASSERT_EQ(sa, sb);
	}
}

static void assert_same_index(const skit_registry *a, const skit_registry *b)
{
	const skit_diag *da, *db;
	size_t na, nb;

	assert_same_entries(a, b);
	da = skit_registry_diags(a, &na);
	db = skit_registry_diags(b, &nb);
	ASSERT_EQ(na, nb);
	for (size_t i = 0; i < na; i++) {
		ASSERT_STR(da[i].code, db[i].code);
		ASSERT(same_str(da[i].path, db[i].path));
		ASSERT_STR(da[i].message, db[i].message);
	}
}

static skit_registry *scan_with_threads(size_t threads)
{
	skit_registry *reg = reg_new();

	skit__registry_set_threads(reg, threads);
	add_root(reg, "project", "p");
	add_root(reg, "user", "u");
	scan(reg);
	return reg;
}

/*
 * `n` folders of every kind under base/p and base/u: valid, broken,
 * shadowed, aliased, colliding, not skills, a loop and a file.
 */
static void varied_tree(int n)
{
	char folder[32], name[128], text[512];

	for (int i = 0; i < n; i++) {
		snprintf(folder, sizeof(folder), "skill-%03d", i);
		switch (i % 10) {
		case 0: /* broken YAML: skipped */
			snprintf(text, sizeof(text), "p/%s/SKILL.md", folder);
			write_file(at(text),
			           "---\nname: [unclosed\n---\nBody.\n");
			break;
		case 1: /* no SKILL.md: not a skill */
			snprintf(text, sizeof(text), "p/%s", folder);
			ASSERT_OK(skitx_fs_mkdir_p(at(text), 0755));
			break;
		case 2: /* name and folder differ: skipped, listed */
			snprintf(name, sizeof(name), "other-%03d", i);
			skill("p", folder, name, "Mismatched.");
			break;
		case 3: /* a warning, and the runtime fields */
			snprintf(name, sizeof(name), "p/%s/SKILL.md", folder);
			snprintf(text, sizeof(text),
			         "---\nname: %s\ndescription: Has a "
			         "warning.\nmetadata: [1]\nwhen_to_use: "
			         "Now.\nargument-hint: <x>\n---\n",
			         folder);
			write_file(at(name), text);
			break;
		case 4: /* also in the user root: shadowed there */
			skill("p", folder, NULL, "Project copy.");
			skill("u", folder, NULL, "User copy.");
			break;
		case 5: /* a link to an earlier folder: an alias */
			skill("p", folder, NULL, "Linked to.");
			snprintf(text, sizeof(text), "p/zz-link-%03d", i);
			ASSERT_OK(symlink(folder, at(text)));
			break;
		case 6: /* a dangling link */
			snprintf(text, sizeof(text), "p/dangling-%03d", i);
			ASSERT_OK(symlink("nowhere", at(text)));
			skill("p", folder, NULL, "Beside a dangling link.");
			break;
		case 7: /* letter case collides with a lowercase twin */
			snprintf(name, sizeof(name), "Case-%03d", i);
			skill("p", name, NULL, "Upper case.");
			snprintf(name, sizeof(name), "case-%03d", i);
			skill("u", name, NULL, "Lower case.");
			break;
		default:
			skill("p", folder, NULL, "A plain skill.");
		}
	}
	/* a loop and a file beside the skills */
	ASSERT_OK(symlink("..", at("p/up")));
	write_file(at("p/README.md"), "not a skill\n");
}

/*
 * A scan whose diagnostics are not read (to-prompt's scan of a parent)
 * skips the checks that only make diagnostics (unsafe folders, colliding
 * and look-alike names) and nothing else: the same entries, states and
 * order as a full scan, on every kind of folder, and it writes the same
 * cache (a later full scan served from it finds the same index).
 */
static void backdate(const char *root);

static void test_registry__diags_unread_same_entries(void)
{
	skit_registry *full, *quiet, *again;

	fresh("diags-unread");
	varied_tree(200);
	/* others may write this folder: an "unsafe-folder" diagnostic */
	ASSERT_OK(chmod(at("p/skill-008"), 0777));
	backdate("p"); /* old enough to be cached */
	backdate("u");

	full = reg_new();
	skit__registry_set_no_cache(full, true);
	add_root(full, "project", "p");
	add_root(full, "user", "u");
	scan(full);
	ASSERT(diag(full, "unsafe-folder", "/p/skill-008"));
	ASSERT(diag(full, "name-collision", NULL));

	quiet = reg_new();
	quiet->diags_unread = true;
	add_root(quiet, "project", "p");
	add_root(quiet, "user", "u");
	scan(quiet);
	assert_same_entries(full, quiet);
	ASSERT(!diag(quiet, "unsafe-folder", NULL));
	ASSERT(!diag(quiet, "name-collision", NULL));
	ASSERT(diag(quiet, "symlink-loop", "/p/up")); /* others stay */

	/* the cache it wrote serves a full scan, which reports them all */
	again = reg_new();
	add_root(again, "project", "p");
	add_root(again, "user", "u");
	scan(again);
	ASSERT(again->cache_stats.hits > 100);
	assert_same_index(full, again);
	ASSERT_OK(chmod(at("p/skill-008"), 0755));
	skit_registry_free(again);
	skit_registry_free(quiet);
	skit_registry_free(full);
}

/*
 * A tree of a few hundred folders of every kind (valid, broken, shadowed,
 * aliased, colliding, not skills) gives the same index, byte for byte and
 * in the same order, whether its folders are loaded on one thread or on
 * several.
 */
static void test_registry__parallel_same_as_sequential(void)
{
	skit_registry *seq, *par;

	fresh("parallel");
	varied_tree(300);

	seq = scan_with_threads(1);
	ASSERT(skit_registry_all_count(seq) > 300);
	ASSERT(diag(seq, "alias", NULL));
	ASSERT(diag(seq, "symlink-dangling", NULL));
	ASSERT(diag(seq, "symlink-loop", "/p/up"));
	ASSERT(diag(seq, "name-collision", NULL));
	for (size_t threads = 2; threads <= 5; threads += 3) {
		par = scan_with_threads(threads);
		assert_same_index(seq, par);
		skit_registry_free(par);
	}
	/* automatic: as many threads as CPUs (300 folders is enough) */
	par = scan_with_threads(0);
	assert_same_index(seq, par);
	skit_registry_free(par);
	skit_registry_free(seq);
}

/* Out of memory on any thread, at any point: ENOMEM, nothing leaked. */
static void test_registry__parallel_out_of_memory(void)
{
	skit_registry *reg;
	skit_error err;
	long n;
	int error = -1;

	fresh("parallel-oom");
	for (int i = 0; i < 40; i++) {
		char folder[32];

		snprintf(folder, sizeof(folder), "s%02d", i);
		skill("p", folder, NULL, "Some skill.");
	}
	for (n = 1; n < 100000 && error; n += 7) {
		reg = reg_new();
		skit__registry_set_threads(reg, 3);
		add_root(reg, "project", "p");
		skitx_alloc_fail_at(n);
		error = skit_registry_scan(reg, &err);
		skitx_alloc_fail_at(0);
		if (error)
			ASSERT_EQ(error, SKIT_ENOMEM);
		else
			ASSERT_EQ(skit_registry_count(reg), 40);
		skit_registry_free(reg);
	}
	ASSERT_OK(error);
	ASSERT(n > 50); /* it did fail at many points first */
}

/* ---- the index cache -------------------------------------------------- */

/* Give base/<rel> (not following a link) the mtime `sec`, if it exists. */
static void set_mtime(const char *rel, time_t sec)
{
	struct timespec ts[2];

	ts[0].tv_sec = ts[1].tv_sec = sec;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	utimensat(AT_FDCWD, at(rel), ts, AT_SYMLINK_NOFOLLOW);
}

/* Every <root>/<folder>/SKILL.md gets an old mtime: cacheable. */
static void backdate(const char *root)
{
	char rel[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(at(root));

	ASSERT(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof(rel), "%s/%s/SKILL.md", root, de->d_name);
		set_mtime(rel, 1000000000);
	}
	closedir(d);
}

static skit_registry *scan_cache(size_t threads, bool cache)
{
	skit_registry *reg = reg_new();

	skit__registry_set_threads(reg, threads);
	skit__registry_set_no_cache(reg, !cache);
	add_root(reg, "project", "p");
	add_root(reg, "user", "u");
	scan(reg);
	return reg;
}

/* The cache file of a scan of roots base/<rels>, malloc'd. */
static char *cache_file_of(const char *const *rels, size_t n)
{
	struct skit__cache c;
	char *home = skit__cache_home(), *file, *paths[4];

	ASSERT(home);
	ASSERT(n <= SKIT_ARRAY_SIZE(paths));
	for (size_t i = 0; i < n; i++)
		paths[i] = strdup(at(rels[i]));
	memset(&c, 0, sizeof(c));
	skit__cache_open(&c, home, (const char *const *)paths, n);
	ASSERT(c.file);
	file = strdup(c.file);
	skit__cache_release(&c);
	skitx_free(home);
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return file;
}

/* The cache file of root base/<rel> scanned alone. */
static char *cache_file(const char *rel)
{
	return cache_file_of(&rel, 1);
}

/* The cache file of scan_cache()'s roots, p and u. */
static char *scan_cache_file(void)
{
	static const char *const rels[] = { "p", "u" };

	return cache_file_of(rels, 2);
}

static void write_bytes(const char *path, const void *data, size_t len,
                        mode_t mode)
{
	int fd;

	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT(fd >= 0);
	ASSERT_EQ(write(fd, data, len), (long long)len);
	ASSERT_OK(fchmod(fd, mode));
	close(fd);
}

/*
 * A scan with the cache gives what a scan without it gives, cold and
 * warm, on one thread and several; a warm scan takes every cacheable
 * entry from the cache and writes nothing; and each kind of change to
 * the tree is picked up.
 */
static void test_registry__cache_same_as_uncached(void)
{
	skit_registry *ref, *c1, *c2;
	const skit_entry *e;
	struct stat st;
	char *file;

	fresh("cache");
	varied_tree(60);
	write_file(at("p/lower/skill.md"),
	           "---\nname: lower\ndescription: Lower case.\n---\n");
	backdate("p");
	backdate("u");
	set_mtime("p/lower/skill.md", 1000000000);

	ref = scan_cache(1, false);
	ASSERT_EQ(ref->cache_stats.written, 0);
	c1 = scan_cache(0, true);
	assert_same_index(ref, c1);
	ASSERT_EQ(c1->cache_stats.hits, 0);
	ASSERT_EQ(c1->cache_stats.written, 1); /* one file for both roots */
	ASSERT(c1->cache_stats.stored > 40);
	file = scan_cache_file();
	ASSERT_OK(stat(file, &st));
	ASSERT_EQ(st.st_mode & 0777, 0600);
	*strrchr(file, '/') = '\0';
	ASSERT_OK(stat(file, &st));
	ASSERT_EQ(st.st_mode & 0777, 0700);
	free(file);
	for (size_t threads = 0; threads < 2; threads++) {
		c2 = scan_cache(threads, true);
		assert_same_index(ref, c2);
		/* every stored record reused: no SKILL.md opened for them */
		ASSERT_EQ(c2->cache_stats.hits, c1->cache_stats.stored);
		ASSERT_EQ(c2->cache_stats.written, 0);
		skit_registry_free(c2);
	}
	skit_registry_free(ref);
	skit_registry_free(c1);

	/* content and size */
	skill("p", "skill-008", NULL, "Changed, and longer than it was.");
	set_mtime("p/skill-008/SKILL.md", 1000000000);
	/* same size, new mtime */
	skill("p", "skill-009", NULL, "A plain skilL.");
	set_mtime("p/skill-009/SKILL.md", 1000000100);
	/* deleted, added */
	rm_at(AT_FDCWD, at("p/skill-018"));
	skill("p", "new-skill", NULL, "Brand new.");
	set_mtime("p/new-skill/SKILL.md", 1000000000);
	/* a folder replaced by a link to another folder */
	rm_at(AT_FDCWD, at("p/skill-028"));
	skill("outside", "target", "skill-028", "Through a link.");
	set_mtime("outside/target/SKILL.md", 1000000000);
	ASSERT_OK(symlink("../outside/target", at("p/skill-028")));
	/* a SKILL.md replaced by a link to a file */
	write_file(at("outside/real.md"),
	           "---\nname: skill-038\ndescription: Linked file.\n---\n");
	ASSERT_OK(unlink(at("p/skill-038/SKILL.md")));
	ASSERT_OK(symlink(at("outside/real.md"), at("p/skill-038/SKILL.md")));

	ref = scan_cache(1, false);
	c1 = scan_cache(0, true);
	assert_same_index(ref, c1);
	ASSERT(c1->cache_stats.hits > 0);
	ASSERT_EQ(c1->cache_stats.written, 1);
	e = skit_registry_find(c1, "skill-008", NULL);
	ASSERT(e);
	ASSERT_STR(e->description, "Changed, and longer than it was.");
	e = skit_registry_find(c1, "skill-009", NULL);
	ASSERT(e);
	ASSERT_STR(e->description, "A plain skilL.");
	ASSERT(!any(c1, "skill-018", NULL));
	ASSERT(skit_registry_find(c1, "new-skill", NULL));
	e = skit_registry_find(c1, "skill-028", NULL);
	ASSERT(e);
	ASSERT_STR(e->description, "Through a link.");
	e = any(c1, "skill-038", NULL);
	ASSERT(e);
	ASSERT_EQ(e->state, SKIT_ENTRY_SKIPPED);
	/* and again, warm: the changes were stored */
	for (size_t threads = 0; threads < 2; threads++) {
		c2 = scan_cache(threads, true);
		assert_same_index(ref, c2);
		ASSERT_EQ(c2->cache_stats.written, 0);
		skit_registry_free(c2);
	}
	skit_registry_free(ref);
	skit_registry_free(c1);

	/* SKIT_NO_CACHE=1: neither read nor written */
	file = scan_cache_file();
	ASSERT_OK(unlink(file));
	setenv("SKIT_NO_CACHE", "1", 1);
	c1 = scan_cache(0, true);
	unsetenv("SKIT_NO_CACHE");
	ASSERT_EQ(c1->cache_stats.written, 0);
	ASSERT(stat(file, &st) < 0);
	skit_registry_free(c1);
	free(file);
}

/* Scan with the cache as planted; it must give `ref` (or at least work). */
static void scan_planted(const skit_registry *ref, const char *file,
                         const char *data, size_t len, mode_t mode, bool same)
{
	skit_registry *r;

	write_bytes(file, data, len, mode);
	r = scan_cache(2, true);
	if (same)
		assert_same_index(ref, r);
	else
		ASSERT(skit_registry_all_count(r) > 0);
	skit_registry_free(r);
}

/*
 * The cache file is untrusted: truncated, flipped, forged with a good
 * checksum, world-writable or a link, the scan never crashes (ASan
 * watches) and, unless the forgery is consistent, gives the uncached
 * result.
 */
static void test_registry__cache_hostile(void)
{
	struct skitx_buf buf = SKITX_BUF_INIT;
	skit_registry *ref, *c;
	char *file, *copy, *p;
	size_t len, step, cut[] = { 0, 1, 8, 47, 48, 49, 100 };
	uint64_t sum;

	fresh("cache-bad");
	varied_tree(40);
	backdate("p");
	backdate("u");
	ref = scan_cache(1, false);
	c = scan_cache(0, true);
	ASSERT_EQ(c->cache_stats.written, 1);
	skit_registry_free(c);
	file = scan_cache_file();
	ASSERT_OK(skitx_fs_read_file(file, &buf, 1 << 24));
	len = buf.len;
	copy = malloc(len);
	ASSERT(copy);

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cut); i++)
		scan_planted(ref, file, buf.ptr, cut[i] < len ? cut[i] : 0,
		             0600, true);
	scan_planted(ref, file, buf.ptr, len / 2, 0600, true);
	scan_planted(ref, file, buf.ptr, len - 1, 0600, true);

	/* flipped bytes: the checksum or the header catches each one */
	step = len / 150 ? len / 150 : 1;
	for (size_t pos = 0; pos < len; pos += (pos < 64 ? 1 : step)) {
		memcpy(copy, buf.ptr, len);
		copy[pos] ^= 0x5a;
		scan_planted(ref, file, copy, len, 0600, true);
	}
	/* forged with a good checksum: every field is still checked */
	for (size_t pos = SKIT__CACHE_HEADER_SIZE; pos < len; pos += step) {
		for (int bit = 0; bit < 8; bit += 3) {
			memcpy(copy, buf.ptr, len);
			copy[pos] ^= (char)(1 << bit);
			sum = skit__cache_checksum(
			        copy + SKIT__CACHE_HEADER_SIZE,
			        len - SKIT__CACHE_HEADER_SIZE);
			memcpy(copy + SKIT__CACHE_CHECKSUM_AT, &sum, 8);
			scan_planted(ref, file, copy, len, 0600, false);
		}
	}
	/* a consistent forgery, writable by others or behind a link: ignored */
	memcpy(copy, buf.ptr, len);
	p = NULL;
	for (size_t i = 0; !p && i + 14 <= len; i++)
		if (!memcmp(copy + i, "A plain skill.", 14))
			p = copy + i;
	ASSERT(p);
	p[2] = 'X';
	sum = skit__cache_checksum(copy + SKIT__CACHE_HEADER_SIZE,
	                           len - SKIT__CACHE_HEADER_SIZE);
	memcpy(copy + SKIT__CACHE_CHECKSUM_AT, &sum, 8);
	scan_planted(ref, file, copy, len, 0666, true);
	write_bytes(at("forged.bin"), copy, len, 0600);
	unlink(file);
	ASSERT_OK(symlink(at("forged.bin"), file));
	c = scan_cache(0, true);
	assert_same_index(ref, c);
	skit_registry_free(c);

	free(copy);
	free(file);
	skitx_buf_release(&buf);
	skit_registry_free(ref);
}

/*
 * Write a cache for scan_cache()'s roots (p, u) holding `copies` records
 * of p/skill-004 with its true key and the description "Planted." (a
 * reader that takes the file serves it), then, when `extra_root` is not
 * -1, one record of folder skill-005 of root number `extra_root`.
 */
static void plant_records(int copies, int extra_root)
{
	static const char *const rels[] = { "p", "u" };
	struct skit__cache_writer w;
	struct skit__cache_key key;
	struct skit__cache c;
	struct stat st;
	skit_entry e;
	char *home = skit__cache_home(), *paths[2];
	int fd;

	ASSERT(home);
	for (size_t i = 0; i < 2; i++)
		paths[i] = strdup(at(rels[i]));
	memset(&c, 0, sizeof(c));
	skit__cache_open(&c, home, (const char *const *)paths, 2);
	fd = open(at("p"), O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT_OK(fstatat(fd, "skill-004", &st, 0));
	ASSERT(skit__cache_key_read(&key, fd, "skill-004", (uint64_t)st.st_dev,
	                            (uint64_t)st.st_ino));
	close(fd);
	memset(&e, 0, sizeof(e));
	e.name = "skill-004";
	e.description = "Planted.";
	e.state = SKIT_ENTRY_ACTIVE;
	ASSERT_OK(skit__cache_writer_open(&w, &c));
	for (int i = 0; i < copies; i++)
		ASSERT_EQ(skit__cache_writer_put(&w, 0, &key, &e, "skill-004",
		                                 NULL),
		          1);
	e.name = "skill-005";
	if (extra_root >= 0)
		ASSERT_EQ(skit__cache_writer_put(&w, (size_t)extra_root, &key,
		                                 &e, "skill-005", NULL),
		          1);
	ASSERT_OK(skit__cache_writer_close(&w, &c, true));
	skit__cache_release(&c);
	skitx_free(home);
	free(paths[0]);
	free(paths[1]);
}

/* Scan with the planted cache: it must be ignored whole, and rewritten. */
static void scan_ignores(const skit_registry *ref)
{
	skit_registry *c = scan_cache(2, true);

	assert_same_index(ref, c);
	ASSERT_EQ(c->cache_stats.hits, 0);
	ASSERT_EQ(c->cache_stats.written, 1);
	skit_registry_free(c);
}

/* A scan with the planted cache takes its record of p/skill-004. */
static void assert_planted_taken(void)
{
	skit_registry *c = scan_cache(2, true);
	const skit_entry *e = skit_registry_find(c, "skill-004", "project");

	ASSERT(e);
	ASSERT_STR(e->description, "Planted.");
	skit_registry_free(c);
}

/*
 * A fresh tree `name` of 20 varied skills with its cache written (the
 * scan is returned, for scan_ignores), and the file (in `*file`) planted
 * with one consistent record set, which a scan is shown to take.
 */
static skit_registry *planted_tree(const char *name, char **file)
{
	skit_registry *ref;

	fresh(name);
	varied_tree(20);
	backdate("p");
	backdate("u");
	ref = scan_cache(1, false);
	*file = scan_cache_file();
	plant_records(1, -1);
	assert_planted_taken();
	return ref;
}

/* Fix the header's payload length and checksum of a cache in `b`. */
static void reseal(struct skitx_buf *b)
{
	uint64_t len = b->len - SKIT__CACHE_HEADER_SIZE, sum;

	memcpy(b->ptr + 16, &len, 8);
	sum = skit__cache_checksum(b->ptr + SKIT__CACHE_HEADER_SIZE, len);
	memcpy(b->ptr + SKIT__CACHE_CHECKSUM_AT, &sum, 8);
}

/*
 * A cache written by another build of skit holds that build's verdicts:
 * one whose writer differs from this program's (another build ID under
 * the same version, or another version) is ignored whole, checksum
 * good or not, and rewritten. The writer is the version, then the
 * program's GNU build ID when it has one.
 */
static void test_registry__cache_other_build(void)
{
	struct skitx_buf buf = SKITX_BUF_INIT;
	const char *tag = skit__cache_build_tag();
	size_t tlen = strlen(tag);
	skit_registry *ref;
	char *file, *w;

	ASSERT(!strncmp(tag, SKIT_VERSION, strlen(SKIT_VERSION)));
	ASSERT(tag[strlen(SKIT_VERSION)] == '\0' ||
	       tag[strlen(SKIT_VERSION)] == '+');
	/* the build ID is this program's, as readelf(1) reads it */
	{
		char cmd[96], line[512], id[160] = "", want[256];
		FILE *f;

		snprintf(cmd, sizeof(cmd),
		         "readelf -n /proc/%ld/exe 2>/dev/null",
		         (long)getpid());
		f = popen(cmd, "r");
		ASSERT(f);
		while (!id[0] && fgets(line, sizeof(line), f))
			if (sscanf(line, " Build ID: %150[0-9a-f]", id) != 1)
				id[0] = '\0';
		pclose(f);
		if (id[0]) {
			snprintf(want, sizeof(want), "%s+%s", SKIT_VERSION, id);
			ASSERT_STR(tag, want);
		} else {
			printf("note: no readelf here; the build ID is checked "
			       "by cli/registry_cache only\n");
		}
	}
	/* a consistent file from this build is taken */
	ref = planted_tree("cache-build", &file);

	/* the same file, said to be written by another build */
	plant_records(1, -1);
	ASSERT_OK(skitx_fs_read_file(file, &buf, 1 << 24));
	w = buf.ptr + SKIT__CACHE_HEADER_SIZE;
	ASSERT(buf.len > SKIT__CACHE_HEADER_SIZE + tlen);
	ASSERT(!memcmp(w, tag, tlen));
	w[tlen - 1] = w[tlen - 1] == '0' ? '1' : '0';
	reseal(&buf);
	write_bytes(file, buf.ptr, buf.len, 0600);
	scan_ignores(ref);

	skitx_buf_release(&buf);
	skit_registry_free(ref);
	free(file);
}

/*
 * Records that a reader must refuse though the file's checksum is good:
 * a root number past the list of roots, a folder twice in one root, a
 * string whose NUL is gone, a varint over 64 bits. Each planted file also
 * holds a record the scan would use (p/skill-004, "Planted."), so taking
 * any of them would show in the index; the whole file must be ignored,
 * and rewritten.
 */
static void test_registry__cache_hostile_records(void)
{
	struct skitx_buf buf = SKITX_BUF_INIT, out = SKITX_BUF_INIT;
	skit_registry *ref;
	char *file, *p;
	size_t at_rec, n;
	uint64_t v;

	/* the planting works: a consistent file is taken (docs say so) */
	ref = planted_tree("cache-recs", &file);

	plant_records(1, 2); /* root 2 of 2 roots */
	scan_ignores(ref);
	plant_records(2, -1); /* a folder twice in root 0 */
	scan_ignores(ref);

	/* the NUL after "Planted." replaced */
	plant_records(1, -1);
	ASSERT_OK(skitx_fs_read_file(file, &buf, 1 << 24));
	p = NULL;
	for (size_t i = 0; !p && i + 9 <= buf.len; i++)
		if (!memcmp(buf.ptr + i, "Planted.", 9))
			p = buf.ptr + i;
	ASSERT(p);
	p[8] = 'x';
	reseal(&buf);
	write_bytes(file, buf.ptr, buf.len, 0600);
	scan_ignores(ref);

	/*
	 * The record's first number (the folder's st_dev) spelled in ten
	 * bytes, the last holding bit 64 (0x02) besides bit 63: a reader
	 * that dropped the bits past 64 would decode the true value, and
	 * the record would be a hit. It follows the header, the writer
	 * (skit's version and build ID) and the two roots.
	 */
	plant_records(1, -1);
	skitx_buf_clear(&buf);
	ASSERT_OK(skitx_fs_read_file(file, &buf, 1 << 24));
	at_rec = SKIT__CACHE_HEADER_SIZE + strlen(skit__cache_build_tag()) + 4 +
	         strlen(at("p")) + 4 + strlen(at("u"));
	ASSERT(at_rec < buf.len);
	v = 0;
	n = 0;
	do {
		ASSERT(n < 10);
		v |= (uint64_t)(buf.ptr[at_rec + n] & 0x7f) << (7 * n);
		n++;
	} while (buf.ptr[at_rec + n - 1] & 0x80);
	ASSERT_OK(skitx_buf_add(&out, buf.ptr, at_rec));
	for (size_t i = 0; i < 9; i++)
		ASSERT_OK(skitx_buf_putc(
		        &out, (char)(((v >> (7 * i)) & 0x7f) | 0x80)));
	ASSERT_OK(skitx_buf_putc(&out, (char)(((v >> 63) & 1) | 0x02)));
	ASSERT_OK(skitx_buf_add(&out, buf.ptr + at_rec + n,
	                        buf.len - at_rec - n));
	reseal(&out);
	write_bytes(file, out.ptr, out.len, 0600);
	scan_ignores(ref);
	/* without bit 64 the same ten bytes are the number: taken, a hit */
	out.ptr[at_rec + 9] &= 0x01;
	reseal(&out);
	write_bytes(file, out.ptr, out.len, 0600);
	assert_planted_taken();

	free(file);
	skitx_buf_release(&buf);
	skitx_buf_release(&out);
	skit_registry_free(ref);
}

/* ---- to-prompt's items ------------------------------------------------ */

/* skit_registry_prompt_items() over `n` folders of base/p, no asserts. */
static int prompt_items(skit_prompt_item **out, skit_registry *reg,
                        const char *const *rels, size_t n, skit_error *err)
{
	char **dirs = calloc(n, sizeof(*dirs));
	int error;

	ASSERT(dirs);
	for (size_t i = 0; i < n; i++)
		dirs[i] = strdup(at(rels[i]));
	error = skit_registry_prompt_items(out, reg, (const char *const *)dirs,
	                                   n, err);
	for (size_t i = 0; i < n; i++)
		free(dirs[i]);
	free(dirs);
	return error;
}

static void assert_same_items(const skit_prompt_item *a,
                              const skit_prompt_item *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ASSERT_STR(a[i].name, b[i].name);
		ASSERT_STR(a[i].description, b[i].description);
		ASSERT_STR(a[i].location, b[i].location);
	}
}

/* Plant `len` bytes as the cache of base/p and load the items. */
static void prompt_planted(const skit_prompt_item *ref, const char *file,
                           const char *const *rels, size_t n, const void *data,
                           size_t len, bool same)
{
	skit_prompt_item *got = NULL;
	skit_registry *reg = reg_new();

	write_bytes(file, data, len, 0600);
	skit__registry_set_threads(reg, 2);
	ASSERT_OK(prompt_items(&got, reg, rels, n, NULL));
	if (same)
		assert_same_items(ref, got, n);
	skit_registry_prompt_items_free(got, n);
	skit_registry_free(reg);
}

static void prompt_items_damaged(const skit_prompt_item *ref,
                                 const char *const *rels, size_t n)
{
	struct skitx_buf buf = SKITX_BUF_INIT;
	char *file = cache_file("p"), *copy;
	size_t len, step;
	uint64_t sum;

	ASSERT_OK(skitx_fs_read_file(file, &buf, 1 << 24));
	len = buf.len;
	copy = malloc(len);
	ASSERT(copy);
	prompt_planted(ref, file, rels, n, buf.ptr, len / 2, true);
	prompt_planted(ref, file, rels, n, buf.ptr, len - 1, true);
	step = len / 60 ? len / 60 : 1;
	for (size_t pos = 0; pos < len; pos += step) {
		memcpy(copy, buf.ptr, len);
		copy[pos] ^= 0x5a;
		prompt_planted(ref, file, rels, n, copy, len, true);
		sum = skit__cache_checksum(copy + SKIT__CACHE_HEADER_SIZE,
		                           len - SKIT__CACHE_HEADER_SIZE);
		memcpy(copy + SKIT__CACHE_CHECKSUM_AT, &sum, 8);
		prompt_planted(ref, file, rels, n, copy, len, false);
	}
	free(copy);
	free(file);
	skitx_buf_release(&buf);
}

/*
 * The items are those of a plain load with the cache off, cold, warm
 * (after a scan of the parent wrote it), on one thread and several; a
 * warm run takes every active skill from the cache, and a SKILL.md edited
 * since (same size) is loaded again. A failing folder is reported as the
 * plain load reports it, the first one in order.
 */
static void test_registry__prompt_items_cache(void)
{
	static const char *const rels[] = {
		"p/plain",   "p/wide",   "p/extra", "p/mismatch",
		"p/unicode", "p/linked", "p/plain", "p/hint",
	};
	size_t n = SKIT_ARRAY_SIZE(rels);
	skit_prompt_item *ref = NULL, *got = NULL;
	skit_registry *reg;
	skit_error err = { 0 }, err2 = { 0 };
	const char *bad[] = { "p/plain", "p/nodesc", "p/missing" };
	char *home;

	fresh("prompt-items");
	skill("p", "plain", NULL, "A plain skill.");
	/* fullwidth: NFKC is "wide", so the raw name differs (printed raw) */
	skill("p", "wide", "\xef\xbd\x97\xef\xbd\x89\xef\xbd\x84\xef\xbd\x85",
	      "Fullwidth name.");
	write_file(at("p/extra/SKILL.md"),
	           "---\nname: extra\ndescription: Unknown field.\n"
	           "colour: blue\n---\n");
	/* name vs folder: loaded as `mismatch`, printed as written */
	skill("p", "mismatch", "other", "Mismatched.");
	skill("p", "unicode", NULL, "Caf\xc3\xa9 <&> \"quoted\" \xe2\x80\x8b.");
	skill("elsewhere", "linked", NULL, "Behind a link.");
	ASSERT_OK(symlink(at("elsewhere/linked"), at("p/linked")));
	write_file(at("p/hint/SKILL.md"),
	           "---\nname: hint\ndescription: |\n  Two\n  lines.\n"
	           "when_to_use: Now.\nargument-hint: <x>\n---\n");
	write_file(at("p/nodesc/SKILL.md"), "---\nname: nodesc\n---\n");
	backdate("p");
	backdate("elsewhere");
	home = skit__cache_home();
	ASSERT(home);

	reg = reg_new();
	skit__registry_set_no_cache(reg, true);
	ASSERT_OK(prompt_items(&ref, reg, rels, n, NULL));
	ASSERT_STR(ref[1].name, "\xef\xbd\x97\xef\xbd\x89\xef\xbd\x84"
	                        "\xef\xbd\x85");
	ASSERT_STR(ref[3].name, "other");
	skit_registry_free(reg);

	for (size_t threads = 1; threads <= 3; threads++) {
		/* cold: no cache file yet */
		rm_at(AT_FDCWD, home);
		reg = reg_new();
		skit__registry_set_threads(reg, threads);
		ASSERT_OK(prompt_items(&got, reg, rels, n, NULL));
		ASSERT_EQ(reg->cache_stats.hits, 0);
		assert_same_items(ref, got, n);
		skit_registry_prompt_items_free(got, n);
		/* all of p was given: it scanned p, which wrote p's cache */
		ASSERT_EQ(reg->cache_stats.written, 1);

		/* warm: every skill from the cache */
		ASSERT_OK(prompt_items(&got, reg, rels, n, NULL));
		ASSERT_EQ(reg->cache_stats.hits, n);
		ASSERT_EQ(reg->cache_stats.written, 0);
		assert_same_items(ref, got, n);
		skit_registry_prompt_items_free(got, n);
		/* the same cache a scan of p writes: nothing to rewrite */
		add_root(reg, "project", "p");
		scan(reg);
		ASSERT_EQ(reg->cache_stats.written, 0);
		ASSERT_EQ(reg->cache_stats.hits, 8); /* nodesc too: skipped */
		skit_registry_free(reg);
	}

	/*
	 * A damaged cache (truncated, flipped) gives the plain result; one
	 * forged with a good checksum is checked field by field (ASan
	 * watches); all folders were given, so the parent is listed.
	 */
	prompt_items_damaged(ref, rels, n);
	rm_at(AT_FDCWD, home);

	/* one folder of eight: p is not scanned for it, no cache written */
	reg = reg_new();
	ASSERT_OK(prompt_items(&got, reg, rels, 1, NULL));
	assert_same_items(ref, got, 1);
	skit_registry_prompt_items_free(got, 1);
	ASSERT_EQ(reg->cache_stats.written, 0);
	ASSERT(access(home, F_OK) < 0);
	skit_registry_free(reg);

	reg = reg_new();
	add_root(reg, "project", "p");
	scan(reg);
	skit_registry_free(reg);

	/* an edit after a warm run: same size, new mtime; loaded again */
	skill("p", "plain", NULL, "A PLAIN skill.");
	set_mtime("p/plain/SKILL.md", 1000000100);
	reg = reg_new();
	ASSERT_OK(prompt_items(&got, reg, rels, n, NULL));
	ASSERT_EQ(reg->cache_stats.hits, n - 2); /* `plain` twice */
	ASSERT_STR(got[0].description, "A PLAIN skill.");
	ASSERT_STR(got[6].description, "A PLAIN skill.");
	skit_registry_prompt_items_free(got, n);

	/* the first failure in order, with the plain load's message */
	ASSERT_EQ(prompt_items(&got, reg, bad, 3, &err), SKIT_EINVALID);
	ASSERT(!got);
	ASSERT_STR(err.message,
	           "Missing required field in frontmatter: description");
	ASSERT_EQ(prompt_items(&got, reg, bad + 2, 1, &err2), SKIT_ENOTFOUND);
	ASSERT_CONTAINS(err2.message, "Path does not exist");
	skit_registry_free(reg);

	skit_registry_prompt_items_free(ref, n);
	skitx_free(home);
}

/* ---- default roots and config ---------------------------------------- */

static void test_registry__default_roots(void)
{
	skit_roots_options opts = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg;
	const char *src, *path;
	char expect[PATH_MAX], cwd[PATH_MAX], home[PATH_MAX], sk[PATH_MAX];

	fresh("defaults");
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/.git"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/src/deep"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("home/.agents/skills"), 0755));
	skill("proj/.claude/skills", "claude", NULL, "Interop.");
	skill("home/.agents/skills", "mine", NULL, "User skill.");
	snprintf(cwd, sizeof(cwd), "%s", at("proj/src/deep"));
	snprintf(home, sizeof(home), "%s", at("home"));
	opts.cwd = cwd;
	opts.home = home;
	opts.no_config = true;
	setenv("SKIT_HOME", "", 1);
	reg = reg_new();
	ASSERT_OK(skit_registry_add_default_roots(reg, &opts, NULL));
	ASSERT_STR(skit_registry_project_dir(reg), at("proj"));
	ASSERT_EQ(skit_registry_root_count(reg), 9);
	skit_registry_root(reg, 0, &src, &path, NULL, NULL);
	ASSERT_STR(src, "project:agents");
	ASSERT_STR(path, at("proj/.agents/skills"));
	skit_registry_root(reg, 1, &src, &path, NULL, NULL);
	ASSERT_STR(src, "project:agent");
	ASSERT_STR(path, at("proj/.agent/skills"));
	skit_registry_root(reg, 2, &src, &path, NULL, NULL);
	ASSERT_STR(src, "project:claude");
	ASSERT_STR(path, at("proj/.claude/skills"));
	skit_registry_root(reg, 3, &src, &path, NULL, NULL);
	ASSERT_STR(src, "project:codex");
	ASSERT_STR(path, at("proj/.codex/skills"));
	skit_registry_root(reg, 4, &src, &path, NULL, NULL);
	ASSERT_STR(src, "user:agents");
	ASSERT_STR(path, at("home/.agents/skills"));
	skit_registry_root(reg, 5, &src, &path, NULL, NULL);
	ASSERT_STR(src, "user:agent");
	ASSERT_STR(path, at("home/.agent/skills"));
	skit_registry_root(reg, 6, &src, &path, NULL, NULL);
	ASSERT_STR(src, "user:claude");
	ASSERT_STR(path, at("home/.claude/skills"));
	skit_registry_root(reg, 7, &src, &path, NULL, NULL);
	ASSERT_STR(src, "user:codex");
	ASSERT_STR(path, at("home/.codex/skills"));
	skit_registry_root(reg, 8, &src, &path, NULL, NULL);
	ASSERT_STR(src, "builtin");
	/* The data folder found relative to the library (the build tree's
	 * share/skit here), else the configured prefix's. */
	snprintf(expect, sizeof(expect), "%s/skills", skit__data_dir());
	ASSERT_STR(path, expect);
	scan(reg);
	ASSERT(skit_registry_find(reg, "claude", "project"));
	ASSERT(skit_registry_find(reg, "claude", "project:claude"));
	ASSERT(!skit_registry_find(reg, "claude", "project:agents"));
	ASSERT(skit_registry_find(reg, "mine", "user"));
	ASSERT(skit_registry_find(reg, "mine", "user:agents"));
	ASSERT(!skit_registry_find(reg, "mine", "use"));
	skit_registry_free(reg);

	/* SKIT_HOME moves the user root; home itself is never a project */
	opts.cwd = home;
	snprintf(sk, sizeof(sk), "%s", at("sk"));
	opts.skit_home = sk;
	reg = reg_new();
	ASSERT_OK(skit_registry_add_default_roots(reg, &opts, NULL));
	ASSERT(!skit_registry_project_dir(reg) ||
	       strcmp(skit_registry_project_dir(reg), home));
	for (size_t i = 0; i < skit_registry_root_count(reg); i++) {
		skit_registry_root(reg, i, &src, &path, NULL, NULL);
		if (!strcmp(src, "user:agents"))
			ASSERT_STR(path, at("sk/skills"));
	}
	skit_registry_free(reg);
}

static void test_registry__config_files(void)
{
	skit_roots_options opts = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg;
	skit_error err = { 0 };
	const char *src, *path;
	char cwd[PATH_MAX], home[PATH_MAX];
	size_t n, k;

	fresh("config");
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/.agents"), 0755));
	write_file(at("proj/.agents/skit.json"),
	           "{\"roots\": {\"project\": [\"skills-here\", \"/abs/p\"],"
	           " \"user\": [\"/evil\"]}, \"other\": 1}\n");
	write_file(at("xdg/skit/config.json"),
	           "{\"roots\": {\"user\": [\"~/mine\", \"rel\"],"
	           " \"builtin\": []}}\n");
	setenv("XDG_CONFIG_HOME", at("xdg"), 1);
	/* at() rotates its buffers: keep these two */
	snprintf(cwd, sizeof(cwd), "%s", at("proj"));
	snprintf(home, sizeof(home), "%s", at("home"));
	opts.cwd = cwd;
	opts.home = home;
	reg = reg_new();
	ASSERT_OK(skit_registry_add_default_roots(reg, &opts, &err));
	ASSERT_EQ(skit_registry_root_count(reg), 4);
	skit_registry_root(reg, 0, &src, &path, NULL, NULL);
	ASSERT_STR(path, at("proj/skills-here"));
	skit_registry_root(reg, 1, &src, &path, NULL, NULL);
	ASSERT_STR(path, "/abs/p");
	skit_registry_root(reg, 2, &src, &path, NULL, NULL);
	ASSERT_STR(src, "user");
	ASSERT_STR(path, at("home/mine")); /* not /evil */
	skit_registry_root(reg, 3, &src, &path, NULL, NULL);
	ASSERT_STR(path, at("xdg/skit/rel"));
	skit_registry_diags(reg, &n);
	ASSERT_EQ(n, 1);
	ASSERT_STR(skit_registry_diags(reg, &n)[0].code, "config-ignored");
	scan(reg); /* config findings survive the scan */
	ASSERT(diag(reg, "config-ignored", "skit.json"));
	skit_registry_free(reg);

	/* --config overrides; --no-config drops project and user files */
	write_file(at("extra.json"), "{\"roots\": {\"builtin\": [\"/b\"]}}");
	opts.config_file = at("extra.json");
	opts.no_config = true;
	reg = reg_new();
	ASSERT_OK(skit_registry_add_default_roots(reg, &opts, &err));
	k = skit_registry_root_count(reg);
	skit_registry_root(reg, k - 1, &src, &path, NULL, NULL);
	ASSERT_STR(src, "builtin");
	ASSERT_STR(path, "/b");
	skit_registry_root(reg, k - 5, &src, &path, NULL, NULL);
	ASSERT_STR(path, at("home/.agents/skills")); /* the default */
	skit_registry_root(reg, k - 3, &src, &path, NULL, NULL);
	ASSERT_STR(path, at("home/.claude/skills"));
	skit_registry_root(reg, k - 2, &src, &path, NULL, NULL);
	ASSERT_STR(path, at("home/.codex/skills"));
	skit_registry_free(reg);

	/* malformed: one line naming the file */
	write_file(at("bad.json"), "{\"roots\": {\"project\": [1]}}");
	opts.config_file = at("bad.json");
	reg = reg_new();
	ASSERT_EQ(skit_registry_add_default_roots(reg, &opts, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "bad.json");
	ASSERT(!strchr(err.message, '\n'));
	write_file(at("bad.json"), "{\"roots\": ");
	ASSERT_EQ(skit_registry_add_default_roots(reg, &opts, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "bad.json:1:");
	write_file(at("bad.json"), "{\"roots\": {\"usr\": []}}");
	ASSERT_EQ(skit_registry_add_default_roots(reg, &opts, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "roots.usr");
	opts.config_file = at("none.json");
	ASSERT_EQ(skit_registry_add_default_roots(reg, &opts, &err),
	          SKIT_ENOTFOUND);
	skit_registry_free(reg);

	/* a malformed project config is an error too */
	write_file(at("proj/.agents/skit.json"), "[]");
	opts.config_file = NULL;
	opts.no_config = false;
	reg = reg_new();
	ASSERT_EQ(skit_registry_add_default_roots(reg, &opts, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "skit.json");
	skit_registry_free(reg);
	unsetenv("XDG_CONFIG_HOME");
}

/* ---- search ------------------------------------------------------------ */

static void test_registry__search(void)
{
	skit_search_hit hits[8];
	skit_registry *reg;
	size_t n;

	fresh("search");
	skill("r", "pdf-tools", NULL, "Extract text and tables from files.");
	skill("r", "csv-tools", NULL, "Clean CSV files; also reads PDF.");
	skill("r", "weather", NULL, "Forecasts for a city.");
	skill("r", "same-a", NULL, "Identical words here.");
	skill("r", "same-b", NULL, "Identical words here.");
	write_file(at("r/bodyonly/SKILL.md"),
	           "---\nname: bodyonly\ndescription: Nothing to see.\n---\n"
	           "The zanzibar keyword lives only in this body.\n");
	reg = reg_new();
	add_root(reg, "r", "r");
	scan(reg);

	ASSERT_OK(skit_registry_search(reg, "pdf", 0, hits, 8, &n, NULL));
	ASSERT_EQ(n, 2);
	ASSERT_STR(hits[0].entry->name, "pdf-tools"); /* name counts more */
	ASSERT(hits[0].score > hits[1].score && hits[1].score > 0);

	ASSERT_OK(skit_registry_search(reg, "PDF-Tools", 0, hits, 8, &n, NULL));
	ASSERT_STR(hits[0].entry->name, "pdf-tools");
	ASSERT_OK(
	        skit_registry_search(reg, "tools tools", 0, hits, 1, &n, NULL));
	ASSERT_EQ(n, 1); /* k bounds the results */

	/* equal scores keep index order */
	ASSERT_OK(skit_registry_search(reg, "identical", 0, hits, 8, &n, NULL));
	ASSERT_EQ(n, 2);
	ASSERT_STR(hits[0].entry->name, "same-a");
	ASSERT_STR(hits[1].entry->name, "same-b");
	ASSERT(hits[0].score == hits[1].score);

	ASSERT_OK(skit_registry_search(reg, "zanzibar", 0, hits, 8, &n, NULL));
	ASSERT_EQ(n, 0);
	ASSERT_OK(skit_registry_search(reg, "zanzibar", SKIT_SEARCH_BODY, hits,
	                               8, &n, NULL));
	ASSERT_EQ(n, 1);
	ASSERT_STR(hits[0].entry->name, "bodyonly");
	ASSERT_OK(skit_registry_search(reg, "--- !!", 0, hits, 8, &n, NULL));
	ASSERT_EQ(n, 0);

	/* a rescan drops the old search index with the old entries */
	skill("r", "zanzibar", NULL, "Now in a name.");
	scan(reg);
	ASSERT_OK(skit_registry_search(reg, "zanzibar", 0, hits, 8, &n, NULL));
	ASSERT_EQ(n, 1);
	ASSERT_STR(hits[0].entry->name, "zanzibar");
	skit_registry_free(reg);
}

/* Search before any scan, and an empty registry. */
static void test_registry__empty(void)
{
	skit_search_hit hits[2];
	skit_registry *reg = reg_new();
	size_t n = 99;

	ASSERT_EQ(skit_registry_count(reg), 0);
	ASSERT(!skit_registry_find(reg, "x", NULL));
	ASSERT_OK(skit_registry_search(reg, "x", 0, hits, 2, &n, NULL));
	ASSERT_EQ(n, 0);
	scan(reg);
	ASSERT_EQ(skit_registry_all_count(reg), 0);
	ASSERT_OK(skit_registry_search(reg, "x", 0, hits, 2, &n, NULL));
	ASSERT_EQ(n, 0);
	ASSERT_EQ(skit_registry_add_root(reg, "", "/x", NULL), SKIT_EINVALID);
	skit_registry_free(reg);
	skit_registry_free(NULL);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_registry__precedence_and_shadowing)
	TEST(test_registry__entry_fields)
	TEST(test_registry__skipped_do_not_shadow)
	TEST(test_registry__known_names)
	TEST(test_registry__symlink_loops)
	TEST(test_registry__dangling_symlink)
	TEST(test_registry__unreadable_folder)
	TEST(test_registry__fifo_skill_md)
	TEST(test_registry__skill_md_symlink)
	TEST(test_registry__huge_sparse_file)
	TEST(test_registry__case_collision)
	TEST(test_registry__nfkc_collision)
	TEST(test_registry__nested_skills)
	TEST(test_registry__lowercase_skill_md)
	TEST(test_registry__dot_folders)
	TEST(test_registry__root_symlink)
	TEST(test_registry__symlinked_folders)
	TEST(test_registry__folder_cap)
	TEST(test_registry__name_too_long)
	TEST(test_registry__removed_mid_scan)
	TEST(test_registry__rescan_keeps_old_index)
	TEST(test_registry__parallel_same_as_sequential)
	TEST(test_registry__diags_unread_same_entries)
	TEST(test_registry__parallel_out_of_memory)
	TEST(test_registry__cache_same_as_uncached)
	TEST(test_registry__cache_hostile)
	TEST(test_registry__cache_hostile_records)
	TEST(test_registry__cache_other_build)
	TEST(test_registry__prompt_items_cache)
	TEST(test_registry__default_roots)
	TEST(test_registry__config_files)
	TEST(test_registry__search)
	TEST(test_registry__empty))
/* clang-format on */
