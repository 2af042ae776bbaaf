/* SPDX-License-Identifier: MIT */
/*
 * eval_merge.c - merge the JSON reports of the shards of one suite into
 * the report an unsharded run would have given (skit_eval_report_merge).
 *
 * Every entry (case or query) ran in exactly one shard, so its own
 * results are taken as they are. What spans entries is recomputed here
 * from the raw data each report keeps: the totals and medians from every
 * trial's figures ("trial_data"), the skill table from each case's own
 * counts ("skill_counts"), the trigger rows from the queries. The order
 * is the suite's ("index"), so the merged report reads as a single run.
 *
 * Reports are untrusted files: each is capped, every field is checked
 * for its type and range, and a report that does not fit with the others
 * (another suite, another shard count, a shard or an entry twice, a
 * shard missing) is refused with a message naming the file.
 */
#include "common.h"

#include <jansson.h>

#include "lib/core/error.h"
#include "lib/eval/eval_int.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"

#define REPORT_MAX  (256u * 1024 * 1024)
#define ENTRIES_MAX 10000u  /* as a suite */
#define TRIALS_MAX  100000u /* as a suite */
#define LIST_MAX    100000u /* reasons, run folders, skills of an entry */
/* Tokens and milliseconds of one entry or trial: far above any real run,
 * and low enough that 100000 of them cannot wrap a sum. */
#define FIGURE_MAX (1ULL << 46)

struct merger {
	skit_eval_report *rep;
	const char *file;
	skit_error *err;
	size_t entries; /* of the suite */
	bool *seen;     /* per suite entry */
	size_t case_cap, query_cap, trials;
};

static int bad(struct merger *m, const char *what)
{
	return skit__error_set(m->err, SKIT_EINVALID, 0, "%s: %s", m->file,
	                       what);
}

/* A whole number from 0 to `max` at `key` of `o`. */
static int get_uint(struct merger *m, json_t *o, const char *key, uint64_t max,
                    uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: '%s' must be a whole number from 0 "
		                       "to %llu",
		                       m->file, key, (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

static int get_uint32(struct merger *m, json_t *o, const char *key,
                      unsigned int *out)
{
	uint64_t v;
	int rc = get_uint(m, o, key, UINT32_MAX, &v);

	*out = (unsigned int)v;
	return rc;
}

static int get_bool(struct merger *m, json_t *o, const char *key, bool *out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_boolean(v))
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: '%s' must be true or false",
		                       m->file, key);
	*out = json_is_true(v);
	return 0;
}

/* The string at `key`, copied into the report's pool. */
static int get_str(struct merger *m, json_t *o, const char *key,
                   const char **out)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_string(v))
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: '%s' must be a string", m->file,
		                       key);
	*out = skitx_pool_strndup(&m->rep->pool, json_string_value(v),
	                          json_string_length(v));
	return *out ? 0 : skit__error_oom(m->err);
}

/* A list of strings at `key`, copied, NULL-ended. */
static int get_strv(struct merger *m, json_t *o, const char *key,
                    const char *const **out, size_t *n)
{
	json_t *a = json_object_get(o, key), *v;
	const char **list;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) > LIST_MAX)
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: '%s' must be a list of strings",
		                       m->file, key);
	list = skitx_pool_alloc(&m->rep->pool,
	                        (json_array_size(a) + 1) * sizeof(*list));
	if (!list)
		return skit__error_oom(m->err);
	json_array_foreach(a, i, v)
	{
		if (!json_is_string(v))
			return skit__error_set(m->err, SKIT_EINVALID, 0,
			                       "%s: '%s' must be a list of "
			                       "strings",
			                       m->file, key);
		list[i] =
		        skitx_pool_strndup(&m->rep->pool, json_string_value(v),
		                           json_string_length(v));
		if (!list[i])
			return skit__error_oom(m->err);
	}
	list[json_array_size(a)] = NULL;
	*out = list;
	*n = json_array_size(a);
	return 0;
}

