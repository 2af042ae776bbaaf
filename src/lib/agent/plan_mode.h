/* SPDX-License-Identifier: MIT */
/*
 * plan_mode.h - plan mode and its tools, enter_plan_mode and
 * exit_plan_mode (plan_mode.c). Library-internal; docs/agent.md, "Plan
 * mode".
 */
#ifndef SKIT_LIB_AGENT_PLAN_MODE_H
#define SKIT_LIB_AGENT_PLAN_MODE_H

#include "lib/agent/agent_int.h"

#define SKIT__ENTER_PLAN_MODE "enter_plan_mode"
#define SKIT__EXIT_PLAN_MODE  "exit_plan_mode"

/* Add the provider of the two tools. 0 or SKIT_ENOMEM. */
int skit__plan_mode_init(struct skit_agent *a, skit_error *err);

/* Turn plan mode on or off; `by` names who did (audited, traced). */
void skit__plan_mode_set(struct skit_agent *a, bool on, const char *by);

/* Whether the tool `d` may be offered and called now: always outside
 * plan mode; in it, only what reads. */
bool skit__plan_mode_allows(const struct skit_agent *a,
                            const struct skit__tool_def *d);

#endif
