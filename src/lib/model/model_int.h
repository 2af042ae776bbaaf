/* SPDX-License-Identifier: MIT */
/*
 * model_int.h - what the model providers share (library-internal).
 *
 * model.c parses the spec, resolves keys and URLs, and dispatches to one
 * provider through `struct skit__provider`. Each provider file
 * (model_replay.c, model_openai.c, model_anthropic.c) defines one such
 * table. model_http.c holds what the HTTP providers share: the request
 * with retries and backoff, and the error messages.
 *
 * The model subsystem (src/lib/model/) owns talking to models: the
 * provider interface (model.c), the providers (model_openai.c,
 * model_anthropic.c, model_replay.c), their HTTP layer (model_http.c,
 * transport_curl.c), Server-Sent Events (sse.c) and rate limits
 * (ratelimit.c). It uses core, util and pack's download helpers
 * (fetch_int.h). This header is its door: the agent and mcp (above it)
 * may include it; sse.h is also shared with the MCP HTTP client.
 */
#ifndef SKIT_LIB_MODEL_INT_H
#define SKIT_LIB_MODEL_INT_H

#include <jansson.h>

#include "skit/model.h"

struct skit_model;

struct skit__provider {
	const char *name;
	/* Check the options and set up `m->state`; keys are resolved. */
	int (*init)(struct skit_model *m, skit_error *err);
	int (*complete)(struct skit_model *m, skit_model_response *out,
	                const skit_model_request *req,
	                skit_model_delta_cb on_delta, void *payload,
	                skit_error *err);
	void (*release)(struct skit_model *m);
};

struct skit_model {
	const struct skit__provider *provider;
	char *name;     /* model name, or the cassette path for replay */
	char *api_key;  /* NULL for replay; never put in messages */
	char *base_url; /* without a trailing slash */
	long connect_timeout_ms, total_timeout_ms;
	long retry_base_ms, retry_max_ms;
	unsigned int max_retries;
	bool no_stream;
	skit_transport *transport;     /* the one in use */
	skit_transport *own_transport; /* created here, freed here */
	char *request_log;
	const volatile int *cancel;
	skit_ratelimit *ratelimit;    /* shared with other models; or NULL */
	uint64_t rl_charged;          /* tokens charged for the current call */
	skit_model_retry_cb on_retry; /* NULL: retries are silent */
	void *retry_payload;
	void *state; /* the provider's */
	/* The provider's hosted web search for the next call (set by the
	 * agent: src/lib/agent/search.c), and how many searches the last
	 * call made, as the provider reported them. */
	bool hosted_search;
	unsigned int searches;
};

extern const struct skit__provider skit__provider_replay;
extern const struct skit__provider skit__provider_openai;
extern const struct skit__provider skit__provider_anthropic;

/*
 * The request in a provider-neutral JSON form: {"system", "messages":
 * [{"role", "text", "tool_calls":[{"id","name","arguments"}],
 * "tool_call_id", "tool_name", "is_error"}], "tools":[{"name",
 * "description", "parameters"}], "max_tokens"}. Used for the request log,
 * replay's checks and audit summaries. NULL on out-of-memory.
 */
json_t *skit__model_request_json(const skit_model_request *req);

/* The window of the model called `name` from the built-in table; 0 when
 * unknown (model_window.c). */
uint64_t skit__model_window_of(const char *name);

/* True when `text` is NULL or holds only ASCII white space (the
 * APIs refuse such text where they want content). */
bool skit__text_is_blank(const char *text);

/* Add a tool call (strings copied) to `out`. */
int skit__response_add_call(skit_model_response *out, const char *id,
                            const char *name, const char *arguments,
                            skit_error *err);

/*
 * Subagents on other threads (model_clone.c): whether `m` can be cloned
 * (not replay, no transport given by the program), and a new handle on
 * the same model with its own transport, owned by the caller
 * (skit_model_free()). SKIT_EUSAGE when it cannot be cloned.
 */
bool skit__model_clonable(const skit_model *m);

/* Whether `m` is a model that answers (one of the providers), not the
 * placeholder of an agent whose loop never runs (skit/host.h, the MCP
 * server): no subagent can run there. */
bool skit__model_answers(const skit_model *m);
int skit__model_clone(skit_model **out, const skit_model *m, skit_error *err);

#endif
