/* SPDX-License-Identifier: MIT */
/*
 * main.c - `skit`: dispatch to a command from the table.
 */
#include "common.h"

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
	{ "trust", cmd_trust, "trust a folder's project skills and config" },
	{ "approvals", cmd_approvals, "list and revoke saved approvals" },
	{ "pack", cmd_pack, "write skills into a (signed) pack" },
	{ "push", cmd_push, "store a pack in an OCI registry" },
	{ "install", cmd_install, "install skills from a pack, folder or URL" },
	{ "uninstall", cmd_uninstall, "remove installed skills" },
	{ "update", cmd_update, "re-install skills from their sources" },
	{ "verify", cmd_verify, "check installed skills against the lock" },
	{ "keygen", cmd_keygen, "make a key pair for signing packs" },
	{ "eval", cmd_eval, "run eval cases and report the results" },
	{ "scan", cmd_scan, "scan skills for malicious or risky content" },
	{ "mcp", cmd_mcp, "serve the skills to MCP clients" },
};

/*
 * Words people type from other tools. The aliases run the command under
 * its own name (errors and --help say `skit uninstall`), as npm's `rm`
 * and `ls` and cargo's `rm` do; `add` is what `npx skills add` calls an
 * install. `delete` is only suggested: a word that destroys is not
 * guessed into an action.
 */
static const struct alias {
	const char *word, *command;
	bool run;
} aliases[] = {
	{ "add", "install", true },       { "ls", "list", true },
	{ "rm", "uninstall", true },      { "remove", "uninstall", true },
	{ "delete", "uninstall", false },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: skit <command> [options] [args]\n\n"
	           "Commands:\n");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-16s %s\n", commands[i].name,
		        commands[i].summary);
	fprintf(f, "\nAliases: add (install), ls (list), rm and remove "
	           "(uninstall).\n");
	fprintf(f, "\nRun 'skit help <command>' or 'skit <command> --help' "
	           "for a command's options;\n'skit --version' (-V) prints "
	           "the version.\n"
	           "Exit status: 0 ok, 1 a finding or failure, 2 usage or "
	           "missing input.\n");
}

static const struct cmd *command_named(const char *name)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(commands); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* The command `verb` names, itself or through an alias that runs. */
static const struct cmd *find_command(const char *verb)
{
	const struct cmd *c = command_named(verb);

	for (size_t i = 0; !c && i < SKIT_ARRAY_SIZE(aliases); i++)
		if (aliases[i].run && !strcmp(verb, aliases[i].word))
			c = command_named(aliases[i].command);
	return c;
}

/*
 * "unknown command", with the closest command name when one is close;
 * a word another tool uses (or a typo of one) names skit's command.
 */
static int unknown_command(const char *verb)
{
	const char *names[SKIT_ARRAY_SIZE(commands) + SKIT_ARRAY_SIZE(aliases)];
	size_t n = 0;
	const char *near;

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(commands); i++)
		names[n++] = commands[i].name;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(aliases); i++)
		names[n++] = aliases[i].word;
	near = cli_suggest(verb, names, n);
	for (size_t i = 0; near && i < SKIT_ARRAY_SIZE(aliases); i++)
		if (!strcmp(near, aliases[i].word))
			near = aliases[i].command;
	fprintf(stderr, "skit: unknown command '%s'\n", verb);
	if (near)
		fprintf(stderr, "Did you mean 'skit %s'?\n", near);
	fprintf(stderr, "Run 'skit --help' for the list of commands.\n");
	return CLI_USAGE;
}

/* `skit help [CMD]`: the top-level help, or CMD's own --help. */
static int help(int argc, char **argv)
{
	const struct cmd *c;
	char *sub[3];

	if (argc < 2) {
		usage(stdout);
		return CLI_OK;
	}
	if (argc > 2) {
		fprintf(stderr, "skit help: expected one command name\n");
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return CLI_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	sub[0] = (char *)c->name;
	sub[1] = (char *)"--help";
	sub[2] = NULL;
	return c->fn(2, sub);
}

int main(int argc, char **argv)
{
	const struct cmd *c;
	const char *verb;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	verb = argv[1];
	if (!strcmp(verb, "--help") || !strcmp(verb, "-h")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(verb, "help"))
		return help(argc - 1, argv + 1);
	if (!strcmp(verb, "__complete"))
		return cli_complete(argc - 1, argv + 1, commands,
		                    SKIT_ARRAY_SIZE(commands));
	if (!strcmp(verb, "--version") || !strcmp(verb, "-V") ||
	    !strcmp(verb, "version")) {
		printf("skit %s\n", skit_version());
		return CLI_OK;
	}
	c = find_command(verb);
	if (c) {
		/* an alias runs under the command's own name */
		argv[1] = (char *)c->name;
		return c->fn(argc - 1, argv + 1);
	}
	if (verb[0] == '-') {
		fprintf(stderr, "skit: unknown option '%s'\n", verb);
		fprintf(stderr,
		        "Run 'skit --help' for the list of commands.\n");
		return CLI_USAGE;
	}
	return unknown_command(verb);
}
