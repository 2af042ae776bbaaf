/* SPDX-License-Identifier: MIT */
/*
 * buf.h - a growable byte string with a size cap.
 *
 * Invariants (after git's strbuf): `ptr` is never NULL and always
 * NUL-terminated, so skitx_buf_cstr() is always safe; `len` excludes the
 * NUL. A buffer fed by untrusted bytes gets a cap: growing past it fails
 * with SKIT_ETOOBIG and leaves the contents as they were. Functions return
 * 0 or a negative skit_status; they never abort.
 *
 *   struct skitx_buf b = SKITX_BUF_INIT;
 *   if (skitx_buf_puts(&b, "x") < 0) ...
 *   use(skitx_buf_cstr(&b));
 *   skitx_buf_release(&b);
 */
#ifndef SKITX_BUF_H
#define SKITX_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct skitx_buf {
	char *ptr;
	size_t len;
	size_t alloc; /* 0 while ptr is the shared empty string */
	size_t cap;   /* largest len allowed; 0 means no cap */
};

extern char skitx_buf_empty[1];

/* clang-format off */
#define SKITX_BUF_INIT { skitx_buf_empty, 0, 0, 0 }
/* clang-format on */

/* Initialise with a cap (0 for none). */
void skitx_buf_init(struct skitx_buf *b, size_t cap);
/* Make room for `extra` more bytes. */
int skitx_buf_grow(struct skitx_buf *b, size_t extra);
int skitx_buf_add(struct skitx_buf *b, const void *data, size_t len);
int skitx_buf_puts(struct skitx_buf *b, const char *s);
int skitx_buf_putc(struct skitx_buf *b, char c);
int skitx_buf_printf(struct skitx_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
int skitx_buf_vprintf(struct skitx_buf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 0)))
#endif
        ;
/* Shorten to `len` bytes (must be <= current length). */
void skitx_buf_truncate(struct skitx_buf *b, size_t len);
/* Empty the buffer, keeping its memory. */
void skitx_buf_clear(struct skitx_buf *b);
/* Free the memory; the buffer is then empty and usable again. */
void skitx_buf_release(struct skitx_buf *b);
/*
 * Hand the bytes to the caller (free with skitx_free) and reset the
 * buffer. Returns NULL on out-of-memory (an empty buffer must allocate).
 */
char *skitx_buf_detach(struct skitx_buf *b, size_t *len);

static inline const char *skitx_buf_cstr(const struct skitx_buf *b)
{
	return b->ptr;
}

static inline size_t skitx_buf_len(const struct skitx_buf *b)
{
	return b->len;
}

#endif
