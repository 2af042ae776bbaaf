/* SPDX-License-Identifier: MIT */
/*
 * pack_links.c - installed skills linked (or copied) into the skills
 * folders of other agents (`skit install --agent`): the lock's "links",
 * the plan for each link, and their part of a transaction.
 *
 * A skill is installed once, in skit's root; an agent that reads only
 * its own folder (Claude Code's `.claude/skills`, Cursor's
 * `~/.cursor/skills`) gets `<dir>/<name>`: a relative symbolic link to
 * `<root>/<name>`, or a copy of the folder. The lock records each one,
 * with `dir` relative to the root when they share a folder above (a
 * project's lock stays true in another clone).
 *
 * What is skit's: a link whose path resolves to `<root>/<name>`, or a
 * folder the lock records as a copy there. Anything else at that place
 * is someone else's and is never replaced nor removed.
 *
 * The transaction (pack_txn.c calls these in order): the journal names
 * each link with a random `aside` name in the agent's folder before
 * anything is made there; the new link or copy is made as `aside`, the
 * journal is written again with its inode, and after the skills have
 * moved it is renamed into place (RENAME_NOREPLACE, or RENAME_EXCHANGE
 * over skit's own older one, which then waits as `aside`). A removal
 * renames the entry to `aside`. Until the lock is replaced everything
 * can be undone by inode, idempotently, as the skills' moves are; after
 * it what waits aside is removed.
 */
#define _GNU_SOURCE /* renameat2 through syscall */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jansson.h>

#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "util/alloc.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

#ifndef RENAME_NOREPLACE
# define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
# define RENAME_EXCHANGE (1 << 1)
#endif

#define MAX_LINKS    64 /* links of one skill in a lock */
#define MAX_AGENT    32
#define ASIDE_PREFIX ".skit-"
#define OLD_SUFFIX   "~" /* the old entry, where exchange is missing */
#define DIR_OPEN     (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#define DIR_NOFOLLOW (DIR_OPEN | O_NOFOLLOW)

/* ---- the lock's "links" ---- */

void skit__plinks_release(struct skit__pskill *s)
{
	for (size_t i = 0; i < s->nlinks; i++) {
		skitx_free(s->links[i].agent);
		skitx_free(s->links[i].dir);
	}
	skitx_free(s->links);
	s->links = NULL;
	s->nlinks = 0;
}

int skit__plinks_set(struct skit__pskill *s, const struct skit__plink *v,
                     size_t n)
{
	struct skit__plink *copy = NULL;

	if (n) {
		copy = skitx_calloc(n, sizeof(*copy));
		if (!copy)
			return SKIT_ENOMEM;
		for (size_t i = 0; i < n; i++) {
			copy[i].agent = skitx_strdup(v[i].agent);
			copy[i].dir = skitx_strdup(v[i].dir);
			copy[i].copy = v[i].copy;
			if (!copy[i].agent || !copy[i].dir) {
				for (size_t k = 0; k <= i; k++) {
					skitx_free(copy[k].agent);
					skitx_free(copy[k].dir);
				}
				skitx_free(copy);
				return SKIT_ENOMEM;
			}
		}
	}
	skit__plinks_release(s);
	s->links = copy;
	s->nlinks = n;
	return 0;
}

static bool agent_ok(const char *a)
{
	size_t n = a ? strlen(a) : 0;

	if (!n || n > MAX_AGENT)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((a[i] >= 'a' && a[i] <= 'z') ||
		      (a[i] >= '0' && a[i] <= '9') || a[i] == '-'))
			return false;
	return true;
}

/* A folder as a lock may hold it: no control byte, not too long. */
static bool dir_ok(const char *d)
{
	size_t n = d ? strlen(d) : 0;

	if (!n || n >= PATH_MAX - 256)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)d[i] < 0x20 || d[i] == 0x7f)
			return false;
	return true;
}

