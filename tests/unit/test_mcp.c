/* SPDX-License-Identifier: MIT */
/*
 * test_mcp.c - the MCP server's protocol core against hostile and
 * malformed input (each is a JSON-RPC error, never a crash), the
 * handshake, paging, the frontmatter's JSON, the skill:// path checks
 * and the stdio framing. The real peers are in tests/mcp/peers.sh.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "harness.h"
#include "skit/mcp.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/path.h"

struct fixture {
	skit_registry *reg;
	skit_mcp_server *srv;
};

static const char *fixture_root(void)
{
	static char path[4096];
	const char *src = getenv("SKIT_SOURCE_DIR");

	snprintf(path, sizeof(path), "%s/tests/mcp/skills", src ? src : ".");
	return path;
}

static void open_root(struct fixture *f, const char *root, size_t page,
                      size_t max_message)
{
	skit_mcp_options mo = SKIT_MCP_OPTIONS_INIT;

	ASSERT_OK(skit_registry_new(&f->reg, NULL));
	ASSERT_OK(skit_registry_add_root(f->reg, "root", root, NULL));
	ASSERT_OK(skit_registry_scan(f->reg, NULL));
	mo.registry = f->reg;
	mo.page_size = page;
	mo.max_message = max_message;
	ASSERT_OK(skit_mcp_server_new(&f->srv, &mo, NULL));
}

static void close_fixture(struct fixture *f)
{
	skit_mcp_server_free(f->srv);
	skit_registry_free(f->reg);
}

/* Send `msg`; the parsed response, or NULL when there was none. */
static json_t *send_raw(struct fixture *f, const char *msg, size_t len)
{
	char *resp = (char *)"unset";
	json_t *j;

	ASSERT_OK(skit_mcp_server_handle(f->srv, msg, len, &resp, NULL));
	if (!resp)
		return NULL;
	j = json_loads(resp, 0, NULL);
	ASSERT(j != NULL);
	ASSERT_STR(json_string_value(json_object_get(j, "jsonrpc")), "2.0");
	skit_free(resp);
	return j;
}

static json_t *send(struct fixture *f, const char *msg)
{
	return send_raw(f, msg, strlen(msg));
}

/* The error code of a response (0 when it is a result). */
static int error_code(json_t *resp)
{
	json_t *e = json_object_get(resp, "error");

	ASSERT(resp != NULL);
	if (!e) {
		ASSERT(json_object_get(resp, "result") != NULL);
		return 0;
	}
	ASSERT(json_is_string(json_object_get(e, "message")));
	return (int)json_integer_value(json_object_get(e, "code"));
}

static int send_code(struct fixture *f, const char *msg)
{
	json_t *r = send(f, msg);
	int code = error_code(r);

	json_decref(r);
	return code;
}

static void initialize(struct fixture *f)
{
	json_t *r = send(f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                    "\"initialize\",\"params\":{\"protocolVersion\":"
	                    "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":"
	                    "{\"name\":\"t\",\"version\":\"1\"}}}");

	ASSERT_EQ(error_code(r), 0);
	ASSERT_STR(json_string_value(json_object_get(
	                   json_object_get(r, "result"), "protocolVersion")),
	           "2025-11-25");
	json_decref(r);
	ASSERT(send(f, "{\"jsonrpc\":\"2.0\",\"method\":"
	               "\"notifications/initialized\"}") == NULL);
}

static void test_mcp__before_initialize(void)
{
	struct fixture f;

	open_root(&f, fixture_root(), 0, 0);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                        "\"tools/list\"}"),
	          -32600);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	                        "\"skills/list\"}"),
	          -32600);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	                        "\"resources/read\",\"params\":{\"uri\":"
	                        "\"skill://unit-convert/SKILL.md\"}}"),
	          -32600);
	/* ping is allowed at any time */
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	                        "\"ping\"}"),
	          0);
	initialize(&f);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":"
	                        "\"tools/list\"}"),
	          0);
	close_fixture(&f);
}

