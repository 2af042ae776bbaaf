/* SPDX-License-Identifier: MIT */
/*
 * registry_int.h - the door of the registry subsystem (src/lib/registry/).
 *
 * The registry owns skill roots with their precedence and the level-1
 * index built from them: the object, lookup, listing and shadowing
 * (registry.c); the scan that walks the roots and loads skills into the
 * index (registry_scan.c); to-prompt's items (registry_items.c); the
 * on-disk index cache (registry_cache.c, its own registry_cache.h); the
 * roots config: default roots and config files (registry_config.c); which
 * folder is the project (project.c, its own project.h); folder trust
 * (trust.c); BM25 search (search.c); and prompt.c, which renders the index
 * as system-prompt text.
 *
 * Only the registry's own files include this header, and the registry's
 * unit tests (for the hooks below); the rest of the library and the CLI
 * use the public skit/registry.h and skit/prompt.h.
 *
 * A registry owns its roots and one *index*: the result of the last
 * complete scan (entries, their strings, diagnostics, per-root counts, and
 * the search indexes built from it). A scan builds a new index on the side
 * and swaps it in only when it is complete, so a failed rescan leaves the
 * old one untouched.
 */
#ifndef SKIT_LIB_REGISTRY_INT_H
#define SKIT_LIB_REGISTRY_INT_H

#include <stdarg.h>

#include "skit/registry.h"

/*
 * A chunked string arena. Strings never move once stored, so entries can
 * point into it; everything is freed at once. (skitx_pool is for parsed
 * skills, STYLE rule 9; the registry keeps its own, with bigger chunks.)
 */
struct skit__arena_chunk;

struct skit__arena {
	struct skit__arena_chunk *head;
};

/* `size` bytes, not aligned (for strings); NULL on out-of-memory. */
char *skit__arena_alloc(struct skit__arena *a, size_t size);

/* A NUL-terminated copy of `len` bytes at `s`; NULL on out-of-memory. */
char *skit__arena_strndup(struct skit__arena *a, const char *s, size_t len);
char *skit__arena_strdup(struct skit__arena *a, const char *s);
char *skit__arena_printf(struct skit__arena *a, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;
char *skit__arena_vprintf(struct skit__arena *a, const char *fmt, va_list ap)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 0)))
#endif
        ;
void skit__arena_release(struct skit__arena *a);

/*
 * Move every chunk of `src` into `dst`, after dst's head (which stays the
 * partly used chunk small strings go to). Strings keep their addresses.
 */
void skit__arena_splice(struct skit__arena *dst, struct skit__arena *src);

/* A growable list of diagnostics whose strings live in an arena. */
struct skit__diags {
	skit_diag *items;
	size_t len, alloc;
};

/* Append a copy of `diag` (its strings are not copied). 0 or SKIT_ENOMEM. */
int skit__diags_push(struct skit__diags *d, const skit_diag *diag);

/*
 * Append a warning about `path` with a printf-style message (formatted
 * into `a`). `code` must be a string literal. 0 or SKIT_ENOMEM.
 */
int skit__diags_add(struct skit__diags *d, struct skit__arena *a,
                    skit_severity sev, const char *code, const char *path,
                    const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 6, 7)))
#endif
        ;

struct skit__search;

/* A root as configured. */
struct skit__root {
	char *source;
	char *path;
};

/* What the last scan found in a root. */
struct skit__root_stat {
	bool exists;
	size_t skills; /* active entries */
};

/* An entry, with what ordering it needs. */
struct skit__item {
	skit_entry e;
	const char *folder;   /* the folder's last component (raw) */
	const char *name_raw; /* active: the name as written when it is
	                         not spelled as e.name (NFKC), else NULL */
	bool canonical;       /* folder name == entry name */
};

