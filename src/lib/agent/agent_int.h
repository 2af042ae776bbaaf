/* SPDX-License-Identifier: MIT */
/*
 * agent_int.h - the agent's state, shared by agent.c (the loop, the
 * conversation, activation) and agent_tools.c (its tool providers, the
 * tool list, routing and the permission gate). Tools never include it:
 * they see the run through struct skit__tool_ctx (tool_provider.h).
 *
 * The agent subsystem (src/lib/agent/) owns the loop (agent.c), its tool
 * gate (agent_tools.c), a skill body's dynamic context (dynamic.c),
 * saved script approvals (approvals.c), the audit trail (audit.c), the
 * protected paths (protect.c), what a task's programs planted
 * (planted.c), the project's instructions (instructions.c), subagents
 * (subagent.c), the agent profiles they run as (profile.c) and the
 * provider's hosted web search (search.c). It uses
 * tools, model, pack, registry, policy, core. This header is its door
 * for mcp (the server drives an agent's tools) and the tests; nothing
 * below the agent includes it.
 */
#ifndef SKIT_LIB_AGENT_INT_H
#define SKIT_LIB_AGENT_INT_H

#include <jansson.h>
#include <time.h>

#include "skit/agent.h"
#include "skit/audit.h"
#include "lib/tools/tool_provider.h"
#include "util/buf.h"

/* One message of the conversation; every string is owned. */
struct agent_msg {
	skit_role role;
	char *text;
	skit_tool_call *calls; /* strings owned */
	size_t ncalls;
	char *call_id, *tool_name;
	bool is_error;
};

/* What the model was given of an active skill, and the digest set of
 * the skill's files then (session.c). */
struct agent_skill_text {
	char *text;
	char digest[65];
	bool has_digest;
};

/* An "always" answer: calls of `tool` for `skill` whose key (program,
 * script or path) is `key` run without asking for the rest of the run. */
struct agent_memo {
	char *tool, *skill, *key;
};

enum agent_trigger {
	TRIGGER_MODEL,
	TRIGGER_USER,
	TRIGGER_MENTION,
};

struct skit_agent {
	skit_registry *reg;
	skit_model *model;
	skit_agent_hooks hooks;
	const volatile int *cancel;
	bool json_actions, search_tool;
	unsigned int max_turns, max_tool_calls, max_script_runs;
	unsigned int max_skills_per_turn, max_output_tokens;
	uint64_t max_tokens;
	long script_timeout_ms;
	size_t script_output_cap, resource_cap;
	char *workdir;     /* the private folder: HOME and TMPDIR */
	bool workdir_made; /* created by the agent (removed at the end) */
	bool keep_temp;    /* ... unless the user keeps it */
	skit_sandbox_mode sandbox_mode;
	uint64_t disk_cap, task_disk_cap; /* bytes a run, a task may add */
	char **protect;    /* paths no program may write, NULL-ended */
	char *project_dir; /* the file tools' folder */
	bool file_tools;
	const skit_policy *policy;
	skit_policy *own_policy; /* the empty default, when none was given */
	struct agent_memo *memos;
	size_t nmemos;
	bool saved_approvals; /* "always" for a script: the user config */
	skit_ask_fn on_ask;   /* answers ask_user; NULL: no one to ask */
	void *ask_payload;
	bool dynamic_context;      /* run a body's !`command` (dynamic.c) */
	bool project_instructions; /* AGENTS.md in the prompt */
	skit_instructions *instructions; /* what was found (instructions.c) */

	char *system;             /* base prompt + index (+ action protocol) */
	size_t system_actions_at; /* where the action protocol's part starts */
	char *task;               /* the first message: what the run is about */
	skit_agent_stats stats;

	struct agent_msg *msgs;
	size_t nmsgs, msgs_cap;
	struct skit__active_skill *active;
	skit_active_skill *view; /* the same skills, for the policy */
	size_t nactive;

