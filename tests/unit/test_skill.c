/* SPDX-License-Identifier: MIT */
/*
 * test_skill.c - the skill module: reading (level 1 only), the YAML
 * dialect, the spec's rules, run-time fields, lints, the body (level 2),
 * read-properties JSON, hostile files, and out-of-memory behaviour.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "skit/skill.h"
#include "lib/skill/skill_int.h"
#include "util/fs.h"

static char dir[PATH_MAX / 2];

/* A fresh folder SKIT_TEST_DIR/<name> holding SKILL.md with `text`. */
static const char *make_skill(const char *name, const char *text, size_t len)
{
	static char path[PATH_MAX];
	char file[PATH_MAX + 16];
	const char *base = getenv("SKIT_TEST_DIR");
	int fd;

	snprintf(dir, sizeof(dir), "%s", base ? base : "/tmp/skit-test-skill");
	skitx_fs_mkdir_p(dir, 0755);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	skitx_fs_mkdir_p(path, 0755);
	snprintf(file, sizeof(file), "%s/SKILL.md", path);
	unlink(file);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	ASSERT_EQ(write(fd, text, len), (long long)len);
	close(fd);
	return path;
}

#define MAKE(name, lit) make_skill(name, lit, sizeof(lit) - 1)

static skit_skill *load(const char *path, unsigned int flags)
{
	skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
	skit_skill *s = NULL;
	skit_error err;

	opts.flags = flags;
	ASSERT_OK(skit_skill_load(&s, path, &opts, &err));
	return s;
}

/* The first diagnostic with `code`, or NULL. */
static const skit_diag *find(const skit_skill *s, const char *code)
{
	size_t n;
	const skit_diag *d = skit_skill_diags(s, &n);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].code, code))
			return &d[i];
	return NULL;
}

static void test_skill__valid_minimal(void)
{
	skit_skill *s = load(MAKE("ok", "---\nname: ok\ndescription: Does "
	                                "things.\n---\n# Body\n"),
	                     0);
	size_t n;

	ASSERT(skit_skill_valid(s));
	skit_skill_diags(s, &n);
	ASSERT_EQ(n, 0);
	ASSERT_STR(skit_skill_name(s), "ok");
	ASSERT_STR(skit_skill_description(s), "Does things.");
	ASSERT_EQ(skit_skill_body_line(s), 5);
	skit_skill_free(s);
}

