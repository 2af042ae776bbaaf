/* SPDX-License-Identifier: MIT */
/*
 * policy.c - the decision procedure of DESIGN §6: the global, skill and
 * run-time lists, approvals, what a run is offered, and the config file.
 *
 * Patterns are parsed once (skit_policy_add, skit_allowed_tools_parse)
 * into a tool index plus a cleaned argument; skit_policy_check() then only
 * compares, with fixed stack buffers, so a decision can neither fail for
 * lack of memory nor take time beyond O(pattern * target) per pattern.
 *
 * The grammar and what a pattern covers are in policy_pattern.c, the
 * reading of shell command lines in policy_shell.c (see policy_int.h).
 */
#include "common.h"

#include <jansson.h>

#include "skit/policy.h"
#include "lib/core/config_int.h"
#include "lib/core/error.h"
#include "lib/policy/policy_external.h"
#include "lib/policy/policy_int.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"

/* The five lists a policy holds. */
enum { L_ALLOW, L_DENY, L_ASK, L_FLAG_ALLOW, L_FLAG_DENY, L_COUNT };

struct skit_policy {
	struct plist lists[L_COUNT];
	bool yes, no_network, network;
};

/* ---- decisions -------------------------------------------------------- */

static void decide(skit_decision *out, skit_verdict v, const char *fmt, ...)
        SKIT_PRINTF(3, 4);

