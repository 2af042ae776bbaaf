/* SPDX-License-Identifier: MIT */
/*
 * session.h - the agent's session file and the context window, for the
 * loop (agent.c). session.c keeps the conversation in the run folder's
 * session.jsonl and restores it on a resume; compact.c counts the
 * context and compacts it. Part of the agent subsystem; included by
 * agent.c, session.c and compact.c only.
 */
#ifndef SKIT_LIB_AGENT_SESSION_H
#define SKIT_LIB_AGENT_SESSION_H

#include "lib/agent/agent_int.h"
#include "skit/session.h"

/* ---- session.c ---- */

/*
 * Open the session: with `resume` (a session file), check it whole and
 * restore its conversation, skills, plan and usage; then, with a trail,
 * create session.jsonl in the run folder and write what the session
 * holds. Returns 0 or a status with err set (nothing half-restored: the
 * agent is freed by the caller).
 */
int skit__session_start(struct skit_agent *a, const char *resume,
                        skit_error *err);

/* The user's text as typed (for listings: the session's first line). */
void skit__session_input(struct skit_agent *a, const char *input);

/* Write the messages, plan and usage not yet in the file. Failures are
 * sticky in a->audit_rc, as the trail's are. */
void skit__session_flush(struct skit_agent *a);

/* The skill a->active[i] was activated and the model given `text`;
 * `digest` is the digest set of its files when known, else NULL (it is
 * computed). */
void skit__session_skill(struct skit_agent *a, size_t i, const char *text,
                         const char *digest);

/* The conversation was replaced (compaction): record it whole again. */
void skit__session_rewritten(struct skit_agent *a, const char *reason);

/* At run_start: the audit event of a resume, if any. */
void skit__session_run_started(struct skit_agent *a);

/* Release the session's state (the file is closed). */
void skit__session_release(struct skit_agent *a);

/* ---- compact.c ---- */

/* The window and the threshold from the options (version 5) and the
 * model. */
void skit__context_init(struct skit_agent *a, uint64_t window,
                        unsigned int percent);

/* After a response: its usage counts the conversation so far. */
void skit__context_observe(struct skit_agent *a, const skit_usage *u);

/* The tokens the next request would hold (counted and estimated). */
uint64_t skit__context_used(const struct skit_agent *a);

/* Before a request: compact when it would pass the threshold. 0, or
 * SKIT_ECANCELED / SKIT_ENOMEM with err set. */
int skit__context_check(struct skit_agent *a, skit_error *err);

/*
 * Compact now, for `reason` ("auto", "request", "overflow"), keeping
 * `focus` (may be NULL). 0 when done or nothing to do; SKIT_ECANCELED,
 * SKIT_ENOMEM.
 */
int skit__context_compact(struct skit_agent *a, const char *focus,
                          const char *reason, skit_error *err);

/* The most bytes one tool result may hold in this window. */
size_t skit__context_result_cap(const struct skit_agent *a);

#endif
