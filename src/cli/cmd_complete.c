/* SPDX-License-Identifier: MIT */
/*
 * cmd_complete.c - `skit __complete WHAT [CMD]`: the words the shell
 * completions (completions/) offer, one a line, from the same sources as
 * the help: the command table, a command's --help, the registry.
 *
 *   commands        the command names
 *   options CMD     the long and short options CMD's --help lists
 *   skills          the names of the active skills (the default roots)
 *   values CMD OPT  the values option OPT of CMD takes (--format,
 *                   --scope, --sandbox, --model...); nothing for an
 *                   option whose value is a path or free text
 *
 * Hidden from the help (as cobra's `__complete` is); it never fails
 * loudly: a shell completion must not print errors into the user's line.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/error.h"

/* One option word at `p`: "-x" or "--long-name", up to a space, ',' or '='. */
static void put_option(const char *p)
{
	size_t n = 0;

	while (p[n] && p[n] != ' ' && p[n] != ',' && p[n] != '=' &&
	       p[n] != '\n' && p[n] != '[')
		n++;
	if (n >= 2)
		printf("%.*s\n", (int)n, p);
}

/*
 * A pipe reading `cmd`'s --help, written by a child running the
 * command's function (so no command needs a second table of its
 * options). NULL on failure; close it with close_help().
 */
static FILE *open_help(const char *cmd, int (*fn)(int argc, char **argv),
                       pid_t *pid)
{
	char *sub[] = { (char *)cmd, (char *)"--help", NULL };
	int fds[2], status;
	FILE *f;

	if (pipe(fds))
		return NULL;
	fflush(stdout);
	*pid = fork();
	if (*pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return NULL;
	}
	if (!*pid) {
		int devnull = open("/dev/null", O_WRONLY), rc;

		dup2(fds[1], STDOUT_FILENO);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		rc = fn(2, sub);
		fflush(stdout);
		_exit(rc == 0 ? 0 : 1);
	}
	close(fds[1]);
	f = fdopen(fds[0], "r");
	if (!f) {
		close(fds[0]);
		waitpid(*pid, &status, 0);
	}
	return f;
}

static void close_help(FILE *f, pid_t pid)
{
	int status;

	fclose(f);
	waitpid(pid, &status, 0);
}

/*
 * The options of `cmd`: the words that start its --help's option lines
 * ("  -q, --quiet    ...").
 */
static int complete_options(const char *cmd, int (*fn)(int argc, char **argv))
{
	char line[512];
	pid_t pid;
	FILE *f = open_help(cmd, fn, &pid);

	if (!f)
		return CLI_FAIL;
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;

		if (*p != ' ')
			continue;
		while (*p == ' ')
			p++;
		if (*p != '-')
			continue;
		/* "-q, --quiet": both words. */
		put_option(p);
		while (*p && *p != ' ' && *p != '\n') {
			if (p[0] == ',' && p[1] == ' ' && p[2] == '-') {
				put_option(p + 2);
				break;
			}
			p++;
		}
	}
	close_help(f, pid);
	return CLI_OK;
}

static int complete_skills(void)
{
	struct cli_roots roots = { { NULL }, 0, NULL, false };
	skit_registry *reg = NULL;
	int devnull, saved;
	size_t n;

	/* The registry's own messages would land in the user's line. */
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	devnull = open("/dev/null", O_WRONLY);
	if (devnull >= 0)
		dup2(devnull, STDERR_FILENO);
	if (cli_open_registry(&reg, &roots, "__complete"))
		reg = NULL;
	if (saved >= 0) {
		dup2(saved, STDERR_FILENO);
		close(saved);
	}
	if (devnull >= 0)
		close(devnull);
	if (!reg)
		return CLI_FAIL;
	n = skit_registry_count(reg);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", skit_registry_entry(reg, i)->name);
	skit_registry_free(reg);
	return CLI_OK;
}

/*
 * The values an option takes. CMD "*" means every command that has the
 * option; a more specific line comes first. Each value is one the
 * command accepts (tests/cli/newcomer_complete.sh checks that against
 * the commands themselves).
 */
static const struct {
	const char *cmd, *opt, *values;
} option_values[] = {
	{ "validate", "--format", "text reference json" },
	{ "to-prompt", "--format", "xml markdown json" },
	{ "scan", "--format", "text json sarif" },
	{ "eval", "--report", "text json junit" },
	{ "*", "--scope", "project user" },
	{ "*", "--sandbox", "read-only workspace-write full-access" },
	/* a provider, then a model: well-known ones; any other is typed */
	{ "*", "--model",
	  "openai:gpt-4.1 openai:gpt-4.1-mini openai:gpt-4o openai:o4-mini "
	  "anthropic:claude-sonnet-4-5 anthropic:claude-opus-4-1 "
	  "anthropic:claude-haiku-4-5 replay:" },
};

/* Whether `cmd`'s --help lists `opt` (so "*" lines fit only there). */
static bool has_option(const char *cmd, int (*fn)(int argc, char **argv),
                       const char *opt)
{
	size_t len = strlen(opt);
	char line[512];
	bool found = false;
	pid_t pid;
	FILE *f = open_help(cmd, fn, &pid);

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, opt);

		if (p && (p == line || p[-1] == ' ') &&
		    (p[len] == ' ' || p[len] == '=' || p[len] == '\n'))
			found = true;
	}
	close_help(f, pid);
	return found;
}

static int complete_values(const struct cmd *c, const char *opt)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(option_values); i++) {
		const char *p;

		if (strcmp(opt, option_values[i].opt))
			continue;
		if (strcmp(option_values[i].cmd, c->name) &&
		    (strcmp(option_values[i].cmd, "*") ||
		     !has_option(c->name, c->fn, opt)))
			continue;
		for (p = option_values[i].values; *p;) {
			size_t n = strcspn(p, " ");

			printf("%.*s\n", (int)n, p);
			p += n;
			p += *p == ' ';
		}
		return CLI_OK;
	}
	return CLI_OK;
}

int cli_complete(int argc, char **argv, const struct cmd *cmds, size_t n)
{
	if (argc < 2)
		return CLI_USAGE;
	if (!strcmp(argv[1], "commands")) {
		for (size_t i = 0; i < n; i++)
			printf("%s\n", cmds[i].name);
		printf("help\n");
		return CLI_OK;
	}
	if (!strcmp(argv[1], "options") && argc == 3) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(argv[2], cmds[i].name))
				return complete_options(cmds[i].name,
				                        cmds[i].fn);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "skills"))
		return complete_skills();
	if (!strcmp(argv[1], "values") && argc == 4) {
		for (size_t i = 0; i < n; i++)
			if (!strcmp(argv[2], cmds[i].name))
				return complete_values(&cmds[i], argv[3]);
		return CLI_USAGE;
	}
	return CLI_USAGE;
}
