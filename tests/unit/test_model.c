/* SPDX-License-Identifier: MIT */
/*
 * test_model.c - the model providers. The HTTP ones talk to the scripted
 * server of tests/support/httpd.c on 127.0.0.1 (no test reaches the
 * internet): what skit sent (path, headers, JSON body), plain and
 * streamed answers, tool calls, usage, retries, error messages, timeouts,
 * a fake transport through the seam; then the replay provider.
 */
#include "common.h"

#include <jansson.h>
#include <pthread.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "skit/agent.h"
#include "skit/model.h"
#include "skit/policy.h"
#include "skit/registry.h"
#include "support/httpd.h"
#include "util/buf.h"

#define KEY "sk-test-SECRET-0123456789"

static struct httpd *srv;
static char base[512];

static void start(void)
{
	ASSERT_OK(httpd_start(&srv));
}

static void stop(void)
{
	httpd_stop(srv);
	srv = NULL;
}

static skit_model *model_at(const char *spec, const char *url, const char *key)
{
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_error err = { 0 };
	skit_model *m = NULL;

	o.spec = spec;
	o.base_url = url;
	o.api_key = key;
	o.retry_base_ms = 1;
	o.retry_max_ms = 20;
	o.total_timeout_ms = 10000;
	if (skit_model_new(&m, &o, &err))
		HARNESS_FAIL("skit_model_new: %s", err.message);
	return m;
}

static skit_model *openai(void)
{
	snprintf(base, sizeof(base), "%s/v1", httpd_url(srv));
	return model_at("openai:gpt-test", base, KEY);
}

static skit_model *anthropic(void)
{
	return model_at("anthropic:claude-test", httpd_url(srv), KEY);
}

/* ---- a request with everything in it ---------------------------------- */

static const skit_tool_schema tools[] = {
	{ "read_file", "Read a file",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
	  "\"string\"}},\"required\":[\"path\"]}" },
};

static const skit_tool_call calls[] = {
	{ "call_a", "read_file", "{\"path\":\"a.txt\"}" },
	{ "call_b", "read_file", "{\"path\":\"b.txt\"}" },
};

static const skit_message convo[] = {
	{ SKIT_ROLE_USER, "Read a and b", NULL, 0, NULL, NULL, false },
	{ SKIT_ROLE_ASSISTANT, "Reading.", calls, 2, NULL, NULL, false },
	{ SKIT_ROLE_TOOL, "alpha", NULL, 0, "call_a", "read_file", false },
	{ SKIT_ROLE_TOOL, "no such file", NULL, 0, "call_b", "read_file",
	  true },
	{ SKIT_ROLE_USER, "Thanks", NULL, 0, NULL, NULL, false },
};

static skit_model_request simple_request(void)
{
	static const skit_message hi[] = {
		{ SKIT_ROLE_USER, "hi", NULL, 0, NULL, NULL, false },
	};
	skit_model_request r = { 0 };

	r.system = "You are terse.";
	r.messages = hi;
	r.message_count = 1;
	r.tools = tools;
	r.tool_count = 1;
	return r;
}

static skit_model_request convo_request(void)
{
	skit_model_request r = simple_request();

	r.messages = convo;
	r.message_count = SKIT_ARRAY_SIZE(convo);
	r.max_tokens = 321;
	return r;
}

/* ---- streaming callback ------------------------------------------------ */

struct deltas {
	struct skitx_buf text;
	int count;
	int cancel_at;
};

static int on_delta(const char *text, size_t len, void *payload)
{
	struct deltas *d = payload;

	d->count++;
	skitx_buf_add(&d->text, text, len);
	return d->cancel_at && d->count >= d->cancel_at;
}

/* ---- what was sent ---------------------------------------------------- */

static json_t *sent_json(size_t i)
{
	const httpd_request *r = httpd_request_at(srv, i);
	json_t *j;

	ASSERT(r);
	j = json_loadb(r->body, r->body_len, 0, NULL);
	ASSERT(j);
	return j;
}

static const char *sent_header(size_t i, const char *name)
{
	static char buf[512];

	return httpd_header(httpd_request_at(srv, i), name, buf, sizeof(buf));
}

static const char *jpath(json_t *j, const char *path)
{
	static char out[4096];
	char key[64];
	const char *p = path, *dot;
	json_t *v = j;

	while (*p && v) {
		dot = strchr(p, '.');
		snprintf(key, sizeof(key), "%.*s",
		         (int)(dot ? (size_t)(dot - p) : strlen(p)), p);
		if (json_is_array(v))
			v = json_array_get(v, strtoul(key, NULL, 10));
		else
			v = json_object_get(v, key);
		p = dot ? dot + 1 : p + strlen(p);
	}
	if (!v)
		return NULL;
	if (json_is_string(v))
		return json_string_value(v);
	{
		char *d = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY |
		                                JSON_SORT_KEYS);
		snprintf(out, sizeof(out), "%s", d ? d : "?");
		free(d);
	}
	return out;
}

/* SSE body from events, each "data: X\n\n". */
static char *sse(const char *const *events)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	for (size_t i = 0; events[i]; i++)
		skitx_buf_printf(&b, "data: %s\n\n", events[i]);
	return skitx_buf_detach(&b, NULL);
}

static void push_sse(const char *body, size_t chunk)
{
	httpd_response r = HTTPD_RESPONSE_INIT;

	r.content_type = "text/event-stream";
	r.body = body;
	r.chunk = chunk;
	httpd_push(srv, &r);
}

/* ---- OpenAI ----------------------------------------------------------- */