/* Level 1 never reads past the block that holds the closing fence. */
static void test_skill__index_reads_frontmatter_only(void)
{
	size_t body = 1024 * 1024, head, total;
	char *text = malloc(body + 64);
	const char *body_out;
	skit_skill *s;

	head = (size_t)snprintf(text, 64,
	                        "---\nname: big\ndescription: x\n"
	                        "---\n");
	memset(text + head, 'x', body);
	/* invalid UTF-8 deep in the body: level 1 must not notice */
	text[head + 100000] = (char)0xFF;
	total = head + body;
	s = load(make_skill("big", text, total), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	/* a short frontmatter: the first read (2 KiB) alone */
	ASSERT(skit__skill_bytes_read(s) <= 2048);
	ASSERT_EQ(skit_skill_body(s, &body_out, NULL, NULL), SKIT_EENCODING);
	skit_skill_free(s);

	text[head + 100000] = 'x';
	s = load(make_skill("big", text, total), SKIT_SKILL_LENIENT);
	ASSERT(skit__skill_bytes_read(s) <= 4096);
	ASSERT_OK(skit_skill_body(s, &body_out, NULL, NULL));
	ASSERT_EQ(strlen(body_out), body);
	ASSERT(skit__skill_bytes_read(s) >= total);
	skit_skill_free(s);
	free(text);
}

/*
 * A frontmatter whose closing fence falls on either side of the first
 * read (2 KiB) or of the next block, or across one, loads the same: the
 * whole description, the body after it, the right body line.
 */
static void test_skill__fence_across_reads(void)
{
	static const size_t ends[] = { 2048, 2048 + 4096 };
	char *text = malloc(16384);

	ASSERT(text);
	for (size_t e = 0; e < SKIT_ARRAY_SIZE(ends); e++) {
		for (size_t at = ends[e] - 12; at <= ends[e] + 12; at++) {
			/* "---\nname: f\ndescription: <pad>\n" then the fence
			 * at offset `at` */
			const char *lead = "---\nname: f\ndescription: ";
			size_t len = strlen(lead), pad = at - len - 1;
			const char *body;
			skit_skill *s;

			memcpy(text, lead, len);
			memset(text + len, 'd', pad);
			len += pad;
			text[len++] = '\n';
			ASSERT_EQ(len, at);
			memcpy(text + len, "---\nThe body.\n", 14);
			len += 14;
			s = load(make_skill("f", text, len),
			         SKIT_SKILL_LENIENT);
			ASSERT_STR(skit_skill_name(s), "f");
			ASSERT_EQ(strlen(skit_skill_description(s)), pad);
			ASSERT_EQ(skit_skill_body_line(s), 5);
			ASSERT_OK(skit_skill_body(s, &body, NULL, NULL));
			ASSERT_STR(body, "The body.");
			skit_skill_free(s);
		}
	}
	free(text);
}

/*
 * The frontmatter cap is exact, whatever the read sizes: a frontmatter
 * (from the start of the file to its closing fence) of `max` bytes loads,
 * one of max + 1 is refused; with the default cap (64 KiB, many reads)
 * and a small one (inside the first read), and with a BOM, which does not
 * count.
 */
static void test_skill__frontmatter_cap_exact(void)
{
	static const size_t caps[] = { 0, 300, 4096 };
	struct skitx_buf b = SKITX_BUF_INIT;

	for (size_t c = 0; c < SKIT_ARRAY_SIZE(caps); c++) {
		size_t max = caps[c] ? caps[c] : 64 * 1024;

		for (int bom = 0; bom < 2; bom++) {
			for (size_t size = max - 3; size <= max + 3; size++) {
				skit_skill_options opts =
				        SKIT_SKILL_OPTIONS_INIT;
				const char *lead = "---\nname: cap\n"
				                   "description: x\n";
				skit_skill *s = NULL;
				skit_error err;
				size_t left;

				skitx_buf_clear(&b);
				if (bom)
					ASSERT_OK(skitx_buf_puts(
					        &b, "\xEF\xBB\xBF"));
				ASSERT_OK(skitx_buf_puts(&b, lead));
				/* comment lines of up to 100 bytes */
				while ((left = size - (b.len - 3 * bom)) > 0) {
					size_t n = left > 100 ? 100 : left;

					if (n > 1) {
						ASSERT_OK(skitx_buf_putc(&b,
						                         '#'));
						for (size_t k = 0; k + 2 < n;
						     k++)
							ASSERT_OK(
							        skitx_buf_putc(
							                &b,
							                'c'));
					}
					ASSERT_OK(skitx_buf_putc(&b, '\n'));
				}
				ASSERT_EQ(b.len - 3 * bom, size);
				ASSERT_OK(skitx_buf_puts(&b, "---\nBody.\n"));
				opts.max_frontmatter = caps[c];
				ASSERT_OK(skit_skill_load(
				        &s, make_skill("cap", b.ptr, b.len),
				        &opts, &err));
				if (size <= max) {
					ASSERT(!find(s, "frontmatter-too-big"));
					ASSERT_STR(skit_skill_name(s), "cap");
				} else {
					ASSERT(find(s, "frontmatter-too-big"));
				}
				skit_skill_free(s);
			}
		}
	}
	skitx_buf_release(&b);
}

/* LF, CRLF, lone CR and a BOM give the same skill and messages. */
static void test_skill__line_endings_equivalent(void)
{
	static const char *const variants[] = {
		"---\nname: Le\ndescription: |\n  a\n  b\n---\nbody\n",
		"---\r\nname: Le\r\ndescription: |\r\n  a\r\n  b\r\n---\r\nbody\r\n",
		"---\rname: Le\rdescription: |\r  a\r  b\r---\rbody\r",
		"\xEF\xBB\xBF---\r\nname: Le\r\ndescription: |\r\n  a\r\n  b\r\n"
		"---\r\nbody\r\n",
	};
	for (size_t v = 0; v < SKIT_ARRAY_SIZE(variants); v++) {
		skit_skill *s = load(
		        make_skill("le", variants[v], strlen(variants[v])), 0);
		const skit_diag *d = find(s, "name-not-lowercase");
		const char *body;

		ASSERT(d);
		ASSERT_EQ(d->line, 2);
		ASSERT_STR(skit_skill_description(s), "a\nb");
		ASSERT_STR(skit_skill_field(s, "description"), "a\nb\n");
		ASSERT_OK(skit_skill_body(s, &body, NULL, NULL));
		ASSERT_STR(body, "body");
		skit_skill_free(s);
	}
}

static void test_skill__fences_are_whole_lines(void)
{
	skit_skill *s;

	s = load(MAKE("fa", "---\nname: fa\ndescription: \"a---b\"\n---\n"), 0);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_description(s), "a---b");
	skit_skill_free(s);

	s = load(MAKE("fb", "---js\nname: fb\n---\n"), 0);
	ASSERT(find(s, "frontmatter-missing"));
	skit_skill_free(s);

	s = load(MAKE("fc", "---\nname: fc\ndescription: x\n--- trailing\n"),
	         0);
	ASSERT(find(s, "frontmatter-unclosed"));
	skit_skill_free(s);

	s = load(MAKE("fd", "---   \nname: fd\ndescription: x\n---\n"), 0);
	ASSERT(skit_skill_valid(s));
	skit_skill_free(s);
}

