/* SPDX-License-Identifier: MIT */
/*
 * oci.c - skill packs as OCI artifacts, over the OCI distribution
 * protocol with libcurl: blob uploads (monolithic, or PATCH chunks for
 * large packs), HEAD checks, the manifest PUT, pulls with every digest
 * checked, and registry auth (the Bearer token flow and Basic, with
 * credentials from ~/.docker/config.json and docker credential helpers).
 */
#include "common.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <openssl/evp.h>

#include <archive.h>
#include <archive_entry.h>

#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/pack/oci_int.h"
#include "skit/pack.h"
#include "util/alloc.h"
#include "util/buf.h"

extern char **environ;

#define MEDIA_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define MEDIA_EMPTY    "application/vnd.oci.empty.v1+json"
#define EMPTY_DIGEST \
 "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
#define MANIFEST_MAX   (4u << 20)
#define SMALL_BODY_MAX (1u << 20)
#define CHUNK_DEFAULT  (16u << 20)
#define HELPER_OUT_MAX (64u << 10)

/* ---- references ---- */

struct oref {
	char *host; /* host[:port] */
	char *repo;
	char *tag;    /* or NULL */
	char *digest; /* "sha256:HEX" or NULL */
	bool plain;
	long timeout_ms;
	/* auth state */
	char *authz; /* "Authorization: ..." once known */
	char *user, *pass;
	bool creds_tried;
};

bool skit__oci_is_ref(const char *s)
{
	return s && !strncmp(s, "oci://", 6);
}

static void oref_release(struct oref *r)
{
	skitx_free(r->host);
	skitx_free(r->repo);
	skitx_free(r->tag);
	skitx_free(r->digest);
	if (r->authz)
		OPENSSL_cleanse(r->authz, strlen(r->authz));
	skitx_free(r->authz);
	if (r->pass)
		OPENSSL_cleanse(r->pass, strlen(r->pass));
	skitx_free(r->user);
	skitx_free(r->pass);
	memset(r, 0, sizeof(*r));
}

static bool is_hex64(const char *s)
{
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[64] == '\0';
}

/* The distribution spec's grammar, checked loosely but safely: the
 * repository is lowercase path components of [a-z0-9._-], the tag
 * [A-Za-z0-9_][A-Za-z0-9._-]{0,127}, the host letters, digits, '.',
 * '-', ':' (a port) or a bracketed IPv6 loopback. */
static bool repo_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 255 || s[0] == '/' || s[n - 1] == '/')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-' || c == '/'))
			return false;
		if (c == '/' && s[i + 1] == '/')
			return false;
		if ((c == '.' || c == '_' || c == '-') &&
		    (i == 0 || s[i - 1] == '/'))
			return false;
	}
	return true;
}

static bool tag_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 128 || s[0] == '.' || s[0] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '.' || s[i] == '-'))
			return false;
	return true;
}

static bool host_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 255 || s[0] == '-' || s[0] == ':')
		return false;
	if (!strncmp(s, "[::1]", 5))
		return s[5] == '\0' || s[5] == ':';
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '.' ||
		      s[i] == '-' || s[i] == ':'))
			return false;
	return true;
}

static bool loopback(const char *hostport)
{
	size_t n = strcspn(hostport, ":");

	if (!strncmp(hostport, "[::1]", 5))
		return true;
	return (n == 9 && !strncasecmp(hostport, "localhost", 9)) ||
	       (n == 9 && !strncmp(hostport, "127.0.0.1", 9));
}

static int parse_ref(struct oref *r, const char *ref, bool plain,
                     long timeout_ms, skit_error *err)
{
	const char *p, *slash, *at, *colon;
	char *rest;

	memset(r, 0, sizeof(*r));
	if (!skit__oci_is_ref(ref) || strlen(ref) > 1024)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "%.80s: not an oci://HOST/REPO:TAG "
		                       "reference",
		                       ref);
	p = ref + 6;
	slash = strchr(p, '/');
	if (!slash)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "%s: no repository after the host", ref);
	r->host = skitx_strndup(p, (size_t)(slash - p));
	rest = skitx_strdup(slash + 1);
	if (!r->host || !rest) {
		skitx_free(rest);
		return skit__error_oom(err);
	}
	at = strchr(rest, '@');
	if (at) {
		r->digest = skitx_strdup(at + 1);
		rest[at - rest] = '\0';
		if (!r->digest) {
			skitx_free(rest);
			return skit__error_oom(err);
		}
		if (strncmp(r->digest, "sha256:", 7) ||
		    !is_hex64(r->digest + 7)) {
			skitx_free(rest);
			return skit__error_set(err, SKIT_EUSAGE, 0,
			                       "%s: the digest is not "
			                       "sha256:<64 lowercase hex>",
			                       ref);
		}
	}
	colon = strrchr(rest, ':');
	if (colon) {
		r->tag = skitx_strdup(colon + 1);
		rest[colon - rest] = '\0';
		if (!r->tag) {
			skitx_free(rest);
			return skit__error_oom(err);
		}
	}
	r->repo = rest;
	if (!host_ok(r->host) || !repo_ok(r->repo) ||
	    (r->tag && !tag_ok(r->tag)))
		return skit__error_set(
		        err, SKIT_EUSAGE, 0,
		        "%s: not an oci://HOST[:PORT]/REPO:TAG "
		        "reference (lowercase repository, tag of "
		        "letters, digits, '.', '_', '-')",
		        ref);
	if (!r->tag && !r->digest)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "%s: no :TAG or @sha256:DIGEST", ref);
	if (plain && !loopback(r->host))
		return skit__error_set(err, SKIT_EUNSAFE, 0,
		                       "%s: plain HTTP is accepted for "
		                       "127.0.0.1, ::1 and localhost only",
		                       r->host);
	r->plain = plain;
	r->timeout_ms = timeout_ms > 0 ? timeout_ms : 300000;
	return 0;
}

