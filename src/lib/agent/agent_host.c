/* SPDX-License-Identifier: MIT */
/*
 * agent_host.c - the skills layer for a host's own loop (skit/host.h):
 * an agent whose loop is never run. Its tool gate, providers, sandbox
 * and trail serve the host's tool calls exactly as they serve skit's
 * model; the model is a placeholder that is never called.
 */
#include "common.h"

#include <jansson.h>

#include "skit/host.h"
#include "lib/agent/agent_int.h"
#include "lib/agent/instructions.h"
#include "lib/core/error.h"
#include "lib/model/model_int.h"
#include "util/alloc.h"
#include "util/buf.h"

struct skit_host {
	skit_agent *agent;
	struct skit_model *none; /* the placeholder model, never called */
};

int skit_host_new(skit_host **out, const skit_host_options *opts,
                  skit_error *err)
{
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_host *h;
	int rc;

	assert(out);
	*out = NULL;
	if (!opts || opts->version != SKIT_HOST_OPTIONS_VERSION)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "unknown host options version %u",
		                       opts ? opts->version : 0);
	if (!opts->registry)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "the host needs a registry");
	h = skitx_calloc(1, sizeof(*h));
	if (h)
		h->none = skitx_calloc(1, sizeof(*h->none));
	if (!h || !h->none) {
		skitx_free(h);
		return skit__error_oom(err);
	}
	ao.registry = opts->registry;
	ao.model = h->none;
	ao.policy = opts->policy;
	ao.hooks = opts->hooks;
	ao.hooks.on_text = NULL;
	ao.project_dir = opts->project_dir;
	ao.file_tools = opts->file_tools;
	ao.sandbox_mode = opts->sandbox_mode;
	ao.workdir = opts->workdir;
	ao.runs_dir = opts->runs_dir;
	/* The host's prompt is the host's: its instructions come only when
	 * it asks (skit_host_instructions()). */
	ao.project_instructions = false;
	rc = skit_agent_new(&h->agent, &ao, err);
	if (rc) {
		skitx_free(h->none);
		skitx_free(h);
		return rc;
	}
	*out = h;
	return 0;
}

int skit_host_index(skit_host *h, const skit_prompt_options *opts, char **out,
                    skit_error *err)
{
	skit_prompt_options po = SKIT_PROMPT_OPTIONS_INIT;

	assert(h && out);
	if (!opts)
		po.budget = SKIT_PROMPT_DEFAULT_BUDGET;
	return skit_registry_render_index(h->agent->reg, opts ? opts : &po, out,
	                                  NULL, err);
}

int skit_host_instructions(skit_host *h, char **out, skit_error *err)
{
	int rc;

	assert(h && out);
	*out = NULL;
	rc = skit__instructions_attach(h->agent, err);
	if (rc)
		return rc;
	skit__instructions_audit(h->agent); /* once, with the digests */
	*out = skitx_strdup(skit_instructions_text(h->agent->instructions));
	return *out ? 0 : skit__error_oom(err);
}

int skit_host_tools(skit_host *h, skit_tools_format format, char **out,
                    skit_error *err)
{
	skit_tool_schema tools[SKIT__TOOLS_MAX];
	size_t n;
	json_t *list;

	assert(h && out);
	*out = NULL;
	if (format != SKIT_TOOLS_OPENAI && format != SKIT_TOOLS_ANTHROPIC)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "unknown tool format %d", (int)format);
	n = skit__tools_schemas(h->agent, tools, SKIT__TOOLS_MAX);
	list = json_array();
	for (size_t i = 0; list && i < n; i++) {
		json_t *params = json_loads(tools[i].parameters, 0, NULL);
		json_t *t;

		if (!params) {
			json_decref(list);
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "tool '%s': bad parameters JSON",
			                       tools[i].name);
		}
		if (format == SKIT_TOOLS_OPENAI)
			t = json_pack("{s:s, s:{s:s, s:s, s:o}}", "type",
			              "function", "function", "name",
			              tools[i].name, "description",
			              tools[i].description, "parameters",
			              params);
		else
			t = json_pack("{s:s, s:s, s:o}", "name", tools[i].name,
			              "description", tools[i].description,
			              "input_schema", params);
		if (!t || json_array_append_new(list, t)) {
			json_decref(list);
			list = NULL;
		}
	}
	if (list) {
		char *text = json_dumps(list, JSON_COMPACT);

		json_decref(list);
		*out = text ? skitx_strdup(text) : NULL;
		free(text); /* jansson's allocation */
	}
	return *out ? 0 : skit__error_oom(err);
}

size_t skit_host_tool_schemas(skit_host *h, skit_tool_schema *out, size_t max)
{
	skit_tool_schema all[SKIT__TOOLS_MAX];
	size_t n;

	assert(h && (out || !max));
	n = skit__tools_schemas(h->agent, all, SKIT__TOOLS_MAX);
	for (size_t i = 0; i < n && i < max; i++)
		out[i] = all[i];
	return n;
}

