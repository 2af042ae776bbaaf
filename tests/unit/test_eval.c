/* SPDX-License-Identifier: MIT */
/*
 * test_eval.c - evals through the library API: case files refused for
 * unknown keys, wrong types, a missing input and size; a case's files
 * kept inside its folder (at load and at the copy); a suite outside the
 * folders the user trusts refused; the examples/evals
 * suite passing offline with sane metrics; a broken cassette failing with
 * the right reasons; --jobs 2 agreeing with --jobs 1; the JSON and JUnit
 * reports. Trigger sets: their load errors, rates and metrics, the
 * held-out split, the side-effect-free policy of a trigger trial; and a
 * suite run with an OpenAI-compatible model served on 127.0.0.1. Shards
 * merged into the report of the whole suite; the shared rate limits (the
 * buckets on a driven clock, and a 429's pause holding back another
 * model).
 */
#include "common.h"

#include <math.h>

#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/eval.h"
#include "skit/model.h"
#include "skit/registry.h"
#include "lib/model/ratelimit.h"
#include "support/httpd.h"
#include "util/clock.h"

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

/* examples' sample.csv, copied into the test's folder. */
static void copy_sample(void)
{
	char cmd[PATH_MAX * 2 + 16];

	snprintf(cmd, sizeof(cmd), "cp '%s' '%s'",
	         src("examples/evals/data/sample.csv"), dir);
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
	ASSERT_EQ(load_text("k.yaml", "input: x\nname: ../../escape\n", &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "k.yaml:2: 'name' must be a file name");
	ASSERT_EQ(load_text("l.yaml", "input: x\nname: ..\n", &err),
	          SKIT_EINVALID);
	ASSERT_EQ(load_text("m.json",
	                    "{\"input\": \"x\", \"name\": \"a\\u001bb\"}",
	                    &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "control character");
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

/* `files` entry `entry` of a case in `dir` is refused at load, with a
 * message naming the case file, the line, the entry and `why`. */
static void refused_file(const char *name, const char *entry, const char *why)
{
	char text[PATH_MAX + 64], want[PATH_MAX + 256];
	skit_error err;

	snprintf(text, sizeof(text),
	         "input: Read it.\ncassette: answer.jsonl\nfiles:\n"
	         "  - data/in.csv\n  - %s\n",
	         entry);
	ASSERT_EQ(load_text(name, text, &err), SKIT_EINVALID);
	snprintf(want, sizeof(want), "%s:5: 'files': '%.60s' %s", at(name),
	         entry, why);
	ASSERT_CONTAINS(err.message, want);
}

/*
 * A case's files stay inside the case's folder (docs/evals.md, "What an
 * eval protects"): whatever leads out is refused at load, and the copy
 * opens each file beneath the folder again, so a folder swapped for a
 * link after loading is refused too and nothing of the secret reaches
 * the work folder.
 */
static void test_eval__files_contained(void)
{
	char secret[PATH_MAX / 2 + 16], path[PATH_MAX], cmd[PATH_MAX * 4];
	const skit_eval_case_result *c;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_error err = { 0 };
	const char *p;
	struct stat st;

	setup("files");
	/* A secret next to the case folder, and the case's own files. */
	snprintf(secret, sizeof(secret), "%s-secret", dir);
	snprintf(cmd, sizeof(cmd),
	         "rm -rf '%s' && mkdir -p '%s' '%s/data' '%s/sub2' && "
	         "echo SECRET-BYTES > '%s/in.csv'",
	         secret, secret, dir, dir, secret);
	ASSERT_OK(system(cmd));
	put(at("data/in.csv"), "a,b\n1,2\n");
	put(at("sub2/in.csv"), "c,d\n3,4\n");
	put(at("answer.jsonl"), "{\"text\": \"DONE\"}\n");
	snprintf(path, sizeof(path), "%s/in.csv", secret);

	refused_file("abs.yaml", path, "is an absolute path");
	refused_file("up.yaml", "../files-secret/in.csv",
	             "leaves the case folder ('..')");
	refused_file("up2.yaml", "data/../../files-secret/in.csv",
	             "leaves the case folder ('..')");
	ASSERT_OK(symlink(path, at("link.csv")));
	refused_file("link.yaml", "link.csv", "goes through a symbolic link");
	ASSERT_OK(symlink(secret, at("sub")));
	refused_file("dirlink.yaml", "sub/in.csv",
	             "goes through a symbolic link");
	/* A link that points inside is refused too: no link is followed. */
	ASSERT_OK(symlink("data/in.csv", at("alias.csv")));
	refused_file("inlink.yaml", "alias.csv",
	             "goes through a symbolic link");
	ASSERT_OK(link(path, at("hard.csv")));
	refused_file("hard.yaml", "hard.csv", "has other hard links");
	refused_file("dir.yaml", "data", "is not a regular file");
	refused_file("none.yaml", "nope.csv", "does not exist");

	/* Loaded while sub2 is a folder; then sub2 becomes a link to the
	 * secret's folder: the copy refuses it. */
	put(at("swap.yaml"), "input: Read it.\ncassette: answer.jsonl\n"
	                     "files:\n  - data/in.csv\n  - sub2/in.csv\n");
	p = at("swap.yaml");
	ASSERT_OK(skit_eval_suite_load(&s, &p, 1, &err));
	snprintf(cmd, sizeof(cmd), "mv '%s' '%s'", at("sub2"), at("sub2-old"));
	ASSERT_OK(system(cmd));
	ASSERT_OK(symlink(secret, at("sub2")));
	o.runs_dir = at("runs");
	ASSERT_OK(skit_eval_run(&r, s, &o, &err));
	c = skit_eval_report_case(r, 0);
	ASSERT(!c->passed);
	ASSERT_EQ(c->reason_count, 1);
	ASSERT_CONTAINS(c->reasons[0],
	                "'files': 'sub2/in.csv' goes through a symbolic link");
	snprintf(cmd, sizeof(cmd), "! grep -r -q SECRET-BYTES '%s'",
	         at("runs"));
	ASSERT_OK(system(cmd));
	/* Nothing was written into the case folder or the secret's. */
	ASSERT(stat(at("in.csv"), &st) < 0);
	skit_eval_report_free(r);
	skit_eval_suite_free(s);
}

/*
 * Folder trust (docs/evals.md): with `honour_trust` (as `skit eval`
 * runs), a suite whose case files are not in a folder the user trusts
 * does not run, and the library names the folder to trust: the case
 * file's project.
 */
static void test_eval__untrusted_refused(void)
{
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_error err = { 0 };
	char *want = NULL, xdg[PATH_MAX];
	const char *p;
	struct stat st;

	setup("untrusted");
	/* A user config that trusts nothing; the project is `dir`. */
	snprintf(xdg, sizeof(xdg), "%s/xdg-none", dir);
	setenv("XDG_CONFIG_HOME", xdg, 1);
	ASSERT_OK(mkdir(at(".git"), 0755));
	ASSERT_OK(mkdir(at("evals"), 0755));
	put(at("evals/answer.jsonl"), "{\"text\": \"DONE\"}\n");
	put(at("evals/a.yaml"), "input: Hi.\ncassette: answer.jsonl\n");
	p = at("evals");
	ASSERT_OK(skit_eval_suite_load(&s, &p, 1, &err));
	ASSERT_OK(skit_eval_suite_untrusted(&want, s, &err));
	ASSERT(want);
	ASSERT_STR(want, dir);
	skit_free(want);

	o.runs_dir = at("runs");
	o.honour_trust = true;
	ASSERT_EQ(skit_eval_run(&r, s, &o, &err), SKIT_EDENIED);
	ASSERT(!r);
	ASSERT_CONTAINS(err.message, dir);
	ASSERT_CONTAINS(err.message, "is not a trusted folder");
	ASSERT(stat(at("runs"), &st) < 0); /* nothing ran */

	/* A caller that vouches for its files. */
	o.honour_trust = false;
	ASSERT_OK(skit_eval_run(&r, s, &o, &err));
	ASSERT(skit_eval_report_case(r, 0)->passed);
	skit_eval_report_free(r);

	/* Trusted: the check passes. */
	o.honour_trust = true;
	ASSERT_OK(skit_trust_add(dir, &err));
	ASSERT_OK(skit_eval_suite_untrusted(&want, s, &err));
	ASSERT(!want);
	ASSERT_OK(skit_eval_run(&r, s, &o, &err));
	ASSERT(skit_eval_report_case(r, 0)->passed);
	skit_eval_report_free(r);
	skit_eval_suite_free(s);
	unsetenv("XDG_CONFIG_HOME");
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

/* The work folder a run recorded in its run_start event. */
static const char *workdir_of(const char *run_dir)
{
	static char out[4][PATH_MAX];
	static int next;
	char path[PATH_MAX], *b = out[next++ % 4];
	json_t *ev;
	FILE *f;
	char line[8192];

	snprintf(path, sizeof(path), "%s/events.jsonl", run_dir);
	f = fopen(path, "r");
	ASSERT(f);
	ASSERT(fgets(line, sizeof(line), f));
	fclose(f);
	ev = json_loads(line, 0, NULL);
	ASSERT(ev);
	ASSERT_STR(json_string_value(json_object_get(ev, "type")), "run_start");
	snprintf(b, PATH_MAX, "%s",
	         json_string_value(json_object_get(ev, "workdir")));
	json_decref(ev);
	return b;
}

/* Lines of a run's events.jsonl that contain `text`. */
static size_t count_events(const char *run_dir, const char *text)
{
	char path[PATH_MAX], line[65536];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events.jsonl", run_dir);
	f = fopen(path, "r");
	ASSERT(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
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
		/* The case's file is in the trial's own folder, next to the
		 * run folder, and not in the case folder. */
		snprintf(ev, sizeof(ev), "%s/sample.csv",
		         workdir_of(c->run_dirs[0]));
		ASSERT_OK(stat(ev, &st));
		ASSERT_CONTAINS(workdir_of(c->run_dirs[0]),
		                "/csv-report/work-");
		ASSERT(stat(src("examples/evals/sample.csv"), &st) < 0);
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
		/* A skill never expected nor triggered has no data: NAN,
		 * shown as an en dash, never as a perfect 1.00. */
		if (k->tp)
			ASSERT(k->precision == 1.0 && k->recall == 1.0);
		else
			ASSERT(isnan(k->precision) && isnan(k->recall) &&
			       isnan(k->f1));
		if (!strcmp(k->name, "code-review"))
			ASSERT_EQ(k->tp, 2);
	}
	ASSERT_OK(skit_eval_report_write(&text, r, SKIT_EVAL_TEXT, &err));
	ASSERT_CONTAINS(text, "csv-report");
	ASSERT_CONTAINS(text, "cases: 3/3 passed");
	ASSERT_CONTAINS(text, "\u2013");
	ASSERT(!strstr(text, "nan"));
	skit_free(text);
	ASSERT_OK(skit_eval_report_write(&text, r, SKIT_EVAL_JSON, &err));
	ASSERT_CONTAINS(text, "\"precision\": null");
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
	         "-e 's|\\.\\./skills|%s|' '%s' > '%s' && cp -R '%s' '%s'",
	         at("cassettes/broken.jsonl"), src("examples/skills"),
	         src("examples/evals/csv-report.yaml"), at("broken.yaml"),
	         src("examples/evals/data"), dir);
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

/* ---- trigger sets ------------------------------------------------------ */

static void test_eval__trigger_load_errors(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "skills: /tmp\nqueries:\n  - query: a\n    should_trigger: "
		  "true\n",
		  "missing 'skill'" },
		{ "skill: s\nqueries:\n  - query: a\n    should_trigger: true\n",
		  "missing 'skills'" },
		{ "skill: s\nskills: /tmp\nqueries:\n  - query: a\n    "
		  "should_trigger: maybe\n",
		  "t.yaml:5: 'should_trigger' must be true or false" },
		{ "skill: s\nskills: /tmp\nqueries:\n  - query: a\n",
		  "missing 'should_trigger'" },
		{ "skill: s\nskills: /tmp\nqueries:\n  - query: ''\n    "
		  "should_trigger: true\n",
		  "'query' is empty" },
		{ "skill: s\nskills: /tmp\nqueries:\n  - query: a\n    "
		  "should_trigger: true\n    expected: x\n",
		  "t.yaml:6: unknown key 'expected'" },
		{ "skill: s\nskills: /tmp\nqueries: none\n",
		  "'queries' must be a non-empty list" },
		{ "skill: s\nskills: /tmp\nholdout: 1\nqueries:\n  - query: a\n"
		  "    should_trigger: true\n",
		  "'holdout' must be a number from 0 to under 1" },
		{ "skill: s\nskills: /tmp\nthreshold: 0\nqueries:\n  - query: "
		  "a\n    should_trigger: true\n",
		  "'threshold' must be above 0" },
		{ "skill: s\nskills: /tmp\nmax_turns: 0\nqueries:\n  - query: "
		  "a\n    should_trigger: true\n",
		  "'max_turns' must be at least 1" },
		{ "skill: s\nskills: /tmp\nmax_turns: 26\nqueries:\n  - query: "
		  "a\n    should_trigger: true\n",
		  "'max_turns' must be at most 25" },
		{ "name: a/b\nskill: s\nskills: /tmp\nqueries:\n  - query: a\n"
		  "    should_trigger: true\n",
		  "t.yaml:1: 'name' must be a file name" },
		{ "skill: s\nskills: /tmp\ninput: x\nqueries:\n  - query: a\n  "
		  "  should_trigger: true\n",
		  "t.yaml:3: unknown key 'input'" },
	};
	skit_error err;

	setup("trigger-load");
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(bad); i++) {
		ASSERT_EQ(load_text("t.yaml", bad[i].text, &err),
		          SKIT_EINVALID);
		ASSERT_CONTAINS(err.message, bad[i].want);
	}
	ASSERT_OK(load_text("t.yaml",
	                    "skill: s\nskills: /tmp\nholdout: 0.5\nseed: "
	                    "abc\nqueries:\n  - query: a\n    should_trigger: "
	                    "true\n",
	                    &err));
	/* 101 queries of 1000 trials: over the 100000 trials of a suite. */
	{
		static char big[16384];
		size_t len = (size_t)snprintf(
		        big, sizeof(big),
		        "skill: s\nskills: /tmp\ntrials: 1000\nqueries:\n");

		for (int i = 0; i < 101; i++)
			len += (size_t)snprintf(big + len, sizeof(big) - len,
			                        "  - query: q%d\n    "
			                        "should_trigger: true\n",
			                        i);
		ASSERT_EQ(load_text("many.yaml", big, &err), SKIT_ETOOBIG);
		ASSERT_CONTAINS(err.message, "over 100000 trials");
	}
	/* JSON booleans are booleans. */
	ASSERT_OK(load_text("t.json",
	                    "{\"skill\": \"s\", \"skills\": \"/tmp\", "
	                    "\"queries\": [{\"query\": \"a\", "
	                    "\"should_trigger\": false}]}",
	                    &err));
}

/* Write cassette `name` with the given lines. */
static void cassette(const char *name, const char *lines)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	put(path, lines);
}