/* The entry's suite index (once over all reports) and its trials. */
static int get_raw(struct merger *m, json_t *o, unsigned int trials,
                   struct eval_raw *raw)
{
	json_t *a = json_object_get(o, "trial_data"), *t;
	uint64_t index;
	size_t k;
	int rc;

	memset(raw, 0, sizeof(*raw));
	rc = get_uint(m, o, "index", m->entries ? m->entries - 1 : 0, &index);
	if (rc)
		return rc;
	if (!m->entries)
		return bad(m, "an entry in a suite of none");
	if (m->seen[index])
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: entry %llu is in another report "
		                       "too (overlapping shards)",
		                       m->file, (unsigned long long)index);
	m->seen[index] = true;
	raw->index = (size_t)index;
	if (!json_is_array(a) || json_array_size(a) != trials)
		return bad(m, "'trial_data' must list every trial (a report "
		              "of version 2)");
	m->trials += trials;
	if (m->trials > TRIALS_MAX)
		return skit__error_set(m->err, SKIT_ETOOBIG, 0,
		                       "%s: over %u trials in all", m->file,
		                       TRIALS_MAX);
	raw->ntrials = trials;
	raw->trials = skitx_pool_alloc(&m->rep->pool,
	                               (trials + 1) * sizeof(*raw->trials));
	if (!raw->trials)
		return skit__error_oom(m->err);
	json_array_foreach(a, k, t)
	{
		struct eval_raw_trial *r = &raw->trials[k];

		if (!json_is_object(t))
			return bad(m, "a trial must be an object");
		rc = get_uint(m, t, "input_tokens", FIGURE_MAX, &r->in);
		if (!rc)
			rc = get_uint(m, t, "output_tokens", FIGURE_MAX,
			              &r->out);
		if (!rc)
			rc = get_uint(m, t, "wall_ms", FIGURE_MAX, &r->wall_ms);
		if (!rc)
			rc = get_uint32(m, t, "tool_calls", &r->tools);
		if (!rc)
			rc = get_uint32(m, t, "script_runs", &r->scripts);
		if (!rc)
			rc = get_bool(m, t, "passed", &r->passed);
		if (!rc)
			rc = get_bool(m, t, "steps_ok", &r->steps_ok);
		if (!rc)
			rc = get_bool(m, t, "output_ok", &r->output_ok);
		if (!rc)
			rc = get_bool(m, t, "triggered", &r->triggered);
		if (rc)
			return rc;
	}
	return 0;
}

/* A check that may not be there: null, or true or false. */
static int get_check(struct merger *m, json_t *o, const char *key, bool *has,
                     bool *ok)
{
	json_t *v = json_object_get(o, key);

	*has = !json_is_null(v);
	return *has ? get_bool(m, o, key, ok) : 0;
}

/* Room for one more entry in the result array `v` and its raw data `raw`
 * (of `n` entries, room for `*cap`), which grow together. */
static int grow(struct merger *m, void **v, size_t size, struct eval_raw **raw,
                size_t n, size_t *cap)
{
	size_t want = *cap ? *cap * 2 : 16;
	void *grown;

	if (n < *cap)
		return 0;
	grown = skitx_realloc(*v, want * size);
	if (!grown)
		return skit__error_oom(m->err);
	*v = grown;
	grown = skitx_realloc(*raw, want * sizeof(**raw));
	if (!grown)
		return skit__error_oom(m->err);
	*raw = grown;
	*cap = want;
	return 0;
}

