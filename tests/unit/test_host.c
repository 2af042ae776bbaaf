/* SPDX-License-Identifier: MIT */
/*
 * test_host.c - the skills layer for a host's own loop (skit/host.h):
 * the index as the agent renders it, the tools in both formats, tool
 * calls by name through the same gate (policy, approvals, sandbox,
 * trail), the tool list growing when a skill discloses a tool, the
 * direct calls, and bad input.
 */
#include "common.h"

#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/skit.h"
#include "util/fs.h"

static char proj[PATH_MAX / 2], runs[PATH_MAX / 2];
static int asked;
static skit_approve_answer answer = SKIT_APPROVE_YES;

static skit_approve_answer on_approve(const skit_approval *req, void *payload)
{
	(void)req, (void)payload;
	asked++;
	return answer;
}

static void setup(skit_registry **reg, skit_host **h)
{
	const char *src = getenv("SKIT_SOURCE_DIR");
	const char *top = getenv("SKIT_TEST_DIR");
	skit_host_options ho = SKIT_HOST_OPTIONS_INIT;
	char skills[PATH_MAX], cmd[PATH_MAX * 2];
	skit_error err = { 0 };

	snprintf(proj, sizeof(proj), "%s/proj", top ? top : "/tmp/skit-host");
	snprintf(runs, sizeof(runs), "%s/runs", top ? top : "/tmp/skit-host");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", proj, runs);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_OK(skitx_fs_mkdir_p(proj, 0755));
	snprintf(cmd, sizeof(cmd),
	         "cp '%s/examples/skills/csv-report/assets/sample.csv' "
	         "'%s/data.csv'",
	         src ? src : ".", proj);
	ASSERT_EQ(system(cmd), 0);
	snprintf(skills, sizeof(skills), "%s/examples/skills", src ? src : ".");
	ASSERT_OK(skit_registry_new(reg, &err));
	ASSERT_OK(skit_registry_add_root(*reg, "builtin", skills, &err));
	ASSERT_OK(skit_registry_scan(*reg, &err));
	ho.registry = *reg;
	ho.project_dir = proj;
	ho.runs_dir = runs;
	ho.hooks.on_approve = on_approve;
	if (skit_host_new(h, &ho, &err))
		HARNESS_FAIL("host: %s", err.message);
}

static bool has_tool(const char *json, const char *name)
{
	json_t *a = json_loads(json, 0, NULL), *t;
	size_t i;
	bool found = false;

	ASSERT(json_is_array(a));
	json_array_foreach(a, i, t)
	{
		const char *n = json_string_value(json_object_get(t, "name"));

		if (!n)
			n = json_string_value(json_object_get(
			        json_object_get(t, "function"), "name"));
		found |= n && !strcmp(n, name);
	}
	json_decref(a);
	return found;
}

static void test_host__index_and_tools(void)
{
	skit_registry *reg;
	skit_host *h;
	skit_error err = { 0 };
	char *text = NULL, *agent_view = NULL;
	json_t *a;

	setup(&reg, &h);
	ASSERT_OK(skit_host_index(h, NULL, &text, &err));
	ASSERT_CONTAINS(text, "<available_skills>");
	ASSERT_CONTAINS(text, "<name>\ncsv-report\n</name>");
	/* The same text skit_registry_render_index() gives. */
	{
		skit_prompt_options po = SKIT_PROMPT_OPTIONS_INIT;

		po.budget = SKIT_PROMPT_DEFAULT_BUDGET;
		ASSERT_OK(skit_registry_render_index(reg, &po, &agent_view,
		                                     NULL, &err));
		ASSERT_STR(text, agent_view);
	}
	skit_free(text);
	skit_free(agent_view);

	ASSERT_OK(skit_host_tools(h, SKIT_TOOLS_OPENAI, &text, &err));
	a = json_loads(text, 0, NULL);
	ASSERT(json_is_array(a));
	ASSERT_STR(json_string_value(
	                   json_object_get(json_array_get(a, 0), "type")),
	           "function");
	ASSERT(json_is_object(json_object_get(
	        json_object_get(json_array_get(a, 0), "function"),
	        "parameters")));
	json_decref(a);
	ASSERT(has_tool(text, "use_skill"));
	ASSERT(has_tool(text, "read_skill_resource"));
	/* Nothing discloses run_skill_script before an activation. */
	ASSERT(!has_tool(text, "run_skill_script"));
	skit_free(text);
	ASSERT_OK(skit_host_tools(h, SKIT_TOOLS_ANTHROPIC, &text, &err));
	a = json_loads(text, 0, NULL);
	ASSERT(json_is_object(
	        json_object_get(json_array_get(a, 0), "input_schema")));
	ASSERT(!json_object_get(json_array_get(a, 0), "type"));
	json_decref(a);
	skit_free(text);
	ASSERT_EQ(skit_host_tools(h, (skit_tools_format)7, &text, &err),
	          SKIT_EINVALID);
	skit_host_free(h);
	skit_registry_free(reg);
}

