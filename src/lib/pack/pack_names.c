/* SPDX-License-Identifier: MIT */
/*
 * pack_names.c - the rules an entry name of a pack or an installed tree
 * must pass (HOSTILE A1-A4, A9, A10), and the collision set.
 *
 * The rules refuse on every platform what is hostile on any: a name that
 * is harmless on Linux but a device or an alternate stream on Windows is
 * refused too, since packs travel.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <utf8proc.h>

#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/utf8.h"
#include "lib/core/winnames.h"

const char *skit__pack_name_show(const char *name, size_t len, char *buf,
                                 size_t cap)
{
	size_t o = 0;

	for (size_t i = 0; i < len && o + 8 < cap; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f || c == '\\' || c >= 0x80)
			o += (size_t)snprintf(buf + o, cap - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (o + 8 >= cap && len)
		o += (size_t)snprintf(buf + o, cap - o, "...");
	buf[o < cap ? o : cap - 1] = '\0';
	return buf;
}

/* "CON", "nul.md", "COM1.txt", "lpt9", "lpt³.txt": see winnames.h. */
bool skit__windows_reserved(const char *c, size_t len)
{
	static const char *const three[] = { "con", "prn", "aux", "nul" };
	size_t base = 0;

	while (base < len && c[base] != '.')
		base++;
	while (base && c[base - 1] == ' ')
		base--;
	if (base == 3) {
		for (size_t i = 0; i < sizeof(three) / sizeof(*three); i++)
			if (!strncasecmp(c, three[i], 3))
				return true;
	}
	if (base >= 4 &&
	    (!strncasecmp(c, "com", 3) || !strncasecmp(c, "lpt", 3))) {
		/* One digit, or the superscripts Windows also maps to one:
		 * U+00B9, U+00B2, U+00B3 (UTF-8 C2 B9, C2 B2, C2 B3). */
		if (base == 4)
			return c[3] >= '0' && c[3] <= '9';
		return base == 5 && (unsigned char)c[3] == 0xc2 &&
		       ((unsigned char)c[4] == 0xb9 ||
		        (unsigned char)c[4] == 0xb2 ||
		        (unsigned char)c[4] == 0xb3);
	}
	if (base == 6 && !strncasecmp(c, "conin$", 6))
		return true;
	return base == 7 && !strncasecmp(c, "conout$", 7);
}

/* "GIT~1", "SKILL~1.MD": an 8.3 short name, which aliases another. */
static bool short_name(const char *c, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++)
		if (c[i] == '~' && isdigit((unsigned char)c[i + 1]))
			return true;
	return false;
}

static int refuse(skit_error *err, int code, const char *what, const char *name,
                  size_t len, const char *why)
{
	char shown[160];

	return skit__error_set(
	        err, code, 0, "%s: entry \"%s\": %s", what,
	        skit__pack_name_show(name, len, shown, sizeof(shown)), why);
}

int skit__pack_name_check(const char *name, size_t len, const char *what,
                          skit_error *err)
{
	size_t depth = 0, start = 0, bad = 0;

	if (!len)
		return refuse(err, SKIT_EUNSAFE, what, name, len, "empty name");
	if (len > SKIT__PACK_MAX_PATH)
		return refuse(err, SKIT_ETOOBIG, what, name, 64,
		              "name longer than 1024 bytes");
	if (skitx_utf8_check(name, len, &bad))
		return refuse(err, SKIT_EUNSAFE, what, name, len,
		              "not valid UTF-8, or a NUL byte");
	for (size_t i = 0; i < len;) {
		int32_t cp;
		size_t n = skitx_utf8_decode(name + i, len - i, &cp);

		if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f))
			return refuse(err, SKIT_EUNSAFE, what, name, len,
			              "control character in the name");
		i += n ? n : 1;
	}
	if (name[0] == '/')
		return refuse(err, SKIT_EUNSAFE, what, name, len,
		              "absolute path");
	if (memchr(name, '\\', len))
		return refuse(err, SKIT_EUNSAFE, what, name, len,
		              "backslash in the name");
	if (memchr(name, ':', len))
		return refuse(err, SKIT_EUNSAFE, what, name, len,
		              "':' in the name (drive letter or stream)");
	for (size_t i = 0; i <= len; i++) {
		const char *c;
		size_t clen;

		if (i < len && name[i] != '/')
			continue;
		c = name + start;
		clen = i - start;
		start = i + 1;
		if (!clen)
			return refuse(err, SKIT_EUNSAFE, what, name, len,
			              "empty path component");
		if ((clen == 1 && c[0] == '.') ||
		    (clen == 2 && c[0] == '.' && c[1] == '.'))
			return refuse(err, SKIT_EUNSAFE, what, name, len,
			              "'.' or '..' component");
		if (clen > SKIT__PACK_MAX_COMPONENT)
			return refuse(err, SKIT_ETOOBIG, what, name, 64,
			              "component longer than 255 bytes");
		if (c[clen - 1] == '.' || c[clen - 1] == ' ')
			return refuse(err, SKIT_EUNSAFE, what, name, len,
			              "component ending in '.' or ' '");
		if (skit__windows_reserved(c, clen))
			return refuse(err, SKIT_EUNSAFE, what, name, len,
			              "a Windows device name");
		if (short_name(c, clen))
			return refuse(err, SKIT_EUNSAFE, what, name, len,
			              "an 8.3 short name (~N)");
		if (++depth > SKIT__PACK_MAX_DEPTH + 1)
			return refuse(err, SKIT_ETOOBIG, what, name, len,
			              "nested more than 16 folders deep");
	}
	return 0;
}

