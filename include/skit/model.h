/* SPDX-License-Identifier: MIT */
#ifndef SKIT_MODEL_H
#define SKIT_MODEL_H

#include <stdint.h>

#include "skit/common.h"

/**
 * @file skit/model.h
 * @brief One interface to language models: `replay` (offline cassettes),
 *        `openai` (Chat Completions and compatible servers) and `anthropic`
 *        (Messages API), with HTTP behind a swappable transport.
 *
 * A request is a system prompt, a conversation (user, assistant and tool
 * messages; assistant messages may carry tool calls) and the tools the model
 * may call (name, description and a JSON Schema). A response is the
 * assistant's text, its tool calls, why it stopped, and token usage. With a
 * delta callback the providers stream (SSE) and report text as it arrives.
 *
 * Every string in requests and responses is UTF-8. Tool-call arguments and
 * tool schemas travel as JSON text. API keys are never copied into error
 * messages.
 */

SKIT_BEGIN_DECL

/* ---- HTTP transport seam --------------------------------------------- */

/** One HTTP request, as the providers build it. */
typedef struct {
	const char *method;         /**< "POST" or "GET" */
	const char *url;            /**< absolute http(s) URL */
	const char *const *headers; /**< "Name: value" strings, NULL-ended */
	const char *body;           /**< may be NULL */
	size_t body_len;
	long connect_timeout_ms; /**< 0: the transport's default */
	long total_timeout_ms;   /**< 0: none */
	/** NULL, or a flag: once non-zero the transfer is abandoned and
	 *  perform() returns SKIT_ECANCELED. */
	const volatile int *cancel;
} skit_http_request;

/**
 * Where a transport delivers a response. Each callback returns 0 to go
 * on, or non-zero to abort the transfer (that value is returned by
 * perform()). Header names are not NUL-terminated; compare with lengths.
 */
typedef struct {
	int (*on_status)(long status, void *payload);
	int (*on_header)(const char *name, size_t name_len, const char *value,
	                 size_t value_len, void *payload);
	int (*on_body)(const char *data, size_t len, void *payload);
	void *payload;
} skit_http_sink;

/** A transport: a vtable and its state. */
typedef struct skit_transport skit_transport;
struct skit_transport {
	/**
	 * Perform `req`, calling `sink` as the response arrives.
	 * @return 0 when a response was received (any status);
	 *         SKIT_ETIMEOUT; SKIT_EIO (connection refused, reset, DNS,
	 *         TLS — message in err); or a sink callback's non-zero value.
	 */
	int (*perform)(skit_transport *self, const skit_http_request *req,
	               const skit_http_sink *sink, skit_error *err);
	/** Release the transport. */
	void (*free)(skit_transport *self);
};

/** The default transport, on libcurl. Free with `t->free(t)`. */
SKIT_EXTERN int skit_transport_curl_new(skit_transport **out, skit_error *err);

/* ---- messages ------------------------------------------------------- */

/** Message roles. */
typedef enum {
	SKIT_ROLE_USER = 0,
	SKIT_ROLE_ASSISTANT = 1,
	SKIT_ROLE_TOOL = 2, /**< the result of one tool call */
} skit_role;

/** A tool call made by the model. */
typedef struct {
	const char *id;        /**< the provider's call id (never NULL) */
	const char *name;      /**< tool name */
	const char *arguments; /**< a JSON object text ("{}" when none) */
} skit_tool_call;

/** One conversation message. Borrowed by the request. */
typedef struct {
	skit_role role;
	const char *text; /**< user/assistant text, or the tool result; may
	                       be NULL for an assistant message of calls */
	const skit_tool_call *tool_calls; /**< assistant only */
	size_t tool_call_count;
	const char *tool_call_id; /**< tool: the call this answers */
	const char *tool_name;    /**< tool: the tool's name */
	bool is_error;            /**< tool: the result is an error */
} skit_message;

