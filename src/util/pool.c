/* SPDX-License-Identifier: MIT */
/*
 * pool.c - bump allocator over a chain of blocks.
 */
#include "common.h"

#include "util/pool.h"

struct skitx_pool_block {
	struct skitx_pool_block *next;
	size_t size, used;
	max_align_t data[];
};

#define ALIGN sizeof(max_align_t)

void skitx_pool_init(struct skitx_pool *pool, size_t block_size)
{
	pool->head = NULL;
	pool->block_size = block_size ? block_size : 1024;
}

void *skitx_pool_alloc(struct skitx_pool *pool, size_t size)
{
	struct skitx_pool_block *b = pool->head;
	size_t rounded, bsize, total;

	if (skitx_add_overflow(size, ALIGN - 1, &rounded))
		return NULL;
	rounded &= ~(ALIGN - 1);
	if (!rounded)
		rounded = ALIGN;
#ifndef SKIT_DEBUG_POOL
	if (b && b->size - b->used >= rounded) {
		void *p = (char *)b->data + b->used;
		b->used += rounded;
		return p;
	}
	bsize = rounded > pool->block_size ? rounded : pool->block_size;
	/* Blocks double up to 64 KiB so big skills need few of them. */
	if (pool->block_size < 64 * 1024)
		pool->block_size *= 2;
#else
	bsize = rounded;
#endif
	if (skitx_add_overflow(bsize, sizeof(*b), &total))
		return NULL;
	b = skitx_malloc(total);
	if (!b)
		return NULL;
	b->size = bsize;
	b->used = rounded;
	b->next = pool->head;
	pool->head = b;
	return b->data;
}

char *skitx_pool_strndup(struct skitx_pool *pool, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = skitx_pool_alloc(pool, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *skitx_pool_strdup(struct skitx_pool *pool, const char *s)
{
	return skitx_pool_strndup(pool, s, strlen(s));
}

char *skitx_pool_printf(struct skitx_pool *pool, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	p = skitx_pool_alloc(pool, (size_t)n + 1);
	if (!p)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

void skitx_pool_release(struct skitx_pool *pool)
{
	struct skitx_pool_block *b = pool->head, *next;

	for (; b; b = next) {
		next = b->next;
		skitx_free(b);
	}
	pool->head = NULL;
}
