/* SPDX-License-Identifier: MIT */
/*
 * test_instructions.c - the project's instructions
 * (src/lib/agent/instructions.c): which AGENTS.md and CLAUDE.md files are
 * read and in what order, folder trust, the caps, links, the files that
 * are skipped and why, the user's own file, and their place in the
 * agent's system prompt, its trail and the host's layer.
 */
#include "common.h"

#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/skit.h"
#include "lib/agent/agent_int.h"
#include "lib/core/digest.h"
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

static void put_n(const char *rel, const char *text, size_t len)
{
	FILE *f;
	char *dir = skitx_strdup(at(rel)), *slash = strrchr(dir, '/');

	*slash = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	skitx_free(dir);
	f = fopen(at(rel), "w");
	ASSERT(f);
	ASSERT_EQ(fwrite(text, 1, len, f), len);
	fclose(f);
}

static void put(const char *rel, const char *text)
{
	put_n(rel, text, strlen(text));
}

/* `n` bytes of `c`, then `end` (a marker that a cut loses). */
static void put_big(const char *rel, size_t n, char c, const char *end)
{
	size_t e = strlen(end);
	char *b = skitx_malloc(n + e);

	ASSERT(b);
	memset(b, c, n);
	memcpy(b + n, end, e);
	put_n(rel, b, n + e);
	skitx_free(b);
}

/* A fresh scratch folder with its own HOME and XDG_CONFIG_HOME, and a
 * project `p` (a .git marker). */
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
	ASSERT_OK(skitx_fs_mkdir_p(at("p/.git"), 0755));
	setenv("HOME", at("home"), 1);
	setenv("XDG_CONFIG_HOME", at("xdg"), 1);
	unsetenv("SKIT_HOME");
}

static skit_instructions *load(const char *cwd)
{
	skit_instructions *in = NULL;
	skit_error err = { 0 };

	if (skit_instructions_load(&in, at("p"), at(cwd), &err))
		HARNESS_FAIL("load: %s", err.message);
	return in;
}

static const skit_instruction_file *file(skit_instructions *in, size_t i)
{
	ASSERT(i < skit_instructions_count(in));
	return skit_instructions_file(in, i);
}

/* `a` comes before `b` in `s`, both present. */
static void before(const char *s, const char *a, const char *b)
{
	const char *pa = strstr(s, a), *pb = strstr(s, b);

	if (!pa || !pb || pa >= pb)
		HARNESS_FAIL("'%s' does not come before '%s'", a, b);
}

static void test_instructions__order_and_fallback(void)
{
	skit_instructions *in;
	const char *t;
	char hex[65];

	fresh("order");
	put("p/AGENTS.md", "ROOT-AGENTS\n");
	put("p/CLAUDE.md", "ROOT-CLAUDE-UNUSED\n");
	put("p/a/CLAUDE.md", "A-CLAUDE\n");
	put("p/a/b/AGENTS.md", "B-AGENTS\n");
	put("home/.agents/AGENTS.md", "USER-AGENTS\n");
	put("home/.claude/CLAUDE.md", "USER-CLAUDE-UNUSED\n");
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	in = load("p/a/b");
	ASSERT_EQ(skit_instructions_count(in), 4);
	ASSERT_STR(file(in, 0)->label, "AGENTS.md");
	ASSERT_STR(file(in, 1)->label, "a/CLAUDE.md");
	ASSERT_STR(file(in, 2)->label, "a/b/AGENTS.md");
	ASSERT_STR(file(in, 3)->label, "~/.agents/AGENTS.md");
	ASSERT(!file(in, 0)->user && file(in, 3)->user);
	ASSERT_STR(file(in, 2)->path, at("p/a/b/AGENTS.md"));
	for (size_t i = 0; i < 4; i++)
		ASSERT(!file(in, i)->skipped);
	skit__sha256_hex("B-AGENTS\n", 9, hex);
	ASSERT_STR(file(in, 2)->sha256, hex);
	ASSERT_EQ(file(in, 2)->size, 9);
	ASSERT_EQ(file(in, 2)->shown, 9);
	t = skit_instructions_text(in);
	before(t, "<project_instructions>", "ROOT-AGENTS");
	before(t, "ROOT-AGENTS", "A-CLAUDE");
	before(t, "A-CLAUDE", "B-AGENTS");
	before(t, "B-AGENTS", "USER-AGENTS");
	before(t, "USER-AGENTS", "</project_instructions>");
	ASSERT_CONTAINS(t, "<instructions file=\"a/b/AGENTS.md\">");
	ASSERT_CONTAINS(t, "the later one wins");
	ASSERT(!strstr(t, "UNUSED"));
	skit_instructions_free(in);

	/* From the root itself: only its file, then the user's. */
	in = load("p");
	ASSERT_EQ(skit_instructions_count(in), 2);
	ASSERT_STR(file(in, 0)->label, "AGENTS.md");
	skit_instructions_free(in);

	/* A working folder outside the project: only the root's. */
	ASSERT_OK(skitx_fs_mkdir_p(at("elsewhere"), 0755));
	in = load("elsewhere");
	ASSERT_EQ(skit_instructions_count(in), 2);
	skit_instructions_free(in);

	/* Without ~/.agents/AGENTS.md: Claude Code's ~/.claude/CLAUDE.md. */
	ASSERT_OK(unlink(at("home/.agents/AGENTS.md")));
	in = load("p");
	ASSERT_EQ(skit_instructions_count(in), 2);
	ASSERT_STR(file(in, 1)->label, "~/.claude/CLAUDE.md");
	ASSERT_CONTAINS(skit_instructions_text(in), "USER-CLAUDE-UNUSED");
	skit_instructions_free(in);

	/* $SKIT_HOME moves the user's folder. */
	put("sh/AGENTS.md", "SKIT-HOME-AGENTS\n");
	setenv("SKIT_HOME", at("sh"), 1);
	in = load("p");
	ASSERT_EQ(skit_instructions_count(in), 2);
	ASSERT_CONTAINS(skit_instructions_text(in), "SKIT-HOME-AGENTS");
	skit_instructions_free(in);
	unsetenv("SKIT_HOME");
}

