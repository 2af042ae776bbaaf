/* SPDX-License-Identifier: MIT */
/*
 * search.c - the model provider's hosted web search (search.h).
 *
 * A server tool runs at the provider: the model searches and reads the
 * results there, and skit only sees that it did (the count in the
 * usage). No call reaches skit's gate, so no one can be asked about a
 * search. The tool is therefore offered on a call only when the policy
 * allows WebSearch outright (an allow pattern or --yes; the active
 * skills' allowed-tools and a subagent's narrowing included), never when
 * it would ask, never under --no-network, and never next to a
 * web_search tool of skit's (an MCP search backend), whose calls are
 * decided one by one. Today only Anthropic's Messages API has one that
 * an agent with tools can use.
 */
#include "common.h"

#include "lib/agent/search.h"
#include "lib/agent/subagent.h"
#include "lib/model/model_int.h"
#include "lib/tools/tool_provider.h"

/* Whether the hosted search may be offered on the next call. */
static bool allowed(struct skit_agent *a)
{
	skit_tool_schema tools[SKIT__TOOLS_MAX];
	skit_tool_request req = { "web_search", NULL, NULL };
	struct skit__tool_def def;
	skit_decision d;
	size_t n;

	if (!a->hosted_search ||
	    a->model->provider != &skit__provider_anthropic)
		return false;
	if (skit_policy_check(a->policy, a->view, a->nactive, &req, &d, NULL))
		return false;
	memset(&def, 0, sizeof(def));
	def.schema.name = "web_search";
	def.risk = SKIT_RISK_NETWORK;
	def.gate = SKIT__GATE_BUILTIN;
	skit__subagent_narrow(a, &def, &req, &d);
	if (d.verdict != SKIT_POLICY_ALLOW)
		return false;
	n = skit__tools_schemas(a, tools, SKIT__TOOLS_MAX);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tools[i].name, "web_search"))
			return false;
	return true;
}

void skit__search_before(struct skit_agent *a)
{
	a->model->hosted_search = allowed(a);
	a->model->searches = 0;
}

void skit__search_after(struct skit_agent *a)
{
	unsigned int n = a->model->searches;

	a->model->hosted_search = false;
	if (!n)
		return;
	skit__agent_audit(a, "web_search",
	                  json_pack("{s:s, s:s, s:i}", "via", "provider",
	                            "provider", skit_model_provider(a->model),
	                            "searches", (int)n));
	skit__agent_trace(a, SKIT_TRACE_TOOL,
	                  "web_search: %u search%s at the provider", n,
	                  n == 1 ? "" : "es");
}
