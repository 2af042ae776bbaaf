/* SPDX-License-Identifier: MIT */
/*
 * tool_search.c - deferred tools and the `tool_search` tool (tool_search.h).
 *
 * The tools of MCP servers and of the program can be many, and each
 * definition goes to the model in every request. When they would take
 * more than a tenth of the context window (or always, or never, as the
 * options say), they are deferred: the model is offered `tool_search`,
 * whose description names them, and a tool it finds there is loaded,
 * that is, offered in full from the next request on. A deferred tool
 * stays callable by its name and decided by the same gate: deferring
 * hides definitions, it grants and refuses nothing.
 */
#include "common.h"

#include <ctype.h>

#include "lib/agent/tool_search.h"
#include "lib/core/error.h"
#include "lib/tools/tools_int.h"

/* Most tools one search returns, and by default. */
#define RESULTS_MAX     20
#define RESULTS_DEFAULT 5
/* Bytes of the query, and of the names listed in the description. */
#define QUERY_MAX 512
#define NAMES_MAX (16u * 1024)
/* Tokens a definition costs, estimated as its bytes over this. */
#define BYTES_PER_TOKEN 4

struct skit__tool_search {
	struct skit_agent *a;
	skit_tool_search_mode mode;
	bool active; /* the last tool list deferred some tools */
	bool noted;  /* the trace said so once */
	char **loaded;
	size_t nloaded;
	/* The description, with the deferred names. Rebuilt into `next`
	 * for each tool list and swapped in only when it changed, so that
	 * a request's borrowed description stays valid while other lists
	 * are made (the hosted search's check, compaction's estimate). */
	struct skitx_buf desc, next;
};

static const char intro[] =
        "Search the tools that are deferred: they exist and can be "
        "called, but their definitions are not shown until you load "
        "them. `query` is a few keywords matched against their names and "
        "descriptions (\"+word\" must be in the name), or "
        "\"select:NAME,NAME\" for exact names. The tools found are "
        "loaded: their definitions are in the result and they are "
        "offered from your next step on. Deferred tools:";

static const char schema[] =
        "{\"type\":\"object\",\"properties\":{"
        "\"query\":{\"type\":\"string\",\"description\":\"keywords, or "
        "select:NAME,NAME\"},"
        "\"max_results\":{\"type\":\"integer\",\"minimum\":1,"
        "\"maximum\":20,\"description\":\"at most this many tools "
        "(default 5)\"}},"
        "\"required\":[\"query\"],\"additionalProperties\":false}";

static bool is_loaded(const struct skit__tool_search *ts, const char *name)
{
	for (size_t i = 0; i < ts->nloaded; i++)
		if (!strcmp(ts->loaded[i], name))
			return true;
	return false;
}

static int load(struct skit__tool_search *ts, const char *name)
{
	char **grown;

	if (is_loaded(ts, name))
		return 0;
	grown = skitx_realloc(ts->loaded, (ts->nloaded + 1) * sizeof(*grown));
	if (!grown)
		return SKIT_ENOMEM;
	ts->loaded = grown;
	ts->loaded[ts->nloaded] = skitx_strdup(name);
	if (!ts->loaded[ts->nloaded])
		return SKIT_ENOMEM;
	ts->nloaded++;
	return 0;
}

static size_t cost(const skit_tool_schema *s)
{
	return strlen(s->name) + strlen(s->description) +
	       (s->parameters ? strlen(s->parameters) : 0);
}

