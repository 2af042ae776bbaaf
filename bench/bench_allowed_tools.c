/* SPDX-License-Identifier: MIT */
/*
 * bench_allowed_tools.c - allowed-tools coverage: over any folders of
 * skills, how many skills declare `allowed-tools`, and how many of those
 * name only tools skit's agent offers (so that a skill written for
 * Claude Code gets under skit every tool it asks for). The tools it names
 * that skit does not offer are listed with the number of skills naming
 * each. bench/allowed-tools-coverage.sh runs it; docs/bench.md,
 * "allowed-tools coverage", has the figures.
 *
 *	bench_allowed_tools DIR...
 *
 * Every folder below DIR (at most 12 levels, symbolic links not
 * followed, dot folders skipped) holding a SKILL.md or skill.md is a
 * skill, loaded with the loading rules (SKIT_SKILL_LENIENT) through the
 * public API; `allowed-tools` is parsed with
 * skit_allowed_tools_parse(), as the agent parses it, and its patterns
 * split as the policy splits them (blanks and commas outside
 * parentheses); which names skit offers, the policy's table says
 * (skit__policy_tool_offered()). Nothing is run or changed.
 */
#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "skit/skit.h"
#include "lib/policy/policy_int.h"

#define MAX_DEPTH 12
#define MAX_NAMES 512

struct missing {
	char name[65];
	unsigned int skills;
};

struct totals {
	unsigned int skills, loaded, declared, covered, unparsed;
	unsigned int with_backends; /* covered with WebSearch and LSP */
	unsigned int not_loaded;
	struct missing miss[MAX_NAMES];
	size_t nmiss;
};

/*
 * The tools skit's agent offers, by the names allowed-tools may use: the
 * policy's own table (Claude Code's names, other agents' names for the
 * same tools, skit's own) and mcp__* names, as
 * skit__policy_tool_offered() says; the web search names only with a
 * search backend and the code intelligence ones (LSP) only with a
 * language server, so the figure is given both ways.
 */
static bool is_offered(const char *name, size_t len, bool backends)
{
	return skit__policy_tool_offered(
	        name, len, backends ? SKIT__OFFER_SEARCH | SKIT__OFFER_LSP : 0);
}

/* A name as the policy's grammar spells one: an ASCII letter, then
 * letters, digits and '_'. */
