/* SPDX-License-Identifier: MIT */
/*
 * mcp_http.c - the MCP server's Streamable HTTP transport, served by
 * libmicrohttpd.
 *
 * One endpoint takes POSTed JSON-RPC messages and answers each request
 * with JSON, or with a short SSE stream when notifications (progress,
 * log messages) go with the answer and the client accepts one. Every
 * `initialize` opens a session named by `Mcp-Session-Id`; DELETE ends it.
 * GET (a server-initiated stream) is not offered: 405, as the transport
 * allows. The defences the specification asks for are here: a foreign
 * `Origin` gets 403 (DNS rebinding), a missing or wrong bearer token 401,
 * an oversized body 413; the daemon binds to loopback unless told
 * otherwise. libmicrohttpd calls the handler on its one internal thread;
 * a mutex keeps the server single-threaded against the watch loop.
 */
#include "common.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include "skit/mcp.h"
#include "lib/core/error.h"
#include "lib/mcp/mcp_int.h"
#include "util/buf.h"

struct http {
	skit_mcp_server *srv;
	const skit_mcp_http_options *opts;
	const char *path;
	const char *host; /* the address bound, as given */
	bool loopback;    /* bound to a loopback address */
	pthread_mutex_t lock;
};

/* One request's body as it arrives. */
struct req {
	struct skitx_buf body;
	bool too_big;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int code,
                             const char *type, const char *body,
                             const char *session)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(strlen(body), (void *)body,
	                                    MHD_RESPMEM_MUST_COPY);
	if (!r)
		return MHD_NO;
	if (*body)
		MHD_add_response_header(r, "Content-Type", type);
	if (session)
		MHD_add_response_header(r, "Mcp-Session-Id", session);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, "Allow", "POST, DELETE");
	if (code == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(r, "WWW-Authenticate", "Bearer");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	return ret;
}

/* A plain JSON-RPC error with no id, for the transport's refusals. */
static enum MHD_Result refuse(struct MHD_Connection *c, unsigned int code,
                              const char *message)
{
	char body[300];

	snprintf(body, sizeof(body),
	         "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32600,"
	         "\"message\":\"%s\"}}",
	         message);
	return reply(c, code, "application/json", body, NULL);
}

/* Loopback origins (any port) and the configured ones are allowed. */
static bool origin_ok(const struct http *h, const char *origin)
{
	static const char *const loop[] = { "localhost", "127.0.0.1", "[::1]" };
	const char *host;

	if (!origin)
		return true; /* not a browser: nothing to rebind */
	for (size_t i = 0; h->opts->origins && h->opts->origins[i]; i++)
		if (!strcmp(origin, h->opts->origins[i]))
			return true;
	if (!strncmp(origin, "http://", 7))
		host = origin + 7;
	else if (!strncmp(origin, "https://", 8))
		host = origin + 8;
	else
		return false;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(loop); i++) {
		size_t n = strlen(loop[i]);

		if (!strncmp(host, loop[i], n) &&
		    (!host[n] || (host[n] == ':' &&
		                  strspn(host + n + 1, "0123456789") ==
		                          strlen(host + n + 1) &&
		                  host[n + 1])))
			return true;
	}
	return false;
}

/*
 * On a loopback address, the Host header must name it too: a page whose
 * name was rebound to 127.0.0.1 sends its own name. `host` may carry a
 * port; IPv6 literals come in brackets.
 */
static bool host_ok(const struct http *h, const char *host)
{
	const char *names[] = { "localhost", "127.0.0.1", "[::1]", h->host };
	size_t len;

	if (!h->loopback || !host)
		return true;
	len = strlen(host);
	if (host[0] == '[') {
		const char *end = strchr(host, ']');

		len = end ? (size_t)(end - host) + 1 : len;
	} else if (strchr(host, ':')) {
		len = (size_t)(strchr(host, ':') - host);
	}
	if (host[len] &&
	    (host[len] != ':' || !host[len + 1] ||
	     strspn(host + len + 1, "0123456789") != strlen(host + len + 1)))
		return false;
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(names); i++) {
		size_t n = strlen(names[i]);

		if (n == len && !strncasecmp(host, names[i], n))
			return true;
		/* an IPv6 address given bare, found in brackets */
		if (host[0] == '[' && n + 2 == len &&
		    !strncasecmp(host + 1, names[i], n))
			return true;
	}
	return false;
}

/* Constant-time comparison of the bearer token. */
static bool token_ok(const struct http *h, const char *auth)
{
	const char *tok = h->opts->token;
	size_t n, m;
	unsigned char diff = 0;

	if (!tok)
		return true;
	if (!auth || strncmp(auth, "Bearer ", 7))
		return false;
	auth += 7;
	n = strlen(tok);
	m = strlen(auth);
	for (size_t i = 0; i < n; i++)
		diff |= (unsigned char)(tok[i] ^ (i < m ? auth[i] : 0));
	return !diff && n == m;
}

