/* SPDX-License-Identifier: MIT */
/*
 * sandbox_mounts.c - the mount namespace of a confined run (docs/
 * sandbox.md): the host's /tmp, /run and /var/run hidden under an empty
 * read-only tmpfs, the run's own folders beneath them bound back, and
 * each protected path beneath a writable folder bound read-only over
 * itself, with the folders above it pinned so that they cannot be moved
 * away.
 *
 * P plans it before fork() (skit__sandbox_plan_mounts(), called from
 * plan_build() in sandbox.c): real paths, in lists of struct plan, with
 * placeholders for protected folders that do not exist yet. A mounts it
 * between fork and exec (skit__sandbox_mount_setup(), called from
 * enter_ns() in sandbox.c, once the namespaces are unshared): system
 * calls only.
 */
#define _GNU_SOURCE /* O_PATH: before any header */
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __linux__
# include <sys/mount.h>
# include <sys/statvfs.h>
# include <sys/syscall.h>
# include <sys/vfs.h>
#endif

#include "lib/sandbox/sandbox_int.h"
#include "lib/sandbox/sandbox_plan.h"

#ifdef __linux__
/* ---- in A: the mounts -------------------------------------------------- */

/* "/proc/self/fd/N" into buf (no stdio between fork and exec). */
static void fd_path(char buf[32], int fd)
{
	char digits[12];
	int n = 0, k = 0;

	do
		digits[n++] = (char)('0' + fd % 10);
	while ((fd /= 10) && n < 11);
	memcpy(buf, "/proc/self/fd/", 14);
	k = 14;
	while (n)
		buf[k++] = digits[--n];
	buf[k] = '\0';
}

/* mkdir -p `path` (absolute) and, when `file`, an empty file at its end:
 * a mount point. */
static bool make_mountpoint(const char *path, bool file)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);
	int fd;

	if (n >= sizeof(buf))
		return false;
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		if (i == n && file)
			break;
		buf[i] = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return false;
		buf[i] = i == n ? '\0' : '/';
	}
	if (!file)
		return true;
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

# ifndef ST_VALID
#  define ST_VALID 0x0020 /* statfs(): f_flags is filled in (the kernel's) */
# endif

/* The flags of the mount holding `path` that a remount must keep (a
 * user namespace may not clear them). */
static unsigned long locked_flags(const char *path)
{
	struct statfs sf;
	unsigned long f = 0;

	if (statfs(path, &sf) < 0 || !(sf.f_flags & ST_VALID))
		return 0;
	if (sf.f_flags & ST_NOSUID)
		f |= MS_NOSUID;
	if (sf.f_flags & ST_NODEV)
		f |= MS_NODEV;
	if (sf.f_flags & ST_NOEXEC)
		f |= MS_NOEXEC;
	if (sf.f_flags & ST_NOATIME)
		f |= MS_NOATIME;
	if (sf.f_flags & ST_NODIRATIME)
		f |= MS_NODIRATIME;
	if (sf.f_flags & ST_RELATIME)
		f |= MS_RELATIME;
	return f;
}

/*
 * In A, inside the new mount namespace: nothing we mount propagates to
 * the host; the host's /tmp, /run and /var/run disappear under an empty
 * read-only tmpfs (their AF_UNIX sockets with them), the run's own
 * folders beneath them are bound back at the same paths, and each
 * protected path is bound read-only over itself. False on any failure
 * (the run then lacks the layer).
 */
# ifndef OPEN_TREE_CLONE
#  define OPEN_TREE_CLONE 1
# endif
# ifndef MOVE_MOUNT_F_EMPTY_PATH
#  define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
# endif

/* Bind the link `path` over itself, not following it (mount() would). */
static bool bind_link(const char *path)
{
# if defined(SYS_open_tree) && defined(SYS_move_mount)
	int fd =
	        (int)syscall(SYS_open_tree, AT_FDCWD, path,
	                     OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW | O_CLOEXEC);
	bool ok = fd >= 0 && !syscall(SYS_move_mount, fd, "", AT_FDCWD, path,
	                              MOVE_MOUNT_F_EMPTY_PATH);

	if (fd >= 0)
		close(fd);
	return ok;
# else
	(void)path;
	return false;
# endif
}