	/* Per task (one skit_agent_send) and per turn. */
	unsigned int task_turns, task_calls;
	struct timespec task_since; /* CLOCK_REALTIME_COARSE at its start */
	char **planted;             /* what its programs left (planted.h) */
	size_t nplanted;
	bool planted_partial;
	unsigned int turn_activations;
	unsigned int turn;

	/* The tool providers, in the order their tools are offered, and
	 * what they see of the run (the plan and the program counters of
	 * the task live there). */
	struct agent_provider *prov;
	size_t nprov;
	struct skit__tool_ctx tc;

	/* Subagents (subagent.c): the task calls of the response being
	 * run, and in a subagent its link to the parent (NULL otherwise). */
	struct skit__tasks *tasks;
	struct skit__sub *sub;
	bool hosted_search; /* the provider's hosted search (search.c) */
	/* Deferred external tools and tool_search (tool_search.c). */
	struct skit__tool_search *tool_search;
	bool plan_mode; /* only tools that read (plan_mode.c) */

	skit_audit *audit; /* NULL without a trail */
	int audit_rc;      /* first audit failure, sticky */
	skit_error audit_err;

	/* The session (session.c): the conversation, kept in the run
	 * folder's session.jsonl as it grows, and what a resume restored. */
	int session_fd;         /* -1: no file (no trail, or none yet) */
	size_t session_written; /* messages already in the file */
	unsigned long long session_seq;
	char *session_plan;   /* the plan record as last written (JSON) */
	char *session_usage;  /* the usage record as last written (JSON) */
	char *resumed_from;   /* the session this one continues, or NULL */
	char *session_title;  /* the first line of the session's first input */
	char *resume_note;    /* for the model, before the next user text */
	json_t *resume_event; /* the session_resumed event, until run_start */
	struct agent_skill_text *active_text; /* of each active skill */
	size_t ntext;                         /* entries of active_text */

	/* The context window (compact.c). */
	uint64_t ctx_window;       /* tokens */
	bool ctx_window_given;     /* by the options: a new model keeps it */
	unsigned int compact_pct;  /* compact past this share of it */
	uint64_t ctx_base;         /* tokens of the last request + reply */
	size_t ctx_base_msgs;      /* messages ctx_base counts */
	unsigned int compactions;  /* over the session */
	struct skitx_buf streamed; /* the reply's text so far (interrupts) */
};

/* With the JSON action protocol: list in the system prompt the tools
 * offered now (a subagent's, once it is set up). 0 or SKIT_ENOMEM. */
int skit__agent_refresh_actions(struct skit_agent *a, skit_error *err);

/* Free what one message owns (agent.c). */
void skit__agent_msg_release(struct agent_msg *m);

/* Append a message of `role` with a copy of `text`; a tool's result to
 * `call` (a user message in action mode). 0 or SKIT_ENOMEM. */
int skit__agent_push_text(struct skit_agent *a, skit_role role,
                          const char *text, skit_error *err);
int skit__agent_push_result(struct skit_agent *a, const skit_tool_call *call,
                            const char *text, bool is_error, skit_error *err);

/* How a resumed session's skill came back (skit__agent_restore_skill). */
enum skit__restored {
	SKIT_RESTORED_KEPT,    /* unchanged: active again */
	SKIT_RESTORED_CHANGED, /* changed on disk: activated again */
	SKIT_RESTORED_DROPPED, /* gone or no longer valid: dropped */
};

/*
 * Make the skill `name` of a resumed session active again: when the
 * digest set of its files is still `digest`, it is active with `text`
 * as what the model was given; when it changed, its current body is
 * framed and added to `note` for the model; when it no longer loads,
 * `note` tells the model to stop following it. *how says which.
 * 0, or SKIT_ENOMEM with err set.
 */
int skit__agent_restore_skill(struct skit_agent *a, const char *name,
                              const char *source, const char *digest,
                              const char *text, struct skitx_buf *note,
                              enum skit__restored *how, skit_error *err);

