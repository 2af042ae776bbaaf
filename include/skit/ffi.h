/* SPDX-License-Identifier: MIT */
#ifndef SKIT_FFI_H
#define SKIT_FFI_H

#include "skit/agent.h"
#include "skit/common.h"
#include "skit/host.h"
#include "skit/model.h"
#include "skit/policy.h"
#include "skit/registry.h"
#include "skit/skill.h"

/**
 * @file skit/ffi.h
 * @brief The public API for foreign-function interfaces (Python's ctypes,
 *        and any language that can call C but should not copy C structs).
 *
 * A binding that mirrors an option struct by hand breaks when the
 * library grows it. These calls take options as a NULL-ended array of
 * key and value strings instead, `{ "project_dir", "/src/app",
 * "file_tools", "true", NULL }`: each starts from the struct's `*_INIT`
 * value of the library itself, so a member the caller does not name
 * keeps the library's default (members added later included), and a key
 * the library does not know is an error, not a silent write. Values are
 * text: `true`/`false` (also `1`/`0`), decimal numbers, and strings
 * passed through byte for byte (paths need not be UTF-8). A key of an
 * option table may be given once; strings are borrowed as the
 * underlying call borrows them (keep them until the object is freed).
 *
 * What the library returns as structures (entries, diagnostics, search
 * hits, an approval request) comes back as JSON text instead, owned by
 * the caller and freed with skit_free(). JSON strings are UTF-8; a byte
 * that is not part of valid UTF-8 (a file name in another encoding) is
 * written as the escape `\udcXX` (XX its value), the lone surrogate of
 * Python's "surrogateescape", so that a path reads back as its bytes.
 *
 * Everything else (registries, policies, skills' getters, host calls,
 * skit_agent_send(), errors) is the ordinary API: handles and strings.
 * docs/python.md shows the binding built on it.
 */

SKIT_BEGIN_DECL

/**
 * The name of status `status` as errors.h spells it without its prefix
 * ("ENOTFOUND", "OK"), for a binding's exceptions; "UNKNOWN" for a
 * value the table does not hold. Static storage.
 */
SKIT_EXTERN const char *skit_ffi_status_name(int status);

/**
 * Approve one call (skit_agent_hooks.on_approve, with the request as
 * JSON): `{"tool", "skill", "arguments", "target", "reason", "risk"
 * ("read", "execute", "write" or "network"), "always",
 * "approving_flag", "network"}`, strings or null. The text is borrowed
 * for the call. Return a skit_approve_answer; any other value is
 * SKIT_APPROVE_NO.
 */
typedef int (*skit_ffi_approve_fn)(const char *request_json, void *payload);

/** A trace line (skit_agent_hooks.on_trace); `kind` a skit_trace_kind. */
typedef void (*skit_ffi_trace_fn)(int kind, const char *line, void *payload);

/** Streamed assistant text (skit_agent_hooks.on_text). */
typedef void (*skit_ffi_text_fn)(const char *text, size_t len, void *payload);

/**
 * Run one call of a tool added with skit_ffi_hooks_add_tool(): as
 * skit_tool_fn, with the tool's `name` first (one callback may serve
 * several tools) and the hooks' payload last.
 */
typedef int (*skit_ffi_tool_fn)(const char *name, const char *arguments,
                                skit_tool_output *out, bool *is_error,
                                void *payload);

/**
 * Answer the model's question (skit_agent_options.on_ask), given as JSON:
 * `{"question", "options" (strings, maybe none), "multi"}`. Return as
 * skit_ask_fn: 0 once the answer is written, SKIT_ENOTFOUND when no one
 * can answer.
 */
typedef int (*skit_ffi_ask_fn)(const char *question_json,
                               skit_tool_output *answer, void *payload);

/** Hooks for skit_ffi_host_new() and skit_ffi_agent_new(). Opaque. */
typedef struct skit_ffi_hooks skit_ffi_hooks;

