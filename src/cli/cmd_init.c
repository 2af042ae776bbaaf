/* SPDX-License-Identifier: MIT */
/*
 * cmd_init.c - `skit init NAME`: scaffold a new, valid skill folder.
 */
#include "common.h"

#include <getopt.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
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
	       "and when to use it);\n"
	       "                       without it, a placeholder that "
	       "'skit validate --strict'\n"
	       "                       refuses until you replace it\n"
	       "  --license NAME       a license field (e.g. MIT, "
	       "Apache-2.0; default: none)\n"
	       "  --json               print the name, the folder and the "
	       "SKILL.md as JSON\n"
	       "  -h, --help           show this help\n");
}

static int write_skill_md(const char *path, const char *name,
                          const char *description, const char *license)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int error;

	error = skitx_buf_printf(&b,
	                         "---\n"
	                         "name: %s\n"
	                         "description: >-\n"
	                         "  %s\n",
	                         name, description);
	if (!error && license)
		error = skitx_buf_printf(&b, "license: %s\n", license);
	if (!error)
		error = skitx_buf_printf(
		        &b,
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
		        name);
	if (!error)
		error = skitx_fs_write_atomic(path, b.ptr, b.len, 0644);
	skitx_buf_release(&b);
	return error;
}

/*
 * A valid name close to `name`, for the error message: lowercase ASCII
 * letters and digits kept, every other run of bytes one '-', no '-' at
 * either end, at most 64 bytes. Empty when nothing is left.
 */
static void suggest_name(char *out, size_t size, const char *name)
{
	size_t n = 0;
	bool dash = false;

	for (const char *p = name; *p && n + 1 < size && n < 64; p++) {
		char ch = *p;

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')) {
			if (dash && n)
				out[n++] = '-';
			dash = false;
			if (n + 1 < size && n < 64)
				out[n++] = ch;
		} else {
			dash = true;
		}
	}
	out[n] = '\0';
}

/*
 * An SPDX license name or expression: letters, digits, ".-+():" and
 * spaces, at most 200 bytes. Nothing else, so the value needs no YAML
 * quoting.
 */
static bool license_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 200 || s[0] == ' ' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || strchr(".-+() ", ch)))
			return false;
	}
	return true;
}

int cmd_init(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "description", required_argument, NULL, 'D' },
		{ "license", required_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const subdirs[] = { "scripts", "references",
		                               "assets" };
	const char *dir = ".", *name, *description = NULL, *license = NULL;
	char near[65];
	char *root = NULL, *path = NULL;
	skit_skill *skill = NULL;
	skit_error err = { 0 };
	bool json = false;
	int c, status = CLI_FAIL;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'D':
			description = optarg;
			break;
		case 'L':
			license = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing NAME");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	name = argv[optind];
	if (!skit_skill_name_ok(name) || strchr(name, '/')) {
		suggest_name(near, sizeof(near), name);
		if (*near && skit_skill_name_ok(near))
			return cli_usage_error(
			        argv[0],
			        "'%s' is not a valid skill name (1-64 lowercase "
			        "letters, digits and single hyphens, not at "
			        "either end); try '%s'",
			        name, near);
		return cli_usage_error(
		        argv[0],
		        "'%s' is not a valid skill name (1-64 lowercase "
		        "letters, digits and single hyphens, not at either "
		        "end)",
		        name);
	}
	if (license && !license_ok(license))
		return cli_usage_error(argv[0],
		                       "--license takes an SPDX name or "
		                       "expression, e.g. MIT or 'Apache-2.0 OR "
		                       "MIT'");
	if (description && (!*description || strchr(description, '\n')))
		return cli_usage_error(argv[0], "--description must be one "
		                                "non-empty line");
	if (!description)
		description = SKIT_SKILL_PLACEHOLDER_DESCRIPTION;

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
	if (write_skill_md(path, name, description, license) < 0) {
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
	if (json) {
		fputs("{\n", stdout);
		cli_put_json_kv(stdout, "  ", "name", name, true);
		cli_put_json_kv(stdout, "  ", "path", root, true);
		cli_put_json_kv(stdout, "  ", "file", path, false);
		fputs("}\n", stdout);
	} else {
		printf("Created %s\n", root);
	}
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