static int read_case(struct merger *m, json_t *o)
{
	skit_eval_report *rep = m->rep;
	skit_eval_case_result *c;
	struct eval_raw *raw;
	json_t *counts, *k;
	size_t i;
	int rc;

	if (!json_is_object(o))
		return bad(m, "a case must be an object");
	rc = grow(m, (void **)&rep->cases, sizeof(*rep->cases), &rep->case_raw,
	          rep->ncases, &m->case_cap);
	if (rc)
		return rc;
	c = &rep->cases[rep->ncases];
	raw = &rep->case_raw[rep->ncases];
	memset(c, 0, sizeof(*c));
	rc = get_str(m, o, "name", &c->name);
	if (!rc)
		rc = get_str(m, o, "file", &c->file);
	if (!rc)
		rc = get_bool(m, o, "passed", &c->passed);
	if (!rc)
		rc = get_uint32(m, o, "trials", &c->trials);
	if (!rc && (c->trials < 1 || c->trials > SKIT__EVAL_TRIALS_MAX))
		rc = bad(m, "a case's 'trials' is out of range");
	if (!rc)
		rc = get_uint32(m, o, "trials_passed", &c->trials_passed);
	if (!rc && c->trials_passed > c->trials)
		rc = bad(m, "more trials passed than run");
	if (!rc)
		rc = get_strv(m, o, "reasons", &c->reasons, &c->reason_count);
	if (!rc)
		rc = get_strv(m, o, "run_dirs", &c->run_dirs,
		              &c->run_dir_count);
	if (!rc)
		rc = get_strv(m, o, "skills", &c->skills, &c->skill_count);
	if (!rc)
		rc = get_uint(m, o, "input_tokens", FIGURE_MAX,
		              &c->input_tokens);
	if (!rc)
		rc = get_uint(m, o, "output_tokens", FIGURE_MAX,
		              &c->output_tokens);
	if (!rc)
		rc = get_uint(m, o, "wall_ms", FIGURE_MAX, &c->wall_ms);
	if (!rc)
		rc = get_uint32(m, o, "tool_calls", &c->tool_calls);
	if (!rc)
		rc = get_uint32(m, o, "script_runs", &c->script_runs);
	if (!rc)
		rc = get_check(m, o, "steps_ok", &c->has_steps, &c->steps_ok);
	if (!rc)
		rc = get_check(m, o, "output_ok", &c->has_output,
		               &c->output_ok);
	if (!rc)
		rc = get_raw(m, o, c->trials, raw);
	if (rc)
		return rc;
	counts = json_object_get(o, "skill_counts");
	if (!json_is_array(counts) || json_array_size(counts) > LIST_MAX)
		return bad(m, "'skill_counts' must be a list");
	raw->skills = skitx_pool_alloc(&rep->pool, (json_array_size(counts) +
	                                            1) * sizeof(*raw->skills));
	if (!raw->skills)
		return skit__error_oom(m->err);
	json_array_foreach(counts, i, k)
	{
		struct eval_skill_count *sc = &raw->skills[i];

		if (!json_is_object(k))
			return bad(m, "a skill count must be an object");
		rc = get_str(m, k, "name", &sc->name);
		if (!rc)
			rc = get_uint32(m, k, "tp", &sc->tp);
		if (!rc)
			rc = get_uint32(m, k, "fp", &sc->fp);
		if (!rc)
			rc = get_uint32(m, k, "fn", &sc->fn);
		if (rc)
			return rc;
		raw->nskills++;
	}
	rep->ncases++;
	return 0;
}

static int read_query(struct merger *m, json_t *o)
{
	skit_eval_report *rep = m->rep;
	skit_eval_query_result *q;
	int rc;

	if (!json_is_object(o))
		return bad(m, "a query must be an object");
	rc = grow(m, (void **)&rep->queries, sizeof(*rep->queries),
	          &rep->query_raw, rep->nqueries, &m->query_cap);
	if (rc)
		return rc;
	q = &rep->queries[rep->nqueries];
	memset(q, 0, sizeof(*q));
	rc = get_str(m, o, "name", &q->name);
	if (!rc)
		rc = get_str(m, o, "file", &q->file);
	if (!rc)
		rc = get_str(m, o, "skill", &q->skill);
	if (!rc)
		rc = get_str(m, o, "query", &q->query);
	if (!rc)
		rc = get_bool(m, o, "should_trigger", &q->should_trigger);
	if (!rc)
		rc = get_bool(m, o, "held_out", &q->held_out);
	if (!rc)
		rc = get_uint32(m, o, "trials", &q->trials);
	if (!rc && (q->trials < 1 || q->trials > SKIT__EVAL_TRIALS_MAX))
		rc = bad(m, "a query's 'trials' is out of range");
	if (!rc)
		rc = get_uint32(m, o, "triggered", &q->triggered);
	if (!rc && q->triggered > q->trials)
		rc = bad(m, "more trials triggered than run");
	if (!rc)
		rc = get_bool(m, o, "passed", &q->passed);
	if (!rc)
		rc = get_strv(m, o, "reasons", &q->reasons, &q->reason_count);
	if (!rc)
		rc = get_strv(m, o, "run_dirs", &q->run_dirs,
		              &q->run_dir_count);
	if (!rc)
		rc = get_uint(m, o, "input_tokens", FIGURE_MAX,
		              &q->input_tokens);
	if (!rc)
		rc = get_uint(m, o, "output_tokens", FIGURE_MAX,
		              &q->output_tokens);
	if (!rc)
		rc = get_uint(m, o, "wall_ms", FIGURE_MAX, &q->wall_ms);
	if (!rc)
		rc = get_raw(m, o, q->trials, &rep->query_raw[rep->nqueries]);
	if (rc)
		return rc;
	q->rate = skit__eval_share(q->triggered, q->trials, 0.0);
	rep->nqueries++;
	return 0;
}