#define USE_SKILL(name)                                                 \
 "{\"text\": \"\", \"tool_calls\": [{\"name\": \"use_skill\", "         \
 "\"arguments\": {\"name\": \"" name "\"}}], \"stop_reason\": "         \
 "\"tool_use\", \"usage\": {\"input_tokens\": 100, \"output_tokens\": " \
 "5}}\n"
#define ANSWER                                                      \
 "{\"text\": \"Done.\", \"stop_reason\": \"end_turn\", \"usage\": " \
 "{\"input_tokens\": 50, \"output_tokens\": 3}}\n"

static const skit_eval_query_result *query_named(const skit_eval_report *r,
                                                 const char *name)
{
	for (size_t i = 0; i < skit_eval_report_query_count(r); i++)
		if (!strcmp(skit_eval_report_query(r, i)->name, name))
			return skit_eval_report_query(r, i);
	HARNESS_FAIL("no query %s", name);
	return NULL;
}

static bool has_reason(const skit_eval_query_result *q, const char *text)
{
	for (size_t k = 0; k < q->reason_count; k++)
		if (strstr(q->reasons[k], text))
			return true;
	return false;
}

static void test_eval__trigger_rates(void)
{
	const skit_eval_query_result *q;
	const skit_eval_trigger_result *t;
	skit_eval_report *r;
	skit_eval_summary sum;
	const char *path;
	char text[4096], ev[PATH_MAX];
	char *json = NULL, *xml = NULL;
	skit_error err = { 0 };
	struct stat st;
	json_t *j;

	setup("trigger-rates");
	cassette("yes.jsonl", USE_SKILL("csv-report"));
	cassette("no.jsonl", ANSWER);
	cassette("other.jsonl", USE_SKILL("pdf-text") ANSWER);
	/* A write and a shell call first: a trigger trial refuses both. */
	cassette("writes.jsonl",
	         "{\"text\": \"\", \"tool_calls\": [{\"name\": "
	         "\"write_file\", \"arguments\": {\"path\": \"out.txt\", "
	         "\"content\": \"x\"}}, {\"name\": \"shell\", \"arguments\": "
	         "{\"command\": \"touch shell-ran\"}}], \"stop_reason\": "
	         "\"tool_use\", \"usage\": {\"input_tokens\": 10, "
	         "\"output_tokens\": 2}}\n" ANSWER);
	snprintf(text, sizeof(text),
	         "skill: csv-report\n"
	         "skills:\n  - %s\n"
	         "cassette: no.jsonl\n"
	         "trials: 3\n"
	         "queries:\n"
	         "  - query: profile sales.csv\n    should_trigger: true\n"
	         "    cassette: yes.jsonl\n"
	         "  - query: what does report.pdf say\n    should_trigger: "
	         "true\n    cassette: other.jsonl\n"
	         "  - query: a poem please\n    should_trigger: false\n"
	         "  - query: summarise this\n    should_trigger: false\n"
	         "    cassette: yes.jsonl\n"
	         "  - query: write and run things\n    should_trigger: "
	         "false\n    cassette: writes.jsonl\n",
	         src("examples/skills"));
	put(at("set.yaml"), text);
	/* A set for a skill none of its roots has. */
	snprintf(text, sizeof(text),
	         "skill: no-such-skill\nskills: %s\ncassette: yes.jsonl\n"
	         "queries:\n  - query: x\n    should_trigger: true\n",
	         src("examples/skills"));
	put(at("typo.yaml"), text);
	path = at("set.yaml");
	r = run_suite(&path, 1, 2, "runs");
	skit_eval_report_summary(r, &sum);
	ASSERT_EQ(sum.cases, 0);
	ASSERT_EQ(sum.queries, 5);
	ASSERT_EQ(sum.queries_passed, 3);
	ASSERT(sum.pass_rate == 3.0 / 5.0);
	ASSERT_EQ(sum.trials, 15);

	q = query_named(r, "set#1");
	ASSERT(q->passed && q->should_trigger);
	ASSERT_EQ(q->triggered, 3);
	ASSERT(q->rate == 1.0);
	ASSERT_EQ(q->reason_count, 0);
	/* The trial stopped at the activation: one model call each. */
	ASSERT_EQ(q->input_tokens, 300);

	q = query_named(r, "set#2");
	ASSERT(!q->passed);
	ASSERT_EQ(q->triggered, 0);
	ASSERT(has_reason(q, "triggered in 0 of 3 trials (0.00); needs at "
	                     "least 0.50"));
	ASSERT(has_reason(q, "other skills activated: pdf-text"));

	q = query_named(r, "set#3");
	ASSERT(q->passed && !q->should_trigger);

	q = query_named(r, "set#4");
	ASSERT(!q->passed);
	ASSERT_EQ(q->triggered, 3);
	ASSERT(has_reason(q, "must stay under 0.50"));

	q = query_named(r, "set#5");
	ASSERT(q->passed);
	ASSERT_EQ(q->run_dir_count, 3);
	for (size_t k = 0; k < q->run_dir_count; k++) {
		const char *w = workdir_of(q->run_dirs[k]);

		snprintf(ev, sizeof(ev), "%s/out.txt", w);
		ASSERT(stat(ev, &st) < 0);
		snprintf(ev, sizeof(ev), "%s/shell-ran", w);
		ASSERT(stat(ev, &st) < 0);
		/* Offered as in an interactive session, and declined. */
		ASSERT_EQ(
		        count_events(q->run_dirs[k], "\"type\":\"tool_call\""),
		        2);
		ASSERT_EQ(count_events(q->run_dirs[k], "declined"), 2);
	}
	ASSERT(stat(at("out.txt"), &st) < 0);
	ASSERT(stat(at("shell-ran"), &st) < 0);

	ASSERT_EQ(skit_eval_report_trigger_count(r), 1);
	t = skit_eval_report_trigger(r, 0);
	ASSERT_STR(t->skill, "csv-report");
	ASSERT_STR(t->split, "all");
	ASSERT_EQ(t->should, 2);
	ASSERT_EQ(t->should_not, 3);
	ASSERT_EQ(t->tp, 3);
	ASSERT_EQ(t->fn, 3);
	ASSERT_EQ(t->fp, 3);
	ASSERT_EQ(t->tn, 6);
	ASSERT(t->trigger_rate == 0.5);
	ASSERT(t->false_trigger_rate == 3.0 / 9.0);
	ASSERT(t->precision == 0.5);
	ASSERT(t->f1 == 0.5);
	ASSERT(t->accuracy == 3.0 / 5.0);

	ASSERT_OK(skit_eval_report_write(&json, r, SKIT_EVAL_JSON, &err));
	j = json_loads(json, 0, NULL);
	ASSERT(j);
	ASSERT_EQ(json_array_size(json_object_get(j, "queries")), 5);
	ASSERT_EQ(json_integer_value(json_object_get(
	                  json_object_get(j, "summary"), "queries_passed")),
	          3);
	ASSERT(json_real_value(json_object_get(
	               json_array_get(json_object_get(j, "triggers"), 0),
	               "trigger_rate")) == 0.5);
	json_decref(j);
	ASSERT_OK(skit_eval_report_write(&xml, r, SKIT_EVAL_JUNIT, &err));
	ASSERT_CONTAINS(xml, "name=\"skit-eval-trigger\" tests=\"5\" "
	                     "failures=\"2\"");
	ASSERT_CONTAINS(xml, "set#2 (should trigger csv-report): what does "
	                     "report.pdf say");
	ASSERT(!strstr(xml, "name=\"skit-eval\" "));
	skit_free(json);
	skit_free(xml);
	skit_eval_report_free(r);

	/* A skill the roots lack fails every trial, saying so. */
	path = at("typo.yaml");
	r = run_suite(&path, 1, 1, "runs-typo");
	q = skit_eval_report_query(r, 0);
	ASSERT(!q->passed);
	ASSERT(has_reason(q, "skill 'no-such-skill' is not among the loaded "
	                     "skills"));
	skit_eval_report_free(r);
}