/* Whether the tools offered differ between `a` (n) and `b` (m). */
static bool tools_differ(const skit_tool_schema *a, size_t n,
                         const skit_tool_schema *b, size_t m)
{
	if (n != m)
		return true;
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i].name, b[i].name))
			return true;
	return false;
}

static int call_json(skit_host *h, const char *name, json_t *args,
                     char **result, bool *is_error, bool *tools_changed,
                     skit_error *err)
{
	skit_tool_schema before[SKIT__TOOLS_MAX], after[SKIT__TOOLS_MAX];
	struct skitx_buf out = SKITX_BUF_INIT;
	size_t nb, na;
	int rc;

	*result = NULL;
	*is_error = false;
	nb = skit__tools_schemas(h->agent, before, SKIT__TOOLS_MAX);
	/* Each call is a turn of its own, as in `skit mcp`. */
	h->agent->turn_activations = 0;
	h->agent->tc.task_scripts = 0;
	rc = skit__tools_call(h->agent, name, args, &out, is_error, err);
	if (rc) {
		skitx_buf_release(&out);
		return rc;
	}
	na = skit__tools_schemas(h->agent, after, SKIT__TOOLS_MAX);
	if (tools_changed)
		*tools_changed = tools_differ(before, nb, after, na);
	*result = skitx_buf_detach(&out, NULL);
	if (!*result)
		*result = skitx_strdup("");
	return *result ? 0 : skit__error_oom(err);
}

int skit_host_call(skit_host *h, const char *name, const char *args_json,
                   char **result, bool *is_error, bool *tools_changed,
                   skit_error *err)
{
	json_error_t jerr;
	json_t *args;
	int rc;

	assert(h && name && result && is_error);
	*result = NULL;
	*is_error = false;
	if (tools_changed)
		*tools_changed = false;
	args = json_loads(args_json && *args_json ? args_json : "{}",
	                  JSON_REJECT_DUPLICATES, &jerr);
	if (!args)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "arguments of '%.64s': %s", name,
		                       jerr.text);
	rc = call_json(h, name, args, result, is_error, tools_changed, err);
	json_decref(args);
	return rc;
}

int skit_host_activate(skit_host *h, const char *skill, const char *arguments,
                       char **result, bool *is_error, skit_error *err)
{
	json_t *args;
	int rc;

	assert(h && skill && result && is_error);
	args = json_pack("{s:s}", "name", skill);
	if (args && arguments &&
	    json_object_set_new(args, "arguments", json_string(arguments))) {
		json_decref(args);
		args = NULL;
	}
	if (!args)
		return skit__error_oom(err);
	rc = call_json(h, "use_skill", args, result, is_error, NULL, err);
	json_decref(args);
	return rc;
}

int skit_host_read_resource(skit_host *h, const char *skill, const char *path,
                            char **result, bool *is_error, skit_error *err)
{
	json_t *args;
	int rc;

	assert(h && skill && path && result && is_error);
	args = json_pack("{s:s, s:s}", "skill", skill, "path", path);
	if (!args)
		return skit__error_oom(err);
	rc = call_json(h, "read_skill_resource", args, result, is_error, NULL,
	               err);
	json_decref(args);
	return rc;
}

int skit_host_run_script(skit_host *h, const char *skill, const char *path,
                         const char *const *argv, size_t argc, char **result,
                         bool *is_error, skit_error *err)
{
	json_t *args, *list;
	int rc;

	assert(h && skill && path && result && is_error);
	list = json_array();
	for (size_t i = 0; list && i < argc; i++)
		if (!argv[i] ||
		    json_array_append_new(list, json_string(argv[i]))) {
			json_decref(list);
			list = NULL;
		}
	args = list ? json_pack("{s:s, s:s, s:o}", "skill", skill, "path", path,
	                        "args", list)
	            : NULL;
	if (!args)
		return skit__error_oom(err);
	rc = call_json(h, "run_skill_script", args, result, is_error, NULL,
	               err);
	json_decref(args);
	return rc;
}

const char *skit_host_run_dir(const skit_host *h)
{
	return h ? skit_agent_run_dir(h->agent) : NULL;
}

int skit_host_finish(skit_host *h, const char *status, skit_error *err)
{
	int rc;

	if (!h)
		return 0;
	rc = skit_agent_finish(h->agent, status ? status : "ok", 0, err);
	skitx_free(h->none);
	skitx_free(h);
	return rc;
}

void skit_host_free(skit_host *h)
{
	if (!h)
		return;
	skit_agent_free(h->agent);
	skitx_free(h->none);
	skitx_free(h);
}
