/* SPDX-License-Identifier: MIT */
/*
 * mcp_client_http.c - the Streamable HTTP transport of the MCP client, on
 * libcurl (see mcp_client_http.h for what it does and does not do).
 *
 * Everything the server sends is untrusted and capped: a JSON body or an
 * SSE event over 8 MiB stops the exchange, an error body is read only up
 * to 4 KiB, a session id must be 1 to 256 visible ASCII characters. The
 * URL follows skit's rule for every fetch (https, or http to the loopback
 * names only), redirects are never followed (the configured headers
 * often carry a token), and a proxy from the environment never sees
 * loopback traffic.
 */
#include "common.h"

#include <pthread.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <openssl/crypto.h>

#include "lib/mcp/mcp_client_http.h"

#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/model/sse.h"
#include "util/buf.h"

#define MAX_SESSION    256
#define MAX_ERROR_BODY 4096
#define MAX_HEADERS    64
#define MAX_RESUMES    8
#define DELETE_TIMEOUT 2000L
#define ANSWER_TIMEOUT 10000L

/* What a callback found that ends the exchange; not a libcurl code. */
#define STOP_ANSWERED 1

struct skit__mcp_http {
	CURL *easy;
	CURL *aux; /* answers posted from inside a stream; made when needed */
	char *url;
	char **headers; /* "Name: value", from the configuration */
	size_t nheaders;
	char *session;
	char *version;
	skit__mcp_answer_fn answer;
	const volatile int *cancel;
	char errbuf[CURL_ERROR_SIZE];
};

enum ctype { CT_NONE, CT_JSON, CT_SSE, CT_OTHER };

/* One request and its response, shared by the callbacks. */
struct xfer {
	struct skit__mcp_http *h;
	long long want; /* the id awaited; < 0: none */
	long status;
	bool informational;
	enum ctype ct;
	struct skitx_buf body; /* a JSON body, or the start of an error's */
	struct skit__sse sse;
	bool sse_on;
	json_t *result;
	char session[MAX_SESSION + 1];
	bool bad_session;
	char last_id[MAX_SESSION + 1]; /* the last SSE event id, or "" */
	int rc;                        /* a callback's error, in err */
	skit_error *err;
	long long deadline;
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc = CURLE_FAILED_INIT;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool name_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !strncasecmp(name, want, len);
}

/* Does the media type `v` (parameters allowed) start with `type`? */
static bool media_is(const char *v, size_t len, const char *type)
{
	size_t n = strlen(type);

	return len >= n && !strncasecmp(v, type, n) &&
	       (len == n || v[n] == ';' || v[n] == ' ' || v[n] == '\t');
}

static size_t on_header(char *data, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n, nlen, vs, ve;
	const char *colon;
	long status = skit__http_status_line(data, len);

	if (status >= 0) {
		/* 1xx answers come before the real one: skip them. */
		x->informational = status < 200;
		if (!x->informational)
			x->status = status;
		return len;
	}
	colon = memchr(data, ':', len);
	if (x->informational || !colon)
		return len;
	nlen = (size_t)(colon - data);
	vs = nlen + 1;
	ve = len;
	while (ve > vs && (data[ve - 1] == '\r' || data[ve - 1] == '\n' ||
	                   data[ve - 1] == ' ' || data[ve - 1] == '\t'))
		ve--;
	while (vs < ve && (data[vs] == ' ' || data[vs] == '\t'))
		vs++;
	if (name_is(data, nlen, "content-type")) {
		if (media_is(data + vs, ve - vs, "application/json"))
			x->ct = CT_JSON;
		else if (media_is(data + vs, ve - vs, "text/event-stream"))
			x->ct = CT_SSE;
		else
			x->ct = CT_OTHER;
	} else if (name_is(data, nlen, "mcp-session-id")) {
		/* The specification's alphabet: visible ASCII only. */
		x->bad_session = ve == vs || ve - vs > MAX_SESSION;
		for (size_t i = vs; i < ve && !x->bad_session; i++)
			x->bad_session = data[i] < 0x21 || data[i] > 0x7E;
		if (!x->bad_session) {
			memcpy(x->session, data + vs, ve - vs);
			x->session[ve - vs] = '\0';
		}
	}
	return len;
}

