/* SPDX-License-Identifier: MIT */
/*
 * agent_opts.h - what `skit run` and `skit chat` share: the model and
 * budget options, opening registry + model + agent, the trace and
 * streamed-answer output, and mapping results to exit codes.
 *
 * Options (CLI_AGENT_LONGOPTS; pass every getopt result to
 * cli_agent_option() first):
 *   --model PROVIDER:MODEL   openai:..., anthropic:..., replay:FILE
 *   --max-turns N  --max-tool-calls N  --max-script-runs N  --max-tokens N
 *   --max-skills-per-turn N  --budget CHARS|Ntok  --search
 *   --json-actions  --no-stream  --script-timeout SECS  --workdir DIR
 *   --runs-dir DIR  --no-audit  --request-log FILE  --trace  --quiet
 *   --sandbox MODE  --disk-cap MIB  --keep-temp  --approve-mcp NAME
 *   plus the roots options (--root, --config, --no-config).
 */
#ifndef SKIT_CLI_AGENT_OPTS_H
#define SKIT_CLI_AGENT_OPTS_H

#include <signal.h>

#include "cli/roots.h"

enum {
	CLI_OPT_MODEL = 0x1100,
	CLI_OPT_MAX_TURNS,
	CLI_OPT_MAX_TOOL_CALLS,
	CLI_OPT_MAX_SCRIPTS,
	CLI_OPT_MAX_TOKENS,
	CLI_OPT_MAX_SKILLS,
	CLI_OPT_BUDGET,
	CLI_OPT_SEARCH,
	CLI_OPT_JSON_ACTIONS,
	CLI_OPT_NO_STREAM,
	CLI_OPT_SCRIPT_TIMEOUT,
	CLI_OPT_WORKDIR,
	CLI_OPT_RUNS_DIR,
	CLI_OPT_NO_AUDIT,
	CLI_OPT_REQUEST_LOG,
	CLI_OPT_TRACE,
	CLI_OPT_QUIET,
	CLI_OPT_ALLOW,
	CLI_OPT_DENY,
	CLI_OPT_YES,
	CLI_OPT_NO_NETWORK,
	CLI_OPT_NETWORK,
	CLI_OPT_NO_FILE_TOOLS,
	CLI_OPT_NO_DYNAMIC_CONTEXT,
	CLI_OPT_NO_PROJECT_INSTRUCTIONS,
	CLI_OPT_NO_LSP,
	CLI_OPT_PLAN_MODE,
	CLI_OPT_SANDBOX,
	CLI_OPT_KEEP_TEMP,
	CLI_OPT_DISK_CAP,
	CLI_OPT_PROJECT,
	CLI_OPT_APPROVE_MCP,
	CLI_OPT_CONTEXT_WINDOW,
	CLI_OPT_RESUME,
	CLI_OPT_CONTINUE,
};

