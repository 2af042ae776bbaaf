/* SPDX-License-Identifier: MIT */
/*
 * fuzz_lock.c - the lock-file loader (.skit-lock.json, also what
 * `install --from-lock FILE` reads). Property: a lock that loads, once
 * dumped, loads back to the same lock (every skill, field and file), and
 * dumps to the same text. A lock that does not load leaves the document
 * empty, with a one-line error.
 */
#include "common.h"

#include "lib/pack/pack_int.h"
#include "fuzz.h"

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static int cmp_skill(const void *a, const void *b)
{
	return strcmp(((const struct skit__pskill *)a)->name,
	              ((const struct skit__pskill *)b)->name);
}

static void check_same(struct skit__lockdoc *a, struct skit__lockdoc *b)
{
	FUZZ_CHECK(a->n == b->n, "%zu skills, then %zu", a->n, b->n);
	if (a->n) {
		qsort(a->skills, a->n, sizeof(*a->skills), cmp_skill);
		qsort(b->skills, b->n, sizeof(*b->skills), cmp_skill);
	}
	for (size_t i = 0; i < a->n; i++) {
		const struct skit__pskill *x = &a->skills[i],
		                          *y = &b->skills[i];

		FUZZ_CHECK(!strcmp(x->name, y->name), "%s", x->name);
		FUZZ_CHECK(same_str(x->source, y->source), "%s", x->name);
		FUZZ_CHECK(same_str(x->resolved, y->resolved), "%s", x->name);
		FUZZ_CHECK(same_str(x->version, y->version), "%s", x->name);
		FUZZ_CHECK(same_str(x->installed_at, y->installed_at), "%s",
		           x->name);
		FUZZ_CHECK(same_str(x->signed_by, y->signed_by), "%s", x->name);
		FUZZ_CHECK(same_str(x->scan_verdict, y->scan_verdict), "%s",
		           x->name);
		FUZZ_CHECK(same_str(x->scan_rules, y->scan_rules), "%s",
		           x->name);
		FUZZ_CHECK(x->nfiles == y->nfiles, "%s", x->name);
		for (size_t k = 0; k < x->nfiles; k++) {
			const struct skit__pfile *f = &x->files[k],
			                         *g = &y->files[k];

			FUZZ_CHECK(!strcmp(f->path, g->path), "%s", f->path);
			FUZZ_CHECK(f->size == g->size, "%s", f->path);
			FUZZ_CHECK(f->exec == g->exec, "%s", f->path);
			FUZZ_CHECK(!strcmp(f->sha256, g->sha256), "%s",
			           f->path);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skit__lockdoc a, b;
	skit_error err = { 0 };
	char *one, *two;

	if (size > SKIT__LOCK_MAX)
		return 0;
	if (skit__lock_parse(&a, (const char *)data, size, "fuzz", &err)) {
		FUZZ_CHECK(!a.n && !a.skills, "a refused lock kept skills");
		FUZZ_CHECK(!strchr(err.message, '\n'), "%s", err.message);
		return 0;
	}
	one = skit__lock_dump(&a);
	if (!one) { /* out of memory */
		skit__lockdoc_release(&a);
		return 0;
	}
	FUZZ_CHECK(!skit__lock_parse(&b, one, strlen(one), "dump", &err),
	           "the dump does not load: %s\n%s", err.message, one);
	two = skit__lock_dump(&b);
	FUZZ_CHECK(two && !strcmp(one, two), "the dump changed:\n%s\n%s", one,
	           two ? two : "(null)");
	check_same(&a, &b);
	skitx_free(one);
	skitx_free(two);
	skit__lockdoc_release(&a);
	skit__lockdoc_release(&b);
	return 0;
}
