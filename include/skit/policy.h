/* SPDX-License-Identifier: MIT */
#ifndef SKIT_POLICY_H
#define SKIT_POLICY_H

#include "skit/common.h"
#include "skit/skill.h" /* skit_diag */

/**
 * @file skit/policy.h
 * @brief Permission patterns and the one decision procedure of
 *        docs/permissions.md:
 *        may this tool call run, run after approval, or not at all?
 *
 * Three inputs decide a call: the global policy (config `allow`, `deny`
 * and `ask` pattern lists), the run-time flags (`--allow`, `--deny`,
 * `--yes`, `--no-network`) and the `allowed-tools` of the active skills.
 * A pattern is `Name` or `Name(argument)`: `Read`, `Read(README.md)`,
 * `Bash(git:*)`, `WebFetch(domain:example.com)`, or one of skit's own tool
 * names. The full grammar, the procedure and a table of examples are in
 * docs/permissions.md.
 *
 * This module only decides. It does not prompt, run, confine or audit
 * anything: the agent asks the user when the verdict is SKIT_POLICY_ASK,
 * the sandbox confines what runs, and the audit trail records the
 * decision. skit_policy_check() allocates nothing and never fails on a
 * well-formed request.
 */

SKIT_BEGIN_DECL

/** Global policy: configured patterns plus the run-time flags. Opaque. */
typedef struct skit_policy skit_policy;

/** One skill's parsed `allowed-tools`. Opaque. */
typedef struct skit_allowed_tools skit_allowed_tools;

/** The pattern lists of skit_policy_add() and skit_policy_add_flag(). */
typedef enum {
	SKIT_POLICY_LIST_ALLOW = 0, /**< pre-approve matching calls */
	SKIT_POLICY_LIST_DENY = 1,  /**< refuse matching calls; always wins */
	SKIT_POLICY_LIST_ASK = 2,   /**< always ask first (config only) */
} skit_policy_list;

/** What the policy says about one call. */
typedef enum {
	SKIT_POLICY_ALLOW = 0, /**< run it */
	SKIT_POLICY_ASK = 1,   /**< run it only once the user approves */
	SKIT_POLICY_DENY = 2,  /**< do not run it */
} skit_verdict;

/** Risk classes (docs/permissions.md, "Tools and risk classes"). */
typedef enum {
	SKIT_RISK_READ = 0,    /**< read-only, including the skill tools */
	SKIT_RISK_EXECUTE = 1, /**< runs a program */
	SKIT_RISK_WRITE = 2,   /**< changes files */
	SKIT_RISK_NETWORK = 3, /**< reaches the network */
} skit_risk;

/** Largest pattern, in bytes; longer ones are SKIT_ETOOBIG. */
#define SKIT_POLICY_MAX_PATTERN 1024
/** Most patterns in one list or one `allowed-tools` value. */
#define SKIT_POLICY_MAX_PATTERNS 256

/**
 * One tool call to decide. All pointers are borrowed for the duration of
 * skit_policy_check() only.
 */
typedef struct {
	/** The tool: skit's (`shell`, `read_file`...) or Claude-style
	 *  (`Bash`, `Read`...). Must not be NULL. */
	const char *tool;
	/**
	 * What the call acts on, NULL for nothing: the command line for
	 * `shell`/`Bash`; "<path> <args...>" for `run_skill_script` (path
	 * relative to the skill folder); a path relative to the project
	 * folder for the file tools; a URL or host name for `WebFetch`.
	 */
	const char *target;
	/** `run_skill_script`: the skill that owns the script; else NULL. */
	const char *skill;
} skit_tool_request;

/** One active skill, as skit_policy_check() sees it. Borrowed. */
typedef struct {
	const char *name; /**< the skill's name, used in reasons */
	/** Its parsed `allowed-tools`, or NULL when it declares none. */
	const skit_allowed_tools *tools;
} skit_active_skill;

