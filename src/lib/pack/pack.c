/* SPDX-License-Identifier: MIT */
/*
 * pack.c - the commands of skit/pack.h: sources, staging and checking,
 * the manifest and its signature, the plan, and the packs themselves.
 *
 * Every install-like command (install, update, install --from-lock)
 * runs the same way:
 *
 *   1. lock the root and recover what a crash left (pack_txn.c);
 *   2. fetch each source into its own folder of the staging area: a
 *      zip is extracted under the caps, a folder or a git checkout is
 *      copied without following links (F1: the staged copy is the only
 *      copy looked at from here on, and the one installed);
 *   3. check the staged copy: every skill passes validate (strict), a
 *      pack's manifest lists exactly the staged files and its digest,
 *      a signature verifies with a trusted key, and for --from-lock the
 *      files hash to what the lock records;
 *   4. compare with what is installed, call on_plan, and commit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/core/confusable.h"
#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/pack/oci_int.h"
#include "lib/pack/pack_int.h"
#include "lib/pack/scan_install.h"
#include "lib/pack/sign_int.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"
#include "lib/core/winnames.h"

void skit__limits_init(struct skit__limits *l, const skit_install_options *o)
{
	l->file = o && o->max_file_bytes ? o->max_file_bytes : 10u << 20;
	l->total = o && o->max_total_bytes ? o->max_total_bytes : 50u << 20;
	l->entries = o && o->max_entries ? o->max_entries : 10000;
	l->download =
	        o && o->max_download_bytes ? o->max_download_bytes : 64u << 20;
	l->timeout_ms = o && o->timeout_ms ? o->timeout_ms : 300000;
}

static void utc_now(char out[32])
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the digest ---- */

/* SHA-256 over "<sha256> <size> <mode> <skill>/<path>\n" for every file,
 * skills in name order and each one's files in path order. */
static int pack_digest(struct skit__pskill *const *skills, size_t n,
                       char hex[65])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	char line[SKIT__PACK_MAX_PATH * 2 + 128];

	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		EVP_MD_CTX_free(ctx);
		return SKIT_ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < skills[i]->nfiles; k++) {
			const struct skit__pfile *f = &skills[i]->files[k];
			int len = snprintf(line, sizeof(line),
			                   "%s %llu %s %s/%s\n", f->sha256,
			                   (unsigned long long)f->size,
			                   f->exec ? "0755" : "0644",
			                   skills[i]->name, f->path);

			if (len > 0)
				EVP_DigestUpdate(ctx, line, (size_t)len);
		}
	skit__sha256_final(ctx, hex);
	EVP_MD_CTX_free(ctx);
	return 0;
}

static int cmp_pskill_ptr(const void *a, const void *b)
{
	return strcmp((*(struct skit__pskill *const *)a)->name,
	              (*(struct skit__pskill *const *)b)->name);
}

/* ---- results ---- */

struct item {
	skit_install_item pub;
	char *name, *source, *resolved, *signed_by;
	skit_file_change *changes;
	char **paths;
	char *previous_source; /* the lock's, when this changes it */
	skit_install_link *links;
	char **lpaths, **lagents;
	size_t nlinks;
};

struct skit_install_result {
	char root[4096];
	struct item *items;
	skit_install_item *view;
	size_t n, cap;
};

size_t skit_install_result_count(const skit_install_result *r)
{
	return r ? r->n : 0;
}

const skit_install_item *skit_install_result_at(const skit_install_result *r,
                                                size_t i)
{
	return r && i < r->n ? &r->view[i] : NULL;
}

const char *skit_install_result_root(const skit_install_result *r)
{
	return r ? r->root : NULL;
}

const char *skit_install_result_previous_source(const skit_install_result *r,
                                                size_t i)
{
	return r && i < r->n ? r->items[i].previous_source : NULL;
}

size_t skit_install_result_link_count(const skit_install_result *r, size_t i)
{
	return r && i < r->n ? r->items[i].nlinks : 0;
}

const skit_install_link *
skit_install_result_link_at(const skit_install_result *r, size_t i, size_t k)
{
	return r && i < r->n && k < r->items[i].nlinks ? &r->items[i].links[k]
	                                               : NULL;
}

void skit_install_result_free(skit_install_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		struct item *it = &r->items[i];

		skitx_free(it->name);
		skitx_free(it->source);
		skitx_free(it->resolved);
		skitx_free(it->signed_by);
		for (size_t k = 0; k < it->pub.change_count; k++)
			skitx_free(it->paths[k]);
		skitx_free(it->paths);
		skitx_free(it->changes);
		skitx_free(it->previous_source);
		for (size_t k = 0; k < it->nlinks; k++) {
			skitx_free(it->lpaths[k]);
			skitx_free(it->lagents[k]);
		}
		skitx_free(it->lpaths);
		skitx_free(it->lagents);
		skitx_free(it->links);
	}
	skitx_free(r->items);
	skitx_free(r->view);
	skitx_free(r);
}

static char *dup_or_null(const char *s)
{
	return s ? skitx_strdup(s) : NULL;
}

static int add_change(struct item *it, const char *path,
                      skit_file_change_kind kind)
{
	size_t n = it->pub.change_count;
	skit_file_change *c = skitx_realloc(it->changes, (n + 1) * sizeof(*c));
	char **p;

	if (!c)
		return SKIT_ENOMEM;
	it->changes = c;
	p = skitx_realloc(it->paths, (n + 1) * sizeof(*p));
	if (!p)
		return SKIT_ENOMEM;
	it->paths = p;
	if (!(p[n] = skitx_strdup(path)))
		return SKIT_ENOMEM;
	c[n].path = p[n];
	c[n].kind = kind;
	it->pub.change_count = n + 1;
	return 0;
}

/* The file changes from `old` to `new` (both sorted). */
static int diff_files(struct item *it, const struct skit__pskill *old,
                      const struct skit__pskill *new)
{
	size_t i = 0, k = 0;
	int rc = 0;

	while (!rc && (i < old->nfiles || k < new->nfiles)) {
		const struct skit__pfile *a =
		        i < old->nfiles ? &old->files[i] : NULL;
		const struct skit__pfile *b =
		        k < new->nfiles ? &new->files[k] : NULL;
		int c = !a ? 1 : !b ? -1 : strcmp(a->path, b->path);

		if (c < 0) {
			rc = add_change(it, a->path, SKIT_FILE_REMOVED);
			i++;
		} else if (c > 0) {
			rc = add_change(it, b->path, SKIT_FILE_ADDED);
			k++;
		} else {
			if (a->size != b->size || a->exec != b->exec ||
			    strcmp(a->sha256, b->sha256))
				rc = add_change(it, a->path,
				                SKIT_FILE_MODIFIED);
			i++;
			k++;
		}
	}
	return rc;
}

static struct item *new_item(skit_install_result *r)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 8;
		struct item *v = skitx_realloc(r->items, cap * sizeof(*v));

		if (!v)
			return NULL;
		r->items = v;
		r->cap = cap;
	}
	memset(&r->items[r->n], 0, sizeof(*r->items));
	return &r->items[r->n++];
}

static int finish_view(skit_install_result *r)
{
	r->view = skitx_calloc(r->n ? r->n : 1, sizeof(*r->view));
	if (!r->view)
		return SKIT_ENOMEM;
	for (size_t i = 0; i < r->n; i++) {
		struct item *it = &r->items[i];

		r->view[i] = it->pub;
		r->view[i].name = it->name;
		r->view[i].source = it->source;
		r->view[i].resolved = it->resolved;
		r->view[i].signed_by = it->signed_by;
		r->view[i].changes = it->changes;
	}
	return 0;
}

/* ---- sources ---- */

enum src_kind { SRC_DIR, SRC_ZIP, SRC_URL, SRC_GIT, SRC_OCI };

struct source {
	enum src_kind kind;
	char *loc;    /* path, URL or git URL without #ref and //subdir */
	char *ref;    /* git */
	char *subdir; /* git */
	char *url;    /* OWNER/REPO[/PATH][@REF] as a git URL, or NULL */
	const char *given;
};