static void free_list(struct curl_slist *l)
{
	curl_slist_free_all(l);
}

/* The headers of one request: ours, then the configured ones. NULL when
 * out of memory. */
static struct curl_slist *request_headers(const struct skit__mcp_http *h,
                                          bool post, const char *last_id)
{
	struct curl_slist *l = NULL, *t;
	char line[MAX_SESSION + 64];
	const char *fixed[3] = {
		/* An empty "Expect:" stops curl waiting for "100 Continue". */
		"Expect:",
		post ? "Accept: application/json, text/event-stream"
		     : "Accept: text/event-stream",
		post ? "Content-Type: application/json" : NULL,
	};

	for (size_t i = 0; i < 3; i++) {
		if (!fixed[i])
			continue;
		t = curl_slist_append(l, fixed[i]);
		if (!t)
			goto oom;
		l = t;
	}
	for (int i = 0; i < 3; i++) {
		const char *name = i == 0   ? "Mcp-Session-Id"
		                   : i == 1 ? "MCP-Protocol-Version"
		                            : "Last-Event-ID";
		const char *v = i == 0   ? h->session
		                : i == 1 ? h->version
		                         : last_id;

		if (!v || !*v)
			continue;
		snprintf(line, sizeof(line), "%s: %s", name, v);
		t = curl_slist_append(l, line);
		if (!t)
			goto oom;
		l = t;
	}
	for (size_t i = 0; i < h->nheaders; i++) {
		t = curl_slist_append(l, h->headers[i]);
		if (!t)
			goto oom;
		l = t;
	}
	return l;
oom:
	free_list(l);
	return NULL;
}

static int set_common(CURL *c, struct skit__mcp_http *h, const char *method,
                      struct curl_slist *hdrs, long timeout_ms)
{
	CURLcode rc = CURLE_OK;

	curl_easy_reset(c);
	h->errbuf[0] = '\0';
#define SET(opt, val)                  \
 do {                                  \
  if (rc == CURLE_OK)                  \
   rc = curl_easy_setopt(c, opt, val); \
 } while (0)
	rc = skit__curl_http_base(c, h->url, hdrs, h->errbuf);
	/* A proxy from the environment must not see loopback traffic. */
	SET(CURLOPT_NOPROXY, "localhost,127.0.0.1,::1");
	SET(CURLOPT_USERAGENT, "skit/" SKIT_VERSION);
	SET(CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
	SET(CURLOPT_CONNECTTIMEOUT_MS,
	    timeout_ms > 0 && timeout_ms < 10000 ? timeout_ms : 10000L);
	if (!strcmp(method, "POST"))
		SET(CURLOPT_POST, 1L);
	else if (!strcmp(method, "GET"))
		SET(CURLOPT_HTTPGET, 1L);
	else
		SET(CURLOPT_CUSTOMREQUEST, method);
#undef SET
	return rc == CURLE_OK ? 0 : SKIT_ENOMEM;
}

/* Polled by libcurl about once a second and on every transfer event. */
static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
	const struct skit__mcp_http *h = ud;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return h->cancel && *h->cancel;
}

static size_t discard(char *data, size_t size, size_t n, void *ud)
{
	(void)data;
	(void)ud;
	return size * n;
}

/*
 * POST the answer to a request the server sent inside a stream, on the
 * second handle (the first is busy with the stream). The server accepts
 * it with 202; a failure is left for the awaited answer's timeout.
 */
