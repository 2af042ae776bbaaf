/* SPDX-License-Identifier: MIT */
/*
 * agent_opts.c - the options, set-up and output that `skit run` and
 * `skit chat` share (see agent_opts.h).
 */
#include "common.h"

#include <getopt.h>
#include <unistd.h>

#include "cli/agent_opts.h"
#include "cli/error.h"
#include "skit/mcp_client.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"

volatile sig_atomic_t cli_interrupted;

_Static_assert(sizeof(sig_atomic_t) == sizeof(int),
               "the agent polls the SIGINT flag as an int");

static int parse_count(unsigned long long *out, const char *arg,
                       unsigned long long max)
{
	char *end;
	unsigned long long v;

	if (!arg || *arg < '0' || *arg > '9')
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v == 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

int cli_agent_option(struct cli_agent *ca, int c, const char *arg,
                     const char *verb)
{
	unsigned long long v = 0;
	skit_error err = { 0 };
	int r;

	r = cli_roots_option(&ca->roots, c, arg, verb);
	if (r)
		return r;
	switch (c) {
	case CLI_OPT_MODEL:
		ca->model = arg;
		return 1;
	case CLI_OPT_CONTINUE:
		ca->resume = "last";
		return 1;
	case CLI_OPT_RESUME:
		/* `--resume ID` as well as `--resume=ID`: the next word is
		 * the id when it looks like one (or is "last"). */
		if (!arg && optind < ca->argc && ca->argv[optind] &&
		    cli_session_id_like(ca->argv[optind]))
			arg = ca->argv[optind++];
		ca->resume = arg ? arg : "last";
		return 1;
	case CLI_OPT_CONTEXT_WINDOW:
		if (parse_count(&v, arg, 100000000) || v < 1024)
			return cli_usage_error(verb,
			                       "expected a window of 1024 to "
			                       "100000000 tokens, got '%s'",
			                       arg);
		ca->context_window = v;
		return 1;
	case CLI_OPT_MAX_TURNS:
	case CLI_OPT_MAX_TOOL_CALLS:
	case CLI_OPT_MAX_SCRIPTS:
	case CLI_OPT_MAX_SKILLS:
		if (parse_count(&v, arg, 100000))
			return cli_usage_error(verb,
			                       "expected a count from 1 to "
			                       "100000, got '%s'",
			                       arg);
		if (c == CLI_OPT_MAX_TURNS)
			ca->max_turns = (unsigned int)v;
		else if (c == CLI_OPT_MAX_TOOL_CALLS)
			ca->max_tool_calls = (unsigned int)v;
		else if (c == CLI_OPT_MAX_SCRIPTS)
			ca->max_scripts = (unsigned int)v;
		else
			ca->max_skills = (unsigned int)v;
		return 1;
	case CLI_OPT_MAX_TOKENS:
		if (parse_count(&v, arg, 1000000000000ULL))
			return cli_usage_error(
			        verb,
			        "--max-tokens expects a positive "
			        "number, got '%s'",
			        arg);
		ca->max_tokens = v;
		return 1;
	case CLI_OPT_SCRIPT_TIMEOUT:
		if (parse_count(&v, arg, 86400))
			return cli_usage_error(
			        verb,
			        "--script-timeout expects seconds "
			        "(1 to 86400), got '%s'",
			        arg);
		ca->script_timeout_ms = (long)v * 1000L;
		return 1;
	case CLI_OPT_BUDGET:
		if (skit_prompt_parse_budget(&ca->budget, arg, &err) < 0 ||
		    ca->budget == 0)
			return cli_usage_error(
			        verb,
			        "--budget expects CHARS or Ntok, "
			        "got '%s'",
			        arg);
		return 1;
	case CLI_OPT_SEARCH:
		ca->search = true;
		return 1;
	case CLI_OPT_JSON_ACTIONS:
		ca->json_actions = true;
		return 1;
	case CLI_OPT_NO_STREAM:
		ca->no_stream = true;
		return 1;
	case CLI_OPT_WORKDIR:
		ca->workdir = arg;
		return 1;
	case CLI_OPT_RUNS_DIR:
		ca->runs_dir = arg;
		return 1;
	case CLI_OPT_NO_AUDIT:
		ca->no_audit = true;
		return 1;
	case CLI_OPT_REQUEST_LOG:
		ca->request_log = arg;
		return 1;
	case CLI_OPT_TRACE:
		ca->trace = true;
		return 1;
	case CLI_OPT_QUIET:
		ca->quiet = true;
		return 1;
	case CLI_OPT_ALLOW:
	case CLI_OPT_DENY:
		if ((c == CLI_OPT_ALLOW ? ca->nallow : ca->ndeny) ==
		    SKIT_POLICY_MAX_PATTERNS)
			return cli_usage_error(verb,
			                       "at most %d --allow and %d "
			                       "--deny patterns",
			                       SKIT_POLICY_MAX_PATTERNS,
			                       SKIT_POLICY_MAX_PATTERNS);
		if (c == CLI_OPT_ALLOW)
			ca->allow[ca->nallow++] = arg;
		else
			ca->deny[ca->ndeny++] = arg;
		return 1;
	case CLI_OPT_YES:
		ca->yes = true;
		return 1;
	case CLI_OPT_NO_NETWORK:
		ca->no_network = true;
		return 1;
	case CLI_OPT_NETWORK:
		ca->network = true;
		return 1;
	case CLI_OPT_NO_FILE_TOOLS:
		ca->no_file_tools = true;
		return 1;
	case CLI_OPT_NO_DYNAMIC_CONTEXT:
		ca->no_dynamic_context = true;
		return 1;
	case CLI_OPT_NO_PROJECT_INSTRUCTIONS:
		ca->no_project_instructions = true;
		return 1;
	case CLI_OPT_NO_LSP:
		ca->no_lsp = true;
		return 1;
	case CLI_OPT_PLAN_MODE:
		ca->plan_mode = true;
		return 1;
	case CLI_OPT_SANDBOX:
		if (skit_sandbox_mode_parse(arg, &ca->sandbox_mode))
			return cli_usage_error(
			        verb,
			        "--sandbox expects read-only, "
			        "workspace-write or full-access, "
			        "got '%s'",
			        arg);
		ca->sandbox = true;
		return 1;
	case CLI_OPT_KEEP_TEMP:
		ca->keep_temp = true;
		return 1;
	case CLI_OPT_DISK_CAP:
		if (parse_count(&v, arg, 1ULL << 40))
			return cli_usage_error(verb,
			                       "--disk-cap expects MiB (1 to "
			                       "1099511627776), got '%s'",
			                       arg);
		ca->disk_cap = v << 20;
		return 1;
	case CLI_OPT_PROJECT:
		if (!*arg)
			return cli_usage_error(verb,
			                       "--project needs a folder");
		ca->project = arg;
		return 1;
	case CLI_OPT_APPROVE_MCP:
		if (ca->napprove_mcp ==
		    sizeof(ca->approve_mcp) / sizeof(ca->approve_mcp[0]))
			return cli_usage_error(
			        verb, "at most 32 --approve-mcp names");
		ca->approve_mcp[ca->napprove_mcp++] = arg;
		return 1;
	default:
		return 0;
	}
}

/* --model, then $SKIT_MODEL, then a provider whose key is set, then the
 * offline replay provider with $SKIT_CASSETTE; NULL when none is set. */
static const char *default_model(char *buf, size_t len)
{
	const char *v = getenv("SKIT_MODEL");

	if (v && *v)
		return v;
	v = getenv("OPENAI_API_KEY");
	if (v && *v)
		return "openai:gpt-4.1-mini";
	v = getenv("ANTHROPIC_API_KEY");
	if (v && *v)
		return "anthropic:claude-sonnet-4-5";
	v = getenv("SKIT_CASSETTE");
	if (!v || !*v)
		return NULL;
	snprintf(buf, len, "replay:%s", v);
	return buf;
}

/* What to do when no model is configured: the ways to choose one. */
static void no_model_help(const char *verb)
{
	cli_error(verb, "no model configured; choose one of:");
	fprintf(stderr,
	        "  export OPENAI_API_KEY=...        OpenAI (add "
	        "OPENAI_BASE_URL=http://host:port/v1\n"
	        "                                   for Ollama, vLLM, "
	        "llama.cpp, LM Studio)\n"
	        "  export ANTHROPIC_API_KEY=...     Anthropic\n"
	        "  --model PROVIDER:MODEL           e.g. openai:gpt-4.1-mini, "
	        "anthropic:claude-sonnet-4-5\n"
	        "  export SKIT_MODEL=PROVIDER:MODEL the same, for every run\n"
	        "  --model replay:FILE.jsonl        replay recorded responses "
	        "offline (see docs/models.md)\n");
}

static void on_trace(skit_trace_kind kind, const char *line, void *payload)
{
	struct cli_agent *ca = payload;
	const char *mark = kind == SKIT_TRACE_SKILL   ? "skill"
	                   : kind == SKIT_TRACE_TOOL  ? "tool "
	                   : kind == SKIT_TRACE_PLAN  ? "plan "
	                   : kind == SKIT_TRACE_MODEL ? "model"
	                                              : "note ";

	/* A new model turn: its text starts on a line of its own. */
	if (kind == SKIT_TRACE_MODEL)
		ca->turn_break = true;
	if (!ca->show_trace)
		return;
	if (!ca->at_line_start) {
		fputc('\n', stdout);
		ca->at_line_start = true;
	}
	fflush(stdout);
	fprintf(stderr, "%s[%s]%s ", ca->style.dim, mark, ca->style.reset);
	cli_put_text(stderr, line, true, 0);
	fputc('\n', stderr);
}

/* A model retry is a trace line, not a silent wait. */
static void on_retry(unsigned int retry, unsigned int max, long wait_ms,
                     const char *why, void *payload)
{
	char line[600];

	snprintf(line, sizeof(line), "retry %u/%u in %.1f s: %s", retry, max,
	         (double)wait_ms / 1000.0, why);
	on_trace(SKIT_TRACE_NOTE, line, payload);
}

/* Bytes at the end of `s` that begin a UTF-8 sequence not yet complete. */
static size_t incomplete_tail(const char *s, size_t n)
{
	for (size_t k = 0; k < 3 && k < n; k++) {
		unsigned char c = (unsigned char)s[n - 1 - k];
		size_t need;

		if ((c & 0xC0) == 0x80)
			continue;
		need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
		return need > k + 1 ? k + 1 : 0;
	}
	return 0;
}

/* Write streamed text; on a terminal, through the sanitizer, keeping a
 * UTF-8 sequence cut by the chunk boundary for the next chunk. */
static void on_text(const char *text, size_t len, void *payload)
{
	struct cli_agent *ca = payload;
	char buf[4096 + 4];
	size_t at = 0, n, take, keep;

	if (!len)
		return;
	if (ca->turn_break && !ca->at_line_start)
		fputc('\n', stdout);
	ca->turn_break = false;
	ca->at_line_start = text[len - 1] == '\n';
	if (!isatty(STDOUT_FILENO)) {
		fwrite(text, 1, len, stdout);
		fflush(stdout);
		return;
	}
	while (at < len) {
		take = len - at < 4096 ? len - at : 4096;
		n = ca->npend;
		memcpy(buf, ca->pend, n);
		memcpy(buf + n, text + at, take);
		at += take;
		n += take;
		keep = incomplete_tail(buf, n);
		memcpy(ca->pend, buf + n - keep, keep);
		ca->npend = keep;
		buf[n - keep] = '\0';
		cli_put_text(stdout, buf, false, 0);
	}
	fflush(stdout);
}

void cli_agent_end_stream(struct cli_agent *ca)
{
	if (ca->npend) {
		ca->pend[ca->npend] = '\0';
		cli_put_text(stdout, ca->pend, false, 0);
		ca->npend = 0;
	}
	if (!ca->at_line_start)
		fputc('\n', stdout);
	ca->at_line_start = true;
	fflush(stdout);
}

static void sigint(int sig)
{
	(void)sig;
	cli_interrupted = 1;
}

void cli_agent_catch_sigint(bool on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	/* A second Ctrl-C while the run is stopping ends the process. */
	sa.sa_flags = SA_RESETHAND;
	sa.sa_handler = on ? sigint : SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
}

/* Append `s` to `b`, single-quoted for a POSIX shell when it must be. */
static void put_shell_word(struct skitx_buf *b, const char *s)
{
	if (*s && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQR"
	                       "STUVWXYZ0123456789_-./=:,@%+")]) {
		skitx_buf_puts(b, s);
		return;
	}
	skitx_buf_putc(b, '\'');
	for (; *s; s++)
		skitx_buf_puts(b, *s == '\'' ? "'\\''" : (char[2]){ *s, 0 });
	skitx_buf_putc(b, '\'');
}

