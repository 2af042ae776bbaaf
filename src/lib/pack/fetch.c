/* SPDX-License-Identifier: MIT */
/*
 * fetch.c - getting an install source: an HTTP(S) download on a libcurl
 * easy handle, or a shallow git clone run as an argv.
 *
 * Downloads. Every URL is checked before a connection is made to it: the
 * first one, and each redirect target. Redirects are therefore followed
 * by hand (CURLOPT_FOLLOWLOCATION stays off): curl reports where a 3xx
 * points (CURLINFO_REDIRECT_URL), the target is checked, and only then
 * requested. Letting curl follow and checking CURLINFO_EFFECTIVE_URL
 * afterwards would already have sent a plain-text request to the host we
 * meant to refuse. The body of anything but a 2xx is never written: an
 * error page is cut at its first byte, a redirect's body (at most 64 KiB)
 * read and dropped, since curl names the target only after a transfer
 * that completed. Bytes are counted
 * as they arrive (an announced Content-Length is checked by curl itself
 * through CURLOPT_MAXFILESIZE_LARGE), hashed as they are written, and the
 * whole chain of requests shares one deadline.
 *
 * Clones. git is found on PATH here, then run with fork() and execve():
 * an argv array, never a shell. The child gets its own session (so its
 * own process group, and no controlling terminal an ssh prompt could
 * open), stdin and stdout on /dev/null (stdout on a pipe when we want
 * it), stderr on a pipe of which the last bytes are kept, and an
 * environment built from nothing. Between fork and exec the child makes
 * system calls only (the parent may be multi-threaded). The parent polls
 * the pipes, the deadline and the size of the growing folder, and kills
 * the whole group when one runs out. git itself is told to allow only
 * the URL's protocol, to ignore the system and global config, to run no
 * hooks, copy no templates and write symbolic links as plain files.
 *
 * What is not here: choosing the destination, copying files out of it,
 * deleting it, and any policy about which sources are trusted.
 */
#define _GNU_SOURCE /* pipe2: before any header */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "lib/core/digest.h"
#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/sandbox/sandbox_int.h"
#include "util/buf.h"
#include "util/clock.h"

#define DEFAULT_TIMEOUT_MS 300000L
#define MAX_REDIRECTS      5
#define REDIRECT_BODY_MAX  65536 /* bytes of a 3xx body read and dropped */
#define SHOWN_URL_MAX      200   /* characters of a URL quoted in a message */
#define GIT_URL_MAX        4096
#define GIT_REF_MAX        255
#define GIT_ERR_TAIL       400 /* bytes of git's stderr kept */
#define GIT_OUT_MAX        128 /* bytes of git's stdout kept (rev-parse) */
#define POLL_SLICE_MS      50
#define WATCH_EVERY_MS     500
#define DRAIN_MS           200 /* for the pipes after git exits */
#define TREE_DEPTH_MAX     64

/*
 * A URL fit for a message: userinfo ("user:pass@") replaced by "***",
 * control characters by '?', cut at SHOWN_URL_MAX characters.
 */
static void shown_url(char *out, size_t size, const char *url)
{
	const char *start = strstr(url, "://"), *at = NULL, *p;
	size_t o = 0, n = 0;

	if (start) {
		start += 3;
		for (p = start; *p && *p != '/' && *p != '?' && *p != '#'; p++)
			if (*p == '@')
				at = p;
	}
	for (p = url; *p && o + 4 < size && n < SHOWN_URL_MAX; p++, n++) {
		if (at && p == start) {
			memcpy(out + o, "***", 3);
			o += 3;
			p = at - 1; /* the loop steps onto the '@' */
			continue;
		}
		out[o++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
	}
	if (*p && o + 4 < size) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o] = '\0';
}

/*
 * The userinfo of `url` ("user:pass" in "scheme://user:pass@host/..."):
 * [*start, *at), `*at` on the '@'. False when there is none.
 */
static bool userinfo_span(const char *url, const char **start, const char **at)
{
	const char *p = strstr(url, "://");

	*at = NULL;
	if (!p)
		return false;
	*start = p + 3;
	for (p = *start; *p && *p != '/' && *p != '?' && *p != '#'; p++)
		if (*p == '@')
			*at = p;
	return *at != NULL;
}

static bool http_url(const char *url)
{
	if (!strncmp(url, "git+", 4))
		url += 4;
	return !strncasecmp(url, "https://", 8) ||
	       !strncasecmp(url, "http://", 7);
}

char *skit__url_without_credentials(const char *url)
{
	const char *start, *at, *cut;
	struct skitx_buf b = SKITX_BUF_INIT;

	if (!userinfo_span(url, &start, &at))
		return skitx_strdup(url);
	/* http(s): all of it (a token is often the user name). Others keep
	 * the user, which ssh needs and which is no secret. */
	if (http_url(url))
		cut = start;
	else if (!(cut = memchr(start, ':', (size_t)(at - start))))
		return skitx_strdup(url);
	if (skitx_buf_add(&b, url, (size_t)(cut - url)) < 0 ||
	    skitx_buf_puts(&b, http_url(url) ? at + 1 : at) < 0) {
		skitx_buf_release(&b);
		return NULL;
	}
	return skitx_buf_detach(&b, NULL);
}

CURLcode skit__curl_http_base(CURL *c, const char *url, struct curl_slist *hdrs,
                              char *errbuf)
{
	CURLcode rc = curl_easy_setopt(c, CURLOPT_URL, url);

	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_PROTOCOLS,
		                      (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	return rc;
}

long skit__http_status_line(const char *line, size_t len)
{
	size_t i = 5;
	long code = 0;
	int digits = 0;

	if (len < 5 || memcmp(line, "HTTP/", 5))
		return -1;
	while (i < len && line[i] != ' ')
		i++;
	while (i < len && line[i] == ' ')
		i++;
	for (; i < len && digits < 3 && line[i] >= '0' && line[i] <= '9'; i++) {
		code = code * 10 + (line[i] - '0');
		digits++;
	}
	return digits == 3 && code >= 100 ? code : -1;
}

bool skit__url_has_credentials(const char *url)
{
	char *bare = skit__url_without_credentials(url);
	bool had = !bare || strcmp(bare, url);

	skitx_free(bare);
	return had;
}

int skit__fetch_header_check(const char *h, skit_error *err)
{
	const char *colon = strchr(h, ':');
	size_t len = strlen(h);

	if (!colon || colon == h || len > SKIT__FETCH_HEADER_MAX)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "a header is \"Name: value\" (at most "
		                       "%d bytes)",
		                       SKIT__FETCH_HEADER_MAX);
	for (const char *p = h; p < colon; p++)
		if (!strchr("!#$%&'*+-.^_`|~", *p) &&
		    !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z')))
			return skit__error_set(
			        err, SKIT_EUSAGE, 0,
			        "header name \"%.*s\": not a "
			        "valid name",
			        (int)(colon - h > 64 ? 64 : colon - h), h);
	/* No CR or LF: one header could smuggle in another, or a request. */
	for (const char *p = colon; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\t')
			return skit__error_set(
			        err, SKIT_EUSAGE, 0,
			        "header %.*s: a control "
			        "character in its value",
			        (int)(colon - h > 64 ? 64 : colon - h), h);
	return 0;
}

/*
 * "scheme://host:port" of `url`, lower-cased by curl, with the default
 * port filled in: two URLs with the same origin may share credentials.
 * NULL when it does not parse.
 */
static char *origin_of(const char *url)
{
	CURLU *u = curl_url();
	char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;
	struct skitx_buf b = SKITX_BUF_INIT;

	if (u &&
	    !curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME) &&
	    !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) &&
	    !curl_url_get(u, CURLUPART_HOST, &host, 0) &&
	    !curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT)) {
		for (char *p = host; *p; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		if (skitx_buf_printf(&b, "%s://%s:%s", scheme, host, port) == 0)
			out = skitx_buf_detach(&b, NULL);
	}
	skitx_buf_release(&b);
	curl_free(scheme);
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(u);
	return out;
}

