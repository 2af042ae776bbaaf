/* SPDX-License-Identifier: MIT */
/*
 * agent_tools.c - the agent's side of the tools: the providers it holds
 * (tool_provider.h), the tool list the model sees, and the one place
 * where every call is routed and decided. A gated call is checked by the
 * policy, asked about when it must be (the "always" answers of the run
 * and the saved ones of scripts included), and every decision is
 * audited, before the provider that owns the tool runs it.
 *
 * What a tool does is the provider's business; this file never runs one.
 */
#include "common.h"

#include "lib/agent/agent_int.h"
#include "lib/core/error.h"
#include "lib/agent/protect.h"
#include "lib/policy/policy_external.h"
#include "lib/tools/tool_provider.h"
#include "lib/tools/tools_int.h"
#include "lib/agent/approvals.h"
#include "lib/agent/subagent.h"
#include "lib/agent/tool_search.h"
#include "lib/agent/plan_mode.h"

/* Longest key of an "always" answer (a program, a script, a path). */
#define KEY_MAX 4096

struct agent_provider {
	const struct skit__tool_provider_ops *ops;
	void *self;
};

/* ---- providers -------------------------------------------------------- */

int skit__agent_add_provider(skit_agent *a,
                             const struct skit__tool_provider_ops *ops,
                             void *self, skit_error *err)
{
	struct agent_provider *grown;

	assert(a && ops && ops->list && ops->call);
	grown = skitx_realloc(a->prov, (a->nprov + 1) * sizeof(*grown));
	if (!grown) {
		if (ops->release)
			ops->release(self);
		return skit__error_oom(err);
	}
	a->prov = grown;
	a->prov[a->nprov].ops = ops;
	a->prov[a->nprov].self = self;
	a->nprov++;
	return 0;
}

void *skit__agent_provider(skit_agent *a,
                           const struct skit__tool_provider_ops *ops)
{
	for (size_t i = 0; i < a->nprov; i++)
		if (a->prov[i].ops == ops)
			return a->prov[i].self;
	return NULL;
}

bool skit__agent_provider_at(skit_agent *a, size_t i,
                             const struct skit__tool_provider_ops **ops,
                             void **self)
{
	if (i >= a->nprov)
		return false;
	*ops = a->prov[i].ops;
	*self = a->prov[i].self;
	return true;
}

struct skit__tool_ctx *skit__agent_tool_ctx(skit_agent *a)
{
	return &a->tc;
}

int skit__agent_tools_init(struct skit_agent *a,
                           const struct skit__tool_host *host, skit_error *err)
{
	struct skit__tool_ctx *c = &a->tc;
	int rc;

	c->reg = a->reg;
	c->policy = a->policy;
	c->project_dir = a->project_dir;
	c->workdir = a->workdir;
	c->protect = (const char *const *)a->protect;
	c->sandbox_mode = a->sandbox_mode;
	c->disk_cap = a->disk_cap;
	c->task_disk_cap = a->task_disk_cap;
	c->script_timeout_ms = a->script_timeout_ms;
	c->script_output_cap = a->script_output_cap;
	c->resource_cap = a->resource_cap;
	c->max_script_runs = a->max_script_runs;
	c->file_tools = a->file_tools;
	c->search_tool = a->search_tool;
	c->cancel = a->cancel;
	c->projfd = -1;
	c->host = host;
	c->host_self = a;
	rc = skit__agent_add_provider(a, &skit__skill_tools, NULL, err);
	if (!rc)
		rc = skit__agent_add_provider(a, &skit__project_tools, NULL,
		                              err);
	return rc;
}

void skit__agent_tools_release(struct skit_agent *a)
{
	/* The last added first: an MCP server may outlive nothing it
	 * relies on. */
	for (size_t i = a->nprov; i-- > 0;)
		if (a->prov[i].ops->release)
			a->prov[i].ops->release(a->prov[i].self);
	skitx_free(a->prov);
	a->prov = NULL;
	a->nprov = 0;
}

