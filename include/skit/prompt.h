/* SPDX-License-Identifier: MIT */
#ifndef SKIT_PROMPT_H
#define SKIT_PROMPT_H

#include "skit/common.h"

/**
 * @file skit/prompt.h
 * @brief Render the skills index (level 1) as system-prompt text.
 *
 * Formats: the reference's `<available_skills>` XML, Markdown
 * (`- name: description`) and JSON. Under a budget, descriptions are first
 * shortened (all to one common length, at a word boundary when possible),
 * then the lowest-precedence skills (the last items) are left out, and the
 * text says how many were cut and that search_skills finds them. The same
 * input always gives the same output.
 */

SKIT_BEGIN_DECL

typedef enum {
	SKIT_PROMPT_XML = 0,
	SKIT_PROMPT_MARKDOWN = 1,
	SKIT_PROMPT_JSON = 2,
} skit_prompt_format;

/** One skill to list; items are given highest precedence first. */
typedef struct {
	const char *name;
	const char *description;
	const char *location; /**< SKILL.md path (XML and JSON) */
} skit_prompt_item;

/** Options for skit_prompt_render(); start from SKIT_PROMPT_OPTIONS_INIT. */
typedef struct {
	unsigned int version; /**< SKIT_PROMPT_OPTIONS_VERSION */
	skit_prompt_format format;
	size_t budget;      /**< limit in characters (code points); 0: none */
	unsigned int flags; /**< SKIT_PROMPT_VERBATIM */
} skit_prompt_options;

/**
 * Keep hidden characters (controls, bidirectional, zero-width, TAG) in
 * names and descriptions, as the reference does. By default they are
 * stripped, because skill text is untrusted and goes into a model's
 * prompt (`skit validate` flags them as `hidden-unicode`).
 */
#define SKIT_PROMPT_VERBATIM (1u << 0)

/* clang-format off */
#define SKIT_PROMPT_OPTIONS_VERSION 1
#define SKIT_PROMPT_OPTIONS_INIT { SKIT_PROMPT_OPTIONS_VERSION, SKIT_PROMPT_XML, 0, 0 }
/* clang-format on */

/** What rendering did (all may be NULL-ignored by passing NULL). */
typedef struct {
	size_t shown;     /**< skills in the output */
	size_t shortened; /**< of those, with a shortened description */
	size_t omitted;   /**< skills left out */
	size_t chars;     /**< output length in code points */
} skit_prompt_stats;

/** Default budget used by the agent and `skit doctor`, in characters. */
#define SKIT_PROMPT_DEFAULT_BUDGET 32000

/**
 * Render `items`. Without a budget, XML is byte-identical to the
 * reference's to_prompt() (no final newline).
 *
 * @param[out] out    owned by the caller; free with skit_free()
 * @param[out] stats  may be NULL
 * @return SKIT_OK; SKIT_ETOOBIG when not even the cut-notice fits the
 *         budget; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_prompt_render(char **out, const skit_prompt_item *items,
                                   size_t n, const skit_prompt_options *opts,
                                   skit_prompt_stats *stats, skit_error *err);

/**
 * Parse a budget: "8000" (characters) or "2000tok" / "2000t" (estimated
 * tokens, 4 characters each).
 * @return SKIT_OK; SKIT_EUSAGE for anything else.
 */
SKIT_EXTERN int skit_prompt_parse_budget(size_t *out_chars, const char *text,
                                         skit_error *err);

/** Estimated tokens for `chars` characters (ceil(chars / 4)). */
SKIT_EXTERN size_t skit_prompt_estimate_tokens(size_t chars);

SKIT_END_DECL

#endif /* SKIT_PROMPT_H */
