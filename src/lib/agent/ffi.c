/* SPDX-License-Identifier: MIT */
/*
 * ffi.c - the API for foreign-function interfaces (skit/ffi.h): option
 * structs built from key/value strings over the library's own *_INIT
 * values, and structures handed out as JSON text.
 *
 * Nothing here adds behaviour: every call builds the options of an
 * existing public call and makes it. A table per struct names the
 * members a binding may set (their key is the member's name), their
 * type and their offset, so a binding never needs to know a struct's
 * layout or version: a member it does not name keeps the default of the
 * library it runs against. A member added to a struct later keeps its
 * *_INIT default here until a row names it.
 *
 * The JSON is written by hand rather than with jansson because jansson
 * refuses strings that are not UTF-8, and paths need not be: a byte
 * outside valid UTF-8 becomes "\udcXX", which Python's json module reads
 * back as the surrogateescape character of that byte.
 */
#include "common.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>

#include "skit/ffi.h"
#include "skit/errors.h"
#include "lib/core/error.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/utf8.h"

/* The most key/value pairs one call takes: more is a caller's bug. */
#define MAX_OPTIONS 64
/* The most rows an option table may have (a table of this file). */
#define MAX_ROWS 128
/* The most search hits one call returns, whatever `k` asks for. */
#define MAX_HITS 10000

/* ---- option tables ---------------------------------------------------- */

enum opt_type {
	OPT_BOOL,
	OPT_UINT,
	OPT_SIZE,
	OPT_LONG,
	OPT_U64,
	OPT_STR,
	OPT_SECRET, /* a string never shown by skit_ffi_options() */
	OPT_FLAG,   /* a bit of an unsigned int member */
	OPT_SANDBOX,
	OPT_FORMAT,
	OPT_TOOLSEARCH, /* skit_tool_search_mode, by name */
};

static const char *const tool_search_modes[] = { "auto", "always", "never" };

struct opt {
	const char *key;
	enum opt_type type;
	size_t off;
	unsigned int bit;
};

/* clang-format off */
#define ROW(st, t, m)    { #m, t, offsetof(st, m), 0 }
#define BIT(st, k, m, b) { k, OPT_FLAG, offsetof(st, m), b }
/* clang-format on */

static const struct opt skill_opts[] = {
	BIT(skit_skill_options, "lenient", flags, SKIT_SKILL_LENIENT),
	BIT(skit_skill_options, "lint", flags, SKIT_SKILL_LINT),
	BIT(skit_skill_options, "body", flags, SKIT_SKILL_BODY),
	ROW(skit_skill_options, OPT_SIZE, max_frontmatter),
	ROW(skit_skill_options, OPT_SIZE, max_file),
	{ NULL, 0, 0, 0 },
};

static const struct opt roots_opts[] = {
	ROW(skit_roots_options, OPT_STR, cwd),
	ROW(skit_roots_options, OPT_STR, home),
	ROW(skit_roots_options, OPT_STR, skit_home),
	ROW(skit_roots_options, OPT_STR, config_file),
	ROW(skit_roots_options, OPT_BOOL, no_config),
	ROW(skit_roots_options, OPT_BOOL, honour_trust),
	{ NULL, 0, 0, 0 },
};

static const struct opt prompt_opts[] = {
	ROW(skit_prompt_options, OPT_FORMAT, format),
	ROW(skit_prompt_options, OPT_SIZE, budget),
	BIT(skit_prompt_options, "verbatim", flags, SKIT_PROMPT_VERBATIM),
	{ NULL, 0, 0, 0 },
};

static const struct opt model_opts[] = {
	ROW(skit_model_options, OPT_STR, spec),
	ROW(skit_model_options, OPT_SECRET, api_key),
	ROW(skit_model_options, OPT_STR, base_url),
	ROW(skit_model_options, OPT_LONG, connect_timeout_ms),
	ROW(skit_model_options, OPT_LONG, total_timeout_ms),
	ROW(skit_model_options, OPT_UINT, max_retries),
	ROW(skit_model_options, OPT_LONG, retry_base_ms),
	ROW(skit_model_options, OPT_LONG, retry_max_ms),
	ROW(skit_model_options, OPT_BOOL, no_stream),
	ROW(skit_model_options, OPT_STR, request_log),
	{ NULL, 0, 0, 0 },
};

static const struct opt host_opts[] = {
	ROW(skit_host_options, OPT_STR, project_dir),
	ROW(skit_host_options, OPT_BOOL, file_tools),
	ROW(skit_host_options, OPT_SANDBOX, sandbox_mode),
	ROW(skit_host_options, OPT_STR, workdir),
	ROW(skit_host_options, OPT_STR, runs_dir),
	{ NULL, 0, 0, 0 },
};

