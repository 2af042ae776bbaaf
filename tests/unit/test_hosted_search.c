/* SPDX-License-Identifier: MIT */
/*
 * test_hosted_search.c - the model provider's hosted web search
 * (src/lib/agent/search.c, Anthropic's server tool web_search_20250305)
 * against a scripted Messages API server (tests/support/httpd.c): the
 * server tool is sent only where "webSearch": "provider" is in a user's
 * config and the policy allows WebSearch outright (never from a
 * project's file, never when it would ask, never under --no-network);
 * the server's blocks (server_tool_use, web_search_tool_result) are not
 * taken for tool calls, whole or streamed; the searches are audited.
 */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "support/httpd.h"
#include "skit/agent.h"
#include "skit/mcp_client.h"
#include "skit/model.h"
#include "skit/registry.h"

static char dir[PATH_MAX];

static const char whole[] =
        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":["
        "{\"type\":\"server_tool_use\",\"id\":\"srvtoolu_1\",\"name\":"
        "\"web_search\",\"input\":{\"query\":\"skit agent\"}},"
        "{\"type\":\"web_search_tool_result\",\"tool_use_id\":\"srvtoolu_1\","
        "\"content\":[{\"type\":\"web_search_result\",\"url\":"
        "\"https://example.org/\",\"title\":\"T\",\"encrypted_content\":"
        "\"abc\"}]},"
        "{\"type\":\"text\",\"text\":\"HOSTED-ANSWER\"}],"
        "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":10,"
        "\"output_tokens\":5,\"server_tool_use\":{\"web_search_requests\":"
        "2}}}";

/* The same answer as Server-Sent Events, the server tool's query
 * streamed as input_json_delta. */
static const char streamed[] =
        "event: message_start\ndata: {\"type\":\"message_start\","
        "\"message\":{\"usage\":{\"input_tokens\":10,\"output_tokens\":1}}}"
        "\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\","
        "\"index\":0,\"content_block\":{\"type\":\"server_tool_use\",\"id\":"
        "\"srvtoolu_1\",\"name\":\"web_search\",\"input\":{}}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
        "\"index\":0,\"delta\":{\"type\":\"input_json_delta\","
        "\"partial_json\":\"{\\\"query\\\": \\\"skit\\\"}\"}}\n\n"
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\","
        "\"index\":0}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\","
        "\"index\":1,\"content_block\":{\"type\":\"web_search_tool_result\","
        "\"tool_use_id\":\"srvtoolu_1\",\"content\":[]}}\n\n"
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\","
        "\"index\":1}\n\n"
        "event: content_block_start\ndata: {\"type\":\"content_block_start\","
        "\"index\":2,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\","
        "\"index\":2,\"delta\":{\"type\":\"text_delta\",\"text\":"
        "\"STREAMED-ANSWER\"}}\n\n"
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":"
        "{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":5,"
        "\"server_tool_use\":{\"web_search_requests\":1}}}\n\n"
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

struct run {
	const char *config; /* the config's JSON, or NULL */
	bool project;       /* ... as a project's file */
	const char *allow;  /* a policy flag pattern, or NULL */
	bool no_network;
	bool stream;
	/* what came back */
	char answer[256];
	bool sent_tool; /* the request had the server tool */
	bool audited;   /* a web_search event with searches */
	int searches;
};

static void init_run(struct run *r, const char *config, bool project,
                     const char *allow, bool no_network)
{
	memset(r, 0, sizeof(*r));
	r->config = config;
	r->project = project;
	r->allow = allow;
	r->no_network = no_network;
}

