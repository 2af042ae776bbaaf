/* SPDX-License-Identifier: MIT */
/*
 * policy_pattern.c - permission patterns: the tool table, the grammar
 * (what skit_policy_add() and skit_allowed_tools_parse() accept) and what
 * a parsed pattern covers; command patterns are matched by
 * policy_shell.c.
 *
 * Matching has two moods. Permissive lists (allow, --allow, allowed-tools)
 * grant, so they match conservatively: `Bash(git:*)` does not match a
 * command holding shell operators, since "git log; rm -rf ~" is not a git
 * command. Restrictive lists (deny, --deny, ask) refuse, so they match
 * eagerly: `Bash(rm:*)` matches any simple command of a compound line.
 * Neither is a sandbox; sandbox.c is the boundary.
 */
#include "common.h"

#include "lib/core/error.h"
#include "lib/policy/policy_int.h"

/* Tool classes: what a Claude-style pattern name stands for. */
enum {
	C_READ = 1u << 0,
	C_WRITE = 1u << 1,
	C_EDIT = 1u << 2,
	C_BASH = 1u << 3,
	C_GREP = 1u << 4,
	C_GLOB = 1u << 5,
	C_LS = 1u << 6,
	C_WEBFETCH = 1u << 7,
	C_WEBSEARCH = 1u << 8,
	C_ASK = 1u << 9,
	C_TASK = 1u << 10,
	C_SKILL = 1u << 11,
	C_PLAN = 1u << 12,
	C_LSP = 1u << 13,
	C_TOOLS = 1u << 14,
	C_MCPRES = 1u << 15,
	C_PLANMODE = 1u << 16,
};

/*
 * Write, Edit and MultiEdit all name "changes a file" (Claude Code's Edit
 * rules cover every tool that edits a file; MultiEdit is its tool of
 * several edits), and Read also covers the tools that read files to
 * search or list them (as Claude Code does).
 */