/*
 * Code points that show as nothing, as a space, or reorder what follows:
 * controls, bidi controls, zero-width and TAG characters (the shared
 * list), line and paragraph separators, spaces other than U+0020,
 * invisible fillers and variation selectors.
 */
static bool shows_wrong(int32_t cp)
{
	return skitx_utf8_is_hidden(cp) || cp == 0x2028 || cp == 0x2029 ||
	       cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
	       cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0x115F ||
	       cp == 0x1160 || cp == 0x3164 || cp == 0xFFA0 ||
	       (cp >= 0xFE00 && cp <= 0xFE0F) ||
	       (cp >= 0xFFF9 && cp <= 0xFFFB) ||
	       (cp >= 0xE0100 && cp <= 0xE01EF);
}

void cli_put_exact(FILE *f, const char *s, const struct cli_style *st)
{
	const char *e = s + strlen(s);

	while (s < e) {
		size_t bad, n = (size_t)(e - s) < 4 ? (size_t)(e - s) : 4;
		int32_t cp;

		/* one sequence at a time: strict UTF-8, or one raw byte */
		if (skitx_utf8_check(s, n, &bad) && !bad) {
			fprintf(f, "%s\\x{%02X}%s", st->yellow,
			        (unsigned char)*s, st->reset);
			s++;
			continue;
		}
		n = skitx_utf8_decode(s, (size_t)(e - s), &cp);
		if (cp == '\n')
			fprintf(f, "%s\xE2\x8F\x8E%s", st->yellow,
			        st->reset); /* ⏎ */
		else if (shows_wrong(cp))
			fprintf(f, "%s\\u{%04X}%s", st->yellow, (unsigned)cp,
			        st->reset);
		else if (cp == '\\' && (s[1] == 'u' || s[1] == 'x') &&
		         s[2] == '{')
			fprintf(f, "%s\\u{005C}%s", st->yellow, st->reset);
		else
			fwrite(s, 1, n, f);
		s += n;
	}
}