static const struct opt agent_opts[] = {
	ROW(skit_agent_options, OPT_STR, base_prompt),
	ROW(skit_agent_options, OPT_SIZE, index_budget),
	ROW(skit_agent_options, OPT_BOOL, search_tool),
	ROW(skit_agent_options, OPT_BOOL, json_actions),
	ROW(skit_agent_options, OPT_UINT, max_turns),
	ROW(skit_agent_options, OPT_UINT, max_tool_calls),
	ROW(skit_agent_options, OPT_UINT, max_script_runs),
	ROW(skit_agent_options, OPT_U64, max_tokens),
	ROW(skit_agent_options, OPT_UINT, max_skills_per_turn),
	ROW(skit_agent_options, OPT_UINT, max_output_tokens),
	ROW(skit_agent_options, OPT_LONG, script_timeout_ms),
	ROW(skit_agent_options, OPT_SIZE, script_output_cap),
	ROW(skit_agent_options, OPT_SIZE, resource_cap),
	ROW(skit_agent_options, OPT_STR, workdir),
	ROW(skit_agent_options, OPT_STR, runs_dir),
	ROW(skit_agent_options, OPT_STR, project_dir),
	ROW(skit_agent_options, OPT_BOOL, file_tools),
	ROW(skit_agent_options, OPT_SANDBOX, sandbox_mode),
	ROW(skit_agent_options, OPT_BOOL, keep_temp),
	ROW(skit_agent_options, OPT_U64, disk_cap),
	ROW(skit_agent_options, OPT_U64, task_disk_cap),
	ROW(skit_agent_options, OPT_BOOL, saved_approvals),
	ROW(skit_agent_options, OPT_BOOL, dynamic_context),
	ROW(skit_agent_options, OPT_BOOL, project_instructions),
	ROW(skit_agent_options, OPT_U64, context_window),
	ROW(skit_agent_options, OPT_UINT, compact_percent),
	ROW(skit_agent_options, OPT_STR, resume_session),
	ROW(skit_agent_options, OPT_UINT, max_parallel_tasks),
	ROW(skit_agent_options, OPT_TOOLSEARCH, tool_search),
	{ NULL, 0, 0, 0 },
};

/* Every options struct, starting from the library's *_INIT. */
union any_opts {
	skit_skill_options skill;
	skit_roots_options roots;
	skit_prompt_options prompt;
	skit_model_options model;
	skit_host_options host;
	skit_agent_options agent;
};

struct kind {
	const char *name;
	const struct opt *table;
};

static const struct kind kinds[] = {
	{ "skill", skill_opts },   { "roots", roots_opts },
	{ "prompt", prompt_opts }, { "model", model_opts },
	{ "host", host_opts },     { "agent", agent_opts },
};

static void init_kind(union any_opts *u, const struct kind *k)
{
	static const skit_skill_options skill = SKIT_SKILL_OPTIONS_INIT;
	static const skit_roots_options roots = SKIT_ROOTS_OPTIONS_INIT;
	static const skit_prompt_options prompt = SKIT_PROMPT_OPTIONS_INIT;
	static const skit_model_options model = SKIT_MODEL_OPTIONS_INIT;
	static const skit_host_options host = SKIT_HOST_OPTIONS_INIT;
	static const skit_agent_options agent = SKIT_AGENT_OPTIONS_INIT;

	memset(u, 0, sizeof(*u));
	if (k->table == skill_opts)
		u->skill = skill;
	else if (k->table == roots_opts)
		u->roots = roots;
	else if (k->table == prompt_opts)
		u->prompt = prompt;
	else if (k->table == model_opts)
		u->model = model;
	else if (k->table == host_opts)
		u->host = host;
	else
		u->agent = agent;
}

/* Each struct's first member is its version: the same for all. */
static unsigned int kind_version(const union any_opts *u)
{
	return u->skill.version;
}

