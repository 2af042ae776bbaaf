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
 * A commit fsyncs every staged file and folder, writes the journal,
 * makes each move (renameat2 RENAME_EXCHANGE for a replacement,
 * RENAME_NOREPLACE for a new skill), fsyncs the root, then replaces the
 * lock file: that rename is the commit point. If the process dies
 * anywhere, the next command to take the lock finds the staging folder:
 * when the lock file on disk hashes to the journal's, the transaction
 * happened and the folder is only removed; otherwise every move is
 * undone (the inodes tell a moved folder from an unmoved one) and then
 * the folder is removed. Undoing is idempotent, so dying while
 * recovering is recovered from too.
 *
 * Undoing a replacement is one RENAME_EXCHANGE as well, so a reader that
 * takes no lock (the agent, `skit list`) always finds the skill, old or
 * new. Only where the file system cannot exchange (ENOSYS, EINVAL) do
 * two plain renames leave a moment without it.
 *
 * Durability: the root and staging folders are fsynced before the lock
 * is written and before journal.json is removed (after a commit, a
 * rollback or a recovery), so that no order of a power cut leaves moves
 * on disk without the journal that explains them.
 */
#define _GNU_SOURCE /* syscall */
#include <assert.h>
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

#include "lib/core/error.h"
#include "lib/pack/pack_int.h"
#include "skit/errors.h"
#include "skit/skill.h"
#include "util/alloc.h"
#include "util/fs.h"
#include "util/parallel.h"

#ifndef RENAME_NOREPLACE
# define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
# define RENAME_EXCHANGE (1 << 1)
#endif

long skit__pack_fail_at;
bool skit__pack_no_exchange;

bool skit__pack_fault(void)
{
	if (skit__pack_fail_at > 0 && --skit__pack_fail_at == 0) {
		errno = ENOSPC;
		return true;
	}
	return false;
}

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

/* fsync an open folder or file; -1 with errno. */
static int sync_fd(int fd)
{
	if (skit__pack_fault())
		return -1;
	return fsync(fd);
}

/* One move of a commit, as the journal records it. */
struct move {
	enum skit__txn_op op;
	char name[SKIT__PACK_MAX_COMPONENT + 1];
	unsigned long long ino; /* the folder that moves */
	bool had_old;           /* PUT over an installed skill */
	bool exchanged;         /* ... done by RENAME_EXCHANGE */
};

/*
 * What the commit fsyncs: every file and folder staged under new/, by
 * path relative to the staging folder. This replaces a whole-file-system
 * syncfs(), whose cost depends on whatever else is dirty.
 */
struct syncset {
	char **paths;
	int *errnos; /* per path: 0, or why it could not be synced */
	size_t n, cap;
	int stagefd;
};

static void syncset_release(struct syncset *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		skitx_free(ss->paths[i]);
	skitx_free(ss->paths);
	skitx_free(ss->errnos);
	memset(ss, 0, sizeof(*ss));
}

static int syncset_add(struct syncset *ss, const char *path)
{
	if (ss->n == ss->cap) {
		size_t cap = ss->cap ? ss->cap * 2 : 64;
		char **v = skitx_realloc(ss->paths, cap * sizeof(*v));

		if (!v)
			return SKIT_ENOMEM;
		ss->paths = v;
		ss->cap = cap;
	}
	ss->paths[ss->n] = skitx_strdup(path);
	if (!ss->paths[ss->n])
		return SKIT_ENOMEM;
	ss->n++;
	return 0;
}

/* Add `rel` (under the staging folder) and, for a folder, all within,
 * without following links. */
static int syncset_collect(struct syncset *ss, const char *rel,
                           unsigned int depth)
{
	int fd, dfd, rc = 0;
	struct stat st;
	struct dirent *de;
	DIR *d;

	rc = syncset_add(ss, rel);
	if (rc < 0)
		return rc;
	if (fstatat(ss->stagefd, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISDIR(st.st_mode) || depth > SKIT__PACK_MAX_DEPTH + 2)
		return 0;
	fd = openat(ss->stagefd, rel,
	            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	dfd = fd;
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0; /* the fsync pass names it */
	}
	while (!rc && (de = readdir(d))) {
		char sub[SKIT__PACK_MAX_PATH * 2 + 64];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel,
		                     de->d_name) >= sizeof(sub))
			continue;
		rc = syncset_collect(ss, sub, depth + 1);
	}
	closedir(d);
	return rc;
}

