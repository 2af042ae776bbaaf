/* SPDX-License-Identifier: MIT */
/*
 * httpd.c - the scripted test HTTP server. See httpd.h.
 *
 * One thread polls the listening socket, a wake-up pipe and the open
 * connections; a connection with bytes waiting gets one whole request
 * read (with a deadline, so a broken client cannot hang a test) and
 * answered. Writes use MSG_NOSIGNAL: a client that timed out and left
 * must not kill the test with SIGPIPE.
 */
#include "common.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "support/httpd.h"
#include "util/buf.h"

#define MAX_CONNS   16
#define HEAD_MAX    (1024 * 1024)
#define BODY_MAX    (64 * 1024 * 1024)
#define IO_DEADLINE 10000 /* ms to wait for a request's next bytes */

struct conn {
	int fd;
	char *buf; /* bytes read but not yet used */
	size_t len, alloc;
};

struct queued {
	httpd_response r;
	char *content_type, *headers, *body;
};

struct httpd {
	int lfd;
	int wake[2];
	char url[64];
	pthread_t thread;
	pthread_mutex_t lock;
	bool stop;
	struct conn conns[MAX_CONNS];
	size_t nconns;
	size_t accepted;
	struct queued *queue;
	size_t qhead, qlen, qalloc;
	httpd_request *reqs;
	size_t nreqs, reqalloc;
};

static void die(const char *what)
{
	fprintf(stderr, "httpd: %s: %s\n", what, strerror(errno));
	abort();
}

static void *xrealloc(void *p, size_t n)
{
	p = skitx_realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *c;

	if (!s)
		return NULL;
	c = skitx_strdup(s);
	if (!c)
		die("out of memory");
	return c;
}

/* Wait up to `ms` for the wake pipe: true when told to stop. */
static bool wait_ms(struct httpd *h, int ms)
{
	struct pollfd p = { h->wake[0], POLLIN, 0 };

	if (ms <= 0)
		return false;
	return poll(&p, 1, ms) > 0;
}

/* Read more bytes into `c`; false on EOF, error or deadline. */
static bool fill(struct httpd *h, struct conn *c)
{
	struct pollfd p[2] = { { c->fd, POLLIN, 0 },
		               { h->wake[0], POLLIN, 0 } };
	ssize_t n;

	if (poll(p, 2, IO_DEADLINE) <= 0 || p[1].revents)
		return false;
	if (c->alloc - c->len < 65536) {
		c->alloc = c->alloc * 2 + 65536;
		c->buf = xrealloc(c->buf, c->alloc);
	}
	n = recv(c->fd, c->buf + c->len, c->alloc - c->len - 1, 0);
	if (n <= 0)
		return false;
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	return true;
}

static void consume(struct conn *c, size_t n)
{
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
	if (c->buf)
		c->buf[c->len] = '\0';
}

/* Make sure `n` bytes are buffered. */
static bool need(struct httpd *h, struct conn *c, size_t n)
{
	while (c->len < n)
		if (!fill(h, c))
			return false;
	return true;
}

/* Position of "\r\n" at or after `from`, reading more as needed. */
static bool find_crlf(struct httpd *h, struct conn *c, size_t from, size_t *at)
{
	char *p;

	for (;;) {
		if (c->len > from) {
			p = c->buf ? strstr(c->buf + from, "\r\n") : NULL;
			if (p) {
				*at = (size_t)(p - c->buf);
				return true;
			}
		}
		if (c->len > HEAD_MAX || !fill(h, c))
			return false;
	}
}

static const char *find_header(const char *headers, const char *name,
                               size_t *len)
{
	size_t nlen = strlen(name);
	const char *p = headers, *eol;

	while (*p) {
		eol = strstr(p, "\r\n");
		if (!eol)
			eol = p + strlen(p);
		if ((size_t)(eol - p) > nlen && p[nlen] == ':' &&
		    !strncasecmp(p, name, nlen)) {
			p += nlen + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			*len = (size_t)(eol - p);
			return p;
		}
		p = *eol ? eol + 2 : eol;
	}
	return NULL;
}

