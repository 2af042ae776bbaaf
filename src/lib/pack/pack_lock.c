/* SPDX-License-Identifier: MIT */
/*
 * pack_lock.c - the lock file `<root>/.skit-lock.json` and the public
 * view of it (skit_lock_*); skit_verify() is pack_verify.c's.
 *
 *	{
 *	  "version": 1,
 *	  "skills": {
 *	    "csv-report": {
 *	      "source": "https://example.org/packs/data.zip",
 *	      "resolved": "sha256:9f2c...",
 *	      "version": "1.2.0",
 *	      "installed_at": "2026-11-21T10:00:00Z",
 *	      "signed_by": "1a2b3c4d5e6f7a8b",
 *	      "files": [
 *	        { "path": "SKILL.md", "size": 812, "mode": "0644",
 *	          "sha256": "..." }
 *	      ]
 *	    }
 *	  }
 *	}
 *
 * The file is written only by pack_txn.c, atomically, under the root
 * lock; it is read with a size cap and every field is checked, since a
 * project's lock file arrives through version control.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/path.h"

/* ---- skills and their files ---- */

int skit__pskill_add(struct skit__pskill *s, const char *path, uint64_t size,
                     bool exec, const char sha256[65])
{
	struct skit__pfile *f;

	if (s->nfiles == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct skit__pfile *v =
		        skitx_realloc(s->files, cap * sizeof(*v));

		if (!v)
			return SKIT_ENOMEM;
		s->files = v;
		s->cap = cap;
	}
	f = &s->files[s->nfiles];
	if (!(f->path = skitx_strdup(path)))
		return SKIT_ENOMEM;
	f->size = size;
	f->exec = exec;
	memcpy(f->sha256, sha256, 65);
	s->nfiles++;
	return 0;
}

static int cmp_pfile(const void *a, const void *b)
{
	return strcmp(((const struct skit__pfile *)a)->path,
	              ((const struct skit__pfile *)b)->path);
}

void skit__pskill_sort(struct skit__pskill *s)
{
	if (s->nfiles > 1)
		qsort(s->files, s->nfiles, sizeof(*s->files), cmp_pfile);
}

void skit__pskill_release(struct skit__pskill *s)
{
	for (size_t i = 0; i < s->nfiles; i++)
		skitx_free(s->files[i].path);
	skitx_free(s->files);
	skitx_free(s->name);
	skitx_free(s->version);
	skitx_free(s->allowed_tools);
	skitx_free(s->source);
	skitx_free(s->resolved);
	skitx_free(s->signed_by);
	skitx_free(s->installed_at);
	skitx_free(s->scan_verdict);
	skitx_free(s->scan_rules);
	skit__plinks_release(s);
	memset(s, 0, sizeof(*s));
}

uint64_t skit__pskill_bytes(const struct skit__pskill *s)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->nfiles; i++)
		n += s->files[i].size;
	return n;
}

bool skit__pskill_same_files(const struct skit__pskill *a,
                             const struct skit__pskill *b)
{
	if (a->nfiles != b->nfiles)
		return false;
	for (size_t i = 0; i < a->nfiles; i++) {
		const struct skit__pfile *x = &a->files[i], *y = &b->files[i];

		if (strcmp(x->path, y->path) || x->size != y->size ||
		    x->exec != y->exec || strcmp(x->sha256, y->sha256))
			return false;
	}
	return true;
}

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = skitx_strdup(src);
	return *dst ? 0 : SKIT_ENOMEM;
}