static bool parse_bool(const char *v, bool *out)
{
	if (!strcmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

/* A decimal number of at most `max`; no sign, no blanks, no suffix. */
static bool parse_num(const char *v, uint64_t max, uint64_t *out)
{
	unsigned long long n;
	char *end;

	if (*v < '0' || *v > '9')
		return false;
	errno = 0;
	n = strtoull(v, &end, 10);
	if (errno || *end || n > max)
		return false;
	*out = n;
	return true;
}

static int set_one(void *base, const struct opt *o, const char *v,
                   skit_error *err)
{
	char *p = (char *)base + o->off;
	uint64_t n = 0;
	bool b = false, ok = true;

	switch (o->type) {
	case OPT_BOOL:
		ok = parse_bool(v, &b);
		if (ok)
			memcpy(p, &b, sizeof(b));
		break;
	case OPT_FLAG:
		ok = parse_bool(v, &b);
		if (ok) {
			unsigned int f;

			memcpy(&f, p, sizeof(f));
			f = b ? f | o->bit : f & ~o->bit;
			memcpy(p, &f, sizeof(f));
		}
		break;
	case OPT_UINT:
		ok = parse_num(v, UINT_MAX, &n);
		if (ok) {
			unsigned int u = (unsigned int)n;

			memcpy(p, &u, sizeof(u));
		}
		break;
	case OPT_SIZE:
		ok = parse_num(v, SIZE_MAX, &n);
		if (ok) {
			size_t z = (size_t)n;

			memcpy(p, &z, sizeof(z));
		}
		break;
	case OPT_LONG:
		ok = parse_num(v, LONG_MAX, &n);
		if (ok) {
			long l = (long)n;

			memcpy(p, &l, sizeof(l));
		}
		break;
	case OPT_U64:
		ok = parse_num(v, UINT64_MAX, &n);
		if (ok)
			memcpy(p, &n, sizeof(n));
		break;
	case OPT_STR:
	case OPT_SECRET:
		memcpy(p, &v, sizeof(v));
		break;
	case OPT_SANDBOX: {
		skit_sandbox_mode m;

		ok = !skit_sandbox_mode_parse(v, &m);
		if (ok)
			memcpy(p, &m, sizeof(m));
		break;
	}
	case OPT_TOOLSEARCH: {
		int m = -1;

		for (int i = 0; i < 3; i++)
			if (!strcmp(v, tool_search_modes[i]))
				m = i;
		ok = m >= 0;
		if (ok) {
			skit_tool_search_mode t = (skit_tool_search_mode)m;

			memcpy(p, &t, sizeof(t));
		}
		break;
	}
	case OPT_FORMAT: {
		skit_prompt_format f = SKIT_PROMPT_XML;

		if (!strcmp(v, "markdown"))
			f = SKIT_PROMPT_MARKDOWN;
		else if (!strcmp(v, "json"))
			f = SKIT_PROMPT_JSON;
		else
			ok = !strcmp(v, "xml");
		if (ok)
			memcpy(p, &f, sizeof(f));
		break;
	}
	}
	if (ok)
		return 0;
	/* The value is the caller's own text, cut to fit: no secret is
	 * echoed, because only a malformed value reaches here, and the
	 * secret's type (a string) never is. */
	return skit__error_set(err, SKIT_EINVALID, 0,
	                       "option '%s': bad value '%.64s'", o->key, v);
}

/*
 * Apply `kv` ({key, value, ..., NULL}) to `base` by `table`. A key may
 * be given once, so that two layers of a binding cannot silently
 * disagree about one setting.
 */
static int apply(void *base, const struct opt *table, const char *const *kv,
                 skit_error *err)
{
	bool seen[MAX_ROWS] = { false };
	size_t i, r;

	for (i = 0; kv && kv[i]; i += 2) {
		if (i / 2 >= MAX_OPTIONS)
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "more than %d options",
			                       MAX_OPTIONS);
		if (!kv[i + 1])
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "option '%.64s' has no value",
			                       kv[i]);
		for (r = 0; table[r].key; r++)
			if (!strcmp(table[r].key, kv[i]))
				break;
		if (!table[r].key)
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "unknown option '%.64s'", kv[i]);
		assert(r < MAX_ROWS);
		if (seen[r])
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "option '%s' given twice",
			                       table[r].key);
		seen[r] = true;
		if (set_one(base, &table[r], kv[i + 1], err))
			return SKIT_EINVALID;
	}
	return 0;
}

/* ---- JSON output ------------------------------------------------------ */

/* Length of the UTF-8 sequence a lead byte announces; 0 for none. */
static size_t seq_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

/* A JSON string for `s` (null for NULL), bytes outside UTF-8 as \udcXX. */
static int put_str(struct skitx_buf *b, const char *s)
{
	size_t len, i = 0, n;
	int rc;

	if (!s)
		return skitx_buf_puts(b, "null");
	len = strlen(s);
	rc = skitx_buf_putc(b, '"');
	while (!rc && i < len) {
		unsigned char c = (unsigned char)s[i];

		n = seq_len(c);
		if (c == '"' || c == '\\') {
			rc = skitx_buf_putc(b, '\\');
			rc |= skitx_buf_putc(b, (char)c);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			rc = skitx_buf_printf(b, "\\u%04x", c);
			i++;
		} else if (n && n <= len - i &&
		           !skitx_utf8_check(s + i, n, NULL)) {
			rc = skitx_buf_add(b, s + i, n);
			i += n;
		} else {
			rc = skitx_buf_printf(b, "\\udc%02x", c);
			i++;
		}
	}
	return rc | skitx_buf_putc(b, '"');
}