const char *httpd_header(const httpd_request *r, const char *name, char *buf,
                         size_t size)
{
	const char *v;
	size_t len;

	v = find_header(r->headers, name, &len);
	if (!v)
		return NULL;
	snprintf(buf, size, "%.*s", (int)len, v);
	return buf;
}

/* Read one request from `c` into `req`; false when the client left. */
static bool read_request(struct httpd *h, struct conn *c, httpd_request *req)
{
	size_t end, line_end, len, at, tlen = 0;
	char *head, *sp, *sp2, tmp[32];
	const char *v, *te;
	struct skitx_buf body = SKITX_BUF_INIT;

	memset(req, 0, sizeof(*req));
	/* The head ends with an empty line. */
	for (;;) {
		char *p = c->buf ? strstr(c->buf, "\r\n\r\n") : NULL;

		if (p) {
			end = (size_t)(p - c->buf) + 4;
			break;
		}
		if (c->len > HEAD_MAX || !fill(h, c))
			return false;
	}
	head = skitx_strndup(c->buf, end - 2);
	if (!head)
		die("out of memory");
	consume(c, end);
	line_end = (size_t)(strstr(head, "\r\n") - head);
	sp = memchr(head, ' ', line_end);
	sp2 = sp ? memchr(sp + 1, ' ', line_end - (size_t)(sp + 1 - head))
	         : NULL;
	if (sp && sp2) {
		snprintf(req->method, sizeof(req->method), "%.*s",
		         (int)(sp - head), head);
		snprintf(req->path, sizeof(req->path), "%.*s",
		         (int)(sp2 - sp - 1), sp + 1);
	}
	req->headers = xstrdup(head + line_end + 2);
	skitx_free(head);

	skitx_buf_init(&body, BODY_MAX);
	v = find_header(req->headers, "content-length", &len);
	te = find_header(req->headers, "transfer-encoding", &tlen);
	if (v) {
		snprintf(tmp, sizeof(tmp), "%.*s", (int)len, v);
		len = (size_t)strtoull(tmp, NULL, 10);
		if (!need(h, c, len))
			goto fail;
		skitx_buf_add(&body, c->buf, len);
		consume(c, len);
	} else if (te && tlen >= 7 && !strncasecmp(te, "chunked", 7)) {
		for (;;) {
			if (!find_crlf(h, c, 0, &at))
				goto fail;
			len = (size_t)strtoull(c->buf, NULL, 16);
			consume(c, at + 2);
			if (!len)
				break;
			if (!need(h, c, len + 2))
				goto fail;
			skitx_buf_add(&body, c->buf, len);
			consume(c, len + 2);
		}
		/* Trailers, then the empty line. */
		for (;;) {
			if (!find_crlf(h, c, 0, &at))
				goto fail;
			consume(c, at + 2);
			if (!at)
				break;
		}
	}
	req->body_len = skitx_buf_len(&body);
	req->body = skitx_buf_detach(&body, NULL);
	if (!req->body)
		die("out of memory");
	return true;
fail:
	skitx_buf_release(&body);
	return false;
}

static bool send_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w <= 0)
			return false;
		p += w;
		n -= (size_t)w;
	}
	return true;
}

static bool pop(struct httpd *h, struct queued *out)
{
	bool ok = false;

	pthread_mutex_lock(&h->lock);
	if (h->qhead < h->qlen) {
		*out = h->queue[h->qhead++];
		ok = true;
	}
	pthread_mutex_unlock(&h->lock);
	return ok;
}

static const char *reason(int status)
{
	return status < 300 ? "OK" : status < 500 ? "Client Error" : "Error";
}

