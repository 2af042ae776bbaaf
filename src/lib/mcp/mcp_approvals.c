/* SPDX-License-Identifier: MIT */
/*
 * mcp_approvals.c - the approvals of project MCP servers: what an
 * approval covers (the digest of a server's definition, its project and
 * the project files its command line names), whether a remembered record
 * approves a server, and the records themselves ("mcpApproved" in the
 * user config: save, list, revoke).
 *
 * A project's server starts only once the user approved that server of
 * that project as it is now, for this run or remembered; a record holds
 * the digest, so that a change to the definition, the project or a file
 * its command line names asks again (docs/mcp.md, "Project servers need
 * approval").
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "skit/mcp_client.h"

#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/core/userconfig.h"
#include "lib/mcp/mcp_client_int.h"
#include "util/fs.h"
#include "util/path.h"

/* ---- what an approval covers ------------------------------------------ */

/* Most project files one server's digest covers; more are not hashed. */
#define MAX_FILES 64
/* A file over this is covered by its identity, not its bytes. */
#define MAX_HASHED (256ull * 1024 * 1024)
/* package.json read to find a package's entry files. */
#define MAX_PACKAGE_JSON (1024 * 1024)

/*
 * The project of a project file: the folder holding `.mcp.json`, or the
 * one above `.agents/skit.json`, by its real path. skitx_malloc'd; NULL
 * on OOM.
 */
char *skit__mcp_project_of(const char *file)
{
	char *dir = skitx_path_dirname(file), *up, *real;
	size_t len;
	const char *name;

	if (!dir)
		return NULL;
	name = skitx_path_name(dir, &len);
	if (len == 7 && !memcmp(name, ".agents", 7)) {
		up = skitx_path_dirname(dir);
		skitx_free(dir);
		dir = up;
		if (!dir)
			return NULL;
	}
	real = realpath(dir, NULL);
	if (real) {
		skitx_free(dir);
		dir = skitx_strdup(real);
		free(real); /* realpath(3) allocates with malloc */
		return dir;
	}
	up = skitx_path_absolute(dir);
	skitx_free(dir);
	return up;
}

/* Is `path` `dir` or beneath it? Both absolute. */
static bool beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The project files a server's command line names, as JSON records. */
struct covered {
	const char *proj; /* the project's real path */
	json_t *files;    /* [[path, real path, digest], ...] */
	bool full;        /* MAX_FILES reached */
};

/*
 * `word` as a path from the server's working folder (the project):
 * absolute, with "." and ".." resolved lexically. skitx_malloc'd.
 */
static char *from_project(const struct covered *cv, const char *word)
{
	char *joined, *abs;

	if (word[0] == '/')
		return skitx_path_absolute(word);
	joined = skitx_path_join(cv->proj, word);
	if (!joined)
		return NULL;
	abs = skitx_path_absolute(joined);
	skitx_free(joined);
	return abs;
}

/*
 * Record the file at `abs` when it is a regular file of the project,
 * named there or reached through a link that leads there: its path, its
 * real path and the SHA-256 of its bytes (a file over MAX_HASHED by its
 * device, inode, size and ctime, which no one but root can set back).
 * Anything else (missing, a folder, a FIFO, outside) adds nothing; a
 * file that appears later changes the digest all the same.
 */
static int cover_file(struct covered *cv, const char *abs)
{
	char *real, hex[65] = "", rec[160];
	struct stat st;
	int fd, rc = 0;
	json_t *item;

	if (cv->full)
		return 0;
	real = realpath(abs, NULL);
	if (!real)
		return 0;
	if (!beneath(abs, cv->proj) && !beneath(real, cv->proj))
		goto out;
	/* O_NONBLOCK: a FIFO put in the file's place cannot block skit */
	fd = open(real, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		goto out;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		goto out;
	}
	if ((unsigned long long)st.st_size > MAX_HASHED)
		snprintf(rec, sizeof(rec), "identity:%llu:%llu:%llu:%lld.%09ld",
		         (unsigned long long)st.st_dev,
		         (unsigned long long)st.st_ino,
		         (unsigned long long)st.st_size,
		         (long long)st.st_ctim.tv_sec,
		         (long)st.st_ctim.tv_nsec);
	else if (skit__sha256_fd(fd, hex, NULL) < 0)
		snprintf(rec, sizeof(rec), "unreadable");
	else
		snprintf(rec, sizeof(rec), "sha256:%s", hex);
	close(fd);
	item = json_pack("[s, s, s]", abs, real, rec);
	if (!item || json_array_append_new(cv->files, item))
		rc = SKIT_ENOMEM;
	cv->full = json_array_size(cv->files) >= MAX_FILES;
out:
	free(real);
	return rc;
}