static void source_release(struct source *s)
{
	skitx_free(s->loc);
	skitx_free(s->ref);
	skitx_free(s->subdir);
	skitx_free(s->url);
	memset(s, 0, sizeof(*s));
}

static bool prefixed(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

/* Does the URL's path (before '?' and '#') end in .zip or .skill? */
static bool archive_url(const char *url)
{
	size_t n = strcspn(url, "?#");

	return (n > 4 && !strncasecmp(url + n - 4, ".zip", 4)) ||
	       (n > 6 && !strncasecmp(url + n - 6, ".skill", 6));
}

/* Where OWNER/REPO lives: GitHub, or SKIT_GITHUB_URL (a mirror, a
 * GitHub Enterprise host, a local folder of repositories in tests). */
#define GITHUB_URL "https://github.com/"

static bool owner_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= '0' && ch <= '9') || ch == '-';
}

/*
 * `u` as the shorthand OWNER/REPO[/PATH][@REF] (GitHub's owner and
 * repository name rules; PATH and REF are checked later, as //SUBDIR and
 * #REF of the URL it becomes): 1 with `*url` set to
 * <base>OWNER/REPO[#REF][//PATH], 0 when `u` is not one, or an error.
 */
static int github_shorthand(const char *u, char **url, skit_error *err)
{
	const char *base = getenv("SKIT_GITHUB_URL"), *p = u, *repo, *at;
	const char *path = NULL;
	size_t nrepo, npath = 0;
	struct skitx_buf b = SKITX_BUF_INIT;

	*url = NULL;
	if (!base || !*base)
		base = GITHUB_URL;
	if (!owner_char(*p) || *p == '-')
		return 0;
	while (owner_char(*p))
		p++;
	if (*p != '/' || p - u > 39)
		return 0;
	repo = ++p;
	while (owner_char(*p) || *p == '.' || *p == '_')
		p++;
	nrepo = (size_t)(p - repo);
	if (!nrepo || (nrepo <= 2 && !strncmp(repo, "..", nrepo)) ||
	    (*p && *p != '/' && *p != '@'))
		return 0;
	at = strchr(p, '@');
	if (*p == '/') {
		path = p + 1;
		npath = at ? (size_t)(at - path) : strlen(path);
		while (npath && path[npath - 1] == '/')
			npath--;
		if (!npath || memchr(path, '#', npath))
			return 0;
	}
	if (at && (!at[1] || strchr(at + 1, '#') || strchr(at + 1, '@')))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "%s: OWNER/REPO@REF needs one branch, "
		                       "tag or commit after '@'",
		                       u);
	if (skitx_buf_printf(&b, "%s%s%.*s", base,
	                     base[strlen(base) - 1] == '/' ? "" : "/",
	                     (int)(repo + nrepo - u), u) < 0 ||
	    (at && skitx_buf_printf(&b, "#%s", at + 1) < 0) ||
	    (path && skitx_buf_printf(&b, "//%.*s", (int)npath, path) < 0)) {
		skitx_buf_release(&b);
		return skit__error_oom(err);
	}
	*url = skitx_buf_detach(&b, NULL);
	return *url ? 1 : skit__error_oom(err);
}

/* `given` is parsed; `shown` (`given` without credentials) is what
 * messages quote. */
static int parse_source(struct source *s, const char *given, const char *shown,
                        skit_error *err)
{
	bool git = false;
	const char *u = given;
	struct stat st;

	memset(s, 0, sizeof(*s));
	s->given = given;
	if (skit__oci_is_ref(u)) {
		s->kind = SRC_OCI;
		s->loc = skitx_strdup(u);
		return s->loc ? 0 : skit__error_oom(err);
	}
	if (prefixed(u, "git+")) {
		git = true;
		u += 4;
	}
	if (!git && (prefixed(u, "https://") || prefixed(u, "http://")) &&
	    archive_url(u)) {
		s->kind = SRC_URL;
		s->loc = skitx_strdup(u);
		return s->loc ? 0 : skit__error_oom(err);
	}
	if (git || prefixed(u, "https://") || prefixed(u, "http://") ||
	    prefixed(u, "ssh://") || prefixed(u, "git@") ||
	    prefixed(u, "file://")) {
		const char *hash = strrchr(u, '#'), *scheme = strstr(u, "://");
		const char *from = scheme ? scheme + 3 : u, *sub;
		size_t end = hash ? (size_t)(hash - u) : strlen(u);
		char *frag = hash ? skitx_strdup(hash + 1) : NULL;

		s->kind = SRC_GIT;
		if (hash && !frag)
			return skit__error_oom(err);
		sub = strstr(from, "//");
		if (sub && (size_t)(sub - u) < end) {
			s->subdir = skitx_strndup(sub + 2,
			                          end - (size_t)(sub + 2 - u));
			end = (size_t)(sub - u);
		} else if (frag && (sub = strstr(frag, "//"))) {
			s->subdir = skitx_strdup(sub + 2);
			frag[sub - frag] = '\0';
		}
		s->ref = frag;
		s->loc = skitx_strndup(u, end);
		if (!s->loc || (sub && !s->subdir))
			return skit__error_oom(err);
		if (s->subdir && *s->subdir &&
		    skit__pack_name_check(s->subdir, strlen(s->subdir), shown,
		                          err) < 0)
			return SKIT_EUNSAFE;
		return 0;
	}
	if (strstr(u, "://"))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "%s: unsupported source (use a zip or "
		                       ".skill file, a folder, an https:// URL "
		                       "of a zip, or a git URL)",
		                       shown);
	if (stat(u, &st) < 0) {
		/* A path that exists wins over the shorthand: ./OWNER/REPO
		 * names a folder. */
		char *url = NULL;
		int e = errno;
		int rc = e == ENOENT && !git ? github_shorthand(u, &url, err)
		                             : 0;

		if (rc < 0)
			return rc;
		if (rc > 0) {
			rc = parse_source(s, url, url, err);
			if (s->kind != SRC_GIT) {
				rc = skit__error_set(
				        err, SKIT_EUSAGE, 0,
				        "%s: SKIT_GITHUB_URL must be a git URL "
				        "(https://, ssh:// or file://)",
				        given);
				skitx_free(url);
				return rc;
			}
			s->given = given;
			s->url = url;
			return rc;
		}
		return skit__error_set(err, SKIT_ENOTFOUND, 0, "%s: %s", given,
		                       strerror(e));
	}
	{
		char *abs = realpath(u, NULL);

		if (!abs)
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                       given, strerror(errno));
		s->loc = skitx_strdup(abs);
		free(abs);
	}
	if (!s->loc)
		return skit__error_oom(err);
	if (S_ISDIR(st.st_mode))
		s->kind = SRC_DIR;
	else if (S_ISREG(st.st_mode))
		s->kind = SRC_ZIP;
	else
		return skit__error_set(err, SKIT_EUNSAFE, 0,
		                       "%s: not a file or a folder", given);
	return 0;
}

/* ---- one request: a source, what to take from it, what to expect ---- */

struct request {
	const char *source;      /* as given (credentials stripped: see
	                          * run()), or as the lock records it */
	const char *given;       /* as given, credentials and all */
	char *bare;              /* `source` when it had to be stripped */
	const char *pin;         /* git commit to use instead of #ref */
	const char *const *only; /* skill names to take; NULL: all */
	size_t nonly;
	struct skit__lockdoc *expect; /* --from-lock: files must match */
	/* filled in: */
	char *recorded; /* the source for the lock: local paths absolute */
	struct skit__staged st;
	char resolved[80];
	char signed_by[SKIT__KEY_ID_LEN + 1];
	char dir[24];          /* its folder in staging */
	char where[4096 + 64]; /* that folder's path, for errors */
};

struct ctx {
	struct skit__txn t;
	struct skit__limits lim;
	const skit_install_options *opts;
	unsigned int flags;
};

static bool wanted(const struct request *q, const char *name)
{
	if (!q->only)
		return true;
	for (size_t i = 0; i < q->nonly; i++)
		if (!strcmp(q->only[i], name))
			return true;
	return false;
}