/* A known tool: its definition and its provider. */
struct found {
	struct skit__tool_def def;
	const struct agent_provider *p;
};

/* The tool `name` of the first provider that has it. */
static bool find_tool(struct skit_agent *a, const char *name, struct found *f)
{
	struct skit__tool_def defs[SKIT__TOOLS_MAX];

	for (size_t i = 0; i < a->nprov; i++) {
		size_t n = a->prov[i].ops->list(a->prov[i].self, &a->tc, defs,
		                                SKIT__TOOLS_MAX);

		for (size_t k = 0; k < n; k++) {
			if (strcmp(defs[k].schema.name, name))
				continue;
			f->def = defs[k];
			f->p = &a->prov[i];
			return true;
		}
	}
	return false;
}

/* Whether the model is offered `d` now: the provider offers it and the
 * policy lets it be seen. */
static bool offered(struct skit_agent *a, const struct skit__tool_def *d)
{
	bool interactive = a->hooks.on_approve != NULL;

	if (!d->offered || !skit__subagent_offers(a, d) ||
	    !skit__plan_mode_allows(a, d))
		return false;
	switch (d->gate) {
	case SKIT__GATE_OPEN:
		return true;
	case SKIT__GATE_BUILTIN:
		return skit_policy_offers(a->policy, a->view, a->nactive,
		                          d->schema.name, interactive);
	case SKIT__GATE_EXTERNAL:
		return skit__policy_offers_external(a->policy, a->view,
		                                    a->nactive, d->schema.name,
		                                    d->risk, interactive);
	}
	return false;
}

size_t skit__tools_collect(struct skit_agent *a, skit_tool_schema *out,
                           bool *external, size_t max)
{
	struct skit__tool_def defs[SKIT__TOOLS_MAX];
	size_t n = 0;

	assert(max >= SKIT__TOOLS_MAX);
	for (size_t i = 0; i < a->nprov && n < max; i++) {
		size_t got = a->prov[i].ops->list(a->prov[i].self, &a->tc, defs,
		                                  SKIT__TOOLS_MAX);

		for (size_t k = 0; k < got && n < max; k++) {
			bool dup = false;

			/* tool_search is added by skit__tool_search_apply() */
			if (!offered(a, &defs[k]) ||
			    !strcmp(defs[k].schema.name, SKIT__TOOL_SEARCH))
				continue;
			/* a name stays with the first provider that has it */
			for (size_t j = 0; j < n && !dup; j++)
				dup = !strcmp(out[j].name, defs[k].schema.name);
			if (dup)
				continue;
			external[n] = defs[k].gate == SKIT__GATE_EXTERNAL;
			out[n++] = defs[k].schema;
		}
	}
	return n;
}

size_t skit__tools_schemas(struct skit_agent *a, skit_tool_schema *out,
                           size_t max)
{
	bool external[SKIT__TOOLS_MAX];
	size_t n = skit__tools_collect(a, out, external, max);

	return skit__tool_search_apply(a, out, external, n);
}

/* ---- the permission gate ---------------------------------------------- */

/* What the policy matches a call on (the provider says), and the skill
 * that owns it. */
static int call_target(const struct found *f, json_t *args, struct skitx_buf *t,
                       const char **skill)
{
	json_t *v;

	*skill = NULL;
	if (f->p->ops->target)
		return f->p->ops->target(f->p->self, f->def.schema.name, args,
		                         t, skill);
	v = json_object_get(args, "path");
	return skitx_buf_puts(t, json_is_string(v) ? json_string_value(v) : "");
}

/* The part of a call an "always" answer covers: the program of a command
 * line, the script, the path. */
