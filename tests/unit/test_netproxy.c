/* SPDX-License-Identifier: MIT */
/*
 * test_netproxy.c - the sandbox's filtering HTTP proxy against a local
 * server (tests/support/httpd.c): an allowed name is reached by plain
 * HTTP and through a CONNECT tunnel (the name mapped to 127.0.0.1 by the
 * proxy's test resolver), another name is refused, a denied subdomain
 * is refused, an allowed name that resolves to this host without the
 * mapping is refused, other ports are refused, malformed requests get a
 * 400; and the host rules on their own. A plain HTTP request reaches a
 * bare local listener with the URL's host as its one Host header.
 */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "support/httpd.h"
#include "lib/sandbox/netproxy.h"

static int listener(int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ASSERT(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	ASSERT_OK(listen(fd, 16));
	ASSERT_OK(getsockname(fd, (struct sockaddr *)&sa, &len));
	*port = ntohs(sa.sin_port);
	return fd;
}

static int dial_local(int port)
{
	struct sockaddr_in sa;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ASSERT(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_OK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)));
	return fd;
}

/* Read until `until` appears or the peer closes (10 s at most). */
static void read_until(int fd, char *buf, size_t cap, const char *until)
{
	size_t got = 0;

	buf[0] = '\0';
	while (got + 1 < cap) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		if (poll(&p, 1, 10000) <= 0)
			break;
		n = recv(fd, buf + got, cap - 1 - got, 0);
		if (n <= 0)
			break;
		got += (size_t)n;
		buf[got] = '\0';
		if (until && strstr(buf, until))
			break;
	}
}

/* Send `req` to the proxy on a new connection; the whole answer. */
static void ask(int pport, const char *req, char *buf, size_t cap,
                const char *until)
{
	int fd = dial_local(pport);

	ASSERT_EQ(send(fd, req, strlen(req), MSG_NOSIGNAL),
	          (ssize_t)strlen(req));
	read_until(fd, buf, cap, until);
	close(fd);
}

static void test_netproxy__rules(void)
{
	const char *const d[] = { "example.com", "!private.example.com",
		                  "other.org.", NULL };
	const char *const any[] = { "*", "!evil.net", NULL };

	ASSERT(skit__netproxy_host_allowed(d, "example.com"));
	ASSERT(skit__netproxy_host_allowed(d, "API.Example.COM."));
	ASSERT(!skit__netproxy_host_allowed(d, "badexample.com"));
	ASSERT(!skit__netproxy_host_allowed(d, "example.com.evil.net"));
	ASSERT(!skit__netproxy_host_allowed(d, "private.example.com"));
	ASSERT(!skit__netproxy_host_allowed(d, "a.private.example.com"));
	ASSERT(!skit__netproxy_host_allowed(d, "other.org"));
	ASSERT(!skit__netproxy_host_allowed(d, ""));
	ASSERT(skit__netproxy_host_allowed(any, "anything.test"));
	ASSERT(!skit__netproxy_host_allowed(any, "www.evil.net"));
	ASSERT(!skit__netproxy_host_allowed(NULL, "example.com"));
}

