/* SPDX-License-Identifier: MIT */
/*
 * model_http.h - what the HTTP model providers share (library-internal).
 *
 * skit__http_perform() sends one provider request through the model's
 * transport with retries, collects or streams the response, and turns
 * failures into one-line errors that name the provider ("openai: HTTP 401:
 * Incorrect API key provided"). The other helpers parse JSON answers,
 * pull an error message out of an error body, and assemble streamed tool
 * calls. None of this knows a wire format: model_openai.c and
 * model_anthropic.c do.
 *
 * Every message made here is scrubbed of the model's API key, even when a
 * server echoes it back.
 */
#ifndef SKIT_LIB_MODEL_HTTP_H
#define SKIT_LIB_MODEL_HTTP_H

#include "lib/model/model_int.h"
#include "lib/model/sse.h"
#include "util/buf.h"

/* Largest non-streamed response body. */
#define SKIT__HTTP_BODY_MAX (32u * 1024 * 1024)
/* Largest streamed text, and largest tool-call arguments text. */
#define SKIT__HTTP_TEXT_MAX (32u * 1024 * 1024)
#define SKIT__HTTP_ARGS_MAX (8u * 1024 * 1024)
/* Most tool calls in one response. */
#define SKIT__HTTP_CALLS_MAX 256u

/* One request to a provider, and what came back. */
struct skit__http_call {
	/* In: set by the provider. */
	const char *url;
	const char *const *headers; /* "Name: value", NULL-ended */
	const char *body;
	size_t body_len;
	/*
	 * Streaming: when `on_data` is set and the answer is 2xx with
	 * content-type text/event-stream, its bytes go to `on_data`
	 * (return 0, or a negative skit_status with `err` filled, which
	 * ends the call with that status). Any other answer is collected
	 * in `response`, so a server that ignores "stream" still works.
	 */
	int (*on_data)(const char *data, size_t len, void *payload);
	void *payload;

	/* Out. */
	long status;
	bool streamed;             /* the body went to on_data */
	struct skitx_buf response; /* the body otherwise */
	unsigned int attempts;     /* requests sent, retries included */
};

void skit__http_call_init(struct skit__http_call *call);
void skit__http_call_release(struct skit__http_call *call);

/*
 * Send `call` with `m`'s transport (created on first use when the model
 * has none), timeouts and retry policy. 429, 5xx and connection failures
 * are retried up to m->max_retries times with exponential backoff and
 * full jitter, or after `retry-after` when the server sent one (capped by
 * m->retry_max_ms); a stream that has started is never retried.
 *
 * @return 0 with a 2xx status; SKIT_EPROVIDER for any other status (the
 *         message has the status and the server's own message), or for a
 *         stream cut by the network ("truncated stream"); SKIT_ETOOBIG;
 *         SKIT_ETIMEOUT; SKIT_EIO; SKIT_ENOMEM; or what on_data returned.
 */
int skit__http_perform(skit_model *m, struct skit__http_call *call,
                       skit_error *err);

/*
 * Fill `err` with "PROVIDER: " and the formatted message, scrubbed of the
 * API key; return `code`.
 */
int skit__http_error(skit_model *m, skit_error *err, int code, const char *fmt,
                     ...) SKIT_PRINTF(4, 5);

/* Remove `m`'s API key from `err`'s message. */
void skit__http_scrub(skit_model *m, skit_error *err);

/*
 * Parse a JSON answer. Not JSON, or (with `want_object`) not an object:
 * SKIT_EPROVIDER "PROVIDER: malformed response (...)". `*out` is a new
 * reference.
 */
int skit__http_json(skit_model *m, json_t **out, const char *text, size_t len,
                    skit_error *err);

/*
 * The human message in an error body: error.message, error (a string),
 * message or detail, whichever comes first. Borrowed from `j`; NULL when
 * there is none.
 */
const char *skit__http_error_text(json_t *j);

/*
 * "PROVIDER: server error: MESSAGE" (SKIT_EPROVIDER), from an error
 * object found in a response or a stream.
 */
