/* SPDX-License-Identifier: MIT */
/*
 * test_yaml.c - the frontmatter YAML tree: the fast path for the simplest
 * shape gives exactly the tree libyaml's events give, on every fixture
 * under tests/fixtures and every fuzz seed of fuzz/corpus/skill, on each
 * of their line prefixes and on one-byte changes of each; and it declines
 * whatever is not that shape.
 */
#include "common.h"

#include <dirent.h>
#include <sys/stat.h>

#include "harness.h"
#include "lib/skill/yaml.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/pool.h"

struct tally {
	size_t texts, fast, files, fast_files, mismatches;
	char first_bad[512];
};

/*
 * One text through both paths: when the fast path takes it, libyaml must
 * accept it too, with the same tree.
 */
static void compare(struct tally *t, const char *text, size_t len,
                    const char *what)
{
	struct skitx_pool pool;
	struct skit__ynode *fast = NULL, *slow = NULL;
	char msg[256];
	unsigned int line, col;
	int rf, rs;

	skitx_pool_init(&pool, 0);
	t->texts++;
	rf = skit__yaml_parse_fast(&fast, &pool, text, len);
	if (rf == 1) {
		t->fast++;
		rs = skit__yaml_parse_flags(&slow, &pool, text, len,
		                            SKIT_YAML_SLOW, msg, sizeof(msg),
		                            &line, &col);
		if (rs || !skit__yaml_same_tree(fast, slow)) {
			if (!t->mismatches++)
				snprintf(t->first_bad, sizeof(t->first_bad),
				         "%s: [%.*s] %s", what,
				         (int)(len > 300 ? 300 : len), text,
				         rs ? msg : "different tree");
		}
	} else if (rf != 0) {
		t->mismatches++;
	}
	skitx_pool_release(&pool);
}

/* The frontmatter of a SKILL.md, roughly as skill.c cuts it. */
static bool frontmatter(const char *s, size_t len, struct skitx_buf *out)
{
	const char *p = s, *end = s + len, *open;

	skitx_buf_clear(out);
	if (len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	if (end - p < 4 || memcmp(p, "---", 3))
		return false;
	p = memchr(p, '\n', (size_t)(end - p));
	if (!p)
		return false;
	open = ++p;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		size_t l = (size_t)(eol - p);

		if (l && p[l - 1] == '\r')
			l--;
		if (l == 3 && !memcmp(p, "---", 3)) {
			for (const char *q = open; q < p; q++)
				if (*q != '\r' && skitx_buf_putc(out, *q) < 0)
					return false;
			return true;
		}
		p = nl ? nl + 1 : end;
	}
	return false;
}

static void check_text(struct tally *t, const char *y, size_t len,
                       const char *path)
{
	static const char subst[] = { ' ',    '#',    ':',    '"',    '\'',
		                      '\t',   '-',    '\n',   '\\',   '[',
		                      '{',    '&',    '!',    '|',    'x',
		                      '\x7f', '%',    '\xa0', '\xc2', '\xe2',
		                      '\xef', '\xf4', '\0',   '\r' };
	/* characters YAML reads as breaks, a BOM, non-characters, others */
	static const char *const wide[] = {
		"\xc2\x85",         "\xc2\xa0",     "\xe2\x80\xa8",
		"\xe2\x80\xa9",     "\xef\xbb\xbf", "\xef\xbf\xbe",
		"\xef\xbf\xbf",     "\xc3\xa9",     "\xf0\x9f\x98\x80",
		"\xed\xa0\x80",     "\xc0\xaf",     "\xe0\x80\xaf",
		"\xf4\x90\x80\x80", "\xc2\x9f",     "\xe2\x80\x8b",
	};
	char *m = malloc(len + 8);

	compare(t, y, len, path);
	/* every prefix ending at a line break */
	for (size_t i = 0; i < len; i++)
		if (y[i] == '\n')
			compare(t, y, i + 1, path);
	/* a byte changed (cycling through YAML's specials) or dropped */
	for (size_t i = 0; m && i < len && i < 2048; i++) {
		memcpy(m, y, len);
		m[i] = subst[i % sizeof(subst)];
		compare(t, m, len, path);
		memcpy(m, y, i);
		memcpy(m + i, y + i + 1, len - i - 1);
		compare(t, m, len - 1, path);
		/* a multi-byte character inserted */
		{
			const char *w = wide[i % SKIT_ARRAY_SIZE(wide)];
			size_t wl = strlen(w);

			memcpy(m, y, i);
			memcpy(m + i, w, wl);
			memcpy(m + i + wl, y + i, len - i);
			compare(t, m, len + wl, path);
		}
	}
	free(m);
}

static void visit(struct tally *t, const char *path)
{
	struct skitx_buf raw = SKITX_BUF_INIT, y = SKITX_BUF_INIT;
	size_t before;

	if (skitx_fs_read_file(path, &raw, 65536) < 0)
		return;
	t->files++;
	before = t->fast;
	if (frontmatter(raw.ptr, raw.len, &y))
		check_text(t, y.ptr ? y.ptr : "", y.len, path);
	/* the whole file too: any text is YAML input */
	compare(t, raw.ptr ? raw.ptr : "", raw.len, path);
	if (t->fast > before)
		t->fast_files++;
	skitx_buf_release(&raw);
	skitx_buf_release(&y);
}

