/* SPDX-License-Identifier: MIT */
#ifndef SKIT_SKILL_H
#define SKIT_SKILL_H

#include "skit/common.h"

/**
 * @file skit/skill.h
 * @brief Parse and validate one skill folder (its SKILL.md).
 *
 * skit_skill_load() reads only the frontmatter of SKILL.md (progressive
 * disclosure, level 1): it stops at the block holding the closing "---"
 * and never parses, keeps or validates the body. The body (level 2) is read
 * by skit_skill_body(), and the folder's other files (level 3) are listed by
 * skit_skill_foreach_file(), both only when asked.
 *
 * Findings about the skill are data, not failures: a skill that breaks the
 * spec still loads, and its diagnostics say why. Verdicts and messages follow
 * the reference implementation (docs/format.md says where and why skit
 * differs).
 */

SKIT_BEGIN_DECL

/** How serious a diagnostic is. */
typedef enum {
	SKIT_SEVERITY_ERROR = 0,   /**< the skill is invalid */
	SKIT_SEVERITY_WARNING = 1, /**< a lint; valid unless `--strict` */
} skit_severity;

/**
 * One finding. All pointers are owned by the object that returned it and
 * live as long as that object.
 */
typedef struct {
	skit_severity severity;
	const char *code; /**< stable identifier, e.g. "name-not-lowercase" */
	const char *message;       /**< the text, as the reference words it */
	const char *path;          /**< the file or folder it is about */
	unsigned int line, column; /**< 1-based; 0 when unknown */
} skit_diag;

/** A loaded skill. Opaque; free it with skit_skill_free(). */
typedef struct skit_skill skit_skill;

/** Load flags for skit_skill_options.flags. */
enum {
	/**
	 * The loading rules (registry, agent, to-prompt, install, pack) in
	 * place of conformance: flow collections, a name that differs from
	 * its folder or breaks the character rules, a missing name, an
	 * unquoted ": " in a plain description, a description or
	 * compatibility over its limit and unknown fields are warnings, and
	 * the fields other clients use are known (docs/format.md).
	 */
	SKIT_SKILL_LENIENT = 1u << 0,
	/**
	 * Also run the lints that need the body and the folder (body length,
	 * links, nested references, script modes, secrets). This reads level
	 * 2 and lists level 3; the registry never sets it.
	 */
	SKIT_SKILL_LINT = 1u << 1,
	/**
	 * Read the whole SKILL.md in the load, from the one descriptor that
	 * gives the frontmatter, and keep the body (skit_skill_body() then
	 * returns it without opening the file again). A body that is not
	 * valid UTF-8 or holds a NUL makes the skill invalid
	 * (`body-invalid`). `skit show` uses it: what it prints all comes
	 * from one read.
	 */
	SKIT_SKILL_BODY = 1u << 2,
};

/** Run-time flags a skill's frontmatter sets (skit_skill_flags()). */
enum {
	SKIT_SKILL_DISABLE_MODEL_INVOCATION =
	        1u << 0,                         /**< hidden from the index */
	SKIT_SKILL_NOT_USER_INVOCABLE = 1u << 1, /**< no `/name` */
	SKIT_SKILL_LOWERCASE_FILE = 1u << 2,     /**< found as "skill.md" */
	/**
	 * Lenient loads: the name is missing or breaks the character rules,
	 * so the registry knows the skill by its folder name instead.
	 */
	SKIT_SKILL_NAME_INVALID = 1u << 3,
};

/** Options for skit_skill_load(); start from SKIT_SKILL_OPTIONS_INIT. */
typedef struct {
	unsigned int version;   /**< SKIT_SKILL_OPTIONS_VERSION */
	unsigned int flags;     /**< SKIT_SKILL_LENIENT, SKIT_SKILL_LINT */
	size_t max_frontmatter; /**< bytes up to the closing fence; 0: 64 KiB */
	size_t max_file;        /**< size of SKILL.md; 0: 8 MiB */
} skit_skill_options;

/* clang-format off */
#define SKIT_SKILL_OPTIONS_VERSION 1
#define SKIT_SKILL_OPTIONS_INIT { SKIT_SKILL_OPTIONS_VERSION, 0, 0, 0 }
/* clang-format on */

/**
 * Load the skill in folder `path`.
 *
 * When `path` is a regular file named SKILL.md or skill.md (any case), its
 * folder is used instead, as the reference's CLI does. Problems with the
 * skill itself (not a folder, no SKILL.md, bad YAML, rule violations) do not
 * fail the call: they are diagnostics, and skit_skill_valid() is false.
 *
 * @param[out] out  the skill, owned by the caller; NULL on failure
 * @param path      a skill folder, or its SKILL.md
 * @param opts      options, or NULL for the defaults
 * @param[out] err  filled in on failure; may be NULL
 * @return SKIT_OK; SKIT_ENOTFOUND when `path` does not exist; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_skill_load(skit_skill **out, const char *path,
                                const skit_skill_options *opts,
                                skit_error *err);

/** True when the skill has no error diagnostics. */
SKIT_EXTERN bool skit_skill_valid(const skit_skill *skill);

/** True when warnings exist (for `--strict`). */
SKIT_EXTERN bool skit_skill_has_warnings(const skit_skill *skill);

/**
 * The diagnostics, errors in the reference's order, then warnings.
 * Borrowed: valid until skit_skill_free(). `count` must not be NULL.
 */
SKIT_EXTERN const skit_diag *skit_skill_diags(const skit_skill *skill,
                                              size_t *count);

/** The folder, as given (after the SKILL.md-file substitution). */
SKIT_EXTERN const char *skit_skill_dir(const skit_skill *skill);

/** The SKILL.md (or skill.md) path actually found, or NULL when none. */
SKIT_EXTERN const char *skit_skill_file(const skit_skill *skill);

