/* SPDX-License-Identifier: MIT */
/*
 * test_netproxy.c - the sandbox's filtering HTTP proxy against a local
 * server (tests/support/httpd.c): an allowed name is reached by plain
 * HTTP and through a CONNECT tunnel (the name mapped to 127.0.0.1 by the
 * proxy's test resolver), another name is refused, a denied subdomain
 * is refused, an allowed name that resolves to this host without the
 * mapping is refused, other ports are refused, malformed requests get a
 * 400; and the host rules on their own.
 */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"
#include "support/httpd.h"
#include "lib/netproxy.h"

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

	/* Stop with a connection still open and idle. */
	fd = dial_local(pport);
	skit__netproxy_stop(px);
	close(fd);
	httpd_stop(h);
}

TEST_MAIN(TEST(test_netproxy__rules) TEST(test_netproxy__serve))
