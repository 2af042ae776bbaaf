/* SPDX-License-Identifier: MIT */
/*
 * test_rx.c - the one regular-expression engine (lib/rx.h) and its two
 * untrusted users. Patterns that cost seconds and gigabytes in a POSIX
 * backtracking engine end at once with a clear error: a nested counted
 * repeat (40 bytes) at compile time, a back-reference that goes
 * exponential on a 160-byte line at match time, through the engine, the
 * grep tool and an eval case. ERE meaning is kept where PCRE2 reads the
 * text differently (a backslash inside brackets). No timing assertion:
 * an error is asserted, and a hang would time the test out.
 */
#include "common.h"

#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lib/agent/agent_int.h"
#include "lib/core/rx.h"
#include "skit/skit.h"
#include "util/buf.h"
#include "util/fs.h"

#define NESTED  "((((a{1,100}){1,100}){1,100}){1,100})"
#define BACKREF "(a*)*\\1b"

static char dir[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", dir, rel);
	return b;
}

static void put(const char *path, const char *text)
{
	ASSERT_OK(skitx_fs_write_atomic(path, text, strlen(text), 0644));
}

static void setup(const char *name)
{
	const char *base = getenv("SKIT_TEST_DIR");
	char cmd[PATH_MAX + 32];

	snprintf(dir, sizeof(dir), "%s/%s", base ? base : "/tmp/test_rx", name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	ASSERT_OK(system(cmd));
}

static int match(const char *pattern, const char *subject)
{
	struct skit__rx *rx;
	skit_error err = { 0 };
	int m;

	if (skit__rx_new(&rx, pattern, 0, &err))
		HARNESS_FAIL("%s: %s", pattern, err.message);
	m = skit__rx_match(rx, subject, strlen(subject), NULL, &err);
	skit__rx_free(rx);
	return m;
}

static void test_rx__ere_meaning(void)
{
	size_t start = 0;
	struct skit__rx *rx;

	ASSERT_EQ(match("[0-9]+ columns", "has 12 columns"), 1);
	ASSERT_EQ(match("^abc$", "abc"), 1);
	ASSERT_EQ(match("^abc$", "abc\n"), 0); /* $: the end only */
	ASSERT_EQ(match("a.c", "a\nc"), 1);    /* .: any byte */
	ASSERT_EQ(match("(ab|cd){2}", "xxcdab"), 1);
	ASSERT_EQ(match("[[:digit:]]{3}", "a123"), 1);
	ASSERT_EQ(match("[]x]", "]"), 1);
	ASSERT_EQ(match("[^]x]", "]"), 0);
	/* In ERE a backslash in brackets is itself. */
	ASSERT_EQ(match("[\\d]", "\\"), 1);
	ASSERT_EQ(match("[\\d]", "5"), 0);
	ASSERT_EQ(match("a\\.b", "a.b"), 1);
	ASSERT_EQ(match("a\\.b", "axb"), 0);
	ASSERT_EQ(match("(x)\\1", "xx"), 1);
	/* Bytes, not UTF-8: invalid sequences are searched like any. */
	ASSERT_EQ(match("\xff+z", "a\xff\xffz"), 1);

	ASSERT_OK(skit__rx_new(&rx, "ABC", SKIT__RX_ICASE, NULL));
	ASSERT_EQ(skit__rx_match(rx, "x\nyabc", 6, &start, NULL), 1);
	ASSERT_EQ(start, 3);
	skit__rx_free(rx);
}

static void test_rx__syntax_errors(void)
{
	static const char *const bad[] = { "(",       "a{2,1}", "[z-a]",
		                           "(*UTF)a", "\\C",    "(?<n" };
	char big[SKIT__RX_PATTERN_MAX + 2];
	struct skit__rx *rx = (struct skit__rx *)1;
	skit_error err = { 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&err, 0, sizeof(err));
		ASSERT_EQ(skit__rx_new(&rx, bad[i], 0, &err), SKIT_EINVALID);
		ASSERT(!rx);
		ASSERT_CONTAINS(err.message, "at offset");
		ASSERT(!strchr(err.message, '\n'));
	}
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ASSERT_EQ(skit__rx_new(&rx, big, 0, &err), SKIT_ETOOBIG);
	ASSERT_CONTAINS(err.message, "limit is 1024");
	/* Deep nesting is refused before it costs anything. */
	memset(big, '(', 200);
	memset(big + 200, ')', 200);
	big[400] = '\0';
	ASSERT_EQ(skit__rx_new(&rx, big, 0, &err), SKIT_ETOOBIG);
	ASSERT_CONTAINS(err.message, "too complex");
}

/* The first reproducer: glibc's regcomp took 2.9 GB and 5.7 s. */
static void test_rx__nested_repeat_refused(void)
{
	struct skit__rx *rx = NULL;
	skit_error err = { 0 };

	ASSERT_EQ(skit__rx_new(&rx, NESTED, 0, &err), SKIT_ETOOBIG);
	ASSERT(!rx);
	ASSERT(strstr(err.message, "too complex") ||
	       strstr(err.message, "compiles to more than"));
}

/* A 160-byte line that holds the "b" the pattern needs, so no shortcut
 * (a missing required byte) answers before the backtracking starts. */