const struct tool skit__policy_tools[] = {
	{ "Read", C_READ, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "Write", C_WRITE, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "Edit", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "MultiEdit", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "Bash", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "Grep", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "Glob", C_GLOB, C_GLOB | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "LS", C_LS, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "WebFetch", C_WEBFETCH, C_WEBFETCH, ARG_DOMAIN, SKIT_RISK_NETWORK,
	  false },
	{ "WebSearch", C_WEBSEARCH, C_WEBSEARCH, ARG_NONE, SKIT_RISK_NETWORK,
	  false },
	{ "AskUserQuestion", C_ASK, C_ASK, ARG_NONE, SKIT_RISK_READ, false },
	/* Claude Code's subagent tool, under both of its names. */
	{ "Task", C_TASK, C_TASK, ARG_NONE, SKIT_RISK_READ, false },
	{ "Agent", C_TASK, C_TASK, ARG_NONE, SKIT_RISK_READ, false },
	/* Claude Code's Skill (a skill by name: Skill(pdf)) is use_skill;
	 * its plan tools, old (TodoWrite) and new (TaskCreate...), are
	 * update_plan. skit never gates either: they are accepted in
	 * allowed-tools and allow lists, refused in deny and ask lists. */
	{ "Skill", C_SKILL, C_SKILL, ARG_SKILL, SKIT_RISK_READ, false },
	{ "SlashCommand", C_SKILL, C_SKILL, ARG_SKILL, SKIT_RISK_READ, false },
	{ "TodoWrite", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "TodoRead", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "TaskCreate", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "TaskUpdate", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "TaskList", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "TaskGet", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	/* Claude Code's message to a subagent it started (send_message):
	 * a task call, which Task and Agent patterns cover too. */
	{ "SendMessage", C_TASK, C_TASK, ARG_NONE, SKIT_RISK_READ, false },
	/* Its search of the deferred tools (tool_search): never gated, it
	 * only shows what tools there are. */
	{ "ToolSearch", C_TOOLS, C_TOOLS, ARG_NONE, SKIT_RISK_READ, false },
	/* Its code intelligence (lsp), which reads the file it is given:
	 * Read rules cover it too. */
	{ "LSP", C_LSP, C_LSP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	/* Its plan mode's tools (enter_plan_mode, exit_plan_mode): never
	 * gated, they only restrict or ask. */
	{ "EnterPlanMode", C_PLANMODE, C_PLANMODE, ARG_NONE, SKIT_RISK_READ,
	  false },
	{ "ExitPlanMode", C_PLANMODE, C_PLANMODE, ARG_NONE, SKIT_RISK_READ,
	  false },
	/* Its tools of MCP servers' resources (list_mcp_resources,
	 * read_mcp_resource); Cline's access_mcp_resource. */
	{ "ListMcpResourcesTool", C_MCPRES, C_MCPRES, ARG_NONE, SKIT_RISK_READ,
	  false },
	{ "ReadMcpResourceTool", C_MCPRES, C_MCPRES, ARG_NONE, SKIT_RISK_READ,
	  false },
	{ "access_mcp_resource", C_MCPRES, C_MCPRES, ARG_NONE, SKIT_RISK_READ,
	  false },
	/*
	 * The names other agents give the same tools, as skills written for
	 * them declare them: OpenCode's lower-case ones (bash, read, edit,
	 * list, patch, webfetch, todowrite, question, skill), Gemini CLI's
	 * (run_shell_command, replace, list_directory, search_file_content,
	 * google_web_search, write_todos), Claude's file tools on the web
	 * (bash_tool, view, create_file, str_replace), GitHub Copilot's
	 * (view, create, rg, powershell; run_in_terminal, grep_search,
	 * file_search, fetch_webpage, replace_string_in_file in VS Code)
	 * and Codex's exec. Each stands for the class of its Claude Code
	 * name, with the same argument. PowerShell (Claude Code's shell on
	 * Windows, which skills list beside Bash to run on both) stands for
	 * the shell tool too: skit's shell is /bin/sh.
	 */
	{ "PowerShell", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	/* Cursor's (Shell), Cline's (execute_command) and Windsurf's and
	 * Antigravity's (run_command) */
	{ "Shell", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "execute_command", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE,
	  false },
	{ "run_command", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE,
	  false },
	{ "view_file", C_READ, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "write_to_file", C_WRITE, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "replace_in_file", C_EDIT, C_WRITE | C_EDIT, ARG_PATH,
	  SKIT_RISK_WRITE, false },
	{ "replace_file_content", C_EDIT, C_WRITE | C_EDIT, ARG_PATH,
	  SKIT_RISK_WRITE, false },
	{ "multi_replace_file_content", C_EDIT, C_WRITE | C_EDIT, ARG_PATH,
	  SKIT_RISK_WRITE, false },
	{ "list_files", C_LS, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "search_files", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "codebase_search", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "find_by_name", C_GLOB, C_GLOB | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "read_url_content", C_WEBFETCH, C_WEBFETCH, ARG_DOMAIN,
	  SKIT_RISK_NETWORK, false },
	{ "search_web", C_WEBSEARCH, C_WEBSEARCH, ARG_NONE, SKIT_RISK_NETWORK,
	  false },
	{ "ask_followup_question", C_ASK, C_ASK, ARG_NONE, SKIT_RISK_READ,
	  false },
	{ "ask_question", C_ASK, C_ASK, ARG_NONE, SKIT_RISK_READ, false },
	{ "powershell", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "exec", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "bash", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "bash_tool", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "run_shell_command", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE,
	  false },
	{ "run_in_terminal", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE,
	  false },
	{ "read", C_READ, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "view", C_READ | C_LS, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "write", C_WRITE, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "create_file", C_WRITE, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "create", C_WRITE, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "edit", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "patch", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "replace", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "str_replace", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "replace_string_in_file", C_EDIT, C_WRITE | C_EDIT, ARG_PATH,
	  SKIT_RISK_WRITE, false },
	{ "list", C_LS, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "list_directory", C_LS, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "rg", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "grep_search", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "search_file_content", C_GREP, C_GREP | C_READ, ARG_PATH,
	  SKIT_RISK_READ, false },
	/* VS Code's search by meaning: skit has no index of meanings, the
	 * model searches by words with grep (a read-only search either
	 * way). */
	{ "semantic_search", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "file_search", C_GLOB, C_GLOB | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "webfetch", C_WEBFETCH, C_WEBFETCH, ARG_DOMAIN, SKIT_RISK_NETWORK,
	  false },
	{ "fetch_webpage", C_WEBFETCH, C_WEBFETCH, ARG_DOMAIN,
	  SKIT_RISK_NETWORK, false },
	{ "websearch", C_WEBSEARCH, C_WEBSEARCH, ARG_NONE, SKIT_RISK_NETWORK,
	  false },
	{ "google_web_search", C_WEBSEARCH, C_WEBSEARCH, ARG_NONE,
	  SKIT_RISK_NETWORK, false },
	{ "question", C_ASK, C_ASK, ARG_NONE, SKIT_RISK_READ, false },
	{ "ask_user_question", C_ASK, C_ASK, ARG_NONE, SKIT_RISK_READ, false },
	{ "skill", C_SKILL, C_SKILL, ARG_SKILL, SKIT_RISK_READ, false },
	{ "todowrite", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "todoread", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	{ "write_todos", C_PLAN, C_PLAN, ARG_NONE, SKIT_RISK_READ, false },
	/* VS Code's code intelligence: its errors of a file and the uses of
	 * a symbol are lsp's diagnostics and findReferences. */
	{ "get_errors", C_LSP, C_LSP | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "list_code_usages", C_LSP, C_LSP | C_READ, ARG_PATH, SKIT_RISK_READ,
	  false },
	{ "read_file", 0, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "list_dir", 0, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "grep", 0, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "glob", 0, C_GLOB | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "write_file", 0, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "edit_file", 0, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "multi_edit", 0, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "shell", 0, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	/* skit's WebFetch: WebFetch(domain:HOST) patterns cover it. */
	{ "web_fetch", 0, C_WEBFETCH, ARG_DOMAIN, SKIT_RISK_NETWORK, false },
	{ "run_skill_script", 0, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE,
	  false },
	/* A subagent (subagent.c) reads and runs nothing itself: each call
	 * it makes is decided on its own. Task and Agent patterns cover it,
	 * and a skill's allowed-tools gates it. */
	{ "task", 0, C_TASK, ARG_NONE, SKIT_RISK_READ, false },
	{ "send_message", 0, C_TASK, ARG_NONE, SKIT_RISK_READ, false },
	{ "lsp", 0, C_LSP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	/* An MCP server's resources, read: a deny rule of the server
	 * (mcp__SERVER) covers them too (mcp_client.c). */
	{ "list_mcp_resources", 0, C_MCPRES, ARG_NONE, SKIT_RISK_READ, false },
	{ "read_mcp_resource", 0, C_MCPRES, ARG_NONE, SKIT_RISK_READ, false },
	/* skit's WebSearch, offered only with a search backend. */
	{ "web_search", 0, C_WEBSEARCH, ARG_NONE, SKIT_RISK_NETWORK, false },
	{ "use_skill", 0, C_SKILL, ARG_SKILL, SKIT_RISK_READ, true },
	{ "read_skill_resource", 0, 0, ARG_NONE, SKIT_RISK_READ, true },
	{ "search_skills", 0, 0, ARG_NONE, SKIT_RISK_READ, true },
	{ "update_plan", 0, C_PLAN, ARG_NONE, SKIT_RISK_READ, true },
	/* Asking the user reads nothing and runs nothing: like the skill
	 * tools, never gated by a skill's allowed-tools. */
	{ "ask_user", 0, C_ASK, ARG_NONE, SKIT_RISK_READ, true },
	{ "tool_search", 0, C_TOOLS, ARG_NONE, SKIT_RISK_READ, true },
	{ "enter_plan_mode", 0, C_PLANMODE, ARG_NONE, SKIT_RISK_READ, true },
	{ "exit_plan_mode", 0, C_PLANMODE, ARG_NONE, SKIT_RISK_READ, true },
	/* External tools named mcp__SERVER__TOOL: the tools of MCP servers
	 * and an embedder's own (skit_agent_options.tools). The names never
	 * parse as a pattern's tool name; patterns and calls reach them
	 * through skit__policy_mcp_name(). One row per risk class, in the
	 * order of skit_risk: an MCP tool is read-only when the server
	 * annotates readOnlyHint, else execute; an embedder says which. */
	{ "mcp (read-only)", 0, 0, ARG_NONE, SKIT_RISK_READ, false },
	{ "mcp (execute)", 0, 0, ARG_NONE, SKIT_RISK_EXECUTE, false },
	{ "mcp (write)", 0, 0, ARG_NONE, SKIT_RISK_WRITE, false },
	{ "mcp (network)", 0, 0, ARG_NONE, SKIT_RISK_NETWORK, false },
};

#define MCP_PREFIX "mcp__"
/* The first external row; the row of risk r is MCP_READ_T + r. */
#define MCP_READ_T ((int)SKIT_ARRAY_SIZE(skit__policy_tools) - 4)
#define MCP_EXEC_T (MCP_READ_T + SKIT_RISK_EXECUTE)

/* ---- tool table ------------------------------------------------------- */

int skit__policy_tool_index(const char *name, size_t len)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(skit__policy_tools); i++)
		if (strlen(skit__policy_tools[i].name) == len &&
		    !memcmp(skit__policy_tools[i].name, name, len))
			return (int)i;
	return -1;
}

bool skit__policy_tool_offered(const char *name, size_t len, unsigned int have)
{
	unsigned int c;

	int t;

	if (skit__policy_mcp_name(name, len) == len && len)
		return true;
	t = skit__policy_tool_index(name, len);
	if (t < 0 || t >= MCP_READ_T)
		return false;
	c = skit__policy_tools[t].denotes | skit__policy_tools[t].classes;
	if ((c & C_WEBSEARCH) && !(have & SKIT__OFFER_SEARCH))
		return false;
	return !(c & C_LSP) || (have & SKIT__OFFER_LSP);
}

bool skit__policy_tool_open_only(int t)
{
	const struct tool *pt = &skit__policy_tools[t];

	if (!pt->denotes)
		return pt->skill_tool;
	/* the tools themselves are the rows of skit's own names */
	for (int i = 0; i < MCP_READ_T; i++)
		if (!skit__policy_tools[i].denotes &&
		    (skit__policy_tools[i].classes & pt->denotes) &&
		    !skit__policy_tools[i].skill_tool)
			return false;
	return true;
}

/* For "did you mean": the tool whose name differs only in case. */
static const char *tool_case_match(const char *name, size_t len)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(skit__policy_tools); i++) {
		const char *t = skit__policy_tools[i].name;
		size_t j;

		if (strlen(t) != len)
			continue;
		for (j = 0; j < len; j++) {
			char a = t[j], b = name[j];

			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
		}
		if (j == len)
			return t;
	}
	return NULL;
}

/* ---- pattern parsing -------------------------------------------------- */

static int perr_set(struct perr *pe, int code, size_t pos, const char *fmt, ...)
        SKIT_PRINTF(4, 5);

static int perr_set(struct perr *pe, int code, size_t pos, const char *fmt, ...)
{
	va_list ap;

	pe->code = code;
	pe->pos = pos;
	va_start(ap, fmt);
	vsnprintf(pe->msg, sizeof(pe->msg), fmt, ap);
	va_end(ap);
	return code;
}

/*
 * A path glob, relative to the project folder: repeated slashes and "."
 * components go, "/" in front and ".." components are refused (a pattern
 * cannot name what lies outside the project). `off` is the argument's
 * offset in the pattern, for positions.
 */
static int clean_path_arg(char **out, const char *s, size_t len, size_t off,
                          struct perr *pe)
{
	char *buf, *w;
	size_t i = 0;

	if (s[0] == '/' || s[0] == '~')
		return perr_set(
		        pe, SKIT_EINVALID, off,
		        "path patterns are relative to the project folder");
	buf = skitx_malloc(len + 1);
	if (!buf)
		return SKIT_ENOMEM;
	w = buf;
	while (i < len) {
		size_t start = i, clen;

		while (i < len && s[i] != '/')
			i++;
		clen = i - start;
		if (i < len)
			i++;
		if (!clen || (clen == 1 && s[start] == '.'))
			continue;
		if (clen == 2 && s[start] == '.' && s[start + 1] == '.') {
			skitx_free(buf);
			return perr_set(
			        pe, SKIT_EINVALID, off + start,
			        "'..' is not allowed in a path pattern");
		}
		/* Several "**" in a row match what one does. */
		if (clen == 2 && !memcmp(s + start, "**", 2) && w - buf >= 2 &&
		    !memcmp(w - 2, "**", 2) && (w - buf == 2 || w[-3] == '/'))
			continue;
		if (w != buf)
			*w++ = '/';
		memcpy(w, s + start, clen);
		w += clen;
	}
	*w = '\0';
	*out = buf;
	return 0;
}

/* A command: blanks folded to single spaces; a trailing ":*" is a prefix. */
static int clean_command_arg(char **out, bool *prefix, const char *s,
                             size_t len, size_t off, struct perr *pe)
{
	char *buf, *w;

	*prefix = false;
	while (len && skit__policy_is_blank(s[len - 1]))
		len--;
	if (len >= 2 && s[len - 2] == ':' && s[len - 1] == '*') {
		*prefix = true;
		len -= 2;
	}
	while (len && skit__policy_is_blank(s[len - 1]))
		len--;
	while (len && skit__policy_is_blank(*s)) {
		s++;
		off++;
		len--;
	}
	if (!len)
		return perr_set(pe, SKIT_EINVALID, off, "empty command");
	buf = skitx_malloc(len + 1);
	if (!buf)
		return SKIT_ENOMEM;
	w = buf;
	for (size_t i = 0; i < len; i++) {
		if (skit__policy_is_blank(s[i])) {
			if (w[-1] != ' ')
				*w++ = ' ';
			continue;
		}
		*w++ = s[i];
	}
	*w = '\0';
	*out = buf;
	return 0;
}

/* "domain:HOST": HOST lower-cased; letters, digits, '-' and inner dots. */
static int clean_domain_arg(char **out, const char *s, size_t len, size_t off,
                            struct perr *pe)
{
	static const char prefix[] = "domain:";
	size_t plen = sizeof(prefix) - 1;
	char *buf;

	if (len < plen || memcmp(s, prefix, plen))
		return perr_set(pe, SKIT_EINVALID, off,
		                "expected \"domain:HOST\"");
	s += plen;
	len -= plen;
	off += plen;
	if (!len || len >= HOST_BUF)
		return perr_set(pe, SKIT_EINVALID, off,
		                "host name must have 1 to %d bytes",
		                HOST_BUF - 1);
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '-' ||
		          (c == '.' && i && i + 1 < len && s[i - 1] != '.');

		if (!ok)
			return perr_set(pe, SKIT_EINVALID, off + i,
			                "invalid character in host name");
	}
	buf = skitx_strndup(s, len);
	if (!buf)
		return SKIT_ENOMEM;
	for (char *c = buf; *c; c++)
		if (*c >= 'A' && *c <= 'Z')
			*c = (char)(*c - 'A' + 'a');
	*out = buf;
	return 0;
}

/* Skill(NAME): a skill's name as the spec spells one ([a-z0-9-]). */
static int clean_skill_arg(char **out, const char *s, size_t len, size_t off,
                           struct perr *pe)
{
	size_t ns = 0;

	/* Claude Code's other spellings of a skill or command: its old
	 * SlashCommand(/name) and (/name:*), and a plugin's skill
	 * (plugin:name); skit keeps the name. */
	if (len && *s == '/') {
		s++;
		len--;
		off++;
	}
	if (len >= 2 && s[len - 2] == ':' && s[len - 1] == '*')
		len -= 2;
	for (size_t i = 0; i < len; i++)
		if (s[i] == ':')
			ns = i + 1;
	if (ns == 1)
		return perr_set(pe, SKIT_EINVALID, off,
		                "no plugin name before ':'");
	for (size_t i = 0; i + 1 < ns; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("-_.", s[i])))
			return perr_set(pe, SKIT_EINVALID, off + i,
			                "a plugin's name has only letters, "
			                "digits, '-', '_' and '.'");
	s += ns;
	len -= ns;
	off += ns;
	if (!len)
		return perr_set(pe, SKIT_EINVALID, off, "no skill name");
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return perr_set(pe, SKIT_EINVALID, off + i,
			                "a skill's name has only a-z, 0-9 and "
			                "'-'");
	*out = skitx_strndup(s, len);
	return *out ? 0 : SKIT_ENOMEM;
}

