/* SPDX-License-Identifier: MIT */
/*
 * confusable.c - UTS #39 skeletons and mixed-script detection, from ICU's
 * spoof checker (libicu: the confusables and script data of the Unicode
 * version ICU ships, so nothing is copied into skit).
 *
 * Names are short, but a scan may have 100k of them: most are ASCII, so
 * an ASCII name's skeleton is the concatenation of its characters'
 * skeletons (NFD leaves ASCII alone, and no ASCII character's prototype
 * starts with a combining mark), taken from a 128-entry table that ICU
 * fills once per checker. Other names go through ICU.
 */
#include "common.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utf8proc.h>

#include <unicode/uscript.h>
#include <unicode/uspoof.h>
#include <unicode/utf8.h>

#include "lib/core/confusable.h"
#include "util/utf8.h"

/* Longest name handled (names are at most 64 characters; folders more). */
#define MAX_NAME 1024

int skit__confusable_open(struct skit__confusable *c)
{
	UErrorCode st = U_ZERO_ERROR;

	memset(c, 0, sizeof(*c));
	c->checker = uspoof_open(&st);
	if (U_FAILURE(st))
		goto fail;
	/* the restriction level is what tells single- from mixed-script */
	uspoof_setChecks(c->checker, USPOOF_RESTRICTION_LEVEL | USPOOF_AUX_INFO,
	                 &st);
	uspoof_setRestrictionLevel(c->checker,
	                           USPOOF_SINGLE_SCRIPT_RESTRICTIVE);
	c->result = uspoof_openCheckResult(&st);
	if (U_FAILURE(st))
		goto fail;
	return 0;
fail:
	skit__confusable_close(c);
	return SKIT_ENOMEM;
}

void skit__confusable_close(struct skit__confusable *c)
{
	if (c->result)
		uspoof_closeCheckResult(c->result);
	if (c->checker)
		uspoof_close(c->checker);
	c->result = c->checker = NULL;
}

static int icu_skeleton(struct skit__confusable *c, const char *s,
                        struct skitx_buf *out)
{
	UErrorCode st = U_ZERO_ERROR;
	int32_t n;
	int error;

	/* prototypes are short: 4 bytes out per byte in is plenty */
	error = skitx_buf_grow(out, strlen(s) * 4 + 16);
	if (error < 0)
		return error;
	n = uspoof_getSkeletonUTF8(c->checker, 0, s, -1, out->ptr + out->len,
	                           (int32_t)(out->alloc - out->len - 1), &st);
	if (st == U_BUFFER_OVERFLOW_ERROR) {
		error = skitx_buf_grow(out, (size_t)n + 1);
		if (error < 0)
			return error;
		st = U_ZERO_ERROR;
		n = uspoof_getSkeletonUTF8(
		        c->checker, 0, s, -1, out->ptr + out->len,
		        (int32_t)(out->alloc - out->len - 1), &st);
	}
	if (U_FAILURE(st) || n < 0)
		return st == U_MEMORY_ALLOCATION_ERROR ? SKIT_ENOMEM
		                                       : SKIT_EENCODING;
	out->len += (size_t)n;
	out->ptr[out->len] = '\0';
	return 0;
}

static int fill_ascii(struct skit__confusable *c)
{
	struct skitx_buf b = SKITX_BUF_INIT;
	int error = 0;

	for (int ch = 1; ch < 128 && !error; ch++) {
		char s[2] = { (char)ch, '\0' };

		skitx_buf_clear(&b);
		error = icu_skeleton(c, s, &b);
		if (error < 0)
			break;
		if (b.len >= sizeof(c->ascii[ch])) {
			error = SKIT_ENOMEM; /* cannot happen with ICU's data */
			break;
		}
		memcpy(c->ascii[ch], b.ptr, b.len + 1);
	}
	skitx_buf_release(&b);
	if (!error)
		c->ascii_ready = true;
	return error;
}

int skit__confusable_skeleton(struct skit__confusable *c, const char *name,
                              struct skitx_buf *out)
{
	size_t len = strlen(name);
	bool ascii = true;
	int error;

	skitx_buf_clear(out);
	if (len > MAX_NAME || skitx_utf8_check(name, len, NULL))
		return SKIT_EENCODING;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] >= 0x80)
			ascii = false;
	if (!ascii)
		return icu_skeleton(c, name, out);
	if (!c->ascii_ready) {
		error = fill_ascii(c);
		if (error < 0)
			return error;
	}
	for (size_t i = 0; i < len; i++) {
		error = skitx_buf_puts(out, c->ascii[(unsigned char)name[i]]);
		if (error < 0)
			return error;
	}
	return 0;
}

