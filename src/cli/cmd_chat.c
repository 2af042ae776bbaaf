/* SPDX-License-Identifier: MIT */
/*
 * cmd_chat.c - `skit chat`: a conversation with the agent. On a terminal
 * the input line is edited with libedit and kept in a history file;
 * otherwise lines are read from stdin. Besides skills' `/name args`, the
 * REPL knows /skills, /plan, /help and /exit. Ctrl-C stops the current
 * answer, not the session; at the prompt it clears the line. Ctrl-D ends
 * the session. Tab completes /commands and /skill names.
 */
#include "common.h"

#include <getopt.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <editline/readline.h>

#include "cli/agent_opts.h"
#include "cli/cmd.h"
#include "cli/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

#define LINE_MAX_BYTES (1024u * 1024)
#define HISTORY_LINES  1000

static void help(void)
{
	printf("usage: skit chat [options]\n\n"
	       "Talk with the agent. Each line is a message; the conversation "
	       "and the\nactivated skills carry over from one message to the "
	       "next.\n\n"
	       "In the chat:\n"
	       "  /NAME ARGS          activate the skill NAME with ARGS\n"
	       "  $NAME               mentioning a skill activates it\n"
	       "  /skills             list the skills (* = active)\n"
	       "  /plan               show the plan\n"
	       "  /plan-mode [on|off] only tools that read until you approve "
	       "a plan\n"
	       "  /compact [FOCUS]    summarise the older turns now (keeping "
	       "FOCUS)\n"
	       "  /context            how full the model's context window is\n"
	       "  /clear              start a new session\n"
	       "  /resume [ID]        continue a session (default: the last "
	       "one)\n"
	       "  /model SPEC         use another model from the next message\n"
	       "  /help               this list\n"
	       "  /exit, /quit        leave (so does end of input)\n\n");
	fputs("Options:\n" CLI_AGENT_HELP
	      "  -h, --help          show this help\n",
	      stdout);
}

static char *history_path(void)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *base, *dir, *file;

	if (state && *state == '/')
		base = skitx_strdup(state);
	else if (home && *home == '/')
		base = skitx_path_join(home, ".local/state");
	else
		return NULL;
	dir = base ? skitx_path_join(base, "skit") : NULL;
	skitx_free(base);
	if (!dir || skitx_fs_mkdir_p(dir, 0700) < 0) {
		skitx_free(dir);
		return NULL;
	}
	file = skitx_path_join(dir, "history");
	skitx_free(dir);
	return file;
}

/* The display width of `s` as cli_put_text prints it on one line. */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

static void list_skills(struct cli_agent *ca)
{
	size_t n = skit_registry_count(ca->reg), na, width = 0;
	struct cli_style st;

	cli_style_init(&st, cli_color(stdout));
	na = skit_agent_active_count(ca->agent);
	if (!n)
		printf("No skills found.\n");
	/* One column for the names, as wide as the longest (capped). */
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_entry(ca->reg, i);
		size_t w = text_width(e->name) +
		           (e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION
		                    ? strlen(" (user only)")
		                    : 0);

		if (w > width)
			width = w;
	}
	if (width > 40)
		width = 40;
	for (size_t i = 0; i < n; i++) {
		const skit_entry *e = skit_registry_entry(ca->reg, i);
		bool active = false,
		     user_only = e->flags & SKIT_SKILL_DISABLE_MODEL_INVOCATION;
		size_t w = text_width(e->name) +
		           (user_only ? strlen(" (user only)") : 0);

		for (size_t j = 0; j < na; j++)
			active |= !strcmp(skit_agent_active_skill(ca->agent, j),
			                  e->name);
		printf("%s %s", active ? "*" : " ", st.bold);
		cli_put_text(stdout, e->name, true, 0);
		printf("%s%s", st.reset, user_only ? " (user only)" : "");
		printf("%*s  ", (int)(w < width ? width - w : 0), "");
		cli_put_text(stdout, e->description, true, 100);
		fputc('\n', stdout);
	}
}

static void show_plan(struct cli_agent *ca)
{
	static const char *const marks[] = { "[ ]", "[>]", "[x]" };
	size_t n = skit_agent_plan_count(ca->agent);

	if (!n)
		printf("No plan yet.\n");
	for (size_t i = 0; i < n; i++) {
		skit_step_status s;
		const char *text = skit_agent_plan_step(ca->agent, i, &s);

		printf("%s ", marks[s]);
		cli_put_text(stdout, text, true, 0);
		fputc('\n', stdout);
	}
}

/*
 * Tab completion at the prompt: "/" followed by a chat command or the
 * name of a user-invocable skill. The registry is the session's, kept in
 * a static because readline's callbacks take no payload.
 */
static const skit_registry *complete_reg;

