/* SPDX-License-Identifier: MIT */
/*
 * sse.h - an incremental Server-Sent Events parser (library-internal).
 *
 * Feed it the bytes of a text/event-stream body in chunks of any size; it
 * calls back once per complete event. It follows the WHATWG "event stream
 * interpretation": fields "data", "event", "id" and "retry"; lines that
 * start with ':' are comments; several "data" lines join with "\n"; CR, LF
 * and CRLF end lines, and a chunk may end anywhere, even between the CR
 * and the LF of a CRLF; a UTF-8 BOM at the very start is skipped. An event
 * is dispatched on a blank line; one with no "data" line is dropped, and
 * so is an unfinished event when the stream ends.
 *
 * It knows nothing about HTTP or JSON. It does not allocate for events
 * that fit in one chunk: the data then points into the caller's chunk.
 */
#ifndef SKIT_LIB_SSE_H
#define SKIT_LIB_SSE_H

#include "util/buf.h"

/* Default cap on one event's data, and on one line. */
#define SKIT__SSE_MAX_DATA (8u * 1024 * 1024)

/*
 * One event. Pointers are valid only during the callback; none is
 * NUL-terminated. `event` is "" (length 0) when the event had no "event"
 * field (the spec's default type "message"). `id` is the last event id
 * seen on the stream so far.
 */
struct skit__sse_event {
	const char *event;
	size_t event_len;
	const char *data;
	size_t data_len;
	const char *id;
	size_t id_len;
};

/* Return 0 to go on; non-zero stops the parse and is returned by feed. */
typedef int (*skit__sse_cb)(const struct skit__sse_event *ev, void *payload);

struct skit__sse {
	skit__sse_cb cb;
	void *payload;
	size_t max_data;
	struct skitx_buf line;  /* an unfinished line carried between chunks */
	struct skitx_buf data;  /* the event's data when it spans chunks */
	struct skitx_buf event; /* the event type */
	struct skitx_buf id;    /* the last event id */
	const char *data_ref;   /* data not yet copied: points into a chunk */
	size_t data_ref_len;
	long retry_ms;    /* last "retry" value, -1 when none */
	unsigned int bom; /* BOM bytes matched so far (before any line) */
	bool started;     /* past the BOM check */
	bool has_data;    /* the event has at least one data line */
	bool skip_lf;     /* the last chunk ended with CR */
};

/* Set up `p`; `max_data` 0 means SKIT__SSE_MAX_DATA. */
void skit__sse_init(struct skit__sse *p, skit__sse_cb cb, void *payload,
                    size_t max_data);

/*
 * Parse `len` more bytes. Returns 0; SKIT_ETOOBIG when an event's data or
 * a line is over the cap; SKIT_ENOMEM; or the callback's non-zero value.
 * After an error the parser must only be released.
 */
int skit__sse_feed(struct skit__sse *p, const char *buf, size_t len);

/*
 * The stream ended. A final line without a line end is processed (an
 * event still needs its blank line, so an unfinished event is dropped).
 * Returns as feed does.
 */
int skit__sse_finish(struct skit__sse *p);

/* Free what `p` holds. It can be initialised again. */
void skit__sse_release(struct skit__sse *p);

#endif
