/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the command table and what every command shares.
 *
 * Each command lives in cmd_<verb>.c as `int cmd_<verb>(int argc, char
 * **argv)`, where argv[0] is the verb. It returns an exit status (see
 * error.h) and prints its own output; commands reach the library only
 * through the public API (skit/...) and skitx_ helpers.
 */
#ifndef SKIT_CLI_CMD_H
#define SKIT_CLI_CMD_H

#include <stdbool.h>
#include <stdio.h>

#include "skit/skit.h"
#include "cli/output.h"

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_validate(int argc, char **argv);
int cmd_read_properties(int argc, char **argv);
int cmd_to_prompt(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_search(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_chat(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_trust(int argc, char **argv);
int cmd_approvals(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);
int cmd_update(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_mcp(int argc, char **argv);
int cmd_scan(int argc, char **argv);

/*
 * The scan step of install and update (cmd_scan.c): load the shipped
 * rules into *out (CLI_FAIL after saying why), and print a scanned
 * skill's medium, high and critical findings on stderr.
 */
int cli_install_scanner(skit_scanner **out, const char *verb);
void cli_install_on_scan(void *userdata, const char *skill,
                         const skit_scan_report *rep);

/*
 * The folder agent runs are written to and read from: $SKIT_RUNS_DIR when
 * set, else <project>/.agents/runs (the project the default roots find),
 * else ./.agents/runs made absolute. `*out` is skitx_malloc'd (free with
 * skitx_free). Returns 0 or SKIT_ENOMEM.
 */
int cli_default_runs_dir(char **out);

/* The same for a run whose project is known: $SKIT_RUNS_DIR when set,
 * else <project>/.agents/runs; a NULL `project` is cli_default_runs_dir(). */
int cli_project_runs_dir(char **out, const char *project);

/*
 * `skit __complete commands|options CMD|skills`: the words the shell
 * completions offer, one a line (cmd_complete.c). `cmds` is the table.
 */
int cli_complete(int argc, char **argv, const struct cmd *cmds, size_t n);

/*
 * The edit distance between `a` and `b` (insertions, deletions,
 * substitutions and swaps of neighbours), or SIZE_MAX for words over 64
 * bytes.
 */
size_t cli_edit_distance(const char *a, const char *b);

/*
 * The candidate closest to `word` when it is close enough to be a likely
 * typo (one edit for words under five bytes, two from five), else NULL.
 * Borrows from `cands`.
 */
const char *cli_suggest(const char *word, const char *const *cands, size_t n);

/*
 * After `/WORD ...` named no skill (in chat, no chat command either):
 * "Did you mean '/skills'?" on stderr when a user-invocable skill of
 * `reg` (may be NULL), or with `chat` a chat command, is a likely typo of
 * WORD; nothing otherwise. `line` starts with '/'.
 */
void cli_slash_hint(const skit_registry *reg, const char *line, bool chat);

struct option;

/*
 * The usage error for getopt_long()'s return `c` ('?' or ':') on `argv`:
 * names the word that is wrong (not a neighbour), says what a value-less
 * option needs, and offers the closest long option of `longopts` (may be
 * NULL) for a mistyped one. Returns CLI_USAGE.
 */
int cli_unknown_option(const char *verb, int c, int argc, char **argv,
                       const struct option *longopts);

/*
 * Options shared by the registry commands (list, show, search, doctor):
 * --root DIR (repeatable; replaces the default roots), --config FILE,
 * --no-config. cli_roots_option() consumes one if it matches and returns
 * true; cli_open_registry() builds and scans the registry. A --root that
 * does not exist is a usage error (exit 2).
 */
struct cli_roots {
	const char *roots[64];
	int nroots;
	const char *config;
	bool no_config;
};

int cli_open_registry(skit_registry **out, const struct cli_roots *r,
                      const char *verb);

/* The same, with the project search starting at `cwd` (NULL: here). */
int cli_open_registry_at(skit_registry **out, const struct cli_roots *r,
                         const char *cwd, const char *verb);

/* The same for the agent: an untrusted project's skills and config are
 * left out (skit_registry_project_held_back() says whether any were). */
int cli_open_registry_trusted(skit_registry **out, const struct cli_roots *r,
                              const char *cwd, const char *verb);

/*
 * The config files of the registry's project that the agent ignores
 * because the folder is not trusted, as "a", "b" or "a and b" (static
 * text), or NULL when the project is trusted, absent, or has none.
 */
const char *cli_untrusted_config(const skit_registry *reg);

/* The same, for `skit doctor`: a missing --root is a finding it reports,
 * not a usage error. */
int cli_open_registry_any(skit_registry **out, const struct cli_roots *r,
                          const char *verb);

#endif
