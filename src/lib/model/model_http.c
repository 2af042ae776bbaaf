/* SPDX-License-Identifier: MIT */
/*
 * model_http.c - requests, retries and error messages for the HTTP model
 * providers. See model_http.h.
 *
 * Retry policy: 429 and 5xx answers and connection failures (SKIT_EIO)
 * are retried; a timeout is not (the time budget is spent), and neither
 * is a stream that already reached the provider (its text may have been
 * shown to the user). The wait is "full jitter" exponential backoff, a
 * random time in [0, min(max, base * 2^n)], unless the server said how
 * long to wait with retry-after (seconds or an HTTP date) or
 * retry-after-ms; that wait is capped by retry_max_ms too.
 */
#include "common.h"

#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "lib/model/model_http.h"
#include "lib/core/error.h"
#include "lib/model/ratelimit.h"
#include "util/clock.h"
#include "util/utf8.h"

#define ERRBODY_MAX    (64u * 1024) /* what we keep of an error body */
#define SERVER_MSG_MAX 200u         /* what we quote of its message */
#define KEY_MIN_SCRUB  4u           /* shorter "keys" would eat words */

/* State of one attempt, shared with the sink callbacks. */
struct attempt {
	skit_model *m;
	struct skit__http_call *call;
	skit_error *err;
	long status;
	long retry_after_ms; /* -1: none */
	bool is_sse;
	bool delivered; /* bytes went to on_data */
	int abort_rc;
};

void skit__http_call_init(struct skit__http_call *call)
{
	memset(call, 0, sizeof(*call));
	skitx_buf_init(&call->response, SKIT__HTTP_BODY_MAX);
}

void skit__http_call_release(struct skit__http_call *call)
{
	skitx_buf_release(&call->response);
}

/* Replace each occurrence of `key` in `s` with "***", in place. */
static void scrub_key(char *s, const char *key)
{
	size_t klen = key ? strlen(key) : 0;
	char *hit;

	if (klen < KEY_MIN_SCRUB)
		return;
	for (hit = strstr(s, key); hit; hit = strstr(hit + 3, key)) {
		memcpy(hit, "***", 3);
		memmove(hit + 3, hit + klen, strlen(hit + klen) + 1);
	}
}

void skit__http_scrub(skit_model *m, skit_error *err)
{
	if (err)
		scrub_key(err->message, m->api_key);
}

int skit__http_error(skit_model *m, skit_error *err, int code, const char *fmt,
                     ...)
{
	char msg[sizeof(err->message)];
	va_list ap;

	if (!err)
		return code;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	skit__error_set(err, code, 0, "%s: %s", m->provider->name, msg);
	skit__http_scrub(m, err);
	return code;
}

const char *skit__json_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

uint64_t skit__json_u64(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (json_is_integer(v) && json_integer_value(v) > 0)
		return (uint64_t)json_integer_value(v);
	return 0;
}

json_t *skit__json_object_from(const char *s)
{
	json_t *j;

	if (!s || !*s)
		return json_object();
	j = json_loads(s, JSON_DECODE_ANY, NULL);
	if (j && !json_is_object(j)) {
		json_decref(j);
		j = NULL;
	}
	return j;
}

const char *skit__http_error_text(json_t *j)
{
	json_t *e = json_object_get(j, "error");
	const char *s;

	if (json_is_string(e))
		return json_string_value(e);
	s = skit__json_str(e, "message");
	if (s)
		return s;
	s = skit__json_str(j, "message");
	if (s)
		return s;
	return skit__json_str(j, "detail");
}

/*
 * Copy a server's message for quoting: the key scrubbed, control
 * characters turned to spaces (the error is one line), runs of spaces
 * squeezed, at most SERVER_MSG_MAX bytes, never cut inside a UTF-8
 * sequence.
 *
 * The key is matched in the raw bytes, over the whole message, while they
 * are copied: every cut (the copy's size, then SERVER_MSG_MAX) falls in
 * text where each key was already replaced, so no key can survive in
 * part, as a prefix left before a cut.
 */