/* The user and password of `url`, %-decoded (each NULL when absent). */
static void url_credentials(const char *url, char **user, char **pass)
{
	CURLU *u = curl_url();
	char *v = NULL;

	*user = *pass = NULL;
	if (!u ||
	    curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME)) {
		curl_url_cleanup(u);
		return;
	}
	if (!curl_url_get(u, CURLUPART_USER, &v, CURLU_URLDECODE)) {
		*user = skitx_strdup(v);
		curl_free(v);
		v = NULL;
	}
	if (!curl_url_get(u, CURLUPART_PASSWORD, &v, CURLU_URLDECODE)) {
		*pass = skitx_strdup(v);
		curl_free(v);
	}
	curl_url_cleanup(u);
}

static void free_secret(char *s)
{
	if (s) {
		OPENSSL_cleanse(s, strlen(s));
		skitx_free(s);
	}
}

/* ---- downloads ---------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init_once(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static bool is_loopback_host(const char *host)
{
	/* CURLU lowercases nothing in the host; compare without case. */
	return !strcmp(host, "127.0.0.1") || !strcmp(host, "[::1]") ||
	       (strlen(host) == 9 && !strncasecmp(host, "localhost", 9));
}

/*
 * The scheme rule, applied before any connection: https anywhere, http
 * only to the loopback names. `what` prefixes the message ("GET <url>"
 * or "GET <url>: redirected to <url>").
 */
static int check_url(const char *url, const char *what, skit_error *err)
{
	char *scheme = NULL, *host = NULL;
	CURLUcode uc;
	CURLU *u;
	int error = 0;

	u = curl_url();
	if (!u)
		return skit__error_oom(err);
	uc = curl_url_set(u, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (uc == CURLUE_OUT_OF_MEMORY) {
		error = skit__error_oom(err);
		goto out;
	}
	if (uc || curl_url_get(u, CURLUPART_SCHEME, &scheme, 0)) {
		error = skit__error_set(err, SKIT_EINVALID, 0,
		                        "%s: not a valid URL", what);
		goto out;
	}
	if (!strcmp(scheme, "https") || !strcmp(scheme, "http")) {
		if (curl_url_get(u, CURLUPART_HOST, &host, 0)) {
			error = skit__error_set(err, SKIT_EINVALID, 0,
			                        "%s: not a valid URL", what);
			goto out;
		}
		if (scheme[4] == 's' || is_loopback_host(host))
			goto out;
		error = skit__error_set(
		        err, SKIT_EUNSAFE, 0,
		        "%s: refused: http:// only to 127.0.0.1, ::1 or localhost; use https://",
		        what);
		goto out;
	}
	error = skit__error_set(
	        err, SKIT_EUNSAFE, 0,
	        "%s: refused: only https:// (or http:// to localhost) can be downloaded",
	        what);
out:
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
	return error;
}

/* One download, shared by the callbacks. */
struct dl {
	CURL *easy;
	int fd;
	uint64_t max_bytes, written;
	size_t dropped; /* body bytes of the current 3xx, not written */
	EVP_MD_CTX *md;
	skit__fetch_progress progress;
	void *ud;
	uint64_t shown_done, shown_total; /* last values given to progress */
	bool non2xx;  /* stopped: the response is not a 2xx */
	bool toobig;  /* stopped: more than max_bytes */
	bool hashbad; /* stopped: EVP_DigestUpdate failed */
	int werrno;   /* stopped: write() failed with this errno */
};

static long status_now(CURL *easy)
{
	long code = 0;

	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &code);
	return code;
}

static size_t on_body(char *data, size_t size, size_t n, void *userdata)
{
	struct dl *d = userdata;
	size_t len = size * n, left = len;
	long code = status_now(d->easy);

	/* Anything but the final 2xx is not written. An error page stops
	 * the transfer at once. A redirect's body is read and dropped, up
	 * to a point: curl only reports where a 3xx points
	 * (CURLINFO_REDIRECT_URL) once its transfer has completed. */
	if (code >= 300 && code <= 399 &&
	    len <= REDIRECT_BODY_MAX - d->dropped) {
		d->dropped += len;
		return len;
	}
	if (code < 200 || code > 299) {
		d->non2xx = true;
		return 0;
	}
	if (len > d->max_bytes - d->written) {
		d->toobig = true;
		return 0;
	}
	if (EVP_DigestUpdate(d->md, data, len) != 1) {
		d->hashbad = true;
		return 0;
	}
	while (left) {
		ssize_t w = write(d->fd, data, left);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			d->werrno = errno;
			return 0;
		}
		data += w;
		left -= (size_t)w;
	}
	d->written += len;
	return len;
}

/* Called by libcurl about once a second and on every transfer event. */
static int on_xfer(void *payload, curl_off_t dltotal, curl_off_t dlnow,
                   curl_off_t ultotal, curl_off_t ulnow)
{
	struct dl *d = payload;
	uint64_t total = dltotal > 0 ? (uint64_t)dltotal : 0;
	long code;

	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	if (!d->progress)
		return 0;
	code = status_now(d->easy);
	if (code < 200 || code > 299)
		return 0;
	if (d->written == d->shown_done && total == d->shown_total)
		return 0;
	d->shown_done = d->written;
	d->shown_total = total;
	d->progress(d->ud, d->written, total);
	return 0;
}

