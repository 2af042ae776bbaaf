/* SPDX-License-Identifier: MIT */
/*
 * trust_int.h - the user config's trusted folders and saved approvals
 * (trust.c), as the registry and the agent use them.
 */
#ifndef SKIT_LIB_TRUST_INT_H
#define SKIT_LIB_TRUST_INT_H

#include <stdbool.h>

#include "skit/common.h"

/* The user config path, ${XDG_CONFIG_HOME:-$HOME/.config}/skit/config.json;
 * NULL in `*out` when neither variable gives one. 0 or SKIT_ENOMEM. */
int skit__user_config_path(char **out);

/* Why `dir` (absolute, clean) can never be a project, or NULL
 * (registry_config.c): such a folder cannot be trusted either. */
const char *skit__not_a_project(const char *dir);

/*
 * The digest set of the skill folder `dir`: the SHA-256 of a listing of
 * every entry under it (path, kind, exec bit, size and SHA-256 of each
 * file; links and special files by path and kind), in name order. Any
 * change to any file changes it.
 */
int skit__skill_digest_set(const char *dir, char hex[65], skit_error *err);

/*
 * Whether the user config holds an "always" approval of `script` of the
 * skill in `dir` whose digest set is `digest`. A malformed or missing
 * config is no approval.
 */
bool skit__approval_saved(const char *dir, const char *script,
                          const char *digest);

/* Save an "always" approval of `script` of skill `skill` in `dir` bound
 * to `digest`, replacing one for the same script. */
int skit__approval_save(const char *skill, const char *dir, const char *script,
                        const char *digest, skit_error *err);

#endif
