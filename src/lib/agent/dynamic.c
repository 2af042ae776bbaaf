/* SPDX-License-Identifier: MIT */
/*
 * dynamic.c - a skill body's dynamic context: Claude Code runs each
 * `` !`command` `` of a skill's body before the body reaches the model
 * and puts the command's output in its place, and skills written for it
 * count on that (`- Branch: !`git branch --show-current``). skit does the
 * same at activation, with nothing of its own: each command is a `shell`
 * call through the agent's one gate (skit__tools_call()), so the policy,
 * the skills' allowed-tools, the approval, the sandbox, the budgets and
 * the trail treat it exactly as the model's own shell call.
 *
 * What it does not do: run anything inside a fenced code block (``` or
 * ~~~), where `!` and backticks are examples, not commands (a known
 * footgun of Claude Code), or read the command's output again for more
 * commands or substitutions. It also reads the `dynamic_context` switch
 * from a config file (skit_agent_options_load_config()).
 */
#include "common.h"

#include "skit/agent.h"
#include "lib/agent/agent_int.h"
#include "lib/core/config_int.h"
#include "lib/core/error.h"
#include "util/utf8.h"

#define OUTPUT_CAP   (16u * 1024) /* bytes of one command's output kept */
#define MAX_COMMANDS 16u          /* commands run per activation */
#define COMMAND_MAX  4096u        /* bytes of one command in the body */
#define SHOWN_MAX    80           /* bytes of a command quoted in a note */
#define REASON_MAX   200          /* bytes of a reason quoted in a note */

/* One rendering: the skill, the caller's substitution, what ran. */
struct dyn {
	struct skit_agent *a;
	const char *skill;
	skit__body_text_fn text;
	void *payload;
	unsigned int ran;
	bool stopped;          /* canceled or out of budget: no more runs */
	skit_agent_hooks host; /* the program's hooks, while wrapped */
};

/* ---- fences ---------------------------------------------------------- */

/*
 * A fence line (CommonMark): up to 3 spaces, then 3 or more '`' or '~'.
 * Sets *ch and *n for an opening fence; a closing one needs the same
 * character at least as many times and nothing after but blanks.
 */
static bool fence_at(const char *p, const char *eol, char *ch, size_t *n)
{
	size_t k = 0, run = 0;

	while (k < 3 && p + k < eol && p[k] == ' ')
		k++;
	if (p + k >= eol || (p[k] != '`' && p[k] != '~'))
		return false;
	while (p + k + run < eol && p[k + run] == p[k])
		run++;
	if (run < 3)
		return false;
	*ch = p[k];
	*n = run;
	return true;
}

static bool fence_closes(const char *p, const char *eol, char ch, size_t n)
{
	char c;
	size_t run;

	if (!fence_at(p, eol, &c, &run) || c != ch || run < n)
		return false;
	p += strspn(p, " ") + run;
	while (p < eol && (*p == ' ' || *p == '\t' || *p == '\r'))
		p++;
	return p == eol;
}

/* A ``` line whose info string holds a backtick is no fence but code
 * spans (CommonMark), e.g. ```` ```!`ls`` ````. */
static bool info_has_backtick(const char *p, const char *eol)
{
	p += strspn(p, " ");
	while (p < eol && *p == '`')
		p++;
	return memchr(p, '`', (size_t)(eol - p)) != NULL;
}

/* Whether a `!` after `prev` may start a command: not inside a word,
 * after a backtick (an inline code span) or escaped. */
static bool may_start(char prev)
{
	return !(prev == '`' || prev == '\\' || prev == '_' ||
	         (prev >= '0' && prev <= '9') || (prev >= 'a' && prev <= 'z') ||
	         (prev >= 'A' && prev <= 'Z'));
}

/* ---- hooks: the approval names the skill ----------------------------- */

/*
 * While a command runs, the agent's hooks are these: each passes the call
 * on to the program's own hook with the program's payload, and the
 * approval (and the refusal) of the shell call names the skill it runs
 * for, as a script's does, so the user sees who asks.
 */
static void wrap_text(const char *text, size_t len, void *payload)
{
	struct dyn *d = payload;

	d->host.on_text(text, len, d->host.payload);
}

