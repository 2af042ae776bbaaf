/* SPDX-License-Identifier: MIT */
/*
 * registry_cache.h - the on-disk cache of a root's level-1 index.
 *
 * One file per root, `${XDG_CACHE_HOME:-~/.cache}/skit/index-<hash>.bin`,
 * holds what loading each skill folder of that root gave (the entry's
 * strings, flags, state and warning count), keyed by the stat() of its
 * SKILL.md and the folder's identity. A scan that finds the key unchanged
 * reuses the record instead of opening and parsing SKILL.md.
 *
 * This module reads, validates and writes the file; it does not decide
 * what is cacheable or when a record is used: registry.c does. The file is
 * untrusted input: it is read with a size cap, and every length, count,
 * number and string is checked before a record is handed out. A file that
 * fails any check is ignored as a whole, never reported.
 */
#ifndef SKIT_LIB_REGISTRY_CACHE_H
#define SKIT_LIB_REGISTRY_CACHE_H

#include <stdint.h>

#include "skit/registry.h"
#include "util/buf.h"
#include "util/hash.h"

/* What must not have changed for a record to be reused. */
struct skit__cache_key {
	uint64_t dir_dev, dir_ino; /* the skill folder */
	uint64_t dev, ino;         /* its SKILL.md */
	int64_t size;
	int64_t mtime_sec, ctime_sec;
	uint32_t mtime_nsec, ctime_nsec;
};

/* The strings of a record, in file order. */
enum {
	SKIT__CACHE_FOLDER,
	SKIT__CACHE_NAME,
	SKIT__CACHE_DESCRIPTION,
	SKIT__CACHE_WHEN_TO_USE,
	SKIT__CACHE_ARGUMENT_HINT,
	SKIT__CACHE_REASON,
	SKIT__CACHE_NAME_RAW, /* as written, when not the NFKC name */
	SKIT__CACHE_NSTR
};

/*
 * One validated record. The strings point into the cache's buffer and are
 * not NUL-terminated: str[i] with len[i] bytes, or NULL when absent. Each
 * is valid UTF-8 without NUL bytes.
 */
struct skit__cache_rec {
	struct skit__cache_key key;
	unsigned int flags;
	skit_entry_state state; /* ACTIVE or SKIPPED */
	size_t warnings;
	const char *str[SKIT__CACHE_NSTR];
	uint32_t len[SKIT__CACHE_NSTR];
};

/* One root's cache, as read at the start of a scan. */
struct skit__cache {
	char *file; /* where it lives; NULL: no cache for this root */
	char *root; /* the root's absolute path, as recorded in the file */
	struct skitx_buf data;
	struct skit__cache_rec *recs;
	size_t nrecs;
	struct skitx_strmap by_folder; /* folder name -> index in recs */
};

/*
 * Find and read the cache of the root at `root_path` into `c` (which the
 * caller zeroed). `cache_home` is the folder that holds skit's caches
 * ("<XDG_CACHE_HOME>/skit"). Never fails: when the file is missing,
 * foreign or invalid, or memory runs out, `c` is left empty (and with no
 * `file` when not even its name could be made). Release with
 * skit__cache_release().
 */
void skit__cache_open(struct skit__cache *c, const char *cache_home,
                      const char *root_path);

/*
 * "<XDG_CACHE_HOME or ~/.cache>/skit", skitx_malloc'd; NULL when neither
 * variable is set to an absolute path, or on out-of-memory.
 */
char *skit__cache_home(void);

/* The record for folder `name`, or NULL. Safe from several threads. */
const struct skit__cache_rec *skit__cache_find(const struct skit__cache *c,
                                               const char *name);

/*
 * Fill `k` from fstatat(rootfd, "<folder>/SKILL.md") without following a
 * link at the last component; the folder identity is given. False when
 * that is not a regular file (then nothing can be cached or reused).
 */
bool skit__cache_key_read(struct skit__cache_key *k, int rootfd,
                          const char *folder, uint64_t dir_dev,
                          uint64_t dir_ino);

bool skit__cache_key_eq(const struct skit__cache_key *a,
                        const struct skit__cache_key *b);

/*
 * Whether skit__cache_put() would store this entry. `name_raw` is the
 * active skill's name as written (skit_skill_name_raw()) when it is not
 * spelled like its NFKC name `e->name`, else NULL.
 */
bool skit__cache_fits(const skit_entry *e, const char *folder,
                      const char *name_raw);

/*
 * Append a record for entry `e` (as loaded: before shadowing) of folder
 * `folder` to `out`; `name_raw` as for skit__cache_fits() (kept only for
 * an active entry). Returns 1 when appended, 0 when the entry cannot be
 * cached (a string that is not valid UTF-8, or too long), SKIT_ENOMEM.
 */
int skit__cache_put(struct skitx_buf *out, const struct skit__cache_key *k,
                    const skit_entry *e, const char *folder,
                    const char *name_raw);

/*
 * Write `n` records (`recs`, as built by skit__cache_put()) as the cache
 * of `c`'s root: the folder is created 0700, the file written 0600 via a
 * temporary file and rename(). 0 or a negative status; callers ignore it.
 */
int skit__cache_write(const struct skit__cache *c, const struct skitx_buf *recs,
                      size_t n);

/* The file's check word over `n` bytes (exposed for the tests). */
uint64_t skit__cache_checksum(const void *data, size_t n);

/* Offsets in the file, for the tests: the checksum, the payload. */
#define SKIT__CACHE_CHECKSUM_AT 24
#define SKIT__CACHE_HEADER_SIZE 48

void skit__cache_release(struct skit__cache *c);

#endif
