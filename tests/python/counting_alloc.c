/* SPDX-License-Identifier: MIT */
/*
 * counting_alloc.c - an allocator for skit_set_allocator() that counts
 * the blocks alive, for test_leak.py: built as a small shared library
 * the test loads with ctypes before libskit makes its first allocation.
 */
#include <stdatomic.h>
#include <stdlib.h>

static atomic_long live, total;

static void *c_malloc(size_t n)
{
	void *p = malloc(n);

	if (p) {
		live++;
		total++;
	}
	return p;
}

static void *c_calloc(size_t count, size_t size)
{
	void *p = calloc(count, size);

	if (p) {
		live++;
		total++;
	}
	return p;
}

static void *c_realloc(void *ptr, size_t n)
{
	void *p = realloc(ptr, n);

	if (p && !ptr) {
		live++;
		total++;
	}
	return p;
}

static void c_free(void *ptr)
{
	if (ptr)
		live--;
	free(ptr);
}

/* The layout of skit_allocator (skit/common.h): four functions. */
struct counting_allocator {
	void *(*malloc_fn)(size_t);
	void *(*calloc_fn)(size_t, size_t);
	void *(*realloc_fn)(void *, size_t);
	void (*free_fn)(void *);
} counting_allocator = { c_malloc, c_calloc, c_realloc, c_free };

long counting_live(void);
long counting_total(void);

long counting_live(void)
{
	return live;
}

long counting_total(void)
{
	return total;
}