static void test_model__openai_text(void)
{
	skit_model_request req = simple_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	start();
	m = openai();
	ASSERT_STR(skit_model_provider(m), "openai");
	ASSERT_STR(skit_model_name(m), "gpt-test");
	httpd_push_json(srv, 200,
	                "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":"
	                "{\"role\":\"assistant\",\"content\":\"Hello!\"},"
	                "\"finish_reason\":\"stop\"}],\"usage\":{"
	                "\"prompt_tokens\":12,\"completion_tokens\":3}}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "Hello!");
	ASSERT_STR(resp.stop_reason, "stop");
	ASSERT_EQ(resp.tool_call_count, 0);
	ASSERT_EQ(resp.usage.input_tokens, 12);
	ASSERT_EQ(resp.usage.output_tokens, 3);
	skit_model_response_release(&resp);

	ASSERT_STR(httpd_request_at(srv, 0)->method, "POST");
	ASSERT_STR(httpd_request_at(srv, 0)->path, "/v1/chat/completions");
	ASSERT_STR(sent_header(0, "authorization"), "Bearer " KEY);
	ASSERT_STR(sent_header(0, "content-type"), "application/json");
	j = sent_json(0);
	ASSERT_STR(jpath(j, "model"), "gpt-test");
	ASSERT_STR(jpath(j, "messages.0.role"), "system");
	ASSERT_STR(jpath(j, "messages.0.content"), "You are terse.");
	ASSERT_STR(jpath(j, "messages.1.role"), "user");
	ASSERT_STR(jpath(j, "messages.1.content"), "hi");
	ASSERT_STR(jpath(j, "tools.0.type"), "function");
	ASSERT_STR(jpath(j, "tools.0.function.name"), "read_file");
	ASSERT_STR(jpath(j, "tools.0.function.description"), "Read a file");
	ASSERT_STR(jpath(j, "tools.0.function.parameters.required"),
	           "[\"path\"]");
	ASSERT(!jpath(j, "stream"));
	ASSERT(!jpath(j, "max_tokens"));
	json_decref(j);
	skit_model_free(m);
	stop();
}

static void test_model__openai_tool_calls(void)
{
	skit_model_request req = convo_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	start();
	m = openai();
	httpd_push_json(
	        srv, 200,
	        "{\"choices\":[{\"message\":{\"content\":null,\"tool_calls\":"
	        "[{\"id\":\"call_9\",\"type\":\"function\",\"function\":{"
	        "\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":"
	        "\\\"c.txt\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "");
	ASSERT_STR(resp.stop_reason, "tool_calls");
	ASSERT_EQ(resp.tool_call_count, 1);
	ASSERT_STR(resp.tool_calls[0].id, "call_9");
	ASSERT_STR(resp.tool_calls[0].name, "read_file");
	ASSERT_STR(resp.tool_calls[0].arguments, "{\"path\":\"c.txt\"}");
	skit_model_response_release(&resp);

	j = sent_json(0);
	ASSERT_STR(jpath(j, "max_tokens"), "321");
	ASSERT_STR(jpath(j, "messages.2.role"), "assistant");
	ASSERT_STR(jpath(j, "messages.2.content"), "Reading.");
	ASSERT_STR(jpath(j, "messages.2.tool_calls.1.id"), "call_b");
	ASSERT_STR(jpath(j, "messages.2.tool_calls.1.type"), "function");
	ASSERT_STR(jpath(j, "messages.2.tool_calls.1.function.arguments"),
	           "{\"path\":\"b.txt\"}");
	ASSERT_STR(jpath(j, "messages.3.role"), "tool");
	ASSERT_STR(jpath(j, "messages.3.tool_call_id"), "call_a");
	ASSERT_STR(jpath(j, "messages.3.content"), "alpha");
	ASSERT_STR(jpath(j, "messages.4.tool_call_id"), "call_b");
	ASSERT_STR(jpath(j, "messages.5.role"), "user");
	ASSERT_STR(jpath(j, "messages.5.content"), "Thanks");
	json_decref(j);
	skit_model_free(m);
	stop();
}

static void test_model__openai_stream_text(void)
{
	static const char *const ev[] = {
		"{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\","
		"\"content\":\"\"},\"finish_reason\":null}]}",
		"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},"
		"\"finish_reason\":null}]}",
		"{\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo, \"},"
		"\"finish_reason\":null}]}",
		"{\"choices\":[{\"index\":0,\"delta\":{\"content\":"
		"\"w\\u00f6rld\"},\"finish_reason\":null}]}",
		"{\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":"
		"\"stop\"}]}",
		"{\"choices\":[],\"usage\":{\"prompt_tokens\":40,"
		"\"completion_tokens\":4}}",
		"[DONE]",
		NULL,
	};
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_response resp;
	char *body = sse(ev);
	skit_model *m;
	json_t *j;

	start();
	m = openai();
	push_sse(body, 7); /* chunk boundaries everywhere */
	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, NULL));
	ASSERT_STR(resp.text, "Hello, w\xc3\xb6rld");
	ASSERT_STR(skitx_buf_cstr(&d.text), "Hello, w\xc3\xb6rld");
	ASSERT_EQ(d.count, 3);
	ASSERT_STR(resp.stop_reason, "stop");
	ASSERT_EQ(resp.usage.input_tokens, 40);
	ASSERT_EQ(resp.usage.output_tokens, 4);
	skit_model_response_release(&resp);
	j = sent_json(0);
	ASSERT_STR(jpath(j, "stream"), "true");
	ASSERT_STR(jpath(j, "stream_options.include_usage"), "true");
	ASSERT_STR(sent_header(0, "accept"), "text/event-stream");
	json_decref(j);
	skitx_buf_release(&d.text);
	skitx_free(body);
	skit_model_free(m);
	stop();
}

/* The in-place fast path and the jansson path agree on odd chunks. */
static void test_model__openai_stream_odd_chunks(void)
{
	static const char *const ev[] = {
		"{\"choices\":[{\"delta\":{\"content\":\"a\\\"\\n\\u00e9"
		"\\ud83d\\ude00\"},\"finish_reason\":null}]}",
		/* An escaped key: the fast path leaves it to jansson. */
		"{\"choices\":[{\"delta\":{\"cont\\u0065nt\":\"|b\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"|c\",\"refusal\":"
		"null},\"logprobs\":{\"content\":[]}}],\"usage\":null}",
		"{\"choices\":[{\"index\":0,\"delta\":{},"
		"\"finish_reason\":\"length\"}]}",
		NULL,
	};
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_response resp;
	char *body = sse(ev);
	skit_model *m;

	start();
	m = openai();
	push_sse(body, 0);
	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, NULL));
	ASSERT_STR(resp.text, "a\"\n\xc3\xa9\xf0\x9f\x98\x80|b|c");
	ASSERT_STR(skitx_buf_cstr(&d.text), resp.text);
	ASSERT_STR(resp.stop_reason, "length");
	skit_model_response_release(&resp);
	skitx_buf_release(&d.text);
	skitx_free(body);
	skit_model_free(m);
	stop();
}

static void test_model__openai_stream_tool_calls(void)
{
	static const char *const ev[] = {
		"{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":"
		"null,\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":"
		"\"function\",\"function\":{\"name\":\"read_file\","
		"\"arguments\":\"\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
		"\"function\":{\"arguments\":\"{\\\"pa\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
		"\"function\":{\"arguments\":\"th\\\": \\\"a\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,\"id\":"
		"\"call_2\",\"function\":{\"name\":\"read_file\","
		"\"arguments\":\"{\\\"path\\\"\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,"
		"\"function\":{\"arguments\":\".txt\\\"}\"}}]}}]}",
		"{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":1,"
		"\"function\":{\"arguments\":\": \\\"b\\\"}\"}}]}}]}",
		"{\"choices\":[{\"delta\":{},\"finish_reason\":\"tool_calls\"}]"
		"}",
		"[DONE]",
		NULL,
	};
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_response resp;
	char *body = sse(ev);
	skit_model *m;

	start();
	m = openai();
	push_sse(body, 3);
	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, NULL));
	ASSERT_EQ(d.count, 0);
	ASSERT_STR(resp.text, "");
	ASSERT_STR(resp.stop_reason, "tool_calls");
	ASSERT_EQ(resp.tool_call_count, 2);
	ASSERT_STR(resp.tool_calls[0].id, "call_1");
	ASSERT_STR(resp.tool_calls[0].name, "read_file");
	ASSERT_STR(resp.tool_calls[0].arguments, "{\"path\": \"a.txt\"}");
	ASSERT_STR(resp.tool_calls[1].id, "call_2");
	ASSERT_STR(resp.tool_calls[1].arguments, "{\"path\": \"b\"}");
	skit_model_response_release(&resp);
	skitx_buf_release(&d.text);
	skitx_free(body);
	skit_model_free(m);
	stop();
}

/* ---- Anthropic -------------------------------------------------------- */

