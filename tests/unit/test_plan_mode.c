/* SPDX-License-Identifier: MIT */
/*
 * test_plan_mode.c - plan mode through the library (docs/agent.md, "Plan
 * mode"): the model enters it, is offered and allowed only tools that
 * read, presents plans the user refuses (an option, the user's own
 * words) and then approves, and changes files once approved; a plan no
 * one can approve leaves plan mode on; --yes approves; a program turns
 * plan mode on, and a subagent started then is in it too.
 */
#include "common.h"

#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/skit.h"
#include "util/buf.h"
#include "util/fs.h"

static char top[PATH_MAX / 2], logpath[PATH_MAX], cas[PATH_MAX];
static char proj[PATH_MAX];
/* What the tests' models write. */
static const char *const written[] = { "early.txt", "done.txt", "sub.txt",
	                               "kept.txt" };

/* The user: refuses, answers in words, then approves. */
static int asked;
static char last_question[8192];

static int user(const skit_question *q, skit_tool_output *out, void *payload)
{
	(void)payload;
	asked++;
	snprintf(last_question, sizeof(last_question), "%s", q->question);
	ASSERT_EQ(q->option_count, 2u);
	ASSERT_STR(q->options[0], "Yes: carry out the plan");
	if (asked == 1)
		return skit_tool_output_puts(out, q->options[1]);
	if (asked == 2)
		return skit_tool_output_puts(out, "use tabs, not spaces");
	return skit_tool_output_puts(out, q->options[0]);
}

struct fx {
	skit_registry *reg;
	skit_model *model;
	skit_policy *pol;
	skit_agent *a;
};

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static void setup(void)
{
	const char *t = getenv("SKIT_TEST_DIR");

	snprintf(top, sizeof(top), "%s", t ? t : "/tmp/skit-test-plan-mode");
	ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
	/* a home of its own, also when run outside CTest: the session
	 * ledger goes to the user config */
	{
		char home[PATH_MAX];

		snprintf(home, sizeof(home), "%s/home", top);
		ASSERT_OK(skitx_fs_mkdir_p(home, 0700));
		setenv("HOME", home, 1);
		snprintf(home, sizeof(home), "%s/home/.config", top);
		setenv("XDG_CONFIG_HOME", home, 1);
	}
}

static void open_fx(struct fx *f, const char *name, const char *lines, bool yes,
                    skit_ask_fn ask)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	char spec[PATH_MAX + 16], work[PATH_MAX], runs[PATH_MAX];
	skit_error err = { 0 };

	memset(f, 0, sizeof(*f));
	setup();
	snprintf(runs, sizeof(runs), "%s/runs", top);
	snprintf(proj, sizeof(proj), "%s/%s", top, name);
	/* files an earlier run of the test left */
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(written); i++) {
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/%s", proj, written[i]);
		unlink(p);
	}
	snprintf(work, sizeof(work), "%s/%s-work", top, name);
	ASSERT_OK(skitx_fs_mkdir_p(proj, 0755));
	ASSERT_OK(skitx_fs_mkdir_p(work, 0700));
	snprintf(cas, sizeof(cas), "%s/%s.jsonl", top, name);
	put(cas, lines);
	snprintf(logpath, sizeof(logpath), "%s/%s-req.jsonl", top, name);
	unlink(logpath);
	snprintf(spec, sizeof(spec), "replay:%s", cas);
	mo.spec = spec;
	mo.request_log = logpath;
	ASSERT_OK(skit_registry_new(&f->reg, &err));
	ASSERT_OK(skit_registry_scan(f->reg, &err));
	ASSERT_OK(skit_model_new(&f->model, &mo, &err));
	ASSERT_OK(skit_policy_new(&f->pol, &err));
	skit_policy_set_yes(f->pol, yes);
	/* writes allowed outright: what stops them is plan mode alone */
	ASSERT_OK(
	        skit_policy_add(f->pol, SKIT_POLICY_LIST_ALLOW, "Write", &err));
	ao.registry = f->reg;
	ao.model = f->model;
	ao.policy = f->pol;
	ao.workdir = work;
	ao.project_dir = proj;
	ao.file_tools = true;
	ao.project_instructions = false;
	ao.on_ask = ask;
	ao.runs_dir = runs;
	if (skit_agent_new(&f->a, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
}

static void close_fx(struct fx *f)
{
	ASSERT_OK(skit_agent_finish(f->a, "ok", 0, NULL));
	skit_policy_free(f->pol);
	skit_model_free(f->model);
	skit_registry_free(f->reg);
}

/* Request `i` of the log, parsed. */
static json_t *request(size_t i)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *line, *save = NULL;
	json_t *j = NULL;

	ASSERT(skitx_fs_read_file(logpath, &b, 16 << 20) >= 0);
	line = strtok_r(b.ptr, "\n", &save);
	for (size_t k = 0; line && k < i; k++)
		line = strtok_r(NULL, "\n", &save);
	if (line)
		j = json_loads(line, 0, NULL);
	skitx_buf_release(&b);
	ASSERT(j);
	return j;
}

