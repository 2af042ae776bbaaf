/* SPDX-License-Identifier: MIT */
/*
 * subagent.c - the `task` tool and `context: fork` skills: a piece of
 * work handed to a second agent (subagent.h).
 *
 * A subagent is made with skit_agent_new() from its parent's settings:
 * the same registry, policy, project, sandbox, hooks (its trace lines
 * prefixed "task N: ", its text not streamed), caps and private folder,
 * and the same model, or a profile's. What it may do is what its parent
 * may do, narrowed, never widened: every decision of its tool gate is
 * also taken under its parent's active skills and under the `tools` the
 * call (or a profile) gives, and the strictest wins. Its turns, tool
 * calls, script runs, disk use and tokens count in its own totals and in
 * its parent's task budgets, so that a subagent never spends what the
 * parent no longer has. Its trail is a run folder under the parent's
 * (`tasks/`), whose first event names the parent; the parent records
 * `subagent_start` and `subagent_end` naming it.
 *
 * Concurrency (skit__subagent_run() in subagent.h says why): one lock per
 * batch, left only around model calls. The parent thread waits for the
 * batch, so nothing of the parent is touched but under the lock.
 */
#include "common.h"

#include <pthread.h>

#include "lib/agent/subagent.h"
#include "lib/agent/audit_int.h"
#include "lib/agent/profile.h"
#include "lib/agent/protect.h"
#include "lib/agent/tool_search.h"
#include "lib/core/error.h"
#include "lib/model/model_int.h"
#include "lib/policy/policy_external.h"
#include "lib/tools/lsp.h"
#include "lib/tools/tools_int.h"

/* Caps on what the model writes into a task call. */
#define DESCRIPTION_MAX 200
#define PROMPT_MAX      (64u * 1024)
#define TOOLS_MAX       64
/* Narrowing lists a subagent holds: a call's `tools` and a profile's. */
#define NARROW_MAX 2
/* Subagents kept for send_message; the oldest ends past this. */
#define KEEP_MAX    8
#define MESSAGE_MAX PROMPT_MAX

struct batch;

/* A subagent's link to its parent (agent->sub). */
struct skit__sub {
	struct skit_agent *parent;
	struct batch *batch;     /* the lock, when on a thread */
	unsigned int number;     /* "task N" in the trace */
	unsigned int scripts_in; /* program runs already counted above */
	uint64_t disk_in;        /* bytes already counted above */
	size_t memos_in;         /* "always" answers it was given */
	skit_active_skill narrow[NARROW_MAX];
	size_t nnarrow;
};

/* One task call of a response, or one fork. */
struct job {
	size_t index; /* the call's place in the response */
	char *call_id, *description, *prompt;
	char *skill;   /* context: fork: the skill; else NULL */
	char *summary; /* send_message: its summary, or NULL */
	char *profile; /* the profile it runs with, or NULL */
	skit_allowed_tools *narrow[NARROW_MAX];
	skit_model *own_model; /* a clone or a profile's; NULL: parent's */
	skit_agent *child;     /* NULL for a call that was refused */
	struct skit__sub link;
	struct skitx_buf out; /* the result the parent's model sees */
	bool is_error;
	int rc; /* a status that ends the parent's task */
	skit_error err;
	skit_agent_stats stats;
	char status[16];
	/* A task's subagent (not a fork's: no `skill`) outlives its call,
	 * for send_message: `kept` once it answered (its child then
	 * stays), `queued` while a message to it waits in the batch. */
	bool kept, queued;
	unsigned int messages; /* send_message calls it answered */
};

/* The lock of a batch run on threads. */
struct batch {
	pthread_mutex_t mu;
	struct job **jobs;
	size_t njobs, next;
};

/* The task calls of the response being run (agent->tasks). */
struct skit__tasks {
	struct skit_agent *a;
	struct job **jobs;
	size_t njobs;
	struct job *pending; /* prepared by the last call, not yet held */
	unsigned int max_parallel;
	unsigned int count;         /* subagents made so far in the run */
	struct job *kept[KEEP_MAX]; /* oldest first */
	size_t nkept;
};

/* ---- jobs ---------------------------------------------------------------- */

static void job_free(struct job *j)
{
	if (!j)
		return;
	/* made but never run, its trail says so; kept, it ended as its
	 * last answer did */
	if (j->child)
		skit_agent_finish(j->child, j->kept ? j->status : "error",
		                  j->kept && !strcmp(j->status, "ok") ? 0 : 1,
		                  NULL);
	for (size_t i = 0; i < NARROW_MAX; i++)
		skit_allowed_tools_free(j->narrow[i]);
	skit_model_free(j->own_model);
	skitx_free(j->call_id);
	skitx_free(j->description);
	skitx_free(j->prompt);
	skitx_free(j->skill);
	skitx_free(j->summary);
	skitx_free(j->profile);
	skitx_buf_release(&j->out);
	skitx_free(j);
}

static struct job *job_new(void)
{
	struct job *j = skitx_calloc(1, sizeof(*j));

	if (j)
		skitx_buf_init(&j->out, 0);
	return j;
}

/* ---- the hooks a subagent reports through -------------------------------- */

static void sub_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct job *j = payload;
	struct skit_agent *p = j->link.parent;

	skit__agent_trace(p, kind, "task %u: %s", j->link.number, line);
}

static skit_approve_answer sub_approve(const skit_approval *req, void *payload)
{
	struct job *j = payload;
	struct skit_agent *p = j->link.parent;

	return p->hooks.on_approve(req, p->hooks.payload);
}

static void sub_refused(const skit_approval *req, void *payload)
{
	struct job *j = payload;
	struct skit_agent *p = j->link.parent;

	p->hooks.on_refused(req, p->hooks.payload);
}

/* ---- the parent's MCP servers, lent -------------------------------------- */

/*
 * A subagent is offered the tools of its parent's MCP servers (web_search
 * included, where one is the search backend), which stay the parent's:
 * each call is decided by the subagent's gate and then handed to the
 * parent's provider, under the batch's lock (the parent waits meanwhile).
 * The program's own tools (skit_agent_options.tools) are not lent: their
 * callbacks would run on a subagent's thread. MCP providers are known by
 * name, as the mcp subsystem sits above this one.
 */
static bool lendable(const struct skit__tool_provider_ops *ops)
{
	return !strcmp(ops->name, "mcp");
}

static size_t lent_list(void *self, const struct skit__tool_ctx *ctx,
                        struct skit__tool_def *out, size_t max)
{
	struct skit_agent *c = self, *p;
	const struct skit__tool_provider_ops *ops;
	size_t n = 0;
	void *ps;

