/* SPDX-License-Identifier: MIT */
/*
 * install_opts.h - what the install commands (install, update,
 * uninstall, verify, list --installed) share: choosing the root from
 * --scope / --root, and printing a plan.
 *
 *   --scope project   <project>/.agents/skills (the first project root
 *                     of the roots config); the project is the nearest
 *                     folder above holding .agents/, .agent/ or .git
 *   --scope user      $SKIT_HOME/skills, or ~/.agents/skills
 *   --root DIR        DIR itself
 * Without either: the project scope inside a project, else the user one.
 */
#ifndef SKIT_CLI_INSTALL_OPTS_H
#define SKIT_CLI_INSTALL_OPTS_H

#include <stdbool.h>
#include <stdio.h>

#include "cli/cmd.h"

enum {
	CLI_OPT_SCOPE = 0x1100,
	CLI_OPT_IROOT,
};

/* clang-format off */
#define CLI_SCOPE_LONGOPTS                                                 \
	{ "scope", required_argument, NULL, CLI_OPT_SCOPE },               \
	{ "root", required_argument, NULL, CLI_OPT_IROOT }

#define CLI_SCOPE_HELP                                                     \
	"  --scope SCOPE       project (<project>/.agents/skills) or user\n" \
	"                      (~/.agents/skills); default: project inside " \
	"a project\n"                                                      \
	"  --root DIR          use the skills folder DIR instead\n"
/* clang-format on */

struct cli_scope {
	const char *scope; /* "project", "user" or NULL */
	const char *root;  /* --root */
};

/* Handle a scope option; 1 when handled, 0 when not one, CLI_USAGE. */
int cli_scope_option(struct cli_scope *s, int c, const char *arg,
                     const char *verb);

/* The root to work on (skitx_malloc'd), or CLI_USAGE / CLI_FAIL after
 * printing why. `label` (may be NULL) receives "project", "user" or
 * "root". */
int cli_scope_root(const struct cli_scope *s, char **root, const char **label,
                   const char *verb);

/* Print an install plan: one line a skill, then its changed files. */
void cli_print_plan(FILE *f, const skit_install_item *items, size_t n,
                    bool dry_run);

/* The plan as a JSON document on stdout. */
void cli_print_plan_json(const skit_install_result *r, bool dry_run);

/*
 * `skit list --installed`: the lock entries of each root in `roots`
 * (or of the `scope`, or of the project and user scopes), as text or
 * JSON. Returns an exit status.
 */
int cli_list_installed(const char *const *roots, int nroots, const char *scope,
                       bool json, const char *verb);

#endif
