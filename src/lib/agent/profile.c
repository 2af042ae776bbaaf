/* SPDX-License-Identifier: MIT */
/*
 * profile.c - find and read an agent profile (profile.h).
 *
 * A profile configures a subagent: what it is told, which tools it may
 * use (never more than its parent may) and which model answers it. It is
 * configuration, so it is read only from the user's folders and from a
 * project the user trusts, never through a symbolic link inside the
 * project, and capped at 64 KiB. The YAML is read with the skill loader's
 * parser (skill/yaml.h) in its lenient mood.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/agent/profile.h"
#include "lib/core/error.h"
#include "lib/skill/yaml.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/pool.h"

bool skit__profile_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return false;
	}
	return true;
}

void skit__profile_free(struct skit__profile *p)
{
	if (!p)
		return;
	skitx_free(p->name);
	skitx_free(p->path);
	skitx_free(p->description);
	skitx_free(p->tools);
	skitx_free(p->model);
	skitx_free(p->instructions);
	skitx_free(p);
}

/* The length of the line at `p` without its end, and the next line. */
static size_t line_at(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

	*next = nl ? nl + 1 : end;
	if (len && p[len - 1] == '\r')
		len--;
	return len;
}

/* A scalar field's text copied into `*out` (NULL when absent). A
 * sequence (a YAML list of tools) is joined with spaces. */
static int copy_field(char **out, const struct skit__ynode *root,
                      const char *key)
{
	const struct skit__ynode *v = skit__yaml_get(root, key);
	struct skitx_buf b;

	*out = NULL;
	if (!v)
		return 0;
	if (v->kind == SKIT_YSCALAR) {
		*out = skitx_strdup(v->value);
		return *out ? 0 : SKIT_ENOMEM;
	}
	if (v->kind != SKIT_YSEQ)
		return SKIT_EINVALID;
	skitx_buf_init(&b, 0);
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->kind != SKIT_YSCALAR) {
			skitx_buf_release(&b);
			return SKIT_EINVALID;
		}
		if (skitx_buf_printf(&b, "%s%s", i ? " " : "",
		                     v->items[i]->value)) {
			skitx_buf_release(&b);
			return SKIT_ENOMEM;
		}
	}
	*out = skitx_buf_detach(&b, NULL);
	return *out ? 0 : SKIT_ENOMEM;
}

static char *trimmed_dup(const char *s, size_t len)
{
	while (len && strchr(" \t\r\n", *s)) {
		s++;
		len--;
	}
	while (len && strchr(" \t\r\n", s[len - 1]))
		len--;
	return skitx_strndup(s, len);
}

/* Parse the text of the profile file `path` for `name`. */
static int parse(struct skit__profile *p, const char *path, const char *name,
                 const char *text, size_t len, skit_error *err)
{
	const char *end = text + len, *yaml, *q, *next = text;
	struct skit__ynode *root = NULL;
	struct skitx_pool pool;
	unsigned int line = 0, col = 0;
	char msg[200];
	int rc;

	if (line_at(text, end, &next) != 3 || memcmp(text, "---", 3))
		return skit__error_set(err, SKIT_EINVALID, 1,
		                       "%s: a profile starts with a \"---\" "
		                       "line (YAML frontmatter)",
		                       path);
	yaml = next;
	for (q = next; q < end; q = next)
		if (line_at(q, end, &next) == 3 && !memcmp(q, "---", 3))
			break;
	if (q >= end)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: the frontmatter is not closed by "
		                       "\"---\"",
		                       path);
	skitx_pool_init(&pool, 0);
	rc = skit__yaml_parse_flags(&root, &pool, yaml, (size_t)(q - yaml),
	                            SKIT_YAML_FLOW, msg, sizeof(msg), &line,
	                            &col);
	if (rc == SKIT_ENOMEM) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (rc || !root || root->kind != SKIT_YMAP) {
		rc = skit__error_set(err, SKIT_EINVALID, line + 1,
		                     "%s: the frontmatter is not a YAML "
		                     "mapping%s%s",
		                     path, rc ? ": " : "", rc ? msg : "");
		goto out;
	}
	rc = copy_field(&p->name, root, "name");
	if (!rc)
		rc = copy_field(&p->description, root, "description");
	if (!rc)
		rc = copy_field(&p->tools, root, "tools");
	if (!rc)
		rc = copy_field(&p->model, root, "model");
	if (rc == SKIT_ENOMEM) {
		rc = skit__error_oom(err);
		goto out;
	}
	if (rc) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: name, description, tools and model "
		                     "must be text (tools may be a list)",
		                     path);
		goto out;
	}
	if (p->name && strcmp(p->name, name)) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: its name is '%.64s', not '%s'", path,
		                     p->name, name);
		goto out;
	}
	if (p->model && !strcmp(p->model, "inherit")) {
		skitx_free(p->model);
		p->model = NULL;
	}
	skitx_free(p->name);
	p->name = skitx_strdup(name);
	p->path = skitx_strdup(path);
	p->instructions = trimmed_dup(next, (size_t)(end - next));
	if (!p->name || !p->path || !p->instructions)
		rc = skit__error_oom(err);
out:
	skitx_pool_release(&pool);
	return rc;
}

/*
 * Read `dir`/`name`.md when it is there: 0 with *out, SKIT_ENOTFOUND, or
 * another status. Never through a link, only a regular file.
 */