/* The suite and shard of report `root`; the first report sets them. */
static int read_header(struct merger *m, json_t *root, unsigned int *index,
                       unsigned int *count)
{
	json_t *v = json_object_get(root, "version");
	json_t *suite = json_object_get(root, "suite");
	json_t *shard = json_object_get(root, "shard");
	json_t *id = json_object_get(suite, "id");
	uint64_t entries, i = 1, n = 1;
	int rc;

	if (!json_is_object(root))
		return bad(m, "not a JSON eval report");
	if (!json_is_integer(v) ||
	    json_integer_value(v) != SKIT__EVAL_REPORT_VERSION)
		return skit__error_set(
		        m->err, SKIT_EINVALID, 0,
		        "%s: not an eval report of version %d "
		        "(write it with skit eval --report json)",
		        m->file, SKIT__EVAL_REPORT_VERSION);
	if (!json_is_object(suite) || !json_is_string(id) ||
	    json_string_length(id) != 64 ||
	    strspn(json_string_value(id), "0123456789abcdef") != 64)
		return bad(m, "'suite' must give the suite's id");
	rc = get_uint(m, suite, "entries", ENTRIES_MAX, &entries);
	if (rc)
		return rc;
	if (json_is_object(shard)) {
		rc = get_uint(m, shard, "count", SKIT__EVAL_SHARDS_MAX, &n);
		if (!rc)
			rc = get_uint(m, shard, "index", n, &i);
		if (!rc && (!i || !n))
			rc = bad(m, "a shard is 1 to N");
		if (rc)
			return rc;
	} else if (!json_is_null(shard)) {
		return bad(m, "'shard' must be an object or null");
	}
	if (!m->seen) {
		memcpy(m->rep->suite_id, json_string_value(id), 65);
		m->entries = (size_t)entries;
		m->seen = skitx_calloc(entries ? entries : 1, sizeof(*m->seen));
		if (!m->seen)
			return skit__error_oom(m->err);
		*count = (unsigned int)n;
	} else if (strcmp(m->rep->suite_id, json_string_value(id)) ||
	           m->entries != entries) {
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: a report of another suite (its "
		                       "cases, queries or trials differ)",
		                       m->file);
	} else if (*count != n) {
		return skit__error_set(m->err, SKIT_EINVALID, 0,
		                       "%s: shard %llu of %llu, where the "
		                       "others are of %u",
		                       m->file, (unsigned long long)i,
		                       (unsigned long long)n, *count);
	}
	*index = (unsigned int)i;
	return 0;
}

