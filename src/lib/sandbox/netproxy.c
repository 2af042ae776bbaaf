/* SPDX-License-Identifier: MIT */
/*
 * netproxy.c - the filtering HTTP proxy of sandboxed programs (see
 * netproxy.h).
 *
 * One acceptor thread and one thread per connection (at most
 * MAX_CONNS). Every wait polls a stop pipe too, and every socket is
 * non-blocking, so skit__netproxy_stop() ends the whole proxy promptly
 * whatever the peers do. The request head is read whole (up to HEAD_MAX
 * bytes) before anything is dialled. A CONNECT tunnel is then a plain
 * byte relay to the one host it named. A plain HTTP request is forwarded
 * alone, with the URL's host as its Host header: its body (Content-Length
 * bytes) and nothing after, so no second request, with a Host of its
 * own, rides the connection to an allowed host's server.
 */
#define _GNU_SOURCE /* accept4 */
#include "common.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lib/core/error.h"
#include "lib/core/netaddr.h"
#include "lib/sandbox/netproxy.h"
#include "util/buf.h"

#define MAX_CONNS       32
#define HEAD_MAX        16384
#define HOST_MAX        255
#define HEAD_TIMEOUT_MS 10000
#define DIAL_TIMEOUT_MS 10000
#define IDLE_TIMEOUT_MS 300000

struct slot {
	struct skit__netproxy *px;
	pthread_t th;
	bool used;
	int done; /* set by the connection thread as it ends (atomic) */
	int fd;
};

struct skit__netproxy {
	int lfd;
	int stop[2]; /* written once by stop; never read */
	pthread_t acceptor;
	char **domains, **resolve;
	struct slot slots[MAX_CONNS];
	unsigned long forwarded, refused; /* atomic */
};

/* ---- host rules ------------------------------------------------------- */

/* `host` is `pat` or a subdomain of it. */
static bool host_covers(const char *pat, const char *host)
{
	size_t pl = strlen(pat), hl = strlen(host);

	if (hl == pl)
		return !strcmp(pat, host);
	return pl && hl > pl && host[hl - pl - 1] == '.' &&
	       !strcmp(host + hl - pl, pat);
}

/* Lower case, no trailing dot; false when it does not fit. */
static bool host_norm(char *dst, size_t cap, const char *host)
{
	size_t n = strlen(host);

	if (n && host[n - 1] == '.')
		n--;
	if (!n || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)(host[i] >= 'A' && host[i] <= 'Z'
		                        ? host[i] - 'A' + 'a'
		                        : host[i]);
	dst[n] = '\0';
	return true;
}

bool skit__netproxy_host_allowed(const char *const *domains, const char *host)
{
	char h[HOST_MAX + 1];
	bool ok = false;

	if (!domains || !host_norm(h, sizeof(h), host))
		return false;
	for (size_t i = 0; domains[i]; i++) {
		const char *d = domains[i];

		if (d[0] == '!' && host_covers(d + 1, h))
			return false;
		if (d[0] != '!' && (!strcmp(d, "*") || host_covers(d, h)))
			ok = true;
	}
	return ok;
}

/* ---- sockets ---------------------------------------------------------- */

/* Wait for `events` on `fd` (or the stop pipe): 1 ready, 0 not. */
static int wait_fd(struct skit__netproxy *px, int fd, short events, int ms)
{
	struct pollfd p[2] = { { fd, events, 0 }, { px->stop[0], POLLIN, 0 } };
	int r;

	do
		r = poll(p, 2, ms);
	while (r < 0 && errno == EINTR);
	return r > 0 && !p[1].revents && p[0].revents ? 1 : 0;
}

static int send_all(struct skit__netproxy *px, int fd, const char *b, size_t n)
{
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (!wait_fd(px, fd, POLLOUT, IDLE_TIMEOUT_MS))
				return -1;
			continue;
		}
		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

