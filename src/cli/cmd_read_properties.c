/* SPDX-License-Identifier: MIT */
/*
 * cmd_read_properties.c - `skit read-properties PATH`: the frontmatter as
 * the reference prints it (JSON, 2-space indent, ASCII escapes).
 */
#include "common.h"

#include <getopt.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"

static void help(void)
{
	printf("usage: skit read-properties PATH\n\n"
	       "Print the skill's properties (name, description, license, "
	       "compatibility,\nallowed-tools, metadata) as JSON, exactly as "
	       "the reference implementation\ndoes. Does not validate; use "
	       "'skit validate' for that.\n\n"
	       "Options:\n"
	       "  --json      accepted for uniformity: the output is always "
	       "JSON\n"
	       "  -h, --help  show this help\n");
}

int cmd_read_properties(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_error err = { 0 };
	skit_skill *skill = NULL;
	struct stat st;
	char *json = NULL;
	int c, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		if (c == 'j')
			continue; /* the output is JSON already */
		return cli_unknown_option(argv[0], c, argc, argv, longopts);
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing PATH");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	if (lstat(argv[optind], &st) < 0) {
		cli_error(argv[0], "Path '%s' does not exist", argv[optind]);
		return CLI_USAGE;
	}
	if (skit_skill_load(&skill, argv[optind], NULL, &err) < 0 ||
	    skit_skill_properties_json(&json, skill, &err) < 0) {
		char ref[sizeof(err.message)];

		/* skills-ref's command: its words */
		cli_error(argv[0], "%s",
		          cli_reference_message(err.message, ref, sizeof(ref)));
		status = CLI_FAIL;
	} else {
		fputs(json, stdout);
	}
	skit_free(json);
	skit_skill_free(skill);
	return status;
}