static char *complete_next(const char *text, int state)
{
	static const char *const commands[] = {
		"clear", "compact", "context", "exit",   "help",
		"model", "plan",    "quit",    "resume", "skills",
	};
	static size_t i, len;
	const char *word = text + (*text == '/');
	size_t nc = SKIT_ARRAY_SIZE(commands);
	size_t n = complete_reg ? skit_registry_count(complete_reg) : 0;
	char *m;

	if (!state) {
		i = 0;
		len = strlen(word);
	}
	while (i < nc + n) {
		const char *name;

		if (i < nc) {
			name = commands[i++];
		} else {
			const skit_entry *e =
			        skit_registry_entry(complete_reg, i++ - nc);

			if (e->flags & SKIT_SKILL_NOT_USER_INVOCABLE)
				continue;
			name = e->name;
		}
		if (strncmp(name, word, len))
			continue;
		/* readline frees the match with free(). */
		m = malloc(strlen(name) + 2);
		if (!m)
			return NULL;
		m[0] = '/';
		memcpy(m + 1, name, strlen(name) + 1);
		return m;
	}
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	(void)end;
	rl_attempted_completion_over = 1;
	/* Only the first word, and only a slash command. */
	if (start != 0 || text[0] != '/')
		return NULL;
	return rl_completion_matches(text, complete_next);
}

/* Ctrl-C at the prompt: flag it; readline returns and the line is cleared. */
static volatile sig_atomic_t prompt_interrupted;

static void on_prompt_sigint(int sig)
{
	(void)sig;
	prompt_interrupted = 1;
}

/*
 * readline() with SIGINT caught: Ctrl-C drops the line being typed and
 * prompts again, as bash and the Python REPL do; only Ctrl-D or /exit
 * leaves. Returns NULL at end of input.
 */
static char *prompt_line(void)
{
	struct sigaction sa, old;
	char *line;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_prompt_sigint; /* no SA_RESTART: read() stops */
	for (;;) {
		prompt_interrupted = 0;
		sigaction(SIGINT, &sa, &old);
		line = readline("skit> ");
		sigaction(SIGINT, &old, NULL);
		if (!prompt_interrupted)
			return line;
		free(line);
		fputs("^C\n", stdout);
		fflush(stdout);
	}
}