static void wrap_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct dyn *d = payload;

	d->host.on_trace(kind, line, d->host.payload);
}

static skit_approve_answer wrap_approve(const skit_approval *req, void *payload)
{
	struct dyn *d = payload;
	skit_approval named = *req;

	if (!named.skill)
		named.skill = d->skill;
	return d->host.on_approve(&named, d->host.payload);
}

static void wrap_refused(const skit_approval *req, void *payload)
{
	struct dyn *d = payload;
	skit_approval named = *req;

	if (!named.skill)
		named.skill = d->skill;
	d->host.on_refused(&named, d->host.payload);
}

/* Swap the hooks; a hook the program left NULL stays NULL, since the
 * gate reads "no on_approve" as "no one to ask". */
static void hooks_wrap(struct dyn *d)
{
	skit_agent_hooks *h = &d->a->hooks;

	d->host = *h;
	h->on_text = h->on_text ? wrap_text : NULL;
	h->on_trace = h->on_trace ? wrap_trace : NULL;
	h->on_approve = h->on_approve ? wrap_approve : NULL;
	h->on_refused = h->on_refused ? wrap_refused : NULL;
	h->payload = d;
}

static void hooks_restore(struct dyn *d)
{
	d->a->hooks = d->host;
}

/* ---- one command ----------------------------------------------------- */

/* The command as a note quotes it: cut, on one line. */
static void shown(char *buf, size_t cap, const char *cmd)
{
	size_t n = strlen(cmd);

	if (n < cap) {
		memcpy(buf, cmd, n + 1);
		return;
	}
	n = cap - 4;
	while (n && ((unsigned char)cmd[n] & 0xC0) == 0x80)
		n--; /* not inside a UTF-8 sequence */
	memcpy(buf, cmd, n);
	memcpy(buf + n, "...", 4);
}

/* The first line of `text`, at most REASON_MAX bytes. */
static int first_line(const char *text)
{
	int n = (int)strcspn(text, "\n");

	return n > REASON_MAX ? REASON_MAX : n;
}

/* A bracketed note in the command's place. 0 or SKIT_ENOMEM. */
static int note(struct skitx_buf *out, const char *cmd, const char *what,
                const char *why)
{
	char quoted[SHOWN_MAX + 1];
	struct skitx_buf clean = SKITX_BUF_INIT;
	size_t cps;
	int rc;

	shown(quoted, sizeof(quoted), cmd);
	rc = skitx_buf_printf(&clean, "[!`%s` %s: %.*s]", quoted, what,
	                      first_line(why), why);
	rc |= skitx_utf8_sanitize(out, skitx_buf_cstr(&clean),
	                          skitx_buf_len(&clean), 0, &cps);
	skitx_buf_release(&clean);
	return rc ? SKIT_ENOMEM : 0;
}

/*
 * A successful shell result ("exit code: 0", "--- stdout ---", the
 * output, and "--- stderr ---" with its text when the program wrote
 * any) as the body shows it: from the output on, without the trailing
 * newlines (as `$(...)` drops them), at most OUTPUT_CAP bytes, cleaned.
 */
static int put_output(struct skitx_buf *out, const char *res)
{
	static const char head[] = "--- stdout ---\n";
	size_t n, cps;
	int rc = 0;

	if (!strncmp(res, "exit code: ", 11))
		res += strcspn(res, "\n") + (res[strcspn(res, "\n")] != '\0');
	if (!strncmp(res, head, sizeof(head) - 1))
		res += sizeof(head) - 1;
	n = strlen(res);
	while (n && (res[n - 1] == '\n' || res[n - 1] == '\r'))
		n--;
	if (n > OUTPUT_CAP) {
		n = OUTPUT_CAP;
		while (n && ((unsigned char)res[n] & 0xC0) == 0x80)
			n--;
		rc |= skitx_utf8_sanitize(out, res, n,
		                          SKITX_SANITIZE_KEEP_LINES, &cps);
		rc |= skitx_buf_printf(out, "\n[output cut at %u KiB]",
		                       OUTPUT_CAP / 1024);
	} else {
		rc |= skitx_utf8_sanitize(out, res, n,
		                          SKITX_SANITIZE_KEEP_LINES, &cps);
	}
	return rc ? SKIT_ENOMEM : 0;
}