static void decide(skit_decision *out, skit_verdict v, const char *fmt, ...)
{
	va_list ap;

	out->verdict = v;
	out->by_flag = false;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

/* Append to a fixed buffer, cutting (with "...") what does not fit. */
static void reason_add(char *buf, size_t cap, const char *s)
{
	size_t used = strlen(buf), n = strlen(s);

	if (used + 1 >= cap)
		return; /* already full (and cut) */
	if (used + n < cap) {
		memcpy(buf + used, s, n + 1);
		return;
	}
	if (cap - used > 4)
		memcpy(buf + used, s, cap - used - 4);
	memcpy(buf + cap - 4, "...", 4);
}

/*
 * "not in the allowed-tools of the active skills (a: X Y; b: Z)": the
 * reason a skill gate refusal gives, naming every declaring skill.
 */
static void gate_reason(skit_decision *out, const skit_active_skill *active,
                        size_t nactive)
{
	bool first = true;

	decide(out, SKIT_POLICY_DENY,
	       "not in the allowed-tools of the active skills (");
	for (size_t i = 0; i < nactive; i++) {
		const skit_allowed_tools *at = active[i].tools;

		if (!at || !at->declared)
			continue;
		if (!first)
			reason_add(out->reason, sizeof(out->reason), "; ");
		first = false;
		reason_add(out->reason, sizeof(out->reason),
		           active[i].name ? active[i].name : "(unnamed)");
		reason_add(out->reason, sizeof(out->reason), ":");
		if (!at->pats.n)
			reason_add(out->reason, sizeof(out->reason), " (none)");
		for (size_t j = 0; j < at->pats.n; j++) {
			reason_add(out->reason, sizeof(out->reason), " ");
			reason_add(out->reason, sizeof(out->reason),
			           at->pats.v[j].text);
		}
	}
	reason_add(out->reason, sizeof(out->reason), ")");
}

static const char *risk_word(skit_risk r)
{
	switch (r) {
	case SKIT_RISK_EXECUTE:
		return "execute";
	case SKIT_RISK_WRITE:
		return "write";
	case SKIT_RISK_NETWORK:
		return "network";
	default:
		return "read-only";
	}
}

/* ---- public: tools ---------------------------------------------------- */

int skit_tool_risk(skit_risk *out, const char *name)
{
	int i;

	assert(out && name);
	i = skit__policy_tool_index(name, strlen(name));
	if (i < 0)
		return SKIT_ENOTFOUND;
	*out = skit__policy_tools[i].risk;
	return 0;
}

/* ---- public: policy --------------------------------------------------- */

int skit_policy_new(skit_policy **out, skit_error *err)
{
	assert(out);
	*out = skitx_calloc(1, sizeof(**out));
	if (!*out)
		return skit__error_oom(err);
	return 0;
}

/* `kind`: "a deny" or "an ask" for a restrictive list, else NULL. */
static int policy_add(struct plist *l, const char *kind, const char *pattern,
                      skit_error *err)
{
	size_t len = strlen(pattern), lead = 0;
	struct pattern pat;
	struct perr pe;
	int error;

	if (l->n == SKIT_POLICY_MAX_PATTERNS)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "more than %d patterns in one list",
		                       SKIT_POLICY_MAX_PATTERNS);
	while (lead < len && skit__policy_is_blank(pattern[lead]))
		lead++;
	while (len > lead && skit__policy_is_blank(pattern[len - 1]))
		len--;
	error = skit__policy_parse_pattern(&pat, pattern + lead, len - lead,
	                                   NULL, &pe);
	if (error == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (error < 0) {
		skit__error_set(err, error, 0, "%s", pe.msg);
		if (err)
			err->column = (unsigned int)(lead + pe.pos + 1);
		return error;
	}
	if (kind && !pat.mcp && pat.tool >= 0 &&
	    skit__policy_tool_open_only(pat.tool)) {
		skit__error_set(err, SKIT_EINVALID, 0,
		                "'%.*s' names a tool skit never gates (the "
		                "skill, plan and ask tools): %s rule of it "
		                "would do nothing",
		                (int)(len - lead), pattern + lead, kind);
		skit__policy_pattern_release(&pat);
		return SKIT_EINVALID;
	}
	error = skit__policy_plist_push(l, &pat);
	if (error < 0) {
		skit__policy_pattern_release(&pat);
		return skit__error_oom(err);
	}
	return 0;
}

int skit_policy_add(skit_policy *p, skit_policy_list list, const char *pattern,
                    skit_error *err)
{
	assert(p && pattern);
	assert(list == SKIT_POLICY_LIST_ALLOW ||
	       list == SKIT_POLICY_LIST_DENY || list == SKIT_POLICY_LIST_ASK);
	if (list == SKIT_POLICY_LIST_ALLOW)
		return policy_add(&p->lists[L_ALLOW], NULL, pattern, err);
	if (list == SKIT_POLICY_LIST_DENY)
		return policy_add(&p->lists[L_DENY], "a deny", pattern, err);
	return policy_add(&p->lists[L_ASK], "an ask", pattern, err);
}

int skit_policy_add_flag(skit_policy *p, skit_policy_list list,
                         const char *pattern, skit_error *err)
{
	assert(p && pattern);
	assert(list == SKIT_POLICY_LIST_ALLOW || list == SKIT_POLICY_LIST_DENY);
	if (list == SKIT_POLICY_LIST_ALLOW)
		return policy_add(&p->lists[L_FLAG_ALLOW], NULL, pattern, err);
	return policy_add(&p->lists[L_FLAG_DENY], "a deny", pattern, err);
}

bool skit__policy_yes(const skit_policy *p)
{
	return p && p->yes;
}

void skit_policy_set_yes(skit_policy *p, bool yes)
{
	assert(p);
	p->yes = yes;
}

void skit_policy_set_network(skit_policy *p, bool network)
{
	assert(p);
	p->network = network;
}

void skit_policy_set_no_network(skit_policy *p, bool no_network)
{
	assert(p);
	p->no_network = no_network;
}

/*
 * The procedure of docs/permissions.md, in its order: the first step
 * that decides, decides.
 */
static int check(const skit_policy *p, const skit_active_skill *active,
                 size_t nactive, const skit_tool_request *req, skit_risk ext,
                 skit_decision *out, skit_error *err)
{
	const struct pattern *hit, *allow;
	bool declared = false, listed = false;
	struct call c;

	assert(p && req && req->tool && out && (active || !nactive));
	c.index = skit__policy_call_index(req->tool, ext, &c.mcp);
	if (c.index < 0)
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "unknown tool '%s'", req->tool);
	c.tool = &skit__policy_tools[c.index];
	c.target = req->target ? req->target : "";
	c.skill = req->skill;
	c.path_state =
	        skit__policy_clean_call_path(c.target, c.path, sizeof(c.path));
	c.host_ok = skit__policy_call_host(c.target, c.host, sizeof(c.host));
	out->risk = c.tool->risk;
	out->reason[0] = '\0';

	/* 1-3: a deny, from either source, always wins. */
	hit = skit__policy_plist_find(&p->lists[L_FLAG_DENY], &c, true);
	if (hit) {
		decide(out, SKIT_POLICY_DENY, "denied by --deny '%s'",
		       hit->text);
		out->by_flag = true;
		return 0;
	}
	hit = skit__policy_plist_find(&p->lists[L_DENY], &c, true);
	if (hit) {
		decide(out, SKIT_POLICY_DENY, "denied by config deny '%s'",
		       hit->text);
		return 0;
	}
	if (p->no_network && c.tool->risk == SKIT_RISK_NETWORK) {
		decide(out, SKIT_POLICY_DENY, "denied by --no-network");
		out->by_flag = true;
		return 0;
	}
	/* 3b: an active skill's disallowed-tools. */
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools)
			continue;
		hit = skit__policy_plist_find(&active[i].tools->deny, &c, true);
		if (hit) {
			decide(out, SKIT_POLICY_DENY,
			       "denied by the disallowed-tools of skill '%s' "
			       "('%s')",
			       active[i].name ? active[i].name : "(unnamed)",
			       hit->text);
			return 0;
		}
	}

	/* 4: the file tools work inside the project folder only. */
	if (c.tool->arg == ARG_PATH && c.path_state) {
		decide(out, SKIT_POLICY_DENY, "%s",
		       c.path_state == 1 ? "path is outside the project folder"
		                         : "path is too long");
		return 0;
	}

	/* 5: the skill gate. A skill may always run its own scripts. */
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools || !active[i].tools->declared)
			continue;
		declared = true;
		if (skit__policy_plist_find(&active[i].tools->pats, &c, false))
			listed = true;
	}
	if (declared && !listed && !c.tool->skill_tool) {
		bool own = false;

		if (!strcmp(c.tool->name, RUN_SKILL_SCRIPT) && req->skill)
			for (size_t i = 0; i < nactive; i++)
				if (active[i].name &&
				    !strcmp(active[i].name, req->skill))
					own = true;
		if (!own) {
			gate_reason(out, active, nactive);
			return 0;
		}
	}

	/* 6: config ask. */
	hit = skit__policy_plist_find(&p->lists[L_ASK], &c, true);
	if (hit) {
		if (p->yes) {
			decide(out, SKIT_POLICY_ALLOW,
			       "approved by --yes (config ask '%s')",
			       hit->text);
			out->by_flag = true;
		} else
			decide(out, SKIT_POLICY_ASK,
			       "needs approval: config ask '%s'", hit->text);
		return 0;
	}

	/* 7: reads run. */
	if (c.tool->risk == SKIT_RISK_READ) {
		decide(out, SKIT_POLICY_ALLOW, "read-only");
		return 0;
	}

	/*
	 * 8: pre-approved. The user's allow, plus (when a skill restricts)
	 * that skill listing it; a skill alone never pre-approves.
	 */
	allow = skit__policy_plist_find(&p->lists[L_FLAG_ALLOW], &c, false);
	hit = allow ? allow
	            : skit__policy_plist_find(&p->lists[L_ALLOW], &c, false);
	if (hit && (!declared || listed)) {
		decide(out, SKIT_POLICY_ALLOW, "pre-approved by %s '%s'",
		       allow ? "--allow" : "config allow", hit->text);
		out->by_flag = allow != NULL;
		return 0;
	}

	/* 9: the rest asks. */
	if (p->yes) {
		decide(out, SKIT_POLICY_ALLOW, "approved by --yes (%s call)",
		       risk_word(c.tool->risk));
		out->by_flag = true;
	} else
		decide(out, SKIT_POLICY_ASK, "%s call needs approval",
		       risk_word(c.tool->risk));
	return 0;
}

