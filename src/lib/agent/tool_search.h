/* SPDX-License-Identifier: MIT */
/*
 * tool_search.h - deferred tools and the `tool_search` tool
 * (tool_search.c). Library-internal; docs/agent.md, "Many tools:
 * tool_search".
 *
 * When the definitions of the external tools (MCP servers', the
 * program's) would fill too much of the context window, they are left out
 * of the requests and named in tool_search's description instead; the
 * model loads the ones it needs with a search, and from then on they are
 * offered in full.
 */
#ifndef SKIT_LIB_AGENT_TOOL_SEARCH_H
#define SKIT_LIB_AGENT_TOOL_SEARCH_H

#include "lib/agent/agent_int.h"

#define SKIT__TOOL_SEARCH "tool_search"

/* Add the tool_search provider, deferring as `mode` says. 0 or
 * SKIT_ENOMEM. */
int skit__tool_search_init(struct skit_agent *a, skit_tool_search_mode mode,
                           skit_error *err);

/*
 * The tool list `out` (n of them, `external[k]` telling which are an
 * external tool's; room for one more) as the model is to see it: the
 * external tools not loaded left out and tool_search added when they are
 * deferred; unchanged otherwise. Returns the new count.
 */
size_t skit__tool_search_apply(struct skit_agent *a, skit_tool_schema *out,
                               const bool *external, size_t n);

/* The agent's mode (a subagent defers as its parent does). */
skit_tool_search_mode skit__tool_search_mode(const struct skit_agent *a);

#endif