/* Show the call the user is asked about, or was refused: exactly, with
 * what a terminal would hide or reorder made visible. */
static void show_call(struct cli_agent *ca, const skit_approval *req)
{
	fprintf(stderr, "  %s%s%s", ca->style.bold, req->tool, ca->style.reset);
	if (req->skill) {
		fputs(" for skill ", stderr);
		cli_put_exact(stderr, req->skill, &ca->style);
	}
	fputs(": ", stderr);
	cli_put_exact(stderr, req->target, &ca->style);
	fputs("\n  arguments: ", stderr);
	cli_put_exact(stderr, req->arguments, &ca->style);
	fputc('\n', stderr);
	if (req->network) {
		fputs("  network: ", stderr);
		cli_put_text(stderr, req->network, true, 0);
		fputc('\n', stderr);
	}
}

/* On a terminal: ask. y, n, or a (always, for this session). */
static skit_approve_answer on_approve(const skit_approval *req, void *payload)
{
	struct cli_agent *ca = payload;
	char line[64];

	if (!ca->at_line_start) {
		fputc('\n', stdout);
		ca->at_line_start = true;
	}
	fflush(stdout);
	fprintf(stderr, "%sskit: approval needed%s (", ca->style.bold,
	        ca->style.reset);
	cli_put_exact(stderr, req->reason, &ca->style);
	fputs(")\n", stderr);
	show_call(ca, req);
	for (;;) {
		fprintf(stderr, "Allow? [y]es, [n]o%s%s%s: ",
		        req->always[0] ? ", [a]lways (" : "", req->always,
		        req->always[0] ? ")" : "");
		fflush(stderr);
		if (!fgets(line, sizeof(line), stdin)) {
			clearerr(stdin);
			fputc('\n', stderr);
			return SKIT_APPROVE_NO;
		}
		if (cli_interrupted)
			return SKIT_APPROVE_NO;
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "y") || !strcmp(line, "yes"))
			return SKIT_APPROVE_YES;
		if (!strcmp(line, "n") || !strcmp(line, "no") || !line[0])
			return SKIT_APPROVE_NO;
		if (req->always[0] &&
		    (!strcmp(line, "a") || !strcmp(line, "always")))
			return SKIT_APPROVE_ALWAYS;
	}
}

/* Columns a question's line is cut at, so that the terminal never wraps
 * one (a wrapped part would show without the bar). */
#define QUESTION_COLS 72

/* Bytes of `s` (n bytes) that fit in QUESTION_COLS columns, at a
 * character boundary; a character of 3 or 4 bytes counts 2 columns (CJK
 * and emoji are wide; the others are merely cut early). */
static size_t fit_columns(const char *s, size_t n)
{
	size_t i = 0, cols = 0;

	while (i < n) {
		unsigned char c = (unsigned char)s[i];
		size_t len = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		size_t w = len >= 3 ? 2 : 1;

		if (cols + w > QUESTION_COLS)
			break;
		cols += w;
		for (i++; i < n && ((unsigned char)s[i] & 0xC0) == 0x80; i++)
			;
	}
	return i;
}

/*
 * A question of several lines (a plan to approve) is shown line by line,
 * each behind "  | " and cut to fit the terminal, so that none of its
 * lines can pass for one of skit's own (a numbered option); one line,
 * behind two blanks.
 */
static void put_question(const char *text, const struct cli_style *st)
{
	bool multi = strchr(text, '\n') != NULL;

	for (;;) {
		size_t n = strcspn(text, "\n");
		size_t done = 0;

		do {
			size_t k =
			        multi ? fit_columns(text + done, n - done) : n;
			char *part = skitx_strndup(text + done, k);

			fputs(multi ? "  | " : "  ", stderr);
			cli_put_exact(stderr, part ? part : "", st);
			fputc('\n', stderr);
			skitx_free(part);
			done += k;
		} while (done < n);
		if (!text[n])
			break;
		text += n + 1;
	}
}