	(void)ctx;
	if (!c->sub)
		return 0;
	p = c->sub->parent;
	for (size_t i = 0; n < max && skit__agent_provider_at(p, i, &ops, &ps);
	     i++)
		if (lendable(ops))
			n += ops->list(ps, &p->tc, out + n, max - n);
	return n;
}

static int lent_call(void *self, struct skit__tool_ctx *ctx, const char *tool,
                     json_t *args, struct skitx_buf *out, bool *is_error,
                     skit_error *err)
{
	struct skit__tool_def defs[SKIT__TOOLS_MAX];
	struct skit_agent *c = self, *p = c->sub->parent;
	const struct skit__tool_provider_ops *ops;
	void *ps;

	(void)ctx;
	for (size_t i = 0; skit__agent_provider_at(p, i, &ops, &ps); i++) {
		size_t n;

		if (!lendable(ops))
			continue;
		n = ops->list(ps, &p->tc, defs, SKIT__TOOLS_MAX);
		for (size_t k = 0; k < n; k++)
			if (!strcmp(defs[k].schema.name, tool))
				return ops->call(ps, &p->tc, tool, args, out,
				                 is_error, err);
	}
	return skit__tool_error(out, is_error, "unknown tool '%.64s'", tool);
}

static const struct skit__tool_provider_ops lent_tools = {
	"lent", lent_list, NULL, lent_call, NULL,
};

/* ---- making a subagent --------------------------------------------------- */

const struct skit_agent *skit__subagent_parent(const struct skit_agent *a)
{
	return a->sub ? a->sub->parent : NULL;
}

/*
 * The subagent's protected paths again, now that it knows its parent:
 * its programs may not write the parent's trail either (protect.c). The
 * list was made by skit_agent_new(), before the link. 0 or SKIT_ENOMEM.
 */
static int reprotect(struct skit_agent *c)
{
	struct skitx_vec v = SKITX_VEC_INIT;

	if (skit__protected_paths(&v, c) || skitx_vec_push(&v, NULL)) {
		skit__protected_paths_release(&v);
		return SKIT_ENOMEM;
	}
	for (size_t i = 0; c->protect && c->protect[i]; i++)
		skitx_free(c->protect[i]);
	skitx_free(c->protect);
	c->protect = (char **)v.items;
	c->tc.protect = (const char *const *)c->protect;
	return 0;
}

/*
 * Copy the "always" answers `from[first..n)` to the end of `to`, those it
 * does not hold yet: the session's answers hold for its subagents, and a
 * subagent's hold for the rest of the session. 0 or SKIT_ENOMEM.
 */
static int memos_copy(struct skit_agent *to, const struct agent_memo *from,
                      size_t first, size_t n)
{
	for (size_t i = first; i < n; i++) {
		struct agent_memo *grown, *m;
		bool have = false;

		for (size_t k = 0; k < to->nmemos && !have; k++)
			have = !strcmp(to->memos[k].tool, from[i].tool) &&
			       !strcmp(to->memos[k].skill, from[i].skill) &&
			       !strcmp(to->memos[k].key, from[i].key);
		if (have)
			continue;
		grown = skitx_realloc(to->memos,
		                      (to->nmemos + 1) * sizeof(*grown));
		if (!grown)
			return SKIT_ENOMEM;
		to->memos = grown;
		m = &to->memos[to->nmemos];
		m->tool = skitx_strdup(from[i].tool);
		m->skill = skitx_strdup(from[i].skill);
		m->key = skitx_strdup(from[i].key);
		if (!m->tool || !m->skill || !m->key) {
			skitx_free(m->tool);
			skitx_free(m->skill);
			skitx_free(m->key);
			return SKIT_ENOMEM;
		}
		to->nmemos++;
	}
	return 0;
}

/*
 * The profile `name` for `j`: its instructions go before the task, its
 * tools narrow, its model answers. A profile that cannot be used is an
 * error the caller reports; "general-purpose" is the default (none).
 */
static int use_profile(struct skit_agent *a, struct job *j, const char *name,
                       struct skitx_buf *instructions, skit_error *err)
{
	struct skit__profile *prof = NULL;
	bool trusted = false;
	int rc;

	if (!name || !strcmp(name, "general-purpose"))
		return 0;
	rc = skit_trust_check(&trusted, a->project_dir, err);
	if (rc)
		return rc;
	rc = skit__profile_find(&prof, a->project_dir, trusted, name, err);
	if (rc)
		return rc;
	j->profile = skitx_strdup(name);
	if (!j->profile)
		rc = skit__error_oom(err);
	if (!rc && prof->tools) {
		skit_error perr = { 0 };

		rc = skit_allowed_tools_parse(&j->narrow[1], name, prof->tools,
		                              &perr);
		if (rc && rc != SKIT_ENOMEM)
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: tools: %s", prof->path,
			                     perr.message);
		else if (rc)
			rc = skit__error_oom(err);
	}
	if (!rc && prof->model) {
		skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;

		mo.spec = prof->model;
		mo.cancel = a->cancel;
		mo.request_log = a->model->request_log;
		if (!strchr(prof->model, ':'))
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: model '%.64s' is not "
			                     "PROVIDER:MODEL (or inherit)",
			                     prof->path, prof->model);
		else
			rc = skit_model_new(&j->own_model, &mo, err);
	}
	if (!rc && *prof->instructions &&
	    skitx_buf_printf(instructions,
	                     "Instructions of the agent profile '%s' you "
	                     "run as:\n\n%s\n\n",
	                     name, prof->instructions))
		rc = skit__error_oom(err);
	skit__profile_free(prof);
	return rc;
}

/*
 * Make the subagent of `j` (its narrowing and model already set): the
 * parent's settings, a trail under the parent's, the link. Records the
 * parent in the subagent's trail.
 */
