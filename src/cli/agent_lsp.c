/* SPDX-License-Identifier: MIT */
/*
 * agent_lsp.c - the language servers `skit run` and `skit chat` give the
 * agent's lsp tool, and `skit doctor` lists (agent_opts.h, docs/lsp.md):
 * built-in defaults for the servers whose program is on PATH, then the
 * `lsp` object of the user's config files, which may add, replace or turn
 * off ("python": false) a server. A project's config (.agents/skit.json,
 * the repository's content) may not name servers: a language server is a
 * program run outside the sandbox, so only the user chooses one. Whether
 * the project is trusted, which a run needs before it gives any server,
 * is agent_opts.c's to check.
 */
#include "common.h"

#include <fcntl.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/agent_opts.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

#define CONFIG_MAX (1024 * 1024) /* bytes of a config file read */
#define ARGS_MAX   32            /* words of a server's command */
#define EXTS_MAX   32            /* extensions of one server */
#define WORD_MAX   4096          /* bytes of one word */

/*
 * The built-in servers. A server runs outside the sandbox, on files the
 * model may have written in this run: those that run the project's code
 * as they work (rust-analyzer its build scripts and procedural macros,
 * gopls the go command, tsserver the plugins a tsconfig names) would run
 * that code unconfined, so they are off until the user's config turns
 * them on ("rust": true). pylsp and clangd read and parse only.
 */
