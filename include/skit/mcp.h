/* SPDX-License-Identifier: MIT */
#ifndef SKIT_MCP_H
#define SKIT_MCP_H

#include "skit/common.h"
#include "skit/policy.h"
#include "skit/registry.h"

/**
 * @file skit/mcp.h
 * @brief An MCP (Model Context Protocol) server for a registry's skills.
 *
 * The server speaks JSON-RPC 2.0 at the protocol revisions listed in
 * docs/mcp.md (the newest is the one the official TypeScript SDK
 * speaks). It declares the Skills extension (`io.modelcontextprotocol/
 * skills`) under `capabilities.extensions`, answers `skills/list` and
 * `skills/get` with each skill's frontmatter and the sha256 digest and
 * size of every file, serves the files as `skill://<name>/<path>`
 * resources, and offers clients without the extension the agent's skill
 * tools (`use_skill`, `read_skill_resource`, `search_skills`, and
 * `run_skill_script` only when scripts are allowed, in the sandbox under
 * the given policy) and every user-invocable skill as a prompt.
 *
 * A server is one process's view of one registry; each session (the
 * stdio peer, or one HTTP session) has its own activated skills. Not
 * thread-safe: the HTTP transport serialises calls itself.
 */

SKIT_BEGIN_DECL

typedef struct skit_mcp_server skit_mcp_server;

/** Options for skit_mcp_server_new(); start from SKIT_MCP_OPTIONS_INIT. */
typedef struct {
	unsigned int version;    /**< SKIT_MCP_OPTIONS_VERSION */
	skit_registry *registry; /**< scanned; borrowed; required */
	/** The policy scripts run under (borrowed). NULL: an empty one. */
	const skit_policy *policy;
	/** Offer run_skill_script; each call is approved by this flag and
	 *  still decided by the policy (deny patterns win). */
	bool allow_scripts;
	size_t max_message; /**< largest JSON-RPC message; 0: 4 MiB */
	size_t page_size;   /**< skills per list page; 0: 100 */
	/** Scripts' private `HOME` and `TMPDIR`; NULL: a fresh temporary
	 *  folder per session. */
	const char *workdir;
	/** Where scripts run and what they may write. NULL: the registry's
	 *  project, else the current folder as skit_project_for_run()
	 *  finds it; when there is none (the home folder, `/`, a system
	 *  folder) each session gets a private folder of its own. */
	const char *project_dir;
} skit_mcp_options;

/* clang-format off */
#define SKIT_MCP_OPTIONS_VERSION 1
#define SKIT_MCP_OPTIONS_INIT { SKIT_MCP_OPTIONS_VERSION, NULL, NULL, false, 0, 0, NULL, NULL }
/* clang-format on */

/**
 * Create a server for `opts->registry`.
 * @param[out] out  owned by the caller; free with skit_mcp_server_free()
 * @return SKIT_OK; SKIT_EUSAGE for bad options; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_server_new(skit_mcp_server **out,
                                    const skit_mcp_options *opts,
                                    skit_error *err);

/**
 * Handle one JSON-RPC message of the default session (the stdio peer).
 * Malformed, oversized, unknown or premature requests get JSON-RPC error
 * responses, never a failure.
 *
 * @param[out] response  the response line (no newline), owned by the
 *                       caller (skit_free()); NULL for a notification
 * @return SKIT_OK, or SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_server_handle(skit_mcp_server *srv, const char *msg,
                                       size_t len, char **response,
                                       skit_error *err);

/**
 * The next notification the server has queued for the default session
 * (progress, log messages, resources/list_changed), or NULL when none.
 * Send queued notifications before the response they came with.
 * @param[out] out  owned by the caller (skit_free()); NULL when none
 * @return SKIT_OK or SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_mcp_server_next_notification(skit_mcp_server *srv,
                                                  char **out, skit_error *err);

/**
 * Watch the registry's roots (inotify, on Linux) so that a change there
 * rescans the registry and queues `notifications/resources/list_changed`.
 * @param[out] fd  a descriptor that becomes readable on a change (owned
 *                 by the server); -1 when watching is not possible
 * @return SKIT_OK; SKIT_EIO when the watch cannot be set.
 */
SKIT_EXTERN int skit_mcp_server_watch(skit_mcp_server *srv, int *fd,
                                      skit_error *err);

/**
 * Handle the changes pending on the watch descriptor: rescan and queue
 * the notification when a root changed. Never blocks.
 * @return SKIT_OK; the scan's error.
 */
SKIT_EXTERN int skit_mcp_server_changed(skit_mcp_server *srv, skit_error *err);

/**
 * Serve newline-delimited JSON-RPC on `in_fd` / `out_fd` until end of
 * input, or until `*stop` becomes non-zero (checked at least every 200
 * ms; may be NULL). Watches the roots when skit_mcp_server_watch() was
 * called.
 * @return SKIT_OK at end of input; SKIT_ECANCELED when stopped;
 *         SKIT_EIO when writing the output fails.
 */
SKIT_EXTERN int skit_mcp_serve_stdio(skit_mcp_server *srv, int in_fd,
                                     int out_fd, const volatile int *stop,
                                     skit_error *err);

/** Options for skit_mcp_serve_http(); start from SKIT_MCP_HTTP_INIT. */
typedef struct {
	unsigned int version; /**< SKIT_MCP_HTTP_VERSION */
	const char *host;     /**< numeric address; NULL: 127.0.0.1 */
	unsigned int port;    /**< 0: any free port (see on_ready) */
	const char *path;     /**< the endpoint; NULL: "/mcp" */
	/** The bearer token every request must carry; NULL: none. */
	const char *token;
	/** Extra allowed Origin values (exact), NULL-ended; may be NULL.
	 *  Loopback origins are always allowed. */
	const char *const *origins;
	/** Called once listening, with the bound port; may be NULL. */
	void (*on_ready)(unsigned int port, void *payload);
	void *payload;
} skit_mcp_http_options;

/* clang-format off */
#define SKIT_MCP_HTTP_VERSION 1
#define SKIT_MCP_HTTP_INIT { SKIT_MCP_HTTP_VERSION, NULL, 0, NULL, NULL, NULL, NULL, NULL }
/* clang-format on */

/**
 * Serve the Streamable HTTP transport (libmicrohttpd) until `*stop`
 * becomes non-zero. Requests with a foreign `Origin` get 403, without
 * the token 401; each `initialize` opens a session (`Mcp-Session-Id`).
 * A server that allows scripts needs a token: any local user can reach
 * the port.
 * @return SKIT_ECANCELED when stopped; SKIT_EUSAGE for a bad address,
 *         or for scripts allowed without `opts->token`; SKIT_EIO when
 *         the port cannot be bound.
 */
SKIT_EXTERN int skit_mcp_serve_http(skit_mcp_server *srv,
                                    const skit_mcp_http_options *opts,
                                    const volatile int *stop, skit_error *err);

/** Free the server and every session. NULL is a no-op. */
SKIT_EXTERN void skit_mcp_server_free(skit_mcp_server *srv);

SKIT_END_DECL

#endif /* SKIT_MCP_H */
