/* SPDX-License-Identifier: MIT */
/*
 * index.c - the smallest embedding: a registry over the example skills
 * and the index an agent puts in its system prompt (docs/embedding.md).
 *
 *   cc index.c $(pkg-config --cflags --libs skit) -o index
 *   ./index          # from this folder: the skills are ../skills
 *
 * Prints the index and exits 0 when it lists csv-report.
 */
#include <stdio.h>
#include <string.h>

#include <skit/skit.h>

int main(void)
{
	skit_prompt_options po = SKIT_PROMPT_OPTIONS_INIT;
	skit_error err = { 0 };
	skit_registry *reg = NULL;
	char *index = NULL;
	int ok;

	/* A relative root is made absolute when it is added. */
	if (skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "examples", "../skills", &err) ||
	    skit_registry_scan(reg, &err)) {
		fprintf(stderr, "index: %s\n", err.message);
		skit_registry_free(reg);
		return 1;
	}
	po.format = SKIT_PROMPT_MARKDOWN;
	po.budget = 4000; /* characters */
	if (skit_registry_render_index(reg, &po, &index, NULL, &err)) {
		fprintf(stderr, "index: %s\n", err.message);
		skit_registry_free(reg);
		return 1;
	}
	printf("%s\n", index);
	ok = strstr(index, "- csv-report: ") != NULL;
	skit_free(index);
	skit_registry_free(reg);
	return ok ? 0 : 1;
}
