/* SPDX-License-Identifier: MIT */
/*
 * utf8.c - strict UTF-8 checking and Python-compatible character classes.
 */
#include "common.h"

#include <utf8proc.h>

#include "util/utf8.h"
#include "util/buf.h"

#define HIGH_BITS UINT64_C(0x8080808080808080)
#define LOW_BITS  UINT64_C(0x0101010101010101)

/*
 * True when the 8 bytes at `s` are all ASCII and none is NUL: the common
 * case, tested a word at a time (names and descriptions are mostly
 * ASCII). memcpy keeps the load legal at any alignment.
 */
static bool word_plain_ascii(const unsigned char *s)
{
	uint64_t w;

	memcpy(&w, s, sizeof(w));
	return !(w & HIGH_BITS) && !((w - LOW_BITS) & ~w & HIGH_BITS);
}

int skitx_utf8_check(const char *str, size_t len, size_t *bad)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		size_t need;
		uint32_t cp, min;

		if (len - i >= 8 && word_plain_ascii(s + i)) {
			i += 8;
			continue;
		}
		if (c < 0x80) {
			if (!c) {
				if (bad)
					*bad = i;
				return 2;
			}
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF) {
			need = 1;
			cp = c & 0x1F;
			min = 0x80;
		} else if (c >= 0xE0 && c <= 0xEF) {
			need = 2;
			cp = c & 0x0F;
			min = 0x800;
		} else if (c >= 0xF0 && c <= 0xF4) {
			need = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			goto invalid;
		}
		if (len - i <= need)
			goto invalid;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				goto invalid;
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			goto invalid;
		i += need + 1;
	}
	return 0;
invalid:
	if (bad)
		*bad = i;
	return 1;
}

