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
#include "lib/pack/fetch_int.h"
#include "lib/pack/pack_int.h"
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

/*
 * Skill names Windows reserves (con, aux, nul, com1, lpt1...) pass
 * validate (a lint warning only), but pack refuses them, and so does
 * install, whichever way the name arrives.
 */
static void test_pack__reserved_skill_names(void)
{
	static const char *const bad[] = { "con",  "aux",  "nul",  "prn",
		                           "com1", "lpt1", "com0", "lpt9" };
	const char *src = scratch("res-src"), *root = scratch("res-root");
	skit_error err = { 0 };
	char out[4096], one[4096], text[256];

	snprintf(out, sizeof(out), "%s/p.zip", src);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *dir = strdup(path_of(src, bad[i]));

		skill(src, bad[i], "v1", NULL);
		memset(&err, 0, sizeof(err));
		ASSERT_EQ(skit_pack(&dir, 1, out, NULL, NULL, &err),
		          SKIT_EUNSAFE);
		ASSERT_CONTAINS(err.message, "Windows device name");
		ASSERT_CONTAINS(err.message, bad[i]);
		ASSERT(access(out, F_OK) != 0);
		/* A folder holding SKILL.md at its top names the skill by
		 * its frontmatter alone. */
		snprintf(one, sizeof(one), "%s/top-%s/SKILL.md", src, bad[i]);
		snprintf(text, sizeof(text),
		         "---\nname: %s\ndescription: A device. Use when "
		         "testing.\n---\nBody.\n",
		         bad[i]);
		put(one, text, 0644);
		*strrchr(one, '/') = '\0';
		memset(&err, 0, sizeof(err));
		ASSERT_EQ(skit_install(root, one, NULL, NULL, &err),
		          SKIT_EUNSAFE);
		ASSERT_CONTAINS(err.message, "Windows device name");
		free((void *)dir);
	}
	/* Installed as a skill folder of that name: the entry rule. */
	ASSERT_EQ(install(root, src, 0), SKIT_EUNSAFE);
	ASSERT_EQ(staging_left(root), 0);
	/* Names that merely start like one are fine. */
	{
		const char *ok = scratch("res-ok");
		const char *dirs[2];

		skill(ok, "console", "v1", NULL);
		skill(ok, "com10", "v1", NULL);
		dirs[0] = path_of(ok, "console");
		dirs[1] = path_of(ok, "com10");
		ASSERT_OK(skit_pack(dirs, 2, out, NULL, NULL, &err));
		ASSERT_OK(install(root, out, 0));
	}
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
	/* Several names: every one is checked before anything moves. */
	{
		const char *two[] = { "kept", "gone" };
		const char *bad[] = { "kept", "../x" };

		ASSERT_EQ(skit_uninstall_names(root, two, 2, &err),
		          SKIT_ENOTFOUND);
		ASSERT_CONTAINS(err.message, "gone is not installed");
		ASSERT_EQ(skit_uninstall_names(root, bad, 2, &err),
		          SKIT_EUSAGE);
		ASSERT(access(path_of(path_of(root, "kept"), "SKILL.md"),
		              F_OK) == 0);
		ASSERT_EQ(staging_left(root), 0);
		ASSERT_EQ(findings(root), 0);
	}
	ASSERT_EQ(install(root, path_of(src, "nope"), 0), SKIT_ENOTFOUND);
	/* A different version over an installed one needs FORCE. */
	skill(src, "kept", "v2", NULL);
	ASSERT_EQ(install(root, path_of(src, "kept"), 0), SKIT_EEXISTS);
	ASSERT_OK(install(root, path_of(src, "kept"), SKIT_INSTALL_FORCE));
	ASSERT_EQ(findings(root), 0);
}

static char *lock_text(const char *root);