/** A tool the model may call. */
typedef struct {
	const char *name;
	const char *description;
	const char *parameters; /**< JSON Schema (an object) as text */
} skit_tool_schema;

/** What to ask the model. All borrowed for the call's duration. */
typedef struct {
	const char *system; /**< may be NULL */
	const skit_message *messages;
	size_t message_count;
	const skit_tool_schema *tools;
	size_t tool_count;
	unsigned int max_tokens; /**< output cap; 0: provider default */
} skit_model_request;

/** Token usage as the provider reported it (0 when it did not). */
typedef struct {
	uint64_t input_tokens;
	uint64_t output_tokens;
} skit_usage;

/** A model's answer. Owned by the caller; release with
 *  skit_model_response_release(). */
typedef struct {
	char *text;                 /**< "" when the model only called tools */
	skit_tool_call *tool_calls; /**< strings owned by the response */
	size_t tool_call_count;
	char *stop_reason; /**< "end_turn", "tool_use", "max_tokens"... as
	                        the provider said it; never NULL */
	skit_usage usage;
} skit_model_response;

/**
 * Streaming callback: `len` bytes of assistant text just arrived (not
 * NUL-terminated). Return non-zero to cancel the request; the call then
 * returns SKIT_ECANCELED.
 */
typedef int (*skit_model_delta_cb)(const char *text, size_t len, void *payload);

/**
 * Retry callback: attempt `retry` of `max_retries` starts in `wait_ms`
 * milliseconds because of `why` ("HTTP 503", or the connection error;
 * never the API key). Borrowed for the call only. For a trace, so a
 * retried request is not a silent wait.
 */
typedef void (*skit_model_retry_cb)(unsigned int retry,
                                    unsigned int max_retries, long wait_ms,
                                    const char *why, void *payload);

/* ---- the model handle ------------------------------------------------ */

typedef struct skit_model skit_model;

/**
 * Rate limits of one provider, shared by every model given it (any
 * number of threads): at most `rpm` requests and `tpm` tokens a
 * minute, paced as token buckets that refill continuously and hold one
 * second's worth (so 60 rpm is one request a second, never a burst of
 * 60). A request is charged its estimated input tokens (body bytes / 4)
 * when sent, and corrected by the usage the provider reports. A 429
 * answer with retry-after (or retry-after-ms) pauses every request of
 * every model sharing the limits until that time. Opaque; thread-safe.
 */
typedef struct skit_ratelimit skit_ratelimit;

/**
 * Create rate limits.
 * @param[out] out  owned by the caller; free with skit_ratelimit_free()
 * @param rpm       requests per minute; 0: no limit
 * @param tpm       tokens per minute; 0: no limit
 * @return SKIT_OK; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_ratelimit_new(skit_ratelimit **out, unsigned int rpm,
                                   unsigned int tpm, skit_error *err);

/** Free the limits (no model may still use them). NULL is a no-op. */
SKIT_EXTERN void skit_ratelimit_free(skit_ratelimit *rl);

/** Options for skit_model_new(). */
typedef struct {
	unsigned int version; /**< SKIT_MODEL_OPTIONS_VERSION */
	/**
	 * "PROVIDER:MODEL": "openai:gpt-4.1-mini", "anthropic:claude-...",
	 * "replay:PATH/TO/CASSETTE.jsonl". Required.
	 */
	const char *spec;
	const char *api_key;  /**< NULL: $OPENAI_API_KEY / $ANTHROPIC_API_KEY */
	const char *base_url; /**< NULL: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL,
	                           then the public endpoint */
	long connect_timeout_ms;  /**< 0: 10 s */
	long total_timeout_ms;    /**< 0: 600 s */
	unsigned int max_retries; /**< on 429/5xx/connection errors; 0: 4 */
	long retry_base_ms;       /**< first backoff; 0: 500 ms */
	long retry_max_ms; /**< backoff cap (and retry-after cap); 0: 30 s */
	/** never stream; a callback then gets the whole text once */
	bool no_stream;
	skit_transport *transport; /**< NULL: libcurl; borrowed */
	/**
	 * NULL, or a file to which every request is appended as one JSON
	 * line (the provider-neutral form, never the API key): for
	 * debugging and for tests that assert what a model was shown.
	 */
	const char *request_log;
	/**
	 * NULL, or a flag (e.g. set by a SIGINT handler): once non-zero,
	 * a request in flight or a retry wait ends with SKIT_ECANCELED.
	 */
	const volatile int *cancel;
	/**
	 * NULL, or request and token limits shared with other models (and
	 * threads): every HTTP request waits for its turn, and a 429 with
	 * retry-after pauses every model that shares it. Borrowed; it must
	 * outlive the model.
	 */
	skit_ratelimit *ratelimit;
	/** NULL, or called before each retry's wait (see the type) */
	skit_model_retry_cb on_retry;
	void *retry_payload; /**< passed to on_retry */
} skit_model_options;