/* Whether a shell error result is the program's failure (it ran), not a
 * refusal: tools.c starts those results so. */
static bool ran_and_failed(const char *res)
{
	return !strncmp(res, "exit code: ", 11) ||
	       !strncmp(res, "timed out", 9) ||
	       !strncmp(res, "killed by signal", 16) ||
	       !strncmp(res, "stopped:", 8);
}

/*
 * Run the command `cmd` (substituted already) as a shell call of the
 * skill, and put its output or a note into `out`. 0 or SKIT_ENOMEM.
 */
static int run_command(struct dyn *d, const char *cmd, struct skitx_buf *out,
                       skit_error *err)
{
	struct skit_agent *a = d->a;
	struct skitx_buf res = SKITX_BUF_INIT;
	skit_error e = { 0 };
	char id[48], *json = NULL;
	bool is_error = false;
	json_t *args;
	int rc;

	if (d->stopped)
		return note(out, cmd, "not run", "the task was stopped");
	if (d->ran >= MAX_COMMANDS)
		return note(out, cmd, "not run",
		            "more than 16 commands in one skill body");
	if (a->task_calls >= a->max_tool_calls) {
		d->stopped = true;
		return note(out, cmd, "not run",
		            "the tool-call budget is exhausted");
	}
	args = json_pack("{s:s}", "command", cmd);
	json = args ? json_dumps(args, JSON_COMPACT) : NULL;
	if (!json) {
		json_decref(args);
		return skit__error_oom(err);
	}
	d->ran++;
	a->task_calls++;
	a->stats.tool_calls++;
	snprintf(id, sizeof(id), "context-%u", a->stats.tool_calls);
	skit__agent_audit(a, "tool_call",
	                  json_pack("{s:I, s:s, s:s, s:s, s:s, s:s}", "turn",
	                            (json_int_t)a->stats.turns, "id", id,
	                            "name", "shell", "arguments", json, "skill",
	                            d->skill, "origin", "dynamic_context"));
	skit__agent_trace(a, SKIT_TRACE_SKILL,
	                  "skill %s: dynamic context: %.160s", d->skill, cmd);
	hooks_wrap(d);
	rc = skit__tools_call(a, "shell", args, &res, &is_error, &e);
	hooks_restore(d);
	json_decref(args);
	free(json);
	if (rc == SKIT_ENOMEM) {
		skitx_buf_release(&res);
		return skit__error_oom(err);
	}
	skit__agent_audit(a, "tool_result",
	                  json_pack("{s:s, s:s, s:b, s:I, s:s?, s:s}", "id", id,
	                            "name", "shell", "ok", !rc && !is_error,
	                            "chars", (json_int_t)skitx_buf_len(&res),
	                            "error",
	                            rc         ? e.message
	                            : is_error ? skitx_buf_cstr(&res)
	                                       : NULL,
	                            "skill", d->skill));
	if (rc) {
		/* Canceled, or a budget of the task ran out: the task ends
		 * at its next step; the activation itself still answers. */
		d->stopped = true;
		rc = note(out, cmd, "not run", e.message);
	} else if (is_error && ran_and_failed(skitx_buf_cstr(&res))) {
		rc = note(out, cmd, "failed", skitx_buf_cstr(&res));
	} else if (is_error) {
		rc = note(out, cmd, "not run", skitx_buf_cstr(&res));
	} else {
		rc = put_output(out, skitx_buf_cstr(&res));
	}
	skitx_buf_release(&res);
	return rc ? skit__error_oom(err) : 0;
}

/* ---- the body -------------------------------------------------------- */

/* The commands of one line outside a fence, and the text between. */
static int render_line(struct dyn *d, const char **seg, const char *p,
                       const char *eol, struct skitx_buf *out, skit_error *err)
{
	struct skitx_buf cmd = SKITX_BUF_INIT;
	const char *q = p, *close;
	int rc = 0;

	while (!rc && q + 2 < eol) {
		if (q[0] != '!' || q[1] != '`' ||
		    (q > p && !may_start(q[-1]))) {
			q++;
			continue;
		}
		close = memchr(q + 2, '`', (size_t)(eol - q - 2));
		if (!close || close == q + 2 ||
		    (size_t)(close - q - 2) > COMMAND_MAX) {
			q++;
			continue;
		}
		rc = d->text(out, *seg, (size_t)(q - *seg), d->payload);
		skitx_buf_clear(&cmd);
		if (!rc)
			rc = d->text(&cmd, q + 2, (size_t)(close - q - 2),
			             d->payload);
		if (rc) {
			rc = skit__error_oom(err);
			break;
		}
		rc = run_command(d, skitx_buf_cstr(&cmd), out, err);
		q = close + 1;
		*seg = q;
	}
	skitx_buf_release(&cmd);
	return rc;
}

