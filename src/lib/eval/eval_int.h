/* SPDX-License-Identifier: MIT */
/*
 * eval_int.h - what eval_load.c (loading case files and trigger sets),
 * eval.c (running and scoring cases), eval_trigger.c (trigger sets: the
 * held-out split, scoring), eval_collect.c (what an entry's trials left,
 * for its result and the report), eval_report.c (rendering) and
 * eval_merge.c (merging shard reports) share. The files call one
 * another one way: eval_merge.c uses eval.c and eval_trigger.c; eval.c
 * uses eval_load.c, eval_trigger.c, eval_collect.c and eval_report.c;
 * eval_trigger.c uses eval_collect.c; eval_load.c, eval_collect.c and
 * eval_report.c use none of them.
 *
 * The eval subsystem (src/lib/eval/) owns evals (skit/eval.h): case
 * files and trigger sets loaded into a suite, the trials run through the
 * agent, the checks and scores of each, shards and their merge, and the
 * report. It uses agent, tools, model, registry, policy, skill, core and
 * util; the CLI reaches it through skit/eval.h alone. This header is its
 * door: only the files of src/lib/eval/ include it.
 */
#ifndef SKIT_LIB_EVAL_INT_H
#define SKIT_LIB_EVAL_INT_H

#include <math.h>
#include <pthread.h>

#include "skit/eval.h"
#include "skit/model.h"
#include "lib/skill/yaml.h"
#include "util/buf.h"
#include "util/pool.h"
#include "util/vec.h"

#define SKIT__EVAL_SHOW_MAX   60    /* bytes of a value quoted in a message */
#define SKIT__EVAL_TRIALS_MAX 1000u /* trials of a case or a query */
#define SKIT__EVAL_SHARDS_MAX 10000u

/* A list of strings (in a pool). */
struct eval_strv {
	const char **v;
	size_t n;
};

struct eval_json_check {
	const char *path, *equals;
};

/* A case, or one query of a trigger set (`skill` set). */
struct eval_case {
	const char *name, *file, *dir;
	const char *input;
	struct eval_strv skills; /* absolute roots */
	struct eval_strv files;  /* copied into work/: relative to `dir`,
	                            checked to stay in it (eval_load.c) */
	const char *cassette;    /* absolute, or NULL */
	unsigned int trials;
	double threshold; /* < 0: the run's default */
	struct eval_strv exp_skills, not_skills, steps, forbidden;
	long max_tool_calls; /* < 0: none */
	struct eval_strv contains, not_contains, regex;
	struct eval_json_check *json;
	size_t njson;

	/* Trigger queries. `threshold` is the trigger threshold. */
	const char *skill;  /* the skill measured; NULL: a plain case */
	bool should;        /* should trigger */
	unsigned int turns; /* model calls watched */
	size_t set;         /* queries of one file share it (from 1) */
	double holdout;     /* the set's */
	const char *seed;   /* the set's */
};

struct skit_eval_suite {
	struct skitx_pool pool;
	struct eval_case *cases;
	size_t n, cap, sets;
	size_t trials; /* over every entry */
};

/*
 * What a report keeps of each trial, so that shard reports can be merged
 * into exactly the report of an unsharded run (medians need every
 * trial's figures). In JSON: an entry's "trial_data".
 */
struct eval_raw_trial {
	uint64_t in, out, wall_ms;
	unsigned int tools, scripts;
	bool passed, steps_ok, output_ok, triggered;
};

/* A case's own contribution to the skill table. */
struct eval_skill_count {
	const char *name;
	unsigned int tp, fp, fn;
};

/* The raw data of one entry (a case or a query), in the report's pool. */
struct eval_raw {
	size_t index; /* in the suite */
	struct eval_raw_trial *trials;
	unsigned int ntrials;
	struct eval_skill_count *skills; /* cases only */
	size_t nskills;
};

#define SKIT__EVAL_REPORT_VERSION 2 /* of the JSON report */

struct skit_eval_report {
	struct skitx_pool pool;
	struct eval_raw *case_raw;  /* one per case */
	struct eval_raw *query_raw; /* one per query */
	char suite_id[65];          /* SHA-256 of the entries' identities */
	size_t suite_entries;       /* entries of the whole suite */
	skit_eval_case_result *cases;
	size_t ncases;
	skit_eval_skill_result *skills;
	size_t nskills, skill_cap;
	skit_eval_query_result *queries;
	size_t nqueries;
	skit_eval_trigger_result *triggers;
	size_t ntriggers;
	skit_eval_summary sum;
};

/* What one trial did and how it fared. Strings are skitx_ allocations. */
struct eval_trial {
	const struct eval_case *c;
	bool passed, ran, steps_ok, output_ok, triggered;
	struct skitx_vec reasons, skills, calls;
	char *run_dir;
	uint64_t in, out, wall_ms;
	unsigned int tools, scripts;
	/* Trigger trials: the agent, and the flag that stops it. */
	void *agent;
	volatile int stop;
	const volatile int *cancel;
};

struct eval_runner {
	const skit_eval_suite *s;
	const skit_eval_options *o;
	const char *runs_dir;
	double threshold;
	struct eval_trial *trials;
	size_t n, done;
	bool *held;             /* per case: a held-out query */
	bool *sel;              /* per case: in this shard */
	skit_ratelimit *limits; /* shared by every trial's model; or NULL */
	pthread_mutex_t mu;
};

/* a / b, or `none` when b is 0. */
static inline double skit__eval_share(size_t a, size_t b, double none)
{
	return b ? (double)a / (double)b : none;
}

/* The harmonic mean of a precision and a recall (0 when both are; NAN,
 * "no data", when either is). */