int skit__plinks_parse(struct skit__pskill *s, json_t *arr)
{
	struct skit__plink *v;
	json_t *o;
	size_t i, n;
	int rc = 0;

	if (!arr || json_is_null(arr))
		return 0;
	n = json_array_size(arr);
	if (!json_is_array(arr) || n > MAX_LINKS)
		return SKIT_EINVALID;
	if (!n)
		return 0;
	v = skitx_calloc(n, sizeof(*v));
	if (!v)
		return SKIT_ENOMEM;
	json_array_foreach(arr, i, o)
	{
		const char *agent =
		        json_string_value(json_object_get(o, "agent"));
		const char *dir = json_string_value(json_object_get(o, "dir"));
		json_t *copy = json_object_get(o, "copy");

		if (!agent_ok(agent) || !dir_ok(dir) ||
		    (copy && !json_is_boolean(copy))) {
			rc = SKIT_EINVALID;
			break;
		}
		v[i].agent = (char *)agent;
		v[i].dir = (char *)dir;
		v[i].copy = json_is_true(copy);
	}
	if (!rc)
		rc = skit__plinks_set(s, v, n); /* copies the strings */
	skitx_free(v);
	return rc;
}

json_t *skit__plinks_json(const struct skit__pskill *s)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < s->nlinks; i++)
		if (json_array_append_new(arr,
		                          json_pack("{s:s, s:s, s:b}", "agent",
		                                    s->links[i].agent, "dir",
		                                    s->links[i].dir, "copy",
		                                    s->links[i].copy))) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

/* ---- paths ---- */

/*
 * `path` (relative to the absolute folder `base` when not absolute) as
 * an absolute path without ".", ".." or doubled slashes, worked out on
 * the text alone.
 */
static char *lexical_abs(const char *base, const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *text, *out;
	const char *p;
	int rc = 0;

	text = path[0] == '/' ? skitx_strdup(path)
	                      : skitx_path_join(base, path);
	if (!text)
		return NULL;
	for (p = text; *p && !rc;) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n == 2 && !strncmp(p, "..", 2)) {
			char *slash = b.len ? strrchr(b.ptr, '/') : NULL;

			if (slash)
				skitx_buf_truncate(&b, (size_t)(slash - b.ptr));
		} else if (!(n == 1 && *p == '.')) {
			rc = skitx_buf_printf(&b, "/%.*s", (int)n, p);
		}
		p += n;
	}
	skitx_free(text);
	if (!rc && !skitx_buf_len(&b))
		rc = skitx_buf_puts(&b, "/");
	out = rc < 0 ? NULL : skitx_buf_detach(&b, NULL);
	skitx_buf_release(&b);
	return out;
}

/*
 * The absolute, lexically normal `path` with its longest existing
 * leading part resolved by realpath(): where it really is, whatever
 * links lead there, even when its last folders do not exist yet.
 */
static char *resolve_abs(const char *path)
{
	char *p = skitx_strdup(path), *out = NULL;
	size_t len;

	if (!p)
		return NULL;
	len = strlen(p);
	for (;;) {
		char *real = realpath(len ? p : "/", NULL);

		if (real) {
			const char *rest = path + len;

			out = *rest ? skitx_path_join(real, rest + 1)
			            : skitx_strdup(real);
			free(real);
			break;
		}
		while (len && p[len - 1] != '/')
			len--;
		if (len)
			len--;
		p[len] = '\0';
	}
	skitx_free(p);
	return out;
}

/* The number of leading components `a` and `b` share ("/x/y" and
 * "/x/z" share one), and the offset in each just after them. */
static size_t shared(const char *a, const char *b, size_t *ao, size_t *bo)
{
	size_t n = 0, i = 0, k = 0;

	*ao = *bo = 0;
	for (;;) {
		size_t la, lb;

		while (a[i] == '/')
			i++;
		while (b[k] == '/')
			k++;
		la = strcspn(a + i, "/");
		lb = strcspn(b + k, "/");
		if (!la || la != lb || strncmp(a + i, b + k, la))
			return n;
		i += la;
		k += lb;
		*ao = i;
		*bo = k;
		n++;
	}
}

/*
 * `to` relative to the folder `from` (both absolute and normal):
 * "../../.agents/skills/pdf". When they share no folder above "/", `to`
 * itself.
 */
