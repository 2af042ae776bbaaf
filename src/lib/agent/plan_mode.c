/* SPDX-License-Identifier: MIT */
/*
 * plan_mode.c - plan mode (plan_mode.h): the agent researches with
 * read-only tools and proposes a plan, which the user approves before
 * anything is changed, as Claude Code's plan mode (its EnterPlanMode and
 * ExitPlanMode tools) does.
 *
 * In plan mode the tool gate offers and runs only what reads: tools of
 * the read-only class (read_file, grep, glob, lsp, task, an MCP tool
 * annotated readOnlyHint...) and skit's web_fetch and web_search, which
 * only look things up; the skill tools stay. A subagent runs in its main
 * agent's mode: started in plan mode it stays in it, and one continued
 * with send_message takes the mode of the moment. exit_plan_mode asks the user
 * to approve the plan (the program's on_ask; with --yes it is approved
 * as any call would be); a plan no one can approve leaves plan mode on,
 * and the model is told to give the plan as its answer.
 */
#include "common.h"

#include "lib/agent/plan_mode.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/policy/policy_external.h"
#include "lib/tools/tools_int.h"

#define PLAN_MAX (64u * 1024) /* bytes of a plan */

static const char yes_option[] = "Yes: carry out the plan";
static const char no_option[] = "No: keep planning";

static const char enter_description[] =
        "Enter plan mode, for a task that needs research and a plan the "
        "user approves before anything is changed: from now on only tools "
        "that read (files, searches, web pages, subagents that read) are "
        "offered. Research, then call exit_plan_mode with your plan.";

static const char exit_description[] =
        "In plan mode: present your plan to the user for approval. When "
        "the user approves, plan mode ends and you carry the plan out; "
        "otherwise you get the user's feedback and keep planning. The "
        "plan is Markdown: the steps, the files to change, how to check "
        "the result.";

static const char enter_schema[] = "{\"type\":\"object\",\"properties\":{},"
                                   "\"additionalProperties\":false}";

static const char exit_schema[] =
        "{\"type\":\"object\",\"properties\":{\"plan\":{\"type\":"
        "\"string\",\"description\":\"the plan, in Markdown\"}},"
        "\"required\":[\"plan\"],\"additionalProperties\":false}";

void skit__plan_mode_set(struct skit_agent *a, bool on, const char *by)
{
	if (a->plan_mode == on)
		return;
	a->plan_mode = on;
	/* a model of the action protocol reads its tools in the system
	 * prompt: list them as plan mode now offers them (exit_plan_mode
	 * in it, the writing tools out); on failure the list stays as it
	 * was, and the gate still refuses what plan mode does not allow */
	(void)skit__agent_refresh_actions(a, NULL);
	skit__agent_audit(a, "plan_mode",
	                  json_pack("{s:b, s:s}", "on", on, "by", by));
	skit__agent_trace(a, SKIT_TRACE_NOTE, "plan mode %s (%s)",
	                  on ? "on: only tools that read until a plan is "
	                       "approved"
	                     : "off",
	                  by);
}

bool skit__plan_mode_allows(const struct skit_agent *a,
                            const struct skit__tool_def *d)
{
	if (!a->plan_mode || d->gate == SKIT__GATE_OPEN ||
	    d->risk == SKIT_RISK_READ)
		return true;
	/* skit's own look-ups: a GET, a search */
	return d->gate == SKIT__GATE_BUILTIN &&
	       (!strcmp(d->schema.name, "web_fetch") ||
	        !strcmp(d->schema.name, "web_search"));
}

static size_t pm_list(void *self, const struct skit__tool_ctx *ctx,
                      struct skit__tool_def *out, size_t max)
{
	const struct skit_agent *a = self;

	(void)ctx;
	if (max < 2)
		return 0;
	memset(out, 0, 2 * sizeof(*out));
	out[0].schema.name = SKIT__ENTER_PLAN_MODE;
	out[0].schema.description = enter_description;
	out[0].schema.parameters = enter_schema;
	out[1].schema.name = SKIT__EXIT_PLAN_MODE;
	out[1].schema.description = exit_description;
	out[1].schema.parameters = exit_schema;
	for (int i = 0; i < 2; i++) {
		out[i].risk = SKIT_RISK_READ;
		out[i].gate = SKIT__GATE_OPEN;
	}
	/* A subagent's plan mode is its parent's to end; and the model
	 * enters plan mode only where someone can approve a plan (an ask
	 * hook: a terminal, a program's). */
	out[0].offered = !a->plan_mode && !a->sub && a->on_ask;
	out[1].offered = a->plan_mode && !a->sub;
	out[0].hint = a->sub         ? ": a subagent's mode is its main agent's"
	              : a->plan_mode ? ": plan mode is on already"
	                             : ": no one could approve a plan here";
	out[1].hint = a->sub ? ": a subagent's mode is its main agent's"
	                     : ": plan mode is off";
	return 2;
}