/* Which queries of `r` are held out, as a string of 0 and 1 by query
 * text order ("q00".."q19"). */
static void held_pattern(const skit_eval_report *r, char out[21])
{
	memset(out, '?', 20);
	out[20] = '\0';
	for (size_t i = 0; i < skit_eval_report_query_count(r); i++) {
		const skit_eval_query_result *q = skit_eval_report_query(r, i);
		long n = strtol(q->query + 1, NULL, 10);

		ASSERT(n >= 0 && n < 20);
		out[n] = q->held_out ? '1' : '0';
	}
}

static size_t count_held(const char *pattern)
{
	size_t n = 0;

	for (; *pattern; pattern++)
		n += *pattern == '1';
	return n;
}

static void write_split_set(const char *name, const char *seed, bool reverse)
{
	static char b[8192];
	size_t len;

	len = (size_t)snprintf(b, sizeof(b),
	                       "skill: csv-report\nskills: %s\ncassette: "
	                       "no.jsonl\nholdout: 0.3\nseed: %s\nqueries:\n",
	                       src("examples/skills"), seed);
	for (int k = 0; k < 20; k++) {
		int i = reverse ? 19 - k : k;

		len += (size_t)snprintf(b + len, sizeof(b) - len,
		                        "  - query: q%02d\n    should_trigger: "
		                        "%s\n",
		                        i, i % 2 ? "true" : "false");
	}
	put(at(name), b);
}