size_t skit__tool_search_apply(struct skit_agent *a, skit_tool_schema *out,
                               const bool *external, size_t n)
{
	struct skit__tool_search *ts = a->tool_search;
	size_t bytes = 0, next = 0, deferred = 0, k;
	bool defer;

	if (!ts)
		return n;
	for (k = 0; k < n; k++)
		if (external[k])
			bytes += cost(&out[k]);
	switch (ts->mode) {
	case SKIT_TOOL_SEARCH_ALWAYS:
		defer = bytes > 0;
		break;
	case SKIT_TOOL_SEARCH_NEVER:
		defer = false;
		break;
	default:
		defer = a->ctx_window &&
		        bytes / BYTES_PER_TOKEN > a->ctx_window / 10;
		break;
	}
	/* a model of the action protocol reads its tools in the system
	 * prompt, made once: it gets them all */
	if (a->json_actions)
		defer = false;
	ts->active = false;
	if (!defer)
		return n;
	/* the names first: out of memory, nothing is deferred */
	skitx_buf_clear(&ts->next);
	if (skitx_buf_puts(&ts->next, intro))
		return n;
	for (k = 0; k < n; k++) {
		if (!external[k] || is_loaded(ts, out[k].name))
			continue;
		if (skitx_buf_len(&ts->next) < NAMES_MAX &&
		    skitx_buf_printf(&ts->next, "%s%s", deferred ? ", " : " ",
		                     out[k].name))
			return n;
		deferred++;
	}
	if (skitx_buf_len(&ts->next) >= NAMES_MAX &&
	    skitx_buf_puts(&ts->next, " ... (search to see the rest)"))
		return n;
	for (k = 0; k < n; k++)
		if (!external[k] || is_loaded(ts, out[k].name))
			out[next++] = out[k];
	if (!deferred)
		return next; /* every one is loaded */
	if (strcmp(skitx_buf_cstr(&ts->next), skitx_buf_cstr(&ts->desc))) {
		struct skitx_buf t = ts->desc;

		ts->desc = ts->next;
		ts->next = t;
	}
	ts->active = true;
	out[next].name = SKIT__TOOL_SEARCH;
	out[next].description = skitx_buf_cstr(&ts->desc);
	out[next].parameters = schema;
	if (!ts->noted) {
		ts->noted = true;
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "%zu tools deferred behind tool_search "
		                  "(their definitions: about %zu tokens)",
		                  deferred, bytes / BYTES_PER_TOKEN);
		skit__agent_audit(
		        a, "tools_deferred",
		        json_pack("{s:I, s:I, s:I, s:s}", "deferred",
		                  (json_int_t)deferred, "tokens",
		                  (json_int_t)(bytes / BYTES_PER_TOKEN),
		                  "window", (json_int_t)a->ctx_window, "mode",
		                  ts->mode == SKIT_TOOL_SEARCH_ALWAYS
		                          ? "always"
		                          : "auto"));
	}
	return next + 1;
}

/* ---- the tool ------------------------------------------------------------ */

static size_t ts_list(void *self, const struct skit__tool_ctx *ctx,
                      struct skit__tool_def *out, size_t max)
{
	struct skit__tool_search *ts = self;

	(void)ctx;
	if (max < 1)
		return 0;
	memset(out, 0, sizeof(*out));
	out->schema.name = SKIT__TOOL_SEARCH;
	out->schema.description =
	        skitx_buf_len(&ts->desc) ? skitx_buf_cstr(&ts->desc) : intro;
	out->schema.parameters = schema;
	out->risk = SKIT_RISK_READ;
	out->gate = SKIT__GATE_OPEN;
	out->offered = ts->active;
	out->hint = ": no tool is deferred";
	return 1;
}

/* `hay` holds `term` (both compared in lower case). */
static bool has(const char *hay, const char *term, size_t tlen)
{
	size_t hlen = strlen(hay);

	for (size_t i = 0; tlen && i + tlen <= hlen; i++) {
		size_t k = 0;

		while (k < tlen && tolower((unsigned char)hay[i + k]) ==
		                           tolower((unsigned char)term[k]))
			k++;
		if (k == tlen)
			return true;
	}
	return false;
}

/* The score of `s` for the keywords of `q`: 0 when it does not match. */
static unsigned int score(const skit_tool_schema *s, const char *q)
{
	unsigned int sc = 0;

	while (*q) {
		size_t len;
		bool must = false;

		q += strspn(q, " \t\n,");
		if (*q == '+') {
			must = true;
			q++;
		}
		len = strcspn(q, " \t\n,");
		if (!len)
			continue;
		if (has(s->name, q, len))
			sc += 3;
		else if (must)
			return 0;
		else if (has(s->description, q, len))
			sc += 1;
		q += len;
	}
	return sc;
}

/* select:NAME,NAME holds the name `name`. */
static bool selected(const char *list, const char *name)
{
	size_t nlen = strlen(name);

	while (*list) {
		size_t len;

		list += strspn(list, " ,");
		len = strcspn(list, ",");
		while (len && list[len - 1] == ' ')
			len--;
		if (len == nlen && !memcmp(list, name, len))
			return true;
		list += len;
		list += strcspn(list, ",");
	}
	return false;
}

