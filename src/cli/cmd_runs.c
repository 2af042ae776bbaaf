/* SPDX-License-Identifier: MIT */
/*
 * cmd_runs.c - `skit runs [list|show ID]`: the audit trail of agent runs
 * (see docs/audit.md).
 *
 * `list` prints one line a run, newest first; `show` prints a run's
 * summary and one line per event with the facts that matter for its type.
 * Everything read from a run folder is untrusted: text goes to the
 * terminal through cli_put_text(), which neutralises control characters.
 * Also home of cli_default_runs_dir(), shared with `skit run`.
 */
#include "common.h"

#include <fcntl.h>
#include <getopt.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "cli/cmd.h"
#include "cli/error.h"
#include "cli/roots.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

#define MAX_MODEL_COL 30
#define MAX_RUN_JSON  (1024 * 1024)
#define TYPE_COL      16

enum {
	OPT_RUNS_DIR = 0x2000,
};

static void help_runs(void)
{
	printf("usage: skit runs [list] [options]\n"
	       "       skit runs show ID [options]\n\n"
	       "List and show agent runs: the audit trail each 'skit run' "
	       "writes under\n<project>/.agents/runs (SKIT_RUNS_DIR "
	       "overrides it).\n\n"
	       "Commands:\n"
	       "  list                one line a run, newest first (the "
	       "default)\n"
	       "  show ID             a run's summary and its events; ID is "
	       "the folder name,\n"
	       "                      its 8-hex part, a unique prefix, or "
	       "'last'\n"
	       "  prune               remove old runs (--older-than D, "
	       "--keep N)\n\n"
	       "Run 'skit runs list --help', 'skit runs show --help' or "
	       "'skit runs prune --help'\nfor their options.\n");
}

static void help_list(void)
{
	printf("usage: skit runs list [options]\n\n"
	       "List agent runs, newest first: id, start time (UTC), status, "
	       "turns,\ntokens in/out, model and task.\n\n"
	       "Options:\n"
	       "  --json              print a JSON array of runs\n"
	       "  -n N                only the N newest runs\n"
	       "  --runs-dir DIR      read runs from DIR (default: "
	       "<project>/.agents/runs,\n"
	       "                      or $SKIT_RUNS_DIR)\n"
	       "  -h, --help          show this help\n\n"
	       "Status: ok, error, limit, canceled (from run.json); running "
	       "(the writer is\nalive); incomplete (no run.json: the run "
	       "was killed); invalid.\n");
}

static void help_show(void)
{
	printf("usage: skit runs show ID [options]\n\n"
	       "Show one run: its summary, then one line per event. ID is the "
	       "run folder's\nname, its 8-hex part, a unique prefix of the "
	       "name, or 'last'.\n\n"
	       "Options:\n"
	       "  --json              print {\"run\": run.json (or what is "
	       "known), \"events\": [...],\n"
	       "                      \"torn_lines\": N}\n"
	       "  --runs-dir DIR      read runs from DIR (default: "
	       "<project>/.agents/runs,\n"
	       "                      or $SKIT_RUNS_DIR)\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 ok, 1 on failure, 2 usage, no such run, an "
	       "ambiguous ID or\na --runs-dir that does not exist.\n");
}

int cli_default_runs_dir(char **out)
{
	return cli_project_runs_dir(out, NULL);
}

int cli_project_runs_dir(char **out, const char *project)
{
	skit_roots_options opts = SKIT_ROOTS_OPTIONS_INIT;
	const char *env = getenv("SKIT_RUNS_DIR"), *proj = NULL;
	skit_registry *reg = NULL;
	char *base;

	*out = NULL;
	if (env && *env) {
		*out = skitx_strdup(env);
		return *out ? 0 : SKIT_ENOMEM;
	}
	opts.no_config = true;
	if (project)
		proj = project;
	else if (skit_registry_new(&reg, NULL) == 0 &&
	         skit_registry_add_default_roots(reg, &opts, NULL) == 0)
		proj = skit_registry_project_dir(reg);
	base = proj ? skitx_strdup(proj) : skitx_path_absolute(".");
	skit_registry_free(reg);
	if (!base)
		return SKIT_ENOMEM;
	*out = skitx_path_join(base, ".agents/runs");
	skitx_free(base);
	return *out ? 0 : SKIT_ENOMEM;
}

/* ---- JSON helpers ------------------------------------------------------ */