static int fetch(struct ctx *c, struct request *q, const struct source *s,
                 int qfd, skit_error *err)
{
	const skit_install_options *o = c->opts;
	char hex[65];
	int fd, rc;

	switch (s->kind) {
	case SRC_DIR:
		return skit__tree_stage(AT_FDCWD, s->loc, q->source, qfd,
		                        &c->lim, &q->st, err);
	case SRC_ZIP:
		fd = open(s->loc, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                       q->source, strerror(errno));
		rc = skit__sha256_fd(fd, hex, NULL);
		if (rc < 0) {
			close(fd);
			return skit__error_set(err, rc, 0, "%s: cannot read",
			                       q->source);
		}
		snprintf(q->resolved, sizeof(q->resolved), "sha256:%s", hex);
		rc = skit__zip_extract(fd, q->source, qfd, &c->lim, &q->st,
		                       err);
		close(fd);
		return rc;
	case SRC_URL:
		fd = openat(qfd, ".download",
		            O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            0600);
		if (fd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                       q->source, strerror(errno));
		rc = skit__fetch_url_auth(s->loc, o ? o->headers : NULL,
		                          o ? o->header_count : 0, fd,
		                          c->lim.download, c->lim.timeout_ms,
		                          o ? o->on_progress : NULL,
		                          o ? o->userdata : NULL, hex, err);
		if (!rc) {
			snprintf(q->resolved, sizeof(q->resolved), "sha256:%s",
			         hex);
			rc = skit__zip_extract(fd, q->source, qfd, &c->lim,
			                       &q->st, err);
		}
		close(fd);
		(void)unlinkat(qfd, ".download", 0);
		return rc;
	case SRC_OCI:
		fd = openat(qfd, ".download",
		            O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		            0600);
		if (fd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                       q->source, strerror(errno));
		rc = skit__oci_pull(s->loc, q->pin,
		                    c->flags & SKIT_INSTALL_OCI_PLAIN_HTTP, fd,
		                    c->lim.download, c->lim.timeout_ms,
		                    q->resolved, err);
		if (!rc)
			rc = skit__zip_extract(fd, q->source, qfd, &c->lim,
			                       &q->st, err);
		close(fd);
		(void)unlinkat(qfd, ".download", 0);
		return rc;
	case SRC_GIT: {
		char dest[4096 + 128], commit[41],
		        sub[SKIT__PACK_MAX_PATH + 16];

		snprintf(dest, sizeof(dest), "%s/%s/%s/.git-src", c->t.root,
		         c->t.stage_name, q->dir);
		rc = skit__git_clone_auth(
		        s->loc, o ? o->headers : NULL, o ? o->header_count : 0,
		        q->pin ? q->pin : s->ref, dest, c->lim.download,
		        c->lim.timeout_ms, commit, err);
		if (rc < 0 && s->url && err) {
			/* it may have been a mistyped path: say both */
			char why[sizeof(err->message)];

			snprintf(why, sizeof(why), "%s", err->message);
			rc = skit__error_set(err, rc, 0,
			                     "%s: no such path; as OWNER/REPO: "
			                     "%s",
			                     q->source, why);
		}
		if (rc < 0)
			return rc;
		snprintf(q->resolved, sizeof(q->resolved), "%s", commit);
		snprintf(sub, sizeof(sub), ".git-src%s%s",
		         s->subdir && *s->subdir ? "/" : "",
		         s->subdir ? s->subdir : "");
		rc = skit__tree_stage(qfd, sub, q->source, qfd, &c->lim, &q->st,
		                      err);
		if (rc == SKIT_ENOTFOUND)
			rc = skit__error_set(err, rc, 0,
			                     "%s: no folder %s in "
			                     "the repository",
			                     q->source, s->subdir);
		(void)skit__tree_remove(qfd, ".git-src", NULL);
		return rc;
	}
	}
	return SKIT_EINVALID;
}

/* The first error of a staged skill, as one line. */
static int invalid_skill(skit_skill *sk, const char *what, const char *name,
                         skit_error *err)
{
	size_t n = 0;
	const skit_diag *d = skit_skill_diags(sk, &n);

	for (size_t i = 0; i < n; i++)
		if (d[i].severity == SKIT_SEVERITY_ERROR)
			return skit__error_set(err, SKIT_EINVALID, 0,
			                       "%s: skill %s is not valid: %s",
			                       what, name, d[i].message);
	return skit__error_set(err, SKIT_EINVALID, 0,
	                       "%s: skill %s is not valid", what, name);
}

/*
 * A folder name that may be a skill's identity once installed (HOSTILE
 * C14): the entry-name rules (pack_names.c) already made it a single safe
 * path component; it must not be hidden (".skit-lock.json", ".staging-"
 * are skit's own, and the registry skips dot-folders) nor read as an
 * option. The loading rules accept more than the spec's names here
 * (`pdf_tools`), as the registry does.
 */
static bool folder_name_ok(const char *name)
{
	return *name && *name != '.' && *name != '-';
}

/*
 * A folder name for a skill whose own name cannot be one (`Ahrefs
 * Automation`): ASCII letters and digits lowercased, every other run of
 * bytes one '-', trimmed, at most 64. NULL when nothing is left or the
 * result still breaks a name rule.
 */
static char *slug_name(const char *raw)
{
	char out[65];
	size_t n = 0;
	bool dash = false;

	for (const char *p = raw; *p && n < sizeof(out) - 1; p++) {
		char c = *p;

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			if (dash && n && n < sizeof(out) - 2)
				out[n++] = '-';
			dash = false;
			out[n++] = c;
		} else {
			dash = true;
		}
	}
	out[n] = '\0';
	return n && skit_skill_name_ok(out) ? skitx_strdup(out) : NULL;
}

/*
 * Load `dir` with the loading rules (conformance when `strict`), and fill
 * the version and allowed-tools of `s`. With `real_name`, only name the
 * skill instead: its own name when that is a valid name, else one made
 * from it (slug_name()). SKIT_EINVALID when the skill cannot be loaded,
 * with its first error in `err`.
 */
static int check_skill(const char *dir, const char *what, const char *name,
                       bool strict, struct skit__pskill *s, char **real_name,
                       skit_error *err)
{
	skit_skill_options so = SKIT_SKILL_OPTIONS_INIT;
	skit_skill *sk = NULL;
	int rc;

	so.flags = strict ? 0 : SKIT_SKILL_LENIENT;
	rc = skit_skill_load(&sk, dir, &so, err);
	if (rc == SKIT_ENOTFOUND)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "%s: %s has no SKILL.md", what, name);
	if (rc < 0)
		return rc;
	/*
	 * Naming comes first: the folder may not have its final name yet
	 * (".single"), so the rest is checked once it has.
	 */
	if (real_name) {
		const char *n = skit_skill_name(sk);
		const char *raw = skit_skill_name_raw(sk);

		if (n && skit_skill_name_ok(n))
			*real_name = skitx_strdup(n);
		else if (raw && !strict)
			*real_name = slug_name(raw);
		else
			*real_name = NULL;
		if (!*real_name && (!raw || strict))
			rc = invalid_skill(sk, what, name, err);
		else if (!*real_name)
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: skill %s has no name its "
			                     "folder could take",
			                     what, name);
		skit_skill_free(sk);
		return rc;
	}
	if (!skit_skill_valid(sk)) {
		rc = invalid_skill(sk, what, name, err);
		skit_skill_free(sk);
		return rc;
	}
	for (size_t i = 0; i < skit_skill_metadata_count(sk); i++) {
		const char *k, *v;

		skit_skill_metadata_at(sk, i, &k, &v);
		if (k && v && !strcmp(k, "version") && !s->version)
			s->version = skitx_strdup(v);
	}
	if (skit_skill_allowed_tools(sk))
		s->allowed_tools = skitx_strdup(skit_skill_allowed_tools(sk));
	skit_skill_free(sk);
	return 0;
}

/* A skill name Windows reserves for a device (winnames.h) cannot be a
 * folder there: refused by pack and install alike. */
