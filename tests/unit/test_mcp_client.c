/* SPDX-License-Identifier: MIT */
/*
 * test_mcp_client.c - the `mcpServers` configuration: shapes, refusals,
 * digests per definition, remembered approvals, and a project that
 * cannot shadow a user's server; the Streamable HTTP transport against
 * a scripted HTTP server (tests/support/httpd.c) that answers in every
 * wrong way. The client as a whole runs against real and fake servers in
 * tests/cli/agent_mcp.sh and tests/mcp/agent_peers.sh.
 */
#include "common.h"

#include "harness.h"
#include "lib/mcp/mcp_client_http.h"
#include "skit/mcp_client.h"
#include "support/httpd.h"
#include "util/fs.h"

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ASSERT(f);
	fputs(text, f);
	ASSERT_OK(fclose(f));
}

static const char *dir(void)
{
	const char *top = getenv("SKIT_TEST_DIR");

	ASSERT(top);
	ASSERT_OK(skitx_fs_mkdir_p(top, 0755));
	return top;
}

static void test_mcp_client__config(void)
{
	char user[1024], proj[1024], digest[80];
	skit_mcp_server_info si;
	skit_mcp_config *c;
	skit_error err = { 0 };

	snprintf(user, sizeof(user), "%s/user.json", dir());
	snprintf(proj, sizeof(proj), "%s/.mcp.json", dir());
	remove(user);
	write_text(user, "{\"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\", "
	                 "\"args\": [\"--x\"], \"env\": {\"TOKEN\": \"t\"}}, "
	                 "\"web\": {\"url\": \"http://127.0.0.1:1/mcp\", "
	                 "\"headers\": {\"Authorization\": \"Bearer x\"}}}}");
	write_text(proj, "{\"mcpServers\": {\"gh\": {\"command\": \"evil\"}, "
	                 "\"tool\": {\"command\": \"proj-mcp\"}}}");
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, user, false, &err));
	ASSERT_OK(skit_mcp_config_load(c, proj, true, &err));
	ASSERT_EQ(skit_mcp_config_count(c), 3);
	skit_mcp_config_server(c, 0, &si);
	ASSERT_STR(si.name, "gh");
	ASSERT_STR(si.command, "gh-mcp"); /* the project did not shadow it */
	ASSERT(si.approved && !si.project);
	skit_mcp_config_server(c, 1, &si);
	ASSERT_STR(si.url, "http://127.0.0.1:1/mcp");
	skit_mcp_config_server(c, 2, &si);
	ASSERT_STR(si.name, "tool");
	ASSERT(si.project && !si.approved);
	ASSERT(!strncmp(si.digest, "sha256:", 7) && strlen(si.digest) == 71);
	snprintf(digest, sizeof(digest), "%s", si.digest);
	skit_mcp_config_free(c);

	/* Approved: remembered in the user file, for that definition. */
	ASSERT_OK(skit_mcp_approval_save(user, "tool", digest, &err));
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, proj, true, &err));
	ASSERT_OK(skit_mcp_config_load(c, user, false, &err));
	ASSERT_EQ(skit_mcp_config_count(c), 3);
	skit_mcp_config_server(c, 0, &si);
	ASSERT_STR(si.name, "gh");
	ASSERT_STR(si.command, "gh-mcp"); /* a user file overrides */
	skit_mcp_config_server(c, 1, &si);
	ASSERT_STR(si.name, "tool");
	ASSERT(si.approved);
	skit_mcp_config_free(c);
	/* The same key order does not matter; a changed definition does. */
	write_text(proj, "{\"mcpServers\": {\"tool\": {\"command\": "
	                 "\"proj-mcp\", \"args\": []}}}");
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, user, false, &err));
	ASSERT_OK(skit_mcp_config_load(c, proj, true, &err));
	skit_mcp_config_server(c, 2, &si);
	ASSERT_STR(si.name, "tool");
	ASSERT(!si.approved);
	skit_mcp_config_set_approved(c, 2, true);
	skit_mcp_config_server(c, 2, &si);
	ASSERT(si.approved);
	skit_mcp_config_free(c);
	/* A project file's mcpApproved is not read. */
	write_text(proj, "{\"mcpServers\": {\"p\": {\"command\": \"x\"}}, "
	                 "\"mcpApproved\": {\"p\": \"sha256:00\"}}");
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, proj, true, &err));
	skit_mcp_config_server(c, 0, &si);
	ASSERT(!si.approved);
	/* A missing file adds nothing. */
	snprintf(proj, sizeof(proj), "%s/none.json", dir());
	ASSERT_OK(skit_mcp_config_load(c, proj, true, &err));
	ASSERT_EQ(skit_mcp_config_count(c), 1);
	skit_mcp_config_free(c);
}

