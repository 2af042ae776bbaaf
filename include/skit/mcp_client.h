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
 * only once the user approved it: that definition, in that project, with
 * the content the project files its command line names have now (the
 * digest of all three is kept under `mcpApproved` in the user config).
 * A project's stdio server starts in the project folder. See
 * docs/mcp.md, "Project servers need approval", for what is covered and
 * what is not.
 */

SKIT_BEGIN_DECL

/** The configured servers. Opaque. */
typedef struct skit_mcp_config skit_mcp_config;

/** One configured server, as skit_mcp_config_server() shows it. */
typedef struct {
	const char *name;   /**< the key under mcpServers */
	const char *origin; /**< the file that defined it */
	/** "sha256:HEX" of what an approval covers: for a project's
	 *  server its definition, the project's real path and the content
	 *  of the project files its command line names; for a user's, the
	 *  definition. */
	const char *digest;
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

/**
 * skit_mcp_config_load() of a configuration held in memory: the same
 * JSON (`{"mcpServers": {...}}`, and from a user's text `mcpApproved`),
 * the same checks and the same precedence, for a program that builds
 * its servers' definitions itself. `json` is NUL-terminated, at most
 * 1 MiB, and copied.
 *
 * @param origin  what the text stands for, recorded as each server's
 *                origin (skit_mcp_server_info) and named in errors, e.g.
 *                "myapp:builtin"; with `project`, the path the project's
 *                file would have (`DIR/.mcp.json` or
 *                `DIR/.agents/skit.json`): its servers are DIR's, start
 *                there, and need approval as a project file's do.
 * @return SKIT_OK; SKIT_EINVALID for text that is not a JSON object or a
 *         malformed server (err names `origin`; nothing of the text is
 *         kept); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_config_load_json(skit_mcp_config *c, const char *json,
                                          const char *origin, bool project,
                                          skit_error *err);

/** Number of servers. */
SKIT_EXTERN size_t skit_mcp_config_count(const skit_mcp_config *c);

/** Server `i` (< count). Strings borrowed until the config is freed. */
SKIT_EXTERN void skit_mcp_config_server(const skit_mcp_config *c, size_t i,
                                        skit_mcp_server_info *out);

/** Let server `i` start (or not) for this run only; `false` also
 *  overrides a remembered approval. */
SKIT_EXTERN void skit_mcp_config_set_approved(skit_mcp_config *c, size_t i,
                                              bool approved);

/**
 * Remember in the user config `path` (created when missing; NULL: the
 * user's own, ${XDG_CONFIG_HOME:-~/.config}/skit/config.json) that
 * project server `i` of `c` is approved as it is now: a record under
 * `mcpApproved` with its name, project, digest and the time, which
 * replaces the record of the same server of the same project. Records
 * of an older skit (`"NAME": "DIGEST"`) approve nothing any more and
 * are dropped.
 * @return SKIT_OK; SKIT_EINVALID when the file is not a JSON object or
 *         its `mcpApproved` is not an object; SKIT_ENOTFOUND when
 *         `path` is NULL and there is no user config; SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_approval_save_server(const skit_mcp_config *c,
                                              size_t i, const char *path,
                                              skit_error *err);

/**
 * Remember that server `name` with `digest` (skit_mcp_server_info) is
 * approved, as skit_mcp_approval_save_server() does but without the
 * project in the record: the digest covers the project all the same,
 * but `skit approvals list` cannot show it, and each new digest of the
 * server adds a record (at most 256 are kept, the oldest dropped).
 * Prefer skit_mcp_approval_save_server().
 * @return as skit_mcp_approval_save_server().
 */
SKIT_EXTERN int skit_mcp_approval_save(const char *path, const char *name,
                                       const char *digest, skit_error *err);

/** A remembered approval of a project's MCP server. Every string is owned
 *  by the list (skit_mcp_approvals_free()). */
typedef struct {
	char *id;      /**< 12 hex digits, stable for one project and server */
	char *server;  /**< the server's name */
	char *project; /**< the project's real path; "" when not recorded */
	char *digest;  /**< the digest approved (skit_mcp_server_info) */
	char *time;    /**< when approved, UTC ISO 8601; may be "" */
	/** The project still defines the server with this digest (its
	 *  definition and files unchanged); false when it cannot tell. */
	bool current;
} skit_mcp_approval;

/**
 * The remembered approvals in the user config `path` (NULL: the user's
 * own), oldest first. A missing file has none.
 * @param[out] out  `n` items, owned by the caller:
 *                  skit_mcp_approvals_free()
 * @return SKIT_OK; SKIT_EINVALID for a malformed file; SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_approvals_list(const char *path,
                                        skit_mcp_approval **out, size_t *n,
                                        skit_error *err);

/** Free a list from skit_mcp_approvals_list(). NULL is a no-op. */
SKIT_EXTERN void skit_mcp_approvals_free(skit_mcp_approval *v, size_t n);

/**
 * Forget the remembered approval `id`, or every one (and an older skit's
 * records) when `id` is NULL, in the user config `path` (NULL: the
 * user's own).
 * @param[out] removed  how many records were removed (may be NULL)
 * @return SKIT_OK; SKIT_ENOTFOUND when no record has that id;
 *         SKIT_EINVALID for a malformed file; SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_approvals_revoke(const char *path, const char *id,
                                          size_t *removed, skit_error *err);

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
