/* SPDX-License-Identifier: MIT */
/*
 * lint.c - warnings beyond the spec, and the folder walk (level 3 paths).
 *
 * These checks read the body and list the folder, so they run only when
 * the caller asks (SKIT_SKILL_LINT, as `skit validate` does); the registry
 * never pays for them. They are warnings: a skill that trips them is still
 * valid unless the user asks for --strict. Secret scanning is advisory
 * (HOSTILE E12): safety comes from the sandbox, not from patterns.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skit/skill.h"
#include "lib/core/confusable.h"
#include "lib/core/error.h"
#include "lib/core/rx.h"
#include "lib/policy/policy_int.h"
#include "lib/skill/skill_int.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "util/utf8.h"
#include "util/vec.h"
#include "lib/core/winnames.h"

#define BODY_MAX_LINES    500
#define BODY_MAX_TOKENS   5000
#define WALK_MAX_DEPTH    16
#define WALK_MAX_ENTRIES  10000
#define SCAN_MAX_FILES    500
#define SCAN_MAX_FILESIZE (1024 * 1024)

/* ---- the folder walk ---------------------------------------------- */

struct walk {
	struct skit_skill *s;
	skit_file_cb cb;
	void *payload;
	size_t entries;
	int error;
};

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Visit `rel` (relative to the skill folder; "" for the folder itself) in
 * sorted order. Symbolic links are reported, never followed.
 */
static int walk_dir(struct walk *w, const char *rel, int depth)
{
	struct skitx_vec names = SKITX_VEC_INIT;
	const char *skill_md = "";
	char *abs = NULL;
	size_t skill_md_len;
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if (w->s->file)
		skill_md = skitx_path_name(w->s->file, &skill_md_len);
	abs = *rel ? skitx_path_join(w->s->dir, rel) : skitx_strdup(w->s->dir);
	if (!abs)
		return SKIT_ENOMEM;
	d = opendir(abs);
	if (!d) {
		skitx_free(abs);
		return 0; /* unreadable: nothing to list */
	}
	while ((de = readdir(d))) {
		char *copy;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->entries > WALK_MAX_ENTRIES)
			break;
		copy = skitx_strdup(de->d_name);
		if (!copy || skitx_vec_push(&names, copy) < 0) {
			skitx_free(copy);
			rc = SKIT_ENOMEM;
			goto out;
		}
	}
	if (names.len)
		qsort(names.items, names.len, sizeof(void *), cmp_names);
	for (size_t i = 0; i < names.len && !rc; i++) {
		const char *name = names.items[i];
		char *child_rel =
		        *rel ? skitx_path_join(rel, name) : skitx_strdup(name);
		char *child_abs;
		struct stat st;
		bool is_dir;

		if (!child_rel) {
			rc = SKIT_ENOMEM;
			break;
		}
		child_abs = skitx_path_join(w->s->dir, child_rel);
		if (!child_abs) {
			skitx_free(child_rel);
			rc = SKIT_ENOMEM;
			break;
		}
		is_dir = lstat(child_abs, &st) == 0 && S_ISDIR(st.st_mode);
		skitx_free(child_abs);
		/* SKILL.md itself is level 2, not a resource */
		if (!*rel && w->s->file && !strcmp(child_rel, skill_md)) {
			skitx_free(child_rel);
			continue;
		}
		rc = w->cb(child_rel, is_dir, w->payload);
		if (!rc && is_dir && depth < WALK_MAX_DEPTH)
			rc = walk_dir(w, child_rel, depth + 1);
		skitx_free(child_rel);
	}
out:
	for (size_t i = 0; i < names.len; i++)
		skitx_free(names.items[i]);
	skitx_vec_release(&names);
	closedir(d);
	skitx_free(abs);
	return rc;
}

int skit_skill_foreach_file(skit_skill *s, skit_file_cb cb, void *payload,
                            skit_error *err)
{
	struct walk w = { s, cb, payload, 0, 0 };
	int rc;

	assert(s && cb);
	rc = walk_dir(&w, "", 1);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	return rc;
}

/* ---- links ---------------------------------------------------------- */

