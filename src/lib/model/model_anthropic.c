/* SPDX-License-Identifier: MIT */
/*
 * model_anthropic.c - the "anthropic" provider: the Messages API.
 *
 * POST {base}/v1/messages with x-api-key and anthropic-version headers.
 * The system prompt is a top-level field and max_tokens is required.
 * Roles must alternate, so a run of tool results (and a user text after
 * them) becomes one user message of tool_result blocks; an assistant
 * message is a list of text and tool_use blocks, whose "input" is the
 * call's arguments as a JSON object.
 *
 * Streamed answers are typed events: message_start (input tokens),
 * content_block_start/_delta/_stop per block index (text_delta pieces,
 * or input_json_delta fragments of a tool call's input), message_delta
 * (stop_reason, output tokens) and message_stop; ping and error too. No
 * message_stop means the stream was cut.
 */
#include "common.h"

#include "lib/core/error.h"
#include "lib/model/model_http.h"
#include "lib/model/model_int.h"
#include "lib/model/sse.h"

#define PUBLIC_BASE        "https://api.anthropic.com"
#define API_VERSION        "anthropic-version: 2023-06-01"
#define DEFAULT_MAX_TOKENS 4096

struct anthropic {
	char *url;    /* {base}/v1/messages */
	char *header; /* "x-api-key: KEY" */
};

/* A response being assembled from stream events. */
static int anthropic_init(skit_model *m, skit_error *err)
{
	const char *base = m->base_url ? m->base_url : PUBLIC_BASE;
	struct skitx_buf b = SKITX_BUF_INIT;
	struct anthropic *a;

	if (!*m->name)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "anthropic: no model name (use "
		                       "anthropic:MODEL)");
	if (strncmp(base, "http://", 7) && strncmp(base, "https://", 8))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "anthropic: the base URL must start "
		                       "with http:// or https://");
	if (!m->api_key)
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "anthropic: ANTHROPIC_API_KEY is not set");
	a = skitx_calloc(1, sizeof(*a));
	if (!a)
		return skit__error_oom(err);
	m->state = a;
	if (skitx_buf_printf(&b, "%s/v1/messages", base))
		goto oom;
	a->url = skitx_buf_detach(&b, NULL);
	if (!a->url)
		goto oom;
	if (skitx_buf_printf(&b, "x-api-key: %s", m->api_key))
		goto oom;
	a->header = skitx_buf_detach(&b, NULL);
	if (!a->header)
		goto oom;
	return 0;
oom:
	skitx_buf_release(&b);
	return skit__error_oom(err);
}

/* ---- the request ------------------------------------------------------ */

static int add_text_block(json_t *blocks, const char *text)
{
	/* The API refuses text blocks without a non-white-space character
	 * (models often send "\n\n" before a tool_use). */
	if (skit__text_is_blank(text))
		return 0;
	return json_array_append_new(
	        blocks, json_pack("{s:s, s:s}", "type", "text", "text", text));
}

/* The content blocks of one message; an empty array when it has none. */
static json_t *blocks_json(const skit_message *msg)
{
	json_t *blocks = json_array(), *input;
	int bad = !blocks;

	switch (msg->role) {
	case SKIT_ROLE_USER:
		bad |= add_text_block(blocks, msg->text);
		break;
	case SKIT_ROLE_ASSISTANT:
		bad |= add_text_block(blocks, msg->text);
		for (size_t i = 0; i < msg->tool_call_count; i++) {
			const skit_tool_call *tc = &msg->tool_calls[i];

			/* Arguments that are not an object become {}: the
			 * API takes only objects, and the conversation
			 * must go on. */
			input = skit__json_object_from(tc->arguments);
			if (!input)
				input = json_object();
			bad |= json_array_append_new(
			        blocks,
			        json_pack("{s:s, s:s, s:s, s:o}", "type",
			                  "tool_use", "id", tc->id, "name",
			                  tc->name, "input", input));
		}
		break;
	case SKIT_ROLE_TOOL:
		/* A blank result leaves "content" out (it is optional), as
		 * the API checks text in results like text blocks. */
		bad |= json_array_append_new(
		        blocks,
		        skit__text_is_blank(msg->text)
		                ? json_pack("{s:s, s:s, s:b}", "type",
		                            "tool_result", "tool_use_id",
		                            msg->tool_call_id, "is_error",
		                            msg->is_error ? 1 : 0)
		                : json_pack("{s:s, s:s, s:s, s:b}", "type",
		                            "tool_result", "tool_use_id",
		                            msg->tool_call_id, "content",
		                            msg->text, "is_error",
		                            msg->is_error ? 1 : 0));
		break;
	}
	if (bad) {
		json_decref(blocks);
		return NULL;
	}
	return blocks;
}

