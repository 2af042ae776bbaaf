/* SPDX-License-Identifier: MIT */
/*
 * bench_registry.c - the library paths of the benchmark, through the public
 * API only (skit/skit.h), as an embedding agent would call them.
 *
 *	bench_registry scan ROOT
 *	bench_registry prompt ROOT [xml|markdown|json]
 *	bench_registry search ROOT QUERIES [PASSES]
 *
 * scan:   skit_registry_new + add_root + scan; prints "skills=N".
 * prompt: scan, then skit_prompt_render() of every active entry without a
 *         budget; writes the prompt to stdout. This is `skit to-prompt` for a
 *         whole root, done the way the agent builds its index.
 * search: scan (timed), a first search (timed: it builds the inverted index;
 *         on trees up to 20k skills, the median of PASSES fresh builds),
 *         then every line of QUERIES as a query, PASSES times (default 5).
 *         Each query's latency is the median of its passes; the program
 *         prints the median and p95 of those over all queries. As a
 *         baseline it times a naive search over the same entries in the
 *         same run: a case-insensitive substring test of every query word
 *         against every name and description (what `grep -i` over an
 *         in-memory index would do). Also prints this process's peak RSS.
 *
 * scripts/bench.sh times `scan` and `prompt` from outside with bench_run,
 * like the CLI, and reads the key=value lines that `search` prints.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench.h"
#include "skit/skit.h"

#define MAX_QUERIES 10000
#define MAX_WORDS   8
#define TOP_K       10
#define SMALL_TREE  20000 /* entries: time the index build on each pass */