static bool is_initialize(const char *body, size_t len)
{
	json_t *j = json_loadb(body, len, 0, NULL);
	bool yes = json_is_object(j) &&
	           json_is_string(json_object_get(j, "method")) &&
	           !strcmp(json_string_value(json_object_get(j, "method")),
	                   "initialize");

	json_decref(j);
	return yes;
}

/* Answer one POSTed message (under the lock). */
static enum MHD_Result post(struct http *h, struct MHD_Connection *c,
                            struct req *rq)
{
	const char *sid = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	                                              "Mcp-Session-Id");
	const char *accept =
	        MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept");
	struct skit__mcp_session *s;
	struct skitx_buf out;
	skit_error err = { 0 };
	char *resp = NULL, *n;
	bool sse, opened = false;
	enum MHD_Result ret;
	int rc;

	if (rq->too_big)
		return refuse(c, 413, "message too large");
	if (is_initialize(skitx_buf_cstr(&rq->body),
	                  skitx_buf_len(&rq->body))) {
		s = skit__mcp_session_open(h->srv);
		if (!s)
			return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
			              "out of memory");
		opened = true;
	} else if (!sid) {
		return refuse(c, MHD_HTTP_BAD_REQUEST,
		              "missing Mcp-Session-Id: send initialize first");
	} else {
		s = skit__mcp_session_find(h->srv, sid);
		if (!s)
			return refuse(c, MHD_HTTP_NOT_FOUND, "unknown session");
	}
	rc = skit__mcp_handle(h->srv, s, skitx_buf_cstr(&rq->body),
	                      skitx_buf_len(&rq->body), &resp, &err);
	if (rc) {
		if (opened)
			skit__mcp_session_close(h->srv, s);
		return refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
		              "out of memory");
	}
	if (!resp)
		return reply(c, MHD_HTTP_ACCEPTED, "", "", NULL);
	sse = accept && strstr(accept, "text/event-stream") &&
	      (n = skit__mcp_next(s)) != NULL;
	skitx_buf_init(&out, 0);
	if (sse) {
		do {
			rc |= skitx_buf_printf(
			        &out, "event: message\ndata: %s\n\n", n);
			skitx_free(n);
		} while ((n = skit__mcp_next(s)));
		rc |= skitx_buf_printf(&out, "event: message\ndata: %s\n\n",
		                       resp);
	} else {
		rc = skitx_buf_puts(&out, resp);
	}
	skitx_free(resp);
	ret = rc ? refuse(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory")
	         : reply(c, MHD_HTTP_OK,
	                 sse ? "text/event-stream" : "application/json",
	                 skitx_buf_cstr(&out), opened ? s->id : NULL);
	skitx_buf_release(&out);
	return ret;
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
                               const char *url, const char *method,
                               const char *version, const char *upload,
                               size_t *upload_size, void **state)
{
	struct http *h = cls;
	struct req *rq = *state;
	const char *pv;
	enum MHD_Result ret;

	(void)version;
	if (!rq) {
		/* First call: headers only. Refuse early what must be. */
		if (!origin_ok(h, MHD_lookup_connection_value(
		                          c, MHD_HEADER_KIND, "Origin")))
			return refuse(c, MHD_HTTP_FORBIDDEN,
			              "origin not allowed");
		if (!host_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		                                            "Host")))
			return refuse(c, MHD_HTTP_FORBIDDEN,
			              "host not allowed");
		if (!token_ok(h, MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		                                             "Authorization")))
			return refuse(c, MHD_HTTP_UNAUTHORIZED,
			              "missing or wrong bearer token");
		if (strcmp(url, h->path))
			return refuse(c, MHD_HTTP_NOT_FOUND,
			              "no such endpoint");
		pv = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
		                                 "MCP-Protocol-Version");
		if (pv && !skit__mcp_version_ok(pv))
			return refuse(c, MHD_HTTP_BAD_REQUEST,
			              "unsupported MCP-Protocol-Version");
		rq = skitx_calloc(1, sizeof(*rq));
		if (!rq)
			return MHD_NO;
		skitx_buf_init(&rq->body, 0);
		*state = rq;
		return MHD_YES;
	}
	if (*upload_size) {
		if (!rq->too_big && skitx_buf_len(&rq->body) + *upload_size >
		                            skit__mcp_max_message(h->srv))
			rq->too_big = true;
		if (!rq->too_big &&
		    skitx_buf_add(&rq->body, upload, *upload_size))
			return MHD_NO;
		*upload_size = 0;
		return MHD_YES;
	}
	if (!strcmp(method, "GET"))
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "", "", NULL);
	pthread_mutex_lock(&h->lock);
	if (!strcmp(method, "DELETE")) {
		const char *sid = MHD_lookup_connection_value(
		        c, MHD_HEADER_KIND, "Mcp-Session-Id");
		struct skit__mcp_session *s =
		        sid ? skit__mcp_session_find(h->srv, sid) : NULL;

		if (s)
			skit__mcp_session_close(h->srv, s);
		ret = s ? reply(c, MHD_HTTP_OK, "", "", NULL)
		        : refuse(c, MHD_HTTP_NOT_FOUND, "unknown session");
	} else if (!strcmp(method, "POST")) {
		ret = post(h, c, rq);
	} else {
		ret = reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "", "", NULL);
	}
	pthread_mutex_unlock(&h->lock);
	return ret;
}

