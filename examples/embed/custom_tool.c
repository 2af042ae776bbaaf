/* SPDX-License-Identifier: MIT */
/*
 * custom_tool.c - a tool of the program's own in skit's agent
 * (docs/embedding.md, "Your own tools"): the model calls
 * mcp__demo__stock, the program answers from its own data, and skit
 * gates, approves and traces the call as it does its own tools.
 *
 *   cc custom_tool.c $(pkg-config --cflags --libs skit) -o custom_tool
 *   ./custom_tool    # from this folder: the skills are ../skills and
 *                    # the model is the cassette custom_tool.jsonl
 *
 * Offline: the model is skit's replay provider, which plays back
 * custom_tool.jsonl. Its second answer is given only when the request
 * carries the tool's result ("expect"), so the run succeeds only when
 * the result reached the model. Exits 0 when the tool was called once
 * and the answer quotes it.
 */
#include <stdio.h>
#include <string.h>

#include <skit/skit.h>

/* The program's own data, which the tool reads. */
struct shop {
	unsigned int calls;
};

/*
 * mcp__demo__stock: how many of `item` the shop holds. The arguments are
 * the model's JSON object as text; the result goes to `out`, which the
 * agent owns. A real program would parse the JSON with its own parser;
 * this one looks for the two items it knows.
 */
static int stock(const char *arguments, skit_tool_output *out, bool *is_error,
                 void *payload)
{
	struct shop *shop = payload;

	shop->calls++;
	if (strstr(arguments, "\"apples\""))
		return skit_tool_output_puts(out, "apples: 42 in stock") < 0
		               ? SKIT_ENOMEM
		               : 0;
	if (strstr(arguments, "\"pears\""))
		return skit_tool_output_puts(out, "pears: none left") < 0
		               ? SKIT_ENOMEM
		               : 0;
	*is_error = true; /* an error the model sees; the task goes on */
	return skit_tool_output_puts(out, "unknown item") < 0 ? SKIT_ENOMEM : 0;
}

static void trace(skit_trace_kind kind, const char *line, void *payload)
{
	(void)kind;
	(void)payload;
	fprintf(stderr, "[skit] %s\n", line);
}

int main(void)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_tool_def tool = SKIT_TOOL_DEF_INIT;
	struct shop shop = { 0 };
	skit_registry *reg = NULL;
	skit_policy *pol = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	char *answer = NULL;
	int ok = 0;

	tool.name = "mcp__demo__stock"; /* mcp__SERVER__TOOL */
	tool.description = "How many of an item the shop holds.";
	tool.parameters = "{\"type\": \"object\", \"properties\": "
	                  "{\"item\": {\"type\": \"string\"}}, "
	                  "\"required\": [\"item\"]}";
	tool.risk = SKIT_RISK_EXECUTE; /* asks unless a pattern allows it */
	tool.call = stock;
	tool.payload = &shop;

	mo.spec = "replay:custom_tool.jsonl";
	ao.tools = &tool;
	ao.ntools = 1;
	ao.file_tools = false; /* the skill tools and ours only */
	ao.hooks.on_trace = trace;

	if (skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "examples", "../skills", &err) ||
	    skit_registry_scan(reg, &err) || skit_policy_new(&pol, &err) ||
	    /* as `--allow mcp__demo` would: every tool of "demo" */
	    skit_policy_add(pol, SKIT_POLICY_LIST_ALLOW, "mcp__demo", &err) ||
	    skit_model_new(&model, &mo, &err))
		goto out;
	ao.registry = reg;
	ao.model = model;
	ao.policy = pol;
	if (skit_agent_new(&agent, &ao, &err) ||
	    skit_agent_send(agent, "How many apples are left?", &answer, &err))
		goto out;
	printf("%s\n", answer);
	ok = shop.calls == 1 && strstr(answer, "42") != NULL;
	if (!ok)
		snprintf(err.message, sizeof(err.message),
		         "the tool ran %u time(s) and the answer lacks its "
		         "result",
		         shop.calls);
out:
	if (!ok)
		fprintf(stderr, "custom_tool: %s\n", err.message);
	skit_free(answer);
	skit_agent_free(agent);
	skit_model_free(model);
	skit_policy_free(pol);
	skit_registry_free(reg);
	return ok ? 0 : 1;
}
