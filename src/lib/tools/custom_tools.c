/* SPDX-License-Identifier: MIT */
/*
 * custom_tools.c - the tools an embedding program gives skit's agent
 * (skit_tool_def), as one tool provider.
 *
 * The definitions are checked once, when the agent is made, so that a
 * bad one is the program's error and never the model's: a name is an
 * MCP tool's (mcp__SERVER__TOOL, the rules of mcp_config.c's server and
 * tool names), so the policy's patterns already name it, and none of
 * skit's own tools can be taken over. A call reaches this file decided
 * (policy, approval and audit are the agent's gate): the arguments go to
 * the callback as JSON text, its result comes back through a capped
 * skit_tool_output and is cleaned like any tool result, and the run is
 * recorded as a `custom_tool_run` event and a trace line.
 */
#include "common.h"

#include <time.h>

#include "lib/tools/custom_tools.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/tools/tools_int.h"
#include "util/buf.h"
#include "util/utf8.h"

#define NAME_PREFIX "mcp__"
#define MAX_NAME    64          /* the whole name, as MCP tools' */
#define MAX_DESC    2048        /* bytes of a description */
#define MAX_SCHEMA  (64 * 1024) /* bytes of a parameters schema */

struct ctool {
	char *name, *desc, *params;
	skit_risk risk;
	skit_tool_fn call;
	void *payload;
};

struct skit__custom_tools {
	struct ctool *v;
	size_t n;
};

/* ---- checking a definition ------------------------------------------- */

/* A server or tool part of a name: letters, digits, '-' or '_', without
 * "__" (which separates the parts), as MCP server and tool names. */
static bool part_ok(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
		if (c == '_' && i + 1 < n && s[i + 1] == '_')
			return false;
	}
	return true;
}

/* "mcp__SERVER__TOOL", each part as part_ok() says, at most MAX_NAME. */
static bool name_ok(const char *name)
{
	size_t len = strlen(name), pre = strlen(NAME_PREFIX);
	const char *server = name + pre, *sep;

	if (len > MAX_NAME || len <= pre || memcmp(name, NAME_PREFIX, pre))
		return false;
	sep = strstr(server, "__");
	if (!sep || !part_ok(server, (size_t)(sep - server)))
		return false;
	return part_ok(sep + 2, strlen(sep + 2));
}

/* The parameters as compact JSON (skitx_malloc'd), or NULL with `why`
 * set. NULL text: any object. */
static char *schema_of(const char *text, char *why, size_t cap)
{
	json_error_t je;
	json_t *o, *type;
	char *dumped, *copy;

	if (!text)
		return skitx_strdup("{\"type\":\"object\"}");
	if (strlen(text) > MAX_SCHEMA) {
		snprintf(why, cap, "its parameters are over %d bytes",
		         MAX_SCHEMA);
		return NULL;
	}
	o = json_loads(text, JSON_REJECT_DUPLICATES, &je);
	if (!o) {
		snprintf(why, cap,
		         "its parameters are not valid JSON (line %d: %.80s)",
		         je.line, je.text);
		return NULL;
	}
	type = json_object_get(o, "type");
	if (!json_is_object(o) ||
	    (type && (!json_is_string(type) ||
	              strcmp(json_string_value(type), "object")))) {
		json_decref(o);
		snprintf(why, cap,
		         "its parameters must be a JSON Schema of an object "
		         "(\"type\": \"object\")");
		return NULL;
	}
	dumped = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (!dumped)
		return NULL;
	/* json_dumps() allocates with jansson's allocator, which the
	 * library leaves at malloc: copy it into ours. */
	copy = skitx_strdup(dumped);
	free(dumped);
	return copy;
}

