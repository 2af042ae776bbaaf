/* SPDX-License-Identifier: MIT */
/*
 * mcp_client.c - MCP servers' tools in the agent: a client that starts
 * each server of the `mcpServers` configuration (mcp_config.c) that may
 * start (mcp_approvals.c) (stdio: JSON-RPC, one message a line; HTTP:
 * mcp_client_http.c), lists its tools and calls them with a timeout and
 * capped output.
 *
 * A server is a program the user configured, not the model: it runs
 * outside the sandbox, like the user's own tools, but with a scrubbed
 * environment (PATH plus what its `env` names) and in its own process
 * group, so that the whole group is ended when the run ends. A server
 * that times out, crashes or sends garbage is stopped at once: its tools
 * then fail with an error the model sees, and the run goes on.
 */
#include "common.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "skit/mcp_client.h"

#include "lib/agent/agent_int.h"
#include "lib/core/child.h"
#include "lib/core/error.h"
#include "lib/pack/fetch_int.h"
#include "lib/mcp/mcp_client_http.h"
#include "lib/mcp/mcp_client_int.h"
#include "lib/policy/policy_external.h"
#include "lib/tools/tools_int.h"

#define MAX_NAME        SKIT__MCP_MAX_NAME
#define MAX_LINE        SKIT__MCP_MAX_MESSAGE /* one JSON-RPC message */
#define MAX_TOOLS_PAGES 16
#define MAX_DESC        2048 /* bytes of a tool's description kept */
#define OUTPUT_CAP      (64u * 1024)
#define START_TIMEOUT   60000L
#define CALL_TIMEOUT    120000L
#define STOP_GRACE_MS   2000
#define PROTOCOL        "2025-11-25"

/* ---- configuration ---------------------------------------------------- */

/* The accessor that needs the approvals; the others are mcp_config.c's. */
void skit_mcp_config_server(const skit_mcp_config *c, size_t i,
                            skit_mcp_server_info *out)
{
	const struct skit__mcp_def *d = &c->v[i];

	assert(i < c->n);
	out->name = d->name;
	out->origin = d->origin;
	out->digest = d->digest;
	out->command = d->command;
	out->url = d->url;
	out->summary = d->summary;
	out->project = d->project;
	out->approved = skit__mcp_def_approved(c, d);
}

/* ---- the stdio client ------------------------------------------------- */

struct mtool {
	char *full;   /* mcp__SERVER__TOOL */
	char *remote; /* the server's own name */
	char *desc, *schema;
	bool read_only;
	size_t srv; /* index in skit__mcp.srv (which may move) */
};

struct server {
	char *name;
	pid_t pid; /* 0 once stopped */
	int fd;    /* the socket that is the server's stdin and stdout */
	struct skitx_buf in; /* bytes read, not yet a whole line */
	long long next_id;
	char *dead;                  /* why it stopped, for the tools' errors */
	struct skit__mcp_http *http; /* an HTTP server's transport, or NULL */
	const volatile int *cancel;  /* the agent's: a call stops when set */
	bool resources;              /* it declared the resources capability */
};

/* Is the server there to take calls? */
static bool server_up(const struct server *s)
{
	return s->fd >= 0 || s->http;
}

struct skit__mcp {
	struct server *srv;
	size_t nsrv;
	struct mtool *tools;
	size_t ntools;
	long call_timeout_ms;
	/* web_search (mcp_search.c): 1 + the index of the tool it calls,
	 * 0 for none, and the name of that tool's query argument. */
	size_t search;
	char search_arg[MAX_NAME + 1];
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Stop the server's process group: end of input, then TERM, then KILL. */
static void server_stop(struct server *s, const char *why)
{
	if (why && !s->dead)
		s->dead = skitx_strdup(why);
	/* An HTTP server's session is ended (DELETE); it goes on running. */
	skit__mcp_http_free(s->http);
	s->http = NULL;
	if (s->fd >= 0) {
		shutdown(s->fd, SHUT_WR);
		close(s->fd);
		s->fd = -1;
	}
	if (!s->pid)
		return;
	/* half the grace to exit, half after SIGTERM; what the server
	 * left running in its group goes too */
	(void)skit__child_stop(s->pid, STOP_GRACE_MS / 2, STOP_GRACE_MS / 2);
	s->pid = 0;
}

static int server_start(struct server *s, const struct skit__mcp_def *d,
                        const char *cwd, skit_error *err)
{
	const char *path = getenv("PATH");
	char **envp, *own_path = NULL;
	size_t n = 0;
	bool has_path = false;
	int rc = 0;

	s->fd = -1;
	for (char **e = d->env; e && *e; e++)
		n++;
	envp = skitx_calloc(n + 2, sizeof(char *));
	if (!envp)
		return skit__error_oom(err);
	n = 0;
	for (char **e = d->env; e && *e; e++) {
		has_path |= !strncmp(*e, "PATH=", 5);
		envp[n++] = *e;
	}
	if (!has_path && path) {
		size_t len = strlen(path) + 6;

		own_path = skitx_malloc(len);
		if (!own_path) {
			skitx_free(envp);
			return skit__error_oom(err);
		}
		snprintf(own_path, len, "PATH=%s", path);
		envp[n++] = own_path;
	}
	/* A project's server starts in its project, where the words of its
	 * command line were resolved for its approval
	 * (skit__mcp_approval_digest()). PATH of this process finds the
	 * program; the server's own PATH is what its config names, or
	 * ours. */
	rc = skit__child_spawn(d->command, d->args, envp, cwd, &s->pid, &s->fd);
	if (rc)
		rc = skit__error_set(err, SKIT_EIO, 0, "cannot run '%s': %s",
		                     d->command, strerror(rc));
	skitx_free(own_path);
	skitx_free(envp);
	return rc;
}

/*
 * Write one message and its newline before `deadline` (now_ms()). The
 * socket does not block: a server that stops reading its input would
 * otherwise hold the agent forever once the socket's buffer is full.
 */
static int send_msg(struct server *s, json_t *msg, long long deadline,
                    skit_error *err)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	size_t len, off = 0;
	int rc = 0;

