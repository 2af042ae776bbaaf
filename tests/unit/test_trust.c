/* SPDX-License-Identifier: MIT */
/*
 * test_trust.c - the user config's trusted folders and saved approvals
 * (src/lib/registry/trust.c): what a trusted folder covers, what cannot be
 * trusted, a hostile or malformed config, the digest set of a skill, and
 * the registry leaving an untrusted project's skills out.
 */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/policy.h"
#include "skit/registry.h"
#include "lib/agent/approvals.h"
#include "util/buf.h"
#include "util/fs.h"

static char top[1024];

static const char *at(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	if (snprintf(buf[k], sizeof(buf[k]), "%s/%s", top, rel) >=
	    (int)sizeof(buf[k]))
		HARNESS_FAIL("path too long: %s", rel);
	return buf[k];
}

static void put(const char *rel, const char *text)
{
	FILE *f;
	char *dir = skitx_strdup(at(rel)), *slash = strrchr(dir, '/');

	*slash = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	skitx_free(dir);
	f = fopen(at(rel), "w");
	ASSERT(f);
	fputs(text, f);
	fclose(f);
}

/* A fresh scratch folder with its own HOME and XDG_CONFIG_HOME. */
static void fresh(const char *name)
{
	const char *base = getenv("SKIT_TEST_DIR");
	char cmd[2200];

	ASSERT(base);
	snprintf(top, sizeof(top), "%s/%s", base, name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ASSERT_OK(system(cmd));
	ASSERT_OK(skitx_fs_mkdir_p(at("home"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("xdg"), 0755));
	setenv("HOME", at("home"), 1);
	setenv("XDG_CONFIG_HOME", at("xdg"), 1);
}

static bool trusted(const char *dir)
{
	bool t = true;

	ASSERT_OK(skit_trust_check(&t, dir, NULL));
	return t;
}

static void test_trust__covers_subfolders_only(void)
{
	skit_error err = { 0 };
	char **v = NULL;
	size_t n = 0;

	fresh("covers");
	ASSERT_OK(skitx_fs_mkdir_p(at("src/app/deep"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("src/apple"), 0755));
	ASSERT(!trusted(at("src/app")));
	ASSERT_OK(skit_trust_add(at("src/app"), &err));
	ASSERT(trusted(at("src/app")));
	ASSERT(trusted(at("src/app/deep")));
	ASSERT(!trusted(at("src/apple"))); /* whole components */
	ASSERT(!trusted(at("src")));
	/* a second spelling is the same folder, and adds nothing */
	ASSERT_OK(skit_trust_add(at("src/app/deep/.."), &err));
	ASSERT_OK(skit_trust_list(&v, &n, &err));
	ASSERT_EQ(n, 1);
	skit_strings_free(v, n);
	/* through a link: the folder it leads to */
	ASSERT_OK(symlink(at("src/app"), at("link")));
	ASSERT(trusted(at("link")));
	ASSERT_OK(skit_trust_remove(at("src/app"), &err));
	ASSERT(!trusted(at("src/app/deep")));
	ASSERT_EQ(skit_trust_remove(at("src/app"), &err), SKIT_ENOTFOUND);
}

/*
 * Trust passes down to the projects beneath a trusted folder, but not
 * past a project (issue 28): a script of a trusted repository that
 * planted src/.agents/skills/helper does not get it loaded as trusted by
 * a later `cd src && skit run`.
 */
static void test_trust__not_past_a_project(void)
{
	skit_error err = { 0 };

	fresh("nested");
	ASSERT_OK(skitx_fs_mkdir_p(at("src/app/.git"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("src/app/src/.agents/skills/helper"),
	                           0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("src/app/docs/deep"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("src/lib/.claude"), 0755));
	ASSERT_OK(skit_trust_add(at("src"), &err));
	/* A plain folder of repositories passes trust to them... */
	ASSERT(trusted(at("src/app")));
	ASSERT(trusted(at("src/lib")));
	/* ...and a project to its plain folders... */
	ASSERT(trusted(at("src/app/docs/deep")));
	/* ...but not to a project nested in it. */
	ASSERT(!trusted(at("src/app/src")));
	ASSERT_OK(skit_trust_add(at("src/app"), &err));
	ASSERT(!trusted(at("src/app/src")));
	/* Trusted by name, it is. */
	ASSERT_OK(skit_trust_add(at("src/app/src"), &err));
	ASSERT(trusted(at("src/app/src")));
	/* A .git file (a worktree, a submodule) marks a project too. */
	ASSERT_OK(skitx_fs_mkdir_p(at("w/sub/.agents"), 0755));
	put("w/.git", "gitdir: /elsewhere\n");
	ASSERT_OK(skit_trust_add(at("w"), &err));
	ASSERT(!trusted(at("w/sub")));
}

static void test_trust__refuses_everything_folders(void)
{
	skit_error err = { 0 };

	fresh("refuse");
	ASSERT_EQ(skit_trust_add("/", &err), SKIT_EUSAGE);
	ASSERT_EQ(skit_trust_add(at("home"), &err), SKIT_EUSAGE);
	ASSERT_CONTAINS(err.message, "the home folder");
	ASSERT_EQ(skit_trust_add("/etc", &err), SKIT_EUSAGE);
	ASSERT_EQ(skit_trust_add(at("missing"), &err), SKIT_ENOTFOUND);
	ASSERT(!skitx_fs_exists(at("xdg/skit/config.json")));
}

/* Entries that are not absolute strings trust nothing; a malformed
 * config is never overwritten. */
static void test_trust__hostile_config(void)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	skit_error err = { 0 };

	fresh("hostile");
	ASSERT_OK(skitx_fs_mkdir_p(at("p"), 0755));
	put("xdg/skit/config.json",
	    "{\"trusted\": [\"\", \"p\", 5, \".\", \"/\\u0000\"],"
	    " \"approvals\": 7}");
	ASSERT(!trusted(at("p")));
	ASSERT(!trusted("/"));
	ASSERT_EQ(skit__approval_save("s", at("p"), "x.sh", "00", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "\"approvals\" must be an array");
	put("xdg/skit/config.json", "{\"trusted\": [");
	ASSERT_EQ(skit_trust_add(at("p"), &err), SKIT_EINVALID);
	ASSERT_OK(skitx_fs_read_file(at("xdg/skit/config.json"), &b, 100));
	ASSERT_STR(skitx_buf_cstr(&b), "{\"trusted\": [");
	skitx_buf_release(&b);
}

static void test_trust__digest_set(void)
{
	char a[65], b[65];

	fresh("digest");
	put("s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
	put("s/scripts/x.sh", "echo 1\n");
	ASSERT_OK(skit__skill_digest_set(at("s"), a, NULL));
	ASSERT_EQ(strlen(a), 64);
	ASSERT_OK(skit__skill_digest_set(at("s"), b, NULL));
	ASSERT_STR(a, b);
	put("s/scripts/x.sh", "echo 2\n"); /* one byte */
	ASSERT_OK(skit__skill_digest_set(at("s"), b, NULL));
	ASSERT(strcmp(a, b));
	put("s/scripts/x.sh", "echo 1\n");
	ASSERT_OK(skit__skill_digest_set(at("s"), b, NULL));
	ASSERT_STR(a, b);
	ASSERT_OK(chmod(at("s/scripts/x.sh"), 0755)); /* the exec bit */
	ASSERT_OK(skit__skill_digest_set(at("s"), b, NULL));
	ASSERT(strcmp(a, b));
	ASSERT_OK(chmod(at("s/scripts/x.sh"), 0644));
	ASSERT_OK(symlink("x.sh", at("s/scripts/y.sh"))); /* a link */
	ASSERT_OK(skit__skill_digest_set(at("s"), b, NULL));
	ASSERT(strcmp(a, b));
}

/*
 * Security issue 28: a link inside the skill counted only as "a link at
 * this path", so editing what it leads to (scripts/impl ->
 * ../../tools/impl.sh) kept the digest set, and the saved approval ran
 * the new code. The set now covers where each link leads: the target's
 * text, and the bytes of a file it reaches wherever that file is; a link
 * to a folder outside the skill has no digest set at all.
 */
static void test_trust__digest_set_follows_links(void)
{
	skit_error err = { 0 };
	char a[65], b[65];

	fresh("digest-links");
	put("p/skills/s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
	put("p/skills/s/scripts/run.sh", "exec ./scripts/impl\n");
	put("p/tools/impl.sh", "echo old\n");
	put("p/tools/other.sh", "echo old\n");
	ASSERT_OK(symlink("../../../tools/impl.sh",
	                  at("p/skills/s/scripts/impl")));
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), a, NULL));
	ASSERT_EQ(strlen(a), 64);
	/* the file the link leads to, outside the skill, changes */
	put("p/tools/impl.sh", "echo new\n");
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), b, NULL));
	ASSERT(strcmp(a, b));
	put("p/tools/impl.sh", "echo old\n");
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), b, NULL));
	ASSERT_STR(a, b);
	ASSERT_OK(chmod(at("p/tools/impl.sh"), 0755)); /* its exec bit */
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), b, NULL));
	ASSERT(strcmp(a, b));
	ASSERT_OK(chmod(at("p/tools/impl.sh"), 0644));
	/* the link is pointed elsewhere, at a file with the same bytes */
	ASSERT_OK(unlink(at("p/skills/s/scripts/impl")));
	ASSERT_OK(symlink("../../../tools/other.sh",
	                  at("p/skills/s/scripts/impl")));
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), b, NULL));
	ASSERT(strcmp(a, b));
	/* a link leading nowhere, then to a file created later */
	ASSERT_OK(unlink(at("p/skills/s/scripts/impl")));
	ASSERT_OK(symlink("../../../tools/later.sh",
	                  at("p/skills/s/scripts/impl")));
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), a, NULL));
	put("p/tools/later.sh", "echo later\n");
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), b, NULL));
	ASSERT(strcmp(a, b));
	/* a link to a folder outside the skill: no digest set */
	ASSERT_OK(unlink(at("p/skills/s/scripts/impl")));
	ASSERT_OK(symlink("../../../tools", at("p/skills/s/scripts/lib")));
	ASSERT_EQ(skit__skill_digest_set(at("p/skills/s"), a, &err),
	          SKIT_EUNSAFE);
	ASSERT_CONTAINS(err.message, "scripts/lib");
	ASSERT_STR(a, "");
	/* one inside the skill is fine: what it holds is walked anyway */
	ASSERT_OK(unlink(at("p/skills/s/scripts/lib")));
	ASSERT_OK(symlink("..", at("p/skills/s/scripts/up")));
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), a, NULL));
	/* a saved approval stops matching when the linked file changes */
	ASSERT_OK(unlink(at("p/skills/s/scripts/up")));
	ASSERT_OK(symlink("../../../tools/impl.sh",
	                  at("p/skills/s/scripts/impl")));
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), a, NULL));
	ASSERT_OK(skit__approval_save("s", at("p/skills/s"), "scripts/run.sh",
	                              a, &err));
	put("p/tools/impl.sh", "echo evil\n");
	ASSERT_OK(skit__skill_digest_set(at("p/skills/s"), b, NULL));
	ASSERT(!skit__approval_saved(at("p/skills/s"), "scripts/run.sh", b));
}