static int cover_word(struct covered *cv, const char *word);

/* A string field of a package.json as a file of the package `dir`. */
static int cover_entry(struct covered *cv, const char *dir, json_t *v)
{
	char *p;
	int rc;

	if (!json_is_string(v) || !json_string_length(v))
		return 0;
	p = skitx_path_join(dir, json_string_value(v));
	if (!p)
		return SKIT_ENOMEM;
	rc = cover_file(cv, p);
	skitx_free(p);
	return rc;
}

/*
 * A folder the command line names (`node lib`, a package under
 * node_modules): its package.json and the entry files it names (`main`,
 * `bin`), else index.js; a Python folder's __main__.py. The package's
 * bins linked under `bin_dir` (node_modules/.bin), when given, too.
 */
static int cover_package(struct covered *cv, const char *dir,
                         const char *bin_dir)
{
	static const char *const plain[] = { "package.json", "index.js",
		                             "__main__.py", NULL };
	struct skitx_buf b = SKITX_BUF_INIT;
	char *pj = skitx_path_join(dir, "package.json");
	json_t *root = NULL, *bin, *v;
	const char *k;
	int rc = 0;

	if (!pj)
		return SKIT_ENOMEM;
	for (size_t i = 0; !rc && plain[i]; i++) {
		char *p = skitx_path_join(dir, plain[i]);

		rc = p ? cover_file(cv, p) : SKIT_ENOMEM;
		skitx_free(p);
	}
	if (!rc && !skitx_fs_read_file(pj, &b, MAX_PACKAGE_JSON))
		root = json_loadb(skitx_buf_cstr(&b), skitx_buf_len(&b), 0,
		                  NULL);
	skitx_buf_release(&b);
	skitx_free(pj);
	bin = json_object_get(root, "bin");
	if (!rc)
		rc = cover_entry(cv, dir, json_object_get(root, "main"));
	if (!rc && json_is_string(bin))
		rc = cover_entry(cv, dir, bin);
	json_object_foreach(bin, k, v)
	{
		if (rc)
			break;
		rc = cover_entry(cv, dir, v);
		if (!rc && bin_dir && !strchr(k, '/')) {
			char *p = skitx_path_join(bin_dir, k);

			rc = p ? cover_file(cv, p) : SKIT_ENOMEM;
			skitx_free(p);
		}
	}
	json_decref(root);
	return rc;
}

/*
 * One word of the command line: the file it names from the project, a
 * folder's package files, and the value of an `--opt=VALUE` word.
 */
static int cover_word(struct covered *cv, const char *word)
{
	const char *eq = strchr(word, '=');
	char *abs;
	struct stat st;
	int rc = 0;

	if (!*word)
		return 0;
	abs = from_project(cv, word);
	if (!abs)
		return SKIT_ENOMEM;
	if (!stat(abs, &st) && S_ISDIR(st.st_mode))
		rc = cover_package(cv, abs, NULL);
	else
		rc = cover_file(cv, abs);
	skitx_free(abs);
	if (!rc && eq && eq[1])
		rc = cover_word(cv, eq + 1);
	return rc;
}

/* `python -m a.b`: a/b.py, a/b/__main__.py, a/b/__init__.py. */
static int cover_module(struct covered *cv, const char *mod)
{
	static const char *const ends[] = { ".py", "/__main__.py",
		                            "/__init__.py" };
	int rc = 0;

	for (size_t i = 0; !rc && i < SKIT_ARRAY_SIZE(ends); i++) {
		struct skitx_buf b = SKITX_BUF_INIT;

		if (skitx_buf_puts(&b, mod) < 0 ||
		    skitx_buf_puts(&b, ends[i]) < 0) {
			skitx_buf_release(&b);
			return SKIT_ENOMEM;
		}
		for (size_t j = 0; j < skitx_buf_len(&b) - strlen(ends[i]); j++)
			if (b.ptr[j] == '.')
				b.ptr[j] = '/';
		rc = cover_word(cv, skitx_buf_cstr(&b));
		skitx_buf_release(&b);
	}
	return rc;
}

/*
 * `npx [options] PKG`: npx runs a package the project has installed
 * before it downloads one, so the package's files under node_modules
 * (package.json, its entries, its bins under node_modules/.bin) are
 * what runs. Packages given with -p/--package count too.
 */
