/* SPDX-License-Identifier: MIT */
/*
 * cmd_pack.c - `skit pack DIR... -o FILE`: write skills into a
 * reproducible, optionally signed pack.
 */
#include "common.h"

#include <getopt.h>
#include <jansson.h>
#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"

static void help(void)
{
	printf("usage: skit pack [options] DIR... -o FILE\n\n"
	       "Write the skill folders DIR into the pack FILE (a zip; .skill "
	       "is the same\nformat): <name>/SKILL.md and <name>/... for "
	       "each skill, and manifest.json\nlisting every file's path, "
	       "size and SHA-256 with a digest over the whole.\nEach skill "
	       "must load with the loading rules (docs/format.md), or pass\n"
	       "'skit validate' with --strict. A skill is packed under the "
	       "name it is known\nby. A DIR that is a symbolic link is "
	       "packed from where it leads. The same\ninput gives the same "
	       "bytes.\n\n"
	       "Options:\n"
	       "  -o, --output FILE   the pack to write (replaced "
	       "atomically)\n"
	       "  --sign KEY          sign the manifest digest with this "
	       "private key (see\n"
	       "                      'skit keygen')\n"
	       "  --strict            each skill must pass 'skit validate' "
	       "(conformance)\n"
	       "  --json              print what was written as JSON\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 packed, 1 refused or failed (nothing written), "
	       "2 usage or a\nmissing DIR.\n");
}

int cmd_pack(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "sign", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "strict", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_pack_options opts = SKIT_PACK_OPTIONS_INIT;
	skit_pack_info info;
	skit_error err = { 0 };
	const char *out = NULL;
	bool json = false;
	int c, missing = 0;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 's':
			opts.sign_key = optarg;
			break;
		case 'S':
			opts.flags |= SKIT_PACK_STRICT;
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
		return cli_usage_error(argv[0], "missing DIR");
	if (!out)
		return cli_usage_error(argv[0], "missing -o FILE");
	/* every missing input is named, then nothing is packed: exit 2 */
	for (int i = optind; i < argc; i++) {
		struct stat st;

		if (lstat(argv[i], &st) < 0 && errno == ENOENT) {
			cli_error(argv[0], "%s: No such file or directory",
			          argv[i]);
			missing++;
		}
	}
	if (missing)
		return CLI_USAGE;
	if (skit_pack((const char *const *)argv + optind,
	              (size_t)(argc - optind), out, &opts, &info, &err) < 0) {
		cli_error(argv[0], "%s", err.message);
		return err.code == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
	}
	if (json) {
		char d[72];
		json_t *doc;
		char *text;

		snprintf(d, sizeof(d), "sha256:%s", info.digest);
		doc = json_pack("{s:s, s:I, s:I, s:I, s:s, s:o}", "file", out,
		                "skills", (json_int_t)info.skills, "files",
		                (json_int_t)info.files, "bytes",
		                (json_int_t)info.bytes, "digest", d,
		                "signed_by",
		                info.key_id[0] ? json_string(info.key_id)
		                               : json_null());
		text = json_dumps(doc, JSON_INDENT(2));
		if (text)
			puts(text);
		free(text);
		json_decref(doc);
	} else
		printf("Packed %zu skill%s (%zu files, %llu bytes) into %s\n"
		       "digest sha256:%s%s%s\n",
		       info.skills, info.skills == 1 ? "" : "s", info.files,
		       (unsigned long long)info.bytes, out, info.digest,
		       info.key_id[0] ? "\nsigned by " : "", info.key_id);
	return CLI_OK;
}