/* Answer one request; false when the connection must close. */
static bool respond(struct httpd *h, struct conn *c)
{
	struct queued q;
	struct skitx_buf out = SKITX_BUF_INIT;
	const char *body;
	size_t blen, sent = 0, piece, limit;
	bool keep = true, ok = true;
	int status;

	if (!pop(h, &q)) {
		memset(&q, 0, sizeof(q));
		q.r.status = 500;
		q.body = xstrdup("{\"error\":{\"message\":\"httpd: no "
		                 "scripted response\"}}");
	}
	if (wait_ms(h, q.r.delay_ms)) {
		ok = false;
		goto out;
	}
	status = q.r.status ? q.r.status : 200;
	body = q.body ? q.body : "";
	blen = q.r.body_len ? q.r.body_len : strlen(body);
	limit = q.r.cut_after && q.r.cut_after < blen ? q.r.cut_after : blen;
	if (q.r.cut_after)
		keep = false;
	skitx_buf_printf(&out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n%s",
	                 status, reason(status),
	                 q.content_type ? q.content_type : "application/json",
	                 q.headers ? q.headers : "");
	if (q.r.chunk)
		skitx_buf_puts(&out, "Transfer-Encoding: chunked\r\n");
	else
		skitx_buf_printf(&out, "Content-Length: %zu\r\n", blen);
	skitx_buf_printf(&out, "Connection: %s\r\n\r\n",
	                 keep ? "keep-alive" : "close");
	if (!q.r.chunk) {
		skitx_buf_add(&out, body, limit);
		ok = send_all(c->fd, skitx_buf_cstr(&out), skitx_buf_len(&out));
		goto out;
	}
	ok = send_all(c->fd, skitx_buf_cstr(&out), skitx_buf_len(&out));
	while (ok && sent < limit) {
		piece = limit - sent < q.r.chunk ? limit - sent : q.r.chunk;
		skitx_buf_clear(&out);
		skitx_buf_printf(&out, "%zx\r\n", piece);
		skitx_buf_add(&out, body + sent, piece);
		skitx_buf_puts(&out, "\r\n");
		ok = send_all(c->fd, skitx_buf_cstr(&out), skitx_buf_len(&out));
		sent += piece;
		if (ok && sent < limit && wait_ms(h, q.r.chunk_delay_ms))
			ok = false;
	}
	if (ok && !q.r.cut_after)
		ok = send_all(c->fd, "0\r\n\r\n", 5);
out:
	skitx_buf_release(&out);
	skitx_free(q.content_type);
	skitx_free(q.headers);
	skitx_free(q.body);
	return ok && keep;
}

static void record(struct httpd *h, httpd_request *req)
{
	pthread_mutex_lock(&h->lock);
	if (h->nreqs == h->reqalloc) {
		h->reqalloc = h->reqalloc * 2 + 8;
		h->reqs = xrealloc(h->reqs, h->reqalloc * sizeof(*h->reqs));
	}
	h->reqs[h->nreqs++] = *req;
	pthread_mutex_unlock(&h->lock);
}

static void close_conn(struct httpd *h, size_t i)
{
	close(h->conns[i].fd);
	skitx_free(h->conns[i].buf);
	h->conns[i] = h->conns[--h->nconns];
}

