/* SPDX-License-Identifier: MIT */
/*
 * pack_txn.c - changing an installed root atomically (HOSTILE F2, F3).
 *
 * Every command that changes a root holds flock(LOCK_EX) on
 * `<root>/.skit.lock` from start to end, so commands queue up. Work
 * happens in `<root>/.staging-XXXXXX/` (mode 0700, on the root's own
 * file system so that rename() stays atomic):
 *
 *	new/<name>/      skills staged and checked, waiting to move in
 *	old/<name>/      skills moved out (uninstalled, or replaced when the
 *	                 file system cannot exchange)
 *	journal.json     written before the first move: every move about to
 *	                 happen, the inode of each folder moved, and the
 *	                 SHA-256 of the lock file that ends the transaction
 *
 * A commit syncs the staged files, writes the journal, makes each move
 * (renameat2 RENAME_EXCHANGE for a replacement, RENAME_NOREPLACE for a
 * new skill), then replaces the lock file: that rename is the commit
 * point. If the process dies anywhere, the next command to take the lock
 * finds the staging folder: when the lock file on disk hashes to the
 * journal's, the transaction happened and the folder is only removed;
 * otherwise every move is undone (the inodes tell a moved folder from an
 * unmoved one) and then the folder is removed. Undoing is idempotent, so
 * dying while recovering is recovered from too.
 */
#define _GNU_SOURCE /* syncfs */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <jansson.h>

#include "error.h"
#include "pack_int.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "util/alloc.h"
#include "util/fs.h"

#ifndef RENAME_NOREPLACE
# define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
# define RENAME_EXCHANGE (1 << 1)
#endif

long skit__pack_crash_at;

void skit__pack_crash_point(void)
{
	if (skit__pack_crash_at > 0 && --skit__pack_crash_at == 0)
		raise(SIGKILL);
}

static int rename2(int ofd, const char *old, int nfd, const char *new,
                   unsigned int flags)
{
#ifdef SYS_renameat2
	return (int)syscall(SYS_renameat2, ofd, old, nfd, new, flags);
#else
	errno = ENOSYS;
	return -1;
#endif
}

/* The SHA-256 of the root's lock file as it is on disk ("" if none). */
static void lock_file_sha(int rootfd, char hex[65])
{
	int fd = openat(rootfd, SKIT__LOCK_FILE,
	                O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	hex[0] = '\0';
	if (fd < 0)
		return;
	if (skit__sha256_fd(fd, hex, NULL) < 0)
		hex[0] = '\0';
	close(fd);
}

/* Write `len` bytes as `name` under `dirfd`: a temporary file, fsync,
 * rename. */
static int write_atomic_at(int dirfd, const char *name, const char *data,
                           size_t len, skit_error *err)
{
	char tmp[64];
	int fd, rc;

	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", name, (long)getpid());
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp,
	            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s: %s", name,
		                       strerror(errno));
	rc = skit__write_all(fd, data, len, err);
	if (!rc && fsync(fd) < 0)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", name,
		                     strerror(errno));
	close(fd);
	if (!rc) {
		skit__pack_crash_point();
		if (renameat(dirfd, tmp, dirfd, name) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", name,
			                     strerror(errno));
	}
	if (rc)
		(void)unlinkat(dirfd, tmp, 0);
	return rc;
}

/* ---- moves and their undoing ---- */

struct move {
	enum skit__txn_op op;
	char name[SKIT__PACK_MAX_COMPONENT + 1];
	unsigned long long ino; /* the folder that moves */
	bool had_old;           /* PUT over an installed skill */
	bool exchanged;         /* ... done by RENAME_EXCHANGE */
};

