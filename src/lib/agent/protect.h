/* SPDX-License-Identifier: MIT */
/*
 * protect.h - the protected paths of a run (library-internal).
 *
 * Some paths run code or decide policy later: the project's `.git/`
 * (hooks, config), the skill roots, `.agents/skit.json`, the audit trail,
 * the user config and the user's skills. Nothing the model drives may
 * write them: not write_file, not a script, not a shell call, in every
 * sandbox mode but full-access. This module names them (for write_file
 * and for the sandbox, which makes them read-only to programs) and
 * checks a write_file target against them. It does not write, and it
 * does not decide the mode: callers skip it in full-access.
 */
#ifndef SKIT_LIB_PROTECT_H
#define SKIT_LIB_PROTECT_H

#include <stdbool.h>

#include "util/vec.h"

struct skit_agent;

/*
 * Append to `out` the protected paths of the run `a`, absolute, as
 * skitx_malloc'd strings the caller owns (free them with
 * skit__protected_paths_release()). Each path protects itself and, when
 * it is a folder, everything under it; it need not exist. Where a path
 * goes through a symbolic link, its resolved spelling is listed too, so
 * a check on either spelling holds. The list:
 *   <project>/.git, <project>/.agents/skills, <project>/.agent/skills,
 *   <project>/.claude/skills, <project>/.agents/skit.json,
 *   <project>/.agents/runs and the run's own audit trail root,
 *   $XDG_CONFIG_HOME/skit and $HOME/.config/skit (the user config's
 *   folders: trusted folders, saved approvals), the user config file
 *   itself (so a linked config's target is protected too),
 *   $HOME/.agents/skills, $SKIT_HOME/skills, and every root of the
 *   agent's registry (project, user and builtin skill roots).
 * Returns 0, or SKIT_ENOMEM (what was appended stays owned by `out`).
 */
int skit__protected_paths(struct skitx_vec *out, const struct skit_agent *a);

/* Free the strings of a list from skit__protected_paths() and the list. */
void skit__protected_paths_release(struct skitx_vec *v);

/*
 * The entry of `list` that the absolute, lexically clean path `abs` is
 * or lies under (borrowed), or NULL when none.
 */
const char *skit__protected_match(const struct skitx_vec *list,
                                  const char *abs);

/*
 * May write_file write `rel` (relative to the project, already checked
 * by skit__check_rel_path()) in the run `a`? Checks the path by name
 * (any `.git` component, and the list above, on the project's resolved
 * spelling). NULL when it may; else the protected path in the way,
 * copied into `why` (at most `cap` bytes). Out of memory refuses.
 */
const char *skit__protect_check_rel(const struct skit_agent *a, const char *rel,
                                    char *why, size_t cap);

/*
 * The same check on what the file system says, once the parent folder
 * of the target is open at `dirfd` (reached without following links)
 * and `base` is the last component: refuses when the folder is, or lies
 * under, an existing protected folder (by device and inode, so a bind
 * mount or a case-folding file system cannot hide it), or when `base`
 * names an existing protected file. NULL or the reason, as above.
 */
const char *skit__protect_check_at(const struct skit_agent *a, int dirfd,
                                   const char *base, char *why, size_t cap);

#endif
