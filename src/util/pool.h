/* SPDX-License-Identifier: MIT */
/*
 * pool.h - a scoped arena: many small allocations, one free.
 *
 * A parsed skill lives in one pool. Memory is never returned piecemeal;
 * skitx_pool_release() frees all of it. Built with SKIT_DEBUG_POOL, every
 * allocation is a separate malloc so that ASan sees each block.
 */
#ifndef SKITX_POOL_H
#define SKITX_POOL_H

#include <stddef.h>

struct skitx_pool_block;

struct skitx_pool {
	struct skitx_pool_block *head;
	size_t block_size;
};

/* `block_size` 0 picks a default (1 KiB, grown as needed). */
void skitx_pool_init(struct skitx_pool *pool, size_t block_size);
void *skitx_pool_alloc(struct skitx_pool *pool, size_t size);
char *skitx_pool_strndup(struct skitx_pool *pool, const char *s, size_t len);
char *skitx_pool_strdup(struct skitx_pool *pool, const char *s);
/* printf into the pool; NULL on out-of-memory. */
char *skitx_pool_printf(struct skitx_pool *pool, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
void skitx_pool_release(struct skitx_pool *pool);

#endif
