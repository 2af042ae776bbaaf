/* SPDX-License-Identifier: MIT */
/*
 * eval_report.c - render an eval report as a text table, as JSON, or as
 * JUnit XML. Rendering only: the numbers come from eval.c.
 *
 * Case names, reasons and paths come from untrusted case files and model
 * output, so the text form drops control characters, and the XML form
 * escapes markup and drops characters XML 1.0 cannot carry.
 */
#include "common.h"

#include <math.h>

#include <jansson.h>

#include "lib/eval/eval_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/utf8.h"

#define NAME_WIDTH  28
#define QUERY_WIDTH 26
#define SKILL_WIDTH 16
#define TEXT_SHOWN  60

/* ---- text -------------------------------------------------------------- */

/*
 * `s` for a terminal: C0 and C1 controls, DEL, bidirectional overrides
 * and the other hidden code points become '?' (they could drive the
 * terminal or disguise the text), and so do the bytes of invalid UTF-8.
 */
/*
 * A metric in a column of `width`: "0.50", or an en dash when it has no
 * data (NAN: a 0/0 share), so an empty class never reads as a perfect 1.00.
 */
static int put_metric(struct skitx_buf *b, int width, double v)
{
	if (isnan(v))
		return skitx_buf_printf(b, " %*s\u2013", width - 1, "");
	return skitx_buf_printf(b, " %*.2f", width, v);
}

/* A metric for JSON: a number, or null when it has no data. */
static json_t *jmetric(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static int put_clean(struct skitx_buf *b, const char *s)
{
	size_t len = strlen(s), i = 0, bad = len;
	int rc = 0;

	if (!skitx_utf8_check(s, len, &bad))
		bad = len; /* valid throughout */
	while (i < len) {
		int32_t cp = (unsigned char)s[i];
		size_t n = 1;

		if (i < bad && cp >= 0x80)
			n = skitx_utf8_decode(s + i, len - i, &cp);
		else if (cp >= 0x80)
			cp = 0; /* past the first invalid byte: hide */
		if ((cp < 0x80 && (cp < 0x20 || cp == 0x7f)) ||
		    (cp >= 0x80 && skitx_utf8_is_hidden(cp)))
			rc |= skitx_buf_putc(b, '?');
		else
			rc |= skitx_buf_add(b, s + i, n);
		i += n;
	}
	return rc;
}

/* At most `max` bytes of `s`, cut at a UTF-8 character boundary, with
 * "..." when cut. */
static int put_cut(struct skitx_buf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	struct skitx_buf tmp = SKITX_BUF_INIT;
	int rc;

	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
	}
	rc = skitx_buf_add(&tmp, s, n);
	if (!rc)
		rc = put_clean(b, skitx_buf_cstr(&tmp));
	if (!rc && s[n])
		rc = skitx_buf_puts(b, "...");
	skitx_buf_release(&tmp);
	return rc;
}

/* Whether some of `skill`'s queries are held out. */
static bool split(const skit_eval_report *r, const char *skill)
{
	for (size_t i = 0; i < r->ntriggers; i++)
		if (!strcmp(r->triggers[i].skill, skill) &&
		    !strcmp(r->triggers[i].split, "held-out"))
			return true;
	return false;
}