static int reserved_skill(const char *what, const char *name, skit_error *err)
{
	if (!skit__windows_reserved(name, strlen(name)))
		return 0;
	return skit__error_set(err, SKIT_EUNSAFE, 0,
	                       "%s: skill %s: a Windows device name (CON, "
	                       "PRN, AUX, NUL, COM0-9, LPT0-9), which no "
	                       "folder on Windows can have",
	                       what, name);
}

/* ---- the manifest ---- */

static int manifest_mismatch(const char *what, const char *detail,
                             skit_error *err)
{
	return skit__error_set(err, SKIT_EINVALID, 0,
	                       "%s: manifest.json does not match the "
	                       "archive: %s",
	                       what, detail);
}

static int check_manifest(struct ctx *c, struct request *q, skit_error *err)
{
	const skit_install_options *o = c->opts;
	struct skit__staged *st = &q->st;
	struct skit__pskill **sorted = NULL;
	json_t *m = NULL, *skills, *sk;
	const char *digest, *what = q->source;
	char hex[65], detail[600];
	size_t i;
	int rc = 0;

	if (!st->has_manifest) {
		if (c->flags & SKIT_INSTALL_REQUIRE_SIGNATURE)
			return skit__error_set(err, SKIT_EDENIED, 0,
			                       "%s is not a signed pack", what);
		return 0;
	}
	m = json_loadb(st->manifest.ptr, st->manifest.len,
	               JSON_REJECT_DUPLICATES, NULL);
	skills = json_object_get(m, "skills");
	digest = json_string_value(json_object_get(m, "digest"));
	if (!json_is_array(skills) || !digest || !prefixed(digest, "sha256:")) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: manifest.json is not valid", what);
		goto out;
	}
	if (json_array_size(skills) != st->n) {
		rc = manifest_mismatch(what, "another number of skills", err);
		goto out;
	}
	json_array_foreach(skills, i, sk)
	{
		const char *name =
		        json_string_value(json_object_get(sk, "name"));
		json_t *files = json_object_get(sk, "files");
		struct skit__pskill *s = NULL;
		struct skit__pskill want;

		for (size_t j = 0; name && j < st->n; j++)
			if (!strcmp(st->skills[j].name, name))
				s = &st->skills[j];
		if (!s || !json_is_array(files)) {
			snprintf(detail, sizeof(detail), "skill %s",
			         name ? name : "(unnamed)");
			rc = manifest_mismatch(what, detail, err);
			goto out;
		}
		memset(&want, 0, sizeof(want));
		if (skit__pskill_files_json(&want, files) < 0) {
			skit__pskill_release(&want);
			rc = skit__error_set(err, SKIT_EINVALID, 0,
			                     "%s: manifest.json is not valid",
			                     what);
			goto out;
		}
		if (!skit__pskill_same_files(&want, s)) {
			snprintf(detail, sizeof(detail),
			         "the files of skill %s differ", s->name);
			skit__pskill_release(&want);
			rc = manifest_mismatch(what, detail, err);
			goto out;
		}
		skit__pskill_release(&want);
	}
	sorted = skitx_calloc(st->n ? st->n : 1, sizeof(*sorted));
	if (!sorted) {
		rc = skit__error_oom(err);
		goto out;
	}
	for (i = 0; i < st->n; i++)
		sorted[i] = &st->skills[i];
	qsort(sorted, st->n, sizeof(*sorted), cmp_pskill_ptr);
	if (pack_digest(sorted, st->n, hex) < 0 || strcmp(digest + 7, hex)) {
		rc = manifest_mismatch(what, "the digest", err);
		goto out;
	}
	/* The signature, when there is one and keys to check it with. */
	if (st->has_sig && o && o->trusted_count) {
		json_t *sig = json_loadb(st->sig.ptr, st->sig.len, 0, NULL);
		const char *b64 =
		        json_string_value(json_object_get(sig, "signature"));
		const char *kid =
		        json_string_value(json_object_get(sig, "key_id"));
		char msg[80];

		skit__sign_message(hex, msg);
		if (!b64)
			rc = skit__error_set(err, SKIT_EDENIED, 0,
			                     "%s: manifest.sig is not valid",
			                     what);
		else
			rc = skit__sign_verify(
			        o->trusted_keys, o->trusted_count, msg,
			        strlen(msg), b64, kid, q->signed_by, err);
		json_decref(sig);
		if (rc < 0) {
			if (rc == SKIT_EDENIED && err) {
				char why[sizeof(err->message)];

				memcpy(why, err->message, sizeof(why));
				skit__error_set(err, rc, 0, "%s: %s", what,
				                why);
			}
			goto out;
		}
	} else if (c->flags & SKIT_INSTALL_REQUIRE_SIGNATURE) {
		rc = skit__error_set(err, SKIT_EDENIED, 0,
		                     st->has_sig
		                             ? "%s: no trusted key to check "
		                               "its signature with"
		                             : "%s is not a signed pack",
		                     what);
	}
out:
	skitx_free(sorted);
	json_decref(m);
	return rc;
}

/* ---- staging every request ---- */