/*
 * ask_user on a terminal: the question and its numbered options on
 * stderr, one line read from stdin. Numbers choose options (several,
 * separated by spaces or commas, when the question allows it); anything
 * else is the user's own answer; an empty line answers nothing.
 */
static int on_ask(const skit_question *q, skit_tool_output *answer,
                  void *payload)
{
	struct cli_agent *ca = payload;
	char line[2048];
	bool chose = false, only_numbers = true;

	if (!ca->at_line_start) {
		fputc('\n', stdout);
		ca->at_line_start = true;
	}
	fflush(stdout);
	fprintf(stderr, "%sskit: a question for you%s\n", ca->style.bold,
	        ca->style.reset);
	put_question(q->question, &ca->style);
	for (size_t i = 0; i < q->option_count; i++) {
		fprintf(stderr, "  %zu) ", i + 1);
		cli_put_exact(stderr, q->options[i], &ca->style);
		fputc('\n', stderr);
	}
	fprintf(stderr, "%s: ",
	        !q->option_count ? "Your answer"
	        : q->multi ? "Numbers (separated by spaces), or your own answer"
	                   : "A number, or your own answer");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin)) {
		clearerr(stdin);
		fputc('\n', stderr);
		return SKIT_ENOTFOUND;
	}
	if (cli_interrupted)
		return SKIT_ECANCELED;
	line[strcspn(line, "\r\n")] = '\0';
	for (const char *p = line; *p; p++)
		if (!strchr("0123456789 ,", *p))
			only_numbers = false;
	if (q->option_count && only_numbers && line[0]) {
		char *save = NULL, *tok;

		for (tok = strtok_r(line, " ,", &save); tok;
		     tok = strtok_r(NULL, " ,", &save)) {
			long k = strtol(tok, NULL, 10);

			if (k < 1 || (size_t)k > q->option_count ||
			    (chose && !q->multi))
				continue;
			if ((chose && skit_tool_output_puts(answer, "; ")) ||
			    skit_tool_output_puts(answer, q->options[k - 1]))
				return SKIT_ENOMEM;
			chose = true;
		}
		if (chose)
			return 0;
	}
	return skit_tool_output_puts(answer, line[0] ? line : "(no answer)")
	               ? SKIT_ENOMEM
	               : 0;
}

/* No terminal: say what was refused and the command that would run it. */
static void on_refused(const skit_approval *req, void *payload)
{
	struct cli_agent *ca = payload;
	struct skitx_buf b;

	if (!ca->at_line_start) {
		fputc('\n', stdout);
		ca->at_line_start = true;
	}
	fflush(stdout);
	fputs("skit: refused (", stderr);
	cli_put_exact(stderr, req->reason, &ca->style);
	fputs("; no terminal to ask):\n", stderr);
	show_call(ca, req);
	if (!req->approving_flag[0] || !ca->argv)
		return;
	skitx_buf_init(&b, 0);
	skitx_buf_puts(&b, "skit ");
	skitx_buf_puts(&b, ca->argv[0]);
	skitx_buf_putc(&b, ' ');
	skitx_buf_puts(&b, req->approving_flag);
	for (int i = 1; i < ca->argc; i++) {
		skitx_buf_putc(&b, ' ');
		put_shell_word(&b, ca->argv[i]);
	}
	fputs("  to approve it, run: ", stderr);
	cli_put_exact(stderr, skitx_buf_cstr(&b), &ca->style);
	fputc('\n', stderr);
	skitx_buf_release(&b);
}

/*
 * The project the run works on: --project DIR, else the one the registry
 * found, else skit_project_for_run() (which refuses the home folder, `/`
 * and the system folders). Sets ca->project_found; CLI_USAGE when there
 * is none.
 */