/* A JSON string for any bytes (invalid UTF-8 becomes U+FFFD); NULL: null. */
static json_t *jstr(const char *s)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t len, bad;
	json_t *j;

	if (!s)
		return json_null();
	len = strlen(s);
	if (!skitx_utf8_check(s, len, NULL))
		return json_string(s);
	while (len) {
		if (!skitx_utf8_check(s, len, &bad))
			bad = len;
		if (skitx_buf_add(&b, s, bad) < 0)
			break;
		if (bad < len && skitx_buf_puts(&b, "\xEF\xBF\xBD") < 0)
			break;
		if (bad < len)
			bad++;
		s += bad;
		len -= bad;
	}
	j = len ? NULL : json_stringn(b.ptr, b.len);
	skitx_buf_release(&b);
	return j;
}

/* What the header of the run's session.jsonl says: the session it
 * continues and the first line of that session (docs/agent.md,
 * "Sessions"). Both NULL when the run has no session file or it is not
 * a resumed one. Owned by the caller. */
static void session_head(const skit_run_info *r, char **title, char **from)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *path = r->dir ? skitx_path_join(r->dir, "session.jsonl") : NULL;
	const char *text, *nl;
	json_t *h = NULL;
	int fd = -1;

	*title = *from = NULL;
	if (path)
		fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	skitx_free(path);
	if (fd < 0)
		return;
	/* The header is the first line; 64 KiB hold it. */
	(void)skitx_fs_read_fd(fd, &b, 64 * 1024); /* what fits */
	close(fd);
	text = skitx_buf_cstr(&b);
	nl = memchr(text, '\n', skitx_buf_len(&b));
	if (nl)
		h = json_loadb(text, (size_t)(nl - text), 0, NULL);
	if (h && json_is_string(json_object_get(h, "resumed_from"))) {
		*from = skitx_strdup(
		        json_string_value(json_object_get(h, "resumed_from")));
		if (json_is_string(json_object_get(h, "title")))
			*title = skitx_strdup(
			        json_string_value(json_object_get(h, "title")));
	}
	json_decref(h);
	skitx_buf_release(&b);
}

static json_t *info_json(const skit_run_info *r)
{
	char *title, *from;
	json_t *o = json_object();

	if (!o)
		return NULL;
	if (json_object_set_new(o, "id", jstr(r->id)) ||
	    json_object_set_new(o, "dir", jstr(r->dir)) ||
	    json_object_set_new(o, "started", jstr(r->started)) ||
	    json_object_set_new(o, "ended", jstr(r->ended)) ||
	    json_object_set_new(o, "status", jstr(r->status)) ||
	    json_object_set_new(o, "task", jstr(r->task)) ||
	    json_object_set_new(o, "model", jstr(r->model)) ||
	    json_object_set_new(o, "turns",
	                        json_integer((json_int_t)r->turns)) ||
	    json_object_set_new(o, "tool_calls",
	                        json_integer((json_int_t)r->tool_calls)) ||
	    json_object_set_new(o, "input_tokens",
	                        json_integer((json_int_t)r->input_tokens)) ||
	    json_object_set_new(o, "output_tokens",
	                        json_integer((json_int_t)r->output_tokens)) ||
	    json_object_set_new(o, "events",
	                        json_integer((json_int_t)r->events))) {
		json_decref(o);
		return NULL;
	}
	session_head(r, &title, &from);
	if (from && json_object_set_new(o, "session",
	                                json_pack("{s:s, s:s?}", "resumed_from",
	                                          from, "first_line", title))) {
		json_decref(o);
		o = NULL;
	}
	skitx_free(title);
	skitx_free(from);
	return o;
}

/* Print `j` (stolen) indented, with a final newline. */
static int put_json(json_t *j, const char *verb)
{
	int rc;

	if (!j) {
		cli_error(verb, "out of memory");
		return CLI_FAIL;
	}
	rc = json_dumpf(j, stdout, JSON_INDENT(2));
	json_decref(j);
	fputc('\n', stdout);
	return rc ? CLI_FAIL : CLI_OK;
}

