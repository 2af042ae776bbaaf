/* SPDX-License-Identifier: MIT */
/*
 * mcp_client_http.h - the Streamable HTTP transport of the MCP client
 * (library-internal; mcp_client.c is its only user).
 *
 * Each JSON-RPC message is POSTed to the server's one endpoint with
 * "Accept: application/json, text/event-stream". A request's answer comes
 * back as one JSON body or as an SSE stream holding the server's own
 * notifications and requests, then the answer; a stream that ends before
 * the answer, after events with ids, is resumed with GET and
 * Last-Event-ID, as the 2025-11-25 revision lets a server do. The
 * session id (Mcp-Session-Id) from the initialize answer, and the
 * negotiated MCP-Protocol-Version, go with every later message; the
 * session is ended with DELETE when the transport is freed.
 *
 * It does not: open the optional standing GET stream (server-initiated
 * messages outside a request are not received), or follow redirects. A
 * session the server forgot (HTTP 404) is reported; the caller starts a
 * new one.
 */
#ifndef SKIT_LIB_MCP_CLIENT_HTTP_H
#define SKIT_LIB_MCP_CLIENT_HTTP_H

#include <jansson.h>

#include "skit/common.h"

struct skit__mcp_http;

/* Most bytes in one message the server sends (a JSON body or an SSE
 * event), as for a stdio line. */
#define SKIT__MCP_MAX_MESSAGE (8u * 1024 * 1024)

/* The answer to a request the server sent inside a stream (a new
 * reference), or NULL when out of memory. */
typedef json_t *(*skit__mcp_answer_fn)(json_t *request);

/*
 * A transport for the endpoint `url`: https, or http to 127.0.0.1, ::1 or
 * localhost only (SKIT_EUNSAFE naming the rule; SKIT_EINVALID for a URL
 * that does not parse). `headers` (NULL, or an object of strings, taken
 * literally) go with every request; a name that is not a token, a value
 * with a control character, or a header the transport sets itself
 * (Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version,
 * Last-Event-ID) is SKIT_EINVALID. Nothing is sent yet.
 */
int skit__mcp_http_new(struct skit__mcp_http **out, const char *url,
                       json_t *headers, skit__mcp_answer_fn answer,
                       skit_error *err);

/*
 * Send `msg`. For a request (`id` >= 0, the id it carries) wait for the
 * answer with that id until `timeout_ms` has passed, and return it in
 * *result (owned by the caller); for a notification or an answer (`id`
 * < 0) wait for the server to accept it (HTTP 202) and leave *result
 * NULL (`result` may then be NULL).
 * @return 0; SKIT_ETIMEOUT; SKIT_ECANCELED; SKIT_ENOTFOUND when the
 *         server forgot the session (HTTP 404 to a message carrying it);
 *         SKIT_ENOMEM; SKIT_EIO for everything else the
 *         server or the network did (err says what: "HTTP 500: ...", "the
 *         connection failed: ...", "the server sent a message over 8 MiB").
 */
int skit__mcp_http_send(struct skit__mcp_http *h, json_t *msg, long long id,
                        long timeout_ms, json_t **result, skit_error *err);

/* From now on, an exchange stops with SKIT_ECANCELED soon after
 * `*cancel` becomes non-zero (NULL: never). The flag is borrowed. */
void skit__mcp_http_set_cancel(struct skit__mcp_http *h,
                               const volatile int *cancel);

/* Drop the session id and the protocol version, so that the next
 * message (an initialize) starts a new session. */
void skit__mcp_http_forget_session(struct skit__mcp_http *h);

/* Send "MCP-Protocol-Version: `version`" from now on (after initialize).
 * Returns 0 or SKIT_ENOMEM. */
int skit__mcp_http_set_version(struct skit__mcp_http *h, const char *version);

/* End the session (DELETE, waiting at most 2 s; errors ignored) and free
 * `h`. NULL is a no-op. */
void skit__mcp_http_free(struct skit__mcp_http *h);

#endif