static void completed(void *cls, struct MHD_Connection *c, void **state,
                      enum MHD_RequestTerminationCode code)
{
	struct req *rq = *state;

	(void)cls, (void)c, (void)code;
	if (!rq)
		return;
	skitx_buf_release(&rq->body);
	skitx_free(rq);
	*state = NULL;
}

int skit_mcp_serve_http(skit_mcp_server *srv, const skit_mcp_http_options *opts,
                        const volatile int *stop, skit_error *err)
{
	struct sockaddr_in6 a6;
	struct sockaddr_in a4;
	struct sockaddr *sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	struct http h;
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD;
	const char *host;
	int wfd = -1, lfd, one = 1;

	assert(srv && opts);
	if (opts->version != SKIT_MCP_HTTP_VERSION || opts->port > 65535)
		return skit__error_set(err, SKIT_EUSAGE, 0, "bad HTTP options");
	/* Any local user can reach a loopback port: without a token, that
	 * user would run the scripts, with arguments of their choosing. */
	if (skit__mcp_scripts_allowed(srv) && (!opts->token || !*opts->token))
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "scripts over HTTP need a token: any "
		                       "local user could run them");
	host = opts->host ? opts->host : "127.0.0.1";
	memset(&a4, 0, sizeof(a4));
	memset(&a6, 0, sizeof(a6));
	if (inet_pton(AF_INET, host, &a4.sin_addr) == 1) {
		a4.sin_family = AF_INET;
		a4.sin_port = htons((uint16_t)opts->port);
		sa = (struct sockaddr *)&a4;
	} else if (inet_pton(AF_INET6, host, &a6.sin6_addr) == 1) {
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((uint16_t)opts->port);
		sa = (struct sockaddr *)&a6;
		flags |= MHD_USE_IPv6;
	} else {
		return skit__error_set(err, SKIT_EUSAGE, 0,
		                       "'%s' is not a numeric address", host);
	}
	h.srv = srv;
	h.opts = opts;
	h.host = host;
	h.loopback = sa == (struct sockaddr *)&a4
	                     ? (ntohl(a4.sin_addr.s_addr) >> 24) == 127
	                     : !memcmp(&a6.sin6_addr, &in6addr_loopback,
	                               sizeof(in6addr_loopback));
	h.path = opts->path ? opts->path : "/mcp";
	/* Bind here, not in libmicrohttpd, so a failure says why (the port
	 * is taken, the address is not ours...). */
	lfd = socket(sa->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, sa,
	         sa == (struct sockaddr *)&a4 ? sizeof(a4) : sizeof(a6)) < 0 ||
	    listen(lfd, 64) < 0) {
		int e = errno;

		if (lfd >= 0)
			close(lfd);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot listen on %s:%u: %s", host,
		                       opts->port, strerror(e));
	}
	pthread_mutex_init(&h.lock, NULL);
	d = MHD_start_daemon(
	        flags, (uint16_t)opts->port, NULL, NULL, handler, &h,
	        MHD_OPTION_LISTEN_SOCKET, lfd, MHD_OPTION_NOTIFY_COMPLETED,
	        completed, &h, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)60,
	        MHD_OPTION_CONNECTION_LIMIT, (unsigned int)64, MHD_OPTION_END);
	if (!d) {
		close(lfd);
		pthread_mutex_destroy(&h.lock);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "cannot listen on %s:%u", host,
		                       opts->port);
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	if (opts->on_ready)
		opts->on_ready(info ? info->port : opts->port, opts->payload);
	skit_mcp_server_watch(srv, &wfd, NULL);
	while (!stop || !*stop) {
		struct pollfd pf = { wfd, POLLIN, 0 };

		if (poll(&pf, wfd >= 0 ? 1 : 0, 200) > 0 &&
		    (pf.revents & POLLIN)) {
			pthread_mutex_lock(&h.lock);
			skit_mcp_server_changed(srv, NULL);
			pthread_mutex_unlock(&h.lock);
		}
	}
	MHD_stop_daemon(d);
	pthread_mutex_destroy(&h.lock);
	return skit__error_set(err, SKIT_ECANCELED, 0, "stopped");
}
