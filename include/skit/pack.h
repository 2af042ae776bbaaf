/* SPDX-License-Identifier: MIT */
#ifndef SKIT_PACK_H
#define SKIT_PACK_H

#include <stdbool.h>
#include <stdint.h>

#include "skit/common.h"
#include "skit/scan.h"

/**
 * @file skit/pack.h
 * @brief Skill packs and installed roots: pack, install, uninstall,
 *        update, verify, the lock file and signing keys.
 *
 * A *pack* is a zip archive (`.zip` or `.skill`, the same format) holding
 * `<name>/SKILL.md` and `<name>/...` for each skill, plus `manifest.json`
 * (the skit version, each skill's name, each file's path, size and
 * SHA-256, and a digest over the whole) and, when signed,
 * `manifest.sig` (an Ed25519 signature over that digest).
 *
 * An *installed root* is a skills folder (a project's `.agents/skills`,
 * the user's `~/.agents/skills`, or any folder) that skit manages with:
 *  - `<root>/.skit-lock.json`: per skill the source, what it resolved to
 *    (a git commit, or the SHA-256 of a downloaded archive), the file list
 *    with each file's SHA-256, size and mode, the install time and the key
 *    that signed it;
 *  - `<root>/.skit.lock`: an empty file, flock()ed by every command that
 *    changes the root, so that concurrent installs queue up;
 *  - `<root>/.staging-XXXXXX/`: where an install builds and checks the new
 *    skills. Nothing is written outside it until every check has passed;
 *    then each skill moves into place with one rename(), and the lock
 *    file's atomic replacement is the commit point. A staging folder left
 *    by a crash is rolled back, or finished, by the next command that
 *    takes the lock (docs/install.md).
 *
 * Every function here takes the root lock while it works and releases it
 * before returning. None prints; failures fill the caller's skit_error
 * with one line. Untrusted input (archives, downloads, cloned trees) is
 * capped and checked as docs/install.md ("Checks before anything is
 * written") describes.
 */

SKIT_BEGIN_DECL

/* ---------------------------------------------------------------- */
/* Keys                                                              */

/**
 * Make an Ed25519 key pair: the private key in `priv_path` (PKCS#8 PEM,
 * mode 0600, must not exist) and the public key in `pub_path` (SPKI PEM,
 * mode 0644). `*key_id` (optional; free with skit_free()) receives the
 * key's id: 16 hex digits of the SHA-256 of the raw public key.
 */
SKIT_EXTERN int skit_keygen(const char *priv_path, const char *pub_path,
                            char **key_id, skit_error *err);

/* ---------------------------------------------------------------- */
/* Packing                                                           */

/** Options for skit_pack(); start from SKIT_PACK_OPTIONS_INIT. */
typedef struct {
	unsigned int version; /**< SKIT_PACK_OPTIONS_VERSION */
	/** A private key from skit_keygen() to sign the pack with, or NULL
	 *  for an unsigned pack. */
	const char *sign_key;
	unsigned int flags; /**< SKIT_PACK_STRICT */
} skit_pack_options;

/** skit_pack_options.flags: check each skill as `skit validate` does
 *  (conformance) instead of with the loading rules. */
#define SKIT_PACK_STRICT (1u << 0)

#define SKIT_PACK_OPTIONS_VERSION 1
#define SKIT_PACK_OPTIONS_INIT       \
 {                                   \
  SKIT_PACK_OPTIONS_VERSION, NULL, 0 \
 }

/** What skit_pack() wrote. */
typedef struct {
	size_t skills;   /**< skills packed */
	size_t files;    /**< files packed (manifest not counted) */
	uint64_t bytes;  /**< their total size */
	char digest[65]; /**< the manifest digest, hex */
	char key_id[17]; /**< the signing key's id, or "" */
} skit_pack_info;

