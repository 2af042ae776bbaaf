/* SPDX-License-Identifier: MIT */
/*
 * protect.c - the protected paths of a run, and the check write_file
 * makes against them (see protect.h).
 *
 * Two checks, because either alone can be fooled. By name: the target's
 * absolute spelling (the project folder resolved, then the model's
 * relative path, which write_file walks without following links) against
 * every protected path in both its written and its resolved spelling;
 * this runs before any folder is created. By identity: once the parent
 * folder is open, its device and inode and those of each ancestor are
 * compared with each existing protected folder, so a second spelling of
 * the same folder (a bind mount, a case-folding file system, a link in
 * the protected path itself) does not get past.
 */
#include "common.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/agent/agent_int.h"
#include "lib/agent/protect.h"
#include "lib/agent/subagent.h"
#include "lib/core/userconfig.h"
#include "util/buf.h"
#include "util/path.h"

/* Ancestors looked at above a write_file target; deeper trees are
 * refused rather than half-checked. */
#define MAX_DEPTH 4096

static const char *env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * `abs` with the longest prefix that exists resolved by realpath(3) and
 * the rest appended as written. skitx_malloc'd; NULL on out-of-memory.
 */
static char *resolve_existing(const char *abs)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *copy = skitx_strdup(abs), *cut, *real = NULL;
	size_t n;

	if (!copy)
		return NULL;
	n = strlen(copy);
	for (;;) {
		real = realpath(n ? copy : "/", NULL);
		if (real || !n)
			break;
		cut = strrchr(copy, '/');
		if (!cut)
			break;
		n = (size_t)(cut - copy);
		*cut = '\0';
	}
	if (real) {
		int rc = skitx_buf_puts(&b, real);

		if (!rc && abs[n])
			rc = skitx_buf_puts(
			        &b, strcmp(real, "/") ? abs + n : abs + n + 1);
		free(real); /* realpath(3) allocates with malloc */
		skitx_free(copy);
		if (rc) {
			skitx_buf_release(&b);
			return NULL;
		}
		return skitx_buf_detach(&b, NULL);
	}
	skitx_free(copy);
	return skitx_strdup(abs);
}

static bool listed(const struct skitx_vec *v, const char *s)
{
	for (size_t i = 0; i < v->len; i++)
		if (!strcmp(v->items[i], s))
			return true;
	return false;
}

static int push_owned(struct skitx_vec *out, char *s)
{
	if (!s)
		return SKIT_ENOMEM;
	if (listed(out, s)) {
		skitx_free(s);
		return 0;
	}
	if (skitx_vec_push(out, s) < 0) {
		skitx_free(s);
		return SKIT_ENOMEM;
	}
	return 0;
}

/* Add `dir`/`rel` (rel may be NULL), made absolute and clean, and its
 * resolved spelling. */
static int add(struct skitx_vec *out, const char *dir, const char *rel)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *abs;
	int rc;

	if (!dir)
		return 0;
	rc = rel ? skitx_buf_printf(&b, "%s/%s", dir, rel)
	         : skitx_buf_puts(&b, dir);
	if (rc) {
		skitx_buf_release(&b);
		return SKIT_ENOMEM;
	}
	abs = skitx_path_absolute(b.ptr);
	skitx_buf_release(&b);
	if (!abs)
		return SKIT_ENOMEM;
	rc = push_owned(out, resolve_existing(abs));
	if (!rc)
		rc = push_owned(out, abs);
	else
		skitx_free(abs);
	return rc;
}

int skit__protected_paths(struct skitx_vec *out, const struct skit_agent *a)
{
	static const char *const in_project[] = {
		".git",           ".agents/skills",    ".agent/skills",
		".claude/skills", ".agents/skit.json", ".agents/runs",
	};
	const char *home = env("HOME"), *xdg = env("XDG_CONFIG_HOME");
	const char *skit_home = env("SKIT_HOME");
	int rc = 0;

	assert(out && a);
	for (size_t i = 0; !rc && i < SKIT_ARRAY_SIZE(in_project); i++)
		rc = add(out, a->project_dir, in_project[i]);
	if (!rc && a->audit) {
		/* the trail's root: this run's folder and every other run */
		char *runs = skitx_path_dirname(skit_audit_dir(a->audit));

		rc = runs ? add(out, runs, NULL) : SKIT_ENOMEM;
		skitx_free(runs);
	}
	/* a subagent's run lies in its parent's: the parent's root too */
	if (!rc && skit__subagent_parent(a))
		rc = skit__protected_paths(out, skit__subagent_parent(a));
	/*
	 * The user config holds the trusted folders and the saved
	 * approvals: a program that wrote it could trust any folder or
	 * approve any script for the next run. Both of its homes are
	 * protected (a run without XDG_CONFIG_HOME reads the second), and
	 * the file itself, whose resolved spelling is where a linked config
	 * (dotfiles) really lives and is written.
	 */
	if (!rc && xdg && xdg[0] == '/')
		rc = add(out, xdg, "skit");
	if (!rc && home)
		rc = add(out, home, ".config/skit");
	if (!rc) {
		char *cfg = NULL;

		rc = skit__user_config_path(&cfg);
		if (!rc && cfg)
			rc = add(out, cfg, NULL);
		skitx_free(cfg);
	}
	if (!rc && home)
		rc = add(out, home, ".agents/skills");
	if (!rc && skit_home)
		rc = add(out, skit_home, "skills");
	for (size_t i = 0;
	     !rc && a->reg && i < skit_registry_root_count(a->reg); i++) {
		const char *source, *path;
		bool exists;
		size_t skills;

		skit_registry_root(a->reg, i, &source, &path, &exists, &skills);
		rc = add(out, path, NULL);
	}
	return rc;
}

