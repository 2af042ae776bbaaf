/* SPDX-License-Identifier: MIT */
/*
 * model_openai.c - the "openai" provider: the Chat Completions API, as
 * served by OpenAI and by compatible servers (Ollama, vLLM, llama.cpp,
 * LM Studio...).
 *
 * POST {base}/chat/completions with the conversation as "messages" and
 * the tools as "function" tools. Without a delta callback the answer is
 * one JSON object; with one, "stream": true makes it Server-Sent Events,
 * each a chunk whose choices[0].delta holds a piece of text or pieces of
 * tool calls (identified by "index": id and name come first, then the
 * arguments text in fragments), then a finish_reason, a usage chunk (we
 * ask for it with stream_options) and "data: [DONE]".
 *
 * A key is required only for the public endpoint: local servers take
 * none. HTTP, retries and error messages are model_http.c's.
 */
#include "common.h"

#include "lib/core/error.h"
#include "lib/model/model_http.h"
#include "lib/model/model_int.h"
#include "lib/model/sse.h"

#define PUBLIC_BASE "https://api.openai.com/v1"

struct openai {
	char *url;  /* {base}/chat/completions */
	char *auth; /* "Authorization: Bearer KEY", or NULL */
};

/* A response being assembled from stream chunks. */
static bool is_public(const char *base)
{
	return !strncmp(base, "https://api.openai.com", 22) &&
	       (base[22] == '\0' || base[22] == '/');
}

static int openai_init(skit_model *m, skit_error *err)
{
	const char *base = m->base_url ? m->base_url : PUBLIC_BASE;
	struct openai *o;
	struct skitx_buf b = SKITX_BUF_INIT;

	if (!*m->name)
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "openai: no model name (use "
		        "openai:MODEL, e.g. openai:gpt-4.1-mini)");
	if (strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "openai: the base URL must start with "
		                       "http:// or https://");
	if (!m->api_key && is_public(base))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "openai: OPENAI_API_KEY is not set");
	o = skitx_calloc(1, sizeof(*o));
	if (!o)
		return skit__error_oom(err);
	m->state = o;
	if (skitx_buf_printf(&b, "%s/chat/completions", base))
		goto oom;
	o->url = skitx_buf_detach(&b, NULL);
	if (!o->url)
		goto oom;
	if (m->api_key) {
		if (skitx_buf_printf(&b, "Authorization: Bearer %s",
		                     m->api_key))
			goto oom;
		o->auth = skitx_buf_detach(&b, NULL);
		if (!o->auth)
			goto oom;
	}
	return 0;
oom:
	skitx_buf_release(&b);
	return skit__error_oom(err);
}

/* ---- the request ------------------------------------------------------ */

