/* SPDX-License-Identifier: MIT */
/*
 * fuzz_url.c - the URL checks made before any download or clone, and the
 * form of a URL quoted in messages. Properties: a download URL that
 * passes is https, or http to a loopback name, as libcurl itself parses
 * it; a git URL that passes has no blank or control byte, no leading
 * '-', no "::" transport and one of the allowed forms; every message is
 * one line; a quoted URL never shows its userinfo.
 */
#include "common.h"

#include <strings.h>

#include <curl/curl.h>

#include "lib/pack/fetch_int.h"
#include "fuzz.h"

static void one_line(const char *msg)
{
	for (const char *p = msg; *p; p++)
		FUZZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f,
		           "control byte in \"%s\"", msg);
}

static void check_download(const char *url)
{
	skit_error err = { 0 };
	char *scheme = NULL, *host = NULL;
	CURLU *u;
	int rc = skit__fetch_check_url(url, &err);

	if (rc) {
		FUZZ_CHECK(rc == SKIT_EINVALID || rc == SKIT_EUNSAFE ||
		                   rc == SKIT_ENOMEM,
		           "code %d", rc);
		one_line(err.message);
		return;
	}
	u = curl_url();
	if (!u)
		return;
	FUZZ_CHECK(!curl_url_set(u, CURLUPART_URL, url,
	                         CURLU_NON_SUPPORT_SCHEME) &&
	                   !curl_url_get(u, CURLUPART_SCHEME, &scheme, 0),
	           "accepted, but libcurl cannot parse \"%s\"", url);
	if (strcmp(scheme, "https")) {
		FUZZ_CHECK(!strcmp(scheme, "http"), "scheme %s", scheme);
		FUZZ_CHECK(!curl_url_get(u, CURLUPART_HOST, &host, 0), "%s",
		           url);
		FUZZ_CHECK(!strcmp(host, "127.0.0.1") ||
		                   !strcmp(host, "[::1]") ||
		                   !strcasecmp(host, "localhost"),
		           "http to %s", host);
	}
	curl_free(scheme);
	curl_free(host);
	curl_url_cleanup(u);
}

static void check_git(const char *url)
{
	skit_error err = { 0 };
	const char *proto = NULL;
	int rc = skit__git_check_url(url, &proto, &err);

	if (rc) {
		one_line(err.message);
		return;
	}
	FUZZ_CHECK(url[0] != '-', "%s", url);
	FUZZ_CHECK(!strstr(url, "::"), "%s", url);
	for (const char *p = url; *p; p++)
		FUZZ_CHECK((unsigned char)*p > 0x20 && *p != 0x7f, "%s", url);
	FUZZ_CHECK(proto && (!strcmp(proto, "https") || !strcmp(proto, "ssh") ||
	                     !strcmp(proto, "file")),
	           "%s", url);
	if (!strcmp(proto, "file"))
		FUZZ_CHECK(!strncmp(url, "file:///", 8), "%s", url);
	else if (!strcmp(proto, "https"))
		FUZZ_CHECK(!strncmp(url, "https://", 8), "%s", url);
	else
		FUZZ_CHECK(!strncmp(url, "ssh://", 6) ||
		                   (strchr(url, '@') && strchr(url, ':')),
		           "%s", url);
}

static void check_shown(const char *url)
{
	char out[512];
	const char *start = strstr(url, "://"), *p, *at = NULL;

	skit__fetch_shown_url(out, sizeof(out), url);
	one_line(out);
	if (!start)
		return;
	start += 3;
	for (p = start; *p && *p != '/' && *p != '?' && *p != '#'; p++)
		if (*p == '@')
			at = p;
	/* The userinfo is replaced where it stood (the scheme part keeps its
	 * length), unless the cut came first. */
	if (at && (size_t)(start - url) + 3 <= 200)
		FUZZ_CHECK(!strncmp(out + (start - url), "***", 3),
		           "userinfo shown: %s", out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *url;

	if (size > 8192)
		return 0;
	url = fuzz_str(data, size);
	check_download(url);
	check_git(url);
	check_shown(url);
	free(url);
	return 0;
}
