/* SPDX-License-Identifier: MIT */
/*
 * hash.c - open addressing with linear probing; see hash.h.
 *
 * Linear probing keeps a probe sequence in one or two cache lines, and the
 * 50% load bound keeps the sequences short. The tables never delete, so no
 * tombstones are needed.
 */
#include "common.h"

#include "util/hash.h"

#define MIN_CAP 16

uint64_t skitx_hash_bytes(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

/* A 64-bit mix (splitmix64's finaliser) for the integer keys. */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static size_t strmap_find(const struct skitx_strmap *m, const char *key,
                          size_t len, uint64_t hash)
{
	size_t mask = m->cap - 1, i = (size_t)hash & mask;

	for (;;) {
		const struct skitx_strmap_slot *s = &m->slots[i];

		if (!s->key)
			return i;
		if (s->hash == hash && s->len == len &&
		    !memcmp(s->key, key, len))
			return i;
		i = (i + 1) & mask;
	}
}

static int strmap_grow(struct skitx_strmap *m)
{
	struct skitx_strmap old = *m;
	size_t cap = old.cap ? old.cap * 2 : MIN_CAP;

	if (cap > SIZE_MAX / 2 / sizeof(*m->slots))
		return SKIT_ENOMEM;
	m->slots = skitx_calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return SKIT_ENOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		const struct skitx_strmap_slot *s = &old.slots[i];

		if (s->key)
			m->slots[strmap_find(m, s->key, s->len, s->hash)] = *s;
	}
	skitx_free(old.slots);
	return 0;
}

uint32_t *skitx_strmap_get(const struct skitx_strmap *m, const char *key,
                           size_t len)
{
	size_t i;

	if (!m->cap || len > UINT32_MAX)
		return NULL;
	i = strmap_find(m, key, len, skitx_hash_bytes(key, len));
	return m->slots[i].key ? &m->slots[i].value : NULL;
}

int skitx_strmap_put(struct skitx_strmap *m, const char *key, size_t len,
                     uint32_t value, uint32_t *found)
{
	uint64_t hash = skitx_hash_bytes(key, len);
	struct skitx_strmap_slot *s;
	int error;

	if (len > UINT32_MAX)
		return SKIT_ETOOBIG;
	if ((m->len + 1) * 2 > m->cap) {
		error = strmap_grow(m);
		if (error < 0)
			return error;
	}
	s = &m->slots[strmap_find(m, key, len, hash)];
	if (s->key) {
		if (found)
			*found = s->value;
		return 0;
	}
	s->key = key;
	s->len = (uint32_t)len;
	s->value = value;
	s->hash = hash;
	m->len++;
	return 1;
}

void skitx_strmap_release(struct skitx_strmap *m)
{
	skitx_free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}

static size_t idmap_find(const struct skitx_idmap *m, uint64_t a, uint64_t b)
{
	size_t mask = m->cap - 1;
	size_t i = (size_t)mix64(a * 0x9e3779b97f4a7c15ULL ^ b) & mask;

	for (;;) {
		const struct skitx_idmap_slot *s = &m->slots[i];

		if (!s->used || (s->a == a && s->b == b))
			return i;
		i = (i + 1) & mask;
	}
}

static int idmap_grow(struct skitx_idmap *m)
{
	struct skitx_idmap old = *m;
	size_t cap = old.cap ? old.cap * 2 : MIN_CAP;

	if (cap > SIZE_MAX / 2 / sizeof(*m->slots))
		return SKIT_ENOMEM;
	m->slots = skitx_calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return SKIT_ENOMEM;
	}
	m->cap = cap;
	for (size_t i = 0; i < old.cap; i++) {
		const struct skitx_idmap_slot *s = &old.slots[i];

		if (s->used)
			m->slots[idmap_find(m, s->a, s->b)] = *s;
	}
	skitx_free(old.slots);
	return 0;
}

int skitx_idmap_put(struct skitx_idmap *m, uint64_t a, uint64_t b,
                    uint32_t value, uint32_t *found)
{
	struct skitx_idmap_slot *s;
	int error;

	if ((m->len + 1) * 2 > m->cap) {
		error = idmap_grow(m);
		if (error < 0)
			return error;
	}
	s = &m->slots[idmap_find(m, a, b)];
	if (s->used) {
		if (found)
			*found = s->value;
		return 0;
	}
	s->a = a;
	s->b = b;
	s->value = value;
	s->used = 1;
	m->len++;
	return 1;
}

uint32_t *skitx_idmap_get(const struct skitx_idmap *m, uint64_t a, uint64_t b)
{
	size_t i;

	if (!m->cap)
		return NULL;
	i = idmap_find(m, a, b);
	return m->slots[i].used ? &m->slots[i].value : NULL;
}

void skitx_idmap_release(struct skitx_idmap *m)
{
	skitx_free(m->slots);
	m->slots = NULL;
	m->cap = m->len = 0;
}