static void long_line(char line[161])
{
	memset(line, 'a', 158);
	memcpy(line + 158, "xb", 3);
}

/* The second: regexec took 4.9 s on a 160-byte line. */
static void test_rx__backref_stops(void)
{
	char line[161];
	struct skit__rx *rx;
	skit_error err = { 0 };

	long_line(line);
	ASSERT_OK(skit__rx_new(&rx, BACKREF, 0, &err));
	ASSERT_EQ(skit__rx_match(rx, line, 160, NULL, &err), SKIT_ETOOBIG);
	ASSERT_CONTAINS(err.message, "simplify it");
	/* The compiled pattern stays usable after a stopped match. */
	ASSERT_EQ(skit__rx_match(rx, "aab", 3, NULL, &err), 1);
	skit__rx_free(rx);
}

/* ---- the grep tool -------------------------------------------------- */

static skit_agent *agent_in(const char *project, skit_registry **reg,
                            skit_model **model)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char spec[PATH_MAX + 16];
	skit_agent *a = NULL;

	put(at("c.jsonl"), "{\"text\": \"ok\", \"stop_reason\": "
	                   "\"end_turn\"}\n");
	snprintf(spec, sizeof(spec), "replay:%s", at("c.jsonl"));
	mo.spec = spec;
	ASSERT_OK(skit_model_new(model, &mo, &err));
	ASSERT_OK(skit_registry_new(reg, &err));
	ASSERT_OK(skit_registry_scan(*reg, &err));
	ao.registry = *reg;
	ao.model = *model;
	ao.project_dir = project;
	ao.workdir = project;
	if (skit_agent_new(&a, &ao, &err))
		HARNESS_FAIL("agent: %s", err.message);
	return a;
}

static const char *grep(skit_agent *a, const char *pattern, bool *is_error)
{
	static char text[4096];
	struct skitx_buf out = SKITX_BUF_INIT;
	skit_error err = { 0 };
	json_t *args = json_pack("{s:s}", "pattern", pattern);

	*is_error = false;
	ASSERT_OK(skit__tools_call(a, "grep", args, &out, is_error, &err));
	snprintf(text, sizeof(text), "%s", skitx_buf_cstr(&out));
	skitx_buf_release(&out);
	json_decref(args);
	return text;
}

static void test_rx__grep_tool(void)
{
	skit_registry *reg;
	skit_model *model;
	skit_agent *a;
	char line[200];
	const char *out;
	bool is_error;

	setup("grep");
	ASSERT_OK(mkdir(at("p"), 0755));
	long_line(line);
	snprintf(line + 160, sizeof(line) - 160, "\nbackslash \\ here\n");
	put(at("p/long.txt"), line);
	a = agent_in(at("p"), &reg, &model);

	out = grep(a, "sh [\\] here", &is_error);
	ASSERT(!is_error);
	ASSERT_CONTAINS(out, "long.txt:2: backslash");

	out = grep(a, NESTED, &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(out, "refused regular expression: ");

	out = grep(a, BACKREF, &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(out, "grep stopped at long.txt:1: ");
	ASSERT_CONTAINS(out, "simplify it");

	out = grep(a, "(", &is_error);
	ASSERT(is_error);
	ASSERT_CONTAINS(out, "bad regular expression: at offset 1");

	skit_agent_free(a);
	skit_model_free(model);
	skit_registry_free(reg);
}

/* ---- eval case files ------------------------------------------------ */

static void test_rx__eval_case(void)
{
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	const skit_eval_case_result *c;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_error err = { 0 };
	char answer[161], text[1024];
	const char *path;
	bool stopped = false;

	setup("eval");
	put(at("nested.yaml"),
	    "input: x\nexpected:\n  output:\n    regex: \"" NESTED "\"\n");
	path = at("nested.yaml");
	ASSERT_EQ(skit_eval_suite_load(&s, &path, 1, &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "bad regex '((((a{1,100}");
	ASSERT(!strchr(err.message, '\n'));

	long_line(answer);
	snprintf(text, sizeof(text),
	         "{\"text\": \"%s\", \"stop_reason\": \"end_turn\"}\n", answer);
	put(at("a.jsonl"), text);
	put(at("backref.yaml"), "input: x\ncassette: a.jsonl\nexpected:\n"
	                        "  output:\n    regex: '" BACKREF "'\n");
	path = at("backref.yaml");
	ASSERT_OK(skit_eval_suite_load(&s, &path, 1, &err));
	o.runs_dir = at("runs");
	ASSERT_OK(skit_eval_run(&r, s, &o, &err));
	c = skit_eval_report_case(r, 0);
	ASSERT(!c->passed && !c->output_ok);
	for (size_t k = 0; k < c->reason_count; k++)
		stopped |= strstr(c->reasons[k], "output not checked") &&
		           strstr(c->reasons[k], "simplify it");
	ASSERT(stopped);
	skit_eval_report_free(r);
	skit_eval_suite_free(s);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_rx__ere_meaning)
	TEST(test_rx__syntax_errors)
	TEST(test_rx__nested_repeat_refused)
	TEST(test_rx__backref_stops)
	TEST(test_rx__grep_tool)
	TEST(test_rx__eval_case))
/* clang-format on */