/** The outcome of skit_policy_check(). Caller-owned, no pointers. */
typedef struct {
	skit_verdict verdict;
	skit_risk risk;
	/** The run-time flags decided (`--allow`, `--deny`, `--yes`,
	 *  `--no-network`), not the configured policy. */
	bool by_flag;
	/** One line naming the rule that decided, e.g. "denied by --deny
	 *  'Bash(rm:*)'"; cut to fit. */
	char reason[256];
} skit_decision;

/**
 * The risk class of tool `name` (case-sensitive).
 *
 * @param[out] out  the class; untouched on failure
 * @param name      a tool name
 * @return SKIT_OK, or SKIT_ENOTFOUND when skit does not know the tool.
 */
SKIT_EXTERN int skit_tool_risk(skit_risk *out, const char *name);

/**
 * Parse a skill's `allowed-tools` value: patterns separated by blanks or
 * commas outside parentheses, so `Bash(npm run test:*) Read` is two.
 *
 * A malformed pattern fails the whole parse; the error's `column` is the
 * 1-based byte offset in `text` of the offending character. An unknown
 * tool name is not an error: it becomes a warning diagnostic (code
 * "allowed-tools-unknown-tool") and its pattern never matches. An empty
 * value declares an empty list: the skill allows no gated tool.
 *
 * @param[out] out  the parsed list, owned by the caller; NULL on failure
 * @param skill     the skill's name, copied (for reasons); may be NULL
 * @param text      the value; must not be NULL
 * @param[out] err  filled in on failure; may be NULL
 * @return SKIT_OK; SKIT_EINVALID for a malformed pattern; SKIT_ETOOBIG
 *         for a pattern over SKIT_POLICY_MAX_PATTERN bytes or more than
 *         SKIT_POLICY_MAX_PATTERNS patterns; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_allowed_tools_parse(skit_allowed_tools **out,
                                         const char *skill, const char *text,
                                         skit_error *err);

/**
 * An empty list that declares no `allowed-tools` (the skill restricts no
 * tool), to carry a skill's `disallowed-tools` alone
 * (skit_allowed_tools_disallow()).
 *
 * @param[out] out  the list, owned by the caller
 * @param skill     the skill's name, copied (for reasons); may be NULL
 * @param[out] err  filled in on failure; may be NULL
 * @return SKIT_OK or SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_allowed_tools_new(skit_allowed_tools **out,
                                       const char *skill, skit_error *err);

/**
 * Add a skill's `disallowed-tools` value (Claude Code's field: tools the
 * skill forbids while it is active) to `at`: patterns as `allowed-tools`
 * takes them. While the skill is active, a call one of them covers is
 * denied, whatever else would allow it, and a tool one names bare is not
 * offered. Unknown tool names become warning diagnostics (code
 * "disallowed-tools-unknown-tool"); a malformed pattern fails the whole
 * value and leaves `at` as it was.
 *
 * @return SKIT_OK; SKIT_EINVALID; SKIT_ETOOBIG; SKIT_ENOMEM, as
 *         skit_allowed_tools_parse().
 */
SKIT_EXTERN int skit_allowed_tools_disallow(skit_allowed_tools *at,
                                            const char *text, skit_error *err);

/** Number of patterns in `at` (its allowed-tools). */
SKIT_EXTERN size_t skit_allowed_tools_count(const skit_allowed_tools *at);

/** Number of disallowed-tools patterns in `at`. */
SKIT_EXTERN size_t
skit_allowed_tools_disallowed_count(const skit_allowed_tools *at);

/**
 * Pattern `i` (< count) as written, without surrounding blanks. Borrowed:
 * valid until skit_allowed_tools_free(at).
 */
SKIT_EXTERN const char *skit_allowed_tools_pattern(const skit_allowed_tools *at,
                                                   size_t i);

/**
 * The warnings found while parsing (unknown tool names). `path` is "",
 * `line` 0, `column` the byte offset in the value. Borrowed, as above.
 */
