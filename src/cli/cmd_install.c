/* SPDX-License-Identifier: MIT */
/*
 * cmd_install.c - `skit install SRC`: install the skills of a pack, a
 * folder, a URL or a git repository into a skills folder, all or
 * nothing; and `skit install --from-lock [FILE]`.
 */
#include "common.h"

#include <getopt.h>
#include <unistd.h>

#include "cli/error.h"
#include "cli/install_opts.h"
#include "util/alloc.h"

struct invalid_ctx {
	bool skip, progress;
	size_t count;
};

static void help(void)
{
	printf("usage: skit install [options] SRC\n"
	       "       skit install [options] --from-lock [LOCKFILE]\n\n"
	       "Install every skill SRC holds. SRC is a zip or .skill pack, a "
	       "folder (a skill,\nskill folders, or a skills/ folder of "
	       "them), an https:// URL of a zip, an\noci://HOST/REPO:TAG or "
	       "oci://HOST/REPO@sha256:DIGEST artifact, or a\ngit URL (https://, "
	       "ssh://, git@host:path, file://, or git+ before any of\nthem) "
	       "with an optional #REF (branch, tag or commit; HEAD: the "
	       "default\nbranch) and //SUBDIR, or OWNER/REPO[/PATH][@REF] for "
	       "a GitHub repository\n(when no such path exists; "
	       "SKIT_GITHUB_URL replaces https://github.com/).\n"
	       "Everything is fetched and checked in a staging folder first; "
	       "a pack of\nseveral skills installs all or nothing. The lock "
	       "file .skit-lock.json in\nthe skills folder records each "
	       "skill's source, commit or digest, and files.\n\n"
	       "Options:\n" CLI_SCOPE_HELP
	       "  --force             replace skills that are already "
	       "installed\n"
	       "  --dry-run           check everything and print the plan; "
	       "change nothing\n"
	       "  --trust PUBKEY      accept signatures by this public key "
	       "(repeatable)\n"
	       "  --require-signature refuse packs not signed by a --trust "
	       "key\n"
	       "  --strict            check skills as 'skit validate' does "
	       "(the spec's\n"
	       "                      conformance); by default the loading "
	       "rules apply\n"
	       "  --skip-invalid      install the skills that load and name "
	       "those left out;\n"
	       "                      without it, a source holding a skill "
	       "that cannot be\n"
	       "                      loaded is refused, with every reason\n"
	       "  --from-lock         install exactly what the lock file "
	       "records (the root's\n"
	       "                      own, or LOCKFILE); files must hash "
	       "as recorded\n"
	       "  --header 'NAME: VALUE'\n"
	       "                      send this HTTP header with the "
	       "download or the https\n"
	       "                      clone, to the source's own host only "
	       "(repeatable, 8 at\n"
	       "                      most; never stored), e.g. "
	       "'Authorization: Bearer TOKEN'\n"
	       "  --plain-http        oci:// over plain HTTP (loopback "
	       "registries only)\n"
	       "  --allow-risky       install even when the scan finds "
	       "something high or\n"
	       "                      critical (the findings are still "
	       "shown)\n"
	       "  --agent NAME        also link each skill into the skills "
	       "folder of the agent\n"
	       "                      NAME (claude-code, codex, cursor, "
	       "gemini-cli, opencode;\n"
	       "                      repeatable), in the project or the "
	       "user's home as\n"
	       "                      --scope says; default: the user "
	       "config's install.agents\n"
	       "  --copy              with --agent: copy instead of "
	       "linking\n"
	       "  --no-agent          link for no agent (not even the "
	       "config's)\n"
	       "  --json              print the plan as JSON\n"
	       "  -h, --help          show this help\n\n"
	       "Credentials: user:token@ in a URL is used to fetch it and "
	       "never stored in\nthe lock nor printed; ~/.netrc is read "
	       "for downloads; --header sends a\ntoken without writing it "
	       "anywhere.\n\n"
	       "Exit status: 0 installed, 1 refused or failed (nothing "
	       "changed), 2 usage.\n");
}

/* Each skill that cannot be loaded, on its own line. */
static void invalid(void *ud, const char *skill, const char *message)
{
	struct invalid_ctx *ic = ud;

	(void)skill;
	ic->count++;
	if (ic->progress)
		fputs("\r\033[K", stderr);
	fprintf(stderr, "skit install: %s%s\n", ic->skip ? "left out: " : "",
	        message);
}

static void progress(void *ud, uint64_t done, uint64_t total)
{
	(void)ud;
	if (total)
		fprintf(stderr, "\rdownloading %.1f / %.1f MiB",
		        (double)done / 1048576.0, (double)total / 1048576.0);
	else
		fprintf(stderr, "\rdownloading %.1f MiB",
		        (double)done / 1048576.0);
}

