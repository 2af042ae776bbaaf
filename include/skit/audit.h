/* SPDX-License-Identifier: MIT */
#ifndef SKIT_AUDIT_H
#define SKIT_AUDIT_H

#include "skit/common.h"

/**
 * @file skit/audit.h
 * @brief The audit trail of an agent run: writing a run folder, and reading
 *        run folders back.
 *
 * Each run gets a folder `<runs_dir>/<yyyymmddThhmmssZ>-<8 hex>/` (UTC)
 * holding `events.jsonl`, one JSON object a line, appended with one
 * write(2) each as the run goes, and `run.json`, a summary written
 * atomically when the run ends. A run killed at any point leaves every
 * earlier line intact; at most the last line is torn, and readers skip it.
 * Secrets registered with skit_audit_redact() never reach either file.
 *
 * Event types and their fields are documented in docs/audit.md. This
 * module does not decide what to record: the agent does.
 *
 * A writer handle is used by one thread at a time. Reading needs no
 * handle; every returned record is owned by the caller.
 */

SKIT_BEGIN_DECL

/** An open run folder being written. Opaque. */
typedef struct skit_audit skit_audit;

/**
 * Create a new run folder under `runs_dir` and open its events.jsonl.
 *
 * `runs_dir` is created if missing (mode 0700). The run folder is
 * `<UTC yyyymmddThhmmssZ>-<id>` with `id` 8 lowercase hex digits from the
 * kernel's random source, created with mode 0700 (a new id is drawn if the
 * name exists); events.jsonl is created exclusively with mode 0600 and
 * held under an flock() while open, so readers can tell a live run
 * ("running") from a dead one ("incomplete").
 *
 * @param[out] out  the handle, owned by the caller: end it with
 *                  skit_audit_close() or skit_audit_free(); NULL on failure
 * @param runs_dir  the folder holding the runs; must not be NULL
 * @param[out] err  filled in on failure; may be NULL
 * @return SKIT_OK; SKIT_EIO when a folder or the file cannot be created;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_audit_open(skit_audit **out, const char *runs_dir,
                                skit_error *err);

/** The run folder's path. Owned by `a`; valid until it is closed. */
SKIT_EXTERN const char *skit_audit_dir(const skit_audit *a);

/** The run id "<timestamp>-<id>", the folder's name. Owned by `a`. */
SKIT_EXTERN const char *skit_audit_id(const skit_audit *a);

/**
 * Register a secret (an API key, a token): from now on every occurrence of
 * it in an event or in run.json is written as "[REDACTED]". Secrets
 * shorter than 8 bytes are ignored (they would redact ordinary words).
 * `secret` is copied. At most 32 secrets.
 *
 * @return SKIT_OK; SKIT_ETOOBIG past 32 secrets; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_audit_redact(skit_audit *a, const char *secret,
                                  skit_error *err);

/**
 * Append one event line:
 * `{"seq":N,"ts":"2026-11-21T14:30:05.123Z","type":TYPE,...fields}`.
 *
 * `seq` counts from 1. `fields_json` is the text of a JSON object (or
 * NULL) whose members follow the three above; members named seq, ts or
 * type are dropped. The line is written with one write(2) call, so a
 * crash never tears an earlier line. A line over 1 MiB has its long
 * strings cut (and gets `"cut":true`); see docs/audit.md.
 *
 * @param type         the event type, 1-64 of [a-z0-9_.-]
 * @param fields_json  a JSON object as text, or NULL
 * @return SKIT_OK; SKIT_EINVALID for a bad type or fields that are not a
 *         JSON object; SKIT_EIO when the write fails; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_audit_event(skit_audit *a, const char *type,
                                 const char *fields_json, skit_error *err);

/**
 * Write run.json and end the run. The summary is
 * `{"id","dir","started","ended","events":N,...summary members}`, written
 * to a temporary file and renamed into place. `a` is closed and freed in
 * every case, also on error.
 *
 * @param summary_json  a JSON object as text, or NULL
 * @return SKIT_OK; SKIT_EINVALID when the summary is not a JSON object
 *         (run.json is then written without it); SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_audit_close(skit_audit *a, const char *summary_json,
                                 skit_error *err);

/**
 * Abandon the run without run.json (events.jsonl stays, and the run reads
 * back as "incomplete"). NULL is a no-op.
 */