int skit_policy_check(const skit_policy *p, const skit_active_skill *active,
                      size_t nactive, const skit_tool_request *req,
                      skit_decision *out, skit_error *err)
{
	return check(p, active, nactive, req, SKIT_RISK_EXECUTE, out, err);
}

int skit__policy_check_external(const skit_policy *p,
                                const skit_active_skill *active, size_t nactive,
                                const char *tool, skit_risk risk,
                                skit_decision *out, skit_error *err)
{
	skit_tool_request req = { tool, NULL, NULL };

	assert(tool);
	if (!skit__policy_mcp_name(tool, strlen(tool)))
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "'%s' is not an MCP tool", tool);
	return check(p, active, nactive, &req, risk, out, err);
}

int skit_policy_check_mcp(const skit_policy *p, const skit_active_skill *active,
                          size_t nactive, const char *tool, bool read_only,
                          skit_decision *out, skit_error *err)
{
	return skit__policy_check_external(
	        p, active, nactive, tool,
	        read_only ? SKIT_RISK_READ : SKIT_RISK_EXECUTE, out, err);
}

bool skit_policy_simple_command(const char *cmd)
{
	assert(cmd);
	return skit__policy_simple_and_safe(cmd);
}

void skit_policy_free(skit_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < L_COUNT; i++)
		skit__policy_plist_release(&p->lists[i]);
	skitx_free(p);
}

