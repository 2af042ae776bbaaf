/* SPDX-License-Identifier: MIT */
/*
 * eval_collect.c - what the trials of one entry (a case or a trigger
 * query) left, copied into the report's pool: the reasons, run folders
 * and skills a result shows (skit__eval_collect()), and the raw figures
 * a report keeps for merging shards (skit__eval_raw()). eval.c scores
 * cases with it, eval_trigger.c trigger queries; it uses neither.
 */
#include "common.h"

#include "lib/eval/eval_int.h"
#include "util/vec.h"

static const char **pool_strv(struct skitx_pool *pool, size_t n)
{
	const char **v = skitx_pool_alloc(pool, (n + 1) * sizeof(*v));

	if (v)
		memset(v, 0, (n + 1) * sizeof(*v));
	return v;
}

int skit__eval_collect(struct skitx_pool *pool, const struct eval_runner *r,
                       size_t first, unsigned int trials, size_t extra,
                       struct eval_collected *out)
{
	size_t nreasons = extra + 1, nskills = 0;

	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < trials; k++) {
		nreasons += r->trials[first + k].reasons.len;
		nskills += r->trials[first + k].skills.len;
	}
	out->reasons = pool_strv(pool, nreasons);
	out->dirs = pool_strv(pool, trials);
	out->skills = pool_strv(pool, nskills);
	if (!out->reasons || !out->dirs || !out->skills)
		return SKIT_ENOMEM;
	for (size_t k = 0; k < trials; k++) {
		const struct eval_trial *t = &r->trials[first + k];
		const char **slot;

		if (t->run_dir) {
			slot = &out->dirs[out->ndirs++];
			*slot = skitx_pool_strdup(pool, t->run_dir);
			if (!*slot)
				return SKIT_ENOMEM;
		}
		for (size_t i = 0; i < t->reasons.len; i++) {
			slot = &out->reasons[out->nreasons++];
			*slot = trials > 1
			                ? skitx_pool_printf(
			                          pool, "trial %zu: %s", k + 1,
			                          (char *)t->reasons.items[i])
			                : skitx_pool_strdup(
			                          pool, t->reasons.items[i]);
			if (!*slot)
				return SKIT_ENOMEM;
		}
		if (!t->ran && !t->reasons.len && !out->nreasons)
			out->reasons[out->nreasons++] = "not run (canceled)";
		for (size_t i = 0; i < t->skills.len; i++) {
			bool seen = false;

			for (size_t j = 0; j < out->nskills; j++)
				seen |= !strcmp(out->skills[j],
				                t->skills.items[i]);
			if (seen)
				continue;
			slot = &out->skills[out->nskills++];
			*slot = skitx_pool_strdup(pool, t->skills.items[i]);
			if (!*slot)
				return SKIT_ENOMEM;
		}
	}
	return 0;
}

/* The figures of trials [first, first + n) for the report's raw data. */
static struct eval_raw_trial *raw_trials(struct skitx_pool *pool,
                                         const struct eval_runner *r,
                                         size_t first, unsigned int n)
{
	struct eval_raw_trial *v = skitx_pool_alloc(pool, (n + 1) * sizeof(*v));

	for (unsigned int k = 0; v && k < n; k++) {
		const struct eval_trial *t = &r->trials[first + k];

		v[k].in = t->in;
		v[k].out = t->out;
		v[k].wall_ms = t->wall_ms;
		v[k].tools = t->tools;
		v[k].scripts = t->scripts;
		v[k].passed = t->passed;
		v[k].steps_ok = t->steps_ok;
		v[k].output_ok = t->output_ok;
		v[k].triggered = t->triggered;
	}
	return v;
}

int skit__eval_raw(struct skitx_pool *pool, const struct eval_runner *r,
                   size_t ci, size_t first, struct eval_raw *out)
{
	memset(out, 0, sizeof(*out));
	out->index = ci;
	out->ntrials = r->s->cases[ci].trials;
	out->trials = raw_trials(pool, r, first, out->ntrials);
	return out->trials ? 0 : SKIT_ENOMEM;
}
