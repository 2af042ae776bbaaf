/* SPDX-License-Identifier: MIT */
/*
 * registry.c - skill roots, the scan that builds the level-1 index, and
 * lookups. Default roots and config files are in registry_config.c, BM25
 * search in search.c; docs/registry.md states every policy written here.
 *
 * The scan reads `<root>/<name>/` for each folder of each root, in this
 * order: roots by precedence; inside a root, real folders before symbolic
 * links, each group in byte order of the folder name. Order decides which
 * copy wins when two folders are the same (an alias) or give the same
 * name, so the result never depends on readdir() order.
 *
 * Each folder's SKILL.md frontmatter is read by skit_skill_load(); only the
 * strings an entry needs are copied into the index's arena, and the skill
 * is freed at once, so memory is a few hundred bytes a skill. A bad folder
 * never stops the scan: it becomes a skipped entry or a diagnostic.
 */
#include "common.h"

#include <dirent.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/registry.h"
#include "lib/registry/registry_int.h"
#include "lib/registry/registry_cache.h"
#include "lib/core/confusable.h"
#include "lib/core/error.h"
#include "lib/skill/skill_int.h"
#include "util/buf.h"
#include "util/path.h"
#include "util/hash.h"
#include "util/utf8.h"
#include "util/parallel.h"

#include <utf8proc.h>

/* Arena chunks; a string over a quarter of this gets a chunk of its own. */
#define ARENA_CHUNK (256 * 1024)

/* Parent folders walked up from a root when looking for link loops. */
#define MAX_ANCESTORS 256

/* Fewer folders than this in a root are loaded on the calling thread. */
#define PARALLEL_MIN 64

/* Folders a loading thread takes at a time, at most. */
#define PARALLEL_BATCH 256

/*
 * A SKILL.md modified this few seconds before the scan (or later) is not
 * cached: a write in the same clock tick as our stat() could leave size
 * and times unchanged (git's "racily clean" entries). 2 s covers FAT.
 */
#define RACY_SECONDS 2

/* A value in the identity table that is not an entry. */
#define NO_ITEM UINT32_MAX

struct skit__arena_chunk {
	struct skit__arena_chunk *next;
	size_t size, used;
	char data[];
};

/* ---- arena -------------------------------------------------------------- */

static char *arena_alloc(struct skit__arena *a, size_t size)
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
	p = arena_alloc(a, len + 1);
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

static char *arena_vprintf(struct skit__arena *a, const char *fmt, va_list ap)
        SKIT_PRINTF(2, 0);

static char *arena_vprintf(struct skit__arena *a, const char *fmt, va_list ap)
{
	va_list cp;
	char *p;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return NULL;
	p = arena_alloc(a, (size_t)n + 1);
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
	p = arena_vprintf(a, fmt, ap);
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

/*
 * Move every chunk of `src` into `dst`, after dst's head (which stays the
 * partly used chunk small strings go to). Strings keep their addresses.
 */
static void arena_splice(struct skit__arena *dst, struct skit__arena *src)
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

static int diags_push(struct skit__diags *d, const skit_diag *diag)
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
	diag.message = arena_vprintf(a, fmt, ap);
	va_end(ap);
	if (!diag.message)
		return SKIT_ENOMEM;
	return diags_push(d, &diag);
}

static void diags_release(struct skit__diags *d)
{
	skitx_free(d->items);
	d->items = NULL;
	d->len = d->alloc = 0;
}

/* ---- strings ------------------------------------------------------------ */

/*
 * A folder name for display: valid UTF-8 is kept, every invalid byte
 * becomes U+FFFD, so names can go into JSON and terminals. The path fields
 * keep the raw bytes: they must still open the folder.
 */
static char *arena_utf8(struct skit__arena *a, const char *s, size_t len)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t bad;
	char *out;

	if (!skitx_utf8_check(s, len, NULL))
		return skit__arena_strndup(a, s, len);
	while (len) {
		if (!skitx_utf8_check(s, len, &bad)) {
			bad = len;
		}
		if (skitx_buf_add(&b, s, bad) < 0)
			goto oom;
		if (bad == len)
			break;
		if (skitx_buf_puts(&b, "\xEF\xBF\xBD") < 0)
			goto oom;
		s += bad + 1;
		len -= bad + 1;
	}
	out = skit__arena_strndup(a, b.ptr, b.len);
	skitx_buf_release(&b);
	return out;
oom:
	skitx_buf_release(&b);
	return NULL;
}

/*
 * The key under which names collide: NFKC + case folding. ASCII names take
 * a fast path (NFKC leaves ASCII alone; folding is tolower), and most
 * names are already lowercase ASCII, so they are their own key. Returns
 * `name` itself, a copy in `a`, or NULL on out-of-memory.
 */
static const char *fold_key(struct skit__arena *a, const char *name)
{
	utf8proc_int32_t buf[1024];
	utf8proc_ssize_t n;
	size_t len = strlen(name);
	bool ascii = true, lower = true;
	char *out;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c >= 0x80)
			ascii = false;
		else if (c >= 'A' && c <= 'Z')
			lower = false;
	}
	if (ascii) {
		if (lower)
			return name;
		out = skit__arena_strndup(a, name, len);
		if (!out)
			return NULL;
		for (size_t i = 0; i < len; i++)
			if (out[i] >= 'A' && out[i] <= 'Z')
				out[i] = (char)(out[i] - 'A' + 'a');
		return out;
	}
	/* utf8proc into a stack buffer: no allocation outside skitx_. */
	n = utf8proc_decompose(
	        (const utf8proc_uint8_t *)name, (utf8proc_ssize_t)len, buf,
	        (utf8proc_ssize_t)SKIT_ARRAY_SIZE(buf),
	        UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD);
	if (n < 0 || n > (utf8proc_ssize_t)SKIT_ARRAY_SIZE(buf))
		return name; /* not foldable here: compare as is */
	/* reencode composes (NFKC) and writes UTF-8 over the buffer */
	n = utf8proc_reencode(buf, n, UTF8PROC_STABLE | UTF8PROC_COMPOSE);
	if (n < 0)
		return name;
	return skit__arena_strndup(a, (const char *)buf, (size_t)n);
}

/* ---- lifecycle and roots ------------------------------------------------ */

