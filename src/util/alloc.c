/* SPDX-License-Identifier: MIT */
/*
 * alloc.c - allocator wrappers, the replaceable allocator and the
 * SKIT_FAIL_ALLOC out-of-memory torture switch.
 */
#include "common.h"

#include <stdatomic.h>

static const skit_allocator libc_allocator = { malloc, calloc, realloc, free };
static skit_allocator allocator = { malloc, calloc, realloc, free };

/*
 * The torture counter is read once from the environment. It is the one
 * piece of process state skit keeps outside skit_set_allocator(), and it
 * only exists for tests. Both numbers are atomic because a registry scan
 * loads skills on several threads: the Nth allocation of the process, on
 * whichever thread, fails, and every later one too. -1: not read yet.
 */
static atomic_long fail_at = -1;
static atomic_long alloc_count;

static bool should_fail(void)
{
	long at = atomic_load_explicit(&fail_at, memory_order_relaxed);

	if (at < 0) {
		const char *v = getenv("SKIT_FAIL_ALLOC");
		long expected = -1;
		char *end;

		at = 0;
		if (v && *v) {
			long n = strtol(v, &end, 10);
			if (!*end && n > 0)
				at = n;
		}
		/* a racing thread read the same environment */
		if (!atomic_compare_exchange_strong(&fail_at, &expected, at))
			at = expected;
	}
	if (!at)
		return false;
	return atomic_fetch_add(&alloc_count, 1) + 1 >= at;
}

void skitx_alloc_fail_at(long n)
{
	atomic_store(&alloc_count, 0);
	atomic_store(&fail_at, n > 0 ? n : 0);
}

bool skitx_alloc_is_default(void)
{
	return allocator.malloc_fn == libc_allocator.malloc_fn &&
	       allocator.calloc_fn == libc_allocator.calloc_fn &&
	       allocator.realloc_fn == libc_allocator.realloc_fn &&
	       allocator.free_fn == libc_allocator.free_fn;
}

int skit_set_allocator(const skit_allocator *alloc)
{
	if (!alloc) {
		allocator = libc_allocator;
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

char **skitx_strv_ndup(const char *const *v, size_t n)
{
	char **d;

	if (n == SIZE_MAX)
		return NULL;
	d = skitx_calloc(n + 1, sizeof(*d));
	for (size_t i = 0; d && i < n; i++) {
		d[i] = skitx_strdup(v[i]);
		if (!d[i]) {
			skitx_strv_free(d);
			return NULL;
		}
	}
	return d;
}

char **skitx_strv_dup(const char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return skitx_strv_ndup(v, n);
}

void skitx_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		skitx_free(v[i]);
	skitx_free(v);
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