static int post_answer(struct xfer *x, json_t *request)
{
	struct skit__mcp_http *h = x->h;
	json_t *a = h->answer(request);
	struct curl_slist *hdrs = NULL;
	char *text = NULL;
	long left = (long)(x->deadline - now_ms());
	char saved[CURL_ERROR_SIZE];
	int rc = SKIT_ENOMEM;

	if (!a)
		return SKIT_ENOMEM;
	text = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	if (!h->aux)
		h->aux = curl_easy_init();
	hdrs = request_headers(h, true, NULL);
	if (!text || !h->aux || !hdrs)
		goto out;
	/* The stream's own error text must survive this exchange. */
	memcpy(saved, h->errbuf, sizeof(saved));
	if (set_common(h->aux, h, "POST", hdrs,
	               left < ANSWER_TIMEOUT ? left : ANSWER_TIMEOUT))
		goto out;
	curl_easy_setopt(h->aux, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(h->aux, CURLOPT_POSTFIELDSIZE_LARGE,
	                 (curl_off_t)strlen(text));
	curl_easy_setopt(h->aux, CURLOPT_WRITEFUNCTION, discard);
	(void)curl_easy_perform(h->aux);
	curl_easy_setopt(h->aux, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h->aux, CURLOPT_POSTFIELDS, NULL);
	memcpy(h->errbuf, saved, sizeof(saved));
	rc = 0;
out:
	free_list(hdrs);
	free(text);
	return rc;
}

/*
 * One message from the server: the awaited answer is kept (and ends the
 * exchange), a request is answered, anything else is dropped.
 */
static int on_message(struct xfer *x, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");

	if (json_object_get(msg, "method")) {
		int rc = id ? post_answer(x, msg) : 0;

		json_decref(msg);
		return rc;
	}
	if (x->want >= 0 && json_is_integer(id) &&
	    json_integer_value(id) == x->want && !x->result) {
		x->result = msg;
		return STOP_ANSWERED;
	}
	json_decref(msg);
	return 0;
}

static int on_event(const struct skit__sse_event *ev, void *ud)
{
	struct xfer *x = ud;
	json_t *msg;
	size_t i = 0;

	/* The id goes back in a header: visible ASCII only, as a session
	 * id; another one is not kept (the stream cannot be resumed). */
	if (ev->id_len && ev->id_len <= MAX_SESSION) {
		bool ok = true;

		for (size_t k = 0; k < ev->id_len && ok; k++)
			ok = ev->id[k] >= 0x21 && ev->id[k] <= 0x7E;
		if (ok) {
			memcpy(x->last_id, ev->id, ev->id_len);
			x->last_id[ev->id_len] = '\0';
		}
	}
	if (ev->event_len &&
	    !(ev->event_len == 7 && !memcmp(ev->event, "message", 7)))
		return 0;
	/* An event with no data (a server primes a stream so) is no
	 * message. */
	while (i < ev->data_len && (ev->data[i] == ' ' || ev->data[i] == '\n' ||
	                            ev->data[i] == '\r' || ev->data[i] == '\t'))
		i++;
	if (i == ev->data_len)
		return 0;
	msg = json_loadb(ev->data, ev->data_len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(msg)) {
		json_decref(msg);
		x->rc = skit__error_set(x->err, SKIT_EIO, 0,
		                        "the server sent an event that is not "
		                        "a JSON-RPC message");
		return x->rc;
	}
	return on_message(x, msg);
}

static size_t on_body(char *data, size_t size, size_t n, void *ud)
{
	struct xfer *x = ud;
	size_t len = size * n;
	int rc;

	if (x->status < 200 || x->status > 299) {
		/* An error's body: its start names the error, if anything. */
		size_t room = MAX_ERROR_BODY - skitx_buf_len(&x->body);

		if (skitx_buf_add(&x->body, data, len < room ? len : room))
			return 0;
		return len;
	}
	if (x->ct == CT_JSON) {
		if (skitx_buf_len(&x->body) + len > SKIT__MCP_MAX_MESSAGE) {
			x->rc = skit__error_set(
			        x->err, SKIT_EIO, 0,
			        "the server sent a message over "
			        "%u MiB",
			        SKIT__MCP_MAX_MESSAGE >> 20);
			return 0;
		}
		if (skitx_buf_add(&x->body, data, len)) {
			x->rc = skit__error_oom(x->err);
			return 0;
		}
		return len;
	}
	if (x->ct != CT_SSE) {
		x->rc = skit__error_set(x->err, SKIT_EIO, 0,
		                        "the server answered with a content "
		                        "type that is neither JSON nor an "
		                        "event stream");
		return 0;
	}
	if (!x->sse_on) {
		skit__sse_init(&x->sse, on_event, x, SKIT__MCP_MAX_MESSAGE);
		x->sse_on = true;
	}
	rc = skit__sse_feed(&x->sse, data, len);
	if (rc == SKIT_ETOOBIG)
		x->rc = skit__error_set(x->err, SKIT_EIO, 0,
		                        "the server sent a message over %u MiB",
		                        SKIT__MCP_MAX_MESSAGE >> 20);
	else if (rc < 0 && !x->rc)
		x->rc = skit__error_oom(x->err);
	return rc ? 0 : len;
}

/* The message of an error body ("error": {"message": ...}), cleaned, or
 * "" when it has none. */
static void error_text(char *out, size_t size, const struct skitx_buf *b)
{
	json_t *j = json_loadb(skitx_buf_cstr(b), skitx_buf_len(b), 0, NULL);
	const char *m = json_string_value(
	        json_object_get(json_object_get(j, "error"), "message"));
	size_t o = 0;

	out[0] = '\0';
	if (m) {
		o = (size_t)snprintf(out, size, ": ");
		for (; *m && o + 1 < size && o < 202; m++)
			out[o++] = (*m >= 0x20 && *m < 0x7F) ? *m : '?';
		out[o] = '\0';
	}
	json_decref(j);
}

/*
 * One HTTP exchange: `method` with `body` (NULL for GET and DELETE).
 * Fills x (status, result, body) and returns 0, or an error in x->err.
 */
static int perform(struct skit__mcp_http *h, struct xfer *x, const char *method,
                   const char *body, const char *last_id)
{
	struct curl_slist *hdrs = request_headers(h, body != NULL, last_id);
	long left = (long)(x->deadline - now_ms());
	CURLcode cc;
	int rc;

	if (!hdrs)
		return skit__error_oom(x->err);
	if (left <= 0) {
		free_list(hdrs);
		return skit__error_set(x->err, SKIT_ETIMEOUT, 0,
		                       "no answer in time");
	}
	rc = set_common(h->easy, h, method, hdrs, left);
	if (!rc && body) {
		curl_easy_setopt(h->easy, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h->easy, CURLOPT_POSTFIELDSIZE_LARGE,
		                 (curl_off_t)strlen(body));
	}
	if (rc) {
		free_list(hdrs);
		return skit__error_oom(x->err);
	}
	curl_easy_setopt(h->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(h->easy, CURLOPT_HEADERDATA, x);
	curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h->easy, CURLOPT_WRITEDATA, x);
	if (h->cancel) {
		curl_easy_setopt(h->easy, CURLOPT_NOPROGRESS, 0L);
		curl_easy_setopt(h->easy, CURLOPT_XFERINFOFUNCTION,
		                 on_progress);
		curl_easy_setopt(h->easy, CURLOPT_XFERINFODATA, h);
	}
	cc = curl_easy_perform(h->easy);
	/* Leave no pointer to this stack or the caller's memory behind. */
	curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, NULL);
	curl_easy_setopt(h->easy, CURLOPT_POSTFIELDS, NULL);
	free_list(hdrs);
	if (x->result)
		return 0;
	if (x->rc)
		return x->rc;
	if (cc == CURLE_ABORTED_BY_CALLBACK && h->cancel && *h->cancel)
		return skit__error_set(x->err, SKIT_ECANCELED, 0, "canceled");
	if (cc == CURLE_OK && x->sse_on) {
		rc = skit__sse_finish(&x->sse);
		if (x->result)
			return 0;
		if (rc)
			return x->rc ? x->rc : skit__error_oom(x->err);
	}
	if (cc == CURLE_OPERATION_TIMEDOUT)
		return skit__error_set(x->err, SKIT_ETIMEOUT, 0,
		                       "no answer in time");
	if (cc == CURLE_OUT_OF_MEMORY)
		return skit__error_oom(x->err);
	if (cc != CURLE_OK)
		return skit__error_set(
		        x->err, SKIT_EIO, 0, "the connection failed: %.160s",
		        h->errbuf[0] ? h->errbuf : curl_easy_strerror(cc));
	if (x->bad_session)
		return skit__error_set(x->err, SKIT_EIO, 0,
		                       "the server sent an Mcp-Session-Id that "
		                       "is not 1 to %d visible characters",
		                       MAX_SESSION);
	return 0;
}

