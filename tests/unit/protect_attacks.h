/* SPDX-License-Identifier: MIT */
/*
 * protect_attacks.h - what the test_protect_attacks*.c files share: a
 * project under SKIT_TEST_DIR/proj with the six protected paths of
 * agent/protect.c, a fingerprint of each (and of the repository git would
 * read: `.git` or the folder a `.git` file names, its `commondir`, config
 * and hooks, links followed), and runs of a hostile /bin/sh script
 * confined in threads (start(), finish()), ordered by files, never by
 * time. attack() runs one that must change nothing protected and keep
 * the mount namespace; attack_refused() one skit must refuse to run. A
 * program's TRY "-BROKE" fails attack() too.
 *
 * Include it once, after "common.h" (with _GNU_SOURCE defined first) and
 * PROTECT_ATTACKS_NAME (the default scratch folder's last part) defined.
 */
#ifndef SKIT_TEST_PROTECT_ATTACKS_H
#define SKIT_TEST_PROTECT_ATTACKS_H

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "skit/sandbox.h"
#include "lib/sandbox/sandbox_int.h"
#include "util/fs.h"

#define NPROT 6
#define NSNAP (NPROT + 1) /* and the repository git would use */

/* the protected paths of a project (agent/protect.c) */
static const char *const prot_rel[NPROT] = {
	".git",           ".agents/skills",    ".agent/skills",
	".claude/skills", ".agents/skit.json", ".agents/runs",
};

static char proj[PATH_MAX];
static char prot_abs[NPROT][2 * PATH_MAX];
static const char *prot_list[NPROT + 1];
static const char *write_list[2];

static char *env_default[] = { "PATH=/usr/local/bin:/usr/bin:/bin",
	                       "LANG=C.UTF-8", NULL };

/* rm -rf `name` beneath `dfd`, without following links. */
static inline void rm_rf_at(int dfd, const char *name)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(dfd, name, 0);
		return;
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			rm_rf_at(dirfd(d), de->d_name);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	unlinkat(dfd, name, AT_REMOVEDIR);
}

static inline const char *at(const char *rel)
{
	static char buf[4][2 * PATH_MAX];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", proj, rel);
	return buf[i];
}

static inline bool can_protect(void)
{
	if (skit_sandbox_available() & SKIT_SANDBOX_MOUNTNS)
		return true;
	printf("note: no mount namespace here; attacks not run\n");
	return false;
}

static inline void set_proj(const char *path)
{
	snprintf(proj, sizeof(proj), "%s", path);
	for (size_t i = 0; i < NPROT; i++) {
		snprintf(prot_abs[i], sizeof(prot_abs[i]), "%s/%s", proj,
		         prot_rel[i]);
		prot_list[i] = prot_abs[i];
	}
	prot_list[NPROT] = NULL;
	write_list[0] = proj;
	write_list[1] = NULL;
}

/* SKIT_TEST_DIR/`name` */
static inline const char *test_dir(const char *name)
{
	static char path[PATH_MAX];
	const char *t = getenv("SKIT_TEST_DIR");

	snprintf(path, sizeof(path), "%s/%s",
	         t ? t : "/tmp/skit-test-" PROTECT_ATTACKS_NAME, name);
	return path;
}

/* A fresh, empty project: SKIT_TEST_DIR/proj. */
static inline void fresh(void)
{
	const char *path = test_dir("proj");

	rm_rf_at(AT_FDCWD, path);
	ASSERT_OK(skitx_fs_mkdir_p(path, 0755));
	set_proj(path);
}

static inline void mkdirs(const char *rel)
{
	ASSERT_OK(skitx_fs_mkdir_p(at(rel), 0755));
}

static inline void put(const char *rel, const char *text)
{
	FILE *f = fopen(at(rel), "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static inline void link_at(const char *target, const char *rel)
{
	ASSERT_OK(symlink(target, at(rel)));
}

/* ---- fingerprints ------------------------------------------------------ */

static inline uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--) {
		h ^= *b++;
		h *= 1099511628211ULL;
	}
	return h;
}

/* What a reader finds at `name` beneath `dfd` (followed when `follow`):
 * type, identity, size, mtime, a link's body, a file's bytes, a folder's
 * entries, recursively (entries not followed). */
