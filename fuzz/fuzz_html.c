/* SPDX-License-Identifier: MIT */
/*
 * fuzz_html.c - the HTML to text conversion of web_fetch
 * (skit__html_to_text(), tools_web.c): a fetched page is hostile web
 * content, parsed by libxml2's HTML parser and walked into text.
 *
 * Input: one byte of flags (bits 0-1: the charset the server named:
 * none, "utf-8", "iso-8859-1" or one libxml2 does not know; bit 2: a base
 * URL or none; bits 3-4: the cap: web_fetch's 100 KiB, the next byte, the
 * next byte times 16, or none at all), one byte for the cap, then the
 * page.
 *
 * Properties: the call returns 0 or SKIT_ENOMEM; the text is appended
 * after what `out` held (a marker ending in blank lines, which the trim
 * of trailing line ends must not touch); it is at most `cap` bytes, with
 * no NUL byte and no line end at its end; with a cap it is a prefix of
 * the text without one, and the same text when *dropped is 0; the title,
 * when there is one, is one line of words apart by single blanks, with
 * no blank at either end, at most 1 KiB, the same with any cap; two calls
 * give the same text, count and title.
 *
 * Text and title are valid UTF-8 when the server named ISO-8859-1: libxml2
 * then converts every byte, the page's own charset aside, and the cut
 * falls on a character boundary. Otherwise they need not be: libxml2 2.9
 * passes bytes that are not UTF-8 through when told, by the server or by
 * the page's <meta charset="utf-8">, that the page is UTF-8. tools_web.h
 * does not promise UTF-8, and web_fetch's frame() cleans the text and
 * the title (skit__put_clean()) for the model.
 */
#include "common.h"

#include "lib/tools/tools_web.h"
#include "util/buf.h"
#include "util/utf8.h"
#include "fuzz.h"

#define INPUT_MAX (64u * 1024u)
#define TEXT_MAX  (100u * 1024u) /* web_fetch's cap (tools_web.c) */
#define MARK      "before\n\n"
#define BASE      "https://example.com/docs/page.html?q=1"
#define TITLE_MAX 1024 /* bytes of a title kept (find_title()) */

struct result {
	struct skitx_buf out;
	size_t dropped;
	char *title;
	int rc;
};

static void convert(struct result *r, const char *html, size_t len,
                    const char *base, const char *encoding, size_t cap)
{
	skitx_buf_init(&r->out, 0);
	if (skitx_buf_puts(&r->out, MARK))
		abort();
	r->dropped = 12345;
	r->title = (char *)"not set";
	r->rc = skit__html_to_text(&r->out, html, len, base, encoding, cap,
	                           &r->dropped, &r->title);
}

static void result_release(struct result *r)
{
	skitx_buf_release(&r->out);
	skitx_free(r->title);
}

/* The text written by the call, after the marker. */
static const char *written(const struct result *r, size_t *len)
{
	*len = skitx_buf_len(&r->out) - strlen(MARK);
	return skitx_buf_cstr(&r->out) + strlen(MARK);
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

static void check(const struct result *r, size_t cap, bool utf8)
{
	const char *t;
	size_t n, bad;

	FUZZ_CHECK(r->rc == 0 || r->rc == SKIT_ENOMEM, "code %d", r->rc);
	FUZZ_CHECK(skitx_buf_len(&r->out) >= strlen(MARK) &&
	                   !memcmp(skitx_buf_cstr(&r->out), MARK, strlen(MARK)),
	           "what out held was changed");
	if (r->rc) {
		FUZZ_CHECK(!r->title, "a title after a failure");
		return;
	}
	t = written(r, &n);
	FUZZ_CHECK(n <= cap, "%zu bytes over a cap of %zu", n, cap);
	FUZZ_CHECK(!memchr(t, 0, n), "a NUL byte in the text");
	FUZZ_CHECK(!n || t[n - 1] != '\n', "the text ends in a line end");
	FUZZ_CHECK(!utf8 || !skitx_utf8_check(t, n, &bad),
	           "invalid UTF-8 at byte %zu of %zu", bad, n);
	if (r->title) {
		size_t tl = strlen(r->title);

		FUZZ_CHECK(tl > 0, "an empty title (NULL means none)");
		FUZZ_CHECK(!is_blank(r->title[0]) && r->title[tl - 1] != ' ' &&
		                   tl <= TITLE_MAX,
		           "a blank at an end of the title \"%s\"", r->title);
		for (size_t i = 0; i < tl; i++)
			FUZZ_CHECK(r->title[i] == ' ' ? r->title[i + 1] != ' '
			                              : !is_blank(r->title[i]),
			           "blanks not folded in the title \"%s\"",
			           r->title);
		FUZZ_CHECK(!utf8 || !skitx_utf8_check(r->title, tl, &bad),
		           "invalid UTF-8 in the title at byte %zu", bad);
	}
}

static bool same_title(const char *a, const char *b)
{
	return a ? b && !strcmp(a, b) : !b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const charsets[] = { NULL, "utf-8", "iso-8859-1",
		                                "x-no-such-charset" };
	struct result a, b, whole;
	const char *html, *base, *charset, *ta, *tw;
	size_t cap, len, na, nw;
	bool utf8;

	if (size < 2 || size > INPUT_MAX)
		return 0;
	html = (const char *)data + 2;
	len = size - 2;
	charset = charsets[data[0] & 3];
	utf8 = charset && !strcmp(charset, "iso-8859-1");
	base = data[0] & 4 ? BASE : NULL;
	switch ((data[0] >> 3) & 3) {
	case 0:
		cap = TEXT_MAX;
		break;
	case 1:
		cap = data[1];
		break;
	case 2:
		cap = (size_t)data[1] * 16;
		break;
	default:
		cap = SIZE_MAX;
		break;
	}

	convert(&a, html, len, base, charset, cap);
	check(&a, cap, utf8);
	convert(&b, html, len, base, charset, cap);
	check(&b, cap, utf8);
	convert(&whole, html, len, base, charset, SIZE_MAX);
	check(&whole, SIZE_MAX, utf8);
	if (a.rc || b.rc || whole.rc)
		goto out;

	FUZZ_CHECK(skitx_buf_len(&a.out) == skitx_buf_len(&b.out) &&
	                   !memcmp(skitx_buf_cstr(&a.out),
	                           skitx_buf_cstr(&b.out),
	                           skitx_buf_len(&a.out)),
	           "two calls, two texts");
	FUZZ_CHECK(a.dropped == b.dropped, "dropped %zu, then %zu", a.dropped,
	           b.dropped);
	FUZZ_CHECK(same_title(a.title, b.title), "two calls, two titles");

	ta = written(&a, &na);
	tw = written(&whole, &nw);
	FUZZ_CHECK(!whole.dropped, "%zu bytes dropped without a cap",
	           whole.dropped);
	FUZZ_CHECK(na <= nw && !memcmp(ta, tw, na),
	           "the text cut at %zu is not a prefix of the whole text",
	           cap);
	FUZZ_CHECK(a.dropped || na == nw,
	           "nothing dropped, but %zu bytes of %zu written", na, nw);
	FUZZ_CHECK(same_title(a.title, whole.title),
	           "the cap changed the title");
out:
	result_release(&a);
	result_release(&b);
	result_release(&whole);
	return 0;
}