static void test_instructions__untrusted(void)
{
	skit_instructions *in;

	fresh("untrusted");
	put("p/AGENTS.md", "ROOT-AGENTS\n");
	put("p/a/CLAUDE.md", "A-CLAUDE\n");
	put("home/.agents/AGENTS.md", "USER-AGENTS\n");
	in = load("p/a");
	ASSERT_EQ(skit_instructions_count(in), 3);
	ASSERT_STR(file(in, 0)->skipped, "not a trusted folder");
	ASSERT_STR(file(in, 1)->skipped, "not a trusted folder");
	ASSERT_STR(file(in, 0)->sha256, "");
	ASSERT_EQ(file(in, 0)->shown, 0);
	ASSERT(!file(in, 2)->skipped); /* the user's own: always */
	ASSERT(!strstr(skit_instructions_text(in), "ROOT-AGENTS"));
	ASSERT(!strstr(skit_instructions_text(in), "A-CLAUDE"));
	ASSERT_CONTAINS(skit_instructions_text(in), "USER-AGENTS");
	skit_instructions_free(in);

	/* Trust passes down, but not into a project nested in it (a
	 * `.agents` a program of an earlier run may have planted). */
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	ASSERT_OK(skitx_fs_mkdir_p(at("p/a/.agents"), 0755));
	in = load("p/a");
	ASSERT(!file(in, 0)->skipped);
	ASSERT_STR(file(in, 1)->skipped, "not a trusted folder");
	ASSERT_CONTAINS(skit_instructions_text(in), "ROOT-AGENTS");
	ASSERT(!strstr(skit_instructions_text(in), "A-CLAUDE"));
	skit_instructions_free(in);

	/* Nothing at all: no text. */
	fresh("none");
	in = load("p");
	ASSERT_EQ(skit_instructions_count(in), 0);
	ASSERT_STR(skit_instructions_text(in), "");
	skit_instructions_free(in);
}

