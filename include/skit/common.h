/* SPDX-License-Identifier: MIT */
#ifndef SKIT_COMMON_H
#define SKIT_COMMON_H

/**
 * @file skit/common.h
 * @brief Definitions every public header shares: export macros, the
 *        caller-owned error record, the allocator hook and skit_free().
 */

#include <stddef.h>
#include <stdbool.h>

#ifdef __cplusplus
# define SKIT_BEGIN_DECL extern "C" {
# define SKIT_END_DECL   }
#else
# define SKIT_BEGIN_DECL
# define SKIT_END_DECL
#endif

#if defined(SKIT_BUILDING_LIBRARY) && defined(__GNUC__)
# define SKIT_EXTERN __attribute__((visibility("default")))
#else
# define SKIT_EXTERN
#endif

#define SKIT_VERSION_MAJOR 0
#define SKIT_VERSION_MINOR 1
#define SKIT_VERSION_PATCH 0
#define SKIT_VERSION       "0.1.0"

SKIT_BEGIN_DECL

/**
 * Details of a failed call. Caller-owned (usually on the stack), passed last
 * to every fallible call; it may be NULL. Untouched on success.
 * `code` is a negative skit_status; `line`/`column` are 1-based positions in
 * the input the call was reading, 0 when not applicable.
 */
typedef struct {
	int code;
	unsigned int line, column;
	char message[256];
} skit_error;

/** Allocator hooks for skit_set_allocator(). All four must be set. */
typedef struct {
	void *(*malloc_fn)(size_t size);
	void *(*calloc_fn)(size_t count, size_t size);
	void *(*realloc_fn)(void *ptr, size_t size);
	void (*free_fn)(void *ptr);
} skit_allocator;

/**
 * Replace the allocator. Call before any other skit function, or not at
 * all; NULL restores the C library's. Not thread-safe.
 * @return 0, or SKIT_EINVALID when a hook is missing.
 */
SKIT_EXTERN int skit_set_allocator(const skit_allocator *alloc);

/** Free a string or buffer the library returned through a `char **out`. */
SKIT_EXTERN void skit_free(void *ptr);

/** The library version as "MAJOR.MINOR.PATCH". Static storage. */
SKIT_EXTERN const char *skit_version(void);

SKIT_END_DECL

#endif /* SKIT_COMMON_H */