static void one_run(struct run *r)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	httpd_response hr = HTTPD_RESPONSE_INIT;
	skit_mcp_config *mc = NULL;
	skit_registry *reg = NULL;
	skit_policy *pol = NULL;
	skit_model *model = NULL;
	skit_agent *a = NULL;
	skit_error err = { 0 };
	char *answer = NULL, path[PATH_MAX * 2], line[4096];
	struct httpd *h;
	FILE *f;

	ASSERT_OK(httpd_start(&h));
	hr.body = r->stream ? streamed : whole;
	hr.content_type = r->stream ? "text/event-stream" : NULL;
	httpd_push(h, &hr);
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	mo.spec = "anthropic:claude-test";
	mo.api_key = "sk-ant-test-not-a-key";
	mo.base_url = httpd_url(h);
	mo.max_retries = 1;
	mo.no_stream = !r->stream;
	ASSERT_OK(skit_model_new(&model, &mo, &err));
	ASSERT_OK(skit_policy_new(&pol, &err));
	if (r->allow)
		ASSERT_OK(skit_policy_add_flag(pol, SKIT_POLICY_LIST_ALLOW,
		                               r->allow, &err));
	skit_policy_set_no_network(pol, r->no_network);
	ao.registry = reg;
	ao.model = model;
	ao.policy = pol;
	ao.project_dir = dir;
	ao.workdir = dir;
	snprintf(path, sizeof(path), "%s/runs", dir);
	mkdir(path, 0755);
	ao.runs_dir = path;
	ASSERT_OK(skit_agent_new(&a, &ao, &err));
	if (r->config) {
		ASSERT_OK(skit_mcp_config_new(&mc, &err));
		ASSERT_OK(skit_mcp_config_load_json(mc, r->config, "test.json",
		                                    r->project, &err));
		ASSERT_OK(skit_agent_use_mcp(a, mc, 0, &err));
		skit_mcp_config_free(mc);
	}
	if (skit_agent_send(a, "search the web", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	snprintf(r->answer, sizeof(r->answer), "%s", answer);
	ASSERT(httpd_request_at(h, 0));
	r->sent_tool = strstr(httpd_request_at(h, 0)->body,
	                      "\"web_search_20250305\"") != NULL;
	snprintf(path, sizeof(path), "%s/events.jsonl", skit_agent_run_dir(a));
	f = fopen(path, "r");
	ASSERT(f);
	r->audited = false;
	while (fgets(line, sizeof(line), f)) {
		json_t *e = json_loads(line, 0, NULL);
		const char *t = json_string_value(json_object_get(e, "type"));

		if (t && !strcmp(t, "web_search")) {
			r->audited = true;
			r->searches = (int)json_integer_value(
			        json_object_get(e, "searches"));
		}
		json_decref(e);
	}
	fclose(f);
	skit_free(answer);
	ASSERT_OK(skit_agent_finish(a, "ok", 0, &err));
	skit_model_free(model);
	skit_policy_free(pol);
	skit_registry_free(reg);
	httpd_stop(h);
}

static void setup(void)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(dir, sizeof(dir), "%s",
	         top ? top : "/tmp/skit-test-hosted-search");
	mkdir(dir, 0755);
}

#define CONFIG "{\"webSearch\": \"provider\"}"

static void test_hosted_search__offered_and_audited(void)
{
	struct run r;

	setup();
	init_run(&r, CONFIG, false, "WebSearch", false);
	one_run(&r);
	ASSERT(r.sent_tool);
	/* the server's blocks are not tool calls: the text is the answer */
	ASSERT_STR(r.answer, "HOSTED-ANSWER");
	ASSERT(r.audited);
	ASSERT_EQ(r.searches, 2);
}

static void test_hosted_search__streamed(void)
{
	struct run r;

	setup();
	init_run(&r, CONFIG, false, "WebSearch", false);
	r.stream = true;
	one_run(&r);
	ASSERT(r.sent_tool);
	ASSERT_STR(r.answer, "STREAMED-ANSWER");
	ASSERT_EQ(r.searches, 1);
}

static void test_hosted_search__not_offered(void)
{
	struct run none, project, ask, off;

	setup();
	init_run(&none, NULL, false, "WebSearch", false);
	init_run(&project, CONFIG, true, "WebSearch", false);
	init_run(&ask, CONFIG, false, NULL, false);
	init_run(&off, CONFIG, false, "WebSearch", true);
	/* no config; a project's file; the policy would ask; no network */
	one_run(&none);
	ASSERT(!none.sent_tool);
	one_run(&project);
	ASSERT(!project.sent_tool);
	one_run(&ask);
	ASSERT(!ask.sent_tool);
	one_run(&off);
	ASSERT(!off.sent_tool);
	ASSERT_STR(off.answer, "HOSTED-ANSWER");
}

static void test_hosted_search__bad_config(void)
{
	skit_mcp_config *mc = NULL;
	skit_error err = { 0 };

	ASSERT_OK(skit_mcp_config_new(&mc, &err));
	ASSERT_EQ(skit_mcp_config_load_json(mc, "{\"webSearch\": \"google\"}",
	                                    "test.json", false, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "\"webSearch\" takes \"provider\"");
	skit_mcp_config_free(mc);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_hosted_search__offered_and_audited)
	TEST(test_hosted_search__streamed)
	TEST(test_hosted_search__not_offered)
	TEST(test_hosted_search__bad_config))
/* clang-format on */