static int put_key(struct skitx_buf *b, bool *first, const char *key)
{
	int rc = skitx_buf_puts(b, *first ? "{" : ", ");

	*first = false;
	rc |= put_str(b, key);
	return rc | skitx_buf_puts(b, ": ");
}

static int put_kstr(struct skitx_buf *b, bool *first, const char *key,
                    const char *v)
{
	return put_key(b, first, key) | put_str(b, v);
}

static int put_knum(struct skitx_buf *b, bool *first, const char *key,
                    uint64_t v)
{
	return put_key(b, first, key) | skitx_buf_printf(b, "%" PRIu64, v);
}

static int put_kbool(struct skitx_buf *b, bool *first, const char *key, bool v)
{
	return put_key(b, first, key) | skitx_buf_puts(b, v ? "true" : "false");
}

/* Hand the finished buffer out, or report what went wrong building it. */
static int finish(struct skitx_buf *b, int rc, char **out, skit_error *err)
{
	if (rc) {
		skitx_buf_release(b);
		return skit__error_oom(err);
	}
	*out = skitx_buf_detach(b, NULL);
	return *out ? 0 : skit__error_oom(err);
}

static int put_opt(struct skitx_buf *b, bool *first, const void *base,
                   const struct opt *o)
{
	const char *p = (const char *)base + o->off, *s;
	unsigned int u;
	size_t z;
	long l;
	uint64_t n;
	bool v;
	int m;

	switch (o->type) {
	case OPT_BOOL:
		memcpy(&v, p, sizeof(v));
		return put_kbool(b, first, o->key, v);
	case OPT_FLAG:
		memcpy(&u, p, sizeof(u));
		return put_kbool(b, first, o->key, u & o->bit);
	case OPT_UINT:
		memcpy(&u, p, sizeof(u));
		return put_knum(b, first, o->key, u);
	case OPT_SIZE:
		memcpy(&z, p, sizeof(z));
		return put_knum(b, first, o->key, z);
	case OPT_LONG:
		memcpy(&l, p, sizeof(l));
		return put_key(b, first, o->key) |
		       skitx_buf_printf(b, "%ld", l);
	case OPT_U64:
		memcpy(&n, p, sizeof(n));
		return put_knum(b, first, o->key, n);
	case OPT_STR:
		memcpy(&s, p, sizeof(s));
		return put_kstr(b, first, o->key, s);
	case OPT_SECRET:
		memcpy(&s, p, sizeof(s));
		return put_kstr(b, first, o->key, s ? "(set)" : NULL);
	case OPT_SANDBOX:
		memcpy(&m, p, sizeof(m));
		return put_kstr(b, first, o->key,
		                skit_sandbox_mode_name((skit_sandbox_mode)m));
	case OPT_TOOLSEARCH:
		memcpy(&m, p, sizeof(m));
		return put_kstr(b, first, o->key,
		                m >= 0 && m < 3 ? tool_search_modes[m]
		                                : "auto");
	case OPT_FORMAT:
		memcpy(&m, p, sizeof(m));
		return put_kstr(b, first, o->key,
		                m == SKIT_PROMPT_MARKDOWN ? "markdown"
		                : m == SKIT_PROMPT_JSON   ? "json"
		                                          : "xml");
	}
	return 0;
}

static int put_diags(struct skitx_buf *b, const skit_diag *d, size_t n)
{
	int rc = skitx_buf_putc(b, '[');

	for (size_t i = 0; !rc && i < n; i++) {
		bool first = true;

		if (i)
			rc |= skitx_buf_puts(b, ", ");
		rc |= put_kstr(b, &first, "severity",
		               d[i].severity == SKIT_SEVERITY_ERROR
		                       ? "error"
		                       : "warning");
		rc |= put_kstr(b, &first, "code", d[i].code);
		rc |= put_kstr(b, &first, "message", d[i].message);
		rc |= put_kstr(b, &first, "path", d[i].path);
		rc |= put_knum(b, &first, "line", d[i].line);
		rc |= put_knum(b, &first, "column", d[i].column);
		rc |= skitx_buf_putc(b, '}');
	}
	return rc | skitx_buf_putc(b, ']');
}

