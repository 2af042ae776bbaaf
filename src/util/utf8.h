/* SPDX-License-Identifier: MIT */
/*
 * utf8.h - UTF-8 checks and the Unicode operations the spec's rules need,
 * on top of utf8proc (normalisation, categories, case).
 *
 * Python semantics matter here because the reference implementation is
 * Python: skitx_utf8_pystrip() strips what str.strip() strips, and
 * skitx_utf8_isalnum() answers what str.isalnum() answers per character.
 */
#ifndef SKITX_UTF8_H
#define SKITX_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Check that `len` bytes are strict UTF-8 (no overlong forms, surrogates
 * or code points past U+10FFFF) without NUL bytes. On failure, `*bad` (if
 * not NULL) is the byte offset of the first offending sequence, and the
 * return value is 1 for invalid UTF-8 and 2 for a NUL byte. 0 when valid.
 */
int skitx_utf8_check(const char *s, size_t len, size_t *bad);

/* Decode one code point at `s` (valid UTF-8 assumed); returns its length. */
size_t skitx_utf8_decode(const char *s, size_t len, int32_t *cp);

/* Number of code points in valid UTF-8. */
size_t skitx_utf8_count(const char *s, size_t len);

/* Byte length of the first `n` code points (or all of `s`). */
size_t skitx_utf8_prefix(const char *s, size_t len, size_t n);

/* str.isspace() for one code point. */
bool skitx_utf8_isspace(int32_t cp);

/* str.isalnum() for one code point (letters L*, numbers N*). */
bool skitx_utf8_isalnum(int32_t cp);

/*
 * A hidden character: one that shows nothing (or moves text around) yet
 * reaches a reader, so instructions can hide behind it. C0 and C1
 * controls and DEL, bidirectional embeddings, overrides, isolates and
 * marks, zero-width characters, Unicode TAG characters, line and
 * paragraph separators, and every other format character (category Cf)
 * or default-ignorable code point (utf8proc's tables). Callers that keep
 * "\n" and "\t" test for them first.
 */
bool skitx_utf8_is_hidden(int32_t cp);

struct skitx_buf;

/* skitx_utf8_sanitize() flags */
#define SKITX_SANITIZE_KEEP_LINES 1u /* keep "\n" and "\t" */
#define SKITX_SANITIZE_COLLAPSE   2u /* whitespace runs: one space, trimmed */
#define SKITX_SANITIZE_KEEP_ALL   4u /* drop nothing; repair invalid UTF-8 */

/*
 * The sanitiser for text that reaches a model (prompts, skill bodies):
 * append `len` bytes at `s` to `b` with every hidden character
 * (skitx_utf8_is_hidden()) dropped and invalid UTF-8 turned into U+FFFD.
 * `*cps` (not NULL) receives the code points written. 0 or SKIT_ENOMEM.
 */
int skitx_utf8_sanitize(struct skitx_buf *b, const char *s, size_t len,
                        unsigned int flags, size_t *cps);

/*
 * The range of `s` that str.strip() keeps: sets *start and returns the
 * stripped length.
 */
size_t skitx_utf8_pystrip(const char *s, size_t len, size_t *start);

/*
 * NFKC of `len` bytes of valid UTF-8, newly allocated with skitx_malloc
 * (NUL-terminated). NULL on out-of-memory.
 */
char *skitx_utf8_nfkc(const char *s, size_t len);

/* True when lowercasing (simple case mapping) changes no code point. */
bool skitx_utf8_is_lower(const char *s, size_t len);

#endif