int skit__pskill_copy(struct skit__pskill *dst, const struct skit__pskill *src)
{
	memset(dst, 0, sizeof(*dst));
	if (dup_opt(&dst->name, src->name) ||
	    dup_opt(&dst->version, src->version) ||
	    dup_opt(&dst->allowed_tools, src->allowed_tools) ||
	    dup_opt(&dst->source, src->source) ||
	    dup_opt(&dst->resolved, src->resolved) ||
	    dup_opt(&dst->signed_by, src->signed_by) ||
	    dup_opt(&dst->installed_at, src->installed_at) ||
	    dup_opt(&dst->scan_verdict, src->scan_verdict) ||
	    dup_opt(&dst->scan_rules, src->scan_rules) ||
	    skit__plinks_set(dst, src->links, src->nlinks))
		goto oom;
	for (size_t i = 0; i < src->nfiles; i++)
		if (skit__pskill_add(dst, src->files[i].path,
		                     src->files[i].size, src->files[i].exec,
		                     src->files[i].sha256))
			goto oom;
	return 0;
oom:
	skit__pskill_release(dst);
	return SKIT_ENOMEM;
}

/* ---- the document ---- */

void skit__lockdoc_release(struct skit__lockdoc *doc)
{
	for (size_t i = 0; i < doc->n; i++)
		skit__pskill_release(&doc->skills[i]);
	skitx_free(doc->skills);
	memset(doc, 0, sizeof(*doc));
}

struct skit__pskill *skit__lock_find(struct skit__lockdoc *doc,
                                     const char *name)
{
	for (size_t i = 0; i < doc->n; i++)
		if (!strcmp(doc->skills[i].name, name))
			return &doc->skills[i];
	return NULL;
}

void skit__lock_drop(struct skit__lockdoc *doc, const char *name)
{
	struct skit__pskill *s = skit__lock_find(doc, name);
	size_t i;

	if (!s)
		return;
	i = (size_t)(s - doc->skills);
	skit__pskill_release(s);
	memmove(&doc->skills[i], &doc->skills[i + 1],
	        (doc->n - i - 1) * sizeof(*doc->skills));
	doc->n--;
}

int skit__lock_put(struct skit__lockdoc *doc, const struct skit__pskill *s)
{
	struct skit__pskill copy;

	if (skit__pskill_copy(&copy, s) < 0)
		return SKIT_ENOMEM;
	skit__lock_drop(doc, s->name);
	if (doc->n == doc->cap) {
		size_t cap = doc->cap ? doc->cap * 2 : 8;
		struct skit__pskill *v =
		        skitx_realloc(doc->skills, cap * sizeof(*v));

		if (!v) {
			skit__pskill_release(&copy);
			return SKIT_ENOMEM;
		}
		doc->skills = v;
		doc->cap = cap;
	}
	doc->skills[doc->n++] = copy;
	return 0;
}