/* Every regular file under `path` (links not followed). */
static void walk_dir(struct tally *t, const char *path, int depth)
{
	struct dirent *de;
	struct stat st;
	char sub[4096];
	DIR *d;

	if (depth > 16 || lstat(path, &st) < 0)
		return;
	if (S_ISREG(st.st_mode)) {
		visit(t, path);
		return;
	}
	if (!S_ISDIR(st.st_mode) || !(d = opendir(path)))
		return;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path,
		                     de->d_name) < sizeof(sub))
			walk_dir(t, sub, depth + 1);
	}
	closedir(d);
}

static void walk(struct tally *t, const char *sub)
{
	const char *src = getenv("SKIT_SOURCE_DIR");
	char path[4096];

	ASSERT(src);
	snprintf(path, sizeof(path), "%s/%s", src, sub);
	walk_dir(t, path, 0);
}

static void test_yaml__fast_path_matches_libyaml(void)
{
	struct tally t;

	memset(&t, 0, sizeof(t));
	walk(&t, "tests/fixtures");
	walk(&t, "fuzz/corpus/skill");
	if (t.mismatches)
		fprintf(stderr, "first mismatch: %s\n", t.first_bad);
	fprintf(stderr, "%zu files (%zu taken), %zu texts, %zu taken\n",
	        t.files, t.fast_files, t.texts, t.fast);
	ASSERT_EQ(t.mismatches, 0);
	/* the comparison must have run on many texts the fast path took */
	ASSERT(t.files >= 200);
	ASSERT(t.fast_files >= 50);
	ASSERT(t.fast >= 1000);
	ASSERT(t.texts > t.fast);
}

/* The shapes the fast path takes, and what it gives. */
static void test_yaml__fast_path_shapes(void)
{
	static const char y[] = "name: x-y\n"
	                        "description: \"A \\u00e9 b\"\n";
	static const char ok[] = "name: x-y\n"
	                         "description: 'Does: it' \n"
	                         "\n"
	                         "license: MIT License, 2.0 \n"
	                         "metadata:\n"
	                         "   author: \"Chlo\xc3\xa9\"\n"
	                         "   version: 1.0\n"
	                         "compatibility: a#b c\n";
	struct skitx_pool pool;
	struct skit__ynode *r = NULL;
	const struct skit__ynode *m;

	skitx_pool_init(&pool, 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, ok, sizeof(ok) - 1), 1);
	ASSERT_EQ(r->kind, SKIT_YMAP);
	ASSERT_EQ(r->n, 5);
	ASSERT_STR(skit__yaml_get(r, "description")->value, "Does: it");
	ASSERT(!skit__yaml_get(r, "description")->plain);
	ASSERT_STR(skit__yaml_get(r, "license")->value, "MIT License, 2.0");
	ASSERT(skit__yaml_get(r, "license")->plain);
	ASSERT_STR(skit__yaml_get(r, "compatibility")->value, "a#b c");
	m = skit__yaml_get(r, "metadata");
	ASSERT_EQ(m->kind, SKIT_YMAP);
	ASSERT_EQ(m->line, 6);
	ASSERT_EQ(m->column, 4);
	ASSERT_STR(skit__yaml_get(m, "author")->value, "Chlo\xc3\xa9");
	ASSERT_EQ(skit__yaml_get(m, "version")->column, 13);
	{
		struct skit__ynode *slow = NULL;
		char msg[200];
		unsigned int l, c;

		ASSERT_OK(skit__yaml_parse_flags(&slow, &pool, ok,
		                                 sizeof(ok) - 1, SKIT_YAML_SLOW,
		                                 msg, sizeof(msg), &l, &c));
		ASSERT(skit__yaml_same_tree(r, slow));
	}

	/* an escape, a comment, a continuation, flow, a duplicate: libyaml */
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, y, sizeof(y) - 1), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a: b # c\n", 9), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a: b\n  c\n", 9), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a: [b]\n", 7), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a: b\na: c\n", 10), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a: b: c\n", 8), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a:\nb: c\n", 8), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a: &x b\n", 8), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "a:\t b\n", 6), 0);
	ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, "", 0), 0);
	/* a key libyaml would not take as a simple key (over 1,024) */
	{
		char big[1100], msg[200];
		unsigned int l, c;

		memset(big, 'k', 1030);
		memcpy(big + 1030, ": v\n", 4);
		ASSERT_EQ(skit__yaml_parse_fast(&r, &pool, big, 1034), 0);
		ASSERT(skit__yaml_parse_flags(&r, &pool, big, 1034,
		                              SKIT_YAML_SLOW, msg, sizeof(msg),
		                              &l, &c) < 0);
	}
	skitx_pool_release(&pool);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_yaml__fast_path_matches_libyaml)
	TEST(test_yaml__fast_path_shapes)
)
/* clang-format on */
