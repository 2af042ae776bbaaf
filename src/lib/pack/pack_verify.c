/* SPDX-License-Identifier: MIT */
/*
 * pack_verify.c - skit_verify(): an installed root re-hashed against its
 * lock file, each difference a finding (a changed, missing or extra
 * file, a skill missing from the root or the lock). On top of the lock
 * (pack_lock.c), the tree walk (pack_tree.c) and the root lock
 * (pack_txn.c).
 */
#include <errno.h>
#include <fcntl.h>
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

/* ---- verify ---- */

struct finding {
	char *skill, *path;
	skit_verify_kind kind;
};

struct skit_verify_result {
	struct finding *f;
	skit_verify_finding *view;
	size_t n, cap, skills;
};

static int add_finding(struct skit_verify_result *r, const char *skill,
                       const char *path, skit_verify_kind kind)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct finding *v = skitx_realloc(r->f, cap * sizeof(*v));

		if (!v)
			return SKIT_ENOMEM;
		r->f = v;
		r->cap = cap;
	}
	r->f[r->n].skill = skitx_strdup(skill);
	r->f[r->n].path = skitx_strdup(path);
	r->f[r->n].kind = kind;
	if (!r->f[r->n].skill || !r->f[r->n].path) {
		skitx_free(r->f[r->n].skill);
		skitx_free(r->f[r->n].path);
		return SKIT_ENOMEM;
	}
	r->n++;
	return 0;
}

struct vwalk {
	struct skit_verify_result *r;
	const char *skill;
	struct skit__pskill found;
};

static int verify_cb(void *ud, const char *rel, int fd, const struct stat *st,
                     skit_error *err)
{
	struct vwalk *v = ud;
	char hex[65];
	uint64_t size;

	if ((st->st_mode & 07022) || (fd < 0 && !S_ISDIR(st->st_mode))) {
		if (add_finding(v->r, v->skill, rel, SKIT_VERIFY_UNSAFE) < 0)
			return skit__error_oom(err);
		if (fd < 0)
			return 0;
	}
	if (fd < 0)
		return 0;
	if (skit__sha256_fd(fd, hex, &size) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s/%s: cannot read",
		                       v->skill, rel);
	if (skit__pskill_add(&v->found, rel, size, (st->st_mode & 0100) != 0,
	                     hex) < 0)
		return skit__error_oom(err);
	return 0;
}

/* Compare what is on disk with the lock's record of one skill. */
static int verify_one(struct skit_verify_result *r, int rootfd,
                      const struct skit__pskill *want, skit_error *err)
{
	struct vwalk v = { r, want->name, { 0 } };
	struct stat st;
	size_t i = 0, k = 0;
	int rc = 0;

	r->skills++;
	if (fstatat(rootfd, want->name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return add_finding(r, want->name, "",
		                   errno == ENOENT ? SKIT_VERIFY_MISSING
		                                   : SKIT_VERIFY_UNSAFE) < 0
		               ? skit__error_oom(err)
		               : 0;
	if (!S_ISDIR(st.st_mode) || (st.st_mode & 07022))
		if (add_finding(r, want->name, "", SKIT_VERIFY_UNSAFE) < 0)
			return skit__error_oom(err);
	if (!S_ISDIR(st.st_mode))
		return 0;
	rc = skit__tree_walk(rootfd, want->name, SKIT__WALK_LENIENT, NULL,
	                     verify_cb, &v, err);
	skit__pskill_sort(&v.found);
	while (!rc && (i < want->nfiles || k < v.found.nfiles)) {
		const struct skit__pfile *a =
		        i < want->nfiles ? &want->files[i] : NULL;
		const struct skit__pfile *b =
		        k < v.found.nfiles ? &v.found.files[k] : NULL;
		int c = !a ? 1 : !b ? -1 : strcmp(a->path, b->path);

		if (c < 0) {
			rc = add_finding(r, want->name, a->path,
			                 SKIT_VERIFY_MISSING);
			i++;
		} else if (c > 0) {
			rc = add_finding(r, want->name, b->path,
			                 SKIT_VERIFY_ADDED);
			k++;
		} else {
			if (a->size != b->size || a->exec != b->exec ||
			    strcmp(a->sha256, b->sha256))
				rc = add_finding(r, want->name, a->path,
				                 SKIT_VERIFY_CHANGED);
			i++;
			k++;
		}
		if (rc < 0)
			rc = skit__error_oom(err);
	}
	skit__pskill_release(&v.found);
	return rc;
}

/* The links (or copies) the lock records in agents' folders: each must
 * be in place and lead to the skill (a copy: hold its files). */
static int verify_links(struct skit_verify_result *r, const char *root,
                        const struct skit__pskill *s, skit_error *err)
{
	int rc = 0;

	for (size_t k = 0; !rc && k < s->nlinks; k++) {
		char *path = NULL;

		rc = skit__link_state(root, s, &s->links[k], &path, err);
		if (rc == 0 &&
		    add_finding(r, s->name, path, SKIT_VERIFY_LINK) < 0)
			rc = skit__error_oom(err);
		skitx_free(path);
		if (rc > 0)
			rc = 0;
	}
	return rc;
}

int skit_verify(skit_verify_result **out, const char *root, const char *name,
                skit_error *err)
{
	struct skit__txn t;
	struct skit_verify_result *r;
	int rc;

	*out = NULL;
	r = skitx_calloc(1, sizeof(*r));
	if (!r)
		return skit__error_oom(err);
	rc = skit__txn_open(&t, root, false, err);
	if (rc < 0) {
		skitx_free(r);
		return rc;
	}
	if (name && !skit__lock_find(&t.lock, name)) {
		rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
		                     "%s is not in %s/%s", name, root,
		                     SKIT__LOCK_FILE);
	}
	for (size_t i = 0; !rc && i < t.lock.n; i++)
		if (!name || !strcmp(t.lock.skills[i].name, name)) {
			rc = verify_one(r, t.rootfd, &t.lock.skills[i], err);
			if (!rc)
				rc = verify_links(r, t.root, &t.lock.skills[i],
				                  err);
		}
	skit__txn_close(&t);
	if (!rc) {
		r->view = skitx_calloc(r->n ? r->n : 1, sizeof(*r->view));
		if (!r->view)
			rc = skit__error_oom(err);
		for (size_t i = 0; !rc && i < r->n; i++) {
			r->view[i].skill = r->f[i].skill;
			r->view[i].path = r->f[i].path;
			r->view[i].kind = r->f[i].kind;
		}
	}
	if (rc < 0) {
		skit_verify_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

size_t skit_verify_count(const skit_verify_result *r)
{
	return r ? r->n : 0;
}

const skit_verify_finding *skit_verify_at(const skit_verify_result *r, size_t i)
{
	return r && i < r->n ? &r->view[i] : NULL;
}

size_t skit_verify_skills(const skit_verify_result *r)
{
	return r ? r->skills : 0;
}

void skit_verify_free(skit_verify_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		skitx_free(r->f[i].skill);
		skitx_free(r->f[i].path);
	}
	skitx_free(r->f);
	skitx_free(r->view);
	skitx_free(r);
}