/* ---- credentials: ~/.docker/config.json ---- */

static char *config_path(void)
{
	const char *d = getenv("DOCKER_CONFIG"), *home = getenv("HOME");
	struct skitx_buf b = SKITX_BUF_INIT;

	if (d && *d)
		skitx_buf_printf(&b, "%s/config.json", d);
	else if (home && *home)
		skitx_buf_printf(&b, "%s/.docker/config.json", home);
	else
		return NULL;
	if (!b.len) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

/* Does a key of "auths" / "credHelpers" name `host`? Docker writes
 * "host", "https://host" and "https://host/v1/" alike. */
static bool key_names_host(const char *key, const char *host)
{
	size_t n = strlen(host);

	if (!strncmp(key, "https://", 8))
		key += 8;
	else if (!strncmp(key, "http://", 7))
		key += 7;
	return !strncmp(key, host, n) && (key[n] == '\0' || key[n] == '/');
}

/* Run `docker-credential-NAME get` with `host` on stdin, per the
 * docker-credential-helpers protocol: JSON {"Username","Secret"} out.
 * A helper that is missing or fails leaves no credentials (the
 * registry may allow anonymous access); a bad name is refused. */
static void run_helper(struct oref *r, const char *name)
{
	char prog[128];
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, status;
	posix_spawn_file_actions_t fa;
	pid_t pid;
	struct skitx_buf o = SKITX_BUF_INIT;
	char *argv[3];
	json_t *j;

	for (const char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' ||
		      *c == '.'))
			return;
	if (!*name || strlen(name) > 64)
		return;
	snprintf(prog, sizeof(prog), "docker-credential-%s", name);
	if (pipe(in) < 0)
		return;
	if (pipe(out) < 0) {
		close(in[0]);
		close(in[1]);
		return;
	}
	argv[0] = prog;
	argv[1] = (char *)"get";
	argv[2] = NULL;
	for (int i = 0; i < 2; i++) {
		(void)fcntl(in[i], F_SETFD, FD_CLOEXEC);
		(void)fcntl(out[i], F_SETFD, FD_CLOEXEC);
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	if (posix_spawnp(&pid, prog, &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(out[1]);
	if (pid > 0) {
		char buf[4096];
		ssize_t k;

		(void)!write(in[1], r->host, strlen(r->host));
		close(in[1]);
		in[1] = -1;
		while ((k = read(out[0], buf, sizeof(buf))) > 0)
			if (o.len + (size_t)k > HELPER_OUT_MAX ||
			    skitx_buf_add(&o, buf, (size_t)k) < 0)
				break;
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (in[1] >= 0)
		close(in[1]);
	close(out[0]);
	if (pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status) && o.len &&
	    (j = json_loadb(o.ptr, o.len, 0, NULL))) {
		const char *u =
		        json_string_value(json_object_get(j, "Username"));
		const char *s = json_string_value(json_object_get(j, "Secret"));

		/* "<token>" marks an identity (refresh) token, which
		 * needs OAuth2 exchanges skit does not make: no creds. */
		if (u && s && *s && strcmp(u, "<token>")) {
			r->user = skitx_strdup(u);
			r->pass = skitx_strdup(s);
		}
		json_decref(j);
	}
	OPENSSL_cleanse(o.ptr, o.len);
	skitx_buf_release(&o);
}

static void load_creds(struct oref *r)
{
	char *path;
	json_t *cfg, *v;
	const char *key, *helper = NULL;

	if (r->creds_tried)
		return;
	r->creds_tried = true;
	path = config_path();
	if (!path)
		return;
	cfg = json_load_file(path, 0, NULL);
	skitx_free(path);
	if (!cfg)
		return;
	json_object_foreach(json_object_get(cfg, "credHelpers"), key,
	                    v) if (key_names_host(key, r->host) &&
	                           json_is_string(v)) helper =
	        json_string_value(v);
	json_object_foreach(json_object_get(cfg, "auths"), key, v)
	{
		const char *a = json_string_value(json_object_get(v, "auth"));
		unsigned char dec[1024];
		int n;
		char *colon;

		if (helper || !a || !key_names_host(key, r->host) ||
		    strlen(a) >= sizeof(dec))
			continue;
		n = EVP_DecodeBlock(dec, (const unsigned char *)a,
		                    (int)strlen(a));
		if (n <= 0)
			continue;
		/* EVP_DecodeBlock counts the padding as NULs. */
		while (n > 0 && dec[n - 1] == '\0')
			n--;
		dec[n] = '\0';
		colon = strchr((char *)dec, ':');
		if (colon && !memchr(dec, '\n', (size_t)n)) {
			*colon = '\0';
			r->user = skitx_strdup((char *)dec);
			r->pass = skitx_strdup(colon + 1);
		}
		OPENSSL_cleanse(dec, sizeof(dec));
		break;
	}
	if (!r->user && !helper)
		helper = json_string_value(json_object_get(cfg, "credsStore"));
	if (!r->user && helper)
		run_helper(r, helper);
	json_decref(cfg);
}

/* ---- HTTP ---- */

struct resp {
	long status;
	struct skitx_buf body; /* capped at body_max */
	size_t body_max;
	bool too_big;
	int fd; /* >= 0: the body goes here, hashed */
	EVP_MD_CTX *md;
	uint64_t got, fd_max;
	bool write_failed;
	char *www_auth, *location, *digest;
};

static void resp_init(struct resp *p, int fd, size_t body_max)
{
	struct skitx_buf empty = SKITX_BUF_INIT;

	memset(p, 0, sizeof(*p));
	p->body = empty;
	p->fd = fd;
	p->body_max = body_max;
}

static void resp_release(struct resp *p)
{
	skitx_buf_release(&p->body);
	skitx_free(p->www_auth);
	skitx_free(p->location);
	skitx_free(p->digest);
	if (p->md)
		EVP_MD_CTX_free(p->md);
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
	struct resp *p = ud;
	size_t len = size * n;

	/* Only a 2xx body is the artifact; an error body is kept short. */
	if (p->fd >= 0 && p->status / 100 == 2) {
		if (p->got + len > p->fd_max) {
			p->too_big = true;
			return 0;
		}
		for (size_t off = 0; off < len;) {
			ssize_t k = write(p->fd, data + off, len - off);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0) {
				p->write_failed = true;
				return 0;
			}
			off += (size_t)k;
		}
		EVP_DigestUpdate(p->md, data, len);
		p->got += len;
		return len;
	}
	if (p->body.len + len > p->body_max) {
		p->too_big = true;
		return 0;
	}
	return skitx_buf_add(&p->body, data, len) < 0 ? 0 : len;
}

static char *header_value(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	if (n <= k + 1 || strncasecmp(line, name, k) || line[k] != ':')
		return NULL;
	line += k + 1;
	n -= k + 1;
	while (n && (*line == ' ' || *line == '\t')) {
		line++;
		n--;
	}
	while (n && (line[n - 1] == '\r' || line[n - 1] == '\n' ||
	             line[n - 1] == ' '))
		n--;
	return skitx_strndup(line, n);
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
	struct resp *p = ud;
	size_t len = size * n;
	char *v;

	if (len > 8 && !strncmp(data, "HTTP/", 5)) {
		long status = skit__http_status_line(data, len);

		/* A new response (after a redirect): forget the last. */
		skitx_free(p->www_auth);
		skitx_free(p->location);
		skitx_free(p->digest);
		p->www_auth = p->location = p->digest = NULL;
		p->status = status > 0 ? status : 0;
		return len;
	}
	if ((v = header_value(data, len, "WWW-Authenticate"))) {
		skitx_free(p->www_auth);
		p->www_auth = v;
	} else if ((v = header_value(data, len, "Location"))) {
		skitx_free(p->location);
		p->location = v;
	} else if ((v = header_value(data, len, "Docker-Content-Digest"))) {
		skitx_free(p->digest);
		p->digest = v;
	}
	return len;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_init_once(void)
{
	(void)curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct req {
	const char *method;
	const char *url; /* absolute */
	const char *ctype;
	const char *accept;
	const void *body; /* PUT/POST/PATCH */
	size_t body_len;
	const char *range; /* "Content-Range: ..." or NULL */
	bool with_auth;
	const char *basic_user, *basic_pass; /* token endpoint */
};

/* One request, no retry. Errors of the transport are SKIT_EIO, the
 * status is left for the caller. */
static int perform(const struct oref *r, const struct req *q, struct resp *p,
                   skit_error *err)
{
	CURL *c;
	struct curl_slist *h = NULL;
	char errbuf[CURL_ERROR_SIZE] = "", line[512];
	CURLcode rc;
	int ret = 0;

	pthread_once(&curl_once, curl_init_once);
	c = curl_easy_init();
	if (!c)
		return skit__error_oom(err);
	p->status = 0;
	curl_easy_setopt(c, CURLOPT_URL, q->url);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, r->timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, p);
	curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(c, CURLOPT_HEADERDATA, p);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "skit");
	/* Blob GETs may be redirected to storage; curl keeps the
	 * Authorization header to the first host only. */
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION,
	                 strcmp(q->method, "GET") ? 0L : 1L);
	curl_easy_setopt(c, CURLOPT_MAXREDIRS, 5L);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR,
	                 r->plain ? "http,https" : "https");
	curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR,
	                 r->plain ? "http,https" : "https");
