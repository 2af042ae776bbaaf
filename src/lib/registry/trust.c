/* SPDX-License-Identifier: MIT */
/*
 * trust.c - what the user config says about other people's code: the
 * folders the user trusts (key "trusted", a list of absolute paths) and
 * the "always" approvals of skill scripts (key "approvals"), each bound
 * to the digest set of its skill's files.
 *
 * The user config is the user's own file: it is read with the same cap
 * as registry_config.c, changed in place (every other key kept in its
 * order) and written back atomically under an flock() of its folder, so
 * two skit processes saving at once do not lose each other's change. A
 * config that is not valid JSON is never overwritten: the change is
 * refused with the parse error.
 */
#include "common.h"

#include <fcntl.h>
#include <jansson.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/policy.h"
#include "skit/registry.h"
#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "lib/registry/trust_int.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

/* As registry_config.c: a config file is small. */
#define MAX_CONFIG (1024 * 1024)
/* Entries kept of each list: enough for any user, bounded for a parser. */
#define MAX_ENTRIES 10000

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int skit__user_config_path(char **out)
{
	const char *xdg = env("XDG_CONFIG_HOME"), *home = env("HOME");

	*out = NULL;
	if (xdg && xdg[0] == '/')
		*out = skitx_path_join(xdg, "skit/config.json");
	else if (home)
		*out = skitx_path_join(home, ".config/skit/config.json");
	else
		return 0;
	return *out ? 0 : SKIT_ENOMEM;
}

int skit_user_config_path(char **out, skit_error *err)
{
	assert(out);
	if (skit__user_config_path(out) < 0)
		return skit__error_oom(err);
	if (!*out)
		return skit__error_set(
		        err, SKIT_ENOTFOUND, 0,
		        "no user config: neither XDG_CONFIG_HOME "
		        "nor HOME is set");
	return 0;
}

/*
 * Read the user config at `path` into `*out`: an empty object when the
 * file does not exist. SKIT_EINVALID (with the reason) when it is not a
 * JSON object or cannot be read.
 */
static int load(json_t **out, const char *path, skit_error *err)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	json_error_t jerr;
	int rc;

	char *real = realpath(path, NULL);

	*out = NULL;
	/* a linked config (dotfiles) is read where it lives */
	rc = skitx_fs_read_file(real ? real : path, &text, MAX_CONFIG);
	free(real); /* realpath(3) allocates with malloc */
	if (rc == SKIT_ENOTFOUND) {
		skitx_buf_release(&text);
		*out = json_object();
		return *out ? 0 : skit__error_oom(err);
	}
	if (rc < 0) {
		skitx_buf_release(&text);
		return rc == SKIT_ENOMEM
		               ? skit__error_oom(err)
		               : skit__error_set(
		                         err, SKIT_EINVALID, 0,
		                         "%s: cannot be read (or larger "
		                         "than %d bytes)",
		                         path, MAX_CONFIG);
	}
	*out = json_loadb(text.ptr, text.len,
	                  JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL, &jerr);
	skitx_buf_release(&text);
	if (!*out)
		return skit__error_set(err, SKIT_EINVALID, (unsigned)jerr.line,
		                       "%s:%d:%d: %s", path, jerr.line,
		                       jerr.column, jerr.text);
	if (!json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return skit__error_set(
		        err, SKIT_EINVALID, 0,
		        "%s: the top level must be a JSON object", path);
	}
	return 0;
}

/* The user config, for reading only; NULL when missing or unreadable. */
static json_t *load_quiet(void)
{
	skit_error err = { 0 };
	char *path = NULL;
	json_t *j = NULL;

	if (skit__user_config_path(&path) == 0 && path)
		load(&j, path, &err);
	skitx_free(path);
	return j;
}

/* A change to the user config: load under a lock, edit, save. */
struct edit {
	char *path; /* the file written (a link is written through) */
	int lockfd;
	json_t *json;
};

static void edit_end(struct edit *e)
{
	if (e->lockfd >= 0)
		close(e->lockfd); /* releases the flock */
	json_decref(e->json);
	skitx_free(e->path);
	memset(e, 0, sizeof(*e));
	e->lockfd = -1;
}

