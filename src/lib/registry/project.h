/* SPDX-License-Identifier: MIT */
/*
 * project.h - the project folder (project.c): private to the registry
 * folder (registry_config.c, trust.c); the rest of the library and the
 * CLI use skit_project_find() and skit_project_for_run().
 */
#ifndef SKIT_LIB_REGISTRY_PROJECT_H
#define SKIT_LIB_REGISTRY_PROJECT_H

#include "skit/common.h"

/* Why `dir` (absolute, clean) can never be a project, or NULL: such a
 * folder cannot be trusted either. */
const char *skit__not_a_project(const char *dir);

/*
 * The project of `cwd` (absolute): the nearest ancestor, itself
 * included, holding `.agents/`, `.agent/`, `.claude/` or a `.git` entry,
 * skipping the folders that are never a project and stopping at the home
 * folder `home` (may be NULL). `*out` NULL when there is none.
 * Returns 0 or SKIT_ENOMEM.
 */
int skit__project_find_from(char **out, const char *cwd, const char *home);

#endif