	if (!text)
		return skit__error_oom(err);
	len = strlen(text);
	while (off <= len) {
		/* the line, then its newline (the NUL's place) */
		const char *p = off < len ? text + off : "\n";
		size_t n = off < len ? len - off : 1;
		ssize_t w = send(s->fd, p, n, MSG_NOSIGNAL);
		struct pollfd pfd = { s->fd, POLLOUT, 0 };
		long long left;

		if (w >= 0) {
			off += off < len ? (size_t)w : 1;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server closed its input");
			break;
		}
		/* Half a message is sent: the server is stopped either way. */
		if (s->cancel && *s->cancel) {
			rc = skit__error_set(err, SKIT_ECANCELED, 0,
			                     "canceled");
			break;
		}
		left = deadline - now_ms();
		if (left <= 0) {
			rc = skit__error_set(err, SKIT_ETIMEOUT, 0,
			                     "the server stopped reading its "
			                     "input");
			break;
		}
		(void)poll(&pfd, 1, left > 250 ? 250 : (int)left);
	}
	free(text);
	return rc;
}

/* Answer a request from the server: ping, else "method not found". */
static json_t *answer_for(json_t *msg)
{
	const char *m = json_string_value(json_object_get(msg, "method"));

	if (m && !strcmp(m, "ping"))
		return json_pack("{s:s, s:O, s:{}}", "jsonrpc", "2.0", "id",
		                 json_object_get(msg, "id"), "result");
	return json_pack("{s:s, s:O, s:{s:i, s:s}}", "jsonrpc", "2.0", "id",
	                 json_object_get(msg, "id"), "error", "code", -32601,
	                 "message", "method not found");
}

static int answer_request(struct server *s, json_t *msg, long long deadline,
                          skit_error *err)
{
	json_t *r = answer_for(msg);
	int rc;

	if (!r)
		return skit__error_oom(err);
	rc = send_msg(s, r, deadline, err);
	json_decref(r);
	return rc;
}

/*
 * The user gave up on request `id`: say so to the server, which may then
 * stop working on it, and keep the server (a late answer is dropped as
 * one to another request). A server that cannot be told is stopped.
 */
static int cancel_request(struct server *s, long long id, skit_error *err)
{
	json_t *n = json_pack("{s:s, s:s, s:{s:I, s:s}}", "jsonrpc", "2.0",
	                      "method", "notifications/cancelled", "params",
	                      "requestId", (json_int_t)id, "reason",
	                      "canceled by the user");
	skit_error e = { 0 };
	int rc;

	if (!n)
		return skit__error_oom(err);
	if (s->http) {
		/* The flag that ended the call must not end this message. */
		skit__mcp_http_set_cancel(s->http, NULL);
		rc = skit__mcp_http_send(s->http, n, -1, 1000, NULL, &e);
		skit__mcp_http_set_cancel(s->http, s->cancel);
	} else {
		rc = send_msg(s, n, now_ms() + 1000, &e);
	}
	json_decref(n);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc && !s->http)
		server_stop(s, "canceled");
	return skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
}

static int initialize(struct server *s, long timeout, skit_error *err);

/*
 * rpc() over HTTP. When the server answers that it forgot the session
 * (HTTP 404), the specification has the client start a new one: skit
 * does, once per request (`may_renew`), and sends the request again.
 */
static int rpc_http(struct server *s, const char *method, json_t *params,
                    long timeout_ms, bool may_renew, json_t **result,
                    skit_error *err)
{
	long long id = ++s->next_id, start = now_ms();
	json_t *req =
	        json_pack("{s:s, s:I, s:s, s:O}", "jsonrpc", "2.0", "id",
	                  (json_int_t)id, "method", method, "params", params);
	long left;
	int rc;

	if (!req)
		return skit__error_oom(err);
	rc = skit__mcp_http_send(s->http, req, id, timeout_ms, result, err);
	json_decref(req);
	if (rc == SKIT_ECANCELED)
		return cancel_request(s, id, err);
	left = timeout_ms - (long)(now_ms() - start);
	if (rc == SKIT_ENOTFOUND && may_renew && left > 0) {
		skit__mcp_http_forget_session(s->http);
		rc = initialize(s, left, err); /* stops the server on failure */
		if (rc)
			return rc;
		left = timeout_ms - (long)(now_ms() - start);
		return rpc_http(s, method, params, left > 0 ? left : 1, false,
		                result, err);
	}
	if (rc == SKIT_ETIMEOUT)
		rc = skit__error_set(err, SKIT_ETIMEOUT, 0,
		                     "no answer within %ld ms", timeout_ms);
	if (rc && rc != SKIT_ENOMEM)
		server_stop(s, err->message);
	return rc;
}

/*
 * One request, waiting up to `timeout_ms` for its response; *result is
 * the response (owned). A failure of the server itself stops it and is
 * SKIT_EIO or SKIT_ETIMEOUT with the reason in err; SKIT_ECANCELED when
 * the agent's cancel flag was set (the server is kept).
 */