/* A client without the skills extension learns which skills exist: the
 * index in initialize's instructions and in use_skill's description. */
static void test_mcp__index_for_plain_clients(void)
{
	struct fixture f;
	json_t *r, *tools, *t;
	const char *instr, *desc = NULL;
	size_t i;

	open_root(&f, fixture_root(), 0, 0);
	r = send(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	             "\"params\":{\"protocolVersion\":\"2025-11-25\"}}");
	ASSERT_EQ(error_code(r), 0);
	instr = json_string_value(
	        json_object_get(json_object_get(r, "result"), "instructions"));
	ASSERT_CONTAINS(instr, "Call use_skill");
	ASSERT_CONTAINS(instr, "Available skills:\n");
	ASSERT_CONTAINS(instr, "- release-notes: Drafts release notes");
	ASSERT_CONTAINS(instr, "- unit-convert: Converts between");
	ASSERT(json_is_true(json_object_get(
	        json_object_get(json_object_get(json_object_get(r, "result"),
	                                        "capabilities"),
	                        "tools"),
	        "listChanged")));
	json_decref(r);
	ASSERT(send(&f, "{\"jsonrpc\":\"2.0\",\"method\":"
	                "\"notifications/initialized\"}") == NULL);
	r = send(&f,
	         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	ASSERT_EQ(error_code(r), 0);
	tools = json_object_get(json_object_get(r, "result"), "tools");
	json_array_foreach(tools, i, t)
	{
		if (!strcmp(json_string_value(json_object_get(t, "name")),
		            "use_skill"))
			desc = json_string_value(
			        json_object_get(t, "description"));
	}
	ASSERT_CONTAINS(desc, "- unit-convert: Converts between");
	ASSERT_CONTAINS(desc, "- internal-audit: ");
	json_decref(r);
	close_fixture(&f);
}

static void test_mcp__version_negotiation(void)
{
	struct fixture f;
	json_t *r, *caps;

	open_root(&f, fixture_root(), 0, 0);
	r = send(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	             "\"params\":{\"protocolVersion\":\"1999-01-01\"}}");
	ASSERT_EQ(error_code(r), 0);
	/* an unknown revision gets the newest the server speaks */
	ASSERT_STR(json_string_value(json_object_get(
	                   json_object_get(r, "result"), "protocolVersion")),
	           "2025-11-25");
	caps = json_object_get(json_object_get(r, "result"), "capabilities");
	ASSERT(json_object_get(json_object_get(caps, "extensions"),
	                       "io.modelcontextprotocol/skills") != NULL);
	ASSERT(json_object_get(caps, "resources") != NULL);
	json_decref(r);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	                        "\"initialize\",\"params\":{}}"),
	          -32602);
	close_fixture(&f);
}

static void test_mcp__malformed(void)
{
	static const char *const bad[] = {
		"garbage{",
		"",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"",
		"\"just a string\"",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"id\":2,\"method\":\"ping\"}",
	};
	struct fixture f;
	struct skitx_buf deep = SKITX_BUF_INIT;
	json_t *r;

	open_root(&f, fixture_root(), 0, 0);
	initialize(&f);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(bad); i++) {
		r = send(&f, bad[i]);
		ASSERT(error_code(r) == -32700 || error_code(r) == -32600);
		ASSERT(json_is_null(json_object_get(r, "id")));
		json_decref(r);
	}
	/* a batch, a number: not a request */
	ASSERT_EQ(send_code(&f, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                        "\"ping\"}]"),
	          -32600);
	ASSERT_EQ(send_code(&f, "42"), -32600);
	/* wrong jsonrpc, bad id, params not an object */
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":"
	                        "\"ping\"}"),
	          -32600);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":"
	                        "\"ping\"}"),
	          -32600);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":"
	                        "\"ping\"}"),
	          -32600);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                        "\"ping\",\"params\":[1,2]}"),
	          -32602);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}"),
	          -32600);
	/* invalid UTF-8 and a NUL byte */
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                        "\"\xff\xfe\"}"),
	          -32700);
	r = send_raw(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\0\"method\":\"ping\"}",
	             41);
	ASSERT_EQ(error_code(r), -32700);
	json_decref(r);
	/* 100,000 levels of nesting: refused by the parser, no recursion */
	for (int i = 0; i < 100000; i++)
		ASSERT_OK(skitx_buf_putc(&deep, '['));
	r = send_raw(&f, skitx_buf_cstr(&deep), skitx_buf_len(&deep));
	ASSERT_EQ(error_code(r), -32700);
	json_decref(r);
	skitx_buf_release(&deep);
	/* the server still answers */
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":"
	                        "\"ping\"}"),
	          0);
	close_fixture(&f);
}