static bool hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return false;
	for (size_t i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int opt_str(json_t *o, const char *key, char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return SKIT_EINVALID;
	*out = skitx_strdup(json_string_value(v));
	return *out ? 0 : SKIT_ENOMEM;
}

int skit__pskill_files_json(struct skit__pskill *s, json_t *files)
{
	json_t *f;
	size_t i;

	if (!json_is_array(files))
		return SKIT_EINVALID;
	json_array_foreach(files, i, f)
	{
		const char *path =
		        json_string_value(json_object_get(f, "path"));
		const char *sha =
		        json_string_value(json_object_get(f, "sha256"));
		const char *mode =
		        json_string_value(json_object_get(f, "mode"));
		json_t *size = json_object_get(f, "size");

		if (!path || !hex64(sha) || !json_is_integer(size) ||
		    json_integer_value(size) < 0 || !mode ||
		    (strcmp(mode, "0644") && strcmp(mode, "0755")) ||
		    skit__pack_name_check(path, strlen(path), "lock", NULL))
			return SKIT_EINVALID;
		if (skit__pskill_add(s, path,
		                     (uint64_t)json_integer_value(size),
		                     mode[1] == '7', sha))
			return SKIT_ENOMEM;
	}
	skit__pskill_sort(s);
	return 0;
}

static int parse_skill(struct skit__pskill *s, const char *name, json_t *o)
{
	json_t *files = json_object_get(o, "files"), *scan;
	int rc;

	memset(s, 0, sizeof(*s));
	if (!json_is_object(o) || !json_is_array(files) ||
	    !skit_skill_name_ok(name) || strlen(name) > 64)
		return SKIT_EINVALID;
	if (!(s->name = skitx_strdup(name)))
		return SKIT_ENOMEM;
	if (opt_str(o, "source", &s->source) ||
	    opt_str(o, "resolved", &s->resolved) ||
	    opt_str(o, "version", &s->version) ||
	    opt_str(o, "installed_at", &s->installed_at) ||
	    opt_str(o, "signed_by", &s->signed_by) || !s->source)
		return SKIT_EINVALID;
	/* A lock written before credentials were stripped from URLs gives
	 * them up here: the lock in memory never holds them, so what is
	 * dumped is what was loaded. */
	if (skit__url_has_credentials(s->source)) {
		char *bare = skit__url_without_credentials(s->source);

		if (!bare)
			return SKIT_ENOMEM;
		skitx_free(s->source);
		s->source = bare;
	}
	/* "scan": {"verdict": "medium", "rules": "<version>"}, optional */
	scan = json_object_get(o, "scan");
	if (scan && !json_is_null(scan) &&
	    (!json_is_object(scan) ||
	     opt_str(scan, "verdict", &s->scan_verdict) || !s->scan_verdict ||
	     opt_str(scan, "rules", &s->scan_rules)))
		return SKIT_EINVALID;
	rc = skit__plinks_parse(s, json_object_get(o, "links"));
	if (rc < 0)
		return rc;
	return skit__pskill_files_json(s, files);
}

int skit__lock_parse(struct skit__lockdoc *doc, const char *text, size_t len,
                     const char *label, skit_error *err)
{
	json_error_t jerr;
	json_t *root, *skills, *v;
	const char *key;
	char shown[96];
	int rc = 0;

	memset(doc, 0, sizeof(*doc));
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	skills = json_object_get(root, "skills");
	if (!root || !json_is_object(skills) ||
	    json_integer_value(json_object_get(root, "version")) != 1) {
		rc = skit__error_set(err, SKIT_EINVALID,
		                     root ? 0 : (unsigned)jerr.line,
		                     "%s: not a valid lock file%s%s", label,
		                     root ? "" : ": ", root ? "" : jerr.text);
		json_decref(root);
		return rc;
	}
	json_object_foreach(skills, key, v)
	{
		struct skit__pskill s;

		rc = parse_skill(&s, key, v);
		if (!rc)
			rc = skit__lock_put(doc, &s);
		skit__pskill_release(&s);
		if (rc < 0)
			break;
	}
	if (rc < 0) {
		/* `key` points into `root`: report it before the release. */
		if (rc == SKIT_ENOMEM)
			skit__error_oom(err);
		else
			skit__error_set(
			        err, rc, 0,
			        "%s: skill \"%s\" is not a valid entry", label,
			        skit__pack_name_show(key, strlen(key), shown,
			                             sizeof(shown)));
		skit__lockdoc_release(doc);
	}
	json_decref(root);
	return rc < 0 ? rc : 0;
}

int skit__lock_load(struct skit__lockdoc *doc, int rootfd, const char *path,
                    skit_error *err)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	const char *label = path ? path : SKIT__LOCK_FILE;
	struct stat st;
	int fd, rc = 0;

	memset(doc, 0, sizeof(*doc));
	if (path)
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	else
		fd = openat(rootfd, SKIT__LOCK_FILE,
		            O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT && !path)
			return 0;
		return skit__error_set(
		        err, errno == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO, 0,
		        "%s: %s", label, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return skit__error_set(err, SKIT_EUNSAFE, 0,
		                       "%s: not a regular file", label);
	}
	rc = skitx_fs_read_fd(fd, &text, SKIT__LOCK_MAX);
	close(fd);
	if (rc < 0) {
		skitx_buf_release(&text);
		return skit__error_set(err, rc, 0, "%s: cannot read it", label);
	}
	rc = skit__lock_parse(doc, text.ptr, text.len, label, err);
	skitx_buf_release(&text);
	return rc;
}

