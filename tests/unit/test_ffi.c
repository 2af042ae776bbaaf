/* SPDX-License-Identifier: MIT */
/*
 * test_ffi.c - the calls for bindings (skit/ffi.h): options as key/value
 * strings over each struct's *_INIT (values, bad values, unknown and
 * repeated keys, a key with no value), structures as JSON (entries,
 * search hits, diagnostics, an agent's state; bytes outside UTF-8 as
 * \udcXX), the approval hook with its request as JSON, and status names.
 * The Python package's tests (tests/python) drive the same calls from
 * Python; these run them under ASan in `make test`.
 */
#include "common.h"

#include <jansson.h>
#include <sys/stat.h>

#include "harness.h"
#include "skit/errors.h"
#include "skit/ffi.h"
#include "util/fs.h"

static char top[PATH_MAX / 2];

static void scratch(void)
{
	const char *t = getenv("SKIT_TEST_DIR");
	char cmd[PATH_MAX];

	snprintf(top, sizeof(top), "%s", t ? t : "/tmp/skit-test-ffi");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	ASSERT_EQ(system(cmd), 0);
	ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
}

static const char *examples(char *buf, size_t cap)
{
	const char *src = getenv("SKIT_SOURCE_DIR");

	snprintf(buf, cap, "%s/examples/skills", src ? src : ".");
	return buf;
}

static json_t *parse(char *text)
{
	json_error_t je;
	json_t *j;

	ASSERT(text);
	j = json_loads(text, 0, &je);
	if (!j)
		HARNESS_FAIL("bad JSON (%s): %s", je.text, text);
	skit_free(text);
	return j;
}

static json_t *options(const char *kind, const char *const *kv)
{
	skit_error err = { 0 };
	char *out = NULL;

	if (skit_ffi_options(&out, kind, kv, &err))
		HARNESS_FAIL("%s: %s", kind, err.message);
	return parse(out);
}

/* The EINVALID message of a bad option list. */
static const char *refused(const char *kind, const char *const *kv)
{
	static skit_error err;
	char *out = NULL;

	memset(&err, 0, sizeof(err));
	ASSERT_EQ(skit_ffi_options(&out, kind, kv, &err), SKIT_EINVALID);
	ASSERT(!out);
	return err.message;
}

static void test_ffi__options(void)
{
	const char *set[] = { "max_turns",   "7",         "sandbox_mode",
		              "read-only",   "keep_temp", "1",
		              "project_dir", "/p",        "tool_search",
		              "never",       NULL };
	const char *big[] = { "max_tokens", "18446744073709551615", NULL };
	const char *key[] = { "spec", "openai:x", "api_key", "sk-secret",
		              NULL };
	const char *bits[] = { "lenient", "true", "lint", "false", NULL };
	json_t *j;
	char *text = NULL;

	j = options("agent", NULL);
	ASSERT_EQ(json_integer_value(json_object_get(j, "version")),
	          SKIT_AGENT_OPTIONS_VERSION);
	/* Members not named keep SKIT_AGENT_OPTIONS_INIT's values. */
	ASSERT(json_is_true(json_object_get(j, "dynamic_context")));
	ASSERT(json_is_true(json_object_get(j, "file_tools")));
	ASSERT(json_is_null(json_object_get(j, "runs_dir")));
	ASSERT_STR(json_string_value(json_object_get(j, "tool_search")),
	           "auto");
	json_decref(j);
	j = options("agent", set);
	ASSERT_EQ(json_integer_value(json_object_get(j, "max_turns")), 7);
	ASSERT_STR(json_string_value(json_object_get(j, "sandbox_mode")),
	           "read-only");
	ASSERT(json_is_true(json_object_get(j, "keep_temp")));
	ASSERT_STR(json_string_value(json_object_get(j, "project_dir")), "/p");
	ASSERT_STR(json_string_value(json_object_get(j, "tool_search")),
	           "never");
	json_decref(j);
	ASSERT_OK(skit_ffi_options(&text, "agent", big, NULL));
	ASSERT_CONTAINS(text, "\"max_tokens\": 18446744073709551615");
	skit_free(text);
	j = options("model", key);
	ASSERT_STR(json_string_value(json_object_get(j, "api_key")), "(set)");
	json_decref(j);
	j = options("skill", bits);
	ASSERT(json_is_true(json_object_get(j, "lenient")));
	ASSERT(json_is_false(json_object_get(j, "lint")));
	ASSERT_EQ(json_integer_value(json_object_get(j, "version")),
	          SKIT_SKILL_OPTIONS_VERSION);
	json_decref(j);
	j = options("prompt", (const char *const[]){ "format", "markdown",
	                                             "budget", "900", NULL });
	ASSERT_STR(json_string_value(json_object_get(j, "format")), "markdown");
	ASSERT_EQ(json_integer_value(json_object_get(j, "budget")), 900);
	json_decref(j);
}