static void test_model__anthropic_text(void)
{
	skit_model_request req = simple_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	start();
	m = anthropic();
	httpd_push_json(srv, 200,
	                "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":"
	                "\"assistant\",\"content\":[{\"type\":\"text\","
	                "\"text\":\"Hi \"},{\"type\":\"text\",\"text\":"
	                "\"there\"}],\"stop_reason\":\"end_turn\",\"usage\":{"
	                "\"input_tokens\":20,\"output_tokens\":2}}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "Hi there");
	ASSERT_STR(resp.stop_reason, "end_turn");
	ASSERT_EQ(resp.usage.input_tokens, 20);
	ASSERT_EQ(resp.usage.output_tokens, 2);
	skit_model_response_release(&resp);

	ASSERT_STR(httpd_request_at(srv, 0)->path, "/v1/messages");
	ASSERT_STR(sent_header(0, "x-api-key"), KEY);
	ASSERT_STR(sent_header(0, "anthropic-version"), "2023-06-01");
	ASSERT_STR(sent_header(0, "content-type"), "application/json");
	ASSERT(!sent_header(0, "authorization"));
	j = sent_json(0);
	ASSERT_STR(jpath(j, "model"), "claude-test");
	ASSERT_STR(jpath(j, "system"), "You are terse.");
	ASSERT_STR(jpath(j, "max_tokens"), "4096");
	ASSERT_STR(jpath(j, "messages.0.role"), "user");
	ASSERT_STR(jpath(j, "messages.0.content.0.text"), "hi");
	ASSERT_STR(jpath(j, "tools.0.name"), "read_file");
	ASSERT_STR(jpath(j, "tools.0.input_schema.type"), "object");
	ASSERT_STR(jpath(j, "tools.0.input_schema.required"), "[\"path\"]");
	ASSERT(!jpath(j, "stream"));
	json_decref(j);
	skit_model_free(m);
	stop();
}

static void test_model__anthropic_tool_use_and_merge(void)
{
	skit_model_request req = convo_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	start();
	m = anthropic();
	httpd_push_json(srv, 200,
	                "{\"content\":[{\"type\":\"text\",\"text\":\"Let me "
	                "look.\"},{\"type\":\"tool_use\",\"id\":\"toolu_1\","
	                "\"name\":\"read_file\",\"input\":{\"path\":"
	                "\"x\"}}],\"stop_reason\":\"tool_use\"}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "Let me look.");
	ASSERT_STR(resp.stop_reason, "tool_use");
	ASSERT_EQ(resp.tool_call_count, 1);
	ASSERT_STR(resp.tool_calls[0].id, "toolu_1");
	ASSERT_STR(resp.tool_calls[0].arguments, "{\"path\":\"x\"}");
	skit_model_response_release(&resp);

	j = sent_json(0);
	ASSERT_STR(jpath(j, "max_tokens"), "321");
	ASSERT_EQ(json_array_size(json_object_get(j, "messages")), 3);
	ASSERT_STR(jpath(j, "messages.1.role"), "assistant");
	ASSERT_STR(jpath(j, "messages.1.content.0.text"), "Reading.");
	ASSERT_STR(jpath(j, "messages.1.content.1.type"), "tool_use");
	ASSERT_STR(jpath(j, "messages.1.content.1.id"), "call_a");
	ASSERT_STR(jpath(j, "messages.1.content.2.input"),
	           "{\"path\":\"b.txt\"}");
	/* Both tool results and the next user text: one user message. */
	ASSERT_STR(jpath(j, "messages.2.role"), "user");
	ASSERT_STR(jpath(j, "messages.2.content.0.type"), "tool_result");
	ASSERT_STR(jpath(j, "messages.2.content.0.tool_use_id"), "call_a");
	ASSERT_STR(jpath(j, "messages.2.content.0.content"), "alpha");
	ASSERT_STR(jpath(j, "messages.2.content.0.is_error"), "false");
	ASSERT_STR(jpath(j, "messages.2.content.1.tool_use_id"), "call_b");
	ASSERT_STR(jpath(j, "messages.2.content.1.is_error"), "true");
	ASSERT_STR(jpath(j, "messages.2.content.2.type"), "text");
	ASSERT_STR(jpath(j, "messages.2.content.2.text"), "Thanks");
	json_decref(j);
	skit_model_free(m);
	stop();
}

static const char anthropic_stream[] =
        "event: message_start\r\n"
        "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
        "\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\r\n\r\n"
        "event: content_block_start\r\n"
        "data: {\"type\":\"content_block_start\",\"index\":0,"
        "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\r\n\r\n"
        "event: ping\r\ndata: {\"type\": \"ping\"}\r\n\r\n"
        "event: content_block_delta\r\n"
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
        "\"type\":\"text_delta\",\"text\":\"Okay, \"}}\r\n\r\n"
        "event: content_block_delta\r\n"
        "data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
        "\"type\":\"text_delta\",\"text\":\"reading.\"}}\r\n\r\n"
        "event: content_block_stop\r\n"
        "data: {\"type\":\"content_block_stop\",\"index\":0}\r\n\r\n"
        "event: content_block_start\r\n"
        "data: {\"type\":\"content_block_start\",\"index\":1,"
        "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_7\","
        "\"name\":\"read_file\",\"input\":{}}}\r\n\r\n"
        "event: content_block_delta\r\n"
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{"
        "\"type\":\"input_json_delta\",\"partial_json\":\"\"}}\r\n\r\n"
        "event: content_block_delta\r\n"
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{"
        "\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": "
        "\\\"RE\"}}\r\n\r\n"
        "event: content_block_delta\r\n"
        "data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{"
        "\"type\":\"input_json_delta\",\"partial_json\":\"ADME.md\\\"}\"}}"
        "\r\n\r\n"
        "event: content_block_stop\r\n"
        "data: {\"type\":\"content_block_stop\",\"index\":1}\r\n\r\n"
        "event: message_delta\r\n"
        "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
        "\"tool_use\",\"stop_sequence\":null},\"usage\":{"
        "\"output_tokens\":33}}\r\n\r\n";

static void test_model__anthropic_stream(void)
{
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	struct skitx_buf body = SKITX_BUF_INIT;
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	start();
	m = anthropic();
	skitx_buf_puts(&body, anthropic_stream);
	skitx_buf_puts(&body, "event: message_stop\r\ndata: {\"type\":"
	                      "\"message_stop\"}\r\n\r\n");
	push_sse(skitx_buf_cstr(&body), 5);
	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, NULL));
	ASSERT_STR(resp.text, "Okay, reading.");
	ASSERT_STR(skitx_buf_cstr(&d.text), "Okay, reading.");
	ASSERT_EQ(d.count, 2);
	ASSERT_STR(resp.stop_reason, "tool_use");
	ASSERT_EQ(resp.tool_call_count, 1);
	ASSERT_STR(resp.tool_calls[0].id, "toolu_7");
	ASSERT_STR(resp.tool_calls[0].name, "read_file");
	ASSERT_STR(resp.tool_calls[0].arguments, "{\"path\": \"README.md\"}");
	ASSERT_EQ(resp.usage.input_tokens, 25);
	ASSERT_EQ(resp.usage.output_tokens, 33);
	skit_model_response_release(&resp);
	j = sent_json(0);
	ASSERT_STR(jpath(j, "stream"), "true");
	json_decref(j);
	skitx_buf_release(&body);
	skitx_buf_release(&d.text);
	skit_model_free(m);
	stop();
}

static void test_model__anthropic_stream_errors(void)
{
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m;

	start();
	m = anthropic();
	/* Complete framing but no message_stop. */
	push_sse(anthropic_stream, 0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message,
	           "anthropic: truncated stream (no message_stop)");
	/* An error event. */
	push_sse("event: message_start\ndata: {\"type\":\"message_start\","
	         "\"message\":{}}\n\nevent: error\ndata: {\"type\":\"error\","
	         "\"error\":{\"type\":\"overloaded_error\",\"message\":"
	         "\"Overloaded\"}}\n\n",
	         0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "anthropic: server error: Overloaded");
	/* Canceled by the callback. */
	d.count = 0;
	d.cancel_at = 1;
	push_sse(anthropic_stream, 0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_ECANCELED);
	ASSERT_EQ(d.count, 1);
	skitx_buf_release(&d.text);
	skit_model_free(m);
	stop();
}

/* ---- retries ---------------------------------------------------------- */

static const char ok_body[] = "{\"choices\":[{\"message\":{\"content\":"
                              "\"ok\"},\"finish_reason\":\"stop\"}]}";

static void test_model__retry_429_retry_after(void)
{
	skit_model_request req = simple_request();
	httpd_response r = HTTPD_RESPONSE_INIT;
	skit_model_response resp;
	struct timespec t0, t1;
	skit_model *m;
	long ms;

	start();
	m = openai();
	r.status = 429;
	r.headers = "Retry-After: 3\r\n"; /* capped by retry_max_ms (20) */
	r.body = "{\"error\":{\"message\":\"Rate limit reached\"}}";
	httpd_push(srv, &r);
	r.headers = "retry-after: Wed, 21 Oct 2015 07:28:00 GMT\r\n";
	httpd_push(srv, &r);
	httpd_push_json(srv, 200, ok_body);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	/* Uncapped, the first Retry-After alone waits 3 s: any less proves
	 * the cap, however loaded the machine. */
	ASSERT(ms < 2900);
	ASSERT_STR(resp.text, "ok");
	ASSERT_EQ(httpd_request_count(srv), 3);
	/* Keep-alive: one connection for all three. */
	ASSERT_EQ(httpd_connections(srv), 1);
	skit_model_response_release(&resp);
	skit_model_free(m);
	stop();
}

static void test_model__retry_500_then_success_and_give_up(void)
{
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m;

	start();
	m = anthropic();
	httpd_push_json(srv, 500,
	                "{\"type\":\"error\",\"error\":{\"type\":"
	                "\"api_error\",\"message\":\"boom\"}}");
	httpd_push_json(srv, 529, "overloaded");
	push_sse(anthropic_stream, 11);
	/* The third answer is a stream without message_stop: the whole
	 * thing fails, but only after two retries. */
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_CONTAINS(err.message, "truncated");
	ASSERT_EQ(httpd_request_count(srv), 3);
	skit_model_free(m);

	o.spec = "openai:gpt-test";
	snprintf(base, sizeof(base), "%s/v1", httpd_url(srv));
	o.base_url = base;
	o.max_retries = 2;
	o.retry_base_ms = 1;
	o.retry_max_ms = 5;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	httpd_push_json(srv, 500, "");
	httpd_push_json(srv, 502, "");
	httpd_push_json(srv, 200, ok_body);
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "ok");
	skit_model_response_release(&resp);
	ASSERT_EQ(httpd_request_count(srv), 6);
	for (int i = 0; i < 3; i++)
		httpd_push_json(srv, 503, "<html>Service Unavailable</html>");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "openai: HTTP 503: service unavailable");
	ASSERT_EQ(httpd_request_count(srv), 9);
	skitx_buf_release(&d.text);
	skit_model_free(m);
	stop();
}

