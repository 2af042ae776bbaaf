/* SPDX-License-Identifier: MIT */
/*
 * test_model_http.c - the error messages of the HTTP providers never
 * carry the API key, whole or in part: a server that echoes the key at
 * any offset around the cuts of the quoted message (the raw copy's size
 * and the quote's length), as plain text or as a JSON message, through a
 * fake transport.
 */
#include "common.h"

#include "harness.h"
#include "skit/model.h"
#include "util/buf.h"

#define KEY "sk-test-QZXJVW-0123456789abcdefghij"

struct fake {
	skit_transport base;
	long status;
	const char *ctype;
	const char *body;
	size_t len;
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
	if (!rc)
		rc = sink->on_header(ct, sizeof(ct) - 1, f->ctype,
		                     strlen(f->ctype), sink->payload);
	/* In small pieces, as a network would. */
	for (size_t i = 0; !rc && i < f->len; i += 7)
		rc = sink->on_body(f->body + i, f->len - i < 7 ? f->len - i : 7,
		                   sink->payload);
	return rc;
}

static void fake_free(skit_transport *self)
{
	(void)self;
}

/* No run of 4 or more bytes of the key is in `msg`. */
static void assert_no_key_part(const char *msg)
{
	static const char key[] = KEY;

	for (size_t i = 0; i + 4 <= sizeof(key) - 1; i++) {
		char part[5];

		memcpy(part, key + i, 4);
		part[4] = '\0';
		if (strstr(msg, part))
			HARNESS_FAIL("key part \"%s\" in \"%s\"", part, msg);
	}
}

static void error_of(const char *spec, struct fake *f, skit_error *err)
{
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	static const skit_message hi[] = {
		{ SKIT_ROLE_USER, "hi", NULL, 0, NULL, NULL, false },
	};
	skit_model_request req = { 0 };
	skit_model_response resp;
	skit_model *m = NULL;

	o.spec = spec;
	o.api_key = KEY;
	o.transport = &f->base;
	o.retry_base_ms = 1;
	o.retry_max_ms = 2;
	req.messages = hi;
	req.message_count = 1;
	ASSERT_OK(skit_model_new(&m, &o, NULL));
	memset(err, 0, sizeof(*err));
	ASSERT_EQ(skit_model_complete(m, &resp, &req, NULL, NULL, err),
	          SKIT_EPROVIDER);
	skit_model_free(m);
}

/* The reproducer: "x", N spaces, the key, as a text/plain 400 body, for
 * every N that puts the key across the raw copy's cut (the old code cut
 * the message to 800 bytes first and scrubbed after). */
static void test_model_http__key_across_raw_cut(void)
{
	static const char *const specs[] = { "openai:gpt-x",
		                             "anthropic:claude-x" };
	char body[1200];
	skit_error err;

	for (size_t s = 0; s < 2; s++) {
		for (size_t n = 700; n <= 820; n++) {
			struct fake f = { { fake_perform, fake_free },
				          400,
				          "text/plain",
				          body,
				          0 };

			body[0] = 'x';
			memset(body + 1, ' ', n);
			memcpy(body + 1 + n, KEY, sizeof(KEY) - 1);
			f.len = 1 + n + sizeof(KEY) - 1;
			error_of(specs[s], &f, &err);
			ASSERT_CONTAINS(err.message, "HTTP 400: x ***");
			assert_no_key_part(err.message);
		}
	}
}

/* Words before the key, so the quote's own cut (after the spaces are
 * squeezed) falls at every byte of the key; plain text and JSON. */
static void test_model_http__key_across_quote_cut(void)
{
	char text[600], body[700];
	skit_error err;

	for (size_t n = 140; n <= 220; n++) {
		struct fake f = {
			{ fake_perform, fake_free }, 400, "", body, 0
		};

		memset(text, 'w', n);
		memcpy(text + n, KEY, sizeof(KEY) - 1);
		memcpy(text + n + sizeof(KEY) - 1, " tail", 6);

		f.ctype = "text/plain";
		f.len = (size_t)snprintf(body, sizeof(body), "%s", text);
		error_of("openai:gpt-x", &f, &err);
		ASSERT_CONTAINS(err.message, "HTTP 400: www");
		assert_no_key_part(err.message);

		f.ctype = "application/json";
		f.len = (size_t)snprintf(body, sizeof(body),
		                         "{\"error\":{\"message\":\"%s\"}}",
		                         text);
		error_of("anthropic:claude-x", &f, &err);
		ASSERT_CONTAINS(err.message, "HTTP 400: www");
		assert_no_key_part(err.message);
	}
}

/* A message that ends with the whole key is scrubbed, not quoted. */
static void test_model_http__key_at_end_and_alone(void)
{
	struct fake f = { { fake_perform, fake_free },
		          400,
		          "text/plain",
		          KEY,
		          sizeof(KEY) - 1 };
	skit_error err;

	error_of("openai:gpt-x", &f, &err);
	ASSERT_STR(err.message, "openai: HTTP 400: ***");
	f.body = "bad key " KEY;
	f.len = strlen(f.body);
	error_of("openai:gpt-x", &f, &err);
	ASSERT_STR(err.message, "openai: HTTP 400: bad key ***");
}

/* clang-format off */
TEST_MAIN(
	TEST(test_model_http__key_across_raw_cut)
	TEST(test_model_http__key_across_quote_cut)
	TEST(test_model_http__key_at_end_and_alone))
/* clang-format on */
