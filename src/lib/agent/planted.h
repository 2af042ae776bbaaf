/* SPDX-License-Identifier: MIT */
/*
 * planted.h - what a task's programs left in the project that runs code
 * or loads skills later (library-internal).
 *
 * The sandbox keeps the protected paths that exist when a program starts
 * read-only, but it cannot name the paths a program will create: a
 * script may plant `docs/.git` (whose `core.fsmonitor` or hooks run when
 * the user later types `git` there) or `src/.agents/skills/x` (a skill
 * root for a later `cd src && skit run`). So after a task whose programs
 * could write the project, the agent walks it for such entries changed
 * since the task started and reports them (docs/sandbox.md, "What a task
 * leaves behind").
 */
#ifndef SKIT_LIB_PLANTED_H
#define SKIT_LIB_PLANTED_H

#include <time.h>

#include "skit/common.h"
#include "util/vec.h"

/* Entries a walk looks at before it stops (and reports `*partial`). */
#define SKIT__PLANTED_MAX_ENTRIES 200000

/*
 * Walk `project` (no link followed, `.git` folders not entered) for
 * entries named `.git` (folder or file), `.agents`, `.agent` or `.claude`
 * below its top level whose inode changed at or after `since` (ctime:
 * created, moved into place or changed; a program cannot set it back).
 * Take `since` from CLOCK_REALTIME_COARSE, the clock file times come
 * from: a finer clock can be ahead of the ctime of a file made after it.
 * Each one found is pushed to `found` as a project-relative path
 * (skitx_malloc'd; the caller frees them), in walk order, at most
 * `max_found`. `*partial` is set when the walk stopped at
 * SKIT__PLANTED_MAX_ENTRIES or met a folder it could not read.
 * Returns 0 or SKIT_ENOMEM; an unreadable project is not an error.
 */
int skit__planted_scan(const char *project, const struct timespec *since,
                       struct skitx_vec *found, size_t max_found,
                       bool *partial);

/* The agent's side (planted.c): forget the last task's report; after a
 * task whose programs could write the project, scan it and report what
 * they planted (trail, trace, skit_agent_planted()). 0 or SKIT_ENOMEM. */
struct skit_agent;
void skit__agent_planted_clear(struct skit_agent *a);
int skit__agent_planted_check(struct skit_agent *a);

#endif