/* ---- errors ----------------------------------------------------------- */

static void test_model__http_errors_name_provider_not_key(void)
{
	skit_model_request req = simple_request();
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m;

	start();
	m = openai();
	httpd_push_json(srv, 401,
	                "{\"error\":{\"message\":\"Incorrect API key "
	                "provided: " KEY ".\\nYou can find your key at "
	                "https://x\",\"type\":\"invalid_request_error\"}}");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_EQ(err.code, SKIT_EPROVIDER);
	ASSERT_STR(err.message, "openai: HTTP 401: Incorrect API key "
	                        "provided: ***. You can find your key at "
	                        "https://x");
	ASSERT(!strstr(err.message, "SECRET"));
	ASSERT_EQ(httpd_request_count(srv), 1); /* 401 is not retried */
	httpd_push_json(srv, 404,
	                "{\"error\":{\"message\":\"The model "
	                "`gpt-test` does not exist\"}}");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "openai: HTTP 404: The model `gpt-test` does "
	                        "not exist");
	skit_model_free(m);

	m = anthropic();
	httpd_push_json(srv, 404,
	                "{\"type\":\"error\",\"error\":{\"type\":"
	                "\"not_found_error\",\"message\":\"model: "
	                "claude-test\"}}");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "anthropic: HTTP 404: model: claude-test");
	/* A long message is cut; no body at all gives the reason. */
	{
		char big[1200];

		memset(big, 'x', sizeof(big));
		memcpy(big, "{\"message\":\"", 12);
		memcpy(big + sizeof(big) - 3, "\"}", 3);
		httpd_push_json(srv, 400, big);
	}
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT(strlen(err.message) < 240);
	ASSERT_CONTAINS(err.message, "anthropic: HTTP 400: xxx");
	ASSERT_CONTAINS(err.message, "...");
	httpd_push_json(srv, 403, NULL);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_CONTAINS(err.message, "anthropic: HTTP 403: forbidden");
	skit_model_free(m);
	stop();
}

static void test_model__malformed_and_truncated(void)
{
	static const char *const ev[] = {
		"{\"choices\":[{\"delta\":{\"content\":\"part\"}}]}",
		"{\"choices\":[{\"delta\":{\"content\":\"ial\"}}]}",
		NULL,
	};
	skit_model_request req = simple_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	httpd_response r = HTTPD_RESPONSE_INIT;
	skit_model_response resp;
	skit_error err = { 0 };
	char *body = sse(ev);
	skit_model *m;

	start();
	m = openai();
	httpd_push_json(srv, 200, "this is not json");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_CONTAINS(err.message, "openai: malformed response");
	httpd_push_json(srv, 200, "{\"choices\":[]}");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_CONTAINS(err.message, "openai: malformed response");
	/* A stream that ends cleanly but without [DONE]. */
	push_sse(body, 0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "openai: truncated stream (no [DONE])");
	/* A stream cut by the network: chunked, then the socket closes. */
	r.content_type = "text/event-stream";
	r.body = body;
	r.chunk = 10;
	r.cut_after = strlen(body) - 5;
	httpd_push(srv, &r);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_CONTAINS(err.message, "openai: truncated stream (");
	ASSERT(!strstr(err.message, "[DONE]")); /* the network's reason */
	ASSERT_EQ(httpd_request_count(srv), 4); /* not retried */
	/* Bad JSON in an event. */
	push_sse("data: {\"choices\":\n\n", 0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_CONTAINS(err.message, "openai: malformed response");
	/* An error object in the stream. */
	push_sse("data: {\"error\":{\"message\":\"context too long\"}}\n\n", 0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "openai: server error: context too long");
	skitx_buf_release(&d.text);
	skitx_free(body);
	skit_model_free(m);
	stop();
}

static void test_model__connection_refused_and_timeout(void)
{
	skit_model_request req = simple_request();
	httpd_response r = HTTPD_RESPONSE_INIT;
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	struct sockaddr_in sa;
	socklen_t slen = sizeof(sa);
	skit_model_response resp;
	struct timespec t0, t1;
	skit_error err = { 0 };
	char url[128];
	skit_model *m;
	int fd;
	long ms;

	/* A port that was just free: nothing listens there. */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_OK(getsockname(fd, (struct sockaddr *)&sa, &slen));
	close(fd);
	snprintf(url, sizeof(url), "http://user:pw@127.0.0.1:%u/v1",
	         (unsigned int)ntohs(sa.sin_port));
	o.spec = "openai:gpt-test";
	o.base_url = url;
	o.max_retries = 1;
	o.retry_base_ms = 1;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EIO);
	ASSERT_CONTAINS(err.message, "openai: ");
	ASSERT(!strstr(err.message, "user:pw"));
	skit_model_free(m);

	start();
	o.base_url = httpd_url(srv);
	o.spec = "anthropic:claude-test";
	o.api_key = KEY;
	o.total_timeout_ms = 300;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	r.delay_ms = 5000;
	r.body = ok_body;
	httpd_push(srv, &r);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_ETIMEOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000000;
	ASSERT(ms < 4500); /* well before the 5 s answer: the timeout cut it */
	ASSERT_CONTAINS(err.message, "anthropic: ");
	ASSERT_EQ(httpd_request_count(srv), 1); /* timeouts: no retry */
	skit_model_free(m);
	stop();
}

/* ---- cancellation ------------------------------------------------------ */

static volatile int cancel_flag;

static void *cancel_soon(void *arg)
{
	struct timespec ts = { 0, 150 * 1000000L };

	(void)arg;
	nanosleep(&ts, NULL);
	cancel_flag = 1;
	return NULL;
}

static long complete_canceled(skit_model *m, skit_error *err)
{
	skit_model_request req = simple_request();
	skit_model_response resp;
	struct timespec t0, t1;
	pthread_t th;

	cancel_flag = 0;
	ASSERT_OK(pthread_create(&th, NULL, cancel_soon, NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, err),
	          SKIT_ECANCELED);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	pthread_join(th, NULL);
	return (t1.tv_sec - t0.tv_sec) * 1000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000000;
}

static void test_model__cancel(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_error err = { 0 };
	skit_model *m;

	start();
	o.spec = "anthropic:claude-test";
	o.base_url = httpd_url(srv);
	o.api_key = KEY;
	o.cancel = &cancel_flag;
	o.retry_base_ms = 20000;
	o.retry_max_ms = 20000;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	/* A server that is slow to answer: the transfer is abandoned. */
	r.delay_ms = 8000;
	r.body = ok_body;
	httpd_push(srv, &r);
	/* Bounds below what the server would take (8 s, 20 s), not what an
	 * idle machine takes (~150 ms): they prove the cut on a busy one. */
	ASSERT(complete_canceled(m, &err) < 7000);
	/* A 429 asking to come back much later: the wait is cut short. */
	memset(&r, 0, sizeof(r));
	r.status = 429;
	r.headers = "Retry-After: 20\r\n";
	r.body = "{\"error\":{\"message\":\"slow down\"}}";
	httpd_push(srv, &r);
	ASSERT(complete_canceled(m, &err) < 15000);
	skit_model_free(m);
	stop();
}

/* ---- environment and options ------------------------------------------ */