/* The result of one complete scan. */
struct skit__index {
	struct skit__item *all; /* by name, then root */
	size_t nall;
	const skit_entry **active; /* by root, then name */
	size_t nactive;
	struct skit__root_stat *roots;
	size_t nroots;
	struct skit__diags diags;
	struct skit__arena strings;
	/* the index cache's bytes: entries from it point into them */
	char *cache_bytes;
	struct skit__search *search[2]; /* [0] name+description, [1] +body */
	/* Frees them: set by search.c with the index it builds, so that the
	 * registry frees what search built without calling into it. */
	void (*search_free)(struct skit__search *s);
};

/* Called before each folder of a root is examined (tests only). */
typedef void (*skit__scan_hook)(const char *root, const char *name,
                                void *payload);

struct skit_registry {
	struct skit__root *roots;
	size_t nroots, roots_alloc;
	char *project_dir;
	/* Folder trust of project_dir (registry_config.c): not trusted;
	 * and something of it left out for that reason. */
	bool project_untrusted, project_held_back;

	/* Findings of skit_registry_add_default_roots() (config files). */
	struct skit__diags config_diags;
	struct skit__arena config_strings;

	struct skit__index *index; /* NULL before the first scan */

	skit__scan_hook hook;
	void *hook_payload;
	size_t max_per_root; /* 0: SKIT__REGISTRY_MAX_PER_ROOT */
	size_t threads;      /* 0: automatic; 1: sequential; n: n threads */

	/* The index cache (registry_cache.h): off when `no_cache` is set. */
	bool no_cache;
	/*
	 * A scan whose diagnostics nobody reads (to-prompt's scan of a
	 * parent folder) skips the checks whose only product is a
	 * diagnostic: each skill folder's owner and mode ("unsafe-folder",
	 * a stat() a folder) and the names that collide or look alike. No
	 * entry, state or cache record differs.
	 */
	bool diags_unread;
	struct skit__cache_stats {
		size_t hits;    /* entries taken from the cache */
		size_t stored;  /* records in the cache files written */
		size_t written; /* cache files written (one a scan) */
	} cache_stats; /* of the last scan or skit_registry_prompt_items()
	                  (hits only), for tests and benchmarks */
};

/* Tests: call `hook` before each folder a scan examines. */
void skit__registry_set_scan_hook(skit_registry *reg, skit__scan_hook hook,
                                  void *payload);

/*
 * Tests: how many threads a scan loads folders on. 0 (the default): one
 * per online CPU, at most 8, for roots of 64 folders or more; 1: none
 * (the sequential scan); n > 1: n, whatever the root's size. A scan hook
 * or an allocator set with skit_set_allocator() always means 1.
 */
void skit__registry_set_threads(skit_registry *reg, size_t n);

/*
 * Tests: turn the on-disk index cache off (true) or back on (false, the
 * default; SKIT_NO_CACHE=1 in the environment turns it off too).
 */
void skit__registry_set_no_cache(skit_registry *reg, bool off);

/* Tests: lower the per-root folder cap (0 restores the default). */
void skit__registry_set_max_per_root(skit_registry *reg, size_t max);

/* Most folders read from one root; the rest are reported, not scanned. */
#define SKIT__REGISTRY_MAX_PER_ROOT 262144

/* Fewer folders than this in a root are loaded on the calling thread. */
#define SKIT__REGISTRY_PARALLEL_MIN 64

/* Folders a loading thread takes at a time, at most. */
#define SKIT__REGISTRY_PARALLEL_BATCH 256

/*
 * A value in the scan's identity table that is not an entry; to-prompt's
 * items use it for a folder with no parent (so no cache).
 */
#define SKIT__REGISTRY_NO_ITEM UINT32_MAX

/* Free an index and all it holds (NULL: nothing). registry.c */
void skit__registry_index_free(struct skit__index *ix);

/*
 * Whether the index cache is off for `reg`: skit__registry_set_no_cache(),
 * or SKIT_NO_CACHE set to anything but "" or "0". registry_scan.c
 */
bool skit__registry_cache_disabled(const skit_registry *reg);

#endif
