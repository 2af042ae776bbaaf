/* SPDX-License-Identifier: MIT */
#ifndef SKIT_EVAL_H
#define SKIT_EVAL_H

#include <stdint.h>

#include "skit/common.h"

/**
 * @file skit/eval.h
 * @brief Evals: case files, run through the real agent loop, scored and
 *        reported.
 *
 * A suite is a set of case files (YAML or JSON). A case names a task
 * (`input`), the skills to load (`skills`: roots, or skill folders whose
 * parent then becomes the root), files copied into each run's work
 * folder (`files`), a `cassette` for the offline replay model, how many
 * `trials` to run and the share of them that must pass
 * (`pass_threshold`), and what is expected:
 *
 * @code
 * input: Summarise sample.csv
 * skills:
 *   - ../skills
 * files:
 *   - data/sample.csv               # inside the case's folder
 * cassette: cassettes/csv.jsonl
 * trials: 1
 * expected:
 *   skills:                         # must be activated
 *     - csv-report
 *   not_skills:                     # must not be
 *     - pdf-text
 *   steps:                          # an ordered subsequence of the calls
 *     - use_skill:csv-report
 *     - run_skill_script:csv-report/scripts/report.py
 *   max_tool_calls: 6
 *   forbidden_tools:
 *     - shell
 *   output:
 *     contains: 12 rows             # a string or a list of them
 *     not_contains: error
 *     regex: mean [0-9.]+           # POSIX extended
 *     json:                         # the answer parsed as JSON
 *       - path: a.b.0
 *         equals: x
 * @endcode
 *
 * (The YAML dialect is the strict one of SKILL.md frontmatter: block
 * style only, every scalar a string.) A step is a tool name, or
 * `tool:target` where the target is the skill for use_skill and
 * `skill/path` for run_skill_script and read_skill_resource.
 *
 * Relative paths in a case resolve against the case file's folder. Case
 * files are untrusted: at most 1 MiB, unknown keys and wrong types are
 * refused with "file:line: ..." messages. A case's `files` must be inside
 * its folder: an absolute path, a `..` component, a symbolic link (even
 * one pointing inside), a file of another type or with other hard links
 * is refused, and the copy opens each file beneath the folder again
 * (openat2 RESOLVE_BENEATH, or one O_NOFOLLOW step per component), so a
 * folder swapped for a link after loading is refused too.
 *
 * With `honour_trust` (as `skit eval` runs), a suite runs only when every
 * case file is in a folder the user trusts (skit_trust_check();
 * docs/evals.md, "Folder trust"): a case names the skills whose scripts
 * run and the cassette that drives the calls, so a cloned repository's
 * cases are someone else's code. No trial's program
 * gets the network: the policy of every trial is the one of
 * `--no-network`, so a skill's `allowed-tools` (a
 * `WebFetch(domain:...)`) grants nothing either.
 *
 * Each trial is one agent (one conversation, one run folder with its own
 * audit trail) working in a folder of its own ("work-*" next to the run
 * folder; the case's `files` are copied there), which is the project of
 * the file tools and where scripts run. A case's trials run under a
 * policy that approves every call (like `--yes`). Trials run in parallel
 * up to `jobs`. A suite runs at most 100000 trials in all.
 *
 * A file with `queries` instead of `input` is a *trigger set*, for tuning
 * one skill's description: each query is run `trials` times and counts as
 * triggering when the skill is activated within the first `max_turns`
 * model calls in at least `threshold` of them.
 *
 * @code
 * skill: csv-report                 # the skill whose triggering is measured
 * skills:
 *   - ../skills                     # everything the index lists
 * cassette: cassettes/no.jsonl      # default for queries without one
 * trials: 3
 * threshold: 0.5                    # trigger rate that counts (default 0.5)
 * max_turns: 3                      # model calls watched (default 3)
 * holdout: 0.4                      # share held out per class (default 0)
 * seed: 7                           # which ones (default 0)
 * queries:
 *   - query: What is in sales.csv?
 *     should_trigger: true
 *     cassette: cassettes/yes.jsonl
 *   - query: Review my last commit
 *     should_trigger: false
 * @endcode
 *
 * A trigger trial stops as soon as the skill is activated, and runs under
 * a policy that approves nothing: the tools are offered as in an
 * interactive session, but only reads and the skill tools run, so a
 * query has no side effects. The held-out split is stratified: of the
 * should-trigger and of the should-not queries, round(holdout * n) (at
 * least 1, at most n - 1) are held out, chosen by the SHA-256 of the seed
 * and the query text, so a split is stable across runs and machines.
 * Each query is one entry of the suite, named "<set>#<n>".
 */