static void test_instructions__caps(void)
{
	skit_instructions *in;
	const char *t;

	fresh("caps");
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	/* One file over the per-file cap: cut, with a note. */
	put_big("p/AGENTS.md", 40000, 'x', "END-OF-ROOT\n");
	in = load("p");
	ASSERT_EQ(file(in, 0)->size, 40012);
	ASSERT_EQ(file(in, 0)->shown, SKIT_INSTRUCTIONS_FILE_CAP);
	t = skit_instructions_text(in);
	ASSERT(!strstr(t, "END-OF-ROOT"));
	ASSERT_CONTAINS(t, "[cut: the file is 40012 bytes; the first 32768 "
	                   "are shown]");
	skit_instructions_free(in);

	/* The total cap goes to the nearest first: the root is cut. */
	put_big("p/AGENTS.md", 30000, 'r', "END-OF-ROOT\n");
	put_big("p/a/AGENTS.md", 30000, 'a', "END-OF-A\n");
	put_big("p/a/b/AGENTS.md", 30000, 'b', "END-OF-B\n");
	in = load("p/a/b");
	ASSERT_EQ(file(in, 2)->shown, 30009);
	ASSERT_EQ(file(in, 1)->shown, 30009);
	ASSERT_EQ(file(in, 0)->shown, 65536 - 2 * 30009);
	t = skit_instructions_text(in);
	ASSERT_CONTAINS(t, "END-OF-A");
	ASSERT_CONTAINS(t, "END-OF-B");
	ASSERT(!strstr(t, "END-OF-ROOT"));
	skit_instructions_free(in);

	/* One more: the root's is left out entirely, and says so. */
	put_big("p/a/b/c/AGENTS.md", 30000, 'c', "END-OF-C\n");
	in = load("p/a/b/c");
	ASSERT_EQ(skit_instructions_count(in), 4);
	ASSERT_EQ(file(in, 0)->shown, 0);
	ASSERT_CONTAINS(file(in, 0)->skipped, "left out");
	ASSERT(*file(in, 0)->sha256); /* it was read: its digest is known */
	ASSERT_EQ(file(in, 1)->shown, 65536 - 2 * 30009);
	ASSERT_CONTAINS(skit_instructions_text(in),
	                "[AGENTS.md left out: the project instructions are "
	                "capped at 64 KiB]");
	skit_instructions_free(in);
}

static void test_instructions__utf8_cut(void)
{
	skit_instructions *in;
	char *b = skitx_malloc(SKIT_INSTRUCTIONS_FILE_CAP + 8);

	fresh("utf8");
	ASSERT(b);
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	/* A two-byte character across the cap: cut before it. */
	memset(b, 'a', SKIT_INSTRUCTIONS_FILE_CAP - 1);
	memcpy(b + SKIT_INSTRUCTIONS_FILE_CAP - 1, "\xc3\xa9zz\n", 5);
	put_n("p/AGENTS.md", b, SKIT_INSTRUCTIONS_FILE_CAP + 4);
	skitx_free(b);
	in = load("p");
	ASSERT_EQ(file(in, 0)->shown, SKIT_INSTRUCTIONS_FILE_CAP - 1);
	ASSERT(!strstr(skit_instructions_text(in), "\xef\xbf\xbd"));
	skit_instructions_free(in);

	/* Hidden characters are dropped, invalid UTF-8 repaired. */
	put("p/AGENTS.md", "A\xe2\x80\x8b"
	                   "B \xff end\n");
	in = load("p");
	ASSERT_CONTAINS(skit_instructions_text(in), "AB \xef\xbf\xbd end");
	skit_instructions_free(in);
}