int cmd_install(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_SCOPE_LONGOPTS,
		{ "force", no_argument, NULL, 'f' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "trust", required_argument, NULL, 't' },
		{ "require-signature", no_argument, NULL, 'r' },
		{ "from-lock", no_argument, NULL, 'l' },
		{ "strict", no_argument, NULL, 's' },
		{ "skip-invalid", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "header", required_argument, NULL, 'H' },
		{ "plain-http", no_argument, NULL, 'P' },
		{ "allow-risky", no_argument, NULL, 'R' },
		{ "agent", required_argument, NULL, 'a' },
		{ "copy", no_argument, NULL, 'C' },
		{ "no-agent", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_install_options opts = SKIT_INSTALL_OPTIONS_INIT;
	struct invalid_ctx ic = { false, false, 0 };
	struct cli_scope scope = { 0 };
	struct cli_agents ag;
	const char *trust[64], *headers[8];
	skit_install_result *res = NULL;
	skit_error err = { 0 };
	bool from_lock = false, json = false;
	char *root = NULL;
	const char *label = NULL;
	int c, rc, status;

	memset(&ag, 0, sizeof(ag));
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		rc = cli_scope_option(&scope, c, optarg, argv[0]);
		if (rc == CLI_USAGE)
			return rc;
		if (rc)
			continue;
		switch (c) {
		case 'f':
			opts.flags |= SKIT_INSTALL_FORCE;
			break;
		case 'P':
			opts.flags |= SKIT_INSTALL_OCI_PLAIN_HTTP;
			break;
		case 'n':
			opts.flags |= SKIT_INSTALL_DRY_RUN;
			break;
		case 'r':
			opts.flags |= SKIT_INSTALL_REQUIRE_SIGNATURE;
			break;
		case 't':
			if (opts.trusted_count == SKIT_ARRAY_SIZE(trust))
				return cli_usage_error(argv[0],
				                       "too many --trust keys");
			trust[opts.trusted_count++] = optarg;
			break;
		case 'l':
			from_lock = true;
			break;
		case 's':
			opts.flags |= SKIT_INSTALL_STRICT;
			break;
		case 'S':
			opts.flags |= SKIT_INSTALL_SKIP_INVALID;
			break;
		case 'H':
			if (opts.header_count == SKIT_ARRAY_SIZE(headers))
				return cli_usage_error(argv[0],
				                       "too many --header "
				                       "options (8 at most)");
			headers[opts.header_count++] = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'R':
			opts.flags |= SKIT_INSTALL_ALLOW_RISKY;
			break;
		case 'a':
			ag.given = true;
			if (cli_install_agent_option(&ag, optarg, argv[0]) !=
			    CLI_OK)
				return CLI_USAGE;
			break;
		case 'C':
			ag.copy = true;
			break;
		case 'N':
			ag.none = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (!from_lock && optind >= argc)
		return cli_usage_error(argv[0], "missing SRC");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	if ((opts.flags & SKIT_INSTALL_REQUIRE_SIGNATURE) &&
	    !opts.trusted_count)
		return cli_usage_error(argv[0], "--require-signature needs "
		                                "--trust PUBKEY");
	opts.trusted_keys = trust;
	opts.headers = headers;
	if (isatty(STDERR_FILENO))
		opts.on_progress = progress;
	ic.skip = opts.flags & SKIT_INSTALL_SKIP_INVALID;
	ic.progress = opts.on_progress != NULL;
	opts.on_invalid = invalid;
	opts.userdata = &ic;
	if (ag.none && ag.given)
		return cli_usage_error(argv[0], "--agent and --no-agent "
		                                "exclude each other");
	status = cli_scope_root(&scope, &root, &label, argv[0]);
	if (status == CLI_OK)
		status = cli_install_agent_targets(&ag, label, root, argv[0]);
	if (status == CLI_OK && ag.copy && !ag.ntargets && !ag.nreads)
		status = cli_usage_error(argv[0], "--copy goes with --agent");
	if (status == CLI_OK)
		status = cli_install_scanner(&opts.scanner, argv[0]);
	if (status != CLI_OK) {
		cli_agents_release(&ag);
		skitx_free(root);
		return status;
	}
	opts.targets = ag.targets;
	opts.target_count = ag.ntargets;
	if (ag.copy)
		opts.flags |= SKIT_INSTALL_COPY;
	opts.on_scan = cli_install_on_scan;
	if (from_lock)
		rc = skit_install_from_lock(root,
		                            optind < argc ? argv[optind] : NULL,
		                            &opts, &res, &err);
	else
		rc = skit_install(root, argv[optind], &opts, &res, &err);
	skit_scanner_free(opts.scanner);
	if (opts.on_progress)
		fputs("\r\033[K", stderr);
	if (rc == SKIT_EINVALID && ic.count && !ic.skip) {
		/* each reason is above: say what to do about them */
		cli_error(argv[0],
		          "refused: %zu skill%s cannot be loaded; "
		          "--skip-invalid installs the rest",
		          ic.count, ic.count == 1 ? "" : "s");
		cli_agents_release(&ag);
		skitx_free(root);
		return CLI_FAIL;
	}
	if (rc < 0) {
		cli_error(argv[0], "%s", err.message);
		cli_agents_release(&ag);
		skitx_free(root);
		/* a source or lock that is not there is missing input */
		return rc == SKIT_EUSAGE || rc == SKIT_ENOTFOUND ? CLI_USAGE
		                                                 : CLI_FAIL;
	}
	if (json) {
		cli_print_plan_json(res, opts.flags & SKIT_INSTALL_DRY_RUN);
	} else {
		size_t n = skit_install_result_count(res);

		cli_print_result(stdout, res,
		                 opts.flags & SKIT_INSTALL_DRY_RUN);
		cli_print_reads_root(stdout, &ag,
		                     skit_install_result_root(res));
		printf("%s %zu skill%s in %s (%s)\n",
		       opts.flags & SKIT_INSTALL_DRY_RUN ? "Would install"
		                                         : "Installed",
		       n, n == 1 ? "" : "s", skit_install_result_root(res),
		       label);
	}
	if (!(opts.flags & SKIT_INSTALL_DRY_RUN))
		cli_install_notes(res, label, argv[0]);
	skit_install_result_free(res);
	cli_agents_release(&ag);
	skitx_free(root);
	return CLI_OK;
}