/* Messages with consecutive same-role turns merged. */
static json_t *messages_json(const skit_model_request *req)
{
	json_t *msgs = json_array(), *last = NULL, *blocks;
	const char *role, *last_role = NULL;
	int bad = !msgs;

	for (size_t i = 0; !bad && i < req->message_count; i++) {
		const skit_message *msg = &req->messages[i];

		role = msg->role == SKIT_ROLE_ASSISTANT ? "assistant" : "user";
		blocks = blocks_json(msg);
		if (!blocks) {
			bad = 1;
			break;
		}
		if (!json_array_size(blocks)) {
			json_decref(blocks);
			continue;
		}
		if (last && !strcmp(role, last_role)) {
			bad |= json_array_extend(
			        json_object_get(last, "content"), blocks);
			json_decref(blocks);
			continue;
		}
		last = json_pack("{s:s, s:o}", "role", role, "content", blocks);
		last_role = role;
		bad |= json_array_append_new(msgs, last);
	}
	if (bad) {
		json_decref(msgs);
		return NULL;
	}
	return msgs;
}

static int tools_json(skit_model *m, json_t **out,
                      const skit_model_request *req, skit_error *err)
{
	json_t *arr = json_array(), *schema;
	int bad = 0;

	*out = NULL;
	for (size_t i = 0; arr && i < req->tool_count; i++) {
		const skit_tool_schema *ts = &req->tools[i];

		schema = skit__json_object_from(ts->parameters);
		if (!schema) {
			json_decref(arr);
			return skit__http_error(m, err, SKIT_EINVALID,
			                        "tool '%.64s': parameters are "
			                        "not a JSON object",
			                        ts->name);
		}
		if (!json_object_get(schema, "type"))
			bad |= json_object_set_new(schema, "type",
			                           json_string("object"));
		bad |= json_array_append_new(
		        arr, json_pack("{s:s, s:s, s:o}", "name", ts->name,
		                       "description",
		                       ts->description ? ts->description : "",
		                       "input_schema", schema));
	}
	/* The hosted web search, a server tool: Anthropic runs the
	 * searches and the answer cites them (docs/agent.md). */
	if (arr && m->hosted_search)
		bad |= json_array_append_new(
		        arr, json_pack("{s:s, s:s, s:i}", "type",
		                       "web_search_20250305", "name",
		                       "web_search", "max_uses", 5));
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
	json_t *body = json_object(), *tools = NULL;
	int bad = !body;
	int rc;

	rc = tools_json(m, &tools, req, err);
	if (rc) {
		json_decref(body);
		return rc;
	}
	bad |= json_object_set_new(body, "model", json_string(m->name));
	bad |= json_object_set_new(body, "max_tokens",
	                           json_integer(req->max_tokens
	                                                ? req->max_tokens
	                                                : DEFAULT_MAX_TOKENS));
	if (req->system && *req->system)
		bad |= json_object_set_new(body, "system",
		                           json_string(req->system));
	bad |= json_object_set_new(body, "messages", messages_json(req));
	if (json_array_size(tools))
		bad |= json_object_set_new(body, "tools", tools);
	else
		json_decref(tools);
	if (stream)
		bad |= json_object_set_new(body, "stream", json_true());
	return skit__http_dump(body, bad, out, len, err);
}

/* ---- the answer ------------------------------------------------------- */

static int set_string(char **slot, json_t *v, skit_error *err)
{
	if (!json_is_string(v))
		return 0;
	return skit__partial_set(slot, json_string_value(v),
	                         json_string_length(v), err);
}

/* The searches a response made (usage.server_tool_use), as reported. */
static void read_searches(skit_model *m, json_t *usage)
{
	json_t *st = json_object_get(usage, "server_tool_use");
	uint64_t v = skit__json_u64(st, "web_search_requests");

	if (v)
		m->searches = v > 1000 ? 1000 : (unsigned int)v;
}