static void sync_batch(void *payload, size_t worker, size_t begin, size_t end)
{
	struct syncset *ss = payload;

	(void)worker;
	for (size_t i = begin; i < end; i++) {
		int fd;

		if (ss->errnos[i])
			continue; /* an injected fault */
		fd = openat(ss->stagefd, ss->paths[i],
		            O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fsync(fd) < 0)
			ss->errnos[i] = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
	}
}

/*
 * fsync every file and folder of the skills about to move in. The
 * fsyncs run on a few threads: on a journalling file system the first
 * commits the journal and the rest mostly wait for cache flushes, which
 * the block layer merges when several are in flight. `stage_path` names
 * a failure.
 */
static int sync_staged(int stagefd, const char *stage_path,
                       const struct move *mv, size_t n, skit_error *err)
{
	struct syncset ss;
	int rc = 0;

	memset(&ss, 0, sizeof(ss));
	ss.stagefd = stagefd;
	for (size_t i = 0; !rc && i < n; i++) {
		char rel[SKIT__PACK_MAX_COMPONENT + 8];

		if (mv[i].op != SKIT__TXN_PUT)
			continue;
		snprintf(rel, sizeof(rel), "new/%s", mv[i].name);
		rc = syncset_collect(&ss, rel, 0);
	}
	if (!rc && !(ss.errnos = skitx_calloc(ss.n ? ss.n : 1, sizeof(int))))
		rc = SKIT_ENOMEM;
	if (rc < 0) {
		syncset_release(&ss);
		return skit__error_oom(err);
	}
	for (size_t i = 0; i < ss.n; i++)
		if (skit__pack_fault())
			ss.errnos[i] = ENOSPC;
	(void)skitx_parallel_for(ss.n, 16, SKITX_PARALLEL_MAX, sync_batch, &ss);
	for (size_t i = 0; !rc && i < ss.n; i++)
		if (ss.errnos[i])
			rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s",
			                     stage_path, ss.paths[i],
			                     strerror(ss.errnos[i]));
	syncset_release(&ss);
	return rc;
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

/*
 * Write `len` bytes as `name` under `dirfd` (the folder `dir`, which
 * names the file in errors): a temporary file, fsync, rename.
 */
static int write_atomic_at(int dirfd, const char *dir, const char *name,
                           const char *data, size_t len, skit_error *err)
{
	char tmp[64];
	int fd, rc = 0;

	snprintf(tmp, sizeof(tmp), "%s.tmp-%ld", name, (long)getpid());
	(void)unlinkat(dirfd, tmp, 0);
	fd = openat(dirfd, tmp,
	            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", dir, name,
		                       strerror(errno));
	if (skit__pack_fault() || skitx_fs_write_all(fd, data, len) < 0 ||
	    sync_fd(fd) < 0)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", dir, name,
		                     strerror(errno));
	if (close(fd) < 0 && !rc)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", dir, name,
		                     strerror(errno));
	if (!rc) {
		skit__pack_crash_point();
		if (renameat(dirfd, tmp, dirfd, name) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", dir,
			                     name, strerror(errno));
	}
	if (rc)
		(void)unlinkat(dirfd, tmp, 0);
	return rc;
}

/* ---- moves and their undoing ---- */

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
 * a crash halfway through this, running it again finishes the job. A
 * replaced skill comes back by one RENAME_EXCHANGE of the new folder in
 * the root with the old one in staging, so the root never lacks it.
 */
