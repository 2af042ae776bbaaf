/* SPDX-License-Identifier: MIT */
/*
 * policy_external.h - the policy's decision for an external tool of any
 * risk class (library-internal; the door of src/lib/policy/ for the
 * agent's tool gate, which includes it; policy_int.h stays the policy
 * files' own).
 *
 * External tools are named mcp__SERVER__TOOL: the tools of MCP servers
 * and an embedder's own (skit_agent_options.tools). Patterns name them as
 * skit_policy_check_mcp() says. Public skit_policy_check_mcp() and
 * skit_policy_offers_mcp() know two classes, read-only and execute; an
 * embedder's tool may also write or reach the network, which the policy
 * decides as such: "write call needs approval", and denied and hidden
 * under --no-network.
 */
#ifndef SKIT_LIB_POLICY_EXTERNAL_H
#define SKIT_LIB_POLICY_EXTERNAL_H

#include "skit/policy.h"

/* skit_policy_check_mcp() for a tool of risk `risk`. SKIT_OK, or
 * SKIT_ENOTFOUND when `tool` is not an mcp__SERVER__TOOL name. */
int skit__policy_check_external(const skit_policy *p,
                                const skit_active_skill *active, size_t nactive,
                                const char *tool, skit_risk risk,
                                skit_decision *out, skit_error *err);

/* skit_policy_offers_mcp() for a tool of risk `risk`; a network tool is
 * hidden under --no-network. */
bool skit__policy_offers_external(const skit_policy *p,
                                  const skit_active_skill *active,
                                  size_t nactive, const char *tool,
                                  skit_risk risk, bool interactive);

/* Whether calls that need approval are approved (--yes): for what the
 * agent asks the user that is not a call (exit_plan_mode's plan). */
bool skit__policy_yes(const skit_policy *p);

#endif