static void xfer_reset(struct xfer *x)
{
	if (x->sse_on)
		skit__sse_release(&x->sse);
	x->sse_on = false;
	skitx_buf_clear(&x->body);
	x->status = 0;
	x->informational = false;
	x->ct = CT_NONE;
	x->session[0] = '\0';
	x->bad_session = false;
}

/* The answer awaited in a JSON body (an object, or a batch holding it). */
static int take_json(struct xfer *x)
{
	json_t *j =
	        json_loadb(skitx_buf_cstr(&x->body), skitx_buf_len(&x->body),
	                   JSON_REJECT_DUPLICATES, NULL);
	json_t *v;
	size_t i;

	if (!json_is_object(j) && !json_is_array(j)) {
		json_decref(j);
		return skit__error_set(x->err, SKIT_EIO, 0,
		                       "the server sent a body that is not "
		                       "JSON");
	}
	if (json_is_object(j)) {
		(void)on_message(x, j);
		return 0;
	}
	json_array_foreach(j, i, v) if (json_is_object(v) &&
	                                on_message(x, json_incref(v)) < 0)
	{
		json_decref(j);
		return SKIT_ENOMEM;
	}
	json_decref(j);
	return 0;
}

int skit__mcp_http_send(struct skit__mcp_http *h, json_t *msg, long long id,
                        long timeout_ms, json_t **result, skit_error *err)
{
	struct xfer x;
	char *body = json_dumps(msg, JSON_COMPACT);
	char why[256];
	int rc, resumes = 0;

	if (result)
		*result = NULL;
	if (!body)
		return skit__error_oom(err);
	memset(&x, 0, sizeof(x));
	x.h = h;
	x.want = id;
	x.err = err;
	x.deadline = now_ms() + timeout_ms;
	skitx_buf_init(&x.body, 0);
	rc = perform(h, &x, "POST", body, NULL);
	for (;;) {
		/* The initialize answer names the session, for good. */
		if (!rc && x.session[0] && !h->session && x.status >= 200 &&
		    x.status <= 299) {
			h->session = skitx_strdup(x.session);
			if (!h->session)
				rc = skit__error_oom(err);
		}
		if (rc || x.result)
			break;
		if (x.status == 404 && h->session) {
			rc = skit__error_set(err, SKIT_ENOTFOUND, 0,
			                     "the server ended the session "
			                     "(HTTP 404)");
			break;
		}
		if (x.status < 200 || x.status > 299) {
			error_text(why, sizeof(why), &x.body);
			/* OAuth is not offered: a token goes in "headers". */
			rc = skit__error_set(
			        err, SKIT_EIO, 0, "HTTP %ld%s%s", x.status, why,
			        x.status == 401 ? " (the server wants a "
			                          "token: give it in the "
			                          "server's \"headers\")"
			                        : "");
			break;
		}
		if (id < 0)
			break; /* a notification or an answer: accepted */
		if (x.status == 202 || x.status == 204) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server accepted a request "
			                     "without answering it (HTTP %ld)",
			                     x.status);
			break;
		}
		if (x.ct == CT_JSON) {
			rc = take_json(&x);
			if (!rc && !x.result)
				rc = skit__error_set(err, SKIT_EIO, 0,
				                     "the server answered "
				                     "another request");
			break;
		}
		if (x.ct != CT_SSE) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server answered with a "
			                     "content type that is neither "
			                     "JSON nor an event stream");
			break;
		}
		/* The stream ended before the answer: resume it from its last
		 * event, after the wait the server asked for (2025-11-25). */
		if (!x.last_id[0] || resumes++ >= MAX_RESUMES) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server ended the stream "
			                     "without an answer");
			break;
		}
		{
			long wait = x.sse_on && x.sse.retry_ms > 0
			                    ? x.sse.retry_ms
			                    : 200;
			long long left = x.deadline - now_ms();

			if (wait > left)
				wait = left > 0 ? (long)left : 0;
			if (wait > 0)
				usleep((useconds_t)(wait > 5000 ? 5000 : wait) *
				       1000);
		}
		{
			char last[MAX_SESSION + 1];

			memcpy(last, x.last_id, sizeof(last));
			xfer_reset(&x);
			rc = perform(h, &x, "GET", NULL, last);
		}
	}
	if (x.sse_on)
		skit__sse_release(&x.sse);
	skitx_buf_release(&x.body);
	free(body);
	if (!rc && result)
		*result = x.result;
	else
		json_decref(x.result);
	return rc;
}

