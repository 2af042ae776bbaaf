/* SPDX-License-Identifier: MIT */
/*
 * lsp_rpc.c - the Language Server Protocol's transport for the lsp tool
 * (lsp.h): start a server, frame JSON-RPC messages with Content-Length
 * headers over its stdin and stdout, wait for an answer with a deadline
 * and the agent's cancel flag, answer what the server asks of a client,
 * keep its diagnostics, and stop it.
 *
 * Everything the server sends is untrusted: a header block is at most
 * SKIT__LSP_MAX_HEADER bytes and must name a Content-Length of at most
 * SKIT__LSP_MAX_MESSAGE bytes, and the body must be a JSON object. A
 * server that breaks these rules is broken: it is stopped, and the call
 * gets an error. The socket never blocks, so a server that stops reading
 * or writing cannot hold the agent past the deadline.
 */
#define _GNU_SOURCE /* memmem: before any header */
#include "common.h"

#include <errno.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/core/child.h"
#include "lib/core/error.h"
#include "lib/tools/lsp.h"

#define SLICE_MS      100  /* the longest poll, so a cancel is seen soon */
#define SEND_MS       5000 /* to write one message */
#define SHUTDOWN_MS   1000 /* for the shutdown request's answer */
#define EXIT_GRACE_MS 1000 /* for the process to exit after `exit` */
#define REAP_MS       500  /* for it to exit once it closed its end */
#define TERM_MS       300  /* for it to exit after SIGTERM */
#define MAX_DIAG_URIS 1000 /* documents whose diagnostics are kept */

/* The environment a server gets: what finds programs and their caches,
 * never the user's secrets (API keys, tokens). */
static const char *const env_keep[] = {
	"PATH",           "HOME",
	"USER",           "LOGNAME",
	"LANG",           "LC_ALL",
	"LC_CTYPE",       "TMPDIR",
	"XDG_CACHE_HOME", "XDG_CONFIG_HOME",
	"XDG_DATA_HOME",  "GOPATH",
	"GOROOT",         "GOCACHE",
	"GOMODCACHE",     "CARGO_HOME",
	"RUSTUP_HOME",    "VIRTUAL_ENV",
};

extern char **environ;

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void skit__lsp_status_text(int st, char *buf, size_t cap)
{
	if (st < 0)
		snprintf(buf, cap, "not running");
	else if (WIFEXITED(st))
		snprintf(buf, cap, "exit status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, cap, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, cap, "status %d", st);
}

/* ---- starting --------------------------------------------------------- */

static bool env_kept(const char *e)
{
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(env_keep); i++) {
		size_t n = strlen(env_keep[i]);

		if (!strncmp(e, env_keep[i], n) && e[n] == '=')
			return true;
	}
	return false;
}

int skit__lsp_conn_start(struct skit__lsp_conn *c, const char *const *argv,
                         const char *cwd, skit_error *err)
{
	char **envp;
	size_t n = 0;
	int rc;

	assert(c && argv && argv[0]);
	c->fd = -1;
	c->pid = 0;
	c->status = -1;
	c->diag_seq = 0;
	skitx_buf_init(&c->in, 0);
	c->diags = json_object();
	if (!c->diags)
		return skit__error_oom(err);
	for (char **e = environ; e && *e; e++)
		n++;
	envp = skitx_calloc(n + 1, sizeof(char *));
	if (!envp) {
		json_decref(c->diags);
		c->diags = NULL;
		return skit__error_oom(err);
	}
	n = 0;
	for (char **e = environ; e && *e; e++)
		if (env_kept(*e))
			envp[n++] = *e;
	rc = skit__child_spawn(argv[0], (char *const *)argv, envp, cwd, &c->pid,
	                       &c->fd);
	skitx_free(envp);
	if (rc) {
		json_decref(c->diags);
		c->diags = NULL;
		return skit__error_set(err,
		                       rc == ENOENT ? SKIT_ENOTFOUND : SKIT_EIO,
		                       0, "%s", strerror(rc));
	}
	return 0;
}

/* ---- writing ---------------------------------------------------------- */

static void reap_soon(struct skit__lsp_conn *c);

/* The server no longer reads: most often because it exited, which the
 * error then says, with its status. */
static int closed_input(struct skit__lsp_conn *c, skit_error *err)
{
	char st[48];

	close(c->fd);
	c->fd = -1;
	reap_soon(c);
	if (c->status < 0)
		return skit__error_set(err, SKIT_EIO, 0, "it closed its input");
	skit__lsp_status_text(c->status, st, sizeof(st));
	return skit__error_set(err, SKIT_EIO, 0, "it exited (%s)", st);
}