SKIT_EXTERN const skit_diag *
skit_allowed_tools_diags(const skit_allowed_tools *at, size_t *count);

/** Free `at`. NULL is a no-op. */
SKIT_EXTERN void skit_allowed_tools_free(skit_allowed_tools *at);

/**
 * Make an empty policy: nothing configured, no flags. With it, read-only
 * calls are allowed and every other call needs approval.
 *
 * @param[out] out  the policy, owned by the caller; NULL on failure
 * @param[out] err  filled in on failure; may be NULL
 * @return SKIT_OK or SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_policy_new(skit_policy **out, skit_error *err);

/**
 * Add a configured pattern (the config file's `allow`, `deny` or `ask`).
 *
 * Unlike in `allowed-tools`, an unknown tool name is an error here: a
 * misspelt `deny` entry must not be silently ignored. `pattern` is
 * copied.
 *
 * @return SKIT_OK; SKIT_EINVALID for a malformed pattern or an unknown
 *         tool (err->column says where); SKIT_ETOOBIG for a pattern or a
 *         list over the caps; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_policy_add(skit_policy *p, skit_policy_list list,
                                const char *pattern, skit_error *err);

/**
 * Add a run-time `--allow` (SKIT_POLICY_LIST_ALLOW) or `--deny`
 * (SKIT_POLICY_LIST_DENY) pattern. Errors as for skit_policy_add().
 */
SKIT_EXTERN int skit_policy_add_flag(skit_policy *p, skit_policy_list list,
                                     const char *pattern, skit_error *err);

/** `--yes`: approve every call that would otherwise be SKIT_POLICY_ASK. */
SKIT_EXTERN void skit_policy_set_yes(skit_policy *p, bool yes);

/**
 * `--network` (or `"network": true` in the user's config): scripts and
 * shell calls get the whole network. Only the user grants it; no skill
 * can.
 */
SKIT_EXTERN void skit_policy_set_network(skit_policy *p, bool network);

/** `--no-network`: deny every network call. */
SKIT_EXTERN void skit_policy_set_no_network(skit_policy *p, bool no_network);

/**
 * Decide one call (the procedure of docs/permissions.md).
 *
 * @param p        the policy
 * @param active   the active skills, in activation order; may be NULL
 *                 when `nactive` is 0
 * @param nactive  number of entries at `active`
 * @param req      the call
 * @param[out] out the decision; filled in on success
 * @param[out] err filled in on failure; may be NULL
 * @return SKIT_OK, or SKIT_ENOTFOUND when `req->tool` is unknown (the
 *         call should then be refused).
 */
SKIT_EXTERN int skit_policy_check(const skit_policy *p,
                                  const skit_active_skill *active,
                                  size_t nactive, const skit_tool_request *req,
                                  skit_decision *out, skit_error *err);

/**
 * Whether the model should be offered tool `tool` now (the disclosure
 * rule of docs/permissions.md). The skill tools always are;
 * `run_skill_script` once a skill is active. Any other tool is hidden
 * when a bare-name `deny` or `--deny` names it, when it is a network tool
 * under `--no-network`, and when some active skill declares
 * `allowed-tools` without naming it. Otherwise read-only tools are
 * offered; execute, write and network tools only when an active skill's
 * `allowed-tools` or an `allow`/`--allow` pattern names them, with
 * `--yes`, or when `interactive` (someone can approve each call). So a
 * tool that only a skill grants appears once that skill is active.
 *
 * @return false for an unknown tool.
 */
SKIT_EXTERN bool skit_policy_offers(const skit_policy *p,
                                    const skit_active_skill *active,
                                    size_t nactive, const char *tool,
                                    bool interactive);