/* exit_plan_mode: the user approves `plan`, or not. */
static int pm_exit(struct skit_agent *a, const char *plan,
                   struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *options[] = { yes_option, no_option };
	skit_question q = { NULL, options, 2, false };
	struct skitx_buf ask, answer;
	char digest[65];
	bool yes = false;
	int rc;

	skitx_buf_init(&ask, 0);
	skitx_buf_init(&answer, 0);
	skit__sha256_hex(plan, strlen(plan), digest);
	if (skitx_buf_puts(&ask, "Approve this plan?\n\n") ||
	    skit__put_clean(&ask, plan, strlen(plan))) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (skit__policy_yes(a->policy)) {
		yes = true;
		rc = skitx_buf_puts(&answer, "approved by --yes")
		             ? skit__error_oom(err)
		             : 0;
	} else {
		q.question = skitx_buf_cstr(&ask);
		rc = a->tc.host->ask(a->tc.host_self, &q, &answer, err);
	}
	if (rc == SKIT_ENOTFOUND) {
		skit__agent_audit(a, "plan",
		                  json_pack("{s:s, s:I, s:s}", "sha256", digest,
		                            "chars", (json_int_t)strlen(plan),
		                            "decision", "no one to ask"));
		rc = skit__tool_error(
		        out, is_error,
		        "no one can approve a plan here: plan mode stays on. "
		        "Give the plan as your final answer and stop; the user "
		        "will run it");
		goto out;
	}
	if (rc)
		goto out;
	if (!yes)
		yes = !strcmp(skitx_buf_cstr(&answer), yes_option);
	skit__agent_audit(a, "plan",
	                  json_pack("{s:s, s:I, s:s}", "sha256", digest,
	                            "chars", (json_int_t)strlen(plan),
	                            "decision",
	                            yes ? "approved" : "not approved"));
	if (yes) {
		skit__plan_mode_set(a, false, "plan approved");
		rc = skitx_buf_puts(out,
		                    "The user approved the plan. Plan mode "
		                    "is off: carry the plan out now.")
		             ? skit__error_oom(err)
		             : 0;
		goto out;
	}
	*is_error = true;
	if (skitx_buf_puts(out, "The user did not approve the plan; plan "
	                        "mode stays on. ") ||
	    (strcmp(skitx_buf_cstr(&answer), no_option) &&
	     (skitx_buf_puts(out, "The user's words: ") ||
	      skit__put_clean(out, skitx_buf_cstr(&answer),
	                      skitx_buf_len(&answer)) ||
	      skitx_buf_puts(out, "\n"))) ||
	    skitx_buf_puts(out, "Revise the plan and present it again, or "
	                        "ask what the user wants."))
		rc = skit__error_oom(err);
out:
	skitx_buf_release(&ask);
	skitx_buf_release(&answer);
	return rc;
}

static int pm_call(void *self, struct skit__tool_ctx *ctx, const char *tool,
                   json_t *args, struct skitx_buf *out, bool *is_error,
                   skit_error *err)
{
	struct skit_agent *a = self;
	const char *plan;

	(void)ctx;
	if (a->sub)
		return skit__tool_error(out, is_error,
		                        "a subagent's plan mode is its main "
		                        "agent's");
	if (!strcmp(tool, SKIT__ENTER_PLAN_MODE)) {
		if (a->plan_mode)
			return skit__tool_error(out, is_error,
			                        "plan mode is on already");
		if (!a->on_ask)
			return skit__tool_error(
			        out, is_error,
			        "no one could approve a plan here: "
			        "go on with the task");
		skit__plan_mode_set(a, true, "the model");
		return skitx_buf_puts(out,
		                      "Plan mode is on: only tools that read "
		                      "are offered. Research the task, then "
		                      "call exit_plan_mode with your plan.")
		               ? skit__error_oom(err)
		               : 0;
	}
	if (!a->plan_mode)
		return skit__tool_error(out, is_error,
		                        "plan mode is off: there is no plan to "
		                        "approve; go on with the task");
	plan = skit__str_arg(args, "plan");
	if (!plan || !*plan || strlen(plan) > PLAN_MAX)
		return skit__tool_error(out, is_error,
		                        "plan must be the plan's text (at most "
		                        "%u KiB)",
		                        PLAN_MAX >> 10);
	return pm_exit(a, plan, out, is_error, err);
}

static const struct skit__tool_provider_ops pm_tools = {
	"plan_mode", pm_list, NULL, pm_call, NULL,
};

int skit__plan_mode_init(struct skit_agent *a, skit_error *err)
{
	return skit__agent_add_provider(a, &pm_tools, a, err);
}

int skit_agent_set_plan_mode(skit_agent *agent, bool on)
{
	if (!agent)
		return SKIT_EUSAGE;
	skit__plan_mode_set(agent, on, "the program");
	return 0;
}

bool skit_agent_plan_mode(const skit_agent *agent)
{
	return agent && agent->plan_mode;
}