static int memo_key(char *buf, size_t cap, const char *tool, const char *target)
{
	size_t n;

	if (strcmp(tool, "shell")) {
		n = strcspn(target, " ");
		if (!strcmp(tool, "run_skill_script") && n < cap) {
			memcpy(buf, target, n);
			buf[n] = '\0';
			return 0;
		}
		return snprintf(buf, cap, "%s", target) < (int)cap ? 0 : -1;
	}
	target += strspn(target, " \t");
	n = strcspn(target, " \t;&|()`$<>\n\r");
	if (!n || n >= cap || target[n + strcspn(target + n, ";&|()`$<>\n\r")])
		return -1; /* compound lines are asked about each time */
	if (!skit_policy_simple_command(target))
		return -1; /* and so are options that run other code */
	memcpy(buf, target, n);
	buf[n] = '\0';
	return 0;
}

static bool memo_find(struct skit_agent *a, const char *tool, const char *skill,
                      const char *key)
{
	for (size_t i = 0; i < a->nmemos; i++)
		if (!strcmp(a->memos[i].tool, tool) &&
		    !strcmp(a->memos[i].skill, skill ? skill : "") &&
		    !strcmp(a->memos[i].key, key))
			return true;
	return false;
}

static int memo_add(struct skit_agent *a, const char *tool, const char *skill,
                    const char *key)
{
	struct agent_memo *grown, *m;

	grown = skitx_realloc(a->memos, (a->nmemos + 1) * sizeof(*grown));
	if (!grown)
		return SKIT_ENOMEM;
	a->memos = grown;
	m = &a->memos[a->nmemos];
	m->tool = skitx_strdup(tool);
	m->skill = skitx_strdup(skill ? skill : "");
	m->key = skitx_strdup(key);
	if (!m->tool || !m->skill || !m->key) {
		skitx_free(m->tool);
		skitx_free(m->skill);
		skitx_free(m->key);
		return SKIT_ENOMEM;
	}
	a->nmemos++;
	return 0;
}

/*
 * The skill folder and digest set a saved "always" of a script of
 * `skill` is bound to; false when approvals are not saved or the skill
 * cannot be hashed (then "always" lasts the session).
 */
static bool saved_binding(struct skit_agent *a, const char *tool,
                          const char *skill, const char **dir, char digest[65])
{
	struct skit__active_skill *as;

	if (!a->saved_approvals || !skill || strcmp(tool, "run_skill_script"))
		return false;
	as = skit__agent_find_active(a, skill);
	if (!as || !skit_skill_dir(as->skill))
		return false;
	*dir = skit_skill_dir(as->skill);
	return skit__skill_digest_set(*dir, digest, NULL) == 0;
}

static void audit_approval(struct skit_agent *a, const char *tool,
                           const char *skill, json_t *args, const char *target,
                           const skit_decision *d, bool allowed, const char *by,
                           bool asked)
{
	static const char *const risks[] = { "read", "execute", "write",
		                             "network" };
	char *json = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);

	skit__agent_audit(
	        a, "approval",
	        json_pack("{s:s, s:s?, s:s, s:s, s:s, s:s, s:s, s:s, s:b}",
	                  "tool", tool, "skill", skill, "arguments",
	                  json ? json : "", "target", target, "decision",
	                  allowed ? "allow" : "deny", "by", by, "risk",
	                  risks[d->risk], "reason", d->reason, "asked", asked));
	free(json);
}

/* The network a program run for `skill` (NULL: a shell call) will have,
 * in one line for the approval prompt. 0 or SKIT_ENOMEM. */
static int network_line(struct skit_agent *a, const char *skill,
                        struct skitx_buf *b)
{
	char **d = NULL;
	int rc = 0;

	if (skit_policy_network(a->policy, a->view, a->nactive, skill))
		return skitx_buf_puts(b, "on: the whole network (--network)");
	if (skit_policy_web_domains(&d, a->policy, a->view, a->nactive, skill,
	                            NULL))
		return SKIT_ENOMEM;
	if (!d)
		return skitx_buf_puts(b, "off");
	rc |= skitx_buf_puts(b, "HTTP and HTTPS to ");
	for (size_t i = 0, n = 0; d[i]; i++) {
		if (d[i][0] == '!')
			continue;
		rc |= skitx_buf_printf(b, "%s%s", n++ ? ", " : "",
		                       strcmp(d[i], "*") ? d[i] : "any host");
	}
	rc |= skitx_buf_puts(b, " only, through skit's proxy");
	skit_policy_web_domains_free(d);
	return rc ? SKIT_ENOMEM : 0;
}