# ifndef AT_RECURSIVE
#  define AT_RECURSIVE 0x8000
# endif
# ifndef MOUNT_ATTR_RDONLY
#  define MOUNT_ATTR_RDONLY 0x00000001
# endif

/* Every mount beneath `path` (ones the owner made there, brought along by
 * MS_REC) read-only too: a remount changes one mount only. A kernel
 * without mount_setattr() (before 5.12) passes, as before. */
static bool ro_beneath(const char *path)
{
# ifdef SYS_mount_setattr
	struct {
		unsigned long long set, clr, propagation, userns_fd;
	} attr = { MOUNT_ATTR_RDONLY, 0, 0, 0 };

	return !syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &attr,
	                sizeof(attr)) ||
	       errno == ENOSYS;
# else
	(void)path;
	return true;
# endif
}

# define MAX_REBIND 16
bool skit__sandbox_mount_setup(const struct plan *p)
{
	int fds[MAX_REBIND];
	struct stat st;
	char src[32];
	bool ok = true;
	size_t i;

	if (p->nrebind > MAX_REBIND ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return false;
	/* Hold the folders to bring back before covering their parents. */
	for (i = 0; i < p->nrebind; i++)
		fds[i] = open(p->rebind[i], O_PATH | O_CLOEXEC);
	for (i = 0; ok && i < p->nhide; i++)
		ok = !mount("tmpfs", p->hide[i], "tmpfs",
		            MS_NOSUID | MS_NODEV | MS_NOEXEC,
		            "size=64k,nr_inodes=256,mode=0755");
	for (i = 0; ok && i < p->nrebind; i++) {
		ok = fds[i] >= 0 && !fstat(fds[i], &st) &&
		     make_mountpoint(p->rebind[i], !S_ISDIR(st.st_mode));
		fd_path(src, fds[i]);
		ok = ok &&
		     !mount(src, p->rebind[i], NULL, MS_BIND | MS_REC, NULL);
	}
	for (i = 0; i < p->nrebind; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (i = 0; ok && i < p->nhide; i++)
		ok = !mount(NULL, p->hide[i], NULL,
		            MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID |
		                    MS_NODEV | MS_NOEXEC,
		            NULL);
	for (i = 0; ok && i < p->npin; i++)
		ok = !mount(p->pin[i], p->pin[i], NULL, MS_BIND | MS_REC, NULL);
	for (i = 0; ok && i < p->nlink; i++)
		ok = bind_link(p->link[i]);
	for (i = 0; ok && i < p->nro; i++)
		ok = !mount(p->ro[i], p->ro[i], NULL, MS_BIND | MS_REC, NULL) &&
		     !mount(NULL, p->ro[i], NULL,
		            MS_REMOUNT | MS_BIND | MS_RDONLY |
		                    locked_flags(p->ro[i]),
		            NULL) &&
		     ro_beneath(p->ro[i]);
	return ok;
}

/* ---- in P: planning the mounts ----------------------------------------- */

/* Append a copy of `path` to the list (fails quietly on no memory: the
 * layer is then reported missing, see skit__sandbox_plan_mounts()). */
static bool strv_push(char ***v, size_t *n, const char *path)
{
	char **nv = skitx_realloc(*v, (*n + 1) * sizeof(*nv));
	char *c = skitx_strdup(path);

	if (nv)
		*v = nv;
	if (!nv || !c) {
		skitx_free(c);
		return false;
	}
	nv[(*n)++] = c;
	return true;
}

/* `path` is `dir` or beneath it (both real paths). */
static bool beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return true;
	return !strncmp(path, dir, n) && (path[n] == '/' || !path[n]);
}

/* The writable folder (real path) that `real` is or lies beneath, or
 * NULL. */
static const char *write_root(const struct skit__run_opts *o, const char *real,
                              char buf[PATH_MAX])
{
	for (size_t w = 0; o->write_paths && o->write_paths[w]; w++)
		if (realpath(o->write_paths[w], buf) && beneath(real, buf))
			return buf;
	return NULL;
}

/* Pin `dir` (see struct plan), once. */
static bool pin_push(struct plan *p, const char *dir)
{
	size_t at;

	for (size_t i = 0; i < p->npin; i++)
		if (!strcmp(p->pin[i], dir))
			return true;
	if (!strv_push(&p->pin, &p->npin, dir))
		return false;
	/* Shortest first: a folder is bound before those beneath it. */
	for (at = p->npin - 1;
	     at > 0 && strlen(p->pin[at - 1]) > strlen(p->pin[at]); at--) {
		char *t = p->pin[at];

		p->pin[at] = p->pin[at - 1];
		p->pin[at - 1] = t;
	}
	return true;
}

/*
 * Bind `real` read-only, and pin every folder from the writable root
 * `root` (included) down to its parent.
 */
static bool pin_parents(struct plan *p, const char *root, const char *real)
{
	char dir[PATH_MAX];
	size_t n = strlen(root);
	bool ok = true;

	if (!beneath(real, root) || strlen(real) >= sizeof(dir))
		return false;
	memcpy(dir, real, strlen(real) + 1);
	for (char *cut = strrchr(dir, '/'); ok && cut && cut - dir >= (long)n;
	     cut = strrchr(dir, '/')) {
		*cut = '\0';
		if (!*dir || strlen(dir) < n)
			break;
		ok = pin_push(p, dir);
	}
	return ok;
}

static bool ro_push(struct plan *p, const char *root, const char *real)
{
	if (!pin_parents(p, root, real))
		return false;
	for (size_t i = 0; i < p->nro; i++)
		if (!strcmp(p->ro[i], real))
			return true;
	return strv_push(&p->ro, &p->nro, real);
}

/*
 * Placeholders. Two runs in one project at once (two agents, or the
 * parallel subagents of one) share them: the one a run made may be the
 * one another run has bound, and removing a folder that is a mount point
 * in another namespace detaches that mount there (the other run's
 * program could then create the protected folder after all). So a
 * placeholder is marked (the sticky bit, set by mkdir() itself so that no
 * other run ever sees it unmarked), every run that uses one holds a
 * shared flock(2) on it, and it is removed only by a run that can take
 * the lock alone (skit__sandbox_placeholders_release()). A run that finds
 * an existing placeholder uses it rather than making another beneath it,
 * and the last run to end removes it, also one left by a killed run.
 */
# define PLACEHOLDER_MODE (S_ISVTX | 0755)

static bool placeholder_marked(const struct stat *st)
{
	return S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) &&
	       st->st_uid == geteuid();
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Hold the placeholder `made` (make it when missing; `exists`: it was
 * there already). An existing folder that is not a placeholder is a
 * folder of the project, bound as any other. True, unless out of memory
 * or `made` cannot be made: *bind says whether to bind it.
 */
static bool placeholder_take(struct plan *p, const char *made, bool *bind)
{
	struct stat st, now;

	*bind = false;
	for (size_t i = 0; i < p->nmade; i++)
		if (!strcmp(p->made[i].path, made))
			return (*bind = true);
	/* A run that removes one holds its lock for an rmdir(): a short
	 * wait, bounded all the same (then it is bound without a lock). */
	for (int tries = 0; tries < 400; tries++) {
		struct skit__placeholder *nv;
		bool locked = true, mine = !mkdir(made, PLACEHOLDER_MODE);
		int fd;

		if (!mine && errno != EEXIST)
			/* A folder we may not create in: the caller decides
			 * (its owner, the program too, could chmod it). */
			return errno == EACCES || errno == EPERM ||
			       errno == EROFS;
		fd = open(made,
		          O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT) /* removed meanwhile */
				continue;
			/* A file has the name: it is bound over itself, so
			 * that it cannot be removed for a folder to take its
			 * place. A link (protect_link() followed it, unless it
			 * came meanwhile) cannot be bound, a mount follows
			 * it: the rest of the plan stands. */
			if (errno == ENOTDIR)
				return (*bind = true);
			return errno == ELOOP;
		}
		if (fstat(fd, &st) < 0 || !placeholder_marked(&st)) {
			close(fd);
			return (*bind = true);
		}
		if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
			if (errno == EWOULDBLOCK || errno == EINTR) {
				close(fd); /* being removed */
				pause_ms(5);
				continue;
			}
			locked = false; /* no locks on this file system */
		}
		/* Still the folder at that name, not one removed meanwhile? */
		if (lstat(made, &now) < 0 || !same_file(&st, &now)) {
			close(fd);
			continue;
		}
		if (!locked) {
			close(fd);
			fd = -1;
		}
		nv = skitx_realloc(p->made, (p->nmade + 1) * sizeof(*nv));
		if (nv)
			p->made = nv;
		if (!nv || !(nv[p->nmade].path = skitx_strdup(made))) {
			if (fd >= 0)
				close(fd);
			return false;
		}
		nv[p->nmade].fd = fd;
		nv[p->nmade++].mine = mine;
		return (*bind = true);
	}
	return (*bind = true);
}