/* Record an event (steals `fields`); failures are kept in a->audit_rc. */
void skit__agent_audit(struct skit_agent *a, const char *type, json_t *fields);

/* Report one trace line through the hooks (printf-style). */
void skit__agent_trace(struct skit_agent *a, skit_trace_kind kind,
                       const char *fmt, ...) SKIT_PRINTF(3, 4);

/*
 * Activate the skill `name` (from `source` when not NULL) with `args`,
 * and write what the model is to see into `out`: the framed body with
 * the arguments substituted and the list of the skill's files. Returns 0,
 * or a negative status with a message for the model in `err`.
 */
int skit__agent_activate(struct skit_agent *a, const char *name,
                         const char *source, const char *args,
                         enum agent_trigger trigger, struct skitx_buf *out,
                         skit_error *err);

/* The active skills as the policy sees them (nactive entries). */
const skit_active_skill *skit__agent_policy_view(struct skit_agent *a);

/* The active skill called `name`, or NULL. */
struct skit__active_skill *skit__agent_find_active(struct skit_agent *a,
                                                   const char *name);

/* The tool context filled from the agent's settings, with `host` (what
 * the agent does for its tools: agent.c), and the skill and project
 * providers added (agent_tools.c). 0 or SKIT_ENOMEM. */
int skit__agent_tools_init(struct skit_agent *a,
                           const struct skit__tool_host *host, skit_error *err);

/* Release every provider (MCP servers stop). */
void skit__agent_tools_release(struct skit_agent *a);

/* The tools offered to the model this turn, from every provider, as the
 * policy lets them be seen (`max` at least SKIT__TOOLS_MAX; the strings
 * are borrowed from the providers). */
size_t skit__tools_schemas(struct skit_agent *a, skit_tool_schema *out,
                           size_t max);

/* The same with no tool deferred (tool_search.h), `external[k]` telling
 * which are an external tool's (MCP servers', the program's). */
size_t skit__tools_collect(struct skit_agent *a, skit_tool_schema *out,
                           bool *external, size_t max);

/*
 * Route the call of tool `name` with `args` (a JSON object) to its
 * provider, once the policy and, when it must be asked, the user allow
 * it (every decision audited). The result for the
 * model goes to `out`; *is_error tells whether it is an error message.
 * Returns 0 once the call was handled (even as an error the model sees),
 * or a negative status that must end the task (SKIT_ELIMIT, SKIT_ENOMEM,
 * SKIT_ECANCELED), with `err` set.
 */
int skit__tools_call(struct skit_agent *a, const char *name, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err);

/*
 * Dynamic context (dynamic.c): what the renderer does with the text
 * between commands, and with a command's own text before it runs: append
 * `len` bytes at `text` to `out` with the activation's substitutions
 * ($ARGUMENTS, $1..$9, ${SKILL_DIR}). 0 or SKIT_ENOMEM.
 */
typedef int (*skit__body_text_fn)(struct skitx_buf *out, const char *text,
                                  size_t len, void *payload);

/*
 * Render the (cleaned) body `body` of the active skill `skill` into
 * `out`: each `` !`command` `` outside fenced code blocks (``` or ~~~)
 * runs as a `shell` call through skit__tools_call() -- the policy, the
 * approval, the sandbox and the trail, the call attributed to the skill
 * -- and its output (at most 16 KiB, cleaned) takes its place; a refused
 * or failing command becomes a short bracketed note. Every other byte
 * goes through `text`. Returns 0 or SKIT_ENOMEM (`err` set): a command
 * that cannot run is a note, never a failed activation.
 */
int skit__dynamic_render(struct skit_agent *a, const char *skill,
                         const char *body, size_t len, skit__body_text_fn text,
                         void *payload, struct skitx_buf *out, skit_error *err);

#endif