static void test_netproxy__serve(void)
{
	const char *const domains[] = { "allowed.test", "!no.allowed.test",
		                        "localhost", NULL };
	const char *const resolve[] = { "allowed.test=127.0.0.1",
		                        "no.allowed.test=127.0.0.1", NULL };
	struct skit__netproxy_opts o = { domains, resolve };
	struct skit__netproxy *px;
	httpd_response r = HTTPD_RESPONSE_INIT;
	struct httpd *h;
	char req[512], buf[4096], hdr[64];
	const char *url;
	int pport, lfd, sport, fd;

	ASSERT_OK(httpd_start(&h));
	url = httpd_url(h);
	sport = (int)strtol(strrchr(url, ':') + 1, NULL, 10);
	lfd = listener(&pport);
	ASSERT_OK(skit__netproxy_start(&px, lfd, &o, NULL));

	/* Plain HTTP to the allowed name: forwarded in origin form. */
	r.content_type = "text/plain";
	r.body = "hello-through-proxy";
	httpd_push(h, &r);
	snprintf(req, sizeof(req),
	         "GET http://allowed.test:%d/data?q=1 HTTP/1.1\r\n"
	         "Host: allowed.test:%d\r\nProxy-Connection: keep-alive\r\n"
	         "\r\n",
	         sport, sport);
	ask(pport, req, buf, sizeof(buf), "hello-through-proxy");
	ASSERT_CONTAINS(buf, "HTTP/1.1 200");
	ASSERT_CONTAINS(buf, "hello-through-proxy");
	ASSERT_EQ(httpd_request_count(h), 1);
	ASSERT_STR(httpd_request_at(h, 0)->path, "/data?q=1");
	ASSERT(!httpd_header(httpd_request_at(h, 0), "Proxy-Connection", hdr,
	                     sizeof(hdr)));

	/* A CONNECT tunnel to the allowed name carries raw bytes. */
	r.body = "hello-through-tunnel";
	httpd_push(h, &r);
	fd = dial_local(pport);
	snprintf(req, sizeof(req),
	         "CONNECT allowed.test:%d HTTP/1.1\r\nHost: allowed.test:%d"
	         "\r\n\r\n",
	         sport, sport);
	ASSERT_EQ(send(fd, req, strlen(req), MSG_NOSIGNAL),
	          (ssize_t)strlen(req));
	read_until(fd, buf, sizeof(buf), "\r\n\r\n");
	ASSERT_CONTAINS(buf, "HTTP/1.1 200 Connection established");
	snprintf(req, sizeof(req),
	         "GET /tunnel HTTP/1.1\r\nHost: allowed.test\r\n"
	         "Connection: close\r\n\r\n");
	ASSERT_EQ(send(fd, req, strlen(req), MSG_NOSIGNAL),
	          (ssize_t)strlen(req));
	read_until(fd, buf, sizeof(buf), "hello-through-tunnel");
	ASSERT_CONTAINS(buf, "hello-through-tunnel");
	close(fd);
	ASSERT_EQ(httpd_request_count(h), 2);
	ASSERT_STR(httpd_request_at(h, 1)->path, "/tunnel");

	/* Another name, a denied subdomain: 403, nothing reaches the
	 * server. */
	snprintf(req, sizeof(req), "CONNECT other.test:%d HTTP/1.1\r\n\r\n",
	         sport);
	ask(pport, req, buf, sizeof(buf), NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 403");
	ASSERT_CONTAINS(buf, "host not allowed: other.test");
	snprintf(req, sizeof(req),
	         "GET http://no.allowed.test:%d/ HTTP/1.1\r\n\r\n", sport);
	ask(pport, req, buf, sizeof(buf), NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 403");
	/* An allowed name that leads to this host: refused, and only ports
	 * 80 and 443 are dialled without the test mapping. */
	ask(pport, "CONNECT localhost:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf),
	    NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 403");
	ASSERT_CONTAINS(buf, "address not allowed");
	snprintf(req, sizeof(req), "CONNECT localhost:%d HTTP/1.1\r\n\r\n",
	         sport);
	ask(pport, req, buf, sizeof(buf), NULL);
	ASSERT_CONTAINS(buf, "only ports 80 and 443");
	ASSERT_EQ(httpd_request_count(h), 2);

	/* Malformed requests. */
	ask(pport, "GET /relative HTTP/1.1\r\n\r\n", buf, sizeof(buf), NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 400");
	ask(pport, "CONNECT allowed.test HTTP/1.1\r\n\r\n", buf, sizeof(buf),
	    NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 400");
	ask(pport, "CONNECT a\"b:443 HTTP/1.1\r\n\r\n", buf, sizeof(buf), NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 400");
	ask(pport, "garbage\r\n\r\n", buf, sizeof(buf), NULL);
	ASSERT_CONTAINS(buf, "HTTP/1.1 400");

	/* Stop with a connection still open and idle; what it did is
	 * counted (the audit trail records it): the two forwarded, the
	 * four refused and four malformed requests. */
	fd = dial_local(pport);
	{
		struct skit__netproxy_counts pc = { 99, 99 };

		skit__netproxy_stop(px, &pc);
		ASSERT_EQ(pc.forwarded, 2);
		ASSERT_EQ(pc.refused, 8);
	}
	close(fd);
	httpd_stop(h);
}

/*
 * What the upstream listener `ufd` receives for one request sent through
 * the proxy on port `pport`: the client sends `req`, the server reads
 * until the client's bytes stop (200 ms quiet), answers and closes. The
 * bytes the server got are in `got`, the proxy's answer in `answer`.
 */
static void through(int pport, int ufd, const char *req, char *got, size_t cap,
                    char *answer, size_t acap)
{
	static const char resp[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
	                           "Connection: close\r\n\r\nok";
	struct pollfd p = { ufd, POLLIN, 0 };
	int cfd = dial_local(pport), sfd;
	size_t n = 0;

	ASSERT_EQ(send(cfd, req, strlen(req), MSG_NOSIGNAL),
	          (ssize_t)strlen(req));
	ASSERT(poll(&p, 1, 10000) == 1);
	sfd = accept(ufd, NULL, NULL);
	ASSERT(sfd >= 0);
	got[0] = '\0';
	for (;;) {
		struct pollfd q = { sfd, POLLIN, 0 };
		ssize_t r;

		if (poll(&q, 1, n ? 200 : 10000) <= 0)
			break;
		r = recv(sfd, got + n, cap - 1 - n, 0);
		if (r <= 0)
			break;
		n += (size_t)r;
		got[n] = '\0';
	}
	ASSERT_EQ(send(sfd, resp, sizeof(resp) - 1, MSG_NOSIGNAL),
	          (ssize_t)sizeof(resp) - 1);
	close(sfd);
	read_until(cfd, answer, acap, NULL);
	close(cfd);
}

/* How many times `needle` occurs in `hay`, ignoring case. */
static int count_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	int k = 0;

	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			k++;
	return k;
}

/*
 * Security issue 28: a request for an allowed host carrying
 * "Host: evil.example" was forwarded with that Host, so a server that
 * routes by Host (a CDN, a shared front end) served the other site. The
 * proxy now writes the URL's host as the only Host, forwards one
 * request and its body and nothing after (no pipelined second request
 * with a Host of its own), and refuses header lines a server could read
 * as a Host the proxy did not see.
 */
static void test_netproxy__host_header(void)
{
	const char *const domains[] = { "allowed.test", NULL };
	const char *const resolve[] = { "allowed.test=127.0.0.1", NULL };
	struct skit__netproxy_opts o = { domains, resolve };
	static const char *const refused[] = {
		/* a folded line, a bare LF, a blank in a name */
		"X-A: 1\r\n Host: evil.example\r\n",
		"X-A: 1\nHost: evil.example\r\n",
		"Host : evil.example\r\n",
		"X-A 1\r\n",
		"Transfer-Encoding: chunked\r\n",
		"Content-Length: 1\r\nContent-Length: 2\r\n",
		"Content-Length: x\r\n",
	};
	struct skit__netproxy *px;
	char req[1024], got[4096], ans[4096], want[128];
	int pport, lfd, ufd, uport;

	ufd = listener(&uport);
	lfd = listener(&pport);
	ASSERT_OK(skit__netproxy_start(&px, lfd, &o, NULL));
	snprintf(want, sizeof(want), "\r\nHost: allowed.test:%d\r\n", uport);

	/* Another site's Host: replaced by the URL's. */
	snprintf(req, sizeof(req),
	         "GET http://allowed.test:%d/x HTTP/1.1\r\n"
	         "Host: evil.example\r\nAccept: */*\r\n\r\n",
	         uport);
	through(pport, ufd, req, got, sizeof(got), ans, sizeof(ans));
	ASSERT_CONTAINS(ans, "HTTP/1.1 200");
	ASSERT(!strstr(got, "evil.example"));
	ASSERT_CONTAINS(got, "GET /x HTTP/1.1\r\n");
	ASSERT_CONTAINS(got, want);
	ASSERT_EQ(count_ci(got, "\nhost:"), 1);
	ASSERT_CONTAINS(got, "Accept: */*\r\n");

	/* Two Host headers, in any case, and none at all. */
	snprintf(req, sizeof(req),
	         "GET http://ALLOWED.test:%d/x HTTP/1.1\r\n"
	         "hOST: evil.example\r\nHost: allowed.test:%d\r\n\r\n",
	         uport, uport);
	through(pport, ufd, req, got, sizeof(got), ans, sizeof(ans));
	ASSERT(!strstr(got, "evil.example"));
	ASSERT_CONTAINS(got, want);
	ASSERT_EQ(count_ci(got, "\nhost:"), 1);
	snprintf(req, sizeof(req),
	         "GET http://allowed.test:%d/x HTTP/1.1\r\n\r\n", uport);
	through(pport, ufd, req, got, sizeof(got), ans, sizeof(ans));
	ASSERT_CONTAINS(got, want);

	/* A second request pipelined behind the first never leaves. */
	snprintf(req, sizeof(req),
	         "POST http://allowed.test:%d/a HTTP/1.1\r\n"
	         "Content-Length: 5\r\n\r\nhello"
	         "GET /b HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	         uport);
	through(pport, ufd, req, got, sizeof(got), ans, sizeof(ans));
	ASSERT_CONTAINS(got, "POST /a HTTP/1.1\r\n");
	ASSERT_CONTAINS(got, "\r\n\r\nhello");
	ASSERT(!strstr(got, "evil.example"));
	ASSERT(!strstr(got, "GET /b"));
	snprintf(req, sizeof(req),
	         "GET http://allowed.test:%d/a HTTP/1.1\r\n\r\n"
	         "GET /b HTTP/1.1\r\nHost: evil.example\r\n\r\n",
	         uport);
	through(pport, ufd, req, got, sizeof(got), ans, sizeof(ans));
	ASSERT(!strstr(got, "GET /b"));

	/* Header lines a server could read another way: 400, and nothing
	 * is dialled. */
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(refused); i++) {
		struct pollfd p = { ufd, POLLIN, 0 };

		snprintf(req, sizeof(req),
		         "GET http://allowed.test:%d/x HTTP/1.1\r\n%s\r\n",
		         uport, refused[i]);
		ask(pport, req, ans, sizeof(ans), NULL);
		if (!strstr(ans, "HTTP/1.1 400"))
			HARNESS_FAIL("not refused: %s", refused[i]);
		ASSERT_EQ(poll(&p, 1, 100), 0);
	}
	/* The same in the request line: a bare LF there would start a
	 * header line of its own at the server. */
	for (int i = 0; i < 3; i++) {
		struct pollfd p = { ufd, POLLIN, 0 };

		snprintf(req, sizeof(req),
		         i == 0   ? "GET http://allowed.test:%d/x HTTP/1.1\n"
		                    "Host: evil.example\r\n\r\n"
		         : i == 1 ? "GET http://allowed.test:%d/x\nHost:evil "
		                    "HTTP/1.1\r\n\r\n"
		                  : "G\tT http://allowed.test:%d/x HTTP/1.1"
		                    "\r\n\r\n",
		         uport);
		ask(pport, req, ans, sizeof(ans), NULL);
		if (!strstr(ans, "HTTP/1.1 400"))
			HARNESS_FAIL("request line %d not refused", i);
		ASSERT_EQ(poll(&p, 1, 100), 0);
	}
	skit__netproxy_stop(px, NULL);
	close(ufd);
}

TEST_MAIN(TEST(test_netproxy__rules) TEST(test_netproxy__serve)
                  TEST(test_netproxy__host_header))