static int put_entry(struct skitx_buf *b, const skit_registry *reg,
                     const skit_entry *e)
{
	static const char *const states[] = { "active", "shadowed", "skipped" };
	const char *source = NULL, *path = NULL;
	bool first = true, exists;
	size_t skills;
	int rc;

	if (e->root_index < skit_registry_root_count(reg))
		skit_registry_root(reg, e->root_index, &source, &path, &exists,
		                   &skills);
	rc = put_kstr(b, &first, "name", e->name);
	rc |= put_kstr(b, &first, "description", e->description);
	rc |= put_kstr(b, &first, "when_to_use", e->when_to_use);
	rc |= put_kstr(b, &first, "argument_hint", e->argument_hint);
	rc |= put_kstr(b, &first, "dir", e->dir);
	rc |= put_kstr(b, &first, "file", e->file);
	rc |= put_kstr(b, &first, "source", e->source);
	rc |= put_knum(b, &first, "root_index", e->root_index);
	rc |= put_kstr(b, &first, "root", path);
	rc |= put_knum(b, &first, "flags", e->flags);
	rc |= put_kstr(b, &first, "state",
	               (unsigned int)e->state < 3 ? states[e->state]
	                                          : "unknown");
	rc |= put_kstr(b, &first, "reason", e->reason);
	rc |= put_knum(b, &first, "warnings", e->warnings);
	return rc | skitx_buf_putc(b, '}');
}

/* ---- hooks ------------------------------------------------------------ */

/* What a tool's skit_tool_def.payload points at. */
struct ffi_tool {
	struct skit_ffi_hooks *hooks;
	skit_ffi_tool_fn call;
	char *name, *description, *parameters;
};

struct skit_ffi_hooks {
	skit_agent_hooks hooks;
	/* skit_ffi_hooks_cancel(): the agent's and the model's cancel */
	volatile int cancel;
	skit_ffi_approve_fn approve;
	skit_ffi_trace_fn trace;
	skit_ffi_text_fn text;
	skit_ffi_ask_fn ask;
	void *payload;
	/* skit_ffi_hooks_add_tool(): definitions for skit_agent_options */
	skit_tool_def tools[SKIT_AGENT_MAX_TOOLS];
	struct ffi_tool tool[SKIT_AGENT_MAX_TOOLS];
	size_t ntools;
};

static const char *risk_name(skit_risk r)
{
	switch (r) {
	case SKIT_RISK_READ:
		return "read";
	case SKIT_RISK_EXECUTE:
		return "execute";
	case SKIT_RISK_WRITE:
		return "write";
	case SKIT_RISK_NETWORK:
		return "network";
	}
	return "unknown";
}

/*
 * The request goes out as JSON so that a binding reads no struct. When
 * it cannot be built (out of memory) the call is refused: approving what
 * no one saw is never the fallback.
 */
static skit_approve_answer approve_tramp(const skit_approval *req,
                                         void *payload)
{
	struct skit_ffi_hooks *h = payload;
	struct skitx_buf b = SKITX_BUF_INIT;
	bool first = true;
	int rc, answer;

	rc = put_kstr(&b, &first, "tool", req->tool);
	rc |= put_kstr(&b, &first, "skill", req->skill);
	rc |= put_kstr(&b, &first, "arguments", req->arguments);
	rc |= put_kstr(&b, &first, "target", req->target);
	rc |= put_kstr(&b, &first, "reason", req->reason);
	rc |= put_kstr(&b, &first, "risk", risk_name(req->risk));
	rc |= put_kstr(&b, &first, "always", req->always);
	rc |= put_kstr(&b, &first, "approving_flag", req->approving_flag);
	rc |= put_kstr(&b, &first, "network", req->network);
	rc |= skitx_buf_putc(&b, '}');
	if (rc) {
		skitx_buf_release(&b);
		return SKIT_APPROVE_NO;
	}
	answer = h->approve(skitx_buf_cstr(&b), h->payload);
	skitx_buf_release(&b);
	switch (answer) {
	case SKIT_APPROVE_YES:
	case SKIT_APPROVE_ALWAYS:
	case SKIT_APPROVE_NO_ASK:
		return (skit_approve_answer)answer;
	default:
		return SKIT_APPROVE_NO;
	}
}

static void trace_tramp(skit_trace_kind kind, const char *line, void *payload)
{
	struct skit_ffi_hooks *h = payload;

	h->trace((int)kind, line, h->payload);
}

static void text_tramp(const char *text, size_t len, void *payload)
{
	struct skit_ffi_hooks *h = payload;

	h->text(text, len, h->payload);
}