/** The folder's last path component, as pathlib's `.name` gives it. */
SKIT_EXTERN const char *skit_skill_dir_name(const skit_skill *skill);

/**
 * The name: stripped and NFKC-normalised. NULL when missing or not a
 * non-empty string. Borrowed, like every getter below.
 */
SKIT_EXTERN const char *skit_skill_name(const skit_skill *skill);

/**
 * The name stripped but not normalised, as read-properties and to-prompt
 * print it. NULL when missing or not a non-empty string.
 */
SKIT_EXTERN const char *skit_skill_name_raw(const skit_skill *skill);

/**
 * The name a registry knows the skill by (docs/format.md): its name
 * (skit_skill_name()) when that name obeys the character rules and
 * matches the folder, else the folder's name (skit_skill_dir_name()).
 * Never NULL.
 */
SKIT_EXTERN const char *skit_skill_known_name(const skit_skill *skill);

/** The description, stripped; NULL when missing or not a string. */
SKIT_EXTERN const char *skit_skill_description(const skit_skill *skill);

/**
 * The description `skit init` writes when none is given. A skill whose
 * description is still this text gets the warning
 * `description-placeholder` (valid, but `skit validate --strict` fails).
 */
#define SKIT_SKILL_PLACEHOLDER_DESCRIPTION \
 "Describe what this skill does and when an agent should use it."

/**
 * A top-level frontmatter field's text when it is a scalar, as written
 * (not stripped). NULL when absent or not a scalar.
 */
SKIT_EXTERN const char *skit_skill_field(const skit_skill *skill,
                                         const char *key);

/**
 * `allowed-tools`: the spec's space-separated string; a YAML list is
 * joined with single spaces (and drew a warning). NULL when absent.
 */
SKIT_EXTERN const char *skit_skill_allowed_tools(const skit_skill *skill);

/**
 * `disallowed-tools` (Claude Code's field: the tools the skill forbids
 * while it is active), as a string of patterns; a YAML list (the usual
 * form) is joined with single spaces. NULL when absent or neither.
 * skit_allowed_tools_disallow() parses it.
 */
SKIT_EXTERN const char *skit_skill_disallowed_tools(const skit_skill *skill);

/** `when_to_use`, `argument-hint`: NULL when absent. */
SKIT_EXTERN const char *skit_skill_when_to_use(const skit_skill *skill);
SKIT_EXTERN const char *skit_skill_argument_hint(const skit_skill *skill);

/** SKIT_SKILL_DISABLE_MODEL_INVOCATION and friends. */
SKIT_EXTERN unsigned int skit_skill_flags(const skit_skill *skill);

/** Number of `metadata` entries whose value is a string. */
SKIT_EXTERN size_t skit_skill_metadata_count(const skit_skill *skill);

/** The `i`th metadata pair, in file order. Borrowed. */
SKIT_EXTERN void skit_skill_metadata_at(const skit_skill *skill, size_t i,
                                        const char **key, const char **value);

/** 1-based line of SKILL.md where the body starts; 0 when unknown. */
SKIT_EXTERN unsigned int skit_skill_body_line(const skit_skill *skill);

/**
 * Read the body (level 2): the Markdown after the closing fence, with line
 * ends normalised to "\n", stripped of surrounding whitespace. Read on the
 * first call and kept; later calls return the same bytes.
 *
 * @param[out] out  borrowed, NUL-terminated; valid until skit_skill_free()
 * @param[out] len  its length; may be NULL
 * @return SKIT_OK; SKIT_ENOTFOUND without a SKILL.md; SKIT_ETOOBIG;
 *         SKIT_EENCODING for invalid UTF-8 or a NUL byte; SKIT_EIO;
 *         SKIT_EINVALID when the frontmatter could not be split.
 */
SKIT_EXTERN int skit_skill_body(skit_skill *skill, const char **out,
                                size_t *len, skit_error *err);

/** Callback for skit_skill_foreach_file(); non-zero stops the walk. */
typedef int (*skit_file_cb)(const char *relpath, bool is_dir, void *payload);

/**
 * List the files under the skill folder (level 3 paths, never contents), in
 * byte order, depth first, not following symbolic links and skipping
 * SKILL.md itself. Stops after 10,000 entries or 16 levels.
 * @return SKIT_OK, the callback's non-zero value, or SKIT_EIO.
 */
SKIT_EXTERN int skit_skill_foreach_file(skit_skill *skill, skit_file_cb cb,
                                        void *payload, skit_error *err);

/**
 * The reference's read-properties JSON (2-space indent, ASCII escapes, the
 * reference's key order), with a final newline. No validation beyond what
 * the reference checks.
 *
 * @param[out] out  owned by the caller; free with skit_free()
 * @return SKIT_OK; SKIT_EINVALID with the reference's message in `err`.
 */
SKIT_EXTERN int skit_skill_properties_json(char **out, const skit_skill *skill,
                                           skit_error *err);

/**
 * The checks read-properties and to-prompt make (no validation): a
 * SKILL.md exists and parses, and name and description are non-empty
 * strings. Fills `err` with the reference's message.
 * @return SKIT_OK or SKIT_EINVALID.
 */
SKIT_EXTERN int skit_skill_check_properties(const skit_skill *skill,
                                            skit_error *err);

/** Free `skill` and everything it owns. NULL is a no-op. */
SKIT_EXTERN void skit_skill_free(skit_skill *skill);

/**
 * Check a would-be skill name as validate does, without a folder.
 * @return true when `name` (already stripped) obeys every name rule.
 */
SKIT_EXTERN bool skit_skill_name_ok(const char *name);

SKIT_END_DECL

#endif /* SKIT_SKILL_H */