/* True for "http:", "mailto:" and friends: a URL, not a file. */
static bool has_scheme(const char *t, size_t len)
{
	size_t i = 0;

	if (!len ||
	    !((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z')))
		return false;
	while (i < len &&
	       (t[i] == '+' || t[i] == '-' || t[i] == '.' ||
	        (t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
	        (t[i] >= '0' && t[i] <= '9')))
		i++;
	return i < len && t[i] == ':';
}

typedef int (*link_cb)(const char *target, size_t len, unsigned int line,
                       void *payload);

/*
 * Call `cb` for every relative link target of Markdown inline links
 * `[text](target "title")` in `text` (fragments and queries cut off).
 * Fenced code blocks are skipped.
 */
static int each_link(const char *text, size_t len, link_cb cb, void *payload)
{
	unsigned int line = 1;
	bool fenced = false, line_start = true;
	int rc = 0;

	for (size_t i = 0; i < len && !rc; i++) {
		if (line_start && (len - i >= 3) &&
		    (!memcmp(text + i, "```", 3) ||
		     !memcmp(text + i, "~~~", 3)))
			fenced = !fenced;
		line_start = false;
		if (text[i] == '\n') {
			line++;
			line_start = true;
			continue;
		}
		if (fenced || text[i] != ']' || i + 1 >= len ||
		    text[i + 1] != '(')
			continue;
		{
			size_t b = i + 2, e = b, cut;

			while (e < len && text[e] != ')' && text[e] != '\n')
				e++;
			if (e >= len || text[e] != ')')
				continue;
			while (b < e && text[b] == ' ')
				b++;
			if (b < e && text[b] == '<') {
				b++;
				cut = b;
				while (cut < e && text[cut] != '>')
					cut++;
			} else {
				cut = b;
				while (cut < e && text[cut] != ' ')
					cut++;
			}
			for (size_t k = b; k < cut; k++)
				if (text[k] == '#' || text[k] == '?') {
					cut = k;
					break;
				}
			if (cut == b || text[b] == '/' ||
			    has_scheme(text + b, cut - b))
				continue;
			rc = cb(text + b, cut - b, line, payload);
		}
	}
	return rc;
}

/*
 * Resolve `target` lexically against `base` (a folder relative to the
 * skill, "" for the top). Returns the path relative to the skill folder,
 * or NULL when it climbs out of it (or on out-of-memory, `*oom` set).
 */
static char *resolve_rel(const char *base, const char *target, size_t len,
                         bool *oom)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	const char *p = target, *end = target + len;

	*oom = false;
	if (skitx_buf_puts(&b, base) < 0)
		goto oom;
	while (p < end) {
		const char *e = memchr(p, '/', (size_t)(end - p));
		size_t n = e ? (size_t)(e - p) : (size_t)(end - p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash;
			if (!b.len) {
				skitx_buf_release(&b);
				return NULL;
			}
			slash = strrchr(b.ptr, '/');
			skitx_buf_truncate(&b,
			                   slash ? (size_t)(slash - b.ptr) : 0);
		} else if (n && !(n == 1 && p[0] == '.')) {
			if ((b.len && skitx_buf_putc(&b, '/') < 0) ||
			    skitx_buf_add(&b, p, n) < 0)
				goto oom;
		}
		p += n + (e ? 1 : 0);
	}
	return skitx_buf_detach(&b, NULL);
oom:
	*oom = true;
	skitx_buf_release(&b);
	return NULL;
}

static bool is_markdown(const char *p)
{
	size_t n = strlen(p);

	return n > 3 && !strcmp(p + n - 3, ".md");
}

struct link_ctx {
	struct skit_skill *s;
	const char *from; /* the file holding the links, relative */
	const char *base; /* its folder, relative */
	unsigned int line_offset;
	struct skitx_vec *md_targets; /* body only: linked Markdown files */
	int error;
};

static int nested_cb(const char *target, size_t len, unsigned int line,
                     void *payload)
{
	struct link_ctx *c = payload;
	char *rel;
	bool oom;

	rel = resolve_rel(c->base, target, len, &oom);
	if (oom)
		return c->error = SKIT_ENOMEM;
	if (rel && is_markdown(rel))
		c->error = skit__skill_diag(
		        c->s, SKIT_SEVERITY_WARNING, "reference-nested",
		        skitx_pool_printf(&c->s->pool, "%s/%s", c->s->dir,
		                          c->from),
		        line, 0,
		        "%s links to %s; keep references one level deep from "
		        "SKILL.md",
		        c->from, rel);
	skitx_free(rel);
	return c->error;
}

static int body_link_cb(const char *target, size_t len, unsigned int line,
                        void *payload)
{
	struct link_ctx *c = payload;
	struct stat st;
	char *rel, *abs;
	bool oom;
	int error = 0;

	rel = resolve_rel("", target, len, &oom);
	if (oom)
		return c->error = SKIT_ENOMEM;
	if (!rel)
		return c->error = skit__skill_diag(
		               c->s, SKIT_SEVERITY_WARNING, "link-outside",
		               NULL, c->line_offset + line, 0,
		               "link to '%.*s' points outside the skill folder",
		               (int)len, target);
	abs = skitx_path_join(c->s->dir, rel);
	if (!abs) {
		skitx_free(rel);
		return c->error = SKIT_ENOMEM;
	}
	if (lstat(abs, &st) < 0) {
		error = skit__skill_diag(
		        c->s, SKIT_SEVERITY_WARNING, "link-missing", NULL,
		        c->line_offset + line, 0,
		        "link to '%.*s': no such file", (int)len, target);
	} else if (S_ISREG(st.st_mode) && is_markdown(rel)) {
		/* the vector takes ownership of `rel` */
		if (skitx_vec_push(c->md_targets, rel) < 0)
			error = SKIT_ENOMEM;
		else
			rel = NULL;
	}
	skitx_free(rel);
	skitx_free(abs);
	return c->error = error;
}

/* Each Markdown file the body links to must not link further. */
static int check_nesting(struct skit_skill *s, struct skitx_vec *targets)
{
	int error = 0;

	for (size_t i = 0; i < targets->len && !error; i++) {
		struct skitx_buf text = SKITX_BUF_INIT;
		const char *rel = targets->items[i];
		char *abs = skitx_path_join(s->dir, rel);
		char *base;
		struct link_ctx c;

		if (!abs)
			return SKIT_ENOMEM;
		if (skitx_fs_read_file(abs, &text, SCAN_MAX_FILESIZE) < 0 ||
		    skitx_utf8_check(text.ptr, text.len, NULL)) {
			skitx_free(abs);
			skitx_buf_release(&text);
			continue;
		}
		skitx_free(abs);
		base = skitx_path_dirname(rel);
		if (!base) {
			skitx_buf_release(&text);
			return SKIT_ENOMEM;
		}
		memset(&c, 0, sizeof(c));
		c.s = s;
		c.from = rel;
		c.base = strcmp(base, ".") ? base : "";
		each_link(text.ptr, text.len, nested_cb, &c);
		error = c.error;
		skitx_free(base);
		skitx_buf_release(&text);
	}
	return error;
}

/* ---- secrets and script modes -------------------------------------- */

static const struct {
	const char *what, *re;
} secret_patterns[] = {
	{ "an AWS access key", "AKIA[0-9A-Z]{16}" },
	{ "a private key", "-----BEGIN ([A-Z]+ )?PRIVATE KEY-----" },
	{ "a Slack token", "xox[abposr]-[0-9A-Za-z-]{10,}" },
	{ "a GitHub token", "(ghp|gho|ghu|ghs|ghr)_[0-9A-Za-z]{36}" },
	{ "a GitHub token", "github_pat_[0-9A-Za-z_]{40,}" },
	{ "an API key", "sk-(ant-|proj-)?[0-9A-Za-z_-]{32,}" },
	{ "a Google API key", "AIza[0-9A-Za-z_-]{35}" },
};

struct secrets {
	struct skit__rx *re[SKIT_ARRAY_SIZE(secret_patterns)];
	size_t compiled;
};

/* Warn once per file for the first secret-looking string in `text`. */
static int scan_secrets(struct skit_skill *s, struct secrets *sec,
                        const char *path, unsigned int line_offset,
                        const char *text)
{
	size_t len = strlen(text);

	for (size_t k = 0; k < sec->compiled; k++) {
		unsigned int line = 1;
		size_t at;
		int m = skit__rx_match(sec->re[k], text, len, &at, NULL);

		/* These patterns cannot backtrack much: a stopped match (a
		 * limit of the engine) reads as no match. */
		if (m == SKIT_ENOMEM)
			return m;
		if (m <= 0)
			continue;
		for (size_t i = 0; i < at; i++)
			if (text[i] == '\n')
				line++;
		return skit__skill_diag(
		        s, SKIT_SEVERITY_WARNING, "secret-suspected", path,
		        line_offset + line, (unsigned int)0,
		        "this looks like %s; never ship credentials in a skill",
		        secret_patterns[k].what);
	}
	return 0;
}

struct scan_ctx {
	struct skit_skill *s;
	struct secrets *sec;
	size_t files;
	int error;
};

static int check_script(struct scan_ctx *c, const char *rel, const char *abs)
{
	struct stat st;

	if (strncmp(rel, "scripts/", 8) || lstat(abs, &st) < 0 ||
	    !S_ISREG(st.st_mode) ||
	    (st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
		return 0;
	return skit__skill_diag(c->s, SKIT_SEVERITY_WARNING,
	                        "script-not-executable",
	                        skitx_pool_strdup(&c->s->pool, abs), 0, 0,
	                        "%s is not executable (chmod +x it, or say "
	                        "which interpreter runs it)",
	                        rel);
}

/*
 * A SKILL.md below the skill's own folder (`outer/scripts/inner/SKILL.md`)
 * is no skill of its own: the registry reads one level only, so its
 * instructions never load, and its scripts run as the outer skill's with
 * the outer skill's grants (HOSTILE B7). Whoever put it there may expect
 * otherwise, or may hope a reader takes it for a separate skill.
 */
static int check_nested_skill(struct scan_ctx *c, const char *rel,
                              const char *abs)
{
	size_t len;
	const char *base = skitx_path_name(rel, &len);

	if (base == rel || len != 8 || strncasecmp(base, "skill.md", 8))
		return 0;
	return skit__skill_diag(c->s, SKIT_SEVERITY_WARNING, "nested-skill",
	                        skitx_pool_strdup(&c->s->pool, abs), 0, 0,
	                        "%s is a skill inside this skill: it is never "
	                        "loaded as one, and its files run as this "
	                        "skill's (move it to a skills root of its own)",
	                        rel);
}

/*
 * A name that mixes scripts (`рdf-prосessing`: Cyrillic р, о, с among
 * Latin letters) can pose as another skill's name (UTS #39).
 */
static int lint_mixed_script(struct skit_skill *s)
{
	struct skitx_buf scripts = SKITX_BUF_INIT;
	struct skit__confusable cf;
	const char *name = s->name_raw ? s->name_raw : s->name;
	int error = 0;

	if (!name || skit__confusable_open(&cf) < 0)
		return 0;
	if (skit__confusable_mixed_script(&cf, name)) {
		error = skit__confusable_scripts(name, &scripts);
		if (!error)
			error = skit__skill_diag(
			        s, SKIT_SEVERITY_WARNING, "name-mixed-script",
			        NULL, 0, 0,
			        "the name '%s' mixes scripts (%s): it can pose "
			        "as another skill's name",
			        name, scripts.ptr);
	}
	skit__confusable_close(&cf);
	skitx_buf_release(&scripts);
	return error;
}

/* One walk for all per-file lints: nested skills, script modes, secrets. */
static int scan_file_cb(const char *rel, bool is_dir, void *payload)
{
	struct scan_ctx *c = payload;
	struct skitx_buf text = SKITX_BUF_INIT;
	char *abs;
	int error;

	if (is_dir)
		return 0;
	abs = skitx_path_join(c->s->dir, rel);
	if (!abs)
		return c->error = SKIT_ENOMEM;
	error = check_nested_skill(c, rel, abs);
	if (!error)
		error = check_script(c, rel, abs);
	/* binary and oversized files are not scanned for secrets */
	if (!error && ++c->files <= SCAN_MAX_FILES &&
	    !skitx_fs_read_file(abs, &text, SCAN_MAX_FILESIZE) &&
	    !memchr(text.ptr, '\0', text.len)) {
		const char *path = skitx_pool_strdup(&c->s->pool, abs);
		error = path ? scan_secrets(c->s, c->sec, path, 0, text.ptr)
		             : SKIT_ENOMEM;
	}
	skitx_free(abs);
	skitx_buf_release(&text);
	return c->error = error;
}

static int scan_yaml(struct skit_skill *s, struct secrets *sec,
                     const struct skit__ynode *n)
{
	int error = 0;

	if (!n)
		return 0;
	if (n->kind == SKIT_YSCALAR)
		return scan_secrets(s, sec, NULL, n->line, n->value);
	for (size_t i = 0; i < n->n && !error; i++)
		error = scan_yaml(s, sec, n->items[i]);
	return error;
}

/* ---- names Windows reserves ------------------------------------------ */

/*
 * A name like "con" or "com1" passes the spec's rules (the reference
 * accepts it, so it stays valid), but `skit pack` and `skit install`
 * refuse it, since no folder on Windows can carry it (winnames.h).
 */
static int check_reserved_name(struct skit_skill *s)
{
	const char *n = s->name ? s->name : s->name_raw;

	if (!n || !skit__windows_reserved(n, strlen(n)))
		return 0;
	return skit__skill_diag(s, SKIT_SEVERITY_WARNING,
	                        "name-windows-reserved", NULL, 0, 0,
	                        "the name \"%s\" is a Windows device name "
	                        "(CON, PRN, AUX, NUL, COM0-9, LPT0-9); skit "
	                        "pack and skit install refuse it",
	                        n);
}

/*
 * The description `skit init` writes until the author replaces it: an
 * agent cannot choose the skill by it. A warning, so the default verdict
 * stays valid (the skill loads) and `--strict` catches it before release.
 */
static int check_placeholder(struct skit_skill *s)
{
	const char *d = skit_skill_description(s);

	if (!d || strcmp(d, SKIT_SKILL_PLACEHOLDER_DESCRIPTION))
		return 0;
	return skit__skill_diag(s, SKIT_SEVERITY_WARNING,
	                        "description-placeholder", NULL, 0, 0,
	                        "the description is skit init's placeholder; "
	                        "say what the skill does and when to use it");
}

/*
 * WebSearch (or another agent's name for it) in allowed-tools: the policy
 * knows the name (a network tool, as in Claude Code), but skit's agent
 * offers no such tool without a search backend. The skill still loads and its
 * other tools work; the author learns that a model under skit cannot search the
 * web for it. Tokens are split as the policy splits them (blanks and commas
 * outside parentheses); one warning per skill.
 */
static int check_not_offered(struct skit_skill *s)
{
	const char *p = s->allowed_tools;
	size_t depth, len, name;

	while (p && *p) {
		p += strspn(p, " \t\r\n,");
		for (len = 0, depth = 0;
		     p[len] && (depth || !strchr(" \t\r\n,", p[len])); len++) {
			if (p[len] == '(')
				depth++;
			else if (p[len] == ')' && depth)
				depth--;
		}
		name = strcspn(p, "(");
		if (name > len)
			name = len;
		if (name && name <= 64 &&
		    !skit__policy_tool_offered(p, name, 0) &&
		    skit__policy_tool_offered(p, name, SKIT__OFFER_SEARCH))
			return skit__skill_diag(
			        s, SKIT_SEVERITY_WARNING,
			        "allowed-tools-not-offered", NULL, 0, 0,
			        "allowed-tools names %.*s, which skit offers "
			        "only where a search backend is configured (an "
			        "MCP server's search tool, or the provider's "
			        "hosted search); with no search backend the "
			        "skill cannot search the web",
			        (int)name, p);
		p += len;
	}
	return 0;
}

/* Whether NAME.md is a file in `dir`/`sub`. */
static bool profile_at(const char *dir, const char *sub, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s/%s.md", dir, sub, name) >=
	    (int)sizeof(path))
		return false;
	return !lstat(path, &st) && S_ISREG(st.st_mode);
}

/* Whether an agent profile `name` is in a folder the agent looks in: the
 * user's, or a project's above the skill (docs/agent.md, "Agent
 * profiles"). Trust is the agent's business; this is a hint. */
bool skit__skill_builtin_agent(const char *name)
{
	return !strcmp(name, "general-purpose") || !strcmp(name, "Explore") ||
	       !strcmp(name, "Plan");
}

static bool profile_exists(const struct skit_skill *s, const char *name)
{
	const char *home = getenv("HOME"), *sh = getenv("SKIT_HOME");
	char dir[PATH_MAX], *slash;

	for (const char *c = name; *c; c++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		            "0123456789-_",
		            *c))
			return false;
	if (!*name || strlen(name) > 64)
		return false;
	if ((sh && *sh == '/' && profile_at(sh, "agents", name)) ||
	    (home && *home == '/' &&
	     (profile_at(home, ".agents/agents", name) ||
	      profile_at(home, ".claude/agents", name))))
		return true;
	if (!s->dir ||
	    snprintf(dir, sizeof(dir), "%s", s->dir) >= (int)sizeof(dir))
		return false;
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (profile_at(dir, ".agents/agents", name) ||
		    profile_at(dir, ".claude/agents", name))
			return true;
	}
	return false;
}

/*
 * Claude Code's subagent fields: `context: fork` runs the skill as a
 * subagent (docs/agent.md); any other value means nothing to skit.
 * `agent: NAME` picks the fork's agent profile: without `context: fork`
 * it does nothing, and a NAME found in no profile folder runs as the
 * default subagent (the agent reports it too, at run time).
 */
static int check_fork(struct skit_skill *s)
{
	const char *ctx = skit_skill_field(s, "context");
	const char *agent = skit_skill_field(s, "agent");
	bool fork = ctx && !strcmp(ctx, "fork");
	int rc = 0;

	if (ctx && !fork)
		rc = skit__skill_diag(s, SKIT_SEVERITY_WARNING,
		                      "context-unknown", NULL, 0, 0,
		                      "context: %.64s means nothing to skit "
		                      "(context: fork runs the skill as a "
		                      "subagent)",
		                      ctx);
	if (rc || !agent)
		return rc;
	if (!fork)
		return skit__skill_diag(s, SKIT_SEVERITY_WARNING,
		                        "agent-without-fork", NULL, 0, 0,
		                        "agent: %.64s has an effect only with "
		                        "context: fork",
		                        agent);
	if (skit__skill_builtin_agent(agent) || profile_exists(s, agent))
		return 0;
	return skit__skill_diag(s, SKIT_SEVERITY_WARNING,
	                        "agent-profile-missing", NULL, 0, 0,
	                        "agent: %.64s names no agent profile found "
	                        "(%.64s.md in .agents/agents/ of the project "
	                        "or of the user); the skill runs as a default "
	                        "subagent",
	                        agent, agent);
}

/* ---- entry point ---------------------------------------------------- */

/*
 * Hidden characters in the body (HOSTILE C15): a known attack hides
 * instructions among dozens of zero-width spaces or in TAG characters,
 * which a reader never sees and a model reads. One warning, at the first
 * one, with the count. Tab and newline are text.
 */
static int lint_hidden(struct skit_skill *s, const char *body, size_t len,
                       size_t first_line)
{
	size_t i = 0, count = 0, line = first_line, at_line = 0;
	int32_t cp, first = 0;

	while (i < len) {
		unsigned char c = (unsigned char)body[i];

		if (c >= 0x20 && c < 0x7F) {
			i++;
			continue;
		}
		if (c == '\n')
			line++;
		i += skitx_utf8_decode(body + i, len - i, &cp);
		if (cp == '\n' || cp == '\t' || !skitx_utf8_is_hidden(cp))
			continue;
		if (!count++) {
			first = cp;
			at_line = line;
		}
	}
	if (!count)
		return 0;
	return skit__skill_diag(s, SKIT_SEVERITY_WARNING, "hidden-unicode",
	                        NULL, (unsigned int)at_line, 0,
	                        "the body holds %zu invisible, bidirectional "
	                        "or control character%s (the first: U+%04X); "
	                        "a model reads what a reader cannot see",
	                        count, count == 1 ? "" : "s",
	                        (unsigned int)first);
}

int skit__skill_lint(struct skit_skill *s)
{
	struct skitx_vec md = SKITX_VEC_INIT;
	struct secrets sec;
	struct scan_ctx sc;
	struct link_ctx lc;
	skit_error err;
	const char *body;
	size_t len, lines = 0, first_line;
	int error = 0, rc;

	memset(&sec, 0, sizeof(sec));
	rc = skit_skill_body(s, &body, &len, &err);
	if (rc == SKIT_ENOMEM)
		return rc;
	if (rc < 0)
		return skit__skill_diag(s, SKIT_SEVERITY_ERROR,
		                        rc == SKIT_EENCODING ? "invalid-utf8"
		                        : rc == SKIT_ETOOBIG ? "file-too-big"
		                                             : "read-error",
		                        NULL, err.line, 0, "%s", err.message);

	/* The body starts after any blank lines stripped from its top. */
	first_line = s->body_text_line;
	for (size_t i = 0; i < len; i++)
		if (body[i] == '\n')
			lines++;
	if (len)
		lines++;
	error = check_reserved_name(s);
	if (!error)
		error = check_placeholder(s);
	if (!error)
		error = check_not_offered(s);
	if (!error)
		error = check_fork(s);
	if (!error && lines > BODY_MAX_LINES)
		error = skit__skill_diag(s, SKIT_SEVERITY_WARNING,
		                         "body-too-long", NULL, 0, 0,
		                         "the body is %zu lines; keep it under "
		                         "%d and move detail to references/",
		                         lines, BODY_MAX_LINES);
	if (!error && skitx_utf8_count(body, len) / 4 > BODY_MAX_TOKENS)
		error = skit__skill_diag(
		        s, SKIT_SEVERITY_WARNING, "body-too-many-tokens", NULL,
		        0, 0,
		        "the body is about %zu tokens; keep it under %d and "
		        "move detail to references/",
		        skitx_utf8_count(body, len) / 4, BODY_MAX_TOKENS);
	if (!error)
		error = lint_hidden(s, body, len, first_line);
	if (!error)
		error = lint_mixed_script(s);
	if (error < 0)
		goto out;

	memset(&lc, 0, sizeof(lc));
	lc.s = s;
	lc.from = "SKILL.md";
	lc.base = "";
	lc.line_offset = (unsigned int)first_line - 1;
	lc.md_targets = &md;
	each_link(body, len, body_link_cb, &lc);
	error = lc.error;
	if (!error)
		error = check_nesting(s, &md);
	if (error < 0)
		goto out;

	for (size_t k = 0; k < SKIT_ARRAY_SIZE(secret_patterns); k++) {
		if (skit__rx_new(&sec.re[k], secret_patterns[k].re, 0, NULL))
			break;
		sec.compiled++;
	}
	error = scan_yaml(s, &sec, s->root);
	if (!error)
		error = scan_secrets(s, &sec, NULL,
		                     (unsigned int)first_line - 1, body);
	memset(&sc, 0, sizeof(sc));
	sc.s = s;
	sc.sec = &sec;
	if (!error) {
		skit_skill_foreach_file(s, scan_file_cb, &sc, NULL);
		error = sc.error;
	}
out:
	for (size_t k = 0; k < sec.compiled; k++)
		skit__rx_free(sec.re[k]);
	for (size_t i = 0; i < md.len; i++)
		skitx_free(md.items[i]);
	skitx_vec_release(&md);
	return error < 0 ? error : 0;
}
