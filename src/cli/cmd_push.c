/* SPDX-License-Identifier: MIT */
/*
 * cmd_push.c - `skit push PACK|DIR... oci://HOST/REPO:TAG`: store a pack
 * in an OCI registry as an artifact (folders are packed first).
 */
#include "common.h"

#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "util/alloc.h"

static void help(void)
{
	printf("usage: skit push [options] PACK oci://HOST[:PORT]/REPO:TAG\n"
	       "       skit push [options] DIR... oci://HOST[:PORT]/REPO:TAG\n\n"
	       "Store a pack (from 'skit pack') in an OCI registry as an "
	       "artifact of type\napplication/vnd.skit.pack.v1+zip; skill "
	       "folders are packed first. Blobs the\nregistry already holds "
	       "are not sent again. Prints the manifest digest, which\n"
	       "'skit install oci://HOST/REPO@DIGEST' takes. Credentials "
	       "come from\n~/.docker/config.json ($DOCKER_CONFIG): auths, "
	       "credHelpers, credsStore.\n\n"
	       "Options:\n"
	       "  --sign KEY          sign the pack made from folders with "
	       "this private key\n"
	       "  --strict            check folders as 'skit validate' does\n"
	       "  --plain-http        plain HTTP (loopback registries only)\n"
	       "  --chunk-size BYTES  upload larger packs in chunks of BYTES "
	       "(default 16 MiB)\n"
	       "  --json              print the result as JSON\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 pushed, 1 failed, 2 usage.\n");
}

int cmd_push(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sign", required_argument, NULL, 's' },
		{ "strict", no_argument, NULL, 'S' },
		{ "plain-http", no_argument, NULL, 'P' },
		{ "chunk-size", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	skit_oci_options oo = SKIT_OCI_OPTIONS_INIT;
	skit_pack_options po = SKIT_PACK_OPTIONS_INIT;
	skit_pack_info info;
	skit_error err = { 0 };
	char digest[72], tmp[4096] = "";
	const char *pack, *ref;
	bool json = false;
	struct stat st;
	int c, n, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			po.sign_key = optarg;
			break;
		case 'S':
			po.flags |= SKIT_PACK_STRICT;
			break;
		case 'P':
			oo.plain_http = true;
			break;
		case 'c': {
			char *end;
			unsigned long long v = strtoull(optarg, &end, 10);

			if (*end || !v || v < 4096 || optarg[0] == '-')
				return cli_usage_error(
				        argv[0], "--chunk-size: a number "
				                 "of bytes, 4096 or more");
			oo.chunk_size = v;
			break;
		}
		case 'j':
			json = true;
			break;
		case 'h':
			help();
			return CLI_OK;
		default:
			return cli_usage_error(argv[0], "unknown option '%s'",
			                       argv[optind - 1]);
		}
	}
	n = argc - optind;
	if (n < 2)
		return cli_usage_error(argv[0], n ? "missing oci:// reference"
		                                  : "missing PACK or DIR");
	ref = argv[argc - 1];
	if (strncmp(ref, "oci://", 6))
		return cli_usage_error(argv[0],
		                       "'%s' is not an oci://HOST/REPO:TAG "
		                       "reference",
		                       ref);
	pack = argv[optind];
	if (stat(pack, &st) < 0) {
		cli_error(argv[0], "%s: %s", pack, strerror(errno));
		return CLI_USAGE;
	}
	if (S_ISREG(st.st_mode)) {
		if (n > 2)
			return cli_usage_error(
			        argv[0], "give one pack file, or folders");
		if (po.sign_key)
			return cli_usage_error(
			        argv[0], "--sign applies to folders; sign "
			                 "a pack with 'skit pack --sign'");
	} else {
		const char *td = getenv("TMPDIR");
		int fd;

		snprintf(tmp, sizeof(tmp), "%s/skit-push-XXXXXX",
		         td && *td ? td : "/tmp");
		fd = mkstemp(tmp);
		if (fd < 0) {
			cli_error(argv[0], "%s: %s", tmp, strerror(errno));
			return CLI_FAIL;
		}
		close(fd);
		if (skit_pack((const char *const *)argv + optind,
		              (size_t)(n - 1), tmp, &po, &info, &err) < 0) {
			cli_error(argv[0], "%s", err.message);
			status = err.code == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
			goto out;
		}
		pack = tmp;
	}
	if (skit_oci_push(pack, ref, &oo, digest, &err) < 0) {
		cli_error(argv[0], "%s", err.message);
		status = err.code == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
		goto out;
	}
	if (json) {
		json_t *doc = json_pack("{s:s, s:s}", "reference", ref,
		                        "digest", digest);
		char *text = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;

		if (text)
			puts(text);
		free(text);
		json_decref(doc);
	} else
		printf("%s\n", digest);
out:
	if (*tmp)
		unlink(tmp);
	return status;
}
