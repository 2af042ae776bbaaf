/* SPDX-License-Identifier: MIT */
/*
 * model_replay.c - the offline provider: play back a cassette.
 *
 * A cassette is a JSONL file, one model response per line (blank lines
 * and lines starting with '#' are ignored):
 *
 *   {"text": "...",
 *    "tool_calls": [{"id": "c1", "name": "use_skill",
 *                    "arguments": {"name": "csv-report"}}],
 *    "stop_reason": "tool_use",
 *    "usage": {"input_tokens": 120, "output_tokens": 12},
 *    "expect": {"contains": ["..."], "not_contains": ["..."]},
 *    "error": "a provider error to simulate"}
 *
 * Every member is optional. "arguments" may be an object or JSON text.
 * "expect" checks the request about to be answered: each "contains"
 * string must occur, and no "not_contains" string may occur, in the
 * request's text (system prompt, message texts, tool-call arguments, and
 * tool names and descriptions). The n-th request gets the n-th response;
 * when they run out the call fails with SKIT_ENOTFOUND.
 */
#include "common.h"

#include "lib/core/error.h"
#include "lib/model/model_int.h"
#include "util/buf.h"
#include "util/fs.h"

#define CASSETTE_MAX  (64u * 1024 * 1024)
#define RESPONSES_MAX 100000u
#define STREAM_CHUNK  48u

struct replay {
	json_t *responses; /* array of objects */
	size_t next;
};

static int cassette_error(skit_model *m, int code, size_t line,
                          const char *what, skit_error *err)
{
	return skit__error_set(err, code, (unsigned int)line,
	                       "replay: %s:%zu: %s", m->name, line, what);
}

static int check_entry(skit_model *m, json_t *e, size_t line, skit_error *err)
{
	json_t *calls = json_object_get(e, "tool_calls"), *c, *v;
	json_t *expect = json_object_get(e, "expect");
	const char *k;
	size_t i;

	if (!json_is_object(e))
		return cassette_error(m, SKIT_EINVALID, line,
		                      "a response must be a JSON object", err);
	v = json_object_get(e, "text");
	if (v && !json_is_string(v))
		return cassette_error(m, SKIT_EINVALID, line,
		                      "\"text\" must be a string", err);
	if (calls && !json_is_array(calls))
		return cassette_error(m, SKIT_EINVALID, line,
		                      "\"tool_calls\" must be an array", err);
	json_array_foreach(calls, i, c)
	{
		if (!json_is_object(c) ||
		    !json_is_string(json_object_get(c, "name")))
			return cassette_error(m, SKIT_EINVALID, line,
			                      "a tool call needs a \"name\"",
			                      err);
		v = json_object_get(c, "arguments");
		if (v && !json_is_object(v) && !json_is_string(v))
			return cassette_error(m, SKIT_EINVALID, line,
			                      "tool-call \"arguments\" must be "
			                      "an object or a string",
			                      err);
	}
	if (expect && !json_is_object(expect))
		return cassette_error(m, SKIT_EINVALID, line,
		                      "\"expect\" must be an object", err);
	json_object_foreach(expect, k, v)
	{
		size_t j;
		json_t *s;

		if (strcmp(k, "contains") && strcmp(k, "not_contains"))
			return cassette_error(m, SKIT_EINVALID, line,
			                      "\"expect\" takes \"contains\" "
			                      "and \"not_contains\"",
			                      err);
		if (!json_is_array(v))
			return cassette_error(m, SKIT_EINVALID, line,
			                      "expectations must be arrays of "
			                      "strings",
			                      err);
		json_array_foreach(v, j, s)
		{
			if (!json_is_string(s))
				return cassette_error(
				        m, SKIT_EINVALID, line,
				        "expectations must be arrays of strings",
				        err);
		}
	}
	return 0;
}

