/* SPDX-License-Identifier: MIT */
/*
 * tool_provider.h - the one interface between the agent loop and the
 * tools a model may call (library-internal; docs/agent.md, "Tool
 * providers").
 *
 * A provider is a table of operations and its own state. It lists the
 * tools it has (a schema, a risk class and how the policy decides their
 * calls) and runs a call it is given. The agent (agent_tools.c) holds the
 * providers in order, builds the model's tool list from them, routes each
 * call by name and decides it in one place: the policy, the user's
 * approval, the memory of "always" answers and the audit of every
 * decision. A provider runs only calls that were decided already, and
 * sees the run through struct skit__tool_ctx, never through the agent's
 * own struct: the agent knows tools only through this header, and tools
 * know the agent only through it, so neither includes the other.
 *
 * The providers: the skill tools (tools.c), the project tools (tools_fs.c:
 * the file tools and shell) and the tools of MCP servers (mcp_client.c).
 *
 * The tools subsystem (src/lib/tools/) owns what a model may call: this
 * interface, the skill tools, scripts and shell (tools.c) and the project
 * file tools (tools_fs.c). It uses policy (the checks), sandbox (to run
 * programs), registry (the skills) and core. This header and tools_int.h
 * are its doors: the agent, mcp and eval (above it) include them.
 */
#ifndef SKIT_LIB_TOOL_PROVIDER_H
#define SKIT_LIB_TOOL_PROVIDER_H

#include <jansson.h>

#include "skit/agent.h"
#include "skit/model.h"
#include "skit/policy.h"
#include "skit/registry.h"
#include "skit/sandbox.h"
#include "util/buf.h"

/* Most tools the agent knows at once, over every provider: skit's own
 * (24 today: the skill tools, ask_user, web_fetch, the project tools,
 * task, send_message, tool_search, the two of plan mode, lsp, and beside
 * the MCP servers' tools web_search and the two of their resources; 32
 * leaves room), a program's (SKIT_AGENT_MAX_TOOLS), then the MCP
 * servers' (SKIT__MCP_TOOLS_MAX in mcp_client_int.h). */
#define SKIT__TOOLS_MAX (32 + SKIT_AGENT_MAX_TOOLS + 128)

/* How the agent decides the calls of a tool. */
enum skit__tool_gate {
	/* Always allowed, never asked about: the skill tools, which read
	 * what the index and activation already disclose. */
	SKIT__GATE_OPEN,
	/* One of skit's own gated tools, which the policy knows by name
	 * (skit_policy_check(): run_skill_script, read_file, shell...). */
	SKIT__GATE_BUILTIN,
	/* A tool from outside, named mcp__SERVER__TOOL as the policy's
	 * patterns name it (skit_policy_check_mcp()): a read-only call when
	 * its risk is SKIT_RISK_READ, an execute call otherwise. */
	SKIT__GATE_EXTERNAL,
};

/* One tool as a provider lists it. */
struct skit__tool_def {
	/* Name, description and JSON schema of the arguments: borrowed from
	 * the provider, valid until its next call or its release. */
	skit_tool_schema schema;
	skit_risk risk;
	enum skit__tool_gate gate;
	/* Whether the provider offers it now (file tools only with the
	 * option, search_skills when the index was cut). The agent lists
	 * only what is offered and what the policy allows; it refuses a
	 * gated tool that is not offered, while an open one stays callable
	 * (the skill tools always answer). */
	bool offered;
	/* Appended to "tool 'X' is not available now" ("" or e.g. ": call
	 * use_skill first"). Static storage. */
	const char *hint;
};

/* An active skill of the run. Owned by the agent. */
struct skit__active_skill {
	char *name, *source;
	skit_skill *skill;         /* loaded in full (lenient) */
	int dirfd;                 /* the skill folder, for contained opens */
	skit_allowed_tools *tools; /* its allowed-tools; NULL: none declared */
};

/* One step of the plan (update_plan). */
struct skit__plan_step {
	char *text;
	skit_step_status status;
};

/* What the agent does for tools: its audit trail, its trace, skill
 * activation (which only the agent's conversation can do), and the
 * check of a write against the run's protected paths. */
struct skit__tool_host {
	/* Record an event; steals `fields` (may be NULL). */
	void (*audit)(void *self, const char *type, json_t *fields);
	/* Report one trace line. */
	void (*trace)(void *self, skit_trace_kind kind, const char *line);
	/* Activate skill `name` for the model (use_skill): the framed body
	 * for the model into `out`; 0, SKIT_ENOMEM, or another negative
	 * status with a message for the model in `err`. */
	int (*activate)(void *self, const char *name, const char *source,
	                const char *args, struct skitx_buf *out,
	                skit_error *err);
	/* May write_file write `rel` (a checked path relative to the
	 * project), then, once its folder is open at `dirfd`, its last
	 * component `base`? NULL, or the protected path in the way copied
	 * into `why` (protect.h: the run's protected paths). */
	const char *(*protected_rel)(void *self, const char *rel, char *why,
	                             size_t cap);
	const char *(*protected_at)(void *self, int dirfd, const char *base,
	                            char *why, size_t cap);
	/* Ask the user `q` (ask_user): the answer into `answer`. 0,
	 * SKIT_ENOTFOUND when no one can answer now, SKIT_ENOMEM, or
	 * another negative status (message in `err`) that ends the task. */
	int (*ask)(void *self, const skit_question *q, struct skitx_buf *answer,
	           skit_error *err);
	/* Would the gate refuse a call of the read-only tool `tool` on
	 * `target` now (policy, active skills, a subagent's narrowing; an
	 * ask counts as a refusal, since no one is asked)? For what a tool
	 * reads beyond the target its call was decided on (lsp's quotes). */
	bool (*read_refused)(void *self, const char *tool, const char *target);
};

