/* SPDX-License-Identifier: MIT */
#ifndef SKIT_AGENT_H
#define SKIT_AGENT_H

#include <stdint.h>

#include "skit/common.h"
#include "skit/model.h"
#include "skit/policy.h"
#include "skit/registry.h"
#include "skit/sandbox.h"

/**
 * @file skit/agent.h
 * @brief The agent loop: a model, the skills index, the skill tools, a
 *        plan, budgets and an audit trail.
 *
 * The system prompt is a base prompt, the project's instructions
 * (`AGENTS.md`: skit_instructions_load()) and the skills index (level 1,
 * budgeted). The model sees the tools `use_skill`, `read_skill_resource`,
 * `update_plan`, and `search_skills` when the index was cut or when asked
 * for; the gated tools (`run_skill_script`, `read_file`, `list_dir`,
 * `grep`, `write_file`, `shell`) as the policy discloses them
 * (skit_policy_offers(): a tool only a skill grants appears once that
 * skill is active). Every gated call is decided by the policy, approved
 * through on_approve when it must be, audited, and, for programs, run in
 * the sandbox (include/skit/sandbox.h). A skill's body (level 2) reaches the
 * model only once the skill is activated: by the model (`use_skill`), by the
 * user (`/name args`), or by a `$name` mention in the user's text. A file
 * of a skill (level 3) reaches it only when the model reads that file of
 * an active skill. Skill text is untrusted data and is framed as such.
 *
 * Models without native tool calling use the same tools through a JSON
 * action protocol in their text (`{"action": "use_skill", "name": ...}`).
 *
 * One agent is one conversation (a `skit run` task, or a whole `skit
 * chat` session) and one run folder in the audit trail. Not thread-safe.
 */

SKIT_BEGIN_DECL

typedef struct skit_agent skit_agent;

/** What a trace event is about (skit_agent_hooks.on_trace). */
typedef enum {
	SKIT_TRACE_SKILL = 0, /**< a skill was activated */
	SKIT_TRACE_TOOL = 1,  /**< a tool was called (and its outcome) */
	SKIT_TRACE_PLAN = 2,  /**< the plan changed */
	SKIT_TRACE_MODEL = 3, /**< a model request is about to be sent */
	SKIT_TRACE_NOTE = 4,  /**< anything else worth a line */
} skit_trace_kind;

/** A call the policy says needs the user's approval (on_approve). */
typedef struct {
	const char *tool;      /**< e.g. "shell", "run_skill_script" */
	const char *skill;     /**< the skill it runs for, or NULL */
	const char *arguments; /**< the call's exact arguments (JSON) */
	const char *target;    /**< the command line, script or path */
	const char *reason;    /**< the policy's reason, one line */
	skit_risk risk;
	/** What "always" would approve for the rest of the session, e.g.
	 *  "shell commands starting with 'git'". */
	const char *always;
	/** The run-time flag that would approve it without asking
	 *  (`--allow 'PATTERN'` or `--yes`); "" when none would. */
	const char *approving_flag;
	/** For `shell` and `run_skill_script`: the network the program
	 *  will have, one line ("on: the whole network", "HTTP and HTTPS
	 *  to example.com only, through skit's proxy", "off"); NULL for
	 *  other tools. */
	const char *network;
} skit_approval;

/** Answers to skit_agent_hooks.on_approve. */
typedef enum {
	SKIT_APPROVE_NO = 0,     /**< refuse this call */
	SKIT_APPROVE_YES = 1,    /**< run this call */
	SKIT_APPROVE_ALWAYS = 2, /**< run it and the like, this session */
	SKIT_APPROVE_NO_ASK = 3, /**< no one can answer (no terminal) */
} skit_approve_answer;

