/* SPDX-License-Identifier: MIT */
/*
 * cmd_list.c - `skit list [--all] [--json]`: the skills the roots hold.
 *
 * Text: one line a skill, "name  source  description", the description on
 * one line and, on a terminal, cut to its width. Without --all, the active
 * skills in index order (root precedence, then name); with --all, every
 * entry by name then root, shadowed and skipped ones marked with why.
 */
#include "common.h"

#include <sys/stat.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/install_opts.h"
#include "cli/roots.h"

/* Names wider than this do not widen the column for everyone. */
#define MAX_NAME_COL 40

static void help(void)
{
	printf("usage: skit list [options]\n\n"
	       "List the skills found in the skill roots (level 1: name, "
	       "source,\ndescription), highest precedence first.\n\n"
	       "Options:\n"
	       "  --all               also list shadowed copies and skipped "
	       "skills, with why\n"
	       "  --installed         list what 'skit install' put in the "
	       "project and user\n"
	       "                      skills folders (or --root DIR): "
	       "source, version, time;\n"
	       "                      and warn of a transaction a dead "
	       "command left\n"
	       "  --scope SCOPE       with --installed: only project or "
	       "user\n"
	       "  --json              print a JSON array of entries (with "
	       "--installed: an\n"
	       "                      object of \"skills\" and "
	       "\"unfinished\")\n" CLI_ROOTS_HELP
	       "  -h, --help          show this help\n\n"
	       "When skills were skipped or loaded with warnings, one line on "
	       "stderr says\nhow many (not with --json, whose entries say "
	       "it); 'skit doctor' lists\neach with its reasons.\n\n"
	       "Exit status: 0 (also when some skills were skipped: see "
	       "--all and\n'skit doctor'), 1 on failure, 2 on a usage "
	       "error.\n");
}

static const char *state_name(skit_entry_state s)
{
	switch (s) {
	case SKIT_ENTRY_SHADOWED:
		return "shadowed";
	case SKIT_ENTRY_SKIPPED:
		return "skipped";
	case SKIT_ENTRY_ACTIVE:
	default:
		return "active";
	}
}

/*
 * The JSON writers below use fputs and a hand-made number, not fprintf:
 * formatting dominated the output of a 10k-skill list.
 */
static void put_bool(FILE *f, const char *key, bool v, bool comma)
{
	fputs("    \"", f);
	fputs(key, f);
	fputs(v ? "\": true" : "\": false", f);
	fputs(comma ? ",\n" : "\n", f);
}

static void put_size(FILE *f, const char *key, size_t v)
{
	char digits[24], *p = digits + sizeof(digits);

	*--p = '\0';
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fputs("    \"", f);
	fputs(key, f);
	fputs("\": ", f);
	fputs(p, f);
	fputs(",\n", f);
}

/*
 * The first entry named `name` in the list of every entry (sorted by
 * name, then root): the copies a winner shadows follow it.
 */