/**
 * skit_policy_check() for a tool of an MCP server, named
 * `mcp__SERVER__TOOL`. Patterns name such tools in full, by a prefix
 * ending in `*` (`mcp__github__*`), or by server (`mcp__github`: all its
 * tools); they take no argument. The tool is read-only when `read_only`
 * (the server annotated it `readOnlyHint`), otherwise an execute call.
 *
 * @return SKIT_OK, or SKIT_ENOTFOUND when `tool` is not an MCP name.
 */
SKIT_EXTERN int skit_policy_check_mcp(const skit_policy *p,
                                      const skit_active_skill *active,
                                      size_t nactive, const char *tool,
                                      bool read_only, skit_decision *out,
                                      skit_error *err);

/**
 * skit_policy_offers() for the MCP tool `tool` (see
 * skit_policy_check_mcp()): hidden by a deny pattern that names it or
 * when an active skill declares `allowed-tools` without naming it;
 * otherwise offered when read-only, interactive, with `--yes`, or when
 * an allow pattern names it.
 */
SKIT_EXTERN bool skit_policy_offers_mcp(const skit_policy *p,
                                        const skit_active_skill *active,
                                        size_t nactive, const char *tool,
                                        bool read_only, bool interactive);

/**
 * Whether programs run for skill `skill` (a script of it; NULL for a
 * `shell` call) get the whole network: only when the user said so
 * (skit_policy_set_network(), `"network": true` in a trusted config), and
 * never with `--no-network` or a bare `deny`/`--deny` of `WebFetch` or
 * `WebSearch`. A skill's `allowed-tools` never turns it on.
 */
SKIT_EXTERN bool skit_policy_network(const skit_policy *p,
                                     const skit_active_skill *active,
                                     size_t nactive, const char *skill);

/**
 * The hosts programs run for skill `skill` (NULL for a `shell` call) may
 * reach over HTTP and HTTPS through skit's filtering proxy, when the
 * whole network is not theirs (docs/sandbox.md): the domains of the
 * user's `allow`/`--allow` `WebFetch(domain:HOST)` patterns (`"*"` for a
 * bare `WebFetch`: any host), the domains of a user's `WebFetch(domain:)`
 * deny as `"!HOST"` (refused first), and each `WebFetch(domain:HOST)` in
 * the `allowed-tools` of active skill `skill` that the user's own rules
 * would let WebFetch reach without asking (an allow, or `--yes`). A HOST
 * also covers its subdomains. None with `--no-network` or a bare deny of
 * `WebFetch` or `WebSearch`.
 *
 * @param[out] out  a NULL-ended list the caller frees with
 *                  skit_policy_web_domains_free(); NULL when there is none
 * @return SKIT_OK or SKIT_ENOMEM
 */
SKIT_EXTERN int skit_policy_web_domains(char ***out, const skit_policy *p,
                                        const skit_active_skill *active,
                                        size_t nactive, const char *skill,
                                        skit_error *err);

/** Free a list from skit_policy_web_domains(); NULL is allowed. */
SKIT_EXTERN void skit_policy_web_domains_free(char **domains);

/**
 * A pattern covering the call `req`, for the user to approve it with:
 * `Bash(git status)` (or with `broad`, `Bash(git:*)`: every command of
 * that program), `run_skill_script(scripts/x.py:*)`, `Write(out/a.md)`,
 * `Read(docs/a.md)`, `WebFetch(domain:example.com)`.
 *
 * @param[out] buf  the pattern, NUL-terminated; "" on failure
 * @return SKIT_OK; SKIT_EINVALID when no pattern can express the call
 *         (an empty command, a path outside the project or holding `*`
 *         or `?`, a command the grammar cannot hold, a call that no
 *         pattern may pre-approve, such as a command substitution);
 *         SKIT_ETOOBIG when `cap` is too small; SKIT_ENOTFOUND for an
 *         unknown tool; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_policy_suggest(char *buf, size_t cap,
                                    const skit_tool_request *req, bool broad);

/**
 * The run-time flag that would let `req` run without asking, given the
 * same policy and active skills: `--allow 'PATTERN'` (shell-quoted) when
 * the narrowest pattern is enough, else `--yes`.
 *
 * @param[out] buf  the flag, NUL-terminated; "" on failure
 * @return SKIT_OK; SKIT_ENOTFOUND when no flag would (the call is
 *         denied); SKIT_ETOOBIG when `cap` is too small.
 */