static int stage_request(struct ctx *c, struct request *q, size_t idx,
                         skit_error *err)
{
	struct source s;
	skit_error first = { 0 };
	size_t ninvalid = 0, nleft = 0;
	int qfd = -1, rc;

	snprintf(q->dir, sizeof(q->dir), "src%zu", idx);
	rc = parse_source(&s, q->given ? q->given : q->source, q->source, err);
	if (rc < 0)
		goto out;
	q->recorded =
	        skitx_strdup(s.kind == SRC_DIR || s.kind == SRC_ZIP ? s.loc
	                     : s.url                                ? s.url
	                             : q->source);
	if (!q->recorded) {
		rc = skit__error_oom(err);
		goto out;
	}
	if ((c->flags & SKIT_INSTALL_REQUIRE_SIGNATURE) &&
	    (s.kind == SRC_DIR || s.kind == SRC_GIT)) {
		rc = skit__error_set(err, SKIT_EDENIED, 0,
		                     "%s: only a signed pack can be installed "
		                     "when a signature is required",
		                     q->source);
		goto out;
	}
	snprintf(q->where, sizeof(q->where), "%s/%s/%s", c->t.root,
	         c->t.stage_name, q->dir);
	q->st.where = q->where;
	if (mkdirat(c->t.stagefd, q->dir, 0700) < 0 ||
	    (qfd = openat(c->t.stagefd, q->dir,
	                  O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) <
	            0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", q->where,
		                     strerror(errno));
		goto out;
	}
	rc = fetch(c, q, &s, qfd, err);
	if (rc < 0)
		goto out;
	/* SKILL.md at the top: the skill names its own folder. */
	if (q->st.single && q->st.n == 1) {
		char path[8192], *name = NULL;
		struct skit__pskill *sk = &q->st.skills[0];

		snprintf(path, sizeof(path), "%s/%s/%s/.single", c->t.root,
		         c->t.stage_name, q->dir);
		rc = check_skill(path, q->source, "(top level)",
		                 c->flags & SKIT_INSTALL_STRICT, NULL, &name,
		                 err);
		if (!rc)
			rc = reserved_skill(q->source, name, err);
		if (rc < 0) {
			skitx_free(name);
			goto out;
		}
		if (renameat(qfd, ".single", qfd, name) < 0) {
			rc = skit__error_set(err, SKIT_EIO, 0, "staging %s: %s",
			                     name, strerror(errno));
			skitx_free(name);
			goto out;
		}
		skitx_free(sk->name);
		sk->name = name;
	}
	/*
	 * Every skill that cannot be loaded is named (on_invalid) before the
	 * source is refused, or, with SKIT_INSTALL_SKIP_INVALID, left out.
	 */
	for (size_t i = 0; i < q->st.n; i++) {
		struct skit__pskill *sk = &q->st.skills[i];
		skit_error why = { 0 };
		char path[8192];

		snprintf(path, sizeof(path), "%s/%s/%s/%s", c->t.root,
		         c->t.stage_name, q->dir, sk->name);
		/*
		 * The folder is the installed skill's identity (HOSTILE C14):
		 * whatever the loading rules accept in SKILL.md, its name
		 * must be a valid skill name.
		 */
		if (!folder_name_ok(sk->name))
			rc = skit__error_set(&why, SKIT_EINVALID, 0,
			                     "%s: skill folder %s cannot be a "
			                     "skill's name",
			                     q->source, sk->name);
		else
			rc = check_skill(path, q->source, sk->name,
			                 c->flags & SKIT_INSTALL_STRICT, sk,
			                 NULL, &why);
		if (rc == SKIT_EINVALID && wanted(q, sk->name)) {
			if (!ninvalid++)
				first = why;
			sk->skip = true;
			if (c->opts && c->opts->on_invalid)
				c->opts->on_invalid(c->opts->userdata, sk->name,
				                    why.message);
			rc = 0;
		}
		if (rc < 0) {
			if (err)
				*err = why;
			goto out;
		}
	}
	rc = check_manifest(c, q, err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < q->st.n; i++)
		nleft += wanted(q, q->st.skills[i].name) &&
		         !q->st.skills[i].skip;
	if (ninvalid && (!(c->flags & SKIT_INSTALL_SKIP_INVALID) || !nleft)) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     ninvalid == 1 ? "%s" : "%s (and %zu more)",
		                     first.message, ninvalid - 1);
		goto out;
	}
	for (size_t i = 0; q->only && i < q->nonly; i++) {
		bool found = false;

		for (size_t k = 0; k < q->st.n; k++)
			found |= !strcmp(q->st.skills[k].name, q->only[i]);
		if (!found) {
			rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
			                     "%s no longer holds the skill %s",
			                     q->source, q->only[i]);
			goto out;
		}
	}
	/* Into new/: one folder per name, whichever source it came from. */
	for (size_t i = 0; i < q->st.n; i++) {
		struct skit__pskill *sk = &q->st.skills[i];
		char to[SKIT__PACK_MAX_COMPONENT + 8];

		if (!wanted(q, sk->name) || sk->skip)
			continue;
		if (q->expect) {
			struct skit__pskill *want =
			        skit__lock_find(q->expect, sk->name);

			if (want && !skit__pskill_same_files(want, sk)) {
				rc = skit__error_set(
				        err, SKIT_EINVALID, 0,
				        "%s: skill %s does not match the lock "
				        "(its files differ)",
				        q->source, sk->name);
				goto out;
			}
		}
		snprintf(to, sizeof(to), "new/%s", sk->name);
		if (renameat(qfd, sk->name, c->t.stagefd, to) < 0) {
			rc = skit__error_set(
			        err,
			        errno == EEXIST || errno == ENOTEMPTY
			                ? SKIT_EEXISTS
			                : SKIT_EIO,
			        0, "%s: skill %s: %s", q->source, sk->name,
			        errno == EEXIST || errno == ENOTEMPTY
			                ? "another source holds a "
			                  "skill of that name"
			                : strerror(errno));
			goto out;
		}
	}
out:
	if (qfd >= 0)
		close(qfd);
	source_release(&s);
	return rc;
}

/* ---- the plan and the commit ---- */

/* skit_update() without SKIT_INSTALL_FORCE: refuse to replace a skill
 * whose installed files no longer match the lock (local edits). A bit
 * the public flags leave free. */
#define KEEP_EDITS (1u << 31)

/*
 * SKIT_EEXISTS naming the files of `name` (hashed into `old`; `dir`:
 * it is a folder) that differ from what the lock records, or 0 when
 * they match or the lock does not record it.
 */
static int local_edits(struct ctx *c, const char *name,
                       const struct skit__pskill *old, bool dir,
                       skit_error *err)
{
	const struct skit__pskill *locked = skit__lock_find(&c->t.lock, name);
	struct skitx_buf list = SKITX_BUF_INIT;
	struct item tmp;
	int rc;

	if (!locked || (dir && skit__pskill_same_files(old, locked)))
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	if (!dir) {
		rc = skitx_buf_puts(&list, "it is no longer a folder");
	} else {
		rc = diff_files(&tmp, locked, old);
		for (size_t i = 0; !rc && i < tmp.pub.change_count; i++)
			rc = skitx_buf_printf(
			        &list, "%s%s %s", i ? ", " : "",
			        tmp.changes[i].path,
			        tmp.changes[i].kind == SKIT_FILE_ADDED ? "added"
			        : tmp.changes[i].kind == SKIT_FILE_REMOVED
			                ? "removed"
			                : "changed");
	}
	if (rc < 0)
		rc = skit__error_oom(err);
	else
		rc = skit__error_set(err, SKIT_EEXISTS, 0,
		                     "%s has local changes (%s); nothing was "
		                     "updated; --force overwrites them",
		                     name, skitx_buf_cstr(&list));
	for (size_t i = 0; i < tmp.pub.change_count; i++)
		skitx_free(tmp.paths[i]);
	skitx_free(tmp.paths);
	skitx_free(tmp.changes);
	skitx_buf_release(&list);
	return rc;
}

enum mode { MODE_INSTALL, MODE_UPDATE, MODE_FROM_LOCK };

static int plan_one(struct ctx *c, struct request *q, struct skit__pskill *sk,
                    enum mode mode, skit_install_result *r, bool *put,
                    skit_error *err)
{
	struct item *it = new_item(r);
	struct skit__pskill old;
	struct stat stb;
	bool installed;
	int rc = 0;

	memset(&old, 0, sizeof(old));
	*put = false;
	if (!it)
		return skit__error_oom(err);
	it->name = skitx_strdup(sk->name);
	it->source = skitx_strdup(q->recorded);
	it->resolved = dup_or_null(q->resolved[0] ? q->resolved : NULL);
	it->signed_by = dup_or_null(q->signed_by[0] ? q->signed_by : NULL);
	if (!it->name || !it->source)
		return skit__error_oom(err);
	installed =
	        fstatat(c->t.rootfd, sk->name, &stb, AT_SYMLINK_NOFOLLOW) == 0;
	if (!installed) {
		char *other = NULL;

		/* a new name may not pose as an installed one (UTS #39) */
		if (mode == MODE_INSTALL && !(c->flags & SKIT_INSTALL_FORCE) &&
		    skit__confusable_installed(&other, c->t.rootfd, sk->name) <
		            0)
			return skit__error_oom(err);
		if (other) {
			rc = skit__error_set(
			        err, SKIT_EEXISTS, 0,
			        "%s looks like the installed skill "
			        "%s in %s (confusable names); use "
			        "--force to install it anyway",
			        sk->name, other, c->t.root);
			skitx_free(other);
			return rc;
		}
		it->pub.action = SKIT_INSTALL_NEW;
		*put = true;
		return 0;
	}
	if (S_ISDIR(stb.st_mode)) {
		rc = skit__tree_hash(c->t.rootfd, sk->name, &old, err);
		if (rc < 0)
			return rc;
	}
	if (S_ISDIR(stb.st_mode) && skit__pskill_same_files(&old, sk)) {
		it->pub.action = SKIT_INSTALL_UNCHANGED;
		skit__pskill_release(&old);
		return 0;
	}
	if (mode == MODE_INSTALL && !(c->flags & SKIT_INSTALL_FORCE)) {
		skit__pskill_release(&old);
		return skit__error_set(err, SKIT_EEXISTS, 0,
		                       "%s is already installed in %s (a "
		                       "different version); use --force to "
		                       "replace it",
		                       sk->name, c->t.root);
	}
	if (c->flags & KEEP_EDITS) {
		rc = local_edits(c, sk->name, &old, S_ISDIR(stb.st_mode), err);
		if (rc < 0) {
			skit__pskill_release(&old);
			return rc;
		}
	}
	it->pub.action = SKIT_INSTALL_REPLACED;
	*put = true;
	rc = diff_files(it, &old, sk);
	if (!rc) {
		char path[8192];
		skit_skill *prev = NULL;
		skit_skill_options so = SKIT_SKILL_OPTIONS_INIT;
		const char *was = NULL;

		for (size_t i = 0; i < it->pub.change_count; i++)
			if (prefixed(it->changes[i].path, "scripts/"))
				it->pub.sensitive = true;
		snprintf(path, sizeof(path), "%s/%s", c->t.root, sk->name);
		so.flags = SKIT_SKILL_LENIENT;
		if (skit_skill_load(&prev, path, &so, NULL) == 0)
			was = skit_skill_allowed_tools(prev);
		if ((was == NULL) != (sk->allowed_tools == NULL) ||
		    (was && strcmp(was, sk->allowed_tools)))
			it->pub.sensitive = true;
		skit_skill_free(prev);
	}
	skit__pskill_release(&old);
	return rc < 0 ? skit__error_oom(err) : 0;
}