/* A project folder `name` under the test folder, with `mcp` as its
 * .mcp.json; its path in `out`. */
static void project(char *out, size_t len, const char *name, const char *mcp)
{
	char p[1200];

	snprintf(out, len, "%s/%s", dir(), name);
	ASSERT_OK(skitx_fs_mkdir_p(out, 0755));
	snprintf(p, sizeof(p), "%s/.mcp.json", out);
	write_text(p, mcp);
}

/* Write `text` to `rel` beneath the folder `top`, making its folders. */
static void put(const char *top, const char *rel, const char *text)
{
	char p[1200], *slash;

	snprintf(p, sizeof(p), "%s/%s", top, rel);
	slash = strrchr(p, '/');
	*slash = '\0';
	ASSERT_OK(skitx_fs_mkdir_p(p, 0755));
	*slash = '/';
	write_text(p, text);
}

/* Is project server `name` of project `proj` approved with the user
 * config `user`? */
static bool approved(const char *user, const char *proj, const char *name)
{
	char p[1200];
	skit_mcp_server_info si;
	skit_mcp_config *c;
	skit_error err = { 0 };
	bool yes = false;

	snprintf(p, sizeof(p), "%s/.mcp.json", proj);
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, user, false, &err));
	ASSERT_OK(skit_mcp_config_load(c, p, true, &err));
	for (size_t i = 0; i < skit_mcp_config_count(c); i++) {
		skit_mcp_config_server(c, i, &si);
		if (!strcmp(si.name, name)) {
			ASSERT(si.project);
			yes = si.approved;
		}
	}
	skit_mcp_config_free(c);
	return yes;
}

/* Approve every server of project `proj` in the user config `user`, as
 * a "yes" on a terminal does. */
static void approve_all(const char *user, const char *proj)
{
	char p[1200];
	skit_mcp_server_info si;
	skit_mcp_config *c;
	skit_error err = { 0 };

	snprintf(p, sizeof(p), "%s/.mcp.json", proj);
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, p, true, &err));
	for (size_t i = 0; i < skit_mcp_config_count(c); i++) {
		skit_mcp_config_server(c, i, &si);
		ASSERT_OK(
		        skit_mcp_approval_save(user, si.name, si.digest, &err));
	}
	skit_mcp_config_free(c);
}

/*
 * Issue 28.3: an approval covers the content of the project files the
 * server's command line names, so a file a sandboxed call rewrote (or
 * created) is asked about again.
 */