/* Write all `len` bytes at `p` before `deadline`. */
static int send_all(struct skit__lsp_conn *c, const char *p, size_t len,
                    long long deadline, skit_error *err)
{
	size_t off = 0;

	while (off < len) {
		ssize_t w = send(c->fd, p + off, len - off, MSG_NOSIGNAL);
		struct pollfd pfd = { c->fd, POLLOUT, 0 };
		long long left;

		if (w >= 0) {
			off += (size_t)w;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return closed_input(c, err);
		left = deadline - now_ms();
		if (left <= 0)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "it stopped reading its input");
		(void)poll(&pfd, 1, left > SLICE_MS ? SLICE_MS : (int)left);
	}
	return 0;
}

/* Frame and send one message. A server that cannot take it is broken. */
static int send_msg(struct skit__lsp_conn *c, json_t *msg, skit_error *err)
{
	char *text, head[64];
	size_t len;
	long long deadline = now_ms() + SEND_MS;
	int rc;

	if (c->fd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "it is not running");
	text = json_dumps(msg, JSON_COMPACT);
	if (!text)
		return skit__error_oom(err);
	len = strlen(text);
	snprintf(head, sizeof(head), "Content-Length: %zu\r\n\r\n", len);
	rc = send_all(c, head, strlen(head), deadline, err);
	if (!rc)
		rc = send_all(c, text, len, deadline, err);
	free(text); /* jansson's allocation */
	return rc;
}

int skit__lsp_conn_notify(struct skit__lsp_conn *c, const char *method,
                          json_t *params, skit_error *err)
{
	json_t *n = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	int rc;

	if (!n || (params && json_object_set(n, "params", params))) {
		json_decref(n);
		return skit__error_oom(err);
	}
	rc = send_msg(c, n, err);
	json_decref(n);
	return rc;
}

/* ---- reading ---------------------------------------------------------- */

/* Case-insensitive: does the header line at `p` (`n` bytes) name `key`? */
static bool header_is(const char *p, size_t n, const char *key)
{
	size_t k = strlen(key);

	return n > k && p[k] == ':' && !strncasecmp(p, key, k);
}

/*
 * One whole message from the front of c->in: 1 and *msg (owned) when
 * there is one, 0 when more bytes are needed, or a negative status when
 * the server broke the framing (a header block over the cap or without a
 * Content-Length, a length over the cap, a body that is not a JSON
 * object).
 */
static int take_msg(struct skit__lsp_conn *c, json_t **msg, skit_error *err)
{
	const char *data = skitx_buf_cstr(&c->in), *end, *p;
	size_t have = skitx_buf_len(&c->in), hlen, body = 0, total;
	bool has_len = false;
	json_t *m;

	*msg = NULL;
	end = memmem(data,
	             have < SKIT__LSP_MAX_HEADER + 4 ? have
	                                             : SKIT__LSP_MAX_HEADER + 4,
	             "\r\n\r\n", 4);
	if (!end) {
		if (have >= SKIT__LSP_MAX_HEADER + 4)
			return skit__error_set(err, SKIT_EIO, 0,
			                       "it sent a header over %d KiB",
			                       SKIT__LSP_MAX_HEADER / 1024);
		return 0;
	}
	hlen = (size_t)(end - data);
	for (p = data; p < end;) {
		const char *eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		size_t n = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (header_is(p, n, "Content-Length")) {
			const char *v = p + 15;
			size_t i = 15;

			while (i < n && (*v == ' ' || *v == '\t'))
				v++, i++;
			if (i == n)
				return skit__error_set(err, SKIT_EIO, 0,
				                       "it sent an empty "
				                       "Content-Length");
			body = 0;
			for (; i < n; i++, v++) {
				if (*v < '0' || *v > '9' ||
				    body > SKIT__LSP_MAX_MESSAGE)
					return skit__error_set(
					        err, SKIT_EIO, 0,
					        "it sent a bad Content-Length "
					        "(over %d MiB, or not a "
					        "number)",
					        SKIT__LSP_MAX_MESSAGE >> 20);
				body = body * 10 + (size_t)(*v - '0');
			}
			if (body > SKIT__LSP_MAX_MESSAGE)
				return skit__error_set(
				        err, SKIT_EIO, 0,
				        "it sent a message of %zu bytes, over "
				        "%d MiB",
				        body, SKIT__LSP_MAX_MESSAGE >> 20);
			has_len = true;
		}
		p = eol ? eol + 2 : end;
	}
	if (!has_len)
		return skit__error_set(err, SKIT_EIO, 0,
		                       "it sent a header without "
		                       "Content-Length");
	total = hlen + 4 + body;
	if (have < total)
		return 0;
	m = json_loadb(end + 4, body, 0, NULL);
	memmove(c->in.ptr, data + total, have - total);
	skitx_buf_truncate(&c->in, have - total);
	if (!json_is_object(m)) {
		json_decref(m);
		return skit__error_set(err, SKIT_EIO, 0,
		                       "it sent a message that is not a JSON "
		                       "object");
	}
	*msg = m;
	return 1;
}

