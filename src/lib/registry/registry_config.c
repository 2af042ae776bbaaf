/* SPDX-License-Identifier: MIT */
/*
 * registry_config.c - the default roots (docs/registry.md, "Roots and
 * precedence") and the config files that override them; the project
 * folder they start from is project.c's.
 *
 * Three tiers, highest first: project, user, builtin. Each tier's list of
 * folders comes from the first of these that defines it: the explicit
 * config file (--config), the project config `<project>/.agents/skit.json`,
 * the user config `${XDG_CONFIG_HOME:-~/.config}/skit/config.json`; else
 * from the built-in default. The project config is repository content, so
 * it may only set the project tier: it cannot relabel a folder as "user"
 * or hide the user's skills (HOSTILE B8: an untrusted origin never
 * shadows a trusted one). This file only computes paths; registry_scan.c
 * scans.
 */
#include "common.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

#include "skit/registry.h"
#include "lib/registry/registry_int.h"
#include "lib/registry/project.h"
#include "lib/core/datadir.h"
#include "lib/core/error.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

/* Config files are small; anything bigger is a mistake or an attack. */
#define MAX_CONFIG (1024 * 1024)

enum tier { TIER_PROJECT, TIER_USER, TIER_BUILTIN, NTIERS };

static const char *const tier_names[NTIERS] = { "project", "user", "builtin" };

enum cfg_kind { CFG_EXPLICIT, CFG_PROJECT, CFG_USER, NCFG };

struct cfg {
	json_t *json;         /* NULL: no such file */
	char *path;           /* as read */
	char *dir;            /* its folder, for relative user/builtin paths */
	json_t *tier[NTIERS]; /* the "roots" arrays it defines, borrowed */
};

struct ctx {
	skit_registry *reg;
	const char *home; /* NULL when unknown */
	char *project;    /* NULL when none was found */
	struct cfg cfg[NCFG];
};

static int config_diag(struct ctx *c, const char *path, const char *fmt, ...)
        SKIT_PRINTF(3, 4);

static int config_diag(struct ctx *c, const char *path, const char *fmt, ...)
{
	skit_registry *reg = c->reg;
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return skit__diags_add(&reg->config_diags, &reg->config_strings,
	                       SKIT_SEVERITY_WARNING, "config-ignored", path,
	                       "%s", msg);
}

/* Check the shape: an object; "roots", if present, maps tiers to arrays. */
static int check_config(struct cfg *cfg, skit_error *err)
{
	json_t *roots, *value;
	const char *key;

	if (!json_is_object(cfg->json))
		return skit__error_set(
		        err, SKIT_EINVALID, 0,
		        "%s: the top level must be a JSON object", cfg->path);
	roots = json_object_get(cfg->json, "roots");
	if (!roots)
		return 0;
	if (!json_is_object(roots))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: \"roots\" must be an object",
		                       cfg->path);
	json_object_foreach(roots, key, value)
	{
		size_t t, i;
		json_t *item;

		for (t = 0; t < NTIERS && strcmp(key, tier_names[t]); t++)
			;
		if (t == NTIERS)
			return skit__error_set(
			        err, SKIT_EINVALID, 0,
			        "%s: unknown key \"roots.%s\" (expected "
			        "project, user or builtin)",
			        cfg->path, key);
		if (!json_is_array(value))
			return skit__error_set(
			        err, SKIT_EINVALID, 0,
			        "%s: \"roots.%s\" must be an array of paths",
			        cfg->path, key);
		json_array_foreach(value, i, item)
		{
			if (!json_is_string(item) ||
			    !json_string_length(item) ||
			    memchr(json_string_value(item), '\0',
			           json_string_length(item)))
				return skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: \"roots.%s\" item %zu must be a "
				        "non-empty path",
				        cfg->path, key, i + 1);
		}
		cfg->tier[t] = value;
	}
	return 0;
}

/*
 * Read and check one config file. A missing file is no config, except an
 * explicit one. `nofollow`: refuse a symbolic link (the project config is
 * repository content; a link could aim the parser at any file).
 */