static int load_cassette(skit_model *m, struct replay *r, skit_error *err)
{
	struct skitx_buf buf;
	const char *p, *end, *nl;
	size_t line = 0;
	json_error_t jerr;
	json_t *e;
	int rc;

	skitx_buf_init(&buf, CASSETTE_MAX);
	rc = skitx_fs_read_file(m->name, &buf, CASSETTE_MAX);
	if (rc) {
		skitx_buf_release(&buf);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		if (rc == SKIT_ETOOBIG)
			return skit__error_set(err, rc, 0,
			                       "replay: %s: larger than %u MiB",
			                       m->name, CASSETTE_MAX >> 20);
		return skit__error_set(
		        err, rc == SKIT_ENOTFOUND ? SKIT_EUSAGE : SKIT_EIO, 0,
		        "replay: %s: %s", m->name,
		        rc == SKIT_ENOTFOUND ? "no such file"
		        : rc == SKIT_EUNSAFE ? "not a regular file"
		                             : "unreadable");
	}
	p = skitx_buf_cstr(&buf);
	end = p + skitx_buf_len(&buf);
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		line++;
		while (p < nl && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p == nl || *p == '#')
			continue;
		if (json_array_size(r->responses) >= RESPONSES_MAX) {
			rc = cassette_error(m, SKIT_ETOOBIG, line,
			                    "too many responses", err);
			break;
		}
		e = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES,
		               &jerr);
		if (!e) {
			rc = skit__error_set(
			        err, SKIT_EINVALID, (unsigned int)line,
			        "replay: %s:%zu: %s", m->name, line, jerr.text);
			break;
		}
		rc = check_entry(m, e, line, err);
		if (!rc && json_array_append_new(r->responses, e))
			rc = skit__error_oom(err);
		else if (rc)
			json_decref(e);
		if (rc)
			break;
	}
	skitx_buf_release(&buf);
	return rc;
}

static int replay_init(skit_model *m, skit_error *err)
{
	struct replay *r;
	int rc;

	if (!*m->name)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "the replay model needs a cassette: "
		                       "--model replay:FILE.jsonl");
	r = skitx_calloc(1, sizeof(*r));
	if (!r)
		return skit__error_oom(err);
	m->state = r;
	r->responses = json_array();
	if (!r->responses)
		return skit__error_oom(err);
	rc = load_cassette(m, r, err);
	return rc;
}

/* The text the expectations look at, one field per line. */
static int request_text(struct skitx_buf *b, const skit_model_request *req)
{
	int rc = 0;

	if (req->system)
		rc |= skitx_buf_puts(b, req->system);
	for (size_t i = 0; i < req->message_count; i++) {
		const skit_message *msg = &req->messages[i];

		rc |= skitx_buf_putc(b, '\n');
		if (msg->text)
			rc |= skitx_buf_puts(b, msg->text);
		for (size_t j = 0; j < msg->tool_call_count; j++) {
			rc |= skitx_buf_putc(b, '\n');
			rc |= skitx_buf_puts(b, msg->tool_calls[j].name);
			rc |= skitx_buf_putc(b, ' ');
			if (msg->tool_calls[j].arguments)
				rc |= skitx_buf_puts(
				        b, msg->tool_calls[j].arguments);
		}
	}
	for (size_t i = 0; i < req->tool_count; i++) {
		rc |= skitx_buf_putc(b, '\n');
		rc |= skitx_buf_puts(b, req->tools[i].name);
		rc |= skitx_buf_putc(b, '\n');
		if (req->tools[i].description)
			rc |= skitx_buf_puts(b, req->tools[i].description);
	}
	return rc ? SKIT_ENOMEM : 0;
}

static int check_expect(skit_model *m, json_t *expect, size_t n,
                        const skit_model_request *req, skit_error *err)
{
	struct skitx_buf text;
	json_t *s;
	size_t i;
	int rc;

	if (!expect)
		return 0;
	skitx_buf_init(&text, SIZE_MAX);
	rc = request_text(&text, req);
	if (rc) {
		skitx_buf_release(&text);
		return skit__error_oom(err);
	}
	json_array_foreach(json_object_get(expect, "contains"), i, s)
	{
		if (!strstr(skitx_buf_cstr(&text), json_string_value(s))) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "replay: request %zu does not "
			                     "contain \"%.120s\"",
			                     n, json_string_value(s));
			break;
		}
	}
	json_array_foreach(json_object_get(expect, "not_contains"), i, s)
	{
		if (rc)
			break;
		if (strstr(skitx_buf_cstr(&text), json_string_value(s)))
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "replay: request %zu contains "
			                     "\"%.120s\"",
			                     n, json_string_value(s));
	}
	skitx_buf_release(&text);
	return rc;
}

