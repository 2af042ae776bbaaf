/* SPDX-License-Identifier: MIT */
#ifndef SKIT_REGISTRY_H
#define SKIT_REGISTRY_H

#include "skit/common.h"
#include "skit/prompt.h"
#include "skit/skill.h"

/**
 * @file skit/registry.h
 * @brief Skill roots with precedence, the level-1 index, lookup, search.
 *
 * A registry holds an ordered list of roots (highest precedence first). A
 * scan reads `<root>/<name>/SKILL.md` (frontmatter only) for every folder of
 * every root. The same name in several roots: the highest root wins and the
 * others are kept as *shadowed* entries. Skills with errors are kept as
 * *skipped* entries with the reason. Scanning never follows a symbolic link
 * to a file, follows a linked skill folder once (loop-checked by device and
 * inode), skips dot-folders, and never fails on a bad entry: it records a
 * diagnostic and goes on. A missing root is empty, not an error.
 *
 * The registry owns every string it hands out; they live until
 * skit_registry_free(). One registry per thread.
 */

SKIT_BEGIN_DECL

typedef struct skit_registry skit_registry;

/** Entry states (skit_entry.state). */
typedef enum {
	SKIT_ENTRY_ACTIVE = 0,   /**< visible: the winner for its name */
	SKIT_ENTRY_SHADOWED = 1, /**< same name in a higher root */
	SKIT_ENTRY_SKIPPED = 2,  /**< not loaded: errors (see `reason`) */
} skit_entry_state;

/** One skill folder found by a scan. A borrowed, read-only view. */
typedef struct {
	const char *name;          /**< NFKC name; the folder name if invalid */
	const char *description;   /**< stripped; "" for skipped entries */
	const char *when_to_use;   /**< NULL when absent */
	const char *argument_hint; /**< NULL when absent */
	const char *dir;           /**< the skill folder path */
	const char *file;          /**< its SKILL.md path */
	const char *source;        /**< the root's label: "project:agents"... */
	size_t root_index;         /**< 0 is the highest-precedence root */
	unsigned int flags; /**< SKIT_SKILL_DISABLE_MODEL_INVOCATION... */
	skit_entry_state state;
	const char *reason; /**< skipped: first error; shadowed: the winner's
	                       source; else NULL */
	size_t warnings;    /**< number of warnings at load */
} skit_entry;

/** Options for skit_registry_add_default_roots(). */
typedef struct {
	unsigned int version;  /**< SKIT_ROOTS_OPTIONS_VERSION */
	const char *cwd;       /**< start of the project search; NULL: getcwd */
	const char *home;      /**< NULL: $HOME */
	const char *skit_home; /**< NULL: $SKIT_HOME, else ~/.agents */
	const char *config_file; /**< extra config (JSON); NULL: none */
	bool no_config;          /**< ignore project and user config files */
	/** Honour folder trust (docs/registry.md): when the project is not
	 *  a folder the user trusts (skit_trust_check()), its roots and its
	 *  config `.agents/skit.json` are left out. false: they are read,
	 *  and skit_registry_project_trusted() tells whether they should
	 *  be shown as untrusted. */
	bool honour_trust;
} skit_roots_options;

/* clang-format off */
#define SKIT_ROOTS_OPTIONS_VERSION 1
#define SKIT_ROOTS_OPTIONS_INIT { SKIT_ROOTS_OPTIONS_VERSION, NULL, NULL, NULL, NULL, false, false }
/* clang-format on */

/** Create an empty registry (no roots). Free with skit_registry_free(). */
SKIT_EXTERN int skit_registry_new(skit_registry **out, skit_error *err);

/**
 * Append a root with the next lower precedence. `source` labels it
 * ("project", "user", "builtin", or anything). Both strings are copied;
 * a relative `path` is made absolute against the current folder now, so
 * entries, locations and script paths never depend on a later one.
 */
SKIT_EXTERN int skit_registry_add_root(skit_registry *reg, const char *source,
                                       const char *path, skit_error *err);

/**
 * Append the default roots (docs/registry.md, "Roots and precedence"),
 * as overridden by the
 * project config `.agents/skit.json` and the user config
 * `${XDG_CONFIG_HOME:-~/.config}/skit/config.json` (key "roots": an object
 * whose "project", "user" and "builtin" members are arrays of paths).
 * @return SKIT_OK; SKIT_EINVALID for a malformed config file (named in err).
 */
SKIT_EXTERN int skit_registry_add_default_roots(skit_registry *reg,
                                                const skit_roots_options *opts,
                                                skit_error *err);

/** The project folder the defaults found, or NULL. Borrowed. */
SKIT_EXTERN const char *skit_registry_project_dir(const skit_registry *reg);

/**
 * Whether the project the defaults found is a folder the user trusts
 * (skit_trust_check()); true when there is no project or the roots were
 * added by hand. Roots labelled for the project tier
 * (skit_registry_source_matches(label, "project")) of an untrusted
 * project hold someone else's code.
 */