static bool is_tool_name(const char *p, size_t len)
{
	if (!len || !((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z')))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!(p[i] == '_' || (p[i] >= '0' && p[i] <= '9') ||
		      (p[i] >= 'A' && p[i] <= 'Z') ||
		      (p[i] >= 'a' && p[i] <= 'z')))
			return false;
	return true;
}

/* Count `name` once for this skill (`seen` holds its names so far). */
static void count_missing(struct totals *t, const char *name, size_t len,
                          char seen[][65], size_t *nseen)
{
	size_t i;

	if (len > 64)
		len = 64;
	for (i = 0; i < *nseen; i++)
		if (strlen(seen[i]) == len && !strncmp(seen[i], name, len))
			return;
	if (*nseen < MAX_NAMES) {
		memcpy(seen[*nseen], name, len);
		seen[(*nseen)++][len] = '\0';
	}
	for (i = 0; i < t->nmiss; i++)
		if (strlen(t->miss[i].name) == len &&
		    !strncmp(t->miss[i].name, name, len))
			break;
	if (i == t->nmiss) {
		if (t->nmiss == MAX_NAMES)
			return;
		memcpy(t->miss[i].name, name, len);
		t->miss[i].name[len] = '\0';
		t->miss[i].skills = 0;
		t->nmiss++;
	}
	t->miss[i].skills++;
}

static void one_skill(struct totals *t, const char *dir)
{
	static char seen[MAX_NAMES][65];
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	skit_allowed_tools *at = NULL;
	skit_skill *s = NULL;
	skit_error err = { 0 };
	const char *text, *p, *q;
	size_t nseen = 0, len, qlen, depth, name;
	bool all = true, backends_only = true;

	t->skills++;
	opts.flags = SKIT_SKILL_LENIENT;
	if (skit_skill_load(&s, dir, &opts, &err) || !skit_skill_valid(s)) {
		t->not_loaded++;
		skit_skill_free(s);
		return;
	}
	t->loaded++;
	text = skit_skill_allowed_tools(s);
	if (!text) {
		skit_skill_free(s);
		return;
	}
	t->declared++;
	if (skit_allowed_tools_parse(&at, NULL, text, &err) < 0) {
		/* the agent grants nothing for it: not covered */
		t->unparsed++;
		all = backends_only = false;
	}
	skit_allowed_tools_free(at);
	for (p = text; *p;) {
		p += strspn(p, " \t\r\n,");
		for (len = 0, depth = 0;
		     p[len] && (depth || !strchr(" \t\r\n,", p[len])); len++) {
			if (p[len] == '(')
				depth++;
			else if (p[len] == ')' && depth)
				depth--;
		}
		if (!len)
			break;
		/* quoted items, unquoted as the policy's parser does */
		q = p;
		qlen = len;
		if (len > 2 && (*p == '"' || *p == '\'') && p[len - 1] == *p) {
			q++;
			qlen -= 2;
		}
		name = strcspn(q, "(");
		if (name > qlen)
			name = qlen;
		if (!is_offered(q, name, false)) {
			/* a malformed name (the value does not parse) is
			 * not a tool to list */
			all = false;
			if (!is_offered(q, name, true))
				backends_only = false;
			if (!is_tool_name(q, name)) {
				p += len;
				continue;
			}
			count_missing(t, q, name, seen, &nseen);
		}
		p += len;
	}
	if (all)
		t->covered++;
	if (all || backends_only)
		t->with_backends++;
	skit_skill_free(s);
}

static bool has_skill_md(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/SKILL.md", dir);
	if (!lstat(path, &st) && S_ISREG(st.st_mode))
		return true;
	snprintf(path, sizeof(path), "%s/skill.md", dir);
	return !lstat(path, &st) && S_ISREG(st.st_mode);
}

static void walk(struct totals *t, const char *dir, int depth)
{
	struct dirent *de;
	DIR *d;

	if (has_skill_md(dir)) {
		one_skill(t, dir);
		return;
	}
	if (depth >= MAX_DEPTH)
		return;
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >=
		    (int)sizeof(path))
			continue;
		if (!lstat(path, &st) && S_ISDIR(st.st_mode))
			walk(t, path, depth + 1);
	}
	closedir(d);
}

static int by_count(const void *a, const void *b)
{
	const struct missing *x = a, *y = b;

	if (x->skills != y->skills)
		return x->skills < y->skills ? 1 : -1;
	return strcmp(x->name, y->name);
}

static double pct(unsigned int n, unsigned int of)
{
	return of ? 100.0 * n / of : 0.0;
}

int main(int argc, char **argv)
{
	static struct totals t;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(stderr, "usage: bench_allowed_tools DIR...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		walk(&t, argv[i], 0);
	qsort(t.miss, t.nmiss, sizeof(t.miss[0]), by_count);
	printf("skills: %u (loaded %u, not loaded %u)\n", t.skills, t.loaded,
	       t.not_loaded);
	printf("declare allowed-tools: %u (%.1f%% of loaded)\n", t.declared,
	       pct(t.declared, t.loaded));
	printf("name only tools skit offers: %u of %u (%.1f%%)\n", t.covered,
	       t.declared, pct(t.covered, t.declared));
	printf("... with a search backend and a language server (WebSearch, "
	       "LSP offered): %u of %u (%.1f%%)\n",
	       t.with_backends, t.declared, pct(t.with_backends, t.declared));
	printf("allowed-tools that do not parse: %u\n", t.unparsed);
	printf("tools named that skit does not offer: %zu\n", t.nmiss);
	for (size_t i = 0; i < t.nmiss; i++)
		printf("  %-24s %u skill%s\n", t.miss[i].name, t.miss[i].skills,
		       t.miss[i].skills == 1 ? "" : "s");
	return 0;
}
