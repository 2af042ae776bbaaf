/* SPDX-License-Identifier: MIT */
/*
 * cmd_uninstall.c - `skit uninstall NAME`: remove an installed skill.
 * Only what skit's lock records; anything else needs --force, which
 * asks first on a terminal and needs --yes without one (as `git clean`
 * needs -f, a removal skit cannot undo is never a default).
 */
#include "common.h"

#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "util/alloc.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit uninstall [options] NAME...\n\n"
	       "Remove the skills NAME from the skills folder and its lock "
	       "file. A skill\nfolder that is a symbolic link loses the "
	       "link only; nothing is followed.\n"
	       "All the NAMEs go in one transaction: every one is checked "
	       "first, and if one\nis not installed nothing is removed.\n"
	       "Only skills that skit installed (its lock records them) are "
	       "removed; a\nhand-written skill, or one another tool "
	       "installed, needs --force.\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  -f, --force         also remove skills skit did not "
	       "install; asks first on\n"
	       "                      a terminal, needs --yes without one\n"
	       "  -y, --yes           with --force: remove without asking\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 removed, 1 refused or failed (nothing "
	       "changed), 2 usage, a\nNAME that is not installed, or --force "
	       "without a terminal nor --yes\n(nothing changed).\n");
}

/*
 * --force: the NAMEs on disk that the lock does not record are named on
 * stderr; confirmed by --yes, or by the user on a terminal. Returns
 * CLI_OK to go on, CLI_FAIL (declined) or CLI_USAGE (no way to ask).
 */
static int confirm_foreign(const char *root, char **names, int n, bool yes,
                           const char *verb)
{
	skit_lock *lock = NULL;
	skit_error err = { 0 };
	char line[16];
	int foreign = 0;

	if (skit_lock_read(&lock, root, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	for (int i = 0; i < n; i++) {
		bool locked = false;
		char *path = NULL;
		struct stat st;

		for (size_t k = 0; k < skit_lock_count(lock) && !locked; k++)
			locked = !strcmp(skit_lock_at(lock, k)->name, names[i]);
		/* a bad name is the library's to refuse, untouched here */
		if (locked || !skit_skill_name_ok(names[i]) ||
		    !(path = skitx_path_join(root, names[i])))
			continue;
		if (lstat(path, &st) == 0) {
			if (!foreign++)
				fprintf(stderr, "Not installed by skit:\n");
			fprintf(stderr, "  %s (%s)\n", path,
			        S_ISLNK(st.st_mode) ? "a symbolic link; its "
			                              "target stays"
			                            : "a folder");
		}
		skitx_free(path);
	}
	skit_lock_free(lock);
	if (!foreign || yes)
		return CLI_OK;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		cli_error(verb, "refused: --force removes skills skit did not "
		                "install; without a terminal to ask on, add "
		                "--yes to confirm");
		return CLI_USAGE;
	}
	fprintf(stderr, "Remove %s for good? [y/N] ",
	        foreign == 1 ? "it" : "them");
	if (!fgets(line, sizeof(line), stdin) ||
	    (line[0] != 'y' && line[0] != 'Y')) {
		cli_error(verb, "nothing was removed");
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cmd_uninstall(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "force", no_argument, NULL, 'f' },
		{ "yes", no_argument, NULL, 'y' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_scope scope = { 0 };
	skit_error err = { 0 };
	const char *label = NULL;
	char *root = NULL;
	bool force = false, yes = false;
	int c, rc, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hfy", longopts, NULL)) != -1) {
		rc = cli_scope_option(&scope, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		if (c == 'f') {
			force = true;
			continue;
		}
		if (c == 'y') {
			yes = true;
			continue;
		}
		return cli_unknown_option(argv[0], c, argc, argv, longopts);
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing NAME");
	if (yes && !force)
		return cli_usage_error(argv[0], "--yes confirms --force; "
		                                "give both");
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status != CLI_OK)
		return status;
	if (force)
		status = confirm_foreign(root, argv + optind, argc - optind,
		                         yes, argv[0]);
	if (status != CLI_OK) {
		skitx_free(root);
		return status;
	}
	rc = skit_uninstall_ex(root, (const char *const *)argv + optind,
	                       (size_t)(argc - optind),
	                       force ? SKIT_UNINSTALL_FORCE : 0, &err);
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
		if (rc == SKIT_EDENIED)
			fprintf(stderr,
			        "hint: it may be hand-written or another tool's "
			        "(npx skills links its skills);\nhint: remove it "
			        "yourself, or run 'skit uninstall --force' (asks "
			        "first)\n");
		status = rc == SKIT_EUSAGE || rc == SKIT_ENOTFOUND ? CLI_USAGE
		                                                   : CLI_FAIL;
	} else {
		for (int i = optind; i < argc; i++)
			printf("Uninstalled %s from %s (%s)\n", argv[i], root,
			       label);
	}
	skitx_free(root);
	return status;
}
