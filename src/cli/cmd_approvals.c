/* SPDX-License-Identifier: MIT */
/*
 * cmd_approvals.c - `skit approvals list [--json]`, `skit approvals
 * revoke [ID]`: the "always" approvals of skill scripts saved in the user
 * config, each bound to the digest set of its skill (docs/permissions.md),
 * and the remembered approvals of projects' MCP servers, each bound to
 * the project, the definition and the files it runs (docs/mcp.md).
 */
#include "common.h"

#include <getopt.h>

#include "skit/mcp_client.h"
#include "skit/policy.h"
#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"

static void help(void)
{
	printf("usage: skit approvals list [--json]\n"
	       "       skit approvals revoke [ID]\n\n"
	       "An \"always\" answer for a skill's script is saved in the "
	       "user config\n(${XDG_CONFIG_HOME:-~/.config}/skit/config.json, "
	       "key \"approvals\"), bound\nto the SHA-256 of every file of the "
	       "skill: any change to the skill\nrevokes it and skit asks "
	       "again. 'list' shows them (\"changed\" when the\nskill no longer "
	       "matches); 'revoke ID' removes one, 'revoke' with no ID\n"
	       "removes them all.\n\n"
	       "The same goes for a project's MCP server approved on a "
	       "terminal (key\n\"mcpApproved\"), bound to the project, the "
	       "server's definition and the\nfiles its command line names "
	       "(docs/mcp.md); 'list' shows it as\n\"mcp SERVER\" with "
	       "the project below.\n\n"
	       "Options:\n"
	       "  --json              with list: a JSON array\n"
	       "  -h, --help          show this help\n");
}

/* The MCP records after the scripts' (`any`: some were printed). */
static void list_mcp(const skit_mcp_approval *v, size_t n, bool json, bool any)
{
	for (size_t i = 0; i < n; i++) {
		const skit_mcp_approval *a = &v[i];

		if (!json) {
			/* without its project a record cannot be checked */
			printf("%s  %s  mcp ", a->id,
			       a->current    ? "ok     "
			       : *a->project ? "changed"
			                     : "?      ");
			cli_put_text(stdout, a->server, true, 64);
			printf("  %s\n    ", a->time);
			cli_put_text(stdout, *a->project ? a->project : "?",
			             true, 0);
			fputc('\n', stdout);
			continue;
		}
		fputs(any || i ? ",\n  {\n" : "\n  {\n", stdout);
		cli_put_json_kv(stdout, "    ", "id", a->id, true);
		cli_put_json_kv(stdout, "    ", "kind", "mcp_server", true);
		cli_put_json_kv(stdout, "    ", "server", a->server, true);
		cli_put_json_kv(stdout, "    ", "project", a->project, true);
		cli_put_json_kv(stdout, "    ", "digest", a->digest, true);
		cli_put_json_kv(stdout, "    ", "time", a->time, true);
		printf("    \"current\": %s\n  }",
		       a->current ? "true" : "false");
	}
}

static int list(bool json)
{
	skit_saved_approval *v = NULL;
	skit_mcp_approval *m = NULL;
	skit_error err = { 0 };
	size_t n = 0, nm = 0;

	if (skit_saved_approvals_list(&v, &n, &err) < 0 ||
	    skit_mcp_approvals_list(NULL, &m, &nm, &err) < 0) {
		skit_saved_approvals_free(v, n);
		cli_error("approvals", "%s", err.message);
		return CLI_FAIL;
	}
	if (json)
		fputs("[", stdout);
	for (size_t i = 0; i < n; i++) {
		const skit_saved_approval *a = &v[i];

		if (!json) {
			printf("%s  %s  ", a->id,
			       a->current ? "ok     " : "changed");
			cli_put_text(stdout, a->skill, true, 60);
			fputc(' ', stdout);
			cli_put_text(stdout, a->script, true, 120);
			printf("  %s\n    ", a->time);
			cli_put_text(stdout, a->dir, true, 0);
			fputc('\n', stdout);
			continue;
		}
		fputs(i ? ",\n  {\n" : "\n  {\n", stdout);
		cli_put_json_kv(stdout, "    ", "id", a->id, true);
		cli_put_json_kv(stdout, "    ", "skill", a->skill, true);
		cli_put_json_kv(stdout, "    ", "dir", a->dir, true);
		cli_put_json_kv(stdout, "    ", "script", a->script, true);
		cli_put_json_kv(stdout, "    ", "digest", a->digest, true);
		cli_put_json_kv(stdout, "    ", "time", a->time, true);
		printf("    \"current\": %s\n  }",
		       a->current ? "true" : "false");
	}
	list_mcp(m, nm, json, n > 0);
	if (json)
		fputs(n || nm ? "\n]\n" : "]\n", stdout);
	skit_saved_approvals_free(v, n);
	skit_mcp_approvals_free(m, nm);
	return CLI_OK;
}

int cmd_approvals(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	skit_error err = { 0 };
	bool json = false;
	size_t removed = 0;
	const char *sub;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			help();
			return CLI_OK;
		case 'j':
			json = true;
			break;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing list or revoke");
	sub = argv[optind++];
	if (!strcmp(sub, "list")) {
		if (optind < argc)
			return cli_usage_error(argv[0],
			                       "unexpected extra argument '%s'",
			                       argv[optind]);
		return list(json);
	}
	if (strcmp(sub, "revoke"))
		return cli_usage_error(argv[0],
		                       "unknown subcommand '%s' (expected "
		                       "list or revoke)",
		                       sub);
	if (json)
		return cli_usage_error(argv[0], "--json goes with list");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	{
		const char *id = optind < argc ? argv[optind] : NULL;
		size_t mcp = 0;
		int rc = skit_mcp_approvals_revoke(NULL, id, &mcp, &err);

		/* an id names a script's approval or a server's */
		if (rc == SKIT_ENOTFOUND && id)
			rc = 0;
		if (!rc && (!id || !mcp))
			rc = skit_saved_approvals_revoke(id, &removed, &err);
		if (rc < 0) {
			cli_error(argv[0], "%s", err.message);
			return CLI_FAIL;
		}
		removed += mcp;
	}
	printf("revoked %zu approval%s\n", removed, removed == 1 ? "" : "s");
	return CLI_OK;
}
