/* SPDX-License-Identifier: MIT */
#ifndef SKIT_HOST_H
#define SKIT_HOST_H

#include "skit/agent.h"
#include "skit/common.h"
#include "skit/prompt.h"
#include "skit/registry.h"

/**
 * @file skit/host.h
 * @brief The skills layer for a host's own model loop: everything skit's
 *        agent gives its model, without skit's loop.
 *
 * A host agent that already talks to its model (its own client, another
 * framework) puts skit_host_index() in its system prompt, offers the
 * tools of skit_host_tools() (OpenAI or Anthropic format), and hands each
 * tool call the model makes to skit_host_call(): the call runs under the
 * same policy, approvals (hooks.on_approve), sandbox and audit trail as
 * `skit run`, and returns the text the model should see. When an
 * activated skill's `allowed-tools` discloses a tool, the call says that
 * the tool list changed: ask skit_host_tools() again. Direct calls
 * (activate a skill, read one of its files, run one of its scripts) are
 * the same calls with their arguments built for you. docs/embedding.md,
 * "The skills layer in your own loop".
 *
 * A skit_host is one conversation's state (the skills activated so far):
 * use one per conversation, from one thread at a time.
 */

SKIT_BEGIN_DECL

typedef struct skit_host skit_host;

/** Tool definitions for a model API. */
typedef enum {
	/** Chat Completions: [{"type": "function", "function": {"name",
	 *  "description", "parameters"}}] */
	SKIT_TOOLS_OPENAI = 0,
	/** Messages: [{"name", "description", "input_schema"}] */
	SKIT_TOOLS_ANTHROPIC = 1,
} skit_tools_format;

/** Options for skit_host_new(); start from SKIT_HOST_OPTIONS_INIT. */
typedef struct {
	unsigned int version; /**< SKIT_HOST_OPTIONS_VERSION */
	/** The skills (scanned; borrowed, must outlive the host). */
	skit_registry *registry;
	/** The permission policy (borrowed). NULL: an empty one, under
	 *  which scripts need hooks.on_approve. */
	const skit_policy *policy;
	/** Approvals, trace lines (on_text is not used). */
	skit_agent_hooks hooks;
	/** The folder scripts run in and may write (as the sandbox mode
	 *  allows); NULL: the registry's project, else a private folder. */
	const char *project_dir;
	/** Offer read_file, list_dir, grep, write_file and shell too. */
	bool file_tools;
	skit_sandbox_mode sandbox_mode;
	/** The private folder of scripts (HOME, TMPDIR); NULL: made. */
	const char *workdir;
	/** The audit trail's root; NULL: no trail. */
	const char *runs_dir;
} skit_host_options;

/* clang-format off */
#define SKIT_HOST_OPTIONS_VERSION 1
#define SKIT_HOST_OPTIONS_INIT { SKIT_HOST_OPTIONS_VERSION, NULL, NULL, \
	{ NULL, NULL, NULL, NULL, NULL }, NULL, false,                 \
	SKIT_SANDBOX_WORKSPACE_WRITE, NULL, NULL }
/* clang-format on */

/**
 * Start a skills layer over `opts->registry`.
 * @return SKIT_OK; SKIT_EUSAGE for missing or bad options; SKIT_EIO when
 *         the trail cannot be opened; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_host_new(skit_host **out, const skit_host_options *opts,
                              skit_error *err);

/**
 * The skills index for the host's system prompt, as skit's agent renders
 * it (skit_registry_render_index()), with `opts` (NULL: XML within
 * SKIT_PROMPT_DEFAULT_BUDGET characters).
 * @param[out] out  owned by the caller; free with skit_free()
 */
SKIT_EXTERN int skit_host_index(skit_host *host,
                                const skit_prompt_options *opts, char **out,
                                skit_error *err);

