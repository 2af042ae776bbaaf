/* SPDX-License-Identifier: MIT */
/*
 * cmd_verify.c - `skit verify [NAME]`: re-hash installed skills against
 * the lock file and name every file that changed, went missing or was
 * added.
 */
#include "common.h"

#include <getopt.h>
#include <jansson.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "cli/roots.h"
#include "util/alloc.h"

static void help(void)
{
	printf("usage: skit verify [options] [NAME]\n\n"
	       "Check the installed skills (or the one NAME) against the "
	       "SHA-256 of each\nfile recorded in the lock file when they "
	       "were installed, and the links (or\ncopies) the lock records "
	       "in agents' folders ('skit install --agent').\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  --json              print the findings as JSON\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 every file matches, 1 a file changed, is "
	       "missing or was\nadded (each is named), 2 usage or a NAME "
	       "not in the lock.\n");
}

static const char *kind_name(skit_verify_kind k)
{
	switch (k) {
	case SKIT_VERIFY_CHANGED:
		return "changed";
	case SKIT_VERIFY_MISSING:
		return "missing";
	case SKIT_VERIFY_ADDED:
		return "added";
	case SKIT_VERIFY_LINK:
		return "link";
	case SKIT_VERIFY_UNSAFE:
	default:
		return "unsafe";
	}
}

int cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli_scope scope = { 0 };
	skit_verify_result *vr = NULL;
	skit_error err = { 0 };
	const char *label = NULL, *name = NULL;
	bool json = false;
	char *root = NULL;
	size_t n;
	int c, rc, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		rc = cli_scope_option(&scope, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		if (c == 'j') {
			json = true;
			continue;
		}
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		return cli_unknown_option(argv[0], c, argc, argv, longopts);
	}
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	if (optind < argc)
		name = argv[optind];
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status != CLI_OK)
		return status;
	rc = skit_verify(&vr, root, name, &err);
	skitx_free(root);
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
		return rc == SKIT_ENOTFOUND && name ? CLI_USAGE : CLI_FAIL;
	}
	n = skit_verify_count(vr);
	if (json) {
		json_t *arr = json_array(), *doc;
		char *text;

		for (size_t i = 0; i < n; i++) {
			const skit_verify_finding *f = skit_verify_at(vr, i);

			json_array_append_new(
			        arr, json_pack("{s:s, s:s, s:s}", "skill",
			                       f->skill, "path", f->path,
			                       "problem", kind_name(f->kind)));
		}
		doc = json_pack("{s:I, s:o}", "skills",
		                (json_int_t)skit_verify_skills(vr), "findings",
		                arr);
		text = json_dumps(doc, JSON_INDENT(2));
		if (text)
			puts(text);
		free(text);
		json_decref(doc);
	} else {
		for (size_t i = 0; i < n; i++) {
			const skit_verify_finding *f = skit_verify_at(vr, i);

			printf("%s: ", kind_name(f->kind));
			cli_put_text(stdout, f->skill, true, 0);
			if (f->kind == SKIT_VERIFY_LINK) {
				/* an agent's link (or copy) of the skill */
				fputs(": ", stdout);
				cli_put_text(stdout, f->path, true, 0);
				puts(" is missing, leads elsewhere or was "
				     "edited");
				continue;
			}
			if (*f->path) {
				putchar('/');
				cli_put_text(stdout, f->path, true, 0);
			}
			putchar('\n');
		}
		if (!n)
			printf("%zu skill%s verified: every file matches the "
			       "lock\n",
			       skit_verify_skills(vr),
			       skit_verify_skills(vr) == 1 ? "" : "s");
	}
	skit_verify_free(vr);
	return n ? CLI_FAIL : CLI_OK;
}