static void reply(struct skit__netproxy *px, int fd, int code, const char *what,
                  const char *host)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg),
	                 "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	                 "Connection: close\r\n\r\nskit proxy: %s%s%s\n",
	                 code,
	                 code == 403   ? "Forbidden"
	                 : code == 502 ? "Bad Gateway"
	                               : "Bad Request",
	                 what, host ? ": " : "", host ? host : "");

	if (n > 0)
		send_all(px, fd, msg,
		         (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* A request refused: counted for the trail (skit__netproxy_counts). */
static void answer(struct skit__netproxy *px, int fd, int code,
                   const char *what, const char *host)
{
	__atomic_add_fetch(&px->refused, 1, __ATOMIC_RELAXED);
	reply(px, fd, code, what, host);
}

/* A mapped address from the test override, or NULL. */
static const char *mapped(struct skit__netproxy *px, const char *host)
{
	size_t hl = strlen(host);

	for (size_t i = 0; px->resolve && px->resolve[i]; i++)
		if (!strncmp(px->resolve[i], host, hl) &&
		    px->resolve[i][hl] == '=')
			return px->resolve[i] + hl + 1;
	return NULL;
}

/* Connect to host:port; -1 with *why set on failure. */
static int dial(struct skit__netproxy *px, const char *host, int port,
                const char **why)
{
	struct addrinfo hints, *res = NULL, *ai;
	const char *map = mapped(px, host);
	char service[16];
	int fd = -1;

	*why = "cannot reach host";
	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = map ? AI_NUMERICHOST : AI_ADDRCONFIG;
	snprintf(service, sizeof(service), "%d", port);
	if (getaddrinfo(map ? map : host, service, &hints, &res))
		return -1;
	for (ai = res; ai; ai = ai->ai_next) {
		int err = 0;
		socklen_t len = sizeof(err);

		if (!map && skit__addr_blocked(ai->ai_addr)) {
			*why = "address not allowed";
			continue;
		}
		fd = socket(ai->ai_family,
		            SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
			break;
		if (errno == EINPROGRESS &&
		    wait_fd(px, fd, POLLOUT, DIAL_TIMEOUT_MS) &&
		    !getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) && !err)
			break;
		*why = "cannot reach host";
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

/*
 * Copy bytes both ways until both sides are done, or stop, or idle. At
 * most `left` bytes go from `a` to `b`; what `a` sends past them is read
 * and dropped (a request pipelined behind the one forwarded).
 */
static void relay(struct skit__netproxy *px, int a, int b, uint64_t left)
{
	char buf[16384];
	bool open_in[2] = { true, true }; /* a readable, b readable */
	int fds[2] = { a, b };

	while (open_in[0] || open_in[1]) {
		struct pollfd p[3];
		int r;

		for (int i = 0; i < 2; i++) {
			p[i].fd = open_in[i] ? fds[i] : -1;
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		p[2].fd = px->stop[0];
		p[2].events = POLLIN;
		p[2].revents = 0;
		r = poll(p, 3, IDLE_TIMEOUT_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || p[2].revents)
			return;
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (!p[i].revents)
				continue;
			n = recv(fds[i], buf, sizeof(buf), 0);
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				/* Pass the end on; the other way may go on. */
				open_in[i] = false;
				shutdown(fds[!i], SHUT_WR);
				continue;
			}
			if (!i) {
				if ((uint64_t)n > left)
					n = (ssize_t)left;
				left -= (uint64_t)n;
			}
			if (n && send_all(px, fds[!i], buf, (size_t)n))
				return;
		}
	}
}

/* ---- one connection --------------------------------------------------- */

/* Read the request head; returns its length (through the blank line),
 * 0 when there is none. `*got` is every byte read. */
static size_t read_head(struct skit__netproxy *px, int fd, char *head,
                        size_t *got)
{
	*got = 0;
	while (*got < HEAD_MAX) {
		ssize_t n;
		char *end;

		if (!wait_fd(px, fd, POLLIN, HEAD_TIMEOUT_MS))
			return 0;
		n = recv(fd, head + *got, HEAD_MAX - *got, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return 0;
		*got += (size_t)n;
		head[*got] = '\0';
		end = strstr(head, "\r\n\r\n");
		if (end)
			return (size_t)(end - head) + 4;
	}
	return 0;
}

/*
 * Split "host[:port]" (IPv6 in brackets) of `len` bytes. A host name
 * has letters, digits, '-' and '.'; a literal address its own digits.
 */
static bool split_authority(const char *s, size_t len, char *host, int *port)
{
	const char *colon = NULL, *h = s;
	size_t hl;

	if (len && s[0] == '[') {
		const char *close = memchr(s, ']', len);

		if (!close)
			return false;
		h = s + 1;
		hl = (size_t)(close - h);
		if (close + 1 < s + len) {
			if (close[1] != ':')
				return false;
			colon = close + 1;
		}
	} else {
		colon = memchr(s, ':', len);
		hl = colon ? (size_t)(colon - s) : len;
	}
	if (!hl || hl > HOST_MAX)
		return false;
	for (size_t i = 0; i < hl; i++) {
		char c = h[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '-' || c == '.' ||
		      (h != s && c == ':')))
			return false;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	if (colon) {
		long v = 0;
		const char *e = s + len;

		if (colon + 1 == e || e - colon > 6)
			return false;
		for (const char *c = colon + 1; c < e; c++) {
			if (*c < '0' || *c > '9')
				return false;
			v = v * 10 + (*c - '0');
		}
		if (v < 1 || v > 65535)
			return false;
		*port = (int)v;
	}
	return true;
}

/* Whether the header named by `name` (`len` bytes) is `want`. */
static bool header_is(const char *name, size_t len, const char *want)
{
	return len == strlen(want) && !strncasecmp(name, want, len);
}

/* A header the proxy drops when forwarding: hop-by-hop ones, and Host,
 * which it writes itself. */
static bool dropped_header(const char *name, size_t len)
{
	static const char *const drop[] = { "connection", "proxy-connection",
		                            "proxy-authorization", "keep-alive",
		                            "host" };

	for (size_t i = 0; i < SKIT_ARRAY_SIZE(drop); i++)
		if (header_is(name, len, drop[i]))
			return true;
	return false;
}

/* A byte of a header name (RFC 9110 "tchar"). */
static bool tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/*
 * The headers of a plain HTTP request, from `line` to the blank line at
 * `end`, copied to `out` as the proxy forwards them; NULL, or why the
 * request is refused. Only what a server would read one way is passed:
 * a folded line, a bare CR or LF, a name with a blank or a missing colon
 * could be read by the server as a header the proxy did not see (a Host
 * of its own), so they are refused rather than guessed at. The body's
 * length comes from Content-Length (none: 0); a chunked body is refused,
 * since its end could only be found by decoding it.
 */
static const char *copy_headers(struct skitx_buf *out, const char *line,
                                const char *end, uint64_t *body, int *rc)
{
	bool have_len = false;

	*body = 0;
	while (line < end) {
		const char *next = strstr(line, "\r\n");
		size_t len = (size_t)(next - line), nlen;
		const char *colon = memchr(line, ':', len);

		if (line[0] == ' ' || line[0] == '\t')
			return "folded header line";
		if (memchr(line, '\n', len) || memchr(line, '\r', len))
			return "bare CR or LF in a header";
		if (!colon || colon == line)
			return "malformed header";
		nlen = (size_t)(colon - line);
		for (size_t i = 0; i < nlen; i++)
			if (!tchar(line[i]))
				return "malformed header name";
		if (header_is(line, nlen, "transfer-encoding"))
			return "a chunked request body is not forwarded over "
			       "http:// (use https)";
		if (header_is(line, nlen, "content-length")) {
			const char *v = colon + 1, *e = next;
			uint64_t n = 0;

			while (v < e && (*v == ' ' || *v == '\t'))
				v++;
			while (e > v && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			if (v == e || e - v > 15)
				return "bad Content-Length";
			for (; v < e; v++) {
				if (*v < '0' || *v > '9')
					return "bad Content-Length";
				n = n * 10 + (uint64_t)(*v - '0');
			}
			if (have_len && n != *body)
				return "conflicting Content-Length";
			have_len = true;
			*body = n;
		}
		if (!dropped_header(line, nlen))
			*rc |= skitx_buf_add(out, line, len + 2);
		line = next + 2;
	}
	return NULL;
}

static void serve(struct skit__netproxy *px, int fd)
{
	char head[HEAD_MAX + 1], host[HOST_MAX + 1], norm[HOST_MAX + 1];
	const char *sp1, *sp2, *eol, *target, *path = "/", *why;
	size_t got, hlen, tlen, plen = 1;
	uint64_t body = UINT64_MAX;
	bool tunnel;
	int port = 80, up;
	struct skitx_buf out;

	hlen = read_head(px, fd, head, &got);
	if (!hlen) {
		/* A connection that sent no request is no request refused. */
		reply(px, fd, 400, "no request", NULL);
		return;
	}
	eol = strstr(head, "\r\n");
	sp1 = memchr(head, ' ', (size_t)(eol - head));
	sp2 = sp1 ? memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1)) : NULL;
	if (!sp2 || sp1 == head || eol - sp2 != 9 ||
	    strncmp(sp2 + 1, "HTTP/1.", 7) || sp2[8] < '0' || sp2[8] > '9') {
		answer(px, fd, 400, "not an HTTP/1 request", NULL);
		return;
	}
	/* The line goes out in pieces: none may hold a control byte (a
	 * bare LF would start a header line at the server). */
	for (const char *c = head; c < eol; c++) {
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			answer(px, fd, 400, "control byte in the request line",
			       NULL);
			return;
		}
	}
	for (const char *c = head; c < sp1; c++) {
		if (!tchar(*c)) {
			answer(px, fd, 400, "bad method", NULL);
			return;
		}
	}
	target = sp1 + 1;
	tlen = (size_t)(sp2 - target);
	tunnel = (size_t)(sp1 - head) == 7 && !strncmp(head, "CONNECT", 7);
	if (tunnel) {
		port = 0;
		if (!split_authority(target, tlen, host, &port) || !port) {
			answer(px, fd, 400, "CONNECT needs host:port", NULL);
			return;
		}
	} else {
		const char *auth;
		size_t alen;

		if (tlen < 8 || strncasecmp(target, "http://", 7)) {
			answer(px, fd, 400,
			       "expected an absolute http:// URL (use "
			       "CONNECT for https)",
			       NULL);
			return;
		}
		auth = target + 7;
		alen = strcspn(auth, "/?# ");
		if (auth + alen > sp2)
			alen = (size_t)(sp2 - auth);
		if (!split_authority(auth, alen, host, &port)) {
			answer(px, fd, 400, "bad host in URL", NULL);
			return;
		}
		if (auth + alen < sp2) {
			path = auth + alen;
			plen = (size_t)(sp2 - path);
		}
	}
	if (!host_norm(norm, sizeof(norm), host) ||
	    !skit__netproxy_host_allowed((const char *const *)px->domains,
	                                 norm)) {
		answer(px, fd, 403, "host not allowed", host);
		return;
	}
	if (port != 80 && port != 443 && !mapped(px, norm)) {
		answer(px, fd, 403, "only ports 80 and 443", host);
		return;
	}
	skitx_buf_init(&out, HEAD_MAX * 2);
	if (!tunnel) {
		/*
		 * Origin form, the headers minus hop-by-hop ones and Host,
		 * then the URL's own host as Host (RFC 9112 3.2.2: a proxy
		 * replaces the Host of an absolute-form request), and
		 * "Connection: close": one request per connection. A Host
		 * naming another site would otherwise reach it on an allowed
		 * site's server (a shared front end routes by Host).
		 */
		int rc = skitx_buf_add(&out, head, (size_t)(sp1 - head) + 1);

		if (path[0] == '/') {
			rc |= skitx_buf_add(&out, path, plen);
		} else {
			rc |= skitx_buf_putc(&out, '/');
			if (path[0] == '?')
				rc |= skitx_buf_add(&out, path, plen);
		}
		rc |= skitx_buf_add(&out, sp2, (size_t)(eol - sp2) + 2);
		why = copy_headers(&out, eol + 2, head + hlen - 2, &body, &rc);
		if (why) {
			answer(px, fd, 400, why, NULL);
			skitx_buf_release(&out);
			return;
		}
		rc |= skitx_buf_printf(
		        &out, strchr(norm, ':') ? "Host: [%s]" : "Host: %s",
		        norm);
		if (port != 80)
			rc |= skitx_buf_printf(&out, ":%d", port);
		rc |= skitx_buf_puts(&out, "\r\nConnection: close\r\n\r\n");
		if (rc) {
			skitx_buf_release(&out);
			return;
		}
	}
	up = dial(px, norm, port, &why);
	if (up < 0) {
		answer(px, fd, strcmp(why, "address not allowed") ? 502 : 403,
		       why, host);
		skitx_buf_release(&out);
		return;
	}
	__atomic_add_fetch(&px->forwarded, 1, __ATOMIC_RELAXED);
	if (tunnel) {
		static const char ok[] =
		        "HTTP/1.1 200 Connection established\r\n\r\n";

		if (send_all(px, fd, ok, sizeof(ok) - 1) ||
		    send_all(px, up, head + hlen, got - hlen))
			goto out;
	} else {
		/* The body's bytes read with the head, and no more: what
		 * follows it is another request, which would name its own
		 * Host. */
		size_t early = got - hlen;

		if ((uint64_t)early > body)
			early = (size_t)body;
		body -= early;
		if (skitx_buf_add(&out, head + hlen, early) ||
		    send_all(px, up, skitx_buf_cstr(&out), skitx_buf_len(&out)))
			goto out;
	}
	relay(px, fd, up, body);
out:
	skitx_buf_release(&out);
	close(up);
}

static void *conn_main(void *arg)
{
	struct slot *s = arg;

	serve(s->px, s->fd);
	close(s->fd);
	__atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* ---- the acceptor ----------------------------------------------------- */

static void reap(struct skit__netproxy *px, bool all)
{
	for (int i = 0; i < MAX_CONNS; i++) {
		struct slot *s = &px->slots[i];

		if (s->used &&
		    (all || __atomic_load_n(&s->done, __ATOMIC_ACQUIRE))) {
			pthread_join(s->th, NULL);
			s->used = false;
		}
	}
}

static void *accept_main(void *arg)
{
	struct skit__netproxy *px = arg;

	for (;;) {
		struct slot *s = NULL;
		int fd;

		reap(px, false);
		for (int i = 0; !s && i < MAX_CONNS; i++)
			if (!px->slots[i].used)
				s = &px->slots[i];
		if (!s) {
			/* Full: let the backlog hold new ones a moment. */
			struct pollfd p = { px->stop[0], POLLIN, 0 };

			if (poll(&p, 1, 20) > 0)
				break;
			continue;
		}
		if (!wait_fd(px, px->lfd, POLLIN, -1)) {
			struct pollfd p = { px->stop[0], POLLIN, 0 };

			if (poll(&p, 1, 0) > 0)
				break;
			continue;
		}
		fd = accept4(px->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EBADF || errno == EINVAL ||
			    errno == ENOTSOCK)
				break;
			continue;
		}
		s->px = px;
		s->fd = fd;
		s->done = 0;
		s->used = true;
		if (pthread_create(&s->th, NULL, conn_main, s)) {
			s->used = false;
			close(fd);
		}
	}
	reap(px, true);
	return NULL;
}

int skit__netproxy_start(struct skit__netproxy **out, int lfd,
                         const struct skit__netproxy_opts *o, skit_error *err)
{
	struct skit__netproxy *px;
	int fl;

	*out = NULL;
	px = skitx_calloc(1, sizeof(*px));
	if (px) {
		px->domains = skitx_strv_dup(o->domains);
		px->resolve = skitx_strv_dup(o->resolve);
	}
	if (!px || !px->domains || !px->resolve) {
		if (px) {
			skitx_strv_free(px->domains);
			skitx_strv_free(px->resolve);
		}
		skitx_free(px);
		close(lfd);
		return skit__error_oom(err);
	}
	px->lfd = lfd;
	fl = fcntl(lfd, F_GETFL);
	if (fl < 0 || fcntl(lfd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    pipe2(px->stop, O_CLOEXEC) < 0) {
		px->stop[0] = px->stop[1] = -1;
		skit__netproxy_stop(px, NULL);
		return skit__error_set(err, SKIT_EIO, 0, "proxy: %s",
		                       strerror(errno));
	}
	if (pthread_create(&px->acceptor, NULL, accept_main, px)) {
		close(px->stop[0]);
		close(px->stop[1]);
		px->stop[0] = px->stop[1] = -1;
		skit__netproxy_stop(px, NULL);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "proxy: cannot start a thread");
	}
	*out = px;
	return 0;
}

void skit__netproxy_stop(struct skit__netproxy *px,
                         struct skit__netproxy_counts *counts)
{
	if (counts)
		counts->forwarded = counts->refused = 0;
	if (!px)
		return;
	if (px->stop[1] >= 0) {
		/* Readable for good: every wait sees it. */
		ssize_t w = write(px->stop[1], "x", 1);

		(void)w;
		pthread_join(px->acceptor, NULL);
		close(px->stop[0]);
		close(px->stop[1]);
	}
	close(px->lfd);
	if (counts) {
		counts->forwarded =
		        __atomic_load_n(&px->forwarded, __ATOMIC_ACQUIRE);
		counts->refused =
		        __atomic_load_n(&px->refused, __ATOMIC_ACQUIRE);
	}
	skitx_strv_free(px->domains);
	skitx_strv_free(px->resolve);
	skitx_free(px);
}
