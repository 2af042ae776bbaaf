/* SPDX-License-Identifier: MIT */
/*
 * eval_trigger.c - trigger sets, for tuning a skill's description: the
 * stratified held-out split of the queries marked should / should-not
 * trigger one skill, and the trigger rates per query and per skill. The
 * queries are loaded by eval_load.c; a query runs as eval.c's run_trial
 * does any case, under the policy and the turn budget of a trigger
 * trial, and its trials are collected by eval_collect.c.
 */
#include "common.h"

#include "lib/core/digest.h"
#include "lib/eval/eval_int.h"
#include "util/alloc.h"
#include "util/buf.h"

#define SHOW_MAX     SKIT__EVAL_SHOW_MAX
#define SHOWN_SKILLS 5

/* ---- the held-out split ------------------------------------------------ */

struct pick {
	size_t i;
	char key[65];
};

static int cmp_pick(const void *a, const void *b)
{
	const struct pick *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* Hold out round(h * n) of the n queries in [begin, end) of one class. */
static int split_class(const skit_eval_suite *s, size_t begin, size_t end,
                       bool should, double h, bool *held)
{
	struct pick *picks;
	struct skitx_buf b;
	size_t n = 0, k;
	long want;

	for (size_t i = begin; i < end; i++)
		n += s->cases[i].should == should;
	if (h <= 0.0 || n < 2)
		return 0;
	picks = skitx_calloc(n, sizeof(*picks));
	if (!picks)
		return SKIT_ENOMEM;
	skitx_buf_init(&b, 0);
	n = 0;
	for (size_t i = begin; i < end; i++) {
		const struct eval_case *c = &s->cases[i];

		if (c->should != should)
			continue;
		skitx_buf_clear(&b);
		if (skitx_buf_printf(&b, "%s\n%s", c->seed, c->input)) {
			skitx_buf_release(&b);
			skitx_free(picks);
			return SKIT_ENOMEM;
		}
		picks[n].i = i;
		skit__sha256_hex(skitx_buf_cstr(&b), skitx_buf_len(&b),
		                 picks[n++].key);
	}
	skitx_buf_release(&b);
	qsort(picks, n, sizeof(*picks), cmp_pick);
	want = (long)(h * (double)n + 0.5);
	k = want < 1 ? 1 : (size_t)want > n - 1 ? n - 1 : (size_t)want;
	for (size_t j = 0; j < k; j++)
		held[picks[j].i] = true;
	skitx_free(picks);
	return 0;
}

int skit__eval_split(const skit_eval_suite *s, double holdout, bool *held)
{
	size_t begin = 0;
	int rc = 0;

	memset(held, 0, s->n * sizeof(*held));
	/* The queries of a set are contiguous in the suite. */
	while (!rc && begin < s->n) {
		size_t end = begin + 1;
		double h;

		if (!s->cases[begin].skill) {
			begin++;
			continue;
		}
		while (end < s->n && s->cases[end].set == s->cases[begin].set)
			end++;
		h = holdout >= 0.0 ? holdout : s->cases[begin].holdout;
		rc = split_class(s, begin, end, true, h, held);
		if (!rc)
			rc = split_class(s, begin, end, false, h, held);
		begin = end;
	}
	return rc;
}

/* ---- scoring ----------------------------------------------------------- */

static const char *const splits[] = { "all", "train", "held-out" };

/* Why a query failed on its rate, and what else it activated. */
static int explain(struct skitx_pool *pool, const struct eval_case *c,
                   const skit_eval_query_result *q, struct eval_collected *got)
{
	struct skitx_buf others;
	const char *line;
	size_t shown = 0;
	int rc = 0;

	line = skitx_pool_printf(
	        pool, "triggered in %u of %u trials (%.2f); %s %.2f",
	        q->triggered, q->trials, q->rate,
	        c->should ? "needs at least" : "must stay under", c->threshold);
	if (!line)
		return SKIT_ENOMEM;
	got->reasons[got->nreasons++] = line;
	skitx_buf_init(&others, 0);
	for (size_t i = 0; i < got->nskills; i++) {
		if (!strcmp(got->skills[i], c->skill))
			continue;
		if (shown++ < SHOWN_SKILLS)
			rc |= skitx_buf_printf(&others, "%s%.*s",
			                       shown > 1 ? ", " : "", SHOW_MAX,
			                       got->skills[i]);
	}
	if (shown > SHOWN_SKILLS)
		rc |= skitx_buf_puts(&others, ", ...");
	if (!rc && shown) {
		line = skitx_pool_printf(pool, "other skills activated: %s",
		                         skitx_buf_cstr(&others));
		if (!line)
			rc = SKIT_ENOMEM;
		else
			got->reasons[got->nreasons++] = line;
	}
	skitx_buf_release(&others);
	return rc ? SKIT_ENOMEM : 0;
}

static int score_query(skit_eval_report *rep, const struct eval_runner *r,
                       size_t ci, size_t first)
{
	const struct eval_case *c = &r->s->cases[ci];
	struct eval_raw *raw = &rep->query_raw[rep->nqueries];
	skit_eval_query_result *q = &rep->queries[rep->nqueries++];
	struct skitx_pool *pool = &rep->pool;
	struct eval_collected got;
	bool ok;
	int rc = skit__eval_collect(pool, r, first, c->trials, 2, &got);

	if (!rc)
		rc = skit__eval_raw(pool, r, ci, first, raw);
	if (rc)
		return rc;
	memset(q, 0, sizeof(*q));
	q->name = skitx_pool_strdup(pool, c->name);
	q->file = skitx_pool_strdup(pool, c->file);
	q->skill = skitx_pool_strdup(pool, c->skill);
	q->query = skitx_pool_strdup(pool, c->input);
	if (!q->name || !q->file || !q->skill || !q->query)
		return SKIT_ENOMEM;
	q->should_trigger = c->should;
	q->held_out = r->held[ci];
	q->trials = c->trials;
	for (size_t k = 0; k < c->trials; k++) {
		const struct eval_trial *t = &r->trials[first + k];

		q->triggered += t->triggered;
		q->input_tokens += t->in;
		q->output_tokens += t->out;
		q->wall_ms += t->wall_ms;
	}
	q->rate = skit__eval_share(q->triggered, q->trials, 0.0);
	/* The epsilon lets 2 of 3 meet a threshold written 0.66. */
	ok = c->should ? q->rate + 1e-9 >= c->threshold
	               : q->rate + 1e-9 < c->threshold;
	/* A trial that erred (its reasons) fails the query too. */
	q->passed = ok && !got.nreasons;
	if (!ok)
		rc = explain(pool, c, q, &got);
	q->reasons = got.reasons;
	q->reason_count = got.nreasons;
	q->run_dirs = got.dirs;
	q->run_dir_count = got.ndirs;
	return rc;
}

/* Add query `q` to the row of its skill and `split`. */
static void add_row(skit_eval_trigger_result *row,
                    const skit_eval_query_result *q)
{
	unsigned int missed = q->trials - q->triggered;

	row->queries++;
	row->queries_passed += q->passed;
	if (q->should_trigger) {
		row->should++;
		row->tp += q->triggered;
		row->fn += missed;
	} else {
		row->should_not++;
		row->fp += q->triggered;
		row->tn += missed;
	}
}

static void finish_row(skit_eval_trigger_result *row)
{
	double p = skit__eval_share(row->tp, row->tp + row->fp, NAN);
	double rec = skit__eval_share(row->tp, row->tp + row->fn, NAN);

	row->trigger_rate = rec;
	row->false_trigger_rate =
	        skit__eval_share(row->fp, row->fp + row->tn, NAN);
	row->precision = p;
	row->f1 = skit__eval_f1(p, rec);
	row->accuracy =
	        skit__eval_share(row->queries_passed, row->queries, 1.0);
}

static int cmp_row(const void *a, const void *b)
{
	const skit_eval_trigger_result *x = a, *y = b;
	int c = strcmp(x->skill, y->skill);
	size_t i = 0, j = 0;

	if (c)
		return c;
	while (strcmp(splits[i], x->split))
		i++;
	while (strcmp(splits[j], y->split))
		j++;
	return (i > j) - (i < j);
}

/* The three rows of `skill` (all, train, held-out), made on first use. */
static skit_eval_trigger_result *rows_of(skit_eval_report *rep,
                                         const char *skill)
{
	skit_eval_trigger_result *row;

	for (size_t i = 0; i < rep->ntriggers; i += 3)
		if (!strcmp(rep->triggers[i].skill, skill))
			return &rep->triggers[i];
	row = &rep->triggers[rep->ntriggers];
	memset(row, 0, 3 * sizeof(*row));
	for (size_t k = 0; k < 3; k++) {
		row[k].skill = skill;
		row[k].split = splits[k];
	}
	rep->ntriggers += 3;
	return row;
}

int skit__eval_score_queries(skit_eval_report *rep, const struct eval_runner *r)
{
	const skit_eval_suite *s = r->s;
	size_t nq = 0, first = 0;
	int rc = 0;

	for (size_t i = 0; i < s->n; i++)
		nq += s->cases[i].skill != NULL && r->sel[i];
	if (!nq)
		return 0;
	rep->queries = skitx_calloc(nq, sizeof(*rep->queries));
	rep->query_raw = skitx_calloc(nq, sizeof(*rep->query_raw));
	if (!rep->queries || !rep->query_raw)
		return SKIT_ENOMEM;
	for (size_t ci = 0; !rc && ci < s->n; ci++) {
		if (!r->sel[ci])
			continue; /* another shard's: no trials */
		if (s->cases[ci].skill)
			rc = score_query(rep, r, ci, first);
		first += s->cases[ci].trials;
	}
	return rc ? rc : skit__eval_trigger_rows(rep);
}

int skit__eval_trigger_rows(skit_eval_report *rep)
{
	skit_eval_trigger_result *rows = NULL;
	size_t kept = 0;

	if (!rep->nqueries)
		return 0;
	rep->triggers = skitx_calloc(3 * rep->nqueries, sizeof(*rep->triggers));
	if (!rep->triggers)
		return SKIT_ENOMEM;
	rep->sum.queries = rep->sum.queries_passed = 0;
	for (size_t i = 0; i < rep->nqueries; i++) {
		const skit_eval_query_result *q = &rep->queries[i];

		/* Consecutive queries share a set, hence a skill. */
		if (!rows || strcmp(rows->skill, q->skill))
			rows = rows_of(rep, q->skill);
		add_row(&rows[0], q);
		add_row(&rows[q->held_out ? 2 : 1], q);
		rep->sum.queries++;
		rep->sum.queries_passed += q->passed;
	}
	/* Without held-out queries, "train" is "all" and "held-out" empty. */
	for (size_t i = 0; i < rep->ntriggers; i += 3) {
		bool split = rep->triggers[i + 2].queries > 0;

		for (size_t k = 0; k < (split ? 3u : 1u); k++) {
			rep->triggers[kept] = rep->triggers[i + k];
			finish_row(&rep->triggers[kept++]);
		}
	}
	rep->ntriggers = kept;
	qsort(rep->triggers, rep->ntriggers, sizeof(*rep->triggers), cmp_row);
	return 0;
}