static void test_model__env_and_keys(void)
{
	skit_model_request req = simple_request();
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m;

	start();
	unsetenv("OPENAI_API_KEY");
	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("OPENAI_BASE_URL");
	unsetenv("ANTHROPIC_BASE_URL");
	o.spec = "openai:gpt-test";
	ASSERT_EQ(skit_model_new(&m, &o, &err), SKIT_EUSAGE);
	ASSERT_STR(err.message, "openai: OPENAI_API_KEY is not set");
	o.spec = "anthropic:claude-test";
	ASSERT_EQ(skit_model_new(&m, &o, &err), SKIT_EUSAGE);
	ASSERT_STR(err.message, "anthropic: ANTHROPIC_API_KEY is not set");
	o.spec = "openai:";
	o.api_key = "k";
	ASSERT_EQ(skit_model_new(&m, &o, &err), SKIT_EUSAGE);
	o.api_key = NULL;

	/* A local server from the environment needs no key. */
	snprintf(base, sizeof(base), "%s/v1/", httpd_url(srv));
	setenv("OPENAI_BASE_URL", base, 1);
	o.spec = "openai:llama3";
	ASSERT_OK(skit_model_new(&m, &o, &err));
	httpd_push_json(srv, 200, ok_body);
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "ok");
	skit_model_response_release(&resp);
	ASSERT_STR(httpd_request_at(srv, 0)->path, "/v1/chat/completions");
	ASSERT(!sent_header(0, "authorization"));
	skit_model_free(m);

	setenv("ANTHROPIC_API_KEY", "env-key-123456", 1);
	setenv("ANTHROPIC_BASE_URL", httpd_url(srv), 1);
	o.spec = "anthropic:claude-test";
	ASSERT_OK(skit_model_new(&m, &o, &err));
	httpd_push_json(srv, 200, "{\"content\":[]}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.stop_reason, "end_turn"); /* the default */
	skit_model_response_release(&resp);
	ASSERT_STR(sent_header(1, "x-api-key"), "env-key-123456");
	skit_model_free(m);
	unsetenv("OPENAI_BASE_URL");
	unsetenv("ANTHROPIC_API_KEY");
	unsetenv("ANTHROPIC_BASE_URL");
	stop();
}

/* ---- the transport seam ----------------------------------------------- */

struct fake {
	skit_transport base;
	int calls;
	char url[256];
	char auth[256];
	char body[4096];
};

static int fake_perform(skit_transport *self, const skit_http_request *req,
                        const skit_http_sink *sink, skit_error *err)
{
	struct fake *f = (struct fake *)self;
	static const char ct[] = "Content-Type";
	static const char body[] =
	        "data: {\"choices\":[{\"delta\":{\"content\":\"fake\"},"
	        "\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n";
	int rc;

	(void)err;
	f->calls++;
	snprintf(f->url, sizeof(f->url), "%s", req->url);
	for (size_t i = 0; req->headers[i]; i++)
		if (!strncmp(req->headers[i], "Authorization:", 14))
			snprintf(f->auth, sizeof(f->auth), "%s",
			         req->headers[i]);
	snprintf(f->body, sizeof(f->body), "%.*s", (int)req->body_len,
	         req->body);
	rc = sink->on_status(200, sink->payload);
	if (!rc)
		rc = sink->on_header(ct, sizeof(ct) - 1, "text/event-stream",
		                     17, sink->payload);
	for (size_t i = 0; !rc && i < sizeof(body) - 1; i += 4)
		rc = sink->on_body(
		        body + i,
		        sizeof(body) - 1 - i < 4 ? sizeof(body) - 1 - i : 4,
		        sink->payload);
	return rc;
}

static void fake_free(skit_transport *self)
{
	(void)self;
}

static void test_model__fake_transport_and_request_log(void)
{
	struct fake f = { { fake_perform, fake_free }, 0, "", "", "" };
	skit_model_request req = convo_request();
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_response resp;
	char log[PATH_MAX / 2], line[8192];
	skit_model *m;
	FILE *fp;

	snprintf(log, sizeof(log), "%s/requests.jsonl",
	         getenv("SKIT_TEST_DIR") ? getenv("SKIT_TEST_DIR") : ".");
	mkdir(getenv("SKIT_TEST_DIR") ? getenv("SKIT_TEST_DIR") : ".", 0755);
	unlink(log);
	o.spec = "openai:gpt-fake";
	o.api_key = KEY;
	o.transport = &f.base;
	o.request_log = log;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, NULL));
	ASSERT_STR(resp.text, "fake");
	ASSERT_STR(resp.stop_reason, "stop");
	ASSERT_EQ(f.calls, 1);
	ASSERT_STR(f.url, "https://api.openai.com/v1/chat/completions");
	ASSERT_STR(f.auth, "Authorization: Bearer " KEY);
	ASSERT_CONTAINS(f.body, "\"tool_call_id\":\"call_b\"");
	skit_model_response_release(&resp);
	skit_model_free(m);

	fp = fopen(log, "r");
	ASSERT(fp);
	ASSERT(fgets(line, sizeof(line), fp));
	fclose(fp);
	ASSERT_CONTAINS(line, "\"system\":\"You are terse.\"");
	ASSERT_CONTAINS(line, "\"tool_call_id\":\"call_a\"");
	ASSERT_CONTAINS(line, "\"is_error\":true");
	ASSERT(!strstr(line, "SECRET"));
	skitx_buf_release(&d.text);
}

/* ---- replay ----------------------------------------------------------- */

static const char *write_cassette(const char *name, const char *text)
{
	static char path[PATH_MAX / 2];
	const char *dir =
	        getenv("SKIT_TEST_DIR") ? getenv("SKIT_TEST_DIR") : ".";
	FILE *f;

	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ASSERT(f);
	fputs(text, f);
	fclose(f);
	return path;
}

static skit_model *replay(const char *path, skit_error *err, int *rc)
{
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	char spec[PATH_MAX];
	skit_model *m = NULL;

	snprintf(spec, sizeof(spec), "replay:%s", path);
	o.spec = spec;
	*rc = skit_model_new(&m, &o, err);
	return m;
}

static void test_model__replay_cassette_errors(void)
{
	skit_error err = { 0 };
	int rc;

	ASSERT(!replay(write_cassette("bad1.jsonl", "# c\n\n{\"text\":\"a\"}\n"
	                                            "{\"text\": 5}\n"),
	               &err, &rc));
	ASSERT_EQ(rc, SKIT_EINVALID);
	ASSERT_EQ(err.line, 4);
	ASSERT_CONTAINS(err.message, "bad1.jsonl:4: \"text\" must be a string");
	ASSERT(!replay(
	        write_cassette("bad2.jsonl", "{\"text\":\"a\"}\n{oops\n"), &err,
	        &rc));
	ASSERT_EQ(rc, SKIT_EINVALID);
	ASSERT_EQ(err.line, 2);
	ASSERT(!replay(write_cassette("bad3.jsonl",
	                              "{\"tool_calls\":[{\"id\":\"x\"}]}\n"),
	               &err, &rc));
	ASSERT_CONTAINS(err.message, ":1: a tool call needs a \"name\"");
	ASSERT(!replay(
	        write_cassette("bad4.jsonl", "{\"expect\":{\"maybe\":[]}}\n"),
	        &err, &rc));
	ASSERT_EQ(rc, SKIT_EINVALID);
	ASSERT(!replay("/nonexistent/cassette.jsonl", &err, &rc));
	ASSERT_EQ(rc, SKIT_EUSAGE);
	ASSERT(!replay("", &err, &rc));
	ASSERT_EQ(rc, SKIT_EUSAGE);
}