static int set_options(CURL *c, struct dl *d, char *errbuf)
{
	CURLcode rc = CURLE_OK;

#define SET(opt, val)                  \
 do {                                  \
  if (rc == CURLE_OK)                  \
   rc = curl_easy_setopt(c, opt, val); \
 } while (0)
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_HTTPGET, 1L);
	SET(CURLOPT_FOLLOWLOCATION, 0L); /* followed by hand, see above */
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	SET(CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	/* A proxy from the environment must not see loopback traffic. */
	SET(CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
	SET(CURLOPT_ERRORBUFFER, errbuf);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, d);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, on_xfer);
	SET(CURLOPT_XFERINFODATA, d);
	SET(CURLOPT_USERAGENT, "skit/" SKIT_VERSION);
	/* Credentials may come from ~/.netrc (by host, so a redirect to
	 * another host gets that host's, or none). */
	SET(CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
	/* No Accept-Encoding: the bytes hashed and capped are the bytes
	 * served, with no decompression in between. */
	if (d->max_bytes < (uint64_t)INT64_MAX)
		SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)d->max_bytes);
#undef SET
	return rc == CURLE_OK ? 0 : (int)rc;
}

/*
 * Credentials go only to the origin the user named: the URL's own user
 * and password, and the headers given. A redirect elsewhere gets
 * neither (it may still get its own host's ~/.netrc entry).
 */
static int set_auth(CURL *c, bool same_origin, const char *user,
                    const char *pass, struct curl_slist *headers)
{
	CURLcode rc;

	rc = curl_easy_setopt(c, CURLOPT_USERNAME, same_origin ? user : NULL);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_PASSWORD,
		                      same_origin && user ? (pass ? pass : "")
		                                          : NULL);
	if (rc == CURLE_OK)
		rc = curl_easy_setopt(c, CURLOPT_HTTPHEADER,
		                      same_origin ? headers : NULL);
	return rc == CURLE_OK ? 0 : SKIT_ENOMEM;
}

int skit__fetch_url(const char *url, int fd, uint64_t max_bytes,
                    long timeout_ms, skit__fetch_progress progress, void *ud,
                    char sha256_hex[65], skit_error *err)
{
	return skit__fetch_url_auth(url, NULL, 0, fd, max_bytes, timeout_ms,
	                            progress, ud, sha256_hex, err);
}

int skit__fetch_url_auth(const char *url, const char *const *headers,
                         size_t nheaders, int fd, uint64_t max_bytes,
                         long timeout_ms, skit__fetch_progress progress,
                         void *ud, char sha256_hex[65], skit_error *err)
{
	struct curl_slist *hlist = NULL;
	char *user = NULL, *pass = NULL, *origin0 = NULL;
	char errbuf[CURL_ERROR_SIZE], shown[SHOWN_URL_MAX + 8];
	char what[2 * SHOWN_URL_MAX + 64], next_shown[SHOWN_URL_MAX + 8];
	struct dl d;
	char *current = NULL, *next;
	long deadline, left, code;
	CURLcode cc;
	int error, hops = 0;

	assert(url && fd >= 0 && sha256_hex);
	sha256_hex[0] = '\0';
	memset(&d, 0, sizeof(d));
	d.fd = fd;
	d.max_bytes = max_bytes;
	d.progress = progress;
	d.ud = ud;
	if (timeout_ms <= 0)
		timeout_ms = DEFAULT_TIMEOUT_MS;
	deadline = skitx_clock_ms() + timeout_ms;

	shown_url(shown, sizeof(shown), url);
	snprintf(what, sizeof(what), "GET %s", shown);
	error = check_url(url, what, err);
	if (error < 0)
		return error;
	if (nheaders > SKIT__FETCH_MAX_HEADERS)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "more than %d headers",
		                       SKIT__FETCH_MAX_HEADERS);
	for (size_t i = 0; i < nheaders; i++) {
		error = skit__fetch_header_check(headers[i], err);
		if (error < 0)
			return error;
	}
	if (pthread_once(&curl_once, curl_init_once) ||
	    curl_init_rc != CURLE_OK)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "libcurl: global initialisation failed");
	/* The URL requested never carries the credentials, so that no
	 * message of curl's can show them. */
	url_credentials(url, &user, &pass);
	current = skit__url_without_credentials(url);
	origin0 = current ? origin_of(current) : NULL;
	d.easy = curl_easy_init();
	d.md = EVP_MD_CTX_new();
	if (!current || !origin0 || !d.easy || !d.md) {
		error = skit__error_oom(err);
		goto out;
	}
	for (size_t i = 0; i < nheaders; i++) {
		struct curl_slist *l = curl_slist_append(hlist, headers[i]);

		if (!l) {
			error = skit__error_oom(err);
			goto out;
		}
		hlist = l;
	}
	if (EVP_DigestInit_ex(d.md, EVP_sha256(), NULL) != 1) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "SHA-256 unavailable");
		goto out;
	}
	errbuf[0] = '\0';
	error = set_options(d.easy, &d, errbuf);
	if (error) {
		error = skit__error_set(err, SKIT_EIO, 0, "libcurl: %s",
		                        curl_easy_strerror((CURLcode)error));
		goto out;
	}
	for (;;) {
		left = deadline - skitx_clock_ms();
		if (left <= 0) {
			error = skit__error_set(err, SKIT_ETIMEOUT, 0,
			                        "%s: timed out after %ld ms",
			                        what, timeout_ms);
			goto out;
		}
		errbuf[0] = '\0';
		d.non2xx = false;
		d.dropped = 0;
		{
			char *o = origin_of(current);
			bool same = o && !strcmp(o, origin0);

			skitx_free(o);
			if (set_auth(d.easy, same, user, pass, hlist) < 0) {
				error = skit__error_oom(err);
				goto out;
			}
		}
		if (curl_easy_setopt(d.easy, CURLOPT_URL, current) !=
		            CURLE_OK ||
		    curl_easy_setopt(d.easy, CURLOPT_TIMEOUT_MS, left) !=
		            CURLE_OK) {
			error = skit__error_oom(err);
			goto out;
		}
		cc = curl_easy_perform(d.easy);
		code = status_now(d.easy);
		if (d.werrno) {
			error = skit__error_set(
			        err, SKIT_EIO, 0,
			        "%s: cannot write the download: %s", what,
			        strerror(d.werrno));
			goto out;
		}
		if (d.hashbad) {
			error = skit__error_set(err, SKIT_EIO, 0,
			                        "%s: SHA-256 failed", what);
			goto out;
		}
		if (d.toobig || (cc == CURLE_FILESIZE_EXCEEDED && code >= 200 &&
		                 code < 300)) {
			error = skit__error_set(err, SKIT_ETOOBIG, 0,
			                        "%s: larger than %llu bytes",
			                        what,
			                        (unsigned long long)max_bytes);
			goto out;
		}
		if ((cc == CURLE_OK || cc == CURLE_FILESIZE_EXCEEDED ||
		     (cc == CURLE_WRITE_ERROR && d.non2xx)) &&
		    (code < 200 || code > 299)) {
			next = NULL;
			if (code >= 300 && code < 400 &&
			    curl_easy_getinfo(d.easy, CURLINFO_REDIRECT_URL,
			                      &next) == CURLE_OK &&
			    next) {
				if (++hops > MAX_REDIRECTS) {
					error = skit__error_set(
					        err, SKIT_EIO, 0,
					        "%s: more than %d redirects",
					        what, MAX_REDIRECTS);
					goto out;
				}
				shown_url(next_shown, sizeof(next_shown), next);
				snprintf(what, sizeof(what),
				         "GET %s: redirected to %s", shown,
				         next_shown);
				error = check_url(next, what, err);
				if (error < 0)
					goto out;
				/* `next` belongs to the handle: copy it
				 * before the next request replaces it. */
				skitx_free(current);
				current = skitx_strdup(next);
				if (!current) {
					error = skit__error_oom(err);
					goto out;
				}
				continue;
			}
			error = skit__error_set(err, SKIT_EIO, 0,
			                        "%s: HTTP %ld", what, code);
			goto out;
		}
		if (cc != CURLE_OK) {
			shown_url(next_shown, sizeof(next_shown),
			          errbuf[0] ? errbuf : curl_easy_strerror(cc));
			if (cc == CURLE_OPERATION_TIMEDOUT)
				error = skit__error_set(
				        err, SKIT_ETIMEOUT, 0,
				        "%s: timed out after %ld ms", what,
				        timeout_ms);
			else if (cc == CURLE_OUT_OF_MEMORY)
				error = skit__error_oom(err);
			else
				error = skit__error_set(err, SKIT_EIO, 0,
				                        "%s: %s", what,
				                        next_shown);
			goto out;
		}
		break;
	}
	skit__sha256_final(d.md, sha256_hex);
	if (!sha256_hex[0]) {
		error = skit__error_set(err, SKIT_EIO, 0, "%s: SHA-256 failed",
		                        what);
		goto out;
	}
	if (progress)
		progress(ud, d.written, d.written);
	error = 0;