static skit_eval_report *run_with_holdout(const char *name, double holdout,
                                          const char *runs)
{
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_error err = { 0 };
	const char *p = at(name);

	ASSERT_OK(skit_eval_suite_load(&s, &p, 1, &err));
	o.runs_dir = at(runs);
	o.holdout = holdout;
	if (skit_eval_run(&r, s, &o, &err))
		HARNESS_FAIL("run: %s", err.message);
	skit_eval_suite_free(s);
	return r;
}

static void test_eval__trigger_split(void)
{
	skit_eval_report *r;
	char a[21], b[21], c[21], d[21];
	size_t held_yes = 0, held_no = 0;
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_error err = { 0 };
	const char *p;

	setup("trigger-split");
	cassette("no.jsonl", ANSWER);
	write_split_set("a.yaml", "7", false);
	write_split_set("b.yaml", "7", true);
	write_split_set("c.yaml", "8", false);

	r = run_with_holdout("a.yaml", -1.0, "ra");
	held_pattern(r, a);
	for (int i = 0; i < 20; i++) {
		held_yes += i % 2 && a[i] == '1';
		held_no += !(i % 2) && a[i] == '1';
	}
	/* Stratified: round(0.3 * 10) of each kind. */
	ASSERT_EQ(held_yes, 3);
	ASSERT_EQ(held_no, 3);
	ASSERT_EQ(skit_eval_report_trigger_count(r), 3);
	ASSERT_EQ(skit_eval_report_trigger(r, 1)->queries, 14);
	ASSERT_EQ(skit_eval_report_trigger(r, 2)->queries, 6);
	skit_eval_report_free(r);

	/* The same seed picks the same queries whatever their order. */
	r = run_with_holdout("b.yaml", -1.0, "rb");
	held_pattern(r, b);
	ASSERT_STR(a, b);
	skit_eval_report_free(r);
	/* Another seed, another split of the same size. */
	r = run_with_holdout("c.yaml", -1.0, "rc");
	held_pattern(r, c);
	ASSERT(strcmp(a, c) != 0);
	ASSERT_EQ(count_held(c), 6);
	skit_eval_report_free(r);

	/* The option overrides the sets' holdout. */
	r = run_with_holdout("a.yaml", 0.0, "rd");
	held_pattern(r, d);
	ASSERT_STR(d, "00000000000000000000");
	ASSERT_EQ(skit_eval_report_trigger_count(r), 1);
	skit_eval_report_free(r);
	r = run_with_holdout("a.yaml", 0.5, "re");
	ASSERT_EQ(skit_eval_report_trigger(r, 2)->queries, 10);
	skit_eval_report_free(r);

	/* A holdout of 1 or more is refused. */
	p = at("a.yaml");
	ASSERT_OK(skit_eval_suite_load(&s, &p, 1, &err));
	o.runs_dir = at("rf");
	o.holdout = 1.0;
	ASSERT_EQ(skit_eval_run(&r, s, &o, &err), SKIT_EUSAGE);
	ASSERT_CONTAINS(err.message, "holdout");
	skit_eval_suite_free(s);
}