static int ask_tramp(const skit_question *q, skit_tool_output *answer,
                     void *payload)
{
	struct skit_ffi_hooks *h = payload;
	struct skitx_buf b = SKITX_BUF_INIT;
	bool first = true;
	int rc;

	rc = put_kstr(&b, &first, "question", q->question);
	rc |= put_key(&b, &first, "options") | skitx_buf_putc(&b, '[');
	for (size_t i = 0; i < q->option_count; i++) {
		if (i)
			rc |= skitx_buf_puts(&b, ", ");
		rc |= put_str(&b, q->options[i]);
	}
	rc |= skitx_buf_putc(&b, ']');
	rc |= put_kbool(&b, &first, "multi", q->multi);
	rc |= skitx_buf_putc(&b, '}');
	if (rc) {
		skitx_buf_release(&b);
		return SKIT_ENOMEM;
	}
	rc = h->ask(skitx_buf_cstr(&b), answer, h->payload);
	skitx_buf_release(&b);
	return rc;
}

static int tool_tramp(const char *arguments, skit_tool_output *out,
                      bool *is_error, void *payload)
{
	struct ffi_tool *t = payload;

	return t->call(t->name, arguments, out, is_error, t->hooks->payload);
}

/* ---- public calls ----------------------------------------------------- */

const char *skit_ffi_status_name(int status)
{
	/* clang-format off */
	switch (status) {
#define NAME(name, value, text) case value: return #name;
	SKIT_STATUS_MAP(NAME)
#undef NAME
	}
	/* clang-format on */
	return "UNKNOWN";
}

int skit_ffi_hooks_new(skit_ffi_hooks **out, skit_ffi_approve_fn approve,
                       skit_ffi_trace_fn trace, skit_ffi_text_fn text,
                       void *payload, skit_error *err)
{
	struct skit_ffi_hooks *h;

	assert(out);
	*out = NULL;
	h = skitx_calloc(1, sizeof(*h));
	if (!h)
		return skit__error_oom(err);
	h->approve = approve;
	h->trace = trace;
	h->text = text;
	h->payload = payload;
	h->hooks.payload = h;
	h->hooks.on_approve = approve ? approve_tramp : NULL;
	h->hooks.on_trace = trace ? trace_tramp : NULL;
	h->hooks.on_text = text ? text_tramp : NULL;
	*out = h;
	return 0;
}

void skit_ffi_hooks_cancel(skit_ffi_hooks *hooks, bool on)
{
	assert(hooks);
	hooks->cancel = on;
}

int skit_ffi_hooks_add_tool(skit_ffi_hooks *hooks, const char *name,
                            const char *description, const char *parameters,
                            const char *risk, skit_ffi_tool_fn call,
                            skit_error *err)
{
	static const skit_tool_def init = SKIT_TOOL_DEF_INIT;
	skit_risk r = SKIT_RISK_EXECUTE;
	struct ffi_tool *t;
	skit_tool_def *d;

	assert(hooks && name && call);
	if (hooks->ntools == SKIT_AGENT_MAX_TOOLS)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "more than %d tools",
		                       SKIT_AGENT_MAX_TOOLS);
	if (risk) {
		for (r = SKIT_RISK_READ; r <= SKIT_RISK_NETWORK; r++)
			if (!strcmp(risk, risk_name(r)))
				break;
		if (r > SKIT_RISK_NETWORK)
			return skit__error_set(
			        err, SKIT_EINVALID, 0,
			        "tool %.64s: unknown risk '%.32s'", name, risk);
	}
	t = &hooks->tool[hooks->ntools];
	d = &hooks->tools[hooks->ntools];
	t->hooks = hooks;
	t->call = call;
	t->name = skitx_strdup(name);
	t->description = description ? skitx_strdup(description) : NULL;
	t->parameters = parameters ? skitx_strdup(parameters) : NULL;
	if (!t->name || (description && !t->description) ||
	    (parameters && !t->parameters)) {
		skitx_free(t->name);
		skitx_free(t->description);
		skitx_free(t->parameters);
		memset(t, 0, sizeof(*t));
		return skit__error_oom(err);
	}
	*d = init;
	d->name = t->name;
	d->description = t->description;
	d->parameters = t->parameters;
	d->risk = r;
	d->call = tool_tramp;
	d->payload = t;
	hooks->ntools++;
	return 0;
}

void skit_ffi_hooks_set_ask(skit_ffi_hooks *hooks, skit_ffi_ask_fn ask)
{
	assert(hooks);
	hooks->ask = ask;
}

int skit_ffi_options(char **out, const char *kind, const char *const *options,
                     skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const struct kind *k = NULL;
	union any_opts u;
	bool first = true;
	int rc;

	assert(out && kind);
	*out = NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(kinds[i].name, kind))
			k = &kinds[i];
	if (!k)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "unknown options kind '%.32s'", kind);
	init_kind(&u, k);
	rc = apply(&u, k->table, options, err);
	if (rc)
		return rc;
	rc = put_knum(&b, &first, "version", kind_version(&u));
	for (size_t r = 0; k->table[r].key; r++)
		rc |= put_opt(&b, &first, &u, &k->table[r]);
	rc |= skitx_buf_putc(&b, '}');
	return finish(&b, rc, out, err);
}