out:
	if (d.easy)
		curl_easy_cleanup(d.easy);
	curl_slist_free_all(hlist);
	EVP_MD_CTX_free(d.md);
	skitx_free(current);
	skitx_free(origin0);
	free_secret(user);
	free_secret(pass);
	return error;
}

/* ---- git: checking the request ------------------------------------------ */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static bool is_commit_id(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (i >= 40 || !is_hex(s[i]))
			return false;
	return i == 40;
}

/*
 * `user@host` or `host` (up to `end`): neither part may start with '-',
 * which ssh would read as an option (-oProxyCommand=...).
 */
static bool authority_ok(const char *start, const char *end)
{
	const char *p;

	if (start == end || *start == '-')
		return false;
	for (p = start; p < end; p++)
		if (*p == '@' && (p + 1 == end || p[1] == '-'))
			return false;
	return true;
}

/*
 * The URL forms skit clones from. `*proto` receives the git protocol
 * name to allow ("https", "ssh" or "file"). Anything else is
 * SKIT_EUNSAFE: git also understands "ext::<command>" (runs a command),
 * "<transport>::<address>" (runs git-remote-<transport>), options
 * smuggled as a leading '-', and local paths.
 */
static int check_git_url(const char *url, const char **proto, skit_error *err)
{
	char shown[SHOWN_URL_MAX + 8];
	const char *rest, *end, *colon;
	size_t len = strlen(url);

	shown_url(shown, sizeof(shown), url);
	if (!len || len > GIT_URL_MAX)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "git URL %s: empty or too long", shown);
	for (const char *p = url; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f)
			return skit__error_set(
			        err, SKIT_EUNSAFE, 0,
			        "git URL %s: refused: contains a space or control character",
			        shown);
	if (url[0] == '-')
		return skit__error_set(err, SKIT_EUNSAFE, 0,
		                       "git URL %s: refused: starts with '-'",
		                       shown);
	/* "ext::", "fd::", "<helper>::": remote helpers, some run commands.
	 * (This also refuses IPv6 literals such as [::1].) */
	if (strstr(url, "::"))
		return skit__error_set(
		        err, SKIT_EUNSAFE, 0,
		        "git URL %s: refused: \"::\" transports are not allowed",
		        shown);
	if (!strncmp(url, "https://", 8)) {
		*proto = "https";
		rest = url + 8;
	} else if (!strncmp(url, "ssh://", 6)) {
		*proto = "ssh";
		rest = url + 6;
	} else if (!strncmp(url, "file://", 7)) {
		*proto = "file";
		/* Only file:///absolute/path: no host part. */
		if (url[7] != '/')
			return skit__error_set(
			        err, SKIT_EUNSAFE, 0,
			        "git URL %s: refused: file:// needs an absolute path (file:///...)",
			        shown);
		return 0;
	} else if (!strstr(url, "://") && (colon = strchr(url, ':')) &&
	           memchr(url, '@', (size_t)(colon - url)) &&
	           !memchr(url, '/', (size_t)(colon - url))) {
		/* scp-like "git@host:path": git runs ssh on it. */
		*proto = "ssh";
		if (!authority_ok(url, colon) || !colon[1] || colon[1] == '-')
			return skit__error_set(
			        err, SKIT_EUNSAFE, 0,
			        "git URL %s: refused: not a valid user@host:path",
			        shown);
		return 0;
	} else {
		return skit__error_set(
		        err, SKIT_EUNSAFE, 0,
		        "git URL %s: refused: only https://, ssh://, git@host:path and file:// are cloned",
		        shown);
	}
	end = rest + strcspn(rest, "/?#");
	if (!authority_ok(rest, end))
		return skit__error_set(err, SKIT_EUNSAFE, 0,
		                       "git URL %s: refused: bad host", shown);
	return 0;
}

/*
 * A branch or tag name as git check-ref-format would take it (roughly),
 * and never one that could be read as an option.
 */
static int check_ref(const char *ref, skit_error *err)
{
	char shown[SHOWN_URL_MAX + 8];
	size_t len = strlen(ref);

	shown_url(shown, sizeof(shown), ref); /* no control characters */

	if (ref[0] == '-')
		return skit__error_set(
		        err, SKIT_EUNSAFE, 0,
		        "git ref \"%s\": refused: starts with '-'", shown);
	if (len > GIT_REF_MAX || strstr(ref, "..") || strstr(ref, "@{") ||
	    strstr(ref, "//") || ref[0] == '/' || ref[len - 1] == '/' ||
	    ref[len - 1] == '.')
		goto bad;
	for (const char *p = ref; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f ||
		    strchr("~^:?*[\\", *p))
			goto bad;
	return 0;
bad:
	return skit__error_set(
	        err, SKIT_EINVALID, 0,
	        "git ref \"%s\": not a valid branch, tag or commit", shown);
}

/* ---- git: the environment ----------------------------------------------- */