static void test_ffi__bad_options(void)
{
	skit_model *model = NULL;

	ASSERT_STR(refused("agent", (const char *const[]){ "nope", "1", NULL }),
	           "unknown option 'nope'");
	ASSERT_STR(refused("host",
	                   (const char *const[]){ "max_turns", "1", NULL }),
	           "unknown option 'max_turns'");
	ASSERT_STR(refused("agent",
	                   (const char *const[]){ "max_turns", "1", "max_turns",
	                                          "2", NULL }),
	           "option 'max_turns' given twice");
	ASSERT_STR(refused("agent", (const char *const[]){ "max_turns", NULL }),
	           "option 'max_turns' has no value");
	ASSERT_CONTAINS(refused("agent", (const char *const[]){ "max_turns",
	                                                        "-1", NULL }),
	                "option 'max_turns': bad value '-1'");
	ASSERT_CONTAINS(
	        refused("agent", (const char *const[]){ "max_turns",
	                                                "4294967296", NULL }),
	        "max_turns");
	ASSERT_CONTAINS(refused("agent", (const char *const[]){ "max_turns",
	                                                        "12x", NULL }),
	                "12x");
	ASSERT_CONTAINS(refused("agent",
	                        (const char *const[]){ "max_turns", "", NULL }),
	                "max_turns");
	ASSERT_CONTAINS(
	        refused("agent",
	                (const char *const[]){ "max_tokens",
	                                       "18446744073709551616", NULL }),
	        "max_tokens");
	ASSERT_CONTAINS(refused("agent", (const char *const[]){ "keep_temp",
	                                                        "yes", NULL }),
	                "keep_temp");
	ASSERT_CONTAINS(refused("agent", (const char *const[]){ "tool_search",
	                                                        "some", NULL }),
	                "tool_search");
	ASSERT_CONTAINS(refused("host", (const char *const[]){ "sandbox_mode",
	                                                       "open", NULL }),
	                "sandbox_mode");
	ASSERT_CONTAINS(
	        refused("prompt",
	                (const char *const[]){ "format", "yaml", NULL }),
	        "format");
	ASSERT_CONTAINS(refused("nosuch", NULL), "unknown options kind");
	ASSERT_EQ(skit_ffi_model_new(&model, NULL, NULL, NULL), SKIT_EUSAGE);
	ASSERT(!model);
}