static int cover_npx(struct covered *cv, char **args)
{
	char *bin_dir = skitx_path_join(cv->proj, "node_modules/.bin");
	int rc = bin_dir ? 0 : SKIT_ENOMEM;

	for (size_t i = 1; !rc && args[i]; i++) {
		const char *a = args[i], *spec = NULL, *at;
		char *name, *dir;
		bool last = false;

		if (!strcmp(a, "-p") || !strcmp(a, "--package"))
			spec = args[i + 1] ? args[++i] : NULL;
		else if (!strncmp(a, "--package=", 10))
			spec = a + 10;
		else if (!strcmp(a, "-c") || !strcmp(a, "--call"))
			i += args[i + 1] ? 1 : 0;
		else if (!strcmp(a, "--"))
			continue;
		else if (a[0] != '-')
			spec = a, last = true;
		if (!spec || !*spec)
			continue;
		/* "@scope/name@1.2" and "name@1.2" name a package and a
		 * version; the version is not part of the folder */
		at = strchr(spec + 1, '@');
		name = at ? skitx_strndup(spec, (size_t)(at - spec))
		          : skitx_strdup(spec);
		dir = name && !strstr(name, "..")
		              ? skitx_path_join(cv->proj, "node_modules")
		              : NULL;
		if (name && dir) {
			char *pkg = skitx_path_join(dir, name);
			const char *base = strrchr(name, '/');
			char *link = skitx_path_join(bin_dir,
			                             base ? base + 1 : name);

			rc = pkg && link ? cover_package(cv, pkg, bin_dir)
			                 : SKIT_ENOMEM;
			if (!rc)
				rc = cover_file(cv, link);
			skitx_free(pkg);
			skitx_free(link);
		} else if (!name) {
			rc = SKIT_ENOMEM;
		}
		skitx_free(name);
		skitx_free(dir);
		if (last)
			break;
	}
	skitx_free(bin_dir);
	return rc;
}

/*
 * The command as posix_spawnp() finds it from the project folder: a
 * name with a '/' from there, else the first executable file along
 * skit's PATH (a relative entry, "" included, from the project).
 */
static int cover_command(struct covered *cv, const char *cmd)
{
	const char *path = getenv("PATH"), *p, *end;
	int rc = 0;

	if (strchr(cmd, '/'))
		return cover_word(cv, cmd);
	if (!*cmd || !path)
		return 0;
	for (p = path;; p = end + 1) {
		struct skitx_buf b = SKITX_BUF_INIT;
		struct stat st;
		char *abs;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (skitx_buf_add(&b, p, (size_t)(end - p)) < 0 ||
		    (end > p && skitx_buf_putc(&b, '/') < 0) ||
		    skitx_buf_puts(&b, cmd) < 0) {
			skitx_buf_release(&b);
			return SKIT_ENOMEM;
		}
		abs = from_project(cv, skitx_buf_cstr(&b));
		skitx_buf_release(&b);
		if (!abs)
			return SKIT_ENOMEM;
		if (!stat(abs, &st) && S_ISREG(st.st_mode) &&
		    !access(abs, X_OK)) {
			rc = cover_file(cv, abs);
			skitx_free(abs);
			return rc;
		}
		skitx_free(abs);
		if (!*end)
			return 0;
	}
}

/*
 * The approval digest of a project's server: SHA-256 of the canonical
 * JSON of its definition `o`, the project's real path and the records of
 * the project files its command line (after ${VAR} expansion) names. The
 * server starts in the project folder, so the words resolve from there
 * as they will when it runs.
 */
int skit__mcp_approval_digest(struct skit__mcp_def *d, json_t *o,
                              skit_error *err)
{
	struct covered cv = { d->project_dir, json_array(), false };
	struct skit__mcp_def x;
	skit_error ignored = { 0 };
	json_t *all = NULL;
	char *canon = NULL;
	int rc = cv.files ? 0 : SKIT_ENOMEM;

	memset(&x, 0, sizeof(x));
	/* An unset ${VAR} keeps the server off when it starts; until then
	 * the words are taken as written. */
	if (!rc && d->command && skit__mcp_expand_def(d, &x, &ignored)) {
		skit__mcp_def_release(&x);
		memset(&x, 0, sizeof(x));
	}
	if (!rc && d->command) {
		const struct skit__mcp_def *w = x.command ? &x : d;
		const char *base = strrchr(w->command, '/');

		base = base ? base + 1 : w->command;
		rc = cover_command(&cv, w->command);
		for (size_t i = 1; !rc && w->args[i]; i++) {
			rc = cover_word(&cv, w->args[i]);
			if (!rc && !strcmp(w->args[i], "-m") && w->args[i + 1])
				rc = cover_module(&cv, w->args[i + 1]);
		}
		if (!rc && !strcmp(base, "npx"))
			rc = cover_npx(&cv, w->args);
	}
	skit__mcp_def_release(&x);
	if (!rc) {
		all = json_pack("{s:O, s:s, s:O}", "definition", o, "project",
		                d->project_dir, "files", cv.files);
		canon = all ? json_dumps(all, JSON_COMPACT | JSON_SORT_KEYS)
		            : NULL;
		if (!canon)
			rc = SKIT_ENOMEM;
	}
	if (!rc) {
		memcpy(d->digest, "sha256:", 7);
		skit__sha256_hex(canon, strlen(canon), d->digest + 7);
	}
	free(canon);
	json_decref(all);
	json_decref(cv.files);
	return rc ? skit__error_oom(err) : 0;
}