static inline double skit__eval_f1(double precision, double recall)
{
	if (isnan(precision) || isnan(recall))
		return NAN;
	return precision + recall > 0
	               ? 2 * precision * recall / (precision + recall)
	               : 0.0;
}

/* ---- loading (eval_load.c) --------------------------------------------- */

/* Where a case file is being read. */
struct eval_loader {
	struct skitx_pool *pool;
	const char *file, *dir, *name; /* name: the file's, without extension */
	skit_error *err;
};

/* "file:line: message" as SKIT_EINVALID (`n` may be NULL). */
int skit__eval_bad(struct eval_loader *ld, const struct skit__ynode *n,
                   const char *fmt, ...) SKIT_PRINTF(3, 4);
/* `map` is a mapping with no key outside `allowed` (NULL-ended). */
int skit__eval_keys(struct eval_loader *ld, const struct skit__ynode *map,
                    const char *what, const char *const *allowed);
/* The string at `key`; NULL when absent and not required. */
int skit__eval_str(struct eval_loader *ld, const struct skit__ynode *map,
                   const char *key, const char **out, bool required);
/* The optional `name`: it names run folders, so it is one path
 * component without control characters. */
int skit__eval_name(struct eval_loader *ld, const struct skit__ynode *map,
                    const char **out);
/* A whole number from 0 to `max` at `key`; *out unchanged when absent. */
int skit__eval_count(struct eval_loader *ld, const struct skit__ynode *map,
                     const char *key, unsigned long max, long *out);
/* `cassette`, resolved; *out unchanged when absent. */
int skit__eval_cassette(struct eval_loader *ld, const struct skit__ynode *map,
                        const char **out);
/* `trials`, 1 to SKIT__EVAL_TRIALS_MAX; *out unchanged when absent. */
int skit__eval_trials(struct eval_loader *ld, const struct skit__ynode *map,
                      unsigned int *out);
/* A number in [0, 1] at `key` ([0, 1) with `below_one`); *out unchanged
 * when absent. */
int skit__eval_rate(struct eval_loader *ld, const struct skit__ynode *map,
                    const char *key, bool below_one, double *out);
/* Skill roots (`skills`) or files at `key`, made absolute. */
int skit__eval_paths(struct eval_loader *ld, const struct skit__ynode *map,
                     const char *key, struct eval_strv *out, bool skills);
/* `rel` against the case file's folder (in the pool); NULL: no memory. */
const char *skit__eval_resolve(struct eval_loader *ld, const char *rel);
/* A new entry at the end of the suite, with the defaults of a case and
 * the file, folder and name of `ld`'s. 0; SKIT_ENOMEM; SKIT_ETOOBIG over
 * the entry cap. */
int skit__eval_add(struct eval_loader *ld, skit_eval_suite *s,
                   struct eval_case **out);
/* Open the entry `rel` of a case's `files` beneath the case's folder
 * `dir`, as loading checks it and as a trial copies it (eval.c): no
 * absolute path, '..', symbolic link or hard-linked file. The descriptor,
 * or -1 with *why set (static text). */
int skit__eval_open_case_file(const char *dir, const char *rel,
                              const char **why);

/* Add the queries of the trigger set `root` (file name `name`). */
int skit__eval_load_set(struct eval_loader *ld, skit_eval_suite *s,
                        const struct skit__ynode *root, const char *name);

/* ---- trigger sets (eval_trigger.c) ------------------------------------- */

/* Mark the held-out queries in `held` (one per entry of the suite), with
 * `holdout` >= 0 overriding every set's. 0 or SKIT_ENOMEM. */
int skit__eval_split(const skit_eval_suite *s, double holdout, bool *held);
/* Fill rep->queries, rep->triggers and the query totals from the trials. */
int skit__eval_score_queries(skit_eval_report *rep,
                             const struct eval_runner *r);
/* Build rep->triggers from rep->queries (in suite order): one row per
 * skill and split. 0 or SKIT_ENOMEM. */
int skit__eval_trigger_rows(skit_eval_report *rep);

/* ---- what an entry's trials left (eval_collect.c) ---------------------- */

/* What the trials of one entry left, copied into the report's pool. */
struct eval_collected {
	const char **reasons; /* "trial k: ..." with several trials */
	const char **dirs;    /* run folders */
	const char **skills;  /* activated, each once, in order */
	size_t nreasons, ndirs, nskills;
};

/* Collect trials [first, first + trials); `reasons` has room for `extra`
 * more lines after theirs. 0 or SKIT_ENOMEM. */
int skit__eval_collect(struct skitx_pool *pool, const struct eval_runner *r,
                       size_t first, unsigned int trials, size_t extra,
                       struct eval_collected *out);

/* The raw data of entry `ci`, whose trials start at `first`. */
int skit__eval_raw(struct skitx_pool *pool, const struct eval_runner *r,
                   size_t ci, size_t first, struct eval_raw *out);

/* ---- scoring (eval.c) -------------------------------------------------- */

/* Add `name`'s counts to the sorted-later skill table (*v, *n, *cap). */
int skit__eval_add_skill(struct skitx_pool *pool, skit_eval_skill_result **v,
                         size_t *n, size_t *cap, const char *name,
                         unsigned int tp, unsigned int fp, unsigned int fn);
/* Precision, recall and F1 of every skill, then sort by name. */
void skit__eval_finish_skills(skit_eval_skill_result *v, size_t n);
/* The median of `n` values (sorts `v`); 0 for none. */
double skit__eval_median(double *v, size_t n);

/* ---- rendering (eval_report.c) ----------------------------------------- */

/* Render `r` in `format` into `out` (skit_eval_report_write()). */
int skit__eval_render(struct skitx_buf *out, const skit_eval_report *r,
                      skit_eval_format format);

#endif
