/* SPDX-License-Identifier: MIT */
/*
 * policy.c - permission patterns and the decision procedure of DESIGN §6.
 *
 * Patterns are parsed once (skit_policy_add, skit_allowed_tools_parse)
 * into a tool index plus a cleaned argument; skit_policy_check() then only
 * compares, with fixed stack buffers, so a decision can neither fail for
 * lack of memory nor take time beyond O(pattern * target) per pattern.
 *
 * Matching has two moods. Permissive lists (allow, --allow, allowed-tools)
 * grant, so they match conservatively: `Bash(git:*)` does not match a
 * command holding shell operators, since "git log; rm -rf ~" is not a git
 * command. Restrictive lists (deny, --deny, ask) refuse, so they match
 * eagerly: `Bash(rm:*)` matches any simple command of a compound line.
 * Neither is a sandbox; sandbox.c is the boundary.
 */
#include "common.h"

#include <jansson.h>

#include "skit/policy.h"
#include "lib/core/config_int.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/vec.h"

#define PATH_BUF 4096
#define HOST_BUF 256

/* Shell characters that join, nest or redirect commands. */
#define SHELL_OPERATORS ";&|()`$<>\n\r"
/* Where a compound command line splits into simple commands. */
#define SHELL_SPLIT ";&|()`\n\r"

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
};

/* What a pattern's argument means. */
enum arg_kind { ARG_NONE, ARG_PATH, ARG_COMMAND, ARG_DOMAIN };

struct tool {
	const char *name;
	unsigned int denotes; /* classes a pattern of this name covers; 0:
	                         the pattern covers only this tool */
	unsigned int classes; /* classes a call of this tool belongs to */
	enum arg_kind arg;
	skit_risk risk;
	bool skill_tool; /* base set of DESIGN §5: never gated by skills */
};

/*
 * Write and Edit both name "changes a file", and Read also covers the
 * tools that read files to search or list them (as Claude Code does).
 */
static const struct tool tools[] = {
	{ "Read", C_READ, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "Write", C_WRITE, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE,
	  false },
	{ "Edit", C_EDIT, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "Bash", C_BASH, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "Grep", C_GREP, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "Glob", C_GLOB, C_GLOB | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "LS", C_LS, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "WebFetch", C_WEBFETCH, C_WEBFETCH, ARG_DOMAIN, SKIT_RISK_NETWORK,
	  false },
	{ "WebSearch", C_WEBSEARCH, C_WEBSEARCH, ARG_NONE, SKIT_RISK_NETWORK,
	  false },
	{ "read_file", 0, C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "list_dir", 0, C_LS | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "grep", 0, C_GREP | C_READ, ARG_PATH, SKIT_RISK_READ, false },
	{ "write_file", 0, C_WRITE | C_EDIT, ARG_PATH, SKIT_RISK_WRITE, false },
	{ "shell", 0, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE, false },
	{ "run_skill_script", 0, C_BASH, ARG_COMMAND, SKIT_RISK_EXECUTE,
	  false },
	{ "use_skill", 0, 0, ARG_NONE, SKIT_RISK_READ, true },
	{ "read_skill_resource", 0, 0, ARG_NONE, SKIT_RISK_READ, true },
	{ "search_skills", 0, 0, ARG_NONE, SKIT_RISK_READ, true },
	{ "update_plan", 0, 0, ARG_NONE, SKIT_RISK_READ, true },
	/* MCP servers' tools (mcp__SERVER__TOOL): the names never parse as
	 * a pattern's tool name; patterns and calls reach them through
	 * mcp_name(). Read-only when the server annotates readOnlyHint. */
	{ "mcp (read-only)", 0, 0, ARG_NONE, SKIT_RISK_READ, false },
	{ "mcp (execute)", 0, 0, ARG_NONE, SKIT_RISK_EXECUTE, false },
};

#define MCP_PREFIX "mcp__"
#define MCP_READ_T ((int)SKIT_ARRAY_SIZE(tools) - 2)
#define MCP_EXEC_T ((int)SKIT_ARRAY_SIZE(tools) - 1)

#define RUN_SKILL_SCRIPT "run_skill_script"

struct pattern {
	char *text;  /* as written, trimmed */
	int tool;    /* index into tools[], -1 for an unknown name */
	char *arg;   /* cleaned argument; NULL for a bare name */
	bool prefix; /* ARG_COMMAND ending in ":*" */
	char *skill; /* run_skill_script(SKILL:PATH): the skill; else NULL */
	char *mcp;   /* mcp__SERVER[__TOOL][*]: the name pattern; else NULL */
};

struct plist {
	struct pattern *v;
	size_t n, alloc;
};

/* The five lists a policy holds. */
enum { L_ALLOW, L_DENY, L_ASK, L_FLAG_ALLOW, L_FLAG_DENY, L_COUNT };

struct skit_policy {
	struct plist lists[L_COUNT];
	bool yes, no_network, network;
};

struct skit_allowed_tools {
	char *skill;
	struct plist pats;
	skit_diag *diags;
	size_t ndiags;
};

/* A parse failure: what and where (0-based offset in the pattern). */
struct perr {
	int code;
	size_t pos;
	char msg[160];
};

/* ---- tool table ------------------------------------------------------- */

static int tool_index(const char *name, size_t len)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tools); i++)
		if (strlen(tools[i].name) == len &&
		    !memcmp(tools[i].name, name, len))
			return (int)i;
	return -1;
}

/* For "did you mean": the tool whose name differs only in case. */
static const char *tool_case_match(const char *name, size_t len)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(tools); i++) {
		const char *t = tools[i].name;
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

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool is_name_char(char c, bool first)
{
	if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))
		return true;
	return !first && ((c >= '0' && c <= '9') || c == '_');
}

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
	while (len && is_blank(s[len - 1]))
		len--;
	if (len >= 2 && s[len - 2] == ':' && s[len - 1] == '*') {
		*prefix = true;
		len -= 2;
	}
	while (len && is_blank(s[len - 1]))
		len--;
	while (len && is_blank(*s)) {
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
		if (is_blank(s[i])) {
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
	    is_blank((*a)[n + 1]))
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
	return is_name_char(c, false) || c == '-' || c == '.';
}

/*
 * The length of the MCP tool pattern at `s` ("mcp__SERVER", optionally
 * "__TOOL", optionally ending in '*'), or 0 when `s` is not one.
 */
static size_t mcp_name(const char *s, size_t len)
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
static bool mcp_match(const char *pat, const char *name)
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

static void pattern_release(struct pattern *pat)
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
static int parse_pattern(struct pattern *pat, const char *s, size_t len,
                         bool *unknown, struct perr *pe)
{
	size_t name_len = 0, open, depth = 0, i;
	const struct tool *t;
	int error;

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
	name_len = mcp_name(s, len);
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
			pattern_release(pat);
			return SKIT_ENOMEM;
		}
		return 0;
	}
	while (name_len < len && is_name_char(s[name_len], !name_len))
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

	pat->tool = tool_index(s, name_len);
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

		t = &tools[pat->tool];
		switch (t->arg) {
		case ARG_NONE:
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
		default:
			error = clean_domain_arg(&pat->arg, a, alen, off, pe);
			break;
		}
		if (error < 0) {
			pattern_release(pat); /* a skill split out before */
			return error;
		}
	}
	pat->text = skitx_strndup(s, len);
	if (!pat->text) {
		pattern_release(pat);
		return SKIT_ENOMEM;
	}
	return 0;
}

static int plist_push(struct plist *l, struct pattern *pat)
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

static void plist_release(struct plist *l)
{
	for (size_t i = 0; i < l->n; i++)
		pattern_release(&l->v[i]);
	skitx_free(l->v);
	memset(l, 0, sizeof(*l));
}

/* ---- matching --------------------------------------------------------- */

/* The call, prepared once for every pattern. */
struct call {
	const struct tool *tool;
	int index;
	const char *target; /* never NULL */
	const char *skill;  /* run_skill_script: the script's skill */
	const char *mcp;    /* an MCP tool: its full name; else NULL */
	int path_state;     /* 0 inside (path), 1 outside, 2 too long */
	char path[PATH_BUF];
	bool host_ok;
	char host[HOST_BUF];
};

/*
 * `in` relative to the project folder, with "." and ".." resolved
 * lexically: 0 and the clean path in `buf`; 1 when it is absolute or
 * climbs out; 2 when it does not fit.
 */
static int clean_call_path(const char *in, char *buf, size_t cap)
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
static bool call_host(const char *in, char *buf, size_t cap)
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

