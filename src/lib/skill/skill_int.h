/* SPDX-License-Identifier: MIT */
/*
 * skill_int.h - the skit_skill structure, shared by skill.c (load and
 * validate), lint.c (warnings that need the body and the folder) and
 * props.c (the reference's read-properties JSON).
 *
 * The skill subsystem (src/lib/skill/) owns parsing and validating one
 * SKILL.md: the frontmatter's YAML (yaml.c), the skit_skill object
 * (skill.c), the lints (lint.c) and the reference's properties (props.c).
 * It uses only core and util. This header is its door: the registry
 * (which builds its index from skit_skill) and the tests may include it.
 */
#ifndef SKIT_LIB_SKILL_INT_H
#define SKIT_LIB_SKILL_INT_H

#include <sys/stat.h>

#include "skit/skill.h"
#include "lib/skill/yaml.h"
#include "util/buf.h"
#include "util/pool.h"

struct skit_skill {
	struct skitx_pool pool;
	skit_skill_options opts;

	const char *dir;      /* pathlib-normalised path of the folder */
	const char *dir_name; /* its last component */
	const char *file;     /* dir + "/SKILL.md" (or skill.md), if found */
	/* fstat() of SKILL.md opened relative to a scan's root: the index
	   cache keys a newly loaded skill with it (no second stat) */
	bool md_stat_ok;
	struct stat md_stat;

	/* Set when reading or parsing failed: the stage's one message. */
	const char *fatal;
	bool no_file; /* no SKILL.md at all (read-properties wording) */

	struct skit__ynode *root; /* the frontmatter mapping */
	const char *name;         /* stripped + NFKC, or NULL */
	const char *name_raw;     /* stripped, or NULL */
	const char *description;  /* stripped, or NULL */
	const char *allowed_tools, *when_to_use, *argument_hint;
	const char *disallowed_tools; /* a YAML list joined with blanks */
	bool name_mismatch;           /* name-dir-mismatch (error or warning) */
	unsigned int flags;
	const char **meta_keys, **meta_values;
	size_t meta_count;

	size_t body_offset;          /* raw byte offset of the body */
	unsigned int body_line;      /* its 1-based line */
	unsigned int body_text_line; /* line of the stripped body's start */
	bool body_loaded;
	const char *body;
	size_t body_len;
	size_t bytes_read; /* bytes read from SKILL.md so far (tests) */

	skit_diag *diags;
	size_t ndiags, diag_alloc;
};

/* Append a diagnostic; the message is formatted into the pool. */
/*
 * Whether `name` is one of the agents every skit agent has without a
 * profile file, as Claude Code has them: general-purpose (no profile),
 * Explore and Plan (agent/profile.c holds what they are). lint.c.
 */
bool skit__skill_builtin_agent(const char *name);

int skit__skill_diag(struct skit_skill *s, skit_severity sev, const char *code,
                     const char *path, unsigned int line, unsigned int col,
                     const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 7, 8)))
#endif
        ;

/* The lints of SKIT_SKILL_LINT (lint.c). */
int skit__skill_lint(struct skit_skill *s);

/* Read, parse and validate SKILL.md into `s` (skill.c), as
 * skit__skill_load_at() describes; no lints. A fatal finding is a
 * diagnostic (s->fatal), not an error. 0, SKIT_ENOTFOUND, SKIT_ENOMEM... */
int skit__skill_parse(struct skit_skill *s, const char *path, int dirfd,
                      const char *rel);

/* Errors first, in the order found, then warnings: a stable partition. */
int skit__skill_order_diags(struct skit_skill *s);

/*
 * skit_skill_load() of `path`, which names the same folder as `rel` taken
 * relative to the open folder `dirfd`: SKILL.md is first opened as
 * `rel`/SKILL.md under `dirfd` (a registry scan holds each root open),
 * and everything else, messages included, uses `path`. A NULL `rel` is
 * plain skit_skill_load(). Safe on several threads at once, one skill
 * each.
 */
int skit__skill_load_at(skit_skill **out, int dirfd, const char *rel,
                        const char *path, const skit_skill_options *opts,
                        skit_error *err);

/* Bytes read from SKILL.md so far, for the progressive-disclosure tests. */
size_t skit__skill_bytes_read(const skit_skill *s);

#endif