/** Callbacks; any may be NULL. */
typedef struct {
	/** Assistant text as it streams (not NUL-terminated). */
	void (*on_text)(const char *text, size_t len, void *payload);
	/** One human-readable line (no newline) about what is happening. */
	void (*on_trace)(skit_trace_kind kind, const char *line, void *payload);
	void *payload;
	/**
	 * Ask the user about one call. NULL, or an answer of
	 * SKIT_APPROVE_NO_ASK, refuses the call, telling the model that
	 * there was no one to ask and which flag would approve it.
	 */
	skit_approve_answer (*on_approve)(const skit_approval *req,
	                                  void *payload);
	/**
	 * A call that needed approval was refused because no one could
	 * answer (on_approve NULL or SKIT_APPROVE_NO_ASK): the place to
	 * tell the user which flag would approve it (req->approving_flag).
	 */
	void (*on_refused)(const skit_approval *req, void *payload);
} skit_agent_hooks;

/**
 * Where a tool of the program (skit_tool_def) writes its result. Owned by
 * the agent and valid during that one call only; the text reaches the
 * model once the callback returns, cleaned as every tool result is
 * (invalid UTF-8 and hidden characters become U+FFFD).
 */
typedef struct skit_tool_output skit_tool_output;

/** The most a tool's result keeps, in bytes; the rest is cut with a
 *  note for the model. */
#define SKIT_TOOL_OUTPUT_CAP (64 * 1024)

/**
 * Append `len` bytes at `text` to the result.
 * @return SKIT_OK; SKIT_ETOOBIG once SKIT_TOOL_OUTPUT_CAP bytes are
 *         held (what fits is kept, later text is dropped, the model is
 *         told the result was cut); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_tool_output_append(skit_tool_output *out, const char *text,
                                        size_t len);

/** skit_tool_output_append() of the NUL-terminated string `text`. */
SKIT_EXTERN int skit_tool_output_puts(skit_tool_output *out, const char *text);

/**
 * Run one call of a program's tool.
 *
 * @param arguments  the model's arguments: a JSON object, as text
 *                   (borrowed for the call)
 * @param out        where the result goes (skit_tool_output_append())
 * @param[out] is_error  set true when the result is an error message for
 *                   the model (it starts false)
 * @param payload    skit_tool_def.payload
 * @return 0 once the call is answered (an error result included); a
 *         negative SKIT_E* status ends the task with that status
 *         (skit_agent_send() returns it) and the result's text, if any,
 *         as its message.
 */
typedef int (*skit_tool_fn)(const char *arguments, skit_tool_output *out,
                            bool *is_error, void *payload);

/**
 * A tool the program gives skit's agent (skit_agent_options.tools). The
 * model sees it as any other tool, and every call is decided as an MCP
 * server's tool is: the policy with the tool's risk class, the skills'
 * `allowed-tools`, `hooks.on_approve` when the policy says ask, and the
 * audit trail (`approval`, `tool_call`, `custom_tool_run`,
 * `tool_result`) and the trace. See docs/embedding.md, "Your own tools".
 *
 * The name is an MCP tool's: `mcp__SERVER__TOOL`, SERVER a name the
 * program chooses for its tools and TOOL the tool's; each is 1 or more
 * letters, digits, '-' or '_' without "__", 64 characters in all. This
 * is how Claude Code names the tools of its SDK's in-process servers,
 * and how patterns name them: `mcp__SERVER__TOOL`, `mcp__SERVER__PRE*`,
 * `mcp__SERVER` (every tool of SERVER) or `mcp__*`, in `allow`, `deny`,
 * `ask`, `--allow` and `--deny` and in a skill's `allowed-tools`.
 * Every string is copied by skit_agent_new().
 */