static inline uint64_t fp_at(int dfd, const char *name, bool follow, int depth)
{
	uint64_t h = 1469598103934665603ULL, sum = 0;
	int nf = follow ? 0 : O_NOFOLLOW, fd;
	struct dirent *de;
	struct stat st;
	char buf[4096];
	ssize_t n;
	DIR *d;

	if (fstatat(dfd, name, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) < 0)
		return mix(h, "missing", 7);
	h = mix(h, &st.st_mode, sizeof(st.st_mode));
	h = mix(h, &st.st_ino, sizeof(st.st_ino));
	h = mix(h, &st.st_nlink, sizeof(st.st_nlink));
	h = mix(h, &st.st_size, sizeof(st.st_size));
	h = mix(h, &st.st_mtim, sizeof(st.st_mtim));
	if (S_ISLNK(st.st_mode)) {
		n = readlinkat(dfd, name, buf, sizeof(buf));
		return n > 0 ? mix(h, buf, (size_t)n) : h;
	}
	if (S_ISREG(st.st_mode)) {
		fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | nf);
		while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
			h = mix(h, buf, (size_t)n);
		if (fd >= 0)
			close(fd);
		return h;
	}
	if (!S_ISDIR(st.st_mode) || depth > 16)
		return h;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | nf);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			sum += mix(
			        fp_at(dirfd(d), de->d_name, false, depth + 1),
			        de->d_name, strlen(de->d_name));
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	return mix(h, &sum, sizeof(sum));
}

/*
 * What git reads (setup.c, read_gitfile_gently()): `.git` followed; a
 * file there is "gitdir: PATH" with only the trailing CR and LF cut,
 * PATH relative to the project. The repository, its config, its hooks
 * folder and each hook, all followed.
 */