static void test_host__calls(void)
{
	const char *args[] = { "data.csv", "--output", "report.md" };
	skit_registry *reg;
	skit_host *h;
	skit_error err = { 0 };
	char *r = NULL, *tools = NULL, path[PATH_MAX], *trail;
	bool is_error = true, changed = false;
	struct skitx_buf b = SKITX_BUF_INIT;

	setup(&reg, &h);
	/* Disclosure: no file of a skill before it is activated. */
	ASSERT_OK(skit_host_read_resource(h, "csv-report",
	                                  "references/statistics.md", &r,
	                                  &is_error, &err));
	ASSERT(is_error);
	ASSERT_CONTAINS(r, "use_skill first");
	skit_free(r);
	/* A call by name, as the host's model made it. */
	ASSERT_OK(skit_host_call(h, "use_skill", "{\"name\": \"csv-report\"}",
	                         &r, &is_error, &changed, &err));
	ASSERT(!is_error);
	ASSERT_CONTAINS(r, "# CSV report");
	ASSERT_CONTAINS(r, "references/statistics.md");
	/* Its allowed-tools (Bash(python3:*)...) disclose the script tool. */
	ASSERT(changed);
	skit_free(r);
	ASSERT_OK(skit_host_tools(h, SKIT_TOOLS_OPENAI, &tools, &err));
	ASSERT(has_tool(tools, "run_skill_script"));
	skit_free(tools);
	ASSERT_OK(skit_host_read_resource(h, "csv-report",
	                                  "references/statistics.md", &r,
	                                  &is_error, &err));
	ASSERT(!is_error);
	ASSERT_CONTAINS(r, "How report.py computes");
	skit_free(r);
	/* Contained: no path out of the skill. */
	ASSERT_OK(skit_host_read_resource(h, "csv-report", "../../README.md",
	                                  &r, &is_error, &err));
	ASSERT(is_error);
	skit_free(r);
	/* A script, approved through the hook, in the sandbox, in the
	 * project. */
	asked = 0;
	answer = SKIT_APPROVE_YES;
	ASSERT_OK(skit_host_run_script(h, "csv-report", "scripts/report.py",
	                               args, 3, &r, &is_error, &err));
	ASSERT(!is_error);
	ASSERT_CONTAINS(r, "exit code: 0");
	ASSERT_EQ(asked, 1);
	skit_free(r);
	snprintf(path, sizeof(path), "%s/report.md", proj);
	ASSERT_OK(access(path, F_OK));
	/* A refusal is a result for the model, not an error. */
	answer = SKIT_APPROVE_NO;
	ASSERT_OK(skit_host_call(h, "run_skill_script",
	                         "{\"skill\": \"csv-report\", \"path\": "
	                         "\"scripts/report.py\", \"args\": [\"x\"]}",
	                         &r, &is_error, NULL, &err));
	ASSERT(is_error);
	skit_free(r);
	answer = SKIT_APPROVE_YES;
	/* Bad input. */
	ASSERT_OK(skit_host_call(h, "no_such_tool", "{}", &r, &is_error, NULL,
	                         &err));
	ASSERT(is_error);
	ASSERT_CONTAINS(r, "unknown tool");
	skit_free(r);
	ASSERT_EQ(skit_host_call(h, "use_skill", "{not json", &r, &is_error,
	                         NULL, &err),
	          SKIT_EINVALID);
	ASSERT(r == NULL);
	ASSERT_OK(skit_host_call(h, "use_skill", "[1]", &r, &is_error, NULL,
	                         &err));
	ASSERT(is_error);
	skit_free(r);
	/* The trail has it all, and run.json once finished. */
	snprintf(path, sizeof(path), "%s/events.jsonl", skit_host_run_dir(h));
	ASSERT_OK(skitx_fs_read_file(path, &b, 1 << 20));
	trail = b.ptr;
	ASSERT_CONTAINS(trail, "\"type\":\"skill_activated\"");
	ASSERT_CONTAINS(trail, "\"type\":\"script_run\"");
	ASSERT_CONTAINS(trail, "\"type\":\"approval\"");
	snprintf(path, sizeof(path), "%s/run.json", skit_host_run_dir(h));
	ASSERT_OK(skit_host_finish(h, "ok", &err));
	ASSERT_OK(access(path, F_OK));
	skitx_buf_release(&b);
	skit_registry_free(reg);
}

static void test_host__bad_options(void)
{
	skit_host_options ho = SKIT_HOST_OPTIONS_INIT;
	skit_host *h = NULL;
	skit_error err = { 0 };

	ASSERT_EQ(skit_host_new(&h, &ho, &err), SKIT_EUSAGE);
	ASSERT_CONTAINS(err.message, "registry");
	ho.version = 99;
	ASSERT_EQ(skit_host_new(&h, &ho, &err), SKIT_EUSAGE);
	ASSERT(h == NULL);
	skit_host_free(NULL);
	ASSERT_OK(skit_host_finish(NULL, "ok", &err));
}

/* clang-format off */
TEST_MAIN(
	TEST(test_host__index_and_tools)
	TEST(test_host__calls)
	TEST(test_host__bad_options))
/* clang-format on */
