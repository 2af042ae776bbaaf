/* SPDX-License-Identifier: MIT */
/*
 * jscan.h - a small JSON scanner that does not allocate (library-internal).
 *
 * For hot paths that need two or three members of a small JSON object,
 * such as the chunks of a model's stream, where building a jansson tree
 * per chunk would cost more than everything else. It walks the text in
 * place: find a member, skip a value, decode a string into a buffer.
 *
 * It is a fast path, not a validator: callers give up (return "not
 * handled") whenever the scanner does, and let jansson parse the text
 * and report the error. Keys with escapes are not matched.
 */
#ifndef SKIT_LIB_JSCAN_H
#define SKIT_LIB_JSCAN_H

#include "util/buf.h"

/* A span of JSON text: one value, whitespace trimmed. */
struct skit__jspan {
	const char *p;
	size_t n;
};

/* The value's type by its first byte: '{', '[', '"', 'n', 't', 'f',
 * or '0' for a number; 0 for an empty span. */
char skit__jscan_type(struct skit__jspan v);

/*
 * Look up `key` among the members of the object `obj`. Returns 1 and
 * sets `*out` when found, 0 when absent, -1 when `obj` is not a
 * well-formed object as far as the scanner can tell.
 */
int skit__jscan_get(struct skit__jspan obj, const char *key,
                    struct skit__jspan *out);

/* The first element of array `arr`: 1 found, 0 empty, -1 malformed. */
int skit__jscan_first(struct skit__jspan arr, struct skit__jspan *out);

/*
 * Append the decoded string `str` (a span starting with '"') to `b`.
 * Returns 0; -1 for a malformed string (bad escape, control byte, bad
 * UTF-8); SKIT_ENOMEM or SKIT_ETOOBIG from the buffer.
 */
int skit__jscan_string(struct skit__jspan str, struct skitx_buf *b);

/* A whole text as one value span: -1 when it is not one value. */
int skit__jscan_value(const char *text, size_t len, struct skit__jspan *out);

#endif
