/* SPDX-License-Identifier: MIT */
/*
 * test_protect.c - the protected paths of a run (src/lib/agent/protect.c): the
 * list the sandbox is given, the check by name, and the check by
 * identity that a second spelling of a protected folder cannot pass.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/agent.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "lib/agent/protect.h"
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

static bool listed(const struct skitx_vec *v, const char *path)
{
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->items[i], path))
			return true;
	return false;
}

struct fx {
	skit_registry *reg;
	skit_model *model;
	skit_agent *agent;
};

static void fx_open(struct fx *f)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char spec[PATH_MAX + 16];
	FILE *c;

	memset(f, 0, sizeof(*f));
	c = fopen(at("cassette.jsonl"), "w");
	ASSERT(c);
	fputs("{\"text\": \"DONE\"}\n", c);
	ASSERT_OK(fclose(c));
	ASSERT_OK(skit_registry_new(&f->reg, &err));
	ASSERT_OK(
	        skit_registry_add_root(f->reg, "user", at("userskills"), &err));
	ASSERT_OK(skit_registry_scan(f->reg, &err));
	snprintf(spec, sizeof(spec), "replay:%s", at("cassette.jsonl"));
	mo.spec = spec;
	ASSERT_OK(skit_model_new(&f->model, &mo, &err));
	ao.registry = f->reg;
	ao.model = f->model;
	ao.project_dir = at("proj");
	ao.runs_dir = at("trail");
	ao.workdir = at("work");
	if (skit_agent_new(&f->agent, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
}

static void fx_close(struct fx *f)
{
	ASSERT_OK(skit_agent_finish(f->agent, "ok", 0, NULL));
	skit_model_free(f->model);
	skit_registry_free(f->reg);
}

static void setup(void)
{
	const char *base = getenv("SKIT_TEST_DIR");
	char cmd[1100];

	snprintf(top, sizeof(top), "%s/protect", base ? base : "/tmp");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/.git/hooks"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/src"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("home/.config"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("userskills"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("elsewhere/skills"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("work"), 0755));
	/* the project's skill root is a link to a folder elsewhere */
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/.claude"), 0755));
	ASSERT_OK(symlink(at("elsewhere/skills"), at("proj/.claude/skills")));
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	setenv("SKIT_HOME", at("skithome"), 1);
}

static void test_protect__the_list(void)
{
	struct skitx_vec v = SKITX_VEC_INIT;
	struct fx f;

	setup();
	fx_open(&f);
	ASSERT_OK(skit__protected_paths(&v, f.agent));
	ASSERT(listed(&v, at("proj/.git")));
	ASSERT(listed(&v, at("proj/.agents/skills")));
	ASSERT(listed(&v, at("proj/.agent/skills")));
	ASSERT(listed(&v, at("proj/.claude/skills")));
	ASSERT(listed(&v, at("elsewhere/skills"))); /* the link resolved */
	ASSERT(listed(&v, at("proj/.agents/skit.json")));
	ASSERT(listed(&v, at("proj/.agents/runs")));
	ASSERT(listed(&v, at("trail")));
	ASSERT(listed(&v, at("home/.config/skit")));
	ASSERT(listed(&v, at("home/.agents/skills")));
	ASSERT(listed(&v, at("skithome/skills")));
	ASSERT(listed(&v, at("userskills")));
	ASSERT(!listed(&v, at("proj")));
	ASSERT(!listed(&v, at("work")));
	for (size_t i = 0; i < v.len; i++)
		ASSERT(((const char *)v.items[i])[0] == '/');
	ASSERT_STR(skit__protected_match(&v, at("trail/x/events.jsonl")),
	           at("trail"));
	ASSERT(!skit__protected_match(&v, at("trailer")));
	skit__protected_paths_release(&v);
	fx_close(&f);
}

static void test_protect__by_name(void)
{
	char why[256];
	struct fx f;

	setup();
	fx_open(&f);
	ASSERT(skit__protect_check_rel(f.agent, ".git/hooks/pre-commit", why,
	                               sizeof(why)));
	ASSERT(skit__protect_check_rel(f.agent, "src/../.git/config", why,
	                               sizeof(why)));
	ASSERT(skit__protect_check_rel(f.agent, "vendor/x/.GIT/config", why,
	                               sizeof(why)));
	ASSERT(skit__protect_check_rel(f.agent, ".agents/skit.json", why,
	                               sizeof(why)));
	ASSERT_STR(why, at("proj/.agents/skit.json"));
	ASSERT(skit__protect_check_rel(f.agent, "./.agents//runs/x", why,
	                               sizeof(why)));
	ASSERT(skit__protect_check_rel(f.agent, ".claude/skills/a/SKILL.md",
	                               why, sizeof(why)));
	ASSERT(!skit__protect_check_rel(f.agent, "src/main.c", why,
	                                sizeof(why)));
	ASSERT(!skit__protect_check_rel(f.agent, ".agents/notes.md", why,
	                                sizeof(why)));
	ASSERT(!skit__protect_check_rel(f.agent, ".gitignore", why,
	                                sizeof(why)));
	fx_close(&f);
}

