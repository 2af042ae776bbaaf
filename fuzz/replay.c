/* SPDX-License-Identifier: MIT */
/*
 * replay.c - run a harness without libFuzzer: every file named on the
 * command line, and every regular file in each folder named (not
 * recursively, in name order), is passed to LLVMFuzzerTestOneInput once.
 * A folder that does not exist is skipped, so an empty crash folder
 * needs no placeholder. `make test` runs the seeds and past crashes of
 * every harness this way; a property failure aborts, so CTest sees it.
 */
#ifndef _POSIX_C_SOURCE
# define _POSIX_C_SOURCE 200809L
#endif
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Harnesses without an initialiser get this one. */
__attribute__((weak)) int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static size_t runs;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			uint8_t *b = realloc(buf, cap ? cap * 2 : 4096);

			if (!b)
				abort();
			buf = b;
			cap = cap ? cap * 2 : 4096;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
	} while (n);
	fclose(f);
	/* A copy of the exact size, so ASan sees an overread. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact)
			abort();
		if (len)
			memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	runs++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **v = realloc(names, (cap = cap ? cap * 2 : 64) *
			                                  sizeof(*v));

			if (!v)
				abort();
			names = v;
		}
		names[n++] = strdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		char full[PATH_MAX];
		struct stat st;

		snprintf(full, sizeof(full), "%s/%s", path, names[i]);
		if (!stat(full, &st) && S_ISREG(st.st_mode))
			rc |= run_file(full);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st))
			continue;
		rc |= S_ISDIR(st.st_mode) ? run_dir(argv[i])
		                          : run_file(argv[i]);
	}
	printf("%zu inputs run\n", runs);
	return rc;
}