typedef struct {
	unsigned int version;    /**< SKIT_TOOL_DEF_VERSION */
	const char *name;        /**< `mcp__SERVER__TOOL` */
	const char *description; /**< for the model; not empty */
	/** JSON Schema of the arguments, as text: an object schema
	 *  (`"type": "object"` when it has a type). NULL: any object. */
	const char *parameters;
	/** What a call may do, as the policy weighs it: SKIT_RISK_READ
	 *  runs unasked; EXECUTE, WRITE and NETWORK need an allow pattern,
	 *  `--yes` or the user's approval; NETWORK is refused under
	 *  `--no-network`. */
	skit_risk risk;
	skit_tool_fn call; /**< required */
	void *payload;     /**< passed to `call`; borrowed */
} skit_tool_def;

/* clang-format off */
#define SKIT_TOOL_DEF_VERSION 1
#define SKIT_TOOL_DEF_INIT { SKIT_TOOL_DEF_VERSION, NULL, NULL, NULL, SKIT_RISK_EXECUTE, NULL, NULL }
/* clang-format on */

/** A question the model asks the user (the ask_user tool). */
typedef struct {
	const char *question;
	/** Choices offered, `option_count` of them (0: a free answer). */
	const char *const *options;
	size_t option_count;
	bool multi; /**< several options may be chosen */
} skit_question;

/**
 * Answer the model's question `q`: write the user's answer into `answer`
 * (skit_tool_output_puts(); the chosen options' text, or the user's own
 * words) and return 0. Return SKIT_ENOTFOUND when no one can answer now:
 * the model is told to go on by its own judgment or stop. Any other
 * negative status ends the task (skit_agent_send() returns it).
 */
typedef int (*skit_ask_fn)(const skit_question *q, skit_tool_output *answer,
                           void *payload);

/**
 * A language server for the `lsp` tool (docs/lsp.md): a program that
 * speaks the Language Server Protocol on its standard input and output,
 * started on the first call that needs it and stopped with the agent.
 */
typedef struct {
	const char *name; /**< e.g. "python"; letters, digits, '-', '_' */
	/** The program and its arguments, NULL-terminated; argv[0] is
	 *  looked up on PATH. */
	const char *const *argv;
	/** The file name endings it serves (".py"), NULL-terminated. */
	const char *const *extensions;
	/** The LSP languageId of its files ("python"); NULL: `name`. */
	const char *language_id;
} skit_lsp_server;

/** Most servers of skit_agent_options.lsp_servers. */
#define SKIT_AGENT_MAX_LSP_SERVERS 16

/** When external tools are deferred behind `tool_search`. */
typedef enum {
	/** Defer them when their definitions would take more than a tenth
	 *  of the context window (the default). */
	SKIT_TOOL_SEARCH_AUTO = 0,
	/** Always defer them (when there is at least one). */
	SKIT_TOOL_SEARCH_ALWAYS = 1,
	/** Never: every tool goes to the model in every request. */
	SKIT_TOOL_SEARCH_NEVER = 2,
} skit_tool_search_mode;