static int undo_move(int rootfd, int stagefd, const struct move *m)
{
	char newp[SKIT__PACK_MAX_COMPONENT + 8],
	        oldp[SKIT__PACK_MAX_COMPONENT + 8];
	char undop[SKIT__PACK_MAX_COMPONENT + 8];
	const char *back = NULL;
	unsigned long long ino;
	bool new_in_root;

	snprintf(newp, sizeof(newp), "new/%s", m->name);
	snprintf(oldp, sizeof(oldp), "old/%s", m->name);
	snprintf(undop, sizeof(undop), "undo/%s", m->name);
	if (m->op == SKIT__TXN_REMOVE) {
		if (!ino_at(rootfd, m->name, NULL) &&
		    ino_at(stagefd, oldp, &ino) && ino == m->ino) {
			if (renameat(stagefd, oldp, rootfd, m->name) < 0)
				return -1;
			skit__pack_crash_point();
		}
		return 0;
	}
	/* Where the old one waits: new/ (exchanged) or old/ (moved aside). */
	if (m->had_old) {
		if (ino_at(stagefd, newp, &ino) && ino != m->ino)
			back = newp;
		else if (ino_at(stagefd, oldp, NULL))
			back = oldp;
	}
	new_in_root = ino_at(rootfd, m->name, &ino) && ino == m->ino;
	if (new_in_root && back) {
		if (rename2(stagefd, back, rootfd, m->name, RENAME_EXCHANGE) ==
		    0) {
			skit__pack_crash_point();
			return 0;
		}
		if (errno != EINVAL && errno != ENOSYS)
			return -1;
		/* No exchange here: out, then in (a moment without it). */
	}
	if (new_in_root) {
		(void)mkdirat(stagefd, "undo", 0700);
		if (renameat(rootfd, m->name, stagefd, undop) < 0)
			return -1;
		skit__pack_crash_point();
	}
	if (!back || ino_at(rootfd, m->name, NULL))
		return 0;
	if (renameat(stagefd, back, rootfd, m->name) < 0)
		return -1;
	skit__pack_crash_point();
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

static char *journal_text(const struct skit__txn *t, const struct move *mv,
                          size_t n, const char *lock_sha)
{
	json_t *root = json_object(), *arr = json_array();
	char *text = NULL, *copy = NULL;
	bool ok = root && arr;

	/* links in agents' folders (pack_links.c), when there are any */
	if (ok && t->nlinks) {
		json_t *links = skit__links_journal(t);

		ok = links && !json_object_set_new(root, "links", links);
	}

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

/* The journal of the staging folder `stagefd`, or NULL when it has none
 * (or none that parses: then nothing had moved). */
static json_t *journal_read(int stagefd)
{
	struct skitx_buf text = SKITX_BUF_INIT;
	json_t *j = NULL;
	int jfd =
	        stagefd >= 0
	                ? openat(stagefd, "journal.json",
	                         O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
	                : -1;

	if (jfd >= 0 && skitx_fs_read_fd(jfd, &text, 16u << 20) == 0)
		j = json_loadb(text.ptr, text.len, 0, NULL);
	if (jfd >= 0)
		close(jfd);
	skitx_buf_release(&text);
	return j;
}

/* Did the journal's transaction reach its commit point? */
static bool journal_committed(int rootfd, json_t *j)
{
	const char *want = json_string_value(json_object_get(j, "lock_sha256"));
	char have[65];

	lock_file_sha(rootfd, have);
	return !want || !strcmp(have, want);
}

/* Recover one staging folder that a dead process left. */
static void recover_one(int rootfd, const char *name)
{
	int stagefd = openat(rootfd, name,
	                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	json_t *j = journal_read(stagefd);

	if (j) {
		json_t *moves = json_object_get(j, "moves");
		bool committed = journal_committed(rootfd, j);

		struct stat st;

		/* The links went in after the moves: they come out first.
		 * They live outside the root, so only a staging folder skit
		 * made (0700, this user's: never one that arrived with a
		 * checkout) may act on them. */
		if (fstat(stagefd, &st) == 0 && !(st.st_mode & 077) &&
		    st.st_uid == geteuid())
			skit__links_recover(json_object_get(j, "links"),
			                    committed);
		if (json_is_array(moves) && !committed) {
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
	/* What was undone (or the lock a commit wrote) is on disk before
	 * the journal that would explain it goes. */
	(void)fsync(rootfd);
	if (stagefd >= 0) {
		(void)fsync(stagefd);
		close(stagefd);
	}
	skit__pack_crash_point();
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

/*
 * `root` as an absolute path, as given (no symbolic link resolved, so
 * that climbing it retraces the folders mkdir made), into t->given, and
 * the highest of its folders that is missing into t->made ("" when
 * `root` is there).
 */
static void note_missing(struct skit__txn *t, const char *root)
{
	char cwd[4096], *path = t->given;
	size_t len;

	t->made[0] = t->given[0] = '\0';
	if (root[0] == '/')
		len = (size_t)snprintf(path, sizeof(t->given), "%s", root);
	else if (getcwd(cwd, sizeof(cwd)))
		len = (size_t)snprintf(path, sizeof(t->given), "%s/%s", cwd,
		                       root);
	else
		return;
	if (len >= sizeof(t->given)) {
		t->given[0] = '\0';
		return;
	}
	while (len > 1 && path[len - 1] == '/')
		path[--len] = '\0';
	{
		char up[sizeof(t->given)];

		snprintf(up, sizeof(up), "%s", path);
		while (len > 1 && !skitx_fs_exists(up)) {
			snprintf(t->made, sizeof(t->made), "%s", up);
			while (len > 1 && up[len - 1] != '/')
				up[--len] = '\0';
			while (len > 1 && up[len - 1] == '/')
				up[--len] = '\0';
		}
	}
}

/* Whether the flock file held as `fd` is still the root's: a failed
 * first install removes it (and the root) while holding the lock. */
static bool lock_current(int rootfd, int fd)
{
	struct stat held, named;

	return fstat(fd, &held) == 0 && held.st_nlink > 0 &&
	       fstatat(rootfd, SKIT__LOCK_FLOCK, &named, AT_SYMLINK_NOFOLLOW) ==
	               0 &&
	       held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

static int txn_open_once(struct skit__txn *t, const char *root, bool create,
                         skit_error *err)
{
	char *abs;

	t->rootfd = t->lockfd = t->stagefd = -1;
	if (create && !t->given[0])
		note_missing(t, root);
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
	if (t->lockfd < 0 && create)
		return skit__error_set(err, SKIT_EIO, 0, "%s/%s: %s", t->root,
		                       SKIT__LOCK_FLOCK, strerror(errno));
	if (t->lockfd >= 0) {
		while (flock(t->lockfd, LOCK_EX) < 0) {
			if (errno == EINTR)
				continue;
			return skit__error_set(err, SKIT_EIO, 0,
			                       "cannot lock %s: %s", t->root,
			                       strerror(errno));
		}
		if (!lock_current(t->rootfd, t->lockfd))
			return 1; /* removed while we waited: open again */
		recover(t->rootfd);
	}
	return 0;
}

int skit__txn_open(struct skit__txn *t, const char *root, bool create,
                   skit_error *err)
{
	int rc = 1;

	memset(t, 0, sizeof(*t));
	for (int tries = 0; rc > 0 && tries < 16; tries++) {
		rc = txn_open_once(t, root, create, err);
		if (rc) {
			/* A failed open removes nothing; a retry looks
			 * afresh at what is missing. */
			t->made[0] = t->given[0] = '\0';
			skit__txn_close(t);
		}
	}
	if (rc > 0)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot lock %s: it keeps being "
		                       "removed",
		                       root);
	if (rc < 0)
		return rc;
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
	char *lock = NULL, *journal = NULL, sha[65], stage_path[4096 + 40];
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
	if (!lock || !sha[0] || !(journal = journal_text(t, mv, n, sha))) {
		rc = skit__error_oom(err);
		goto out;
	}
	/* The staged bytes reach the disk before anything refers to them:
	 * each file and folder staged, not the whole file system. */
	snprintf(stage_path, sizeof(stage_path), "%s/%s", t->root,
	         t->stage_name);
	rc = sync_staged(t->stagefd, stage_path, mv, n, err);
	if (rc < 0)
		goto out;
	rc = write_atomic_at(t->stagefd, stage_path, "journal.json", journal,
	                     strlen(journal), err);
	if (!rc && sync_fd(t->stagefd) < 0)
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", stage_path,
		                     strerror(errno));
	if (rc < 0)
		goto out;
	skit__pack_crash_point();
	/* Links in agents' folders are made aside, then the journal is
	 * written again with their inodes, before anything moves. */
	if (t->nlinks) {
		rc = skit__links_prepare(t, err);
		skitx_free(journal);
		journal = rc ? NULL : journal_text(t, mv, n, sha);
		if (!rc && !journal)
			rc = skit__error_oom(err);
		if (!rc)
			rc = write_atomic_at(t->stagefd, stage_path,
			                     "journal.json", journal,
			                     strlen(journal), err);
		if (!rc && sync_fd(t->stagefd) < 0)
			rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s",
			                     stage_path, strerror(errno));
		if (rc < 0)
			goto undo;
		skit__pack_crash_point();
	}
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
	if (t->nlinks) {
		rc = skit__links_apply(t, err);
		if (rc < 0)
			goto undo;
	}
	/* The moves are on disk before the lock that commits them. */
	if (sync_fd(t->rootfd) < 0 || sync_fd(t->stagefd) < 0) {
		rc = skit__error_set(err, SKIT_EIO, 0, "%s: %s", t->root,
		                     strerror(errno));
		goto undo;
	}
	rc = write_atomic_at(t->rootfd, t->root, SKIT__LOCK_FILE, lock,
	                     strlen(lock), err);
	if (rc < 0)
		goto undo;
	skit__pack_crash_point();
	/* The commit point itself is durable before the journal goes. */
	(void)fsync(t->rootfd);
	t->committed = true;
	skit__links_finish(t);
	goto out;
undo:
	skit__links_undo(t);
	while (done-- > 0)
		if (mv[done].name[0])
			(void)undo_move(t->rootfd, t->stagefd, &mv[done]);
	/* The undone root is on disk before skit__txn_close() removes the
	 * journal with the staging folder. */
	(void)fsync(t->rootfd);
	(void)fsync(t->stagefd);
out:
	skitx_free(lock);
	skitx_free(journal);
	skitx_free(mv);
	return rc;
}

/* Whether the folder `fd` holds nothing but the flock file. */
static bool only_flock(int fd)
{
	int dup_fd = dup(fd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *e;
	bool only = d != NULL;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return false;
	}
	while (only && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		only = !strcmp(e->d_name, SKIT__LOCK_FLOCK);
	}
	closedir(d);
	return only;
}

/*
 * A root this transaction created and did not commit to goes again:
 * its flock file is unlinked while the lock is held (a waiter sees it
 * gone and opens afresh), then each folder from the root up to the
 * highest one made, while it is empty.
 */
static void remove_made(struct skit__txn *t)
{
	char path[sizeof(t->made)];
	struct stat held, named;
	size_t len;

	if (!t->made[0] || t->committed || t->rootfd < 0 || t->lockfd < 0 ||
	    !only_flock(t->rootfd) || fstat(t->rootfd, &held) < 0 ||
	    stat(t->given, &named) < 0 || held.st_dev != named.st_dev ||
	    held.st_ino != named.st_ino)
		return;
	if (unlinkat(t->rootfd, SKIT__LOCK_FLOCK, 0) < 0)
		return;
	snprintf(path, sizeof(path), "%s", t->given);
	len = strlen(t->made);
	while (strlen(path) >= len && rmdir(path) == 0) {
		char *slash = strrchr(path, '/');

		if (!strcmp(path, t->made) || !slash || slash == path)
			break;
		*slash = '\0';
	}
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
	remove_made(t);
	skit__txn_links_release(t);
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

/* ---- reporting (no lock taken, nothing changed) ---- */

int skit_root_unfinished(const char *root, skit_unfinished_txn **out,
                         size_t *count, skit_error *err)
{
	skit_unfinished_txn *v = NULL;
	struct dirent *de;
	bool oom = false;
	size_t n = 0;
	int rootfd, lockfd, fd;
	DIR *d;

	assert(out && count);
	*out = NULL;
	*count = 0;
	if (!root)
		return skit__error_set(err, SKIT_EUSAGE, 0, "no root given");
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return errno == ENOENT
		               ? 0
		               : skit__error_set(err, SKIT_EIO, 0, "%s: %s",
		                                 root, strerror(errno));
	/* A command at work holds the lock, and its staging folder is
	 * live, not left behind: then there is nothing to report. */
	lockfd = openat(rootfd, SKIT__LOCK_FLOCK,
	                O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (lockfd >= 0 && flock(lockfd, LOCK_SH | LOCK_NB) < 0) {
		close(lockfd);
		close(rootfd);
		return 0;
	}
	fd = dup(rootfd);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	while (d && (de = readdir(d))) {
		skit_unfinished_txn *grown;
		int stagefd;
		json_t *j;

		if (strncmp(de->d_name, SKIT__STAGING_PREFIX,
		            strlen(SKIT__STAGING_PREFIX)) ||
		    strlen(de->d_name) >= sizeof(v->staging))
			continue;
		stagefd =
		        openat(rootfd, de->d_name,
		               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (stagefd < 0)
			continue;
		grown = skitx_realloc(v, (n + 1) * sizeof(*v));
		if (!grown) {
			close(stagefd);
			oom = true;
			break;
		}
		v = grown;
		memset(&v[n], 0, sizeof(v[n]));
		/* The length was checked above. */
		memcpy(v[n].staging, de->d_name, strlen(de->d_name) + 1);
		j = journal_read(stagefd);
		v[n].moved = j != NULL;
		v[n].committed = j && journal_committed(rootfd, j);
		json_decref(j);
		close(stagefd);
		n++;
	}
	if (d)
		closedir(d);
	if (lockfd >= 0)
		close(lockfd); /* drops the shared lock */
	close(rootfd);
	if (oom) {
		skitx_free(v);
		return skit__error_oom(err);
	}
	if (!d)
		return skit__error_set(err, SKIT_EIO, 0, "%s: cannot list it",
		                       root);
	*out = v;
	*count = n;
	return 0;
}