/**
 * Make hooks that call `approve`, `trace` and `text` (each may be NULL)
 * with `payload`. With `approve` NULL, a call that needs approval is
 * refused, and the model is told which flag would approve it.
 *
 * @param[out] out  owned by the caller: skit_ffi_hooks_free() once no
 *                  host or agent made with them is left
 * @return SKIT_OK; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_ffi_hooks_new(skit_ffi_hooks **out,
                                   skit_ffi_approve_fn approve,
                                   skit_ffi_trace_fn trace,
                                   skit_ffi_text_fn text, void *payload,
                                   skit_error *err);

/**
 * Ask a model and an agent made with `hooks` to stop (`on`) or clear
 * the request (`!on`): the flag they watch as skit_agent_options.cancel
 * and skit_model_options.cancel. skit_agent_send() then returns
 * SKIT_ECANCELED at its next step, and a request in flight is abandoned.
 * Only stores an int: safe from another thread or a signal handler.
 */
SKIT_EXTERN void skit_ffi_hooks_cancel(skit_ffi_hooks *hooks, bool on);

/**
 * Give agents made with `hooks` a tool of the program (skit_tool_def,
 * docs/embedding.md "Your own tools"): `name` (`mcp__SERVER__TOOL`),
 * `description`, `parameters` (a JSON Schema as text, or NULL), `risk`
 * ("read", "execute", "write", "network"; NULL: "execute") and the
 * callback. The strings are copied. skit_ffi_agent_new() checks the
 * definitions as skit_agent_new() does.
 * @return SKIT_OK; SKIT_EINVALID for an unknown risk or more than
 *         SKIT_AGENT_MAX_TOOLS tools; SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_ffi_hooks_add_tool(skit_ffi_hooks *hooks, const char *name,
                                        const char *description,
                                        const char *parameters,
                                        const char *risk, skit_ffi_tool_fn call,
                                        skit_error *err);

/** Give agents made with `hooks` this answerer of ask_user (NULL: none,
 *  and the model is told no one can answer). */
SKIT_EXTERN void skit_ffi_hooks_set_ask(skit_ffi_hooks *hooks,
                                        skit_ffi_ask_fn ask);

/** Free hooks. NULL is a no-op. */
SKIT_EXTERN void skit_ffi_hooks_free(skit_ffi_hooks *hooks);

/**
 * The options struct `kind` as the other calls build it from `options`,
 * as a JSON object: `version` (the library's) and every member a key
 * names (an API key is shown as "(set)", never as itself). Kinds:
 * "skill", "roots", "prompt", "model", "host", "agent". For a binding's
 * tests and for debugging.
 *
 * @param[out] out  owned by the caller (skit_free())
 * @return SKIT_OK; SKIT_EINVALID for an unknown kind, key or value (the
 *         message names it); SKIT_ENOMEM.
 */
SKIT_EXTERN int skit_ffi_options(char **out, const char *kind,
                                 const char *const *options, skit_error *err);

/**
 * skit_skill_load() with options of kind "skill": `lenient`, `lint`,
 * `body` (the SKIT_SKILL_* flags), `max_frontmatter`, `max_file`.
 */
SKIT_EXTERN int skit_ffi_skill_load(skit_skill **out, const char *path,
                                    const char *const *options,
                                    skit_error *err);

/**
 * The skill's diagnostics as a JSON array of `{"severity" ("error" or
 * "warning"), "code", "message", "path", "line", "column"}`.
 * @param[out] out  owned by the caller (skit_free())
 */
SKIT_EXTERN int skit_ffi_skill_diags(char **out, const skit_skill *skill,
                                     skit_error *err);

/**
 * skit_registry_add_default_roots() with options of kind "roots": `cwd`,
 * `home`, `skit_home`, `config_file`, `no_config`, `honour_trust`.
 */
SKIT_EXTERN int skit_ffi_registry_add_default_roots(skit_registry *reg,
                                                    const char *const *options,
                                                    skit_error *err);

/**
 * The registry's entries as a JSON array: the active ones in index order,
 * or with `all` every entry (skit_registry_all_entry()). Each is
 * `{"name", "description", "when_to_use", "argument_hint", "dir",
 * "file", "source", "root_index", "root", "flags", "state" ("active",
 * "shadowed", "skipped"), "reason", "warnings"}`, `root` the root's path.
 * @param[out] out  owned by the caller (skit_free())
 */