static json_t *opt_json(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* A source as the lock stores it: never with the credentials of a URL
 * (a lock written before they were stripped loses them on its next
 * write). */
static json_t *source_json(const char *source)
{
	char *bare;
	json_t *j;

	if (!source)
		return json_null();
	bare = skit__url_without_credentials(source);
	j = bare ? json_string(bare) : NULL;
	skitx_free(bare);
	return j;
}

char *skit__lock_dump(const struct skit__lockdoc *doc)
{
	json_t *root = json_object(), *skills = json_object();
	char *text = NULL, *copy = NULL;
	bool ok = root && skills &&
	          !json_object_set_new(root, "version", json_integer(1));

	for (size_t i = 0; ok && i < doc->n; i++) {
		const struct skit__pskill *s = &doc->skills[i];
		json_t *o = json_object(), *files = json_array();

		ok = o && files && !json_object_set_new(skills, s->name, o) &&
		     !json_object_set_new(o, "files", files);
		if (!ok) {
			json_decref(files);
			break;
		}
		ok = !json_object_set_new(o, "source",
		                          source_json(s->source)) &&
		     !json_object_set_new(o, "resolved",
		                          opt_json(s->resolved)) &&
		     !json_object_set_new(o, "version", opt_json(s->version)) &&
		     !json_object_set_new(o, "installed_at",
		                          opt_json(s->installed_at)) &&
		     !json_object_set_new(o, "signed_by",
		                          opt_json(s->signed_by));
		if (ok && s->scan_verdict)
			ok = !json_object_set_new(
			        o, "scan",
			        json_pack("{s:s, s:s?}", "verdict",
			                  s->scan_verdict, "rules",
			                  s->scan_rules));
		if (ok && s->nlinks) {
			json_t *links = skit__plinks_json(s);

			ok = links && !json_object_set_new(o, "links", links);
		}
		for (size_t k = 0; ok && k < s->nfiles; k++) {
			const struct skit__pfile *f = &s->files[k];

			ok = !json_array_append_new(
			        files,
			        json_pack("{s:s, s:I, s:s, s:s}", "path",
			                  f->path, "size", (json_int_t)f->size,
			                  "mode", f->exec ? "0755" : "0644",
			                  "sha256", f->sha256));
		}
	}
	if (ok && !json_object_set_new(root, "skills", skills)) {
		skills = NULL;
		text = json_dumps(root, JSON_INDENT(2) | JSON_SORT_KEYS);
	}
	json_decref(skills);
	json_decref(root);
	if (text) {
		size_t n = strlen(text);

		copy = skitx_malloc(n + 2);
		if (copy) {
			memcpy(copy, text, n);
			copy[n] = '\n';
			copy[n + 1] = '\0';
		}
		free(text);
	}
	return copy;
}

/* ---- the public lock view ---- */

struct skit_lock {
	struct skit__lockdoc doc;
	skit_lock_entry *entries;
	char root[4096];
	/* per entry, its links with absolute paths (made on demand) */
	skit_install_link **links;
	char ***paths;
};

static int cmp_pskill(const void *a, const void *b)
{
	return strcmp(((const struct skit__pskill *)a)->name,
	              ((const struct skit__pskill *)b)->name);
}

int skit_lock_read(skit_lock **out, const char *root, skit_error *err)
{
	skit_lock *l;
	int rootfd, rc;

	*out = NULL;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0 && errno != ENOENT)
		return skit__error_set(err, SKIT_EIO, 0, "%s: %s", root,
		                       strerror(errno));
	l = skitx_calloc(1, sizeof(*l));
	if (!l) {
		if (rootfd >= 0)
			close(rootfd);
		return skit__error_oom(err);
	}
	{
		char *abs = realpath(root, NULL);

		snprintf(l->root, sizeof(l->root), "%s", abs ? abs : root);
		free(abs);
	}
	rc = rootfd < 0 ? 0 : skit__lock_load(&l->doc, rootfd, NULL, err);
	if (rootfd >= 0)
		close(rootfd);
	if (rc < 0) {
		skitx_free(l);
		return rc;
	}
	if (l->doc.n)
		qsort(l->doc.skills, l->doc.n, sizeof(*l->doc.skills),
		      cmp_pskill);
	l->entries = skitx_calloc(l->doc.n ? l->doc.n : 1, sizeof(*l->entries));
	l->links = skitx_calloc(l->doc.n ? l->doc.n : 1, sizeof(*l->links));
	l->paths = skitx_calloc(l->doc.n ? l->doc.n : 1, sizeof(*l->paths));
	if (!l->entries || !l->links || !l->paths) {
		skit_lock_free(l);
		return skit__error_oom(err);
	}
	for (size_t i = 0; i < l->doc.n; i++) {
		struct skit__pskill *s = &l->doc.skills[i];
		skit_lock_entry *e = &l->entries[i];

		e->name = s->name;
		e->source = s->source;
		e->resolved = s->resolved;
		e->version = s->version;
		e->installed_at = s->installed_at;
		e->signed_by = s->signed_by;
		e->scan_verdict = s->scan_verdict;
		e->scan_rules = s->scan_rules;
		e->files = s->nfiles;
		e->bytes = skit__pskill_bytes(s);
	}
	*out = l;
	return 0;
}