void skit__sandbox_placeholders_release(struct plan *p)
{
	for (size_t i = p->nmade; i-- > 0;) {
		struct skit__placeholder *h = &p->made[i];
		struct stat st, now;

		/* Alone (no other run holds it), still the folder at that
		 * name, still marked (or made by this run, on a file system
		 * that dropped the mark): remove it when empty; a folder the
		 * user filled meanwhile is theirs, and loses the mark. */
		if (h->fd >= 0 && !flock(h->fd, LOCK_EX | LOCK_NB) &&
		    !fstat(h->fd, &st) && !lstat(h->path, &now) &&
		    same_file(&st, &now) &&
		    (placeholder_marked(&now) || h->mine) &&
		    rmdir(h->path) < 0 && errno == ENOTEMPTY)
			(void)fchmod(h->fd, st.st_mode & 0777);
		if (h->fd >= 0)
			close(h->fd);
		else if (h->mine) /* no locks here: as before them */
			rmdir(h->path);
		skitx_free(h->path);
	}
	skitx_free(p->made);
	p->made = NULL;
	p->nmade = 0;
}

/*
 * Plan the read-only bind of one protected path, when it lies beneath a
 * writable folder. One that exists is bound over itself. One that does
 * not exist would be created by the first program that tried (a planted
 * `.agents/skills/x/SKILL.md`, a fresh `.git/hooks`), so its first missing
 * folder is held as a placeholder (above), bound read-only; when the
 * longest existing part of the path is itself a placeholder, that one is;
 * when a dangling link holds the name, what it names is protected
 * (protect_link()). A missing `*.json` file gets its folder bound
 * read-only instead, unless that folder is a writable root.
 */