static void test_skill__yaml_refusals(void)
{
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "---\nname: &a y\ndescription: x\n---\n", "anchor" },
		{ "---\nname: *a\ndescription: x\n---\n", "undefined alias" },
		{ "---\nname: !!str y\ndescription: x\n---\n", "tag" },
		{ "---\nname: y\ndescription: !!python/object/apply:os.system "
		  "[\"id\"]\n---\n",
		  "tag" },
		{ "---\nname: y\nmetadata: {}\ndescription: x\n---\n",
		  "flow mapping" },
		{ "---\nname: y\nallowed-tools: [a, b]\ndescription: x\n---\n",
		  "flow sequence [...]" },
		{ "---\nname: good\ndescription: x\nname: evil\n---\n",
		  "Duplicate key 'name' found" },
		{ "---\n%YAML 1.1\n---\n", "Invalid YAML" },
		{ "---\nname: y\ndescription: \"a\\0b\"\n---\n", "NUL" },
		{ "---\nname: y\ndescription: x\nmetadata:\n\ttab: 1\n---\n",
		  "Invalid YAML" },
	};
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(cases); i++) {
		skit_skill *s = load(
		        make_skill("y", cases[i].text, strlen(cases[i].text)),
		        0);
		size_t n;
		const skit_diag *d = skit_skill_diags(s, &n);

		ASSERT(!skit_skill_valid(s));
		ASSERT(n >= 1);
		ASSERT_CONTAINS(d[0].message, cases[i].needle);
		skit_skill_free(s);
	}
}

/* A nine-level alias bomb and deep nesting stop early, without a crash. */
static void test_skill__yaml_bombs(void)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	skit_skill *s;

	ASSERT_OK(skitx_buf_puts(&b, "---\nname: y\ndescription: x\n"
	                             "metadata:\n  a: &a [\"x\",\"x\"]\n"));
	for (int i = 1; i < 9; i++)
		ASSERT_OK(
		        skitx_buf_printf(&b, "  b%d: &b%d [*a,*a,*a]\n", i, i));
	ASSERT_OK(skitx_buf_puts(&b, "---\n"));
	s = load(make_skill("y", b.ptr, b.len), 0);
	ASSERT(find(s, "yaml-invalid"));
	skit_skill_free(s);

	skitx_buf_clear(&b);
	ASSERT_OK(skitx_buf_puts(&b, "---\nname: y\ndescription: x\nm:\n"));
	for (int i = 1; i < 200; i++)
		ASSERT_OK(skitx_buf_printf(&b, "%*s- \n", i * 2, ""));
	ASSERT_OK(skitx_buf_puts(&b, "---\n"));
	s = load(make_skill("y", b.ptr, b.len), 0);
	ASSERT_CONTAINS(find(s, "yaml-invalid")->message, "nesting deeper");
	skit_skill_free(s);

	/* 20,000 keys: over the node cap, and under the 64 KiB read cap */
	skitx_buf_clear(&b);
	ASSERT_OK(skitx_buf_puts(&b, "---\nname: y\ndescription: x\nm:\n"));
	for (int i = 0; i < 6000; i++)
		ASSERT_OK(skitx_buf_printf(&b, " k%d: v\n", i));
	ASSERT_OK(skitx_buf_puts(&b, "---\n"));
	s = load(make_skill("y", b.ptr, b.len), 0);
	ASSERT(find(s, "yaml-invalid") || find(s, "frontmatter-too-big"));
	skit_skill_free(s);
	skitx_buf_release(&b);
}

static void test_skill__scalars_stay_strings(void)
{
	skit_skill *s = load(MAKE("yes", "---\nname: yes\ndescription: 1.0\n"
	                                 "license: null\ncompatibility: ~\n"
	                                 "---\n"),
	                     0);

	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_name(s), "yes");
	ASSERT_STR(skit_skill_description(s), "1.0");
	ASSERT_STR(skit_skill_field(s, "license"), "null");
	ASSERT_STR(skit_skill_field(s, "compatibility"), "~");
	skit_skill_free(s);
}

static void test_skill__name_rules_in_order(void)
{
	skit_skill *s = load(MAKE("other", "---\nname: My_Skill-\n"
	                                   "description: x\n---\n"),
	                     0);
	size_t n;
	const skit_diag *d = skit_skill_diags(s, &n);

	ASSERT_EQ(n, 4);
	ASSERT_STR(d[0].code, "name-not-lowercase");
	ASSERT_STR(d[1].code, "name-hyphen-edge");
	ASSERT_STR(d[2].code, "name-invalid-chars");
	ASSERT_STR(d[3].code, "name-dir-mismatch");
	ASSERT_STR(d[3].message,
	           "Directory name 'other' must match skill name 'My_Skill-'");
	ASSERT_EQ(d[0].line, 2);
	ASSERT_EQ(d[0].column, 1);
	skit_skill_free(s);
}