static bool ino_at(int dfd, const char *path, unsigned long long *ino)
{
	struct stat st;

	if (fstatat(dfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	if (ino)
		*ino = (unsigned long long)st.st_ino;
	return true;
}

/*
 * Put one move back, from whatever state it reached. Idempotent: after
 * a crash halfway through this, running it again finishes the job.
 */
static int undo_move(int rootfd, int stagefd, const struct move *m)
{
	char newp[SKIT__PACK_MAX_COMPONENT + 8],
	        oldp[SKIT__PACK_MAX_COMPONENT + 8];
	char undop[SKIT__PACK_MAX_COMPONENT + 8];
	unsigned long long ino;

	snprintf(newp, sizeof(newp), "new/%s", m->name);
	snprintf(oldp, sizeof(oldp), "old/%s", m->name);
	snprintf(undop, sizeof(undop), "undo/%s", m->name);
	if (m->op == SKIT__TXN_REMOVE) {
		if (!ino_at(rootfd, m->name, NULL) &&
		    ino_at(stagefd, oldp, &ino) && ino == m->ino &&
		    renameat(stagefd, oldp, rootfd, m->name) < 0)
			return -1;
		return 0;
	}
	/* PUT: take the new folder out of the root if it got there. */
	if (ino_at(rootfd, m->name, &ino) && ino == m->ino) {
		(void)mkdirat(stagefd, "undo", 0700);
		if (renameat(rootfd, m->name, stagefd, undop) < 0)
			return -1;
	}
	if (!m->had_old || ino_at(rootfd, m->name, NULL))
		return 0;
	/* The old one is in new/ (exchanged) or old/ (moved aside). */
	if (ino_at(stagefd, newp, &ino) && ino != m->ino)
		return renameat(stagefd, newp, rootfd, m->name);
	if (ino_at(stagefd, oldp, NULL))
		return renameat(stagefd, oldp, rootfd, m->name);
	return 0;
}

static int do_move(int rootfd, int stagefd, struct move *m)
{
	char newp[SKIT__PACK_MAX_COMPONENT + 8],
	        oldp[SKIT__PACK_MAX_COMPONENT + 8];

	snprintf(newp, sizeof(newp), "new/%s", m->name);
	snprintf(oldp, sizeof(oldp), "old/%s", m->name);
	if (m->op == SKIT__TXN_REMOVE)
		return renameat(rootfd, m->name, stagefd, oldp);
	if (!m->had_old)
		return rename2(stagefd, newp, rootfd, m->name,
		               RENAME_NOREPLACE);
	if (rename2(stagefd, newp, rootfd, m->name, RENAME_EXCHANGE) == 0) {
		m->exchanged = true;
		return 0;
	}
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* No exchange here: move the old one aside, then the new in. */
	if (renameat(rootfd, m->name, stagefd, oldp) < 0)
		return -1;
	skit__pack_crash_point();
	return renameat(stagefd, newp, rootfd, m->name);
}

/* ---- the journal ---- */

static char *journal_text(const struct move *mv, size_t n, const char *lock_sha)
{
	json_t *root = json_object(), *arr = json_array();
	char *text = NULL, *copy = NULL;
	bool ok = root && arr;

	for (size_t i = 0; ok && i < n; i++)
		ok = !json_array_append_new(
		        arr,
		        json_pack("{s:s, s:s, s:I, s:b}", "op",
		                  mv[i].op == SKIT__TXN_PUT ? "put" : "remove",
		                  "name", mv[i].name, "ino",
		                  (json_int_t)mv[i].ino, "had_old",
		                  mv[i].had_old));
	if (ok && !json_object_set_new(root, "moves", arr)) {
		arr = NULL;
		if (!json_object_set_new(root, "lock_sha256",
		                         json_string(lock_sha)))
			text = json_dumps(root, JSON_COMPACT);
	}
	json_decref(arr);
	json_decref(root);
	if (text) {
		copy = skitx_strdup(text);
		free(text);
	}
	return copy;
}

/* Recover one staging folder that a dead process left. */
static void recover_one(int rootfd, const char *name)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	int stagefd = openat(rootfd, name,
	                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int jfd = -1;

	if (stagefd >= 0)
		jfd = openat(stagefd, "journal.json",
		             O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (jfd >= 0 && skitx_fs_read_fd(jfd, &text, 16u << 20) == 0) {
		json_t *j = json_loadb(text.ptr, text.len, 0, NULL);
		const char *want =
		        json_string_value(json_object_get(j, "lock_sha256"));
		json_t *moves = json_object_get(j, "moves");
		char have[65];

		lock_file_sha(rootfd, have);
		if (want && json_is_array(moves) && strcmp(have, want) != 0) {
			for (size_t i = json_array_size(moves); i-- > 0;) {
				json_t *o = json_array_get(moves, i);
				const char *op = json_string_value(
				        json_object_get(o, "op"));
				const char *nm = json_string_value(
				        json_object_get(o, "name"));
				struct move m;

				if (!op || !nm || !skit_skill_name_ok(nm) ||
				    strlen(nm) >= sizeof(m.name))
					continue;
				memset(&m, 0, sizeof(m));
				m.op = !strcmp(op, "put") ? SKIT__TXN_PUT
				                          : SKIT__TXN_REMOVE;
				snprintf(m.name, sizeof(m.name), "%s", nm);
				m.ino = (unsigned long long)json_integer_value(
				        json_object_get(o, "ino"));
				m.had_old = json_is_true(
				        json_object_get(o, "had_old"));
				(void)undo_move(rootfd, stagefd, &m);
			}
		}
		json_decref(j);
	}
	skitx_buf_release(&text);
	if (jfd >= 0)
		close(jfd);
	if (stagefd >= 0)
		close(stagefd);
	(void)skit__tree_remove(rootfd, name, NULL);
}

static void recover(int rootfd)
{
	int fd = dup(rootfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d))) {
		char **v;

		if (!strncmp(de->d_name, SKIT__LOCK_FILE ".tmp-",
		             strlen(SKIT__LOCK_FILE ".tmp-"))) {
			(void)unlinkat(rootfd, de->d_name, 0);
			continue;
		}
		if (strncmp(de->d_name, SKIT__STAGING_PREFIX,
		            strlen(SKIT__STAGING_PREFIX)))
			continue;
		v = skitx_realloc(names, (n + 1) * sizeof(*v));
		if (!v)
			break;
		names = v;
		if ((names[n] = skitx_strdup(de->d_name)))
			n++;
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		recover_one(rootfd, names[i]);
		skitx_free(names[i]);
	}
	skitx_free(names);
}

/* ---- the transaction ---- */

int skit__txn_open(struct skit__txn *t, const char *root, bool create,
                   skit_error *err)
{
	char *abs;
	int rc;

	memset(t, 0, sizeof(*t));
	t->rootfd = t->lockfd = t->stagefd = -1;
	if (create && skitx_fs_mkdir_p(root, 0755) < 0)
		return skit__error_set(err, SKIT_EIO, 0, "cannot create %s: %s",
		                       root, strerror(errno));
	t->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->rootfd < 0)
		return skit__error_set(
		        err, errno == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO, 0,
		        "%s: %s", root, strerror(errno));
	abs = realpath(root, NULL);
	snprintf(t->root, sizeof(t->root), "%s", abs ? abs : root);
	free(abs);
	t->lockfd = openat(t->rootfd, SKIT__LOCK_FLOCK,
	                   O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (t->lockfd < 0 && create) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", t->root,
		                     SKIT__LOCK_FLOCK, strerror(errno));
		skit__txn_close(t);
		return rc;
	}
	if (t->lockfd >= 0) {
		while (flock(t->lockfd, LOCK_EX) < 0) {
			if (errno == EINTR)
				continue;
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "cannot lock %s: %s", t->root,
			                     strerror(errno));
			skit__txn_close(t);
			return rc;
		}
		recover(t->rootfd);
	}
	rc = skit__lock_load(&t->lock, t->rootfd, NULL, err);
	if (rc < 0)
		skit__txn_close(t);
	return rc;
}