/*
 * `path` cannot be protected: the run is refused (struct plan, refuse)
 * with "cannot protect PATH: WHY". False, so that planning stops.
 */
static bool refuse(struct plan *p, const char *path, const char *why)
{
	size_t n = strlen(path);

	/* a long path shown by its end, so that the reason fits a message */
	if (!p->refuse[0])
		snprintf(p->refuse, sizeof(p->refuse),
		         "cannot protect %s%.160s: %s; the program was not run",
		         n > 160 ? "..." : "", n > 160 ? path + n - 160 : path,
		         why);
	return false;
}

static bool protect_at(struct plan *p, const struct skit__run_opts *o,
                       const char *path, int depth);

/*
 * A link holds the name of `made`, the first missing part of a protected
 * path (`tail` is what follows it, "" or "/..."): a repository can ship a
 * dangling one, and a program could make what it names, and so the
 * protected path, where it lies in a writable folder. So what it names is
 * protected in its place, link after link (at most 8).
 */
static bool protect_link(struct plan *p, const struct skit__run_opts *o,
                         const char *made, const char *tail, int depth)
{
	char target[PATH_MAX], next[PATH_MAX];
	ssize_t n;
	int k;

	/* A loop, or more links than the kernel follows (40): nothing
	 * resolves through it, and links_push() binds the links. */
	if (!realpath(made, target) && errno == ELOOP)
		return true;
	if (depth >= 8)
		return refuse(p, made, "a chain of more than 8 links");
	n = readlink(made, target, sizeof(target) - 1);
	if (n <= 0)
		return true;
	target[n] = '\0';
	if (target[0] == '/')
		k = snprintf(next, sizeof(next), "%s%s", target, tail);
	else
		k = snprintf(next, sizeof(next), "%.*s/%s%s",
		             (int)(strrchr(made, '/') - made), made, target,
		             tail);
	if (k < 0 || (size_t)k >= sizeof(next))
		return refuse(p, made, "the path it names is too long");
	return protect_at(p, o, next, depth + 1);
}

/*
 * A protected file with another hard link (made before the run: a
 * program cannot make one, EXDEV) could be changed through that other
 * name, which no mount covers. A repository's config and hooks are
 * looked at by repo_protect().
 */