static int edit_begin(struct edit *e, skit_error *err)
{
	char *dir = NULL;
	int rc;

	memset(e, 0, sizeof(*e));
	e->lockfd = -1;
	rc = skit_user_config_path(&e->path, err);
	if (rc < 0)
		return rc;
	{
		/* a linked config (dotfiles) is written where it lives */
		char *real = realpath(e->path, NULL);

		if (real) {
			skitx_free(e->path);
			e->path = skitx_strdup(real);
			free(real); /* realpath(3) allocates with malloc */
			if (!e->path)
				return skit__error_oom(err);
		}
	}
	dir = skitx_path_dirname(e->path);
	if (!dir)
		return skit__error_oom(err);
	if (skitx_fs_mkdir_p(dir, 0700) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", dir,
		                     strerror(errno));
		goto fail;
	}
	e->lockfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e->lockfd < 0 || flock(e->lockfd, LOCK_EX) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: cannot lock: %s",
		                     dir, strerror(errno));
		goto fail;
	}
	skitx_free(dir);
	return load(&e->json, e->path, err);
fail:
	skitx_free(dir);
	return rc;
}

static int edit_commit(struct edit *e, skit_error *err)
{
	char *text = json_dumps(e->json, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	struct stat st;
	mode_t mode = 0600;
	int rc;

	if (!text)
		return skit__error_oom(err);
	if (stat(e->path, &st) == 0)
		mode = st.st_mode & 0777; /* keep the user's choice */
	rc = skitx_fs_write_atomic(e->path, text, strlen(text), mode);
	if (!rc) {
		int fd = open(e->path, O_WRONLY | O_APPEND | O_CLOEXEC);

		/* a final newline, as an editor would leave it */
		if (fd < 0 || write(fd, "\n", 1) != 1)
			rc = SKIT_EIO;
		if (fd >= 0)
			close(fd);
	}
	free(text);
	if (rc < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s: cannot write: %s",
		                       e->path, strerror(errno));
	return 0;
}

/* The array `key` of the config, made when missing; NULL when the key
 * holds something else (named in err). */
static json_t *array_of(json_t *cfg, const char *path, const char *key,
                        bool make, skit_error *err)
{
	json_t *a = json_object_get(cfg, key);

	if (!a && make) {
		a = json_array();
		if (!a || json_object_set_new(cfg, key, a) < 0) {
			skit__error_oom(err);
			return NULL;
		}
	}
	if (a && !json_is_array(a)) {
		skit__error_set(err, SKIT_EINVALID, 0,
		                "%s: \"%s\" must be an array", path, key);
		return NULL;
	}
	return a;
}

/* ---- trusted folders ---- */

/* `dir` made absolute and resolved where it exists (a link to a folder
 * is trusted as the folder it leads to). */
static char *canonical(const char *dir)
{
	char *abs = skitx_path_absolute(dir), *real, *out;

	if (!abs)
		return NULL;
	real = realpath(abs, NULL);
	if (!real)
		return abs;
	skitx_free(abs);
	out = skitx_strdup(real);
	free(real); /* realpath(3) allocates with malloc */
	return out;
}

/* True when `dir` is `t` or inside it (whole path components). */
static bool covers(const char *t, const char *dir)
{
	size_t n = strlen(t);

	if (n && t[n - 1] == '/')
		n--;
	return !strncmp(dir, t, n) && (dir[n] == '\0' || dir[n] == '/');
}

/* Whether `dir` holds a project marker: `.agents/`, `.agent/`, `.claude/`
 * or a `.git` entry (docs/registry.md, "Roots and precedence"). */
static bool has_marker(const char *dir)
{
	static const char *const marks[] = { ".agents", ".agent", ".claude",
		                             ".git" };
	char p[PATH_MAX];
	struct stat st;

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(marks); i++) {
		if ((size_t)snprintf(p, sizeof(p), "%s/%s", dir, marks[i]) >=
		    sizeof(p))
			return true; /* cannot tell: as if it were one */
		if (!lstat(p, &st) && (i == 3 || S_ISDIR(st.st_mode)))
			return true;
	}
	return false;
}

/*
 * Trust passes from the trusted folder `t` down to `dir`, but not past a
 * project: when `dir` holds a project marker and so does `t` or a folder
 * between them, `dir` is a project nested in a project, where a program
 * of an earlier run may have planted it (`src/.agents/skills/x` in a
 * trusted repository), and it must be trusted itself.
 */