int skit_ffi_skill_load(skit_skill **out, const char *path,
                        const char *const *options, skit_error *err)
{
	skit_skill_options o = SKIT_SKILL_OPTIONS_INIT;
	int rc;

	assert(out && path);
	*out = NULL;
	rc = apply(&o, skill_opts, options, err);
	return rc ? rc : skit_skill_load(out, path, &o, err);
}

int skit_ffi_skill_diags(char **out, const skit_skill *skill, skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const skit_diag *d;
	size_t n = 0;

	assert(out && skill);
	*out = NULL;
	d = skit_skill_diags(skill, &n);
	return finish(&b, put_diags(&b, d, n), out, err);
}

int skit_ffi_registry_add_default_roots(skit_registry *reg,
                                        const char *const *options,
                                        skit_error *err)
{
	skit_roots_options o = SKIT_ROOTS_OPTIONS_INIT;
	int rc;

	assert(reg);
	rc = apply(&o, roots_opts, options, err);
	return rc ? rc : skit_registry_add_default_roots(reg, &o, err);
}

int skit_ffi_registry_entries(char **out, const skit_registry *reg, bool all,
                              skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t n;
	int rc;

	assert(out && reg);
	*out = NULL;
	n = all ? skit_registry_all_count(reg) : skit_registry_count(reg);
	rc = skitx_buf_putc(&b, '[');
	for (size_t i = 0; !rc && i < n; i++) {
		if (i)
			rc |= skitx_buf_puts(&b, ", ");
		rc |= put_entry(&b, reg,
		                all ? skit_registry_all_entry(reg, i)
		                    : skit_registry_entry(reg, i));
	}
	rc |= skitx_buf_putc(&b, ']');
	return finish(&b, rc, out, err);
}

int skit_ffi_registry_diags(char **out, const skit_registry *reg,
                            skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const skit_diag *d;
	size_t n = 0;

	assert(out && reg);
	*out = NULL;
	d = skit_registry_diags(reg, &n);
	return finish(&b, put_diags(&b, d, n), out, err);
}

int skit_ffi_registry_search(char **out, skit_registry *reg, const char *query,
                             unsigned int flags, size_t k, skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	skit_search_hit *hits = NULL;
	size_t n = 0;
	int rc;

	assert(out && reg && query);
	*out = NULL;
	if (k > skit_registry_count(reg))
		k = skit_registry_count(reg);
	if (k > MAX_HITS)
		k = MAX_HITS;
	if (k) {
		hits = skitx_calloc(k, sizeof(*hits));
		if (!hits)
			return skit__error_oom(err);
		rc = skit_registry_search(reg, query, flags, hits, k, &n, err);
		if (rc) {
			skitx_free(hits);
			return rc;
		}
	}
	rc = skitx_buf_putc(&b, '[');
	for (size_t i = 0; !rc && i < n; i++) {
		rc |= skitx_buf_puts(&b, i ? ", {\"entry\": " : "{\"entry\": ");
		rc |= put_entry(&b, reg, hits[i].entry);
		rc |= skitx_buf_printf(&b, ", \"score\": %.17g}",
		                       hits[i].score);
	}
	rc |= skitx_buf_putc(&b, ']');
	skitx_free(hits);
	return finish(&b, rc, out, err);
}

int skit_ffi_registry_index(char **out, const skit_registry *reg,
                            const char *const *options, skit_error *err)
{
	skit_prompt_options o = SKIT_PROMPT_OPTIONS_INIT;
	int rc;

	assert(out && reg);
	*out = NULL;
	rc = apply(&o, prompt_opts, options, err);
	return rc ? rc : skit_registry_render_index(reg, &o, out, NULL, err);
}

int skit_ffi_model_new(skit_model **out, const skit_ffi_hooks *hooks,
                       const char *const *options, skit_error *err)
{
	skit_model_options o = SKIT_MODEL_OPTIONS_INIT;
	int rc;

	assert(out);
	*out = NULL;
	rc = apply(&o, model_opts, options, err);
	if (hooks)
		o.cancel = &hooks->cancel;
	if (!rc && !o.spec)
		rc = skit__error_set(err, SKIT_EUSAGE, 0,
		                     "no model: the option 'spec' is needed");
	return rc ? rc : skit_model_new(out, &o, err);
}

