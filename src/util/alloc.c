/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - allocator wrappers, the replaceable allocator and the
 * SKIT_FAIL_ALLOC out-of-memory torture switch.
 */
#include "common.h"

static skit_allocator allocator = { malloc, calloc, realloc, free };

/*
 * The torture counter is read once from the environment. It is the one
 * piece of process state skit keeps outside skit_set_allocator(), and it
 * only exists for tests.
 */
static long fail_at = -1;
static long alloc_count;

static bool should_fail(void)
{
	if (fail_at < 0) {
		const char *v = getenv("SKIT_FAIL_ALLOC");
		char *end;

		fail_at = 0;
		if (v && *v) {
			long n = strtol(v, &end, 10);
			if (!*end && n > 0)
				fail_at = n;
		}
	}
	if (!fail_at)
		return false;
	return ++alloc_count >= fail_at;
}

void skitx_alloc_fail_at(long n)
{
	fail_at = n > 0 ? n : 0;
	alloc_count = 0;
}

int skit_set_allocator(const skit_allocator *alloc)
{
	static const skit_allocator libc = { malloc, calloc, realloc, free };

	if (!alloc) {
		allocator = libc;
		return 0;
	}
	if (!alloc->malloc_fn || !alloc->calloc_fn || !alloc->realloc_fn ||
	    !alloc->free_fn)
		return SKIT_EINVALID;
	allocator = *alloc;
	return 0;
}

void *skitx_malloc(size_t size)
{
	if (should_fail())
		return NULL;
	return allocator.malloc_fn(size ? size : 1);
}

void *skitx_calloc(size_t count, size_t size)
{
	if (should_fail())
		return NULL;
	if (!count || !size)
		count = size = 1;
	return allocator.calloc_fn(count, size);
}

void *skitx_realloc(void *ptr, size_t size)
{
	if (should_fail())
		return NULL;
	return allocator.realloc_fn(ptr, size ? size : 1);
}

void skitx_free(void *ptr)
{
	if (ptr)
		allocator.free_fn(ptr);
}

void skit_free(void *ptr)
{
	skitx_free(ptr);
}

char *skitx_strndup(const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = skitx_malloc(len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *skitx_strdup(const char *s)
{
	return skitx_strndup(s, strlen(s));
}

int skitx_mul_overflow(size_t a, size_t b, size_t *out)
{
	if (a && b > SIZE_MAX / a)
		return 1;
	*out = a * b;
	return 0;
}

int skitx_add_overflow(size_t a, size_t b, size_t *out)
{
	if (b > SIZE_MAX - a)
		return 1;
	*out = a + b;
	return 0;
}
