/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sse.c - the incremental Server-Sent Events parser (model
 * streaming). Property: the body fed whole and the same body fed in
 * chunks of sizes taken from the input (down to single bytes, cutting
 * CRLFs and UTF-8 anywhere) give the same events (type, data, id), in
 * the same order, and the same result.
 */
#include "common.h"

#include "lib/model/sse.h"
#include "util/buf.h"
#include "fuzz.h"

static int add(struct skitx_buf *b, const char *p, size_t n)
{
	return n ? skitx_buf_add(b, p, n) : 0;
}

static int collect(const struct skit__sse_event *ev, void *payload)
{
	struct skitx_buf *b = payload;

	/* Lengths first, so "ab"+"c" and "a"+"bc" differ. */
	if (skitx_buf_printf(b, "%zu:%zu:%zu:", ev->event_len, ev->data_len,
	                     ev->id_len) ||
	    add(b, ev->event, ev->event_len) ||
	    add(b, ev->data, ev->data_len) || add(b, ev->id, ev->id_len) ||
	    skitx_buf_puts(b, "\n"))
		return SKIT_ENOMEM;
	return 0;
}

static int parse(const char *body, size_t len, const uint8_t *sizes,
                 size_t nsizes, struct skitx_buf *out)
{
	struct skit__sse p;
	size_t at = 0, k = 0;
	int rc = 0;

	skit__sse_init(&p, collect, out, 0);
	while (!rc && at < len) {
		size_t n = nsizes ? (size_t)(sizes[k++ % nsizes] % 17) + 1
		                  : len - at;

		if (n > len - at)
			n = len - at;
		rc = skit__sse_feed(&p, body + at, n);
		at += n;
	}
	if (!rc)
		rc = skit__sse_finish(&p);
	skit__sse_release(&p);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skitx_buf whole = SKITX_BUF_INIT, chunked = SKITX_BUF_INIT;
	size_t nsizes;
	int a, b;

	if (size < 1)
		return 0;
	/* The first byte says how many of the next bytes are chunk sizes. */
	nsizes = data[0] % 8 + 1;
	if (nsizes > size - 1)
		nsizes = size - 1;
	a = parse((const char *)data + 1 + nsizes, size - 1 - nsizes, NULL, 0,
	          &whole);
	b = parse((const char *)data + 1 + nsizes, size - 1 - nsizes, data + 1,
	          nsizes, &chunked);
	if (a != SKIT_ENOMEM && b != SKIT_ENOMEM) {
		FUZZ_CHECK(a == b, "whole gives %d, chunked %d", a, b);
		FUZZ_CHECK(whole.len == chunked.len &&
		                   !memcmp(skitx_buf_cstr(&whole),
		                           skitx_buf_cstr(&chunked), whole.len),
		           "whole:\n%s\nchunked:\n%s", skitx_buf_cstr(&whole),
		           skitx_buf_cstr(&chunked));
	}
	skitx_buf_release(&whole);
	skitx_buf_release(&chunked);
	return 0;
}
