/* SPDX-License-Identifier: MIT */
/*
 * test_pack.c - packs and installed roots through the public API, and
 * the crash test: an install killed with SIGKILL at every point where it
 * touches the disk leaves each skill old or new and complete, and the
 * next command rolls the whole install back or finds it done.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "support/httpd.h"
#include "lib/pack_int.h"
#include "skit/skit.h"
#include "util/fs.h"

static char *path_of(const char *dir, const char *name)
{
	static char buf[8][4096];
	static int k;
	char *p = buf[k++ % 8], tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s/%s", dir, name);
	memcpy(p, tmp, sizeof(tmp));
	return p;
}

/* A fresh, empty folder under SKIT_TEST_DIR. */
static const char *scratch(const char *name)
{
	static char buf[4][4096];
	static int k;
	const char *top = getenv("SKIT_TEST_DIR");
	char *p = buf[k++ % 4];
	char cmd[8300];

	snprintf(p, 4096, "%s/%s", top ? top : "/tmp/skit-test-pack", name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", p);
	ASSERT_OK(system(cmd));
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	return p;
}

static void put(const char *path, const char *text, mode_t mode)
{
	char *dir = strdup(path);

	*strrchr(dir, '/') = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	free(dir);
	ASSERT_OK(skitx_fs_write_atomic(path, text, strlen(text), mode));
}

/* A valid skill `name` in `dir`, its script and notes carrying `tag`. */
static void skill(const char *dir, const char *name, const char *tag,
                  const char *allowed)
{
	char text[1024];

	snprintf(text, sizeof(text),
	         "---\nname: %s\ndescription: Does %s things. Use when "
	         "testing.\n%s%s%s---\nBody of %s (%s).\n",
	         name, name, allowed ? "allowed-tools: " : "",
	         allowed ? allowed : "", allowed ? "\n" : "", name, tag);
	put(path_of(path_of(dir, name), "SKILL.md"), text, 0644);
	snprintf(text, sizeof(text), "#!/bin/sh\necho %s %s\n", name, tag);
	put(path_of(path_of(dir, name), "scripts/run.sh"), text, 0755);
	snprintf(text, sizeof(text), "Notes for %s, %s.\n", name, tag);
	put(path_of(path_of(dir, name), "references/notes.md"), text, 0644);
}

static void pack_dir(const char *dir, const char *const *names, size_t n,
                     const char *out)
{
	const char *dirs[8];
	skit_error err = { 0 };

	for (size_t i = 0; i < n; i++)
		dirs[i] = strdup(path_of(dir, names[i]));
	if (skit_pack(dirs, n, out, NULL, NULL, &err) < 0)
		HARNESS_FAIL("skit_pack: %s", err.message);
	for (size_t i = 0; i < n; i++)
		free((void *)dirs[i]);
}

/* The files of `root`/`name` (empty when absent). */
static void snap(const char *root, const char *name, struct skit__pskill *s)
{
	int fd = open(root, O_RDONLY | O_DIRECTORY);

	memset(s, 0, sizeof(*s));
	ASSERT(fd >= 0);
	if (faccessat(fd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		ASSERT_OK(skit__tree_hash(fd, name, s, NULL));
	close(fd);
}

static bool same(const struct skit__pskill *a, const struct skit__pskill *b)
{
	return skit__pskill_same_files(a, b);
}

static int staging_left(const char *root)
{
	DIR *d = opendir(root);
	struct dirent *de;
	int n = 0;

	ASSERT(d != NULL);
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, ".staging-", 9);
	closedir(d);
	return n;
}

static int install(const char *root, const char *src, unsigned int flags)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_error err = { 0 };
	int rc;

	o.flags = flags;
	rc = skit_install(root, src, &o, NULL, &err);
	if (rc < 0 && getenv("SKIT_TEST_VERBOSE"))
		fprintf(stderr, "install: %s\n", err.message);
	return rc;
}

static size_t findings(const char *root)
{
	skit_verify_result *r = NULL;
	skit_error err = { 0 };
	size_t n;

	if (skit_verify(&r, root, NULL, &err) < 0)
		HARNESS_FAIL("verify: %s", err.message);
	n = skit_verify_count(r);
	skit_verify_free(r);
	return n;
}

static void test_pack__reproducible_and_round_trip(void)
{
	const char *src = scratch("rt-src"), *out = scratch("rt-out");
	const char *names[] = { "beta", "alpha" };
	char a[4096], b[4096];
	struct skitx_buf x = SKITX_BUF_INIT, y = SKITX_BUF_INIT;
	skit_lock *lock = NULL;
	skit_error err = { 0 };

	skill(src, "alpha", "one", NULL);
	skill(src, "beta", "one", "Bash(git:*) Read");
	snprintf(a, sizeof(a), "%s/a.zip", out);
	snprintf(b, sizeof(b), "%s/b.skill", out);
	pack_dir(src, names, 2, a);
	/* Other times on the source must not matter. */
	ASSERT_OK(utimensat(AT_FDCWD,
	                    path_of(path_of(src, "alpha"), "SKILL.md"),
	                    (struct timespec[]){ { 1, 0 }, { 1, 0 } }, 0));
	pack_dir(src, names, 2, b);
	ASSERT_OK(skitx_fs_read_file(a, &x, 1u << 20));
	ASSERT_OK(skitx_fs_read_file(b, &y, 1u << 20));
	ASSERT_EQ(x.len, y.len);
	ASSERT(memcmp(x.ptr, y.ptr, x.len) == 0);
	skitx_buf_release(&x);
	skitx_buf_release(&y);

	ASSERT_OK(install(path_of(out, "root"), b, 0));
	ASSERT_EQ(findings(path_of(out, "root")), 0);
	ASSERT_OK(skit_lock_read(&lock, path_of(out, "root"), &err));
	ASSERT_EQ(skit_lock_count(lock), 2);
	ASSERT_STR(skit_lock_at(lock, 0)->name, "alpha");
	ASSERT_EQ(skit_lock_at(lock, 0)->files, 3);
	ASSERT(!strncmp(skit_lock_at(lock, 1)->resolved, "sha256:", 7));
	skit_lock_free(lock);
	/* The same pack again changes nothing and needs no --force. */
	ASSERT_OK(install(path_of(out, "root"), b, 0));
	ASSERT_EQ(staging_left(path_of(out, "root")), 0);
}

static void test_pack__refuses_invalid_and_duplicate(void)
{
	const char *src = scratch("inv-src");
	const char *dirs[2];
	skit_pack_options strict = SKIT_PACK_OPTIONS_INIT;
	skit_error err = { 0 };
	char out[4096];

	strict.flags = SKIT_PACK_STRICT;
	skill(src, "good", "x", NULL);
	put(path_of(path_of(src, "bad"), "SKILL.md"),
	    "---\nname: Bad_Name\ndescription: x\n---\n", 0644);
	snprintf(out, sizeof(out), "%s/p.zip", src);
	dirs[0] = strdup(path_of(src, "good"));
	dirs[1] = strdup(path_of(src, "bad"));
	/* conformance refuses the name; the loading rules pack it as bad */
	ASSERT_EQ(skit_pack(dirs, 2, out, &strict, NULL, &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "bad");
	ASSERT(access(out, F_OK) != 0);
	ASSERT_OK(skit_pack(dirs, 2, out, NULL, NULL, &err));
	unlink(out);
	put(path_of(path_of(src, "bad"), "SKILL.md"), "---\nname: bad\n---\n",
	    0644);
	ASSERT_EQ(skit_pack(dirs, 2, out, NULL, NULL, &err), SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "description");
	ASSERT(access(out, F_OK) != 0);
	free((void *)dirs[1]);
	dirs[1] = strdup(dirs[0]);
	ASSERT_EQ(skit_pack(dirs, 2, out, NULL, NULL, &err), SKIT_EEXISTS);
	free((void *)dirs[0]);
	free((void *)dirs[1]);
}

struct seen {
	size_t n;
	bool sensitive[8];
	size_t changes[8];
	skit_install_action action[8];
};

static int record_plan(void *ud, const skit_install_item *items, size_t n)
{
	struct seen *s = ud;

	s->n = n;
	for (size_t i = 0; i < n && i < 8; i++) {
		s->sensitive[i] = items[i].sensitive;
		s->changes[i] = items[i].change_count;
		s->action[i] = items[i].action;
	}
	return 0;
}

static int update(const char *root, struct seen *s)
{
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_error err = { 0 };

	memset(s, 0, sizeof(*s));
	o.on_plan = record_plan;
	o.userdata = s;
	return skit_update(root, NULL, &o, NULL, &err);
}

static void test_pack__update_flags_scripts_and_tools(void)
{
	const char *src = scratch("upd-src"), *root = scratch("upd-root");
	struct seen s;

	skill(src, "tool", "v1", "Read");
	ASSERT_OK(install(root, path_of(src, "tool"), 0));
	/* Nothing changed: kept. */
	ASSERT_OK(update(root, &s));
	ASSERT_EQ(s.n, 1);
	ASSERT_EQ(s.action[0], SKIT_INSTALL_UNCHANGED);
	/* A reference changes: replaced, not sensitive. */
	put(path_of(path_of(src, "tool"), "references/notes.md"), "new\n",
	    0644);
	ASSERT_OK(update(root, &s));
	ASSERT_EQ(s.action[0], SKIT_INSTALL_REPLACED);
	ASSERT_EQ(s.changes[0], 1);
	ASSERT(!s.sensitive[0]);
	/* A script changes: sensitive. */
	put(path_of(path_of(src, "tool"), "scripts/run.sh"), "#!/bin/sh\n",
	    0755);
	ASSERT_OK(update(root, &s));
	ASSERT(s.sensitive[0]);
	/* allowed-tools changes (the body too, so SKILL.md differs). */
	skill(src, "tool", "v1", "Read Bash(curl:*)");
	put(path_of(path_of(src, "tool"), "scripts/run.sh"), "#!/bin/sh\n",
	    0755);
	put(path_of(path_of(src, "tool"), "references/notes.md"), "new\n",
	    0644);
	ASSERT_OK(update(root, &s));
	ASSERT_EQ(s.changes[0], 1);
	ASSERT(s.sensitive[0]);
	ASSERT_EQ(findings(root), 0);
}

static void test_pack__from_lock(void)
{
	const char *src = scratch("fl-src"), *r1 = scratch("fl-r1");
	const char *r2 = scratch("fl-r2"), *r3 = scratch("fl-r3");
	skit_error err = { 0 };
	struct skit__pskill a, b;
	char lock[4096];

	skill(src, "one", "v1", NULL);
	skill(src, "two", "v1", NULL);
	ASSERT_OK(install(r1, src, 0));
	snprintf(lock, sizeof(lock), "%s/.skit-lock.json", r1);
	ASSERT_OK(skit_install_from_lock(r2, lock, NULL, NULL, &err));
	snap(r1, "two", &a);
	snap(r2, "two", &b);
	ASSERT(a.nfiles == 3 && same(&a, &b));
	skit__pskill_release(&a);
	skit__pskill_release(&b);
	ASSERT_EQ(findings(r2), 0);
	/* The source moved on: the lock no longer matches, nothing lands. */
	put(path_of(path_of(src, "two"), "references/notes.md"), "moved\n",
	    0644);
	ASSERT_EQ(skit_install_from_lock(r3, lock, NULL, NULL, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "does not match the lock");
	ASSERT(access(path_of(r3, "one"), F_OK) != 0);
	ASSERT_EQ(staging_left(r3), 0);
}

static void test_pack__uninstall_and_errors(void)
{
	const char *src = scratch("un-src"), *root = scratch("un-root");
	skit_error err = { 0 };
	skit_lock *lock = NULL;

	skill(src, "gone", "v1", NULL);
	skill(src, "kept", "v1", NULL);
	ASSERT_OK(install(root, src, 0));
	ASSERT_OK(skit_uninstall(root, "gone", &err));
	ASSERT(access(path_of(root, "gone"), F_OK) != 0);
	ASSERT_OK(skit_lock_read(&lock, root, &err));
	ASSERT_EQ(skit_lock_count(lock), 1);
	skit_lock_free(lock);
	ASSERT_EQ(skit_uninstall(root, "gone", &err), SKIT_ENOTFOUND);
	ASSERT_EQ(skit_uninstall(root, "../x", &err), SKIT_EUSAGE);
	ASSERT_EQ(install(root, path_of(src, "nope"), 0), SKIT_ENOTFOUND);
	/* A different version over an installed one needs FORCE. */
	skill(src, "kept", "v2", NULL);
	ASSERT_EQ(install(root, path_of(src, "kept"), 0), SKIT_EEXISTS);
	ASSERT_OK(install(root, path_of(src, "kept"), SKIT_INSTALL_FORCE));
	ASSERT_EQ(findings(root), 0);
}

static void test_pack__install_from_url(void)
{
	const char *src = scratch("url-src"), *root = scratch("url-root");
	const char *names[] = { "web-skill" };
	struct skitx_buf zip = SKITX_BUF_INIT;
	httpd_response r = HTTPD_RESPONSE_INIT;
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_install_result *res = NULL;
	skit_error err = { 0 };
	skit_lock *lock = NULL;
	struct httpd *h;
	char pack[4096], url[256];

	skill(src, "web-skill", "v1", NULL);
	snprintf(pack, sizeof(pack), "%s/p.zip", src);
	pack_dir(src, names, 1, pack);
	ASSERT_OK(skitx_fs_read_file(pack, &zip, 1u << 20));
	ASSERT_OK(httpd_start(&h));
	r.content_type = "application/zip";
	r.body = zip.ptr;
	r.body_len = zip.len;
	httpd_push(h, &r);
	snprintf(url, sizeof(url), "%s/packs/p.zip", httpd_url(h));
	ASSERT_OK(skit_install(root, url, &o, &res, &err));
	ASSERT_EQ(skit_install_result_count(res), 1);
	ASSERT_STR(skit_install_result_at(res, 0)->source, url);
	skit_install_result_free(res);
	ASSERT_STR(httpd_request_at(h, 0)->path, "/packs/p.zip");
	ASSERT_OK(skit_lock_read(&lock, root, &err));
	ASSERT_EQ(skit_lock_count(lock), 1);
	ASSERT(!strncmp(skit_lock_at(lock, 0)->resolved, "sha256:", 7));
	skit_lock_free(lock);
	ASSERT_EQ(findings(root), 0);
	/* Over the download cap: refused, nothing changes. */
	httpd_push(h, &r);
	o.max_download_bytes = zip.len / 2;
	ASSERT_EQ(skit_install(scratch("url-root2"), url, &o, NULL, &err),
	          SKIT_ETOOBIG);
	httpd_stop(h);
	skitx_buf_release(&zip);
}

/*
 * Kill an install at its 1st, 2nd, ... crash point until one runs to the
 * end. After each death: every skill is old or new, complete; after the
 * next command (verify, which recovers), all are old or all are new.
 */
static void crash_loop(const char *name, bool uninstall)
{
	const char *src1 = scratch("crash-v1"), *src2 = scratch("crash-v2");
	const char *names[] = { "a-skill", "b-skill", "c-skill", "d-skill" };
	struct skit__pskill old[4], new[4];
	char p1[4096], p2[4096], root[4096];
	int rolled_back = 0, finished = 0, mixed_before = 0;
	long k;

	skill(src1, "a-skill", "v1", NULL);
	skill(src1, "b-skill", "v1", NULL);
	skill(src1, "c-skill", "v1", NULL);
	skill(src2, "a-skill", "v2", NULL);
	skill(src2, "b-skill", "v2", NULL);
	put(path_of(path_of(src2, "b-skill"), "assets/extra.txt"), "x\n", 0644);
	skill(src2, "c-skill", "v1", NULL);
	skill(src2, "d-skill", "v2", NULL);
	snprintf(p1, sizeof(p1), "%s/v1.zip", src1);
	snprintf(p2, sizeof(p2), "%s/v2.zip", src2);
	pack_dir(src1, names, 3, p1);
	pack_dir(src2, names, 4, p2);
	snprintf(root, sizeof(root), "%s/ref-old", src1);
	ASSERT_OK(install(root, p1, 0));
	for (int i = 0; i < 4; i++)
		snap(root, names[i], &old[i]);
	if (uninstall) {
		for (int i = 0; i < 4; i++)
			memset(&new[i], 0, sizeof(new[i]));
		for (int i = 1; i < 4; i++)
			skit__pskill_copy(&new[i], &old[i]);
	} else {
		snprintf(root, sizeof(root), "%s/ref-new", src2);
		ASSERT_OK(install(root, p2, 0));
		for (int i = 0; i < 4; i++)
			snap(root, names[i], &new[i]);
	}
	for (k = 1; k < 500; k++) {
		pid_t pid;
		int status;
		bool all_old = true, all_new = true, any_new = false;

		snprintf(root, sizeof(root), "%s/%s-%ld",
		         getenv("SKIT_TEST_DIR") ? getenv("SKIT_TEST_DIR")
		                                 : "/tmp",
		         name, k);
		{
			char cmd[8300];

			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
			ASSERT_OK(system(cmd));
		}
		ASSERT_OK(install(root, p1, 0));
		fflush(NULL);
		pid = fork();
		ASSERT(pid >= 0);
		if (pid == 0) {
			skit_error e = { 0 };

			skit__pack_crash_at = k;
			if (uninstall)
				_exit(skit_uninstall(root, "a-skill", &e) ? 3
				                                          : 0);
			_exit(install(root, p2, SKIT_INSTALL_FORCE) ? 3 : 0);
		}
		ASSERT_EQ(waitpid(pid, &status, 0), pid);
		/* Before recovery: each skill whole, old or new. */
		for (int i = 0; i < 4; i++) {
			struct skit__pskill s;

			snap(root, names[i], &s);
			if (!same(&s, &old[i]) && !same(&s, &new[i]))
				HARNESS_FAIL("crash point %ld: %s is neither "
				             "version",
				             k, names[i]);
			any_new |= !same(&old[i], &new[i]) && same(&s, &new[i]);
			skit__pskill_release(&s);
		}
		if (WIFEXITED(status)) {
			ASSERT_EQ(WEXITSTATUS(status), 0);
			finished = 1;
		} else {
			ASSERT(WIFSIGNALED(status) &&
			       WTERMSIG(status) == SIGKILL);
		}
		/* The next command recovers; all or nothing. */
		ASSERT_EQ(findings(root), 0);
		ASSERT_EQ(staging_left(root), 0);
		for (int i = 0; i < 4; i++) {
			struct skit__pskill s;

			snap(root, names[i], &s);
			all_old &= same(&s, &old[i]);
			all_new &= same(&s, &new[i]);
			skit__pskill_release(&s);
		}
		if (!all_old && !all_new)
			HARNESS_FAIL("crash point %ld: a mix of old and new "
			             "after recovery",
			             k);
		if (any_new && all_old)
			rolled_back++;
		mixed_before += any_new;
		{
			char cmd[8300];

			snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
			ASSERT_OK(system(cmd));
		}
		if (finished) {
			ASSERT(all_new);
			break;
		}
	}
	ASSERT(finished);
	if (getenv("SKIT_TEST_VERBOSE"))
		fprintf(stderr,
		        "%s: %ld crash points, %d mid-commit, %d "
		        "rolled back\n",
		        name, k, mixed_before, rolled_back);
	/* Enough points were hit, some of them mid-commit. */
	ASSERT(k > 10);
	ASSERT(mixed_before > 0);
	if (!uninstall)
		ASSERT(rolled_back > 0);
	for (int i = 0; i < 4; i++) {
		skit__pskill_release(&old[i]);
		skit__pskill_release(&new[i]);
	}
}

static void test_pack__sigkill_install(void)
{
	crash_loop("kill-install", false);
}

static void test_pack__sigkill_uninstall(void)
{
	crash_loop("kill-uninstall", true);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_pack__reproducible_and_round_trip)
	TEST(test_pack__refuses_invalid_and_duplicate)
	TEST(test_pack__update_flags_scripts_and_tools)
	TEST(test_pack__from_lock)
	TEST(test_pack__uninstall_and_errors)
	TEST(test_pack__install_from_url)
	TEST(test_pack__sigkill_install)
	TEST(test_pack__sigkill_uninstall))
/* clang-format on */