static int rpc(struct server *s, const char *method, json_t *params,
               long timeout_ms, json_t **result, skit_error *err)
{
	long long id, deadline = now_ms() + timeout_ms;
	json_t *req;
	int rc;

	*result = NULL;
	if (!server_up(s))
		return skit__error_set(err, SKIT_EIO, 0, "%s",
		                       s->dead ? s->dead : "not running");
	if (s->http)
		return rpc_http(s, method, params, timeout_ms, true, result,
		                err);
	id = ++s->next_id;
	req = json_pack("{s:s, s:I, s:s, s:O}", "jsonrpc", "2.0", "id",
	                (json_int_t)id, "method", method, "params", params);
	if (!req)
		return skit__error_oom(err);
	rc = send_msg(s, req, deadline, err);
	json_decref(req);
	if (rc)
		goto fail;
	for (;;) {
		const char *data = skitx_buf_cstr(&s->in);
		const char *nl = memchr(data, '\n', skitx_buf_len(&s->in));
		struct pollfd pfd = { s->fd, POLLIN, 0 };
		char chunk[65536];
		long long left;
		ssize_t r;

		if (nl) {
			size_t len = (size_t)(nl - data);
			json_t *msg = json_loadb(data, len, 0, NULL);
			json_t *mid;

			/* drop the line from the buffer */
			memmove(s->in.ptr, data + len + 1,
			        skitx_buf_len(&s->in) - len - 1);
			skitx_buf_truncate(&s->in,
			                   skitx_buf_len(&s->in) - len - 1);
			if (!msg && len && data[0] != '\r') {
				rc = skit__error_set(err, SKIT_EIO, 0,
				                     "the server sent a line "
				                     "that is not JSON");
				goto fail;
			}
			if (!msg)
				continue;
			mid = json_object_get(msg, "id");
			if (json_object_get(msg, "method")) {
				rc = mid ? answer_request(s, msg, deadline, err)
				         : 0;
				json_decref(msg);
				if (rc)
					goto fail;
				continue;
			}
			if (json_is_integer(mid) &&
			    json_integer_value(mid) == id) {
				*result = msg;
				return 0;
			}
			json_decref(msg);
			continue;
		}
		if (skitx_buf_len(&s->in) > MAX_LINE) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server sent a message over "
			                     "%u MiB",
			                     MAX_LINE >> 20);
			goto fail;
		}
		if (s->cancel && *s->cancel)
			return cancel_request(s, id, err);
		left = deadline - now_ms();
		if (left <= 0) {
			rc = skit__error_set(err, SKIT_ETIMEOUT, 0,
			                     "no answer within %ld ms",
			                     timeout_ms);
			goto fail;
		}
		r = poll(&pfd, 1, left > 250 ? 250 : (int)left);
		if (r < 0 && errno != EINTR) {
			rc = skit__error_set(err, SKIT_EIO, 0, "poll: %s",
			                     strerror(errno));
			goto fail;
		}
		if (r <= 0)
			continue;
		r = recv(s->fd, chunk, sizeof(chunk), 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0) {
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "the server exited");
			goto fail;
		}
		if (skitx_buf_add(&s->in, chunk, (size_t)r)) {
			rc = skit__error_oom(err);
			goto fail;
		}
	}
fail:
	if (rc != SKIT_ENOMEM)
		server_stop(s, err ? err->message : "stopped");
	return rc;
}

static int notify(struct server *s, const char *method, long timeout_ms,
                  skit_error *err)
{
	json_t *n = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method", method);
	int rc;

	if (!n)
		return skit__error_oom(err);
	if (s->http)
		rc = skit__mcp_http_send(s->http, n, -1, timeout_ms, NULL, err);
	else
		rc = send_msg(s, n, now_ms() + timeout_ms, err);
	json_decref(n);
	return rc;
}

static int add_tool(struct skit__mcp *m, struct server *s, json_t *t,
                    struct skit_agent *a)
{
	const char *name = json_string_value(json_object_get(t, "name"));
	const char *desc = json_string_value(json_object_get(t, "description"));
	json_t *schema = json_object_get(t, "inputSchema");
	json_t *ro = json_object_get(json_object_get(t, "annotations"),
	                             "readOnlyHint");
	struct mtool *grown, *mt;
	char full[3 * MAX_NAME];

	if (!name || !skit__mcp_name_ok(name) ||
	    (size_t)snprintf(full, sizeof(full), "mcp__%s__%s", s->name, name) >
	            MAX_NAME) {
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "MCP server %s: tool '%.64s' left out (its "
		                  "name must be letters, digits, '-' or '_' "
		                  "and fit in %d characters as mcp__%s__NAME)",
		                  s->name, name ? name : "?", MAX_NAME,
		                  s->name);
		return 0;
	}
	if (m->ntools >= SKIT__MCP_TOOLS_MAX) {
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "MCP server %s: tool %s left out (over %d "
		                  "MCP tools)",
		                  s->name, name, SKIT__MCP_TOOLS_MAX);
		return 0;
	}
	grown = skitx_realloc(m->tools, (m->ntools + 1) * sizeof(*grown));
	if (!grown)
		return SKIT_ENOMEM;
	m->tools = grown;
	mt = &m->tools[m->ntools];
	memset(mt, 0, sizeof(*mt));
	mt->full = skitx_strdup(full);
	mt->remote = skitx_strdup(name);
	{
		size_t dl = desc ? strnlen(desc, MAX_DESC) : 0;

		/* a long description is cut between UTF-8 sequences */
		while (dl == MAX_DESC && dl &&
		       ((unsigned char)desc[dl] & 0xC0) == 0x80)
			dl--;
		mt->desc = skitx_strndup(desc ? desc : "", dl);
	}
	mt->schema = json_is_object(schema) ? json_dumps(schema, JSON_COMPACT)
	                                    : strdup("{\"type\":\"object\"}");
	mt->read_only = json_is_true(ro);
	mt->srv = (size_t)(s - m->srv);
	if (!mt->full || !mt->remote || !mt->desc || !mt->schema) {
		skitx_free(mt->full);
		skitx_free(mt->remote);
		skitx_free(mt->desc);
		free(mt->schema);
		return SKIT_ENOMEM;
	}
	m->ntools++;
	return 0;
}

