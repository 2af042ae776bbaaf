/* SPDX-License-Identifier: MIT */
/*
 * cmd_to_prompt.c - `skit to-prompt PATH...`: the skills index for a
 * system prompt. The default XML is the reference's output byte for byte.
 */
#include "common.h"

#include <getopt.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit to-prompt [options] PATH...\n\n"
	       "Render the given skills as the <available_skills> block an "
	       "agent puts in its\nsystem prompt (level 1: names, "
	       "descriptions, locations), in argument order.\n\n"
	       "Options:\n"
	       "  --format FMT   xml (the reference's format, default), "
	       "markdown or json\n"
	       "  --budget N     fit in N characters, or N tokens with a "
	       "'tok' suffix\n"
	       "                 (e.g. 2000tok): descriptions are shortened "
	       "first, then the\n"
	       "                 last skills are left out, and the output "
	       "says how many\n"
	       "  -h, --help     show this help\n\n"
	       "The XML keeps names and descriptions verbatim, as the reference "
	       "does; markdown\nand json strip invisible and bidirectional "
	       "characters (skit validate flags them).\n");
}

int cmd_to_prompt(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "budget", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_prompt_options popts = SKIT_PROMPT_OPTIONS_INIT;
	skit_prompt_item *items = NULL;
	skit_skill **skills = NULL;
	skit_error err = { 0 };
	char **locations = NULL, *out = NULL;
	int c, n = 0, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "xml"))
				popts.format = SKIT_PROMPT_XML;
			else if (!strcmp(optarg, "markdown"))
				popts.format = SKIT_PROMPT_MARKDOWN;
			else if (!strcmp(optarg, "json"))
				popts.format = SKIT_PROMPT_JSON;
			else
				return cli_usage_error(
				        argv[0], "unknown format '%s'", optarg);
			break;
		case 'b':
			if (skit_prompt_parse_budget(&popts.budget, optarg,
			                             &err) < 0)
				return cli_usage_error(argv[0], "%s",
				                       err.message);
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_usage_error(argv[0], "unknown option '%s'",
			                       argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing PATH");
	/*
	 * The XML is the reference's, so it keeps what the reference keeps;
	 * the other formats strip hidden characters as the agent does.
	 */
	if (popts.format == SKIT_PROMPT_XML)
		popts.flags |= SKIT_PROMPT_VERBATIM;
	for (int i = optind; i < argc; i++) {
		struct stat st;
		if (lstat(argv[i], &st) < 0) {
			cli_error(argv[0], "Path '%s' does not exist", argv[i]);
			return CLI_USAGE;
		}
	}

	n = argc - optind;
	items = skitx_calloc((size_t)n, sizeof(*items));
	skills = skitx_calloc((size_t)n, sizeof(*skills));
	locations = skitx_calloc((size_t)n, sizeof(*locations));
	if (!items || !skills || !locations) {
		cli_error(argv[0], "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *arg = argv[optind + i];
		char resolved[PATH_MAX], *folder = NULL;
		const char *base;
		struct stat st;
		size_t blen;

		/*
		 * Like the reference: a SKILL.md argument means its folder,
		 * and the folder is resolved (symbolic links too) before it
		 * is read, so messages and <location> name the real path.
		 */
		base = skitx_path_name(arg, &blen);
		if (stat(arg, &st) == 0 && S_ISREG(st.st_mode) && blen == 8 &&
		    !strncasecmp(base, "skill.md", 8))
			folder = skitx_path_dirname(arg);
		if (!realpath(folder ? folder : arg, resolved))
			snprintf(resolved, sizeof(resolved), "%s",
			         folder ? folder : arg);
		skitx_free(folder);
		if (skit_skill_load(&skills[i], resolved, NULL, &err) < 0 ||
		    skit_skill_check_properties(skills[i], &err) < 0) {
			cli_error(argv[0], "%s", err.message);
			status = CLI_FAIL;
			goto out;
		}
		base = skitx_path_name(skit_skill_file(skills[i]), &blen);
		locations[i] = skitx_path_join(skit_skill_dir(skills[i]), base);
		if (!locations[i]) {
			cli_error(argv[0], "out of memory");
			status = CLI_FAIL;
			goto out;
		}
		items[i].name = skit_skill_name_raw(skills[i]);
		items[i].description = skit_skill_description(skills[i]);
		items[i].location = locations[i];
	}
	if (skit_prompt_render(&out, items, (size_t)n, &popts, NULL, &err) <
	    0) {
		cli_error(argv[0], "%s", err.message);
		status = CLI_FAIL;
		goto out;
	}
	fputs(out, stdout);
	fputc('\n', stdout);
out:
	for (int i = 0; i < n; i++) {
		skit_skill_free(skills ? skills[i] : NULL);
		skitx_free(locations ? locations[i] : NULL);
	}
	skit_free(out);
	skitx_free(items);
	skitx_free(skills);
	skitx_free(locations);
	return status;
}