static bool hardlinked(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink > 1;
}

static bool protect_at(struct plan *p, const struct skit__run_opts *o,
                       const char *path, int depth)
{
	char real[PATH_MAX], pre[PATH_MAX], root[PATH_MAX], made[PATH_MAX];
	size_t n = strlen(path), cut;
	const char *rest;
	struct stat st;
	bool bind;

	if (realpath(path, real)) {
		if (!write_root(o, real, root))
			return true;
		if (!lstat(real, &st) && hardlinked(&st))
			return refuse(p, real,
			              "it has another hard link, through which "
			              "a program could change it");
		if (lstat(real, &st) < 0 || !placeholder_marked(&st))
			return ro_push(p, root, real);
		return placeholder_take(p, real, &bind) &&
		       (!bind || ro_push(p, root, real));
	}
	if (path[0] != '/')
		return true;
	if (n >= sizeof(pre))
		return refuse(p, path, "the path is too long");
	/* The longest existing prefix, and the component after it. */
	memcpy(pre, path, n + 1);
	for (cut = n; cut > 1;) {
		while (cut > 1 && pre[cut - 1] != '/')
			cut--;
		if (cut <= 1)
			break;
		pre[cut - 1] = '\0';
		if (realpath(pre, real))
			break;
	}
	if (cut <= 1 || !write_root(o, real, root))
		return true;
	rest = path + cut;
	if (strcmp(real, root) && !lstat(real, &st) && placeholder_marked(&st))
		return placeholder_take(p, real, &bind) &&
		       (!bind || ro_push(p, root, real));
	/* A file where a folder of the path should be (`.agents` a file):
	 * bound, so that it cannot be swapped for a folder. */
	if (strcmp(real, root) && !lstat(real, &st) && !S_ISDIR(st.st_mode))
		return ro_push(p, root, real);
	if ((size_t)snprintf(made, sizeof(made), "%s/%.*s", real,
	                     (int)strcspn(rest, "/"), rest) >= sizeof(made))
		return refuse(p, path, "the path is too long");
	if (!strchr(rest, '/') && n > 5 && !strcmp(path + n - 5, ".json")) {
		/* A dangling link there: what it names too. */
		if (!lstat(made, &st) && S_ISLNK(st.st_mode) &&
		    !protect_link(p, o, made, "", depth))
			return false;
		if (strcmp(real, root))
			return ro_push(p, root, real);
		/* its folder is a writable root (`.agents -> .`): a
		 * placeholder folder where the file would be */
	} else if (!lstat(made, &st) && S_ISLNK(st.st_mode)) {
		return protect_link(p, o, made, rest + strcspn(rest, "/"),
		                    depth);
	}
	if (!placeholder_take(p, made, &bind))
		return false;
	/* Not made: a folder we may not write (mkdir's errno). When it is
	 * ours, the program (our uid) could chmod it: bind it as it is. The
	 * writable root itself cannot be bound so, and a program could make
	 * the path there. Another user's folder, or a read-only file system,
	 * no program of ours can open. */
	if (!bind) {
		int e = errno;

		if (e == EROFS || lstat(real, &st) || st.st_uid != geteuid())
			return true;
	}
	if (!bind && !strcmp(real, root))
		return refuse(
		        p, path,
		        "skit may not make a placeholder in the project's "
		        "folder (its mode), and a program could make the "
		        "path there");
	if (!bind)
		return !strcmp(real, root) || ro_push(p, root, real);
	if (!ro_push(p, root, made))
		return false;
	/* `a/../b` resolves once the placeholder `a` exists: protect the
	 * rest of the path through it too. */
	for (const char *c = rest; (c = strstr(c, "..")); c += 2)
		if ((c == rest || c[-1] == '/') && (c[2] == '/' || !c[2]))
			return depth >= 8 || protect_at(p, o, path, depth + 1);
	return true;
}

/*
 * Walk `path` as the kernel would and push every link met on the way
 * that lies beneath a writable root (pinning the folders above it), so
 * that the program can neither remove nor replace it; and every folder a
 * `..` leaves, which decides where the walk goes on (pinned, or held as
 * the placeholder it is, so that no other run removes it meanwhile). At
 * most 41 links: one more than the kernel follows, so that no program can
 * end the walk after 40 with a folder of its own. The real folder before
 * each component is carried along (resolved afresh only after a link):
 * resolving every prefix would cost the cube of the path's depth.
 */