/* ---- the collision set ---- */

/* Each key maps to an entry: the first raw name seen for it, and
 * whether it is a file or a folder. */
struct nentry {
	char *key, *raw;
	bool dir;
};

struct skit__nameset {
	struct skitx_strmap map; /* key -> index in `e` */
	struct nentry *e;
	size_t n, cap;
};

int skit__nameset_new(struct skit__nameset **out)
{
	*out = skitx_calloc(1, sizeof(**out));
	return *out ? 0 : SKIT_ENOMEM;
}

void skit__nameset_free(struct skit__nameset *set)
{
	if (!set)
		return;
	skitx_strmap_release(&set->map);
	for (size_t i = 0; i < set->n; i++) {
		skitx_free(set->e[i].key);
		skitx_free(set->e[i].raw);
	}
	skitx_free(set->e);
	skitx_free(set);
}

/* The collision key of one valid UTF-8 name. */
static char *fold(const char *name, size_t len)
{
	utf8proc_uint8_t *dst = NULL;
	utf8proc_ssize_t n;
	char *copy;

	n = utf8proc_map((const utf8proc_uint8_t *)name, (utf8proc_ssize_t)len,
	                 &dst,
	                 UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT |
	                         UTF8PROC_CASEFOLD | UTF8PROC_IGNORE);
	if (n < 0)
		return NULL;
	copy = skitx_strndup((const char *)dst, (size_t)n);
	free(dst);
	return copy;
}

/*
 * Record `raw` (its first `rlen` bytes) under `key` (owned by the set
 * from now on). Returns 0, SKIT_ENOMEM, or 1 when the key is taken by
 * another name or by the other kind.
 */
static int put_key(struct skit__nameset *set, char *key, const char *raw,
                   size_t rlen, bool dir)
{
	uint32_t found = 0;
	struct nentry *e;
	int rc;

	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 64;
		struct nentry *v = skitx_realloc(set->e, cap * sizeof(*v));

		if (!v) {
			skitx_free(key);
			return SKIT_ENOMEM;
		}
		set->e = v;
		set->cap = cap;
	}
	rc = skitx_strmap_put(&set->map, key, strlen(key), (uint32_t)set->n,
	                      &found);
	if (rc < 0) {
		skitx_free(key);
		return SKIT_ENOMEM;
	}
	if (rc == 0) {
		/* Seen before: a folder again is fine, anything else is a
		 * collision. */
		const struct nentry *old = &set->e[found];

		skitx_free(key);
		if (old->dir && dir && strlen(old->raw) == rlen &&
		    !memcmp(old->raw, raw, rlen))
			return 0;
		return 1;
	}
	e = &set->e[set->n];
	e->key = key;
	e->dir = dir;
	e->raw = skitx_strndup(raw, rlen);
	if (!e->raw) {
		skitx_free(key);
		/* The map holds the key's address: keep the slot valid. */
		e->key = skitx_strdup("");
		e->raw = skitx_strdup("");
		set->n++;
		return SKIT_ENOMEM;
	}
	set->n++;
	return 0;
}

int skit__nameset_add(struct skit__nameset *set, const char *name, size_t len,
                      bool is_dir, skit_error *err)
{
	int rc;

	/* Every parent folder is a folder, whatever the archive lists. */
	for (size_t i = 0; i <= len; i++) {
		bool last = i == len;
		char *key;

		if (!last && name[i] != '/')
			continue;
		key = fold(name, i);
		if (!key)
			return skit__error_oom(err);
		rc = put_key(set, key, name, i, last ? is_dir : true);
		if (rc < 0)
			return skit__error_oom(err);
		if (rc > 0)
			return refuse(err, SKIT_EUNSAFE, "archive", name, len,
			              "collides with another entry (the same "
			              "name after case folding and Unicode "
			              "normalisation, or a file and a folder "
			              "of one name)");
	}
	return 0;
}
