/* SPDX-License-Identifier: MIT */
/*
 * buf.c - growable, capped byte strings. See buf.h for the invariants.
 */
#include "common.h"

#include "util/buf.h"

char skitx_buf_empty[1];

void skitx_buf_init(struct skitx_buf *b, size_t cap)
{
	b->ptr = skitx_buf_empty;
	b->len = 0;
	b->alloc = 0;
	b->cap = cap;
}

int skitx_buf_grow(struct skitx_buf *b, size_t extra)
{
	size_t want, alloc;
	char *p;

	if (skitx_add_overflow(b->len, extra, &want) || want == SIZE_MAX)
		return SKIT_ETOOBIG;
	if (b->cap && want > b->cap)
		return SKIT_ETOOBIG;
	if (want + 1 <= b->alloc)
		return 0;
	alloc = b->alloc ? b->alloc : 64;
	while (alloc < want + 1) {
		if (alloc > SIZE_MAX / 2) {
			alloc = want + 1;
			break;
		}
		alloc *= 2;
	}
	p = skitx_realloc(b->alloc ? b->ptr : NULL, alloc);
	if (!p)
		return SKIT_ENOMEM;
	if (!b->alloc)
		p[0] = '\0';
	b->ptr = p;
	b->alloc = alloc;
	return 0;
}

int skitx_buf_add(struct skitx_buf *b, const void *data, size_t len)
{
	int error;

	if (!len)
		return 0;
	error = skitx_buf_grow(b, len);
	if (error < 0)
		return error;
	memmove(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int skitx_buf_puts(struct skitx_buf *b, const char *s)
{
	return skitx_buf_add(b, s, strlen(s));
}

int skitx_buf_putc(struct skitx_buf *b, char c)
{
	return skitx_buf_add(b, &c, 1);
}

int skitx_buf_vprintf(struct skitx_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, error;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return SKIT_EINVALID;
	error = skitx_buf_grow(b, (size_t)n);
	if (error < 0)
		return error;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int skitx_buf_printf(struct skitx_buf *b, const char *fmt, ...)
{
	va_list ap;
	int error;

	va_start(ap, fmt);
	error = skitx_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return error;
}

void skitx_buf_truncate(struct skitx_buf *b, size_t len)
{
	assert(len <= b->len);
	b->len = len;
	if (b->alloc)
		b->ptr[len] = '\0';
}

void skitx_buf_clear(struct skitx_buf *b)
{
	skitx_buf_truncate(b, 0);
}

void skitx_buf_release(struct skitx_buf *b)
{
	if (b->alloc)
		skitx_free(b->ptr);
	skitx_buf_init(b, b->cap);
}

char *skitx_buf_detach(struct skitx_buf *b, size_t *len)
{
	char *p;

	if (!b->alloc && skitx_buf_grow(b, 0) < 0)
		return NULL;
	p = b->ptr;
	if (len)
		*len = b->len;
	skitx_buf_init(b, b->cap);
	return p;
}
