/* SPDX-License-Identifier: MIT */
/*
 * fuzz_edit.c - the exact-string replacement of the edit_file and
 * multi_edit tools (skit__edit_apply(), what skit__tool_edit() runs for
 * each edit), checked against a naive reference written here.
 *
 * Input: one byte of flags (bit 0: replace_all; bits 1-2 choose the cap:
 * write_file's 4 MiB, the text's length, a small number (bits 3-7), or
 * the text's length plus that number), then old_string, a NUL byte,
 * new_string, a NUL byte, and the file's text (any bytes, NUL included).
 * Each part is copied to a buffer of its exact size, so a read past one
 * is an ASan error.
 *
 * Properties: an empty old_string is refused; without replace_all the
 * edit applies only when old_string occurs exactly once (overlapping
 * occurrences counted), and the result is the text before it, new_string
 * and the text after it; with replace_all every occurrence (leftmost
 * first, not overlapping) is replaced, as the reference does; the count
 * and the first occurrence's line are right; a result over the cap is
 * refused. A refusal (a miss, an ambiguous match, an empty old_string,
 * too big a result) returns 1 and leaves `res` empty, with a message
 * appended to `msg`: not empty, at most MSG_MAX bytes, valid UTF-8 with
 * no control byte but tab and newline (the file's lines it quotes went
 * through skit__put_clean()), and for an ambiguous match naming the
 * right number of occurrences.
 */
#include "common.h"

#include "lib/tools/tools_int.h"
#include "util/buf.h"
#include "util/utf8.h"
#include "fuzz.h"

#define INPUT_MAX (16u * 1024u)        /* the reference is O(n * m) */
#define WRITE_CAP (4u * 1024u * 1024u) /* write_file's cap (tools_fs.c) */
/* The longest explanation: three closest lines of 200 bytes, each byte
 * possibly shown as U+FFFD (3 bytes), and their framing. */
#define MSG_MAX 4096
#define MARK    "msg before\n"

/* Copy `len` bytes to a buffer of exactly that size (never NULL). */
static char *exact(const uint8_t *p, size_t len)
{
	char *s = malloc(len ? len : 1);

	if (!s)
		abort();
	if (len)
		memcpy(s, p, len);
	return s;
}

/* The next part of the input, up to a NUL byte or the end. */
static const uint8_t *part(const uint8_t **p, const uint8_t *end, size_t *len)
{
	const uint8_t *start = *p,
	              *nul = memchr(start, 0, (size_t)(end - start));

	*len = (size_t)((nul ? nul : end) - start);
	*p = nul ? nul + 1 : end;
	return start;
}

static bool at(const char *text, size_t len, size_t i, const char *s, size_t n)
{
	return i + n <= len && !memcmp(text + i, s, n);
}

/* Where old_string occurs in `text`, every start counted (overlapping
 * too); the first start in *first (len when none). */
static size_t count_all(const char *text, size_t len, const char *s, size_t n,
                        size_t *first)
{
	size_t k = 0;

	*first = len;
	for (size_t i = 0; i + n <= len; i++)
		if (at(text, len, i, s, n)) {
			if (!k)
				*first = i;
			k++;
		}
	return k;
}

/* Occurrences found left to right, each after the one before. */
static size_t count_apart(const char *text, size_t len, const char *s, size_t n)
{
	size_t k = 0, i = 0;

	while (i + n <= len) {
		if (at(text, len, i, s, n)) {
			k++;
			i += n;
		} else
			i++;
	}
	return k;
}

/* The text with every occurrence (left to right) replaced. */
static char *replace_apart(const char *text, size_t len,
                           const struct skit__edit *ed, size_t *out_len)
{
	size_t k = count_apart(text, len, ed->old_s, ed->old_len);
	size_t n = len - k * ed->old_len + k * ed->new_len, o = 0, i = 0;
	char *r = malloc(n ? n : 1);

	if (!r)
		abort();
	while (i < len) {
		if (at(text, len, i, ed->old_s, ed->old_len)) {
			memcpy(r + o, ed->new_s, ed->new_len);
			o += ed->new_len;
			i += ed->old_len;
		} else
			r[o++] = text[i++];
	}
	FUZZ_CHECK(o == n, "reference: %zu bytes, %zu expected", o, n);
	*out_len = n;
	return r;
}