static int ts_call(void *self, struct skit__tool_ctx *ctx, const char *tool,
                   json_t *args, struct skitx_buf *out, bool *is_error,
                   skit_error *err)
{
	struct skit__tool_search *ts = self;
	skit_tool_schema all[SKIT__TOOLS_MAX];
	bool external[SKIT__TOOLS_MAX];
	unsigned int scores[SKIT__TOOLS_MAX];
	size_t pick[RESULTS_MAX], npick = 0, n, want = RESULTS_DEFAULT;
	const char *q = skit__str_arg(args, "query");
	json_t *mr = json_object_get(args, "max_results");
	bool sel;

	(void)ctx;
	(void)tool;
	if (!q || !*q || strlen(q) > QUERY_MAX)
		return skit__tool_error(out, is_error,
		                        "query must be keywords or "
		                        "select:NAME,NAME (at most %d bytes)",
		                        QUERY_MAX);
	if (mr) {
		if (!json_is_integer(mr) || json_integer_value(mr) < 1 ||
		    json_integer_value(mr) > RESULTS_MAX)
			return skit__tool_error(out, is_error,
			                        "max_results must be a whole "
			                        "number from 1 to %d",
			                        RESULTS_MAX);
		want = (size_t)json_integer_value(mr);
	}
	sel = !strncmp(q, "select:", 7);
	n = skit__tools_collect(ts->a, all, external, SKIT__TOOLS_MAX);
	for (size_t i = 0; i < n; i++) {
		size_t at = npick;

		if (!external[i])
			scores[i] = 0;
		else if (sel)
			scores[i] = selected(q + 7, all[i].name) ? 1 : 0;
		else
			scores[i] = score(&all[i], q);
		if (!scores[i])
			continue;
		/* keep the best `want`, best first, by name on a tie */
		while (at > 0 &&
		       (scores[pick[at - 1]] < scores[i] ||
		        (scores[pick[at - 1]] == scores[i] &&
		         strcmp(all[pick[at - 1]].name, all[i].name) > 0)))
			at--;
		if (at >= want)
			continue;
		if (npick == want)
			npick--;
		memmove(&pick[at + 1], &pick[at], (npick - at) * sizeof(*pick));
		pick[at] = i;
		npick++;
	}
	skitx_buf_clear(out);
	if (!npick)
		return skit__tool_error(
		        out, is_error,
		        "no deferred tool matches '%s'; try other "
		        "words, or select: with a name from this "
		        "tool's description",
		        q);
	if (skitx_buf_printf(out,
	                     "%zu tool%s loaded; call %s by name from now "
	                     "on:\n",
	                     npick, npick == 1 ? "" : "s",
	                     npick == 1 ? "it" : "them"))
		return skit__error_oom(err);
	for (size_t k = 0; k < npick; k++) {
		const skit_tool_schema *s = &all[pick[k]];

		if (skitx_buf_len(out) > SKIT_TOOL_OUTPUT_CAP)
			break;
		if (load(ts, s->name) ||
		    skitx_buf_printf(out, "\n## %s\n", s->name) ||
		    skit__put_clean(out, s->description,
		                    strlen(s->description)) ||
		    skitx_buf_printf(out, "\nParameters (JSON Schema): %s\n",
		                     s->parameters ? s->parameters
		                                   : "{\"type\":\"object\"}"))
			return skit__error_oom(err);
	}
	return 0;
}

static void ts_release(void *self)
{
	struct skit__tool_search *ts = self;

	if (!ts)
		return;
	ts->a->tool_search = NULL;
	for (size_t i = 0; i < ts->nloaded; i++)
		skitx_free(ts->loaded[i]);
	skitx_free(ts->loaded);
	skitx_buf_release(&ts->desc);
	skitx_buf_release(&ts->next);
	skitx_free(ts);
}

static const struct skit__tool_provider_ops ts_tools = {
	"tool_search", ts_list, NULL, ts_call, ts_release,
};

int skit__tool_search_init(struct skit_agent *a, skit_tool_search_mode mode,
                           skit_error *err)
{
	struct skit__tool_search *ts = skitx_calloc(1, sizeof(*ts));

	if (!ts)
		return skit__error_oom(err);
	ts->a = a;
	ts->mode = mode;
	skitx_buf_init(&ts->desc, 0);
	skitx_buf_init(&ts->next, 0);
	a->tool_search = ts;
	return skit__agent_add_provider(a, &ts_tools, ts, err);
}

skit_tool_search_mode skit__tool_search_mode(const struct skit_agent *a)
{
	return a->tool_search ? a->tool_search->mode : SKIT_TOOL_SEARCH_NEVER;
}