static void index_free(struct skit__index *ix)
{
	if (!ix)
		return;
	skit__search_free(ix->search[0]);
	skit__search_free(ix->search[1]);
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
	root.path = skitx_path_clean(path);
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

/* ---- the scan ----------------------------------------------------------- */

/* One folder name read from a root. */
struct cand {
	size_t name_off;  /* into scan.names while it grows */
	const char *name; /* set once the listing is complete */
	uint64_t ino;
	bool link;
};

struct scan {
	skit_registry *reg;
	uid_t euid; /* the user, as unsafe_why() judges owners */
	struct skit__index *ix;
	struct skit__arena tmp; /* fold keys; freed after the scan */

	struct skit__item *items;
	size_t nitems, items_alloc;

	/* (st_dev, st_ino) of each folder seen -> its item, or NO_ITEM */
	struct skitx_idmap seen;
	/* roots -> root index; their parent folders -> NO_ITEM */
	struct skitx_idmap fences;
	int *fds; /* an open fd per root, or -1 */

	struct skitx_buf names;
	struct cand *cands;
	size_t ncands, cands_alloc;
	struct skitx_buf path;
	skit_skill_options opts;

	/*
	 * The parallel load (see load_root): threads to use (1: none), the
	 * root being loaded, its outcome per candidate, where candidate i's
	 * entry is written (items[base + i]), and each thread's state.
	 */
	size_t nthreads, ri, base;
	struct loaded *loaded; /* NULL: load each folder as it is merged */
	struct loaded *loaded_buf;
	size_t loaded_alloc;
	struct loader *loaders;
	atomic_bool stop;  /* a load failed for want of memory */
	uint64_t root_dev; /* st_dev of the root being scanned */

	/*
	 * The index cache: one for all the roots (NULL: off), the entries to
	 * write back (which item, its key), and per root how many came from
	 * the cache and how many were loaded and can be cached.
	 */
	struct skit__cache *cache;
	struct cache_item *citems;
	size_t ncitems, citems_alloc;
	struct skit__cache_key *ckeys; /* of the entries loaded */
	size_t nckeys, ckeys_alloc;
	size_t *chits, *cnew;
	int64_t racy_after; /* mtimes at or after this are not cached */
	bool cache_lost;    /* out of memory on the way: write nothing */
};

/*
 * An entry to write back: 12 bytes, not a key each (100k keys were 10 MB
 * of a warm scan's peak): a hit's key is its record's, found again by
 * number; a loaded entry's is in scan.ckeys.
 */
struct cache_item {
	uint32_t root;
	uint32_t item;
	uint32_t ref; /* hit: record number; else index in ckeys | MISS */
};

#define CACHE_MISS 0x80000000u

/* What loading one folder gave. */
enum load_kind {
	LOAD_NONE,       /* not loaded (yet): a link, or a path too long */
	LOAD_ITEM,       /* an entry, in items[base + i] */
	LOAD_NOT_SKILL,  /* no SKILL.md: not a skill, not a word said */
	LOAD_REMOVED,    /* gone since the listing */
	LOAD_UNREADABLE, /* `message` says why */
};

struct loaded {
	int error; /* < 0: the load failed (SKIT_ENOMEM) */
	enum load_kind kind;
	const char *message;
	const char *unsafe; /* the folder is unsafe: why (unsafe_why()) */
	bool hit;           /* the entry came from the cache */
	bool cacheable;     /* loaded, and `key` may be written to the cache */
	bool key_later;     /* no record: the key is the load's fstat() */
	uint32_t rec;       /* a hit: the record's number */
	struct skit__cache_key key;
};

/* One loading thread's own state. */
struct loader {
	struct skit__arena strings; /* spliced into the index afterwards */
	struct skitx_buf path;
};

static int scan_diag(struct scan *sc, const char *code, const char *path,
                     const char *fmt, ...) SKIT_PRINTF(4, 5);

static int scan_diag(struct scan *sc, const char *code, const char *path,
                     const char *fmt, ...)
{
	struct skit__index *ix = sc->ix;
	skit_diag diag = { 0 };
	va_list ap;

	/* Two skills one name could mean are an error (the agent could be
	 * handed the wrong one); the rest are warnings. */
	diag.severity = !strcmp(code, "nfkc-collision") ||
	                                !strcmp(code, "name-confusable")
	                        ? SKIT_SEVERITY_ERROR
	                        : SKIT_SEVERITY_WARNING;
	diag.code = code;
	if (path) {
		diag.path = skit__arena_strdup(&ix->strings, path);
		if (!diag.path)
			return SKIT_ENOMEM;
	}
	va_start(ap, fmt);
	diag.message = arena_vprintf(&ix->strings, fmt, ap);
	va_end(ap);
	if (!diag.message)
		return SKIT_ENOMEM;
	return diags_push(&ix->diags, &diag);
}

static struct skit__item *new_item(struct scan *sc)
{
	struct skit__item *it;

	if (sc->nitems == sc->items_alloc) {
		size_t n = sc->items_alloc ? sc->items_alloc * 2 : 64;
		struct skit__item *items;

		if (n > SIZE_MAX / sizeof(*items) || n > UINT32_MAX - 1)
			return NULL;
		items = skitx_realloc(sc->items, n * sizeof(*items));
		if (!items)
			return NULL;
		sc->items = items;
		sc->items_alloc = n;
	}
	it = &sc->items[sc->nitems++];
	memset(it, 0, sizeof(*it));
	return it;
}

/*
 * Why a folder skills load from is unsafe, as ssh judges its config
 * files: owned by someone other than the user (the effective uid) or
 * root, or writable by group or others, who could then put a skill in
 * it or rewrite one. NULL when it is safe. `why` holds the message.
 */
static const char *unsafe_why(const struct stat *st, uid_t me, char *why,
                              size_t size)
{
	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(why, size,
		         "owned by uid %lu, not by you (uid %lu) or root",
		         (unsigned long)st->st_uid, (unsigned long)me);
		return why;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, size, "writable by %s (mode %04o)",
		         (st->st_mode & S_IWOTH) ? "everyone" : "its group",
		         (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

/*
 * Record the identity of every root and of each of its parent folders. A
 * linked folder that leads back to one of them (`x -> ..`, `x -> .`, a
 * link from one root into another) is a loop, never followed. A root
 * that is the same folder as a higher root is scanned once.
 */
static int open_roots(struct scan *sc)
{
	skit_registry *reg = sc->reg;
	struct stat st, up;
	uint32_t found;
	char why[96];
	int error = 0, fd, cur, next;

	for (size_t i = 0; i < reg->nroots; i++)
		sc->fds[i] = -1;
	for (size_t i = 0; i < reg->nroots; i++) {
		const char *path = reg->roots[i].path;

		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			int e = errno;

			if (e == ENOENT)
				continue; /* a missing root is empty */
			if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
				sc->ix->roots[i].exists = true;
				error = scan_diag(sc, "root-not-dir", path,
				                  "root is not a folder");
			} else if (e == ENOTDIR) {
				continue; /* a parent is a file: missing */
			} else {
				sc->ix->roots[i].exists = true;
				error = scan_diag(sc, "root-unreadable", path,
				                  "root cannot be read: %s",
				                  strerror(e));
			}
			if (error < 0)
				return error;
			continue;
		}
		sc->ix->roots[i].exists = true;
		if (fstat(fd, &st) < 0) {
			close(fd);
			continue;
		}
		if (unsafe_why(&st, sc->euid, why, sizeof(why))) {
			error = scan_diag(sc, "unsafe-root", path,
			                  "skills are loaded from a root %s; "
			                  "others can change what the agent "
			                  "runs",
			                  why);
			if (error < 0) {
				close(fd);
				return error;
			}
		}
		error = skitx_idmap_put(&sc->fences, (uint64_t)st.st_dev,
		                        (uint64_t)st.st_ino, (uint32_t)i,
		                        &found);
		if (error < 0) {
			close(fd);
			return error;
		}
		if (!error && found != NO_ITEM) {
			close(fd);
			error = scan_diag(sc, "root-duplicate", path,
			                  "same folder as the %s root %s; "
			                  "scanned once",
			                  reg->roots[found].source,
			                  reg->roots[found].path);
			if (error < 0)
				return error;
			continue;
		}
		if (!error) {
			/* it was a parent of an earlier root; now a root */
			uint32_t *v = skitx_idmap_get(&sc->fences,
			                              (uint64_t)st.st_dev,
			                              (uint64_t)st.st_ino);
			*v = (uint32_t)i;
		}
		sc->fds[i] = fd;

		/* Walk up with "..": the physical parents, as links see. */
		cur = fd;
		for (int depth = 0; depth < MAX_ANCESTORS; depth++) {
			next = openat(cur, "..",
			              O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (cur != fd)
				close(cur);
			cur = -1;
			if (next < 0)
				break;
			if (fstat(next, &up) < 0) {
				close(next);
				break;
			}
			error = skitx_idmap_put(
			        &sc->fences, (uint64_t)up.st_dev,
			        (uint64_t)up.st_ino, NO_ITEM, NULL);
			if (error < 0) {
				close(next);
				return error;
			}
			if (up.st_dev == st.st_dev && up.st_ino == st.st_ino) {
				close(next);
				break; /* "/" is its own parent */
			}
			st = up;
			cur = next;
		}
		if (cur >= 0 && cur != fd)
			close(cur);
	}
	return 0;
}

/* Real folders first, then links; each group in byte order. */
static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->link != y->link)
		return x->link ? 1 : -1;
	return strcmp(x->name, y->name);
}

static size_t max_per_root(const skit_registry *reg)
{
	return reg->max_per_root ? reg->max_per_root
	                         : SKIT__REGISTRY_MAX_PER_ROOT;
}

/* Read the folder names of root `i` into sc->cands, sorted. */
static int list_root(struct scan *sc, size_t i, bool *truncated)
{
	const char *path = sc->reg->roots[i].path;
	size_t max = max_per_root(sc->reg);
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd, error = 0;

	*truncated = false;
	sc->ncands = 0;
	skitx_buf_clear(&sc->names);
	fd = dup(sc->fds[i]);
	if (fd < 0)
		return scan_diag(sc, "root-unreadable", path,
		                 "root cannot be read: %s", strerror(errno));
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return scan_diag(sc, "root-unreadable", path,
		                 "root cannot be read: %s", strerror(errno));
	}
	rewinddir(dir);
	for (;;) {
		struct cand *c;
		bool link, isdir;
		uint64_t ino;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno)
				error = scan_diag(sc, "root-unreadable", path,
				                  "reading the root stopped: "
				                  "%s",
				                  strerror(errno));
			break;
		}
		/* Dot-entries: ".", "..", ".git", ".system", "._x"... */
		if (de->d_name[0] == '.')
			continue;
		ino = (uint64_t)de->d_ino;
		link = de->d_type == DT_LNK;
		isdir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			if (fstatat(sc->fds[i], de->d_name, &st,
			            AT_SYMLINK_NOFOLLOW) < 0)
				continue; /* gone already */
			link = S_ISLNK(st.st_mode);
			isdir = S_ISDIR(st.st_mode);
			ino = (uint64_t)st.st_ino;
		}
		if (!link && !isdir)
			continue; /* files beside the skills */
		if (sc->ncands >= max) {
			*truncated = true;
			break;
		}
		if (sc->ncands == sc->cands_alloc) {
			size_t n = sc->cands_alloc ? sc->cands_alloc * 2 : 256;
			struct cand *cands;

			cands = skitx_realloc(sc->cands, n * sizeof(*cands));
			if (!cands) {
				error = SKIT_ENOMEM;
				break;
			}
			sc->cands = cands;
			sc->cands_alloc = n;
		}
		c = &sc->cands[sc->ncands++];
		c->name_off = sc->names.len;
		c->ino = ino;
		c->link = link;
		error = skitx_buf_add(&sc->names, de->d_name,
		                      strlen(de->d_name) + 1);
		if (error < 0)
			break;
	}
	closedir(dir);
	if (error < 0)
		return error;
	for (size_t k = 0; k < sc->ncands; k++)
		sc->cands[k].name = sc->names.ptr + sc->cands[k].name_off;
	if (sc->ncands > 1) /* an empty root has no array to sort */
		qsort(sc->cands, sc->ncands, sizeof(*sc->cands), cand_cmp);
	return 0;
}

/*
 * The entry's name (docs/format.md, "Which name a skill is known by"):
 * identity is the folder. A skill is known by its frontmatter name (NFKC)
 * when that name obeys the character rules and matches the folder, as
 * every conforming skill's does; otherwise by its folder name, loaded or
 * not: a `bird-co/` saying `name: bird` is bird-co, so it cannot pose as
 * another root's bird, and `Ahrefs Automation` in `ahrefs-automation/` is
 * ahrefs-automation. The name as written stays in the item's name_raw.
 */
static const char *entry_name(struct skit__arena *a, skit_skill *s,
                              const char *folder)
{
	const char *known = skit_skill_known_name(s);

	if (known != skit_skill_dir_name(s))
		return skit__arena_strdup(a, known);
	return arena_utf8(a, folder, strlen(folder));
}

/*
 * Copy what the entry needs out of `s` (loaded from `path`, the folder
 * `folder` of root `ri`) into `it`, its strings into `a`. Runs on the
 * loading threads: it touches nothing of the scan but its arguments.
 */