size_t skitx_utf8_decode(const char *s, size_t len, int32_t *cp)
{
	utf8proc_ssize_t n;

	/* Most skill text is ASCII: skip utf8proc for it. */
	if (len && (unsigned char)*s < 0x80) {
		*cp = (unsigned char)*s;
		return 1;
	}
	n = utf8proc_iterate((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len,
	                     cp);
	if (n <= 0) {
		*cp = 0xFFFD;
		return 1;
	}
	return (size_t)n;
}

size_t skitx_utf8_count(const char *s, size_t len)
{
	size_t n = 0;

	size_t i = 0;

	/* Count every byte that does not continue a sequence. */
	for (; i + 8 <= len; i += 8) {
		uint64_t w;

		memcpy(&w, s + i, sizeof(w));
		if (!(w & HIGH_BITS)) {
			n += 8; /* ASCII: a character a byte */
			continue;
		}
		for (size_t k = i; k < i + 8; k++)
			if (((unsigned char)s[k] & 0xC0) != 0x80)
				n++;
	}
	for (; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

size_t skitx_utf8_prefix(const char *s, size_t len, size_t n)
{
	size_t i = 0;

	while (i < len && n) {
		i++;
		while (i < len && ((unsigned char)s[i] & 0xC0) == 0x80)
			i++;
		n--;
	}
	return i;
}

bool skitx_utf8_isspace(int32_t cp)
{
	/* Python's str.isspace(): bidi class WS/B/S or category Zs. */
	if ((cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20))
		return true;
	switch (cp) {
	case 0x85:
	case 0xA0:
	case 0x1680:
	case 0x2028:
	case 0x2029:
	case 0x202F:
	case 0x205F:
	case 0x3000:
		return true;
	default:
		return cp >= 0x2000 && cp <= 0x200A;
	}
}

bool skitx_utf8_isalnum(int32_t cp)
{
	if (cp < 0x80)
		return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
		       (cp >= '0' && cp <= '9');
	switch (utf8proc_category(cp)) {
	case UTF8PROC_CATEGORY_LU:
	case UTF8PROC_CATEGORY_LL:
	case UTF8PROC_CATEGORY_LT:
	case UTF8PROC_CATEGORY_LM:
	case UTF8PROC_CATEGORY_LO:
	case UTF8PROC_CATEGORY_ND:
	case UTF8PROC_CATEGORY_NL:
	case UTF8PROC_CATEGORY_NO:
		return true;
	default:
		return false;
	}
}

bool skitx_utf8_is_hidden(int32_t cp)
{
	const utf8proc_property_t *p;

	if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
		return true;
	if (cp < 0xA0)
		return false;             /* printable ASCII: the common case */
	if (cp >= 0x200B && cp <= 0x200F) /* zero-width, LRM, RLM */
		return true;
	if (cp >= 0x202A && cp <= 0x202E) /* bidi embeddings/overrides */
		return true;
	if (cp >= 0x2060 && cp <= 0x2069) /* word joiner, bidi isolates */
		return true;
	if (cp == 0xFEFF || cp == 0x061C || cp == 0x180E)
		return true;
	if (cp >= 0xE0000 && cp <= 0xE007F) /* TAG characters */
		return true;
	if (cp > 0x10FFFF)
		return false;
	/*
	 * The rest from Unicode's own tables: format characters (soft
	 * hyphen, interlinear annotation marks...), line and paragraph
	 * separators, and default-ignorable code points (Hangul fillers,
	 * variation selectors), which render as nothing.
	 */
	p = utf8proc_get_property(cp);
	return p->category == UTF8PROC_CATEGORY_CF ||
	       p->category == UTF8PROC_CATEGORY_ZL ||
	       p->category == UTF8PROC_CATEGORY_ZP || p->ignorable;
}

size_t skitx_utf8_pystrip(const char *s, size_t len, size_t *start)
{
	size_t b = 0, e = len;
	int32_t cp;

	while (b < e) {
		size_t n = skitx_utf8_decode(s + b, e - b, &cp);
		if (!skitx_utf8_isspace(cp))
			break;
		b += n;
	}
	while (e > b) {
		size_t p = e - 1;
		while (p > b && ((unsigned char)s[p] & 0xC0) == 0x80)
			p--;
		skitx_utf8_decode(s + p, e - p, &cp);
		if (!skitx_utf8_isspace(cp))
			break;
		e = p;
	}
	*start = b;
	return e - b;
}

char *skitx_utf8_nfkc(const char *s, size_t len)
{
	utf8proc_uint8_t *nf = NULL;
	utf8proc_ssize_t n;
	char *out;

	/* Pure ASCII is already NFKC: skip utf8proc's allocations. */
	size_t i;
	for (i = 0; i < len && (unsigned char)s[i] < 0x80; i++)
		;
	if (i == len)
		return skitx_strndup(s, len);

	n = utf8proc_map((const utf8proc_uint8_t *)s, (utf8proc_ssize_t)len,
	                 &nf,
	                 UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
	if (n < 0)
		return NULL;
	/* utf8proc allocates with the C library; copy into ours. */
	out = skitx_strndup((const char *)nf, (size_t)n);
	free(nf);
	return out;
}

bool skitx_utf8_is_lower(const char *s, size_t len)
{
	size_t i = 0;
	int32_t cp;

	while (i < len) {
		i += skitx_utf8_decode(s + i, len - i, &cp);
		if (cp < 0x80 ? (cp >= 'A' && cp <= 'Z')
		              : utf8proc_tolower(cp) != cp)
			return false;
	}
	return true;
}

/*
 * Decode the code point at `s`. An invalid or truncated sequence reads as
 * U+FFFD and consumes one byte, so scanning always makes progress and a
 * hostile string cannot smuggle bytes past the checks below.
 */
static size_t next_cp(const char *s, size_t len, int32_t *cp)
{
	unsigned char c = (unsigned char)s[0];
	size_t n;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		n = 0;
	if (!n || n > len || skitx_utf8_check(s, n, NULL)) {
		*cp = 0xFFFD;
		return 1;
	}
	return skitx_utf8_decode(s, n, cp);
}

/*
 * Append `len` bytes at `s` to `b` without hidden characters (the one
 * sanitiser for text that reaches a model or a terminal). With KEEP_LINES, "\n"
 * and
 * "\t" survive (the reference keeps a description's line breaks); with
 * COLLAPSE, every run of whitespace becomes one space and the ends are
 * trimmed; with KEEP_ALL, nothing is stripped. `*cps` receives the code
 * points written.
 *
 * Kept bytes are copied in runs, not one by one: a large index spends
 * most of its time here.
 */
int skitx_utf8_sanitize(struct skitx_buf *b, const char *s, size_t len,
                        unsigned int flags, size_t *cps)
{
	size_t i = 0, run = 0, count = 0, n;
	bool started = false, space = false;
	int32_t cp;
	int error;

	while (i < len) {
		n = next_cp(s + i, len - i, &cp);
		if (cp > ' ' && cp < 0x7F) {
			/* Printable ASCII: the common case. */
		} else if ((flags & SKITX_SANITIZE_COLLAPSE) &&
		           skitx_utf8_isspace(cp)) {
			space = started;
			goto skip;
		} else if (!(flags & SKITX_SANITIZE_KEEP_ALL) &&
		           skitx_utf8_is_hidden(cp) &&
		           !((flags & SKITX_SANITIZE_KEEP_LINES) &&
		             (cp == '\n' || cp == '\t'))) {
			goto skip;
		} else if (cp == 0xFFFD) {
			/* Maybe an invalid byte: write a real U+FFFD. */
			error = skitx_buf_add(b, s + run, i - run);
			if (error >= 0 && space)
				error = skitx_buf_putc(b, ' ');
			if (error >= 0)
				error = skitx_buf_add(b, "\xEF\xBF\xBD", 3);
			if (error < 0)
				return error;
			count += 1 + space;
			space = false;
			started = true;
			i += n;
			run = i;
			continue;
		}
		if (space) {
			/* The run was flushed when the whitespace began. */
			error = skitx_buf_putc(b, ' ');
			if (error < 0)
				return error;
			count++;
			space = false;
		}
		count++;
		started = true;
		i += n;
		continue;
	skip:
		/* Flush the run before the dropped character. */
		error = skitx_buf_add(b, s + run, i - run);
		if (error < 0)
			return error;
		i += n;
		run = i;
	}
	error = skitx_buf_add(b, s + run, i - run);
	if (error < 0)
		return error;
	*cps = count;
	return 0;
}