/*
 * Whether the command in [s, e) is the pattern's words (exactly, or as a
 * prefix of whole words when `prefix`). Blank runs count as one space.
 */
static bool words_match(const char *s, const char *e, const char *pat,
                        bool prefix)
{
	while (*pat) {
		size_t wl = strcspn(pat, " ");

		while (s < e && is_blank(*s))
			s++;
		if ((size_t)(e - s) < wl || memcmp(s, pat, wl))
			return false;
		s += wl;
		if (s < e && !is_blank(*s))
			return false;
		pat += wl;
		if (*pat)
			pat++;
	}
	if (prefix)
		return true;
	while (s < e && is_blank(*s))
		s++;
	return s == e;
}

/* ---- shell command lines ---------------------------------------------- */

/*
 * A command line is read the way sh(1) splits it, closely enough to find
 * every place a program is started: words with their quotes removed,
 * separators (; & | ( ) newline), redirections and their targets, command
 * substitutions ($(...) and backticks, also inside double quotes) and the
 * reserved words that open compound commands. It is not a shell: what it
 * cannot read for sure (a command word holding $, a glob, a line too long)
 * counts as a match for deny and ask patterns and never for allow ones.
 */
#define SCAN_WORDS 64
#define SCAN_BUF   8192
#define SCAN_DEPTH 4

/* The words of one simple command, unquoted into `buf`. */
struct cmdwords {
	const char *w[SCAN_WORDS];
	bool odd[SCAN_WORDS]; /* holds an expansion or a glob: unreadable */
	size_t n;
	bool cut; /* more words than fit, or out of room */
	size_t used;
	char buf[SCAN_BUF];
};

/* Bytes one check may scan, nested scripts included: a line built to be
 * read again and again (runners and shells given the same script many
 * times) is refused rather than read for long. */
#define SCAN_BUDGET (1024 * 1024)

/* A search for the simple commands a restrictive pattern names. */
struct scan {
	const struct pattern *pat;
	bool hit;
	size_t budget; /* bytes left to scan */
};

static void scan_script(struct scan *sc, const char *s, const char *e,
                        int depth);

/* Programs that run the command given in their arguments. */
static const char *const runners[] = {
	"xargs",   "env",      "sudo",      "doas",   "su",      "nice",
	"nohup",   "timeout",  "time",      "exec",   "eval",    "command",
	"builtin", "stdbuf",   "setsid",    "chroot", "unshare", "nsenter",
	"ionice",  "taskset",  "flock",     "watch",  "strace",  "ltrace",
	"script",  "parallel", "run-parts", "sh",     "bash",    "dash",
	"zsh",     "ksh",      "mksh",      "ash",    "fish",    "csh",
	"tcsh",    "busybox",  "awk",       "gawk",   "mawk",    "nawk",
	"source",  ".",
};

/* Of those, the ones whose arguments are themselves command lines. */
static const char *const script_takers[] = {
	"sh",   "bash", "dash", "zsh",     "ksh", "mksh", "ash",
	"fish", "csh",  "tcsh", "busybox", "su",  "eval", "source",
};

static bool in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(w, list[i]))
			return true;
	return false;
}

/* The program name of a command word: "/usr/bin/rm" -> "rm". */
static const char *base_name(const char *w)
{
	const char *slash = strrchr(w, '/');

	return slash && slash[1] ? slash + 1 : w;
}

static bool cw_putc(struct cmdwords *cw, char c)
{
	if (cw->used + 1 >= SCAN_BUF) {
		cw->cut = true;
		return false;
	}
	cw->buf[cw->used++] = c;
	return true;
}

/* Close the word begun at buf[start]; one that does not fit is dropped
 * and the command marked cut. */
static void cw_end_word(struct cmdwords *cw, size_t start, bool odd)
{
	if (cw->n == SCAN_WORDS || !cw_putc(cw, '\0')) {
		cw->cut = true;
		cw->used = start;
		return;
	}
	cw->w[cw->n] = cw->buf + start;
	cw->odd[cw->n++] = odd;
}

/* The end of a "$(" substitution opened before `s`: its ")" or `e`. */
static const char *paren_close(const char *s, const char *e)
{
	int depth = 1;

	while (s < e) {
		if (*s == '\\' && s + 1 < e) {
			s += 2;
			continue;
		}
		if (*s == '\'') {
			const char *q =
			        memchr(s + 1, '\'', (size_t)(e - s - 1));

			s = q ? q + 1 : e;
			continue;
		}
		if (*s == '(')
			depth++;
		else if (*s == ')' && !--depth)
			return s;
		s++;
	}
	return e;
}

/* The closing backtick of one opened before `s`, or `e`. */
static const char *tick_close(const char *s, const char *e)
{
	while (s < e && *s != '`')
		s += *s == '\\' && s + 1 < e ? 2 : 1;
	return s;
}

/*
 * Read one word at *sp into `cw` (quotes removed), scanning every command
 * substitution in it as a command line of its own. Stops at a blank, a
 * separator or a redirection outside quotes.
 */
static void read_word(struct scan *sc, const char **sp, const char *e,
                      struct cmdwords *cw, int depth)
{
	const char *s = *sp;
	size_t start = cw->used;
	bool odd = false, dq = false;

	while (s < e) {
		char ch = *s;

		if (!dq && (is_blank(ch) || strchr(";&|()<>\n\r", ch)))
			break;
		if (ch == '\\' && s + 1 < e) {
			if (s[1] == '\n') {
				s += 2;
				continue;
			}
			if (dq && !strchr("$`\"\\", s[1])) {
				cw_putc(cw, '\\');
				s++;
				continue;
			}
			cw_putc(cw, s[1]);
			s += 2;
			continue;
		}
		if (ch == '\'' && !dq) {
			const char *q =
			        memchr(s + 1, '\'', (size_t)(e - s - 1));
			const char *end = q ? q : e;

			for (s++; s < end; s++)
				cw_putc(cw, *s);
			s = q ? q + 1 : e;
			continue;
		}
		if (ch == '"') {
			dq = !dq;
			s++;
			continue;
		}
		if (ch == '$' && s + 1 < e && s[1] == '(') {
			const char *close = paren_close(s + 2, e);

			scan_script(sc, s + 2, close, depth + 1);
			odd = true;
			s = close < e ? close + 1 : e;
			continue;
		}
		if (ch == '`') {
			const char *close = tick_close(s + 1, e);

			scan_script(sc, s + 1, close, depth + 1);
			odd = true;
			s = close < e ? close + 1 : e;
			continue;
		}
		if (ch == '$' || (!dq && strchr("*?[", ch)))
			odd = true;
		cw_putc(cw, ch);
		s++;
	}
	*sp = s;
	cw_end_word(cw, start, odd);
}

/*
 * Whether the words from `j` on are the pattern's command. `strict`: the
 * word at `j` is surely in command position, so an unreadable one counts
 * as a match (any program could be behind "$x").
 */
static bool words_at(const struct pattern *pat, const struct cmdwords *cw,
                     size_t j, bool strict)
{
	const char *p = pat->arg;
	size_t i = j;

	if (cw->odd[j])
		return strict;
	while (*p) {
		size_t wl = strcspn(p, " ");

		if (i == cw->n)
			return cw->cut;
		if (!cw->odd[i]) {
			const char *w = cw->w[i];
			bool eq = strlen(w) == wl && !memcmp(w, p, wl);

			if (!eq && i == j) {
				w = base_name(w);
				eq = strlen(w) == wl && !memcmp(w, p, wl);
			}
			if (!eq)
				return false;
		}
		i++;
		p += wl;
		if (*p)
			p++;
	}
	return pat->prefix || i == cw->n || cw->cut;
}

/* Scan the words from `from` on as command lines of their own. */
static void scan_words_as_scripts(struct scan *sc, const struct cmdwords *cw,
                                  size_t from, int depth)
{
	for (size_t j = from; j < cw->n && !sc->hit; j++)
		if (!cw->odd[j])
			scan_script(sc, cw->w[j], cw->w[j] + strlen(cw->w[j]),
			            depth + 1);
}

/* ---- env -S ----------------------------------------------------------- */

/*
 * env -S STRING (--split-string, -vS, --split=...; the shebang form)
 * splits STRING into words by rules of its own and parses them as if they
 * had stood on the command line in its place: options first (another -S,
 * -u, -C), then NAME=VALUE words, then the program. A program in there is
 * one word of the outer line, "rm -v x", so the split is done here as env
 * does it and the words are checked as a command of their own.
 */

static bool env_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

