/* SPDX-License-Identifier: MIT */
/*
 * cmd_init.c - `skit init NAME`: scaffold a new, valid skill folder.
 */
#include "common.h"

#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

static void help(void)
{
	printf("usage: skit init [options] NAME\n"
	       "       skit init [options] PATH/NAME\n\n"
	       "Create a skill folder with a SKILL.md that passes 'skit "
	       "validate', the\nrecommended body sections, and empty "
	       "scripts/, references/ and assets/.\n\n"
	       "Where it goes:\n"
	       "  NAME       inside a project (a folder with .agents/, "
	       ".agent/, .claude/\n"
	       "             or .git above), the project's skills folder, "
	       "<project>/.agents/skills/NAME,\n"
	       "             where 'skit list', 'skit show' and the agent "
	       "find it; elsewhere ./NAME\n"
	       "  PATH/NAME  exactly there, as 'cargo new' does (missing "
	       "folders are made):\n"
	       "             the name is the last component; './NAME' is "
	       "the current folder\n\n"
	       "Options:\n"
	       "  --scope SCOPE        project or user: that scope's skills "
	       "folder\n"
	       "                       (<project>/.agents/skills, or "
	       "~/.agents/skills)\n"
	       "  --dir DIR            create it inside DIR\n"
	       "  --description TEXT   the description (what the skill does "
	       "and when to use it);\n"
	       "                       without it, a placeholder that "
	       "'skit validate --strict'\n"
	       "                       refuses until you replace it\n"
	       "  --license NAME       a license field (e.g. MIT, "
	       "Apache-2.0; default: none)\n"
	       "  --json               print the name, the folder and the "
	       "SKILL.md as JSON\n"
	       "  -h, --help           show this help\n\n"
	       "It prints the folder it made; stderr says when the agent "
	       "will not load it\nyet (an untrusted project, or a folder "
	       "that is no skills root).\n");
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

/* A root's label ("project:agents"); longer ones are cut. */
#define LABEL_MAX 64

/*
 * The skills folder of `scope` ("project" or "user"; NULL: the project
 * when there is one) from the default roots, in *out (skitx_malloc'd;
 * NULL when there is no such scope here). `label` (LABEL_MAX bytes) gets
 * the root's label (empty with no folder), *untrusted whether the agent
 * leaves the project's skills out. Returns CLI_OK, or CLI_FAIL after
 * saying why (a malformed config file, out of memory).
 */
static int scope_root(char **out, char *label, bool *untrusted,
                      const char *scope, const char *verb)
{
	skit_roots_options ro = SKIT_ROOTS_OPTIONS_INIT;
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	const char *want = scope;
	int status = CLI_OK;

	*out = NULL;
	*label = '\0';
	*untrusted = false;
	if (skit_registry_new(&reg, &err) < 0 ||
	    skit_registry_add_default_roots(reg, &ro, &err) < 0) {
		cli_error(verb, "%s", err.message);
		skit_registry_free(reg);
		return CLI_FAIL;
	}
	if (!want && skit_registry_project_dir(reg))
		want = "project";
	for (size_t i = 0; want && i < skit_registry_root_count(reg); i++) {
		const char *src, *path;
		bool exists;
		size_t n;

		skit_registry_root(reg, i, &src, &path, &exists, &n);
		if (!skit_registry_source_matches(src, want))
			continue;
		*out = skitx_strdup(path);
		if (!*out) {
			cli_error(verb, "out of memory");
			status = CLI_FAIL;
			break;
		}
		snprintf(label, LABEL_MAX, "%s", src);
		*untrusted = !strcmp(want, "project") &&
		             !skit_registry_project_trusted(reg);
		break;
	}
	skit_registry_free(reg);
	return status;
}

/* `path` relative to the current folder when it lies under it. */
static const char *shown_path(const char *path, const char *cwd)
{
	size_t n = strlen(cwd);

	if (cwd[0] && !strncmp(path, cwd, n) && path[n] == '/' && path[n + 1])
		return path + n + 1;
	return path;
}

int cmd_init(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "scope", required_argument, NULL, 's' },
		{ "description", required_argument, NULL, 'D' },
		{ "license", required_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const subdirs[] = { "scripts", "references",
		                               "assets" };
	const char *dir = NULL, *name, *description = NULL, *license = NULL;
	const char *scope = NULL, *label = NULL, *slash;
	char found[LABEL_MAX] = "";
	char near[65], cwd[PATH_MAX];
	char *root = NULL, *path = NULL, *arg = NULL, *parent = NULL;
	bool untrusted = false;
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
		case 's':
			if (strcmp(optarg, "project") && strcmp(optarg, "user"))
				return cli_usage_error(argv[0],
				                       "--scope is project or "
				                       "user, not '%s'",
				                       optarg);
			scope = optarg;
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
	if (dir && scope)
		return cli_usage_error(argv[0], "--dir and --scope exclude "
		                                "each other");
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

	/* PATH/NAME: the name is the last component (trailing '/' aside) */
	arg = skitx_strdup(argv[optind]);
	if (!arg)
		goto oom;
	for (size_t n = strlen(arg); n > 1 && arg[n - 1] == '/'; n--)
		arg[n - 1] = '\0';
	slash = strrchr(arg, '/');
	name = slash ? slash + 1 : arg;
	if (slash && scope) {
		status = cli_usage_error(argv[0], "--scope takes a NAME, not "
		                                  "a path");
		goto out;
	}
	if (!skit_skill_name_ok(name)) {
		suggest_name(near, sizeof(near), name);
		if (*near && skit_skill_name_ok(near))
			status = cli_usage_error(
			        argv[0],
			        "'%s' is not a valid skill name (1-64 lowercase "
			        "letters, digits and single hyphens, not at "
			        "either end); try '%s'",
			        name, near);
		else
			status = cli_usage_error(
			        argv[0],
			        "'%s' is not a valid skill name (1-64 lowercase "
			        "letters, digits and single hyphens, not at "
			        "either end)",
			        name);
		goto out;
	}

	if (!getcwd(cwd, sizeof(cwd)))
		cwd[0] = '\0';
	if (slash) {
		/* as `cargo new path/x`: exactly there, parents made */
		root = dir ? skitx_path_join(dir, arg) : skitx_strdup(arg);
	} else if (dir) {
		root = skitx_path_join(dir, name);
	} else {
		if (scope_root(&parent, found, &untrusted, scope, argv[0]) !=
		    CLI_OK)
			goto out;
		label = *found ? found : NULL;
		if (!parent && scope) {
			cli_error(
			        argv[0],
			        !strcmp(scope, "project")
			                ? "no project here (no .agents, "
			                  ".agent, .claude or .git above this "
			                  "folder); use --scope user, or a "
			                  "path such as ./%s"
			                : "no user skills folder (set HOME or "
			                  "SKIT_HOME); use a path such as "
			                  "./%s",
			        name);
			status = CLI_USAGE;
			goto out;
		}
		root = parent ? skitx_path_join(parent, name)
		              : skitx_strdup(name);
	}
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
		cli_put_json_kv(stdout, "  ", "root", label, true);
		cli_put_json_kv(stdout, "  ", "file", path, false);
		fputs("}\n", stdout);
	} else if (label) {
		printf("Created %s (%s, where 'skit list' and the agent look)\n",
		       shown_path(root, cwd), label);
	} else {
		printf("Created %s\n", root);
	}
	/* The next step the user would miss, on stderr. */
	if (untrusted)
		fprintf(stderr,
		        "skit %s: this project is untrusted: the agent leaves "
		        "its skills out until you run: skit trust\n",
		        argv[0]);
	else if (!label)
		fprintf(stderr,
		        "skit %s: %s is in no skills root: 'skit validate %s' "
		        "checks it; 'skit install %s' makes it visible to "
		        "'skit list' and the agent\n",
		        argv[0], root, root, root);
	status = CLI_OK;
	goto out;
oom:
	cli_error(argv[0], "out of memory");
out:
	skit_skill_free(skill);
	skitx_free(path);
	skitx_free(root);
	skitx_free(parent);
	skitx_free(arg);
	return status;
}