/**
 * The project's instructions for the host's system prompt, as skit's
 * agent puts them after its base prompt and before the index: the
 * `AGENTS.md` files (else `CLAUDE.md`) of the project (opts->project_dir,
 * else the registry's) from its root down to the current folder, then
 * the user's own, only from folders the user trusts, capped and framed
 * (skit_instructions_load(); docs/agent.md, "Project instructions").
 * Opt-in: the host's prompt holds nothing of them unless it asks. The
 * first call records their digests in the trail (`project_instructions`)
 * and traces each file; the files are read once per host.
 * @param[out] out  "" when there is none; owned by the caller
 *                  (skit_free())
 * @return SKIT_OK; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_host_instructions(skit_host *host, char **out,
                                       skit_error *err);

/**
 * The tools to offer the model now, as a JSON array in `format`. The
 * list grows when an activated skill's `allowed-tools` discloses a tool
 * (run_skill_script, shell...): skit_host_call() says when.
 * @param[out] out  owned by the caller; free with skit_free()
 * @return SKIT_OK; SKIT_EINVALID for an unknown format; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_host_tools(skit_host *host, skit_tools_format format,
                                char **out, skit_error *err);

/**
 * The same tools as structures, for a host that calls its model through
 * skit_model_complete(): fills up to `max` entries of `out` and returns
 * how many there are. The strings are borrowed: valid until the next
 * call into `host`.
 */
SKIT_EXTERN size_t skit_host_tool_schemas(skit_host *host,
                                          skit_tool_schema *out, size_t max);

/**
 * Run the tool call `name` with the JSON object `args_json` as skit's
 * agent would: checked by the policy, approved through hooks.on_approve
 * when it must be, scripts and shell in the sandbox, recorded in the
 * trail. A refusal, a bad argument or a failing script is not an error
 * of this function: it is a result with `*is_error` set, written for the
 * model (as skit's agent sends it).
 *
 * @param[out] result         the text for the model; owned by the
 *                            caller (skit_free())
 * @param[out] is_error       whether the result reports a failure
 * @param[out] tools_changed  may be NULL; set when the tools to offer
 *                            changed (ask skit_host_tools() again)
 * @return SKIT_OK; SKIT_EINVALID when `args_json` is not JSON;
 *         SKIT_ECANCELED; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_host_call(skit_host *host, const char *name,
                               const char *args_json, char **result,
                               bool *is_error, bool *tools_changed,
                               skit_error *err);

/**
 * Activate `skill` (use_skill): its body, with `arguments` (may be NULL)
 * substituted for $ARGUMENTS and $1..$9, and the list of its files.
 * Results and errors as skit_host_call().
 */
SKIT_EXTERN int skit_host_activate(skit_host *host, const char *skill,
                                   const char *arguments, char **result,
                                   bool *is_error, skit_error *err);

/** Read `path` of the activated `skill` (read_skill_resource), contained
 *  in its folder. Results and errors as skit_host_call(). */
SKIT_EXTERN int skit_host_read_resource(skit_host *host, const char *skill,
                                        const char *path, char **result,
                                        bool *is_error, skit_error *err);

/** Run `path` (scripts/...) of the activated `skill` with `argc`
 *  arguments (run_skill_script), in the sandbox, approved as the policy
 *  says. Results and errors as skit_host_call(). */
SKIT_EXTERN int skit_host_run_script(skit_host *host, const char *skill,
                                     const char *path, const char *const *argv,
                                     size_t argc, char **result, bool *is_error,
                                     skit_error *err);

/** The run folder of the trail, or NULL without one. */
SKIT_EXTERN const char *skit_host_run_dir(const skit_host *host);

/**
 * End: write the trail's run.json with `status` ("ok", "error"...) and
 * free the host. NULL is a no-op.
 */
SKIT_EXTERN int skit_host_finish(skit_host *host, const char *status,
                                 skit_error *err);

/** Free without writing run.json. NULL is a no-op. */
SKIT_EXTERN void skit_host_free(skit_host *host);

SKIT_END_DECL

#endif /* SKIT_HOST_H */
