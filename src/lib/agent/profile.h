/* SPDX-License-Identifier: MIT */
/*
 * profile.h - agent profiles: a named set of instructions, tools and a
 * model that a subagent runs with (a skill's `agent:` field, the task
 * tool's `subagent_type`). Library-internal; docs/agent.md, "Agent
 * profiles".
 *
 * A profile is a Markdown file with YAML frontmatter, as Claude Code's
 * subagent files are:
 *
 *   ---
 *   name: reviewer
 *   description: Reviews a change for bugs.
 *   tools: Read, Grep, Glob
 *   model: inherit
 *   ---
 *   You review code. ...
 *
 * It is looked for, first found wins, as `NAME.md` in the project's
 * `.agents/agents/` and `.claude/agents/` (only when the user trusts the
 * project: repository content never configures an agent otherwise), then
 * the user's `$SKIT_HOME/agents/` (default `~/.agents/agents/`) and
 * `~/.claude/agents/`, then among the built-in ones (Claude Code's
 * Explore and Plan). Only this module reads those folders.
 */
#ifndef SKIT_LIB_AGENT_PROFILE_H
#define SKIT_LIB_AGENT_PROFILE_H

#include <stdbool.h>

#include "skit/common.h"

/* Largest profile file read. */
#define SKIT__PROFILE_MAX (64u * 1024)

/* A profile, every string owned. */
struct skit__profile {
	char *name;
	char *path;         /* the file it was read from */
	char *description;  /* NULL when absent */
	char *tools;        /* allowed-tools patterns; NULL: the parent's */
	char *model;        /* "PROVIDER:MODEL"; NULL: the parent's */
	char *instructions; /* the body, trimmed; "" when empty */
};

/* Whether `name` can name a profile: 1-64 of [A-Za-z0-9_-]. */
bool skit__profile_name_ok(const char *name);

/*
 * Find and read the profile `name` for the project `project_dir` (NULL:
 * none), whose profiles are read only when `project_trusted`. 0 with
 * `*out` set (free it with skit__profile_free()); SKIT_ENOTFOUND when no
 * folder has it; SKIT_EINVALID for a file that is not a profile (a
 * link, not a regular file, no frontmatter, bad YAML, a `name` that is
 * not the file's: `err` says which); SKIT_ETOOBIG; SKIT_ENOMEM.
 */
int skit__profile_find(struct skit__profile **out, const char *project_dir,
                       bool project_trusted, const char *name, skit_error *err);

/* Whether `name` is a built-in profile (Explore, Plan), used when no file
 * of that name is found. */
bool skit__profile_builtin(const char *name);

/* Free `p`. NULL is a no-op. */
void skit__profile_free(struct skit__profile *p);

#endif
