/* SPDX-License-Identifier: MIT */
/*
 * cmd_update.c - `skit update [NAME]`: re-install skills from the source
 * their lock entry records, showing which files change. A change to a
 * skill's scripts or allowed-tools needs a yes: asked on a terminal,
 * --yes otherwise (HOSTILE F8).
 */
#include "common.h"

#include <getopt.h>
#include <unistd.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "util/alloc.h"

static void help(void)
{
	printf("usage: skit update [options] [NAME]\n\n"
	       "Fetch every installed skill (or NAME) again from the source "
	       "recorded in the\nlock file, print which files change, and "
	       "install the new versions all or\nnothing. When a skill's "
	       "scripts/ or allowed-tools change, skit asks first\n(on a "
	       "terminal) or needs --yes.\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  --dry-run           print what would change; change "
	       "nothing\n"
	       "  -y, --yes           accept changes to scripts and "
	       "allowed-tools\n"
	       "  --trust PUBKEY      accept signatures by this public key "
	       "(repeatable)\n"
	       "  --plain-http        oci:// sources over plain HTTP (loopback "
	       "registries only)\n"
	       "  --json              print the plan as JSON\n"
	       "  -h, --help          show this help\n");
}

struct approval {
	bool yes, dry_run, json;
	const char *verb;
};

static int on_plan(void *ud, const skit_install_item *items, size_t n)
{
	struct approval *a = ud;
	bool sensitive = false;
	char line[16];

	if (!a->json)
		cli_print_plan(stdout, items, n, a->dry_run);
	for (size_t i = 0; i < n; i++)
		sensitive |= items[i].sensitive;
	if (!sensitive || a->yes || a->dry_run)
		return 0;
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		cli_error(a->verb, "scripts or allowed-tools change; review "
		                   "the changes above and run again with "
		                   "--yes to accept them");
		return 1;
	}
	fprintf(stderr, "Scripts or allowed-tools change. Install the update? "
	                "[y/N] ");
	if (!fgets(line, sizeof(line), stdin) ||
	    (line[0] != 'y' && line[0] != 'Y'))
		return 1;
	return 0;
}

int cmd_update(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "dry-run", no_argument, NULL, 'n' },
		{ "yes", no_argument, NULL, 'y' },
		{ "trust", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "plain-http", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_install_options opts = SKIT_INSTALL_OPTIONS_INIT;
	struct cli_scope scope = { 0 };
	struct approval ap = { false, false, false, argv[0] };
	skit_install_result *res = NULL;
	skit_error err = { 0 };
	const char *trust[64], *label = NULL;
	char *root = NULL;
	size_t changed = 0;
	int c, rc, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hy", longopts, NULL)) != -1) {
		rc = cli_scope_option(&scope, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		switch (c) {
		case 'n':
			ap.dry_run = true;
			opts.flags |= SKIT_INSTALL_DRY_RUN;
			break;
		case 'y':
			ap.yes = true;
			break;
		case 'P':
			opts.flags |= SKIT_INSTALL_OCI_PLAIN_HTTP;
			break;
		case 't':
			if (opts.trusted_count == SKIT_ARRAY_SIZE(trust))
				return cli_usage_error(argv[0],
				                       "too many --trust keys");
			trust[opts.trusted_count++] = optarg;
			break;
		case 'j':
			ap.json = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_usage_error(argv[0], "unknown option '%s'",
			                       argv[optind - 1]);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	opts.trusted_keys = trust;
	opts.on_plan = on_plan;
	opts.userdata = &ap;
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status != CLI_OK)
		return status;
	rc = skit_update(root, optind < argc ? argv[optind] : NULL, &opts, &res,
	                 &err);
	skitx_free(root);
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
		return rc == SKIT_ENOTFOUND && optind < argc ? CLI_USAGE
		                                             : CLI_FAIL;
	}
	for (size_t i = 0; i < skit_install_result_count(res); i++)
		changed += skit_install_result_at(res, i)->action !=
		           SKIT_INSTALL_UNCHANGED;
	if (ap.json)
		cli_print_plan_json(res, ap.dry_run);
	else
		printf("%s %zu of %zu skill%s (%s)\n",
		       ap.dry_run ? "Would update" : "Updated", changed,
		       skit_install_result_count(res),
		       skit_install_result_count(res) == 1 ? "" : "s", label);
	skit_install_result_free(res);
	return CLI_OK;
}