/* Hand the text to the callback a few words at a time, as a stream. */
static int stream_text(const char *text, skit_model_delta_cb on_delta,
                       void *payload, skit_error *err)
{
	size_t len = strlen(text), at = 0, n;

	while (at < len) {
		n = len - at < STREAM_CHUNK ? len - at : STREAM_CHUNK;
		/* End a chunk after a space, never inside a UTF-8 sequence. */
		while (at + n < len && n > 1 && text[at + n - 1] != ' ')
			n--;
		if (n == 1 && at + n < len)
			n = len - at < STREAM_CHUNK ? len - at : STREAM_CHUNK;
		while (at + n < len &&
		       ((unsigned char)text[at + n] & 0xC0) == 0x80)
			n++;
		if (on_delta(text + at, n, payload))
			return skit__error_set(err, SKIT_ECANCELED, 0,
			                       "canceled");
		at += n;
	}
	return 0;
}

static int replay_complete(skit_model *m, skit_model_response *out,
                           const skit_model_request *req,
                           skit_model_delta_cb on_delta, void *payload,
                           skit_error *err)
{
	struct replay *r = m->state;
	json_t *e, *calls, *c, *args, *usage, *v;
	char idbuf[32], *argtext;
	size_t n = r->next + 1, i;
	int rc;

	e = json_array_get(r->responses, r->next);
	if (!e)
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "replay: %s has no response for "
		                       "request %zu",
		                       m->name, n);
	r->next++;
	rc = check_expect(m, json_object_get(e, "expect"), n, req, err);
	if (rc)
		return rc;
	v = json_object_get(e, "error");
	if (json_is_string(v))
		return skit__error_set(err, SKIT_EPROVIDER, 0, "replay: %.200s",
		                       json_string_value(v));
	v = json_object_get(e, "text");
	out->text = skitx_strdup(v ? json_string_value(v) : "");
	if (!out->text)
		return skit__error_oom(err);
	calls = json_object_get(e, "tool_calls");
	json_array_foreach(calls, i, c)
	{
		v = json_object_get(c, "id");
		if (json_is_string(v))
			snprintf(idbuf, sizeof(idbuf), "%.30s",
			         json_string_value(v));
		else
			snprintf(idbuf, sizeof(idbuf), "call_%zu_%zu", n,
			         i + 1);
		args = json_object_get(c, "arguments");
		if (json_is_string(args))
			argtext = skitx_strdup(json_string_value(args));
		else if (args)
			argtext = json_dumps(args, JSON_COMPACT);
		else
			argtext = skitx_strdup("{}");
		if (!argtext)
			return skit__error_oom(err);
		rc = skit__response_add_call(
		        out, idbuf,
		        json_string_value(json_object_get(c, "name")), argtext,
		        err);
		if (json_is_string(args) || !args)
			skitx_free(argtext);
		else
			free(argtext); /* jansson's allocation */
		if (rc)
			return rc;
	}
	v = json_object_get(e, "stop_reason");
	if (json_is_string(v)) {
		out->stop_reason = skitx_strdup(json_string_value(v));
		if (!out->stop_reason)
			return skit__error_oom(err);
	}
	usage = json_object_get(e, "usage");
	v = json_object_get(usage, "input_tokens");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		out->usage.input_tokens = (uint64_t)json_integer_value(v);
	v = json_object_get(usage, "output_tokens");
	if (json_is_integer(v) && json_integer_value(v) > 0)
		out->usage.output_tokens = (uint64_t)json_integer_value(v);
	if (on_delta && *out->text)
		return stream_text(out->text, on_delta, payload, err);
	return 0;
}

static void replay_release(skit_model *m)
{
	struct replay *r = m->state;

	if (!r)
		return;
	json_decref(r->responses);
	skitx_free(r);
	m->state = NULL;
}

const struct skit__provider skit__provider_replay = {
	"replay",
	replay_init,
	replay_complete,
	replay_release,
};