int skit_ffi_host_new(skit_host **out, skit_registry *reg,
                      const skit_policy *policy, const skit_ffi_hooks *hooks,
                      const char *const *options, skit_error *err)
{
	skit_host_options o = SKIT_HOST_OPTIONS_INIT;
	int rc;

	assert(out && reg);
	*out = NULL;
	rc = apply(&o, host_opts, options, err);
	if (rc)
		return rc;
	o.registry = reg;
	o.policy = policy;
	if (hooks)
		o.hooks = hooks->hooks;
	return skit_host_new(out, &o, err);
}

int skit_ffi_host_index(char **out, skit_host *host, const char *const *options,
                        skit_error *err)
{
	skit_prompt_options o = SKIT_PROMPT_OPTIONS_INIT;
	int rc;

	assert(out && host);
	*out = NULL;
	if (!options)
		return skit_host_index(host, NULL, out, err);
	rc = apply(&o, prompt_opts, options, err);
	return rc ? rc : skit_host_index(host, &o, out, err);
}

int skit_ffi_agent_new(skit_agent **out, skit_registry *reg, skit_model *model,
                       const skit_policy *policy, const skit_ffi_hooks *hooks,
                       const char *const *options, skit_error *err)
{
	skit_agent_options o = SKIT_AGENT_OPTIONS_INIT;
	int rc;

	assert(out && reg && model);
	*out = NULL;
	rc = apply(&o, agent_opts, options, err);
	if (rc)
		return rc;
	o.registry = reg;
	o.model = model;
	o.policy = policy;
	if (hooks) {
		o.hooks = hooks->hooks;
		o.cancel = &hooks->cancel;
		if (hooks->ntools) {
			o.tools = hooks->tools;
			o.ntools = hooks->ntools;
		}
		if (hooks->ask) {
			o.on_ask = ask_tramp;
			o.ask_payload = (void *)hooks;
		}
	}
	return skit_agent_new(out, &o, err);
}

int skit_ffi_agent_state(char **out, const skit_agent *agent, skit_error *err)
{
	static const char *const steps[] = { "pending", "in_progress",
		                             "completed" };
	struct skitx_buf b = SKITX_BUF_INIT;
	skit_agent_stats st;
	bool first = true;
	size_t n;
	int rc;

	assert(out && agent);
	*out = NULL;
	skit_agent_get_stats(agent, &st);
	rc = put_knum(&b, &first, "turns", st.turns);
	rc |= put_knum(&b, &first, "tool_calls", st.tool_calls);
	rc |= put_knum(&b, &first, "script_runs", st.script_runs);
	rc |= put_knum(&b, &first, "input_tokens", st.usage.input_tokens);
	rc |= put_knum(&b, &first, "output_tokens", st.usage.output_tokens);
	rc |= put_knum(&b, &first, "index_chars", st.index_chars);
	rc |= put_knum(&b, &first, "index_skills", st.index_skills);
	rc |= put_knum(&b, &first, "index_omitted", st.index_omitted);
	rc |= put_key(&b, &first, "active") | skitx_buf_putc(&b, '[');
	n = skit_agent_active_count(agent);
	for (size_t i = 0; i < n; i++) {
		if (i)
			rc |= skitx_buf_puts(&b, ", ");
		rc |= put_str(&b, skit_agent_active_skill(agent, i));
	}
	rc |= skitx_buf_putc(&b, ']');
	rc |= put_key(&b, &first, "plan") | skitx_buf_putc(&b, '[');
	n = skit_agent_plan_count(agent);
	for (size_t i = 0; i < n; i++) {
		skit_step_status s = SKIT_STEP_PENDING;
		const char *text = skit_agent_plan_step(agent, i, &s);
		bool f = true;

		if (i)
			rc |= skitx_buf_puts(&b, ", ");
		rc |= put_kstr(&b, &f, "step", text);
		rc |= put_kstr(&b, &f, "status",
		               (unsigned int)s < 3 ? steps[s] : "unknown");
		rc |= skitx_buf_putc(&b, '}');
	}
	rc |= skitx_buf_putc(&b, ']');
	rc |= put_kstr(&b, &first, "run_dir", skit_agent_run_dir(agent));
	rc |= skitx_buf_putc(&b, '}');
	return finish(&b, rc, out, err);
}

void skit_ffi_hooks_free(skit_ffi_hooks *hooks)
{
	if (!hooks)
		return;
	for (size_t i = 0; i < hooks->ntools; i++) {
		skitx_free(hooks->tool[i].name);
		skitx_free(hooks->tool[i].description);
		skitx_free(hooks->tool[i].parameters);
	}
	skitx_free(hooks);
}