SKIT_EXTERN void skit_audit_free(skit_audit *a);

/* ---- reading runs back ------------------------------------------------ */

/**
 * What is known about one run. Every string is owned by the record (free
 * the records with skit_runs_free()) and valid UTF-8 except `dir`, which
 * keeps the bytes of the path.
 */
typedef struct {
	char *id;      /**< the folder name "<timestamp>-<hex>" */
	char *dir;     /**< the run folder's path */
	char *started; /**< "2026-11-21T14:30:05.123Z" (run.json, else the
	                    first event, else the folder name) */
	char *ended;   /**< NULL when there is no run.json */
	char *status;  /**< run.json "status" ("ok", "error", "limit",
	                    "canceled"...); "running" while the writer is
	                    alive; "incomplete" when run.json is missing and
	                    the writer is gone; "invalid" for a run.json that
	                    cannot be read */
	char *task;    /**< may be NULL */
	char *model;   /**< may be NULL */
	unsigned long turns, tool_calls;
	unsigned long long input_tokens, output_tokens;
	size_t events; /**< events written (run.json), or complete lines */
} skit_run_info;

/**
 * Every run folder under `runs_dir`, newest first (by folder name).
 *
 * Entries that are not run folders (other names, files, symbolic links)
 * are ignored. For a run without run.json, task and model come from its
 * "run_start" event and the counts are summed over its events (turns from
 * "model_response", tool calls from "tool_call", tokens from the
 * responses' usage). Caps: the newest 100,000 runs; run.json at most
 * 1 MiB.
 *
 * @param[out] out    the array, owned by the caller (skit_runs_free());
 *                    NULL when there are no runs
 * @param[out] count  number of records
 * @return SKIT_OK (a missing `runs_dir` is 0 runs); SKIT_EIO when the
 *         folder cannot be read; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_runs_list(skit_run_info **out, size_t *count,
                               const char *runs_dir, skit_error *err);

/**
 * Remove the run folder `<runs_dir>/<id>` and everything in it (its
 * events, run.json and work folder), without following symbolic links.
 * `id` must be a full run folder name. The caller decides which runs may
 * go (skit_runs_list() says which are still running).
 *
 * @return SKIT_OK (also when the run was already gone); SKIT_EINVALID
 *         when `id` is not a run folder name; SKIT_ENOTFOUND when
 *         `runs_dir` does not exist; SKIT_EIO when something cannot be
 *         removed (what could be is gone).
 */
SKIT_EXTERN int skit_run_remove(const char *runs_dir, const char *id,
                                skit_error *err);

/** Free `count` records from skit_runs_list() or skit_run_find(). */
SKIT_EXTERN void skit_runs_free(skit_run_info *runs, size_t count);

/**
 * Find one run by `id`: "last" (the newest), a full folder name, the
 * 8-hex id after the dash, or a unique prefix of a folder name.
 *
 * @param[out] out  one record, owned by the caller: skit_runs_free(out, 1)
 * @return SKIT_OK; SKIT_ENOTFOUND; SKIT_EINVALID when `id` is ambiguous
 *         (the message says "ambiguous" and names two candidates);
 *         SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_run_find(skit_run_info **out, const char *runs_dir,
                              const char *id, skit_error *err);

/**
 * Called with each event line (without its newline; `json` is
 * NUL-terminated and is a JSON object). Return 0 to go on; any other value
 * stops the walk and is returned by skit_run_foreach_event().
 */
typedef int (*skit_run_event_cb)(const char *json, size_t len, void *payload);

/**
 * Call `cb` for each complete line of `<run_dir>/events.jsonl`, in order.
 *
 * A line without its newline (what a SIGKILL may leave at the end), a
 * line that is not a JSON object, and a line over 1 MiB are skipped and
 * counted in `*torn`.
 *
 * @param torn  set to the number of skipped lines; may be NULL
 * @return SKIT_OK; the callback's non-zero value; SKIT_ENOTFOUND when
 *         there is no events.jsonl; SKIT_ETOOBIG over 64 MiB; SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_run_foreach_event(const char *run_dir,
                                       skit_run_event_cb cb, void *payload,
                                       size_t *torn, skit_error *err);

SKIT_END_DECL

#endif /* SKIT_AUDIT_H */