/* The fixed variables, the proxies, SSH_AUTH_SOCK, and GIT_CONFIG_COUNT
 * with a key and a value per header. */
#define ENV_MAX (24 + 1 + 2 * (SKIT__FETCH_MAX_HEADERS + 1))

struct genv {
	char *v[ENV_MAX + 1]; /* NULL-ended */
	size_t n;
};

static int env_add(struct genv *e, const char *name, const char *value)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	char *s;

	assert(e->n < ENV_MAX);
	if (skitx_buf_printf(&b, "%s=%s", name, value) < 0)
		return SKIT_ENOMEM;
	s = skitx_buf_detach(&b, NULL);
	if (!s)
		return SKIT_ENOMEM;
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
	return 0;
}

static void env_release(struct genv *e)
{
	for (size_t i = 0; i < e->n; i++)
		skitx_free(e->v[i]);
	e->n = 0;
	e->v[0] = NULL;
}

/*
 * Built from nothing: PATH, the C locale (git's messages end up in ours,
 * which are English), a HOME with nothing in it, no config but ours, no
 * prompts. Proxy settings pass through, as libcurl honours them for
 * downloads too; SSH_AUTH_SOCK passes for ssh URLs, so that an agent can
 * answer (ssh reads keys and known_hosts from the passwd entry's home,
 * not from $HOME). SSH_ASKPASS, GIT_SSH_COMMAND, GIT_DIR and the rest
 * are simply absent.
 */
static int env_build(struct genv *e, const char *proto)
{
	static const char *const pass[] = { "http_proxy",  "https_proxy",
		                            "HTTPS_PROXY", "all_proxy",
		                            "ALL_PROXY",   "no_proxy",
		                            "NO_PROXY" };
	static const char *const fixed[][2] = {
		{ "LANG", "C" },
		{ "LC_ALL", "C" },
		{ "HOME", "/nonexistent" },
		{ "GIT_TERMINAL_PROMPT", "0" },
		{ "GIT_CONFIG_NOSYSTEM", "1" },
		{ "GIT_CONFIG_GLOBAL", "/dev/null" },
		{ "GIT_ATTR_NOSYSTEM", "1" },
		{ "GIT_ASKPASS", "/bin/false" },
	};
	const char *path = getenv("PATH"), *v;
	int error;

	e->n = 0;
	e->v[0] = NULL;
	error = env_add(e, "PATH",
	                path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (size_t i = 0; !error && i < SKIT_ARRAY_SIZE(fixed); i++)
		error = env_add(e, fixed[i][0], fixed[i][1]);
	for (size_t i = 0; !error && i < SKIT_ARRAY_SIZE(pass); i++) {
		v = getenv(pass[i]);
		if (v)
			error = env_add(e, pass[i], v);
	}
	if (!error && !strcmp(proto, "ssh")) {
		v = getenv("SSH_AUTH_SOCK");
		if (v)
			error = env_add(e, "SSH_AUTH_SOCK", v);
	}
	return error;
}

/*
 * Credentials for an https clone, as git configuration in the
 * environment (GIT_CONFIG_COUNT, _KEY_n, _VALUE_n), never in argv where
 * any user can read them: each header as http.<origin>/.extraHeader, so
 * that git sends it to the repository's own host only, and the URL's
 * user and password as one more, "Authorization: Basic ...", since the
 * URL handed to git has them stripped.
 */
static int env_add_auth(struct genv *e, const char *url, const char *bare,
                        const char *const *headers, size_t nheaders)
{
	char key[GIT_URL_MAX + 64], num[48], *user = NULL, *pass = NULL;
	const char *host = bare + 8; /* after "https://" */
	size_t n = 0, hostlen = strcspn(host, "/?#");
	int error = 0;

	snprintf(key, sizeof(key), "http.https://%.*s/.extraHeader",
	         (int)hostlen, host);
	url_credentials(url, &user, &pass);
	for (size_t i = 0; !error && i <= nheaders; i++) {
		struct skitx_buf v = SKITX_BUF_INIT;

		if (i == nheaders) {
			unsigned char b64[4 * ((GIT_URL_MAX + 2) / 3) + 8];
			char plain[GIT_URL_MAX + 2];
			int len;

			if (!user)
				break;
			len = snprintf(plain, sizeof(plain), "%s:%s", user,
			               pass ? pass : "");
			if (len < 0 || (size_t)len >= sizeof(plain))
				break;
			EVP_EncodeBlock(b64, (const unsigned char *)plain, len);
			OPENSSL_cleanse(plain, sizeof(plain));
			error = skitx_buf_printf(&v, "Authorization: Basic %s",
			                         (const char *)b64);
			OPENSSL_cleanse(b64, sizeof(b64));
		} else {
			error = skitx_buf_puts(&v, headers[i]);
		}
		snprintf(num, sizeof(num), "GIT_CONFIG_KEY_%zu", n);
		if (!error)
			error = env_add(e, num, key);
		snprintf(num, sizeof(num), "GIT_CONFIG_VALUE_%zu", n);
		if (!error)
			error = env_add(e, num, skitx_buf_cstr(&v));
		n++;
		if (v.ptr)
			OPENSSL_cleanse(v.ptr, v.len);
		skitx_buf_release(&v);
	}
	free_secret(user);
	free_secret(pass);
	if (!error && n) {
		snprintf(num, sizeof(num), "%zu", n);
		error = env_add(e, "GIT_CONFIG_COUNT", num);
	}
	return error;
}

/* The absolute path of `git` on PATH (absolute entries only), or NULL. */
static char *find_git(int *error)
{
	const char *path = getenv("PATH"), *p, *end;
	struct skitx_buf b = SKITX_BUF_INIT;
	char *found = NULL;

	*error = 0;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		/* A relative entry ("", ".") would run whatever "git" the
		 * current folder holds. */
		if (*p != '/')
			continue;
		skitx_buf_clear(&b);
		if (skitx_buf_add(&b, p, (size_t)(end - p)) < 0 ||
		    skitx_buf_puts(&b, "/git") < 0) {
			*error = SKIT_ENOMEM;
			break;
		}
		if (!access(b.ptr, X_OK)) {
			found = skitx_buf_detach(&b, NULL);
			if (!found)
				*error = SKIT_ENOMEM;
			break;
		}
	}
	skitx_buf_release(&b);
	return found;
}

/* ---- git: the size of a tree -------------------------------------------- */

/*
 * Add the sizes of the regular files (and links, which core.symlinks=false
 * turns into files anyway) under `name` in `dirfd` to `*total`, without
 * following links. `skip_git`: leave out a ".git" entry at this level.
 * Stops as soon as `*total` passes `cap`. Returns 0, SKIT_ETOOBIG (nested
 * too deep) or SKIT_EIO; `tolerant` (the folder is still being written)
 * ignores entries that vanish or cannot be read.
 */