/* Query text reaches a terminal: controls and bidi overrides are hidden
 * in the text report, escaped in XML, and kept in JSON. */
static void test_eval__report_hides_controls(void)
{
	skit_eval_report *r;
	char text[1024], *out = NULL;
	skit_error err = { 0 };
	const char *path;

	setup("controls");
	cassette("no.jsonl", ANSWER);
	snprintf(text, sizeof(text),
	         "skill: csv-report\nskills: %s\ncassette: no.jsonl\nqueries:\n"
	         "  - query: \"a\\u202Eb\\u009Bc\\u0007d\"\n"
	         "    should_trigger: false\n",
	         src("examples/skills"));
	put(at("set.yaml"), text);
	path = at("set.yaml");
	r = run_suite(&path, 1, 1, "runs");
	ASSERT_STR(skit_eval_report_query(r, 0)->query, "a\xE2\x80\xAE"
	                                                "b\xC2\x9B"
	                                                "c\x07"
	                                                "d");
	ASSERT_OK(skit_eval_report_write(&out, r, SKIT_EVAL_TEXT, &err));
	ASSERT_CONTAINS(out, "a?b?c?d");
	ASSERT(!strstr(out, "\xE2\x80\xAE") && !strstr(out, "\xC2\x9B") &&
	       !strchr(out, '\x07'));
	skit_free(out);
	ASSERT_OK(skit_eval_report_write(&out, r, SKIT_EVAL_JUNIT, &err));
	ASSERT(!strchr(out, '\x07'));
	skit_free(out);
	ASSERT_OK(skit_eval_report_write(&out, r, SKIT_EVAL_JSON, &err));
	ASSERT_CONTAINS(out, "\\u0007");
	skit_free(out);
	skit_eval_report_free(r);
}

/* ---- a real provider --------------------------------------------------- */

static void push_openai(struct httpd *h, const char *message, int in, int out)
{
	char body[2048];

	snprintf(body, sizeof(body),
	         "{\"id\": \"x\", \"choices\": [{\"index\": 0, \"message\": "
	         "%s, \"finish_reason\": \"stop\"}], \"usage\": "
	         "{\"prompt_tokens\": %d, \"completion_tokens\": %d}}",
	         message, in, out);
	httpd_push_json(h, 200, body);
}

#define OPENAI_CALL(name, args)                                        \
 "{\"role\": \"assistant\", \"content\": null, \"tool_calls\": "       \
 "[{\"id\": \"c1\", \"type\": \"function\", \"function\": {\"name\": " \
 "\"" name "\", \"arguments\": \"" args "\"}}]}"
#define OPENAI_TEXT(text) "{\"role\": \"assistant\", \"content\": \"" text "\"}"

