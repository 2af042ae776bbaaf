/* SPDX-License-Identifier: MIT */
/*
 * jscan.c - allocation-free JSON scanning. See jscan.h.
 *
 * skip_value() is the core: it steps over one value, checking the
 * structure (brackets, string escapes, literals, number characters) but
 * not every detail of the grammar; anything it does not understand makes
 * the caller fall back to jansson.
 */
#include "common.h"

#include "lib/jscan.h"
#include "util/utf8.h"

#define MAX_DEPTH 64

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* Past the closing quote of the string at `p` (which is '"'); NULL if bad. */
static const char *skip_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		const char *q = p;

		/* Runs of plain bytes go fast. */
		while (q < end && *q != '"' && *q != '\\' &&
		       (unsigned char)*q >= 0x20)
			q++;
		p = q;
		if (p >= end || (unsigned char)*p < 0x20)
			return NULL;
		if (*p == '"')
			return p + 1;
		/* A backslash: step over the escaped byte. */
		if (++p >= end)
			return NULL;
	}
	return NULL;
}

static const char *skip_value(const char *p, const char *end, int depth)
{
	p = skip_ws(p, end);
	if (p >= end || depth > MAX_DEPTH)
		return NULL;
	switch (*p) {
	case '"':
		return skip_string(p, end);
	case '{':
	case '[': {
		char close = *p == '{' ? '}' : ']';
		bool obj = *p == '{';

		p = skip_ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (obj) {
				if (p >= end || *p != '"')
					return NULL;
				p = skip_string(p, end);
				if (!p)
					return NULL;
				p = skip_ws(p, end);
				if (p >= end || *p != ':')
					return NULL;
				p++;
			}
			p = skip_value(p, end, depth + 1);
			if (!p)
				return NULL;
			p = skip_ws(p, end);
			if (p < end && *p == ',') {
				p = skip_ws(p + 1, end);
				continue;
			}
			if (p < end && *p == close)
				return p + 1;
			return NULL;
		}
	}
	case 't':
		return end - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
	case 'f':
		return end - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
	case 'n':
		return end - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
	default:
		if (*p != '-' && (*p < '0' || *p > '9'))
			return NULL;
		while (p < end && ((*p >= '0' && *p <= '9') || *p == '-' ||
		                   *p == '+' || *p == '.' || *p == 'e' ||
		                   *p == 'E'))
			p++;
		return p;
	}
}

char skit__jscan_type(struct skit__jspan v)
{
	if (!v.n)
		return 0;
	if (*v.p == '-' || (*v.p >= '0' && *v.p <= '9'))
		return '0';
	return *v.p;
}

int skit__jscan_value(const char *text, size_t len, struct skit__jspan *out)
{
	const char *end = text + len, *p = skip_ws(text, end), *q;

	q = skip_value(p, end, 0);
	if (!q || skip_ws(q, end) != end)
		return -1;
	out->p = p;
	out->n = (size_t)(q - p);
	return 0;
}

int skit__jscan_get(struct skit__jspan obj, const char *key,
                    struct skit__jspan *out)
{
	const char *p = obj.p, *end = obj.p + obj.n, *k, *v;
	size_t klen = strlen(key), raw;
	int found = 0;

	if (!obj.n || *p != '{')
		return -1;
	p = skip_ws(p + 1, end);
	if (p < end && *p == '}')
		return 0;
	for (;;) {
		if (p >= end || *p != '"')
			return -1;
		k = p + 1;
		p = skip_string(p, end);
		if (!p)
			return -1;
		raw = (size_t)(p - 1 - k);
		if (memchr(k, '\\', raw))
			return -1; /* an escaped key: let jansson read it */
		p = skip_ws(p, end);
		if (p >= end || *p != ':')
			return -1;
		v = skip_ws(p + 1, end);
		p = skip_value(v, end, 1);
		if (!p)
			return -1;
		/* The last duplicate wins, as in jansson. */
		if (raw == klen && !memcmp(k, key, klen)) {
			out->p = v;
			out->n = (size_t)(p - v);
			found = 1;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		if (p < end && *p == '}')
			return found;
		return -1;
	}
}

int skit__jscan_first(struct skit__jspan arr, struct skit__jspan *out)
{
	const char *p = arr.p, *end = arr.p + arr.n, *q;

	if (!arr.n || *p != '[')
		return -1;
	p = skip_ws(p + 1, end);
	if (p < end && *p == ']')
		return 0;
	q = skip_value(p, end, 1);
	if (!q)
		return -1;
	out->p = p;
	out->n = (size_t)(q - p);
	return 1;
}

static int hex4(const char *p, uint32_t *out)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (uint32_t)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

static int put_utf8(struct skitx_buf *b, uint32_t cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xC0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xE0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		u[0] = (char)(0xF0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		u[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return skitx_buf_add(b, u, n);
}

int skit__jscan_string(struct skit__jspan str, struct skitx_buf *b)
{
	const char *p = str.p + 1, *end = str.p + str.n - 1, *q;
	size_t start = skitx_buf_len(b);
	uint32_t cp, lo;
	int rc = 0;

	if (str.n < 2 || *str.p != '"' || *end != '"')
		return -1;
	while (!rc && p < end) {
		q = p;
		while (q < end && *q != '\\')
			q++;
		rc = skitx_buf_add(b, p, (size_t)(q - p));
		p = q;
		if (rc || p >= end)
			break;
		if (end - p < 2)
			return -1;
		switch (p[1]) {
		case '"':
		case '\\':
		case '/':
			rc = skitx_buf_putc(b, p[1]);
			break;
		case 'b':
			rc = skitx_buf_putc(b, '\b');
			break;
		case 'f':
			rc = skitx_buf_putc(b, '\f');
			break;
		case 'n':
			rc = skitx_buf_putc(b, '\n');
			break;
		case 'r':
			rc = skitx_buf_putc(b, '\r');
			break;
		case 't':
			rc = skitx_buf_putc(b, '\t');
			break;
		case 'u':
			if (end - p < 6 || hex4(p + 2, &cp))
				return -1;
			if (cp >= 0xD800 && cp <= 0xDBFF) {
				if (end - p < 12 || p[6] != '\\' ||
				    p[7] != 'u' || hex4(p + 8, &lo) ||
				    lo < 0xDC00 || lo > 0xDFFF)
					return -1;
				cp = 0x10000 + ((cp - 0xD800) << 10) +
				     (lo - 0xDC00);
				p += 6;
			} else if ((cp >= 0xDC00 && cp <= 0xDFFF) || !cp) {
				return -1; /* lone surrogate, or NUL */
			}
			rc = put_utf8(b, cp);
			p += 4;
			break;
		default:
			return -1;
		}
		p += 2;
	}
	if (rc)
		return rc;
	/* Raw control bytes were refused when the span was scanned; bad
	 * UTF-8 is jansson's to report. */
	if (skitx_utf8_check(skitx_buf_cstr(b) + start,
	                     skitx_buf_len(b) - start, NULL)) {
		skitx_buf_truncate(b, start);
		return -1;
	}
	return 0;
}