SKIT_EXTERN bool skit_registry_project_trusted(const skit_registry *reg);

/**
 * True when skit_registry_add_default_roots() with `honour_trust` left
 * out something of an untrusted project: a project skills folder, its
 * `.agents/skit.json` or its `.mcp.json` that exists (a caller honouring
 * trust reads neither config file of an untrusted project). The caller may ask
 * the user to trust the project (skit_trust_add()) and open the registry again.
 */
SKIT_EXTERN bool skit_registry_project_held_back(const skit_registry *reg);

/**
 * The user config path, `${XDG_CONFIG_HOME:-$HOME/.config}/skit/config.json`.
 * @param[out] out  owned by the caller (skit_free())
 * @return SKIT_OK; SKIT_ENOTFOUND when neither variable is set; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_user_config_path(char **out, skit_error *err);

/**
 * Whether the user trusts the folder `dir`: it, or a folder holding it,
 * is in the user config's "trusted" list (absolute paths, compared after
 * resolving links). A missing or malformed user config trusts nothing.
 * @return SKIT_OK; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_trust_check(bool *trusted, const char *dir,
                                 skit_error *err);

/**
 * Trust the folder `dir` and every folder under it: add its resolved
 * path to the user config's "trusted" list (nothing when already
 * covered). The rest of the file is kept; it is written atomically.
 * @return SKIT_OK; SKIT_ENOTFOUND when `dir` is not a folder; SKIT_EUSAGE
 *         for the home folder, `/` or a system folder; SKIT_EINVALID when
 *         the user config is not valid JSON (it is left as it is);
 *         SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_trust_add(const char *dir, skit_error *err);

/**
 * Remove `dir` (as given made absolute, or resolved) from the trusted list.
 * @return SKIT_OK; SKIT_ENOTFOUND when it is not in the list;
 *         SKIT_EINVALID; SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_trust_remove(const char *dir, skit_error *err);

/**
 * The trusted folders, in the order they were added.
 * @param[out] out  `n` strings, owned by the caller: skit_strings_free()
 */
SKIT_EXTERN int skit_trust_list(char ***out, size_t *n, skit_error *err);

/** Free `n` strings and their array. NULL is a no-op. */
SKIT_EXTERN void skit_strings_free(char **v, size_t n);

/**
 * Find the project of the current folder, as skit_registry_add_default_roots()
 * does: the nearest ancestor (the folder itself included) holding a
 * `.agents/`, `.agent/` or `.claude/` folder or a `.git` entry, never the
 * home folder, `/` or a system folder (docs/permissions.md lists them).
 *
 * @param[out] out  the absolute path, owned by the caller (skit_free());
 *                  NULL when there is none
 * @return SKIT_OK (also when none was found); SKIT_EIO when the current
 *         folder cannot be read; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_project_find(char **out, skit_error *err);

/**
 * The project folder of an agent run started in `cwd`: the folder
 * skit_project_find() would find from there; with none, `cwd` itself,
 * unless it is the home folder, `/`, a system folder, or a hidden folder
 * of the home folder or one beneath it (`~/.ssh`, `~/.config/gh`), which
 * are never a project (their files would be the model's to read).
 *
 * @param[out] out  the absolute path, owned by the caller (skit_free())
 * @param cwd       where the run starts; NULL: the current folder
 * @return SKIT_OK; SKIT_ENOTFOUND when there is no project ("no project:
 *         /home/u is the home folder"); SKIT_EIO when the current folder
 *         cannot be read; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_project_for_run(char **out, const char *cwd,
                                     skit_error *err);

/**
 * Scan every root. Safe to call again: the old index is replaced only once
 * the new one is complete.
 * @return SKIT_OK (bad entries are diagnostics); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_registry_scan(skit_registry *reg, skit_error *err);

/** Number of roots. */
SKIT_EXTERN size_t skit_registry_root_count(const skit_registry *reg);

/** Root `i`: its label, path, whether it exists, and active skill count. */
SKIT_EXTERN void skit_registry_root(const skit_registry *reg, size_t i,
                                    const char **source, const char **path,
                                    bool *exists, size_t *skills);

/**
 * Active entries, ordered by root precedence, then name (byte order).
 * This is the order of the index.
 */
SKIT_EXTERN size_t skit_registry_count(const skit_registry *reg);
SKIT_EXTERN const skit_entry *skit_registry_entry(const skit_registry *reg,
                                                  size_t i);

/** Every entry (active, shadowed, skipped), ordered by name, then root. */
SKIT_EXTERN size_t skit_registry_all_count(const skit_registry *reg);
SKIT_EXTERN const skit_entry *skit_registry_all_entry(const skit_registry *reg,
                                                      size_t i);

