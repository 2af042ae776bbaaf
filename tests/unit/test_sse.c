/* SPDX-License-Identifier: MIT */
/*
 * test_sse.c - the Server-Sent Events parser: fields, comments, line
 * ends, BOM, caps, and the same events whatever the chunking.
 */
#include "common.h"

#include "harness.h"
#include "lib/model/sse.h"
#include "util/buf.h"

/* Events flattened as "[type|id|data]" for comparison. */
struct seen {
	struct skitx_buf out;
	int count;
	int stop_at; /* return 99 on this event (1-based); 0: never */
};

static int collect(const struct skit__sse_event *ev, void *payload)
{
	struct seen *s = payload;

	s->count++;
	skitx_buf_printf(&s->out, "[%.*s|%.*s|%.*s]", (int)ev->event_len,
	                 ev->event, (int)ev->id_len, ev->id, (int)ev->data_len,
	                 ev->data);
	return s->count == s->stop_at ? 99 : 0;
}

/* Parse `text` in pieces of `step` bytes (0: all at once). */
static int parse(const char *text, size_t step, struct seen *s, size_t max_data,
                 long *retry)
{
	struct skit__sse p;
	size_t len = strlen(text), at = 0, n;
	int rc = 0;

	skitx_buf_init(&s->out, 0);
	s->count = 0;
	skit__sse_init(&p, collect, s, max_data);
	while (!rc && at < len) {
		n = step && len - at > step ? step : len - at;
		rc = skit__sse_feed(&p, text + at, n);
		at += n;
	}
	if (!rc)
		rc = skit__sse_finish(&p);
	if (retry)
		*retry = p.retry_ms;
	skit__sse_release(&p);
	return rc;
}

static void check_all_splits(const char *text, const char *want)
{
	struct seen s = { SKITX_BUF_INIT, 0, 0 };

	for (size_t step = 0; step <= strlen(text); step++) {
		ASSERT_OK(parse(text, step, &s, 0, NULL));
		ASSERT_STR(skitx_buf_cstr(&s.out), want);
		skitx_buf_release(&s.out);
	}
}

static void test_sse__basic_fields(void)
{
	check_all_splits(
	        "data: hello\n\n"
	        "event: add\ndata: x\nid: 7\n\n"
	        ": a comment\n\n"
	        "data\n\n"
	        "data:no space\n\n"
	        "data:  two spaces\n\n",
	        "[||hello][add|7|x][|7|][|7|no space][|7| two spaces]");
}

static void test_sse__multiline_and_line_ends(void)
{
	const char *want = "[||a\nb\nc][e||d]";

	check_all_splits("data: a\ndata: b\ndata: c\n\nevent: e\ndata: d\n\n",
	                 want);
	check_all_splits("data: a\r\ndata: b\r\ndata: c\r\n\r\nevent: e\r\n"
	                 "data: d\r\n\r\n",
	                 want);
	check_all_splits("data: a\rdata: b\rdata: c\r\revent: e\rdata: d\r\r",
	                 want);
	check_all_splits("data: a\rdata: b\r\ndata: c\n\r\nevent: e\n"
	                 "data: d\r\r",
	                 want);
}

static void test_sse__bom_and_unfinished(void)
{
	check_all_splits("\xEF\xBB\xBF"
	                 "data: x\n\ndata: dropped",
	                 "[||x]");
	/* Only a BOM at the very start is skipped; a partial one is text:
	 * "\xEF" then "data" makes an unknown field name. */
	check_all_splits("\xEF"
	                 "data: x\n\ndata: y\n\n",
	                 "[||y]");
	check_all_splits("", "");
}

static void test_sse__unknown_and_retry(void)
{
	struct seen s = { SKITX_BUF_INIT, 0, 0 };
	long retry = 0;

	ASSERT_OK(
	        parse("foo: bar\nretry: 1500\ndata: z\n\n", 3, &s, 0, &retry));
	ASSERT_STR(skitx_buf_cstr(&s.out), "[||z]");
	ASSERT_EQ(retry, 1500);
	skitx_buf_release(&s.out);
	ASSERT_OK(parse("retry: 15x\n\n", 0, &s, 0, &retry));
	ASSERT_EQ(retry, -1);
	skitx_buf_release(&s.out);
}

static void test_sse__caps_and_abort(void)
{
	struct seen s = { SKITX_BUF_INIT, 0, 0 };

	/* 16 bytes allowed: 17 in one line, or over two lines. */
	ASSERT_EQ(parse("data: 0123456789abcdefg\n\n", 0, &s, 16, NULL),
	          SKIT_ETOOBIG);
	skitx_buf_release(&s.out);
	ASSERT_EQ(parse("data: 0123456789\ndata: abcdef\n\n", 5, &s, 16, NULL),
	          SKIT_ETOOBIG);
	skitx_buf_release(&s.out);
	ASSERT_OK(parse("data: 0123456789abcdef\n\n", 1, &s, 16, NULL));
	skitx_buf_release(&s.out);
	s.stop_at = 2;
	ASSERT_EQ(parse("data: 1\n\ndata: 2\n\ndata: 3\n\n", 4, &s, 0, NULL),
	          99);
	ASSERT_EQ(s.count, 2);
	skitx_buf_release(&s.out);
}

TEST_MAIN(TEST(test_sse__basic_fields) TEST(test_sse__multiline_and_line_ends)
                  TEST(test_sse__bom_and_unfinished)
                          TEST(test_sse__unknown_and_retry)
                                  TEST(test_sse__caps_and_abort))