/* One line from a pipe or file; NULL at end of input. Owned. */
static char *read_plain_line(void)
{
	struct skitx_buf b;
	int ch;

	skitx_buf_init(&b, LINE_MAX_BYTES);
	while ((ch = getchar()) != EOF && ch != '\n')
		if (skitx_buf_putc(&b, (char)ch) < 0)
			break;
	if (ch == EOF && !skitx_buf_len(&b)) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

/* readline() returns malloc'd lines; read_plain_line() skitx_ ones. */
static void release_line(char *line, bool from_readline)
{
	if (from_readline)
		free(line);
	else
		skitx_free(line);
}

/* `line` is the command `cmd` ("/compact"), alone or with words after
 * it; *rest gets those words ("" when none). */
static bool is_command(const char *line, const char *cmd, const char **rest)
{
	size_t n = strlen(cmd);

	if (strncmp(line, cmd, n) || (line[n] && line[n] != ' '))
		return false;
	for (line += n; *line == ' '; line++)
		;
	*rest = line;
	return true;
}

static void show_context(struct cli_agent *ca)
{
	skit_agent_context_info ci;

	skit_agent_context(ca->agent, &ci);
	if (ci.window)
		printf("context: about %llu of %llu tokens (%llu%%)",
		       (unsigned long long)ci.used,
		       (unsigned long long)ci.window,
		       (unsigned long long)(ci.used * 100 / ci.window));
	else
		printf("context: about %llu tokens (no window known: "
		       "--context-window sets one)",
		       (unsigned long long)ci.used);
	printf(", %zu messages, %u compaction(s); model %s:%s\n", ci.messages,
	       ci.compactions, skit_model_provider(ca->mod),
	       skit_model_name(ca->mod));
	if (skit_agent_session_id(ca->agent))
		printf("session: %s\n", skit_agent_session_id(ca->agent));
}

/* /compact, /clear, /resume, /model, /context: 0 when handled (errors
 * are printed and the session goes on), -1 for another line. */
static int session_command(struct cli_agent *ca, const char *line)
{
	skit_error err = { 0 };
	const char *rest;

	if (is_command(line, "/compact", &rest)) {
		if (skit_agent_compact(ca->agent, *rest ? rest : NULL, &err))
			fprintf(stderr, "skit chat: %s\n", err.message);
		else
			show_context(ca);
		return 0;
	}
	if (is_command(line, "/context", &rest)) {
		show_context(ca);
		return 0;
	}
	if (is_command(line, "/plan-mode", &rest)) {
		if (!strcmp(rest, "on") || !strcmp(rest, "off"))
			(void)skit_agent_set_plan_mode(ca->agent,
			                               !strcmp(rest, "on"));
		else if (*rest)
			fprintf(stderr, "skit chat: /plan-mode takes on or "
			                "off\n");
		/* carried to a /clear or /resume of this chat */
		ca->plan_mode = skit_agent_plan_mode(ca->agent);
		printf("plan mode %s\n",
		       ca->plan_mode ? "on: only tools that read, until you "
		                       "approve the model's plan"
		                     : "off");
		return 0;
	}
	if (is_command(line, "/clear", &rest)) {
		if (cli_agent_restart(ca, NULL, "chat") == CLI_OK)
			printf("New session%s%s.\n",
			       skit_agent_session_id(ca->agent) ? " " : "",
			       skit_agent_session_id(ca->agent)
			               ? skit_agent_session_id(ca->agent)
			               : "");
		return 0;
	}
	if (is_command(line, "/resume", &rest)) {
		cli_agent_restart(ca, *rest ? rest : "last", "chat");
		return 0;
	}
	if (is_command(line, "/model", &rest)) {
		if (!*rest)
			printf("model %s:%s (/model PROVIDER:MODEL changes "
			       "it)\n",
			       skit_model_provider(ca->mod),
			       skit_model_name(ca->mod));
		else if (cli_agent_switch_model(ca, rest, "chat") == CLI_OK)
			printf("model %s:%s from the next message.\n",
			       skit_model_provider(ca->mod),
			       skit_model_name(ca->mod));
		return 0;
	}
	return -1;
}

/* Returns 1 to leave, 0 when the line was a REPL command, -1 otherwise. */
static int repl_command(struct cli_agent *ca, const char *line)
{
	if (!strcmp(line, "/exit") || !strcmp(line, "/quit"))
		return 1;
	if (session_command(ca, line) == 0)
		return 0;
	if (!strcmp(line, "/skills")) {
		list_skills(ca);
		return 0;
	}
	if (!strcmp(line, "/plan")) {
		show_plan(ca);
		return 0;
	}
	if (!strcmp(line, "/help")) {
		printf("/NAME ARGS  activate a skill   $NAME  mention a skill\n"
		       "/skills  /plan  /plan-mode [on|off]  /compact [FOCUS]  "
		       "/context  /clear  "
		       "/resume [ID]  /model SPEC  /help  /exit\n");
		return 0;
	}
	return -1;
}

int cmd_chat(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		CLI_AGENT_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct cli_agent ca;
	char *line, *hist = NULL;
	const char *p;
	bool tty = isatty(STDIN_FILENO) && isatty(STDOUT_FILENO);
	int c, status, rc = 0, r;

	memset(&ca, 0, sizeof(ca));
	ca.argc = argc;
	ca.argv = argv;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		status = cli_agent_option(&ca, c, optarg, argv[0]);
		if (status == 1)
			continue;
		if (status)
			return status;
		if (c == 'h') {
			help();
			return CLI_OK;
		}
		return cli_unknown_option(argv[0], c, argc, argv, longopts);
	}
	if (optind < argc)
		return cli_usage_error(argv[0], "unexpected argument '%s'",
		                       argv[optind]);
	status = cli_agent_open(&ca, true, argv[0]);
	if (status != CLI_OK) {
		cli_agent_close(&ca, SKIT_ERROR, argv[0]);
		return status;
	}
	if (tty) {
		hist = history_path();
		stifle_history(HISTORY_LINES);
		if (hist)
			read_history(hist);
		complete_reg = ca.reg;
		rl_attempted_completion_function = complete;
		printf("skit chat: %zu skill(s), model %s:%s. /help for "
		       "commands.\n",
		       skit_registry_count(ca.reg), skit_model_provider(ca.mod),
		       skit_model_name(ca.mod));
	}
	for (;;) {
		char *answer = NULL;
		skit_error err = { 0 };

		line = tty ? prompt_line() : read_plain_line();
		if (!line) {
			/* Ctrl-D: leave the prompt line before anything else
			 * is printed. */
			if (tty)
				fputc('\n', stdout);
			break;
		}
		for (p = line; *p == ' ' || *p == '\t'; p++)
			;
		/* Tab completion leaves a space after the word. */
		for (size_t n = strlen(line);
		     n && (line[n - 1] == ' ' || line[n - 1] == '\t'); n--)
			line[n - 1] = '\0';
		if (!*p) {
			release_line(line, tty);
			continue;
		}
		if (tty)
			add_history(p);
		r = repl_command(&ca, p);
		if (r >= 0) {
			release_line(line, tty);
			if (r)
				break;
			continue;
		}
		cli_interrupted = 0;
		cli_agent_catch_sigint(true);
		rc = skit_agent_send(ca.agent, p, &answer, &err);
		cli_agent_catch_sigint(false);
		cli_agent_end_stream(&ca);
		if (rc)
			cli_error(argv[0], "%s", err.message);
		if (rc == SKIT_ENOTFOUND && *p == '/')
			cli_slash_hint(ca.reg, p, true);
		cli_agent_warn_planted(&ca, argv[0]);
		skit_free(answer);
		release_line(line, tty);
	}
	if (hist)
		write_history(hist);
	skitx_free(hist);
	/* The session ends well unless its last message failed badly. */
	if (rc == SKIT_ELIMIT || rc == SKIT_ECANCELED || rc == SKIT_ENOTFOUND)
		rc = 0;
	return cli_agent_close(&ca, rc, argv[0]);
}
