/* SPDX-License-Identifier: MIT */
/*
 * cmd_update.c - `skit update [NAME]`: re-install skills from the source
 * their lock entry records, showing which files change. A change to a
 * skill's scripts or allowed-tools needs a yes: asked on a terminal,
 * --yes otherwise (HOSTILE F8). Local edits of an installed skill are
 * never overwritten without --force.
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
	       "scripts/ or allowed-tools change, skit shows the plan\nand "
	       "asks first (on a terminal) or needs --yes. A skill whose "
	       "files were\nedited since they were installed (they no longer "
	       "match the lock) is\nrefused, naming the files, unless "
	       "--force. The links 'skit install --agent'\nmade are made "
	       "again where they went missing, and copies are refreshed.\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  --dry-run           print what would change; change "
	       "nothing\n"
	       "  -y, --yes           accept changes to scripts and "
	       "allowed-tools\n"
	       "  -f, --force         overwrite local edits of installed "
	       "skills\n"
	       "  --trust PUBKEY      accept signatures by this public key "
	       "(repeatable)\n"
	       "  --plain-http        oci:// sources over plain HTTP (loopback "
	       "registries only)\n"
	       "  --strict            check skills as 'skit validate' does; "
	       "by default the\n"
	       "                      loading rules apply\n"
	       "  --skip-invalid      update the skills that load and name "
	       "those left out\n"
	       "  --header 'NAME: VALUE'\n"
	       "                      send this HTTP header to the source's "
	       "own host\n"
	       "                      (repeatable, 8 at most; never "
	       "stored)\n"
	       "  --allow-risky       install even when the scan finds "
	       "something high or\n"
	       "                      critical (the findings are still "
	       "shown)\n"
	       "  --json              print the plan as JSON\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 updated (or nothing to update), 1 refused or "
	       "failed (nothing\nchanged), 2 usage or a NAME that is not "
	       "installed.\n");
}

struct approval {
	bool yes, dry_run, json, skip, asked;
	size_t invalid;
	const char *verb;
};

/*
 * Called before anything moves. The plan is printed here only when it
 * needs a yes, and as a plan ("would replace"): what was done is
 * printed once the update is committed.
 */
static int on_plan(void *ud, const skit_install_item *items, size_t n)
{
	struct approval *a = ud;
	bool sensitive = false;
	char line[16];

	for (size_t i = 0; i < n; i++)
		sensitive |= items[i].sensitive;
	if (!sensitive || a->yes || a->dry_run)
		return 0;
	a->asked = true;
	if (!a->json)
		cli_print_plan(stdout, items, n, true);
	fflush(stdout);
	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		cli_error(a->verb, "refused: scripts or allowed-tools change; "
		                   "nothing was updated; review the plan above "
		                   "and run again with --yes to accept it");
		return 1;
	}
	fprintf(stderr, "Scripts or allowed-tools change. Install the update? "
	                "[y/N] ");
	if (!fgets(line, sizeof(line), stdin) ||
	    (line[0] != 'y' && line[0] != 'Y')) {
		cli_error(a->verb, "nothing was updated");
		return 1;
	}
	return 0;
}

/* Each skill that cannot be loaded, on its own line. */
static void invalid(void *ud, const char *skill, const char *message)
{
	struct approval *a = ud;

	(void)skill;
	a->invalid++;
	fprintf(stderr, "skit %s: %s%s\n", a->verb, a->skip ? "left out: " : "",
	        message);
}

int cmd_update(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "dry-run", no_argument, NULL, 'n' },
		{ "yes", no_argument, NULL, 'y' },
		{ "force", no_argument, NULL, 'f' },
		{ "trust", required_argument, NULL, 't' },
		{ "strict", no_argument, NULL, 's' },
		{ "skip-invalid", no_argument, NULL, 'S' },
		{ "header", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "plain-http", no_argument, NULL, 'P' },
		{ "allow-risky", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_install_options opts = SKIT_INSTALL_OPTIONS_INIT;
	struct cli_scope scope = { 0 };
	struct approval ap = { false, false, false, false, false, 0, argv[0] };
	skit_install_result *res = NULL;
	skit_error err = { 0 };
	const char *trust[64], *headers[8], *label = NULL;
	char *root = NULL;
	size_t changed = 0;
	int c, rc, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hyf", longopts, NULL)) != -1) {
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
		case 'f':
			opts.flags |= SKIT_INSTALL_FORCE;
			break;
		case 's':
			opts.flags |= SKIT_INSTALL_STRICT;
			break;
		case 'S':
			opts.flags |= SKIT_INSTALL_SKIP_INVALID;
			ap.skip = true;
			break;
		case 'H':
			if (opts.header_count == SKIT_ARRAY_SIZE(headers))
				return cli_usage_error(argv[0],
				                       "too many --header "
				                       "options (8 at most)");
			headers[opts.header_count++] = optarg;
			break;
		case 'j':
			ap.json = true;
			break;
		case 'R':
			opts.flags |= SKIT_INSTALL_ALLOW_RISKY;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	opts.trusted_keys = trust;
	opts.headers = headers;
	opts.on_invalid = invalid;
	opts.on_plan = on_plan;
	opts.userdata = &ap;
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status == CLI_OK)
		status = cli_install_scanner(&opts.scanner, argv[0]);
	if (status != CLI_OK) {
		skitx_free(root);
		return status;
	}
	opts.on_scan = cli_install_on_scan;
	rc = skit_update(root, optind < argc ? argv[optind] : NULL, &opts, &res,
	                 &err);
	skit_scanner_free(opts.scanner);
	skitx_free(root);
	if (rc == SKIT_ECANCELED && ap.asked)
		return CLI_FAIL; /* on_plan said why */
	if (rc == SKIT_EINVALID && ap.invalid && !ap.skip) {
		/* each reason is above: say what to do about them */
		cli_error(argv[0],
		          "refused: %zu skill%s cannot be loaded; nothing was "
		          "updated; --skip-invalid updates the rest",
		          ap.invalid, ap.invalid == 1 ? "" : "s");
		return CLI_FAIL;
	}
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
		return (rc == SKIT_ENOTFOUND && optind < argc) ||
		                       rc == SKIT_EUSAGE
		               ? CLI_USAGE
		               : CLI_FAIL;
	}
	for (size_t i = 0; i < skit_install_result_count(res); i++)
		changed += skit_install_result_at(res, i)->action !=
		           SKIT_INSTALL_UNCHANGED;
	if (ap.json) {
		cli_print_plan_json(res, ap.dry_run);
	} else {
		/* committed (or, with --dry-run, checked): now it is true */
		cli_print_result(stdout, res, ap.dry_run);
		printf("%s %zu of %zu skill%s (%s)\n",
		       ap.dry_run ? "Would update" : "Updated", changed,
		       skit_install_result_count(res),
		       skit_install_result_count(res) == 1 ? "" : "s", label);
	}
	skit_install_result_free(res);
	return CLI_OK;
}
