/* SPDX-License-Identifier: MIT */
/*
 * cmd_keygen.c - `skit keygen FILE`: an Ed25519 key pair for signing
 * packs.
 */
#include "common.h"

#include <getopt.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/alloc.h"

static void help(void)
{
	printf("usage: skit keygen [options] FILE\n\n"
	       "Make an Ed25519 key pair for 'skit pack --sign': the private "
	       "key in FILE\n(mode 0600; it must not exist) and the public "
	       "key in FILE.pub, which is\nwhat 'skit install --trust' "
	       "takes. Prints the key id.\n\n"
	       "Options:\n"
	       "  --json              print the paths and the key id as "
	       "JSON\n"
	       "  -h, --help          show this help\n");
}

int cmd_keygen(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_error err = { 0 };
	char *pub = NULL, *id = NULL;
	bool json = false;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		if (c == 'j') {
			json = true;
			continue;
		}
		return cli_unknown_option(argv[0], c, argc, argv, longopts);
	}
	if (optind >= argc)
		return cli_usage_error(argv[0], "missing FILE");
	if (argc - optind > 1)
		return cli_usage_error(argv[0],
		                       "unexpected extra argument '%s'",
		                       argv[optind + 1]);
	pub = skitx_malloc(strlen(argv[optind]) + 5);
	if (!pub)
		return CLI_FAIL;
	snprintf(pub, strlen(argv[optind]) + 5, "%s.pub", argv[optind]);
	if (skit_keygen(argv[optind], pub, &id, &err) < 0) {
		cli_error(argv[0], "%s", err.message);
		skitx_free(pub);
		return CLI_FAIL;
	}
	if (json) {
		fputs("{\n", stdout);
		cli_put_json_kv(stdout, "  ", "private_key", argv[optind],
		                true);
		cli_put_json_kv(stdout, "  ", "public_key", pub, true);
		cli_put_json_kv(stdout, "  ", "key_id", id, false);
		fputs("}\n", stdout);
	} else {
		printf("Private key: %s\nPublic key:  %s\nKey id:      %s\n",
		       argv[optind], pub, id);
	}
	skit_free(id);
	skitx_free(pub);
	return CLI_OK;
}
