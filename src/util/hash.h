/* SPDX-License-Identifier: MIT */
/*
 * hash.h - two small open-addressing hash tables for the registry.
 *
 * skitx_strmap maps a byte string to a 32-bit value. It does not copy the
 * keys: each key must stay valid, unchanged, at the same address, for as
 * long as the map holds it (the registry keeps them in its string arena).
 *
 * skitx_idmap maps a pair of 64-bit integers (a file's st_dev and st_ino)
 * to a 32-bit value.
 *
 * Both grow by doubling at 50% load, so a lookup touches one or two slots
 * on average; both return 0 or SKIT_ENOMEM and never abort. Entries cannot
 * be removed: the tables are built once per scan and then thrown away.
 */
#ifndef SKITX_HASH_H
#define SKITX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* FNV-1a over `len` bytes, 64 bits. */
uint64_t skitx_hash_bytes(const void *data, size_t len);

struct skitx_strmap_slot {
	const char *key; /* NULL: the slot is free */
	uint32_t len;
	uint32_t value;
	uint64_t hash;
};

struct skitx_strmap {
	struct skitx_strmap_slot *slots;
	size_t cap, len; /* cap is 0 or a power of two */
};

/* clang-format off */
#define SKITX_STRMAP_INIT { NULL, 0, 0 }
/* clang-format on */

/* The value stored for the key, or NULL when absent. */
uint32_t *skitx_strmap_get(const struct skitx_strmap *m, const char *key,
                           size_t len);

/*
 * Insert `key` with `value` unless the key is present. Returns 1 when it
 * was inserted, 0 when it was already there (then `*found`, if not NULL,
 * receives the stored value), or SKIT_ENOMEM. Keys longer than 4 GiB are
 * refused with SKIT_ETOOBIG.
 */
int skitx_strmap_put(struct skitx_strmap *m, const char *key, size_t len,
                     uint32_t value, uint32_t *found);

void skitx_strmap_release(struct skitx_strmap *m);

struct skitx_idmap_slot {
	uint64_t a, b;
	uint32_t value;
	uint32_t used;
};

struct skitx_idmap {
	struct skitx_idmap_slot *slots;
	size_t cap, len;
};

/* clang-format off */
#define SKITX_IDMAP_INIT { NULL, 0, 0 }
/* clang-format on */

/* Same contract as skitx_strmap_put(), keyed by the pair (a, b). */
int skitx_idmap_put(struct skitx_idmap *m, uint64_t a, uint64_t b,
                    uint32_t value, uint32_t *found);

/* The value stored for (a, b), or NULL. */
uint32_t *skitx_idmap_get(const struct skitx_idmap *m, uint64_t a, uint64_t b);

void skitx_idmap_release(struct skitx_idmap *m);

#endif