static char *relative_to(const char *from, const char *to)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	size_t fo, to_off;
	int rc = 0;
	char *out;

	if (!shared(from, to, &fo, &to_off))
		return skitx_strdup(to);
	for (const char *p = from + fo; *p && !rc; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			rc = skitx_buf_puts(&b, "../");
	while (to[to_off] == '/')
		to_off++;
	if (!rc && to[to_off])
		rc = skitx_buf_puts(&b, to + to_off);
	if (!rc && !skitx_buf_len(&b))
		rc = skitx_buf_puts(&b, ".");
	if (!rc && b.ptr[b.len - 1] == '/')
		skitx_buf_truncate(&b, b.len - 1);
	out = rc < 0 ? NULL : skitx_buf_detach(&b, NULL);
	skitx_buf_release(&b);
	return out;
}

char *skit__plink_abs(const char *root, const struct skit__plink *l)
{
	return lexical_abs(root, l->dir);
}

static bool ino_at(int dfd, const char *name, unsigned long long *ino)
{
	struct stat st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (ino)
		*ino = (unsigned long long)st.st_ino;
	return true;
}

/* ---- the plan ---- */

/* Whether `dir`/`name` (a link in the open folder `dfd`) leads to
 * `want`, the skill's folder in the root. */
static bool our_link(int dfd, const char *dir, const char *name,
                     const char *want)
{
	char text[PATH_MAX], *path, *real, *at;
	ssize_t n = readlinkat(dfd, name, text, sizeof(text) - 1);
	bool ours = false;

	if (n < 0)
		return false;
	text[n] = '\0';
	at = lexical_abs(dir, text);
	ours = at && !strcmp(at, want);
	skitx_free(at);
	if (ours)
		return true;
	path = skitx_path_join(dir, name);
	real = path ? realpath(path, NULL) : NULL;
	if (real) {
		char *wreal = realpath(want, NULL);

		ours = wreal && !strcmp(real, wreal);
		free(wreal);
	}
	free(real);
	skitx_free(path);
	return ours;
}

/* One link the plan considers: a recorded one or a target. */
struct want {
	char *dir; /* absolute, resolved */
	const char *agent;
	bool copy;
	bool recorded; /* the lock records it (as `rec_copy`) */
	bool rec_copy;
	bool asked; /* a target of this command */
	/* recorded, and outside the folder above the root's parent (the
	 * project, or the home): a lock that came with a checkout does not
	 * make skit write there */
	bool outside;
};

static void wants_free(struct want *w, size_t n)
{
	for (size_t i = 0; w && i < n; i++)
		skitx_free(w[i].dir);
	skitx_free(w);
}

static char aside_char(unsigned char r)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	return abc[r % 36];
}

/* Append one change to t->links. */
static int add_op(struct skit__txn *t, const struct skit__txn_link *proto)
{
	struct skit__txn_link *v, *l;
	unsigned char rnd[8];

	v = skitx_realloc(t->links, (t->nlinks + 1) * sizeof(*v));
	if (!v)
		return SKIT_ENOMEM;
	t->links = v;
	l = &v[t->nlinks];
	*l = *proto;
	l->dir = skitx_strdup(proto->dir);
	l->name = skitx_strdup(proto->name);
	l->target = proto->target ? skitx_strdup(proto->target) : NULL;
	l->made = NULL;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)(getpid() + i * 7 + t->nlinks);
	memcpy(l->aside, ASIDE_PREFIX, strlen(ASIDE_PREFIX));
	for (size_t i = 0; i < sizeof(rnd); i++)
		l->aside[strlen(ASIDE_PREFIX) + i] = aside_char(rnd[i]);
	l->aside[strlen(ASIDE_PREFIX) + sizeof(rnd)] = '\0';
	t->nlinks++;
	if (!l->dir || !l->name || (proto->target && !l->target))
		return SKIT_ENOMEM;
	return 0;
}

/* What sits at `path` (lstat'ed as `st`), for a message. */
static const char *what_is(const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return "a symbolic link that leads elsewhere";
	if (S_ISDIR(st->st_mode))
		return "a folder skit did not put there";
	return "a file";
}

/* The copy of `name` in the open folder `dfd` against the files the
 * lock recorded: 1 when it matches, 0 when edited, or an error. */
static int copy_matches(int dfd, const char *name,
                        const struct skit__pskill *locked, skit_error *err)
{
	struct skit__pskill have;
	int rc;

	memset(&have, 0, sizeof(have));
	rc = skit__tree_hash(dfd, name, &have, err);
	if (rc >= 0)
		rc = locked && skit__pskill_same_files(&have, locked);
	skit__pskill_release(&have);
	return rc;
}