static const char *get_s(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* ---- options ----------------------------------------------------------- */

struct runs_opts {
	bool json;
	const char *runs_dir;
	unsigned long limit;
	const char *id;
};

/*
 * A --runs-dir that does not exist is a mistyped path (exit 2, as a
 * missing --root is); the default folder not existing yet just means no
 * runs so far.
 */
static int check_runs_dir(const char *dir, const char *verb)
{
	struct stat st;

	if (dir && stat(dir, &st) < 0 && errno == ENOENT) {
		cli_error(verb, "--runs-dir %s: No such file or directory",
		          dir);
		return CLI_USAGE;
	}
	return CLI_OK;
}

/* Parse the options of `runs list` (show = false) or `runs show`. */
static int parse(struct runs_opts *o, int argc, char **argv, bool show,
                 const char *verb)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "runs-dir", required_argument, NULL, OPT_RUNS_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, show ? ":h" : ":hn:", longopts,
	                        NULL)) != -1) {
		switch (c) {
		case 'j':
			o->json = true;
			break;
		case OPT_RUNS_DIR:
			if (!*optarg)
				return cli_usage_error(
				        verb, "--runs-dir needs a folder");
			o->runs_dir = optarg;
			break;
		case 'n':
			errno = 0;
			o->limit = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-' ||
			    !o->limit)
				return cli_usage_error(verb,
				                       "-n needs a positive "
				                       "number, not '%s'",
				                       optarg);
			break;
		case 'h':
			if (show)
				help_show();
			else
				help_list();
			return -1;
		default:
			return cli_unknown_option(verb, c, argc, argv,
			                          longopts);
		}
	}
	if (show) {
		if (optind >= argc)
			return cli_usage_error(verb, "which run? (an ID, or "
			                             "'last')");
		o->id = argv[optind++];
	}
	if (optind < argc)
		return cli_usage_error(verb, "unexpected argument '%s'",
		                       argv[optind]);
	return check_runs_dir(o->runs_dir, verb);
}

/* The runs folder from the options or the default; NULL after an error. */
static char *runs_dir(const struct runs_opts *o, const char *verb)
{
	char *dir = NULL;

	if (o->runs_dir)
		dir = skitx_strdup(o->runs_dir);
	else
		cli_default_runs_dir(&dir);
	if (!dir)
		cli_error(verb, "out of memory");
	return dir;
}

/* ---- list -------------------------------------------------------------- */

/* "2026-11-21T14:30:05.123Z" -> "2026-11-21 14:30:05"; else `s` as is. */
static const char *short_time(const char *s, char buf[32])
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";

	if (!s)
		return "-";
	for (size_t i = 0; shape[i]; i++) {
		if (shape[i] == 'd' ? (s[i] < '0' || s[i] > '9')
		                    : s[i] != shape[i])
			return s;
	}
	memcpy(buf, s, 19);
	buf[10] = ' ';
	buf[19] = '\0';
	return buf;
}

static const char *status_color(const struct cli_style *st, const char *s)
{
	if (!strcmp(s, "ok"))
		return st->green;
	if (!strcmp(s, "error") || !strcmp(s, "invalid"))
		return st->red;
	if (!strcmp(s, "running"))
		return st->cyan;
	return st->yellow;
}

static void pad(FILE *f, size_t used, size_t col)
{
	for (; used < col; used++)
		fputc(' ', f);
}

struct list_cols {
	size_t status, turns, tokens, model, width;
};

static void list_line(FILE *f, const skit_run_info *r,
                      const struct list_cols *c, const struct cli_style *st)
{
	char tbuf[32], tok[64], turns[32], *title, *from;
	size_t used, w, rest = 0;

	fputs(st->bold, f);
	cli_put_text(f, r->id, true, 0);
	fputs(st->reset, f);
	fputs("  ", f);
	fputs(short_time(r->started, tbuf), f);
	fputs("  ", f);
	fputs(status_color(st, r->status), f);
	cli_put_text(f, r->status, true, 0);
	fputs(st->reset, f);
	pad(f, cli_text_width(r->status), c->status);
	snprintf(turns, sizeof(turns), "%lu", r->turns);
	snprintf(tok, sizeof(tok), "%llu/%llu", r->input_tokens,
	         r->output_tokens);
	fprintf(f, "  %*s  %*s  ", (int)c->turns, turns, (int)c->tokens, tok);
	w = r->model ? cli_text_width(r->model) : 1;
	fputs(st->cyan, f);
	cli_put_text(f, r->model ? r->model : "-", true, c->model);
	fputs(st->reset, f);
	pad(f, w, c->model);
	fputs("  ", f);
	used = strlen(r->id) + 2 + 19 + 2 + c->status + 2 + c->turns + 2 +
	       c->tokens + 2 + c->model + 2;
	if (c->width)
		rest = c->width > used + 10 ? c->width - used : 10;
	session_head(r, &title, &from);
	if (from) {
		/* A resumed session: its first line, then this run's. */
		cli_put_text(f, title ? title : "-", true, rest);
		fputs(" (continued: ", f);
		cli_put_text(f, r->task ? r->task : "-", true,
		             rest > 40 ? rest / 2 : rest);
		fputc(')', f);
	} else {
		cli_put_text(f, r->task ? r->task : "-", true, rest);
	}
	skitx_free(title);
	skitx_free(from);
	fputc('\n', f);
}