static void test_skill__name_nfkc(void)
{
	char text[256];
	skit_skill *s;

	/* 63 'a' + U+FB01 (fi) is 65 characters after NFKC */
	snprintf(text, sizeof(text),
	         "---\nname: %.*s\xEF\xAC\x81\ndescription: x\n---\n", 63,
	         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	         "aaaaaaaa");
	s = load(make_skill("nf", text, strlen(text)), 0);
	ASSERT_CONTAINS(find(s, "name-too-long")->message, "(65 chars)");
	skit_skill_free(s);

	/* a fullwidth name matches its ASCII folder */
	s = load(MAKE("my-skill", "---\nname: \xEF\xBD\x8D\xEF\xBD\x99-skill\n"
	                          "description: x\n---\n"),
	         0);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_name(s), "my-skill");
	ASSERT_STR(skit_skill_name_raw(s), "\xEF\xBD\x8D\xEF\xBD\x99-skill");
	skit_skill_free(s);

	ASSERT(skit_skill_name_ok("pdf-processing"));
	ASSERT(skit_skill_name_ok("\xE6\x8A\x80\xE8\x83\xBD"));
	ASSERT(!skit_skill_name_ok("x\xCC\x81y-"));
	ASSERT(!skit_skill_name_ok("a--b"));
	ASSERT(!skit_skill_name_ok("A"));
	ASSERT(!skit_skill_name_ok("a_b"));
}

static void test_skill__description_and_compatibility(void)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	skit_skill *s;

	ASSERT_OK(skitx_buf_puts(&b, "---\nname: d\ndescription: |\n  "));
	for (int i = 0; i < 1024; i++)
		ASSERT_OK(skitx_buf_putc(&b, 'x'));
	ASSERT_OK(skitx_buf_puts(&b, "\ncompatibility: \"\"\n---\n"));
	s = load(make_skill("d", b.ptr, b.len), 0);
	/* the block scalar's newline makes it 1025 */
	ASSERT_STR(find(s, "description-too-long")->message,
	           "Description exceeds 1024 character limit (1025 chars)");
	ASSERT(!find(s, "compatibility-too-long"));
	skit_skill_free(s);
	skitx_buf_release(&b);

	s = load(MAKE("d", "---\nname: d\ndescription: \"  \"\n"
	                   "compatibility:\n  a: b\n---\n"),
	         0);
	ASSERT(find(s, "description-empty"));
	ASSERT(find(s, "compatibility-not-string"));
	skit_skill_free(s);

	s = load(MAKE("d", "---\ndescription: x\n---\n"), 0);
	ASSERT_STR(find(s, "name-missing")->message,
	           "Missing required field in frontmatter: name");
	skit_skill_free(s);
}

static void test_skill__unknown_fields(void)
{
	static const char text[] = "---\nname: u\ndescription: x\n"
	                           "colour: 1\ndisable-model-invocation: yes\n"
	                           "---\n";
	skit_skill *s = load(MAKE("u", text), 0);

	ASSERT_STR(
	        find(s, "unknown-fields")->message,
	        "Unexpected fields in frontmatter: colour, "
	        "disable-model-invocation. Only ['allowed-tools', 'compatibility', "
	        "'description', 'license', 'metadata', 'name'] are "
	        "allowed.");
	skit_skill_free(s);

	s = load(MAKE("u", text), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT(find(s, "unknown-field"));
	ASSERT(skit_skill_flags(s) & SKIT_SKILL_DISABLE_MODEL_INVOCATION);
	skit_skill_free(s);

	/* a malformed run-time flag fails closed */
	s = load(MAKE("u", "---\nname: u\ndescription: x\n"
	                   "disable-model-invocation: maybe\n---\n"),
	         SKIT_SKILL_LENIENT);
	ASSERT(!skit_skill_valid(s));
	ASSERT(find(s, "field-not-boolean"));
	skit_skill_free(s);
}

static void test_skill__allowed_tools_and_metadata(void)
{
	skit_skill *s = load(MAKE("t", "---\nname: t\ndescription: x\n"
	                               "allowed-tools:\n  - Read\n  - "
	                               "Bash(git:*)\nmetadata:\n  author: me\n"
	                               "  nested:\n    a: b\n---\n"),
	                     SKIT_SKILL_LENIENT);
	const char *k, *v;

	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_allowed_tools(s), "Read Bash(git:*)");
	ASSERT(find(s, "allowed-tools-list"));
	ASSERT(find(s, "metadata-not-string"));
	ASSERT_EQ(skit_skill_metadata_count(s), 1);
	skit_skill_metadata_at(s, 0, &k, &v);
	ASSERT_STR(k, "author");
	ASSERT_STR(v, "me");
	skit_skill_free(s);
}

static void test_skill__properties_json(void)
{
	skit_skill *s =
	        load(MAKE("p", "---\nname: p\ndescription: \xE6\x8A\x80 "
	                       "\xF0\x9F\x9A\x80\nallowed-tools: \"\"\n"
	                       "metadata:\n  n:\n    - a\n    - b\n"
	                       "---\n"),
	             0);
	char *json = NULL;

	ASSERT_OK(skit_skill_properties_json(&json, s, NULL));
	ASSERT_STR(json, "{\n  \"name\": \"p\",\n  \"description\": "
	                 "\"\\u6280 \\ud83d\\ude80\",\n  \"allowed-tools\": "
	                 "\"\",\n  \"metadata\": {\n    \"n\": \"['a', "
	                 "'b']\"\n  }\n}\n");
	skit_free(json);
	skit_skill_free(s);

	s = load(MAKE("p", "---\nname: p\n---\n"), 0);
	{
		skit_error err;
		ASSERT_EQ(skit_skill_properties_json(&json, s, &err),
		          SKIT_EINVALID);
		ASSERT_STR(err.message, "Missing required field in "
		                        "frontmatter: description");
	}
	skit_skill_free(s);
}