/*
 * Split `s` the way GNU env -S does, appending the words to `cw`. Outside
 * single quotes: \_ separates words (a space inside double quotes), \c
 * ends the string (env refuses it inside double quotes), \f \n \r \t \v
 * are those bytes, \# \$ \" \' \\ the character; a word opening with #
 * starts a comment; ${NAME} is expanded, so the word is unreadable. Inside
 * single quotes only \\ and \' are escapes. Whatever env would refuse
 * (another escape, a lone $, an open quote) marks the word unreadable too:
 * when in doubt, the word could be anything.
 */
static void env_split(struct cmdwords *cw, const char *s)
{
	while (*s) {
		bool sq = false, dq = false, odd = false, stop = false;
		size_t start = cw->used;

		while (env_space(*s) || (s[0] == '\\' && s[1] == '_'))
			s += *s == '\\' ? 2 : 1;
		if (!*s || *s == '#')
			return;
		for (; *s; s++) {
			char ch = *s, n = s[1];

			if (!sq && !dq && env_space(ch))
				break;
			if (ch == '\'' && !dq) {
				sq = !sq;
			} else if (ch == '"' && !sq) {
				dq = !dq;
			} else if (ch == '\\' && sq) {
				if (n == '\\' || n == '\'')
					ch = *++s;
				cw_putc(cw, ch);
			} else if (ch == '\\') {
				if (n == '_' && !dq)
					break;
				if (n == 'c') {
					odd |= dq;
					stop = true;
					break;
				}
				s++;
				if (!n || !strchr("_fnrtv#$\"'\\", n)) {
					odd = true;
					if (!n)
						break;
				}
				cw_putc(cw, n == '_'   ? ' '
				            : n == 'f' ? '\f'
				            : n == 'n' ? '\n'
				            : n == 'r' ? '\r'
				            : n == 't' ? '\t'
				            : n == 'v' ? '\v'
				                       : n);
			} else {
				odd |= ch == '$' && !sq;
				cw_putc(cw, ch);
			}
		}
		cw_end_word(cw, start, odd || sq || dq);
		if (stop)
			return;
	}
}

/* Whether long option `w` ("--name[=value]") is env's `opt`, abbreviated
 * or not (getopt takes any unambiguous prefix). */
static bool env_long(const char *w, const char *opt)
{
	size_t n = strcspn(w + 2, "=");

	return n && n <= strlen(opt) && !strncmp(w + 2, opt, n);
}

static void check_command(struct scan *sc, const struct cmdwords *cw,
                          int depth);

/*
 * The command env runs once its split string `arg` is read: "env", the
 * split words (env parses them for options again), then the words of `cw`
 * from `next` on. Checked as a command of its own, one level deeper.
 */
static void env_resplit(struct scan *sc, const struct cmdwords *cw,
                        const char *arg, size_t next, int depth)
{
	struct cmdwords nw;
	size_t len = strlen(arg);

	if (depth >= SCAN_DEPTH || len > sc->budget) {
		sc->hit = true; /* too deep or too much to read: refuse */
		return;
	}
	sc->budget -= len;
	nw.n = 0;
	nw.used = 0;
	nw.cut = cw->cut;
	nw.w[nw.n] = "env";
	nw.odd[nw.n++] = false;
	env_split(&nw, arg);
	for (size_t j = next; j < cw->n; j++) {
		if (nw.n == SCAN_WORDS) {
			nw.cut = true;
			break;
		}
		nw.w[nw.n] = cw->w[j];
		nw.odd[nw.n++] = cw->odd[j];
	}
	check_command(sc, &nw, depth + 1);
}

/*
 * Walk the options of the env at word `k` as getopt does ("+C:iS:u:v0":
 * options end at the first other word) and check what a split string
 * makes of the line. An option word that cannot be read ("$OPTS") could
 * be -S: refused.
 */
static void scan_env(struct scan *sc, const struct cmdwords *cw, size_t k,
                     int depth)
{
	for (size_t j = k + 1; j < cw->n && !sc->hit; j++) {
		const char *w = cw->w[j], *arg = NULL;

		if (cw->odd[j]) {
			if (!is_name_char(w[0], false) && w[0] != '/' &&
			    w[0] != '.')
				sc->hit = true;
			return;
		}
		if (w[0] != '-' || !w[1] || !strcmp(w, "--"))
			return;
		if (w[1] == '-') {
			const char *eq = strchr(w, '=');

			if (env_long(w, "split-string"))
				arg = eq              ? eq + 1
				      : j + 1 < cw->n ? cw->w[++j]
				                      : "";
			else if (!eq &&
			         (env_long(w, "unset") || env_long(w, "chdir")))
				j++;
		} else {
			for (const char *c = w + 1; *c; c++) {
				if (*c == 'u' || *c == 'C') {
					j += !c[1];
					break;
				}
				if (*c == 'S') {
					arg = c[1]            ? c + 1
					      : j + 1 < cw->n ? cw->w[++j]
					                      : "";
					break;
				}
			}
		}
		if (arg) {
			if (j < cw->n && cw->odd[j])
				sc->hit = true; /* -S "$X": any program */
			else
				env_resplit(sc, cw, arg, j + 1, depth);
			return;
		}
	}
	if (cw->cut)
		sc->hit = true; /* the options went on past what was read */
}

/* A program started by a runner may sit at any later word. */
static void scan_suffixes(struct scan *sc, const struct cmdwords *cw,
                          size_t from, int depth)
{
	for (size_t j = from; j < cw->n && !sc->hit; j++) {
		if (words_at(sc->pat, cw, j, false))
			sc->hit = true;
		else if (!cw->odd[j] &&
		         in_list(base_name(cw->w[j]), script_takers,
		                 SKIT_ARRAY_SIZE(script_takers)))
			scan_words_as_scripts(sc, cw, j + 1, depth);
		else if (!cw->odd[j] && !strcmp(base_name(cw->w[j]), "env"))
			scan_env(sc, cw, j, depth);
	}
}

static bool is_assignment(const char *w)
{
	size_t n = 0;

	while (is_name_char(w[n], !n))
		n++;
	return n && w[n] == '=';
}

/* One simple command has been read: does it start what the pattern
 * names, directly or through a runner, a shell or find -exec? */
static void check_command(struct scan *sc, const struct cmdwords *cw, int depth)
{
	static const char *const skip[] = { "!",    "{",     "}",     "if",
		                            "then", "else",  "elif",  "fi",
		                            "do",   "done",  "while", "until",
		                            "esac", "coproc" };
	static const char *const data[] = { "for", "select", "case",
		                            "function" };
	size_t k = 0;
	const char *prog;

	while (k < cw->n && !cw->odd[k] &&
	       in_list(cw->w[k], skip, SKIT_ARRAY_SIZE(skip)))
		k++;
	if (k < cw->n && !cw->odd[k] &&
	    in_list(cw->w[k], data, SKIT_ARRAY_SIZE(data)))
		return; /* names and words, not commands */
	while (k < cw->n && is_assignment(cw->w[k]))
		k++;
	if (k == cw->n) {
		if (cw->cut)
			sc->hit = true; /* the command word was cut off */
		return;
	}
	if (words_at(sc->pat, cw, k, true)) {
		sc->hit = true;
		return;
	}
	if (cw->odd[k])
		return;
	prog = base_name(cw->w[k]);
	if (in_list(prog, script_takers, SKIT_ARRAY_SIZE(script_takers)))
		scan_words_as_scripts(sc, cw, k + 1, depth);
	if (!strcmp(prog, "env"))
		scan_env(sc, cw, k, depth);
	if (in_list(prog, runners, SKIT_ARRAY_SIZE(runners)))
		scan_suffixes(sc, cw, k + 1, depth);
	else if (!strcmp(prog, "find")) {
		for (size_t j = k + 1; j < cw->n; j++)
			if (!strcmp(cw->w[j], "-exec") ||
			    !strcmp(cw->w[j], "-execdir") ||
			    !strcmp(cw->w[j], "-ok") ||
			    !strcmp(cw->w[j], "-okdir"))
				scan_suffixes(sc, cw, j + 1, depth);
	} else if (!strcmp(prog, "git")) {
		/* -c alias.x='!cmd' runs cmd through the shell */
		for (size_t j = k + 1; j < cw->n && !sc->hit; j++) {
			const char *bang = strstr(cw->w[j], "=!");

			if (bang && !cw->odd[j])
				scan_script(sc, bang + 2,
				            bang + 2 + strlen(bang + 2),
				            depth + 1);
		}
	}
}

