/* SPDX-License-Identifier: MIT */
/*
 * test_confusable.c - UTS #39 skeletons and mixed-script names (ICU),
 * the ASCII table against ICU itself, and install's look-alike lookup
 * in a skills root.
 */
#include "common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "lib/core/confusable.h"
#include "util/buf.h"

/* Cyrillic р, о, с among Latin letters */
#define CYR_PDF          \
 "\xD1\x80"              \
 "df-pr\xD0\xBE\xD1\x81" \
 "essing"

static void skel(struct skit__confusable *c, const char *name,
                 struct skitx_buf *b)
{
	ASSERT_OK(skit__confusable_skeleton(c, name, b));
}

static void test_confusable__skeletons(void)
{
	struct skit__confusable c;
	struct skitx_buf a = SKITX_BUF_INIT, b = SKITX_BUF_INIT;

	ASSERT_OK(skit__confusable_open(&c));
	skel(&c, "pdf-processing", &a);
	skel(&c, CYR_PDF, &b);
	ASSERT_STR(a.ptr, b.ptr);
	skel(&c, "modern", &a);
	skel(&c, "rnodern", &b);
	ASSERT_STR(a.ptr, b.ptr);
	skel(&c, "skill-1", &a);
	skel(&c, "skill-l", &b);
	ASSERT_STR(a.ptr, b.ptr);
	skel(&c, "pdf-tools", &a);
	skel(&c, "pdf-tool", &b);
	ASSERT(strcmp(a.ptr, b.ptr));
	/* invalid UTF-8 has no skeleton */
	ASSERT_EQ(skit__confusable_skeleton(&c, "a\xFF", &a), SKIT_EENCODING);
	skit__confusable_close(&c);
	skitx_buf_release(&a);
	skitx_buf_release(&b);
}

/* The ASCII fast path gives ICU's own skeleton for every ASCII string. */
static void test_confusable__ascii_table(void)
{
	struct skit__confusable c;
	struct skitx_buf fast = SKITX_BUF_INIT, slow = SKITX_BUF_INIT;
	char s[130];
	size_t n = 0;

	ASSERT_OK(skit__confusable_open(&c));
	for (int ch = 1; ch < 128; ch++)
		s[n++] = (char)ch;
	s[n] = '\0';
	skel(&c, s, &fast);
	/* a non-ASCII character at the end sends the string through ICU */
	memcpy(s + n, "\xC3\xA9", 3);
	skel(&c, s, &slow);
	ASSERT(slow.len > fast.len);
	ASSERT(!memcmp(fast.ptr, slow.ptr, fast.len));
	skit__confusable_close(&c);
	skitx_buf_release(&fast);
	skitx_buf_release(&slow);
}

static void test_confusable__mixed_script(void)
{
	struct skit__confusable c;
	struct skitx_buf b = SKITX_BUF_INIT;

	ASSERT_OK(skit__confusable_open(&c));
	ASSERT(skit__confusable_mixed_script(&c, CYR_PDF));
	ASSERT(!skit__confusable_mixed_script(&c, "pdf-processing"));
	/* Han + Katakana is Japanese: one script for UTS #39 */
	ASSERT(!skit__confusable_mixed_script(
	        &c, "\xE6\x97\xA5\xE6\x9C\xAC-\xE3\x82\xB9\xE3\x82\xAD"));
	/* Greek alone */
	ASSERT(!skit__confusable_mixed_script(&c, "\xCE\xB1\xCE\xB2-2"));
	ASSERT_OK(skit__confusable_scripts(CYR_PDF, &b));
	ASSERT_STR(b.ptr, "Cyrillic, Latin");
	skit__confusable_close(&c);
	skitx_buf_release(&b);
}

static void test_confusable__installed(void)
{
	const char *dir = getenv("SKIT_TEST_DIR");
	char path[4096], *other = NULL;
	int fd;

	ASSERT(dir);
	snprintf(path, sizeof(path),
	         "mkdir -p '%s/root/pdf-processing' "
	         "'%s/root/modern' '%s/root/.rnodern' && "
	         "touch '%s/root/skill-l'",
	         dir, dir, dir, dir);
	ASSERT_OK(system(path));
	snprintf(path, sizeof(path), "%s/root", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	ASSERT(fd >= 0);
	ASSERT_OK(skit__confusable_installed(&other, fd, CYR_PDF));
	ASSERT_STR(other, "pdf-processing");
	skitx_free(other);
	/* case folds first: PDF-Processing looks like pdf-processing */
	ASSERT_OK(skit__confusable_installed(&other, fd, "PDF-Processing"));
	ASSERT_STR(other, "pdf-processing");
	skitx_free(other);
	ASSERT_OK(skit__confusable_installed(&other, fd, "rnodern"));
	ASSERT_STR(other, "modern");
	skitx_free(other);
	/* itself, dot-folders and files are no look-alikes */
	ASSERT_OK(skit__confusable_installed(&other, fd, "pdf-processing"));
	ASSERT(!other);
	ASSERT_OK(skit__confusable_installed(&other, fd, "skill-1"));
	ASSERT(!other);
	ASSERT_OK(skit__confusable_installed(&other, fd, "pdf-tools"));
	ASSERT(!other);
	close(fd);
}

/* clang-format off */
TEST_MAIN(
	TEST(test_confusable__skeletons)
	TEST(test_confusable__ascii_table)
	TEST(test_confusable__mixed_script)
	TEST(test_confusable__installed)
)
/* clang-format on */