static int render_queries(struct skitx_buf *b, const skit_eval_report *r)
{
	int rc = 0;

	rc |= skitx_buf_printf(b, "%-*s %-*s %-8s %-4s %9s %5s %-6s %s\n",
	                       QUERY_WIDTH, "QUERY", SKILL_WIDTH, "SKILL",
	                       "SPLIT", "WANT", "TRIGGERED", "RATE", "RESULT",
	                       "TEXT");
	for (size_t i = 0; i < r->nqueries; i++) {
		const skit_eval_query_result *q = &r->queries[i];
		struct skitx_buf name = SKITX_BUF_INIT, skill = SKITX_BUF_INIT;
		char trig[32];

		snprintf(trig, sizeof(trig), "%u/%u", q->triggered, q->trials);
		rc |= put_clean(&name, q->name);
		rc |= put_clean(&skill, q->skill);
		rc |= skitx_buf_printf(
		        b, "%-*.*s %-*.*s %-8s %-4s %9s %5.2f %-6s ",
		        QUERY_WIDTH, QUERY_WIDTH, skitx_buf_cstr(&name),
		        SKILL_WIDTH, SKILL_WIDTH, skitx_buf_cstr(&skill),
		        q->held_out          ? "held-out"
		        : split(r, q->skill) ? "train"
		                             : "-",
		        q->should_trigger ? "yes" : "no", trig, q->rate,
		        q->passed ? "pass" : "FAIL");
		skitx_buf_release(&name);
		skitx_buf_release(&skill);
		rc |= put_cut(b, q->query, TEXT_SHOWN);
		rc |= skitx_buf_putc(b, '\n');
		for (size_t k = 0; k < q->reason_count; k++) {
			rc |= skitx_buf_puts(b, "    - ");
			rc |= put_clean(b, q->reasons[k]);
			rc |= skitx_buf_putc(b, '\n');
		}
		if (!q->passed && q->run_dir_count) {
			rc |= skitx_buf_puts(b, "    run: ");
			rc |= put_clean(b, q->run_dirs[0]);
			rc |= skitx_buf_putc(b, '\n');
		}
	}
	rc |= skitx_buf_printf(b, "\n%-*s %-8s %7s %6s %7s %6s %9s %5s\n",
	                       NAME_WIDTH, "TRIGGERS", "SPLIT", "QUERIES",
	                       "PASSED", "TRIGGER", "FALSE", "PRECISION", "F1");
	for (size_t i = 0; i < r->ntriggers; i++) {
		const skit_eval_trigger_result *t = &r->triggers[i];
		struct skitx_buf name = SKITX_BUF_INIT;

		rc |= put_clean(&name, t->skill);
		rc |= skitx_buf_printf(b, "%-*.*s %-8s %7u %6u", NAME_WIDTH,
		                       NAME_WIDTH, skitx_buf_cstr(&name),
		                       t->split, t->queries, t->queries_passed);
		rc |= put_metric(b, 7, t->trigger_rate);
		rc |= put_metric(b, 6, t->false_trigger_rate);
		rc |= put_metric(b, 9, t->precision);
		rc |= put_metric(b, 5, t->f1);
		rc |= skitx_buf_putc(b, '\n');
		skitx_buf_release(&name);
	}
	return rc;
}