/* The revisions whose client side this is. Streamable HTTP came with
 * 2025-03-26; before it, HTTP servers spoke another transport. */
static bool known_revision(const char *v, bool http)
{
	static const char *const known[] = { "2025-11-25", "2025-06-18",
		                             "2025-03-26", "2024-11-05" };
	size_t n = http ? 3 : 4;

	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, known[i]))
			return true;
	return false;
}

/* initialize, then initialized. A failure stops the server. */
static int initialize(struct server *s, long timeout, skit_error *err)
{
	json_t *params, *resp, *res;
	const char *version;
	int rc;

	params = json_pack("{s:s, s:{}, s:{s:s, s:s}}", "protocolVersion",
	                   PROTOCOL, "capabilities", "clientInfo", "name",
	                   "skit", "version", skit_version());
	if (!params)
		return skit__error_oom(err);
	rc = rpc(s, "initialize", params, timeout, &resp, err);
	json_decref(params);
	if (rc)
		return rc;
	res = json_object_get(resp, "result");
	if (!json_is_object(res)) {
		json_decref(resp);
		rc = skit__error_set(err, SKIT_EIO, 0,
		                     "initialize was refused");
		server_stop(s, err->message);
		return rc;
	}
	version = json_string_value(json_object_get(res, "protocolVersion"));
	if (!version || !known_revision(version, s->http != NULL)) {
		rc = skit__error_set(err, SKIT_EIO, 0,
		                     "the server speaks protocol revision "
		                     "'%.32s', which skit does not",
		                     version ? version : "?");
		json_decref(resp);
		server_stop(s, err->message);
		return rc;
	}
	s->resources = json_is_object(json_object_get(
	        json_object_get(res, "capabilities"), "resources"));
	/* Every later HTTP message names the revision agreed on. */
	if (s->http && skit__mcp_http_set_version(s->http, version)) {
		json_decref(resp);
		return skit__error_oom(err);
	}
	json_decref(resp);
	rc = notify(s, "notifications/initialized", timeout, err);
	if (rc && rc != SKIT_ENOMEM)
		server_stop(s, err->message);
	return rc;
}

/* initialize, initialized, tools/list (all pages). */
static int handshake(struct skit__mcp *m, struct server *s, long timeout,
                     struct skit_agent *a, skit_error *err)
{
	json_t *params, *resp, *res, *cursor = NULL;
	int rc;

	rc = initialize(s, timeout, err);
	if (rc)
		return rc;
	for (int page = 0; page < MAX_TOOLS_PAGES; page++) {
		json_t *tools, *t;
		size_t i;

		params = cursor ? json_pack("{s:O}", "cursor", cursor)
		                : json_object();
		json_decref(cursor);
		cursor = NULL;
		if (!params)
			return skit__error_oom(err);
		rc = rpc(s, "tools/list", params, timeout, &resp, err);
		json_decref(params);
		if (rc)
			return rc;
		res = json_object_get(resp, "result");
		tools = json_object_get(res, "tools");
		if (!json_is_array(tools)) {
			json_decref(resp);
			rc = skit__error_set(err, SKIT_EIO, 0,
			                     "tools/list gave no tools");
			server_stop(s, err->message);
			return rc;
		}
		json_array_foreach(tools, i, t) if (add_tool(m, s, t, a))
		{
			json_decref(resp);
			return skit__error_oom(err);
		}
		cursor = json_object_get(res, "nextCursor");
		if (json_is_string(cursor))
			json_incref(cursor);
		else
			cursor = NULL;
		json_decref(resp);
		if (!cursor)
			break;
	}
	json_decref(cursor);
	return 0;
}

/*
 * The server's "webSearch" tool, among those it just listed (from
 * `from`), becomes what web_search calls; its query argument is
 * "query" when the schema has one, else its first required string.
 */
static void pick_search(struct skit__mcp *m, size_t from,
                        const struct skit__mcp_def *d, struct skit_agent *a)
{
	for (size_t i = from; i < m->ntools; i++) {
		json_t *schema, *props, *req, *v;
		const char *arg = "query";
		size_t k;

		if (strcmp(m->tools[i].remote, d->web_search))
			continue;
		schema = json_loads(m->tools[i].schema, 0, NULL);
		props = json_object_get(schema, "properties");
		req = json_object_get(schema, "required");
		if (!json_object_get(props, "query"))
			json_array_foreach(req, k, v)
			{
				json_t *pv = json_object_get(
				        props, json_string_value(v));
				const char *t = json_string_value(
				        json_object_get(pv, "type"));

				if (t && !strcmp(t, "string")) {
					arg = json_string_value(v);
					break;
				}
			}
		if (!json_object_get(props, "query") && !json_array_size(req)) {
			const char *key;

			/* no query, nothing required: its first text */
			json_object_foreach(props, key, v)
			{
				const char *t = json_string_value(
				        json_object_get(v, "type"));

				if (t && !strcmp(t, "string")) {
					arg = key;
					break;
				}
			}
		}
		snprintf(m->search_arg, sizeof(m->search_arg), "%s", arg);
		json_decref(schema);
		if (m->search)
			skit__agent_trace(a, SKIT_TRACE_NOTE,
			                  "web_search: %s replaces %s",
			                  m->tools[i].full,
			                  m->tools[m->search - 1].full);
		m->search = i + 1;
		skit__agent_trace(a, SKIT_TRACE_NOTE, "web_search: through %s",
		                  m->tools[i].full);
		return;
	}
	skit__agent_trace(a, SKIT_TRACE_NOTE,
	                  "MCP server %s has no tool '%s' (its \"webSearch\"):"
	                  " web_search is not offered",
	                  d->name, d->web_search);
}

