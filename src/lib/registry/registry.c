/* SPDX-License-Identifier: MIT */
/*
 * registry.c - the registry object: its roots, the arena and diagnostics
 * an index is built with, and the queries on the index (lookup, listing,
 * shadowing as the scan settled it). The scan that builds the level-1
 * index is in registry_scan.c, to-prompt's items in registry_items.c,
 * default roots and config files in registry_config.c, BM25 search in
 * search.c; docs/registry.md states every policy written here.
 */
#include "common.h"

#include "skit/registry.h"
#include "lib/registry/registry_int.h"
#include "lib/core/error.h"
#include "util/path.h"
#include "util/utf8.h"

/* Arena chunks; a string over a quarter of this gets a chunk of its own. */
#define ARENA_CHUNK (256 * 1024)

struct skit__arena_chunk {
	struct skit__arena_chunk *next;
	size_t size, used;
	char data[];
};

/* ---- arena -------------------------------------------------------------- */

char *skit__arena_alloc(struct skit__arena *a, size_t size)
{
	struct skit__arena_chunk *c = a->head;
	size_t csize, total;

	if (c && c->size - c->used >= size) {
		char *p = c->data + c->used;
		c->used += size;
		return p;
	}
	csize = size > ARENA_CHUNK / 4 ? size : ARENA_CHUNK;
	if (skitx_add_overflow(csize, sizeof(*c), &total))
		return NULL;
	c = skitx_malloc(total);
	if (!c)
		return NULL;
	c->size = csize;
	c->used = size;
	if (csize != ARENA_CHUNK && a->head) {
		/* keep the partly used chunk at the head for small strings */
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = a->head;
		a->head = c;
	}
	return c->data;
}

char *skit__arena_strndup(struct skit__arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX)
		return NULL;
	p = skit__arena_alloc(a, len + 1);
	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *skit__arena_strdup(struct skit__arena *a, const char *s)
{
	return skit__arena_strndup(a, s, strlen(s));
}

char *skit__arena_vprintf(struct skit__arena *a, const char *fmt, va_list ap)
{
	va_list cp;
	char *p;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return NULL;
	p = skit__arena_alloc(a, (size_t)n + 1);
	if (!p)
		return NULL;
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *skit__arena_printf(struct skit__arena *a, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = skit__arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

void skit__arena_release(struct skit__arena *a)
{
	struct skit__arena_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		skitx_free(c);
	}
	a->head = NULL;
}

void skit__arena_splice(struct skit__arena *dst, struct skit__arena *src)
{
	struct skit__arena_chunk *last = src->head;

	if (!last)
		return;
	while (last->next)
		last = last->next;
	if (dst->head) {
		last->next = dst->head->next;
		dst->head->next = src->head;
	} else {
		dst->head = src->head;
	}
	src->head = NULL;
}

/* ---- diagnostics -------------------------------------------------------- */

int skit__diags_push(struct skit__diags *d, const skit_diag *diag)
{
	if (d->len == d->alloc) {
		size_t n = d->alloc ? d->alloc * 2 : 16;
		skit_diag *items;

		if (n > SIZE_MAX / sizeof(*items))
			return SKIT_ENOMEM;
		items = skitx_realloc(d->items, n * sizeof(*items));
		if (!items)
			return SKIT_ENOMEM;
		d->items = items;
		d->alloc = n;
	}
	d->items[d->len++] = *diag;
	return 0;
}

int skit__diags_add(struct skit__diags *d, struct skit__arena *a,
                    skit_severity sev, const char *code, const char *path,
                    const char *fmt, ...)
{
	skit_diag diag = { 0 };
	va_list ap;

	diag.severity = sev;
	diag.code = code;
	if (path) {
		diag.path = skit__arena_strdup(a, path);
		if (!diag.path)
			return SKIT_ENOMEM;
	}
	va_start(ap, fmt);
	diag.message = skit__arena_vprintf(a, fmt, ap);
	va_end(ap);
	if (!diag.message)
		return SKIT_ENOMEM;
	return skit__diags_push(d, &diag);
}

static void diags_release(struct skit__diags *d)
{
	skitx_free(d->items);
	d->items = NULL;
	d->len = d->alloc = 0;
}

/* ---- lifecycle and roots ------------------------------------------------ */

void skit__registry_index_free(struct skit__index *ix)
{
	if (!ix)
		return;
	if (ix->search_free) {
		ix->search_free(ix->search[0]);
		ix->search_free(ix->search[1]);
	}
	skitx_free(ix->all);
	skitx_free(ix->active);
	skitx_free(ix->roots);
	diags_release(&ix->diags);
	skit__arena_release(&ix->strings);
	skitx_free(ix->cache_bytes);
	skitx_free(ix);
}

int skit_registry_new(skit_registry **out, skit_error *err)
{
	skit_registry *reg;

	assert(out);
	*out = NULL;
	reg = skitx_calloc(1, sizeof(*reg));
	if (!reg)
		return skit__error_oom(err);
	*out = reg;
	return 0;
}

int skit_registry_add_root(skit_registry *reg, const char *source,
                           const char *path, skit_error *err)
{
	struct skit__root root = { NULL, NULL };

	assert(reg && source && path);
	if (!*source)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "a root needs a non-empty label");
	if (!*path)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "root '%s' has an empty path", source);
	if (reg->nroots == reg->roots_alloc) {
		size_t n = reg->roots_alloc ? reg->roots_alloc * 2 : 8;
		struct skit__root *roots;

		roots = skitx_realloc(reg->roots, n * sizeof(*roots));
		if (!roots)
			return skit__error_oom(err);
		reg->roots = roots;
		reg->roots_alloc = n;
	}
	root.source = skitx_strdup(source);
	/* Absolute: an entry's folder, a script's path and the index's
	 * locations must not depend on the caller's working folder later. */
	root.path = path[0] == '/' ? skitx_path_clean(path)
	                           : skitx_path_absolute(path);
	if (!root.source || !root.path) {
		skitx_free(root.source);
		skitx_free(root.path);
		return skit__error_oom(err);
	}
	reg->roots[reg->nroots++] = root;
	return 0;
}