static void test_mcp__unknown_methods(void)
{
	struct fixture f;
	json_t *r;

	open_root(&f, fixture_root(), 0, 0);
	initialize(&f);
	r = send(&f, "{\"jsonrpc\":\"2.0\",\"id\":\"abc\",\"method\":"
	             "\"no/such\"}");
	ASSERT_EQ(error_code(r), -32601);
	ASSERT_STR(json_string_value(json_object_get(r, "id")), "abc");
	json_decref(r);
	/* unknown notifications and responses get no answer */
	ASSERT(send(&f, "{\"jsonrpc\":\"2.0\",\"method\":\"no/such\"}") ==
	       NULL);
	ASSERT(send(&f, "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}") ==
	       NULL);
	ASSERT(send(&f, "{\"jsonrpc\":\"2.0\",\"method\":"
	                "\"notifications/cancelled\",\"params\":"
	                "{\"requestId\":3}}") == NULL);
	/* a tool that is not served, and run_skill_script without the flag */
	ASSERT_EQ(send_code(&f,
	                    "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	                    "\"tools/call\",\"params\":{\"name\":"
	                    "\"shell\",\"arguments\":{\"command\":\"id\"}}}"),
	          -32602);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	                        "\"tools/call\",\"params\":{\"name\":"
	                        "\"run_skill_script\",\"arguments\":{}}}"),
	          -32602);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	                        "\"logging/setLevel\",\"params\":{\"level\":"
	                        "\"loud\"}}"),
	          -32602);
	close_fixture(&f);
}

static void test_mcp__oversized(void)
{
	struct fixture f;
	struct skitx_buf big = SKITX_BUF_INIT;
	json_t *r;

	open_root(&f, fixture_root(), 0, 4096);
	initialize(&f);
	ASSERT_OK(skitx_buf_puts(&big,
	                         "{\"jsonrpc\":\"2.0\",\"id\":1,"
	                         "\"method\":\"ping\",\"params\":{\"x\":\""));
	for (int i = 0; i < 5000; i++)
		ASSERT_OK(skitx_buf_putc(&big, 'a'));
	ASSERT_OK(skitx_buf_puts(&big, "\"}}"));
	r = send_raw(&f, skitx_buf_cstr(&big), skitx_buf_len(&big));
	ASSERT_EQ(error_code(r), -32600);
	ASSERT_CONTAINS(json_string_value(json_object_get(
	                        json_object_get(r, "error"), "message")),
	                "too large");
	json_decref(r);
	skitx_buf_release(&big);
	close_fixture(&f);
}