static void test_eval__openai_model(void)
{
	const skit_eval_case_result *c;
	const skit_eval_query_result *q;
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_eval_summary sum;
	skit_error err = { 0 };
	struct httpd *h;
	char text[4096], url[256];
	const char *paths[2];
	size_t nreq;

	alarm(120);
	setup("openai");
	snprintf(text, sizeof(text),
	         "input: What is in sample.csv?\n"
	         "skills: %s\nfiles: sample.csv\n"
	         "expected:\n  skills: csv-report\n  steps:\n"
	         "    - use_skill:csv-report\n"
	         "    - run_skill_script:csv-report/scripts/report.py\n"
	         "  output:\n    contains: 12 rows\n",
	         src("examples/skills"));
	put(at("a-case.yaml"), text);
	copy_sample();
	snprintf(text, sizeof(text),
	         "skill: csv-report\nskills: %s\ntrials: 2\nqueries:\n"
	         "  - query: Profile sales.csv for me\n    should_trigger: "
	         "true\n"
	         "  - query: Tell me a joke\n    should_trigger: false\n",
	         src("examples/skills"));
	put(at("b-set.yaml"), text);

	ASSERT_OK(httpd_start(&h));
	snprintf(url, sizeof(url), "%s/v1", httpd_url(h));
	setenv("OPENAI_BASE_URL", url, 1);
	setenv("OPENAI_API_KEY", "sk-eval-test", 1);
	/* The case: activate, run the script, answer. */
	push_openai(
	        h,
	        OPENAI_CALL("use_skill", "{\\\"name\\\": \\\"csv-report\\\"}"),
	        1000, 10);
	push_openai(h,
	            OPENAI_CALL("run_skill_script",
	                        "{\\\"skill\\\": \\\"csv-report\\\", "
	                        "\\\"path\\\": \\\"scripts/report.py\\\", "
	                        "\\\"args\\\": [\\\"sample.csv\\\"]}"),
	            2000, 20);
	push_openai(h, OPENAI_TEXT("sample.csv has 12 rows and 5 columns."),
	            3000, 30);
	/* Query 1: triggers in trial 1, not in trial 2. */
	push_openai(
	        h,
	        OPENAI_CALL("use_skill", "{\\\"name\\\": \\\"csv-report\\\"}"),
	        100, 1);
	push_openai(h, OPENAI_TEXT("Send me the file."), 100, 1);
	/* Query 2: not in trial 1, wrongly in trial 2. */
	push_openai(h, OPENAI_TEXT("Why did the CSV cross the road?"), 100, 1);
	push_openai(
	        h,
	        OPENAI_CALL("use_skill", "{\\\"name\\\": \\\"csv-report\\\"}"),
	        100, 1);

	paths[0] = at("a-case.yaml");
	paths[1] = at("b-set.yaml");
	ASSERT_OK(skit_eval_suite_load(&s, paths, 2, &err));
	o.model = "openai:gpt-test";
	o.runs_dir = at("runs");
	o.script_timeout_ms = 20000;
	if (skit_eval_run(&r, s, &o, &err))
		HARNESS_FAIL("run: %s", err.message);
	dump_failures(r);

	nreq = httpd_request_count(h);
	ASSERT_EQ(nreq, 7);
	for (size_t i = 0; i < nreq; i++) {
		const httpd_request *req = httpd_request_at(h, i);
		char auth[128];

		ASSERT_STR(req->method, "POST");
		ASSERT_STR(req->path, "/v1/chat/completions");
		ASSERT_CONTAINS(req->body, "\"model\":\"gpt-test\"");
		ASSERT_STR(
		        httpd_header(req, "authorization", auth, sizeof(auth)),
		        "Bearer sk-eval-test");
	}
	ASSERT_CONTAINS(httpd_request_at(h, 2)->body, "Rows: 12");
	ASSERT_CONTAINS(httpd_request_at(h, 3)->body, "Profile sales.csv");
	ASSERT_CONTAINS(httpd_request_at(h, 6)->body, "Tell me a joke");

	skit_eval_report_summary(r, &sum);
	c = skit_eval_report_case(r, 0);
	ASSERT(c->passed);
	ASSERT(c->steps_ok && c->output_ok);
	ASSERT_EQ(c->script_runs, 1);
	ASSERT_EQ(c->input_tokens, 6000);
	ASSERT_EQ(c->output_tokens, 60);
	q = query_named(r, "b-set#1");
	ASSERT_EQ(q->triggered, 1);
	ASSERT(q->rate == 0.5);
	ASSERT(q->passed);
	q = query_named(r, "b-set#2");
	ASSERT_EQ(q->triggered, 1);
	ASSERT(!q->passed);
	ASSERT(has_reason(q, "triggered in 1 of 2 trials (0.50); must stay "
	                     "under 0.50"));
	ASSERT_EQ(sum.input_tokens, 6000 + 400);
	ASSERT_EQ(sum.cases_passed, 1);
	ASSERT_EQ(sum.queries_passed, 1);
	ASSERT(sum.pass_rate == 2.0 / 3.0);

	skit_eval_report_free(r);
	skit_eval_suite_free(s);
	httpd_stop(h);
	unsetenv("OPENAI_BASE_URL");
	unsetenv("OPENAI_API_KEY");
	alarm(0);
}

/* The same trigger set through the Anthropic provider. */
static void test_eval__anthropic_model(void)
{
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_eval_summary sum;
	skit_error err = { 0 };
	struct httpd *h;
	char text[2048], key[128];
	const char *path;

	alarm(60);
	setup("anthropic");
	snprintf(text, sizeof(text),
	         "skill: pdf-text\nskills: %s\nqueries:\n"
	         "  - query: What does report.pdf say?\n    should_trigger: "
	         "true\n"
	         "  - query: Profile sales.csv\n    should_trigger: false\n",
	         src("examples/skills"));
	put(at("set.yaml"), text);
	ASSERT_OK(httpd_start(&h));
	setenv("ANTHROPIC_BASE_URL", httpd_url(h), 1);
	setenv("ANTHROPIC_API_KEY", "sk-ant-eval", 1);
	httpd_push_json(h, 200,
	                "{\"content\": [{\"type\": \"tool_use\", \"id\": "
	                "\"toolu_1\", \"name\": \"use_skill\", \"input\": "
	                "{\"name\": \"pdf-text\"}}], \"stop_reason\": "
	                "\"tool_use\", \"usage\": {\"input_tokens\": 70, "
	                "\"output_tokens\": 7}}");
	/* Query 2 activates another skill, then answers. */
	httpd_push_json(h, 200,
	                "{\"content\": [{\"type\": \"tool_use\", \"id\": "
	                "\"toolu_2\", \"name\": \"use_skill\", \"input\": "
	                "{\"name\": \"csv-report\"}}], \"stop_reason\": "
	                "\"tool_use\", \"usage\": {\"input_tokens\": 80, "
	                "\"output_tokens\": 8}}");
	httpd_push_json(h, 200,
	                "{\"content\": [{\"type\": \"text\", \"text\": \"Send "
	                "the file.\"}], \"stop_reason\": \"end_turn\", "
	                "\"usage\": {\"input_tokens\": 90, \"output_tokens\": "
	                "9}}");
	path = at("set.yaml");
	ASSERT_OK(skit_eval_suite_load(&s, &path, 1, &err));
	o.model = "anthropic:claude-test";
	o.runs_dir = at("runs");
	if (skit_eval_run(&r, s, &o, &err))
		HARNESS_FAIL("run: %s", err.message);
	dump_failures(r);
	ASSERT_EQ(httpd_request_count(h), 3);
	ASSERT_STR(httpd_request_at(h, 0)->path, "/v1/messages");
	ASSERT_STR(httpd_header(httpd_request_at(h, 0), "x-api-key", key,
	                        sizeof(key)),
	           "sk-ant-eval");
	ASSERT_CONTAINS(httpd_request_at(h, 0)->body, "claude-test");
	skit_eval_report_summary(r, &sum);
	ASSERT_EQ(sum.queries_passed, 2);
	ASSERT_EQ(sum.input_tokens, 70 + 80 + 90);
	ASSERT_EQ(skit_eval_report_query(r, 0)->triggered, 1);
	ASSERT_EQ(skit_eval_report_query(r, 1)->triggered, 0);
	skit_eval_report_free(r);
	skit_eval_suite_free(s);
	httpd_stop(h);
	unsetenv("ANTHROPIC_BASE_URL");
	unsetenv("ANTHROPIC_API_KEY");
	alarm(0);
}

