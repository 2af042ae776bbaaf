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
