/* SPDX-License-Identifier: MIT */
/*
 * approvals.h - saved "always" approvals of skill scripts, bound to the
 * content of the skill (approvals.c). Part of the agent subsystem:
 * included by the agent's gate (agent_tools.c) and its tests.
 */
#ifndef SKIT_LIB_AGENT_APPROVALS_H
#define SKIT_LIB_AGENT_APPROVALS_H

#include <stdbool.h>

#include "skit/common.h"

/*
 * The digest set of the skill folder `dir`: the SHA-256 of a listing of
 * every entry under it (path, kind, exec bit, size and SHA-256 of each
 * file; a link by its text and what it reaches: a file's content
 * wherever it is, a folder inside the skill by its path), in name order.
 * Any change to any file, or to where a link leads, changes it. A link
 * to a folder or special file outside the skill is SKIT_EUNSAFE: such a
 * skill has no digest set (an "always" lasts the session only).
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