static void test_ffi__entries_and_search(void)
{
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	char buf[PATH_MAX], *out = NULL;
	json_t *j, *e;

	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(reg, "ex", examples(buf, sizeof(buf)),
	                                 &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT_OK(skit_ffi_registry_entries(&out, reg, false, &err));
	j = parse(out);
	ASSERT_EQ(json_array_size(j), skit_registry_count(reg));
	e = json_array_get(j, 1);
	ASSERT_STR(json_string_value(json_object_get(e, "name")), "csv-report");
	ASSERT_STR(json_string_value(json_object_get(e, "source")), "ex");
	ASSERT_STR(json_string_value(json_object_get(e, "root")), buf);
	ASSERT_STR(json_string_value(json_object_get(e, "state")), "active");
	ASSERT(json_is_null(json_object_get(e, "reason")));
	json_decref(j);
	ASSERT_OK(skit_ffi_registry_search(&out, reg, "csv", 0, 1000000, &err));
	j = parse(out);
	ASSERT(json_array_size(j) >= 1);
	e = json_array_get(j, 0);
	ASSERT_STR(json_string_value(json_object_get(
	                   json_object_get(e, "entry"), "name")),
	           "csv-report");
	ASSERT(json_real_value(json_object_get(e, "score")) > 0);
	json_decref(j);
	ASSERT_OK(skit_ffi_registry_search(&out, reg, "csv", 0, 0, &err));
	ASSERT_STR(out, "[]");
	skit_free(out);
	ASSERT_OK(skit_ffi_registry_diags(&out, reg, &err));
	ASSERT_STR(out, "[]");
	skit_free(out);
	ASSERT_OK(skit_ffi_registry_index(
	        &out, reg, (const char *const[]){ "format", "markdown", NULL },
	        &err));
	ASSERT_CONTAINS(out, "- csv-report: ");
	skit_free(out);
	skit_registry_free(reg);
}

/* A root and a description with bytes JSON must escape, one of them
 * outside UTF-8. */
static void test_ffi__escapes(void)
{
	skit_registry *reg = NULL;
	skit_skill *skill = NULL;
	skit_error err = { 0 };
	char root[PATH_MAX], dir[PATH_MAX + 16], *out = NULL;
	FILE *f;

	scratch();
	snprintf(root, sizeof(root), "%s/caf\xe9", top);
	snprintf(dir, sizeof(dir), "%s/q", root);
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	snprintf(dir, sizeof(dir), "%s/q/SKILL.md", root);
	f = fopen(dir, "w");
	ASSERT(f);
	fputs("---\nname: q\ndescription: 'say \"hi\" \\ \xc3\xa9'\n---\n", f);
	fclose(f);
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(reg, "r", root, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT_OK(skit_ffi_registry_entries(&out, reg, true, &err));
	ASSERT_CONTAINS(out, "/caf\\udce9/q/SKILL.md\"");
	ASSERT_CONTAINS(out,
	                "\"description\": \"say \\\"hi\\\" \\\\ \xc3\xa9\"");
	skit_free(out);
	/* An invalid skill's diagnostics as JSON. */
	f = fopen(dir, "w");
	ASSERT(f);
	fputs("---\nname: Q\n---\n", f);
	fclose(f);
	*strrchr(dir, '/') = '\0';
	ASSERT_OK(skit_ffi_skill_load(&skill, dir, NULL, &err));
	ASSERT(!skit_skill_valid(skill));
	ASSERT_OK(skit_ffi_skill_diags(&out, skill, &err));
	ASSERT_CONTAINS(out, "{\"severity\": \"error\", \"code\": ");
	ASSERT_CONTAINS(out, "caf\\udce9");
	skit_free(out);
	skit_skill_free(skill);
	skit_registry_free(reg);
}

static int approvals;
static char last_request[4096];

static int approve(const char *request_json, void *payload)
{
	approvals++;
	snprintf(last_request, sizeof(last_request), "%s", request_json);
	return *(int *)payload;
}

static void test_ffi__approval_hook(void)
{
	const char *call = "{\"skill\": \"csv-report\", \"path\": "
	                   "\"scripts/report.py\", \"args\": [\"d.csv\"]}";
	skit_ffi_hooks *hooks = NULL;
	skit_registry *reg = NULL;
	skit_host *host = NULL;
	skit_error err = { 0 };
	char buf[PATH_MAX], *out = NULL;
	int answer = SKIT_APPROVE_YES;
	bool is_error = true;
	json_t *j;
	FILE *f;

	scratch();
	snprintf(buf, sizeof(buf), "%s/d.csv", top);
	f = fopen(buf, "w");
	ASSERT(f);
	fputs("a,b\n1,2\n", f);
	fclose(f);
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(reg, "ex", examples(buf, sizeof(buf)),
	                                 &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT_OK(
	        skit_ffi_hooks_new(&hooks, approve, NULL, NULL, &answer, &err));
	ASSERT_OK(skit_ffi_host_new(
	        &host, reg, NULL, hooks,
	        (const char *const[]){ "project_dir", top, NULL }, &err));
	ASSERT_OK(skit_host_activate(host, "csv-report", NULL, &out, &is_error,
	                             &err));
	skit_free(out);
	ASSERT_OK(skit_host_call(host, "run_skill_script", call, &out,
	                         &is_error, NULL, &err));
	ASSERT(!is_error);
	ASSERT_CONTAINS(out, "Rows: 1");
	skit_free(out);
	ASSERT_EQ(approvals, 1);
	j = json_loads(last_request, 0, NULL);
	ASSERT(j);
	ASSERT_STR(json_string_value(json_object_get(j, "tool")),
	           "run_skill_script");
	ASSERT_STR(json_string_value(json_object_get(j, "risk")), "execute");
	ASSERT_STR(json_string_value(json_object_get(j, "target")),
	           "scripts/report.py d.csv");
	json_decref(j);
	/* An answer that is none of skit_approve_answer's is a refusal. */
	answer = 42;
	skit_host_free(host);
	ASSERT_OK(skit_ffi_host_new(
	        &host, reg, NULL, hooks,
	        (const char *const[]){ "project_dir", top, NULL }, &err));
	ASSERT_OK(skit_host_activate(host, "csv-report", NULL, &out, &is_error,
	                             &err));
	skit_free(out);
	ASSERT_OK(skit_host_call(host, "run_skill_script", call, &out,
	                         &is_error, NULL, &err));
	ASSERT(is_error);
	ASSERT_EQ(approvals, 2);
	skit_free(out);
	ASSERT_OK(skit_ffi_host_index(&out, host, NULL, &err));
	ASSERT_CONTAINS(out, "<available_skills>");
	skit_free(out);
	skit_host_free(host);
	skit_ffi_hooks_free(hooks);
	skit_registry_free(reg);
}

static void test_ffi__agent_state(void)
{
	skit_ffi_hooks *hooks = NULL;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	char buf[PATH_MAX], spec[PATH_MAX + 16], *out = NULL;
	json_t *j;
	FILE *f;

	scratch();
	snprintf(buf, sizeof(buf), "%s/c.jsonl", top);
	f = fopen(buf, "w");
	ASSERT(f);
	fputs("{\"text\": \"Hello.\"}\n", f);
	fclose(f);
	snprintf(spec, sizeof(spec), "replay:%s", buf);
	ASSERT_OK(skit_ffi_hooks_new(&hooks, NULL, NULL, NULL, NULL, &err));
	ASSERT_OK(skit_ffi_model_new(
	        &model, hooks, (const char *const[]){ "spec", spec, NULL },
	        &err));
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_add_root(reg, "ex", examples(buf, sizeof(buf)),
	                                 &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT_OK(skit_ffi_agent_new(&agent, reg, model, NULL, hooks,
	                             (const char *const[]){ "project_dir", top,
	                                                    "max_turns", "2",
	                                                    NULL },
	                             &err));
	ASSERT_OK(skit_agent_send(agent, "hi", &out, &err));
	ASSERT_STR(out, "Hello.");
	skit_free(out);
	ASSERT_OK(skit_ffi_agent_state(&out, agent, &err));
	j = parse(out);
	ASSERT_EQ(json_integer_value(json_object_get(j, "turns")), 1);
	ASSERT_EQ(json_array_size(json_object_get(j, "active")), 0);
	ASSERT(json_is_null(json_object_get(j, "run_dir")));
	ASSERT_EQ(json_integer_value(json_object_get(j, "index_skills")),
	          skit_registry_count(reg));
	json_decref(j);
	/* skit_ffi_hooks_cancel(): the next send stops at once. */
	skit_ffi_hooks_cancel(hooks, true);
	ASSERT_EQ(skit_agent_send(agent, "again", &out, &err), SKIT_ECANCELED);
	ASSERT(!out);
	skit_ffi_hooks_cancel(hooks, false);
	skit_agent_free(agent);
	skit_model_free(model);
	skit_ffi_hooks_free(hooks);
	skit_registry_free(reg);
}

static char tool_seen[256];

static int stock(const char *name, const char *arguments, skit_tool_output *out,
                 bool *is_error, void *payload)
{
	(void)is_error, (void)payload;
	snprintf(tool_seen, sizeof(tool_seen), "%s %s", name, arguments);
	return skit_tool_output_puts(out, "apples: 42 in stock");
}

static void test_ffi__tools(void)
{
	skit_ffi_hooks *hooks = NULL;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	char buf[PATH_MAX], spec[PATH_MAX + 16], *out = NULL;
	FILE *f;

	scratch();
	snprintf(buf, sizeof(buf), "%s/t.jsonl", top);
	f = fopen(buf, "w");
	ASSERT(f);
	fputs("{\"tool_calls\": [{\"id\": \"t1\", \"name\": "
	      "\"mcp__shop__stock\", \"arguments\": {\"item\": "
	      "\"apples\"}}]}\n"
	      "{\"expect\": {\"contains\": [\"apples: 42 in stock\"]}, "
	      "\"text\": \"42 apples.\"}\n",
	      f);
	fclose(f);
	snprintf(spec, sizeof(spec), "replay:%s", buf);
	ASSERT_OK(skit_ffi_hooks_new(&hooks, NULL, NULL, NULL, NULL, &err));
	ASSERT_EQ(skit_ffi_hooks_add_tool(hooks, "mcp__shop__x", "X", NULL,
	                                  "risky", stock, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "unknown risk 'risky'");
	ASSERT_OK(skit_ffi_hooks_add_tool(hooks, "mcp__shop__stock",
	                                  "How many of an item the shop holds.",
	                                  "{\"type\": \"object\"}", "read",
	                                  stock, &err));
	ASSERT_OK(skit_ffi_model_new(
	        &model, hooks, (const char *const[]){ "spec", spec, NULL },
	        &err));
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_ffi_agent_new(
	        &agent, reg, model, NULL, hooks,
	        (const char *const[]){ "project_dir", top, NULL }, &err));
	ASSERT_OK(skit_agent_send(agent, "apples?", &out, &err));
	ASSERT_STR(out, "42 apples.");
	skit_free(out);
	ASSERT_STR(tool_seen, "mcp__shop__stock {\"item\":\"apples\"}");
	skit_agent_free(agent);
	/* skit_agent_new()'s checks apply: a name of skit's own tools. */
	ASSERT_OK(skit_ffi_hooks_add_tool(hooks, "shell", "Mine.", NULL, NULL,
	                                  stock, &err));
	ASSERT_EQ(
	        skit_ffi_agent_new(&agent, reg, model, NULL, hooks, NULL, &err),
	        SKIT_EINVALID);
	for (int i = 2; i < SKIT_AGENT_MAX_TOOLS; i++)
		ASSERT_OK(skit_ffi_hooks_add_tool(hooks, "mcp__a__b", "B", NULL,
		                                  NULL, stock, &err));
	ASSERT_EQ(skit_ffi_hooks_add_tool(hooks, "mcp__a__c", "C", NULL, NULL,
	                                  stock, &err),
	          SKIT_EINVALID);
	skit_model_free(model);
	skit_ffi_hooks_free(hooks);
	skit_registry_free(reg);
}

static char asked_json[512];

static int answer_it(const char *question_json, skit_tool_output *answer,
                     void *payload)
{
	(void)payload;
	snprintf(asked_json, sizeof(asked_json), "%s", question_json);
	return skit_tool_output_puts(answer, "b.csv");
}

static void test_ffi__ask(void)
{
	skit_ffi_hooks *hooks = NULL;
	skit_registry *reg = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	char buf[PATH_MAX], spec[PATH_MAX + 16], *out = NULL;
	FILE *f;

	scratch();
	snprintf(buf, sizeof(buf), "%s/a.jsonl", top);
	f = fopen(buf, "w");
	ASSERT(f);
	fputs("{\"tool_calls\": [{\"id\": \"q1\", \"name\": "
	      "\"ask_user\", \"arguments\": {\"question\": \"Which "
	      "file?\", \"options\": [\"a.csv\", \"b.csv\"]}}]}\n"
	      "{\"expect\": {\"contains\": [\"b.csv\"]}, \"text\": "
	      "\"b.csv it is.\"}\n",
	      f);
	fclose(f);
	snprintf(spec, sizeof(spec), "replay:%s", buf);
	ASSERT_OK(skit_ffi_hooks_new(&hooks, NULL, NULL, NULL, NULL, &err));
	skit_ffi_hooks_set_ask(hooks, answer_it);
	ASSERT_OK(skit_ffi_model_new(
	        &model, hooks, (const char *const[]){ "spec", spec, NULL },
	        &err));
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_ffi_agent_new(
	        &agent, reg, model, NULL, hooks,
	        (const char *const[]){ "project_dir", top, NULL }, &err));
	ASSERT_OK(skit_agent_send(agent, "profile it", &out, &err));
	ASSERT_STR(out, "b.csv it is.");
	skit_free(out);
	ASSERT_STR(asked_json, "{\"question\": \"Which file?\", \"options\": "
	                       "[\"a.csv\", \"b.csv\"], \"multi\": false}");
	skit_agent_free(agent);
	skit_model_free(model);
	skit_ffi_hooks_free(hooks);
	skit_registry_free(reg);
}

static void test_ffi__status_names(void)
{
	ASSERT_STR(skit_ffi_status_name(SKIT_OK), "OK");
	ASSERT_STR(skit_ffi_status_name(SKIT_ENOTFOUND), "ENOTFOUND");
	ASSERT_STR(skit_ffi_status_name(SKIT_EDENIED), "EDENIED");
	ASSERT_STR(skit_ffi_status_name(-999), "UNKNOWN");
}

/* clang-format off */
TEST_MAIN(
	TEST(test_ffi__options)
	TEST(test_ffi__bad_options)
	TEST(test_ffi__entries_and_search)
	TEST(test_ffi__escapes)
	TEST(test_ffi__approval_hook)
	TEST(test_ffi__agent_state)
	TEST(test_ffi__tools)
	TEST(test_ffi__ask)
	TEST(test_ffi__status_names))
/* clang-format on */