static void clean_message(skit_model *m, char *out, size_t size,
                          const char *msg, size_t len)
{
	/* Twice the quote: with spaces squeezed, a full copy proves there
	 * is more to say than the quote holds. */
	char tmp[SERVER_MSG_MAX * 2 + 1];
	const char *key = m->api_key;
	size_t klen = key ? strlen(key) : 0, o = 0, cut;
	unsigned char c;

	if (klen < KEY_MIN_SCRUB)
		klen = 0;
	for (size_t i = 0; i < len && o + 3 < sizeof(tmp); i++) {
		if (klen && len - i >= klen && msg[i] == key[0] &&
		    !memcmp(msg + i, key, klen)) {
			memcpy(tmp + o, "***", 3);
			o += 3;
			i += klen - 1;
			continue;
		}
		c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f)
			c = ' ';
		if (c == ' ' && (!o || tmp[o - 1] == ' '))
			continue;
		tmp[o++] = (char)c;
	}
	while (o && tmp[o - 1] == ' ')
		o--;
	tmp[o] = '\0';
	cut = o;
	if (cut > SERVER_MSG_MAX) {
		cut = SERVER_MSG_MAX;
		while (cut && ((unsigned char)tmp[cut] & 0xC0) == 0x80)
			cut--;
	}
	snprintf(out, size, "%.*s%s", (int)cut, tmp, cut < o ? "..." : "");
}

static const char *reason_of(long status)
{
	switch (status) {
	case 400:
		return "bad request";
	case 401:
		return "unauthorized (check the API key)";
	case 403:
		return "forbidden (check the API key's permissions)";
	case 404:
		return "not found (check the model name and base URL)";
	case 408:
		return "request timeout";
	case 413:
		return "request too large";
	case 422:
		return "unprocessable request";
	case 429:
		return "rate limited";
	case 500:
		return "internal server error";
	case 502:
		return "bad gateway";
	case 503:
		return "service unavailable";
	case 504:
		return "gateway timeout";
	case 529:
		return "overloaded";
	default:
		return status >= 500 ? "server error" : "unexpected status";
	}
}

/* "PROVIDER: HTTP 401: <the server's message or a reason>". */
static int status_error(skit_model *m, long status, const struct skitx_buf *b,
                        skit_error *err)
{
	char quoted[SERVER_MSG_MAX + 8];
	const char *text = NULL, *body = skitx_buf_cstr(b), *nl;
	size_t len = 0;
	json_t *j;

	j = json_loadb(body, skitx_buf_len(b), 0, NULL);
	text = skit__http_error_text(j);
	if (text) {
		len = strlen(text);
	} else if (skitx_buf_len(b) && body[0] != '<' && body[0] != '{' &&
	           body[0] != '[') {
		/* A plain-text body: its first line. Not HTML or JSON. */
		text = body;
		nl = memchr(body, '\n', skitx_buf_len(b));
		len = nl ? (size_t)(nl - body) : skitx_buf_len(b);
	}
	if (text)
		clean_message(m, quoted, sizeof(quoted), text, len);
	if (!text || !*quoted)
		snprintf(quoted, sizeof(quoted), "%s", reason_of(status));
	json_decref(j);
	return skit__http_error(m, err, SKIT_EPROVIDER, "HTTP %ld: %s", status,
	                        quoted);
}

int skit__http_body_error(skit_model *m, json_t *j, skit_error *err)
{
	char quoted[SERVER_MSG_MAX + 8];
	const char *text = skit__http_error_text(j);

	if (!text)
		text = "unknown error";
	clean_message(m, quoted, sizeof(quoted), text, strlen(text));
	return skit__http_error(m, err, SKIT_EPROVIDER, "server error: %s",
	                        quoted);
}

int skit__http_json(skit_model *m, json_t **out, const char *text, size_t len,
                    skit_error *err)
{
	json_error_t jerr;

	*out = json_loadb(text, len, 0, &jerr);
	if (!*out)
		return skit__http_error(m, err, SKIT_EPROVIDER,
		                        "malformed response (invalid JSON: "
		                        "%.80s)",
		                        jerr.text);
	return 0;
}

static int check_str(skit_model *m, const char *s, bool required,
                     const char *what, size_t i, skit_error *err)
{
	if (!s) {
		if (!required)
			return 0;
		return skit__http_error(m, err, SKIT_EINVALID,
		                        "%s %zu is missing", what, i + 1);
	}
	if (skitx_utf8_check(s, strlen(s), NULL))
		return skit__http_error(m, err, SKIT_EINVALID,
		                        "%s %zu is not valid UTF-8", what,
		                        i + 1);
	return 0;
}

