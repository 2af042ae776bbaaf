/* SPDX-License-Identifier: MIT */
/*
 * pack_tree.c - folders handled through directory fds only: walking a
 * source or an installed skill, creating files in staging, hashing, and
 * removing a tree without ever following a link (HOSTILE F4, F6, F10).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "util/alloc.h"
#include "util/fs.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int skit__write_all(int fd, const void *p, size_t len, skit_error *err)
{
	if (skitx_fs_write_all(fd, p, len) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "write: %s",
		                       strerror(errno));
	return 0;
}

/* ---- walking ---- */

struct walk {
	unsigned int flags;
	const struct skit__limits *lim;
	skit__tree_cb cb;
	void *ud;
	skit_error *err;
	struct skit__nameset *names;
	char path[SKIT__PACK_MAX_PATH + 512];
	uint64_t entries, bytes;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in an open folder, sorted; `*out` and each name to free. */
static int list_dir(int fd, char ***out, size_t *n)
{
	int dup_fd = dup(fd);
	DIR *d;
	struct dirent *de;
	char **v = NULL;
	size_t len = 0, cap = 0;

	*out = NULL;
	*n = 0;
	if (dup_fd < 0)
		return SKIT_EIO;
	d = fdopendir(dup_fd);
	if (!d) {
		close(dup_fd);
		return SKIT_EIO;
	}
	rewinddir(d);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **nv = skitx_realloc(v, ncap * sizeof(*nv));

			if (!nv)
				goto oom;
			v = nv;
			cap = ncap;
		}
		if (!(v[len] = skitx_strdup(de->d_name)))
			goto oom;
		len++;
	}
	closedir(d);
	if (len)
		qsort(v, len, sizeof(*v), cmp_str);
	*out = v;
	*n = len;
	return 0;
oom:
	closedir(d);
	for (size_t i = 0; i < len; i++)
		skitx_free(v[i]);
	skitx_free(v);
	return SKIT_ENOMEM;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		skitx_free(v[i]);
	skitx_free(v);
}

static int walk_dir(struct walk *w, int fd, size_t plen, unsigned int depth);

