/* SPDX-License-Identifier: MIT */
/*
 * search.h - the model provider's hosted web search (search.c):
 * Anthropic's server tool `web_search_20250305`, where the user's config
 * says "webSearch": "provider" (docs/agent.md, "Searching the web").
 * Library-internal; agent.c calls these around each model call.
 */
#ifndef SKIT_LIB_AGENT_SEARCH_H
#define SKIT_LIB_AGENT_SEARCH_H

#include "lib/agent/agent_int.h"

/* Before a model call: offer the hosted search on this call or not. */
void skit__search_before(struct skit_agent *a);

/* After it: record the searches the provider made. */
void skit__search_after(struct skit_agent *a);

#endif
