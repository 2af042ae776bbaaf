/* SPDX-License-Identifier: MIT */
/*
 * cmd_mcp.c - `skit mcp`: serve the skills to MCP clients, over stdio
 * (the default) or Streamable HTTP (--http).
 */
#include "common.h"

#include <signal.h>
#include <unistd.h>

#include "cli/agent_opts.h"
#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "skit/mcp.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

#define TOKEN_MAX 4096

enum {
	OPT_HTTP = 0x2000,
	OPT_TOKEN_FILE,
	OPT_ALLOW_SCRIPTS,
	OPT_ORIGIN,
};

static volatile int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void help(void)
{
	printf("usage: skit mcp [options]\n\n"
	       "Serve the skills to MCP (Model Context Protocol) clients: the "
	       "Skills\nextension (skills/list, skills/get, skill:// "
	       "resources), the tools\nuse_skill, read_skill_resource and "
	       "search_skills, and every user-invocable\nskill as a prompt. "
	       "Speaks newline-delimited JSON-RPC on stdin/stdout\nunless "
	       "--http is given. See docs/mcp.md.\n\n"
	       "Options:\n"
	       "  --http ADDR         serve Streamable HTTP at "
	       "http://ADDR/mcp; ADDR is\n"
	       "                      HOST:PORT, [IPv6]:PORT or PORT (host "
	       "127.0.0.1;\n"
	       "                      port 0 picks a free one)\n"
	       "  --token-file F      require \"Authorization: Bearer "
	       "TOKEN\", TOKEN read\n"
	       "                      from F (HTTP)\n"
	       "  --origin URL        also allow this Origin (HTTP; "
	       "repeatable; loopback\n"
	       "                      origins are always allowed)\n"
	       "  --allow-scripts     offer run_skill_script: scripts run in "
	       "the sandbox\n"
	       "                      under the same policy as `skit run` "
	       "(over HTTP\n"
	       "                      only with --token-file)\n" CLI_ROOTS_HELP
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 at end of input or on SIGINT/SIGTERM, 1 on "
	       "failure, 2 on a\nusage error.\n");
}

/* "HOST:PORT", "[V6]:PORT" or "PORT". */
static int parse_addr(char *arg, const char **host, unsigned int *port)
{
	char *colon, *end, *p = arg;
	unsigned long v;

	*host = NULL;
	if (*arg == '[') {
		colon = strchr(arg, ']');
		if (!colon || colon[1] != ':')
			return -1;
		*colon = '\0';
		*host = arg + 1;
		p = colon + 2;
	} else if ((colon = strrchr(arg, ':'))) {
		*colon = '\0';
		if (*arg)
			*host = arg;
		p = colon + 1;
	}
	errno = 0;
	v = strtoul(p, &end, 10);
	if (errno || end == p || *end || *p == '-' || v > 65535)
		return -1;
	*port = (unsigned int)v;
	return 0;
}

static int read_token(const char *path, char **out, const char *verb)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t len;
	int rc = skitx_fs_read_file(path, &b, TOKEN_MAX);

	if (rc) {
		skitx_buf_release(&b);
		cli_error(verb, "%s: %s", path,
		          rc == SKIT_ETOOBIG ? "larger than 4 KiB"
		                             : skit_strerror(rc));
		return CLI_USAGE;
	}
	len = skitx_buf_len(&b);
	while (len && strchr("\r\n \t", skitx_buf_cstr(&b)[len - 1]))
		len--;
	skitx_buf_truncate(&b, len);
	if (!len || strpbrk(skitx_buf_cstr(&b), "\r\n") ||
	    strlen(skitx_buf_cstr(&b)) != len) {
		skitx_buf_release(&b);
		cli_error(verb, "%s: the token must be one non-empty line",
		          path);
		return CLI_USAGE;
	}
	*out = skitx_buf_detach(&b, NULL);
	return CLI_OK;
}

/* The policy scripts run under: the user's config, then the project's
 * (which may restrict, not grant), then --config. */
static int open_policy(skit_policy **out, const struct cli_roots *roots,
                       const char *project, const char *verb)
{
	char *files[3] = { NULL, NULL, NULL };
	bool trusted[3] = { true, false, true };
	skit_error err = { 0 };
	int rc;

	rc = skit_policy_new(out, &err);
	if (!rc)
		cli_config_files(roots->no_config, roots->config, project,
		                 files);
	for (size_t i = 0; !rc && i < 3; i++) {
		size_t ignored = 0;

		if (!files[i])
			continue;
		rc = skit_policy_load_config(*out, files[i], trusted[i],
		                             &ignored, &err);
		if (rc == SKIT_ENOTFOUND && i < 2)
			rc = 0;
	}
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	if (rc) {
		cli_error(verb, "%s", err.message);
		return rc == SKIT_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
	}
	return CLI_OK;
}