static int load_config(struct ctx *c, struct cfg *cfg, const char *path,
                       bool explicit, bool nofollow, skit_error *err)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	json_error_t jerr;
	struct stat st;
	char *dir;
	int fd, error;

	cfg->path = skitx_strdup(path);
	dir = skitx_path_dirname(path);
	cfg->dir = dir ? skitx_path_absolute(dir) : NULL;
	skitx_free(dir);
	if (!cfg->path || !cfg->dir)
		return skit__error_oom(err);

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC |
	                        (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return explicit
			               ? skit__error_set(err, SKIT_ENOTFOUND, 0,
			                                 "%s: no such config "
			                                 "file",
			                                 path)
			               : 0;
		if (nofollow && errno == ELOOP)
			return config_diag(c, path,
			                   "config file is a symbolic link; "
			                   "ignored");
		return skit__error_set(err, SKIT_EINVALID, 0, "%s: %s", path,
		                       strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: not a regular file", path);
	}
	error = skitx_fs_read_fd(fd, &text, MAX_CONFIG);
	close(fd);
	if (error == SKIT_ETOOBIG) {
		error = skit__error_set(err, SKIT_EINVALID, 0,
		                        "%s: larger than %d bytes", path,
		                        MAX_CONFIG);
		goto out;
	}
	if (error < 0) {
		error = error == SKIT_ENOMEM
		                ? skit__error_oom(err)
		                : skit__error_set(err, SKIT_EINVALID, 0,
		                                  "%s: cannot be read", path);
		goto out;
	}
	cfg->json =
	        json_loadb(text.ptr, text.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!cfg->json) {
		error = skit__error_set(err, SKIT_EINVALID, (unsigned)jerr.line,
		                        "%s:%d:%d: %s", path, jerr.line,
		                        jerr.column, jerr.text);
		goto out;
	}
	error = check_config(cfg, err);
out:
	skitx_buf_release(&text);
	return error;
}

/*
 * A configured path made absolute: "~" and "~/x" use the home folder;
 * a relative project path is relative to the project, any other relative
 * path to the config file's folder. NULL in `*out` (and a diagnostic)
 * when it cannot be resolved.
 */
static int resolve(struct ctx *c, char **out, const char *p, enum tier t,
                   const struct cfg *cfg)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int error;

	*out = NULL;
	if (p[0] == '~' && (!p[1] || p[1] == '/')) {
		if (!c->home)
			return config_diag(c, cfg->path,
			                   "\"%s\": no home folder to expand "
			                   "\"~\"; ignored",
			                   p);
		error = skitx_buf_printf(&b, "%s%s", c->home, p + 1);
	} else if (p[0] == '/') {
		error = skitx_buf_puts(&b, p);
	} else if (t == TIER_PROJECT) {
		if (!c->project)
			return 0; /* no project: no project roots */
		error = skitx_buf_printf(&b, "%s/%s", c->project, p);
	} else {
		error = skitx_buf_printf(&b, "%s/%s", cfg->dir, p);
	}
	if (error < 0) {
		skitx_buf_release(&b);
		return error;
	}
	*out = skitx_buf_detach(&b, NULL);
	return *out ? 0 : SKIT_ENOMEM;
}

static int add(struct ctx *c, enum tier t, const char *path, skit_error *err)
{
	return skit_registry_add_root(c->reg, tier_names[t], path, err);
}

/*
 * The built-in default roots of a tier (DESIGN.md section 4), each with
 * its own label, so that shadowing reads clearly and `--source` can pick
 * any copy: project:agents, project:agent, project:claude, project:codex
 * (the project's .agents/, .agent/, .claude/ and .codex/ skills),
 * user:agents ($SKIT_HOME/skills, else ~/.agents/skills), user:agent,
 * user:claude, user:codex (~/.agent/skills, ~/.claude/skills and
 * $CODEX_HOME/skills, else ~/.codex/skills: read as other clients write
 * them), then builtin.
 */