/* Check `d` against skit_tool_def's rules and the tools before it. */
static int check_def(const struct skit__custom_tools *t, const skit_tool_def *d,
                     size_t i, skit_error *err)
{
	const char *name = d->name ? d->name : "";
	skit_risk r;
	size_t bad;

	if (d->version != SKIT_TOOL_DEF_VERSION)
		return skit__error_set(
		        err, SKIT_EINVALID, 0,
		        "tool %zu: unknown skit_tool_def version "
		        "%u",
		        i + 1, d->version);
	if (!skit_tool_risk(&r, name))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "tool '%.64s' is one of skit's own "
		                       "tools; name yours mcp__SERVER__TOOL",
		                       name);
	if (!name_ok(name))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "tool %zu: name '%.80s' must be "
		                       "mcp__SERVER__TOOL, each part letters, "
		                       "digits, '-' or '_' (no \"__\"), %d "
		                       "characters in all",
		                       i + 1, name, MAX_NAME);
	for (size_t k = 0; k < t->n; k++)
		if (!strcmp(t->v[k].name, name))
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "tool '%s' is defined twice",
			                       name);
	if (!d->description || !d->description[0] ||
	    strlen(d->description) > MAX_DESC ||
	    skitx_utf8_check(d->description, strlen(d->description), &bad))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "tool '%s' needs a description: 1 to "
		                       "%d bytes of UTF-8",
		                       name, MAX_DESC);
	if (!d->call)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "tool '%s' has no callback", name);
	if ((unsigned int)d->risk > SKIT_RISK_NETWORK)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "tool '%s': unknown risk class %d", name,
		                       (int)d->risk);
	return 0;
}

/* ---- the provider ----------------------------------------------------- */

static size_t ct_list(void *self, const struct skit__tool_ctx *c,
                      struct skit__tool_def *out, size_t max)
{
	const struct skit__custom_tools *t = self;
	size_t n = 0;

	(void)c;
	for (size_t i = 0; i < t->n && n < max; i++, n++) {
		out[n].schema.name = t->v[i].name;
		out[n].schema.description = t->v[i].desc;
		out[n].schema.parameters = t->v[i].params;
		out[n].risk = t->v[i].risk;
		out[n].gate = SKIT__GATE_EXTERNAL;
		out[n].offered = true;
		out[n].hint = "";
	}
	return n;
}

/* A call has no target the policy matches: patterns name the tool only,
 * and an "always" answer covers every call of it. */
static int ct_target(void *self, const char *tool, json_t *args,
                     struct skitx_buf *target, const char **skill)
{
	(void)self;
	(void)tool;
	(void)args;
	*skill = NULL;
	skitx_buf_clear(target);
	return 0;
}

static long elapsed_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - since->tv_sec) * 1000L +
	       (now.tv_nsec - since->tv_nsec) / 1000000L;
}

static bool is_status(int rc)
{
	return rc < 0 && rc >= SKIT_EDENIED;
}

static int ct_call(void *self, struct skit__tool_ctx *c, const char *name,
                   json_t *args, struct skitx_buf *out, bool *is_error,
                   skit_error *err)
{
	static const char *const risks[] = { "read", "execute", "write",
		                             "network" };
	struct skit__custom_tools *t = self;
	const struct ctool *tool = NULL;
	struct skit_tool_output o;
	struct timespec since;
	char *json = NULL, digest[65];
	bool failed = false;
	long ms;
	int rc;

	for (size_t i = 0; i < t->n && !tool; i++)
		if (!strcmp(t->v[i].name, name))
			tool = &t->v[i];
	if (!tool)
		return skit__tool_error(out, is_error, "unknown tool '%.64s'",
		                        name);
	json = json_dumps(args, JSON_COMPACT);
	if (!json)
		return skit__error_oom(err);
	skitx_buf_init(&o.b, 0);
	o.cut = false;
	*is_error = false;
	clock_gettime(CLOCK_MONOTONIC, &since);
	rc = tool->call(json, &o, is_error, tool->payload);
	ms = elapsed_ms(&since);
	free(json); /* jansson's allocation */
	if (rc) {
		/* The program ended the task: its status, its words. */
		failed = true;
		rc = is_status(rc) ? rc : SKIT_ERROR;
		skit__error_set(err, rc, 0, "tool %s: %.180s", name,
		                skitx_buf_len(&o.b) ? skitx_buf_cstr(&o.b)
		                                    : skit_strerror(rc));
	} else {
		skitx_buf_clear(out);
		if (skit__put_clean(out, skitx_buf_cstr(&o.b),
		                    skitx_buf_len(&o.b)) ||
		    (o.cut && skitx_buf_printf(out, "\n[output cut at %d KiB]",
		                               SKIT_TOOL_OUTPUT_CAP / 1024)))
			rc = skit__error_oom(err);
	}
	skit__sha256_hex(skitx_buf_cstr(&o.b), skitx_buf_len(&o.b), digest);
	skit__tool_audit(
	        c, "custom_tool_run",
	        json_pack("{s:s, s:s, s:b, s:I, s:I, s:s, s:b, s:s?}", "name",
	                  name, "risk", risks[tool->risk], "ok",
	                  !failed && !*is_error, "duration_ms", (json_int_t)ms,
	                  "bytes", (json_int_t)skitx_buf_len(&o.b),
	                  "result_sha256", digest, "truncated", o.cut, "status",
	                  failed ? skit_strerror(rc) : NULL));
	if (failed)
		skit__tool_trace(c, SKIT_TRACE_TOOL, "%s failed: %s", name,
		                 err ? err->message : skit_strerror(rc));
	else
		skit__tool_trace(
		        c, SKIT_TRACE_TOOL, "%s: %s, %zu bytes (%ld ms)", name,
		        *is_error ? "error" : "ok", skitx_buf_len(&o.b), ms);
	skitx_buf_release(&o.b);
	return rc;
}

