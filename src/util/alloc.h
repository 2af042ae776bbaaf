/* SPDX-License-Identifier: MIT */
/*
 * alloc.h - the only way skit allocates memory.
 *
 * Every allocation goes through these wrappers so that an embedder can
 * replace the allocator (skit_set_allocator) and so that the test suite can
 * fail the Nth allocation: with SKIT_FAIL_ALLOC=N in the environment, the
 * Nth call (counting from 1) and every later one returns NULL.
 */
#ifndef SKITX_ALLOC_H
#define SKITX_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

void *skitx_malloc(size_t size);
void *skitx_calloc(size_t count, size_t size);
void *skitx_realloc(void *ptr, size_t size);
void skitx_free(void *ptr);
/* A copy of `s` (NUL-terminated); NULL on out-of-memory. */
char *skitx_strdup(const char *s);
/* A NUL-terminated copy of `len` bytes at `s`. */
char *skitx_strndup(const char *s, size_t len);
/* A NULL-ended copy of the first `n` strings of `v`, each copied; NULL
 * on out-of-memory. skitx_strv_dup(): of every string of the NULL-ended
 * `v` (NULL: none). Free with skitx_strv_free(). */
char **skitx_strv_ndup(const char *const *v, size_t n);
char **skitx_strv_dup(const char *const *v);
/* Free a NULL-ended vector of strings and the strings (NULL: nothing). */
void skitx_strv_free(char **v);
/* `*out = a * b` unless it overflows; returns true on overflow. */
int skitx_mul_overflow(size_t a, size_t b, size_t *out);
int skitx_add_overflow(size_t a, size_t b, size_t *out);
/*
 * Tests: fail the `n`th allocation from now on and every later one (0 turns
 * failures off). Overrides SKIT_FAIL_ALLOC.
 */
void skitx_alloc_fail_at(long n);
/*
 * True while the C library's allocator is in use (no skit_set_allocator(),
 * or a reset to NULL). Code that allocates on several threads at once
 * checks it: an embedder's hooks are not promised to be thread-safe.
 */
bool skitx_alloc_is_default(void);

#endif
