/* SPDX-License-Identifier: MIT */
/*
 * policy_int.h - what the policy files share (library-internal).
 *
 *   policy_pattern.c  the tool table, the pattern grammar (the permission
 *                     lists and allowed-tools) and what a pattern covers
 *   policy_shell.c    shell command lines: words, pipelines, command
 *                     substitutions, env -S, runners (sudo, xargs, ...)
 *                     and the options that run other code
 *   policy.c          the decision (global, skill and run-time lists),
 *                     approvals, disclosure and the config file: the
 *                     skit_policy_* API
 *
 * The policy subsystem (src/lib/policy/) owns permission patterns and the
 * decisions of DESIGN §6 and docs/permissions.md. It uses core and util.
 * Only the policy files and the tests include this header (its names are
 * short for that reason); the rest of the library sees policy through
 * include/skit/policy.h.
 */
#ifndef SKIT_LIB_POLICY_INT_H
#define SKIT_LIB_POLICY_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "skit/policy.h"

#define PATH_BUF 4096
#define HOST_BUF 256

/* What a pattern's argument means. */
enum arg_kind { ARG_NONE, ARG_PATH, ARG_COMMAND, ARG_DOMAIN, ARG_SKILL };

struct tool {
	const char *name;
	unsigned int denotes; /* classes a pattern of this name covers; 0:
	                         the pattern covers only this tool */
	unsigned int classes; /* classes a call of this tool belongs to */
	enum arg_kind arg;
	skit_risk risk;
	bool skill_tool; /* base set of DESIGN §5: never gated by skills */
};

/* The tool table (policy_pattern.c): a pattern's `tool` and a call's
 * `index` index it. */
extern const struct tool skit__policy_tools[];

#define RUN_SKILL_SCRIPT "run_skill_script"

struct pattern {
	char *text;  /* as written, trimmed */
	int tool;    /* index into the tool table, -1 for an unknown name */
	char *arg;   /* cleaned argument; NULL for a bare name */
	bool prefix; /* ARG_COMMAND ending in ":*" */
	char *skill; /* run_skill_script(SKILL:PATH): the skill; else NULL */
	char *mcp;   /* mcp__SERVER[__TOOL][*]: the name pattern; else NULL */
};

struct plist {
	struct pattern *v;
	size_t n, alloc;
};

struct skit_allowed_tools {
	char *skill;
	bool declared;     /* an allowed-tools list (else only `deny`) */
	struct plist pats; /* allowed-tools */
	struct plist deny; /* disallowed-tools: refused while active */
	skit_diag *diags;
	size_t ndiags;
};

/* A parse failure: what and where (0-based offset in the pattern). */
struct perr {
	int code;
	size_t pos;
	char msg[160];
};

/* The call, prepared once for every pattern. */
struct call {
	const struct tool *tool;
	int index;
	const char *target; /* never NULL */
	const char *skill;  /* run_skill_script: the script's skill */
	const char *mcp;    /* an MCP tool: its full name; else NULL */
	int path_state;     /* 0 inside (path), 1 outside, 2 too long */
	char path[PATH_BUF];
	bool host_ok;
	char host[HOST_BUF];
};

/* ---- pattern grammar and matching (policy_pattern.c) ---- */

static inline bool skit__policy_is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline bool skit__policy_is_name_char(char c, bool first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '_');
}

/* The index of tool `name` (`len` bytes) in the table, or -1. */
int skit__policy_tool_index(const char *name, size_t len);

/* What a machine may have that some tools need (skit__policy_tool_offered). */
enum {
	SKIT__OFFER_SEARCH = 1u << 0, /* a search backend: web_search */
	SKIT__OFFER_LSP = 1u << 1,    /* a language server: lsp */
};

/*
 * Whether the tool name `name` (len bytes) of an allowed-tools value
 * names a tool skit's agent offers: a row of the table, or mcp__*. The
 * web search names only with SKIT__OFFER_SEARCH in `have` (a search
 * backend is configured), the code intelligence ones (LSP...) only with
 * SKIT__OFFER_LSP (a language server is).
 */
bool skit__policy_tool_offered(const char *name, size_t len, unsigned int have);

/*
 * Whether a pattern of tool row `t` covers only tools skit never gates
 * (use_skill, update_plan, ask_user...): a deny or ask rule of it could
 * never take effect.
 */
bool skit__policy_tool_open_only(int t);

/* The length of the MCP tool pattern at `s`, or 0 when it is not one. */
size_t skit__policy_mcp_name(const char *s, size_t len);

/* Whether MCP pattern `pat` covers the tool `name`. */
bool skit__policy_mcp_match(const char *pat, const char *name);

void skit__policy_pattern_release(struct pattern *pat);

/*
 * Parse the `len` bytes at `s` (split out and trimmed) into `pat`: 0,
 * SKIT_ENOMEM, or another error described in `pe`. An unknown tool name
 * sets `*unknown` when it is not NULL, and is an error otherwise.
 */
int skit__policy_parse_pattern(struct pattern *pat, const char *s, size_t len,
                               bool *unknown, struct perr *pe);

/* Append `pat` (moved in) to `l`: 0 or SKIT_ENOMEM. */
int skit__policy_plist_push(struct plist *l, struct pattern *pat);
void skit__policy_plist_release(struct plist *l);

/* A call's path relative to the project folder: 0 and the clean path in
 * `buf`; 1 when absolute or climbing out; 2 when it does not fit. */
int skit__policy_clean_call_path(const char *in, char *buf, size_t cap);

/* The lower-cased host of a URL or bare host name into `buf`. */
bool skit__policy_call_host(const char *in, char *buf, size_t cap);

/* The table index of a call of `name` (-1 when unknown); `*mcp` is `name`
 * for an external tool (mcp__SERVER__TOOL, of risk `ext`), else NULL. */
int skit__policy_call_index(const char *name, skit_risk ext, const char **mcp);

/* The first pattern of `l` that covers the call; `restrictive` for deny
 * and ask lists (policy_pattern.c explains the two moods). */
const struct pattern *skit__policy_plist_find(const struct plist *l,
                                              const struct call *c,
                                              bool restrictive);

/* ---- shell command lines (policy_shell.c) ---- */

/* Whether command pattern `pat` covers the call (Bash, shell,
 * run_skill_script), in the mood `restrictive` says. */
bool skit__policy_command_match(const struct pattern *pat, const struct call *c,
                                bool restrictive);

/* Whether `cmd` is one simple command using no option that runs other
 * code (skit_policy_simple_command()). */
bool skit__policy_simple_and_safe(const char *cmd);

#endif