/* Only what the lock records is removed; anything else needs FORCE. */
static void test_pack__uninstall_only_recorded(void)
{
	const char *src = scratch("own-src"), *root = scratch("own-root");
	const char *mine = "mine", *both[] = { "kept", "mine" };
	skit_error err = { 0 };

	skill(src, "kept", "v1", NULL);
	ASSERT_OK(install(root, src, 0));
	skill(root, "mine", "v1", NULL); /* hand-written */
	ASSERT_EQ(skit_uninstall(root, "mine", &err), SKIT_EDENIED);
	ASSERT_CONTAINS(err.message, "was not installed by skit");
	ASSERT(access(path_of(path_of(root, "mine"), "SKILL.md"), F_OK) == 0);
	ASSERT_EQ(skit_uninstall_names(root, both, 2, &err), SKIT_EDENIED);
	ASSERT_CONTAINS(err.message, "nothing was removed");
	ASSERT(access(path_of(path_of(root, "kept"), "SKILL.md"), F_OK) == 0);
	ASSERT_EQ(staging_left(root), 0);
	ASSERT_OK(
	        skit_uninstall_ex(root, &mine, 1, SKIT_UNINSTALL_FORCE, &err));
	ASSERT(access(path_of(root, "mine"), F_OK) != 0);
	ASSERT_OK(skit_uninstall_ex(root, both, 1, 0, &err));
	ASSERT(access(path_of(root, "kept"), F_OK) != 0);
}

/* An update never overwrites local edits without FORCE. */
static void test_pack__update_refuses_local_edits(void)
{
	const char *src = scratch("edit-src"), *root = scratch("edit-root");
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_error err = { 0 };
	char *lock_before, *lock_after;

	skill(src, "ed", "v1", NULL);
	ASSERT_OK(install(root, src, 0));
	put(path_of(path_of(root, "ed"), "SKILL.md"),
	    "---\nname: ed\n"
	    "description: Edited here.\n---\nMine.\n",
	    0644);
	put(path_of(path_of(root, "ed"), "extra.md"), "mine\n", 0644);
	lock_before = lock_text(root);
	ASSERT_EQ(skit_update(root, NULL, &o, NULL, &err), SKIT_EEXISTS);
	ASSERT_CONTAINS(err.message, "ed has local changes");
	ASSERT_CONTAINS(err.message, "SKILL.md changed");
	ASSERT_CONTAINS(err.message, "extra.md added");
	ASSERT(access(path_of(path_of(root, "ed"), "extra.md"), F_OK) == 0);
	lock_after = lock_text(root);
	ASSERT_STR(lock_before, lock_after);
	free(lock_after);
	ASSERT_EQ(staging_left(root), 0);
	o.flags = SKIT_INSTALL_FORCE;
	ASSERT_OK(skit_update(root, "ed", &o, NULL, &err));
	ASSERT(access(path_of(path_of(root, "ed"), "extra.md"), F_OK) != 0);
	ASSERT_EQ(findings(root), 0);
	free(lock_before);
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

/* The whole lock file of `root`, as text. */
static char *lock_text(const char *root)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	ASSERT_OK(skitx_fs_read_file(path_of(root, ".skit-lock.json"), &b,
	                             1u << 20));
	return skitx_buf_detach(&b, NULL);
}

static void test_pack__url_credentials_stripped(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "https://u:p@h.example/x.zip", "https://h.example/x.zip" },
		{ "https://tok@h.example/x.zip", "https://h.example/x.zip" },
		{ "http://u:p@127.0.0.1:8080", "http://127.0.0.1:8080" },
		{ "git+https://u:t@h.example/r.git#main",
		  "git+https://h.example/r.git#main" },
		{ "HTTPS://u:p@h.example/x", "HTTPS://h.example/x" },
		{ "ssh://git:pw@h.example/r.git", "ssh://git@h.example/r.git" },
		{ "ssh://git@h.example/r.git", "ssh://git@h.example/r.git" },
		{ "git@h.example:r.git", "git@h.example:r.git" },
		{ "https://h.example/a@b/x.zip",
		  "https://h.example/a@b/x.zip" },
		{ "https://h.example/x.zip?u=a@b",
		  "https://h.example/x.zip?u=a@b" },
		{ "/a/local@path/x.zip", "/a/local@path/x.zip" },
		{ "https://a@b@h.example/x", "https://h.example/x" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *got = skit__url_without_credentials(cases[i].in);

		ASSERT(got != NULL);
		if (strcmp(got, cases[i].out))
			HARNESS_FAIL("%s: got %s, want %s", cases[i].in, got,
			             cases[i].out);
		ASSERT_EQ(skit__url_has_credentials(cases[i].in),
		          strcmp(cases[i].in, cases[i].out) != 0);
		skit_free(got);
	}
}