static void *serve(void *arg)
{
	struct httpd *h = arg;
	struct pollfd p[MAX_CONNS + 2];
	httpd_request req;
	int fd;

	for (;;) {
		p[0] = (struct pollfd){ h->wake[0], POLLIN, 0 };
		p[1] = (struct pollfd){ h->lfd, POLLIN, 0 };
		for (size_t i = 0; i < h->nconns; i++)
			p[i + 2] = (struct pollfd){ h->conns[i].fd, POLLIN, 0 };
		if (poll(p, h->nconns + 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (p[0].revents)
			break;
		/* Serve connections first; their indexes match p[] only
		 * until one closes, so handle one per round. */
		for (size_t i = 0; i < h->nconns; i++) {
			if (!p[i + 2].revents)
				continue;
			if (!read_request(h, &h->conns[i], &req)) {
				skitx_free(req.headers);
				close_conn(h, i);
				break;
			}
			record(h, &req);
			if (!respond(h, &h->conns[i]))
				close_conn(h, i);
			break;
		}
		if (p[1].revents) {
			fd = accept(h->lfd, NULL, NULL);
			if (fd < 0)
				continue;
			if (h->nconns == MAX_CONNS)
				close_conn(h, 0);
			memset(&h->conns[h->nconns], 0, sizeof(struct conn));
			h->conns[h->nconns++].fd = fd;
			pthread_mutex_lock(&h->lock);
			h->accepted++;
			pthread_mutex_unlock(&h->lock);
		}
	}
	return NULL;
}

int httpd_start(struct httpd **out)
{
	struct sockaddr_in sa;
	socklen_t slen = sizeof(sa);
	struct httpd *h;
	int one = 1;

	h = skitx_calloc(1, sizeof(*h));
	if (!h)
		die("out of memory");
	pthread_mutex_init(&h->lock, NULL);
	if (pipe(h->wake))
		die("pipe");
	h->lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (h->lfd < 0)
		die("socket");
	setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = 0;
	if (bind(h->lfd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(h->lfd, 16) ||
	    getsockname(h->lfd, (struct sockaddr *)&sa, &slen)) {
		close(h->lfd);
		close(h->wake[0]);
		close(h->wake[1]);
		skitx_free(h);
		return -1;
	}
	snprintf(h->url, sizeof(h->url), "http://127.0.0.1:%u",
	         (unsigned int)ntohs(sa.sin_port));
	if (pthread_create(&h->thread, NULL, serve, h))
		die("pthread_create");
	*out = h;
	return 0;
}

void httpd_stop(struct httpd *h)
{
	if (!h)
		return;
	if (write(h->wake[1], "x", 1) != 1)
		die("write");
	pthread_join(h->thread, NULL);
	while (h->nconns)
		close_conn(h, 0);
	close(h->lfd);
	close(h->wake[0]);
	close(h->wake[1]);
	for (size_t i = h->qhead; i < h->qlen; i++) {
		skitx_free(h->queue[i].content_type);
		skitx_free(h->queue[i].headers);
		skitx_free(h->queue[i].body);
	}
	skitx_free(h->queue);
	for (size_t i = 0; i < h->nreqs; i++) {
		skitx_free(h->reqs[i].headers);
		skitx_free(h->reqs[i].body);
	}
	skitx_free(h->reqs);
	pthread_mutex_destroy(&h->lock);
	skitx_free(h);
}

const char *httpd_url(const struct httpd *h)
{
	return h->url;
}

void httpd_push(struct httpd *h, const httpd_response *r)
{
	struct queued q;

	q.r = *r;
	q.content_type = xstrdup(r->content_type);
	q.headers = xstrdup(r->headers);
	if (r->body && r->body_len) {
		q.body = xrealloc(NULL, r->body_len + 1);
		memcpy(q.body, r->body, r->body_len);
		q.body[r->body_len] = '\0';
	} else {
		q.body = xstrdup(r->body);
		q.r.body_len = 0;
	}
	pthread_mutex_lock(&h->lock);
	if (h->qlen == h->qalloc) {
		h->qalloc = h->qalloc * 2 + 8;
		h->queue = xrealloc(h->queue, h->qalloc * sizeof(*h->queue));
	}
	h->queue[h->qlen++] = q;
	pthread_mutex_unlock(&h->lock);
}

void httpd_push_json(struct httpd *h, int status, const char *body)
{
	httpd_response r = HTTPD_RESPONSE_INIT;

	r.status = status;
	r.body = body;
	httpd_push(h, &r);
}

void httpd_push_file(struct httpd *h, const httpd_response *r, const char *path)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	httpd_response copy = *r;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f)
		die(path);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (skitx_buf_add(&b, chunk, n))
			die("out of memory");
	if (ferror(f))
		die(path);
	fclose(f);
	copy.body = skitx_buf_cstr(&b);
	copy.body_len = skitx_buf_len(&b);
	httpd_push(h, &copy);
	skitx_buf_release(&b);
}

size_t httpd_request_count(struct httpd *h)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->nreqs;
	pthread_mutex_unlock(&h->lock);
	return n;
}

const httpd_request *httpd_request_at(struct httpd *h, size_t i)
{
	const httpd_request *r = NULL;

	pthread_mutex_lock(&h->lock);
	if (i < h->nreqs)
		r = &h->reqs[i];
	pthread_mutex_unlock(&h->lock);
	return r;
}

size_t httpd_connections(struct httpd *h)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->accepted;
	pthread_mutex_unlock(&h->lock);
	return n;
}
