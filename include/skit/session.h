/* SPDX-License-Identifier: MIT */
#ifndef SKIT_SESSION_H
#define SKIT_SESSION_H

#include <stdint.h>

#include "skit/agent.h"
#include "skit/common.h"

/**
 * @file skit/session.h
 * @brief Sessions that resume, and a context that never overflows.
 *
 * Every agent is a session. With an audit trail (`runs_dir`), its
 * conversation is kept in the run folder's `session.jsonl` as it grows:
 * one JSON record a line, append-only, written at each step, so a session
 * survives a crash of the program (a kill -9 loses at most the step in
 * flight). The records are the messages, the skills activated (with the
 * digest set of their files and the text the model was given), the plan,
 * the tokens used and each compaction. skit_agent_session_save() writes
 * the same file anywhere.
 *
 * skit_agent_options.resume_session continues a session: the agent
 * checks the whole file first (a file of another format version, or a
 * damaged one, is refused and nothing is loaded), then the same
 * conversation goes to the model. Skills stay active when their files
 * have not changed; a changed skill is activated again (the model gets
 * its new instructions and is told why), and one that no longer loads
 * is dropped (the model is told to stop following it). Approvals are
 * not carried over: "always" answers are asked again unless saved in the
 * user config. The resumed session is a new run with its own id and
 * trail, whose session file names the one it continues (`resumed_from`).
 *
 * The context window is skit_agent_options.context_window, else the
 * model's (skit_model_context_window()), else 128,000 tokens; a replay
 * model has none unless one is given (a recording cannot answer the
 * summary requests it did not record), so it is compacted only on
 * request (skit_agent_compact()). Tokens
 * are counted from the provider's usage reports (estimated, 4 bytes a
 * token, for what was added since, and before the first report). When a
 * request would pass compact_percent of the window (80%), the older
 * turns are summarised by the model into one message; the system
 * prompt, the active skills' instructions (re-attached as they were
 * given, not summarised), the plan and the last turns stay whole. A
 * provider's "context length exceeded" answer compacts once and retries
 * the request once. A tool result that alone would take more than a
 * quarter of the window is cut with a note. See docs/agent.md,
 * "Sessions" and "The context window".
 */

SKIT_BEGIN_DECL

/** The session file's format version (its first record says which). */
#define SKIT_SESSION_FORMAT_VERSION 1

/** The largest session file loaded, in bytes. */
#define SKIT_SESSION_MAX_BYTES (256u * 1024 * 1024)

/**
 * The session's id: the run id (skit_audit_id()), or NULL without an
 * audit trail. Owned by the agent.
 */
SKIT_EXTERN const char *skit_agent_session_id(const skit_agent *agent);

/** The id of the session this one continues, or NULL. */
SKIT_EXTERN const char *skit_agent_resumed_from(const skit_agent *agent);

/**
 * Write the whole session (header, skills, plan, usage, conversation)
 * to `path`, replacing it atomically (a temporary file beside it, then
 * rename). The file resumes as the run folder's session.jsonl does.
 * @return SKIT_OK; SKIT_EIO (err names the path); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_agent_session_save(const skit_agent *agent,
                                        const char *path, skit_error *err);

/**
 * Find a session file under `runs_dir`: `which` is "last" (the newest
 * run of the project `project_dir` that holds a conversation; NULL
 * project: any) or a run id, or the unique start of one.
 * @param[out] path  the session file, owned by the caller (skit_free())
 * @return SKIT_OK; SKIT_ENOTFOUND (no such session, or no session of
 *         this project: the message says so); SKIT_EINVALID for an id
 *         that is ambiguous or not a run id; SKIT_EIO; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_session_find(const char *runs_dir, const char *project_dir,
                                  const char *which, char **path,
                                  skit_error *err);

/** What skit_session_check() reads of a session file. */
typedef struct {
	char *id;           /**< the run id it was written under */
	char *resumed_from; /**< or NULL */
	char *model;        /**< "provider:name" */
	char *project;      /**< the project folder */
	char *first_line;   /**< the first line of the first user message */
	size_t messages;    /**< in the conversation, as it would resume */
	size_t skills;      /**< skills active */
	unsigned int compactions;
	bool truncated; /**< a last record cut by a crash was left out */
} skit_session_info;

/**
 * Check the whole session file `path` as a resume would, and describe
 * it. `info` may be NULL (check only); release it with
 * skit_session_info_release().
 * A file that is not the caller's, or that other users may read or
 * write (skit writes sessions 0600; a repository's planted one is 0644),
 * is refused: SKIT_EUNSAFE.
 * @return SKIT_OK; SKIT_ENOTFOUND; SKIT_EINVALID (another format
 *         version, a damaged record: err names the line and why);
 *         SKIT_EUNSAFE;
 *         SKIT_ETOOBIG (over SKIT_SESSION_MAX_BYTES); SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_session_check(const char *path, skit_session_info *info,
                                   skit_error *err);

/** Free what `info` holds and zero it. NULL is a no-op. */
SKIT_EXTERN void skit_session_info_release(skit_session_info *info);

/**
 * Compact the conversation now: the model summarises the older turns
 * (with `focus`, when not NULL, as what to keep), and the summary, the
 * active skills' instructions and the plan replace them; the last turns
 * stay whole. An audit event `compaction` records the tokens before and
 * after. With too little history to summarise, nothing changes.
 * @return SKIT_OK; SKIT_ECANCELED; SKIT_ENOMEM. A model that fails to
 *         summarise is not an error: a plain record of the turns (the
 *         user's requests, the tools called) takes the summary's place.
 */
SKIT_EXTERN int skit_agent_compact(skit_agent *agent, const char *focus,
                                   skit_error *err);

/** The context as the next request would have it. */
typedef struct {
	uint64_t used;   /**< tokens, counted and estimated */
	uint64_t window; /**< tokens; 0: none known (no limit) */
	unsigned int compactions;
	size_t messages;
} skit_agent_context_info;

SKIT_EXTERN void skit_agent_context(const skit_agent *agent,
                                    skit_agent_context_info *out);

/**
 * Use `model` (borrowed; it must outlive the agent) from the next
 * request on, as `/model` does in chat. The window follows the new
 * model unless skit_agent_options.context_window set one.
 * @return SKIT_OK; SKIT_EUSAGE for NULL.
 */
SKIT_EXTERN int skit_agent_set_model(skit_agent *agent, skit_model *model,
                                     skit_error *err);

SKIT_END_DECL

#endif /* SKIT_SESSION_H */
