/* SPDX-License-Identifier: MIT */
/*
 * skill_load.c - skit_skill_load(): parse and validate SKILL.md
 * (skill.c), then, with SKIT_SKILL_LINT, the lints (lint.c), then order
 * the diagnostics. On top of both, so that neither calls the other's
 * caller.
 */
#include "common.h"

#include <fcntl.h>

#include "skit/skill.h"
#include "lib/core/error.h"
#include "lib/skill/skill_int.h"
#include "util/alloc.h"

#define DEFAULT_MAX_FRONTMATTER (64 * 1024)
#define DEFAULT_MAX_FILE        (8 * 1024 * 1024)

int skit__skill_load_at(skit_skill **out, int dirfd, const char *rel,
                        const char *path, const skit_skill_options *opts,
                        skit_error *err)
{
	static const skit_skill_options defaults = SKIT_SKILL_OPTIONS_INIT;
	struct skit_skill *s;
	int error;

	assert(out && path);
	*out = NULL;
	if (!opts)
		opts = &defaults;
	if (opts->version != SKIT_SKILL_OPTIONS_VERSION)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "unknown skill options version %u",
		                       opts->version);
	s = skitx_calloc(1, sizeof(*s));
	if (!s)
		return skit__error_oom(err);
	skitx_pool_init(&s->pool, 0);
	s->opts = *opts;
	if (!s->opts.max_frontmatter)
		s->opts.max_frontmatter = DEFAULT_MAX_FRONTMATTER;
	if (!s->opts.max_file)
		s->opts.max_file = DEFAULT_MAX_FILE;

	error = skit__skill_parse(s, path, dirfd, rel);
	/* The lints need a skill that parsed; they only add warnings. */
	if (!error && !s->fatal && (s->opts.flags & SKIT_SKILL_LINT))
		error = skit__skill_lint(s);
	if (error == SKIT_ENOTFOUND) {
		skit_skill_free(s);
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "Path does not exist: %s", path);
	}
	if (!error)
		error = skit__skill_order_diags(s);
	if (error < 0) {
		skit_skill_free(s);
		return error == SKIT_ENOMEM ? skit__error_oom(err)
		                            : skit__error_code(err, error);
	}
	*out = s;
	return 0;
}

int skit_skill_load(skit_skill **out, const char *path,
                    const skit_skill_options *opts, skit_error *err)
{
	return skit__skill_load_at(out, AT_FDCWD, NULL, path, opts, err);
}
