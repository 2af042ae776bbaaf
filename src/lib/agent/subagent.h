/* SPDX-License-Identifier: MIT */
/*
 * subagent.h - subagents: the `task` tool and skills with `context: fork`
 * (subagent.c). Library-internal; docs/agent.md, "Subagents".
 *
 * A subagent is a second skit_agent: a fresh conversation with the same
 * model (or a profile's), the tools its parent may use or fewer, its own
 * audit run under the parent's (`<run>/tasks/<id>/`), and limits that
 * count in the parent's budgets. It never gets `task` itself: one level.
 *
 * agent.c and agent_tools.c call the functions below from one line each;
 * every one is a no-op (or returns at once) where it does not apply.
 */
#ifndef SKIT_LIB_AGENT_SUBAGENT_H
#define SKIT_LIB_AGENT_SUBAGENT_H

#include "lib/agent/agent_int.h"

/* The tool's name, as the model and the policy know it. */
#define SKIT__TASK_TOOL "task"
/* The tool that continues a subagent that answered (send_message). */
#define SKIT__MESSAGE_TOOL "send_message"

/* Default of skit_agent_options.max_parallel_tasks. */
#define SKIT__TASKS_PARALLEL 3u

/* What a subagent spends that its parent's budget counts. */
enum skit__charge {
	SKIT__CHARGE_TURN, /* a model call (and the tokens so far) */
	SKIT__CHARGE_CALL, /* a tool call */
};

/* ---- the main agent ------------------------------------------------------ */

/* Offer `task` (a provider after the project tools) and read
 * opts->max_parallel_tasks. 0 or SKIT_ENOMEM. */
int skit__subagent_init(struct skit_agent *a, const skit_agent_options *opts,
                        skit_error *err);

/*
 * run_calls(): the call of `name` just handled (decided, and when
 * allowed prepared: its subagent made but not run) waits in the batch of
 * the response's task calls, with its result so far in `out` (a refusal
 * or an argument error). True when `name` is the task tool: then
 * skit__subagent_hold() must be called instead of recording the result.
 */
bool skit__subagent_batches(const struct skit_agent *a, const char *name);
int skit__subagent_hold(struct skit_agent *a, size_t index, const char *call_id,
                        const struct skitx_buf *out, bool is_error,
                        skit_error *err);

/*
 * Run the subagents of the batch, at most max_parallel_tasks at once
 * when their models allow it (below), and record how each ended. Returns
 * 0, or SKIT_ECANCELED / SKIT_ENOMEM (err set) when the task must end.
 *
 * Thread safety: the agent, its registry, policy, hooks and audit trail
 * are not thread-safe. Each subagent runs on a thread of its own with a
 * model of its own (skit__model_clone()), but under one lock that it
 * leaves only while it waits on the model: the conversations, the tool
 * calls, the approvals and the trail of the subagents take turns, and
 * their model calls, the slow part, overlap. A model that cannot be
 * cloned (replay, a program's transport) is shared, and its subagents
 * run one after the other in call order, so a cassette plays back the
 * same way every time.
 */
int skit__subagent_run(struct skit_agent *a, skit_error *err);

/* The k-th held call (in call order): its index in the response and its
 * result. False past the last. */
bool skit__subagent_result(struct skit_agent *a, size_t k, size_t *index,
                           struct skitx_buf *out, bool *is_error);

/* The first held call's index, or `i` when none is held. */
size_t skit__subagent_held_from(const struct skit_agent *a, size_t i);

/* Forget the batch (subagents not run are ended as errors). */
void skit__subagent_clear(struct skit_agent *a);

/*
 * Activation of a skill with `context: fork` (skit__agent_activate()):
 * run it as a subagent whose task is the skill's body with `args`, and
 * put what the parent sees (the subagent's answer, framed) in `out`.
 * Returns 1 when the skill forked, 0 when it does not fork (or `a` is a
 * subagent: one level), or a negative status with `err` set.
 */
int skit__subagent_fork(struct skit_agent *a, const skit_entry *e,
                        const char *args, enum agent_trigger trigger,
                        struct skitx_buf *out, skit_error *err);

/* ---- inside a subagent --------------------------------------------------- */

/* The agent that started `a`, or NULL when `a` is not a subagent. */
const struct skit_agent *skit__subagent_parent(const struct skit_agent *a);

/* Count one turn or tool call in the parent's budget too: 0, or
 * SKIT_ELIMIT with a message naming the shared budget. */
int skit__subagent_charge(struct skit_agent *a, enum skit__charge what,
                          skit_error *err);

/* Add a response's tokens to the parent's. */
void skit__subagent_usage(struct skit_agent *a, const skit_usage *u);

/* Around a model call: `begin` true before it, false after it (the lock
 * is left for the call, and the program counters are synced). */
void skit__subagent_blocking(struct skit_agent *a, bool begin);

/* Whether the subagent's narrowing (the parent's active skills, the
 * call's `tools`, a profile's) lets tool `d` be offered. */
bool skit__subagent_offers(struct skit_agent *a,
                           const struct skit__tool_def *d);

/* Lower the decision `d` on the call `req` of tool `def` to the
 * strictest of the narrowing's. */
void skit__subagent_narrow(struct skit_agent *a,
                           const struct skit__tool_def *def,
                           const skit_tool_request *req, skit_decision *d);

#endif