static const struct {
	const char *name, *lang;
	const char *argv[3];
	const char *ext[8];
	bool runs_code;
} builtins[] = {
	{ "python", "python", { "pylsp" }, { ".py", ".pyi" }, false },
	{ "c",
	  "c",
	  { "clangd" },
	  { ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh" },
	  false },
	{ "go", "go", { "gopls" }, { ".go" }, true },
	{ "rust", "rust", { "rust-analyzer" }, { ".rs" }, true },
	{ "typescript",
	  "typescript",
	  { "typescript-language-server", "--stdio" },
	  { ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs" },
	  true },
};

char *cli_lsp_which(const char *prog)
{
	const char *path = getenv("PATH"), *p;

	if (!prog || !*prog)
		return NULL;
	if (strchr(prog, '/'))
		return access(prog, X_OK) ? NULL : skitx_strdup(prog);
	for (p = path ? path : "/usr/bin:/bin"; *p;) {
		size_t n = strcspn(p, ":");
		struct skitx_buf b = SKITX_BUF_INIT;

		if (n && !skitx_buf_add(&b, p, n) &&
		    !skitx_buf_printf(&b, "/%s", prog) &&
		    !access(b.ptr, X_OK) && !skitx_fs_is_dir(b.ptr))
			return skitx_buf_detach(&b, NULL);
		skitx_buf_release(&b);
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

static void entry_clear(struct cli_lsp_entry *e)
{
	skitx_free(e->name);
	skitx_free(e->lang);
	skitx_strv_free(e->argv);
	skitx_strv_free(e->ext);
	memset(e, 0, sizeof(*e));
}

/* The entry called `name`, or a new one (NULL when full or OOM). */
static struct cli_lsp_entry *entry_for(struct cli_lsp *l, const char *name)
{
	struct cli_lsp_entry *e;

	for (size_t i = 0; i < l->ne; i++)
		if (!strcmp(l->e[i].name, name))
			return &l->e[i];
	if (l->ne == SKIT_ARRAY_SIZE(l->e))
		return NULL;
	e = &l->e[l->ne];
	memset(e, 0, sizeof(*e));
	e->name = skitx_strdup(name);
	if (!e->name)
		return NULL;
	l->ne++;
	return e;
}

/* A JSON array of 1 to `max` strings of 1 to WORD_MAX bytes, copied. */
static char **words_of(json_t *a, size_t max, bool dot, char *why, size_t cap,
                       const char *key)
{
	const char *v[EXTS_MAX > ARGS_MAX ? EXTS_MAX : ARGS_MAX];
	json_t *x;
	size_t i;

	if (!json_is_array(a) || !json_array_size(a) ||
	    json_array_size(a) > max) {
		snprintf(why, cap,
		         "\"%s\" must be an array of 1 to %zu strings", key,
		         max);
		return NULL;
	}
	json_array_foreach(a, i, x)
	{
		const char *s = json_string_value(x);

		if (!s || !*s || strlen(s) > WORD_MAX ||
		    (dot && (s[0] != '.' || !s[1] || strchr(s, '/')))) {
			snprintf(why, cap,
			         dot ? "\"%s\": each extension starts with "
			               "'.' (\".py\")"
			             : "\"%s\": each word must be a non-empty "
			               "string",
			         key);
			return NULL;
		}
		v[i] = s;
	}
	return skitx_strv_ndup(v, json_array_size(a));
}

/* One server of a config's "lsp" object, into `e`. */
static int parse_entry(struct cli_lsp_entry *e, json_t *o, char *why,
                       size_t cap)
{
	json_t *lang = json_object_get(o, "language_id");
	char **argv, **ext;
	const char *k;
	json_t *v;

	if (json_is_false(o)) {
		e->off = true;
		return 0;
	}
	/* true: a built-in that is off by default, on */
	if (json_is_true(o)) {
		if (!e->argv) {
			snprintf(why, cap,
			         "true turns on a built-in server; this one "
			         "needs an object with a \"command\"");
			return -1;
		}
		e->off = false;
		return 0;
	}
	if (!json_is_object(o)) {
		snprintf(why, cap, "must be an object, true or false");
		return -1;
	}
	json_object_foreach(o, k, v)
	{
		if (strcmp(k, "command") && strcmp(k, "extensions") &&
		    strcmp(k, "language_id")) {
			snprintf(why, cap, "unknown key \"%.40s\"", k);
			return -1;
		}
	}
	if (lang && (!json_is_string(lang) || !json_string_length(lang) ||
	             json_string_length(lang) > 64)) {
		snprintf(why, cap,
		         "\"language_id\" must be a string of 1 to "
		         "64 bytes");
		return -1;
	}
	argv = words_of(json_object_get(o, "command"), ARGS_MAX, false, why,
	                cap, "command");
	if (!argv)
		return -1;
	ext = words_of(json_object_get(o, "extensions"), EXTS_MAX, true, why,
	               cap, "extensions");
	if (!ext) {
		skitx_strv_free(argv);
		return -1;
	}
	skitx_strv_free(e->argv);
	skitx_strv_free(e->ext);
	skitx_free(e->lang);
	e->argv = argv;
	e->ext = ext;
	e->lang = lang ? skitx_strdup(json_string_value(lang)) : NULL;
	e->off = false;
	e->user = true;
	return 0;
}

/* The "lsp" object of config file `path`. 0 (also when the file is
 * missing or has none), 1 when an untrusted file names servers, -1 with
 * `why`. */
static int load_file(struct cli_lsp *l, const char *path, bool trusted,
                     char *why, size_t cap)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	json_error_t je;
	json_t *root, *lsp, *v;
	const char *k;
	int rc = 0, fd;

	if (!skitx_fs_exists(path))
		return 0;
	/* The user's own file may be a link (dotfiles); a project's that
	 * cannot be read without following one names no server here (the
	 * policy's loader reports it). */
	fd = trusted ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (trusted ? fd < 0 || skitx_fs_read_fd(fd, &b, CONFIG_MAX) < 0
	            : skitx_fs_read_file(path, &b, CONFIG_MAX) < 0) {
		if (fd >= 0)
			close(fd);
		skitx_buf_release(&b);
		if (!trusted)
			return 0;
		snprintf(why, cap, "%s: cannot be read", path);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	root = json_loadb(b.ptr, skitx_buf_len(&b), 0, &je);
	skitx_buf_release(&b);
	if (!root) /* the policy's loader reports a bad file */
		return 0;
	lsp = json_object_get(root, "lsp");
	if (lsp && !trusted) {
		json_decref(root);
		return 1;
	}
	if (lsp && !json_is_object(lsp)) {
		snprintf(why, cap, "%s: \"lsp\" must be an object", path);
		rc = -1;
	}
	json_object_foreach(lsp, k, v)
	{
		struct cli_lsp_entry *e;
		char w[200];
		bool ok = true;

		if (rc)
			break;
		for (const char *c = k; *c; c++)
			ok &= (*c >= 'a' && *c <= 'z') ||
			      (*c >= 'A' && *c <= 'Z') ||
			      (*c >= '0' && *c <= '9') || *c == '-' ||
			      *c == '_';
		if (!ok || !*k || strlen(k) > 64) {
			snprintf(
			        why, cap,
			        "%s: lsp: server name '%.64s' must be letters, "
			        "digits, '-' or '_'",
			        path, k);
			rc = -1;
			break;
		}
		e = entry_for(l, k);
		if (!e) {
			snprintf(why, cap,
			         "%s: lsp: too many servers (at most "
			         "%d)",
			         path, SKIT_AGENT_MAX_LSP_SERVERS);
			rc = -1;
			break;
		}
		if (parse_entry(e, v, w, sizeof(w))) {
			snprintf(why, cap, "%s: lsp.%s: %s", path, k, w);
			rc = -1;
		}
	}
	json_decref(root);
	return rc;
}

int cli_lsp_load(struct cli_lsp *l, char *const files[], const bool trusted[],
                 size_t nfiles, char *why, size_t cap)
{
	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(builtins); i++) {
		struct cli_lsp_entry *e = entry_for(l, builtins[i].name);
		size_t na = 0, nx = 0;

		while (na < 3 && builtins[i].argv[na])
			na++;
		while (nx < 8 && builtins[i].ext[nx])
			nx++;
		if (!e || !(e->argv = skitx_strv_ndup(builtins[i].argv, na)) ||
		    !(e->ext = skitx_strv_ndup(builtins[i].ext, nx)) ||
		    !(e->lang = skitx_strdup(builtins[i].lang))) {
			snprintf(why, cap, "out of memory");
			return -1;
		}
		e->off = e->runs_code = builtins[i].runs_code;
	}
	for (size_t i = 0; i < nfiles; i++) {
		int rc;

		if (!files[i])
			continue;
		rc = load_file(l, files[i], trusted[i], why, cap);
		if (rc < 0)
			return -1;
		if (rc > 0)
			fprintf(stderr,
			        "skit: warning: %s: \"lsp\" ignored: a project's "
			        "config may not name language servers (set them "
			        "in the user config)\n",
			        files[i]);
	}
	/* What the agent gets: each server on, a built-in only when its
	 * program is there (a user's own is given as written: a missing
	 * program is then a clear error of the tool). */
	for (size_t i = 0; i < l->ne; i++) {
		struct cli_lsp_entry *e = &l->e[i];
		skit_lsp_server *s;

		if (e->off)
			continue;
		if (!e->user) {
			char *found = cli_lsp_which(e->argv[0]);

			if (!found)
				continue;
			skitx_free(found);
		}
		if (l->n == SKIT_AGENT_MAX_LSP_SERVERS) {
			snprintf(why, cap, "at most %d language servers",
			         SKIT_AGENT_MAX_LSP_SERVERS);
			return -1;
		}
		s = &l->v[l->n++];
		s->name = e->name;
		s->argv = (const char *const *)e->argv;
		s->extensions = (const char *const *)e->ext;
		s->language_id = e->lang;
	}
	return 0;
}

void cli_lsp_release(struct cli_lsp *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->ne; i++)
		entry_clear(&l->e[i]);
	l->ne = l->n = 0;
}