static bool links_push(struct plan *p, const struct skit__run_opts *o,
                       const char *path)
{
	struct {
		char cur[PATH_MAX], rdir[PATH_MAX], loc[PATH_MAX],
		        target[PATH_MAX], tmp[PATH_MAX], root[PATH_MAX];
	} *b = skitx_malloc(sizeof(*b));
	char *cur, *rdir, *loc, *target, *tmp, *root;
	bool ok = b != NULL, have = false, bind;
	struct stat st;
	size_t at = 0;
	int links = 0;

	if (!ok || strlen(path) >= PATH_MAX || path[0] != '/')
		goto out;
	cur = b->cur;
	rdir = b->rdir;
	loc = b->loc;
	target = b->target;
	tmp = b->tmp;
	root = b->root;
	memcpy(cur, path, strlen(path) + 1);
	while (ok && links <= 40) {
		size_t end, len;
		ssize_t n;
		bool dup = false;

		while (cur[at] == '/')
			at++;
		if (!cur[at])
			break;
		end = at + strcspn(cur + at, "/");
		len = end - at;
		/* the component cur[at..end), in the real folder before it */
		if (!have) {
			memcpy(tmp, cur, at);
			tmp[at] = '\0';
			if (!realpath(tmp, rdir))
				break;
			have = true;
		}
		if (len == 1 && cur[at] == '.') {
			at = end;
			continue;
		}
		if (len == 2 && !strncmp(cur + at, "..", 2)) {
			char *cut = strrchr(rdir, '/');

			if (write_root(o, rdir, root)) {
				if (strcmp(rdir, root) && !lstat(rdir, &st) &&
				    placeholder_marked(&st))
					ok = placeholder_take(p, rdir, &bind) &&
					     (!bind || ro_push(p, root, rdir));
				else
					ok = pin_parents(p, root, rdir) &&
					     pin_push(p, rdir);
			}
			if (cut && cut != rdir)
				*cut = '\0';
			else
				memcpy(rdir, "/", 2);
			at = end;
			continue;
		}
		if ((size_t)snprintf(loc, PATH_MAX, "%s/%.*s",
		                     strcmp(rdir, "/") ? rdir : "", (int)len,
		                     cur + at) >= PATH_MAX ||
		    lstat(loc, &st) < 0)
			break;
		if (!S_ISLNK(st.st_mode)) {
			memcpy(rdir, loc, strlen(loc) + 1);
			at = end;
			continue;
		}
		if (write_root(o, loc, root)) {
			for (size_t i = 0; i < p->nlink; i++)
				dup |= !strcmp(p->link[i], loc);
			ok = dup || (pin_parents(p, root, loc) &&
			             strv_push(&p->link, &p->nlink, loc));
		}
		n = readlink(loc, target, PATH_MAX - 1);
		if (n <= 0)
			break;
		target[n] = '\0';
		/* from here on: the link's target, then the rest */
		n = target[0] == '/'
		            ? snprintf(tmp, PATH_MAX, "%s%s", target, cur + end)
		            : snprintf(tmp, PATH_MAX, "%s/%s%s", rdir, target,
		                       cur + end);
		if (n < 0 || n >= PATH_MAX)
			break;
		memcpy(cur, tmp, (size_t)n + 1);
		at = 0;
		have = false;
		links++;
	}
out:
	skitx_free(b);
	return ok;
}

/* Entries of a repository folder looked at for links: more, and the run
 * is refused rather than a link left unseen (git packs its objects: a
 * repository holds a few thousand entries). */
# define REPO_ENTRIES_MAX 200000

/*
 * Every link beneath the repository folder `dir` (`.git/refs ->
 * ../myrefs`, a ref, `objects/ab`, `info`): git follows them, so what
 * they name is protected too. Deeper than 64 folders or more than
 * REPO_ENTRIES_MAX entries: refused (a link there would go unseen).
 * `*seen` counts the entries.
 */