static int find_run_project(struct cli_agent *ca, const char *verb)
{
	skit_error err = { 0 };
	const char *found = ca->reg ? skit_registry_project_dir(ca->reg) : NULL;
	int rc;

	if (ca->project) {
		ca->project_found = skitx_path_absolute(ca->project);
		if (!ca->project_found) {
			cli_error(verb, "out of memory");
			return CLI_FAIL;
		}
		if (!skitx_fs_is_dir(ca->project_found))
			return cli_usage_error(verb,
			                       "--project %s: not a folder",
			                       ca->project);
		return CLI_OK;
	}
	if (found) {
		ca->project_found = skitx_strdup(found);
		if (!ca->project_found) {
			cli_error(verb, "out of memory");
			return CLI_FAIL;
		}
		return CLI_OK;
	}
	rc = skit_project_for_run(&ca->project_found, NULL, &err);
	if (rc == SKIT_ENOTFOUND) {
		cli_error(verb,
		          "%s; run it in a project, or name one with "
		          "--project DIR",
		          err.message);
		return CLI_USAGE;
	}
	if (rc < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* The user config file ($XDG_CONFIG_HOME/skit/config.json, else
 * ~/.config/skit/config.json), or NULL when neither is absolute or on
 * no memory (owned). */
static char *user_config_path(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");

	if (xdg && *xdg == '/')
		return skitx_path_join(xdg, "skit/config.json");
	if (home && *home == '/')
		return skitx_path_join(home, ".config/skit/config.json");
	return NULL;
}

void cli_config_files(bool no_config, const char *config, const char *project,
                      char *files[3])
{
	files[0] = files[1] = files[2] = NULL;
	if (!no_config) {
		files[0] = user_config_path();
		if (project)
			files[1] =
			        skitx_path_join(project, ".agents/skit.json");
	}
	if (config)
		files[2] = skitx_strdup(config);
}

/*
 * The config files a run reads, in order, and whether each is the user's
 * own (trusted): the user config, the project's .agents/skit.json (unless
 * the project is untrusted), --config FILE. NULL where there is none.
 */
static void config_files(const struct cli_agent *ca, char *files[3],
                         bool trusted[3])
{
	trusted[0] = trusted[2] = true;
	trusted[1] = false;
	cli_config_files(ca->roots.no_config, ca->roots.config,
	                 ca->project_config_off ? NULL : ca->project_found,
	                 files);
}

/* The policy: config files' permissions, then the flags. */
static int open_policy(struct cli_agent *ca, const char *verb)
{
	skit_error err = { 0 };
	char *files[3];
	bool trusted[3];
	int rc = 0, status = CLI_OK;

	if (skit_policy_new(&ca->policy, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	config_files(ca, files, trusted);
	for (size_t i = 0; !rc && i < 3; i++) {
		size_t ignored = 0;

		if (!files[i])
			continue;
		rc = skit_policy_load_config(ca->policy, files[i], trusted[i],
		                             &ignored, &err);
		if (rc == SKIT_ENOTFOUND && i < 2)
			rc = 0;
		if (!rc && ignored)
			fprintf(stderr,
			        "skit: warning: %s: %zu \"allow\" "
			        "permission(s) ignored: a project's config "
			        "may restrict, not grant\n",
			        files[i], ignored);
	}
	/* The sandbox settings from the same files: the project's may make
	 * it stricter, never full-access. */
	for (size_t i = 0; !rc && i < 3; i++) {
		if (!files[i])
			continue;
		rc = skit_sandbox_config_load(&ca->sandbox_cfg, files[i],
		                              trusted[i], &err);
		if (rc == SKIT_ENOTFOUND && i < 2)
			rc = 0;
	}
	if (!rc && ca->sandbox_cfg.full_access_refused && !ca->sandbox)
		fprintf(stderr,
		        "skit: warning: the project's config asks for "
		        "sandbox.mode full-access: ignored (only --sandbox or "
		        "the user config may choose it)\n");
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	if (rc) {
		cli_error(verb, "%s", err.message);
		return rc == SKIT_ENOTFOUND ? CLI_USAGE : CLI_FAIL;
	}
	for (size_t i = 0; status == CLI_OK && i < ca->nallow + ca->ndeny;
	     i++) {
		bool allow = i < ca->nallow;
		const char *pat =
		        allow ? ca->allow[i] : ca->deny[i - ca->nallow];

		if (skit_policy_add_flag(ca->policy,
		                         allow ? SKIT_POLICY_LIST_ALLOW
		                               : SKIT_POLICY_LIST_DENY,
		                         pat, &err) < 0)
			status = cli_usage_error(verb, "--%s '%s': %s",
			                         allow ? "allow" : "deny", pat,
			                         err.message);
	}
	skit_policy_set_yes(ca->policy, ca->yes);
	if (ca->network)
		skit_policy_set_network(ca->policy, true);
	skit_policy_set_no_network(ca->policy, ca->no_network);
	return status;
}

/*
 * "dynamic_context" and "project_instructions" of the same config files
 * as the policy's: the user's, the project's (when trusted: it may turn
 * them off, not on), --config.
 */
static int load_agent_config(struct cli_agent *ca, skit_agent_options *ao,
                             const char *verb)
{
	skit_error err = { 0 };
	char *files[3];
	bool trusted[3];
	int rc = 0;

	config_files(ca, files, trusted);
	for (size_t i = 0; !rc && i < 3; i++) {
		if (!files[i])
			continue;
		rc = skit_agent_options_load_config(ao, files[i], trusted[i],
		                                    &err);
		if (rc == SKIT_ENOTFOUND && i < 2)
			rc = 0;
	}
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	if (rc)
		cli_error(verb, "%s", err.message);
	return rc ? CLI_FAIL : CLI_OK;
}

/*
 * The lsp tool's language servers (agent_lsp.c, docs/lsp.md): given only
 * in a project the user trusts, since a language server may run the
 * project's code (build scripts, plugins), as VS Code's Restricted Mode
 * has it; none with --no-lsp.
 */
static int open_lsp(struct cli_agent *ca, skit_agent_options *ao,
                    const char *verb)
{
	skit_error err = { 0 };
	char *files[3], why[512];
	bool trusted[3], ok = false;
	int rc;

	if (ca->no_lsp || !ca->project_found)
		return CLI_OK;
	if (skit_trust_check(&ok, ca->project_found, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	if (!ok) {
		if (ca->show_trace) {
			fputs("skit: no lsp tool: ", stderr);
			cli_put_exact(stderr, ca->project_found, &ca->style);
			fputs(" is not a trusted folder (a language server may "
			      "run its code; skit trust DIR)\n",
			      stderr);
		}
		return CLI_OK;
	}
	ca->lsp = skitx_calloc(1, sizeof(*ca->lsp));
	if (!ca->lsp) {
		cli_error(verb, "out of memory");
		return CLI_FAIL;
	}
	config_files(ca, files, trusted);
	rc = cli_lsp_load(ca->lsp, files, trusted, 3, why, sizeof(why));
	for (size_t i = 0; i < 3; i++)
		skitx_free(files[i]);
	if (rc) {
		cli_error(verb, "%s", why);
		return CLI_USAGE;
	}
	ao->lsp_servers = ca->lsp->v;
	ao->nlsp_servers = ca->lsp->n;
	return CLI_OK;
}

/* On a terminal: may the project's server `si` start? Remembered in the
 * user config `user` (when known) for this exact definition. */
static bool approve_server(struct cli_agent *ca, const skit_mcp_config *mc,
                           size_t i, const skit_mcp_server_info *si,
                           const char *user)
{
	skit_error err = { 0 };
	char line[16];

	fprintf(stderr,
	        "%sskit: MCP server '%s'%s is defined by the project (%s):\n"
	        "  ",
	        ca->style.bold, si->name, ca->style.reset, si->origin);
	cli_put_exact(stderr, si->summary, &ca->style);
	fprintf(stderr, "\nStart it (it runs with your rights)? [y/N]: ");
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin)) {
		clearerr(stdin);
		return false;
	}
	line[strcspn(line, "\r\n")] = '\0';
	if (strcmp(line, "y") && strcmp(line, "yes"))
		return false;
	if (user && skit_mcp_approval_save_server(mc, i, user, &err))
		fprintf(stderr, "skit: warning: approval not remembered: %s\n",
		        err.message);
	return true;
}

/*
 * The MCP servers of the config files and the project's .mcp.json. A
 * project's server starts once the user approved its definition; without
 * a terminal an unapproved one stays off, with one line saying so.
 */
static int open_mcp(struct cli_agent *ca, const char *verb)
{
	const char *project = ca->project_found;
	char *files[4] = { NULL, NULL, NULL, NULL };
	const bool is_project[4] = { false, true, true, false };
	bool tty = isatty(STDIN_FILENO) && isatty(STDERR_FILENO);
	skit_mcp_config *mc = NULL;
	skit_error err = { 0 };
	int rc;

	if (!ca->roots.no_config) {
		files[0] = user_config_path();
		if (project && !ca->project_config_off) {
			files[1] =
			        skitx_path_join(project, ".agents/skit.json");
			files[2] = skitx_path_join(project, ".mcp.json");
		}
	}
	if (ca->roots.config)
		files[3] = skitx_strdup(ca->roots.config);
	rc = skit_mcp_config_new(&mc, &err);
	for (size_t i = 0; !rc && i < 4; i++) {
		if (!files[i])
			continue;
		rc = skit_mcp_config_load(mc, files[i], is_project[i], &err);
		/* A repository's broken file does not stop the run. */
		if (rc && rc != SKIT_ENOMEM && is_project[i]) {
			fprintf(stderr,
			        "skit: warning: its MCP servers are off: %s\n",
			        err.message);
			rc = 0;
		}
	}
	/* --approve-mcp NAME: this run only, nothing remembered. */
	for (size_t k = 0; !rc && k < ca->napprove_mcp; k++) {
		size_t i = 0, n = skit_mcp_config_count(mc);
		skit_mcp_server_info si;

		for (; i < n; i++) {
			skit_mcp_config_server(mc, i, &si);
			if (!strcmp(si.name, ca->approve_mcp[k]))
				break;
		}
		if (i == n) {
			cli_usage_error(verb,
			                "--approve-mcp '%s': no MCP server of "
			                "that name is configured",
			                ca->approve_mcp[k]);
			rc = SKIT_EUSAGE;
			err.message[0] = '\0';
			break;
		}
		skit_mcp_config_set_approved(mc, i, true);
	}
	for (size_t i = 0; !rc && i < skit_mcp_config_count(mc); i++) {
		skit_mcp_server_info si;

		skit_mcp_config_server(mc, i, &si);
		if (si.approved)
			continue;
		if (tty && approve_server(ca, mc, i, &si, files[0])) {
			skit_mcp_config_set_approved(mc, i, true);
			continue;
		}
		fprintf(stderr,
		        "skit: MCP server '%s' (%s) is off: the project "
		        "defines it and you have not approved it; approve "
		        "it with --approve-mcp %s (this run), or on a "
		        "terminal (remembered)\n",
		        si.name, si.origin, si.name);
	}
	if (!rc)
		rc = skit_agent_use_mcp(ca->agent, mc, 0, &err);
	skit_mcp_config_free(mc);
	for (size_t i = 0; i < 4; i++)
		skitx_free(files[i]);
	if (rc == SKIT_EUSAGE)
		return CLI_USAGE; /* already reported */
	if (rc) {
		cli_error(verb, "%s", err.message);
		return rc == SKIT_ENOMEM ? CLI_FAIL : CLI_USAGE;
	}
	return CLI_OK;
}

/*
 * The project's skills or config were left out: it is not a folder the
 * user trusts. On a terminal, ask once (yes records the trust and opens
 * the registry again); else say how to trust it, in one line.
 */
static int ask_trust(struct cli_agent *ca, const char *verb)
{
	const char *dir = skit_registry_project_dir(ca->reg);
	skit_error err = { 0 };
	char line[64], *real, *now;
	int rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO)) {
		fputs("skit: the skills and config of ", stderr);
		cli_put_exact(stderr, dir, &ca->style);
		fputs(" are not loaded (not a trusted folder); to trust it, "
		      "run: skit trust ",
		      stderr);
		cli_put_exact(stderr, dir, &ca->style);
		fputc('\n', stderr);
		return CLI_OK;
	}
	/* The folder the question names, resolved now: what a "y" records
	 * (not what the path leads to once the answer comes). */
	real = skitx_path_real(dir);
	if (!real) {
		cli_error(verb, "out of memory");
		return CLI_FAIL;
	}
	dir = real;
	fprintf(stderr, "%sskit: ", ca->style.bold);
	cli_put_exact(stderr, dir, &ca->style);
	fprintf(stderr,
	        " is not a trusted folder%s\n"
	        "  Its skills (.agents/skills...) and config "
	        "(.agents/skit.json) are\n"
	        "  someone else's code until you trust it.\n",
	        ca->style.reset);
	for (;;) {
		fputs("Trust this folder? [y]es, [n]o: ", stderr);
		fflush(stderr);
		if (!fgets(line, sizeof(line), stdin)) {
			clearerr(stdin);
			fputc('\n', stderr);
			line[0] = '\0';
		}
		if (cli_interrupted) {
			skitx_free(real);
			return 130;
		}
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "y") || !strcmp(line, "yes"))
			break;
		if (!strcmp(line, "n") || !strcmp(line, "no") || !line[0]) {
			fputs("skit: running without the project's skills; "
			      "trust it later with: skit trust ",
			      stderr);
			cli_put_exact(stderr, dir, &ca->style);
			fputc('\n', stderr);
			skitx_free(real);
			return CLI_OK;
		}
	}
	/* A folder swapped for a link while the question waited would
	 * have skit_trust_add() trust where the link leads. */
	now = skitx_path_real(real);
	if (!now || strcmp(now, real)) {
		cli_error(verb,
		          "%s changed while the question waited (it now "
		          "leads to %s): not trusted",
		          real, now ? now : "?");
		skitx_free(now);
		skitx_free(real);
		return CLI_FAIL;
	}
	skitx_free(now);
	rc = skit_trust_add(real, &err);
	if (rc < 0) {
		cli_error(verb, "%s", err.message);
		skitx_free(real);
		return CLI_FAIL;
	}
	fputs("skit: trusted ", stderr);
	cli_put_exact(stderr, dir, &ca->style);
	fputs(" (skit trust --remove DIR undoes it)\n", stderr);
	skitx_free(real);
	skit_registry_free(ca->reg);
	ca->reg = NULL;
	return cli_open_registry_trusted(&ca->reg, &ca->roots, ca->project,
	                                 verb);
}

