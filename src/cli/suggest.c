/* SPDX-License-Identifier: MIT */
/*
 * suggest.c - "did you mean" for mistyped commands and options.
 *
 * The distance is the optimal-string-alignment variant of Damerau-
 * Levenshtein (insertions, deletions, substitutions and swaps of two
 * neighbours each cost 1), which is what git uses for the same purpose:
 * `valdiate` is one swap away from `validate`.
 */
#include "common.h"

#include <getopt.h>

#include "cli/cmd.h"

/* Words longer than this are never close to a command or option name. */
#define MAX_WORD 64

static size_t min3(size_t a, size_t b, size_t c)
{
	size_t m = a < b ? a : b;

	return m < c ? m : c;
}

size_t cli_edit_distance(const char *a, const char *b)
{
	size_t rows[3][MAX_WORD + 1];
	size_t la = strlen(a), lb = strlen(b);
	size_t *two = rows[0], *one = rows[1], *cur = rows[2], *t;

	if (la > MAX_WORD || lb > MAX_WORD)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		one[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];

			cur[j] = min3(one[j] + 1, cur[j - 1] + 1,
			              one[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && two[j - 2] + 1 < cur[j])
				cur[j] = two[j - 2] + 1;
		}
		t = two;
		two = one;
		one = cur;
		cur = t;
	}
	return one[lb];
}

const char *cli_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1, len = strlen(word);
	/* Allow one edit for short words, two from five letters on. */
	size_t limit = len >= 5 ? 2 : 1;

	for (size_t i = 0; i < n; i++) {
		size_t d = cli_edit_distance(word, cands[i]);

		if (d < best_d) {
			best_d = d;
			best = cands[i];
		}
	}
	return best_d <= limit ? best : NULL;
}

void cli_slash_hint(const skit_registry *reg, const char *line, bool chat)
{
	/* chat's own commands, as its /help and tab completion list them */
	static const char *const commands[] = {
		"clear", "compact", "context", "exit",   "help",
		"model", "plan",    "quit",    "resume", "skills",
	};
	size_t n = reg ? skit_registry_count(reg) : 0, len, best_d = (size_t)-1;
	const char *best = NULL;
	char word[MAX_WORD + 1];

	assert(line[0] == '/');
	len = strcspn(line + 1, " \t\n");
	if (!len || len > MAX_WORD)
		return;
	memcpy(word, line + 1, len);
	word[len] = '\0';
	best = chat ? cli_suggest(word, commands, SKIT_ARRAY_SIZE(commands))
	            : NULL;
	if (best)
		best_d = cli_edit_distance(word, best);
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_entry(reg, i);
		const char *one[1] = { e->name };
		size_t d;

		if (e->flags & SKIT_SKILL_NOT_USER_INVOCABLE ||
		    !cli_suggest(word, one, 1))
			continue;
		d = cli_edit_distance(word, e->name);
		if (d < best_d) {
			best_d = d;
			best = e->name;
		}
	}
	if (best)
		fprintf(stderr, "Did you mean '/%s'?\n", best);
}

/*
 * The argument getopt was looking at when it stopped on `optopt`: for a
 * long option the word just consumed; for a short one inside a cluster
 * ("-21risk"), getopt has not moved past the word yet, so search for the
 * first word that is a short-option cluster holding that letter.
 */
static const char *bad_word(int argc, char **argv)
{
	if (!optopt || optopt >= 0x100)
		return argv[optind - 1];
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "--"))
			break;
		if (w[0] == '-' && w[1] && w[1] != '-' && strchr(w + 1, optopt))
			return w;
	}
	return argv[optind - 1];
}

int cli_unknown_option(const char *verb, int c, int argc, char **argv,
                       const struct option *longopts)
{
	const char *names[128], *word, *near;
	char dashed[64];
	size_t n = 0, len;

	word = bad_word(argc, argv);
	if (c == ':')
		return cli_usage_error(verb, "option '%s' needs a value",
		                       argv[optind - 1]);
	if (optopt && optopt < 0x100 && word[0] == '-' && word[1] != '-') {
		if (word[2])
			return cli_usage_error(
			        verb,
			        "unknown option '-%c' in '%s' (put '--' before "
			        "an argument that starts with '-')",
			        optopt, word);
		return cli_usage_error(verb, "unknown option '%s'", word);
	}
	len = strcspn(word, "=");
	for (size_t i = 0; longopts && longopts[i].name && n < 128; i++)
		names[n++] = longopts[i].name;
	if (word[0] == '-' && word[1] == '-' && len - 2 < sizeof(dashed)) {
		memcpy(dashed, word + 2, len - 2);
		dashed[len - 2] = '\0';
		/* A known option getopt refused: its value is missing. */
		for (size_t i = 0; i < n; i++)
			if (!strcmp(dashed, names[i]))
				return cli_usage_error(verb,
				                       "option '--%s' needs a "
				                       "value",
				                       dashed);
		near = cli_suggest(dashed, names, n);
		if (near)
			return cli_usage_error(verb,
			                       "unknown option '%.*s'; did you "
			                       "mean '--%s'?",
			                       (int)len, word, near);
	}
	return cli_usage_error(verb, "unknown option '%.*s'", (int)len, word);
}
