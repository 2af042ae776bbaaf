/* SPDX-License-Identifier: MIT */
/*
 * bench_sse.c - streaming throughput: a synthetic OpenAI Chat Completions
 * stream (~64 MB of small "data:" events with content deltas, like a
 * real one) fed in 16 KiB chunks.
 *
 *	bench_sse [MEGABYTES]
 *
 * Two figures: the SSE parser alone (events counted), and the whole
 * openai provider path, through skit_model_complete() with a fake
 * transport (the skit_transport seam): SSE parsing, JSON decoding of
 * each chunk, delta assembly and the delta callback. Prints MB/s (MB =
 * 10^6 bytes) for each, best of 3 runs.
 */
#include "common.h"

#include <time.h>

#include "skit/model.h"
#include "lib/model/sse.h"
#include "util/buf.h"

#define CHUNK (16 * 1024)

static struct skitx_buf stream;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const words[] = {
	"Hello", " world",           ",",     " the",  " quick", " brown",
	" fox",  " jumps",           " over", " lazy", " dogs",  ".",
	"\\n",   " \\u00e9t\\u00e9", " 42",   " and"
};

static void make_stream(size_t target)
{
	size_t i = 0;

	skitx_buf_init(&stream, 0);
	skitx_buf_puts(&stream, "data: {\"id\":\"chatcmpl-bench\",\"object\":"
	                        "\"chat.completion.chunk\",\"created\":"
	                        "1700000000,\"model\":\"gpt-4o-mini\","
	                        "\"choices\":[{\"index\":0,\"delta\":{"
	                        "\"role\":\"assistant\",\"content\":\"\"},"
	                        "\"logprobs\":null,\"finish_reason\":null}]}"
	                        "\n\n");
	while (skitx_buf_len(&stream) < target) {
		skitx_buf_printf(
		        &stream,
		        "data: {\"id\":\"chatcmpl-bench\",\"object\":"
		        "\"chat.completion.chunk\",\"created\":1700000000,"
		        "\"model\":\"gpt-4o-mini\",\"system_fingerprint\":"
		        "\"fp_0123456789\",\"choices\":[{\"index\":0,"
		        "\"delta\":{\"content\":\"%s\"},\"logprobs\":null,"
		        "\"finish_reason\":null}]}\n\n",
		        words[i++ % SKIT_ARRAY_SIZE(words)]);
	}
	skitx_buf_puts(&stream,
	               "data: {\"id\":\"chatcmpl-bench\",\"choices\":[{"
	               "\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
	               "\n\ndata: {\"id\":\"chatcmpl-bench\",\"choices\":[],"
	               "\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":"
	               "99}}\n\ndata: [DONE]\n\n");
}

static int count_event(const struct skit__sse_event *ev, void *payload)
{
	(void)ev;
	++*(size_t *)payload;
	return 0;
}

static double run_sse(size_t *events)
{
	const char *p = skitx_buf_cstr(&stream);
	size_t len = skitx_buf_len(&stream), n;
	struct skit__sse sse;
	double t0 = now();

	*events = 0;
	skit__sse_init(&sse, count_event, events, 0);
	for (size_t at = 0; at < len; at += n) {
		n = len - at < CHUNK ? len - at : CHUNK;
		if (skit__sse_feed(&sse, p + at, n))
			abort();
	}
	skit__sse_finish(&sse);
	skit__sse_release(&sse);
	return now() - t0;
}

/* A transport that answers every request with the synthetic stream. */
static int fake_perform(skit_transport *self, const skit_http_request *req,
                        const skit_http_sink *sink, skit_error *err)
{
	static const char ct[] = "content-type";
	const char *p = skitx_buf_cstr(&stream);
	size_t len = skitx_buf_len(&stream), n;
	int rc;

	(void)self;
	(void)req;
	(void)err;
	rc = sink->on_status(200, sink->payload);
	if (!rc)
		rc = sink->on_header(ct, sizeof(ct) - 1, "text/event-stream",
		                     17, sink->payload);
	for (size_t at = 0; !rc && at < len; at += n) {
		n = len - at < CHUNK ? len - at : CHUNK;
		rc = sink->on_body(p + at, n, sink->payload);
	}
	return rc;
}

static void fake_free(skit_transport *self)
{
	(void)self;
}

static int on_delta(const char *text, size_t len, void *payload)
{
	*(size_t *)payload += len;
	return 0;
}

static double run_model(size_t *text_len)
{
	static skit_transport fake = { fake_perform, fake_free };
	static const skit_message msg = { SKIT_ROLE_USER, "hi", NULL, 0,
		                          NULL,           NULL, false };
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	skit_model_request req = { 0 };
	skit_model_response resp;
	skit_error err = { 0 };
	skit_model *m;
	double t0;

	o.spec = "openai:bench";
	o.base_url = "http://127.0.0.1:1/v1";
	o.transport = &fake;
	req.messages = &msg;
	req.message_count = 1;
	if (skit_model_new(&m, &o, &err)) {
		fprintf(stderr, "bench_sse: %s\n", err.message);
		exit(1);
	}
	*text_len = 0;
	t0 = now();
	if (skit_model_complete(m, &resp, &req, on_delta, text_len, &err)) {
		fprintf(stderr, "bench_sse: %s\n", err.message);
		exit(1);
	}
	t0 = now() - t0;
	if (strlen(resp.text) != *text_len || resp.usage.output_tokens != 99)
		abort();
	skit_model_response_release(&resp);
	skit_model_free(m);
	return t0;
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 64, events = 0,
	       text = 0;
	double best_sse = 1e9, best_model = 1e9, t, bytes;

	make_stream(mb * 1000 * 1000);
	bytes = (double)skitx_buf_len(&stream);
	for (int i = 0; i < 3; i++) {
		t = run_sse(&events);
		best_sse = t < best_sse ? t : best_sse;
		t = run_model(&text);
		best_model = t < best_model ? t : best_model;
	}
	printf("stream_bytes=%.0f events=%zu text_bytes=%zu chunk=%d\n", bytes,
	       events, text, CHUNK);
	printf("sse_only_MBps=%.0f\n", bytes / 1e6 / best_sse);
	printf("openai_stream_MBps=%.0f\n", bytes / 1e6 / best_model);
	skitx_buf_release(&stream);
	return 0;
}
