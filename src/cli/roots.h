/* SPDX-License-Identifier: MIT */
/*
 * roots.h - what the registry commands (list, show, search, doctor)
 * share: the roots options, opening and scanning the registry, and
 * writing untrusted skill text safely to a terminal or as JSON.
 *
 * Roots options, parsed with getopt_long (put CLI_ROOTS_LONGOPTS in the
 * command's table and pass every option to cli_roots_option() first):
 *
 *   --root [LABEL=]DIR  scan DIR instead of the default roots; repeatable,
 *                       highest precedence first. LABEL ([a-z][a-z0-9_-]*,
 *                       at most 32) names the source; without one, a lone
 *                       --root is "root" and several are "root1", "root2"...
 *                       in order. With --root, config files are not read.
 *   --config FILE       also read FILE (it overrides the other configs)
 *   --no-config         ignore the project and user config files
 */
#ifndef SKIT_CLI_ROOTS_H
#define SKIT_CLI_ROOTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli/cmd.h"

enum {
	CLI_OPT_ROOT = 0x1000,
	CLI_OPT_CONFIG,
	CLI_OPT_NO_CONFIG,
};

/* clang-format off */
#define CLI_ROOTS_LONGOPTS                                                 \
	{ "root", required_argument, NULL, CLI_OPT_ROOT },                 \
	{ "config", required_argument, NULL, CLI_OPT_CONFIG },             \
	{ "no-config", no_argument, NULL, CLI_OPT_NO_CONFIG }

#define CLI_ROOTS_HELP                                                     \
	"  --root [LABEL=]DIR  scan DIR instead of the default roots "     \
	"(repeatable,\n"                                                   \
	"                      highest precedence first)\n"                \
	"  --config FILE       also read this config file (overrides the " \
	"others)\n"                                                        \
	"  --no-config         ignore the project and user config files\n"
/* clang-format on */

/*
 * Handle getopt_long's result `c` (with `arg` = optarg) if it is a roots
 * option. Returns 1 when handled, 0 when `c` is not a roots option, and
 * CLI_USAGE after printing a usage error (too many --root).
 */
int cli_roots_option(struct cli_roots *r, int c, const char *arg,
                     const char *verb);

/* ---- output ---------------------------------------------------------- */

/* ANSI styles, or "" when `on` is false. */
struct cli_style {
	const char *bold, *dim, *red, *yellow, *green, *cyan, *reset;
};

void cli_style_init(struct cli_style *st, bool on);

/*
 * Write `s` for a terminal: hidden characters (skitx_utf8_is_hidden():
 * C0 but tab and newline, DEL, C1, bidi overrides and isolates,
 * zero-width and TAG characters...) and invalid UTF-8 become U+FFFD so
 * a skill can neither drive the terminal nor hide or reorder text. With
 * `one_line`, every run of whitespace becomes one space and the ends are
 * trimmed. With `max_cols` > 0 the text is cut to that many columns (code
 * points), ending in "…".
 */
void cli_put_text(FILE *f, const char *s, bool one_line, size_t max_cols);

/* Columns (code points) of `s` as cli_put_text(one_line) prints it. */
size_t cli_text_width(const char *s);

/*
 * `s` as a JSON string (quotes included); invalid UTF-8 becomes U+FFFD.
 * Hidden characters are kept, escaped as \uXXXX (JSON keeps the exact
 * text; a terminal shows the escape instead of obeying the character).
 */
void cli_put_json_str(FILE *f, const char *s);

/* `"key": ` then the string (or null when `s` is NULL). */
void cli_put_json_kv(FILE *f, const char *indent, const char *key,
                     const char *s, bool comma);

#endif