/* ---- disclosure, network, suggestions, config -------------------------- */

/* Whether `pat` names tool `t` (its argument, if any, aside). */
static bool pattern_names(const struct pattern *pat, int t)
{
	const struct tool *pt;

	if (pat->tool < 0)
		return false;
	if (pat->mcp)
		return false; /* see plist_names_mcp() */
	pt = &skit__policy_tools[pat->tool];
	return pt->denotes ? (pt->denotes & skit__policy_tools[t].classes) != 0
	                   : pat->tool == t;
}

static bool plist_names(const struct plist *l, int t, bool bare_only)
{
	for (size_t i = 0; i < l->n; i++)
		if ((!bare_only || !l->v[i].arg) && pattern_names(&l->v[i], t))
			return true;
	return false;
}

/* Whether a bare pattern of `l` covers the MCP tool `name`. */
static bool plist_names_mcp(const struct plist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].mcp && skit__policy_mcp_match(l->v[i].mcp, name))
			return true;
	return false;
}

bool skit__policy_offers_external(const skit_policy *p,
                                  const skit_active_skill *active,
                                  size_t nactive, const char *tool,
                                  skit_risk risk, bool interactive)
{
	bool declared = false, named = false;

	assert(p && tool && (active || !nactive));
	if (plist_names_mcp(&p->lists[L_FLAG_DENY], tool) ||
	    plist_names_mcp(&p->lists[L_DENY], tool))
		return false;
	if (p->no_network && risk == SKIT_RISK_NETWORK)
		return false;
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools)
			continue;
		if (plist_names_mcp(&active[i].tools->deny, tool))
			return false;
		if (!active[i].tools->declared)
			continue;
		declared = true;
		if (plist_names_mcp(&active[i].tools->pats, tool))
			named = true;
	}
	if (declared)
		return named;
	if (risk == SKIT_RISK_READ)
		return true;
	return interactive || p->yes ||
	       plist_names_mcp(&p->lists[L_FLAG_ALLOW], tool) ||
	       plist_names_mcp(&p->lists[L_ALLOW], tool);
}

bool skit_policy_offers_mcp(const skit_policy *p,
                            const skit_active_skill *active, size_t nactive,
                            const char *tool, bool read_only, bool interactive)
{
	return skit__policy_offers_external(
	        p, active, nactive, tool,
	        read_only ? SKIT_RISK_READ : SKIT_RISK_EXECUTE, interactive);
}

bool skit_policy_offers(const skit_policy *p, const skit_active_skill *active,
                        size_t nactive, const char *tool, bool interactive)
{
	bool declared = false, named = false;
	int t;

	assert(p && tool && (active || !nactive));
	t = skit__policy_tool_index(tool, strlen(tool));
	if (t < 0)
		return false;
	if (skit__policy_tools[t].skill_tool)
		return true;
	if (plist_names(&p->lists[L_FLAG_DENY], t, true) ||
	    plist_names(&p->lists[L_DENY], t, true))
		return false;
	if (p->no_network && skit__policy_tools[t].risk == SKIT_RISK_NETWORK)
		return false;
	/* A skill's scripts are offered once a skill is active. */
	if (!strcmp(skit__policy_tools[t].name, RUN_SKILL_SCRIPT))
		return nactive > 0;
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools)
			continue;
		if (plist_names(&active[i].tools->deny, t, true))
			return false;
		if (!active[i].tools->declared)
			continue;
		declared = true;
		if (plist_names(&active[i].tools->pats, t, false))
			named = true;
	}
	if (declared)
		return named;
	if (skit__policy_tools[t].risk == SKIT_RISK_READ)
		return true;
	return interactive || p->yes ||
	       plist_names(&p->lists[L_FLAG_ALLOW], t, false) ||
	       plist_names(&p->lists[L_ALLOW], t, false);
}

