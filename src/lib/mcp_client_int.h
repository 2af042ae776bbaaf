/* SPDX-License-Identifier: MIT */
/*
 * mcp_client_int.h - the MCP tool provider (mcp_client.c) as the agent's
 * tool code sees it: the tools it offers and how a call runs.
 */
#ifndef SKIT_LIB_MCP_CLIENT_INT_H
#define SKIT_LIB_MCP_CLIENT_INT_H

#include <jansson.h>

#include "skit/model.h"
#include "util/buf.h"

struct skit_agent;
struct skit__mcp;

/* Most MCP tools offered at once, over all servers. */
#define SKIT__MCP_TOOLS_MAX 128

/* Append to `out` (room for `max`) the MCP tools the policy offers now.
 * The strings are borrowed from the provider. Returns the count added. */
size_t skit__mcp_schemas(struct skit_agent *a, skit_tool_schema *out,
                         size_t max);

/* Whether `name` is a tool of a running server; *read_only tells whether
 * it is annotated readOnlyHint. */
bool skit__mcp_known(const struct skit__mcp *m, const char *name,
                     bool *read_only);

/* Call the MCP tool `name` (already approved) with `args`: the same
 * contract as skit__tools_call(). */
int skit__mcp_call(struct skit_agent *a, const char *name, json_t *args,
                   struct skitx_buf *out, bool *is_error, skit_error *err);

/* Shut every server down and free the provider. NULL is a no-op. */
void skit__mcp_free(struct skit__mcp *m);

#endif