static int read_profile(struct skit__profile **out, const char *dir,
                        const char *name, skit_error *err)
{
	struct skitx_buf path, text;
	struct skit__profile *p = NULL;
	struct stat st;
	int fd, rc;

	skitx_buf_init(&path, 0);
	skitx_buf_init(&text, SKIT__PROFILE_MAX);
	if (skitx_buf_printf(&path, "%s/%s.md", dir, name)) {
		rc = skit__error_oom(err);
		goto out;
	}
	fd = open(skitx_buf_cstr(&path),
	          O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		rc = errno == ENOENT || errno == ENOTDIR
		             ? SKIT_ENOTFOUND
		             : skit__error_set(err, SKIT_EINVALID, 0, "%s: %s",
		                               skitx_buf_cstr(&path),
		                               errno == ELOOP
		                                       ? "a symbolic link"
		                                       : strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: not a regular file",
		                     skitx_buf_cstr(&path));
		goto out;
	}
	rc = skitx_fs_read_fd(fd, &text, SKIT__PROFILE_MAX);
	close(fd);
	if (rc) {
		rc = rc == SKIT_ENOMEM
		             ? skit__error_oom(err)
		             : skit__error_set(err, rc, 0,
		                               "%s: %s (at most %u "
		                               "KiB)",
		                               skitx_buf_cstr(&path),
		                               skit_strerror(rc),
		                               SKIT__PROFILE_MAX >> 10);
		goto out;
	}
	if (memchr(skitx_buf_cstr(&text), '\0', skitx_buf_len(&text))) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: holds a NUL byte",
		                     skitx_buf_cstr(&path));
		goto out;
	}
	p = skitx_calloc(1, sizeof(*p));
	if (!p) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = parse(p, skitx_buf_cstr(&path), name, skitx_buf_cstr(&text),
	           skitx_buf_len(&text), err);
	if (!rc) {
		*out = p;
		p = NULL;
	}
out:
	skit__profile_free(p);
	skitx_buf_release(&path);
	skitx_buf_release(&text);
	return rc;
}

/*
 * Claude Code's built-in agents, for the skills (`agent: Explore`) and
 * task calls (`subagent_type`) that name them; a profile file of the same
 * name wins. Both only read: they search and read the project and change
 * nothing. general-purpose is no profile (subagent.c).
 */
static const struct {
	const char *name, *description, *tools, *instructions;
} builtins[] = {
	{ "Explore",
	  "Finds files and code and answers questions about the codebase, "
	  "changing nothing.",
	  "Read Grep Glob LS",
	  "You explore a codebase to answer one question. Find files with "
	  "glob, search their text with grep, read what matters, and answer "
	  "with file paths and line numbers. You change nothing: you write no "
	  "file and run no command. Be quick, and say what you could not "
	  "find." },
	{ "Plan",
	  "Researches the codebase and designs a plan for a change, changing "
	  "nothing.",
	  "Read Grep Glob LS",
	  "You research a codebase and design a plan for the change you are "
	  "given. Read the code the change touches, then answer with the "
	  "plan: its steps in order, the files each step changes and how, and "
	  "the risks and open questions. You change nothing: you write no "
	  "file and run no command." },
};

static int builtin_profile(struct skit__profile **out, const char *name,
                           skit_error *err)
{
	struct skit__profile *p;

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(builtins); i++) {
		if (strcmp(builtins[i].name, name))
			continue;
		p = skitx_calloc(1, sizeof(*p));
		if (!p || !(p->name = skitx_strdup(name)) ||
		    !(p->path = skitx_strdup("(built-in)")) ||
		    !(p->description = skitx_strdup(builtins[i].description)) ||
		    !(p->tools = skitx_strdup(builtins[i].tools)) ||
		    !(p->instructions =
		              skitx_strdup(builtins[i].instructions))) {
			skit__profile_free(p);
			return skit__error_oom(err);
		}
		*out = p;
		return 0;
	}
	return SKIT_ENOTFOUND;
}

bool skit__profile_builtin(const char *name)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(builtins); i++)
		if (!strcmp(builtins[i].name, name))
			return true;
	return false;
}

int skit__profile_find(struct skit__profile **out, const char *project_dir,
                       bool project_trusted, const char *name, skit_error *err)
{
	const char *home = getenv("HOME"), *sh = getenv("SKIT_HOME");
	struct skitx_buf dir;
	int rc = SKIT_ENOTFOUND;

	assert(out && name);
	*out = NULL;
	if (!skit__profile_name_ok(name))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "an agent profile's name is 1 to 64 "
		                       "letters, digits, '-' and '_'");
	if (home && home[0] != '/')
		home = NULL;
	if (sh && sh[0] != '/')
		sh = NULL;
	skitx_buf_init(&dir, 0);
	for (int i = 0; i < 4 && rc == SKIT_ENOTFOUND; i++) {
		int e = 0;

		skitx_buf_clear(&dir);
		if (i < 2 && !(project_dir && project_trusted))
			continue;
		if (i == 0)
			e = skitx_buf_printf(&dir, "%s/.agents/agents",
			                     project_dir);
		else if (i == 1)
			e = skitx_buf_printf(&dir, "%s/.claude/agents",
			                     project_dir);
		else if (i == 2 && sh)
			e = skitx_buf_printf(&dir, "%s/agents", sh);
		else if (i == 2 && home)
			e = skitx_buf_printf(&dir, "%s/.agents/agents", home);
		else if (i == 3 && home)
			e = skitx_buf_printf(&dir, "%s/.claude/agents", home);
		else
			continue;
		if (e) {
			rc = skit__error_oom(err);
			break;
		}
		rc = read_profile(out, skitx_buf_cstr(&dir), name, err);
	}
	skitx_buf_release(&dir);
	if (rc == SKIT_ENOTFOUND)
		rc = builtin_profile(out, name, err);
	if (rc == SKIT_ENOTFOUND)
		return skit__error_set(err, rc, 0,
		                       "no agent profile named '%s'", name);
	return rc;
}