int skit__txn_stage(struct skit__txn *t, skit_error *err)
{
	static const char abc[] = "abcdefghijklmnopqrstuvwxyz0123456789";

	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[8];
		size_t k = strlen(SKIT__STAGING_PREFIX);

		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			memset(rnd, tries, sizeof(rnd));
		memcpy(t->stage_name, SKIT__STAGING_PREFIX, k);
		for (size_t i = 0; i < 8; i++)
			t->stage_name[k + i] = abc[rnd[i] % 36];
		t->stage_name[k + 8] = '\0';
		if (mkdirat(t->rootfd, t->stage_name, 0700) == 0)
			break;
		if (errno != EEXIST)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "cannot create a staging folder "
			                       "in %s: %s",
			                       t->root, strerror(errno));
	}
	t->stagefd = openat(t->rootfd, t->stage_name,
	                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (t->stagefd < 0 || mkdirat(t->stagefd, "new", 0755) < 0 ||
	    mkdirat(t->stagefd, "old", 0700) < 0)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot create a staging folder in %s: "
		                       "%s",
		                       t->root, strerror(errno));
	skit__pack_crash_point();
	return 0;
}

int skit__txn_commit(struct skit__txn *t, const struct skit__txn_change *c,
                     size_t n, skit_error *err)
{
	struct move *mv = skitx_calloc(n ? n : 1, sizeof(*mv));
	char *lock = NULL, *journal = NULL, sha[65];
	size_t done = 0;
	int rc = 0;

	if (!mv)
		return skit__error_oom(err);
	for (size_t i = 0; i < n; i++) {
		char newp[SKIT__PACK_MAX_COMPONENT + 8];

		mv[i].op = c[i].op;
		snprintf(mv[i].name, sizeof(mv[i].name), "%s", c[i].name);
		snprintf(newp, sizeof(newp), "new/%s", c[i].name);
		if (c[i].op == SKIT__TXN_PUT) {
			if (!ino_at(t->stagefd, newp, &mv[i].ino)) {
				rc = skit__error_set(err, SKIT_EIO, 0,
				                     "%s: not staged",
				                     c[i].name);
				goto out;
			}
			mv[i].had_old = ino_at(t->rootfd, c[i].name, NULL);
		} else if (!ino_at(t->rootfd, c[i].name, &mv[i].ino)) {
			mv[i].op = SKIT__TXN_REMOVE;
			mv[i].name[0] = '\0'; /* nothing to move */
		}
	}
	lock = skit__lock_dump(&t->lock);
	if (lock)
		skit__sha256_hex(lock, strlen(lock), sha);
	if (!lock || !sha[0] || !(journal = journal_text(mv, n, sha))) {
		rc = skit__error_oom(err);
		goto out;
	}
	/* The staged bytes reach the disk before anything refers to them. */
	if (syncfs(t->stagefd) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "sync: %s",
		                     strerror(errno));
		goto out;
	}
	rc = write_atomic_at(t->stagefd, "journal.json", journal,
	                     strlen(journal), err);
	if (rc < 0)
		goto out;
	(void)fsync(t->stagefd);
	skit__pack_crash_point();
	for (; done < n; done++) {
		if (!mv[done].name[0])
			continue;
		if (do_move(t->rootfd, t->stagefd, &mv[done]) < 0) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "cannot move %s into place: %s",
			                     mv[done].name, strerror(errno));
			goto undo;
		}
		skit__pack_crash_point();
	}
	(void)fsync(t->stagefd);
	rc = write_atomic_at(t->rootfd, SKIT__LOCK_FILE, lock, strlen(lock),
	                     err);
	if (rc < 0)
		goto undo;
	skit__pack_crash_point();
	(void)fsync(t->rootfd);
	goto out;
undo:
	while (done-- > 0)
		if (mv[done].name[0])
			(void)undo_move(t->rootfd, t->stagefd, &mv[done]);
out:
	skitx_free(lock);
	skitx_free(journal);
	skitx_free(mv);
	return rc;
}

void skit__txn_close(struct skit__txn *t)
{
	if (t->stagefd >= 0) {
		close(t->stagefd);
		t->stagefd = -1;
	}
	if (t->stage_name[0] && t->rootfd >= 0) {
		(void)skit__tree_remove(t->rootfd, t->stage_name, NULL);
		t->stage_name[0] = '\0';
	}
	if (t->lockfd >= 0) {
		close(t->lockfd);
		t->lockfd = -1;
	}
	if (t->rootfd >= 0) {
		close(t->rootfd);
		t->rootfd = -1;
	}
	skit__lockdoc_release(&t->lock);
}
