/* SPDX-License-Identifier: MIT */
/*
 * test_fetch.c - install sources (src/lib/pack/fetch.c). Downloads from the
 * scripted server of tests/support/httpd.c on 127.0.0.1 (no test reaches
 * the internet): the body and its SHA-256, HTTP errors, the size cap with
 * and without Content-Length, the scheme rule before any connection and
 * on redirects, progress and timeouts. Clones of a repository made here
 * with git over file://: the default branch, a tag, a full commit id,
 * hostile URLs and refs, a missing repository, the size cap, symlinks and
 * submodules that must not come through, and the timeout.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "harness.h"
#include "support/httpd.h"
#include "support/procs.h"
#include "lib/pack/fetch_int.h"
#include "util/fs.h"

/* git for the fixtures: no config of the user's, a fixed identity. */
#define GIT                                                             \
 "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=/nonexistent " \
 "git -c user.name=t -c user.email=t@example.com "                      \
 "-c init.defaultBranch=main -c protocol.file.allow=always "

static char base[PATH_MAX / 4];
static struct httpd *srv;

static void rm_rf(const char *path)
{
	struct dirent *de;
	struct stat st;
	char sub[PATH_MAX];
	DIR *d;

	if (lstat(path, &st) < 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlink(path);
		return;
	}
	chmod(path, 0755);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name);
		rm_rf(sub);
	}
	if (d)
		closedir(d);
	rmdir(path);
}

static void fresh(void)
{
	const char *top = getenv("SKIT_TEST_DIR");

	snprintf(base, sizeof(base), "%s/fetch",
	         top ? top : "/tmp/skit-test-fetch");
	rm_rf(base);
	ASSERT_OK(skitx_fs_mkdir_p(base, 0755));
}