int skit__http_check_request(skit_model *m, const skit_model_request *req,
                             skit_error *err)
{
	int rc = check_str(m, req->system, false, "system prompt", 0, err);

	for (size_t i = 0; !rc && i < req->message_count; i++) {
		const skit_message *msg = &req->messages[i];

		rc = check_str(m, msg->text, false, "message", i, err);
		if (!rc && msg->role == SKIT_ROLE_TOOL)
			rc = check_str(m, msg->tool_call_id, true,
			               "tool result's call id in message", i,
			               err);
		for (size_t j = 0; !rc && j < msg->tool_call_count; j++) {
			const skit_tool_call *c = &msg->tool_calls[j];

			rc = check_str(m, c->id, true,
			               "tool call id in message", i, err);
			if (!rc)
				rc = check_str(m, c->name, true,
				               "tool call name in message", i,
				               err);
			if (!rc)
				rc = check_str(m, c->arguments, false,
				               "tool call arguments in message",
				               i, err);
		}
	}
	for (size_t i = 0; !rc && i < req->tool_count; i++) {
		rc = check_str(m, req->tools[i].name, true, "name of tool", i,
		               err);
		if (!rc)
			rc = check_str(m, req->tools[i].description, false,
			               "description of tool", i, err);
		if (!rc)
			rc = check_str(m, req->tools[i].parameters, false,
			               "parameters of tool", i, err);
	}
	return rc;
}

int skit__http_dump(json_t *body, bool bad, char **out, size_t *len,
                    skit_error *err)
{
	*out = NULL;
	*len = 0;
	if (!bad && body)
		*out = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (!*out)
		return skit__error_oom(err);
	*len = strlen(*out);
	return 0;
}

/* ---- the sink ---------------------------------------------------------- */

static int sink_status(long status, void *payload)
{
	struct attempt *a = payload;

	a->status = status;
	return 0;
}

static bool header_is(const char *name, size_t len, const char *want)
{
	return strlen(want) == len && !strncasecmp(name, want, len);
}

/* Digits only, into a long, saturating; -1 when not a number. */
static long parse_digits(const char *s, size_t len)
{
	long v = 0;

	if (!len)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v < LONG_MAX / 10 - 10)
			v = v * 10 + (s[i] - '0');
	}
	return v;
}

static long parse_retry_after(const char *v, size_t len)
{
	char date[64];
	long secs = parse_digits(v, len);
	time_t when, now;

	if (secs >= 0)
		return secs > LONG_MAX / 1000 ? LONG_MAX : secs * 1000;
	if (len >= sizeof(date))
		return -1;
	memcpy(date, v, len);
	date[len] = '\0';
	when = curl_getdate(date, NULL);
	if (when < 0)
		return -1;
	now = time(NULL);
	return when <= now ? 0 : (long)(when - now) * 1000;
}

static int sink_header(const char *name, size_t name_len, const char *value,
                       size_t value_len, void *payload)
{
	struct attempt *a = payload;
	long ms;

	if (header_is(name, name_len, "content-type")) {
		a->is_sse = value_len >= 17 &&
		            !strncasecmp(value, "text/event-stream", 17);
	} else if (header_is(name, name_len, "retry-after-ms")) {
		ms = parse_digits(value, value_len);
		if (ms >= 0)
			a->retry_after_ms = ms;
	} else if (header_is(name, name_len, "retry-after") &&
	           a->retry_after_ms < 0) {
		a->retry_after_ms = parse_retry_after(value, value_len);
	}
	return 0;
}

static int sink_body(const char *data, size_t len, void *payload)
{
	struct attempt *a = payload;
	struct skit__http_call *c = a->call;
	size_t room;
	int rc;

	if (a->status >= 200 && a->status < 300) {
		if (c->on_data && a->is_sse) {
			a->delivered = true;
			rc = c->on_data(data, len, c->payload);
			if (rc)
				a->abort_rc = rc;
			return rc;
		}
		rc = skitx_buf_add(&c->response, data, len);
		if (rc == SKIT_ETOOBIG)
			rc = skit__http_error(a->m, a->err, SKIT_ETOOBIG,
			                      "response is larger than %u MiB",
			                      SKIT__HTTP_BODY_MAX >> 20);
		else if (rc)
			rc = skit__error_oom(a->err);
		a->abort_rc = rc;
		return rc;
	}
	/* An error answer: keep its start, for the message. */
	room = skitx_buf_len(&c->response) < ERRBODY_MAX
	               ? ERRBODY_MAX - skitx_buf_len(&c->response)
	               : 0;
	rc = skitx_buf_add(&c->response, data, len < room ? len : room);
	if (rc)
		rc = skit__error_oom(a->err);
	a->abort_rc = rc;
	return rc;
}