int skit_agent_use_mcp(skit_agent *a, const skit_mcp_config *c, long timeout_ms,
                       skit_error *err)
{
	struct skit__mcp *m = skit__agent_provider(a, &skit__mcp_tools);

	if (c && c->provider_search)
		a->hosted_search = true;
	if (!c || !c->n)
		return 0;
	if (!m) {
		m = skitx_calloc(1, sizeof(*m));
		if (!m)
			return skit__error_oom(err);
		if (skit__agent_add_provider(a, &skit__mcp_tools, m, err))
			return SKIT_ENOMEM; /* m was released */
		m->call_timeout_ms = a->script_timeout_ms > 0
		                             ? a->script_timeout_ms
		                             : CALL_TIMEOUT;
	}
	if (timeout_ms <= 0)
		timeout_ms = START_TIMEOUT;
	for (size_t i = 0; i < c->n; i++) {
		const struct skit__mcp_def *d = &c->v[i];
		struct server *grown, *s;
		size_t before = m->ntools;
		skit_error e = { 0 };
		char *shown;
		int rc;

		if (!skit__mcp_def_approved(c, d))
			continue;
		grown = skitx_realloc(m->srv, (m->nsrv + 1) * sizeof(*grown));
		if (!grown)
			return skit__error_oom(err);
		m->srv = grown;
		s = &m->srv[m->nsrv];
		memset(s, 0, sizeof(*s));
		s->fd = -1;
		skitx_buf_init(&s->in, 0);
		s->name = skitx_strdup(d->name);
		if (!s->name)
			return skit__error_oom(err);
		m->nsrv++;
		s->cancel = a->cancel;
		{
			struct skit__mcp_def x;

			rc = skit__mcp_expand_def(d, &x, &e);
			if (!rc && x.url) {
				rc = skit__mcp_http_new(&s->http, x.url,
				                        x.headers, answer_for,
				                        &e);
				if (!rc)
					skit__mcp_http_set_cancel(s->http,
					                          a->cancel);
			} else if (!rc) {
				rc = server_start(s, &x, d->project_dir, &e);
			}
			skit__mcp_def_release(&x);
		}
		if (!rc)
			rc = handshake(m, s, timeout_ms, a, &e);
		if (rc == SKIT_ENOMEM)
			return skit__error_oom(err);
		shown = d->url ? skit__url_without_credentials(d->url) : NULL;
		if (d->url && !shown)
			return skit__error_oom(err);
		skit__agent_audit(
		        a, "mcp_server",
		        json_pack("{s:s, s:s?, s:s?, s:s, s:b, s:I, s:s?}",
		                  "name", d->name, "command", d->command, "url",
		                  shown, "digest", d->digest, "project",
		                  d->project, "tools",
		                  (json_int_t)(m->ntools - before), "error",
		                  rc ? e.message : NULL));
		skitx_free(shown);
		if (rc) {
			skit__agent_trace(a, SKIT_TRACE_NOTE,
			                  "MCP server %s is off: %s", d->name,
			                  e.message);
			server_stop(s, e.message);
			continue;
		}
		skit__agent_trace(a, SKIT_TRACE_NOTE,
		                  "MCP server %s: %zu tool(s)", d->name,
		                  m->ntools - before);
		if (d->web_search)
			pick_search(m, before, d, a);
	}
	return 0;
}

/* ---- resources -------------------------------------------------------- */

/*
 * list_mcp_resources and read_mcp_resource (Claude Code's
 * ListMcpResourcesTool and ReadMcpResourceTool): the resources of the
 * servers that declare the capability, listed and read as text. They are
 * skit's own tools to the policy (read-only); a deny rule of a server
 * (mcp__SERVER, mcp__*) covers its resources too.
 */
#define RES_PAGES   16   /* resources/list pages read */
#define RES_MAX     500  /* resources listed in one answer */
#define RES_URI_MAX 2048 /* bytes of a URI */
#define RES_DESC    200  /* bytes of a description shown */

static const skit_tool_schema res_schemas[2] = {
	{ "list_mcp_resources",
	  "List the resources of the MCP servers (files, records, documents "
	  "a server offers to read, each by its URI): those of `server`, "
	  "or of every server that has some. Read one with "
	  "read_mcp_resource.",
	  "{\"type\":\"object\",\"properties\":{\"server\":{\"type\":"
	  "\"string\",\"description\":\"an MCP server's name; default: "
	  "all\"}},\"additionalProperties\":false}" },
	{ "read_mcp_resource",
	  "Read a resource of an MCP server by its URI (from "
	  "list_mcp_resources): its text; binary contents are left out.",
	  "{\"type\":\"object\",\"properties\":{\"server\":{\"type\":"
	  "\"string\",\"description\":\"the MCP server's name\"},\"uri\":"
	  "{\"type\":\"string\",\"description\":\"the resource's URI\"}},"
	  "\"required\":[\"server\",\"uri\"],\"additionalProperties\":"
	  "false}" },
};

/* How many running servers have resources; their names into `names`
 * (", "-separated) when it is not NULL. */
static size_t res_servers(const struct skit__mcp *m, char *names, size_t cap)
{
	size_t n = 0, at = 0;

	if (names && cap)
		names[0] = '\0';
	for (size_t i = 0; m && i < m->nsrv; i++) {
		if (!m->srv[i].resources || !server_up(&m->srv[i]))
			continue;
		if (names && at < cap)
			at += (size_t)snprintf(names + at, cap - at, "%s%s",
			                       n ? ", " : "", m->srv[i].name);
		n++;
	}
	return n;
}