/* Whether `dir` is inside the folder two levels above `root` (the
 * project of `<project>/.agents/skills`, the home of
 * `~/.agents/skills`). */
static bool under_base(const char *root, const char *dir)
{
	char base[PATH_MAX];
	size_t len;

	snprintf(base, sizeof(base), "%s", root);
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(base, '/');

		if (!slash || slash == base)
			return false;
		*slash = '\0';
	}
	len = strlen(base);
	return !strncmp(dir, base, len) && dir[len] == '/';
}

/* Collect the recorded links and the targets, one per folder. */
static int collect(struct skit__txn *t, const struct skit__pskill *locked,
                   const skit_install_target *targets, size_t ntargets,
                   bool copy, struct want **out, size_t *nout, skit_error *err)
{
	size_t nrec = locked ? locked->nlinks : 0, n = 0;
	struct want *w = skitx_calloc(nrec + ntargets + 1, sizeof(*w));
	char cwd[PATH_MAX];

	*out = w;
	*nout = 0;
	if (!w)
		return skit__error_oom(err);
	if (!getcwd(cwd, sizeof(cwd)))
		snprintf(cwd, sizeof(cwd), "/");
	for (size_t i = 0; i < nrec + ntargets; i++) {
		const struct skit__plink *rl =
		        i < nrec ? &locked->links[i] : NULL;
		const skit_install_target *tg =
		        i < nrec ? NULL : &targets[i - nrec];
		char *lex, *dir;
		size_t k;

		if (tg && (!agent_ok(tg->agent) || !tg->dir || !*tg->dir))
			return skit__error_set(err, SKIT_EUSAGE, 0,
			                       "not a valid agent target: "
			                       "\"%s\"",
			                       tg->agent ? tg->agent : "");
		lex = rl ? skit__plink_abs(t->root, rl)
		         : lexical_abs(cwd, tg->dir);
		dir = lex ? resolve_abs(lex) : NULL;
		skitx_free(lex);
		if (!dir)
			return skit__error_oom(err);
		/* the agent reads skit's root itself: nothing to link */
		if (!strcmp(dir, t->root)) {
			skitx_free(dir);
			continue;
		}
		for (k = 0; k < n && strcmp(w[k].dir, dir); k++)
			;
		if (k == n) {
			w[n++].dir = dir;
			*nout = n;
		} else {
			skitx_free(dir);
		}
		if (rl) {
			w[k].outside = !under_base(t->root, w[k].dir);
			w[k].agent = rl->agent;
			w[k].copy = rl->copy;
			w[k].recorded = true;
			w[k].rec_copy = rl->copy;
		} else {
			w[k].agent = tg->agent;
			w[k].copy = copy;
			w[k].asked = true;
		}
	}
	return 0;
}

int skit__links_plan(struct skit__txn *t, const char *name,
                     const struct skit__pskill *locked,
                     const skit_install_target *targets, size_t ntargets,
                     bool copy, bool staged, bool changed, bool overwrite,
                     struct skit__pskill *out, skit_error *err)
{
	struct skit__plink *rec = NULL;
	struct want *w = NULL;
	size_t nw = 0, nrec = 0;
	char *want = skitx_path_join(t->root, name);
	int rc;