/*
 * Folder trust for the project's config files (docs/registry.md): an
 * untrusted folder's .agents/skit.json and .mcp.json are someone else's
 * settings, so none of it is read. `said` is true when ask_trust()
 * already told the user; else one line says so, when there is a file.
 */
static int project_config_trust(struct cli_agent *ca, bool said,
                                const char *verb)
{
	static const char *const files[] = { ".agents/skit.json", ".mcp.json" };
	skit_error err = { 0 };
	bool trusted = false, any = false;

	if (!ca->project_found || ca->roots.no_config)
		return CLI_OK;
	if (skit_trust_check(&trusted, ca->project_found, &err) < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	ca->project_config_off = !trusted;
	for (size_t i = 0; !trusted && !said && i < 2; i++) {
		char *p = skitx_path_join(ca->project_found, files[i]);

		if (!p) {
			cli_error(verb, "out of memory");
			return CLI_FAIL;
		}
		any |= skitx_fs_exists(p);
		skitx_free(p);
	}
	if (any) {
		fputs("skit: the config of ", stderr);
		cli_put_exact(stderr, ca->project_found, &ca->style);
		fputs(" is not loaded (not a trusted folder); to trust it, "
		      "run: skit trust ",
		      stderr);
		cli_put_exact(stderr, ca->project_found, &ca->style);
		fputc('\n', stderr);
	}
	return CLI_OK;
}

bool cli_session_id_like(const char *s)
{
	size_t n = strlen(s);

	if (!strcmp(s, "last"))
		return true;
	/* 20261121T143005Z-1a2b3c4d, or its start (8 digits at least) */
	if (n < 8 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f') || s[i] == 'T' ||
		      s[i] == 'Z' || s[i] == '-'))
			return false;
	return s[0] >= '0' && s[0] <= '9';
}