/*
 * The links of `sk` in agents' folders (pack_links.c): those its lock
 * entry `locked` records, and the options' targets. `lk` receives what
 * the lock records afterwards, `it` what the result shows.
 */
static int plan_links(struct ctx *c, const struct skit__pskill *sk,
                      const struct skit__pskill *locked, bool put,
                      struct item *it, struct skit__pskill *lk, skit_error *err)
{
	const skit_install_options *o = c->opts;
	bool asked = o && o->version >= 2 && o->target_count;
	size_t first = c->t.nlinks;
	int rc;

	if (!asked && !(locked && locked->nlinks))
		return 0;
	rc = skit__links_plan(
	        &c->t, sk->name, locked, asked ? o->targets : NULL,
	        asked ? o->target_count : 0, c->flags & SKIT_INSTALL_COPY, put,
	        it->pub.action == SKIT_INSTALL_REPLACED,
	        (c->flags & SKIT_INSTALL_FORCE) && !(c->flags & KEEP_EDITS), lk,
	        err);
	if (rc < 0 || !lk->nlinks)
		return rc;
	it->links = skitx_calloc(lk->nlinks, sizeof(*it->links));
	it->lpaths = skitx_calloc(lk->nlinks, sizeof(*it->lpaths));
	it->lagents = skitx_calloc(lk->nlinks, sizeof(*it->lagents));
	if (!it->links || !it->lpaths || !it->lagents)
		return skit__error_oom(err);
	for (size_t k = 0; k < lk->nlinks; k++) {
		char *dir = skit__plink_abs(c->t.root, &lk->links[k]);

		it->lpaths[k] = dir ? skitx_path_join(dir, sk->name) : NULL;
		it->lagents[k] = skitx_strdup(lk->links[k].agent);
		it->nlinks = k + 1;
		if (!it->lpaths[k] || !it->lagents[k]) {
			skitx_free(dir);
			return skit__error_oom(err);
		}
		it->links[k].agent = it->lagents[k];
		it->links[k].path = it->lpaths[k];
		it->links[k].copy = lk->links[k].copy;
		for (size_t m = first; m < c->t.nlinks; m++)
			if (!strcmp(c->t.links[m].dir, dir))
				it->links[k].made = true;
		skitx_free(dir);
	}
	return 0;
}

static int run(const char *root, struct request *reqs, size_t nreq,
               enum mode mode, const skit_install_options *opts,
               skit_install_result **out, skit_error *err)
{
	struct ctx c;
	skit_install_result *r = NULL;
	struct skit__txn_change *changes = NULL;
	struct skit__pskill lk; /* the links a skill ends with */
	struct item *it;
	size_t nchanges = 0, total = 0;
	char now[32];
	int rc;

	if (out)
		*out = NULL;
	memset(&c, 0, sizeof(c));
	memset(&lk, 0, sizeof(lk));
	c.opts = opts;
	c.flags = opts ? opts->flags : 0;
	skit__limits_init(&c.lim, opts);
	if ((c.flags & SKIT_INSTALL_REQUIRE_SIGNATURE) &&
	    (!opts || !opts->trusted_count))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "a required signature needs at least "
		                       "one trusted key");
	if (opts && opts->header_count > SKIT__FETCH_MAX_HEADERS)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "more than %d headers",
		                       SKIT__FETCH_MAX_HEADERS);
	for (size_t i = 0; opts && i < opts->header_count; i++) {
		rc = skit__fetch_header_check(opts->headers[i], err);
		if (rc < 0)
			return rc;
	}
	/* Credentials in a URL are used to fetch it, and never recorded in
	 * the lock nor quoted in a message: from here on `source` is the
	 * URL without them. */
	for (size_t i = 0; i < nreq; i++) {
		reqs[i].given = reqs[i].source;
		if (!skit__url_has_credentials(reqs[i].source))
			continue;
		reqs[i].bare = skit__url_without_credentials(reqs[i].source);
		if (!reqs[i].bare) {
			rc = skit__error_oom(err);
			goto restore;
		}
		reqs[i].source = reqs[i].bare;
	}
	rc = skit__txn_open(&c.t, root, mode != MODE_UPDATE, err);
	if (rc < 0)
		goto restore;
	r = skitx_calloc(1, sizeof(*r));
	if (!r) {
		rc = skit__error_oom(err);
		goto out;
	}
	snprintf(r->root, sizeof(r->root), "%s", c.t.root);
	rc = skit__txn_stage(&c.t, err);
	for (size_t i = 0; !rc && i < nreq; i++)
		rc = stage_request(&c, &reqs[i], i, err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < nreq; i++)
		total += reqs[i].st.n;
	changes = skitx_calloc(total ? total : 1, sizeof(*changes));
	if (!changes) {
		rc = skit__error_oom(err);
		goto out;
	}
	utc_now(now);
	for (size_t i = 0; !rc && i < nreq; i++) {
		struct request *q = &reqs[i];

		for (size_t k = 0; !rc && k < q->st.n; k++) {
			struct skit__pskill *sk = &q->st.skills[k];
			struct skit__pskill *locked;
			bool put;

			if (!wanted(q, sk->name) || sk->skip)
				continue;
			rc = plan_one(&c, q, sk, mode, r, &put, err);
			if (rc >= 0 && put && opts && opts->scanner)
				rc = skit__install_scan(opts, c.t.root,
				                        c.t.stage_name, sk,
				                        err);
			if (rc < 0)
				break;
			if (put) {
				changes[nchanges].op = SKIT__TXN_PUT;
				changes[nchanges++].name = sk->name;
			}
			locked = skit__lock_find(&c.t.lock, sk->name);
			it = &r->items[r->n - 1];
			skit__plinks_release(&lk);
			rc = plan_links(&c, sk, locked, put, it, &lk, err);
			if (rc < 0)
				break;
			/* what `skit update` follows changes: say so */
			if (locked && strcmp(locked->source, q->recorded) &&
			    !(it->previous_source =
			              skitx_strdup(locked->source))) {
				rc = skit__error_oom(err);
				break;
			}
			if (!put && locked &&
			    !strcmp(locked->source, q->recorded)) {
				if (skit__plinks_set(locked, lk.links,
				                     lk.nlinks) < 0)
					rc = skit__error_oom(err);
				continue;
			}
			/* The lock records what the commit installs. */
			skitx_free(sk->source);
			skitx_free(sk->resolved);
			skitx_free(sk->signed_by);
			skitx_free(sk->installed_at);
			sk->source = skitx_strdup(q->recorded);
			sk->resolved = dup_or_null(q->resolved[0] ? q->resolved
			                                          : NULL);
			sk->signed_by = dup_or_null(
			        q->signed_by[0] ? q->signed_by : NULL);
			sk->installed_at = skitx_strdup(now);
			if (q->expect) {
				struct skit__pskill *w =
				        skit__lock_find(q->expect, sk->name);

				if (w && w->installed_at) {
					skitx_free(sk->installed_at);
					sk->installed_at =
					        skitx_strdup(w->installed_at);
				}
			}
			if (!sk->source || !sk->installed_at ||
			    skit__plinks_set(sk, lk.links, lk.nlinks) < 0 ||
			    skit__lock_put(&c.t.lock, sk) < 0)
				rc = skit__error_oom(err);
		}
	}
	skit__plinks_release(&lk);
	if (!rc)
		rc = finish_view(r) < 0 ? skit__error_oom(err) : 0;
	if (rc < 0)
		goto out;
	if (opts && opts->on_plan &&
	    opts->on_plan(opts->userdata, r->view, r->n) != 0) {
		rc = skit__error_set(err, SKIT_ECANCELED, 0,
		                     "nothing was installed: canceled");
		goto out;
	}
	if (c.flags & SKIT_INSTALL_DRY_RUN)
		goto out;
	rc = skit__txn_commit(&c.t, changes, nchanges, err);