static void test_trust__saved_approvals(void)
{
	skit_saved_approval *v = NULL;
	skit_error err = { 0 };
	char d[65];
	size_t n = 0, removed = 0;

	fresh("approvals");
	put("s/SKILL.md", "---\nname: s\ndescription: d\n---\n");
	put("s/x.sh", "echo 1\n");
	put("xdg/skit/config.json", "{\"model\": \"keep-me\"}\n");
	ASSERT_OK(skit__skill_digest_set(at("s"), d, NULL));
	ASSERT(!skit__approval_saved(at("s"), "x.sh", d));
	ASSERT_OK(skit__approval_save("s", at("s"), "x.sh", d, &err));
	ASSERT(skit__approval_saved(at("s"), "x.sh", d));
	ASSERT(!skit__approval_saved(at("s"), "y.sh", d));
	/* renewed: replaced, not added */
	ASSERT_OK(skit__approval_save("s", at("s"), "x.sh", d, &err));
	ASSERT_OK(skit_saved_approvals_list(&v, &n, &err));
	ASSERT_EQ(n, 1);
	ASSERT(v[0].current);
	ASSERT_STR(v[0].script, "x.sh");
	ASSERT_EQ(strlen(v[0].id), 12);
	skit_saved_approvals_free(v, n);
	put("s/x.sh", "echo 2\n");
	ASSERT_OK(skit_saved_approvals_list(&v, &n, &err));
	ASSERT(!v[0].current);
	ASSERT_EQ(skit_saved_approvals_revoke("nope", &removed, &err),
	          SKIT_ENOTFOUND);
	ASSERT_OK(skit_saved_approvals_revoke(v[0].id, &removed, &err));
	ASSERT_EQ(removed, 1);
	skit_saved_approvals_free(v, n);
	ASSERT_OK(skit_saved_approvals_list(&v, &n, &err));
	ASSERT_EQ(n, 0);
	skit_saved_approvals_free(v, n);
	{
		struct skitx_buf b = SKITX_BUF_INIT;

		ASSERT_OK(skitx_fs_read_file(at("xdg/skit/config.json"), &b,
		                             4096));
		ASSERT_CONTAINS(skitx_buf_cstr(&b), "\"model\": \"keep-me\"");
		skitx_buf_release(&b);
	}
}