/* A bare deny (flag or config) of WebFetch or WebSearch. */
static bool web_denied(const skit_policy *p)
{
	static const char *const net[] = { "WebFetch", "WebSearch" };

	for (size_t k = 0; k < SKIT_ARRAY_SIZE(net); k++) {
		int t = skit__policy_tool_index(net[k], strlen(net[k]));

		if (plist_names(&p->lists[L_FLAG_DENY], t, true) ||
		    plist_names(&p->lists[L_DENY], t, true))
			return true;
	}
	return false;
}

bool skit_policy_network(const skit_policy *p, const skit_active_skill *active,
                         size_t nactive, const char *skill)
{
	/* The whole network is the user's decision alone (`--network`, or
	 * "network": true in the user's config): a skill's allowed-tools
	 * never grants it, whatever they name. */
	assert(p && (active || !nactive));
	(void)active;
	(void)nactive;
	(void)skill;
	return p->network && !p->no_network && !web_denied(p);
}

/* Append a copy of `s` (with `mark` before it, 0 for none) unless the
 * list already holds it. */
static int domains_push(struct skitx_vec *v, char mark, const char *s)
{
	char *d;

	for (size_t i = 0; i < v->len; i++) {
		const char *have = v->items[i];

		if ((mark ? have[0] == mark && !strcmp(have + 1, s)
		          : !strcmp(have, s)))
			return 0;
	}
	d = skitx_malloc(strlen(s) + 2);
	if (!d)
		return SKIT_ENOMEM;
	d[0] = mark;
	memcpy(d + (mark ? 1 : 0), s, strlen(s) + 1);
	if (skitx_vec_push(v, d)) {
		skitx_free(d);
		return SKIT_ENOMEM;
	}
	return 0;
}

void skit_policy_web_domains_free(char **domains)
{
	for (size_t i = 0; domains && domains[i]; i++)
		skitx_free(domains[i]);
	skitx_free(domains);
}

/* Whether `pat` is a WebFetch pattern (Claude Code's name or another
 * agent's for it). */
static bool web_pattern(const struct pattern *pat, int web)
{
	return pat->tool >= 0 && !pat->mcp &&
	       (pat->tool == web || (skit__policy_tools[pat->tool].denotes &
	                             skit__policy_tools[web].denotes));
}