/** Options for skit_agent_new(); start from SKIT_AGENT_OPTIONS_INIT. */
typedef struct {
	unsigned int version;    /**< SKIT_AGENT_OPTIONS_VERSION */
	skit_registry *registry; /**< scanned; borrowed; required */
	skit_model *model;       /**< borrowed; required */
	const char *base_prompt; /**< NULL: the built-in one */
	size_t index_budget; /**< characters; 0: SKIT_PROMPT_DEFAULT_BUDGET */
	bool search_tool;    /**< offer search_skills even when all fit */
	bool json_actions;   /**< the model has no native tool calling */
	unsigned int max_turns;       /**< model calls per task; 0: 25 */
	unsigned int max_tool_calls;  /**< per task; 0: 100 */
	unsigned int max_script_runs; /**< per task; 0: 20 */
	uint64_t max_tokens; /**< input + output over the session; 0: none */
	unsigned int max_skills_per_turn; /**< bodies loaded per turn; 0: 2 */
	unsigned int max_output_tokens;   /**< per response; 0: provider's */
	long script_timeout_ms;           /**< per script run; 0: 120 s */
	size_t script_output_cap; /**< bytes kept per stream; 0: 64 KiB */
	size_t resource_cap;      /**< bytes per resource read; 0: 64 KiB */
	/** The private folder of scripts and shell calls (their `HOME`
	 *  and `TMPDIR`), kept after the run; NULL: a fresh folder under
	 *  $TMPDIR (else /tmp), removed at the end unless `keep_temp`.
	 *  Programs run in the project folder (project_dir). */
	const char *workdir;
	const char *runs_dir; /**< audit trail root; NULL: no trail */
	const volatile int
	        *cancel; /**< set non-zero (e.g. by SIGINT) to stop */
	skit_agent_hooks hooks;
	/** The permission policy (borrowed). NULL: an empty one, under
	 *  which reads run and every other call needs approval. */
	const skit_policy *policy;
	/** The folder the file tools work in; NULL: the registry's
	 *  project folder, else the current folder. */
	const char *project_dir;
	/** Offer read_file, list_dir, grep, write_file and shell (subject
	 *  to the policy). false: only the skill tools. */
	bool file_tools;
	/** What scripts and shell calls may write (skit/sandbox.h); the
	 *  caller decides who may choose full-access. */
	skit_sandbox_mode sandbox_mode;
	bool keep_temp; /**< keep the private temporary folder */
	/** Bytes one script or shell run may add to the disk; 0: 1 GiB. */
	uint64_t disk_cap;
	/** Bytes all the runs of one task may add; 0: 1 GiB. */
	uint64_t task_disk_cap;
	/** Save an "always" answer for a skill's script in the user config,
	 *  bound to the digest set of the skill's files, and run a script
	 *  so saved without asking while the skill is unchanged
	 *  (skit_saved_approvals_list()). false: "always" lasts the
	 *  session. */
	bool saved_approvals;
	/* Version 2: */
	/** The program's own tools (see skit_tool_def), `ntools` of them,
	 *  at most SKIT_AGENT_MAX_TOOLS. Each definition is checked and
	 *  copied by skit_agent_new(); each `payload` is borrowed until the
	 *  agent is freed. */
	const skit_tool_def *tools;
	size_t ntools;
	/* Version 3: */
	/** Answers ask_user (see skit_ask_fn); NULL: no one to ask, and the
	 *  model is told so. `ask_payload` is passed to it. */
	skit_ask_fn on_ask;
	void *ask_payload;
	/* Version 4: */
	/** Dynamic context: run each `` !`command` `` of an activated
	 *  skill's body outside fenced code blocks as a `shell` call (the
	 *  same policy, approval, sandbox and trail; docs/agent.md) and put
	 *  its output in its place. false: the body is left as written.
	 *  SKIT_AGENT_OPTIONS_INIT sets it true; options of an earlier
	 *  version get it on too. skit_agent_options_load_config() reads it
	 *  from a config file. */
	bool dynamic_context;
	/* Version 5: */
	/** Put the project's instructions (`AGENTS.md`, else `CLAUDE.md`,
	 *  from the project's root, project_dir, down to the current
	 *  folder, then the user's `~/.agents/AGENTS.md`; only from folders
	 *  the user trusts: skit_instructions_load(), docs/agent.md,
	 *  "Project instructions") in the system prompt, after the base
	 *  prompt and before the index; the digest of each file goes to the
	 *  trail. SKIT_AGENT_OPTIONS_INIT sets it true; options of an
	 *  earlier version get it off. */
	bool project_instructions;
	/** The model's context window in tokens; 0: the model's own
	 *  (skit_model_context_window()), else a built-in default. */
	uint64_t context_window;
	/** Compact the conversation when it reaches this share of the
	 *  window, in percent (10 to 95); 0: 80. */
	unsigned int compact_percent;
	/** Continue the session stored in this file (a run's
	 *  `session.jsonl`, skit_session_*): its conversation goes to the
	 *  model again. NULL: a new session. */
	const char *resume_session;
	/** Most `task` subagents running at once; 0: 3; 1: one after the
	 *  other, on the caller's thread. Above 1, the subagents of a model
	 *  skit can clone (an HTTP provider without a `transport` of the
	 *  program's) run on threads of their own, so `hooks` (but
	 *  on_text, which subagents do not stream) and on_ask may be
	 *  called from those threads: one call at a time, never two at
	 *  once, and only while skit_agent_send() runs (docs/agent.md,
	 *  "Subagents"). */
	unsigned int max_parallel_tasks;
	/* Version 6: */
	/** Language servers the `lsp` tool may start, `nlsp_servers` of
	 *  them, at most SKIT_AGENT_MAX_LSP_SERVERS (skit_lsp_server; each
	 *  is copied by skit_agent_new()). None: no `lsp` tool. A language
	 *  server runs the user's program on the project's files outside
	 *  the sandbox, as an MCP server does: give servers only for a
	 *  project the user trusts (docs/lsp.md). */
	const skit_lsp_server *lsp_servers;
	size_t nlsp_servers;
	/** When the tools of MCP servers and of the program (`tools`) are
	 *  deferred behind `tool_search` (skit_tool_search_mode). */
	skit_tool_search_mode tool_search;
} skit_agent_options;

