/* SPDX-License-Identifier: MIT */
/*
 * fetch_int.h - getting an install source: a download over HTTP(S) with
 * libcurl, or a shallow git clone run as an argv (never a shell string).
 *
 * Both are given a destination inside the install's staging folder and
 * write nothing elsewhere. Both are bounded: bytes, time.
 */
#ifndef SKIT_LIB_FETCH_INT_H
#define SKIT_LIB_FETCH_INT_H

#include <stdbool.h>

#include <curl/curl.h>
#include <stddef.h>
#include <stdint.h>

#include "skit/common.h"

/* Headers an install may send with a download or an https clone. */
#define SKIT__FETCH_MAX_HEADERS 8
#define SKIT__FETCH_HEADER_MAX  8192 /* bytes in one "Name: value" */

/*
 * `url` without credentials, as the lock records it and messages show
 * it: an http(s) URL (also after "git+") loses its whole userinfo
 * ("https://user:token@host/x" becomes "https://host/x"); another
 * scheme keeps its user and loses only ":password" (ssh needs the
 * user, which is no secret). Anything else is copied as it is. NULL
 * when out of memory.
 */
char *skit__url_without_credentials(const char *url);
/* Does `url` carry what skit__url_without_credentials() strips? */
bool skit__url_has_credentials(const char *url);

/* Is `h` one "Name: value" header (a token name, no CR, LF or other
 * control character)? SKIT_EUSAGE naming it otherwise. */
int skit__fetch_header_check(const char *h, skit_error *err);

/* Download progress: `total` is 0 when the size is unknown. */
typedef void (*skit__fetch_progress)(void *ud, uint64_t done, uint64_t total);

/*
 * Download `url` into the open, empty, writable file `fd`.
 *  - Credentials: the URL's user and password (the URL requested has
 *    them stripped), and `headers[0..nheaders)` ("Name: value", checked
 *    by skit__fetch_header_check()), go to the URL's own origin
 *    (scheme, host and port) only, never to a redirect elsewhere.
 *    ~/.netrc is read too (CURLOPT_NETRC optional: by host; the URL's
 *    own credentials win).
 *  - Schemes: https; http only when the host is 127.0.0.1, ::1 or
 *    localhost (SKIT_EUNSAFE otherwise, naming the rule; a URL that does
 *    not parse is SKIT_EINVALID). Redirects are followed (at most 5,
 *    then SKIT_EIO) under the same scheme rule, each target checked
 *    before it is requested.
 *  - More than `max_bytes` received (or announced by Content-Length):
 *    SKIT_ETOOBIG, stopped as soon as it is known.
 *  - `timeout_ms` bounds the whole transfer, redirects included
 *    (SKIT_ETIMEOUT); 0 or less means 300 s.
 *  - A status other than 2xx: SKIT_EIO "GET <url>: HTTP 404". Only a
 *    2xx body is written to `fd`.
 *  - Any other failure (connection, TLS, write): SKIT_EIO with curl's
 *    text. URLs in messages have their userinfo replaced by "***".
 * `sha256_hex` (65 bytes) receives the SHA-256 of the body ("" on
 * failure). `progress` (may be NULL) is called as bytes arrive and once
 * at the end with done == total. Never follows a proxy from the
 * environment for localhost.
 */
int skit__fetch_url_auth(const char *url, const char *const *headers,
                         size_t nheaders, int fd, uint64_t max_bytes,
                         long timeout_ms, skit__fetch_progress progress,
                         void *ud, char sha256_hex[65], skit_error *err);
/* skit__fetch_url_auth() without headers. */
int skit__fetch_url(const char *url, int fd, uint64_t max_bytes,
                    long timeout_ms, skit__fetch_progress progress, void *ud,
                    char sha256_hex[65], skit_error *err);