SKIT_BEGIN_DECL

/** Loaded case files. Opaque; free with skit_eval_suite_free(). */
typedef struct skit_eval_suite skit_eval_suite;

/** The results of a run. Opaque; free with skit_eval_report_free(). */
typedef struct skit_eval_report skit_eval_report;

/**
 * Load case files. Each path is a case file or a folder whose *.yaml,
 * *.yml and *.json files (not recursive) are taken in name order.
 *
 * @param[out] out  the suite, owned by the caller; NULL on failure
 * @return SKIT_OK; SKIT_EINVALID for a malformed case (message
 *         "file:line: ..."); SKIT_ETOOBIG for a case file over 1 MiB, or
 *         a suite of over 10000 entries or 100000 trials;
 *         SKIT_ENOTFOUND for a missing path or a folder without cases;
 *         SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_eval_suite_load(skit_eval_suite **out,
                                     const char *const *paths, size_t n,
                                     skit_error *err);

/** Number of entries (cases, and trigger queries), and the name (file
 *  name without extension, or "<set>#<n>" for a query) and file of entry
 *  `i`. Borrowed from the suite. */
SKIT_EXTERN size_t skit_eval_suite_count(const skit_eval_suite *s);
SKIT_EXTERN const char *skit_eval_suite_case_name(const skit_eval_suite *s,
                                                  size_t i);
SKIT_EXTERN const char *skit_eval_suite_case_file(const skit_eval_suite *s,
                                                  size_t i);

/**
 * Folder trust: whether every case file of the suite is in a folder the
 * user trusts (skit_trust_check(): the folder, or one holding it, is in
 * the user config's "trusted" list). A case file names the skills whose
 * scripts a trial runs and the cassette that drives its calls, so the
 * cases of a cloned repository are someone else's code, as its skills
 * are for a run.
 *
 * @param[out] out  NULL when every case file is in a trusted folder;
 *                  else the folder to trust for the first one that is
 *                  not: its project, found as for a run started in the
 *                  case file's folder (skit_project_for_run()), or that
 *                  folder itself. Owned by the caller (skit_free()).
 * @return SKIT_OK; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_eval_suite_untrusted(char **out, const skit_eval_suite *s,
                                          skit_error *err);

/** Free the suite. NULL is a no-op. */
SKIT_EXTERN void skit_eval_suite_free(skit_eval_suite *s);

/**
 * Called after each trial, on the thread that ran it but never on two at
 * once: `done` of `total` trials have finished; the last was of `name`.
 */
typedef void (*skit_eval_progress_cb)(size_t done, size_t total,
                                      const char *name, bool passed,
                                      void *payload);

/** Options for skit_eval_run(); start from SKIT_EVAL_OPTIONS_INIT. */
typedef struct {
	unsigned int version; /**< SKIT_EVAL_OPTIONS_VERSION */
	/** A model spec ("openai:gpt-4.1-mini") for every case; NULL:
	 *  each case's cassette through the replay model. */
	const char *model;
	unsigned int jobs; /**< trials at once; 0 or 1: one at a time */
	/** Where each trial's run folder goes; NULL: a new folder
	 *  "skit-eval-XXXXXX" under $TMPDIR (see the report). */
	const char *runs_dir;
	/** Share of trials a case must pass when it names no
	 *  pass_threshold; 0: 1.0 (all). */
	double pass_threshold;
	long script_timeout_ms;         /**< per script run; 0: the agent's */
	const volatile int *cancel;     /**< non-zero stops the trials */
	skit_eval_progress_cb progress; /**< may be NULL */
	void *payload;
	/** Share of each trigger set's queries to hold out, instead of the
	 *  set's own `holdout`: 0 to under 1; negative (the default): each
	 *  set's own. */
	double holdout;
	/**
	 * Run only shard `shard_index` (1 to `shard_count`) of the suite:
	 * the entries whose SHA-256 of a stable identity (a case: its file
	 * name and name; a query: its skill and text), taken modulo
	 * `shard_count`, is `shard_index` - 1. Adding or reordering entries
	 * moves no other entry. Held-out splits are computed over the whole
	 * suite first. 0 and 0: the whole suite.
	 */
	unsigned int shard_index, shard_count;
	/**
	 * Requests and tokens per minute allowed to the model's provider,
	 * shared by every trial (see skit_ratelimit_new()); 0: no limit.
	 * The trials share a 429's retry-after pause either way.
	 */
	unsigned int rpm, tpm;
	/**
	 * Honour folder trust, as `skit eval` does: a suite with a case
	 * file outside the folders the user trusts
	 * (skit_eval_suite_untrusted()) is refused with SKIT_EDENIED. For
	 * a caller running case files it did not write (a cloned
	 * repository's). false: the caller vouches for every case file, as
	 * `--root` does for a run (skit_roots_options.honour_trust is the
	 * registry's same switch).
	 */
	bool honour_trust;
} skit_eval_options;