SKIT_EXTERN int skit_ffi_registry_entries(char **out, const skit_registry *reg,
                                          bool all, skit_error *err);

/** The scan's own findings (skit_registry_diags()) as skit_ffi_skill_diags()
 *  gives a skill's. */
SKIT_EXTERN int skit_ffi_registry_diags(char **out, const skit_registry *reg,
                                        skit_error *err);

/**
 * skit_registry_search() for at most `k` hits, as a JSON array of
 * `{"entry": {...as skit_ffi_registry_entries()}, "score"}`, best first.
 * @return as skit_registry_search().
 */
SKIT_EXTERN int skit_ffi_registry_search(char **out, skit_registry *reg,
                                         const char *query, unsigned int flags,
                                         size_t k, skit_error *err);

/**
 * skit_registry_render_index() with options of kind "prompt": `format`
 * ("xml", "markdown" or "json"), `budget` (characters), `verbatim`.
 */
SKIT_EXTERN int skit_ffi_registry_index(char **out, const skit_registry *reg,
                                        const char *const *options,
                                        skit_error *err);

/**
 * skit_model_new() with options of kind "model": `spec`, `api_key`,
 * `base_url`, `connect_timeout_ms`, `total_timeout_ms`, `max_retries`,
 * `retry_base_ms`, `retry_max_ms`, `no_stream`, `request_log`. With
 * `hooks` (may be NULL; borrowed, must outlive the model), its requests
 * watch skit_ffi_hooks_cancel().
 */
SKIT_EXTERN int skit_ffi_model_new(skit_model **out,
                                   const skit_ffi_hooks *hooks,
                                   const char *const *options, skit_error *err);

/**
 * skit_host_new() over `reg` with `policy` (may be NULL) and `hooks`
 * (may be NULL: refuse what needs approval), options of kind "host":
 * `project_dir`, `file_tools`, `sandbox_mode` ("workspace-write",
 * "read-only", "full-access"), `workdir`, `runs_dir`. `reg`, `policy`
 * and `hooks` are borrowed: they must outlive the host.
 */
SKIT_EXTERN int skit_ffi_host_new(skit_host **out, skit_registry *reg,
                                  const skit_policy *policy,
                                  const skit_ffi_hooks *hooks,
                                  const char *const *options, skit_error *err);

/** skit_host_index() with options of kind "prompt" (NULL: the agent's
 *  own, XML within SKIT_PROMPT_DEFAULT_BUDGET). */
SKIT_EXTERN int skit_ffi_host_index(char **out, skit_host *host,
                                    const char *const *options,
                                    skit_error *err);

/**
 * skit_agent_new() over `reg` and `model` with `policy` and `hooks` (as
 * for skit_ffi_host_new()) and options of kind "agent": every scalar and
 * string member of skit_agent_options by its name (`max_turns`,
 * `project_dir`, `runs_dir`, `sandbox_mode`, `dynamic_context`...).
 * With `hooks`, the agent watches skit_ffi_hooks_cancel() (as
 * skit_agent_options.cancel) and has their tools
 * (skit_ffi_hooks_add_tool()) and answerer (skit_ffi_hooks_set_ask()). `reg`,
 * `model`, `policy` and `hooks` must outlive the agent.
 */
SKIT_EXTERN int skit_ffi_agent_new(skit_agent **out, skit_registry *reg,
                                   skit_model *model, const skit_policy *policy,
                                   const skit_ffi_hooks *hooks,
                                   const char *const *options, skit_error *err);

/**
 * The agent's state as a JSON object: `turns`, `tool_calls`,
 * `script_runs`, `input_tokens`, `output_tokens`, `index_chars`,
 * `index_skills`, `index_omitted`, `active` (skill names in order of
 * activation), `plan` (`[{"step", "status"}]`), `run_dir`.
 * @param[out] out  owned by the caller (skit_free())
 */
SKIT_EXTERN int skit_ffi_agent_state(char **out, const skit_agent *agent,
                                     skit_error *err);

SKIT_END_DECL

#endif /* SKIT_FFI_H */