static void read_usage(skit_usage *u, json_t *usage)
{
	uint64_t v;

	v = skit__json_u64(usage, "input_tokens");
	if (v)
		u->input_tokens = v;
	v = skit__json_u64(usage, "output_tokens");
	if (v)
		u->output_tokens = v;
}

static int parse_whole(skit_model *m, skit_model_response *out,
                       const struct skitx_buf *body, skit_error *err)
{
	struct skitx_buf text;
	json_t *j, *content, *b;
	const char *type;
	char *args;
	size_t i;
	int rc;

	rc = skit__http_json(m, &j, skitx_buf_cstr(body), skitx_buf_len(body),
	                     err);
	if (rc)
		return rc;
	skitx_buf_init(&text, SKIT__HTTP_TEXT_MAX);
	if (!strcmp(skit__json_str(j, "type") ? skit__json_str(j, "type") : "",
	            "error")) {
		rc = skit__http_body_error(m, j, err);
		goto out;
	}
	content = json_object_get(j, "content");
	if (!json_is_array(content)) {
		rc = skit__http_error(m, err, SKIT_EPROVIDER,
		                      "malformed response (no content)");
		goto out;
	}
	json_array_foreach(content, i, b)
	{
		type = skit__json_str(b, "type");
		if (!type)
			continue;
		if (!strcmp(type, "text") && skit__json_str(b, "text")) {
			rc = skitx_buf_puts(&text, skit__json_str(b, "text"));
			if (rc) {
				rc = skit__error_oom(err);
				goto out;
			}
		} else if (!strcmp(type, "tool_use")) {
			if (!skit__json_str(b, "id") ||
			    !skit__json_str(b, "name")) {
				rc = skit__http_error(m, err, SKIT_EPROVIDER,
				                      "malformed response "
				                      "(tool_use without id or "
				                      "name)");
				goto out;
			}
			args = json_dumps(json_object_get(b, "input"),
			                  JSON_COMPACT);
			rc = skit__response_add_call(
			        out, skit__json_str(b, "id"),
			        skit__json_str(b, "name"), args, err);
			free(args); /* jansson's allocation */
			if (rc)
				goto out;
		}
	}
	out->text = skitx_buf_detach(&text, NULL);
	if (!out->text) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = set_string(&out->stop_reason, json_object_get(j, "stop_reason"),
	                err);
	read_usage(&out->usage, json_object_get(j, "usage"));
	read_searches(m, json_object_get(j, "usage"));
out:
	skitx_buf_release(&text);
	json_decref(j);
	return rc;
}

static int block_index(json_t *j, size_t *out)
{
	json_t *v = json_object_get(j, "index");

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (size_t)json_integer_value(v);
	return 0;
}

static int on_block_start(struct skit__stream *s, json_t *j)
{
	json_t *b = json_object_get(j, "content_block"), *v;
	struct skit__partial_call *pc;
	const char *type = skit__json_str(b, "type");
	size_t index;
	int rc;

	if (!type)
		return 0;
	if (!strcmp(type, "text")) {
		v = json_object_get(b, "text");
		return skit__stream_text(s, json_string_value(v),
		                         json_string_length(v));
	}
	if (strcmp(type, "tool_use"))
		return 0; /* thinking and others: not ours to show */
	if (block_index(j, &index))
		return skit__http_error(s->m, s->err, SKIT_EPROVIDER,
		                        "malformed response (block without "
		                        "index)");
	rc = skit__partial_calls_at(s->m, &s->calls, index, &pc, s->err);
	if (!rc)
		rc = set_string(&pc->id, json_object_get(b, "id"), s->err);
	if (!rc)
		rc = set_string(&pc->name, json_object_get(b, "name"), s->err);
	return rc;
}