static bool repo_links(struct plan *p, const struct skit__run_opts *o,
                       const char *dir, int depth, size_t *seen)
{
	struct dirent *de;
	struct stat st;
	bool ok = true;
	DIR *d;

	if (depth > 64)
		return refuse(p, dir, "a repository folder more than 64 deep");
	if (!(d = opendir(dir)))
		return true;
	while (ok && (de = readdir(d))) {
		char sub[PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++*seen > REPO_ENTRIES_MAX) {
			ok = refuse(p, dir,
			            "a repository folder with more than "
			            "200000 entries");
			break;
		}
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", dir,
		                     de->d_name) >= sizeof(sub) ||
		    lstat(sub, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode))
			ok = protect_at(p, o, sub, 0) && links_push(p, o, sub);
		else if (S_ISDIR(st.st_mode))
			ok = repo_links(p, o, sub, depth + 1, seen);
	}
	closedir(d);
	return ok;
}

/*
 * A repository's folder `dir` (a `.git` folder, or the one a `.git` file
 * names): a config or hook with another hard link refuses the run (see
 * hardlinked()), and a config, hooks folder or hook that is a link
 * (`.git/hooks -> ../githooks`, a hook kept in the project) has what it
 * names protected too: git follows them.
 */
static bool repo_protect(struct plan *p, const struct skit__run_opts *o,
                         const char *dir)
{
	char real[PATH_MAX], sub[PATH_MAX];
	static const char *const names[] = { "config", "hooks" };
	struct dirent *de;
	struct stat st;
	bool ok = true;
	DIR *d;

	if (!realpath(dir, real) || stat(real, &st) < 0 || !S_ISDIR(st.st_mode))
		return true;
	for (size_t i = 0; ok && i < SKIT_ARRAY_SIZE(names); i++)
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", real,
		                     names[i]) < sizeof(sub) &&
		    !lstat(sub, &st)) {
			if (hardlinked(&st))
				return refuse(
				        p, sub,
				        "it has another hard link, through "
				        "which a program could change it");
			if (S_ISLNK(st.st_mode))
				ok = protect_at(p, o, sub, 0) &&
				     links_push(p, o, sub);
		}
	if (ok) {
		size_t seen = 0;

		ok = repo_links(p, o, real, 0, &seen);
	}
	if (!ok ||
	    (size_t)snprintf(sub, sizeof(sub), "%s/hooks", real) >=
	            sizeof(sub) ||
	    !(d = opendir(sub)))
		return ok;
	while (ok && (de = readdir(d))) {
		char hook[PATH_MAX];

		if ((size_t)snprintf(hook, sizeof(hook), "%s/%s", sub,
		                     de->d_name) >= sizeof(hook) ||
		    lstat(hook, &st) < 0)
			continue;
		if (hardlinked(&st))
			ok = refuse(p, hook,
			            "it has another hard link, through which a "
			            "program could change it");
		else if (S_ISLNK(st.st_mode))
			ok = protect_at(p, o, hook, 0) &&
			     links_push(p, o, hook);
	}
	closedir(d);
	return ok;
}

/*
 * A `.git` file (a worktree's, or `git init --separate-git-dir`) names
 * the repository's real folder, "gitdir: PATH": its config and hooks run
 * code as much as a `.git` folder's, so it is protected too. `*out` gets
 * it as an absolute path; false when `path` is no such file.
 */
/* The file `path` = `tag` PATH (trailing line breaks cut, as git does:
 * one inside is part of the path): PATH, relative to `base`, into
 * `*out`. False when `path` is no such file. */
static bool pointer_of(const char *path, const char *tag, const char *base,
                       size_t nbase, char out[PATH_MAX])
{
	char line[PATH_MAX + 16];
	size_t nt = strlen(tag);
	struct stat st;
	ssize_t got;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return false;
	got = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (got <= (ssize_t)nt || strncmp(line, tag, nt))
		return false;
	while (got > (ssize_t)nt &&
	       (line[got - 1] == '\n' || line[got - 1] == '\r'))
		got--;
	line[got] = '\0';
	if (got == (ssize_t)nt)
		return false;
	if (line[nt] == '/')
		return (size_t)snprintf(out, PATH_MAX, "%s", line + nt) <
		       PATH_MAX;
	return (size_t)snprintf(out, PATH_MAX, "%.*s/%s", (int)nbase, base,
	                        line + nt) < PATH_MAX;
}

static bool gitdir_of(const char *path, char out[PATH_MAX])
{
	size_t n = strlen(path);

	/* as git reads it (setup.c, read_gitfile_gently()): a link to
	 * such a file followed, PATH still relative to the `.git` */
	return n >= 5 && !strcmp(path + n - 5, "/.git") &&
	       pointer_of(path, "gitdir: ", path, n - 5, out);
}