/* Cut `out` at the output cap, at a character boundary, with a note. */
static int cap_output(struct skitx_buf *out)
{
	size_t cut = OUTPUT_CAP;

	if (skitx_buf_len(out) <= OUTPUT_CAP)
		return 0;
	while (cut && ((unsigned char)out->ptr[cut] & 0xC0) == 0x80)
		cut--;
	skitx_buf_truncate(out, cut);
	return skitx_buf_printf(out, "\n[output cut at %u KiB]",
	                        OUTPUT_CAP / 1024)
	               ? SKIT_ENOMEM
	               : 0;
}

/* Append at most `max` bytes of the server's string `s`, cleaned
 * (skit__put_clean(): no controls, and a sequence cut at `max` becomes
 * U+FFFD instead of invalid UTF-8, which the providers refuse).
 * 0 or SKIT_ENOMEM. */
static int put_clean_cut(struct skitx_buf *out, const char *s, size_t max)
{
	size_t n = strlen(s);

	return skit__put_clean(out, s, n > max ? max : n);
}

/* A one-line value (a MIME type): its first line only, cleaned, cut. */
static int put_clean_word(struct skitx_buf *out, const char *s, size_t max)
{
	size_t n = strcspn(s, "\r\n");

	return skit__put_clean(out, s, n > max ? max : n);
}

/* A request to `s` for a tool (tools/call, resources/...): its result
 * object in *res (a reference into *resp), or an error result for the
 * model (the server stopped, or it answered with an error). */
static int server_rpc(struct skit__tool_ctx *c, struct server *s,
                      const char *method, json_t *params, long timeout,
                      json_t **resp, json_t **res, struct skitx_buf *out,
                      bool *is_error, skit_error *err)
{
	skit_error e = { 0 };
	json_t *ej;
	int rc;

	*resp = NULL;
	rc = rpc(s, method, params, timeout, resp, &e);
	if (rc == SKIT_ENOMEM)
		return skit__error_oom(err);
	if (rc == SKIT_ECANCELED)
		return skit__error_set(err, SKIT_ECANCELED, 0, "canceled");
	if (rc) {
		skit__tool_trace(c, SKIT_TRACE_TOOL,
		                 "MCP server %s stopped: %s", s->name,
		                 e.message);
		return skit__tool_error(out, is_error,
		                        "MCP server %s failed and was stopped: "
		                        "%s",
		                        s->name, e.message);
	}
	*res = json_object_get(*resp, "result");
	ej = json_object_get(*resp, "error");
	if (ej || !json_is_object(*res)) {
		const char *msg =
		        json_string_value(json_object_get(ej, "message"));

		rc = skit__tool_error(out, is_error,
		                      "MCP error from %s: ", s->name);
		if (!rc &&
		    put_clean_cut(out, msg ? msg : "malformed answer", 500))
			rc = skit__error_oom(err);
		json_decref(*resp);
		*resp = NULL;
		return rc;
	}
	return 0;
}

/* The resources of `s` as lines of `out`; *listed counts them. */
static int res_list_one(struct skit__mcp *m, struct skit__tool_ctx *c,
                        struct server *s, size_t *listed, struct skitx_buf *out,
                        bool *is_error, skit_error *err)
{
	json_t *cursor = NULL, *used = NULL;
	size_t before = *listed;
	int rc = 0;

	if (skitx_buf_printf(out, "%sResources of MCP server %s:\n",
	                     skitx_buf_len(out) ? "\n" : "", s->name))
		return skit__error_oom(err);
	for (int page = 0; page < RES_PAGES && !rc; page++) {
		json_t *params, *resp, *res, *list, *r;
		size_t i;

		params = cursor ? json_pack("{s:O}", "cursor", cursor)
		                : json_object();
		/* the cursor of this page, to notice a server that hands
		 * the same one back */
		json_decref(used);
		used = cursor;
		cursor = NULL;
		if (!params) {
			json_decref(used);
			return skit__error_oom(err);
		}
		rc = server_rpc(c, s, "resources/list", params,
		                m->call_timeout_ms, &resp, &res, out, is_error,
		                err);
		json_decref(params);
		if (rc || *is_error) {
			json_decref(used);
			return rc;
		}
		list = json_object_get(res, "resources");
		json_array_foreach(list, i, r)
		{
			const char *uri =
			        json_string_value(json_object_get(r, "uri"));
			const char *name =
			        json_string_value(json_object_get(r, "name"));
			const char *mime = json_string_value(
			        json_object_get(r, "mimeType"));
			const char *desc = json_string_value(
			        json_object_get(r, "description"));

			if (!uri || strlen(uri) > RES_URI_MAX)
				continue;
			if (*listed >= RES_MAX) {
				(*listed)++;
				continue;
			}
			(*listed)++;
			rc = skitx_buf_puts(out, "- ") ||
			     skit__put_clean(out, uri, strlen(uri));
			if (!rc && name && strlen(name) < 256)
				rc = skitx_buf_puts(out, " (") ||
				     skit__put_clean(out, name, strlen(name)) ||
				     (mime &&
				      (skitx_buf_puts(out, ", ") ||
				       put_clean_word(out, mime, 64))) ||
				     skitx_buf_puts(out, ")");
			if (!rc && desc)
				rc = skitx_buf_puts(out, ": ") ||
				     skit__put_clean(out, desc,
				                     strlen(desc) > RES_DESC
				                             ? RES_DESC
				                             : strlen(desc));
			if (!rc)
				rc = skitx_buf_puts(out, "\n");
			if (rc) {
				json_decref(resp);
				json_decref(used);
				return skit__error_oom(err);
			}
		}
		cursor = json_object_get(res, "nextCursor");
		if (json_is_string(cursor) && !json_equal(cursor, used))
			json_incref(cursor);
		else
			cursor = NULL;
		json_decref(resp);
		if (!cursor)
			break;
	}
	json_decref(cursor);
	json_decref(used);
	if (*listed == before && skitx_buf_puts(out, "(none)\n"))
		return skit__error_oom(err);
	return 0;
}