const char *skit_registry_project_dir(const skit_registry *reg)
{
	assert(reg);
	return reg->project_dir;
}

void skit__registry_set_scan_hook(skit_registry *reg, skit__scan_hook hook,
                                  void *payload)
{
	reg->hook = hook;
	reg->hook_payload = payload;
}

void skit__registry_set_threads(skit_registry *reg, size_t n)
{
	reg->threads = n;
}

void skit__registry_set_no_cache(skit_registry *reg, bool off)
{
	reg->no_cache = off;
}

void skit__registry_set_max_per_root(skit_registry *reg, size_t max)
{
	reg->max_per_root = max;
}

/* ---- queries ------------------------------------------------------------ */

size_t skit_registry_root_count(const skit_registry *reg)
{
	assert(reg);
	return reg->nroots;
}

void skit_registry_root(const skit_registry *reg, size_t i, const char **source,
                        const char **path, bool *exists, size_t *skills)
{
	const struct skit__index *ix = reg->index;
	bool scanned;

	assert(reg && i < reg->nroots);
	scanned = ix && i < ix->nroots;
	if (source)
		*source = reg->roots[i].source;
	if (path)
		*path = reg->roots[i].path;
	if (exists)
		*exists = scanned && ix->roots[i].exists;
	if (skills)
		*skills = scanned ? ix->roots[i].skills : 0;
}

size_t skit_registry_count(const skit_registry *reg)
{
	assert(reg);
	return reg->index ? reg->index->nactive : 0;
}

const skit_entry *skit_registry_entry(const skit_registry *reg, size_t i)
{
	assert(reg && reg->index && i < reg->index->nactive);
	return reg->index->active[i];
}

size_t skit_registry_all_count(const skit_registry *reg)
{
	assert(reg);
	return reg->index ? reg->index->nall : 0;
}

const skit_entry *skit_registry_all_entry(const skit_registry *reg, size_t i)
{
	assert(reg && reg->index && i < reg->index->nall);
	return &reg->index->all[i].e;
}

bool skit_registry_source_matches(const char *label, const char *source)
{
	size_t n = strlen(source);

	if (!strcmp(label, source))
		return true;
	/* a tier names every root of it: "user" is also "user:claude" */
	return (!strcmp(source, "project") || !strcmp(source, "user") ||
	        !strcmp(source, "builtin")) &&
	       !strncmp(label, source, n) && label[n] == ':';
}

const skit_entry *skit_registry_find(const skit_registry *reg, const char *name,
                                     const char *source)
{
	const struct skit__index *ix;
	const skit_entry *found = NULL;
	char *nf = NULL;
	size_t lo = 0, hi;
	bool ascii = true, found_exact;

	assert(reg && name);
	ix = reg->index;
	if (!ix)
		return NULL;
	/* Names are stored NFKC; accept any compatible spelling. */
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p >= 0x80)
			ascii = false;
	if (!ascii && !skitx_utf8_check(name, strlen(name), NULL)) {
		nf = skitx_utf8_nfkc(name, strlen(name));
		if (nf)
			name = nf;
	}
	hi = ix->nall;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(ix->all[mid].e.name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->nall && !strcmp(ix->all[lo].e.name, name); lo++) {
		const skit_entry *e = &ix->all[lo].e;

		if (source ? e->state != SKIT_ENTRY_SKIPPED &&
		                     skit_registry_source_matches(e->source,
		                                                  source)
		           : e->state == SKIT_ENTRY_ACTIVE) {
			found = e;
			break;
		}
	}
	found_exact = found != NULL;
	/*
	 * No skill is known by that name: a skill known by its folder name
	 * because its own name differs (`pdf-v2/` saying `name: pdf`)
	 * answers to the name it declares too, the highest root first.
	 */
	for (size_t i = 0; !found_exact && i < ix->nall; i++) {
		const struct skit__item *it = &ix->all[i];

		if (!it->name_raw || strcmp(it->name_raw, name) ||
		    !(source ? it->e.state != SKIT_ENTRY_SKIPPED &&
		                       skit_registry_source_matches(
		                               it->e.source, source)
		             : it->e.state == SKIT_ENTRY_ACTIVE))
			continue;
		if (!found || it->e.root_index < found->root_index)
			found = &it->e;
	}
	skitx_free(nf);
	return found;
}

const skit_diag *skit_registry_diags(const skit_registry *reg, size_t *count)
{
	assert(reg && count);
	if (!reg->index) {
		*count = reg->config_diags.len;
		return reg->config_diags.items;
	}
	*count = reg->index->diags.len;
	return reg->index->diags.items;
}

int skit_registry_load(skit_skill **out, const skit_registry *reg,
                       const skit_entry *entry, skit_error *err)
{
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;

	assert(out && reg && entry);
	opts.flags = SKIT_SKILL_LENIENT;
	return skit_skill_load(out, entry->dir, &opts, err);
}

void skit_registry_free(skit_registry *reg)
{
	if (!reg)
		return;
	for (size_t i = 0; i < reg->nroots; i++) {
		skitx_free(reg->roots[i].source);
		skitx_free(reg->roots[i].path);
	}
	skitx_free(reg->roots);
	skitx_free(reg->project_dir);
	diags_release(&reg->config_diags);
	skit__arena_release(&reg->config_strings);
	skit__registry_index_free(reg->index);
	skitx_free(reg);
}