/*
 * run_skill_script(SKILL:PATH...): split off the skill's name, when the
 * argument starts with one ([a-z0-9-], as skill names are) and a ':'
 * that neither ends it nor starts ":*". 0 (with *skill NULL when there
 * is none) or SKIT_ENOMEM.
 */
static int split_skill(char **skill, const char **a, size_t *alen, size_t *off)
{
	size_t n = 0;

	*skill = NULL;
	while (n < *alen &&
	       (((*a)[n] >= 'a' && (*a)[n] <= 'z') ||
	        ((*a)[n] >= '0' && (*a)[n] <= '9') || (*a)[n] == '-'))
		n++;
	if (!n || n + 1 >= *alen || (*a)[n] != ':' || (*a)[n + 1] == '*' ||
	    skit__policy_is_blank((*a)[n + 1]))
		return 0;
	*skill = skitx_strndup(*a, n);
	if (!*skill)
		return SKIT_ENOMEM;
	*a += n + 1;
	*alen -= n + 1;
	*off += n + 1;
	return 0;
}

/* A character of an MCP server or tool name (as servers spell them). */
static bool is_mcp_char(char c)
{
	return skit__policy_is_name_char(c, false) || c == '-' || c == '.';
}

/*
 * The length of the MCP tool pattern at `s` ("mcp__SERVER", optionally
 * "__TOOL", optionally ending in '*'), or 0 when `s` is not one.
 */