/* clang-format off */
#define CLI_AGENT_LONGOPTS                                                 \
	CLI_ROOTS_LONGOPTS,                                                \
	{ "model", required_argument, NULL, CLI_OPT_MODEL },               \
	{ "max-turns", required_argument, NULL, CLI_OPT_MAX_TURNS },       \
	{ "max-tool-calls", required_argument, NULL, CLI_OPT_MAX_TOOL_CALLS }, \
	{ "max-script-runs", required_argument, NULL, CLI_OPT_MAX_SCRIPTS }, \
	{ "max-tokens", required_argument, NULL, CLI_OPT_MAX_TOKENS },     \
	{ "max-skills-per-turn", required_argument, NULL, CLI_OPT_MAX_SKILLS }, \
	{ "budget", required_argument, NULL, CLI_OPT_BUDGET },             \
	{ "search", no_argument, NULL, CLI_OPT_SEARCH },                   \
	{ "json-actions", no_argument, NULL, CLI_OPT_JSON_ACTIONS },       \
	{ "no-stream", no_argument, NULL, CLI_OPT_NO_STREAM },             \
	{ "script-timeout", required_argument, NULL, CLI_OPT_SCRIPT_TIMEOUT }, \
	{ "workdir", required_argument, NULL, CLI_OPT_WORKDIR },           \
	{ "runs-dir", required_argument, NULL, CLI_OPT_RUNS_DIR },         \
	{ "no-audit", no_argument, NULL, CLI_OPT_NO_AUDIT },               \
	{ "request-log", required_argument, NULL, CLI_OPT_REQUEST_LOG },   \
	{ "trace", no_argument, NULL, CLI_OPT_TRACE },                     \
	{ "quiet", no_argument, NULL, CLI_OPT_QUIET },                     \
	{ "allow", required_argument, NULL, CLI_OPT_ALLOW },               \
	{ "deny", required_argument, NULL, CLI_OPT_DENY },                 \
	{ "yes", no_argument, NULL, CLI_OPT_YES },                         \
	{ "no-network", no_argument, NULL, CLI_OPT_NO_NETWORK },           \
	{ "network", no_argument, NULL, CLI_OPT_NETWORK },                 \
	{ "no-file-tools", no_argument, NULL, CLI_OPT_NO_FILE_TOOLS },     \
	{ "no-dynamic-context", no_argument, NULL,                         \
	  CLI_OPT_NO_DYNAMIC_CONTEXT },                                    \
	{ "no-project-instructions", no_argument, NULL,                    \
	  CLI_OPT_NO_PROJECT_INSTRUCTIONS },                               \
	{ "no-lsp", no_argument, NULL, CLI_OPT_NO_LSP },                   \
	{ "plan-mode", no_argument, NULL, CLI_OPT_PLAN_MODE },             \
	{ "sandbox", required_argument, NULL, CLI_OPT_SANDBOX },           \
	{ "keep-temp", no_argument, NULL, CLI_OPT_KEEP_TEMP },             \
	{ "disk-cap", required_argument, NULL, CLI_OPT_DISK_CAP },         \
	{ "project", required_argument, NULL, CLI_OPT_PROJECT },          \
	{ "approve-mcp", required_argument, NULL, CLI_OPT_APPROVE_MCP },   \
	{ "context-window", required_argument, NULL, CLI_OPT_CONTEXT_WINDOW }, \
	{ "resume", optional_argument, NULL, CLI_OPT_RESUME },             \
	{ "continue", no_argument, NULL, CLI_OPT_CONTINUE }

#define CLI_AGENT_HELP                                                     \
	"  --model PROVIDER:MODEL  openai:MODEL, anthropic:MODEL or "      \
	"replay:CASSETTE.jsonl\n"                                          \
	"                      (default: $SKIT_MODEL, else openai or "     \
	"anthropic when\n"                                                 \
	"                      their API key is set, else replay:"         \
	"$SKIT_CASSETTE)\n"                                                \
	"  --max-turns N       model calls per task (default 25)\n"        \
	"  --max-tool-calls N  tool calls per task (default 100)\n"        \
	"  --max-script-runs N script runs per task (default 20)\n"        \
	"  --max-tokens N      input+output tokens for the session "       \
	"(default: no limit)\n"                                            \
	"  --max-skills-per-turn N  skill bodies loaded per turn "         \
	"(default 2)\n"                                                    \
	"  --budget CHARS|Ntok skills index budget (default 32000 "        \
	"characters)\n"                                                    \
	"  --search            always offer the search_skills tool\n"      \
	"  --json-actions      the model has no tool calling: use the "    \
	"JSON action protocol\n"                                           \
	"  --no-stream         do not stream responses\n"                  \
	"  --script-timeout S  seconds per script run (default 120)\n"     \
	"  --allow PATTERN     pre-approve matching calls, e.g. "          \
	"'Bash(git:*)' (repeatable)\n"                                     \
	"  --deny PATTERN      refuse matching calls (repeatable; deny "   \
	"wins)\n"                                                          \
	"  --yes               approve every call that would need "        \
	"approval\n"                                                       \
	"  --approve-mcp NAME  start the project's MCP server NAME "      \
	"without asking,\n"                                               \
	"                      for this run only (repeatable)\n"          \
	"  --no-network        no network for any call or program\n"      \
	"  --network           scripts and shell calls get the whole "     \
	"network (no skill can\n"                                           \
	"                      grant it; without it only the WebFetch "   \
	"domains you allow,\n"                                             \
	"                      over HTTP(S) through skit's proxy)\n"      \
	"  --no-file-tools     offer only the skill tools (no read_file, " \
	"grep, shell...)\n"                                                \
	"  --no-dynamic-context  leave a skill body's !`command` lines "     \
	"as written\n"                                                     \
	"                      (default: run them as shell calls at "      \
	"activation)\n"                                                    \
	"  --no-project-instructions  leave AGENTS.md and CLAUDE.md out of " \
	"the system\n"                                                     \
	"                      prompt (default: read from trusted "        \
	"folders)\n"                                                       \
	"  --no-lsp            no lsp tool (default: the language servers " \
	"of the user\n"                                                    \
	"                      config and those on PATH, in trusted "      \
	"projects)\n"                                                      \
	"  --plan-mode         start in plan mode: only tools that read, "  \
	"until you approve\n"                                               \
	"                      the model's plan (docs/agent.md, \"Plan "   \
	"mode\")\n"                                                         \
	"  --project DIR       the project the run works on (default: the "  \
	"nearest folder\n"                                                  \
	"                      above holding .agents, .agent, .claude or "  \
	".git)\n"                                                          \
		"  --sandbox MODE      read-only, workspace-write (default) or "  \
	"full-access:\n"                                                   \
	"                      what scripts and shell calls may write\n"   \
	"  --disk-cap MIB      disk a script run, and a task, may fill "   \
	"(default 1024)\n"                                                 \
	"  --keep-temp         keep the run's private temporary folder "   \
	"(HOME, TMPDIR)\n"                                                 \
	"  --continue          continue this project's last session "     \
	"(its conversation,\n"                                             \
	"                      active skills and plan)\n"                  \
	"  --resume [ID|last]  continue the session ID (`skit runs list` " \
	"shows them)\n"                                                    \
	"  --context-window N  the model's context window in tokens "      \
	"(default: known\n"                                                \
	"                      models' own, else 128000); the "            \
	"conversation is\n"                                                \
	"                      compacted past 80 percent of it\n"                 \
	"  --workdir DIR       use DIR as that folder (kept; default: a "  \
	"fresh one)\n"                                                     \
	"  --runs-dir DIR      audit trail folder (default: "              \
	"<project>/.agents/runs)\n"                                        \
	"  --no-audit          write no audit trail\n"                     \
	"  --request-log FILE  append every model request to FILE "        \
	"(JSON lines)\n"                                                   \
	"  --trace             show the trace on stderr even when it is "  \
	"not a terminal\n"                                                 \
	"  --quiet             no trace\n"                                 \
	CLI_ROOTS_HELP