static int make_child(struct skit_agent *a, struct job *j, skit_error *err)
{
	skit_agent_options o = SKIT_AGENT_OPTIONS_INIT;
	struct skitx_buf runs;
	int rc = 0;

	skitx_buf_init(&runs, 0);
	if (!j->own_model && skit__model_clonable(a->model)) {
		rc = skit__model_clone(&j->own_model, a->model, err);
		if (rc)
			return rc;
	}
	if (a->audit &&
	    skitx_buf_printf(&runs, "%s/tasks", skit_audit_dir(a->audit))) {
		skitx_buf_release(&runs);
		return skit__error_oom(err);
	}
	j->link.parent = a;
	j->link.number = ++a->tasks->count;
	o.registry = a->reg;
	o.model = j->own_model ? j->own_model : a->model;
	o.search_tool = a->search_tool;
	o.json_actions = a->json_actions;
	o.max_turns = a->max_turns;
	o.max_tool_calls = a->max_tool_calls;
	o.max_script_runs = a->max_script_runs;
	o.max_tokens = a->max_tokens;
	o.max_skills_per_turn = a->max_skills_per_turn;
	o.max_output_tokens = a->max_output_tokens;
	o.script_timeout_ms = a->script_timeout_ms;
	o.script_output_cap = a->script_output_cap;
	o.resource_cap = a->resource_cap;
	o.workdir = a->workdir; /* shared, and removed by the parent */
	o.keep_temp = true;
	o.runs_dir = a->audit ? skitx_buf_cstr(&runs) : NULL;
	o.cancel = a->cancel;
	o.hooks.on_trace = a->hooks.on_trace ? sub_trace : NULL;
	o.hooks.on_approve = a->hooks.on_approve ? sub_approve : NULL;
	o.hooks.on_refused = a->hooks.on_refused ? sub_refused : NULL;
	o.hooks.payload = j;
	o.policy = a->policy;
	o.project_dir = a->project_dir;
	o.file_tools = a->file_tools;
	o.sandbox_mode = a->sandbox_mode;
	o.disk_cap = a->disk_cap;
	o.task_disk_cap = a->task_disk_cap;
	o.saved_approvals = a->saved_approvals;
	o.on_ask = a->on_ask;
	o.ask_payload = a->ask_payload;
	o.dynamic_context = a->dynamic_context;
	o.project_instructions = a->project_instructions;
	o.context_window = a->ctx_window_given ? a->ctx_window : 0;
	o.compact_percent = a->compact_pct;
	o.max_parallel_tasks = 1;
	o.tool_search = skit__tool_search_mode(a);
	/* its own servers, from the parent's settings: subagents on
	 * threads cannot share one connection */
	o.nlsp_servers = skit__lsp_servers(
	        skit__agent_provider(a, &skit__lsp_tools), &o.lsp_servers);
	rc = skit_agent_new(&j->child, &o, err);
	skitx_buf_release(&runs);
	if (rc)
		return rc;
	j->child->sub = &j->link;
	j->child->hosted_search = a->hosted_search;
	j->child->plan_mode = a->plan_mode; /* while it runs */
	if (reprotect(j->child) || memos_copy(j->child, a->memos, 0, a->nmemos))
		return skit__error_oom(err);
	rc = skit__agent_add_provider(j->child, &lent_tools, j->child, err);
	/* A model of the action protocol reads its tools in the prompt:
	 * list them as the subagent has them (no task, the lent ones). */
	if (!rc)
		rc = skit__agent_refresh_actions(j->child, err);
	if (rc)
		return rc;
	j->link.memos_in = j->child->nmemos;
	for (size_t i = 0; i < NARROW_MAX; i++) {
		if (!j->narrow[i])
			continue;
		j->link.narrow[j->link.nnarrow].name =
		        i == 0 ? "the task's tools" : j->profile;
		j->link.narrow[j->link.nnarrow++].tools = j->narrow[i];
	}
	if (j->child->audit)
		skit__agent_audit(
		        j->child, "parent",
		        json_pack("{s:s?, s:s?, s:s?, s:s?, s:s?, s:i}", "run",
		                  a->audit ? skit_audit_id(a->audit) : NULL,
		                  "dir",
		                  a->audit ? skit_audit_dir(a->audit) : NULL,
		                  "description", j->description, "skill",
		                  j->skill, "profile", j->profile, "depth", 1));
	return 0;
}

/* The sub-run's folder as the parent names it: "tasks/<id>". */
static const char *child_run(const struct job *j, char *buf, size_t cap)
{
	if (!j->child || !j->child->audit)
		return NULL;
	snprintf(buf, cap, "tasks/%s", skit_audit_id(j->child->audit));
	return buf;
}

/* ---- the task tool ------------------------------------------------------- */

static const char task_description[] =
        "Hand a self-contained piece of work to a subagent: a fresh "
        "conversation with the same model, the tools you have (or fewer, "
        "with `tools`) and the same skills, which works on `prompt` and "
        "returns its final answer as this call's result. Use it for work "
        "whose details need not fill this conversation (a search over "
        "many files, research, an independent change). It sees only "
        "`prompt`: say everything it needs. Several task calls in one "
        "response run at the same time. A subagent cannot start "
        "subagents.";