static int add_defaults(struct ctx *c, enum tier t, const char *skit_home,
                        skit_error *err)
{
	static const struct {
		const char *label, *dir;
	} project_dirs[] = {
		{ "project:agents", ".agents/skills" },
		{ "project:agent", ".agent/skills" },
		{ "project:claude", ".claude/skills" },
		{ "project:codex", ".codex/skills" },
	},
	  user_dirs[] = {
		  { "user:agent", ".agent/skills" },
		  { "user:claude", ".claude/skills" },
	  };
	const char *codex_home = getenv("CODEX_HOME");
	struct skitx_buf b = SKITX_BUF_INIT;
	int error = 0;

	if (codex_home && codex_home[0] != '/')
		codex_home = NULL; /* only an absolute folder moves it */
	switch (t) {
	case TIER_PROJECT:
		for (size_t i = 0;
		     c->project && i < SKIT_ARRAY_SIZE(project_dirs); i++) {
			skitx_buf_clear(&b);
			error = skitx_buf_printf(&b, "%s/%s", c->project,
			                         project_dirs[i].dir);
			if (error < 0)
				break;
			error = skit_registry_add_root(
			        c->reg, project_dirs[i].label, b.ptr, err);
			if (error < 0)
				break;
		}
		break;
	case TIER_USER:
		if (skit_home)
			error = skitx_buf_printf(&b, "%s/skills", skit_home);
		else if (c->home)
			error = skitx_buf_printf(&b, "%s/.agents/skills",
			                         c->home);
		else
			break; /* no home: no user root */
		if (error >= 0)
			error = skit_registry_add_root(c->reg, "user:agents",
			                               b.ptr, err);
		for (size_t i = 0;
		     error >= 0 && c->home && i < SKIT_ARRAY_SIZE(user_dirs);
		     i++) {
			skitx_buf_clear(&b);
			error = skitx_buf_printf(&b, "%s/%s", c->home,
			                         user_dirs[i].dir);
			if (error >= 0)
				error = skit_registry_add_root(
				        c->reg, user_dirs[i].label, b.ptr, err);
		}
		/* Codex's own folder moves with $CODEX_HOME */
		if (error >= 0 && (codex_home || c->home)) {
			skitx_buf_clear(&b);
			error = codex_home
			                ? skitx_buf_printf(&b, "%s/skills",
			                                   codex_home)
			                : skitx_buf_printf(&b,
			                                   "%s/.codex/skills",
			                                   c->home);
			if (error >= 0)
				error = skit_registry_add_root(
				        c->reg, "user:codex", b.ptr, err);
		}
		break;
	case TIER_BUILTIN:
	default: {
		char *dir = skitx_path_join(skit__data_dir(), "skills");

		error = dir ? add(c, t, dir, err) : SKIT_ENOMEM;
		skitx_free(dir);
	} break;
	}
	skitx_buf_release(&b);
	if (error == SKIT_ENOMEM)
		return skit__error_oom(err);
	return error;
}

static int add_tier(struct ctx *c, enum tier t, const char *skit_home,
                    skit_error *err)
{
	const struct cfg *cfg = NULL;
	json_t *item;
	size_t i;
	int error;

	for (size_t k = 0; k < NCFG && !cfg; k++)
		if (c->cfg[k].tier[t])
			cfg = &c->cfg[k];
	if (!cfg)
		return add_defaults(c, t, skit_home, err);
	json_array_foreach(cfg->tier[t], i, item)
	{
		char *path;

		error = resolve(c, &path, json_string_value(item), t, cfg);
		if (error < 0)
			return error == SKIT_ENOMEM ? skit__error_oom(err)
			                            : error;
		if (!path)
			continue;
		error = add(c, t, path, err);
		skitx_free(path);
		if (error < 0)
			return error;
	}
	return 0;
}

/* Whether an untrusted project has something honouring trust leaves
 * out: a project skills folder or its config (skit.json, .mcp.json). */
static int held_back(struct ctx *c, bool *out)
{
	static const char *const what[] = {
		".agents/skills", ".agent/skills",     ".claude/skills",
		".codex/skills",  ".agents/skit.json", ".mcp.json"
	};
	struct skitx_buf b = SKITX_BUF_INIT;
	int error = 0;

	*out = false;
	for (size_t i = 0; !*out && i < SKIT_ARRAY_SIZE(what); i++) {
		skitx_buf_clear(&b);
		error = skitx_buf_printf(&b, "%s/%s", c->project, what[i]);
		if (error < 0)
			break;
		*out = skitx_fs_exists(b.ptr);
	}
	skitx_buf_release(&b);
	return error;
}

bool skit_registry_project_trusted(const skit_registry *reg)
{
	return !reg->project_untrusted;
}