size_t skit__policy_mcp_name(const char *s, size_t len)
{
	size_t n = strlen(MCP_PREFIX), i;

	if (len <= n || memcmp(s, MCP_PREFIX, n))
		return 0;
	for (i = n; i < len && is_mcp_char(s[i]); i++)
		;
	if (i < len && s[i] == '*')
		i++;
	return i;
}

/*
 * Whether MCP pattern `pat` covers the tool `name`: the same name, a
 * prefix ending in '*', or a bare "mcp__SERVER" for every tool of it.
 */
bool skit__policy_mcp_match(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	if (n && pat[n - 1] == '*')
		return !strncmp(pat, name, n - 1);
	if (!strcmp(pat, name))
		return true;
	if (!strstr(pat + strlen(MCP_PREFIX), "__"))
		return !strncmp(pat, name, n) && !strncmp(name + n, "__", 2);
	return false;
}

void skit__policy_pattern_release(struct pattern *pat)
{
	skitx_free(pat->text);
	skitx_free(pat->arg);
	skitx_free(pat->skill);
	skitx_free(pat->mcp);
	pat->text = pat->arg = pat->skill = pat->mcp = NULL;
}

/*
 * Parse the `len` bytes at `s` (already split out and trimmed) into
 * `pat`. An unknown name is reported through `*unknown` when it is not
 * NULL, and is an error otherwise.
 */