	if (!want)
		return skit__error_oom(err);
	rc = collect(t, locked, targets, ntargets, copy, &w, &nw, err);
	if (!rc && nw && !(rec = skitx_calloc(nw, sizeof(*rec))))
		rc = skit__error_oom(err);
	for (size_t i = 0; !rc && i < nw; i++) {
		struct skit__txn_link op;
		struct stat st;
		bool put = false, had_old = false, keep = true;
		int dfd = open(w[i].dir, DIR_OPEN);

		memset(&op, 0, sizeof(op));
		if (dfd < 0 && errno != ENOENT) {
			rc = skit__error_set(
			        err, errno == ENOTDIR ? SKIT_EEXISTS : SKIT_EIO,
			        0, "%s: %s", w[i].dir, strerror(errno));
			break;
		}
		if (w[i].outside && !w[i].asked) {
			/* followed only as far as checking it */
			keep = dfd >= 0 &&
			       fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) ==
			               0 &&
			       (S_ISLNK(st.st_mode)
			                ? our_link(dfd, w[i].dir, name, want)
			                : w[i].rec_copy);
		} else if (dfd < 0 ||
		           fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			put = true; /* missing: made (again) */
		} else if (S_ISLNK(st.st_mode) &&
		           our_link(dfd, w[i].dir, name, want)) {
			put = had_old = w[i].copy;
		} else if (S_ISDIR(st.st_mode) && w[i].recorded &&
		           w[i].rec_copy) {
			int same = copy_matches(dfd, name, locked, err);

			if (same < 0) {
				rc = same;
			} else if (!same && !overwrite) {
				rc = skit__error_set(
				        err, SKIT_EEXISTS, 0,
				        "%s/%s: the copy skit made for %s was "
				        "edited; nothing was changed; --force "
				        "replaces it",
				        w[i].dir, name, w[i].agent);
			} else {
				put = had_old = !w[i].copy || changed || !same;
			}
		} else if (w[i].asked) {
			rc = skit__error_set(
			        err, SKIT_EEXISTS, 0,
			        "%s/%s exists and is not skit's (%s); nothing "
			        "was installed; move it away, or leave out "
			        "--agent %s",
			        w[i].dir, name, what_is(&st), w[i].agent);
		} else {
			/* recorded, but someone else's now: forgotten */
			keep = false;
		}
		if (dfd >= 0)
			close(dfd);
		if (rc < 0)
			break;
		if (put) {
			char *path = skitx_path_join(w[i].dir, name);

			op.copy = w[i].copy;
			op.had_old = had_old;
			op.staged = staged;
			op.dir = w[i].dir;
			op.name = (char *)name;
			op.target = path && !w[i].copy
			                    ? relative_to(w[i].dir, want)
			                    : NULL;
			if (!path || (!w[i].copy && !op.target) ||
			    add_op(t, &op) < 0)
				rc = skit__error_oom(err);
			skitx_free(op.target);
			skitx_free(path);
		}
		if (!rc && keep) {
			rec[nrec].agent = (char *)w[i].agent;
			rec[nrec].dir = relative_to(t->root, w[i].dir);
			rec[nrec].copy = w[i].copy;
			if (!rec[nrec++].dir)
				rc = skit__error_oom(err);
		}
	}
	if (!rc && skit__plinks_set(out, rec, nrec) < 0)
		rc = skit__error_oom(err);
	for (size_t i = 0; i < nrec; i++)
		skitx_free(rec[i].dir);
	skitx_free(rec);
	wants_free(w, nw);
	skitx_free(want);
	return rc;
}