#endif
	if (loopback(r->host))
		curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	if (!strcmp(q->method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	else if (strcmp(q->method, "GET")) {
		curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, q->method);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, q->body ? q->body : "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
		                 (curl_off_t)q->body_len);
	}
	h = curl_slist_append(h, "Expect:");
	snprintf(line, sizeof(line), "Content-Type: %s",
	         q->ctype ? q->ctype : "application/octet-stream");
	if (q->body || strcmp(q->method, "GET"))
		h = curl_slist_append(h, line);
	if (q->accept) {
		snprintf(line, sizeof(line), "Accept: %s", q->accept);
		h = curl_slist_append(h, line);
	}
	if (q->range)
		h = curl_slist_append(h, q->range);
	if (q->with_auth && r->authz)
		h = curl_slist_append(h, r->authz);
	if (q->basic_user) {
		curl_easy_setopt(c, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
		curl_easy_setopt(c, CURLOPT_USERNAME, q->basic_user);
		curl_easy_setopt(c, CURLOPT_PASSWORD, q->basic_pass);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	rc = curl_easy_perform(c);
	if (p->too_big)
		ret = skit__error_set(err, SKIT_ETOOBIG, 0,
		                      "%s %s: response over the size limit",
		                      q->method, r->host);
	else if (p->write_failed)
		ret = skit__error_set(err, SKIT_EIO, 0,
		                      "%s: cannot write "
		                      "the download",
		                      r->host);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		ret = skit__error_set(err, SKIT_ETIMEOUT, 0, "%s %s: timed out",
		                      q->method, r->host);
	else if (rc != CURLE_OK)
		ret = skit__error_set(
		        err, SKIT_EIO, 0, "%s %s: %s", q->method, r->host,
		        *errbuf ? errbuf : curl_easy_strerror(rc));
	else
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &p->status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}

static const char *find_nocase(const char *h, const char *n)
{
	size_t k = strlen(n);

	for (; *h; h++)
		if (!strncasecmp(h, n, k))
			return h;
	return NULL;
}

/* The value of `key` in a challenge's `k="v",...` list. */
static char *challenge_param(const char *ch, const char *key)
{
	size_t k = strlen(key);
	const char *p = ch;

	while ((p = find_nocase(p, key))) {
		if ((p == ch || p[-1] == ' ' || p[-1] == ',') && p[k] == '=') {
			const char *v = p + k + 1, *e;

			if (*v == '"') {
				v++;
				e = strchr(v, '"');
			} else
				e = v + strcspn(v, ",");
			return e ? skitx_strndup(v, (size_t)(e - v)) : NULL;
		}
		p += k;
	}
	return NULL;
}

/* Answer a 401: Basic with the credentials, or the Bearer token flow
 * (GET realm?service=&scope=, with Basic credentials when there are
 * some). Sets r->authz. */
static int authenticate(struct oref *r, const char *challenge, skit_error *err)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int rc = 0;

	load_creds(r);
	if (!strncasecmp(challenge, "Basic", 5)) {
		if (!r->user)
			return skit__error_set(
			        err, SKIT_EDENIED, 0,
			        "%s: authentication required and "
			        "no credentials for it in the "
			        "docker config",
			        r->host);
		skitx_buf_printf(&b, "%s:%s", r->user, r->pass);
		{
			char *enc = skitx_malloc(4 * (b.len / 3 + 2) + 1);

			if (!enc || !b.len) {
				skitx_free(enc);
				skitx_buf_release(&b);
				return skit__error_oom(err);
			}
			EVP_EncodeBlock((unsigned char *)enc,
			                (unsigned char *)b.ptr, (int)b.len);
			OPENSSL_cleanse(b.ptr, b.len);
			skitx_buf_clear(&b);
			skitx_buf_printf(&b, "Authorization: Basic %s", enc);
			OPENSSL_cleanse(enc, strlen(enc));
			skitx_free(enc);
		}
	} else if (!strncasecmp(challenge, "Bearer", 6)) {
		char *realm = challenge_param(challenge, "realm");
		char *service = challenge_param(challenge, "service");
		char *scope = challenge_param(challenge, "scope");
		struct resp p;
		struct req q = { .method = "GET",
			         .basic_user = r->user,
			         .basic_pass = r->pass };
		CURL *esc = curl_easy_init();
		json_t *j = NULL;
		const char *tok = NULL;

		resp_init(&p, -1, SMALL_BODY_MAX);
		if (!realm || !esc ||
		    (strncmp(realm, "https://", 8) &&
		     !(r->plain && !strncmp(realm, "http://", 7)))) {
			rc = skit__error_set(err, SKIT_EUNSAFE, 0,
			                     "%s: token realm missing or not "
			                     "https",
			                     r->host);
			goto bearer_out;
		}
		skitx_buf_printf(&b, "%s%c", realm,
		                 strchr(realm, '?') ? '&' : '?');
		if (service) {
			char *e = curl_easy_escape(esc, service, 0);

			skitx_buf_printf(&b, "service=%s&", e ? e : "");
			curl_free(e);
		}
		if (scope) {
			char *e = curl_easy_escape(esc, scope, 0);

			skitx_buf_printf(&b, "scope=%s", e ? e : "");
			curl_free(e);
		}
		q.url = b.ptr;
		rc = perform(r, &q, &p, err);
		if (!rc && p.status != 200)
			rc = skit__error_set(
			        err, SKIT_EDENIED, 0,
			        "%s: token request: HTTP %ld%s", r->host,
			        p.status, r->user ? "" : " (no credentials)");
		if (!rc) {
			j = json_loadb(p.body.ptr, p.body.len, 0, NULL);
			tok = json_string_value(json_object_get(j, "token"));
			if (!tok)
				tok = json_string_value(
				        json_object_get(j, "access_token"));
			if (!tok || !*tok || strpbrk(tok, "\r\n") ||
			    strlen(tok) > 16384)
				rc = skit__error_set(err, SKIT_EDENIED, 0,
				                     "%s: the token endpoint "
				                     "gave no token",
				                     r->host);
		}
		skitx_buf_clear(&b);
		if (!rc)
			skitx_buf_printf(&b, "Authorization: Bearer %s", tok);
		json_decref(j);
		resp_release(&p);
	bearer_out:
		curl_easy_cleanup(esc);
		skitx_free(realm);
		skitx_free(service);
		skitx_free(scope);
	} else
		rc = skit__error_set(err, SKIT_EDENIED, 0,
		                     "%s: unsupported authentication scheme",
		                     r->host);
	if (rc < 0) {
		skitx_buf_release(&b);
		return rc;
	}
	if (!b.len)
		return skit__error_oom(err);
	if (r->authz)
		OPENSSL_cleanse(r->authz, strlen(r->authz));
	skitx_free(r->authz);
	r->authz = skitx_buf_detach(&b, NULL);
	if (!r->authz)
		return skit__error_oom(err);
	return 0;
}