/* Encoding: invalid UTF-8 and NUL bytes are clean errors with offsets. */
static void test_skill__encoding_errors(void)
{
	skit_skill *s;

	s = load(MAKE("e", "---\nna\xC0\xAEme: e\n---\n"), 0);
	ASSERT_STR(find(s, "invalid-utf8")->message,
	           "SKILL.md is not valid UTF-8 (byte offset 6)");
	skit_skill_free(s);
	s = load(make_skill("e", "---\nname: e\0\n---\n", 17), 0);
	ASSERT(find(s, "nul-byte"));
	skit_skill_free(s);
	s = load(MAKE("e", "---\nname: e\ndescription: \xED\xA0\x80\n---\n"),
	         0);
	ASSERT(find(s, "invalid-utf8"));
	skit_skill_free(s);
}

/* SKILL.md as a FIFO, a directory, a symlink, a sparse giant. */
static void test_skill__hostile_files(void)
{
	char path[PATH_MAX + 32], file[PATH_MAX + 64];
	skit_skill *s;
	int fd;

	MAKE("h", "x");
	snprintf(path, sizeof(path), "%s/h", dir);
	snprintf(file, sizeof(file), "%s/SKILL.md", path);

	unlink(file);
	ASSERT_OK(mkfifo(file, 0644));
	s = load(path, 0); /* must not block */
	ASSERT(find(s, "skill-md-not-file"));
	skit_skill_free(s);

	unlink(file);
	ASSERT_OK(mkdir(file, 0755));
	s = load(path, 0);
	ASSERT_CONTAINS(find(s, "skill-md-not-file")->message,
	                "is a directory");
	skit_skill_free(s);
	rmdir(file);

	ASSERT_OK(symlink("/dev/zero", file));
	s = load(path, 0);
	ASSERT(find(s, "skill-md-symlink"));
	skit_skill_free(s);
	unlink(file);

	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	ASSERT_OK(ftruncate(fd, 2LL * 1024 * 1024 * 1024));
	close(fd);
	s = load(path, 0);
	ASSERT(find(s, "file-too-big"));
	ASSERT_EQ(skit__skill_bytes_read(s), 0);
	skit_skill_free(s);
	unlink(file);

	s = load(path, 0);
	ASSERT_STR(find(s, "missing-skill-md")->message,
	           "Missing required file: SKILL.md");
	skit_skill_free(s);
}

static void test_skill__skill_md_file_argument(void)
{
	char file[PATH_MAX + 16];
	skit_skill *s;

	snprintf(file, sizeof(file), "%s/SKILL.md",
	         MAKE("arg", "---\nname: arg\ndescription: x\n---\n"));
	s = load(file, 0);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_dir_name(s), "arg");
	skit_skill_free(s);
	{
		skit_skill *none = NULL;
		ASSERT_EQ(skit_skill_load(&none, "/nonexistent/x", NULL, NULL),
		          SKIT_ENOTFOUND);
		ASSERT(!none);
	}
}

static int count_cb(const char *rel, bool is_dir, void *payload)
{
	struct skitx_buf *b = payload;

	(void)is_dir;
	return skitx_buf_printf(b, "%s;", rel);
}

static void test_skill__lints(void)
{
	char p[PATH_MAX + 64];
	struct skitx_buf list = SKITX_BUF_INIT;
	const char *path;
	skit_skill *s;
	int fd;

	path = MAKE("lint", "---\nname: lint\ndescription: x \xE2\x80\xAE y\n"
	                    "---\n\nSee [a](references/a.md), [gone](nope.md), "
	                    "[web](https://x.org) and [top](#top).\n"
	                    "key AKIAABCDEFGHIJKLMNOP\n");
	snprintf(p, sizeof(p), "%s/references", path);
	skitx_fs_mkdir_p(p, 0755);
	snprintf(p, sizeof(p), "%s/scripts", path);
	skitx_fs_mkdir_p(p, 0755);
	snprintf(p, sizeof(p), "%s/references/a.md", path);
	ASSERT_OK(skitx_fs_write_atomic(p, "see [b](b.md)\n", 14, 0644));
	snprintf(p, sizeof(p), "%s/references/b.md", path);
	ASSERT_OK(skitx_fs_write_atomic(p, "leaf\n", 5, 0644));
	snprintf(p, sizeof(p), "%s/scripts/run.sh", path);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ASSERT(fd >= 0);
	close(fd);

	s = load(path, SKIT_SKILL_LINT);
	ASSERT(skit_skill_valid(s));
	ASSERT(skit_skill_has_warnings(s));
	ASSERT(find(s, "hidden-unicode"));
	ASSERT_CONTAINS(find(s, "link-missing")->message, "nope.md");
	ASSERT_EQ(find(s, "link-missing")->line, 6);
	ASSERT_CONTAINS(find(s, "reference-nested")->message,
	                "references/a.md links to references/b.md");
	ASSERT(find(s, "script-not-executable"));
	ASSERT_EQ(find(s, "secret-suspected")->line, 7);
	ASSERT_OK(skit_skill_foreach_file(s, count_cb, &list, NULL));
	ASSERT_STR(list.ptr, "references;references/a.md;references/b.md;"
	                     "scripts;scripts/run.sh;");
	skitx_buf_release(&list);
	skit_skill_free(s);

	/* without LINT, none of that is read */
	s = load(path, 0);
	ASSERT(!find(s, "link-missing"));
	ASSERT(!find(s, "script-not-executable"));
	skit_skill_free(s);
}