static int fill_item(struct skit__item *it, struct skit__arena *a,
                     const skit_registry *reg, size_t ri, skit_skill *s,
                     const char *path, size_t path_len, const char *folder)
{
	const skit_diag *diags;
	const char *reason = NULL, *v;
	size_t n, warnings = 0;
	char *file;
	bool valid;

	diags = skit_skill_diags(s, &n);
	for (size_t i = 0; i < n; i++) {
		if (diags[i].severity == SKIT_SEVERITY_ERROR && !reason)
			reason = diags[i].message;
		else if (diags[i].severity == SKIT_SEVERITY_WARNING)
			warnings++;
	}
	valid = !reason;
	memset(it, 0, sizeof(*it));
	it->e.name = entry_name(a, s, folder);
	it->e.dir = skit__arena_strndup(a, path, path_len);
	/* "<dir>/SKILL.md" (or skill.md), without a printf per entry */
	file = arena_alloc(a, path_len + sizeof("/SKILL.md"));
	if (!it->e.name || !it->e.dir || !file)
		return SKIT_ENOMEM;
	memcpy(file, path, path_len);
	memcpy(file + path_len,
	       (skit_skill_flags(s) & SKIT_SKILL_LOWERCASE_FILE) ? "/skill.md"
	                                                         : "/SKILL.md",
	       sizeof("/SKILL.md"));
	it->e.file = file;
	it->folder = it->e.dir + (path_len - strlen(folder));
	it->canonical = !strcmp(it->folder, it->e.name);
	it->e.source = reg->roots[ri].source;
	it->e.root_index = ri;
	it->e.flags = skit_skill_flags(s);
	it->e.warnings = warnings;
	if (!valid) {
		it->e.state = SKIT_ENTRY_SKIPPED;
		it->e.description = "";
		it->e.reason = skit__arena_strdup(a, reason);
		return it->e.reason ? 0 : SKIT_ENOMEM;
	}
	it->e.state = SKIT_ENTRY_ACTIVE;
	/* to-prompt prints the name as written: keep it when NFKC changed it */
	v = skit_skill_name_raw(s);
	if (v && strcmp(v, it->e.name)) {
		it->name_raw = skit__arena_strdup(a, v);
		if (!it->name_raw)
			return SKIT_ENOMEM;
	}
	v = skit_skill_description(s);
	it->e.description = skit__arena_strdup(a, v ? v : "");
	if (!it->e.description)
		return SKIT_ENOMEM;
	v = skit_skill_when_to_use(s);
	if (v) {
		it->e.when_to_use = skit__arena_strdup(a, v);
		if (!it->e.when_to_use)
			return SKIT_ENOMEM;
	}
	v = skit_skill_argument_hint(s);
	if (v) {
		it->e.argument_hint = skit__arena_strdup(a, v);
		if (!it->e.argument_hint)
			return SKIT_ENOMEM;
	}
	return 0;
}

/*
 * The entry fill_item() would have made, from a cache record: the loaded
 * fields come from the record, those of the folder's place (paths, root)
 * from the scan, as for a fresh load. The record's strings are used where
 * they lie (NUL-terminated in the cache's bytes, which the index keeps):
 * copying them doubled the memory a warm scan of a large tree took.
 */
static int fill_from_cache(struct skit__item *it, struct skit__arena *a,
                           const skit_registry *reg, size_t ri,
                           const struct skit__cache_rec *rec, const char *path,
                           size_t path_len, const char *folder)
{
	char *file;

	memset(it, 0, sizeof(*it));
	it->e.name = rec->str[SKIT__CACHE_NAME];
	it->e.dir = skit__arena_strndup(a, path, path_len);
	/* records are never of a lowercase skill.md */
	file = arena_alloc(a, path_len + sizeof("/SKILL.md"));
	if (!it->e.dir || !file)
		return SKIT_ENOMEM;
	memcpy(file, path, path_len);
	memcpy(file + path_len, "/SKILL.md", sizeof("/SKILL.md"));
	it->e.file = file;
	it->folder = it->e.dir + (path_len - strlen(folder));
	it->canonical = !strcmp(it->folder, it->e.name);
	it->e.source = reg->roots[ri].source;
	it->e.root_index = ri;
	it->e.flags = rec->flags;
	it->e.warnings = rec->warnings;
	it->e.state = rec->state;
	if (rec->state == SKIT_ENTRY_SKIPPED) {
		it->e.description = "";
		it->e.reason = rec->str[SKIT__CACHE_REASON];
		return 0;
	}
	it->name_raw = rec->str[SKIT__CACHE_NAME_RAW];
	it->e.description = rec->str[SKIT__CACHE_DESCRIPTION];
	it->e.when_to_use = rec->str[SKIT__CACHE_WHEN_TO_USE];
	it->e.argument_hint = rec->str[SKIT__CACHE_ARGUMENT_HINT];
	return 0;
}

/*
 * Look the folder up in the root's cache: one fstatat() of its SKILL.md,
 * no open, no read. True when the record still holds (the entry is then
 * in `it`); else `out->key` and `out->cacheable` say whether what the
 * load gives may be cached. The key is read *before* the load, so a file
 * changed in between is cached under its old key and misses next time.
 */
static bool load_cached(const struct scan *sc, size_t ri, const char *folder,
                        uint64_t dir_dev, uint64_t dir_ino, const char *path,
                        size_t path_len, struct skit__arena *a,
                        struct skit__item *it, struct loaded *out)
{
	const struct skit__cache *c = sc->cache;
	struct skit__cache_rec rec;
	long i;

	if (!c || !c->file)
		return false;
	i = skit__cache_lookup(c, ri, folder);
	if (i < 0) {
		/*
		 * No record (a first scan, a new skill): no stat() now; the
		 * load's own fstat() of the SKILL.md it opens is the key, as
		 * good as one taken before (it precedes the read).
		 */
		out->key_later = true;
		return false;
	}
	if (!skit__cache_key_read(&out->key, sc->fds[ri], folder, dir_dev,
	                          dir_ino))
		return false;
	skit__cache_get(c, (size_t)i, &rec);
	if (skit__cache_key_eq(&rec.key, &out->key)) {
		out->kind = LOAD_ITEM;
		out->hit = true;
		out->rec = (uint32_t)i;
		out->error = fill_from_cache(it, a, sc->reg, ri, &rec, path,
		                             path_len, folder);
		return true;
	}
	out->cacheable = out->key.mtime_sec < sc->racy_after;
	return false;
}

/*
 * Load the folder `folder` of root `ri` (at `path`; its identity is
 * dir_dev, dir_ino) and settle what it is: an entry written to `it`
 * (strings in `a`), or no entry and why. Thread-safe: it reads the scan's
 * roots, options and caches and writes only `it`, `a` and `out`.
 */
static void load_folder(const struct scan *sc, size_t ri, const char *folder,
                        uint64_t dir_dev, uint64_t dir_ino, const char *path,
                        size_t path_len, struct skit__arena *a,
                        struct skit__item *it, struct loaded *out)
{
	skit_error err = { 0 };
	skit_skill *s = NULL;
	const skit_diag *d;
	struct stat st;
	char why[96];
	size_t n;
	int error;

	out->error = 0;
	out->message = NULL;
	out->unsafe = NULL;
	out->hit = out->cacheable = out->key_later = false;
	/*
	 * The folder's owner and mode (following a linked folder): one
	 * fstatat() a folder, on the loading threads. Only a folder that
	 * gives an entry is reported.
	 */
	if (!sc->reg->diags_unread &&
	    fstatat(sc->fds[ri], folder, &st, 0) == 0 &&
	    unsafe_why(&st, sc->euid, why, sizeof(why))) {
		out->unsafe = skit__arena_strdup(a, why);
		if (!out->unsafe) {
			out->error = SKIT_ENOMEM;
			return;
		}
	}
	if (load_cached(sc, ri, folder, dir_dev, dir_ino, path, path_len, a, it,
	                out))
		return;
	error = skit__skill_load_at(&s, sc->fds[ri], folder, path, &sc->opts,
	                            &err);
	if (error == SKIT_ENOTFOUND) {
		out->kind = LOAD_REMOVED;
		return;
	}
	if (error == SKIT_ENOMEM) {
		out->error = error;
		return;
	}
	if (error < 0) {
		out->kind = LOAD_UNREADABLE;
		out->message = skit__arena_strdup(a, err.message);
		if (!out->message)
			out->error = SKIT_ENOMEM;
		return;
	}
	d = skit_skill_diags(s, &n);
	if (n && d[0].severity == SKIT_SEVERITY_ERROR &&
	    !strcmp(d[0].code, "missing-skill-md")) {
		out->kind = LOAD_NOT_SKILL;
	} else if (n && !strcmp(d[0].code, "not-a-directory") &&
	           lstat(path, &st) < 0 && errno == ENOENT) {
		/* The folder vanished between listing and loading. */
		out->kind = LOAD_REMOVED;
	} else {
		out->kind = LOAD_ITEM;
		out->error = fill_item(it, a, sc->reg, ri, s, path, path_len,
		                       folder);
		if (out->key_later && s->md_stat_ok) {
			skit__cache_key_from_stat(&out->key, &s->md_stat,
			                          dir_dev, dir_ino);
			out->cacheable = out->key.mtime_sec < sc->racy_after;
		}
		if (it->e.flags & SKIT_SKILL_LOWERCASE_FILE)
			out->cacheable = false; /* the key is SKILL.md's */
	}
	skit_skill_free(s);
}

/* "<root>/<folder>" into `b`. */
static int folder_path(struct skitx_buf *b, const char *rpath,
                       const char *folder)
{
	skitx_buf_clear(b);
	if (skitx_buf_puts(b, rpath) < 0 ||
	    (strcmp(rpath, "/") && skitx_buf_putc(b, '/') < 0))
		return SKIT_ENOMEM;
	return skitx_buf_puts(b, folder) < 0 ? SKIT_ENOMEM : 0;
}

/*
 * A folder whose path is too long to open is listed as skipped when it
 * holds a SKILL.md (checked relative to the root, which still works).
 */