static int tree_size(int dirfd, const char *name, int depth, bool skip_git,
                     bool tolerant, uint64_t *total, uint64_t cap)
{
	struct dirent *de;
	struct stat st;
	DIR *dir;
	int fd, error = 0;

	if (depth > TREE_DEPTH_MAX)
		return SKIT_ETOOBIG;
	fd = openat(dirfd, name,
	            O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return tolerant ? 0 : SKIT_EIO;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return tolerant ? 0 : SKIT_EIO;
	}
	while (!error && *total <= cap) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno && !tolerant)
				error = SKIT_EIO;
			break;
		}
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (skip_git && !strcmp(de->d_name, ".git"))
			continue;
		if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (!tolerant)
				error = SKIT_EIO;
			continue;
		}
		if (S_ISDIR(st.st_mode))
			error = tree_size(fd, de->d_name, depth + 1, false,
			                  tolerant, total, cap);
		else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		         st.st_size > 0)
			*total += (uint64_t)st.st_size;
	}
	closedir(dir);
	return error;
}

/* ---- git: running it ---------------------------------------------------- */

/* What every git run shares. */
struct git_ctx {
	const char *git;    /* absolute path */
	char *const *envp;  /* NULL-ended */
	long deadline;      /* CLOCK_MONOTONIC ms */
	long timeout_ms;    /* for messages */
	const char *watch;  /* folder whose size is watched, or NULL */
	uint64_t watch_cap; /* largest size of `watch`, .git included */
	uint64_t max_bytes; /* for messages */
};

static void say(const char *msg)
{
	if (write(2, msg, strlen(msg)) < 0)
		return;
}

/* In the child: system calls only. Never returns. */
static void git_child(const struct git_ctx *g, char *const *argv,
                      const char *cwd, int nullfd, int outfd, int errfd)
{
	static const int sigs[] = { SIGPIPE, SIGINT, SIGTERM,
		                    SIGQUIT, SIGHUP, SIGCHLD };
	struct sigaction dfl;
	sigset_t none;
	int in, out, er;

	/* A new session: our own process group to kill, and no
	 * controlling terminal for ssh to prompt on. */
	setsid();
	/* Move the three above 2 first, so no dup2 overwrites another. */
	in = fcntl(nullfd, F_DUPFD, 3);
	out = fcntl(outfd >= 0 ? outfd : nullfd, F_DUPFD, 3);
	er = fcntl(errfd, F_DUPFD, 3);
	if (in < 0 || out < 0 || er < 0 || dup2(in, 0) < 0 ||
	    dup2(out, 1) < 0 || dup2(er, 2) < 0)
		_exit(127);
	skit__close_from(3);
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(sigs); i++)
		sigaction(sigs[i], &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (cwd && chdir(cwd) < 0) {
		say("skit: cannot enter the clone folder\n");
		_exit(127);
	}
	execve(g->git, argv, g->envp);
	say("skit: cannot execute git\n");
	_exit(127);
}

/* Keep the last GIT_ERR_TAIL bytes of git's stderr. */
static void tail_add(char *tail, size_t *len, const char *data, size_t n)
{
	if (n >= GIT_ERR_TAIL) {
		memcpy(tail, data + n - GIT_ERR_TAIL, GIT_ERR_TAIL);
		*len = GIT_ERR_TAIL;
		return;
	}
	if (*len + n > GIT_ERR_TAIL) {
		size_t drop = *len + n - GIT_ERR_TAIL;

		memmove(tail, tail + drop, *len - drop);
		*len -= drop;
	}
	memcpy(tail + *len, data, n);
	*len += n;
}

static bool starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

/*
 * The line of git's stderr worth quoting, into `out`: the first
 * "fatal:" or "error:" line (git follows it with advice such as "Please
 * make sure you have the correct access rights", which says little),
 * else the last non-empty line. Control characters become '?'.
 */
static void git_reason(char *out, size_t size, const char *tail, size_t len)
{
	const char *best = NULL, *last = NULL, *p = tail, *end = tail + len;
	size_t best_len = 0, last_len = 0, o = 0;

	while (p < end) {
		const char *nl = p;
		size_t n;

		while (nl < end && *nl != '\n' && *nl != '\r')
			nl++;
		n = (size_t)(nl - p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
			n--;
		if (n) {
			last = p;
			last_len = n;
			if (!best && (starts_with(p, n, "fatal:") ||
			              starts_with(p, n, "error:"))) {
				best = p;
				best_len = n;
			}
		}
		p = nl + 1;
	}
	if (!best) {
		best = last;
		best_len = last_len;
	}
	for (size_t i = 0; best && i < best_len && o + 1 < size; i++)
		out[o++] = (unsigned char)best[i] < 0x20 || best[i] == 0x7f
		                   ? '?'
		                   : best[i];
	out[o] = '\0';
}

/* Read what `fd` has; false at end of file or on an error. */
static bool pump(int fd, char *tail, size_t *tail_len, char *out,
                 size_t *out_len, size_t out_cap)
{
	char chunk[4096];
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (n <= 0)
			return false;
		if (tail) {
			tail_add(tail, tail_len, chunk, (size_t)n);
		} else {
			size_t take = out_cap - *out_len;

			if (take > (size_t)n)
				take = (size_t)n;
			memcpy(out + *out_len, chunk, take);
			*out_len += take;
		}
	}
}

/*
 * Run git with `argv` (argv[0] "git") in `cwd` (NULL: ours). `what`
 * names the step in messages ("git clone <url>"). With `out`, stdout is
 * captured (at most GIT_OUT_MAX - 1 bytes, NUL-terminated). Returns 0
 * when git exits with status 0; else SKIT_ETIMEOUT, SKIT_ETOOBIG (the
 * watched folder outgrew its cap) or SKIT_EIO with git's reason.
 */