static inline uint64_t git_fp(void)
{
	char gd[3 * PATH_MAX], line[PATH_MAX + 16], sub[4 * PATH_MAX];
	uint64_t h = 0;
	struct dirent *de;
	struct stat st;
	ssize_t n = 0;
	DIR *d;
	int fd;

	snprintf(gd, sizeof(gd), "%s", at(".git"));
	if (!stat(gd, &st) && S_ISREG(st.st_mode) &&
	    (fd = open(gd, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		line[n > 0 ? n : 0] = '\0';
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 8 && !strncmp(line, "gitdir: ", 8))
			snprintf(gd, sizeof(gd), "%s%s%s",
			         line[8] == '/' ? "" : proj,
			         line[8] == '/' ? "" : "/", line + 8);
	}
	h = mix(h, gd, strlen(gd));
	h = mix(h, (uint64_t[]){ fp_at(AT_FDCWD, gd, true, 0) }, 8);
	/* its common folder: "commondir" read as the `.git` file is, PATH
	 * relative to the repository (git's config and hooks are there) */
	snprintf(sub, sizeof(sub), "%s/commondir", gd);
	if ((fd = open(sub, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0) {
		n = read(fd, line, sizeof(line) - 1);
		close(fd);
		line[n > 0 ? n : 0] = '\0';
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n > 0) {
			if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s",
			                     line[0] == '/' ? "" : gd,
			                     line[0] == '/' ? "" : "/",
			                     line) < sizeof(sub) &&
			    strlen(sub) < sizeof(gd))
				memcpy(gd, sub, strlen(sub) + 1);
			h = mix(h, gd, strlen(gd));
		}
	}
	snprintf(sub, sizeof(sub), "%s/config", gd);
	h = mix(h, (uint64_t[]){ fp_at(AT_FDCWD, sub, true, 0) }, 8);
	snprintf(sub, sizeof(sub), "%s/hooks", gd);
	h = mix(h, (uint64_t[]){ fp_at(AT_FDCWD, sub, true, 0) }, 8);
	d = opendir(sub);
	while (d && (de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			h += fp_at(dirfd(d), de->d_name, true, 0);
	if (d)
		closedir(d);
	return h;
}

static inline void snapshot(uint64_t out[NSNAP])
{
	int base = open(proj, O_PATH | O_DIRECTORY | O_CLOEXEC);

	ASSERT(base >= 0);
	for (size_t i = 0; i < NPROT; i++)
		out[i] = fp_at(base, prot_rel[i], true, 0);
	close(base);
	out[NPROT] = git_fp();
}

/* How many protected paths differ from `before` (each one printed). */
static inline int changed(const uint64_t before[NSNAP])
{
	uint64_t now[NSNAP];
	int k = 0;

	snapshot(now);
	for (size_t i = 0; i < NSNAP; i++)
		if (now[i] != before[i]) {
			printf("CHANGED: %s\n",
			       i < NPROT ? prot_rel[i] : "git's repository");
			k++;
		}
	return k;
}

/* ---- runs -------------------------------------------------------------- */

static bool broke; /* a program said "-BROKE" */

struct run {
	const char *script;
	struct skit__run_result res;
	int rc;
	char msg[PATH_MAX + 256];
	pthread_t thread;
};

static inline void *run_main(void *arg)
{
	struct run *r = arg;
	char *argv[] = { "/bin/sh", "-c", (char *)r->script, NULL };
	struct skit__run_opts o;
	skit_error err = { 0 };

	memset(&o, 0, sizeof(o));
	o.path = argv[0];
	o.argv = argv;
	o.envp = env_default;
	o.cwd = proj;
	o.timeout_ms = 30000;
	o.grace_ms = 300;
	o.output_cap = 64 * 1024;
	o.confine = true;
	o.write_paths = write_list;
	o.protect_paths = prot_list;
	r->rc = skit__run(&r->res, &o, &err);
	if (r->rc)
		snprintf(r->msg, sizeof(r->msg), "%s", err.message);
	return NULL;
}

static inline void start(struct run *r, const char *script)
{
	memset(r, 0, sizeof(*r));
	r->script = script;
	ASSERT_OK(pthread_create(&r->thread, NULL, run_main, r));
}

/* Join the run; print what it said; its layers (0 when it failed). */
static inline unsigned int finish(struct run *r)
{
	unsigned int layers;

	ASSERT_OK(pthread_join(r->thread, NULL));
	printf("%s", skitx_buf_cstr(&r->res.out));
	broke |= strstr(skitx_buf_cstr(&r->res.out), "-BROKE") != NULL;
	if (r->rc)
		printf("run: rc %d: %s, stderr: %s\n", r->rc, r->msg,
		       skitx_buf_cstr(&r->res.err));
	layers = r->rc ? 0 : r->res.layers;
	skit__run_result_release(&r->res);
	return layers;
}

/* Wait (at most 30 s) until the file `rel` of the project exists. */
static inline void wait_for(const char *rel)
{
	struct timespec ts = { 0, 10 * 1000000L };

	for (int i = 0; i < 3000; i++) {
		if (!access(at(rel), F_OK))
			return;
		nanosleep(&ts, NULL);
	}
	HARNESS_FAIL("%s never appeared", rel);
}

/* The program `script`, in the project as it is now: it runs (not
 * refused), keeps the mount namespace and changes nothing protected. */
static inline void attack(const char *script)
{
	uint64_t before[NSNAP];
	unsigned int layers;
	struct run r;

	snapshot(before);
	broke = false;
	start(&r, script);
	layers = finish(&r);
	ASSERT_EQ(r.rc, 0);
	ASSERT(layers & SKIT_SANDBOX_MOUNTNS);
	ASSERT_EQ(changed(before), 0);
	ASSERT(!broke);
}

/* The program `script`, in a project skit cannot protect: the run is
 * refused (the program never starts) with `why` in the message, and no
 * protected path changed. */
static inline void attack_refused(const char *script, const char *why)
{
	uint64_t before[NSNAP];
	struct run r;

	snapshot(before);
	start(&r, script);
	ASSERT_OK(pthread_join(r.thread, NULL));
	printf("run: rc %d: %s\n", r.rc, r.msg);
	ASSERT_EQ(r.rc, SKIT_EUNSAFE);
	ASSERT_CONTAINS(r.msg, "cannot protect ");
	ASSERT_CONTAINS(r.msg, why);
	ASSERT_CONTAINS(r.msg, "the program was not run");
	ASSERT_EQ(r.res.out.len, 0);
	skit__run_result_release(&r.res);
	ASSERT_EQ(changed(before), 0);
}

/* `cmd` (quoted for the shell), then say whether it worked. */
#define TRY(tag, cmd) \
 "if " cmd " 2>/dev/null; then echo " tag "-BROKE; else echo " tag "-held; fi; "
/* A program that waits for the file `go` (made by the test). */
#define WAIT(go)                                                  \
 "i=0; while [ ! -e " go " ] && [ $i -lt 3000 ]; do sleep 0.01; " \
 "i=$((i+1)); done; "

#endif