/* Replace `out` with an error message for the model. 0 or SKIT_ENOMEM. */
/*
 * Decide a gated call: *go is set when it may run. A refusal becomes
 * the error result the model sees. Returns 0 or SKIT_ENOMEM.
 */
static int gate(struct skit_agent *a, const struct found *f, json_t *args,
                struct skitx_buf *out, bool *is_error, bool *go,
                skit_error *err)
{
	const char *name = f->def.schema.name, *skill = NULL, *by;
	bool external = f->def.gate == SKIT__GATE_EXTERNAL;
	char key[KEY_MAX + 1], always[KEY_MAX + 64];
	char flag[KEY_MAX + 64], *json = NULL, digest[65];
	const char *skill_dir = NULL;
	skit_approve_answer ans = SKIT_APPROVE_NO_ASK;
	skit_tool_request req;
	skit_approval ap;
	skit_decision d;
	struct skitx_buf t, net;
	bool has_key, bound = false;
	int rc;

	*go = false;
	skitx_buf_init(&net, 0);
	skitx_buf_init(&t, 0);
	if (call_target(f, args, &t, &skill)) {
		skitx_buf_release(&t);
		return skit__error_oom(err);
	}
	req.tool = name;
	req.target = skitx_buf_cstr(&t);
	req.skill = skill;
	if (external)
		rc = skit__policy_check_external(a->policy, a->view, a->nactive,
		                                 name, f->def.risk, &d, NULL);
	else
		rc = skit_policy_check(a->policy, a->view, a->nactive, &req, &d,
		                       NULL);
	if (rc) {
		rc = skit__tool_error(out, is_error, "unknown tool '%.64s'",
		                      name);
		goto done;
	}
	skit__subagent_narrow(a, &f->def, &req, &d); /* a subagent's tools */
	if (d.verdict != SKIT_POLICY_ASK) {
		*go = d.verdict == SKIT_POLICY_ALLOW;
		audit_approval(a, name, skill, args, req.target, &d, *go,
		               d.by_flag ? "flag" : "policy", false);
		if (!*go) {
			skit__agent_trace(a, SKIT_TRACE_TOOL, "%s refused: %s",
			                  name, d.reason);
			rc = skit__tool_error(out, is_error, "denied: %s",
			                      d.reason);
		}
		goto done;
	}
	has_key = !memo_key(key, sizeof(key), name, req.target);
	if (has_key && memo_find(a, name, skill, key)) {
		*go = true;
		audit_approval(a, name, skill, args, req.target, &d, true,
		               "user", false);
		goto done;
	}
	/* an "always" of an earlier run, for the skill's files as they are */
	bound = has_key && saved_binding(a, name, skill, &skill_dir, digest);
	if (bound && skit__approval_saved(skill_dir, key, digest)) {
		*go = true;
		skit__agent_trace(
		        a, SKIT_TRACE_TOOL,
		        "%s: approved earlier (saved, skill unchanged)", key);
		audit_approval(a, name, skill, args, req.target, &d, true,
		               "saved", false);
		goto done;
	}
	if (skit_policy_approving_flag(flag, sizeof(flag), a->policy, a->view,
	                               a->nactive, &req))
		flag[0] = '\0';
	if (!has_key)
		always[0] = '\0';
	else if (!strcmp(name, "shell"))
		snprintf(always, sizeof(always),
		         "shell commands starting with '%s'", key);
	else if (!strcmp(name, "run_skill_script"))
		snprintf(always, sizeof(always), "runs of %s's %s%s",
		         skill ? skill : "?", key,
		         bound ? ", saved until the skill changes" : "");
	else if (external)
		snprintf(always, sizeof(always), "calls of %s", name);
	else
		snprintf(always, sizeof(always), "%s on %s", name, key);
	json = json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS);
	ap.tool = name;
	ap.skill = skill;
	ap.arguments = json ? json : "{}";
	ap.target = req.target;
	ap.reason = d.reason;
	ap.risk = d.risk;
	ap.always = always;
	ap.approving_flag = flag;
	ap.network = NULL;
	if (!strcmp(name, "shell") || !strcmp(name, "run_skill_script")) {
		if (network_line(a, skill, &net)) {
			rc = skit__error_oom(err);
			goto done;
		}
		ap.network = skitx_buf_cstr(&net);
	}
	if (a->hooks.on_approve)
		ans = a->hooks.on_approve(&ap, a->hooks.payload);
	if (ans == SKIT_APPROVE_NO_ASK && a->hooks.on_refused)
		a->hooks.on_refused(&ap, a->hooks.payload);
	*go = ans == SKIT_APPROVE_YES || ans == SKIT_APPROVE_ALWAYS;
	by = ans == SKIT_APPROVE_NO_ASK ? "no-tty" : "user";
	audit_approval(a, name, skill, args, req.target, &d, *go, by,
	               ans != SKIT_APPROVE_NO_ASK);
	if (ans == SKIT_APPROVE_ALWAYS && has_key &&
	    memo_add(a, name, skill, key)) {
		rc = skit__error_oom(err);
		goto done;
	}
	if (ans == SKIT_APPROVE_ALWAYS && bound) {
		skit_error serr = { 0 };

		/* not saved: the session's "always" still holds */
		if (skit__approval_save(skill, skill_dir, key, digest, &serr) <
		    0)
			skit__agent_trace(a, SKIT_TRACE_NOTE,
			                  "approval not saved: %s",
			                  serr.message);
	}
	if (*go)
		goto done;
	skit__agent_trace(a, SKIT_TRACE_TOOL, "%s refused: %s", name,
	                  ans == SKIT_APPROVE_NO_ASK ? "no one to approve it"
	                                             : "declined by the user");
	if (ans != SKIT_APPROVE_NO_ASK)
		rc = skit__tool_error(out, is_error,
		                      "the user declined this call; do not "
		                      "retry it, ask the user or take another "
		                      "way");
	else if (flag[0])
		rc = skit__tool_error(out, is_error,
		                      "denied: this call needs the user's "
		                      "approval (%s) and there is no one to "
		                      "ask; the user can allow it by running "
		                      "again with %s",
		                      d.reason, flag);
	else
		rc = skit__tool_error(
		        out, is_error,
		        "denied: this call needs the user's "
		        "approval (%s) and there is no one to ask",
		        d.reason);