size_t skit_lock_count(const skit_lock *lock)
{
	return lock ? lock->doc.n : 0;
}

const skit_lock_entry *skit_lock_at(const skit_lock *lock, size_t i)
{
	return lock && i < lock->doc.n ? &lock->entries[i] : NULL;
}

size_t skit_lock_link_count(const skit_lock *lock, size_t i)
{
	return lock && i < lock->doc.n ? lock->doc.skills[i].nlinks : 0;
}

const skit_install_link *skit_lock_link_at(const skit_lock *lock, size_t i,
                                           size_t k)
{
	skit_lock *l = (skit_lock *)lock; /* the view is made once */
	const struct skit__pskill *s;

	if (!l || i >= l->doc.n || k >= l->doc.skills[i].nlinks)
		return NULL;
	s = &l->doc.skills[i];
	if (!l->links[i]) {
		l->links[i] = skitx_calloc(s->nlinks, sizeof(**l->links));
		l->paths[i] = skitx_calloc(s->nlinks, sizeof(**l->paths));
		if (!l->links[i] || !l->paths[i]) {
			skitx_free(l->links[i]);
			skitx_free(l->paths[i]);
			l->links[i] = NULL;
			l->paths[i] = NULL;
			return NULL;
		}
		for (size_t m = 0; m < s->nlinks; m++) {
			char *dir = skit__plink_abs(l->root, &s->links[m]);

			l->paths[i][m] =
			        dir ? skitx_path_join(dir, s->name) : NULL;
			skitx_free(dir);
			l->links[i][m].agent = s->links[m].agent;
			l->links[i][m].path = l->paths[i][m] ? l->paths[i][m]
			                                     : s->links[m].dir;
			l->links[i][m].copy = s->links[m].copy;
		}
	}
	return &l->links[i][k];
}

void skit_lock_free(skit_lock *lock)
{
	if (!lock)
		return;
	for (size_t i = 0; lock->links && lock->paths && i < lock->doc.n; i++) {
		for (size_t m = 0;
		     lock->paths[i] && m < lock->doc.skills[i].nlinks; m++)
			skitx_free(lock->paths[i][m]);
		skitx_free(lock->paths[i]);
		skitx_free(lock->links[i]);
	}
	skitx_free(lock->links);
	skitx_free(lock->paths);
	skit__lockdoc_release(&lock->doc);
	skitx_free(lock->entries);
	skitx_free(lock);
}