/* ---- retries ----------------------------------------------------------- */

static uint64_t next_random(uint64_t *s)
{
	/* xorshift64*: plenty for spreading retries. */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static long backoff_ms(skit_model *m, unsigned int retry, long retry_after,
                       uint64_t *rng)
{
	long cap = m->retry_base_ms;

	if (retry_after >= 0)
		return retry_after < m->retry_max_ms ? retry_after
		                                     : m->retry_max_ms;
	for (unsigned int i = 1; i < retry && cap < m->retry_max_ms; i++)
		cap *= 2;
	if (cap > m->retry_max_ms)
		cap = m->retry_max_ms;
	return (long)(next_random(rng) % ((uint64_t)cap + 1));
}

/* Wait `ms` in short slices; true when the wait was canceled. */
static bool sleep_ms(skit_model *m, long ms)
{
	struct timespec ts;
	long slice;

	while (ms > 0) {
		if (m->cancel && *m->cancel)
			return true;
		slice = ms < 50 ? ms : 50;
		ts.tv_sec = 0;
		ts.tv_nsec = slice * 1000000L;
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ms -= slice;
	}
	return m->cancel && *m->cancel;
}

/* Tell the caller a retry is coming (the why scrubbed of the key). */
static void notify_retry(skit_model *m, unsigned int retry, long wait_ms,
                         long status, skit_error *terr)
{
	char why[sizeof(terr->message) + 16];

	if (!m->on_retry)
		return;
	if (status) {
		snprintf(why, sizeof(why), "HTTP %ld", status);
	} else {
		skit__http_scrub(m, terr);
		snprintf(why, sizeof(why), "%s",
		         terr->message[0] ? terr->message
		                          : skit_strerror(SKIT_EIO));
	}
	m->on_retry(retry, m->max_retries, wait_ms, why, m->retry_payload);
}

static bool retryable_status(long status)
{
	return status == 429 || (status >= 500 && status <= 599);
}

static int get_transport(skit_model *m, skit_transport **out, skit_error *err)
{
	int rc;

	if (m->transport) {
		*out = m->transport;
		return 0;
	}
	if (!m->own_transport) {
		rc = skit_transport_curl_new(&m->own_transport, err);
		if (rc)
			return rc;
	}
	*out = m->own_transport;
	return 0;
}

int skit__http_perform(skit_model *m, struct skit__http_call *call,
                       skit_error *err)
{
	skit_http_request req = { 0 };
	skit_http_sink sink = { sink_status, sink_header, sink_body, NULL };
	skit_transport *t;
	struct attempt a;
	skit_error terr;
	struct timespec now;
	uint64_t rng;
	int rc;

	rc = get_transport(m, &t, err);
	if (rc)
		return rc;
	req.method = "POST";
	req.url = call->url;
	req.headers = call->headers;
	req.body = call->body;
	req.body_len = call->body_len;
	req.connect_timeout_ms = m->connect_timeout_ms;
	req.total_timeout_ms = m->total_timeout_ms;
	req.cancel = m->cancel;
	clock_gettime(CLOCK_REALTIME, &now);
	rng = ((uint64_t)now.tv_sec << 32) ^ (uint64_t)now.tv_nsec ^
	      (uint64_t)(uintptr_t)call;
	if (!rng)
		rng = 1;
	for (unsigned int retry = 0;; retry++) {
		memset(&a, 0, sizeof(a));
		a.m = m;
		a.call = call;
		a.err = err;
		a.retry_after_ms = -1;
		sink.payload = &a;
		skitx_buf_clear(&call->response);
		memset(&terr, 0, sizeof(terr));
		if (m->ratelimit) {
			/* About 4 bytes a token: an estimate, corrected by
			 * the usage once the answer is in (model.c). */
			uint64_t est = call->body_len / 4 + 1;

			if (skit__ratelimit_acquire(m->ratelimit, est,
			                            m->cancel)) {
				rc = skit__http_error(m, err, SKIT_ECANCELED,
				                      "canceled");
				break;
			}
			m->rl_charged += est;
		}
		call->attempts++;
		rc = t->perform(t, &req, &sink, &terr);
		call->status = a.status;
		call->streamed =
		        a.delivered || (call->on_data && a.is_sse &&
		                        a.status >= 200 && a.status < 300);
		if (rc && rc == a.abort_rc)
			break; /* our sink or the provider said why */
		if (rc) {
			if (a.delivered) {
				/* The stream broke after it began. */
				if (rc == SKIT_EIO)
					rc = skit__http_error(
					        m, err, SKIT_EPROVIDER,
					        "truncated stream (%s)",
					        terr.message);
				else
					skit__http_error(m, err, rc, "%s",
					                 terr.message);
				break;
			}
			if (rc == SKIT_EIO && retry < m->max_retries) {
				long wait = backoff_ms(m, retry + 1, -1, &rng);

				notify_retry(m, retry + 1, wait, 0, &terr);
				if (!sleep_ms(m, wait))
					continue;
				rc = skit__http_error(m, err, SKIT_ECANCELED,
				                      "canceled");
				break;
			}
			if (rc == SKIT_ENOMEM)
				skit__error_oom(err);
			else
				skit__http_error(m, err, rc, "%s",
				                 terr.message[0]
				                         ? terr.message
				                         : skit_strerror(rc));
			break;
		}
		if (a.status >= 200 && a.status < 300)
			break;
		if (!a.status) {
			rc = skit__http_error(m, err, SKIT_EPROVIDER,
			                      "no HTTP status in the response");
			break;
		}
		/* A 429 that says how long to wait holds back every model
		 * sharing the limits, not only this one. */
		if (a.status == 429 && a.retry_after_ms >= 0 && m->ratelimit)
			skit__ratelimit_pause(m->ratelimit,
			                      a.retry_after_ms < m->retry_max_ms
			                              ? a.retry_after_ms
			                              : m->retry_max_ms,
			                      skitx_clock_ms());
		if (retryable_status(a.status) && retry < m->max_retries) {
			long wait = backoff_ms(m, retry + 1, a.retry_after_ms,
			                       &rng);

			notify_retry(m, retry + 1, wait, a.status, &terr);
			if (!sleep_ms(m, wait))
				continue;
			rc = skit__http_error(m, err, SKIT_ECANCELED,
			                      "canceled");
			break;
		}
		rc = status_error(m, a.status, &call->response, err);
		break;
	}
	if (rc)
		skit__http_scrub(m, err);
	return rc;
}

/* ---- streamed tool calls ----------------------------------------------- */

int skit__partial_calls_at(skit_model *m, struct skit__partial_calls *pc,
                           size_t index, struct skit__partial_call **out,
                           skit_error *err)
{
	struct skit__partial_call *v;

	if (index >= SKIT__HTTP_CALLS_MAX)
		return skit__http_error(m, err, SKIT_EPROVIDER,
		                        "malformed response (tool call index "
		                        "%zu)",
		                        index);
	if (index >= pc->n) {
		v = skitx_realloc(pc->v, (index + 1) * sizeof(*v));
		if (!v)
			return skit__error_oom(err);
		for (size_t i = pc->n; i <= index; i++) {
			memset(&v[i], 0, sizeof(v[i]));
			skitx_buf_init(&v[i].args, SKIT__HTTP_ARGS_MAX);
		}
		pc->v = v;
		pc->n = index + 1;
	}
	*out = &pc->v[index];
	(*out)->used = true;
	return 0;
}

int skit__partial_set(char **slot, const char *s, size_t len, skit_error *err)
{
	char *copy = skitx_strndup(s, len);

	if (!copy)
		return skit__error_oom(err);
	skitx_free(*slot);
	*slot = copy;
	return 0;
}

int skit__partial_calls_finish(skit_model *m, struct skit__partial_calls *pc,
                               skit_model_response *out, skit_error *err)
{
	char idbuf[32];
	int rc;

	for (size_t i = 0; i < pc->n; i++) {
		struct skit__partial_call *c = &pc->v[i];

		if (!c->used)
			continue;
		if (!c->name || !*c->name)
			return skit__http_error(m, err, SKIT_EPROVIDER,
			                        "malformed response (tool call "
			                        "%zu has no name)",
			                        i);
		snprintf(idbuf, sizeof(idbuf), "call_%zu", i + 1);
		rc = skit__response_add_call(out, c->id ? c->id : idbuf,
		                             c->name, skitx_buf_cstr(&c->args),
		                             err);
		if (rc)
			return rc;
	}
	return 0;
}

void skit__partial_calls_release(struct skit__partial_calls *pc)
{
	for (size_t i = 0; i < pc->n; i++) {
		skitx_free(pc->v[i].id);
		skitx_free(pc->v[i].name);
		skitx_buf_release(&pc->v[i].args);
	}
	skitx_free(pc->v);
	pc->v = NULL;
	pc->n = 0;
}

/* ---- a streamed response ------------------------------------------- */

void skit__stream_init(struct skit__stream *s, skit_model *m,
                       skit__sse_cb on_event, skit_model_delta_cb on_delta,
                       void *payload, skit_error *err)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->on_delta = on_delta;
	s->payload = payload;
	s->err = err;
	skit__sse_init(&s->sse, on_event, s, 0);
	skitx_buf_init(&s->text, SKIT__HTTP_TEXT_MAX);
}

