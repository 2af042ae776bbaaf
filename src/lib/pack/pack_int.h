/* SPDX-License-Identifier: MIT */
/*
 * pack_int.h - the pieces behind skit/pack.h, shared by pack*.c.
 *
 *   pack_names.c  entry names: the per-name rules and the collision set
 *   pack_tree.c   folders through dirfds: walk, copy into staging, hash,
 *                 remove without following links
 *   pack_zip.c    zip archives: the structural pre-check, extraction into
 *                 staging, and writing packs (libarchive)
 *   pack_lock.c   the lock file, skit_lock_*, skit_verify
 *   pack_txn.c    the root lock, staging folders, the journal, commit,
 *                 rollback and crash recovery
 *   pack_uninstall.c  skit_uninstall*()
 *   pack_links.c  links (or copies) of installed skills in agents'
 *                 folders: the plan, and their part of a transaction
 *   pack.c        the public commands, sources and the manifest
 *
 * The pack subsystem (src/lib/pack/) owns packs, installs and the lock:
 * the files listed above, downloads and git (fetch.c), OCI (oci.c),
 * signatures (sign.c) and the install-time scan (scan_install.c). It uses
 * scan, sandbox (git runs confined), core and util. This header is its
 * door: the agent, mcp and model (above it), the fuzz harnesses and the
 * tests may include it.
 */
#ifndef SKIT_LIB_PACK_INT_H
#define SKIT_LIB_PACK_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <jansson.h>
#include <openssl/evp.h>

#include "lib/core/digest.h"
#include "skit/pack.h"
#include "util/buf.h"
#include "util/hash.h"

#define SKIT__PACK_MAX_PATH      1024 /* bytes in an entry name */
#define SKIT__PACK_MAX_COMPONENT 255
#define SKIT__PACK_MAX_DEPTH     16         /* folders in an entry name */
#define SKIT__PACK_RATIO         100        /* inflated : compressed ... */
#define SKIT__PACK_RATIO_FLOOR   (1u << 20) /* ... once past 1 MiB */
#define SKIT__PACK_MANIFEST_MAX  (4u << 20)
#define SKIT__PACK_SIG_MAX       (16u << 10)
#define SKIT__LOCK_MAX           (32u << 20)

#define SKIT__LOCK_FILE      ".skit-lock.json"
#define SKIT__LOCK_FLOCK     ".skit.lock"
#define SKIT__STAGING_PREFIX ".staging-"

/* The caps an install applies (skit_install_options with defaults). */
struct skit__limits {
	uint64_t file, total, download;
	uint32_t entries;
	long timeout_ms;
};

void skit__limits_init(struct skit__limits *l,
                       const skit_install_options *opts);

/* One file of a skill. */
struct skit__pfile {
	char *path; /* relative to the skill folder, '/'-separated */
	uint64_t size;
	bool exec;
	char sha256[65];
};

/* A link (or copy) of a skill in an agent's folder, as the lock records
 * it: `dir` is relative to the root when they share a folder above. */
struct skit__plink {
	char *agent, *dir;
	bool copy;
};

/* One skill: its files, sorted by path, and what the lock records. */
struct skit__pskill {
	char *name;
	struct skit__pfile *files;
	size_t nfiles, cap;
	char *version;       /* metadata.version */
	char *allowed_tools; /* the field, for the F8 comparison */
	char *source, *resolved, *signed_by, *installed_at;
	bool skip; /* cannot be loaded: left out (SKIT_INSTALL_SKIP_INVALID) */
	char *scan_verdict, *scan_rules; /* the lock's "scan" (scan.c) */
	struct skit__plink *links;       /* the lock's "links" (pack_links.c) */
	size_t nlinks;
};

int skit__pskill_add(struct skit__pskill *s, const char *path, uint64_t size,
                     bool exec, const char sha256[65]);
void skit__pskill_sort(struct skit__pskill *s);
void skit__pskill_release(struct skit__pskill *s);
uint64_t skit__pskill_bytes(const struct skit__pskill *s);
/* True when both list the same paths, sizes, hashes and exec bits. */
bool skit__pskill_same_files(const struct skit__pskill *a,
                             const struct skit__pskill *b);

/* ---- names (pack_names.c) ---- */