static int git_run(const struct git_ctx *g, const char *const *argv,
                   const char *cwd, const char *what, char *out,
                   skit_error *err)
{
	char tail[GIT_ERR_TAIL], reason[GIT_ERR_TAIL + 1];
	size_t tail_len = 0, out_len = 0;
	int errp[2] = { -1, -1 }, outp[2] = { -1, -1 }, nullfd = -1;
	bool err_open, out_open, timed_out = false, too_big = false;
	long now, next_watch, drain_until = 0;
	struct pollfd pfd[2];
	int status = 0, error = 0, nfds;
	siginfo_t si;
	pid_t pid, reaped;

	/* O_CLOEXEC from the start: another thread's fork and exec must
	 * not carry our pipe ends away (and keep them open). */
	nullfd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nullfd < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
	    (out && pipe2(outp, O_CLOEXEC) < 0)) {
		error = skit__error_set(err, SKIT_EIO, 0, "%s: %s", what,
		                        strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		error = skit__error_set(err, SKIT_EIO, 0, "%s: fork: %s", what,
		                        strerror(errno));
		goto out;
	}
	if (pid == 0)
		git_child(g, (char *const *)argv, cwd, nullfd, outp[1],
		          errp[1]);
	close(errp[1]);
	errp[1] = -1;
	if (outp[1] >= 0) {
		close(outp[1]);
		outp[1] = -1;
	}
	fcntl(errp[0], F_SETFL, O_NONBLOCK);
	if (outp[0] >= 0)
		fcntl(outp[0], F_SETFL, O_NONBLOCK);
	err_open = true;
	out_open = outp[0] >= 0;
	next_watch = skitx_clock_ms() + WATCH_EVERY_MS;

	for (;;) {
		now = skitx_clock_ms();
		if (now >= g->deadline) {
			timed_out = true;
			break;
		}
		if (g->watch && now >= next_watch) {
			uint64_t total = 0;

			next_watch = now + WATCH_EVERY_MS;
			tree_size(AT_FDCWD, g->watch, 0, false, true, &total,
			          g->watch_cap);
			if (total > g->watch_cap) {
				too_big = true;
				break;
			}
		}
		/* Exited? WNOWAIT leaves it a zombie, so that its pid (our
		 * group's id) cannot be reused before the group is killed. */
		memset(&si, 0, sizeof(si));
		if (!drain_until &&
		    !waitid(P_PID, (id_t)pid, &si,
		            WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == pid)
			drain_until = now + DRAIN_MS;
		if (drain_until &&
		    ((!err_open && !out_open) || now >= drain_until))
			break;
		nfds = 0;
		if (err_open) {
			pfd[nfds].fd = errp[0];
			pfd[nfds++].events = POLLIN;
		}
		if (out_open) {
			pfd[nfds].fd = outp[0];
			pfd[nfds++].events = POLLIN;
		}
		if (poll(pfd, (nfds_t)nfds, POLL_SLICE_MS) < 0 &&
		    errno != EINTR)
			break;
		if (err_open)
			err_open =
			        pump(errp[0], tail, &tail_len, NULL, NULL, 0);
		if (out_open)
			out_open = pump(outp[0], NULL, NULL, out, &out_len,
			                GIT_OUT_MAX - 1);
	}
	/* Whatever git left behind (ssh, a remote helper) goes with it. */
	kill(-pid, SIGKILL);
	while ((reaped = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (out)
		out[out_len] = '\0';
	/* A SIGCHLD handler of the embedding program may have reaped it:
	 * without its status, success cannot be told from failure. */
	if (reaped != pid && !timed_out && !too_big) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "%s: lost track of the git process",
		                        what);
		goto out;
	}
	if (timed_out) {
		error = skit__error_set(err, SKIT_ETIMEOUT, 0,
		                        "%s: timed out after %ld ms", what,
		                        g->timeout_ms);
		goto out;
	}
	if (too_big) {
		error = skit__error_set(err, SKIT_ETOOBIG, 0,
		                        "%s: the clone grew past %llu bytes",
		                        what, (unsigned long long)g->max_bytes);
		goto out;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		goto out;
	git_reason(reason, sizeof(reason), tail, tail_len);
	if (reason[0])
		error = skit__error_set(err, SKIT_EIO, 0, "%s: %s", what,
		                        reason);
	else if (WIFSIGNALED(status))
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "%s: git killed by signal %d", what,
		                        WTERMSIG(status));
	else
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "%s: git exited with status %d", what,
		                        WEXITSTATUS(status));
out:
	for (int i = 0; i < 2; i++) {
		if (errp[i] >= 0)
			close(errp[i]);
		if (outp[i] >= 0)
			close(outp[i]);
	}
	if (nullfd >= 0)
		close(nullfd);
	return error;
}

/*
 * argv: "git", [--git-dir=.git --work-tree=.], the -c options, then
 * `tail` (NULL-ended) into `argv` of `size` entries.
 */
static void git_argv(const char **argv, size_t size, bool in_repo,
                     const char *allow, const char *const *tail)
{
	static const char *const opts[] = {
		"-c", "protocol.allow=never",
		"-c", NULL, /* protocol.<proto>.allow=always */
		"-c", "core.symlinks=false",
		"-c", "core.hooksPath=/dev/null",
		"-c", "init.templateDir=",
		"-c", "advice.detachedHead=false",
		"-c", "submodule.recurse=false",
		"-c", "core.fsmonitor=false",
	};
	size_t n = 0;

	argv[n++] = "git";
	if (in_repo) {
		/* No repository discovery: never a parent folder's. */
		argv[n++] = "--git-dir=.git";
		argv[n++] = "--work-tree=.";
	}
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(opts); i++)
		argv[n++] = opts[i] ? opts[i] : allow;
	for (size_t i = 0; tail[i]; i++) {
		assert(n + 1 < size);
		argv[n++] = tail[i];
	}
	argv[n] = NULL;
}

int skit__git_clone(const char *url, const char *ref, const char *dest,
                    uint64_t max_bytes, long timeout_ms, char commit[41],
                    skit_error *err)
{
	return skit__git_clone_auth(url, NULL, 0, ref, dest, max_bytes,
	                            timeout_ms, commit, err);
}