/* clang-format off */
#define SKIT_EVAL_OPTIONS_VERSION 1
#define SKIT_EVAL_OPTIONS_INIT { SKIT_EVAL_OPTIONS_VERSION, NULL, 0, NULL, 0, 0, NULL, NULL, NULL, -1.0, 0, 0, 0, 0, false }
/* clang-format on */

/**
 * Run every case. A trial that fails (a check, the model, a budget) is a
 * result, not an error: it is recorded with its reasons.
 *
 * @param[out] out  the report, owned by the caller; NULL on failure
 * @return SKIT_OK; SKIT_EUSAGE for bad options or a case with no
 *         cassette and no model; SKIT_EDENIED, with `honour_trust`,
 *         for a case file outside the folders the user trusts (the
 *         message names the folder to trust); SKIT_EIO when the runs
 *         folder cannot be made; SKIT_ECANCELED; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_eval_run(skit_eval_report **out, const skit_eval_suite *s,
                              const skit_eval_options *opts, skit_error *err);

/** One case's results. Every pointer is borrowed from the report. */
typedef struct {
	const char *name;
	const char *file;
	bool passed;
	unsigned int trials, trials_passed;
	/** Why trials failed, one line each ("trial 2: ..." with several
	 *  trials). */
	const char *const *reasons;
	size_t reason_count;
	const char *const *run_dirs; /**< one per trial */
	size_t run_dir_count;
	/** Skills activated in any trial, in order of first activation. */
	const char *const *skills;
	size_t skill_count;
	/** Sums over the trials. */
	uint64_t input_tokens, output_tokens, wall_ms;
	unsigned int tool_calls, script_runs;
	bool has_steps, steps_ok;   /**< step constraints: any, all met */
	bool has_output, output_ok; /**< output checks: any, all met */
} skit_eval_case_result;

/** Trigger metrics of one skill over every trial. A false positive is
 *  an activation the case did not expect. */
typedef struct {
	const char *name;
	unsigned int tp, fp, fn;
	double precision, recall, f1; /**< NAN when undefined (0/0) */
} skit_eval_skill_result;

/** One trigger query's results. Every pointer is borrowed from the
 *  report. */
typedef struct {
	const char *name; /**< "<set>#<n>", n from 1 */
	const char *file; /**< the trigger set */
	const char *skill;
	const char *query;
	bool should_trigger;
	bool held_out; /**< in the held-out split */
	unsigned int trials;
	unsigned int triggered; /**< trials that activated the skill */
	double rate;            /**< triggered / trials */
	bool passed; /**< rate on the right side of the threshold, no error */
	/** Why it failed, and which other skills were activated. */
	const char *const *reasons;
	size_t reason_count;
	const char *const *run_dirs; /**< one per trial */
	size_t run_dir_count;
	uint64_t input_tokens, output_tokens, wall_ms; /**< sums */
} skit_eval_query_result;

/**
 * Trigger metrics of one skill over one split of its queries, counted
 * over trials: a true positive is a should-trigger trial that activated
 * the skill, a false positive a should-not one that did.
 */
typedef struct {
	const char *skill;
	/** "all"; with a holdout also a "train" and a "held-out" row */
	const char *split;
	unsigned int queries, queries_passed;
	unsigned int should, should_not; /**< queries of each kind */
	unsigned int tp, fp, fn, tn;
	double trigger_rate;       /**< tp / (tp + fn): recall; NAN for 0/0 */
	double false_trigger_rate; /**< fp / (fp + tn); NAN for 0/0 */
	double precision, f1;      /**< NAN for 0/0 (no data) */
	double accuracy;           /**< queries_passed / queries */
} skit_eval_trigger_result;