static json_t *tool_calls_json(const skit_message *msg)
{
	json_t *arr = json_array(), *c;
	int bad = 0;

	for (size_t i = 0; arr && i < msg->tool_call_count; i++) {
		const skit_tool_call *tc = &msg->tool_calls[i];
		json_t *args = skit__json_object_from(tc->arguments);

		/* Arguments that are not a JSON object (a model's typo) are
		 * replayed as {}, as for anthropic: the error result already
		 * told the model, and a server may refuse the request. */
		c = json_pack(
		        "{s:s, s:s, s:{s:s, s:s}}", "id", tc->id, "type",
		        "function", "function", "name", tc->name, "arguments",
		        args && tc->arguments && *tc->arguments ? tc->arguments
		                                                : "{}");
		json_decref(args);
		bad |= json_array_append_new(arr, c);
	}
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static json_t *message_json(const skit_message *msg)
{
	json_t *o = json_object();
	int bad = 0;

	if (!o)
		return NULL;
	switch (msg->role) {
	case SKIT_ROLE_USER:
		bad |= json_object_set_new(o, "role", json_string("user"));
		bad |= json_object_set_new(
		        o, "content", json_string(msg->text ? msg->text : ""));
		break;
	case SKIT_ROLE_ASSISTANT:
		/* The API refuses "content": null without tool calls, and
		 * takes "" there; with tool calls, content may be left out.
		 * Blank text is sent as no text. */
		bad |= json_object_set_new(o, "role", json_string("assistant"));
		if (!skit__text_is_blank(msg->text))
			bad |= json_object_set_new(o, "content",
			                           json_string(msg->text));
		else if (!msg->tool_call_count)
			bad |= json_object_set_new(o, "content",
			                           json_string(""));
		if (msg->tool_call_count)
			bad |= json_object_set_new(o, "tool_calls",
			                           tool_calls_json(msg));
		break;
	case SKIT_ROLE_TOOL:
		bad |= json_object_set_new(o, "role", json_string("tool"));
		bad |= json_object_set_new(o, "tool_call_id",
		                           json_string(msg->tool_call_id));
		bad |= json_object_set_new(
		        o, "content", json_string(msg->text ? msg->text : ""));
		break;
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int tools_json(skit_model *m, json_t **out,
                      const skit_model_request *req, skit_error *err)
{
	json_t *arr = json_array(), *params, *t;
	int bad = 0;

	*out = NULL;
	for (size_t i = 0; arr && i < req->tool_count; i++) {
		const skit_tool_schema *ts = &req->tools[i];

		params = skit__json_object_from(ts->parameters);
		if (!params) {
			json_decref(arr);
			return skit__http_error(m, err, SKIT_EINVALID,
			                        "tool '%.64s': parameters are "
			                        "not a JSON object",
			                        ts->name);
		}
		t = json_pack("{s:s, s:{s:s, s:s, s:o}}", "type", "function",
		              "function", "name", ts->name, "description",
		              ts->description ? ts->description : "",
		              "parameters", params);
		bad |= json_array_append_new(arr, t);
	}
	if (!arr || bad) {
		json_decref(arr);
		return skit__error_oom(err);
	}
	*out = arr;
	return 0;
}

static int build_body(skit_model *m, const skit_model_request *req, bool stream,
                      char **out, size_t *len, skit_error *err)
{
	json_t *body = json_object(), *msgs = json_array(), *tools = NULL;
	int bad = !body;
	int rc;

	rc = tools_json(m, &tools, req, err);
	if (rc) {
		json_decref(body);
		json_decref(msgs);
		return rc;
	}
	bad |= json_object_set_new(body, "model", json_string(m->name));
	if (req->system && msgs)
		bad |= json_array_append_new(
		        msgs, json_pack("{s:s, s:s}", "role", "system",
		                        "content", req->system));
	for (size_t i = 0; msgs && i < req->message_count; i++)
		bad |= json_array_append_new(msgs,
		                             message_json(&req->messages[i]));
	bad |= json_object_set_new(body, "messages", msgs);
	if (req->tool_count)
		bad |= json_object_set_new(body, "tools", tools);
	else
		json_decref(tools);
	if (req->max_tokens)
		bad |= json_object_set_new(body, "max_tokens",
		                           json_integer(req->max_tokens));
	if (stream) {
		bad |= json_object_set_new(body, "stream", json_true());
		bad |= json_object_set_new(
		        body, "stream_options",
		        json_pack("{s:b}", "include_usage", 1));
	}
	return skit__http_dump(body, bad, out, len, err);
}

/* ---- the answer ------------------------------------------------------- */

static void read_usage(skit_usage *u, json_t *usage)
{
	if (!json_is_object(usage))
		return;
	u->input_tokens = skit__json_u64(usage, "prompt_tokens");
	u->output_tokens = skit__json_u64(usage, "completion_tokens");
}

static int set_string(char **slot, json_t *v, skit_error *err)
{
	if (!json_is_string(v))
		return 0;
	return skit__partial_set(slot, json_string_value(v),
	                         json_string_length(v), err);
}

static int set_nonempty(char **slot, json_t *v, skit_error *err)
{
	return json_string_length(v) ? set_string(slot, v, err) : 0;
}

static int parse_whole(skit_model *m, skit_model_response *out,
                       const struct skitx_buf *body, skit_error *err)
{
	json_t *j, *choice, *msg, *calls, *c, *fn, *content, *v;
	size_t i;
	int rc;

	rc = skit__http_json(m, &j, skitx_buf_cstr(body), skitx_buf_len(body),
	                     err);
	if (rc)
		return rc;
	v = json_object_get(j, "error");
	if (v && !json_is_null(v)) {
		rc = skit__http_body_error(m, j, err);
		goto out;
	}
	choice = json_array_get(json_object_get(j, "choices"), 0);
	msg = json_object_get(choice, "message");
	if (!json_is_object(msg)) {
		rc = skit__http_error(m, err, SKIT_EPROVIDER,
		                      "malformed response (no "
		                      "choices[0].message)");
		goto out;
	}
	content = json_object_get(msg, "content");
	out->text = skitx_strndup(
	        json_is_string(content) ? json_string_value(content) : "",
	        json_string_length(content));
	if (!out->text) {
		rc = skit__error_oom(err);
		goto out;
	}
	calls = json_object_get(msg, "tool_calls");
	json_array_foreach(calls, i, c)
	{
		char idbuf[32];
		const char *id = skit__json_str(c, "id");

		fn = json_object_get(c, "function");
		if (!skit__json_str(fn, "name")) {
			rc = skit__http_error(m, err, SKIT_EPROVIDER,
			                      "malformed response (tool call "
			                      "%zu has no name)",
			                      i);
			goto out;
		}
		snprintf(idbuf, sizeof(idbuf), "call_%zu", i + 1);
		rc = skit__response_add_call(
		        out, id ? id : idbuf, skit__json_str(fn, "name"),
		        skit__json_str(fn, "arguments"), err);
		if (rc)
			goto out;
	}
	rc = set_string(&out->stop_reason,
	                json_object_get(choice, "finish_reason"), err);
	read_usage(&out->usage, json_object_get(j, "usage"));
out:
	json_decref(j);
	return rc;
}

/* One chunk's tool-call deltas. */
static int add_call_deltas(struct skit__stream *s, json_t *calls)
{
	struct skit__partial_call *pc;
	json_t *c, *fn, *v, *idx;
	size_t i;
	int rc;

	json_array_foreach(calls, i, c)
	{
		idx = json_object_get(c, "index");
		rc = skit__partial_calls_at(
		        s->m, &s->calls,
		        json_is_integer(idx) && json_integer_value(idx) >= 0
		                ? (size_t)json_integer_value(idx)
		                : i,
		        &pc, s->err);
		/* The first id and name count: some servers repeat the id
		 * in every fragment, or send a new id and an empty name
		 * with each one. */
		if (!rc && !pc->id)
			rc = set_nonempty(&pc->id, json_object_get(c, "id"),
			                  s->err);
		fn = json_object_get(c, "function");
		if (!rc && !pc->name)
			rc = set_nonempty(&pc->name,
			                  json_object_get(fn, "name"), s->err);
		v = json_object_get(fn, "arguments");
		if (!rc && json_is_string(v)) {
			rc = skitx_buf_add(&pc->args, json_string_value(v),
			                   json_string_length(v));
			if (rc == SKIT_ETOOBIG)
				rc = skit__http_error(
				        s->m, s->err, rc,
				        "tool call arguments over %u MiB",
				        SKIT__HTTP_ARGS_MAX >> 20);
			else if (rc)
				rc = skit__error_oom(s->err);
		}
		if (rc)
			return rc;
	}
	return 0;
}

static int chunk_json(struct skit__stream *s, json_t *j)
{
	json_t *choice, *delta, *v;
	size_t len;
	int rc;

	v = json_object_get(j, "error");
	if (v && !json_is_null(v))
		return skit__http_body_error(s->m, j, s->err);
	choice = json_array_get(json_object_get(j, "choices"), 0);
	delta = json_object_get(choice, "delta");
	v = json_object_get(delta, "content");
	len = json_string_length(v);
	if (len) {
		rc = skit__stream_text(s, json_string_value(v), len);
		if (rc)
			return rc;
	}
	v = json_object_get(delta, "tool_calls");
	if (json_is_array(v)) {
		rc = add_call_deltas(s, v);
		if (rc)
			return rc;
	}
	v = json_object_get(choice, "finish_reason");
	rc = set_string(&s->stop_reason, v, s->err);
	if (rc)
		return rc;
	/* The usage chunk may still follow; [DONE] ends the stream. */
	s->finished |= json_is_string(v);
	v = json_object_get(j, "usage");
	if (json_is_object(v))
		read_usage(&s->usage, v);
	return 0;
}

static int on_event(const struct skit__sse_event *ev, void *payload)
{
	struct skit__stream *s = payload;
	json_t *j;
	int rc;

	if (s->ended)
		return 0; /* nothing counts after [DONE] */
	if (ev->data_len == 6 && !memcmp(ev->data, "[DONE]", 6)) {
		s->ended = true;
		return 0;
	}
	rc = skit__http_json(s->m, &j, ev->data, ev->data_len, s->err);
	if (!rc) {
		rc = chunk_json(s, j);
		json_decref(j);
	}
	if (rc)
		s->cb_rc = rc;
	return rc;
}

static int openai_complete(skit_model *m, skit_model_response *out,
                           const skit_model_request *req,
                           skit_model_delta_cb on_delta, void *payload,
                           skit_error *err)
{
	struct openai *o = m->state;
	const char *headers[4];
	struct skit__http_call call;
	struct skit__stream s;
	char *body = NULL;
	size_t n = 0, len;
	int rc;

	rc = skit__http_check_request(m, req, err);
	if (rc)
		return rc;
	rc = build_body(m, req, on_delta != NULL, &body, &len, err);
	if (rc)
		return rc;
	headers[n++] = "Content-Type: application/json";
	headers[n++] = on_delta ? "Accept: text/event-stream"
	                        : "Accept: application/json";
	if (o->auth)
		headers[n++] = o->auth;
	headers[n] = NULL;
	skit__http_call_init(&call);
	call.url = o->url;
	call.headers = headers;
	call.body = body;
	call.body_len = len;
	if (on_delta)
		skit__stream_init(&s, m, on_event, on_delta, payload, err);
	rc = skit__stream_complete(m, &call, on_delta ? &s : NULL, "[DONE]",
	                           parse_whole, out, err);
	if (on_delta)
		skit__stream_release(&s);
	skit__http_call_release(&call);
	free(body); /* jansson's allocation */
	if (rc)
		skit__http_scrub(m, err);
	return rc;
}

static void openai_release(skit_model *m)
{
	struct openai *o = m->state;

	if (!o)
		return;
	skitx_free(o->url);
	if (o->auth) {
		/* Do not leave the key in freed memory. */
		memset(o->auth, 0, strlen(o->auth));
		skitx_free(o->auth);
	}
	skitx_free(o);
	m->state = NULL;
}

const struct skit__provider skit__provider_openai = {
	"openai",
	openai_init,
	openai_complete,
	openai_release,
};