/* --resume, --continue: the session file, found in the project's trail. */
static int find_session(struct cli_agent *ca, const char *which,
                        const char *verb)
{
	skit_error err = { 0 };
	skit_session_info info;
	char *owned = NULL;
	const char *runs = ca->runs_dir;
	int rc;

	if (!runs) {
		if (cli_project_runs_dir(&owned, ca->project_found) != 0) {
			cli_error(verb, "cannot find the audit trail to resume "
			                "from; use --runs-dir");
			return CLI_FAIL;
		}
		runs = owned;
	}
	skitx_free(ca->resume_path);
	ca->resume_path = NULL;
	rc = skit_session_find(runs, ca->project_found, which, &ca->resume_path,
	                       &err);
	skitx_free(owned);
	if (!rc)
		rc = skit_session_check(ca->resume_path, &info, &err);
	if (rc) {
		cli_error(verb, "%s", err.message);
		if (rc == SKIT_ENOTFOUND)
			fprintf(stderr, "hint: `skit runs list` shows the runs "
			                "and their sessions\n");
		return rc == SKIT_ENOTFOUND || rc == SKIT_EINVALID ? CLI_USAGE
		                                                   : CLI_FAIL;
	}
	if (!ca->quiet) {
		fprintf(stderr, "skit %s: continuing session %s (%zu messages",
		        verb, info.id ? info.id : ca->resume_path,
		        info.messages);
		if (info.first_line) {
			fputs(": ", stderr);
			cli_put_exact(stderr, info.first_line, &ca->style);
		}
		fputs(")\n", stderr);
	}
	skit_session_info_release(&info);
	return CLI_OK;
}

int cli_agent_restart(struct cli_agent *ca, const char *resume,
                      const char *verb)
{
	skit_agent *fresh = NULL;
	skit_error err = { 0 };
	int rc, status;

	if (resume) {
		status = find_session(ca, resume, verb);
		if (status != CLI_OK)
			return status;
	}
	ca->ao.resume_session = resume ? ca->resume_path : NULL;
	ca->ao.model = ca->mod; /* /model may have changed it */
	/* The new session first: when it cannot start, the old goes on. */
	rc = skit_agent_new(&fresh, &ca->ao, &err);
	if (rc < 0) {
		cli_error(verb, "%s", err.message);
		return CLI_FAIL;
	}
	if (skit_agent_finish(ca->agent, "ok", 0, &err) < 0)
		cli_error(verb, "%s", err.message);
	ca->agent = fresh;
	if (ca->plan_mode)
		(void)skit_agent_set_plan_mode(ca->agent, true);
	return open_mcp(ca, verb);
}

int cli_agent_switch_model(struct cli_agent *ca, const char *spec,
                           const char *verb)
{
	skit_model_options mo = ca->mo;
	skit_model *m = NULL;
	skit_error err = { 0 };
	int rc;

	mo.spec = spec;
	rc = skit_model_new(&m, &mo, &err);
	if (!rc)
		rc = skit_agent_set_model(ca->agent, m, &err);
	if (rc) {
		cli_error(verb, "%s", err.message);
		skit_model_free(m);
		return CLI_FAIL;
	}
	skit_model_free(ca->mod);
	ca->mod = m;
	return CLI_OK;
}