/*
 * Check one entry name of an archive or a tree (relative, '/'-separated,
 * `len` bytes, without a trailing '/'): strict UTF-8 without C0, C1 or
 * DEL; no absolute path, drive letter, backslash, ':' (streams), empty,
 * "." or ".." component; no component ending in '.' or ' '; no Windows
 * device name (CON, NUL, COM1, LPT1... with any extension); no 8.3 short
 * name ("GIT~1"); the length, component and depth caps. SKIT_EUNSAFE
 * (SKIT_ETOOBIG for the caps) with the reason; `what` names the input.
 */
int skit__pack_name_check(const char *name, size_t len, const char *what,
                          skit_error *err);

/* A printable, capped rendering of an untrusted name for messages. */
const char *skit__pack_name_show(const char *name, size_t len, char *buf,
                                 size_t cap);

/*
 * The collision set: every file and folder name of one archive or tree,
 * keyed by NFKC + case folding with default-ignorable code points
 * removed. Adding a name whose key is already present (SKILL.md and
 * skill.md, NFC and NFD, ".g\u200cit" and ".git"), or a file whose key
 * is a folder's, or the reverse, is SKIT_EUNSAFE.
 */
struct skit__nameset;
int skit__nameset_new(struct skit__nameset **out);
int skit__nameset_add(struct skit__nameset *set, const char *name, size_t len,
                      bool is_dir, skit_error *err);
void skit__nameset_free(struct skit__nameset *set);

/* ---- folders (pack_tree.c) ---- */

/* A file found by skit__tree_walk(): `fd` is open for reading. */
typedef int (*skit__tree_cb)(void *ud, const char *relpath, int fd,
                             const struct stat *st, skit_error *err);

enum {
	SKIT__WALK_SKIP_GIT = 1, /* leave out entries named ".git" */
	/* Installed trees: no name rules; links, special files and folders
	 * are passed to `cb` with fd -1 instead of being refused. */
	SKIT__WALK_LENIENT = 2,
};

/*
 * Walk the folder `name` under `dirfd` in name order without following
 * any link: every regular file is passed to `cb`, folders are descended,
 * a symbolic link or special file is SKIT_EUNSAFE naming it. Names pass
 * skit__pack_name_check() and the collision set; `lim` (may be NULL)
 * caps the count and bytes.
 */
int skit__tree_walk(int dirfd, const char *name, unsigned int flags,
                    const struct skit__limits *lim, skit__tree_cb cb, void *ud,
                    skit_error *err);

/*
 * Create `relpath` (and its folders, 0755) under `dirfd` with O_EXCL and
 * no link following; mode 0755 when `exec`, else 0644. Returns the fd.
 */
int skit__tree_create(int dirfd, const char *relpath, bool exec,
                      skit_error *err);

/* Write all of `len` bytes; SKIT_EIO on failure. */
int skit__write_all(int fd, const void *p, size_t len, skit_error *err);

/* Remove `name` under `dirfd`: a link or file is unlinked, a folder is
 * emptied without following links (made writable first) and removed. */
int skit__tree_remove(int dirfd, const char *name, skit_error *err);

/* Hash an installed skill folder into `s` (files only, sorted). */
int skit__tree_hash(int dirfd, const char *name, struct skit__pskill *s,
                    skit_error *err);

/* ---- zip archives (pack_zip.c) ---- */

/*
 * Extract the zip `fd` into `stagefd`: the structural pre-check (one end
 * record at the very end, nothing before the first entry, no overlapping
 * or out-of-range entries, local and central names equal, no zip64, no
 * encryption, only stored or deflate), every name checked, then each
 * file written as "<skill>/<path>" under `stagefd` as the layout rules
 * pick (see skit__layout), counting inflated bytes against `lim`.
 * `manifest`, `sig` receive manifest.json and manifest.sig when present.
 * `skills` receives one pskill per skill (files hashed).
 */
struct skit__staged {
	struct skit__pskill *skills;
	size_t n, cap;
	struct skitx_buf manifest, sig;
	bool has_manifest, has_sig;
	bool single; /* SKILL.md at the top: staged as ".single" */
	/* The staging folder's path, to name a file that cannot be
	 * written (a full disk); NULL names it relative. Not owned. */
	const char *where;
};
void skit__staged_release(struct skit__staged *st);
int skit__staged_add(struct skit__staged *st, const char *name,
                     struct skit__pskill **out);

int skit__zip_extract(int fd, const char *what, int stagefd,
                      const struct skit__limits *lim, struct skit__staged *st,
                      skit_error *err);

/* Copy the tree `name` under `dirfd` into `stagefd` by the same layout
 * rules (a folder source, or a git checkout). */