/*
 * Credentials in an install URL are used for the download and go
 * nowhere else: not into the lock, the result or a message. A header
 * option and ~/.netrc carry them too, to the URL's own origin only.
 */
static void test_pack__url_credentials(void)
{
	const char *src = scratch("cred-src"), *home = scratch("cred-home");
	const char *names[] = { "web-skill" };
	const char *bearer[] = { "Authorization: Bearer tok-123" };
	const char *bad[] = { "X-Evil: a\r\nHost: b" };
	struct skitx_buf zip = SKITX_BUF_INIT;
	httpd_response r = HTTPD_RESPONSE_INIT, moved = HTTPD_RESPONSE_INIT;
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_install_result *res = NULL;
	skit_error err = { 0 };
	skit_lock *lock = NULL;
	struct httpd *h, *other;
	char pack[4096], url[512], hdr[256], loc[512], *text, *old_home;
	const char *root;

	skill(src, "web-skill", "v1", NULL);
	snprintf(pack, sizeof(pack), "%s/p.zip", src);
	pack_dir(src, names, 1, pack);
	ASSERT_OK(skitx_fs_read_file(pack, &zip, 1u << 20));
	ASSERT_OK(httpd_start(&h));
	ASSERT_OK(httpd_start(&other));
	r.content_type = "application/zip";
	r.body = zip.ptr;
	r.body_len = zip.len;

	/* user:password in the URL: sent as Basic auth, stored nowhere. */
	root = scratch("cred-r1");
	httpd_push(h, &r);
	snprintf(url, sizeof(url), "http://user:s3cret@%s/p.zip",
	         httpd_url(h) + 7);
	ASSERT_OK(skit_install(root, url, &o, &res, &err));
	ASSERT(httpd_header(httpd_request_at(h, 0), "Authorization", hdr,
	                    sizeof(hdr)) != NULL);
	ASSERT_STR(hdr, "Basic dXNlcjpzM2NyZXQ="); /* user:s3cret */
	ASSERT(!strstr(skit_install_result_at(res, 0)->source, "s3cret"));
	ASSERT(!strstr(skit_install_result_at(res, 0)->source, "user@"));
	skit_install_result_free(res);
	text = lock_text(root);
	ASSERT(!strstr(text, "s3cret"));
	ASSERT(!strstr(text, "user"));
	free(text);
	ASSERT_OK(skit_lock_read(&lock, root, &err));
	snprintf(loc, sizeof(loc), "%s/p.zip", httpd_url(h));
	ASSERT_STR(skit_lock_at(lock, 0)->source, loc);
	skit_lock_free(lock);

	/* A failure names the URL without them. */
	httpd_push_json(h, 404, "{}");
	ASSERT_EQ(skit_install(scratch("cred-r0"), url, &o, NULL, &err),
	          SKIT_EIO);
	ASSERT_CONTAINS(err.message, "404");
	ASSERT(!strstr(err.message, "s3cret"));

	/* A header: sent, never stored. */
	root = scratch("cred-r2");
	httpd_push(h, &r);
	o.headers = bearer;
	o.header_count = 1;
	ASSERT_OK(skit_install(root, loc, &o, NULL, &err));
	ASSERT(httpd_header(httpd_request_at(h, 2), "Authorization", hdr,
	                    sizeof(hdr)) != NULL);
	ASSERT_STR(hdr, "Bearer tok-123");
	text = lock_text(root);
	ASSERT(!strstr(text, "tok-123"));
	free(text);

	/* A redirect to another origin gets neither the header nor the
	 * URL's credentials. */
	root = scratch("cred-r3");
	snprintf(hdr, sizeof(hdr), "Location: %s/p.zip\r\n", httpd_url(other));
	moved.status = 302;
	moved.headers = hdr;
	httpd_push(h, &moved);
	httpd_push(other, &r);
	snprintf(url, sizeof(url), "http://user:s3cret@%s/p.zip",
	         httpd_url(h) + 7);
	ASSERT_OK(skit_install(root, url, &o, NULL, &err));
	ASSERT(httpd_header(httpd_request_at(h, 3), "Authorization", loc,
	                    sizeof(loc)) != NULL);
	ASSERT_EQ(httpd_request_count(other), 1);
	ASSERT(httpd_header(httpd_request_at(other, 0), "Authorization", loc,
	                    sizeof(loc)) == NULL);

	/* Bad headers are refused before anything is fetched. */
	o.headers = bad;
	ASSERT_EQ(skit_install(scratch("cred-r4"), url, &o, NULL, &err),
	          SKIT_EUSAGE);
	o.headers = NULL;
	o.header_count = 0;

	/* ~/.netrc, by host. */
	root = scratch("cred-r5");
	put(path_of(home, ".netrc"), "machine 127.0.0.1 login nu password np\n",
	    0600);
	old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	setenv("HOME", home, 1);
	httpd_push(h, &r);
	snprintf(loc, sizeof(loc), "%s/p.zip", httpd_url(h));
	ASSERT_OK(skit_install(root, loc, &o, NULL, &err));
	if (old_home)
		setenv("HOME", old_home, 1);
	else
		unsetenv("HOME");
	free(old_home);
	ASSERT(httpd_header(httpd_request_at(h, 4), "Authorization", hdr,
	                    sizeof(hdr)) != NULL);
	ASSERT_STR(hdr, "Basic bnU6bnA="); /* nu:np */
	text = lock_text(root);
	ASSERT(!strstr(text, "np"));
	free(text);

	/* A lock written with credentials (by an older skit) shows none,
	 * and loses them on its next write. */
	{
		char *t = lock_text(root), *at = strstr(t, "http://");
		struct skitx_buf b = SKITX_BUF_INIT;
		const char *x = "https://user:0ld-t0ken@example.org/x.zip";
		char *end = at ? strchr(at, '"') : NULL;

		ASSERT(at && end);
		skitx_buf_add(&b, t, (size_t)(at - t));
		skitx_buf_puts(&b, x);
		skitx_buf_puts(&b, end);
		ASSERT_OK(skitx_fs_write_atomic(
		        path_of(root, ".skit-lock.json"), b.ptr, b.len, 0644));
		skitx_buf_release(&b);
		free(t);
		ASSERT_OK(skit_lock_read(&lock, root, &err));
		ASSERT_STR(skit_lock_at(lock, 0)->source,
		           "https://example.org/x.zip");
		skit_lock_free(lock);
		skill(src, "other-skill", "v1", NULL);
		ASSERT_OK(install(root, path_of(src, "other-skill"), 0));
		t = lock_text(root);
		ASSERT(strstr(t, "https://example.org/x.zip"));
		ASSERT(!strstr(t, "0ld-t0ken"));
		free(t);
	}
	httpd_stop(h);
	httpd_stop(other);
	skitx_buf_release(&zip);
}

