/* SPDX-License-Identifier: MIT */
/*
 * ask.h - the ask_user tool (ask.c): the model asks the user a question,
 * with choices or not, and gets the answer through the tool host's ask
 * callback (the agent's skit_agent_options.on_ask); private to the tools
 * folder (the skill tools' provider, tools.c, serves it).
 */
#ifndef SKIT_LIB_TOOLS_ASK_H
#define SKIT_LIB_TOOLS_ASK_H

#include <jansson.h>

#include "lib/tools/tool_provider.h"

extern const skit_tool_schema skit__tool_ask_schema;

/* ask_user with `args` ({question, options?, multi?}): the answer, or an
 * error result telling the model what to do without one. */
int skit__tool_ask(struct skit__tool_ctx *c, json_t *args,
                   struct skitx_buf *out, bool *is_error, skit_error *err);

#endif