/* A request to the registry, answering one 401 with authenticate(). */
static int call(struct oref *r, struct req *q, struct resp *p, skit_error *err)
{
	int rc;

	q->with_auth = true;
	rc = perform(r, q, p, err);
	if (rc || p->status != 401 || !p->www_auth)
		return rc;
	{
		char *ch = p->www_auth;

		p->www_auth = NULL;
		rc = authenticate(r, ch, err);
		skitx_free(ch);
	}
	if (rc)
		return rc;
	skitx_buf_clear(&p->body);
	if (p->fd >= 0) {
		if (ftruncate(p->fd, 0) < 0 || lseek(p->fd, 0, SEEK_SET) < 0)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "%s: cannot reset the download",
			                       r->host);
		EVP_DigestInit_ex(p->md, EVP_sha256(), NULL);
		p->got = 0;
	}
	return perform(r, q, p, err);
}

static char *url_of(const struct oref *r, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));

static char *url_of(const struct oref *r, const char *fmt, ...)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	va_list ap;

	skitx_buf_printf(&b, "%s://%s/v2/%s/", r->plain ? "http" : "https",
	                 r->host, r->repo);
	va_start(ap, fmt);
	skitx_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return b.len ? skitx_buf_detach(&b, NULL) : NULL;
}

/* A registry's error body, as one short line: its first errors[].code
 * and message. */
