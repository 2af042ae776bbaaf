/* SPDX-License-Identifier: MIT */
/*
 * mcp_client_int.h - the MCP client's half of the mcp subsystem, its
 * files from the bottom up, each using only those before it:
 * - mcp_approval_digest.c: what an approval of a project's server covers;
 * - mcp_config.c: the `mcpServers` configuration (parsing, ${VAR}
 *   expansion, the config's accessors but one);
 * - mcp_approvals.c: whether a remembered record approves a server,
 *   saving, listing and revoking records;
 * - mcp_search.c: web_search(query) as a call of the search backend's
 *   tool (the provider's call is handed in);
 * - mcp_client.c: the client and the tool provider, one provider of
 *   tool_provider.h, and the server-info accessor (it says whether a
 *   server is approved).
 *
 * Included by these files only (mcp_int.h says what the subsystem owns);
 * the HTTP transport has its own mcp_client_http.h.
 */
#ifndef SKIT_LIB_MCP_CLIENT_INT_H
#define SKIT_LIB_MCP_CLIENT_INT_H

#include <jansson.h>

#include "skit/mcp_client.h"
#include "lib/tools/tool_provider.h"

struct skit__mcp;

/* Most MCP tools offered at once, over all servers. */
#define SKIT__MCP_TOOLS_MAX 128

/* Longest tool name, the full mcp__SERVER__TOOL. */
#define SKIT__MCP_MAX_NAME 64

/* ---- the client (mcp_client.c) ---------------------------------------- */

/* The provider of the servers' tools (tool_provider.h); its state is a
 * struct skit__mcp, added to the agent by skit_agent_use_mcp(). */
extern const struct skit__tool_provider_ops skit__mcp_tools;

/* Shut every server down and free the provider. NULL is a no-op. */
void skit__mcp_free(struct skit__mcp *m);

/* ---- the configuration (mcp_config.c) --------------------------------- */

/* One server of `mcpServers`, as read from its file. */
struct skit__mcp_def {
	char *name, *origin, *command, *url;
	char *summary;      /* the definition as written, one line */
	char **args, **env; /* NULL-ended; env as NAME=VALUE */
	json_t *headers;    /* HTTP: an object of strings, or NULL */
	char *project_dir;  /* a project's server: the project, real path */
	/* What an approval covers: for a project's server, its definition,
	 * the project and the files its command line names (see
	 * skit__mcp_approval_digest()); for a user's, the definition. */
	char digest[72];
	bool project, approved, refused;
	/* "webSearch": the server's tool that skit's web_search calls
	 * (mcp_client.c); NULL when the server is not a search backend. */
	char *web_search;
};

struct skit_mcp_config {
	struct skit__mcp_def *v;
	size_t n;
	json_t *approvals; /* mcpApproved of the user files: id -> record */
	/* "webSearch": "provider" in a user's file: the model provider's
	 * hosted search (docs/agent.md, "Searching the web"). */
	bool provider_search;
};

/* Free what `d` holds (not `d` itself). */
void skit__mcp_def_release(struct skit__mcp_def *d);

/* A copy of `d` with the ${VAR} references of what runs expanded:
 * the command, args and env values, the URL and header values. An unset
 * variable without a default is an error naming it; `x` is to be
 * released either way. */
int skit__mcp_expand_def(const struct skit__mcp_def *d, struct skit__mcp_def *x,
                         skit_error *err);

/* A server or tool name as providers accept it in a tool name: 1 to
 * SKIT__MCP_MAX_NAME letters, digits, '-' or '_', without "__". */
bool skit__mcp_name_ok(const char *s);

/* ---- what an approval covers (mcp_approval_digest.c) ------------------ */

/* The project of a project file: the folder holding `.mcp.json`, or the
 * one above `.agents/skit.json`, by its real path. skitx_malloc'd; NULL
 * on OOM. */
char *skit__mcp_project_of(const char *file);

/* Set d->digest, what approving the project's server `d` (definition
 * `o`, d->project_dir set) covers: the definition, the project and the
 * project files its command line names. The words of that command line
 * are `w`'s: `d` with its ${VAR} expanded (mcp_config.c does), or `d`
 * itself. 0 or SKIT_ENOMEM. */
int skit__mcp_approval_digest(struct skit__mcp_def *d,
                              const struct skit__mcp_def *w, json_t *o,
                              skit_error *err);

/* ---- approvals (mcp_approvals.c) -------------------------------------- */

/* May `d` start: a user's server, or a project's approved in this run
 * or by a remembered record of `c` (the same name and digest), and not
 * refused in this run? */
bool skit__mcp_def_approved(const skit_mcp_config *c,
                            const struct skit__mcp_def *d);

/* ---- web_search through an MCP server (mcp_search.c) ---------------- */

#define SKIT__WEB_SEARCH "web_search"

/* A provider's call, for web_search to pass the query on. */
typedef int (*skit__mcp_call_fn)(void *self, struct skit__tool_ctx *c,
                                 const char *name, json_t *args,
                                 struct skitx_buf *out, bool *is_error,
                                 skit_error *err);

/* web_search's definition into `out` (offered when the server is `up`);
 * returns 1. */
size_t skit__mcp_search_list(struct skit__tool_def *out, bool up);

/* Run web_search(query) as a call of the MCP tool `tool` (its query
 * argument `arg`) through `call`, and frame the results. */
int skit__mcp_search_call(struct skit__tool_ctx *c, json_t *args,
                          const char *tool, const char *arg, bool read_only,
                          struct skitx_buf *out, bool *is_error,
                          skit_error *err, skit__mcp_call_fn call, void *self);

#endif
