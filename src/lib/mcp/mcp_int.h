/* SPDX-License-Identifier: MIT */
/*
 * mcp_int.h - what the MCP server's protocol core (mcp.c) shares with
 * its HTTP transport (mcp_http.c): sessions and the message handler.
 *
 * The mcp subsystem (src/lib/mcp/) owns the Model Context Protocol at
 * both ends. The server (skit/mcp.h): the protocol core with the skills
 * extension, tools and prompts (mcp.c), ask_user by elicitation
 * (mcp_elicit.c) and its Streamable HTTP transport (mcp_http.c). The client
 * (skit/mcp_client.h, mcp_client_int.h): what an approval of a project server
 * covers (mcp_approval_digest.c), the `mcpServers` configuration
 * (mcp_config.c), the approvals of project servers (mcp_approvals.c), the tool
 * provider of the servers' tools (mcp_client.c) and the client's HTTP transport
 * (mcp_client_http.c, mcp_client_http.h). It is the top of the library: it uses
 * agent, tools, model, pack, skill, core and util, and nothing below includes
 * it. This header is its door: only the files of src/lib/mcp/ include
 * it and the other headers here; the CLI sees the public headers, and
 * the unit tests may reach a transport (test_mcp_client.c).
 */
#ifndef SKIT_LIB_MCP_INT_H
#define SKIT_LIB_MCP_INT_H

#include <jansson.h>

#include "skit/agent.h"
#include "skit/mcp.h"
#include "util/buf.h"

/* Most HTTP sessions open at once; the oldest is dropped beyond it. */
#define SKIT__MCP_MAX_SESSIONS 64

/*
 * The stdio channel while skit_mcp_serve_stdio() runs, so that a tool
 * call can put a request to the client and read its answer
 * (mcp_elicit.c). `in` holds what was read; the bytes before `*used`
 * are handled, the rest is waiting.
 */
struct skit__mcp_io {
	int in_fd, out_fd;
	struct skitx_buf *in;
	const size_t *used;
	size_t max_message;
	const volatile int *stop;
	unsigned long next_id;
};

/* One client's state: its handshake, log level and activated skills. */
struct skit__mcp_session {
	char id[33];        /* HTTP: the Mcp-Session-Id; "" for stdio */
	bool initialized;   /* initialize answered */
	int log_level;      /* notifications/message at or above this */
	skit_agent *agent;  /* the skill tools' state; made on first use */
	json_t *queue;      /* notifications waiting to be sent */
	unsigned long seen; /* last use, to drop the oldest */
	/* The private folder scripts work in when the server has no
	 * project (started in home, / or a system folder); removed with
	 * the session. NULL when there is a project. */
	char *scratch;
	bool elicit;             /* the client can be asked (elicitation) */
	struct skit__mcp_io *io; /* stdio only, while serving; else NULL */
};

/*
 * ask_user for a session's agent (skit_ask_fn; `payload` is the
 * session): an `elicitation/create` request to a client that declared
 * the capability, over stdio (mcp_elicit.c). SKIT_ENOTFOUND when no one
 * can answer: another client, HTTP, the client gone, or no answer in 30
 * minutes.
 */
int skit__mcp_ask(const skit_question *q, skit_tool_output *answer,
                  void *payload);

/* Open a new session with a random id. NULL on out of memory. */
struct skit__mcp_session *skit__mcp_session_open(skit_mcp_server *srv);

/* The session called `id`, or NULL. */
struct skit__mcp_session *skit__mcp_session_find(skit_mcp_server *srv,
                                                 const char *id);

/* Close and free a session. */
void skit__mcp_session_close(skit_mcp_server *srv, struct skit__mcp_session *s);

/* skit_mcp_server_handle() for one session. */
int skit__mcp_handle(skit_mcp_server *srv, struct skit__mcp_session *s,
                     const char *msg, size_t len, char **response,
                     skit_error *err);

/* Pop the session's next queued notification (NULL when none). */
char *skit__mcp_next(struct skit__mcp_session *s);

/* The largest message accepted, in bytes. */
size_t skit__mcp_max_message(const skit_mcp_server *srv);

/* Whether the server offers run_skill_script (--allow-scripts). */
bool skit__mcp_scripts_allowed(const skit_mcp_server *srv);

/* Whether `v` names a protocol revision the server speaks. */
bool skit__mcp_version_ok(const char *v);

#endif