static int runs_list(int argc, char **argv)
{
	const char *verb = "runs list";
	struct runs_opts o = { false, NULL, 0, NULL };
	struct list_cols cols = { 6, 5, 6, 5, 0 };
	skit_run_info *runs = NULL;
	skit_error err = { 0 };
	struct cli_style st;
	size_t n = 0, total = 0;
	char *dir;
	int status;

	status = parse(&o, argc, argv, false, verb);
	if (status)
		return status < 0 ? CLI_OK : status;
	dir = runs_dir(&o, verb);
	if (!dir)
		return CLI_FAIL;
	if (skit_runs_list(&runs, &n, dir, &err) < 0) {
		cli_error(verb, "%s", err.message);
		status = CLI_FAIL;
		goto out;
	}
	total = n;
	if (o.limit && n > o.limit)
		n = o.limit;
	if (!n)
		fprintf(stderr, "No runs in %s\n", dir);

	if (o.json) {
		json_t *arr = json_array();

		for (size_t i = 0; arr && i < n; i++)
			if (json_array_append_new(arr, info_json(&runs[i]))) {
				json_decref(arr);
				arr = NULL;
			}
		status = put_json(arr, verb);
		goto out;
	}
	if (!n)
		goto out;

	for (size_t i = 0; i < n; i++) {
		char tok[64];
		size_t w = cli_text_width(runs[i].status);

		if (w > cols.status)
			cols.status = w;
		w = (size_t)snprintf(tok, sizeof(tok), "%lu", runs[i].turns);
		if (w > cols.turns)
			cols.turns = w;
		w = (size_t)snprintf(tok, sizeof(tok), "%llu/%llu",
		                     runs[i].input_tokens,
		                     runs[i].output_tokens);
		if (w > cols.tokens)
			cols.tokens = w;
		w = runs[i].model ? cli_text_width(runs[i].model) : 1;
		if (w > cols.model)
			cols.model = w > MAX_MODEL_COL ? MAX_MODEL_COL : w;
	}
	cols.width = (size_t)cli_term_width();
	cli_style_init(&st, cli_color(stdout));
	printf("%s%-25s  %-19s  %-*s  %*s  %*s  %-*s  TASK%s\n", st.dim, "ID",
	       "STARTED (UTC)", (int)cols.status, "STATUS", (int)cols.turns,
	       "TURNS", (int)cols.tokens, "TOKENS", (int)cols.model, "MODEL",
	       st.reset);
	for (size_t i = 0; i < n; i++)
		list_line(stdout, &runs[i], &cols, &st);
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error(verb, "cannot write the output");
		status = CLI_FAIL;
	}
	skit_runs_free(runs, runs ? total : 0); /* all, not the -n shown */
	skitx_free(dir);
	return status;
}

/* ---- show -------------------------------------------------------------- */

struct show {
	FILE *f;
	const struct cli_style *st;
	size_t width;
	json_t *events; /* --json: the parsed events */
	struct skitx_buf line;
};

/*
 * Append a fact when the event has it: add_s() for a string member,
 * add_i() for an integer one. Macros, so the formats stay literals.
 */
#define add_s(b, fmt, s)         \
 do {                            \
  const char *s_ = (s);          \
  if (s_)                        \
   skitx_buf_printf(b, fmt, s_); \
 } while (0)

#define add_i(b, fmt, v)                                        \
 do {                                                           \
  json_t *v_ = (v);                                             \
  if (json_is_integer(v_))                                      \
   skitx_buf_printf(b, fmt, (long long)json_integer_value(v_)); \
 } while (0)

static int dump_sink(const char *buffer, size_t size, void *data)
{
	return skitx_buf_add(data, buffer, size) < 0 ? -1 : 0;
}

/* Compact JSON of `v` (strings without their quotes), if present. */
static void add_j(struct skitx_buf *b, const char *prefix, json_t *v)
{
	if (!v || json_is_null(v) ||
	    (json_is_string(v) && !json_string_length(v)))
		return;
	skitx_buf_puts(b, prefix);
	if (json_is_string(v))
		skitx_buf_puts(b, json_string_value(v));
	else
		json_dump_callback(v, dump_sink, b,
		                   JSON_COMPACT | JSON_ENCODE_ANY);
}

static bool is_true(json_t *o, const char *key)
{
	return json_is_true(json_object_get(o, key));
}