static bool passes_down(const char *t, const char *dir)
{
	char p[PATH_MAX];
	size_t n = strlen(t);
	char *cut;

	while (n > 1 && t[n - 1] == '/')
		n--;
	/* `dir` is `t` itself, or no project: nothing of it is loaded. */
	if (strlen(dir) <= n || !has_marker(dir))
		return true;
	if (strlen(dir) >= sizeof(p))
		return false;
	memcpy(p, dir, strlen(dir) + 1);
	for (;;) {
		cut = strrchr(p, '/');
		if (!cut || (size_t)(cut - p) < n)
			return true;
		*cut = '\0';
		if (!*p)
			return true;
		if (has_marker(p))
			return false;
		if (strlen(p) <= n)
			return true;
	}
}

static bool trusted_in(json_t *cfg, const char *dir)
{
	json_t *a = cfg ? json_object_get(cfg, "trusted") : NULL, *item;
	size_t i;

	if (!json_is_array(a))
		return false;
	json_array_foreach(a, i, item)
	{
		const char *t = json_string_value(item);

		/* only absolute entries count: a relative one has no meaning
		 * and must not match every folder */
		if (t && t[0] == '/' && strlen(t) == json_string_length(item) &&
		    covers(t, dir) && passes_down(t, dir))
			return true;
	}
	return false;
}

int skit_trust_check(bool *trusted, const char *dir, skit_error *err)
{
	json_t *cfg;
	char *c;

	assert(trusted && dir);
	*trusted = false;
	c = canonical(dir);
	if (!c)
		return skit__error_oom(err);
	cfg = load_quiet();
	*trusted = trusted_in(cfg, c);
	json_decref(cfg);
	skitx_free(c);
	return 0;
}

int skit_trust_add(const char *dir, skit_error *err)
{
	struct edit e;
	json_t *a;
	const char *why;
	char *c = canonical(dir);
	int rc;

	if (!c)
		return skit__error_oom(err);
	if (!skitx_fs_is_dir(c)) {
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "%.300s: not a folder", c);
		skitx_free(c);
		return rc;
	}
	why = skit__not_a_project(c);
	if (why) {
		rc = skit__error_set(err, SKIT_EUSAGE, 0,
		                     "%.300s is %s: trusting it would trust "
		                     "every folder under it",
		                     c, why);
		skitx_free(c);
		return rc;
	}
	rc = edit_begin(&e, err);
	if (!rc) {
		a = array_of(e.json, e.path, "trusted", true, err);
		if (!a)
			rc = err && err->code ? err->code : SKIT_EINVALID;
		else if (json_array_size(a) >= MAX_ENTRIES)
			rc = skit__error_set(err, SKIT_ELIMIT, 0,
			                     "%s: more than %d trusted folders",
			                     e.path, MAX_ENTRIES);
	}
	if (!rc && !trusted_in(e.json, c)) {
		if (json_array_append_new(a, json_string(c)) < 0)
			rc = skit__error_oom(err);
		else
			rc = edit_commit(&e, err);
	}
	edit_end(&e);
	skitx_free(c);
	return rc;
}

int skit_trust_remove(const char *dir, skit_error *err)
{
	struct edit e;
	json_t *a, *item;
	char *c = canonical(dir), *abs = skitx_path_absolute(dir);
	size_t i, removed = 0;
	int rc;

	if (!c || !abs) {
		skitx_free(c);
		skitx_free(abs);
		return skit__error_oom(err);
	}
	rc = edit_begin(&e, err);
	if (!rc) {
		a = array_of(e.json, e.path, "trusted", false, err);
		if (!a && json_object_get(e.json, "trusted"))
			rc = SKIT_EINVALID;
	}
	for (i = 0; !rc && a && i < json_array_size(a);) {
		const char *t = json_string_value(json_array_get(a, i));

		item = json_array_get(a, i);
		if (t && (!strcmp(t, c) || !strcmp(t, abs))) {
			json_array_remove(a, i);
			removed++;
		} else {
			i++;
		}
		(void)item;
	}
	if (!rc && !removed)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "%.300s is not in the trusted folders", c);
	if (!rc)
		rc = edit_commit(&e, err);
	edit_end(&e);
	skitx_free(c);
	skitx_free(abs);
	return rc;
}