/**
 * Write the skill folders `dirs[0..n)` into the pack `out_path`
 * (replaced atomically). Each folder must load with the loading rules
 * (docs/format.md; with SKIT_PACK_STRICT, pass `skit validate`); the
 * first failure is the error. A skill is packed under the name it is
 * known by: its own, or its folder's when its own is not a valid name or
 * differs from the folder. A folder given as a symbolic link is packed
 * from where it leads. Two skills with one name, symlinks,
 * special files and anything over the install limits are refused, since
 * no install would accept them.
 *
 * The output is reproducible: the same input gives byte-identical bytes
 * (entries sorted, times, owners and modes fixed; a file's mode is 0755
 * when it is executable and 0644 otherwise).
 */
SKIT_EXTERN int skit_pack(const char *const *dirs, size_t n,
                          const char *out_path, const skit_pack_options *opts,
                          skit_pack_info *info, skit_error *err);

/* ---------------------------------------------------------------- */
/* Installing                                                        */

/** Flags for skit_install_options.flags. */
typedef enum {
	/** Replace a skill that is already installed. */
	SKIT_INSTALL_FORCE = 1u << 0,
	/** Fetch, stage and check everything, report the plan, change
	 *  nothing. */
	SKIT_INSTALL_DRY_RUN = 1u << 1,
	/** Refuse a pack without a valid signature by a trusted key. */
	SKIT_INSTALL_REQUIRE_SIGNATURE = 1u << 2,
	/** Check skills as `skit validate` does (conformance), not with
	 *  the loading rules. */
	SKIT_INSTALL_STRICT = 1u << 3,
	/** Install the skills that load and leave out those that cannot
	 *  be loaded (each reported through on_invalid) instead of
	 *  refusing the source. */
	SKIT_INSTALL_SKIP_INVALID = 1u << 4,
	/** Install even when the scan (skit_install_options.scanner) finds
	 *  something high or critical. */
	SKIT_INSTALL_ALLOW_RISKY = 1u << 5,
	/** With skit_install_options.targets: copy each skill into the
	 *  agents' folders instead of linking it there. */
	SKIT_INSTALL_COPY = 1u << 6,
} skit_install_flag;

/** How an install changes one skill. */
typedef enum {
	SKIT_INSTALL_NEW = 0,       /**< not installed before */
	SKIT_INSTALL_REPLACED = 1,  /**< replaces a different version */
	SKIT_INSTALL_UNCHANGED = 2, /**< the same files are installed */
} skit_install_action;

/** How one file differs between two versions. */
typedef enum {
	SKIT_FILE_ADDED = 0,
	SKIT_FILE_REMOVED = 1,
	SKIT_FILE_MODIFIED = 2, /**< other bytes, or the executable bit */
} skit_file_change_kind;

/** One changed file. */
typedef struct {
	const char *path; /**< relative to the skill folder */
	skit_file_change_kind kind;
} skit_file_change;

/** One skill of an install plan. Strings live as long as the result. */
typedef struct {
	const char *name;
	const char *source;    /**< as recorded in the lock */
	const char *resolved;  /**< git commit, "sha256:<hex>" or NULL */
	const char *signed_by; /**< key id, or NULL */
	skit_install_action action;
	/** Against the installed version (for SKIT_INSTALL_REPLACED). */
	const skit_file_change *changes;
	size_t change_count;
	/** The change touches `scripts/` or the `allowed-tools` field, which
	 *  deserves a fresh look before it is accepted (HOSTILE F8). */
	bool sensitive;
} skit_install_item;

/**
 * Called once, after every skill is fetched, staged and checked and
 * before anything moves into place, with the whole plan. Return 0 to go
 * on, anything else to abandon the install (it then fails with
 * SKIT_ECANCELED and changes nothing).
 */
typedef int (*skit_install_plan_cb)(void *userdata,
                                    const skit_install_item *items, size_t n);

/**
 * A skill of the source cannot be loaded: `message` (one line) says
 * which and why. Called for every such skill, before the source is
 * refused (or, with SKIT_INSTALL_SKIP_INVALID, the skill left out).
 */