/*
 * Exactly what tools need of the run. The agent owns it, fills the
 * settings when the run starts, keeps the active skills current, resets
 * the per-task counters and reads the ones that feed its statistics.
 * Approval is not here: providers never ask the user, the agent has
 * asked before the call reaches them.
 */
struct skit__tool_ctx {
	/* The run's settings (borrowed from the agent; tools only read). */
	skit_registry *reg;
	const skit_policy *policy;
	const char *project_dir;    /* absolute; the file tools' folder */
	const char *workdir;        /* the private HOME and TMPDIR */
	const char *const *protect; /* paths no program may write */
	skit_sandbox_mode sandbox_mode;
	uint64_t disk_cap, task_disk_cap; /* bytes a run, a task may add */
	long script_timeout_ms;
	size_t script_output_cap, resource_cap;
	unsigned int max_script_runs;
	bool file_tools;  /* the file tools and shell were asked for */
	bool search_tool; /* search_skills always offered */
	bool index_cut;   /* the index left skills out */
	const volatile int *cancel;

	/* The active skills in activation order, and the same for the
	 * policy (the agent updates these on each activation). */
	const struct skit__active_skill *active;
	const skit_active_skill *view;
	size_t nactive;

	/* Run state the tools update. */
	int projfd;                  /* project_dir, opened; -1 until needed */
	uint64_t task_disk_used;     /* added by this task's programs */
	unsigned int task_scripts;   /* programs run in this task */
	unsigned int script_runs;    /* ... and in the whole run */
	unsigned int sandbox_warned; /* layers already reported missing */
	const char *writable[3];     /* scratch for one program's sandbox */
	struct skit__plan_step *plan;
	size_t nplan;

	const struct skit__tool_host *host;
	void *host_self;
};

/* A provider's operations. `self` is the provider's own state. */
struct skit__tool_provider_ops {
	/* A short name, for messages ("skill", "project", "mcp"). */
	const char *name;
	/* Fill `out` (room for `max`) with every tool the provider has, in
	 * the order the model is to see them; return the count. */
	size_t (*list)(void *self, const struct skit__tool_ctx *ctx,
	               struct skit__tool_def *out, size_t max);
	/* What the policy matches a call of `tool` on (a command line, a
	 * script and its arguments, a path) into `target`, and the skill
	 * that owns it (*skill, borrowed from `args`, NULL for none). NULL
	 * op: the "path" argument when there is one. 0 or SKIT_ENOMEM. */
	int (*target)(void *self, const char *tool, json_t *args,
	              struct skitx_buf *target, const char **skill);
	/* Run the call (already decided) of `tool` with `args` (a JSON
	 * object). The result for the model goes to `out`, *is_error tells
	 * whether it is an error message. 0 once handled (even as an error
	 * the model sees), or a status that ends the task (SKIT_ELIMIT,
	 * SKIT_ENOMEM, SKIT_ECANCELED) with `err` set. */
	int (*call)(void *self, struct skit__tool_ctx *ctx, const char *tool,
	            json_t *args, struct skitx_buf *out, bool *is_error,
	            skit_error *err);
	/* Free `self` (servers stop here). NULL op: nothing to free. */
	void (*release)(void *self);
};

/* The providers skit has of its own (stateless: `self` is NULL). */
extern const struct skit__tool_provider_ops skit__skill_tools;
extern const struct skit__tool_provider_ops skit__project_tools;

/*
 * Add a provider after those the agent holds; its tools come after
 * theirs, and a name already taken stays with the earlier provider. The
 * agent owns `self` from here on, even on failure (ops->release frees
 * it). 0 or SKIT_ENOMEM.
 */
int skit__agent_add_provider(skit_agent *a,
                             const struct skit__tool_provider_ops *ops,
                             void *self, skit_error *err);

/* The state of the first provider with `ops`, or NULL. */
void *skit__agent_provider(skit_agent *a,
                           const struct skit__tool_provider_ops *ops);

/* The agent's `i`-th provider (its ops and state); false past the last.
 * For subagents, which lend their parent's MCP servers (subagent.c). */
bool skit__agent_provider_at(skit_agent *a, size_t i,
                             const struct skit__tool_provider_ops **ops,
                             void **self);

/* The agent's tool context (for a provider that starts with the run). */
struct skit__tool_ctx *skit__agent_tool_ctx(skit_agent *a);

/* For tools: record an event in the run's trail (steals `fields`). */
void skit__tool_audit(struct skit__tool_ctx *c, const char *type,
                      json_t *fields);

/* For tools: report one trace line (printf-style). */
void skit__tool_trace(struct skit__tool_ctx *c, skit_trace_kind kind,
                      const char *fmt, ...) SKIT_PRINTF(3, 4);

/* The active skill called `name`, or NULL. */
const struct skit__active_skill *
skit__tool_find_active(const struct skit__tool_ctx *c, const char *name);

#endif
