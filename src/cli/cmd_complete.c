/* SPDX-License-Identifier: MIT */
/*
 * cmd_complete.c - `skit __complete WHAT [CMD]`: the words the shell
 * completions (completions/) offer, one a line, from the same sources as
 * the help: the command table, a command's --help, the registry.
 *
 *   commands        the command names
 *   options CMD     the long and short options CMD's --help lists
 *   skills          the names of the active skills (the default roots)
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
 * The options of `cmd`: the words that start its --help's option lines
 * ("  -q, --quiet    ..."). The help goes through a pipe from a child
 * running the command's function, so no command needs a second table.
 */
static int complete_options(const char *cmd, int (*fn)(int argc, char **argv))
{
	char *sub[] = { (char *)cmd, (char *)"--help", NULL };
	char line[512];
	int fds[2], status, rc;
	pid_t pid;
	FILE *f;

	if (pipe(fds))
		return CLI_FAIL;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return CLI_FAIL;
	}
	if (!pid) {
		int devnull = open("/dev/null", O_WRONLY);

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
		waitpid(pid, &status, 0);
		return CLI_FAIL;
	}
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
	fclose(f);
	waitpid(pid, &status, 0);
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
	return CLI_USAGE;
}