void skit__stream_release(struct skit__stream *s)
{
	skit__sse_release(&s->sse);
	skitx_buf_release(&s->text);
	skit__partial_calls_release(&s->calls);
	skitx_free(s->stop_reason);
}

int skit__stream_text(struct skit__stream *s, const char *t, size_t len)
{
	int rc;

	if (!len)
		return 0;
	rc = skitx_buf_add(&s->text, t, len);
	if (rc == SKIT_ETOOBIG)
		return skit__http_error(s->m, s->err, rc,
		                        "response text over %u MiB",
		                        SKIT__HTTP_TEXT_MAX >> 20);
	if (rc)
		return skit__error_oom(s->err);
	if (s->on_delta(t, len, s->payload))
		return skit__http_error(s->m, s->err, SKIT_ECANCELED,
		                        "canceled");
	return 0;
}

/* The SSE parser's own failures; the event callback's pass through. */
static int sse_error(struct skit__stream *s, int rc)
{
	if (rc == s->cb_rc)
		return rc;
	if (rc == SKIT_ETOOBIG)
		return skit__http_error(s->m, s->err, rc,
		                        "stream event over %u MiB",
		                        SKIT__SSE_MAX_DATA >> 20);
	return skit__error_oom(s->err);
}

static int stream_data(const char *data, size_t len, void *payload)
{
	struct skit__stream *s = payload;
	int rc = skit__sse_feed(&s->sse, data, len);

	return rc ? sse_error(s, rc) : 0;
}