int skit_trust_list(char ***out, size_t *n, skit_error *err)
{
	json_t *cfg = load_quiet(), *a, *item;
	size_t i, k = 0;
	char **v;

	assert(out && n);
	*out = NULL;
	*n = 0;
	a = cfg ? json_object_get(cfg, "trusted") : NULL;
	if (!json_is_array(a)) {
		json_decref(cfg);
		return 0;
	}
	v = skitx_calloc(json_array_size(a) + 1, sizeof(*v));
	if (!v) {
		json_decref(cfg);
		return skit__error_oom(err);
	}
	json_array_foreach(a, i, item)
	{
		const char *t = json_string_value(item);

		if (!t || t[0] != '/' || strlen(t) != json_string_length(item))
			continue;
		v[k] = skitx_strdup(t);
		if (!v[k]) {
			skit_strings_free(v, k);
			json_decref(cfg);
			return skit__error_oom(err);
		}
		k++;
	}
	json_decref(cfg);
	*out = v;
	*n = k;
	return 0;
}

void skit_strings_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		skitx_free(v[i]);
	skitx_free(v);
}

/* ---- the digest set of a skill ---- */

/* What digest_cb() needs: the hash and the skill's canonical folder. */
struct digest_walk {
	EVP_MD_CTX *ctx;
	const char *root;
};

/*
 * Hash the record in `line` including its final NUL: the NUL ends each
 * field, so no path or link text can forge the next one.
 */
static int digest_add(EVP_MD_CTX *ctx, const struct skitx_buf *line)
{
	return EVP_DigestUpdate(ctx, line->ptr, line->len + 1) == 1 ? 0
	                                                            : SKIT_EIO;
}

/*
 * Where the link at `rel` leads, appended to `line` after its own record:
 * the link's text, then what it reaches. The walk does not follow links,
 * yet a script that runs `scripts/impl` runs whatever the link names, so
 * a link to a regular file contributes that file's bytes, wherever it is
 * (edit the file and the set changes), and a link to a folder inside the
 * skill its path there (the walk hashes what that folder holds). A link
 * to a folder or special file outside the skill is refused: nothing here
 * could bind what it holds. A link that leads nowhere counts as such, so
 * creating its target later changes the set too.
 */
static int digest_link(const struct digest_walk *dw, const char *rel,
                       struct skitx_buf *line, skit_error *err)
{
	char *path = skitx_path_join(dw->root, rel), *text = NULL;
	char *real = NULL, hex[65];
	struct stat st;
	uint64_t size = 0;
	ssize_t n;
	size_t rlen = strlen(dw->root);
	bool inside;
	int rc = 0, fd;

	text = skitx_malloc(PATH_MAX);
	if (!path || !text) {
		rc = skit__error_oom(err);
		goto out;
	}
	n = readlink(path, text, PATH_MAX - 1);
	if (n < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
		                     strerror(errno));
		goto out;
	}
	text[n] = '\0';
	if (skitx_buf_puts(line, text) < 0 || skitx_buf_putc(line, '\0') < 0)
		goto oom;
	real = realpath(path, NULL);
	if (!real || stat(real, &st) < 0) {
		if (skitx_buf_puts(line, "nowhere") < 0)
			goto oom;
		goto out;
	}
	inside = !strncmp(real, dw->root, rlen) &&
	         (real[rlen] == '\0' || real[rlen] == '/');
	if (S_ISREG(st.st_mode)) {
		fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
		    skit__sha256_fd(fd, hex, &size) < 0) {
			if (fd >= 0)
				close(fd);
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "%s: cannot read %s", rel, real);
			goto out;
		}
		close(fd);
		if (skitx_buf_printf(line, "file %s %c %llu", hex,
		                     (st.st_mode & 0111) ? 'x' : '-',
		                     (unsigned long long)size) < 0)
			goto oom;
	} else if (inside) {
		if (skitx_buf_printf(line, "%s %s",
		                     S_ISDIR(st.st_mode) ? "dir" : "special",
		                     real[rlen] ? real + rlen + 1 : ".") < 0)
			goto oom;
	} else {
		rc = skit__error_set(
		        err, SKIT_EUNSAFE, 0,
		        "%s: a link to %s %s, outside the skill", rel,
		        S_ISDIR(st.st_mode) ? "the folder" : "the special file",
		        real);
	}
	goto out;
oom:
	rc = skit__error_oom(err);
out:
	free(real); /* realpath(3) allocates with malloc */
	skitx_free(text);
	skitx_free(path);
	return rc;
}

