/* SPDX-License-Identifier: MIT */
/*
 * test_pack_lock.c - the lock-file loader against hostile lock files:
 * an invalid skill entry is reported by name after the JSON document it
 * came from is gone (it was a use-after-free), through the public
 * skit_lock_read(), skit_verify() and skit_install_from_lock(), and a
 * dump of a loaded lock loads back to the same text.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lib/pack/pack_int.h"
#include "skit/skit.h"
#include "util/alloc.h"
#include "util/fs.h"

#define REPRO "{\"version\":1,\"skills\":{\"aaaaaaaaaaaaaaaaaaaaaaaa\":1}}"

/* A fresh folder under SKIT_TEST_DIR holding `.skit-lock.json` = text. */
static const char *root_with_lock(const char *name, const char *text)
{
	static char dir[4096];
	const char *top = getenv("SKIT_TEST_DIR");
	char path[4200], cmd[4200];

	snprintf(dir, sizeof(dir), "%s/%s",
	         top ? top : "/tmp/skit-test-pack-lock", name);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_OK(system(cmd));
	ASSERT_OK(skitx_fs_mkdir_p(dir, 0755));
	snprintf(path, sizeof(path), "%s/.skit-lock.json", dir);
	ASSERT_OK(skitx_fs_write_atomic(path, text, strlen(text), 0644));
	return dir;
}

static void test_pack_lock__invalid_entry_named(void)
{
	skit_error err = { 0 };
	skit_lock *lock = NULL;
	const char *root = root_with_lock("invalid-entry", REPRO);

	ASSERT_EQ(skit_lock_read(&lock, root, &err), SKIT_EINVALID);
	ASSERT(!lock);
	ASSERT_CONTAINS(err.message, "aaaaaaaaaaaaaaaaaaaaaaaa");
	ASSERT_CONTAINS(err.message, "not a valid entry");
	ASSERT(!strchr(err.message, '\n'));
}

static void test_pack_lock__invalid_entry_verify(void)
{
	skit_error err = { 0 };
	skit_verify_result *r = NULL;
	const char *root = root_with_lock("invalid-verify", REPRO);

	ASSERT(skit_verify(&r, root, NULL, &err) < 0);
	ASSERT(!r);
	ASSERT_CONTAINS(err.message, "aaaaaaaaaaaaaaaaaaaaaaaa");
}

static void test_pack_lock__invalid_entry_from_lock(void)
{
	skit_error err = { 0 };
	char lock[4200], target[4200];
	const char *root = root_with_lock("invalid-from-lock", REPRO);

	snprintf(lock, sizeof(lock), "%s/.skit-lock.json", root);
	snprintf(target, sizeof(target), "%s/target", root);
	ASSERT(skit_install_from_lock(target, lock, NULL, NULL, &err) < 0);
	ASSERT_CONTAINS(err.message, "aaaaaaaaaaaaaaaaaaaaaaaa");
	ASSERT_CONTAINS(err.message, "not a valid entry");
}

/* Each malformed shape is refused with the label first and leaves the
 * document empty. */
static void test_pack_lock__parse_bad_shapes(void)
{
	static const char *const bad[] = {
		"{\"version\":1,\"skills\":{\"x\":null}}",
		"{\"version\":1,\"skills\":{\"BAD NAME\":{\"files\":[],"
		"\"source\":\"s\"}}}",
		"{\"version\":1,\"skills\":{\"ok\":{\"files\":[{\"path\":"
		"\"../x\",\"size\":1,\"mode\":\"0644\",\"sha256\":\""
		"0000000000000000000000000000000000000000000000000000000000000000"
		"\"}],\"source\":\"s\"}}}",
		"{\"version\":1,\"skills\":{\"ok\":{\"files\":[]}}}",
		"{\"version\":2,\"skills\":{}}",
		"[1]",
		"{",
	};
	struct skit__lockdoc doc;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		skit_error err = { 0 };

		ASSERT_EQ(skit__lock_parse(&doc, bad[i], strlen(bad[i]), "L",
		                           &err),
		          SKIT_EINVALID);
		ASSERT_EQ(doc.n, 0);
		ASSERT(!doc.skills);
		ASSERT(!strncmp(err.message, "L: ", 3));
	}
}

static void test_pack_lock__dump_load_same(void)
{
	static const char text[] =
	        "{\"version\":1,\"skills\":{\"beta\":{\"source\":\"b.zip\","
	        "\"version\":\"1.0\",\"files\":[{\"path\":\"SKILL.md\","
	        "\"size\":3,\"mode\":\"0644\",\"sha256\":\""
	        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	        "\"},{\"path\":\"scripts/r.sh\",\"size\":9,\"mode\":\"0755\","
	        "\"sha256\":\""
	        "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	        "\"}]},\"alpha\":{\"source\":\"a\",\"files\":[]}}}";
	struct skit__lockdoc a, b;
	skit_error err = { 0 };
	char *one, *two;

	ASSERT_OK(skit__lock_parse(&a, text, strlen(text), "L", &err));
	ASSERT_EQ(a.n, 2);
	one = skit__lock_dump(&a);
	ASSERT(one);
	ASSERT_OK(skit__lock_parse(&b, one, strlen(one), "L", &err));
	two = skit__lock_dump(&b);
	ASSERT(two);
	ASSERT_STR(one, two);
	ASSERT_CONTAINS(one, "\"scripts/r.sh\"");
	skitx_free(one);
	skitx_free(two);
	skit__lockdoc_release(&a);
	skit__lockdoc_release(&b);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_pack_lock__invalid_entry_named)
	TEST(test_pack_lock__invalid_entry_verify)
	TEST(test_pack_lock__invalid_entry_from_lock)
	TEST(test_pack_lock__parse_bad_shapes)
	TEST(test_pack_lock__dump_load_same))
/* clang-format on */