/* ---- shards ------------------------------------------------------------ */

static skit_eval_report *run_shard(unsigned int i, unsigned int n,
                                   const char *runs, const char *json)
{
	skit_eval_options o = SKIT_EVAL_OPTIONS_INIT;
	skit_eval_suite *s = NULL;
	skit_eval_report *r = NULL;
	skit_error err = { 0 };
	const char *path = src("examples/evals");
	char *text = NULL;

	ASSERT_OK(skit_eval_suite_load(&s, &path, 1, &err));
	o.runs_dir = at(runs);
	o.script_timeout_ms = 20000;
	o.shard_index = i;
	o.shard_count = n;
	if (skit_eval_run(&r, s, &o, &err))
		HARNESS_FAIL("run: %s", err.message);
	skit_eval_suite_free(s);
	if (json) {
		ASSERT_OK(
		        skit_eval_report_write(&text, r, SKIT_EVAL_JSON, &err));
		put(at(json), text);
		skit_free(text);
	}
	return r;
}

static void test_eval__shard_merge(void)
{
	skit_eval_report *full, *part, *merged = NULL;
	skit_eval_summary a, b, p;
	skit_error err = { 0 };
	const char *paths[3];
	size_t entries = 0;

	alarm(300);
	setup("shard");
	full = run_shard(0, 0, "runs-full", NULL);
	for (unsigned int i = 1; i <= 3; i++) {
		char runs[32], json[32];

		snprintf(runs, sizeof(runs), "runs-%u", i);
		snprintf(json, sizeof(json), "shard-%u.json", i);
		part = run_shard(i, 3, runs, json);
		skit_eval_report_summary(part, &p);
		ASSERT_EQ(p.shard_index, i);
		ASSERT_EQ(p.shard_count, 3);
		entries += p.cases + p.queries;
		skit_eval_report_free(part);
	}
	paths[0] = at("shard-2.json");
	paths[1] = at("shard-3.json");
	paths[2] = at("shard-1.json");
	if (skit_eval_report_merge(&merged, paths, 3, &err))
		HARNESS_FAIL("merge: %s", err.message);
	skit_eval_report_summary(full, &a);
	skit_eval_report_summary(merged, &b);
	ASSERT_EQ(entries, a.cases + a.queries); /* each entry once */
	ASSERT_EQ(b.shards_merged, 3);
	ASSERT_EQ(b.shard_count, 0);
	ASSERT_EQ(b.cases, a.cases);
	ASSERT_EQ(b.cases_passed, a.cases_passed);
	ASSERT_EQ(b.queries, a.queries);
	ASSERT_EQ(b.queries_passed, a.queries_passed);
	ASSERT_EQ(b.trials, a.trials);
	ASSERT_EQ(b.trials_passed, a.trials_passed);
	ASSERT_EQ(b.step_checked, a.step_checked);
	ASSERT_EQ(b.output_passed, a.output_passed);
	ASSERT_EQ(b.input_tokens, a.input_tokens);
	ASSERT_EQ(b.output_tokens, a.output_tokens);
	ASSERT_EQ(b.tool_calls, a.tool_calls);
	ASSERT_EQ(b.script_runs, a.script_runs);
	ASSERT(b.pass_rate == a.pass_rate);
	ASSERT(b.median_input_tokens == a.median_input_tokens);
	ASSERT(b.median_output_tokens == a.median_output_tokens);
	ASSERT(b.median_tool_calls == a.median_tool_calls);
	ASSERT(b.median_script_runs == a.median_script_runs);
	ASSERT_EQ(skit_eval_report_case_count(merged),
	          skit_eval_report_case_count(full));
	for (size_t i = 0; i < skit_eval_report_case_count(full); i++)
		ASSERT_STR(skit_eval_report_case(merged, i)->name,
		           skit_eval_report_case(full, i)->name);
	ASSERT_EQ(skit_eval_report_skill_count(merged),
	          skit_eval_report_skill_count(full));
	for (size_t i = 0; i < skit_eval_report_skill_count(full); i++) {
		const skit_eval_skill_result *x =
		        skit_eval_report_skill(full, i);
		const skit_eval_skill_result *y =
		        skit_eval_report_skill(merged, i);

		ASSERT_STR(y->name, x->name);
		ASSERT_EQ(y->tp, x->tp);
		ASSERT_EQ(y->fp, x->fp);
		ASSERT_EQ(y->fn, x->fn);
	}
	ASSERT_EQ(skit_eval_report_trigger_count(merged),
	          skit_eval_report_trigger_count(full));
	for (size_t i = 0; i < skit_eval_report_trigger_count(full); i++) {
		const skit_eval_trigger_result *x =
		        skit_eval_report_trigger(full, i);
		const skit_eval_trigger_result *y =
		        skit_eval_report_trigger(merged, i);

		ASSERT_STR(y->split, x->split);
		ASSERT_EQ(y->tp, x->tp);
		ASSERT_EQ(y->fp, x->fp);
		ASSERT_EQ(y->tn, x->tn);
		ASSERT_EQ(y->fn, x->fn);
		ASSERT_EQ(y->queries_passed, x->queries_passed);
	}
	for (size_t i = 0; i < skit_eval_report_query_count(full); i++) {
		ASSERT_STR(skit_eval_report_query(merged, i)->name,
		           skit_eval_report_query(full, i)->name);
		ASSERT_EQ(skit_eval_report_query(merged, i)->held_out,
		          skit_eval_report_query(full, i)->held_out);
	}
	skit_eval_report_free(merged);
	merged = NULL;

	/* Two shards only, or one twice: refused. */
	ASSERT_EQ(skit_eval_report_merge(&merged, paths, 2, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "shard 1/3 is missing");
	paths[1] = paths[0];
	ASSERT_EQ(skit_eval_report_merge(&merged, paths, 3, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "given twice");
	ASSERT(!merged);
	skit_eval_report_free(full);
	alarm(0);
}

/* ---- rate limits ------------------------------------------------------- */

static void test_eval__ratelimit_buckets(void)
{
	skit_ratelimit *rl = NULL;
	skit_error err = { 0 };

	/* 120 a minute: two at once, then one every 500 ms. */
	ASSERT_OK(skit_ratelimit_new(&rl, 120, 0, &err));
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 1000), 0);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 1000), 0);
	ASSERT(skit__ratelimit_reserve(rl, 1, 1000) >= 500);
	ASSERT(skit__ratelimit_reserve(rl, 1, 1250) >= 250);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 1500), 0);
	ASSERT(skit__ratelimit_reserve(rl, 1, 1500) > 0);
	/* Idle for a minute: still only one second's worth at once. */
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 61500), 0);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 61500), 0);
	ASSERT(skit__ratelimit_reserve(rl, 1, 61500) > 0);
	/* A 429's pause holds everything until it ends. */
	skit__ratelimit_pause(rl, 3000, 70000);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 70000), 3000);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 72999), 1);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 73000), 0);
	/* A shorter pause does not shorten a longer one. */
	skit__ratelimit_pause(rl, 5000, 80000);
	skit__ratelimit_pause(rl, 1000, 80000);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 80000), 5000);
	skit_ratelimit_free(rl);

	/* 600 tokens a minute (10 a second): a request of 20 goes, and the
	 * next waits until the debt is paid. */
	ASSERT_OK(skit_ratelimit_new(&rl, 0, 600, &err));
	ASSERT_EQ(skit__ratelimit_reserve(rl, 20, 0), 0);
	ASSERT(skit__ratelimit_reserve(rl, 1, 0) >= 1000);
	ASSERT(skit__ratelimit_reserve(rl, 1, 500) >= 500);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 1001), 0);
	/* The usage reported was 30 more than estimated: 3 s more. */
	skit__ratelimit_adjust(rl, 30);
	ASSERT(skit__ratelimit_reserve(rl, 1, 1001) >= 3000);
	ASSERT_EQ(skit__ratelimit_reserve(rl, 1, 4200), 0);
	skit_ratelimit_free(rl);
	skit_ratelimit_free(NULL);
}