typedef void (*skit_install_invalid_cb)(void *userdata, const char *skill,
                                        const char *message);

/**
 * An agent's skills folder that installed skills are linked (or, with
 * SKIT_INSTALL_COPY, copied) into, so that an agent reading only its own
 * folder (Claude Code's `.claude/skills`, Cursor's `~/.cursor/skills`…)
 * sees them (docs/install.md, "Installing for other agents").
 */
typedef struct {
	/** The agent's name, recorded in the lock: lowercase letters,
	 *  digits and `-`, at most 32 bytes ("claude-code"). */
	const char *agent;
	/** Its skills folder (created when missing). The folder the
	 *  skills are installed in is left alone: the agent reads it. */
	const char *dir;
} skit_install_target;

/** One link (or copy) of an installed skill in an agent's folder. */
typedef struct {
	const char *agent; /**< as skit_install_target.agent */
	const char *path;  /**< `<dir>/<name>`, absolute */
	bool copy;         /**< a copy of the folder, not a symbolic link */
	/** This command made it (or replaced it); false when it was there
	 *  already, as the lock records it. */
	bool made;
} skit_install_link;

/** Download progress; `total` is 0 when unknown. */
typedef void (*skit_install_progress_cb)(void *userdata, uint64_t done,
                                         uint64_t total);

/** Options for skit_install() and friends; start from
 *  SKIT_INSTALL_OPTIONS_INIT. Zero limits mean the defaults. */
typedef struct {
	unsigned int version; /**< SKIT_INSTALL_OPTIONS_VERSION */
	unsigned int flags;   /**< skit_install_flag bits */
	/** Public keys (PEM files from skit_keygen()) whose signatures are
	 *  accepted. */
	const char *const *trusted_keys;
	size_t trusted_count;
	skit_install_plan_cb on_plan;
	skit_install_progress_cb on_progress;
	void *userdata;
	uint64_t max_file_bytes;     /**< one file, inflated (10 MiB) */
	uint64_t max_total_bytes;    /**< all files, inflated (50 MiB) */
	uint32_t max_entries;        /**< archive entries or files (10,000) */
	uint64_t max_download_bytes; /**< an archive or a clone (64 MiB) */
	long timeout_ms;             /**< a download or a clone (300 s) */
	skit_install_invalid_cb on_invalid; /**< may be NULL */
	/** HTTP headers ("Name: value", at most 8) sent with the download
	 *  of a URL source and with an https clone, to the source's own
	 *  origin only (never to a redirect elsewhere), e.g. an
	 *  "Authorization: Bearer …" header. Never stored nor shown. */
	const char *const *headers;
	size_t header_count;
	/** When set, every skill to be installed or replaced is scanned
	 *  in staging first (docs/scan.md); a high or critical finding
	 *  refuses the install with SKIT_EDENIED, unless
	 *  SKIT_INSTALL_ALLOW_RISKY. The lock records the verdict. */
	skit_scanner *scanner;
	/** Each scanned skill's findings (may be empty); may be NULL. */
	void (*on_scan)(void *userdata, const char *skill,
	                const skit_scan_report *rep);
	/** (version 2) Agents' skills folders to link every installed
	 *  skill into, in the same transaction; the lock records the
	 *  links, and update, uninstall and verify follow them. An entry
	 *  there that skit did not make is never replaced: the install is
	 *  refused with SKIT_EEXISTS naming it. */
	const skit_install_target *targets;
	size_t target_count;
} skit_install_options;

#define SKIT_INSTALL_OPTIONS_VERSION 2
/* clang-format off */
#define SKIT_INSTALL_OPTIONS_INIT                                         \
 {                                                                        \
  SKIT_INSTALL_OPTIONS_VERSION, 0, NULL, 0, NULL, NULL, NULL, 0, 0, 0, 0, \
  0, NULL, NULL, 0, NULL, NULL, NULL, 0                                   \
 }