/* ---- remembered approvals (mcpApproved in the user config) ------------ */

/* Most records kept; the oldest goes beyond it. */
#define MAX_APPROVALS 256

/* A string member of a JSON object, or NULL (also for one with a NUL). */
static const char *str_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) && strlen(json_string_value(v)) ==
	                                    json_string_length(v)
	               ? json_string_value(v)
	               : NULL;
}

/* Does a remembered record approve `d` (the same name and digest)? */
bool skit__mcp_def_approved(const skit_mcp_config *c,
                            const struct skit__mcp_def *d)
{
	const char *k;
	json_t *v;

	if (d->refused)
		return false;
	if (!d->project || d->approved)
		return true;
	json_object_foreach(c->approvals, k, v)
	{
		const char *server = str_of(v, "server"),
		           *digest = str_of(v, "digest");

		(void)k;
		if (server && digest && !strcmp(server, d->name) &&
		    !strcmp(digest, d->digest))
			return true;
	}
	return false;
}

/*
 * The user config under its folder's lock (core/userconfig.h: the same
 * lock as folder trust and script approvals, so none loses another's
 * change), with "mcpApproved" an object when present. `path` NULL: the
 * user's own file.
 */
static int cfg_begin(struct skit__userconfig_edit *e, const char *path,
                     bool create, skit_error *err)
{
	int rc = skit__userconfig_begin(e, path, create, err);

	if (rc)
		return rc;
	if (json_object_get(e->json, "mcpApproved") &&
	    !json_is_object(json_object_get(e->json, "mcpApproved")))
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: \"mcpApproved\" must be an object",
		                       e->path);
	return 0;
}

/*
 * The id of a record: the start of the SHA-256 of the project and the
 * server's name, so that approving a server again replaces its record.
 * Without the project (skit_mcp_approval_save()), of the name and the
 * digest, which names the project too.
 */
static void record_id(const char *name, const char *project, const char *digest,
                      char id[13])
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char hex[65] = "";

	if (skitx_buf_printf(&b, "mcp%c%s%c%s", 0, project ? project : "", 0,
	                     project ? name : digest) >= 0)
		skit__sha256_hex(b.ptr, b.len, hex);
	skitx_buf_release(&b);
	memcpy(id, hex, 12);
	id[12] = '\0';
}

static int save_record(const char *path, const char *name, const char *project,
                       const char *digest, skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *appr, *rec;
	char id[13], when[32];
	time_t now = time(NULL);
	struct tm tm;
	const char *k;
	void *tmp;
	json_t *v;
	int rc;

	rc = cfg_begin(&e, path, true, err);
	if (rc)
		goto out;
	appr = json_object_get(e.json, "mcpApproved");
	if (!appr) {
		appr = json_object();
		if (!appr || json_object_set_new(e.json, "mcpApproved", appr)) {
			rc = skit__error_oom(err);
			goto out;
		}
	}
	/* An older skit's records ("NAME": "DIGEST") approve nothing now. */
	json_object_foreach_safe(appr, tmp, k, v) if (!json_is_object(v))
	        json_object_del(appr, k);
	record_id(name, project, digest, id);
	json_object_del(appr, id); /* renewed: it moves to the end */
	while (json_object_size(appr) >= MAX_APPROVALS)
		json_object_del(appr,
		                json_object_iter_key(json_object_iter(appr)));
	if (!gmtime_r(&now, &tm) ||
	    !strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm))
		when[0] = '\0';
	rec = project ? json_pack("{s:s, s:s, s:s, s:s}", "server", name,
	                          "project", project, "digest", digest, "time",
	                          when)
	              : json_pack("{s:s, s:s, s:s}", "server", name, "digest",
	                          digest, "time", when);
	if (!rec || json_object_set_new(appr, id, rec)) {
		rc = skit__error_oom(err);
		goto out;
	}
	rc = skit__userconfig_commit(&e, err);