static void ct_release(void *self)
{
	skit__custom_tools_free(self);
}

const struct skit__tool_provider_ops skit__custom_tools = {
	"custom", ct_list, ct_target, ct_call, ct_release,
};

/* ---- public: the output ---------------------------------------------- */

int skit_tool_output_append(skit_tool_output *out, const char *text, size_t len)
{
	size_t room;

	assert(out && (text || !len));
	if (out->cut)
		return SKIT_ETOOBIG;
	room = SKIT_TOOL_OUTPUT_CAP - skitx_buf_len(&out->b);
	if (len > room) {
		/* never in the middle of a UTF-8 sequence */
		while (room && ((unsigned char)text[room] & 0xC0) == 0x80)
			room--;
		out->cut = true;
		return skitx_buf_add(&out->b, text, room) ? SKIT_ENOMEM
		                                          : SKIT_ETOOBIG;
	}
	return skitx_buf_add(&out->b, text, len) ? SKIT_ENOMEM : 0;
}

int skit_tool_output_puts(skit_tool_output *out, const char *text)
{
	assert(text);
	return skit_tool_output_append(out, text, strlen(text));
}

/* ---- making and freeing ---------------------------------------------- */

int skit__custom_tools_new(struct skit__custom_tools **out,
                           const skit_tool_def *defs, size_t n, skit_error *err)
{
	struct skit__custom_tools *t;
	char why[160];
	int rc = 0;

	assert(out && (defs || !n));
	*out = NULL;
	if (n > SKIT_AGENT_MAX_TOOLS)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%zu tools given, at most %d", n,
		                       SKIT_AGENT_MAX_TOOLS);
	t = skitx_calloc(1, sizeof(*t));
	if (!t || !(t->v = skitx_calloc(n + 1, sizeof(*t->v)))) {
		skitx_free(t);
		return skit__error_oom(err);
	}
	for (size_t i = 0; i < n && !rc; i++) {
		const skit_tool_def *d = &defs[i];
		struct ctool *ct = &t->v[t->n];

		rc = check_def(t, d, i, err);
		if (rc)
			break;
		why[0] = '\0';
		ct->params = schema_of(d->parameters, why, sizeof(why));
		if (!ct->params) {
			rc = why[0] ? skit__error_set(err, SKIT_EINVALID, 0,
			                              "tool '%s': %s", d->name,
			                              why)
			            : skit__error_oom(err);
			break;
		}
		ct->name = skitx_strdup(d->name);
		ct->desc = skitx_strdup(d->description);
		ct->risk = d->risk;
		ct->call = d->call;
		ct->payload = d->payload;
		t->n++; /* freed with the rest from here on */
		if (!ct->name || !ct->desc)
			rc = skit__error_oom(err);
	}
	if (rc) {
		skit__custom_tools_free(t);
		return rc;
	}
	*out = t;
	return 0;
}

void skit__custom_tools_free(struct skit__custom_tools *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		skitx_free(t->v[i].name);
		skitx_free(t->v[i].desc);
		skitx_free(t->v[i].params);
	}
	skitx_free(t->v);
	skitx_free(t);
}
