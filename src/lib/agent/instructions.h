/* SPDX-License-Identifier: MIT */
/*
 * instructions.h - the project's instructions (AGENTS.md, CLAUDE.md) in
 * the agent's system prompt and its trail. instructions.c finds, reads,
 * caps and frames the files (skit_instructions_load(), public); these
 * are the agent's uses of it. Private to src/lib/agent/.
 */
#ifndef SKIT_LIB_AGENT_INSTRUCTIONS_H
#define SKIT_LIB_AGENT_INSTRUCTIONS_H

#include "skit/agent.h"

struct skit_agent;
struct skitx_buf;

/*
 * Load the instructions for the agent's project (a->project_dir) and the
 * current folder into a->instructions, once, and trace each file: read,
 * cut, or skipped and why (an untrusted folder's file says how to trust
 * it). 0, or SKIT_ENOMEM with `err` set.
 */
int skit__instructions_attach(struct skit_agent *a, skit_error *err);

/*
 * With a->project_instructions on: skit__instructions_attach(), then the
 * framed text appended to `b` (nothing when no file was read). Called
 * where the system prompt is built, after the base prompt and before the
 * index. 0, or SKIT_ENOMEM with `err` set.
 */
int skit__instructions_prompt(struct skit_agent *a, struct skitx_buf *b,
                              skit_error *err);

/*
 * The `project_instructions` event of the trail (docs/audit.md): each
 * file of a->instructions with its path, size, what was shown and its
 * SHA-256, or why it was skipped. Nothing when no file was found.
 * Written once per agent, after `run_start`.
 */
void skit__instructions_audit(struct skit_agent *a);

#endif