/* The answer a client owes to the server's request `msg`. */
static json_t *answer_for(json_t *msg)
{
	const char *m = json_string_value(json_object_get(msg, "method"));
	json_t *id = json_object_get(msg, "id");

	if (m && !strcmp(m, "workspace/configuration")) {
		json_t *items = json_object_get(json_object_get(msg, "params"),
		                                "items");
		json_t *res = json_array();
		size_t n = json_array_size(items);

		/* One null per item asked, at most a sane number. */
		for (size_t i = 0; res && i < n && i < 256; i++)
			json_array_append_new(res, json_null());
		return res ? json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0",
		                       "id", id, "result", res)
		           : NULL;
	}
	if (m && (!strcmp(m, "window/workDoneProgress/create") ||
	          !strcmp(m, "client/registerCapability") ||
	          !strcmp(m, "client/unregisterCapability")))
		return json_pack("{s:s, s:O, s:n}", "jsonrpc", "2.0", "id", id,
		                 "result");
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id", id,
	                 "error", "code", -32601, "message",
	                 "method not found");
}

/* Keep a publishDiagnostics notification's diagnostics. */
static int keep_diags(struct skit__lsp_conn *c, json_t *params)
{
	const char *uri = json_string_value(json_object_get(params, "uri"));
	json_t *d = json_object_get(params, "diagnostics"), *v;

	if (!uri || !json_is_array(d))
		return 0;
	if (!json_object_get(c->diags, uri) &&
	    json_object_size(c->diags) >= MAX_DIAG_URIS)
		return 0;
	v = json_pack("{s:I, s:O}", "seq", (json_int_t)++c->diag_seq,
	              "diagnostics", d);
	if (!v || json_object_set_new(c->diags, uri, v))
		return SKIT_ENOMEM;
	return 0;
}

/* Handle a message that is not the response waited for. */
static int handle_other(struct skit__lsp_conn *c, json_t *msg, skit_error *err)
{
	const char *m = json_string_value(json_object_get(msg, "method"));
	json_t *r;
	int rc;

	if (!m)
		return 0; /* a late response to a request given up */
	if (json_object_get(msg, "id")) {
		r = answer_for(msg);
		if (!r)
			return skit__error_oom(err);
		rc = send_msg(c, r, err);
		json_decref(r);
		return rc;
	}
	if (!strcmp(m, "textDocument/publishDiagnostics") &&
	    keep_diags(c, json_object_get(msg, "params")))
		return skit__error_oom(err);
	return 0; /* another notification: logs, progress */
}

/* Reap the server after it closed its end: it has a moment to exit,
 * then it and its group are stopped. */
static void reap_soon(struct skit__lsp_conn *c)
{
	if (!c->pid)
		return;
	c->status = skit__child_stop(c->pid, REAP_MS, TERM_MS);
	c->pid = 0;
}

/*
 * Read and handle messages until the response `id` (when above 0) or
 * diagnostics of `uri` numbered above `after` (when `uri`) have come,
 * or `deadline`. SKIT_EIO stops the server.
 */
