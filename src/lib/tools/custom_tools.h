/* SPDX-License-Identifier: MIT */
/*
 * custom_tools.h - the tools an embedding program gives skit's agent
 * (skit_agent_options.tools, skit_tool_def in skit/agent.h), served as
 * one provider of tool_provider.h (library-internal).
 *
 * The provider checks and copies the definitions, lists them as external
 * tools (gated as an MCP server's tools are, with the risk class the
 * program gave) and runs a decided call through the program's callback.
 * It never asks the user and never decides: the agent's gate did that
 * before the call reaches it. The agent (agent.c) creates it; nothing
 * else includes this header.
 */
#ifndef SKIT_LIB_CUSTOM_TOOLS_H
#define SKIT_LIB_CUSTOM_TOOLS_H

#include "skit/agent.h"
#include "lib/tools/tool_provider.h"

/* What a callback (a program's tool, an ask_user answer) writes into:
 * capped at SKIT_TOOL_OUTPUT_CAP, and whether the cap cut it. */
struct skit_tool_output {
	struct skitx_buf b;
	bool cut;
};

struct skit__custom_tools;

/* The provider; its state is a struct skit__custom_tools. */
extern const struct skit__tool_provider_ops skit__custom_tools;

/*
 * Check and copy the `n` definitions at `defs` (skit_tool_def's rules:
 * an mcp__SERVER__TOOL name that is none of skit's own tools and is
 * given once, a description, a callback, an object schema, a known risk
 * class). 0 and the provider's state in *out (freed by the provider's
 * release, or skit__custom_tools_free()); SKIT_EINVALID naming the
 * definition; SKIT_ENOMEM.
 */
int skit__custom_tools_new(struct skit__custom_tools **out,
                           const skit_tool_def *defs, size_t n,
                           skit_error *err);

/* Free the state. NULL is a no-op. */
void skit__custom_tools_free(struct skit__custom_tools *t);

#endif