int skit__links_plan_remove(struct skit__txn *t,
                            const struct skit__pskill *locked, bool force,
                            skit_error *err)
{
	char *want = skitx_path_join(t->root, locked->name);
	int rc = want ? 0 : skit__error_oom(err);

	for (size_t i = 0; !rc && i < locked->nlinks; i++) {
		const struct skit__plink *rl = &locked->links[i];
		char *lex = skit__plink_abs(t->root, rl);
		char *dir = lex ? resolve_abs(lex) : NULL;
		struct skit__txn_link op;
		struct stat st;
		bool take = false;
		int dfd = dir ? open(dir, DIR_OPEN) : -1;

		skitx_free(lex);
		if (!dir) {
			rc = skit__error_oom(err);
			break;
		}
		memset(&op, 0, sizeof(op));
		if (dfd >= 0 &&
		    fstatat(dfd, locked->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			if (S_ISLNK(st.st_mode))
				take = our_link(dfd, dir, locked->name, want);
			else if (S_ISDIR(st.st_mode) && rl->copy &&
			         under_base(t->root, dir)) {
				int same = copy_matches(dfd, locked->name,
				                        locked, err);

				if (same < 0)
					rc = same;
				else if (!same && !force)
					rc = skit__error_set(
					        err, SKIT_EEXISTS, 0,
					        "%s/%s: the copy skit made for "
					        "%s was edited; nothing was "
					        "removed; --force removes it",
					        dir, locked->name, rl->agent);
				else
					take = true;
			}
			op.ino = (unsigned long long)st.st_ino;
		}
		if (dfd >= 0)
			close(dfd);
		if (!rc && take) {
			op.remove = true;
			op.copy = rl->copy;
			op.dir = dir;
			op.name = locked->name;
			if (add_op(t, &op) < 0)
				rc = skit__error_oom(err);
		}
		skitx_free(dir);
	}
	skitx_free(want);
	return rc;
}

int skit__link_state(const char *root, const struct skit__pskill *s,
                     const struct skit__plink *l, char **path, skit_error *err)
{
	char *lex = skit__plink_abs(root, l);
	char *dir = lex ? resolve_abs(lex) : NULL;
	char *want = skitx_path_join(root, s->name);
	struct stat st;
	int dfd, rc = 0;

	skitx_free(lex);
	*path = dir ? skitx_path_join(dir, s->name) : NULL;
	if (!*path || !want) {
		rc = skit__error_oom(err);
		goto out;
	}
	dfd = open(dir, DIR_OPEN);
	if (dfd >= 0 && fstatat(dfd, s->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			rc = our_link(dfd, dir, s->name, want);
		else if (S_ISDIR(st.st_mode) && l->copy)
			rc = copy_matches(dfd, s->name, s, err);
	}
	if (dfd >= 0)
		close(dfd);
out:
	skitx_free(dir);
	skitx_free(want);
	return rc;
}

/* ---- the journal ---- */

json_t *skit__links_journal(const struct skit__txn *t)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < t->nlinks; i++) {
		const struct skit__txn_link *l = &t->links[i];

		if (json_array_append_new(
		            arr,
		            json_pack("{s:s, s:b, s:b, s:s, s:s, s:s, s:I, "
		                      "s:s?}",
		                      "op", l->remove ? "remove" : "put",
		                      "copy", l->copy, "had_old", l->had_old,
		                      "dir", l->dir, "name", l->name, "aside",
		                      l->aside, "ino", (json_int_t)l->ino,
		                      "made", l->made))) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

/* ---- carrying it out ---- */

static int rename2(int ofd, const char *old, int nfd, const char *new,
                   unsigned int flags)
{
	if ((flags & RENAME_EXCHANGE) && skit__pack_no_exchange) {
		errno = EINVAL;
		return -1;
	}
#ifdef SYS_renameat2
	return (int)syscall(SYS_renameat2, ofd, old, nfd, new, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The highest folder of `dir` that does not exist, or NULL. */
static char *highest_missing(const char *dir)
{
	char *p = skitx_strdup(dir), *made = NULL;
	size_t len;

	if (!p)
		return NULL;
	len = strlen(p);
	while (len > 1 && !skitx_fs_exists(p)) {
		skitx_free(made);
		made = skitx_strdup(p);
		while (len > 1 && p[len - 1] != '/')
			len--;
		if (len > 1)
			len--;
		p[len] = '\0';
	}
	skitx_free(p);
	return made;
}

struct copying {
	int dstfd;
	skit_error *err;
};

static int copy_cb(void *ud, const char *rel, int fd, const struct stat *st,
                   skit_error *err)
{
	struct copying *c = ud;
	char buf[65536];
	ssize_t n;
	int out, rc = 0;

	if (fd < 0) {
		if (S_ISDIR(st->st_mode) && mkdirat(c->dstfd, rel, 0755) < 0 &&
		    errno != EEXIST)
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
			                       strerror(errno));
		return 0; /* links and special files are not copied */
	}
	out = skit__tree_create(c->dstfd, rel, (st->st_mode & 0100) != 0, err);
	if (out < 0)
		return out;
	while (!rc && (n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
			                     strerror(errno));
			break;
		}
		if (skit__pack_fault() ||
		    skitx_fs_write_all(out, buf, (size_t)n) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
			                     strerror(errno));
	}
	if (!rc && (skit__pack_fault() || fsync(out) < 0))
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", rel,
		                     strerror(errno));
	close(out);
	return rc;
}

/* Make the copy of the skill as `aside` in the open folder `dfd`. */
static int make_copy(struct skit__txn *t, const struct skit__txn_link *l,
                     int dfd, skit_error *err)
{
	char src[SKIT__PACK_MAX_COMPONENT + 8];
	struct copying c;
	int rc;

	if (mkdirat(dfd, l->aside, 0755) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", l->dir,
		                       l->aside, strerror(errno));
	c.dstfd = openat(dfd, l->aside, DIR_NOFOLLOW);
	if (c.dstfd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", l->dir,
		                       l->aside, strerror(errno));
	c.err = err;
	snprintf(src, sizeof(src), "new/%s", l->name);
	rc = skit__tree_walk(l->staged ? t->stagefd : t->rootfd,
	                     l->staged ? src : l->name, SKIT__WALK_LENIENT,
	                     NULL, copy_cb, &c, err);
	if (!rc && fsync(c.dstfd) < 0)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", l->dir,
		                     l->aside, strerror(errno));
	close(c.dstfd);
	return rc;
}