static int digest_cb(void *ud, const char *rel, int fd, const struct stat *st,
                     skit_error *err)
{
	const struct digest_walk *dw = ud;
	struct skitx_buf line = SKITX_BUF_INIT;
	char hex[65];
	uint64_t size = 0;
	int rc;

	if (fd >= 0) {
		if (skit__sha256_fd(fd, hex, &size) < 0)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "%s: cannot read", rel);
		rc = skitx_buf_printf(&line, "file %s %c %llu %s", hex,
		                      (st->st_mode & 0111) ? 'x' : '-',
		                      (unsigned long long)size, rel);
	} else {
		rc = skitx_buf_printf(&line, "%s %s",
		                      S_ISDIR(st->st_mode)   ? "dir"
		                      : S_ISLNK(st->st_mode) ? "link"
		                                             : "special",
		                      rel);
		/* a link's record: "link REL", its text, what it reaches */
		if (rc >= 0 && S_ISLNK(st->st_mode)) {
			rc = skitx_buf_putc(&line, '\0');
			if (rc >= 0)
				rc = digest_link(dw, rel, &line, err);
			if (rc < 0 && rc != SKIT_ENOMEM) {
				skitx_buf_release(&line);
				return rc; /* err is set */
			}
		}
	}
	if (rc >= 0)
		rc = digest_add(dw->ctx, &line);
	skitx_buf_release(&line);
	if (rc < 0)
		return rc == SKIT_ENOMEM
		               ? skit__error_oom(err)
		               : skit__error_set(err, SKIT_EIO, 0,
		                                 "%s: cannot hash", rel);
	return 0;
}

int skit__skill_digest_set(const char *dir, char hex[65], skit_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char *c = canonical(dir);
	struct digest_walk dw;
	int rc;

	hex[0] = '\0';
	if (!ctx || !c) {
		EVP_MD_CTX_free(ctx);
		skitx_free(c);
		return skit__error_oom(err);
	}
	dw.ctx = ctx;
	dw.root = c;
	if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
		rc = skit__error_set(err, SKIT_EIO, 0, "SHA-256 unavailable");
	} else {
		rc = skit__tree_walk(AT_FDCWD, c, SKIT__WALK_LENIENT, NULL,
		                     digest_cb, &dw, err);
		if (!rc) {
			skit__sha256_final(ctx, hex);
			if (!hex[0])
				rc = skit__error_set(err, SKIT_EIO, 0,
				                     "SHA-256 unavailable");
		}
	}
	EVP_MD_CTX_free(ctx);
	skitx_free(c);
	return rc;
}

/* ---- saved approvals ---- */

static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	/* a string with a NUL inside is no string here */
	return json_is_string(v) && strlen(json_string_value(v)) ==
	                                    json_string_length(v)
	               ? json_string_value(v)
	               : NULL;
}

bool skit__approval_saved(const char *dir, const char *script,
                          const char *digest)
{
	json_t *cfg = load_quiet(), *a, *item;
	char *c = canonical(dir);
	bool found = false;
	size_t i;

	a = cfg ? json_object_get(cfg, "approvals") : NULL;
	if (c && json_is_array(a)) {
		json_array_foreach(a, i, item)
		{
			const char *d = str_of(item, "dir"),
			           *s = str_of(item, "script"),
			           *g = str_of(item, "digest");

			if (d && s && g && !strcmp(d, c) &&
			    !strcmp(s, script) && !strcmp(g, digest)) {
				found = true;
				break;
			}
		}
	}
	json_decref(cfg);
	skitx_free(c);
	return found;
}

/* The id of an approval: the start of the SHA-256 of its folder and
 * script, so the same approval keeps its id when it is renewed. */
static void approval_id(const char *dir, const char *script, char id[13])
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char hex[65] = "";

	if (skitx_buf_printf(&b, "%s%c%s", dir, 0, script) >= 0)
		skit__sha256_hex(b.ptr, b.len, hex);
	skitx_buf_release(&b);
	memcpy(id, hex, 12);
	id[12] = '\0';
}