/* clang-format on */

/** The outcome of an install, update or uninstall. */
typedef struct skit_install_result skit_install_result;

SKIT_EXTERN size_t skit_install_result_count(const skit_install_result *r);
SKIT_EXTERN const skit_install_item *
skit_install_result_at(const skit_install_result *r, size_t i);
/** The root the command worked on, as an absolute path. */
SKIT_EXTERN const char *skit_install_result_root(const skit_install_result *r);
/**
 * The source the lock recorded for item `i` before this command, when
 * the command changed it (another `#REF`, another URL: what `skit update`
 * follows), else NULL. Owned by `r`.
 */
SKIT_EXTERN const char *
skit_install_result_previous_source(const skit_install_result *r, size_t i);
/** How many links (or copies) item `i` has in agents' folders. */
SKIT_EXTERN size_t skit_install_result_link_count(const skit_install_result *r,
                                                  size_t i);
/** Link `k` of item `i`, or NULL. Owned by `r`. */
SKIT_EXTERN const skit_install_link *
skit_install_result_link_at(const skit_install_result *r, size_t i, size_t k);
SKIT_EXTERN void skit_install_result_free(skit_install_result *r);

/**
 * Install every skill `src` holds into the skills folder `root`
 * (created if missing). `src` is:
 *  - a zip or `.skill` file, or a folder (holding `SKILL.md` itself, or
 *    skill folders, or a `skills/` folder of them);
 *  - `https://…/x.zip` (or `.skill`): downloaded with the size cap;
 *    `http://` is accepted only for 127.0.0.1 and localhost;
 *  - a git URL (`https://…`, `ssh://…`, `git@host:path`, `file://…`, or
 *    any of these after `git+`), cloned with `--depth 1`, with `#ref`
 *    (branch, tag or commit; `HEAD`: the default branch) and `//subdir`
 *    suffixes;
 *  - `OWNER/REPO[/PATH][@REF]` when no such path exists: the GitHub
 *    repository `https://github.com/OWNER/REPO#REF//PATH` (the
 *    environment's `SKIT_GITHUB_URL` replaces `https://github.com/`),
 *    recorded in the lock as that URL.
 * Credentials in a URL (`https://user:token@host/…`) are used to fetch
 * it and never recorded in the lock, the result or a message; see also
 * skit_install_options.headers and `~/.netrc` (docs/install.md).
 * Skills are checked with the loading rules (SKIT_INSTALL_STRICT:
 * conformance); a source holding a skill that cannot be loaded is
 * refused, every such skill reported through on_invalid, unless
 * SKIT_INSTALL_SKIP_INVALID installs the rest.
 * A pack of several skills installs all or nothing. `*out` (optional)
 * receives the plan that was carried out (or, with
 * SKIT_INSTALL_DRY_RUN, would have been).
 */
SKIT_EXTERN int skit_install(const char *root, const char *src,
                             const skit_install_options *opts,
                             skit_install_result **out, skit_error *err);

/**
 * Re-install the skill `name` (or, with NULL, every skill in the lock)
 * from its recorded source, at its newest version. Items report which
 * files change; unchanged skills are left alone. A skill whose installed
 * files no longer match the lock (local edits) is refused with
 * SKIT_EEXISTS naming the changed files, and nothing is updated, unless
 * `opts->flags` has SKIT_INSTALL_FORCE.
 */
SKIT_EXTERN int skit_update(const char *root, const char *name,
                            const skit_install_options *opts,
                            skit_install_result **out, skit_error *err);

/**
 * Make `root` hold exactly what the lock file `lock_path` (NULL: the
 * root's own) records: each skill is fetched from its source at the
 * recorded commit or archive digest, and must hash to the recorded
 * files, or nothing is installed. Skills already matching are kept.
 */
