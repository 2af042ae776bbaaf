/* SPDX-License-Identifier: MIT */
/*
 * output.h - what every command prints the same way (output.c). It
 * depends on nothing else of the CLI, so any CLI file may include it.
 */
#ifndef SKIT_CLI_OUTPUT_H
#define SKIT_CLI_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

/* True when colour may be used on `f` (a TTY, and NO_COLOR unset). */
bool cli_color(FILE *f);

/* The terminal width of stdout, or 0 when stdout is not a TTY. */
int cli_term_width(void);

/* "skit <verb>: message" on stderr (one line). */
void cli_error(const char *verb, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

/*
 * A usage error: the message, then "Try 'skit <verb> --help'." on stderr.
 * Returns CLI_USAGE.
 */
int cli_usage_error(const char *verb, const char *fmt, ...)
#if defined(__GNUC__)
        __attribute__((format(printf, 2, 3)))
#endif
        ;

/*
 * `msg` as the reference implementation words it, for the outputs that
 * reproduce it (validate --format reference, read-properties, to-prompt
 * --strict): skit's hint after "; hint: " is cut, and a flow collection
 * gets strictyaml's own words back ("Found ugly disallowed JSONesque flow
 * mapping ...", for [...] too). Other messages come back unchanged.
 * Returns `msg` or `buf` (of `size` bytes).
 */
const char *cli_reference_message(const char *msg, char *buf, size_t size);

#endif
