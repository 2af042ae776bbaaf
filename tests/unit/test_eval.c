/* SPDX-License-Identifier: MIT */
/*
 * test_eval.c - evals through the library API: case files refused for
 * unknown keys, wrong types, a missing input and size; the examples/evals
 * suite passing offline with sane metrics; a broken cassette failing with
 * the right reasons; --jobs 2 agreeing with --jobs 1; the JSON and JUnit
 * reports.
 */
#include "common.h"

#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/eval.h"

static char dir[PATH_MAX / 2];

static const char *at(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", dir, rel);
	return b;
}

static const char *src(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	const char *s = getenv("SKIT_SOURCE_DIR");
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s/%s", s ? s : ".", rel);
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	ASSERT_EQ(fwrite(text, 1, strlen(text), f), strlen(text));
	ASSERT_OK(fclose(f));
}

static void setup(const char *name)
{
	const char *base = getenv("SKIT_TEST_DIR");
	char cmd[PATH_MAX + 32];

	snprintf(dir, sizeof(dir), "%s/%s", base ? base : "/tmp/test_eval",
	         name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	ASSERT_OK(system(cmd));
}

/* Load one case text; return the status and the message. */
static int load_text(const char *name, const char *text, skit_error *err)
{
	skit_eval_suite *s = NULL;
	const char *path = at(name);
	int rc;

	put(path, text);
	memset(err, 0, sizeof(*err));
	rc = skit_eval_suite_load(&s, &path, 1, err);
	skit_eval_suite_free(s);
	return rc;
}

static void test_eval__load_errors(void)
{
	skit_error err;
	char *big;
	FILE *f;

	setup("load");
	ASSERT_EQ(
	        load_text("a.yaml", "input: hi\nexpectd:\n  skills: x\n", &err),
	        SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "a.yaml:2: unknown key 'expectd'");
	ASSERT_EQ(load_text("b.yaml",
	                    "input: hi\nexpected:\n  output:\n    "
	                    "contain: x\n",
	                    &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "b.yaml:4: unknown key 'contain'");
	ASSERT_EQ(load_text("c.yaml", "input:\n  - a\n  - b\n", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "c.yaml:2: 'input' must be a string");
	ASSERT_EQ(load_text("d.yaml", "trials: 2\n", &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "missing 'input'");
	ASSERT_EQ(load_text("e.yaml", "input: x\ntrials: many\n", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "e.yaml:2: 'trials' must be a whole");
	ASSERT_EQ(load_text("f.json", "{\"input\": \"x\", \"bogus\": 1}", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "unknown key 'bogus'");
	ASSERT_EQ(load_text("g.json", "{\"input\": \"x\",", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "g.json:");
	ASSERT_EQ(load_text("h.yaml", "input: x\nskills: nowhere\n", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "no such folder 'nowhere'");
	ASSERT_EQ(load_text("i.yaml",
	                    "input: x\nexpected:\n  output:\n    regex: "
	                    "\"(\"\n",
	                    &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "bad regex");
	ASSERT_EQ(load_text("j.yaml", "input: x\npass_threshold: 2\n", &err),
	          SKIT_EINVALID);
	ASSERT_OK(load_text("ok.yaml", "input: x\ntrials: 3\n", &err));

	/* Over 1 MiB. */
	big = malloc(1100 * 1024);
	ASSERT(big);
	memset(big, '#', 1100 * 1024);
	f = fopen(at("big.yaml"), "w");
	ASSERT(f);
	fputs("input: x\n", f);
	fwrite(big, 1, 1100 * 1024, f);
	fclose(f);
	free(big);
	{
		skit_eval_suite *s = NULL;
		const char *p = at("big.yaml");

		memset(&err, 0, sizeof(err));
		ASSERT_EQ(skit_eval_suite_load(&s, &p, 1, &err), SKIT_ETOOBIG);
		ASSERT(!s);
		ASSERT_CONTAINS(err.message, "larger than 1 MiB");
	}
}

static void test_eval__folder_order(void)
{
	skit_eval_suite *s = NULL;
	skit_error err = { 0 };
	const char *p = src("examples/evals");

	ASSERT_OK(skit_eval_suite_load(&s, &p, 1, &err));
	/* Three cases, then the six queries of the trigger set. */
	ASSERT_EQ(skit_eval_suite_count(s), 9);
	ASSERT_STR(skit_eval_suite_case_name(s, 0), "code-review");
	ASSERT_STR(skit_eval_suite_case_name(s, 1), "csv-report");
	ASSERT_STR(skit_eval_suite_case_name(s, 2), "no-skill");
	ASSERT_STR(skit_eval_suite_case_name(s, 3), "triggers-csv-report#1");
	ASSERT_STR(skit_eval_suite_case_name(s, 8), "triggers-csv-report#6");
	ASSERT_CONTAINS(skit_eval_suite_case_file(s, 8),
	                "triggers-csv-report.yaml");
	skit_eval_suite_free(s);
}

static skit_eval_report *run_suite(const char *const *paths, size_t n,
                                   unsigned int jobs, const char *runs)
{
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_error err = { 0 };

	if (skit_eval_suite_load(&s, paths, n, &err))
		HARNESS_FAIL("load: %s", err.message);
	o.jobs = jobs;
	o.runs_dir = at(runs);
	o.script_timeout_ms = 20000;
	if (skit_eval_run(&r, s, &o, &err))
		HARNESS_FAIL("run: %s", err.message);
	skit_eval_suite_free(s);
	return r;
}

static void dump_failures(const skit_eval_report *r)
{
	for (size_t i = 0; i < skit_eval_report_case_count(r); i++) {
		const skit_eval_case_result *c = skit_eval_report_case(r, i);

		for (size_t k = 0; k < c->reason_count; k++)
			fprintf(stderr, "%s: %s\n", c->name, c->reasons[k]);
	}
	for (size_t i = 0; i < skit_eval_report_query_count(r); i++) {
		const skit_eval_query_result *q = skit_eval_report_query(r, i);

		for (size_t k = 0; k < q->reason_count; k++)
			fprintf(stderr, "%s: %s\n", q->name, q->reasons[k]);
	}
}

static void test_eval__examples_pass(void)
{
	const char *p = src("examples/evals");
	skit_eval_report *r;
	const skit_eval_case_result *c;
	skit_eval_summary sum;
	char *text = NULL;
	skit_error err = { 0 };

	setup("examples");
	r = run_suite(&p, 1, 1, "runs");
	dump_failures(r);
	skit_eval_report_summary(r, &sum);
	ASSERT_EQ(sum.cases, 3);
	ASSERT_EQ(sum.cases_passed, 3);
	ASSERT_EQ(sum.queries, 6);
	ASSERT_EQ(sum.queries_passed, 6);
	/* 4 trials of cases, 6 queries x 2 trials. */
	ASSERT_EQ(sum.trials, 16);
	ASSERT_EQ(sum.trials_passed, 16);
	ASSERT(sum.pass_rate == 1.0);
	ASSERT(sum.step_pass_rate == 1.0);
	ASSERT(sum.output_pass_rate == 1.0);
	ASSERT_EQ(sum.step_checked, 4);
	ASSERT_EQ(sum.output_checked, 4);
	ASSERT_EQ(sum.script_runs, 3);
	/* Cases 6; queries: 3 x 2 csv-report, 2 x 2 other skills, 0. */
	ASSERT_EQ(sum.tool_calls, 6 + 10);
	ASSERT(sum.input_tokens > 0 && sum.output_tokens > 0);
	ASSERT(sum.median_tool_calls == 1.0);
	{
		const skit_eval_query_result *q;
		const skit_eval_trigger_result *t;
		size_t held = 0;

		ASSERT_EQ(skit_eval_report_query_count(r), 6);
		for (size_t i = 0; i < 6; i++) {
			q = skit_eval_report_query(r, i);
			ASSERT(q->passed);
			ASSERT_STR(q->skill, "csv-report");
			ASSERT_EQ(q->trials, 2);
			ASSERT_EQ(q->run_dir_count, 2);
			ASSERT_EQ(q->triggered, q->should_trigger ? 2 : 0);
			held += q->held_out;
		}
		/* holdout 0.34 of 3 and 3: one of each kind. */
		ASSERT_EQ(held, 2);
		ASSERT_EQ(skit_eval_report_trigger_count(r), 3);
		t = skit_eval_report_trigger(r, 0);
		ASSERT_STR(t->split, "all");
		ASSERT_EQ(t->queries, 6);
		ASSERT_EQ(t->tp, 6);
		ASSERT_EQ(t->tn, 6);
		ASSERT(t->trigger_rate == 1.0 && t->false_trigger_rate == 0.0);
		ASSERT_STR(skit_eval_report_trigger(r, 1)->split, "train");
		ASSERT_EQ(skit_eval_report_trigger(r, 1)->queries, 4);
		ASSERT_STR(skit_eval_report_trigger(r, 2)->split, "held-out");
		ASSERT_EQ(skit_eval_report_trigger(r, 2)->should, 1);
		ASSERT_EQ(skit_eval_report_trigger(r, 2)->should_not, 1);
	}

	c = skit_eval_report_case(r, 1);
	ASSERT_STR(c->name, "csv-report");
	ASSERT(c->passed);
	ASSERT_EQ(c->skill_count, 1);
	ASSERT_STR(c->skills[0], "csv-report");
	ASSERT_EQ(c->run_dir_count, 1);
	{
		char ev[PATH_MAX];
		struct stat st;

		snprintf(ev, sizeof(ev), "%s/events.jsonl", c->run_dirs[0]);
		ASSERT_OK(stat(ev, &st));
		snprintf(ev, sizeof(ev), "%s/work/sample.csv", c->run_dirs[0]);
		ASSERT_OK(stat(ev, &st));
	}
	c = skit_eval_report_case(r, 0);
	ASSERT_EQ(c->trials, 2);
	ASSERT_EQ(c->trials_passed, 2);
	ASSERT_EQ(c->run_dir_count, 2);
	ASSERT_EQ(c->input_tokens, 2 * (1250 + 2700 + 3300));

	ASSERT(skit_eval_report_skill_count(r) >= 4);
	for (size_t i = 0; i < skit_eval_report_skill_count(r); i++) {
		const skit_eval_skill_result *k = skit_eval_report_skill(r, i);

		ASSERT_EQ(k->fp, 0);
		ASSERT_EQ(k->fn, 0);
		ASSERT(k->precision == 1.0 && k->recall == 1.0);
		if (!strcmp(k->name, "code-review"))
			ASSERT_EQ(k->tp, 2);
	}
	ASSERT_OK(skit_eval_report_write(&text, r, SKIT_EVAL_TEXT, &err));
	ASSERT_CONTAINS(text, "csv-report");
	ASSERT_CONTAINS(text, "cases: 3/3 passed");
	skit_free(text);
	skit_eval_report_free(r);
}

/* A copy of the csv case whose model activates the wrong skill and
 * whose answer lacks the row count. */
static void write_broken(void)
{
	char cmd[PATH_MAX * 2];

	put(at("cassettes/broken.jsonl"),
	    "{\"text\": \"\", \"tool_calls\": [{\"name\": \"use_skill\", "
	    "\"arguments\": {\"name\": \"code-review\"}}], \"stop_reason\": "
	    "\"tool_use\", \"usage\": {\"input_tokens\": 100, "
	    "\"output_tokens\": 5}}\n"
	    "{\"text\": \"The file looks fine.\", \"stop_reason\": "
	    "\"end_turn\", \"usage\": {\"input_tokens\": 200, "
	    "\"output_tokens\": 6}}\n");
	snprintf(cmd, sizeof(cmd),
	         "sed -e 's|cassettes/csv-report.jsonl|%s|' "
	         "-e 's|\\.\\./skills|%s|' '%s' > '%s'",
	         at("cassettes/broken.jsonl"), src("examples/skills"),
	         src("examples/evals/csv-report.yaml"), at("broken.yaml"));
	ASSERT_OK(system(cmd));
}

static void test_eval__broken_cassette(void)
{
	skit_eval_report *r;
	const skit_eval_case_result *c;
	skit_eval_summary sum;
	skit_error err = { 0 };
	char *junit = NULL, *json = NULL;
	json_t *j;
	bool missed = false, lacks = false, wrong = false, step = false;

	setup("broken");
	ASSERT_OK(mkdir(at("cassettes"), 0755));
	write_broken();
	{
		const char *paths[2] = { src("examples/evals"),
			                 at("broken.yaml") };

		r = run_suite(paths, 2, 2, "runs");
	}
	skit_eval_report_summary(r, &sum);
	ASSERT_EQ(sum.cases, 4);
	ASSERT_EQ(sum.cases_passed, 3);
	c = skit_eval_report_case(r, 3);
	ASSERT_STR(c->name, "broken");
	ASSERT(!c->passed);
	ASSERT(!c->steps_ok && !c->output_ok);
	for (size_t k = 0; k < c->reason_count; k++) {
		missed |= !!strstr(c->reasons[k],
		                   "skill 'csv-report' was not activated");
		wrong |= !!strstr(c->reasons[k],
		                  "skill 'code-review' was activated");
		lacks |= !!strstr(c->reasons[k], "output lacks '12 rows'");
		step |= !!strstr(c->reasons[k], "step 1 'use_skill:csv-report' "
		                                "not taken");
	}
	ASSERT(missed && wrong && lacks && step);
	for (size_t i = 0; i < skit_eval_report_skill_count(r); i++) {
		const skit_eval_skill_result *k = skit_eval_report_skill(r, i);

		if (!strcmp(k->name, "csv-report")) {
			ASSERT_EQ(k->tp, 1);
			ASSERT_EQ(k->fn, 1);
			ASSERT(k->recall == 0.5);
		}
		if (!strcmp(k->name, "code-review"))
			ASSERT_EQ(k->fp, 1);
	}

	ASSERT_OK(skit_eval_report_write(&junit, r, SKIT_EVAL_JUNIT, &err));
	ASSERT_CONTAINS(junit, "<testsuites tests=\"10\" failures=\"1\"");
	ASSERT_CONTAINS(junit, "name=\"skit-eval\" tests=\"4\" "
	                       "failures=\"1\"");
	ASSERT_CONTAINS(junit, "name=\"skit-eval-trigger\" tests=\"6\" "
	                       "failures=\"0\"");
	{
		size_t cases = 0, fails = 0;

		for (const char *q = junit; (q = strstr(q, "<testcase ")); q++)
			cases++;
		for (const char *q = junit; (q = strstr(q, "<failure ")); q++)
			fails++;
		ASSERT_EQ(cases, 10);
		ASSERT_EQ(fails, 1);
	}
	ASSERT_CONTAINS(junit, "output lacks '12 rows'");

	ASSERT_OK(skit_eval_report_write(&json, r, SKIT_EVAL_JSON, &err));
	j = json_loads(json, 0, NULL);
	ASSERT(j);
	ASSERT_EQ(json_integer_value(json_object_get(
	                  json_object_get(j, "summary"), "cases_passed")),
	          3);
	ASSERT_EQ(json_array_size(json_object_get(j, "cases")), 4);
	ASSERT(json_is_false(json_object_get(
	        json_array_get(json_object_get(j, "cases"), 3), "passed")));
	json_decref(j);
	skit_free(junit);
	skit_free(json);
	skit_eval_report_free(r);
}

/* Everything but wall times must agree between one job and two. */
static void test_eval__jobs_agree(void)
{
	const char *p = src("examples/evals");
	skit_eval_report *a, *b;
	skit_eval_summary sa, sb;

	setup("jobs");
	a = run_suite(&p, 1, 1, "runs1");
	b = run_suite(&p, 1, 2, "runs2");
	skit_eval_report_summary(a, &sa);
	skit_eval_report_summary(b, &sb);
	ASSERT_EQ(sa.cases_passed, sb.cases_passed);
	ASSERT_EQ(sa.trials_passed, sb.trials_passed);
	ASSERT_EQ(sa.input_tokens, sb.input_tokens);
	ASSERT_EQ(sa.tool_calls, sb.tool_calls);
	ASSERT_EQ(sa.script_runs, sb.script_runs);
	ASSERT_EQ(skit_eval_report_case_count(a),
	          skit_eval_report_case_count(b));
	for (size_t i = 0; i < skit_eval_report_case_count(a); i++) {
		const skit_eval_case_result *x = skit_eval_report_case(a, i);
		const skit_eval_case_result *y = skit_eval_report_case(b, i);

		ASSERT_STR(x->name, y->name);
		ASSERT_EQ(x->passed, y->passed);
		ASSERT_EQ(x->reason_count, y->reason_count);
		ASSERT_EQ(x->output_tokens, y->output_tokens);
	}
	ASSERT_EQ(skit_eval_report_skill_count(a),
	          skit_eval_report_skill_count(b));
	skit_eval_report_free(a);
	skit_eval_report_free(b);
}

TEST_MAIN(TEST(test_eval__load_errors) TEST(test_eval__folder_order)
                  TEST(test_eval__examples_pass)
                          TEST(test_eval__broken_cassette)
                                  TEST(test_eval__jobs_agree))