bool skit_registry_project_held_back(const skit_registry *reg)
{
	return reg->project_held_back;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int skit_registry_add_default_roots(skit_registry *reg,
                                    const skit_roots_options *opts,
                                    skit_error *err)
{
	static const skit_roots_options defaults = SKIT_ROOTS_OPTIONS_INIT;
	struct skitx_buf path = SKITX_BUF_INIT;
	const char *skit_home, *xdg;
	struct ctx c;
	char *cwd = NULL;
	bool skip_project;
	int error;

	assert(reg);
	if (!opts)
		opts = &defaults;
	if (opts->version != SKIT_ROOTS_OPTIONS_VERSION)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "unknown roots options version %u",
		                       opts->version);
	memset(&c, 0, sizeof(c));
	c.reg = reg;
	c.home = opts->home ? opts->home : env("HOME");
	skit_home = opts->skit_home ? opts->skit_home : env("SKIT_HOME");

	if (opts->cwd) {
		cwd = skitx_path_absolute(opts->cwd);
	} else {
		char buf[PATH_MAX];

		if (getcwd(buf, sizeof(buf)))
			cwd = skitx_strdup(buf);
		else
			cwd = skitx_strdup("/"); /* cwd removed: no project */
	}
	error = cwd ? skit__project_find_from(&c.project, cwd, c.home)
	            : SKIT_ENOMEM;
	if (error < 0) {
		error = skit__error_oom(err);
		goto out;
	}
	skitx_free(reg->project_dir);
	reg->project_dir = NULL;
	reg->project_untrusted = reg->project_held_back = false;
	if (c.project) {
		bool trusted = false;

		reg->project_dir = skitx_strdup(c.project);
		if (!reg->project_dir ||
		    skit_trust_check(&trusted, c.project, err) < 0) {
			error = skit__error_oom(err);
			goto out;
		}
		reg->project_untrusted = !trusted;
		if (!trusted && opts->honour_trust) {
			error = held_back(&c, &reg->project_held_back);
			if (error < 0)
				goto out;
		}
	}
	skip_project = reg->project_untrusted && opts->honour_trust;

	if (opts->config_file) {
		error = load_config(&c, &c.cfg[CFG_EXPLICIT], opts->config_file,
		                    true, false, err);
		if (error < 0)
			goto out;
	}
	if (!opts->no_config && c.project && !skip_project) {
		error = skitx_buf_printf(&path, "%s/.agents/skit.json",
		                         c.project);
		if (error >= 0)
			error = load_config(&c, &c.cfg[CFG_PROJECT], path.ptr,
			                    false, true, err);
		if (error < 0)
			goto out;
		/* repository content may not speak for the user */
		for (int t = TIER_USER; t < NTIERS; t++) {
			if (!c.cfg[CFG_PROJECT].tier[t])
				continue;
			c.cfg[CFG_PROJECT].tier[t] = NULL;
			error = config_diag(&c, path.ptr,
			                    "\"roots.%s\" is ignored: a "
			                    "project config may only set "
			                    "\"roots.project\"",
			                    tier_names[t]);
			if (error < 0)
				goto out;
		}
	}
	if (!opts->no_config) {
		xdg = env("XDG_CONFIG_HOME");
		skitx_buf_clear(&path);
		if (xdg && xdg[0] == '/')
			error = skitx_buf_printf(&path, "%s/skit/config.json",
			                         xdg);
		else if (c.home)
			error = skitx_buf_printf(
			        &path, "%s/.config/skit/config.json", c.home);
		else
			error = 1; /* nowhere to look */
		if (!error)
			error = load_config(&c, &c.cfg[CFG_USER], path.ptr,
			                    false, false, err);
		if (error < 0)
			goto out;
	}

	/* an untrusted project's roots are someone else's code */
	for (int t = skip_project ? TIER_USER : 0; t < NTIERS; t++) {
		error = add_tier(&c, (enum tier)t, skit_home, err);
		if (error < 0)
			goto out;
	}
	error = 0;
out:
	if (error == SKIT_ENOMEM)
		skit__error_oom(err);
	for (int k = 0; k < NCFG; k++) {
		json_decref(c.cfg[k].json);
		skitx_free(c.cfg[k].path);
		skitx_free(c.cfg[k].dir);
	}
	skitx_free(c.project);
	skitx_free(cwd);
	skitx_buf_release(&path);
	return error;
}