SKIT_EXTERN int skit_install_from_lock(const char *root, const char *lock_path,
                                       const skit_install_options *opts,
                                       skit_install_result **out,
                                       skit_error *err);

/**
 * Remove the skill `name` from `root` and from its lock, with the links
 * (and copies) the lock records in agents' folders. A skill folder
 * that is a symbolic link loses the link only; anything else is moved
 * aside with one rename() and then deleted without following links.
 * A skill the lock does not record is refused (SKIT_EDENIED): see
 * skit_uninstall_ex().
 */
SKIT_EXTERN int skit_uninstall(const char *root, const char *name,
                               skit_error *err);

/**
 * Remove the skills `names[0..n)` from `root` and from its lock, in one
 * transaction: every name is checked first, and a name that is not a
 * skill name or given twice (SKIT_EUSAGE), not installed
 * (SKIT_ENOTFOUND, naming it) or not recorded in the lock (SKIT_EDENIED:
 * a hand-written skill, or one another tool installed) removes nothing.
 * A crash leaves all of them installed or none (the next command that
 * locks the root finishes or undoes it). skit_uninstall() is this with
 * one name; it is skit_uninstall_ex() with no flags.
 */
SKIT_EXTERN int skit_uninstall_names(const char *root, const char *const *names,
                                     size_t n, skit_error *err);

/** Flags for skit_uninstall_ex(). */
typedef enum {
	/** Also remove skill folders (or links) the lock does not record,
	 *  and recorded copies in agents' folders that were edited. */
	SKIT_UNINSTALL_FORCE = 1u << 0,
} skit_uninstall_flag;

/** skit_uninstall_names() with skit_uninstall_flag `flags`. */
SKIT_EXTERN int skit_uninstall_ex(const char *root, const char *const *names,
                                  size_t n, unsigned int flags,
                                  skit_error *err);

/**
 * A transaction that a command left unfinished in a root: it died, or
 * the machine stopped, between creating its staging folder and removing
 * it. The next command that locks the root (install, uninstall, update,
 * verify) recovers it.
 */
typedef struct {
	char staging[32]; /**< the staging folder's name in the root */
	/** It had begun moving skills (its journal was written). */
	bool moved;
	/** The lock file already records its outcome: recovery keeps the
	 *  new state and only removes the folder. Otherwise recovery undoes
	 *  every move it made. */
	bool committed;
} skit_unfinished_txn;

/**
 * Find the transactions left unfinished in `root`, without taking its
 * lock or changing anything. A command at work right now (it holds the
 * lock) is not one of them: then none is reported. A missing root has
 * none. `*out` (free it with skit_free()) receives `*count` entries, or
 * NULL when there are none.
 */
SKIT_EXTERN int skit_root_unfinished(const char *root,
                                     skit_unfinished_txn **out, size_t *count,
                                     skit_error *err);

/* ---------------------------------------------------------------- */
/* OCI registries (docs/install.md, "OCI registries")                */

/** Options for skit_oci_push(); start from SKIT_OCI_OPTIONS_INIT. */
typedef struct {
	unsigned int version; /**< SKIT_OCI_OPTIONS_VERSION */
	/** Talk plain HTTP: accepted for loopback hosts only. */
	bool plain_http;
	/** Blobs larger than this go up in PATCH chunks of this size;
	 *  0: 16 MiB. */
	uint64_t chunk_size;
	long timeout_ms; /**< each request; 0 or less: 300 s */
} skit_oci_options;

/* clang-format off */
#define SKIT_OCI_OPTIONS_VERSION 1
#define SKIT_OCI_OPTIONS_INIT { SKIT_OCI_OPTIONS_VERSION, false, 0, 0 }
/* clang-format on */

/**
 * Push the pack file `pack_path` (from skit_pack()) to `ref`
 * ("oci://HOST[:PORT]/REPO:TAG") as an OCI image-spec 1.1 artifact:
 * artifactType application/vnd.skit.pack.v1+zip, the empty config and
 * one layer holding the pack, annotated with the skills' names and
 * versions and the signing key's id. Blobs the registry already holds
 * are not sent again. Credentials come from the registry's token flow
 * and ~/.docker/config.json. `digest` receives the manifest's
 * "sha256:HEX".
 */
