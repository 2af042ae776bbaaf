/* SPDX-License-Identifier: MIT */
/* vec.c - growable pointer arrays. */
#include "common.h"

#include "util/vec.h"

int skitx_vec_push(struct skitx_vec *v, void *item)
{
	if (v->len == v->alloc) {
		size_t alloc = v->alloc ? v->alloc * 2 : 16, bytes;
		void **p;

		if (skitx_mul_overflow(alloc, sizeof(*p), &bytes))
			return SKIT_ENOMEM;
		p = skitx_realloc(v->items, bytes);
		if (!p)
			return SKIT_ENOMEM;
		v->items = p;
		v->alloc = alloc;
	}
	v->items[v->len++] = item;
	return 0;
}

void skitx_vec_release(struct skitx_vec *v)
{
	skitx_free(v->items);
	v->items = NULL;
	v->len = v->alloc = 0;
}