static size_t line_of(const char *text, size_t off)
{
	size_t line = 1;

	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

static void check_msg(const struct skitx_buf *msg)
{
	const char *m = skitx_buf_cstr(msg) + strlen(MARK);
	size_t n = skitx_buf_len(msg) - strlen(MARK), bad;

	FUZZ_CHECK(skitx_buf_len(msg) >= strlen(MARK) &&
	                   !memcmp(skitx_buf_cstr(msg), MARK, strlen(MARK)),
	           "the message was not appended");
	FUZZ_CHECK(n > 0, "a refusal without a message");
	FUZZ_CHECK(n <= MSG_MAX, "a message of %zu bytes", n);
	FUZZ_CHECK(!skitx_utf8_check(m, n, &bad), "invalid UTF-8 at %zu: %s",
	           bad, m);
	for (size_t i = 0; i < n; i++)
		FUZZ_CHECK((unsigned char)m[i] >= 0x20 || m[i] == '\n' ||
		                   m[i] == '\t',
		           "control byte 0x%02x at %zu", (unsigned char)m[i],
		           i);
}

static void run(const struct skit__edit *ed, const char *text, size_t len,
                size_t cap)
{
	struct skitx_buf res = SKITX_BUF_INIT, msg = SKITX_BUF_INIT;
	size_t count = 0, first_line = 0, occ, first, want_count = 0,
	       ref_len = 0;
	char *ref = NULL, head[64];
	int rc;

	if (skitx_buf_puts(&res, "res before") || skitx_buf_puts(&msg, MARK))
		abort();
	rc = skit__edit_apply(ed, text, len, cap, &res, &msg, &count,
	                      &first_line);
	if (rc == SKIT_ENOMEM)
		goto out;
	FUZZ_CHECK(rc == 0 || rc == 1, "code %d", rc);
	if (rc == 1) {
		check_msg(&msg);
		FUZZ_CHECK(!skitx_buf_len(&res), "a refusal left %zu bytes",
		           skitx_buf_len(&res));
	}
	if (!ed->old_len) {
		FUZZ_CHECK(rc == 1, "an empty old_string was applied");
		goto out;
	}
	occ = count_all(text, len, ed->old_s, ed->old_len, &first);
	if (!occ) {
		FUZZ_CHECK(rc == 1, "applied, but old_string is not there");
		goto out;
	}
	if (!ed->all && occ > 1) {
		FUZZ_CHECK(rc == 1, "applied, but old_string occurs %zu times",
		           occ);
		snprintf(head, sizeof(head), "old_string occurs %zu times",
		         occ);
		FUZZ_CHECK(strstr(skitx_buf_cstr(&msg), head), "%s, not \"%s\"",
		           skitx_buf_cstr(&msg), head);
		goto out;
	}
	if (ed->all) {
		ref = replace_apart(text, len, ed, &ref_len);
		want_count = count_apart(text, len, ed->old_s, ed->old_len);
	} else {
		ref_len = len - ed->old_len + ed->new_len;
		ref = malloc(ref_len ? ref_len : 1);
		if (!ref)
			abort();
		memcpy(ref, text, first);
		memcpy(ref + first, ed->new_s, ed->new_len);
		memcpy(ref + first + ed->new_len, text + first + ed->old_len,
		       len - first - ed->old_len);
		want_count = 1;
	}
	if (ref_len > cap) {
		FUZZ_CHECK(rc == 1, "a result of %zu bytes over a cap of %zu",
		           ref_len, cap);
		goto out;
	}
	FUZZ_CHECK(rc == 0, "refused: %s", skitx_buf_cstr(&msg));
	FUZZ_CHECK(skitx_buf_len(&msg) == strlen(MARK),
	           "a message on success: %s", skitx_buf_cstr(&msg));
	FUZZ_CHECK(skitx_buf_len(&res) == ref_len &&
	                   !memcmp(skitx_buf_cstr(&res), ref, ref_len),
	           "%zu bytes, the reference %zu", skitx_buf_len(&res),
	           ref_len);
	FUZZ_CHECK(count == want_count, "%zu replacements, %zu expected", count,
	           want_count);
	FUZZ_CHECK(first_line == line_of(text, first),
	           "first at line %zu, not %zu", first_line,
	           line_of(text, first));
out:
	free(ref);
	skitx_buf_release(&res);
	skitx_buf_release(&msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *p = data + 1, *end = data + size, *o, *n, *t;
	struct skit__edit ed;
	size_t ol, nl, tl, cap, small;
	char *text;

	if (!size || size > INPUT_MAX)
		return 0;
	o = part(&p, end, &ol);
	n = part(&p, end, &nl);
	t = p;
	tl = (size_t)(end - p);
	ed.old_s = exact(o, ol);
	ed.old_len = ol;
	ed.new_s = exact(n, nl);
	ed.new_len = nl;
	ed.all = data[0] & 1;
	text = exact(t, tl);
	small = data[0] >> 3;
	switch ((data[0] >> 1) & 3) {
	case 0:
		cap = WRITE_CAP;
		break;
	case 1:
		cap = tl;
		break;
	case 2:
		cap = small;
		break;
	default:
		cap = tl + small;
		break;
	}
	run(&ed, text, tl, cap);
	free((char *)ed.old_s);
	free((char *)ed.new_s);
	free(text);
	return 0;
}