int skit__approval_save(const char *skill, const char *dir, const char *script,
                        const char *digest, skit_error *err)
{
	struct edit e;
	json_t *a = NULL, *item;
	char *c = canonical(dir), id[13], when[32];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;
	int rc;

	if (!c)
		return skit__error_oom(err);
	approval_id(c, script, id);
	if (!gmtime_r(&now, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		when[0] = '\0';
	rc = edit_begin(&e, err);
	if (!rc) {
		a = array_of(e.json, e.path, "approvals", true, err);
		if (!a)
			rc = err && err->code ? err->code : SKIT_EINVALID;
	}
	/* a renewed approval replaces the one of the older content */
	for (i = 0; !rc && i < json_array_size(a);) {
		item = json_array_get(a, i);
		if (str_of(item, "id") && !strcmp(str_of(item, "id"), id))
			json_array_remove(a, i);
		else
			i++;
	}
	if (!rc && json_array_size(a) >= MAX_ENTRIES)
		rc = skit__error_set(err, SKIT_ELIMIT, 0,
		                     "%s: more than %d saved approvals", e.path,
		                     MAX_ENTRIES);
	if (!rc) {
		item = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s}", "id",
		                 id, "tool", "run_skill_script", "skill",
		                 skill ? skill : "", "dir", c, "script", script,
		                 "digest", digest, "time", when);
		if (!item || json_array_append_new(a, item) < 0)
			rc = skit__error_oom(err);
		else
			rc = edit_commit(&e, err);
	}
	edit_end(&e);
	skitx_free(c);
	return rc;
}

void skit_saved_approvals_free(skit_saved_approval *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		skitx_free(v[i].id);
		skitx_free(v[i].skill);
		skitx_free(v[i].dir);
		skitx_free(v[i].script);
		skitx_free(v[i].digest);
		skitx_free(v[i].time);
	}
	skitx_free(v);
}

int skit_saved_approvals_list(skit_saved_approval **out, size_t *n,
                              skit_error *err)
{
	json_t *cfg = load_quiet(), *a, *item;
	skit_saved_approval *v;
	size_t i, k = 0;

	assert(out && n);
	*out = NULL;
	*n = 0;
	a = cfg ? json_object_get(cfg, "approvals") : NULL;
	if (!json_is_array(a) || !json_array_size(a)) {
		json_decref(cfg);
		return 0;
	}
	v = skitx_calloc(json_array_size(a), sizeof(*v));
	if (!v) {
		json_decref(cfg);
		return skit__error_oom(err);
	}
	json_array_foreach(a, i, item)
	{
		const char *f[6] = {
			str_of(item, "id"),     str_of(item, "skill"),
			str_of(item, "dir"),    str_of(item, "script"),
			str_of(item, "digest"), str_of(item, "time")
		};
		skit_saved_approval *s = &v[k];

		if (!f[0] || !f[2] || !f[3] || !f[4])
			continue; /* not one of ours: leave it alone */
		s->id = skitx_strdup(f[0]);
		s->skill = skitx_strdup(f[1] ? f[1] : "");
		s->dir = skitx_strdup(f[2]);
		s->script = skitx_strdup(f[3]);
		s->digest = skitx_strdup(f[4]);
		s->time = skitx_strdup(f[5] ? f[5] : "");
		{
			char now[65];

			s->current = !skit__skill_digest_set(f[2], now, NULL) &&
			             !strcmp(now, f[4]);
		}
		k++;
		if (!s->id || !s->skill || !s->dir || !s->script ||
		    !s->digest || !s->time) {
			skit_saved_approvals_free(v, k);
			json_decref(cfg);
			return skit__error_oom(err);
		}
	}
	json_decref(cfg);
	*out = v;
	*n = k;
	return 0;
}

int skit_saved_approvals_revoke(const char *id, size_t *removed,
                                skit_error *err)
{
	struct edit e;
	json_t *a = NULL, *item;
	size_t i, k = 0;
	int rc;

	if (removed)
		*removed = 0;
	rc = edit_begin(&e, err);
	if (!rc) {
		a = array_of(e.json, e.path, "approvals", false, err);
		if (!a && json_object_get(e.json, "approvals"))
			rc = SKIT_EINVALID;
	}
	for (i = 0; !rc && a && i < json_array_size(a);) {
		const char *x;

		item = json_array_get(a, i);
		x = str_of(item, "id");
		if (!id || (x && !strcmp(x, id))) {
			json_array_remove(a, i);
			k++;
		} else {
			i++;
		}
	}
	if (!rc && id && !k)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "no saved approval with id '%.64s'", id);
	if (!rc && k)
		rc = edit_commit(&e, err);
	edit_end(&e);
	if (removed)
		*removed = k;
	return rc;
}
