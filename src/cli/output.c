/* SPDX-License-Identifier: MIT */
/*
 * output.c - what every command prints the same way: errors, usage
 * errors, whether to use colour, the terminal's width (output.h).
 */
#include "common.h"

#include <stdarg.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/error.h"
#include "cli/output.h"

bool cli_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return false;
	return isatty(fileno(f));
}

int cli_term_width(void)
{
	struct winsize ws;

	if (!isatty(STDOUT_FILENO))
		return 0;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

void cli_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "skit %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int cli_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "skit %s: ", verb);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'skit %s --help'.\n", verb);
	return CLI_USAGE;
}

const char *cli_reference_message(const char *msg, char *buf, size_t size)
{
	static const char flow[] = "Found disallowed flow ";
	static const char strictyaml[] =
	        "Found ugly disallowed JSONesque flow mapping (surround with "
	        "' and ' to make text appear literally)";
	const char *yaml = strstr(msg, "Invalid YAML in frontmatter: ");
	const char *hint, *f;
	size_t n;

	if (!yaml)
		return msg;
	yaml += strlen("Invalid YAML in frontmatter: ");
	f = !strncmp(yaml, flow, strlen(flow)) ? yaml : NULL;
	hint = strstr(yaml, "; hint: ");
	if (!f && !hint)
		return msg;
	n = (size_t)((f ? f : hint) - msg);
	snprintf(buf, size, "%.*s%s", (int)n, msg, f ? strictyaml : "");
	return buf;
}
