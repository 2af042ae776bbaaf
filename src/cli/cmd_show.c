/* SPDX-License-Identifier: MIT */
/*
 * cmd_show.c - `skit show NAME`: a skill's level 2 (the body of SKILL.md)
 * and the paths of its level 3 (the other files in its folder, listed,
 * never read).
 */
#include "common.h"

#include <unistd.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"

#define MAX_SUGGEST 3

static void help(void)
{
	printf("usage: skit show NAME [options]\n\n"
	       "Print a skill's instructions (the body of its SKILL.md), then "
	       "the files in\nits folder (paths only; contents are not "
	       "read).\n\n"
	       "Options:\n"
	       "  --source S          the copy from the roots labelled S "
	       "(project, user,\n"
	       "                      builtin...), also when it is shadowed\n"
	       "  --json              print {name, source, dir, file, "
	       "description, body, files}\n" CLI_ROOTS_HELP
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 shown, 1 the skill is skipped (its errors are "
	       "printed) or\nunreadable, 2 usage or no skill of that name.\n");
}

struct files {
	FILE *f;
	bool json, tty;
	size_t count;
};

static int file_cb(const char *relpath, bool is_dir, void *payload)
{
	struct files *fl = payload;

	if (fl->json) {
		fputs(fl->count ? ",\n    " : "\n    ", fl->f);
		if (is_dir) {
			/* "dir/" marks a folder */
			size_t n = strlen(relpath);
			char *p = skitx_malloc(n + 2);

			if (!p)
				return SKIT_ENOMEM;
			memcpy(p, relpath, n);
			p[n] = '/';
			p[n + 1] = '\0';
			cli_put_json_str(fl->f, p);
			skitx_free(p);
		} else {
			cli_put_json_str(fl->f, relpath);
		}
	} else {
		if (!fl->count)
			fputs("Files:\n", fl->f);
		fputs("  ", fl->f);
		if (fl->tty)
			cli_put_text(fl->f, relpath, true, 0);
		else
			fputs(relpath, fl->f);
		fputs(is_dir ? "/\n" : "\n", fl->f);
	}
	fl->count++;
	return 0;
}

/* Levenshtein distance of two short byte strings, or SIZE_MAX if long. */
static size_t distance(const char *a, const char *b)
{
	size_t row[66], la = strlen(a), lb = strlen(b);

	if (la > 64 || lb > 64)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best;

			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

/*
 * "did you mean" for an unknown name: up to three active names within a
 * small edit distance, nearest first (index order breaks ties), or names
 * that start with what was typed.
 */
static void suggest(const skit_registry *reg, const char *name)
{
	const skit_entry *best[MAX_SUGGEST] = { NULL };
	size_t dist[MAX_SUGGEST], nbest = 0, len = strlen(name);
	size_t limit = len < 6 ? 1 : len < 12 ? 2 : 3;

	for (size_t i = 0; i < skit_registry_count(reg); i++) {
		const skit_entry *e = skit_registry_entry(reg, i);
		size_t d = distance(name, e->name), at;

		if (d > limit && !(len >= 3 && !strncmp(e->name, name, len)))
			continue;
		if (d > limit)
			d = limit + 1; /* prefix matches rank after typos */
		for (at = nbest; at > 0 && dist[at - 1] > d; at--)
			;
		if (at >= MAX_SUGGEST)
			continue;
		for (size_t k = (nbest < MAX_SUGGEST ? nbest : MAX_SUGGEST - 1);
		     k > at; k--) {
			best[k] = best[k - 1];
			dist[k] = dist[k - 1];
		}
		best[at] = e;
		dist[at] = d;
		if (nbest < MAX_SUGGEST)
			nbest++;
	}
	if (!nbest)
		return;
	fputs("Did you mean: ", stderr);
	for (size_t i = 0; i < nbest; i++) {
		fputs(i ? ", " : "", stderr);
		cli_put_text(stderr, best[i]->name, true, 0);
	}
	fputs("?\n", stderr);
}

static bool has_source(const skit_registry *reg, const char *source)
{
	for (size_t i = 0; i < skit_registry_root_count(reg); i++) {
		const char *s;

		skit_registry_root(reg, i, &s, NULL, NULL, NULL);
		if (skit_registry_source_matches(s, source))
			return true;
	}
	return false;
}

/*
 * Say which copies of the same name this one hides, or which copy hides
 * it: on stderr in text (stdout is the body), as "shadows" and
 * "shadowed_by" in JSON. A copy the agent does not use is never shown
 * without a word.
 */
static void shadow_notes(const skit_registry *reg, const skit_entry *e,
                         const char *verb, bool json)
{
	size_t k = 0;

	if (e->state == SKIT_ENTRY_SHADOWED) {
		if (json) {
			cli_put_json_kv(stdout, "  ", "shadowed_by", e->reason,
			                true);
		} else {
			fprintf(stderr,
			        "skit %s: note: this copy (%s) is shadowed by "
			        "the %s copy, which is the one in use\n",
			        verb, e->source, e->reason);
		}
		return;
	}
	for (size_t i = 0; i < skit_registry_all_count(reg); i++) {
		const skit_entry *o = skit_registry_all_entry(reg, i);

		if (o->state != SKIT_ENTRY_SHADOWED || strcmp(o->name, e->name))
			continue;
		if (json) {
			fputs(k ? ", {\"source\": "
			        : "  \"shadows\": [{\"source\": ",
			      stdout);
			cli_put_json_str(stdout, o->source);
			fputs(", \"dir\": ", stdout);
			cli_put_json_str(stdout, o->dir);
			fputs("}", stdout);
		} else {
			fprintf(stderr,
			        "skit %s: note: this copy (%s) shadows "
			        "the %s copy in ",
			        verb, e->source, o->source);
			cli_put_text(stderr, o->dir, true, 0);
			fputc('\n', stderr);
		}
		k++;
	}
	if (json && k)
		fputs("],\n", stdout);
}

/* The first error of an invalid skill, for a one-line message. */
static const char *first_error(const skit_skill *skill)
{
	const skit_diag *d;
	size_t n;

	d = skit_skill_diags(skill, &n);
	for (size_t i = 0; i < n; i++)
		if (d[i].severity == SKIT_SEVERITY_ERROR)
			return d[i].message;
	return "invalid";
}

/* Explain a miss; returns the exit status. */
static int not_found(const skit_registry *reg, const char *verb,
                     const char *name, const char *source)
{
	if (source && !has_source(reg, source)) {
		cli_error(verb, "no root is labelled '%s'", source);
		return CLI_USAGE;
	}
	/* a skipped copy says more than "not found" */
	for (size_t i = 0; i < skit_registry_all_count(reg); i++) {
		const skit_entry *e = skit_registry_all_entry(reg, i);

		if (e->state != SKIT_ENTRY_SKIPPED || strcmp(e->name, name) ||
		    (source &&
		     !skit_registry_source_matches(e->source, source)))
			continue;
		fprintf(stderr, "skit %s: skill '", verb);
		cli_put_text(stderr, name, true, 0);
		fprintf(stderr, "' (%s, %s) is skipped: ", e->source, e->dir);
		cli_put_text(stderr, e->reason ? e->reason : "", true, 0);
		fputc('\n', stderr);
		return CLI_FAIL;
	}
	fprintf(stderr, "skit %s: no skill named '", verb);
	cli_put_text(stderr, name, true, 0);
	fprintf(stderr, "'%s%s\n", source ? " in " : "", source ? source : "");
	if (!source)
		suggest(reg, name);
	return CLI_USAGE;
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "source", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_ROOTS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_roots roots = { { NULL }, 0, NULL, false };
	struct files fl = { stdout, false, false, 0 };
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	const char *source = NULL, *name, *body, *declared, *folder, *known;
	const char *description;
	const skit_entry *e;
	skit_registry *reg = NULL;
	skit_skill *skill = NULL;
	skit_error err = { 0 };
	size_t body_len;
	int c, status;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		status = cli_roots_option(&roots, c, optarg, argv[0]);
		if (status == 1)
			continue;
		if (status)
			return status;
		switch (c) {
		case 's':
			source = optarg;
			break;
		case 'j':
			fl.json = true;
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
		return cli_usage_error(argv[0], "missing NAME");
	if (optind + 1 < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
		                       argv[optind + 1]);
	name = argv[optind];

	status = cli_open_registry(&reg, &roots, argv[0]);
	if (status != CLI_OK)
		return status;
	e = skit_registry_find(reg, name, source);
	if (!e) {
		status = not_found(reg, argv[0], name, source);
		goto out;
	}
	status = CLI_FAIL;
	/*
	 * One read of SKILL.md gives everything printed: frontmatter and
	 * body come from the same descriptor, and are checked again, since
	 * the file may have changed since the scan. Nothing of the scan's
	 * entry but its place (folder, root) is printed.
	 */
	opts.flags = SKIT_SKILL_LENIENT | SKIT_SKILL_BODY;
	if (skit_skill_load(&skill, e->dir, &opts, &err) < 0) {
		cli_error(argv[0], "%s: %s", e->file, err.message);
		goto out;
	}
	if (!skit_skill_valid(skill)) {
		cli_error(argv[0],
		          "%s changed since the scan and is not valid "
		          "now: %s",
		          e->file, first_error(skill));
		goto out;
	}
	if (skit_skill_body(skill, &body, &body_len, &err) < 0) {
		cli_error(argv[0], "%s: %s", e->file, err.message);
		goto out;
	}
	known = skit_skill_known_name(skill);
	description = skit_skill_description(skill);
	if (!description)
		description = "";

	fl.tty = isatty(STDOUT_FILENO);
	/*
	 * Both names when they differ (docs/format.md): the one the skill is
	 * known by (its folder's, when its own breaks the rules or differs
	 * from the folder) and the one its SKILL.md declares.
	 */
	declared = skit_skill_name_raw(skill);
	folder = skit_skill_dir_name(skill);
	if (fl.json) {
		fputs("{\n", stdout);
		cli_put_json_kv(stdout, "  ", "name", known, true);
		cli_put_json_kv(stdout, "  ", "declared_name", declared, true);
		cli_put_json_kv(stdout, "  ", "folder", folder, true);
		cli_put_json_kv(stdout, "  ", "source", e->source, true);
		cli_put_json_kv(stdout, "  ", "dir", e->dir, true);
		cli_put_json_kv(stdout, "  ", "file", e->file, true);
		cli_put_json_kv(stdout, "  ", "state",
		                e->state == SKIT_ENTRY_ACTIVE ? "active"
		                                              : "shadowed",
		                true);
		cli_put_json_kv(stdout, "  ", "description", description, true);
		cli_put_json_kv(stdout, "  ", "body", body, true);
		shadow_notes(reg, e, argv[0], true);
		fputs("  \"files\": [", stdout);
	} else {
		if (!declared || strcmp(declared, known)) {
			fputs("# known as '", stdout);
			cli_put_text(stdout, known, true, 0);
			fputs(strcmp(known, folder) ? "'; SKILL.md "
			                            : "' (its folder's name); "
			                              "SKILL.md ",
			      stdout);
			if (declared) {
				fputs("names it '", stdout);
				cli_put_text(stdout, declared, true, 0);
				fputs("'\n\n", stdout);
			} else {
				fputs("gives no name\n\n", stdout);
			}
		}
		shadow_notes(reg, e, argv[0], false);
		/* a terminal gets no raw control bytes from a skill */
		if (fl.tty)
			cli_put_text(stdout, body, false, 0);
		else
			fwrite(body, 1, body_len, stdout);
		fputs(body_len ? "\n\n" : "", stdout);
	}
	if (skit_skill_foreach_file(skill, file_cb, &fl, &err) < 0) {
		cli_error(argv[0], "%s: %s", e->dir, err.message);
		goto out;
	}
	if (fl.json)
		fputs(fl.count ? "\n  ]\n}\n" : "]\n}\n", stdout);
	else if (!fl.count)
		fputs("Files: none\n", stdout);
	status = CLI_OK;
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error(argv[0], "cannot write the output");
		status = CLI_FAIL;
	}
	skit_skill_free(skill);
	skit_registry_free(reg);
	return status;
}