static void scan_script(struct scan *sc, const char *s, const char *e,
                        int depth)
{
	struct cmdwords cw;

	if (depth > SCAN_DEPTH || (size_t)(e - s) > sc->budget) {
		sc->hit = true; /* too deep or too much to read: refuse */
		return;
	}
	sc->budget -= (size_t)(e - s);
	cw.n = 0;
	cw.used = 0;
	cw.cut = false;
	while (!sc->hit) {
		while (s < e && is_blank(*s))
			s++;
		if (s == e || strchr(";&|()\n\r", *s)) {
			if (cw.n || cw.cut)
				check_command(sc, &cw, depth);
			cw.n = 0;
			cw.used = 0;
			cw.cut = false;
			if (s == e)
				break;
			s++;
			continue;
		}
		if (*s == '<' || *s == '>') {
			/* "2>" : the digits were a descriptor, not a word */
			if (cw.n && !is_blank(s[-1]) && !cw.odd[cw.n - 1] &&
			    cw.w[cw.n - 1][0] &&
			    !cw.w[cw.n - 1]
			         [strspn(cw.w[cw.n - 1], "0123456789")]) {
				cw.n--;
				cw.used = (size_t)(cw.w[cw.n] - cw.buf);
			}
			while (s < e && strchr("<>&|", *s))
				s++;
			if (s < e && *s == '(') { /* <(...) and >(...) */
				const char *close = paren_close(s + 1, e);

				scan_script(sc, s + 1, close, depth + 1);
				s = close < e ? close + 1 : e;
				continue;
			}
			while (s < e && is_blank(*s))
				s++;
			if (s < e && !strchr(";&|()<>\n\r", *s)) {
				size_t n = cw.n, used = cw.used;

				read_word(sc, &s, e, &cw, depth);
				cw.n = n; /* the target is no word */
				cw.used = used;
			}
			continue;
		}
		read_word(sc, &s, e, &cw, depth);
	}
}

/* Whether a restrictive pattern names a program the line may start. */
static bool shell_refuses(const struct pattern *pat, const char *cmd)
{
	struct scan sc;

	sc.pat = pat;
	sc.hit = false;
	sc.budget = SCAN_BUDGET;
	scan_script(&sc, cmd, cmd + strlen(cmd), 0);
	return sc.hit;
}

/* Git's options that run code or load another repository's config. */
static bool git_risky(const struct cmdwords *cw)
{
	static const char *const global[] = { "-c",          "-C",
		                              "--git-dir",   "--work-tree",
		                              "--exec-path", "--config-env",
		                              "--namespace" };
	static const char *const any[] = {
		"--upload-pack",  "--receive-pack", "--exec",
		"--template",     "--extcmd",       "--open-files-in-pager",
		"--sendmail-cmd", "--to-cmd",       "--cc-cmd",
		"--config",       "--tool",         "--ext-diff",
	};
	static const char *const subs[] = { "config",     "filter-branch",
		                            "difftool",   "mergetool",
		                            "daemon",     "instaweb",
		                            "send-email", "credential",
		                            "filter-repo" };
	static const char *const remote[] = { "clone",     "fetch",   "pull",
		                              "ls-remote", "archive", "push",
		                              "submodule" };
	const char *sub = NULL;
	size_t i;

	for (i = 1; i < cw->n && cw->w[i][0] == '-'; i++) {
		for (size_t k = 0; k < SKIT_ARRAY_SIZE(global); k++) {
			size_t n = strlen(global[k]);

			if (!strncmp(cw->w[i], global[k], n) &&
			    (!cw->w[i][n] || cw->w[i][n] == '=' ||
			     (n == 2 && cw->w[i][n])))
				return true;
		}
	}
	if (i < cw->n)
		sub = cw->w[i];
	if (sub && in_list(sub, subs, SKIT_ARRAY_SIZE(subs)))
		return true;
	for (i++; i < cw->n; i++) {
		const char *w = cw->w[i];

		for (size_t k = 0; k < SKIT_ARRAY_SIZE(any); k++) {
			size_t n = strlen(any[k]);

			if (!strncmp(w, any[k], n) && (!w[n] || w[n] == '='))
				return true;
		}
		if (!strncmp(w, "ext::", 5) || !strncmp(w, "fd::", 4))
			return true;
		if (!sub)
			continue;
		if ((!strcmp(sub, "submodule") && !strcmp(w, "foreach")) ||
		    (!strcmp(sub, "bisect") && !strcmp(w, "run")) ||
		    (!strcmp(sub, "rebase") && !strncmp(w, "-x", 2)) ||
		    (!strcmp(sub, "grep") && !strncmp(w, "-O", 2)) ||
		    (!strcmp(sub, "clone") && !strncmp(w, "-c", 2)) ||
		    (in_list(sub, remote, SKIT_ARRAY_SIZE(remote)) &&
		     !strncmp(w, "-u", 2)))
			return true;
	}
	return false;
}

/* Whether word `w` starts with one of `opts` as a whole option. */
static bool has_option(const char *w, const char *const *opts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		size_t len = strlen(opts[k]);

		if (!strncmp(w, opts[k], len) &&
		    (!w[len] || w[len] == '=' ||
		     (opts[k][1] != '-' && len == 2)))
			return true;
	}
	return false;
}

/*
 * Whether a simple command uses an option that makes its program run
 * other code (docs/permissions.md lists them): such a call is never
 * pre-approved by a prefix pattern.
 */
static bool runs_other_code(const struct cmdwords *cw)
{
	static const char *const find_opts[] = {
		"-exec",   "-execdir", "-ok",      "-okdir", "-delete",
		"-fprint", "-fprint0", "-fprintf", "-fls",
	};
	static const char *const tar_opts[] = {
		"--to-command",
		"--use-compress-program",
		"-I",
		"--checkpoint-action",
		"--info-script",
		"-F",
		"--new-volume-script",
		"--rsh-command",
		"--rmt-command",
	};
	static const char *const rsync_opts[] = { "-e", "--rsh",
		                                  "--rsync-path" };
	static const char *const ssh_opts[] = { "-o", "-F", "-S" };
	static const char *const zip_opts[] = { "-TT", "--unzip-command" };
	static const char *const sort_opts[] = { "--compress-program" };
	static const char *const man_opts[] = { "-P", "--pager", "-H",
		                                "--html" };
	const char *prog;

	if (!cw->n || cw->cut)
		return true;
	prog = base_name(cw->w[0]); /* "/usr/bin/env" runs what env does */
	if (in_list(prog, runners, SKIT_ARRAY_SIZE(runners)))
		return true;
	if (!strcmp(prog, "git"))
		return git_risky(cw);
	for (size_t i = 1; i < cw->n; i++) {
		const char *w = cw->w[i];

		if (!strcmp(prog, "find") &&
		    in_list(w, find_opts, SKIT_ARRAY_SIZE(find_opts)))
			return true;
		if (!strcmp(prog, "tar") &&
		    has_option(w, tar_opts, SKIT_ARRAY_SIZE(tar_opts)))
			return true;
		if (!strcmp(prog, "rsync") &&
		    (has_option(w, rsync_opts, SKIT_ARRAY_SIZE(rsync_opts)) ||
		     (w[0] == '-' && w[1] != '-' && strchr(w, 'e'))))
			return true;
		if ((!strcmp(prog, "ssh") || !strcmp(prog, "scp") ||
		     !strcmp(prog, "sftp")) &&
		    has_option(w, ssh_opts, SKIT_ARRAY_SIZE(ssh_opts)))
			return true;
		if (!strcmp(prog, "zip") &&
		    has_option(w, zip_opts, SKIT_ARRAY_SIZE(zip_opts)))
			return true;
		if (!strcmp(prog, "sort") &&
		    has_option(w, sort_opts, SKIT_ARRAY_SIZE(sort_opts)))
			return true;
		if (!strcmp(prog, "man") &&
		    has_option(w, man_opts, SKIT_ARRAY_SIZE(man_opts)))
			return true;
	}
	return false;
}

/*
 * Whether `cmd` is one simple command (no operator, substitution,
 * redirection or newline) using no option that runs other code: the
 * only kind of line an allow pattern with ":*" pre-approves.
 */
static bool simple_and_safe(const char *cmd)
{
	struct scan sc;
	struct cmdwords cw;
	const char *s = cmd, *e = cmd + strlen(cmd);

	if (cmd[strcspn(cmd, SHELL_OPERATORS)])
		return false;
	sc.pat = NULL;
	sc.hit = false;
	sc.budget = 0; /* no substitution can be in a simple command */
	cw.n = 0;
	cw.used = 0;
	cw.cut = false;
	while (s < e) {
		while (s < e && is_blank(*s))
			s++;
		if (s < e)
			read_word(&sc, &s, e, &cw, 0);
	}
	return !runs_other_code(&cw);
}

