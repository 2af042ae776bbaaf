/* SPDX-License-Identifier: MIT */
/*
 * cmd_trust.c - `skit trust [DIR]`, `skit trust --list`, `skit trust
 * --remove DIR`: the folders whose project skills and config the agent
 * loads (docs/registry.md, "Folder trust").
 */
#include "common.h"

#include <getopt.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit trust [DIR]\n"
	       "       skit trust --list [--json]\n"
	       "       skit trust --remove DIR\n\n"
	       "Trust a folder: the agent ('skit run', 'skit chat') loads "
	       "the skills\n(.agents/skills, .agent/skills, .claude/skills) "
	       "and the config\n(.agents/skit.json) of a project only when "
	       "the user trusts its folder.\nTrusting a folder trusts every "
	       "folder under it. DIR defaults to the\nproject of the current "
	       "folder. The list lives in the user config\n"
	       "(${XDG_CONFIG_HOME:-~/.config}/skit/config.json, key "
	       "\"trusted\").\n\n"
	       "Options:\n"
	       "  --list              print the trusted folders\n"
	       "  --json              with --list: a JSON array\n"
	       "  --remove DIR        stop trusting DIR\n"
	       "  -h, --help          show this help\n");
}

static int list(bool json)
{
	skit_error err = { 0 };
	char **v = NULL;
	size_t n = 0;

	if (skit_trust_list(&v, &n, &err) < 0) {
		cli_error("trust", "%s", err.message);
		return CLI_FAIL;
	}
	if (json) {
		fputs("[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n  " : "\n  ", stdout);
			cli_put_json_str(stdout, v[i]);
		}
		fputs(n ? "\n]\n" : "]\n", stdout);
	} else {
		for (size_t i = 0; i < n; i++) {
			cli_put_text(stdout, v[i], true, 0);
			fputc('\n', stdout);
		}
	}
	skit_strings_free(v, n);
	return CLI_OK;
}

int cmd_trust(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "list", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "remove", required_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	skit_error err = { 0 };
	const char *remove = NULL;
	char *found = NULL;
	const char *dir = NULL;
	char *real, *abs;
	bool do_list = false, json = false;
	size_t n;
	int c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help();
			return CLI_OK;
		case 'l':
			do_list = true;
			break;
		case 'j':
			json = true;
			break;
		case 'r':
			if (!*optarg)
				return cli_usage_error(
				        argv[0], "--remove needs a folder");
			remove = optarg;
			break;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (do_list + (remove != NULL) + (optind < argc) > 1)
		return cli_usage_error(argv[0],
		                       "give one of DIR, --list and --remove");
	if (json && !do_list)
		return cli_usage_error(argv[0], "--json goes with --list");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	if (do_list)
		return list(json);
	if (remove) {
		if (skit_trust_remove(remove, &err) < 0) {
			cli_error(argv[0], "%s", err.message);
			return CLI_FAIL;
		}
		printf("no longer trusted: ");
		cli_put_text(stdout, remove, true, 0);
		fputc('\n', stdout);
		return CLI_OK;
	}
	if (optind < argc) {
		dir = argv[optind];
	} else if (skit_project_for_run(&found, NULL, &err) < 0) {
		cli_error(argv[0], "%s; name the folder: skit trust DIR",
		          err.message);
		return CLI_USAGE;
	}
	if (optind >= argc)
		dir = found;
	/* What is recorded is the folder DIR resolves to: say that one,
	 * and refuse a link that leads above what the user named (a
	 * repository's `sub -> ../..` would trust every folder there). */
	real = skitx_path_real(dir);
	abs = skitx_path_absolute(dir);
	if (!real || !abs) {
		skitx_free(real);
		skitx_free(abs);
		skit_free(found);
		cli_error(argv[0], "out of memory");
		return CLI_FAIL;
	}
	n = strlen(real);
	if (strcmp(real, abs) && !strncmp(abs, real, n) &&
	    (abs[n] == '/' || !strcmp(real, "/"))) {
		cli_error(argv[0],
		          "%s leads through a link to %s, a folder above "
		          "it: not trusted (name that folder to trust it)",
		          abs, real);
		rc = SKIT_EUSAGE;
	} else {
		rc = skit_trust_add(real, &err);
		if (rc < 0)
			cli_error(argv[0], "%s", err.message);
	}
	if (rc < 0) {
		skitx_free(real);
		skitx_free(abs);
		skit_free(found);
		return rc == SKIT_ENOTFOUND || rc == SKIT_EUSAGE ? CLI_USAGE
		                                                 : CLI_FAIL;
	}
	printf("trusted: ");
	cli_put_text(stdout, real, true, 0);
	fputc('\n', stdout);
	skitx_free(real);
	skitx_free(abs);
	skit_free(found);
	return CLI_OK;
}