/* The key facts of one event, by type, as one line of text in `b`. */
static void event_facts(struct skitx_buf *b, const char *type, json_t *ev)
{
	json_t *usage = json_object_get(ev, "usage");

	if (!strcmp(type, "run_start")) {
		add_s(b, "model %s", get_s(ev, "model"));
		add_s(b, " (%s)", get_s(ev, "provider"));
		add_i(b, ", %lld skills indexed",
		      json_object_get(ev, "skills_indexed"));
		add_i(b, " (%lld chars", json_object_get(ev, "index_chars"));
		if (json_is_integer(json_object_get(ev, "index_chars")))
			skitx_buf_puts(b, is_true(ev, "index_cut") ? ", cut)"
			                                           : ")");
		add_s(b, ", task: %s", get_s(ev, "task"));
	} else if (!strcmp(type, "model_request")) {
		add_i(b, "turn %lld", json_object_get(ev, "turn"));
		add_i(b, ", %lld messages", json_object_get(ev, "messages"));
		add_i(b, ", %lld tools", json_object_get(ev, "tools"));
		add_i(b, ", %lld chars", json_object_get(ev, "chars"));
	} else if (!strcmp(type, "model_response")) {
		add_i(b, "turn %lld", json_object_get(ev, "turn"));
		add_s(b, ": %s", get_s(ev, "stop_reason"));
		add_i(b, ", %lld tool calls",
		      json_object_get(ev, "tool_calls"));
		add_i(b, ", %lld chars", json_object_get(ev, "text_chars"));
		add_i(b, ", tokens %lld",
		      json_object_get(usage, "input_tokens"));
		add_i(b, "/%lld", json_object_get(usage, "output_tokens"));
	} else if (!strcmp(type, "skill_activated")) {
		add_s(b, "%s", get_s(ev, "skill"));
		add_s(b, " by %s", get_s(ev, "trigger"));
		add_s(b, " (%s)", get_s(ev, "source"));
		add_j(b, ", arguments: ", json_object_get(ev, "arguments"));
	} else if (!strcmp(type, "resource_read")) {
		add_s(b, "%s", get_s(ev, "skill"));
		add_s(b, " %s", get_s(ev, "path"));
		add_i(b, ": %lld bytes", json_object_get(ev, "bytes"));
		add_i(b, " at offset %lld", json_object_get(ev, "offset"));
		if (is_true(ev, "truncated"))
			skitx_buf_puts(b, " (truncated)");
	} else if (!strcmp(type, "script_run")) {
		add_s(b, "%s", get_s(ev, "skill"));
		add_s(b, " %s", get_s(ev, "path"));
		add_j(b, " ", json_object_get(ev, "args"));
		if (is_true(ev, "timed_out"))
			skitx_buf_puts(b, ": timed out");
		else if (json_is_integer(json_object_get(ev, "signal")) &&
		         json_integer_value(json_object_get(ev, "signal")))
			add_i(b, ": signal %lld",
			      json_object_get(ev, "signal"));
		else
			add_i(b, ": exit %lld",
			      json_object_get(ev, "exit_code"));
		add_i(b, ", %lld ms", json_object_get(ev, "duration_ms"));
		add_i(b, ", stdout %lld B",
		      json_object_get(ev, "stdout_bytes"));
		add_i(b, ", stderr %lld B",
		      json_object_get(ev, "stderr_bytes"));
		if (is_true(ev, "truncated"))
			skitx_buf_puts(b, " (truncated)");
	} else if (!strcmp(type, "tool_call")) {
		add_s(b, "%s", get_s(ev, "name"));
		add_s(b, " [%s]", get_s(ev, "id"));
		add_j(b, " ", json_object_get(ev, "arguments"));
	} else if (!strcmp(type, "tool_result")) {
		add_s(b, "%s", get_s(ev, "name"));
		if (json_is_boolean(json_object_get(ev, "ok")))
			skitx_buf_puts(b,
			               is_true(ev, "ok") ? " ok" : " failed");
		add_i(b, ", %lld chars", json_object_get(ev, "chars"));
		add_j(b, ": ", json_object_get(ev, "error"));
	} else if (!strcmp(type, "plan_updated")) {
		json_t *steps = json_object_get(ev, "steps"), *s;
		size_t i;

		skitx_buf_printf(b, "%zu steps", json_array_size(steps));
		json_array_foreach(steps, i, s)
		{
			skitx_buf_puts(b, i ? "; " : ": ");
			add_s(b, "[%s] ", get_s(s, "status"));
			add_s(b, "%s", get_s(s, "step"));
		}
	} else if (!strcmp(type, "approval")) {
		add_s(b, "%s", get_s(ev, "tool"));
		add_s(b, " (%s)", get_s(ev, "skill"));
		add_s(b, ": %s", get_s(ev, "decision"));
		add_s(b, " by %s", get_s(ev, "by"));
		add_j(b, ", arguments: ", json_object_get(ev, "arguments"));
	} else if (!strcmp(type, "error")) {
		add_j(b, "", json_object_get(ev, "code"));
		add_s(b, ": %s", get_s(ev, "message"));
	} else if (!strcmp(type, "run_end")) {
		add_s(b, "%s", get_s(ev, "status"));
		add_i(b, ", %lld turns", json_object_get(ev, "turns"));
		add_j(b, ", error: ", json_object_get(ev, "error"));
	} else {
		/* an unknown type: its members, compact */
		const char *key;
		json_t *v;
		bool first = true;

		json_object_foreach(ev, key, v)
		{
			if (!strcmp(key, "seq") || !strcmp(key, "ts") ||
			    !strcmp(key, "type"))
				continue;
			skitx_buf_printf(b, "%s%s=", first ? "" : " ", key);
			add_j(b, "", v);
			first = false;
		}
	}
	if (json_object_get(ev, "withheld"))
		add_s(b, " [withheld: %s]", get_s(ev, "withheld"));
}