/* clang-format on */

struct cli_agent {
	struct cli_roots roots;
	int argc;    /* the command's arguments, to print an approving */
	char **argv; /* command line; argv[0] is the verb */
	const char *allow[SKIT_POLICY_MAX_PATTERNS];
	const char *deny[SKIT_POLICY_MAX_PATTERNS];
	size_t nallow, ndeny;
	const char *approve_mcp[32]; /* --approve-mcp NAME */
	size_t napprove_mcp;
	bool yes, no_network, network, no_file_tools, no_dynamic_context;
	bool no_project_instructions; /* --no-project-instructions */
	bool no_lsp;                  /* --no-lsp */
	bool plan_mode;               /* --plan-mode */
	bool sandbox, keep_temp;      /* --sandbox given; --keep-temp */
	skit_sandbox_mode sandbox_mode;
	uint64_t disk_cap;               /* --disk-cap, bytes; 0: config */
	skit_sandbox_config sandbox_cfg; /* from the config files */
	const char *model, *workdir, *runs_dir, *request_log, *project;
	const char *resume;                /* --resume ID, --continue: "last" */
	unsigned long long context_window; /* --context-window */
	skit_model_options mo;             /* as the model was made (/model) */
	skit_agent_options ao;             /* as the agent was made (/clear) */
	char *resume_path;                 /* the session file resumed */
	bool no_audit, search, json_actions, no_stream, trace, quiet;
	unsigned int max_turns, max_tool_calls, max_scripts, max_skills;
	unsigned long long max_tokens;
	size_t budget;
	long script_timeout_ms;

	/* Filled by cli_agent_open(). */
	skit_registry *reg;
	skit_model *mod;
	skit_agent *agent;
	skit_policy *policy;
	char *project_found;     /* the project when the registry found none */
	bool project_config_off; /* untrusted: its config files are not read */
	char *runs_dir_owned;
	struct cli_lsp *lsp; /* the lsp tool's servers (ao borrows them) */
	bool show_trace;
	struct cli_style style;
	char pend[5]; /* a UTF-8 sequence cut by a stream chunk */
	size_t npend;
	bool at_line_start;
	bool turn_break; /* a model turn began: end the last turn's line */
};