int skit_policy_web_domains(char ***out, const skit_policy *p,
                            const skit_active_skill *active, size_t nactive,
                            const char *skill, skit_error *err)
{
	const int lists[] = { L_FLAG_ALLOW, L_ALLOW, L_FLAG_DENY, L_DENY };
	int web = skit__policy_tool_index("WebFetch", 8), rc = 0;
	struct skitx_vec v = SKITX_VEC_INIT;
	char **res;

	assert(out && p && (active || !nactive));
	*out = NULL;
	if (p->no_network || web_denied(p))
		return 0;
	/* The user's own: every program gets them. A bare WebFetch is any
	 * host; a deny of a domain is carried as "!host". */
	for (size_t k = 0; !rc && k < SKIT_ARRAY_SIZE(lists); k++) {
		const struct plist *l = &p->lists[lists[k]];

		for (size_t i = 0; !rc && i < l->n; i++) {
			if (!web_pattern(&l->v[i], web))
				continue;
			if (k >= 2)
				rc = l->v[i].arg ? domains_push(&v, '!',
				                                l->v[i].arg)
				                 : 0;
			else
				rc = domains_push(
				        &v, 0, l->v[i].arg ? l->v[i].arg : "*");
		}
	}
	/* An active skill's disallowed-tools hold for every program: a
	 * bare WebFetch there is no web at all, a domain a refused one. */
	for (size_t a = 0; !rc && a < nactive; a++) {
		const struct plist *l;

		if (!active[a].tools)
			continue;
		l = &active[a].tools->deny;
		for (size_t i = 0; !rc && i < l->n; i++) {
			if (!web_pattern(&l->v[i], web))
				continue;
			if (!l->v[i].arg)
				goto none;
			rc = domains_push(&v, '!', l->v[i].arg);
		}
	}
	/* A skill's, for its own scripts: each named domain the user's
	 * rules alone (no skill active) would let WebFetch reach without
	 * asking. A bare WebFetch of a skill names no domain and grants
	 * none. */
	for (size_t a = 0; !rc && skill && a < nactive; a++) {
		const struct plist *l;

		if (!active[a].tools || !active[a].name ||
		    strcmp(active[a].name, skill))
			continue;
		l = &active[a].tools->pats;
		for (size_t i = 0; !rc && i < l->n; i++) {
			skit_tool_request req = { "WebFetch", NULL, NULL };
			skit_decision d;

			if (!web_pattern(&l->v[i], web) || !l->v[i].arg)
				continue;
			req.target = l->v[i].arg;
			if (skit_policy_check(p, NULL, 0, &req, &d, NULL) ==
			            0 &&
			    d.verdict == SKIT_POLICY_ALLOW)
				rc = domains_push(&v, 0, l->v[i].arg);
		}
	}
	if (!rc && v.len) {
		res = skitx_calloc(v.len + 1, sizeof(*res));
		if (!res)
			rc = SKIT_ENOMEM;
		for (size_t i = 0; !rc && i < v.len; i++)
			res[i] = v.items[i];
		if (!rc) {
			skitx_vec_release(&v);
			*out = res;
			return 0;
		}
	}
none:
	for (size_t i = 0; i < v.len; i++)
		skitx_free(v.items[i]);
	skitx_vec_release(&v);
	return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
}

/* The first word of a command: its program. */
static size_t first_word(const char *s, const char **start)
{
	while (skit__policy_is_blank(*s))
		s++;
	*start = s;
	return strcspn(s, " \t");
}

/* Whether `a` is `s` without its leading and trailing blanks. */
static bool same_trimmed(const char *a, const char *s)
{
	const char *e = s + strlen(s);

	while (s < e && skit__policy_is_blank(*s))
		s++;
	while (e > s && skit__policy_is_blank(e[-1]))
		e--;
	return strlen(a) == (size_t)(e - s) && !memcmp(a, s, (size_t)(e - s));
}