static void error_detail(const struct resp *p, char *out, size_t size)
{
	json_t *j = p->body.len ? json_loadb(p->body.ptr, p->body.len, 0, NULL)
	                        : NULL;
	json_t *e = json_array_get(json_object_get(j, "errors"), 0);
	const char *code = json_string_value(json_object_get(e, "code"));
	const char *msg = json_string_value(json_object_get(e, "message"));

	*out = '\0';
	if (code)
		snprintf(out, size, " (%s%s%.120s)", code, msg ? ": " : "",
		         msg ? msg : "");
	for (char *c = out; *c; c++)
		if ((unsigned char)*c < 0x20)
			*c = '?';
	json_decref(j);
}

static int http_fail(const struct oref *r, const char *what,
                     const struct resp *p, skit_error *err)
{
	char d[200];

	error_detail(p, d, sizeof(d));
	return skit__error_set(err,
	                       p->status == 404 ? SKIT_ENOTFOUND
	                       : p->status == 401 || p->status == 403
	                               ? SKIT_EDENIED
	                               : SKIT_EIO,
	                       0, "%s %s/%s: HTTP %ld%s", what, r->host,
	                       r->repo, p->status, d);
}

/* ---- push ---- */

/* Where the next upload request goes: the Location (relative or
 * absolute) with `extra` ("digest=...") added to its query. */
static char *upload_url(const struct oref *r, const char *loc,
                        const char *extra)
{
	struct skitx_buf b = SKITX_BUF_INIT;

	if (!strncmp(loc, "http://", 7) || !strncmp(loc, "https://", 8))
		skitx_buf_puts(&b, loc);
	else
		skitx_buf_printf(&b, "%s://%s%s", r->plain ? "http" : "https",
		                 r->host, loc);
	if (extra)
		skitx_buf_printf(&b, "%c%s", strchr(loc, '?') ? '&' : '?',
		                 extra);
	return b.len ? skitx_buf_detach(&b, NULL) : NULL;
}