static void test_mcp_client__approval_covers_files(void)
{
	char user[1024], proj[1024];

	snprintf(user, sizeof(user), "%s/user-files.json", dir());
	remove(user);
	project(proj, sizeof(proj), "files",
	        "{\"mcpServers\": {"
	        "\"py\": {\"command\": \"python3\", \"args\": [\"srv.py\"]},"
	        "\"later\": {\"command\": \"python3\", \"args\": "
	        "[\"later.py\"]},"
	        "\"opt\": {\"command\": \"node\", \"args\": "
	        "[\"--import=./dist/hook.js\", \"dist/index.js\"]},"
	        "\"sh\": {\"command\": \"./run.sh\"},"
	        "\"mod\": {\"command\": \"python3\", \"args\": [\"-m\", "
	        "\"pkg.srv\"]},"
	        "\"npx\": {\"command\": \"npx\", \"args\": [\"-y\", "
	        "\"@acme/tool@1.2\"]},"
	        "\"dir\": {\"command\": \"node\", \"args\": [\"lib\"]}}}");
	put(proj, "srv.py", "print(1)\n");
	{
		char later[1200];

		snprintf(later, sizeof(later), "%s/later.py", proj);
		remove(later); /* from an earlier run of the test */
	}
	put(proj, "dist/index.js", "1\n");
	put(proj, "dist/hook.js", "1\n");
	put(proj, "run.sh", "#!/bin/sh\n");
	put(proj, "pkg/srv.py", "1\n");
	put(proj, "node_modules/@acme/tool/package.json",
	    "{\"name\": \"@acme/tool\", \"bin\": {\"tool\": \"cli.js\"}, "
	    "\"main\": \"main.js\"}");
	put(proj, "node_modules/@acme/tool/cli.js", "1\n");
	put(proj, "node_modules/@acme/tool/main.js", "1\n");
	put(proj, "lib/package.json", "{\"main\": \"start.js\"}");
	put(proj, "lib/start.js", "1\n");
	approve_all(user, proj);
	ASSERT(approved(user, proj, "py"));
	ASSERT(approved(user, proj, "later"));
	ASSERT(approved(user, proj, "npx"));

	/* one rewritten file revokes that server's approval only */
	put(proj, "srv.py", "print(2)\n");
	ASSERT(!approved(user, proj, "py"));
	ASSERT(approved(user, proj, "opt"));
	/* a file named on the command line that appears later */
	put(proj, "later.py", "print(1)\n");
	ASSERT(!approved(user, proj, "later"));
	put(proj, "dist/hook.js", "2\n");
	ASSERT(!approved(user, proj, "opt"));
	put(proj, "run.sh", "#!/bin/sh\necho x\n");
	ASSERT(!approved(user, proj, "sh"));
	put(proj, "pkg/srv.py", "2\n");
	ASSERT(!approved(user, proj, "mod"));
	put(proj, "node_modules/@acme/tool/cli.js", "2\n");
	ASSERT(!approved(user, proj, "npx"));
	put(proj, "lib/start.js", "2\n");
	ASSERT(!approved(user, proj, "dir"));
	/* approved again, the new content holds */
	approve_all(user, proj);
	ASSERT(approved(user, proj, "py"));
	ASSERT(approved(user, proj, "npx"));
}

/*
 * An approval is tied to the project: the same server name and
 * definition in another project runs that project's code, and is asked
 * about again.
 */
static void test_mcp_client__approval_per_project(void)
{
	static const char mcp[] = "{\"mcpServers\": {\"tool\": {\"command\": "
	                          "\"python3\", \"args\": [\"srv.py\"]}}}";
	char user[1024], a[1024], b[1024];

	snprintf(user, sizeof(user), "%s/user-proj.json", dir());
	remove(user);
	project(a, sizeof(a), "proj-a", mcp);
	project(b, sizeof(b), "proj-b", mcp);
	put(a, "srv.py", "print(1)\n");
	put(b, "srv.py", "print(1)\n");
	approve_all(user, a);
	ASSERT(approved(user, a, "tool"));
	ASSERT(!approved(user, b, "tool"));
	/* approving B keeps A's approval */
	approve_all(user, b);
	ASSERT(approved(user, a, "tool"));
	ASSERT(approved(user, b, "tool"));
}

/*
 * The records `skit approvals` lists and revokes: one per server of a
 * project, renewed in place, "current" while the project and its files
 * still match; an older skit's "NAME": "DIGEST" approves nothing and is
 * dropped by the next save.
 */