static void test_model__replay_play(void)
{
	skit_model_request req = convo_request();
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m;
	int rc;

	m = replay(write_cassette(
	                   "play.jsonl",
	                   "{\"tool_calls\":[{\"name\":\"read_file\","
	                   "\"arguments\":{\"path\":\"x\"}},{\"id\":\"c2\","
	                   "\"name\":\"read_file\",\"arguments\":\"{}\"}],"
	                   "\"usage\":{\"input_tokens\":7,\"output_tokens\":2},"
	                   "\"expect\":{\"contains\":[\"Read a and b\","
	                   "\"alpha\"],\"not_contains\":[\"zebra\"]}}\n"
	                   "{\"text\":\"A longer answer that streams in "
	                   "several pieces, word by word, to the callback.\"}\n"
	                   "{\"expect\":{\"contains\":[\"zebra\"]}}\n"
	                   "{\"expect\":{\"not_contains\":[\"Thanks\"]}}\n"
	                   "{\"error\":\"simulated\"}\n"),
	           &err, &rc);
	ASSERT_OK(rc);
	ASSERT_STR(skit_model_provider(m), "replay");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, &err));
	ASSERT_EQ(resp.tool_call_count, 2);
	ASSERT_STR(resp.tool_calls[0].id, "call_1_1");
	ASSERT_STR(resp.tool_calls[0].arguments, "{\"path\":\"x\"}");
	ASSERT_STR(resp.tool_calls[1].id, "c2");
	ASSERT_STR(resp.stop_reason, "tool_use");
	ASSERT_EQ(resp.usage.input_tokens, 7);
	skit_model_response_release(&resp);

	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, &err));
	ASSERT_STR(skitx_buf_cstr(&d.text), resp.text);
	ASSERT(d.count > 1);
	ASSERT_STR(resp.stop_reason, "end_turn");
	skit_model_response_release(&resp);

	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "request 3 does not contain \"zebra\"");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "request 4 contains \"Thanks\"");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_EPROVIDER);
	ASSERT_STR(err.message, "replay: simulated");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, &err),
	          SKIT_ENOTFOUND);
	ASSERT_CONTAINS(err.message, "no response for request 6");
	skitx_buf_release(&d.text);
	skit_model_free(m);
}

/* Every allocation failure in a replay call is SKIT_ENOMEM, never a crash
 * or a leak. */
static void test_model__replay_out_of_memory(void)
{
	const char *path = write_cassette(
	        "oom.jsonl", "{\"text\":\"hello there\",\"tool_calls\":[{"
	                     "\"name\":\"t\",\"arguments\":{\"a\":1}}],"
	                     "\"stop_reason\":\"tool_use\",\"expect\":{"
	                     "\"contains\":[\"hi\"]}}\n");
	skit_model_request req = simple_request();
	bool succeeded = false;

	for (long n = 1; n < 500 && !succeeded; n++) {
		skit_model_response resp;
		skit_model *m;
		int rc;

		skitx_alloc_fail_at(n);
		m = replay(path, NULL, &rc);
		if (!rc)
			rc = skit_model_complete(m, &resp, &req, NULL, NULL,
			                         NULL);
		skitx_alloc_fail_at(0);
		ASSERT(rc == 0 || rc == SKIT_ENOMEM);
		succeeded = rc == 0;
		if (succeeded) {
			ASSERT_STR(resp.text, "hello there");
			ASSERT_EQ(resp.tool_call_count, 1);
			skit_model_response_release(&resp);
		}
		skit_model_free(m);
	}
	ASSERT(succeeded);
}

/* ---- what the real APIs refuse ------------------------------------------ */

static const skit_tool_call one_call[] = {
	{ "call_x", "read_file", "{\"path\":\"x\"}" },
};

/* An empty answer, a blank text before a call, a blank tool result. */
static const skit_message blanks[] = {
	{ SKIT_ROLE_USER, "first", NULL, 0, NULL, NULL, false },
	{ SKIT_ROLE_ASSISTANT, "", NULL, 0, NULL, NULL, false },
	{ SKIT_ROLE_USER, "second", NULL, 0, NULL, NULL, false },
	{ SKIT_ROLE_ASSISTANT, "\n\n", one_call, 1, NULL, NULL, false },
	{ SKIT_ROLE_TOOL, " \n", NULL, 0, "call_x", "read_file", false },
	{ SKIT_ROLE_ASSISTANT, " \t", NULL, 0, NULL, NULL, false },
	{ SKIT_ROLE_USER, "third", NULL, 0, NULL, NULL, false },
};

static skit_model_request blank_request(void)
{
	skit_model_request r = simple_request();

	r.messages = blanks;
	r.message_count = SKIT_ARRAY_SIZE(blanks);
	return r;
}