int skit__dynamic_render(struct skit_agent *a, const char *skill,
                         const char *body, size_t len, skit__body_text_fn text,
                         void *payload, struct skitx_buf *out, skit_error *err)
{
	struct dyn d = { a, skill, text, payload, 0, false, { 0 } };
	const char *p = body, *end = body + len, *seg = body, *eol;
	bool fenced = false;
	size_t fence_n = 0;
	char fence_ch = 0;
	int rc = 0;

	while (!rc && p < end) {
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		/* An unclosed fence runs to the end (CommonMark): nothing
		 * after it runs. */
		if (fenced)
			fenced = !fence_closes(p, eol, fence_ch, fence_n);
		else if (fence_at(p, eol, &fence_ch, &fence_n) &&
		         !(fence_ch == '`' && info_has_backtick(p, eol)))
			fenced = true;
		else
			rc = render_line(&d, &seg, p, eol, out, err);
		p = eol < end ? eol + 1 : end;
	}
	if (!rc && text(out, seg, (size_t)(end - seg), payload))
		rc = skit__error_oom(err);
	return rc;
}

/* ---- the switch in the config ---------------------------------------- */

int skit_agent_options_load_config(skit_agent_options *opts, const char *path,
                                   bool trusted, skit_error *err)
{
	json_t *root, *v;
	int rc;

	assert(opts && path);
	rc = skit__config_read(&root, path, trusted, err);
	if (rc < 0)
		return rc;
	if (!json_is_object(root)) {
		json_decref(root);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: expected a JSON object", path);
	}
	/* Each a switch a project's file may turn off, never on. */
	for (int i = 0; !rc && i < 2; i++) {
		const char *key =
		        i ? "project_instructions" : "dynamic_context";
		bool *field = i ? &opts->project_instructions
		                : &opts->dynamic_context;

		v = json_object_get(root, key);
		if (!v)
			continue;
		if (!json_is_boolean(v))
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: %s: expected true or false",
			                     path, key);
		else if (trusted || !json_is_true(v))
			*field = json_is_true(v);
	}
	/* The window and when to compact (options of version 5): settings
	 * of the model, which any config file may give. */
	for (int i = 0; !rc && opts->version >= 5 && i < 2; i++) {
		const char *key = i ? "compact_percent" : "context_window";
		json_int_t lo = i ? 10 : 1024, hi = i ? 95 : 100000000;

		v = json_object_get(root, key);
		if (!v)
			continue;
		if (!json_is_integer(v) || json_integer_value(v) < lo ||
		    json_integer_value(v) > hi)
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: %s: expected a whole number "
			                     "from %lld to %lld",
			                     path, key, (long long)lo,
			                     (long long)hi);
		else if (i)
			opts->compact_percent =
			        (unsigned int)json_integer_value(v);
		else
			opts->context_window = (uint64_t)json_integer_value(v);
	}
	/* When external tools are deferred (options of version 6): it
	 * hides definitions, it grants nothing, so any file may say. */
	v = json_object_get(root, "tool_search");
	if (!rc && opts->version >= 6 && v) {
		static const char *const modes[] = { "auto", "always",
			                             "never" };
		int m = -1;

		for (int i = 0; json_is_string(v) && i < 3; i++)
			if (!strcmp(json_string_value(v), modes[i]))
				m = i;
		if (m < 0)
			rc = skit__error_set(
			        err, SKIT_EINVALID, 0,
			        "%s: tool_search: expected \"auto\", "
			        "\"always\" or \"never\"",
			        path);
		else
			opts->tool_search = (skit_tool_search_mode)m;
	}
	json_decref(root);
	return rc;
}