/* The running server `name` with resources; else NULL, an error result
 * in `out` and *rc 0, or SKIT_ENOMEM. */
static struct server *res_server(struct skit__mcp *m, const char *name,
                                 struct skitx_buf *out, bool *is_error, int *rc)
{
	char names[512];

	for (size_t i = 0; name && i < m->nsrv; i++)
		if (!strcmp(m->srv[i].name, name) && m->srv[i].resources &&
		    server_up(&m->srv[i]))
			return &m->srv[i];
	res_servers(m, names, sizeof(names));
	/* the model's name, cleaned and cut as text */
	*rc = skit__tool_error(out, is_error, "no MCP server '");
	if (!*rc && (put_clean_cut(out, name ? name : "", 64) ||
	             skitx_buf_printf(out,
	                              "' with resources; those that have "
	                              "some: %s",
	                              *names ? names : "none")))
		*rc = SKIT_ENOMEM;
	return NULL;
}

/* A deny rule of server `s` (mcp__SERVER, mcp__*) covers its resources:
 * the reason, or NULL. */
static const char *res_denied(struct skit__tool_ctx *c, const struct server *s,
                              skit_decision *d)
{
	char name[MAX_NAME * 2 + 16];

	snprintf(name, sizeof(name), "mcp__%s__resources", s->name);
	if (!skit__policy_check_external(c->policy, c->view, c->nactive, name,
	                                 SKIT_RISK_READ, d, NULL) &&
	    d->verdict == SKIT_POLICY_DENY)
		return d->reason;
	return NULL;
}

static int res_list(struct skit__mcp *m, struct skit__tool_ctx *c, json_t *args,
                    struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *want = skit__str_arg(args, "server");
	size_t listed = 0;
	skit_decision d;
	int rc = 0;

	if (json_object_get(args, "server") && !want)
		return skit__tool_error(out, is_error,
		                        "server must be a server's name");
	if (want) {
		const struct server *s =
		        res_server(m, want, out, is_error, &rc);
		const char *why = s ? res_denied(c, s, &d) : NULL;

		if (!s)
			return rc ? skit__error_oom(err) : 0;
		if (why)
			return skit__tool_error(out, is_error, "denied: %s",
			                        why);
	}
	for (size_t i = 0; i < m->nsrv && !rc && !*is_error; i++) {
		struct server *s = &m->srv[i];

		if (!s->resources || !server_up(s) ||
		    (want && strcmp(s->name, want)) || res_denied(c, s, &d))
			continue;
		rc = res_list_one(m, c, s, &listed, out, is_error, err);
	}
	if (rc || *is_error)
		return rc;
	if (listed > RES_MAX &&
	    skitx_buf_printf(out, "[%zu more not shown]\n", listed - RES_MAX))
		return skit__error_oom(err);
	/* every server with resources is denied */
	if (!skitx_buf_len(out) &&
	    skitx_buf_puts(out, "no resources: the rules deny the servers "
	                        "that have some"))
		return skit__error_oom(err);
	skit__tool_trace(c, SKIT_TRACE_TOOL, "list_mcp_resources: %zu", listed);
	return cap_output(out) ? skit__error_oom(err) : 0;
}

static int res_read(struct skit__mcp *m, struct skit__tool_ctx *c, json_t *args,
                    struct skitx_buf *out, bool *is_error, skit_error *err)
{
	const char *uri = skit__str_arg(args, "uri");
	json_t *params, *resp, *res, *item;
	const char *why;
	struct server *s;
	skit_decision d;
	size_t i;
	int rc = 0;

	if (!uri || !*uri || strlen(uri) > RES_URI_MAX ||
	    uri[strcspn(uri, "\n\r\t")])
		return skit__tool_error(
		        out, is_error,
		        "uri must be a resource's URI (one line, "
		        "at most %d bytes)",
		        RES_URI_MAX);
	s = res_server(m, skit__str_arg(args, "server"), out, is_error, &rc);
	if (!s)
		return rc ? skit__error_oom(err) : 0;
	why = res_denied(c, s, &d);
	if (why)
		return skit__tool_error(out, is_error, "denied: %s", why);
	params = json_pack("{s:s}", "uri", uri);
	if (!params)
		return skit__error_oom(err);
	skit__tool_trace(c, SKIT_TRACE_TOOL,
	                 "read_mcp_resource: %.200s (MCP "
	                 "server %s)",
	                 uri, s->name);
	rc = server_rpc(c, s, "resources/read", params, m->call_timeout_ms,
	                &resp, &res, out, is_error, err);
	json_decref(params);
	if (rc || *is_error)
		return rc;
	json_array_foreach(json_object_get(res, "contents"), i, item)
	{
		const char *u = json_string_value(json_object_get(item, "uri"));
		const char *mime =
		        json_string_value(json_object_get(item, "mimeType"));
		json_t *text = json_object_get(item, "text");
		json_t *blob = json_object_get(item, "blob");

		if (!u || strlen(u) > RES_URI_MAX)
			u = uri;
		rc = skitx_buf_printf(out, "%s", i ? "\n\n" : "") ||
		     skit__put_clean(out, u, strlen(u)) ||
		     (mime && (skitx_buf_puts(out, " (") ||
		               put_clean_word(out, mime, 64) ||
		               skitx_buf_puts(out, ")"))) ||
		     skitx_buf_puts(out, ":\n");
		if (!rc && json_is_string(text))
			rc = skit__put_clean(out, json_string_value(text),
			                     json_string_length(text));
		else if (!rc)
			rc = skitx_buf_printf(out,
			                      "[binary content left out: %zu "
			                      "bytes of base64]",
			                      json_is_string(blob)
			                              ? json_string_length(blob)
			                              : (size_t)0);
		if (rc || skitx_buf_len(out) > OUTPUT_CAP)
			break;
	}
	if (!rc && !skitx_buf_len(out))
		rc = skitx_buf_puts(out, "(the resource is empty)");
	json_decref(resp);
	if (rc || cap_output(out))
		return skit__error_oom(err);
	return 0;
}