int skit__policy_parse_pattern(struct pattern *pat, const char *s, size_t len,
                               bool *unknown, struct perr *pe)
{
	size_t name_len = 0, open, depth = 0, i;
	const struct tool *t;
	int error = 0;

	memset(pat, 0, sizeof(*pat));
	pat->tool = -1;
	if (!len)
		return perr_set(pe, SKIT_EINVALID, 0, "empty pattern");
	if (len > SKIT_POLICY_MAX_PATTERN)
		return perr_set(pe, SKIT_ETOOBIG, SKIT_POLICY_MAX_PATTERN,
		                "pattern is %zu bytes, limit is %d", len,
		                SKIT_POLICY_MAX_PATTERN);
	for (i = 0; i < len; i++)
		if (((unsigned char)s[i] < 0x20 && s[i] != '\t') ||
		    s[i] == 0x7f)
			return perr_set(pe, SKIT_EINVALID, i,
			                "control character in pattern");
	name_len = skit__policy_mcp_name(s, len);
	if (name_len) {
		if (name_len < len)
			return perr_set(
			        pe, SKIT_EINVALID, name_len,
			        s[name_len] == '('
			                ? "an MCP tool takes no argument"
			                : "unexpected '%c' in an MCP "
			                  "tool name",
			        s[name_len]);
		pat->tool = MCP_EXEC_T;
		pat->mcp = skitx_strndup(s, len);
		pat->text = skitx_strndup(s, len);
		if (!pat->mcp || !pat->text) {
			skit__policy_pattern_release(pat);
			return SKIT_ENOMEM;
		}
		return 0;
	}
	while (name_len < len &&
	       skit__policy_is_name_char(s[name_len], !name_len))
		name_len++;
	if (!name_len)
		return perr_set(pe, SKIT_EINVALID, 0,
		                s[0] == '('
		                        ? "missing tool name"
		                        : "tool name must start with a letter");
	if (name_len < len && s[name_len] != '(')
		return perr_set(pe, SKIT_EINVALID, name_len,
		                "unexpected '%c' after tool name", s[name_len]);

	/* The argument runs to the ')' that balances the first '('. */
	open = name_len;
	if (open < len) {
		for (i = open; i < len; i++) {
			if (s[i] == '(')
				depth++;
			else if (s[i] == ')' && !--depth)
				break;
		}
		if (i == len)
			return perr_set(pe, SKIT_EINVALID, open,
			                "unclosed '('");
		if (i + 1 != len)
			return perr_set(pe, SKIT_EINVALID, i + 1,
			                "unexpected text after ')'");
		if (i == open + 1)
			return perr_set(pe, SKIT_EINVALID, open + 1,
			                "empty argument");
	}

	pat->tool = skit__policy_tool_index(s, name_len);
	if (pat->tool < 0) {
		const char *near = tool_case_match(s, name_len);

		if (!unknown)
			return near ? perr_set(
			                      pe, SKIT_EINVALID, 0,
			                      "unknown tool '%.*s' (did you mean "
			                      "'%s'?)",
			                      (int)name_len, s, near)
			            : perr_set(pe, SKIT_EINVALID, 0,
			                       "unknown tool '%.*s'",
			                       (int)name_len, s);
		*unknown = true;
	} else if (open < len) {
		const char *a = s + open + 1;
		size_t alen = len - open - 2, off = open + 1;

		t = &skit__policy_tools[pat->tool];
		switch (t->arg) {
		case ARG_NONE:
			/* WebSearch(*), Task(*): every call, as the bare
			 * name says */
			if (alen == 1 && *a == '*')
				break;
			return perr_set(pe, SKIT_EINVALID, open,
			                "'%s' takes no argument", t->name);
		case ARG_PATH:
			error = clean_path_arg(&pat->arg, a, alen, off, pe);
			break;
		case ARG_COMMAND:
			if (!strcmp(t->name, RUN_SKILL_SCRIPT)) {
				error = split_skill(&pat->skill, &a, &alen,
				                    &off);
				if (error < 0)
					return error;
			}
			error = clean_command_arg(&pat->arg, &pat->prefix, a,
			                          alen, off, pe);
			/* run_skill_script(SKILL:PATH): any arguments */
			if (!error && pat->skill && !strchr(pat->arg, ' '))
				pat->prefix = true;
			break;
		case ARG_SKILL:
			error = clean_skill_arg(&pat->arg, a, alen, off, pe);
			break;
		default:
			error = clean_domain_arg(&pat->arg, a, alen, off, pe);
			break;
		}
		if (error < 0) {
			/* a skill split out before */
			skit__policy_pattern_release(pat);
			return error;
		}
	}
	pat->text = skitx_strndup(s, len);
	if (!pat->text) {
		skit__policy_pattern_release(pat);
		return SKIT_ENOMEM;
	}
	return 0;
}