/* Every allocation failure is reported as SKIT_ENOMEM, never a crash. */
static void test_skill__out_of_memory(void)
{
	const char *path = MAKE("oom", "---\nname: oom\ndescription: |\n  x\n"
	                               "metadata:\n  a: b\n  c:\n    - d\n"
	                               "---\n[l](x.md)\n");
	bool succeeded = false;

	for (long n = 1; n < 2000 && !succeeded; n++) {
		skit_skill_options opts = SKIT_SKILL_OPTIONS_INIT;
		skit_skill *s = NULL;
		char *json = NULL;
		int rc;

		opts.flags = SKIT_SKILL_LINT;
		skitx_alloc_fail_at(n);
		rc = skit_skill_load(&s, path, &opts, NULL);
		if (!rc)
			rc = skit_skill_properties_json(&json, s, NULL);
		skitx_alloc_fail_at(0);
		ASSERT(rc == 0 || rc == SKIT_ENOMEM);
		succeeded = rc == 0 && find(s, "link-missing");
		skit_free(json);
		skit_skill_free(s);
	}
	ASSERT(succeeded);
}

/* The loading rules (SKIT_SKILL_LENIENT) against conformance (default). */
static void test_skill__loading_rules(void)
{
	static const char flow[] =
	        "---\nname: flow\ndescription: Flow fields.\n"
	        "metadata: {\"bot\": {\"emoji\": \"x\"}, \"k\": \"v\"}\n"
	        "allowed-tools: [Read, Grep]\ntags: [a, b]\n"
	        "requires:\n  mcp: [rube]\n---\n";
	static const char colon[] =
	        "---\nname: colon\n"
	        "description: Use this: it works, it's fine\n"
	        "  allowed-tools: Bash(rm:*)\n"
	        "disable-model-invocation: true\n---\n";
	static const char unindented[] =
	        "---\nname: unindented\n"
	        "description: Notes. It can\n- search 'x'\n---- not a fence\n"
	        "\n- tag\n"
	        "disable-model-invocation: true\n---\n";
	static const char blockline[] = "---\nname: blockline\n"
	                                "description: >- Use it: now\n"
	                                "user-invocable: false\n---\n";
	static const char blank_colon[] =
	        "---\nname: blank-colon\n"
	        "description: First.\n\n"
	        "  Keywords: a, b\nlicense: MIT\n---\n";
	static const char hint_list[] =
	        "---\nname: hint-list\ndescription: Hints.\n"
	        "argument-hint: [a, b]\nwhen_to_use: [now, later]\n---\n";
	static const char hint_map[] = "---\nname: hint-map\ndescription: H.\n"
	                               "argument-hint: [{a: b}]\n---\n";
	static const char names[] =
	        "---\nname: Ahrefs Automation\ndescription: Backlinks.\n---\n";
	static const char noname[] = "---\ndescription: No name.\n---\n";
	static const char client[] =
	        "---\nname: client\ndescription: Client fields.\n"
	        "argument-hint: '[x]'\nuser-invocable: true\nmodel: m\n"
	        "effort: low\ncontext: fork\nagent: a\nhooks:\n  k: v\n"
	        "paths: [a/**]\ndisallowed-tools: Write\nversion: 1\n"
	        "author: me\ntags: [t]\nwhen_to_use: Now.\n---\n";
	static const char anchor[] = "---\nname: anchor\ndescription: &a x\n"
	                             "license: {a: *a}\n---\n";
	static const char dup[] =
	        "---\nname: dup\ndescription: {a: 1, a: 2}\n---\n";
	static const char flowdesc[] =
	        "---\nname: flowdesc\ndescription: [a, b]\n---\n";
	skit_skill *s;
	const char *k, *v;
	size_t n;

	/* flow collections: an error in conformance, warnings when loading */
	s = load(MAKE("flow", flow), 0);
	ASSERT(!skit_skill_valid(s));
	ASSERT_CONTAINS(find(s, "yaml-invalid")->message, "flow mapping");
	skit_skill_free(s);
	s = load(MAKE("flow", flow), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_allowed_tools(s), "Read Grep");
	ASSERT_EQ(find(s, "yaml-flow")->line, 4);
	ASSERT_CONTAINS(find(s, "yaml-flow")->message, "'metadata'");
	/* one warning a field: metadata, allowed-tools, tags, requires */
	skit_skill_diags(s, &n);
	{
		size_t flows = 0;
		const skit_diag *d = skit_skill_diags(s, &n);
		for (size_t i = 0; i < n; i++)
			flows += !strcmp(d[i].code, "yaml-flow");
		ASSERT_EQ(flows, 4);
	}
	/* strings only: the nested map is dropped with a warning */
	ASSERT(find(s, "metadata-not-string"));
	ASSERT_EQ(skit_skill_metadata_count(s), 1);
	skit_skill_metadata_at(s, 0, &k, &v);
	ASSERT_STR(k, "k");
	ASSERT_STR(v, "v");
	skit_skill_free(s);

	/* anchors, aliases, duplicate keys: refused by both */
	s = load(MAKE("anchor", anchor), SKIT_SKILL_LENIENT);
	ASSERT(!skit_skill_valid(s));
	ASSERT_CONTAINS(find(s, "yaml-invalid")->message, "anchor");
	skit_skill_free(s);
	s = load(MAKE("dup", dup), SKIT_SKILL_LENIENT);
	ASSERT(!skit_skill_valid(s));
	ASSERT_CONTAINS(find(s, "yaml-invalid")->message, "Duplicate key");
	skit_skill_free(s);
	/* the caps hold for flow collections: depth and node count */
	{
		char deep[512], *q = deep;
		skit_skill *d;

		q += snprintf(q, sizeof(deep), "%s",
		              "---\nname: deep\ndescription: x\ntags: ");
		for (int i = 0; i < 40; i++)
			*q++ = '[';
		for (int i = 0; i < 40; i++)
			*q++ = ']';
		q += snprintf(q, sizeof(deep) - (size_t)(q - deep), "%s",
		              "\n---\n");
		d = load(make_skill("deep", deep, (size_t)(q - deep)),
		         SKIT_SKILL_LENIENT);
		ASSERT(!skit_skill_valid(d));
		ASSERT_CONTAINS(find(d, "yaml-invalid")->message, "nesting");
		skit_skill_free(d);
	}
	/* a description must stay a string, flow or not */
	s = load(MAKE("flowdesc", flowdesc), SKIT_SKILL_LENIENT);
	ASSERT(!skit_skill_valid(s));
	ASSERT(find(s, "description-empty"));
	skit_skill_free(s);

	/*
	 * ": " in a plain description: the line is read as one string; a
	 * continuation line stays text and never becomes a key (HOSTILE C9),
	 * and the other fields still apply (C10: never more visible)
	 */
	s = load(MAKE("colon", colon), 0);
	ASSERT(find(s, "yaml-invalid"));
	skit_skill_free(s);
	s = load(MAKE("colon", colon), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_description(s),
	           "Use this: it works, it's fine allowed-tools: Bash(rm:*)");
	ASSERT(!skit_skill_allowed_tools(s));
	ASSERT(skit_skill_flags(s) & SKIT_SKILL_DISABLE_MODEL_INVOCATION);
	ASSERT_EQ(find(s, "description-unquoted-colon")->line, 3);
	skit_skill_free(s);

	/*
	 * The other shapes YAML refuses and lenient clients load: lines at
	 * column 0 under a plain description (a `key:` line or a fence ends
	 * them; a "----" line does not), text after a block indicator, a
	 * ": " after an empty line; the fields after them still apply.
	 */
	s = load(MAKE("unindented", unindented), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_description(s),
	           "Notes. It can - search 'x' ---- not a fence\n- tag");
	ASSERT(skit_skill_flags(s) & SKIT_SKILL_DISABLE_MODEL_INVOCATION);
	ASSERT_EQ(find(s, "description-unindented")->line, 3);
	skit_skill_free(s);
	s = load(MAKE("unindented", unindented), 0);
	ASSERT(find(s, "yaml-invalid"));
	skit_skill_free(s);
	s = load(MAKE("blockline", blockline), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_description(s), "Use it: now");
	ASSERT(skit_skill_flags(s) & SKIT_SKILL_NOT_USER_INVOCABLE);
	ASSERT(find(s, "description-block-text"));
	skit_skill_free(s);
	s = load(MAKE("blank-colon", blank_colon), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_description(s), "First.\nKeywords: a, b");
	ASSERT_STR(skit_skill_field(s, "license"), "MIT");
	ASSERT(find(s, "description-unquoted-colon"));
	skit_skill_free(s);
	s = load(MAKE("hint-list", hint_list), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT_STR(skit_skill_argument_hint(s), "[a, b]");
	ASSERT_STR(skit_skill_when_to_use(s), "now; later");
	ASSERT(find(s, "field-list-joined"));
	skit_skill_free(s);
	s = load(MAKE("hint-map", hint_map), SKIT_SKILL_LENIENT);
	ASSERT(!skit_skill_valid(s));
	ASSERT(find(s, "field-not-string"));
	skit_skill_free(s);

	/* names: warnings, and the folder name takes over */
	s = load(MAKE("ahrefs-automation", names), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT(skit_skill_flags(s) & SKIT_SKILL_NAME_INVALID);
	ASSERT_EQ(find(s, "name-not-lowercase")->severity,
	          SKIT_SEVERITY_WARNING);
	ASSERT(find(s, "name-invalid-chars"));
	ASSERT(find(s, "name-dir-mismatch"));
	ASSERT_STR(skit_skill_name_raw(s), "Ahrefs Automation");
	skit_skill_free(s);
	s = load(MAKE("ahrefs-automation", names), 0);
	ASSERT_EQ(find(s, "name-not-lowercase")->severity, SKIT_SEVERITY_ERROR);
	skit_skill_free(s);
	s = load(MAKE("noname", noname), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT(skit_skill_flags(s) & SKIT_SKILL_NAME_INVALID);
	ASSERT_EQ(find(s, "name-missing")->severity, SKIT_SEVERITY_WARNING);
	skit_skill_free(s);

	/* the client fields are known: no warning at all */
	s = load(MAKE("client", client), SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT(!find(s, "unknown-field"));
	skit_skill_diags(s, &n);
	ASSERT_EQ(n, 2); /* `paths` and `tags` are flow lists */
	ASSERT(find(s, "yaml-flow"));
	ASSERT_STR(skit_skill_argument_hint(s), "[x]");
	skit_skill_free(s);
}

/* WebSearch in allowed-tools: a warning under the lints (skit offers no
 * web search), none for the tools skit offers, and no change to the
 * verdict. */
static void test_skill__lint_websearch(void)
{
	const char *path;
	skit_skill *s;

	path = MAKE("web", "---\nname: web\ndescription: Searches.\n"
	                   "allowed-tools: Read, WebSearch Bash(git:*)\n---\n"
	                   "Body.\n");
	s = load(path, SKIT_SKILL_LINT);
	ASSERT(skit_skill_valid(s));
	ASSERT(find(s, "allowed-tools-not-offered"));
	ASSERT_EQ(find(s, "allowed-tools-not-offered")->severity,
	          SKIT_SEVERITY_WARNING);
	ASSERT_CONTAINS(find(s, "allowed-tools-not-offered")->message,
	                "no search backend");
	skit_skill_free(s);
	s = load(path, SKIT_SKILL_LINT | SKIT_SKILL_LENIENT);
	ASSERT(skit_skill_valid(s));
	ASSERT(find(s, "allowed-tools-not-offered"));
	skit_skill_free(s);

	/* tools skit offers, and names that merely start alike: none */
	path = MAKE("noweb", "---\nname: noweb\ndescription: Fetches.\n"
	                     "allowed-tools: Read WebFetch(domain:x.org) "
	                     "Bash(echo WebSearch)\n---\nBody.\n");
	s = load(path, SKIT_SKILL_LINT);
	ASSERT(skit_skill_valid(s));
	ASSERT(!find(s, "allowed-tools-not-offered"));
	skit_skill_free(s);

	/* another agent's name for it (Gemini CLI's), named as written */
	path = MAKE("gweb", "---\nname: gweb\ndescription: Searches.\n"
	                    "allowed-tools: read, google_web_search\n---\n"
	                    "Body.\n");
	s = load(path, SKIT_SKILL_LINT);
	ASSERT(find(s, "allowed-tools-not-offered"));
	ASSERT_CONTAINS(find(s, "allowed-tools-not-offered")->message,
	                "names google_web_search, which");
	skit_skill_free(s);
}

TEST_MAIN(
        TEST(test_skill__valid_minimal) TEST(test_skill__index_reads_frontmatter_only) TEST(
                test_skill__fence_across_reads) TEST(test_skill__frontmatter_cap_exact)
                TEST(test_skill__line_endings_equivalent) TEST(
                        test_skill__fences_are_whole_lines) TEST(test_skill__yaml_refusals)
                        TEST(test_skill__yaml_bombs) TEST(test_skill__scalars_stay_strings) TEST(
                                test_skill__name_rules_in_order) TEST(test_skill__name_nfkc)
                                TEST(test_skill__description_and_compatibility) TEST(
                                        test_skill__unknown_fields) TEST(test_skill__allowed_tools_and_metadata)
                                        TEST(test_skill__properties_json) TEST(
                                                test_skill__encoding_errors)
                                                TEST(test_skill__hostile_files) TEST(
                                                        test_skill__skill_md_file_argument)
                                                        TEST(test_skill__lints) TEST(
                                                                test_skill__out_of_memory)
                                                                TEST(test_skill__loading_rules)
                                                                        TEST(test_skill__lint_websearch))