/*
 * Clone `url` into the folder `dest` (which must not exist, else
 * SKIT_EEXISTS; its parent does), checked out at `ref` (a branch, tag or
 * full commit id; NULL or "" for the default branch), shallow (depth 1),
 * without submodules, hooks, templates or filters, with
 * core.symlinks=false. A `ref` of 40 hex digits is taken as a commit id
 * (git init + git fetch --depth 1 URL SHA + checkout, which needs a
 * server that serves any commit, as protocol v2 servers do); anything
 * else goes to --branch.
 *  - `url` is one of https://, ssh://, [user@]host:path (scp-like, with
 *    a user) or file:///absolute; anything else (ext::, any "::", a
 *    leading '-', a host or user starting with '-', whitespace, control
 *    characters, local paths) is SKIT_EUNSAFE. A `ref` starting with '-'
 *    is SKIT_EUNSAFE, one git could not name is SKIT_EINVALID.
 *  - git (found on PATH, absolute entries only) runs through
 *    fork/execve with an argv array, in its own session, stdin
 *    /dev/null, and an environment of PATH, LC_ALL=C,
 *    GIT_TERMINAL_PROMPT=0, GIT_CONFIG_NOSYSTEM=1,
 *    GIT_CONFIG_GLOBAL=/dev/null, HOME=/nonexistent, GIT_ASKPASS=/bin/false,
 *    the proxy variables and (for ssh) SSH_AUTH_SOCK; protocol.allow=never
 *    plus only the URL's own protocol allowed.
 *  - `timeout_ms` bounds the whole clone (0 or less: 300 s): the process
 *    group is killed and SKIT_ETIMEOUT returned. A checkout (.git left
 *    out) bigger than `max_bytes` is SKIT_ETOOBIG; while git runs, the
 *    folder (.git included) is watched and git stopped (SKIT_ETOOBIG)
 *    once it passes 2 * max_bytes + 1 MiB.
 *  - git's failure: SKIT_EIO with git's first "fatal:"/"error:" line of
 *    its last 400 bytes of stderr, else its last non-empty line.
 *  - Credentials (https only): `headers` and the URL's user and
 *    password go to git as http.<origin>/.extraHeader settings in its
 *    environment, never in its argv; the URL git is given has them
 *    stripped. For ssh a password in the URL is dropped.
 * `commit` (41 bytes) receives the checked-out commit id ("" on
 * failure). On failure `dest` may be left half-made: the caller removes
 * it (with the rest of its staging folder).
 */
int skit__git_clone_auth(const char *url, const char *const *headers,
                         size_t nheaders, const char *ref, const char *dest,
                         uint64_t max_bytes, long timeout_ms, char commit[41],
                         skit_error *err);
/* skit__git_clone_auth() without headers. */
int skit__git_clone(const char *url, const char *ref, const char *dest,
                    uint64_t max_bytes, long timeout_ms, char commit[41],
                    skit_error *err);

/*
 * The checks skit__fetch_url() and skit__git_clone() make on `url` before
 * anything else, alone (no transfer, no process): same codes and
 * messages. `*proto` as for the clone. And the form of a URL quoted in a
 * message (userinfo "***", controls '?', cut), into `size` bytes at `out`.
 */
/* The status of an HTTP status line as libcurl's header callback gets
 * it ("HTTP/1.1 200 OK", "HTTP/2 200"): 100 to 999, or -1 for any other
 * header line. */
long skit__http_status_line(const char *line, size_t len);

/*
 * The options every HTTP request of skit starts from, on the easy handle
 * `c`: `url`, the header list `hdrs` (may be NULL), no signals, no
 * redirect followed, http and https only, errors into `errbuf` (of
 * CURL_ERROR_SIZE bytes). Returns libcurl's code.
 */
CURLcode skit__curl_http_base(CURL *c, const char *url, struct curl_slist *hdrs,
                              char *errbuf);

int skit__fetch_check_url(const char *url, skit_error *err);
int skit__git_check_url(const char *url, const char **proto, skit_error *err);
void skit__fetch_shown_url(char *out, size_t size, const char *url);

#endif
