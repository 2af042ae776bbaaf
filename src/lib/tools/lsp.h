/* SPDX-License-Identifier: MIT */
/*
 * lsp.h - the `lsp` tool (lsp.c): code intelligence from the language
 * servers the program configured (skit_agent_options.lsp_servers), one
 * provider of tool_provider.h, and its JSON-RPC transport (lsp_rpc.c);
 * private to the tools folder and the agent, which creates the provider
 * (docs/lsp.md).
 *
 * A language server is the user's program: it runs outside the sandbox,
 * as an MCP server does, in the project folder, in its own process group,
 * with a scrubbed environment and stderr to /dev/null. skit hands it only
 * files it opened inside the project (the file tools' contained open);
 * what the server itself reads or runs is not contained. Everything it
 * sends is capped: a header block at SKIT__LSP_MAX_HEADER bytes, a message
 * at SKIT__LSP_MAX_MESSAGE; a server that breaks the framing is stopped.
 *
 * What it does not do: edit (rename, code actions, formatting), complete,
 * or give a server anything but the files a call names.
 */
#ifndef SKIT_LIB_TOOLS_LSP_H
#define SKIT_LIB_TOOLS_LSP_H

#include <sys/types.h>

#include <jansson.h>

#include "skit/agent.h"
#include "lib/tools/tool_provider.h"
#include "util/buf.h"

#define SKIT__LSP_MAX_HEADER  (8 * 1024)        /* bytes of a header block */
#define SKIT__LSP_MAX_MESSAGE (8 * 1024 * 1024) /* bytes of a message body */

/* ---- the transport (lsp_rpc.c) ---------------------------------------- */

/* One running server: its process and the socket that is its stdin and
 * stdout. Zero it, then skit__lsp_conn_start(). */
struct skit__lsp_conn {
	pid_t pid;           /* 0: not running (never started, or reaped) */
	int fd;              /* -1: closed */
	struct skitx_buf in; /* bytes read, not yet a whole message */
	long long next_id;   /* the last request id used */
	const volatile int *cancel; /* the agent's flag; may be NULL */
	/* The latest publishDiagnostics of each document: an object from
	 * URI to {"seq": N, "diagnostics": [...]} (owned), and the number
	 * of the last one received. */
	json_t *diags;
	long long diag_seq;
	int status; /* waitpid() status once reaped, else -1 */
};

/*
 * Start `argv` (NULL-ended; argv[0] looked up on PATH) in folder `cwd`,
 * in its own process group, with a scrubbed environment (PATH, HOME, the
 * locale and a few toolchain variables) and stderr to /dev/null. 0;
 * SKIT_ENOTFOUND when the program is not there, SKIT_EIO for another
 * failure (message in err), SKIT_ENOMEM.
 */
int skit__lsp_conn_start(struct skit__lsp_conn *c, const char *const *argv,
                         const char *cwd, skit_error *err);

/* Send notification `method` with `params` (borrowed; may be NULL). 0,
 * SKIT_EIO (the server no longer reads), SKIT_ECANCELED, SKIT_ENOMEM. */
int skit__lsp_conn_notify(struct skit__lsp_conn *c, const char *method,
                          json_t *params, skit_error *err);

/*
 * Send request `method` with `params` (borrowed) and wait up to
 * `timeout_ms` for its response, answering the server's own requests
 * and keeping its diagnostics meanwhile. 0 with the response message in
 * *resp (owned; it holds "result" or "error"); SKIT_ETIMEOUT (a
 * $/cancelRequest was sent; the server is kept), SKIT_ECANCELED (the
 * agent's flag; likewise), SKIT_EIO when the server broke the protocol
 * or exited (it is then stopped), SKIT_ENOMEM.
 */
int skit__lsp_conn_request(struct skit__lsp_conn *c, const char *method,
                           json_t *params, long timeout_ms, json_t **resp,
                           skit_error *err);

/*
 * Read what the server sends for up to `timeout_ms`, until diagnostics
 * for `uri` numbered above `after` have come. 0 once they have;
 * SKIT_ETIMEOUT, SKIT_ECANCELED, SKIT_EIO, SKIT_ENOMEM as for requests.
 */
int skit__lsp_conn_wait_diags(struct skit__lsp_conn *c, const char *uri,
                              long long after, long timeout_ms,
                              skit_error *err);

/* The latest diagnostics of `uri` (borrowed) and their number in *seq,
 * or NULL when none came. */
json_t *skit__lsp_conn_diags(struct skit__lsp_conn *c, const char *uri,
                             long long *seq);

/*
 * Stop the server: with `polite`, the shutdown request and the exit
 * notification, then a short wait; then SIGTERM and SIGKILL to its
 * process group, and reap it. Its waitpid() status is left in c->status
 * (-1 when it was not running). Frees the buffers; `c` may be started
 * again.
 */
void skit__lsp_conn_stop(struct skit__lsp_conn *c, bool polite);

/* "exit status 1", "killed by signal 9": `st` as waitpid() gives it. */
void skit__lsp_status_text(int st, char *buf, size_t cap);

/* ---- the provider (lsp.c) --------------------------------------------- */

extern const struct skit__tool_provider_ops skit__lsp_tools;

struct skit__lsp;

/*
 * Check and copy the `n` servers at `servers` for the project folder
 * `project_dir` (absolute; copied): a name of letters, digits, '-' or
 * '_' (at most 64), a non-empty argv, at least one extension starting
 * with '.', at most SKIT_AGENT_MAX_LSP_SERVERS servers, each name once.
 * 0 and the provider's state in *out (freed by the provider's release or
 * skit__lsp_free()); SKIT_EUSAGE naming the bad server; SKIT_ENOMEM.
 * Nothing starts here: a server starts on the first call for its files.
 */
int skit__lsp_new(struct skit__lsp **out, const skit_lsp_server *servers,
                  size_t n, const char *project_dir, skit_error *err);

/* For tests only: the wait for a request's answer (default 30 s) and
 * for a file's diagnostics (default 5 s), in milliseconds; 0 keeps one. */
void skit__lsp_set_timeouts(struct skit__lsp *l, long request_ms,
                            long diags_ms);

/*
 * The servers `l` was made with, as skit_lsp_server entries borrowed
 * from `l` (valid until it is freed), into *out; their count. For a
 * subagent, which starts servers of its own from the same definitions.
 * NULL `l`: none.
 */
size_t skit__lsp_servers(const struct skit__lsp *l,
                         const skit_lsp_server **out);

/* Stop every server and free the state. NULL is a no-op. */
void skit__lsp_free(struct skit__lsp *l);

#endif