/* ---- the provider ----------------------------------------------------- */

/* Every tool of the servers, gated as external tools: read-only when
 * annotated readOnlyHint, else execute calls. */
static size_t mcp_list(void *self, const struct skit__tool_ctx *c,
                       struct skit__tool_def *out, size_t max)
{
	const struct skit__mcp *m = self;
	size_t n = 0;

	(void)c;
	for (size_t i = 0; m && i < m->ntools && n < max; i++) {
		const struct mtool *t = &m->tools[i];

		out[n].schema.name = t->full;
		out[n].schema.description = t->desc;
		out[n].schema.parameters = t->schema;
		out[n].risk = t->read_only ? SKIT_RISK_READ : SKIT_RISK_EXECUTE;
		out[n].gate = SKIT__GATE_EXTERNAL;
		out[n].offered = true;
		out[n].hint = "";
		n++;
	}
	if (m && m->search && n < max)
		n += skit__mcp_search_list(
		        &out[n],
		        server_up(&m->srv[m->tools[m->search - 1].srv]));
	if (m && res_servers(m, NULL, 0) && n + 2 <= max) {
		for (int k = 0; k < 2; k++) {
			memset(&out[n], 0, sizeof(out[n]));
			out[n].schema = res_schemas[k];
			out[n].risk = SKIT_RISK_READ;
			out[n].gate = SKIT__GATE_BUILTIN;
			out[n].offered = true;
			n++;
		}
	}
	return n;
}

static const struct mtool *find_tool(const struct skit__mcp *m,
                                     const char *name)
{
	for (size_t i = 0; m && i < m->ntools; i++)
		if (!strcmp(m->tools[i].full, name))
			return &m->tools[i];
	return NULL;
}

/* The text of a tools/call result, capped. */
static int put_content(struct skitx_buf *out, json_t *content)
{
	json_t *c;
	size_t i;
	int rc = 0;

	json_array_foreach(content, i, c)
	{
		const char *type =
		        json_string_value(json_object_get(c, "type"));
		const char *text =
		        json_string_value(json_object_get(c, "text"));

		if (i)
			rc |= skitx_buf_puts(out, "\n");
		if (type && !strcmp(type, "text") && text)
			rc |= skit__put_clean(out, text, strlen(text));
		else
			rc |= skitx_buf_printf(
			        out, "[%s content left out]",
			        type && strlen(type) < 32 ? type : "other");
		if (rc)
			return SKIT_ENOMEM;
		if (skitx_buf_len(out) > OUTPUT_CAP)
			break;
	}
	return cap_output(out);
}

static int mcp_call(void *self, struct skit__tool_ctx *c, const char *name,
                    json_t *args, struct skitx_buf *out, bool *is_error,
                    skit_error *err)
{
	struct skit__mcp *m = self;
	const struct mtool *t = find_tool(m, name);
	struct server *srv = t ? &m->srv[t->srv] : NULL;
	json_t *params, *resp, *res;
	int rc;

	if (!t && m && !strcmp(name, res_schemas[0].name))
		return res_list(m, c, args, out, is_error, err);
	if (!t && m && !strcmp(name, res_schemas[1].name))
		return res_read(m, c, args, out, is_error, err);
	if (!t && m && m->search && !strcmp(name, SKIT__WEB_SEARCH))
		return skit__mcp_search_call(
		        c, args, m->tools[m->search - 1].full, m->search_arg,
		        m->tools[m->search - 1].read_only, out, is_error, err,
		        mcp_call, self);
	if (!t)
		return skit__tool_error(out, is_error, "unknown tool '%.64s'",
		                        name);
	if (!server_up(srv))
		return skit__tool_error(
		        out, is_error, "MCP server %s is not running (%s)",
		        srv->name, srv->dead ? srv->dead : "stopped");
	params = json_pack("{s:s, s:O}", "name", t->remote, "arguments", args);
	if (!params)
		return skit__error_oom(err);
	skit__tool_trace(c, SKIT_TRACE_TOOL, "%s (MCP server %s)", name,
	                 srv->name);
	rc = server_rpc(c, srv, "tools/call", params, m->call_timeout_ms, &resp,
	                &res, out, is_error, err);
	json_decref(params);
	if (rc || *is_error)
		return rc;
	rc = put_content(out, json_object_get(res, "content"));
	*is_error = json_is_true(json_object_get(res, "isError"));
	json_decref(resp);
	if (!rc)
		skit__tool_trace(c, SKIT_TRACE_TOOL, "%s: %s, %zu bytes", name,
		                 *is_error ? "error" : "ok",
		                 skitx_buf_len(out));
	return rc ? skit__error_oom(err) : 0;
}

void skit__mcp_free(struct skit__mcp *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nsrv; i++) {
		server_stop(&m->srv[i], NULL);
		skitx_free(m->srv[i].name);
		skitx_free(m->srv[i].dead);
		skitx_buf_release(&m->srv[i].in);
	}
	for (size_t i = 0; i < m->ntools; i++) {
		skitx_free(m->tools[i].full);
		skitx_free(m->tools[i].remote);
		skitx_free(m->tools[i].desc);
		free(m->tools[i].schema);
	}
	skitx_free(m->srv);
	skitx_free(m->tools);
	skitx_free(m);
}

static void mcp_release(void *self)
{
	skit__mcp_free(self);
}

const struct skit__tool_provider_ops skit__mcp_tools = {
	"mcp", mcp_list, NULL, mcp_call, mcp_release,
};
