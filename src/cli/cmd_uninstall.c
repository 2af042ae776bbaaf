/* SPDX-License-Identifier: MIT */
/*
 * cmd_uninstall.c - `skit uninstall NAME`: remove an installed skill.
 */
#include "common.h"

#include <getopt.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "util/alloc.h"

static void help(void)
{
	printf("usage: skit uninstall [options] NAME...\n\n"
	       "Remove the skills NAME from the skills folder and its lock "
	       "file. A skill\nfolder that is a symbolic link loses the "
	       "link only; nothing is followed.\n"
	       "All the NAMEs go in one transaction: every one is checked "
	       "first, and if one\nis not installed nothing is removed.\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 removed, 1 failed (nothing changed), 2 usage "
	       "or a NAME that\nis not installed (nothing changed).\n");
}

int cmd_uninstall(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_scope scope = { 0 };
	skit_error err = { 0 };
	const char *label = NULL;
	char *root = NULL;
	int c, rc, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		rc = cli_scope_option(&scope, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		return cli_usage_error(argv[0], "unknown option '%s'",
		                       argv[optind - 1]);
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing NAME");
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status != CLI_OK)
		return status;
	rc = skit_uninstall_names(root, (const char *const *)argv + optind,
	                          (size_t)(argc - optind), &err);
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
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