/* The Location must stay on the registry's own origin. */
static bool same_origin(const struct oref *r, const char *loc)
{
	const char *h;
	size_t n = strlen(r->host);

	if (loc[0] == '/')
		return loc[1] != '/';
	if (!strncmp(loc, "https://", 8))
		h = loc + 8;
	else if (r->plain && !strncmp(loc, "http://", 7))
		h = loc + 7;
	else
		return false;
	return !strncmp(h, r->host, n) && (h[n] == '/' || h[n] == '?');
}

static int push_blob(struct oref *r, const char *data, size_t len,
                     const char *digest, uint64_t chunk, skit_error *err)
{
	struct resp p;
	struct req q = { 0 };
	char *url = url_of(r, "blobs/%s", digest), *loc = NULL;
	int rc;

	resp_init(&p, -1, SMALL_BODY_MAX);
	if (!url)
		return skit__error_oom(err);
	q.method = "HEAD";
	q.url = url;
	rc = call(r, &q, &p, err);
	skitx_free(url);
	if (rc || p.status == 200) {
		resp_release(&p);
		return rc; /* present: skipped */
	}
	resp_release(&p);
	resp_init(&p, -1, SMALL_BODY_MAX);
	url = url_of(r, "blobs/uploads/");
	if (!url)
		return skit__error_oom(err);
	memset(&q, 0, sizeof(q));
	q.method = "POST";
	q.url = url;
	rc = call(r, &q, &p, err);
	skitx_free(url);
	if (!rc && (p.status != 202 || !p.location))
		rc = http_fail(r, "POST blob upload", &p, err);
	if (!rc && !same_origin(r, p.location))
		rc = skit__error_set(err, SKIT_EUNSAFE, 0,
		                     "%s: the upload location leads to "
		                     "another origin",
		                     r->host);
	if (rc) {
		resp_release(&p);
		return rc;
	}
	loc = p.location;
	p.location = NULL;
	resp_release(&p);
	/* Large blobs go in PATCH chunks (Content-Range, each answered
	 * with the next Location), then a PUT with no body closes. */
	if (len > chunk) {
		for (size_t off = 0; off < len && !rc; off += chunk) {
			size_t n = len - off < chunk ? len - off : chunk;
			char range[80];

			snprintf(range, sizeof(range), "Content-Range: %zu-%zu",
			         off, off + n - 1);
			resp_init(&p, -1, SMALL_BODY_MAX);
			url = upload_url(r, loc, NULL);
			memset(&q, 0, sizeof(q));
			q.method = "PATCH";
			q.url = url;
			q.body = data + off;
			q.body_len = n;
			q.range = range;
			rc = url ? call(r, &q, &p, err) : skit__error_oom(err);
			skitx_free(url);
			if (!rc && (p.status != 202 || !p.location))
				rc = http_fail(r, "PATCH blob chunk", &p, err);
			if (!rc && !same_origin(r, p.location))
				rc = skit__error_set(err, SKIT_EUNSAFE, 0,
				                     "%s: the upload location "
				                     "leads to another origin",
				                     r->host);
			if (!rc) {
				skitx_free(loc);
				loc = p.location;
				p.location = NULL;
			}
			resp_release(&p);
		}
		data = NULL;
		len = 0;
	}
	if (!rc) {
		char extra[100];

		snprintf(extra, sizeof(extra), "digest=%s", digest);
		resp_init(&p, -1, SMALL_BODY_MAX);
		url = upload_url(r, loc, extra);
		memset(&q, 0, sizeof(q));
		q.method = "PUT";
		q.url = url;
		q.body = data;
		q.body_len = len;
		rc = url ? call(r, &q, &p, err) : skit__error_oom(err);
		skitx_free(url);
		if (!rc && p.status != 201)
			rc = http_fail(r, "PUT blob", &p, err);
		resp_release(&p);
	}
	skitx_free(loc);
	return rc;
}

/* The pack's manifest.json and manifest.sig, for the annotations. */
static int pack_meta(const char *path, json_t **manifest, json_t **sig,
                     skit_error *err)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int rc = 0;

	*manifest = *sig = NULL;
	if (!a)
		return skit__error_oom(err);
	archive_read_support_format_zip(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		rc = skit__error_set(err, SKIT_EINVALID, 0, "%s: not a zip: %s",
		                     path, archive_error_string(a));
		goto out;
	}
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		const char *n = archive_entry_pathname(e);
		json_t **slot = !strcmp(n, "manifest.json")  ? manifest
		                : !strcmp(n, "manifest.sig") ? sig
		                                             : NULL;
		struct skitx_buf b = SKITX_BUF_INIT;
		char buf[8192];
		la_ssize_t k;

		if (!slot)
			continue;
		while ((k = archive_read_data(a, buf, sizeof(buf))) > 0)
			if (b.len + (size_t)k > MANIFEST_MAX ||
			    skitx_buf_add(&b, buf, (size_t)k) < 0)
				break;
		if (b.len)
			*slot = json_loadb(b.ptr, b.len, 0, NULL);
		skitx_buf_release(&b);
	}
	if (!*manifest)
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: not a skit pack (no manifest.json; "
		                     "make one with skit pack)",
		                     path);
out:
	archive_read_free(a);
	return rc;
}