static int render_text(struct skitx_buf *b, const skit_eval_report *r)
{
	const skit_eval_summary *s = &r->sum;
	int rc = 0;

	if (!r->ncases && r->nqueries)
		goto queries;
	rc |= skitx_buf_printf(b, "%-*s %-6s %7s %6s %7s %10s %9s %8s\n",
	                       NAME_WIDTH, "CASE", "RESULT", "TRIALS", "TOOLS",
	                       "SCRIPTS", "TOKENS_IN", "TOKENS_OUT", "TIME");
	for (size_t i = 0; i < r->ncases; i++) {
		const skit_eval_case_result *c = &r->cases[i];
		struct skitx_buf name = SKITX_BUF_INIT;
		char trials[32];

		snprintf(trials, sizeof(trials), "%u/%u", c->trials_passed,
		         c->trials);
		rc |= put_clean(&name, c->name);
		rc |= skitx_buf_printf(
		        b, "%-*.*s %-6s %7s %6u %7u %10llu %9llu %7.2fs\n",
		        NAME_WIDTH, NAME_WIDTH, skitx_buf_cstr(&name),
		        c->passed ? "pass" : "FAIL", trials, c->tool_calls,
		        c->script_runs, (unsigned long long)c->input_tokens,
		        (unsigned long long)c->output_tokens,
		        (double)c->wall_ms / 1000.0);
		skitx_buf_release(&name);
		for (size_t k = 0; k < c->reason_count; k++) {
			rc |= skitx_buf_puts(b, "    - ");
			rc |= put_clean(b, c->reasons[k]);
			rc |= skitx_buf_putc(b, '\n');
		}
		if (!c->passed && c->run_dir_count) {
			rc |= skitx_buf_puts(b, "    run: ");
			rc |= put_clean(b, c->run_dirs[0]);
			rc |= skitx_buf_putc(b, '\n');
		}
	}
	if (r->nskills) {
		rc |= skitx_buf_printf(b, "\n%-*s %4s %4s %4s %9s %6s %5s\n",
		                       NAME_WIDTH, "SKILL", "TP", "FP", "FN",
		                       "PRECISION", "RECALL", "F1");
		for (size_t i = 0; i < r->nskills; i++) {
			const skit_eval_skill_result *k = &r->skills[i];
			struct skitx_buf name = SKITX_BUF_INIT;

			rc |= put_clean(&name, k->name);
			rc |= skitx_buf_printf(
			        b, "%-*.*s %4u %4u %4u", NAME_WIDTH, NAME_WIDTH,
			        skitx_buf_cstr(&name), k->tp, k->fp, k->fn);
			rc |= put_metric(b, 9, k->precision);
			rc |= put_metric(b, 6, k->recall);
			rc |= put_metric(b, 5, k->f1);
			rc |= skitx_buf_putc(b, '\n');
			skitx_buf_release(&name);
		}
	}
queries:
	if (r->nqueries) {
		if (r->ncases)
			rc |= skitx_buf_putc(b, '\n');
		rc |= render_queries(b, r);
	}
	rc |= skitx_buf_putc(b, '\n');
	if (s->cases)
		rc |= skitx_buf_printf(b, "cases: %zu/%zu passed (%.1f%%)\n",
		                       s->cases_passed, s->cases,
		                       100.0 * (double)s->cases_passed /
		                               (double)s->cases);
	if (s->queries)
		rc |= skitx_buf_printf(b,
		                       "trigger queries: %zu/%zu passed "
		                       "(%.1f%%)\n",
		                       s->queries_passed, s->queries,
		                       100.0 * (double)s->queries_passed /
		                               (double)s->queries);
	rc |= skitx_buf_printf(b, "trials: %zu/%zu passed; pass rate %.1f%%\n",
	                       s->trials_passed, s->trials,
	                       s->pass_rate * 100.0);
	if (s->cases)
		rc |= skitx_buf_printf(
		        b,
		        "steps: %zu/%zu (%.1f%%); output checks: %zu/%zu "
		        "(%.1f%%)\n",
		        s->step_passed, s->step_checked,
		        s->step_pass_rate * 100.0, s->output_passed,
		        s->output_checked, s->output_pass_rate * 100.0);
	rc |= skitx_buf_printf(
	        b,
	        "cost: %llu input + %llu output tokens, %lu tool calls, %lu "
	        "script runs, %.2fs\n"
	        "median per trial: %.0f input + %.0f output tokens, %.1f tool "
	        "calls, %.1f script runs, %.2fs\n",
	        (unsigned long long)s->input_tokens,
	        (unsigned long long)s->output_tokens, s->tool_calls,
	        s->script_runs, (double)s->wall_ms / 1000.0,
	        s->median_input_tokens, s->median_output_tokens,
	        s->median_tool_calls, s->median_script_runs,
	        s->median_wall_ms / 1000.0);
	if (s->shard_count)
		rc |= skitx_buf_printf(b, "shard: %u/%u\n", s->shard_index,
		                       s->shard_count);
	if (s->shards_merged)
		rc |= skitx_buf_printf(b, "merged: %u shard reports\n",
		                       s->shards_merged);
	if (s->runs_dir) {
		rc |= skitx_buf_puts(b, "runs: ");
		rc |= put_clean(b, s->runs_dir);
		rc |= skitx_buf_putc(b, '\n');
	}
	return rc ? SKIT_ENOMEM : 0;
}

/* ---- JSON -------------------------------------------------------------- */

/*
 * A JSON string of `s`. Names, paths and reasons may hold bytes that are
 * not UTF-8 (a path, a message cut mid-character): those become '?'.
 */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j || !s)
		return j;
	copy = skitx_strdup(s);
	for (char *p = copy; p && *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = copy ? json_string(copy) : NULL;
	skitx_free(copy);
	return j;
}

static json_t *strv_json(const char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, jstr(v[i]))) {
			json_decref(a);
			return NULL;
		}
	return a;
}