int skit_policy_suggest(char *buf, size_t cap, const skit_tool_request *req,
                        bool broad)
{
	const char *w, *target;
	char host[HOST_BUF], path[PATH_BUF];
	size_t wl;
	int t, n = -1;

	assert(buf && cap && req && req->tool);
	buf[0] = '\0';
	if (skit__policy_mcp_name(req->tool, strlen(req->tool)))
		return snprintf(buf, cap, "%s", req->tool) < (int)cap
		               ? 0
		               : SKIT_ETOOBIG;
	t = skit__policy_tool_index(req->tool, strlen(req->tool));
	if (t < 0)
		return SKIT_ENOTFOUND;
	target = req->target ? req->target : "";
	switch (skit__policy_tools[t].arg) {
	case ARG_COMMAND:
		wl = first_word(target, &w);
		if (!wl)
			return SKIT_EINVALID;
		if (!strcmp(skit__policy_tools[t].name, RUN_SKILL_SCRIPT)) {
			/* the script of that skill, never another's */
			if (!req->skill || !*req->skill ||
			    req->skill[strspn(req->skill,
			                      "abcdefghijklmnopqrstuvwxyz"
			                      "0123456789-")])
				return SKIT_EINVALID;
			n = snprintf(buf, cap, "%s(%s:%.*s)", RUN_SKILL_SCRIPT,
			             req->skill, (int)wl, w);
		} else if (broad)
			n = snprintf(buf, cap, "Bash(%.*s:*)", (int)wl, w);
		else
			n = snprintf(buf, cap, "Bash(%s)", w);
		break;
	case ARG_PATH:
		/* A name holding `*` or `?` would read back as a glob
		 * ("Write(**)" is every path): no exact pattern exists. */
		if (skit__policy_clean_call_path(target, path, sizeof(path)) ||
		    !path[0] || strpbrk(path, "*?"))
			return SKIT_EINVALID;
		n = snprintf(buf, cap, "%s(%s)",
		             skit__policy_tools[t].risk == SKIT_RISK_WRITE
		                     ? "Write"
		                     : "Read",
		             path);
		break;
	case ARG_DOMAIN:
		if (!skit__policy_call_host(target, host, sizeof(host)))
			return SKIT_EINVALID;
		n = snprintf(buf, cap, "WebFetch(domain:%s)", host);
		break;
	default:
		n = snprintf(buf, cap, "%s", skit__policy_tools[t].name);
		break;
	}
	if (n < 0 || (size_t)n >= cap) {
		buf[0] = '\0';
		return SKIT_ETOOBIG;
	}
	/* Only what parses back is a suggestion. */
	{
		struct pattern pat;
		struct perr pe;
		int error = skit__policy_parse_pattern(&pat, buf, (size_t)n,
		                                       NULL, &pe);

		if (error < 0) {
			buf[0] = '\0';
			return error == SKIT_ENOMEM ? SKIT_ENOMEM
			                            : SKIT_EINVALID;
		}
		/*
		 * The narrow form must name this call and no other: a
		 * command ending in ":*" would read back as a prefix rule
		 * ("rm -rf build :*" grants every "rm -rf build ..."), and
		 * folded blanks would stand for other lines.
		 */
		if (!broad && skit__policy_tools[t].arg == ARG_COMMAND &&
		    strcmp(skit__policy_tools[t].name, RUN_SKILL_SCRIPT) &&
		    (pat.prefix || !same_trimmed(pat.arg, target)))
			error = SKIT_EINVALID;
		skit__policy_pattern_release(&pat);
		if (error < 0) {
			buf[0] = '\0';
			return error;
		}
	}
	/* And only what, given alone, lets this very call run: a script
	 * call whose arguments no pattern may pre-approve (a command
	 * substitution) gets none. */
	{
		skit_policy *alone = NULL;
		skit_decision d;
		int error = skit_policy_new(&alone, NULL);

		if (!error)
			error = skit_policy_add_flag(
			        alone, SKIT_POLICY_LIST_ALLOW, buf, NULL);
		if (!error)
			error = skit_policy_check(alone, NULL, 0, req, &d,
			                          NULL);
		if (!error && d.verdict != SKIT_POLICY_ALLOW)
			error = SKIT_EINVALID;
		skit_policy_free(alone);
		if (error < 0) {
			buf[0] = '\0';
			return error == SKIT_ENOMEM ? SKIT_ENOMEM
			                            : SKIT_EINVALID;
		}
	}
	return 0;
}

/* Append `s` to `buf` single-quoted for a POSIX shell. */
static bool put_quoted(char *buf, size_t cap, size_t *at, const char *s)
{
	if (*at + 1 >= cap)
		return false;
	buf[(*at)++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t len = piece ? 4 : 1;

		if (*at + len + 2 > cap)
			return false;
		memcpy(buf + *at, piece ? piece : s, len);
		*at += len;
	}
	buf[(*at)++] = '\'';
	buf[*at] = '\0';
	return true;
}