static int read_file(const char *path, struct skitx_buf *b, skit_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char buf[65536];
	ssize_t k;

	if (fd < 0)
		return skit__error_set(err, SKIT_ENOTFOUND, 0, "%s: %s", path,
		                       strerror(errno));
	while ((k = read(fd, buf, sizeof(buf))) > 0)
		if (skitx_buf_add(b, buf, (size_t)k) < 0) {
			close(fd);
			return skit__error_oom(err);
		}
	close(fd);
	return k < 0 ? skit__error_set(err, SKIT_EIO, 0, "%s: %s", path,
	                               strerror(errno))
	             : 0;
}

static json_t *build_manifest(const char *layer_digest, size_t size, json_t *pm,
                              json_t *sig, const char *tag)
{
	json_t *ann = json_object(), *skills = json_array(), *s;
	struct skitx_buf names = SKITX_BUF_INIT, vers = SKITX_BUF_INIT;
	size_t i;
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	json_t *m;

	json_array_foreach(json_object_get(pm, "skills"), i, s)
	{
		const char *n = json_string_value(json_object_get(s, "name"));
		const char *v =
		        json_string_value(json_object_get(s, "version"));

		if (!n)
			continue;
		skitx_buf_printf(&names, "%s%s", names.len ? "," : "", n);
		skitx_buf_printf(&vers, "%s%s=%s", vers.len ? "," : "", n,
		                 v ? v : "");
	}
	(void)skills;
	json_decref(skills);
	gmtime_r(&t, &tm);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(ann, "org.opencontainers.image.created",
	                    json_string(now));
	if (tag)
		json_object_set_new(ann, "org.opencontainers.image.version",
		                    json_string(tag));
	json_object_set_new(ann, "dev.skit.pack.skills",
	                    json_string(names.ptr));
	json_object_set_new(ann, "dev.skit.pack.versions",
	                    json_string(vers.ptr));
	if (json_is_string(json_object_get(pm, "digest")))
		json_object_set(ann, "dev.skit.pack.digest",
		                json_object_get(pm, "digest"));
	if (json_is_string(json_object_get(sig, "key_id")))
		json_object_set(ann, "dev.skit.pack.signer",
		                json_object_get(sig, "key_id"));
	skitx_buf_release(&names);
	skitx_buf_release(&vers);
	m = json_pack("{s:i, s:s, s:s, s:{s:s, s:s, s:i}, "
	              "s:[{s:s, s:s, s:I, s:{s:s}}], s:o}",
	              "schemaVersion", 2, "mediaType", MEDIA_MANIFEST,
	              "artifactType", SKIT__OCI_ARTIFACT_TYPE, "config",
	              "mediaType", MEDIA_EMPTY, "digest", EMPTY_DIGEST, "size",
	              2, "layers", "mediaType", SKIT__OCI_ARTIFACT_TYPE,
	              "digest", layer_digest, "size", (json_int_t)size,
	              "annotations", "org.opencontainers.image.title",
	              "pack.zip", "annotations", ann);
	return m;
}

int skit_oci_push(const char *pack_path, const char *ref,
                  const skit_oci_options *opts, char digest[72],
                  skit_error *err)
{
	struct oref r;
	struct skitx_buf zip = SKITX_BUF_INIT;
	json_t *pm = NULL, *sig = NULL, *m = NULL;
	char hex[65], layer[80], *body = NULL, *url = NULL;
	uint64_t chunk =
	        opts && opts->chunk_size ? opts->chunk_size : CHUNK_DEFAULT;
	int rc;

	if (digest)
		digest[0] = '\0';
	if (!pack_path || !ref)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "a pack and a reference are needed");
	rc = parse_ref(&r, ref, opts && opts->plain_http,
	               opts ? opts->timeout_ms : 0, err);
	if (!rc && (r.digest || !r.tag))
		rc = skit__error_set(err, SKIT_EUSAGE, 0,
		                     "%s: push needs a :TAG, not a digest",
		                     ref);
	if (!rc)
		rc = pack_meta(pack_path, &pm, &sig, err);
	if (!rc)
		rc = read_file(pack_path, &zip, err);
	if (rc)
		goto out;
	skit__sha256_hex(zip.ptr, zip.len, hex);
	snprintf(layer, sizeof(layer), "sha256:%s", hex);
	rc = push_blob(&r, "{}", 2, EMPTY_DIGEST, chunk, err);
	if (!rc)
		rc = push_blob(&r, zip.ptr, zip.len, layer, chunk, err);
	if (rc)
		goto out;
	m = build_manifest(layer, zip.len, pm, sig, r.tag);
	body = m ? json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	url = url_of(&r, "manifests/%s", r.tag);
	if (!body || !url) {
		rc = skit__error_oom(err);
		goto out;
	}
	{
		struct resp p;
		struct req q = { .method = "PUT",
			         .url = url,
			         .ctype = MEDIA_MANIFEST,
			         .body = body,
			         .body_len = strlen(body) };

		resp_init(&p, -1, SMALL_BODY_MAX);
		rc = call(&r, &q, &p, err);
		if (!rc && p.status != 201)
			rc = http_fail(&r, "PUT manifest", &p, err);
		skit__sha256_hex(body, strlen(body), hex);
		if (!rc && p.digest &&
		    (strncmp(p.digest, "sha256:", 7) ||
		     strcmp(p.digest + 7, hex)))
			rc = skit__error_set(err, SKIT_EUNSAFE, 0,
			                     "%s: the registry stored the "
			                     "manifest under another digest",
			                     r.host);
		resp_release(&p);
	}
	if (!rc && digest)
		snprintf(digest, 72, "sha256:%s", hex);