static void test_instructions__links_and_kinds(void)
{
	skit_instructions *in;

	fresh("links");
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	/* AGENTS.md -> CLAUDE.md (a common pair): the link is not
	 * followed, and the real file is read as the fallback. */
	put("p/CLAUDE.md", "ROOT-CLAUDE\n");
	ASSERT_OK(symlink("CLAUDE.md", at("p/AGENTS.md")));
	/* A link out of the project is never read. */
	put("outside/SECRET.md", "OUTSIDE-SECRET\n");
	ASSERT_OK(skitx_fs_mkdir_p(at("p/a"), 0755));
	ASSERT_OK(symlink(at("outside/SECRET.md"), at("p/a/AGENTS.md")));
	in = load("p/a");
	ASSERT_EQ(skit_instructions_count(in), 3);
	ASSERT_STR(file(in, 0)->label, "AGENTS.md");
	ASSERT_STR(file(in, 0)->skipped, "a symbolic link (not followed)");
	ASSERT_STR(file(in, 1)->label, "CLAUDE.md");
	ASSERT(!file(in, 1)->skipped);
	ASSERT_STR(file(in, 2)->label, "a/AGENTS.md");
	ASSERT_STR(file(in, 2)->skipped, "a symbolic link (not followed)");
	ASSERT(!strstr(skit_instructions_text(in), "OUTSIDE-SECRET"));
	ASSERT_CONTAINS(skit_instructions_text(in), "ROOT-CLAUDE");
	skit_instructions_free(in);

	/* A folder of the project that is a link leads outside: from
	 * there, only the root's file. */
	ASSERT_OK(symlink(at("outside"), at("p/out")));
	in = load("p/out");
	ASSERT_EQ(skit_instructions_count(in), 2);
	skit_instructions_free(in);

	/* The user's own file may be a link into a dotfiles folder. */
	put("dotfiles/AGENTS.md", "USER-DOTFILES\n");
	ASSERT_OK(skitx_fs_mkdir_p(at("home/.agents"), 0755));
	ASSERT_OK(symlink(at("dotfiles/AGENTS.md"),
	                  at("home/.agents/AGENTS.md")));
	in = load("p");
	ASSERT_EQ(skit_instructions_count(in), 3);
	ASSERT(!file(in, 2)->skipped);
	ASSERT_CONTAINS(skit_instructions_text(in), "USER-DOTFILES");
	skit_instructions_free(in);

	/* Empty, binary, too big, a folder: skipped, each with its why,
	 * and the folder's CLAUDE.md read instead. */
	fresh("kinds");
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	put("p/AGENTS.md", "");
	put("p/CLAUDE.md", "KINDS-CLAUDE\n");
	put_n("p/a/AGENTS.md", "BIN\0BINMARK\n", 12);
	put_big("p/a/b/AGENTS.md", 1024 * 1024, 'z', "!");
	ASSERT_OK(skitx_fs_mkdir_p(at("p/a/b/c/AGENTS.md"), 0755));
	in = load("p/a/b/c");
	ASSERT_EQ(skit_instructions_count(in), 5);
	ASSERT_STR(file(in, 0)->skipped, "empty");
	ASSERT(!file(in, 1)->skipped);
	ASSERT_CONTAINS(file(in, 2)->skipped, "binary");
	ASSERT_STR(file(in, 3)->skipped, "over 1 MiB");
	ASSERT_STR(file(in, 3)->sha256, "");
	ASSERT_STR(file(in, 4)->label, "a/b/c/AGENTS.md");
	ASSERT(file(in, 4)->skipped);
	ASSERT_CONTAINS(skit_instructions_text(in), "KINDS-CLAUDE");
	ASSERT(!strstr(skit_instructions_text(in), "BINMARK"));
	skit_instructions_free(in);
}

/* ---- the agent, its trail and the host ------------------------------ */

static char *slurp(const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	ASSERT_OK(skitx_fs_read_file(path, &b, 1 << 24));
	return skitx_buf_detach(&b, NULL);
}

/* The one run folder's events.jsonl under `runs`. */
static char *events(const char *runs)
{
	char cmd[PATH_MAX * 2], line[PATH_MAX];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "ls -d '%s'/*/events.jsonl", runs);
	p = popen(cmd, "r");
	ASSERT(p);
	ASSERT(fgets(line, sizeof(line), p));
	pclose(p);
	line[strcspn(line, "\n")] = '\0';
	return slurp(line);
}