/*
 * A repository folder's `commondir` names the folder git reads the
 * config, hooks, objects and refs from (setup.c, get_common_dir_noenv(),
 * in any repository, not only a worktree's): protected as the repository
 * is.
 */
static bool common_protect(struct plan *p, const struct skit__run_opts *o,
                           const char *dir)
{
	char file[PATH_MAX], common[PATH_MAX];

	if ((size_t)snprintf(file, sizeof(file), "%s/commondir", dir) >=
	            sizeof(file) ||
	    !pointer_of(file, "", dir, strlen(dir), common))
		return true;
	return protect_at(p, o, common, 0) && links_push(p, o, common) &&
	       repo_protect(p, o, common);
}

static bool protect_one(struct plan *p, const struct skit__run_opts *o,
                        const char *path)
{
	char gitdir[PATH_MAX];

	/* after protect_at(): its placeholders may be on the way */
	if (!protect_at(p, o, path, 0) || !links_push(p, o, path))
		return false;
	if (strlen(path) >= 5 && !strcmp(path + strlen(path) - 5, "/.git") &&
	    (!repo_protect(p, o, path) || !common_protect(p, o, path)))
		return false;
	return !gitdir_of(path, gitdir) ||
	       (protect_at(p, o, gitdir, 0) && links_push(p, o, gitdir) &&
	        repo_protect(p, o, gitdir) && common_protect(p, o, gitdir));
}

/*
 * `*out` = the real path of `path` (an allocated copy), or NULL when
 * `path` is NULL or cannot be resolved (it is then used as given). False
 * only when out of memory.
 */
static bool real_copy(char **out, const char *path)
{
	char real[PATH_MAX];

	*out = NULL;
	if (!path || !realpath(path, real))
		return true;
	*out = skitx_strdup(real);
	return *out != NULL;
}

/*
 * What A mounts (skit__sandbox_mount_setup()): the host folders to hide, the
 * run's own folders beneath them, and the protected paths that exist beneath a
 * writable folder (the others cannot be written anyway). False when a
 * list could not be made: the mount namespace is then not asked for.
 */
bool skit__sandbox_plan_mounts(struct plan *p, const struct skit__run_opts *o)
{
	static const char *const hidden[] = { "/tmp", "/run", "/var/run" };
	const char *const *lists[2] = { o->read_paths, o->write_paths };
	char real[PATH_MAX];
	struct stat st;
	bool ok = true;

	/* full-access: the host's file system as it is, /tmp included. */
	if (o->fs_full)
		return false;
	/* A relative program is found from the folder C enters: as given. */
	if ((o->path && o->path[0] == '/' && !real_copy(&p->path, o->path)) ||
	    !real_copy(&p->cwd, o->cwd))
		return false;
	for (size_t i = 0; ok && i < SKIT_ARRAY_SIZE(hidden); i++)
		if (!lstat(hidden[i], &st) && S_ISDIR(st.st_mode))
			ok = strv_push(&p->hide, &p->nhide, hidden[i]);
	for (size_t l = 0; ok && l < 2; l++) {
		for (size_t i = 0; ok && lists[l] && lists[l][i]; i++) {
			bool under = false, dup = false;

			if (!realpath(lists[l][i], real))
				continue;
			for (size_t h = 0; h < p->nhide; h++)
				under |= beneath(real, p->hide[h]);
			for (size_t r = 0; r < p->nrebind; r++)
				dup |= beneath(real, p->rebind[r]);
			if (!under || dup)
				continue;
			/* A folder holding earlier ones replaces them. */
			for (size_t r = 0; r < p->nrebind;) {
				if (beneath(p->rebind[r], real)) {
					skitx_free(p->rebind[r]);
					p->rebind[r] = p->rebind[--p->nrebind];
				} else {
					r++;
				}
			}
			ok = strv_push(&p->rebind, &p->nrebind, real);
		}
	}
	for (size_t i = 0; ok && o->protect_paths && o->protect_paths[i]; i++)
		ok = protect_one(p, o, o->protect_paths[i]);
	return ok && p->nrebind <= MAX_REBIND;
}
#endif /* __linux__ */