out:
	skit__txn_close(&c.t);
	for (size_t i = 0; i < nreq; i++) {
		skit__staged_release(&reqs[i].st);
		skitx_free(reqs[i].recorded);
		reqs[i].recorded = NULL;
	}
	skitx_free(changes);
	if (rc < 0 || !out)
		skit_install_result_free(r);
	else
		*out = r;
restore:
	for (size_t i = 0; i < nreq; i++) {
		if (reqs[i].given)
			reqs[i].source = reqs[i].given;
		skitx_free(reqs[i].bare);
		reqs[i].bare = NULL;
	}
	return rc;
}

int skit_install(const char *root, const char *src,
                 const skit_install_options *opts, skit_install_result **out,
                 skit_error *err)
{
	struct request q;

	memset(&q, 0, sizeof(q));
	if (!root || !src || !*src)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "install: a root and a source are "
		                       "needed");
	q.source = src;
	return run(root, &q, 1, MODE_INSTALL, opts, out, err);
}

/* One request per distinct source among the lock's entries (and, when
 * `pin`, per distinct commit); every string is a copy. */
static int requests_from(const struct skit__lockdoc *doc, const char *name,
                         bool pin, struct request **out, size_t *n,
                         skit_error *err)
{
	struct request *q = skitx_calloc(doc->n ? doc->n : 1, sizeof(*q));
	size_t k = 0;

	*out = q;
	*n = 0;
	if (!q)
		return skit__error_oom(err);
	for (size_t i = 0; i < doc->n; i++) {
		const struct skit__pskill *s = &doc->skills[i];
		const char *p =
		        pin && s->resolved &&
		                        (!prefixed(s->resolved, "sha256:") ||
		                         skit__oci_is_ref(s->source))
		                ? s->resolved
		                : NULL;
		const char **v;
		size_t j;

		if (name && strcmp(s->name, name))
			continue;
		for (j = 0; j < k; j++)
			if (!strcmp(q[j].source, s->source) &&
			    !strcmp(q[j].pin ? q[j].pin : "", p ? p : ""))
				break;
		if (j == k) {
			q[k].source = skitx_strdup(s->source);
			q[k].pin = p ? skitx_strdup(p) : NULL;
			*n = ++k;
			if (!q[j].source || (p && !q[j].pin))
				return skit__error_oom(err);
		}
		v = skitx_realloc((void *)q[j].only,
		                  (q[j].nonly + 1) * sizeof(*v));
		if (!v)
			return skit__error_oom(err);
		q[j].only = v;
		if (!(v[q[j].nonly] = skitx_strdup(s->name)))
			return skit__error_oom(err);
		q[j].nonly++;
	}
	return 0;
}

static void requests_free(struct request *q, size_t n)
{
	for (size_t i = 0; q && i < n; i++) {
		for (size_t m = 0; m < q[i].nonly; m++)
			skitx_free((void *)q[i].only[m]);
		skitx_free((void *)q[i].only);
		skitx_free((void *)q[i].source);
		skitx_free((void *)q[i].pin);
	}
	skitx_free(q);
}

int skit_update(const char *root, const char *name,
                const skit_install_options *opts, skit_install_result **out,
                skit_error *err)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	struct skit__txn t;
	struct request *q = NULL;
	size_t n = 0;
	int rc;

	if (out)
		*out = NULL;
	rc = skit__txn_open(&t, root, false, err);
	if (rc < 0)
		return rc;
	if (name && !skit__lock_find(&t.lock, name))
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "%s was not installed by skit in %s", name,
		                     t.root);
	if (!rc)
		rc = requests_from(&t.lock, name, false, &q, &n, err);
	skit__txn_close(&t);
	if (!rc && !n)
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "nothing installed by skit in %s", root);
	if (!rc) {
		if (opts)
			o = *opts;
		if (!(o.flags & SKIT_INSTALL_FORCE))
			o.flags |= KEEP_EDITS;
		o.flags |= SKIT_INSTALL_FORCE;
		rc = run(root, q, n, MODE_UPDATE, &o, out, err);
	}
	requests_free(q, n);
	return rc;
}

int skit_install_from_lock(const char *root, const char *lock_path,
                           const skit_install_options *opts,
                           skit_install_result **out, skit_error *err)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	struct skit__lockdoc doc;
	struct skit__txn t;
	struct request *q = NULL;
	size_t n = 0;
	int rc;

	if (out)
		*out = NULL;
	memset(&doc, 0, sizeof(doc));
	rc = skit__txn_open(&t, root, true, err);
	if (rc < 0)
		return rc;
	rc = skit__lock_load(&doc, t.rootfd, lock_path, err);
	if (!rc && !lock_path)
		rc = doc.n ? 0
		           : skit__error_set(err, SKIT_ENOTFOUND, 0,
		                             "%s/%s records no skills", t.root,
		                             SKIT__LOCK_FILE);
	skit__txn_close(&t);
	if (!rc)
		rc = requests_from(&doc, NULL, true, &q, &n, err);
	for (size_t i = 0; !rc && i < n; i++)
		q[i].expect = &doc;
	if (!rc) {
		if (opts)
			o = *opts;
		o.flags |= SKIT_INSTALL_FORCE;
		rc = run(root, q, n, MODE_FROM_LOCK, &o, out, err);
	}
	requests_free(q, n);
	skit__lockdoc_release(&doc);
	return rc;
}

/* ---- packing ---- */

struct packing {
	struct skit__zfile *files;
	size_t n, cap;
	struct skit__pskill *skill;
	const char *name;
};

static int pack_cb(void *ud, const char *rel, int fd, const struct stat *st,
                   skit_error *err)
{
	struct packing *p = ud;
	struct skitx_buf data = SKITX_BUF_INIT;
	struct skit__zfile *f;
	char hex[65];
	int rc;

	if (p->n == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct skit__zfile *v =
		        skitx_realloc(p->files, cap * sizeof(*v));

		if (!v)
			return skit__error_oom(err);
		p->files = v;
		p->cap = cap;
	}
	rc = skitx_fs_read_fd(fd, &data, (size_t)st->st_size + 1);
	if (rc < 0 || data.len != (size_t)st->st_size) {
		skitx_buf_release(&data);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "%s/%s: changed while it was read",
		                       p->name, rel);
	}
	f = &p->files[p->n];
	memset(f, 0, sizeof(*f));
	f->exec = (st->st_mode & 0100) != 0;
	f->len = data.len;
	{
		size_t plen = strlen(p->name) + strlen(rel) + 2;

		f->path = skitx_malloc(plen);
		if (!f->path) {
			skitx_buf_release(&data);
			return skit__error_oom(err);
		}
		snprintf(f->path, plen, "%s/%s", p->name, rel);
	}
	f->data = skitx_buf_detach(&data, NULL);
	p->n++;
	skit__sha256_hex(f->data, f->len, hex);
	if (skit__pskill_add(p->skill, rel, f->len, f->exec, hex) < 0)
		return skit__error_oom(err);
	return 0;
}

static int cmp_zfile(const void *a, const void *b)
{
	return strcmp(((const struct skit__zfile *)a)->path,
	              ((const struct skit__zfile *)b)->path);
}