static bool offers(size_t i, const char *name)
{
	json_t *r = request(i), *t;
	bool found = false;
	size_t k;

	json_array_foreach(json_object_get(r, "tools"), k, t)
	{
		if (!strcmp(json_string_value(json_object_get(t, "name")),
		            name))
			found = true;
	}
	json_decref(r);
	return found;
}

/* The result of call `id` in request `i` (static), and whether it is an
 * error. */
static const char *result(size_t i, const char *id, bool *is_error)
{
	static char text[16384];
	json_t *r = request(i), *m;
	size_t k;

	text[0] = '\0';
	json_array_foreach(json_object_get(r, "messages"), k, m)
	{
		const char *cid =
		        json_string_value(json_object_get(m, "tool_call_id"));

		if (!cid || strcmp(cid, id))
			continue;
		snprintf(text, sizeof(text), "%s",
		         json_string_value(json_object_get(m, "text")));
		*is_error = json_is_true(json_object_get(m, "is_error"));
	}
	json_decref(r);
	return text;
}

static bool exists(const char *name)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", proj, name);
	return access(p, F_OK) == 0;
}

static void test_plan_mode__approve(void)
{
	skit_error err = { 0 };
	bool is_error = false;
	struct fx f;
	char *answer = NULL;

	asked = 0;
	open_fx(&f, "approve",
	        "{\"tool_calls\": [{\"id\": \"e1\", \"name\": "
	        "\"enter_plan_mode\", \"arguments\": {}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"w1\", \"name\": \"write_file\", "
	        "\"arguments\": {\"path\": \"early.txt\", \"content\": "
	        "\"X\"}}, {\"id\": \"r1\", \"name\": \"read_file\", "
	        "\"arguments\": {\"path\": \"notes.txt\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"x1\", \"name\": "
	        "\"exit_plan_mode\", \"arguments\": {\"plan\": \"PLAN-ONE\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"x2\", \"name\": "
	        "\"exit_plan_mode\", \"arguments\": {\"plan\": \"PLAN-TWO\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"x3\", \"name\": "
	        "\"exit_plan_mode\", \"arguments\": {\"plan\": "
	        "\"PLAN-THREE\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"w2\", \"name\": \"write_file\", "
	        "\"arguments\": {\"path\": \"done.txt\", \"content\": "
	        "\"Y\"}}]}\n"
	        "{\"text\": \"PLAN-DONE\"}\n",
	        false, user);
	{
		char p[PATH_MAX + 16];

		snprintf(p, sizeof(p), "%s/notes.txt", proj);
		put(p, "NOTES-MARKER\n");
	}
	ASSERT(!skit_agent_plan_mode(f.a));
	if (skit_agent_send(f.a, "go", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "PLAN-DONE");
	skit_free(answer);
	/* before: everything; in plan mode: what reads */
	ASSERT(offers(0, "enter_plan_mode"));
	ASSERT(!offers(0, "exit_plan_mode"));
	ASSERT(offers(0, "write_file"));
	ASSERT(!offers(1, "write_file"));
	ASSERT(!offers(1, "shell"));
	ASSERT(offers(1, "read_file"));
	ASSERT(offers(1, "exit_plan_mode"));
	ASSERT(!offers(1, "enter_plan_mode"));
	ASSERT(strstr(result(2, "w1", &is_error),
	              "tool 'write_file' is not available in plan mode"));
	ASSERT(is_error);
	ASSERT(!exists("early.txt"));
	ASSERT(strstr(result(2, "r1", &is_error), "NOTES-MARKER"));
	ASSERT(!is_error);
	/* refused with the option, then with the user's words */
	ASSERT(strstr(result(3, "x1", &is_error),
	              "The user did not approve the plan; plan mode stays "
	              "on."));
	ASSERT(is_error);
	ASSERT(strstr(result(4, "x2", &is_error),
	              "The user's words: use tabs, not spaces"));
	ASSERT(!offers(4, "write_file"));
	/* approved: plan mode off, the write runs */
	ASSERT(strstr(result(5, "x3", &is_error),
	              "The user approved the plan."));
	ASSERT(!is_error);
	ASSERT(offers(5, "write_file"));
	ASSERT(!offers(5, "exit_plan_mode"));
	ASSERT(exists("done.txt"));
	ASSERT_EQ(asked, 3);
	ASSERT(strstr(last_question, "Approve this plan?\n\nPLAN-THREE"));
	ASSERT(!skit_agent_plan_mode(f.a));
	{
		char ev[PATH_MAX + 32];
		struct skitx_buf b = SKITX_BUF_INIT;

		snprintf(ev, sizeof(ev), "%s/events.jsonl",
		         skit_agent_run_dir(f.a));
		ASSERT(skitx_fs_read_file(ev, &b, 1 << 20) >= 0);
		ASSERT_CONTAINS(b.ptr, "\"type\":\"plan_mode\",\"on\":true,"
		                       "\"by\":\"the model\"");
		ASSERT_CONTAINS(b.ptr, "\"decision\":\"not approved\"");
		ASSERT_CONTAINS(b.ptr, "\"decision\":\"approved\"");
		ASSERT_CONTAINS(b.ptr, "\"type\":\"plan_mode\",\"on\":false,"
		                       "\"by\":\"plan approved\"");
		skitx_buf_release(&b);
	}
	close_fx(&f);
}

/* No one to ask: the model cannot enter plan mode, and in it (the
 * program's) plan mode stays on and the model is told what to do; with
 * --yes the plan is approved as a call would be. */
static void test_plan_mode__no_one_and_yes(void)
{
	const char *lines =
	        "{\"tool_calls\": [{\"id\": \"x1\", \"name\": "
	        "\"exit_plan_mode\", \"arguments\": {\"plan\": \"P\"}}]}\n"
	        "{\"text\": \"END\"}\n";
	skit_error err = { 0 };
	bool is_error = false;
	struct fx f;

	/* no one could approve a plan: the model cannot enter plan mode */
	open_fx(&f, "noenter",
	        "{\"tool_calls\": [{\"id\": \"e1\", \"name\": "
	        "\"enter_plan_mode\", \"arguments\": {}}]}\n"
	        "{\"text\": \"END\"}\n",
	        false, NULL);
	ASSERT_OK(skit_agent_send(f.a, "go", NULL, &err));
	ASSERT(!offers(0, "enter_plan_mode"));
	ASSERT(strstr(result(1, "e1", &is_error),
	              "no one could approve a plan here"));
	ASSERT(!skit_agent_plan_mode(f.a));
	close_fx(&f);
	/* in plan mode (the program's) with no one to ask: it stays on */
	open_fx(&f, "noone", lines, false, NULL);
	ASSERT_OK(skit_agent_set_plan_mode(f.a, true));
	ASSERT_OK(skit_agent_send(f.a, "go", NULL, &err));
	ASSERT(offers(0, "exit_plan_mode"));
	ASSERT(strstr(result(1, "x1", &is_error),
	              "no one can approve a plan here: plan mode stays on"));
	ASSERT(is_error);
	ASSERT(skit_agent_plan_mode(f.a));
	close_fx(&f);
	/* --yes approves it */
	open_fx(&f, "yes", lines, true, NULL);
	ASSERT_OK(skit_agent_set_plan_mode(f.a, true));
	ASSERT_OK(skit_agent_send(f.a, "go", NULL, &err));
	ASSERT(strstr(result(1, "x1", &is_error),
	              "The user approved the plan."));
	ASSERT(!is_error);
	ASSERT(!skit_agent_plan_mode(f.a));
	close_fx(&f);
}

/* The program turns plan mode on; a subagent started then is in it: its
 * write is refused, and it cannot end plan mode. */
static void test_plan_mode__program_and_subagent(void)
{
	skit_error err = { 0 };
	bool is_error = false;
	struct fx f;

	open_fx(&f, "program",
	        "{\"tool_calls\": [{\"id\": \"t1\", \"name\": \"task\", "
	        "\"arguments\": {\"description\": \"write\", \"prompt\": "
	        "\"SUB\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"w1\", \"name\": \"write_file\", "
	        "\"arguments\": {\"path\": \"sub.txt\", \"content\": "
	        "\"X\"}}, {\"id\": \"x1\", \"name\": \"exit_plan_mode\", "
	        "\"arguments\": {\"plan\": \"P\"}}]}\n"
	        "{\"text\": \"SUB-END\"}\n"
	        "{\"text\": \"END\"}\n",
	        true, NULL);
	ASSERT_OK(skit_agent_set_plan_mode(f.a, true));
	ASSERT(skit_agent_plan_mode(f.a));
	ASSERT_OK(skit_agent_send(f.a, "go", NULL, &err));
	ASSERT(!offers(0, "write_file"));
	ASSERT(offers(0, "task"));
	ASSERT(!offers(1, "write_file"));
	ASSERT(!offers(1, "exit_plan_mode"));
	ASSERT(strstr(result(2, "w1", &is_error),
	              "tool 'write_file' is not available in plan mode"));
	ASSERT(strstr(result(2, "x1", &is_error),
	              "a subagent's plan mode is its main agent's"));
	ASSERT(!exists("sub.txt"));
	ASSERT(skit_agent_plan_mode(f.a));
	ASSERT_OK(skit_agent_set_plan_mode(f.a, false));
	ASSERT(!skit_agent_plan_mode(f.a));
	ASSERT_EQ(skit_agent_set_plan_mode(NULL, true), SKIT_EUSAGE);
	close_fx(&f);
}

/* A subagent kept from before plan mode, continued in it, writes
 * nothing. */
static void test_plan_mode__kept_subagent(void)
{
	skit_error err = { 0 };
	bool is_error = false;
	struct fx f;

	open_fx(&f, "kept",
	        "{\"tool_calls\": [{\"id\": \"t1\", \"name\": \"task\", "
	        "\"arguments\": {\"description\": \"helper\", \"prompt\": "
	        "\"SUB\"}}]}\n"
	        "{\"text\": \"SUB-1\"}\n"
	        "{\"text\": \"END-1\"}\n"
	        "{\"tool_calls\": [{\"id\": \"m1\", \"name\": "
	        "\"send_message\", \"arguments\": {\"to\": \"task-1\", "
	        "\"message\": \"write now\"}}]}\n"
	        "{\"tool_calls\": [{\"id\": \"w1\", \"name\": "
	        "\"write_file\", \"arguments\": {\"path\": \"kept.txt\", "
	        "\"content\": \"X\"}}]}\n"
	        "{\"text\": \"SUB-2\"}\n"
	        "{\"text\": \"END-2\"}\n",
	        true, NULL);
	ASSERT_OK(skit_agent_send(f.a, "first", NULL, &err));
	ASSERT_OK(skit_agent_set_plan_mode(f.a, true));
	ASSERT_OK(skit_agent_send(f.a, "second", NULL, &err));
	ASSERT(strstr(result(5, "w1", &is_error),
	              "tool 'write_file' is not available in plan mode"));
	ASSERT(is_error);
	ASSERT(!exists("kept.txt"));
	close_fx(&f);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_plan_mode__approve)
	TEST(test_plan_mode__no_one_and_yes)
	TEST(test_plan_mode__program_and_subagent)
	TEST(test_plan_mode__kept_subagent))
/* clang-format on */
