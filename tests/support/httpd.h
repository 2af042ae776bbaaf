/* SPDX-License-Identifier: MIT */
/*
 * httpd.h - a scripted HTTP/1.1 server for tests, on 127.0.0.1.
 *
 * httpd_start() listens on an ephemeral port and serves from a thread of
 * the test process. Each request is recorded (method, path, header block,
 * body; Content-Length and chunked request bodies are both read) and
 * answered with the next scripted response from a FIFO queue; with the
 * queue empty the answer is a 500 whose body says so. Connections are
 * kept alive (so libcurl's connection reuse is exercised) unless a
 * response is cut short. Several connections may be open at once; the
 * server handles one request at a time.
 *
 *	struct httpd *h;
 *	httpd_response r = HTTPD_RESPONSE_INIT;
 *	httpd_start(&h);
 *	r.body = "{\"ok\":true}";
 *	httpd_push(h, &r);
 *	... point a client at httpd_url(h) ...
 *	ASSERT_STR(httpd_request_at(h, 0)->path, "/v1/x");
 *	httpd_stop(h);
 *
 * Not thread-safe for several test threads; the server thread and one
 * test thread is what it is for. Aborts the test process on setup
 * failures (it is test code).
 */
#ifndef SKIT_TEST_HTTPD_H
#define SKIT_TEST_HTTPD_H

#include <stdbool.h>
#include <stddef.h>

struct httpd;

/* A scripted response. Strings are copied by httpd_push(). */
typedef struct {
	int status;               /* 0: 200 */
	const char *content_type; /* NULL: application/json */
	const char *headers;      /* extra lines, each ending "\r\n"; or NULL */
	const char *body;         /* NULL: empty */
	/*
	 * > 0: send the body with chunked encoding, in pieces of this many
	 * bytes, pausing chunk_delay_ms between pieces. 0: Content-Length.
	 */
	size_t chunk;
	int chunk_delay_ms;
	/*
	 * > 0: send only this many body bytes, then close the connection
	 * (the framing promised more, so the client sees a cut transfer).
	 */
	size_t cut_after;
	int delay_ms;    /* wait this long before answering */
	size_t body_len; /* > 0: `body` is this many bytes (binary); 0: strlen
	                  */
} httpd_response;

/* clang-format off */
#define HTTPD_RESPONSE_INIT { 0, NULL, NULL, NULL, 0, 0, 0, 0, 0 }
/* clang-format on */

/* A recorded request. Owned by the server; valid until httpd_stop(). */
typedef struct {
	char method[16];
	char path[1024];
	char *headers; /* the header lines as received, "\r\n"-separated */
	char *body;    /* NUL-terminated (chunked bodies decoded) */
	size_t body_len;
} httpd_request;

/* Start a server. Returns 0, or -1 when it could not listen. */
int httpd_start(struct httpd **out);

/* Stop the thread, close every socket and free everything. */
void httpd_stop(struct httpd *h);

/* "http://127.0.0.1:PORT" (no trailing slash). */
const char *httpd_url(const struct httpd *h);

/* Queue a response for the next request without an answer. */
void httpd_push(struct httpd *h, const httpd_response *r);

/* Shorthand: queue `status` with a JSON `body`. */
void httpd_push_json(struct httpd *h, int status, const char *body);

/*
 * Queue `r` with its body read from the file `path` (a recorded or
 * hand-written answer, e.g. an event stream). Aborts when the file
 * cannot be read.
 */
void httpd_push_file(struct httpd *h, const httpd_response *r,
                     const char *path);

/* Number of requests received so far. */
size_t httpd_request_count(struct httpd *h);

/*
 * The `i`th request (from 0), or NULL. Valid until the next request
 * arrives (the list may move): read it before sending another.
 */
const httpd_request *httpd_request_at(struct httpd *h, size_t i);

/*
 * The value of header `name` (case-insensitive) in `r`, copied into `buf`
 * of `size` bytes; NULL when absent.
 */
const char *httpd_header(const httpd_request *r, const char *name, char *buf,
                         size_t size);

/* Number of connections accepted so far (to check keep-alive). */
size_t httpd_connections(struct httpd *h);

#endif