static void test_mcp__dotdot(void)
{
	static const char *const uris[] = {
		"skill://release-notes/../unit-convert/SKILL.md",
		"skill://release-notes/references/../../unit-convert/SKILL.md",
		"skill://release-notes//etc/passwd",
		"skill://../etc/passwd",
		"skill://release-notes/",
		"skill:///SKILL.md",
		"file:///etc/passwd",
		"skill://no-such-skill/SKILL.md",
		"skill://release-notes/references",
		"skill://release-notes/missing.md",
	};
	struct fixture f;
	char msg[512];
	json_t *r;

	open_root(&f, fixture_root(), 0, 0);
	initialize(&f);
	for (size_t i = 0; i < SKIT_ARRAY_SIZE(uris); i++) {
		snprintf(msg, sizeof(msg),
		         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
		         "\"resources/read\",\"params\":{\"uri\":\"%s\"}}",
		         uris[i]);
		ASSERT_EQ(send_code(&f, msg), -32602);
		snprintf(msg, sizeof(msg),
		         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
		         "\"skills/get\",\"params\":{\"uri\":\"%s\"}}",
		         uris[i]);
		ASSERT_EQ(send_code(&f, msg), -32602);
	}
	/* the tool says no too, as a tool error */
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	                        "\"tools/call\",\"params\":{\"name\":"
	                        "\"use_skill\",\"arguments\":{\"name\":"
	                        "\"release-notes\"}}}"),
	          0);
	r = send(&f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\","
	             "\"params\":{\"name\":\"read_skill_resource\","
	             "\"arguments\":{\"skill\":\"release-notes\",\"path\":"
	             "\"../unit-convert/SKILL.md\"}}}");
	ASSERT_EQ(error_code(r), 0);
	ASSERT(json_is_true(
	        json_object_get(json_object_get(r, "result"), "isError")));
	json_decref(r);
	close_fixture(&f);
}

/* A skill holding a symbolic link out of its folder: never listed, never
 * read. */
static void test_mcp__symlink_escape(void)
{
	const char *top = getenv("SKIT_TEST_DIR");
	char root[4096], dir[4200], path[4300];
	struct fixture f;
	json_t *r;
	char *s;

	snprintf(root, sizeof(root), "%s/symlink-root",
	         top ? top : "/tmp/skit-test-mcp");
	snprintf(dir, sizeof(dir), "%s/leaky", root);
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	snprintf(path, sizeof(path), "%s/SKILL.md", dir);
	ASSERT_OK(skitx_fs_write_atomic(
	        path, "---\nname: leaky\ndescription: Links out.\n---\nBody\n",
	        49, 0644));
	snprintf(path, sizeof(path), "%s/secret.txt", dir);
	unlink(path);
	ASSERT_OK(symlink("/etc/passwd", path));
	open_root(&f, root, 0, 0);
	initialize(&f);
	r = send(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"skills/get\","
	             "\"params\":{\"uri\":\"skill://leaky/SKILL.md\"}}");
	ASSERT_EQ(error_code(r), 0);
	s = json_dumps(r, 0);
	ASSERT(strstr(s, "secret.txt") == NULL);
	free(s);
	json_decref(r);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	                        "\"resources/read\",\"params\":{\"uri\":"
	                        "\"skill://leaky/secret.txt\"}}"),
	          -32602);
	close_fixture(&f);
}

static void test_mcp__skills_paging(void)
{
	struct fixture f;
	json_t *r, *res;
	size_t seen = 0;
	char msg[256], cursor[32] = "";
	int pages = 0;

	open_root(&f, fixture_root(), 1, 0);
	initialize(&f);
	do {
		if (cursor[0])
			snprintf(msg, sizeof(msg),
			         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
			         "\"skills/list\",\"params\":{\"cursor\":"
			         "\"%s\"}}",
			         cursor);
		else
			snprintf(msg, sizeof(msg),
			         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
			         "\"skills/list\"}");
		r = send(&f, msg);
		ASSERT_EQ(error_code(r), 0);
		res = json_object_get(r, "result");
		ASSERT_EQ(json_array_size(json_object_get(res, "skills")), 1);
		ASSERT_STR(
		        json_string_value(json_object_get(res, "resultType")),
		        "complete");
		seen++;
		cursor[0] = '\0';
		if (json_object_get(res, "nextCursor"))
			snprintf(cursor, sizeof(cursor), "%s",
			         json_string_value(
			                 json_object_get(res, "nextCursor")));
		json_decref(r);
		pages++;
	} while (cursor[0] && pages < 10);
	ASSERT_EQ(seen, 3);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	                        "\"skills/list\",\"params\":{\"cursor\":"
	                        "\"99\"}}"),
	          -32602);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	                        "\"skills/list\",\"params\":{\"cursor\":"
	                        "\"-1x\"}}"),
	          -32602);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":"
	                        "\"resources/list\",\"params\":{\"cursor\":"
	                        "5}}"),
	          -32602);
	close_fixture(&f);
}