/** Totals and medians (over trials) of a report. */
typedef struct {
	size_t cases, cases_passed, trials, trials_passed;
	/** (cases_passed + queries_passed) / (cases + queries); 1.0 for
	 *  none. */
	double pass_rate;
	size_t step_checked, step_passed;     /**< trials with steps */
	double step_pass_rate;                /**< 1.0 for none */
	size_t output_checked, output_passed; /**< trials with checks */
	double output_pass_rate;              /**< 1.0 for none */
	uint64_t input_tokens, output_tokens, wall_ms;
	unsigned long tool_calls, script_runs;
	double median_input_tokens, median_output_tokens, median_wall_ms;
	double median_tool_calls, median_script_runs;
	const char *runs_dir;           /**< where the run folders are */
	size_t queries, queries_passed; /**< trigger queries */
	/** The shard run (1 to shard_count), or 0 and 0 for a whole suite
	 *  or a merged report. */
	unsigned int shard_index, shard_count;
	/** Shard reports merged into this one; 0 for a run. */
	unsigned int shards_merged;
} skit_eval_summary;

SKIT_EXTERN size_t skit_eval_report_case_count(const skit_eval_report *r);
SKIT_EXTERN const skit_eval_case_result *
skit_eval_report_case(const skit_eval_report *r, size_t i);
/** Skills by name: every skill expected, refused or activated. */
SKIT_EXTERN size_t skit_eval_report_skill_count(const skit_eval_report *r);
SKIT_EXTERN const skit_eval_skill_result *
skit_eval_report_skill(const skit_eval_report *r, size_t i);
/** Trigger queries, in suite order. */
SKIT_EXTERN size_t skit_eval_report_query_count(const skit_eval_report *r);
SKIT_EXTERN const skit_eval_query_result *
skit_eval_report_query(const skit_eval_report *r, size_t i);
/** Trigger metrics by skill, then split ("all", "train", "held-out"). */
SKIT_EXTERN size_t skit_eval_report_trigger_count(const skit_eval_report *r);
SKIT_EXTERN const skit_eval_trigger_result *
skit_eval_report_trigger(const skit_eval_report *r, size_t i);
SKIT_EXTERN void skit_eval_report_summary(const skit_eval_report *r,
                                          skit_eval_summary *out);

/** Report formats. */
typedef enum {
	SKIT_EVAL_TEXT = 0,  /**< a table for people */
	SKIT_EVAL_JSON = 1,  /**< one JSON object */
	SKIT_EVAL_JUNIT = 2, /**< JUnit XML, one testcase per case or query */
} skit_eval_format;

/**
 * Render the report.
 * @param[out] out  NUL-terminated text, owned by the caller (skit_free())
 * @return SKIT_OK; SKIT_EUSAGE for an unknown format; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_eval_report_write(char **out, const skit_eval_report *r,
                                       skit_eval_format format,
                                       skit_error *err);

/**
 * Merge the JSON reports of the shards of one suite (as written by
 * skit_eval_report_write() with SKIT_EVAL_JSON from runs with
 * `shard_count` N) into the report an unsharded run would have given:
 * the same cases and queries in suite order, and every total, median,
 * skill and trigger metric recomputed from the trials' own figures
 * (the JSON report keeps them, as "trial_data"). Wall times are the
 * shards' own. The merged report has no runs folder; each entry keeps
 * its run folders.
 *
 * Reports are untrusted: each is capped at 256 MiB and checked.
 *
 * @param[out] out  the report, owned by the caller; NULL on failure
 * @param paths     the JSON report files
 * @return SKIT_OK; SKIT_EINVALID for a report that is not a JSON
 *         report of version 2, reports of different suites or shard
 *         counts, the same shard twice, an entry in two reports, or a
 *         missing shard (message naming the file); SKIT_ENOTFOUND or
 *         SKIT_EIO for a file that cannot be read; SKIT_ETOOBIG;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_eval_report_merge(skit_eval_report **out,
                                       const char *const *paths, size_t n,
                                       skit_error *err);

/** Free the report. NULL is a no-op. */
SKIT_EXTERN void skit_eval_report_free(skit_eval_report *r);

SKIT_END_DECL

#endif /* SKIT_EVAL_H */