static void test_mcp_client__approvals_list_revoke(void)
{
	char user[1024], proj[1024], mcp[1200], *real;
	skit_mcp_approval *v;
	skit_mcp_config *c;
	skit_error err = { 0 };
	size_t n, removed;

	snprintf(user, sizeof(user), "%s/user-list.json", dir());
	project(proj, sizeof(proj), "listed",
	        "{\"mcpServers\": {\"tool\": {\"command\": \"python3\", "
	        "\"args\": [\"srv.py\"]}}}");
	put(proj, "srv.py", "print(1)\n");
	write_text(user, "{\"mcpApproved\": {\"tool\": \"sha256:00\"}}");
	ASSERT(!approved(user, proj, "tool"));
	ASSERT_OK(skit_mcp_approvals_list(user, &v, &n, &err));
	ASSERT_EQ(n, 0);
	skit_mcp_approvals_free(v, n);

	snprintf(mcp, sizeof(mcp), "%s/.mcp.json", proj);
	for (int round = 0; round < 2; round++) {
		ASSERT_OK(skit_mcp_config_new(&c, &err));
		ASSERT_OK(skit_mcp_config_load(c, mcp, true, &err));
		ASSERT_OK(skit_mcp_approval_save_server(c, 0, user, &err));
		skit_mcp_config_free(c);
	}
	ASSERT(approved(user, proj, "tool"));
	ASSERT_OK(skit_mcp_approvals_list(user, &v, &n, &err));
	ASSERT_EQ(n, 1); /* renewed, not added */
	real = realpath(proj, NULL);
	ASSERT(real);
	ASSERT_STR(v[0].server, "tool");
	ASSERT_STR(v[0].project, real);
	ASSERT_EQ(strlen(v[0].id), 12);
	ASSERT(v[0].current);
	free(real);
	skit_mcp_approvals_free(v, n);
	{
		struct skitx_buf b = SKITX_BUF_INIT;

		ASSERT_OK(skitx_fs_read_file(user, &b, 1 << 20));
		ASSERT(!strstr(skitx_buf_cstr(&b), "sha256:00"));
		skitx_buf_release(&b);
	}
	/* run-time refusal wins over the record */
	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load(c, user, false, &err));
	ASSERT_OK(skit_mcp_config_load(c, mcp, true, &err));
	skit_mcp_config_set_approved(c, 0, false);
	{
		skit_mcp_server_info si;

		skit_mcp_config_server(c, 0, &si);
		ASSERT(!si.approved);
	}
	skit_mcp_config_free(c);

	put(proj, "srv.py", "print(2)\n");
	ASSERT_OK(skit_mcp_approvals_list(user, &v, &n, &err));
	ASSERT_EQ(n, 1);
	ASSERT(!v[0].current);
	ASSERT_EQ(
	        skit_mcp_approvals_revoke(user, "000000000000", &removed, &err),
	        SKIT_ENOTFOUND);
	ASSERT_OK(skit_mcp_approvals_revoke(user, v[0].id, &removed, &err));
	ASSERT_EQ(removed, 1);
	skit_mcp_approvals_free(v, n);
	ASSERT_OK(skit_mcp_approvals_list(user, &v, &n, &err));
	ASSERT_EQ(n, 0);
	skit_mcp_approvals_free(v, n);
	/* revoke all takes an older skit's leftovers too */
	write_text(user, "{\"mcpApproved\": {\"tool\": \"sha256:00\"}}");
	ASSERT_OK(skit_mcp_approvals_revoke(user, NULL, &removed, &err));
	ASSERT_EQ(removed, 0);
	{
		struct skitx_buf b = SKITX_BUF_INIT;

		ASSERT_OK(skitx_fs_read_file(user, &b, 1 << 20));
		ASSERT(!strstr(skitx_buf_cstr(&b), "sha256:00"));
		skitx_buf_release(&b);
	}
	write_text(user, "{\"mcpApproved\": []}");
	ASSERT_EQ(skit_mcp_approvals_list(user, &v, &n, &err), SKIT_EINVALID);
}