void skit__mcp_http_set_cancel(struct skit__mcp_http *h,
                               const volatile int *cancel)
{
	h->cancel = cancel;
}

void skit__mcp_http_forget_session(struct skit__mcp_http *h)
{
	skitx_free(h->session);
	skitx_free(h->version);
	h->session = NULL;
	h->version = NULL;
}

int skit__mcp_http_set_version(struct skit__mcp_http *h, const char *version)
{
	char *v = skitx_strdup(version);

	if (!v)
		return SKIT_ENOMEM;
	skitx_free(h->version);
	h->version = v;
	return 0;
}

/* Headers the transport sets itself: a configuration may not. */
static bool reserved(const char *name)
{
	static const char *const own[] = { "accept",
		                           "content-type",
		                           "mcp-session-id",
		                           "mcp-protocol-version",
		                           "last-event-id",
		                           "content-length",
		                           "host" };

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcasecmp(name, own[i]))
			return true;
	return false;
}

int skit__mcp_http_new(struct skit__mcp_http **out, const char *url,
                       json_t *headers, skit__mcp_answer_fn answer,
                       skit_error *err)
{
	struct skit__mcp_http *h;
	const char *k;
	json_t *v;
	int rc;

	*out = NULL;
	rc = skit__fetch_check_url(url, err);
	if (rc)
		return rc;
	if (json_object_size(headers) > MAX_HEADERS)
		return skit__error_set(err, SKIT_EINVALID, 0,
		                       "more than %d headers", MAX_HEADERS);
	if (pthread_once(&global_once, global_init) || global_rc != CURLE_OK)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "libcurl: global initialisation failed");
	h = skitx_calloc(1, sizeof(*h));
	if (!h)
		return skit__error_oom(err);
	h->answer = answer;
	h->url = skitx_strdup(url);
	h->headers =
	        skitx_calloc(json_object_size(headers) + 1, sizeof(char *));
	h->easy = curl_easy_init();
	if (!h->url || !h->headers || !h->easy)
		goto oom;
	json_object_foreach(headers, k, v)
	{
		const char *s = json_string_value(v);
		size_t len = strlen(k) + (s ? strlen(s) : 0) + 3;
		char *line;

		if (!s || reserved(k)) {
			rc = skit__error_set(
			        err, SKIT_EINVALID, 0, "header '%.64s': %s", k,
			        s ? "set by skit itself" : "not a string");
			goto fail;
		}
		line = skitx_malloc(len);
		if (!line)
			goto oom;
		snprintf(line, len, "%s: %s", k, s);
		h->headers[h->nheaders++] = line;
		rc = skit__fetch_header_check(line, err);
		if (rc) {
			rc = SKIT_EINVALID;
			if (err)
				err->code = SKIT_EINVALID;
			goto fail;
		}
	}
	*out = h;
	return 0;
oom:
	rc = skit__error_oom(err);
fail:
	skit__mcp_http_free(h);
	return rc;
}

void skit__mcp_http_free(struct skit__mcp_http *h)
{
	if (!h)
		return;
	if (h->session && h->easy) {
		struct curl_slist *hdrs = request_headers(h, false, NULL);

		/* The server may forget the session now; 405 says it keeps
		 * sessions its own way, and that is fine too. */
		if (hdrs &&
		    !set_common(h->easy, h, "DELETE", hdrs, DELETE_TIMEOUT)) {
			curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION,
			                 discard);
			(void)curl_easy_perform(h->easy);
			curl_easy_setopt(h->easy, CURLOPT_HTTPHEADER, NULL);
		}
		free_list(hdrs);
	}
	if (h->easy)
		curl_easy_cleanup(h->easy);
	if (h->aux)
		curl_easy_cleanup(h->aux);
	for (size_t i = 0; i < h->nheaders; i++) {
		/* a token may be in there */
		OPENSSL_cleanse(h->headers[i], strlen(h->headers[i]));
		skitx_free(h->headers[i]);
	}
	skitx_free(h->headers);
	skitx_free(h->url);
	skitx_free(h->session);
	skitx_free(h->version);
	skitx_free(h);
}