int skit__git_clone_auth(const char *given, const char *const *headers,
                         size_t nheaders, const char *ref, const char *dest,
                         uint64_t max_bytes, long timeout_ms, char commit[41],
                         skit_error *err)
{
	char *bare = NULL;
	const char *url;
	char shown[SHOWN_URL_MAX + 8], what[SHOWN_URL_MAX + 64];
	char allow[64], sha[41], out[GIT_OUT_MAX];
	const char *argv[48], *proto = NULL;
	struct genv env = { { NULL }, 0 };
	struct git_ctx g;
	struct stat st;
	uint64_t total = 0;
	char *git = NULL;
	bool by_commit;
	int error;

	assert(given && dest && commit);
	commit[0] = '\0';
	/* HEAD is the remote's default branch: what a clone without
	 * --branch checks out (--branch HEAD names no branch). */
	if (!ref || !strcmp(ref, "HEAD"))
		ref = "";
	shown_url(shown, sizeof(shown), given);
	error = check_git_url(given, &proto, err);
	if (error < 0)
		return error;
	if (nheaders > SKIT__FETCH_MAX_HEADERS)
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "more than %d headers",
		                       SKIT__FETCH_MAX_HEADERS);
	for (size_t i = 0; i < nheaders; i++) {
		error = skit__fetch_header_check(headers[i], err);
		if (error < 0)
			return error;
	}
	/* git gets the URL without its credentials (https: they travel as
	 * a header, see env_add_auth; ssh: a password is dropped, as git
	 * could not use it without a prompt). */
	bare = skit__url_without_credentials(given);
	if (!bare)
		return skit__error_oom(err);
	url = bare;
	if (*ref) {
		error = check_ref(ref, err);
		if (error < 0)
			goto out;
	}
	by_commit = is_commit_id(ref);
	if (!*dest) {
		error = skit__error_set(err, SKIT_EUSAGE, 0,
		                        "git clone: empty destination");
		goto out;
	}
	if (!lstat(dest, &st)) {
		error = skit__error_set(err, SKIT_EEXISTS, 0,
		                        "git clone: %s already exists", dest);
		goto out;
	}
	if (timeout_ms <= 0)
		timeout_ms = DEFAULT_TIMEOUT_MS;

	git = find_git(&error);
	if (error < 0) {
		error = skit__error_oom(err);
		goto out;
	}
	if (!git) {
		error = skit__error_set(
		        err, SKIT_EIO, 0,
		        "git clone %s: git is not installed (not found on PATH)",
		        shown);
		goto out;
	}
	if (env_build(&env, proto) < 0 ||
	    (!strcmp(proto, "https") &&
	     env_add_auth(&env, given, bare, headers, nheaders) < 0)) {
		error = skit__error_oom(err);
		goto out;
	}
	snprintf(allow, sizeof(allow), "protocol.%s.allow=always", proto);
	memset(&g, 0, sizeof(g));
	g.git = git;
	g.envp = env.v;
	g.timeout_ms = timeout_ms;
	g.deadline = skitx_clock_ms() + timeout_ms;
	g.watch = dest;
	g.max_bytes = max_bytes;
	/* While git runs, the folder holds the pack as well as the
	 * checkout: allow twice the cap (and a little for git's own files)
	 * before stopping it. The exact check comes after. */
	g.watch_cap = max_bytes > (UINT64_MAX - (1u << 20)) / 2
	                      ? UINT64_MAX
	                      : 2 * max_bytes + (1u << 20);

	if (by_commit) {
		/* --branch takes names only: fetch the one commit into a new
		 * repository instead (servers allow it with protocol v2). */
		const char *init[] = { "init", "--quiet", NULL };
		const char *fetch[] = { "fetch",
			                "--depth",
			                "1",
			                "--no-tags",
			                "--no-recurse-submodules",
			                "--quiet",
			                "--",
			                url,
			                sha,
			                NULL };
		const char *co[] = { "checkout",   "--quiet", "--detach",
			             "FETCH_HEAD", "--",      NULL };

		for (size_t i = 0; i < 41; i++)
			sha[i] = (char)(ref[i] >= 'A' && ref[i] <= 'F'
			                        ? ref[i] - 'A' + 'a'
			                        : ref[i]);
		if (mkdir(dest, 0700) < 0) {
			error = skit__error_set(
			        err, SKIT_EIO, 0,
			        "git clone: cannot create %s: %s", dest,
			        strerror(errno));
			goto out;
		}
		git_argv(argv, SKIT_ARRAY_SIZE(argv), false, allow, init);
		error = git_run(&g, argv, dest, "git init", NULL, err);
		if (error < 0)
			goto out;
		snprintf(what, sizeof(what), "git fetch %s", shown);
		git_argv(argv, SKIT_ARRAY_SIZE(argv), true, allow, fetch);
		error = git_run(&g, argv, dest, what, NULL, err);
		if (error < 0)
			goto out;
		snprintf(what, sizeof(what), "git checkout %s", sha);
		git_argv(argv, SKIT_ARRAY_SIZE(argv), true, allow, co);
		error = git_run(&g, argv, dest, what, NULL, err);
		if (error < 0)
			goto out;
	} else {
		const char *clone[16];
		size_t k = 0;

		clone[k++] = "clone";
		clone[k++] = "--depth";
		clone[k++] = "1";
		clone[k++] = "--no-recurse-submodules";
		clone[k++] = "--no-local";
		clone[k++] = "--quiet";
		clone[k++] = "--template=";
		if (*ref) {
			clone[k++] = "--branch";
			clone[k++] = ref;
		}
		clone[k++] = "--";
		clone[k++] = url;
		clone[k++] = dest;
		clone[k] = NULL;
		snprintf(what, sizeof(what), "git clone %s", shown);
		git_argv(argv, SKIT_ARRAY_SIZE(argv), false, allow, clone);
		error = git_run(&g, argv, NULL, what, NULL, err);
		if (error < 0)
			goto out;
	}

	{
		const char *rp[] = { "rev-parse", "--verify", "--quiet", "HEAD",
			             NULL };

		g.watch = NULL;
		git_argv(argv, SKIT_ARRAY_SIZE(argv), true, allow, rp);
		error = git_run(&g, argv, dest, "git rev-parse HEAD", out, err);
		if (error < 0)
			goto out;
	}
	for (size_t i = 0; i < 40; i++)
		if (!is_hex(out[i]))
			error = SKIT_EIO;
	if (error < 0 || (out[40] != '\n' && out[40] != '\0')) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "git rev-parse HEAD: not a commit id");
		goto out;
	}
	memcpy(commit, out, 40);
	commit[40] = '\0';
	for (size_t i = 0; i < 40; i++)
		if (commit[i] >= 'A' && commit[i] <= 'F')
			commit[i] = (char)(commit[i] - 'A' + 'a');
	if (by_commit && strcmp(commit, sha)) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "git clone %s: checked out %s, not %s",
		                        shown, commit, sha);
		commit[0] = '\0';
		goto out;
	}

	/* The checkout, .git left out: what the caller will copy. */
	error = tree_size(AT_FDCWD, dest, 0, true, false, &total, max_bytes);
	if (error == SKIT_ETOOBIG) {
		error = skit__error_set(
		        err, SKIT_ETOOBIG, 0,
		        "git clone %s: folders nested more than %d deep", shown,
		        TREE_DEPTH_MAX);
	} else if (error < 0) {
		error = skit__error_set(err, SKIT_EIO, 0,
		                        "git clone %s: cannot measure %s",
		                        shown, dest);
	} else if (total > max_bytes) {
		error = skit__error_set(
		        err, SKIT_ETOOBIG, 0,
		        "git clone %s: the checkout is larger than %llu bytes",
		        shown, (unsigned long long)max_bytes);
	}
	if (error < 0)
		commit[0] = '\0';
out:
	for (size_t i = 0; i < env.n; i++)
		if (!strncmp(env.v[i], "GIT_CONFIG_VALUE_", 17))
			OPENSSL_cleanse(env.v[i], strlen(env.v[i]));
	env_release(&env);
	skitx_free(git);
	skitx_free(bare);
	return error;
}

/* ---- the URL checks alone (fuzz/fuzz_url.c) ---- */

int skit__fetch_check_url(const char *url, skit_error *err)
{
	return check_url(url, "URL", err);
}

int skit__git_check_url(const char *url, const char **proto, skit_error *err)
{
	return check_git_url(url, proto, err);
}

void skit__fetch_shown_url(char *out, size_t size, const char *url)
{
	shown_url(out, size, url);
}