/* The figures of each trial, from which a merge recomputes the totals
 * and medians. */
static json_t *raw_json(const struct eval_raw *raw)
{
	json_t *a = json_array();

	for (unsigned int k = 0; a && k < raw->ntrials; k++) {
		const struct eval_raw_trial *t = &raw->trials[k];

		if (json_array_append_new(
		            a, json_pack("{s:I, s:I, s:I, s:I, s:I, s:b, s:b, "
		                         "s:b, s:b}",
		                         "input_tokens", (json_int_t)t->in,
		                         "output_tokens", (json_int_t)t->out,
		                         "wall_ms", (json_int_t)t->wall_ms,
		                         "tool_calls", (json_int_t)t->tools,
		                         "script_runs", (json_int_t)t->scripts,
		                         "passed", t->passed, "steps_ok",
		                         t->steps_ok, "output_ok", t->output_ok,
		                         "triggered", t->triggered))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* A case's own contribution to the skill table. */
static json_t *skill_counts_json(const struct eval_raw *raw)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < raw->nskills; i++) {
		const struct eval_skill_count *k = &raw->skills[i];

		if (json_array_append_new(
		            a, json_pack("{s:o, s:I, s:I, s:I}", "name",
		                         jstr(k->name), "tp", (json_int_t)k->tp,
		                         "fp", (json_int_t)k->fp, "fn",
		                         (json_int_t)k->fn))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* Add the raw data (suite index, trials, skill counts) to `j`. */
static json_t *with_raw(json_t *j, const struct eval_raw *raw, bool skills)
{
	if (j && (json_object_set_new(j, "index",
	                              json_integer((json_int_t)raw->index)) ||
	          json_object_set_new(j, "trial_data", raw_json(raw)) ||
	          (skills && json_object_set_new(j, "skill_counts",
	                                         skill_counts_json(raw))))) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *case_json(const skit_eval_case_result *c)
{
	return json_pack(
	        "{s:o, s:o, s:b, s:I, s:I, s:o*, s:o*, s:o*, s:I, s:I, s:I, "
	        "s:I, s:I, s:o, s:o}",
	        "name", jstr(c->name), "file", jstr(c->file), "passed",
	        c->passed, "trials", (json_int_t)c->trials, "trials_passed",
	        (json_int_t)c->trials_passed, "reasons",
	        strv_json(c->reasons, c->reason_count), "run_dirs",
	        strv_json(c->run_dirs, c->run_dir_count), "skills",
	        strv_json(c->skills, c->skill_count), "input_tokens",
	        (json_int_t)c->input_tokens, "output_tokens",
	        (json_int_t)c->output_tokens, "wall_ms", (json_int_t)c->wall_ms,
	        "tool_calls", (json_int_t)c->tool_calls, "script_runs",
	        (json_int_t)c->script_runs, "steps_ok",
	        c->has_steps ? json_boolean(c->steps_ok) : json_null(),
	        "output_ok",
	        c->has_output ? json_boolean(c->output_ok) : json_null());
}

static json_t *query_json(const skit_eval_query_result *q)
{
	return json_pack(
	        "{s:o, s:o, s:o, s:o, s:b, s:b, s:I, s:I, s:f, s:b, s:o*, "
	        "s:o*, s:I, s:I, s:I}",
	        "name", jstr(q->name), "file", jstr(q->file), "skill",
	        jstr(q->skill), "query", jstr(q->query), "should_trigger",
	        q->should_trigger, "held_out", q->held_out, "trials",
	        (json_int_t)q->trials, "triggered", (json_int_t)q->triggered,
	        "rate", q->rate, "passed", q->passed, "reasons",
	        strv_json(q->reasons, q->reason_count), "run_dirs",
	        strv_json(q->run_dirs, q->run_dir_count), "input_tokens",
	        (json_int_t)q->input_tokens, "output_tokens",
	        (json_int_t)q->output_tokens, "wall_ms",
	        (json_int_t)q->wall_ms);
}

static json_t *trigger_json(const skit_eval_trigger_result *t)
{
	return json_pack(
	        "{s:o, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o, "
	        "s:o, s:o, s:f}",
	        "skill", jstr(t->skill), "split", t->split, "queries",
	        (json_int_t)t->queries, "queries_passed",
	        (json_int_t)t->queries_passed, "should", (json_int_t)t->should,
	        "should_not", (json_int_t)t->should_not, "tp",
	        (json_int_t)t->tp, "fp", (json_int_t)t->fp, "fn",
	        (json_int_t)t->fn, "tn", (json_int_t)t->tn, "trigger_rate",
	        jmetric(t->trigger_rate), "false_trigger_rate",
	        jmetric(t->false_trigger_rate), "precision",
	        jmetric(t->precision), "f1", jmetric(t->f1), "accuracy",
	        t->accuracy);
}

static int render_json(struct skitx_buf *b, const skit_eval_report *r)
{
	const skit_eval_summary *s = &r->sum;
	json_t *root, *cases = json_array(), *skills = json_array(), *sum;
	json_t *queries = json_array(), *triggers = json_array();
	char *text;
	int rc = 0;

	for (size_t i = 0; cases && i < r->ncases; i++)
		if (json_array_append_new(cases,
		                          with_raw(case_json(&r->cases[i]),
		                                   &r->case_raw[i], true)))
			rc = SKIT_ENOMEM;
	for (size_t i = 0; skills && i < r->nskills; i++) {
		const skit_eval_skill_result *k = &r->skills[i];

		if (json_array_append_new(
		            skills,
		            json_pack(
		                    "{s:o, s:I, s:I, s:I, s:o, s:o, s:o}",
		                    "name", jstr(k->name), "tp",
		                    (json_int_t)k->tp, "fp", (json_int_t)k->fp,
		                    "fn", (json_int_t)k->fn, "precision",
		                    jmetric(k->precision), "recall",
		                    jmetric(k->recall), "f1", jmetric(k->f1))))
			rc = SKIT_ENOMEM;
	}
	for (size_t i = 0; queries && i < r->nqueries; i++)
		if (json_array_append_new(queries,
		                          with_raw(query_json(&r->queries[i]),
		                                   &r->query_raw[i], false)))
			rc = SKIT_ENOMEM;
	for (size_t i = 0; triggers && i < r->ntriggers; i++)
		if (json_array_append_new(triggers,
		                          trigger_json(&r->triggers[i])))
			rc = SKIT_ENOMEM;
	sum = json_pack(
	        "{s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:f, s:I, s:I, s:f, s:I, "
	        "s:I, s:I, s:I, s:I}",
	        "cases", (json_int_t)s->cases, "cases_passed",
	        (json_int_t)s->cases_passed, "trials", (json_int_t)s->trials,
	        "trials_passed", (json_int_t)s->trials_passed, "pass_rate",
	        s->pass_rate, "step_checked", (json_int_t)s->step_checked,
	        "step_passed", (json_int_t)s->step_passed, "step_pass_rate",
	        s->step_pass_rate, "output_checked",
	        (json_int_t)s->output_checked, "output_passed",
	        (json_int_t)s->output_passed, "output_pass_rate",
	        s->output_pass_rate, "input_tokens",
	        (json_int_t)s->input_tokens, "output_tokens",
	        (json_int_t)s->output_tokens, "wall_ms", (json_int_t)s->wall_ms,
	        "tool_calls", (json_int_t)s->tool_calls, "script_runs",
	        (json_int_t)s->script_runs);
	if (sum && json_object_set_new(
	                   sum, "medians",
	                   json_pack("{s:f, s:f, s:f, s:f, s:f}",
	                             "input_tokens", s->median_input_tokens,
	                             "output_tokens", s->median_output_tokens,
	                             "wall_ms", s->median_wall_ms, "tool_calls",
	                             s->median_tool_calls, "script_runs",
	                             s->median_script_runs)))
		rc = SKIT_ENOMEM;
	if (sum &&
	    (json_object_set_new(sum, "queries",
	                         json_integer((json_int_t)s->queries)) ||
	     json_object_set_new(sum, "queries_passed",
	                         json_integer((json_int_t)s->queries_passed))))
		rc = SKIT_ENOMEM;
	root = json_pack(
	        "{s:o*, s:o*, s:o*, s:o*, s:o*, s:o*, s:i, s:{s:s, s:I}, s:o*, "
	        "s:I}",
	        "summary", sum, "cases", cases, "skills", skills, "queries",
	        queries, "triggers", triggers, "runs_dir",
	        s->runs_dir ? jstr(s->runs_dir) : json_null(), "version",
	        SKIT__EVAL_REPORT_VERSION, "suite", "id", r->suite_id,
	        "entries", (json_int_t)r->suite_entries, "shard",
	        s->shard_count ? json_pack("{s:I, s:I}", "index",
	                                   (json_int_t)s->shard_index, "count",
	                                   (json_int_t)s->shard_count)
	                       : json_null(),
	        "shards_merged", (json_int_t)s->shards_merged);
	text = root && !rc ? json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS)
	                   : NULL;
	json_decref(root);
	if (!text)
		return SKIT_ENOMEM;
	rc = skitx_buf_puts(b, text) | skitx_buf_putc(b, '\n');
	free(text); /* jansson's allocator is the C library's */
	return rc ? SKIT_ENOMEM : 0;
}

/* ---- JUnit XML --------------------------------------------------------- */

/* `s` as XML 1.0 text or attribute value. */
static int put_xml(struct skitx_buf *b, const char *s)
{
	int rc = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '&')
			rc |= skitx_buf_puts(b, "&amp;");
		else if (c == '<')
			rc |= skitx_buf_puts(b, "&lt;");
		else if (c == '>')
			rc |= skitx_buf_puts(b, "&gt;");
		else if (c == '"')
			rc |= skitx_buf_puts(b, "&quot;");
		else if (c == '\n' || c == '\t')
			rc |= skitx_buf_printf(b, "&#%d;", c);
		else if (c < 0x20 || c == 0x7f)
			rc |= skitx_buf_putc(b, '?');
		else
			rc |= skitx_buf_putc(b, (char)c);
	}
	return rc;
}

/* One <testcase> per trigger query, in a suite of their own. */
static int render_junit_queries(struct skitx_buf *b, const skit_eval_report *r,
                                uint64_t ms)
{
	const skit_eval_summary *s = &r->sum;
	int rc = 0;

	rc |= skitx_buf_printf(b,
	                       "  <testsuite name=\"skit-eval-trigger\" "
	                       "tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
	                       "time=\"%.3f\">\n",
	                       s->queries, s->queries - s->queries_passed,
	                       (double)ms / 1000.0);
	for (size_t i = 0; i < r->nqueries; i++) {
		const skit_eval_query_result *q = &r->queries[i];
		struct skitx_buf name = SKITX_BUF_INIT;

		rc |= skitx_buf_printf(&name, "%s (%s %s): ", q->name,
		                       q->should_trigger ? "should trigger"
		                                         : "should not trigger",
		                       q->skill);
		rc |= put_cut(&name, q->query, TEXT_SHOWN);
		rc |= skitx_buf_puts(b, "    <testcase name=\"");
		rc |= put_xml(b, skitx_buf_cstr(&name));
		skitx_buf_release(&name);
		rc |= skitx_buf_puts(b, "\" classname=\"skit-eval-trigger.");
		rc |= put_xml(b, q->skill);
		rc |= skitx_buf_puts(b, "\" file=\"");
		rc |= put_xml(b, q->file);
		rc |= skitx_buf_printf(b, "\" time=\"%.3f\">\n",
		                       (double)q->wall_ms / 1000.0);
		if (!q->passed) {
			rc |= skitx_buf_puts(b, "      <failure message=\"");
			for (size_t k = 0; k < q->reason_count; k++) {
				rc |= put_xml(b, k ? "; " : "");
				rc |= put_xml(b, q->reasons[k]);
			}
			rc |= skitx_buf_puts(b, "\" type=\"trigger\">");
			for (size_t k = 0; k < q->reason_count; k++) {
				rc |= skitx_buf_puts(b, k ? "\n" : "");
				rc |= put_xml(b, q->reasons[k]);
			}
			rc |= skitx_buf_puts(b, "</failure>\n");
		}
		for (size_t k = 0; k < q->run_dir_count; k++) {
			rc |= skitx_buf_puts(b, k ? "\nrun: "
			                          : "      <system-out>run: ");
			rc |= put_xml(b, q->run_dirs[k]);
		}
		if (q->run_dir_count)
			rc |= skitx_buf_puts(b, "</system-out>\n");
		rc |= skitx_buf_puts(b, "    </testcase>\n");
	}
	rc |= skitx_buf_puts(b, "  </testsuite>\n");
	return rc;
}

static int render_junit(struct skitx_buf *b, const skit_eval_report *r)
{
	const skit_eval_summary *s = &r->sum;
	uint64_t cases_ms = 0, queries_ms = 0;
	int rc = 0;

	for (size_t i = 0; i < r->ncases; i++)
		cases_ms += r->cases[i].wall_ms;
	for (size_t i = 0; i < r->nqueries; i++)
		queries_ms += r->queries[i].wall_ms;

	rc |= skitx_buf_printf(b,
	                       "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	                       "<testsuites tests=\"%zu\" failures=\"%zu\" "
	                       "time=\"%.3f\">\n",
	                       s->cases + s->queries,
	                       s->cases - s->cases_passed + s->queries -
	                               s->queries_passed,
	                       (double)s->wall_ms / 1000.0);
	if (r->ncases || !r->nqueries)
		rc |= skitx_buf_printf(b,
		                       "  <testsuite name=\"skit-eval\" "
		                       "tests=\"%zu\" failures=\"%zu\" "
		                       "errors=\"0\" time=\"%.3f\">\n",
		                       s->cases, s->cases - s->cases_passed,
		                       (double)cases_ms / 1000.0);
	for (size_t i = 0; i < r->ncases; i++) {
		const skit_eval_case_result *c = &r->cases[i];

		rc |= skitx_buf_puts(b, "    <testcase name=\"");
		rc |= put_xml(b, c->name);
		rc |= skitx_buf_puts(b, "\" classname=\"skit-eval\" file=\"");
		rc |= put_xml(b, c->file);
		rc |= skitx_buf_printf(b, "\" time=\"%.3f\">\n",
		                       (double)c->wall_ms / 1000.0);
		if (!c->passed) {
			rc |= skitx_buf_puts(b, "      <failure message=\"");
			for (size_t k = 0; k < c->reason_count; k++) {
				rc |= put_xml(b, k ? "; " : "");
				rc |= put_xml(b, c->reasons[k]);
			}
			rc |= skitx_buf_printf(b,
			                       "\" type=\"eval\">%u of %u "
			                       "trials passed",
			                       c->trials_passed, c->trials);
			for (size_t k = 0; k < c->reason_count; k++) {
				rc |= skitx_buf_puts(b, "\n");
				rc |= put_xml(b, c->reasons[k]);
			}
			rc |= skitx_buf_puts(b, "</failure>\n");
		}
		if (c->run_dir_count) {
			rc |= skitx_buf_puts(b, "      <system-out>");
			for (size_t k = 0; k < c->run_dir_count; k++) {
				rc |= skitx_buf_puts(b,
				                     k ? "\nrun: " : "run: ");
				rc |= put_xml(b, c->run_dirs[k]);
			}
			rc |= skitx_buf_puts(b, "</system-out>\n");
		}
		rc |= skitx_buf_puts(b, "    </testcase>\n");
	}
	if (r->ncases || !r->nqueries)
		rc |= skitx_buf_puts(b, "  </testsuite>\n");
	if (r->nqueries)
		rc |= render_junit_queries(b, r, queries_ms);
	rc |= skitx_buf_puts(b, "</testsuites>\n");
	return rc ? SKIT_ENOMEM : 0;
}

int skit__eval_render(struct skitx_buf *out, const skit_eval_report *r,
                      skit_eval_format format)
{
	if (format == SKIT_EVAL_JSON)
		return render_json(out, r);
	if (format == SKIT_EVAL_JUNIT)
		return render_junit(out, r);
	return render_text(out, r);
}