out:
	skit__userconfig_end(&e);
	return rc;
}

int skit_mcp_approval_save(const char *path, const char *name,
                           const char *digest, skit_error *err)
{
	return save_record(path, name, NULL, digest, err);
}

int skit_mcp_approval_save_server(const skit_mcp_config *c, size_t i,
                                  const char *path, skit_error *err)
{
	const struct skit__mcp_def *d = &c->v[i];

	assert(i < c->n);
	return save_record(path, d->name, d->project_dir, d->digest, err);
}

void skit_mcp_approvals_free(skit_mcp_approval *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++) {
		skitx_free(v[i].id);
		skitx_free(v[i].server);
		skitx_free(v[i].project);
		skitx_free(v[i].digest);
		skitx_free(v[i].time);
	}
	skitx_free(v);
}

/*
 * Does project `proj` define server `name` with `digest` now? Its two
 * files are read as a run reads them; a broken file defines nothing.
 */
static bool still_current(const char *proj, const char *name,
                          const char *digest)
{
	static const char *const files[] = { ".agents/skit.json", ".mcp.json" };
	skit_mcp_config *c = NULL;
	bool yes = false;

	if (!*proj || skit_mcp_config_new(&c, NULL))
		return false;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(files); i++) {
		char *p = skitx_path_join(proj, files[i]);

		if (p)
			(void)skit_mcp_config_load(c, p, true, NULL);
		skitx_free(p);
	}
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].name, name))
			yes = !strcmp(c->v[i].digest, digest);
	skit_mcp_config_free(c);
	return yes;
}

int skit_mcp_approvals_list(const char *path, skit_mcp_approval **out,
                            size_t *n, skit_error *err)
{
	struct skit__userconfig_edit e;
	skit_mcp_approval *v = NULL;
	json_t *appr, *rec;
	const char *k;
	size_t k_ = 0;
	int rc;

	assert(out && n);
	*out = NULL;
	*n = 0;
	rc = cfg_begin(&e, path, false, err);
	if (rc == SKIT_ENOTFOUND && !path) {
		skit__userconfig_end(&e);
		return 0; /* no user config: nothing remembered */
	}
	appr = rc ? NULL : json_object_get(e.json, "mcpApproved");
	if (!rc && json_object_size(appr) &&
	    !(v = skitx_calloc(json_object_size(appr), sizeof(*v))))
		rc = skit__error_oom(err);
	json_object_foreach(appr, k, rec)
	{
		const char *server = str_of(rec, "server"),
		           *proj = str_of(rec, "project"),
		           *digest = str_of(rec, "digest"),
		           *when = str_of(rec, "time");
		skit_mcp_approval *a = &v[k_];

		if (rc)
			break;
		if (!server || !digest || strlen(k) != 12)
			continue; /* not a record: approves nothing */
		k_++;
		a->id = skitx_strdup(k);
		a->server = skitx_strdup(server);
		a->project = skitx_strdup(proj ? proj : "");
		a->digest = skitx_strdup(digest);
		a->time = skitx_strdup(when ? when : "");
		if (!a->id || !a->server || !a->project || !a->digest ||
		    !a->time)
			rc = skit__error_oom(err);
		else
			a->current =
			        proj && still_current(proj, server, digest);
	}
	skit__userconfig_end(&e);
	if (rc) {
		skit_mcp_approvals_free(v, k_);
		return rc;
	}
	*out = v;
	*n = k_;
	return 0;
}

int skit_mcp_approvals_revoke(const char *path, const char *id, size_t *removed,
                              skit_error *err)
{
	struct skit__userconfig_edit e;
	json_t *appr, *v;
	const char *k;
	size_t count = 0;
	bool changed = false;
	void *tmp;
	int rc;

	if (removed)
		*removed = 0;
	rc = cfg_begin(&e, path, false, err);
	if (rc == SKIT_ENOTFOUND && !path && !id) {
		skit__userconfig_end(&e);
		return 0; /* no user config: nothing to revoke */
	}
	appr = rc ? NULL : json_object_get(e.json, "mcpApproved");
	json_object_foreach_safe(appr, tmp, k, v)
	{
		if (id && (strcmp(k, id) || !json_is_object(v)))
			continue;
		/* every record, and an older skit's leftovers, when all go */
		count += json_is_object(v);
		changed = true;
		json_object_del(appr, k);
	}
	if (!rc && id && !count)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "no saved MCP approval with id '%.64s'",
		                     id);
	if (!rc && changed)
		rc = skit__userconfig_commit(&e, err);
	skit__userconfig_end(&e);
	if (!rc && removed)
		*removed = count;
	return rc;
}
