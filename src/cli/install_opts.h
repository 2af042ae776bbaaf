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

/* --agent NAME (repeatable; "a,b" too), --copy, --no-agent, and the
 * user config's {"install": {"agents": [...], "copy": bool}} default
 * (install_agents.c). */
struct cli_agents {
	const char *names[8];
	size_t n;
	bool given, none, copy;
	/* filled by cli_install_agent_targets(): */
	skit_install_target targets[8];
	char *dirs[8];
	size_t ntargets;
	const char *reads_root[8]; /* agents that read the root itself */
	size_t nreads;
};

/* Add the agents named in `arg` ("claude-code" or "claude-code,cursor");
 * an unknown name is a usage error with a suggestion. */
int cli_install_agent_option(struct cli_agents *a, const char *arg,
                             const char *verb);
/* The agents' skills folders for the scope `label` ("project", "user",
 * "root") into a->targets; the config default when no --agent was
 * given. Returns an exit status. */
int cli_install_agent_targets(struct cli_agents *a, const char *label,
                              const char *root, const char *verb);
void cli_agents_release(struct cli_agents *a);
/* "codex reads ROOT itself: nothing to link", for each such agent. */
void cli_print_reads_root(FILE *f, const struct cli_agents *a,
                          const char *root);

/* The plan of a finished install or update: each skill, a change of its
 * source, and its links in agents' folders. */
void cli_print_result(FILE *f, const skit_install_result *r, bool dry_run);
/* After an install: skills that loaded with warnings, and an untrusted
 * project (whose skills the agent leaves out), on stderr. */
void cli_install_notes(const skit_install_result *r, const char *label,
                       const char *verb);

/*
 * `skit list --installed`: the lock entries of each root in `roots`
 * (or of the `scope`, or of the project and user scopes), as text or
 * JSON. Returns an exit status.
 */
int cli_list_installed(const char *const *roots, int nroots, const char *scope,
                       bool json, const char *verb);

#endif