int skit_policy_approving_flag(char *buf, size_t cap, const skit_policy *p,
                               const skit_active_skill *active, size_t nactive,
                               const skit_tool_request *req)
{
	struct skit_policy tmp;
	struct pattern pat;
	struct perr pe;
	skit_decision d;
	char suggestion[PATH_BUF + 64];
	size_t at;
	int error;

	assert(buf && cap && p && req);
	buf[0] = '\0';
	/* Try the narrowest --allow first, then --yes. */
	if (!skit_policy_suggest(suggestion, sizeof(suggestion), req, false) &&
	    skit__policy_parse_pattern(&pat, suggestion, strlen(suggestion),
	                               NULL, &pe) == 0) {
		tmp = *p;
		tmp.lists[L_FLAG_ALLOW].v = &pat;
		tmp.lists[L_FLAG_ALLOW].n = 1;
		error = skit_policy_check(&tmp, active, nactive, req, &d, NULL);
		skit__policy_pattern_release(&pat);
		if (!error && d.verdict == SKIT_POLICY_ALLOW) {
			at = 0;
			if (cap < 9)
				return SKIT_ETOOBIG;
			memcpy(buf, "--allow ", 9);
			at = 8;
			if (!put_quoted(buf, cap, &at, suggestion)) {
				buf[0] = '\0';
				return SKIT_ETOOBIG;
			}
			return 0;
		}
	}
	tmp = *p;
	tmp.yes = true;
	error = skit_policy_check(&tmp, active, nactive, req, &d, NULL);
	if (error)
		return error;
	if (d.verdict != SKIT_POLICY_ALLOW)
		return SKIT_ENOTFOUND;
	if (cap < 6)
		return SKIT_ETOOBIG;
	memcpy(buf, "--yes", 6);
	return 0;
}

int skit_policy_load_config(skit_policy *p, const char *path, bool trusted,
                            size_t *ignored, skit_error *err)
{
	static const char *const keys[] = { "allow", "deny", "ask" };
	static const skit_policy_list lists[] = { SKIT_POLICY_LIST_ALLOW,
		                                  SKIT_POLICY_LIST_DENY,
		                                  SKIT_POLICY_LIST_ASK };
	json_t *root = NULL, *perms, *arr, *v;
	const char *key;
	size_t i, skipped = 0;
	int rc;

	assert(p && path);
	if (ignored)
		*ignored = 0;
	rc = skit__config_read(&root, path, trusted, err);
	if (rc < 0)
		return rc;
	rc = 0;
	perms = json_is_object(root) ? json_object_get(root, "permissions")
	                             : NULL;
	if (!json_is_object(root))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: expected a JSON object", path);
	else if (perms && !json_is_object(perms))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: \"permissions\" must be an object",
		                     path);
	json_object_foreach(rc ? NULL : perms, key, arr)
	{
		size_t k;

		for (k = 0; k < SKIT_ARRAY_SIZE(keys); k++)
			if (!strcmp(key, keys[k]))
				break;
		if (k == SKIT_ARRAY_SIZE(keys)) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: unknown key "
			                     "\"permissions.%.64s\" (expected "
			                     "allow, deny or ask)",
			                     path, key);
			break;
		}
		if (!json_is_array(arr)) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: \"permissions.%s\" must be a "
			                     "list of patterns",
			                     path, key);
			break;
		}
		json_array_foreach(arr, i, v)
		{
			if (!json_is_string(v)) {
				rc = skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: permissions.%s[%zu] is not a "
				        "string",
				        path, key, i);
				break;
			}
			/* Repository content may restrict, never grant. */
			if (!trusted && lists[k] == SKIT_POLICY_LIST_ALLOW) {
				skipped++;
				continue;
			}
			rc = skit_policy_add(p, lists[k], json_string_value(v),
			                     err);
			if (rc < 0) {
				if (err && rc != SKIT_ENOMEM) {
					char msg[sizeof(err->message)];
					int n = snprintf(
					        msg, sizeof(msg),
					        "%s: permissions.%s[%zu]: ",
					        path, key, i);

					size_t room;

					if (n < 0 || (size_t)n >= sizeof(msg))
						n = (int)sizeof(msg) - 1;
					room = sizeof(msg) - 1 - (size_t)n;
					memcpy(msg + n, err->message,
					       strnlen(err->message, room));
					msg[(size_t)n +
					    strnlen(err->message, room)] = '\0';
					memcpy(err->message, msg, sizeof(msg));
				}
				break;
			}
		}
		if (rc)
			break;
	}
	/* "network": true gives programs the whole network: from the
	 * user's own files only, never from a project's. */
	v = rc ? NULL : json_object_get(root, "network");
	if (v && !json_is_boolean(v))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: \"network\" must be true or false",
		                     path);
	else if (v && trusted)
		p->network = json_is_true(v);
	json_decref(root);
	if (ignored)
		*ignored = skipped;
	return rc;
}
