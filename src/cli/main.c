/* SPDX-License-Identifier: MIT */
/*
 * main.c - `skit`: dispatch to a command from the table.
 */
#include "common.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/error.h"

static const struct cmd commands[] = {
	{ "validate", cmd_validate, "check skills against the spec" },
	{ "read-properties", cmd_read_properties,
	  "print a skill's frontmatter as JSON" },
	{ "to-prompt", cmd_to_prompt, "render skills as a prompt index" },
	{ "init", cmd_init, "create a new skill folder" },
	{ "list", cmd_list, "list the skills found in the roots" },
	{ "show", cmd_show, "print a skill's body and files" },
	{ "search", cmd_search, "rank skills against a query" },
	{ "doctor", cmd_doctor, "report roots, collisions and problems" },
	{ "run", cmd_run, "run one task with the agent" },
	{ "chat", cmd_chat, "talk with the agent (REPL)" },
	{ "runs", cmd_runs, "list and show agent runs (audit trail)" },
	{ "pack", cmd_pack, "write skills into a (signed) pack" },
	{ "install", cmd_install, "install skills from a pack, folder or URL" },
	{ "uninstall", cmd_uninstall, "remove installed skills" },
	{ "update", cmd_update, "re-install skills from their sources" },
	{ "verify", cmd_verify, "check installed skills against the lock" },
	{ "keygen", cmd_keygen, "make a key pair for signing packs" },
	{ "eval", cmd_eval, "run eval cases and report the results" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: skit <command> [options] [args]\n\n"
	           "Commands:\n");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-16s %s\n", commands[i].name,
		        commands[i].summary);
	fprintf(f, "\nRun 'skit <command> --help' for a command's options.\n"
	           "Exit status: 0 ok, 1 a finding or failure, 2 usage or "
	           "missing input.\n");
}

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

int main(int argc, char **argv)
{
	const char *verb;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h") ||
	    !strcmp(verb, "help")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(verb, "--version") || !strcmp(verb, "version")) {
		printf("skit %s\n", skit_version());
		return CLI_OK;
	}
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(commands); i++)
		if (!strcmp(verb, commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "skit: unknown command '%s'\n", verb);
	usage(stderr);
	return CLI_USAGE;
}