struct limited_call {
	skit_model *model;
	int rc;
	long done_ms;
};

static void *limited_complete(void *payload)
{
	static const skit_message hi[] = { { SKIT_ROLE_USER, "hi", NULL, 0,
		                             NULL, NULL, false } };
	struct limited_call *c = payload;
	skit_model_request req = { NULL, hi, 1, NULL, 0, 0 };
	skit_model_response resp;
	skit_error err = { 0 };

	c->rc = skit_model_complete(c->model, &resp, &req, NULL, NULL, &err);
	if (!c->rc)
		skit_model_response_release(&resp);
	c->done_ms = skitx_clock_ms();
	return NULL;
}

/*
 * Model A gets a 429 with retry-after: 1. Model B, sharing the limits,
 * asks only once A's pause is recorded, and must not be answered before
 * the pause ends, though the server would answer it at once. The
 * assertion is an order of events on one clock (B's answer after the
 * recorded pause end), so a slow machine cannot break it.
 */
static void test_eval__ratelimit_shared_429(void)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	struct limited_call a = { 0 }, b = { 0 };
	httpd_response r = HTTPD_RESPONSE_INIT;
	skit_ratelimit *rl = NULL;
	skit_error err = { 0 };
	struct httpd *h;
	pthread_t ta;
	char url[256];
	long until = 0;
	int polls = 0;

	alarm(120);
	ASSERT_OK(httpd_start(&h));
	snprintf(url, sizeof(url), "%s/v1", httpd_url(h));
	r.status = 429;
	r.headers = "retry-after: 1\r\n";
	r.body = "{\"error\": {\"message\": \"slow down\"}}";
	httpd_push(h, &r);
	push_openai(h, OPENAI_TEXT("a"), 10, 1);
	push_openai(h, OPENAI_TEXT("b"), 10, 1);
	ASSERT_OK(skit_ratelimit_new(&rl, 0, 0, &err));
	mo.base_url = url;
	mo.api_key = "sk-test";
	mo.no_stream = true;
	mo.ratelimit = rl;
	mo.spec = "openai:model-a";
	ASSERT_OK(skit_model_new(&a.model, &mo, &err));
	mo.spec = "openai:model-b";
	ASSERT_OK(skit_model_new(&b.model, &mo, &err));

	ASSERT_OK(pthread_create(&ta, NULL, limited_complete, &a));
	while (!(until = skit__ratelimit_paused_until(rl)) && polls++ < 6000)
		usleep(10000);
	ASSERT(until > 0);
	limited_complete(&b);
	pthread_join(ta, NULL);
	ASSERT_OK(a.rc);
	ASSERT_OK(b.rc);
	ASSERT(b.done_ms >= until); /* B waited for A's pause */
	ASSERT_EQ(httpd_request_count(h), 3);
	ASSERT_CONTAINS(httpd_request_at(h, 0)->body, "model-a");
	skit_model_free(a.model);
	skit_model_free(b.model);
	skit_ratelimit_free(rl);
	httpd_stop(h);
	alarm(0);
}

TEST_MAIN(
        TEST(test_eval__load_errors) TEST(test_eval__files_contained) TEST(
                test_eval__untrusted_refused) TEST(test_eval__folder_order)
                TEST(test_eval__examples_pass) TEST(
                        test_eval__broken_cassette) TEST(test_eval__jobs_agree)
                        TEST(test_eval__trigger_load_errors) TEST(
                                test_eval__trigger_rates)
                                TEST(test_eval__trigger_split) TEST(
                                        test_eval__report_hides_controls)
                                        TEST(test_eval__openai_model) TEST(
                                                test_eval__anthropic_model)
                                                TEST(test_eval__shard_merge) TEST(
                                                        test_eval__ratelimit_buckets)
                                                        TEST(test_eval__ratelimit_shared_429))