static int show_event(const char *text, size_t len, void *payload)
{
	struct show *s = payload;
	json_t *ev = json_loadb(text, len, 0, NULL);
	const char *type, *ts;
	size_t used = 14 + TYPE_COL + 1, rest = 0;

	if (!ev)
		return SKIT_ENOMEM; /* the library checked it parses */
	if (s->events)
		return json_array_append_new(s->events, ev) ? SKIT_ENOMEM : 0;
	type = get_s(ev, "type");
	ts = get_s(ev, "ts");
	if (!type)
		type = "?";
	/* the time of day: "2026-11-21T14:30:05.123Z" -> "14:30:05.123" */
	if (ts && strlen(ts) >= 23 && ts[10] == 'T')
		fprintf(s->f, "%s%.12s%s  ", s->st->dim, ts + 11, s->st->reset);
	else
		fputs("              ", s->f);
	fputs(!strcmp(type, "error") ? s->st->red : s->st->bold, s->f);
	cli_put_text(s->f, type, true, 0);
	fputs(s->st->reset, s->f);
	pad(s->f, cli_text_width(type), TYPE_COL);
	fputc(' ', s->f);
	skitx_buf_clear(&s->line);
	event_facts(&s->line, type, ev);
	if (s->width)
		rest = s->width > used + 10 ? s->width - used : 10;
	cli_put_text(s->f, s->line.ptr, true, rest);
	fputc('\n', s->f);
	json_decref(ev);
	return 0;
}

static void field(FILE *f, const struct cli_style *st, const char *label,
                  const char *value)
{
	fprintf(f, "%s%-9s%s ", st->bold, label, st->reset);
	cli_put_text(f, value ? value : "-", true, 0);
	fputc('\n', f);
}

static void show_header(FILE *f, const skit_run_info *r,
                        const struct cli_style *st)
{
	char buf[64], *title, *from;

	field(f, st, "Run", r->id);
	field(f, st, "Folder", r->dir);
	fprintf(f, "%s%-9s%s %s", st->bold, "Status", st->reset,
	        status_color(st, r->status));
	cli_put_text(f, r->status, true, 0);
	fprintf(f, "%s\n", st->reset);
	field(f, st, "Model", r->model);
	field(f, st, "Task", r->task);
	session_head(r, &title, &from);
	if (from) {
		field(f, st, "Continues", from);
		field(f, st, "Session", title);
	}
	skitx_free(title);
	skitx_free(from);
	snprintf(buf, sizeof(buf), "%lu (%lu tool calls)", r->turns,
	         r->tool_calls);
	field(f, st, "Turns", buf);
	snprintf(buf, sizeof(buf), "%llu in, %llu out", r->input_tokens,
	         r->output_tokens);
	field(f, st, "Tokens", buf);
	field(f, st, "Started", r->started);
	field(f, st, "Ended", r->ended);
	fputc('\n', f);
}

/* run.json as JSON, or the info record when it is missing or unusable. */
static json_t *run_json(const skit_run_info *r)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	char *path = skitx_path_join(r->dir, "run.json");
	json_t *j = NULL;

	if (path && skitx_fs_read_file(path, &text, MAX_RUN_JSON) == 0)
		j = json_loadb(text.ptr, text.len, 0, NULL);
	if (j && !json_is_object(j)) {
		json_decref(j);
		j = NULL;
	}
	skitx_free(path);
	skitx_buf_release(&text);
	return j ? j : info_json(r);
}