/* `base`/name, in one of four rotating buffers. */
static const char *at(const char *name)
{
	static char bufs[4][PATH_MAX];
	static int i;
	char *p = bufs[i++ & 3];

	snprintf(p, PATH_MAX, "%s/%s", base, name);
	return p;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static void sh(const char *fmt, ...) SKIT_PRINTF(1, 2);

static void sh(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		HARNESS_FAIL("command failed (%d): %s", rc, cmd);
}

/* The first line a shell command prints, without its newline. */
static void sh_line(char *out, size_t size, const char *cmd)
{
	FILE *p = popen(cmd, "r");

	ASSERT(p);
	ASSERT(fgets(out, (int)size, p));
	pclose(p);
	out[strcspn(out, "\n")] = '\0';
}

static void sha256_of(const char *data, size_t len, char hex[65])
{
	unsigned char md[32];
	unsigned int n = 0;

	ASSERT_EQ(EVP_Digest(data, len, md, &n, EVP_sha256(), NULL), 1);
	for (unsigned int i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* A new empty file under base to download into. */
static int out_fd(const char *name)
{
	int fd = open(at(name), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ASSERT(fd >= 0);
	return fd;
}

static size_t fd_size(int fd)
{
	struct stat st;

	ASSERT_OK(fstat(fd, &st));
	return (size_t)st.st_size;
}

static void start(void)
{
	fresh();
	ASSERT_OK(httpd_start(&srv));
}

static void stop(void)
{
	httpd_stop(srv);
	srv = NULL;
}

/* ---- downloads ---------------------------------------------------------- */

static void test_fetch__download(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	char url[256], hex[65], want[65], got[64];
	skit_error err = { 0 };
	int fd;

	start();
	r.content_type = "application/zip";
	r.body = "PK\x03\x04 pretend this is a zip archive";
	httpd_push(srv, &r);
	snprintf(url, sizeof(url), "%s/skills/x.zip", httpd_url(srv));
	fd = out_fd("x.zip");
	ASSERT_OK(skit__fetch_url(url, fd, 1 << 20, 10000, NULL, NULL, hex,
	                          &err));
	sha256_of(r.body, strlen(r.body), want);
	ASSERT_STR(hex, want);
	ASSERT_EQ(fd_size(fd), strlen(r.body));
	ASSERT_EQ(pread(fd, got, sizeof(got), 0), (ssize_t)strlen(r.body));
	ASSERT(!memcmp(got, r.body, strlen(r.body)));
	close(fd);
	ASSERT_STR(httpd_request_at(srv, 0)->method, "GET");
	ASSERT_STR(httpd_request_at(srv, 0)->path, "/skills/x.zip");

	/* An empty body, and one of exactly max_bytes. */
	r.body = NULL;
	httpd_push(srv, &r);
	fd = out_fd("empty.zip");
	ASSERT_OK(skit__fetch_url(url, fd, 10, 10000, NULL, NULL, hex, &err));
	ASSERT_STR(
	        hex,
	        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	close(fd);
	r.body = "0123456789";
	httpd_push(srv, &r);
	fd = out_fd("ten.zip");
	ASSERT_OK(skit__fetch_url(url, fd, 10, 10000, NULL, NULL, hex, &err));
	ASSERT_EQ(fd_size(fd), 10);
	close(fd);
	stop();
}

static void test_fetch__http_error(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	char url[256], hex[65];
	skit_error err = { 0 };
	int fd;

	start();
	r.status = 404;
	r.body = "<html>not found, and this page must not be saved</html>";
	httpd_push(srv, &r);
	snprintf(url, sizeof(url), "%s/missing.zip", httpd_url(srv));
	fd = out_fd("m.zip");
	ASSERT_EQ(
	        skit__fetch_url(url, fd, 1 << 20, 10000, NULL, NULL, hex, &err),
	        SKIT_EIO);
	ASSERT_CONTAINS(err.message, "GET http://127.0.0.1:");
	ASSERT_CONTAINS(err.message, "/missing.zip: HTTP 404");
	ASSERT_EQ(fd_size(fd), 0);

	r.status = 503;
	r.body = NULL;
	httpd_push(srv, &r);
	ASSERT_EQ(
	        skit__fetch_url(url, fd, 1 << 20, 10000, NULL, NULL, hex, &err),
	        SKIT_EIO);
	ASSERT_CONTAINS(err.message, "HTTP 503");
	close(fd);

	/* Nobody listening. */
	stop();
	fd = out_fd("n.zip");
	ASSERT_EQ(
	        skit__fetch_url(url, fd, 1 << 20, 10000, NULL, NULL, hex, &err),
	        SKIT_EIO);
	ASSERT_CONTAINS(err.message, "GET http://127.0.0.1:");
	close(fd);
}

static void test_fetch__too_big(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	char url[256], hex[65], *body;
	skit_error err = { 0 };
	int fd;

	start();
	body = malloc(100001);
	ASSERT(body);
	memset(body, 'z', 100000);
	body[100000] = '\0';
	snprintf(url, sizeof(url), "%s/big.zip", httpd_url(srv));

	/* Announced by Content-Length. */
	r.body = body;
	httpd_push(srv, &r);
	fd = out_fd("cl.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_ETOOBIG);
	ASSERT_CONTAINS(err.message, "larger than 1000 bytes");
	ASSERT(fd_size(fd) <= 1000);
	close(fd);

	/* Chunked: no size known until the bytes come. */
	r.chunk = 512;
	httpd_push(srv, &r);
	fd = out_fd("chunked.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_ETOOBIG);
	ASSERT(fd_size(fd) <= 1000);
	close(fd);

	/* One byte over. */
	r.chunk = 0;
	body[1001] = '\0';
	httpd_push(srv, &r);
	fd = out_fd("1001.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_ETOOBIG);
	close(fd);
	free(body);
	stop();
}

static void test_fetch__scheme_rule(void)
{
	skit_error err = { 0 };
	char hex[65];
	int fd;

	fresh();
	fd = out_fd("x.zip");
	/* Refused before any name lookup: .invalid never resolves, so
	 * anything but EUNSAFE would mean a connection was tried. */
	ASSERT_EQ(skit__fetch_url("http://example.invalid/x.zip", fd, 1000,
	                          10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_CONTAINS(err.message, "http:// only to 127.0.0.1");
	ASSERT_EQ(skit__fetch_url("HTTP://Example.Invalid/x.zip", fd, 1000,
	                          10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__fetch_url("http://127.0.0.1.example.invalid/x.zip", fd,
	                          1000, 10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__fetch_url("http://localhost@example.invalid/x.zip", fd,
	                          1000, 10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__fetch_url("ftp://example.invalid/x.zip", fd, 1000,
	                          10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__fetch_url("file:///etc/passwd", fd, 1000, 10000, NULL,
	                          NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__fetch_url("gopher://example.invalid/", fd, 1000, 10000,
	                          NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__fetch_url("not a url", fd, 1000, 10000, NULL, NULL, hex,
	                          &err),
	          SKIT_EINVALID);
	/* Credentials in a URL stay out of messages. */
	ASSERT_EQ(skit__fetch_url("http://user:hunter2@example.invalid/x.zip",
	                          fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT(!strstr(err.message, "hunter2"));
	/* https passes the rule: it gets as far as connecting (to a closed
	 * loopback port: no name lookup, no internet). */
	ASSERT_EQ(skit__fetch_url("https://127.0.0.1:1/x.zip", fd, 1000, 10000,
	                          NULL, NULL, hex, &err),
	          SKIT_EIO);
	ASSERT(!strstr(err.message, "refused:"));
	ASSERT_EQ(fd_size(fd), 0);
	close(fd);
}

static void test_fetch__redirects(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	char url[256], loc[512], hex[65], want[65];
	skit_error err = { 0 };
	int fd;

	start();
	snprintf(url, sizeof(url), "%s/a.zip", httpd_url(srv));

	/* To a plain-http host elsewhere: refused before it is asked. */
	r.status = 302;
	r.headers = "Location: http://example.invalid/evil.zip\r\n";
	r.body = "moved";
	httpd_push(srv, &r);
	fd = out_fd("r1.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	ASSERT_CONTAINS(err.message, "redirected to http://example.invalid/");
	ASSERT_EQ(fd_size(fd), 0);
	close(fd);
	/* To another scheme. */
	r.headers = "Location: file:///etc/passwd\r\n";
	httpd_push(srv, &r);
	fd = out_fd("r2.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_EUNSAFE);
	close(fd);

	/* Within the loopback server: followed; only the last body kept. */
	r.headers = "Location: /b.zip\r\n";
	httpd_push(srv, &r);
	snprintf(loc, sizeof(loc), "Location: %s/c.zip\r\n", httpd_url(srv));
	r.status = 301;
	r.headers = loc;
	httpd_push(srv, &r);
	r.status = 200;
	r.headers = NULL;
	r.body = "the real archive";
	httpd_push(srv, &r);
	fd = out_fd("r3.zip");
	ASSERT_OK(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err));
	sha256_of(r.body, strlen(r.body), want);
	ASSERT_STR(hex, want);
	ASSERT_EQ(fd_size(fd), strlen(r.body));
	close(fd);
	ASSERT_EQ(httpd_request_count(srv), 5);
	ASSERT_STR(httpd_request_at(srv, 3)->path, "/b.zip");
	ASSERT_STR(httpd_request_at(srv, 4)->path, "/c.zip");

	/* A loop: stopped after 5. */
	r.status = 302;
	r.headers = "Location: /a.zip\r\n";
	r.body = NULL;
	for (int i = 0; i < 7; i++)
		httpd_push(srv, &r);
	fd = out_fd("r4.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 10000, NULL, NULL, hex, &err),
	          SKIT_EIO);
	ASSERT_CONTAINS(err.message, "more than 5 redirects");
	close(fd);
	ASSERT_EQ(httpd_request_count(srv), 5 + 6);
	stop();
}

struct progress_log {
	int calls;
	uint64_t last_done, last_total;
	bool backwards;
};

static void on_progress(void *ud, uint64_t done, uint64_t total)
{
	struct progress_log *p = ud;

	if (done < p->last_done)
		p->backwards = true;
	p->calls++;
	p->last_done = done;
	p->last_total = total;
}

static void test_fetch__progress(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	struct progress_log log = { 0 };
	char url[256], hex[65], *body;
	skit_error err = { 0 };
	int fd;

	start();
	body = malloc(20001);
	ASSERT(body);
	memset(body, 'p', 20000);
	body[20000] = '\0';
	r.body = body;
	r.chunk = 4000;
	r.chunk_delay_ms = 20;
	httpd_push(srv, &r);
	snprintf(url, sizeof(url), "%s/p.zip", httpd_url(srv));
	fd = out_fd("p.zip");
	ASSERT_OK(skit__fetch_url(url, fd, 1 << 20, 10000, on_progress, &log,
	                          hex, &err));
	close(fd);
	ASSERT(log.calls >= 1);
	ASSERT(!log.backwards);
	ASSERT_EQ(log.last_done, 20000);
	ASSERT_EQ(log.last_total, 20000);
	free(body);
	stop();
}

static void test_fetch__timeout(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	char url[256], hex[65];
	skit_error err = { 0 };
	int fd;

	start();
	r.body = "late";
	r.delay_ms = 1500;
	httpd_push(srv, &r);
	snprintf(url, sizeof(url), "%s/slow.zip", httpd_url(srv));
	fd = out_fd("slow.zip");
	ASSERT_EQ(skit__fetch_url(url, fd, 1000, 200, NULL, NULL, hex, &err),
	          SKIT_ETIMEOUT);
	ASSERT_CONTAINS(err.message, "timed out");
	close(fd);
	stop();
}

/* ---- git ---------------------------------------------------------------- */

static char repo[PATH_MAX / 2], repo_url[PATH_MAX];
static char head1[64], head2[64];

/*
 * base/repo: commit 1 (SKILL.md, a symlink, a big-ish file), tag v1,
 * commit 2 (adds b.txt) on main, and a branch "side".
 */
static void make_repo(void)
{
	char cmd[PATH_MAX + 64];

	fresh();
	snprintf(repo, sizeof(repo), "%s/repo", base);
	snprintf(repo_url, sizeof(repo_url), "file://%s", repo);
	sh(GIT "init -q %s", repo);
	put(at("repo/SKILL.md"), "---\nname: demo\n---\nHello\n");
	ASSERT_OK(symlink("/etc/passwd", at("repo/link")));
	sh("head -c 20000 /dev/zero > %s/zeros.bin", repo);
	sh(GIT "-C %s add -A && " GIT "-C %s commit -q -m one && " GIT
	       "-C %s tag v1",
	   repo, repo, repo);
	snprintf(cmd, sizeof(cmd), GIT "-C %s rev-parse HEAD", repo);
	sh_line(head1, sizeof(head1), cmd);
	put(at("repo/b.txt"), "two\n");
	sh(GIT "-C %s add -A && " GIT "-C %s commit -q -m two && " GIT
	       "-C %s branch side",
	   repo, repo, repo);
	sh_line(head2, sizeof(head2), cmd);
	ASSERT_EQ(strlen(head1), 40);
	ASSERT(strcmp(head1, head2));
}

static void test_fetch__git_default_branch(void)
{
	char commit[41];
	skit_error err = { 0 };
	struct stat st;

	make_repo();
	if (skit__git_clone(repo_url, NULL, at("out"), 1 << 20, 30000, commit,
	                    &err))
		HARNESS_FAIL("clone: %s", err.message);
	ASSERT_STR(commit, head2);
	ASSERT_OK(access(at("out/SKILL.md"), F_OK));
	ASSERT_OK(access(at("out/b.txt"), F_OK));
	ASSERT(skitx_fs_is_dir(at("out/.git")));
	/* core.symlinks=false: the link is a small file holding its target. */
	ASSERT_OK(lstat(at("out/link"), &st));
	ASSERT(S_ISREG(st.st_mode));
	/* No hooks copied from a template. */
	ASSERT(!skitx_fs_exists(at("out/.git/hooks/pre-commit.sample")));
	/* A branch by name. */
	ASSERT_OK(skit__git_clone(repo_url, "side", at("side"), 1 << 20, 30000,
	                          commit, &err));
	ASSERT_STR(commit, head2);
}

static void test_fetch__git_tag_and_commit(void)
{
	char commit[41], upper[41];
	skit_error err = { 0 };

	make_repo();
	if (skit__git_clone(repo_url, "v1", at("tag"), 1 << 20, 30000, commit,
	                    &err))
		HARNESS_FAIL("clone at tag: %s", err.message);
	ASSERT_STR(commit, head1);
	ASSERT_OK(access(at("tag/SKILL.md"), F_OK));
	ASSERT(access(at("tag/b.txt"), F_OK) < 0);

	if (skit__git_clone(repo_url, head1, at("sha"), 1 << 20, 30000, commit,
	                    &err))
		HARNESS_FAIL("clone at commit: %s", err.message);
	ASSERT_STR(commit, head1);
	ASSERT_OK(access(at("sha/SKILL.md"), F_OK));
	ASSERT(access(at("sha/b.txt"), F_OK) < 0);

	/* Upper-case hex names the same commit. */
	for (size_t i = 0; i < 41; i++)
		upper[i] = (char)(head1[i] >= 'a' && head1[i] <= 'f'
		                          ? head1[i] - 'a' + 'A'
		                          : head1[i]);
	ASSERT_OK(skit__git_clone(repo_url, upper, at("SHA"), 1 << 20, 30000,
	                          commit, &err));
	ASSERT_STR(commit, head1);

	/* A commit that does not exist, and a branch that does not. */
	ASSERT_EQ(skit__git_clone(repo_url,
	                          "0123456789012345678901234567890123456789",
	                          at("nosha"), 1 << 20, 30000, commit, &err),
	          SKIT_EIO);
	ASSERT_STR(commit, "");
	ASSERT_EQ(skit__git_clone(repo_url, "nobranch", at("nob"), 1 << 20,
	                          30000, commit, &err),
	          SKIT_EIO);
	ASSERT_CONTAINS(err.message, "nobranch");
}

static void test_fetch__git_hostile_urls(void)
{
	static const char *const unsafe[] = {
		"-oProxyCommand=touch /tmp/skit-pwned",
		"--upload-pack=touch /tmp/skit-pwned",
		"ext::sh -c touch% /tmp/skit-pwned",
		"ext::sh",
		"fd::3",
		"transport::https://example.invalid/x",
		"ssh://-oProxyCommand=x/repo",
		"ssh://git@-oProxyCommand=x/repo",
		"git@-oProxyCommand=x:repo",
		"git@host:-repo",
		"http://example.invalid/repo.git",
		"git://example.invalid/repo.git",
		"/absolute/path/repo",
		"relative/repo",
		"file://host/repo",
		"https://example.invalid/a b",
		"https://example.invalid/a\nb",
	};
	char commit[41];
	skit_error err = { 0 };

	fresh();
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(unsafe); i++) {
		int rc = skit__git_clone(unsafe[i], NULL, at("out"), 1 << 20,
		                         30000, commit, &err);

		if (rc != SKIT_EUNSAFE)
			HARNESS_FAIL("%s: %d (%s)", unsafe[i], rc, err.message);
		ASSERT(!skitx_fs_exists(at("out")));
	}
	ASSERT(!skitx_fs_exists("/tmp/skit-pwned"));

	/* Refs that could be options, or are no ref at all. */
	ASSERT_EQ(skit__git_clone("file:///nonexistent", "--upload-pack=x",
	                          at("out"), 1 << 20, 30000, commit, &err),
	          SKIT_EUNSAFE);
	ASSERT_EQ(skit__git_clone("file:///nonexistent", "a..b", at("out"),
	                          1 << 20, 30000, commit, &err),
	          SKIT_EINVALID);
	ASSERT_EQ(skit__git_clone("file:///nonexistent", "a b", at("out"),
	                          1 << 20, 30000, commit, &err),
	          SKIT_EINVALID);
	ASSERT(!skitx_fs_exists(at("out")));
}

static void test_fetch__git_failures(void)
{
	char commit[41], url[PATH_MAX];
	skit_error err = { 0 };

	make_repo();
	snprintf(url, sizeof(url), "file://%s/nope", base);
	ASSERT_EQ(skit__git_clone(url, NULL, at("out"), 1 << 20, 30000, commit,
	                          &err),
	          SKIT_EIO);
	ASSERT_CONTAINS(err.message, "git clone file://");
	ASSERT_CONTAINS(err.message, "does not appear to be a git repository");

	/* The destination must not exist. */
	ASSERT_OK(mkdir(at("there"), 0755));
	ASSERT_EQ(skit__git_clone(repo_url, NULL, at("there"), 1 << 20, 30000,
	                          commit, &err),
	          SKIT_EEXISTS);

	/* 20000 zero bytes do not fit in 10000. */
	ASSERT_EQ(skit__git_clone(repo_url, NULL, at("small"), 10000, 30000,
	                          commit, &err),
	          SKIT_ETOOBIG);
	ASSERT_CONTAINS(err.message, "larger than 10000 bytes");
	ASSERT_STR(commit, "");
	/* .git is not counted: the checkout alone fits. */
	ASSERT_OK(skit__git_clone(repo_url, NULL, at("fits"), 21000, 30000,
	                          commit, &err));
}

static void test_fetch__git_timeout(void)
{
	char commit[41];
	skit_error err = { 0 };

	make_repo();
	/* Far too short for git to finish: the group is killed. */
	ASSERT_EQ(skit__git_clone(repo_url, NULL, at("slow-clone-marker"),
	                          1 << 20, 1, commit, &err),
	          SKIT_ETIMEOUT);
	ASSERT_CONTAINS(err.message, "timed out");
	ASSERT(skit_test_none_running("slow-clone-marker", 50));
}

static void test_fetch__git_no_submodules(void)
{
	char commit[41], sub[PATH_MAX];
	skit_error err = { 0 };

	make_repo();
	snprintf(sub, sizeof(sub), "%s/subrepo", base);
	sh(GIT "init -q %s && echo secret > %s/inner.txt && " GIT
	       "-C %s add -A && " GIT "-C %s commit -q -m s",
	   sub, sub, sub, sub);
	sh(GIT
	   "-C %s submodule --quiet add file://%s mod >/dev/null 2>&1 && " GIT
	   "-C %s commit -q -m sub",
	   repo, sub, repo);
	ASSERT_OK(skit__git_clone(repo_url, NULL, at("out"), 1 << 20, 30000,
	                          commit, &err));
	ASSERT_OK(access(at("out/.gitmodules"), F_OK));
	ASSERT(!skitx_fs_exists(at("out/mod/inner.txt")));
}

/* Every allocation failure is SKIT_ENOMEM, never a crash or a leak. (No
 * server here: its thread allocates too, and would stop the test.) */
static void test_fetch__out_of_memory(void)
{
	skit_error err = { 0 };
	char commit[41], hex[65], dest[64];
	bool done = false;
	int fd;

	make_repo();
	for (long n = 1; n < 200 && !done; n++) {
		int rc;

		snprintf(dest, sizeof(dest), "oom-%ld", n);
		skitx_alloc_fail_at(n);
		rc = skit__git_clone(repo_url, head1, at(dest), 1 << 20, 30000,
		                     commit, &err);
		skitx_alloc_fail_at(0);
		if (rc && rc != SKIT_ENOMEM)
			HARNESS_FAIL("n=%ld: %d %s", n, rc, err.message);
		done = rc == 0;
	}
	ASSERT(done);
	ASSERT_STR(commit, head1);
	fd = out_fd("x.zip");
	done = false;
	for (long n = 1; n < 200 && !done; n++) {
		int rc;

		skitx_alloc_fail_at(n);
		rc = skit__fetch_url("https://127.0.0.1:1/x.zip", fd, 1000,
		                     10000, NULL, NULL, hex, &err);
		skitx_alloc_fail_at(0);
		ASSERT(rc == SKIT_EIO || rc == SKIT_ENOMEM);
		done = rc == SKIT_EIO;
	}
	ASSERT(done);
	close(fd);
}

TEST_MAIN(
        TEST(test_fetch__download) TEST(test_fetch__http_error) TEST(
                test_fetch__too_big) TEST(test_fetch__scheme_rule)
                TEST(test_fetch__redirects) TEST(test_fetch__progress) TEST(
                        test_fetch__timeout)
                        TEST(test_fetch__git_default_branch) TEST(
                                test_fetch__git_tag_and_commit)
                                TEST(test_fetch__git_hostile_urls) TEST(
                                        test_fetch__git_failures)
                                        TEST(test_fetch__git_timeout) TEST(
                                                test_fetch__git_no_submodules)
                                                TEST(test_fetch__out_of_memory))
