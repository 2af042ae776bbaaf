/* SPDX-License-Identifier: MIT */
/*
 * pack_uninstall.c - skit_uninstall() and friends: the named skills out
 * of a root and its lock, with the links (and copies) the lock records
 * in agents' folders, in one transaction (pack_txn.c, pack_links.c).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "util/alloc.h"

/*
 * One transaction for every name: all are checked (a skill name, not
 * given twice, installed as a folder, a link or a lock entry) before the
 * staging folder exists, so a missing name removes nothing, and the
 * lock's replacement commits every removal at once.
 */
int skit_uninstall_names(const char *root, const char *const *names, size_t n,
                         skit_error *err)
{
	return skit_uninstall_ex(root, names, n, 0, err);
}

int skit_uninstall_ex(const char *root, const char *const *names, size_t n,
                      unsigned int flags, skit_error *err)
{
	struct skit__txn t;
	struct skit__txn_change *ch = NULL;
	struct stat st;
	int rc;

	if (!root || !names || !n)
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "uninstall: a root and names are needed");
	for (size_t i = 0; i < n; i++) {
		if (!names[i] || !skit_skill_name_ok(names[i]))
			return skit__error_set(err, SKIT_EUSAGE, 0,
			                       "\"%s\" is not a skill name",
			                       names[i] ? names[i] : "");
		for (size_t k = 0; k < i; k++)
			if (!strcmp(names[k], names[i]))
				return skit__error_set(err, SKIT_EUSAGE, 0,
				                       "%s is named twice",
				                       names[i]);
	}
	ch = skitx_calloc(n, sizeof(*ch));
	if (!ch)
		return skit__error_oom(err);
	rc = skit__txn_open(&t, root, false, err);
	if (rc < 0) {
		skitx_free(ch);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		bool locked = skit__lock_find(&t.lock, names[i]) != NULL;

		if (fstatat(t.rootfd, names[i], &st, AT_SYMLINK_NOFOLLOW) < 0 &&
		    !locked) {
			rc = skit__error_set(
			        err, SKIT_ENOTFOUND, 0,
			        "%s is not installed in %s%s", names[i], t.root,
			        n > 1 ? " (nothing was removed)" : "");
			goto out;
		}
		/* A folder the lock does not record is someone else's: a
		 * hand-written skill, or one another tool put there (often
		 * a link it still points to). */
		if (!locked && !(flags & SKIT_UNINSTALL_FORCE)) {
			rc = skit__error_set(
			        err, SKIT_EDENIED, 0,
			        "%s in %s was not installed by skit (its lock "
			        "does not record it)%s",
			        names[i], t.root,
			        n > 1 ? "; nothing was removed" : "");
			goto out;
		}
		ch[i].op = SKIT__TXN_REMOVE;
		ch[i].name = names[i];
		/* and its links in agents' folders, where they are skit's */
		if (locked) {
			rc = skit__links_plan_remove(
			        &t, skit__lock_find(&t.lock, names[i]),
			        flags & SKIT_UNINSTALL_FORCE, err);
			if (rc < 0)
				goto out;
		}
	}
	rc = skit__txn_stage(&t, err);
	if (rc < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		skit__lock_drop(&t.lock, names[i]);
	rc = skit__txn_commit(&t, ch, n, err);
out:
	skit__txn_close(&t);
	skitx_free(ch);
	return rc;
}

int skit_uninstall(const char *root, const char *name, skit_error *err)
{
	return skit_uninstall_names(root, &name, 1, err);
}