static int runs_show(int argc, char **argv)
{
	const char *verb = "runs show";
	struct runs_opts o = { false, NULL, 0, NULL };
	skit_run_info *run = NULL;
	skit_error err = { 0 };
	struct cli_style st;
	struct show s;
	size_t torn = 0;
	char *dir;
	int status, rc;

	status = parse(&o, argc, argv, true, verb);
	if (status)
		return status < 0 ? CLI_OK : status;
	dir = runs_dir(&o, verb);
	if (!dir)
		return CLI_FAIL;
	memset(&s, 0, sizeof(s));
	skitx_buf_init(&s.line, 0);
	if (skit_run_find(&run, dir, o.id, &err) < 0) {
		cli_error(verb, "%s", err.message);
		/* an unknown or ambiguous ID is wrong input, not a failure */
		status = err.code == SKIT_ENOTFOUND || err.code == SKIT_EINVALID
		                 ? CLI_USAGE
		                 : CLI_FAIL;
		goto out;
	}
	cli_style_init(&st, cli_color(stdout) && !o.json);
	s.f = stdout;
	s.st = &st;
	s.width = (size_t)cli_term_width();
	if (o.json) {
		s.events = json_array();
		if (!s.events) {
			cli_error(verb, "out of memory");
			status = CLI_FAIL;
			goto out;
		}
	} else {
		show_header(stdout, run, &st);
	}
	rc = skit_run_foreach_event(run->dir, show_event, &s, &torn, &err);
	if (rc == SKIT_ENOTFOUND) {
		rc = 0; /* a run folder without events: nothing to show */
	} else if (rc < 0) {
		cli_error(verb, "%s",
		          rc == SKIT_ENOMEM ? "out of memory" : err.message);
		status = CLI_FAIL;
		goto out;
	}
	if (o.json) {
		json_t *root = json_object();

		if (root &&
		    (json_object_set_new(root, "run", run_json(run)) ||
		     json_object_set_new(root, "events", s.events) ||
		     json_object_set_new(root, "torn_lines",
		                         json_integer((json_int_t)torn)))) {
			json_decref(root);
			root = NULL;
		}
		s.events = NULL;
		status = put_json(root, verb);
	} else if (torn) {
		printf("%s%zu torn line(s) skipped%s\n", st.yellow, torn,
		       st.reset);
	}
out:
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_error(verb, "cannot write the output");
		status = CLI_FAIL;
	}
	json_decref(s.events);
	skitx_buf_release(&s.line);
	skit_runs_free(run, run ? 1 : 0);
	skitx_free(dir);
	return status;
}

/* ---- prune ------------------------------------------------------------- */

static void help_prune(void)
{
	printf("usage: skit runs prune [--older-than D] [--keep N] "
	       "[options]\n\n"
	       "Remove old runs from the audit trail. With --older-than, runs "
	       "started more\nthan D ago go; with --keep, all but the N "
	       "newest go; with both, a run goes\nwhen it is older than D "
	       "and not among the N newest. A run still being\nwritten is "
	       "never removed.\n\n"
	       "Options:\n"
	       "  --older-than D      an age: N followed by s, m, h, d or w "
	       "(e.g. 30d, 12h)\n"
	       "  --keep N            keep the N newest runs\n"
	       "  --dry-run           only say which runs would go\n"
	       "  --json              print {\"removed\": [ids], \"kept\": N, "
	       "\"dry_run\": bool}\n"
	       "  --runs-dir DIR      prune DIR (default: "
	       "<project>/.agents/runs,\n"
	       "                      or $SKIT_RUNS_DIR)\n"
	       "  -h, --help          show this help\n\n"
	       "Exit status: 0 ok, 1 a run could not be removed, 2 usage.\n");
}

/* "30d" -> seconds; -1 when it is not an age. */
static long long parse_age(const char *s)
{
	static const struct {
		char unit;
		long long secs;
	} units[] = { { 's', 1 },
		      { 'm', 60 },
		      { 'h', 3600 },
		      { 'd', 86400 },
		      { 'w', 604800 } };
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > 1000000000ULL || !end[0] || end[1])
		return -1;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(units); i++)
		if (*end == units[i].unit)
			return (long long)v * units[i].secs;
	return -1;
}