/** Most tools of skit_agent_options.tools. */
#define SKIT_AGENT_MAX_TOOLS 16

/* clang-format off */
#define SKIT_AGENT_OPTIONS_VERSION 6
#define SKIT_AGENT_OPTIONS_INIT { SKIT_AGENT_OPTIONS_VERSION, NULL, NULL, NULL, 0, false, false, 0, 0, 0, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, { NULL, NULL, NULL, NULL, NULL }, NULL, NULL, true, SKIT_SANDBOX_WORKSPACE_WRITE, false, 0, 0, false, NULL, 0, NULL, NULL, true, true, 0, 0, NULL, 0, NULL, 0, SKIT_TOOL_SEARCH_AUTO }
/* clang-format on */

/**
 * Read the agent's settings from the skit config file `path` (JSON, as
 * skit_policy_load_config() reads it) into `opts`: today the top-level
 * booleans `"dynamic_context"` and `"project_instructions"`, copied to
 * the members of the same names. A file that is not `trusted` (a
 * project's `.agents/skit.json`) may turn them off but never on:
 * repository content restricts, it never grants; its links are refused.
 * For options of version 5, also the whole numbers `"context_window"`
 * (tokens, 1024 to 100,000,000) and `"compact_percent"` (10 to 95),
 * from any file. For options of version 6, also `"tool_search"`:
 * "auto", "always" or "never" (skit_tool_search_mode), from any file.
 * Keys it does not know are left to the other readers.
 * @return SKIT_OK (opts untouched when the key is absent);
 *         SKIT_ENOTFOUND when the file does not exist; SKIT_EINVALID
 *         for malformed JSON or a value of the wrong type or range (err
 *         names the file and the key); SKIT_EUNSAFE, SKIT_ETOOBIG,
 *         SKIT_EIO, SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_agent_options_load_config(skit_agent_options *opts,
                                               const char *path, bool trusted,
                                               skit_error *err);

/**
 * The project's instructions: `AGENTS.md` files from the project's root
 * down to the working folder, the user's own after them; docs/agent.md,
 * "Project instructions". Opaque; skit_instructions_free() releases it.
 */
typedef struct skit_instructions skit_instructions;

/** One instruction file found (skit_instructions_file()). */
typedef struct {
	const char *path;  /**< absolute */
	const char *label; /**< as the prompt names it: "sub/AGENTS.md",
	                        "~/.agents/AGENTS.md" */
	bool user;         /**< the user's own file, not the project's */
	uint64_t size;     /**< bytes on disk */
	size_t shown;      /**< bytes of it in the prompt text; 0 if skipped */
	/** SHA-256 of the whole file, lower-case hex; "" when not read. */
	const char *sha256;
	/** Why it is not in the prompt ("not a trusted folder", "a symbolic
	 *  link", "over 1 MiB"...), or NULL when it is (maybe cut: `shown`
	 *  < `size`). */
	const char *skipped;
} skit_instruction_file;