SKIT_EXTERN int skit_policy_approving_flag(char *buf, size_t cap,
                                           const skit_policy *p,
                                           const skit_active_skill *active,
                                           size_t nactive,
                                           const skit_tool_request *req);

/**
 * Whether the command line `cmd` is one simple command (no `;`, `&&`,
 * `||`, `|`, `&`, substitution, redirection, subshell or newline) using
 * no option that makes its program run other code (`git -c`,
 * `find -exec`, `xargs`, `env`...; the list is in docs/permissions.md):
 * the only kind of line an allow pattern ending in `:*`, or an "always"
 * answer for a program, may approve.
 */
SKIT_EXTERN bool skit_policy_simple_command(const char *cmd);

/**
 * Add the `permissions` of a config file to `p`:
 * `{"permissions": {"allow": [...], "deny": [...], "ask": [...]}}`;
 * other top-level keys are left to their readers. A file that is not
 * `trusted` (the project's own config, i.e. repository content) may
 * restrict but never grant: its `allow` entries are skipped and counted
 * in `*ignored`.
 *
 * @param ignored   may be NULL
 * @return SKIT_OK; SKIT_ENOTFOUND when the file does not exist;
 *         SKIT_EINVALID for bad JSON, a wrong type, an unknown key under
 *         `permissions` or a bad pattern (the message names the file and
 *         the entry); SKIT_ETOOBIG over 1 MiB; SKIT_EUNSAFE when it is
 *         not a regular file; SKIT_EIO; SKIT_ENOMEM. Patterns added
 *         before a failure stay in `p`.
 */
SKIT_EXTERN int skit_policy_load_config(skit_policy *p, const char *path,
                                        bool trusted, size_t *ignored,
                                        skit_error *err);

/** Free `p`. NULL is a no-op. */
SKIT_EXTERN void skit_policy_free(skit_policy *p);

/**
 * An "always" approval of a skill's script saved in the user config
 * (docs/permissions.md). It holds while the digest set of the skill's
 * files is `digest`; any change to the skill makes skit ask again.
 * Every string is owned by the list (skit_saved_approvals_free()).
 */
typedef struct {
	char *id;     /**< 12 hex digits, stable for one folder and script */
	char *skill;  /**< the skill's name when approved */
	char *dir;    /**< the skill folder, resolved */
	char *script; /**< the script, relative to the skill folder */
	char *digest; /**< SHA-256 of the skill's digest set */
	char *time;   /**< when approved, UTC ISO 8601; may be "" */
	bool current; /**< the skill's files still have this digest set */
} skit_saved_approval;

/**
 * The saved approvals of the user config, in the order they were saved.
 * A missing config has none.
 * @param[out] out  `n` items, owned by the caller:
 *                  skit_saved_approvals_free()
 */
SKIT_EXTERN int skit_saved_approvals_list(skit_saved_approval **out, size_t *n,
                                          skit_error *err);

/** Free a list from skit_saved_approvals_list(). NULL is a no-op. */
SKIT_EXTERN void skit_saved_approvals_free(skit_saved_approval *v, size_t n);

/**
 * Revoke the saved approval `id`, or every one when `id` is NULL.
 * @param[out] removed  how many were removed (may be NULL)
 * @return SKIT_OK; SKIT_ENOTFOUND when no approval has that id;
 *         SKIT_EINVALID when the user config is not valid JSON; SKIT_EIO;
 *         SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_saved_approvals_revoke(const char *id, size_t *removed,
                                            skit_error *err);

SKIT_END_DECL

#endif /* SKIT_POLICY_H */