/* When run `id` ("yyyymmddThhmmssZ-...") started, or -1. */
static long long run_started(const char *id)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (sscanf(id, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon,
	           &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return -1;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (long long)timegm(&tm);
}

static int runs_prune(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "older-than", required_argument, NULL, 'o' },
		{ "keep", required_argument, NULL, 'k' },
		{ "dry-run", no_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "runs-dir", required_argument, NULL, OPT_RUNS_DIR },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *verb = "runs prune", *dir_opt = NULL;
	long long age = -1, cutoff = 0;
	unsigned long keep = 0;
	bool have_keep = false, dry = false, json = false;
	skit_run_info *runs = NULL;
	skit_error err = { 0 };
	json_t *removed = NULL;
	size_t n = 0, gone = 0;
	char *dir = NULL, *end;
	int c, status = CLI_OK;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			age = parse_age(optarg);
			if (age < 0)
				return cli_usage_error(
				        verb,
				        "--older-than needs an age such as "
				        "30d or 12h, not '%s'",
				        optarg);
			break;
		case 'k':
			errno = 0;
			keep = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg < '0' ||
			    *optarg > '9')
				return cli_usage_error(verb,
				                       "--keep needs a number, "
				                       "not '%s'",
				                       optarg);
			have_keep = true;
			break;
		case 'd':
			dry = true;
			break;
		case 'j':
			json = true;
			break;
		case OPT_RUNS_DIR:
			if (!*optarg)
				return cli_usage_error(
				        verb, "--runs-dir needs a folder");
			dir_opt = optarg;
			break;
		case 'h':
			help_prune();
			return CLI_OK;
		default:
			return cli_unknown_option(verb, c, argc, argv,
			                          longopts);
		}
	}
	if (optind < argc)
		return cli_usage_error(verb, "unexpected argument '%s'",
		                       argv[optind]);
	if (age < 0 && !have_keep)
		return cli_usage_error(verb, "which runs? give --older-than D, "
		                             "--keep N or both");
	if (check_runs_dir(dir_opt, verb) != CLI_OK)
		return CLI_USAGE;
	if (dir_opt)
		dir = skitx_strdup(dir_opt);
	else
		cli_default_runs_dir(&dir);
	if (!dir) {
		cli_error(verb, "out of memory");
		return CLI_FAIL;
	}
	if (skit_runs_list(&runs, &n, dir, &err) < 0) {
		cli_error(verb, "%s", err.message);
		status = CLI_FAIL;
		goto out;
	}
	if (age >= 0)
		cutoff = (long long)time(NULL) - age;
	removed = json_array();
	if (!removed) {
		cli_error(verb, "out of memory");
		status = CLI_FAIL;
		goto out;
	}
	/* newest first: the first `keep` stay */
	for (size_t i = 0; i < n; i++) {
		long long started = run_started(runs[i].id);

		if (have_keep && i < keep)
			continue;
		if (!strcmp(runs[i].status, "running"))
			continue;
		if (age >= 0 && (started < 0 || started > cutoff))
			continue;
		if (!dry && skit_run_remove(dir, runs[i].id, &err) < 0) {
			cli_error(verb, "%s", err.message);
			status = CLI_FAIL;
			continue;
		}
		gone++;
		json_array_append_new(removed, json_string(runs[i].id));
		if (!json) {
			fputs(dry ? "would remove " : "removed ", stdout);
			cli_put_text(stdout, runs[i].id, true, 0);
			fputc('\n', stdout);
		}
	}
	if (json) {
		json_t *o =
		        json_pack("{s:O, s:I, s:b}", "removed", removed, "kept",
		                  (json_int_t)(n - gone), "dry_run", dry);
		int rc = put_json(o, verb);

		if (rc)
			status = rc;
	} else {
		printf("%s %zu run%s, kept %zu\n",
		       dry ? "Would remove" : "Removed", gone,
		       gone == 1 ? "" : "s", n - gone);
	}
out:
	json_decref(removed);
	skit_runs_free(runs, n);
	skitx_free(dir);
	return status;
}

int cmd_runs(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;

	if (!sub ||
	    (sub[0] == '-' && strcmp(sub, "-h") && strcmp(sub, "--help")))
		return runs_list(argc, argv); /* `skit runs [--json]...` */
	if (!strcmp(sub, "-h") || !strcmp(sub, "--help") ||
	    !strcmp(sub, "help")) {
		help_runs();
		return CLI_OK;
	}
	if (!strcmp(sub, "list"))
		return runs_list(argc - 1, argv + 1);
	if (!strcmp(sub, "show"))
		return runs_show(argc - 1, argv + 1);
	if (!strcmp(sub, "prune"))
		return runs_prune(argc - 1, argv + 1);
	return cli_usage_error(
	        "runs", "unknown subcommand '%s' (list, show, prune)", sub);
}