/** Bytes of one file put in the prompt; the rest is cut with a note. */
#define SKIT_INSTRUCTIONS_FILE_CAP (32 * 1024)
/** Bytes of all the files together; the farthest are cut first. */
#define SKIT_INSTRUCTIONS_TOTAL_CAP (64 * 1024)

/**
 * Find and read the instructions for work in `cwd` on the project
 * `project_dir`: in each folder from the project's root down to `cwd`
 * (only the root when `cwd` is not inside it) its `AGENTS.md`, else its
 * `CLAUDE.md`, read only where the user trusts the folder
 * (skit_trust_check()) and never through a symbolic link; then the
 * user's `$SKIT_HOME/AGENTS.md` (default `~/.agents/AGENTS.md`), else
 * `~/.claude/CLAUDE.md`. Files are capped (SKIT_INSTRUCTIONS_FILE_CAP,
 * SKIT_INSTRUCTIONS_TOTAL_CAP), cleaned as skill text is, and framed as
 * the project's instructions by skit_instructions_text().
 *
 * @param project_dir  the project; NULL: only the user's file
 * @param cwd          the working folder; NULL: the current one
 * @param[out] out     owned by the caller (skit_instructions_free())
 * @return SKIT_OK (finding no file is not an error: the count is 0);
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_instructions_load(skit_instructions **out,
                                       const char *project_dir, const char *cwd,
                                       skit_error *err);

/** How many files were found, read or skipped, in prompt order. */
SKIT_EXTERN size_t skit_instructions_count(const skit_instructions *ins);

/** File `i` (< skit_instructions_count()); borrowed from `ins`. */
SKIT_EXTERN const skit_instruction_file *
skit_instructions_file(const skit_instructions *ins, size_t i);

/**
 * The text for a system prompt: the files read, framed as the project's
 * instructions (the later wins where two disagree); "" when none was
 * read. Borrowed from `ins`.
 */
SKIT_EXTERN const char *skit_instructions_text(const skit_instructions *ins);

/** Free `ins`. NULL is a no-op. */
SKIT_EXTERN void skit_instructions_free(skit_instructions *ins);

/**
 * Create an agent: render the index, open the run folder (when
 * `runs_dir` is set) and write its first event. Options of version 1
 * (before `tools`) are accepted.
 * @return SKIT_OK; SKIT_EUSAGE for bad options; SKIT_EINVALID for a bad
 *         tool definition (err names it: a name that is not
 *         `mcp__SERVER__TOOL` or is one of skit's own tools, a name
 *         given twice, no description or callback, parameters that are
 *         not a JSON object schema, an unknown risk or version);
 *         SKIT_EIO when the run folder cannot be created; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_agent_new(skit_agent **out, const skit_agent_options *opts,
                               skit_error *err);

/**
 * Send one user message and run the loop until the model answers without
 * calling a tool. `/name args` activates a user-invocable skill with those
 * arguments; `$name` activates a skill mentioned in the text.
 *
 * @param[out] answer  the final answer, owned by the caller (skit_free());
 *                     may be NULL
 * @return SKIT_OK; SKIT_ELIMIT when a budget ran out (message says which);
 *         SKIT_ECANCELED; SKIT_ENOTFOUND for `/name` naming no skill the
 *         user may invoke; a model error (SKIT_EPROVIDER, SKIT_ETIMEOUT,
 *         SKIT_EIO...). The conversation and the audit trail stay usable.
 */
SKIT_EXTERN int skit_agent_send(skit_agent *agent, const char *input,
                                char **answer, skit_error *err);