static int walk_entry(struct walk *w, int dfd, const char *name, size_t plen,
                      unsigned int depth)
{
	bool lenient = w->flags & SKIT__WALK_LENIENT;
	size_t nlen = strlen(name), rlen;
	struct stat st;
	char *rel;
	int rc = 0, fd;

	if ((w->flags & SKIT__WALK_SKIP_GIT) && !strcmp(name, ".git"))
		return 0;
	if (plen + nlen + 2 > sizeof(w->path))
		return skit__error_set(w->err, SKIT_ETOOBIG, 0,
		                       "%s: path too long", w->path);
	rel = w->path;
	if (plen)
		rel[plen++] = '/';
	memcpy(rel + plen, name, nlen + 1);
	rlen = plen + nlen;
	if (!lenient) {
		rc = skit__pack_name_check(rel, rlen, "folder", w->err);
		if (rc < 0)
			return rc;
	}
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return skit__error_set(w->err, SKIT_EIO, 0, "%s: %s", rel,
		                       strerror(errno));
	if (w->lim && ++w->entries > w->lim->entries)
		return skit__error_set(w->err, SKIT_ETOOBIG, 0,
		                       "more than %u files and folders",
		                       (unsigned)w->lim->entries);
	if (!lenient) {
		rc = skit__nameset_add(w->names, rel, rlen, S_ISDIR(st.st_mode),
		                       w->err);
		if (rc < 0)
			return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		if (depth >= SKIT__PACK_MAX_DEPTH + 1)
			return skit__error_set(w->err, SKIT_ETOOBIG, 0,
			                       "%s: nested too deep", rel);
		fd = openat(dfd, name, DIR_FLAGS);
		if (fd < 0)
			return skit__error_set(
			        w->err,
			        errno == ELOOP ? SKIT_EUNSAFE : SKIT_EIO, 0,
			        "%s: %s", rel, strerror(errno));
		if (lenient)
			rc = w->cb(w->ud, rel, -1, &st, w->err);
		if (!rc)
			rc = walk_dir(w, fd, rlen, depth + 1);
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		if (lenient)
			return w->cb(w->ud, rel, -1, &st, w->err);
		return skit__error_set(w->err, SKIT_EUNSAFE, 0,
		                       "%s: %s; only regular files and folders "
		                       "are installed",
		                       rel,
		                       S_ISLNK(st.st_mode) ? "a symbolic link"
		                                           : "a special file");
	}
	if (w->lim) {
		if ((uint64_t)st.st_size > w->lim->file)
			return skit__error_set(
			        w->err, SKIT_ETOOBIG, 0,
			        "%s: file larger than %llu bytes", rel,
			        (unsigned long long)w->lim->file);
		w->bytes += (uint64_t)st.st_size;
		if (w->bytes > w->lim->total)
			return skit__error_set(
			        w->err, SKIT_ETOOBIG, 0,
			        "more than %llu bytes in all",
			        (unsigned long long)w->lim->total);
	}
	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return skit__error_set(w->err, SKIT_EIO, 0, "%s: %s", rel,
		                       strerror(errno));
	/* It may have changed since the fstatat(): trust only the fd. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		if (lenient)
			return 0;
		return skit__error_set(w->err, SKIT_EUNSAFE, 0,
		                       "%s: not a regular file", rel);
	}
	rc = w->cb(w->ud, rel, fd, &st, w->err);
	close(fd);
	return rc;
}

static int walk_dir(struct walk *w, int fd, size_t plen, unsigned int depth)
{
	char **names;
	size_t n;
	int rc = list_dir(fd, &names, &n);

	if (rc < 0)
		return skit__error_set(w->err, rc, 0, "%s: cannot list: %s",
		                       plen ? w->path : ".", strerror(errno));
	for (size_t i = 0; i < n && !rc; i++) {
		rc = walk_entry(w, fd, names[i], plen, depth);
		w->path[plen] = '\0';
	}
	free_list(names, n);
	return rc;
}

int skit__tree_walk(int dirfd, const char *name, unsigned int flags,
                    const struct skit__limits *lim, skit__tree_cb cb, void *ud,
                    skit_error *err)
{
	struct walk w = { 0 };
	int fd, rc;

	w.flags = flags;
	w.lim = lim;
	w.cb = cb;
	w.ud = ud;
	w.err = err;
	fd = openat(dirfd, name, DIR_FLAGS);
	if (fd < 0)
		return skit__error_set(err,
		                       errno == ENOENT ? SKIT_ENOTFOUND
		                       : errno == ELOOP || errno == ENOTDIR
		                               ? SKIT_EUNSAFE
		                               : SKIT_EIO,
		                       0, "%s: %s", name, strerror(errno));
	if (!(flags & SKIT__WALK_LENIENT) && skit__nameset_new(&w.names) < 0) {
		close(fd);
		return skit__error_oom(err);
	}
	rc = walk_dir(&w, fd, 0, 0);
	skit__nameset_free(w.names);
	close(fd);
	return rc;
}

/* ---- creating ---- */

int skit__tree_create(int dirfd, const char *relpath, bool exec,
                      skit_error *err)
{
	char part[SKIT__PACK_MAX_PATH + 1];
	const char *p = relpath, *slash;
	int fd = dirfd, nfd;

	while ((slash = strchr(p, '/'))) {
		size_t n = (size_t)(slash - p);

		if (n >= sizeof(part))
			goto toolong;
		memcpy(part, p, n);
		part[n] = '\0';
		/* Most files share their folder with the one before. */
		nfd = openat(fd, part, DIR_FLAGS);
		if (nfd < 0 && errno == ENOENT) {
			if (mkdirat(fd, part, 0755) < 0 && errno != EEXIST)
				goto fail;
			nfd = openat(fd, part, DIR_FLAGS);
		}
		if (fd != dirfd)
			close(fd);
		if (nfd < 0)
			goto fail_noclose;
		fd = nfd;
		p = slash + 1;
	}
	nfd = openat(fd, p,
	             O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	             exec ? 0755 : 0644);
	if (fd != dirfd)
		close(fd);
	if (nfd < 0)
		goto fail_noclose;
	return nfd;
toolong:
	if (fd != dirfd)
		close(fd);
	return skit__error_set(err, SKIT_ETOOBIG, 0, "%s: path too long",
	                       relpath);
fail:
	if (fd != dirfd)
		close(fd);
fail_noclose:
	return skit__error_set(err, errno == EEXIST ? SKIT_EUNSAFE : SKIT_EIO,
	                       0, "%s: %s", relpath, strerror(errno));
}

/* ---- removing ---- */

static int remove_in(int dfd, const char *name, unsigned int depth,
                     skit_error *err)
{
	char **names;
	size_t n;
	int fd, rc;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return skit__error_set(err, SKIT_EIO, 0, "cannot remove %s: %s",
		                       name, strerror(errno));
	if (depth > 256)
		return skit__error_set(err, SKIT_ETOOBIG, 0,
		                       "cannot remove %s: too deep", name);
	fd = openat(dfd, name, DIR_FLAGS);
	if (fd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "cannot remove %s: %s",
		                       name, strerror(errno));
	/* A 0000 or 0500 folder would keep its entries. */
	(void)fchmod(fd, 0700);
	rc = list_dir(fd, &names, &n);
	if (rc < 0) {
		close(fd);
		return skit__error_set(err, rc, 0, "cannot list %s", name);
	}
	skit__pack_crash_point();
	for (size_t i = 0; i < n && !rc; i++)
		rc = remove_in(fd, names[i], depth + 1, err);
	free_list(names, n);
	close(fd);
	if (!rc && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = skit__error_set(err, SKIT_EIO, 0, "cannot remove %s: %s",
		                     name, strerror(errno));
	return rc;
}

int skit__tree_remove(int dirfd, const char *name, skit_error *err)
{
	return remove_in(dirfd, name, 0, err);
}

/* ---- hashing an installed skill ---- */

static int hash_cb(void *ud, const char *rel, int fd, const struct stat *st,
                   skit_error *err)
{
	struct skit__pskill *s = ud;
	char hex[65];
	uint64_t size;

	if (fd < 0)
		return 0;
	if (skit__sha256_fd(fd, hex, &size) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s: cannot read",
		                       rel);
	if (skit__pskill_add(s, rel, size, (st->st_mode & 0100) != 0, hex) < 0)
		return skit__error_oom(err);
	return 0;
}

int skit__tree_hash(int dirfd, const char *name, struct skit__pskill *s,
                    skit_error *err)
{
	int rc = skit__tree_walk(dirfd, name, SKIT__WALK_LENIENT, NULL, hash_cb,
	                         s, err);

	if (!rc)
		skit__pskill_sort(s);
	return rc;
}