/* clang-format off */
#define SKIT_MODEL_OPTIONS_VERSION 1
#define SKIT_MODEL_OPTIONS_INIT { SKIT_MODEL_OPTIONS_VERSION, NULL, NULL, NULL, 0, 0, 0, 0, 0, false, NULL, NULL, NULL, NULL, NULL, NULL }
/* clang-format on */

/**
 * Create a model from `opts->spec`.
 * @return SKIT_OK; SKIT_EUSAGE for an unknown provider, a missing model
 *         name, a missing API key or cassette (message says which);
 *         SKIT_EIO / SKIT_EINVALID for an unreadable or malformed cassette.
 */
SKIT_EXTERN int skit_model_new(skit_model **out, const skit_model_options *opts,
                               skit_error *err);

/** "openai", "anthropic" or "replay". */
SKIT_EXTERN const char *skit_model_provider(const skit_model *model);

/** The model name (for replay, the cassette path). */
SKIT_EXTERN const char *skit_model_name(const skit_model *model);

/**
 * Ask the model. With `on_delta` non-NULL, text is reported as it arrives
 * (with `no_stream`, once, whole, when the answer is in); the full
 * response is returned either way. Tool-call ids in the response are
 * non-empty and unique in it and in the request's conversation.
 * Retries 429/5xx and connection failures with exponential backoff and
 * jitter, honouring `retry-after`.
 *
 * @param[out] out  filled on success; release it
 * @return SKIT_OK; SKIT_EPROVIDER (HTTP error status, malformed or
 *         truncated response: the message names the provider and status);
 *         SKIT_ETIMEOUT; SKIT_EIO; SKIT_ECANCELED; SKIT_ENOTFOUND (replay:
 *         the cassette has no more responses); SKIT_EINVALID (replay: a
 *         request check failed).
 */
SKIT_EXTERN int skit_model_complete(skit_model *model, skit_model_response *out,
                                    const skit_model_request *req,
                                    skit_model_delta_cb on_delta, void *payload,
                                    skit_error *err);

/**
 * The model's context window in tokens, from a built-in table of
 * well-known model names (the longest matching prefix; a router's
 * "vendor/" prefix is skipped); 0 when unknown, and for replay.
 */
SKIT_EXTERN uint64_t skit_model_context_window(const skit_model *model);

/**
 * Whether the error `message` of skit_model_complete() says the request
 * did not fit the model's context window (OpenAI's
 * `context_length_exceeded`, Anthropic's "prompt is too long", and the
 * wordings of compatible servers). When it names the window ("maximum
 * context length is 16385 tokens"), `*window` gets it, else 0; `window`
 * may be NULL.
 */
SKIT_EXTERN bool skit_model_error_is_overflow(const char *message,
                                              uint64_t *window);

/** Free what `resp` owns and zero it. NULL is a no-op. */
SKIT_EXTERN void skit_model_response_release(skit_model_response *resp);

/** Free the model. NULL is a no-op. */
SKIT_EXTERN void skit_model_free(skit_model *model);

SKIT_END_DECL

#endif /* SKIT_MODEL_H */