void skit__protected_paths_release(struct skitx_vec *v)
{
	for (size_t i = 0; i < v->len; i++)
		skitx_free(v->items[i]);
	skitx_vec_release(v);
}

const char *skit__protected_match(const struct skitx_vec *list, const char *abs)
{
	for (size_t i = 0; i < list->len; i++) {
		const char *p = list->items[i];
		size_t n = strlen(p);

		if (!strcmp(p, "/"))
			return p; /* protecting "/" protects everything */
		if (!strncmp(abs, p, n) && (!abs[n] || abs[n] == '/'))
			return p;
	}
	return NULL;
}

static const char *refuse(char *why, size_t cap, const char *what)
{
	snprintf(why, cap, "%s", what);
	return why;
}

/* Does `rel` hold a `.git` component (any repository's, in any case)? */
static bool has_git_component(const char *rel)
{
	const char *c = rel;

	while (*c) {
		size_t n = strcspn(c, "/");

		if (n == 4 && !strncasecmp(c, ".git", 4))
			return true;
		c += n;
		while (*c == '/')
			c++;
	}
	return false;
}

const char *skit__protect_check_rel(const struct skit_agent *a, const char *rel,
                                    char *why, size_t cap)
{
	struct skitx_vec list = SKITX_VEC_INIT;
	struct skitx_buf b = SKITX_BUF_INIT;
	const char *hit = NULL, *res = NULL;
	char *proj = NULL, *abs = NULL;

	if (has_git_component(rel))
		return refuse(why, cap, ".git");
	proj = resolve_existing(a->project_dir);
	if (!proj || skitx_buf_printf(&b, "%s/%s", proj, rel) ||
	    !(abs = skitx_path_absolute(b.ptr)) ||
	    skit__protected_paths(&list, a)) {
		res = refuse(why, cap, "(out of memory)");
		goto out;
	}
	hit = skit__protected_match(&list, abs);
	if (hit)
		res = refuse(why, cap, hit);
out:
	skit__protected_paths_release(&list);
	skitx_buf_release(&b);
	skitx_free(proj);
	skitx_free(abs);
	return res;
}

const char *skit__protect_check_at(const struct skit_agent *a, int dirfd,
                                   const char *base, char *why, size_t cap)
{
	struct skitx_vec list = SKITX_VEC_INIT;
	struct stat *ids = NULL, here, up, target;
	const char *res = NULL;
	bool have_target;
	int fd = -1;

	if (skit__protected_paths(&list, a) ||
	    !(ids = skitx_calloc(list.len ? list.len : 1, sizeof(*ids)))) {
		res = refuse(why, cap, "(out of memory)");
		goto out;
	}
	for (size_t i = 0; i < list.len; i++)
		if (stat(list.items[i], &ids[i]) < 0)
			ids[i].st_nlink = 0; /* missing: nothing to compare */
	have_target = !fstatat(dirfd, base, &target, AT_SYMLINK_NOFOLLOW);
	for (size_t i = 0; have_target && i < list.len; i++)
		if (ids[i].st_nlink && !S_ISDIR(ids[i].st_mode) &&
		    ids[i].st_dev == target.st_dev &&
		    ids[i].st_ino == target.st_ino) {
			res = refuse(why, cap, list.items[i]);
			goto out;
		}
	fd = dup(dirfd);
	if (fd < 0 || fstat(fd, &here) < 0) {
		res = refuse(why, cap, "(the folder cannot be examined)");
		goto out;
	}
	for (unsigned int depth = 0;; depth++) {
		int parent;

		for (size_t i = 0; i < list.len; i++) {
			if (!ids[i].st_nlink || ids[i].st_dev != here.st_dev)
				continue;
			if (S_ISDIR(ids[i].st_mode) &&
			    ids[i].st_ino == here.st_ino) {
				res = refuse(why, cap, list.items[i]);
				goto out;
			}
		}
		if (depth == MAX_DEPTH) {
			res = refuse(why, cap, "(the folder is too deep)");
			goto out;
		}
		parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (parent < 0 || fstat(parent, &up) < 0) {
			if (parent >= 0)
				close(parent);
			res = refuse(why, cap,
			             "(the folder cannot be examined)");
			goto out;
		}
		close(fd);
		fd = parent;
		if (up.st_dev == here.st_dev && up.st_ino == here.st_ino)
			break; /* the root is its own parent */
		here = up;
	}
	/* A protected file that does not exist yet is named, not linked:
	 * compare its folder and name with the target's. */
	for (size_t i = 0; i < list.len; i++) {
		const char *p = list.items[i], *name = strrchr(p, '/');
		struct stat pd;
		char *dir;

		if (ids[i].st_nlink || !name || strcmp(name + 1, base))
			continue;
		dir = skitx_path_dirname(p);
		if (!dir) {
			res = refuse(why, cap, "(out of memory)");
			goto out;
		}
		if (!stat(dir, &pd) && fstat(dirfd, &here) == 0 &&
		    pd.st_dev == here.st_dev && pd.st_ino == here.st_ino)
			res = refuse(why, cap, p);
		skitx_free(dir);
		if (res)
			goto out;
	}
out:
	if (fd >= 0)
		close(fd);
	skitx_free(ids);
	skit__protected_paths_release(&list);
	return res;
}