static void on_ready(unsigned int port, void *payload)
{
	const char *host = payload;

	fprintf(stderr, "skit mcp: listening on http://%s%s%s:%u/mcp\n",
	        strchr(host, ':') ? "[" : "", host,
	        strchr(host, ':') ? "]" : "", port);
	fflush(stderr);
}

int cmd_mcp(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "http", required_argument, NULL, OPT_HTTP },
		{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
		{ "origin", required_argument, NULL, OPT_ORIGIN },
		{ "allow-scripts", no_argument, NULL, OPT_ALLOW_SCRIPTS },
		{ "help", no_argument, NULL, 'h' },
		CLI_ROOTS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_roots roots = { { NULL }, 0, NULL, false };
	skit_mcp_options mo = SKIT_MCP_OPTIONS_INIT;
	skit_mcp_http_options ho = SKIT_MCP_HTTP_INIT;
	const char *origins[17] = { NULL };
	const char *token_file = NULL;
	char *http = NULL, *token = NULL;
	skit_registry *reg = NULL;
	skit_policy *policy = NULL;
	skit_mcp_server *srv = NULL;
	skit_error err = { 0 };
	size_t norigins = 0;
	int c, status, rc, wfd;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		status = cli_roots_option(&roots, c, optarg, argv[0]);
		if (status == 1)
			continue;
		if (status)
			return status;
		switch (c) {
		case OPT_HTTP:
			http = optarg;
			break;
		case OPT_TOKEN_FILE:
			token_file = optarg;
			break;
		case OPT_ORIGIN:
			if (norigins == SKIT_ARRAY_SIZE(origins) - 1)
				return cli_usage_error(argv[0],
				                       "at most 16 --origin");
			origins[norigins++] = optarg;
			break;
		case OPT_ALLOW_SCRIPTS:
			mo.allow_scripts = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_unknown_option(argv[0], c, argc, argv,
			                          longopts);
		}
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
		                       argv[optind]);
	if (http && parse_addr(http, &ho.host, &ho.port) < 0)
		return cli_usage_error(argv[0],
		                       "--http needs HOST:PORT or PORT, not "
		                       "'%s'",
		                       http);
	if (token_file && !http)
		return cli_usage_error(argv[0], "--token-file needs --http");
	if (http && mo.allow_scripts && !token_file)
		return cli_usage_error(argv[0],
		                       "--allow-scripts over HTTP needs "
		                       "--token-file: any local user could "
		                       "run the scripts");
	if (token_file) {
		status = read_token(token_file, &token, argv[0]);
		if (status)
			return status;
	}
	/* A client agent gets what skit's own agent would: an untrusted
	 * folder's skills and config stay off (docs/mcp.md). */
	status = cli_open_registry_trusted(&reg, &roots, NULL, argv[0]);
	if (status)
		goto out;
	if (skit_registry_project_held_back(reg) || cli_untrusted_config(reg)) {
		struct cli_style plain;

		cli_style_init(&plain, false);
		fputs("skit mcp: the skills and config of ", stderr);
		cli_put_exact(stderr, skit_registry_project_dir(reg), &plain);
		fputs(" are not served (not a trusted folder); to trust it, "
		      "run: skit trust ",
		      stderr);
		cli_put_exact(stderr, skit_registry_project_dir(reg), &plain);
		fputc('\n', stderr);
	}
	status = open_policy(&policy, &roots,
	                     skit_registry_project_trusted(reg)
	                             ? skit_registry_project_dir(reg)
	                             : NULL,
	                     argv[0]);
	if (status)
		goto out;
	mo.registry = reg;
	mo.policy = policy;
	rc = skit_mcp_server_new(&srv, &mo, &err);
	if (rc) {
		cli_error(argv[0], "%s", err.message);
		status = CLI_FAIL;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (http) {
		ho.token = token;
		ho.origins = origins;
		ho.on_ready = on_ready;
		ho.payload = (void *)(ho.host ? ho.host : "127.0.0.1");
		rc = skit_mcp_serve_http(srv, &ho, &stop_flag, &err);
	} else {
		if (skit_mcp_server_watch(srv, &wfd, &err))
			fprintf(stderr, "skit mcp: warning: %s\n", err.message);
		rc = skit_mcp_serve_stdio(srv, 0, 1, &stop_flag, &err);
	}
	status = CLI_OK;
	if (rc && rc != SKIT_ECANCELED) {
		cli_error(argv[0], "%s", err.message);
		status = rc == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
	}
out:
	skit_mcp_server_free(srv);
	skit_policy_free(policy);
	skit_registry_free(reg);
	skitx_free(token);
	return status;
}