/** The run folder, or NULL without an audit trail. */
SKIT_EXTERN const char *skit_agent_run_dir(const skit_agent *agent);

/** The private folder scripts get as `HOME` and `TMPDIR` (removed by
 *  skit_agent_finish() / skit_agent_free() unless kept). */
SKIT_EXTERN const char *skit_agent_temp_dir(const skit_agent *agent);

/** Totals over the session so far. */
typedef struct {
	unsigned int turns; /**< model calls */
	unsigned int tool_calls;
	unsigned int script_runs;
	skit_usage usage;
	size_t index_chars;   /**< size of the rendered index */
	size_t index_skills;  /**< skills listed in it */
	size_t index_omitted; /**< skills cut by the budget */
} skit_agent_stats;

SKIT_EXTERN void skit_agent_get_stats(const skit_agent *agent,
                                      skit_agent_stats *out);

/** Plan step states. */
typedef enum {
	SKIT_STEP_PENDING = 0,
	SKIT_STEP_IN_PROGRESS = 1,
	SKIT_STEP_COMPLETED = 2,
} skit_step_status;

/** The plan (from update_plan): number of steps, and step `i`. */
SKIT_EXTERN size_t skit_agent_plan_count(const skit_agent *agent);
SKIT_EXTERN const char *skit_agent_plan_step(const skit_agent *agent, size_t i,
                                             skit_step_status *status);

/**
 * Plan mode (docs/agent.md, "Plan mode"): while it is on, the model is
 * offered only tools that read, and the file tools, scripts and shell
 * are refused, until the user approves a plan (the exit_plan_mode tool,
 * answered through skit_agent_options.on_ask) or the program turns it
 * off. The model may turn it on (enter_plan_mode). Audited as
 * `plan_mode`. @return SKIT_OK; SKIT_EUSAGE for a NULL agent.
 */
SKIT_EXTERN int skit_agent_set_plan_mode(skit_agent *agent, bool on);
SKIT_EXTERN bool skit_agent_plan_mode(const skit_agent *agent);

/** Skills activated so far, in order of activation. Borrowed names. */
SKIT_EXTERN size_t skit_agent_active_count(const skit_agent *agent);
SKIT_EXTERN const char *skit_agent_active_skill(const skit_agent *agent,
                                                size_t i);

/**
 * What the programs of the last task (skit_agent_send()) created or
 * changed in the project that runs code or loads skills later: nested
 * `.git` entries (a repository's hooks and `core.fsmonitor` run when the
 * user types `git` there) and `.agents`, `.agent` or `.claude` folders
 * below the project's top level, as project-relative paths, at most 32.
 * The sandbox keeps the paths that exist read-only but cannot name those
 * not yet made; the host should show these to the user (the CLI prints
 * a warning). Each is also an audit event `planted`. Borrowed strings,
 * valid until the next skit_agent_send().
 */
SKIT_EXTERN size_t skit_agent_planted_count(const skit_agent *agent);
SKIT_EXTERN const char *skit_agent_planted(const skit_agent *agent, size_t i);

/**
 * The run status for a skit_agent_send() result, as run.json records it:
 * "ok" (0), "limit" (SKIT_ELIMIT), "canceled" (SKIT_ECANCELED), else
 * "error". Static storage.
 */
SKIT_EXTERN const char *skit_agent_status(int rc);

/**
 * End the session: write run.json with `status` ("ok", "error", "limit",
 * "canceled") and free the agent. NULL is a no-op. Errors writing the
 * summary are reported in `err` (the agent is freed regardless).
 */
SKIT_EXTERN int skit_agent_finish(skit_agent *agent, const char *status,
                                  int exit_code, skit_error *err);

/** Free without writing run.json (events.jsonl stays). NULL is a no-op. */
SKIT_EXTERN void skit_agent_free(skit_agent *agent);

SKIT_END_DECL

#endif /* SKIT_AGENT_H */