static int add_too_long(struct scan *sc, size_t ri, const char *folder)
{
	struct skit__arena *a = &sc->ix->strings;
	struct skitx_buf rel = SKITX_BUF_INIT;
	struct stat st;
	struct skit__item *it;
	bool lower = false;
	int error;

	error = skitx_buf_printf(&rel, "%s/SKILL.md", folder);
	if (error < 0)
		goto out;
	if (fstatat(sc->fds[ri], rel.ptr, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		skitx_buf_clear(&rel);
		error = skitx_buf_printf(&rel, "%s/skill.md", folder);
		if (error < 0)
			goto out;
		lower = true;
		if (fstatat(sc->fds[ri], rel.ptr, &st, AT_SYMLINK_NOFOLLOW) < 0)
			goto out; /* not a skill */
	}
	error = SKIT_ENOMEM;
	it = new_item(sc);
	if (!it)
		goto out;
	it->e.name = arena_utf8(a, folder, strlen(folder));
	it->e.dir = skit__arena_strndup(a, sc->path.ptr, sc->path.len);
	it->e.file = skit__arena_printf(a, "%s/%s", sc->path.ptr,
	                                lower ? "skill.md" : "SKILL.md");
	it->e.reason = skit__arena_printf(a,
	                                  "path is too long to open (%zu "
	                                  "bytes; the limit is %d)",
	                                  sc->path.len + 9, PATH_MAX);
	if (!it->e.name || !it->e.dir || !it->e.file || !it->e.reason)
		goto out;
	it->folder = it->e.dir + (sc->path.len - strlen(folder));
	it->canonical = !strcmp(it->folder, it->e.name);
	it->e.description = "";
	it->e.source = sc->reg->roots[ri].source;
	it->e.root_index = ri;
	it->e.flags = lower ? SKIT_SKILL_LOWERCASE_FILE : 0;
	it->e.state = SKIT_ENTRY_SKIPPED;
	error = 0;
out:
	skitx_buf_release(&rel);
	return error;
}

/* Room for one more of `size` bytes after `n` in *p; false: no memory. */
static bool grow_array(void **p, size_t *alloc, size_t n, size_t size)
{
	size_t want = *alloc ? *alloc * 2 : 256;
	void *v;

	if (n < *alloc)
		return true;
	if (want > SIZE_MAX / size)
		return false;
	v = skitx_realloc(*p, want * size);
	if (!v)
		return false;
	*p = v;
	*alloc = want;
	return true;
}

/*
 * Remember entry `item` of root `ri` for the cache, when it came from
 * there or may go there. Runs in the merge, in order, so counts are exact.
 */
static void cache_note(struct scan *sc, size_t ri, uint32_t item,
                       const struct loaded *l)
{
	struct cache_item *ci;

	if (!sc->cache || sc->cache_lost || (!l->hit && !l->cacheable))
		return;
	/*
	 * Not storable (say, a folder name that is not UTF-8): as if not
	 * cacheable, or every scan would count it as new and rewrite.
	 */
	if (!l->hit &&
	    !skit__cache_fits(&sc->items[item].e, sc->items[item].folder,
	                      sc->items[item].name_raw))
		return;
	if (!grow_array((void **)&sc->citems, &sc->citems_alloc, sc->ncitems,
	                sizeof(*sc->citems)) ||
	    (!l->hit && !grow_array((void **)&sc->ckeys, &sc->ckeys_alloc,
	                            sc->nckeys, sizeof(*sc->ckeys))) ||
	    sc->nckeys >= CACHE_MISS) {
		/* the scan goes on; only the cache is not written */
		sc->cache_lost = true;
		return;
	}
	ci = &sc->citems[sc->ncitems++];
	ci->root = (uint32_t)ri;
	ci->item = item;
	if (l->hit) {
		ci->ref = l->rec;
		sc->chits[ri]++;
	} else {
		ci->ref = (uint32_t)sc->nckeys | CACHE_MISS;
		sc->ckeys[sc->nckeys++] = l->key;
		sc->cnew[ri]++;
	}
}

/*
 * Examine candidate `ci` of root `ri`, in the scan's order: which folder
 * it is (aliases and loops are decided here, so they depend on that order
 * alone), then its entry: loaded beforehand by load_root(), or now.
 */
static int scan_folder(struct scan *sc, size_t ri, size_t ci, dev_t root_dev,
                       int *dino_ok)
{
	const struct cand *c = &sc->cands[ci];
	const char *folder = c->name;
	const char *rpath = sc->reg->roots[ri].path;
	struct loaded now, *l;
	struct skit__item tmp, *it;
	uint64_t dev, ino;
	uint32_t *hit, item = NO_ITEM;
	struct stat st;
	int error;

	if (sc->reg->hook)
		sc->reg->hook(rpath, folder, sc->reg->hook_payload);
	error = folder_path(&sc->path, rpath, folder);
	if (error < 0)
		return error;

	if (c->link) {
		if (fstatat(sc->fds[ri], folder, &st, 0) < 0) {
			if (errno == ENOENT)
				return scan_diag(sc, "symlink-dangling",
				                 sc->path.ptr,
				                 "dangling symbolic link; "
				                 "skipped");
			if (errno == ELOOP)
				return scan_diag(sc, "symlink-loop",
				                 sc->path.ptr,
				                 "symbolic link loop; skipped");
			return scan_diag(sc, "unreadable", sc->path.ptr,
			                 "cannot follow the link: %s",
			                 strerror(errno));
		}
		if (!S_ISDIR(st.st_mode))
			return 0; /* links to files are not skills */
		dev = (uint64_t)st.st_dev;
		ino = (uint64_t)st.st_ino;
	} else if (*dino_ok > 0) {
		/* readdir's d_ino: no syscall per folder */
		dev = (uint64_t)root_dev;
		ino = c->ino;
	} else {
		/*
		 * Some file systems (overlayfs without xino) report a d_ino
		 * that differs from st_ino; the first folder of each root
		 * tells, and then either every folder is stat'ed or none.
		 */
		if (fstatat(sc->fds[ri], folder, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return scan_diag(sc, "removed", sc->path.ptr,
			                 "removed during the scan; skipped");
		if (!*dino_ok)
			*dino_ok = st.st_dev == root_dev &&
			                           st.st_ino == (ino_t)c->ino
			                   ? 1
			                   : -1;
		dev = (uint64_t)st.st_dev;
		ino = (uint64_t)st.st_ino;
	}

	hit = skitx_idmap_get(&sc->fences, dev, ino);
	if (hit)
		return scan_diag(sc, "symlink-loop", sc->path.ptr,
		                 "leads back to a skill root or one of its "
		                 "parent folders; not followed");
	hit = skitx_idmap_get(&sc->seen, dev, ino);
	if (hit) {
		if (*hit == NO_ITEM)
			return 0; /* an alias of a folder with no skill */
		return scan_diag(sc, "alias", sc->path.ptr,
		                 "same folder as %s; listed once",
		                 sc->items[*hit].e.dir);
	}

	if (sc->path.len + sizeof("/SKILL.md") > PATH_MAX) {
		size_t before = sc->nitems;

		error = add_too_long(sc, ri, folder);
		if (error < 0)
			return error;
		if (sc->nitems > before)
			item = (uint32_t)before;
		goto record;
	}

	l = sc->loaded ? &sc->loaded[ci] : NULL;
	if (l && (l->kind != LOAD_NONE || l->error)) {
		it = &sc->items[sc->base + ci];
	} else {
		l = &now;
		it = &tmp;
		/* the folder's identity as load_batch() sees it */
		load_folder(sc, ri, folder, c->link ? dev : sc->root_dev,
		            c->link ? ino : c->ino, sc->path.ptr, sc->path.len,
		            &sc->ix->strings, it, l);
	}
	if (l->error < 0)
		return l->error;
	switch (l->kind) {
	case LOAD_REMOVED:
		return scan_diag(sc, "removed", sc->path.ptr,
		                 "removed during the scan; skipped");
	case LOAD_UNREADABLE:
		return scan_diag(sc, "unreadable", sc->path.ptr, "%s",
		                 l->message);
	case LOAD_ITEM:
		/*
		 * Append it. A preloaded entry sits at items[base + ci],
		 * at or after the end of the list (each earlier candidate
		 * added one entry at most), so copy it out first.
		 */
		tmp = *it;
		it = new_item(sc);
		if (!it)
			return SKIT_ENOMEM;
		*it = tmp;
		item = (uint32_t)(sc->nitems - 1);
		cache_note(sc, ri, item, l);
		if (l->unsafe) {
			error = scan_diag(sc, "unsafe-folder", sc->path.ptr,
			                  "skill folder %s; others can change "
			                  "what the agent runs",
			                  l->unsafe);
			if (error < 0)
				return error;
		}
		break;
	default:
		break; /* not a skill */
	}
record:
	/* later links to this folder are aliases */
	error = skitx_idmap_put(&sc->seen, dev, ino, item, NULL);
	return error < 0 ? error : 0;
}

/* Load candidates [begin, end) of the root being loaded (a thread). */
static void load_batch(void *payload, size_t worker, size_t begin, size_t end)
{
	struct scan *sc = payload;
	struct loader *w = &sc->loaders[worker];
	const char *rpath = sc->reg->roots[sc->ri].path;

	for (size_t i = begin; i < end; i++) {
		const struct cand *c = &sc->cands[i];
		struct loaded *l = &sc->loaded[i];

		l->kind = LOAD_NONE;
		l->error = 0;
		/*
		 * Links are followed only after the merge has checked where
		 * they lead; paths too long to open are the merge's too.
		 */
		if (c->link ||
		    atomic_load_explicit(&sc->stop, memory_order_relaxed))
			continue;
		if (folder_path(&w->path, rpath, c->name) < 0) {
			l->error = SKIT_ENOMEM;
		} else if (w->path.len + sizeof("/SKILL.md") <= PATH_MAX) {
			load_folder(sc, sc->ri, c->name, sc->root_dev, c->ino,
			            w->path.ptr, w->path.len, &w->strings,
			            &sc->items[sc->base + i], l);
		}
		if (l->error < 0)
			atomic_store(&sc->stop, true);
	}
}

/*
 * Load the candidates of root `ri` on a few threads, each into its own
 * slot: the outcome in loaded[i], the entry in items[base + i], its
 * strings in the thread's arena. Folders are read and parsed in parallel;
 * what depends on order (aliases, loops, diagnostics) is left to the merge
 * in scan_folder(), which visits the candidates in order as the sequential
 * scan does, so the result is the same byte for byte. Returns 0 with
 * sc->loaded NULL when the root is too small to be worth it.
 */
static int load_root(struct scan *sc, size_t ri)
{
	size_t n = sc->ncands, want, batch;

	sc->loaded = NULL;
	if (sc->nthreads < 2 || !n || (!sc->reg->threads && n < PARALLEL_MIN))
		return 0;
	if (sc->loaded_alloc < n) {
		struct loaded *l;

		if (n > SIZE_MAX / sizeof(*l))
			return SKIT_ENOMEM;
		l = skitx_realloc(sc->loaded_buf, n * sizeof(*l));
		if (!l)
			return SKIT_ENOMEM;
		sc->loaded_buf = l;
		sc->loaded_alloc = n;
	}
	/* room for an entry per candidate: the merge never reallocates */
	if (skitx_add_overflow(sc->nitems, n, &want) || want > UINT32_MAX - 1 ||
	    want > SIZE_MAX / sizeof(*sc->items))
		return SKIT_ENOMEM;
	if (sc->items_alloc < want) {
		struct skit__item *items;

		items = skitx_realloc(sc->items, want * sizeof(*items));
		if (!items)
			return SKIT_ENOMEM;
		sc->items = items;
		sc->items_alloc = want;
	}
	sc->ri = ri;
	sc->base = sc->nitems;
	sc->loaded = sc->loaded_buf;
	atomic_store(&sc->stop, false);
	/* a few batches a thread, so a slow one does not hold up the rest */
	batch = n / (sc->nthreads * 4);
	batch = batch < 8 ? 8 : batch > PARALLEL_BATCH ? PARALLEL_BATCH : batch;
	skitx_parallel_for(n, batch, sc->nthreads, load_batch, sc);
	for (size_t w = 0; w < sc->nthreads; w++)
		arena_splice(&sc->ix->strings, &sc->loaders[w].strings);
	return 0;
}

static int scan_root(struct scan *sc, size_t ri)
{
	bool truncated;
	struct stat st;
	int error, dino_ok = 0; /* unknown; 1: trust d_ino; -1: stat */

	if (sc->fds[ri] < 0 || fstat(sc->fds[ri], &st) < 0)
		return 0;
	sc->root_dev = (uint64_t)st.st_dev;
	error = list_root(sc, ri, &truncated);
	if (error < 0)
		return error;
	if (truncated) {
		error = scan_diag(sc, "truncated", sc->reg->roots[ri].path,
		                  "more than %zu folders; the rest were not "
		                  "scanned",
		                  max_per_root(sc->reg));
		if (error < 0)
			return error;
	}
	error = load_root(sc, ri);
	for (size_t i = 0; !error && i < sc->ncands; i++)
		error = scan_folder(sc, ri, i, st.st_dev, &dino_ok);
	sc->loaded = NULL;
	return error < 0 ? error : 0;
}

/* Name, then root, then the canonical spelling, then folder bytes. */
static int item_cmp(const void *a, const void *b)
{
	const struct skit__item *x = *(const struct skit__item *const *)a;
	const struct skit__item *y = *(const struct skit__item *const *)b;
	int c = strcmp(x->e.name, y->e.name);

	if (c)
		return c;
	if (x->e.root_index != y->e.root_index)
		return x->e.root_index < y->e.root_index ? -1 : 1;
	if (x->canonical != y->canonical)
		return x->canonical ? -1 : 1;
	return strcmp(x->folder, y->folder);
}

/*
 * Within each run of equal names (all sorted by name, then root): the
 * first loadable entry wins; a loadable one in a lower root is shadowed;
 * one in the winner's own root can only come from NFKC (`ｆｏｏ/` and
 * `foo/`), and is skipped with a diagnostic. Skipped entries never shadow
 * anything: a broken copy does not hide a working one.
 */
static int resolve_names(struct scan *sc)
{
	struct skit__index *ix = sc->ix;
	size_t i = 0, j, w;
	int error;

	while (i < ix->nall) {
		for (j = i + 1; j < ix->nall &&
		                !strcmp(ix->all[j].e.name, ix->all[i].e.name);
		     j++)
			;
		for (w = i; w < j && ix->all[w].e.state == SKIT_ENTRY_SKIPPED;
		     w++)
			;
		for (size_t k = w + 1; k < j; k++) {
			skit_entry *e = &ix->all[k].e, *win = &ix->all[w].e;

			if (e->state == SKIT_ENTRY_SKIPPED)
				continue;
			if (e->root_index != win->root_index) {
				e->state = SKIT_ENTRY_SHADOWED;
				e->reason = win->source;
				continue;
			}
			e->state = SKIT_ENTRY_SKIPPED;
			e->reason = skit__arena_printf(
			        &ix->strings,
			        "name '%s' is already taken by %s in the "
			        "same root (NFKC collision)",
			        e->name, win->dir);
			if (!e->reason)
				return SKIT_ENOMEM;
			error = scan_diag(sc, "nfkc-collision", e->dir,
			                  "gives the same name '%s' as %s "
			                  "after NFKC normalisation; %s is "
			                  "kept",
			                  e->name, win->dir, win->dir);
			if (error < 0)
				return error;
		}
		i = j;
	}
	return 0;
}

/*
 * A name that is not the first of its fold key, or the first: check it
 * against the names before it for look-alikes (UTS #39 skeletons, ICU)
 * and for mixed scripts. `рdf-prосessing` (Cyrillic р, о, с) and
 * `pdf-processing` are both loadable, and a user reading a listing, or
 * a model reading the index, cannot tell them apart.
 */
static int report_lookalike(struct scan *sc, struct skit__confusable *cf,
                            struct skitx_strmap *skels, struct skitx_buf *b,
                            const char *key, size_t i)
{
	struct skit__index *ix = sc->ix;
	const skit_entry *e = &ix->all[i].e, *first;
	uint32_t found;
	char *skel;
	int error;

	if (skit__confusable_mixed_script(cf, e->name)) {
		error = skit__confusable_scripts(e->name, b);
		if (error < 0)
			return error;
		error = scan_diag(sc, "mixed-script", e->dir,
		                  "'%s' (%s) mixes scripts (%s): it may pose "
		                  "as another name",
		                  e->name, e->source, b->ptr);
		if (error < 0)
			return error;
	}
	error = skit__confusable_skeleton(cf, key, b);
	if (error == SKIT_EENCODING)
		return 0; /* not UTF-8: no look-alike to speak of */
	if (error < 0)
		return error;
	skel = skit__arena_strndup(&sc->tmp, b->ptr, b->len);
	if (!skel)
		return SKIT_ENOMEM;
	error = skitx_strmap_put(skels, skel, b->len, (uint32_t)i, &found);
	if (error != 0)
		return error < 0 ? error : 0;
	first = &ix->all[found].e;
	return scan_diag(sc, "name-confusable", e->dir,
	                 "'%s' (%s) looks like '%s' (%s, %s): confusable "
	                 "names (Unicode UTS #39)",
	                 e->name, e->source, first->name, first->source,
	                 first->dir);
}

/*
 * Names that differ but fold to the same key (case, or compatibility
 * forms): `Foo` and `foo`, `straße` and `strasse`. Each distinct name is
 * reported once against the first name with its key. Then names whose
 * keys differ but look alike (report_lookalike()). No entry changes
 * state: distinct names do not shadow each other.
 */
static int report_collisions(struct scan *sc)
{
	struct skit__index *ix = sc->ix;
	struct skitx_strmap keys = SKITX_STRMAP_INIT;
	struct skitx_strmap skels = SKITX_STRMAP_INIT;
	struct skitx_buf b = SKITX_BUF_INIT;
	struct skit__confusable cf;
	bool have_cf;
	int error = 0;

	have_cf = ix->nall && skit__confusable_open(&cf) == 0;
	for (size_t i = 0; i < ix->nall; i++) {
		const skit_entry *e = &ix->all[i].e, *first;
		const char *key;
		uint32_t found;

		if (i && !strcmp(ix->all[i - 1].e.name, e->name))
			continue;
		key = fold_key(&sc->tmp, e->name);
		if (!key) {
			error = SKIT_ENOMEM;
			break;
		}
		error = skitx_strmap_put(&keys, key, strlen(key), (uint32_t)i,
		                         &found);
		if (error < 0)
			break;
		if (error == 1) {
			error = have_cf ? report_lookalike(sc, &cf, &skels, &b,
			                                   key, i)
			                : 0;
			if (error < 0)
				break;
			continue;
		}
		first = &ix->all[found].e;
		error = scan_diag(sc, "name-collision", e->dir,
		                  "'%s' (%s) and '%s' (%s, %s) differ only in "
		                  "letter case or Unicode form",
		                  e->name, e->source, first->name,
		                  first->source, first->dir);
		if (error < 0)
			break;
	}
	if (have_cf)
		skit__confusable_close(&cf);
	skitx_buf_release(&b);
	skitx_strmap_release(&skels);
	skitx_strmap_release(&keys);
	return error < 0 ? error : 0;
}

/* Order the entries, settle shadowing, and build the active list. */
static int finish(struct scan *sc)
{
	struct skit__index *ix = sc->ix;
	struct skit__item **order = NULL;
	size_t *from = NULL, *start = NULL;
	int error = SKIT_ENOMEM;

	if (sc->nitems) {
		order = skitx_malloc(sc->nitems * sizeof(*order));
		from = skitx_malloc(sc->nitems * sizeof(*from));
		if (!order || !from)
			goto out;
		for (size_t i = 0; i < sc->nitems; i++)
			order[i] = &sc->items[i];
		qsort(order, sc->nitems, sizeof(*order), item_cmp);
		for (size_t i = 0; i < sc->nitems; i++)
			from[i] = (size_t)(order[i] - sc->items);
		skitx_free(order);
		order = NULL;
		/*
		 * Permute in place (slot i takes the item from[i]), following
		 * each cycle once: no second copy of 100k entries.
		 */
		for (size_t i = 0; i < sc->nitems; i++) {
			struct skit__item tmp;
			size_t j = i, k;

			if (from[i] == i)
				continue;
			tmp = sc->items[i];
			for (;;) {
				k = from[j];
				from[j] = j;
				if (k == i) {
					sc->items[j] = tmp;
					break;
				}
				sc->items[j] = sc->items[k];
				j = k;
			}
		}
		ix->all = sc->items;
		ix->nall = sc->nitems;
		if (sc->items_alloc > sc->nitems) {
			/* give back the growth slack; keep it if that fails */
			struct skit__item *fit = skitx_realloc(
			        ix->all, sc->nitems * sizeof(*fit));

			if (fit)
				ix->all = fit;
		}
		sc->items = NULL;
		sc->nitems = sc->items_alloc = 0;
	}
	error = resolve_names(sc);
	if (error < 0)
		goto out;
	error = sc->reg->diags_unread ? 0 : report_collisions(sc);
	if (error < 0)
		goto out;

	/* A counting sort by root keeps the name order inside each root. */
	error = SKIT_ENOMEM;
	start = skitx_calloc(ix->nroots + 1, sizeof(*start));
	if (!start)
		goto out;
	for (size_t i = 0; i < ix->nall; i++)
		if (ix->all[i].e.state == SKIT_ENTRY_ACTIVE)
			ix->roots[ix->all[i].e.root_index].skills++;
	for (size_t r = 0; r < ix->nroots; r++)
		start[r + 1] = start[r] + ix->roots[r].skills;
	ix->nactive = start[ix->nroots];
	if (ix->nactive) {
		ix->active = skitx_malloc(ix->nactive * sizeof(*ix->active));
		if (!ix->active)
			goto out;
	}
	for (size_t i = 0; i < ix->nall; i++)
		if (ix->all[i].e.state == SKIT_ENTRY_ACTIVE)
			ix->active[start[ix->all[i].e.root_index]++] =
			        &ix->all[i].e;
	error = 0;
out:
	skitx_free(order);
	skitx_free(from);
	skitx_free(start);
	return error;
}

/* SKIT_NO_CACHE set to anything but "" or "0" turns the cache off. */
static bool cache_disabled(const skit_registry *reg)
{
	const char *v = getenv("SKIT_NO_CACHE");

	return reg->no_cache || (v && *v && strcmp(v, "0"));
}

/*
 * Read the cache of the roots (one file for them all). Nothing here can
 * fail the scan: without memory or a cache folder, there is no cache.
 */
static void cache_open(struct scan *sc)
{
	skit_registry *reg = sc->reg;
	const char **paths = NULL;
	struct timespec now;
	char *home;

	if (!reg->nroots || cache_disabled(reg) ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return;
	sc->racy_after = (int64_t)now.tv_sec - RACY_SECONDS;
	home = skit__cache_home();
	if (!home)
		return;
	sc->cache = skitx_calloc(1, sizeof(*sc->cache));
	sc->chits = skitx_calloc(reg->nroots + 1, sizeof(*sc->chits));
	sc->cnew = skitx_calloc(reg->nroots + 1, sizeof(*sc->cnew));
	paths = skitx_calloc(reg->nroots, sizeof(*paths));
	if (!sc->cache || !sc->chits || !sc->cnew || !paths) {
		skitx_free(sc->cache);
		sc->cache = NULL;
		goto out;
	}
	for (size_t i = 0; i < reg->nroots; i++)
		paths[i] = reg->roots[i].path;
	skit__cache_open(sc->cache, home, paths, reg->nroots);
out:
	skitx_free(paths);
	skitx_free(home);
}

/*
 * Write the cache back when something changed: an entry loaded that can
 * be cached, or a record not used (a skill gone or changed into something
 * that is not cached). Runs before finish(), while items are in scan order
 * and still hold their state as loaded. Failures are ignored: the cache
 * is an optimisation, never a reason to fail.
 */
static void cache_save(struct scan *sc)
{
	struct skit__cache_stats *stats = &sc->reg->cache_stats;
	struct skit__cache_writer w;
	size_t hits = 0, added = 0;
	int put = 0;

	if (!sc->cache || sc->cache_lost)
		return;
	for (size_t r = 0; r < sc->reg->nroots; r++) {
		hits += sc->chits[r];
		added += sc->cnew[r];
	}
	stats->hits = hits;
	if (!sc->cache->file || (!added && hits == sc->cache->nrecs))
		return;
	if (skit__cache_writer_open(&w, sc->cache) < 0)
		return;
	for (size_t i = 0; put >= 0 && i < sc->ncitems; i++) {
		const struct cache_item *ci = &sc->citems[i];
		const struct skit__item *it = &sc->items[ci->item];
		const struct skit__cache_key *key;
		struct skit__cache_rec rec;

		if (ci->ref & CACHE_MISS) {
			key = &sc->ckeys[ci->ref & ~CACHE_MISS];
		} else {
			skit__cache_get(sc->cache, ci->ref, &rec);
			key = &rec.key;
		}
		put = skit__cache_writer_put(&w, ci->root, key, &it->e,
		                             it->folder, it->name_raw);
	}
	stats->stored += w.nrecs;
	if (skit__cache_writer_close(&w, sc->cache, true) == 0)
		stats->written++;
	else
		stats->stored = 0;
}

/*
 * Before finish() builds the sorted views: free what only the walk over
 * the roots needed, so the peak memory of a scan is not the two added
 * (at 100k skills that is tens of MB). The cache's bytes go to the index:
 * the entries taken from it point into them.
 */
static void scan_trim(struct scan *sc)
{
	skitx_free(sc->loaded_buf);
	sc->loaded_buf = NULL;
	sc->loaded_alloc = 0;
	skitx_free(sc->cands);
	sc->cands = NULL;
	sc->cands_alloc = sc->ncands = 0;
	skitx_buf_release(&sc->names);
	skitx_idmap_release(&sc->seen);
	skitx_free(sc->citems);
	sc->citems = NULL;
	sc->citems_alloc = sc->ncitems = 0;
	skitx_free(sc->ckeys);
	sc->ckeys = NULL;
	sc->ckeys_alloc = sc->nckeys = 0;
	if (sc->cache) {
		size_t hits = 0;
		char *bytes = skit__cache_take_bytes(sc->cache);

		for (size_t r = 0; r < sc->reg->nroots; r++)
			hits += sc->chits[r];
		if (hits)
			sc->ix->cache_bytes = bytes;
		else
			skitx_free(bytes);
	}
}

int skit_registry_scan(skit_registry *reg, skit_error *err)
{
	struct scan sc;
	int error = SKIT_ENOMEM;

	assert(reg);
	memset(&sc, 0, sizeof(sc));
	sc.euid = geteuid();
	atomic_init(&sc.stop, false);
	sc.reg = reg;
	sc.opts = (skit_skill_options)SKIT_SKILL_OPTIONS_INIT;
	sc.opts.flags = SKIT_SKILL_LENIENT;
	skitx_buf_init(&sc.names, 0);
	skitx_buf_init(&sc.path, 0);

	sc.ix = skitx_calloc(1, sizeof(*sc.ix));
	if (!sc.ix)
		goto out;
	sc.ix->nroots = reg->nroots;
	sc.ix->roots = skitx_calloc(reg->nroots + 1, sizeof(*sc.ix->roots));
	sc.fds = skitx_calloc(reg->nroots + 1, sizeof(*sc.fds));
	if (!sc.ix->roots || !sc.fds)
		goto out;
	/* config findings come first, then the scan's own */
	for (size_t i = 0; i < reg->config_diags.len; i++) {
		error = diags_push(&sc.ix->diags, &reg->config_diags.items[i]);
		if (error < 0)
			goto out;
	}

	/*
	 * Folders are loaded on a few threads unless a test watches each
	 * folder as it goes (the hook), or the embedder's allocator, which
	 * is not promised to be thread-safe, is in use.
	 */
	sc.nthreads = 1;
	if (!reg->hook && skitx_alloc_is_default())
		sc.nthreads =
		        reg->threads ? reg->threads : skitx_parallel_threads();
	if (sc.nthreads > SKITX_PARALLEL_MAX)
		sc.nthreads = SKITX_PARALLEL_MAX;
	if (sc.nthreads > 1) {
		sc.loaders = skitx_calloc(sc.nthreads, sizeof(*sc.loaders));
		if (!sc.loaders)
			goto out;
		for (size_t i = 0; i < sc.nthreads; i++)
			skitx_buf_init(&sc.loaders[i].path, 0);
	}

	memset(&reg->cache_stats, 0, sizeof(reg->cache_stats));
	error = open_roots(&sc);
	if (!error)
		cache_open(&sc);
	for (size_t i = 0; !error && i < reg->nroots; i++)
		error = scan_root(&sc, i);
	if (!error) {
		cache_save(&sc);
		scan_trim(&sc);
		error = finish(&sc);
	}
	if (error < 0)
		goto out;

	/* Complete: only now does the new index replace the old one. */
	index_free(reg->index);
	reg->index = sc.ix;
	sc.ix = NULL;
out:
	if (sc.fds)
		for (size_t i = 0; i < reg->nroots; i++)
			if (sc.fds[i] >= 0)
				close(sc.fds[i]);
	skitx_free(sc.fds);
	index_free(sc.ix);
	skitx_free(sc.items);
	skitx_free(sc.cands);
	skitx_idmap_release(&sc.seen);
	skitx_idmap_release(&sc.fences);
	skitx_buf_release(&sc.names);
	skitx_buf_release(&sc.path);
	skit__arena_release(&sc.tmp);
	for (size_t i = 0; sc.loaders && i < sc.nthreads; i++) {
		skit__arena_release(&sc.loaders[i].strings);
		skitx_buf_release(&sc.loaders[i].path);
	}
	skitx_free(sc.loaders);
	skitx_free(sc.loaded_buf);
	if (sc.cache) {
		skit__cache_release(sc.cache);
		skitx_free(sc.cache);
	}
	skitx_free(sc.chits);
	skitx_free(sc.cnew);
	skitx_free(sc.citems);
	skitx_free(sc.ckeys);
	if (error < 0)
		return error == SKIT_ENOMEM ? skit__error_oom(err)
		                            : skit__error_code(err, error);
	return 0;
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

/* ---- to-prompt's items ------------------------------------------------ */

/*
 * skit_registry_prompt_items() loads folders it is given, not roots, but
 * an unchanged skill need not be parsed again when a scan of its parent
 * folder (as a root) cached it: the folders are grouped by parent, each
 * parent's cache is read once, and a folder whose record still matches
 * its key (the same check a scan makes) is served from it. Everything
 * else is loaded exactly as `skit to-prompt` always did. Folders are
 * handled on a few threads; each writes only its own slot.
 */

/* Parents whose cache is read, at most (each holds a descriptor). */
#define PROMPT_MAX_PARENTS 256

/* A parent folder of some of the given folders, and its cache. */
struct pparent {
	char *path;     /* absolute */
	int fd;         /* -1: not open, so no cache */
	uint64_t dev;   /* its st_dev: the identity a scan gives a folder */
	uint64_t nlink; /* its st_nlink: 2 + its subfolders on most file systems
	                 */
	struct skit__cache cache;
	size_t given; /* how many of the given folders are in it */
	/*
	 * When many of them are: what readdir() says of each cached folder
	 * (by record index; type 0: not listed, so gone), read once, as a
	 * scan does, instead of a stat() per folder. NULL: stat each.
	 */
	struct pdent {
		uint64_t ino;
		unsigned char type;
	} * dents;
};

/* What became of one given folder. */
struct pslot {
	int error;       /* < 0: it failed, and `err` says why */
	uint32_t parent; /* into parents, or NO_ITEM: no cache */
	uint32_t folder; /* offset of the last component in the path */
	bool hit;        /* served from the cache */
	bool miss;       /* not from the cache: to load */
	skit_error *err; /* NULL when out of memory (or no failure) */
};

struct pload {
	const char *const *dirs;
	size_t n;
	skit_prompt_item *items;
	struct pslot *slots;
	struct pparent *parents;
	atomic_size_t first_failed; /* lowest index that failed; n: none */
};

/*
 * An absolute path spelled as skill.c would spell it (no empty, "." or
 * ".." component, no trailing slash), with a last component under the
 * root: only such a path names its folder the way a scan of its parent
 * does, so only such a path is looked up.
 */
static bool plain_abs_path(const char *p)
{
	if (p[0] != '/' || !p[1])
		return false;
	for (const char *c = p + 1;;) {
		const char *e = strchr(c, '/');
		size_t len = e ? (size_t)(e - c) : strlen(c);

		if (!len ||
		    (c[0] == '.' && (len == 1 || (len == 2 && c[1] == '.'))))
			return false;
		if (!e)
			return true;
		c = e + 1;
	}
}

/* Open the parent folder (`len` bytes at `path`) and read its cache. */
static void pparent_open(struct pparent *pp, const char *home, const char *path,
                         size_t len)
{
	struct stat st;
	char *parent;

	memset(pp, 0, sizeof(*pp));
	pp->fd = -1;
	parent = skitx_strndup(path, len);
	if (!parent)
		return;
	pp->path = parent;
	pp->fd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pp->fd >= 0 && fstat(pp->fd, &st) < 0) {
		close(pp->fd);
		pp->fd = -1;
	}
	if (pp->fd >= 0) {
		pp->dev = (uint64_t)st.st_dev;
		pp->nlink = (uint64_t)st.st_nlink;
		skit__cache_open(&pp->cache, home, (const char *const *)&parent,
		                 1);
	}
}

/*
 * Read `pp`'s listing into pp->dents, for the folders its cache has
 * records of. On any failure pp->dents stays NULL (stat each folder).
 */
static void pparent_list(struct pparent *pp)
{
	struct dirent *de;
	DIR *dir;
	long rec;
	int fd;

	pp->dents = skitx_calloc(pp->cache.nrecs, sizeof(*pp->dents));
	fd = pp->dents ? dup(pp->fd) : -1;
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		skitx_free(pp->dents);
		pp->dents = NULL;
		return;
	}
	rewinddir(dir);
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de)
			break;
		rec = skit__cache_lookup(&pp->cache, 0, de->d_name);
		if (rec < 0)
			continue;
		pp->dents[rec].ino = (uint64_t)de->d_ino;
		/* DT_UNKNOWN (0) is as good as unlisted: stat it */
		pp->dents[rec].type = de->d_type;
	}
	if (errno) {
		skitx_free(pp->dents); /* a partial listing: stat each */
		pp->dents = NULL;
	}
	closedir(dir);
}

/*
 * Group the folders by parent and read each parent's cache (sequential,
 * before the loads). Nothing here fails: a folder whose parent could not
 * be opened, or one past the cap, is simply loaded.
 */
static size_t prompt_parents(struct pload *pl, const skit_registry *reg,
                             struct skitx_strmap *map)
{
	size_t nparents = 0;
	char *home = NULL;

	for (size_t i = 0; i < pl->n; i++)
		pl->slots[i].parent = NO_ITEM;
	if (cache_disabled(reg))
		return 0;
	home = skit__cache_home();
	pl->parents =
	        home ? skitx_calloc(PROMPT_MAX_PARENTS, sizeof(*pl->parents))
	             : NULL;
	for (size_t i = 0; pl->parents && i < pl->n; i++) {
		const char *dir = pl->dirs[i], *slash;
		size_t plen;
		uint32_t found;
		int put;

		if (!plain_abs_path(dir))
			continue;
		slash = strrchr(dir, '/');
		plen = slash == dir ? 1 : (size_t)(slash - dir); /* "/" */
		put = skitx_strmap_put(map, dir, plen, (uint32_t)nparents,
		                       &found);
		if (put < 0)
			break;
		if (put == 1) {
			if (nparents == PROMPT_MAX_PARENTS)
				continue; /* (the map's value is out of range)
				           */
			pparent_open(&pl->parents[nparents], home, dir, plen);
			found = (uint32_t)nparents++;
		}
		if (found < nparents) {
			pl->slots[i].parent = found;
			pl->slots[i].folder = (uint32_t)(slash + 1 - dir);
			pl->parents[found].given++;
		}
	}
	/*
	 * A listing costs a fraction of a stat() per folder listed: worth
	 * it when a good share of the parent's folders were given (the
	 * usual `skit to-prompt root/<glob>`).
	 */
	for (size_t p = 0; p < nparents; p++) {
		struct pparent *pp = &pl->parents[p];

		if (pp->fd >= 0 && pp->cache.nrecs &&
		    pp->given >= pp->cache.nrecs / 4)
			pparent_list(pp);
	}
	skitx_free(home);
	return nparents;
}

/*
 * Fill `item` from its three strings in one allocation (name, then
 * description, then location, each NUL-terminated; `item->name` owns the
 * block, as skit_registry_prompt_items_free() expects). The location is
 * `dir` with "/" and `file` appended (file NULL: `dir` alone).
 */
static int item_fill(skit_prompt_item *item, const char *name, size_t nlen,
                     const char *desc, size_t dlen, const char *dir,
                     const char *file)
{
	size_t rlen = strlen(dir), flen = file ? strlen(file) + 1 : 0, size;
	char *p;

	if (skitx_add_overflow(nlen, dlen, &size) ||
	    skitx_add_overflow(size, rlen, &size) ||
	    skitx_add_overflow(size, flen, &size) ||
	    skitx_add_overflow(size, 3, &size))
		return SKIT_ENOMEM;
	p = skitx_malloc(size);
	if (!p)
		return SKIT_ENOMEM;
	item->name = p;
	memcpy(p, name, nlen);
	p += nlen;
	*p++ = '\0';
	item->description = p;
	memcpy(p, desc, dlen);
	p += dlen;
	*p++ = '\0';
	item->location = p;
	memcpy(p, dir, rlen);
	p += rlen;
	if (file) {
		*p++ = '/';
		memcpy(p, file, flen - 1);
		p += flen - 1;
	}
	*p = '\0';
	return 0;
}

/*
 * Folder i from its parent's cache: a record for its name, active, whose
 * key matches the folder's identity and SKILL.md's stat() now (one
 * fstatat() of SKILL.md, and of the folder unless the parent was listed;
 * nothing is opened or read). False: load it.
 */
static bool prompt_cached(struct pload *pl, size_t i)
{
	struct pslot *sl = &pl->slots[i];
	skit_prompt_item *item = &pl->items[i];
	const char *dir = pl->dirs[i], *folder, *name;
	struct skit__cache_rec r;
	const struct skit__cache_rec *rec = &r;
	const struct pparent *pp;
	const struct pdent *dent;
	struct skit__cache_key key;
	struct stat st;
	uint64_t dev, ino;
	size_t len;
	long ri;

	if (sl->parent == NO_ITEM)
		return false;
	pp = &pl->parents[sl->parent];
	folder = dir + sl->folder;
	ri = skit__cache_lookup(&pp->cache, 0, folder);
	if (ri < 0)
		return false;
	skit__cache_get(&pp->cache, (size_t)ri, &r);
	if (rec->state != SKIT_ENTRY_ACTIVE)
		return false; /* a skipped skill: load it for its message */
	/*
	 * The folder's identity as a scan records it: a real folder's is
	 * the parent's st_dev and readdir()'s d_ino; a link's, the stat()
	 * of its target.
	 */
	dent = pp->dents ? &pp->dents[ri] : NULL;
	if (dent && dent->type == DT_DIR) {
		dev = pp->dev;
		ino = dent->ino;
	} else {
		if (dent && dent->type != DT_LNK && dent->type != DT_UNKNOWN)
			return false; /* gone, or not a folder */
		if (fstatat(pp->fd, folder, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return false;
		dev = pp->dev;
		if (S_ISLNK(st.st_mode)) {
			if (fstatat(pp->fd, folder, &st, 0) < 0)
				return false;
			dev = (uint64_t)st.st_dev;
		}
		if (!S_ISDIR(st.st_mode))
			return false;
		ino = (uint64_t)st.st_ino;
	}
	if (!skit__cache_key_read(&key, pp->fd, folder, dev, ino) ||
	    !skit__cache_key_eq(&rec->key, &key))
		return false;

	name = rec->str[SKIT__CACHE_NAME_RAW] ? rec->str[SKIT__CACHE_NAME_RAW]
	                                      : rec->str[SKIT__CACHE_NAME];
	len = rec->str[SKIT__CACHE_NAME_RAW] ? rec->len[SKIT__CACHE_NAME_RAW]
	                                     : rec->len[SKIT__CACHE_NAME];
	/* records are never of a lowercase skill.md; `dir` is plain */
	if (item_fill(item, name, len, rec->str[SKIT__CACHE_DESCRIPTION],
	              rec->len[SKIT__CACHE_DESCRIPTION], dir, "SKILL.md") < 0)
		sl->error = SKIT_ENOMEM;
	sl->hit = true;
	return true;
}

/* Record that folder i failed (`err` may be NULL: out of memory). */
static void prompt_fail(struct pload *pl, size_t i, int error,
                        const skit_error *err)
{
	struct pslot *sl = &pl->slots[i];
	size_t cur = atomic_load(&pl->first_failed);

	sl->error = error;
	if (err && error != SKIT_ENOMEM) {
		sl->err = skitx_malloc(sizeof(*sl->err));
		if (sl->err)
			*sl->err = *err;
		else
			sl->error = SKIT_ENOMEM;
	}
	/* later folders need not be loaded: only the first failure counts */
	while (i < cur &&
	       !atomic_compare_exchange_weak(&pl->first_failed, &cur, i))
		;
}

/*
 * Folder i as `skit to-prompt` loads it: skit_skill_load() with the
 * loading rules; a folder they refuse is accepted when the reference's
 * checks (skit_skill_check_properties()) pass, and else fails with their
 * message.
 */
static void prompt_load(struct pload *pl, size_t i)
{
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	skit_prompt_item *item = &pl->items[i];
	skit_error err = { 0 };
	skit_skill *s = NULL;
	const char *base, *name, *desc;
	size_t blen;
	char *loc;
	int error;

	opts.flags = SKIT_SKILL_LENIENT;
	error = skit_skill_load(&s, pl->dirs[i], &opts, &err);
	/*
	 * The loading rules: what the reference accepts is printed as it
	 * prints it, and what only the loader accepts (flow collections, a
	 * missing name...) is printed too; the reference's message
	 * explains a folder neither accepts.
	 */
	if (!error && !skit_skill_valid(s))
		error = skit_skill_check_properties(s, &err);
	if (error < 0) {
		skit_skill_free(s);
		prompt_fail(pl, i, error, &err);
		return;
	}
	base = skitx_path_name(skit_skill_file(s), &blen);
	loc = skitx_path_join(skit_skill_dir(s), base);
	name = skit_skill_name_raw(s) ? skit_skill_name_raw(s)
	                              : skit_skill_dir_name(s);
	desc = skit_skill_description(s);
	if (!loc || item_fill(item, name, strlen(name), desc, strlen(desc), loc,
	                      NULL) < 0)
		prompt_fail(pl, i, SKIT_ENOMEM, NULL);
	skitx_free(loc);
	skit_skill_free(s);
}

/* Folders [begin, end) from the cache, where it holds (a thread). */
static void prompt_hit_batch(void *payload, size_t worker, size_t begin,
                             size_t end)
{
	struct pload *pl = payload;

	(void)worker;
	for (size_t i = begin; i < end; i++) {
		if (!prompt_cached(pl, i))
			pl->slots[i].miss = true;
		else if (pl->slots[i].error < 0)
			prompt_fail(pl, i, pl->slots[i].error, NULL);
	}
}

/* The folders [begin, end) still to load (a thread). */
static void prompt_load_batch(void *payload, size_t worker, size_t begin,
                              size_t end)
{
	struct pload *pl = payload;

	(void)worker;
	for (size_t i = begin; i < end; i++) {
		if (i > atomic_load(&pl->first_failed))
			return;
		if (pl->slots[i].miss)
			prompt_load(pl, i);
	}
}

/*
 * Whether the parent `pp` holds at most `limit` folders (and links),
 * counted by one readdir(); false as soon as it holds more. Where the
 * file system counts subfolders in the link count (ext4, xfs, tmpfs: 2 +
 * subfolders), that count decides without the listing: only links go
 * uncounted, and a folder of many links is then scanned, which costs
 * time, never a different output.
 */
static bool few_folders(const struct pparent *pp, size_t limit)
{
	struct dirent *de;
	size_t n = 0;
	DIR *dir;
	int fd;

	if (pp->nlink > 2)
		return pp->nlink - 2 <= limit;
	fd = dup(pp->fd);

	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	rewinddir(dir);
	while (n <= limit && (de = readdir(dir)) != NULL)
		if (de->d_name[0] != '.' &&
		    (de->d_type == DT_DIR || de->d_type == DT_LNK ||
		     de->d_type == DT_UNKNOWN))
			n++;
	closedir(dir);
	return n <= limit;
}

/*
 * The misses of parent `p` from a scan of that parent as a root, which
 * loads what changed and writes its cache, as `skit list --root PARENT`
 * does: the next run finds every record. Only when the given folders are
 * at least a quarter of the parent's (scanning a big folder for a few of
 * its skills would cost more than it saves). A folder is served from the
 * scan only when its entry is active and not of a lowercase skill.md, the
 * cases a record serves; the rest stay misses, loaded as always.
 */
static void prompt_scan_parent(struct pload *pl, skit_registry *reg, size_t p,
                               size_t misses)
{
	struct skitx_strmap map = SKITX_STRMAP_INIT;
	const struct pparent *pp = &pl->parents[p];
	const struct skit__index *ix;
	skit_registry *tmp = NULL;

	if (pp->fd < 0 || !pp->path || !misses || pp->given > SIZE_MAX / 4 ||
	    !few_folders(pp, pp->given * 4))
		return;
	if (skit_registry_new(&tmp, NULL) < 0 ||
	    skit_registry_add_root(tmp, "parent", pp->path, NULL) < 0)
		goto out;
	tmp->threads = reg->threads;
	tmp->diags_unread = true;
	if (skit_registry_scan(tmp, NULL) < 0)
		goto out;
	reg->cache_stats.written += tmp->cache_stats.written;
	reg->cache_stats.stored += tmp->cache_stats.stored;
	ix = tmp->index;
	for (size_t k = 0; k < ix->nall; k++) {
		const struct skit__item *it = &ix->all[k];

		if (it->e.state == SKIT_ENTRY_ACTIVE &&
		    !(it->e.flags & SKIT_SKILL_LOWERCASE_FILE) &&
		    skitx_strmap_put(&map, it->folder, strlen(it->folder),
		                     (uint32_t)k, NULL) < 0)
			goto out; /* no memory: the rest is loaded */
	}
	for (size_t i = 0; i < pl->n; i++) {
		struct pslot *sl = &pl->slots[i];
		skit_prompt_item *item = &pl->items[i];
		const struct skit__item *it;
		const char *folder, *name;
		uint32_t *k;

		if (sl->parent != p || !sl->miss)
			continue;
		folder = pl->dirs[i] + sl->folder;
		k = skitx_strmap_get(&map, folder, strlen(folder));
		if (!k)
			continue;
		it = &ix->all[*k];
		name = it->name_raw ? it->name_raw : it->e.name;
		sl->miss = false;
		/* `dirs[i]` is plain (it has a parent) */
		if (item_fill(item, name, strlen(name), it->e.description,
		              strlen(it->e.description), pl->dirs[i],
		              "SKILL.md") < 0)
			prompt_fail(pl, i, SKIT_ENOMEM, NULL);
	}
out:
	skitx_strmap_release(&map);
	skit_registry_free(tmp);
}

int skit_registry_prompt_items(skit_prompt_item **out, skit_registry *reg,
                               const char *const *dirs, size_t n,
                               skit_error *err)
{
	struct skitx_strmap map = SKITX_STRMAP_INIT;
	struct pload pl;
	size_t nparents = 0, nthreads = 1, batch, failed;
	int error = 0;

	assert(out && reg && (dirs || !n));
	*out = NULL;
	memset(&pl, 0, sizeof(pl));
	pl.dirs = dirs;
	pl.n = n;
	atomic_init(&pl.first_failed, n);
	memset(&reg->cache_stats, 0, sizeof(reg->cache_stats));
	if (!n)
		return 0;
	pl.items = skitx_calloc(n, sizeof(*pl.items));
	pl.slots = skitx_calloc(n, sizeof(*pl.slots));
	if (!pl.items || !pl.slots) {
		error = skit__error_oom(err);
		goto out;
	}
	nparents = prompt_parents(&pl, reg, &map);

	/* threads as for a scan (an embedder's allocator: one) */
	if (skitx_alloc_is_default())
		nthreads = reg->threads        ? reg->threads
		           : n >= PARALLEL_MIN ? skitx_parallel_threads()
		                               : 1;
	if (nthreads > SKITX_PARALLEL_MAX)
		nthreads = SKITX_PARALLEL_MAX;
	batch = n / (nthreads * 4);
	batch = batch < 1 ? 1 : batch > PARALLEL_BATCH ? PARALLEL_BATCH : batch;
	/*
	 * First what the parents' caches hold; then each parent with misses
	 * may be scanned, which keeps its cache; then the rest is loaded.
	 */
	if (nparents)
		skitx_parallel_for(n, batch, nthreads, prompt_hit_batch, &pl);
	else
		for (size_t i = 0; i < n; i++)
			pl.slots[i].miss = true;
	for (size_t p = 0; p < nparents; p++) {
		size_t misses = 0;

		for (size_t i = 0; i < n; i++)
			misses += pl.slots[i].parent == p && pl.slots[i].miss;
		prompt_scan_parent(&pl, reg, p, misses);
	}
	skitx_parallel_for(n, batch, nthreads, prompt_load_batch, &pl);

	for (size_t i = 0; i < n; i++)
		reg->cache_stats.hits += pl.slots[i].hit && !pl.slots[i].error;
	failed = atomic_load(&pl.first_failed);
	if (failed < n) {
		const struct pslot *sl = &pl.slots[failed];

		if (sl->err && err)
			*err = *sl->err;
		else if (!sl->err)
			skit__error_oom(err);
		error = sl->error;
		goto out;
	}
	*out = pl.items;
	pl.items = NULL;
out:
	skit_registry_prompt_items_free(pl.items, n);
	for (size_t i = 0; pl.slots && i < n; i++)
		skitx_free(pl.slots[i].err);
	skitx_free(pl.slots);
	for (size_t i = 0; i < nparents; i++) {
		if (pl.parents[i].fd >= 0)
			close(pl.parents[i].fd);
		skit__cache_release(&pl.parents[i].cache);
		skitx_free(pl.parents[i].dents);
		skitx_free(pl.parents[i].path);
	}
	skitx_free(pl.parents);
	skitx_strmap_release(&map);
	return error;
}

void skit_registry_prompt_items_free(skit_prompt_item *items, size_t n)
{
	if (!items)
		return;
	/* each item's strings are one block, which its name starts */
	for (size_t i = 0; i < n; i++)
		skitx_free((char *)items[i].name);
	skitx_free(items);
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
	index_free(reg->index);
	skitx_free(reg);
}