/*
 * An https git source with credentials and a header: git (a stand-in
 * on PATH that records its arguments and environment) gets the URL
 * without them, and both as http.<origin>/.extraHeader settings in its
 * environment, where other users cannot read them.
 */
static void test_pack__git_credentials_in_env(void)
{
	const char *dir = scratch("cred-git");
	const char *hdr[] = { "X-Token: h3ader-t0k" };
	skit_install_options o = SKIT_INSTALL_OPTIONS_INIT;
	skit_error err = { 0 };
	struct skitx_buf args = SKITX_BUF_INIT, env = SKITX_BUF_INIT;
	char script[8192], path[8192], *old_path;

	snprintf(script, sizeof(script),
	         "#!/bin/sh\nenv >'%s/env.txt'\nprintf '%%s\\n' \"$@\" "
	         ">'%s/args.txt'\nexit 1\n",
	         dir, dir);
	put(path_of(path_of(dir, "bin"), "git"), script, 0755);
	old_path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	snprintf(path, sizeof(path), "%s/bin:%s", dir,
	         old_path ? old_path : "/usr/bin:/bin");
	setenv("PATH", path, 1);
	o.headers = hdr;
	o.header_count = 1;
	ASSERT_EQ(skit_install(scratch("cred-git-root"),
	                       "https://user:s3cret@git.example.org/r.git", &o,
	                       NULL, &err),
	          SKIT_EIO);
	if (old_path)
		setenv("PATH", old_path, 1);
	free(old_path);
	ASSERT(!strstr(err.message, "s3cret"));
	ASSERT_OK(skitx_fs_read_file(path_of(dir, "args.txt"), &args, 65536));
	ASSERT_OK(skitx_fs_read_file(path_of(dir, "env.txt"), &env, 65536));
	ASSERT(strstr(args.ptr, "https://git.example.org/r.git\n") != NULL);
	ASSERT(!strstr(args.ptr, "s3cret"));
	ASSERT(!strstr(args.ptr, "h3ader"));
	ASSERT_CONTAINS(env.ptr, "GIT_CONFIG_COUNT=2\n");
	ASSERT_CONTAINS(env.ptr, "GIT_CONFIG_KEY_0=http.https://"
	                         "git.example.org/.extraHeader\n");
	ASSERT_CONTAINS(env.ptr, "GIT_CONFIG_VALUE_0=X-Token: h3ader-t0k\n");
	ASSERT_CONTAINS(env.ptr, "GIT_CONFIG_KEY_1=http.https://"
	                         "git.example.org/.extraHeader\n");
	/* base64("user:s3cret") */
	ASSERT_CONTAINS(env.ptr, "GIT_CONFIG_VALUE_1=Authorization: Basic "
	                         "dXNlcjpzM2NyZXQ=\n");
	skitx_buf_release(&args);
	skitx_buf_release(&env);
}