static size_t first_named(const skit_registry *reg, const char *name)
{
	size_t lo = 0, hi = skit_registry_all_count(reg);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(skit_registry_all_entry(reg, mid)->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The `k`th copy active entry `e` shadows (same name, lower root), or
 * NULL. A project skill that hides a user skill of the same name is
 * marked in the listing, so the user knows which copy the agent uses.
 */
static const skit_entry *shadowed_copy(const skit_registry *reg,
                                       const skit_entry *e, size_t k)
{
	size_t n = skit_registry_all_count(reg);

	if (e->state != SKIT_ENTRY_ACTIVE)
		return NULL;
	for (size_t i = first_named(reg, e->name); i < n; i++) {
		const skit_entry *o = skit_registry_all_entry(reg, i);

		if (strcmp(o->name, e->name))
			break;
		if (o->state == SKIT_ENTRY_SHADOWED && !k--)
			return o;
	}
	return NULL;
}

/* A skill of a project the user has not trusted: the agent leaves it
 * out (docs/registry.md, "Folder trust"). */
static bool untrusted(const skit_registry *reg, const skit_entry *e)
{
	return !skit_registry_project_trusted(reg) &&
	       skit_registry_source_matches(e->source, "project");
}

static void json_entry(FILE *f, const skit_registry *reg, const skit_entry *e,
                       bool last)
{
	const skit_entry *o;
	fputs("  {\n", f);
	cli_put_json_kv(f, "    ", "name", e->name, true);
	cli_put_json_kv(f, "    ", "description", e->description, true);
	if (e->when_to_use)
		cli_put_json_kv(f, "    ", "when_to_use", e->when_to_use, true);
	if (e->argument_hint)
		cli_put_json_kv(f, "    ", "argument_hint", e->argument_hint,
		                true);
	cli_put_json_kv(f, "    ", "source", e->source, true);
	put_size(f, "root_index", e->root_index);
	cli_put_json_kv(f, "    ", "dir", e->dir, true);
	cli_put_json_kv(f, "    ", "file", e->file, true);
	cli_put_json_kv(f, "    ", "state", state_name(e->state), true);
	if (e->reason)
		cli_put_json_kv(f, "    ", "reason", e->reason, true);
	put_bool(f, "trusted", !untrusted(reg, e), true);
	put_size(f, "warnings", e->warnings);
	o = shadowed_copy(reg, e, 0);
	if (o) {
		/* the copies this one hides: [{source, dir}] */
		fputs("    \"shadows\": [", f);
		for (size_t k = 0; o; o = shadowed_copy(reg, e, ++k)) {
			fputs(k ? ", {\"source\": " : "{\"source\": ", f);
			cli_put_json_str(f, o->source);
			fputs(", \"dir\": ", f);
			cli_put_json_str(f, o->dir);
			fputs("}", f);
		}
		fputs("],\n", f);
	}
	put_bool(f, "disable_model_invocation",
	         e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION, true);
	put_bool(f, "user_invocable",
	         !(e->flags & SKIT_SKILL_NOT_USER_INVOCABLE), true);
	put_bool(f, "lowercase_file", e->flags & SKIT_SKILL_LOWERCASE_FILE,
	         false);
	fputs(last ? "  }\n" : "  },\n", f);
}

struct cols {
	size_t name, source, width; /* width: terminal columns, 0: none */
};

static void pad(FILE *f, size_t used, size_t col)
{
	for (; used < col; used++)
		fputc(' ', f);
}

static void text_entry(FILE *f, const skit_registry *reg, const skit_entry *e,
                       const struct cols *c, const struct cli_style *st)
{
	const skit_entry *o = shadowed_copy(reg, e, 0);
	size_t w = cli_text_width(e->name), rest = 0, used;
	const char *text = e->description;
	const char *color = e->state == SKIT_ENTRY_SKIPPED    ? st->red
	                    : e->state == SKIT_ENTRY_SHADOWED ? st->yellow
	                                                      : st->bold;

	fputs(color, f);
	cli_put_text(f, e->name, true, 0);
	fputs(st->reset, f);
	pad(f, w, c->name);
	fputs("  ", f);
	fputs(st->cyan, f);
	cli_put_text(f, e->source, true, 0);
	fputs(st->reset, f);
	pad(f, cli_text_width(e->source), c->source);
	fputs("  ", f);
	used = (w > c->name ? w : c->name) + 2 + c->source + 2;
	if (e->state == SKIT_ENTRY_SHADOWED) {
		fprintf(f, "%s[shadowed by ", st->yellow);
		cli_put_text(f, e->reason, true, 0);
		fprintf(f, "]%s ", st->reset);
		used += cli_text_width(e->reason) + 15;
		text = e->description;
	} else if (o) {
		fprintf(f, "%s[shadows ", st->yellow);
		used += 10;
		for (size_t k = 0; o; o = shadowed_copy(reg, e, ++k)) {
			fputs(k ? ", " : "", f);
			cli_put_text(f, o->source, true, 0);
			used += cli_text_width(o->source) + (k ? 2 : 0);
		}
		fprintf(f, "]%s ", st->reset);
	} else if (e->state == SKIT_ENTRY_SKIPPED) {
		fprintf(f, "%s[skipped]%s ", st->red, st->reset);
		used += 10;
		text = e->reason ? e->reason : "";
	}
	if (untrusted(reg, e)) {
		fprintf(f, "%s[untrusted]%s ", st->red, st->reset);
		used += 12;
	}
	/* on a terminal, cut to its width (but show at least 10 columns) */
	if (c->width)
		rest = c->width > used + 10 ? c->width - used : 10;
	cli_put_text(f, text, true, rest);
	fputc('\n', f);
}

/*
 * One line on stderr when some skills were skipped or loaded with
 * warnings, so that a missing skill never goes unnoticed; `skit doctor`
 * lists each with its reasons.
 */
static void summary(const skit_registry *reg, const char *verb)
{
	size_t skipped = 0, warned = 0;

	for (size_t i = 0; i < skit_registry_all_count(reg); i++) {
		const skit_entry *e = skit_registry_all_entry(reg, i);

		if (e->state == SKIT_ENTRY_SKIPPED)
			skipped++;
		else if (e->warnings)
			warned++;
	}
	if (!skipped && !warned)
		return;
	fprintf(stderr, "skit %s: ", verb);
	if (skipped)
		fprintf(stderr, "%zu skill%s skipped%s", skipped,
		        skipped == 1 ? "" : "s", warned ? ", " : "");
	if (warned)
		fprintf(stderr, "%zu loaded with warnings", warned);
	fputs(": skit doctor explains\n", stderr);
}

/*
 * A skipped copy of a name that a lower root still answers: the user gets
 * a copy they may not expect (their project's edit is broken, the older
 * user copy runs). One line each, naming both folders.
 */
static void fallbacks(const skit_registry *reg, const char *verb)
{
	for (size_t i = 0; i < skit_registry_all_count(reg); i++) {
		const skit_entry *e = skit_registry_all_entry(reg, i), *a;

		if (e->state != SKIT_ENTRY_SKIPPED)
			continue;
		a = skit_registry_find(reg, e->name, NULL);
		if (!a || a->root_index <= e->root_index ||
		    strcmp(a->name, e->name))
			continue;
		fprintf(stderr, "skit %s: the %s copy of '", verb, e->source);
		cli_put_text(stderr, e->name, true, 0);
		fputs("' is broken (", stderr);
		cli_put_text(stderr, e->reason ? e->reason : "", true, 0);
		fputs("): ", stderr);
		cli_put_text(stderr, e->dir, true, 0);
		fprintf(stderr, "; using the %s copy: ", a->source);
		cli_put_text(stderr, a->dir, true, 0);
		fputc('\n', stderr);
	}
}

/*
 * An empty listing still says something, on stderr (stdout stays empty
 * for scripts): how many roots were searched, how many of them exist,
 * and where to look next.
 */
static void nothing_found(const skit_registry *reg, const char *verb)
{
	size_t roots = skit_registry_root_count(reg), exist = 0;

	for (size_t i = 0; i < roots; i++) {
		const char *src, *path;
		bool exists;
		size_t count;

		skit_registry_root(reg, i, &src, &path, &exists, &count);
		exist += exists;
	}
	fprintf(stderr,
	        "skit %s: no skills found in the %zu root%s searched (%zu "
	        "exist%s); 'skit doctor' lists them, 'skit init NAME' "
	        "creates a skill\n",
	        verb, roots, roots == 1 ? "" : "s", exist,
	        exist == 1 ? "s" : "");
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "installed", no_argument, NULL, 'i' },
		{ "scope", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_ROOTS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_roots roots = { { NULL }, 0, NULL, false };
	skit_registry *reg = NULL;
	struct cli_style st;
	struct cols cols = { 0, 0, 0 };
	bool all = false, json = false, installed = false;
	const char *scope = NULL;
	size_t n;
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
		case 'a':
			all = true;
			break;
		case 'i':
			installed = true;
			break;
		case 's':
			if (strcmp(optarg, "project") && strcmp(optarg, "user"))
				return cli_usage_error(argv[0],
				                       "--scope is project or "
				                       "user, not '%s'",
				                       optarg);
			scope = optarg;
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
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
		                       argv[optind]);
	if (scope && !installed)
		return cli_usage_error(argv[0],
		                       "--scope goes with --installed");
	for (int i = 0; installed && i < roots.nroots; i++) {
		struct stat sb;

		if (stat(roots.roots[i], &sb) < 0 && errno == ENOENT) {
			cli_error(argv[0],
			          "--root %s: No such file or directory",
			          roots.roots[i]);
			return CLI_USAGE;
		}
	}
	if (installed)
		return cli_list_installed(roots.roots, roots.nroots, scope,
		                          json, argv[0]);

	status = cli_open_registry(&reg, &roots, argv[0]);
	if (status != CLI_OK)
		return status;
	n = all ? skit_registry_all_count(reg) : skit_registry_count(reg);
	/* JSON carries each entry's state, reason and warning count */
	if (!json)
		summary(reg, argv[0]);
	fallbacks(reg, argv[0]);
	if (!json && !skit_registry_project_trusted(reg)) {
		const char *cfg = cli_untrusted_config(reg);
		bool skills = false;

		for (size_t i = 0; !skills && i < n; i++)
			skills = untrusted(reg,
			                   all ? skit_registry_all_entry(reg, i)
			                       : skit_registry_entry(reg, i));
		/* one line, whatever the agent leaves out */
		if (skills)
			fprintf(stderr,
			        "skit %s: the project's skills are "
			        "untrusted",
			        argv[0]);
		if (cfg && !skills)
			fprintf(stderr, "skit %s:", argv[0]);
		if (cfg)
			fprintf(stderr,
			        "%s the project's config (%s) is ignored",
			        skills ? " and" : "", cfg);
		if (skills || cfg) {
			fputs(skills ? ": the agent leaves them out until you "
			               "run: skit trust "
			             : ": the folder is untrusted; to trust it, "
			               "run: skit trust ",
			      stderr);
			cli_put_text(stderr, skit_registry_project_dir(reg),
			             true, 0);
			fputc('\n', stderr);
		}
	}

	if (json) {
		/* one lock for the lot: the scan's threads made stdio lock */
		flockfile(stdout);
		fputs(n ? "[\n" : "[", stdout);
		for (size_t i = 0; i < n; i++)
			json_entry(stdout, reg,
			           all ? skit_registry_all_entry(reg, i)
			               : skit_registry_entry(reg, i),
			           i + 1 == n);
		fputs("]\n", stdout);
		funlockfile(stdout);
		goto out;
	}

	cli_style_init(&st, cli_color(stdout));
	cols.width = (size_t)cli_term_width();
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = all ? skit_registry_all_entry(reg, i)
		                          : skit_registry_entry(reg, i);
		size_t w = cli_text_width(e->name);

		if (w > cols.name && w <= MAX_NAME_COL)
			cols.name = w;
		w = cli_text_width(e->source);
		if (w > cols.source)
			cols.source = w;
	}
	for (size_t i = 0; i < n; i++)
		text_entry(stdout, reg,
		           all ? skit_registry_all_entry(reg, i)
		               : skit_registry_entry(reg, i),
		           &cols, &st);
	if (!n)
		nothing_found(reg, argv[0]);
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error(argv[0], "cannot write the output");
		status = CLI_FAIL;
	}
	skit_registry_free(reg);
	return status;
}