static void test_protect__by_identity(void)
{
	char why[256];
	struct fx f;
	int fd;

	setup();
	fx_open(&f);
	/* A second spelling of .git/hooks: what the name check cannot see. */
	ASSERT_OK(symlink(at("proj/.git"), at("proj/alias")));
	fd = open(at("proj/alias/hooks"), O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT(skit__protect_check_at(f.agent, fd, "pre-commit", why,
	                              sizeof(why)));
	ASSERT_STR(why, at("proj/.git"));
	close(fd);
	/* The config file by its folder and name, before it exists. */
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/.agents"), 0755));
	fd = open(at("proj/.agents"), O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT(skit__protect_check_at(f.agent, fd, "skit.json", why,
	                              sizeof(why)));
	ASSERT(!skit__protect_check_at(f.agent, fd, "notes.md", why,
	                               sizeof(why)));
	close(fd);
	/* An ordinary folder of the project. */
	fd = open(at("proj/src"), O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT(!skit__protect_check_at(f.agent, fd, "main.c", why,
	                               sizeof(why)));
	close(fd);
	/* The skill root reached through its link's target. */
	fd = open(at("elsewhere/skills"), O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT(skit__protect_check_at(f.agent, fd, "SKILL.md", why,
	                              sizeof(why)));
	close(fd);
	fx_close(&f);
}

/*
 * The user config (trusted folders, saved approvals): both of its
 * folders, and a linked config's target even inside the project, where
 * write_file could otherwise reach it (a dotfiles repository).
 */
static void test_protect__user_config(void)
{
	struct skitx_vec v = SKITX_VEC_INIT;
	char why[256];
	struct fx f;
	int fd;

	setup();
	ASSERT_OK(skitx_fs_mkdir_p(at("proj/dot"), 0755));
	ASSERT_OK(skitx_fs_mkdir_p(at("home/.config/skit"), 0755));
	ASSERT_OK(skitx_fs_write_atomic(at("proj/dot/skit.json"), "{}\n", 3,
	                                0600));
	ASSERT_OK(symlink(at("proj/dot/skit.json"),
	                  at("home/.config/skit/config.json")));
	fx_open(&f);
	ASSERT_OK(skit__protected_paths(&v, f.agent));
	ASSERT(listed(&v, at("home/.config/skit")));
	ASSERT(listed(&v, at("home/.config/skit/config.json")));
	ASSERT(listed(&v, at("proj/dot/skit.json"))); /* the link's target */
	ASSERT(!listed(&v, at("proj/dot")));
	skit__protected_paths_release(&v);
	/* write_file: by name, and by identity through the folder */
	ASSERT(skit__protect_check_rel(f.agent, "dot/skit.json", why,
	                               sizeof(why)));
	ASSERT_STR(why, at("proj/dot/skit.json"));
	ASSERT(!skit__protect_check_rel(f.agent, "dot/other.json", why,
	                                sizeof(why)));
	fd = open(at("proj/dot"), O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT(skit__protect_check_at(f.agent, fd, "skit.json", why,
	                              sizeof(why)));
	ASSERT(!skit__protect_check_at(f.agent, fd, "other.json", why,
	                               sizeof(why)));
	close(fd);
	/* with XDG_CONFIG_HOME, both folders (the other is read without) */
	setenv("XDG_CONFIG_HOME", at("xdg"), 1);
	ASSERT_OK(skit__protected_paths(&v, f.agent));
	ASSERT(listed(&v, at("xdg/skit")));
	ASSERT(listed(&v, at("xdg/skit/config.json")));
	ASSERT(listed(&v, at("home/.config/skit")));
	skit__protected_paths_release(&v);
	unsetenv("XDG_CONFIG_HOME");
	fx_close(&f);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_protect__the_list)
	TEST(test_protect__by_name)
	TEST(test_protect__by_identity)
	TEST(test_protect__user_config))
/* clang-format on */
