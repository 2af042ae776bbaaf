/* SPDX-License-Identifier: MIT */
/*
 * fuzz_provider.c - both HTTP providers (openai, anthropic) reading a
 * server's answer through a fake transport: any status, content type and
 * body, plain or streamed, delivered in chunks of any size.
 *
 * Input: byte 0 picks the provider, streaming, and the content type;
 * byte 1 the status; byte 2 the chunk size; the rest is the body, where
 * each 0x01 byte stands for the API key (so the key lands anywhere: in a
 * JSON message, a plain-text line, an SSE error event, across a cut).
 *
 * Property: the API key never appears in an error, whole or in part. The
 * key is "sk-" and letters from QZXJVWK only, and the body's upper-case
 * letters are lowered, so two of those letters side by side in a message
 * can only have come from the key.
 */
#include "common.h"

#include <ctype.h>

#include "skit/model.h"
#include "util/buf.h"
#include "fuzz.h"

#define KEY    "sk-QZXJVWKQZJXWVKQXZJVWKZ"
#define KEYSET "QZXJVWK"

struct fake {
	skit_transport base;
	long status;
	const char *ctype;
	const char *body;
	size_t len, chunk;
};

static int fake_perform(skit_transport *self, const skit_http_request *req,
                        const skit_http_sink *sink, skit_error *err)
{
	struct fake *f = (struct fake *)self;
	static const char ct[] = "Content-Type";
	int rc;

	(void)req;
	(void)err;
	rc = sink->on_status(f->status, sink->payload);
	if (!rc && f->ctype)
		rc = sink->on_header(ct, sizeof(ct) - 1, f->ctype,
		                     strlen(f->ctype), sink->payload);
	for (size_t i = 0; !rc && i < f->len; i += f->chunk)
		rc = sink->on_body(f->body + i,
		                   f->len - i < f->chunk ? f->len - i
		                                         : f->chunk,
		                   sink->payload);
	return rc;
}

static void fake_free(skit_transport *self)
{
	(void)self;
}

static int on_delta(const char *text, size_t len, void *payload)
{
	(void)text;
	(void)len;
	(void)payload;
	return 0;
}

static void no_key_part(const char *msg)
{
	for (const char *p = msg; p[0] && p[1]; p++)
		FUZZ_CHECK(!(strchr(KEYSET, p[0]) && strchr(KEYSET, p[1])),
		           "part of the key in \"%s\"", msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 200, 200, 200, 400, 401, 403,
		                         404, 413, 422, 429, 500, 503 };
	static const char *const ctypes[] = { "application/json",
		                              "text/event-stream", "text/plain",
		                              NULL };
	static const skit_message hi[] = {
		{ SKIT_ROLE_USER, "hi", NULL, 0, NULL, NULL, false },
	};
	static const skit_tool_schema tools[] = {
		{ "read_file", "Read a file",
		  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":"
		  "\"string\"}}}" },
	};
	struct fake f = { { fake_perform, fake_free }, 0, NULL, NULL, 0, 1 };
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	struct skitx_buf body = SKITX_BUF_INIT;
	skit_model_request req = { 0 };
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m = NULL;
	int rc;

	if (size < 3 || size > 65536)
		return 0;
	for (size_t i = 3; i < size; i++) {
		char c = (char)data[i];

		if (c == 1)
			rc = skitx_buf_puts(&body, KEY);
		else
			rc = skitx_buf_add(
			        &body,
			        &(char){ (char)tolower((unsigned char)c) }, 1);
		if (rc) {
			skitx_buf_release(&body);
			return 0;
		}
	}
	f.status = statuses[data[1] % (sizeof(statuses) / sizeof(*statuses))];
	f.ctype = ctypes[(data[0] >> 2) % 4];
	f.body = skitx_buf_cstr(&body);
	f.len = skitx_buf_len(&body);
	f.chunk = data[2] ? data[2] : f.len + 1;

	o.spec = data[0] & 1 ? "anthropic:claude-fz" : "openai:gpt-fz";
	o.api_key = KEY;
	o.transport = &f.base;
	o.max_retries = 1;
	o.retry_base_ms = 1;
	o.retry_max_ms = 1;
	o.no_stream = !(data[0] & 2);
	req.system = "be brief";
	req.messages = hi;
	req.message_count = 1;
	req.tools = tools;
	req.tool_count = 1;
	if (!skit_model_new(&m, &o, NULL)) {
		rc = skit_model_complete(m, &resp, &req, on_delta, NULL, &err);
		if (rc)
			no_key_part(err.message);
		else
			skit_model_response_release(&resp);
		skit_model_free(m);
	}
	skitx_buf_release(&body);
	return 0;
}