SKIT_EXTERN int skit_oci_push(const char *pack_path, const char *ref,
                              const skit_oci_options *opts, char digest[72],
                              skit_error *err);

/** skit_install_options.flags bit: plain HTTP to a loopback oci://
 *  registry. */
#define SKIT_INSTALL_OCI_PLAIN_HTTP (1u << 16)

/* ---------------------------------------------------------------- */
/* The lock and verification                                         */

/** One skill recorded in a root's lock file. */
typedef struct {
	const char *name;
	const char *source;
	const char *resolved;     /**< or NULL */
	const char *version;      /**< metadata.version, or NULL */
	const char *installed_at; /**< UTC, ISO 8601 */
	const char *signed_by;    /**< or NULL */
	size_t files;
	uint64_t bytes;
	/** The scan at install: its highest severity ("clean" when there
	 *  was no finding) and the rules version; NULL when not scanned. */
	const char *scan_verdict;
	const char *scan_rules;
} skit_lock_entry;

typedef struct skit_lock skit_lock;

/**
 * Read `root`'s lock file. A root without one has an empty lock; a lock
 * file that is not valid is an error naming it.
 */
SKIT_EXTERN int skit_lock_read(skit_lock **out, const char *root,
                               skit_error *err);
SKIT_EXTERN size_t skit_lock_count(const skit_lock *lock);
SKIT_EXTERN const skit_lock_entry *skit_lock_at(const skit_lock *lock,
                                                size_t i);
/** How many links (or copies) in agents' folders entry `i` records. */
SKIT_EXTERN size_t skit_lock_link_count(const skit_lock *lock, size_t i);
/** Link `k` of entry `i` (its path made absolute; `made` is false), or
 *  NULL. Owned by `lock`. */
SKIT_EXTERN const skit_install_link *skit_lock_link_at(const skit_lock *lock,
                                                       size_t i, size_t k);
SKIT_EXTERN void skit_lock_free(skit_lock *lock);

/** One difference skit_verify() found. */
typedef enum {
	SKIT_VERIFY_CHANGED = 0, /**< other bytes or executable bit */
	SKIT_VERIFY_MISSING = 1, /**< in the lock, not on disk */
	SKIT_VERIFY_ADDED = 2,   /**< on disk, not in the lock */
	SKIT_VERIFY_UNSAFE = 3,  /**< a link, special file or writable mode */
	/** A link (or copy) the lock records in an agent's folder is
	 *  missing, leads elsewhere, or (a copy) differs; `path` is its
	 *  absolute path. */
	SKIT_VERIFY_LINK = 4,
} skit_verify_kind;

typedef struct {
	const char *skill;
	const char *path; /**< relative to the skill; "" for the folder */
	skit_verify_kind kind;
} skit_verify_finding;

typedef struct skit_verify_result skit_verify_result;

/**
 * Re-hash the installed files of `name` (NULL: every skill in the lock)
 * against the lock. Returns 0 when the check ran, whatever it found;
 * the findings are in `*out`. A name not in the lock is SKIT_ENOTFOUND.
 */
SKIT_EXTERN int skit_verify(skit_verify_result **out, const char *root,
                            const char *name, skit_error *err);
SKIT_EXTERN size_t skit_verify_count(const skit_verify_result *r);
SKIT_EXTERN const skit_verify_finding *
skit_verify_at(const skit_verify_result *r, size_t i);
/** How many skills were checked. */
SKIT_EXTERN size_t skit_verify_skills(const skit_verify_result *r);
SKIT_EXTERN void skit_verify_free(skit_verify_result *r);

SKIT_END_DECL

#endif /* SKIT_PACK_H */
