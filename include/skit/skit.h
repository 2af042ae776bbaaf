/* SPDX-License-Identifier: MIT */
#ifndef SKIT_SKIT_H
#define SKIT_SKIT_H

/**
 * @file skit/skit.h
 * @brief The whole public API of libskit.
 */

#include "skit/common.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "skit/registry.h"
#include "skit/prompt.h"
#include "skit/model.h"
#include "skit/agent.h"
#include "skit/audit.h"
#include "skit/policy.h"
#include "skit/sandbox.h"
#include "skit/pack.h"
#include "skit/eval.h"
#include "skit/scan.h"
#include "skit/mcp.h"
#include "skit/mcp_client.h"
#include "skit/ffi.h"
#include "skit/host.h"
#include "skit/session.h"

#endif /* SKIT_SKIT_H */
