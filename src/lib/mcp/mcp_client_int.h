/* SPDX-License-Identifier: MIT */
/*
 * mcp_client_int.h - the MCP tool provider (mcp_client.c), one provider
 * of tool_provider.h.
 */
#ifndef SKIT_LIB_MCP_CLIENT_INT_H
#define SKIT_LIB_MCP_CLIENT_INT_H

#include <jansson.h>

#include "lib/tools/tool_provider.h"

struct skit__mcp;

/* Most MCP tools offered at once, over all servers. */
#define SKIT__MCP_TOOLS_MAX 128

/* The provider of the servers' tools (tool_provider.h); its state is a
 * struct skit__mcp, added to the agent by skit_agent_use_mcp(). */
extern const struct skit__tool_provider_ops skit__mcp_tools;

/* Shut every server down and free the provider. NULL is a no-op. */
void skit__mcp_free(struct skit__mcp *m);

#endif