static int read_report(struct merger *m, const char *path, bool *shards,
                       unsigned int *count)
{
	struct skitx_buf text;
	json_error_t jerr;
	json_t *root = NULL, *cases, *queries, *e;
	unsigned int index = 0;
	size_t i;
	int rc;

	m->file = path;
	skitx_buf_init(&text, 0);
	rc = skitx_fs_read_file(path, &text, REPORT_MAX);
	if (rc) {
		rc = rc == SKIT_ETOOBIG
		             ? skit__error_set(m->err, rc, 0, "%s: over %u MiB",
		                               path, REPORT_MAX >> 20)
		     : rc == SKIT_ENOMEM
		             ? skit__error_oom(m->err)
		             : skit__error_set(m->err,
		                               rc == SKIT_ENOTFOUND ? rc
		                                                    : SKIT_EIO,
		                               0, "%s: cannot read: %s", path,
		                               skit_strerror(rc));
		goto out;
	}
	root = json_loadb(skitx_buf_cstr(&text), skitx_buf_len(&text),
	                  JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		rc = skit__error_set(m->err, SKIT_EINVALID, 0,
		                     "%s:%d: not JSON: %s", path, jerr.line,
		                     jerr.text);
		goto out;
	}
	rc = read_header(m, root, &index, count);
	if (rc)
		goto out;
	if (shards[index - 1]) {
		rc = skit__error_set(m->err, SKIT_EINVALID, 0,
		                     "%s: shard %u/%u is given twice", path,
		                     index, *count);
		goto out;
	}
	shards[index - 1] = true;
	cases = json_object_get(root, "cases");
	queries = json_object_get(root, "queries");
	if (!json_is_array(cases) || !json_is_array(queries)) {
		rc = bad(m, "'cases' and 'queries' must be lists");
		goto out;
	}
	json_array_foreach(cases, i, e)
	{
		rc = read_case(m, e);
		if (rc)
			goto out;
	}
	json_array_foreach(queries, i, e)
	{
		rc = read_query(m, e);
		if (rc)
			goto out;
	}
out:
	json_decref(root);
	skitx_buf_release(&text);
	return rc;
}

/* Sort cases and queries by their index in the suite, with their raw
 * data alongside. Insertion sort: entries come mostly in order already
 * (each report's are), and a suite is at most 10000 entries. */
static void sort_cases(skit_eval_report *rep)
{
	for (size_t i = 1; i < rep->ncases; i++) {
		skit_eval_case_result c = rep->cases[i];
		struct eval_raw raw = rep->case_raw[i];
		size_t j = i;

		for (; j > 0 && rep->case_raw[j - 1].index > raw.index; j--) {
			rep->cases[j] = rep->cases[j - 1];
			rep->case_raw[j] = rep->case_raw[j - 1];
		}
		rep->cases[j] = c;
		rep->case_raw[j] = raw;
	}
}

static void sort_queries(skit_eval_report *rep)
{
	for (size_t i = 1; i < rep->nqueries; i++) {
		skit_eval_query_result q = rep->queries[i];
		struct eval_raw raw = rep->query_raw[i];
		size_t j = i;

		for (; j > 0 && rep->query_raw[j - 1].index > raw.index; j--) {
			rep->queries[j] = rep->queries[j - 1];
			rep->query_raw[j] = rep->query_raw[j - 1];
		}
		rep->queries[j] = q;
		rep->query_raw[j] = raw;
	}
}

/* Add one entry's trials to the summary and to the median columns. */
static void sum_trials(skit_eval_summary *sum, const struct eval_raw *raw,
                       bool has_steps, bool has_output, double **m, size_t *at)
{
	for (unsigned int k = 0; k < raw->ntrials; k++) {
		const struct eval_raw_trial *t = &raw->trials[k];

		sum->trials_passed += t->passed;
		sum->step_checked += has_steps;
		sum->step_passed += has_steps && t->steps_ok;
		sum->output_checked += has_output;
		sum->output_passed += has_output && t->output_ok;
		sum->input_tokens += t->in;
		sum->output_tokens += t->out;
		sum->wall_ms += t->wall_ms;
		sum->tool_calls += t->tools;
		sum->script_runs += t->scripts;
		m[0][*at] = (double)t->in;
		m[1][*at] = (double)t->out;
		m[2][*at] = (double)t->wall_ms;
		m[3][*at] = t->tools;
		m[4][*at] = t->scripts;
		(*at)++;
	}
}