static void test_instructions__agent(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	const char *src = getenv("SKIT_SOURCE_DIR");
	char spec[PATH_MAX + 16], cwd[PATH_MAX], *ev, *answer = NULL;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };

	fresh("agent");
	ASSERT(getcwd(cwd, sizeof(cwd)));
	put("p/AGENTS.md", "ROOT-AGENTS\n");
	put("p/a/AGENTS.md", "A-AGENTS\n");
	put("skills/tool-one/SKILL.md",
	    "---\nname: tool-one\ndescription: INDEX-MARKER skill.\n---\n"
	    "Body.\n");
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	ASSERT_OK(chdir(at("p/a")));
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(reg, "user", at("skills"), &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	snprintf(spec, sizeof(spec),
	         "replay:%s/tests/fixtures/agent/final.jsonl", src ? src : ".");
	mo.spec = spec;
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ao.registry = reg;
	ao.model = model;
	ao.project_dir = at("p");
	ao.workdir = at("work");
	ao.runs_dir = at("runs");

	/* Version 5, on: base prompt, instructions, then the index. */
	if (skit_agent_new(&agent, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
	before(agent->system, "You are skit", "<project_instructions>");
	before(agent->system, "ROOT-AGENTS", "A-AGENTS");
	before(agent->system, "</project_instructions>", "INDEX-MARKER");
	ASSERT_OK(skit_agent_send(agent, "go", &answer, &err));
	skit_free(answer);
	skit_agent_free(agent);
	agent = NULL;
	/* The trail: the digests, right after run_start. */
	ev = events(at("runs"));
	before(ev, "\"type\":\"run_start\"",
	       "\"type\":\"project_instructions\"");
	before(ev, "\"type\":\"project_instructions\"",
	       "\"type\":\"user_input\"");
	{
		char hex[65], needle[128];

		skit__sha256_hex("A-AGENTS\n", 9, hex);
		snprintf(needle, sizeof(needle), "\"sha256\":\"%s\"", hex);
		ASSERT_CONTAINS(ev, needle);
	}
	ASSERT_CONTAINS(ev, "\"label\":\"a/AGENTS.md\"");
	skitx_free(ev);

	/* Off: nothing in the prompt, no event. */
	ao.project_instructions = false;
	ASSERT_OK(skit_agent_new(&agent, &ao, &err));
	ASSERT(!strstr(agent->system, "ROOT-AGENTS"));
	ASSERT(!agent->instructions);
	skit_agent_free(agent);

	/* Options of version 4 know no switch: off. */
	ao.project_instructions = true;
	ao.version = 4;
	ASSERT_OK(skit_agent_new(&agent, &ao, &err));
	ASSERT(!strstr(agent->system, "ROOT-AGENTS"));
	skit_agent_free(agent);

	ASSERT_OK(chdir(cwd));
	skit_model_free(model);
	skit_registry_free(reg);
}

static void test_instructions__host(void)
{
	skit_host_options ho = SKIT_HOST_OPTIONS_INIT;
	char cwd[PATH_MAX], path[PATH_MAX], *text = NULL, *ev;
	skit_registry *reg = NULL;
	skit_host *h = NULL;
	skit_error err = { 0 };

	fresh("host");
	ASSERT(getcwd(cwd, sizeof(cwd)));
	put("p/AGENTS.md", "HOST-ROOT\n");
	ASSERT_OK(skit_trust_add(at("p"), NULL));
	ASSERT_OK(chdir(at("p")));
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ho.registry = reg;
	ho.project_dir = at("p");
	ho.runs_dir = at("runs");
	ho.workdir = at("work");
	ASSERT_OK(skitx_fs_mkdir_p(at("work"), 0755));
	if (skit_host_new(&h, &ho, &err))
		HARNESS_FAIL("host: %s", err.message);
	/* Opt-in: nothing is read until the host asks. */
	ASSERT(skit_host_run_dir(h));
	snprintf(path, sizeof(path), "%s/events.jsonl", skit_host_run_dir(h));
	ev = slurp(path);
	ASSERT(!strstr(ev, "project_instructions"));
	skitx_free(ev);
	ASSERT_OK(skit_host_instructions(h, &text, &err));
	ASSERT_CONTAINS(text, "<project_instructions>");
	ASSERT_CONTAINS(text, "HOST-ROOT");
	skit_free(text);
	ASSERT_OK(skit_host_instructions(h, &text, &err));
	skit_free(text);
	ASSERT_OK(skit_host_finish(h, "ok", &err));
	ev = events(at("runs"));
	ASSERT_CONTAINS(ev, "\"type\":\"project_instructions\"");
	/* recorded once, however often the host asks */
	ASSERT(!strstr(strstr(ev, "project_instructions") + 1,
	               "\"type\":\"project_instructions\""));
	skitx_free(ev);
	ASSERT_OK(chdir(cwd));
	skit_registry_free(reg);
}

static void test_instructions__config(void)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };

	fresh("config");
	put("off.json", "{\"project_instructions\": false}\n");
	put("on.json", "{\"project_instructions\": true}\n");
	put("bad.json", "{\"project_instructions\": \"no\"}\n");
	ASSERT(ao.project_instructions);
	/* A project's file may turn it off... */
	ASSERT_OK(skit_agent_options_load_config(&ao, at("off.json"), false,
	                                         &err));
	ASSERT(!ao.project_instructions);
	/* ...never on. */
	ASSERT_OK(skit_agent_options_load_config(&ao, at("on.json"), false,
	                                         &err));
	ASSERT(!ao.project_instructions);
	/* The user's may. */
	ASSERT_OK(
	        skit_agent_options_load_config(&ao, at("on.json"), true, &err));
	ASSERT(ao.project_instructions);
	ASSERT_EQ(
	        skit_agent_options_load_config(&ao, at("bad.json"), true, &err),
	        SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "project_instructions: expected true or "
	                             "false");
	ASSERT(ao.dynamic_context); /* the other switch is untouched */
}

TEST_MAIN(TEST(test_instructions__order_and_fallback) TEST(
        test_instructions__untrusted) TEST(test_instructions__caps)
                  TEST(test_instructions__utf8_cut)
                          TEST(test_instructions__links_and_kinds)
                                  TEST(test_instructions__agent)
                                          TEST(test_instructions__host) TEST(
                                                  test_instructions__config))
