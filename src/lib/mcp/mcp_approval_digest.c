/* SPDX-License-Identifier: MIT */
/*
 * mcp_approval_digest.c - what an approval of a project MCP server
 * covers: the digest of its definition, its project and the project
 * files its command line names (npx packages, `python -m` modules, the
 * command along PATH), so that a change to any of them asks again
 * (docs/mcp.md, "Project servers need approval"). mcp_config.c sets it
 * on every project server it reads; it uses no other file of the client.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/digest.h"
#include "lib/core/error.h"
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
 * the project files its command line `w` (`d` after ${VAR} expansion, by
 * mcp_config.c) names. The server starts in the project folder, so the
 * words resolve from there as they will when it runs.
 */
int skit__mcp_approval_digest(struct skit__mcp_def *d,
                              const struct skit__mcp_def *w, json_t *o,
                              skit_error *err)
{
	struct covered cv = { d->project_dir, json_array(), false };
	json_t *all = NULL;
	char *canon = NULL;
	int rc = cv.files ? 0 : SKIT_ENOMEM;

	if (!rc && d->command) {
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