/* The stream ended: check it was whole and move the result to `out`. */
static int stream_finish(struct skit__stream *s, const char *end_marker,
                         skit_model_response *out)
{
	int rc = skit__sse_finish(&s->sse);

	if (rc)
		return sse_error(s, rc);
	if (!s->ended && !s->finished)
		return skit__http_error(s->m, s->err, SKIT_EPROVIDER,
		                        "truncated stream (no %s)", end_marker);
	out->text = skitx_buf_detach(&s->text, NULL);
	if (!out->text)
		return skit__error_oom(s->err);
	rc = skit__partial_calls_finish(s->m, &s->calls, out, s->err);
	if (rc)
		return rc;
	out->stop_reason = s->stop_reason;
	s->stop_reason = NULL;
	out->usage = s->usage;
	return 0;
}

int skit__stream_complete(skit_model *m, struct skit__http_call *call,
                          struct skit__stream *s, const char *end_marker,
                          skit__parse_whole_fn parse_whole,
                          skit_model_response *out, skit_error *err)
{
	const char *body;
	int rc;

	if (s) {
		call->on_data = stream_data;
		call->payload = s;
	}
	rc = skit__http_perform(m, call, err);
	body = skitx_buf_cstr(&call->response);
	if (!rc && s && !call->streamed &&
	    (!strncmp(body, "event:", 6) || !strncmp(body, "data:", 5))) {
		/* An event stream under another content type. */
		rc = stream_data(body, skitx_buf_len(&call->response), s);
		call->streamed = true;
	}
	if (!rc && call->streamed)
		rc = stream_finish(s, end_marker, out);
	else if (!rc)
		rc = parse_whole(m, out, &call->response, err);
	return rc;
}