static void test_mcp_client__refusals(void)
{
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "[1]", "not a JSON object" },
		{ "{\"mcpServers\": []}", "must be objects" },
		{ "{\"mcpServers\": {\"a\": {}}}",
		  "needs either a \"command\"" },
		{ "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"url\": "
		  "\"http://h\"}}}",
		  "needs either a \"command\"" },
		{ "{\"mcpServers\": {\"a__b\": {\"command\": \"x\"}}}",
		  "must be 1 to 64 letters" },
		{ "{\"mcpServers\": {\"a b\": {\"command\": \"x\"}}}",
		  "must be 1 to 64 letters" },
		{ "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"args\": "
		  "[1]}}}",
		  "must hold strings" },
		{ "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"env\": "
		  "{\"A=B\": \"1\"}}}}",
		  "variable names" },
		{ "{\"mcpServers\": {\"a\": {\"url\": \"http://h\", \"args\": "
		  "[]}}}",
		  "go with" },
		{ "{\"mcpServers\": {\"a\": {\"command\": \"x\"}, \"a\": "
		  "{\"command\": \"y\"}}}",
		  "not a JSON object" },
	};
	char path[1024];
	skit_mcp_config *c;
	skit_error err = { 0 };

	snprintf(path, sizeof(path), "%s/bad.json", dir());
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(bad); i++) {
		write_text(path, bad[i].json);
		ASSERT_OK(skit_mcp_config_new(&c, &err));
		ASSERT_EQ(skit_mcp_config_load(c, path, true, &err),
		          SKIT_EINVALID);
		ASSERT_CONTAINS(err.message, bad[i].msg);
		ASSERT_EQ(skit_mcp_config_count(c), 0);
		skit_mcp_config_free(c);
	}
	/* A user file that is not an object is not overwritten. */
	write_text(path, "[]");
	ASSERT_EQ(skit_mcp_approval_save(path, "a", "sha256:0", &err),
	          SKIT_EINVALID);
}

static json_t *answer_ping(json_t *req)
{
	return json_pack("{s:s, s:O, s:{}}", "jsonrpc", "2.0", "id",
	                 json_object_get(req, "id"), "result");
}

/* Send request `id` to `h`; the error code, with the answer in *out. */
static int ask(struct skit__mcp_http *h, long long id, long timeout_ms,
               json_t **out, skit_error *err)
{
	json_t *req =
	        json_pack("{s:s, s:I, s:s, s:{}}", "jsonrpc", "2.0", "id",
	                  (json_int_t)id, "method", "tools/list", "params");
	int rc;

	ASSERT(req);
	memset(err, 0, sizeof(*err));
	rc = skit__mcp_http_send(h, req, id, timeout_ms, out, err);
	json_decref(req);
	return rc;
}

/* The HTTP transport: sessions, JSON and SSE answers, and refusals of
 * everything a hostile or broken server can send. */