int cli_agent_open(struct cli_agent *ca, bool stream_answer, const char *verb)
{
	skit_model_options mo = SKIT_MODEL_OPTIONS_INIT;
	skit_agent_options ao = SKIT_AGENT_OPTIONS_INIT;
	skit_error err = { 0 };
	char spec[4200];
	bool said;
	int status, rc;

	ca->at_line_start = true;
	ca->show_trace = !ca->quiet && (ca->trace || isatty(STDERR_FILENO));
	cli_style_init(&ca->style, cli_color(stderr));
	/* the project skills of --project DIR, if the user trusts it */
	status = cli_open_registry_trusted(&ca->reg, &ca->roots, ca->project,
	                                   verb);
	said = status == CLI_OK && skit_registry_project_held_back(ca->reg);
	if (said)
		status = ask_trust(ca, verb);
	if (status != CLI_OK)
		return status;
	status = find_run_project(ca, verb);
	if (status == CLI_OK)
		status = project_config_trust(ca, said, verb);
	if (status != CLI_OK)
		return status;
	status = open_policy(ca, verb);
	if (status != CLI_OK)
		return status;
	mo.spec = ca->model ? ca->model : default_model(spec, sizeof(spec));
	if (!mo.spec) {
		no_model_help(verb);
		return CLI_USAGE;
	}
	mo.no_stream = ca->no_stream;
	mo.request_log = ca->request_log;
	mo.cancel = (const volatile int *)&cli_interrupted;
	mo.on_retry = on_retry;
	mo.retry_payload = ca;
	rc = skit_model_new(&ca->mod, &mo, &err);
	if (rc < 0) {
		cli_error(verb, "%s", err.message);
		return rc == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
	}
	if (!ca->no_audit && !ca->runs_dir) {
		if (cli_project_runs_dir(&ca->runs_dir_owned,
		                         ca->project_found) != 0) {
			cli_error(verb, "cannot find a folder for the audit "
			                "trail; use --runs-dir or --no-audit");
			return CLI_FAIL;
		}
		ca->runs_dir = ca->runs_dir_owned;
	}
	ao.registry = ca->reg;
	ao.model = ca->mod;
	ao.index_budget = ca->budget;
	ao.search_tool = ca->search;
	ao.json_actions = ca->json_actions;
	ao.max_turns = ca->max_turns;
	ao.max_tool_calls = ca->max_tool_calls;
	ao.max_script_runs = ca->max_scripts;
	ao.max_tokens = ca->max_tokens;
	ao.max_skills_per_turn = ca->max_skills;
	ao.script_timeout_ms = ca->script_timeout_ms;
	ao.workdir = ca->workdir;
	ao.runs_dir = ca->no_audit ? NULL : ca->runs_dir;
	ao.cancel = (const volatile int *)&cli_interrupted;
	ao.hooks.on_text = stream_answer ? on_text : NULL;
	ao.hooks.on_trace = on_trace;
	ao.hooks.payload = ca;
	ao.hooks.on_refused = on_refused;
	if (isatty(STDIN_FILENO) && isatty(STDERR_FILENO)) {
		ao.hooks.on_approve = on_approve;
		/* ask_user: only a terminal can answer (no one otherwise,
		 * and the model is told so). */
		ao.on_ask = on_ask;
		ao.ask_payload = ca;
	}
	ao.policy = ca->policy;
	ao.project_dir = ca->project_found;
	ao.file_tools = !ca->no_file_tools;
	ao.sandbox_mode = ca->sandbox ? ca->sandbox_mode : ca->sandbox_cfg.mode;
	ao.keep_temp = ca->keep_temp;
	ao.disk_cap = ca->disk_cap ? ca->disk_cap : ca->sandbox_cfg.disk_cap;
	ao.task_disk_cap = ao.disk_cap;
	ao.saved_approvals = true;
	status = load_agent_config(ca, &ao, verb);
	if (status != CLI_OK)
		return status;
	status = open_lsp(ca, &ao, verb);
	if (status != CLI_OK)
		return status;
	/* The flag wins over every config file. */
	if (ca->no_project_instructions)
		ao.project_instructions = false;
	if (ca->no_dynamic_context)
		ao.dynamic_context = false;
	if (ca->context_window)
		ao.context_window = ca->context_window;
	if (ca->resume) {
		status = find_session(ca, ca->resume, verb);
		if (status != CLI_OK)
			return status;
		ao.resume_session = ca->resume_path;
	}
	ca->mo = mo;
	ca->ao = ao;
	rc = skit_agent_new(&ca->agent, &ao, &err);
	if (rc < 0) {
		cli_error(verb, "%s", err.message);
		return rc == SKIT_EUSAGE ? CLI_USAGE : CLI_FAIL;
	}
	if (ca->plan_mode)
		(void)skit_agent_set_plan_mode(ca->agent, true);
	return open_mcp(ca, verb);
}

int cli_agent_exit_code(int rc)
{
	if (rc == 0)
		return CLI_OK;
	if (rc == SKIT_ECANCELED)
		return 130;
	return CLI_FAIL;
}

int cli_agent_close(struct cli_agent *ca, int rc, const char *verb)
{
	skit_error err = { 0 };
	char *dir = NULL, *tmp = NULL;
	int status = cli_agent_exit_code(rc);

	if (ca->agent && skit_agent_run_dir(ca->agent))
		dir = skitx_strdup(skit_agent_run_dir(ca->agent));
	if (ca->agent && ca->keep_temp && !ca->workdir)
		tmp = skitx_strdup(skit_agent_temp_dir(ca->agent));
	if (skit_agent_finish(ca->agent, skit_agent_status(rc), status, &err) <
	    0) {
		cli_error(verb, "%s", err.message);
		status = status ? status : CLI_FAIL;
	}
	ca->agent = NULL;
	if (dir && ca->show_trace)
		fprintf(stderr, "%s[audit]%s %s\n", ca->style.dim,
		        ca->style.reset, dir);
	if (tmp && !ca->quiet)
		fprintf(stderr, "%s[temp]%s  %s (kept: --keep-temp)\n",
		        ca->style.dim, ca->style.reset, tmp);
	skitx_free(tmp);
	skitx_free(dir);
	skit_model_free(ca->mod);
	skit_registry_free(ca->reg);
	skit_policy_free(ca->policy);
	cli_lsp_release(ca->lsp); /* after the agent: it borrowed them */
	skitx_free(ca->lsp);
	ca->lsp = NULL;
	skitx_free(ca->project_found);
	ca->policy = NULL;
	ca->project_found = NULL;
	skitx_free(ca->runs_dir_owned);
	skitx_free(ca->resume_path);
	ca->resume_path = NULL;
	ca->mod = NULL;
	ca->reg = NULL;
	ca->runs_dir_owned = NULL;
	return status;
}

void cli_agent_warn_planted(struct cli_agent *ca, const char *verb)
{
	size_t n = ca->agent ? skit_agent_planted_count(ca->agent) : 0;

	for (size_t i = 0; i < n; i++) {
		const char *p = skit_agent_planted(ca->agent, i);
		const char *name = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		bool git = !strcmp(name, ".git");

		fflush(stdout);
		fprintf(stderr,
		        "skit %s: warning: a program of this task created "
		        "or changed ",
		        verb);
		cli_put_exact(stderr, p, &ca->style);
		fprintf(stderr,
		        " in the project: %s; look at it before you %s\n",
		        git ? "git runs a repository's hooks and config there"
		            : "skit loads the skills and config it holds there",
		        git ? "use git in that folder"
		            : "trust or run skit in that folder");
	}
}