int skit__tree_stage(int dirfd, const char *name, const char *what, int stagefd,
                     const struct skit__limits *lim, struct skit__staged *st,
                     skit_error *err);

/*
 * The layout rules, over every file name: which prefix holds the skills
 * (a single wrapper folder is unwrapped; a "skills/" folder is looked
 * into) and whether SKILL.md sits at that prefix (one skill). Fills
 * `prefix` and `single`; SKIT_EINVALID when no SKILL.md is found.
 */
struct skit__layout {
	char prefix[SKIT__PACK_MAX_PATH + 16];
	size_t prefix_len;
	bool single;                /* SKILL.md at the prefix: one skill */
	bool manifest;              /* manifest.json at the top: a skit pack */
	struct skitx_strmap skills; /* skill folder names under the prefix */
	char **names;
	size_t nnames;
};
int skit__layout_pick(struct skit__layout *out, const char *const *files,
                      const size_t *lens, size_t n, const char *what,
                      skit_error *err);
/* Where the file `name` goes under the layout: the skill folder name (or
 * ".single") and the path inside it; false to leave it out. */
bool skit__layout_map(const struct skit__layout *lay, const char *name,
                      size_t len, char *skill, size_t skill_cap,
                      const char **rel);
void skit__layout_release(struct skit__layout *lay);

/* One file to pack, in memory. */
struct skit__zfile {
	char *path; /* in the archive */
	char *data;
	size_t len;
	bool exec;
};
/* Write a reproducible zip of `files` (in the order given) to `fd`. */
int skit__zip_write(int fd, const struct skit__zfile *files, size_t n,
                    skit_error *err);

/* ---- the lock file (pack_lock.c) ---- */

struct skit__lockdoc {
	struct skit__pskill *skills;
	size_t n, cap;
};
int skit__lock_load(struct skit__lockdoc *doc, int rootfd, const char *path,
                    skit_error *err);
/* Parse `len` bytes of lock-file text into `doc`, which starts empty and
 * is left empty on failure. `label` names the file in errors.
 * SKIT_EINVALID, SKIT_ENOMEM. */
int skit__lock_parse(struct skit__lockdoc *doc, const char *text, size_t len,
                     const char *label, skit_error *err);
struct skit__pskill *skit__lock_find(struct skit__lockdoc *doc,
                                     const char *name);
int skit__lock_put(struct skit__lockdoc *doc, const struct skit__pskill *s);
void skit__lock_drop(struct skit__lockdoc *doc, const char *name);
/* The document's JSON text (sorted, indented, newline at the end). */
char *skit__lock_dump(const struct skit__lockdoc *doc);
void skit__lockdoc_release(struct skit__lockdoc *doc);
int skit__pskill_copy(struct skit__pskill *dst, const struct skit__pskill *src);
/* Add the files of a lock entry or a manifest skill ([{path, size, mode,
 * sha256}], every field checked) to `s`, sorted. SKIT_EINVALID. */
int skit__pskill_files_json(struct skit__pskill *s, json_t *files);

/* ---- transactions (pack_txn.c) ---- */

/* Test knob: when > 0, the Nth crash point raises SIGKILL. */
extern long skit__pack_crash_at;
void skit__pack_crash_point(void);
/* Test knob: when > 0, the Nth write or fsync of an install fails as if
 * the disk were full (skit__pack_fault() returns true, errno ENOSPC). */
extern long skit__pack_fail_at;
bool skit__pack_fault(void);
/* Test knob: act as a file system without RENAME_EXCHANGE. */
extern bool skit__pack_no_exchange;

/*
 * One link (or copy) a commit puts into, or takes out of, an agent's
 * folder (pack_links.c). The new entry is made beside its place as
 * `aside` before the journal names it, then renamed into place (over
 * skit's own older one, which waits as `aside`); a removed one waits as
 * `aside` until the commit point.
 */
struct skit__txn_link {
	bool remove;  /* take it out (uninstall) */
	bool copy;    /* a copy of the skill folder, not a symbolic link */
	bool had_old; /* put over skit's own older link or copy */
	bool staged;  /* copy from staging's new/<name>, not the root's */
	char *dir;    /* the agent's folder, absolute */
	char *name;   /* the skill */
	char *target; /* a link's text (relative) */
	char *made;   /* the highest folder of `dir` the commit made, or NULL */
	char aside[32];
	unsigned long long ino; /* put: the new entry; remove: the old one */
};