/* The q-quantile (0..1) of v[0..n), by nearest rank; sorts v. */
static double quantile(double *v, size_t n, double q)
{
	size_t rank;

	qsort(v, n, sizeof(*v), bench_cmp_double);
	rank = (size_t)(q * (double)n + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

static void die_err(const char *what, const skit_error *err)
{
	fprintf(stderr, "bench_registry: %s: %s\n", what,
	        err->message[0] ? err->message : "error");
	exit(1);
}

static skit_registry *open_root(const char *root, double *scan_ms)
{
	skit_registry *reg = NULL;
	skit_error err = { 0 };
	double t0;

	if (skit_registry_new(&reg, &err) < 0)
		die_err("registry_new", &err);
	if (skit_registry_add_root(reg, "bench", root, &err) < 0)
		die_err("add_root", &err);
	t0 = bench_now_ms();
	if (skit_registry_scan(reg, &err) < 0)
		die_err("scan", &err);
	if (scan_ms)
		*scan_ms = bench_now_ms() - t0;
	return reg;
}

static int do_scan(const char *root)
{
	skit_registry *reg = open_root(root, NULL);

	printf("skills=%zu\n", skit_registry_count(reg));
	skit_registry_free(reg);
	return 0;
}

static int do_prompt(const char *root, const char *format)
{
	skit_prompt_options opts = SKIT_PROMPT_OPTIONS_INIT;
	skit_prompt_item *items;
	skit_registry *reg;
	skit_error err = { 0 };
	const skit_entry *e;
	char *text = NULL;
	size_t n;

	if (!strcmp(format, "markdown"))
		opts.format = SKIT_PROMPT_MARKDOWN;
	else if (!strcmp(format, "json"))
		opts.format = SKIT_PROMPT_JSON;
	reg = open_root(root, NULL);
	n = skit_registry_count(reg);
	items = calloc(n ? n : 1, sizeof(*items));
	if (!items)
		return 1;
	for (size_t i = 0; i < n; i++) {
		e = skit_registry_entry(reg, i);
		items[i].name = e->name;
		items[i].description = e->description;
		items[i].location = e->file;
	}
	if (skit_prompt_render(&text, items, n, &opts, NULL, &err) < 0)
		die_err("prompt_render", &err);
	fputs(text, stdout);
	skit_free(text);
	free(items);
	skit_registry_free(reg);
	return 0;
}

/* Split `q` into lower-case words (letters and digits). */
static size_t split_words(const char *q, char words[][64], size_t max)
{
	size_t n = 0, len;

	while (*q && n < max) {
		while (*q && !isalnum((unsigned char)*q))
			q++;
		len = 0;
		while (isalnum((unsigned char)*q)) {
			if (len < 63)
				words[n][len++] =
				        (char)tolower((unsigned char)*q);
			q++;
		}
		if (len)
			words[n++][len] = '\0';
	}
	return n;
}

/*
 * The baseline: count entries whose lower-cased name or description
 * contains any query word. `lower` holds "name description" per entry,
 * lower-cased once before timing, so only the matching itself is timed.
 */
static size_t naive_search(char **lower, size_t n, const char *query)
{
	char words[MAX_WORDS][64];
	size_t nw = split_words(query, words, MAX_WORDS), hits = 0;

	for (size_t i = 0; i < n; i++)
		for (size_t w = 0; w < nw; w++)
			if (strstr(lower[i], words[w])) {
				hits++;
				break;
			}
	return hits;
}

static char **lowered_entries(skit_registry *reg, size_t n)
{
	char **lower = calloc(n ? n : 1, sizeof(*lower));
	const skit_entry *e;
	size_t a, b;

	if (!lower)
		exit(1);
	for (size_t i = 0; i < n; i++) {
		e = skit_registry_entry(reg, i);
		a = strlen(e->name);
		b = strlen(e->description);
		lower[i] = malloc(a + b + 2);
		if (!lower[i])
			exit(1);
		memcpy(lower[i], e->name, a);
		lower[i][a] = ' ';
		memcpy(lower[i] + a + 1, e->description, b + 1);
		for (char *p = lower[i]; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	}
	return lower;
}

static size_t read_queries(const char *file, char ***out)
{
	char *line = NULL, **q;
	size_t cap = 0, n = 0;
	ssize_t len;
	FILE *f = fopen(file, "r");

	if (!f) {
		perror(file);
		exit(2);
	}
	q = calloc(MAX_QUERIES, sizeof(*q));
	if (!q)
		exit(1);
	while (n < MAX_QUERIES && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if (len)
			q[n++] = strdup(line);
	}
	free(line);
	fclose(f);
	*out = q;
	return n;
}

static int do_search(const char *root, const char *qfile, int passes)
{
	skit_search_hit hits[TOP_K];
	skit_error err = { 0 };
	skit_registry *reg;
	struct rusage ru;
	double scan_ms, build_ms, t0, *lat, *nlat, *pass, *npass, *build;
	size_t nq, n, got, total_hits = 0, naive_hits = 0, empty = 0;
	char **queries, **lower;
	int builds;

	reg = open_root(root, &scan_ms);
	n = skit_registry_count(reg);
	nq = read_queries(qfile, &queries);
	if (!nq || passes < 1) {
		fprintf(stderr, "bench_registry: no queries\n");
		return 2;
	}

	/*
	 * The first call builds the inverted index: time it on its own. One
	 * sample is noisy, so on small trees (where a scan is cheap) build it
	 * on fresh registries too and keep the median.
	 */
	builds = n <= SMALL_TREE ? passes : 1;
	build = calloc((size_t)builds, sizeof(*build));
	if (!build)
		return 1;
	for (int b = 0; b < builds; b++) {
		if (b) {
			skit_registry_free(reg);
			reg = open_root(root, NULL);
		}
		t0 = bench_now_ms();
		if (skit_registry_search(reg, queries[0], 0, hits, TOP_K, &got,
		                         &err) < 0)
			die_err("search", &err);
		build[b] = bench_now_ms() - t0;
	}
	build_ms = quantile(build, (size_t)builds, 0.5);
	free(build);

	lower = lowered_entries(reg, n);
	lat = calloc(nq, sizeof(*lat));
	nlat = calloc(nq, sizeof(*nlat));
	pass = calloc((size_t)passes, sizeof(*pass));
	npass = calloc((size_t)passes, sizeof(*npass));
	if (!lat || !nlat || !pass || !npass)
		return 1;

	/*
	 * All BM25 queries first, then all naive ones, so neither evicts the
	 * other's working set from the caches between passes.
	 */
	for (size_t i = 0; i < nq; i++) {
		for (int p = 0; p < passes; p++) {
			t0 = bench_now_ms();
			if (skit_registry_search(reg, queries[i], 0, hits,
			                         TOP_K, &got, &err) < 0)
				die_err("search", &err);
			pass[p] = bench_now_ms() - t0;
		}
		lat[i] = quantile(pass, (size_t)passes, 0.5);
		total_hits += got;
		if (!got)
			empty++;
	}
	for (size_t i = 0; i < nq; i++) {
		for (int p = 0; p < passes; p++) {
			t0 = bench_now_ms();
			got = naive_search(lower, n, queries[i]);
			npass[p] = bench_now_ms() - t0;
		}
		nlat[i] = quantile(npass, (size_t)passes, 0.5);
		naive_hits += got;
	}

	getrusage(RUSAGE_SELF, &ru);
	printf("skills=%zu queries=%zu passes=%d scan_ms=%.3f "
	       "index_build_ms=%.3f\n",
	       n, nq, passes, scan_ms, build_ms);
	printf("search_median_ms=%.4f search_p95_ms=%.4f search_max_ms=%.4f\n",
	       quantile(lat, nq, 0.5), quantile(lat, nq, 0.95),
	       quantile(lat, nq, 1.0));
	printf("naive_median_ms=%.4f naive_p95_ms=%.4f\n",
	       quantile(nlat, nq, 0.5), quantile(nlat, nq, 0.95));
	printf("hits=%zu empty_queries=%zu naive_hits=%zu maxrss_kb=%ld\n",
	       total_hits, empty, naive_hits, ru.ru_maxrss);

	for (size_t i = 0; i < n; i++)
		free(lower[i]);
	for (size_t i = 0; i < nq; i++)
		free(queries[i]);
	free(lower);
	free(queries);
	free(lat);
	free(nlat);
	free(pass);
	free(npass);
	skit_registry_free(reg);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "scan"))
		return do_scan(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "prompt"))
		return do_prompt(argv[2], argc > 3 ? argv[3] : "xml");
	if (argc >= 4 && !strcmp(argv[1], "search"))
		return do_search(argv[2], argv[3],
		                 argc > 4 ? (int)strtol(argv[4], NULL, 10) : 5);
	fprintf(stderr,
	        "usage: bench_registry scan ROOT\n"
	        "       bench_registry prompt ROOT [xml|markdown|json]\n"
	        "       bench_registry search ROOT QUERIES [PASSES]\n");
	return 2;
}