static size_t count_named(const skit_registry *reg, const char *name)
{
	size_t k = 0;

	for (size_t i = 0; i < skit_registry_all_count(reg); i++)
		if (!strcmp(skit_registry_all_entry(reg, i)->name, name))
			k++;
	return k;
}

static void test_trust__registry_honours_trust(void)
{
	skit_roots_options o = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_error err = { 0 };

	fresh("registry");
	ASSERT_OK(skitx_fs_mkdir_p(at("p/.git"), 0755));
	put("p/.agents/skills/ps/SKILL.md",
	    "---\nname: ps\ndescription: Project skill.\n---\n");
	o.cwd = at("p");
	o.honour_trust = true;
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_default_roots(reg, &o, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT(!skit_registry_project_trusted(reg));
	ASSERT(skit_registry_project_held_back(reg));
	ASSERT_EQ(count_named(reg, "ps"), 0);
	skit_registry_free(reg);

	/* without honour_trust: read, and known to be untrusted */
	o.honour_trust = false;
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_default_roots(reg, &o, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT(!skit_registry_project_trusted(reg));
	ASSERT(!skit_registry_project_held_back(reg));
	ASSERT_EQ(count_named(reg, "ps"), 1);
	skit_registry_free(reg);

	ASSERT_OK(skit_trust_add(at("p"), &err));
	o.honour_trust = true;
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_default_roots(reg, &o, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT(skit_registry_project_trusted(reg));
	ASSERT(!skit_registry_project_held_back(reg));
	ASSERT_EQ(count_named(reg, "ps"), 1);
	skit_registry_free(reg);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_trust__covers_subfolders_only)
	TEST(test_trust__not_past_a_project)
	TEST(test_trust__refuses_everything_folders)
	TEST(test_trust__hostile_config)
	TEST(test_trust__digest_set)
	TEST(test_trust__digest_set_follows_links)
	TEST(test_trust__saved_approvals)
	TEST(test_trust__registry_honours_trust))
/* clang-format on */
