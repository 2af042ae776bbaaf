/* SPDX-License-Identifier: MIT */
/*
 * test_mcp_client.c - the `mcpServers` configuration: shapes, refusals,
 * digests per definition, remembered approvals, and a project that
 * cannot shadow a user's server. The client itself runs against real
 * and fake servers in tests/cli/agent_mcp.sh and tests/mcp/agent_peers.sh.
 */
#include "common.h"

#include "harness.h"
#include "skit/mcp_client.h"
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

TEST_MAIN(TEST(test_mcp_client__config) TEST(test_mcp_client__refusals))