static int pump(struct skit__lsp_conn *c, long long id, const char *uri,
                long long after, long long deadline, json_t **resp,
                skit_error *err)
{
	char chunk[65536];
	int rc;

	for (;;) {
		json_t *msg;
		struct pollfd pfd;
		long long left;
		ssize_t r;

		rc = take_msg(c, &msg, err);
		if (rc < 0)
			goto broken;
		if (rc > 0) {
			json_t *mid = json_object_get(msg, "id");

			if (id > 0 && !json_object_get(msg, "method") &&
			    json_is_integer(mid) &&
			    json_integer_value(mid) == id) {
				*resp = msg;
				return 0;
			}
			rc = handle_other(c, msg, err);
			json_decref(msg);
			if (rc == SKIT_ENOMEM)
				return rc;
			if (rc)
				goto broken;
			if (uri) {
				long long seq = 0;

				if (skit__lsp_conn_diags(c, uri, &seq) &&
				    seq > after)
					return 0;
			}
			continue;
		}
		if (c->cancel && *c->cancel)
			return skit__error_set(err, SKIT_ECANCELED, 0,
			                       "canceled");
		left = deadline - now_ms();
		if (left <= 0)
			return skit__error_set(err, SKIT_ETIMEOUT, 0,
			                       "no answer in time");
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		r = poll(&pfd, 1, left > SLICE_MS ? SLICE_MS : (int)left);
		if (r < 0 && errno != EINTR) {
			rc = skit__error_set(err, SKIT_EIO, 0, "poll: %s",
			                     strerror(errno));
			goto broken;
		}
		if (r <= 0)
			continue;
		r = recv(c->fd, chunk, sizeof(chunk), 0);
		if (r < 0 &&
		    (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
			continue;
		if (r <= 0) {
			char st[48];

			close(c->fd);
			c->fd = -1;
			reap_soon(c);
			skit__lsp_status_text(c->status, st, sizeof(st));
			rc = skit__error_set(err, SKIT_EIO, 0, "it exited (%s)",
			                     st);
			goto broken;
		}
		if (skitx_buf_add(&c->in, chunk, (size_t)r))
			return skit__error_oom(err);
	}
broken:
	skit__lsp_conn_stop(c, false);
	return rc;
}

/* Tell the server we gave up on request `id`; it may then stop working
 * on it, and its late answer is dropped. */
static void cancel_request(struct skit__lsp_conn *c, long long id)
{
	json_t *p = json_pack("{s:I}", "id", (json_int_t)id);
	skit_error e = { 0 };

	if (p && c->fd >= 0)
		(void)skit__lsp_conn_notify(c, "$/cancelRequest", p, &e);
	json_decref(p);
}

int skit__lsp_conn_request(struct skit__lsp_conn *c, const char *method,
                           json_t *params, long timeout_ms, json_t **resp,
                           skit_error *err)
{
	long long id = ++c->next_id;
	json_t *req = json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id",
	                        (json_int_t)id, "method", method);
	int rc;

	*resp = NULL;
	if (!req || (params && json_object_set(req, "params", params))) {
		json_decref(req);
		return skit__error_oom(err);
	}
	rc = send_msg(c, req, err);
	json_decref(req);
	if (rc == SKIT_EIO)
		skit__lsp_conn_stop(c, false);
	if (rc)
		return rc;
	rc = pump(c, id, NULL, 0, now_ms() + timeout_ms, resp, err);
	if (rc == SKIT_ETIMEOUT || rc == SKIT_ECANCELED)
		cancel_request(c, id);
	return rc;
}

int skit__lsp_conn_wait_diags(struct skit__lsp_conn *c, const char *uri,
                              long long after, long timeout_ms, skit_error *err)
{
	long long seq = 0;

	if (skit__lsp_conn_diags(c, uri, &seq) && seq > after)
		return 0;
	if (c->fd < 0)
		return skit__error_set(err, SKIT_EIO, 0, "it is not running");
	return pump(c, 0, uri, after, now_ms() + timeout_ms, NULL, err);
}

json_t *skit__lsp_conn_diags(struct skit__lsp_conn *c, const char *uri,
                             long long *seq)
{
	json_t *v = c->diags ? json_object_get(c->diags, uri) : NULL;

	*seq = v ? json_integer_value(json_object_get(v, "seq")) : 0;
	return v ? json_object_get(v, "diagnostics") : NULL;
}

/* ---- stopping --------------------------------------------------------- */

void skit__lsp_conn_stop(struct skit__lsp_conn *c, bool polite)
{
	if (polite && c->fd >= 0) {
		const volatile int *cancel = c->cancel;
		json_t *resp = NULL;
		skit_error e = { 0 };
		long long id = ++c->next_id;
		json_t *req =
		        json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id",
		                  (json_int_t)id, "method", "shutdown");

		/* The run may be ending because of the flag: stop anyway. */
		c->cancel = NULL;
		if (req && !send_msg(c, req, &e) &&
		    !pump(c, id, NULL, 0, now_ms() + SHUTDOWN_MS, &resp, &e))
			(void)skit__lsp_conn_notify(c, "exit", NULL, &e);
		json_decref(req);
		json_decref(resp);
		c->cancel = cancel;
	}
	if (c->fd >= 0) {
		shutdown(c->fd, SHUT_WR);
		close(c->fd);
		c->fd = -1;
	}
	/* what the server left running in its group goes too */
	if (c->pid) {
		c->status = skit__child_stop(c->pid, polite ? EXIT_GRACE_MS : 0,
		                             TERM_MS);
		c->pid = 0;
	}
	skitx_buf_release(&c->in);
	json_decref(c->diags);
	c->diags = NULL;
}