static void test_mcp__frontmatter_json(void)
{
	struct fixture f;
	json_t *r, *fm;

	open_root(&f, fixture_root(), 0, 0);
	initialize(&f);
	r = send(&f,
	         "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"skills/get\","
	         "\"params\":{\"uri\":\"skill://release-notes/SKILL.md\"}}");
	ASSERT_EQ(error_code(r), 0);
	fm = json_object_get(
	        json_object_get(json_object_get(r, "result"), "skill"),
	        "frontmatter");
	ASSERT_STR(json_string_value(json_object_get(fm, "name")),
	           "release-notes");
	ASSERT_STR(json_string_value(json_object_get(fm, "license")), "MIT");
	/* quoted "1.2" stays a string */
	ASSERT_STR(json_string_value(json_object_get(
	                   json_object_get(fm, "metadata"), "version")),
	           "1.2");
	json_decref(r);
	r = send(&f,
	         "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"skills/get\","
	         "\"params\":{\"uri\":\"skill://internal-audit/SKILL.md\"}}");
	fm = json_object_get(
	        json_object_get(json_object_get(r, "result"), "skill"),
	        "frontmatter");
	/* a plain false is a boolean, as a YAML reader sees it */
	ASSERT(json_is_false(json_object_get(fm, "user-invocable")));
	json_decref(r);
	/* skills/get wants the SKILL.md's URI */
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":"
	                        "\"skills/get\",\"params\":{\"uri\":"
	                        "\"skill://release-notes/references/"
	                        "template.md\"}}"),
	          -32602);
	close_fixture(&f);
}

static void test_mcp__progress_and_logging(void)
{
	struct fixture f;
	char *n = NULL;
	json_t *j;

	open_root(&f, fixture_root(), 0, 0);
	initialize(&f);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":"
	                        "\"logging/setLevel\",\"params\":{\"level\":"
	                        "\"info\"}}"),
	          0);
	ASSERT_EQ(send_code(&f, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":"
	                        "\"tools/call\",\"params\":{\"name\":"
	                        "\"search_skills\",\"arguments\":{\"query\":"
	                        "\"units\"},\"_meta\":{\"progressToken\":"
	                        "\"p1\"}}}"),
	          0);
	ASSERT_OK(skit_mcp_server_next_notification(f.srv, &n, NULL));
	ASSERT(n != NULL);
	j = json_loads(n, 0, NULL);
	ASSERT_STR(json_string_value(json_object_get(j, "method")),
	           "notifications/message");
	json_decref(j);
	skit_free(n);
	ASSERT_OK(skit_mcp_server_next_notification(f.srv, &n, NULL));
	ASSERT(n != NULL);
	j = json_loads(n, 0, NULL);
	ASSERT_STR(json_string_value(json_object_get(j, "method")),
	           "notifications/progress");
	ASSERT_STR(json_string_value(json_object_get(
	                   json_object_get(j, "params"), "progressToken")),
	           "p1");
	json_decref(j);
	skit_free(n);
	ASSERT_OK(skit_mcp_server_next_notification(f.srv, &n, NULL));
	ASSERT(n == NULL);
	close_fixture(&f);
}