/* One language server of the lsp tool as the CLI knows it (agent_lsp.c):
 * a built-in default or an entry of a config's "lsp" object. */
/* The config files run and chat read, in their order: the user's (none
 * with `no_config`), the project's .agents/skit.json (`project`, when
 * given: a trusted one), `config` (--config). Each owned; NULL for none
 * or on no memory. */
void cli_config_files(bool no_config, const char *config, const char *project,
                      char *files[3]);

struct cli_lsp_entry {
	char *name, *lang;
	char **argv, **ext; /* NULL-ended */
	bool off;           /* "name": false, or a built-in not turned on */
	bool user;          /* defined by a config file (else built-in) */
	bool runs_code;     /* a built-in that runs the project's code:
	                       off unless the config says "name": true */
};

/* The servers a run gives the agent (`v`, `n` of them, borrowing from
 * `e`), and every entry known, for doctor. */
struct cli_lsp {
	skit_lsp_server v[SKIT_AGENT_MAX_LSP_SERVERS];
	size_t n;
	struct cli_lsp_entry e[SKIT_AGENT_MAX_LSP_SERVERS + 5];
	size_t ne;
};

/*
 * The built-in servers, then the "lsp" objects of the config files
 * `files` (NULL entries skipped; a missing file is none); a file that is
 * not `trusted` (a project's) may not name servers: a one-line warning
 * on stderr, and it is ignored. `v` gets the servers that are on (a
 * built-in only when its program is on PATH). 0, or -1 with a one-line
 * reason in `why`. Release with cli_lsp_release() either way.
 */
int cli_lsp_load(struct cli_lsp *l, char *const files[], const bool trusted[],
                 size_t nfiles, char *why, size_t cap);

void cli_lsp_release(struct cli_lsp *l);

/* The program `prog` as PATH finds it (owned), or NULL. */
char *cli_lsp_which(const char *prog);

/*
 * Write `s` exactly and safely for a terminal: a newline as "⏎", every
 * control, bidi, zero-width or odd-space character as \u{XXXX}, a byte
 * of invalid UTF-8 as \x{XX} (in `st`'s yellow), so what the user
 * approves is what runs and nothing in it can reorder or hide the rest.
 */
void cli_put_exact(FILE *f, const char *s, const struct cli_style *st);

/* The flag SIGINT sets; the agent polls it. */
extern volatile sig_atomic_t cli_interrupted;

/* 1 when handled, 0 when `c` is not an agent option, CLI_USAGE on error. */
int cli_agent_option(struct cli_agent *ca, int c, const char *arg,
                     const char *verb);

/*
 * Scan the skills, create the model and the agent. With `stream_answer`
 * the answer is written to stdout as it arrives. Returns CLI_OK, or an
 * exit status after printing the error.
 */
int cli_agent_open(struct cli_agent *ca, bool stream_answer, const char *verb);

/* Whether `s` reads as a session id (a run id, its start, or "last"). */
bool cli_session_id_like(const char *s);

/*
 * Chat's /clear and /resume: finish the agent's session and start
 * another, continuing the session `resume` ("last", an id) or, NULL, a
 * new one. Returns CLI_OK, or an exit status after printing the error
 * (the old session goes on when the new one cannot start).
 */
int cli_agent_restart(struct cli_agent *ca, const char *resume,
                      const char *verb);

/* Chat's /model: use the model `spec` from the next request on. */
int cli_agent_switch_model(struct cli_agent *ca, const char *spec,
                           const char *verb);

/* Install / remove the SIGINT handler that sets cli_interrupted. */
void cli_agent_catch_sigint(bool on);

/* The exit status for an agent result (0, 1, or 130 when canceled). */
int cli_agent_exit_code(int rc);

/* Flush a cut UTF-8 sequence and end the streamed answer's line. */
void cli_agent_end_stream(struct cli_agent *ca);

/* Finish the run (run.json), free everything, say where the trail is. */
int cli_agent_close(struct cli_agent *ca, int rc, const char *verb);

/* After a task: one warning line on stderr for each entry its programs
 * planted in the project (skit_agent_planted()). */
void cli_agent_warn_planted(struct cli_agent *ca, const char *verb);

#endif