static char *manifest_json(struct skit__pskill *const *skills, size_t n,
                           const char *digest)
{
	json_t *m = json_object(), *arr = json_array();
	char *text = NULL, *copy = NULL, d[72];
	bool ok = m && arr;

	for (size_t i = 0; ok && i < n; i++) {
		json_t *files = json_array(), *o;

		for (size_t k = 0; files && k < skills[i]->nfiles; k++) {
			const struct skit__pfile *f = &skills[i]->files[k];

			json_array_append_new(
			        files,
			        json_pack("{s:s, s:I, s:s, s:s}", "path",
			                  f->path, "size", (json_int_t)f->size,
			                  "mode", f->exec ? "0755" : "0644",
			                  "sha256", f->sha256));
		}
		o = json_pack("{s:s, s:o}", "name", skills[i]->name, "files",
		              files);
		if (o && skills[i]->version)
			json_object_set_new(o, "version",
			                    json_string(skills[i]->version));
		ok = o && !json_array_append_new(arr, o);
	}
	snprintf(d, sizeof(d), "sha256:%s", digest);
	if (ok && !json_object_set_new(m, "skills", arr)) {
		arr = NULL;
		json_object_set_new(m, "format", json_string("skit-pack"));
		json_object_set_new(m, "version", json_integer(1));
		json_object_set_new(m, "skit", json_string(skit_version()));
		json_object_set_new(m, "digest", json_string(d));
		text = json_dumps(m, JSON_INDENT(2) | JSON_SORT_KEYS);
	}
	json_decref(arr);
	json_decref(m);
	if (text) {
		copy = skitx_strdup(text);
		free(text);
	}
	return copy;
}

/*
 * The name a skill takes in a pack (its folder's, once installed): as for
 * the registry (docs/format.md), the skill's own name when it is valid
 * and matches its folder, else the folder's name, which must then pass
 * folder_name_ok(). `real` is the resolved folder. Conformance
 * (`strict`) needs the skill's own name, as `skit validate` does.
 */
static int pack_name(const char *real, const char *what, bool strict,
                     char **out, skit_error *err)
{
	const char *base;
	size_t blen;
	char *own = NULL, *folder;
	int rc;

	*out = NULL;
	rc = check_skill(real, what, what, strict, NULL, &own, err);
	if (rc < 0)
		return rc;
	base = skitx_path_name(real, &blen);
	folder = skitx_strndup(base, blen);
	if (!folder) {
		skitx_free(own);
		return skit__error_oom(err);
	}
	if (strict || (own && !strcmp(own, folder))) {
		skitx_free(folder);
		*out = own;
		return 0;
	}
	skitx_free(own);
	if (!folder_name_ok(folder)) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: the folder name '%s' cannot be a "
		                     "skill's name",
		                     what, folder);
		skitx_free(folder);
		return rc;
	}
	*out = folder;
	return 0;
}

int skit_pack(const char *const *dirs, size_t n, const char *out_path,
              const skit_pack_options *opts, skit_pack_info *info,
              skit_error *err)
{
	struct skit__limits lim;
	struct packing p;
	struct skit__pskill *skills = NULL, **sorted = NULL;
	struct skit__zfile meta[2];
	struct skit__zfile *all = NULL;
	char digest[65], id[SKIT__KEY_ID_LEN + 1] = "", *manifest = NULL;
	char *sig = NULL, *sigjson = NULL, *tmp = NULL;
	size_t nmeta = 0;
	bool strict = opts && (opts->flags & SKIT_PACK_STRICT);
	int rc = 0, fd = -1;

	memset(&p, 0, sizeof(p));
	memset(meta, 0, sizeof(meta));
	if (info)
		memset(info, 0, sizeof(*info));
	if (!dirs || !n || !out_path)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "pack: skill folders and an output file "
		                       "are needed");
	skit__limits_init(&lim, NULL);
	skills = skitx_calloc(n, sizeof(*skills));
	sorted = skitx_calloc(n, sizeof(*sorted));
	if (!skills || !sorted) {
		rc = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char real[PATH_MAX], *name = NULL;

		/*
		 * A skill folder given as a symbolic link (a common way to
		 * keep skills in one place) is packed from where it leads;
		 * links inside it are still refused by the walk.
		 */
		if (!realpath(dirs[i], real)) {
			rc = skit__error_set(err, SKIT_ENOTFOUND, 0, "%s: %s",
			                     dirs[i], strerror(errno));
			goto out;
		}
		rc = pack_name(real, dirs[i], strict, &name, err);
		if (rc < 0)
			goto out;
		skills[i].name = name;
		rc = reserved_skill(dirs[i], name, err);
		if (rc < 0)
			goto out;
		rc = check_skill(real, dirs[i], name, strict, &skills[i], NULL,
		                 err);
		for (size_t k = 0; !rc && k < i; k++)
			if (!strcmp(skills[k].name, name))
				rc = skit__error_set(
				        err, SKIT_EEXISTS, 0,
				        "%s: a second skill named %s", dirs[i],
				        name);
		if (rc < 0)
			goto out;
		p.skill = &skills[i];
		p.name = name;
		rc = skit__tree_walk(AT_FDCWD, real, SKIT__WALK_SKIP_GIT, &lim,
		                     pack_cb, &p, err);
		if (rc < 0)
			goto out;
		skit__pskill_sort(&skills[i]);
		sorted[i] = &skills[i];
	}
	qsort(sorted, n, sizeof(*sorted), cmp_pskill_ptr);
	qsort(p.files, p.n, sizeof(*p.files), cmp_zfile);
	if (pack_digest(sorted, n, digest) < 0 ||
	    !(manifest = manifest_json(sorted, n, digest))) {
		rc = skit__error_oom(err);
		goto out;
	}
	meta[nmeta].path = "manifest.json";
	meta[nmeta].data = manifest;
	meta[nmeta++].len = strlen(manifest);
	if (opts && opts->sign_key) {
		char msg[80];
		json_t *j;

		skit__sign_message(digest, msg);
		rc = skit__sign(opts->sign_key, msg, strlen(msg), &sig, id,
		                err);
		if (rc < 0)
			goto out;
		j = json_pack("{s:s, s:s, s:s}", "algorithm", "ed25519",
		              "key_id", id, "signature", sig);
		if (j) {
			char *t =
			        json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);

			sigjson = t ? skitx_strdup(t) : NULL;
			free(t);
			json_decref(j);
		}
		if (!sigjson) {
			rc = skit__error_oom(err);
			goto out;
		}
		meta[nmeta].path = "manifest.sig";
		meta[nmeta].data = sigjson;
		meta[nmeta++].len = strlen(sigjson);
	}
	all = skitx_calloc(p.n + nmeta, sizeof(*all));
	tmp = skitx_malloc(strlen(out_path) + 16);
	if (tmp)
		snprintf(tmp, strlen(out_path) + 16, "%s.tmp-XXXXXX", out_path);
	if (!all || !tmp) {
		rc = skit__error_oom(err);
		goto out;
	}
	memcpy(all, meta, nmeta * sizeof(*all));
	if (p.n)
		memcpy(all + nmeta, p.files, p.n * sizeof(*all));
	fd = mkstemp(tmp);
	if (fd < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", out_path,
		                     strerror(errno));
		goto out;
	}
	rc = skit__zip_write(fd, all, p.n + nmeta, err);
	if (!rc && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", out_path,
		                     strerror(errno));
	close(fd);
	if (!rc && rename(tmp, out_path) < 0)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", out_path,
		                     strerror(errno));
	if (rc < 0)
		(void)unlink(tmp);
	else if (info) {
		info->skills = n;
		info->files = p.n;
		for (size_t i = 0; i < p.n; i++)
			info->bytes += p.files[i].len;
		memcpy(info->digest, digest, 65);
		memcpy(info->key_id, id, sizeof(info->key_id));
	}
out:
	for (size_t i = 0; i < p.n; i++) {
		skitx_free(p.files[i].path);
		skitx_free(p.files[i].data);
	}
	skitx_free(p.files);
	for (size_t i = 0; skills && i < n; i++)
		skit__pskill_release(&skills[i]);
	skitx_free(skills);
	skitx_free(sorted);
	skitx_free(manifest);
	skitx_free(sig);
	skitx_free(sigjson);
	skitx_free(all);
	skitx_free(tmp);
	return rc;
}