out:
	free(body);
	skitx_free(url);
	json_decref(m);
	json_decref(pm);
	json_decref(sig);
	skitx_buf_release(&zip);
	oref_release(&r);
	return rc;
}

/* ---- pull ---- */

int skit__oci_pull(const char *ref, const char *pin, bool plain_http, int fd,
                   uint64_t max_bytes, long timeout_ms,
                   char manifest_digest[SKIT__OCI_DIGEST_LEN], skit_error *err)
{
	struct oref r;
	struct resp p;
	struct req q = { .method = "GET" };
	char hex[65], *url = NULL;
	const char *want;
	json_t *m = NULL, *layers, *l;
	const char *ldigest, *ltype;
	json_int_t lsize;
	int rc;

	manifest_digest[0] = '\0';
	resp_init(&p, -1, MANIFEST_MAX);
	rc = parse_ref(&r, ref, plain_http, timeout_ms, err);
	if (rc)
		goto out;
	if (pin && (strncmp(pin, "sha256:", 7) || !is_hex64(pin + 7))) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: the lock's digest is not sha256",
		                     ref);
		goto out;
	}
	want = pin ? pin : r.digest;
	url = url_of(&r, "manifests/%s", want ? want : r.tag);
	if (!url) {
		rc = skit__error_oom(err);
		goto out;
	}
	q.url = url;
	q.accept = MEDIA_MANIFEST;
	rc = call(&r, &q, &p, err);
	if (!rc && p.status != 200)
		rc = http_fail(&r, want ? "GET manifest" : "GET tag", &p, err);
	if (rc)
		goto out;
	skit__sha256_hex(p.body.ptr, p.body.len, hex);
	snprintf(manifest_digest, SKIT__OCI_DIGEST_LEN, "sha256:%s", hex);
	if ((want && strcmp(want, manifest_digest)) ||
	    (p.digest && !strncmp(p.digest, "sha256:", 7) &&
	     strcmp(p.digest, manifest_digest))) {
		rc = skit__error_set(err, SKIT_EUNSAFE, 0,
		                     "%s: the manifest does not match its "
		                     "digest (got %s)",
		                     ref, manifest_digest);
		goto out;
	}
	m = json_loadb(p.body.ptr, p.body.len, 0, NULL);
	layers = json_object_get(m, "layers");
	l = json_array_get(layers, 0);
	ldigest = json_string_value(json_object_get(l, "digest"));
	ltype = json_string_value(json_object_get(l, "mediaType"));
	lsize = json_integer_value(json_object_get(l, "size"));
	if (!m || json_array_size(layers) != 1 || !ltype ||
	    strcmp(ltype, SKIT__OCI_ARTIFACT_TYPE) || !ldigest ||
	    strncmp(ldigest, "sha256:", 7) || !is_hex64(ldigest + 7) ||
	    !json_is_integer(json_object_get(l, "size")) || lsize < 0) {
		rc = skit__error_set(err, SKIT_EINVALID, 0,
		                     "%s: not a skit pack artifact (one layer "
		                     "of %s expected)",
		                     ref, SKIT__OCI_ARTIFACT_TYPE);
		goto out;
	}
	if ((uint64_t)lsize > max_bytes) {
		rc = skit__error_set(err, SKIT_ETOOBIG, 0,
		                     "%s: the pack is %lld bytes, over the "
		                     "download limit",
		                     ref, (long long)lsize);
		goto out;
	}
	resp_release(&p);
	resp_init(&p, fd, SMALL_BODY_MAX);
	p.fd_max = (uint64_t)lsize;
	p.md = EVP_MD_CTX_new();
	skitx_free(url);
	url = url_of(&r, "blobs/%s", ldigest);
	if (!p.md || !url || !EVP_DigestInit_ex(p.md, EVP_sha256(), NULL)) {
		rc = skit__error_oom(err);
		goto out;
	}
	memset(&q, 0, sizeof(q));
	q.method = "GET";
	q.url = url;
	rc = call(&r, &q, &p, err);
	if (rc == SKIT_ETOOBIG)
		rc = skit__error_set(err, SKIT_EUNSAFE, 0,
		                     "%s: the pack blob is longer than its "
		                     "descriptor says",
		                     ref);
	if (!rc && p.status != 200)
		rc = http_fail(&r, "GET blob", &p, err);
	if (rc)
		goto out;
	skit__sha256_final(p.md, hex);
	if (p.got != (uint64_t)lsize || strcmp(hex, ldigest + 7))
		rc = skit__error_set(err, SKIT_EUNSAFE, 0,
		                     "%s: the pack blob does not match its "
		                     "digest %s",
		                     ref, ldigest);
out:
	if (rc)
		manifest_digest[0] = '\0';
	json_decref(m);
	skitx_free(url);
	resp_release(&p);
	oref_release(&r);
	return rc;
}