/*
 * An exact shell pattern matches the line as written, blank runs between
 * words counting as one space; inside quotes a blank is part of a word,
 * so a line holding quotes must match byte for byte (trimmed).
 */
static bool exact_line(const struct pattern *pat, const char *cmd)
{
	const char *end = cmd + strlen(cmd);

	if (!cmd[strcspn(cmd, "'\"\\")])
		return words_match(cmd, end, pat->arg, false);
	while (cmd < end && is_blank(*cmd))
		cmd++;
	while (end > cmd && is_blank(end[-1]))
		end--;
	return strlen(pat->arg) == (size_t)(end - cmd) &&
	       !memcmp(pat->arg, cmd, (size_t)(end - cmd));
}

/* A script's arguments go to execve, not to a shell: words only. */
static bool script_match(const struct pattern *pat, const struct call *c,
                         bool restrictive)
{
	const char *cmd = c->target, *end = cmd + strlen(cmd), *s;

	if (pat->skill && (!c->skill || strcmp(pat->skill, c->skill)))
		return restrictive && !c->skill;
	if (words_match(cmd, end, pat->arg, pat->prefix))
		return !pat->prefix || restrictive ||
		       !cmd[strcspn(cmd, SHELL_OPERATORS)];
	if (!restrictive)
		return false;
	for (s = cmd; s < end;) {
		size_t n = strcspn(s, SHELL_SPLIT);

		if (words_match(s, s + n, pat->arg, pat->prefix))
			return true;
		s += n;
		if (s < end)
			s++;
	}
	return false;
}

/*
 * A command pattern against a call. Restrictive (deny, ask): any program
 * the line may start. Permissive (allow): the whole line, which with ":*"
 * must be one simple command using no option that runs other code.
 */
static bool command_match(const struct pattern *pat, const struct call *c,
                          bool restrictive)
{
	const char *cmd = c->target;

	if (!strcmp(c->tool->name, RUN_SKILL_SCRIPT) || pat->skill)
		return script_match(pat, c, restrictive);
	if (restrictive)
		return shell_refuses(pat, cmd);
	if (!pat->prefix)
		return exact_line(pat, cmd);
	return words_match(cmd, cmd + strlen(cmd), pat->arg, true) &&
	       simple_and_safe(cmd);
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
		return pat->mcp && c->mcp && mcp_match(pat->mcp, c->mcp);
	pt = &tools[pat->tool];
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
		return command_match(pat, c, restrictive);
	case ARG_DOMAIN:
		if (!c->host_ok)
			return restrictive;
		return host_match(pat->arg, c->host);
	default:
		return false;
	}
}

static const struct pattern *plist_find(const struct plist *l,
                                        const struct call *c, bool restrictive)
{
	for (size_t i = 0; i < l->n; i++)
		if (pattern_match(&l->v[i], c, restrictive))
			return &l->v[i];
	return NULL;
}

/* ---- decisions -------------------------------------------------------- */

static void decide(skit_decision *out, skit_verdict v, const char *fmt, ...)
        SKIT_PRINTF(3, 4);

static void decide(skit_decision *out, skit_verdict v, const char *fmt, ...)
{
	va_list ap;

	out->verdict = v;
	out->by_flag = false;
	va_start(ap, fmt);
	vsnprintf(out->reason, sizeof(out->reason), fmt, ap);
	va_end(ap);
}

/* Append to a fixed buffer, cutting (with "...") what does not fit. */
static void reason_add(char *buf, size_t cap, const char *s)
{
	size_t used = strlen(buf), n = strlen(s);

	if (used + 1 >= cap)
		return; /* already full (and cut) */
	if (used + n < cap) {
		memcpy(buf + used, s, n + 1);
		return;
	}
	if (cap - used > 4)
		memcpy(buf + used, s, cap - used - 4);
	memcpy(buf + cap - 4, "...", 4);
}

/*
 * "not in the allowed-tools of the active skills (a: X Y; b: Z)": the
 * reason a skill gate refusal gives, naming every declaring skill.
 */
static void gate_reason(skit_decision *out, const skit_active_skill *active,
                        size_t nactive)
{
	bool first = true;

	decide(out, SKIT_POLICY_DENY,
	       "not in the allowed-tools of the active skills (");
	for (size_t i = 0; i < nactive; i++) {
		const skit_allowed_tools *at = active[i].tools;

		if (!at)
			continue;
		if (!first)
			reason_add(out->reason, sizeof(out->reason), "; ");
		first = false;
		reason_add(out->reason, sizeof(out->reason),
		           active[i].name ? active[i].name : "(unnamed)");
		reason_add(out->reason, sizeof(out->reason), ":");
		if (!at->pats.n)
			reason_add(out->reason, sizeof(out->reason), " (none)");
		for (size_t j = 0; j < at->pats.n; j++) {
			reason_add(out->reason, sizeof(out->reason), " ");
			reason_add(out->reason, sizeof(out->reason),
			           at->pats.v[j].text);
		}
	}
	reason_add(out->reason, sizeof(out->reason), ")");
}

static const char *risk_word(skit_risk r)
{
	switch (r) {
	case SKIT_RISK_EXECUTE:
		return "execute";
	case SKIT_RISK_WRITE:
		return "write";
	case SKIT_RISK_NETWORK:
		return "network";
	default:
		return "read-only";
	}
}

/* ---- public: tools and allowed-tools ---------------------------------- */

int skit_tool_risk(skit_risk *out, const char *name)
{
	int i;

	assert(out && name);
	i = tool_index(name, strlen(name));
	if (i < 0)
		return SKIT_ENOTFOUND;
	*out = tools[i].risk;
	return 0;
}

static bool is_separator(char c)
{
	return is_blank(c) || c == ',' || c == '\n' || c == '\r';
}

static int add_unknown_diag(skit_allowed_tools *at, const char *tok, size_t len,
                            size_t pos)
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
		         "Unknown tool '%.*s' in allowed-tools (did you mean "
		         "'%s'?)",
		         (int)name_len, tok, near);
	else
		snprintf(msg, sizeof(msg),
		         "Unknown tool '%.*s' in allowed-tools", (int)name_len,
		         tok);
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
	d->code = "allowed-tools-unknown-tool";
	d->path = "";
	d->column = (unsigned int)(pos + 1);
	return 0;
}

int skit_allowed_tools_parse(skit_allowed_tools **out, const char *skill,
                             const char *text, skit_error *err)
{
	skit_allowed_tools *at;
	struct pattern pat;
	struct perr pe;
	size_t i = 0;
	int error = 0;

	assert(out && text);
	*out = NULL;
	at = skitx_calloc(1, sizeof(*at));
	if (!at)
		return skit__error_oom(err);
	if (skill) {
		at->skill = skitx_strdup(skill);
		if (!at->skill) {
			error = SKIT_ENOMEM;
			goto out;
		}
	}

	while (text[i]) {
		size_t start, depth = 0;
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
		if (at->pats.n == SKIT_POLICY_MAX_PATTERNS) {
			error = skit__error_set(err, SKIT_ETOOBIG, 0,
			                        "more than %d patterns in "
			                        "allowed-tools",
			                        SKIT_POLICY_MAX_PATTERNS);
			if (err)
				err->column = (unsigned int)(start + 1);
			goto out;
		}
		error = parse_pattern(&pat, text + start, i - start, &unknown,
		                      &pe);
		if (error == SKIT_ENOMEM)
			goto out;
		if (error < 0) {
			skit__error_set(err, error, 0, "allowed-tools: %s",
			                pe.msg);
			if (err)
				err->column =
				        (unsigned int)(start + pe.pos + 1);
			goto out;
		}
		error = plist_push(&at->pats, &pat);
		if (error < 0) {
			pattern_release(&pat);
			goto out;
		}
		if (unknown) {
			error = add_unknown_diag(at, text + start, i - start,
			                         start);
			if (error < 0)
				goto out;
		}
	}

	*out = at;
	at = NULL;
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	skit_allowed_tools_free(at);
	return error;
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
	plist_release(&at->pats);
	skitx_free(at->skill);
	skitx_free(at);
}

/* ---- public: policy --------------------------------------------------- */

int skit_policy_new(skit_policy **out, skit_error *err)
{
	assert(out);
	*out = skitx_calloc(1, sizeof(**out));
	if (!*out)
		return skit__error_oom(err);
	return 0;
}