/* The totals, medians, skill table and trigger rows, as build_report()
 * and skit__eval_score_queries() make them for a run. */
static int score(skit_eval_report *rep, size_t trials)
{
	skit_eval_summary *sum = &rep->sum;
	double *m[5];
	size_t at = 0;
	int rc = 0;

	for (size_t k = 0; k < 5; k++)
		m[k] = skitx_calloc(trials ? trials : 1, sizeof(double));
	if (!m[0] || !m[1] || !m[2] || !m[3] || !m[4])
		rc = SKIT_ENOMEM;
	for (size_t i = 0; !rc && i < rep->ncases; i++) {
		const skit_eval_case_result *c = &rep->cases[i];
		const struct eval_raw *raw = &rep->case_raw[i];

		sum->cases_passed += c->passed;
		sum_trials(sum, raw, c->has_steps, c->has_output, m, &at);
		for (size_t k = 0; !rc && k < raw->nskills; k++)
			rc = skit__eval_add_skill(
			        &rep->pool, &rep->skills, &rep->nskills,
			        &rep->skill_cap, raw->skills[k].name,
			        raw->skills[k].tp, raw->skills[k].fp,
			        raw->skills[k].fn);
	}
	for (size_t i = 0; !rc && i < rep->nqueries; i++)
		sum_trials(sum, &rep->query_raw[i], false, false, m, &at);
	if (!rc)
		rc = skit__eval_trigger_rows(rep);
	if (!rc) {
		sum->cases = rep->ncases;
		sum->trials = trials;
		sum->pass_rate = skit__eval_share(
		        sum->cases_passed + sum->queries_passed,
		        sum->cases + sum->queries, 1.0);
		sum->step_pass_rate = skit__eval_share(sum->step_passed,
		                                       sum->step_checked, 1.0);
		sum->output_pass_rate = skit__eval_share(
		        sum->output_passed, sum->output_checked, 1.0);
		sum->median_input_tokens = skit__eval_median(m[0], trials);
		sum->median_output_tokens = skit__eval_median(m[1], trials);
		sum->median_wall_ms = skit__eval_median(m[2], trials);
		sum->median_tool_calls = skit__eval_median(m[3], trials);
		sum->median_script_runs = skit__eval_median(m[4], trials);
		skit__eval_finish_skills(rep->skills, rep->nskills);
	}
	for (size_t k = 0; k < 5; k++)
		skitx_free(m[k]);
	return rc;
}

int skit_eval_report_merge(skit_eval_report **out, const char *const *paths,
                           size_t n, skit_error *err)
{
	struct merger m;
	bool *shards = NULL;
	unsigned int count = 0;
	int rc = 0;

	assert(out && (paths || !n));
	*out = NULL;
	if (!n)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "no reports to merge");
	memset(&m, 0, sizeof(m));
	m.err = err;
	m.rep = skitx_calloc(1, sizeof(*m.rep));
	shards = skitx_calloc(SKIT__EVAL_SHARDS_MAX, sizeof(*shards));
	if (!m.rep || !shards) {
		skitx_free(m.rep);
		skitx_free(shards);
		return skit__error_oom(err);
	}
	skitx_pool_init(&m.rep->pool, 0);
	for (size_t i = 0; !rc && i < n; i++)
		rc = read_report(&m, paths[i], shards, &count);
	for (unsigned int i = 0; !rc && i < count; i++)
		if (!shards[i])
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "shard %u/%u is missing: no "
			                     "report of it was given",
			                     i + 1, count);
	if (!rc) {
		m.rep->suite_entries = m.entries;
		m.rep->sum.shards_merged = (unsigned int)n;
		sort_cases(m.rep);
		sort_queries(m.rep);
		rc = score(m.rep, m.trials);
		if (rc)
			rc = skit__error_oom(err);
	}
	skitx_free(shards);
	skitx_free(m.seen);
	if (rc) {
		skit_eval_report_free(m.rep);
		return rc;
	}
	*out = m.rep;
	return 0;
}
