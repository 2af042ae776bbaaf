/* SPDX-License-Identifier: MIT */
#ifndef SKIT_MCP_CLIENT_H
#define SKIT_MCP_CLIENT_H

#include "skit/agent.h"
#include "skit/common.h"

/**
 * @file skit/mcp_client.h
 * @brief MCP servers whose tools the agent offers as `mcp__SERVER__TOOL`.
 *
 * Servers are configured under `mcpServers`, in the shape Claude Code and
 * Claude Desktop use: `command`, `args` and `env` for a stdio server;
 * `url` and `headers` for an HTTP one. A server a project defines runs
 * only once the user approved that exact definition (its digest is kept
 * under `mcpApproved` in the user config). See docs/mcp.md.
 */

SKIT_BEGIN_DECL

/** The configured servers. Opaque. */
typedef struct skit_mcp_config skit_mcp_config;

/** One configured server, as skit_mcp_config_server() shows it. */
typedef struct {
	const char *name;    /**< the key under mcpServers */
	const char *origin;  /**< the file that defined it */
	const char *digest;  /**< "sha256:HEX" of the definition */
	const char *command; /**< stdio: the program; else NULL */
	const char *url;     /**< HTTP: the endpoint; else NULL */
	bool project;        /**< defined by the project (needs approval) */
	bool approved;       /**< may start: a user's, or approved */
	/**
	 * The whole definition as written, on one line, for an approval
	 * prompt: `command arg... (env NAME=VALUE, ...)` or
	 * `url (headers NAME=VALUE, ...)`. `${VAR}` references are shown
	 * unexpanded: they are read from skit's environment when the
	 * server starts.
	 */
	const char *summary;
} skit_mcp_server_info;

/** Make an empty configuration. @return SKIT_OK or SKIT_ENOMEM. */
SKIT_EXTERN int skit_mcp_config_new(skit_mcp_config **out, skit_error *err);

/**
 * Read the `mcpServers` of the JSON file `path` (a missing file adds
 * nothing) and, from a user file, its `mcpApproved` digests. A project
 * file (`project`) cannot redefine a server a user file defines: that
 * definition is skipped.
 *
 * @return SKIT_OK; SKIT_EINVALID for a malformed file or server (err
 *         names it; nothing of that file is kept); SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_config_load(skit_mcp_config *c, const char *path,
                                     bool project, skit_error *err);

/** Number of servers. */
SKIT_EXTERN size_t skit_mcp_config_count(const skit_mcp_config *c);

/** Server `i` (< count). Strings borrowed until the config is freed. */
SKIT_EXTERN void skit_mcp_config_server(const skit_mcp_config *c, size_t i,
                                        skit_mcp_server_info *out);

/** Let server `i` start (or not) for this run only. */
SKIT_EXTERN void skit_mcp_config_set_approved(skit_mcp_config *c, size_t i,
                                              bool approved);

/**
 * Remember in the user config `path` (created when missing) that the
 * definition of server `name` with `digest` is approved.
 * @return SKIT_OK; SKIT_EINVALID when the file is not a JSON object;
 *         SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_approval_save(const char *path, const char *name,
                                       const char *digest, skit_error *err);

/** Free `c`. NULL is a no-op. */
SKIT_EXTERN void skit_mcp_config_free(skit_mcp_config *c);

/**
 * Start the approved servers of `c` for `agent` (a stdio server as its
 * own process; an HTTP server by opening a Streamable HTTP session) and
 * list their tools, which the model is then offered (subject to the
 * policy). A server that does not start or answer is reported through
 * the trace hook and the audit trail, and left out; the others still
 * run. Servers are shut down (HTTP sessions ended) by skit_agent_free().
 * `c` is only read during the call.
 *
 * @param timeout_ms  longest wait for a server's start-up answers; 0: 60 s
 * @return SKIT_OK or SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_agent_use_mcp(skit_agent *agent, const skit_mcp_config *c,
                                   long timeout_ms, skit_error *err);

SKIT_END_DECL

#endif