struct skit__txn {
	int rootfd, lockfd, stagefd;
	char root[4096];
	char stage_name[32];
	struct skit__lockdoc lock;
	/* The highest folder of `root` this open created ("" when `root`
	 * was there): a transaction that commits nothing removes it again,
	 * so a failed first install leaves no empty root behind. */
	char made[4096];
	char given[4096]; /* `root` as given, made absolute */
	bool committed;
	struct skit__txn_link *links; /* carried out by the commit */
	size_t nlinks;
};

/* Open (creating when `create`) and lock `root`, recover what a crash
 * left, and read the lock file. */
int skit__txn_open(struct skit__txn *t, const char *root, bool create,
                   skit_error *err);
/* Make the staging folder (with "new" and "old" inside). */
int skit__txn_stage(struct skit__txn *t, skit_error *err);

/* One change the commit makes. */
enum skit__txn_op { SKIT__TXN_PUT, SKIT__TXN_REMOVE };
struct skit__txn_change {
	enum skit__txn_op op;
	const char *name;
};
/*
 * Carry out `changes` (PUT moves "new/<name>" from staging into the
 * root, exchanging it with an installed one; REMOVE moves the root's
 * into "old/") and then replace the lock file with `t->lock` as the
 * commit point. Any failure rolls every move back.
 */
int skit__txn_commit(struct skit__txn *t, const struct skit__txn_change *c,
                     size_t n, skit_error *err);
/* Remove the staging folder, unlock, close. Safe to call twice. */
void skit__txn_close(struct skit__txn *t);

/* ---- links in agents' folders (pack_links.c) ---- */

/* Free `s`'s links; copy `n` links into `s` (replacing its own). */
void skit__plinks_release(struct skit__pskill *s);
int skit__plinks_set(struct skit__pskill *s, const struct skit__plink *v,
                     size_t n);
/* The lock's "links" of one skill: parse (every field checked; NULL or
 * absent is none) and dump (NULL when there are none). */
int skit__plinks_parse(struct skit__pskill *s, json_t *arr);
json_t *skit__plinks_json(const struct skit__pskill *s);
/* `dir` of a recorded link as an absolute path, or NULL (owned). */
char *skit__plink_abs(const char *root, const struct skit__plink *l);

/*
 * Plan the links of the skill `name` for a commit of `t`: each link the
 * lock entry `locked` records (may be NULL), then each of `targets`.
 * A missing link is made, skit's own older one is kept or (a copy of
 * a changed skill, or a change between link and copy) replaced; an
 * entry skit did not make is SKIT_EEXISTS, and a recorded copy that was
 * edited too unless `overwrite`. `staged`: the skill is in staging's
 * new/ (it is being put), `changed`: its files change. Appends to
 * t->links; `out` receives what the lock records afterwards.
 */
int skit__links_plan(struct skit__txn *t, const char *name,
                     const struct skit__pskill *locked,
                     const skit_install_target *targets, size_t ntargets,
                     bool copy, bool staged, bool changed, bool overwrite,
                     struct skit__pskill *out, skit_error *err);
/* Plan the removal of the links `locked` records (uninstall): a link
 * that leads elsewhere, or is gone, is left; an edited copy is
 * SKIT_EEXISTS unless `force`. */
int skit__links_plan_remove(struct skit__txn *t,
                            const struct skit__pskill *locked, bool force,
                            skit_error *err);

/* Whether the link `l` of the lock entry `s` is in place and skit's
 * (a copy: holding the recorded files): 1, 0, or an error. `*path`
 * (owned) receives its absolute path. */
int skit__link_state(const char *root, const struct skit__pskill *s,
                     const struct skit__plink *l, char **path, skit_error *err);

/* The commit's steps (pack_txn.c calls them in this order): the
 * journal's "links"; make the new entries aside; move them into place;
 * on failure undo; after the commit point remove what waits aside. */
json_t *skit__links_journal(const struct skit__txn *t);
int skit__links_prepare(struct skit__txn *t, skit_error *err);
int skit__links_apply(struct skit__txn *t, skit_error *err);
void skit__links_undo(struct skit__txn *t);
void skit__links_finish(struct skit__txn *t);
void skit__txn_links_release(struct skit__txn *t);
/* Recovery of a journal's "links": undo (not committed) or finish. */
void skit__links_recover(json_t *arr, bool committed);

#endif