static int policy_add(struct plist *l, const char *pattern, skit_error *err)
{
	size_t len = strlen(pattern), lead = 0;
	struct pattern pat;
	struct perr pe;
	int error;

	if (l->n == SKIT_POLICY_MAX_PATTERNS)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "more than %d patterns in one list",
		                       SKIT_POLICY_MAX_PATTERNS);
	while (lead < len && is_blank(pattern[lead]))
		lead++;
	while (len > lead && is_blank(pattern[len - 1]))
		len--;
	error = parse_pattern(&pat, pattern + lead, len - lead, NULL, &pe);
	if (error == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (error < 0) {
		skit__error_set(err, error, 0, "%s", pe.msg);
		if (err)
			err->column = (unsigned int)(lead + pe.pos + 1);
		return error;
	}
	error = plist_push(l, &pat);
	if (error < 0) {
		pattern_release(&pat);
		return skit__error_oom(err);
	}
	return 0;
}

int skit_policy_add(skit_policy *p, skit_policy_list list, const char *pattern,
                    skit_error *err)
{
	assert(p && pattern);
	assert(list == SKIT_POLICY_LIST_ALLOW ||
	       list == SKIT_POLICY_LIST_DENY || list == SKIT_POLICY_LIST_ASK);
	return policy_add(&p->lists[list == SKIT_POLICY_LIST_ALLOW  ? L_ALLOW
	                            : list == SKIT_POLICY_LIST_DENY ? L_DENY
	                                                            : L_ASK],
	                  pattern, err);
}

int skit_policy_add_flag(skit_policy *p, skit_policy_list list,
                         const char *pattern, skit_error *err)
{
	assert(p && pattern);
	assert(list == SKIT_POLICY_LIST_ALLOW || list == SKIT_POLICY_LIST_DENY);
	return policy_add(
	        &p->lists[list == SKIT_POLICY_LIST_ALLOW ? L_FLAG_ALLOW
	                                                 : L_FLAG_DENY],
	        pattern, err);
}

void skit_policy_set_yes(skit_policy *p, bool yes)
{
	assert(p);
	p->yes = yes;
}

void skit_policy_set_network(skit_policy *p, bool network)
{
	assert(p);
	p->network = network;
}

void skit_policy_set_no_network(skit_policy *p, bool no_network)
{
	assert(p);
	p->no_network = no_network;
}

/*
 * The procedure of docs/permissions.md, in its order: the first step
 * that decides, decides.
 */
/* The tool table entry of a call of `name`: -1 when unknown. An MCP
 * tool is read-only when `mcp_ro`, else execute. */
static int call_index(const char *name, bool mcp_ro, const char **mcp)
{
	size_t len = strlen(name);

	*mcp = NULL;
	if (mcp_name(name, len) == len && !strchr(name, '*') &&
	    strstr(name + strlen(MCP_PREFIX), "__")) {
		*mcp = name;
		return mcp_ro ? MCP_READ_T : MCP_EXEC_T;
	}
	return tool_index(name, len);
}

static int check(const skit_policy *p, const skit_active_skill *active,
                 size_t nactive, const skit_tool_request *req, bool mcp_ro,
                 skit_decision *out, skit_error *err)
{
	const struct pattern *hit, *allow;
	bool declared = false, listed = false;
	struct call c;

	assert(p && req && req->tool && out && (active || !nactive));
	c.index = call_index(req->tool, mcp_ro, &c.mcp);
	if (c.index < 0)
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "unknown tool '%s'", req->tool);
	c.tool = &tools[c.index];
	c.target = req->target ? req->target : "";
	c.skill = req->skill;
	c.path_state = clean_call_path(c.target, c.path, sizeof(c.path));
	c.host_ok = call_host(c.target, c.host, sizeof(c.host));
	out->risk = c.tool->risk;
	out->reason[0] = '\0';

	/* 1-3: a deny, from either source, always wins. */
	hit = plist_find(&p->lists[L_FLAG_DENY], &c, true);
	if (hit) {
		decide(out, SKIT_POLICY_DENY, "denied by --deny '%s'",
		       hit->text);
		out->by_flag = true;
		return 0;
	}
	hit = plist_find(&p->lists[L_DENY], &c, true);
	if (hit) {
		decide(out, SKIT_POLICY_DENY, "denied by config deny '%s'",
		       hit->text);
		return 0;
	}
	if (p->no_network && c.tool->risk == SKIT_RISK_NETWORK) {
		decide(out, SKIT_POLICY_DENY, "denied by --no-network");
		out->by_flag = true;
		return 0;
	}

	/* 4: the file tools work inside the project folder only. */
	if (c.tool->arg == ARG_PATH && c.path_state) {
		decide(out, SKIT_POLICY_DENY, "%s",
		       c.path_state == 1 ? "path is outside the project folder"
		                         : "path is too long");
		return 0;
	}

	/* 5: the skill gate. A skill may always run its own scripts. */
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools)
			continue;
		declared = true;
		if (plist_find(&active[i].tools->pats, &c, false))
			listed = true;
	}
	if (declared && !listed && !c.tool->skill_tool) {
		bool own = false;

		if (!strcmp(c.tool->name, RUN_SKILL_SCRIPT) && req->skill)
			for (size_t i = 0; i < nactive; i++)
				if (active[i].name &&
				    !strcmp(active[i].name, req->skill))
					own = true;
		if (!own) {
			gate_reason(out, active, nactive);
			return 0;
		}
	}

	/* 6: config ask. */
	hit = plist_find(&p->lists[L_ASK], &c, true);
	if (hit) {
		if (p->yes) {
			decide(out, SKIT_POLICY_ALLOW,
			       "approved by --yes (config ask '%s')",
			       hit->text);
			out->by_flag = true;
		} else
			decide(out, SKIT_POLICY_ASK,
			       "needs approval: config ask '%s'", hit->text);
		return 0;
	}

	/* 7: reads run. */
	if (c.tool->risk == SKIT_RISK_READ) {
		decide(out, SKIT_POLICY_ALLOW, "read-only");
		return 0;
	}

	/*
	 * 8: pre-approved. The user's allow, plus (when a skill restricts)
	 * that skill listing it; a skill alone never pre-approves.
	 */
	allow = plist_find(&p->lists[L_FLAG_ALLOW], &c, false);
	hit = allow ? allow : plist_find(&p->lists[L_ALLOW], &c, false);
	if (hit && (!declared || listed)) {
		decide(out, SKIT_POLICY_ALLOW, "pre-approved by %s '%s'",
		       allow ? "--allow" : "config allow", hit->text);
		out->by_flag = allow != NULL;
		return 0;
	}

	/* 9: the rest asks. */
	if (p->yes) {
		decide(out, SKIT_POLICY_ALLOW, "approved by --yes (%s call)",
		       risk_word(c.tool->risk));
		out->by_flag = true;
	} else
		decide(out, SKIT_POLICY_ASK, "%s call needs approval",
		       risk_word(c.tool->risk));
	return 0;
}

int skit_policy_check(const skit_policy *p, const skit_active_skill *active,
                      size_t nactive, const skit_tool_request *req,
                      skit_decision *out, skit_error *err)
{
	return check(p, active, nactive, req, false, out, err);
}

int skit_policy_check_mcp(const skit_policy *p, const skit_active_skill *active,
                          size_t nactive, const char *tool, bool read_only,
                          skit_decision *out, skit_error *err)
{
	skit_tool_request req = { tool, NULL, NULL };

	assert(tool);
	if (!mcp_name(tool, strlen(tool)))
		return skit__error_set(err, SKIT_ENOTFOUND, 0,
		                       "'%s' is not an MCP tool", tool);
	return check(p, active, nactive, &req, read_only, out, err);
}

bool skit_policy_simple_command(const char *cmd)
{
	assert(cmd);
	return simple_and_safe(cmd);
}

void skit_policy_free(skit_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < L_COUNT; i++)
		plist_release(&p->lists[i]);
	skitx_free(p);
}

/* ---- disclosure, network, suggestions, config -------------------------- */

/* Whether `pat` names tool `t` (its argument, if any, aside). */
static bool pattern_names(const struct pattern *pat, int t)
{
	const struct tool *pt;

	if (pat->tool < 0)
		return false;
	if (pat->mcp)
		return false; /* see plist_names_mcp() */
	pt = &tools[pat->tool];
	return pt->denotes ? (pt->denotes & tools[t].classes) != 0
	                   : pat->tool == t;
}

static bool plist_names(const struct plist *l, int t, bool bare_only)
{
	for (size_t i = 0; i < l->n; i++)
		if ((!bare_only || !l->v[i].arg) && pattern_names(&l->v[i], t))
			return true;
	return false;
}