/*
 * Kill an install at its 1st, 2nd, ... crash point until one runs to the
 * end. After each death: every skill is old or new, complete; after the
 * next command (verify, which recovers), all are old or all are new.
 */
enum crash_cmd { CRASH_INSTALL, CRASH_UNINSTALL, CRASH_UNINSTALL_3 };

static void crash_loop(const char *name, enum crash_cmd what)
{
	bool uninstall = what != CRASH_INSTALL;
	const char *three[] = { "a-skill", "b-skill", "c-skill" };
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
		for (int i = what == CRASH_UNINSTALL_3 ? 3 : 1; i < 4; i++)
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
			if (what == CRASH_UNINSTALL_3)
				_exit(skit_uninstall_names(root, three, 3, &e)
				              ? 3
				              : 0);
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
	crash_loop("kill-install", CRASH_INSTALL);
}

static void test_pack__sigkill_uninstall(void)
{
	crash_loop("kill-uninstall", CRASH_UNINSTALL);
}

/* Three names in one uninstall: a kill anywhere leaves all three or
 * none after recovery, never the first gone and the rest there. */
static void test_pack__sigkill_uninstall_three(void)
{
	crash_loop("kill-uninstall3", CRASH_UNINSTALL_3);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_pack__reproducible_and_round_trip)
	TEST(test_pack__refuses_invalid_and_duplicate)
	TEST(test_pack__reserved_skill_names)
	TEST(test_pack__update_flags_scripts_and_tools)
	TEST(test_pack__from_lock)
	TEST(test_pack__uninstall_and_errors)
	TEST(test_pack__uninstall_only_recorded)
	TEST(test_pack__update_refuses_local_edits)
	TEST(test_pack__install_from_url)
	TEST(test_pack__url_credentials_stripped)
	TEST(test_pack__url_credentials)
	TEST(test_pack__git_credentials_in_env)
	TEST(test_pack__sigkill_install)
	TEST(test_pack__sigkill_uninstall)
	TEST(test_pack__sigkill_uninstall_three))
/* clang-format on */