static void test_model__openai_never_null_content(void)
{
	skit_model_request req = blank_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j, *msgs, *v;
	size_t i;

	start();
	m = openai();
	httpd_push_json(srv, 200,
	                "{\"choices\":[{\"message\":{\"content\":\"ok\"},"
	                "\"finish_reason\":\"stop\"}]}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	skit_model_response_release(&resp);
	j = sent_json(0);
	msgs = json_object_get(j, "messages");
	ASSERT_EQ(json_array_size(msgs), 8);
	json_array_foreach(msgs, i, v)
	{
		/* "content": null is refused without tool calls. */
		json_t *c = json_object_get(v, "content");

		ASSERT(!c || json_is_string(c));
	}
	/* The empty answer is "", the role kept (turns stay in order). */
	ASSERT_STR(jpath(j, "messages.2.role"), "assistant");
	ASSERT_STR(jpath(j, "messages.2.content"), "");
	/* Blank text beside calls: no content member at all. */
	ASSERT_STR(jpath(j, "messages.4.tool_calls.0.id"), "call_x");
	ASSERT(!jpath(j, "messages.4.content"));
	ASSERT_STR(jpath(j, "messages.5.tool_call_id"), "call_x");
	/* A blank answer is an empty one. */
	ASSERT_STR(jpath(j, "messages.6.content"), "");
	ASSERT_STR(jpath(j, "messages.7.content"), "third");
	json_decref(j);
	skit_model_free(m);
	stop();
}

static void test_model__anthropic_no_blank_text(void)
{
	skit_model_request req = blank_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	start();
	m = anthropic();
	httpd_push_json(srv, 200,
	                "{\"type\":\"message\",\"content\":[{\"type\":\"text\","
	                "\"text\":\"ok\"}],\"stop_reason\":\"end_turn\"}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	skit_model_response_release(&resp);
	j = sent_json(0);
	/* first+second merged (the empty answer dropped), the call alone
	 * (its "\n\n" dropped), its result + third (" \t" dropped). */
	ASSERT_EQ(json_array_size(json_object_get(j, "messages")), 3);
	ASSERT_STR(jpath(j, "messages.0.role"), "user");
	ASSERT_STR(jpath(j, "messages.0.content.0.text"), "first");
	ASSERT_STR(jpath(j, "messages.0.content.1.text"), "second");
	ASSERT_STR(jpath(j, "messages.1.role"), "assistant");
	ASSERT(!jpath(j, "messages.1.content.1"));
	ASSERT_STR(jpath(j, "messages.1.content.0.type"), "tool_use");
	ASSERT_STR(jpath(j, "messages.2.role"), "user");
	ASSERT_STR(jpath(j, "messages.2.content.0.type"), "tool_result");
	/* A blank result has no content (optional; blank text is refused). */
	ASSERT(!jpath(j, "messages.2.content.0.content"));
	ASSERT_STR(jpath(j, "messages.2.content.1.text"), "third");
	ASSERT(!jpath(j, "messages.2.content.2"));
	json_decref(j);
	skit_model_free(m);
	stop();
}

static void test_model__no_stream_still_reports_text(void)
{
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_model_request req = simple_request();
	skit_model_response resp;
	struct deltas d = { SKITX_BUF_INIT, 0, 0 };
	skit_error err = { 0 };
	skit_model *m = NULL;

	start();
	snprintf(base, sizeof(base), "%s/v1", httpd_url(srv));
	o.spec = "openai:gpt-test";
	o.base_url = base;
	o.api_key = KEY;
	o.no_stream = true;
	ASSERT_OK(skit_model_new(&m, &o, &err));
	httpd_push_json(srv, 200,
	                "{\"choices\":[{\"message\":{\"content\":\"Whole "
	                "answer.\"},\"finish_reason\":\"stop\"}]}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, on_delta, &d, &err));
	/* Not streamed, and the callback got the text once, whole. */
	ASSERT(!strstr(httpd_request_at(srv, 0)->body, "\"stream\""));
	ASSERT_EQ(d.count, 1);
	ASSERT_STR(skitx_buf_cstr(&d.text), "Whole answer.");
	ASSERT_STR(resp.text, "Whole answer.");
	skit_model_response_release(&resp);
	/* Returning non-zero still cancels. */
	d.cancel_at = 1;
	httpd_push_json(srv, 200,
	                "{\"choices\":[{\"message\":{\"content\":\"More.\"},"
	                "\"finish_reason\":\"stop\"}]}");
	ASSERT_EQ(skit_model_complete(m, &resp, &req, on_delta, &d, &err),
	          SKIT_ECANCELED);
	ASSERT(!resp.text);
	skitx_buf_release(&d.text);
	skit_model_free(m);
	stop();
}

/* JSON-action mode: the action is the model's text, its result a user
 * message; no tool_calls / tool_use may be replayed (nothing answers
 * them, and no tools are declared). */
static void json_actions_on(const char *spec, const char *answer1,
                            const char *answer2)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_policy *pol = NULL;
	skit_agent *agent = NULL;
	skit_error err = { 0 };
	skit_model *m;
	char *answer = NULL;
	json_t *j, *msgs, *v;
	size_t i;
	bool anthropic_api = !strncmp(spec, "anthropic", 9);

	start();
	if (anthropic_api) {
		m = model_at(spec, httpd_url(srv), KEY);
	} else {
		snprintf(base, sizeof(base), "%s/v1", httpd_url(srv));
		m = model_at(spec, base, KEY);
	}
	httpd_push_json(srv, 200, answer1);
	httpd_push_json(srv, 200, answer2);
	ASSERT_OK(skit_registry_new(&reg, &err));
	ASSERT_OK(skit_registry_scan(reg, &err));
	ASSERT_OK(skit_policy_new(&pol, &err));
	skit_policy_set_yes(pol, true);
	ao.registry = reg;
	ao.model = m;
	ao.policy = pol;
	ao.json_actions = true;
	ao.file_tools = false;
	if (skit_agent_new(&agent, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
	if (skit_agent_send(agent, "do it", &answer, &err))
		HARNESS_FAIL("send: %s", err.message);
	ASSERT_STR(answer, "Done.");
	skit_free(answer);
	ASSERT_EQ(httpd_request_count(srv), 2);
	j = sent_json(1);
	ASSERT(!json_object_get(j, "tools"));
	msgs = json_object_get(j, "messages");
	ASSERT(!strstr(httpd_request_at(srv, 1)->body, "tool_use"));
	ASSERT(!strstr(httpd_request_at(srv, 1)->body, "tool_calls"));
	ASSERT(!strstr(httpd_request_at(srv, 1)->body, "action_1"));
	json_array_foreach(msgs, i, v)
	{
		ASSERT(!json_object_get(v, "tool_calls"));
		ASSERT(strcmp(jpath(v, "role"), "tool"));
	}
	/* user, assistant (the action as text), user (its result) */
	i = anthropic_api ? 0 : 1;
	ASSERT_EQ(json_array_size(msgs), i + 3);
	ASSERT_STR(jpath(json_array_get(msgs, i + 1), "role"), "assistant");
	ASSERT_CONTAINS(jpath(json_array_get(msgs, i + 1),
	                      anthropic_api ? "content.0.text" : "content"),
	                "\"action\"");
	ASSERT_STR(jpath(json_array_get(msgs, i + 2), "role"), "user");
	ASSERT_CONTAINS(jpath(json_array_get(msgs, i + 2),
	                      anthropic_api ? "content.0.text" : "content"),
	                "update_plan");
	json_decref(j);
	skit_agent_free(agent);
	skit_policy_free(pol);
	skit_registry_free(reg);
	skit_model_free(m);
	stop();
}

static void test_model__json_actions_replayed_as_text(void)
{
	json_actions_on(
	        "openai:gpt-test",
	        "{\"choices\":[{\"message\":{\"content\":\"{\\\"action\\\": "
	        "\\\"update_plan\\\", \\\"steps\\\": [{\\\"step\\\": "
	        "\\\"Go\\\", \\\"status\\\": \\\"in_progress\\\"}]}\"},"
	        "\"finish_reason\":\"stop\"}]}",
	        "{\"choices\":[{\"message\":{\"content\":\"Done.\"},"
	        "\"finish_reason\":\"stop\"}]}");
	json_actions_on(
	        "anthropic:claude-test",
	        "{\"type\":\"message\",\"content\":[{\"type\":\"text\","
	        "\"text\":\"{\\\"action\\\": \\\"update_plan\\\", "
	        "\\\"steps\\\": [{\\\"step\\\": \\\"Go\\\", \\\"status\\\": "
	        "\\\"in_progress\\\"}]}\"}],\"stop_reason\":\"end_turn\"}",
	        "{\"type\":\"message\",\"content\":[{\"type\":\"text\","
	        "\"text\":\"Done.\"}],\"stop_reason\":\"end_turn\"}");
}

/* Servers that send no id, or the same id in every answer. */
static void test_model__tool_call_ids_made_unique(void)
{
	static const skit_tool_call earlier[] = {
		{ "call_0", "read_file", "{}" },
	};
	static const skit_message history[] = {
		{ SKIT_ROLE_USER, "go", NULL, 0, NULL, NULL, false },
		{ SKIT_ROLE_ASSISTANT, "", earlier, 1, NULL, NULL, false },
		{ SKIT_ROLE_TOOL, "r", NULL, 0, "call_0", "read_file", false },
	};
	skit_model_request req = simple_request();
	skit_model_response resp;
	skit_model *m;

	req.messages = history;
	req.message_count = 3;
	start();
	m = openai();
	httpd_push_json(
	        srv, 200,
	        "{\"choices\":[{\"message\":{\"content\":\"\",\"tool_calls\":"
	        "[{\"id\":\"call_0\",\"type\":\"function\",\"function\":{"
	        "\"name\":\"read_file\",\"arguments\":\"{}\"}},"
	        "{\"id\":\"call_0\",\"type\":\"function\",\"function\":{"
	        "\"name\":\"read_file\",\"arguments\":\"{}\"}},"
	        "{\"id\":\"\",\"type\":\"function\",\"function\":{"
	        "\"name\":\"read_file\",\"arguments\":\"{}\"}},"
	        "{\"id\":\"fine\",\"type\":\"function\",\"function\":{"
	        "\"name\":\"read_file\",\"arguments\":\"{}\"}}]},"
	        "\"finish_reason\":\"tool_calls\"}]}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_EQ(resp.tool_call_count, 4);
	ASSERT_STR(resp.tool_calls[0].id, "call_3_1");
	ASSERT_STR(resp.tool_calls[1].id, "call_3_2");
	ASSERT_STR(resp.tool_calls[2].id, "call_3_3");
	ASSERT_STR(resp.tool_calls[3].id, "fine");
	skit_model_response_release(&resp);
	skit_model_free(m);
	stop();
}

/* ---- OpenAI-compatible servers' shapes (tests/api/compat/) -------------- */

struct compat_case {
	const char *file; /* in tests/api/compat/ */
	const char *text; /* the answer text (no reasoning in it) */
	size_t calls;     /* read_file calls, with {"path":"a.txt"} first */
	const char *stop; /* stop_reason as the server said it */
	unsigned in, out; /* usage, 0 when the server sent none */
	const char *id0;  /* the first call's id */
};

static void test_model__compatible_servers(void)
{
	static const struct compat_case cases[] = {
		{ "ollama_stream.sse", "Reading it.", 1, "stop", 0, 0,
		  "call_k2x9q1" },
		{ "ollama_whole.json", "", 1, "tool_calls", 88, 17, NULL },
		{ "vllm_stream.sse", "", 1, "tool_calls", 120, 32,
		  "chatcmpl-tool-4be1d2" },
		{ "vllm_whole.json", "The file is empty.", 0, "stop", 40, 7,
		  NULL },
		{ "llamacpp_stream.sse", "Sure.", 1, "tool_calls", 64, 21,
		  "Xp3rT8uWq2" },
		{ "llamacpp_eos.sse", "Done", 0, "eos", 0, 0, NULL },
		{ "lmstudio_stream.sse", "Let me look.", 1, "tool_calls", 0, 0,
		  "365174485" },
		{ "proxy_ids_stream.sse", "", 1, "stop", 0, 0,
		  "chatcmpl-tool-77aa" },
		{ "no_ids_whole.json", "", 2, "function_call", 0, 0, NULL },
	};
	static const skit_tool_call earlier[] = {
		{ "call_0", "read_file", "{\"path\":\"z\"}" },
	};
	static const skit_message history[] = {
		{ SKIT_ROLE_USER, "go", NULL, 0, NULL, NULL, false },
		{ SKIT_ROLE_ASSISTANT, "", earlier, 1, NULL, NULL, false },
		{ SKIT_ROLE_TOOL, "z", NULL, 0, "call_0", "read_file", false },
	};
	const char *src = getenv("SKIT_SOURCE_DIR");
	skit_model_request req = simple_request();
	char path[4096];

	ASSERT(src);
	req.messages = history;
	req.message_count = SKIT_ARRAY_SIZE(history);
	start();
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		const struct compat_case *c = &cases[i];
		httpd_response r = HTTPD_RESPONSE_INIT;
		struct deltas d = { SKITX_BUF_INIT, 0, 0 };
		bool sse_file = strstr(c->file, ".sse") != NULL;
		skit_model_response resp;
		skit_error err = { 0 };
		skit_model *m = openai();

		snprintf(path, sizeof(path), "%s/tests/api/compat/%s", src,
		         c->file);
		r.content_type = sse_file ? "text/event-stream" : NULL;
		r.chunk = sse_file ? 50 : 0;
		httpd_push_file(srv, &r, path);
		if (skit_model_complete(m, &resp, &req,
		                        sse_file ? on_delta : NULL, &d, &err))
			HARNESS_FAIL("%s: %s", c->file, err.message);
		ASSERT_STR(resp.text, c->text);
		if (sse_file)
			ASSERT_STR(skitx_buf_cstr(&d.text), c->text);
		ASSERT_STR(resp.stop_reason, c->stop);
		ASSERT_EQ(resp.tool_call_count, c->calls);
		ASSERT_EQ(resp.usage.input_tokens, c->in);
		ASSERT_EQ(resp.usage.output_tokens, c->out);
		for (size_t k = 0; k < resp.tool_call_count; k++) {
			ASSERT_STR(resp.tool_calls[k].name, "read_file");
			ASSERT(*resp.tool_calls[k].id);
			/* ids are unique in the answer and the conversation */
			ASSERT(strcmp(resp.tool_calls[k].id, "call_0"));
			for (size_t q = 0; q < k; q++)
				ASSERT(strcmp(resp.tool_calls[k].id,
				              resp.tool_calls[q].id));
		}
		if (c->calls) {
			json_t *a = json_loads(resp.tool_calls[0].arguments, 0,
			                       NULL);

			ASSERT(a);
			ASSERT_STR(
			        json_string_value(json_object_get(a, "path")),
			        "a.txt");
			json_decref(a);
		}
		if (c->id0)
			ASSERT_STR(resp.tool_calls[0].id, c->id0);
		skit_model_response_release(&resp);
		skitx_buf_release(&d.text);
		skit_model_free(m);
	}
	stop();
}

/* Arguments a model got wrong are replayed as {} (an error result already
 * told it so), never as text that is not a JSON object. */
static void test_model__bad_arguments_replayed_as_empty_object(void)
{
	static const skit_tool_call bad[] = {
		{ "c1", "read_file", "{not json" },
		{ "c2", "read_file", "[1, 2]" },
		{ "c3", "read_file", "{\"path\":\"ok\"}" },
	};
	static const skit_message msgs[] = {
		{ SKIT_ROLE_USER, "go", NULL, 0, NULL, NULL, false },
		{ SKIT_ROLE_ASSISTANT, "", bad, 3, NULL, NULL, false },
		{ SKIT_ROLE_TOOL, "e1", NULL, 0, "c1", "read_file", true },
		{ SKIT_ROLE_TOOL, "e2", NULL, 0, "c2", "read_file", true },
		{ SKIT_ROLE_TOOL, "r3", NULL, 0, "c3", "read_file", false },
	};
	skit_model_request req = simple_request();
	skit_model_response resp;
	skit_model *m;
	json_t *j;

	req.messages = msgs;
	req.message_count = SKIT_ARRAY_SIZE(msgs);
	start();
	m = openai();
	httpd_push_json(srv, 200,
	                "{\"choices\":[{\"message\":{\"content\":\"ok\"},"
	                "\"finish_reason\":\"stop\"}]}");
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	skit_model_response_release(&resp);
	j = sent_json(0);
	ASSERT_STR(jpath(j, "messages.2.tool_calls.0.function.arguments"),
	           "{}");
	ASSERT_STR(jpath(j, "messages.2.tool_calls.1.function.arguments"),
	           "{}");
	ASSERT_STR(jpath(j, "messages.2.tool_calls.2.function.arguments"),
	           "{\"path\":\"ok\"}");
	json_decref(j);
	skit_model_free(m);
	stop();
}

/* A retry is reported before its wait: the trace shows it, not silence. */
struct retries {
	unsigned int n, last, max;
	long wait_ms;
	char why[64];
};

static void on_retry_seen(unsigned int retry, unsigned int max, long wait_ms,
                          const char *why, void *payload)
{
	struct retries *r = payload;

	r->n++;
	r->last = retry;
	r->max = max;
	r->wait_ms = wait_ms;
	snprintf(r->why, sizeof(r->why), "%s", why);
}

static void test_model__retry_reported(void)
{
	skit_model_request req = simple_request();
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	struct retries seen = { 0, 0, 0, -1, "" };
	skit_model_response resp;
	skit_model *m;

	start();
	o.spec = "openai:gpt-test";
	snprintf(base, sizeof(base), "%s/v1", httpd_url(srv));
	o.base_url = base;
	o.api_key = KEY;
	o.retry_base_ms = 1;
	o.retry_max_ms = 5;
	o.on_retry = on_retry_seen;
	o.retry_payload = &seen;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	httpd_push_json(srv, 503, "<html>Service Unavailable</html>");
	httpd_push_json(srv, 200, ok_body);
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	ASSERT_STR(resp.text, "ok");
	skit_model_response_release(&resp);
	ASSERT_EQ(seen.n, 1);
	ASSERT_EQ(seen.last, 1);
	ASSERT_EQ(seen.max, 4); /* the default */
	ASSERT_STR(seen.why, "HTTP 503");
	ASSERT(seen.wait_ms >= 0 && seen.wait_ms <= 5);
	/* a success at once: no retry reported */
	httpd_push_json(srv, 200, ok_body);
	ASSERT_OK(skit_model_complete(m, &resp, &req, NULL, NULL, NULL));
	skit_model_response_release(&resp);
	ASSERT_EQ(seen.n, 1);
	skit_model_free(m);
	stop();
}

TEST_MAIN(
        TEST(test_model__openai_text) TEST(test_model__openai_tool_calls) TEST(
                test_model__openai_stream_text) TEST(test_model__openai_stream_odd_chunks)
                TEST(test_model__openai_stream_tool_calls) TEST(test_model__anthropic_text) TEST(
                        test_model__anthropic_tool_use_and_merge) TEST(test_model__anthropic_stream)
                        TEST(test_model__anthropic_stream_errors) TEST(
                                test_model__retry_429_retry_after) TEST(test_model__retry_500_then_success_and_give_up)
                                TEST(test_model__http_errors_name_provider_not_key) TEST(
                                        test_model__malformed_and_truncated) TEST(test_model__connection_refused_and_timeout)
                                        TEST(test_model__cancel) TEST(
                                                test_model__env_and_keys) TEST(test_model__fake_transport_and_request_log)
                                                TEST(test_model__replay_cassette_errors) TEST(
                                                        test_model__replay_play) TEST(test_model__replay_out_of_memory)
                                                        TEST(test_model__openai_never_null_content) TEST(
                                                                test_model__anthropic_no_blank_text)
                                                                TEST(test_model__no_stream_still_reports_text) TEST(
                                                                        test_model__json_actions_replayed_as_text)
                                                                        TEST(test_model__tool_call_ids_made_unique) TEST(
                                                                                test_model__compatible_servers)
                                                                                TEST(test_model__bad_arguments_replayed_as_empty_object)
                                                                                        TEST(test_model__retry_reported))