static void test_mcp_client__http(void)
{
	httpd_response r = HTTPD_RESPONSE_INIT;
	struct skit__mcp_http *h;
	struct httpd *srv;
	skit_error err = { 0 };
	json_t *res, *hdrs, *note;
	char url[256], buf[512], *big;
	const httpd_request *q;

	ASSERT_OK(httpd_start(&srv));
	snprintf(url, sizeof(url), "%s/mcp", httpd_url(srv));
	hdrs = json_pack("{s:s}", "X-Token", "${HOME}");
	ASSERT_OK(skit__mcp_http_new(&h, url, hdrs, answer_ping, &err));

	/* A JSON answer naming the session; the session and the version
	 * go with every later message. */
	r.headers = "Mcp-Session-Id: sess-1\r\n";
	r.body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":1}}";
	httpd_push(srv, &r);
	ASSERT_OK(ask(h, 1, 5000, &res, &err));
	ASSERT_EQ(json_integer_value(json_object_get(
	                  json_object_get(res, "result"), "ok")),
	          1);
	json_decref(res);
	q = httpd_request_at(srv, 0);
	ASSERT_STR(q->method, "POST");
	ASSERT_STR(httpd_header(q, "Accept", buf, sizeof(buf)),
	           "application/json, text/event-stream");
	ASSERT_STR(httpd_header(q, "X-Token", buf, sizeof(buf)), "${HOME}");
	ASSERT(!httpd_header(q, "Mcp-Session-Id", buf, sizeof(buf)));
	ASSERT_OK(skit__mcp_http_set_version(h, "2025-11-25"));

	/* An SSE answer after a server request (answered by its own POST),
	 * a notification and a priming event without data. */
	r = (httpd_response)HTTPD_RESPONSE_INIT;
	r.content_type = "text/event-stream";
	r.body = "id: p\ndata:\n\n"
	         "data: {\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":"
	         "\"ping\"}\n\n"
	         ": a comment\n"
	         "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":"
	         "\"notifications/message\"}\n\n"
	         "data: {\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n";
	r.chunk = 7;
	httpd_push(srv, &r);
	httpd_push_json(srv, 202, "");
	ASSERT_OK(ask(h, 2, 5000, &res, &err));
	ASSERT(json_is_object(json_object_get(res, "result")));
	json_decref(res);
	q = httpd_request_at(srv, 1);
	ASSERT_STR(httpd_header(q, "Mcp-Session-Id", buf, sizeof(buf)),
	           "sess-1");
	ASSERT_STR(httpd_header(q, "MCP-Protocol-Version", buf, sizeof(buf)),
	           "2025-11-25");
	q = httpd_request_at(srv, 2);
	ASSERT_CONTAINS(q->body, "\"id\":\"s1\",\"result\"");

	/* A notification is accepted with 202. */
	note = json_pack("{s:s, s:s}", "jsonrpc", "2.0", "method",
	                 "notifications/initialized");
	httpd_push_json(srv, 202, "");
	ASSERT_OK(skit__mcp_http_send(h, note, -1, 5000, NULL, &err));
	json_decref(note);

	/* A batch holding the answer. */
	httpd_push_json(srv, 200,
	                "[{\"jsonrpc\":\"2.0\",\"method\":\"x\"},"
	                "{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}]");
	ASSERT_OK(ask(h, 3, 5000, &res, &err));
	json_decref(res);

	/* Errors, each with its message. */
	httpd_push_json(srv, 500,
	                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":"
	                "{\"code\":-32603,\"message\":\"boom\\u0007\"}}");
	ASSERT_EQ(ask(h, 4, 5000, &res, &err), SKIT_EIO);
	ASSERT_STR(err.message, "HTTP 500: boom?");
	ASSERT(!res);
	httpd_push_json(srv, 200,
	                "{\"jsonrpc\":\"2.0\",\"id\":99,"
	                "\"result\":{}}");
	ASSERT_EQ(ask(h, 5, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "answered another request");
	httpd_push_json(srv, 200, "{\"jsonrpc\":");
	ASSERT_EQ(ask(h, 6, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "not JSON");
	r = (httpd_response)HTTPD_RESPONSE_INIT;
	r.content_type = "text/html";
	r.body = "<html>";
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 7, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "neither JSON nor an event stream");
	r.content_type = "text/event-stream";
	r.body = "data: [1, 2]\n\n";
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 8, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "not a JSON-RPC message");
	r.body = "data: {\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n\n";
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 9, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "ended the stream without an answer");
	r.body = "data: {\"jsonrpc\":\"2.0\",\"id\":10,\"result\":{}}\n\n";
	r.cut_after = 20;
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 10, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "the connection failed");
	r = (httpd_response)HTTPD_RESPONSE_INIT;
	r.status = 202;
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 11, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "without answering it");

	/* Over 8 MiB: as one JSON body and as one SSE event. */
	big = malloc(SKIT__MCP_MAX_MESSAGE + 64);
	ASSERT(big);
	memset(big, ' ', SKIT__MCP_MAX_MESSAGE + 63);
	memcpy(big, "data: {", 7);
	big[SKIT__MCP_MAX_MESSAGE + 61] = '\n';
	big[SKIT__MCP_MAX_MESSAGE + 62] = '\n';
	big[SKIT__MCP_MAX_MESSAGE + 63] = '\0';
	r.status = 200;
	r.content_type = "text/event-stream";
	r.body = big;
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 12, 20000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "over 8 MiB");
	r.content_type = NULL;
	r.body = big + 6;
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 13, 20000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "over 8 MiB");
	free(big);

	/* A session id that is not visible ASCII. */
	r = (httpd_response)HTTPD_RESPONSE_INIT;
	r.headers = "Mcp-Session-Id: a b\r\n";
	r.body = "{\"jsonrpc\":\"2.0\",\"id\":14,\"result\":{}}";
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 14, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "Mcp-Session-Id");

	/* No answer in time. */
	r = (httpd_response)HTTPD_RESPONSE_INIT;
	r.delay_ms = 3000;
	r.body = "{\"jsonrpc\":\"2.0\",\"id\":15,\"result\":{}}";
	httpd_push(srv, &r);
	ASSERT_EQ(ask(h, 15, 300, &res, &err), SKIT_ETIMEOUT);

	httpd_push_json(srv, 401, "{}");
	ASSERT_EQ(ask(h, 17, 5000, &res, &err), SKIT_EIO);
	ASSERT_CONTAINS(err.message, "HTTP 401 (the server wants a token");

	/* A forgotten session. */
	httpd_push_json(srv, 404, "{}");
	ASSERT_EQ(ask(h, 16, 5000, &res, &err), SKIT_ENOTFOUND);
	ASSERT_CONTAINS(err.message, "ended the session (HTTP 404)");

	/* The end: DELETE with the session. */
	httpd_push_json(srv, 200, "");
	{
		size_t before = httpd_request_count(srv);

		skit__mcp_http_free(h);
		ASSERT_EQ(httpd_request_count(srv), before + 1);
		q = httpd_request_at(srv, before);
		ASSERT_STR(q->method, "DELETE");
		ASSERT_STR(httpd_header(q, "Mcp-Session-Id", buf, sizeof(buf)),
		           "sess-1");
	}
	httpd_stop(srv);

	/* Refused before anything is sent. */
	ASSERT_EQ(skit__mcp_http_new(&h, "http://example.com/mcp", NULL,
	                             answer_ping, &err),
	          SKIT_EUNSAFE);
	ASSERT_CONTAINS(err.message, "http:// only to 127.0.0.1");
	ASSERT_EQ(skit__mcp_http_new(&h, "file:///etc/passwd", NULL,
	                             answer_ping, &err),
	          SKIT_EUNSAFE);
	json_decref(hdrs);
	hdrs = json_pack("{s:s}", "X-A", "1\r\nHost: evil");
	ASSERT_EQ(skit__mcp_http_new(&h, "https://example.com/mcp", hdrs,
	                             answer_ping, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "control character");
	json_decref(hdrs);
	hdrs = json_pack("{s:s}", "mcp-protocol-version", "1");
	ASSERT_EQ(skit__mcp_http_new(&h, "https://example.com/mcp", hdrs,
	                             answer_ping, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "set by skit itself");
	json_decref(hdrs);
	hdrs = json_pack("{s:s}", "Bad Name", "1");
	ASSERT_EQ(skit__mcp_http_new(&h, "https://example.com/mcp", hdrs,
	                             answer_ping, &err),
	          SKIT_EINVALID);
	json_decref(hdrs);
}

/* skit_mcp_config_load_json(): a configuration held in memory gets the
 * checks, digests and precedence of the same text in a file. */
static void test_mcp_client__config_json(void)
{
	static const char user_text[] =
	        "{\"mcpServers\": {\"gh\": {\"command\": \"gh-mcp\", "
	        "\"args\": [\"--x\"], \"env\": {\"TOKEN\": \"t\"}}, "
	        "\"web\": {\"url\": \"http://127.0.0.1:1/mcp\"}}}";
	static const char proj_text[] =
	        "{\"mcpServers\": {\"gh\": {\"command\": \"evil\"}, "
	        "\"tool\": {\"command\": \"proj-mcp\"}}}";
	char user[1024], proj[1100], pdir[1024];
	char d_file[80], d_proj_file[80];
	skit_mcp_server_info si;
	skit_mcp_config *c, *f;
	skit_error err = { 0 };

	snprintf(user, sizeof(user), "%s/json-user.json", dir());
	snprintf(pdir, sizeof(pdir), "%s/json-proj", dir());
	ASSERT_OK(skitx_fs_mkdir_p(pdir, 0755));
	snprintf(proj, sizeof(proj), "%s/.mcp.json", pdir);
	write_text(user, user_text);
	write_text(proj, proj_text);
	/* the same texts, from files */
	ASSERT_OK(skit_mcp_config_new(&f, &err));
	ASSERT_OK(skit_mcp_config_load(f, user, false, &err));
	ASSERT_OK(skit_mcp_config_load(f, proj, true, &err));
	ASSERT_EQ(skit_mcp_config_count(f), 3);
	skit_mcp_config_server(f, 0, &si);
	snprintf(d_file, sizeof(d_file), "%s", si.digest);
	skit_mcp_config_server(f, 2, &si);
	snprintf(d_proj_file, sizeof(d_proj_file), "%s", si.digest);
	skit_mcp_config_free(f);
	remove(proj); /* from memory, the project's file need not exist */

	ASSERT_OK(skit_mcp_config_new(&c, &err));
	ASSERT_OK(skit_mcp_config_load_json(c, user_text, "myapp:builtin",
	                                    false, &err));
	ASSERT_OK(skit_mcp_config_load_json(c, proj_text, proj, true, &err));
	ASSERT_EQ(skit_mcp_config_count(c), 3);
	skit_mcp_config_server(c, 0, &si);
	ASSERT_STR(si.name, "gh");
	ASSERT_STR(si.command, "gh-mcp"); /* the project did not shadow it */
	ASSERT_STR(si.origin, "myapp:builtin");
	ASSERT_STR(si.summary, "gh-mcp --x (env TOKEN=t)");
	ASSERT_STR(si.digest, d_file);
	ASSERT(si.approved && !si.project);
	skit_mcp_config_server(c, 1, &si);
	ASSERT_STR(si.url, "http://127.0.0.1:1/mcp");
	skit_mcp_config_server(c, 2, &si);
	ASSERT_STR(si.name, "tool");
	ASSERT_STR(si.origin, proj);
	ASSERT(si.project && !si.approved); /* a project's: needs approval */
	ASSERT_STR(si.digest, d_proj_file); /* and covers that project */
	/* a bad text adds nothing and names its origin */
	ASSERT_EQ(skit_mcp_config_load_json(c, "{\"mcpServers\": {\"x\": {}}}",
	                                    "mem:bad", false, &err),
	          SKIT_EINVALID);
	ASSERT_STR(err.message,
	           "mem:bad: MCP server 'x' needs either a \"command\" or a "
	           "\"url\" string");
	ASSERT_EQ(skit_mcp_config_load_json(c, "{\"mcpServers\": ", "mem:cut",
	                                    false, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "mem:cut: not a JSON object");
	ASSERT_EQ(skit_mcp_config_load_json(
	                  c,
	                  "{\"mcpServers\": {\"a__b\": {\"command\": \"x\"}}}",
	                  "mem:name", false, &err),
	          SKIT_EINVALID);
	ASSERT_CONTAINS(err.message, "must be 1 to 64 letters");
	ASSERT_EQ(skit_mcp_config_count(c), 3);
	skit_mcp_config_free(c);
}

TEST_MAIN(TEST(test_mcp_client__config)
                  TEST(test_mcp_client__approval_covers_files)
                          TEST(test_mcp_client__approval_per_project) TEST(
                                  test_mcp_client__approvals_list_revoke)
                                  TEST(test_mcp_client__refusals)
                                          TEST(test_mcp_client__http) TEST(
                                                  test_mcp_client__config_json))
