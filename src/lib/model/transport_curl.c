/* SPDX-License-Identifier: MIT */
/*
 * transport_curl.c - the default skit_transport, on a libcurl easy handle.
 *
 * One easy handle per transport, reused across requests so that the
 * connection (and its TLS session) stays alive between a model's calls.
 * Only http and https are allowed, redirects are not followed (a provider
 * never redirects an API call, and following one could carry the key to
 * another host), and signals are off so that timeouts work in threads.
 *
 * Errors carry libcurl's text, which names the host and port but never
 * the headers; userinfo from the URL is scrubbed all the same.
 */
#include "common.h"

#include <pthread.h>

#include <curl/curl.h>

#include "skit/model.h"
#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"

struct curl_transport {
	skit_transport base;
	CURL *easy;
	char errbuf[CURL_ERROR_SIZE];
};

/* State of one transfer, shared by the callbacks. */
struct xfer {
	const skit_http_sink *sink;
	int abort_rc;       /* a sink callback's non-zero value */
	bool informational; /* inside a 1xx response's headers */
	const volatile int *cancel;
};

/* Polled by libcurl about once a second and on every transfer event. */
static int on_progress(void *payload, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
	struct xfer *x = payload;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return x->cancel && *x->cancel;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static size_t on_header(char *data, size_t size, size_t n, void *userdata)
{
	struct xfer *x = userdata;
	const skit_http_sink *sink = x->sink;
	size_t len = size * n, name_len, vstart, vend;
	const char *colon;
	long status;
	int rc = 0;

	status = skit__http_status_line(data, len);
	if (status >= 0) {
		/* 1xx responses come before the real one: skip them. */
		x->informational = status < 200;
		if (!x->informational && sink->on_status)
			rc = sink->on_status(status, sink->payload);
	} else if (!x->informational && sink->on_header) {
		colon = memchr(data, ':', len);
		if (colon) {
			name_len = (size_t)(colon - data);
			vstart = name_len + 1;
			vend = len;
			while (vend > vstart && (data[vend - 1] == '\r' ||
			                         data[vend - 1] == '\n' ||
			                         data[vend - 1] == ' ' ||
			                         data[vend - 1] == '\t'))
				vend--;
			while (vstart < vend &&
			       (data[vstart] == ' ' || data[vstart] == '\t'))
				vstart++;
			rc = sink->on_header(data, name_len, data + vstart,
			                     vend - vstart, sink->payload);
		}
	}
	if (rc) {
		x->abort_rc = rc;
		return 0; /* anything but len aborts the transfer */
	}
	return len;
}

static size_t on_write(char *data, size_t size, size_t n, void *userdata)
{
	struct xfer *x = userdata;
	size_t len = size * n;
	int rc = 0;

	if (x->sink->on_body && len)
		rc = x->sink->on_body(data, len, x->sink->payload);
	if (rc) {
		x->abort_rc = rc;
		return 0;
	}
	return len;
}

/*
 * Copy `msg` to `out`, replacing the URL's userinfo ("user:pass" in
 * "http://user:pass@host/") wherever it appears.
 */
static void scrub_userinfo(char *out, size_t size, const char *msg,
                           const char *url)
{
	const char *start = strstr(url, "://"), *at, *slash;
	size_t ulen = 0, o = 0;

	if (start) {
		start += 3;
		at = strchr(start, '@');
		slash = strchr(start, '/');
		if (at && (!slash || at < slash))
			ulen = (size_t)(at - start);
	}
	while (*msg && o + 1 < size) {
		if (ulen && !strncmp(msg, start, ulen)) {
			o += (size_t)snprintf(out + o, size - o, "***");
			if (o >= size)
				o = size - 1;
			msg += ulen;
			continue;
		}
		out[o++] = *msg++;
	}
	out[o] = '\0';
}

static int set_options(struct curl_transport *t, const skit_http_request *req,
                       struct curl_slist *headers, struct xfer *x)
{
	CURL *c = t->easy;
	CURLcode rc = CURLE_OK;

#define SET(opt, val)                  \
 do {                                  \
  if (rc == CURLE_OK)                  \
   rc = curl_easy_setopt(c, opt, val); \
 } while (0)
	rc = skit__curl_http_base(c, req->url, headers, t->errbuf);
	SET(CURLOPT_HEADERFUNCTION, on_header);
	SET(CURLOPT_HEADERDATA, x);
	SET(CURLOPT_WRITEFUNCTION, on_write);
	SET(CURLOPT_WRITEDATA, x);
	SET(CURLOPT_USERAGENT, "skit/" SKIT_VERSION);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	if (req->cancel) {
		SET(CURLOPT_NOPROGRESS, 0L);
		SET(CURLOPT_XFERINFOFUNCTION, on_progress);
		SET(CURLOPT_XFERINFODATA, x);
	}
	if (req->connect_timeout_ms > 0)
		SET(CURLOPT_CONNECTTIMEOUT_MS, req->connect_timeout_ms);
	if (req->total_timeout_ms > 0)
		SET(CURLOPT_TIMEOUT_MS, req->total_timeout_ms);
	if (!strcmp(req->method, "POST")) {
		SET(CURLOPT_POST, 1L);
		SET(CURLOPT_POSTFIELDS, req->body ? req->body : "");
		SET(CURLOPT_POSTFIELDSIZE_LARGE,
		    (curl_off_t)(req->body ? req->body_len : 0));
	} else if (!strcmp(req->method, "GET")) {
		SET(CURLOPT_HTTPGET, 1L);
	} else {
		SET(CURLOPT_CUSTOMREQUEST, req->method);
		if (req->body) {
			SET(CURLOPT_POSTFIELDS, req->body);
			SET(CURLOPT_POSTFIELDSIZE_LARGE,
			    (curl_off_t)req->body_len);
		}
	}
#undef SET
	return rc == CURLE_OK ? 0 : (int)rc;
}

static int curl_perform(skit_transport *self, const skit_http_request *req,
                        const skit_http_sink *sink, skit_error *err)
{
	struct curl_transport *t = (struct curl_transport *)self;
	struct curl_slist *headers = NULL, *h;
	struct xfer x = { sink, 0, false, req->cancel };
	char msg[sizeof(err->message)];
	CURLcode cc;
	int rc;

	assert(req && req->url && req->method && sink);
	/* Reset forgets the last request's options, not its connections. */
	curl_easy_reset(t->easy);
	t->errbuf[0] = '\0';
	/* An empty "Expect:" stops curl waiting for "100 Continue". */
	headers = curl_slist_append(NULL, "Expect:");
	for (size_t i = 0; headers && req->headers && req->headers[i]; i++) {
		h = curl_slist_append(headers, req->headers[i]);
		if (!h) {
			curl_slist_free_all(headers);
			headers = NULL;
		} else {
			headers = h;
		}
	}
	if (!headers)
		return skit__error_oom(err);
	rc = set_options(t, req, headers, &x);
	if (rc) {
		curl_slist_free_all(headers);
		return skit__error_set(err, SKIT_EIO, 0, "libcurl: %s",
		                       curl_easy_strerror((CURLcode)rc));
	}
	cc = curl_easy_perform(t->easy);
	curl_slist_free_all(headers);
	/* Leave no pointer to our stack or to the caller's memory behind. */
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(t->easy, CURLOPT_POSTFIELDS, NULL);
	if (x.abort_rc)
		return x.abort_rc;
	if (cc == CURLE_ABORTED_BY_CALLBACK && req->cancel && *req->cancel)
		return skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	if (cc == CURLE_OK)
		return 0;
	scrub_userinfo(msg, sizeof(msg),
	               t->errbuf[0] ? t->errbuf : curl_easy_strerror(cc),
	               req->url);
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return skit__error_set(err, SKIT_ETIMEOUT, 0, "%s", msg);
	if (cc == CURLE_OUT_OF_MEMORY)
		return skit__error_oom(err);
	return skit__error_set(err, SKIT_EIO, 0, "%s", msg);
}

static void curl_free_transport(skit_transport *self)
{
	struct curl_transport *t = (struct curl_transport *)self;

	if (!t)
		return;
	curl_easy_cleanup(t->easy);
	skitx_free(t);
}

int skit_transport_curl_new(skit_transport **out, skit_error *err)
{
	struct curl_transport *t;

	assert(out);
	*out = NULL;
	if (pthread_once(&global_once, global_init) || global_rc != CURLE_OK)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "libcurl: global initialisation failed");
	t = skitx_calloc(1, sizeof(*t));
	if (!t)
		return skit__error_oom(err);
	t->easy = curl_easy_init();
	if (!t->easy) {
		skitx_free(t);
		return skit__error_oom(err);
	}
	t->base.perform = curl_perform;
	t->base.free = curl_free_transport;
	*out = &t->base;
	return 0;
}