static int on_block_delta(struct skit__stream *s, json_t *j)
{
	json_t *d = json_object_get(j, "delta"), *v;
	const char *type = skit__json_str(d, "type");
	size_t index;
	int rc;

	if (!type)
		return 0;
	if (!strcmp(type, "text_delta")) {
		v = json_object_get(d, "text");
		return skit__stream_text(s, json_string_value(v),
		                         json_string_length(v));
	}
	if (strcmp(type, "input_json_delta"))
		return 0;
	/* a server tool's input (the hosted search's query) is not ours */
	if (s->m->hosted_search &&
	    (block_index(j, &index) || index >= s->calls.n ||
	     !s->calls.v[index].used))
		return 0;
	if (block_index(j, &index) || index >= s->calls.n ||
	    !s->calls.v[index].used)
		return skit__http_error(s->m, s->err, SKIT_EPROVIDER,
		                        "malformed response (input_json_delta "
		                        "outside a tool_use block)");
	v = json_object_get(d, "partial_json");
	rc = skitx_buf_add(&s->calls.v[index].args, json_string_value(v),
	                   json_string_length(v));
	if (rc == SKIT_ETOOBIG)
		return skit__http_error(s->m, s->err, rc,
		                        "tool call input over %u MiB",
		                        SKIT__HTTP_ARGS_MAX >> 20);
	return rc ? skit__error_oom(s->err) : 0;
}

static int event_json(struct skit__stream *s, json_t *j)
{
	const char *type = skit__json_str(j, "type");

	if (!type)
		return 0;
	if (!strcmp(type, "content_block_delta"))
		return on_block_delta(s, j);
	if (!strcmp(type, "content_block_start"))
		return on_block_start(s, j);
	if (!strcmp(type, "message_start")) {
		read_usage(&s->usage,
		           json_object_get(json_object_get(j, "message"),
		                           "usage"));
		return 0;
	}
	if (!strcmp(type, "message_delta")) {
		read_usage(&s->usage, json_object_get(j, "usage"));
		read_searches(s->m, json_object_get(j, "usage"));
		return set_string(&s->stop_reason,
		                  json_object_get(json_object_get(j, "delta"),
		                                  "stop_reason"),
		                  s->err);
	}
	if (!strcmp(type, "message_stop")) {
		s->ended = true;
		return 0;
	}
	if (!strcmp(type, "error"))
		return skit__http_body_error(s->m, j, s->err);
	return 0; /* ping, content_block_stop, and types yet to come */
}

static int on_event(const struct skit__sse_event *ev, void *payload)
{
	struct skit__stream *s = payload;
	json_t *j;
	int rc;

	if (s->ended)
		return 0;
	rc = skit__http_json(s->m, &j, ev->data, ev->data_len, s->err);
	if (!rc) {
		rc = event_json(s, j);
		json_decref(j);
	}
	if (rc)
		s->cb_rc = rc;
	return rc;
}

static int anthropic_complete(skit_model *m, skit_model_response *out,
                              const skit_model_request *req,
                              skit_model_delta_cb on_delta, void *payload,
                              skit_error *err)
{
	struct anthropic *a = m->state;
	const char *headers[5];
	struct skit__http_call call;
	struct skit__stream s;
	char *body = NULL;
	size_t len;
	int rc;

	rc = skit__http_check_request(m, req, err);
	if (rc)
		return rc;
	rc = build_body(m, req, on_delta != NULL, &body, &len, err);
	if (rc)
		return rc;
	headers[0] = "Content-Type: application/json";
	headers[1] = on_delta ? "Accept: text/event-stream"
	                      : "Accept: application/json";
	headers[2] = API_VERSION;
	headers[3] = a->header;
	headers[4] = NULL;
	skit__http_call_init(&call);
	call.url = a->url;
	call.headers = headers;
	call.body = body;
	call.body_len = len;
	if (on_delta)
		skit__stream_init(&s, m, on_event, on_delta, payload, err);
	rc = skit__stream_complete(m, &call, on_delta ? &s : NULL,
	                           "message_stop", parse_whole, out, err);
	if (on_delta)
		skit__stream_release(&s);
	skit__http_call_release(&call);
	free(body); /* jansson's allocation */
	if (rc)
		skit__http_scrub(m, err);
	return rc;
}

static void anthropic_release(skit_model *m)
{
	struct anthropic *a = m->state;

	if (!a)
		return;
	skitx_free(a->url);
	if (a->header) {
		memset(a->header, 0, strlen(a->header));
		skitx_free(a->header);
	}
	skitx_free(a);
	m->state = NULL;
}

const struct skit__provider skit__provider_anthropic = {
	"anthropic",
	anthropic_init,
	anthropic_complete,
	anthropic_release,
};
