/* SPDX-License-Identifier: MIT */
/*
 * cmd_init.c - `skit init NAME`: scaffold a new, valid skill folder.
 */
#include "common.h"

#include <getopt.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit init [options] NAME\n\n"
	       "Create the folder NAME with a SKILL.md that passes "
	       "'skit validate', the\nrecommended body sections, and empty "
	       "scripts/, references/ and assets/.\n\n"
	       "Options:\n"
	       "  --dir DIR            create it inside DIR (default: the "
	       "current folder)\n"
	       "  --description TEXT   the description (what the skill does "
	       "and when to use it)\n"
	       "  -h, --help           show this help\n");
}

static int write_skill_md(const char *path, const char *name,
                          const char *description)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int error;

	error = skitx_buf_printf(
	        &b,
	        "---\n"
	        "name: %s\n"
	        "description: >-\n"
	        "  %s\n"
	        "license: MIT\n"
	        "metadata:\n"
	        "  version: \"0.1.0\"\n"
	        "---\n\n"
	        "# %s\n\n"
	        "## Overview\n\n"
	        "What this skill does, in two or three sentences.\n\n"
	        "## When to use\n\n"
	        "- The requests or situations where this skill applies.\n"
	        "- When not to use it.\n\n"
	        "## Steps\n\n"
	        "1. The first thing to do.\n"
	        "2. Scripts live in `scripts/`; run them rather than "
	        "rewriting them.\n"
	        "3. Load `references/` files only when a step needs them.\n\n"
	        "## Examples\n\n"
	        "Input and the expected result.\n\n"
	        "## Gotchas\n\n"
	        "Edge cases and mistakes to avoid.\n",
	        name, description, name);
	if (!error)
		error = skitx_fs_write_atomic(path, b.ptr, b.len, 0644);
	skitx_buf_release(&b);
	return error;
}

int cmd_init(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "description", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const subdirs[] = { "scripts", "references",
		                               "assets" };
	const char *dir = ".", *name, *description = NULL;
	char *root = NULL, *path = NULL;
	skit_skill *skill = NULL;
	skit_error err = { 0 };
	int c, status = CLI_FAIL;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'D':
			description = optarg;
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
		return cli_usage_error(argv[0], "missing NAME");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	name = argv[optind];
	if (!skit_skill_name_ok(name) || strchr(name, '/'))
		return cli_usage_error(
		        argv[0],
		        "'%s' is not a valid skill name (1-64 lowercase "
		        "letters, digits and single hyphens, not at either "
		        "end)",
		        name);
	if (description && (!*description || strchr(description, '\n')))
		return cli_usage_error(argv[0], "--description must be one "
		                                "non-empty line");
	if (!description)
		description = "Describe what this skill does and when an agent "
		              "should use it.";

	root = skitx_path_join(dir, name);
	if (!root)
		goto oom;
	if (skitx_fs_exists(root)) {
		cli_error(argv[0], "%s already exists", root);
		goto out;
	}
	if (skitx_fs_mkdir_p(root, 0755) < 0) {
		cli_error(argv[0], "cannot create %s: %s", root,
		          strerror(errno));
		goto out;
	}
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(subdirs); i++) {
		skitx_free(path);
		path = skitx_path_join(root, subdirs[i]);
		if (!path)
			goto oom;
		if (mkdir(path, 0755) < 0) {
			cli_error(argv[0], "cannot create %s: %s", path,
			          strerror(errno));
			goto out;
		}
	}
	skitx_free(path);
	path = skitx_path_join(root, "SKILL.md");
	if (!path)
		goto oom;
	if (write_skill_md(path, name, description) < 0) {
		cli_error(argv[0], "cannot write %s", path);
		goto out;
	}
	/* What we scaffold must pass our own validator. */
	if (skit_skill_load(&skill, root, NULL, &err) < 0 ||
	    !skit_skill_valid(skill)) {
		cli_error(
		        argv[0], "the new skill does not validate: %s",
		        skill ? skit_skill_diags(skill, &(size_t){ 0 })->message
		              : err.message);
		goto out;
	}
	printf("Created %s\n", root);
	status = CLI_OK;
	goto out;
oom:
	cli_error(argv[0], "out of memory");
out:
	skit_skill_free(skill);
	skitx_free(path);
	skitx_free(root);
	return status;
}
