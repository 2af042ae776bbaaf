/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cassette.c - the replay provider's cassette files (JSONL: one
 * response a line, with text, tool calls, usage, stop reason, and
 * "expect" checks of what skit sent). Evals and tests read cassettes
 * from case folders, which are untrusted.
 *
 * Input: the cassette. It is loaded and played to the end (or its first
 * error), streaming each response. Checks: no crash or leak, one-line
 * errors, and every response's text and tool calls are valid strings.
 */
#include "common.h"

#include "skit/model.h"
#include "fuzz.h"

static void one_line(const char *s)
{
	for (const char *p = s; *p; p++)
		FUZZ_CHECK(*p != '\n' && *p != '\r', "newline in \"%s\"", s);
}

static int on_delta(const char *text, size_t len, void *payload)
{
	size_t *n = payload;

	(void)text;
	*n += len;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const skit_message hi[] = {
		{ SKIT_ROLE_USER, "hi", NULL, 0, NULL, NULL, false },
	};
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_model_request req = { 0 };
	skit_error err = { 0 };
	skit_model *m = NULL;
	char spec[4200];
	const char *path = fuzz_path("c.jsonl");

	if (size > 65536)
		return 0;
	fuzz_write(path, data, size);
	snprintf(spec, sizeof(spec), "replay:%s", path);
	o.spec = spec;
	if (skit_model_new(&m, &o, &err)) {
		one_line(err.message);
		return 0;
	}
	req.system = "be brief";
	req.messages = hi;
	req.message_count = 1;
	for (int turn = 0; turn < 64; turn++) {
		skit_model_response resp;
		size_t streamed = 0;

		memset(&err, 0, sizeof(err));
		if (skit_model_complete(m, &resp, &req, on_delta, &streamed,
		                        &err)) {
			one_line(err.message);
			break;
		}
		for (size_t i = 0; i < resp.tool_call_count; i++)
			FUZZ_CHECK(resp.tool_calls[i].name &&
			                   resp.tool_calls[i].id &&
			                   resp.tool_calls[i].arguments,
			           "tool call %zu", i);
		skit_model_response_release(&resp);
	}
	skit_model_free(m);
	return 0;
}
