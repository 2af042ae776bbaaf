/* SPDX-License-Identifier: MIT */
/*
 * consumer.c - an outside program built against the *installed* libskit
 * (tests/package/install.sh): the version, a registry over a folder of
 * skills given on the command line, the index for a system prompt, and a
 * returned string freed with skit_free() as the headers say. Exits 0 and
 * prints "consumer ok N" when it all worked.
 */
#include <stdio.h>
#include <string.h>

#include <skit/skit.h>

int main(int argc, char **argv)
{
	skit_error err = { 0 };
	skit_registry *reg = NULL;
	char *text = NULL;
	size_t n;

	if (argc != 2) {
		fprintf(stderr, "usage: consumer SKILLS-FOLDER\n");
		return 2;
	}
	if (!skit_version() || !*skit_version())
		return 1;
	if (skit_registry_new(&reg, &err) ||
	    skit_registry_add_root(reg, "mine", argv[1], &err) ||
	    skit_registry_scan(reg, &err)) {
		fprintf(stderr, "consumer: %s\n", err.message);
		skit_registry_free(reg);
		return 1;
	}
	n = skit_registry_count(reg);
	{
		skit_prompt_options po = SKIT_PROMPT_OPTIONS_INIT;
		skit_prompt_item items[64];
		size_t k = 0;

		for (size_t i = 0; i < n && k < 64; i++) {
			const skit_entry *e = skit_registry_entry(reg, i);

			items[k].name = e->name;
			items[k].description = e->description;
			items[k].location = e->file;
			k++;
		}
		if (skit_prompt_render(&text, items, k, &po, NULL, &err))
			text = NULL;
	}
	if (!text) {
		fprintf(stderr, "consumer: %s\n", err.message);
		skit_registry_free(reg);
		return 1;
	}
	if (!strstr(text, "csv-report")) {
		fprintf(stderr, "consumer: the index lacks csv-report\n");
		skit_free(text);
		skit_registry_free(reg);
		return 1;
	}
	skit_free(text);
	skit_registry_free(reg);
	printf("consumer ok %zu\n", n);
	return 0;
}
