/* SPDX-License-Identifier: MIT */
/*
 * registry_scan.c - the scan that builds the level-1 index: walk the
 * roots, load each skill folder into the index (on a few threads, or from
 * the index cache, registry_cache.c), settle aliases, loops, shadowing and
 * name collisions, and swap the new index in.
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
#include "util/hash.h"
#include "util/utf8.h"
#include "util/parallel.h"

#include <utf8proc.h>

/* Parent folders walked up from a root when looking for link loops. */
#define MAX_ANCESTORS 256

/*
 * A SKILL.md modified this few seconds before the scan (or later) is not
 * cached: a write in the same clock tick as our stat() could leave size
 * and times unchanged (git's "racily clean" entries). 2 s covers FAT.
 */
#define RACY_SECONDS 2

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

	/*
	 * (st_dev, st_ino) of each folder seen -> its item, or
	 * SKIT__REGISTRY_NO_ITEM
	 */
	struct skitx_idmap seen;
	/*
	 * roots -> root index; their parent folders -> SKIT__REGISTRY_NO_ITEM
	 */
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
	diag.message = skit__arena_vprintf(&ix->strings, fmt, ap);
	va_end(ap);
	if (!diag.message)
		return SKIT_ENOMEM;
	return skit__diags_push(&ix->diags, &diag);
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
		if (!error && found != SKIT__REGISTRY_NO_ITEM) {
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
			error = skitx_idmap_put(&sc->fences,
			                        (uint64_t)up.st_dev,
			                        (uint64_t)up.st_ino,
			                        SKIT__REGISTRY_NO_ITEM, NULL);
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
	file = skit__arena_alloc(a, path_len + sizeof("/SKILL.md"));
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
	file = skit__arena_alloc(a, path_len + sizeof("/SKILL.md"));
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
	uint32_t *hit, item = SKIT__REGISTRY_NO_ITEM;
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
		if (*hit == SKIT__REGISTRY_NO_ITEM)
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
	if (sc->nthreads < 2 || !n ||
	    (!sc->reg->threads && n < SKIT__REGISTRY_PARALLEL_MIN))
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
	batch = batch < 8 ? 8
	        : batch > SKIT__REGISTRY_PARALLEL_BATCH
	                ? SKIT__REGISTRY_PARALLEL_BATCH
	                : batch;
	skitx_parallel_for(n, batch, sc->nthreads, load_batch, sc);
	for (size_t w = 0; w < sc->nthreads; w++)
		skit__arena_splice(&sc->ix->strings, &sc->loaders[w].strings);
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

bool skit__registry_cache_disabled(const skit_registry *reg)
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

	if (!reg->nroots || skit__registry_cache_disabled(reg) ||
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
		error = skit__diags_push(&sc.ix->diags,
		                         &reg->config_diags.items[i]);
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
	skit__registry_index_free(reg->index);
	reg->index = sc.ix;
	sc.ix = NULL;
out:
	if (sc.fds)
		for (size_t i = 0; i < reg->nroots; i++)
			if (sc.fds[i] >= 0)
				close(sc.fds[i]);
	skitx_free(sc.fds);
	skit__registry_index_free(sc.ix);
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