int skit__policy_plist_push(struct plist *l, struct pattern *pat)
{
	if (l->n == l->alloc) {
		size_t alloc = l->alloc ? l->alloc * 2 : 8;
		struct pattern *v;

		if (alloc > SKIT_POLICY_MAX_PATTERNS)
			alloc = SKIT_POLICY_MAX_PATTERNS;
		v = skitx_realloc(l->v, alloc * sizeof(*v));
		if (!v)
			return SKIT_ENOMEM;
		l->v = v;
		l->alloc = alloc;
	}
	l->v[l->n++] = *pat;
	return 0;
}

void skit__policy_plist_release(struct plist *l)
{
	for (size_t i = 0; i < l->n; i++)
		skit__policy_pattern_release(&l->v[i]);
	skitx_free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- matching --------------------------------------------------------- */

/*
 * `in` relative to the project folder, with "." and ".." resolved
 * lexically: 0 and the clean path in `buf`; 1 when it is absolute or
 * climbs out; 2 when it does not fit.
 */
int skit__policy_clean_call_path(const char *in, char *buf, size_t cap)
{
	size_t w = 0;

	if (in[0] == '/' || in[0] == '~')
		return 1;
	while (*in) {
		size_t clen = strcspn(in, "/");

		if (!clen || (clen == 1 && in[0] == '.')) {
			/* skip */
		} else if (clen == 2 && in[0] == '.' && in[1] == '.') {
			if (!w)
				return 1;
			while (w && buf[w - 1] != '/')
				w--;
			if (w)
				w--;
		} else {
			if (w + 1 + clen + 1 > cap)
				return 2;
			if (w)
				buf[w++] = '/';
			memcpy(buf + w, in, clen);
			w += clen;
		}
		in += clen;
		if (*in)
			in++;
	}
	buf[w] = '\0';
	return 0;
}

/* The host of a URL ("https://user@Host:443/x") or of a bare host name. */
bool skit__policy_call_host(const char *in, char *buf, size_t cap)
{
	const char *s = strstr(in, "://"), *end, *at;
	size_t len;

	s = s ? s + 3 : in;
	end = s + strcspn(s, "/?#");
	at = memchr(s, '@', (size_t)(end - s));
	while (at) {
		s = at + 1;
		at = memchr(s, '@', (size_t)(end - s));
	}
	if (*s == '[') {
		const char *close = memchr(s, ']', (size_t)(end - s));

		if (!close)
			return false;
		end = close + 1;
	} else {
		const char *colon = memchr(s, ':', (size_t)(end - s));

		if (colon)
			end = colon;
	}
	len = (size_t)(end - s);
	if (len && s[len - 1] == '.')
		len--;
	if (!len || len >= cap)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		buf[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
	}
	buf[len] = '\0';
	return true;
}

/* Length of the path component at `s`. */
static size_t comp_len(const char *s)
{
	return strcspn(s, "/");
}

/* The component after the one at `s` (or the terminating NUL). */
static const char *comp_next(const char *s)
{
	s += comp_len(s);
	return *s ? s + 1 : s;
}

static bool is_dstar(const char *p)
{
	return p[0] == '*' && p[1] == '*' && (p[2] == '/' || !p[2]);
}

/*
 * One component against one glob component: `*` is any run, `?` any one
 * byte. Greedy with one backtrack point, so O(len * len) at worst.
 */
static bool seg_match(const char *p, size_t plen, const char *s, size_t slen)
{
	size_t pi = 0, si = 0, star = (size_t)-1, mark = 0;

	while (si < slen) {
		if (pi < plen && (p[pi] == '?' || p[pi] == s[si])) {
			pi++;
			si++;
		} else if (pi < plen && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (star != (size_t)-1) {
			pi = star + 1;
			si = ++mark;
		} else {
			return false;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

/*
 * The same algorithm one level up: components instead of bytes, and a
 * "**" component matches any run of components. Because "**" is the only
 * thing that matches a variable number of elements, the greedy single
 * backtrack point is exact here too.
 */
static bool glob_match(const char *p, const char *s)
{
	const char *star_p = NULL, *star_s = NULL;

	while (*s) {
		if (*p && is_dstar(p)) {
			p = comp_next(p);
			star_p = p;
			star_s = s;
		} else if (*p && seg_match(p, comp_len(p), s, comp_len(s))) {
			p = comp_next(p);
			s = comp_next(s);
		} else if (star_p) {
			star_s = comp_next(star_s);
			s = star_s;
			p = star_p;
		} else {
			return false;
		}
	}
	while (*p && is_dstar(p))
		p = comp_next(p);
	return !*p;
}

static bool host_match(const char *pat, const char *host)
{
	size_t pl = strlen(pat), hl = strlen(host);

	if (hl == pl)
		return !strcmp(pat, host);
	return hl > pl && host[hl - pl - 1] == '.' &&
	       !strcmp(host + hl - pl, pat);
}

/*
 * Whether `pat` covers the call. A target the matcher cannot read (a path
 * too long, no host) is covered by restrictive patterns only: when in
 * doubt, refuse. A path outside the project is covered by bare names only.
 */
static bool pattern_match(const struct pattern *pat, const struct call *c,
                          bool restrictive)
{
	const struct tool *pt;

	if (pat->tool < 0)
		return false;
	if (pat->mcp || c->mcp)
		return pat->mcp && c->mcp &&
		       skit__policy_mcp_match(pat->mcp, c->mcp);
	pt = &skit__policy_tools[pat->tool];
	if (pt->denotes ? !(pt->denotes & c->tool->classes)
	                : pat->tool != c->index)
		return false;
	if (!pat->arg)
		return true;
	switch (pt->arg) {
	case ARG_PATH:
		if (c->path_state == 2)
			return restrictive;
		return !c->path_state && glob_match(pat->arg, c->path);
	case ARG_COMMAND:
		return skit__policy_command_match(pat, c, restrictive);
	case ARG_DOMAIN:
		if (!c->host_ok)
			return restrictive;
		return host_match(pat->arg, c->host);
	case ARG_SKILL:
		return !strcmp(pat->arg, c->target);
	default:
		return false;
	}
}

const struct pattern *skit__policy_plist_find(const struct plist *l,
                                              const struct call *c,
                                              bool restrictive)
{
	for (size_t i = 0; i < l->n; i++)
		if (pattern_match(&l->v[i], c, restrictive))
			return &l->v[i];
	return NULL;
}

/* The tool table entry of a call of `name`: -1 when unknown. An
 * external tool (mcp__SERVER__TOOL) gets the row of risk `ext`. */
int skit__policy_call_index(const char *name, skit_risk ext, const char **mcp)
{
	size_t len = strlen(name);

	*mcp = NULL;
	if (skit__policy_mcp_name(name, len) == len && !strchr(name, '*') &&
	    strstr(name + strlen(MCP_PREFIX), "__")) {
		*mcp = name;
		return MCP_READ_T + (ext <= SKIT_RISK_NETWORK
		                             ? (int)ext
		                             : SKIT_RISK_EXECUTE);
	}
	return skit__policy_tool_index(name, len);
}

/* ---- public: allowed-tools -------------------------------------------- */

static bool is_separator(char c)
{
	return skit__policy_is_blank(c) || c == ',' || c == '\n' || c == '\r';
}

static int add_unknown_diag(skit_allowed_tools *at, const char *field,
                            const char *tok, size_t len, size_t pos)
{
	size_t name_len = 0;
	const char *near;
	skit_diag *d;
	char msg[160];

	while (name_len < len && tok[name_len] != '(')
		name_len++;
	if (name_len > 64)
		name_len = 64;
	near = tool_case_match(tok, name_len);
	if (near)
		snprintf(msg, sizeof(msg),
		         "Unknown tool '%.*s' in %s (did you mean '%s'?)",
		         (int)name_len, tok, field, near);
	else
		snprintf(msg, sizeof(msg), "Unknown tool '%.*s' in %s",
		         (int)name_len, tok, field);
	d = skitx_realloc(at->diags, (at->ndiags + 1) * sizeof(*d));
	if (!d)
		return SKIT_ENOMEM;
	at->diags = d;
	d += at->ndiags;
	memset(d, 0, sizeof(*d));
	d->message = skitx_strdup(msg);
	if (!d->message)
		return SKIT_ENOMEM;
	at->ndiags++;
	d->severity = SKIT_SEVERITY_WARNING;
	d->code = strcmp(field, "allowed-tools")
	                  ? "disallowed-tools-unknown-tool"
	                  : "allowed-tools-unknown-tool";
	d->path = "";
	d->column = (unsigned int)(pos + 1);
	return 0;
}

/* Parse `text` into `l` of `at`; `field` names it in messages. */
static int parse_list(skit_allowed_tools *at, struct plist *l,
                      const char *field, const char *text, skit_error *err)
{
	struct pattern pat;
	struct perr pe;
	size_t i = 0;
	int error = 0;

	while (text[i]) {
		size_t start, len, depth = 0;
		bool unknown = false;

		while (text[i] && is_separator(text[i]))
			i++;
		if (!text[i])
			break;
		/* A token ends at a separator outside parentheses. */
		start = i;
		while (text[i] && (depth || !is_separator(text[i]))) {
			if (text[i] == '(')
				depth++;
			else if (text[i] == ')' && depth)
				depth--;
			i++;
		}
		if (l->n == SKIT_POLICY_MAX_PATTERNS) {
			error = skit__error_set(err, SKIT_ETOOBIG, 0,
			                        "more than %d patterns in %s",
			                        SKIT_POLICY_MAX_PATTERNS,
			                        field);
			if (err)
				err->column = (unsigned int)(start + 1);
			return error;
		}
		len = i - start;
		/* "Read", "Write": a list written as quoted items without
		 * brackets, which YAML reads as one text; the quotes go */
		if (len > 2 && (text[start] == '"' || text[start] == '\'') &&
		    text[start + len - 1] == text[start]) {
			start++;
			len -= 2;
		}
		error = skit__policy_parse_pattern(&pat, text + start, len,
		                                   &unknown, &pe);
		if (error == SKIT_ENOMEM)
			return skit__error_oom(err);
		if (error < 0) {
			skit__error_set(err, error, 0, "%s: %s", field, pe.msg);
			if (err)
				err->column =
				        (unsigned int)(start + pe.pos + 1);
			return error;
		}
		error = skit__policy_plist_push(l, &pat);
		if (error < 0) {
			skit__policy_pattern_release(&pat);
			return skit__error_oom(err);
		}
		if (unknown) {
			error = add_unknown_diag(at, field, text + start, len,
			                         start);
			if (error < 0)
				return skit__error_oom(err);
		}
	}
	return 0;
}

int skit_allowed_tools_new(skit_allowed_tools **out, const char *skill,
                           skit_error *err)
{
	skit_allowed_tools *at;

	assert(out);
	*out = NULL;
	at = skitx_calloc(1, sizeof(*at));
	if (!at)
		return skit__error_oom(err);
	if (skill && !(at->skill = skitx_strdup(skill))) {
		skitx_free(at);
		return skit__error_oom(err);
	}
	*out = at;
	return 0;
}

int skit_allowed_tools_parse(skit_allowed_tools **out, const char *skill,
                             const char *text, skit_error *err)
{
	skit_allowed_tools *at;
	int error;

	assert(out && text);
	*out = NULL;
	error = skit_allowed_tools_new(&at, skill, err);
	if (error)
		return error;
	at->declared = true;
	error = parse_list(at, &at->pats, "allowed-tools", text, err);
	if (error) {
		skit_allowed_tools_free(at);
		return error;
	}
	*out = at;
	return 0;
}

int skit_allowed_tools_disallow(skit_allowed_tools *at, const char *text,
                                skit_error *err)
{
	size_t n = at ? at->deny.n : 0, ndiags = at ? at->ndiags : 0;
	int error;

	assert(at && text);
	error = parse_list(at, &at->deny, "disallowed-tools", text, err);
	if (error) {
		/* all or nothing: this value's patterns and diagnostics go */
		while (at->deny.n > n)
			skit__policy_pattern_release(&at->deny.v[--at->deny.n]);
		while (at->ndiags > ndiags)
			skitx_free((char *)at->diags[--at->ndiags].message);
	}
	return error;
}

size_t skit_allowed_tools_disallowed_count(const skit_allowed_tools *at)
{
	assert(at);
	return at->deny.n;
}

size_t skit_allowed_tools_count(const skit_allowed_tools *at)
{
	assert(at);
	return at->pats.n;
}

const char *skit_allowed_tools_pattern(const skit_allowed_tools *at, size_t i)
{
	assert(at && i < at->pats.n);
	return at->pats.v[i].text;
}

const skit_diag *skit_allowed_tools_diags(const skit_allowed_tools *at,
                                          size_t *count)
{
	assert(at && count);
	*count = at->ndiags;
	return at->diags;
}

void skit_allowed_tools_free(skit_allowed_tools *at)
{
	if (!at)
		return;
	for (size_t i = 0; i < at->ndiags; i++)
		skitx_free((char *)at->diags[i].message);
	skitx_free(at->diags);
	skit__policy_plist_release(&at->pats);
	skit__policy_plist_release(&at->deny);
	skitx_free(at->skill);
	skitx_free(at);
}