done:
	free(json);
	skitx_buf_release(&t);
	skitx_buf_release(&net);
	return rc;
}

/* ---- routing ---------------------------------------------------------- */

int skit__tools_call(struct skit_agent *a, const char *name, json_t *args,
                     struct skitx_buf *out, bool *is_error, skit_error *err)
{
	struct found f;
	bool go = false;
	int rc;

	*is_error = false;
	skitx_buf_clear(out);
	if (!json_is_object(args))
		return skit__tool_error(out, is_error,
		                        "the arguments must be a JSON object");
	if (!find_tool(a, name, &f))
		return skit__tool_error(out, is_error, "unknown tool '%.64s'",
		                        name);
	if (!skit__plan_mode_allows(a, &f.def))
		return skit__tool_error(
		        out, is_error,
		        "tool '%s' is not available in plan "
		        "mode: only tools that read, until the "
		        "user approves your plan (exit_plan_mode)",
		        name);
	if (f.def.gate != SKIT__GATE_OPEN) {
		if (!offered(a, &f.def))
			return skit__tool_error(
			        out, is_error,
			        "tool '%s' is not available now%s", name,
			        f.def.hint ? f.def.hint : "");
		rc = gate(a, &f, args, out, is_error, &go, err);
		if (rc || !go)
			return rc;
	}
	return f.p->ops->call(f.p->self, &a->tc, name, args, out, is_error,
	                      err);
}
