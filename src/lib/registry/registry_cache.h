/* SPDX-License-Identifier: MIT */
/*
 * registry_cache.h - the on-disk cache of a scan's level-1 index.
 *
 * One file per list of roots, `${XDG_CACHE_HOME:-~/.cache}/skit/
 * index-<hash of the roots>.bin`, holds what loading each skill folder of
 * those roots gave (the entry's strings, flags, state and warning count),
 * keyed by the stat() of its SKILL.md and the folder's identity. A scan
 * that finds the key unchanged reuses the record instead of opening and
 * parsing SKILL.md. One file for all the roots of a scan, not one per
 * root: creating a file costs as much as loading tens of skills on some
 * file systems, and users have hundreds of small roots.
 *
 * This module reads, validates and writes the file; it does not decide
 * what is cacheable or when a record is used: registry_scan.c does. The
 * file is
 * untrusted input: it is read with a size cap, and every length, count,
 * number and string is checked before a record is handed out. A file that
 * fails any check is ignored as a whole, never reported.
 */
#ifndef SKIT_LIB_REGISTRY_CACHE_H
#define SKIT_LIB_REGISTRY_CACHE_H

#include <stdint.h>
#include <sys/stat.h>

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
 * One validated record, decoded from the cache's bytes. The strings point
 * into those bytes and are NUL-terminated there: str[i] with len[i]
 * bytes, or NULL when absent. Each is valid UTF-8 without NUL bytes.
 */
struct skit__cache_rec {
	struct skit__cache_key key;
	unsigned int flags;
	skit_entry_state state; /* ACTIVE or SKIPPED */
	size_t warnings;
	uint32_t root; /* index in the list of roots */
	const char *str[SKIT__CACHE_NSTR];
	uint32_t len[SKIT__CACHE_NSTR];
};

/*
 * The cache of one list of roots, as read at the start of a scan. Only
 * the file's bytes, the offset of each record and a map per root are
 * kept (records are decoded when looked up): at 100k skills an array of
 * decoded records was a sixth of the scan's peak memory.
 */
struct skit__cache {
	char *file;   /* where it lives; NULL: no cache */
	char **roots; /* the roots' absolute paths, as recorded in the file */
	size_t nroots;
	char *bytes; /* the file */
	size_t nbytes;
	uint32_t *offsets; /* of each record in bytes */
	size_t nrecs;
	struct skit__cache_slot {
		uint32_t rec;  /* record number + 1; 0: free */
		uint32_t hash; /* high bits of its (root, folder) hash */
	} * slots;             /* lookup by (root, folder) */
	size_t nslots;         /* a power of two */
};

/*
 * The writer a cache file names and a reader requires: skit's version,
 * then "+" and the program's GNU build ID in hex when it has one, so that
 * no other build reads verdicts it did not make. Computed once.
 */
const char *skit__cache_build_tag(void);

/*
 * Find and read the cache of the `n` roots `roots` (in scan order) into
 * `c` (which the caller zeroed). `cache_home` is the folder that holds
 * skit's caches ("<XDG_CACHE_HOME>/skit"). Never fails: when the file is
 * missing, foreign or invalid, or memory runs out, `c` is left empty (and
 * with no `file` when not even its name could be made). Release with
 * skit__cache_release().
 */
void skit__cache_open(struct skit__cache *c, const char *cache_home,
                      const char *const *roots, size_t n);

/*
 * "<XDG_CACHE_HOME or ~/.cache>/skit", skitx_malloc'd; NULL when neither
 * variable is set to an absolute path, or on out-of-memory.
 */
char *skit__cache_home(void);

/*
 * The record of folder `name` of root `root`: its number (below nrecs),
 * or -1. Safe from several threads.
 */
long skit__cache_lookup(const struct skit__cache *c, size_t root,
                        const char *name);

/* Decode record `i` (a number from skit__cache_lookup()) into `r`. */
void skit__cache_get(const struct skit__cache *c, size_t i,
                     struct skit__cache_rec *r);

/*
 * Hand the file's bytes over (skitx_malloc'd: the caller frees them), so
 * the strings of the records decoded from them stay valid; `c` is then
 * empty (no record can be looked up), and still needs releasing.
 */
char *skit__cache_take_bytes(struct skit__cache *c);

/*
 * Fill `k` from fstatat(rootfd, "<folder>/SKILL.md") without following a
 * link at the last component; the folder identity is given. False when
 * that is not a regular file (then nothing can be cached or reused).
 */
bool skit__cache_key_read(struct skit__cache_key *k, int rootfd,
                          const char *folder, uint64_t dir_dev,
                          uint64_t dir_ino);

/* Fill `k` from the stat() of a SKILL.md and its folder's identity. */
void skit__cache_key_from_stat(struct skit__cache_key *k, const struct stat *st,
                               uint64_t dir_dev, uint64_t dir_ino);

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
 * `folder` of root number `root` to `out`; `name_raw` as for
 * skit__cache_fits() (kept only for an active entry). Returns 1 when
 * appended, 0 when the entry cannot be cached (a string that is not valid
 * UTF-8, or too long), SKIT_ENOMEM.
 */
int skit__cache_put(struct skitx_buf *out, size_t root,
                    const struct skit__cache_key *k, const skit_entry *e,
                    const char *folder, const char *name_raw);

/* A running checksum (registry_cache.c). */
struct skit__cksum {
	uint64_t h, n;
	unsigned char tail[8];
	size_t ntail;
};

/*
 * A new cache file for `c`'s roots, written as records come: the folder
 * is created 0700, the file 0600 under a temporary name; records go out
 * in chunks (no copy of the whole file is held).
 */
struct skit__cache_writer {
	int fd;
	struct skitx_buf tmp; /* the temporary file's name */
	struct skitx_buf buf; /* records not written yet */
	struct skit__cksum sum;
	size_t nrecs, nroots, vlen;
	int error; /* the first failure; then nothing more is written */
};

/* Start writing; 0 or a negative status (then `w` holds nothing). */
int skit__cache_writer_open(struct skit__cache_writer *w,
                            const struct skit__cache *c);

/* skit__cache_put() into the file: 1, 0 (not cacheable) or < 0. */
int skit__cache_writer_put(struct skit__cache_writer *w, size_t root,
                           const struct skit__cache_key *k, const skit_entry *e,
                           const char *folder, const char *name_raw);

/*
 * With `commit`, finish the file and rename it into place (no fsync: a
 * torn file fails its checks). Without, or after any failure, remove it;
 * a file too big to keep (over 64 MiB) also removes the old cache.
 * Releases `w`. 0 or a negative status; callers ignore it.
 */
int skit__cache_writer_close(struct skit__cache_writer *w,
                             const struct skit__cache *c, bool commit);

/* The file's check word over `n` bytes (exposed for the tests). */
uint64_t skit__cache_checksum(const void *data, size_t n);

/* Offsets in the file, for the tests: the checksum, the payload. */
#define SKIT__CACHE_CHECKSUM_AT 24
#define SKIT__CACHE_HEADER_SIZE 48

void skit__cache_release(struct skit__cache *c);

#endif