static const char task_schema[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"description\":{\"type\":\"string\",\"description\":\"a short "
        "name for the task (3-5 words)\"},"
        "\"prompt\":{\"type\":\"string\",\"description\":\"the task, "
        "complete in itself\"},"
        "\"tools\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
        "\"description\":\"only these tools, as allowed-tools patterns "
        "(Read, Grep, Glob, Bash(git:*)...); default: every tool you "
        "have\"},"
        "\"subagent_type\":{\"type\":\"string\",\"description\":\"an "
        "agent profile to run as (.agents/agents/NAME.md); default: "
        "general-purpose\"}},"
        "\"required\":[\"description\",\"prompt\"],"
        "\"additionalProperties\":false}";

/* task and send_message as their providers list them: gated by name,
 * read-only (each call of the subagent is decided on its own). */
static void subagent_def(struct skit__tool_def *out, const char *name,
                         const char *description, const char *schema)
{
	memset(out, 0, sizeof(*out));
	out->schema.name = name;
	out->schema.description = description;
	out->schema.parameters = schema;
	out->risk = SKIT_RISK_READ;
	out->gate = SKIT__GATE_BUILTIN;
}

static size_t task_list(void *self, const struct skit__tool_ctx *ctx,
                        struct skit__tool_def *out, size_t max)
{
	const struct skit_agent *a = self;

	(void)ctx;
	if (max < 1)
		return 0;
	subagent_def(out, SKIT__TASK_TOOL, task_description, task_schema);
	/* One level: a subagent gets no task tool; and an agent whose loop
	 * never runs (a host's, the MCP server's) has no model to give. */
	out->offered = !a->sub && skit__model_answers(a->model);
	out->hint = a->sub ? ": a subagent cannot start subagents"
	                   : ": there is no model to run a subagent";
	return 1;
}

static int task_target(void *self, const char *tool, json_t *args,
                       struct skitx_buf *target, const char **skill)
{
	(void)self;
	(void)tool;
	*skill = NULL;
	return skitx_buf_puts(target,
	                      skit__str_arg(args, "description")
	                              ? skit__str_arg(args, "description")
	                              : "");
}

/* The `tools` argument as one allowed-tools value. 0, or an error result
 * (*is_error), or SKIT_ENOMEM. */
static int tools_arg(json_t *v, struct skitx_buf *b, struct skitx_buf *out,
                     bool *is_error)
{
	size_t i;
	json_t *t;

	if (!json_is_array(v) || json_array_size(v) > TOOLS_MAX)
		return skit__tool_error(out, is_error,
		                        "tools must be a list of at most %d "
		                        "tool names or patterns",
		                        TOOLS_MAX);
	json_array_foreach(v, i, t)
	{
		const char *s = json_string_value(t);

		if (!s || !*s || strlen(s) > SKIT_POLICY_MAX_PATTERN)
			return skit__tool_error(
			        out, is_error,
			        "tools[%zu] must be a tool name "
			        "or pattern",
			        i);
		if (skitx_buf_printf(b, "%s%s", i ? " " : "", s))
			return SKIT_ENOMEM;
	}
	return 0;
}

static int task_call(void *self, struct skit__tool_ctx *ctx, const char *tool,
                     json_t *args, struct skitx_buf *out, bool *is_error,
                     skit_error *err)
{
	struct skit_agent *a = self;
	const char *desc = skit__str_arg(args, "description");
	const char *prompt = skit__str_arg(args, "prompt");
	const char *type = skit__str_arg(args, "subagent_type");
	json_t *tools = json_object_get(args, "tools");
	struct skitx_buf tl, head;
	skit_error e = { 0 };
	struct job *j = NULL;
	int rc = 0;

	(void)ctx;
	(void)tool;
	/* one line: it names the task in the trace and the trail */
	if (!desc || !*desc || strlen(desc) > DESCRIPTION_MAX ||
	    desc[strcspn(desc, "\n\r\t\x1b")])
		return skit__tool_error(out, is_error,
		                        "description must be a short line of "
		                        "text (at most %d bytes)",
		                        DESCRIPTION_MAX);
	if (!prompt || !*prompt || strlen(prompt) > PROMPT_MAX)
		return skit__tool_error(out, is_error,
		                        "prompt must be the task's text (at "
		                        "most %u KiB)",
		                        PROMPT_MAX >> 10);
	if (json_object_get(args, "subagent_type") && !type)
		return skit__tool_error(out, is_error,
		                        "subagent_type must be a profile name");
	skitx_buf_init(&tl, 0);
	skitx_buf_init(&head, 0);
	if (tools) {
		rc = tools_arg(tools, &tl, out, is_error);
		if (rc || *is_error)
			goto out;
	}
	j = job_new();
	if (!j || !(j->description = skitx_strdup(desc))) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (tools) {
		rc = skit_allowed_tools_parse(&j->narrow[0], "task",
		                              skitx_buf_cstr(&tl), &e);
		if (rc == SKIT_ENOMEM)
			goto out;
		if (rc) {
			rc = skit__tool_error(out, is_error, "tools: %s",
			                      e.message);
			goto out;
		}
	}
	rc = use_profile(a, j, type, &head, &e);
	if (rc == SKIT_ENOMEM)
		goto out;
	if (rc) {
		rc = skit__tool_error(out, is_error,
		                      "%s; leave subagent_type out for a "
		                      "general-purpose subagent",
		                      e.message);
		goto out;
	}
	if (skitx_buf_puts(&head, prompt)) {
		rc = SKIT_ENOMEM;
		goto out;
	}
	j->prompt = skitx_buf_detach(&head, NULL);
	rc = j->prompt ? make_child(a, j, &e) : SKIT_ENOMEM;
	if (rc == SKIT_ENOMEM)
		goto out;
	if (rc) {
		rc = skit__tool_error(out, is_error,
		                      "the subagent could not start: %s",
		                      e.message);
		goto out;
	}
	a->tasks->pending = j;
	j = NULL;
out:
	job_free(j);
	skitx_buf_release(&tl);
	skitx_buf_release(&head);
	return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
}

static void task_release(void *self)
{
	struct skit_agent *a = self;

	if (!a->tasks)
		return;
	skit__subagent_clear(a);
	for (size_t i = 0; i < a->tasks->nkept; i++)
		job_free(a->tasks->kept[i]);
	skitx_free(a->tasks);
	a->tasks = NULL;
}

static const struct skit__tool_provider_ops task_tools = {
	"task", task_list, task_target, task_call, task_release,
};

/* ---- send_message: a kept subagent continued ----------------------------- */

static const char message_description[] =
        "Continue a subagent that answered a task call earlier in this "
        "session: `message` goes to it as the next turn of its own "
        "conversation (it remembers its task, what it read and what it "
        "answered), and its new answer is this call's result. `to` is "
        "the id its task result ended with (task-N). Use it for a "
        "follow-up question or a correction; for unrelated work start a "
        "new task.";

static const char message_schema[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"to\":{\"type\":\"string\",\"description\":\"the "
        "subagent's id (task-N)\"},"
        "\"message\":{\"type\":\"string\",\"description\":\"what "
        "to tell or ask it\"},"
        "\"summary\":{\"type\":\"string\",\"description\":\"a few "
        "words saying what the message is about\"}},"
        "\"required\":[\"to\",\"message\"],"
        "\"additionalProperties\":false}";

static size_t message_list(void *self, const struct skit__tool_ctx *ctx,
                           struct skit__tool_def *out, size_t max)
{
	const struct skit_agent *a = self;

	(void)ctx;
	if (max < 1)
		return 0;
	subagent_def(out, SKIT__MESSAGE_TOOL, message_description,
	             message_schema);
	/* offered once there is a subagent to continue */
	out->offered = !a->sub && a->tasks && a->tasks->nkept;
	out->hint = a->sub ? ": a subagent cannot message subagents"
	                   : ": no subagent has answered in this session "
	                     "yet; start one with task";
	return 1;
}

static int message_target(void *self, const char *tool, json_t *args,
                          struct skitx_buf *target, const char **skill)
{
	const char *to = skit__str_arg(args, "to");

	(void)self;
	(void)tool;
	*skill = NULL;
	return skitx_buf_puts(target, to ? to : "");
}

/* The kept subagent `id` names ("task-N"), or NULL. */
static struct job *kept_find(struct skit__tasks *t, const char *id)
{
	unsigned long n;
	char *end;

	if (strncmp(id, "task-", 5) || id[5] < '1' || id[5] > '9')
		return NULL;
	errno = 0;
	n = strtoul(id + 5, &end, 10);
	if (errno || *end || n > UINT_MAX)
		return NULL;
	for (size_t i = 0; i < t->nkept; i++)
		if (t->kept[i]->link.number == n)
			return t->kept[i];
	return NULL;
}

static int message_call(void *self, struct skit__tool_ctx *ctx,
                        const char *tool, json_t *args, struct skitx_buf *out,
                        bool *is_error, skit_error *err)
{
	struct skit_agent *a = self;
	struct skit__tasks *t = a->tasks;
	const char *to = skit__str_arg(args, "to");
	const char *msg = skit__str_arg(args, "message");
	const char *sum = skit__str_arg(args, "summary");
	struct skitx_buf ids;
	struct job *j;
	char *copy, *sumcopy = NULL;

	(void)ctx;
	(void)tool;
	if (!to || !*to || strlen(to) > 32)
		return skit__tool_error(out, is_error,
		                        "to must be a subagent's id (task-N)");
	if (!msg || !*msg || strlen(msg) > MESSAGE_MAX)
		return skit__tool_error(out, is_error,
		                        "message must be text (at most %u KiB)",
		                        MESSAGE_MAX >> 10);
	if (sum &&
	    (strlen(sum) > DESCRIPTION_MAX || sum[strcspn(sum, "\n\r\t\x1b")]))
		return skit__tool_error(out, is_error,
		                        "summary must be a short line of text "
		                        "(at most %d bytes)",
		                        DESCRIPTION_MAX);
	j = kept_find(t, to);
	if (!j) {
		int rc;

		skitx_buf_init(&ids, 0);
		for (size_t i = 0; i < t->nkept; i++)
			if (skitx_buf_printf(&ids, "%stask-%u", i ? ", " : "",
			                     t->kept[i]->link.number)) {
				skitx_buf_release(&ids);
				return skit__error_oom(err);
			}
		rc = skit__tool_error(
		        out, is_error,
		        "no subagent '%.32s' to continue; the subagents of "
		        "this session that can be are: %s (a subagent lasts "
		        "while skit runs, at most %d are kept)",
		        to, t->nkept ? skitx_buf_cstr(&ids) : "none", KEEP_MAX);
		skitx_buf_release(&ids);
		return rc;
	}
	if (j->queued)
		return skit__tool_error(out, is_error,
		                        "task-%u already has a message in this "
		                        "response; send it one at a time",
		                        j->link.number);
	copy = skitx_strdup(msg);
	if (!copy || (sum && !(sumcopy = skitx_strdup(sum)))) {
		skitx_free(copy);
		return skit__error_oom(err);
	}
	skitx_free(j->prompt);
	j->prompt = copy;
	skitx_free(j->summary);
	j->summary = sumcopy;
	skitx_buf_clear(&j->out);
	j->is_error = false;
	j->rc = 0;
	memset(&j->err, 0, sizeof(j->err));
	j->queued = true;
	/* it answers under the main agent's mode of now: a subagent kept
	 * from before plan mode writes nothing in it */
	if (j->child->plan_mode != a->plan_mode) {
		j->child->plan_mode = a->plan_mode;
		(void)skit__agent_refresh_actions(j->child, NULL);
	}
	t->pending = j;
	return 0;
}

static const struct skit__tool_provider_ops message_tools = {
	"send_message", message_list, message_target, message_call, NULL,
};

int skit__subagent_init(struct skit_agent *a, const skit_agent_options *opts,
                        skit_error *err)
{
	a->tasks = skitx_calloc(1, sizeof(*a->tasks));
	if (!a->tasks)
		return skit__error_oom(err);
	a->tasks->a = a;
	a->tasks->max_parallel = opts->version >= 5 && opts->max_parallel_tasks
	                                 ? opts->max_parallel_tasks
	                                 : SKIT__TASKS_PARALLEL;
	if (skit__agent_add_provider(a, &task_tools, a, err))
		return SKIT_ENOMEM;
	/* released with task_tools, which owns the state */
	return skit__agent_add_provider(a, &message_tools, a, err);
}

/* ---- the batch of a response --------------------------------------------- */

bool skit__subagent_batches(const struct skit_agent *a, const char *name)
{
	return a->tasks && (!strcmp(name, SKIT__TASK_TOOL) ||
	                    !strcmp(name, SKIT__MESSAGE_TOOL));
}

int skit__subagent_hold(struct skit_agent *a, size_t index, const char *call_id,
                        const struct skitx_buf *out, bool is_error,
                        skit_error *err)
{
	struct skit__tasks *t = a->tasks;
	struct job *j = t->pending, **grown;
	char run[96];

	t->pending = NULL;
	if (!j) {
		/* refused, or bad arguments: the result as it is */
		j = job_new();
		if (!j || skitx_buf_add(&j->out, skitx_buf_cstr(out),
		                        skitx_buf_len(out))) {
			job_free(j);
			return skit__error_oom(err);
		}
		j->is_error = is_error;
	}
	j->index = index;
	skitx_free(j->call_id);
	j->call_id = skitx_strdup(call_id);
	grown = skitx_realloc(t->jobs, (t->njobs + 1) * sizeof(*grown));
	if (!grown || !j->call_id) {
		if (!j->kept) /* a kept one stays in t->kept */
			job_free(j);
		else
			j->queued = false;
		return skit__error_oom(err);
	}
	t->jobs = grown;
	t->jobs[t->njobs++] = j;
	if (!j->child)
		return 0;
	if (j->kept) {
		j->messages++;
		skit__agent_audit(a, "subagent_message",
		                  json_pack("{s:s, s:s, s:s?, s:s?, s:i, s:i}",
		                            "id", call_id, "to", j->description,
		                            "summary", j->summary, "run",
		                            child_run(j, run, sizeof(run)),
		                            "task", (int)j->link.number,
		                            "message", (int)j->messages));
		skit__agent_trace(a, SKIT_TRACE_TOOL, "task %u: message%s%s",
		                  j->link.number, j->summary ? ": " : "",
		                  j->summary ? j->summary : "");
		return 0;
	}
	skit__agent_audit(a, "subagent_start",
	                  json_pack("{s:s, s:s, s:s?, s:s?, s:i}", "id",
	                            call_id, "description", j->description,
	                            "run", child_run(j, run, sizeof(run)),
	                            "profile", j->profile, "task",
	                            (int)j->link.number));
	skit__agent_trace(a, SKIT_TRACE_TOOL, "task %u: %s%s%s", j->link.number,
	                  j->description,
	                  child_run(j, run, sizeof(run)) ? " -> " : "",
	                  child_run(j, run, sizeof(run)) ? run : "");
	return 0;
}

/* ---- running subagents --------------------------------------------------- */

static void lock(struct skit__sub *s)
{
	if (s->batch)
		pthread_mutex_lock(&s->batch->mu);
}

static void unlock(struct skit__sub *s)
{
	if (s->batch)
		pthread_mutex_unlock(&s->batch->mu);
}

static unsigned int left_u(unsigned int max, unsigned int used)
{
	return used >= max ? 0 : max - used;
}

/*
 * The subagent holds the lock again: its program limits become what the
 * parent has left (no one else changes the parent's counters while the
 * lock is held).
 */
static void acquired(struct skit_agent *c)
{
	struct skit__sub *s = c->sub;
	struct skit_agent *p = s->parent;
	unsigned int runs = left_u(p->max_script_runs, p->tc.task_scripts);
	uint64_t disk = p->tc.task_disk_used >= p->task_disk_cap
	                        ? 0
	                        : p->task_disk_cap - p->tc.task_disk_used;

	c->tc.max_script_runs = c->tc.task_scripts + runs < c->max_script_runs
	                                ? c->tc.task_scripts + runs
	                                : c->max_script_runs;
	c->tc.task_disk_cap = c->tc.task_disk_used + disk < c->task_disk_cap
	                              ? c->tc.task_disk_used + disk
	                              : c->task_disk_cap;
}

/* Before the lock is left: what its programs used goes to the parent. */
static void releasing(struct skit_agent *c)
{
	struct skit__sub *s = c->sub;
	struct skit_agent *p = s->parent;
	unsigned int runs = c->tc.task_scripts - s->scripts_in;
	uint64_t disk = c->tc.task_disk_used - s->disk_in;

	p->tc.task_scripts += runs;
	p->tc.script_runs += runs;
	p->tc.task_disk_used += disk;
	s->scripts_in = c->tc.task_scripts;
	s->disk_in = c->tc.task_disk_used;
}

void skit__subagent_blocking(struct skit_agent *a, bool begin)
{
	if (!a->sub)
		return;
	if (begin) {
		releasing(a);
		unlock(a->sub);
	} else {
		lock(a->sub);
		acquired(a);
	}
}

int skit__subagent_charge(struct skit_agent *a, enum skit__charge what,
                          skit_error *err)
{
	struct skit_agent *p;
	uint64_t used;

	if (!a->sub)
		return 0;
	p = a->sub->parent;
	used = p->stats.usage.input_tokens + p->stats.usage.output_tokens;
	if (what == SKIT__CHARGE_CALL) {
		if (p->task_calls >= p->max_tool_calls)
			return skit__error_set(err, SKIT_ELIMIT, 0,
			                       "tool-call budget exhausted (%u "
			                       "calls, shared with the main "
			                       "agent); raise it with "
			                       "--max-tool-calls",
			                       p->max_tool_calls);
		p->task_calls++;
		p->stats.tool_calls++;
		return 0;
	}
	if (p->task_turns >= p->max_turns)
		return skit__error_set(err, SKIT_ELIMIT, 0,
		                       "turn budget exhausted (%u model calls, "
		                       "shared with the main agent); raise it "
		                       "with --max-turns",
		                       p->max_turns);
	if (p->max_tokens && used >= p->max_tokens)
		return skit__error_set(err, SKIT_ELIMIT, 0,
		                       "token budget exhausted (%llu of %llu "
		                       "tokens used, shared with the main "
		                       "agent); raise it with --max-tokens",
		                       (unsigned long long)used,
		                       (unsigned long long)p->max_tokens);
	p->task_turns++;
	p->stats.turns++;
	return 0;
}

void skit__subagent_usage(struct skit_agent *a, const skit_usage *u)
{
	if (!a->sub)
		return;
	a->sub->parent->stats.usage.input_tokens += u->input_tokens;
	a->sub->parent->stats.usage.output_tokens += u->output_tokens;
}

/* Run the subagent of `j` (under the lock when on a thread) and put its
 * outcome in j->out. */
static void job_run(struct job *j)
{
	struct skit_agent *c = j->child;
	skit_agent_stats before;
	char *answer = NULL;
	int rc;

	skit_agent_get_stats(c, &before);
	acquired(c);
	rc = skit_agent_send(c, j->prompt, &answer, &j->err);
	releasing(c);
	/* its "always" answers hold for the session (on failure they
	 * simply last the subagent) */
	(void)memos_copy(j->link.parent, c->memos, j->link.memos_in, c->nmemos);
	j->link.memos_in = c->nmemos;
	/* what this answer cost (a kept subagent's totals grow) */
	skit_agent_get_stats(c, &j->stats);
	j->stats.turns -= before.turns;
	j->stats.tool_calls -= before.tool_calls;
	j->stats.script_runs -= before.script_runs;
	j->stats.usage.input_tokens -= before.usage.input_tokens;
	j->stats.usage.output_tokens -= before.usage.output_tokens;
	snprintf(j->status, sizeof(j->status), "%s", skit_agent_status(rc));
	skitx_buf_clear(&j->out);
	if (!rc) {
		size_t n = strlen(answer);

		if (n > SKIT_TOOL_OUTPUT_CAP)
			n = SKIT_TOOL_OUTPUT_CAP;
		if (skit__put_clean(&j->out, answer, n) ||
		    (n < strlen(answer) &&
		     skitx_buf_printf(&j->out,
		                      "\n[the answer was cut at %u KiB]",
		                      SKIT_TOOL_OUTPUT_CAP >> 10)))
			rc = SKIT_ENOMEM;
	} else if (rc != SKIT_ECANCELED && rc != SKIT_ENOMEM) {
		j->is_error = true;
		if (skitx_buf_printf(&j->out, "the subagent %s: %s",
		                     rc == SKIT_ELIMIT ? "stopped" : "failed",
		                     j->err.message))
			rc = SKIT_ENOMEM;
	}
	if (rc == SKIT_ECANCELED || rc == SKIT_ENOMEM) {
		j->rc = rc;
		if (rc == SKIT_ENOMEM)
			skit__error_oom(&j->err);
	}
	skitx_free(answer);
	if (!j->skill && !j->rc) {
		/* it waits for send_message; its trail ends with it */
		j->kept = true;
		if (skitx_buf_printf(&j->out,
		                     "\n\n[subagent task-%u: send_message with "
		                     "to \"task-%u\" continues its "
		                     "conversation]",
		                     j->link.number, j->link.number)) {
			j->rc = SKIT_ENOMEM;
			skit__error_oom(&j->err);
		}
		return;
	}
	skit_agent_finish(c, j->status, rc ? 1 : 0, NULL);
	j->child = NULL;
}

static void *worker(void *arg)
{
	struct batch *b = arg;

	pthread_mutex_lock(&b->mu);
	while (b->next < b->njobs) {
		struct job *j = b->jobs[b->next++];

		j->link.batch = b;
		job_run(j);
	}
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* Run the jobs of `b` on up to `n` threads; false when no thread could
 * start (nothing ran). */
static bool run_threads(struct batch *b, unsigned int n)
{
	pthread_t th[16];
	unsigned int started = 0;

	if (n > SKIT_ARRAY_SIZE(th))
		n = SKIT_ARRAY_SIZE(th);
	if (pthread_mutex_init(&b->mu, NULL))
		return false;
	for (unsigned int i = 0; i < n; i++)
		if (!pthread_create(&th[started], NULL, worker, b))
			started++;
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	pthread_mutex_destroy(&b->mu);
	return started > 0;
}

/* The parent records how the subagent of `j` ended. */
static void job_end(struct skit_agent *a, struct job *j)
{
	skit__agent_audit(
	        a, "subagent_end",
	        json_pack("{s:s?, s:s?, s:s, s:i, s:I, s:I, s:I, s:{s:I, s:I}, "
	                  "s:I}",
	                  "id", j->call_id, "skill", j->skill, "status",
	                  j->status, "task", (int)j->link.number, "turns",
	                  (json_int_t)j->stats.turns, "tool_calls",
	                  (json_int_t)j->stats.tool_calls, "script_runs",
	                  (json_int_t)j->stats.script_runs, "usage",
	                  "input_tokens",
	                  (json_int_t)j->stats.usage.input_tokens,
	                  "output_tokens",
	                  (json_int_t)j->stats.usage.output_tokens,
	                  "answer_chars",
	                  (json_int_t)(j->is_error ? 0
	                                           : skitx_buf_len(&j->out))));
	skit__agent_trace(
	        a, SKIT_TRACE_TOOL, "task %u: %s (%u turns, %u tool calls)",
	        j->link.number, j->status, j->stats.turns, j->stats.tool_calls);
}

int skit__subagent_run(struct skit_agent *a, skit_error *err)
{
	struct skit__tasks *t = a->tasks;
	struct batch b = { 0 };
	bool own = true;
	int rc = 0;

	b.jobs = skitx_calloc(t->njobs ? t->njobs : 1, sizeof(*b.jobs));
	if (!b.jobs)
		return skit__error_oom(err);
	for (size_t i = 0; i < t->njobs; i++) {
		if (!t->jobs[i]->child)
			continue;
		b.jobs[b.njobs++] = t->jobs[i];
		own = own && t->jobs[i]->own_model;
	}
	/* Threads only when each subagent has a model of its own. */
	if (!(b.njobs > 1 && own && t->max_parallel > 1 &&
	      run_threads(&b, t->max_parallel < b.njobs
	                              ? t->max_parallel
	                              : (unsigned int)b.njobs)))
		for (size_t i = 0; i < b.njobs; i++)
			job_run(b.jobs[i]);
	for (size_t i = 0; i < b.njobs; i++) {
		struct job *j = b.jobs[i];

		j->link.batch = NULL;
		job_end(a, j);
		if (j->rc && !rc) {
			rc = j->rc;
			if (err)
				*err = j->err;
		}
	}
	skitx_free(b.jobs);
	return rc;
}

bool skit__subagent_result(struct skit_agent *a, size_t k, size_t *index,
                           struct skitx_buf *out, bool *is_error)
{
	struct skit__tasks *t = a->tasks;

	if (!t || k >= t->njobs)
		return false;
	*index = t->jobs[k]->index;
	*is_error = t->jobs[k]->is_error;
	skitx_buf_clear(out);
	/* on a failed copy the model sees an empty result */
	(void)skitx_buf_add(out, skitx_buf_cstr(&t->jobs[k]->out),
	                    skitx_buf_len(&t->jobs[k]->out));
	return true;
}

size_t skit__subagent_held_from(const struct skit_agent *a, size_t i)
{
	return a->tasks && a->tasks->njobs ? a->tasks->jobs[0]->index : i;
}

/* Take `j` out of t->kept; whether it was there (compares pointers only:
 * `j` may not be dereferenced). */
static bool kept_remove(struct skit__tasks *t, const struct job *j)
{
	for (size_t i = 0; i < t->nkept; i++)
		if (t->kept[i] == j) {
			memmove(&t->kept[i], &t->kept[i + 1],
			        (t->nkept - i - 1) * sizeof(*t->kept));
			t->nkept--;
			return true;
		}
	return false;
}

/* A job of the batch that was not kept before it: kept now (the least
 * recently used kept one ends when there are KEEP_MAX), or freed. */
static void keep_new(struct skit__tasks *t, struct job *j)
{
	j->queued = false;
	if (!j->kept || !j->child) {
		job_free(j);
		return;
	}
	if (t->nkept == KEEP_MAX) {
		struct job *old = t->kept[0];

		kept_remove(t, old);
		job_free(old);
	}
	t->kept[t->nkept++] = j;
}

/*
 * After a batch: a subagent that answered stays for send_message, any
 * other job goes. In two passes, so that an eviction never frees a job
 * the batch still holds: first the kept subagents messaged in this batch
 * (they become the most recently used, or go when they ended), then the
 * new ones, which may evict the least recently used.
 */
void skit__subagent_clear(struct skit_agent *a)
{
	struct skit__tasks *t = a->tasks;

	if (!t)
		return;
	for (size_t i = 0; i < t->njobs; i++) {
		struct job *j = t->jobs[i];

		if (!kept_remove(t, j))
			continue;
		j->queued = false;
		if (j->kept && j->child)
			t->kept[t->nkept++] = j; /* now the newest */
		else
			job_free(j); /* a kept one that ended */
		t->jobs[i] = NULL;
	}
	if (t->pending && kept_remove(t, t->pending)) {
		/* messaged, never held: it stays as it was */
		t->pending->queued = false;
		t->kept[t->nkept++] = t->pending;
		t->pending = NULL;
	}
	for (size_t i = 0; i < t->njobs; i++)
		if (t->jobs[i])
			keep_new(t, t->jobs[i]);
	skitx_free(t->jobs);
	t->jobs = NULL;
	t->njobs = 0;
	if (t->pending)
		keep_new(t, t->pending);
	t->pending = NULL;
}

/* ---- narrowing ----------------------------------------------------------- */

static bool view_offers(struct skit_agent *a, const skit_active_skill *v,
                        size_t n, const struct skit__tool_def *d)
{
	bool interactive = a->hooks.on_approve != NULL;

	if (d->gate == SKIT__GATE_BUILTIN)
		return skit_policy_offers(a->policy, v, n, d->schema.name,
		                          interactive);
	if (d->gate == SKIT__GATE_EXTERNAL)
		return skit__policy_offers_external(
		        a->policy, v, n, d->schema.name, d->risk, interactive);
	return true;
}

bool skit__subagent_offers(struct skit_agent *a, const struct skit__tool_def *d)
{
	struct skit__sub *s = a->sub;
	struct skit_agent *p;

	if (!s || d->gate == SKIT__GATE_OPEN)
		return true;
	p = s->parent;
	if (p->nactive && !view_offers(a, p->view, p->nactive, d))
		return false;
	for (size_t i = 0; i < s->nnarrow; i++)
		if (!view_offers(a, &s->narrow[i], 1, d))
			return false;
	return true;
}

static void stricter(struct skit_agent *a, const skit_active_skill *v, size_t n,
                     const struct skit__tool_def *def,
                     const skit_tool_request *req, skit_decision *d)
{
	skit_decision d2;
	int rc;

	if (def->gate == SKIT__GATE_EXTERNAL)
		rc = skit__policy_check_external(a->policy, v, n,
		                                 def->schema.name, def->risk,
		                                 &d2, NULL);
	else
		rc = skit_policy_check(a->policy, v, n, req, &d2, NULL);
	if (rc) {
		d->verdict = SKIT_POLICY_DENY;
		snprintf(d->reason, sizeof(d->reason),
		         "a subagent's tools do not cover %s",
		         def->schema.name);
		return;
	}
	if (d2.verdict > d->verdict)
		*d = d2;
}

void skit__subagent_narrow(struct skit_agent *a,
                           const struct skit__tool_def *def,
                           const skit_tool_request *req, skit_decision *d)
{
	struct skit__sub *s = a->sub;
	struct skit_agent *p;

	if (!s || def->gate == SKIT__GATE_OPEN)
		return;
	p = s->parent;
	if (p->nactive)
		stricter(a, p->view, p->nactive, def, req, d);
	for (size_t i = 0; i < s->nnarrow; i++)
		stricter(a, &s->narrow[i], 1, def, req, d);
}

/* ---- context: fork ------------------------------------------------------- */

int skit__subagent_fork(struct skit_agent *a, const skit_entry *e,
                        const char *args, enum agent_trigger trigger,
                        struct skitx_buf *out, skit_error *err)
{
	const char *ctx, *agent;
	skit_skill *skill = NULL;
	struct skitx_buf head, body;
	skit_error pe = { 0 };
	struct job *j = NULL;
	char run[96];
	int rc;

	if (a->sub || !a->tasks)
		return 0; /* one level: in a subagent the skill runs inline */
	rc = skit_registry_load(&skill, a->reg, e, err);
	if (rc)
		return rc;
	ctx = skit_skill_field(skill, "context");
	if (!ctx || strcmp(ctx, "fork")) {
		skit_skill_free(skill);
		return 0;
	}
	skitx_buf_init(&head, 0);
	skitx_buf_init(&body, 0);
	agent = skit_skill_field(skill, "agent");
	j = job_new();
	if (!j || !(j->skill = skitx_strdup(e->name)) ||
	    !(j->description = skitx_strdup(e->name))) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = use_profile(a, j, agent, &head, &pe);
	if (rc == SKIT_ENOMEM) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (rc) {
		/* reported, and the skill runs with the default agent */
		/* the field is the author's text: shown only as a name */
		if (!skit__profile_name_ok(agent))
			agent = "(not a profile name)";
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "skill %s: agent '%.64s' not used: %s",
		                  e->name, agent, pe.message);
		skit__agent_audit(a, "note",
		                  json_pack("{s:s, s:s, s:s, s:s}", "code",
		                            "agent-profile-missing", "skill",
		                            e->name, "agent", agent, "message",
		                            pe.message));
		skitx_free(j->profile);
		j->profile = NULL;
		skit_allowed_tools_free(j->narrow[1]);
		j->narrow[1] = NULL;
		skit_model_free(j->own_model);
		j->own_model = NULL;
		skitx_buf_clear(&head);
	}
	rc = make_child(a, j, err);
	if (rc)
		goto out;
	/* The subagent activates the skill itself: its allowed-tools, its
	 * dynamic context and its scripts are the subagent's. */
	rc = skit__agent_activate(j->child, e->name, e->source, args, trigger,
	                          &body, err);
	if (rc)
		goto out;
	if (skitx_buf_add(&head, skitx_buf_cstr(&body), skitx_buf_len(&body)) ||
	    skitx_buf_puts(&head, "\n\nYou run as a subagent of the main "
	                          "agent: carry out the skill's "
	                          "instructions above, then answer with the "
	                          "result. Your final answer is all the main "
	                          "agent sees.")) {
		rc = skit__error_oom(err);
		goto out;
	}
	j->prompt = skitx_buf_detach(&head, NULL);
	/* The programs of the skill's dynamic context count in the parent's
	 * task; the subagent's own task then starts from nothing (as
	 * skit_agent_send() starts it). */
	releasing(j->child);
	j->child->tc.task_scripts = 0;
	j->child->tc.task_disk_used = 0;
	j->link.scripts_in = 0;
	j->link.disk_in = 0;
	skit__agent_audit(a, "subagent_start",
	                  json_pack("{s:s, s:s?, s:s?, s:i}", "skill", e->name,
	                            "run", child_run(j, run, sizeof(run)),
	                            "profile", j->profile, "task",
	                            (int)j->link.number));
	skit__agent_trace(a, SKIT_TRACE_SKILL,
	                  "skill %s runs as task %u (context: fork)%s%s",
	                  e->name, j->link.number,
	                  child_run(j, run, sizeof(run)) ? " -> " : "",
	                  child_run(j, run, sizeof(run)) ? run : "");
	job_run(j);
	job_end(a, j);
	if (j->rc) {
		rc = j->rc;
		if (err)
			*err = j->err;
		goto out;
	}
	if (j->is_error) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "skill '%s' ran as a subagent, which %s: "
		                     "%s",
		                     e->name,
		                     strcmp(j->status, "limit") ? "failed"
		                                                : "stopped",
		                     j->err.message);
		goto out;
	}
	skitx_buf_clear(out);
	if (skitx_buf_printf(out,
	                     "Skill '%s' ran as a subagent (context: fork)%s%s"
	                     ". Its answer:\n\n",
	                     e->name, j->profile ? " as agent " : "",
	                     j->profile ? j->profile : "") ||
	    skitx_buf_add(out, skitx_buf_cstr(&j->out), skitx_buf_len(&j->out)))
		rc = skit__error_oom(err);
	else
		rc = 1;
out:
	job_free(j);
	skit_skill_free(skill);
	skitx_buf_release(&head);
	skitx_buf_release(&body);
	return rc;
}
