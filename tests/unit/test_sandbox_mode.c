/* SPDX-License-Identifier: MIT */
/*
 * test_sandbox_mode.c - the `sandbox` object of config files: a project's
 * config (untrusted) may make the sandbox stricter, never looser: no
 * full-access, and a disk cap it may lower but never raise, whether the
 * user set a cap or left the default.
 */
#include "common.h"

#include "harness.h"
#include "skit/sandbox.h"
#include "util/fs.h"

static char dir[1024];

/* Write `json` to a config file under SKIT_TEST_DIR; its path in `path`. */
static void config_file(char *path, size_t cap, const char *name,
                        const char *json)
{
	FILE *f;

	snprintf(path, cap, "%s/%s", dir, name);
	f = fopen(path, "w");
	ASSERT(f);
	fputs(json, f);
	ASSERT_OK(fclose(f));
}

/* The cap after loading `user` (trusted, may be NULL) then `project`. */
static uint64_t cap_after(const char *user, const char *project)
{
	skit_sandbox_config cfg = SKIT_SANDBOX_CONFIG_INIT;
	char path[1100];

	if (user) {
		config_file(path, sizeof(path), "user.json", user);
		ASSERT_OK(skit_sandbox_config_load(&cfg, path, true, NULL));
	}
	config_file(path, sizeof(path), "project.json", project);
	ASSERT_OK(skit_sandbox_config_load(&cfg, path, false, NULL));
	return cfg.disk_cap;
}

static void set_up(void)
{
	const char *top = getenv("SKIT_TEST_DIR");

	ASSERT(top);
	snprintf(dir, sizeof(dir), "%s", top);
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
}

/*
 * Security issue 28: with no cap in the user config, a project's
 * `disk_cap: 2^50` was taken as it stood (compared against "no cap yet").
 * The default is the bound when the user set none.
 */
static void test_sandbox_mode__project_never_raises_disk_cap(void)
{
	const uint64_t def = SKIT_SANDBOX_DEFAULT_DISK_CAP;
	uint64_t cap;

	set_up();
	/* no user cap: the project's raise is ignored (0: the default) */
	cap = cap_after(NULL,
	                "{\"sandbox\": {\"disk_cap\": 1125899906842624}}");
	ASSERT(cap == 0 || cap <= def);
	cap = cap_after("{}",
	                "{\"sandbox\": {\"disk_cap\": 1125899906842624}}");
	ASSERT(cap == 0 || cap <= def);
	/* one byte over the default is a raise too */
	cap = cap_after(NULL, "{\"sandbox\": {\"disk_cap\": 1073741825}}");
	ASSERT(cap == 0 || cap <= def);
	/* the user's cap bounds it, lower or higher than the default */
	ASSERT_EQ(cap_after("{\"sandbox\": {\"disk_cap\": 268435456}}",
	                    "{\"sandbox\": {\"disk_cap\": 536870912}}"),
	          268435456);
	ASSERT_EQ(cap_after("{\"sandbox\": {\"disk_cap\": 4294967296}}",
	                    "{\"sandbox\": {\"disk_cap\": 8589934592}}"),
	          4294967296LL);
	/* lowering is the project's right */
	ASSERT_EQ(cap_after(NULL, "{\"sandbox\": {\"disk_cap\": 1048576}}"),
	          1048576);
	ASSERT_EQ(cap_after("{\"sandbox\": {\"disk_cap\": 4294967296}}",
	                    "{\"sandbox\": {\"disk_cap\": 2147483648}}"),
	          2147483648LL);
	ASSERT_EQ(cap_after(NULL, "{\"sandbox\": {\"disk_cap\": 1073741824}}"),
	          1073741824);
}

/* The user's own config (trusted) may raise the cap, and full-access
 * stays the user's to choose. */
static void test_sandbox_mode__user_config_may_raise(void)
{
	skit_sandbox_config cfg = SKIT_SANDBOX_CONFIG_INIT;
	char path[1100];

	set_up();
	config_file(path, sizeof(path), "user.json",
	            "{\"sandbox\": {\"disk_cap\": 1125899906842624, "
	            "\"mode\": \"full-access\"}}");
	ASSERT_OK(skit_sandbox_config_load(&cfg, path, true, NULL));
	ASSERT(cfg.disk_cap == ((uint64_t)1 << 50));
	ASSERT_EQ(cfg.mode, SKIT_SANDBOX_FULL_ACCESS);
	config_file(path, sizeof(path), "project.json",
	            "{\"sandbox\": {\"mode\": \"full-access\"}}");
	cfg = (skit_sandbox_config)SKIT_SANDBOX_CONFIG_INIT;
	ASSERT_OK(skit_sandbox_config_load(&cfg, path, false, NULL));
	ASSERT(cfg.full_access_refused);
	ASSERT_EQ(cfg.mode, SKIT_SANDBOX_WORKSPACE_WRITE);
}

TEST_MAIN(TEST(test_sandbox_mode__project_never_raises_disk_cap)
                  TEST(test_sandbox_mode__user_config_may_raise))