bool skit__confusable_mixed_script(struct skit__confusable *c, const char *name)
{
	UErrorCode st = U_ZERO_ERROR;
	URestrictionLevel level;
	size_t len = strlen(name);
	bool ascii = true;

	for (size_t i = 0; i < len; i++)
		if ((unsigned char)name[i] >= 0x80)
			ascii = false;
	if (ascii || len > MAX_NAME || skitx_utf8_check(name, len, NULL))
		return false;
	uspoof_check2UTF8(c->checker, name, (int32_t)len, c->result, &st);
	if (U_FAILURE(st))
		return false;
	level = uspoof_getCheckResultRestrictionLevel(c->result, &st);
	return U_SUCCESS(st) && level > USPOOF_SINGLE_SCRIPT_RESTRICTIVE;
}

int skit__confusable_scripts(const char *name, struct skitx_buf *out)
{
	UScriptCode seen[16];
	size_t nseen = 0, len = strlen(name);
	int32_t i = 0;

	skitx_buf_clear(out);
	if (len > MAX_NAME)
		return 0;
	while (i < (int32_t)len) {
		UErrorCode st = U_ZERO_ERROR;
		UScriptCode sc;
		UChar32 cp;
		bool dup = false;

		U8_NEXT(name, i, (int32_t)len, cp);
		if (cp < 0)
			continue;
		sc = uscript_getScript(cp, &st);
		if (U_FAILURE(st) || sc == USCRIPT_COMMON ||
		    sc == USCRIPT_INHERITED)
			continue;
		for (size_t k = 0; k < nseen; k++)
			dup |= seen[k] == sc;
		if (dup || nseen == SKIT_ARRAY_SIZE(seen))
			continue;
		seen[nseen++] = sc;
		if ((nseen > 1 && skitx_buf_puts(out, ", ") < 0) ||
		    skitx_buf_puts(out, uscript_getName(sc)) < 0)
			return SKIT_ENOMEM;
	}
	return 0;
}

/*
 * NFKC + case folding (as the registry's name collisions fold), into
 * `out`; as is when utf8proc cannot fold it on the stack.
 */
static int fold(const char *name, struct skitx_buf *out)
{
	utf8proc_int32_t buf[1024];
	utf8proc_ssize_t n;

	skitx_buf_clear(out);
	n = utf8proc_decompose(
	        (const utf8proc_uint8_t *)name, (utf8proc_ssize_t)strlen(name),
	        buf, (utf8proc_ssize_t)SKIT_ARRAY_SIZE(buf),
	        UTF8PROC_STABLE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD);
	if (n >= 0 && n <= (utf8proc_ssize_t)SKIT_ARRAY_SIZE(buf))
		n = utf8proc_reencode(buf, n,
		                      UTF8PROC_STABLE | UTF8PROC_COMPOSE);
	if (n < 0 || n > (utf8proc_ssize_t)sizeof(buf))
		return skitx_buf_puts(out, name);
	return skitx_buf_add(out, buf, (size_t)n);
}

/* The skeleton of `name` folded, into `out`. */
static int folded_skeleton(struct skit__confusable *c, const char *name,
                           struct skitx_buf *tmp, struct skitx_buf *out)
{
	int error = fold(name, tmp);

	return error < 0 ? error : skit__confusable_skeleton(c, tmp->ptr, out);
}

int skit__confusable_installed(char **other, int rootfd, const char *name)
{
	struct skitx_buf tmp = SKITX_BUF_INIT, want = SKITX_BUF_INIT;
	struct skitx_buf got = SKITX_BUF_INIT;
	struct skit__confusable c;
	struct dirent *de;
	struct stat st;
	DIR *dir = NULL;
	int fd, error;

	*other = NULL;
	error = skit__confusable_open(&c);
	if (error < 0)
		return error;
	error = folded_skeleton(&c, name, &tmp, &want);
	if (error < 0)
		goto out;
	fd = dup(rootfd);
	dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		goto out;
	}
	rewinddir(dir);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, name) ||
		    fstatat(rootfd, de->d_name, &st, 0) < 0 ||
		    !S_ISDIR(st.st_mode))
			continue;
		error = folded_skeleton(&c, de->d_name, &tmp, &got);
		if (error == SKIT_EENCODING)
			continue;
		if (error < 0)
			goto out;
		if (got.len != want.len || memcmp(got.ptr, want.ptr, got.len) ||
		    (*other && strcmp(de->d_name, *other) >= 0))
			continue;
		/* the first in byte order: the message does not depend on
		   readdir() order */
		skitx_free(*other);
		*other = skitx_strdup(de->d_name);
		if (!*other) {
			error = SKIT_ENOMEM;
			goto out;
		}
	}
out:
	if (error < 0 && error != SKIT_EENCODING) {
		skitx_free(*other);
		*other = NULL;
	} else {
		error = 0;
	}
	if (dir)
		closedir(dir);
	skit__confusable_close(&c);
	skitx_buf_release(&tmp);
	skitx_buf_release(&want);
	skitx_buf_release(&got);
	return error;
}
