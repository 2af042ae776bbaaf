/* SPDX-License-Identifier: MIT */
/*
 * embed_v6.c - a program built against the installed libskit with the
 * options of version 6 (tests/package/embed_v6.sh): its own tool deferred
 * behind tool_search ("always"), found and called by the model, and a
 * language server whose program is missing, which the lsp tool reports.
 * The model is the replay cassette named on the command line; the
 * cassette's "expect" lines make the run fail unless the model was shown
 * what it should be. Exits 0 when the answer is the cassette's last.
 *
 *	embed_v6 SKILLS CASSETTE PROJECT
 */
#include <stdio.h>
#include <string.h>

#include <skit/skit.h>

static int stock(const char *arguments, skit_tool_output *out, bool *is_error,
                 void *payload)
{
	unsigned int *calls = payload;

	(void)arguments;
	(void)is_error;
	(*calls)++;
	return skit_tool_output_puts(out, "apples: 42 in stock") < 0
	               ? SKIT_ENOMEM
	               : 0;
}

int main(int argc, char **argv)
{
	static const char *const lsp_argv[] = { "no-such-language-server",
		                                NULL };
	static const char *const lsp_ext[] = { ".py", NULL };
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_tool_def tool = SKIT_TOOL_DEF_INIT;
	skit_lsp_server lsp = { "python", lsp_argv, lsp_ext, NULL };
	char spec[4096];
	unsigned int calls = 0;
	skit_registry *reg = NULL;
	skit_policy *pol = NULL;
	skit_model *model = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	char *answer = NULL;
	int ok = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: embed_v6 SKILLS CASSETTE PROJECT\n");
		return 2;
	}
	snprintf(spec, sizeof(spec), "replay:%s", argv[2]);
	mo.spec = spec;
	tool.name = "mcp__demo__stock";
	tool.description = "How many of an item the shop holds.";
	tool.risk = SKIT_RISK_READ;
	tool.call = stock;
	tool.payload = &calls;
	ao.tools = &tool;
	ao.ntools = 1;
	ao.tool_search = SKIT_TOOL_SEARCH_ALWAYS;
	ao.lsp_servers = &lsp;
	ao.nlsp_servers = 1;
	ao.project_dir = argv[3];
	ao.project_instructions = false;
	if (skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "skills", argv[1], &err) ||
	    skit_registry_scan(reg, &err) || skit_policy_new(&pol, &err) ||
	    skit_model_new(&model, &mo, &err))
		goto out;
	ao.registry = reg;
	ao.model = model;
	ao.policy = pol;
	if (skit_agent_new(&agent, &ao, &err) ||
	    skit_agent_send(agent, "How many apples?", &answer, &err))
		goto out;
	printf("%s\n", answer);
	ok = calls == 1 && !strcmp(answer, "EMBED-V6-DONE");
	if (!ok)
		snprintf(err.message, sizeof(err.message),
		         "the tool ran %u time(s); the answer: %s", calls,
		         answer);
out:
	if (!ok)
		fprintf(stderr, "embed_v6: %s\n", err.message);
	skit_free(answer);
	skit_agent_free(agent);
	skit_model_free(model);
	skit_policy_free(pol);
	skit_registry_free(reg);
	return ok ? 0 : 1;
}
