/* SPDX-License-Identifier: MIT */
/*
 * cmd_search.c - `skit search QUERY`: the active skills ranked by BM25
 * over name and description (and bodies with --body).
 */
#include "common.h"

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/buf.h"

#define DEFAULT_K 10
#define MAX_K     1000

static void help(void)
{
	printf("usage: skit search QUERY... [options]\n\n"
	       "Rank the active skills against QUERY (BM25 over names and "
	       "descriptions;\nwords in a name count more). The words of "
	       "several arguments are joined.\n\n"
	       "Options:\n"
	       "  -k N                show the best N results (default %d, at "
	       "most %d)\n"
	       "  --body              also search the skills' bodies (reads "
	       "every SKILL.md)\n"
	       "  --json              print a JSON array of {rank, score, "
	       "name, source,\n"
	       "                      description, dir, file}\n" CLI_ROOTS_HELP
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 (also with no match), 1 on failure, 2 on a "
	       "usage error.\n",
	       DEFAULT_K, MAX_K);
}

static int parse_k(const char *arg, size_t *k)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || !v || v > MAX_K)
		return -1;
	*k = (size_t)v;
	return 0;
}

int cmd_search(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "body", no_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_ROOTS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_roots roots = { { NULL }, 0, NULL, false };
	struct skitx_buf query = SKITX_BUF_INIT;
	skit_search_hit *hits = NULL;
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	struct cli_style st;
	unsigned int flags = 0;
	bool json = false;
	size_t k = DEFAULT_K, n = 0, width, namew = 0, srcw = 0;
	int c, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":hk:", longopts, NULL)) != -1) {
		status = cli_roots_option(&roots, c, optarg, argv[0]);
		if (status == 1)
			continue;
		if (status)
			return status;
		switch (c) {
		case 'k':
			if (parse_k(optarg, &k) < 0)
				return cli_usage_error(argv[0],
				                       "-k needs a number from "
				                       "1 to %d, not '%s'",
				                       MAX_K, optarg);
			break;
		case 'b':
			flags |= SKIT_SEARCH_BODY;
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
		return cli_usage_error(argv[0], "missing QUERY");
	for (int i = optind; i < argc; i++)
		if (skitx_buf_printf(&query, "%s%s", i > optind ? " " : "",
		                     argv[i]) < 0) {
			cli_error(argv[0], "out of memory");
			return CLI_FAIL;
		}

	status = cli_open_registry(&reg, &roots, argv[0]);
	if (status != CLI_OK)
		goto out;
	status = CLI_FAIL;
	hits = skitx_calloc(k, sizeof(*hits));
	if (!hits) {
		cli_error(argv[0], "out of memory");
		goto out;
	}
	if (skit_registry_search(reg, query.ptr, flags, hits, k, &n, &err) <
	    0) {
		cli_error(argv[0], "%s", err.message);
		goto out;
	}

	if (json) {
		fputs(n ? "[\n" : "[", stdout);
		for (size_t i = 0; i < n; i++) {
			const skit_entry *e = hits[i].entry;

			printf("  {\n    \"rank\": %zu,\n    \"score\": %.4f,\n",
			       i + 1, hits[i].score);
			cli_put_json_kv(stdout, "    ", "name", e->name, true);
			cli_put_json_kv(stdout, "    ", "source", e->source,
			                true);
			cli_put_json_kv(stdout, "    ", "description",
			                e->description, true);
			cli_put_json_kv(stdout, "    ", "dir", e->dir, true);
			cli_put_json_kv(stdout, "    ", "file", e->file, false);
			fputs(i + 1 < n ? "  },\n" : "  }\n", stdout);
		}
		fputs("]\n", stdout);
		status = CLI_OK;
		goto out;
	}

	cli_style_init(&st, cli_color(stdout));
	width = (size_t)cli_term_width();
	for (size_t i = 0; i < n; i++) {
		size_t w = cli_text_width(hits[i].entry->name);

		if (w > namew && w <= 40)
			namew = w;
		w = cli_text_width(hits[i].entry->source);
		if (w > srcw)
			srcw = w;
	}
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = hits[i].entry;
		size_t w = cli_text_width(e->name), used, rest = 0;

		printf("%s%7.3f%s  %s", st.dim, hits[i].score, st.reset,
		       st.bold);
		cli_put_text(stdout, e->name, true, 0);
		fputs(st.reset, stdout);
		for (size_t p = w; p < namew; p++)
			fputc(' ', stdout);
		printf("  %s", st.cyan);
		cli_put_text(stdout, e->source, true, 0);
		fputs(st.reset, stdout);
		for (size_t p = cli_text_width(e->source); p < srcw; p++)
			fputc(' ', stdout);
		fputs("  ", stdout);
		used = 9 + (w > namew ? w : namew) + 2 + srcw + 2;
		if (width)
			rest = width > used + 10 ? width - used : 10;
		cli_put_text(stdout, e->description, true, rest);
		fputc('\n', stdout);
	}
	if (!n && skit_registry_count(reg))
		fprintf(stderr, "skit search: no match among %zu skills\n",
		        skit_registry_count(reg));
	else if (!n)
		fprintf(stderr,
		        "skit search: no skills in the %zu roots searched; "
		        "'skit doctor' lists them\n",
		        skit_registry_root_count(reg));
	status = CLI_OK;
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error(argv[0], "cannot write the output");
		status = CLI_FAIL;
	}
	skitx_free(hits);
	skitx_buf_release(&query);
	skit_registry_free(reg);
	return status;
}