int skit__links_prepare(struct skit__txn *t, skit_error *err)
{
	for (size_t i = 0; i < t->nlinks; i++) {
		struct skit__txn_link *l = &t->links[i];
		int dfd, rc = 0;

		if (l->remove)
			continue;
		l->made = highest_missing(l->dir);
		if (skitx_fs_mkdir_p(l->dir, 0755) < 0)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "cannot create %s: %s", l->dir,
			                       strerror(errno));
		dfd = open(l->dir, DIR_OPEN);
		if (dfd < 0)
			return skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                       l->dir, strerror(errno));
		if (l->copy)
			rc = make_copy(t, l, dfd, err);
		else if (symlinkat(l->target, dfd, l->aside) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s",
			                     l->dir, l->name, strerror(errno));
		if (!rc && !ino_at(dfd, l->aside, &l->ino))
			rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s",
			                     l->dir, l->aside, strerror(errno));
		if (!rc && (skit__pack_fault() || fsync(dfd) < 0))
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", l->dir,
			                     strerror(errno));
		close(dfd);
		if (rc < 0)
			return rc;
		skit__pack_crash_point();
	}
	return 0;
}

static int apply_one(struct skit__txn_link *l, int dfd)
{
	char old[sizeof(l->aside) + 2];

	if (l->remove)
		return renameat(dfd, l->name, dfd, l->aside);
	if (!l->had_old)
		return rename2(dfd, l->aside, dfd, l->name, RENAME_NOREPLACE);
	if (rename2(dfd, l->aside, dfd, l->name, RENAME_EXCHANGE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* No exchange here: the old one aside first, then the new in. */
	snprintf(old, sizeof(old), "%s" OLD_SUFFIX, l->aside);
	if (renameat(dfd, l->name, dfd, old) < 0)
		return -1;
	skit__pack_crash_point();
	return renameat(dfd, l->aside, dfd, l->name);
}

int skit__links_apply(struct skit__txn *t, skit_error *err)
{
	for (size_t i = 0; i < t->nlinks; i++) {
		struct skit__txn_link *l = &t->links[i];
		int dfd = open(l->dir, DIR_OPEN), rc = 0;

		if (dfd < 0 || apply_one(l, dfd) < 0)
			rc = skit__error_set(
			        err, errno == EEXIST ? SKIT_EEXISTS : SKIT_EIO,
			        0, "cannot %s %s/%s: %s",
			        l->remove ? "remove" : "place", l->dir, l->name,
			        strerror(errno));
		else if (skit__pack_fault() || fsync(dfd) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", l->dir,
			                     strerror(errno));
		if (dfd >= 0)
			close(dfd);
		if (rc < 0)
			return rc;
		skit__pack_crash_point();
	}
	return 0;
}

/*
 * Put one link back from whatever state it reached. Idempotent, like
 * the skills' moves: the new entry is known by its inode, and skit's
 * own older one waits as `aside` (exchanged) or `aside~` (where the
 * file system cannot exchange).
 */
static void undo_one(const struct skit__txn_link *l)
{
	char old[sizeof(l->aside) + 2];
	unsigned long long ino;
	const char *back = NULL;
	int dfd = open(l->dir, DIR_OPEN);

	if (dfd < 0)
		return;
	snprintf(old, sizeof(old), "%s" OLD_SUFFIX, l->aside);
	if (l->remove) {
		if (!ino_at(dfd, l->name, NULL) &&
		    ino_at(dfd, l->aside, &ino) && ino == l->ino) {
			(void)renameat(dfd, l->aside, dfd, l->name);
			skit__pack_crash_point();
		}
		goto out;
	}
	if (l->had_old) {
		if (ino_at(dfd, l->aside, &ino) && ino != l->ino)
			back = l->aside;
		else if (ino_at(dfd, old, NULL))
			back = old;
	}
	if (l->ino && ino_at(dfd, l->name, &ino) && ino == l->ino) {
		if (back &&
		    rename2(dfd, back, dfd, l->name, RENAME_EXCHANGE) == 0) {
			skit__pack_crash_point();
			back = NULL; /* the new one now waits there */
		} else {
			(void)skit__tree_remove(dfd, l->name, NULL);
			skit__pack_crash_point();
		}
	}
	if (back && !ino_at(dfd, l->name, NULL)) {
		(void)renameat(dfd, back, dfd, l->name);
		skit__pack_crash_point();
	}
	/* What is left aside is the new one, never (or no longer) in
	 * place; before the journal knew its inode nothing had moved. */
	if (!l->had_old || !l->ino ||
	    (ino_at(dfd, l->aside, &ino) && ino == l->ino))
		(void)skit__tree_remove(dfd, l->aside, NULL);
out:
	(void)fsync(dfd);
	close(dfd);
	if (l->made && !l->remove) {
		/* the folders the commit made go again, while empty */
		char *p = skitx_strdup(l->dir);
		size_t mlen = strlen(l->made);

		while (p && strlen(p) >= mlen && rmdir(p) == 0) {
			char *slash = strrchr(p, '/');

			if (!strcmp(p, l->made) || !slash || slash == p)
				break;
			*slash = '\0';
		}
		skitx_free(p);
	}
}

/* After the commit point: skit's older entries waiting aside go. */
static void finish_one(const struct skit__txn_link *l)
{
	char old[sizeof(l->aside) + 2];
	int dfd = open(l->dir, DIR_OPEN);

	if (dfd < 0)
		return;
	snprintf(old, sizeof(old), "%s" OLD_SUFFIX, l->aside);
	(void)skit__tree_remove(dfd, l->aside, NULL);
	(void)skit__tree_remove(dfd, old, NULL);
	close(dfd);
}

void skit__links_undo(struct skit__txn *t)
{
	for (size_t i = t->nlinks; i-- > 0;)
		undo_one(&t->links[i]);
}

void skit__links_finish(struct skit__txn *t)
{
	for (size_t i = 0; i < t->nlinks; i++)
		finish_one(&t->links[i]);
}

void skit__txn_links_release(struct skit__txn *t)
{
	for (size_t i = 0; i < t->nlinks; i++) {
		skitx_free(t->links[i].dir);
		skitx_free(t->links[i].name);
		skitx_free(t->links[i].target);
		skitx_free(t->links[i].made);
	}
	skitx_free(t->links);
	t->links = NULL;
	t->nlinks = 0;
}

/* A journal's link, checked: the journal lives in skit's own staging
 * folder (0700), but a name that is not a skill's or an aside that is
 * not skit's is never acted on. */
static bool journal_link(json_t *o, struct skit__txn_link *l)
{
	const char *op = json_string_value(json_object_get(o, "op"));
	const char *dir = json_string_value(json_object_get(o, "dir"));
	const char *name = json_string_value(json_object_get(o, "name"));
	const char *aside = json_string_value(json_object_get(o, "aside"));
	const char *made = json_string_value(json_object_get(o, "made"));

	memset(l, 0, sizeof(*l));
	if (!op || !dir || dir[0] != '/' || !name ||
	    !skit_skill_name_ok(name) || !aside ||
	    strncmp(aside, ASIDE_PREFIX, strlen(ASIDE_PREFIX)) ||
	    strlen(aside) >= sizeof(l->aside) || strchr(aside, '/') ||
	    (made && made[0] != '/'))
		return false;
	l->remove = !strcmp(op, "remove");
	l->copy = json_is_true(json_object_get(o, "copy"));
	l->had_old = json_is_true(json_object_get(o, "had_old"));
	l->dir = (char *)dir;
	l->name = (char *)name;
	l->made = (char *)made;
	memcpy(l->aside, aside, strlen(aside) + 1);
	l->ino = (unsigned long long)json_integer_value(
	        json_object_get(o, "ino"));
	return true;
}

void skit__links_recover(json_t *arr, bool committed)
{
	for (size_t i = json_array_size(arr); i-- > 0;) {
		struct skit__txn_link l;

		if (!journal_link(json_array_get(arr, i), &l))
			continue;
		if (committed)
			finish_one(&l);
		else
			undo_one(&l);
	}
}