/* Whether a bare pattern of `l` covers the MCP tool `name`. */
static bool plist_names_mcp(const struct plist *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].mcp && mcp_match(l->v[i].mcp, name))
			return true;
	return false;
}

bool skit_policy_offers_mcp(const skit_policy *p,
                            const skit_active_skill *active, size_t nactive,
                            const char *tool, bool read_only, bool interactive)
{
	bool declared = false, named = false;

	assert(p && tool && (active || !nactive));
	if (plist_names_mcp(&p->lists[L_FLAG_DENY], tool) ||
	    plist_names_mcp(&p->lists[L_DENY], tool))
		return false;
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools)
			continue;
		declared = true;
		if (plist_names_mcp(&active[i].tools->pats, tool))
			named = true;
	}
	if (declared)
		return named;
	if (read_only)
		return true;
	return interactive || p->yes ||
	       plist_names_mcp(&p->lists[L_FLAG_ALLOW], tool) ||
	       plist_names_mcp(&p->lists[L_ALLOW], tool);
}

bool skit_policy_offers(const skit_policy *p, const skit_active_skill *active,
                        size_t nactive, const char *tool, bool interactive)
{
	bool declared = false, named = false;
	int t;

	assert(p && tool && (active || !nactive));
	t = tool_index(tool, strlen(tool));
	if (t < 0)
		return false;
	if (tools[t].skill_tool)
		return true;
	if (plist_names(&p->lists[L_FLAG_DENY], t, true) ||
	    plist_names(&p->lists[L_DENY], t, true))
		return false;
	if (p->no_network && tools[t].risk == SKIT_RISK_NETWORK)
		return false;
	/* A skill's scripts are offered once a skill is active. */
	if (!strcmp(tools[t].name, RUN_SKILL_SCRIPT))
		return nactive > 0;
	for (size_t i = 0; i < nactive; i++) {
		if (!active[i].tools)
			continue;
		declared = true;
		if (plist_names(&active[i].tools->pats, t, false))
			named = true;
	}
	if (declared)
		return named;
	if (tools[t].risk == SKIT_RISK_READ)
		return true;
	return interactive || p->yes ||
	       plist_names(&p->lists[L_FLAG_ALLOW], t, false) ||
	       plist_names(&p->lists[L_ALLOW], t, false);
}

/* A bare deny (flag or config) of WebFetch or WebSearch. */
static bool web_denied(const skit_policy *p)
{
	static const char *const net[] = { "WebFetch", "WebSearch" };

	for (size_t k = 0; k < SKIT_ARRAY_SIZE(net); k++) {
		int t = tool_index(net[k], strlen(net[k]));

		if (plist_names(&p->lists[L_FLAG_DENY], t, true) ||
		    plist_names(&p->lists[L_DENY], t, true))
			return true;
	}
	return false;
}

bool skit_policy_network(const skit_policy *p, const skit_active_skill *active,
                         size_t nactive, const char *skill)
{
	/* The whole network is the user's decision alone (`--network`, or
	 * "network": true in the user's config): a skill's allowed-tools
	 * never grants it, whatever they name. */
	assert(p && (active || !nactive));
	(void)active;
	(void)nactive;
	(void)skill;
	return p->network && !p->no_network && !web_denied(p);
}

/* Append a copy of `s` (with `mark` before it, 0 for none) unless the
 * list already holds it. */
static int domains_push(struct skitx_vec *v, char mark, const char *s)
{
	char *d;

	for (size_t i = 0; i < v->len; i++) {
		const char *have = v->items[i];

		if ((mark ? have[0] == mark && !strcmp(have + 1, s)
		          : !strcmp(have, s)))
			return 0;
	}
	d = skitx_malloc(strlen(s) + 2);
	if (!d)
		return SKIT_ENOMEM;
	d[0] = mark;
	memcpy(d + (mark ? 1 : 0), s, strlen(s) + 1);
	if (skitx_vec_push(v, d)) {
		skitx_free(d);
		return SKIT_ENOMEM;
	}
	return 0;
}

void skit_policy_web_domains_free(char **domains)
{
	for (size_t i = 0; domains && domains[i]; i++)
		skitx_free(domains[i]);
	skitx_free(domains);
}

int skit_policy_web_domains(char ***out, const skit_policy *p,
                            const skit_active_skill *active, size_t nactive,
                            const char *skill, skit_error *err)
{
	const int lists[] = { L_FLAG_ALLOW, L_ALLOW, L_FLAG_DENY, L_DENY };
	int web = tool_index("WebFetch", 8), rc = 0;
	struct skitx_vec v = SKITX_VEC_INIT;
	char **res;

	assert(out && p && (active || !nactive));
	*out = NULL;
	if (p->no_network || web_denied(p))
		return 0;
	/* The user's own: every program gets them. A bare WebFetch is any
	 * host; a deny of a domain is carried as "!host". */
	for (size_t k = 0; !rc && k < SKIT_ARRAY_SIZE(lists); k++) {
		const struct plist *l = &p->lists[lists[k]];

		for (size_t i = 0; !rc && i < l->n; i++) {
			if (l->v[i].tool != web)
				continue;
			if (k >= 2)
				rc = l->v[i].arg ? domains_push(&v, '!',
				                                l->v[i].arg)
				                 : 0;
			else
				rc = domains_push(
				        &v, 0, l->v[i].arg ? l->v[i].arg : "*");
		}
	}
	/* A skill's, for its own scripts: each named domain the user's
	 * rules alone (no skill active) would let WebFetch reach without
	 * asking. A bare WebFetch of a skill names no domain and grants
	 * none. */
	for (size_t a = 0; !rc && skill && a < nactive; a++) {
		const struct plist *l;

		if (!active[a].tools || !active[a].name ||
		    strcmp(active[a].name, skill))
			continue;
		l = &active[a].tools->pats;
		for (size_t i = 0; !rc && i < l->n; i++) {
			skit_tool_request req = { "WebFetch", NULL, NULL };
			skit_decision d;

			if (l->v[i].tool != web || !l->v[i].arg)
				continue;
			req.target = l->v[i].arg;
			if (skit_policy_check(p, NULL, 0, &req, &d, NULL) ==
			            0 &&
			    d.verdict == SKIT_POLICY_ALLOW)
				rc = domains_push(&v, 0, l->v[i].arg);
		}
	}
	if (!rc && v.len) {
		res = skitx_calloc(v.len + 1, sizeof(*res));
		if (!res)
			rc = SKIT_ENOMEM;
		for (size_t i = 0; !rc && i < v.len; i++)
			res[i] = v.items[i];
		if (!rc) {
			skitx_vec_release(&v);
			*out = res;
			return 0;
		}
	}
	for (size_t i = 0; i < v.len; i++)
		skitx_free(v.items[i]);
	skitx_vec_release(&v);
	return rc == SKIT_ENOMEM ? skit__error_oom(err) : rc;
}

/* The first word of a command: its program. */
static size_t first_word(const char *s, const char **start)
{
	while (is_blank(*s))
		s++;
	*start = s;
	return strcspn(s, " \t");
}

/* Whether `a` is `s` without its leading and trailing blanks. */
static bool same_trimmed(const char *a, const char *s)
{
	const char *e = s + strlen(s);

	while (s < e && is_blank(*s))
		s++;
	while (e > s && is_blank(e[-1]))
		e--;
	return strlen(a) == (size_t)(e - s) && !memcmp(a, s, (size_t)(e - s));
}