/* The stdio framing: CRLF, blank lines, an oversized line, end of input. */
static void test_mcp__stdio_framing(void)
{
	const char *top = getenv("SKIT_TEST_DIR");
	struct skitx_buf big = SKITX_BUF_INIT, out = SKITX_BUF_INIT;
	char path[4096];
	struct fixture f;
	int in[2], fd;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/stdio.out",
	         top ? top : "/tmp/skit-test-mcp");
	ASSERT_OK(skitx_fs_mkdir_p(top ? top : "/tmp/skit-test-mcp", 0755));
	open_root(&f, fixture_root(), 0, 1024);
	ASSERT_OK(skitx_buf_puts(
	        &big,
	        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
	        "\"params\":{\"protocolVersion\":\"2025-06-18\"}}\r\n\n"));
	for (int i = 0; i < 100000; i++)
		ASSERT_OK(skitx_buf_putc(&big, 'x'));
	ASSERT_OK(skitx_buf_puts(&big, "\n{\"jsonrpc\":\"2.0\",\"id\":2,"
	                               "\"method\":\"ping\"}\n"));
	ASSERT_OK(pipe(in));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		close(in[0]);
		skitx_fs_write_all(in[1], skitx_buf_cstr(&big),
		                   skitx_buf_len(&big));
		_exit(0);
	}
	close(in[1]);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ASSERT(fd >= 0);
	ASSERT_OK(skit_mcp_serve_stdio(f.srv, in[0], fd, NULL, NULL));
	close(fd);
	close(in[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	ASSERT_OK(skitx_fs_read_file(path, &out, 1 << 20));
	/* three answers, in order: initialize, too large, ping */
	ASSERT_CONTAINS(skitx_buf_cstr(&out), "\"id\":1,\"result\"");
	ASSERT_CONTAINS(skitx_buf_cstr(&out), "message too large");
	ASSERT_CONTAINS(skitx_buf_cstr(&out), "{\"jsonrpc\":\"2.0\",\"id\":2,"
	                                      "\"result\":{}}");
	ASSERT(strstr(skitx_buf_cstr(&out), "too large") <
	       strstr(skitx_buf_cstr(&out), "\"id\":2"));
	skitx_buf_release(&out);
	skitx_buf_release(&big);
	close_fixture(&f);
}

/*
 * Scripts over HTTP need a token: without one any local user could run
 * them with arguments of their choosing. The server refuses before it
 * listens.
 */
static void test_mcp__http_scripts_need_token(void)
{
	skit_mcp_options mo = SKIT_MCP_OPTIONS_INIT;
	skit_mcp_http_options ho = SKIT_MCP_HTTP_INIT;
	skit_registry *reg;
	skit_mcp_server *srv;
	skit_error err = { 0 };
	volatile int stop = 1;

	ASSERT_OK(skit_registry_new(&reg, NULL));
	ASSERT_OK(skit_registry_add_root(reg, "root", fixture_root(), NULL));
	ASSERT_OK(skit_registry_scan(reg, NULL));
	mo.registry = reg;
	mo.allow_scripts = true;
	ASSERT_OK(skit_mcp_server_new(&srv, &mo, NULL));
	ASSERT_EQ(skit_mcp_serve_http(srv, &ho, &stop, &err), SKIT_EUSAGE);
	ASSERT_CONTAINS(err.message, "scripts over HTTP need a token");
	/* with a token it serves (and stops at once: `stop` is set) */
	ho.token = "0123456789abcdef";
	ASSERT_EQ(skit_mcp_serve_http(srv, &ho, &stop, &err), SKIT_ECANCELED);
	skit_mcp_server_free(srv);
	skit_registry_free(reg);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_mcp__before_initialize)
	TEST(test_mcp__version_negotiation)
	TEST(test_mcp__index_for_plain_clients)
	TEST(test_mcp__malformed)
	TEST(test_mcp__unknown_methods)
	TEST(test_mcp__oversized)
	TEST(test_mcp__dotdot)
	TEST(test_mcp__symlink_escape)
	TEST(test_mcp__skills_paging)
	TEST(test_mcp__frontmatter_json)
	TEST(test_mcp__progress_and_logging)
	TEST(test_mcp__stdio_framing)
	TEST(test_mcp__http_scripts_need_token)
)
/* clang-format on */