int skit__http_body_error(skit_model *m, json_t *j, skit_error *err);

/*
 * Check the request before it is encoded: every string valid UTF-8 (so a
 * failed jansson call afterwards means out of memory), tool names and
 * ids present. SKIT_EINVALID says which message or tool is wrong.
 */
int skit__http_check_request(skit_model *m, const skit_model_request *req,
                             skit_error *err);

/*
 * Encode `body` (reference stolen) as compact JSON into `*out` (free
 * with free(): jansson's allocation). `bad` says building it failed.
 */
int skit__http_dump(json_t *body, bool bad, char **out, size_t *len,
                    skit_error *err);

/* ---- tool calls assembled from stream deltas -------------------------- */

struct skit__partial_call {
	char *id;
	char *name;
	struct skitx_buf args;
	bool used;
};

struct skit__partial_calls {
	struct skit__partial_call *v;
	size_t n;
};

/*
 * The call at `index` (slots up to it are created empty). An index of
 * SKIT__HTTP_CALLS_MAX or more is a malformed response.
 */
int skit__partial_calls_at(skit_model *m, struct skit__partial_calls *pc,
                           size_t index, struct skit__partial_call **out,
                           skit_error *err);

/* Replace `*slot` with a copy of `len` bytes at `s`. */
int skit__partial_set(char **slot, const char *s, size_t len, skit_error *err);

/*
 * Add each used call to `out`, in index order. A call without a name is a
 * malformed response; one without an id gets "call_N".
 */
int skit__partial_calls_finish(skit_model *m, struct skit__partial_calls *pc,
                               skit_model_response *out, skit_error *err);

void skit__partial_calls_release(struct skit__partial_calls *pc);

/* ---- small JSON helpers ----------------------------------------------- */

/* `o[key]` when it is a string, else NULL. */
const char *skit__json_str(json_t *o, const char *key);

/* `o[key]` as a non-negative integer, else 0. */
uint64_t skit__json_u64(json_t *o, const char *key);

/*
 * `s` parsed as a JSON object (a new reference); an empty or NULL `s` is
 * {}. NULL when `s` is not an object's text.
 */
json_t *skit__json_object_from(const char *s);

/* ---- a streamed response ------------------------------------------- */

/*
 * What a provider keeps while its answer streams in. The provider's SSE
 * event callback (given to skit__stream_init) fills `text`, `calls`,
 * `stop_reason` and `usage`, sets `ended` at the stream's end marker
 * ("[DONE]", message_stop) and `finished` when the answer says it is
 * complete otherwise (a finish reason), and stores any status it fails
 * with in `cb_rc` before returning it.
 */
struct skit__stream {
	skit_model *m;
	skit_model_delta_cb on_delta;
	void *payload;
	skit_error *err;
	struct skit__sse sse;
	struct skitx_buf text;
	struct skit__partial_calls calls;
	char *stop_reason;
	skit_usage usage;
	bool ended, finished;
	int cb_rc;
};

void skit__stream_init(struct skit__stream *s, skit_model *m,
                       skit__sse_cb on_event, skit_model_delta_cb on_delta,
                       void *payload, skit_error *err);
void skit__stream_release(struct skit__stream *s);

/* Add `len` bytes of answer text and hand them to the delta callback. */
int skit__stream_text(struct skit__stream *s, const char *t, size_t len);

/* Parse a whole (non-streamed) answer body into `out`. */
typedef int (*skit__parse_whole_fn)(skit_model *m, skit_model_response *out,
                                    const struct skitx_buf *body,
                                    skit_error *err);

/*
 * Perform `call` and turn the answer into `out`: through `s` when it is
 * not NULL and the answer streamed (or is an event stream under another
 * content type), else through `parse_whole`. A stream that ends neither
 * `ended` nor `finished` is "truncated stream (no `end_marker`)".
 */
int skit__stream_complete(skit_model *m, struct skit__http_call *call,
                          struct skit__stream *s, const char *end_marker,
                          skit__parse_whole_fn parse_whole,
                          skit_model_response *out, skit_error *err);

#endif