/**
 * True when a root labelled `label` answers to `source`: the same label,
 * or `source` is a tier ("project", "user", "builtin") and the label is
 * one of its roots ("user:claude"). `--source` and skit_registry_find()
 * use it.
 */
SKIT_EXTERN bool skit_registry_source_matches(const char *label,
                                              const char *source);

/**
 * Find `name`: the active entry, or with `source` non-NULL the entry from
 * the highest root whose label answers to `source`
 * (skit_registry_source_matches(); active or shadowed). A name no skill
 * is known by also finds a skill known by its folder name whose
 * frontmatter declares that name (docs/format.md). NULL when none.
 */
SKIT_EXTERN const skit_entry *skit_registry_find(const skit_registry *reg,
                                                 const char *name,
                                                 const char *source);

/** Scan findings that belong to no loaded skill (loops, collisions...). */
SKIT_EXTERN const skit_diag *skit_registry_diags(const skit_registry *reg,
                                                 size_t *count);

/**
 * Load the entry's skill in full (lenient), e.g. to read its body.
 * @param[out] out  owned by the caller; free with skit_skill_free()
 */
SKIT_EXTERN int skit_registry_load(skit_skill **out, const skit_registry *reg,
                                   const skit_entry *entry, skit_error *err);

/** Search flags. */
enum {
	SKIT_SEARCH_BODY = 1u << 0, /**< also index the bodies (reads them) */
};

/** A search result. */
typedef struct {
	const skit_entry *entry;
	double score;
} skit_search_hit;

/**
 * Rank active entries against `query` with BM25 over name and description
 * (and bodies with SKIT_SEARCH_BODY). The inverted index is built on the
 * first call and kept. Ties break by index order, so results are stable.
 *
 * @param hits   room for `k` results
 * @param[out] n number of results written (<= k); only scores > 0
 */
SKIT_EXTERN int skit_registry_search(skit_registry *reg, const char *query,
                                     unsigned int flags, skit_search_hit *hits,
                                     size_t k, size_t *n, skit_error *err);

/**
 * Load what `skit to-prompt` lists about each of the skill folders `dirs`,
 * in order: the name as written (skit_skill_name_raw()), the description
 * and the path of the SKILL.md found, each folder loaded with
 * skit_skill_load() (default options) and checked with
 * skit_skill_check_properties(). The registry's roots and index are not
 * used or changed; `reg` lends its settings (the cache switch, threads).
 *
 * It is faster than a loop of those calls, with the same result: folders
 * are loaded on a few threads, and a folder given as an absolute path
 * whose parent folder has an index cache (written by a scan of that
 * parent as a root; docs/registry.md) is served from its record when the
 * record is of an active skill and its key, the stat() of the folder and
 * of its SKILL.md, still matches. Nothing else is taken from the cache,
 * and this call never writes one. SKIT_NO_CACHE turns the cache off.
 *
 * @param[out] out  `n` items, owned by the caller; free them with
 *                  skit_registry_prompt_items_free() (an item's three
 *                  strings are one allocation: never free or replace
 *                  one alone). NULL on failure.
 * @param dirs      `n` folder paths (a SKILL.md path means its folder)
 * @param[out] err  on failure, the message of the first folder (in
 *                  order) that failed, as skit_skill_load() or
 *                  skit_skill_check_properties() gives it
 * @return SKIT_OK; the first failing folder's status: SKIT_ENOTFOUND (no
 *         such path), SKIT_EINVALID (no SKILL.md, or no name or
 *         description); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_registry_prompt_items(skit_prompt_item **out,
                                           skit_registry *reg,
                                           const char *const *dirs, size_t n,
                                           skit_error *err);

/**
 * Free `n` items from skit_registry_prompt_items() and their strings.
 * NULL is a no-op.
 */
SKIT_EXTERN void skit_registry_prompt_items_free(skit_prompt_item *items,
                                                 size_t n);

/**
 * The skills index exactly as skit's agent puts it in its system prompt:
 * every entry of the scanned registry a model may invoke (those with
 * `disable-model-invocation` are left out), each description followed by
 * its `when_to_use`, rendered by skit_prompt_render() with `opts` (NULL:
 * SKIT_PROMPT_OPTIONS_INIT, XML without a budget). For a host's own
 * system prompt, and what `skit mcp` tells clients.
 *
 * @param[out] out    owned by the caller; free with skit_free()
 * @param[out] stats  may be NULL; `shown` and `omitted` are 0 when the
 *                    registry offers no skill
 * @return SKIT_OK; SKIT_ETOOBIG when not even the cut-notice fits the
 *         budget; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_registry_render_index(const skit_registry *reg,
                                           const skit_prompt_options *opts,
                                           char **out, skit_prompt_stats *stats,
                                           skit_error *err);

/** Free `reg` and everything it owns. NULL is a no-op. */
SKIT_EXTERN void skit_registry_free(skit_registry *reg);

SKIT_END_DECL

#endif /* SKIT_REGISTRY_H */
