/* SPDX-License-Identifier: MIT */
/*
 * vec.h - a growable array of pointers. The vector owns its array, not
 * the pointees.
 */
#ifndef SKITX_VEC_H
#define SKITX_VEC_H

#include <stddef.h>

struct skitx_vec {
	void **items;
	size_t len, alloc;
};

/* clang-format off */
#define SKITX_VEC_INIT { NULL, 0, 0 }
/* clang-format on */

int skitx_vec_push(struct skitx_vec *v, void *item);
void skitx_vec_release(struct skitx_vec *v);

#define skitx_vec_foreach(v, i, item) \
 for ((i) = 0; (i) < (v)->len && ((item) = (v)->items[(i)], 1); (i)++)

#endif