int skit_policy_suggest(char *buf, size_t cap, const skit_tool_request *req,
                        bool broad)
{
	const char *w, *target;
	char host[HOST_BUF], path[PATH_BUF];
	size_t wl;
	int t, n = -1;

	assert(buf && cap && req && req->tool);
	buf[0] = '\0';
	if (mcp_name(req->tool, strlen(req->tool)))
		return snprintf(buf, cap, "%s", req->tool) < (int)cap
		               ? 0
		               : SKIT_ETOOBIG;
	t = tool_index(req->tool, strlen(req->tool));
	if (t < 0)
		return SKIT_ENOTFOUND;
	target = req->target ? req->target : "";
	switch (tools[t].arg) {
	case ARG_COMMAND:
		wl = first_word(target, &w);
		if (!wl)
			return SKIT_EINVALID;
		if (!strcmp(tools[t].name, RUN_SKILL_SCRIPT)) {
			/* the script of that skill, never another's */
			if (!req->skill || !*req->skill ||
			    req->skill[strspn(req->skill,
			                      "abcdefghijklmnopqrstuvwxyz"
			                      "0123456789-")])
				return SKIT_EINVALID;
			n = snprintf(buf, cap, "%s(%s:%.*s)", RUN_SKILL_SCRIPT,
			             req->skill, (int)wl, w);
		} else if (broad)
			n = snprintf(buf, cap, "Bash(%.*s:*)", (int)wl, w);
		else
			n = snprintf(buf, cap, "Bash(%s)", w);
		break;
	case ARG_PATH:
		/* A name holding `*` or `?` would read back as a glob
		 * ("Write(**)" is every path): no exact pattern exists. */
		if (clean_call_path(target, path, sizeof(path)) || !path[0] ||
		    strpbrk(path, "*?"))
			return SKIT_EINVALID;
		n = snprintf(buf, cap, "%s(%s)",
		             tools[t].risk == SKIT_RISK_WRITE ? "Write"
		                                              : "Read",
		             path);
		break;
	case ARG_DOMAIN:
		if (!call_host(target, host, sizeof(host)))
			return SKIT_EINVALID;
		n = snprintf(buf, cap, "WebFetch(domain:%s)", host);
		break;
	default:
		n = snprintf(buf, cap, "%s", tools[t].name);
		break;
	}
	if (n < 0 || (size_t)n >= cap) {
		buf[0] = '\0';
		return SKIT_ETOOBIG;
	}
	/* Only what parses back is a suggestion. */
	{
		struct pattern pat;
		struct perr pe;
		int error = parse_pattern(&pat, buf, (size_t)n, NULL, &pe);

		if (error < 0) {
			buf[0] = '\0';
			return error == SKIT_ENOMEM ? SKIT_ENOMEM
			                            : SKIT_EINVALID;
		}
		/*
		 * The narrow form must name this call and no other: a
		 * command ending in ":*" would read back as a prefix rule
		 * ("rm -rf build :*" grants every "rm -rf build ..."), and
		 * folded blanks would stand for other lines.
		 */
		if (!broad && tools[t].arg == ARG_COMMAND &&
		    strcmp(tools[t].name, RUN_SKILL_SCRIPT) &&
		    (pat.prefix || !same_trimmed(pat.arg, target)))
			error = SKIT_EINVALID;
		pattern_release(&pat);
		if (error < 0) {
			buf[0] = '\0';
			return error;
		}
	}
	/* And only what, given alone, lets this very call run: a script
	 * call whose arguments no pattern may pre-approve (a command
	 * substitution) gets none. */
	{
		skit_policy *alone = NULL;
		skit_decision d;
		int error = skit_policy_new(&alone, NULL);

		if (!error)
			error = skit_policy_add_flag(
			        alone, SKIT_POLICY_LIST_ALLOW, buf, NULL);
		if (!error)
			error = skit_policy_check(alone, NULL, 0, req, &d,
			                          NULL);
		if (!error && d.verdict != SKIT_POLICY_ALLOW)
			error = SKIT_EINVALID;
		skit_policy_free(alone);
		if (error < 0) {
			buf[0] = '\0';
			return error == SKIT_ENOMEM ? SKIT_ENOMEM
			                            : SKIT_EINVALID;
		}
	}
	return 0;
}

/* Append `s` to `buf` single-quoted for a POSIX shell. */
static bool put_quoted(char *buf, size_t cap, size_t *at, const char *s)
{
	if (*at + 1 >= cap)
		return false;
	buf[(*at)++] = '\'';
	for (; *s; s++) {
		const char *piece = *s == '\'' ? "'\\''" : NULL;
		size_t len = piece ? 4 : 1;

		if (*at + len + 2 > cap)
			return false;
		memcpy(buf + *at, piece ? piece : s, len);
		*at += len;
	}
	buf[(*at)++] = '\'';
	buf[*at] = '\0';
	return true;
}

int skit_policy_approving_flag(char *buf, size_t cap, const skit_policy *p,
                               const skit_active_skill *active, size_t nactive,
                               const skit_tool_request *req)
{
	struct skit_policy tmp;
	struct pattern pat;
	struct perr pe;
	skit_decision d;
	char suggestion[PATH_BUF + 64];
	size_t at;
	int error;

	assert(buf && cap && p && req);
	buf[0] = '\0';
	/* Try the narrowest --allow first, then --yes. */
	if (!skit_policy_suggest(suggestion, sizeof(suggestion), req, false) &&
	    parse_pattern(&pat, suggestion, strlen(suggestion), NULL, &pe) ==
	            0) {
		tmp = *p;
		tmp.lists[L_FLAG_ALLOW].v = &pat;
		tmp.lists[L_FLAG_ALLOW].n = 1;
		error = skit_policy_check(&tmp, active, nactive, req, &d, NULL);
		pattern_release(&pat);
		if (!error && d.verdict == SKIT_POLICY_ALLOW) {
			at = 0;
			if (cap < 9)
				return SKIT_ETOOBIG;
			memcpy(buf, "--allow ", 9);
			at = 8;
			if (!put_quoted(buf, cap, &at, suggestion)) {
				buf[0] = '\0';
				return SKIT_ETOOBIG;
			}
			return 0;
		}
	}
	tmp = *p;
	tmp.yes = true;
	error = skit_policy_check(&tmp, active, nactive, req, &d, NULL);
	if (error)
		return error;
	if (d.verdict != SKIT_POLICY_ALLOW)
		return SKIT_ENOTFOUND;
	if (cap < 6)
		return SKIT_ETOOBIG;
	memcpy(buf, "--yes", 6);
	return 0;
}

int skit_policy_load_config(skit_policy *p, const char *path, bool trusted,
                            size_t *ignored, skit_error *err)
{
	static const char *const keys[] = { "allow", "deny", "ask" };
	static const skit_policy_list lists[] = { SKIT_POLICY_LIST_ALLOW,
		                                  SKIT_POLICY_LIST_DENY,
		                                  SKIT_POLICY_LIST_ASK };
	json_t *root = NULL, *perms, *arr, *v;
	const char *key;
	size_t i, skipped = 0;
	int rc;

	assert(p && path);
	if (ignored)
		*ignored = 0;
	rc = skit__config_read(&root, path, trusted, err);
	if (rc < 0)
		return rc;
	rc = 0;
	perms = json_is_object(root) ? json_object_get(root, "permissions")
	                             : NULL;
	if (!json_is_object(root))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: expected a JSON object", path);
	else if (perms && !json_is_object(perms))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: \"permissions\" must be an object",
		                     path);
	json_object_foreach(rc ? NULL : perms, key, arr)
	{
		size_t k;

		for (k = 0; k < SKIT_ARRAY_SIZE(keys); k++)
			if (!strcmp(key, keys[k]))
				break;
		if (k == SKIT_ARRAY_SIZE(keys)) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: unknown key "
			                     "\"permissions.%.64s\" (expected "
			                     "allow, deny or ask)",
			                     path, key);
			break;
		}
		if (!json_is_array(arr)) {
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: \"permissions.%s\" must be a "
			                     "list of patterns",
			                     path, key);
			break;
		}
		json_array_foreach(arr, i, v)
		{
			if (!json_is_string(v)) {
				rc = skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: permissions.%s[%zu] is not a "
				        "string",
				        path, key, i);
				break;
			}
			/* Repository content may restrict, never grant. */
			if (!trusted && lists[k] == SKIT_POLICY_LIST_ALLOW) {
				skipped++;
				continue;
			}
			rc = skit_policy_add(p, lists[k], json_string_value(v),
			                     err);
			if (rc < 0) {
				if (err && rc != SKIT_ENOMEM) {
					char msg[sizeof(err->message)];
					int n = snprintf(
					        msg, sizeof(msg),
					        "%s: permissions.%s[%zu]: ",
					        path, key, i);

					size_t room;

					if (n < 0 || (size_t)n >= sizeof(msg))
						n = (int)sizeof(msg) - 1;
					room = sizeof(msg) - 1 - (size_t)n;
					memcpy(msg + n, err->message,
					       strnlen(err->message, room));
					msg[(size_t)n +
					    strnlen(err->message, room)] = '\0';
					memcpy(err->message, msg, sizeof(msg));
				}
				break;
			}
		}
		if (rc)
			break;
	}
	/* "network": true gives programs the whole network: from the
	 * user's own files only, never from a project's. */
	v = rc ? NULL : json_object_get(root, "network");
	if (v && !json_is_boolean(v))
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: \"network\" must be true or false",
		                     path);
	else if (v && trusted)
		p->network = json_is_true(v);
	json_decref(root);
	if (ignored)
		*ignored = skipped;
	return rc;
}
